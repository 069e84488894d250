"""`scripts/mutate --generate`: mutants derived mechanically from the C source (docs/verifier.md
"Generated mutants"). Seconds, no build: the operators on a small function, exactly; that comments,
strings and preprocessor lines are never touched; that an id stays put under edits elsewhere; that
the printed list runs through the list parser to the same mutated source; the stratified sample;
which tests the coverage map selects for a mutant; the per-test coverage of the pytest plugin on a
tiny instrumented program; and `--check` on the list of equivalent mutants."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

from conftest import ROOT, skip_unless
from test_mutate_check import load_mutate

MUTATE = ROOT / "scripts" / "mutate"
sys.path.insert(0, str(ROOT / "scripts"))
import mutgen  # noqa: E402
import mutrun  # noqa: E402

SMALL = """/* a < b in a comment; return 0; */
#define LIMIT(x) ((x) < 10 && (x) > 1)
#include <stdio.h>
static const char *words = "a < b || c == d; return 1;";

static int pick(int a, int b)
{
    // if (a < b) in a line comment
    char c = '<';
    int n = 0;
    if (a < b && c)
        n += 2;
    for (int i = 0; i < b; i++) {
        if (i == 3)
            continue;
        f(i);
    }
    while (n > 1)
        break;
    return n;
}
"""

# every mutant of SMALL with seed 43: id, line, the line before and after
EXPECTED = [
    ("t.c:pick:const:1", 10, "int n = 0;", "int n = 1;"),
    ("t.c:pick:neg:1", 11, "if (a < b && c)", "if (!(a < b && c))"),
    ("t.c:pick:ror:1", 11, "if (a < b && c)", "if (a != b && c)"),
    ("t.c:pick:lcr:1", 11, "if (a < b && c)", "if (a < b || c)"),
    ("t.c:pick:del:1", 12, "n += 2;", ";"),
    ("t.c:pick:const:2", 12, "n += 2;", "n += 3;"),
    ("t.c:pick:const:3", 13, "for (int i = 0; i < b; i++) {", "for (int i = 1; i < b; i++) {"),
    ("t.c:pick:neg:2", 13, "for (int i = 0; i < b; i++) {", "for (int i = 0; !(i < b); i++) {"),
    ("t.c:pick:ror:2", 13, "for (int i = 0; i < b; i++) {", "for (int i = 0; i <= b; i++) {"),
    ("t.c:pick:neg:3", 14, "if (i == 3)", "if (!(i == 3))"),
    ("t.c:pick:ror:3", 14, "if (i == 3)", "if (i <= 3)"),
    ("t.c:pick:const:4", 14, "if (i == 3)", "if (i == 4)"),
    ("t.c:pick:brk:1", 15, "continue;", "break;"),
    ("t.c:pick:del:2", 16, "f(i);", ";"),
    ("t.c:pick:neg:4", 18, "while (n > 1)", "while (!(n > 1))"),
    ("t.c:pick:ror:4", 18, "while (n > 1)", "while (n < 1)"),
    ("t.c:pick:const:5", 18, "while (n > 1)", "while (n > 0)"),
    ("t.c:pick:brk:2", 19, "break;", "continue;"),
    ("t.c:pick:ret:1", 20, "return n;", "return 0;"),
]


def changes(source, seed=43, name="t.c"):
    out = []
    for m in mutgen.generate(name, source, seed):
        _, _, was, now = mutgen.hunk(source, m)
        out.append((m.id, m.line, was, now))
    return out


def test_each_operator_once_per_site():
    assert changes(SMALL) == EXPECTED


def test_comments_strings_and_directives_are_never_mutated():
    """A mutant replaces whole code tokens: its span starts and ends on a code token's edges and
    holds no preprocessor line, so no comment, literal or directive is ever cut into."""
    for name in ("t.c", "common/output.c", "verifier/check/visited.h"):
        source = SMALL if name == "t.c" else (ROOT / name).read_text()
        tokens = mutgen.tokenize(source)
        starts = {t.start for t in tokens if t.kind not in ("ws", "nl", "comment") and not t.pp}
        ends = {t.end for t in tokens if t.kind not in ("ws", "nl", "comment") and not t.pp}
        pp = [t for t in tokens if t.pp]
        ms = mutgen.generate(name, source, 43)
        assert ms
        for m in ms:
            assert m.start in starts and m.end in ends, m.id
            assert not any(m.start <= t.start < m.end for t in pp), m.id
            assert "//" not in m.new and "/*" not in m.new or m.op == "neg", m.id


def test_an_edit_elsewhere_keeps_every_id_and_its_change():
    edited = SMALL.replace("#include <stdio.h>\n", "#include <stdio.h>\n\nstatic int other(int x)\n{\n"
                           "    if (x < 3 && x > 0)\n        return 1;\n    return 0;\n}\n")
    before = {i: (was, now) for i, _, was, now in changes(SMALL)}
    after = {i: (was, now) for i, _, was, now in changes(edited)}
    assert {i: after[i] for i in before} == before
    assert sorted(set(after) - set(before)) == [
        "t.c:other:const:1", "t.c:other:const:2", "t.c:other:const:3", "t.c:other:const:4",
        "t.c:other:lcr:1", "t.c:other:neg:1", "t.c:other:ret:1", "t.c:other:ret:2",
        "t.c:other:ror:1", "t.c:other:ror:2"]


def test_the_seed_draws_the_replacement_and_nothing_else():
    a, b = changes(SMALL, seed=43), changes(SMALL, seed=44)
    assert [x[0] for x in a] == [x[0] for x in b]
    assert changes(SMALL, seed=43) == a
    # only the operators with a choice (a relational operator, a constant above 1) may differ
    assert all(x == y for x, y in zip(a, b) if x[0].split(":")[2] not in ("ror", "const"))


def test_the_printed_list_is_the_list_format_and_applies(tmp_path):
    src = tmp_path / "t.c"
    src.write_text(SMALL)
    r = subprocess.run([sys.executable, str(MUTATE), "--generate", str(src), "--no-compile"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "19 mutants of 1 files (not compiled)" in r.stderr
    listed = load_mutate().parse_mutants(r.stdout)
    generated = mutgen.generate(str(src), SMALL, 43)
    assert [m["id"] for m in listed] == [m.id for m in generated]
    for lm, gm in zip(listed, generated):
        mutated, why = load_mutate().apply(SMALL, lm["hunks"])
        assert why is None and mutated == gm.apply(SMALL), gm.id


def test_deletion_spares_declarations_blocks_and_releases():
    source = ("void g(struct s *p, int *q)\n{\n    int x = h(1);\n    struct s y = {0};\n    uint64_t *z = q;\n"
              "    if (x) {\n        h(2);\n    }\n    free(q);\n    ma_thing_free(p);\n    p->n = x;\n"
              "    (void)h(3);\n}\n")
    dels = [(was, now) for i, _, was, now in changes(source) if ":del:" in i]
    assert dels == [("h(2);", ";"), ("p->n = x;", ";"), ("(void)h(3);", ";")]


def test_the_sample_is_stratified_by_file():
    assert mutrun.quotas({"a": 700, "b": 200, "c": 95, "d": 5}, 100) == {"a": 70, "b": 20, "c": 9, "d": 1}
    assert mutrun.quotas({"a": 10, "b": 10}, 5) == {"a": 3, "b": 2}
    assert sum(mutrun.quotas({f"f{i}": 17 + i for i in range(60)}, 300).values()) == 300


class FakeMutant:
    def __init__(self, window, function_lines, file="x.c"):
        self.file, self.window, self.function_lines = file, window, function_lines


def test_a_mutant_runs_only_the_tests_that_execute_its_statement():
    cov = mutrun.Coverage({
        "tests": ["ctest a", "ctest b", "pytest t.py::c", "pytest t.py::broken"],
        "seconds": [3.0, 1.0, 2.0, 0.5], "failed": ["pytest t.py::broken"],
        # line 10: a and c; line 11: b and the broken test; 20-22 a function executed by b alone
        "lines": {"x.c": {"10": [0, 2], "11": [1, 3], "21": [1]}},
        "executable": {"x.c": [10, 11, 12, 21]}})
    # fastest first; a test that fails unmutated is never chosen
    assert cov.select(FakeMutant((10, 11), (5, 15))) == [1, 2, 0]
    assert cov.select(FakeMutant((10, 10), (5, 15))) == [2, 0]
    # an executable line no test runs: nothing can kill the mutant
    assert cov.select(FakeMutant((12, 12), (5, 15))) == []
    # no line of the statement is code to gcov (a static table's row): the function's tests
    assert cov.select(FakeMutant((20, 20), (19, 22))) == [1]
    assert cov.select(FakeMutant((10, 10), (5, 15), file="other.c")) == []


def test_the_plugin_gives_each_test_and_each_shared_fixture_its_own_coverage(tmp_path):
    cc = shutil.which("cc")
    gcov = shutil.which("gcov")
    skip_unless(cc and gcov, "cc and gcov needed for the coverage map")
    (tmp_path / "prog.c").write_text(
        "#include <stdlib.h>\n#include <stdio.h>\nint main(int argc, char **argv)\n{\n"
        "    int n = argc > 1 ? atoi(argv[1]) : 0;\n"
        "    if (n == 1)\n        puts(\"one\");\n"
        "    if (n == 2)\n        puts(\"two\");\n"
        "    if (n == 3)\n        puts(\"three\");\n"
        "    if (n == 4)\n        puts(\"four\");\n"
        "    return 0;\n}\n")
    build = tmp_path / "build"
    build.mkdir()
    subprocess.run([cc, "-O0", "--coverage", "-o", str(build / "prog"), str(tmp_path / "prog.c")], cwd=build,
                   check=True)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_p.py").write_text(
        "import subprocess, pytest\n"
        f"PROG = {str(build / 'prog')!r}\n"
        "@pytest.fixture(scope='session')\n"
        "def shared():\n    subprocess.run([PROG, '3'], check=True)\n"
        "def test_one():\n    subprocess.run([PROG, '1'], check=True)\n"
        "def test_two_with_shared(shared):\n    subprocess.run([PROG, '2'], check=True)\n"
        "def test_stray_env(shared):\n    subprocess.run([PROG, '4'], check=True, env={'PATH': '/usr/bin:/bin'})\n")
    cov = tmp_path / "cov"
    env = dict(os.environ, MUTATE_COV_DIR=str(cov), MUTATE_COV_BUILD=str(build),
               PYTHONPATH=str(ROOT / "scripts"))
    r = subprocess.run(["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                        "mutate_coverage_plugin", str(tests)], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    index = json.loads((cov / "index.json").read_text())

    def lines_of(dirs):
        executed, _ = mutrun._gcov_lines([cov / d for d in dirs], build)
        got = set()
        for f, s in executed.items():
            if f.endswith("prog.c"):
                got |= s
        return {ln for ln in got if ln in (7, 9, 11, 13)}  # the puts of 1, 2, 3, 4

    nodes = {n.split("::")[1]: d for n, d in index["tests"].items()}
    uses = {n.split("::")[1]: u for n, u in index["uses"].items()}
    assert uses == {"test_one": [], "test_two_with_shared": ["::shared"], "test_stray_env": ["::shared"]}
    assert lines_of([nodes["test_one"]]) == {7}
    assert lines_of([nodes["test_two_with_shared"]]) == {9}
    assert lines_of([index["fixtures"]["::shared"]]) == {11}
    # the binary started without GCOV_PREFIX wrote into the build tree; the plugin moved it to its test
    assert lines_of([nodes["test_stray_env"]]) == {13}
    assert not list(build.rglob("*.gcda"))


def equivalents_check(tmp_path, text):
    lst = tmp_path / "eq.txt"
    lst.write_text(text)
    return subprocess.run([sys.executable, str(MUTATE), "--check", "--equivalent", str(lst)],
                          capture_output=True, text=True, timeout=120)


def test_a_recorded_equivalent_must_still_be_generated_as_recorded(tmp_path):
    name = "common/verdict.c"
    source = (ROOT / name).read_text()
    m = mutgen.generate(name, source, 43)[0]
    _, _, was, now = mutgen.hunk(source, m)
    good = f"=== {m.id}\nwas: {was}\nnow: {now}\nwhy: a reason\n"
    r = equivalents_check(tmp_path, good)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 recorded equivalent: 1 match a generated mutant, 0 stale" in r.stdout
    moved = f"=== {m.id}\nwas: {was} x\nnow: {now}\nwhy: a reason\n"
    gone = f"=== {name}:no_such_function:ror:1\nwas: a\nnow: b\nwhy: a reason\n"
    r = equivalents_check(tmp_path, good + moved + gone)
    assert r.returncode == 1
    stale = sorted(l.split()[2] for l in r.stdout.splitlines() if l.startswith("STALE equivalent"))
    assert stale == sorted([m.id + ":", f"{name}:no_such_function:ror:1:"])
    assert "3 recorded equivalent: 1 match a generated mutant, 2 stale" in r.stdout


def test_the_summary_counts_an_undecided_mutant_nowhere_until_a_full_run_decides_it(tmp_path):
    def row(i, status, f="a.c"):
        return {"id": f"{f}:f:ror:{i}", "file": f, "line": i, "what": "w", "was": "x < y", "now": "x <= y",
                "status": status, "detail": [], "seconds": 1.0, "cpu": 1.0}
    quick = tmp_path / "quick.jsonl"
    rows = [row(1, "killed"), row(2, "killed"), row(3, "survived"), row(4, "undecided"), row(5, "uncovered")]
    quick.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text, tot, untriaged = mutrun.summary(mutrun.read_reports([quick]), [])
    assert (tot["run"], tot["killed"], tot["survived"], tot["uncovered"]) == (4, 2, 1, 1)
    assert "1 not decided yet (--quick; counted nowhere above): a.c:f:ror:4" in text
    assert sorted(r["id"] for r in untriaged) == ["a.c:f:ror:3", "a.c:f:ror:5"]
    # the full run's row of the same id, appended later, is the one that counts
    with quick.open("a") as f:
        f.write(json.dumps(row(4, "killed")) + "\n")
    text, tot, _ = mutrun.summary(mutrun.read_reports([quick]), [])
    assert (tot["run"], tot["killed"]) == (5, 3)
    assert "not decided yet" not in text
