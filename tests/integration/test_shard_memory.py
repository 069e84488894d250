"""verify --plan N states, per shard, the most memory its task holds (docs/distributed.md "Memory per
task"): every `verify --shard I/N` of a real database, in the open format and in Malom's .sec2, peaks
at no more resident memory than its shard's planned peak_bytes. The peak is the child's own maximum
resident set (ru_maxrss of that one child, from wait4): mapped files and private memory alike, which
is what a cluster's memory limit counts.

The 4-stone game is small, so the process's own memory, beside the files, is most of each task's
peak: a plan that counted the files alone (as it did before) fails here on every shard."""
import json
import os
import subprocess

import pytest

N = 3


@pytest.fixture(scope="module")
def games(millaudit, tmp_path_factory):
    """The whole std 4-stone game, in the open format and (from those files) in .sec2."""
    base = tmp_path_factory.mktemp("shardmem")
    millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", base / "open", "--quiet", check=0)
    millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", base / "sec2", "--open-dir", base / "open",
                  "--format", "malom-sec2", "--quiet", check=0)
    return base


def peak_rss(millaudit, *args):
    """The peak resident set of `millaudit args` alone, in bytes, and its exit code."""
    proc = subprocess.Popen([str(millaudit.path), *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss * 1024, proc.returncode  # ru_maxrss is in KiB on Linux


@pytest.mark.parametrize("family, fmt", [("open", "open"), ("sec2", "malom-sec2")])
def test_every_shard_peaks_within_its_planned_memory(millaudit, games, tmp_path, family, fmt):
    db = games / family
    doc = json.loads(millaudit.run("verify", db, "--plan", N, "--json", check=0).stdout)
    assert doc["database"]["format"] == fmt
    assert [s["shard"] for s in doc["plan"]] == list(range(N))
    for s in doc["plan"]:
        # the shard's peak is its largest sector's
        assert s["peak_bytes"] == max(p["peak_bytes"] for p in doc["sector_plan"] if p["shard"] == s["shard"])
        rss, rc = peak_rss(millaudit, "verify", db, "--shard", f"{s['shard']}/{N}", "--audit",
                           tmp_path / f"{family}-{s['shard']}.sqlite", "--threads", 2, "--quiet")
        assert rc == 0, f"shard {s['shard']}/{N} of {family} exited {rc}"
        assert rss <= s["peak_bytes"], \
            f"shard {s['shard']}/{N} of {family}: peak RSS {rss / 2**20:.1f} MiB > planned {s['peak_bytes'] / 2**20:.1f} MiB"
