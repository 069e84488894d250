"""Every JSON document millaudit prints has a versioned schema in docs/json/ and matches it.

The schemas themselves are checked (valid draft 2020-12 / draft-07, schema_version fixed by a const,
documented), every command whose --help offers --json must have one, and the documents of real runs
are validated. `report --format json` and `runs export` are validated in test_report.py and
test_runs.py; this file covers the rest.

stats, probe and diff print one jansson document with schema_version and values as data (outcome
and depth as fields). verify's and diff's documents are also validated wherever the suite runs them
with --json (conftest.py).
"""
import json
import pathlib
import re

import pytest

from conftest import ROOT
from schemas import SCHEMAS, rejects, schema, validate, validator

COMMANDS = ["solve", "stats", "dump", "verify", "index-check", "manifest", "report", "runs", "probe", "diff", "opening",
            "grade", "attest"]


def test_every_schema_is_valid_versioned_and_documented():
    names = sorted(p.name[:-len(".schema.json")] for p in SCHEMAS.glob("*.schema.json"))
    assert {"report", "runs-export", "stats", "probe", "verify"} <= set(names)
    for name in names:
        s = schema(name)
        assert s["$schema"] in ("https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#")
        validator(name)  # check_schema
        assert s["properties"]["schema_version"]["const"] >= 1, name
        assert "schema_version" in s["required"], name
        assert s.get("title") and len(s.get("description", "")) > 40, name
        assert "schema_version" in s["properties"], name


def json_commands(millaudit):
    """(command, subcommand) pairs whose --help offers --json."""
    found = []
    for cmd in COMMANDS:
        text = millaudit.run(cmd, "--help").stdout
        if re.search(r"--json\b", text):
            found.append(cmd)
    return found


@pytest.mark.parametrize("command", ["stats", "probe", "report"])
def test_commands_printing_json_have_a_schema(millaudit, command):
    name = {"report": "report"}.get(command, command)
    assert (SCHEMAS / f"{name}.schema.json").exists()


def test_verify_schema_exists():
    assert (SCHEMAS / "verify.schema.json").exists()


def test_diff_schema_exists():
    assert (SCHEMAS / "diff.schema.json").exists()


def test_no_command_prints_json_without_a_schema(millaudit):
    for cmd in json_commands(millaudit):
        if cmd == "runs":  # one schema per subcommand that prints JSON (export's is runs-export)
            for sub in ("export", "list", "compare", "regressions"):
                assert (SCHEMAS / f"runs-{sub}.schema.json").exists(), f"runs {sub} has no schema"
            continue
        if cmd == "attest":  # only verify prints JSON
            assert (SCHEMAS / "attest-verify.schema.json").exists(), "attest verify has no schema"
            continue
        assert (SCHEMAS / f"{cmd}.schema.json").exists(), f"{cmd} --json has no docs/json/{cmd}.schema.json"


@pytest.fixture(scope="module")
def game(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("jgame") / "std3"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", out, "--quiet", check=0)
    return out


def test_stats_json_matches_its_schema(millaudit, game):
    doc = validate(json.loads(millaudit.run("stats", game, "--json", check=0).stdout), "stats")
    start = doc["start"][0]
    assert (start["outcome"], start["depth"]) == ("win", 23)


def test_stats_json_of_malom_files_matches_its_schema(millaudit, malom_fixtures):
    validate(json.loads(millaudit.run("stats", malom_fixtures / "std-strong", "--json", check=0).stdout), "stats")


def test_probe_json_matches_its_schema(millaudit, game):
    doc = validate(json.loads(millaudit.run("probe", game, "a1,d1/d2,f2", "wf=1", "bf=1", "--json", check=0).stdout),
                   "probe")
    assert doc["stored"]["outcome"] == "win" and doc["stored"]["depth"] == 1


def test_schemas_reject_display_strings(millaudit, game):
    """The stats and probe schemas are not vacuous: real documents pass, and the same documents fail
    without schema_version or with a value that is only a display string."""
    probe = validate(json.loads(millaudit.run("probe", game, "a1,d1/d2,f2", "wf=1", "bf=1", "--json",
                                              check=0).stdout), "probe")
    assert rejects({**probe, "stored": "win 1"}, "probe")
    assert rejects({k: v for k, v in probe.items() if k != "schema_version"}, "probe")
    assert rejects({**probe, "turns": [{"turn": "b2", "value": "loss 4 (0x4004)"}]}, "probe")
    stats = validate(json.loads(millaudit.run("stats", game, "--json", check=0).stdout), "stats")
    start = {k: v for k, v in stats["start"][0].items() if k not in ("outcome", "depth")}
    assert rejects({**stats, "start": [start]}, "stats")
    assert rejects({**stats, "schema_version": 2}, "stats")
