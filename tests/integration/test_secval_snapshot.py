"""Issue 41, item 1: the `.secval` is in the snapshot discipline (docs/runs.md, "The bytes hashed are
the bytes checked").

Guards against a run that checks one version of `<variant>.secval` and records another's digest.
Before, the file was hashed in the hash phase and parsed only when the first `.sec2` sector of its
variant was opened, and never hashed again: replaced in between (a re-download, an rsync, a solver
writing), the run checked one version and recorded the other; with the recorded one put back,
`verify --incremental` carried the result over and exited 0 on a database whose fresh run exits 1,
and an attestation of the run named bytes that were never checked. Now the file is read once into
memory, hashed from those bytes and parsed from them: the digest recorded is the digest of what
every sector is read with, whatever happens to the file afterwards, and no sector reads another
version of it behind the run's back (a broken `.secval` replaced by a good one after the hash makes
its sectors unusable, never verified).

The database: the producer's std 3_4_0_0 with its successors 3_3_0_0 and 4_3_0_0 as Malom `.sec2`,
read with the real std.secval of ../shared/fixtures/malom; the wrong `.secval` swaps the values of
3_4_0_0 and 4_3_0_0 (still a valid file of the same size: 180,679 discrepancies). The test build's
rendezvous (MILLAUDIT_TEST_STEP, cli/test_hook.h) changes the file at an exact point of the run."""
import hashlib
import json
import os
import shutil
import sqlite3

import pytest

from conftest import FIXTURES, need_fixture
from test_read_snapshot import paused_verify  # the run paused at a step, a file changed there

SECVAL = FIXTURES / "malom" / "original-excerpt" / "std.secval"


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def versions(millaudit, tmp_path_factory):
    need_fixture(SECVAL)
    w = tmp_path_factory.mktemp("secval")
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", w / "open", "--quiet",
                  check=0)
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", w / "db", "--open-dir",
                  w / "open", "--format", "malom-sec2", "--secval", SECVAL, "--quiet", check=0)
    good = (w / "db" / "std.secval").read_bytes()
    bad = good.replace(b"\n4 3 0 0  -40\n", b"\n4 3 0 0  40\n").replace(b"\n3 4 0 0  40\n", b"\n3 4 0 0  -40\n")
    assert bad != good and len(bad) == len(good)
    (w / "good.secval").write_bytes(good)
    (w / "bad.secval").write_bytes(bad)
    (w / "broken.secval").write_bytes(good[:-40])  # cut short: refused when parsed
    return w


def database(versions, tmp_path, secval):
    db = tmp_path / "db"
    shutil.copytree(versions / "db", db)
    shutil.copy(versions / f"{secval}.secval", db / "std.secval")
    return db


def put(versions, db, secval, how):
    """Puts version `secval` of std.secval on disk: by rename (rsync, a download) or in place (same
    inode, size and mtime)."""
    target = db / "std.secval"
    data = (versions / f"{secval}.secval").read_bytes()
    if how == "rename":
        tmp = db / ".std.secval.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, target)
    else:
        st = target.stat()
        with open(target, "r+b") as f:
            f.write(data)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def recorded_secval(store, run=None):
    with sqlite3.connect(store) as c:
        run = run or c.execute("SELECT max(id) FROM runs").fetchone()[0]
        return c.execute("SELECT sha256 FROM manifest_files WHERE run_id = ? AND path = 'std.secval'",
                         (run,)).fetchone()[0]


@pytest.mark.parametrize("first,then,step,how", [("bad", "good", "hashed", "rename"),
                                                ("good", "bad", "hashed", "inplace"),
                                                ("bad", "good", "opened:std_3_3_0_0", "inplace")])
def test_the_secval_recorded_is_the_secval_checked(millaudit, millaudit_planted, versions, tmp_path, first, then,
                                                    step, how):
    db = database(versions, tmp_path, first)
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, step, lambda: put(versions, db, then, how), tmp_path)
    # the run checked the version it read at its start, and recorded that one's digest
    assert rc == (1 if first == "bad" else 0), err
    assert recorded_secval(store) == sha(versions / f"{first}.secval")
    # put the recorded version back: the incremental run says what a fresh run says
    put(versions, db, first, how)
    fresh = millaudit.run("verify", db).returncode
    assert millaudit.run("verify", db, "--audit", store, "--incremental", "--quiet").returncode == fresh
    # and with the other version on disk, nothing is carried over: it is checked again
    put(versions, db, then, how)
    proc = millaudit.run("verify", db, "--audit", store, "--incremental", "--json", "--quiet")
    assert proc.returncode == millaudit.run("verify", db).returncode
    assert not [s for s in json.loads(proc.stdout)["sectors"] if s.get("carried_over")]


def test_a_broken_secval_replaced_after_hashing_is_never_read_behind_the_run(millaudit, millaudit_planted, versions,
                                                                            tmp_path):
    """The sectors of a run whose std.secval did not parse are unusable, even when a good
    std.secval is there by the time they are opened (no reader reads its own copy beside the file)."""
    db = database(versions, tmp_path, "broken")
    store = tmp_path / "a.sqlite"
    rc, doc, err = paused_verify(millaudit_planted, db, store, "hashed", lambda: put(versions, db, "good", "rename"),
                          tmp_path, "--sector", "std_3_4_0_0")
    assert rc == 3 and doc["verdict"] == "incomplete", err
    s = next(x for x in doc["sectors"] if x["sector"] == "std_3_4_0_0")
    assert s["status"] == "unusable" and "std.secval is unusable" in s["message"]
    assert recorded_secval(store) == sha(versions / "broken.secval")


def test_a_secval_replaced_after_it_was_judged_is_damage(millaudit, millaudit_planted, versions, tmp_path):
    """Issue 44 meets issue 41: the integrity phase judges std.secval against the manifest, then the
    run reads it into memory for good. Replaced in between (here: the published, wrong version
    swapped for a version the database agrees with), the run must not check against bytes it never
    judged and call the database verified "as published": the .secval is damaged, fetch it again."""
    db = database(versions, tmp_path, "bad")
    millaudit.run("manifest", "create", db, check=0)  # published: the bad version
    rc, doc, err = paused_verify(millaudit_planted, db, None, "judged", lambda: put(versions, db, "good", "rename"),
                                 tmp_path)
    assert rc == 3 and doc["verdict"] == "damaged", err
    assert [d["path"] for d in doc["integrity"]["damaged"]] == ["std.secval"]
    assert doc["next"]["refetch"] == ["std.secval"]
    assert all(s["status"] == "input-damaged" for s in doc["sectors"]), doc["sectors"]
    # unchanged between the phases, the same run is the published (wrong) database's verdict
    put(versions, db, "bad", "rename")
    assert millaudit.run("verify", db).returncode == 1
