"""Whole-database runs through the run engine: interrupted runs keep every finished sector, --resume
continues them without checking a sector twice, --incremental re-checks exactly what changed,
and open and Malom runs have one JSON shape whose derived values compare across formats.

The 5-stone standard game (68 sectors, ~9e7 entries) is the database interrupted here: large enough
that a run is stopped in its middle, small enough for CI."""
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import reseal, validate_json
from merge_util import assert_same_run


def solve(millaudit, variant, stones, out):
    millaudit.run("solve", "--variant", variant, "--stones", stones, "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def game5(millaudit, tmp_path_factory):
    """The whole 5-stone standard game with one planted wrong depth, so runs have discrepancy
    rows (a root and its propagated parents) to compare, not only zeros. (Every win of 4_3_0_0 is
    a win in 1: the opponent has three stones, so any mill wins; its losses are long.)"""
    db = solve(millaudit, "std", 5, tmp_path_factory.mktemp("g5") / "db")
    path = db / "std_4_3_0_0.mdb"
    data = bytearray(path.read_bytes())
    for e in range(0, (len(data) - 128) // 2):
        word = data[128 + 2 * e] | data[129 + 2 * e] << 8
        if word >> 14 == 1 and (word & 0x3FFF) >= 4:  # a loss in d: make it a loss in d - 2
            word -= 2
            data[128 + 2 * e:130 + 2 * e] = bytes((word & 0xFF, word >> 8))
            break
    path.write_bytes(bytes(data))
    reseal(path)  # the producer's wrong value (docs/download.md: not damage)
    return db


@pytest.fixture(scope="module")
def reference(millaudit, game5, tmp_path_factory):
    """An uninterrupted run of the same database: what every resumed run must equal."""
    store = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    proc = millaudit.run("verify", game5, "--audit", store, "--json", "--threads", "2", check=1)
    return json.loads(proc.stdout), store


def comparable(doc):
    """Per sector what a run established, without timing and provenance."""
    out = {}
    for s in doc["sectors"]:
        keep = {k: v for k, v in s.items() if k not in ("seconds", "carried_over", "from_run")}
        out[s["sector"]] = keep
    return out


def store_rows(store, run_id):
    con = sqlite3.connect(store)
    rows = con.execute("SELECT sector, entry, board, stored, derived, class, root, move FROM discrepancies "
                       "WHERE run_id = ? ORDER BY sector, entry", (run_id,)).fetchall()
    digests = dict(con.execute("SELECT sector, derived_sha256 FROM sector_digests WHERE run_id = ?",
                               (run_id,)).fetchall())
    con.close()
    return rows, digests


def committed(store):
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return con.execute("SELECT count(*) FROM sector_results").fetchone()[0]
    finally:
        con.close()


STOP = 20  # sectors committed before a run is stopped


def check_order(store):
    """The sectors of a store's run in the order the run committed them (children first)."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT sector FROM sector_results ORDER BY rowid")]
    finally:
        con.close()


def paused(planted, db, store, step, sig, *extra):
    """Starts a verify of the test build (cli/test_hook.c) that pauses at `step`, sends sig while it
    is paused there (nothing runs, so what is committed is known), lets it go on and waits for it.
    No race with the run's speed: the signal arrives at one known point of the run."""
    ctl = store.parent / f"ctl-{store.stem}"
    ctl.mkdir()
    env = dict(os.environ, MILLAUDIT_TEST_STEP=step, MILLAUDIT_TEST_STEP_DIR=str(ctl))
    proc = subprocess.Popen([str(planted.path), "verify", str(db), "--audit", str(store), "--threads", "1",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    while not (ctl / "paused").exists():
        assert proc.poll() is None, f"verify ended before step {step}: {proc.communicate()}"
        time.sleep(0.01)
    kept = committed(store)
    proc.send_signal(sig)
    (ctl / "resume").touch()
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err, kept


def interrupt(planted, db, store, sig, order):
    """A verify stopped after the STOP-th sector: SIGINT by the test build's stop hook
    (MILLAUDIT_TEST_STOP_AFTER_SECTORS, as if SIGINT came after that sector's commit), SIGKILL sent
    while the run is paused after checking the next sector, before its commit."""
    if sig == signal.SIGINT:
        proc = subprocess.run([str(planted.path), "verify", str(db), "--audit", str(store), "--threads", "1",
                               "--quiet"], capture_output=True, text=True, timeout=600,
                              env=dict(os.environ, MILLAUDIT_TEST_STOP_AFTER_SECTORS=str(STOP)))
        return proc.returncode, proc.stdout, proc.stderr, committed(store)
    # the check order is the uninterrupted run's commit order (children first)
    return paused(planted, db, store, f"checked:{order[STOP]}", sig, "--quiet")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_resumes_to_the_uninterrupted_result(millaudit, millaudit_planted, game5, reference,
                                                             tmp_path, sig):
    ref_doc, ref_store = reference
    store = tmp_path / "a.sqlite"
    order = check_order(ref_store)
    code, out, err, kept = interrupt(millaudit_planted, game5, store, sig, order)
    con = sqlite3.connect(store)
    (run_id, status, ended) = con.execute("SELECT id, status, ended_at FROM runs").fetchone()
    first = {r[0] for r in con.execute("SELECT sector FROM sector_results WHERE run_id = ?", (run_id,))}
    con.close()
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL and status is None and ended is None
        # killed while paused before its commit: exactly what was committed when it paused
        assert len(first) == kept
    else:
        assert code == 128 + sig, err
        assert status == "interrupted" and ended is not None
        assert "verdict: interrupted" in out and "--resume" in out
    # finished sectors survived: the first ones of the check order, STOP of them (one fewer or more
    # where a unit of twin sectors straddles the stop); not everything was done
    assert STOP - 1 <= len(first) <= STOP + 1 and len(first) < len(order)
    assert first == set(order[:len(first)])

    proc = millaudit.run("verify", game5, "--audit", store, "--resume", "--json", check=1)
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "resume" and doc["resumed_from"] == run_id
    carried = {s["sector"] for s in doc["sectors"] if s["carried_over"]}
    checked = {s["sector"] for s in doc["sectors"] if not s["carried_over"]}
    assert carried == first, "exactly the committed sectors are carried over"
    assert not carried & checked
    assert all(s["from_run"] == run_id for s in doc["sectors"] if s["carried_over"])
    assert doc["totals"] == ref_doc["totals"] | {"sectors_checked": len(checked),
                                                 "sectors_carried_over": len(carried)}
    assert comparable(doc) == comparable(ref_doc)
    # the store holds what the uninterrupted run established, field by field: sector results, class
    # counts, discrepancy rows and sets, derived digests, histograms, inputs, manifest
    assert_same_run(ref_store, store)
    assert store_rows(store, doc["run_id"]) == store_rows(ref_store, ref_doc["run_id"])
    # and the interrupted run is no longer offered for resuming
    proc = millaudit.run("verify", game5, "--audit", store, "--resume", check=3)
    assert "no unfinished verify run" in proc.stderr


def test_sigterm_stops_cleanly_with_143(millaudit_planted, game5, reference, tmp_path):
    """What a batch scheduler sends at a time limit: the run ends recorded as interrupted. SIGTERM
    arrives while the run is paused after checking the 4th sector: that sector's unit is the last
    one the run finishes."""
    order = check_order(reference[1])
    store = tmp_path / "a.sqlite"
    code, out, err, kept = paused(millaudit_planted, game5, store, f"checked:{order[3]}", signal.SIGTERM, "--json")
    assert code == 143, err
    doc = json.loads(out)
    validate_json("verify", doc)
    assert doc["verdict"] == "interrupted" and doc["exit"] == 143
    assert kept == 3 and check_order(store) == order[:4]
    con = sqlite3.connect(store)
    assert con.execute("SELECT status FROM runs").fetchone()[0] == "interrupted"
    con.close()


def test_signal_before_a_private_read_stops_the_run_and_resume_completes_it(millaudit, millaudit_planted, game5,
                                                                            reference, tmp_path):
    """SIGINT while the run is paused right after its hash phase: the next thing the run does is
    the first unit's private read (every unit of this game totals under 4 GiB), which sees the flag
    before its first piece and stops (checksums/private_read.h); that unit is not checked and the
    run stops as on any signal: exit 130, "interrupted", nothing committed, no file blamed. --resume
    then checks every sector, to the uninterrupted run's result."""
    ref_doc, ref_store = reference
    store = tmp_path / "a.sqlite"
    code, out, err, kept = paused(millaudit_planted, game5, store, "hashed", signal.SIGINT, "--json")
    assert code == 130, err
    doc = json.loads(out)
    assert doc["verdict"] == "interrupted" and kept == 0 and committed(store) == 0
    assert not any(s["status"] == "unusable" for s in doc["sectors"]), err
    proc = millaudit.run("verify", game5, "--audit", store, "--resume", "--json", check=1)
    doc = json.loads(proc.stdout)
    assert doc["mode"] == "resume" and doc["totals"]["sectors_carried_over"] == 0
    assert comparable(doc) == comparable(ref_doc)


def successors(variant_stones, s):
    """Stored successor sectors of sector s = (W, B, WF, BF) in the standard game, by the rules of
    malom-format.md §2.2 written out again here: place (with or without a mill) while stones are
    in hand, else move; a mill that leaves the opponent below three stones wins at once."""
    w, b, wf, bf = s
    out = set()
    if wf > 0:
        out.add((b, w + 1, bf, wf - 1))
        if b - 1 + bf >= 3:
            out.add((b - 1, w + 1, bf, wf - 1))
    else:
        out.add((b, w, bf, wf))
        if b - 1 + bf >= 3:
            out.add((b - 1, w, bf, wf))
    return out


def test_incremental_rechecks_the_changed_sector_and_its_readers(millaudit, tmp_path):
    db = solve(millaudit, "std", 4, tmp_path / "db")
    store = tmp_path / "a.sqlite"
    full = json.loads(millaudit.run("verify", db, "--audit", store, "--json", check=0).stdout)
    again = json.loads(millaudit.run("verify", db, "--audit", store, "--incremental", "--json",
                                     check=0).stdout)
    assert again["totals"]["sectors_checked"] == 0
    assert again["totals"]["sectors_carried_over"] == len(full["sectors"])
    assert comparable(again) == comparable(full)
    # a sector carried over reports the run that checked it and the time that check took
    assert {s["sector"]: (s["from_run"], s["seconds"]) for s in again["sectors"]} == \
        {s["sector"]: (full["run_id"], s["seconds"]) for s in full["sectors"]}

    changed = (3, 3, 0, 0)
    path = db / "std_3_3_0_0.mdb"
    data = bytearray(path.read_bytes())
    entry = next(e for e in range((len(data) - 128) // 2)
                 if data[129 + 2 * e] >> 6 == 1 and (data[128 + 2 * e] | (data[129 + 2 * e] & 0x3F) << 8) >= 4)
    word = (data[128 + 2 * entry] | data[129 + 2 * entry] << 8) - 2  # loss in d-2: still well formed
    data[128 + 2 * entry:130 + 2 * entry] = bytes((word & 0xFF, word >> 8))
    path.write_bytes(bytes(data))
    reseal(path)

    doc = json.loads(millaudit.run("verify", db, "--audit", store, "--incremental", "--json", check=1).stdout)
    def sector_of(name):
        return tuple(int(x) for x in name.split("_")[1:])
    readers = {s["sector"] for s in doc["sectors"]
               if sector_of(s["sector"]) == changed or changed in successors(4, sector_of(s["sector"]))}
    rechecked = {s["sector"] for s in doc["sectors"] if not s["carried_over"]}
    assert rechecked == readers and "std_3_3_0_0" in readers and len(readers) > 1
    sec = next(s for s in doc["sectors"] if s["sector"] == "std_3_3_0_0")
    roots = [r for r in sec["rows"] if r["root"]]
    assert [r["entry"] for r in roots] == [entry] and roots[0]["class"] == "wrong-depth"
    # the night after, nothing changed: every sector carried over, faults, roots and propagated ones
    # as that run found them
    carried = json.loads(millaudit.run("verify", db, "--audit", store, "--incremental", "--json", check=1).stdout)
    assert carried["totals"]["sectors_checked"] == 0
    assert comparable(carried) == comparable(doc) and carried["totals"]["propagated"] > 0
    # text and HTML/JSON reports name the sectors that were carried over
    text = millaudit.run("verify", db, "--audit", store, "--incremental", check=1).stdout
    assert "carried over from run" in text


def test_malom_and_open_runs_share_a_shape_and_compare_by_values(millaudit, malom_fixtures, tmp_path):
    """The producer's 3_3_0_0 / 3_4_0_0 / 4_3_0_0 and Malom's .sec files of the same sectors hold the
    same outcomes and depths, so their derived-value digests agree although no byte does."""
    mdir = malom_fixtures / "std-strong"
    odir = tmp_path / "open"
    millaudit.run("solve", "--variant", "std", "--sector", "4_3_0_0", "--with-deps", "--out", odir,
                  "--quiet", check=0)
    a, b = tmp_path / "malom.sqlite", tmp_path / "open.sqlite"
    mdoc = json.loads(millaudit.run("verify", mdir, "--audit", a, "--json", check=0).stdout)
    odoc = json.loads(millaudit.run("verify", odir, "--audit", b, "--json", check=0).stdout)
    validate_json("verify", mdoc)
    assert set(mdoc) == set(odoc)
    assert {s["sector"]: s["derived_sha256"] for s in mdoc["sectors"]} == \
           {s["sector"]: s["derived_sha256"] for s in odoc["sectors"]}
    assert all(s["derived_sha256"] for s in mdoc["sectors"])
    # the bytes differ in every sector (docs/reproducibility.md: exit 1 when any sector differs)
    proc = millaudit.run("runs", "compare", f"{a}:1", f"{b}:1", check=1)
    for sector in ("std_3_3_0_0", "std_3_4_0_0", "std_4_3_0_0"):
        line = next(l for l in proc.stdout.splitlines() if l.split() and l.split()[0] == sector)
        assert "bytes only" in line, line  # other bytes (formats), same derived values


def test_resume_and_incremental_bad_input(millaudit, tmp_path):
    db = solve(millaudit, "std", 3, tmp_path / "db")
    store = tmp_path / "a.sqlite"
    proc = millaudit.run("verify", db, "--resume", check=2)
    assert "--resume needs --audit" in proc.stderr
    millaudit.run("verify", db, "--incremental", check=2)
    millaudit.run("verify", db, "--incremental", "--resume", "--audit", store, check=2)
    proc = millaudit.run("verify", db, "--audit", store, "--resume", check=3)
    assert "no unfinished verify run" in proc.stderr and proc.stderr.count("\n") == 1
    # an unfinished run of another database root, or of another tool version, is refused
    other = solve(millaudit, "std", 3, tmp_path / "other")
    millaudit.run("verify", other, "--audit", store, "--quiet", check=0)
    con = sqlite3.connect(store)
    con.execute("UPDATE runs SET ended_at = NULL, status = NULL")
    con.commit()
    proc = millaudit.run("verify", db, "--audit", store, "--resume=1", check=3)
    assert "verified" in proc.stderr and str(other.resolve()) in proc.stderr
    con.execute("UPDATE runs SET database_root = ?, tool_version = '0.0.0-old'", (str(db.resolve()),))
    con.commit()
    con.close()
    proc = millaudit.run("verify", db, "--audit", store, "--resume", "1", check=3)
    assert "results of another checker are not carried over" in proc.stderr
    for bad in ("x", "0", "-1"):
        millaudit.run("verify", db, "--audit", store, f"--resume={bad}", check=2)


def test_json_schema_rejects_what_it_should(millaudit, tmp_path):
    """The schema is a contract, not decoration: documents that break it are refused."""
    import jsonschema
    db = solve(millaudit, "std", 3, tmp_path / "db")
    doc = json.loads(millaudit.run("verify", db, "--json", check=0).stdout)
    validate_json("verify", doc)
    for breakage in (lambda d: d.pop("totals"),
                     lambda d: d.__setitem__("total", d["totals"]),
                     lambda d: d["sectors"][0].__setitem__("status", "fine"),
                     lambda d: d["sectors"][0]["classes"].pop("wrong-depth"),
                     lambda d: d.__setitem__("schema_version", 1),
                     lambda d: d.pop("integrity"),
                     lambda d: d["integrity"].__setitem__("source", "somewhere")):
        broken = json.loads(json.dumps(doc))
        breakage(broken)
        with pytest.raises(jsonschema.ValidationError):
            validate_json("verify", broken)


def test_a_carried_sector_whose_stored_status_was_edited_is_unusable(millaudit, tmp_path):
    """A store edited by hand (a sector's status no word of ours): --incremental carries the others
    and calls that one unusable (exit 3), in bounded time, never ok and never a hang."""
    db = tmp_path / "db"
    solve(millaudit, "std", 3, db)
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    con = sqlite3.connect(store)
    con.execute("UPDATE sector_results SET status = 'bogus' WHERE sector = 'std_1_1_2_2'")
    con.commit()
    con.close()
    proc = millaudit.run("verify", db, "--audit", store, "--incremental", timeout=120, check=3)
    lines = proc.stdout.splitlines()
    assert "std_1_1_2_2: unusable" in lines
    assert lines[-1] == "verdict: incomplete: 1 sector unusable"
