"""The producer and the checker must share no code: a bug they shared would be invisible.

solver/ may include only common/ and the generated version header; the checker side (indexer/,
formats/, verifier/) never includes solver/. Checked on the sources and on the link: the solver
library must not reference checker symbols and vice versa.
"""
import re
import subprocess

from conftest import ROOT

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
CHECKER_DIRS = ("indexer", "formats", "verifier")


def _includes(directory):
    for path in sorted((ROOT / directory).glob("*.[ch]")):
        for inc in INCLUDE.findall(path.read_text()):
            yield path.relative_to(ROOT), inc


def test_solver_includes_only_common_and_version():
    bad = [(str(p), inc) for p, inc in _includes("solver")
           if not (inc.startswith("common/") or inc.startswith("solver/") or inc == "ma_version.h")]
    assert bad == [], f"solver/ includes code outside common/: {bad}"


def test_checker_never_includes_solver():
    bad = [(str(p), inc) for d in CHECKER_DIRS for p, inc in _includes(d) if inc.startswith("solver/")]
    assert bad == [], f"checker code includes the producer: {bad}"


def test_include_checker_sees_a_violation(tmp_path):
    """The scan above must be able to fail: feed it a file that breaks the rule."""
    src = '#include "common/ma_error.h"\n#include "indexer/open_index.h"\n'
    found = [inc for inc in INCLUDE.findall(src)
             if not (inc.startswith("common/") or inc.startswith("solver/") or inc == "ma_version.h")]
    assert found == ["indexer/open_index.h"]


def _defined_and_undefined(lib):
    out = subprocess.run(["nm", "-g", "--defined-only", str(lib)], capture_output=True, text=True,
                         check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.count(" ") >= 2}
    out = subprocess.run(["nm", "-g", "--undefined-only", str(lib)], capture_output=True, text=True,
                         check=True).stdout
    undefined = {line.split()[-1] for line in out.splitlines() if line.strip() and ":" not in line}
    return defined, undefined


def test_link_level_separation(millaudit):
    """Even without includes, a symbol could be declared by hand: check what the archives link to."""
    build = millaudit.path.parent
    libs = {name: build / name / f"libma_{name}.a" for name in ("solver", "common", *CHECKER_DIRS)}
    for name, lib in libs.items():
        assert lib.exists(), f"{lib} not built"
    symbols = {name: _defined_and_undefined(lib) for name, lib in libs.items()}
    checker_defined = set().union(*(symbols[d][0] for d in CHECKER_DIRS))
    solver_defined = symbols["solver"][0]
    assert not (symbols["solver"][1] & checker_defined), "solver links to checker code"
    for d in CHECKER_DIRS:
        assert not (symbols[d][1] & solver_defined), f"{d} links to solver code"
    # Static archives resolve a duplicated name silently to whichever comes first, which would
    # quietly make one side run the other's code.
    shared = (solver_defined & checker_defined) - {"ma_module_stamp"}
    assert not shared, f"symbols defined by both producer and checker: {sorted(shared)[:10]}"
