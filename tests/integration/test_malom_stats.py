"""millaudit stats on Malom directories reproduces Malom's own .analyze / .analyze2 files."""
import json

import pytest


def parse_analyze(path):
    """maxval, maxval board, sym count, 'W D L', histogram length, histogram (-1..maxval),
    and for .analyze2 'VL VW', length, A distribution VL..VW."""
    nums = path.read_text().split()
    it = iter(nums)
    out = {"max_depth": int(next(it)), "board": int(next(it)), "markers": int(next(it))}
    out["wins"], out["draws"], out["losses"] = int(next(it)), int(next(it)), int(next(it))
    n = int(next(it))
    out["depths"] = [int(next(it)) for _ in range(n)]
    rest = list(it)
    if rest:
        vl, vw, n = int(rest[0]), int(rest[1]), int(rest[2])
        counts = [int(x) for x in rest[3:3 + n]]
        assert n == vw - vl + 1
        out["akey1"] = {vl + k: c for k, c in enumerate(counts) if c}
    return out


def stats(millaudit, d):
    return json.loads(millaudit.run("stats", d, "--json", check=0).stdout)


@pytest.mark.parametrize("sub,ext", [("std-strong", ".analyze"), ("std-ultra-stonediff", ".analyze2")])
def test_stats_equal_malom_analyze(millaudit, malom_fixtures, sub, ext):
    d = malom_fixtures / sub
    doc = stats(millaudit, d)
    files = sorted(d.glob("*" + ext))
    assert files
    by_name = {s["file"].rsplit(".", 1)[0]: s for s in doc["sectors"]}
    assert set(by_name) == {f.name[:-len(ext)] for f in files}
    for f in files:
        want = parse_analyze(f)
        got = by_name[f.name[:-len(ext)]]
        assert got["max_depth"] == want["max_depth"]
        assert got["markers"] == want["markers"]
        pe = got["per_entry"]
        assert (pe["wins"], pe["draws"], pe["losses"]) == (want["wins"], want["draws"], want["losses"])
        hist = [got["depths"]["-1"]] + [got["depths"][str(k)] for k in range(got["max_depth"] + 1)]
        assert hist == want["depths"]
        assert got["canonical_entries"] == got["entries"] - got["markers"]
        if "akey1" in want:
            assert {int(k): v for k, v in got["akey1"].items()} == want["akey1"]


def test_per_position_counts_every_board(millaudit, malom_fixtures):
    # Every board of 3_3_0_0 (C(24,3) * C(21,3)) is counted once per position.
    doc = stats(millaudit, malom_fixtures / "std-strong")
    s = [x for x in doc["sectors"] if x["sector"] == "3_3_0_0"][0]
    assert s["positions"] == 2024 * 1330
    pp = s["per_position"]
    assert pp["wins"] + pp["draws"] + pp["losses"] == s["positions"]
    assert sum(pp["win_depths"].values()) == pp["wins"]


def test_text_output(millaudit, malom_fixtures):
    p = millaudit.run("stats", malom_fixtures / "std-ultra-stonediff", check=0)
    # malom-format.md §4.6: sector 3_3 has 40,514 symmetry markers among its 210,140 indices.
    assert "40514 markers" in p.stdout and "max depth 26" in p.stdout


def test_stats_damaged_file(millaudit_asan, malom_fixtures, tmp_path):
    d = tmp_path / "db"
    d.mkdir()
    data = (malom_fixtures / "std-strong" / "std_3_3_0_0.sec").read_bytes()
    (d / "std_3_3_0_0.sec").write_bytes(data[:5000])
    p = millaudit_asan.run("stats", d, check=3)
    assert "std_3_3_0_0.sec" in p.stderr and "sector 3_3_0_0" in p.stderr
