"""millaudit probe: stored values of the malom-test-vectors.tsv positions in several symmetric
forms, best turn agreeing with the stored value, open-format directories, and the
position-by-position cross-check of the producer against Malom's std-strong files."""
import csv
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SHARED

TSV = SHARED / "docs" / "malom-test-vectors.tsv"

# Two symmetries of the board: mirror left-right (columns a..g) and top-bottom (rows 1..7).
COLS = "abcdefg"


def mirror_lr(points):
    return [COLS[6 - COLS.index(p[0])] + p[1] for p in points]


def mirror_tb(points):
    return [p[0] + str(8 - int(p[1])) for p in points]


def fmt(mover, opp, wf, bf):
    return f"{','.join(mover) or '-'}/{','.join(opp) or '-'} wf={wf} bf={bf}"


def vectors():
    with open(TSV) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [r for r in rows if r["variant"] == "std" and r["key1"] not in ("", "NA")]


def split(points):
    return [] if points == "-" else points.split(",")


def probe(bin_, d, *args, check=0):
    return json.loads(bin_.run("probe", d, *args, "--json", check=check).stdout)


# Sectors whose successors are all in original-excerpt (so the best turn must equal the value).
FULL = {"3_3_0_0", "2_2_7_7", "1_2_8_7", "1_1_8_8", "0_1_9_8", "0_0_9_9"}


@pytest.mark.parametrize("row", [r for r in vectors() if r["sector"] in FULL],
                         ids=lambda r: f"{r['sector']}:{r['index']}")
def test_tsv_vector(millaudit, malom_fixtures, row):
    d = malom_fixtures / "original-excerpt"
    w, b, wf, bf = row["sector"].split("_")
    mover, opp = split(row["white_points"]), split(row["black_points"])
    forms = [fmt(mover, opp, wf, bf), fmt(list(reversed(mover)), opp, wf, bf),
             fmt(mirror_lr(mover), mirror_lr(opp), wf, bf),
             fmt(mirror_tb(mover), mirror_tb(opp), wf, bf),
             fmt(split(row["canon_white_points"]), split(row["canon_black_points"]), wf, bf)]
    want = f"(key1 {row['key1']}, key2 {row['key2']})"
    for form in forms:
        doc = probe(millaudit, d, "--variant", "std", *form.split())
        assert doc["sector"] == row["sector"]
        assert doc["entry"] == int(row["index"]), form
        stored = doc["stored"]
        assert stored["text"].endswith(want), (form, stored)
        assert (stored["key1"], stored["key2"]) == (int(row["key1"]), int(row["key2"]))
        outcome = {"W": "win", "L": "loss", "D": "draw"}[row["wdl"]]
        assert stored["outcome"] == outcome and stored["known"]
        best = doc["turns"][0]["value"]
        assert best["known"]
        # §6: the stored value is the best turn's value (Count entries: only "draw" is fixed).
        if row["key1"] != "0":
            assert best["text"] == stored["text"].split(" (key1")[0], doc["turns"][:3]
            assert (best["outcome"], best.get("depth")) == (outcome, stored.get("depth"))
        else:
            assert best["outcome"] == "draw"


def test_text_output_row25(millaudit, malom_fixtures):
    p = millaudit.run("probe", malom_fixtures / "std-strong", "a4,a7,a1/b4,b6,b2", check=0)
    assert "sector std_3_3_0_0" in p.stdout
    assert "entry 4073: win 3" in p.stdout
    lines = p.stdout.splitlines()
    first_turn = lines[3].split()
    assert first_turn[1:] == ["win", "3"]
    assert re.fullmatch(r"[a-g][1-7]-[a-g][1-7]", first_turn[0])


def test_removal_notation(millaudit, malom_fixtures):
    # Placement phase with a mill to close: d1 completes a1-d1-g1 and removes a stone.
    doc = probe(millaudit, malom_fixtures / "original-excerpt", "--variant", "std",
                "a1,g1/b4,b6", "wf=7", "bf=7")
    turns = {t["turn"] for t in doc["turns"]}
    assert {"d1xb4", "d1xb6"} <= turns
    assert "d1" not in turns
    assert all(re.fullmatch(r"[a-g][1-7](x[a-g][1-7])?", t) for t in turns)


def test_bad_position(millaudit, malom_fixtures):
    d = malom_fixtures / "std-strong"
    millaudit.run("probe", d, "a1,a1/b2", check=2)
    millaudit.run("probe", d, "a1,z9/b2", check=2)
    millaudit.run("probe", d, "a1/b2", "wf=x", check=2)
    # A sector whose file is not in DIR: unusable input, named.
    p = millaudit.run("probe", d, "a1,d1,g1/b2,d2,f2", "wf=1", "bf=1", check=3)
    assert "std_3_3_1_1.sec" in p.stderr and "sector std_3_3_1_1" in p.stderr
    assert "sector file absent" in p.stderr and p.stderr.count("\n") == 1
    # A sector the variant does not have is the user's mistake.
    p = millaudit.run("probe", d, "a1/b2", "wf=9", "bf=9", check=2)
    assert "not a sector of std" in p.stderr


@pytest.fixture(scope="module")
def solved(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("solved")
    for s in ("3_4_0_0", "4_3_0_0"):
        millaudit.run("solve", "--variant", "std", "--sector", s, "--with-deps", "--out", out,
                      "--quiet", check=0)
    return out


def test_probe_open_directory(millaudit, solved):
    doc = probe(millaudit, solved, "a4,a7,a1/b4,b6,b2")
    assert doc["format"] == "open" and doc["sector"] == "3_3_0_0"
    assert doc["stored"] == {"known": True, "outcome": "win", "depth": 3, "text": "win 3"}
    assert doc["turns"][0]["value"] == {"known": True, "outcome": "win", "depth": 3, "text": "win 3"}
    assert doc["offset"] == 128 + 2 * doc["entry"] and doc["errors"] == [] and doc["exit"] == 0


@pytest.mark.parametrize("sector", ["3_3_0_0", "3_4_0_0", "4_3_0_0"])
def test_producer_agrees_with_malom_position_by_position(millaudit, malom_fixtures, solved, sector):
    dump = millaudit.run("dump", solved / f"std_{sector}.mdb", check=0).stdout
    open_lines = [l for l in dump.splitlines() if l and not l.startswith("#")]
    assert len(open_lines) > 100000
    boards = "\n".join(l.split()[0] for l in open_lines) + "\n"
    p = millaudit.run("probe", malom_fixtures / "std-strong", "--stdin", input=boards, check=0)
    malom_lines = p.stdout.splitlines()
    assert len(malom_lines) == len(open_lines)
    diffs = [(a, b) for a, b in zip(open_lines, malom_lines) if a != b]
    assert diffs == []


def test_wins_by_reduction_are_listed(millaudit, malom_fixtures):
    # Black has 3 stones: closing a1-d1-g1 (a7 flies to g1) or a1-a4-a7 (d1 flies to a4) wins
    # at once, one turn per removable stone.
    doc = probe(millaudit, malom_fixtures / "std-strong", "a1,d1,a7/b2,b4,b6")
    assert (doc["stored"]["outcome"], doc["stored"]["depth"]) == ("win", 1)
    best = [t for t in doc["turns"] if t["value"]["text"] == "win 1"]
    assert {t["turn"] for t in best} == {f"{m}x{r}" for m in ("a7-g1", "d1-a4")
                                         for r in ("b2", "b4", "b6")}
    assert doc["turns"][:6] == best


def test_stdin_rejects_bad_line(millaudit, malom_fixtures):
    p = millaudit.run("probe", malom_fixtures / "std-strong", "--stdin",
                      input="a1,d1,a7/b2,b4,b6\nnot-a-board\n", check=2)
    assert p.stdout.splitlines() == ["a1,d1,a7/b2,b4,b6 win 1"]


def test_unusable_files_are_named_not_absent(millaudit_asan, solved, tmp_path):
    """A successor's file that is there but broken is named (exit 3) and its turns are unknown,
    not "absent"; the probed sector's own file as a FIFO is named as such and never opened."""
    d = tmp_path / "db"
    d.mkdir()
    for f in solved.glob("*.mdb"):
        (d / f.name).write_bytes(f.read_bytes())
    data = (d / "std_3_3_0_0.mdb").read_bytes()
    (d / "std_3_3_0_0.mdb").write_bytes(data[:-2])
    # 3 against 4 stones: closing a mill (a7 flies to d1, or g1 to a4) removes d2 (b2, b4, b6
    # stand in a mill), into 3_3_0_0.
    p = millaudit_asan.run("probe", d, "a1,g1,a7/b2,b4,b6,d2", "--json", check=3)
    doc = json.loads(p.stdout)
    assert len(doc["errors"]) == 1 and "std_3_3_0_0.mdb" in doc["errors"][0]
    assert p.stderr.count("\n") == 1 and "std_3_3_0_0.mdb" in p.stderr
    unknown = {t["turn"] for t in doc["turns"] if not t["value"]["known"]}
    assert unknown == {"a7-d1xd2", "g1-a4xd2"}
    assert all("std_3_3_0_0 unusable" in t["value"]["why"] for t in doc["turns"]
               if not t["value"]["known"])
    assert doc["turns"][-1]["turn"] in unknown  # unknown values last
    (d / "std_3_4_0_0.mdb").unlink()
    os.mkfifo(d / "std_3_4_0_0.mdb")
    p = millaudit_asan.run("probe", d, "a1,g1,a7/b2,b4,b6,d2", check=3, timeout=60)
    assert "std_3_4_0_0.mdb" in p.stderr and "FIFO" in p.stderr and "absent" not in p.stderr


def test_entry_without_value_exits_1(millaudit, solved, tmp_path):
    d = tmp_path / "db"
    d.mkdir()
    for f in solved.glob("*.mdb"):
        (d / f.name).write_bytes(f.read_bytes())
    entry = probe(millaudit, d, "a4,a7,a1/b4,b6,b2")["entry"]
    data = bytearray((d / "std_3_3_0_0.mdb").read_bytes())
    data[128 + 2 * entry: 130 + 2 * entry] = (0xC000).to_bytes(2, "little")  # win in 0: no value
    data[80:112] = hashlib.sha256(bytes(data[128:])).digest()  # written so by its producer
    (d / "std_3_3_0_0.mdb").write_bytes(bytes(data))
    doc = probe(millaudit, d, "a4,a7,a1/b4,b6,b2", check=1)
    assert doc["stored"]["known"] is False and doc["stored"]["outcome"] is None
    assert "0xC000" in doc["stored"]["text"] and doc["exit"] == 1
    p = millaudit.run("probe", d, "--stdin", input="a4,a7,a1/b4,b6,b2\n", check=0)
    assert p.stdout == "a1,a4,a7/b2,b4,b6 bad 0xc000\n" or p.stdout.endswith(" bad 0xc000\n")


INJECT = ROOT / "scripts" / "inject_fault.py"


def test_a_stored_value_better_than_the_rules_give_does_not_agree(millaudit, solved, tmp_path):
    """A loss stored as a draw, which ranks above a loss for the mover: the probe shows the rules'
    loss and says the two disagree (a comparison of outcomes by rank would take the draw for one)."""
    board = next(l.split()[0] for l in millaudit.run("dump", solved / "std_3_3_0_0.mdb").stdout.splitlines()
                 if not l.startswith("#") and l.split()[1] == "loss")
    d = shutil.copytree(solved, tmp_path / "db")
    good = probe(millaudit, d, board)
    assert good["agrees"] is True and good["rules"]["outcome"] == "loss"
    subprocess.run([sys.executable, INJECT, d / "std_3_3_0_0.mdb", "--board", board, "--outcome", "draw",
                    "--reseal"], check=True, capture_output=True, env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    doc = probe(millaudit, d, board, check=1)
    assert doc["stored"]["outcome"] == "draw" and doc["rules"]["outcome"] == "loss"
    assert doc["agrees"] is False and doc["exit"] == 1
