"""millaudit verify on real databases written by the reference producer.

The producer (solver/) and the checker (verifier/check/, verifier/run/, indexer/, verifier/formats/) share no code, so a whole
game verifying with zero discrepancies is agreement between two independent implementations of
docs/format.md. The failing side of every claim is in test_faults.py and test_mutations.py.
"""
import json
import re
import shutil
import sqlite3
import struct
import subprocess

import pytest

from conftest import ROOT

HEADER = 128

# a row of `verify --wide` (every column; counts with thousands separators)
ROW = re.compile(r"^(?P<sector>(std|lask|mora)_\d+_\d+_\d+_\d+)\s+(?P<entries>[\d,]+)\s+(?P<checked>[\d,]+)\s+"
                 r"(?P<verified>[\d,]+)\s+(?P<discrep>[\d,]+)\s+(?P<roots>[\d,]+)\s+(?P<propag>[\d,]+)\s+"
                 r"(?P<bounds>[\d,]+)\s+(?P<missing>[\d,]+)\s+(?P<unverif>[\d,]+)\s+(?P<seconds>[\d.]+)\s+(?P<status>\S+)$",
                 re.M)


def solve(millaudit, variant, stones, out, *extra):
    out.mkdir(parents=True, exist_ok=True)
    millaudit.run("solve", "--variant", variant, "--stones", stones, "--out", out, "--quiet", *extra,
                  check=0)
    return out


def copy_game(src, dst):
    shutil.copytree(src, dst)
    return dst


def read_words(path):
    data = path.read_bytes()
    count = struct.unpack_from("<Q", data, 24)[0]
    return list(struct.unpack_from(f"<{count}H", data, HEADER))


def verify_json(millaudit, directory, *args, check=None):
    proc = millaudit.run("verify", directory, "--json", *args, check=check)
    return proc, json.loads(proc.stdout)


def sector_rows(stdout):
    """The rows of `verify --wide`, counts without their separators."""
    return {m["sector"]: {k: v.replace(",", "") for k, v in m.groupdict().items()} for m in ROW.finditer(stdout)}


@pytest.fixture(scope="module")
def games(millaudit, tmp_path_factory):
    """Whole games solved once per module: std 3 and 4 stones, lask 3, mora 3."""
    base = tmp_path_factory.mktemp("games")
    return {(v, k): solve(millaudit, v, k, base / f"{v}{k}")
            for v, k in (("std", 3), ("std", 4), ("lask", 3), ("mora", 3))}


@pytest.mark.parametrize("variant,stones", [("std", 3), ("std", 4), ("lask", 3), ("mora", 3)])
def test_whole_game_verifies_with_zero_discrepancies(millaudit, games, variant, stones):
    directory = games[(variant, stones)]
    files = sorted(p.name for p in directory.glob("*.mdb"))
    proc = millaudit.run("verify", directory, "--wide", check=0)
    rows = sector_rows(proc.stdout)
    assert sorted(f"{name[:-4]}" for name in files) == sorted(rows), "every sector file is checked"
    for name, row in rows.items():
        assert row["status"] == "ok", name
        assert row["entries"] == row["checked"] == row["verified"], name
        assert row["discrep"] == row["missing"] == row["unverif"] == "0", name
    # counts with thousands separators, as the reports print them
    total = re.search(r"^total: ([\d,]+) sectors \([\d,]+ checked, 0 carried over, 0 unusable\), ([\d,]+) entries, "
                      r"[\d.]+ s\n +([\d,]+) verified, 0 discrepancies \(0 roots, 0 propagated\)$", proc.stdout, re.M)
    assert total and total.group(2) == total.group(3)
    assert int(total.group(1)) == len(files)
    # the file sizes agree with the entry counts the checker reports
    entries = sum((directory / f).stat().st_size - HEADER for f in files) // 2
    assert int(total.group(2).replace(",", "")) == entries


def test_json_summary_and_threads_agree(millaudit, games):
    directory = games[("std", 3)]
    _, one = verify_json(millaudit, directory, "--threads", "1", check=0)
    _, two = verify_json(millaudit, directory, "--threads", "2", check=0)
    assert one["database"]["variants"] == ["std"] and one["exit"] == 0 and one["errors"] == []
    assert one["database"]["format"] == "open" and one["verdict"] == "verified"
    assert one["totals"]["verified"] == one["totals"]["entries"] > 0
    assert one["totals"]["discrepancies"] == 0
    strip = lambda doc: [{k: v for k, v in s.items() if k != "seconds"} for s in doc["sectors"]]
    assert strip(one) == strip(two)
    # children are checked before their parents: 3_3_0_0 (no children) first, the start last
    names = [s["sector"] for s in one["sectors"]]
    assert names[0] == "std_3_3_0_0" and names[-1] == "std_0_0_3_3"
    for s in one["sectors"]:
        assert 0 < s["canonical"] <= s["entries"]


def test_named_sector_uses_children_without_checking_them(millaudit, games):
    directory = games[("std", 3)]
    proc = millaudit.run("verify", directory, "--sector", "2_3_1_0", "--sector", "std_2_2_1_1", "--wide", check=0)
    rows = sector_rows(proc.stdout)
    assert set(rows) == {"std_2_3_1_0", "std_2_2_1_1"}
    # every entry of 2_3_1_0: rep_count(2) * C(22, 3) = 30 * 1540 = 46200 (docs/format.md §4.3)
    assert rows["std_2_3_1_0"]["verified"] == "46200"


def test_named_sector_with_absent_child_is_input_unusable(millaudit, games, tmp_path):
    directory = tmp_path / "excerpt"
    directory.mkdir()
    shutil.copy(games[("std", 3)] / "std_2_3_1_0.mdb", directory)
    proc = millaudit.run("verify", directory, "--wide", check=3)
    assert re.search(r"std_2_3_1_0\.mdb: sector std_2_3_1_0: successor sector file "
                     r"std_3_3_0_0\.mdb \(absent\); [\d,]+ entr(?:y|ies) not verified", proc.stderr)
    row = sector_rows(proc.stdout)["std_2_3_1_0"]
    assert row["status"] == "incomplete"
    assert int(row["missing"]) > 0
    # 46200 = the sector's entry count, rep_count(2) * C(22, 3) = 30 * 1540 (docs/format.md §4.3)
    assert int(row["verified"]) + int(row["missing"]) == 46200
    assert int(row["verified"]) < 46200


def test_named_sector_over_a_successor_holding_a_bad_encoding_is_not_verified(millaudit, games, tmp_path):
    """A successor entry holding no value (0x0000 at a canonical entry, the file resealed as its
    producer would) leaves the parent entries that reach it unverifiable: a run of the parent alone
    says incomplete and exits 3, never "verified: all entries re-derived"."""
    directory = tmp_path / "db"
    copy_game(games[("std", 3)], directory)
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(directory / "std_3_3_0_0.mdb"),
                    "--entry", "5000", "--word", "0", "--reseal"], check=True, capture_output=True)
    proc = millaudit.run("verify", directory, "--sector", "std_2_3_1_0", "--wide", check=3)
    row = sector_rows(proc.stdout)["std_2_3_1_0"]
    assert row["status"] == "incomplete"
    assert int(row["verified"]) == 46198
    assert "std_2_3_1_0: 2 entries not verified: a successor holds a bad encoding" in proc.stderr
    assert "verdict: incomplete" in proc.stdout and "verdict: verified" not in proc.stdout


def test_audit_records_the_run_and_every_sector(millaudit, games, tmp_path):
    db = tmp_path / "audit.sqlite"
    directory = games[("lask", 3)]
    millaudit.run("verify", directory, "--audit", db, "--quiet", check=0)
    con = sqlite3.connect(db)
    run = con.execute("SELECT kind, tool_version, git_revision, host, command_line, database_root, "
                      "variant, status, ended_at FROM runs").fetchall()
    assert len(run) == 1
    kind, version, rev, host, cmdline, root, variant, status, ended = run[0]
    assert (kind, variant, status) == ("verify", "lask", "ok")
    assert version and rev and host and ended
    assert "verify" in cmdline and "--audit" in cmdline
    assert root == str(directory.resolve())
    sectors = con.execute("SELECT sector, entries, checked, verified, discrepancies, status "
                          "FROM sector_results").fetchall()
    assert len(sectors) == len(list(directory.glob("*.mdb")))
    for name, entries, checked, verified, disc, st in sectors:
        assert entries == checked == verified and disc == 0 and st == "ok", name
    assert con.execute("SELECT COUNT(*) FROM discrepancies").fetchone()[0] == 0


def test_usage_errors(millaudit, games):
    millaudit.run("verify", check=2)
    millaudit.run("verify", games[("std", 3)], "--threads", "0", check=2)
    millaudit.run("verify", games[("std", 3)], "--max-rows", "x", check=2)
    millaudit.run("verify", games[("std", 3)], "--bogus", check=2)
    millaudit.run("verify", games[("std", 3)], "--sector", "9_9_9_9", check=2)
    assert "usage: millaudit verify" in millaudit.run("verify", "--help", check=0).stdout
