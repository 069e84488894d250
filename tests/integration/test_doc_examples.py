"""Every example output of the docs is what the real commands print today (issue 23, item 8):
scripts/doc-examples --check regenerates every generated part (the runs, plans, merges, reports,
hex dump, rules, synopses and error lines, from real databases it solves) and finds nothing stale,
and no fenced block outside the generated parts looks like command output. Run `scripts/doc-examples`
to rewrite the docs after a change of output, and review the diff."""
import json
import os
import re
import shutil
import subprocess
import sys

from conftest import ROOT

SCRIPT = ROOT / "scripts" / "doc-examples"


def docs():
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_docs_hold_no_placeholder():
    for path in docs():
        text = path.read_text()
        # DOGFOOD_OUTPUT once stood in docs/nightly.md where its worked example belongs
        assert not re.search(r"\b[A-Z]+_OUTPUT\b|\bTODO\b|\bFIXME\b|\bTBD\b", text), path


def test_generated_docs_are_current(millaudit, millaudit_planted):
    env = {**os.environ, "MILLAUDIT_BIN": str(millaudit.path), "MILLAUDIT_PLANTED_BIN": str(millaudit_planted.path)}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, env=env,
                          timeout=1800)
    # on failure the script's output names each stale part (doc: part) and hand-written output
    # (doc:line) and says how to rewrite them
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_generated_part_is_in_its_doc_and_runs_a_command():
    listed = subprocess.run([sys.executable, str(SCRIPT), "--list"], capture_output=True, text=True, check=True)
    parts = dict(line.split("\t") for line in listed.stdout.splitlines())
    for name, doc in parts.items():
        text = (ROOT / doc).read_text()
        assert f"<!-- generated: {name} (scripts/doc-examples) -->" in text, (name, doc)
        assert f"<!-- /generated: {name} -->" in text, (name, doc)
    # the nightly worked example stands where the placeholder was, and shows the three nights
    nightly = (ROOT / "docs" / "nightly.md").read_text()
    body = nightly.split("<!-- generated: nightly-example (scripts/doc-examples) -->")[1].split("<!-- /generated")[0]
    assert body.count("$ ci/nightly") == 3 and "(exit 0)" in body and "(exit 1)" in body
    assert "--plant-bug fly-early" in body  # the planted night of issue 45


def test_json_readme_lists_exactly_the_schemas():
    readme = (ROOT / "docs" / "json" / "README.md").read_text()
    rows = re.findall(r"^\| \[`([^`]+)`\]\(([^)]+)\) \| `([^`]*)` \| (\S+) \|$", readme, re.M)
    schemas = sorted(p.name for p in (ROOT / "docs" / "json").glob("*.schema.json"))
    assert sorted(name for name, _, _, _ in rows) == schemas
    for name, link, title, version in rows:
        doc = json.loads((ROOT / "docs" / "json" / name).read_text())
        assert link == name and title == doc["title"]
        assert version == str(doc["properties"]["schema_version"]["const"])


def copy_of_the_docs(tmp_path):
    """The script and the docs in a tree of their own, to spoil without touching the real ones."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(SCRIPT, tmp_path / "scripts" / "doc-examples")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    return tmp_path


def run_copy(tree, *args):
    return subprocess.run([sys.executable, str(tree / "scripts" / "doc-examples"), *args], capture_output=True,
                          text=True, timeout=600)


def test_a_stale_part_is_named_with_how_to_rewrite_it(tmp_path):
    tree = copy_of_the_docs(tmp_path)
    readme = tree / "docs" / "json" / "README.md"
    readme.write_text(readme.read_text().replace("| `millaudit verify --json` | 3 |", "| `millaudit verify --json` | 7 |"))
    proc = run_copy(tree, "--check", "--only", "json-schemas")
    assert proc.returncode == 1
    assert "doc-examples: stale: docs/json/README.md: json-schemas" in proc.stdout
    assert "run scripts/doc-examples (without --check)" in proc.stdout
    assert "| 7 |" in readme.read_text()  # --check writes nothing
    proc = run_copy(tree, "--only", "json-schemas")
    assert proc.returncode == 0 and "rewrote: docs/json/README.md: json-schemas" in proc.stdout
    assert readme.read_text() == (ROOT / "docs" / "json" / "README.md").read_text()
    assert run_copy(tree, "--check", "--only", "json-schemas").returncode == 0


def test_a_hand_written_output_is_refused(tmp_path):
    tree = copy_of_the_docs(tmp_path)
    runs = tree / "docs" / "runs.md"
    before = runs.read_text()
    line = before.count("\n") + 2  # the fence, after one blank line
    block = "```\n$ millaudit verify std3\nverdict: verified: all 264,399 entries of 7 sectors re-derived and matching\n```\n"
    runs.write_text(before + "\n" + block)
    proc = run_copy(tree, "--check", "--only", "json-schemas")
    assert proc.returncode == 1
    assert f"hand-written output: docs/runs.md:{line}: a shell prompt" in proc.stdout
    assert "<!-- hand-written: REASON -->" in proc.stdout
    # each shape alone is caught, in a block of any kind, indented in a list item too
    for sample in ["verdict: discrepancies found: 1 (1 root, 0 propagated)", "(exit 3)",
                   "std_3_3_0_0: ok, 210,140 entries, 210,140 verified, 0.12 s", "usage: millaudit verify DIR",
                   "millaudit stats: x: no such directory",
                   "millaudit runs merge: s0.sqlite and s0.sqlite are the same store", "00000000: 89 4d 49 4c 4c 0d 0a 1a",
                   "millaudit diff A B [--sector S ...]", "millaudit-rules 1", '{"schema_version": 1}']:
        runs.write_text(before + "\n1. a step\n\n   ```text\n   " + sample + "\n   ```\n")
        proc = run_copy(tree, "--check", "--only", "json-schemas")
        assert proc.returncode == 1 and "hand-written output: docs/runs.md:" in proc.stdout, sample
    # a command block is no output, whatever its comments say; a block marked hand-written passes
    runs.write_text(before + "\n```sh\nmillaudit verify db/ --audit a.sqlite   # verdict: verified\n```\n"
                    "\n<!-- hand-written: the form of the line -->\n```\nverdict: <headline>\n```\n")
    proc = run_copy(tree, "--check", "--only", "json-schemas")
    assert proc.returncode == 0, proc.stdout


def test_markers_of_an_unknown_or_missing_part_are_refused(tmp_path):
    tree = copy_of_the_docs(tmp_path)
    runs = tree / "docs" / "runs.md"
    text = runs.read_text()
    runs.write_text(text + "\n<!-- generated: no-such-part (scripts/doc-examples) -->\n<!-- /generated: no-such-part -->\n")
    proc = run_copy(tree, "--check", "--only", "json-schemas")
    assert proc.returncode == 2 and "docs/runs.md: markers of unknown part no-such-part" in proc.stderr
    runs.write_text(text.replace("<!-- /generated: verify-example -->", ""))
    proc = run_copy(tree, "--check", "--only", "json-schemas")
    assert proc.returncode == 2 and "docs/runs.md: markers of verify-example missing" in proc.stderr
