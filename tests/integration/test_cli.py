"""The CLI's own behaviour: help, version, unknown commands."""
import os
import re
import subprocess

import pytest

from conftest import ROOT


def test_version_names_version_and_revision(millaudit):
    out = millaudit.run("--version", check=0).stdout
    assert re.match(r"millaudit \d+\.\d+\.\d+ \(git ([0-9a-f]{12}(-dirty)?|unknown)\)$", out)


def git_revision_header(src, out):
    """cmake/git_revision.cmake run on source tree src, writing out; its MA_GIT_REVISION."""
    subprocess.run(["cmake", f"-DSRC={src}", f"-DOUT={out}", "-P", str(ROOT / "cmake" / "git_revision.cmake")],
                   check=True, capture_output=True)
    return re.search(r'#define MA_GIT_REVISION "([^"]*)"', out.read_text()).group(1)


def test_the_revision_is_the_one_the_source_tree_is_at_now(build_dir, millaudit, tmp_path):
    """The revision a binary records in audit runs and attestations is its source tree's state when
    it was built, not when CMake was configured: built after a commit or an edit, it must not name
    the old commit (a stale build dir did). Compared with the tree as it is now, so a binary older
    than its tree fails here too."""
    cache = (build_dir / "CMakeCache.txt").read_text()
    src = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", cache, re.M).group(1)
    now = git_revision_header(src, tmp_path / "rev.h")
    out = millaudit.run("--version", check=0).stdout
    assert out.endswith(f"(git {now})\n")


def test_git_revision_follows_commits_and_edits(tmp_path):
    repo, out = tmp_path / "repo", tmp_path / "rev.h"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    assert git_revision_header(repo, out) == "unknown"  # not a checkout
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "a.c").write_text("1\n")
    subprocess.run(git + ["add", "a.c"], check=True)
    subprocess.run(git + ["commit", "-qm", "one"], check=True)
    head = lambda: subprocess.run(git + ["rev-parse", "--short=12", "HEAD"], check=True, capture_output=True,
                                  text=True).stdout.strip()
    first = head()
    assert git_revision_header(repo, out) == first
    # unchanged: the header is not rewritten, so nothing that includes it is rebuilt
    os.utime(out, ns=(1, 1))
    assert git_revision_header(repo, out) == first and out.stat().st_mtime_ns == 1
    (repo / "untracked.o").write_text("")  # build products do not make a tree dirty
    assert git_revision_header(repo, out) == first
    (repo / "a.c").write_text("2\n")
    assert git_revision_header(repo, out) == first + "-dirty"
    subprocess.run(git + ["commit", "-qam", "two"], check=True)
    assert head() != first and git_revision_header(repo, out) == head()


# The commands of README.md's command table, in the order of --help. Kept literal (not read back
# from --help) so a command that disappears from the binary fails here;
# test_readme_documents_every_command ties the list to the README table.
COMMANDS = ("solve", "stats", "dump", "verify", "index-check", "manifest", "report", "runs",
            "probe", "diff", "opening", "grade", "attest")


def readme_commands():
    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Commands"):text.index("Exit codes")]
    return [m.group(1) for m in re.finditer(r"^\| `millaudit ([a-z-]+)", table, re.M)]


def test_readme_documents_every_command():
    assert sorted(set(readme_commands())) == sorted(COMMANDS)


def test_help_lists_every_command(millaudit):
    out = millaudit.run("--help", check=0).stdout
    listed = re.findall(r"^  ([a-z-]+)\s+\S", out, re.M)
    assert listed == list(COMMANDS), listed


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_its_own_help(millaudit, cmd):
    out = millaudit.run(cmd, "--help", check=0).stdout
    assert out.startswith(f"usage: millaudit {cmd}"), out[:200]


def test_unknown_command_is_a_usage_error(millaudit):
    proc = millaudit.run("frobnicate", check=2)
    assert "unknown command 'frobnicate'" in proc.stderr
    assert proc.stderr.splitlines()[1:] == ["try 'millaudit --help'"]


def test_no_arguments_prints_usage_to_stderr(millaudit):
    proc = millaudit.run(check=2)
    assert "usage: millaudit" in proc.stderr


def test_short_version_flag_is_the_long_one(millaudit):
    assert millaudit.run("-V", check=0).stdout == millaudit.run("--version", check=0).stdout


@pytest.mark.parametrize("typo,meant", [("verfy", "'verify'"), ("reprot", "'report'"), ("stat", "'stats'"),
                                        ("manifset", "'manifest'"), ("dif", "'diff'"), ("ver", "'verify'"),
                                        ("index", "'index-check'"), ("prbe", "'probe'"), ("slove", "'solve'")])
def test_mistyped_command_suggests_the_one_meant(millaudit, typo, meant):
    proc = millaudit.run(typo, check=2)
    assert proc.stderr.count("\n") == 2  # the error and the hint
    assert f"unknown command '{typo}'; did you mean {meant}?" in proc.stderr


@pytest.mark.parametrize("word", ["frobnicate", "x", "reports-all", "zzzzzz"])
def test_no_suggestion_when_nothing_is_close(millaudit, word):
    proc = millaudit.run(word, check=2)
    assert "did you mean" not in proc.stderr and proc.stderr.count("\n") == 2


def test_unknown_word_with_control_characters_is_printed_safely(millaudit):
    proc = millaudit.run("ver\x1b[2Jify", check=2)
    assert "\x1b" not in proc.stderr and proc.stderr.count("\n") == 2


def test_unknown_top_level_option(millaudit):
    proc = millaudit.run("--frob", check=2)
    assert "unknown option '--frob'" in proc.stderr and "did you mean" not in proc.stderr


def test_readme_exit_codes_are_those_of_error_h():
    """One table of exit codes: every MA_EXIT_* of millaudit/error.h is a row of README.md's
    "Exit codes" table and every row a code there (130/143, the signals, besides)."""
    header = (ROOT / "include" / "millaudit" / "error.h").read_text()
    codes = {int(v) for v in re.findall(r"MA_EXIT_[A-Z_]+ = (\d+)", header)}
    text = (ROOT / "README.md").read_text()
    table = text[text.index("### Exit codes"):]
    table = table[:table.index("\n\n", table.index("| code |"))]
    rows = {int(c) for c in re.findall(r"^\| (\d+)[ ,|]", table, re.M)}
    assert codes == rows - {130}, (codes, rows)
    assert "130, 143" in table
