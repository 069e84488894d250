"""The bad-input matrix (issue 9; docs/robustness.md): every kind of bad input, the command given
it, the exit status it must get and a fragment of its one-line message.

Groups: file type (FIFO, dangling symlink, symlink loop, directory or socket named like a sector
file), file name (non-canonical, unparsable, another variant's), header field (each field of the
open header and of the .sec2 header wrong), store state (corrupt page, foreign SQLite, newer
schema, empty, missing, read-only directory) and manifest form (./ paths, a//b, absolute, ..,
malformed lines, CRLF, BSD tags, not a file). Every command runs under a 60 s timeout, so a hang
fails its row; the ASan/UBSan build runs every row that reads the bad input directly, so a crash or
an out-of-bounds read fails it. Rows of verify and diff, which also check every good sector of the
game (seconds under ASan), run the release build: the readers they share with stats, dump and
index-check are exercised under ASan by those rows.

Every row passes: diff and probe read through the one directory discovery (verifier/formats/source), and
diff refuses a foreign, newer or corrupt store with exit 3 as verify does (the xfail marks these
rows carried until then are gone).
"""
import os
import pathlib
import shutil
import sqlite3
import socket
import subprocess

import pytest

from conftest import FIXTURES, skip_unless
from robust_util import (BAD_INPUT, IO, MISMATCH, OK, corrupt_interior_page, digest, foreign_store, make_store,
                         newer_store, run_as_nobody, shared_tmpdir, side_files)

TIMEOUT = 60


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("matrix") / "std3"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=OK)
    return out


def pick(millaudit, millaudit_asan, args):
    """The build a row runs: release for the whole-game checkers (verify, diff), else ASan."""
    return millaudit if args[0] in ("verify", "diff") else millaudit_asan


def run(m, *args, cwd=None):
    try:
        return m.run(*args, cwd=cwd, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"millaudit {' '.join(map(str, args))}: still running after {TIMEOUT} s (a hang)")


def check_row(proc, code, fragment, args):
    assert proc.returncode == code, (f"millaudit {' '.join(map(str, args))}: exit {proc.returncode}, "
                                     f"expected {code}\nstderr: {proc.stderr[-2000:]}")
    if fragment:
        assert fragment in proc.stderr, f"message lacks {fragment!r}: {proc.stderr[-2000:]}"
    for line in proc.stderr.splitlines():
        assert "\x1b" not in line


# ---- file types ----------------------------------------------------------------------------------

def make_fifo(p):
    os.mkfifo(p)


def make_dangling(p):
    p.symlink_to(p.parent / "nowhere")


def make_loop(p):
    p.symlink_to(p.name)


def make_dir(p):
    p.mkdir()


def make_socket(p):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(p))
    s.close()


FILE_TYPES = {  # kind: (make, message fragment)
    "fifo": (make_fifo, "not a regular file (FIFO)"),
    "dangling-symlink": (make_dangling, "dangling symbolic link"),
    "symlink-loop": (make_loop, "symbolic link loop"),
    "directory": (make_dir, "not a regular file (directory)"),
    "socket": (make_socket, "not a regular file"),
}

# (command, where the bad file goes, xfail reason per kind or for all)
FILE_TYPE_COMMANDS = {
    # an extra file named like a sector of the variant that the game does not have
    "verify": ("extra", {}),
    "stats": ("extra", {}),
    "diff": ("extra", {}),
    # the file of the successor sector of the probed position
    "probe": ("child", {}),
    # the file named on the command line
    "dump": ("file", {}),
    "index-check": ("file", {}),
}


def file_type_rows():
    for cmd, (where, xfails) in FILE_TYPE_COMMANDS.items():
        for kind in FILE_TYPES:
            marks = [pytest.mark.xfail(strict=True, reason=xfails[kind])] if kind in xfails else []
            yield pytest.param(cmd, where, kind, marks=marks, id=f"{kind}-{cmd}")


@pytest.mark.parametrize("cmd,where,kind", list(file_type_rows()))
def test_file_type(millaudit, millaudit_asan, game, tmp_path, cmd, where, kind):
    d = tmp_path / "db"
    shutil.copytree(game, d)
    make, fragment = FILE_TYPES[kind]
    name = {"extra": "std_4_3_0_0.mdb", "child": "std_0_1_3_2.mdb", "file": "std_0_1_3_2.mdb"}[where]
    bad = d / name
    if bad.exists():
        bad.unlink()
    make(bad)
    args = {"verify": ["verify", d], "stats": ["stats", d], "diff": ["diff", d, game],
            "probe": ["probe", d, "-/- wf=3 bf=3"], "dump": ["dump", bad],
            "index-check": ["index-check", "--variant", "std", "--sector", "0_1_3_2", bad]}[cmd]
    proc = run(pick(millaudit, millaudit_asan, args), *args)
    check_row(proc, BAD_INPUT, fragment, args)
    assert name in proc.stderr


@pytest.mark.parametrize("kind", ["fifo", "dangling-symlink", "directory"])
@pytest.mark.parametrize("name", ["std.secval", "std_0_0_9_9.sec2"])
def test_file_type_malom(millaudit_asan, malom_fixtures, tmp_path, kind, name):
    d = tmp_path / "malom"
    d.mkdir()
    for f in ("std.secval", "std_0_0_9_9.sec2", "std_0_1_9_8.sec2"):
        shutil.copy(malom_fixtures / "original-excerpt" / f, d)
    (d / name).unlink()
    make, fragment = FILE_TYPES[kind]
    make(d / name)
    proc = run(millaudit_asan, "verify", d, "--allow-bounds")
    check_row(proc, BAD_INPUT, fragment, ["verify", d])
    assert name in proc.stderr


# ---- file names ----------------------------------------------------------------------------------

NAME_ROWS = [
    # (id, file to add (copy of std_0_1_3_2.mdb), command, fragment, xfail reason)
    ("non-canonical-verify", "std_00_1_3_2.mdb", "verify", "std_00_1_3_2.mdb", None),
    ("non-canonical-stats", "std_00_1_3_2.mdb", "stats", "std_00_1_3_2.mdb", None),
    ("non-canonical-diff", "std_00_1_3_2.mdb", "diff", "std_00_1_3_2.mdb", None),
    ("unparsable-verify", "std_x.mdb", "verify", "std_x.mdb", None),
    ("unparsable-stats", "std_x.mdb", "stats", "std_x.mdb", None),
    ("unparsable-diff", "std_x.mdb", "diff", "std_x.mdb", None),
    ("other-variant-verify", "lask_0_1_3_2.mdb", "verify", "lask_0_1_3_2.mdb", None),
    ("other-variant-stats", "lask_0_1_3_2.mdb", "stats", "lask_0_1_3_2.mdb", None),
]


@pytest.mark.parametrize("added,cmd,fragment", [
    pytest.param(a, c, f, id=i, marks=[pytest.mark.xfail(strict=True, reason=x)] if x else [])
    for i, a, c, f, x in NAME_ROWS])
def test_file_name(millaudit, millaudit_asan, game, tmp_path, added, cmd, fragment):
    d = tmp_path / "db"
    shutil.copytree(game, d)
    shutil.copy(d / "std_0_1_3_2.mdb", d / added)
    args = {"verify": ["verify", d], "stats": ["stats", d], "diff": ["diff", d, game]}[cmd]
    check_row(run(pick(millaudit, millaudit_asan, args), *args), BAD_INPUT, fragment, args)


def test_file_name_other_variant_for_index_check(millaudit_asan, game):
    args = ["index-check", "--variant", "lask", "--sector", "0_1_3_2", game / "std_0_1_3_2.mdb"]
    check_row(run(millaudit_asan, *args), BAD_INPUT, "another variant's file", args)


# ---- header fields -------------------------------------------------------------------------------

OPEN_FIELDS = [  # (field, offset, byte written) of docs/format.md §5.1
    ("magic", 1, 0x4E), ("format_version", 8, 2), ("header_size", 10, 64), ("variant", 12, 4),
    ("rule_flags", 13, 1), ("sector", 14, 25), ("entry_width", 18, 3), ("value_encoding", 19, 2),
    ("index_scheme", 20, 2), ("index_scheme_version", 22, 2), ("entry_count", 24, 25),
    ("reserved", 120, 1),  # 80..111 is the body digest: tests/integration/test_body_digest.py
]


@pytest.mark.parametrize("cmd", ["index-check", "verify"])
@pytest.mark.parametrize("field,offset,value", OPEN_FIELDS, ids=[f[0] for f in OPEN_FIELDS])
def test_open_header_field(millaudit, millaudit_asan, game, tmp_path, cmd, field, offset, value):
    d = tmp_path / "db"
    shutil.copytree(game, d)
    f = d / "std_0_1_3_2.mdb"
    b = bytearray(f.read_bytes())
    b[offset] = value
    f.write_bytes(bytes(b))
    args = (["index-check", "--variant", "std", "--sector", "0_1_3_2", f] if cmd == "index-check"
            else ["verify", d])
    # the magic is reported at its start; every other field at its own offset
    check_row(run(pick(millaudit, millaudit_asan, args), *args), BAD_INPUT,
              f"offset {0 if field == 'magic' else offset}:", args)


SEC2_FIELDS = [  # (field, offset, byte written) of malom-format.md §5.1
    ("version", 0, 3), ("eval_struct_size", 4, 4), ("field2_offset", 8, 13), ("stone_diff_flag", 12, 7),
    ("reserved", 33, 1),
]


@pytest.mark.parametrize("field,offset,value", SEC2_FIELDS, ids=[f[0] for f in SEC2_FIELDS])
def test_sec2_header_field(millaudit_asan, malom_fixtures, tmp_path, field, offset, value):
    d = tmp_path / "malom"
    d.mkdir()
    for f in ("std.secval", "std_0_0_9_9.sec2", "std_0_1_9_8.sec2"):
        shutil.copy(malom_fixtures / "original-excerpt" / f, d)
    f = d / "std_0_0_9_9.sec2"
    b = bytearray(f.read_bytes())
    b[offset] = value
    f.write_bytes(bytes(b))
    args = ["verify", d, "--allow-bounds"]
    proc = run(millaudit_asan, *args)
    check_row(proc, BAD_INPUT, f"offset {offset}:", args)
    assert "std_0_0_9_9.sec2" in proc.stderr


# ---- store states --------------------------------------------------------------------------------

STATES = ("corrupt-page", "foreign-sqlite", "newer-schema", "edited-version", "not-sqlite", "empty", "missing")
STATE_FRAGMENT = {"corrupt-page": "corrupt audit store", "foreign-sqlite": "not a millaudit audit store",
                  "newer-schema": "newer than this build knows",
                  "edited-version": "tables do not match its schema version",
                  "not-sqlite": "not a SQLite database", "empty": "empty file, not an audit store",
                  "missing": "does not exist"}
WRITERS = ("manifest-create", "runs-import", "verify", "diff", "opening", "grade")
READERS = ("report", "runs-export", "manifest-check", "runs-list", "runs-regressions", "runs-compare")


def make_state(millaudit, tmp, state):
    p = tmp / "state.sqlite"
    if state == "corrupt-page":
        return corrupt_interior_page(make_store(millaudit, tmp, "state.sqlite"))
    if state == "foreign-sqlite":
        return foreign_store(p)
    if state == "newer-schema":
        return newer_store(millaudit, tmp, "state.sqlite")
    if state == "edited-version":  # user_version lowered by hand below the tables' schema
        store = make_store(millaudit, tmp, "state.sqlite")
        con = sqlite3.connect(store)
        con.execute("PRAGMA user_version = 1")
        con.execute("PRAGMA journal_mode = DELETE")
        con.close()
        return store
    if state == "not-sqlite":
        p.write_text("a text file, not a store\n")
    if state == "empty":
        p.write_bytes(b"")
    return p


def store_rows():
    for state in STATES:
        for cmd in WRITERS + READERS:
            if cmd in WRITERS and state in ("empty", "missing"):
                code, fragment = OK, None           # a writer makes a new store there
            elif cmd in ("report", "runs-export", "runs-compare") and state == "corrupt-page":
                # a reader meets the damage where it reads (the run's chunk rows), never returns a
                # silently incomplete run
                code, fragment = BAD_INPUT, "not a usable SQLite database"
            elif cmd == "runs-regressions" and state == "corrupt-page":
                code, fragment = BAD_INPUT, "no verify run"  # the store holds a manifest run only
            elif cmd in ("manifest-check", "runs-list") and state == "corrupt-page":
                code, fragment = OK, None  # what it reads has no rows on the damaged page
            else:
                code, fragment = BAD_INPUT, STATE_FRAGMENT[state]
            yield pytest.param(state, cmd, code, fragment, id=f"{state}-{cmd}")


def store_args(cmd, store, game, files, doc):
    return {"manifest-create": ["manifest", "create", files, "--audit", store, "--quiet"],
            "runs-import": ["runs", "import", "--audit", store, doc],
            "verify": ["verify", game, "--audit", store],
            "diff": ["diff", game, game, "--audit", store],
            "report": ["report", "--audit", store],
            "runs-export": ["runs", "export", "--audit", store],
            "manifest-check": ["manifest", "check", files / "m.sha256", "--audit", store],
            "opening": ["opening", game, "--variant", "std", "--stones", 3, "--audit", store],
            "grade": ["grade", game, "--player", "random", "--positions", 5, "--seed", 1, "--quiet",
                      "--audit", store],
            "runs-list": ["runs", "list", "--audit", store],
            "runs-regressions": ["runs", "regressions", "--audit", store],
            "runs-compare": ["runs", "compare", "--audit", store, 1, 1]}[cmd]


@pytest.fixture
def store_inputs(millaudit, tmp_path, game):
    files = tmp_path / "files"
    files.mkdir()
    (files / "x.bin").write_bytes(b"x" * 100)
    subprocess.run(f"sha256sum x.bin > m.sha256", shell=True, cwd=files, check=True)
    good = make_store(millaudit, tmp_path, "good.sqlite")
    doc = tmp_path / "run.json"
    millaudit.run("runs", "export", "--audit", good, "--out", doc, check=OK)
    return files, doc


@pytest.mark.parametrize("state,cmd,code,fragment", list(store_rows()))
def test_store_state(millaudit_asan, millaudit, tmp_path, game, store_inputs, state, cmd, code, fragment):
    files, doc = store_inputs
    store = make_state(millaudit, tmp_path, state)
    before = digest(store) if store.exists() else None
    args = store_args(cmd, store, game, files, doc)
    check_row(run(pick(millaudit, millaudit_asan, args), *args), code, fragment, args)
    if code != OK:
        # refused: byte-identical, and nothing created where nothing was
        assert (digest(store) if store.exists() else None) == before
    if code != OK or cmd in READERS:
        # a refusal, and any reader, leaves no -wal/-shm/-journal beside the store
        assert not side_files(store), (args, side_files(store))


def readonly_rows():
    for cmd in WRITERS + READERS:
        writer = cmd in WRITERS
        code, fragment = (IO, "not writable") if writer else (OK, None)
        if cmd == "runs-regressions":
            code, fragment = BAD_INPUT, "no verify run"  # read, and it holds a manifest run only
        yield pytest.param(cmd, code, fragment, id=f"read-only-dir-{cmd}")


@pytest.mark.parametrize("cmd,code,fragment", list(readonly_rows()))
def test_store_in_a_read_only_directory(millaudit_asan, millaudit, game, cmd, code, fragment):
    """A writer asked for a new store in a directory it cannot write: exit 4 naming the directory.
    A reader of a store in such a directory reads it (SQLite cannot make its -shm file there)."""
    top = shared_tmpdir()
    try:
        shutil.copytree(game, top / "game")
        files = top / "files"
        files.mkdir()
        (files / "x.bin").write_bytes(b"x" * 100)
        subprocess.run("sha256sum x.bin > m.sha256", shell=True, cwd=files, check=True)
        ro = top / "ro"
        ro.mkdir()
        good = make_store(millaudit, top, "good.sqlite")
        doc = top / "run.json"
        millaudit.run("runs", "export", "--audit", good, "--out", doc, check=OK)
        store = ro / "new.sqlite" if cmd in WRITERS else ro / "good.sqlite"
        if cmd not in WRITERS:
            shutil.copy(good, store)
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        ro.chmod(0o555)
        args = store_args(cmd, store, top / "game", files, doc)
        if cmd == "manifest-create":
            args = ["manifest", "create", files, "--out", top / "m2.sha256", "--audit", store, "--quiet"]
        (top).chmod(0o777)  # room for the manifest create writes outside ro/
        proc = run_as_nobody(pick(millaudit, millaudit_asan, args).path, *args)
        skip_unless(proc is not None, "running as root without setpriv: cannot make a directory read-only for the test")
        check_row(proc, code, fragment, args)
        assert sorted(p.name for p in ro.iterdir()) == ([] if cmd in WRITERS else ["good.sqlite"])
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(top)])
        shutil.rmtree(top, ignore_errors=True)


# ---- manifest forms ------------------------------------------------------------------------------

H = {}  # digests of the files made in manifest_dir


@pytest.fixture
def manifest_dir(tmp_path):
    d = tmp_path / "db"
    (d / "sub").mkdir(parents=True)
    (d / "a.mdb").write_bytes(b"a")
    (d / "sub" / "c.mdb").write_bytes(b"c")
    out = subprocess.run(["sha256sum", "a.mdb", "sub/c.mdb"], cwd=d, capture_output=True, text=True).stdout
    for line in out.splitlines():
        H[line[66:]] = line[:64]
    return d


MANIFEST_ROWS = [
    # (id, manifest text from the digests, extra args, exit, fragment, what sha256sum -c says: ok?)
    ("dot-slash", lambda: f"{H['a.mdb']}  ./a.mdb\n{H['sub/c.mdb']}  ./sub/c.mdb\n", [], OK, None, True),
    ("double-slash", lambda: f"{H['a.mdb']}  a.mdb\n{H['sub/c.mdb']}  sub//c.mdb\n", [], OK, None, True),
    ("absolute", lambda: f"{H['a.mdb']}  a.mdb\n{H['a.mdb']}  /etc/hostname\n", [], BAD_INPUT,
     "line 2: path '/etc/hostname' is absolute: refused", None),
    ("dot-dot", lambda: f"{H['a.mdb']}  a.mdb\n{H['a.mdb']}  sub/../../a.mdb\n", [], BAD_INPUT,
     "line 2: path 'sub/../../a.mdb' climbs out of the directory: refused", None),
    ("malformed-line", lambda: f"{H['a.mdb']}  a.mdb\nnot a checksum line\n{H['sub/c.mdb']}  sub/c.mdb\n", [],
     OK, "1 line is improperly formatted (first: line 2)", True),
    ("malformed-line-strict", lambda: f"{H['a.mdb']}  a.mdb\nnot a line\n{H['sub/c.mdb']}  sub/c.mdb\n",
     ["--strict"], BAD_INPUT, "line 2: improperly formatted SHA-256 checksum line (--strict)", False),
    ("crlf", lambda: f"{H['a.mdb']}  a.mdb\r\n{H['sub/c.mdb']}  sub/c.mdb\r\n", [], OK, None, True),
    ("bsd-tag-and-binary-mark", lambda: f"SHA256 (a.mdb) = {H['a.mdb']}\n{H['sub/c.mdb']} *sub/c.mdb\n", [], OK,
     None, True),
    ("only-malformed", lambda: "garbage\n\x00\xff\n", [], BAD_INPUT, "no properly formatted SHA-256 checksum lines",
     False),
    ("wrong-digest", lambda: f"{'0' * 64}  a.mdb\n{H['sub/c.mdb']}  sub/c.mdb\n", [], MISMATCH, None, False),
]


@pytest.mark.parametrize("text,extra,code,fragment,sha_ok", [pytest.param(*r[1:], id=r[0]) for r in MANIFEST_ROWS])
def test_manifest_form(millaudit_asan, manifest_dir, text, extra, code, fragment, sha_ok):
    m = manifest_dir / "MANIFEST.sha256"
    m.write_text(text(), newline="")
    args = ["manifest", "check", *extra, m]
    check_row(run(millaudit_asan, *args), code, fragment, args)
    if sha_ok is not None:
        ref = subprocess.run(["sha256sum", "-c", *extra, "MANIFEST.sha256"], cwd=manifest_dir, capture_output=True)
        assert (ref.returncode == 0) == sha_ok


@pytest.mark.parametrize("kind,code,fragment", [
    ("directory", BAD_INPUT, "is a directory, not a manifest"),  # and names the manifest meant (test_habits)
    ("fifo-without-writer", BAD_INPUT, "no properly formatted"),
    ("missing", BAD_INPUT, "No such file or directory"),
    ("dangling-symlink", BAD_INPUT, "dangling symbolic link"),
])
def test_manifest_file_type(millaudit_asan, manifest_dir, kind, code, fragment):
    m = manifest_dir / "MANIFEST.sha256"
    {"directory": make_dir, "fifo-without-writer": make_fifo, "missing": lambda p: None,
     "dangling-symlink": make_dangling}[kind](m)
    args = ["manifest", "check", m]
    check_row(run(millaudit_asan, *args), code, fragment, args)


# ---- an unreadable sector file -------------------------------------------------------------------

def test_unreadable_sector_file_is_named_with_its_sector_and_offset_on_every_line(millaudit, game):
    """A sector file the user may not read (mode 000, run as nobody), with --audit: the hash phase
    meets it first (it hashes every file the run reads) and the check then finds it unusable. Every
    line the user gets names the file, the sector and the offset, the one-line form of every bad
    input; the hash phase's line lacked the sector and the offset."""
    top = shared_tmpdir()
    try:
        shutil.copytree(game, top / "game")
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (top / "game" / "std_0_0_3_3.mdb").chmod(0)
        top.chmod(0o777)
        args = ["verify", top / "game", "--audit", top / "a.sqlite", "--no-manifest"]
        proc = run_as_nobody(millaudit.path, *args)
        skip_unless(proc is not None, "running as root without setpriv: cannot make a file unreadable for the test")
        assert proc.returncode == 3, proc.stderr
        lines = [ln for ln in proc.stderr.splitlines() if "std_0_0_3_3.mdb" in ln]
        assert lines, proc.stderr
        for ln in lines:
            assert "std_0_0_3_3.mdb: sector 0_0_3_3: offset 0: cannot open" in ln, proc.stderr
        assert "std_0_0_3_3: unusable" in proc.stdout
    finally:
        subprocess.run(["chmod", "-R", "u+rwX", str(top)])
        shutil.rmtree(top, ignore_errors=True)
