"""millaudit report: one audit run rendered as text, Markdown, JSON and self-contained HTML, verdict
first.

Stores are made by the real binary (solve, verify --audit, manifest create --audit, diff --audit) on
a small whole game (std, 3 stones). Older stores (no schema v4 columns) and v4 stores are both
rendered: v4 columns are added by hand where this build does not write them yet. The HTML is laid
out by headless Chromium (screenshots must show the verdict and the charts; the page must fit a
1280 px window); bad stores and run ids must fail cleanly under ASan without writing any output.
"""
import hashlib
import html.parser
import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib

import pytest

from conftest import ROOT, skip_unless
from schemas import rejects, validate

INJECT = ROOT / "scripts" / "inject_fault.py"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def bad(millaudit, game, tmp_path_factory):
    """A copy of the game with one planted fault (entry 5 of std_2_2_1_1: a win stored as a loss)."""
    path = tmp_path_factory.mktemp("bad") / "bad"
    shutil.copytree(game, path)
    subprocess.run([sys.executable, str(INJECT), str(path / "std_2_2_1_1.mdb"), "--entry", "5", "--outcome", "loss",
                    "--reseal"], check=True, capture_output=True, env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    return path


@pytest.fixture(scope="module")
def store(millaudit, game, bad, tmp_path_factory):
    """Run 1: clean verify; run 2: manifest of the same files; run 3: verify of the copy with a fault;
    run 4: diff of the game (A) against the faulty copy (B)."""
    base = tmp_path_factory.mktemp("store")
    audit = base / "audit.sqlite"
    millaudit.run("verify", game, "--audit", audit, "--quiet", check=0)
    millaudit.run("manifest", "create", game, "--out", base / "MANIFEST.sha256", "--audit", audit, "--quiet",
                  check=0)
    millaudit.run("verify", bad, "--audit", audit, "--quiet", check=1)
    # the fault was planted after writing (the body digest no longer matches): diff reads it only
    # when told to, as someone inspecting a damaged copy would (docs/format.md §5.1)
    millaudit.run("diff", game, bad, "--audit", audit, "--quiet", "--no-digest-check", check=1)
    return audit


def rows(audit, sql, *args):
    with sqlite3.connect(audit) as db:
        return db.execute(sql, args).fetchall()


def columns(db, table):
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def number(text):
    return int(text.replace(",", ""))


def report(millaudit, store, run, fmt="text"):
    return millaudit.run("report", "--audit", store, "--run", run, "--format", fmt, check=0).stdout


def test_verdict_comes_first_in_every_format(millaudit, store):
    for run, words in ((1, "fully verified: 264,399 entries in 7 sectors"), (3, "discrepancies found: 3"),
                       (4, "values differ: 1 position differs in value")):
        text = report(millaudit, store, run)
        lines = text.splitlines()
        assert lines[0].startswith(f"millaudit report: run {run} (")
        assert lines[1].startswith("verdict: " + words), lines[1]
        md = report(millaudit, store, run, "md")
        assert md.splitlines()[2].startswith("> **Verdict: " + words)
        page = report(millaudit, store, run, "html")
        body = page[page.index("<body>"):]
        assert body.index('id="verdict"') < body.index('id="charts"') < body.index('id="sectors"')
        assert words in page
        doc = json.loads(report(millaudit, store, run, "json"))
        assert list(doc)[:3] == ["schema_version", "format", "verdict"]
        assert doc["verdict"]["headline"].startswith(words)


def test_text_report_names_facts_sectors_and_totals(millaudit, store):
    out = report(millaudit, store, 1)
    (kind, git, host, root, status), = rows(store, "SELECT kind, git_revision, host, database_root, status "
                                                   "FROM runs WHERE id = 1")
    for value in (kind, git, host, root, status):
        assert value in out
    assert "NO MANIFEST" not in out  # verify records the bytes it read
    # the text table fits a terminal: entries, verified, within bounds, discrepancies (checked and
    # the rate are in the Markdown, HTML and JSON reports)
    recorded = rows(store, "SELECT sector, entries, verified, within_bounds, discrepancies "
                           "FROM sector_results WHERE run_id = 1")
    lines = out.splitlines()
    for sector, entries, verified, bounds, disc in recorded:
        line = next(l for l in lines if l.strip().startswith(sector + " "))
        assert [number(x) for x in line.split()[1:5]] == [entries, verified, bounds, disc]
        assert line.endswith("verified")
    total = next(l for l in lines if l.strip().startswith("total "))
    sums = [sum(r[k] for r in recorded) for k in range(1, 5)]
    assert [number(x) for x in total.split()[1:5]] == sums
    table = lines.index(next(l for l in lines if l.startswith("Sectors (")))
    assert all(len(l) <= 100 for l in lines[table:lines.index(total) + 1])


def test_run_without_manifest_is_said_loudly_in_the_appendix(millaudit, store, tmp_path):
    """A run recorded without its bytes (an older build, an imported partial run) says so."""
    old = tmp_path / "old.sqlite"
    shutil.copy(store, old)
    with sqlite3.connect(old) as db:
        for table in ("manifest_chunks", "manifest_files", "manifests"):
            db.execute(f"DELETE FROM {table} WHERE run_id = 1")
    text = report(millaudit, old, 1)
    assert "!!! NO MANIFEST RECORDED" in text
    assert text.index("Appendix A") < text.index("!!! NO MANIFEST") and text.index("Sectors") < text.index("Appendix A")
    assert "**NO MANIFEST RECORDED" in report(millaudit, old, 1, "md")
    assert 'class="banner">NO MANIFEST RECORDED' in report(millaudit, old, 1, "html")


def test_store_without_its_manifest_table_is_refused(millaudit, store, tmp_path):
    """A store at the current schema whose manifests table is gone is damaged, not a run that
    recorded no manifest: report and runs export refuse it naming the store (exit 3) and never
    show its verify run as verified."""
    broken = tmp_path / "broken.sqlite"
    shutil.copy(store, broken)
    with sqlite3.connect(broken) as db:
        db.execute("DROP TABLE manifests")
    for args in (["report", "--audit", broken, "--run", "1"], ["runs", "export", "--audit", broken, "--run", "1"]):
        proc = millaudit.run(*args, check=3)
        assert proc.stdout == ""
        (line,) = proc.stderr.splitlines()
        assert str(broken) in line and "no such table: manifests" in line, line


def test_a_chunk_row_without_its_file_costs_no_other_file_its_chunks(millaudit, store, tmp_path):
    """Run 2 (the manifest) with the file row of its first path deleted, its chunk rows left: the
    export lists the other files with every chunk the store holds for them, as before."""
    def files(audit):
        doc = json.loads(millaudit.run("runs", "export", "--audit", audit, "--run", "2", check=0).stdout)
        return {f["path"]: f["chunks"] for f in doc["manifest"]["files"]}
    before = files(store)
    first = min(before)
    assert len(before) >= 2 and all(before.values())
    orphan = tmp_path / "orphan.sqlite"
    shutil.copy(store, orphan)
    with sqlite3.connect(orphan) as db:
        db.execute("DELETE FROM manifest_files WHERE run_id = 2 AND path = ?", (first,))
    del before[first]
    assert files(orphan) == before


def test_default_is_the_latest_run(millaudit, store):
    latest = millaudit.run("report", "--audit", store, check=0).stdout
    assert latest.startswith("millaudit report: run 4 (diff)\n")


def test_manifest_run_lists_every_file_with_its_sha256(millaudit, store, game):
    out = report(millaudit, store, 2)
    assert out.splitlines()[1].startswith("verdict: manifest recorded: 7 files, ")
    assert "NO MANIFEST" not in out
    files = sorted(p.name for p in game.glob("*.mdb"))
    assert files
    for name in files:
        digest = hashlib.sha256((game / name).read_bytes()).hexdigest()
        assert any(l.split()[:1] == [digest] and name in l.split() for l in out.splitlines()), name


def test_discrepancies_are_drawn_as_boards_with_hands(millaudit, store):
    out = report(millaudit, store, 3)
    recorded = rows(store, "SELECT sector, entry, board, class FROM discrepancies WHERE run_id = 3")
    assert recorded
    sector, entry, board, cls = next(r for r in recorded if r[1] == 5)
    head = f"{sector} entry {entry}"
    assert re.search(rf"{head}( \(offset \d+\))?: {cls}", out)
    block = out[out.index(head, out.index("\nDiscrepancies")):].splitlines()
    assert "X to move; stones in hand: X 1, O 1" in block[2]  # std_2_2_1_1: one stone in hand each
    board_lines = [l for l in block[3:22] if re.match(r"\s+[1-7] ", l)]
    mover, opponent = board.split("/")
    drawn = {}
    for line in board_lines[:7]:
        text = line.strip()
        rank = text[0]
        for k, ch in enumerate(text[2:]):
            if ch in "XO+" and k % 2 == 0:
                drawn["abcdefg"[k // 2] + rank] = ch
    assert len(drawn) == 24
    assert {p for p, c in drawn.items() if c == "X"} == set(mover.split(","))
    assert {p for p, c in drawn.items() if c == "O"} == set(opponent.split(","))
    assert "  a b c d e f g" in out


def test_depth_histogram_is_sorted_by_depth(millaudit, store):
    out = report(millaudit, store, 1)
    section = out[out.index("Outcomes by depth"):out.index("Appendix A")]
    wins = section[section.index("wins by depth"):section.index("losses by depth")]
    depths = [int(l.split()[0]) for l in wins.splitlines()[1:] if l.strip()]
    assert depths == sorted(depths) and len(depths) > 5
    counts = {int(l.split()[0]): number(l.split()[1]) for l in wins.splitlines()[1:] if l.strip()}
    recorded = dict(rows(store, "SELECT depth, sum(count) FROM sector_histograms WHERE run_id = 1 AND outcome = 'win' "
                                "GROUP BY depth"))
    assert counts == recorded


def test_markdown_report(millaudit, store):
    out = report(millaudit, store, 3, "md")
    assert out.startswith("# millaudit report: run 3 (verify)\n")
    assert "## Appendix A: manifest of the bytes checked" in out and "NO MANIFEST RECORDED" not in out
    assert "| std\\_2\\_2\\_1\\_1 | 6,930 | 6,930 | 6,929 |" in out
    assert "| **total** | 264,399 | 264,399 | 264,396 |" in out
    assert out.count("```") % 2 == 0 and "```\n7 +-----+-----+" in out


def test_json_report_matches_the_store_and_its_schema(millaudit, store):
    for run in (1, 2, 3, 4):
        validate(json.loads(report(millaudit, store, run, "json")), "report")
    doc = json.loads(report(millaudit, store, 3, "json"))
    assert doc["format"] == "millaudit-report" and doc["schema_version"] == 3
    assert doc["run"]["id"] == 3 and doc["run"]["recorded_status"] == "discrepancies"
    assert doc["verdict"]["state"] == "discrepancies" and doc["verdict"]["good"] is False
    stored = dict(rows(store, "SELECT sector, discrepancies FROM sector_results WHERE run_id = 3"))
    assert {s["sector"]: s["discrepancies"] for s in doc["sectors"]} == stored
    assert doc["totals"]["discrepancies"] == sum(stored.values())
    assert len(doc["discrepancies"]) == rows(store, "SELECT count(*) FROM discrepancies WHERE run_id = 3")[0][0]
    row = next(d for d in doc["discrepancies"] if d["entry"] == 5)
    # data, not display strings: the planted loss and the win the checker derives
    assert row["stored"]["outcome"] == "loss" and isinstance(row["stored"]["depth"], int)
    assert row["derived"]["outcome"] == "win" and row["derived"]["depth"] == 1
    assert row["mover_in_hand"] == 1 and row["opponent_in_hand"] == 1
    # the schema is not vacuous
    broken = json.loads(json.dumps(doc))
    broken["discrepancies"][0]["stored"]["depth"] = "loss 4 (0x4004)"
    assert rejects(broken, "report")
    del broken["verdict"]
    assert rejects(broken, "report")


def test_diff_report_speaks_of_a_and_b(millaudit, store, game, bad):
    for fmt in ("text", "md", "html"):
        out = report(millaudit, store, 4, fmt)
        assert "A says" in out and "B says" in out
        for verify_word in ("stored ", "derived", "within bounds", "NO MANIFEST", "refut"):
            assert verify_word not in out, (fmt, verify_word)
        assert str(game) in out
    page = report(millaudit, store, 4, "html")
    proof = page[page.index('data-chart="proof"'):]
    proof = proof[:proof.index("</figure>")]
    assert "Sectors that differ in value first, marked red at the left." in proof
    assert "discrepanc" not in proof  # a diff has differences; discrepancies are verify's
    text = report(millaudit, store, 4)
    # B is named: the diff of this build does not record it, the report finds it in the store
    b_line = next(l for l in text.splitlines() if l.strip().startswith("B "))
    assert str(bad) in b_line
    doc = validate(json.loads(report(millaudit, store, 4, "json")), "report")
    assert doc["verdict"]["state"] == "values-differ"
    assert doc["run"]["side_b"] == str(bad)
    assert all("a" in d and "b" in d and "stored" not in d for d in doc["discrepancies"])


def make_v4(path, run, carried=None):
    """Adds the schema v4 columns where the store lacks them (a build before the run engine) and fills
    them for run as the run engine would: roots/propagated, refuting moves, a carried-over sector."""
    with sqlite3.connect(path) as db:
        for table, cols in (("runs", ("mode TEXT", "resumed_from INTEGER", "options TEXT")),
                            ("sector_results", ("carried_from INTEGER", "format TEXT", "canonical INTEGER",
                                                "markers INTEGER", "roots INTEGER", "propagated INTEGER",
                                                "missing_child INTEGER", "unverifiable INTEGER", "bound_wins INTEGER")),
                            ("discrepancies", ("root INTEGER", "offset INTEGER", "move TEXT", "successor TEXT",
                                               "stored_outcome TEXT", "stored_depth INTEGER", "derived_outcome TEXT",
                                               "derived_depth INTEGER", "derived_bound TEXT"))):
            have = columns(db, table)
            for col in cols:
                if col.split()[0] not in have:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {col}")
        db.execute("UPDATE runs SET mode = 'incremental', options = '{\"threads\": 2}' WHERE id = ?", (run,))
        db.execute("UPDATE sector_results SET format = 'open', roots = 0, propagated = 0, missing_child = 0, "
                   "unverifiable = 0 WHERE run_id = ?", (run,))
        db.execute("UPDATE sector_results SET roots = 1, propagated = 0 WHERE run_id = ? AND sector = 'std_2_2_1_1'",
                   (run,))
        db.execute("UPDATE sector_results SET roots = 0, propagated = 2 WHERE run_id = ? AND sector = 'std_1_2_2_1'",
                   (run,))
        db.execute("UPDATE discrepancies SET root = (sector = 'std_2_2_1_1'), offset = 128 + 2 * entry, "
                   "stored_outcome = 'loss', stored_depth = 2, derived_outcome = 'win', derived_depth = 1, "
                   "derived_bound = 'exact' WHERE run_id = ?", (run,))
        db.execute("UPDATE discrepancies SET move = 'd2-d1', successor = 'd1,f2/a1' WHERE run_id = ? AND entry = 5",
                   (run,))
        if carried:
            db.execute("UPDATE sector_results SET carried_from = ? WHERE run_id = ? AND sector = 'std_3_3_0_0'",
                       (carried, run))


def test_v4_store_shows_roots_moves_and_carried_sectors(millaudit, store, tmp_path):
    v4 = tmp_path / "v4.sqlite"
    shutil.copy(store, v4)
    make_v4(v4, 3, carried=1)
    text = report(millaudit, v4, 3)
    assert text.splitlines()[1] == "verdict: discrepancies found: 3 (1 root, 2 propagated)"
    assert re.search(r"std_2_2_1_1 entry 5 \(offset 138\): wrong-terminal \(root\)", text)
    assert "refuted by d2-d1 (successor d1,f2/a1)" in text
    assert "(propagated)" in text
    assert "mode               incremental" in text
    line = next(l for l in text.splitlines() if l.strip().startswith("std_3_3_0_0 "))
    assert line.endswith("(carried over from run 1)")
    page = report(millaudit, v4, 3, "html")
    assert "carried over from run 1" in page
    assert '<span class="root">root</span>' in page and "refuted by <code>d2-d1</code>" in page
    assert '<g class="move">' in page and "<polygon points=" in page  # the arrow of the refuting move
    doc = validate(json.loads(report(millaudit, v4, 3, "json")), "report")
    sec = {s["sector"]: s for s in doc["sectors"]}
    assert sec["std_3_3_0_0"]["carried_from"] == 1 and sec["std_2_3_1_0"]["carried_from"] is None
    assert doc["totals"]["roots"] == 1 and doc["totals"]["propagated"] == 2
    assert doc["run"]["mode"] == "incremental" and doc["run"]["options"] == {"threads": 2}
    row = next(d for d in doc["discrepancies"] if d["entry"] == 5)
    assert row["root"] is True and row["offset"] == 138 and row["move"] == "d2-d1"
    assert row["derived"] == {"outcome": "win", "depth": 1, "bound": "exact", "text": row["derived"]["text"]}


def test_older_store_without_v4_columns_degrades_gracefully(millaudit, store, tmp_path):
    """A store written before schema v4: the columns are dropped and the version set back to 3, as an
    older build left it; report migrates it (the columns come back NULL for the old rows) and says
    what was not recorded instead of inventing zeros."""
    old = tmp_path / "old.sqlite"
    shutil.copy(store, old)
    with sqlite3.connect(old) as db:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for table, cols in (("runs", ("mode", "resumed_from", "options")),
                            ("sector_results", ("carried_from", "format", "canonical", "markers", "roots",
                                                "propagated", "missing_child", "unverifiable", "bound_wins")),
                            ("discrepancies", ("root", "offset", "move", "successor", "stored_outcome",
                                               "stored_depth", "derived_outcome", "derived_depth", "derived_bound"))):
            for col in cols:
                if col in columns(db, table):
                    db.execute(f"ALTER TABLE {table} DROP COLUMN {col}")
        db.execute(f"PRAGMA user_version = {min(version, 3)}")
    text = report(millaudit, old, 3)
    assert text.splitlines()[1] == "verdict: discrepancies found: 3 (roots and propagated not recorded by the build that ran it)"
    assert "refuting move not recorded by the build that ran it" in text
    doc = validate(json.loads(report(millaudit, old, 3, "json")), "report")
    assert doc["totals"]["roots"] is None and doc["run"]["mode"] is None
    assert all(d["root"] is None and d["move"] is None for d in doc["discrepancies"])
    assert all(d["stored"]["outcome"] == "loss" for d in doc["discrepancies"])  # parsed from the recorded text
    assert "not classified by the build that ran it" in report(millaudit, old, 3, "html")


def bounds_only_store(src, dst):
    """Run 1 rewritten as a build before the run engine recorded a Malom --allow-bounds run: some
    entries only within bounds, sector status 'incomplete', run status 'ok'."""
    shutil.copy(src, dst)
    with sqlite3.connect(dst) as db:
        db.execute("UPDATE sector_results SET verified = verified - 1000, within_bounds = 1000, status = 'incomplete',"
                   " message = 'missing-child: std_4_3_0_0.sec2 absent; 1000 entries only within bounds'"
                   " WHERE run_id = 1 AND sector IN ('std_3_3_0_0', 'std_2_3_1_0')")
        db.execute("UPDATE runs SET status = 'ok' WHERE id = 1")


def assert_never_ok(millaudit, store, run, unproven):
    text = report(millaudit, store, run)
    assert text.splitlines()[1] == f"verdict: verified within bounds only ({unproven} entries unproven)"
    assert "fully verified:" not in text
    # the verdict block never calls the run ok (it may quote the status an older build recorded)
    assert not re.search(r"(?<!')\bok\b(?!')", text.split("\nRun\n")[0])
    sectors = text[text.index("\nSectors ("):text.index("\nDiscrepancies, ")]
    for line in sectors.splitlines():
        if re.match(r"  \S+_\d+_\d+_\d+_\d+ ", line) and " within bounds only" not in line:
            assert line.endswith(" verified"), line
    md = report(millaudit, store, run, "md")
    assert f"> **Verdict: verified within bounds only ({unproven} entries unproven)**" in md
    page = report(millaudit, store, run, "html")
    assert 'class="verdict warn" data-state="within-bounds"' in page
    assert 'class="verdict good"' not in page and 'st good">within' not in page
    doc = validate(json.loads(report(millaudit, store, run, "json")), "report")
    assert doc["verdict"]["state"] == "within-bounds" and doc["verdict"]["good"] is False
    assert doc["verdict"]["within_bounds_only"] is True
    assert all(s["state"] != "verified" for s in doc["sectors"] if s["within_bounds"])


def test_bounds_only_run_is_never_ok(millaudit, store, tmp_path):
    old = tmp_path / "bounds.sqlite"
    bounds_only_store(store, old)
    assert_never_ok(millaudit, old, 1, "2,000")


@pytest.fixture(scope="module")
def malom_bounds(millaudit, malom_fixtures, tmp_path_factory):
    """verify --allow-bounds of the Malom excerpt, whose children are partly absent."""
    audit = tmp_path_factory.mktemp("malom") / "a.sqlite"
    millaudit.run("verify", malom_fixtures / "original-excerpt", "--allow-bounds", "--audit", audit, "--quiet")
    return audit


def test_malom_bounds_run_is_never_ok(millaudit, malom_bounds):
    (within,), = rows(malom_bounds, "SELECT sum(within_bounds) FROM sector_results")
    assert within > 0
    assert_never_ok(millaudit, malom_bounds, 1, f"{within:,}")


def test_malom_bounds_run_renders_with_charts_in_chromium(millaudit, malom_bounds, tmp_path):
    """Malom runs are charted like open ones; the banner is amber, never green."""
    page = tmp_path / "a.html"
    text = render_html(millaudit, malom_bounds, 1, page)
    for chart in ("proof", "time"):
        assert f'data-chart="{chart}"><figcaption>' in text
    width, height, bpp, lines = screenshot(page, tmp_path / "a.png", tmp_path / "profile")
    assert count_colour(lines, bpp, hexrgb("#fff8e1"), 0, 260) > 20000, "no amber verdict banner"
    assert count_colour(lines, bpp, hexrgb("#e8f5e9"), 0, 260) < 2000, "a green banner on a bounds-only run"
    assert count_colour(lines, bpp, hexrgb("#f9a825"), 260) > 2000, "no within-bounds segments in the chart"
    assert count_colour(lines, bpp, hexrgb("#2e7d32"), 260) > 2000, "no verified segments in the chart"


def test_body_digest_mismatch_is_damage(millaudit, game, tmp_path):
    """An open file whose body no longer hashes to its header's digest (bytes 80..111) is damaged
    (docs/download.md): never "verified", never a discrepancy of the solver, listed first."""
    db = tmp_path / "db"
    shutil.copytree(game, db)
    path = db / "std_2_3_1_0.mdb"
    data = bytearray(path.read_bytes())
    data[80:112] = hashlib.sha256(b"something else").digest()
    path.write_bytes(bytes(data))
    audit = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", audit, "--quiet", check=3)
    text = report(millaudit, audit, 1)
    assert text.splitlines()[1] == ("verdict: damaged: 1 file differs from what its producer wrote; the other 5 "
                                    "sectors verified; 1 sector not checked (it reads a damaged file)")
    doc = validate(json.loads(report(millaudit, audit, 1, "json")), "report")
    assert doc["totals"]["body_digest_mismatches"] == 1 and doc["verdict"]["good"] is False
    assert doc["totals"]["discrepancies"] == 0
    assert doc["integrity"]["damaged"][0]["kind"] == "body-digest-mismatch"
    assert {s["sector"]: s["recorded_status"] for s in doc["sectors"]}["std_2_3_1_0"] == "damaged"


class _Checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "circle", "rect", "path", "line", "polygon"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, value in attrs:
            if name.startswith("on") or (value and "javascript:" in value):
                self.errors.append(f"active attribute {name}")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unbalanced </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


def render_html(millaudit, store, run, path):
    millaudit.run("report", "--audit", store, "--run", run, "--format", "html", "--out", path, check=0)
    return path.read_text(encoding="utf-8")


CHARTS = ("proof", "wdl", "depths", "time", "map", "history")


@pytest.mark.parametrize("run", [1, 2, 3, 4])
def test_html_is_self_contained_and_well_formed(millaudit, store, tmp_path, run):
    text = render_html(millaudit, store, run, tmp_path / "r.html")
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text and "<link" not in text and "src=" not in text and "url(" not in text
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    assert {"html", "style", "table"} <= checker.tags
    if run != 2:  # a manifest run has no sectors to chart
        assert "svg" in checker.tags
    for chart in CHARTS:
        # a diff records no outcome histogram: no empty W/D/L panel (issue 23)
        assert (f'data-chart="{chart}"' in text) == (run != 4 or chart != "wdl"), chart
    if run == 3:
        assert text.count('<svg class="board"') == rows(store, "SELECT count(*) FROM discrepancies WHERE run_id = 3")[0][0]
        for chart in ("proof", "wdl", "depths", "time", "map"):  # drawn, not the "not recorded" note
            assert f'data-chart="{chart}"><figcaption>' in text


def test_history_lists_the_runs_of_the_same_root(millaudit, store, bad, tmp_path):
    hist = tmp_path / "h.sqlite"
    shutil.copy(store, hist)
    millaudit.run("verify", bad, "--audit", hist, "--quiet", check=1)  # run 5: the same root as run 3
    text = report(millaudit, hist, 5)
    section = text[text.index("History of this database root"):text.index("Appendix A")]
    ids = [int(l.split()[0].rstrip("*")) for l in section.splitlines()[2:] if re.match(r"\s+\d+\*? ", l)]
    assert ids == [3, 5]
    assert re.match(r"\s+5\* 20\d\d-\d\d-\d\d \d\d:\d\d UTC ", section.splitlines()[3])  # this run, starred
    assert all(len(l) <= 100 for l in section.splitlines())
    page = report(millaudit, hist, 5, "html")
    assert 'data-chart="history"><figcaption>' in page
    doc = validate(json.loads(report(millaudit, hist, 5, "json")), "report")
    assert [h["id"] for h in doc["history"]] == [3, 5]
    assert all(h["state"] == "discrepancies" for h in doc["history"])


HOSTILE = "\x1b[2J<script>alert(1)</script>|*_[x](y)`\\\n<img src=x onerror=alert(2)>"


def test_every_store_string_is_escaped(millaudit, store, tmp_path):
    """Every TEXT column of every table a report reads holds a hostile string: no format lets it
    through (issue 9: run_imports.imported_at was printed raw)."""
    evil = tmp_path / "evil.sqlite"
    shutil.copy(store, evil)
    doc = tmp_path / "run.json"
    millaudit.run("runs", "export", "--audit", store, "--run", 3, "--out", doc, check=0)
    millaudit.run("runs", "import", "--audit", evil, doc, check=0)  # run 5, with a run_imports row
    make_v4(evil, 5)
    with sqlite3.connect(evil) as db:
        db.execute("PRAGMA foreign_keys = OFF")  # keys are rewritten too
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for cid, name, ctype, notnull, default, pk in db.execute(f"PRAGMA table_info({table})").fetchall():
                if ctype.upper() != "TEXT" or pk or name in ("sector", "path", "kind", "class", "outcome"):
                    continue
                db.execute(f"UPDATE {table} SET {name} = ? || coalesce({name}, '')", (HOSTILE,))
        db.execute("UPDATE runs SET kind = 'verify' || ? WHERE id = 5", (HOSTILE,))
    for fmt in ("text", "md", "html", "json"):
        out = millaudit.run("report", "--audit", evil, "--run", 5, "--format", fmt, check=0).stdout
        assert "\x1b" not in out, fmt
        if fmt == "json":
            doc = json.loads(out)  # garbage in enum-like columns may break the schema, never the syntax
            assert HOSTILE in doc["run"]["host"]
            continue
        if fmt in ("md", "html"):
            assert "<script" not in out and "<img" not in out, fmt
        if fmt == "md":  # a cell stays a cell
            for line in out.splitlines():
                if line.startswith("| ") and "HOSTILE" not in line:
                    assert "|*_[x]" not in line
        if fmt == "text":
            assert "?[2J<script>" in out  # shown, neutralised
            assert not any(l.startswith("<img") for l in out.splitlines())


def _png_pixels(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes) with zlib and struct."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows_out = []
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows_out.append(bytes(line))
        prev = line
    return width, height, bpp, rows_out


def chromium():
    path = shutil.which("chromium")
    skip_unless(path, "chromium not installed (scripts/install-deps --test installs it): HTML not laid out")
    return path


def screenshot(page, shot, profile, size="1280,1400"):
    subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                    f"--window-size={size}", page.as_uri()], capture_output=True, timeout=180)
    assert shot.exists(), "chromium wrote no screenshot"
    return _png_pixels(shot)


def count_colour(lines, bpp, rgb, y0=0, y1=None, tol=12):
    n = 0
    for line in lines[y0:y1]:
        for i in range(0, len(line), bpp):
            if all(abs(line[i + k] - rgb[k]) <= tol for k in range(3)):
                n += 1
    return n


def hexrgb(h):
    return tuple(int(h[i:i + 2], 16) for i in (1, 3, 5))


@pytest.mark.parametrize("run,banner", [(1, "#e8f5e9"), (3, "#ffebee"), (4, "#ffebee")])
def test_html_renders_in_headless_chromium(millaudit, store, tmp_path, run, banner):
    """Laid out by a browser: the verdict banner in its colour at the top, the chart bars drawn."""
    page = tmp_path / "r.html"
    render_html(millaudit, store, run, page)
    width, height, bpp, lines = screenshot(page, tmp_path / "shot.png", tmp_path / "profile")
    assert (width, height) == (1280, 1400)
    coloured = sum(1 for line in lines for i in range(0, len(line), bpp * 4)
                   if line[i] < 200 or line[i + 1] < 200 or line[i + 2] < 200)
    assert coloured > 2000, f"only {coloured} sampled non-white pixels: the page looks blank"
    assert count_colour(lines, bpp, hexrgb(banner), 0, 260) > 20000, "no verdict banner at the top"
    green = count_colour(lines, bpp, hexrgb("#2e7d32"), 260)  # verified / agree bars
    assert green > 3000, "no chart bars"
    if run != 4:
        assert count_colour(lines, bpp, hexrgb("#1565c0"), 260) > 1000  # wins in the W/D/L and depth charts


def test_html_fits_a_1280_pixel_window(millaudit, store, tmp_path):
    """Chromium lays the page out at 1280 px and reports the document's width (a copy of the page with
    a measuring script; the report itself has none)."""
    chromium()
    for run in (1, 3, 4):
        text = render_html(millaudit, store, run, tmp_path / "r.html")
        probe = tmp_path / f"probe{run}.html"
        probe.write_text(text.replace("</body>", "<script>document.title = 'W=' + "
                                                   "document.documentElement.scrollWidth + ' T=' + "
                                                   "document.querySelector('table.sectors').scrollWidth;</script></body>"))
        proc = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'p'}", "--dump-dom",
                               "--window-size=1280,900", probe.as_uri()], capture_output=True, text=True, timeout=180)
        m = re.search(r"<title>W=(\d+) T=(\d+)</title>", proc.stdout)
        assert m, proc.stdout[:500] + proc.stderr[-500:]
        assert int(m.group(1)) <= 1280 and int(m.group(2)) <= 1240, m.group(0)


def test_out_replaces_a_file_atomically_and_refuses_a_missing_directory(millaudit, store, tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("old\n")
    millaudit.run("report", "--audit", store, "--out", target, check=0)
    assert target.read_text().startswith("millaudit report: run 4")
    proc = millaudit.run("report", "--audit", store, "--out", tmp_path / "nope" / "r.txt", check=4)
    assert proc.stderr.count("\n") == 1 and "nope/r.txt" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


def snapshot(path):
    return path.read_bytes() if path.exists() else None


@pytest.mark.parametrize("case", ["missing", "not-sqlite", "corrupt", "foreign", "unknown-run", "no-runs"])
def test_bad_stores_fail_cleanly_and_write_nothing(millaudit_asan, store, tmp_path, case):
    path = tmp_path / "s.sqlite"
    run = []
    if case == "not-sqlite":
        path.write_bytes(b"this is not a database\n" * 10)
    elif case == "corrupt":
        shutil.copy(store, path)
        data = bytearray(path.read_bytes())
        data[100:4096] = b"\xff" * (4096 - 100)
        path.write_bytes(bytes(data))
    elif case == "foreign":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, what TEXT)")
            db.execute("INSERT INTO runs (what) VALUES ('x')")
    elif case == "unknown-run":
        shutil.copy(store, path)
        run = ["--run", 99]
    elif case == "no-runs":
        shutil.copy(store, path)
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA foreign_keys = ON")
            db.execute("DELETE FROM runs")
    before = snapshot(path)
    out = tmp_path / "r.html"
    proc = millaudit_asan.run("report", "--audit", path, *run, "--format", "html", "--out", out)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == "" and proc.stderr.startswith("millaudit report: ") and proc.stderr.count("\n") == 1
    assert str(path) in proc.stderr
    assert not out.exists() and [p.name for p in tmp_path.iterdir() if "tmp" in p.name] == []
    assert snapshot(path) == before
    if case == "unknown-run":
        assert "run 99 does not exist" in proc.stderr
    if case == "no-runs":
        assert "holds no run" in proc.stderr


@pytest.mark.parametrize("fmt", ["text", "md", "json", "html"])
def test_every_run_renders_under_asan(millaudit_asan, store, fmt):
    for run in (1, 2, 3, 4):
        proc = millaudit_asan.run("report", "--audit", store, "--run", run, "--format", fmt)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr[-2000:]


def test_usage_errors(millaudit_asan, store):
    assert millaudit_asan.run("report").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "--format", "pdf").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "--run", "x").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "extra").returncode == 2
    assert "usage: millaudit report" in millaudit_asan.run("report", "--help", check=0).stdout


@pytest.mark.parametrize("run,status", [(1, 0), (2, 0), (3, 1), (4, 1)])
def test_check_exits_by_the_verdict(millaudit, store, run, status):
    """report --check (issue 23): a script reading a stored run gets verify's exit status for it,
    and the report is still printed; without --check a rendered report exits 0."""
    proc = millaudit.run("report", "--audit", store, "--run", run, "--check", check=status)
    assert proc.stdout.startswith(f"millaudit report: run {run} ")
    millaudit.run("report", "--audit", store, "--run", run, check=0)


def test_check_of_an_incomplete_run_is_3(millaudit, tmp_path):
    (tmp_path / "empty").mkdir()
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", tmp_path / "empty", "--audit", store, "--quiet", check=3)
    proc = millaudit.run("report", "--audit", store, "--check", check=3)
    assert "incomplete" in proc.stdout.splitlines()[1]
