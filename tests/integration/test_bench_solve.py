"""scripts/bench solve reads its per-sector figures from the producer's own lines: run on the
smallest sector (std 3_3_0_0, 210,140 entries, well under a second), it must print them, with a
binary given (--binary) as with the one it builds. Nothing here asserts on time: only that the
figures are there and the counts are the producer's."""
import re
import subprocess
import sys

from conftest import ROOT


def bench(millaudit, *args):
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "bench"), "solve", "--variant", "std",
                           "--sector", "3_3_0_0", "--threads", "1", "--repeat", "1", "--binary",
                           str(millaudit.path), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


def test_the_malom_format_run_prints_every_component(millaudit):
    lines = bench(millaudit, "--format", "malom-sec2")
    worst = [i for i, x in enumerate(lines) if x.startswith("  current, threads 1: worst ")]
    assert len(worst) == 1, lines
    at = worst[0]
    # the ranking's seconds apart, read from the .sec2 line's "(draws ranked in S s)"
    assert re.fullmatch(r"  current, threads 1: worst \d+\.\d\d; without the ranking \d+\.\d\d", lines[at])
    assert re.fullmatch(r"    std_3_3_0_0 \d+\.\d\d / \d+\.\d\d / \d+\.\d\d = \d+\.\d\d "
                        r"\(ranking \d+\.\d\d; without it \d+\.\d\d\)", lines[at + 1]), lines
    assert "Malom files identical across every binary and thread count: yes" in lines


def test_the_open_run_counts_the_producers_entries(millaudit):
    lines = bench(millaudit)
    assert any(re.match(r"current, threads 1: 1 sectors, 210140 entries; median wall ", x) for x in lines), lines
