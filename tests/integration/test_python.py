"""The Python module `millaudit` (docs/python.md) as `cmake --install` puts it in a fresh prefix
beside libmillaudit (issue 46): every result equals what the command prints for the same request,
made by the same library code -- verify (a verified game, a planted fault, picked sectors, rows
kept or not, a recorded run), probe, manifest check, the runs of a store -- and the failures give
the command's exit status and message. The module is imported in a child interpreter with the
prefix on PYTHONPATH, as a solver team's test suite would.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

POSITION = "a1,d1,g1/a7,d7,g7"


def untimed(doc):
    """The document without what differs from run to run: timings and digests of nothing."""
    if isinstance(doc, dict):
        return {k: untimed(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [untimed(v) for v in doc]
    return doc


@pytest.fixture(scope="module")
def py(installed_api, tmp_path_factory):
    """Runs Python code with the installed module importable; returns what it printed as JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "MILLAUDIT_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(installed_api.pythonpath)
    cwd = tmp_path_factory.mktemp("py")

    def run(code, expect_ok=True):
        proc = subprocess.run([sys.executable, "-c", "import json, millaudit\n" + textwrap.dedent(code)],
                              capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
        if expect_ok:
            assert proc.returncode == 0, proc.stderr
            return json.loads(proc.stdout) if proc.stdout.strip() else None
        return proc
    run.env = env
    return run


def test_the_module_loads_the_library_installed_beside_it(py, installed_api, millaudit):
    got = py("""
        import millaudit._lib as L
        print(json.dumps([millaudit.version(), millaudit.version_number(), millaudit._L._name]))
    """)
    version = millaudit.run("--version", check=0).stdout.split()[1]
    major, minor, patch = map(int, version.split("."))
    assert got[0] == version and got[1] == major * 10000 + minor * 100 + patch
    assert os.path.realpath(got[2]) == os.path.realpath(installed_api.libdir / "libmillaudit.so.0")


@pytest.mark.parametrize("db,exit_code", [("db", 0), ("bad", 1)])
def test_verify_is_the_commands_document(py, millaudit, std3_games, db, exit_code):
    path = std3_games / db
    got = py(f"""
        run = millaudit.verify({str(path)!r})
        print(json.dumps([run.document, run.verdict, run.totals, run.sectors, run.exit_code, run.errors,
                          run.sector("std_2_2_1_1")["status"]]))
    """)
    proc = millaudit.run("verify", path, "--json")
    assert proc.returncode == exit_code
    want = json.loads(proc.stdout)
    document, verdict, totals, sectors, code, errors, status = got
    assert untimed(document) == untimed(want)
    assert (verdict, code, errors) == (want["verdict"], exit_code, [])
    assert verdict == ("verified" if exit_code == 0 else "discrepancies")
    assert totals == want["totals"] and untimed(sectors) == untimed(want["sectors"])
    assert status == ("ok" if exit_code == 0 else "discrepancies")
    if exit_code:
        assert totals["discrepancies"] > 0 and want["sectors"][2]["rows"], "the rows are there"


def test_verify_options_are_the_commands(py, millaudit, std3_games, tmp_path):
    bad = std3_games / "bad"
    got = py(f"""
        a = millaudit.verify({str(bad)!r}, sectors=["2_2_1_1", "std_1_2_2_1"], threads=1, max_rows=0)
        b = millaudit.verify({str(bad)!r}, sectors="2_2_1_1", max_rows=1)
        print(json.dumps([a.document, b.document]))
    """)
    _, a_want = 0, json.loads(millaudit.run("verify", bad, "--sector", "2_2_1_1", "--sector", "std_1_2_2_1",
                                            "--threads", "1", "--max-rows", "0", "--json").stdout)
    b_want = json.loads(millaudit.run("verify", bad, "--sector", "2_2_1_1", "--max-rows", "1", "--json").stdout)
    assert untimed(got[0]) == untimed(a_want)
    assert untimed(got[1]) == untimed(b_want)
    assert [s["sector"] for s in got[0]["sectors"]] == ["std_2_2_1_1", "std_1_2_2_1"]
    assert got[0]["options"]["max_rows"] == 0 and got[0]["totals"]["discrepancies"] == 1
    assert all(not s["rows"] for s in got[0]["sectors"])
    assert got[1]["options"]["max_rows"] == 1 and len(got[1]["sectors"][0]["rows"]) == 1


def test_options_reach_the_engine_field_by_field(py, std3_games):
    """The ctypes mirror of ma_vrun_options is the C struct: every field set from Python is read
    back through ma_vrun_options_of at the same offset."""
    got = py(f"""
        import ctypes
        from millaudit import _lib, _vrun_options, _L
        keep = []
        o = _vrun_options({str(std3_games / 'db')!r}, ["3_3_0_0", "2_3_1_0"], 3, 17, False, True, "/tmp/a.sqlite",
                          "incremental", 42, (1, 4), keep)
        o.stale_seconds_given, o.stale_seconds = 1, 77
        o.tool_version, o.git_revision = b"tv", b"gr"
        err, run, key = _lib.Error(), ctypes.c_void_p(), ctypes.c_void_p()
        with open("seal.key", "w") as f:
            f.write("00112233445566778899aabbccddeeff")
        assert _L.ma_seal_key_load(ctypes.byref(key), b"seal.key", ctypes.byref(err)) == 0, err.msg
        o.seal_key = key
        o.integrity, o.attestation_path, o.pub_path = 3, b"a.intoto.json", b"team.pub"
        assert _L.ma_vrun_create(ctypes.byref(run), ctypes.byref(o), ctypes.byref(err)) == 0, err.msg
        r = _L.ma_vrun_options_of(run).contents
        print(json.dumps([r.root.decode(), [r.sectors[i].decode() for i in range(r.n_sectors)], r.threads,
                          r.max_rows, r.full_board_draw, r.allow_bounds, r.audit_path.decode(), r.mode,
                          r.resume_run, r.stale_seconds_given, r.stale_seconds, r.shard_index, r.shard_count,
                          r.tool_version.decode(), r.git_revision.decode(), bool(r.host), bool(r.command_line),
                          r.seal_key == key.value, r.integrity, r.attestation_path.decode(), r.pub_path.decode(),
                          r.n_integrity_exclude]))
        _L.ma_vrun_free(run)
        _L.ma_seal_key_free(key)
    """)
    assert got == [str(std3_games / "db"), ["3_3_0_0", "2_3_1_0"], 3, 17, 0, 1, "/tmp/a.sqlite", 2, 42, 1, 77, 1, 4,
                   "tv", "gr", True, True, True, 3, "a.intoto.json", "team.pub", 0]


def test_a_damaged_download_reads_as_damage_from_python(py, millaudit, std3_games, tmp_path):
    """verify() judges the files first, as the command does: a byte changed after the manifest was
    made is damage (verdict damaged, exit 3, the file to fetch again), and no_manifest sees only
    what the open files' own digests say."""
    db = tmp_path / "dl"
    shutil.copytree(std3_games / "db", db)
    millaudit.run("manifest", "create", db, check=0)
    f = db / "std_1_2_2_1.mdb"
    b = bytearray(f.read_bytes())
    b[1000] ^= 1
    f.write_bytes(bytes(b))
    got = py(f"""
        import millaudit
        r = millaudit.verify({str(db)!r}, threads=1)
        m = millaudit.verify({str(db)!r}, threads=1, manifest={str(db / 'MANIFEST.sha256')!r})
        n = millaudit.verify({str(db)!r}, threads=1, no_manifest=True)
        print(json.dumps([r.verdict, r.exit_code, m.verdict, n.verdict, n.exit_code, r.refetch, n.refetch,
                          [r.integrity["source"], m.integrity["source"], n.integrity["source"]],
                          [d["kind"] for d in r.integrity["damaged"]]]))
    """)
    cmd = json.loads(millaudit.run("verify", db, "--json", "--threads", "1", check=3).stdout)
    assert got == ["damaged", 3, "damaged", "damaged", 3, ["std_1_2_2_1.mdb"], ["std_1_2_2_1.mdb"],
                   ["manifest", "manifest", "none"], ["content-differs"]]
    assert cmd["verdict"] == "damaged" and cmd["next"]["refetch"] == got[5]


def test_a_recorded_run_and_the_runs_of_its_store(py, millaudit, std3_games, tmp_path):
    store = tmp_path / "a.sqlite"
    got = py(f"""
        run = millaudit.verify({str(std3_games / 'db')!r}, audit={str(store)!r})
        again = millaudit.verify({str(std3_games / 'db')!r}, audit={str(store)!r}, mode="incremental")
        print(json.dumps([run.run_id, again.run_id, again.totals["sectors_carried_over"],
                          millaudit.runs({str(store)!r}), millaudit.runs({str(store)!r}, kind="verify", last=1)]))
    """)
    first, second, carried, runs, last = got
    assert (first, second, carried) == (1, 2, 7)
    want = json.loads(millaudit.run("runs", "list", "--audit", store, "--json").stdout)["runs"]
    assert runs == want and len(runs) == 2
    assert last == json.loads(millaudit.run("runs", "list", "--audit", store, "--kind", "verify", "--last", "1",
                                            "--json").stdout)["runs"]
    assert [r["mode"] for r in runs] == ["full", "incremental"]
    assert runs[0]["database_root"] == str(std3_games / "db")


def test_shards_sealed_from_python_are_believed_by_a_merge_with_their_key(py, millaudit, std3_games, tmp_path):
    """verify(shard=, seal_key=) seals each shard's store as `verify --shard I/N --seal-key K` does:
    `runs merge --seal-key K` believes them, another key's merge is refused; a seal key without a
    store is refused in the library's words."""
    (tmp_path / "k").write_text(os.urandom(32).hex() + "\n")
    (tmp_path / "other").write_text(os.urandom(32).hex() + "\n")
    stores = [tmp_path / f"s{i}.sqlite" for i in range(2)]
    got = py(f"""
        verdicts = [millaudit.verify({str(std3_games / 'db')!r}, audit=s, shard=(i, 2),
                                     seal_key={str(tmp_path / 'k')!r}).verdict
                    for i, s in enumerate({[str(s) for s in stores]!r})]
        try:
            millaudit.verify({str(std3_games / 'db')!r}, seal_key={str(tmp_path / 'k')!r})
            refused = None
        except millaudit.Error as e:
            refused = [e.exit_code, str(e)]
        print(json.dumps([verdicts, refused]))
    """)
    assert got == [["verified", "verified"],
                   [2, "seal_key needs an audit store (audit_path: the seal is recorded in the store)"]]
    proc = millaudit.run("runs", "merge", tmp_path / "m.sqlite", *stores, "--seal-key", tmp_path / "k", check=0)
    assert "verified" in proc.stdout
    proc = millaudit.run("runs", "merge", tmp_path / "n.sqlite", *stores, "--seal-key", tmp_path / "other", check=3)
    assert "not by the hmac-sha256 key" in proc.stderr


def test_probe_is_the_commands_document(py, millaudit, std3_games):
    got = py(f"""
        print(json.dumps([millaudit.probe({str(std3_games / 'db')!r}, {POSITION!r}),
                          millaudit.probe({str(std3_games / 'db')!r}, {POSITION.split()!r}, variant="std")]))
    """)
    want = json.loads(millaudit.run("probe", std3_games / "db", POSITION, "--json", check=0).stdout)
    assert got == [want, want]
    assert want["stored"]["text"] == "win 3" and len(want["turns"]) == 54


def test_failures_raise_the_commands_code_and_words(py, millaudit, std3_games, tmp_path):
    got = py(f"""
        out = []
        for call in (lambda: millaudit.probe({str(std3_games / 'db')!r}, "a1,d1/g7"),
                     lambda: millaudit.probe({str(tmp_path / 'none')!r}, {POSITION!r}),
                     lambda: millaudit.verify({str(std3_games / 'db')!r}, sectors="9_9_9_9"),
                     lambda: millaudit.verify({str(std3_games / 'db')!r}, mode="resume"),
                     lambda: millaudit.runs({str(tmp_path / 'none.sqlite')!r})):
            try:
                call()
                out.append(None)
            except millaudit.Error as e:
                out.append([e.exit_code, e.name, str(e)])
        run = millaudit.verify({str(tmp_path / 'none')!r})
        out.append([run.exit_code, run.verdict, run.errors])
        print(json.dumps(out))
    """)
    probe_bad = millaudit.run("probe", std3_games / "db", "a1,d1/g7")
    assert got[0] == [probe_bad.returncode, "invalid", probe_bad.stderr.splitlines()[0].split(": ", 1)[1]]
    assert got[0][0] == 2
    probe_none = millaudit.run("probe", tmp_path / "none", POSITION)
    assert got[1][0] == probe_none.returncode == 3
    assert probe_none.stderr == f"millaudit probe: {got[1][2]}\n"
    # usage errors of the run: exit 2, in the library's words (its fields, not the command's options)
    assert got[2][:2] == [2, "invalid"] and got[2][2].startswith("sector 9_9_9_9: ")
    assert got[3] == [2, "invalid", "a resumed run needs an audit store (audit_path: the store holds what is "
                                    "carried over)"]
    runs_none = millaudit.run("runs", "list", "--audit", tmp_path / "none.sqlite")
    assert got[4][:2] == [runs_none.returncode, "missing"] and got[4][0] == 3
    verify_none = json.loads(millaudit.run("verify", tmp_path / "none", "--json").stdout)
    assert got[5] == [verify_none["exit"], verify_none["verdict"], verify_none["errors"]] and got[5][0] == 3


def test_manifest_check_is_the_commands(py, millaudit, std3_games, tmp_path):
    db = tmp_path / "db"
    subprocess.run(["cp", "-r", str(std3_games / "db"), str(db)], check=True)
    millaudit.run("manifest", "create", db, check=0)
    manifest = db / "MANIFEST.sha256"
    code = f"""
        c = millaudit.manifest_check({str(manifest)!r})
        print(json.dumps([c.verdict, c.files, c.counts, c.text, c.exit_code]))
    """
    verdict, files, counts, text, exit_code = py(code)
    want = millaudit.run("manifest", "check", manifest)
    assert (verdict, exit_code, text) == ("verified", 0, want.stdout) and want.returncode == 0
    assert len(files) == 7 and all(status == "OK" for _, status in files)
    # one file changed, one gone, one not listed
    (db / "std_1_1_2_2.mdb").write_bytes(b"x" + (db / "std_1_1_2_2.mdb").read_bytes()[1:])
    (db / "std_0_0_3_3.mdb").unlink()
    (db / "notes.txt").write_text("hello\n")
    verdict, files, counts, text, exit_code = py(code)
    want = millaudit.run("manifest", "check", manifest)
    assert (verdict, exit_code, text) == ("discrepancies", 1, want.stdout) and want.returncode == 1
    assert dict(files) == {"std_0_0_3_3.mdb": "MISSING", "std_0_1_3_2.mdb": "OK", "std_1_1_2_2.mdb": "FAILED",
                           "std_1_2_2_1.mdb": "OK", "std_2_2_1_1.mdb": "OK", "std_2_3_1_0.mdb": "OK",
                           "std_3_3_0_0.mdb": "OK", "notes.txt": "not in manifest"}
    assert counts == {"ok": 5, "failed": 1, "unreadable": 0, "missing": 1, "extra": 1, "malformed": 0}


def test_the_pytest_example_of_the_docs_runs(py, millaudit, std3_games, tmp_path):
    """docs/python.md's example, as a solver team copies it: it passes on a database the command
    solved, and fails (naming the sector) on one with a planted fault."""
    text = (ROOT / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n# test_database\.py\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/python.md: one ```python block starting '# test_database.py'"
    (tmp_path / "test_database.py").write_text(blocks[0])
    db = tmp_path / "out" / "std"
    shutil.copytree(std3_games / "db", db)
    env = dict(py.env, SOLVER_OUT=str(db))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_database.py"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"\b[3-9] passed\b", proc.stdout), proc.stdout
    subprocess.run([sys.executable, str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_2_2_1_1.mdb"),
                    "--entry", "100", "--depth-delta", "+1", "--reseal"], check=True, capture_output=True,
                   env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_database.py"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "std_2_2_1_1" in proc.stdout
