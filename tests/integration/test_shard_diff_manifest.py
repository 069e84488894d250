"""diff A B --shard I/N, manifest create DIR --shard I/N and manifest merge (docs/distributed.md): the
shards' outputs together equal the unsharded command's, field by field and byte for byte; shard I is
the partition of verify --plan; a difference or a changed file in one shard is found after the
merge; bad --shard values and refused merges exit with their codes and one line.

The database is the reference producer's whole 4-stone standard game; B is a copy with one wrong
depth planted and one sector removed."""
import json
import shutil
import subprocess

import pytest

from conftest import validate_json
from merge_util import INJECT

N = 3
BAD_SHARDS = ["3/2", "0/0", "x", "1/", "/2", "-1/2", "2/2", " 1/2", "+1/2", "1/2/3", "1/1000001"]


@pytest.fixture(scope="module")
def game4(millaudit, tmp_path_factory):
    db = tmp_path_factory.mktemp("g4") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "4", "--out", db, "--quiet", check=0)
    return db


@pytest.fixture(scope="module")
def plan(millaudit, game4):
    doc = json.loads(millaudit.run("verify", game4, "--plan", N, "--json", check=0).stdout)
    return [set(s["sector_names"]) for s in doc["plan"]]


def inject(millaudit, path, entry=100):
    subprocess.run(["python3", str(INJECT), "--reseal", str(path), "--entry", str(entry), "--depth-delta", "+1"], check=True,
                   capture_output=True, env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def game4_b(millaudit, game4, tmp_path_factory):
    """A copy of game4 with one wrong depth in std_3_3_0_0 and without std_2_2_1_1."""
    b = tmp_path_factory.mktemp("g4b") / "db"
    shutil.copytree(game4, b)
    inject(millaudit, b / "std_3_3_0_0.mdb")
    (b / "std_2_2_1_1.mdb").unlink()
    return b


def without_timing(sector):
    return {k: v for k, v in sector.items() if k != "seconds"}


# ---- diff --shard ----

def test_diff_shards_together_are_the_unsharded_diff(millaudit, game4, game4_b, plan):
    whole = json.loads(millaudit.run("diff", game4, game4_b, "--json", "--threads", "1", "--full", check=1).stdout)
    shards, codes = [], []
    for i in range(N):
        proc = millaudit.run("diff", game4, game4_b, "--json", "--threads", "1", "--full", "--shard", f"{i}/{N}")
        doc = json.loads(proc.stdout)
        validate_json("diff", doc)
        assert doc["options"]["shard"] == {"index": i, "count": N}
        # shard i compares exactly the sectors verify A --shard i/N checks
        assert {s["sector"] for s in doc["sectors"]} == plan[i]
        shards.append(doc)
        codes.append(proc.returncode)
    assert "shard" not in whole["options"]
    merged = sorted((without_timing(s) for d in shards for s in d["sectors"]), key=lambda s: s["sector"])
    assert merged == sorted((without_timing(s) for s in whole["sectors"]), key=lambda s: s["sector"])
    for key, value in whole["totals"].items():
        if key == "differences":
            for cls, n in value.items():
                assert sum(d["totals"]["differences"][cls] for d in shards) == n, cls
        elif key == "values_agree":
            assert all(d["totals"]["values_agree"] for d in shards) == value
        else:
            assert sum(d["totals"][key] for d in shards) == value, key
    # the planted depth and the removed sector are each found by exactly one shard
    depth = [i for i, d in enumerate(shards) for s in d["sectors"] if s["status"] == "differs"]
    only_a = [i for i, d in enumerate(shards) for s in d["sectors"] if s["status"] == "only-in-A"]
    assert len(depth) == 1 and len(only_a) == 1
    assert whole["totals"]["differences"]["depth"] == 1
    assert sorted(codes) == sorted(1 if i in depth + only_a else 0 for i in range(N))


def test_diff_shard_text_names_the_shard(millaudit, game4, game4_b, plan):
    for i in range(N):
        out = millaudit.run("diff", game4, game4_b, "--quiet", "--shard", f"{i}/{N}").stdout
        # after the lines naming A and B (issue 45), before any pair
        lines = out.splitlines()
        assert lines[0].startswith("A  ") and lines[1].startswith("B  "), out
        assert lines[2] == f"shard {i}/{N}: {len(plan[i])} of {sum(map(len, plan))} sector pairs"


@pytest.mark.parametrize("shard", BAD_SHARDS)
def test_diff_bad_shard_is_a_usage_error(millaudit, game4, tmp_path, shard):
    proc = millaudit.run("diff", game4, game4, "--shard", shard, "--audit", tmp_path / "a.sqlite")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 2 and "--shard" in proc.stderr.splitlines()[0] and proc.stdout == ""
    assert proc.stderr.splitlines()[1] == "try 'millaudit diff --help'"
    assert not (tmp_path / "a.sqlite").exists()


# ---- manifest create --shard, manifest merge ----

@pytest.fixture
def tree(game4, tmp_path):
    """A copy of game4 with files that are no sector's."""
    d = tmp_path / "db"
    shutil.copytree(game4, d)
    (d / "README").write_text("the 4-stone game\n")
    (d / "sub").mkdir()
    (d / "sub" / "notes.txt").write_text("notes\n")
    return d


def lines_of(path):
    return [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]


def test_shard_manifests_merge_into_the_whole_manifest(millaudit, tree, plan, tmp_path):
    files = []
    for i in range(N):
        millaudit.run("manifest", "create", tree, "--shard", f"{i}/{N}", "--quiet", check=0)
        m = tree / f"MANIFEST.shard-{i}-of-{N}.sha256"
        assert m.read_text().splitlines()[0] == f"# millaudit manifest shard {i}/{N}"
        names = [ln.split("  ", 1)[1] for ln in lines_of(m)]
        assert names == sorted(names)
        sectors = {n[:-4] for n in names if n.endswith(".mdb")}
        assert sectors == plan[i]  # the files of verify DIR --shard i/N
        assert ("README" in names) == (i == 0) and ("sub/notes.txt" in names) == (i == 0)
        # plain sha256sum -c checks a shard manifest by itself
        subprocess.run(["sha256sum", "-c", "--quiet", m.name], cwd=tree, check=True)
        files.append(set(names))
    assert sum(map(len, files)) == len(set().union(*files))  # each file in one shard
    shards = sorted(tree.glob(f"MANIFEST.shard-*-of-{N}.sha256"))
    proc = millaudit.run("manifest", "merge", tmp_path / "merged.sha256", *shards, check=0)
    assert f"{len(set().union(*files))} files from {N} manifests ({N} of {N} shards)" in proc.stdout
    whole = millaudit.run("manifest", "create", tree, "--out", "-", "--quiet", check=0).stdout
    # byte for byte the manifest of the whole directory, which lists no shard manifest
    assert (tmp_path / "merged.sha256").read_text() == whole
    assert "MANIFEST.shard" not in whole
    assert millaudit.run("manifest", "merge", "-", *shards, check=0).stdout == whole


def test_a_changed_file_in_one_shard_is_found_after_the_merge(millaudit, tree, tmp_path):
    shards = []
    for i in range(N):
        out = tmp_path / f"s{i}.sha256"
        millaudit.run("manifest", "create", tree, "--shard", f"{i}/{N}", "--out", out, "--quiet", check=0)
        shards.append(out)
    merged = tmp_path / "merged.sha256"
    millaudit.run("manifest", "merge", merged, *shards, check=0)
    millaudit.run("manifest", "check", merged, "--dir", tree, check=0)
    inject(millaudit, tree / "std_3_3_0_0.mdb")
    proc = millaudit.run("manifest", "check", merged, "--dir", tree, "--quiet", check=1)
    assert proc.stdout.splitlines() == ["std_3_3_0_0.mdb: FAILED"]
    # a shard manifest made after the change disagrees with the old ones: refused, naming the file
    owner = next(s for s in shards if "std_3_3_0_0.mdb" in s.read_text())
    k = shards.index(owner)
    again = tmp_path / "again.sha256"
    millaudit.run("manifest", "create", tree, "--shard", f"{k}/{N}", "--out", again, "--quiet", check=0)
    proc = millaudit.run("manifest", "merge", tmp_path / "m2.sha256", owner, again)
    # the same shard index twice is refused before the digests are compared
    assert proc.returncode == 3 and "given twice" in proc.stderr
    whole_new = tmp_path / "whole.sha256"
    millaudit.run("manifest", "create", tree, "--out", whole_new, "--quiet", check=0)
    proc = millaudit.run("manifest", "merge", tmp_path / "m2.sha256", owner, whole_new, check=3)
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("millaudit manifest: std_3_3_0_0.mdb: different digests:")
    assert str(owner) in proc.stderr and str(whole_new) in proc.stderr
    assert not (tmp_path / "m2.sha256").exists()


def test_manifest_merge_refusals(millaudit, tree, tmp_path):
    s = []
    for i in range(N):
        out = tmp_path / f"s{i}.sha256"
        millaudit.run("manifest", "create", tree, "--shard", f"{i}/{N}", "--out", out, "--quiet", check=0)
        s.append(out)
    other_n = tmp_path / "other.sha256"
    millaudit.run("manifest", "create", tree, "--shard", f"0/{N + 1}", "--out", other_n, "--quiet", check=0)
    malformed = tmp_path / "malformed.sha256"
    malformed.write_text(s[1].read_text() + "this is not a manifest line\n")
    out = tmp_path / "out.sha256"
    cases = [
        ((s[0], s[1]), "1 of 3 shards missing (shard 2 of 3)"),
        ((s[0], s[0], s[1], s[2]), "shard 0/3 given twice"),
        ((s[0], s[1], s[2], other_n), "manifests of different partitions"),
        ((s[0], malformed, s[2]), "is not a manifest line"),
        ((s[0], s[1], tmp_path / "absent.sha256"), "absent.sha256"),
    ]
    for inputs, reason in cases:
        proc = millaudit.run("manifest", "merge", out, *inputs)
        assert proc.returncode == 3, (inputs, proc.stderr)
        assert proc.stderr.count("\n") == 1 and reason in proc.stderr, proc.stderr
        assert not out.exists()
    # the output among the inputs
    proc = millaudit.run("manifest", "merge", s[0], s[0], s[1], s[2], check=2)
    assert "is a shard manifest" in proc.stderr
    # --allow-partial writes the shards present and says which is missing
    proc = millaudit.run("manifest", "merge", out, s[0], s[2], "--allow-partial", check=0)
    assert "shard 1/3 missing" in proc.stderr
    assert lines_of(out) == sorted(lines_of(s[0]) + lines_of(s[2]), key=lambda ln: ln.split("  ", 1)[1])
    # an output that cannot be written: 4
    proc = millaudit.run("manifest", "merge", tmp_path / "no" / "dir" / "m.sha256", *s, check=4)
    assert proc.stderr.count("\n") == 1


def test_check_of_a_shard_manifest_reports_extras_of_its_shard_only(millaudit, tree):
    for i in range(N):
        millaudit.run("manifest", "create", tree, "--shard", f"{i}/{N}", "--quiet", check=0)
    for i in range(N):
        m = tree / f"MANIFEST.shard-{i}-of-{N}.sha256"
        proc = millaudit.run("manifest", "check", m, "--quiet", check=0)
        assert proc.stdout == ""
    (tree / "extra.txt").write_text("not listed\n")  # not a sector file: shard 0's
    proc = millaudit.run("manifest", "check", tree / f"MANIFEST.shard-0-of-{N}.sha256", "--quiet", check=1)
    assert "extra.txt" in proc.stdout
    millaudit.run("manifest", "check", tree / f"MANIFEST.shard-1-of-{N}.sha256", "--quiet", check=0)


@pytest.mark.parametrize("args", [["merge"], ["merge", "out.sha256"], ["merge", "--bogus", "o", "s"]])
def test_manifest_merge_usage(millaudit, tmp_path, args):
    proc = millaudit.run("manifest", *args, cwd=tmp_path)
    # one line saying what is wrong, one hint line (common/options.h)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 2
    assert proc.stderr.splitlines()[1] == "try 'millaudit manifest merge --help'"


@pytest.mark.parametrize("shard", BAD_SHARDS)
def test_manifest_create_bad_shard_is_a_usage_error(millaudit, tree, shard):
    proc = millaudit.run("manifest", "create", tree, "--shard", shard)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 2 and "--shard" in proc.stderr.splitlines()[0]
    assert proc.stderr.splitlines()[1] == "try 'millaudit manifest create --help'"
    assert not list(tree.glob("MANIFEST*"))
