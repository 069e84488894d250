"""millaudit verify on Malom directories: the real fixture files verify, injected single-entry
faults are found at exactly that entry with the right class, bounds mode, and bad input."""
import json
import shutil
import struct

import pytest


def verify_json(bin_, d, *extra, check=None):
    p = bin_.run("verify", d, "--json", "--threads", "2", *extra, check=check)
    return p, json.loads(p.stdout)


def copy(malom_fixtures, tmp_path, sub, names):
    d = tmp_path / "db"
    d.mkdir(exist_ok=True)
    for n in names:
        shutil.copy(malom_fixtures / sub / n, d / n)
        (d / n).chmod(0o644)
    return d


# --- entry codecs (malom-format.md §5.2, §5.7), written for the test from the spec ------------

def sec_entries(data, count):
    return data[:count]


def sec2_header(data):
    version, size, f1 = struct.unpack_from("<iii", data, 0)
    return size, f1


def sec2_get(data, i):
    size, f1 = sec2_header(data)
    raw = int.from_bytes(data[64 + size * i:64 + size * (i + 1)], "little")
    f2 = 8 * size - f1

    def sx(v, bits):
        return v - (1 << bits) if v & (1 << (bits - 1)) else v
    return sx(raw & ((1 << f1) - 1), f1), sx(raw >> f1, f2)


def sec2_put(data, i, key1, key2):
    size, f1 = sec2_header(data)
    f2 = 8 * size - f1
    raw = (key1 & ((1 << f1) - 1)) | ((key2 & ((1 << f2) - 1)) << f1)
    data[64 + size * i:64 + size * (i + 1)] = raw.to_bytes(size, "little")


def rows_of(doc, sector):
    s = [x for x in doc["sectors"] if x["sector"] == sector][0]
    return s, s["rows"]


def assert_single_root(doc, sector, entry, cls):
    s, rows = rows_of(doc, sector)
    roots = [r for r in rows if r["root"]]
    assert [r["entry"] for r in roots] == [entry], rows[:10]
    assert roots[0]["class"] == cls, roots[0]
    assert s["roots"] == 1


# --- real files verify -------------------------------------------------------------------------

def test_std_strong_fully_verified(millaudit, malom_fixtures):
    p, doc = verify_json(millaudit, malom_fixtures / "std-strong", check=0)
    assert doc["database"]["format"] == "malom-sec"
    assert len(doc["sectors"]) == 3
    for s in doc["sectors"]:
        assert s["status"] == "ok"
        assert s["discrepancies"] == 0 and s["within_bounds"] == 0
        assert s["verified"] == s["entries"] > 0
    assert doc["totals"]["verified"] == doc["totals"]["entries"]


def test_std_strong_text_says_all_verified(millaudit, malom_fixtures):
    p = millaudit.run("verify", malom_fixtures / "std-strong", "--quiet", check=0)
    assert "verdict: verified: all 2,018,750 entries of 3 sectors" in p.stdout
    assert "0 discrepancies" in p.stdout


def test_stonediff_sec2_fully_verified(millaudit, malom_fixtures):
    p, doc = verify_json(millaudit, malom_fixtures / "std-ultra-stonediff", check=0)
    assert doc["database"]["format"] == "malom-sec2"
    (s,) = doc["sectors"]
    assert s["sector"] == "std_3_3_0_0"
    # malom-format.md §4.6: W=3, B=3 has hash_count 210,140 indices of which 40,514 are symmetry
    # markers (169,626 canonical) -- a property of the index, so any correct reader finds these.
    assert s["verified"] == s["entries"] == 210140
    assert s["markers"] == 40514


def test_original_excerpt_bounds(millaudit, malom_fixtures):
    d = malom_fixtures / "original-excerpt"
    p, doc = verify_json(millaudit, d, "--allow-bounds", check=0)
    n_files = len([f for f in d.iterdir() if f.suffix == ".sec2"])
    assert len(doc["sectors"]) == n_files
    assert doc["totals"]["discrepancies"] == 0
    full = [s for s in doc["sectors"] if s["within_bounds"] == 0 and s["missing_child"] == 0]
    partial = [s for s in doc["sectors"] if s["within_bounds"] > 0]
    assert full and partial
    for s in full:
        assert s["verified"] == s["entries"] > 0, s
    for s in partial:
        assert s["verified"] + s["within_bounds"] == s["entries"], s
        assert s["bound_wins"] <= s["verified"] - s["markers"]
    for s in full:
        assert s["bound_wins"] == 0
    names = {s["sector"] for s in full}
    assert {"std_3_3_0_0", "std_3_4_0_0", "std_4_3_0_0", "std_2_2_7_7", "std_0_0_9_9"} <= names
    assert {"lask_0_0_10_10", "mora_0_0_12_12"} <= names
    # Without --allow-bounds the run must not pass what it could not check.
    p = millaudit.run("verify", d, "--quiet", "--threads", "2", check=3)
    assert "only within bounds" in p.stdout
    assert "NOT fully verified" in p.stdout
    assert "successor sector file" in p.stderr and "(absent)" in p.stderr


def test_bounds_contradiction_is_a_discrepancy(millaudit, malom_fixtures, tmp_path):
    # std_3_3_6_5 lacks std_2_4_5_5 (mill placements); its placements without a mill are known.
    names = ["std_3_3_6_5.sec2", "std_3_4_5_5.sec2", "std.secval"]
    d = copy(malom_fixtures, tmp_path, "original-excerpt", names)
    f = d / "std_3_3_6_5.sec2"
    data = bytearray(f.read_bytes())
    # The control: unedited, the sector is consistent with the bounds its known children give
    # (exit 0, no discrepancy), and the absent std_2_4_5_5 really leaves entries only bounded, so
    # the edit below is judged by a bound and not by an exact value.
    p, doc = verify_json(millaudit, d, "--allow-bounds", "--sector", "3_3_6_5", check=0)
    s, _ = rows_of(doc, "std_3_3_6_5")
    assert doc["exit"] == 0 and s["discrepancies"] == 0, s
    assert s["within_bounds"] > 0 and s["verified"] + s["within_bounds"] == s["entries"], s
    lines = (d / "std.secval").read_text().split("\n")
    vl = int(lines[0].split(":")[1])
    v = [int(x.split()[4]) for x in lines[3:] if x.split()[:4] == ["3", "3", "6", "5"]][0]
    target = None
    for i in range(210140):
        k1, k2 = sec2_get(data, i)
        if k1 + v == -vl and k2 >= 5:  # a win
            target = i
            break
    assert target is not None
    sec2_put(data, target, vl - v, 0)  # loss in 0: below any known turn
    f.write_bytes(bytes(data))
    p, doc = verify_json(millaudit, d, "--allow-bounds", "--sector", "3_3_6_5", check=1)
    s, rows = rows_of(doc, "std_3_3_6_5")
    assert [r["entry"] for r in rows if r["root"]] == [target]
    assert rows[0]["class"] == "wrong-outcome"
    assert rows[0]["derived"]["bound"] == "lower" and rows[0]["derived"]["text"].startswith(">= ")
    # The bound is a known successor's value: the turn to it refutes the stored loss whatever the
    # absent sector holds, so it is named, as for an exact value. The placement leaves the mover's
    # stones and adds one, and the successor is seen from the other side.
    ref = rows[0]["refutation"]
    mover, opp = (set(x.split(",")) for x in rows[0]["board"].split("/"))
    succ_mover, succ_opp = (set(x.split(",")) for x in ref["successor"].split("/"))
    assert succ_mover == opp and succ_opp == mover | {ref["move"]} and ref["move"] not in mover | opp
    p = millaudit.run("verify", d, "--allow-bounds", "--sector", "3_3_6_5", check=1)
    assert f"derived {rows[0]['derived']['text']}; refuted by {ref['move']}" in p.stdout


# --- injected faults -----------------------------------------------------------------------------

def first_sec_index(data, count, pred):
    for i in range(count):
        if pred(data[i]):
            return i
    raise AssertionError("no entry found")


@pytest.mark.parametrize("fault", ["depth", "outcome", "marker", "overflow"])
def test_sec_fault_found_at_entry(millaudit, malom_fixtures, tmp_path, fault):
    d = copy(malom_fixtures, tmp_path, "std-strong", ["std_3_3_0_0.sec"])
    f = d / "std_3_3_0_0.sec"
    data = bytearray(f.read_bytes())
    count = 210140
    if fault == "marker":
        i = first_sec_index(data, count, lambda b: 180 <= b <= 194)
        data[i] = 180 + (data[i] - 180 + 1) % 15
        cls = "symmetry-inconsistency"
    else:
        i = first_sec_index(data, count, lambda b: b < 179 and b % 2 == 1 and b >= 5)
        if fault == "depth":
            data[i] += 2
            cls = "wrong-depth"
        elif fault == "outcome":
            data[i] += 1
            cls = "wrong-outcome"
        else:
            # An overflow record the reader accepts (§5.7: beyond the inline range) that
            # carries a wrong depth.
            data[i] = 179
            assert data[count:] == struct.pack("<i", 0)
            data[count:] = struct.pack("<iii", 1, i, 181)
            cls = "wrong-depth"
    f.write_bytes(bytes(data))
    p, doc = verify_json(millaudit, d, check=1)
    assert_single_root(doc, "std_3_3_0_0", i, cls)
    text = millaudit.run("verify", d, check=1)
    assert f"entry {i} " in text.stdout


@pytest.mark.parametrize("fault", ["depth", "outcome", "marker", "overflow", "parity"])
def test_sec2_fault_found_at_entry(millaudit, malom_fixtures, tmp_path, fault):
    d = copy(malom_fixtures, tmp_path, "std-ultra-stonediff", ["std_3_3_0_0.sec2"])
    f = d / "std_3_3_0_0.sec2"
    data = bytearray(f.read_bytes())
    count = 210140
    if fault == "marker":
        i = next(i for i in range(count) if sec2_get(data, i)[0] == 0 and sec2_get(data, i)[1] < 0)
        op = -sec2_get(data, i)[1] - 1
        sec2_put(data, i, 0, -((op + 1) % 15) - 1)
        cls = "symmetry-inconsistency"
    else:
        i = next(i for i in range(count) if sec2_get(data, i)[0] == 10 and sec2_get(data, i)[1] >= 5)
        k1, k2 = sec2_get(data, i)
        if fault == "depth":
            sec2_put(data, i, k1, k2 + 2)
            cls = "wrong-depth"
        elif fault == "outcome":
            sec2_put(data, i, -10, k2 + 1)
            cls = "wrong-outcome"
        elif fault == "parity":
            sec2_put(data, i, k1, k2 + 1)  # a win in an even number of plies
            cls = "bad-encoding"
        else:
            sec2_put(data, i, k1, -512)  # SPEC: value in the overflow table
            body = 64 + 2 * count
            assert data[body:] == struct.pack("<i", 0)
            data[body:] = struct.pack("<iii", 1, i, 600 + (k2 % 2))  # odd, beyond inline range
            cls = "wrong-depth"
    f.write_bytes(bytes(data))
    p, doc = verify_json(millaudit, d, check=1)
    assert_single_root(doc, "std_3_3_0_0", i, cls)


@pytest.mark.parametrize("where", ["marker-index", "canonical-index"])
@pytest.mark.parametrize("op", [15, 300])
def test_sec2_marker_naming_no_op_is_one_discrepancy(millaudit_asan, malom_fixtures, tmp_path,
                                                      where, op):
    # Issue 9 item 13: a marker byte naming op >= 15 (there are 15 marker ops, 0..14) is a wrong
    # marker at that entry, symmetry-inconsistency; the file stays usable and every other entry
    # is still verified (it used to make the whole sector unusable, exit 3).
    d = copy(malom_fixtures, tmp_path, "std-ultra-stonediff", ["std_3_3_0_0.sec2"])
    f = d / "std_3_3_0_0.sec2"
    data = bytearray(f.read_bytes())
    count = 210140
    is_marker = (lambda k: k[0] == 0 and k[1] < 0) if where == "marker-index" else \
        (lambda k: k[0] != 0)
    i = next(i for i in range(1000, count) if is_marker(sec2_get(data, i)))
    sec2_put(data, i, 0, -(op + 1))
    f.write_bytes(bytes(data))
    p, doc = verify_json(millaudit_asan, d, check=1)
    s, rows = rows_of(doc, "std_3_3_0_0")
    assert [r["entry"] for r in rows] == [i]
    assert rows[0]["class"] == "symmetry-inconsistency" and rows[0]["root"]
    assert s["discrepancies"] == 1
    if where == "marker-index":
        assert s["verified"] == count - 1
    else:
        # the parents of that position cannot use it (a marker where their successor's value
        # belongs): they are checked within bounds, never counted verified
        assert s["within_bounds"] > 0 and s["verified"] + s["within_bounds"] == count - 1
    assert "unusable" not in p.stderr


def test_sec2_draw_class_fault(millaudit, malom_fixtures, tmp_path):
    names = ["std_2_2_7_7.sec2", "std_2_3_7_6.sec2", "std_1_3_7_6.sec2", "std.secval"]
    d = copy(malom_fixtures, tmp_path, "original-excerpt", names)
    p, doc = verify_json(millaudit, d, "--sector", "2_2_7_7", check=0)
    f = d / "std_2_2_7_7.sec2"
    data = bytearray(f.read_bytes())
    # Test vector 16 of malom-format.md: std 2_2_7_7 index 1262 is a draw stored as (49, -28).
    assert sec2_get(data, 1262) == (49, -28)
    sec2_put(data, 1262, 50, -28)
    f.write_bytes(bytes(data))
    p, doc = verify_json(millaudit, d, "--sector", "2_2_7_7", check=1)
    assert_single_root(doc, "std_2_2_7_7", 1262, "wrong-draw-class")


def test_audit_records_malom_run(millaudit, malom_fixtures, tmp_path):
    import sqlite3
    db = tmp_path / "a.sqlite"
    millaudit.run("verify", malom_fixtures / "std-ultra-stonediff", "--quiet", "--audit", db, check=0)
    con = sqlite3.connect(db)
    assert con.execute("select kind, format, variant from runs").fetchall() == [
        ("verify", "malom-sec2", "std")]


def test_overflow_record_the_reader_rejects(millaudit_asan, malom_fixtures, tmp_path):
    # An overflow record whose value would fit inline is malformed (§5.7): unusable, not a value.
    d = copy(malom_fixtures, tmp_path, "std-strong", ["std_3_3_0_0.sec"])
    f = d / "std_3_3_0_0.sec"
    data = bytearray(f.read_bytes())
    i = first_sec_index(data, 210140, lambda b: b < 179 and b % 2 == 1)
    data[i] = 179
    data[210140:] = struct.pack("<iii", 1, i, 21)
    f.write_bytes(bytes(data))
    p = millaudit_asan.run("verify", d, check=3)
    line = [l for l in p.stderr.splitlines() if "std_3_3_0_0.sec" in l][0]
    assert "sector 3_3_0_0" in line and "offset 210148" in line and "overflow" in line


# --- bad input (ASan build) ----------------------------------------------------------------------

def test_sec2_without_secval(millaudit_asan, malom_fixtures, tmp_path):
    d = copy(malom_fixtures, tmp_path, "original-excerpt", ["std_1_1_8_8.sec2"])
    p = millaudit_asan.run("verify", d, check=3)
    line = [l for l in p.stderr.splitlines() if "std_1_1_8_8.sec2" in l][0]
    assert "sector 1_1_8_8" in line and "offset" in line
    assert "ERROR: AddressSanitizer" not in p.stderr


@pytest.mark.parametrize("damage", ["truncated", "appended"])
def test_size_damage(millaudit_asan, malom_fixtures, tmp_path, damage):
    d = copy(malom_fixtures, tmp_path, "std-strong", ["std_3_3_0_0.sec"])
    f = d / "std_3_3_0_0.sec"
    data = f.read_bytes()
    f.write_bytes(data[:100000] if damage == "truncated" else data + b"\0")
    p = millaudit_asan.run("verify", d, check=3)
    line = [l for l in p.stderr.splitlines() if "std_3_3_0_0.sec" in l][0]
    assert "sector 3_3_0_0" in line and "offset" in line
    assert "runtime error" not in p.stderr


def test_missing_child_full_mode(millaudit_asan, malom_fixtures, tmp_path):
    d = copy(malom_fixtures, tmp_path, "original-excerpt", ["std_2_2_7_7.sec2", "std.secval"])
    p = millaudit_asan.run("verify", d, check=3)
    line = [l for l in p.stderr.splitlines() if "only within bounds" in l][0]
    assert "std_2_2_7_7.sec2" in line and "sector std_2_2_7_7" in line
    assert "offset" not in line  # an absent successor has no offset to name (issue 23)
    assert "std_2_3_7_6.sec2" in line
    p = millaudit_asan.run("verify", d, "--allow-bounds", "--quiet", check=0)
    assert "only within bounds" in p.stdout and "verdict: verified within bounds only" in p.stdout


def test_usage_errors(millaudit, malom_fixtures):
    millaudit.run("verify", malom_fixtures / "std-strong", "--full-board-draw", "maybe", check=2)
    millaudit.run("verify", malom_fixtures / "std-strong", "--sector", "9_9_9_9", check=2)


def test_secval_sector_outside_mora_names_the_game(millaudit, malom_fixtures, tmp_path):
    # A generated mutant (issue 43) made the Mora game's name a null pointer in the .secval
    # parser's messages and no test noticed: the refusal must name the game the file is read for.
    d = copy(malom_fixtures, tmp_path, "original-excerpt", ["mora_0_0_12_12.sec2", "mora.secval"])
    sv = d / "mora.secval"
    lines = sv.read_text().split("\n")
    i = next(k for k, l in enumerate(lines) if l.split()[:4] == ["0", "1", "3", "2"])
    lines[i] = "12 0 1 0  " + lines[i].split()[4]  # 12 + 1 white stones: more than Mora's 12
    sv.write_text("\n".join(lines))
    p = millaudit.run("verify", d, check=3)
    line = [l for l in p.stderr.splitlines() if "mora.secval" in l][0]
    assert "not a sector of mora" in line, line
    assert "(null)" not in p.stderr


def test_the_recorded_inventory_is_the_files_as_documented(millaudit_asan, malom_fixtures, tmp_path):
    """docs/audit-schema.md `run_inventory` and `runs.inventory_digest`, recomputed by a third
    implementation from the files on disk: each file's name, size, SHA-256 and sector (NULL for the
    .secval), and the digest of those lines. The sanitizer build fills uninitialised locals with
    a pattern, so a field the run forgot to clear shows here."""
    import hashlib
    import sqlite3
    names = ["std_3_3_6_5.sec2", "std_3_4_5_5.sec2", "std.secval"]
    d = copy(malom_fixtures, tmp_path, "original-excerpt", names)
    store = tmp_path / "a.sqlite"
    millaudit_asan.run("verify", d, "--allow-bounds", "--audit", store, "--quiet")
    want = sorted((n, (d / n).stat().st_size, "sha256:" + hashlib.sha256((d / n).read_bytes()).hexdigest(),
                   None if n.endswith(".secval") else n[:-len(".sec2")]) for n in names)
    db = sqlite3.connect(store)
    rows = db.execute("SELECT path, size, digest, sector FROM run_inventory ORDER BY path").fetchall()
    assert rows == want
    text = "millaudit inventory 1\n" + "".join(f"{p}\t{s}\t{g}\t{x or ''}\n" for p, s, g, x in want)
    (digest,) = db.execute("SELECT inventory_digest FROM runs").fetchone()
    assert digest == hashlib.sha256(text.encode()).hexdigest()
