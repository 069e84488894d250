"""millaudit solve --format malom-sec|malom-sec2: the producer's Malom files, judged by the checker.

The files are written by the producer (solver/svmalom*) and read here only through the checker
(`verify`, `diff`) and through small decoders written for this test from
../shared/docs/malom-format.md §5 (nothing is shared with either side's C code):
  (a) `verify` accepts the producer's std 3_3_0_0, 3_4_0_0, 4_3_0_0 as .sec, .sec2 STONE_DIFF and
      .sec2 with std.secval, every entry verified;
  (b) `diff` against Malom's real files finds no outcome, depth or draw-class difference, and the
      bytes are identical except the counters of unresolved draws ("Count" entries), which are
      solver bookkeeping (§8.5): same indices hold Counts on both sides;
  (c) one flipped entry in the producer's std_4_4_0_0.sec is reported by `verify` as the only root;
  (d) the files are byte for byte those of the previous writer (b7a54e7, which ranked draws from
      the open files after the solve), for every thread count;
  (e) an open file that is not this producer's solution, or a child .sec2 that does not hold it, is
      refused before the Malom files that would depend on it are written.
"""
import hashlib
import json
import re
import shutil
import struct

import pytest

from conftest import FIXTURES, need_fixture

MALOM = FIXTURES / "malom"
STRONG = MALOM / "std-strong"
STONEDIFF = MALOM / "std-ultra-stonediff"
EXCERPT = MALOM / "original-excerpt"
F_COUNT = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880, 124124, 157668, 170854]
SMALL = ["std_3_3_0_0", "std_3_4_0_0", "std_4_3_0_0"]


def binom(n, k):
    if k < 0 or k > n:
        return 0
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def hash_count(name):
    w, b = (int(x) for x in name.split("_")[1:3])
    return F_COUNT[w] * binom(24 - w, b)


def need(path):
    return need_fixture(path)


# --- decoders written from malom-format.md §5 for this test -----------------------------------

def sec_entries(data, count):
    """(kind, value) per index of a .sec (§5.7): ('val', x), ('sym', op), ('count', c)."""
    (n,) = struct.unpack_from("<i", data, count)
    assert len(data) == count + 4 + 8 * n
    ovf = dict(struct.unpack_from("<ii", data, count + 4 + 8 * i) for i in range(n))
    out = []
    for h in range(count):
        e = data[h]
        if e == 179:
            v = ovf[h]
            out.append(("val", v) if v >= 0 else ("count", -v))
        elif e <= 178:
            out.append(("val", e))
        elif e <= 194:
            out.append(("sym", e - 180))
        else:
            out.append(("count", 255 - e))
    return out


def sec2_header(data):
    return struct.unpack_from("<iiib", data, 0)


def sec2_entries(data, count):
    """(key1, key2) per index of a .sec2 (§5.1, §5.2), overflow values substituted."""
    version, size, f1, flag = sec2_header(data)
    f2 = 8 * size - f1
    body = 64 + size * count
    (n,) = struct.unpack_from("<i", data, body)
    assert len(data) == body + 4 + 8 * n
    ovf = dict(struct.unpack_from("<ii", data, body + 4 + 8 * i) for i in range(n))
    out = []
    for h in range(count):
        raw = int.from_bytes(data[64 + size * h:64 + size * (h + 1)], "little")
        k1, k2 = raw & ((1 << f1) - 1), raw >> f1
        if k1 >> (f1 - 1):
            k1 -= 1 << f1
        if k2 >> (f2 - 1):
            k2 -= 1 << f2
        if k2 == -(1 << (f2 - 1)):
            k2 = ovf[h]
        out.append((k1, k2))
    return out


def kind2(e):
    k1, k2 = e
    return "sym" if k1 == 0 and k2 < 0 else "count" if k1 == 0 else "val"


# --- fixtures: one producer solution, written in every format ----------------------------------

@pytest.fixture(scope="module")
def open_dir(millaudit, tmp_path_factory):
    """The producer's own std 4_4_0_0 with its dependencies (3_3, 3_4, 4_3), open format."""
    out = tmp_path_factory.mktemp("open")
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--with-deps", "--out", out,
                  "--quiet", check=0)
    return out


def export(millaudit, open_dir, out, fmt, sector="3_4_0_0", *extra, check=0):
    return millaudit.run("solve", "--variant", "std", "--sector", sector, "--with-deps",
                         "--out", out, "--open-dir", open_dir, "--format", fmt, *extra,
                         check=check)


@pytest.fixture(scope="module")
def sec_dir(millaudit, open_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("sec")
    return out, export(millaudit, open_dir, out, "malom-sec")


@pytest.fixture(scope="module")
def sec2_dir(millaudit_asan, open_dir, tmp_path_factory):
    """Written by the ASan/UBSan build: the draw ranking of .sec2 (solver/svmalom_ultra) runs
    under the sanitizers here (the unit test skips its std 3_4_0_0 case there, for time)."""
    out = tmp_path_factory.mktemp("sec2")
    return out, export(millaudit_asan, open_dir, out, "malom-sec2")


@pytest.fixture(scope="module")
def secval_dir(millaudit, open_dir, tmp_path_factory):
    need(EXCERPT / "std.secval")
    out = tmp_path_factory.mktemp("secval")
    return out, export(millaudit, open_dir, out, "malom-sec2", "3_4_0_0", "--secval",
                       EXCERPT / "std.secval")


@pytest.fixture(scope="module")
def sec44_dir(millaudit, open_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("sec44")
    export(millaudit, open_dir, out, "malom-sec", "4_4_0_0")
    return out


def verify(millaudit, d, *extra, check=0):
    proc = millaudit.run("verify", d, "--json", "--threads", "2", *extra, check=check)
    return json.loads(proc.stdout)


# --- the files ---------------------------------------------------------------------------------

def test_sec_files_names_and_lengths(sec_dir):
    d, proc = sec_dir
    assert sorted(p.name for p in d.iterdir() if p.is_file()) == [n + ".sec" for n in SMALL]
    for n in SMALL:
        data = (d / f"{n}.sec").read_bytes()
        entries = sec_entries(data, hash_count(n))  # asserts the length rule of §5.7
        assert len(entries) == hash_count(n)
        assert f"{n}.sec: {hash_count(n):,} entries, " in proc.stdout


@pytest.mark.parametrize("which", ["stonediff", "secval"])
def test_sec2_headers(request, which):
    d, proc = request.getfixturevalue("sec2_dir" if which == "stonediff" else "secval_dir")
    names = sorted(p.name for p in d.iterdir() if p.is_file())
    want = [n + ".sec2" for n in SMALL] + ([] if which == "stonediff" else ["std.secval"])
    assert names == sorted(want)
    for n in SMALL:
        data = (d / f"{n}.sec2").read_bytes()
        # §5.1/§5.6: version 2; STONE_DIFF: 2 bytes, field 1 of 6 bits, flag 1; else 3, 12, 0
        assert sec2_header(data) == ((2, 2, 6, 1) if which == "stonediff" else (2, 3, 12, 0))
        assert data[13:64] == bytes(51)
        sec2_entries(data, hash_count(n))  # asserts the length rule of §5.1
    if which == "secval":
        assert (d / "std.secval").read_bytes() == (EXCERPT / "std.secval").read_bytes()


# --- (a) the checker accepts them --------------------------------------------------------------

@pytest.mark.parametrize("which", ["sec_dir", "sec2_dir", "secval_dir"])
def test_checker_verifies_every_entry(millaudit, request, which):
    d, _ = request.getfixturevalue(which)
    doc = verify(millaudit, d, check=0)
    assert doc["exit"] == 0
    assert sorted(s["sector"] for s in doc["sectors"]) == SMALL
    for s in doc["sectors"]:
        assert s["status"] == "ok", s
        assert s["discrepancies"] == 0 and s["within_bounds"] == 0
        assert s["verified"] == s["entries"] == hash_count(s["sector"])


def test_stonediff_draws_are_ranked(sec2_dir):
    """In STONE_DIFF, 3_4_0_0 (v = -1) can capture into a 3_3_0_0 draw (v = 0): better than
    endless play, so many draws are stored as values (key1 != 0), not as Counts; the checker's
    acceptance above then covers their draw classes and tie-breakers."""
    d, _ = sec2_dir
    entries = sec2_entries((d / "std_3_4_0_0.sec2").read_bytes(), hash_count("std_3_4_0_0"))
    ranked = [e for e in entries if e[0] != 0 and e[0] + (-1) not in (10, -10)]
    assert len(ranked) > 100000
    assert {e[0] + (-1) for e in ranked} == {0}  # A = key1 + v(S): the draw class of 3_3_0_0


# --- (b) against Malom's real files ------------------------------------------------------------

def compare_with_malom(millaudit, mine, real, decode):
    """diff: no value difference; bytes: identical except Count counters, at the same indices."""
    doc = json.loads(millaudit.run("diff", mine, real, "--json", check=0).stdout)
    (s,) = doc["sectors"]
    assert s["status"] == "equal", s
    d = s["differences"]
    assert d["outcome"] == 0 and d["depth"] == 0 and d["draw-class"] == 0
    name = mine.name.rsplit(".", 1)[0]
    a = decode(mine.read_bytes(), hash_count(name))
    b = decode(real.read_bytes(), hash_count(name))
    kinds = (lambda e: e[0]) if decode is sec_entries else kind2
    counters = 0
    for h, (x, y) in enumerate(zip(a, b)):
        assert kinds(x) == kinds(y), (name, h, x, y)
        if kinds(x) == "count":
            counters += x != y
        else:
            assert x == y, (name, h, x, y)  # markers, wins, losses, ranked draws: identical
    # Every encoding difference diff reports is a Count counter (position-wise, markers excluded).
    assert d["encoding"] == counters
    return counters, sum(1 for x in a if kinds(x) == "count")


@pytest.mark.parametrize("name", SMALL)
def test_sec_matches_malom_strong(millaudit, sec_dir, name):
    need(STRONG)
    d, _ = sec_dir
    differing, counts = compare_with_malom(millaudit, d / f"{name}.sec", STRONG / f"{name}.sec",
                                           sec_entries)
    # Our counter (distinct draw successor classes) is Malom's on most Count entries, not all.
    assert differing < counts / 5


def test_sec2_stonediff_matches_malom(millaudit, sec2_dir):
    need(STONEDIFF)
    d, _ = sec2_dir
    compare_with_malom(millaudit, d / "std_3_3_0_0.sec2", STONEDIFF / "std_3_3_0_0.sec2",
                       sec2_entries)
    mine, real = (d / "std_3_3_0_0.sec2").read_bytes(), (STONEDIFF / "std_3_3_0_0.sec2").read_bytes()
    assert mine[:64] == real[:64]


@pytest.mark.parametrize("name", SMALL)
def test_sec2_secval_matches_malom_original(millaudit, secval_dir, name):
    need(EXCERPT)
    d, _ = secval_dir
    compare_with_malom(millaudit, d / f"{name}.sec2", EXCERPT / f"{name}.sec2", sec2_entries)
    assert (d / f"{name}.sec2").read_bytes()[:64] == (EXCERPT / f"{name}.sec2").read_bytes()[:64]


# --- (c) fault injection in a larger sector ----------------------------------------------------

@pytest.mark.parametrize("fault", ["depth", "outcome"])
def test_flipped_entry_in_4_4_is_the_only_root(millaudit, sec44_dir, tmp_path, fault):
    d = shutil.copytree(sec44_dir, tmp_path / "db")
    f = d / "std_4_4_0_0.sec"
    count = hash_count("std_4_4_0_0")
    assert count == 3667665
    data = bytearray(f.read_bytes())
    entries = sec_entries(bytes(data), count)
    if fault == "depth":
        # a win in n plies claimed as a win in n + 2
        h = next(h for h, e in enumerate(entries) if e[0] == "val" and e[1] % 2 == 1 and e[1] >= 3)
        data[h] += 2
        cls = "wrong-depth"
    else:
        # a draw (Count) claimed as a loss in 2
        h = next(h for h, e in enumerate(entries) if e[0] == "count" and h > count // 2)
        data[h] = 2
        cls = "wrong-outcome"
    f.write_bytes(bytes(data))
    doc = verify(millaudit, d, "--sector", "4_4_0_0", check=1)
    (s,) = doc["sectors"]
    roots = [r for r in s["rows"] if r["root"]]
    assert [r["entry"] for r in roots] == [h]
    assert roots[0]["class"] == cls and s["roots"] == 1


# --- re-runs, refusals, usage ------------------------------------------------------------------

def digests(d):
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(d.iterdir()) if p.is_file()}


def test_report_lines_say_the_ranking_apart(sec_dir, sec2_dir):
    """A .sec2's line says how many of its seconds ranked the draws (an analysis of its own, which
    a .sec does not need), so that what the writing costs can be told from what the ranking does."""
    line = re.compile(r"^(std_\d_\d_0_0)\.sec(2?): [\d,]+ entries, .*, ([\d.]+) s"
                      r"(?: \(draws ranked in ([\d.]+) s\))?$", re.M)
    for (d, proc), two in ((sec_dir, ""), (sec2_dir, "2")):
        rows = line.findall(proc.stdout)
        assert sorted(r[0] for r in rows) == SMALL, proc.stdout
        for name, kind, total, ranked in rows:
            assert kind == two
            if two:
                assert ranked, f"{name}.sec2: the ranking's seconds are missing"
                assert 0 <= float(ranked) <= float(total)
            else:
                assert not ranked, f"{name}.sec: a .sec ranks no draws"


def test_rerun_skips_valid_files(millaudit, open_dir, sec_dir):
    d, _ = sec_dir
    before = digests(d)
    proc = export(millaudit, open_dir, d, "malom-sec")
    for n in SMALL:
        assert f"{n}.sec: {hash_count(n):,} entries, skipped (valid file exists)" in proc.stdout
    assert digests(d) == before


def test_corrupt_existing_file_is_refused_untouched(millaudit_asan, open_dir, sec2_dir, tmp_path):
    d = shutil.copytree(sec2_dir[0], tmp_path / "db")
    f = d / "std_4_3_0_0.sec2"
    f.write_bytes(f.read_bytes()[:-5])
    (d / "std_3_3_0_0.sec2").unlink()
    before = digests(d)
    proc = export(millaudit_asan, open_dir, d, "malom-sec2", check=3)
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "std_4_3_0_0.sec2: sector 4_3_0_0: offset " in err[0]
    assert digests(d) == before  # nothing written, not even the missing 3_3_0_0


def test_missing_child_sec2_without_deps(millaudit_asan, open_dir, tmp_path):
    proc = millaudit_asan.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--out", tmp_path,
                              "--open-dir", open_dir, "--format", "malom-sec2", "--quiet")
    assert proc.returncode == 3
    assert "std_3_3_0_0.sec2" in proc.stderr and "--with-deps" in proc.stderr
    assert not any(tmp_path.iterdir())


def test_open_dir_must_differ_from_out(millaudit_asan, open_dir):
    proc = millaudit_asan.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", open_dir,
                              "--open-dir", open_dir, "--format", "malom-sec", "--quiet")
    assert proc.returncode == 3, proc.stderr
    assert "separate directories" in proc.stderr
    assert not list(open_dir.glob("*.sec"))


def test_default_open_dir_and_planted_bug(millaudit, millaudit_planted, tmp_path):
    """--open-dir defaults to OUT/open (verify ignores subdirectories); a planted bug reaches the
    .sec files, and the checker flags them."""
    out = tmp_path / "bug"
    millaudit_planted.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out",
                          out, "--format", "malom-sec", "--plant-bug", "fly-early", "--quiet", check=0)
    assert sorted(p.name for p in (out / "open").iterdir()) == [n + ".mdb" for n in SMALL]
    doc = verify(millaudit, out, check=1)
    assert doc["totals"]["discrepancies"] > 0


@pytest.mark.parametrize("args", [
    ["--format", "malom-sex"],
    ["--open-dir", "x"],
    ["--format", "malom-sec", "--secval", "std.secval"],
    ["--format", "malom-sec2", "--plant-bug", "fly-early"],
])
def test_usage_errors(millaudit_planted, tmp_path, args):
    # the planted build: it knows --plant-bug, so the last row is refused for the format alone
    proc = millaudit_planted.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", tmp_path / "o",
                         *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[1:] == ["try 'millaudit solve --help'"]  # one line and the hint
    assert not (tmp_path / "o").exists()


def test_help_mentions_formats(millaudit):
    out = millaudit.run("solve", "--help", check=0).stdout
    assert "--format" in out and "malom-sec2" in out and "--secval" in out and "--open-dir" in out


# --- (d) the same bytes as the previous writer -------------------------------------------------

# SHA-256 over "<sha256>  <name>\n" of every .sec/.sec2/.secval file, by name, of what the writer
# of b7a54e7 (before the export ran inside the solve, issue 47) wrote for the same sectors.
PREVIOUS_WRITER = {
    "std44sec": ("a09bb49f3f775478ea51905f957de7be31c840dfd03fe72d3184377e60b6baa6", 4),
    "std44sec2": ("659e4fb2d2589aa4ffc5ae64e3a3cc89407f3fef40268fe80af0260fcb6b0146", 4),
    "std44sv2": ("2e367afb4003214947ffb066da8ab95f1964a338c3bada5d2974ccc8a6a38896", 5),
    "std3sec2": ("8d53cce53ea94d60ea7a18f4a8551a01f12a5573be2f215d832a6e87a0d6e767", 7),
    "lask3sec2": ("b92a5792b64280aad4e149aa674dac008f9373282b72c9ea5e3be0ff028dd2db", 11),
    "mora3sec2": ("728b0fcb13adffd9045cca5e1d90b2f20d94f4477d46a908f8478fbf47b4364a", 7),
}


def combined_digest(d):
    lines = [f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.name}\n"
             for p in sorted(d.iterdir(), key=lambda p: p.name)
             if p.is_file() and p.name.endswith((".sec", ".sec2", ".secval"))]
    return hashlib.sha256("".join(lines).encode()).hexdigest(), len(lines)


@pytest.mark.parametrize("case,threads", [
    ("std44sec", "1"), ("std44sec2", "3"), ("std44sv2", "2"),
    ("std3sec2", "1"), ("std3sec2", "3"), ("lask3sec2", "2"), ("mora3sec2", "3"),
])
def test_same_bytes_as_the_previous_writer(millaudit, open_dir, tmp_path, case, threads):
    out = tmp_path / case
    if case.startswith("std44"):
        extra = {"std44sec": ["--format", "malom-sec"], "std44sec2": ["--format", "malom-sec2"],
                 "std44sv2": ["--format", "malom-sec2", "--secval", need(EXCERPT / "std.secval")]}[case]
        export(millaudit, open_dir, out, extra[1], "4_4_0_0", *extra[2:], "--threads", threads)
    else:
        millaudit.run("solve", "--variant", case[:4].rstrip("3"), "--stones", "3", "--out", out,
                      "--format", "malom-sec2", "--threads", threads, "--quiet", check=0)
    assert combined_digest(out) == PREVIOUS_WRITER[case]


# --- (e) inputs that are not this producer's solution ------------------------------------------

def test_open_file_unlike_the_solution_is_refused(millaudit_asan, open_dir, tmp_path):
    """An intact open file (its digest matches its body) whose values differ from what the solver
    finds again: the Malom files would not be those of the open directory, so nothing is written."""
    d = shutil.copytree(open_dir, tmp_path / "open")
    f = d / "std_3_3_0_0.mdb"
    data = bytearray(f.read_bytes())
    words = struct.unpack_from(f"<{(len(data) - 128) // 2}H", data, 128)
    e = next(i for i, w in enumerate(words) if w >> 14 == 3)  # a win
    struct.pack_into("<H", data, 128 + 2 * e, words[e] + 2)  # two plies longer: still a valid word
    data[80:112] = hashlib.sha256(bytes(data[128:])).digest()
    f.write_bytes(bytes(data))
    out = tmp_path / "out"
    proc = millaudit_asan.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", out,
                              "--open-dir", d, "--format", "malom-sec", "--quiet")
    assert proc.returncode == 3, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "std_3_3_0_0.mdb: offset 80: exists but differs" in err[0]
    assert not list(out.glob("*.sec"))


def test_child_sec2_unlike_the_solution_is_refused(millaudit_asan, open_dir, sec2_dir, tmp_path):
    """The child's .sec2 feeds the ranking of the parent's draws: one win written two plies longer
    there is refused at its offset, and the parent's file is not written."""
    d = shutil.copytree(sec2_dir[0], tmp_path / "db")
    (d / "std_3_4_0_0.sec2").unlink()
    (d / "std_4_3_0_0.sec2").unlink()
    f = d / "std_3_3_0_0.sec2"
    data = bytearray(f.read_bytes())
    entries = sec2_entries(bytes(data), hash_count("std_3_3_0_0"))
    h = [i for i, (k1, k2) in enumerate(entries) if k1 == 10][-1]  # a win: v = 0, VW = 10
    k1, k2 = entries[h]
    struct.pack_into("<H", data, 64 + 2 * h, (k1 & 63) | ((k2 + 2) & 1023) << 6)
    f.write_bytes(bytes(data))
    proc = millaudit_asan.run("solve", "--variant", "std", "--sector", "4_3_0_0", "--out", d,
                              "--open-dir", open_dir, "--format", "malom-sec2", "--quiet")
    assert proc.returncode == 3, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1, err
    assert f"std_3_3_0_0.sec2: sector 3_3_0_0: offset {64 + 2 * h}: holds another value" in err[0]
    assert not (d / "std_4_3_0_0.sec2").exists() and not (d / "std_3_4_0_0.sec2").exists()
