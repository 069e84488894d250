"""Helpers of the robustness tests (test_robustness.py, test_bad_input_matrix.py): small databases,
audit stores in every state, and running the binary as an unprivileged user."""
import hashlib
import os
import pathlib
import shutil
import sqlite3
import subprocess
import tempfile

OK, MISMATCH, USAGE, BAD_INPUT, IO = 0, 1, 2, 3, 4


def digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def side_files(path):
    return sorted(p.name for p in pathlib.Path(path).parent.iterdir() if p.name.startswith(pathlib.Path(path).name + "-"))


def sql(path, query):
    """Reads with SQLite without touching the file (immutable: no -shm, no -wal, no recovery)."""
    con = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def make_store(millaudit, tmp, name="store.sqlite"):
    """A store with thousands of manifest_chunks rows, so its tables have interior b-tree pages."""
    src = tmp / f"{name}.files"
    src.mkdir()
    (src / "blob.bin").write_bytes(bytes((i * 131 + i // 251) % 256 for i in range(200_000)))
    store = tmp / name
    millaudit.run("manifest", "create", src, "--audit", store, "--chunk-size", 64, "--quiet", check=OK)
    assert not side_files(store), "the writer's last close leaves no -wal/-shm"
    return store


def corrupt_interior_page(store):
    """Overwrites the root page of manifest_chunks (an interior page: the table has thousands of
    rows) with garbage, as a bad sector or a stray write would; the rest of the file is intact."""
    (root,), = sql(store, "SELECT rootpage FROM sqlite_schema WHERE name = 'manifest_chunks'")
    (page,), = sql(store, "PRAGMA page_size")
    (kind,), = sql(store, f"SELECT count(*) FROM sqlite_schema")  # noqa: F841 (the schema page stays readable)
    with open(store, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xab" * page)
    return store


def foreign_store(path):
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                      "INSERT INTO customers (name) VALUES ('ada');")
    con.close()
    return path


def newer_store(millaudit, tmp, name="newer.sqlite"):
    store = make_store(millaudit, tmp, name)
    con = sqlite3.connect(store)
    (v,), = con.execute("PRAGMA user_version").fetchall()
    con.execute(f"PRAGMA user_version = {v + 1}")
    con.execute("PRAGMA journal_mode = DELETE")
    con.close()
    return store


def shared_tmpdir():
    """A directory an unprivileged user can reach (pytest's tmp_path is private to root)."""
    d = pathlib.Path(tempfile.mkdtemp(prefix="millaudit-robust-", dir="/tmp"))
    d.chmod(0o755)
    return d


def run_as_nobody(binary, *args, cwd=None):
    """Runs the binary as 'nobody' when we are root (root ignores file permissions, so a read-only
    directory is only read-only for someone else); as ourselves otherwise."""
    cmd = [str(binary), *map(str, args)]
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if not setpriv:
            return None
        cmd = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300)
