"""Allocation failures (docs/verifier.md "Allocation failures"): the real binary, run with the
test-only shim tests/support/failalloc.c preloaded, has its Nth allocation fail, for every N up to
the number a clean run makes. For every N the command either

  - says so: exit 5 (README "Exit codes": internal error, out of memory; 4 when what failed was the
    audit record, which an incomplete record always wins) with one line on standard error that says
    "out of memory"; no document left behind unless it is the clean run's or a JUnit report with an
    error (never a half-written one); and no run recorded `ok` in the audit store unless the store
    is the clean run's; or
  - does exactly what the clean run does: the same exit status, the same standard output and error,
    the same documents and the same audit store rows (times aside).

Never a signal, never exit 0 or any other verdict with another output. A command that took an
allocation failure for bad input (exit 3, "not a manifest line"), blamed a file for it ("changed
while being checked") or went on without the memory it asked for fails here.

The commands are those whose out-of-memory paths decide a verdict or write a claim: verify of one
sector with a published manifest that has chunk lines, an audit store and a JUnit report; manifest
check of that manifest, and of one whose file has since changed (the chunk lines pin the chunk);
manifest create --chunks; manifest merge of shard manifests into a store; verify --plan of a
database with an unusable file (the partition, the peaks and the files it names); diff --audit of a
root pair and its consequence (the attribution of causes). The database is the
3-stone game (the session's std3_games), so every sweep is a few hundred runs of a few tens of
milliseconds.

The shim interposes malloc; AddressSanitizer's runtime must own malloc, so this file needs the
release build (MILLAUDIT_BIN, as scripts/test gives it) and CMake builds the shim only there.
"""
import os
import re
import shutil
import sqlite3
import subprocess
import sys

import pytest

from conftest import ROOT, skip_unless

SECTOR = "1_1_2_2"  # 92 entries with children in two sectors: every phase of a run, in milliseconds
# README "Exit codes": 5 internal error (out of memory); 4 when what failed was the audit record
# (an incomplete record wins over the verdict, docs/runs.md)
OOM_EXITS = (5, 4)


@pytest.fixture(scope="module")
def shim(build_dir):
    path = build_dir / "tests" / "support" / "libma_failalloc.so"
    skip_unless(path.exists(), f"{path} absent: the allocation-failure shim is built only without "
                               "ENABLE_SANITIZERS (an LD_PRELOAD malloc cannot sit under ASan's); "
                               "run these tests with the release build as MILLAUDIT_BIN")
    return path


class Outcome:
    def __init__(self, proc, report, outputs):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.allocations, self.failed = report
        self.outputs = outputs


def store_rows(path, scratch):
    """Every row of every table of an audit store (with its -wal: what a reader sees), by table (the
    documented schema, docs/audit-schema.md). Read from a copy in scratch: SQLite leaves -wal and
    -shm beside a WAL store it opens, even read-only."""
    copy = scratch / "read.sqlite"
    for side in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(str(copy) + side):
            os.unlink(str(copy) + side)
        if os.path.exists(str(path) + side):
            shutil.copyfile(str(path) + side, str(copy) + side)
    con = sqlite3.connect(copy)
    # a column written from memory that was never set shows as it is
    con.text_factory = lambda b: b.decode("utf-8", "backslashreplace")
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out = {}
        for t in tables:
            cur = con.execute(f'SELECT * FROM "{t}"')
            out[t] = ([c[0] for c in cur.description], cur.fetchall())
        return out
    finally:
        con.close()


TIMES = re.compile(r"\"(player_)?seconds\": ?[0-9.e+-]+|\d+(\.\d+)? s\b|\d{4}-\d\d-\d\dT[0-9:.]+Z?|\b(time|timestamp)=\"[^\"]*\"")


def untimed(text):
    return TIMES.sub("<time>", text)


class Scenario:
    """One command line run in work/ with every output removed (and the store put back as it was)
    before each run."""

    def __init__(self, millaudit, shim, work, args, documents=(), store=None, clean_exit=0, libs="", read=untimed,
                 reads=None):
        """libs: MA_FAILALLOC_LIBS, the libraries whose allocations fail too ("jansson"); read: a
        document's text as compared (the signed payload of an envelope); reads: a store the command
        only reads, whose empty -wal and -shm a reader that stopped without closing it leaves (SQLite
        then takes another path: removed before each run)."""
        self.millaudit, self.shim, self.work = millaudit, shim, work
        self.libs, self.read, self.reads = libs, read, reads
        self.args = [str(a) for a in args]
        self.documents = [work / d for d in documents]
        self.store = work / store if store else None
        self.scratch = work / "scratch"
        self.scratch.mkdir(exist_ok=True)
        if self.store:
            # a store that already holds a run: what is measured is the command, not the schema
            self.template = work / f"{store}.template"
            self.reset()
            first = self.run()
            assert first.rc == clean_exit, first.stderr
            shutil.copyfile(self.store, self.template)
            for side in ("-wal", "-shm", "-journal"):
                assert not os.path.exists(str(self.store) + side), first.stdout + first.stderr
        self.volatile = {}

    def reset(self):
        for side in ("-wal", "-shm") if self.reads else ():
            p = self.work / (self.reads + side)
            if p.exists() and p.stat().st_size == 0 or side == "-shm" and p.exists():
                p.unlink()
        for d in self.documents:
            if d.exists():
                d.unlink()
        if self.store:
            for side in ("", "-wal", "-shm", "-journal"):
                p = str(self.store) + side
                if os.path.exists(p):
                    os.unlink(p)
            if getattr(self, "template", None) and self.template.exists():
                shutil.copyfile(self.template, self.store)

    def run(self, fail_at=0):
        self.reset()
        report = self.work / "failalloc.report"
        if report.exists():
            report.unlink()
        env = dict(os.environ, LD_PRELOAD=str(self.shim), MA_FAILALLOC_AT=str(fail_at),
                   MA_FAILALLOC_REPORT=str(report), MA_FAILALLOC_LIBS=self.libs)
        proc = subprocess.run([str(self.millaudit.path), *self.args], capture_output=True, text=True,
                              cwd=self.work, env=env, timeout=120)
        counts = (None, None)
        if report.exists():
            fields = dict(line.split() for line in report.read_text().splitlines())
            counts = (int(fields["allocations"]), int(fields["failed"]))
        outputs = {}
        for d in self.documents:
            outputs[d.name] = self.read(d.read_text()) if d.exists() else None
        if self.store and os.path.exists(self.store):
            outputs["store"] = store_rows(self.store, self.scratch)
        return Outcome(proc, counts, outputs)

    def learn_volatile(self, a, b):
        """The store columns two clean runs of the same command fill differently (times, durations):
        left out of every comparison."""
        if not self.store:
            return
        sa, sb = a.outputs["store"], b.outputs["store"]
        assert sa.keys() == sb.keys()
        for t, (cols, rows) in sa.items():
            rows_b = sb[t][1]
            assert len(rows) == len(rows_b), f"{t}: two clean runs recorded {len(rows)} and {len(rows_b)} rows"
            self.volatile[t] = {i for i in range(len(cols)) for r, s in zip(rows, rows_b) if r[i] != s[i]}

    def comparable(self, outcome):
        out = dict(outcome.outputs)
        if "store" in out:
            out["store"] = {t: sorted((tuple("*" if i in self.volatile.get(t, ()) else v for i, v in enumerate(r))
                                       for r in rows), key=repr)
                            for t, (cols, rows) in out["store"].items()}
        return (outcome.rc, untimed(outcome.stdout), untimed(outcome.stderr), out)

    def says_failed(self, document, text):
        """A report written by a failed run must say so: a JUnit document with an error."""
        return document.suffix == ".xml" and re.search(r'<testsuites [^>]*errors="[1-9]', text) is not None

    def claims_of_new_runs(self, outcome):
        """The statuses of the runs a failed command left in the store beyond the template's."""
        if not self.store or "store" not in outcome.outputs:
            return []
        cols, rows = outcome.outputs["store"].get("runs", ([], []))
        before = len(store_rows(self.template, self.scratch).get("runs", ([], []))[1])
        status = cols.index("status")
        return [r[status] for r in rows[before:]]


def first_difference(got, want):
    """Where two comparable outcomes first differ, in words."""
    for what, x, y in zip(("exit", "stdout", "stderr"), got, want):
        if x != y:
            return f"{what} {x!r} instead of {y!r}"
    for name in sorted(set(got[3]) | set(want[3])):
        x, y = got[3].get(name), want[3].get(name)
        if x == y:
            continue
        if name != "store" or x is None or y is None:
            return f"{name}: {str(x)[:300]!r} instead of {str(y)[:300]!r}"
        for t in sorted(set(x) | set(y)):
            rx, ry = x.get(t, []), y.get(t, [])
            if rx != ry:
                extra = [r for r in rx if r not in ry][:2]
                lost = [r for r in ry if r not in rx][:2]
                return f"store table {t}: rows {extra} instead of {lost}"
    return "?"


def sweep(scenario):
    """Every N from 1 to the clean run's count; returns the list of what went wrong (empty: none)."""
    clean = scenario.run()
    again = scenario.run()
    assert clean.allocations is not None, \
        f"the shim wrote no report: {scenario.shim} was not preloaded\n{clean.stderr}"
    assert clean.allocations > 0 and clean.failed == 0
    assert again.allocations == clean.allocations, \
        f"two clean runs made {clean.allocations} and {again.allocations} allocations: not deterministic"
    scenario.learn_volatile(clean, again)
    expected = scenario.comparable(clean)
    assert scenario.comparable(again) == expected, "two clean runs differ beyond their times"
    wrong = []
    reported = 0
    for n in range(1, clean.allocations + 1):
        got = scenario.run(n)
        where = f"allocation {n} of {clean.allocations}: exit {got.rc}, stderr {got.stderr.strip()[-300:]!r}"
        if got.rc < 0:
            wrong.append(f"{where}: killed by signal {-got.rc}")
            continue
        if got.failed != 1:
            wrong.append(f"{where}: the allocation was not reached (report {got.allocations}, {got.failed})")
            continue
        if got.rc in OOM_EXITS:
            reported += 1
            lines = got.stderr.strip().splitlines()
            if len(lines) != 1 or "out of memory" not in lines[0]:
                wrong.append(f"{where}: exit {got.rc} without one line saying out of memory")
            for d in scenario.documents:
                left = got.outputs[d.name]
                if left is not None and left != expected[3][d.name] and not scenario.says_failed(d, left):
                    wrong.append(f"{where}: {d.name} left behind, neither the clean run's nor saying it failed")
            if scenario.store and scenario.comparable(got)[3].get("store") != expected[3]["store"] \
                    and "ok" in scenario.claims_of_new_runs(got):
                wrong.append(f"{where}: the store records the run as ok, but not as the clean run did")
            continue
        if scenario.comparable(got) != expected:
            wrong.append(f"{where}: neither out of memory nor the clean run's result (clean: exit {clean.rc}): "
                         + first_difference(scenario.comparable(got), expected))
    if not reported:
        wrong.append(f"none of {clean.allocations} allocation failures was reported: the shim fails nothing")
    return wrong


@pytest.fixture(scope="module")
def work(millaudit, std3_games, tmp_path_factory):
    """The 3-stone game with a published manifest that has chunk lines, two shard manifests, and a
    copy published with 4 KiB chunks of which one file then had a byte changed (the report pins the
    chunk: only the chunk lines tell which)."""
    w = tmp_path_factory.mktemp("oom")
    db = w / "db"
    shutil.copytree(std3_games / "db", db)
    millaudit.run("manifest", "create", db, "--chunks", "--quiet", check=0)
    for i in range(2):
        millaudit.run("manifest", "create", db, "--chunks", "--shard", f"{i}/2", "--out", w / f"s{i}.sha256",
                      "--quiet", check=0)
    changed = w / "changed"
    shutil.copytree(std3_games / "db", changed)
    millaudit.run("manifest", "create", changed, "--chunks", "--chunk-size", "4096", "--quiet", check=0)
    data = bytearray((changed / "std_3_3_0_0.mdb").read_bytes())
    data[300000] ^= 1
    (changed / "std_3_3_0_0.mdb").write_bytes(bytes(data))
    # a buggy solver's output: one entry of std_3_3_0_0 made a draw and its parents solved again
    # from it (test_root_causes.py): std_2_3_1_0 then differs from db only as a consequence
    resolved = w / "resolved"
    resolved.mkdir()
    shutil.copyfile(db / "std_3_3_0_0.mdb", resolved / "std_3_3_0_0.mdb")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "inject_fault.py"), str(resolved / "std_3_3_0_0.mdb"),
                    "--entry", "5", "--outcome", "draw", "--reseal"], check=True, capture_output=True)
    millaudit.run("solve", "--stones", "3", "--out", resolved, "--quiet", check=0)
    return w


def test_verify_under_allocation_failure(millaudit, shim, work):
    s = Scenario(millaudit, shim, work, ["verify", "db", "--sector", SECTOR, "--threads", "1", "--quiet",
                                         "--audit", "a.sqlite", "--junit", "v.xml"],
                 documents=["v.xml"], store="a.sqlite")
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_manifest_check_under_allocation_failure(millaudit, shim, work):
    s = Scenario(millaudit, shim, work, ["manifest", "check", "db/MANIFEST.sha256", "--threads", "1"])
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_manifest_check_of_a_changed_file_under_allocation_failure(millaudit, shim, work):
    s = Scenario(millaudit, shim, work, ["manifest", "check", "changed/MANIFEST.sha256", "--threads", "1"])
    clean = s.run()
    assert clean.rc == 1 and "std_3_3_0_0.mdb: FAILED at bytes 299008-303103 (chunk 73)" in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_manifest_create_under_allocation_failure(millaudit, shim, work):
    s = Scenario(millaudit, shim, work, ["manifest", "create", "db", "--chunks", "--threads", "1",
                                         "--out", "c.sha256"], documents=["c.sha256"])
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_manifest_merge_under_allocation_failure(millaudit, shim, work):
    s = Scenario(millaudit, shim, work, ["manifest", "merge", "m.sha256", "s0.sha256", "s1.sha256",
                                         "--audit", "m.sqlite", "--dir", "db"],
                 documents=["m.sha256"], store="m.sqlite")
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_verify_plan_under_allocation_failure(millaudit, shim, work):
    """verify --plan of a database with an unusable file: the partition and the unusable files it
    names are the clean run's, or out of memory is said."""
    bad = work / "bad"
    if not bad.exists():
        shutil.copytree(work / "db", bad)
        (bad / "std_3_3_0_0.sec2").write_bytes(b"a second format\n")  # unusable: one format per database
    s = Scenario(millaudit, shim, work, ["verify", "bad", "--plan", "2", "--json"])
    clean = s.run()
    assert clean.rc == 0 and '"errors":["bad/std_3_3_0_0.sec2: sector std_3_3_0_0: offset 0: not used' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_diff_under_allocation_failure(millaudit, shim, work):
    """diff --audit of a root pair and a pair that differs only as its consequence: the causes
    attributed (which needs memory of its own) are the clean run's, or out of memory is said."""
    s = Scenario(millaudit, shim, work, ["diff", "db", "resolved", "--sector", "3_3_0_0", "--sector", "2_3_1_0",
                                         "--threads", "1", "--quiet", "--audit", "d.sqlite"],
                 store="d.sqlite", clean_exit=1)
    clean = s.run()
    assert clean.rc == 1 and "1 sector differs only as a consequence of std_3_3_0_0" in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


# jansson's own allocations (MA_FAILALLOC_LIBS=jansson): its constructors return NULL and its
# dumper and parser can cut a string short without saying so (2.14), so every document below is
# judged whole, member by member, against the clean run's.

def test_verify_json_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """verify --json exited 0 with a document missing "totals", "integrity.source" or a class
    count, or with no document at all."""
    s = Scenario(millaudit, shim, work, ["verify", "db", "--sector", SECTOR, "--threads", "1", "--quiet", "--json"],
                 libs="jansson")
    clean = s.run()
    assert clean.rc == 0 and '"verdict":"verified"' in clean.stdout and '"totals":{' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_verify_plan_json_when_jansson_runs_out_of_memory(millaudit, shim, work):
    bad = work / "bad"
    if not bad.exists():
        shutil.copytree(work / "db", bad)
        (bad / "std_3_3_0_0.sec2").write_bytes(b"a second format\n")
    s = Scenario(millaudit, shim, work, ["verify", "bad", "--plan", "2", "--json"], libs="jansson")
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_runs_export_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """The export of a run with its manifest's files and chunks: it was written with bytes missing
    from a key (`"": 1`) and exit 0 when jansson's dumper could not grow its buffer."""
    store = work / "x.sqlite"
    if not store.exists():
        millaudit.run("verify", work / "db", "--sector", SECTOR, "--threads", "1", "--quiet", "--audit", store)
    s = Scenario(millaudit, shim, work, ["runs", "export", "--audit", "x.sqlite", "--out", "e.json"],
                 documents=["e.json"], libs="jansson", reads="x.sqlite")
    clean = s.run()
    assert clean.rc == 0 and '"chunks": [' in clean.outputs["e.json"]
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def signed_payload(text):
    """An envelope as compared: its statement (the signature differs with the statement's time)."""
    import base64
    import json
    return untimed(base64.b64decode(json.loads(text)["payload"]).decode())


def partial_attestation(millaudit, work):
    """A key, a store holding a verify run of one sector, and its signed statement (a partial run:
    scope "these sectors"), made once for the module."""
    store, key, env = work / "x.sqlite", work / "key.pem", work / "xp.json"
    if not store.exists():
        millaudit.run("verify", work / "db", "--sector", SECTOR, "--threads", "1", "--quiet", "--audit", store)
    if not key.exists():
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(key)], check=True,
                       capture_output=True)
        subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(work / "pub.pem")], check=True,
                       capture_output=True)
    if not env.exists():
        millaudit.run("attest", "create", "--audit", store, "--key", key, "--out", env, "--allow-partial")
    return env


def test_attest_create_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """A signed statement: it was signed with the run's options null when jansson failed while
    reading them back from the store."""
    partial_attestation(millaudit, work)
    s = Scenario(millaudit, shim, work, ["attest", "create", "--audit", "x.sqlite", "--key", "key.pem",
                                         "--out", "att.json", "--allow-partial"],
                 documents=["att.json"], libs="jansson", read=signed_payload, reads="x.sqlite")
    clean = s.run()
    assert clean.rc == 0 and '"options":{"max_rows":' in clean.outputs["att.json"]
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_attest_verify_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """Checking a statement of a partial run (exit 6: not a proof of the database): jansson's
    parser cut a string short or called the text no JSON, and the command called a good envelope
    malformed (exit 3) or its signature bad (exit 1)."""
    env = partial_attestation(millaudit, work)
    s = Scenario(millaudit, shim, work, ["attest", "verify", env.name, "--pub", "pub.pem", "--json"],
                 libs="jansson")
    clean = s.run()
    assert clean.rc == 6 and '"valid": true' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_report_json_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """The report of a run: its "integrity" members came out null with exit 0."""
    partial_attestation(millaudit, work)
    s = Scenario(millaudit, shim, work, ["report", "--audit", "x.sqlite", "--format", "json", "--out", "r.json"],
                 documents=["r.json"], libs="jansson", reads="x.sqlite")
    clean = s.run()
    assert clean.rc == 0 and '"source": "manifest"' in clean.outputs["r.json"]
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_diff_json_when_jansson_runs_out_of_memory(millaudit, shim, work):
    """diff --json of a root pair: a sector's name or a proof's turn went missing, exit 1 as if whole."""
    s = Scenario(millaudit, shim, work, ["diff", "db", "resolved", "--sector", "3_3_0_0", "--threads", "1",
                                         "--quiet", "--json"], libs="jansson", clean_exit=1)
    clean = s.run()
    assert clean.rc == 1 and '"sector":"std_3_3_0_0"' in clean.stdout and '"turns":[' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_stats_json_when_memory_runs_out(millaudit, shim, work):
    """stats freed a job's histograms twice (a crash) when one could not be allocated."""
    s = Scenario(millaudit, shim, work, ["stats", "db", "--sector", SECTOR, "--json"], libs="jansson")
    clean = s.run()
    assert clean.rc == 0 and '"command":"stats"' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_opening_json_when_memory_runs_out(millaudit, shim, work):
    """The start value's proof: out of memory opening a sector was called an unusable file (exit 3)."""
    s = Scenario(millaudit, shim, work, ["opening", "db", "--variant", "std", "--stones", "3", "--json"],
                 libs="jansson")
    clean = s.run()
    assert clean.rc == 0 and '"status": "proven"' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)


def test_grade_json_when_memory_runs_out(millaudit, shim, work):
    """Grading a player: a sector whose rules could not be built was silently left out of the
    graded set (exit 0, one sector fewer), and out of memory read as a bad player spec (exit 2)."""
    s = Scenario(millaudit, shim, work, ["grade", "db", "--player", "ab:material:1", "--positions", "20",
                                         "--seed", "1", "--json", "--quiet"], libs="jansson")
    clean = s.run()
    assert clean.rc == 0 and '"sectors": 7' in clean.stdout
    wrong = sweep(s)
    assert not wrong, "\n".join(wrong)
