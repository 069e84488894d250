"""Validates JSON documents the binary prints against their schemas in docs/json/<name>.schema.json.

Every command that prints JSON has a schema there (draft 2020-12 or draft-07, chosen by the schema's
"$schema"), and every document carries "schema_version". Tests call

    from schemas import validate
    doc = validate(json.loads(proc.stdout), "report")

which checks the schema itself, validates the document (all errors listed, with their paths), checks
that the document's schema_version is the one the schema fixes, and returns the document.
"""
import functools
import json
import pathlib

import pytest

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "json"

try:
    import jsonschema
except ImportError:  # a declared test dependency (scripts/install-deps): say so rather than skip
    jsonschema = None


@functools.lru_cache(maxsize=None)
def schema(name):
    path = SCHEMAS / f"{name}.schema.json"
    assert path.exists(), f"no schema for '{name}': {path} is missing"
    return json.loads(path.read_text(encoding="utf-8"))


def validator(name):
    if jsonschema is None:
        pytest.fail("python3-jsonschema is not installed (scripts/install-deps installs it)")
    s = schema(name)
    cls = jsonschema.validators.validator_for(s)
    cls.check_schema(s)
    return cls(s)


def validate(doc, name):
    """Validates doc against docs/json/<name>.schema.json; returns doc."""
    v = validator(name)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:20]]
        pytest.fail(f"document does not match docs/json/{name}.schema.json ({len(errors)} errors):\n" + "\n".join(lines))
    want = schema(name).get("properties", {}).get("schema_version", {}).get("const")
    assert want is not None, f"docs/json/{name}.schema.json does not fix schema_version with a const"
    assert isinstance(doc, dict) and doc.get("schema_version") == want
    return doc


def rejects(doc, name):
    """True when the schema rejects doc (for tests that the schema is not vacuous)."""
    return any(True for _ in validator(name).iter_errors(doc))
