"""millaudit solve: the reference producer's files, re-runs, errors and a few rule facts.

Everything here is computed independently of the C code: the sector closure, the header layout,
the entry counts (from the rep_count table of docs/format.md §4.3) and, for the semantic checks,
a small Python implementation of the sym16-colex index and of the std rules for 3_3_0_0.
"""
import hashlib
import itertools
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
     prod, pver, digest, reserved) = struct.unpack("<8sHHBBBBBBBBHHQ32s16s32s16s", h)
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
    assert len(data) == 128 + 2 * count
    # docs/format.md §5.1: bytes 80..111 hold the SHA-256 of the body, 112..127 stay zero
    assert digest == hashlib.sha256(data[128:]).digest()
    assert reserved == bytes(16)
    return data


def snapshot(d):
    return {p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(d.iterdir())}


@pytest.fixture(scope="module")
def std4(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("std4")
    proc = millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", out, check=0)
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
    assert sum(1 for line in proc.stdout.splitlines() if re.search(r": [0-9,]+ entr(y|ies), ", line)) == len(want)


@pytest.mark.parametrize("variant", ["lask", "mora"])
def test_other_variants_three_stones(millaudit, tmp_path, variant):
    proc = millaudit.run("solve", "--variant", variant, "--stones", 3, "--out", tmp_path,
                         check=0)
    want = closure(variant, 3)
    assert {p.name for p in tmp_path.iterdir()} == {fname(variant, s) for s in want}
    for s in want:
        check_file(tmp_path / fname(variant, s), variant, s)
    assert f"start {variant}_0_0_3_3: " in proc.stdout


def test_rerun_skips_and_keeps_files(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    before = snapshot(tmp_path)
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    assert snapshot(tmp_path) == before
    assert proc.stdout.count("skipped") == len(before)


def test_sector_needs_children(millaudit, tmp_path):
    proc = millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--out", tmp_path, check=3)
    assert "std_3_3_0_0.mdb" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_sector_with_deps_and_then_alone(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", tmp_path,
                  check=0)
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"std_3_3_0_0.mdb", "std_3_4_0_0.mdb", "std_4_3_0_0.mdb"}
    # the children now exist: a plain --sector of the parent of 3_4/4_3 works
    proc = millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--out", tmp_path,
                         check=0)
    assert "std_4_4_0_0" in proc.stdout
    check_file(tmp_path / "std_4_4_0_0.mdb", "std", (4, 4, 0, 0))


# README's exit-code table: a command line that cannot be parsed (a malformed sector, a number out
# of range, an unknown option) is 2; a well-formed sector impossible for the variant is 3.
@pytest.mark.parametrize("args,code,needle", [
    (["--variant", "chess", "--stones", "3"], 2, "chess"),
    (["--variant", "std", "--sector", "10_3_0_0"], 3, "10_3_0_0"),
    (["--variant", "std", "--sector", "3_3_0"], 2, "3_3_0"),
    (["--variant", "std", "--sector", "x"], 2, "'x'"),
    (["--variant", "std", "--sector", ""], 2, "''"),
    (["--variant", "std", "--stones", "10"], 2, "--stones"),
    (["--variant", "std", "--stones", "2"], 2, "--stones"),
    (["--variant", "std", "--stones", "three"], 2, "--stones"),
    (["--variant", "std", "--stones", "3", "--sector", "3_3_0_0"], 2, "exactly one"),
    (["--variant", "std", "--stones", "3", "--frobnicate"], 2, "frobnicate"),
    (["--variant", "std", "--stones", "3", "--threads", "0"], 2, "--threads 0"),
    (["--variant", "std", "--stones", "3", "--threads", "-1"], 2, "--threads -1"),
    (["--variant", "std", "--stones", "3", "--threads", "100000"], 2, "--threads 100000"),
    (["--variant", "std", "--stones", "3", "--threads", "two"], 2, "--threads two"),
    (["--variant", "std", "--stones", "3", "--threads", "2x"], 2, "--threads 2x"),
    (["--variant", "std", "--stones", "3", "--memory-limit", "lots"], 2, "--memory-limit lots"),
    (["--variant", "std", "--stones", "3", "--memory-limit", "0"], 2, "--memory-limit 0"),
    (["--variant", "std", "--stones", "3", "--memory-limit", "5Q"], 2, "--memory-limit 5Q"),
    # the production binary has no planted bugs at all: the option itself is unknown
    (["--variant", "std", "--stones", "3", "--plant-bug", "fly-early"], 2, "--plant-bug"),
])
def test_bad_arguments(millaudit, millaudit_asan, tmp_path, args, code, needle):
    for binary in (millaudit, millaudit_asan):
        proc = binary.run("solve", *args, "--out", tmp_path, check=code)
        # one line saying what is wrong and the hint line, as every command (common/options.h)
        lines = proc.stderr.strip().splitlines()
        assert needle in lines[0]
        assert lines[1:] == (["try 'millaudit solve --help'"] if code == 2 else [])
        assert list(tmp_path.iterdir()) == []


def test_planted_binary_refuses_unknown_bug(millaudit_planted, tmp_path):
    proc = millaudit_planted.run("solve", "--variant", "std", "--stones", "3", "--plant-bug",
                                 "no-such-bug", "--out", tmp_path, check=2)
    assert "no-such-bug" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_missing_output_directory_is_created(millaudit, tmp_path):
    """docs/solver.md: a missing last component is created; a missing parent is exit 4 (below)."""
    new = tmp_path / "new"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", new, check=0)
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
    # a directory the user may not write: root writes anywhere, so as root (CI) the command runs as
    # nobody (setpriv), from a copy of the binary in a directory nobody can reach
    base = Path(tempfile.mkdtemp(prefix="millaudit-ro-"))
    try:
        base.chmod(0o755)
        binary = base / "millaudit"
        shutil.copy2(millaudit.path, binary)
        ro = base / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        argv = [str(binary), "solve", "--variant", "std", "--stones", "3", "--out", str(ro)]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *argv]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 4, proc.stderr
        assert proc.stderr.strip() == f"millaudit solve: {ro}: output directory not writable: Permission denied"
        assert list(ro.iterdir()) == []
    finally:
        shutil.rmtree(base)


def test_truncated_final_file_is_refused_and_untouched(millaudit, millaudit_asan, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
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
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    victim = tmp_path / "std_3_3_0_0.mdb"
    data = bytearray(victim.read_bytes())
    data[12] = 2  # variant lask in a std file
    victim.write_bytes(bytes(data))
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
    assert "offset 12" in proc.stderr and "std_3_3_0_0.mdb" in proc.stderr
    assert victim.read_bytes() == bytes(data)


def test_no_temporary_files_after_failure(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--out", tmp_path, check=3)
    millaudit.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--out", tmp_path, check=0)
    assert [p.name for p in tmp_path.iterdir()] == ["std_3_3_0_0.mdb"]


def test_asan_build_solves_three_stones(millaudit_asan, tmp_path):
    proc = millaudit_asan.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path,
                              check=0)
    assert "start std_0_0_3_3: " in proc.stdout
    assert len(list(tmp_path.iterdir())) == len(closure("std", 3))


BUG_NAMES = ("removal-from-mill", "fly-early", "double-removal", "blocked-not-lost", "depth-in-moves")


def test_help_hides_bug_names(millaudit, millaudit_planted):
    proc = millaudit.run("solve", "--help", check=0)
    assert "--stones" in proc.stdout and "--with-deps" in proc.stdout
    assert "--threads" in proc.stdout and "--memory-limit" in proc.stdout
    assert "plant" not in proc.stdout  # the production build has no such option
    proc = millaudit_planted.run("solve", "--help", check=0)
    assert "--plant-bug" in proc.stdout and "for tests only" in proc.stdout
    for out in (proc.stdout,):
        for name in BUG_NAMES:
            assert name not in out


def test_production_binary_carries_no_bug_names(millaudit, millaudit_planted):
    """The planted-bug hooks are compiled out of the production build, not merely hidden."""
    prod = millaudit.path.read_bytes()
    planted = millaudit_planted.path.read_bytes()
    assert b"--plant-bug" not in prod and b"plant-bug" in planted
    assert b"millaudit-solver+bug:" in planted
    # the test build's rendezvous and stops (cli/test_hook.h) are absent from the shipped binary
    for hook in (b"MILLAUDIT_TEST_STEP_DIR", b"MILLAUDIT_TEST_STOP_AFTER_MOVES"):
        assert hook not in prod and hook in planted, hook


# removal-from-mill and double-removal change nothing in games this small (checked: the whole
# std 4-stone game is identical), so their rule change is covered by tests/unit/test_solver_planted.c
# and here only their labelling is checked.
@pytest.mark.parametrize("bug,target", [
    ("fly-early", "4_3_0_0"), ("blocked-not-lost", "4_4_0_0"), ("depth-in-moves", "4_4_0_0")])
def test_planted_bug_changes_the_database(millaudit_planted, std4, tmp_path, bug, target):
    good, _ = std4
    millaudit_planted.run("solve", "--variant", "std", "--sector", target, "--with-deps", "--out",
                          tmp_path, "--plant-bug", bug, check=0)
    differs = 0
    files = list(tmp_path.iterdir())
    assert len(files) >= 3
    for path in files:
        s = tuple(int(x) for x in path.stem.split("_")[1:])
        bad = check_file(path, "std", s, producer=f"millaudit-solver+bug:{bug}")
        differs += bad[128:] != (good / path.name).read_bytes()[128:]
    assert differs > 0


def test_planted_bug_files_are_not_trusted_by_a_clean_run(millaudit, millaudit_planted, tmp_path):
    millaudit_planted.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path,
                          "--plant-bug", "depth-in-moves", check=0)
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
    assert "another producer" in proc.stderr


@pytest.mark.parametrize("bug", ["removal-from-mill", "double-removal"])
def test_planted_bug_is_labelled(millaudit_planted, tmp_path, bug):
    millaudit_planted.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path,
                          "--plant-bug", bug, check=0)
    for s in closure("std", 3):
        check_file(tmp_path / fname("std", s), "std", s, producer=f"millaudit-solver+bug:{bug}")


# ---- threads, memory, reuse, litter ----------------------------------------------------------

def _without_seconds(stdout):
    return [line.rsplit(",", 1)[0] if " canonical, " in line else line for line in stdout.splitlines()]


def test_threads_give_identical_files(millaudit, std4, tmp_path):
    """Issue 12: the files are byte-identical for 1, 2 and 3 threads (SHA-256 of every file)."""
    good, first = std4
    digests = {}
    outputs = {}
    for n in (1, 2, 3):
        out = tmp_path / f"t{n}"
        proc = millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", out,
                             "--threads", n, check=0)
        digests[n] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()}
        outputs[n] = _without_seconds(proc.stdout)
    assert len(digests[1]) == len(closure("std", 4))
    assert digests[1] == digests[2] == digests[3]
    # and the same as the default (online CPUs) run of the fixture, reports in the same order
    assert digests[1] == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in good.iterdir()}
    assert outputs[1] == outputs[2] == outputs[3] == _without_seconds(first.stdout)


def _component_bytes(variant, sector, threads):
    """docs/solver.md "Memory": 2 bytes per member entry, 2 per child entry, up to 8 per member
    entry for the depth queues of a cyclic component, 2 MiB per thread, 64 MiB per run."""
    members = {sector, (sector[1], sector[0], sector[3], sector[2])}
    kids = set()
    for m in members:
        kids |= children(variant, m)
    kids -= members
    cyclic = len(members) == 2 or sector in children_with_self(variant, sector)
    m = sum(entry_count(x[0], x[1]) for x in members)
    c = sum(entry_count(x[0], x[1]) for x in kids)
    return 2 * m + 2 * c + (8 * m if cyclic else 0) + threads * (2 << 20) + (64 << 20)


def children_with_self(variant, s):
    """Like children(), keeping s itself when a turn of s stays in s (a self-loop)."""
    w, b, wf, bf = s
    if variant == "lask" or wf == 0:
        x = (w, b, wf, bf)
        if (variant != "lask" or w > 0) and (x[1], x[0], x[3], x[2]) == s:
            return {s}
    return set()


def test_memory_limit_refuses_before_writing(millaudit, millaudit_asan, tmp_path):
    """Issue 12: a sector too big for the memory available is refused up front, exit 4, with one
    line naming the sector and the bytes it needs; nothing is written, not even its children."""
    need44 = _component_bytes("std", (4, 4, 0, 0), 1)
    need34 = _component_bytes("std", (3, 4, 0, 0), 1)
    assert need34 < need44
    limit = (need34 + need44) // 2
    for binary in (millaudit, millaudit_asan):
        proc = binary.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--with-deps", "--out",
                          tmp_path, "--threads", 1, "--memory-limit", limit, check=4)
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "sector std_4_4_0_0 " in proc.stderr
        assert f"needs {need44:,} bytes" in proc.stderr
        assert f"{limit:,} bytes" in proc.stderr and "--memory-limit" in proc.stderr
        assert list(tmp_path.iterdir()) == []
    # with a little more, the same run goes through
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--with-deps", "--out", tmp_path,
                  "--threads", 1, "--memory-limit", need44, check=0)
    assert (tmp_path / "std_4_4_0_0.mdb").is_file()
    # suffixes are powers of 1024
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path / "k",
                         "--memory-limit", "1K", check=4)
    assert "1,024 bytes" in proc.stderr


@pytest.mark.parametrize("word,offset_of_word,needle", [
    (None, False, "SHA-256"),    # a different, well-encoded value: only the digest shows it
    (0xC002, True, "0xc002"),    # a forbidden word (a win at an even depth)
])
def test_reused_file_must_be_intact(millaudit, millaudit_asan, tmp_path, word, offset_of_word, needle):
    """Issue 9 item 14: a final-name file is reused only when proven intact; a changed body is
    refused (exit 3, file untouched, nothing written), never trusted to derive parents."""
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    victim = tmp_path / "std_3_3_0_0.mdb"
    data = bytearray(victim.read_bytes())
    e = next(i for i in range(entry_count(3, 3)) if value(data, i) == 0xC001)
    new = word if word is not None else 0xC003
    struct.pack_into("<H", data, 128 + 2 * e, new)
    victim.write_bytes(bytes(data))
    (tmp_path / "std_0_0_3_3.mdb").unlink()
    before = snapshot(tmp_path)
    for binary in (millaudit, millaudit_asan):
        proc = binary.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "std_3_3_0_0.mdb" in proc.stderr and "sector 3_3_0_0" in proc.stderr
        assert needle in proc.stderr and "remove it" in proc.stderr
        want_offset = 128 + 2 * e if offset_of_word else 80
        assert f"offset {want_offset}:" in proc.stderr
        assert snapshot(tmp_path) == before


def test_file_without_digest_is_not_reused(millaudit, tmp_path):
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    victim = tmp_path / "std_2_2_1_1.mdb"
    data = bytearray(victim.read_bytes())
    data[80:112] = bytes(32)
    victim.write_bytes(bytes(data))
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=3)
    assert "no body digest" in proc.stderr and "offset 80:" in proc.stderr


def _dead_pid():
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_stale_temporaries_of_dead_processes_are_removed(millaudit, tmp_path):
    """Issue 9 item 12: litter of killed solves is removed by the next solve; a temporary file
    of a live process is left alone, and so is anything not named like a sector's temporary."""
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    dead = f"std_3_3_0_0.mdb.tmp.{_dead_pid()}"
    live = f"std_2_2_1_1.mdb.tmp.{os.getpid()}"
    other = "MANIFEST.sha256.tmp.1"
    for name in (dead, live, other):
        (tmp_path / name).write_bytes(b"half a file")
    (tmp_path / "std_0_0_3_3.mdb").unlink()
    proc = millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", tmp_path, check=0)
    assert not (tmp_path / dead).exists()
    assert (tmp_path / live).exists() and (tmp_path / other).exists()
    assert "removed 1 stale temporary file" in proc.stderr and dead in proc.stderr
    assert (tmp_path / "std_0_0_3_3.mdb").is_file()


@pytest.mark.parametrize("sig,code", [("TERM", 143), ("INT", 130)])
def test_interrupted_solve_leaves_no_partial_file(millaudit, millaudit_planted, tmp_path, sig, code):
    """A solve stopped by SIGTERM / SIGINT exits 143 / 130 and leaves only complete files, which
    the next run reuses. The test build raises the signal after the 3rd finished sector
    (MILLAUDIT_TEST_STOP_AFTER_SECTORS, cli/cmd_solve.c): the stop is at a known point, not a race
    with the solve's speed."""
    out = tmp_path / "d"
    proc = subprocess.run([str(millaudit_planted.path), "solve", "--variant", "std", "--stones", "4",
                           "--out", str(out), "--threads", "1"], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, MILLAUDIT_TEST_STOP_AFTER_SECTORS="3",
                                                MILLAUDIT_TEST_STOP_SIGNAL=sig))
    stderr = proc.stderr
    assert proc.returncode == code, stderr
    assert f"interrupted by SIG{sig}" in stderr
    names = [p.name for p in out.iterdir()]
    assert not [n for n in names if ".tmp." in n]
    assert len(names) == 3 < len(closure("std", 4))
    again = millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", out, check=0)
    assert again.stdout.count("skipped") == len(names)
    for s in closure("std", 4):
        check_file(out / fname("std", s), "std", s)


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
