"""verify --plan N states, per shard, the most memory its task holds (docs/distributed.md "Memory per
task"): every `verify --shard I/N` of a real database, in the open format and in Malom's .sec2, peaks
at no more resident memory than its shard's planned peak_bytes. The peak is the process's own maximum
resident set (ru_maxrss of that one process, from wait4 in a small parent of its own): mapped files and private memory alike, which
is what a cluster's memory limit counts.

The 4-stone game is small, so the process's own memory, beside the files, is most of each task's
peak: a plan that counted the files alone (as it did before) fails here on every shard."""
import json
import os
import subprocess
import sys

import pytest

N = 3


@pytest.fixture(scope="module")
def games(std4_games):
    """The whole std 4-stone game, in the open format and (from those files) in .sec2."""
    return std4_games


# A small intermediate process forks and execs millaudit and reports that grandchild's own peak:
# a child forked from pytest itself starts as a copy of pytest, and Linux carries the high-water mark
# of the memory it had before exec into ru_maxrss (a pytest grown to 1.2 GB by the whole suite made
# every shard "peak" at 1.2 GB).
MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def peak_rss(millaudit, out, *args):
    """The peak resident set of `millaudit args` alone, in bytes, and its exit code."""
    subprocess.run([sys.executable, "-c", MEASURE, str(out), str(millaudit.path), *map(str, args)], check=True)
    kib, rc = map(int, out.read_text().split())
    return kib * 1024, rc  # ru_maxrss is in KiB on Linux


@pytest.mark.parametrize("family, fmt", [("open", "open"), ("sec2", "malom-sec2")])
def test_every_shard_peaks_within_its_planned_memory(millaudit, games, tmp_path, family, fmt):
    db = games / family
    doc = json.loads(millaudit.run("verify", db, "--plan", N, "--json", check=0).stdout)
    assert doc["database"]["format"] == fmt
    assert [s["shard"] for s in doc["plan"]] == list(range(N))
    for s in doc["plan"]:
        # the shard's peak is its largest sector's
        assert s["peak_bytes"] == max(p["peak_bytes"] for p in doc["sector_plan"] if p["shard"] == s["shard"])
        rss, rc = peak_rss(millaudit, tmp_path / "rss.txt", "verify", db, "--shard", f"{s['shard']}/{N}", "--audit",
                           tmp_path / f"{family}-{s['shard']}.sqlite", "--threads", 2, "--quiet")
        assert rc == 0, f"shard {s['shard']}/{N} of {family} exited {rc}"
        assert rss <= s["peak_bytes"], \
            f"shard {s['shard']}/{N} of {family}: peak RSS {rss / 2**20:.1f} MiB > planned {s['peak_bytes'] / 2**20:.1f} MiB"
