"""Issue 21, item 2: the bytes hashed are the bytes checked (docs/runs.md).

A sector file (here without a body digest, as every Malom file) replaced or rewritten while
`verify --audit` runs must never leave a "verified" recorded against a digest of other bytes, and a
later `--incremental` must not carry such a result over. The test build's rendezvous
(cli/test_hook.h, only in millaudit-planted) pauses the run at a defined point so the file is
changed exactly there: after the hash phase, or after a sector's check and before the files it read
are hashed again."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import ROOT

INJECT = ROOT / "scripts" / "inject_fault.py"
PARENT, CHILD = "std_2_3_1_0", "std_3_3_0_0"  # in the 3-stone game CHILD is PARENT's successor


@pytest.fixture(scope="module")
def game3(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("g3") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", out, "--quiet", check=0)
    for p in out.glob("*.mdb"):  # no body digest, as every Malom file: nothing else catches a swap
        data = bytearray(p.read_bytes())
        data[80:112] = bytes(32)
        p.write_bytes(bytes(data))
    return out


def faulty(game3, tmp_path, name):
    """A copy of sector `name` with one wrong depth (no body digest), beside the database."""
    bad = tmp_path / f"bad_{name}.mdb"
    shutil.copy(game3 / f"{name}.mdb", bad)
    data = bad.read_bytes()
    entry = next(i for i in range(len(data[128:]) // 2)
                 if data[128 + 2 * i + 1] >> 6 == 3 and (data[128 + 2 * i] | data[129 + 2 * i] << 8) & 0x3FFF > 3)
    subprocess.run([sys.executable, INJECT, bad, "--entry", str(entry), "--depth-delta", "+1"],
                   check=True, capture_output=True)
    return bad


def paused_verify(planted, db, store, step, act, tmp_path, *extra):
    """Runs `verify db --audit store --json` (no --audit when store is None), pauses at `step`,
    calls act(), lets the run finish."""
    ctl = tmp_path / "ctl"
    ctl.mkdir(exist_ok=True)
    env = dict(os.environ, MILLAUDIT_TEST_STEP=step, MILLAUDIT_TEST_STEP_DIR=str(ctl))
    audit = ["--audit", str(store)] if store is not None else []
    proc = subprocess.Popen([str(planted.path), "verify", str(db), *audit, "--json",
                             "--threads", "1", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    while not (ctl / "paused").exists():
        assert proc.poll() is None, f"verify ended before step {step}: {proc.communicate()}"
        time.sleep(0.01)
    act()
    (ctl / "resume").touch()
    out, err = proc.communicate(timeout=600)
    (ctl / "paused").unlink()
    return proc.returncode, json.loads(out), err


def sector(doc, name):
    return next(s for s in doc["sectors"] if s["sector"] == name)


def assert_withdrawn(rc, doc, err, name, changed, suffix=".mdb"):
    """The run ended incomplete (exit 3) with sector `name` withdrawn because file `changed` (its
    own or a successor's) differed after the check."""
    assert rc == 3 and doc["verdict"] == "incomplete", err
    s = sector(doc, name)
    assert s["status"] == "unusable"
    assert f"{changed}{suffix}: sector {changed}: offset 0: changed while being checked" in s["message"]


def fresh_full(millaudit, db):
    """The oracle: a fresh full single-process verify of the bytes now on disk."""
    proc = millaudit.run("verify", db, "--json")
    return proc.returncode, json.loads(proc.stdout)


def rewrite_in_place(path, new_bytes):
    """Same inode, same size, same mtime: what rsync --inplace or a solver writing into the file
    leaves; nothing in the file's metadata says it changed."""
    st = os.stat(path)
    assert len(new_bytes) == st.st_size
    with open(path, "r+b") as f:
        f.write(new_bytes)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize("order", ["good-then-bad", "bad-then-good"])
def test_file_replaced_between_hash_and_check(millaudit, millaudit_planted, game3, tmp_path, order):
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT)
    good = tmp_path / "good.mdb"
    shutil.copy(db / f"{PARENT}.mdb", good)
    first, second = (good, bad) if order == "good-then-bad" else (bad, good)
    shutil.copy(first, db / f"{PARENT}.mdb")
    store = tmp_path / "a.sqlite"

    def swap():  # replaced by rename, as rsync does by default
        tmp = db / f".{PARENT}.tmp"
        shutil.copy(second, tmp)
        os.replace(tmp, db / f"{PARENT}.mdb")

    rc, doc, err = paused_verify(millaudit_planted, db, store, "hashed", swap, tmp_path)
    assert rc == 3 and doc["verdict"] == "incomplete", err
    s = sector(doc, PARENT)
    assert s["status"] == "unusable" and "changed while being checked" in s["message"]
    assert f"{PARENT}.mdb: sector {PARENT}: offset 0: changed while being checked" in err
    # the sector whose successor file it is read it too: withdrawn as well, never verified
    assert sector(doc, "std_2_2_1_1")["status"] == "unusable"
    # the store holds no "verified" for them either
    with sqlite3.connect(store) as c:
        rows = dict(c.execute("SELECT sector, status FROM sector_results WHERE run_id = 1"))
        assert rows[PARENT] == "unusable" and rows["std_2_2_1_1"] == "unusable"
        assert c.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0] != "ok"

    # the next night: whatever is on disk now is checked, nothing of the refused check carried over
    want_rc, want = fresh_full(millaudit, db)
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    got = json.loads(inc.stdout)
    assert inc.returncode == want_rc == (1 if order == "good-then-bad" else 0)
    assert got["totals"]["discrepancies"] == want["totals"]["discrepancies"]
    assert not sector(got, PARENT)["carried_over"] and not sector(got, "std_2_2_1_1")["carried_over"]


def test_successor_rewritten_in_place_during_the_check(millaudit, millaudit_planted, game3, tmp_path):
    """CHILD is checked and verified first (children first); then, after PARENT's check read it and
    before the re-hash, CHILD is rewritten in place with a wrong value, same size and mtime."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, CHILD).read_bytes()
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}",
                                 lambda: rewrite_in_place(db / f"{CHILD}.mdb", bad), tmp_path)
    assert_withdrawn(rc, doc, err, PARENT, CHILD)
    # CHILD's own check was over before the change: its recorded digest is of the bytes it checked
    assert sector(doc, CHILD)["status"] == "ok"

    want_rc, want = fresh_full(millaudit, db)
    assert want_rc == 1 and want["totals"]["discrepancies"] > 0
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    got = json.loads(inc.stdout)
    assert inc.returncode == 1, inc.stderr
    assert got["totals"]["discrepancies"] == want["totals"]["discrepancies"]
    assert not sector(got, CHILD)["carried_over"] and not sector(got, PARENT)["carried_over"]


def test_own_file_rewritten_in_place_during_its_check(millaudit, millaudit_planted, game3, tmp_path):
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT).read_bytes()
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}",
                                 lambda: rewrite_in_place(db / f"{PARENT}.mdb", bad), tmp_path)
    assert rc == 3 and sector(doc, PARENT)["status"] == "unusable", err
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    assert inc.returncode == fresh_full(millaudit, db)[0] == 1
    assert not sector(json.loads(inc.stdout), PARENT)["carried_over"]


@pytest.mark.parametrize("name", [CHILD, PARENT])
def test_rewritten_right_after_its_open_without_a_store(millaudit, millaudit_planted, game3, tmp_path,
                                                        name):
    """Without --audit there is no hash phase. A file rewritten in place right after the reader
    opened it (the reader's own checks done on the old bytes) and before any check read it: the
    digest the snapshot compares with was taken from the path before the open, so the sectors that
    read the file are withdrawn, as with a store. A digest of the mapping taken after the open
    would equal the re-hash, and the run would report the new bytes' discrepancy (exit 1) as if
    the open's checks had seen them."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, name).read_bytes()
    rc, doc, err = paused_verify(millaudit_planted, db, None, f"opened:{name}",
                                 lambda: rewrite_in_place(db / f"{name}.mdb", bad), tmp_path)
    assert_withdrawn(rc, doc, err, name, name)
    assert doc["totals"]["discrepancies"] == 0  # the withdrawn sector's counts are dropped
    assert fresh_full(millaudit, db)[0] == 1  # the bytes on disk now do hold a discrepancy


def test_renamed_over_during_the_check_keeps_the_bytes_checked(millaudit, millaudit_planted, game3,
                                                                tmp_path):
    """A rename leaves the old inode mapped: the check and the digest are both of the old bytes, so
    the run may say verified; the next incremental sees other bytes on disk and checks them."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT)
    store = tmp_path / "a.sqlite"
    good_sha = __import__("hashlib").sha256((db / f"{PARENT}.mdb").read_bytes()).hexdigest()

    def rename_over():
        tmp = db / f".{PARENT}.tmp"
        shutil.copy(bad, tmp)
        os.replace(tmp, db / f"{PARENT}.mdb")

    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}", rename_over, tmp_path)
    assert rc == 0 and doc["verdict"] == "verified", err
    with sqlite3.connect(store) as c:
        recorded = c.execute("SELECT sha256 FROM sector_inputs WHERE run_id = 1 AND sector = ? AND path = ?",
                             (PARENT, f"{PARENT}.mdb")).fetchone()[0]
    assert recorded == good_sha  # the digest of the bytes that were checked
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    assert inc.returncode == 1
    assert not sector(json.loads(inc.stdout), PARENT)["carried_over"]


# Issue 47: a check whose files total 2 MiB .. 1 GiB reads private copies of its bodies, and their
# pages leave the file mappings as they are copied (verifier/check/resident.h), so the re-hash after
# the check faults them in again from the file. std_4_4_0_0 with its successor std_3_4_0_0 (9 MB in
# .sec2, Malom's published layout) is such a check; the 3-stone files above are never copied.
BIG, BIG_CHILD = "std_4_4_0_0", "std_3_4_0_0"


@pytest.fixture
def game4(std4_games, tmp_path):
    db = shutil.copytree(std4_games / "sec2", tmp_path / "db4")
    assert (db / f"{BIG}.sec2").stat().st_size + (db / f"{BIG_CHILD}.sec2").stat().st_size >= 2 << 20
    return db


def flip_in_place(path):
    """One entry byte changed in place, same size and mtime."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    rewrite_in_place(path, bytes(data))


@pytest.mark.parametrize("step, changed, store", [
    (f"checked:{BIG}", BIG_CHILD, True),   # the successor, copied and dropped, then rewritten
    (f"checked:{BIG}", BIG, True),         # the sector's own file
    (f"opened:{BIG}", BIG, False),         # before the copy: the copy reads the new bytes
])
def test_copied_file_rewritten_in_place_is_withdrawn(millaudit_planted, game4, tmp_path, step, changed, store):
    rc, doc, err = paused_verify(millaudit_planted, game4, tmp_path / "a.sqlite" if store else None, step,
                                 lambda: flip_in_place(game4 / f"{changed}.sec2"), tmp_path)
    assert_withdrawn(rc, doc, err, BIG, changed, ".sec2")
    if changed == BIG_CHILD:  # its own check was over before the change
        assert sector(doc, BIG_CHILD)["status"] == "ok"


def test_production_binary_has_no_rendezvous(millaudit, game3, tmp_path):
    """millaudit itself ignores the test build's variables: no pause, a normal verified run."""
    ctl = tmp_path / "ctl"
    ctl.mkdir()
    env = dict(os.environ, MILLAUDIT_TEST_STEP="hashed", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    proc = subprocess.run([str(millaudit.path), "verify", str(game3), "--audit", str(tmp_path / "a.sqlite")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0 and not (ctl / "paused").exists()


def test_a_body_rewritten_after_its_digest_was_judged_is_damage_to_fetch_again(millaudit, millaudit_planted,
                                                                               tmp_path):
    """An open file whose body the integrity phase found equal to the SHA-256 its header records, one
    byte of it then flipped in place (same size and mtime) right after that judgement, before the
    hash phase: the check's own hash of the mapping differs from the header's, so the file is damage
    (exit 3), named on the list of files to fetch again, and its sector and the one reading it are
    not verified. (Flipped later, after the hash phase, the sector is withdrawn as changed during the
    run instead: test_rewritten_right_after_its_open_without_a_store.)"""
    db = tmp_path / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=0)
    path = db / f"{PARENT}.mdb"
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x40
    rl = tmp_path / "refetch.txt"
    rc, doc, err = paused_verify(millaudit_planted, db, tmp_path / "a.sqlite", "judged",
                                 lambda: rewrite_in_place(path, bytes(data)), tmp_path, "--refetch-list", str(rl))
    assert rc == 3 and doc["verdict"] == "damaged", err
    assert doc["next"]["refetch"] == [f"{PARENT}.mdb"]
    assert rl.read_text().splitlines() == [f"{PARENT}.mdb"]
    assert sector(doc, PARENT)["status"] != "ok" and sector(doc, "std_2_2_1_1")["status"] != "ok"
