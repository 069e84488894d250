"""The report a solver developer reads (issue 45): the verdict box leads to the fault (the faulty
sectors, the first root position with its refuting move, what changed since the previous night, the
next step), in every format; a night that fixes the fault says so; rows are capped per sector with
the command that lists the rest (report --sector); Markdown fits 65,536 characters whatever the
run; the discrepancy map counts totals, never the capped rows; dates are readable.

Three runs of one database (the 3-stone game): clean, one entry of std_3_3_0_0 made a draw (its
parent sector std_2_3_1_0 then holds propagated discrepancies only), clean again. Stores far larger
than any test could verify are made from it by adding rows with sqlite3."""
import html
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT
from schemas import validate

INJECT = ROOT / "scripts" / "inject_fault.py"
ROOT_SECTOR, CONSEQUENCE = "std_3_3_0_0", "std_2_3_1_0"
MD_MAX = 65536


@pytest.fixture(scope="module")
def nights(millaudit, tmp_path_factory):
    base = tmp_path_factory.mktemp("box")
    good, db, store = base / "good", base / "db", base / "audit.sqlite"
    millaudit.run("solve", "--stones", 3, "--out", good, "--quiet", check=0)
    shutil.copytree(good, db)
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)  # run 1
    subprocess.run([sys.executable, str(INJECT), str(db / f"{ROOT_SECTOR}.mdb"), "--entry", "5", "--outcome", "draw",
                    "--reseal"], check=True, capture_output=True,
                   env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    millaudit.run("verify", db, "--audit", store, "--quiet", "--max-rows", 2, check=1)  # run 2: rows capped
    shutil.copy(good / f"{ROOT_SECTOR}.mdb", db)
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)  # run 3: fixed
    return {"db": db, "store": store, "base": base}


def report(millaudit, store, run, fmt="text", *more, check=0):
    return millaudit.run("report", "--audit", store, "--run", run, "--format", fmt, *more, check=check).stdout


def box(text):
    """The verdict box of a text report: label -> line."""
    out = {}
    for line in text.splitlines()[2:]:
        m = re.match(r"  (faulty sectors|as a consequence|first root|what changed|next step) +(.*)", line)
        if not m:
            break
        out[m.group(1)] = m.group(2)
    return out


def test_the_box_leads_to_the_fault_in_every_format(millaudit, nights):
    store = nights["store"]
    b = box(report(millaudit, store, 2))
    assert b["faulty sectors"] == f"{ROOT_SECTOR} (1 root)"
    assert b["as a consequence"] == f"1 sector has propagated discrepancies only as a consequence of {ROOT_SECTOR}"
    first = re.fullmatch(rf"{ROOT_SECTOR} entry 5 \(wrong-outcome\): position (\S+) \(in hand X 0, O 0\): "
                         r"stored draw \(0x8000\), derived win 15, refuted by (\S+)", b["first root"])
    assert first, b["first root"]
    assert re.fullmatch(rf"since run 1 \(\d{{4}}-\d\d-\d\d \d\d:\d\d UTC, verified\): a new fault: {ROOT_SECTOR}; "
                        r"1 sector changed only as a consequence; verdict verified -> discrepancies \(worse\)",
                        b["what changed"]), b["what changed"]
    board = first.group(1)
    assert b["next step"].startswith(f"millaudit probe {nights['db']} '{board} wf=0 bf=0' shows every turn")
    assert f"millaudit report --audit {store} --run 2 --sector {ROOT_SECTOR} lists the rows" in b["next step"]
    # the same lines in Markdown, HTML and JSON
    md = report(millaudit, store, 2, "md")
    esc = lambda s: s.replace("_", "\\_")  # noqa: E731
    assert f"> - **faulty sectors:** {esc(ROOT_SECTOR)} (1 root)\n" in md
    assert f"> - **first root:** {esc(ROOT_SECTOR)} entry 5 (wrong-outcome)" in md
    page = report(millaudit, store, 2, "html")
    assert f"<dt>faulty sectors</dt><dd>{ROOT_SECTOR} (1 root)</dd>" in page
    dd = re.search(r"<dt>next step</dt><dd>(.*?)</dd>", page).group(1)
    steps = re.findall(r"<div>(.*?)</div>", dd)  # one step a line, each command as code
    assert steps[0].startswith("<code>millaudit probe ") and steps[1].startswith("<code>millaudit report ")
    assert html.unescape("; ".join(re.sub(r"</?code>", "", s) for s in steps)) == b["next step"]
    doc = validate(json.loads(report(millaudit, store, 2, "json")), "report")
    v = doc["verdict"]
    assert v["root_sectors"] == [ROOT_SECTOR]
    assert v["box"] == {"faulty_sectors": b["faulty sectors"], "consequences": b["as a consequence"],
                        "first_root": b["first root"], "changed": b["what changed"], "next_step": b["next step"]}
    assert v["since"]["run"] == 1 and v["since"]["faults"] == 1 and v["since"]["consequences"] == 1
    sec = {s["sector"]: s for s in doc["sectors"]}
    assert sec[CONSEQUENCE]["consequence_of"] == [ROOT_SECTOR] and sec[ROOT_SECTOR]["consequence_of"] == []


def test_a_night_that_fixes_the_fault_says_so(millaudit, nights):
    store = nights["store"]
    text = report(millaudit, store, 3)
    assert text.splitlines()[1].startswith("verdict: fully verified: ")
    assert list(box(text)) == ["what changed"]
    assert re.fullmatch(rf"since run 2 \(\d{{4}}-\d\d-\d\d \d\d:\d\d UTC, discrepancies\): FIXED: {ROOT_SECTOR} has no "
                        r"discrepancy any more, nor 1 sector that was wrong only as a consequence; verdict "
                        r"discrepancies -> verified \(better\)", box(text)["what changed"])
    doc = validate(json.loads(report(millaudit, store, 3, "json")), "report")
    s = doc["verdict"]["since"]
    assert (s["fixed"], s["fixed_consequences"], s["follows"], s["faults"]) == (2, 1, 1, 0)
    assert "FIXED: " in report(millaudit, store, 3, "html")
    # runs regressions says it the same way: the fix first, what followed it under it
    out = millaudit.run("runs", "regressions", "--audit", store, "--run", 3, check=0).stdout
    assert f"fixed: 2 sectors have no discrepancies any more: {ROOT_SECTOR} (and 1 sector wrong only as a " \
           "consequence)\n" in out
    assert f"follows     1 sector improved as a consequence of the fix of {ROOT_SECTOR}: {CONSEQUENCE}\n" in out
    assert out.index(f"improved    {ROOT_SECTOR}: fixed") < out.index("follows ")


def add_rows(store, run, sector, n, dst):
    """A copy of store where sector holds n more root rows of run (entries 1000.. of it)."""
    shutil.copy(store, dst)
    with sqlite3.connect(dst) as db:
        for e in range(1000, 1000 + n):
            db.execute("INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class, root, offset,"
                       " move, stored_outcome, stored_depth, derived_outcome, derived_depth, derived_bound) VALUES"
                       " (?, ?, ?, 'a1,d1,g1/b2,f2,d3', 'draw', 'win 3', 'wrong-outcome', 1, ?, 'd1-d2', 'draw',"
                       " NULL, 'win', 3, 'exact')", (run, sector, e, 128 + 2 * e))
        db.execute("UPDATE sector_results SET discrepancies = discrepancies + ?, roots = roots + ?, verified ="
                   " verified - ? WHERE run_id = ? AND sector = ?", (n + 5, n + 5, n + 5, run, sector))
    return dst


def test_rows_are_capped_per_sector_and_report_sector_lists_them(millaudit, nights, tmp_path):
    many = add_rows(nights["store"], 2, ROOT_SECTOR, 25, tmp_path / "many.sqlite")
    text = report(millaudit, many, 2)
    part = text[text.index(f"  {ROOT_SECTOR}: "):text.index(f"  {CONSEQUENCE}: ")]
    assert part.startswith(f"  {ROOT_SECTOR}: 33 discrepancies, 27 rows recorded\n")
    assert len(re.findall(rf"^    {ROOT_SECTOR} entry \d+", part, re.M)) == 10
    assert f"    ... 23 more (17 of them in the store):\n      millaudit report --audit {many} --run 2 --sector " \
           f"{ROOT_SECTOR}\n" in part
    # the sector alone: every row the store kept of it, the box still the run's
    only = report(millaudit, many, 2, "text", "--sector", ROOT_SECTOR)
    assert only.splitlines()[0] == f"millaudit report: run 2 (verify), sector {ROOT_SECTOR}"
    assert box(only)["faulty sectors"] == f"{ROOT_SECTOR} (31 roots)"
    assert len(re.findall(rf"^    {ROOT_SECTOR} entry \d+", only, re.M)) == 27
    assert f"  {CONSEQUENCE} " not in only and "more (" not in only  # its appendices too: its digest only
    doc = validate(json.loads(report(millaudit, many, 2, "json", "--sector", ROOT_SECTOR)), "report")
    assert doc["sector"] == ROOT_SECTOR and [s["sector"] for s in doc["sectors"]] == [ROOT_SECTOR]
    assert len(doc["discrepancies"]) == 27
    # a name that is no sector is a usage error; a sector the run did not record, an unusable run
    bad = millaudit.run("report", "--audit", many, "--run", 2, "--sector", "nope", check=2)
    assert bad.stdout == "" and "nope" in bad.stderr
    missing = millaudit.run("report", "--audit", many, "--run", 2, "--sector", "std_9_9_0_0", check=3)
    assert missing.stdout == "" and "std_9_9_0_0" in missing.stderr


def big_store(src, dst, run, sectors, rows, message, command):
    """src with many more faulty sectors in run: sectors of rows root rows each, a message of
    `message` characters, the run's command line `command` characters long (non-ASCII, so a cut
    could split a character)."""
    shutil.copy(src, dst)
    names = [f"std_{a}_{b}_{c}_{d}" for a in range(4, 10) for b in range(4, 10) for c in range(10) for d in range(10)]
    with sqlite3.connect(dst) as db:
        db.execute("UPDATE runs SET command_line = command_line || ? WHERE id = ?", (" é" * (command // 2), run))
        for s in names[:sectors]:
            db.execute("INSERT INTO sector_results (run_id, sector, file, entries, checked, verified, within_bounds,"
                       " discrepancies, seconds, status, message, format, roots, propagated) VALUES"
                       " (?, ?, ?, 1000000, 1000000, ?, 0, ?, 1.0, 'discrepancies', ?, 'open', ?, 0)",
                       (run, s, s + ".mdb", 1000000 - rows, rows, "é" * message, rows))
            db.execute("INSERT INTO sector_class_counts VALUES (?, ?, 'wrong-depth', ?)", (run, s, rows))
            db.executemany("INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class, root,"
                           " offset, move) VALUES (?, ?, ?, 'a1,d1,g1/a7,d7,g7', 'win 3', 'win 5', 'wrong-depth', 1,"
                           " ?, 'a1-a4')", [(run, s, e, 128 + 2 * e) for e in range(rows)])
    return dst


@pytest.mark.parametrize("sectors,rows,message,command,cut", [
    (300, 40, 300, 0, False),     # many faulty sectors with many rows: smaller views fit
    (3000, 3, 10, 0, False),      # thousands of faulty sectors: the first listed, the rest counted
    (2, 2, 200000, 0, False),     # a huge sector message: clipped in the smaller views
    (2, 2, 10, 200000, True),     # a fact longer than the budget: the last resort cuts it, with a note
])
def test_markdown_fits_65536_characters_whatever_the_run(millaudit, nights, tmp_path, sectors, rows, message, command,
                                                         cut):
    store = big_store(nights["store"], tmp_path / "big.sqlite", 2, sectors, rows, message, command)
    raw = millaudit.run("report", "--audit", store, "--run", 2, "--format", "md", check=0).stdout
    assert len(raw) <= MD_MAX and len(raw.encode()) <= MD_MAX  # characters, and bytes too
    lines = raw.splitlines()
    assert lines[0] == "# millaudit report: run 2 (verify)" and lines[2].startswith("> **Verdict: discrepancies found")
    assert f"**faulty sectors:** {ROOT_SECTOR.replace('_', chr(92) + '_')} (1 root), " in raw
    assert raw.count("```") % 2 == 0  # no code fence left open
    note = f"> **This report was cut to fit 65,536 characters; `millaudit report --audit {store} --run 2 --format " \
           "text` has all of it.**"
    assert (lines[-1] == note) == cut
    if sectors > 40:
        assert re.search(r"\n[\d,]+ more sectors to look at not listed here: `millaudit report --audit ", raw)
    if not cut:
        assert "## Discrepancies, root sectors first" in raw
    else:  # the cut loses the long line's end, not everything before it
        assert "| kind | verify |" in raw and "| command line | millaudit verify " in raw


def test_the_map_counts_totals_and_says_its_marks_are_capped_rows(millaudit, nights):
    page = report(millaudit, nights["store"], 2, "html")
    fig = page[page.index('data-chart="map"'):]
    fig = fig[:fig.index("</figure>")]
    # the store kept 2 of std_3_3_0_0's 3 rows: the counts are the sector's, the marks the rows'
    assert "1 root, 2 propagated; 2 rows recorded" in fig
    assert "Counts are each sector&#39;s totals" in fig or "Counts are each sector's totals" in fig
    assert "the marks show those rows only" in fig
    assert f">{ROOT_SECTOR}</text>" in fig and f">{CONSEQUENCE}</text>" in fig  # labels whole


def test_the_map_names_the_entries_its_capped_marks_cover(millaudit, nights):
    """A capped sector's recorded rows are its first ones, so their marks bunch at one end of the
    track: the span they cover is named and drawn, so nobody reads "all at entry 0" as the truth."""
    doc = json.loads(report(millaudit, nights["store"], 2, "json"))
    entries = sorted(d["entry"] for d in doc["discrepancies"] if d["sector"] == ROOT_SECTOR)
    assert len(entries) == 2  # --max-rows 2 of the sector's 3
    page = report(millaudit, nights["store"], 2, "html")
    fig = page[page.index('data-chart="map"'):]
    fig = fig[:fig.index("</figure>")]
    assert "1 root, 2 propagated; 2 rows recorded</text>" in fig
    assert f">recorded rows: entries {entries[0]:,} to {entries[-1]:,} only</text>" in fig
    assert fig.count('stroke="#555" stroke-width="6"><title>entries of the recorded rows</title>') == 1
    assert "the rest of a capped track was not recorded" in fig
    # an uncapped sector names no span: its marks are all its discrepancies
    assert fig.count(">recorded rows: ") == 1


def test_dates_are_readable(millaudit, nights):
    page = report(millaudit, nights["store"], 3, "html")
    hist = page[page.index('data-chart="history"'):]
    dates = re.findall(r'font-size="10" fill="#555">(\d{4}-\d\d-\d\d \d\d:\d\d)</text>', hist)
    assert len(dates) == 3  # the whole date and the minute, for each run
    text = report(millaudit, nights["store"], 3)
    table = text[text.index("History of this database root"):text.index("Appendix A")]
    assert len(re.findall(r"^ +\d[* ] \d{4}-\d\d-\d\d \d\d:\d\d UTC ", table, re.M)) == 3
    assert all(len(l) <= 100 for l in table.splitlines())
