"""Root causes first (issue 45): one wrong entry, one red line. On the 3-stone game:

  broken  entry 5 of std_3_3_0_0 made a draw, its parents left as the producer wrote them: the
          parents' entries that lead to it are propagated discrepancies (verify: a root sector and
          consequences);
  resolved the same wrong entry, its parents solved again from it, as a buggy solver would: they
          verify, but their values moved (diff and regressions: a root pair and consequences).

Each output names the sector holding the fault first and reports the rest once, under it; each
JUnit file fails one case per faulty sector, with a one-line message."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
import junit_util

INJECT = ROOT / "scripts" / "inject_fault.py"
ROOT_SECTOR = "std_3_3_0_0"


def inject(db, *args):
    subprocess.run([sys.executable, str(INJECT), str(db / f"{ROOT_SECTOR}.mdb"), *map(str, args)], check=True,
                   capture_output=True, text=True)


@pytest.fixture(scope="module")
def games(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("causes")
    good = base / "good"
    millaudit.run("solve", "--stones", 3, "--out", good, "--quiet", check=0)
    broken = base / "broken"
    shutil.copytree(good, broken)
    inject(broken, "--entry", 5, "--outcome", "draw", "--reseal")
    resolved = base / "resolved"
    shutil.copytree(broken, resolved)
    for f in resolved.glob("*.mdb"):
        if f.stem != ROOT_SECTOR:
            f.unlink()
    millaudit.run("solve", "--stones", 3, "--out", resolved, "--quiet", check=0)  # parents from the bad child
    return {"good": good, "broken": broken, "resolved": resolved, "base": base}


def test_verify_names_the_root_sector_first_and_groups_its_consequences(millaudit, games, tmp_path):
    xml = tmp_path / "v.xml"
    proc = millaudit.run("verify", games["broken"], "--threads", 2, "--junit", xml, check=1)
    doc = json.loads(millaudit.run("verify", games["broken"], "--threads", 2, "--json", check=1).stdout)
    roots = {s["sector"] for s in doc["sectors"] if s["roots"] > 0}
    consequences = {s["sector"] for s in doc["sectors"] if s["discrepancies"] and not s["roots"]}
    assert roots == {ROOT_SECTOR} and consequences
    out = proc.stdout
    # the faults, root sectors first with their first rows; the consequences in one line
    faults = out.split("\nthe fault, root sectors first:\n", 1)[1] if "the fault," in out else \
        out.split("\nfaults, root sectors first:\n", 1)[1]
    assert faults.startswith(f"{ROOT_SECTOR}: ")
    line = next(l for l in faults.splitlines() if "with propagated discrepancies only" in l)
    assert f"as a consequence of {ROOT_SECTOR}:" in line and all(name in line for name in consequences)
    assert out.rstrip().splitlines()[-1].endswith(f"; root sector: {ROOT_SECTOR}")  # the verdict names it
    assert "sectors, children first:" not in out  # the table only on request
    cases = {c["name"]: c for c in junit_util.load(xml)}
    assert junit_util.failing(cases.values()) == roots
    assert all("a consequence of std_3_3_0_0" in cases[name]["out"] for name in consequences)


def test_diff_names_a_and_b_and_proves_which_side_is_right(millaudit, games, tmp_path):
    xml = tmp_path / "d.xml"
    proc = millaudit.run("diff", games["resolved"], games["good"], "--threads", 2, "--junit", xml, check=1)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"A  {games['resolved']} (open format, 7 sector files)")
    assert lines[1].startswith(f"B  {games['good']} (open format, 7 sector files)")
    assert lines[2].startswith(f"{ROOT_SECTOR}: values differ: 1 of 169,626 positions (outcome 1); 1 at the root")
    # the position: both values, the side that is right, the proving turn, every turn on both sides
    assert "A says draw (0x8000), B says " in lines[4] and ": B is right: the turns give " in lines[4]
    assert lines[5].startswith("    proved by ") and lines[6].split() == ["turn", "A", "B"]
    doc = json.loads(millaudit.run("diff", games["resolved"], games["good"], "--json", check=1).stdout)
    by = {s["sector"]: s for s in doc["sectors"]}
    ex = by[ROOT_SECTOR]["examples"][0]
    assert ex["cause"] == "root" and ex["proof"]["right"] == "B" and ex["proof"]["b_agrees"] is True
    assert ex["proof"]["a_agrees"] is False and ex["proof"]["turn"] == ex["proof"]["turns"][0]["turn"]
    consequences = {s["sector"] for s in doc["sectors"] if s["cause"] == "consequence"}
    assert consequences and all(by[s]["consequence_of"] == [ROOT_SECTOR] for s in consequences)
    assert all(by[s]["roots"] == 0 and by[s]["propagated"] > 0 for s in consequences)
    assert doc["totals"]["root_sectors"] == 1 and doc["totals"]["consequence_sectors"] == len(consequences)
    # one line per set of causes, one line for the equal pairs, one JUnit failure
    line = next(l for l in lines if "only as a consequence of" in l)
    assert line.startswith(f"{len(consequences)} sector") and all(name in line for name in consequences)
    equal = 7 - 1 - len(consequences)
    assert f"{equal} sectors equal: identical files (open, same SHA-256) (" in proc.stdout
    assert sum(1 for l in lines if l.startswith("std_")) == 1  # by default: the root pair alone
    assert junit_util.failing(junit_util.load(xml)) == {ROOT_SECTOR}
    # --all: one line for every pair
    every = millaudit.run("diff", games["resolved"], games["good"], "--all", "--quiet", check=1).stdout
    named = {l.split(":")[0] for l in every.splitlines() if l.startswith("std_")}
    assert named == {p.stem for p in games["good"].glob("*.mdb")}


def test_diff_says_header_and_format_differences_in_words(millaudit, games, tmp_path):
    """A producer that only renames itself writes the same values: the diff says so in words."""
    renamed = tmp_path / "renamed"
    shutil.copytree(games["good"], renamed)
    for f in renamed.glob("*.mdb"):
        data = bytearray(f.read_bytes())
        data[32:64] = b"other-solver".ljust(32, b"\0")  # the producer name (docs/format.md §5)
        f.write_bytes(bytes(data))
    proc = millaudit.run("diff", renamed, games["good"], check=0)
    assert ("7 sectors equal: the same values, the files differ only in their headers: producer other-solver vs "
            "millaudit-solver (") in proc.stdout
    assert "7 sectors differ only in their headers: values agree" in proc.stdout
    assert "draw-class n/a" not in proc.stdout and "encoding 7" not in proc.stdout


def test_report_of_a_diff_run_names_b_and_its_root_pair(millaudit, games, tmp_path):
    store = tmp_path / "d.sqlite"
    millaudit.run("diff", games["resolved"], games["good"], "--audit", store, "--quiet", check=1)
    text = millaudit.run("report", "--audit", store, check=0).stdout
    assert "not recorded by the build that ran it" not in text  # the run knows its own B
    assert f"  B                  {games['good'].resolve()}" in text
    assert text.splitlines()[2] == f"  root pairs        {ROOT_SECTOR} (1 position at the root)"
    assert f"as a consequence  " in text and f"only as a consequence of {ROOT_SECTOR}" in text
    assert "proved by " in text


@pytest.fixture(scope="module")
def lask4(millaudit, tmp_path_factory):
    """Lasker's 4-stone game, solved: lask_1_3_2_0 and lask_3_1_0_2 read each other (a move without
    a placement swaps the sides), one unit of twins, and lask_2_2_1_1 sorts between them by stones
    and name."""
    db = tmp_path_factory.mktemp("lask4") / "db"
    millaudit.run("solve", "--variant", "lask", "--stones", 4, "--out", db, "--quiet", check=0)
    return db


def made_draws(lask4, tmp_path, entries):
    db = tmp_path / "lask4"
    shutil.copytree(lask4, db)
    for entry in entries:
        subprocess.run([sys.executable, str(INJECT), str(db / "lask_3_1_0_2.mdb"), "--entry", str(entry),
                        "--outcome", "draw", "--reseal"], check=True, capture_output=True, text=True)
    return db


def test_a_twin_sectors_wrong_entries_make_its_twin_a_consequence(millaudit, lask4, tmp_path):
    """Wrong entries of lask_3_1_0_2 are the roots; its twin's entries that lead to them are
    propagated: the twins are checked as one unit, classified once both discrepancy sets are known."""
    db = made_draws(lask4, tmp_path, (7, 13))  # two wins made draws
    doc = json.loads(millaudit.run("verify", db, "--threads", 1, "--json", check=1).stdout)
    found = {s["sector"]: (s["roots"], s["propagated"]) for s in doc["sectors"] if s["discrepancies"]}
    assert found["lask_3_1_0_2"] == (2, 0)
    twin = found["lask_1_3_2_0"]
    assert twin[0] == 0 and twin[1] > 0, found


def test_a_twin_checked_beside_an_unusable_twin_still_has_its_roots(millaudit, lask4, tmp_path):
    """lask_1_3_2_0, first of the unit by name, unusable (a truncated header): lask_3_1_0_2 is
    still checked, and its two entries that must hold no value made draws (symmetry-inconsistency,
    faults of the entries themselves) are counted and classified: two roots."""
    db = made_draws(lask4, tmp_path, (5, 11))
    (db / "lask_1_3_2_0.mdb").write_bytes((db / "lask_1_3_2_0.mdb").read_bytes()[:100])
    doc = json.loads(millaudit.run("verify", db, "--threads", 1, "--json", check=1).stdout)
    by = {s["sector"]: s for s in doc["sectors"]}
    assert by["lask_1_3_2_0"]["status"] == "unusable"
    s = by["lask_3_1_0_2"]
    assert (s["status"], s["discrepancies"], s["roots"], s["propagated"]) == ("discrepancies", 2, 2, 0)


def test_a_merge_keeps_a_bad_encoding_with_a_wrong_successor_a_root(millaudit, lask4, tmp_path):
    """Entry 55 of lask_1_3_2_0 leads to a wrong entry of its twin and so differs as a consequence;
    stored as bytes that are no value (0x8001, bad-encoding) it is a fault of its own, a root
    whatever its successors hold. The merge of two shards re-classifies every sector from the sets
    the shards recorded and must keep it a root: the merged counts are the single run's."""
    db = made_draws(lask4, tmp_path, (7, 13))
    subprocess.run([sys.executable, str(INJECT), str(db / "lask_1_3_2_0.mdb"), "--entry", "55", "--word", "0x8001",
                    "--reseal"], check=True, capture_output=True, text=True)
    verdict = "verdict: discrepancies found: 16 (3 roots, 13 propagated)"
    single = millaudit.run("verify", db, "--threads", 1, "--quiet", check=1).stdout
    assert f"{verdict}; root sectors: lask_1_3_2_0, lask_3_1_0_2" in single.splitlines()
    stores = [tmp_path / f"s{i}.sqlite" for i in range(2)]
    for i, store in enumerate(stores):
        proc = millaudit.run("verify", db, "--threads", 1, "--shard", f"{i}/2", "--audit", store, "--quiet")
        assert proc.returncode in (0, 1), proc.stderr  # a shard's sectors may hold no fault
    merged = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, check=1).stdout
    assert verdict in merged.splitlines()
