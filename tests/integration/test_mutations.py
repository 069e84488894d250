"""Mutation tests of the whole checker: a producer with one planted rules bug writes a database, and
the checker must find exactly the discrepancies that bug causes, in the sectors where it causes them.

Each case solves one sector with everything it depends on using the planted producer (the test-only
`millaudit-planted`, MILLAUDIT_PLANTED_BIN; docs/solver.md "Planted bugs"), verifies the directory
with the real checker, and compares every sector's discrepancy count, roots, propagated and count
per class with EXPECTED. Sectors a case does not list must verify completely: that is where the bug
cannot show (and the control for the checker's false positives there). The controls at the end
verify the same target sectors solved without a bug: zero discrepancies.

Where the numbers come from. Producer and checker are deterministic (the solver's values do not
depend on its thread count, the checker's counts not on its own), so each number is a fixed
consequence of the bug, the sector set and the rules. None is the checker's word alone:
  - removal-from-mill and double-removal (BYTE_ORACLE) change only entries whose parents are not
    solved from them inside the checked set, so every wrong word is a root and nothing else is:
    their numbers are the entries whose stored word differs from the clean solve of the same
    sector, split by whether the outcome bits differ. oracle() derives them by a byte comparison
    and the test asserts that derivation equals the table before it asks the checker;
  - fly-early and blocked-not-lost are not such bugs: the producer solves the target's twin (or
    the target itself, 4_4_0_0 moves into 4_4_0_0) from the wrong values, so more words differ
    from the clean solve than are locally wrong (std 4_3_0_0: 684,965 words differ, 651,831 are
    roots; 4_4_0_0: 188 differ, 6 are roots). Their roots are therefore only bounded by the byte
    comparison (at most the differing words, never zero), blocked-not-lost's 6 are counted from the
    rules below, and fly-early's class split is recorded checker output;
  - DEPTH_IN_MOVES_STD3's std_3_3_0_0 bad encodings are counted from a clean file; its other
    sectors (parents solved from halved depths, with propagated discrepancies) are recorded.
Two are derived here independently of both programs:
  - blocked-not-lost: the roots are exactly the positions of 4_4_0_0 whose mover is blocked, up to
    symmetry, stored as draws instead of losses in 0 (wrong-terminal); blocked_positions() counts
    them from docs/format.md's adjacency and §4.2 (6, std and lask share the board).
  - depth-in-moves: std_3_3_0_0 has no children, so its words are the clean values with the depth
    written as (plies + 1) // 2; the ones whose parity then contradicts the outcome are its bad
    encodings, counted from a clean solve of that sector.
Why the discrepancies sit where they do:
  - fly-early (std and mora 4_3_0_0): the producer lets the 4-stone mover of 4_3_0_0 fly. Every
    affected entry is a root (its successors lie in 3_4_0_0, which is consistent with the stored
    4_3_0_0 values it was solved from, so it verifies), and 3_3_0_0 cannot see the bug.
  - blocked-not-lost (std and lask 4_4_0_0): only the blocked positions are wrong; their parents
    were solved from the stored draws and are consistent with them. 4_4_0_0 is the smallest sector
    with a blocked mover (a 4-stone side needs 4 blockers: 4_3_0_0 has none).
  - removal-from-mill (std 3_5_0_0): the opponent needs a mill plus free stones to make the choice
    matter; all 177 are roots, wrong outcomes.
  - double-removal (std 4_4_1_0): a placement closing two mills. Only the target sector is verified
    here: its dependencies include 4_5_0_0 and 5_4_0_0 (23 million entries, too slow for every
    run), and in the moving phase a double mill either needs 5 movers (5_4_0_0, where one removal
    already leaves 3 and two leave 2: a win either way) or cannot happen.
  - depth-in-moves (std 3-stone game): every depth is written as (plies + 1) // 2, and the
    producer reads its own halved child values back, so parents are solved from wrong depths too:
    bad encodings (parity contradicts the outcome) and wrong depths in every sector. An entry whose
    successor word is a bad encoding is counted unverifiable, never guessed: all four entries of
    0_1_3_2 (their successors in 1_1_2_2 are all bad encodings), so 0_1_3_2 has no discrepancy.
"""
import itertools
import pathlib
import struct

import pytest

from test_verify import verify_json

# (variant, bug, target sector) -> {sector: (discrepancies, roots, propagated, unverifiable,
#                                            {class: count})}
EXPECTED = {
    ("std", "fly-early", "4_3_0_0"): {
        "std_4_3_0_0": (651831, 651831, 0, 0, {"wrong-outcome": 6840, "wrong-depth": 644991})},
    ("mora", "fly-early", "4_3_0_0"): {
        "mora_4_3_0_0": (549274, 549274, 0, 0, {"wrong-outcome": 4885, "wrong-depth": 544389})},
    ("std", "blocked-not-lost", "4_4_0_0"): {
        "std_4_4_0_0": (6, 6, 0, 0, {"wrong-terminal": 6})},
    ("lask", "blocked-not-lost", "4_4_0_0"): {
        "lask_4_4_0_0": (6, 6, 0, 0, {"wrong-terminal": 6})},
    ("std", "removal-from-mill", "3_5_0_0"): {
        "std_3_5_0_0": (177, 177, 0, 0, {"wrong-outcome": 177})},
    ("std", "double-removal", "4_4_1_0"): {
        "std_4_4_1_0": (5980, 5980, 0, 0, {"wrong-outcome": 5978, "wrong-depth": 2})},
}
ONLY_TARGET_VERIFIED = {"double-removal"}
# bugs whose every wrong stored word is a root, found exactly by a byte comparison (docstring)
BYTE_ORACLE = {"removal-from-mill", "double-removal"}

DEPTH_IN_MOVES_STD3 = {
    "std_3_3_0_0": (61331, 61331, 0, 39680, {"bad-encoding": 61331}),
    "std_2_3_1_0": (13600, 13600, 0, 9354, {"wrong-depth": 2685, "bad-encoding": 10915}),
    "std_2_2_1_1": (2391, 2375, 16, 1123, {"wrong-depth": 159, "bad-encoding": 2232}),
    "std_1_2_2_1": (346, 346, 0, 82, {"wrong-depth": 20, "bad-encoding": 326}),
    "std_1_1_2_2": (46, 46, 0, 0, {"bad-encoding": 46}),
    "std_0_1_3_2": (0, 0, 0, 4, {}),
    "std_0_0_3_3": (1, 1, 0, 0, {"bad-encoding": 1}),
}

# docs/format.md §1 and §4.1 (the permutations as inject_fault.py transcribes them)
ADJACENCY = [514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177, 264712, 33856, 139520,
             1069088, 8396804, 67584, 688128, 69632, 525312, 5570560, 532480, 4194816, 11010048,
             4210688]


def _perms():
    import sys
    from conftest import ROOT
    sys.path.insert(0, str(ROOT / "scripts"))
    from inject_fault import PERMS
    return PERMS


def blocked_positions(w, b):
    """Positions of sector w_b_0_0 (std/lask board) whose mover has no slide, up to symmetry."""
    perms = _perms()

    def image(k, m):
        return sum(1 << perms[k][p] for p in range(24) if m >> p & 1)

    seen = set()
    for stones in itertools.combinations(range(24), w):
        mover = sum(1 << p for p in stones)
        need = 0
        for p in stones:
            need |= ADJACENCY[p]
        need &= ~mover  # every free neighbour must hold an opponent stone
        k = bin(need).count("1")
        if k > b:
            continue
        rest = [p for p in range(24) if not (mover | need) >> p & 1]
        for extra in itertools.combinations(rest, b - k):
            opp = need | sum(1 << p for p in extra)
            seen.add(min((image(i, mover), image(i, opp)) for i in range(16)))
    return len(seen)


def halved_depth_bad_encodings(path):
    """Canonical words of a clean file that become bad encodings when the depth d is written as
    (d + 1) // 2 (format.md §5.3: a win needs an odd depth, a loss an even one)."""
    data = pathlib.Path(path).read_bytes()[128:]
    bad = 0
    for (w,) in struct.iter_unpack("<H", data):
        outcome, depth = w >> 14, w & 0x3FFF
        if outcome in (1, 3):
            d = (depth + 1) // 2
            bad += (outcome == 3) != (d % 2 == 1)
    return bad


def per_sector(doc):
    return {s["sector"]: (s["discrepancies"], s["roots"], s["propagated"], s["unverifiable"],
                          {c: n for c, n in s["classes"].items() if n}) for s in doc["sectors"]}


def assert_sectors(doc, expected, every_sector=True):
    got = per_sector(doc)
    for name, want in expected.items():
        assert got.get(name) == want, f"{name}: got {got.get(name)}, expected {want}"
    if every_sector:
        for s in doc["sectors"]:
            if s["sector"] not in expected:
                assert s["discrepancies"] == 0 and s["verified"] == s["entries"] > 0, \
                    f"{s['sector']} should verify completely: {got[s['sector']]}"
    total = doc["totals"]
    assert total["roots"] + total["propagated"] == total["discrepancies"]
    assert doc["exit"] == (1 if total["discrepancies"] else 0)


def solve(bin_, out, variant, bug=None, sector=None, stones=None):
    args = ["solve", "--variant", variant, "--out", out, "--quiet"]
    args += ["--sector", sector, "--with-deps"] if sector else ["--stones", str(stones)]
    if bug:
        args += ["--plant-bug", bug]
    bin_.run(*args, check=0)


@pytest.fixture(scope="module")
def clean(millaudit, tmp_path_factory):
    """The controls' clean solves (CONTROLS), each made once: the same sectors without a bug."""
    made = {}

    def get(variant, root):
        if (variant, root) not in made:
            d = tmp_path_factory.mktemp(f"clean-{variant}-{root}")
            solve(millaudit, d, variant, sector=root)
            made[(variant, root)] = d
        return made[(variant, root)]
    return get


def control_of(variant, sector):
    return next(key for key, targets in CONTROLS.items() if key[0] == variant and sector in targets)


def differing_words(bugged, good):
    """(entries whose outcome differs, entries whose depth alone differs) between two open-format
    files of one sector, read as docs/format.md §5.3 words: a byte comparison, no program's view."""
    a, b = pathlib.Path(bugged).read_bytes(), pathlib.Path(good).read_bytes()
    assert len(a) == len(b)
    outcome = depth = 0
    for (x,), (y,) in zip(struct.iter_unpack("<H", a[128:]), struct.iter_unpack("<H", b[128:])):
        if x != y:
            if x >> 14 != y >> 14:
                outcome += 1
            else:
                depth += 1
    return outcome, depth


def oracle(variant, bug, sector, bugged_file, good_file):
    """What the checker must find in the target sector of a bug whose every wrong entry is a root
    (the docstring says why for each bug): exactly the entries that differ from the clean solve,
    each a root, classed by what differs. blocked-not-lost's wrong outcomes are terminal positions
    (a blocked mover has no turn), counted by blocked_positions()."""
    outcome, depth = differing_words(bugged_file, good_file)
    n = outcome + depth
    classes = {"wrong-terminal" if bug == "blocked-not-lost" else "wrong-outcome": outcome,
               "wrong-depth": depth}
    return {f"{variant}_{sector}": (n, n, 0, 0, {c: k for c, k in classes.items() if k})}


@pytest.mark.parametrize("variant,bug,sector", sorted(EXPECTED), ids=lambda x: x)
def test_planted_bug_is_found_where_it_is(millaudit, millaudit_planted, clean, tmp_path, variant, bug, sector):
    out = tmp_path / f"{variant}-{bug}"
    out.mkdir()
    solve(millaudit_planted, out, variant, bug, sector=sector)
    assert (out / f"{variant}_{sector}.mdb").exists()
    # the recorded numbers are not the checker's word: a byte comparison with the clean solve
    # derives them where every wrong word is a root, and bounds them elsewhere (docstring)
    good = clean(*control_of(variant, sector)) / f"{variant}_{sector}.mdb"
    derived = oracle(variant, bug, sector, out / f"{variant}_{sector}.mdb", good)
    want = EXPECTED[(variant, bug, sector)]
    if bug in BYTE_ORACLE:
        assert derived == want
    else:
        name = f"{variant}_{sector}"
        assert 0 < want[name][1] <= derived[name][1], (derived, want)
    only = bug in ONLY_TARGET_VERIFIED
    _, doc = verify_json(millaudit, out, "--threads", "2", *(["--sector", sector] if only else []),
                         check=1)
    if only:
        assert [s["sector"] for s in doc["sectors"]] == [f"{variant}_{sector}"]
    else:  # every file the solve wrote was checked
        assert sorted(s["sector"] + ".mdb" for s in doc["sectors"]) == sorted(p.name for p in out.glob("*.mdb"))
    assert_sectors(doc, EXPECTED[(variant, bug, sector)])


def test_blocked_count_is_derived_from_the_rules():
    """The 6 of blocked-not-lost, counted without either program."""
    assert blocked_positions(4, 4) == EXPECTED[("std", "blocked-not-lost", "4_4_0_0")]["std_4_4_0_0"][1]
    assert blocked_positions(4, 3) == 0  # why 4_4_0_0 is the smallest sector with a blocked mover


def test_depth_in_moves_is_found_in_every_sector(millaudit, millaudit_planted, tmp_path):
    bugged, clean = tmp_path / "bugged", tmp_path / "clean"
    bugged.mkdir()
    clean.mkdir()
    solve(millaudit_planted, bugged, "std", "depth-in-moves", stones=3)
    solve(millaudit, clean, "std", sector="3_3_0_0")
    assert halved_depth_bad_encodings(clean / "std_3_3_0_0.mdb") == \
        DEPTH_IN_MOVES_STD3["std_3_3_0_0"][4]["bad-encoding"]
    _, doc = verify_json(millaudit, bugged, "--threads", "2", check=1)
    assert set(per_sector(doc)) == set(DEPTH_IN_MOVES_STD3)
    assert_sectors(doc, DEPTH_IN_MOVES_STD3)


CONTROLS = {  # clean solves of every target above, with their dependencies
    ("std", "4_4_1_0"): ["4_3_0_0", "4_4_0_0", "3_5_0_0", "4_4_1_0"],
    ("lask", "4_4_0_0"): ["4_4_0_0"],
    ("mora", "4_3_0_0"): ["4_3_0_0"],
}


def test_every_target_has_a_control():
    controlled = {(v, t) for (v, _), targets in CONTROLS.items() for t in targets}
    assert {(v, s) for v, _, s in EXPECTED} <= controlled


@pytest.mark.parametrize("variant,root", sorted(CONTROLS), ids=lambda x: x)
def test_same_sectors_without_a_bug_verify_clean(millaudit, clean, variant, root):
    """The control: each target sector, solved by the producer without a bug, verifies with zero
    discrepancies (so the counts above are the bug's, not the checker's)."""
    targets = CONTROLS[(variant, root)]
    args = [a for t in targets for a in ("--sector", t)]
    _, doc = verify_json(millaudit, clean(variant, root), "--threads", "2", *args, check=0)
    assert sorted(s["sector"] for s in doc["sectors"]) == sorted(f"{variant}_{t}" for t in targets)
    for s in doc["sectors"]:
        assert s["discrepancies"] == 0 and s["verified"] == s["entries"] > 0, s["sector"]


def test_every_row_of_a_large_sector_is_recorded_and_printed(millaudit, millaudit_planted, tmp_path):
    """Scale of the record: all 651,831 discrepancies of fly-early's std 4_3_0_0 kept as rows
    (--max-rows above the count) reach the audit store and the JSON document, counts exact."""
    import json
    import sqlite3
    import subprocess
    out = tmp_path / "bug"
    solve(millaudit_planted, out, "std", "fly-early", sector="4_3_0_0")
    store = tmp_path / "a.sqlite"
    # run directly: the suite's schema check of every verify --json would walk 651,831 rows in Python
    proc = subprocess.run([str(millaudit.path), "verify", str(out), "--sector", "4_3_0_0", "--max-rows",
                           "1000000", "--audit", str(store), "--json", "--quiet"], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    sector = doc["sectors"][0]
    assert sector["discrepancies"] == len(sector["rows"]) == 651831
    assert doc["totals"]["discrepancies"] == 651831
    with sqlite3.connect(store) as db:
        (n,) = db.execute("SELECT count(*) FROM discrepancies").fetchone()
    assert n == 651831
