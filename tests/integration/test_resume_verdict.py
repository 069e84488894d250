"""Issue 21, items 4 and 5: a verdict belongs to a run and says what that run did.

A run stopped after K of N sectors is "interrupted: K of N sectors checked" for good, in verify's
own output, in every report format and in the history, also after a --resume continued it; the
sectors it never reached are "not checked", never "ok", and its totals count the whole plan. A
--resume continues the same selection or is refused (exit 2); claiming a run is atomic, so two
resumes at once never both continue it, and a run still in progress is not claimed (exit 3).

Runs are stopped at an exact point by the test-only hook of millaudit-planted
(MILLAUDIT_TEST_STOP_AFTER_SECTORS=K: after K committed sectors, as if SIGINT arrived), not by
racing a signal against the run's speed. The shipped binary has no such hook."""
import json
import os
import re
import socket
import sqlite3
import subprocess
import time

import pytest

from conftest import reseal, validate_json

SECTORS = 28  # the 4-stone standard game
STOP = 10


def run(binary, *args, env=None, check=None):
    proc = subprocess.run([str(binary.path), *map(str, args)], capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **(env or {})))
    if check is not None:
        assert proc.returncode == check, f"{args}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def stopped(planted, db, store, *extra, k=STOP):
    """A verify run stopped after k committed sectors, as if interrupted by SIGINT."""
    return run(planted, "verify", db, "--audit", store, "--threads", "2", *extra,
               env={"MILLAUDIT_TEST_STOP_AFTER_SECTORS": str(k)}, check=130)


def sql(store, query, *args):
    con = sqlite3.connect(store)
    try:
        rows = con.execute(query, args).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    return db


@pytest.fixture(scope="module")
def whole(millaudit, game4):
    """An uninterrupted run: the plan's entries."""
    return json.loads(millaudit.run("verify", game4, "--json", check=0).stdout)["totals"]


def test_the_shipped_binary_has_no_stop_hook(millaudit, game4, tmp_path):
    store = tmp_path / "a.sqlite"
    proc = run(millaudit, "verify", game4, "--audit", store, "--quiet", env={"MILLAUDIT_TEST_STOP_AFTER_SECTORS": "1"},
               check=0)
    assert "verdict: verified" in proc.stdout


def test_an_interrupted_run_says_k_of_n_forever(millaudit, millaudit_planted, game4, whole, tmp_path):
    store = tmp_path / "a.sqlite"
    proc = stopped(millaudit_planted, game4, store, "--table")
    (k,), = sql(store, "SELECT count(*) FROM sector_results WHERE run_id = 1")
    assert STOP <= k < SECTORS
    # verify's own output: the unreached sectors are "not checked", none of them "ok"
    # the table at the end (the per-sector lines printed as sectors commit come before it)
    table = proc.stdout.split("\nsectors, children first:\n", 1)[1]
    lines = [l for l in table.splitlines() if l.startswith("std_")]
    assert len(lines) == SECTORS
    unreached = [l for l in lines if l.endswith("not checked")]
    assert len(unreached) == SECTORS - k
    assert all(l.rstrip().endswith(" ok") for l in lines if l not in unreached)
    recorded = {s for (s,) in sql(store, "SELECT sector FROM sector_results WHERE run_id = 1")}
    assert {l.split()[0] for l in unreached} == {l.split()[0] for l in lines} - recorded
    assert f"verdict: interrupted: {k} of {SECTORS} sectors checked" in proc.stdout
    assert f"of {whole['entries']:,} entries verified" in proc.stdout and "NOT verified" in proc.stdout

    # the same in JSON: the plan's entries, the unreached sectors not checked
    doc = json.loads(stopped(millaudit_planted, game4, tmp_path / "b.sqlite", "--json").stdout)
    validate_json("verify", doc)
    assert doc["verdict"] == "interrupted" and doc["exit"] == 130
    assert doc["totals"]["entries"] == whole["entries"]
    assert doc["totals"]["verified"] < whole["verified"]
    not_checked = [s for s in doc["sectors"] if s["status"] == "not-checked"]
    assert len(not_checked) == doc["totals"]["sectors_not_checked"] == SECTORS - k
    assert all(s["verified"] == 0 and s["entries"] > 0 for s in not_checked)

    def report_says_interrupted(continued):
        text = millaudit.run("report", "--audit", store, "--run", "1", "--format", "text", check=0).stdout
        head = f"verdict: interrupted: {k} of {SECTORS} sectors checked"
        assert head in text and "fully verified:" not in text
        assert text.count("not checked") >= SECTORS - k
        assert (f"continued by run {continued}" in text) == bool(continued)
        rep = json.loads(millaudit.run("report", "--audit", store, "--run", "1", "--format", "json", check=0).stdout)
        validate_json("report", rep)
        assert rep["verdict"]["state"] == "interrupted" and not rep["verdict"]["good"]
        assert rep["verdict"]["headline"].startswith(f"interrupted: {k} of {SECTORS} sectors checked")
        assert rep["totals"]["entries"] == whole["entries"] and rep["totals"]["sectors_not_checked"] == SECTORS - k
        assert rep["totals"]["verified"] < whole["verified"]
        assert rep["run"]["continued_by"] == (continued or None)
        assert sum(s["recorded_status"] == "not-checked" for s in rep["sectors"]) == SECTORS - k
        for fmt in ("md", "html"):
            out = millaudit.run("report", "--audit", store, "--run", "1", "--format", fmt, check=0).stdout
            assert f"interrupted: {k} of {SECTORS} sectors checked" in out and "not checked" in out
            assert "fully verified:" not in out
        listed = millaudit.run("runs", "list", "--audit", store, check=0).stdout
        row = next(l for l in listed.splitlines() if l.split()[:2] == ["1", "verify"])
        assert " interrupted " in row and f"(interrupted: {k} of {SECTORS} sectors checked" in row
        listed = json.loads(millaudit.run("runs", "list", "--audit", store, "--json", check=0).stdout)
        validate_json("runs-list", listed)
        runs = listed["runs"]
        assert runs[0]["status"] == "interrupted" and runs[0]["continued_by"] == (continued or None)
        assert runs[0]["planned_sectors"] == SECTORS and runs[0]["totals"]["sectors"] == k

    report_says_interrupted(None)
    # the resume is the proof; run 1 stays what it was
    proc = millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", check=0)
    assert "verdict: verified" in proc.stdout
    report_says_interrupted(2)
    assert millaudit.run("report", "--audit", store, "--run", "2", "--format", "text",
                         check=0).stdout.startswith("millaudit report: run 2")
    assert "fully verified:" in millaudit.run("report", "--audit", store, "--run", "2", check=0).stdout
    assert sql(store, "SELECT id, status, continued_by, resumed_from FROM runs ORDER BY id") == [
        (1, "interrupted", 2, None), (2, "ok", None, 1)]


def what_changed(text):
    return next(l for l in text.splitlines() if l.startswith("  what changed ")).split(None, 2)[2]


def test_sectors_an_interrupted_run_never_reached_are_not_called_new_faults(millaudit, millaudit_planted, game4,
                                                                            tmp_path):
    """After a verified night, a run stopped after K sectors proved less, which is worse, but found
    nothing wrong: its report names no fault among the sectors it did not reach."""
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", game4, "--audit", store, "--quiet", check=0)
    stopped(millaudit_planted, game4, store, "--quiet")
    line = what_changed(millaudit.run("report", "--audit", store, "--run", "2", check=0).stdout)
    assert re.fullmatch(r"since run 1 \(\d{4}-\d\d-\d\d \d\d:\d\d UTC, verified\): "
                        rf"{SECTORS - STOP} sectors not checked by this run \(no fault found: unproven\); "
                        r"verdict verified -> interrupted \(worse\)", line), line
    # the nightly gate still fails: a run that proved less is a regression
    proc = millaudit.run("runs", "regressions", "--audit", store, check=1)
    assert proc.stdout.count("not checked by this run") == SECTORS - STOP


def test_an_interrupted_run_over_a_fault_it_never_reached_is_not_verified(millaudit, millaudit_planted, tmp_path):
    """The reason item 4 matters: the sectors a stopped run never reached may hold wrong values."""
    db = tmp_path / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    store = tmp_path / "a.sqlite"
    stopped(millaudit_planted, db, store, "--quiet", k=3)
    reached = {s for (s,) in sql(store, "SELECT sector FROM sector_results")}
    assert "std_4_4_0_0" not in reached  # a big sector, checked late (children first)
    path = db / "std_4_4_0_0.mdb"
    data = bytearray(path.read_bytes())
    data[128 + 2 * 1000] ^= 0x01  # a depth one off (or a bad encoding): a discrepancy either way
    path.write_bytes(bytes(data))
    reseal(path)  # the producer's wrong value, not damage
    rep = millaudit.run("report", "--audit", store, "--run", "1", "--format", "json", check=0)
    verdict = json.loads(rep.stdout)["verdict"]
    assert verdict["state"] == "interrupted" and not verdict["good"]
    assert millaudit.run("verify", db, "--audit", store, "--resume", "--quiet").returncode == 1


def test_resume_takes_the_selection_of_the_run_it_continues(millaudit, millaudit_planted, game4, tmp_path):
    store = tmp_path / "a.sqlite"
    stopped(millaudit_planted, game4, store, "--quiet")
    proc = millaudit.run("verify", game4, "--audit", store, "--resume", "--sector", "3_3_0_0", check=2)
    # a usage error as every command says one (common/options.h): the reason, then the hint
    lines = proc.stderr.splitlines()
    assert len(lines) == 2 and "repeat the run's selection" in lines[0], proc.stderr
    assert lines[1] == "try 'millaudit verify --help'"
    # nothing was recorded and run 1 is still resumable
    assert sql(store, "SELECT id, status, continued_by FROM runs") == [(1, "interrupted", None)]
    millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", check=0)
    assert sql(store, "SELECT continued_by FROM runs WHERE id = 1") == [(2,)]

    # a run of named sectors is continued by the same sectors, in any order or spelling
    store = tmp_path / "b.sqlite"
    names = ["std_4_4_0_0", "3_4_1_0", "2_4_1_0"]
    stopped(millaudit_planted, game4, store, "--quiet", *[a for n in names for a in ("--sector", n)], k=1)
    millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", check=2)
    millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", "--sector", "4_4_0_0", check=2)
    proc = millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", "--sector", "2_4_1_0",
                         "--sector", "std_3_4_1_0", "--sector", "4_4_0_0", check=0)
    assert sql(store, "SELECT id, resumed_from FROM runs ORDER BY id") == [(1, None), (2, 1)]


def test_two_resumes_at_once_only_one_continues_the_run(millaudit, millaudit_planted, game4, tmp_path):
    store = tmp_path / "a.sqlite"
    stopped(millaudit_planted, game4, store, "--quiet")
    cmd = [str(millaudit.path), "verify", str(game4), "--audit", str(store), "--resume", "--quiet", "--threads", "1"]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 3], results
    loser = next(err for code, err in results if code == 3)
    assert re.search(r"no unfinished verify run|already continued|still in progress", loser), loser
    assert loser.count("\n") == 1
    resumers = sql(store, "SELECT id FROM runs WHERE resumed_from = 1")
    assert len(resumers) == 1
    assert sql(store, "SELECT continued_by FROM runs WHERE id = 1") == resumers


def test_a_run_in_progress_is_not_resumed(millaudit, millaudit_planted, game4, tmp_path):
    store = tmp_path / "a.sqlite"
    stopped(millaudit_planted, game4, store, "--quiet")
    (host,), = sql(store, "SELECT host FROM runs WHERE id = 1")
    assert host == socket.gethostname()
    # what a run looks like while it works: no end, its process alive on this host
    alive = subprocess.Popen(["sleep", "600"])
    try:
        sql(store, "UPDATE runs SET ended_at = NULL, status = NULL, pid = ? WHERE id = 1", alive.pid)
        proc = millaudit.run("verify", game4, "--audit", store, "--resume", check=3)
        assert proc.stderr.count("\n") == 1
        assert f"run 1 is still in progress (process {alive.pid} on {host})" in proc.stderr
    finally:
        alive.kill()
        alive.wait()
    # on another host only the heartbeat tells: a fresh one is a live run, a stale one a dead run
    sql(store, "UPDATE runs SET host = 'elsewhere', heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = 1")
    proc = millaudit.run("verify", game4, "--audit", store, "--resume", check=3)
    assert "still in progress (on elsewhere, last heartbeat" in proc.stderr
    assert sql(store, "SELECT count(*) FROM runs") == [(1,)]
    sql(store, "UPDATE runs SET heartbeat_at = '2020-01-01T00:00:00.000Z' WHERE id = 1")
    millaudit.run("verify", game4, "--audit", store, "--resume", "--quiet", check=0)
    assert sql(store, "SELECT status, continued_by FROM runs WHERE id = 1") == [("interrupted", 2)]


def test_a_live_run_of_this_host_is_not_resumed_even_when_its_heartbeat_counts_as_stale(millaudit, millaudit_planted,
                                                                                       game4, tmp_path):
    """A run records its own process: while it lives on this host, --resume refuses the run even
    with --stale-after 0 (which speaks of other hosts' runs), so one run is never checked twice at once."""
    store, ctl = tmp_path / "a.sqlite", tmp_path / "ctl"
    ctl.mkdir()
    env = dict(os.environ, MILLAUDIT_TEST_STEP="checked:std_3_3_0_0", MILLAUDIT_TEST_STEP_DIR=str(ctl))
    live = subprocess.Popen([str(millaudit_planted.path), "verify", str(game4), "--audit", str(store), "--threads", "1",
                             "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        while not (ctl / "paused").exists():
            assert live.poll() is None, live.communicate()
            time.sleep(0.01)
        proc = run(millaudit, "verify", game4, "--audit", store, "--resume", "--stale-after", "0", check=3)
        assert proc.stderr.splitlines() == [
            f"millaudit verify: {store}: run 1 is still in progress (process {live.pid} on {socket.gethostname()});"
            " nothing to resume"]
        assert sql(store, "SELECT count(*) FROM runs") == [(1,)]
    finally:
        (ctl / "resume").touch()
        live.communicate(timeout=600)
    assert live.returncode == 0
    assert sql(store, "SELECT status, continued_by FROM runs") == [("ok", None)]


def test_stale_after_tells_resume_when_a_run_of_another_host_is_dead(millaudit, millaudit_planted, game4, tmp_path):
    """verify --resume --stale-after S: a run another host left unfinished is dead once its heartbeat
    is S seconds old (the Slurm recipe passes 0 for a task requeued after its node failed,
    tests/integration/test_cluster.py); younger, it is still in progress and refused."""
    store = tmp_path / "a.sqlite"
    stopped(millaudit_planted, game4, store, "--quiet")
    sql(store, "UPDATE runs SET ended_at = NULL, status = NULL, host = 'node2',"
               " heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-120 seconds') WHERE id = 1")
    # two minutes without a heartbeat: alive by the default hour and by --stale-after 600
    for extra, limit in (([], 3600), (["--stale-after", "600"], 600)):
        proc = millaudit.run("verify", game4, "--audit", store, "--resume", *extra, check=3)
        assert "run 1 is still in progress (on node2, last heartbeat" in proc.stderr
        assert f"taken for dead after {limit} s" in proc.stderr
    assert sql(store, "SELECT count(*) FROM runs") == [(1,)]
    millaudit.run("verify", game4, "--audit", store, "--resume", "--stale-after", "60", "--quiet", check=0)
    assert sql(store, "SELECT status, continued_by FROM runs WHERE id = 1") == [("interrupted", 2)]
    # it only qualifies a resume; a negative age is no age
    proc = millaudit.run("verify", game4, "--audit", store, "--stale-after", "0", check=2)
    assert "--stale-after only tells --resume" in proc.stderr
    millaudit.run("verify", game4, "--audit", store, "--resume", "--stale-after", "-1", check=2)
    assert sql(store, "SELECT count(*) FROM runs") == [(2,)]


def test_an_interrupted_incremental_run_counts_carried_sectors_apart(millaudit, millaudit_planted, tmp_path):
    """Issue 41: an interrupted incremental run said "26 of 28 sectors checked" when 25 of them were
    carried over from an earlier run; a carried-over result was not checked by this run. Verify's
    verdict, the report and the runs list say "K of N sectors done (C checked, R carried over)"."""
    db = tmp_path / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=0)
    store = tmp_path / "a.sqlite"
    run(millaudit, "verify", db, "--audit", store, "--quiet", check=0)
    # std_2_3_1_0 changed: it and its parent std_2_2_1_1 are checked again, every other sector is
    # carried over (their files and their successors' files are unchanged); the run stops after
    # checking std_2_3_1_0
    from conftest import ROOT
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_2_3_1_0.mdb"), "--entry", "7",
                    "--depth-delta", "+1", "--reseal"], check=True, capture_output=True)
    proc = stopped(millaudit_planted, db, store, "--incremental", k=1)
    words = "interrupted: 6 of 7 sectors done (1 checked, 5 carried over)"
    assert f"verdict: {words} (" in proc.stdout, proc.stdout
    assert words in run(millaudit, "report", "--audit", store, check=0).stdout  # report exits 0 unless --check
    listed = run(millaudit, "runs", "list", "--audit", store, check=0).stdout
    assert f"({words})" in listed, listed
