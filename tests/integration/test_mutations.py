"""Mutation tests: the producer with a planted rules bug must be caught by the checker.

For each `millaudit solve --plant-bug NAME` a database is written where the bug changes stored
values, then verified: exit 1 and at least one discrepancy, and every discrepancy is a root or
propagated from one. The per-bug counts are printed (run pytest with -s to see them).

To stay cheap enough for CI, each bug is solved only on the smallest sector where it changes values
plus what that sector depends on (`--sector S --with-deps`; a producer with a planted bug refuses to
reuse a clean producer's files, so the children cannot be shared), and only that sector is
verified. The chosen sectors (each found by trying the smaller ones, which stay clean):
  fly-early          4_3_0_0  the mover with 4 stones must not fly
  blocked-not-lost   4_4_0_0  smallest sector with a blocked mover (4_3_0_0 has none)
  removal-from-mill  3_5_0_0  the opponent needs a mill plus a free stone to make it matter
                              (3_4_0_0 stays clean)
  double-removal     4_4_1_0  a placing mover closing two mills at once (4_3_1_0 stays clean)
The clean control solves std 4_4_1_0 with everything it depends on (a superset of every set above)
once without a bug and verifies all of it with 0 discrepancies.
depth-in-moves changes every depth, so the whole 3-stone game (tiny) is solved with the bug.
"""
import pytest

from test_verify import verify_json

CLEAN_ROOT = "4_4_1_0"  # the clean set: this sector with everything it depends on
# name -> the smallest sector where the bug changes values: solved with its deps, then verified.
BUGS = {
    "fly-early": "4_3_0_0",
    "blocked-not-lost": "4_4_0_0",
    "removal-from-mill": "3_5_0_0",
    "double-removal": "4_4_1_0",
}


@pytest.fixture
def clean_set(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("clean")
    millaudit.run("solve", "--variant", "std", "--sector", CLEAN_ROOT, "--with-deps", "--out", out,
                  "--quiet", check=0)
    return out


def report(bug, doc):
    total = doc["totals"]
    classes = {}
    for s in doc["sectors"]:
        for cls, n in s["classes"].items():
            classes[cls] = classes.get(cls, 0) + n
    print(f"\nplanted bug {bug}: {total['discrepancies']} discrepancies in {total['entries']} entries "
          f"({total['roots']} root, {total['propagated']} propagated; "
          f"{total['unverifiable']} unverifiable); classes "
          + ", ".join(f"{c}={n}" for c, n in sorted(classes.items()) if n))


def assert_caught(doc):
    total = doc["totals"]
    assert doc["exit"] == 1
    assert total["discrepancies"] >= 1
    assert total["roots"] >= 1
    assert total["roots"] + total["propagated"] == total["discrepancies"]


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_planted_bug_is_caught(millaudit, millaudit_planted, tmp_path, bug):
    sector = BUGS[bug]
    out = tmp_path / bug
    out.mkdir()
    millaudit_planted.run("solve", "--variant", "std", "--sector", sector, "--with-deps", "--out", out,
                  "--quiet", "--plant-bug", bug, check=0)
    assert (out / f"std_{sector}.mdb").exists()
    _, doc = verify_json(millaudit, out, "--sector", sector, check=1)
    assert [s["sector"] for s in doc["sectors"]] == [f"std_{sector}"]
    assert_caught(doc)
    report(bug, doc)


def test_depth_in_moves_is_caught(millaudit, millaudit_planted, tmp_path):
    out = tmp_path / "depth-in-moves"
    out.mkdir()
    millaudit_planted.run("solve", "--variant", "std", "--stones", "3", "--out", out, "--quiet",
                  "--plant-bug", "depth-in-moves", check=0)
    _, doc = verify_json(millaudit, out, check=1)
    assert_caught(doc)
    report("depth-in-moves", doc)


def test_same_sectors_without_a_bug_verify_clean(millaudit, clean_set):
    """The control: a superset of every sector set above (each bug's sector is in it) verifies with zero discrepancies when no bug is planted."""
    names = {f.name for f in clean_set.glob("*.mdb")}
    assert {f"std_{s}.mdb" for s in BUGS.values()} <= names
    _, doc = verify_json(millaudit, clean_set, check=0)
    assert doc["totals"]["discrepancies"] == 0
    assert doc["totals"]["verified"] == doc["totals"]["entries"]
