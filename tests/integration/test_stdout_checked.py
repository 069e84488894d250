"""Issue 41, item 4: every write is checked (docs/robustness.md "Outputs").

Guards against a command that exits 0 (or 1, 3) when its standard output could not be written: a
CI job running `verify --json > r.json` on a full disk got exit 0 and no document. Every command
that prints to standard output is run twice on the 3-stone game: once into a pipe (it prints
something and exits as it should) and once with standard output on /dev/full (every write fails
with ENOSPC): it must exit 4 and name standard output on stderr. A signal's exit (130/143) and an
internal error (5) would still win; nothing here raises either.

Also `-` as an output is checked against the command's inputs like any other path: standard output
opened (without truncation) on a sector file is refused before any work, as `--junit /dev/stdout`
was already.
"""
import hashlib
import os
import shutil
import subprocess

import pytest

from conftest import skip_unless

# name -> argv (run in the world directory; "{N}" is replaced by a fresh name per run)
COMMANDS = {
    "verify text": ["verify", "db"],
    "verify --json": ["verify", "db", "--json"],
    "verify --audit": ["verify", "db", "--audit", "{N}.sqlite"],
    "verify --audit --json": ["verify", "db", "--audit", "{N}.sqlite", "--json"],
    "verify --plan": ["verify", "db", "--plan", "2"],
    "verify --plan --json": ["verify", "db", "--plan", "2", "--json"],
    "verify (discrepancies)": ["verify", "bad"],
    "index-check": ["index-check", "--variant", "std", "--sector", "1_1_2_2"],
    "stats": ["stats", "db"],
    "dump": ["dump", "db/std_1_1_2_2.mdb"],
    "probe": ["probe", "db", "a1/d1 wf=2 bf=2"],
    "diff": ["diff", "db", "db2"],
    "opening": ["opening", "db", "--variant", "std", "--stones", "3"],
    "grade": ["grade", "db", "--player", "random", "--positions", "10", "--seed", "1"],
    "manifest create --out -": ["manifest", "create", "db", "--out", "-", "--quiet"],
    "manifest check": ["manifest", "check", "db/MANIFEST.sha256"],
    "manifest merge -": ["manifest", "merge", "-", "m0.sha256", "m1.sha256"],
    "report": ["report", "--audit", "a.sqlite", "--format", "text"],
    "runs list": ["runs", "list", "--audit", "a.sqlite"],
    "runs export": ["runs", "export", "--audit", "a.sqlite"],
    "runs compare": ["runs", "compare", "--audit", "a.sqlite", "1", "2"],
    "runs regressions": ["runs", "regressions", "--audit", "a.sqlite"],
    "runs merge": ["runs", "merge", "{N}.sqlite", "s0.sqlite", "s1.sqlite"],
    "attest verify": ["attest", "verify", "att.json", "--pub", "key.pub"],
    "solve": ["solve", "--variant", "std", "--stones", "3", "--out", "{N}"],
    "--help": ["verify", "--help"],
    "-V": ["-V"],
}


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    w = tmp_path_factory.mktemp("stdout")
    run = lambda *a, check=0: millaudit.run(*a, cwd=w, check=check)
    run("solve", "--variant", "std", "--stones", 3, "--out", "db", "--quiet")
    shutil.copytree(w / "db", w / "db2")
    shutil.copytree(w / "db", w / "bad")
    data = bytearray((w / "bad" / "std_1_1_2_2.mdb").read_bytes())
    data[80:112] = bytes(32)             # no body digest: the fault is found by the check alone
    data[128 + 2 * 5] ^= 0x01            # one entry's depth changed
    (w / "bad" / "std_1_1_2_2.mdb").write_bytes(bytes(data))
    run("verify", "db", "--audit", "a.sqlite", "--quiet")
    run("verify", "db", "--audit", "a.sqlite", "--quiet")
    run("verify", "db", "--shard", "0/2", "--audit", "s0.sqlite", "--quiet")
    run("verify", "db", "--shard", "1/2", "--audit", "s1.sqlite", "--quiet")
    run("manifest", "create", "db", "--quiet")
    run("manifest", "create", "db", "--shard", "0/2", "--out", "m0.sha256", "--quiet")
    run("manifest", "create", "db", "--shard", "1/2", "--out", "m1.sha256", "--quiet")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(w / "key.pem")], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(w / "key.pem"), "-pubout", "-out", str(w / "key.pub")],
                   check=True, capture_output=True)
    run("attest", "create", "--audit", "a.sqlite", "--key", "key.pem", "--out", "att.json", check=0)
    return w


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_full_standard_output_exits_4(millaudit, world, name):
    argv = COMMANDS[name]
    args = lambda tag: [a.replace("{N}", f"fresh-{tag}") for a in argv]
    piped = subprocess.run([str(millaudit.path), *args("pipe")], cwd=world, capture_output=True, text=True,
                           timeout=600)
    assert piped.returncode in (0, 1), (name, piped.returncode, piped.stderr)
    assert piped.stdout, f"{name} prints nothing to standard output: nothing to test"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([str(millaudit.path), *args("full")], cwd=world, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=600)
    assert proc.returncode == 4, (name, proc.returncode, proc.stderr)
    assert "standard output: write failed" in proc.stderr, proc.stderr


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("argv,input", [
    (["verify", "db", "--quiet", "--junit", "-"], "db/std_1_1_2_2.mdb"),
    (["runs", "regressions", "--audit", "a.sqlite", "--junit", "-"], "a.sqlite"),
    (["diff", "db", "db2", "--quiet", "--junit", "-"], "db2/std_1_1_2_2.mdb"),
    (["manifest", "merge", "-", "m0.sha256", "m1.sha256"], "m1.sha256"),
], ids=["verify --junit -", "runs regressions --junit -", "diff --junit -", "manifest merge -"])
def test_dash_on_an_input_is_refused(millaudit, world, tmp_path, argv, input):
    """Standard output opened without truncation (`1<>FILE`) on an input is that input: `-` is
    refused before any work (exit 2), as the same file named by its path is."""
    w = tmp_path / "w"
    shutil.copytree(world, w)
    target = w / input
    before = sha(target)
    fd = os.open(target, os.O_RDWR)
    try:
        proc = subprocess.run([str(millaudit.path), *argv], cwd=w, stdout=fd, stderr=subprocess.PIPE, text=True,
                              timeout=600)
    finally:
        os.close(fd)
    assert proc.returncode == 2, proc.stderr
    assert "(standard output)" in proc.stderr and input in proc.stderr, proc.stderr
    assert sha(target) == before


def test_dev_stdout_is_standard_output(millaudit, world, tmp_path):
    """`--junit /dev/stdout` is standard output, written through its descriptor: with standard output
    on a regular file, an output written atomically beside /dev/stdout and renamed over it would
    replace the system's /dev/stdout link by a file (as root), and the document would never reach
    the file standard output is on. (Not run against b7a54e7, which does exactly that.)"""
    skip_unless(os.path.islink("/dev/stdout"), "/dev/stdout is not the usual link to /proc/self/fd/1")
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        proc = subprocess.run([str(millaudit.path), "verify", "db", "--quiet", "--junit", "/dev/stdout"], cwd=world,
                              stdout=f, stderr=subprocess.PIPE, text=True, timeout=600)
    assert os.path.islink("/dev/stdout") and os.readlink("/dev/stdout") == "/proc/self/fd/1"
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "verdict: verified" in text and '<testsuites name="millaudit verify"' in text
