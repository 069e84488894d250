"""Validation of JSON documents against docs/json/<name>.schema.json with every error listed.

The schemas are loaded (and checked) once by conftest.json_schema, which conftest.validate_json and
Millaudit.run's automatic validation use too; this module adds what a test of a document needs:

    from schemas import validate
    doc = validate(json.loads(proc.stdout), "report")

validates the document listing every error with its path, checks that its schema_version is the one
the schema fixes with a const, and returns it; rejects(doc, name) tells whether a schema refuses a
document (to prove a schema is not vacuous).
"""
import jsonschema
import pytest

from conftest import ROOT, json_schema

SCHEMAS = ROOT / "docs" / "json"


def schema(name):
    path = SCHEMAS / f"{name}.schema.json"
    assert path.exists(), f"no schema for '{name}': {path} is missing"
    return json_schema(name)


def validator(name):
    s = schema(name)
    return jsonschema.validators.validator_for(s)(s)


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
