"""millaudit index-check: the exhaustive proof of the sym16-colex index on real sectors, and the
checks of a sector file against it (files built by hand with scripts/mkopen.py)."""
import math
import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import mkopen  # noqa: E402

POINTS = ["a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4",
          "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"]


def _ops():
    """The 16 operations of docs/format.md §4.1 from their geometric definitions (not the table)."""
    maps = [lambda u, v: (u, v), lambda u, v: (v, -u), lambda u, v: (-u, -v),
            lambda u, v: (-v, u), lambda u, v: (-u, v), lambda u, v: (u, -v),
            lambda u, v: (-v, -u), lambda u, v: (v, u)]
    index = {(ord(p[0]) - ord("d"), int(p[1]) - 4): i for i, p in enumerate(POINTS)}
    ops = []
    for k in range(16):
        perm = []
        for p in POINTS:
            u, v = maps[k % 8](ord(p[0]) - ord("d"), int(p[1]) - 4)
            if k >= 8:
                r = max(abs(u), abs(v))
                u, v = u * (4 - r) // r, v * (4 - r) // r
            perm.append(index[(u, v)])
        ops.append(perm)
    return ops


def orbit_count(w, b):
    """Number of orbits of placements of w mover and b opponent stones under the 16 ops, by
    Burnside's lemma: an independent count of the canonical entries a sector must have."""
    total = 0
    for perm in _ops():
        seen, cycles = set(), []
        for start in range(24):
            if start in seen:
                continue
            n, p = 0, start
            while p not in seen:
                seen.add(p)
                p = perm[p]
                n += 1
            cycles.append(n)
        # ways[(x, y)]: cycles coloured so that x points are mover's and y opponent's.
        ways = {(0, 0): 1}
        for n in cycles:
            nxt = {}
            for (x, y), c in ways.items():
                for dx, dy in ((0, 0), (n, 0), (0, n)):
                    key = (x + dx, y + dy)
                    if key[0] <= w and key[1] <= b:
                        nxt[key] = nxt.get(key, 0) + c
            ways = nxt
        total += ways.get((w, b), 0)
    assert total % 16 == 0
    return total // 16


def summary(out):
    fields = dict(re.findall(r"^  ([a-z -]+?)\s{2,}(\d+)", out, re.M))
    return {k.strip(): int(v) for k, v in fields.items()}


@pytest.mark.parametrize("variant,sector", [
    ("std", "3_3_0_0"), ("std", "4_3_0_0"), ("std", "3_4_0_0"),
    ("std", "2_2_1_1"), ("std", "1_2_2_1"), ("std", "0_1_3_2"), ("std", "0_0_9_9"),
    ("lask", "2_1_8_9"), ("mora", "2_2_10_10"),
])
def test_index_check_proves_sector(millaudit, variant, sector):
    proc = millaudit.run("index-check", "--variant", variant, "--sector", sector, check=0)
    assert proc.stdout.rstrip().endswith("result: ok")
    w, b = (int(x) for x in sector.split("_")[:2])
    s = summary(proc.stdout)
    assert s["entries"] == mkopen.entry_count(w, b)
    assert s["canonical entries"] == orbit_count(w, b)
    assert s["raw placements"] == math.comb(24, w) * math.comb(24 - w, b)
    assert s["canonical entries"] + s["non-canonical"] == s["entries"]


def test_spec_check_values(millaudit):
    out = millaudit.run("index-check", "--variant", "std", "--sector", "3_3_0_0", check=0).stdout
    assert summary(out)["entries"] == 210140
    out = millaudit.run("index-check", "--variant", "std", "--sector", "0_1_3_2", check=0).stdout
    assert summary(out)["canonical entries"] == 4


def good_values():
    """std 0_1_3_2: canonical entries 0, 1, 3, 4 (a1, d1, b2, d2) per docs/format.md §4.4."""
    return {0: ("loss", 26), 1: ("loss", 22), 3: ("win", 1), 4: "draw"}


def test_file_that_fits_the_index_passes(millaudit, tmp_path):
    path = mkopen.write(tmp_path, "std", "0_1_3_2", good_values())
    proc = millaudit.run("index-check", "--variant", "std", "--sector", "0_1_3_2", path, check=0)
    assert "0 bad encodings" in proc.stdout


def test_value_at_non_canonical_entry_fails(millaudit, tmp_path):
    values = good_values()
    values[2] = ("win", 1)  # entry 2 (g1) is an image of a1: it must hold 0x0000
    path = mkopen.write(tmp_path, "std", "0_1_3_2", values)
    proc = millaudit.run("index-check", "--variant", "std", "--sector", "0_1_3_2", path, check=1)
    assert re.search(r"FAIL std 0_1_3_2: entry 2: board -/g1: .*offset 132: bad encoding 0xc001 "
                     r"for a non-canonical entry", proc.stdout)
    assert "1 bad encoding" in proc.stdout
    assert "result: FAILED" in proc.stdout


def test_missing_value_and_bad_parity_fail(millaudit, tmp_path):
    values = good_values()
    del values[3]            # canonical entry left at 0x0000
    values[4] = ("win", 2)   # a win in an even number of plies
    path = mkopen.write(tmp_path, "std", "0_1_3_2", values)
    proc = millaudit.run("index-check", "--variant", "std", "--sector", "0_1_3_2", path, check=1)
    assert "entry 3: board -/b2" in proc.stdout and "0x0000 for a canonical entry" in proc.stdout
    assert "entry 4: board -/d2" in proc.stdout and "0xc002" in proc.stdout


def test_file_of_another_sector_or_variant_is_unusable_input(millaudit, tmp_path):
    """Issue 9 #11: the wrong file is unusable input (exit 3), not a failed check of the index (1)."""
    path = mkopen.write(tmp_path, "std", "0_1_3_3", {0: "draw", 1: "draw", 3: "draw", 4: "draw"})
    proc = millaudit.run("index-check", "--variant", "std", "--sector", "0_1_3_2", path, check=3)
    assert "offset 14: header is std 0_1_3_3, expected std 0_1_3_2 (another sector's file)" in proc.stderr
    proc = millaudit.run("index-check", "--variant", "lask", "--sector", "0_1_3_3", path, check=3)
    assert "offset 12: header is std 0_1_3_3, expected lask 0_1_3_3 (another variant's file)" in proc.stderr
    assert str(path) in proc.stderr


@pytest.mark.parametrize("override,offset,what", [
    ({"magic": b"\x89MILK\r\n\x1a"}, 0, "bad magic"),
    ({"entry_count": 25}, 24, "entry count 25, expected 24"),
    ({"entry_count": 1 << 62, "body_entries": 24}, 24, "entry count"),
    ({"index_scheme": 2}, 20, "index scheme 2"),
    ({"truncate": 100}, 100, "truncated header"),
    ({"truncate": 150}, 150, "truncated body"),
])
def test_unusable_file_exits_3(millaudit_asan, tmp_path, override, offset, what):
    path = mkopen.write(tmp_path, "std", "0_1_3_2", good_values(), **override)
    proc = millaudit_asan.run("index-check", "--variant", "std", "--sector", "0_1_3_2", path,
                              check=3)
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert f"{path}: sector 0_1_3_2: offset {offset}: {what}" in proc.stderr


def test_impossible_sector_and_usage(millaudit):
    proc = millaudit.run("index-check", "--variant", "std", "--sector", "2_3_0_0", check=3)
    assert "sector 2_3_0_0 is impossible for std" in proc.stderr
    millaudit.run("index-check", "--variant", "std", "--sector", "3_3_0_0", check=0)
    millaudit.run("index-check", "--variant", "std", check=2)
    millaudit.run("index-check", "--variant", "chess", "--sector", "3_3_0_0", check=2)
    millaudit.run("index-check", "--variant", "std", "--sector", "3_3_0", check=2)
    millaudit.run("index-check", "--variant", "std", "--sector", "3_3_0_0", "a", "b", check=2)
    millaudit.run("index-check", "--bogus", check=2)
    assert "usage: millaudit index-check" in millaudit.run("index-check", "--help", check=0).stdout
