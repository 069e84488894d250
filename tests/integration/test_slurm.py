"""The Slurm recipe against the real engines (docs/distributed.md): a single-node cluster from Debian's
slurmctld, slurmd and munge on localhost runs ci/slurm/millaudit-slurm's job array (one task per
shard) and its merge job (--dependency=afterok) on the 4-stone standard game with one planted fault;
the merged store equals a single process's run of the same database field by field. A task whose
store holds an interrupted run of its shard resumes it.

Needs root (the daemons run as root) and the packages scripts/install-deps --test installs; skips
with a message without them, fails under CI."""
import os
import subprocess

import pytest

from conftest import skip_unless

from merge_util import ROOT, assert_same_run, plant_fault, shard_roots, sql
from slurm_cluster import Cluster, missing_tools

SUBMIT = ROOT / "ci" / "slurm" / "millaudit-slurm"
N = 4


def _require():
    why = None
    if os.geteuid() != 0:
        why = "the test Slurm cluster runs its daemons as root"
    elif missing_tools():
        why = f"Slurm/munge tools absent: {', '.join(missing_tools())} (scripts/install-deps --test installs them)"
    skip_unless(why is None, why)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    _require()
    c = Cluster(tmp_path_factory.mktemp("slurm")).start()
    yield c
    c.stop()


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    plant_fault(millaudit, db)
    return db


def test_array_and_merge_job_equal_a_single_run(millaudit, cluster, game4, tmp_path):
    single = tmp_path / "single.sqlite"
    millaudit.run("verify", game4, "--audit", single, "--quiet", "--threads", "2", check=1)
    out = tmp_path / "out"
    # shard 2's first attempt was stopped (a time limit's SIGTERM): its store holds an interrupted run
    # with only some sectors committed, which the array task must resume
    out.mkdir()
    partial = out / f"shard-2-of-{N}.sqlite"
    millaudit.run("verify", game4, "--shard", f"2/{N}", "--audit", partial, "--quiet")
    con = __import__("sqlite3").connect(partial)
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("UPDATE runs SET status = 'interrupted'")
    first = [r[0] for r in con.execute("SELECT sector FROM sector_results ORDER BY sector LIMIT 2")]
    con.executemany("DELETE FROM discrepancies WHERE sector = ?", [(s,) for s in first])
    con.executemany("DELETE FROM sector_results WHERE sector = ?", [(s,) for s in first])
    con.commit()
    con.close()

    env = dict(cluster.env, MILLAUDIT=str(millaudit.path))
    proc = subprocess.run([str(SUBMIT), str(game4), "--shards", str(N), "--out", str(out), "--cpus", "1", "--wait"],
                          env=env, capture_output=True, text=True, timeout=600)
    logs = "\n".join(f"{f.name}: {f.read_text()[-1500:]}" for f in sorted((out / "logs").glob("*.out")))
    assert proc.returncode == 1, f"{proc.stdout}\n{proc.stderr}\n{logs}"  # discrepancies, as the single run
    assert "verdict: discrepancies found" in proc.stdout
    merged = out / "merged.sqlite"
    assert_same_run(single, merged)
    stores = [out / f"shard-{i}-of-{N}.sqlite" for i in range(N)]
    # every task ran as an array task of the cluster, shard 2 resumed its interrupted run
    for i, store in enumerate(stores):
        assert "--shard" in sql(store, "SELECT command_line FROM runs ORDER BY id DESC LIMIT 1")[0][0]
        assert (out / "logs" / f"shard-{i}.out").read_text().count(f"shard {i}/{N}") >= 1
    assert sql(stores[2], "SELECT mode, resumed_from FROM runs ORDER BY id") == [("full", None), ("resume", 1)]
    assert "resuming it" in (out / "logs" / "shard-2.out").read_text()
    # the fault propagates across shards: the merge reclassified roots of the shards
    assert shard_roots(stores) > sql(merged, "SELECT sum(roots) FROM sector_results")[0][0]
    assert sql(merged, "SELECT count(*), min(shard_count) FROM run_shards") == [(N, N)]
    assert (out / "report.html").stat().st_size > 0 and "Shards" in (out / "report.txt").read_text()
