"""libmillaudit as C and C++ programs use it (issue 46), from the headers and library that
`cmake --install` puts in a fresh prefix, found with pkg-config alone:

- every public header compiles alone in C99 (gcc -pedantic), C++17 (g++ and clang++), with
  nothing but `pkg-config --cflags millaudit` on the include path, and holds no internals (no
  common/ path, no source file of the tree, no atomics, locks, 4 KiB arrays or test hooks);
- the version macros, ma_version() and the command's --version agree;
- examples/verify_probe.cpp, built with g++ and with clang++, verifies a game and probes a
  position, and what it prints is what `millaudit verify --json` and `probe --json` say; on a
  database with a planted fault it exits 1 with the command's counts.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import skip_unless

C_COMPILERS = {
    "gcc-c99": ("gcc", ["-x", "c", "-std=c99", "-pedantic-errors"]),
    "g++-c++17": ("g++", ["-x", "c++", "-std=c++17", "-pedantic-errors"]),
    "clang++-c++17": ("clang++", ["-x", "c++", "-std=c++17", "-pedantic-errors"]),
}
POSITION = "a1,d1,g1/a7,d7,g7"


def compiler(name):
    path = shutil.which(name)
    skip_unless(path, f"{name} not installed (scripts/install-deps --test installs it)")
    return path


def public_headers(api):
    return sorted([api.include / "millaudit.h", *(api.include / "millaudit").glob("*.h")])


def test_the_installed_headers_are_the_public_ones(installed_api):
    names = sorted(p.relative_to(installed_api.include).as_posix() for p in public_headers(installed_api))
    assert names == ["millaudit.h"] + [f"millaudit/{n}.h" for n in (
        "diff", "error", "game", "inspect", "integrity", "manifest", "progress", "store", "types", "verdict", "verify",
        "version")]
    # one -I, the prefix's include directory: no common/ or other folder of the tree on the path
    cflags = installed_api.pkg_config("--cflags", "millaudit")
    assert cflags == [f"-I{installed_api.pcdir}/../../include"], cflags


@pytest.mark.parametrize("lang", sorted(C_COMPILERS))
def test_every_public_header_compiles_alone(installed_api, tmp_path, lang):
    cc, flags = C_COMPILERS[lang]
    cc = compiler(cc)
    cflags = installed_api.pkg_config("--cflags", "millaudit")
    for header in public_headers(installed_api):
        name = header.relative_to(installed_api.include).as_posix()
        src = tmp_path / "one.txt"
        src.write_text(f"#include <{name}>\n#include <{name}>\nint ma_test_anchor;\n")  # twice: guarded
        proc = subprocess.run([cc, *flags, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", *cflags, str(src)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"{lang}: {name}\n{proc.stderr}"


INTERNALS = [
    (re.compile(r"\b(?:common|verifier|reports|run|render|store|formats|check|cli|audit|checksums|indexer|solver|lib)/\w+\.[ch]\b"),
     "a source file the -dev package does not ship"),
    (re.compile(r"\b_Atomic\b|\bstdatomic\.h\b"), "an atomic"),
    (re.compile(r"\bpthread"), "a lock"),
    (re.compile(r"\b(?:stop_after\w*|on_step|step_ctx|on_hashed|hashed_ctx)\b"), "a test hook"),
]


def test_public_headers_hold_no_internals(installed_api):
    for header in public_headers(installed_api):
        text = header.read_text()
        for pattern, what in INTERNALS:
            m = pattern.search(text)
            assert not m, f"{header.name}: {m.group(0)!r}: {what}"
        for m in re.finditer(r"\[(\d+)\]", text):
            assert int(m.group(1)) < 4096, f"{header.name}: an array of {m.group(1)} in a public struct"


def test_the_checks_see_planted_internals(tmp_path):
    """The scan above fails on each thing it looks for."""
    samples = ['#include "common/progress.h"', "_Atomic uint64_t done;", "pthread_mutex_t lock;",
               "size_t stop_after_sectors;"]
    for sample in samples:
        assert any(p.search(sample) for p, _ in INTERNALS), sample


def test_version_macros_and_functions_agree_with_the_command(installed_api, millaudit, tmp_path):
    src = tmp_path / "v.c"
    src.write_text("""#include <millaudit.h>
#include <stdio.h>
#if MILLAUDIT_VERSION_NUMBER != MILLAUDIT_VERSION_MAJOR * 10000 + MILLAUDIT_VERSION_MINOR * 100 + MILLAUDIT_VERSION_PATCH
#error version number
#endif
int main(void)
{
    printf("%s %d.%d.%d %d %s %d %d %d %d\\n", MILLAUDIT_VERSION, MILLAUDIT_VERSION_MAJOR, MILLAUDIT_VERSION_MINOR,
           MILLAUDIT_VERSION_PATCH, MILLAUDIT_VERSION_NUMBER, ma_version(), ma_version_number(),
           ma_api_version(), MILLAUDIT_API_VERSION, MILLAUDIT_SOVERSION);
    return 0;
}
""")
    exe = tmp_path / "v"
    proc = subprocess.run([compiler("gcc"), "-std=c99", "-pedantic-errors", "-Wall", "-Werror", str(src),
                           "-o", str(exe), *installed_api.pkg_config("--cflags", "--libs", "millaudit")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    words = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    version = millaudit.run("--version", check=0).stdout.split()[1]
    major, minor, patch = map(int, version.split("."))
    assert words == [version, version, str(major * 10000 + minor * 100 + patch), version,
                     str(major * 10000 + minor * 100 + patch), "4", "4", "0"]


def run_json(millaudit, *args):
    proc = millaudit.run(*args, "--json")
    return proc.returncode, json.loads(proc.stdout)


def expected_lines(millaudit, db):
    """What verify_probe prints, made from the command's JSON documents."""
    status, doc = run_json(millaudit, "verify", db)
    t = doc["totals"]
    lines = [f"verdict {doc['verdict']}",
             f"totals sectors {t['sectors']} entries {t['entries']} verified {t['verified']} "
             f"discrepancies {t['discrepancies']}"]
    for s in doc["sectors"]:
        lines.append(f"sector {s['sector']} {s['status']} entries {s['entries']} "
                     f"verified {s['verified']} discrepancies {s['discrepancies']}")
    rc, probe = run_json(millaudit, "probe", db, POSITION)
    assert rc == 0
    lines.append(f"position {probe['board']} sector {probe['variant']}_{probe['sector']} entry {probe['entry']}: "
                 f"{probe['stored']['text']}")
    lines += [f"turn {t['turn']} {t['value']['text'] if t['value']['known'] else 'unknown'}" for t in probe["turns"]]
    lines.append(f"exit {status}")
    assert doc["exit"] == status
    return status, lines


@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_cpp_example_verifies_and_probes_like_the_command(installed_api, millaudit, std3_games, tmp_path, cxx):
    """A C++ program links the C library (extern "C"), and its facts are the command's."""
    exe = tmp_path / "verify_probe"
    proc = subprocess.run([compiler(cxx), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic-errors",
                           str(installed_api.examples / "verify_probe.cpp"), "-o", str(exe),
                           *installed_api.pkg_config("--cflags", "--libs", "millaudit")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for db, want_status in (("db", 0), ("bad", 1)):
        status, lines = expected_lines(millaudit, std3_games / db)
        assert status == want_status
        got = subprocess.run([str(exe), str(std3_games / db), POSITION], capture_output=True, text=True, timeout=300)
        assert got.returncode == want_status, got.stderr
        assert got.stdout.splitlines() == lines
        assert len(lines) == 2 + 7 + 1 + 54 + 1
    # an error is the command's: the database root is named, exit 3
    got = subprocess.run([str(exe), str(tmp_path / "nothing"), POSITION], capture_output=True, text=True)
    assert got.returncode == 3 and got.stdout == ""
    assert got.stderr == f"verify_probe: {tmp_path / 'nothing'}: No such file or directory\n"
