"""millaudit grade: a player's moves graded against a solved database.

A tiny external engine written here in Python (a random legal move) plays over the documented
line protocol; engines that break it (illegal move, garbage, timeout, crash, no handshake) fail
with one clear line, exit 3, and every move graded before is kept in the audit store, whose run is
marked "unusable". Built-in alpha-beta players, reproducibility by seed, games against the perfect
player, the HTML report and the usage errors are checked on real files."""
import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from conftest import validate_json


ENGINE = r'''
import os, random, signal, sys, time
random.seed(5)


def grader_pid():
    """The millaudit process that runs this engine (through sh -c): the nearest ancestor of that name."""
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        name, ppid = stat[stat.index("(") + 1:stat.rindex(")")], int(stat[stat.rindex(")") + 2:].split()[1])
        if name.startswith("millaudit"):
            return pid
        pid = ppid
    raise SystemExit("no millaudit ancestor")


behaviour, after = sys.argv[1], int(sys.argv[2])
moves, asked = [], 0
for line in sys.stdin:
    w = line.split()
    if not w:
        continue
    if w[0] == "millaudit-engine":
        if behaviour == "no-handshake":
            print("hello", flush=True)
            continue
        print("ready random-python", flush=True)
    elif w[0] == "moves":
        moves = w[1:]
    elif w[0] == "go":
        asked += 1
        if behaviour in ("sigint", "sigterm") and asked == after:
            # the signal reaches millaudit before this answer does: a known point, not a race
            os.kill(grader_pid(), signal.SIGINT if behaviour == "sigint" else signal.SIGTERM)
        elif asked > after:
            if behaviour == "illegal":
                print("move z9", flush=True)
            elif behaviour == "garbage":
                print("I resign", flush=True)
            elif behaviour == "timeout":
                time.sleep(60)
            elif behaviour == "crash":
                sys.exit(3)
        print("# logging is allowed", flush=True)
        print("move", random.choice(moves), flush=True)
    elif w[0] == "quit":
        break
'''


@pytest.fixture(scope="module")
def std3(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("grade") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    path = tmp_path_factory.mktemp("engine") / "engine.py"
    path.write_text(ENGINE)
    return lambda behaviour="random", after=10**9: f"cmd:{sys.executable} {path} {behaviour} {after}"


def validate(doc):
    validate_json("grade", doc)


def grade(millaudit, directory, *args, check=None):
    proc = millaudit.run("grade", directory, "--json", "--quiet", *args, check=check)
    doc = json.loads(proc.stdout) if proc.stdout.strip() else None
    if doc is not None:
        validate(doc)
    return doc, proc


def boards(audit, run):
    db = sqlite3.connect(audit)
    return [r[0] for r in db.execute("SELECT board FROM grade_moves WHERE run_id = ? ORDER BY seq", (run,))]


def test_random_python_engine_is_graded_and_recorded(millaudit, std3, engine, tmp_path):
    audit, html = tmp_path / "a.sqlite", tmp_path / "r.html"
    doc, proc = grade(millaudit, std3, "--player", engine(), "--positions", 60, "--seed", 3,
                      "--audit", audit, "--html", html, check=0)
    assert doc["status"] == "ok" and doc["exit"] == 0
    total = doc["total"]
    assert total["moves"] == 60 == total["optimal"] + total["depth-lost"] + total["blunder"]
    assert sum(g["moves"] for g in doc["by_phase"]) == 60
    assert sum(g["moves"] for g in doc["by_stones"]) == 60
    assert sum(g["moves"] for g in doc["by_value"]) == 60
    lo, hi = total["blunder_rate_ci95"]
    assert lo <= total["blunder_rate"] <= hi
    db = sqlite3.connect(audit)
    assert db.execute("SELECT kind, status FROM runs").fetchall() == [("grade", "ok")]
    assert db.execute("SELECT player, mode, seed, requested, graded, message FROM grade_runs").fetchone() == (
        engine()[0:], "positions", 3, 60, 60, None)
    classes = dict(db.execute("SELECT class, count(*) FROM grade_moves GROUP BY class").fetchall())
    assert classes.get("optimal", 0) == total["optimal"] and classes.get("blunder", 0) == total["blunder"]
    # every recorded move is one of the position's legal turns, per `millaudit probe`
    for board, sector, move in db.execute("SELECT board, sector, move FROM grade_moves LIMIT 10"):
        wf, bf = sector.split("_")[3:5]
        turns = json.loads(millaudit.run("probe", std3, board, f"wf={wf}", f"bf={bf}", "--json",
                                         check=0).stdout)["turns"]
        assert move in [t["turn"] for t in turns]
    page = html.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "</html>" in page
    for external in ("src=", "href=", "url(", "<script", "@import"):
        assert external not in page
    assert not list(tmp_path.glob("r.html.tmp.*"))


def test_same_seed_same_positions_for_every_player(millaudit, std3, tmp_path):
    audit = tmp_path / "a.sqlite"
    a, _ = grade(millaudit, std3, "--player", "ab:material:2", "--positions", 40, "--seed", 11,
                 "--audit", audit, check=0)
    b, _ = grade(millaudit, std3, "--player", "ab:material:2", "--positions", 40, "--seed", 11,
                 "--audit", audit, check=0)
    c, _ = grade(millaudit, std3, "--player", "random", "--positions", 40, "--seed", 11,
                 "--audit", audit, check=0)
    d, _ = grade(millaudit, std3, "--player", "random", "--positions", 40, "--seed", 12,
                 "--audit", audit, check=0)
    assert a["total"] == b["total"] and a["by_value"] == b["by_value"]
    assert boards(audit, 1) == boards(audit, 2) == boards(audit, 3)  # paired: same positions
    assert boards(audit, 4) != boards(audit, 1)


def test_games_against_the_perfect_player(millaudit, std3, tmp_path):
    audit = tmp_path / "a.sqlite"
    doc, _ = grade(millaudit, std3, "--player", "ab:mills+mobility:2", "--games", 4, "--seed", 2,
                   "--audit", audit, check=0)
    g = doc["games"]
    assert g["stones"] == 3 and g["played"] == 4
    assert g["player_wins"] + g["player_draws"] + g["player_losses"] == 4
    assert any(p["group"] == "placement" for p in doc["by_phase"])
    db = sqlite3.connect(audit)
    games = db.execute("SELECT DISTINCT game FROM grade_moves ORDER BY game").fetchall()
    assert games == [(0,), (1,), (2,), (3,)]
    # the player moves first in even games: ply parity follows
    parity = db.execute("SELECT DISTINCT game % 2, ply % 2 FROM grade_moves").fetchall()
    assert sorted(parity) == [(0, 0), (1, 1)]
    # in the 3-stone game the first player wins (the database says so): a perfect second player
    # never lets a losing first player... the first move is graded from the empty board
    first = db.execute("SELECT sector, board, value_outcome FROM grade_moves WHERE game = 0 AND ply = 0").fetchone()
    assert first == ("std_0_0_3_3", "-/-", "win")
    # the stored run renders the same report again, from its moves
    again = json.loads(millaudit.run("grade", "--audit", audit, "--run", 1, "--json", check=0).stdout)
    validate(again)
    for key in ("player", "mode", "seed", "requested", "games", "total", "by_phase", "by_stones", "by_value"):
        assert again[key] == doc[key], key
    html = tmp_path / "again.html"
    millaudit.run("grade", "--audit", audit, "--run", 1, "--html", html, check=0)
    assert "<svg" in html.read_text()
    assert "is no grade run" in millaudit.run("grade", "--audit", audit, "--run", 9, check=3).stderr


@pytest.mark.parametrize("behaviour,after,message", [
    ("illegal", 5, "illegal move 'z9'"),
    ("garbage", 5, "sent 'I resign', expected 'move <turn>'"),
    ("timeout", 5, "no answer within 0.5 s (timeout)"),
    ("crash", 5, "closed its output (exit status 3)"),
    ("no-handshake", 0, "expected 'ready [name]'"),
])
def test_engine_breaking_the_protocol(millaudit, std3, engine, tmp_path, behaviour, after, message):
    audit = tmp_path / "a.sqlite"
    # The message proves which path ended the game (a timeout names its 0.5 s); a hang would be
    # stopped by the harness, not judged by a wall-clock threshold here.
    proc = millaudit.run("grade", std3, "--player", engine(behaviour, after), "--positions", 30,
                         "--engine-timeout", 0.5, "--audit", audit, "--quiet", check=3)
    lines = proc.stderr.strip().split("\n")
    assert len(lines) == 1, proc.stderr
    assert message in lines[0] and "engine.py" in lines[0]
    if behaviour == "no-handshake":
        # the engine never got going: no run was begun, no store was created
        assert not audit.exists()
        return
    db = sqlite3.connect(audit)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert "position std" in lines[0]
    assert f"the {after} moves graded before are kept and recorded" in lines[0]
    assert db.execute("SELECT status, ended_at IS NOT NULL FROM runs").fetchone() == ("unusable", 1)
    graded, msg = db.execute("SELECT graded, message FROM grade_runs").fetchone()
    assert graded == after and message in msg
    assert db.execute("SELECT count(*) FROM grade_moves").fetchone() == (after,)
    # the report of the moves graded so far is printed too
    assert "positions: 5 of 30 graded" in proc.stdout


def test_interrupted_run_keeps_what_was_graded(millaudit_planted, std3, tmp_path):
    """The test build stops the run after K graded moves as if SIGINT came
    (MILLAUDIT_TEST_STOP_AFTER_MOVES, cli/test_hook.h): the stop is at a known point, not a race
    between a signal and the run's speed, so exactly K moves are kept."""
    k = 7
    audit = tmp_path / "a.sqlite"
    proc = subprocess.run([str(millaudit_planted.path), "grade", str(std3), "--player", "ab:mobility:2",
                           "--positions", "30", "--audit", str(audit), "--quiet"],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, MILLAUDIT_TEST_STOP_AFTER_MOVES=str(k)))
    err = proc.stderr
    assert proc.returncode == 130, err
    assert "interrupted" in err and err.count("\n") == 1, err
    assert f"interrupted after {k} graded moves" in err
    assert f"the {k} moves graded before are kept and recorded" in err
    db = sqlite3.connect(audit)
    assert db.execute("SELECT status, ended_at IS NOT NULL FROM runs").fetchone() == ("interrupted", 1)
    assert db.execute("SELECT graded FROM grade_runs").fetchone() == (k,)
    assert db.execute("SELECT count(*) FROM grade_moves").fetchone() == (k,)
    # the report of the moves graded so far is printed too
    assert f"positions: {k} of 30 graded" in proc.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_signal_stops_the_run_after_the_move_in_hand(millaudit, std3, engine, tmp_path, sig):
    """A real SIGINT/SIGTERM through the command's handler: the engine sends it to millaudit while
    asked for its k-th move and answers afterwards, so the signal is in before that answer; the move
    in hand is graded and kept, no further one is asked for: exactly k moves, exit 128 + signal."""
    k = 6
    audit = tmp_path / "a.sqlite"
    proc = millaudit.run("grade", std3, "--player", engine(sig.name.lower(), k), "--positions", 30,
                         "--audit", audit, "--quiet", check=128 + sig)
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"interrupted after {k} graded moves" in proc.stderr
    assert f"the {k} moves graded before are kept and recorded" in proc.stderr
    db = sqlite3.connect(audit)
    assert db.execute("SELECT status, ended_at IS NOT NULL FROM runs").fetchone() == ("interrupted", 1)
    assert db.execute("SELECT graded FROM grade_runs").fetchone() == (k,)
    assert db.execute("SELECT count(*) FROM grade_moves").fetchone() == (k,)


def test_malom_database(millaudit, malom_fixtures):
    doc, _ = grade(millaudit, malom_fixtures / "std-strong", "--player", "ab:material:1",
                   "--positions", 50, check=0)
    assert doc["format"] == "malom-sec" and doc["positions"]["sectors"] == 3
    assert doc["total"]["moves"] == 50


def test_usage_and_input_errors(millaudit_asan, std3, tmp_path):
    cases = [
        ((std3,), 2, "--player is required"),
        ((std3, "--player", "ab:material"), 2, "ab:EVAL:DEPTH"),
        ((std3, "--player", "ab:speed:2"), 2, "unknown term 'speed'"),
        ((std3, "--player", "human"), 2, "expected ab:EVAL:DEPTH"),
        ((std3, "--player", "random", "--positions", "0"), 2, "--positions"),
        ((std3, "--player", "random", "--positions", "5", "--games", "5"), 2, "exclude"),
        ((std3, "--player", "random", "--sector", "5_5_0_0"), 2, "not in the database"),
        ((std3, "--player", "random", "--engine-timeout", "0"), 2, "--engine-timeout"),
        ((tmp_path / "nowhere", "--player", "random"), 3, "nowhere"),
        ((std3, "--player", "cmd:/nonexistent/engine"), 3, "exit status 127"),
        ((std3, "--player", "random", "--positions", "3", "--html", tmp_path / "no" / "r.html"), 4, "r.html"),
    ]
    for args, code, text in cases:
        proc = millaudit_asan.run("grade", *args, "--quiet", check=code)
        ours = [l for l in proc.stderr.splitlines() if l.startswith("millaudit grade:")]
        # (an engine that cannot run: the shell's own complaint comes before ours)
        assert len(ours) == 1 and text in ours[0], (args, proc.stderr)
    # games need a whole game: a directory with only the movement sector has no start sector
    only = tmp_path / "only"
    only.mkdir()
    (only / "std_3_3_0_0.mdb").write_bytes((std3 / "std_3_3_0_0.mdb").read_bytes())
    proc = millaudit_asan.run("grade", only, "--player", "random", "--games", "1", check=3)
    assert "start sector" in proc.stderr
