"""Issue 24's golden test: every command's output on the demo database (std, 3 stones per side, as
scripts/demo builds it with STONES=3) byte-identical to tests/integration/golden/<case>.out, with
only timings, timestamps, the scratch path, the host, the git revision and the fresh attest key
masked (golden_cases.mask: one rule per line, each named). Meant to hold across the refactor of
cli/ into the public library API: a change of any message, count, digest, exit code or JSON field
fails here with a unified diff. When a change is intended: scripts/golden --update, and review the
diff of tests/integration/golden/ in the commit.
"""
import difflib

import pytest

import golden_cases


@pytest.fixture(scope="module")
def outputs(millaudit, tmp_path_factory):
    work = tmp_path_factory.mktemp("golden")
    return golden_cases.run_all(millaudit.path, work)


def test_every_case_has_a_golden_file_and_no_file_is_stale(outputs):
    on_disk = {p.stem for p in golden_cases.GOLDEN.glob("*.out")}
    assert set(outputs) - on_disk == set(), "cases without a golden file; run scripts/golden --update"
    assert on_disk - set(outputs) == set(), "golden files of no case; run scripts/golden --update"


def test_every_command_is_covered():
    """Each command of `millaudit --help` runs at least once beyond its --help (a command added
    later without a golden case fails here)."""
    names = [name for name, _ in golden_cases.cases()]
    for cmd in golden_cases.COMMANDS:
        key = cmd.replace("-", "_")
        assert [n for n in names if n.startswith(key) or n.startswith(f"{key}_")], cmd


@pytest.mark.parametrize("case", [name for name, _ in golden_cases.cases()])
def test_output_matches_golden(outputs, case):
    path = golden_cases.GOLDEN / f"{case}.out"
    assert path.exists(), f"{path} missing; run scripts/golden --update"
    want = path.read_text()
    got = outputs[case]
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            f"golden/{case}.out", f"{case} (this build)"))
        pytest.fail(f"output of case {case} changed:\n{diff}\n"
                    "If the change is intended: scripts/golden --update, and commit the new golden file.",
                    pytrace=False)


def test_mask_keeps_database_digests_and_hides_only_what_varies(tmp_path):
    """The masks must not hide a real change: a digest of a database file, a count or a value stays;
    a timing, timestamp, path and revision go."""
    work = tmp_path
    line = (f"{work}/db std_2_2_1_1 9d5e0c4c6f2d1f7b9a0e3c5d7f9b1a3c5e7d9f1b3a5c7e9d1f3b5a7c9e1d3f5b "
            "6,930 entries, 0.12 s, 2.24M/s, 2026-11-26T16:51:26.379Z, millaudit 0.1.0 (git b94b5aa6c013)")
    masked = golden_cases.mask(line, work)
    assert masked == ("<DIR>/db std_2_2_1_1 9d5e0c4c6f2d1f7b9a0e3c5d7f9b1a3c5e7d9f1b3a5c7e9d1f3b5a7c9e1d3f5b "
                      "6,930 entries, <SECONDS> s, <RATE>/s, <TIME>, millaudit 0.1.0 (git <REV>)")


def test_mask_hides_the_scratch_path_as_markdown_escapes_it(tmp_path):
    """A report in Markdown escapes each "_" of the scratch path; the golden file must not then depend
    on whether the random temp name held one."""
    work = tmp_path / "gy_rt_iso"
    escaped = str(work).replace("_", "\\_")
    assert golden_cases.mask(f"| database | {escaped}/db |", work) == "| database | <DIR>/db |"
