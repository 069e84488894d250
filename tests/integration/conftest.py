"""Shared fixtures for the integration tests: the real millaudit binaries and the fixture paths."""
import json
import os
import pathlib
import subprocess

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


# Commands whose every --json output the suite validates as it runs them.
_VALIDATED = {"verify"}


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
        if words and words[0] in _VALIDATED and "--json" in words and proc.stdout.strip():
            # verify --plan N prints the partition, a document of its own
            name = "verify-plan" if words[0] == "verify" and "--plan" in words else words[0]
            validate_json(name, json.loads(proc.stdout))
        return proc


@pytest.fixture(scope="session")
def millaudit():
    return Millaudit(_binary("MILLAUDIT_BIN", "build/millaudit"))


@pytest.fixture(scope="session")
def millaudit_asan():
    """The AddressSanitizer/UBSan build, for bad-input tests: a crash or OOB read fails the test."""
    return Millaudit(_binary("MILLAUDIT_ASAN_BIN", "build-asan/millaudit"))


@pytest.fixture(scope="session")
def malom_fixtures():
    path = FIXTURES / "malom"
    if not path.is_dir():
        pytest.skip(f"Malom fixtures absent: {path} not found (expected beside the project root)")
    return path
