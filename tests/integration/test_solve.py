"""millaudit solve: the reference producer's files, re-runs, errors and a few rule facts.

Everything here is computed independently of the C code: the sector closure, the header layout,
the entry counts (from the rep_count table of docs/format.md §4.3) and, for the semantic checks,
a small Python implementation of the sym16-colex index and of the std rules for 3_3_0_0.
"""
import hashlib
import itertools
import os
import random
import struct
import sys

import pytest

from conftest import ROOT

N_STONES = {"std": 9, "lask": 10, "mora": 12}
VARIANT_ID = {"std": 1, "lask": 2, "mora": 3}
REP_COUNT = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854]
MAGIC = b"\x89MILL\r\n\x1a"


def binom(n, k):
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def entry_count(w, b):
    return REP_COUNT[w] * binom(24 - w, b)


def children(variant, s):
    w, b, wf, bf = s
    cand = []
    if variant == "lask":
        if wf > 0:
            cand += [(w + 1, b, wf - 1, bf), (w + 1, b - 1, wf - 1, bf)]
        if w > 0:
            cand += [(w, b, wf, bf), (w, b - 1, wf, bf)]
    elif wf > 0:
        cand += [(w + 1, b, wf - 1, bf), (w + 1, b - 1, wf - 1, bf)]
    else:
        cand += [(w, b, wf, bf), (w, b - 1, wf, bf)]
    out = set()
    for x in cand:
        if x[1] >= 0 and x[1] + x[3] >= 3:
            out.add((x[1], x[0], x[3], x[2]))
    out.discard(s)
    return out


def closure(variant, k):
    todo, seen = [(0, 0, k, k)], set()
    while todo:
        s = todo.pop()
        if s not in seen:
            seen.add(s)
            todo.extend(children(variant, s))
    return seen


def fname(variant, s):
    return f"{variant}_{s[0]}_{s[1]}_{s[2]}_{s[3]}.mdb"


def check_file(path, variant, s, producer="millaudit-solver"):
    data = path.read_bytes()
    h = data[:128]
    (magic, version, hsize, var, flags, w, b, wf, bf, width, enc, scheme, scheme_v, count,
     prod, pver, reserved) = struct.unpack("<8sHHBBBBBBBBHHQ32s16s48s", h)
    assert magic == MAGIC
    assert (version, hsize) == (1, 128)
    assert var == VARIANT_ID[variant]
    assert flags == (1 if variant == "mora" else 0)
    assert (w, b, wf, bf) == tuple(s)
    assert (width, enc, scheme, scheme_v) == (2, 1, 1, 1)
    assert count == entry_count(w, b)
    # the field holds 32 bytes: longer planted-bug names are cut there
    assert prod.rstrip(b"\0").decode() == producer[:32]
    assert pver.rstrip(b"\0") != b""
    assert reserved == bytes(48)
    assert len(data) == 128 + 2 * count
    return data


def snapshot(d):
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(d.iterdir())}


@pytest.fixture(scope="module")
def std4(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("std4")
    proc = millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", out, "--quiet", check=0)
    return out, proc


@pytest.fixture(scope="module")
def std3(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("std3")
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, check=0)
    return out, proc


def test_closure_rule_matches_published_counts():
    assert len(closure("std", 9)) == 498
    assert len(closure("lask", 10)) == 3070
    assert len(closure("mora", 12)) == 1216


@pytest.mark.parametrize("k", [3, 4])
def test_std_whole_game_files(std3, std4, k):
    out, proc = std3 if k == 3 else std4
    want = {fname("std", s) for s in closure("std", k)}
    assert {p.name for p in out.iterdir()} == want
    for s in closure("std", k):
        check_file(out / fname("std", s), "std", s)
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith(f"start std_0_0_{k}_{k}: ")
    # one line per solved sector
    assert sum(1 for line in proc.stdout.splitlines() if " entries, " in line) == len(want)


@pytest.mark.parametrize("variant", ["lask", "mora"])
def test_other_variants_three_stones(millaudit, tmp_path, variant):
    proc = millaudit.run("solve", "--variant", variant, "--stones", 3, "--out", tmp_path, "--quiet",
                         check=0)
    want = closure(variant, 3)
    assert {p.name for p in tmp_path.iterdir()} == {fname(variant, s) for s in want}
    for s in want:
        check_file(tmp_path / fname(variant, s), variant, s)
    assert f"start {variant}_0_0_3_3: " in proc.stdout


def test_rerun_skips_and_keeps_files(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet", check=0)
    before = snapshot(tmp_path)
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet", check=0)
    assert snapshot(tmp_path) == before
    assert proc.stdout.count("skipped") == len(before)


def test_sector_needs_children(millaudit, tmp_path):
    proc = millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--out", tmp_path, check=3)
    assert "std_3_3_0_0.mdb" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_sector_with_deps_and_then_alone(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", tmp_path,
                  "--quiet", check=0)
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"std_3_3_0_0.mdb", "std_3_4_0_0.mdb", "std_4_3_0_0.mdb"}
    # the children now exist: a plain --sector of the parent of 3_4/4_3 works
    proc = millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--out", tmp_path, "--quiet",
                         check=0)
    assert "std_4_4_0_0" in proc.stdout
    check_file(tmp_path / "std_4_4_0_0.mdb", "std", (4, 4, 0, 0))


@pytest.mark.parametrize("args,code,needle", [
    (["--variant", "chess", "--stones", "3"], 2, "chess"),
    (["--variant", "std", "--sector", "10_3_0_0"], 3, "10_3_0_0"),
    (["--variant", "std", "--sector", "3_3_0"], 3, "3_3_0"),
    (["--variant", "std", "--stones", "10"], 3, "--stones"),
    (["--variant", "std", "--stones", "3", "--sector", "3_3_0_0"], 2, "exactly one"),
    (["--variant", "std", "--stones", "3", "--frobnicate"], 2, "frobnicate"),
    (["--variant", "std", "--stones", "3", "--plant-bug", "no-such-bug"], 2, "no-such-bug"),
])
def test_bad_arguments(millaudit, tmp_path, args, code, needle):
    proc = millaudit.run("solve", *args, "--out", tmp_path, check=code)
    assert needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_missing_output_directory_is_created(millaudit, tmp_path):
    new = tmp_path / "new"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", new, "--quiet", check=0)
    assert (new / "std_0_0_3_3.mdb").is_file()


def test_output_directory_unusable(millaudit, tmp_path):
    missing = tmp_path / "nope" / "deeper"
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", missing, check=4)
    assert "nope" in proc.stderr
    assert not (tmp_path / "nope").exists()
    afile = tmp_path / "file"
    afile.write_text("x")
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", afile, check=4)
    assert [p.name for p in tmp_path.iterdir()] == ["file"]
    if os.geteuid() != 0:  # root writes anywhere; the two cases above still cover exit 4
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        try:
            millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", ro, check=4)
            assert list(ro.iterdir()) == []
        finally:
            ro.chmod(0o755)


def test_truncated_final_file_is_refused_and_untouched(millaudit, millaudit_asan, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet", check=0)
    victim = tmp_path / "std_2_2_1_1.mdb"
    data = victim.read_bytes()
    victim.write_bytes(data[: len(data) // 2])
    (tmp_path / "std_0_0_3_3.mdb").unlink()
    before = snapshot(tmp_path)
    for binary in (millaudit, millaudit_asan):
        proc = binary.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
        assert "std_2_2_1_1.mdb" in proc.stderr
        assert "exists but is incomplete or corrupt; remove it" in proc.stderr
        assert snapshot(tmp_path) == before  # nothing written, nothing touched, no temporaries


def test_corrupt_header_of_right_size_is_refused(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet", check=0)
    victim = tmp_path / "std_3_3_0_0.mdb"
    data = bytearray(victim.read_bytes())
    data[12] = 2  # variant lask in a std file
    victim.write_bytes(bytes(data))
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
    assert "offset 12" in proc.stderr and "std_3_3_0_0.mdb" in proc.stderr
    assert victim.read_bytes() == bytes(data)


def test_no_temporary_files_after_failure(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--out", tmp_path, check=3)
    millaudit.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", tmp_path, "--quiet", check=0)
    assert [p.name for p in tmp_path.iterdir()] == ["std_3_3_0_0.mdb"]


def test_asan_build_solves_three_stones(millaudit_asan, tmp_path):
    proc = millaudit_asan.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet",
                              check=0)
    assert "start std_0_0_3_3: " in proc.stdout
    assert len(list(tmp_path.iterdir())) == len(closure("std", 3))


def test_help_hides_bug_names(millaudit):
    proc = millaudit.run("solve", "--help", check=0)
    assert "--stones" in proc.stdout and "--with-deps" in proc.stdout
    assert "for tests only" in proc.stdout
    for name in ("removal-from-mill", "fly-early", "double-removal", "blocked-not-lost", "depth-in-moves"):
        assert name not in proc.stdout


# removal-from-mill and double-removal change nothing in games this small (checked: the whole
# std 4-stone game is identical), so their rule change is covered by tests/unit/test_solver_rules.c
# and here only their labelling is checked.
@pytest.mark.parametrize("bug,target", [
    ("fly-early", "4_3_0_0"), ("blocked-not-lost", "4_4_0_0"), ("depth-in-moves", "4_4_0_0")])
def test_planted_bug_changes_the_database(millaudit, std4, tmp_path, bug, target):
    good, _ = std4
    millaudit.run("solve", "--variant", "std", "--sector", target, "--with-deps", "--out", tmp_path,
                  "--quiet", "--plant-bug", bug, check=0)
    differs = 0
    files = list(tmp_path.iterdir())
    assert len(files) >= 3
    for path in files:
        s = tuple(int(x) for x in path.stem.split("_")[1:])
        bad = check_file(path, "std", s, producer=f"millaudit-solver+bug:{bug}")
        differs += bad[128:] != (good / path.name).read_bytes()[128:]
    assert differs > 0


def test_planted_bug_files_are_not_trusted_by_a_clean_run(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet",
                  "--plant-bug", "depth-in-moves", check=0)
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
    assert "another producer" in proc.stderr


@pytest.mark.parametrize("bug", ["removal-from-mill", "double-removal"])
def test_planted_bug_is_labelled(millaudit, tmp_path, bug):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, "--quiet",
                  "--plant-bug", bug, check=0)
    for s in closure("std", 3):
        check_file(tmp_path / fname("std", s), "std", s, producer=f"millaudit-solver+bug:{bug}")


# ---- semantics, from a Python implementation of docs/format.md §1 and §4 --------------------

# The 16 permutations of docs/format.md §4.1, as the fault-injection tool transcribed them.
sys.path.insert(0, str(ROOT / "scripts"))
from inject_fault import PERMS as PERM  # noqa: E402
LINES = [7, 56, 448, 3584, 28672, 229376, 1835008, 14680064, 2097665, 263176, 34880, 146,
         4784128, 135424, 1056800, 8404996]
ADJ = [514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177, 264712, 33856, 139520, 1069088,
       8396804, 67584, 688128, 69632, 525312, 5570560, 532480, 4194816, 11010048, 4210688]
POINT = {name: i for i, name in enumerate(
    "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split())}


def apply(k, m):
    return sum(1 << PERM[k][p] for p in range(24) if m >> p & 1)


def mask(*names):
    return sum(1 << POINT[n] for n in names)


class Index:
    def __init__(self, w):
        self.reps = sorted(m for m in (sum(1 << p for p in c) for c in itertools.combinations(range(24), w))
                           if all(apply(k, m) >= m for k in range(16)))
        self.rank = {m: i for i, m in enumerate(self.reps)}

    def entry(self, w, b):
        wc, bc = min((apply(k, w), apply(k, b)) for k in range(16))
        free = [p for p in range(24) if not wc >> p & 1]
        qs = [free.index(p) for p in range(24) if bc >> p & 1]
        colex = sum(binom(q, i + 1) for i, q in enumerate(qs))
        return self.rank[wc] * binom(24 - bin(w).count("1"), bin(b).count("1")) + colex


def can_close_mill_flying(w, b):
    """3 stones flying: some stone can go to the free third point of a line holding two others."""
    free = ~(w | b) & 0xFFFFFF
    for line in LINES:
        own = w & line
        if bin(own).count("1") == 2 and line & free and w & ~line:
            return True
    return False


def value(data, e):
    return struct.unpack_from("<H", data, 128 + 2 * e)[0]


def test_semantics_three_stones_mill_is_win_in_one(std3):
    out, _ = std3
    data = (out / "std_3_3_0_0.mdb").read_bytes()
    ix = Index(3)
    # a hand-picked one: a1, d1 held, e5 flies to g1
    assert value(data, ix.entry(mask("a1", "d1", "e5"), mask("g4", "c4", "b6"))) == 0xC001
    rng = random.Random(7)
    checked = wins = 0
    while checked < 1500:
        pts = rng.sample(range(24), 6)
        w, b = sum(1 << p for p in pts[:3]), sum(1 << p for p in pts[3:])
        v = value(data, ix.entry(w, b))
        assert v != 0
        if can_close_mill_flying(w, b):
            assert v == 0xC001, hex(v)
            wins += 1
        else:
            assert v != 0xC001, hex(v)
        checked += 1
    assert 0 < wins < checked


def test_semantics_blocked_mover_loses_in_zero(std4):
    out, _ = std4
    data = (out / "std_4_4_0_0.mdb").read_bytes()
    ix = Index(4)
    w, b = mask("a1", "g1", "a7", "g7"), mask("d1", "a4", "g4", "d7")
    assert all(not (ADJ[p] & ~(w | b)) for p in range(24) if w >> p & 1)  # really blocked
    assert value(data, ix.entry(w, b)) == 0x4000
    # and the other side, to move in the same picture, is not lost in 0
    assert value(data, ix.entry(b, w)) != 0x4000
