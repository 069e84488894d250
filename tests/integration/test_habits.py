"""The habits of issue 45, point 5: what a solver developer meets in every command. Each test runs
the real binary on the 3-stone game (solved once here) and checks what a user would read."""
import json
import os
import re
import shutil
import sqlite3
import subprocess

import pytest

from conftest import ROOT, skip_unless
from test_install import complete  # bash completion as a user meets it



@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("habits") / "db"
    proc = millaudit.run("solve", "--stones", 3, "--out", out, "-j", 2, check=0)  # std by default, -j for --threads
    return out, proc


def test_solve_defaults_to_std_and_writes_counts_for_people(game):
    out, proc = game
    assert {p.name for p in out.glob("*.mdb")} >= {"std_3_3_0_0.mdb", "std_0_0_3_3.mdb"}
    lines = proc.stdout.splitlines()
    assert "std_3_3_0_0: 210,140 entries, 169,626 canonical, wins 140,621, draws 269, losses 28,736, max depth 26, " \
           in proc.stdout
    assert any(l.startswith("std_0_0_3_3: 1 entry, 1 canonical,") for l in lines)  # one entry, not "1 entries"
    assert "max depth -1" not in proc.stdout and lines[-1] == "start std_0_0_3_3: win in 23"


def test_solve_quiet_prints_the_start_value_only(millaudit, tmp_path):
    proc = millaudit.run("solve", "--stones", 3, "--out", tmp_path / "q", "--quiet", "--threads", 1, check=0)
    assert proc.stdout == "start std_0_0_3_3: win in 23\n" and proc.stderr == ""


def test_a_sector_without_wins_or_losses_says_all_draws(millaudit, tmp_path):
    """std 1_1_3_3 holds draws only (the 4-stone game): no 'max depth -1'."""
    proc = millaudit.run("solve", "--sector", "1_1_3_3", "--with-deps", "--out", tmp_path / "d", check=0)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("std_1_1_3_3: "))
    assert line.startswith("std_1_1_3_3: 92 entries, 46 canonical, wins 0, draws 46, losses 0, all draws, ")


@pytest.mark.parametrize("args,word,near", [
    (["manifest", "chek"], "action 'chek'", "'check'"),
    (["runs", "lst"], "subcommand 'lst'", "'list'"),
    (["attest", "creat"], "subcommand 'creat'", "'create'"),
])
def test_mistyped_actions_get_a_did_you_mean(millaudit, args, word, near):
    proc = millaudit.run(*args, check=2)
    cmd = args[0]
    assert proc.stderr == f"millaudit {cmd}: unknown {word}; did you mean {near}?\ntry 'millaudit {cmd} --help'\n"


def test_manifest_action_help_is_its_own(millaudit):
    create = millaudit.run("manifest", "create", "--help", check=0).stdout
    assert create.startswith("usage: millaudit manifest create DIR ")
    assert "manifest check" not in create and "manifest merge" not in create and "-j, --threads N" in create
    check = millaudit.run("manifest", "check", "--help", check=0).stdout
    assert check.startswith("usage: millaudit manifest check MANIFEST|- ") and "manifest create" not in check
    both = millaudit.run("manifest", "--help", check=0).stdout
    assert all(f"millaudit manifest {a} " in both for a in ("create", "check", "merge"))


def test_manifest_check_of_a_directory_names_the_manifest(millaudit, game, tmp_path):
    db = tmp_path / "m"
    shutil.copytree(game[0], db)
    proc = millaudit.run("manifest", "check", db, check=3)
    assert proc.stderr == (f"millaudit manifest check: {db} is a directory, not a manifest; its manifest would be "
                           f"{db}/MANIFEST.sha256 (none there: millaudit manifest create DIR writes it)\n")
    made = millaudit.run("manifest", "create", db, "--threads", 1, check=0)
    assert made.stdout == f"{db}/MANIFEST.sha256: 7 files, 529,694 bytes\n"  # thousands separators
    proc = millaudit.run("manifest", "check", db, check=3)
    assert f"did you mean 'millaudit manifest check {db}/MANIFEST.sha256'?" in proc.stderr


def test_report_help_points_at_the_runs_list(millaudit):
    text = millaudit.run("report", "--help", check=0).stdout
    assert "ids: millaudit runs," not in text and "'millaudit runs list --audit FILE'" in text
    assert "--sector S" in text and "65,536" in text


@pytest.mark.parametrize("cmd", [["verify", "{db}", "--sector", "2_2_1_1", "--quiet"],
                                 ["stats", "{db}", "--sector", "2_2_1_1"],
                                 ["diff", "{db}", "{db}", "--quiet"],
                                 ["manifest", "create", "{db}", "--out", "-"]])
def test_dash_j_is_threads(millaudit, game, cmd):
    db = str(game[0])
    args = [a.replace("{db}", db) for a in cmd]
    millaudit.run(*args, "-j", 2, check=0)
    millaudit.run(*args, "-j2", check=0)
    bad = millaudit.run(*args, "-j", 0, check=2)
    assert "--threads 0: not a number in 1.." in bad.stderr
    missing = millaudit.run(*args, "-j", check=2)
    assert "option '-j' needs a value" in missing.stderr


def test_clean_verify_ends_with_its_verdict_and_tables_fit_100_columns(millaudit, game):
    db = game[0]
    out = millaudit.run("verify", db, "-j", 2, check=0).stdout
    assert out.rstrip().splitlines()[-1] == "verdict: verified: all 264,399 entries of 7 sectors re-derived and matching"
    assert "sectors, children first" not in out
    assert "std_0_0_3_3: ok, 1 entry, 1 verified" in out  # one entry
    table = millaudit.run("verify", db, "-j", 2, "--table", check=0).stdout
    rows = table.split("sectors, children first:\n", 1)[1].split("\ntotal:", 1)[0].splitlines()
    assert len(rows) == 8 and rows[0].split() == ["sector", "entries", "verified", "discrep", "roots", "seconds",
                                                  "status"]
    assert all(len(l) <= 100 for l in rows) and "210,140" in rows[1]
    wide = millaudit.run("verify", db, "-j", 2, "--wide", check=0).stdout
    head = wide.split("sectors, children first:\n", 1)[1].splitlines()[0]
    assert head.split() == ["sector", "entries", "checked", "verified", "discrep", "roots", "propag", "bounds",
                            "missing", "unverif", "seconds", "status"]
    proc = millaudit.run("verify", db, "--quiet", "--table", check=2)
    assert "--quiet prints no per-sector output" in proc.stderr


def test_runs_list_and_counts_in_stores(millaudit, game, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", game[0], "--audit", store, "--quiet", "-j", 2, check=0)
    text = millaudit.run("runs", "list", "--audit", store, check=0).stdout
    assert text.endswith("\n1 run\n")  # not "1 runs"
    assert re.search(r"\s264,399\s", text)


def test_probe_flags_a_stored_value_its_best_turn_contradicts(millaudit, game, tmp_path):
    db = tmp_path / "p"
    shutil.copytree(game[0], db)
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_3_3_0_0.mdb"),
                    "--entry", "5", "--outcome", "draw", "--reseal"], check=True, capture_output=True,
                   env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    board = millaudit.run("dump", db / "std_3_3_0_0.mdb", "--with-entry", check=0).stdout
    line = next(l.split() for l in board.splitlines() if l.split()[0] == "5")
    proc = millaudit.run("probe", db, line[1], check=1)  # a discrepancy at this position: exit 1
    flag = proc.stdout.splitlines()[-1]
    assert flag.startswith("!! stored draw, but the best turn gives ")
    assert f"millaudit verify {db} --sector std_3_3_0_0 checks the whole sector" in flag
    doc = json.loads(millaudit.run("probe", db, line[1], "--json", check=1).stdout)
    assert doc["agrees"] is False and doc["rules"]["known"] and doc["no_turn"] is None
    good = json.loads(millaudit.run("probe", game[0], line[1], "--json", check=0).stdout)
    assert good["agrees"] is True and good["rules"]["text"] == good["stored"]["text"]


@pytest.fixture(scope="module")
def four(millaudit, tmp_path_factory):
    """std 4_4_0_0 with what it depends on: the sector of blocked positions (4 stones each)."""
    out = tmp_path_factory.mktemp("four") / "db"
    millaudit.run("solve", "--sector", "4_4_0_0", "--with-deps", "--out", out, "--quiet", check=0)
    return out


BLOCKED = "a1,d1,g1,b2/a4,d2,g4,b4"  # X's four stones are walled in by O's four


def test_probe_says_why_a_position_has_no_turn(millaudit, four, tmp_path):
    proc = millaudit.run("probe", four, BLOCKED, check=0)
    assert "no turn: blocked: none of X's 4 stones can move, so X has lost (loss 0)" in proc.stdout
    assert proc.stdout.rstrip().endswith("stored loss 0: what the rules give")
    # the planted bug blocked-not-lost stores a draw there: probe says the value is wrong
    db = tmp_path / "b"
    db.mkdir()
    shutil.copy(four / "std_4_4_0_0.mdb", db)
    for f in four.glob("*.mdb"):
        if not (db / f.name).exists():
            shutil.copy(f, db)
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_4_4_0_0.mdb"), "--board",
                    BLOCKED, "--outcome", "draw", "--reseal"], check=True, capture_output=True,
                   env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    proc = millaudit.run("probe", db, BLOCKED, check=1)
    assert proc.stdout.splitlines()[-1].startswith("!! stored draw, but the rules give loss 0")
    doc = json.loads(millaudit.run("probe", db, BLOCKED, "--json", check=1).stdout)
    assert doc["turns"] == [] and doc["no_turn"].startswith("blocked: ") and doc["agrees"] is False


def test_completion_after_help_and_sector(millaudit, game, tmp_path):
    assert "verify" in complete("millaudit help ", tmp_path) and "report" in complete("millaudit help re", tmp_path)
    assert complete("millaudit help ver", tmp_path) == ["verify"]
    # --sector with no database on the line yet: the sectors of the current directory
    got = complete("millaudit verify --sector std_2", game[0])
    assert got == ["std_2_2_1_1", "std_2_3_1_0"]
    # report --sector: the sectors the store recorded (read with sqlite3 when it is installed)
    skip_unless(shutil.which("sqlite3"), "sqlite3 not installed: report --sector completes nothing")
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", game[0], "--audit", store, "--quiet", check=0)
    with sqlite3.connect(store) as con:
        want = sorted(s for (s,) in con.execute("SELECT DISTINCT sector FROM sector_results"))
    assert complete(f"millaudit report --audit {store} --sector ", tmp_path) == want

