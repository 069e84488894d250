"""A disk that refuses a document (docs/verifier.md "Allocation failures": the test shim's
MA_FAILIO makes write fail with ENOSPC, fsync and close with EIO, on the files whose path contains
a given word). Whatever the command, the user sees exit 4 (README "Exit codes": output failure)
with one line naming the document and the first thing that failed, no document half-written, no
temporary file left beside it, and a document already there left as it was.

Needs the release build (the shim cannot sit under AddressSanitizer), as test_alloc_failure.py."""
import os
import shutil
import subprocess

import pytest

from test_alloc_failure import shim  # noqa: F401  (the fixture)

OUTPUTS = {
    "manifest": lambda db, out: ["manifest", "create", db, "--out", out, "--quiet"],
    "report": lambda db, out: ["report", "--audit", db.parent / "a.sqlite", "--out", out],
}


@pytest.fixture(scope="module")
def db(millaudit, std3_games, tmp_path_factory):
    w = tmp_path_factory.mktemp("iofault")
    shutil.copytree(std3_games / "db", w / "db")
    millaudit.run("verify", w / "db", "--sector", "1_1_2_2", "--threads", "1", "--quiet", "--audit", w / "a.sqlite")
    return w / "db"


def run_failing(millaudit, shim, calls, args, word):  # noqa: F811
    env = dict(os.environ, LD_PRELOAD=str(shim), MA_FAILIO=calls, MA_FAILIO_PATH=word)
    return subprocess.run([str(millaudit.path), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("what", sorted(OUTPUTS))
@pytest.mark.parametrize("calls,first", [("write", "write failed: No space left on device"),
                                         ("fsync", "fsync failed: Input/output error"),
                                         ("fsync,close", "fsync failed: Input/output error"),
                                         ("close", "close failed: Input/output error")])
def test_a_refused_document_is_an_output_failure_and_leaves_nothing(millaudit, shim, db, what, calls, first):  # noqa: F811
    out = db.parent / f"{what}-{calls.replace(',', '-')}.out"
    p = run_failing(millaudit, shim, calls, OUTPUTS[what](db, out), out.name)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 4, p.stderr
    # the first failure is the one said: a close that also fails after a failed fsync does not
    # replace the reason
    assert len(lines) == 1 and str(out) in lines[0] and lines[0].endswith(first), p.stderr
    assert not out.exists()
    assert not [f for f in os.listdir(db.parent) if f.startswith(out.name)], "a temporary file was left"


@pytest.mark.parametrize("what", sorted(OUTPUTS))
def test_a_document_already_there_survives_a_refused_rewrite(millaudit, shim, db, what):  # noqa: F811
    out = db.parent / f"{what}-kept.out"
    millaudit.run(*OUTPUTS[what](db, out))
    before = out.read_bytes()
    assert before
    p = run_failing(millaudit, shim, "fsync", OUTPUTS[what](db, out), out.name)
    assert p.returncode == 4 and "fsync failed" in p.stderr
    assert out.read_bytes() == before
    assert sorted(f for f in os.listdir(db.parent) if f.startswith(out.name)) == [out.name]
