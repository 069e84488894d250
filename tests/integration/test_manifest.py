"""millaudit manifest create / check: sha256sum compatibility, pinning, bad input, the audit store."""
import hashlib
import os
import re
import shutil
import sqlite3
import struct
import subprocess

import pytest

from conftest import skip_unless
from robust_util import run_as_nobody, shared_tmpdir

OK, MISMATCH, USAGE, BAD_INPUT, IO = 0, 1, 2, 3, 4
CHUNK = 64


def open_header(variant=1, rule_flags=0, sector=(3, 3, 0, 0), entries=4, producer=b"millaudit-solver",
                version=b"0.1.0"):
    """A docs/format.md §5.1 header, written here from the table."""
    return (b"\x89MILL\r\n\x1a" + struct.pack("<HHBB", 1, 128, variant, rule_flags) + bytes(sector)
            + struct.pack("<BBHHQ", 2, 1, 1, 1, entries) + producer.ljust(32, b"\0")
            + version.ljust(16, b"\0") + bytes(48))


@pytest.fixture
def db(tmp_path):
    """A small database directory: an open sector, a Malom-named file, plain files, a subdirectory."""
    d = tmp_path / "db"
    d.mkdir()
    (d / "std_3_3_0_0.mdb").write_bytes(open_header() + bytes([0x01, 0xC0] * 4))
    (d / "mora_4_3_0_0.sec2").write_bytes(bytes(range(70)))
    (d / "big.bin").write_bytes(bytes((i * 7 + i // 256) % 256 for i in range(1000)))
    (d / "empty").write_bytes(b"")
    (d / "sub").mkdir()
    (d / "sub" / "notes.txt").write_text("hello\n")
    return d


def create(millaudit, d, *extra, check=OK):
    return millaudit.run("manifest", "create", d, "--chunk-size", CHUNK, *extra, check=check)


def manifest_lines(path):
    return path.read_text().splitlines()


def flip_byte(path, offset):
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def test_sha256sum_accepts_the_created_manifest(millaudit, db):
    create(millaudit, db)
    lines = manifest_lines(db / "MANIFEST.sha256")
    names = [line[66:] for line in lines]
    assert names == sorted(names) == ["big.bin", "empty", "mora_4_3_0_0.sec2", "std_3_3_0_0.mdb", "sub/notes.txt"]
    for line in lines:
        assert re.fullmatch(r"[0-9a-f]{64}  \S.*", line)
        assert hashlib.sha256((db / line[66:]).read_bytes()).hexdigest() == line[:64]
    proc = subprocess.run(["sha256sum", "-c", "MANIFEST.sha256"], cwd=db, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": OK") == 5
    assert not [p for p in os.listdir(db) if ".tmp" in p]


def test_check_passes_an_intact_directory_and_threads_do_not_matter(millaudit, db, tmp_path):
    create(millaudit, db, "--threads", 1, "--out", tmp_path / "one.sha256")
    create(millaudit, db, "--threads", 4)
    assert (tmp_path / "one.sha256").read_text() == (db / "MANIFEST.sha256").read_text()
    proc = millaudit.run("manifest", "check", db / "MANIFEST.sha256", check=OK)
    assert proc.stdout.splitlines() == [f"{n}: OK" for n in
                                        ["big.bin", "empty", "mora_4_3_0_0.sec2", "std_3_3_0_0.mdb", "sub/notes.txt"]]
    assert millaudit.run("manifest", "check", "--quiet", db / "MANIFEST.sha256", check=OK).stdout == ""


def test_flipped_byte_is_failed_and_pinned_to_its_chunk(millaudit_asan, db, tmp_path):
    store = tmp_path / "audit.sqlite"
    create(millaudit_asan, db, "--audit", store)
    flip_byte(db / "big.bin", 700)
    proc = millaudit_asan.run("manifest", "check", db / "MANIFEST.sha256", "--audit", store, check=MISMATCH)
    assert "big.bin: FAILED at bytes 640-703 (chunk 10)" in proc.stdout.splitlines()
    assert "std_3_3_0_0.mdb: OK" in proc.stdout
    assert "1 computed checksum did NOT match" in proc.stderr
    # Without the store there is nothing to pin to, but the file still fails.
    proc = millaudit_asan.run("manifest", "check", db / "MANIFEST.sha256", check=MISMATCH)
    assert "big.bin: FAILED" in proc.stdout.splitlines()
    # --quiet prints the failure only.
    proc = millaudit_asan.run("manifest", "check", "--quiet", db / "MANIFEST.sha256", "--audit", store,
                              check=MISMATCH)
    assert proc.stdout.splitlines() == ["big.bin: FAILED at bytes 640-703 (chunk 10)"]
    # coreutils agrees that the file changed.
    assert subprocess.run(["sha256sum", "-c", "MANIFEST.sha256"], cwd=db, capture_output=True).returncode == 1


def test_two_changed_chunks_and_a_truncated_file_are_pinned(millaudit, db, tmp_path):
    store = tmp_path / "audit.sqlite"
    create(millaudit, db, "--audit", store)
    flip_byte(db / "big.bin", 0)
    flip_byte(db / "big.bin", 65)
    flip_byte(db / "big.bin", 999)
    proc = millaudit.run("manifest", "check", db / "MANIFEST.sha256", "--audit", store, check=MISMATCH)
    assert "big.bin: FAILED at bytes 0-127 (chunks 0-1), bytes 960-999 (chunk 15)" in proc.stdout.splitlines()
    (db / "big.bin").write_bytes((db / "big.bin").read_bytes()[:100])
    proc = millaudit.run("manifest", "check", db / "MANIFEST.sha256", "--audit", store, check=MISMATCH)
    assert "big.bin: FAILED at bytes 0-999 (chunks 0-15) (size 100, recorded 1000)" in proc.stdout.splitlines()


def test_missing_file_and_ignore_missing_as_coreutils(millaudit, db):
    create(millaudit, db)
    (db / "sub" / "notes.txt").unlink()
    proc = millaudit.run("manifest", "check", db / "MANIFEST.sha256", check=MISMATCH)
    assert "sub/notes.txt: MISSING" in proc.stdout.splitlines()
    assert "big.bin: OK" in proc.stdout
    proc = millaudit.run("manifest", "check", "--ignore-missing", db / "MANIFEST.sha256", check=OK)
    assert "notes.txt" not in proc.stdout
    ref = subprocess.run(["sha256sum", "-c", "--ignore-missing", "MANIFEST.sha256"], cwd=db, capture_output=True)
    assert ref.returncode == 0
    # Nothing left to verify: coreutils fails with "no file was verified", and so do we.
    for p in list(db.rglob("*")):
        if p.is_file() and p.name != "MANIFEST.sha256":
            p.unlink()
    proc = millaudit.run("manifest", "check", "--ignore-missing", db / "MANIFEST.sha256", check=MISMATCH)
    assert "no file was verified" in proc.stderr
    ref = subprocess.run(["sha256sum", "-c", "--ignore-missing", "MANIFEST.sha256"], cwd=db, capture_output=True)
    assert ref.returncode == 1


def test_extra_file_is_reported(millaudit, db):
    create(millaudit, db)
    (db / "sub" / "late.bin").write_bytes(b"added after the manifest")
    proc = millaudit.run("manifest", "check", db / "MANIFEST.sha256", check=MISMATCH)
    assert "sub/late.bin: not in manifest" in proc.stdout.splitlines()
    assert proc.stdout.count(": OK") == 5


def test_malformed_lines_warn_and_strict_refuses(millaudit_asan, db):
    create(millaudit_asan, db)
    m = db / "MANIFEST.sha256"
    good = m.read_text()
    m.write_text(good + "this is not a checksum line\n" + "abc  short-digest\n")
    proc = millaudit_asan.run("manifest", "check", m, check=OK)
    assert "2 lines are improperly formatted (first: line 6)" in proc.stderr
    proc = millaudit_asan.run("manifest", "check", "--strict", m, check=BAD_INPUT)
    assert "line 6" in proc.stderr and "MANIFEST.sha256" in proc.stderr
    # as sha256sum --strict: every line checked and printed, then the manifest fails
    ref = subprocess.run(["sha256sum", "-c", "--strict", "MANIFEST.sha256"], cwd=db, capture_output=True, text=True)
    assert ref.returncode != 0 and proc.stdout == ref.stdout
    m.write_text("\x00\xff garbage\n\n")
    proc = millaudit_asan.run("manifest", "check", m, check=BAD_INPUT)
    assert "no properly formatted" in proc.stderr
    m.write_bytes(b"")
    millaudit_asan.run("manifest", "check", m, check=BAD_INPUT)


@pytest.mark.parametrize("bad_path", ["/etc/passwd", "../outside", "sub/../../outside", ".."])
def test_absolute_and_climbing_paths_are_refused_before_reading(millaudit_asan, db, tmp_path, bad_path):
    (tmp_path / "outside").write_text("secret")
    create(millaudit_asan, db)
    m = db / "MANIFEST.sha256"
    # The first line would FAIL if anything were hashed before the refusal.
    m.write_text("0" * 64 + "  big.bin\n" + hashlib.sha256(b"secret").hexdigest() + "  " + bad_path + "\n")
    proc = millaudit_asan.run("manifest", "check", m, check=BAD_INPUT)
    assert proc.stdout == ""
    assert "line 2" in proc.stderr and bad_path in proc.stderr


def test_unreadable_listed_file_is_failed_open_or_read(millaudit_asan, db):
    create(millaudit_asan, db)
    (db / "empty").unlink()
    (db / "empty").mkdir()  # as root chmod cannot make a file unreadable; a directory cannot be read
    proc = millaudit_asan.run("manifest", "check", db / "MANIFEST.sha256", check=MISMATCH)
    assert "empty: FAILED open or read" in proc.stdout.splitlines()
    assert "empty" in proc.stderr and "could not be read" in proc.stderr


def test_a_directory_that_cannot_be_listed_is_bad_input_never_no_extra_file(millaudit, db):
    """The root-only lost+found of a volume holding the database, checked by another user: which
    files are extra is not known, so the check is refused naming the directory (exit 3), never
    passed as a check that found no file beyond the manifest's (here one is)."""
    top = shared_tmpdir()
    try:
        d = shutil.copytree(db, top / "db")
        create(millaudit, d)
        (d / "std_4_4_0_0.mdb").write_bytes(open_header(sector=(4, 4, 0, 0)))
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (d / "lost+found").mkdir(mode=0o000)
        proc = run_as_nobody(millaudit.path, "manifest", "check", d / "MANIFEST.sha256")
        skip_unless(proc is not None, "running as root without setpriv: cannot make a directory unreadable")
        assert proc.returncode == BAD_INPUT, proc.stdout + proc.stderr
        assert proc.stderr == f"millaudit manifest: {d}/lost+found: cannot read directory: Permission denied\n"
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)])
        shutil.rmtree(top, ignore_errors=True)


def test_missing_manifest_and_usage_errors(millaudit, db, tmp_path):
    millaudit.run("manifest", "check", db / "MANIFEST.sha256", check=BAD_INPUT)
    millaudit.run("manifest", "create", db / "nonexistent", check=BAD_INPUT)
    millaudit.run("manifest", "create", db, "--chunk-size", "0", check=USAGE)
    millaudit.run("manifest", "create", db, "--threads", "x", check=USAGE)
    millaudit.run("manifest", "frobnicate", check=USAGE)
    millaudit.run("manifest", check=USAGE)
    proc = millaudit.run("manifest", "create", db, "--out", tmp_path / "no" / "dir" / "M.sha256", check=IO)
    assert str(tmp_path / "no" / "dir") in proc.stderr


@pytest.mark.parametrize("kind", ["text", "foreign", "corrupt"])
def test_corrupt_or_foreign_store_is_refused_and_untouched(millaudit_asan, db, tmp_path, kind):
    store = tmp_path / "store.sqlite"
    if kind == "text":
        store.write_text("not a database at all\n")
    elif kind == "foreign":
        con = sqlite3.connect(store)
        con.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount REAL)")
        con.commit()
        con.close()
    else:
        store.write_bytes(b"SQLite format 3\x00" + bytes([0xAB]) * 4080)
    before = store.read_bytes()
    proc = millaudit_asan.run("manifest", "create", db, "--audit", store, check=BAD_INPUT)
    assert str(store) in proc.stderr
    assert not (db / "MANIFEST.sha256").exists()
    assert store.read_bytes() == before
    create(millaudit_asan, db)
    proc = millaudit_asan.run("manifest", "check", db / "MANIFEST.sha256", "--audit", store, check=BAD_INPUT)
    assert str(store) in proc.stderr
    assert store.read_bytes() == before
    # A store that does not exist is not created by check.
    millaudit_asan.run("manifest", "check", db / "MANIFEST.sha256", "--audit", tmp_path / "none.sqlite",
                       check=BAD_INPUT)
    assert not (tmp_path / "none.sqlite").exists()


def test_store_records_run_digests_chunks_and_provenance(millaudit, db, tmp_path):
    store = tmp_path / "audit.sqlite"
    create(millaudit, db, "--audit", store)
    con = sqlite3.connect(store)
    run = con.execute("SELECT id, kind, status, database_root, ended_at FROM runs").fetchall()
    assert len(run) == 1 and run[0][1:4] == ("manifest", "ok", str(db)) and run[0][4]
    rows = {r[0]: r[1:] for r in con.execute(
        "SELECT path, size, sha256, chunk_size, variant, format, sector, producer, producer_version, entries,"
        " ruleset_fingerprint FROM manifest_files")}
    assert set(rows) == {"big.bin", "empty", "mora_4_3_0_0.sec2", "std_3_3_0_0.mdb", "sub/notes.txt"}
    for path, r in rows.items():
        assert r[0] == (db / path).stat().st_size
        assert r[1] == hashlib.sha256((db / path).read_bytes()).hexdigest()
        assert r[2] == CHUNK
    fp = lambda s: hashlib.sha256(s.encode()).hexdigest()
    assert rows["std_3_3_0_0.mdb"][3:] == ("std", "open", "std_3_3_0_0", "millaudit-solver", "0.1.0", 4,
                                           fp("millaudit-ruleset-1|std|0|open-index-1.1|open-values-1"))
    assert rows["mora_4_3_0_0.sec2"][3:] == ("mora", "malom-sec2", "mora_4_3_0_0", None, None, None,
                                             fp("millaudit-ruleset-1|mora|1|malom-index|malom-sec2"))
    assert rows["big.bin"][3:] == (None,) * 7
    # Mixed variants (std, mora) and formats (open, malom-sec2): the run states neither.
    assert con.execute("SELECT variant, format FROM runs").fetchall() == [(None, None)]
    chunks = con.execute("SELECT chunk, offset, length, sha256 FROM manifest_chunks WHERE path='big.bin'"
                         " ORDER BY chunk").fetchall()
    data = (db / "big.bin").read_bytes()
    assert len(chunks) == 16
    for k, off, length, digest in chunks:
        assert off == k * CHUNK and length == min(CHUNK, 1000 - off)
        assert digest == hashlib.sha256(data[off:off + length]).hexdigest()
    assert con.execute("SELECT count(*) FROM manifest_chunks WHERE path='empty'").fetchone() == (0,)
    assert con.execute("SELECT manifest_path, chunk_size FROM manifests").fetchall() == [
        (str(db / "MANIFEST.sha256"), CHUNK)]
    con.close()


def test_store_inside_the_directory_is_not_listed(millaudit, db):
    create(millaudit, db, "--audit", db / "MANIFEST.sqlite")
    assert not [l for l in manifest_lines(db / "MANIFEST.sha256") if "MANIFEST" in l]
    millaudit.run("manifest", "check", db / "MANIFEST.sha256", "--audit", db / "MANIFEST.sqlite", check=OK)


def test_run_states_the_variant_and_format_its_files_agree_on(millaudit, tmp_path):
    d = tmp_path / "lask"
    d.mkdir()
    (d / "lask_3_3_0_0.mdb").write_bytes(open_header(variant=2) + bytes(8))
    (d / "lask_4_3_0_0.mdb").write_bytes(open_header(variant=2, sector=(4, 3, 0, 0)) + bytes(8))
    (d / "README").write_text("files without provenance do not make the run mixed\n")
    store = tmp_path / "audit.sqlite"
    create(millaudit, d, "--audit", store)
    con = sqlite3.connect(store)
    assert con.execute("SELECT variant, format FROM runs").fetchall() == [("lask", "open")]
    assert con.execute("SELECT sector FROM manifest_files WHERE format='open' ORDER BY path").fetchall() == [
        ("lask_3_3_0_0",), ("lask_4_3_0_0",)]
    con.close()
