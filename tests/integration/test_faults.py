"""Fault injection: one wrong entry in a correct database must be found at exactly that entry.

The database is the producer's whole std 3-stone game. Values are edited with
scripts/inject_fault.py in std_2_3_1_0, a placing sector whose successors all lie in std_3_3_0_0,
so an edited entry is never its own successor's successor and must come out as the only root.
Malformed inputs run through the ASan/UBSan build: a clear one-line error and the right exit code,
never a crash.
"""
import importlib.util
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys

import pytest

from conftest import ROOT
from test_verify import read_words, solve, verify_json

SCRIPT = ROOT / "scripts" / "inject_fault.py"
SECTOR = "std_2_3_1_0"


@pytest.fixture(scope="module")
def game3(millaudit, tmp_path_factory):
    return solve(millaudit, "std", 3, tmp_path_factory.mktemp("g") / "std3")


@pytest.fixture(scope="module")
def lask3(millaudit, tmp_path_factory):
    return solve(millaudit, "lask", 3, tmp_path_factory.mktemp("g") / "lask3")


@pytest.fixture
def db(game3, tmp_path):
    return shutil.copytree(game3, tmp_path / "db")


def inject(path, *args, check=0, env=None):
    """A wrong value the producer wrote: the header's body digest resealed, so the file is not
    damaged (docs/download.md) and only its values are wrong."""
    proc = subprocess.run([sys.executable, str(SCRIPT), str(path), *map(str, args), "--reseal"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == check, proc.stderr
    return proc


def pick(words, want):
    """First entry whose word satisfies want(outcome, depth)."""
    for e, w in enumerate(words):
        if w and want(w >> 14, w & 0x3FFF):
            return e
    raise AssertionError("no such entry")


def roots(doc):
    return {(s["sector"], r["entry"]) for s in doc["sectors"] for r in s.get("rows", []) if r["root"]}


def rows_at(doc, sector, entry):
    return [r for s in doc["sectors"] if s["sector"] == sector for r in s["rows"] if r["entry"] == entry]


def check_single_root(millaudit, db, entry, cls, tmp_path):
    audit = tmp_path / "audit.sqlite"
    proc, doc = verify_json(millaudit, db, "--audit", audit, check=1)
    assert doc["exit"] == 1
    assert roots(doc) == {(SECTOR, entry)}
    assert doc["totals"]["roots"] == 1
    (row,) = rows_at(doc, SECTOR, entry)
    assert row["class"] == cls and row["root"] is True
    sec = next(s for s in doc["sectors"] if s["sector"] == SECTOR)
    assert sec["classes"][cls] >= 1 and sec["status"] == "discrepancies"
    con = sqlite3.connect(audit)
    got = con.execute("SELECT class, board, stored, derived FROM discrepancies WHERE sector = ? AND entry = ?",
                      (SECTOR, entry)).fetchall()
    assert len(got) == 1 and got[0][0] == cls and got[0][1]
    assert con.execute("SELECT status FROM runs").fetchone()[0] == "discrepancies"
    return row


def test_changed_outcome_is_a_root_wrong_outcome(millaudit, db, tmp_path):
    path = db / f"{SECTOR}.mdb"
    entry = pick(read_words(path), lambda o, d: o == 3 and d >= 3)
    out = inject(path, "--entry", entry, "--outcome", "loss").stdout
    assert f"entry {entry} (offset {128 + 2 * entry})" in out and "-> 0x4" in out
    row = check_single_root(millaudit, db, entry, "wrong-outcome", tmp_path)
    assert row["derived"]["outcome"] == "win" and row["stored"]["outcome"] == "loss"
    # the successor that proves the derived win is named as a move a reader can replay
    assert re.fullmatch(r"([a-g][1-7]-)?[a-g][1-7](x[a-g][1-7])?", row["refutation"]["move"])


def test_depth_off_by_one_step_is_a_root_wrong_depth(millaudit, db, tmp_path):
    path = db / f"{SECTOR}.mdb"
    words = read_words(path)
    entry = pick(words, lambda o, d: o == 3 and d >= 3)
    inject(path, "--entry", entry, "--depth-delta", "+1")
    assert read_words(path)[entry] == words[entry] + 2
    row = check_single_root(millaudit, db, entry, "wrong-depth", tmp_path)
    assert (row["derived"]["outcome"], row["derived"]["depth"]) == ("win", words[entry] & 0x3FFF)
    assert row["derived"]["text"] == f"win {words[entry] & 0x3FFF}" and row["derived"]["bound"] == "exact"


def test_terminal_value_changed_is_wrong_terminal(millaudit, db, tmp_path):
    path = db / f"{SECTOR}.mdb"
    entry = pick(read_words(path), lambda o, d: o == 3 and d == 1)  # win in 1 by reduction
    inject(path, "--entry", entry, "--outcome", "draw")
    check_single_root(millaudit, db, entry, "wrong-terminal", tmp_path)


def test_bad_encoding_is_reported(millaudit, db, tmp_path):
    path = db / f"{SECTOR}.mdb"
    entry = pick(read_words(path), lambda o, d: o == 1)
    inject(path, "--entry", entry, "--word", "0xC002")  # a win with an even depth
    row = check_single_root(millaudit, db, entry, "bad-encoding", tmp_path)
    assert row["stored"]["outcome"] == "bad" and row["stored"]["text"] == "bad 0xC002"


def test_word_in_non_canonical_entry_is_symmetry_inconsistency(millaudit, db, tmp_path):
    path = db / f"{SECTOR}.mdb"
    words = read_words(path)
    entry = words.index(0)
    inject(path, "--entry", entry, "--word", "0x8000")
    check_single_root(millaudit, db, entry, "symmetry-inconsistency", tmp_path)


def test_swapped_entries_are_both_roots(millaudit, db):
    path = db / f"{SECTOR}.mdb"
    words = read_words(path)
    a = pick(words, lambda o, d: o == 3 and d >= 3)
    b = pick(words, lambda o, d: o == 1 and d >= 2)
    out = inject(path, "--entry", a, "--swap-with", b).stdout
    assert out.count("->") == 2
    _, doc = verify_json(millaudit, db, check=1)
    assert roots(doc) == {(SECTOR, a), (SECTOR, b)}
    for e in (a, b):
        (row,) = rows_at(doc, SECTOR, e)
        assert row["class"] == "wrong-outcome"


def test_predecessors_of_a_fault_are_propagated_not_roots(millaudit, db):
    """A draw made a loss in 0 turns its draw predecessors into wins: propagated discrepancies."""
    path = db / "std_3_3_0_0.mdb"
    words = read_words(path)
    entry = pick(words, lambda o, d: o == 2)
    inject(path, "--entry", entry, "--outcome", "loss", "--depth", "0")
    _, doc = verify_json(millaudit, db, "--max-rows", "100000", check=1)
    assert roots(doc) == {("std_3_3_0_0", entry)}
    assert doc["totals"]["propagated"] >= 1
    assert doc["totals"]["discrepancies"] == 1 + doc["totals"]["propagated"]


def test_max_rows_caps_rows_not_counts(millaudit, db, tmp_path):
    path = db / "std_3_3_0_0.mdb"
    words = read_words(path)
    bad = [e for e, w in enumerate(words) if w][:5]
    for e in bad:
        inject(path, "--entry", e, "--word", "0xC000")
    audit = tmp_path / "a.sqlite"
    _, doc = verify_json(millaudit, db, "--max-rows", "2", "--audit", audit, check=1)
    sec = next(s for s in doc["sectors"] if s["sector"] == "std_3_3_0_0")
    assert sec["classes"]["bad-encoding"] == 5 and len(sec["rows"]) == 2
    con = sqlite3.connect(audit)
    assert con.execute("SELECT COUNT(*) FROM discrepancies WHERE sector='std_3_3_0_0'").fetchone()[0] == 2
    assert con.execute("SELECT count FROM sector_class_counts WHERE sector='std_3_3_0_0' AND "
                       "class='bad-encoding'").fetchone()[0] == 5


def test_inject_fault_canonicalises_any_symmetric_form():
    spec = importlib.util.spec_from_file_location("inject_fault", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    w, b = mod.parse_board("a1,d1,b4/c3,e4,e5")
    canon = mod.canonical(w, b)
    for k in range(16):
        img = (mod.permute(k, w), mod.permute(k, b))
        assert mod.canonical(*img) == canon
        assert canon <= img
    # format.md §4.4: sector 0_1 has canonical boards a1, d1, b2, d2 only
    assert {mod.format_board(*mod.canonical(0, 1 << p)) for p in range(24)} == \
        {"-/a1", "-/d1", "-/b2", "-/d2"}


def test_inject_by_board_in_a_symmetric_form(millaudit, db):
    """--board takes any of the 16 images; the edit lands on the canonical entry."""
    spec = importlib.util.spec_from_file_location("inject_fault", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    path = db / f"{SECTOR}.mdb"
    words = read_words(path)
    entry = pick(words, lambda o, d: o == 3 and d >= 3)
    line = next(l for l in millaudit.run("dump", "--with-entry", path, check=0).stdout.splitlines()
                if l.startswith(f"{entry} "))
    w, b = mod.parse_board(line.split()[1])
    image = mod.format_board(mod.permute(9, w), mod.permute(9, b))
    env = dict(os.environ, MILLAUDIT_BIN=str(millaudit.path))
    out = inject(path, "--board", image, "--outcome", "draw", env=env).stdout
    assert f"entry {entry}" in out
    changed = [e for e, (x, y) in enumerate(zip(words, read_words(path))) if x != y]
    assert changed == [entry]
    _, doc = verify_json(millaudit, db, check=1)
    assert roots(doc) == {(SECTOR, entry)}


def test_inject_fault_refuses_impossible_edits(db):
    path = db / f"{SECTOR}.mdb"
    words = read_words(path)
    inject(path, "--entry", len(words), "--word", "0x8000", check=2)
    inject(path, "--entry", words.index(0), "--depth-delta", "+1", check=2)
    (db / "junk.bin").write_bytes(b"x" * 200)
    inject(db / "junk.bin", "--entry", 0, "--word", "0", check=3)
    assert read_words(path) == words


# ---- malformed input, through the ASan/UBSan build ----

def assert_clean(proc):
    assert "AddressSanitizer" not in proc.stderr and "runtime error" not in proc.stderr, proc.stderr


def error_line(proc, file_name, sector):
    pattern = rf"^millaudit verify: \S*{re.escape(file_name)}: sector {sector}: offset \d+: .+$"
    match = re.search(pattern, proc.stderr, re.M)
    assert match, proc.stderr
    return match.group(0)


def patch(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def test_truncated_file(millaudit_asan, db):
    path = db / "std_3_3_0_0.mdb"
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(size - 3)
    proc = millaudit_asan.run("verify", db, check=3)
    assert_clean(proc)
    # shorter than its header's entry count needs: damaged (docs/download.md), before the reader
    # is asked, and the parent that reads it is not checked either, and says why
    assert f"millaudit verify: {db}/std_3_3_0_0.mdb: damaged: offset 24: size differs: {size - 3:,} bytes, its header's " \
           f"entry count needs {size:,} (truncated)" in proc.stderr.splitlines()
    assert "std_2_3_1_0: not checked: input damaged: it reads std_3_3_0_0.mdb (size-differs)" in proc.stdout
    assert re.search(r"^verdict: damaged: 1 file differs from what its producer wrote", proc.stdout, re.M)


def test_wrong_magic(millaudit_asan, db):
    patch(db / "std_2_2_1_1.mdb", 1, b"X")
    proc = millaudit_asan.run("verify", db, check=3)
    assert_clean(proc)
    assert "offset" in error_line(proc, "std_2_2_1_1.mdb", r"\S+")


def test_header_and_size_disagree(millaudit_asan, db):
    path = db / "std_1_2_2_1.mdb"
    count = struct.unpack_from("<Q", path.read_bytes(), 24)[0]
    patch(path, 24, struct.pack("<Q", count + 1))
    proc = millaudit_asan.run("verify", db, check=3)
    assert_clean(proc)
    # the file is two bytes shorter than the entry count says: damaged, named with both sizes
    size = path.stat().st_size
    assert f"millaudit verify: {db}/std_1_2_2_1.mdb: damaged: offset 24: size differs: {size:,} bytes, its header's " \
           f"entry count needs {size + 2:,} (truncated)" in proc.stderr.splitlines()


def test_file_of_another_variant_is_its_own_sector_graph(millaudit_asan, db, lask3):
    # A directory may hold several variants (Malom's downloads do); every header states its
    # variant, so each variant's sectors are checked against their own successors.
    shutil.copy(lask3 / "lask_3_3_0_0.mdb", db)
    proc = millaudit_asan.run("verify", db, "--json", check=0)
    assert_clean(proc)
    doc = json.loads(proc.stdout)
    assert doc["database"]["variants"] == ["std", "lask"]
    assert "lask_3_3_0_0" in [s["sector"] for s in doc["sectors"]] and len(doc["sectors"]) == 8
    # a sector named without its variant is then ambiguous: a usage error that says how to fix it
    proc = millaudit_asan.run("verify", db, "--sector", "3_3_0_0", check=2)
    assert "name one, e.g. std_3_3_0_0" in proc.stderr


def test_missing_child_sector(millaudit_asan, db):
    (db / "std_3_3_0_0.mdb").unlink()
    proc = millaudit_asan.run("verify", db, check=3)
    assert_clean(proc)
    assert re.search(r"std_2_3_1_0\.mdb: sector std_2_3_1_0: successor sector file "
                     r"std_3_3_0_0\.mdb \(absent\); [\d,]+ entr(?:y|ies) not verified", proc.stderr)


def test_discrepancy_outweighs_unusable_input(millaudit_asan, db):
    (db / "std_0_0_3_3.mdb").write_bytes(b"")  # the start sector: nobody needs it
    path = db / f"{SECTOR}.mdb"
    inject(path, "--entry", pick(read_words(path), lambda o, d: o == 2), "--word", "0x4001")
    proc = millaudit_asan.run("verify", db, check=1)
    assert_clean(proc)
    error_line(proc, "std_0_0_3_3.mdb", r"\S+")


# A store that cannot be created where asked is output not writable (4); a path that holds
# something else than a store (a directory, a text file) is unusable input (3), as for every
# command that opens a store (README exit codes, docs/audit-schema.md).
@pytest.mark.parametrize("where,code", [("missing-dir", 4), ("directory", 3), ("not-sqlite", 3)])
def test_audit_not_writable(millaudit_asan, db, tmp_path, where, code):
    target = {"missing-dir": tmp_path / "no" / "such" / "a.sqlite", "directory": tmp_path,
              "not-sqlite": tmp_path / "text.sqlite"}[where]
    if where == "not-sqlite":
        target.write_text("not a database\n" * 100)
    proc = millaudit_asan.run("verify", db, "--audit", target, check=code)
    assert_clean(proc)
    assert len([l for l in proc.stderr.splitlines() if l.startswith("millaudit verify:")]) == 1
    assert str(target) in proc.stderr
    if where == "not-sqlite":
        assert target.read_text() == "not a database\n" * 100
