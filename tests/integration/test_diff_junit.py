"""diff --junit FILE: one test case per pair of sectors, validated with xmllint against the JUnit
schema and read with a real XML parser. Failing cases are exactly the pairs diff calls different
(values differ, or a sector on one side only), with the value differences by class and the first
examples with their boards; equal and identical pairs pass; a file that cannot be written is exit 4."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT
import junit_util

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def dbs(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("diff-junit")
    good = base / "good"
    good.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", good, "--quiet", check=0)
    bad = base / "bad"
    shutil.copytree(good, bad)
    proc = subprocess.run([sys.executable, str(INJECT), "--reseal", str(bad / "std_1_1_2_2.mdb"), "--entry", "0", "--outcome",
                           "loss", "--depth", "2"], capture_output=True, text=True,
                          env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    assert proc.returncode == 0, proc.stderr
    (bad / "std_0_1_3_2.mdb").unlink()  # only in B
    return good, bad


def test_equal_databases_pass(millaudit, dbs, tmp_path):
    good, _ = dbs
    copy = tmp_path / "copy"
    shutil.copytree(good, copy)
    xml = tmp_path / "d.xml"
    millaudit.run("diff", good, copy, "--quiet", "--junit", xml, check=0)
    cases = junit_util.load(xml)
    assert sorted(c["name"] for c in cases) == sorted(p.stem for p in good.glob("*.mdb"))
    assert all(c["outcome"] == "pass" and c["out"].startswith("identical") for c in cases)
    assert {c["classname"] for c in cases} == {"millaudit.diff.std"}


def test_failures_are_the_pairs_that_differ(millaudit, dbs, tmp_path):
    good, bad = dbs
    xml = tmp_path / "d.xml"
    doc = json.loads(millaudit.run("diff", bad, good, "--json", check=1).stdout)
    millaudit.run("diff", bad, good, "--quiet", "--junit", xml, check=1)
    cases = {c["name"]: c for c in junit_util.load(xml)}
    want = {s["sector"]: s for s in doc["sectors"] if s["status"] in ("differs", "only-in-A", "only-in-B")}
    assert set(want) == {"std_1_1_2_2", "std_0_1_3_2"}
    assert junit_util.failing(cases.values()) == set(want)
    c = cases["std_1_1_2_2"]
    d = want["std_1_1_2_2"]["differences"]
    assert c["type"] == "values-differ"
    # one line: the sector, its counts, the first root position, the side that is right and why
    n = d['outcome'] + d['depth'] + d['draw-class']
    ex0 = want["std_1_1_2_2"]["examples"][0]
    assert c["message"].startswith(f"std_1_1_2_2: {n:,} of {want['std_1_1_2_2']['positions']:,} positions differ in "
                                   f"value: outcome={d['outcome']:,}; ")
    assert f"first root: position {ex0['board']}, A says {ex0['a']['text']}, B says {ex0['b']['text']}" in c["message"]
    assert ex0["proof"]["right"] == "B" and "; B is right" in c["message"]  # B is the good database
    assert "\n" not in c["message"]
    ex = want["std_1_1_2_2"]["examples"][0]
    assert (f"board {ex['board']}: A entry {ex['entry_a']} says {ex['a']['text']}, B entry {ex['entry_b']} says "
            f"{ex['b']['text']}") in c["text"]
    assert "a b c d e f g" in c["text"]
    assert cases["std_0_1_3_2"]["type"] == "only-in-B" and "std_0_1_3_2.mdb" in cases["std_0_1_3_2"]["message"]
    for name, case in cases.items():
        if name not in want:
            assert case["outcome"] == "pass"


def test_unwritable_junit_is_exit_4(millaudit, dbs, tmp_path):
    good, bad = dbs
    proc = millaudit.run("diff", bad, good, "--quiet", "--junit", tmp_path / "no" / "d.xml", check=4)
    assert "no/d.xml" in proc.stderr
    assert "values differ" in proc.stdout


def test_unusable_input_still_writes_a_report(millaudit, dbs, tmp_path):
    good, _ = dbs
    xml = tmp_path / "d.xml"
    millaudit.run("diff", good, tmp_path / "nowhere", "--junit", xml, check=3)
    cases = junit_util.load(xml)
    assert [(c["name"], c["outcome"]) for c in cases] == [("run", "error")]
