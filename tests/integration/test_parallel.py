"""The GNU parallel recipe (ci/parallel/millaudit-parallel, docs/distributed.md) runs the shards of the
4-stone standard game with one planted fault as parallel jobs on this machine, once by --jobs and
once through --sshloginfile (":" is GNU parallel's name for this machine, so the hosts path is used
without an ssh server), and merges them: the merged store equals a single process's run field by
field. Running it again after a shard failed resumes that shard."""
import os
import shutil
import sqlite3
import subprocess

import pytest

from conftest import skip_unless

from merge_util import ROOT, assert_same_run, plant_fault, shard_roots, sql

RECIPE = ROOT / "ci" / "parallel" / "millaudit-parallel"
N = 3


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    skip_unless(shutil.which("parallel"), "GNU parallel absent (scripts/install-deps --test installs it)")
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    plant_fault(millaudit, db)
    return db


@pytest.fixture(scope="module")
def single(millaudit, game4, tmp_path_factory):
    store = tmp_path_factory.mktemp("single") / "single.sqlite"
    millaudit.run("verify", game4, "--audit", store, "--quiet", "--threads", "2", check=1)
    return store


def recipe(millaudit, *args, key=None):
    """The recipe with its seal key in the test's directory (created there by the recipe on first use),
    never the user's ~/.config/millaudit/seal.key."""
    env = dict(os.environ, MILLAUDIT=str(millaudit.path))
    if key:
        env["MILLAUDIT_SEAL_KEY"] = str(key)
    return subprocess.run([str(RECIPE), *map(str, args)], capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.parametrize("hosts", [None, ":"])
def test_parallel_shards_merge_to_the_single_run(millaudit, game4, single, tmp_path, hosts):
    out = tmp_path / "out"
    args = [game4, "--shards", N, "--out", out, "--jobs", 2]
    if hosts:
        (tmp_path / "hosts").write_text(f"{hosts}\n")
        args += ["--sshloginfile", tmp_path / "hosts"]
    proc = recipe(millaudit, *args, key=tmp_path / "keys" / "seal.key")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # discrepancies, as the single run
    assert f"merged {N} shards of {N}" in proc.stdout
    # the recipe made its key (readable by its owner only) and sealed every shard with it
    assert (tmp_path / "keys" / "seal.key").stat().st_mode & 0o077 == 0
    assert proc.stdout.count(", seal verified\n") == N and "\nsealed: every shard's rows" in proc.stdout
    assert_same_run(single, out / "merged.sqlite")
    stores = [out / f"shard-{i}-of-{N}.sqlite" for i in range(N)]
    assert shard_roots(stores) > sql(out / "merged.sqlite", "SELECT sum(roots) FROM sector_results")[0][0]
    joblog = (out / "logs" / "joblog").read_text().splitlines()
    assert len(joblog) == N + 1 and all(line.split("\t")[6] == "0" for line in joblog[1:])  # Exitval
    assert (out / "report.html").stat().st_size > 0


def test_a_failed_shard_is_reported_and_resumed_by_running_again(millaudit, game4, single, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    # shard 1's store is not a store: its task fails, and the merge refuses the store
    (out / f"shard-1-of-{N}.sqlite").write_text("not a store")
    key = tmp_path / "seal.key"
    proc = recipe(millaudit, game4, "--shards", N, "--out", out, key=key)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "1 shard(s) failed" in proc.stderr and f"shard-1-of-{N}.sqlite" in proc.stderr
    assert "no run recorded" in (out / "logs" / "shard-1.out").read_text()
    assert not (out / "report.html").exists()
    # the store is repaired by the operator, and shard 0's run was stopped (interrupted) meanwhile
    (out / f"shard-1-of-{N}.sqlite").unlink()
    con = sqlite3.connect(out / f"shard-0-of-{N}.sqlite")
    con.execute("UPDATE runs SET status = 'interrupted'")
    con.commit()
    con.close()
    proc = recipe(millaudit, game4, "--shards", N, "--out", out, key=key)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sql(out / f"shard-0-of-{N}.sqlite", "SELECT mode FROM runs ORDER BY id") == [("full",), ("resume",)]
    assert_same_run(single, out / "merged.sqlite")


def test_an_edited_shard_store_fails_the_sealed_merge_and_is_checked_again(millaudit, game4, single, tmp_path):
    """The recipe seals: a shard store edited after its run (its fault rewritten away) is refused by the
    merge; the operator deletes it and runs the recipe again, which checks that shard again."""
    out = tmp_path / "out"
    key = tmp_path / "seal.key"
    assert recipe(millaudit, game4, "--shards", N, "--out", out, key=key).returncode == 1
    faulty = next(s for s in (out / f"shard-{i}-of-{N}.sqlite" for i in range(N))
                  if sql(s, "SELECT sum(discrepancies) FROM sector_results")[0][0])
    con = sqlite3.connect(faulty)
    con.execute("UPDATE sector_results SET verified = entries, discrepancies = 0, roots = 0, propagated = 0,"
                " status = 'ok'")
    con.commit()
    con.close()
    proc = recipe(millaudit, game4, "--shards", N, "--out", out, key=key)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "the seal does not verify" in proc.stderr and faulty.name in proc.stderr
    faulty.unlink()
    proc = recipe(millaudit, game4, "--shards", N, "--out", out, key=key)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert_same_run(single, out / "merged.sqlite")
