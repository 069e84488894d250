"""The CLI's own behaviour: help, version, unknown commands."""
import re


def test_version_names_version_and_revision(millaudit):
    out = millaudit.run("--version", check=0).stdout
    assert re.match(r"millaudit \d+\.\d+\.\d+ \(git ([0-9a-f]+|unknown)\)$", out)


def test_help_lists_every_command(millaudit):
    out = millaudit.run("--help", check=0).stdout
    for cmd in ("solve", "stats", "dump", "verify", "index-check"):
        assert re.search(rf"^\s+{cmd}\s", out, re.M), cmd


def test_unknown_command_is_a_usage_error(millaudit):
    proc = millaudit.run("frobnicate", check=2)
    assert "unknown command 'frobnicate'" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_no_arguments_prints_usage_to_stderr(millaudit):
    proc = millaudit.run(check=2)
    assert "usage: millaudit" in proc.stderr
