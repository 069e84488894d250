"""The test harness cannot go green by skipping: what makes a skip visible (and, in CI, a failure)
stays wired up as new tests are added.

A cmocka executable that skips must say so to ctest (exit 77, SKIP_RETURN_CODE); a test that needs
../shared/fixtures skips only through the helpers that fail instead when CI is set or
MILLAUDIT_REQUIRE_FIXTURES=1 (tests/unit/support.h, tests/integration/conftest.py).
"""
import pathlib
import re

from conftest import ROOT

UNIT = ROOT / "tests" / "unit"


def test_every_skipping_unit_test_reports_its_skips():
    for src in sorted(UNIT.glob("test_*.c")):
        text = src.read_text()
        skips = re.search(r"\bskip\s*\(\s*\)|MA_TEST_NEED_FIXTURES|MA_TEST_SKIP_OR_FAIL|NEED_FIXTURES", text)
        if not skips:
            continue
        assert re.search(r"\bskip\s*\(\s*\)", text) is None, \
            f"{src.name}: a bare skip() is not counted; use MA_TEST_SKIP_OR_FAIL / MA_TEST_NEED_FIXTURES"
        assert re.search(r"return\s+(ma_test_run_group|ma_test_exit_status)\s*\(", text), \
            f"{src.name} can skip but main does not return ma_test_run_group / ma_test_exit_status (77)"


def test_ctest_knows_the_skip_code():
    text = (UNIT / "CMakeLists.txt").read_text()
    assert re.search(r"SKIP_RETURN_CODE\s+77", text)


SKIPS = re.compile(r"pytest\.skip\b|\bskipif\b|importorskip|pytest\.mark\.skip|unittest\.skip|SkipTest")


def test_every_skip_goes_through_the_one_helper():
    """Every reason a test may not run goes through conftest.skip_unless (need_fixture, need_module),
    which fails instead of skipping under CI / MILLAUDIT_REQUIRE_FIXTURES=1: no pytest.skip, skipif,
    importorskip anywhere else (an xfail only strict) in tests/integration, and no cmocka skip() outside the
    helpers of tests/unit/support.h."""
    here = pathlib.Path(__file__).name
    for path in sorted((ROOT / "tests" / "integration").glob("*.py")):
        if path.name == here:
            continue  # this file names the patterns
        text = path.read_text()
        if path.name == "conftest.py":
            # the one pytest.skip, inside skip_unless
            body = text[text.index("def skip_unless("):]
            body = body[:body.index("\ndef ", 1)]
            assert len(SKIPS.findall(text)) == len(SKIPS.findall(body)) == 1, \
                "conftest.py: a skip outside skip_unless"
            continue
        for n, line in enumerate(text.splitlines(), 1):
            assert not SKIPS.search(line), f"{path.name}:{n}: a skip outside conftest.skip_unless: {line.strip()}"
            # an expected failure must fail: a strict xfail turns into a failure when it passes
            assert "xfail(" not in line or "strict=True" in line, f"{path.name}:{n}: a non-strict xfail"
    for path in sorted(UNIT.glob("*.[ch]")):
        if path.name == "support.h":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            assert not re.search(r"\bskip\s*\(", line), \
                f"{path.name}:{n}: a cmocka skip() outside tests/unit/support.h: {line.strip()}"
    # and support.h's skip() is inside its helper, which fails when fixtures are required
    support = (UNIT / "support.h").read_text()
    assert len(re.findall(r"\bskip\(\)", support)) == 1
    helper = support[support.index("#define MA_TEST_SKIP_OR_FAIL"):]
    helper = helper[:helper.index("\n\n")]
    assert "skip()" in helper and "ma_test_fixtures_required()" in helper


def test_scripts_show_skips_and_ci_requires_fixtures():
    assert re.search(r"pytest .*-rs", (ROOT / "scripts" / "test").read_text())
    assert re.search(r"^export CI=1$", (ROOT / ".ci" / "run").read_text(), re.M)
