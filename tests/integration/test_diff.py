"""millaudit diff: two databases compared position by position, across open and Malom formats."""
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, need_fixture, skip_unless
from robust_util import run_as_nobody, shared_tmpdir
from schemas import validate

MALOM = FIXTURES / "malom"
STRONG = MALOM / "std-strong"
STONEDIFF = MALOM / "std-ultra-stonediff"
EXCERPT = MALOM / "original-excerpt"
INJECT = ROOT / "scripts" / "inject_fault.py"


def need(path):
    return need_fixture(path)


def diff_json(ma, *args, check):
    proc = ma.run("diff", *args, "--json", check=check)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def produced(millaudit, tmp_path_factory):
    """The producer's std 3_3_0_0, 3_4_0_0 and 4_3_0_0 (open format)."""
    out = tmp_path_factory.mktemp("produced")
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", out,
                  "--quiet", check=0)
    millaudit.run("solve", "--variant", "std", "--sector", "4_3_0_0", "--with-deps", "--out", out,
                  "--quiet", check=0)
    return out


def dump_values(ma, path):
    # dump exits 1 when it meets bad encodings; the lines are still there ("bad 0xNNNN").
    lines = ma.run("dump", path, "--with-entry", check=None).stdout.splitlines()
    rows = {}
    for line in lines:
        if line.startswith("#"):
            continue
        entry, board, rest = line.split(" ", 2)
        rows[board] = rest
    return rows


# ---- the producer against Malom ----

def test_producer_agrees_with_malom_strong(millaudit, produced, tmp_path):
    need(STRONG)
    malom = tmp_path / "malom"
    malom.mkdir()
    for name in ("std_3_3_0_0.sec", "std_3_4_0_0.sec", "std_4_3_0_0.sec"):
        shutil.copy(STRONG / name, malom / name)
    doc = diff_json(millaudit, produced, malom, check=0)
    assert [s["sector"] for s in doc["sectors"]] == ["std_3_3_0_0", "std_3_4_0_0", "std_4_3_0_0"]
    for s in doc["sectors"]:
        assert s["status"] == "equal", s
        assert s["format_a"] == "open" and s["format_b"] == "malom-sec"
        assert s["differences"]["outcome"] == 0 and s["differences"]["depth"] == 0
        # Another format: every position is an encoding difference, none a value difference.
        assert s["differences"]["encoding"] == s["positions"] > 0
    # 3_4_0_0 and 4_3_0_0 are twins: one orbit count.
    pos = {s["sector"]: s["positions"] for s in doc["sectors"]}
    assert pos["std_3_4_0_0"] == pos["std_4_3_0_0"]
    assert doc["totals"]["values_agree"] is True
    assert doc["totals"]["equal"] == 3 and doc["a"]["format"] == "open"
    assert doc["b"] == {"root": str(malom), "format": "malom-sec", "variants": ["std"]}


def test_producer_against_malom_in_reverse_order(millaudit, produced):
    """B's index scheme is the open one: the Malom side's canonical entries map into it."""
    need(STRONG)
    doc = diff_json(millaudit, STRONG / "std_4_3_0_0.sec", produced / "std_4_3_0_0.mdb", check=0)
    s = doc["sectors"][0]
    assert s["status"] == "equal" and s["differences"]["outcome"] == 0
    assert s["differences"]["depth"] == 0


@pytest.mark.parametrize("other", [STONEDIFF / "std_3_3_0_0.sec2", EXCERPT / "std_3_3_0_0.sec2"])
def test_malom_strong_against_ultra_strong(millaudit, other):
    need(STRONG / "std_3_3_0_0.sec")
    need(other)
    doc = diff_json(millaudit, STRONG / "std_3_3_0_0.sec", other, check=0)
    s = doc["sectors"][0]
    assert s["draw_class_compared"] is False  # .sec holds no draw class
    assert s["differences"]["outcome"] == 0 and s["differences"]["depth"] == 0
    assert s["positions"] > 0


def test_two_sec2_frames_compare_values_not_keys(millaudit):
    """STONE_DIFF and .secval files store other keys for the same values: encoding only."""
    need(STONEDIFF / "std_3_3_0_0.sec2")
    need(EXCERPT / "std_3_3_0_0.sec2")
    proc = millaudit.run("diff", STONEDIFF / "std_3_3_0_0.sec2", EXCERPT / "std_3_3_0_0.sec2",
                         "--limit", "1", check=0)
    # the encodings said in words: equal, the same values held in other bytes
    assert "entries hold other bytes for the same value" in proc.stdout and "values agree" in proc.stdout
    assert "1 sector equal: the same values" in proc.stdout


# ---- planted changes are found exactly ----

def test_changed_depth_and_outcome_found_at_the_position(millaudit, produced, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for f in produced.glob("*.mdb"):
        shutil.copy(f, copy / f.name)
    subprocess.run([sys.executable, INJECT, "--reseal", copy / "std_3_3_0_0.mdb", "--entry", "1000",
                    "--depth-delta", "+1"], check=True, capture_output=True)
    subprocess.run([sys.executable, INJECT, "--reseal", copy / "std_3_4_0_0.mdb", "--entry", "1",
                    "--outcome", "loss", "--depth", "2"], check=True, capture_output=True)
    doc = diff_json(millaudit, produced, copy, "--limit", "10", check=1)
    by = {s["sector"]: s for s in doc["sectors"]}
    s33 = by["std_3_3_0_0"]
    assert s33["differences"] == {"outcome": 0, "depth": 1, "draw-class": 0, "encoding": 0}
    assert [(x["class"], x["entry_a"]) for x in s33["examples"]] == [("depth", 1000)]
    a, b = s33["examples"][0]["a"], s33["examples"][0]["b"]
    assert a["outcome"] == b["outcome"] == "win" and b["depth"] == a["depth"] + 2
    assert s33["examples"][0]["offset_a"] == 128 + 2 * 1000
    # every successor of the changed entry agrees on both sides: a root, the sector a root sector
    assert s33["examples"][0]["cause"] == "root" and s33["cause"] == "root" and s33["roots"] == 1
    s34 = by["std_3_4_0_0"]
    if s34["differences"]["outcome"] == 0:
        pytest.fail(f"entry 1 of 3_4_0_0 changed to a loss but not reported: {s34}")
    assert s34["differences"]["outcome"] == 1 and s34["differences"]["depth"] == 0
    assert s34["examples"][0]["entry_a"] == 1
    assert s34["examples"][0]["b"] == {"outcome": "loss", "depth": 2, "text": "loss 2 (0x4002)"}
    assert by["std_4_3_0_0"]["status"] == "identical"
    # Text form: the board is drawn.
    text = millaudit.run("diff", produced / "std_3_3_0_0.mdb", copy / "std_3_3_0_0.mdb",
                         check=1).stdout
    assert "depth:" in text and "a b c d e f g" in text and "values differ" in text


def test_a_changed_position_against_another_format_is_a_root(millaudit, produced, tmp_path):
    """Across formats the successors' entries hold other bytes for the same values: a position
    changed in the open copy, compared with the producer's Malom .sec export, is a root (every
    successor agrees in value), not a consequence of its successors' encoding."""
    copy = tmp_path / "copy"
    shutil.copytree(produced, copy)
    sec = tmp_path / "sec"
    millaudit.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", sec, "--open-dir", copy,
                  "--format", "malom-sec", "--quiet", check=0)
    subprocess.run([sys.executable, INJECT, "--reseal", copy / "std_3_3_0_0.mdb", "--entry", "1000",
                    "--depth-delta", "+1"], check=True, capture_output=True)
    doc = diff_json(millaudit, copy / "std_3_3_0_0.mdb", sec / "std_3_3_0_0.sec", check=1)
    [s33] = doc["sectors"]
    assert (s33["format_a"], s33["format_b"]) == ("open", "malom-sec")
    assert (s33["differences"]["outcome"], s33["differences"]["depth"]) == (0, 1)
    [x] = s33["examples"]
    assert x["entry_a"] == 1000 and x["b"]["depth"] == x["a"]["depth"] - 2
    assert x["cause"] == "root" and s33["cause"] == "root" and s33["roots"] == 1


def test_non_canonical_filler_is_encoding_only(millaudit, produced, tmp_path):
    target = tmp_path / "std_3_3_0_0.mdb"
    shutil.copy(produced / "std_3_3_0_0.mdb", target)
    # Entry 0 .. : find a non-canonical entry from dump (entries it does not list).
    listed = {int(l.split()[0]) for l in millaudit.run("dump", target, "--with-entry", check=0)
              .stdout.splitlines() if not l.startswith("#")}
    entry = next(e for e in range(100000) if e not in listed)
    data = bytearray(target.read_bytes())
    data[128 + 2 * entry + 1] = 0x80  # 0x8000: a draw word where only filler belongs
    data[80:112] = hashlib.sha256(bytes(data[128:])).digest()  # as its producer would record it
    target.write_bytes(bytes(data))
    doc = diff_json(millaudit, produced / "std_3_3_0_0.mdb", target, check=0)
    s = doc["sectors"][0]
    assert s["differences"] == {"outcome": 0, "depth": 0, "draw-class": 0, "encoding": 1}
    x = s["examples"][0]
    assert x["entry_a"] == entry and x["class"] == "encoding"
    assert x["a"] == {"outcome": "none", "text": "none (0x0000)"}
    assert x["b"] == {"outcome": "draw", "text": "draw (0x8000)"}


def sec_find(data, count, pred):
    return next(i for i in range(count) if pred(data[i]))


def test_sec_count_counter_is_encoding_and_val_is_depth(millaudit, tmp_path):
    src = need(STRONG / "std_3_3_0_0.sec")
    data = bytearray(src.read_bytes())
    n = 210140  # hash_count(3, 3): entries before the overflow table
    # Count counter: bytes 196..255 are counters 59..0; change one counter.
    i = sec_find(data, n, lambda b: 196 <= b <= 254)
    counter = bytearray(data)
    counter[i] += 1
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "std_3_3_0_0.sec").write_bytes(bytes(counter))
    doc = diff_json(millaudit, src, tmp_path / "c" / "std_3_3_0_0.sec", check=0)
    s = doc["sectors"][0]
    assert s["differences"] == {"outcome": 0, "depth": 0, "draw-class": 0, "encoding": 1}
    assert s["examples"][0]["entry_a"] == i
    assert s["examples"][0]["a"]["text"] == f"draw (count {255 - data[i]})"
    assert s["examples"][0]["b"]["outcome"] == "draw"
    # A win in x plies -> a win in x + 2 plies: depth, at that entry only.
    j = sec_find(data, n, lambda b: b % 2 == 1 and b < 170)
    val = bytearray(data)
    val[j] += 2
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "std_3_3_0_0.sec").write_bytes(bytes(val))
    doc = diff_json(millaudit, src, tmp_path / "v" / "std_3_3_0_0.sec", check=1)
    s = doc["sectors"][0]
    assert s["differences"]["depth"] == 1 and s["differences"]["outcome"] == 0
    assert s["examples"][0]["entry_a"] == j
    assert s["examples"][0]["b"]["outcome"] == "win"
    assert s["examples"][0]["b"]["depth"] == data[j] + 2


@pytest.mark.parametrize("bug", ["removal-from-mill", "fly-early", "double-removal",
                                 "blocked-not-lost", "depth-in-moves"])
def test_planted_rules_change_exact_positions(millaudit, millaudit_planted, produced, tmp_path, bug):
    bugged = tmp_path / bug
    bugged.mkdir()
    millaudit_planted.run("solve", "--variant", "std", "--sector", "4_3_0_0", "--with-deps", "--out",
                  bugged, "--quiet", "--plant-bug", bug, check=0)
    doc = diff_json(millaudit, produced, bugged, "--limit", "3", check=None)
    for s in doc["sectors"]:
        name = s["sector"] + ".mdb"
        good = dump_values(millaudit, produced / name)
        bad = dump_values(millaudit, bugged / name)
        assert good.keys() == bad.keys()  # same canonical positions in one index scheme
        changed = [b for b in good if good[b] != bad[b]]
        outcome = [b for b in changed if good[b].split()[0] != bad[b].split()[0]]
        d = s["differences"]
        assert d["outcome"] + d["depth"] == len(changed), (bug, s["sector"])
        assert d["outcome"] == len(outcome), (bug, s["sector"])
        for x in s["examples"]:
            if x["class"] in ("outcome", "depth"):
                assert x["board"] in changed
    total = sum(s["differences"]["outcome"] + s["differences"]["depth"] for s in doc["sectors"])
    proc = millaudit.run("diff", produced, bugged, "--quiet")
    assert proc.returncode == (1 if total else 0)
    if bug in ("fly-early", "depth-in-moves"):
        assert total > 0  # these rules matter already in sectors of 3 and 4 stones


# ---- audit store ----

def test_run_recorded_in_audit_store(millaudit, produced, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(produced / "std_3_3_0_0.mdb", copy)
    subprocess.run([sys.executable, INJECT, "--reseal", copy / "std_3_3_0_0.mdb", "--entry", "1000",
                    "--depth-delta", "+1"], check=True, capture_output=True)
    store = tmp_path / "audit.sqlite"
    # options before the operands: the store records the command line as typed, pasteable
    millaudit.run("diff", "--audit", store, produced / "std_3_3_0_0.mdb", copy / "std_3_3_0_0.mdb",
                  check=1)
    db = sqlite3.connect(store)
    kinds = [r[0] for r in db.execute("SELECT kind FROM runs")]
    assert kinds == ["diff"]
    line = db.execute("SELECT command_line FROM runs").fetchone()[0]
    assert line == (f"millaudit diff --audit {store} {produced / 'std_3_3_0_0.mdb'} "
                    f"{copy / 'std_3_3_0_0.mdb'}")
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    table = "discrepancies" if "discrepancies" in names else next(n for n in names if "discrep" in n)
    rows = db.execute(f"SELECT * FROM {table}").fetchall()
    assert len(rows) == 1 and any(v == 1000 for v in rows[0])
    # where the difference comes from is recorded with it: a root position, its sector a root pair
    assert db.execute("SELECT roots, propagated FROM sector_results").fetchall() == [(1, 0)]
    assert db.execute("SELECT entry, root FROM discrepancies").fetchall() == [(1000, 1)]
    db.close()
    text = millaudit.run("report", "--audit", store, check=0).stdout.splitlines()
    assert "  root pairs        std_3_3_0_0 (1 position at the root)" in text


def test_store_status_follows_the_verdict(millaudit, produced, tmp_path):
    """A diff run's status in the store is its verdict in a diff's words (docs/audit-schema.md):
    ok when the values agree, discrepancies when they differ, unusable when an input could not be
    compared."""
    changed = copy_db(produced, tmp_path / "changed")
    subprocess.run([sys.executable, INJECT, "--reseal", changed / "std_3_3_0_0.mdb", "--entry", "1000",
                    "--depth-delta", "+1"], check=True, capture_output=True)
    broken = copy_db(produced, tmp_path / "broken")
    data = (broken / "std_3_4_0_0.mdb").read_bytes()
    (broken / "std_3_4_0_0.mdb").write_bytes(data[:-1])
    store = tmp_path / "audit.sqlite"
    for other, code in ((produced, 0), (changed, 1), (broken, 3)):
        millaudit.run("diff", produced, other, "--sector", "3_3_0_0", "--sector", "3_4_0_0", "--audit",
                      store, check=code)
    db = sqlite3.connect(store)
    rows = db.execute("SELECT kind, status FROM runs ORDER BY id").fetchall()
    assert rows == [("diff", "ok"), ("diff", "discrepancies"), ("diff", "unusable")]


def test_audit_not_writable_exits_4(millaudit, produced, tmp_path):
    proc = millaudit.run("diff", produced / "std_3_3_0_0.mdb", produced / "std_3_3_0_0.mdb",
                         "--audit", tmp_path / "no" / "such" / "dir" / "a.sqlite", check=4)
    assert len(proc.stderr.strip().splitlines()) == 1


# ---- only on one side, and unusable input ----

def test_sector_on_one_side_only(millaudit, produced, tmp_path):
    part = tmp_path / "part"
    part.mkdir()
    shutil.copy(produced / "std_3_3_0_0.mdb", part)
    doc = diff_json(millaudit, produced, part, check=1)
    status = {s["sector"]: s["status"] for s in doc["sectors"]}
    assert status == {"std_3_3_0_0": "identical", "std_3_4_0_0": "only-in-A",
                      "std_4_3_0_0": "only-in-A"}
    doc = diff_json(millaudit, part, produced, "--sector", "3_3_0_0", check=0)
    assert [s["status"] for s in doc["sectors"]] == ["identical"]


def one_line_error(proc):
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_mismatched_variants(millaudit_asan, produced):
    lask = need(EXCERPT / "lask_1_2_9_8.sec2")
    proc = millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb", lask, check=3)
    # each side named with the variants it holds, in words
    assert one_line_error(proc) == (f"millaudit diff: mismatched variants: {produced / 'std_3_3_0_0.mdb'} holds std, "
                                    f"{lask} holds lask")


def test_different_sectors(millaudit_asan, produced):
    proc = millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb", produced / "std_3_4_0_0.mdb",
                              check=3)
    msg = one_line_error(proc)
    assert "different sectors" in msg and "std_3_4_0_0" in msg


def test_missing_files(millaudit_asan, produced, tmp_path):
    proc = millaudit_asan.run("diff", produced, tmp_path / "nothing", check=3)
    assert "nothing" in one_line_error(proc)
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = millaudit_asan.run("diff", produced, empty, check=3)
    assert "no usable sector files" in one_line_error(proc)
    proc = millaudit_asan.run("diff", produced, produced, "--sector", "5_5_0_0", check=3)
    assert "5_5_0_0" in one_line_error(proc)


@pytest.mark.parametrize("cut", [10, 200, -1])
def test_malformed_open_file(millaudit_asan, produced, tmp_path, cut):
    bad = tmp_path / "std_3_3_0_0.mdb"
    data = (produced / "std_3_3_0_0.mdb").read_bytes()
    bad.write_bytes(data[:cut])
    proc = millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb", bad, check=3)
    assert str(bad) in one_line_error(proc)


def test_malformed_malom_files(millaudit_asan, produced, tmp_path):
    src = need(STRONG / "std_3_3_0_0.sec")
    bad = tmp_path / "std_3_3_0_0.sec"
    bad.write_bytes(src.read_bytes()[:5000])
    proc = millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb", bad, check=3)
    assert str(bad) in one_line_error(proc)
    # A .sec2 that is not STONE_DIFF without its .secval beside it is unusable too.
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(need(EXCERPT / "std_3_3_0_0.sec2"), lone)
    proc = millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb", lone / "std_3_3_0_0.sec2",
                              check=3)
    one_line_error(proc)


def test_asan_build_diffs_across_formats(millaudit_asan, produced):
    need(STRONG)
    doc = json.loads(millaudit_asan.run("diff", produced / "std_3_3_0_0.mdb",
                                        STRONG / "std_3_3_0_0.sec", "--json", "--threads", "2",
                                        check=0).stdout)
    assert doc["sectors"][0]["differences"]["outcome"] == 0


def test_usage_errors(millaudit, produced):
    millaudit.run("diff", produced, check=2)
    millaudit.run("diff", produced, produced, "--limit", "x", check=2)
    millaudit.run("diff", produced, produced, "--sector", "nonsense", check=2)


# ---- discovery: every file that cannot be used is named (verifier/formats/source.h) ----

def copy_db(src, dst):
    dst.mkdir()
    for f in src.glob("*.mdb"):
        shutil.copy(f, dst / f.name)
    return dst


def test_unusable_files_are_named_and_their_sector_marked(millaudit_asan, produced, tmp_path):
    """A FIFO named like a sector (must not block), a non-canonical name beside the real file, a
    file of another format: each is one error line, exit 3, the other sectors still compared."""
    b = copy_db(produced, tmp_path / "b")
    (b / "std_4_3_0_0.mdb").unlink()
    os.mkfifo(b / "std_4_3_0_0.mdb")
    shutil.copy(produced / "std_3_3_0_0.mdb", b / "std_03_3_0_0.mdb")
    (b / "std_3_4_0_0.sec").write_bytes(b"not used")
    proc = millaudit_asan.run("diff", produced, b, "--json", check=3, timeout=120)
    doc = json.loads(proc.stdout)
    status = {s["sector"]: s["status"] for s in doc["sectors"]}
    assert status == {"std_3_3_0_0": "identical", "std_3_4_0_0": "identical",
                      "std_4_3_0_0": "unusable"}
    s43 = doc["sectors"][2]
    # the sector's reason is the file's error line, naming the file, the sector and the offset
    assert s43["message"] == f"{b}/std_4_3_0_0.mdb: sector std_4_3_0_0: offset 0: not a regular file (FIFO)"
    assert s43["message"] in doc["errors"] and s43["file_b"].endswith("std_4_3_0_0.mdb")
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 3 == len(doc["errors"])
    assert any("std_03_3_0_0.mdb" in e and "not the canonical file name std_3_3_0_0.mdb" in e
               for e in errors)
    assert any("std_3_4_0_0.sec" in e and "this database holds .mdb files" in e for e in errors)
    assert any("std_4_3_0_0.mdb" in e and "FIFO" in e for e in errors)
    assert doc["totals"]["unusable"] == 1 and doc["totals"]["values_agree"] is False
    text = millaudit_asan.run("diff", produced, b, check=3, timeout=120).stdout
    assert "std_4_3_0_0: unusable:" in text and "incomplete" in text
    # the store of the diff keeps the reason with the sector, as the report shows it
    store = tmp_path / "d.sqlite"
    millaudit_asan.run("diff", produced, b, "--audit", store, "--quiet", check=3, timeout=120)
    with sqlite3.connect(store) as c:
        (status, message), = c.execute("SELECT status, message FROM sector_results WHERE sector = 'std_4_3_0_0'")
    assert (status, message) == ("unusable", s43["message"])


def test_a_sector_file_discovery_could_not_read_keeps_its_words_on_either_side(millaudit, produced, tmp_path):
    """Each database's only unusable file (the first its discovery lists) is a FIFO named like a
    sector: in A a sector B lacks, in B a sector both hold. The one-sided sector is unusable, not
    "only in A" (a difference: exit 1), and both keep discovery's words, which name the sector and
    the offset; the run is incomplete (exit 3)."""
    a = copy_db(produced, tmp_path / "a")
    b = copy_db(produced, tmp_path / "b")
    (a / "std_3_4_0_0.mdb").unlink()
    os.mkfifo(a / "std_3_4_0_0.mdb")
    (b / "std_3_4_0_0.mdb").unlink()
    (b / "std_3_3_0_0.mdb").unlink()
    os.mkfifo(b / "std_3_3_0_0.mdb")
    proc = millaudit.run("diff", a, b, "--json", check=3, timeout=120)
    by = {s["sector"]: s for s in json.loads(proc.stdout)["sectors"]}
    assert {k: s["status"] for k, s in by.items()} == {"std_3_3_0_0": "unusable", "std_3_4_0_0": "unusable",
                                                        "std_4_3_0_0": "identical"}
    for db, sector in ((a, "std_3_4_0_0"), (b, "std_3_3_0_0")):
        assert by[sector]["message"] == f"{db}/{sector}.mdb: sector {sector}: offset 0: not a regular file (FIFO)"
    text = millaudit.run("diff", a, b, check=3, timeout=120).stdout
    assert "only in A" not in text and "std_3_4_0_0: unusable:" in text and "incomplete (unusable files)" in text


def test_a_file_its_hashing_cannot_read_is_named_with_its_sector_and_offset(millaudit, produced):
    """A sector file discovery found usable (a regular file) that the comparison cannot read (here:
    no read permission for the user running diff): the one line of every reader error, naming the
    file, the sector and the offset, on stderr and as the sector's reason; exit 3, the other
    sectors still compared."""
    top = shared_tmpdir()
    try:
        a = shutil.copytree(produced, top / "a")
        b = shutil.copytree(produced, top / "b")
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (a / "std_3_4_0_0.mdb").chmod(0o000)
        line = f"{a}/std_3_4_0_0.mdb: sector std_3_4_0_0: offset 0: cannot open: Permission denied"
        proc = run_as_nobody(millaudit.path, "diff", a, b, "--json")
        skip_unless(proc is not None, "running as root without setpriv: cannot make a file unreadable")
        assert proc.returncode == 3, proc.stdout + proc.stderr
        assert proc.stderr == f"millaudit diff: {line}\n"
        doc = json.loads(proc.stdout)
        assert {s["sector"]: s["status"] for s in doc["sectors"]} == {
            "std_3_3_0_0": "identical", "std_3_4_0_0": "unusable", "std_4_3_0_0": "identical"}
        assert [s["message"] for s in doc["sectors"] if s["status"] == "unusable"] == [line]
        assert doc["errors"] == [line]
        proc = run_as_nobody(millaudit.path, "diff", a, b)
        assert proc.returncode == 3 and proc.stderr == f"millaudit diff: {line}\n"
        assert f"std_3_4_0_0: unusable: {line}" in proc.stdout.splitlines()
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)])
        shutil.rmtree(top, ignore_errors=True)


def test_broken_file_beside_a_difference_exits_1(millaudit, produced, tmp_path):
    """A value difference found outweighs a file that could not be compared (as verify: 1 over
    3); the broken file is still named."""
    b = copy_db(produced, tmp_path / "b")
    subprocess.run([sys.executable, INJECT, "--reseal", b / "std_3_3_0_0.mdb", "--entry", "1000",
                    "--depth-delta", "+1"], check=True, capture_output=True)
    data = (b / "std_3_4_0_0.mdb").read_bytes()
    (b / "std_3_4_0_0.mdb").write_bytes(data[:-1])
    proc = millaudit.run("diff", produced, b, "--json", check=1)
    doc = json.loads(proc.stdout)
    by = {s["sector"]: s for s in doc["sectors"]}
    assert by["std_3_3_0_0"]["status"] == "differs"
    assert by["std_3_4_0_0"]["status"] == "unusable"
    assert "std_3_4_0_0.mdb" in by["std_3_4_0_0"]["message"]
    assert doc["errors"] == [by["std_3_4_0_0"]["message"]]
    assert proc.stderr.count("\n") == 1 and "std_3_4_0_0.mdb" in proc.stderr


def test_sector_argument_forms(millaudit, produced):
    doc = diff_json(millaudit, produced, produced, "--sector", "std_3_4_0_0,4_3_0_0", check=0)
    assert [s["sector"] for s in doc["sectors"]] == ["std_3_4_0_0", "std_4_3_0_0"]
    for bad in ("", "3_4_0_0,", "lask_3_4"):
        proc = millaudit.run("diff", produced, produced, "--sector", bad, check=2)
        assert "expected W_B_WF_BF or <variant>_W_B_WF_BF" in proc.stderr
    proc = millaudit.run("diff", produced, produced, "--sector", "lask_3_4_0_0", check=3)
    assert "lask_3_4_0_0: in neither" in proc.stderr


def test_sectors_on_one_side_only_are_not_called_value_differences(millaudit, produced, tmp_path):
    """Every shared sector agrees, one sector is only in A: the databases differ, but no value does,
    and neither diff nor its report may say "values differ: 0 positions differ in value"."""
    b = tmp_path / "b"
    shutil.copytree(produced, b)
    (b / "std_3_4_0_0.mdb").unlink()
    proc = millaudit.run("diff", produced, b, "--audit", tmp_path / "d.sqlite", check=1)
    last = proc.stdout.splitlines()[-1]
    assert " 0 differ in value" in last
    assert last.endswith(": databases differ (sectors on one side only)")
    assert "values differ" not in proc.stdout
    text = millaudit.run("report", "--audit", tmp_path / "d.sqlite", check=0).stdout
    assert text.splitlines()[1] == "verdict: databases differ: 1 sector on one side only, no position differs in value"
    assert "  - 1 sector only in A, 0 only in B" in text.splitlines()
    doc = validate(json.loads(millaudit.run("report", "--audit", tmp_path / "d.sqlite", "--format", "json",
                                            check=0).stdout), "report")
    assert doc["verdict"]["state"] == "values-differ" and doc["verdict"]["good"] is False
    assert doc["verdict"]["headline"].startswith("databases differ: 1 sector on one side only")
