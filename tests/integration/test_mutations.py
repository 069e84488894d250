"""Mutation tests: the producer with a planted rules bug must be caught by the checker.

For each `millaudit solve --plant-bug NAME` the database is solved on a small set of sectors where
the bug changes stored values (a bug that changes no value is invisible to any checker, so the
sectors are chosen for each bug: fly-early needs 4 stones, removal-from-mill an opponent with a
mill and free stones, double-removal a mover placing its fifth stone into two mills), then verified: exit 1 and at
least one discrepancy. The per-bug counts are printed (run pytest with -s to see them).
"""
import pytest

from test_verify import verify_json

# name -> (variant, solve arguments). Sectors chosen so the bug changes stored values.
BUGS = {
    "depth-in-moves": ("std", ["--stones", "3"]),
    "fly-early": ("std", ["--stones", "4"]),
    "blocked-not-lost": ("std", ["--stones", "4"]),
    "removal-from-mill": ("std", ["--sector", "4_5_0_0", "--with-deps"]),
    "double-removal": ("std", ["--sector", "4_4_1_0", "--with-deps"]),
}


@pytest.mark.parametrize("bug", sorted(BUGS))
def test_planted_bug_is_caught(millaudit, tmp_path, bug):
    variant, args = BUGS[bug]
    out = tmp_path / bug
    out.mkdir()
    millaudit.run("solve", "--variant", variant, *args, "--out", out, "--quiet", "--plant-bug", bug,
                  check=0)
    proc, doc = verify_json(millaudit, out, check=1)
    total = doc["total"]
    assert doc["exit"] == 1
    assert total["discrepancies"] >= 1
    assert total["roots"] >= 1
    assert total["roots"] + total["propagated"] == total["discrepancies"]
    classes = {}
    for s in doc["sectors"]:
        for cls, n in s["classes"].items():
            classes[cls] = classes.get(cls, 0) + n
    print(f"\nplanted bug {bug}: {total['discrepancies']} discrepancies in {total['entries']} entries "
          f"({total['roots']} root, {total['propagated']} propagated; "
          f"{total['unverifiable']} unverifiable); classes "
          + ", ".join(f"{c}={n}" for c, n in sorted(classes.items()) if n))


def test_same_sectors_without_a_bug_verify_clean(millaudit, tmp_path):
    """The control: the largest sector set used above (4_4_1_0 and everything it depends on, which
    includes the 4_5_0_0 set) verifies with zero discrepancies when no bug is planted."""
    out = tmp_path / "clean"
    out.mkdir()
    millaudit.run("solve", "--variant", "std", "--sector", "4_4_1_0", "--with-deps", "--out", out,
                  "--quiet", check=0)
    _, doc = verify_json(millaudit, out, check=0)
    assert doc["total"]["discrepancies"] == 0
    assert doc["total"]["verified"] == doc["total"]["entries"]
