"""verify on a host that cannot hold a unit's files in private memory (docs/runs.md "The bytes hashed
are the bytes checked", the budget): the run takes the memory the process may use (MemAvailable, its
cgroup's room, its data limit) into account and maps such a unit instead of reading it privately, so a
small host or a batch system's memory limit gets a slower run with the same verdict, not a run stopped
for want of memory (or, without a limit to refuse the allocation, the out-of-memory killer).

The database is the standard game's movement sectors up to 5_5_0_0 in the open format (129 MB; the
unit of 5_5_0_0 reads about 90 MB of files). Under a data limit of 56 MiB (ulimit -d), a run that read
that unit privately cannot get the memory (74f97b3: "std_5_5_0_0.mdb: sector 5_5_0_0: offset 0: out of
memory reading 65,814,608 bytes", exit 5, for every limit up to 80 MiB), while the mapped run needs
about 32 MiB of its own. The sanitizers' shadow memory counts as data, so the release build runs it."""
import json
import resource
import shutil
import subprocess

import pytest
from merge_util import last_draw, plant_draw_as_loss

LIMIT = 56 << 20
ENTRIES = "67,256,675"


@pytest.fixture(scope="module")
def std55(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("std55") / "open"
    millaudit.run("solve", "--variant", "std", "--sector", "5_5_0_0", "--with-deps", "--out", out,
                  "--threads", "2", "--quiet", check=0)
    return out


def limited(millaudit, *args, limit=LIMIT):
    def lower():
        resource.setrlimit(resource.RLIMIT_DATA, (limit, resource.getrlimit(resource.RLIMIT_DATA)[1]))
    return subprocess.run([str(millaudit.path), *map(str, args)], capture_output=True, text=True,
                          preexec_fn=lower, timeout=600)


def test_a_unit_larger_than_the_data_limit_is_verified_mapped(millaudit, std55):
    files = sorted(p.stat().st_size for p in std55.glob("*.mdb"))
    assert files[-1] > LIMIT, "the test needs a unit whose own file exceeds the limit"
    proc = limited(millaudit, "verify", std55, "--threads", "2", "--no-manifest")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "out of memory" not in proc.stderr
    assert f"verdict: verified: all {ENTRIES} entries of 9 sectors re-derived and matching" in proc.stdout


def test_a_fault_is_found_under_the_data_limit(millaudit, std55, tmp_path):
    """The mapped run judges as the private one: a draw of the largest file stored as a loss in 2
    (resealed: the producer's wrong value, not damage) is one root discrepancy at that entry, exit 1."""
    db = tmp_path / "db"
    shutil.copytree(std55, db)
    target = db / "std_5_5_0_0.mdb"
    fault = last_draw(target)
    plant_draw_as_loss(millaudit, target, fault)
    proc = limited(millaudit, "verify", db, "--threads", "2", "--no-manifest", "--json")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "out of memory" not in proc.stderr
    sectors = {s["sector"]: s for s in json.loads(proc.stdout)["sectors"]}
    assert sum(s["roots"] for s in sectors.values()) == 1
    roots = [r for r in sectors["std_5_5_0_0"]["rows"] if r["root"]]
    assert [(r["entry"], r["stored"]["text"], r["derived"]["text"]) for r in roots] == \
        [(fault, "loss 2 (0x4002)", "draw")]
