"""Issue 41, item 3: a merge trusts only what a key vouches for (docs/distributed.md "Sealing").

Guards against `runs merge` saying "verified" about shard stores edited consistently after the
shards ran: the inventory and plan digests are plain SHA-256 of rows, so whoever can write a store
can drop a faulty sector from every shard's inventory and partition and recompute the digests, or
rewrite a faulty sector's row as `ok` with counts that add up. A shard sealed with
`verify --shard I/N --seal-key K` (HMAC-SHA256 with a secret, or Ed25519) is believed by
`runs merge --seal-key K` only when its seal verifies over every row the merge reads. Unsealed, the
merge trusts the stores as written and says so (a note). Also: `STORE:0` names no run (it was read as
the newest run).
"""
import os
import shutil
import sqlite3
import subprocess

import pytest

from conftest import ROOT
from model_runs import plan_digests

INJECT = ROOT / "scripts" / "inject_fault.py"
FAULTY = "std_0_0_3_3"  # the start sector: 1 entry, last in the partition's order, read by no other sector


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    w = tmp_path_factory.mktemp("seal")
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", w / "clean", "--quiet", check=0)
    shutil.copytree(w / "clean", w / "db")
    subprocess.run(["python3", str(INJECT), str(w / "db" / f"{FAULTY}.mdb"), "--entry", "0", "--outcome", "loss",
                    "--reseal"], check=True, capture_output=True)
    assert millaudit.run("verify", w / "db").returncode == 1
    (w / "secret.key").write_text(os.urandom(32).hex() + "\n")
    (w / "other.key").write_text(os.urandom(32).hex() + "\n")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(w / "ed.pem")], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(w / "ed.pem"), "-pubout", "-out", str(w / "ed.pub")], check=True,
                   capture_output=True)
    return w


def shards(millaudit, w, db, out, key=None, n=3):
    seal = ["--seal-key", w / key] if key else []
    for i in range(n):
        millaudit.run("verify", w / db, "--shard", f"{i}/{n}", "--audit", out / f"s{i}.sqlite", "--quiet", *seal)
    return [out / f"s{i}.sqlite" for i in range(n)]


def drop_the_faulty_sector(store):
    """The faulty sector removed from the store's inventory, partition, plan and results, every
    digest recomputed: the shards now look planned from a database without it."""
    with sqlite3.connect(store) as c:
        run, shards_n, whole = c.execute("SELECT id, plan_shards, plan_whole FROM runs ORDER BY id DESC").fetchone()
        c.execute("DELETE FROM run_inventory WHERE run_id = ? AND sector = ?", (run, FAULTY))
        c.execute("DELETE FROM run_partition WHERE run_id = ? AND sector = ?", (run, FAULTY))
        c.execute("DELETE FROM run_plan WHERE run_id = ? AND sector = ?", (run, FAULTY))
        for t in ("sector_class_counts", "discrepancies", "sector_inputs", "sector_discrepancy_sets",
                  "sector_digests", "sector_histograms", "sector_results"):
            c.execute(f"DELETE FROM {t} WHERE run_id = ? AND sector = ?", (run, FAULTY))
        c.execute("DELETE FROM manifest_files WHERE run_id = ? AND path = ?", (run, f"{FAULTY}.mdb"))
        inv = c.execute("SELECT path, size, digest, sector FROM run_inventory WHERE run_id = ?", (run,)).fetchall()
        plan = c.execute("SELECT sector, entries, shard FROM run_partition WHERE run_id = ?", (run,)).fetchall()
        planned = c.execute("SELECT count(*) FROM sector_results WHERE run_id = ?", (run,)).fetchone()[0]
        i, p = plan_digests(inv, shards_n, whole, plan)
        c.execute("UPDATE runs SET inventory_digest = ?, plan_digest = ?, planned_sectors = ?, status = 'ok'"
                  " WHERE id = ?", (i, p, planned, run))


def rewrite_the_faulty_row(store):
    """The faulty sector's row rewritten as ok, its counts adding up, its discrepancies gone."""
    with sqlite3.connect(store) as c:
        run = c.execute("SELECT max(id) FROM runs").fetchone()[0]
        if not c.execute("SELECT 1 FROM sector_results WHERE run_id = ? AND sector = ?", (run, FAULTY)).fetchone():
            return
        c.execute("UPDATE sector_results SET verified = entries, discrepancies = 0, roots = 0, propagated = 0,"
                  " status = 'ok' WHERE run_id = ? AND sector = ?", (run, FAULTY))
        for t in ("sector_class_counts", "discrepancies"):
            c.execute(f"DELETE FROM {t} WHERE run_id = ? AND sector = ?", (run, FAULTY))
        c.execute("UPDATE sector_discrepancy_sets SET count = 0, entries = x'', fixed_count = 0, fixed_entries = x''"
                  " WHERE run_id = ? AND sector = ?", (run, FAULTY))
        c.execute("UPDATE runs SET status = 'ok' WHERE id = ?", (run,))


ATTACKS = {"drop": drop_the_faulty_sector, "rewrite": rewrite_the_faulty_row}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
@pytest.mark.parametrize("seal,check", [("secret.key", "secret.key"), ("ed.pem", "ed.pub")])
def test_a_consistently_edited_store_is_refused_when_sealed(millaudit, world, tmp_path, attack, seal, check):
    stores = shards(millaudit, world, "db", tmp_path, key=seal)
    honest = millaudit.run("runs", "merge", tmp_path / "honest.sqlite", *stores, "--seal-key", world / check)
    assert honest.returncode == 1, honest.stderr  # the fault is found
    for s in stores:
        ATTACKS[attack](s)
    # unsealed, the stores are trusted as written (the documented threat model: the edit passes),
    # and the merge says so
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, check=0)
    assert "unsealed merge: the shard stores are trusted as written" in proc.stdout
    # with the key, the edited store is refused, naming it, and nothing is written
    proc = millaudit.run("runs", "merge", tmp_path / "sealed.sqlite", *stores, "--seal-key", world / check, check=3)
    [line] = proc.stderr.splitlines()
    edited = "s0.sqlite" if attack == "drop" else next(str(x) for x in stores if str(x) in line)
    assert "the seal does not verify" in line and edited in line
    assert not (tmp_path / "sealed.sqlite").exists()


def test_a_sealed_merge_of_clean_shards_is_verified(millaudit, world, tmp_path):
    stores = shards(millaudit, world, "clean", tmp_path, key="ed.pem")
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, "--seal-key", world / "ed.pub", check=0)
    assert proc.stdout.count(", seal verified\n") == 3
    assert "sealed: every shard's rows are as its run sealed them, by key" in proc.stdout
    assert "unsealed" not in proc.stdout
    with sqlite3.connect(tmp_path / "m.sqlite") as c:
        assert len({r[0] for r in c.execute("SELECT sealed_by FROM run_shards")} - {None}) == 1


def test_a_store_sealed_by_another_key_or_not_at_all_is_refused(millaudit, world, tmp_path):
    (tmp_path / "a").mkdir()
    sealed = shards(millaudit, world, "clean", tmp_path / "a", key="secret.key")
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *sealed, "--seal-key", world / "other.key", check=3)
    assert "not by the hmac-sha256 key" in proc.stderr
    (tmp_path / "b").mkdir()
    plain = shards(millaudit, world, "clean", tmp_path / "b")
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *plain, "--seal-key", world / "secret.key", check=3)
    assert "is not sealed" in proc.stderr


def test_an_interrupted_sealed_shard_is_sealed_and_makes_the_merge_incomplete(millaudit, millaudit_planted, world,
                                                                             tmp_path):
    stores = shards(millaudit, world, "clean", tmp_path, key="secret.key")
    env = dict(os.environ, MILLAUDIT_TEST_STOP_AFTER_SECTORS="1")
    stores[2].unlink()
    proc = subprocess.run([str(millaudit_planted.path), "verify", str(world / "clean"), "--shard", "2/3", "--audit",
                           str(stores[2]), "--quiet", "--seal-key", str(world / "secret.key")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 130, proc.stderr
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, "--seal-key", world / "secret.key", check=3)
    assert "seal verified" in proc.stdout and "(INTERRUPTED)" in proc.stdout


def test_a_public_key_cannot_seal_and_a_key_needs_a_store(millaudit, world, tmp_path):
    proc = millaudit.run("verify", world / "clean", "--shard", "0/2", "--audit", tmp_path / "s.sqlite",
                         "--seal-key", world / "ed.pub", check=2)
    assert "a public key cannot seal" in proc.stderr
    millaudit.run("verify", world / "clean", "--seal-key", world / "secret.key", check=2)
    (tmp_path / "short.key").write_text("12345\n")
    proc = millaudit.run("verify", world / "clean", "--audit", tmp_path / "t.sqlite", "--seal-key",
                         tmp_path / "short.key", check=3)
    assert "a secret seal key has 16 to 4,096 bytes" in proc.stderr


def test_store_colon_zero_names_no_run(millaudit, world, tmp_path):
    stores = shards(millaudit, world, "clean", tmp_path, n=2)
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", f"{stores[0]}:0", stores[1], check=2)
    assert "s0.sqlite:0: no such run" in proc.stderr
    assert not (tmp_path / "m.sqlite").exists()


def test_store_colon_a_run_it_does_not_hold_is_refused(millaudit, millaudit_asan, world, tmp_path):
    """STORE:9 names a run the store does not hold: a one-line refusal naming it, exit 3, nothing
    written (and no crash freeing the half-read run)."""
    stores = shards(millaudit, world, "clean", tmp_path, n=2)
    proc = millaudit_asan.run("runs", "merge", tmp_path / "m.sqlite", stores[0], f"{stores[1]}:9", check=3)
    assert proc.stderr.splitlines() == [f"millaudit runs merge: {stores[1]}: no run 9"]
    assert not (tmp_path / "m.sqlite").exists()


def test_a_merge_into_its_own_seal_key_is_refused_and_the_key_kept(millaudit, world, tmp_path):
    """OUT names the key the merge checks seals with: the merge would replace the key by a store."""
    stores = shards(millaudit, world, "clean", tmp_path, key="secret.key")
    key = tmp_path / "copy.key"
    shutil.copy(world / "secret.key", key)
    before = key.read_bytes()
    proc = millaudit.run("runs", "merge", key, *stores, "--seal-key", key, check=2)
    assert "the seal key" in proc.stderr
    assert key.read_bytes() == before
