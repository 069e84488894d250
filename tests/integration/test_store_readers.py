"""Readers of a healthy store leave nothing beside it (issue 22, item 6): report, runs
list/export/regressions/compare, manifest check --audit and runs merge (of its shard stores) open a
store with no side file read-only as immutable, so no -wal/-shm appears and its bytes stay the same.
A store that has side files (a writer at work) is still read through SQLite's locks."""
import hashlib
import sqlite3
import subprocess

import pytest


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


def side(p):
    return sorted(x.name for x in p.parent.iterdir() if x.name.startswith(p.name + "-"))


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    w = tmp_path_factory.mktemp("readers")
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", w / "db", "--quiet", check=0)
    millaudit.run("verify", w / "db", "--audit", w / "a.sqlite", "--quiet", check=0)
    millaudit.run("verify", w / "db", "--audit", w / "a.sqlite", "--quiet", check=0)
    millaudit.run("manifest", "create", w / "db", "--audit", w / "a.sqlite", "--quiet", check=0)
    millaudit.run("verify", w / "db", "--shard", "0/2", "--audit", w / "s0.sqlite", "--quiet", check=0)
    millaudit.run("verify", w / "db", "--shard", "1/2", "--audit", w / "s1.sqlite", "--quiet", check=0)
    return w


def test_writers_leave_a_wal_store_without_side_files(world):
    for name in ("a.sqlite", "s0.sqlite", "s1.sqlite"):
        p = world / name
        assert p.read_bytes()[18:20] == b"\x02\x02"  # WAL mode: where a reader would make -wal/-shm
        assert side(p) == []


@pytest.mark.parametrize("args", [
    ("report", "--audit", "{a}", "--format", "json"),
    ("runs", "list", "--audit", "{a}"),
    ("runs", "export", "--audit", "{a}", "--run", "1"),
    ("runs", "regressions", "--audit", "{a}", "--run", "2"),
    ("runs", "compare", "--audit", "{a}", "1", "2"),
    ("manifest", "check", "{db}/MANIFEST.sha256", "--audit", "{a}"),
], ids=["report", "runs-list", "runs-export", "runs-regressions", "runs-compare", "manifest-check"])
def test_readers_leave_no_side_file(millaudit, world, args):
    a = world / "a.sqlite"
    before = sha(a)
    argv = [x.format(a=a, db=world / "db") for x in args]
    proc = millaudit.run(*argv)
    assert proc.returncode == 0, proc.stderr
    assert side(a) == [] and sha(a) == before


def test_runs_merge_leaves_its_shards_untouched(millaudit, world, tmp_path):
    s0, s1 = world / "s0.sqlite", world / "s1.sqlite"
    before = (sha(s0), sha(s1))
    millaudit.run("runs", "merge", tmp_path / "m.sqlite", s0, s1, check=0)
    assert side(s0) == [] and side(s1) == [] and (sha(s0), sha(s1)) == before


def test_a_store_with_a_writer_at_work_is_read_through_locks(millaudit, world, tmp_path):
    """A WAL store held open by another connection with uncommitted-to-file rows in its -wal: the
    reader must see them (an immutable open of the file alone would miss them)."""
    a = tmp_path / "a.sqlite"
    a.write_bytes((world / "a.sqlite").read_bytes())
    con = sqlite3.connect(a)
    con.execute("PRAGMA wal_autocheckpoint = 0")
    con.execute("UPDATE runs SET host = 'held-open' WHERE id = 1")
    con.commit()  # committed into the -wal, not yet into the file
    assert (tmp_path / "a.sqlite-wal").stat().st_size > 0
    proc = millaudit.run("runs", "export", "--audit", a, "--run", "1", check=0)
    assert "held-open" in proc.stdout
    con.close()
