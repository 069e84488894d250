"""The golden cases of issue 24: every command of millaudit run on the demo database (the
whole std game with 3 stones per side, as scripts/demo solves with STONES=3), with its exit code,
stdout and stderr kept under tests/integration/golden/<case>.out, so a refactor of cli/ into the
public library API can prove that no output changed byte for byte.

Shared by tests/integration/test_golden_outputs.py (compares) and scripts/golden --update
(rewrites the files from the real binary). Dependency-free: the standard library only.

The cases run in order in one scratch directory, because later commands read what earlier ones
wrote (the audit store of manifest create and verify, the faulty copy of the database). Every path
given to the binary is relative to that directory (cwd), and mask() turns what is left of the
directory's absolute path into <DIR>.
"""
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "integration" / "golden"
INJECT = ROOT / "scripts" / "inject_fault.py"

# The one sector file the fault is planted in, and the entry: an entry of std_2_2_1_1 whose depth
# is moved two plies (the word stays well-formed) and whose header digest is resealed, so only the
# values are wrong -- a discrepancy verify, diff, report and manifest check must all show.
FAULT_FILE = "std_2_2_1_1.mdb"
FAULT_ENTRY = "100"

COMMANDS = ["solve", "stats", "dump", "verify", "index-check", "manifest", "report", "runs",
            "probe", "diff", "opening", "grade", "attest"]


def cases():
    """(name, argv or a Python step) in run order. A Python step is a callable(work) that prepares
    files and returns (exit code, stdout, stderr) of what it ran, recorded like a command."""
    c = []

    def add(name, *argv):
        c.append((name, list(argv)))

    # --- help texts: the wording every command shows (a refactor of cli/ must keep it)
    add("help_top", "--help")
    for cmd in COMMANDS:
        add(f"help_{cmd.replace('-', '_')}", cmd, "--help")
    add("version", "--version")

    # --- the demo database (scripts/demo with STONES=3): solve, manifest, verify, stats, report
    add("solve", "solve", "--variant", "std", "--stones", "3", "--out", "db", "--threads", "1")
    add("manifest_create", "manifest", "create", "db", "--audit", "audit.sqlite", "--threads", "1")
    add("manifest_create_stdout", "manifest", "create", "db", "--out", "-", "--threads", "1")
    add("manifest_check", "manifest", "check", "db/MANIFEST.sha256", "--threads", "1")
    add("verify_text", "verify", "db", "--audit", "audit.sqlite", "--threads", "1")
    add("verify_json", "verify", "db", "--json", "--threads", "1")
    add("verify_quiet", "verify", "db", "--quiet", "--threads", "1")
    add("verify_sector", "verify", "db", "--sector", "2_2_1_1", "--threads", "1")
    add("verify_plan", "verify", "db", "--plan", "2")
    add("verify_plan_json", "verify", "db", "--plan", "2", "--json")
    add("stats_text", "stats", "db", "--threads", "1")
    add("stats_json", "stats", "db", "--json", "--threads", "1")
    add("stats_sector", "stats", "db", "--sector", "1_2_2_1", "--threads", "1")
    add("dump", "dump", "db/std_1_1_2_2.mdb")
    add("dump_with_entry", "dump", "db/std_0_1_3_2.mdb", "--with-entry")
    add("index_check", "index-check", "--variant", "std", "--sector", "1_1_2_2", "db/std_1_1_2_2.mdb")
    add("probe_start", "probe", "db", "-/- wf=3 bf=3")
    add("probe_json", "probe", "db", "a1,d1/c3,e4 wf=2 bf=2", "--json")
    add("opening", "opening", "db", "--variant", "std", "--stones", "3")
    add("opening_json", "opening", "db", "--variant", "std", "--stones", "3", "--json")
    add("grade", "grade", "db", "--player", "ab:material:2", "--positions", "30", "--seed", "1", "--quiet")
    add("grade_json", "grade", "db", "--player", "random", "--positions", "20", "--seed", "7", "--json")
    add("report_text", "report", "--audit", "audit.sqlite", "--format", "text")
    add("report_md", "report", "--audit", "audit.sqlite", "--format", "md")
    add("report_json", "report", "--audit", "audit.sqlite", "--format", "json")
    add("report_html", "report", "--audit", "audit.sqlite", "--format", "html")
    add("report_check", "report", "--audit", "audit.sqlite", "--check")
    add("report_manifest_run", "report", "--audit", "audit.sqlite", "--run", "1")

    # --- a faulty copy: one depth moved, header resealed (scripts/inject_fault.py)
    c.append(("inject_fault", _inject_fault))
    add("verify_fault", "verify", "bad", "--audit", "audit.sqlite", "--threads", "1")
    add("verify_fault_json", "verify", "bad", "--json", "--threads", "1")
    add("report_fault_text", "report", "--audit", "audit.sqlite", "--format", "text")
    add("report_fault_md", "report", "--audit", "audit.sqlite", "--format", "md")
    add("report_fault_json", "report", "--audit", "audit.sqlite", "--format", "json")
    add("report_fault_check", "report", "--audit", "audit.sqlite", "--check")
    add("manifest_check_fault", "manifest", "check", "db/MANIFEST.sha256", "--dir", "bad", "--threads", "1")
    add("diff_same", "diff", "db", "db", "--threads", "1")
    add("diff_fault", "diff", "db", "bad", "--threads", "1", "--audit", "audit.sqlite")
    add("diff_fault_json", "diff", "db", "bad", "--json", "--threads", "1")
    add("diff_fault_full_quiet", "diff", "db", "bad", "--full", "--quiet", "--threads", "1")
    add("stats_fault_sector", "stats", "bad", "--sector", "2_2_1_1", "--threads", "1")
    add("opening_fault", "opening", "bad", "--variant", "std", "--stones", "3")

    # --- the store: runs list / export / compare / regressions
    add("runs_list", "runs", "list", "--audit", "audit.sqlite")
    add("runs_list_json", "runs", "list", "--audit", "audit.sqlite", "--json")
    add("runs_list_verify", "runs", "list", "--audit", "audit.sqlite", "--kind", "verify")
    add("runs_export", "runs", "export", "--audit", "audit.sqlite", "--run", "2")
    add("runs_compare", "runs", "compare", "--audit", "audit.sqlite", "2", "3")
    add("runs_compare_json", "runs", "compare", "--audit", "audit.sqlite", "2", "3", "--json")
    add("runs_regressions", "runs", "regressions", "--audit", "audit.sqlite", "--run", "3", "--since", "2")

    # --- export / import, and a verify sharded in two and merged (docs/distributed.md)
    add("runs_export_file", "runs", "export", "--audit", "audit.sqlite", "--run", "2", "--out", "run2.json")
    add("runs_import", "runs", "import", "--audit", "imported.sqlite", "run2.json")
    add("runs_list_imported", "runs", "list", "--audit", "imported.sqlite")
    add("verify_shard_0", "verify", "db", "--shard", "0/2", "--audit", "shard0.sqlite", "--threads", "1")
    add("verify_shard_1", "verify", "db", "--shard", "1/2", "--audit", "shard1.sqlite", "--threads", "1")
    add("runs_merge", "runs", "merge", "merged.sqlite", "shard0.sqlite", "shard1.sqlite")
    add("runs_merge_partial", "runs", "merge", "partial.sqlite", "shard0.sqlite")
    # sealed shards (a fixed secret, so the key id is the same every run) and their keyed merge
    c.append(("seal_key", _seal_key))
    add("verify_shard_0_sealed", "verify", "db", "--shard", "0/2", "--audit", "sealed0.sqlite", "--threads", "1",
        "--quiet", "--seal-key", "seal.key")
    add("verify_shard_1_sealed", "verify", "db", "--shard", "1/2", "--audit", "sealed1.sqlite", "--threads", "1",
        "--quiet", "--seal-key", "seal.key")
    add("runs_merge_sealed", "runs", "merge", "sealed.sqlite", "sealed0.sqlite", "sealed1.sqlite", "--seal-key",
        "seal.key")
    add("runs_merge_unsealed_with_key", "runs", "merge", "refused.sqlite", "shard0.sqlite", "shard1.sqlite",
        "--seal-key", "seal.key")
    add("report_merged", "report", "--audit", "merged.sqlite", "--format", "text")
    add("manifest_create_shard_0", "manifest", "create", "db", "--shard", "0/2", "--threads", "1",
        "--out", "shard-0.sha256")
    add("manifest_create_shard_1", "manifest", "create", "db", "--shard", "1/2", "--threads", "1",
        "--out", "shard-1.sha256")
    add("manifest_merge", "manifest", "merge", "-", "shard-0.sha256", "shard-1.sha256")
    add("diff_shard", "diff", "db", "bad", "--shard", "1/2", "--threads", "1")
    add("help_via_help", "help", "verify")

    # --- attest: a key made here (openssl), signed run 2 (verified), checked against db and bad
    c.append(("attest_keys", _attest_keys))
    add("attest_create", "attest", "create", "--audit", "audit.sqlite", "--run", "2", "--key", "key.pem",
        "--out", "run2.intoto.json", "--identity", "golden@millaudit")
    add("attest_verify", "attest", "verify", "run2.intoto.json", "--pub", "pub.pem", "--db", "db",
        "--threads", "1")
    add("attest_verify_fault", "attest", "verify", "run2.intoto.json", "--pub", "pub.pem", "--db", "bad",
        "--threads", "1")
    add("attest_verify_json", "attest", "verify", "run2.intoto.json", "--pub", "pub.pem", "--json")
    add("attest_unverified", "attest", "create", "--audit", "audit.sqlite", "--run", "3", "--key", "key.pem",
        "--out", "run3.intoto.json")
    # a shard's run: partial, attested only with --allow-partial, and then it proves its sectors
    add("attest_create_partial", "attest", "create", "--audit", "shard1.sqlite", "--key", "key.pem", "--out",
        "shard1.intoto.json")
    add("attest_create_partial_allowed", "attest", "create", "--audit", "shard1.sqlite", "--key", "key.pem",
        "--out", "shard1.intoto.json", "--allow-partial")
    add("attest_verify_partial", "attest", "verify", "shard1.intoto.json", "--pub", "pub.pem", "--db", "db",
        "--threads", "1")

    # --- a damaged download (docs/download.md): db with its manifest, one file lost, one byte of
    # another changed on the way; the damage first, the verdict, what to fetch again
    c.append(("damage_download", _damage_download))
    add("verify_damaged", "verify", "dl", "--audit", "damaged.sqlite", "--refetch-list", "refetch.txt",
        "--threads", "1")
    add("verify_damaged_json", "verify", "dl", "--json", "--threads", "1")
    add("verify_damaged_attested", "verify", "dl", "--attestation", "run2.intoto.json", "--pub", "pub.pem",
        "--quiet", "--threads", "1")
    add("report_damaged_text", "report", "--audit", "damaged.sqlite", "--format", "text")
    add("err_verify_attestation_without_pub", "verify", "dl", "--attestation", "run2.intoto.json")

    # --- bad invocations: usage errors and unusable input, with their exit codes
    add("err_no_command")
    add("err_unknown_command", "frobnicate")
    add("err_verify_no_dir", "verify")
    add("err_verify_missing_dir", "verify", "no-such-dir")
    add("err_verify_bad_threads", "verify", "db", "--threads", "0")
    add("err_verify_unknown_option", "verify", "db", "--bogus")
    add("err_verify_bad_sector", "verify", "db", "--sector", "9_9_9")
    add("err_report_missing_store", "report", "--audit", "no-such.sqlite")
    add("err_report_bad_format", "report", "--audit", "audit.sqlite", "--format", "pdf")
    add("err_report_bad_run", "report", "--audit", "audit.sqlite", "--run", "99")
    add("err_dump_missing_file", "dump", "db/std_9_9_0_0.mdb")
    add("err_diff_one_arg", "diff", "db")
    add("err_probe_bad_position", "probe", "db", "z9/- wf=3 bf=3")
    add("err_manifest_no_sub", "manifest")
    add("err_runs_bad_sub", "runs", "frobnicate")
    add("err_stats_missing_dir", "stats", "no-such-dir")
    add("err_opening_no_stones", "opening", "db", "--variant", "std")
    add("err_index_check_bad_variant", "index-check", "--variant", "chess", "--sector", "1_1_2_2")
    return c


def _inject_fault(work, binary):
    # a solver build's output with one wrong value: not db's manifest (against it the changed
    # file would be damage, docs/download.md), only the header resealed as a producer writes it
    shutil.copytree(work / "db", work / "bad", ignore=shutil.ignore_patterns("MANIFEST.sha256"))
    env = dict(os.environ, MILLAUDIT_BIN=str(binary))
    proc = subprocess.run([sys.executable, str(INJECT), f"bad/{FAULT_FILE}", "--entry", FAULT_ENTRY,
                           "--depth-delta", "+1", "--reseal"],
                          cwd=work, capture_output=True, text=True, env=env, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def _seal_key(work, binary):
    """A fixed HMAC secret: its key id is the same every run, so outputs naming it compare."""
    (work / "seal.key").write_text("0123456789abcdef0123456789abcdef\n")
    return 0, "", ""


def _damage_download(work, binary):
    """dl/: db with its manifest as published, std_0_1_3_2.mdb lost and a byte of std_1_2_2_1.mdb
    changed in transit (its header digest left as the producer wrote it)."""
    shutil.copytree(work / "db", work / "dl")
    (work / "dl" / "std_0_1_3_2.mdb").unlink()
    path = work / "dl" / "std_1_2_2_1.mdb"
    data = bytearray(path.read_bytes())
    data[1000] ^= 1
    path.write_bytes(bytes(data))
    return 0, "", ""


def _attest_keys(work, binary):
    """A fresh Ed25519 key pair: its signature differs each run, so the envelope file itself is
    never compared, only what create and verify print."""
    out = []
    for argv in (["openssl", "genpkey", "-algorithm", "ed25519", "-out", "key.pem"],
                 ["openssl", "pkey", "-in", "key.pem", "-pubout", "-out", "pub.pem"]):
        proc = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=60)
        out.append(proc)
        if proc.returncode != 0:
            break
    return out[-1].returncode, "", "".join(p.stderr for p in out)


_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")
_JSON_TIMING = re.compile(r'("(?:seconds|player_seconds|entries_per_second)")(\s*:\s*)-?\d[\d.eE+-]*')
_SECONDS_AND_RATE_COLUMNS = re.compile(r" +\d+\.\d+ +\d+(?:\.\d+)?[kMGT]?/s\b")
_VERIFY_ROW_SECONDS = re.compile(r"^((?:std|lask|mora)_\d+_\d+_\d+_\d+(?: +\d+){9}) +\d+\.\d+(  \S)", re.M)
_REPORT_ROW_SECONDS = re.compile(r"^(  (?:(?:std|lask|mora)_\d+_\d+_\d+_\d+|total)(?: +(?:[\d,]+|-)){4,6}) +\d+\.\d+(  \S)",
                                 re.M)
_READABLE_TIME = re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d(?: UTC)?\b")
_RATE = re.compile(r"\d+(?:\.\d+)?[kMGT]?/s\b")
_SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")
_CELL_SECONDS = re.compile(r"(<td class=\"n\">|\| )\d+\.\d+((?:</td><td class=\"n\">| \| )<RATE>/s)")
_WALL_CHART = re.compile(r"<svg[^>]*>(?:(?!</svg>).)*wall seconds(?:(?!</svg>).)*</svg>", re.S)
_GIT_REVISION = re.compile(r"(\(git |git revision +|\| git revision \| |<th>git revision</th><td>|\"git_revision\": ?\")"
                           r"(?:[0-9a-f]{7,40}|unknown)(?:-dirty)?\b")
_ATTEST_KEY = re.compile(r"\b(key |keyid\"?:? ?\"?)[0-9a-f]{64}\b")
_ENVELOPE_DIGEST = re.compile(r"(envelope sha256 |\"envelope_sha256\": ?\")[0-9a-f]{64}\b")


def mask(text, work):
    """The only rewrites between an output and its golden file: what differs between two runs
    of the same binary on the same bytes, and nothing else. Every rule names what it hides; the
    SHA-256 of the database files (deterministic: the producer writes the same bytes every time)
    and every count, value, board and message stay as printed."""
    # 1. The scratch directory's absolute path (a fresh temp dir per run), also as realpath.
    #    Markdown escapes it ("r\_s6hx" for a temp dir with "_" in its random name): that form too.
    paths = {str(work), os.path.realpath(work)}
    paths |= {re.sub(r"([\\`*_\[\]|])", r"\\\1", p) for p in paths}
    for path in sorted(paths, key=len, reverse=True):
        text = text.replace(path, "<DIR>")
    # 2. Wall-clock timestamps (run started/ended, attested at): ISO 8601 UTC.
    text = _ISO_TIME.sub("<TIME>", text)
    #    And as reports write them for people (the page's date, history, "since run 1 (...)").
    text = _READABLE_TIME.sub("<TIME>", text)
    # 3. Durations and throughputs in JSON: exactly the keys "seconds", "player_seconds" and
    #    "entries_per_second" (an option such as a timeout in seconds stays).
    text = _JSON_TIMING.sub(r"\1\2<SECONDS>", text)
    # 4. The HTML report's wall-seconds chart: bar lengths and label positions are timings; the
    #    sector list it draws is in the sector table beside it.
    text = _WALL_CHART.sub("<svg wall-seconds chart>", text)
    # 5. The "seconds  entries/s" column pair of text tables, as one unit so the right-aligned
    #    padding (which depends on the width of the timing) goes with it.
    text = _SECONDS_AND_RATE_COLUMNS.sub("  <SECONDS> <RATE>/s", text)
    #    And the seconds column of verify's sector table (before the status column).
    text = _VERIFY_ROW_SECONDS.sub(r"\1  <SECONDS>\2", text)
    #    And the seconds column of report's text sector table (before the state column).
    text = _REPORT_ROW_SECONDS.sub(r"\1  <SECONDS>\2", text)
    # 6. Other throughputs (Markdown/HTML cells, HTML key figures): 2.24M/s, 40.47k/s.
    text = _RATE.sub("<RATE>/s", text)
    # 7. The seconds cell before a throughput cell in Markdown and HTML tables.
    text = _CELL_SECONDS.sub(r"\1<SECONDS>\2", text)
    # 8. Durations in prose: "(0.01 s)", "time: 0.02 s", "0.54 s".
    text = _SECONDS.sub("<SECONDS> s", text)
    # 9. The git revision the binary was built from ("unknown" outside a git checkout), where it
    #    is printed as one: version line, run facts of text/md/html reports, JSON.
    text = _GIT_REVISION.sub(r"\1<REV>", text)
    # 10. The host name the run was recorded on, where it is printed as one (text/md/html/json
    #     reports, attest verify "on HOST,").
    host = re.escape(socket.gethostname())
    text = re.sub(rf"(\bhost +|\| host \| |<th>host</th><td>|\"host\": ?\"| on ){host}\b", r"\1<HOST>", text)
    # 11. attest: the fingerprint of the Ed25519 key made fresh for each run, and the digest of
    #     the envelope (it holds that key's signature and the time of signing).
    text = _ATTEST_KEY.sub(r"\1<KEY>", text)
    text = _ENVELOPE_DIGEST.sub(r"\1<DIGEST>", text)
    return text


def run_case(binary, work, name, step, timeout=300):
    """(exit code, stdout, stderr), masked, of one case."""
    if callable(step):
        code, out, err = step(work, binary)
    else:
        proc = subprocess.run([str(binary), *step], cwd=work, capture_output=True,
                              timeout=timeout, env=_env())
        # bytes kept exactly: anything not UTF-8 shows as \xNN instead of failing the decode
        code = proc.returncode
        out, err = (b.decode("utf-8", "backslashreplace") for b in (proc.stdout, proc.stderr))
    return code, mask(out, work), mask(err, work)


def _env():
    """A fixed environment: no terminal (no colour, no live progress), C locale, fixed width."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MILLAUDIT_", "LC_", "COLUMNS", "NO_COLOR"))}
    env.update(LANG="C", LC_ALL="C", TERM="dumb", TZ="UTC")
    return env


def render(name, step, code, out, err):
    """The golden file's text: the command line, exit code, stdout and stderr as sections."""
    cmd = "(python step)" if callable(step) else " ".join(["millaudit", *[_quote(a) for a in step]])
    return (f"# case: {name}\n# command: {cmd}\n# exit: {code}\n"
            f"--- stdout\n{out}{'' if not out or out.endswith(chr(10)) else chr(10) + '(no newline at end)' + chr(10)}"
            f"--- stderr\n{err}{'' if not err or err.endswith(chr(10)) else chr(10) + '(no newline at end)' + chr(10)}")


def _quote(arg):
    return arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def run_all(binary, work):
    """{case name: golden text} for every case, run in order in the empty directory work."""
    work = pathlib.Path(work)
    results = {}
    for name, step in cases():
        code, out, err = run_case(binary, work, name, step)
        results[name] = render(name, step, code, out, err)
    return results
