"""Model-based differential test of every path to a "verified" verdict (issue 21): random seeded
sequences of faults, hidden and replaced files (also under a running verify), interruptions,
resumes, incremental runs, shards at different moments, tampered shard stores, merges, reports and
readers on copies of the 3-stone game, each verdict checked against a fresh full single-process
verify of the state it is about (tests/integration/model_runs.py has the model, the oracle and the
property; docs/robustness.md describes them).

MILLAUDIT_MODEL_SEED (default 21) is the seed of the first sequence, sequence k has seed SEED + k;
MILLAUDIT_MODEL_SEQUENCES fixes the number of sequences, otherwise as many run as fit in
MILLAUDIT_MODEL_BUDGET seconds (default 180) but never fewer than 100: the clock only decides how
many sequences run, never whether one passes. A failing sequence prints its seed, its operations and
a replay line. scripts/model-test is the long run (5,000 sequences).

The known-defect sequences below are the issue's items 1-7 as explicit operations: each must pass
once the issue is fixed."""
import os
import shutil
import time

import pytest

import model_runs
from conftest import need_fixture

MIN_SEQUENCES = 100


@pytest.fixture(scope="session")
def game3(millaudit, tmp_path_factory):
    """The whole 3-stone standard game (7 sectors, 264,399 entries), solved once per session."""
    out = tmp_path_factory.mktemp("model-game") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", out, "--quiet", check=0)
    return out


@pytest.fixture(scope="session")
def sec2_game(millaudit, tmp_path_factory):
    """The .sec2 game (std 3_4_0_0 with its successors, read with the real std.secval), or None
    outside CI when ../shared/fixtures is absent."""
    if not model_runs.SECVAL_FIXTURE.is_file():
        need_fixture(model_runs.SECVAL_FIXTURE)  # fails in CI, else skips the tests that need it
    return model_runs.make_sec2_game(millaudit.path, tmp_path_factory.mktemp("model-sec2"))


@pytest.fixture(scope="session")
def planted(millaudit_planted):
    return millaudit_planted.path


@pytest.fixture(scope="session")
def oracle(millaudit, tmp_path_factory):
    """One oracle (and store of file versions) for the session: states recur across sequences."""
    blobs = {}
    return model_runs.Oracle(millaudit.path, tmp_path_factory.mktemp("model-oracle"), blobs)


def replay_line(seed):
    return (f"MILLAUDIT_MODEL_SEED={seed} MILLAUDIT_MODEL_SEQUENCES=1 python3 -m pytest -p no:cacheprovider "
            f"tests/integration/test_model_runs.py -k random_sequences")


def test_model_random_sequences(millaudit, game3, oracle, tmp_path, planted, request):
    base = int(os.environ.get("MILLAUDIT_MODEL_SEED", "21"))
    fixed = os.environ.get("MILLAUDIT_MODEL_SEQUENCES")
    budget = float(os.environ.get("MILLAUDIT_MODEL_BUDGET", "180"))
    # the .sec2 game when ../shared/fixtures has its std.secval (in CI always)
    sec2 = request.getfixturevalue("sec2_game") if model_runs.SECVAL_FIXTURE.is_file() else None
    start = time.monotonic()
    n = 0
    while True:
        if fixed is not None:
            if n >= int(fixed):
                break
        elif n >= MIN_SEQUENCES and time.monotonic() - start >= budget:
            break
        seed = base + n
        work = tmp_path / f"seq{n}"
        seq = model_runs.run_random(millaudit.path, game3, work, oracle, oracle.blobs, seed, planted, sec2)
        violations = seq.violations()
        if violations:
            pytest.fail(f"sequence {n}, seed {seed} (kept in {work})\n"
                        + model_runs.failure_text(seq, violations, replay_line(seed)), pytrace=False)
        shutil.rmtree(work)  # a passing sequence leaves nothing behind (hundreds run)
        n += 1
    print(f"model test: {n} sequences from seed {base} in {time.monotonic() - start:.0f} s, "
          f"{oracle.runs} oracle runs")
    assert n >= (int(fixed) if fixed is not None else MIN_SEQUENCES)


# ---------------------------------------------------------------------------------------------
# The issue's items as explicit sequences. Sector names are those of the 3-stone game, whose
# check order is children first: std_3_3_0_0 first, the start sector std_0_0_3_3 last.

START = "std_0_0_3_3"  # the start position's sector: no parent, so a fault there is only its own


def item1_merge_partition():
    """Shards planned over different file sets: with the start sector hidden, shard 1/2 plans
    without it; once it is back, shard 0/2 is std_3_3_0_0 alone: nobody checks the faulty start."""
    return [("fault", START, 0, ["--outcome", "loss"], "sealed", "rename", True),
            ("hide", START),
            ("shard", 1, 2, 1),
            ("restore", START),
            ("shard", 1, 2, 0),
            ("merge",),
            ("report", "m1", 0),
            ("verify", "full", False, 1)]


def item2_hashed_not_checked():
    """A file recording no body digest replaced (by rename, same size and mtime) while
    `verify --audit` runs: the wrong version is on disk before the run and again after it, the
    right one while the start sector is checked (it is checked last). At several moments, since
    the window lies between hashing and checking."""
    ops = [("strip", START),  # version 1: the solved bytes, no body digest
           ("fault", START, 0, ["--outcome", "loss"], "none", "rename", True)]  # version 2: wrong, no digest
    for delay in (5, 15, 30, 50, 80, 120):
        ops += [("replace", START, 2, "inplace", True),
                ("verify_during", "full", True, 1, delay, ("replace", START, 1, "rename", True)),
                ("replace", START, 2, "inplace", True),
                ("verify", "incremental", True, 1)]
    return ops


def item3_tamper(kind):
    def ops():
        return [("shard", 1, 2, 0), ("shard", 1, 2, 1), ("tamper", 0, kind), ("merge",), ("report", "m1", 0)]
    ops.__doc__ = f"runs merge of a shard store edited with sqlite3 ({kind})"
    return ops


def item4_interrupted_report():
    """A run interrupted after k sectors, resumed; the interrupted run's report and the history must
    not read as a proof of the database."""
    ops = []
    for k in (1, 3, 5):
        ops += [("interrupt", k, 2000), ("resume", None, False), ("report", "main", "interrupted"),
                ("runs_list", "main")]
    return ops


def item5_resume_sector():
    """`--resume --sector X` and two `--resume` at once; then the history."""
    return [("interrupt", 2, 2000), ("resume", "std_3_3_0_0", False), ("report", "main", "interrupted"),
            ("runs_list", "main"), ("interrupt", 2, 2000), ("resume", None, True), ("runs_list", "main"),
            ("report", "main", "interrupted")]


def item6_readers():
    """Readers given a file whose body no longer matches its header's digest."""
    return [("fault", "std_2_3_1_0", 5, ["--depth-delta", "+1"], "stale", "inplace", True),
            ("read", "stats", None), ("read", "dump", "std_2_3_1_0")]


def item7_empty_shard():
    """The 3-stone game has 7 sectors: shards 7 and 8 of 9 are empty, valid shards."""
    return [("shard", 1, 9, i) for i in range(9)] + [("merge",)]


KNOWN = {
    "item1-merge-partition": item1_merge_partition,
    "item2-hashed-not-checked": item2_hashed_not_checked,
    "item3-tamper-lower-verified": item3_tamper("lower"),
    "item3-tamper-add-sector": item3_tamper("add"),
    "item3-tamper-delete-sector": item3_tamper("delete"),
    "item4-interrupted-report": item4_interrupted_report,
    "item5-resume-sector-and-twice": item5_resume_sector,
    "item6-readers-body-digest": item6_readers,
    "item7-empty-shard": item7_empty_shard,
}


# Issue 41's items as fixed sequences (the .secval ones on the .sec2 game).

def i41_secval_replaced_after_hashing():
    """The wrong .secval on disk, the right one put there right after the hash phase (the run's
    pause, cli/test_hook.h), the wrong one back, then an incremental run and a fresh run."""
    ops = []
    for how in ("rename", "inplace"):
        ops += [("secval", 1, how, True),
                ("verify_paused", "full", True, "hashed", ("secval", 0, how, True)),
                ("secval", 1, how, True),
                ("verify", "incremental", True, 1),
                ("verify_paused", "incremental", True, "hashed", ("secval", 0, how, True)),
                ("verify", "full", False, 1)]
    return ops


def i41_partial_runs_attested():
    """A --sector run and one shard over a wrong successor, each attested and checked with --db;
    the merge of all shards attested (sealed), and a statement of the whole database."""
    return [("fault", "std_3_3_0_0", 7, ["--depth-delta", "+1"], "sealed", "rename", True),
            ("sector_run", "std_2_3_1_0"), ("attest", "sec", -1),
            ("shard", 1, 3, 0, True), ("shard", 1, 3, 1, True), ("shard", 1, 3, 2, True),
            ("attest", "c1s1", -1), ("attest", "c1s2", -1), ("merge", True), ("attest", "m1", -1),
            ("verify", "full", True, 1), ("attest", "main", -1)]


def i41_tampered_merges():
    """Sealed shards of a database with a wrong start sector, its row rewritten as ok (counts
    consistent) in every store, then dropped from every inventory with the digests recomputed:
    the keyed merge refuses both; the unsealed merge trusts them as written (no claim), and its run
    is never attested."""
    ops = [("fault", START, 0, ["--outcome", "loss"], "sealed", "rename", True)]
    ops += [("shard", 1, 3, i, True) for i in range(3)]
    ops += [("tamper", i, "rewrite") for i in range(3)]
    ops += [("merge", True), ("merge", False), ("attest", "m2", -1), ("report", "m2", -1)]
    ops += [("shard", 2, 3, i, True) for i in range(3)]
    ops += [("tamper", 0, "drop"), ("merge", True), ("merge", False), ("attest", "m4", -1)]
    return ops


KNOWN_41 = {
    "i41-partial-runs-attested": i41_partial_runs_attested,
    "i41-tampered-merges": i41_tampered_merges,
}


@pytest.mark.parametrize("name", sorted(KNOWN_41))
def test_model_issue41_sequence(millaudit, game3, oracle, planted, tmp_path, name):
    seq = model_runs.run_ops(millaudit.path, game3, tmp_path / "seq", oracle, oracle.blobs, KNOWN_41[name](),
                             planted)
    violations = seq.violations()
    assert not violations, model_runs.failure_text(seq, violations, f"python3 -m pytest -p no:cacheprovider "
                                                   f"tests/integration/test_model_runs.py -k '{name}'")
    # every operation ran (none skipped for want of a feature): the sequence tests what it says
    assert not [o for o in seq.ops if o[1] and o[1].startswith("skipped")], seq.transcript()


def test_model_issue41_secval_sequence(millaudit, sec2_game, oracle, planted, tmp_path):
    seq = model_runs.run_ops(millaudit.path, sec2_game, tmp_path / "seq", oracle, oracle.blobs,
                             i41_secval_replaced_after_hashing(), planted)
    violations = seq.violations()
    assert not violations, model_runs.failure_text(seq, violations, "python3 -m pytest -p no:cacheprovider "
                                                   "tests/integration/test_model_runs.py -k secval_sequence")
    assert all("never paused" not in (o[1] or "") for o in seq.ops), seq.transcript()


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_model_known_defect_sequence(millaudit, game3, oracle, tmp_path, name):
    seq = model_runs.run_ops(millaudit.path, game3, tmp_path / "seq", oracle, oracle.blobs, KNOWN[name]())
    violations = seq.violations()
    assert not violations, model_runs.failure_text(seq, violations, f"python3 -m pytest -p no:cacheprovider "
                                                   f"tests/integration/test_model_runs.py -k '{name}'")


def test_model_oracle_sees_planted_fault(millaudit, game3, oracle, tmp_path):
    """The oracle is the ground truth: it must find a planted fault (and a clean copy clean), else
    every property above would hold vacuously."""
    seq = model_runs.run_ops(millaudit.path, game3, tmp_path / "seq", oracle, oracle.blobs, [])
    assert oracle(seq.now()).exit == 0
    seq.execute(("fault", START, 0, ["--outcome", "loss"], "sealed", "rename", True))
    assert oracle(seq.now()).exit == 1
    seq.execute(("replace", START, 0, "inplace", True))
    seq.execute(("fault", "std_3_3_0_0", 7, ["--depth-delta", "+1"], "none", "inplace", True))
    assert oracle(seq.now()).exit == 1


def test_model_claim_checker_flags_false_verdicts(millaudit, game3, oracle, tmp_path):
    """The property itself: a claim of "verified" about a faulty state, or one that covers other
    sectors than the state's, is a violation; a true claim is not."""
    seq = model_runs.run_ops(millaudit.path, game3, tmp_path / "seq", oracle, oracle.blobs, [])
    good = seq.now()
    seq.execute(("fault", START, 0, ["--outcome", "loss"], "sealed", "rename", True))
    bad = seq.now()
    entries = oracle(good).entries
    sectors = set(oracle(good).sectors)
    names = seq.names
    assert not model_runs.check_claim(model_runs.Claim("t", [[good]], None, sectors, 7, entries, entries),
                                      oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[bad]]), oracle, names)
    assert not model_runs.check_claim(model_runs.Claim("t", [[bad, good]]), oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[good], [bad]]), oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[good]], None, sectors - {START}), oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[good]], None, None, 7, entries, entries - 1),
                                  oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[bad]], frozenset([START])), oracle, names)
    assert not model_runs.check_claim(model_runs.Claim("t", [[bad]], frozenset(["std_3_3_0_0"])), oracle, names)
    assert model_runs.check_claim(model_runs.Claim("t", [[good]], frozenset([model_runs.NOWHERE])), oracle, names)
