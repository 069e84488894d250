"""Running generated mutants for scripts/mutate --generate (docs/verifier.md "Generated mutants").

The scratch tree, the cheap compile that sorts out the mutants that cannot compile or that compile
to the very object code of the original (trivially equivalent), the coverage map that tells which
tests execute each line, the run of each mutant against the tests that execute it, and the report.
"""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import random
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import mutgen

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYTHON = "/usr/bin/python3"  # the Debian python that has pytest (docs: the brief)

# Every file on the path from file to verdict and from run to claim (issue 43).
SCOPE = ["verifier/formats/*.[ch]", "indexer/*.[ch]", "verifier/check/*.[ch]", "verifier/run/*.[ch]",
         "reports/store/audit_merge.c", "reports/store/audit_inventory.c", "reports/store/runs.c",
         "reports/store/audit_run.c", "checksums/manifest.c", "checksums/dsse.c", "checksums/sha256.c",
         "common/output.c", "common/verdict.c"]

# status words of a mutant in a report
KILLED, SURVIVED, UNCOVERED, INVALID, SAME_CODE, ERROR, UNDECIDED = (
    "killed", "survived", "uncovered", "invalid", "same-code", "error", "undecided")


def scope_files(root=ROOT):
    out = []
    for pattern in SCOPE:
        out += sorted(str(p.relative_to(root)) for p in root.glob(pattern))
    return out


def generate_all(files, seed, root=ROOT):
    """{file: (source, [Mutant])} of every file, in the order given."""
    out = {}
    for f in files:
        source = (root / f).read_text()
        out[f] = (source, mutgen.generate(f, source, seed))
    return out


def digest_tree(root, files):
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.encode() + b"\0" + (root / f).read_bytes())
    return h.hexdigest()


def run(cmd, cwd=None, timeout=None, env=None):
    """subprocess.run in a session of its own, so a timeout ends the command and its children."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return subprocess.CompletedProcess(cmd, -9, out or "", (err or "") + "\nTIMEOUT")


# ---- the scratch tree ----

# the mutation harness itself: no test's coverage depends on these (a change to them keeps the
# coverage map of the scratch tree)
HARNESS = {"scripts/mutate", "scripts/mutgen.py", "scripts/mutrun.py", "scripts/mutate_coverage_plugin.py",
           "scripts/mutants-equivalent.txt"}


def tree_files(root):
    """The tree's files (repository paths), without build trees, .git and caches."""
    out = []
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts[0].startswith("build") or rel.parts[0] in (".git", "demo-out") or "__pycache__" in rel.parts \
                or ".pytest_cache" in rel.parts:
            continue
        if p.is_file() or p.is_symlink():
            out.append(str(rel))
    return sorted(out)


def sync_tree(src_root, dst):
    """Makes dst a copy of src_root, touching only the files that differ (so an incremental
    build of dst rebuilds only what changed). Returns the number of files written or removed."""
    want = tree_files(src_root)
    have = set(tree_files(dst)) if dst.exists() else set()
    changed = 0
    for f in want:
        s, d = src_root / f, dst / f
        if s.is_symlink():
            if not d.is_symlink() or os.readlink(d) != os.readlink(s):
                if d.exists() or d.is_symlink():
                    d.unlink()
                d.parent.mkdir(parents=True, exist_ok=True)
                d.symlink_to(os.readlink(s))
                changed += 1
        elif not d.is_file() or d.is_symlink() or d.read_bytes() != s.read_bytes():
            if d.is_symlink():
                d.unlink()
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(s, d)
            changed += 1
    for f in sorted(have - set(want)):
        (dst / f).unlink()
        changed += 1
    return changed


def prepare_scratch(work, jobs, log):
    """work/src (a copy of the tree: a copy left by an earlier run is brought up to date, file by
    file, also when a run stopped mid-mutant left a file mutated), work/shared (-> ../shared),
    work/build (Release, with its compile commands, built)."""
    src, build = work / "src", work / "build"
    n = sync_tree(ROOT, src)
    shared = work / "shared"
    if not shared.exists() and (ROOT.parent / "shared").is_dir():
        shared.symlink_to((ROOT.parent / "shared").resolve())
    cfg = run(["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", "-DENABLE_WERROR=OFF",
               "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], cwd=work)
    if cfg.returncode:
        raise SystemExit(f"cmake failed:\n{cfg.stderr[-3000:]}")
    t0 = time.time()
    b = run(["cmake", "--build", str(build), "-j", str(jobs)], cwd=work)
    if b.returncode:
        raise SystemExit(f"the scratch tree does not build:\n{b.stdout[-3000:]}{b.stderr[-3000:]}")
    log(f"scratch tree {src} ({n} files brought up to date), release build {time.time() - t0:.0f} s")
    return src, build


# ---- the cheap compile ----

class Compiler:
    """Compiles one file of the scratch tree, mutated, as the release build compiles it, into a
    temporary object: a mutant that fails is invalid; one whose objects equal the original's is
    the same program (trivially equivalent: a sizeof operand, code under a disabled #if)."""

    def __init__(self, src, build):
        self.src, self.build = src, build
        self.commands = {}
        for e in json.loads((build / "compile_commands.json").read_text()):
            args = e.get("arguments") or shlex.split(e["command"])
            if "-o" in args and "-c" in args:
                self.commands[str(pathlib.Path(e["file"]).resolve())] = (e["directory"], args)
        self.originals = {}
        self.includers = {}

    def units_of(self, rel):
        """The translation units a change of rel recompiles: rel itself, or a header's includers."""
        path = str((self.src / rel).resolve())
        if path in self.commands:
            return [path]
        if rel not in self.includers:
            # a header: every unit whose dependency file names it
            units = []
            for unit, (d, args) in self.commands.items():
                dep = pathlib.Path(d) / (args[args.index("-o") + 1] + ".d")
                if dep.exists() and path in dep.read_text().replace("\\\n", " ").split():
                    units.append(unit)
            self.includers[rel] = sorted(units)
        return self.includers[rel]

    def _compile(self, unit, rel, text, tmp):
        """Object bytes of unit compiled with rel's text (None: rel unchanged), or (None, error)."""
        d, args = self.commands[unit]
        args = [a for a in args if a != "-Werror"]
        obj = tmp / (hashlib.sha1(unit.encode()).hexdigest() + ".o")
        args[args.index("-o") + 1] = str(obj)
        extra = []
        if text is not None:
            # the mutated file at its relative path under tmp, found before the tree's (-I tmp
            # first for a header; the unit itself compiled from there, its own directory's includes
            # still found through -iquote), its name recorded as the tree's (-ffile-prefix-map)
            tmp_file = tmp / "src" / rel
            tmp_file.parent.mkdir(parents=True, exist_ok=True)
            tmp_file.write_text(text)
            extra = [f"-I{tmp / 'src'}", f"-iquote{pathlib.Path(unit).parent}",
                     f"-ffile-prefix-map={tmp / 'src'}={self.src}"]
            if str(pathlib.Path(unit)) == str((self.src / rel).resolve()):
                args[args.index("-c") + 1] = str(tmp_file)
        r = run([args[0]] + extra + args[1:], cwd=d, timeout=600)
        if r.returncode:
            lines = [l for l in r.stderr.splitlines() if "error" in l] or r.stderr.splitlines() or ["?"]
            return None, lines[0][-160:]
        return obj.read_bytes(), None

    def original(self, unit, tmp):
        if unit not in self.originals:
            obj, err = self._compile(unit, None, None, tmp)
            if obj is None:
                raise SystemExit(f"the unmutated {unit} does not compile: {err}")
            self.originals[unit] = obj
        return self.originals[unit]

    def classify(self, rel, text):
        """(INVALID, reason), (SAME_CODE, reason) or (None, None): the mutant is worth running."""
        with tempfile.TemporaryDirectory(prefix="mutate-cc-") as t:
            tmp = pathlib.Path(t)
            units = self.units_of(rel)
            if not units:
                return INVALID, f"no translation unit compiles {rel}"
            same = True
            for unit in units:
                obj, err = self._compile(unit, rel, text, tmp)
                if obj is None:
                    return INVALID, err
                if obj != self.original(unit, tmp):
                    same = False
                    break
            if same:
                return SAME_CODE, f"object code of {len(units)} unit(s) unchanged"
            return None, None


# ---- the coverage map ----

LAUNCHER = """#!/bin/sh
# scripts/mutate's coverage build: every unit but the producer's at -O0 with gcov (the last -O wins)
case "$*" in
  */solver/*) exec "$@" ;;
esac
exec "$@" -O0 --coverage
"""


def _gcov_lines(prefix_dirs, build_cov, objects=None):
    """{source path: set(executed lines)} and {source path: set(executable lines)} of the gcov
    data under prefix_dirs (each a GCOV_PREFIX directory, or a stray copy of the build tree);
    objects, when given, the objects worth reading (paths in build_cov without .o)."""
    gcdas = []
    for d in prefix_dirs:
        gcdas += [p for p in pathlib.Path(d).rglob("*.gcda")
                  if objects is None or str(p)[:-5].split(str(build_cov), 1)[-1] in objects]
    executed, executable = {}, {}
    if not gcdas:
        return executed, executable
    for g in gcdas:
        # the notes file sits beside the object in the coverage build: link it beside the data
        rel = str(g).split(str(build_cov), 1)
        if len(rel) != 2:
            continue
        note = pathlib.Path(str(build_cov) + rel[1][:-5] + ".gcno")
        link = g.with_suffix(".gcno")
        if note.exists() and not link.exists():
            link.symlink_to(note)
    for i in range(0, len(gcdas), 200):
        r = run(["gcov", "--json-format", "--stdout"] + [str(g) for g in gcdas[i:i + 200]],
                cwd=str(build_cov), timeout=600)
        for line in r.stdout.splitlines():
            if not line.startswith("{"):
                continue
            for f in json.loads(line).get("files", []):
                ex = executed.setdefault(f["file"], set())
                able = executable.setdefault(f["file"], set())
                for ln in f["lines"]:
                    able.add(ln["line_number"])
                    if ln["count"] > 0:
                        ex.add(ln["line_number"])
    return executed, executable


def scoped_objects(bcov, src, files):
    """The objects of the coverage build that hold code of files (a scoped source, or a unit
    including a scoped header), by their dependency files: paths in bcov without .o."""
    want = {str((src / f).resolve()) for f in files}
    out = set()
    for dep in bcov.rglob("*.o.d"):
        if want & set(dep.read_text().replace("\\\n", " ").split()):
            out.add(str(dep)[len(str(bcov)):-4])
    return out


class Coverage:
    """Which test executes which line of the scoped files: tests[i] is "ctest NAME" or
    "pytest NODEID"; lines[file][line] the set of test indices; executable[file] the lines gcov
    knows as code; seconds[i] the test's time in the coverage run; failed the tests that failed
    there (never selected: a test that fails unmutated cannot tell a mutant)."""

    def __init__(self, data):
        self.tests = data["tests"]
        self.seconds = data["seconds"]
        self.failed = set(data["failed"])
        self.lines = {f: {int(k): set(v) for k, v in d.items()} for f, d in data["lines"].items()}
        self.executable = {f: set(v) for f, d in data["executable"].items() for v in [d]}

    def select(self, m):
        """Indices of the tests that execute m's statement (its window of lines), or, when gcov
        marks none of those lines as code, m's function."""
        per_line = self.lines.get(m.file, {})
        able = self.executable.get(m.file, set())
        lo, hi = m.window
        lines = [ln for ln in range(lo, hi + 1) if ln in able]
        if not lines:
            flo, fhi = m.function_lines
            lines = [ln for ln in range(flo, fhi + 1) if ln in able]
        sel = set()
        for ln in lines:
            sel |= per_line.get(ln, set())
        return sorted((i for i in sel if self.tests[i] not in self.failed), key=lambda i: (self.seconds[i], i))


def build_coverage(work, src, jobs, files, log, pytest_args=()):
    """The coverage map of the scratch tree (cached in work/coverage.json for the same tree)."""
    cache = work / "coverage.json"
    key = digest_tree(src, [f for f in tree_files(src) if f not in HARNESS and not pathlib.Path(src / f).is_symlink()])
    files = sorted(set(files) | set(scope_files(src)))
    if cache.exists():
        data = json.loads(cache.read_text())
        if data.get("tree") == key and set(files) <= set(data.get("files", [])):
            log(f"coverage map: cached ({len(data['tests'])} tests)")
            return Coverage(data)
    t0 = time.time()
    bcov = work / "build-cov"
    launcher = work / "covcc"
    launcher.write_text(LAUNCHER)
    launcher.chmod(0o755)
    cfg = run(["cmake", "-S", str(src), "-B", str(bcov), "-DCMAKE_BUILD_TYPE=Release", "-DENABLE_WERROR=OFF",
               f"-DCMAKE_C_COMPILER_LAUNCHER={launcher}", "-DCMAKE_EXE_LINKER_FLAGS=--coverage",
               "-DCMAKE_SHARED_LINKER_FLAGS=--coverage"], cwd=work)
    if cfg.returncode:
        raise SystemExit(f"cmake (coverage) failed:\n{cfg.stderr[-3000:]}")
    b = run(["cmake", "--build", str(bcov), "-j", str(jobs)], cwd=work)
    if b.returncode:
        raise SystemExit(f"coverage build failed:\n{b.stdout[-3000:]}{b.stderr[-3000:]}")
    for g in bcov.rglob("*.gcda"):
        g.unlink()
    log(f"coverage build {time.time() - t0:.0f} s")
    data_dir = work / "cov-data"
    if data_dir.exists():
        shutil.rmtree(data_dir)
    data_dir.mkdir()
    tests, seconds, failed, dirs = [], [], [], []

    # ctest: each unit test alone, with its own GCOV_PREFIX, --jobs at a time
    names = [l.split(": ", 1)[1].strip() for l in run(["ctest", "-N"], cwd=bcov).stdout.splitlines()
             if re.match(r"\s*Test\s+#\d+:", l)]
    names = [n for n in names if not n.startswith("test_solver_")]

    def one(name):
        d = data_dir / ("ctest-" + name)
        env = dict(os.environ, GCOV_PREFIX=str(d), MILLAUDIT_REQUIRE_FIXTURES="1")
        t = time.time()
        r = run(["ctest", "-R", f"^{re.escape(name)}$", "--timeout", "3600"], cwd=bcov, env=env)
        return name, d, time.time() - t, r.returncode == 0

    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        for name, d, s, ok in ex.map(one, names):
            tests.append("ctest " + name)
            seconds.append(s)
            dirs.append([d])
            if not ok:
                failed.append("ctest " + name)
    log(f"coverage: {len(names)} unit tests run ({time.time() - t0:.0f} s)")

    # pytest: the whole integration suite once, each test's data apart (mutate_coverage_plugin)
    env = pytest_env(bcov, work, dict(MUTATE_COV_DIR=str(data_dir / "pytest"), MUTATE_COV_BUILD=str(bcov)))
    env["PYTHONPATH"] = str(ROOT / "scripts") + os.pathsep + env.get("PYTHONPATH", "")
    junit = work / "cov-pytest.xml"
    r = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutate_coverage_plugin",
             f"--basetemp={work / 'pytest-cov'}", f"--junitxml={junit}", *pytest_args,
             str(src / "tests" / "integration")], cwd=src, env=env)
    index = json.loads((data_dir / "pytest" / "index.json").read_text())
    results = junit_results(junit)
    for nodeid, d in index["tests"].items():
        tests.append("pytest " + nodeid)
        sec, ok = results.get(nodeid, (0.0, False))
        seconds.append(sec)
        dirs.append([data_dir / "pytest" / d] + [data_dir / "pytest" / index["fixtures"][k]
                                                 for k in index["uses"].get(nodeid, [])
                                                 if k in index["fixtures"]])
        if not ok:
            failed.append("pytest " + nodeid)
    log(f"coverage: {len(index['tests'])} integration tests run, pytest exit {r.returncode} "
        f"({time.time() - t0:.0f} s)")

    # gcov: each test's executed lines of the scoped files, inverted to the tests of each line
    src_real = str(src.resolve()) + "/"
    wanted = set(files)
    lines, executable = {}, {}
    every_dir = sorted({str(d) for ds in dirs for d in ds})
    objects = scoped_objects(bcov, src, wanted)
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as ex:
        memo = dict(zip(every_dir, ex.map(lambda d: _gcov_lines([d], bcov, objects), every_dir)))
    for d, (_, able) in memo.items():
        for f, s in able.items():
            rel = f[len(src_real):] if f.startswith(src_real) else f
            if rel in wanted:
                executable.setdefault(rel, set()).update(s)
    for i, ds in enumerate(dirs):
        for d in ds:
            for f, s in memo[str(d)][0].items():
                rel = f[len(src_real):] if f.startswith(src_real) else f
                if rel not in wanted:
                    continue
                per = lines.setdefault(rel, {})
                for ln in s:
                    per.setdefault(ln, set()).add(i)
    data = {"tree": key, "files": files, "tests": tests, "seconds": seconds, "failed": failed,
            "lines": {f: {str(k): sorted(v) for k, v in d.items()} for f, d in lines.items()},
            "executable": {f: sorted(s) for f, s in executable.items()}}
    cache.write_text(json.dumps(data))
    shutil.rmtree(data_dir, ignore_errors=True)
    log(f"coverage map: {len(tests)} tests, {len(failed)} failed unmutated (never selected), "
        f"{time.time() - t0:.0f} s")
    for t in failed:
        log(f"  failed unmutated: {t}")
    return Coverage(data)


def junit_results(path):
    """{nodeid: (seconds, passed)} from pytest's JUnit XML."""
    import xml.etree.ElementTree as ET
    out = {}
    if not path.exists():
        return out
    for case in ET.parse(path).getroot().iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        parts = cls.split(".")
        # classname "tests.integration.test_x" or "...test_x.TestClass"; nodeid "tests/integration/test_x.py::name"
        for cut in range(len(parts), 0, -1):
            p = "/".join(parts[:cut]) + ".py"
            if (ROOT / p).exists() or cut == 1:
                nodeid = "::".join([p] + parts[cut:] + [name])
                break
        ok = not any(c.tag in ("failure", "error") for c in case)
        out[nodeid] = (float(case.get("time", 0) or 0), ok)
    return out


def pytest_env(build, work, extra=None):
    env = dict(os.environ, MILLAUDIT_BIN=str(build / "millaudit"), MILLAUDIT_ASAN_BIN=str(build / "millaudit"),
               MILLAUDIT_PLANTED_BIN=str(build / "millaudit-planted"),
               MILLAUDIT_PLANTED_ASAN_BIN=str(build / "millaudit-planted"), MILLAUDIT_REQUIRE_FIXTURES="1")
    env.update(extra or {})
    return env


# ---- choosing the mutants ----

def order_key(seed, m):
    return hashlib.sha256(f"{seed}:{m.id}".encode()).hexdigest()


def quotas(counts, n):
    """Per file, its share of n by its number of mutants (largest remainder), at least 1 each."""
    total = sum(counts.values())
    if total == 0:
        return {}
    exact = {f: n * c / total for f, c in counts.items() if c}
    q = {f: max(1, int(x)) for f, x in exact.items()}
    left = n - sum(q.values())
    for f in sorted(exact, key=lambda f: (-(exact[f] - int(exact[f])), f)):
        if left <= 0:
            break
        q[f] += 1
        left -= 1
    return q


# ---- the equivalent mutants ----

def parse_equivalents(text):
    """[{id, was, now, why}] of scripts/mutants-equivalent.txt."""
    out, cur = [], None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("=== "):
            cur = {"id": line[4:].strip(), "was": None, "now": None, "why": None, "line": n}
            out.append(cur)
        elif cur is not None and line[:5] in ("was: ", "now: ", "why: "):
            cur[line[:3]] = line[5:].strip()
        elif line.strip() and not line.startswith("#"):
            raise SystemExit(f"mutants-equivalent.txt line {n}: expected ===, was:, now: or why:")
    for e in out:
        if None in (e["was"], e["now"], e["why"]):
            raise SystemExit(f"mutants-equivalent.txt: {e['id']}: needs was:, now: and why:")
    return out


def check_equivalents(entries, seed, root=ROOT):
    """Lines naming every entry that no longer matches a generated mutant."""
    problems, cache = [], {}
    for e in entries:
        f = e["id"].split(":", 1)[0]
        if not (root / f).is_file():
            problems.append(f"STALE equivalent {e['id']}: no file {f}")
            continue
        if f not in cache:
            source = (root / f).read_text()
            cache[f] = (source, {m.id: m for m in mutgen.generate(f, source, seed)})
        source, by_id = cache[f]
        m = by_id.get(e["id"])
        if m is None:
            problems.append(f"STALE equivalent {e['id']}: no such generated mutant")
            continue
        _, _, was, now = mutgen.hunk(source, m)
        if (was, now) != (e["was"], e["now"]):
            problems.append(f"STALE equivalent {e['id']}: the mutant now changes `{was}` into `{now}`")
    return problems


# ---- the report ----

def read_reports(paths):
    rows = {}
    for p in paths:
        for line in pathlib.Path(p).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                rows[r["id"]] = r
    return list(rows.values())


def summary(rows, equivalents):
    """The report's text: per file killed / run, the total, the survivors and their triage."""
    # an entry applies to the mutant of its id that changes its `was` into its `now` (another seed
    # gives the same id another replacement)
    eq = {e["id"]: e for e in equivalents}
    eq = {r["id"]: eq[r["id"]] for r in rows if r["id"] in eq
          and (eq[r["id"]]["was"], eq[r["id"]]["now"]) == (r.get("was"), r.get("now"))}
    by_file = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    out = [f"{'file':40s} {'run':>5s} {'killed':>6s} {'surv':>5s} {'uncov':>5s} {'equiv':>5s} {'rate':>6s}"
           f"   (and skipped: invalid, same code)"]
    tot = dict(run=0, killed=0, survived=0, uncovered=0, equiv=0, invalid=0, same=0)

    def rate(k, n):
        return f"{100.0 * k / n:5.1f}%" if n else "    - "

    for f in sorted(by_file):
        rs = by_file[f]
        c = dict(run=0, killed=0, survived=0, uncovered=0, equiv=0, invalid=0, same=0)
        for r in rs:
            st = r["status"]
            if st == INVALID:
                c["invalid"] += 1
            elif st == SAME_CODE:
                c["same"] += 1
            elif st not in (ERROR, UNDECIDED):
                c["run"] += 1
                if st == KILLED:
                    c["killed"] += 1
                elif r["id"] in eq:
                    c["equiv"] += 1
                elif st == UNCOVERED:
                    c["uncovered"] += 1
                else:
                    c["survived"] += 1
        for k in tot:
            tot[k] += c[k]
        out.append(f"{f:40s} {c['run']:5d} {c['killed']:6d} {c['survived']:5d} {c['uncovered']:5d} "
                   f"{c['equiv']:5d} {rate(c['killed'], c['run'] - c['equiv'])}   ({c['invalid']}, {c['same']})")
    out.append(f"{'total':40s} {tot['run']:5d} {tot['killed']:6d} {tot['survived']:5d} {tot['uncovered']:5d} "
               f"{tot['equiv']:5d} {rate(tot['killed'], tot['run'] - tot['equiv'])}   ({tot['invalid']}, {tot['same']})")
    out.append(f"kill rate: {tot['killed']} of {tot['run']} run = {rate(tot['killed'], tot['run']).strip()}; "
               f"of the {tot['run'] - tot['equiv']} not recorded equivalent = "
               f"{rate(tot['killed'], tot['run'] - tot['equiv']).strip()}")
    ran = [r for r in rows if r["status"] not in (INVALID, SAME_CODE)]
    wall, cpu = sum(r.get("seconds", 0) for r in ran), sum(r.get("cpu", 0) for r in ran)
    if ran:
        out.append(f"time: {wall / 3600:.1f} h wall, {cpu / 3600:.1f} h CPU for {len(ran)} mutants "
                   f"({wall / len(ran):.0f} s wall, {cpu / len(ran):.0f} s CPU each; the coverage map not counted)")
    errors = [r for r in rows if r["status"] == ERROR]
    if errors:
        out.append(f"{len(errors)} not decided (harness error): " + ", ".join(r["id"] for r in errors))
    undecided = [r for r in rows if r["status"] == UNDECIDED]
    if undecided:
        out.append(f"{len(undecided)} not decided yet (--quick; counted nowhere above): "
                   + ", ".join(sorted(r["id"] for r in undecided)))
    surv = [r for r in rows if r["status"] in (SURVIVED, UNCOVERED)]
    if surv:
        out.append("")
        out.append("survivors:")
        for r in sorted(surv, key=lambda r: r["id"]):
            tri = f"equivalent: {eq[r['id']]['why']}" if r["id"] in eq else "UNTRIAGED"
            out.append(f"  {r['status']:9s} {r['id']} (line {r['line']}) {r['what']}")
            out.append(f"            {tri}")
    untriaged = [r for r in surv if r["id"] not in eq]
    return "\n".join(out), tot, untriaged


# ---- the run ----

def failed_ctest(output):
    tail = output.split("The following tests FAILED:", 1)
    if len(tail) < 2:
        return []
    return sorted(set(re.findall(r"^\s*\d+ - (\S+) \(", tail[1], re.M)))


def failed_pytest(output):
    return [l.split()[1] for l in output.splitlines() if l.startswith(("FAILED ", "ERROR ")) and len(l.split()) > 1]


# the two programs tests run (unit tests too: some make their database with `millaudit solve`)
BINARIES = ("millaudit", "millaudit-planted")

# integration tests that use more of the build than the two binaries (the install, the library)
WHOLE_BUILD = ("test_install.py", "test_api_boundary.py", "test_independence.py")


class Runner:
    """Runs one mutant at a time in the scratch tree against the tests the coverage map selects."""

    def __init__(self, work, src, build, cov, jobs, log, sanitizers=True):
        self.work, self.src, self.build, self.cov, self.jobs, self.log = work, src, build, cov, jobs, log
        self.env = pytest_env(build, work)
        self.sanitizers = sanitizers
        self.asan = None

    def _asan_build(self):
        """work/build-asan, the suite's second build (Debug, AddressSanitizer + UBSan), configured
        when a first mutant survives the release build: a leak, a read out of bounds or an overflow
        the release tests cannot see fails there, as it fails scripts/test."""
        if self.asan is None:
            d = self.work / "build-asan"
            cfg = run(["cmake", "-S", str(self.src), "-B", str(d), "-DCMAKE_BUILD_TYPE=Debug",
                       "-DENABLE_SANITIZERS=ON", "-DENABLE_WERROR=OFF"], cwd=self.work)
            if cfg.returncode:
                raise SystemExit(f"cmake (sanitizers) failed:\n{cfg.stderr[-3000:]}")
            self.asan = d
        return self.asan

    def _unit_tests(self, build, ctests, sel, label, base, per):
        """Builds the mutant's unit tests in build and runs them: (status, detail) when they decide,
        None when every one passed. The binaries are built too: unit tests that make their database
        with `millaudit solve` run the build's binary, which must be this mutant's, not one a
        previous mutant left (or none, in a fresh build)."""
        b = run(["cmake", "--build", str(build), "-j", str(self.jobs), "--target", *ctests, *BINARIES],
                cwd=self.work)
        if b.returncode:
            return INVALID, [(b.stdout + b.stderr).strip().splitlines()[-1][:160]]
        longest = max(self.cov.seconds[i] for i in sel if self.cov.tests[i].startswith("ctest "))
        t = run(["ctest", "-j", str(self.jobs), "--stop-on-failure", "--timeout", str(int(base + per * longest)),
                 "-R", "^(" + "|".join(re.escape(c) for c in ctests) + ")$"], cwd=build, env=self.env)
        killers = failed_ctest(t.stdout)
        if t.returncode and not killers:
            killers = [f"ctest({t.returncode})"]
        return (KILLED, [f"{label} {k}" for k in killers]) if killers else None

    def run(self, m, mutated, quick=0):
        """(status, killers or reason, number of tests selected). quick > 0: at most that many
        integration tests, the cheapest; a mutant they do not kill is undecided, not a survivor."""
        sel = self.cov.select(m)
        if not sel:
            return UNCOVERED, [], 0
        names = [self.cov.tests[i] for i in sel]
        ctests = [n[6:] for n in names if n.startswith("ctest ")]
        pytests = [n[7:] for n in names if n.startswith("pytest ")]
        held_back = len(pytests) - quick if quick and len(pytests) > quick else 0
        if held_back:
            pytests = pytests[:quick]
            kept = set(pytests)
            sel = [i for i in sel if not self.cov.tests[i].startswith("pytest ") or self.cov.tests[i][7:] in kept]
        path = self.src / m.file
        original = path.read_text()
        path.write_text(mutated)
        try:
            if ctests:
                decided = self._unit_tests(self.build, ctests, sel, "ctest", 120, 10)
                if decided:
                    return (*decided, len(sel))
            if pytests:
                # the two binaries, or everything for the tests of the install and of the library
                whole = any(p.split("::")[0].endswith(WHOLE_BUILD) for p in pytests)
                targets = [] if whole else ["--target", *BINARIES]
                b = run(["cmake", "--build", str(self.build), "-j", str(self.jobs), *targets], cwd=self.work)
                if b.returncode:
                    return INVALID, [(b.stdout + b.stderr).strip().splitlines()[-1][:160]], len(sel)
                budget = 300 + 5 * sum(self.cov.seconds[i] for i in sel if self.cov.tests[i].startswith("pytest "))
                p = run([PYTHON, "-m", "pytest", "-q", "-x", "-rfE", "-p", "no:cacheprovider",
                         f"--basetemp={self.work / 'pytest-run'}", *pytests], cwd=self.src, env=self.env,
                        timeout=budget)
                if p.returncode == -9:
                    return KILLED, [f"pytest timeout ({budget:.0f} s)"], len(sel)
                if p.returncode == 1:
                    return KILLED, ["pytest " + k for k in failed_pytest(p.stdout)] or ["pytest(1)"], len(sel)
                if p.returncode != 0:
                    tail = (p.stdout + p.stderr).strip().splitlines()
                    return ERROR, [f"pytest exit {p.returncode}: {tail[-1][:200] if tail else ''}"], len(sel)
            if ctests and self.sanitizers:
                # the unit tests of the line again under the sanitizers, as scripts/test runs them
                decided = self._unit_tests(self._asan_build(), ctests, sel, "ctest-asan", 300, 30)
                if decided:
                    return (*decided, len(sel))
            if held_back:
                return UNDECIDED, [f"not killed by the {len(pytests)} cheapest integration tests of "
                                   f"{len(pytests) + held_back}: run again without --quick"], len(sel)
            return SURVIVED, [], len(sel)
        finally:
            path.write_text(original)


def children_cpu():
    """CPU seconds (user + system) of every finished child process so far: what a mutant cost
    the machine, whatever else runs on it (the wall time depends on the load)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def row(source, m, status, detail, n_tests=0, seconds=0.0, cpu=0.0):
    _, _, was, now = mutgen.hunk(source, m)
    return {"id": m.id, "file": m.file, "function": m.function, "op": m.op, "line": m.line, "what": m.what,
            "was": was, "now": now, "status": status, "detail": detail, "tests": n_tests,
            "seconds": round(seconds, 1), "cpu": round(cpu, 1)}


def choose(all_mutants, args, compiler, log):
    """The mutants to run, and the report rows of those the compile sorted out."""
    seed = args.seed
    rows, chosen = [], []
    everything = [m for f in all_mutants for m in all_mutants[f][1]]
    if args.only:
        by_id = {m.id: m for m in everything}
        unknown = [i for i in args.only if i not in by_id]
        if unknown:
            raise SystemExit(f"unknown generated mutant ids: {unknown}")
        candidates = {None: [by_id[i] for i in args.only]}
        want = {None: len(args.only)}
    else:
        if args.shard:
            i, n = args.shard
            everything = [m for m in everything if int(order_key(seed, m), 16) % n == i - 1]
        per_file = {}
        for m in everything:
            per_file.setdefault(m.file, []).append(m)
        candidates = {f: sorted(ms, key=lambda m: order_key(seed, m)) for f, ms in per_file.items()}
        want = quotas({f: len(ms) for f, ms in per_file.items()}, args.sample) if args.sample else \
            {f: len(ms) for f, ms in per_file.items()}
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))

    def classify(m):
        return compiler.classify(m.file, m.apply(all_mutants[m.file][0]))

    for f, cands in candidates.items():
        need, pos = want.get(f, 0), 0
        picked = []
        while len(picked) < need and pos < len(cands):
            batch = cands[pos:pos + max(args.jobs, need - len(picked))]
            pos += len(batch)
            for m, (status, why) in zip(batch, pool.map(classify, batch)):
                if len(picked) >= need:
                    break
                if status:
                    rows.append(row(all_mutants[m.file][0], m, status, [why]))
                else:
                    picked.append(m)
        chosen += picked
        if f is not None and len(picked) < need:
            log(f"{f}: only {len(picked)} of {need} wanted mutants compile to new code")
    pool.shutdown()
    if not args.only:
        # run in the seeded order across files, so a run stopped early is still a sample of the
        # whole scope (run file by file, a stopped run measured only the first directories)
        chosen.sort(key=lambda m: order_key(seed, m))
    return chosen, rows
