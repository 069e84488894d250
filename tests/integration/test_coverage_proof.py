"""The coverage proof behind "verified" on the shard/merge path (issue 21 items 1, 3 and 7;
docs/runs.md "The coverage proof", docs/distributed.md "What the merge checks"): a shard records the
inventory and plan it was planned from, `runs merge` refuses shards of different inventories and
shard stores whose rows do not add up, and an empty shard is a verified shard of 0 sectors.

The databases are the reference producer's whole 4-stone game (clean, and with one fault planted in
std_0_0_4_4 as the issue reproduces it) and the 3-stone game (7 sectors, for empty shards)."""
import hashlib
import json
import shutil
import sqlite3
import subprocess

import pytest

from merge_util import INJECT, sql


@pytest.fixture(scope="module")
def clean4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("clean4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    return db


@pytest.fixture(scope="module")
def faulty4(millaudit, clean4, tmp_path_factory):
    db = tmp_path_factory.mktemp("faulty4") / "db"
    shutil.copytree(clean4, db)
    # std_0_0_4_4 has one entry, a draw; a win there is a wrong outcome (the producer's: resealed)
    subprocess.run(["python3", str(INJECT), str(db / "std_0_0_4_4.mdb"), "--entry", "0", "--outcome", "win",
                    "--reseal"], check=True, capture_output=True,
                   env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})
    return db


@pytest.fixture(scope="module")
def game3(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g3") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=0)
    assert len(list(db.glob("*.mdb"))) == 7
    return db


@pytest.fixture(scope="module")
def clean_shards(millaudit, clean4, tmp_path_factory):
    d = tmp_path_factory.mktemp("clean-shards")
    stores = [d / f"s{i}.sqlite" for i in range(2)]
    for i, s in enumerate(stores):
        millaudit.run("verify", clean4, "--shard", f"{i}/2", "--audit", s, "--quiet", check=0)
    return stores


def tampered(src, dst, *statements):
    shutil.copy(src, dst)
    con = sqlite3.connect(dst)
    for s in statements:
        con.execute(s)
    con.commit()
    con.close()
    return dst


def refused(proc, *words):
    """Exit 3, one line on stderr naming every word, nothing on stdout."""
    assert proc.returncode == 3, (proc.stdout, proc.stderr)
    assert len(proc.stderr.splitlines()) == 1, proc.stderr
    for w in words:
        assert w in proc.stderr, (w, proc.stderr)
    assert "verdict: verified" not in proc.stdout


def test_item1_shards_planned_over_different_files_are_refused(millaudit, faulty4, tmp_path):
    """Issue 21 item 1: shard 0 planned with std_0_1_4_3.mdb hidden, shard 1 with it back; the
    merge used to say "verified: all 7475749 entries of 27 sectors" and miss the fault that a single
    run finds."""
    single = millaudit.run("verify", faulty4, "--quiet")
    assert single.returncode == 1 and "verdict: discrepancies found" in single.stdout
    hidden = tmp_path / "std_0_1_4_3.mdb"
    shutil.move(faulty4 / "std_0_1_4_3.mdb", hidden)
    try:
        millaudit.run("verify", faulty4, "--shard", "0/2", "--audit", tmp_path / "s0.sqlite", "--quiet", check=0)
    finally:
        shutil.move(hidden, faulty4 / "std_0_1_4_3.mdb")
    millaudit.run("verify", faulty4, "--shard", "1/2", "--audit", tmp_path / "s1.sqlite", "--quiet")
    out = tmp_path / "m.sqlite"
    proc = millaudit.run("runs", "merge", out, tmp_path / "s0.sqlite", tmp_path / "s1.sqlite")
    refused(proc, "different inventories", "std_0_1_4_3.mdb", "s1.sqlite", "s0.sqlite")
    assert not out.exists()
    # the shard runs themselves are kept as recorded
    assert sql(tmp_path / "s0.sqlite", "SELECT count(*) FROM run_inventory")[0][0] == 27
    assert sql(tmp_path / "s1.sqlite", "SELECT count(*) FROM run_inventory")[0][0] == 28
    # shard 0 again over the same files: the merge covers all 28 sectors and finds the fault
    millaudit.run("verify", faulty4, "--shard", "0/2", "--audit", tmp_path / "s0b.sqlite", "--quiet", check=1)
    proc = millaudit.run("runs", "merge", tmp_path / "m2.sqlite", tmp_path / "s0b.sqlite", tmp_path / "s1.sqlite",
                         check=1)
    assert "verdict: discrepancies found: 1" in proc.stdout and "of 28 sectors" not in proc.stdout
    assert sql(tmp_path / "m2.sqlite", "SELECT count(*) FROM sector_results")[0][0] == 28


def test_item3_a_shard_store_whose_rows_do_not_add_up_is_refused(millaudit, clean_shards, tmp_path):
    """Issue 21 item 3: `verified` lowered with sqlite3 and a row for std_9_9_0_0 (no such file)
    added used to merge as "verified: all 7482680 entries of 29 sectors"."""
    s0, s1 = clean_shards
    ok = millaudit.run("runs", "merge", tmp_path / "ok.sqlite", s0, s1, check=0)
    assert "verdict: verified: all 7,475,750 entries of 28 sectors" in ok.stdout
    big = sql(s0, "SELECT sector FROM sector_results ORDER BY entries DESC LIMIT 1")[0][0]
    # verified lowered: the entries no longer add up
    t = tampered(s0, tmp_path / "t1.sqlite", f"UPDATE sector_results SET verified = verified - 7 WHERE sector = '{big}'")
    refused(millaudit.run("runs", "merge", tmp_path / "o1.sqlite", t, s1), big, "verified", "entries")
    # a row for a sector no file of the inventory holds
    t = tampered(s0, tmp_path / "t2.sqlite",
                 "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified, within_bounds,"
                 " discrepancies, status, seconds) VALUES (1, 'std_9_9_0_0', 'db/std_9_9_0_0.mdb', 6931, 6931,"
                 " 6931, 0, 0, 'ok', 0.1)")
    refused(millaudit.run("runs", "merge", tmp_path / "o2.sqlite", t, s1), "std_9_9_0_0", "not in the plan")
    # both, as the issue did: refused on the first inconsistency met
    t = tampered(tmp_path / "t2.sqlite", tmp_path / "t3.sqlite",
                 f"UPDATE sector_results SET verified = verified - 7 WHERE sector = '{big}'")
    refused(millaudit.run("runs", "merge", tmp_path / "o3.sqlite", t, s1), "sector std_")
    # a status that its counts contradict
    t = tampered(s0, tmp_path / "t4.sqlite",
                 f"UPDATE sector_results SET verified = verified - 1, missing_child = 1 WHERE sector = '{big}'")
    refused(millaudit.run("runs", "merge", tmp_path / "o4.sqlite", t, s1), big, "status", "incomplete")
    # a sector moved to the other shard's plan, an inventory row edited: the digests no longer hold
    t = tampered(s0, tmp_path / "t5.sqlite", f"UPDATE run_partition SET shard = 1 - shard WHERE sector = '{big}'")
    refused(millaudit.run("runs", "merge", tmp_path / "o5.sqlite", t, s1), "plan_digest")
    t = tampered(s0, tmp_path / "t6.sqlite", "DELETE FROM run_inventory WHERE path = 'std_0_1_4_3.mdb'")
    refused(millaudit.run("runs", "merge", tmp_path / "o6.sqlite", t, s1), "inventory_digest")
    # a row whose file the shard's manifest does not hold
    t = tampered(s0, tmp_path / "t7.sqlite", f"DELETE FROM manifest_files WHERE path = '{big}.mdb'")
    refused(millaudit.run("runs", "merge", tmp_path / "o7.sqlite", t, s1), big, "manifest")
    # a store made before the inventory existed proves nothing about coverage
    t = tampered(s0, tmp_path / "t8.sqlite", "UPDATE runs SET inventory_digest = NULL")
    refused(millaudit.run("runs", "merge", tmp_path / "o8.sqlite", t, s1), "recorded no inventory")
    # a store of schema 8 (before the inventory), read as it is (readers never migrate), likewise
    t = tampered(s0, tmp_path / "t9.sqlite", *[f"ALTER TABLE runs DROP COLUMN {c}" for c in
                                               ("inventory_digest", "plan_digest", "plan_shards", "plan_whole")],
                 "DROP TABLE run_inventory", "DROP TABLE run_partition", "PRAGMA user_version = 8")
    refused(millaudit.run("runs", "merge", tmp_path / "o9.sqlite", t, s1), "recorded no inventory")
    assert sql(t, "PRAGMA user_version") == [(8,)]
    for i in range(1, 10):
        assert not (tmp_path / f"o{i}.sqlite").exists()


def test_item7_an_empty_shard_is_a_verified_shard_of_no_sector(millaudit, game3, tmp_path):
    """Issue 21 item 7: 7 sectors in 10 shards; shards 7..9 are empty and used to exit 3 with
    "no usable sector files" and "incomplete: 0 sectors unusable, 0 entries not verified"."""
    proc = millaudit.run("verify", game3, "--shard", "9/10")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "verdict: verified: an empty shard: none of the 7 planned sectors falls in shard 9/10" in proc.stdout
    assert "no usable sector files" not in proc.stderr and "incomplete" not in proc.stdout
    stores = []
    for i in range(10):
        s = tmp_path / f"e{i}.sqlite"
        millaudit.run("verify", game3, "--shard", f"{i}/10", "--audit", s, "--quiet", check=0)
        stores.append(s)
    assert sql(stores[9], "SELECT status, planned_sectors FROM runs") == [("ok", 0)]
    assert sql(stores[9], "SELECT count(*) FROM run_partition")[0][0] == 7
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, check=0)
    assert "shard 9/10:" in proc.stdout and "verdict: verified: all 264,399 entries of 7 sectors" in proc.stdout
    # without an empty shard the merge is missing a shard: never verified, --allow-partial or not
    for extra in ([], ["--allow-partial"]):
        proc = millaudit.run("runs", "merge", tmp_path / f"p{len(extra)}.sqlite", *stores[:-1], *extra, check=3)
        assert "shard 9/10: MISSING" in proc.stdout and "verdict: verified" not in proc.stdout
        assert sql(tmp_path / f"p{len(extra)}.sqlite", "SELECT status FROM runs") == [("incomplete",)]
    # a directory without any sector file is still no database
    empty = tmp_path / "nothing"
    empty.mkdir()
    proc = millaudit.run("verify", empty, "--shard", "0/2", check=3)
    assert "no usable sector files" in proc.stderr


def test_a_partial_merge_never_reads_verified(millaudit, clean_shards, tmp_path):
    """--allow-partial lets the sectors present show their discrepancies; with none, the merge of
    half the database is incomplete (exit 3), not verified."""
    proc = millaudit.run("runs", "merge", tmp_path / "p.sqlite", clean_shards[0], "--allow-partial", check=3)
    assert "verdict: verified" not in proc.stdout and "shard 1/2: MISSING" in proc.stdout
    assert "sectors of the plan have no result" in proc.stdout
    assert sql(tmp_path / "p.sqlite", "SELECT status FROM runs") == [("incomplete",)]


def test_the_merged_run_carries_the_inventory_it_was_proven_against(millaudit, clean4, clean_shards, tmp_path):
    out = tmp_path / "m.sqlite"
    millaudit.run("runs", "merge", out, *clean_shards, check=0)
    digests = {sql(s, "SELECT inventory_digest, plan_digest FROM runs")[0] for s in clean_shards}
    assert len(digests) == 1
    assert sql(out, "SELECT inventory_digest, plan_digest FROM runs") == list(digests)
    assert sql(out, "SELECT count(*), count(DISTINCT shard) FROM run_partition") == [(28, 2)]
    # every sector file is in the inventory with the SHA-256 of its bytes (sha256sum's digest)
    names = sorted(p.name for p in clean4.glob("*.mdb"))
    rows = sql(out, "SELECT path, digest FROM run_inventory ORDER BY path")
    assert len(names) == 28
    assert rows == [(n, "sha256:" + hashlib.sha256((clean4 / n).read_bytes()).hexdigest()) for n in names]


def test_a_body_rewritten_under_its_stale_header_between_shards_is_refused(millaudit, clean4, tmp_path):
    """Found by the long model run (seed 5537): the inventory took an open file's digest from the body
    digest its header claims, so a fault written under a stale header between two shards left both
    inventories equal; the shard that had checked the sector saw the good bytes, the other shard did
    not read it, and the merge said verified about a database holding a wrong value. The inventory
    now records the SHA-256 of the bytes, and the shards read as planned from different databases."""
    db = tmp_path / "db"
    shutil.copytree(clean4, db)
    plan = json.loads(millaudit.run("verify", db, "--plan", "2", "--json", check=0).stdout)
    first = next(p["shard"] for p in plan["sector_plan"] if p["sector"] == "std_0_0_4_4")
    stores = {i: tmp_path / f"s{i}.sqlite" for i in range(2)}
    millaudit.run("verify", db, "--shard", f"{first}/2", "--audit", stores[first], "--quiet", check=0)
    header = (db / "std_0_0_4_4.mdb").read_bytes()[:128]
    subprocess.run(["python3", str(INJECT), str(db / "std_0_0_4_4.mdb"), "--entry", "0", "--outcome", "win"],
                   check=True, capture_output=True, env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})
    assert (db / "std_0_0_4_4.mdb").read_bytes()[:128] == header  # the header still claims the old body
    other = 1 - first
    # every run now checks every open file's body against its header first (docs/download.md): the
    # other shard, which does not check the sector, still names the file damaged
    proc = millaudit.run("verify", db, "--shard", f"{other}/2", "--audit", stores[other], "--quiet", check=3)
    assert "damaged: std_0_0_4_4.mdb: body differs from the SHA-256 its header records" in proc.stdout
    assert millaudit.run("verify", db, "--quiet").returncode == 3  # what a single run says now
    out = tmp_path / "m.sqlite"
    refused(millaudit.run("runs", "merge", out, stores[0], stores[1]), "different inventories", "std_0_0_4_4.mdb")
    assert not out.exists()
