"""Sharded runs and their merge (docs/distributed.md): verify --plan, verify --shard into one store per
shard, runs merge into one run that equals a single process's run field by field (root/propagated
decided again across shards), the refusals and partial merges, the report of a merged run.

The database is the reference producer's whole 4-stone standard game with one planted fault whose
parents lie in other shards than it, so the shards' own root/propagated split is wrong and only the
merge can put it right."""
import json
import re
import shutil
import sqlite3

import pytest

from conftest import validate_json
from merge_util import assert_same_run, established, last_draw, plant_draw_as_loss, plant_fault, shard_roots, sql

N = 4


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    plant_fault(millaudit, db)
    return db


@pytest.fixture(scope="module")
def single(millaudit, game4, tmp_path_factory):
    store = tmp_path_factory.mktemp("single") / "single.sqlite"
    millaudit.run("verify", game4, "--audit", store, "--quiet", "--threads", "2", check=1)
    return store


@pytest.fixture(scope="module")
def faulty(single):
    """The sectors holding a discrepancy (the planted fault and the parents it propagates to), as the
    single run found them: whether a sector holds one does not depend on the shard that checks it."""
    found = {r[0] for r in sql(single, "SELECT sector FROM sector_results WHERE discrepancies > 0")}
    assert "std_4_4_0_0" in found
    return found


def planned(millaudit, db, count):
    """Per shard, the sector names `verify --plan count` gives it."""
    doc = json.loads(millaudit.run("verify", db, "--plan", count, "--json", check=0).stdout)
    return [set(s["sector_names"]) for s in doc["plan"]]


def shard_exit(millaudit, db, faulty, index, count):
    """The exit code of `verify --shard index/count`, known from the plan: 1 when one of its sectors
    holds a discrepancy, else 0 (every sector of the 4-stone game is there and usable)."""
    return 1 if planned(millaudit, db, count)[index] & faulty else 0


@pytest.fixture(scope="module")
def shard_stores(millaudit, game4, faulty, tmp_path_factory):
    d = tmp_path_factory.mktemp("shards")
    stores = []
    codes = []
    for i in range(N):
        store = d / f"shard-{i}-of-{N}.sqlite"
        codes.append(shard_exit(millaudit, game4, faulty, i, N))
        millaudit.run("verify", game4, "--shard", f"{i}/{N}", "--audit", store, "--quiet", "--threads", "2",
                      check=codes[-1])
        stores.append(store)
    # the fault and its parents lie in more than one shard, and some shard has none of them
    assert codes.count(1) >= 2 and 0 in codes, codes
    return stores


def merge(millaudit, out, *stores, check=None, extra=()):
    return millaudit.run("runs", "merge", out, *stores, *extra, check=check)


def test_plan_is_the_partition_the_shards_use(millaudit, game4, shard_stores):
    doc = json.loads(millaudit.run("verify", game4, "--plan", N, "--json", check=0).stdout)
    validate_json("verify-plan", doc)
    assert doc["shards"] == N and len(doc["plan"]) == N
    names = [s["sector"] for s in doc["sector_plan"]]
    assert len(names) == len(set(names)) == doc["sectors"] == len(list(game4.glob("*.mdb")))
    assert sum(s["entries"] for s in doc["plan"]) == doc["total_entries"]
    assert max(s["cost"] for s in doc["plan"]) == doc["largest_shard_cost"]
    # greedy LPT: no shard exceeds the mean by more than its largest sector
    assert doc["largest_shard_cost"] <= doc["mean_cost"] + doc["largest_sector_cost"]
    for i, store in enumerate(shard_stores):
        recorded = {r[0] for r in sql(store, "SELECT sector FROM sector_results")}
        assert recorded == set(doc["plan"][i]["sector_names"])
        assert sql(store, "SELECT shard_index, shard_count, planned_sectors FROM runs") == \
            [(i, N, doc["plan"][i]["sectors"])]
    text = millaudit.run("verify", game4, "--plan", N, check=0).stdout
    assert f"in {N} shards" in text and "balance: largest shard costs" in text
    for i in range(N):
        assert f"shard {i}: " + " ".join(doc["plan"][i]["sector_names"]) in text


@pytest.mark.parametrize("args", [["--plan", "0"], ["--plan", "x"], ["--plan", "2", "--shard", "0/2"],
                                  ["--plan", "2", "--sector", "3_3_0_0"], ["--plan", "2", "--audit", "a.sqlite"]])
def test_plan_usage_errors(millaudit, game4, tmp_path, args):
    proc = millaudit.run("verify", game4, *args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert not (tmp_path / "a.sqlite").exists()


@pytest.mark.parametrize("shard", ["3/2", "0/0", "x", "1/", "/2", "-1/2", "2/2"])
def test_bad_shard_is_a_usage_error(millaudit, game4, tmp_path, shard):
    proc = millaudit.run("verify", game4, "--shard", shard, "--audit", tmp_path / "a.sqlite")
    assert proc.returncode == 2 and "--shard" in proc.stderr
    assert not (tmp_path / "a.sqlite").exists()


def test_merged_run_equals_the_single_run(millaudit, single, shard_stores, tmp_path):
    out = tmp_path / "merged.sqlite"
    proc = merge(millaudit, out, *shard_stores, check=1)
    assert f"merged {N} shards of {N}" in proc.stdout
    assert "verdict: discrepancies found" in proc.stdout
    assert_same_run(single, out)
    # the fault propagates across shards: the shards called roots what the merge calls propagated
    merged_roots = sql(out, "SELECT sum(roots) FROM sector_results")[0][0]
    assert shard_roots(shard_stores) > merged_roots == sql(single, "SELECT sum(roots) FROM sector_results")[0][0]
    assert sql(out, "SELECT mode, status FROM runs") == [("merge", "discrepancies")]
    provenance = sql(out, "SELECT shard_index, shard_count, source, source_run_id, host, command_line, started_at,"
                          " ended_at FROM run_shards ORDER BY shard_index")
    assert [(p[0], p[1], p[2], p[3]) for p in provenance] == [(i, N, str(s), 1) for i, s in enumerate(shard_stores)]
    assert all(p[4] and p[6] and p[7] and f"--shard {p[0]}/{N}" in p[5] for p in provenance)
    # runs compare agrees: same bytes and derived values in every sector
    cmp = millaudit.run("runs", "compare", f"{single}:1", f"{out}:1", check=0)
    assert "equal:" in cmp.stdout


def test_merged_report_reads_like_the_single_runs_and_lists_the_shards(millaudit, single, shard_stores, tmp_path):
    out = tmp_path / "merged.sqlite"
    merge(millaudit, out, *shard_stores, check=1)
    a = millaudit.run("report", "--audit", single, check=0).stdout
    b = millaudit.run("report", "--audit", out, check=0).stdout
    assert f"Shards (merged from {N} of {N} shards)" in b and "Shards" not in a
    for i, store in enumerate(shard_stores):
        assert f"shard {i}/{N}" in b and str(store) in b
    # everything from the sectors on (sectors, discrepancies, depths, manifest, digests) is the
    # same, but for the seconds each sector took and the rates derived from them
    def results(text):
        text = re.sub(r" *[\d.]+[kMG]?/s\b", " R", text[text.index("\nSectors ("):])
        return re.sub(r"\b\d+\.\d\d\b", "S", text)
    # the "N more in the store" hints name each report's own store
    assert results(a.replace(str(single), "STORE")) == results(b.replace(str(out), "STORE"))
    status = [line for line in a.splitlines() if line.strip().startswith("status")]
    assert status == [line for line in b.splitlines() if line.strip().startswith("status")]
    html = millaudit.run("report", "--audit", out, "--format", "html", check=0).stdout
    assert "<h2>Shards</h2>" in html


def test_a_merged_store_whose_shard_list_cannot_be_read_is_refused(millaudit, shard_stores, tmp_path):
    """The merged run's list of shards is part of what its report and export claim: a store whose
    run_shards table is damaged (its root page overwritten) is refused naming the store (exit 3),
    never reported or exported as a run of no shards."""
    out = tmp_path / "merged.sqlite"
    merge(millaudit, out, *shard_stores, check=1)
    (root,) = sql(out, "SELECT rootpage FROM sqlite_master WHERE name = 'run_shards'")[0]
    (page,) = sql(out, "PRAGMA page_size")[0]
    with open(out, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xff" * page)
    for args in (["report", "--audit", out], ["runs", "export", "--audit", out]):
        proc = millaudit.run(*args, check=3)
        assert proc.stdout == ""
        (line,) = proc.stderr.splitlines()
        assert str(out) in line and "malformed" in line, line


def test_resumed_shard_merges_like_an_uninterrupted_one(millaudit, game4, single, faulty, shard_stores, tmp_path):
    stores = [tmp_path / s.name for s in shard_stores]
    for s, d in zip(shard_stores, stores):
        shutil.copy(s, d)
    # shard 1's run stopped early: two of its sectors never committed
    con = sqlite3.connect(stores[1])
    con.execute("PRAGMA foreign_keys = ON")
    con.execute("UPDATE runs SET status = 'interrupted'")
    con.execute("DELETE FROM discrepancies WHERE sector IN (SELECT sector FROM sector_results ORDER BY sector LIMIT 2)")
    con.execute("DELETE FROM sector_results WHERE sector IN (SELECT sector FROM sector_results ORDER BY sector LIMIT 2)")
    con.commit()
    con.close()
    out = tmp_path / "merged.sqlite"
    proc = merge(millaudit, out, *stores, check=3)
    assert "interrupted" in proc.stdout and "marked incomplete" in proc.stderr
    assert sql(out, "SELECT status FROM runs") == [("incomplete",)]
    millaudit.run("verify", game4, "--shard", f"1/{N}", "--audit", stores[1], "--resume", "--quiet",
                  check=shard_exit(millaudit, game4, faulty, 1, N))
    assert sql(stores[1], "SELECT mode FROM runs ORDER BY id") == [("full",), ("resume",)]
    merge(millaudit, out, *stores, check=1)
    assert_same_run(single, out)


def test_merge_refusals(millaudit, game4, faulty, shard_stores, tmp_path):
    out = tmp_path / "out.sqlite"
    proc = merge(millaudit, out, shard_stores[0], shard_stores[0], check=3)
    assert "same store" in proc.stderr and len(proc.stderr.splitlines()) == 1
    # the output among the inputs: refused before anything is read (common/output.h)
    proc = merge(millaudit, shard_stores[0], *shard_stores, check=2)
    assert "is a shard store" in proc.stderr
    copy = tmp_path / "copy.sqlite"
    shutil.copy(shard_stores[0], copy)
    proc = merge(millaudit, out, shard_stores[0], copy, check=3)
    assert "given twice" in proc.stderr
    # two databases: the same game under another root
    other = tmp_path / "other"
    shutil.copytree(game4, other)
    o1 = tmp_path / "o1.sqlite"
    millaudit.run("verify", other, "--shard", f"1/{N}", "--audit", o1, "--quiet",
                  check=shard_exit(millaudit, other, faulty, 1, N))
    proc = merge(millaudit, out, shard_stores[0], o1, check=3)
    assert "different databases" in proc.stderr
    # other options
    m1 = tmp_path / "m1.sqlite"
    millaudit.run("verify", game4, "--shard", f"1/{N}", "--audit", m1, "--max-rows", "3", "--quiet",
                  check=shard_exit(millaudit, game4, faulty, 1, N))
    proc = merge(millaudit, out, shard_stores[0], m1, check=3)
    assert "different options" in proc.stderr
    # another partition
    p1 = tmp_path / "p1.sqlite"
    millaudit.run("verify", game4, "--shard", "1/3", "--audit", p1, "--quiet",
                  check=shard_exit(millaudit, game4, faulty, 1, 3))
    proc = merge(millaudit, out, shard_stores[0], p1, check=3)
    assert "different partitions" in proc.stderr
    # a store without a shard run, a missing store
    full = tmp_path / "full.sqlite"
    millaudit.run("verify", game4, "--sector", "3_3_0_0", "--audit", full, "--quiet")
    assert "no shard run" in merge(millaudit, out, full, check=3).stderr
    assert "does not exist" in merge(millaudit, out, tmp_path / "nope.sqlite", check=3).stderr
    assert not out.exists()
    # usage
    assert merge(millaudit, out, check=2).returncode == 2
    assert millaudit.run("runs", "merge", out, shard_stores[0], "--bogus").returncode == 2


def test_missing_and_interrupted_shards(millaudit, game4, faulty, shard_stores, tmp_path):
    out = tmp_path / "out.sqlite"
    proc = merge(millaudit, out, *shard_stores[:-1], check=3)
    assert f"shard {N - 1}/{N}: MISSING" in proc.stdout and "marked incomplete" in proc.stderr
    assert sql(out, "SELECT status FROM runs") == [("incomplete",)]
    # --allow-partial judges the sectors present (their discrepancies: exit 1); without any it is
    # incomplete, never verified: sectors of the plan have no result (issue 21). Both cases are
    # taken: without the last shard, and with only shards that hold no discrepancy.
    plan = planned(millaudit, game4, N)
    clean = [s for i, s in enumerate(shard_stores) if not plan[i] & faulty]
    assert clean and len(clean) < N
    cases = [(shard_stores[:-1], 1 if set().union(*plan[:-1]) & faulty else 3), (clean, 3)]
    for stores, code in cases:
        proc = merge(millaudit, out, *stores, extra=["--allow-partial"], check=code)
        assert "MISSING" in proc.stdout and "verdict: verified" not in proc.stdout
        expected = {1: "discrepancies", 3: "incomplete"}[code]
        assert sql(out, "SELECT status FROM runs ORDER BY id DESC LIMIT 1") == [(expected,)]
    # an interrupted shard run (SIGTERM, time limit) likewise
    stores = [tmp_path / s.name for s in shard_stores]
    for s, d in zip(shard_stores, stores):
        shutil.copy(s, d)
    con = sqlite3.connect(stores[2])
    con.execute("UPDATE runs SET status = 'interrupted'")
    con.commit()
    con.close()
    proc = merge(millaudit, tmp_path / "o2.sqlite", *stores, check=3)
    assert f"shard 2/{N}" in proc.stdout and "INTERRUPTED" in proc.stdout and "--resume" in proc.stdout
    merge(millaudit, tmp_path / "o3.sqlite", *stores, extra=["--allow-partial"], check=1)


def test_an_output_store_another_writer_holds_is_an_output_failure(millaudit, shard_stores, tmp_path):
    """OUT held by another writer (a second merge, a report tool mid-transaction): after SQLite's
    busy timeout the merge fails as an output failure (exit 4), never as unusable shards (exit 3),
    and records nothing."""
    out = tmp_path / "out.sqlite"
    merge(millaudit, out, *shard_stores, check=1)
    con = sqlite3.connect(out, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        proc = merge(millaudit, out, *shard_stores, check=4)
    finally:
        con.execute("ROLLBACK")
        con.close()
    assert proc.stderr == f"millaudit runs merge: {out}: begin transaction: database is locked\n"
    assert sql(out, "SELECT count(*) FROM runs") == [(1,)]


def test_an_output_store_that_refuses_the_merged_rows_is_an_output_failure(millaudit, shard_stores, tmp_path):
    """OUT accepts the merged run but refuses its sector rows (a full disk in life, a trigger here):
    an output failure (exit 4), never unusable shards (exit 3), and the merged run rolled back."""
    out = tmp_path / "out.sqlite"
    merge(millaudit, out, *shard_stores, check=1)
    with sqlite3.connect(out) as con:
        con.execute("CREATE TRIGGER refuse BEFORE INSERT ON sector_results BEGIN SELECT RAISE(ABORT, 'no room'); END")
    proc = merge(millaudit, out, *shard_stores, check=4)
    assert proc.stderr.startswith("millaudit runs merge: ") and "no room" in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert sql(out, "SELECT count(*) FROM runs") == [(1,)]


def test_rows_kept_with_a_two_digit_max_rows_are_the_single_runs(millaudit, millaudit_planted, tmp_path):
    """Shards verified with --max-rows 10 of a database with thousands of wrong values (the 3-stone
    game solved with depth-in-moves) whose roots partly propagate across shards: the merge keeps the
    rows a single run with --max-rows 10 keeps, field by field, and says no rows may differ."""
    db = tmp_path / "db"
    millaudit_planted.run("solve", "--variant", "std", "--stones", 3, "--out", db, "--plant-bug", "depth-in-moves",
                          "--quiet", check=0)
    single = tmp_path / "single.sqlite"
    millaudit.run("verify", db, "--audit", single, "--max-rows", 10, "--quiet", check=1)
    stores = [tmp_path / f"s{i}.sqlite" for i in range(3)]
    for i, s in enumerate(stores):
        millaudit.run("verify", db, "--shard", f"{i}/3", "--audit", s, "--max-rows", 10, "--quiet")
    out = tmp_path / "merged.sqlite"
    proc = merge(millaudit, out, *stores, check=1)
    assert "16 roots of a shard propagated across shards" in proc.stdout
    assert "rows may differ" not in proc.stdout
    assert_same_run(single, out)
    assert sql(out, "SELECT max(n) FROM (SELECT count(*) AS n FROM discrepancies GROUP BY sector)") == [(10,)]

def test_capped_rows_a_shard_cannot_reproduce_are_flagged_and_counts_stay_exact(millaudit, game4, tmp_path):
    """--max-rows 1, and std_3_4_1_0 given a root of its own (a second planted fault, at its last
    draw) after the entries whose wrong successor lies in std_4_4_0_0, in another shard: that shard
    calls those roots and keeps the first of them, which the merge calls propagated, while a single
    run keeps the new root. The merged sector says so in its message (store, report, a note of the
    merge) and its counts, sets and digests are still the single run's."""
    db = tmp_path / "db"
    shutil.copytree(game4, db)
    sector = "std_3_4_1_0"
    fault = last_draw(db / f"{sector}.mdb")
    plant_draw_as_loss(millaudit, db / f"{sector}.mdb", fault)
    plan = planned(millaudit, db, N)
    home = next(i for i in range(N) if sector in plan[i])
    assert "std_4_4_0_0" not in plan[home]
    one = tmp_path / "one.sqlite"
    millaudit.run("verify", db, "--audit", one, "--max-rows", "1", "--quiet", check=1)
    faulty = {r[0] for r in sql(one, "SELECT sector FROM sector_results WHERE discrepancies > 0")}
    stores = []
    for i in range(N):
        stores.append(tmp_path / f"m{i}.sqlite")
        code = 1 if plan[i] & faulty else 0
        millaudit.run("verify", db, "--shard", f"{i}/{N}", "--audit", stores[-1], "--max-rows", "1", "--quiet",
                      check=code)
    out = tmp_path / "merged.sqlite"
    proc = merge(millaudit, out, *stores, check=1)
    assert (f"note: sector {sector}: more than 1 root in shard {home}, some of them propagated across shards: its "
            "rows may differ from a single run's (counts, sets and digests are exact)") in proc.stdout.splitlines()
    assert proc.stdout.count("rows may differ") == 1
    why = ("rows may differ from a single run's: the shard kept the first rows of its own classification, and "
           "some of its roots are propagated in the merged run (docs/distributed.md)")
    assert sql(out, "SELECT sector, message FROM sector_results WHERE message != ''") == [(sector, why)]
    assert f"message: {why}" in millaudit.run("report", "--audit", out, check=0).stdout
    # the rows do differ: the single run keeps the new root, the shard kept what is propagated
    assert sql(one, "SELECT entry, root FROM discrepancies WHERE sector = ?", sector) == [(fault, 1)]
    kept = sql(out, "SELECT entry, root FROM discrepancies WHERE sector = ?", sector)
    assert len(kept) == 1 and kept[0][0] < fault and kept[0][1] == 0
    # everything else is the single run's
    a, b = established(one), established(out)
    for name in a:
        if name == "rows":
            assert [r for r in a[name] if r[0] != sector] == [r for r in b[name] if r[0] != sector]
        elif name == "sectors":  # the message is column 8
            assert [r[:8] + r[9:] for r in a[name]] == [r[:8] + r[9:] for r in b[name]]
        else:
            assert a[name] == b[name], name
