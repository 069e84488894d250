"""manifest merge OUT SHARD... --audit A.sqlite (issue 22, item 7; docs/manifest.md): the merged
manifest is recorded as a manifest run that equals, row for row, what `manifest create DIR --audit`
records (sizes and provenance from the database directory, the shards' digests, the absolute root)
except that it has no chunk digests; `runs list --root` finds it; `manifest check --audit` still
pins a changed file with the chunk digests of an earlier create run; a listed file absent from the
directory, or the store among the outputs, is refused and nothing is written.

The database is the reference producer's whole 4-stone standard game (open .mdb files that state
their variant, format and sector) plus files that are no sector's."""
import json
import shutil
import sqlite3
import subprocess

import pytest

from merge_util import INJECT

N = 3
FILE_COLUMNS = ("path, size, sha256, variant, format, sector, producer, producer_version, entries,"
                " ruleset_fingerprint")


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    return db


@pytest.fixture
def tree(game4, tmp_path):
    d = tmp_path / "db"
    shutil.copytree(game4, d)
    (d / "README").write_text("the 4-stone game\n")
    (d / "sub").mkdir()
    (d / "sub" / "notes.txt").write_text("notes\n")
    return d


@pytest.fixture
def shards(millaudit, tree, tmp_path):
    out = []
    for i in range(N):
        m = tmp_path / f"s{i}.sha256"
        millaudit.run("manifest", "create", tree, "--shard", f"{i}/{N}", "--out", m, "--quiet", check=0)
        out.append(m)
    return out


def rows(store, sql, *args):
    con = sqlite3.connect(store)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def dump(store):
    con = sqlite3.connect(store)
    try:
        return list(con.iterdump())
    finally:
        con.close()


def files_of(store, run):
    return rows(store, f"SELECT {FILE_COLUMNS} FROM manifest_files WHERE run_id = ? ORDER BY path", run)


def test_merge_records_the_run_manifest_create_records(millaudit, tree, shards, tmp_path):
    store = tmp_path / "a.sqlite"
    proc = millaudit.run("manifest", "create", tree, "--out", tmp_path / "whole.sha256", "--audit", store,
                         "--quiet", check=0)
    out = tree / "MANIFEST.sha256"
    proc = millaudit.run("manifest", "merge", out, *shards, "--audit", store, check=0)
    assert f"{store}: run 2 recorded" in proc.stdout
    created, merged = files_of(store, 1), files_of(store, 2)
    assert len(merged) == len(out.read_text().splitlines()) > 3
    assert merged == created  # path, size, sha256, variant, format, sector and the rest, row for row
    assert {r[4] for r in merged} == {"open", None} and any(r[5] == "std_3_3_0_0" for r in merged)
    run_cols = "kind, database_root, status, variant, format"
    (c_run,), (m_run,) = (rows(store, f"SELECT {run_cols} FROM runs WHERE id = ?", i) for i in (1, 2))
    assert m_run == c_run == ("manifest", str(tree.resolve()), "ok", "std", "open")
    assert rows(store, "SELECT manifest_path FROM manifests WHERE run_id = 2") == [(str(out),)]
    # no chunk digests: the shard manifests carry none and nothing is hashed again
    assert rows(store, "SELECT count(*) FROM manifest_chunks WHERE run_id = 2") == [(0,)]
    assert rows(store, "SELECT count(*) FROM manifest_chunks WHERE run_id = 1")[0][0] >= len(created) - 1
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--root", tree, "--json", check=0).stdout)
    assert [(r["id"], r["kind"]) for r in doc["runs"]] == [(1, "manifest"), (2, "manifest")]
    other = tmp_path / "elsewhere"
    other.mkdir()
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--root", other, "--json", check=0).stdout)
    assert doc["runs"] == []


def test_a_merge_run_alone_equals_a_create_run_alone(millaudit, tree, shards, tmp_path):
    # --dir names the directory when OUT is elsewhere; the sizes come from there
    merged_store, created_store = tmp_path / "m.sqlite", tmp_path / "c.sqlite"
    millaudit.run("manifest", "merge", tmp_path / "merged.sha256", *shards, "--audit", merged_store, "--dir", tree,
                  check=0)
    millaudit.run("manifest", "create", tree, "--out", "-", "--audit", created_store, "--quiet", check=0)
    assert files_of(merged_store, 1) == files_of(created_store, 1)
    assert rows(merged_store, "SELECT database_root FROM runs") == [(str(tree.resolve()),)]
    # standard output as OUT: the directory is ., no manifest path recorded
    store = tmp_path / "stdout.sqlite"
    proc = millaudit.run("manifest", "merge", "-", *shards, "--audit", store, cwd=tree, check=0)
    assert proc.stdout == (tmp_path / "merged.sha256").read_text()
    assert files_of(store, 1) == files_of(created_store, 1)
    assert rows(store, "SELECT manifest_path FROM manifests") == [(None,)]


def test_check_audit_after_a_merge_run_pins_with_the_create_run(millaudit, tree, shards, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("manifest", "create", tree, "--out", "-", "--audit", store, "--quiet", check=0)
    merged = tree / "MANIFEST.sha256"
    millaudit.run("manifest", "merge", merged, *shards, "--audit", store, check=0)
    subprocess.run(["python3", str(INJECT), "--reseal", str(tree / "std_3_3_0_0.mdb"), "--entry", "100",
                    "--depth-delta", "+1"], check=True, capture_output=True,
                   env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})
    proc = millaudit.run("manifest", "check", merged, "--audit", store, "--quiet", check=1)
    # the merge run (newer, no chunk rows) is passed over: the create run's chunks pin the change
    assert proc.stdout.startswith("std_3_3_0_0.mdb: FAILED at bytes 0-"), proc.stdout
    # a store holding only the merge run cannot pin: FAILED without byte ranges, not a store error
    only = tmp_path / "only.sqlite"
    millaudit.run("manifest", "merge", tmp_path / "m.sha256", *shards, "--audit", only, "--dir", tree, check=0)
    proc = millaudit.run("manifest", "check", merged, "--audit", only, "--quiet", check=1)
    assert proc.stdout == "std_3_3_0_0.mdb: FAILED\n"


def test_an_absent_listed_file_is_refused_and_nothing_written(millaudit, tree, shards, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("manifest", "create", tree, "--out", "-", "--audit", store, "--quiet", check=0)
    before = dump(store)
    (tree / "std_2_2_1_1.mdb").unlink()
    out = tree / "MANIFEST.sha256"
    proc = millaudit.run("manifest", "merge", out, *shards, "--audit", store, check=3)
    assert proc.stderr.count("\n") == 1 and str(tree.resolve() / "std_2_2_1_1.mdb") in proc.stderr
    assert not out.exists() and dump(store) == before
    # a new store is not even created
    fresh = tmp_path / "fresh.sqlite"
    millaudit.run("manifest", "merge", out, *shards, "--audit", fresh, check=3)
    assert not fresh.exists() and not out.exists()
    # OUT away from the database without --dir: its directory lacks the files
    proc = millaudit.run("manifest", "merge", tmp_path / "m.sha256", *shards, "--audit", fresh, check=3)
    assert "README" in proc.stderr or ".mdb" in proc.stderr
    assert not fresh.exists() and not (tmp_path / "m.sha256").exists()
    # a directory that is not one
    proc = millaudit.run("manifest", "merge", out, *shards, "--audit", fresh, "--dir", tree / "README", check=3)
    assert "not a directory" in proc.stderr and not fresh.exists()


def test_the_store_is_no_output_and_no_shard(millaudit, tree, shards, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("manifest", "create", tree, "--out", "-", "--audit", store, "--quiet", check=0)
    before = dump(store)
    for out in (store, tmp_path / "a.sqlite-wal", tmp_path / "a.sqlite-journal"):
        proc = millaudit.run("manifest", "merge", out, *shards, "--audit", store, "--dir", tree, check=2)
        assert proc.stderr.count("\n") == 1 and "audit store" in proc.stderr, proc.stderr
    assert dump(store) == before
    proc = millaudit.run("manifest", "merge", tmp_path / "m.sha256", *shards, "--audit", shards[1], "--dir", tree,
                         check=2)
    assert proc.stderr.count("\n") == 1 and "shard manifest" in proc.stderr, proc.stderr
    assert not (tmp_path / "m.sha256").exists()
    # --dir only says where --audit takes sizes
    proc = millaudit.run("manifest", "merge", tmp_path / "m.sha256", *shards, "--dir", tree, check=2)
    assert "--audit" in proc.stderr.splitlines()[0]
