"""millaudit report: one audit run rendered as text, Markdown, JSON and self-contained HTML.

Stores are made by the real binary (solve, verify --audit, manifest create --audit) on a small
whole game (std, 3 stones). The HTML is rendered by headless Chromium and the screenshot must show
something; bad stores and run ids must fail cleanly under ASan without writing any output.
"""
import hashlib
import html.parser
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import sys
import zlib

import pytest

from conftest import ROOT

INJECT = ROOT / "scripts" / "inject_fault.py"


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("game") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="module")
def store(millaudit, game, tmp_path_factory):
    """Run 1: clean verify; run 2: manifest of the same files; run 3: verify of a copy with a fault."""
    base = tmp_path_factory.mktemp("store")
    audit = base / "audit.sqlite"
    millaudit.run("verify", game, "--audit", audit, "--quiet", check=0)
    millaudit.run("manifest", "create", game, "--out", base / "MANIFEST.sha256", "--audit", audit, "--quiet",
                  check=0)
    bad = base / "bad"
    shutil.copytree(game, bad)
    subprocess.run([sys.executable, str(INJECT), str(bad / "std_2_2_1_1.mdb"), "--entry", "5", "--outcome", "loss"],
                   check=True, capture_output=True, env={**os.environ, "MILLAUDIT_BIN": str(millaudit.path)})
    millaudit.run("verify", bad, "--audit", audit, "--quiet", check=1)
    return audit


def rows(audit, sql, *args):
    with sqlite3.connect(audit) as db:
        return db.execute(sql, args).fetchall()


def test_text_report_names_facts_sectors_and_missing_manifest(millaudit, store):
    out = millaudit.run("report", "--audit", store, "--run", 1, check=0).stdout
    (kind, git, host, root, status), = rows(store, "SELECT kind, git_revision, host, database_root, status "
                                                   "FROM runs WHERE id = 1")
    assert "millaudit report: run 1" in out
    for value in (kind, git, host, root, status):
        assert value in out
    assert "NO MANIFEST" not in out  # verify records the bytes it read
    for sector, entries, verified in rows(store, "SELECT sector, entries, verified FROM sector_results "
                                                 "WHERE run_id = 1"):
        line = next(l for l in out.splitlines() if l.strip().startswith(sector + " "))
        assert line.split()[1:4] == [str(entries), str(entries), str(verified)]
        assert line.split()[7] == "ok"


def test_run_without_manifest_is_said_loudly(millaudit, store, tmp_path):
    """A run recorded without its bytes (an older build, an imported partial run) says so."""
    old = tmp_path / "old.sqlite"
    shutil.copy(store, old)
    with sqlite3.connect(old) as db:
        for table in ("manifest_chunks", "manifest_files", "manifests"):
            db.execute(f"DELETE FROM {table} WHERE run_id = 1")
    assert "!!! NO MANIFEST RECORDED" in millaudit.run("report", "--audit", old, "--run", 1, check=0).stdout
    md = millaudit.run("report", "--audit", old, "--run", 1, "--format", "md", check=0).stdout
    assert "**NO MANIFEST RECORDED" in md


def test_default_is_the_latest_run(millaudit, store):
    latest = millaudit.run("report", "--audit", store, check=0).stdout
    assert latest.startswith("millaudit report: run 3\n")


def test_manifest_run_lists_every_file_with_its_sha256(millaudit, store, game):
    out = millaudit.run("report", "--audit", store, "--run", 2, check=0).stdout
    assert "NO MANIFEST" not in out
    files = sorted(p.name for p in game.glob("*.mdb"))
    assert files
    for name in files:
        digest = hashlib.sha256((game / name).read_bytes()).hexdigest()
        assert any(l.split()[:1] == [digest] and name in l.split() for l in out.splitlines()), name


def test_discrepancies_are_drawn_as_boards(millaudit, store):
    out = millaudit.run("report", "--audit", store, "--run", 3, check=0).stdout
    recorded = rows(store, "SELECT sector, entry, board, class FROM discrepancies WHERE run_id = 3")
    assert recorded
    sector, entry, board, cls = next(r for r in recorded if r[1] == 5)
    assert f"{sector} entry {entry}: {cls}" in out
    block = out[out.index(f"{sector} entry {entry}:"):].splitlines()[3:17]
    mover, opponent = board.split("/")
    drawn = {}
    for line in block[:13]:
        text = line.strip()
        if text[:1].isdigit():
            rank = text[0]
            for k, ch in enumerate(text[2:]):
                if ch in "XO+" and k % 2 == 0:
                    drawn["abcdefg"[k // 2] + rank] = ch
    assert len(drawn) == 24
    assert {p for p, c in drawn.items() if c == "X"} == set(mover.split(","))
    assert {p for p, c in drawn.items() if c == "O"} == set(opponent.split(","))
    assert "wrong-terminal" in out  # the class chart (no histogram recorded)


def test_markdown_report(millaudit, store):
    out = millaudit.run("report", "--audit", store, "--run", 3, "--format", "md", check=0).stdout
    assert out.startswith("# millaudit report: run 3\n")
    assert "## Manifest of the bytes checked" in out and "NO MANIFEST RECORDED" not in out
    assert "std\\_2\\_2\\_1\\_1.mdb" in out or "std_2_2_1_1.mdb" in out
    assert "| std\\_2\\_2\\_1\\_1 | 6930 | 6930 | 6929 |" in out
    assert out.count("```") % 2 == 0 and "```\n7 +-----+-----+" in out


def test_json_report_matches_the_store(millaudit, store):
    doc = json.loads(millaudit.run("report", "--audit", store, "--run", 3, "--format", "json", check=0).stdout)
    assert doc["format"] == "millaudit-run" and doc["version"] == 1
    assert doc["run"]["id"] == 3 and doc["run"]["status"] == "discrepancies"
    stored = dict(rows(store, "SELECT sector, discrepancies FROM sector_results WHERE run_id = 3"))
    assert {s["sector"]: s["discrepancies"] for s in doc["sectors"]} == stored
    assert len(doc["discrepancies"]) == rows(store, "SELECT count(*) FROM discrepancies WHERE run_id = 3")[0][0]


class _Checker(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "circle", "rect", "path"}

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


def test_html_is_self_contained_and_well_formed(millaudit, store, tmp_path):
    text = render_html(millaudit, store, 3, tmp_path / "r.html")
    assert "http://" not in text and "https://" not in text
    assert "<script" not in text and "<link" not in text and "src=" not in text
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert checker.errors == [] and checker.stack == []
    assert {"html", "style", "table", "svg", "circle"} <= checker.tags
    assert text.count('<svg class="board"') == rows(store, "SELECT count(*) FROM discrepancies WHERE run_id = 3")[0][0]


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


def test_html_renders_in_headless_chromium(millaudit, store, tmp_path):
    chromium = shutil.which("chromium")
    if not chromium:
        pytest.skip("chromium not installed (scripts/install-deps --test installs it): HTML screenshot not taken")
    page = tmp_path / "r.html"
    render_html(millaudit, store, 3, page)
    shot = tmp_path / "shot.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1200,1600",
                    page.as_uri()], capture_output=True, timeout=180)
    assert shot.exists(), "chromium wrote no screenshot"
    width, height, bpp, lines = _png_pixels(shot)
    assert (width, height) == (1200, 1600)
    coloured = sum(1 for line in lines for i in range(0, len(line), bpp * 4)
                   if line[i] < 200 or line[i + 1] < 200 or line[i + 2] < 200)
    # every 4th pixel sampled: text, tables, the red no-manifest banner and boards are well above this
    assert coloured > 2000, f"only {coloured} sampled non-white pixels: the page looks blank"


def test_out_replaces_a_file_atomically_and_refuses_a_missing_directory(millaudit, store, tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("old\n")
    millaudit.run("report", "--audit", store, "--out", target, check=0)
    assert target.read_text().startswith("millaudit report: run 3")
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


def test_usage_errors(millaudit_asan, store):
    assert millaudit_asan.run("report").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "--format", "pdf").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "--run", "x").returncode == 2
    assert millaudit_asan.run("report", "--audit", store, "extra").returncode == 2
    assert "usage: millaudit report" in millaudit_asan.run("report", "--help", check=0).stdout
