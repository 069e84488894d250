"""millaudit runs export | import | compare on stores made by the real binary.

Two copies of one solved game must compare equal; a copy with one changed entry must differ at
exactly that sector; a run exported from one store and imported into another keeps its facts and
compares equal to the original; malformed or foreign documents and bad stores are refused with one
line, exit 3, and leave the target store byte-identical (under ASan).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from schemas import validate

from conftest import ROOT

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def stores(millaudit, game, tmp_path_factory):
    """a.sqlite: run 1 manifest of copy 1, run 2 verify of copy 1;
    b.sqlite: run 1 manifest of copy 2 (same bytes), run 2 manifest of copy 3 (one entry changed)."""
    base = tmp_path_factory.mktemp("stores")
    copies = []
    for k in range(3):
        copies.append(base / f"copy{k}")
        shutil.copytree(game, copies[-1])
    proc = subprocess.run([sys.executable, str(INJECT), str(copies[2] / "std_2_3_1_0.mdb"), "--entry", "17",
                           "--depth-delta", "+1", "--reseal"], capture_output=True, text=True,
                          env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    assert proc.returncode == 0, proc.stderr
    a, b = base / "a.sqlite", base / "b.sqlite"
    millaudit.run("manifest", "create", copies[0], "--out", base / "m0", "--audit", a, "--quiet", check=0)
    millaudit.run("verify", copies[0], "--audit", a, "--quiet", check=0)
    millaudit.run("manifest", "create", copies[1], "--out", base / "m1", "--audit", b, "--quiet", check=0)
    millaudit.run("manifest", "create", copies[2], "--out", base / "m2", "--audit", b, "--quiet", check=0)
    return a, b


def verdicts(stdout):
    """sector -> (bytes, values, verdict) from the fixed-width table of runs compare."""
    out = {}
    for line in stdout.splitlines():
        if line.startswith("std_"):
            out[line[:24].strip()] = (line[25:39].strip(), line[40:54].strip(), line[55:].strip())
    return out


def test_two_copies_of_the_same_database_compare_equal(millaudit, stores, game):
    a, b = stores
    proc = millaudit.run("runs", "compare", f"{a}:1", f"{b}:1", check=0)
    v = verdicts(proc.stdout)
    assert sorted(v) == sorted(p.stem for p in game.glob("*.mdb"))
    assert all(bytes_ == "same" for bytes_, _, _ in v.values())
    assert "equal: 7 sectors" in proc.stdout


def test_one_changed_entry_differs_at_exactly_that_sector(millaudit, stores):
    a, b = stores
    proc = millaudit.run("runs", "compare", f"{a}:1", f"{b}:2", check=1)
    v = verdicts(proc.stdout)
    differing = {s for s, (bytes_, _, _) in v.items() if bytes_ != "same"}
    assert differing == {"std_2_3_1_0"}
    assert v["std_2_3_1_0"][0] == "differ" and v["std_2_3_1_0"][2] == "bytes only"
    assert "differ: 1 of 7 sectors differs: std_2_3_1_0 (bytes only)" in proc.stdout
    # within one store, by plain ids
    proc = millaudit.run("runs", "compare", "--audit", b, "1", "2", check=1)
    assert {s for s, (x, _, _) in verdicts(proc.stdout).items() if x != "same"} == {"std_2_3_1_0"}


def strip_provenance(store, run, copy):
    """A copy of store in which run has neither manifest nor digests, as an older build recorded."""
    shutil.copy(store, copy)
    with sqlite3.connect(copy) as db:
        for table in ("sector_digests", "manifest_chunks", "manifest_files", "manifests"):
            db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run,))
    return copy


def test_runs_without_digests_are_not_comparable(millaudit, stores, tmp_path):
    a, _ = stores
    assert millaudit.run("runs", "compare", "--audit", a, "2", "2", check=0).returncode == 0
    old = strip_provenance(a, 2, tmp_path / "old.sqlite")
    proc = millaudit.run("runs", "compare", "--audit", old, "2", "2", check=3)
    assert "not comparable" in proc.stdout
    assert proc.stderr.count("\n") == 1


def test_export_is_stable_and_complete(millaudit, stores, tmp_path):
    a, _ = stores
    first = millaudit.run("runs", "export", "--audit", a, "--run", 1, check=0).stdout
    second = millaudit.run("runs", "export", "--audit", a, "--run", 1, check=0).stdout
    assert first == second
    doc = json.loads(first)
    assert list(doc) == ["format", "schema_version", "version", "run", "imported_from", "manifest", "sectors",
                         "discrepancies"]
    assert doc["format"] == "millaudit-run" and doc["version"] == 1
    validate(doc, "runs-export")
    with sqlite3.connect(a) as db:
        files = db.execute("SELECT path, sha256 FROM manifest_files WHERE run_id = 1 ORDER BY path").fetchall()
        chunks = db.execute("SELECT count(*) FROM manifest_chunks WHERE run_id = 1").fetchone()[0]
    assert [(f["path"], f["sha256"]) for f in doc["manifest"]["files"]] == files
    assert sum(len(f["chunks"]) for f in doc["manifest"]["files"]) == chunks
    verify = validate(json.loads(millaudit.run("runs", "export", "--audit", a, check=0).stdout), "runs-export")
    assert verify["run"]["kind"] == "verify" and len(verify["sectors"]) == 7
    millaudit.run("runs", "export", "--audit", a, "--run", 2, "--out", tmp_path / "v.json", check=0)
    assert json.loads((tmp_path / "v.json").read_text()) == verify


def test_import_round_trip_keeps_facts_and_compares_equal(millaudit, stores, tmp_path):
    a, b = stores
    for run in (1, 2):
        doc_path = tmp_path / f"run{run}.json"
        doc_path.write_text(millaudit.run("runs", "export", "--audit", a, "--run", run, check=0).stdout)
        target = tmp_path / "target.sqlite"
        proc = millaudit.run("runs", "import", "--audit", target, doc_path, check=0)
        new_id = int(proc.stdout.split(" as run ")[1].split()[0])
        original = json.loads(doc_path.read_text())
        back = json.loads(millaudit.run("runs", "export", "--audit", target, "--run", new_id, check=0).stdout)
        assert back["imported_from"]["source"] == str(doc_path)
        assert back["imported_from"]["source_run_id"] == run
        for key in ("manifest", "sectors", "discrepancies"):
            assert back[key] == original[key]
        assert {k: v for k, v in back["run"].items() if k != "id"} == \
               {k: v for k, v in original["run"].items() if k != "id"}
        report = millaudit.run("report", "--audit", target, "--run", new_id, check=0).stdout
        assert "imported from" in report and str(doc_path) in report
    millaudit.run("runs", "compare", f"{a}:1", f"{tmp_path / 'target.sqlite'}:1", check=0)


def store_state(path):
    return {p.name: p.read_bytes() for p in path.parent.iterdir() if p.name.startswith(path.name)}


@pytest.mark.parametrize("case", ["truncated", "not-json", "foreign", "other-version", "unknown-key",
                                  "bad-digest", "wrong-type", "empty"])
def test_bad_documents_are_refused_and_the_store_is_untouched(millaudit, millaudit_asan, stores, tmp_path, case):
    a, _ = stores
    good = millaudit.run("runs", "export", "--audit", a, "--run", 1, check=0).stdout
    doc = json.loads(good)
    if case == "truncated":
        text = good[:len(good) // 2]
    elif case == "not-json":
        text = "millaudit run 1: ok\n"
    elif case == "foreign":
        text = json.dumps({"name": "some-package", "version": "1.0.0", "dependencies": {}})
    elif case == "other-version":
        doc["version"] = 2
        text = json.dumps(doc)
    elif case == "unknown-key":
        doc["run"]["colour"] = "blue"
        text = json.dumps(doc)
    elif case == "bad-digest":
        doc["manifest"]["files"][0]["sha256"] = "00" * 31
        text = json.dumps(doc)
    elif case == "wrong-type":
        doc["sectors"] = {"std_3_3_0_0": 1}
        text = json.dumps(doc)
    else:
        text = ""
    path = tmp_path / "run.json"
    path.write_text(text)
    target = tmp_path / "target.sqlite"
    shutil.copy(a, target)
    before = store_state(target)
    proc = millaudit_asan.run("runs", "import", "--audit", target, path)
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("millaudit runs import: ") and proc.stderr.count("\n") == 1
    assert str(path) in proc.stderr
    assert proc.stdout == ""
    assert store_state(target) == before
    # a missing target store is not created for a bad document either
    proc = millaudit_asan.run("runs", "import", "--audit", tmp_path / "new.sqlite", path)
    assert proc.returncode == 3 and not (tmp_path / "new.sqlite").exists()


@pytest.mark.parametrize("case", ["corrupt", "foreign", "not-sqlite"])
def test_bad_target_and_source_stores(millaudit, millaudit_asan, stores, tmp_path, case):
    a, _ = stores
    doc = tmp_path / "run.json"
    doc.write_text(millaudit.run("runs", "export", "--audit", a, "--run", 1, check=0).stdout)
    bad = tmp_path / "bad.sqlite"
    if case == "corrupt":
        shutil.copy(a, bad)
        data = bytearray(bad.read_bytes())
        data[100:4096] = b"\xff" * (4096 - 100)
        bad.write_bytes(bytes(data))
    elif case == "foreign":
        with sqlite3.connect(bad) as db:
            db.execute("CREATE TABLE t (x)")
    else:
        bad.write_bytes(b"\x00" * 300)
    before = bad.read_bytes()
    for args in (["runs", "import", "--audit", bad, doc], ["runs", "export", "--audit", bad],
                 ["runs", "compare", f"{bad}:1", f"{a}:1"]):
        proc = millaudit_asan.run(*args)
        assert proc.returncode == 3, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and str(bad) in proc.stderr
        assert bad.read_bytes() == before


def test_unknown_runs_and_usage(millaudit_asan, stores, tmp_path):
    a, _ = stores
    proc = millaudit_asan.run("runs", "compare", "--audit", a, "1", "42")
    assert proc.returncode == 3 and "run 42 does not exist" in proc.stderr
    proc = millaudit_asan.run("runs", "export", "--audit", a, "--run", "42", "--out", tmp_path / "x.json")
    assert proc.returncode == 3 and not (tmp_path / "x.json").exists()
    proc = millaudit_asan.run("runs", "compare", "--audit", tmp_path / "none.sqlite", "1", "2")
    assert proc.returncode == 3 and not (tmp_path / "none.sqlite").exists()
    assert millaudit_asan.run("runs").returncode == 2
    assert millaudit_asan.run("runs", "frobnicate").returncode == 2
    assert millaudit_asan.run("runs", "compare", "1", "2").returncode == 2  # no --audit, no STORE:ID
    assert millaudit_asan.run("runs", "compare", "--audit", a, "1").returncode == 2
    assert millaudit_asan.run("runs", "import", "--audit", a).returncode == 2
    assert "usage: millaudit runs" in millaudit_asan.run("runs", "--help", check=0).stdout


def values_digest(path):
    """docs/reproducibility.md §1, for a file whose canonical entries are its non-zero words."""
    import hashlib
    import struct
    data = path.read_bytes()
    count = struct.unpack_from("<Q", data, 24)[0]
    h, n = hashlib.sha256(), 0
    for word in struct.unpack_from(f"<{count}H", data, 128):
        if word:
            h.update({3: b"W", 1: b"L", 2: b"D"}[word >> 14] + struct.pack("<H", word & 0x3FFF))
            n += 1
    return h.hexdigest(), n


def test_derived_digests_carried_by_documents_compare_by_values(millaudit, stores, tmp_path):
    """The verifier does not record derived digests yet; a document carrying them (computed here from
    the stored values, docs/reproducibility.md §1) exercises import, report and compare by values."""
    a, _ = stores
    base = a.parent
    doc = json.loads(millaudit.run("runs", "export", "--audit", a, "--run", 2, check=0).stdout)
    target = tmp_path / "t.sqlite"
    ids = []
    for copy in ("copy0", "copy1", "copy2"):
        for sector in doc["sectors"]:
            sector["derived_sha256"], sector["derived_positions"] = values_digest(base / copy / f"{sector['sector']}.mdb")
        path = tmp_path / f"{copy}.json"
        path.write_text(json.dumps(doc))
        out = millaudit.run("runs", "import", "--audit", target, path, check=0).stdout
        ids.append(int(out.split(" as run ")[1].split()[0]))
    same = millaudit.run("runs", "compare", "--audit", target, ids[0], ids[1], check=0)
    assert "equal: 7 sectors" in same.stdout
    proc = millaudit.run("runs", "compare", "--audit", target, ids[0], ids[2], check=1)
    v = verdicts(proc.stdout)
    assert {s for s, (_, values, _) in v.items() if values != "same"} == {"std_2_3_1_0"}
    assert v["std_2_3_1_0"][1:] == ("differ", "values")
    report = millaudit.run("report", "--audit", target, "--run", ids[2], check=0).stdout
    digest, n = values_digest(base / "copy2" / "std_2_3_1_0.mdb")
    assert f"derived values: {digest} ({n:,} positions)" in report
    # a digest without its position count is refused
    doc["sectors"][0]["derived_positions"] = None
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    proc = millaudit.run("runs", "import", "--audit", target, tmp_path / "bad.json", check=3)
    assert "derived_positions" in proc.stderr


def test_documents_without_schema_version_still_import(millaudit, stores, tmp_path):
    """Exports written before schema_version was added carry only "version"; a wrong schema_version is refused."""
    a, _ = stores
    doc = json.loads(millaudit.run("runs", "export", "--audit", a, "--run", 1, check=0).stdout)
    del doc["schema_version"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    millaudit.run("runs", "import", "--audit", tmp_path / "t.sqlite", old, check=0)
    doc["schema_version"] = 2
    old.write_text(json.dumps(doc))
    proc = millaudit.run("runs", "import", "--audit", tmp_path / "t.sqlite", old, check=3)
    assert "schema_version" in proc.stderr
