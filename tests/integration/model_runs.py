"""The model-based differential test of millaudit's verdicts (issue 21; docs/robustness.md,
"Model-based test of verdicts").

A sequence is a list of operations on a copy of the solved 3-stone game: plant a fault, hide,
restore or replace a sector file (in place with the same size and mtime, or by rename; also while a
run is reading the database), interrupt a run, resume it, incremental runs, the shards of an N-way
partition run at different moments, tampering with a shard's store, merging shards, reports and
run histories, readers. The model knows which bytes are on disk at every moment (the SHA-256 of
every sector file, or "hidden") and, for every verdict a command gives, which on-disk state(s) the
verdict is about. The oracle is a fresh full single-process `verify` of a state's bytes (materialised
in a directory of its own, results cached per state).

The property: a verdict "verified" with exit 0 about a state S needs the oracle of S to find no
discrepancy and no incomplete input, and the verdict to have covered exactly S's sectors and
entries (every sector of S, nothing else, verified = entries). A verdict about a part of the
database (a shard, `--sector`) needs each sector it names to be a sector of S the oracle finds
right. A verdict whose run saw a file change under it is about one of the states before and after
the change; a merged verdict is about every state any of its shards saw, so shards that saw
different states must not merge into "verified" when one of those states has a fault. A verify that
recorded digests in a store claims the state those digests name: the bytes hashed must be the bytes
checked. A reader's exit 0 claims that no file it read fails its body digest.

And its converse on clean inputs (liveness): a shard run of a state the oracle finds right, with
nothing changing during the run, exits 0; so do a full and an incremental run; a complete untouched
set of shards of one such state merges into "verified" with exit 0 (an empty shard is a valid shard).

Run as a library by tests/integration/test_model_runs.py and as a program by scripts/model-test.
Operations are plain tuples, printed as a replay list; a sequence generated from a seed is
replayed from its seed (timing of the concurrent operations aside: they depend on the machine)."""
import contextlib
import dataclasses
import hashlib
import importlib.util
import io
import json
import os
import pathlib
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = 128
DIGEST = slice(80, 112)
NOWHERE = "std_9_9_0_0"  # a sector name with no file, for the tampered store


def load_inject_fault():
    """scripts/inject_fault.py as a module: the faults this test plants are the ones users plant."""
    spec = importlib.util.spec_from_file_location("inject_fault", ROOT / "scripts" / "inject_fault.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INJECT = load_inject_fault()


def sha(data):
    return hashlib.sha256(data).hexdigest()


def state_key(files):
    """The on-disk state: the sorted (sector, sha256) pairs of the files present."""
    return tuple(sorted((s, h) for s, h in files.items() if h is not None))


def show_state(key, names):
    return "{" + ", ".join(f"{s}:{names.get(h, h[:8])}" for s, h in key) + "}"


# ---------------------------------------------------------------------------------------------
# The oracle: a fresh full single-process verify of one state's bytes.

@dataclasses.dataclass
class OracleResult:
    exit: int
    sectors: dict  # sector -> {"ok": bool, "entries": int, "digest_mismatch": bool, "status": str}
    entries: int
    text: str


class Oracle:
    def __init__(self, binary, workdir, blobs):
        self.binary = str(binary)
        self.workdir = pathlib.Path(workdir)
        self.blobs = blobs
        self.cache = {}
        self.runs = 0

    def __call__(self, key):
        if key not in self.cache:
            self.cache[key] = self._run(key)
        return self.cache[key]

    def _run(self, key):
        self.runs += 1
        d = self.workdir / f"oracle{self.runs}"
        d.mkdir(parents=True)
        for sector, h in key:
            (d / f"{sector}.mdb").write_bytes(self.blobs[h])
        proc = subprocess.run([self.binary, "verify", str(d), "--json", "--threads", "1", "--quiet"],
                              capture_output=True, text=True, timeout=300)
        shutil.rmtree(d)
        doc = json.loads(proc.stdout)
        sectors = {}
        for s in doc["sectors"]:
            mismatch = s.get("body_digest") == "mismatch"
            ok = (s["status"] == "ok" and s["discrepancies"] == 0 and s["verified"] == s["entries"]
                  and not mismatch)
            sectors[s["sector"]] = {"ok": ok, "entries": s["entries"], "digest_mismatch": mismatch,
                                    "status": s["status"]}
        return OracleResult(proc.returncode, sectors, doc["totals"]["entries"],
                            f"exit {proc.returncode}, verdict {doc['verdict']}, "
                            f"{doc['totals']['discrepancies']} discrepancies, "
                            f"{doc['totals']['body_digest_mismatches']} body digest mismatches")


# ---------------------------------------------------------------------------------------------
# Claims: what a verdict says, about which states.

@dataclasses.dataclass
class Claim:
    """A verdict "verified" with exit 0. requirements: a list of alternatives, each a list of states;
    every requirement must be met by one of its states (a run that saw a file change is about the
    state before or the one after). scope None: the whole database; else the sectors named.
    sectors / n_sectors / entries / verified: what the verdict says it covered (None: not stated)."""
    source: str
    requirements: list
    scope: object = None
    sectors: object = None
    n_sectors: object = None
    entries: object = None
    verified: object = None
    reader: bool = False


def coverage_problem(claim, result):
    """Why the claim's coverage is not the state's, or None."""
    if claim.verified is not None and claim.entries is not None and claim.verified != claim.entries:
        return f"says verified but counts {claim.verified} verified of {claim.entries} entries"
    if claim.scope is None:
        if claim.sectors is not None and set(claim.sectors) != set(result.sectors):
            missing = sorted(set(result.sectors) - set(claim.sectors))
            extra = sorted(set(claim.sectors) - set(result.sectors))
            return f"covers the wrong sectors (not covered: {missing}, not in the database: {extra})"
        if claim.n_sectors is not None and claim.n_sectors != len(result.sectors):
            return f"covers {claim.n_sectors} sectors, the database has {len(result.sectors)}"
        if claim.entries is not None and claim.entries != result.entries:
            return f"covers {claim.entries} entries, the database has {result.entries}"
    return None


def state_problem(claim, key, oracle):
    """Why the claim is false about state key, or None."""
    result = oracle(key)
    if claim.reader:
        bad = [s for s in (claim.scope or result.sectors) if result.sectors.get(s, {}).get("digest_mismatch")]
        return f"read {bad}, whose body fails its digest, and exited 0" if bad else None
    if claim.scope is None:
        if result.exit != 0:
            return f"the oracle of that state says: {result.text}"
    else:
        for sector in sorted(claim.scope):
            got = result.sectors.get(sector)
            if got is None:
                return f"names sector {sector}, which has no file in that state"
            if not got["ok"]:
                return f"names sector {sector}, which the oracle finds {got['status']} ({result.text})"
    return coverage_problem(claim, result)


def check_claim(claim, oracle, names):
    """The violations of one claim (a list of strings)."""
    out = []
    for alternatives in claim.requirements:
        problems = [(key, state_problem(claim, key, oracle)) for key in alternatives]
        if all(p for _, p in problems):
            why = "; ".join(f"state {show_state(k, names)}: {p}" for k, p in problems)
            out.append(f"{claim.source}: verified with exit 0, but {why}")
    return out


# ---------------------------------------------------------------------------------------------
# The world: a database directory, its stores, the model of its bytes and of every run.

@dataclasses.dataclass
class RunInfo:
    requirements: list
    scope: object
    interrupted: bool = False


class Sequence:
    """One sequence of operations on a fresh copy of the game."""

    def __init__(self, binary, game, workdir, oracle, blobs, rng=None):
        self.binary = str(binary)
        self.work = pathlib.Path(workdir)
        self.db = self.work / "db"
        self.stash = self.work / "stash"
        self.stores = self.work / "stores"
        for d in (self.stash, self.stores):
            d.mkdir(parents=True)
        shutil.copytree(game, self.db)
        self.oracle = oracle
        self.blobs = blobs
        self.rng = rng
        self.files = {}    # sector -> sha256 of the file on disk, None when hidden
        self.hidden = {}   # sector -> sha256 of the hidden file
        self.versions = {}  # sector -> [sha256, ...]: version 0 is the solved file
        self.names = {}    # sha256 -> "sector@vK", for messages
        for p in sorted(self.db.iterdir()):
            data = p.read_bytes()
            h = sha(data)
            blobs.setdefault(h, data)
            self.files[p.stem] = h
            self.versions[p.stem] = [h]
            self.names[h] = f"v0"
        self.main = self.stores / "main.sqlite"
        self.store_paths = {"main": self.main}
        self.runs = {}       # (store label, run id) -> RunInfo
        self.tampered = set()  # store labels
        self.campaign = None  # {"no", "n", "done": {i: shard record}}
        self.merges = 0
        self.claims = []
        self.liveness = []
        self.ops = []
        self.notes = []
        self.errors = []

    # -- the bytes on disk ------------------------------------------------------------------

    def now(self):
        return state_key(self.files)

    def present(self):
        return sorted(s for s, h in self.files.items() if h is not None)

    def add_version(self, sector, data):
        h = sha(data)
        self.blobs.setdefault(h, data)
        if h not in self.versions[sector]:
            self.versions[sector].append(h)
            self.names[h] = f"v{len(self.versions[sector]) - 1}"
        return h

    def write_file(self, sector, h, how, keep_mtime):
        """Puts version h of sector on disk: in place (same inode, same size) or by rename."""
        path = self.db / f"{sector}.mdb"
        data = self.blobs[h]
        st = path.stat()
        if how == "inplace":
            with open(path, "r+b") as f:
                f.write(data)
                f.truncate(len(data))
        else:
            tmp = self.stash / f".{sector}.new"
            tmp.write_bytes(data)
            os.replace(tmp, path)
        if keep_mtime:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        self.files[sector] = h

    def faulted(self, sector, entry, change, digest):
        """The current bytes of sector with one entry changed by scripts/inject_fault.py; the
        header's body digest left stale, recomputed (a producer that wrote a wrong value), or
        zeroed (a file recording no digest, as every Malom file). None if the edit is impossible."""
        tmp = self.stash / f".{sector}.fault"
        tmp.write_bytes(self.blobs[self.files[sector]])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = INJECT.main([str(tmp), "--entry", str(entry), *change])
        data = bytearray(tmp.read_bytes())
        tmp.unlink()
        if rc != 0:
            return None
        return self.sealed(data, digest)

    @staticmethod
    def sealed(data, digest):
        data = bytearray(data)
        if digest == "sealed":
            data[DIGEST] = hashlib.sha256(bytes(data[HEADER:])).digest()
        elif digest == "none":
            data[DIGEST] = bytes(32)
        return bytes(data)

    # -- running millaudit ------------------------------------------------------------------

    def mill(self, *args, env=None):
        return subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True,
                              timeout=300, env=env)

    def verify_args(self, mode="full", audit=None, threads=1, shard=None, sector=None):
        args = [self.binary, "verify", str(self.db), "--json", "--quiet", "--threads", str(threads)]
        if audit is not None:
            args += ["--audit", str(audit)]
        if mode == "incremental":
            args.append("--incremental")
        elif mode == "resume":
            args.append("--resume")
        if shard is not None:
            args += ["--shard", f"{shard[1]}/{shard[0]}"]
        if sector is not None:
            args += ["--sector", sector]
        return args

    @staticmethod
    def parse(stdout):
        try:
            return json.loads(stdout)
        except ValueError:
            return None

    def run_claim(self, source, rc, doc, requirements, scope_from_doc, store_label=None):
        """Registers a verify's run and, when it says verified with exit 0, its claim."""
        scope = None
        named = None
        if doc is not None:
            named = frozenset(s["sector"] for s in doc.get("sectors", []))
            if scope_from_doc:  # a partial run vouches for the sectors it lists as ok
                scope = frozenset(s["sector"] for s in doc.get("sectors", []) if s.get("status") == "ok")
        if store_label is not None and doc is not None and doc.get("run_id") is not None:
            self.runs[(store_label, doc["run_id"])] = RunInfo(requirements, scope, rc in (130, 143))
        if rc == 0 and (doc is None or doc.get("verdict") == "verified"):
            totals = (doc or {}).get("totals", {})
            self.claims.append(Claim(source, list(requirements), scope, named, None,
                                     totals.get("entries"), totals.get("verified")))
            if store_label is not None and doc is not None and doc.get("run_id") is not None:
                self.recorded_claim(source, store_label, doc["run_id"], requirements, scope)

    def recorded_claim(self, source, label, run_id, requirements, scope):
        """A verified run that recorded digests is about the bytes those digests name."""
        try:
            con = sqlite3.connect(f"file:{self.store_paths[label]}?mode=ro", uri=True)
            rows = con.execute("SELECT path, sha256 FROM manifest_files WHERE run_id = ?", (run_id,)).fetchall()
            con.close()
        except sqlite3.Error as e:
            self.notes.append(f"{source}: manifest of run {run_id} unreadable: {e}")
            return
        base = dict(requirements[0][0])
        files = dict(base)
        for path, digest in rows:
            sector = pathlib.PurePath(path).stem
            if digest not in self.blobs:
                self.notes.append(f"{source}: run {run_id} recorded {path} with a digest of bytes never "
                                  f"on disk as a whole ({digest[:12]})")
                return
            files[sector] = digest
        key = state_key(files)
        self.claims.append(Claim(f"{source} (the digests it recorded in run {run_id})", [[key]], scope))

    def live(self, source, rc, doc):
        self.liveness.append((source, rc, (doc or {}).get("verdict")))

    # -- operations ---------------------------------------------------------------------------

    def op_fault(self, sector, entry, change, digest, how, keep_mtime):
        if self.files.get(sector) is None:
            return "skipped: hidden"
        data = self.faulted(sector, entry, change, digest)
        if data is None:
            return "skipped: impossible edit"
        self.write_file(sector, self.add_version(sector, data), how, keep_mtime)

    def op_strip(self, sector):
        """The file without its body digest (all zero), bytes otherwise unchanged."""
        if self.files.get(sector) is None:
            return "skipped: hidden"
        data = self.sealed(self.blobs[self.files[sector]], "none")
        self.write_file(sector, self.add_version(sector, data), "rename", True)

    def op_hide(self, sector):
        if self.files.get(sector) is None:
            return "skipped: hidden"
        os.replace(self.db / f"{sector}.mdb", self.stash / f"{sector}.mdb")
        self.hidden[sector] = self.files[sector]
        self.files[sector] = None

    def op_restore(self, sector):
        if self.files.get(sector) is not None:
            return "skipped: present"
        os.replace(self.stash / f"{sector}.mdb", self.db / f"{sector}.mdb")
        self.files[sector] = self.hidden.pop(sector)

    def op_replace(self, sector, version, how, keep_mtime):
        if self.files.get(sector) is None:
            return "skipped: hidden"
        versions = self.versions[sector]
        self.write_file(sector, versions[version % len(versions)], how, keep_mtime)

    def op_verify(self, mode, audit, threads):
        audit = audit or mode == "incremental"  # --incremental needs a store (else a usage error)
        before = self.now()
        proc = subprocess.run(self.verify_args(mode, self.main if audit else None, threads),
                              capture_output=True, text=True, timeout=300)
        doc = self.parse(proc.stdout)
        source = f"verify {mode}{' --audit' if audit else ''} (op {len(self.ops)})"
        self.run_claim(source, proc.returncode, doc, [[before]], False, "main" if audit else None)
        if self.oracle(before).exit == 0:
            self.live(source, proc.returncode, doc)
        return f"exit {proc.returncode}"

    def op_verify_during(self, mode, audit, threads, delay_ms, change):
        """A run while a file is replaced under it (change: a replace or fault op)."""
        audit = audit or mode == "incremental"
        before = self.now()
        proc = subprocess.Popen(self.verify_args(mode, self.main if audit else None, threads),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay_ms / 1000)
        done_before = proc.poll() is not None
        outcome = self.apply(change)
        out, _ = proc.communicate(timeout=300)
        after = self.now()
        doc = self.parse(out)
        source = f"verify {mode}{' --audit' if audit else ''} while {change[0]} {change[1]} (op {len(self.ops)})"
        alternatives = [before] if done_before or before == after else [before, after]
        self.run_claim(source, proc.returncode, doc, [alternatives], False, "main" if audit else None)
        return f"exit {proc.returncode}{' (finished before the change)' if done_before else ''}" + (
            f"; change {outcome}" if outcome else "")

    def committed(self, store):
        try:
            con = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.05)
            n = con.execute("SELECT count(*) FROM sector_results").fetchone()[0]
            con.close()
            return n
        except sqlite3.Error:
            return 0

    def op_interrupt(self, k, delay_ms):
        """A full run stopped after k committed sectors (MILLAUDIT_TEST_STOP_AFTER_SECTORS where the
        build has it; else SIGINT once k sector results are in the store) or after delay_ms."""
        before = self.now()
        env = dict(os.environ, MILLAUDIT_TEST_STOP_AFTER_SECTORS=str(k))
        start_rows = self.committed(self.main)
        proc = subprocess.Popen(self.verify_args("full", self.main, 1), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + delay_ms / 1000
        while proc.poll() is None:
            if self.committed(self.main) - start_rows >= k or time.monotonic() > deadline:
                proc.send_signal(signal.SIGINT)
                break
            time.sleep(0.001)
        out, _ = proc.communicate(timeout=300)
        doc = self.parse(out)
        self.run_claim(f"verify --audit interrupted (op {len(self.ops)})", proc.returncode, doc,
                       [[before]], False, "main")
        if doc is None or doc.get("run_id") is None:
            rid = self.newest_run("main")
            if rid is not None and ("main", rid) not in self.runs:
                self.runs[("main", rid)] = RunInfo([[before]], None, True)
        return f"exit {proc.returncode}"

    def op_resume(self, sector, twice):
        before = self.now()
        args = self.verify_args("resume", self.main, 1, sector=sector)
        procs = [subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(2 if twice else 1)]
        codes = []
        for n, proc in enumerate(procs):
            out, _ = proc.communicate(timeout=300)
            doc = self.parse(out)
            codes.append(proc.returncode)
            self.run_claim(f"verify --resume{' --sector ' + sector if sector else ''}"
                           f"{' (' + str(n + 1) + ' of 2 at once)' if twice else ''} (op {len(self.ops)})",
                           proc.returncode, doc, [[before]], sector is not None, "main")
        return "exit " + ", ".join(map(str, codes))

    def op_shard(self, campaign, n, i):
        if self.campaign is None or self.campaign["no"] != campaign:
            self.campaign = {"no": campaign, "n": n, "done": {}}
        label = f"c{campaign}s{i}"
        store = self.stores / f"{label}.sqlite"
        if store.exists():
            return "skipped: shard already run"
        self.store_paths[label] = store
        before = self.now()
        proc = subprocess.run(self.verify_args("full", store, 1, shard=(n, i)), capture_output=True,
                              text=True, timeout=300)
        doc = self.parse(proc.stdout)
        source = f"verify --shard {i}/{n} (op {len(self.ops)})"
        self.run_claim(source, proc.returncode, doc, [[before]], True, label)
        self.campaign["done"][i] = {"label": label, "state": before, "rc": proc.returncode}
        if self.oracle(before).exit == 0:
            self.live(source, proc.returncode, doc)
        return f"exit {proc.returncode}"

    def op_tamper(self, i, kind):
        """Edits a shard's store as a user with sqlite3 could: lower `verified` of a sector, add a
        row for a sector with no file, or delete a sector's row."""
        if self.campaign is None or i not in self.campaign["done"]:
            return "skipped: no such shard run"
        label = self.campaign["done"][i]["label"]
        con = sqlite3.connect(self.store_paths[label])
        rows = con.execute("SELECT rowid, sector, verified FROM sector_results ORDER BY sector").fetchall()
        what = "nothing to tamper with"
        if kind == "lower" and any(v > 0 for _, _, v in rows):
            rowid, sector, _ = [r for r in rows if r[2] > 0][0]
            con.execute("UPDATE sector_results SET verified = verified - 1 WHERE rowid = ?", (rowid,))
            what = f"lowered verified of {sector}"
        elif kind == "add" and rows and NOWHERE not in [r[1] for r in rows]:
            cols = [r[1] for r in con.execute("PRAGMA table_info(sector_results)")]
            sel = ", ".join("?" if c == "sector" else c for c in cols)
            con.execute(f"INSERT INTO sector_results ({', '.join(cols)}) SELECT {sel} FROM sector_results "
                        f"WHERE rowid = ?", (NOWHERE, rows[0][0]))
            what = f"added a row for {NOWHERE}"
        elif kind == "delete" and rows:
            con.execute("DELETE FROM sector_results WHERE rowid = ?", (rows[-1][0],))
            what = f"deleted the row of {rows[-1][1]}"
        con.commit()
        con.close()
        if what != "nothing to tamper with":
            self.tampered.add(label)
        return what

    def newest_run(self, label):
        try:
            con = sqlite3.connect(f"file:{self.store_paths[label]}?mode=ro", uri=True)
            rid = con.execute("SELECT max(id) FROM runs").fetchone()[0]
            con.close()
            return rid
        except sqlite3.Error:
            return None

    def op_merge(self):
        if self.campaign is None or not self.campaign["done"]:
            return "skipped: no shard run"
        done = self.campaign["done"]
        self.merges += 1
        label = f"m{self.merges}"
        out = self.stores / f"{label}.sqlite"
        self.store_paths[label] = out
        shards = [done[i] for i in sorted(done)]
        proc = self.mill("runs", "merge", out, *[self.store_paths[s["label"]] for s in shards])
        text = proc.stdout + proc.stderr
        requirements = [[state] for state in sorted({s["state"] for s in shards})]
        source = f"runs merge of shards {sorted(done)} of {self.campaign['n']} (op {len(self.ops)})"
        m = re.search(r"verified: all (\d+) entries of (\d+) sectors", text)
        if proc.returncode == 0 and (m or "verified" in text):
            self.claims.append(Claim(source, requirements, None, None,
                                     int(m.group(2)) if m else None, int(m.group(1)) if m else None))
        rid = self.newest_run(label) if out.exists() else None
        if rid is not None:
            self.runs[(label, rid)] = RunInfo(requirements, None)
        untouched = (len(done) == self.campaign["n"]
                     and not any(s["label"] in self.tampered for s in shards)
                     and len({s["state"] for s in shards}) == 1
                     and all(s["rc"] == 0 for s in shards)
                     and self.oracle(shards[0]["state"]).exit == 0)
        if untouched:
            self.liveness.append((source, proc.returncode, "verified" if m else None))
        return f"exit {proc.returncode}"

    def pick_run(self, label, which):
        runs = sorted(r for (l, r) in self.runs if l == label)
        if not runs:
            return None
        if which == "interrupted":
            cands = [r for r in runs if self.runs[(label, r)].interrupted]
            return cands[-1] if cands else None
        return runs[which % len(runs)]

    def op_report(self, label, which):
        """`report --format json` of a run: its verdict is a claim about that run's states."""
        if label not in self.store_paths or label in self.tampered or not self.store_paths[label].exists():
            return "skipped: no such store"
        rid = self.pick_run(label, which)
        if rid is None:
            return "skipped: no run"
        proc = self.mill("report", "--audit", self.store_paths[label], "--run", rid, "--format", "json")
        doc = self.parse(proc.stdout)
        info = self.runs[(label, rid)]
        if proc.returncode == 0 and doc and doc.get("verdict", {}).get("state") == "verified":
            t = doc.get("totals", {})
            self.claims.append(Claim(f"report --run {rid} of {label} (\"{doc['verdict'].get('headline')}\", "
                                     f"op {len(self.ops)})", info.requirements, info.scope,
                                     {s["sector"] for s in doc.get("sectors", [])}, t.get("sectors"),
                                     t.get("entries"), t.get("verified")))
        return f"run {rid}: exit {proc.returncode}, {(doc or {}).get('verdict', {}).get('state')}"

    def op_runs_list(self, label):
        """`runs list --json`: every run listed with status ok is a claim about that run."""
        if label not in self.store_paths or label in self.tampered or not self.store_paths[label].exists():
            return "skipped: no such store"
        proc = self.mill("runs", "list", "--audit", self.store_paths[label], "--json")
        doc = self.parse(proc.stdout)
        listed = []
        for run in (doc or {}).get("runs", []):
            info = self.runs.get((label, run["id"]))
            listed.append(f"{run['id']}:{run['status']}")
            if proc.returncode == 0 and run.get("status") == "ok" and info is not None:
                t = run.get("totals", {})
                self.claims.append(Claim(f"runs list of {label}: run {run['id']} ok (op {len(self.ops)})",
                                         info.requirements, info.scope, None, t.get("sectors"),
                                         t.get("entries"), t.get("verified")))
        return f"exit {proc.returncode}: {' '.join(listed)}"

    def op_read(self, command, sector):
        """A reader's exit 0 says the bytes it read are the file's (docs/format.md §5.1)."""
        now = self.now()
        if command == "stats":
            proc = self.mill("stats", self.db)
            scope = None
        else:
            if self.files.get(sector) is None:
                return "skipped: hidden"
            proc = self.mill("dump", self.db / f"{sector}.mdb")
            scope = frozenset([sector])
        if proc.returncode == 0:
            self.claims.append(Claim(f"{command}{' ' + sector if scope else ''} (op {len(self.ops)})",
                                     [[now]], scope, reader=True))
        return f"exit {proc.returncode}"

    OPS = {"fault": op_fault, "strip": op_strip, "hide": op_hide, "restore": op_restore,
           "replace": op_replace, "verify": op_verify, "verify_during": op_verify_during,
           "interrupt": op_interrupt, "resume": op_resume, "shard": op_shard, "tamper": op_tamper,
           "merge": op_merge, "report": op_report, "runs_list": op_runs_list, "read": op_read}

    def apply(self, op):
        return self.OPS[op[0]](self, *op[1:])

    def execute(self, op):
        """Runs one operation; an error of the harness itself is kept as a violation, so the
        sequence is still printed with its seed."""
        self.ops.append((op, None))
        try:
            outcome = self.apply(op)
        except Exception as e:  # noqa: BLE001 -- reported with the sequence, never swallowed
            self.errors.append(f"op {len(self.ops) - 1} {op!r} raised {type(e).__name__}: {e}")
            outcome = "harness error"
        self.ops[-1] = (op, outcome)

    # -- the verdict of a sequence ------------------------------------------------------------

    def violations(self):
        final = self.oracle(self.now())  # the oracle: the bytes on disk after the sequence
        self.notes.append(f"final state: {final.text}")
        out = list(self.errors)
        for claim in self.claims:
            out += check_claim(claim, self.oracle, self.names)
        for source, rc, verdict in self.liveness:
            if rc != 0:
                out.append(f"{source}: the database it read is right (oracle exit 0) and nothing changed, "
                           f"but it exited {rc} ({verdict})")
        return out

    def transcript(self):
        lines = []
        for n, (op, outcome) in enumerate(self.ops):
            lines.append(f"  {n:2d} {op!r}{'  -> ' + outcome if outcome else ''}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Random sequences

def random_op(seq, rng, campaign_no):
    sectors = sorted(seq.files)
    present = seq.present()
    hidden = sorted(seq.hidden)
    sector = rng.choice(present) if present else rng.choice(sectors)
    how = rng.choice(["inplace", "rename"])
    keep = rng.random() < 0.7
    kinds = ["fault", "fault", "hide", "restore", "replace", "strip", "verify", "verify", "verify_during",
             "verify_during", "interrupt", "resume", "shard", "shard", "shard", "tamper", "merge", "merge",
             "report", "report", "runs_list", "read"]
    kind = rng.choice(kinds)

    def fault_op():
        change = rng.choice([["--outcome", "win"], ["--outcome", "loss"], ["--outcome", "draw"],
                             ["--depth-delta", "+1"], ["--depth-delta", "-1"]])
        entries = (len(seq.blobs[seq.files[sector]]) - HEADER) // 2 if seq.files.get(sector) else 1
        return ("fault", sector, rng.randrange(entries), change,
                rng.choice(["stale", "sealed", "sealed", "none"]), how, keep)

    def change_op():
        r = rng.random()
        if r < 0.4:
            return fault_op()
        if r < 0.8:
            return ("replace", sector, rng.randrange(8), how, keep)
        if hidden and r < 0.9:
            return ("restore", rng.choice(hidden))
        return ("hide", sector)

    if kind == "fault":
        return fault_op(), campaign_no
    if kind == "strip":
        return ("strip", sector), campaign_no
    if kind == "hide":
        return ("hide", sector), campaign_no
    if kind == "restore":
        return ("restore", rng.choice(hidden) if hidden else sector), campaign_no
    if kind == "replace":
        return ("replace", sector, rng.randrange(8), how, keep), campaign_no
    if kind == "verify":
        return ("verify", rng.choice(["full", "incremental", "incremental"]), rng.random() < 0.8,
                rng.choice([1, 2])), campaign_no
    if kind == "verify_during":
        return ("verify_during", rng.choice(["full", "incremental"]), rng.random() < 0.8, rng.choice([1, 2]),
                rng.randrange(0, 150), change_op()), campaign_no
    if kind == "interrupt":
        return ("interrupt", rng.randrange(0, 7), rng.randrange(5, 200)), campaign_no
    if kind == "resume":
        return ("resume", rng.choice([None, None, None, sector]), rng.random() < 0.2), campaign_no
    if kind == "shard":
        c = seq.campaign
        if c is None or len(c["done"]) == c["n"] or rng.random() < 0.1:
            campaign_no += 1
            n = rng.randint(2, 9)  # 1/1 is not a shard run (merge refuses it: "no shard run")
            return ("shard", campaign_no, n, rng.randrange(n)), campaign_no
        todo = [i for i in range(c["n"]) if i not in c["done"]]
        return ("shard", c["no"], c["n"], rng.choice(todo)), campaign_no
    if kind == "tamper":
        c = seq.campaign
        i = rng.choice(sorted(c["done"])) if c and c["done"] else 0
        return ("tamper", i, rng.choice(["lower", "add", "delete"])), campaign_no
    if kind == "merge":
        return ("merge",), campaign_no
    if kind == "report":
        labels = sorted(seq.store_paths)
        return ("report", rng.choice(labels), rng.choice([0, 1, 2, "interrupted"])), campaign_no
    if kind == "runs_list":
        return ("runs_list", rng.choice(sorted(seq.store_paths))), campaign_no
    return ("read", rng.choice(["stats", "dump"]), sector), campaign_no


def run_random(binary, game, workdir, oracle, blobs, seed):
    """Generates and runs the sequence of seed; returns it (with its violations computed)."""
    rng = random.Random(seed)
    seq = Sequence(binary, game, workdir, oracle, blobs, rng)
    campaign_no = 0
    for _ in range(rng.randint(4, 12)):
        op, campaign_no = random_op(seq, rng, campaign_no)
        seq.execute(op)
    # Many sequences end on a campaign's remaining shards and their merge, so the merge's
    # verdict is exercised on shards that saw different states.
    c = seq.campaign
    if c is not None and rng.random() < 0.7:
        for i in range(c["n"]):
            if i not in c["done"] and rng.random() < 0.8:
                seq.execute(("shard", c["no"], c["n"], i))
        seq.execute(("merge",))
    return seq


def run_ops(binary, game, workdir, oracle, blobs, ops):
    seq = Sequence(binary, game, workdir, oracle, blobs)
    for op in ops:
        seq.execute(op)
    return seq


def failure_text(seq, violations, replay):
    return ("\n".join(["model test: verdicts the oracle contradicts", *("  " + v for v in violations),
                       "operations:", seq.transcript(), "notes:", *("  " + n for n in seq.notes),
                       f"replay: {replay}"]))


def main(argv=None):
    """scripts/model-test: the long run. Prints one line per failing sequence and a summary."""
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(description="model-based differential test of millaudit's verdicts")
    ap.add_argument("--sequences", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--bin", default=str(ROOT / "build" / "millaudit"))
    ap.add_argument("--verbose", action="store_true", help="print every failing sequence in full")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="millaudit-model-") as tmp:
        tmp = pathlib.Path(tmp)
        game = tmp / "game"
        subprocess.run([args.bin, "solve", "--variant", "std", "--stones", "3", "--out", str(game), "--quiet"],
                       check=True, capture_output=True)
        blobs = {}
        oracle = Oracle(args.bin, tmp / "oracle", blobs)
        failed = 0
        kinds = {}
        start = time.monotonic()
        for n in range(args.sequences):
            seed = args.seed + n
            work = tmp / f"seq{n}"
            seq = run_random(args.bin, game, work, oracle, blobs, seed)
            violations = seq.violations()
            shutil.rmtree(work)
            if violations:
                failed += 1
                for v in violations:
                    key = re.sub(r"\(op \d+\)|\d+", "#", v.split(":")[0])
                    kinds[key] = kinds.get(key, 0) + 1
                replay = f"MILLAUDIT_MODEL_SEED={seed} MILLAUDIT_MODEL_SEQUENCES=1"
                if args.verbose:
                    print(failure_text(seq, violations, replay), flush=True)
                else:
                    print(f"seed {seed}: {len(violations)} violations; first: {violations[0][:300]}", flush=True)
        elapsed = time.monotonic() - start
        print(f"model test: {args.sequences} sequences from seed {args.seed}, {failed} failing, "
              f"{elapsed:.0f} s ({elapsed / max(1, args.sequences):.2f} s per sequence), "
              f"{oracle.runs} oracle runs")
        for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {v:6d}  {k}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
