"""runs list, runs compare --json and runs regressions on a store made by the real binary: a 3-stone
database verified night after night (--incremental) while one entry is broken and repaired, plus a
run of another database root and a diff run. Every --json output is validated against its schema by
conftest (runs-list, runs-compare, runs-regressions)."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT
import junit_util

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def history(millaudit, tmp_path_factory):
    """runs 1-5 of h.sqlite:
    1 verify db (clean), 2 verify db --incremental after an entry of std_1_1_2_2 was broken (a win
    turned into a loss: its parent sector's derived values move too),
    3 verify other (another root), 4 verify db --incremental after the repair, 5 diff db other."""
    base = tmp_path_factory.mktemp("history")
    db, other = base / "db", base / "other"
    db.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", db, "--quiet", check=0)
    shutil.copytree(db, other)
    store = base / "h.sqlite"
    good = (db / "std_1_1_2_2.mdb").read_bytes()
    out = {"base": base, "db": db, "other": other, "store": store, "json": {}}
    out["json"][1] = json.loads(millaudit.run("verify", db, "--audit", store, "--json", check=0).stdout)
    proc = subprocess.run([sys.executable, str(INJECT), str(db / "std_1_1_2_2.mdb"), "--entry", "0",
                           "--outcome", "loss", "--depth", "2", "--reseal"], capture_output=True, text=True,
                          env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    assert proc.returncode == 0, proc.stderr
    out["json"][2] = json.loads(millaudit.run("verify", db, "--audit", store, "--incremental", "--json",
                                              check=1).stdout)
    millaudit.run("verify", other, "--audit", store, "--quiet", check=0)
    (db / "std_1_1_2_2.mdb").write_bytes(good)
    out["json"][4] = json.loads(millaudit.run("verify", db, "--audit", store, "--incremental", "--json",
                                              check=0).stdout)
    millaudit.run("diff", db, other, "--audit", store, "--quiet", check=0)
    return out


def test_list_text_and_json(millaudit, history):
    store = history["store"]
    proc = millaudit.run("runs", "list", "--audit", store, check=0)
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:6] == ["id", "kind", "started", "ended", "status", "mode"]
    assert lines[-1] == "5 runs"
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--json", check=0).stdout)
    runs = doc["runs"]
    assert [r["id"] for r in runs] == [1, 2, 3, 4, 5]
    assert [r["kind"] for r in runs] == ["verify"] * 4 + ["diff"]
    assert [r["status"] for r in runs[:4]] == ["ok", "discrepancies", "ok", "ok"]
    assert [r["mode"] for r in runs[:4]] == ["full", "incremental", "full", "incremental"]
    assert runs[0]["database_root"] == str(history["db"].resolve())
    assert runs[2]["database_root"] == str(history["other"].resolve())
    # totals are the verify runs' own totals
    for rid in (1, 2, 4):
        t, want = runs[rid - 1]["totals"], history["json"][rid]["totals"]
        for key in ("entries", "checked", "verified", "discrepancies"):
            assert t[key] == want[key], (rid, key)
        assert t["sectors"] == len(history["json"][rid]["sectors"])
        assert t["sectors_carried"] == sum(s["carried_over"] for s in history["json"][rid]["sectors"])
        assert t["sectors_with_discrepancies"] == sum(s["status"] == "discrepancies"
                                                      for s in history["json"][rid]["sectors"])
    assert runs[1]["totals"]["sectors_carried"] > 0  # the incremental run carried the untouched sectors
    # text rows carry the same numbers
    row2 = next(line for line in lines if line.split()[0] == "2").split()
    assert row2[1:2] == ["verify"] and row2[4] == "discrepancies"
    assert int(row2[9]) == history["json"][2]["totals"]["discrepancies"]


def test_list_filters(millaudit, history):
    store = history["store"]
    ids = lambda *args: [r["id"] for r in json.loads(millaudit.run("runs", "list", "--audit", store, "--json", *args,
                                                                    check=0).stdout)["runs"]]
    assert ids("--kind", "verify") == [1, 2, 3, 4]
    assert ids("--kind", "diff") == [5]
    assert ids("--root", history["db"]) == [1, 2, 4, 5]  # diff records A as its root
    assert ids("--root", history["other"], "--kind", "verify") == [3]
    assert ids("--kind", "verify", "--last", 2) == [3, 4]
    assert ids("--root", history["base"] / "nothing") == []


def test_regressions_of_the_broken_night(millaudit, history, tmp_path):
    store = history["store"]
    xml = tmp_path / "r.xml"
    proc = millaudit.run("runs", "regressions", "--audit", store, "--run", 2, "--junit", xml, check=1)
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--run", 2, "--json", check=1).stdout)
    assert doc["run"]["id"] == 2 and doc["baseline"]["id"] == 1 and doc["basis"] == "previous"
    assert doc["verdict"] == {"from": "ok", "to": "discrepancies", "changed": True, "worse": True, "better": False}
    assert doc["regressed"]
    by = {s["sector"]: s for s in doc["sectors"]}
    night2 = {s["sector"]: s for s in history["json"][2]["sectors"]}
    failing = {name for name, s in night2.items() if s["status"] == "discrepancies"}
    assert "std_1_1_2_2" in failing
    for name in failing:  # every failing sector is a regression with its class counts
        assert by[name]["regression"]
        assert {"new-discrepancies", "status-changed"} <= set(by[name]["changes"])
        assert by[name]["run"]["classes"] == {k: v for k, v in night2[name]["classes"].items() if v}
        assert by[name]["run"]["discrepancies"] == night2[name]["discrepancies"]
        assert by[name]["baseline"]["discrepancies"] == 0
    # values changed exactly where runs compare sees other derived values
    cmp = json.loads(millaudit.run("runs", "compare", "--audit", store, 1, 2, "--json", check=1).stdout)
    moved = {r["name"] for r in cmp["sectors"] if r["values"] == "differ"}
    assert moved  # the parent's derived values moved with the broken child
    assert moved == {name for name, s in by.items() if "values-changed" in s["changes"]}
    regressions = {name for name, s in by.items() if s["regression"]}
    assert regressions == failing | moved
    assert doc["counts"]["regressions"] == len(regressions)
    assert doc["counts"]["unchanged"] == 7 - len(by)
    # root causes (issue 45): the sector with the broken entry is the fault; a sector whose values
    # moved only because of it, and that holds no root discrepancy, is its consequence
    roots = {name for name, s in night2.items() if s["status"] == "discrepancies" and s["roots"] > 0}
    assert roots == {"std_1_1_2_2"}
    consequences = {name for name, s in by.items() if s["consequence_of"]}
    assert consequences == regressions - roots and consequences  # the parents
    assert all(by[name]["consequence_of"] == ["std_1_1_2_2"] for name in consequences)
    assert doc["counts"]["consequences"] == len(consequences)
    # the text names the fault with its class counts, and its consequences once, in one line
    assert "verdict: ok -> discrepancies (worse)" in proc.stdout
    assert "REGRESSION  std_1_1_2_2: new discrepancies" in proc.stdout
    line = next(l for l in proc.stdout.splitlines() if l.startswith("consequence "))
    assert "as a consequence of std_1_1_2_2 " in line and all(name in line for name in consequences)
    assert not any(f"REGRESSION  {name}: " in proc.stdout for name in consequences)
    assert (f"regressed: 1 sector: std_1_1_2_2 (and {len(consequences)} as a consequence); verdict ok -> "
            f"discrepancies") in proc.stdout
    counts = " ".join(f"{k}={v:,}" for k, v in night2["std_1_1_2_2"]["classes"].items() if v)
    assert f"classes: none -> {counts}" in proc.stdout
    # JUnit: a case per sector, failing for the fault alone (one bug, one red line); the
    # consequences pass naming it, the worse verdict is explained by the failing case
    cases = junit_util.load(xml)
    assert {c["name"] for c in cases} == {s["sector"] for s in history["json"][2]["sectors"]} | {"verdict"}
    assert junit_util.failing(cases) == roots
    by_case = {c["name"]: c for c in cases}
    assert all("caused by std_1_1_2_2" in by_case[name]["out"] for name in consequences)
    message = by_case["std_1_1_2_2"]["message"]
    assert "\n" not in message and message.startswith("std_1_1_2_2: new discrepancies: ")
    assert "; first root: entry " in message and ", refuted by " in message


def test_regressions_of_the_repaired_night(millaudit, history):
    store = history["store"]
    proc = millaudit.run("runs", "regressions", "--audit", store, check=0)  # newest verify run: 4
    assert proc.stdout.startswith("run 4: ")
    assert "baseline: run 2 " in proc.stdout
    assert "verdict: discrepancies -> ok (better)" in proc.stdout
    assert "fixed: the verdict went from discrepancies back to ok" in proc.stdout
    assert "no regressions" in proc.stdout
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--json", check=0).stdout)
    assert not doc["regressed"] and doc["counts"]["regressions"] == 0
    fixed = {s["sector"] for s in doc["sectors"] if "fixed" in s["changes"]}
    assert "std_1_1_2_2" in fixed
    assert all(s["improvement"] for s in doc["sectors"] if s["changes"] != ["appeared"])
    # against night 1 nothing changed at all
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--since", 1, "--json", check=0).stdout)
    assert doc["basis"] == "since" and doc["baseline"]["id"] == 1
    assert doc["counts"]["changed"] == 0 and doc["sectors"] == []


def test_first_run_of_a_root_has_no_baseline(millaudit, history):
    store = history["store"]
    proc = millaudit.run("runs", "regressions", "--audit", store, "--root", history["other"], check=0)
    assert proc.stdout.startswith("run 3: ")
    assert "no baseline" in proc.stdout
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--run", 1, "--json", check=0).stdout)
    assert doc["baseline"] is None and doc["basis"] is None and not doc["regressed"]
    assert doc["counts"]["unchanged"] == 7


def test_previous_skips_interrupted_and_foreign_runs(millaudit, history, tmp_path):
    store = tmp_path / "h.sqlite"
    shutil.copy(history["store"], store)
    # run 2 pretends it was interrupted: run 4's previous is then run 1 (run 3 is another root)
    with sqlite3.connect(store) as c:
        c.execute("UPDATE runs SET status = 'interrupted' WHERE id = 2")
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--run", 4, "--json", check=0).stdout)
    assert doc["baseline"]["id"] == 1 and doc["counts"]["changed"] == 0


def test_compare_json(millaudit, history):
    store = history["store"]
    doc = json.loads(millaudit.run("runs", "compare", "--audit", store, 1, 4, "--json", check=0).stdout)
    assert doc["result"] == "equal"
    assert doc["counts"]["same"] == doc["counts"]["sectors"] == 7
    assert doc["a"]["id"] == 1 and doc["b"]["id"] == 4
    doc = json.loads(millaudit.run("runs", "compare", f"{store}:1", f"{store}:2", "--json", check=1).stdout)
    rows = {r["name"]: r for r in doc["sectors"]}
    assert rows["std_1_1_2_2"]["bytes"] == "differ"
    assert doc["result"] == "differ"


def test_errors(millaudit, history, tmp_path):
    store = history["store"]
    cases = [
        (("runs", "regressions", "--audit", store, "--run", 5), 3, "is a diff run"),
        (("runs", "regressions", "--audit", store, "--run", 4, "--since", 5), 3, "is a diff run"),
        (("runs", "regressions", "--audit", store, "--run", 99), 3, "run 99 does not exist"),
        (("runs", "regressions", "--audit", tmp_path / "none.sqlite"), 3, "none.sqlite"),
        (("runs", "regressions", "--audit", store, "--root", tmp_path), 3, "no verify run"),
        (("runs", "list", "--audit", tmp_path / "none.sqlite"), 3, "none.sqlite"),
        (("runs", "regressions", "--audit", store, "--since", "x"), 2, "--since x"),
        (("runs", "list", "--audit", store, "--last", 0), 2, "--last 0"),
        (("runs", "list", "--audit", store, "--since", 1), 2, "usage"),
        (("runs", "list"), 2, "usage"),
        (("runs", "export", "--audit", store, "--json"), 2, "--json"),
        (("runs", "regressions", "--audit", store, "extra"), 2, "usage"),
    ]
    for args, code, needle in cases:
        proc = millaudit.run(*args, check=code)
        assert needle in proc.stderr, (args, proc.stderr)
        assert proc.stdout == ""
    # a JUnit file that cannot be written: exit 4, the text still printed
    proc = millaudit.run("runs", "regressions", "--audit", store, "--run", 2, "--junit", tmp_path / "no" / "r.xml",
                         check=4)
    assert "no/r.xml" in proc.stderr and "REGRESSION" in proc.stdout
