"""`scripts/mutate --check`: every mutant of scripts/mutations.txt still applies exactly once.

scripts/test runs it on every commit, so a mutant whose code moved is named at once instead of at
the next full mutation run. These tests also show that the check can fail: a list with a hunk that
matches nowhere, one that matches twice and one naming a missing file are each reported STALE."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MUTATE = ROOT / "scripts" / "mutate"


def check(list_path):
    return subprocess.run([sys.executable, str(MUTATE), "--check", "--list", str(list_path)],
                          capture_output=True, text=True, timeout=120)


def test_every_listed_mutant_applies_exactly_once():
    r = check(ROOT / "scripts" / "mutations.txt")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 stale" in r.stdout


def test_stale_mutants_are_named(tmp_path):
    lst = tmp_path / "m.txt"
    lst.write_text(
        "=== nowhere\nfile: verifier/check/check.c\nwhat: code that is not there\n"
        "--- find\nthis line exists in no source file ();\n+++ replace\nx();\n\n"
        "=== twice\nfile: verifier/check/check.c\nwhat: matches many places\n"
        "--- find\n#include\n+++ replace\n#include\n\n"
        "=== nofile\nfile: verifier/check/no_such_file.c\nwhat: missing file\n"
        "--- find\na\n+++ replace\nb\n")
    r = check(lst)
    assert r.returncode == 1
    stale = sorted(l.split()[1].rstrip(":") for l in r.stdout.splitlines() if l.startswith("STALE"))
    assert stale == ["nofile", "nowhere", "twice"]
    assert "3 mutants: 0 apply, 3 stale" in r.stdout


def load_mutate():
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("mutate_script", str(MUTATE))
    spec = importlib.util.spec_from_loader("mutate_script", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_a_section_comment_after_a_mutant_is_not_part_of_its_replacement():
    # the last mutant before a "# ----" section heading once carried the heading into the C file,
    # so the mutant did not compile and was reported invalid instead of killed or survived
    mutants = load_mutate().parse_mutants(
        "=== a\nfile: verifier/check/check.c\nwhat: x\n--- find\nif (r > bk) {\n+++ replace\nif (r >= bk) {\n"
        "#if KEEP\n\n# ---- the next section\n# \"# killed by\" lines\n\n"
        "=== b\nfile: verifier/check/check.c\nwhat: y\n--- find\nx\n+++ replace\ny\n")
    assert [m["id"] for m in mutants] == ["a", "b"]
    assert mutants[0]["hunks"] == [["if (r > bk) {", "if (r >= bk) {\n#if KEEP"]]
    assert mutants[1]["hunks"] == [["x", "y"]]


def test_a_find_without_its_replacement_is_refused(tmp_path):
    lst = tmp_path / "m.txt"
    lst.write_text("=== half\nfile: verifier/check/check.c\nwhat: no replacement\n--- find\nint x;\n")
    r = check(lst)
    assert r.returncode != 0
    assert "mutant half: needs file:, and find/replace hunks" in r.stdout + r.stderr
