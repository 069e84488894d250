"""Shared fixtures for the integration tests: the real millaudit binaries and the fixture paths."""
import importlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
FIXTURES = SHARED / "fixtures"


def _binary(env_name, default):
    path = pathlib.Path(os.environ.get(env_name, ROOT / default))
    if not path.exists():
        pytest.fail(f"{env_name}: {path} does not exist; build first (scripts/test does)")
    return path


_SCHEMAS = {}


def json_schema(name):
    """The JSON Schema docs/json/<name>.schema.json, loaded once."""
    if name not in _SCHEMAS:
        path = ROOT / "docs" / "json" / f"{name}.schema.json"
        schema = json.loads(path.read_text())
        jsonschema.validators.validator_for(schema).check_schema(schema)
        _SCHEMAS[name] = schema
    return _SCHEMAS[name]


def validate_json(name, document):
    """Validates a parsed --json document against its command's schema (raises on mismatch)."""
    schema = json_schema(name)
    jsonschema.validators.validator_for(schema)(schema).validate(document)


# Commands whose every --json output the suite validates as it runs them, by schema name
# (docs/json/<name>.schema.json); a subcommand's schema is "<command>-<subcommand>".
_VALIDATED = {"verify", "diff", "probe", "stats", "runs-list", "runs-compare", "runs-regressions", "attest-verify"}


def schema_name(words):
    """The schema name of a command line: "verify", or "runs-list" for `runs list ...`."""
    if not words:
        return ""
    if words[0] in ("runs", "attest") and len(words) > 1:
        return f"{words[0]}-{words[1]}"
    return words[0]


class Millaudit:
    """Runs one build of the millaudit binary and returns CompletedProcess objects."""

    def __init__(self, path):
        self.path = path

    def run(self, *args, check=None, cwd=None, timeout=900, input=None):
        proc = subprocess.run([str(self.path), *map(str, args)], capture_output=True, text=True,
                              cwd=cwd, timeout=timeout, input=input)
        if check is not None and proc.returncode != check:
            raise AssertionError(
                f"millaudit {' '.join(map(str, args))} exited {proc.returncode}, expected {check}\n"
                f"stdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}")
        words = [str(a) for a in args]
        name = schema_name(words)
        if name == "verify" and "--plan" in words:
            name = "verify-plan"  # verify --plan N prints the partition, a document of its own
        if name in _VALIDATED and "--json" in words and proc.stdout.strip():
            validate_json(name, json.loads(proc.stdout))
        return proc


def reseal(path):
    """Writes the SHA-256 of an open-format file's body into its header (bytes 80..111, when it
    records one), as a producer that wrote wrong values would: the file passes its body digest and
    only its values are wrong, a fault of the solver. Without it the old digest stays and verify
    reports the file as damaged (docs/download.md), not as wrong."""
    import hashlib
    data = bytearray(path.read_bytes())
    if any(data[80:112]):
        data[80:112] = hashlib.sha256(bytes(data[128:])).digest()
        path.write_bytes(bytes(data))


@pytest.fixture(scope="session")
def millaudit():
    return Millaudit(_binary("MILLAUDIT_BIN", "build/millaudit"))


@pytest.fixture(scope="session")
def millaudit_asan():
    """The AddressSanitizer/UBSan build, for bad-input tests: a crash or OOB read fails the test."""
    return Millaudit(_binary("MILLAUDIT_ASAN_BIN", "build-asan/millaudit"))


def fixtures_required():
    """True when a test needing ../shared/fixtures must FAIL instead of skipping: in CI (CI set to
    anything but "", "0" or "false"; .ci/run sets it) or with MILLAUDIT_REQUIRE_FIXTURES=1, so a run
    can never go green without touching third-party data. tests/unit/support.h has the same rule."""
    ci = os.environ.get("CI", "")
    return (ci not in ("", "0", "false")) or os.environ.get("MILLAUDIT_REQUIRE_FIXTURES") == "1"


def skip_unless(cond, reason, module=False):
    """The one way a test may not run (test_harness.py rejects every other way): returns when cond
    holds; otherwise skips the test (module=True: the whole module, at import) with the reason, or
    fails it when fixtures_required() -- CI provides every fixture, tool and right a test needs,
    so nothing is silently left out there."""
    if cond:
        return
    if fixtures_required():
        pytest.fail(reason + "; CI / MILLAUDIT_REQUIRE_FIXTURES=1 require it", pytrace=False)
    pytest.skip(reason, allow_module_level=module)


def need_module(name, reason):
    """The Python module `name`, imported; else skip_unless's skip (or failure) of the whole module."""
    try:
        return importlib.import_module(name)
    except ImportError:
        skip_unless(False, f"Python module {name} absent: {reason}", module=True)


def need_fixture(path, what="fixture"):
    """Returns path when it exists; otherwise skip_unless's skip (or failure) with the reason."""
    path = pathlib.Path(path)
    skip_unless(path.exists(), f"{what} absent: {path} not found (expected under {FIXTURES}, beside the project root)")
    return path


@pytest.fixture(scope="session")
def millaudit_planted():
    """The test-only build whose `solve` takes --plant-bug (docs/solver.md "Planted bugs")."""
    return Millaudit(_binary("MILLAUDIT_PLANTED_BIN", "build/millaudit-planted"))


@pytest.fixture(scope="session")
def millaudit_planted_asan():
    return Millaudit(_binary("MILLAUDIT_PLANTED_ASAN_BIN", "build-asan/millaudit-planted"))


@pytest.fixture(scope="session")
def malom_fixtures():
    path = need_fixture(FIXTURES / "malom", "Malom fixtures")
    if not path.is_dir():
        pytest.fail(f"{path} is not a directory")
    return path


# --- the library as its users install it (test_api_boundary.py, test_library.py, test_python.py) ---

@pytest.fixture(scope="session")
def build_dir(millaudit):
    """The CMake build tree of MILLAUDIT_BIN (its install rules and packages)."""
    d = millaudit.path.parent
    skip_unless((d / "CMakeCache.txt").exists(), f"{millaudit.path} is not in a CMake build tree")
    return d


class InstalledApi:
    """`cmake --install` of the library's components (lib, dev, python) into a fresh prefix."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.pcdir = next(prefix.rglob("millaudit.pc")).parent
        self.libdir = next(prefix.rglob("libmillaudit.so.0")).parent
        self.include = next(prefix.rglob("millaudit.h")).parent
        self.examples = next(prefix.rglob("verify_one.c")).parent
        self.pythonpath = next(prefix.rglob("millaudit/__init__.py")).parent.parent

    def pkg_config(self, *args):
        env = dict(os.environ, PKG_CONFIG_PATH=str(self.pcdir))
        proc = subprocess.run(["pkg-config", *args], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()


@pytest.fixture(scope="session")
def installed_api(build_dir, tmp_path_factory):
    skip_unless(shutil.which("pkg-config"), "pkg-config not installed")
    prefix = tmp_path_factory.mktemp("prefix")
    for component in ("lib", "dev", "python"):
        proc = subprocess.run(["cmake", "--install", str(build_dir), "--prefix", str(prefix), "--component",
                               component], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
    return InstalledApi(prefix)


@pytest.fixture(scope="session")
def std3_games(millaudit, tmp_path_factory):
    """The whole std 3-stone game solved (db) and a copy with one depth moved and its header
    resealed (bad): a verified database and one whose verify finds discrepancies."""
    d = tmp_path_factory.mktemp("games")
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", d / "db", "--quiet", check=0)
    shutil.copytree(d / "db", d / "bad")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "inject_fault.py"),
                           str(d / "bad" / "std_2_2_1_1.mdb"), "--entry", "100", "--depth-delta", "+1", "--reseal"],
                          capture_output=True, text=True, env=dict(os.environ, MILLAUDIT_BIN=str(millaudit.path)))
    assert proc.returncode == 0, proc.stderr
    return d


@pytest.fixture(scope="session")
def std4_games(millaudit, tmp_path_factory):
    """The whole std 4-stone game, in the open format (open) and, from those files, in .sec2 (sec2):
    the smallest game whose largest sector with its successor (std_4_4_0_0 and std_3_4_0_0, 9 MB)
    is copied into private memory for its check (verifier/check/walk.h). Read only: copy to change."""
    base = tmp_path_factory.mktemp("std4")
    millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", base / "open", "--quiet", check=0)
    millaudit.run("solve", "--variant", "std", "--stones", 4, "--out", base / "sec2", "--open-dir", base / "open",
                  "--format", "malom-sec2", "--quiet", check=0)
    return base


# The files that took longest in a serial run (--durations, 2026-11-29), begun first on a pytest-xdist
# worker: --dist loadfile (scripts/test) hands out whole files in collection order, and one of these
# begun last leaves the other worker idle while it runs. Only the order changes, and only there.
_LONGEST_FILES = ("test_cluster.py", "test_alloc_failure.py", "test_model_runs.py", "test_verify_resume.py",
                  "test_mutations.py", "test_solve_malom.py")


def pytest_collection_modifyitems(config, items):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        rank = {name: i for i, name in enumerate(_LONGEST_FILES)}
        items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's own order kept
