"""Regressions of the defects an attack on verify found (issue 9, items 1-4, 8, 10, 11): bad
--sector text, FIFOs and broken links named like sector files, non-canonical names, a store that
fills up, control characters in names. Every case runs the ASan/UBSan build: a crash, an
out-of-bounds read or a hang fails the test (each run has a timeout)."""
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess

import pytest

from conftest import reseal


@pytest.fixture(scope="module")
def game3(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("g3") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", out, "--quiet", check=0)
    return out


@pytest.fixture
def db(game3, tmp_path):
    return shutil.copytree(game3, tmp_path / "db")


def one_line_errors(proc):
    lines = [l for l in proc.stderr.splitlines() if l.startswith("millaudit verify: ")]
    assert lines, proc.stderr
    for l in lines:
        assert "\x1b" not in l
    return lines


@pytest.mark.parametrize("text", ["x", "", "std", "std_", "5-4-0-0", "5_4_0", "+3_3_0_0", "std_x_3_0_0"])
def test_bad_sector_text_is_a_usage_error(millaudit_asan, db, text):
    proc = millaudit_asan.run("verify", db, "--sector", text, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "expected W_B_WF_BF or <variant>_W_B_WF_BF" in proc.stderr and "e.g. 5_4_0_0" in proc.stderr


def test_bad_sector_in_an_empty_directory_is_a_usage_error(millaudit_asan, tmp_path):
    (tmp_path / "empty").mkdir()
    millaudit_asan.run("verify", tmp_path / "empty", "--sector", "bad", check=2, timeout=60)
    proc = millaudit_asan.run("verify", tmp_path / "empty", "--sector", "3_3_0_0", check=3, timeout=60)
    assert "sector file absent" in proc.stderr
    proc = millaudit_asan.run("verify", tmp_path / "empty", check=3, timeout=60)
    assert "no usable sector files" in proc.stderr


@pytest.mark.parametrize("name", ["std_3_3_0_0.mdb", "std_2_3_1_0.mdb"])
def test_fifo_named_like_a_sector_does_not_hang(millaudit_asan, db, name):
    (db / name).unlink()
    os.mkfifo(db / name)
    proc = millaudit_asan.run("verify", db, "--json", timeout=60)
    assert proc.returncode == 3, proc.stderr
    doc = json.loads(proc.stdout)
    assert any(name in e and "not a regular file (FIFO)" in e for e in doc["errors"])
    sector = name[:-4]
    (s,) = [s for s in doc["sectors"] if s["sector"] == sector]
    assert s["status"] == "unusable" and "FIFO" in s["message"]


def test_fifo_secval_and_sec2_do_not_hang(millaudit_asan, malom_fixtures, tmp_path):
    d = tmp_path / "m"
    d.mkdir()
    shutil.copy(malom_fixtures / "original-excerpt" / "std_3_3_0_0.sec2", d)
    os.mkfifo(d / "std.secval")
    os.mkfifo(d / "std_3_4_0_0.sec2")
    proc = millaudit_asan.run("verify", d, "--json", timeout=60)
    assert proc.returncode == 3
    doc = json.loads(proc.stdout)
    assert any("std.secval" in e and "FIFO" in e for e in doc["errors"])
    assert any("std_3_4_0_0.sec2" in e and "FIFO" in e for e in doc["errors"])


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_broken_links_are_named_in_text_json_and_store(millaudit_asan, db, tmp_path, kind):
    target = db / "std_3_3_0_0.mdb"
    target.unlink()
    os.symlink("/nonexistent/x.mdb" if kind == "dangling" else "std_3_3_0_0.mdb", target)
    store = tmp_path / "a.sqlite"
    proc = millaudit_asan.run("verify", db, "--audit", store, "--json", timeout=60)
    assert proc.returncode == 3
    why = "dangling symbolic link" if kind == "dangling" else "symbolic link loop"
    doc = json.loads(proc.stdout)
    assert any("std_3_3_0_0.mdb" in e and why in e for e in doc["errors"]), doc["errors"]
    assert any(why in l for l in one_line_errors(proc))
    con = sqlite3.connect(store)
    (msg,) = con.execute("SELECT message FROM sector_results WHERE sector = 'std_3_3_0_0'").fetchone()
    assert msg and why in msg
    assert con.execute("SELECT status FROM runs").fetchone()[0] == "incomplete"


def test_non_canonical_name_beside_the_real_file_is_reported_and_fails(millaudit_asan, db, tmp_path):
    shutil.copy(db / "std_3_3_0_0.mdb", db / "std_03_3_0_0.mdb")
    store = tmp_path / "a.sqlite"
    proc = millaudit_asan.run("verify", db, "--audit", store, "--json", timeout=60)
    assert proc.returncode == 3, "a file that is never checked must not let the run say 0"
    doc = json.loads(proc.stdout)
    assert any("std_03_3_0_0.mdb" in e and "not the canonical file name std_3_3_0_0.mdb" in e
               for e in doc["errors"])
    assert doc["verdict"] == "incomplete"
    # the store records only paths that exist
    con = sqlite3.connect(store)
    for (f,) in con.execute("SELECT file FROM sector_results"):
        assert os.path.exists(f), f


def test_non_canonical_name_alone_is_reported(millaudit_asan, db):
    for p in db.iterdir():
        if p.name != "std_3_3_0_0.mdb":
            p.unlink()
    (db / "std_3_3_0_0.mdb").rename(db / "std_3_3_0_0.sec")  # another format's suffix, same bytes
    shutil.copy(db / "std_3_3_0_0.sec", db / "std_3_03_0_0.mdb")
    proc = millaudit_asan.run("verify", db, timeout=60)
    assert proc.returncode == 3
    errors = one_line_errors(proc)
    assert any("std_3_03_0_0.mdb" in l and "not the canonical file name" in l for l in errors)


def test_control_characters_in_names_stay_on_one_line(millaudit_asan, db):
    shutil.copy(db / "std_3_3_0_0.mdb", db / "std_3_3_0_0\n.mdb")
    shutil.copy(db / "std_3_3_0_0.mdb", db / "\x1b[31mstd_3_3_0_0.mdb")
    proc = millaudit_asan.run("verify", db, "--json", timeout=60)
    assert proc.returncode == 3
    errors = one_line_errors(proc)
    assert any("\\n.mdb" in l for l in errors) and any("\\x1b[31m" in l for l in errors)
    json.loads(proc.stdout)  # still valid JSON


def test_full_disk_store_says_so_in_the_exit_status(millaudit_asan, db, tmp_path):
    """The store cannot grow (RLIMIT_FSIZE): the run still checks and prints everything, but the
    record is incomplete, and the exit status is 4 although discrepancies were found (4 wins)."""
    path = db / "std_3_3_0_0.mdb"
    data = bytearray(path.read_bytes())
    e = next(i for i in range((len(data) - 128) // 2) if data[129 + 2 * i] >> 6 == 3 and data[128 + 2 * i] >= 3)
    data[128 + 2 * e] += 2
    path.write_bytes(bytes(data))
    reseal(path)  # the producer's wrong value, not damage
    store = tmp_path / "a.sqlite"
    millaudit_asan.run("verify", db, "--audit", store, "--quiet", check=1, timeout=300)  # sizes the store

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        size = os.path.getsize(store)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 4096, size + 4096))

    proc = subprocess.run([str(millaudit_asan.path), "verify", str(db), "--audit", str(store), "--json"],
                          capture_output=True, text=True, timeout=300, preexec_fn=small_files)
    assert proc.returncode == 4, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["record_complete"] is False and doc["exit"] == 4
    assert doc["totals"]["discrepancies"] >= 1  # the findings are still reported
    assert doc["errors"] and all("\n" not in e for e in doc["errors"])


def test_a_sector_result_the_store_refuses_leaves_the_record_incomplete(millaudit, db, tmp_path):
    """Only the sector results cannot be written (a trigger refuses them; the run's own rows can):
    the run still reports what it checked, but says the record is incomplete (exit 4), and the store
    records the run as incomplete, not "ok" over sectors it does not hold; the report of it is no
    proof either."""
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    with sqlite3.connect(store) as c:
        c.execute("CREATE TRIGGER refuse BEFORE INSERT ON sector_results BEGIN SELECT RAISE(ABORT, 'no room'); END")
    proc = millaudit.run("verify", db, "--audit", store, "--json", check=4)
    doc = json.loads(proc.stdout)
    assert doc["verdict"] == "verified" and doc["record_complete"] is False and doc["exit"] == 4
    assert "run 2: sector std_3_3_0_0: record result: no room" in proc.stderr
    with sqlite3.connect(store) as c:
        assert c.execute("SELECT count(*) FROM sector_results WHERE run_id = 2").fetchone()[0] == 0
        assert c.execute("SELECT status FROM runs WHERE id = 2").fetchone()[0] == "incomplete"
    report = millaudit.run("report", "--audit", store, "--run", 2, "--check", check=3).stdout
    assert "NOT verified" in report.splitlines()[1]
    # what changed since the verified run 1: nothing found wrong, only less proven
    changed = next(l for l in report.splitlines() if l.startswith("  what changed "))
    assert changed.endswith("): 7 sectors not checked by this run (no fault found: unproven); "
                            "verdict verified -> incomplete (worse)"), changed
