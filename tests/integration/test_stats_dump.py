"""millaudit stats and dump on hand-made files (scripts/mkopen.py, values counted by hand below),
on malformed files through the ASan build, and on a directory solved by the reference producer."""
import hashlib
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mkopen  # noqa: E402

# Hand-made std database. Sector 0_1_3_2 has canonical entries 0..4 except 2 (a1, d1, b2, d2 with
# orbit sizes 8, 8, 4, 4: a1 and d1 go to the 4 outer and 4 inner corners/midpoints, b2 and d2
# stay on the middle ring). Sector 1_0_8_3 has 4 entries (the W=1 representatives a1, d1, b2, d2),
# all canonical, same orbit sizes. 0_0_9_9 is the start: one entry, orbit 1.
HAND = {
    "0_1_3_2": {0: ("win", 1), 1: ("loss", 0), 3: "draw", 4: ("loss", 16)},
    "1_0_8_3": {0: ("win", 3), 1: ("win", 5), 2: ("loss", 2), 3: "draw"},
    "0_0_9_9": {0: ("win", 23)},
}


@pytest.fixture
def hand_dir(tmp_path):
    for sector, values in HAND.items():
        mkopen.write(tmp_path, "std", sector, values)
    # A producer's temporary file (§5.4) is not a sector and must be ignored.
    (tmp_path / "std_3_3_0_0.mdb.tmp").write_bytes(b"partial")
    return tmp_path


def test_stats_json_counts(millaudit, hand_dir):
    doc = json.loads(millaudit.run("stats", hand_dir, "--json", check=0).stdout)
    assert [s["sector"] for s in doc["sectors"]] == ["0_0_9_9", "0_1_3_2", "1_0_8_3"]
    s = {x["sector"]: x for x in doc["sectors"]}
    a = s["0_1_3_2"]
    assert (a["entries"], a["canonical_entries"], a["positions"]) == (24, 4, 24)
    assert a["per_entry"] == {"wins": 1, "draws": 1, "losses": 2, "win_depths": {"1": 1},
                              "loss_depths": {"0": 1, "16": 1}}
    assert a["per_position"] == {"wins": 8, "draws": 4, "losses": 12, "win_depths": {"1": 8},
                                 "loss_depths": {"0": 8, "16": 4}}
    assert (a["longest_win"], a["longest_loss"], a["bad_encodings"]) == (1, 16, 0)
    b = s["1_0_8_3"]
    assert (b["entries"], b["canonical_entries"], b["positions"]) == (4, 4, 24)
    assert b["per_entry"] == {"wins": 2, "draws": 1, "losses": 1, "win_depths": {"3": 1, "5": 1},
                              "loss_depths": {"2": 1}}
    assert b["per_position"] == {"wins": 16, "draws": 4, "losses": 4,
                                 "win_depths": {"3": 8, "5": 8}, "loss_depths": {"2": 4}}
    assert (b["longest_win"], b["longest_loss"]) == (5, 2)
    c = s["0_0_9_9"]
    assert (c["entries"], c["canonical_entries"], c["positions"]) == (1, 1, 1)
    assert (c["longest_win"], c["longest_loss"]) == (23, None)
    t = doc["totals"]
    assert (t["sectors"], t["entries"], t["canonical_entries"], t["positions"]) == (3, 29, 9, 49)
    assert t["per_entry"]["wins"] == 4 and t["per_entry"]["draws"] == 2
    assert t["per_entry"]["losses"] == 3
    assert t["per_position"] == {"wins": 25, "draws": 8, "losses": 16,
                                 "win_depths": {"1": 8, "3": 8, "5": 8, "23": 1},
                                 "loss_depths": {"0": 8, "2": 4, "16": 4}}
    assert (t["longest_win"], t["longest_loss"], t["bad_encodings"]) == (23, 16, 0)
    assert doc["start"] == [{"variant": "std", "sector": "0_0_9_9", "value": "win 23",
                             "outcome": "win", "depth": 23}]
    # Every non-canonical entry is a marker (open: the filler); Malom's .analyze counts them too.
    assert (a["markers"], b["markers"], t["markers"]) == (20, 0, 20)
    assert (a["format"], a["name"], a["status"]) == ("open", "std_0_1_3_2", "ok")
    assert a["depths"] == {"-1": 1, "0": 1, **{str(d): 0 for d in range(2, 16)}, "1": 1, "16": 1}
    assert "akey1" not in a and doc["errors"] == [] and doc["exit"] == 0


def test_stats_text_table(millaudit, hand_dir):
    out = millaudit.run("stats", hand_dir, check=0).stdout
    row = re.search(r"^std_0_1_3_2\.mdb\s+(.*)$", out, re.M).group(1).split()
    assert row == ["24", "4", "1", "1", "2", "1", "16", "0"]
    row = re.search(r"^total\s+(\d.*)$", out, re.M).group(1).split()
    assert row == ["29", "9", "4", "2", "3", "23", "16", "0"]
    # The per-position table: positions, wins, draws, losses.
    rows = re.findall(r"^std_1_0_8_3\.mdb\s+(.*)$", out, re.M)
    assert rows[1].split() == ["24", "16", "4", "4", "0"]  # positions, W/D/L, markers
    hist = out.split("depth histogram std_0_1_3_2.mdb")[1].split("depth histogram")[0]
    assert re.search(r"^\s+loss\s+16\s+1\s+4$", hist, re.M)
    assert "start std_0_0_9_9.mdb: win 23" in out


def test_stats_sector_filter(millaudit, hand_dir):
    doc = json.loads(millaudit.run("stats", hand_dir, "--json", "--sector", "1_0_8_3",
                                   check=0).stdout)
    assert [s["sector"] for s in doc["sectors"]] == ["1_0_8_3"]
    assert doc["start"] == []
    doc = json.loads(millaudit.run("stats", "--sector", "1_0_8_3,0_0_9_9", hand_dir, "--json",
                                   check=0).stdout)
    assert [s["sector"] for s in doc["sectors"]] == ["0_0_9_9", "1_0_8_3"]
    doc = json.loads(millaudit.run("stats", hand_dir, "--json", "--sector", "std_1_0_8_3",
                                   check=0).stdout)
    assert [s["sector"] for s in doc["sectors"]] == ["1_0_8_3"]
    proc = millaudit.run("stats", hand_dir, "--sector", "3_3_0_0", check=3)
    assert "sector 3_3_0_0: no file for this sector" in proc.stderr
    proc = millaudit.run("stats", hand_dir, "--sector", "lask_1_0_8_3", check=3)
    assert "sector lask_1_0_8_3: no file for this sector" in proc.stderr
    # A malformed or empty value is a usage error that shows the expected form, never "all".
    for bad in ("3_3", "", "1_0_8_3,", "x"):
        proc = millaudit.run("stats", hand_dir, "--sector", bad, check=2)
        assert "expected W_B_WF_BF or <variant>_W_B_WF_BF" in proc.stderr and proc.stdout == ""


def test_dump_lines(millaudit, hand_dir):
    out = millaudit.run("dump", hand_dir / "std_1_0_8_3.mdb", check=0).stdout
    comments = [l for l in out.splitlines() if l.startswith("#")]
    lines = [l for l in out.splitlines() if not l.startswith("#")]
    assert out.startswith("#")
    assert any("std_1_0_8_3.mdb" in l for l in comments)
    assert any("variant: std" in l for l in comments)
    assert any("sector: 1_0_8_3" in l for l in comments)
    assert lines == ["a1/- win 3", "d1/- win 5", "b2/- loss 2", "d2/- draw -"]
    out = millaudit.run("dump", hand_dir / "std_0_1_3_2.mdb", "--with-entry", check=0).stdout
    lines = [l for l in out.splitlines() if not l.startswith("#")]
    assert lines == ["0 -/a1 win 1", "1 -/d1 loss 0", "3 -/b2 draw -", "4 -/d2 loss 16"]
    out = millaudit.run("dump", hand_dir / "std_0_0_9_9.mdb", check=0).stdout
    assert out.splitlines()[-1] == "-/- win 23"


def test_bad_encodings_are_counted_and_shown(millaudit, tmp_path):
    mkopen.write(tmp_path, "std", "0_1_3_2",
                 {0: 0xC002, 1: ("loss", 0), 2: 0xC001, 3: "draw", 4: 0x8001})
    proc = millaudit.run("stats", tmp_path, "--json", check=1)
    doc = json.loads(proc.stdout)
    a = doc["sectors"][0]
    assert a["bad_encodings"] == 3
    assert a["canonical_entries"] == 4
    assert (a["per_entry"]["wins"], a["per_entry"]["draws"], a["per_entry"]["losses"]) == (0, 1, 1)
    assert "3 bad encodings" in proc.stderr
    path = tmp_path / "std_0_1_3_2.mdb"
    proc = millaudit.run("dump", path, check=1)
    lines = [l for l in proc.stdout.splitlines() if not l.startswith("#")]
    assert lines == ["-/a1 bad 0xc002", "-/d1 loss 0", "-/b2 draw -", "-/d2 bad 0x8001"]
    assert f"{path}: sector 0_1_3_2: offset 128: entry 0 (-/a1): bad encoding 0xc002" in proc.stderr
    assert f"{path}: sector 0_1_3_2: offset 132: entry 2 is non-canonical but holds 0xc001" \
        in proc.stderr
    assert "offset 136: entry 4 (-/d2): bad encoding 0x8001" in proc.stderr


MALFORMED = [
    ("magic", {"magic": b"\x89MILK\r\n\x1a"}, 0, "bad magic"),
    ("version", {"format_version": 2}, 8, "format version 2"),
    ("header size", {"header_size": 256}, 10, "header size 256"),
    ("variant", {"variant_id": 7}, 12, "unknown variant 7"),
    ("rule flags", {"rule_flags": 1}, 13, "rule flags 0x01"),
    ("impossible sector", {"bf": 1}, 17, "sector impossible"),  # BF, the field that is wrong
    ("entry width", {"entry_width": 4}, 18, "entry width 4"),
    ("encoding", {"value_encoding": 0}, 19, "value encoding 0"),
    ("scheme", {"index_scheme": 9}, 20, "index scheme 9"),
    ("scheme version", {"index_scheme_version": 2}, 22, "index scheme version 2"),
    ("entry count", {"entry_count": 23}, 24, "entry count 23, expected 24"),
    ("huge entry count", {"entry_count": (1 << 64) - 1, "body_entries": 24}, 24, "entry count"),
    ("reserved", {"reserved": b"\0" * 47 + b"\1"}, 127, "reserved byte"),
    ("truncated header", {"truncate": 64}, 64, "truncated header"),
    ("truncated body", {"truncate": 128 + 47}, 175, "truncated body"),
    ("trailing bytes", {"trailing": b"\0\0"}, 176, "2 trailing bytes"),
    ("empty", {"truncate": 0}, 0, "empty file"),
]


@pytest.mark.parametrize("case,override,offset,what", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_file_exits_3(millaudit_asan, tmp_path, case, override, offset, what):
    values = {0: "draw", 1: "draw", 3: "draw", 4: "draw"}
    path = mkopen.write(tmp_path, "std", "0_1_3_2", values, **override)
    sector = "0_1_3_1" if case == "impossible sector" else "0_1_3_2"
    want = f"{path}: sector {sector}: offset {offset}: {what}"
    for args in (("dump", path), ("stats", tmp_path), ("stats", tmp_path, "--json")):
        proc = millaudit_asan.run(*args, check=3)
        assert proc.stderr.count("\n") == 1, proc.stderr
        assert want in proc.stderr, proc.stderr
        if args[0] == "dump":
            assert proc.stdout == ""
        elif "--json" in args:
            # stats names the sector it could not count; the others would still be counted
            doc = json.loads(proc.stdout)
            assert [x["status"] for x in doc["sectors"]] == ["unusable"]
            assert want in doc["sectors"][0]["message"]
            assert doc["totals"]["sectors_unusable"] == 1
            assert doc["errors"] == [doc["sectors"][0]["message"]]
        else:
            assert f"std_0_1_3_2: unusable: {want}" in proc.stdout


def test_name_and_header_disagree(millaudit_asan, tmp_path):
    path = mkopen.write(tmp_path, "std", "0_1_3_2", {0: "draw", 1: "draw", 3: "draw", 4: "draw"},
                        name="std_0_1_3_3.mdb")
    proc = millaudit_asan.run("dump", path, check=3)
    # the offset is the field that disagrees with the name: BF at 17 (issue 9 item 10)
    assert f"{path}: sector 0_1_3_2: offset 17: header says std_0_1_3_2.mdb" in proc.stderr


def test_unusable_directories(millaudit_asan, tmp_path):
    (tmp_path / "std_3_3_0_0.mdb").mkdir()
    proc = millaudit_asan.run("stats", tmp_path, check=3)
    assert "std_3_3_0_0.mdb: sector std_3_3_0_0: offset 0: not a regular file (directory)" \
        in proc.stderr
    proc = millaudit_asan.run("dump", tmp_path / "std_3_3_0_0.mdb", check=3)
    assert proc.stderr.count("\n") == 1 and "not a regular file" in proc.stderr
    proc = millaudit_asan.run("dump", tmp_path / "missing.mdb", check=3)
    assert "missing.mdb: No such file or directory" in proc.stderr  # strerror, no template noise
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no sector files" in millaudit_asan.run("stats", empty, check=3).stderr
    proc = millaudit_asan.run("stats", tmp_path / "nowhere", check=3)
    assert "nowhere: No such file or directory" in proc.stderr
    (empty / "notes.mdb").write_bytes(b"")
    proc = millaudit_asan.run("stats", empty, check=3)
    assert "notes.mdb: file name is not <variant>_W_B_WF_BF.mdb" in proc.stderr
    # A FIFO named like a sector is named (and never opened: no hang); a non-canonical name
    # beside the real file is reported, not silently skipped.
    good = tmp_path / "good"
    good.mkdir()
    mkopen.write(good, "std", "0_1_3_2", {0: "draw", 1: "draw", 3: "draw", 4: "draw"})
    os.mkfifo(good / "std_0_0_9_9.mdb")
    (good / "std_00_1_3_2.mdb").write_bytes((good / "std_0_1_3_2.mdb").read_bytes())
    proc = millaudit_asan.run("stats", good, "--json", check=3, timeout=60)
    doc = json.loads(proc.stdout)
    # the FIFO's sector is named unusable; the other is still counted
    assert [(x["sector"], x["status"]) for x in doc["sectors"]] == [("0_0_9_9", "unusable"),
                                                                    ("0_1_3_2", "ok")]
    assert doc["totals"]["sectors_unusable"] == 1 and doc["start"] == []
    assert len(doc["errors"]) == 2 == proc.stderr.count("\n")
    assert any("std_0_0_9_9.mdb" in e and "FIFO" in e for e in doc["errors"])
    assert any("std_00_1_3_2.mdb" in e and "not the canonical file name" in e
               for e in doc["errors"])
    proc = millaudit_asan.run("stats", good, "--sector", "0_0_9_9", "--json", check=3, timeout=60)
    doc = json.loads(proc.stdout)
    assert doc["sectors"][0]["status"] == "unusable" and "FIFO" in doc["sectors"][0]["message"]
    proc = millaudit_asan.run("dump", good / "std_0_0_9_9.mdb", check=3, timeout=60)
    assert "FIFO" in proc.stderr and proc.stdout == ""


def test_usage(millaudit):
    millaudit.run("stats", check=2)
    millaudit.run("stats", "a", "b", check=2)
    millaudit.run("stats", ".", "--frob", check=2)
    millaudit.run("dump", check=2)
    millaudit.run("dump", "x.mdb", "--frob", check=2)
    assert "usage: millaudit stats" in millaudit.run("stats", "--help", check=0).stdout
    assert "usage: millaudit dump" in millaudit.run("dump", "--help", check=0).stdout


@pytest.fixture(scope="module")
def solved_dir(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("solved3")
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", out, check=0)
    return out


def test_stats_on_solved_database(millaudit, solved_dir):
    doc = json.loads(millaudit.run("stats", solved_dir, "--json", check=0).stdout)
    assert len(doc["sectors"]) == len(list(solved_dir.glob("*.mdb"))) >= 2
    for s in doc["sectors"]:
        w, b = (int(x) for x in s["sector"].split("_")[:2])
        # Every distinct board of the sector counts once, whatever the folding.
        assert s["positions"] == math.comb(24, w) * math.comb(24 - w, b), s["sector"]
        assert s["entries"] == mkopen.entry_count(w, b)
        assert s["bad_encodings"] == 0
        for view in ("per_entry", "per_position"):
            v = s[view]
            total = s["canonical_entries"] if view == "per_entry" else s["positions"]
            assert v["wins"] + v["draws"] + v["losses"] == total
            assert sum(v["win_depths"].values()) == v["wins"]
            assert all(int(d) % 2 == 1 for d in v["win_depths"])
            assert all(int(d) % 2 == 0 for d in v["loss_depths"])
    assert [x["sector"] for x in doc["start"]] == ["0_0_3_3"]
    start = doc["start"][0]["value"]
    dump = millaudit.run("dump", solved_dir / "std_0_0_3_3.mdb", check=0).stdout
    assert dump.splitlines()[-1] == "-/- " + ("draw -" if start == "draw" else start)


def test_dump_on_solved_database(millaudit, solved_dir):
    doc = json.loads(millaudit.run("stats", solved_dir, "--json", check=0).stdout)
    for s in doc["sectors"]:
        path = solved_dir / s["file"]
        out = millaudit.run("dump", path, "--with-entry", check=0).stdout
        lines = [l.split() for l in out.splitlines() if not l.startswith("#")]
        assert len(lines) == s["canonical_entries"]
        entries = [int(l[0]) for l in lines]
        assert entries == sorted(set(entries))
        w, b = (int(x) for x in s["sector"].split("_")[:2])
        boards = set()
        for l in lines:
            mover, opp = l[1].split("/")
            assert len([p for p in mover.split(",") if p != "-"]) == w
            assert len([p for p in opp.split(",") if p != "-"]) == b
            assert l[2] in ("win", "loss", "draw")
            boards.add(l[1])
        assert len(boards) == len(lines)


def test_edited_solved_entry_is_reported(millaudit, solved_dir, tmp_path):
    src = solved_dir / "std_1_1_2_2.mdb"
    work = tmp_path / "db"
    work.mkdir()
    shutil.copy(src, work / src.name)
    out = millaudit.run("dump", work / src.name, "--with-entry", check=0).stdout
    entry = int([l for l in out.splitlines() if not l.startswith("#")][-1].split()[0])
    data = bytearray((work / src.name).read_bytes())
    data[128 + 2 * entry: 130 + 2 * entry] = (0xC000).to_bytes(2, "little")  # win in 0: invalid
    data[80:112] = hashlib.sha256(bytes(data[128:])).digest()  # written so by its producer
    (work / src.name).write_bytes(bytes(data))
    proc = millaudit.run("stats", work, "--json", check=1)
    assert json.loads(proc.stdout)["sectors"][0]["bad_encodings"] == 1
    proc = millaudit.run("dump", work / src.name, check=1)
    assert f"offset {128 + 2 * entry}: entry {entry}" in proc.stderr
    assert proc.stdout.splitlines()[-1].endswith("bad 0xc000")


def test_dump_keeps_binary_producer_text_printable(millaudit_asan, tmp_path):
    path = mkopen.write(tmp_path, "std", "0_0_9_9", {0: "draw"}, producer=b"\xff\x1bprod\x80",
                        producer_version=b"1\n2")
    proc = subprocess.run([str(millaudit_asan.path), "dump", path], capture_output=True)
    assert proc.returncode == 0
    out = proc.stdout.decode("ascii")  # raises if a raw byte leaked through
    assert "producer: ??prod? 1?2" in out
    assert out.splitlines()[-1] == "-/- draw -"


def test_a_verify_runs_histogram_counts_what_stats_counts(millaudit, tmp_path):
    """On a correct database the values a verify run established are the stored ones: its recorded
    histogram (sector_histograms, docs/audit-schema.md) has per sector as many wins, draws and losses
    as stats counts entries of each (the 3-stone game has draws in four sectors)."""
    db = tmp_path / "db"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", db, "--quiet", check=0)
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    stats = json.loads(millaudit.run("stats", db, "--json", check=0).stdout)
    plural = {"win": "wins", "draw": "draws", "loss": "losses"}
    want = {(s["name"], o): s["per_entry"][w] for s in stats["sectors"] for o, w in plural.items()
            if s["per_entry"][w]}
    con = sqlite3.connect(store)
    got = dict(((sec, o), n) for sec, o, n in con.execute(
        "SELECT sector, outcome, sum(count) FROM sector_histograms GROUP BY sector, outcome"))
    con.close()
    assert sum(n for (_, o), n in want.items() if o == "draw") == 487
    assert got == want
