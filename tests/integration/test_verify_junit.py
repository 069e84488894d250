"""verify --junit FILE: one test case per sector, read back with a real XML parser and validated with
xmllint against the Jenkins/Ant JUnit schema. The failing cases are exactly the sectors verify's JSON
calls discrepancies, with their class counts and first discrepancies (entries and boards); unusable
and incomplete sectors are errors; carried-over results say so; a JUnit file that cannot be written
is exit 4 like an incomplete audit record."""
import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT
import junit_util

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("junit") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


def inject(millaudit, path, *args):
    proc = subprocess.run([sys.executable, str(INJECT), str(path), *map(str, args), "--reseal"], capture_output=True, text=True,
                          env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def faulty(millaudit, game, tmp_path_factory):
    """The 3-stone game with two wrong entries: a depth in std_2_3_1_0, an outcome in std_1_2_2_1."""
    db = tmp_path_factory.mktemp("junit-faulty") / "db"
    shutil.copytree(game, db)
    inject(millaudit, db / "std_2_3_1_0.mdb", "--entry", 17, "--depth-delta", "+1")
    inject(millaudit, db / "std_1_2_2_1.mdb", "--entry", 5, "--outcome", "draw")
    return db


def test_clean_game_all_cases_pass(millaudit, game, tmp_path):
    xml = tmp_path / "v.xml"
    millaudit.run("verify", game, "--quiet", "--junit", xml, check=0)
    cases = junit_util.load(xml)
    assert sorted(c["name"] for c in cases) == sorted(p.stem for p in game.glob("*.mdb"))
    assert all(c["outcome"] == "pass" for c in cases)
    assert {c["classname"] for c in cases} == {"millaudit.verify.std"}
    assert all(float(c["time"]) >= 0 for c in cases)


def test_failures_are_exactly_the_sectors_with_root_discrepancies(millaudit, faulty, tmp_path):
    """One bug, one red line (issue 45): a case fails for each sector that holds a fault of its own
    (root discrepancies); a sector whose discrepancies are all propagated from them passes, naming
    them. Each failure message is one line: the sector, the counts, the first root position and the
    refuting move."""
    xml = tmp_path / "v.xml"
    proc = millaudit.run("verify", faulty, "--json", "--junit", xml, check=1)
    doc = json.loads(proc.stdout)
    want = {s["sector"] for s in doc["sectors"] if s["status"] == "discrepancies" and s["roots"] > 0}
    consequences = {s["sector"] for s in doc["sectors"] if s["status"] == "discrepancies" and s["roots"] == 0}
    assert want and len(want) < len(doc["sectors"])
    assert want == {"std_2_3_1_0", "std_1_2_2_1"}  # the injected sectors themselves, and only they
    # (this fixture's faults propagate into no other sector's stored values; tests/unit/test_run_junit.c
    # and tests/integration/test_nightly.py hold consequences)
    cases = junit_util.load(xml)
    assert junit_util.failing(cases) == want
    by_name = {c["name"]: c for c in cases}
    for s in doc["sectors"]:
        c = by_name[s["sector"]]
        if s["sector"] in consequences:
            assert c["outcome"] == "pass"
            assert "a consequence of std_" in c["out"] and "all propagated" in c["out"]
            continue
        if s["sector"] not in want:
            assert c["outcome"] == "pass"
            continue
        assert c["type"] == "discrepancies"
        assert "\n" not in c["message"] and c["message"].startswith(s["sector"] + ": ")
        first = s["rows"][0]
        assert first["root"]
        assert (f"; first root: entry {first['entry']}, position {first['board']}, stored {first['stored']['text']}, "
                f"derived {first['derived']['text']}") in c["message"]
        if first.get("refutation"):
            assert c["message"].endswith(f", refuted by {first['refutation']['move']}")
        counts = " ".join(f"{k}={v:,}" for k, v in s["classes"].items() if v)
        if counts:
            assert f": {counts}; first root" in c["message"], (c["message"], counts)
            assert f"classes: {counts}" in c["text"]
        d, r = s["discrepancies"], s["roots"]
        assert (f"{d} discrepanc{'y' if d == 1 else 'ies'} ({r} root{'' if r == 1 else 's'}, "
                f"{s['propagated']} propagated)") in c["message"]
        # the first discrepancies with their entries, values and boards
        for row in s["rows"][:5]:
            assert f"entry {row['entry']} (offset {row['offset']}): {row['class']}" in c["text"]
            assert f"board {row['board']}: stored {row['stored']['text']}, derived {row['derived']['text']}" in c["text"]
        if s["rows"]:
            assert "a b c d e f g" in c["text"]  # a board is drawn


def test_properties_carried_over_and_store(millaudit, faulty, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(faulty, db)
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=1)
    xml = tmp_path / "second.xml"
    millaudit.run("verify", db, "--audit", store, "--incremental", "--quiet", "--junit", xml, check=1)
    cases = junit_util.load(xml)
    assert all("carried over from run 1" in c["out"] for c in cases)
    assert junit_util.failing(cases)  # a carried-over discrepancy is still a failure
    props = {p.get("name"): p.get("value") for p in ET.parse(xml).getroot().iter("property")}
    assert props["database_root"] == str(db.resolve())
    assert props["mode"] == "incremental"
    assert props["run_id"] == "2"
    assert props["verdict"] == "discrepancies"
    assert props["format"] == "open"


def test_unusable_and_incomplete_sectors_are_errors(millaudit, game, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(game, db)
    (db / "std_1_1_2_2.mdb").unlink()
    os.mkfifo(db / "std_1_1_2_2.mdb")  # a sector whose file cannot be used
    xml = tmp_path / "v.xml"
    proc = millaudit.run("verify", db, "--json", "--junit", xml, check=3)
    doc = json.loads(proc.stdout)
    cases = {c["name"]: c for c in junit_util.load(xml)}
    for s in doc["sectors"]:
        c = cases[s["sector"]]
        if s["status"] in ("unusable", "incomplete"):
            assert c["outcome"] == "error" and c["type"] == s["status"]
            assert c["message"] == s["message"]
        else:
            assert c["outcome"] == "pass"
    assert cases["std_1_1_2_2"]["type"] == "unusable" and "FIFO" in cases["std_1_1_2_2"]["message"]
    assert any(c["type"] == "incomplete" for c in cases.values())


def test_hostile_names_still_give_a_valid_document(millaudit, game, tmp_path):
    db = tmp_path / "a <&\"'> b \x01\udcff"  # markup, a control character, a byte that is not UTF-8
    os.makedirs(os.fsencode(db))
    for f in game.glob("*.mdb"):
        shutil.copy(f, os.fsencode(db) + b"/" + f.name.encode())
    xml = tmp_path / "v.xml"
    millaudit.run("verify", os.fsencode(db).decode("utf-8", "surrogateescape"), "--quiet", "--junit", xml, check=0)
    junit_util.validate(xml)
    props = {p.get("name"): p.get("value") for p in ET.parse(xml).getroot().iter("property")}
    assert props["database_root"].endswith("a <&\"'> b ??")


def test_missing_root_writes_a_run_error(millaudit, tmp_path):
    xml = tmp_path / "v.xml"
    proc = millaudit.run("verify", tmp_path / "nowhere", "--junit", xml, check=3)
    assert "nowhere" in proc.stderr
    cases = junit_util.load(xml)
    assert [(c["name"], c["outcome"], c["type"]) for c in cases] == [("run", "error", "stopped")]
    assert "nowhere" in cases[0]["message"]


def test_unwritable_junit_is_exit_4(millaudit, faulty, tmp_path):
    target = tmp_path / "missing" / "v.xml"
    proc = millaudit.run("verify", faulty, "--json", "--junit", target, check=4)
    doc = json.loads(proc.stdout)
    assert doc["exit"] == 4
    assert any("missing/v.xml" in e for e in doc["errors"])
    assert "missing/v.xml" in proc.stderr
    assert not target.parent.exists()
    # without discrepancies too, and the text output still ends with the verdict
    proc = millaudit.run("verify", faulty, "--sector", "std_3_3_0_0", "--junit", target, check=4)
    assert proc.stdout.rstrip().splitlines()[-1].startswith("verdict: verified")


def test_usage(millaudit, game):
    proc = millaudit.run("verify", game, "--junit", check=2)
    assert "--junit" in proc.stderr
    assert "--junit FILE" in millaudit.run("verify", "--help", check=0).stdout
