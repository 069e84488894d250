"""Issue 21, item 2: the bytes hashed are the bytes checked (docs/runs.md).

A sector file (here without a body digest, as every Malom file) replaced or rewritten while
`verify --audit` runs must never leave a "verified" recorded against a digest of other bytes, and a
later `--incremental` must not carry such a result over. The test build's rendezvous
(cli/test_hook.h, only in millaudit-planted) pauses the run at a defined point so the file is
changed exactly there: after the hash phase, or after a sector's check and before the files it read
are hashed again.

A unit whose files total at most 4 GiB (every unit here) is read privately, once, hashed as it is
read; a larger one is mapped and hashed again after its check. The test build's
MILLAUDIT_TEST_PRIVATE_BUDGET=0 maps every unit, so the mapped path is tested on the 3-stone game's
small files (MAPPED below)."""
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


# The test build's lower private-read budget: every unit that holds a byte is mapped, as units over
# 4 GiB are, and hashed again after its check.
MAPPED = {"MILLAUDIT_TEST_PRIVATE_BUDGET": "0"}


def paused_verify_steps(planted, db, store, steps, tmp_path, *extra, env=None):
    """Runs `verify db --audit store --json` (no --audit when store is None), pausing at each
    (step, act) of steps in turn to call act(), and lets the run finish; env: more variables (MAPPED)."""
    ctl = tmp_path / "ctl"
    ctl.mkdir(exist_ok=True)
    env = dict(os.environ, MILLAUDIT_TEST_STEP=",".join(step for step, _ in steps),
               MILLAUDIT_TEST_STEP_DIR=str(ctl), **(env or {}))
    audit = ["--audit", str(store)] if store is not None else []
    proc = subprocess.Popen([str(planted.path), "verify", str(db), *audit, "--json",
                             "--threads", "1", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for step, act in steps:
        while not (ctl / "paused").exists():
            assert proc.poll() is None, f"verify ended before step {step}: {proc.communicate()}"
            time.sleep(0.01)
        act()
        (ctl / "paused").unlink()
        (ctl / "resume").touch()
    out, err = proc.communicate(timeout=600)
    return proc.returncode, json.loads(out), err


def paused_verify(planted, db, store, step, act, tmp_path, *extra, env=None):
    """paused_verify_steps with one step."""
    return paused_verify_steps(planted, db, store, [(step, act)], tmp_path, *extra, env=env)


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


@pytest.mark.parametrize("env", [None, MAPPED], ids=["private", "mapped"])
@pytest.mark.parametrize("order", ["good-then-bad", "bad-then-good"])
def test_file_replaced_between_hash_and_check(millaudit, millaudit_planted, game3, tmp_path, order, env):
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

    rc, doc, err = paused_verify(millaudit_planted, db, store, "hashed", swap, tmp_path, env=env)
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
    """Mapped (the path of units over 4 GiB): CHILD is checked and verified first (children first);
    then, after PARENT's check read it and before the re-hash, CHILD is rewritten in place with a
    wrong value, same size and mtime."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, CHILD).read_bytes()
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}",
                                 lambda: rewrite_in_place(db / f"{CHILD}.mdb", bad), tmp_path, env=MAPPED)
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
    """Mapped (the path of units over 4 GiB): the re-hash after the check sees the new bytes."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT).read_bytes()
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}",
                                 lambda: rewrite_in_place(db / f"{PARENT}.mdb", bad), tmp_path, env=MAPPED)
    assert rc == 3 and sector(doc, PARENT)["status"] == "unusable", err
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    assert inc.returncode == fresh_full(millaudit, db)[0] == 1
    assert not sector(json.loads(inc.stdout), PARENT)["carried_over"]


@pytest.mark.parametrize("name", [CHILD, PARENT])
def test_rewritten_right_after_its_open_without_a_store(millaudit, millaudit_planted, game3, tmp_path,
                                                        name):
    """Mapped (the path of units over 4 GiB), without --audit: there is no hash phase. A file
    rewritten in place right after the reader opened it (the reader's own checks done on the old
    bytes) and before any check read it: the digest the snapshot compares with was taken from the
    path before the open, so the sectors that read the file are withdrawn, as with a store. A
    digest of the mapping taken after the open would equal the re-hash, and the run would report
    the new bytes' discrepancy (exit 1) as if the open's checks had seen them."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, name).read_bytes()
    rc, doc, err = paused_verify(millaudit_planted, db, None, f"opened:{name}",
                                 lambda: rewrite_in_place(db / f"{name}.mdb", bad), tmp_path, env=MAPPED)
    assert_withdrawn(rc, doc, err, name, name)
    assert doc["totals"]["discrepancies"] == 0  # the withdrawn sector's counts are dropped
    assert fresh_full(millaudit, db)[0] == 1  # the bytes on disk now do hold a discrepancy


def test_renamed_over_during_the_check_is_withdrawn(millaudit, millaudit_planted, game3, tmp_path):
    """Mapped (the path of units over the budget): a rename leaves the old inode mapped, and the
    re-hash of the mapping finds the old bytes, but the file at the path is another one since it was
    mapped: the run cannot vouch that nothing wrote to the inode it read (the stamp is of the path's
    file), so the sector is withdrawn, and a fresh run checks the new bytes. (Before the stamp the
    result stood, about the old bytes.)"""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT)
    store = tmp_path / "a.sqlite"
    good_sha = __import__("hashlib").sha256((db / f"{PARENT}.mdb").read_bytes()).hexdigest()

    def rename_over():
        tmp = db / f".{PARENT}.tmp"
        shutil.copy(bad, tmp)
        os.replace(tmp, db / f"{PARENT}.mdb")

    rc, doc, err = paused_verify(millaudit_planted, db, store, f"checked:{PARENT}", rename_over, tmp_path,
                                 env=MAPPED)
    assert_withdrawn(rc, doc, err, PARENT, PARENT)
    assert "(replaced by another file since it was mapped" in sector(doc, PARENT)["message"]
    with sqlite3.connect(store) as c:
        recorded = c.execute("SELECT sha256 FROM sector_inputs WHERE run_id = 1 AND sector = ? AND path = ?",
                             (PARENT, f"{PARENT}.mdb")).fetchone()[0]
    assert recorded == good_sha  # the digest of the bytes the hash phase read
    inc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json")
    assert inc.returncode == 1
    assert not sector(json.loads(inc.stdout), PARENT)["carried_over"]


# Issue 47: a unit whose files total at most 4 GiB (the copy budget of verifier/check/walk.h) reads
# each of them once into private memory, hashed as it is read (checksums/private_read.h): the check,
# and the digest the snapshot compares, are of those bytes, whatever the file does afterwards.
# std_4_4_0_0 with its successor std_3_4_0_0 (9 MB in .sec2, Malom's published layout) is such a
# unit on 2 MiB pages; the 3-stone game's units, under one 2 MiB page, are too (on ordinary pages:
# the tests after these).
BIG, BIG_CHILD = "std_4_4_0_0", "std_3_4_0_0"


@pytest.fixture
def game4(std4_games, tmp_path):
    db = shutil.copytree(std4_games / "sec2", tmp_path / "db4")
    assert (db / f"{BIG}.sec2").stat().st_size + (db / f"{BIG_CHILD}.sec2").stat().st_size >= 2 << 20
    return db


def flipped(path):
    """The file's bytes with the low bit of one entry's first field changed (the same size): a
    .sec2 entry of 3 bytes after the 64-byte header, about the middle of the file."""
    data = bytearray(path.read_bytes())
    data[64 + 3 * ((len(data) // 2 - 64) // 3)] ^= 0x01
    return bytes(data)


def fresh_big(millaudit, db):
    """The oracle for BIG alone: a fresh verify of sector BIG on the bytes now on disk."""
    proc = millaudit.run("verify", db, "--sector", BIG, "--json")
    return proc.returncode, json.loads(proc.stdout)


def sha(data):
    return __import__("hashlib").sha256(data).hexdigest()


def recorded_input(store, name, path):
    with sqlite3.connect(store) as c:
        return c.execute("SELECT sha256 FROM sector_inputs WHERE run_id = 1 AND sector = ? AND path = ?",
                         (name, path)).fetchone()[0]


@pytest.mark.parametrize("step, changed, store", [
    (f"checked:{BIG}", BIG_CHILD, True),   # the successor, rewritten after the check read it
    (f"checked:{BIG}", BIG, True),         # the sector's own file
    (f"opened:{BIG}", BIG, False),         # after its read, before the check: no store
])
def test_private_file_rewritten_in_place_after_its_read_keeps_the_bytes_read(
        millaudit, millaudit_planted, game4, tmp_path, step, changed, store):
    """The check read the private bytes, whose digest is the one recorded: the result stands,
    and it is about those bytes (the ones before the rewrite). The next --incremental sees other
    bytes on disk and checks them again. (BIG alone: in a whole run a later unit that reads the
    changed file again, a parent sector, reads the new bytes and is withdrawn, as the next test
    shows for BIG.)"""
    path = game4 / f"{changed}.sec2"
    before = path.read_bytes()
    bad = flipped(path)
    audit = tmp_path / "a.sqlite" if store else None
    rc, doc, err = paused_verify(millaudit_planted, game4, audit, step,
                                 lambda: rewrite_in_place(path, bad), tmp_path, "--sector", BIG)
    assert rc == 0 and doc["verdict"] == "verified", err
    assert sector(doc, BIG)["status"] == "ok" and doc["totals"]["discrepancies"] == 0
    assert "changed while being checked" not in err
    assert fresh_full(millaudit, game4)[0] == 1  # the bytes on disk now fail
    if not store:
        return
    assert recorded_input(audit, BIG, f"{changed}.sec2") == sha(before) != sha(bad)
    want_rc, want = fresh_big(millaudit, game4)
    inc = millaudit.run("verify", game4, "--audit", audit, "--incremental", "--sector", BIG, "--json")
    got = json.loads(inc.stdout)
    assert inc.returncode == want_rc, inc.stderr
    assert got["totals"]["discrepancies"] == want["totals"]["discrepancies"]
    assert not sector(got, BIG)["carried_over"]


def test_private_file_rewritten_after_its_unit_withdraws_a_later_reader(millaudit_planted, game4, tmp_path):
    """A whole run: BIG rewritten in place after its own check. BIG's result stands (about the bytes
    it read); a later unit whose sector reads BIG reads it again, privately or mapped, finds other
    bytes than the hash phase's, and is withdrawn."""
    path = game4 / f"{BIG}.sec2"
    bad = flipped(path)
    rc, doc, err = paused_verify(millaudit_planted, game4, tmp_path / "a.sqlite", f"checked:{BIG}",
                                 lambda: rewrite_in_place(path, bad), tmp_path)
    assert sector(doc, BIG)["status"] == "ok", err
    withdrawn = [s for s in doc["sectors"] if s["status"] == "unusable"]
    assert withdrawn, err  # std_3_4_1_0 places its fourth stone into BIG
    for s in withdrawn:
        assert f"{BIG}.sec2: sector {BIG}: offset 0: changed while being checked" in s["message"]
    assert rc == 3 and doc["verdict"] == "incomplete"


@pytest.mark.parametrize("store", [True, False])
def test_rewritten_and_back_during_the_check_is_judged_on_the_bytes_checked(
        millaudit, millaudit_planted, game4, tmp_path, store):
    """The gap a mapping leaves (docs/runs.md): the file rewritten in place after its open with
    bytes that fail, and rewritten back to the recorded bytes before the check ends. A check that
    read the file through a mapping read the failing bytes while every digest saw the recorded
    ones (exit 1 with discrepancies recorded against the digest of good bytes). Read privately, the
    check read the bytes of the digest: verified, and true of the bytes recorded."""
    path = game4 / f"{BIG}.sec2"
    good = path.read_bytes()
    bad = flipped(path)
    rewrite_in_place(path, bad)
    assert fresh_big(millaudit, game4)[0] == 1  # the transient bytes would fail BIG's check
    rewrite_in_place(path, good)
    audit = tmp_path / "a.sqlite" if store else None
    rc, doc, err = paused_verify_steps(millaudit_planted, game4, audit,
                                       [(f"opened:{BIG}", lambda: rewrite_in_place(path, bad)),
                                        (f"checked:{BIG}", lambda: rewrite_in_place(path, good))],
                                       tmp_path)
    assert rc == 0 and doc["verdict"] == "verified", err
    assert sector(doc, BIG)["status"] == "ok" and sector(doc, BIG)["discrepancies"] == 0
    assert doc["totals"]["discrepancies"] == 0
    if store:
        assert recorded_input(audit, BIG, f"{BIG}.sec2") == sha(good)
        inc = millaudit.run("verify", game4, "--audit", audit, "--incremental", "--json")
        assert inc.returncode == 0 and sector(json.loads(inc.stdout), BIG)["carried_over"]


@pytest.mark.parametrize("step, changed, store", [
    ("hashed", BIG, True),                  # between the hash phase and its read
    (f"opened:{BIG}", BIG_CHILD, True),     # the successor, before this unit reads it
    (f"opened:{BIG}", BIG_CHILD, False),    # ... without a store: unlike its first read
])
def test_private_file_changed_before_its_read_is_withdrawn(millaudit_planted, game4, tmp_path, step,
                                                           changed, store):
    path = game4 / f"{changed}.sec2"
    bad = flipped(path)
    rc, doc, err = paused_verify(millaudit_planted, game4, tmp_path / "a.sqlite" if store else None, step,
                                 lambda: rewrite_in_place(path, bad), tmp_path)
    assert_withdrawn(rc, doc, err, BIG, changed, ".sec2")
    assert f"{changed}.sec2: sector {changed}: offset 0: changed while being checked" in err
    if changed == BIG_CHILD:  # its own check was over before the change
        assert sector(doc, BIG_CHILD)["status"] == "ok"


# The same for units under one 2 MiB page (issue 47, second round): the 3-stone game's PARENT with
# its successors is read privately too, on ordinary pages. Before, such a unit was mapped and had
# the mapping's gaps: a file rewritten after its open and back before the re-hash was judged on
# the transient bytes, and a file rewritten after its read withdrew the sector that had read it.


@pytest.mark.parametrize("store", [True, False])
def test_small_unit_rewritten_and_back_during_the_check_is_judged_on_the_bytes_checked(
        millaudit, millaudit_planted, game3, tmp_path, store):
    """PARENT rewritten in place right after its read (the open) with a wrong depth, and rewritten
    back before its check ends: the check read the bytes read, the recorded ones: verified, and
    true of them. (Mapped, the check read the wrong depth while both digests saw the good bytes:
    exit 1 with a discrepancy recorded against the digest of good bytes.)"""
    db = shutil.copytree(game3, tmp_path / "db")
    path = db / f"{PARENT}.mdb"
    good = path.read_bytes()
    bad = faulty(game3, tmp_path, PARENT).read_bytes()
    assert len(good) < 2 << 20
    rewrite_in_place(path, bad)
    assert fresh_full(millaudit, db)[0] == 1  # the transient bytes would fail PARENT's check
    rewrite_in_place(path, good)
    audit = tmp_path / "a.sqlite" if store else None
    rc, doc, err = paused_verify_steps(millaudit_planted, db, audit,
                                       [(f"opened:{PARENT}", lambda: rewrite_in_place(path, bad)),
                                        (f"checked:{PARENT}", lambda: rewrite_in_place(path, good))],
                                       tmp_path)
    assert rc == 0 and doc["verdict"] == "verified", err
    assert sector(doc, PARENT)["status"] == "ok" and sector(doc, PARENT)["discrepancies"] == 0
    assert doc["totals"]["discrepancies"] == 0
    if store:
        assert recorded_input(audit, PARENT, f"{PARENT}.mdb") == sha(good)
        inc = millaudit.run("verify", db, "--audit", audit, "--incremental", "--json")
        assert inc.returncode == 0 and sector(json.loads(inc.stdout), PARENT)["carried_over"]


@pytest.mark.parametrize("store", [True, False], ids=["audit", "no-store"])
def test_mapped_unit_rewritten_and_back_is_withdrawn(millaudit_planted, game3, tmp_path, store):
    """The gap docs/runs.md stated for mapped units until the stamp: the check read a transient
    wrong depth while every digest saw the recorded bytes, and the run reported a discrepancy of
    bytes no longer on disk (exit 1) against the digest of the good ones. The file's change time
    moved, so the sector is withdrawn (exit 3), whatever the digests say."""
    db = shutil.copytree(game3, tmp_path / "db")
    path = db / f"{PARENT}.mdb"
    good = path.read_bytes()
    bad = faulty(game3, tmp_path, PARENT).read_bytes()
    audit = tmp_path / "a.sqlite" if store else None
    rc, doc, err = paused_verify_steps(millaudit_planted, db, audit,
                                       [(f"opened:{PARENT}", lambda: rewrite_in_place(path, bad)),
                                        (f"checked:{PARENT}", lambda: rewrite_in_place(path, good))],
                                       tmp_path, env=MAPPED)
    assert_withdrawn(rc, doc, err, PARENT, PARENT)
    assert "(written to (its change time moved) since it was mapped" in sector(doc, PARENT)["message"]
    assert doc["totals"]["discrepancies"] == 0


@pytest.mark.parametrize("changed", [PARENT, CHILD])
def test_wrong_file_made_right_during_its_check_is_never_verified(millaudit, millaudit_planted, game3,
                                                                  tmp_path, changed):
    """The false "verified" the mapped path allowed until the stamp: the file on disk holds a wrong
    depth (its digest is what the run records), someone with write access puts the right bytes in
    place while the check reads it and the wrong ones back before it is hashed again. 74f97b3 said
    "verified" (exit 0) with the wrong file's digest recorded, which --incremental would carry over.
    Now the sector that read it is withdrawn: its own file (PARENT) or a successor's (CHILD)."""
    db = shutil.copytree(game3, tmp_path / "db")
    path = db / f"{changed}.mdb"
    good = path.read_bytes()
    bad = faulty(game3, tmp_path, changed).read_bytes()
    rewrite_in_place(path, bad)
    assert fresh_full(millaudit, db)[0] == 1  # the bytes on disk are wrong
    audit = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify_steps(millaudit_planted, db, audit,
                                       [(f"opened:{PARENT}", lambda: rewrite_in_place(path, good)),
                                        (f"checked:{PARENT}", lambda: rewrite_in_place(path, bad))],
                                       tmp_path, "--sector", PARENT, env=MAPPED)
    assert_withdrawn(rc, doc, err, PARENT, changed)
    assert doc["verdict"] != "verified"
    inc = millaudit.run("verify", db, "--audit", audit, "--incremental", "--sector", PARENT, "--json")
    assert not sector(json.loads(inc.stdout), PARENT)["carried_over"]  # checked again
    if changed == PARENT:
        assert inc.returncode == 1  # on the wrong bytes now on disk


@pytest.mark.parametrize("step, changed, store", [
    ("hashed", PARENT, True),              # between the hash phase and its read
    (f"opened:{PARENT}", CHILD, True),     # a successor, before this unit reads it again
    (f"opened:{PARENT}", CHILD, False),    # ... without a store: unlike its first read
])
def test_small_file_changed_before_its_read_is_withdrawn(millaudit_planted, game3, tmp_path, step, changed,
                                                         store):
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, changed).read_bytes()
    rc, doc, err = paused_verify(millaudit_planted, db, tmp_path / "a.sqlite" if store else None, step,
                                 lambda: rewrite_in_place(db / f"{changed}.mdb", bad), tmp_path)
    assert_withdrawn(rc, doc, err, PARENT, changed)
    if changed == CHILD:  # its own check was over before the change
        assert sector(doc, CHILD)["status"] == "ok"


@pytest.mark.parametrize("step, changed, store", [
    (f"checked:{PARENT}", CHILD, True),    # a successor, rewritten after the check read it
    (f"checked:{PARENT}", PARENT, True),   # the sector's own file
    (f"opened:{PARENT}", PARENT, False),   # after its read, before the check: no store
])
def test_small_file_rewritten_in_place_after_its_read_keeps_the_bytes_read(
        millaudit, millaudit_planted, game3, tmp_path, step, changed, store):
    """The check read the private bytes, whose digest is the one recorded: the result stands, and is
    about those bytes. The next --incremental sees other bytes on disk and checks them again.
    (Mapped, the re-hash after the check saw the new bytes and the sector was withdrawn.)"""
    db = shutil.copytree(game3, tmp_path / "db")
    path = db / f"{changed}.mdb"
    before = path.read_bytes()
    bad = faulty(game3, tmp_path, changed).read_bytes()
    audit = tmp_path / "a.sqlite" if store else None
    rc, doc, err = paused_verify(millaudit_planted, db, audit, step, lambda: rewrite_in_place(path, bad),
                                 tmp_path, "--sector", PARENT)
    assert rc == 0 and doc["verdict"] == "verified", err
    assert sector(doc, PARENT)["status"] == "ok" and doc["totals"]["discrepancies"] == 0
    assert "changed while being checked" not in err
    assert fresh_full(millaudit, db)[0] == 1  # the bytes on disk now fail
    if not store:
        return
    assert recorded_input(audit, PARENT, f"{changed}.mdb") == sha(before) != sha(bad)
    fresh = millaudit.run("verify", db, "--sector", PARENT, "--json")
    inc = millaudit.run("verify", db, "--audit", audit, "--incremental", "--sector", PARENT, "--json")
    got = json.loads(inc.stdout)
    assert inc.returncode == fresh.returncode, inc.stderr
    assert got["totals"]["discrepancies"] == json.loads(fresh.stdout)["totals"]["discrepancies"]
    assert not sector(got, PARENT)["carried_over"]


def test_small_file_rewritten_after_its_unit_withdraws_a_later_reader(millaudit_planted, game3, tmp_path):
    """A whole run: PARENT rewritten in place after its own check. PARENT's result stands (about the
    bytes it read); std_2_2_1_1, whose unit reads PARENT later, reads other bytes than the hash
    phase's and is withdrawn."""
    db = shutil.copytree(game3, tmp_path / "db")
    bad = faulty(game3, tmp_path, PARENT).read_bytes()
    rc, doc, err = paused_verify(millaudit_planted, db, tmp_path / "a.sqlite", f"checked:{PARENT}",
                                 lambda: rewrite_in_place(db / f"{PARENT}.mdb", bad), tmp_path)
    assert sector(doc, PARENT)["status"] == "ok", err
    assert_withdrawn(rc, doc, err, "std_2_2_1_1", PARENT)


def test_production_binary_has_no_rendezvous(millaudit, millaudit_planted, game3, tmp_path):
    """millaudit itself ignores the test build's variables: no pause, a normal verified run; the
    lower private-read budget is not even in it (test_hook.c is linked into millaudit-planted
    alone)."""
    ctl = tmp_path / "ctl"
    ctl.mkdir()
    env = dict(os.environ, MILLAUDIT_TEST_STEP="hashed", MILLAUDIT_TEST_STEP_DIR=str(ctl), **MAPPED)
    proc = subprocess.run([str(millaudit.path), "verify", str(game3), "--audit", str(tmp_path / "a.sqlite")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0 and not (ctl / "paused").exists()
    knob = next(iter(MAPPED)).encode()
    assert knob not in millaudit.path.read_bytes()
    assert knob in millaudit_planted.path.read_bytes()


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
