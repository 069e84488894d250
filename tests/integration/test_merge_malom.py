"""runs merge of shards of a Malom database (issue 42): the merge asks the format its shards recorded
how their checks count entries (verifier/formats/source.h, ma_format_has_bounds), and Malom's checker
bounds what it cannot prove.

A .sec database of std 3_4_0_0 with its successors, 3_3_0_0's file removed: 3_4_0_0's entries that
capture into 3_3 are only within bounds. Its two shards (3_4_0_0 in one, 4_3_0_0 in the other) merge
into the single run's record field by field, its within-bounds entries counted as such; a shard row
that counts them as the open format would (not verified, none within bounds) is refused, since for
Malom's formats entries = verified + within bounds + discrepancies.
"""
import sqlite3

import pytest

from merge_util import assert_same_run, established


@pytest.fixture(scope="module")
def bounded_shards(millaudit, tmp_path_factory):
    d = tmp_path_factory.mktemp("merge_malom")
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_0_0", "--with-deps", "--out", d / "open",
                  "--quiet", check=0)
    millaudit.run("solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out", d / "sec",
                  "--open-dir", d / "open", "--format", "malom-sec", "--quiet", check=0)
    (d / "sec" / "std_3_3_0_0.sec").unlink()
    millaudit.run("verify", d / "sec", "--audit", d / "whole.sqlite", check=3)
    millaudit.run("verify", d / "sec", "--shard", "0/2", "--audit", d / "s0.sqlite", check=3)
    millaudit.run("verify", d / "sec", "--shard", "1/2", "--audit", d / "s1.sqlite", check=0)
    return d


def test_malom_shards_merge_with_their_bounds(millaudit, bounded_shards):
    d = bounded_shards
    proc = millaudit.run("runs", "merge", d / "merged.sqlite", d / "s0.sqlite", d / "s1.sqlite", check=3)
    assert "verdict: verified within bounds only" in proc.stdout
    assert_same_run(d / "whole.sqlite", d / "merged.sqlite")
    rows = {r[0]: r for r in established(d / "merged.sqlite")["sectors"]}
    assert sorted(rows) == ["std_3_4_0_0", "std_4_3_0_0"]
    # sector, file, entries, checked, verified, within_bounds, discrepancies, status, ...
    assert rows["std_3_4_0_0"][5] > 0 and rows["std_3_4_0_0"][7] == "within-bounds"
    assert rows["std_3_4_0_0"][4] + rows["std_3_4_0_0"][5] == rows["std_3_4_0_0"][2]
    assert rows["std_4_3_0_0"][7] == "ok"


def test_a_malom_row_counted_as_the_open_format_is_refused(millaudit, bounded_shards, tmp_path):
    d = bounded_shards
    tampered = tmp_path / "s0.sqlite"
    tampered.write_bytes((d / "s0.sqlite").read_bytes())
    con = sqlite3.connect(tampered)
    with con:
        con.execute("UPDATE sector_results SET verified = entries - missing_child, within_bounds = 0,"
                    " status = 'incomplete' WHERE sector = 'std_3_4_0_0'")
    con.close()
    out = tmp_path / "merged.sqlite"
    proc = millaudit.run("runs", "merge", out, tampered, d / "s1.sqlite", check=3)
    assert "sector std_3_4_0_0: verified: entries" in proc.stderr
    assert "within_bounds 0 + discrepancies 0 + not verified 0" in proc.stderr
    assert not out.exists()
