"""Regression tests of issue 9 (items 5, 6, 7, 10, 11, 12, 15) and the manifest habits of issue 15
(item 6): every one runs the real binary on real files and checks what a user would check.
The table of every kind of bad input is test_bad_input_matrix.py; docs/robustness.md has both."""
import os
import pathlib
import shlex
import shutil
import sqlite3
import subprocess

import pytest

from conftest import skip_unless

from robust_util import (BAD_INPUT, IO, MISMATCH, OK, corrupt_interior_page, digest, make_store,
                         shared_tmpdir, side_files, sql)

@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "std3"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=OK)
    return out


# ---- item 5: writes into a corrupt store -------------------------------------------------------

@pytest.fixture
def corrupt(millaudit, tmp_path):
    store = corrupt_interior_page(make_store(millaudit, tmp_path))
    return store, digest(store)


def assert_untouched(store, before):
    assert digest(store) == before, "a refused store must stay byte-identical"
    assert not side_files(store), side_files(store)


def test_manifest_create_refuses_a_corrupt_store_before_writing(millaudit_asan, corrupt, tmp_path):
    store, before = corrupt
    d = tmp_path / "d"
    d.mkdir()
    (d / "x.bin").write_bytes(b"x")
    proc = millaudit_asan.run("manifest", "create", d, "--audit", store, check=BAD_INPUT)
    assert f"{store}: corrupt audit store (PRAGMA quick_check" in proc.stderr
    assert "refused, nothing written" in proc.stderr
    assert_untouched(store, before)
    assert not (d / "MANIFEST.sha256").exists(), "nothing is written when the store is refused"


def test_runs_import_refuses_a_corrupt_store(millaudit_asan, millaudit, corrupt, tmp_path):
    store, before = corrupt
    good = make_store(millaudit, tmp_path, "good.sqlite")
    doc = tmp_path / "run.json"
    millaudit.run("runs", "export", "--audit", good, "--out", doc, check=OK)
    proc = millaudit_asan.run("runs", "import", "--audit", store, doc, check=BAD_INPUT)
    assert "corrupt audit store" in proc.stderr
    assert_untouched(store, before)


@pytest.mark.parametrize("cmd", ["verify", "diff"])
def test_verify_and_diff_leave_a_corrupt_store_byte_identical(millaudit, corrupt, game, cmd):
    store, before = corrupt
    args = [game] if cmd == "verify" else [game, game]
    proc = millaudit.run(cmd, *args, "--audit", store)
    assert proc.returncode != OK
    assert "corrupt audit store" in proc.stderr
    assert_untouched(store, before)


@pytest.mark.parametrize("cmd", ["verify", "diff"])
def test_verify_and_diff_exit_3_on_a_corrupt_store(millaudit, corrupt, game, cmd):
    store, _ = corrupt
    args = [game] if cmd == "verify" else [game, game]
    millaudit.run(cmd, *args, "--audit", store, check=BAD_INPUT)


def test_an_intact_store_still_takes_writes_after_the_check(millaudit, tmp_path):
    store = make_store(millaudit, tmp_path)
    d = tmp_path / "again"
    d.mkdir()
    (d / "y").write_bytes(b"y")
    millaudit.run("manifest", "create", d, "--audit", store, "--quiet", check=OK)
    assert sql(store, "SELECT count(*) FROM runs") == [(2,)]


# ---- item 6: read-only commands never create or write ------------------------------------------

@pytest.mark.parametrize("reader", [("report", "--audit"), ("runs", "export", "--audit"),
                                    ("runs", "compare", "--audit", None, "1", "2")])
@pytest.mark.parametrize("state", ["empty", "missing"])
def test_readers_never_turn_a_path_into_a_store(millaudit_asan, tmp_path, reader, state):
    store = tmp_path / "e.sqlite"
    if state == "empty":
        store.write_bytes(b"")
    args = [store if a is None else a for a in reader]
    if None not in reader:
        args.append(store)
    proc = millaudit_asan.run(*args, check=BAD_INPUT)
    if state == "empty":
        assert store.read_bytes() == b""
        assert "empty file, not an audit store" in proc.stderr
    else:
        assert not store.exists()
        assert "does not exist" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == (["e.sqlite"] if state == "empty" else [])


def test_readers_read_an_older_schema_without_migrating_it(millaudit, tmp_path):
    store = make_store(millaudit, tmp_path)
    con = sqlite3.connect(store)
    con.executescript("DROP TABLE run_imports; DROP TABLE sector_histograms; DROP TABLE sector_digests;"
                      "PRAGMA user_version = 2; PRAGMA journal_mode = DELETE;")
    con.close()
    before = digest(store)
    proc = millaudit.run("report", "--audit", store, check=OK)
    assert "manifest" in proc.stdout
    millaudit.run("runs", "export", "--audit", store, check=OK)
    assert digest(store) == before
    assert sql(store, "PRAGMA user_version") == [(2,)]


def test_report_on_a_full_disk_says_io_not_format(millaudit, tmp_path):
    """Issue 9 #10: a healthy store on a full disk is read (no -shm needed when the WAL is empty);
    where it cannot be, the message names the OS error, never 'not a usable SQLite database'."""
    mnt = tmp_path / "full"
    mnt.mkdir()
    store = make_store(millaudit, tmp_path)
    # room for two copies of the store and a write-ahead log, whatever the schema's size, and then
    # filled up: the disk must be full only when the readers run
    size_kib = 4 * store.stat().st_size // 1024 + 512
    skip_unless(os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs",
                                                      str(mnt)], capture_output=True).returncode == 0,
                "cannot mount a small tmpfs here (needs root and mount rights) to fill a disk")
    con = None
    try:
        shutil.copy(store, mnt / "s.sqlite")
        # A second copy with data in its write-ahead log: reading it needs SQLite's -shm file.
        con = sqlite3.connect(mnt / "w.sqlite")
        con.executescript("PRAGMA journal_mode = WAL;")
        con.close()
        shutil.copy(store, mnt / "w.sqlite")
        con = sqlite3.connect(mnt / "w.sqlite")
        con.execute("PRAGMA wal_autocheckpoint = 0")
        con.execute("UPDATE runs SET host = 'changed'")
        con.commit()
        shutil.copy(mnt / "w.sqlite-wal", tmp_path / "wal")
        con.close()  # checkpoints; put the log back as a crashed writer would have left it
        shutil.copy(tmp_path / "wal", mnt / "w.sqlite-wal")
        for p in mnt.glob("*-shm"):
            p.unlink()
        subprocess.run(["dd", "if=/dev/zero", f"of={mnt}/fill", "bs=4k"], capture_output=True)
        proc = millaudit.run("report", "--audit", mnt / "s.sqlite", check=OK)
        assert "kind" in proc.stdout
        assert (mnt / "w.sqlite-wal").stat().st_size > 0
        proc = millaudit.run("report", "--audit", mnt / "w.sqlite", check=BAD_INPUT)
        assert "not a usable SQLite database" not in proc.stderr
        assert "cannot read the store" in proc.stderr and "No space left on device" in proc.stderr, proc.stderr
    finally:
        if con is not None:
            con.close()
        # lazily: a process still holding a file there must not leave the mount behind
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# ---- item 7 and issue 15 #6: manifests written by sha256sum, the habits of sha256sum -c --------

@pytest.fixture
def files(tmp_path):
    d = tmp_path / "db"
    (d / "sub").mkdir(parents=True)
    for name, data in (("a.mdb", b"a"), ("b.mdb", b"bb"), ("sub/c.sec2", b"ccc")):
        (d / name).write_bytes(data)
    return d


def sha256sum(d, *args, input=None):
    return subprocess.run(["sha256sum", *args], cwd=d, capture_output=True, text=True, input=input)


def test_manifest_written_by_sha256sum_with_dot_slash_paths_checks_ok(millaudit_asan, files):
    m = files / "MANIFEST.sha256"
    m.write_text(sha256sum(files, "./a.mdb", "b.mdb", "sub//c.sec2").stdout)
    proc = millaudit_asan.run("manifest", "check", m, check=OK)
    ref = sha256sum(files, "-c", "MANIFEST.sha256")
    assert ref.returncode == 0
    assert proc.stdout == ref.stdout == "./a.mdb: OK\nb.mdb: OK\nsub//c.sec2: OK\n"
    assert "not in manifest" not in proc.stdout


@pytest.mark.parametrize("option", ["--status", "--warn", "-w", "--quiet", "--strict", "--ignore-missing"])
@pytest.mark.parametrize("damage", ["none", "changed", "missing", "malformed", "all-missing"])
def test_check_options_behave_as_sha256sum_side_by_side(millaudit, files, option, damage):
    m = files / "MANIFEST.sha256"
    text = sha256sum(files, "a.mdb", "b.mdb", "sub/c.sec2").stdout
    if damage == "malformed":
        text += "this is not a checksum line\n"
    m.write_text(text)
    if damage == "changed":
        (files / "b.mdb").write_bytes(b"changed")
    if damage == "missing":
        (files / "b.mdb").unlink()
    if damage == "all-missing":
        for p in ("a.mdb", "b.mdb", "sub/c.sec2"):
            (files / p).unlink()
    ours = millaudit.run("manifest", "check", option, m)
    ref = sha256sum(files, "-c", option, "MANIFEST.sha256")
    # success and failure agree; where sha256sum says 1 we may say 3 (--strict: manifest unusable)
    assert (ours.returncode == 0) == (ref.returncode == 0), (ours, ref)
    if ref.returncode:
        assert ours.returncode == (BAD_INPUT if option == "--strict" and damage == "malformed" else MISMATCH)
    # the same lines, except that we call a missing file MISSING where sha256sum says FAILED open or read
    assert ours.stdout == ref.stdout.replace(": FAILED open or read", ": MISSING")
    if option == "--status":
        assert ours.stdout == "" and ours.stderr == ""
    if option in ("--warn", "-w") and damage == "malformed":
        assert "MANIFEST.sha256: line 4: improperly formatted SHA-256 checksum line" in ours.stderr
        assert "MANIFEST.sha256: 4: improperly formatted" in ref.stderr


def test_check_reads_the_manifest_from_stdin_and_create_writes_to_stdout(millaudit, files):
    created = millaudit.run("manifest", "create", files, "--out", "-", check=OK)
    assert created.stdout == sha256sum(files, "a.mdb", "b.mdb", "sub/c.sec2").stdout
    assert "standard output: 3 files" in created.stderr
    assert not (files / "MANIFEST.sha256").exists()
    proc = subprocess.run([str(millaudit.path), "manifest", "check", "-"], input=created.stdout, cwd=files,
                          capture_output=True, text=True)
    assert proc.returncode == OK and proc.stdout == "a.mdb: OK\nb.mdb: OK\nsub/c.sec2: OK\n"


def test_ignore_extra_skips_unlisted_files(millaudit, files):
    m = files / "MANIFEST.sha256"
    m.write_text(sha256sum(files, "a.mdb", "b.mdb").stdout)
    proc = millaudit.run("manifest", "check", m, check=MISMATCH)
    assert "sub/c.sec2: not in manifest" in proc.stdout
    proc = millaudit.run("manifest", "check", "--ignore-extra", m, check=OK)
    assert proc.stdout == "a.mdb: OK\nb.mdb: OK\n"


# ---- item 11: exit codes -------------------------------------------------------------------------

def test_writers_and_readers_say_3_for_a_foreign_or_newer_store(millaudit, tmp_path):
    from robust_util import foreign_store, newer_store
    d = tmp_path / "d"
    d.mkdir()
    (d / "x").write_bytes(b"x")
    for store, words in ((foreign_store(tmp_path / "f.sqlite"), "not a millaudit audit store"),
                         (newer_store(millaudit, tmp_path), "newer than this build knows")):
        before = digest(store)
        for args in (("manifest", "create", d, "--audit", store), ("report", "--audit", store),
                     ("runs", "export", "--audit", store)):
            proc = millaudit.run(*args, check=BAD_INPUT)
            assert words in proc.stderr
        assert digest(store) == before


# ---- item 12: litter -----------------------------------------------------------------------------

def test_manifest_create_never_lists_temporary_files_and_removes_its_own_stale_ones(millaudit, files):
    dead = subprocess.Popen(["true"])
    dead.wait()  # a pid that no longer exists
    live = os.getpid()
    for name in (f"a.mdb.tmp.{dead.pid}", f"sub/std_3_3_0_0.mdb.tmp.{dead.pid}", "report.html.tmpAb12Cd",
                 f"MANIFEST.sha256.tmp.{dead.pid}", f"MANIFEST.sha256.tmp.{live}"):
        (files / name).write_bytes(b"half-written")
    proc = millaudit.run("manifest", "create", files, check=OK)
    names = [line[66:] for line in (files / "MANIFEST.sha256").read_text().splitlines()]
    assert names == ["a.mdb", "b.mdb", "sub/c.sec2"]
    assert "removed 1 stale temporary file" in proc.stderr
    left = sorted(p.name for p in files.iterdir())
    assert f"MANIFEST.sha256.tmp.{dead.pid}" not in left       # ours, of a dead process: removed
    assert f"MANIFEST.sha256.tmp.{live}" in left               # a live process's: left alone
    assert f"a.mdb.tmp.{dead.pid}" in left                     # the solver's: not ours to remove
    assert millaudit.run("manifest", "check", files / "MANIFEST.sha256", check=OK).stdout.count(": OK") == 3


# ---- item 15: the command line recorded is the one typed ----------------------------------------

def test_recorded_command_line_is_the_typed_one_and_can_be_pasted_into_a_shell(millaudit, tmp_path):
    d = tmp_path / "sp dir"
    d.mkdir()
    (d / "it's.bin").write_bytes(b"x")
    store = tmp_path / "cl.sqlite"
    # the operand before the options: getopt_long would move it to the end
    millaudit.run("manifest", "create", d, "--audit", store, "--chunk-size", "1K", "--quiet", check=OK)
    (line,), = sql(store, "SELECT command_line FROM runs")
    assert line == f"millaudit manifest create {shlex.quote(str(d))} --audit {store} --chunk-size 1K --quiet"
    words = shlex.split(line)
    assert words[3] == str(d)
    # pasted back into a shell, it runs the same command again
    proc = subprocess.run(["bash", "-c", line.replace("millaudit", shlex.quote(str(millaudit.path)), 1)],
                          capture_output=True, text=True)
    assert proc.returncode == OK, proc.stderr
    assert sql(store, "SELECT count(*) FROM runs") == [(2,)]


def test_control_characters_in_arguments_are_recorded_on_one_line(millaudit, tmp_path):
    d = tmp_path / "new\nline\x1b[31m"
    d.mkdir()
    store = tmp_path / "cl.sqlite"
    millaudit.run("manifest", "create", d, "--audit", store, "--quiet", check=OK)
    (line,), = sql(store, "SELECT command_line FROM runs")
    assert "\n" not in line and "\x1b" not in line
    assert "$'" in line and "\\x0a" in line and "\\x1b" in line
    words = subprocess.run(["bash", "-c", 'for w in ' + line.split(" ", 3)[3] + '; do printf "%s\\0" "$w"; done'],
                           capture_output=True).stdout.split(b"\0")
    assert words[0] == os.fsencode(d)
