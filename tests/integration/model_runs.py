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
VARIANTS = ("std", "lask", "mora")  # a file stem that is a variant word is its <variant>.secval
OPEN_MAGIC = b"\x89MILL"


def file_name(stem, data):
    """The file a state's entry is: <variant>.secval, an open-format .mdb or a Malom .sec2."""
    if stem in VARIANTS:
        return f"{stem}.secval"
    return f"{stem}.mdb" if data[:5] == OPEN_MAGIC else f"{stem}.sec2"


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
            (d / file_name(sector, self.blobs[h])).write_bytes(self.blobs[h])
        proc = subprocess.run([self.binary, "verify", str(d), "--json", "--threads", "1", "--quiet"],
                              capture_output=True, text=True, timeout=300)
        shutil.rmtree(d)
        doc = json.loads(proc.stdout)
        sectors = {}
        for s in doc["sectors"]:
            mismatch = s.get("body_digest") == "mismatch"
            # an unusable sector's object states no counts
            ok = (s["status"] == "ok" and s.get("discrepancies") == 0 and s.get("verified") == s.get("entries")
                  and not mismatch)
            sectors[s["sector"]] = {"ok": ok, "entries": s.get("entries", 0), "digest_mismatch": mismatch,
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
    trusted: bool = False  # a merge of unsealed, consistently edited stores: trusted as written


def plan_digests(inv_rows, shards, whole, plan_rows):
    """verifier/run/inventory.c's digests of an inventory and a plan, as anyone who can write a store can
    recompute them (the consistent edit sealing exists for)."""
    t = "millaudit inventory 1\n" + "".join(f"{p}\t{s}\t{d}\t{sec or ''}\n" for p, s, d, sec in sorted(inv_rows))
    inv = hashlib.sha256(t.encode()).hexdigest()
    t = f"millaudit plan 1\n{inv}\nshards {shards}\n{'whole' if whole else 'named'}\n"
    t += "".join(f"{s}\t{e}\t{sh}\n" for s, e, sh in sorted(plan_rows))
    return inv, hashlib.sha256(t.encode()).hexdigest()


SECTOR_TABLES = ("sector_class_counts", "discrepancies", "sector_inputs", "sector_discrepancy_sets", "sector_digests",
                 "sector_histograms", "sector_results")


class Sequence:
    """One sequence of operations on a fresh copy of the game."""

    def __init__(self, binary, game, workdir, oracle, blobs, rng=None, planted=None):
        self.binary = str(binary)
        self.planted = str(planted) if planted else None  # the test build: MILLAUDIT_TEST_STEP pauses
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
        # a .sec2 game: the sector values, its versions v1 (std_3_4_0_0's and std_4_3_0_0's values
        # swapped: a valid file of the same size whose values are wrong) and v2 (cut short: unusable)
        self.aux = {s for s in self.files if s in VARIANTS}
        self.kind = "open" if any((self.db / f"{s}.mdb").exists() for s in self.files) else "sec2"
        for v in self.aux:
            good = blobs[self.files[v]]
            swapped = good.replace(b"\n4 3 0 0  -40\n", b"\n4 3 0 0  40\n").replace(b"\n3 4 0 0  40\n",
                                                                                     b"\n3 4 0 0  -40\n")
            self.add_version(v, swapped)
            self.add_version(v, good[:-40])
        self.seal_key = self.work / "seal.key"
        self.seal_key.write_text(os.urandom(32).hex() + "\n")
        self.sign_key = None  # the attestation key pair, made when first needed
        self.edited = set()  # store labels edited consistently (digests recomputed)
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
        """The sector files present (not the .secval)."""
        return sorted(s for s, h in self.files.items() if h is not None and s not in self.aux)

    def path_of(self, stem, where=None):
        h = self.files.get(stem) or self.hidden.get(stem)
        return (where or self.db) / file_name(stem, self.blobs[h])

    def add_version(self, sector, data):
        h = sha(data)
        self.blobs.setdefault(h, data)
        if h not in self.versions[sector]:
            self.versions[sector].append(h)
            self.names[h] = f"v{len(self.versions[sector]) - 1}"
        return h

    def write_file(self, sector, h, how, keep_mtime):
        """Puts version h of sector on disk: in place (same inode, same size) or by rename."""
        path = self.path_of(sector)
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
        if self.kind != "open":
            return "skipped: not an open-format file"
        data = self.faulted(sector, entry, change, digest)
        if data is None:
            return "skipped: impossible edit"
        self.write_file(sector, self.add_version(sector, data), how, keep_mtime)

    def op_strip(self, sector):
        """The file without its body digest (all zero), bytes otherwise unchanged."""
        if self.files.get(sector) is None:
            return "skipped: hidden"
        if self.kind != "open":
            return "skipped: not an open-format file"
        data = self.sealed(self.blobs[self.files[sector]], "none")
        self.write_file(sector, self.add_version(sector, data), "rename", True)

    def op_hide(self, sector):
        if self.files.get(sector) is None:
            return "skipped: hidden"
        os.replace(self.path_of(sector), self.path_of(sector, self.stash))
        self.hidden[sector] = self.files[sector]
        self.files[sector] = None

    def op_restore(self, sector):
        if self.files.get(sector) is not None:
            return "skipped: present"
        os.replace(self.path_of(sector, self.stash), self.path_of(sector))
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
        with open(self.work / f"interrupt{len(self.ops)}.json", "w+") as out_file:  # a pipe could fill meanwhile
            proc = subprocess.Popen(self.verify_args("full", self.main, 1), stdout=out_file,
                                    stderr=subprocess.DEVNULL, text=True, env=env)
            deadline = time.monotonic() + delay_ms / 1000
            while proc.poll() is None:
                if self.committed(self.main) - start_rows >= k or time.monotonic() > deadline:
                    proc.send_signal(signal.SIGINT)
                    break
                time.sleep(0.001)
            proc.wait(timeout=300)
            out_file.seek(0)
            out = out_file.read()
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

    def op_shard(self, campaign, n, i, sealed=False):
        """Shard i of n of a campaign; a sealed campaign's shards seal their stores (--seal-key)."""
        if self.campaign is None or self.campaign["no"] != campaign:
            self.campaign = {"no": campaign, "n": n, "done": {}, "sealed": sealed}
        label = f"c{campaign}s{i}"
        store = self.stores / f"{label}.sqlite"
        if store.exists():
            return "skipped: shard already run"
        self.store_paths[label] = store
        before = self.now()
        seal = ["--seal-key", str(self.seal_key)] if self.campaign["sealed"] else []
        proc = subprocess.run(self.verify_args("full", store, 1, shard=(n, i)) + seal, capture_output=True,
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
        elif kind == "rewrite":
            what = self.rewrite_faulty_row(con)
        con.commit()
        con.close()
        if kind == "drop":
            what = self.drop_sector_everywhere()
        elif what != "nothing to tamper with":
            self.tampered.add(label)
            if kind == "rewrite":
                self.edited.add(label)
        return what

    @staticmethod
    def rewrite_faulty_row(con):
        """A sector with discrepancies rewritten as ok, its counts adding up and its discrepancies
        gone: an edit no digest of the store catches (docs/distributed.md "Sealing")."""
        row = con.execute("SELECT run_id, sector FROM sector_results WHERE discrepancies > 0 OR status <> 'ok'"
                          " ORDER BY sector LIMIT 1").fetchone()
        if row is None:
            return "nothing to tamper with"
        run, sector = row
        con.execute("UPDATE sector_results SET verified = entries, checked = entries, discrepancies = 0, roots = 0,"
                    " propagated = 0, within_bounds = 0, missing_child = 0, unverifiable = 0, body_digest = NULL,"
                    " message = NULL, status = 'ok' WHERE run_id = ? AND sector = ?", (run, sector))
        for t in ("sector_class_counts", "discrepancies"):
            con.execute(f"DELETE FROM {t} WHERE run_id = ? AND sector = ?", (run, sector))
        con.execute("UPDATE sector_discrepancy_sets SET count = 0, entries = x'', fixed_count = 0,"
                    " fixed_entries = x'' WHERE run_id = ? AND sector = ?", (run, sector))
        con.execute("UPDATE runs SET status = 'ok' WHERE id = ?", (run,))
        return f"rewrote the row of {sector} as ok (counts consistent)"

    def drop_sector_everywhere(self):
        """The smallest planned sector removed from every shard store of the campaign (inventory,
        partition, plan, results) with every digest recomputed: the shards look planned from a
        database without it."""
        stores = [self.store_paths[d["label"]] for d in self.campaign["done"].values()]
        cons = [sqlite3.connect(s) for s in stores]
        try:
            plans = [con.execute("SELECT sector, entries FROM run_partition WHERE run_id = (SELECT max(id) FROM runs)"
                                 " ORDER BY entries, sector").fetchall() for con in cons]
            if not plans or not plans[0]:
                return "nothing to tamper with"
            sector = plans[0][0][0]
            for con in cons:
                run, shards, whole = con.execute("SELECT id, plan_shards, plan_whole FROM runs ORDER BY id DESC"
                                                 " LIMIT 1").fetchone()
                for t in ("run_inventory", "run_partition", "run_plan") + SECTOR_TABLES:
                    con.execute(f"DELETE FROM {t} WHERE run_id = ? AND sector = ?", (run, sector))
                inv = con.execute("SELECT path, size, digest, sector FROM run_inventory WHERE run_id = ?",
                                  (run,)).fetchall()
                plan = con.execute("SELECT sector, entries, shard FROM run_partition WHERE run_id = ?",
                                   (run,)).fetchall()
                planned = con.execute("SELECT count(*) FROM run_partition WHERE run_id = ? AND shard ="
                                      " (SELECT shard_index FROM runs WHERE id = ?)", (run, run)).fetchone()[0]
                i, p = plan_digests(inv, shards, whole, plan)
                con.execute("UPDATE runs SET inventory_digest = ?, plan_digest = ?, planned_sectors = ? WHERE id = ?",
                            (i, p, planned, run))
                con.commit()
        finally:
            for con in cons:
                con.close()
        for d in self.campaign["done"].values():
            self.tampered.add(d["label"])
            self.edited.add(d["label"])
        return f"dropped {sector} from every shard store, digests recomputed"

    def newest_run(self, label):
        try:
            con = sqlite3.connect(f"file:{self.store_paths[label]}?mode=ro", uri=True)
            rid = con.execute("SELECT max(id) FROM runs").fetchone()[0]
            con.close()
            return rid
        except sqlite3.Error:
            return None

    def op_merge(self, keyed=False):
        """runs merge of the campaign's shards, with the seal key (keyed) or trusting the stores."""
        if self.campaign is None or not self.campaign["done"]:
            return "skipped: no shard run"
        done = self.campaign["done"]
        self.merges += 1
        label = f"m{self.merges}"
        out = self.stores / f"{label}.sqlite"
        self.store_paths[label] = out
        shards = [done[i] for i in sorted(done)]
        key = ["--seal-key", self.seal_key] if keyed else []
        proc = self.mill("runs", "merge", out, *[self.store_paths[s["label"]] for s in shards], *key)
        text = proc.stdout + proc.stderr
        requirements = [[state] for state in sorted({s["state"] for s in shards})]
        source = (f"runs merge{' --seal-key' if keyed else ''} of shards {sorted(done)} of {self.campaign['n']}"
                  f"{' (sealed)' if self.campaign['sealed'] else ''} (op {len(self.ops)})")
        m = re.search(r"verified: all (\d+) entries of (\d+) sectors", text)
        # unsealed, the merge trusts its stores as written (docs/distributed.md "Sealing"): a store
        # edited consistently makes its verdict a statement about the stores, not the database
        trusted = not keyed and any(s["label"] in self.edited for s in shards)
        if trusted and proc.returncode == 0:
            self.notes.append(f"{source}: an unsealed merge of consistently edited stores exited 0 "
                              f"(trusted as written, not a claim about the database)")
        elif proc.returncode == 0 and (m or "verified" in text):
            self.claims.append(Claim(source, requirements, None, None,
                                     int(m.group(2)) if m else None, int(m.group(1)) if m else None))
        rid = self.newest_run(label) if out.exists() else None
        if rid is not None:
            self.runs[(label, rid)] = RunInfo(requirements, None, trusted=trusted)
        untouched = (len(done) == self.campaign["n"] and (self.campaign["sealed"] or not keyed)
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
        if proc.returncode == 0 and doc and doc.get("verdict", {}).get("state") == "verified" and not info.trusted:
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
            if proc.returncode == 0 and run.get("status") == "ok" and info is not None and not info.trusted:
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
            proc = self.mill("dump", self.path_of(sector))
            scope = frozenset([sector])
        if proc.returncode == 0:
            self.claims.append(Claim(f"{command}{' ' + sector if scope else ''} (op {len(self.ops)})",
                                     [[now]], scope, reader=True))
        return f"exit {proc.returncode}"

    def op_secval(self, version, how, keep_mtime):
        """The .secval replaced by one of its versions (v0 right, v1 wrong values, v2 unusable), in
        place (same inode, size and, usually, mtime) or by rename."""
        if not self.aux:
            return "skipped: no .secval"
        stem = sorted(self.aux)[0]
        if self.files.get(stem) is None:
            return "skipped: hidden"
        versions = self.versions[stem]
        self.write_file(stem, versions[version % len(versions)], how, keep_mtime)

    def op_verify_paused(self, mode, audit, step, change):
        """A run paused at a defined point by the test build (MILLAUDIT_TEST_STEP: after the hash
        phase, right after a sector's file was opened, or after its check), a file changed there,
        the run let go on: the exact window a timed change may miss."""
        if not self.planted:
            return "skipped: no test build"
        audit = audit or mode == "incremental"
        ctl = self.work / f"ctl{len(self.ops)}"
        ctl.mkdir()
        env = dict(os.environ, MILLAUDIT_TEST_STEP=step, MILLAUDIT_TEST_STEP_DIR=str(ctl))
        before = self.now()
        args = [self.planted] + self.verify_args(mode, self.main if audit else None, 1)[1:]
        # the document goes to a file: a pipe nobody reads while the run is awaited would fill and
        # block a run that never reaches the step (a carried-over sector is never opened)
        with open(ctl / "out.json", "w+") as out_file:
            proc = subprocess.Popen(args, stdout=out_file, stderr=subprocess.DEVNULL, text=True, env=env)
            while not (ctl / "paused").exists() and proc.poll() is None:
                time.sleep(0.002)
            paused = (ctl / "paused").exists()
            outcome = self.apply(change)
            (ctl / "resume").touch()
            proc.wait(timeout=300)
            out_file.seek(0)
            out = out_file.read()
        after = self.now()
        doc = self.parse(out)
        source = (f"verify {mode}{' --audit' if audit else ''} paused at {step} while {change[0]} {change[1]}"
                  f" (op {len(self.ops)})")
        alternatives = [before] if not paused or before == after else [before, after]
        self.run_claim(source, proc.returncode, doc, [alternatives], False, "main" if audit else None)
        return f"exit {proc.returncode}{'' if paused else ' (never paused)'}" + (f"; change {outcome}" if outcome else "")

    def op_sector_run(self, sector):
        """verify --sector S into a store of its own: a claim about S (given what it read)."""
        if self.files.get(sector) is None:
            return "skipped: hidden"
        label = "sec"
        store = self.stores / "sec.sqlite"
        self.store_paths[label] = store
        before = self.now()
        proc = subprocess.run(self.verify_args("full", store, 1, sector=sector), capture_output=True, text=True,
                              timeout=300)
        doc = self.parse(proc.stdout)
        self.run_claim(f"verify --sector {sector} (op {len(self.ops)})", proc.returncode, doc, [[before]], True, label)
        return f"exit {proc.returncode}"

    def keys(self):
        if self.sign_key is None:
            sk, pk = self.work / "sign.pem", self.work / "sign.pub"
            subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(sk)], check=True,
                           capture_output=True)
            subprocess.run(["openssl", "pkey", "-in", str(sk), "-pubout", "-out", str(pk)], check=True,
                           capture_output=True)
            self.sign_key = (sk, pk)
        return self.sign_key

    def op_attest(self, label, which):
        """attest create of a recorded run (--allow-partial --allow-unverified: any run gets a
        statement), then attest verify --db of the database as it is now. Exit 0 claims the whole
        database now; exit 6 the sectors of the statement's scope, given its inputs."""
        if label not in self.store_paths or label in self.tampered or not self.store_paths[label].exists():
            return "skipped: no such store"
        rid = self.pick_run(label, which)
        if rid is None:
            return "skipped: no run"
        sk, pk = self.keys()
        att = self.work / f"att{len(self.ops)}.json"
        made = self.mill("attest", "create", "--audit", self.store_paths[label], "--run", rid, "--key", sk, "--out",
                         att, "--allow-partial", "--allow-unverified")
        if made.returncode != 0:
            return f"run {rid}: create exit {made.returncode}"
        now = self.now()
        proc = self.mill("attest", "verify", att, "--pub", pk, "--db", self.db, "--json")
        doc = self.parse(proc.stdout) or {}
        scope = doc.get("scope") or {}
        st = doc.get("statement") or {}
        source = f"attest verify --db of run {rid} of {label} (scope {scope.get('kind')}, op {len(self.ops)})"
        if proc.returncode == 0:
            totals = st.get("totals", {})
            self.claims.append(Claim(source, [[now]], None, set(scope.get("sectors") or []),
                                     len(scope.get("sectors") or []), totals.get("entries"), totals.get("verified")))
        elif proc.returncode == 6:
            self.claims.append(Claim(source, [[now]], frozenset(scope.get("sectors") or [])))
        return f"run {rid}: verify exit {proc.returncode} ({doc.get('result')})"

    OPS = {"fault": op_fault, "strip": op_strip, "hide": op_hide, "restore": op_restore,
           "replace": op_replace, "verify": op_verify, "verify_during": op_verify_during,
           "interrupt": op_interrupt, "resume": op_resume, "shard": op_shard, "tamper": op_tamper,
           "merge": op_merge, "report": op_report, "runs_list": op_runs_list, "read": op_read,
           "secval": op_secval, "verify_paused": op_verify_paused, "sector_run": op_sector_run,
           "attest": op_attest}

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
    sectors = sorted(s for s in seq.files if s not in seq.aux)
    present = seq.present()
    hidden = sorted(seq.hidden)
    sector = rng.choice(present) if present else rng.choice(sectors)
    how = rng.choice(["inplace", "rename"])
    keep = rng.random() < 0.7
    if seq.kind == "open":
        kinds = ["fault", "fault", "hide", "restore", "replace", "strip", "verify", "verify", "verify_during",
                 "verify_during", "verify_paused", "interrupt", "resume", "shard", "shard", "shard", "tamper",
                 "merge", "merge", "report", "report", "runs_list", "read", "sector_run", "attest", "attest"]
    else:  # a .sec2 game: its faults are the wrong and the broken .secval
        kinds = ["secval", "secval", "hide", "restore", "verify", "verify", "verify_during", "verify_paused",
                 "verify_paused", "interrupt", "resume", "shard", "shard", "tamper", "merge", "merge", "report",
                 "runs_list", "sector_run", "attest", "attest"]
    kind = rng.choice(kinds)

    def secval_op():
        return ("secval", rng.randrange(3), how, keep)

    def fault_op():
        change = rng.choice([["--outcome", "win"], ["--outcome", "loss"], ["--outcome", "draw"],
                             ["--depth-delta", "+1"], ["--depth-delta", "-1"]])
        entries = (len(seq.blobs[seq.files[sector]]) - HEADER) // 2 if seq.files.get(sector) else 1
        return ("fault", sector, rng.randrange(entries), change,
                rng.choice(["stale", "sealed", "sealed", "none"]), how, keep)

    def change_op():
        r = rng.random()
        if seq.kind != "open":
            if r < 0.6:
                return secval_op()
            if hidden and r < 0.8:
                return ("restore", rng.choice(hidden))
            return ("hide", sector)
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
    if kind == "secval":
        return secval_op(), campaign_no
    if kind == "verify_paused":
        step = rng.choice(["hashed", "hashed", f"opened:{rng.choice(sectors)}", f"checked:{rng.choice(sectors)}"])
        return ("verify_paused", rng.choice(["full", "incremental"]), rng.random() < 0.8, step, change_op()), campaign_no
    if kind == "sector_run":
        return ("sector_run", sector), campaign_no
    if kind == "attest":
        labels = sorted(seq.store_paths)
        return ("attest", rng.choice(labels), rng.choice([0, 1, 2, -1])), campaign_no
    if kind == "interrupt":
        return ("interrupt", rng.randrange(0, 7), rng.randrange(5, 200)), campaign_no
    if kind == "resume":
        return ("resume", rng.choice([None, None, None, sector]), rng.random() < 0.2), campaign_no
    if kind == "shard":
        c = seq.campaign
        if c is None or len(c["done"]) == c["n"] or rng.random() < 0.1:
            campaign_no += 1
            n = rng.randint(2, 9) if seq.kind == "open" else rng.randint(2, 4)  # 1/1 is no shard run
            return ("shard", campaign_no, n, rng.randrange(n), rng.random() < 0.5), campaign_no
        todo = [i for i in range(c["n"]) if i not in c["done"]]
        return ("shard", c["no"], c["n"], rng.choice(todo)), campaign_no
    if kind == "tamper":
        c = seq.campaign
        i = rng.choice(sorted(c["done"])) if c and c["done"] else 0
        return ("tamper", i, rng.choice(["lower", "add", "delete", "rewrite", "drop"])), campaign_no
    if kind == "merge":
        return ("merge", rng.random() < 0.6), campaign_no
    if kind == "report":
        labels = sorted(seq.store_paths)
        return ("report", rng.choice(labels), rng.choice([0, 1, 2, "interrupted"])), campaign_no
    if kind == "runs_list":
        return ("runs_list", rng.choice(sorted(seq.store_paths))), campaign_no
    return ("read", rng.choice(["stats", "dump"]), sector), campaign_no


def run_random(binary, game, workdir, oracle, blobs, seed, planted=None, sec2=None):
    """Generates and runs the sequence of seed; returns it (with its violations computed). With sec2
    (a .sec2 game with its .secval), a fifth of the sequences run on it."""
    rng = random.Random(seed)
    if sec2 is not None and rng.random() < 0.2:
        game = sec2
    seq = Sequence(binary, game, workdir, oracle, blobs, rng, planted)
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
        seq.execute(("merge", rng.random() < 0.6))
        if rng.random() < 0.5:
            seq.execute(("attest", f"m{seq.merges}", -1))
    return seq


def run_ops(binary, game, workdir, oracle, blobs, ops, planted=None):
    seq = Sequence(binary, game, workdir, oracle, blobs, planted=planted)
    for op in ops:
        seq.execute(op)
    return seq


SECVAL_FIXTURE = ROOT.parent / "shared" / "fixtures" / "malom" / "original-excerpt" / "std.secval"


def make_sec2_game(binary, out):
    """The .sec2 game of the model: the producer's std 3_4_0_0 with its successors 3_3_0_0 and
    4_3_0_0 as Malom .sec2 files, read with the real std.secval of ../shared/fixtures (None when
    the fixture is absent: then every sequence runs on the open-format game)."""
    if not SECVAL_FIXTURE.is_file():
        return None
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(binary), "solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out",
                    str(out / "open"), "--quiet"], check=True, capture_output=True)
    subprocess.run([str(binary), "solve", "--variant", "std", "--sector", "3_4_0_0", "--with-deps", "--out",
                    str(out / "db"), "--open-dir", str(out / "open"), "--format", "malom-sec2", "--secval",
                    str(SECVAL_FIXTURE), "--quiet"], check=True, capture_output=True)
    return out / "db"


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
    ap.add_argument("--planted", default=str(ROOT / "build" / "millaudit-planted"),
                    help="the test build, for the runs paused at a defined point (none: those are skipped)")
    ap.add_argument("--verbose", action="store_true", help="print every failing sequence in full")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="millaudit-model-") as tmp:
        tmp = pathlib.Path(tmp)
        game = tmp / "game"
        subprocess.run([args.bin, "solve", "--variant", "std", "--stones", "3", "--out", str(game), "--quiet"],
                       check=True, capture_output=True)
        sec2 = make_sec2_game(args.bin, tmp / "sec2")
        planted = args.planted if args.planted != "none" and os.path.exists(args.planted) else None
        blobs = {}
        oracle = Oracle(args.bin, tmp / "oracle", blobs)
        failed = 0
        kinds = {}
        trusted = 0
        start = time.monotonic()
        for n in range(args.sequences):
            seed = args.seed + n
            work = tmp / f"seq{n}"
            seq = run_random(args.bin, game, work, oracle, blobs, seed, planted, sec2)
            violations = seq.violations()
            trusted += sum("trusted as written" in n for n in seq.notes)
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
              f"{oracle.runs} oracle runs; .sec2 game {'on' if sec2 else 'absent (no fixture)'}, "
              f"paused runs {'on' if planted else 'off (no test build)'}; {trusted} unsealed merges of "
              f"consistently edited stores exited 0 (trusted as written, not counted as claims)")
        for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
            print(f"  {v:6d}  {k}")
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
