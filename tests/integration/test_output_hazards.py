"""Every output option of every command against every hazard (common/output.h, docs/robustness.md
"Outputs").

An output that names an input of its command (the audit store, the store's -wal, a database file by
its path, by a hard link or by a symbolic link; a shard manifest or shard store) is refused before
any work with exit 2; a directory, a missing directory or a read-only file with exit 4 (a document
when it is written, after the work, which still reports; a store before any work); a character
device (made with mknod in the test's directory) and a FIFO with a reader are written through and
stay what they are. After every case the inputs' bytes are unchanged by SHA-256 (the store too when
the command was refused; a store the command writes to is checked to be a sound SQLite store), and
nothing is left beside the output.
"""
import errno
import hashlib
import os
import shutil
import sqlite3
import stat
import subprocess
import time

import pytest

from conftest import skip_unless

# command -> (argv with "{OUT}", the store the store hazards refer to, the input file the input,
#             hard-link and symlink hazards refer to (the store for commands that read nothing else),
#             the first character of its document (None: a manifest; "store": a SQLite store))
COMMANDS = {
    "verify --junit": (["verify", "db", "--audit", "a.sqlite", "--quiet", "--junit", "{OUT}"],
                       "a.sqlite", "db/std_0_0_3_3.mdb", "<"),
    "report --out": (["report", "--audit", "a.sqlite", "--format", "html", "--out", "{OUT}"],
                     "a.sqlite", "a.sqlite", "<"),
    "runs export --out": (["runs", "export", "--audit", "a.sqlite", "--out", "{OUT}"],
                          "a.sqlite", "a.sqlite", "{"),
    "runs regressions --junit": (["runs", "regressions", "--audit", "a.sqlite", "--junit", "{OUT}"],
                                 "a.sqlite", "a.sqlite", "<"),
    "manifest create --out": (["manifest", "create", "db", "--audit", "a.sqlite", "--quiet", "--out", "{OUT}"],
                              "a.sqlite", "db/std_0_0_3_3.mdb", None),
    "manifest merge OUT": (["manifest", "merge", "{OUT}", "m0.sha256", "m1.sha256"],
                           None, "m0.sha256", None),
    "diff --junit": (["diff", "db", "db2", "--audit", "a.sqlite", "--quiet", "--junit", "{OUT}"],
                     "a.sqlite", "db2/std_0_0_3_3.mdb", "<"),
    "grade --html": (["grade", "db", "--player", "random", "--positions", "20", "--seed", "1", "--quiet",
                      "--audit", "a.sqlite", "--html", "{OUT}"],
                     "a.sqlite", "db/std_0_0_3_3.mdb", "<"),
    "runs merge OUT": (["runs", "merge", "{OUT}", "s0.sqlite", "s1.sqlite"],
                       "s0.sqlite", "s1.sqlite", "store"),
    "attest create --out": (["attest", "create", "--audit", "a.sqlite", "--key", "key.pem", "--out", "{OUT}"],
                            "a.sqlite", "key.pem", "{"),
    # a damaged download (docs/download.md): the list to fetch again is its document
    "verify --refetch-list": (["verify", "dl", "--audit", "a.sqlite", "--quiet", "--refetch-list", "{OUT}"],
                              "a.sqlite", "dl/std_0_0_3_3.mdb", "s"),
}
# what a command exits with when it writes a fresh file (0 unless said here)
OK_CODE = {"verify --refetch-list": 3}

# hazard -> exit code for a document output, for a store output (runs merge OUT); "ok" is the
# command's own exit code when writing a fresh file
HAZARDS = {
    "store": (2, 2),
    "store-wal": (2, 2),
    "input": (2, 2),
    "hardlink": (2, 2),
    "symlink": (2, 2),
    "chardev": ("ok", 4),
    "fifo": ("ok", 4),
    "directory": (4, 4),
    "missing-dir": (4, 4),
    "readonly": (4, 4),
}


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    """A solved 3-stone game with every input a command of the table reads."""
    w = tmp_path_factory.mktemp("hazards")
    run = lambda *a: millaudit.run(*a, cwd=w, check=0)
    run("solve", "--variant", "std", "--stones", 3, "--out", "db", "--quiet")
    shutil.copytree(w / "db", w / "db2")
    run("verify", "db", "--audit", "a.sqlite", "--quiet")
    run("verify", "db", "--shard", "0/2", "--audit", "s0.sqlite", "--quiet")
    run("verify", "db", "--shard", "1/2", "--audit", "s1.sqlite", "--quiet")
    run("manifest", "create", "db", "--shard", "0/2", "--out", "m0.sha256", "--quiet")
    run("manifest", "create", "db", "--shard", "1/2", "--out", "m1.sha256", "--quiet")
    shutil.copytree(w / "db", w / "dl")
    run("manifest", "create", "dl", "--quiet")
    with open(w / "dl" / "std_1_2_2_1.mdb", "ab") as f:  # a transfer that wrote two bytes too many
        f.write(b"\0\0")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(w / "key.pem")], check=True,
                   capture_output=True)
    for p in w.iterdir():  # side files some commands leave are no inputs of the table
        if p.name.endswith(("-wal", "-shm")):
            p.unlink()
    return w


def digests(root):
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def make_hazard(w, hazard, store, infile):
    """Creates the hazard in w; returns the output path (relative to w)."""
    if hazard == "store":
        return store
    if hazard == "store-wal":
        return store + "-wal"
    if hazard == "input":
        return infile
    if hazard == "hardlink":
        os.link(w / infile, w / "hardlink")
        return "hardlink"
    if hazard == "symlink":
        os.symlink(infile, w / "symlink")
        return "symlink"
    if hazard == "chardev":
        try:
            os.mknod(w / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            skip_unless(False, "mknod needs CAP_MKNOD (root)")
        return "null"
    if hazard == "fifo":
        os.mkfifo(w / "fifo")
        return "fifo"
    if hazard == "directory":
        (w / "adir").mkdir()
        return "adir"
    if hazard == "missing-dir":
        return "no-such-dir/out"
    if hazard == "readonly":
        (w / "ro").write_text("keep me\n")
        os.chmod(w / "ro", 0o444)
        return "ro"
    raise AssertionError(hazard)


def run_with_fifo_reader(millaudit, argv, cwd, fifo):
    """Runs the command while this process reads the FIFO (opened before the command starts, so
    the command always finds a reader); returns (CompletedProcess-like, bytes read)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    got = bytearray()
    proc = subprocess.Popen([str(millaudit.path), *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        while True:
            done = proc.poll() is not None
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                chunk = None
            if chunk:
                got += chunk
            elif done:
                break
            else:
                time.sleep(0.01)
        out, err = proc.communicate(timeout=600)
    finally:
        os.close(fd)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), bytes(got)


def store_sound(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()


@pytest.fixture(scope="module")
def ok_codes(millaudit, world, tmp_path_factory):
    """Each command's exit code when it writes a fresh file: the code of the pass-through cases."""
    codes = {}
    for name, (argv, _, _, _) in COMMANDS.items():
        w = tmp_path_factory.mktemp("baseline")
        shutil.copytree(world, w, dirs_exist_ok=True)
        proc = millaudit.run(*[a.replace("{OUT}", "fresh.out") for a in argv], cwd=w)
        # every input of the table is clean and complete (but the damaged download's), so every
        # command succeeds outright
        assert proc.returncode == OK_CODE.get(name, 0), (name, proc.stderr)
        assert (w / "fresh.out").is_file()
        codes[name] = proc.returncode
    return codes


# every command against every hazard, but the store hazards only where the command has a store
CASES = [(c, h) for c in COMMANDS for h in HAZARDS if COMMANDS[c][1] is not None or h not in ("store", "store-wal")]


@pytest.mark.parametrize("command,hazard", CASES)
def test_output_hazard(millaudit, world, ok_codes, tmp_path, command, hazard):
    argv, store, infile, first = COMMANDS[command]
    w = tmp_path / "w"
    shutil.copytree(world, w)
    out = make_hazard(w, hazard, store, infile)
    is_store_output = first == "store"
    want = HAZARDS[hazard][1 if is_store_output else 0]
    if want == "ok":
        want = ok_codes[command]
    before = digests(w)
    args = [a.replace("{OUT}", out) for a in argv]
    got = b""
    if hazard == "fifo" and not is_store_output:
        proc, got = run_with_fifo_reader(millaudit, args, w, w / out)
    else:
        proc = millaudit.run(*args, cwd=w, timeout=600)
    assert proc.returncode == want, (proc.returncode, proc.stderr)
    after = digests(w)
    # exit 2 is decided before any work; a document that cannot be written is found when it is
    # written, after the work (whose store may hold the new run, as before: docs/runs.md)
    refused = want == 2 or is_store_output and want == 4
    if want == 2:
        # names both roles: the option and what the path is
        assert ("--" in proc.stderr or "OUT" in proc.stderr) and ("store" in proc.stderr or "input" in proc.stderr), \
            proc.stderr
    for name, digest in before.items():
        writes_store = store and name == store and not refused and command != "runs merge OUT"
        if writes_store:
            assert store_sound(w / name), name
        else:
            assert after.get(name) == digest, f"{name} changed"
    # no temporary file left beside anything
    assert not [n for n in after if ".tmp." in n], after
    if hazard == "chardev":
        assert stat.S_ISCHR(os.stat(w / out).st_mode)
    if hazard == "fifo":
        assert stat.S_ISFIFO(os.stat(w / out).st_mode)
        if not is_store_output:
            assert got, "nothing written through the FIFO"
            if first:
                assert got.decode("utf-8", "replace").lstrip().startswith(first), got[:80]
            else:
                assert got[:64].decode().strip("\\").isalnum()  # a manifest's digest line
    if hazard == "directory":
        assert (w / out).is_dir() and not any((w / out).iterdir())
    if hazard == "missing-dir":
        assert not (w / "no-such-dir").exists()
    if hazard == "readonly":
        assert (w / out).read_text() == "keep me\n"
    if hazard == "store-wal" and refused:
        assert not (w / out).exists() or before.get(out) == after.get(out)


def test_dash_is_standard_output_for_documents(millaudit, world, tmp_path):
    w = tmp_path / "w"
    shutil.copytree(world, w)
    proc = millaudit.run("runs", "export", "--audit", "a.sqlite", "--out", "-", cwd=w, check=0)
    assert proc.stdout.lstrip().startswith("{")
    proc = millaudit.run("report", "--audit", "a.sqlite", "--format", "md", "--out", "-", cwd=w, check=0)
    assert proc.stdout.strip()
    proc = millaudit.run("runs", "merge", "-", "s0.sqlite", "s1.sqlite", cwd=w, check=2)
    assert "standard output" in proc.stderr


def test_refused_before_any_work(millaudit, world, tmp_path):
    """A refused output leaves the store without a new run: the check comes before the work."""
    w = tmp_path / "w"
    shutil.copytree(world, w)
    runs = lambda: sqlite3.connect(w / "a.sqlite").execute("SELECT count(*) FROM runs").fetchone()[0]
    n = runs()
    millaudit.run("verify", "db", "--audit", "a.sqlite", "--quiet", "--junit", "db/std_1_1_2_2.mdb", cwd=w, check=2)
    millaudit.run("runs", "merge", "s0.sqlite-wal", "s0.sqlite", "s1.sqlite", cwd=w, check=2)
    assert runs() == n and not (w / "s0.sqlite-wal").exists()


def test_unwritable_output_error_names_the_output_not_a_temporary_file(millaudit, world, tmp_path):
    w = tmp_path / "w"
    shutil.copytree(world, w)
    proc = millaudit.run("manifest", "merge", "nodir/merged.sha256", "m0.sha256", "m1.sha256", cwd=w, check=4)
    assert "nodir/merged.sha256" in proc.stderr and ".tmp" not in proc.stderr
