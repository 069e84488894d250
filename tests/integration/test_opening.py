"""millaudit opening: Gasser's opening proof from the movement sectors alone.

The producer solves whole games; the proof reads a copy holding only their movement sectors
(W_B_0_0) and must find the producer's stored start value; with the placement sectors present,
every position it resolves is compared and a planted wrong value is an "opening" discrepancy;
with a movement sector removed it says whether the value is still proven (Gasser's bounds)."""
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT, validate_json

MOVEMENT = re.compile(r"^std_(\d+)_(\d+)_0_0\.mdb$")


def solve(millaudit, stones, out):
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", stones, "--out", out, "--quiet", check=0)
    return out


def movement_only(src, dst, drop=()):
    dst.mkdir()
    for f in src.iterdir():
        m = MOVEMENT.match(f.name)
        if m and f"{m.group(1)}_{m.group(2)}_0_0" not in drop:
            shutil.copy(f, dst / f.name)
    return dst


def opening_json(millaudit, directory, stones, *args, check=None):
    proc = millaudit.run("opening", directory, "--variant", "std", "--stones", stones, "--json",
                         "--tt-mb", 16, *args, check=check)
    doc = json.loads(proc.stdout)
    validate(doc)
    return doc, proc


def validate(doc):
    validate_json("opening", doc)


@pytest.fixture(scope="module")
def games(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("opening")
    return {k: solve(millaudit, k, base / f"std{k}") for k in (3, 4)}


def probe_value(millaudit, directory, board, wf, bf):
    """The stored value of a position, as `millaudit probe` reads it."""
    doc = json.loads(millaudit.run("probe", directory, board, f"wf={wf}", f"bf={bf}", "--json",
                                   check=0).stdout)
    return doc["stored"]["text"]  # the stored value as data: outcome, depth, text


@pytest.mark.parametrize("stones,expected", [(3, "win 23"), (4, "draw")])
def test_start_value_from_movement_sectors_alone(millaudit, games, tmp_path, stones, expected):
    full = games[stones]
    stored = probe_value(millaudit, full, "-/-", stones, stones)
    assert stored == expected  # the producer's value, as the issue states (3: first-player win)
    only = movement_only(full, tmp_path / "movement")
    assert all(MOVEMENT.match(f.name) for f in only.iterdir())
    doc, proc = opening_json(millaudit, only, stones, check=0)
    assert doc["status"] == "proven"
    value = doc["value"]["outcome"] + (f" {doc['value']['depth']}" if doc["value"]["depth"] is not None else "")
    assert value == stored
    assert doc["passes"][0]["assumption"] == "exact"
    assert doc["nodes"] > 0 and doc["tt_probes"] >= doc["tt_hits"] > 0
    assert doc["unknown_leaves"] == 0 and doc["missing_sectors"] == ""
    assert doc["stored_start"] is None  # no placement sector in this copy
    assert doc["comparisons"]["exact_checked"] == 0
    # the principal variation is a legal line: replay it with probe, each turn from the list
    pv = doc["passes"][0]["pv"].split()
    assert len(pv) >= 2 * stones - 1
    # text output names the same value
    text = millaudit.run("opening", only, "--variant", "std", "--stones", stones, check=0).stdout
    assert f"value: {expected} (proven" in text
    assert "principal variation: " + doc["passes"][0]["pv"] in text


def test_principal_variation_replays_legally(millaudit, games):
    doc, _ = opening_json(millaudit, games[3], 3, check=0)
    moves = doc["passes"][0]["pv"].split()
    mover, opp, wf, bf = [], [], 3, 3
    for mv in moves:
        turns = json.loads(millaudit.run("probe", games[3],
                                         f"{','.join(mover) or '-'}/{','.join(opp) or '-'}",
                                         f"wf={wf}", f"bf={bf}", "--json", check=0).stdout)
        names = [t["turn"] for t in turns["turns"]]
        assert mv in names, (mv, names)
        to, _, removed = mv.partition("x")
        mover = mover + [to]
        if removed:
            opp = [p for p in opp if p != removed]
        mover, opp, wf, bf = opp, mover, bf, wf - 1
        if wf == 0 and bf == 0:
            break
    assert doc["passes"][0]["pv_end"].startswith("leaf std_3_3_0_0") or "reduction" in doc["passes"][0]["pv_end"]


def test_full_game_compares_every_resolved_placement_position(millaudit, games, tmp_path):
    audit = tmp_path / "a.sqlite"
    doc, proc = opening_json(millaudit, games[4], 4, "--audit", audit, check=0)
    assert doc["stored_start"].startswith("draw")
    cmp = doc["comparisons"]
    assert cmp["discrepancies"] == 0 and cmp["rows"] == []
    assert cmp["exact_checked"] + cmp["bound_checked"] > 1000
    assert all(s["exact_checked"] == s["exact_agreed"] and s["bound_checked"] == s["bound_agreed"]
               for s in cmp["sectors"])
    assert {s["sector"] for s in cmp["sectors"]} >= {"std_0_0_4_4", "std_0_1_4_3"}
    db = sqlite3.connect(audit)
    assert db.execute("SELECT kind, status, ended_at IS NOT NULL FROM runs").fetchall() == [("opening", "ok", 1)]
    row = db.execute("SELECT status, value_outcome, value_depth, nodes, passes, discrepancies "
                     "FROM opening_results").fetchone()
    assert row == ("proven", "draw", None, doc["nodes"], 1, 0)
    assert db.execute("SELECT count(*) FROM sector_results").fetchone()[0] == len(cmp["sectors"])
    # the files the proof read are recorded with their SHA-256
    files = {r[0] for r in db.execute("SELECT path FROM manifest_files")}
    assert "std_4_4_0_0.mdb" in files and "std_0_0_4_4.mdb" in files


def test_planted_wrong_value_is_an_opening_discrepancy(millaudit, games, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(games[3], bad)
    for f in bad.iterdir():
        f.chmod(0o644)
    # the first player's reply position after d2: the search resolves it exactly (it is on the
    # principal variation); make its stored loss two plies longer
    env = dict(os.environ, MILLAUDIT_BIN=str(millaudit.path))
    subprocess.run([sys.executable, ROOT / "scripts" / "inject_fault.py", bad / "std_0_1_3_2.mdb",
                    "--board=-/d2", "--depth-delta=+1", "--reseal"], check=True, env=env, capture_output=True)
    audit = tmp_path / "a.sqlite"
    doc, proc = opening_json(millaudit, bad, 3, "--audit", audit, check=1)
    assert doc["status"] == "proven" and doc["value"] == {"outcome": "win", "depth": 23}
    rows = doc["comparisons"]["rows"]
    assert len(rows) == 1
    assert rows[0]["sector"] == "std_0_1_3_2" and rows[0]["board"] == "-/d2"
    assert rows[0]["stored"].startswith("loss 24") and rows[0]["derived"] == "loss 22"
    assert doc["exit"] == 1
    db = sqlite3.connect(audit)
    assert db.execute("SELECT status FROM runs").fetchone() == ("discrepancies",)
    assert db.execute("SELECT sector, board, class, stored_outcome, stored_depth, derived_outcome, "
                      "derived_depth, derived_bound FROM discrepancies").fetchall() == [
        ("std_0_1_3_2", "-/d2", "opening", "loss", 24, "loss", 22, "exact")]
    assert db.execute("SELECT count FROM sector_class_counts WHERE class = 'opening'").fetchall() == [(1,)]
    text = millaudit.run("opening", bad, "--variant", "std", "--stones", 3, check=1).stdout
    assert "opening std_0_1_3_2 entry" in text and "stored loss 24" in text and "derived loss 22" in text
    # the proof from the movement sectors is untouched by a placement file: the value stays
    assert "value: win 23 (proven" in text
    # and --no-compare does not look
    millaudit.run("opening", bad, "--variant", "std", "--stones", 3, "--no-compare", check=0)


def test_removed_movement_sector_gassers_bounds(millaudit, games, tmp_path):
    full = games[4]
    # without 3_3_0_0 (reached only after two captures) the draw is still proven
    d1 = movement_only(full, tmp_path / "no33", drop={"3_3_0_0"})
    doc, _ = opening_json(millaudit, d1, 4, check=0)
    assert doc["status"] == "proven" and doc["value"]["outcome"] == "draw"
    assert [p["assumption"] for p in doc["passes"]] == ["pessimistic", "optimistic"]
    assert doc["unknown_leaves"] > 0 and doc["missing_sectors"] == "std_3_3_0_0"
    # without 4_4_0_0 (every leaf without a capture) it is not: exit 3, one line on stderr
    d2 = movement_only(full, tmp_path / "no44", drop={"4_4_0_0"})
    doc, proc = opening_json(millaudit, d2, 4, check=3)
    assert doc["status"] == "unproven" and doc["value"] is None
    assert doc["lower"]["outcome"] == "loss" and doc["upper"]["outcome"] == "win"
    assert doc["missing_sectors"] == "std_4_4_0_0"
    assert proc.stderr.count("\n") == 1 and "value not proven" in proc.stderr
    # --only-sectors simulates the same on the full directory, and the store says "unproven"
    audit = tmp_path / "b.sqlite"
    doc2, _ = opening_json(millaudit, full, 4, "--only-sectors", "3_3_0_0,3_4_0_0,4_3_0_0",
                           "--no-compare", "--audit", audit, check=3)
    assert (doc2["lower"], doc2["upper"]) == (doc["lower"], doc["upper"])
    db = sqlite3.connect(audit)
    assert db.execute("SELECT status FROM runs").fetchone() == ("unproven",)
    assert db.execute("SELECT status, only_sectors, missing_sectors FROM opening_results").fetchone() == (
        "unproven", "3_3_0_0,3_4_0_0,4_3_0_0", "std_4_4_0_0")


def test_leaf_entries_without_a_value_are_unknown_leaves(millaudit_asan, games, tmp_path):
    only = movement_only(games[3], tmp_path / "bad")
    path = only / "std_3_3_0_0.mdb"
    path.chmod(0o644)
    data = bytearray(path.read_bytes())
    for i in range(128, len(data), 2):  # every value word becomes "win 2": a bad encoding
        if data[i] or data[i + 1]:
            data[i:i + 2] = b"\x02\xc0"
    data[80:112] = hashlib.sha256(bytes(data[128:])).digest()  # so written by its producer
    path.write_bytes(bytes(data))
    proc = millaudit_asan.run("opening", only, "--variant", "std", "--stones", 3, "--json", check=3)
    doc = json.loads(proc.stdout)
    assert doc["status"] == "unproven" and doc["unknown_leaves"] > 0 and doc["missing_sectors"] == ""
    assert proc.stderr.count("\n") == 1
    assert "leaf entries without a value" in proc.stderr and "std_3_3_0_0" in proc.stderr
    assert "offset" in proc.stderr and "bad 0xC002" in proc.stderr


def test_morabaraba(millaudit, tmp_path):
    d = tmp_path / "mora3"
    d.mkdir()
    millaudit.run("solve", "--variant", "mora", "--stones", 3, "--out", d, "--quiet", check=0)
    proc = millaudit.run("opening", d, "--variant", "mora", "--stones", 3, "--json", check=0)
    doc = json.loads(proc.stdout)
    validate(doc)
    assert doc["status"] == "proven" and doc["stored_start"].startswith("win 9")
    assert doc["value"] == {"outcome": "win", "depth": 9}
    assert doc["comparisons"]["discrepancies"] == 0 and doc["comparisons"]["exact_checked"] > 0


def test_malom_movement_sectors_prove_the_three_stone_game(millaudit, malom_fixtures):
    d = malom_fixtures / "std-strong"
    doc, _ = opening_json(millaudit, d, 3, check=0)
    assert doc["status"] == "proven" and doc["value"] == {"outcome": "win", "depth": 23}
    # the 4-stone game needs 4_4_0_0, which the fixture lacks
    doc, _ = opening_json(millaudit, d, 4, check=None)
    assert doc["missing_sectors"] == "std_4_4_0_0" and len(doc["passes"]) == 2


def test_usage_and_input_errors(millaudit, millaudit_asan, games, tmp_path):
    d = games[3]
    cases = [
        ((d, "--variant", "std"), 2, "--stones"),
        ((d, "--stones", "3"), 2, "--variant"),
        ((d, "--variant", "lask", "--stones", "3"), 2, "finite"),
        ((d, "--variant", "std", "--stones", "10"), 2, "9 stones"),
        ((d, "--variant", "std", "--stones", "3", "--tt-mb", "0"), 2, "--tt-mb"),
        ((d, "--variant", "std", "--stones", "3", "--only-sectors", "1_1_2_2"), 2, "movement sector"),
        ((d, "--variant", "std", "--stones", "3", "--only-sectors", "3-3"), 2, "W_B_WF_BF"),
        ((d, "--variant", "std", "--stones", "3", "--bogus"), 2, "--bogus"),
        ((tmp_path / "nowhere", "--variant", "std", "--stones", "3"), 3, "nowhere"),
        ((d, "--variant", "mora", "--stones", "3"), 3, "no mora sector"),
    ]
    for args, code, text in cases:
        proc = millaudit_asan.run("opening", *args, check=code)
        assert text in proc.stderr, (args, proc.stderr)
        # a usage error: its line and the hint line (common/options.h); bad input: one line
        assert proc.stderr.count("\n") == (2 if code == 2 else 1), proc.stderr
    # an unusable movement sector file is named (file, sector, offset) and nothing is proven
    broken = tmp_path / "broken"
    shutil.copytree(d, broken)
    (broken / "std_3_3_0_0.mdb").chmod(0o644)
    with open(broken / "std_3_3_0_0.mdb", "r+b") as f:
        f.truncate(1000)
    proc = millaudit_asan.run("opening", broken, "--variant", "std", "--stones", "3", check=3)
    assert "std_3_3_0_0" in proc.stderr and "offset" in proc.stderr
    assert millaudit.run("opening", "--help", check=0).stdout.startswith("usage: millaudit opening")
