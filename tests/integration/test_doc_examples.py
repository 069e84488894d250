"""Every generated part of the docs (the JSON schema table, the nightly worked example) is what the
real commands print today: scripts/doc-examples --check rewrites nothing and finds nothing stale
(issue 23, item 8). Run `scripts/doc-examples` to update the docs after a change of output."""
import os
import subprocess
import sys

from conftest import ROOT


def test_docs_hold_no_placeholder():
    for path in (ROOT / "docs").rglob("*.md"):
        text = path.read_text()
        assert "DOGFOOD_OUTPUT" not in text, path


def test_generated_docs_are_current(millaudit, millaudit_planted):
    env = {**os.environ, "MILLAUDIT_BIN": str(millaudit.path), "MILLAUDIT_PLANTED_BIN": str(millaudit_planted.path)}
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "doc-examples"), "--check"], capture_output=True,
                          text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr
