"""ci/nightly, three nights on one history store (docs/nightly.md): the reference producer's 4-stone
game (night 1, clean: exit 0), the same game from a producer with a planted bug (night 2: exit 1; every JUnit file fails
one case per faulty sector, the sectors the summary and the reports name first; runs regressions
groups the sectors whose values moved only because of it under it; the reference diff finds the
wrong values), the clean producer again (night 3: exit 0, the fault reported fixed). Then the pipeline's own failure modes: a failing solver
(exit 6, the previous database kept), a directory it did not create, a busy store, usage."""
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT
import junit_util

NIGHTLY = ROOT / "ci" / "nightly"
BUG = "blocked-not-lost"  # docs/solver.md: a blocked side scored a draw; shows in 4-stone games


def planted(millaudit):
    """The producer with planted bugs: MILLAUDIT_PLANTED_BIN (scripts/test), else millaudit-planted
    beside MILLAUDIT_BIN, else MILLAUDIT_BIN itself (older builds had --plant-bug in the main binary)."""
    env = os.environ.get("MILLAUDIT_PLANTED_BIN")
    if env:
        return env
    beside = millaudit.path.parent / "millaudit-planted"
    return str(beside if beside.exists() else millaudit.path)


def nightly(millaudit, *args, timeout=900):
    return subprocess.run([str(NIGHTLY), "--millaudit", str(millaudit.path), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def solve_cmd(binary, stones, bug=None):
    cmd = f"'{binary}' solve --variant std --stones {stones} --out \"$OUT\" --quiet"
    return cmd + (f" --plant-bug {bug}" if bug else "")


def line(summary, key):
    """The value of a summary line 'key   value'."""
    for ln in summary.splitlines():
        if ln.startswith(key + " "):
            return ln[len(key):].strip()
    raise AssertionError(f"no '{key}' line in\n{summary}")


@pytest.fixture(scope="module")
def nights(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("nightly")
    store = base / "history.sqlite"
    db = base / "history-database"  # the default: beside the store
    reference = base / "reference"
    cmds = {1: solve_cmd(millaudit.path, 4), 2: solve_cmd(planted(millaudit), 4, BUG), 3: solve_cmd(millaudit.path, 4)}
    res = {"base": base, "store": store, "db": db}
    for night in (1, 2, 3):
        out = base / f"night{night}"
        extra = ["--reference", reference] if night > 1 else []
        proc = nightly(millaudit, "--solver-cmd", cmds[night], "--store", store, "--out", out, "--threads", 2, *extra)
        res[night] = {"proc": proc, "out": out, "summary": (out / "summary.txt").read_text()}
        assert proc.stdout == res[night]["summary"]
        # what an independent verify (no store, no carried results) says about this night's database
        res[night]["verify"] = json.loads(millaudit.run("verify", db, "--json", "--threads", 2).stdout)
        if night == 1:
            shutil.copytree(db, reference)  # night 1 verified clean: tomorrow's reference
    return res


def test_night1_clean(nights):
    n = nights[1]
    assert n["proc"].returncode == 0, n["proc"].stdout + n["proc"].stderr
    s = n["summary"]
    assert line(s, "result") == "exit 0: clean (the first run of this database: no baseline to compare with)"
    assert line(s, "verify").startswith("verified: all ")
    assert line(s, "baseline") == "none: the first finished run of this database"
    assert line(s, "store").endswith(", run 1")
    cases = junit_util.load(n["out"] / "verify.junit.xml")
    assert len(cases) == len(n["verify"]["sectors"]) == 28
    assert junit_util.failing(cases) == set()
    regressions = json.loads((n["out"] / "regressions.json").read_text())
    assert regressions["baseline"] is None and not regressions["regressed"]
    for name in ("report.html", "report.json", "MANIFEST.sha256", "regressions.junit.xml", "verify.txt"):
        assert (n["out"] / name).stat().st_size > 0, name
    # the manifest names every file of the database and sha256sum -c accepts it there
    proc = subprocess.run(["sha256sum", "-c", "--quiet", str(n["out"] / "MANIFEST.sha256")],
                          cwd=nights["base"] / "reference", capture_output=True, text=True)  # night 1's database
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_night2_planted_bug(millaudit, nights):
    """One bug, one red line (issue 45): the planted bug makes one sector wrong; its parents' values
    move with it and still verify. Every JUnit file fails exactly one case per faulty sector, the
    same sectors the summary and the reports name first; the consequences are reported once, under
    their cause."""
    n = nights[2]
    assert n["proc"].returncode == 1, n["proc"].stdout + n["proc"].stderr
    want = {s["sector"]: s for s in n["verify"]["sectors"] if s["status"] == "discrepancies"}
    assert want and len(want) < len(n["verify"]["sectors"])
    roots = {name for name, s in want.items() if s["roots"] > 0}
    assert roots == set(want)  # this bug makes root discrepancies only, in the sector holding it
    # verify's JUnit: the faulty sectors, each message one line (counts, first root, refuting move)
    cases = junit_util.load(n["out"] / "verify.junit.xml")
    assert junit_util.failing(cases) == roots
    for c in cases:
        if c["name"] in want:
            s = want[c["name"]]
            counts = " ".join(f"{k}={v:,}" for k, v in s["classes"].items() if v)
            first = s["rows"][0]
            assert "\n" not in c["message"] and c["message"].startswith(c["name"] + ": ")
            assert f": {counts}; first root: entry {first['entry']}, position {first['board']}" in c["message"]
            assert f"entry {first['entry']} (offset {first['offset']})" in c["text"]
            assert f"board {first['board']}" in c["text"] and "a b c d e f g" in c["text"]
    # runs regressions: the fault, and the sectors whose values moved only because of it
    store = nights["store"]
    proc = millaudit.run("runs", "regressions", "--audit", store, "--run", 2, check=1)
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", store, "--run", 2, "--json", check=1).stdout)
    assert doc["baseline"]["id"] == 1 and doc["regressed"] and doc["verdict"]["worse"]
    by = {s["sector"]: s for s in doc["sectors"]}
    cmp = json.loads(millaudit.run("runs", "compare", "--audit", store, 1, 2, "--json", check=1).stdout)
    moved = {r["name"] for r in cmp["sectors"] if r["values"] == "differ"}
    consequences = moved - roots
    assert consequences, "the planted bug moves derived values of sectors that still verify"
    assert {name for name, s in by.items() if s["regression"]} == roots | moved
    for name in roots:
        classes = {k: v for k, v in want[name]["classes"].items() if v}
        assert by[name]["run"]["classes"] == classes and by[name]["consequence_of"] == []
        counts = " ".join(f"{k}={v:,}" for k, v in classes.items())
        assert f"REGRESSION  {name}: new discrepancies" in proc.stdout
        assert f"classes: none -> {counts}" in proc.stdout
    for name in consequences:
        assert by[name]["changes"] == ["values-changed"]
        assert set(by[name]["consequence_of"]) <= roots and by[name]["consequence_of"]
        assert f"REGRESSION  {name}:" not in proc.stdout
    assert doc["counts"]["consequences"] == len(consequences)
    # the nightly's own regression files say the same
    assert json.loads((n["out"] / "regressions.json").read_text())["sectors"] == doc["sectors"]
    assert junit_util.failing(junit_util.load(n["out"] / "regressions.junit.xml")) == roots
    # the reference diff: the sectors that differ at the root are the faulty ones
    diff_cases = junit_util.load(n["out"] / "diff.junit.xml")
    assert junit_util.failing(diff_cases) == roots
    # the summary: verdict, faulty sectors with their first root, what changed, reference, next step
    s = n["summary"]
    assert line(s, "verify").startswith("discrepancies found: ")
    names = ", ".join(sorted(roots))
    faulty = next(l for l in s.splitlines() if l.strip().startswith("faulty sectors: "))
    assert faulty.strip().startswith(f"faulty sectors: {sorted(roots)[0]} (")
    # the first root: blocked-not-lost scores a blocked side a draw: no turn refutes it, the rules do
    assert f"first root: {sorted(roots)[0]} entry " in s
    assert "(wrong-terminal): position " in s and "derived loss 0; the side to move has no turn, so it has lost" in s
    assert (f"regressed: {len(roots)} sector{'s' if len(roots) > 1 else ''}: {names} "
            f"(and {len(consequences)} as a consequence)") in s
    assert line(s, "reference").startswith(f"DIFFERS from {nights['base'] / 'reference'} at the root in {names}; ")
    assert line(s, "next step").startswith("millaudit probe ")
    assert line(s, "result") == "exit 1: discrepancies, regressions, values differ from the reference"
    # the reports name the same root sectors first: text, Markdown (within a GitHub comment), HTML, JSON
    report = json.loads((n["out"] / "report.json").read_text())
    assert set(report["verdict"]["root_sectors"]) == roots
    text = (n["out"] / "report.txt").read_text()
    assert text.splitlines()[2].startswith(f"  faulty sectors    {sorted(roots)[0]} (")
    md = (n["out"] / "report.md").read_text()
    assert len(md) <= 65536 and f"**faulty sectors:** {sorted(roots)[0].replace('_', chr(92) + '_')}" in md
    html = (n["out"] / "report.html").read_text()
    assert f"<dt>faulty sectors</dt><dd>{sorted(roots)[0]} (" in html


def test_night3_back_to_clean(millaudit, nights):
    n = nights[3]
    assert n["proc"].returncode == 0, n["proc"].stdout + n["proc"].stderr
    s = n["summary"]
    # not "unchanged": the night fixed what night 2 broke (issue 23), and says which (issue 45)
    improved = len([x for x in json.loads((n["out"] / "regressions.json").read_text())["sectors"] if x["improvement"]])
    assert improved and line(s, "result") == f"exit 0: clean; {improved} sectors fixed or improved since the baseline"
    assert "fixed: the verdict went from discrepancies back to ok" in s
    assert "no regressions" in s
    doc = json.loads((n["out"] / "regressions.json").read_text())
    assert doc["baseline"]["id"] == 2 and not doc["regressed"]
    fixed = {x["sector"] for x in doc["sectors"] if "fixed" in x["changes"]}
    night2_failing = {x["sector"] for x in nights[2]["verify"]["sectors"] if x["status"] == "discrepancies"}
    assert fixed == night2_failing
    assert f"fixed: {len(fixed)} sector{' has' if len(fixed) == 1 else 's have'} no discrepancies any more: " \
           f"{', '.join(sorted(fixed))}" in s
    text = (n["out"] / "report.txt").read_text()
    assert f"FIXED: {', '.join(sorted(fixed))} ha" in text  # the report's verdict box says so too
    assert all(x["improvement"] for x in doc["sectors"])
    assert junit_util.failing(junit_util.load(n["out"] / "verify.junit.xml")) == set()
    assert junit_util.failing(junit_util.load(n["out"] / "regressions.junit.xml")) == set()
    assert line(s, "reference").startswith(f"values agree with {nights['base'] / 'reference'}: ")
    # against night 1, nothing changed at all
    doc = json.loads(millaudit.run("runs", "regressions", "--audit", nights["store"], "--since", 1, "--json",
                                   check=0).stdout)
    assert doc["counts"]["changed"] == 0


def test_history_in_the_html_report(nights):
    html = (nights[3]["out"] / "report.html").read_text()
    assert "http://" not in html and "https://" not in html
    # every night of this database appears with its verdict and discrepancy count
    for night in (1, 2, 3):
        total = nights[night]["verify"]["totals"]["discrepancies"]
        assert f"run {night}" in html.lower() or f">{night}<" in html
        assert f"{total:,}" in html or str(total) in html


def test_solver_failure_keeps_the_database(millaudit, nights, tmp_path):
    store = tmp_path / "h.sqlite"
    db = tmp_path / "db"
    proc = nightly(millaudit, "--solver-cmd", solve_cmd(millaudit.path, 3), "--store", store, "--db", db,
                   "--out", tmp_path / "n1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    before = sorted(p.name for p in db.iterdir())
    proc = nightly(millaudit, "--solver-cmd", "echo solving; echo broken >&2; exit 9", "--store", store, "--db", db,
                   "--out", tmp_path / "n2")
    assert proc.returncode == 6
    assert "solver     FAILED (exit 9)" in proc.stdout and "broken" in proc.stdout
    assert "exit 6" in (tmp_path / "n2" / "summary.txt").read_text()
    assert sorted(p.name for p in db.iterdir()) == before
    assert not (tmp_path / "db.new").exists()
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--json", check=0).stdout)
    assert len(doc["runs"]) == 1  # nothing verified on the failed night
    # the next good night carries every sector over: the bytes are the same
    proc = nightly(millaudit, "--solver-cmd", solve_cmd(millaudit.path, 3), "--store", store, "--db", db,
                   "--out", tmp_path / "n3")
    assert proc.returncode == 0, proc.stdout
    assert "(0 checked, 7 carried over, 0 unusable)" in proc.stdout


def test_existing_database_without_solver(millaudit, nights, tmp_path):
    store = tmp_path / "h.sqlite"
    ref = nights["base"] / "reference"
    proc = nightly(millaudit, "--db", ref, "--store", store, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert line(proc.stdout, "solver") == "none (--db checked as it is)"
    assert (ref / "std_4_4_0_0.mdb").exists()  # never replaced
    # the next nights: everything carried over; a reference is not diffed while nothing moved;
    # --baseline-run compares with the named run instead of the previous one
    proc = nightly(millaudit, "--db", ref, "--store", store, "--out", tmp_path / "out2", "--reference", ref)
    assert proc.returncode == 0, proc.stdout
    assert "(0 checked, 28 carried over, 0 unusable)" in proc.stdout
    assert line(proc.stdout, "reference") == "not run (values unchanged, no discrepancies)"
    assert not (tmp_path / "out2" / "diff.txt").exists()
    proc = nightly(millaudit, "--db", ref, "--store", store, "--out", tmp_path / "out3", "--baseline-run", 1)
    assert proc.returncode == 0, proc.stdout
    assert line(proc.stdout, "baseline").startswith("run 1 (--since)")
    assert line(proc.stdout, "store").endswith(", run 3")


def test_refuses_to_replace_a_directory_it_did_not_create(millaudit, nights, tmp_path):
    db = tmp_path / "mine"
    db.mkdir()
    (db / "keep.txt").write_text("precious")
    proc = nightly(millaudit, "--solver-cmd", "true", "--store", tmp_path / "h.sqlite", "--db", db,
                   "--out", tmp_path / "out")
    assert proc.returncode == 2
    assert "not created by ci/nightly" in proc.stderr
    assert (db / "keep.txt").read_text() == "precious"


def test_busy_store_and_usage(millaudit, nights, tmp_path):
    store = tmp_path / "h.sqlite"
    with open(f"{store}.nightly-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = nightly(millaudit, "--db", nights["base"] / "reference", "--store", store, "--out", tmp_path / "o")
    assert proc.returncode == 7 and "another ci/nightly" in proc.stderr
    assert not store.exists()
    for args, needle in [((), "--store FILE is required"),
                         (("--store", store), "--out DIR is required"),
                         (("--store", store, "--out", tmp_path), "give --solver-cmd CMD or --db DIR"),
                         (("--db", tmp_path, "--store", store, "--out", tmp_path, "--baseline-run", "x"), "not a run id"),
                         (("--bogus",), "unknown argument")]:
        proc = nightly(millaudit, *args)
        assert proc.returncode == 2 and needle in proc.stderr, (args, proc.stderr)
    proc = nightly(millaudit, "--db", tmp_path / "none", "--store", store, "--out", tmp_path / "o")
    assert proc.returncode == 3 and "no such directory" in proc.stderr
    assert subprocess.run([str(NIGHTLY), "--help"], capture_output=True, text=True).stdout.startswith("usage: ci/nightly")


def test_script_is_clean_shell():
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck missing: scripts/install-deps --test installs it"
    proc = subprocess.run([shellcheck, str(NIGHTLY)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def db_digests(db):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(db.iterdir())}


def test_misbehaving_solver_exit_0_keeps_the_database_every_night(millaudit, tmp_path):
    """Night 1 solves; night 2's solver removes $OUT, night 3's leaves a file there, night 4's an
    empty directory, all with exit 0: each is exit 6 and night 1's database stays byte for byte,
    with no DB.old or DB.new beside it; night 5 solves again and carries every sector over."""
    store = tmp_path / "h.sqlite"
    db = tmp_path / "db"
    run = lambda n, cmd: nightly(millaudit, "--solver-cmd", cmd, "--store", store, "--db", db,
                                 "--out", tmp_path / f"n{n}")
    proc = run(1, solve_cmd(millaudit.path, 3))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = db_digests(db)
    assert first
    bad = {2: ('rm -rf "$OUT"', "removed"),
           3: ('rm -rf "$OUT" && echo not-a-database > "$OUT"', "file"),
           4: ("true", "no sector file")}
    for n, (cmd, why) in bad.items():
        proc = run(n, cmd)
        assert proc.returncode == 6, (n, proc.returncode, proc.stdout, proc.stderr)
        assert why in proc.stdout and "exit 6" in (tmp_path / f"n{n}" / "summary.txt").read_text()
        assert db.is_dir() and db_digests(db) == first, n
        assert not (tmp_path / "db.old").exists() and not (tmp_path / "db.new").exists()
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--json", check=0).stdout)
    assert len(doc["runs"]) == 1  # nothing verified on the bad nights
    proc = run(5, solve_cmd(millaudit.path, 3))
    assert proc.returncode == 0, proc.stdout
    assert "(0 checked, 7 carried over, 0 unusable)" in proc.stdout


def test_a_swap_cut_short_is_restored(millaudit, tmp_path):
    """A night killed between the swap's two renames left only DB.old: the next night puts it back
    first, so its files are never removed (the old script ran rm -rf DB.old)."""
    store = tmp_path / "h.sqlite"
    db = tmp_path / "db"
    proc = nightly(millaudit, "--solver-cmd", solve_cmd(millaudit.path, 3), "--store", store, "--db", db,
                   "--out", tmp_path / "n1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = db_digests(db)
    db.rename(tmp_path / "db.old")
    proc = nightly(millaudit, "--solver-cmd", 'rm -rf "$OUT"', "--store", store, "--db", db, "--out", tmp_path / "n2")
    assert proc.returncode == 6
    assert db_digests(db) == first and not (tmp_path / "db.old").exists()
