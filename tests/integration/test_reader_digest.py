"""Issue 21, item 6: readers check what they read (docs/format.md §5.1). Every command reading an
open-format file through verifier/formats/source refuses a body that no longer matches the SHA-256 in its
header: exit 3, one line naming the file, the sector and offset 80. --no-digest-check reads it
anyway, for someone inspecting a damaged file."""
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

INJECT = ROOT / "scripts" / "inject_fault.py"
SECTOR = "std_3_3_0_0"
POSITION = "a1,d1,g1/a7,d7,g7"  # a position of SECTOR


@pytest.fixture(scope="module")
def dbs(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("rd")
    good = base / "good"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", good, "--quiet", check=0)
    damaged = base / "damaged"
    shutil.copytree(good, damaged)
    # one wrong depth, the header's digest left as the producer wrote it: damage after writing
    subprocess.run([sys.executable, INJECT, damaged / f"{SECTOR}.mdb", "--entry", "1329", "--depth-delta", "+1"],
                   check=True, capture_output=True)
    return good, damaged


def commands(db, other):
    return {
        "stats": ["stats", db],
        "dump": ["dump", db / f"{SECTOR}.mdb"],
        "diff": ["diff", db, other],
        "opening": ["opening", db, "--variant", "std", "--stones", "3", "--no-compare"],
        "probe": ["probe", db, POSITION],
        "grade": ["grade", db, "--player", "random", "--positions", "20", "--sector", "3_3_0_0"],
    }


@pytest.mark.parametrize("name", ["stats", "dump", "diff", "opening", "probe", "grade"])
def test_reader_refuses_a_body_that_fails_its_digest(millaudit, dbs, name):
    good, damaged = dbs
    # the same command on the intact database reads fine: the refusal is about the damage
    millaudit.run(*commands(good, good)[name], check=0)
    proc = millaudit.run(*commands(damaged, good)[name], check=3)
    lines = [l for l in proc.stderr.splitlines() if "offset 80" in l]
    assert len(lines) == 1, proc.stderr
    assert f"{SECTOR}.mdb: sector {SECTOR}: offset 80: body digest mismatch" in lines[0]
    assert "--no-digest-check" in lines[0]


# each command's exit on the damaged file read anyway: diff finds the changed depth (1), probe flags
# the probed entry whose stored value its best turn contradicts (1, issue 45), the others only read (0)
@pytest.mark.parametrize("name,code", [("stats", 0), ("dump", 0), ("diff", 1), ("opening", 0), ("probe", 1),
                                       ("grade", 0)])
def test_no_digest_check_reads_the_damaged_file(millaudit, dbs, name, code):
    good, damaged = dbs
    proc = millaudit.run(*commands(damaged, good)[name], "--no-digest-check", check=code)
    assert "offset 80" not in proc.stderr


def test_diff_no_digest_check_finds_the_changed_depth(millaudit, dbs):
    good, damaged = dbs
    proc = millaudit.run("diff", good, damaged, "--no-digest-check", check=1)
    assert SECTOR in proc.stdout


def test_dump_of_damaged_file_shows_the_stored_bytes(millaudit, dbs):
    good, damaged = dbs
    a = millaudit.run("dump", good / f"{SECTOR}.mdb", check=0).stdout.splitlines()
    b = millaudit.run("dump", damaged / f"{SECTOR}.mdb", "--no-digest-check", check=0).stdout.splitlines()
    body = [(x, y) for x, y in zip(a, b) if not x.startswith("# file:")]
    assert len(a) == len(b) and sum(x != y for x, y in body) == 1


def test_verify_reports_the_mismatch_as_damage(millaudit, dbs):
    """verify checks every body against its digest before it reads a value: the file is damaged
    (exit 3, docs/download.md), named with what is wrong and listed to fetch again; the sector is
    not checked, so the changed depth is never reported as the solver's discrepancy."""
    good, damaged = dbs
    proc = millaudit.run("verify", damaged, check=3)
    assert f"damaged: {SECTOR}.mdb: body differs from the SHA-256 its header records (offset 80): not the bytes " \
           "its producer wrote" in proc.stdout.splitlines()
    assert f"fetch again: {SECTOR}.mdb (1 file; --refetch-list FILE writes them one per line)" in proc.stdout
    assert "discrepancies found" not in proc.stdout
