"""What a user sees in a terminal (issue 23, items 1 and 2): solve's and verify's results never
share a visible line with the progress display, and verify prints each sector's line as soon as
the sector is finished, flushed, so a CI log or a killed job keeps every finished result."""
import re
import signal
import subprocess
import sys

from conftest import ROOT
from test_verify import read_words

from terminal_util import run_on_terminal, visible_lines

RESULT = re.compile(r"(std|lask|mora)_\d+_\d+_\d+_\d+: ")
PROGRESS = re.compile(r"entries/s")
# redraw as often as possible, so a result that is not kept off the line would be glued to it
FAST = {"MILLAUDIT_PROGRESS_INTERVAL": "0.001"}


def _mixed(lines):
    return [l for l in lines if RESULT.search(l) and PROGRESS.search(l)]


def test_solve_results_never_share_a_line_with_the_progress(millaudit, tmp_path):
    status, raw = run_on_terminal([millaudit.path, "solve", "--variant", "std", "--stones", "4",
                                   "--out", tmp_path / "g", "--threads", "2"], env=FAST)
    assert status == 0, raw[-2000:]
    lines = visible_lines(raw)
    assert raw.count("\x1b[K") > 10, "the progress line was drawn (else this test proves nothing)"
    results = [l for l in lines if re.match(r"std_\d+_\d+_\d+_\d+: [\d,]+ entr(y|ies), ", l)]
    assert len(results) == len(list((tmp_path / "g").glob("*.mdb"))), lines
    assert _mixed(lines) == [], "\n".join(_mixed(lines))


def test_verify_lines_never_share_a_line_with_the_progress(millaudit, tmp_path):
    db = tmp_path / "g"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    status, raw = run_on_terminal([millaudit.path, "verify", db, "--threads", "1", "--table"], env=FAST)
    assert status == 0, raw[-2000:]
    lines = visible_lines(raw)
    assert raw.count("\x1b[K") > 10
    assert _mixed(lines) == [], "\n".join(_mixed(lines))
    live = [l for l in lines if re.match(r"std_\d+_\d+_\d+_\d+: ok, [\d,]+ entr(y|ies), [\d,]+ verified, ", l)]
    assert len(live) == len(list(db.glob("*.mdb")))
    assert "sectors, children first:" in lines


def test_verify_prints_each_sector_while_the_run_goes_on(millaudit, tmp_path):
    """The first sector's line is on stdout (a pipe, as in CI) before the run ends: the run is
    stopped by SIGTERM right after that line is read and reports itself interrupted (143)."""
    db = tmp_path / "g"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    proc = subprocess.Popen([str(millaudit.path), "verify", db, "--threads", "1",
                             "--audit", tmp_path / "a.sqlite"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    rest, err = proc.communicate(timeout=600)
    assert re.match(r"std_3_3_0_0: ok, 210,140 entries, 210,140 verified, [\d.]+ s\n$", first), first
    assert proc.returncode == 143, (first, rest, err)
    assert "verdict: interrupted" in rest
    # the sectors finished before the signal are printed once each, in the order of completion
    names = [m.group(0) for m in re.finditer(r"^(std_\d+_\d+_\d+_\d+): ok, ", first + rest, re.M)]
    assert names and len(names) == len(set(names))


def test_a_faulty_sector_line_says_discrepancies_with_its_counts(millaudit, tmp_path):
    db = tmp_path / "g"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=0)
    # one entry of std_3_3_0_0 (a sector whose every entry others depend on) made a wrong depth
    words = read_words(db / "std_3_3_0_0.mdb")
    entry = next(e for e, w in enumerate(words) if w >> 14 == 3 and (w & 0x3FFF) > 2)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_3_3_0_0.mdb"),
                    "--entry", str(entry), "--depth-delta", "+1", "--reseal"], check=True)
    proc = millaudit.run("verify", db, check=1)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("std_3_3_0_0: "))
    assert re.match(r"std_3_3_0_0: discrepancies, [\d,]+ entries, [\d,]+ verified, 1 discrepancy "
                    r"\(1 root, 0 propagated\), [\d.]+ s$", line), line
