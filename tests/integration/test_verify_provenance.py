"""A verify run says exactly which bytes it checked and what it derived.

`verify --audit` records the manifest of every file it read (SHA-256 equal to hashlib's) and, per
sector, the derived-value digest, so two teams compare runs without exchanging databases: two
verify runs on two copies compare equal; a copy with one entry changed so that the re-derived
values change compares unequal at exactly the sectors whose values changed.
"""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("prov") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


def manifest_rows(store, run):
    with sqlite3.connect(store) as db:
        return dict(db.execute("SELECT path, sha256 FROM manifest_files WHERE run_id = ?", (run,)))


def digests(store, run):
    with sqlite3.connect(store) as db:
        return dict(db.execute("SELECT sector, derived_sha256 FROM sector_digests WHERE run_id = ?", (run,)))


def test_verify_records_the_manifest_of_every_file_it_read(millaudit, game, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", game, "--audit", store, "--quiet", check=0)
    rows = manifest_rows(store, 1)
    files = sorted(p.name for p in game.glob("*.mdb"))
    assert sorted(rows) == files
    for name in files:
        assert rows[name] == hashlib.sha256((game / name).read_bytes()).hexdigest(), name
    report = millaudit.run("report", "--audit", store, "--format", "text", check=0).stdout
    assert "NO MANIFEST" not in report.upper()
    assert rows[files[0]] in report


def test_verify_records_a_derived_digest_per_sector(millaudit, game, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", game, "--audit", store, "--quiet", check=0)
    d = digests(store, 1)
    assert sorted(d) == sorted(p.name[:-4] for p in game.glob("*.mdb"))
    assert all(len(h) == 64 for h in d.values())


def test_two_verify_runs_on_copies_compare_equal_and_a_changed_value_differs(millaudit, game, tmp_path):
    copies = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    for c in copies:
        shutil.copytree(game, c)
    # Flip a loss to a draw in the 3_3_0_0 movement sector: its predecessors re-derive differently,
    # so the derived values (not only the bytes) change.
    target = copies[2] / "std_3_3_0_0.mdb"
    dump = millaudit.run("dump", target, "--with-entry", check=0).stdout
    entry = next(line.split()[0] for line in dump.splitlines()
                 if not line.startswith("#") and line.split()[2] == "loss" and line.split()[3] == "2")
    proc = subprocess.run([sys.executable, str(INJECT), str(target), "--entry", entry, "--outcome", "draw", "--reseal"],
                          capture_output=True, text=True, env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    assert proc.returncode == 0, proc.stderr
    store = tmp_path / "runs.sqlite"
    millaudit.run("verify", copies[0], "--audit", store, "--quiet", check=0)
    millaudit.run("verify", copies[1], "--audit", store, "--quiet", check=0)
    millaudit.run("verify", copies[2], "--audit", store, "--quiet", check=1)
    same = millaudit.run("runs", "compare", "--audit", store, 1, 2, check=0)
    assert "equal" in same.stdout
    differ = millaudit.run("runs", "compare", "--audit", store, 1, 3, check=1).stdout
    changed = [line.split()[0] for line in differ.splitlines()
               if line.startswith("std_") and "same" not in line.split()[-1]]
    assert "std_3_3_0_0" in changed
    assert all(s == "std_3_3_0_0" or digests(store, 1)[s] != digests(store, 3)[s] for s in changed)


def test_malom_verify_records_fixture_digests(millaudit, malom_fixtures, tmp_path):
    store = tmp_path / "m.sqlite"
    strong = malom_fixtures / "std-strong"
    millaudit.run("verify", strong, "--audit", store, "--quiet", check=0)
    rows = manifest_rows(store, 1)
    assert sorted(rows) == sorted(p.name for p in strong.glob("*.sec"))
    for name, digest in rows.items():
        assert digest == hashlib.sha256((strong / name).read_bytes()).hexdigest()
