"""The producer and the checker must share no code: a bug they shared would be invisible.

The check itself is tests/integration/independence.py (read its docstring for the rules: sides,
include resolution, identifiers, header-only sharing, common/'s forbidden concepts, nm). Here it
runs on the real tree and build, and on temporary copies of the tree with one violation planted
each, so the code under test is the real scan and not a re-typed rule. The link proofs of
tests/link (each side linked with --whole-archive and without the other side) are checked the same
way: their real link lines must succeed, and fail once a planted object reaches across.
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess
from collections import Counter

import pytest

import independence as ind
from conftest import ROOT


def _cc():
    for cc in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc):
            return cc
    pytest.fail("no C compiler found (the build needs one too)")


# --- the real tree ---------------------------------------------------------------------------

def test_tree_is_independent():
    found = ind.scan(ROOT)
    assert found == [], "\n".join(map(str, found))


def test_scan_sees_every_side_and_resolves_includes():
    """A scan that silently saw nothing would also report no violation."""
    tree = ind.Tree(ROOT)
    by_side = Counter(tree.files.values())
    assert by_side["producer"] >= 10 and by_side["checker"] >= 40 and by_side["common"] >= 4, by_side
    assert tree.files["cli/cmd_solve.c"] == "producer"
    assert tree.files["cli/main.c"] == tree.files["cli/commands.h"] == "dispatch"
    assert tree.files["verifier/check/check.c"] == tree.files["cli/cmd_verify.c"] == "checker"
    assert tree.files["solver/svrules.c"] == "producer"
    targets = {t for t, _ in tree.includes("verifier/check/rules.c")}
    assert "verifier/check/rules.h" in targets and "<system:string.h>" in targets
    assert "common/version.h.in" in {t for t, _ in tree.includes("cli/main.c")}, \
        "ma_version.h (build/generated) is mapped back to its template"
    # the identifiers each side declares are found (rule 2 would otherwise check nothing)
    producer = ind._side_names(tree, "producer")
    checker = ind._side_names(tree, "checker")
    assert {"ma_svrules_init", "ma_svindex_entry", "ma_retro_solve", "MA_SV_FULL",
            "ma_sv_popcount"} <= producer
    assert {"ma_vrules_init", "ma_check_sector", "ma_open_index_rank", "ma_malom_index_rank"} <= checker


def test_common_concepts_are_named_in_the_check():
    """The check says what common/ must not hold; the list covers each kind of knowledge."""
    for word in ("mill", "adjacency", "binomial", "colex", "canonical", "sector", "stone", "flying",
                 "removal", "malom", "depth"):
        assert word in ind.FORBIDDEN_WORDS, word
    assert 2098177 in ind.FINGERPRINTS and 14680064 in ind.FINGERPRINTS  # adjacency a4, mill a7-g7
    assert 0xFFFFFF in ind.FINGERPRINTS


# --- planted violations: each must make the real scan fail -----------------------------------

def _copy_tree(dst):
    def ignore(d, names):
        here = pathlib.Path(d)
        return [n for n in names if here == ROOT and (n.startswith("build") or n in (".git", "demo-out"))]
    shutil.copytree(ROOT, dst, ignore=ignore, symlinks=True)
    return dst


def _append(path, text):
    path.write_text(path.read_text() + text)


def _insert_after_includes(path, line):
    text = path.read_text()
    last = list(re.finditer(r"^#include .*$", text, re.M))[-1]
    path.write_text(text[:last.end()] + "\n" + line + text[last.end():])


def _verify_driver(root):
    """The cli/ file that defines the verify command (today cli/cmd_verify.c)."""
    for f in sorted((root / "cli").glob("*.c")):
        if re.search(r"^int\s+ma_cmd_verify\s*\(", f.read_text(), re.M):
            return f
    pytest.fail("no cli/ file defines ma_cmd_verify")


def plant_relative_solver_include(root):
    _insert_after_includes(root / "verifier" / "check" / "rules.c", '#include "../../solver/svrules.h"')
    return "include", "verifier/check/rules.c"


def plant_angle_solver_include(root):
    _insert_after_includes(root / "indexer" / "open_index.c", "#include <solver/svindex.h>")
    return "include", "indexer/open_index.c"


def plant_symlinked_solver_header(root):
    (root / "verifier" / "check" / "shared_rules.h").symlink_to("../../solver/svrules.h")
    _insert_after_includes(root / "verifier" / "check" / "check.c", '#include "verifier/check/shared_rules.h"')
    return "include", "verifier/check/check.c"


def plant_computed_include(root):
    _insert_after_includes(root / "verifier" / "formats" / "open_file.c",
                           '#define MA_PLANTED "solver/svfile.h"\n#include MA_PLANTED')
    return "include", "verifier/formats/open_file.c"


def plant_solver_call_in_verify_driver(root):
    f = _verify_driver(root)
    _append(f, "\n/* planted: a hand-written prototype needs no include */\n"
               "int ma_svrules_init(void *r, int variant, int bug, void *err);\n"
               "int ma_planted_rules(void);\n"
               "int ma_planted_rules(void)\n{\n    return ma_svrules_init(0, 1, 0, 0);\n}\n")
    return "identifier", f.relative_to(root).as_posix()


def plant_rules_table_in_common(root):
    (root / "common" / "board.h").write_text(
        "#ifndef MA_BOARD_H\n#define MA_BOARD_H\n#include <stdint.h>\n"
        "static const uint32_t mill_lines[16] = {7, 56, 448, 3584, 28672, 229376, 1835008,\n"
        "    14680064, 2097665, 263176, 34880, 146, 4784128, 135424, 1056800, 8404996};\n#endif\n")
    return "common", "common/board.h"


def plant_anonymous_adjacency_table_in_common(root):
    (root / "common" / "tables.c").write_text(
        "/* innocently named: only the numbers give it away */\n"
        "const unsigned ma_t[6] = {514, 21, 16386, 1040, 170, 8208};\n")
    return "common", "common/tables.c"


def plant_binomial_in_common(root):
    _append(root / "common" / "ma_error.c",
            "\nunsigned long long ma_choose(int n, int k);\n"
            "unsigned long long ma_choose(int n, int k)\n{\n    unsigned long long r = 1;\n"
            "    for (int i = 1; i <= k; i++)\n        r = r * (unsigned long long)(n - k + i) / (unsigned)i;\n"
            "    return r;\n}\n")
    return "common", "common/ma_error.c"


def plant_static_inline_rule_in_shared_header(root):
    h = root / "common" / "ma_error.h"
    text = h.read_text()
    text = text.replace("#endif", "static inline int ma_closes_mill(unsigned mover, unsigned line)\n"
                                  "{\n    return (mover & line) == line;\n}\n\n#endif")
    h.write_text(text)
    return "shared-header", "common/ma_error.h"


def plant_macro_in_shared_header(root):
    h = root / "common" / "progress.h"
    h.write_text(h.read_text().replace("#endif", "#define MA_FLYING(w, wf) ((w) + (wf) <= 3)\n\n#endif"))
    return "shared-header", "common/progress.h"


def plant_format_marker_in_common(root):
    _append(root / "common" / "fileio.c",
            '\nconst char *ma_planted_suffix(void);\nconst char *ma_planted_suffix(void)\n'
            '{\n    return ".mdb";\n}\n')
    return "common", "common/fileio.c"


def plant_common_includes_checker(root):
    _insert_after_includes(root / "common" / "progress.c", '#include "verifier/formats/value.h"')
    return "include", "common/progress.c"


def plant_solver_includes_checker(root):
    _insert_after_includes(root / "solver" / "retro.c", '#include "indexer/position.h"')
    return "include", "solver/retro.c"


def plant_solve_command_reaches_checker(root):
    _insert_after_includes(root / "cli" / "cmd_solve.c", '#include "verifier/check/rules.h"')
    return "include", "cli/cmd_solve.c"


def plant_solver_calls_checker_by_prototype(root):
    _append(root / "solver" / "svsector.c",
            "\nint ma_vrules_init(void *r, int v, int s, void *err);\n"
            "int ma_planted(void);\nint ma_planted(void)\n{\n    return ma_vrules_init(0, 1, 0, 0);\n}\n")
    return "identifier", "solver/svsector.c"


def plant_dispatcher_includes_solver(root):
    _insert_after_includes(root / "cli" / "main.c", '#include "solver/solver.h"')
    return "include", "cli/main.c"


def plant_commands_header_grows(root):
    h = root / "cli" / "commands.h"
    h.write_text(h.read_text().replace("#endif", "int ma_shared_rank(unsigned mask);\n\n#endif"))
    return "shared-header", "cli/commands.h"


def plant_unclassified_directory(root):
    (root / "engine").mkdir()
    (root / "engine" / "engine.c").write_text('#include "solver/svrules.h"\nint ma_engine;\n')
    return "layout", "engine/engine.c"


PLANTS = [plant_relative_solver_include, plant_angle_solver_include, plant_symlinked_solver_header,
          plant_computed_include, plant_solver_call_in_verify_driver, plant_rules_table_in_common,
          plant_anonymous_adjacency_table_in_common, plant_binomial_in_common,
          plant_static_inline_rule_in_shared_header, plant_macro_in_shared_header,
          plant_format_marker_in_common, plant_common_includes_checker,
          plant_solver_includes_checker, plant_solve_command_reaches_checker,
          plant_solver_calls_checker_by_prototype, plant_dispatcher_includes_solver,
          plant_commands_header_grows, plant_unclassified_directory]


def test_unplanted_copy_is_clean(tmp_path):
    """The control for the plants below: the copy itself passes."""
    root = _copy_tree(tmp_path / "tree")
    found = ind.scan(root)
    assert found == [], "\n".join(map(str, found))


@pytest.mark.parametrize("plant", PLANTS, ids=[p.__name__[len("plant_"):] for p in PLANTS])
def test_planted_violation_fails_the_scan(tmp_path, plant):
    root = _copy_tree(tmp_path / "tree")
    rule, where = plant(root)
    found = ind.scan(root)
    hits = [v for v in found if v.rule == rule and v.where == where]
    assert hits, f"planted {plant.__name__} not reported as [{rule}] {where}; scan found:\n" + \
        "\n".join(map(str, found))
    print(f"\n{plant.__name__}: " + "; ".join(map(str, hits)))


# --- the build: symbols and link proofs ------------------------------------------------------

@pytest.fixture(scope="module")
def build(millaudit):
    return millaudit.path.parent


def test_every_archive_belongs_to_a_side(build):
    found = ind.archives(build)
    names = {a.name for a in found}
    assert set(ind.REQUIRED_ARCHIVES) <= names, f"not built: {set(ind.REQUIRED_ARCHIVES) - names}"
    assert [str(a) for a, side in found.items() if side is None] == []


def test_archives_are_independent(build):
    found = ind.symbol_violations(ind.archives(build))
    assert found == [], "\n".join(map(str, found))


def _compile(tmp_path, name, source):
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    obj = tmp_path / f"{name}.o"
    subprocess.run([_cc(), "-c", "-o", str(obj), str(src)], check=True)
    return obj


CALLS_SOLVER = ("int ma_svrules_init(void *r, int variant, int bug, void *err);\n"
                "int ma_planted_rules(void);\n"
                "int ma_planted_rules(void) { return ma_svrules_init(0, 1, 0, 0); }\n")
CALLS_CHECKER = ("int ma_vrules_init(void *r, int v, int s, void *err);\n"
                 "int ma_planted_rules(void);\n"
                 "int ma_planted_rules(void) { return ma_vrules_init(0, 1, 0, 0); }\n")


def _with_object(tmp_path, archive, obj):
    """A copy of archive with obj added."""
    copy = tmp_path / archive.name
    shutil.copy(archive, copy)
    subprocess.run(["ar", "rcs", str(copy), str(obj)], check=True)
    return copy


def test_symbol_check_sees_a_planted_reference_and_a_duplicate(build, tmp_path):
    sides = ind.archives(build)
    verifier = next(a for a in sides if a.name == "libma_check.a")
    # a checker object calling the producer through a hand-written prototype
    planted = dict(sides)
    del planted[verifier]
    planted[_with_object(tmp_path, verifier, _compile(tmp_path, "calls", CALLS_SOLVER))] = "checker"
    found = ind.symbol_violations(planted)
    assert any(v.where == "libma_check.a" and "ma_svrules_init" in v.what for v in found), found
    # a checker object defining a producer symbol: a static link would silently pick one of them
    dup = tmp_path / "dup"
    dup.mkdir()
    obj = _compile(dup, "dup", "unsigned short ma_retro_negate(unsigned short v) { return v; }\n")
    planted = dict(sides)
    del planted[verifier]
    planted[_with_object(dup, verifier, obj)] = "checker"
    found = ind.symbol_violations(planted)
    assert any("both sides" in v.what and "ma_retro_negate" in v.what for v in found), found


def _link_line(build, target):
    d = build / "tests" / "link"
    link = d / "CMakeFiles" / f"{target}.dir" / "link.txt"
    assert link.exists(), f"{link} not found: the link proofs need the Makefile generator (scripts/test)"
    return d, shlex.split(link.read_text().strip())


def _group(args):
    start, end = args.index("-Wl,--whole-archive"), args.index("-Wl,--no-whole-archive")
    return [pathlib.Path(a).name for a in args[start + 1:end]]


CHECKER_ARCHIVES = {"libma_cli_checker.a", "libma_check.a", "libma_run.a", "libma_audit.a",
                    "libma_store.a", "libma_render.a", "libma_formats.a", "libma_indexer.a",
                    "libma_checksums.a"}
PRODUCER_ARCHIVES = {"libma_cli_producer.a", "libma_solver.a"}


@pytest.mark.parametrize("target,mine,theirs", [
    ("link_checker_alone", CHECKER_ARCHIVES, PRODUCER_ARCHIVES),
    ("link_producer_alone", PRODUCER_ARCHIVES, CHECKER_ARCHIVES),
    ("link_common_alone", {"libma_common.a"}, PRODUCER_ARCHIVES | CHECKER_ARCHIVES)])
def test_link_proof_takes_every_object_of_one_side_and_nothing_of_the_other(build, target, mine, theirs):
    _, args = _link_line(build, target)
    assert set(_group(args)) == mine, _group(args)
    named = {pathlib.Path(a).name for a in args}
    assert not (named & theirs), f"{target} links {named & theirs}"
    assert (build / "tests" / "link" / target).exists(), f"{target} was not linked"


@pytest.mark.parametrize("target,archive,source,symbol", [
    ("link_checker_alone", "libma_check.a", CALLS_SOLVER, "ma_svrules_init"),
    ("link_producer_alone", "libma_solver.a", CALLS_CHECKER, "ma_vrules_init")])
def test_link_proof_fails_when_a_side_reaches_across(build, tmp_path, target, archive, source, symbol):
    d, args = _link_line(build, target)
    out = tmp_path / "a.out"
    i = args.index("-o")
    args[i + 1] = str(out)
    # the control: the real line links
    proc = subprocess.run(args, cwd=d, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    # the same line with one planted object in the side's archive must not
    planted = _with_object(tmp_path, d / next(a for a in args if a.endswith(archive)),
                           _compile(tmp_path, "planted", source))
    args = [str(planted) if a.endswith(archive) else a for a in args]
    proc = subprocess.run(args, cwd=d, capture_output=True, text=True)
    assert proc.returncode != 0
    assert f"undefined reference to `{symbol}'" in proc.stderr, proc.stderr[-2000:]
