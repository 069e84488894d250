"""The house (issue 24): the public C API is the only door into the library, and the tree reads as
the data path.

- cli/ is a client of include/millaudit.h: its files include nothing of the library but that header
  and common/, and never call SQLite;
- the shared libmillaudit exports exactly the functions the public headers mark MA_API;
- an example program (examples/verify_one.c) builds against the *installed* header and library
  with pkg-config alone, and verifies a real database (and refuses a wrong one);
- the folders form layers with no include running back up and no circle of modules;
- no function is longer than 150 lines, and cli/ is under 12% of the C lines;
- the two checkers share one scaffolding (verifier/check/walk.{h,c}): no other file of
  verifier/check/ calls its primitives, both call its entry points, and no block of code stands
  twice there.

Each rule is a function run on the real tree here and on a copy with a planted violation, so a
rule that could never fail would show.
"""
import collections
import fnmatch
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, skip_unless

# --- the rules, each a function of a tree ----------------------------------------------------

# Bottom to top: a folder may include its own files and folders of lower rank only. The design
# card's top level (verifier/, reports/, indexer/, checksums/) groups the data path by purpose; the
# layers are the folders inside it (docs/architecture.md): reports/store sits below the run engine
# (it records into it) and reports/render above it (it prints the engine's results).
LAYERS = {
    "common": 0,
    "include": 1, "checksums": 1,
    "indexer": 2, "solver": 2,  # solver/: the producer, reached only by cli/cmd_solve.c
    "verifier/formats": 3,
    "verifier/check": 4, "reports/store": 4,
    "verifier/run": 5,
    "reports/render": 6, "verifier/audit": 6,
    "lib": 7,
    "cli": 8,
}
LIBRARY = ("checksums", "indexer", "verifier/formats", "verifier/check", "reports/store", "verifier/run",
           "reports/render", "verifier/audit")
# The design card names the top level; each of its code folders must hold code.
CARD_CODE_FOLDERS = ("verifier", "indexer", "checksums", "reports")


def layer_of(rel):
    """The layer folder a path lies in: the longest LAYERS key that is a prefix of it (the public
    face of common/ counts as common/)."""
    if rel in PUBLIC_COMMON:
        return "common"
    best = None
    for key in LAYERS:
        if (rel == key or rel.startswith(key + "/")) and (best is None or len(key) > len(best)):
            best = key
    return best


# The public face of common/: errors, the verdict and the opaque progress handle are declared in
# include/millaudit/ (a program sees them there) and common/ includes them, so they are layer 0.
PUBLIC_COMMON = ("include/millaudit/error.h", "include/millaudit/progress.h", "include/millaudit/verdict.h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# cli files that are not clients of the checker's API: the producer's command (it reaches solver/,
# the other side, README "Independence") and the test hooks of millaudit-planted (never installed),
# which install the engines' test-only hooks through their internal headers
CLI_EXEMPT = {"cli/cmd_solve.c", "cli/test_hook.c"}


def _sources(root, folders, suffixes=(".c", ".h")):
    for d in folders:
        for p in sorted((root / d).rglob("*")):
            if p.suffix in suffixes and p.is_file():
                yield p


def _resolve(root, name):
    for cand in (root / name, root / "include" / name):
        if cand.is_file():
            return cand.relative_to(root).as_posix()
    return None  # a generated or system header


def cli_violations(root):
    """Every include of a cli/ file that is not millaudit.h, common/, cli/ or generated; every
    sqlite3_ call in cli/."""
    out = []
    for p in _sources(root, ["cli"]):
        rel = p.relative_to(root).as_posix()
        if rel in CLI_EXEMPT:
            continue
        text = p.read_text()
        for name in INCLUDE.findall(text):
            target = _resolve(root, name)
            if target is None or target == "include/millaudit.h":
                continue
            if target.startswith(("common/", "cli/")):
                continue
            out.append(f"{rel}: includes {name} (only millaudit.h and common/ are open to cli/)")
        if re.search(r"\bsqlite3_\w+\s*\(", text):
            out.append(f"{rel}: calls SQLite directly (the store is behind the API)")
    return out


def _module(rel):
    """A module is a .c and its .h; X_internal.h belongs to X (its functions are X's)."""
    return re.sub(r"_internal$", "", rel.rsplit(".", 1)[0])


def house_violations(root):
    """Includes that run back up the layers, public headers that include internals, and circles
    of modules."""
    out, edges = [], collections.defaultdict(set)
    for p in _sources(root, list(LAYERS)):
        rel = p.relative_to(root).as_posix()
        top = layer_of(rel)
        for name in INCLUDE.findall(p.read_text()):
            target = _resolve(root, name)
            if target is None:
                continue
            dst = layer_of(target)
            if dst is None:
                out.append(f"{rel}: includes {target}, outside the layered folders")
                continue
            if rel.startswith("include/") and not target.startswith("include/"):
                out.append(f"{rel}: a public header includes {target} (not installed)")
            if dst != top and LAYERS[dst] >= LAYERS[top]:
                out.append(f"{rel}: includes {target}: {top}/ may not reach {dst}/ (same or higher layer)")
            if _module(target) != _module(rel):
                edges[_module(rel)].add(_module(target))
    for comp in _circles(edges):
        out.append("modules include each other in a circle: " + " -> ".join(sorted(comp)))
    return out


def _circles(edges):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    nodes = set(edges) | {w for ws in edges.values() for w in ws}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        comps.append(comp)
    return comps


FUNCTION_START = re.compile(r"^[A-Za-z_][\w \*]*\b(\w+)\s*\([^;{}]*\)\s*$")


def long_functions(root, limit=150, folders=tuple(LAYERS)):
    """Functions whose body (from the `{` at column 0 to the `}` at column 0) exceeds limit lines."""
    out = []
    for p in _sources(root, folders, (".c",)):
        lines = p.read_text().split("\n")
        name, start = None, None
        for i, line in enumerate(lines):
            if line == "{" and i > 0:
                # the signature may span lines: find the line naming the function
                for j in range(i - 1, max(i - 6, -1), -1):
                    m = re.match(r"^[A-Za-z_][\w \*]*?\b(\w+)\(", lines[j])
                    if m:
                        name = m.group(1)
                        break
                start = i
            elif line == "}" and start is not None:
                if i - start - 1 > limit:
                    out.append(f"{p.relative_to(root).as_posix()}: {name}() is {i - start - 1} lines")
                start = None
    return out


def cli_share(root):
    """cli/'s share of the C lines of the product (tests and fuzz harnesses not counted)."""
    def lines(folders):
        return sum(len(p.read_text().split("\n")) for p in _sources(root, folders, (".c",)))
    product = list(LAYERS)
    return lines(["cli"]) / lines(product)


def public_api(root):
    """Every function the public headers declare MA_API."""
    names = set()
    for p in [root / "include" / "millaudit.h", *sorted((root / "include" / "millaudit").glob("*.h"))]:
        for m in re.finditer(r"^MA_API\b[^;(]*?\b(\w+)\s*\(", p.read_text(), re.M):
            names.add(m.group(1))
    return names


# --- the real tree ----------------------------------------------------------------------------

def test_cli_includes_only_the_public_api_and_never_sqlite():
    assert cli_violations(ROOT) == []


def test_the_house_has_no_arrow_back_up_and_no_circle():
    assert house_violations(ROOT) == []


def test_no_function_is_longer_than_150_lines():
    assert long_functions(ROOT) == []


def card_violations(root):
    """The design card's code folders that hold no C code of their own."""
    return [f"{d}/ holds no C code" for d in CARD_CODE_FOLDERS
            if not any(p.suffix == ".c" for p in (root / d).rglob("*.c"))]


def test_the_design_cards_folders_hold_the_code():
    assert card_violations(ROOT) == []
    assert sorted(p.name for p in ROOT.iterdir() if p.name in ("formats", "check", "run", "store", "render", "audit")) == []


def test_cli_is_under_12_percent_of_the_c_lines():
    share = cli_share(ROOT)
    assert share < 0.12, f"cli/ holds {share:.1%} of the C lines"


def api_test_violations(root):
    """Includes of tests/api/ (and of the test helpers they include) that reach the library other
    than through millaudit.h: those tests must see only what a user of the API sees."""
    out, todo, seen = [], sorted((root / "tests" / "api").glob("*.c")), set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for name in INCLUDE.findall(p.read_text()):
            local = p.parent / name
            target = local if local.is_file() else root / name if (root / name).is_file() else None
            if name == "millaudit.h" or target is None:
                continue
            rel = target.relative_to(root).as_posix()
            if rel.startswith("tests/"):
                todo.append(target)  # a test helper: its includes count too
            else:
                out.append(f"{p.relative_to(root).as_posix()}: includes {name}")
    return out


def test_api_tests_include_only_the_public_header():
    assert api_test_violations(ROOT) == []


# --- one scaffolding for both checkers (issue 42) ---------------------------------------------

# The open checker (verifier/check/check.c) and the Malom checker (verifier/check/malom_*.c) stand
# on one walk, verifier/check/walk.{h,c}: the chunk plan, the threads, the visited bitmaps and
# their merge, the huge-page copies. Its primitives may be called there and in their own modules
# only; a checker that calls one has grown scaffolding of its own again.
CHECKER_DIR = "verifier/check"
SCAFFOLDING = {  # primitive: the files besides walk.{h,c} that may name it (its own module)
    "pthread_create": (), "pthread_join": (), "ma_chunk_at": (), "ma_chunk_stride": (),
    "ma_progress_add": (), "atomic_fetch_add": ("resident.c",),
    "ma_visited_team_plan": ("visited.h", "visited.c"), "ma_visited_team_zero": ("visited.h", "visited.c"),
    "ma_visited_team_bits": ("visited.h", "visited.c"), "ma_visited_team_cover": ("visited.h", "visited.c"),
    "ma_visited_team_free": ("visited.h", "visited.c"),
    "ma_resident_init": ("resident.h", "resident.c"), "ma_resident_add": ("resident.h", "resident.c"),
    "ma_resident_fill": ("resident.h", "resident.c"), "ma_resident_destroy": ("resident.h", "resident.c"),
    "ma_turn_masks_build": ("turn_masks.h", "turn_masks.c"),
}
# each checker (its files) plans its walk, runs its threads and joins their results through it
CHECKERS = {"open checker": "check.c", "Malom checker": "malom_*.c"}
WALK_ENTRY_POINTS = ("ma_walk_plan", "ma_walk_run", "ma_walk_cover", "ma_walk_join")
# A copied block: this many consecutive code lines of the same shape (names other than the
# project's ma_/MA_ ones, C keywords and the types below read as one placeholder) in two places.
COPY_LINES = 8
_KEPT = re.compile(r"^(ma_|MA_|__builtin|atomic_|pthread_)")
_C_WORDS = set("""auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Atomic _Static_assert bool size_t uint8_t uint16_t
    uint32_t uint64_t int8_t int16_t int32_t int64_t NULL""".split())


def _code(text):
    """The text without comments, line numbers kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _calls(text, name):
    return re.search(rf"\b{name}\s*\(", _code(text)) is not None


def scaffolding_violations(root):
    """Calls of the walk's primitives outside the walk, and checkers that do not use the walk."""
    out = []
    files = sorted(p for p in (root / CHECKER_DIR).iterdir() if p.suffix in (".c", ".h"))
    texts = {p.name: p.read_text() for p in files}
    for name, text in texts.items():
        if name in ("walk.h", "walk.c"):
            continue
        for prim, own in SCAFFOLDING.items():
            if name not in own and _calls(text, prim):
                out.append(f"{CHECKER_DIR}/{name}: calls {prim}: the checkers' scaffolding is "
                           f"{CHECKER_DIR}/walk.c's")
    for checker, pattern in CHECKERS.items():
        mine = [text for name, text in texts.items() if fnmatch.fnmatch(name, pattern)]
        for entry in WALK_ENTRY_POINTS:
            if not any(_calls(text, entry) for text in mine):
                out.append(f"the {checker} ({pattern}) does not call {entry}")
    return out


def _shape_lines(text):
    """(line number, shape) of each line of code: no comment, blank, lone punctuation or
    preprocessor line; names other than the kept ones as `_`."""
    out = []
    for i, line in enumerate(_code(text).split("\n"), 1):
        t = " ".join(line.split())
        if not t or re.fullmatch(r"[{}();,]*", t.replace(" ", "")) or t.startswith("#"):
            continue
        t = re.sub(r"\b[A-Za-z_]\w*\b",
                   lambda m: m.group(0) if m.group(0) in _C_WORDS or _KEPT.match(m.group(0)) else "_", t)
        out.append((i, t))
    return out


def copied_blocks(root, n=COPY_LINES):
    """Every block of n or more code lines of verifier/check/ whose shape stands again elsewhere in
    it (in another file, or in the same file without overlapping), as "a.c:L ~ b.c:M" with the
    first lines of the two places."""
    seen, line_of = collections.defaultdict(list), {}
    for p in sorted((root / CHECKER_DIR).iterdir()):
        if p.suffix not in (".c", ".h"):
            continue
        lines = _shape_lines(p.read_text())
        for k in range(len(lines) - n + 1):
            seen[tuple(t for _, t in lines[k:k + n])].append((p.name, k))
            line_of[p.name, k] = lines[k][0]
    pairs = set()
    for places in seen.values():
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                (fa, ka), (fb, kb) = places[a], places[b]
                if fa != fb or abs(ka - kb) >= n:
                    pairs.add((fa, ka, fb, kb))
    # a copy of m lines is m - n + 1 windows in a row: one row for it
    return [f"{CHECKER_DIR}/{fa}:{line_of[fa, ka]} ~ {CHECKER_DIR}/{fb}:{line_of[fb, kb]}"
            for fa, ka, fb, kb in sorted(pairs) if (fa, ka - 1, fb, kb - 1) not in pairs]


# The run engine, its shard plan and the merge decide nothing by format: what a format is (its
# entries before a file opens, whether absent successors give bounds, its numbering) is asked of
# verifier/formats (ma_source_*, ma_format_*, ma_scheme_*), so a new format touches none of them.
# run_sector.c is where each reader's checker plugs in (its table by reader): the one place that
# names them.
FORMAT_NEUTRAL = ["verifier/run/run*.c", "verifier/run/shard.c", "verifier/run/merge.c"]
FORMAT_ADAPTER = "verifier/run/run_sector.c"
FORMAT_NAMES = re.compile(r"\bMA_FORMAT_(?:OPEN|SEC2|SEC)\b|\bMA_READER_\w+|\bma_(?:open|malom)_index_\w+\(")


def format_violations(root):
    found = []
    for pattern in FORMAT_NEUTRAL:
        for path in sorted(root.glob(pattern)):
            if path.relative_to(root).as_posix() == FORMAT_ADAPTER:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                m = FORMAT_NAMES.search(line.split("//")[0])
                if m:
                    found.append(f"{path.relative_to(root)}:{n}: {m.group(0)}: asks the format's own code instead")
    return found


def test_the_run_engine_shards_and_merge_branch_on_no_format():
    assert format_violations(ROOT) == []


def test_one_scaffolding_for_both_checkers():
    assert scaffolding_violations(ROOT) == []
    assert copied_blocks(ROOT) == []


# --- the rules fail on a planted violation ----------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    dst = tmp_path / "tree"
    for d in LAYERS:
        if (ROOT / d).is_dir():
            shutil.copytree(ROOT / d, dst / d)
    return dst


def _append_include(path, name):
    path.write_text(f'#include "{name}"\n' + path.read_text())


def test_rules_see_planted_violations(tree):
    _append_include(tree / "cli" / "cmd_stats.c", "reports/store/audit.h")
    (tree / "cli" / "cmd_dump.c").write_text((tree / "cli" / "cmd_dump.c").read_text()
                                             + "\nstatic void f(void) { sqlite3_exec(0, 0, 0, 0, 0); }\n")
    assert any("cmd_stats.c: includes reports/store/audit.h" in v for v in cli_violations(tree))
    assert any("cmd_dump.c: calls SQLite" in v for v in cli_violations(tree))

    _append_include(tree / "reports" / "store" / "runs.c", "reports/render/junit.h")   # up a layer
    _append_include(tree / "verifier" / "formats" / "source.c", "verifier/run/run.h")  # up, inside verifier/
    _append_include(tree / "include" / "millaudit" / "types.h", "verifier/formats/source.h")  # not installed
    found = house_violations(tree)
    assert any("reports/store/runs.c: includes reports/render/junit.h" in v for v in found), found
    assert any("verifier/formats/source.c: includes verifier/run/run.h" in v for v in found), found
    assert any("public header includes verifier/formats/source.h" in v for v in found), found

    # a circle inside one folder: two modules that include each other
    (tree / "verifier" / "run" / "a_mod.h").write_text('#include "verifier/run/b_mod.h"\n')
    (tree / "verifier" / "run" / "b_mod.h").write_text('#include "verifier/run/a_mod.h"\n')
    assert any("circle" in v and "verifier/run/a_mod" in v for v in house_violations(tree))

    body = "\n".join(f"    x += {i};" for i in range(151))
    (tree / "verifier" / "run" / "long.c").write_text(f"int too_long(int x)\n{{\n{body}\n    return x;\n}}\n")
    assert any("too_long() is 152 lines" in v for v in long_functions(tree))

    (tree / "tests" / "api").mkdir(parents=True)
    (tree / "tests" / "api" / "helper.h").write_text('#include "verifier/run/run.h"\n')
    (tree / "tests" / "api" / "test_api_x.c").write_text('#include "millaudit.h"\n#include "helper.h"\n')
    assert api_test_violations(tree) == ["tests/api/helper.h: includes verifier/run/run.h"]

    shutil.rmtree(tree / "reports")
    assert card_violations(tree) == ["reports/ holds no C code"]

    merge = tree / "verifier" / "run" / "merge.c"
    merge.write_text(merge.read_text() + "\nstatic int is_open(int f) { return f == MA_FORMAT_OPEN; }\n")
    shard = tree / "verifier" / "run" / "shard.c"
    shard.write_text(shard.read_text() + "\nstatic int prep(void *x) { return ma_malom_index_prepare(x, 3, 0); }\n")
    found = format_violations(tree)
    assert any(v.startswith("verifier/run/merge.c:") and "MA_FORMAT_OPEN" in v for v in found), found
    assert any(v.startswith("verifier/run/shard.c:") and "ma_malom_index_prepare(" in v for v in found), found

    before = cli_share(tree)
    (tree / "cli" / "bulk.c").write_text("int x;\n" * 20000)
    assert cli_share(tree) > before


def test_scaffolding_rules_see_a_planted_copy(tree):
    check = tree / CHECKER_DIR
    # the walk's thread loop copied into the open checker, its names changed
    walk = (check / "walk.c").read_text()
    body = walk[walk.index("static void *run_thread(void *arg)"):walk.index("static ma_walk_thread *thread_at")]
    copy = body.replace("run_thread", "my_worker").replace("th->", "w->").replace("wk->", "job->")
    (check / "check.c").write_text((check / "check.c").read_text() + "\n" + copy)
    found = scaffolding_violations(tree)
    assert f"{CHECKER_DIR}/check.c: calls ma_chunk_at: the checkers' scaffolding is {CHECKER_DIR}/walk.c's" in found
    assert f"{CHECKER_DIR}/check.c: calls ma_resident_fill: the checkers' scaffolding is {CHECKER_DIR}/walk.c's" in found
    assert any(v.startswith(f"{CHECKER_DIR}/check.c:") and f"~ {CHECKER_DIR}/walk.c:" in v
               for v in copied_blocks(tree)), copied_blocks(tree)

    # the walk by opponent mask re-copied into the Malom checker under other names: no primitive
    # of the list, but the same shape
    head = (check / "walk.h").read_text()
    loop = head[head.index("    for (uint64_t c = c_lo; c < c_hi"):head.index("    th->group_ok = 0;")]
    copy = "static void by_mask(struct worker *w)\n{\n" + loop.replace("th->", "w->").replace("wk->", "f->") + "}\n"
    (check / "malom_fast.c").write_text((check / "malom_fast.c").read_text() + "\n" + copy)
    assert any(v.startswith(f"{CHECKER_DIR}/malom_fast.c:") and f"~ {CHECKER_DIR}/walk.h:" in v
               for v in copied_blocks(tree)), copied_blocks(tree)

    # a checker that runs its threads by itself again
    text = (check / "malom_check.c").read_text()
    (check / "malom_check.c").write_text(text.replace("ma_walk_run(", "my_run("))
    assert "the Malom checker (malom_*.c) does not call ma_walk_run" in scaffolding_violations(tree)


# --- the library ------------------------------------------------------------------------------

def test_shared_library_exports_exactly_the_public_api(build_dir):
    lib = build_dir / "libmillaudit.so"
    assert lib.exists(), "libmillaudit.so not built"
    nm = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True, check=True)
    exported = {line.split()[-1] for line in nm.stdout.splitlines() if re.search(r" [TW] ", line)}
    declared = public_api(ROOT)
    assert exported - declared == set(), "exported but not in the public headers"
    assert declared - exported == set(), "declared MA_API but not exported (or not defined)"
    soname = subprocess.run(["objdump", "-p", str(lib)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"SONAME\s+libmillaudit\.so\.0\b", soname)


@pytest.mark.parametrize("link", ["shared", "static"])
def test_example_builds_against_the_installed_library_and_verifies(installed_api, std3_games, tmp_path, link):
    """examples/verify_one.c, installed with the headers, built with pkg-config alone: millaudit
    (shared; the prefix is no system directory, so Libs carries an rpath and the program runs
    without LD_LIBRARY_PATH) or millaudit-static (libmillaudit.a inside the program)."""
    flags = installed_api.pkg_config("--cflags", "--libs", "millaudit" if link == "shared" else "millaudit-static")
    example = installed_api.examples / "verify_one.c"
    exe = tmp_path / "verify_one"
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    proc = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", str(example), "-o", str(exe), *flags],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    ldd = subprocess.run(["ldd", str(exe)], capture_output=True, text=True, env=env).stdout
    if link == "shared":
        assert re.search(rf"libmillaudit\.so\.0 => {re.escape(str(installed_api.libdir))}/", ldd), ldd
    else:
        assert "libmillaudit" not in ldd, ldd

    good = subprocess.run([str(exe), str(std3_games / "db")], capture_output=True, text=True, env=env, timeout=300)
    assert good.returncode == 0, good.stderr
    assert re.search(r": verified \(entries 264399, verified 264399, discrepancies 0\)", good.stdout), good.stdout
    bad = subprocess.run([str(exe), str(std3_games / "bad")], capture_output=True, text=True, env=env, timeout=300)
    assert bad.returncode == 1, bad.stderr
    assert re.search(r": discrepancies \(entries 264399, verified \d+, discrepancies [1-9]\d*\)", bad.stdout)
    missing = subprocess.run([str(exe), str(std3_games / "nothing-here")], capture_output=True, text=True, env=env)
    assert missing.returncode == 3 and "nothing-here" in missing.stderr and missing.stderr.count("\n") == 1
