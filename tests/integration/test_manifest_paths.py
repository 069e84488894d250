"""Manifest runs and paths (issue 22, item 7): a manifest run records the absolute database root,
so `runs list --root` finds it whatever directory it was created from; a manifest line
`sub/../a.mdb`, which sha256sum -c reads as a.mdb, is checked as a.mdb; one that leaves the
directory (`sub/../../a.mdb`) is still refused."""
import json
import shutil
import subprocess


def test_manifest_run_records_the_absolute_root(millaudit, tmp_path):
    d = tmp_path / "db"
    d.mkdir()
    (d / "a.mdb").write_bytes(b"abc" * 100)
    store = tmp_path / "a.sqlite"
    millaudit.run("manifest", "create", ".", "--audit", store, "--out", "-", "--quiet", cwd=d, check=0)
    doc = json.loads(millaudit.run("runs", "list", "--audit", store, "--root", d, "--json", check=0).stdout)
    assert [r["kind"] for r in doc["runs"]] == ["manifest"]
    assert doc["runs"][0]["database_root"] == str(d)


def test_dot_dot_inside_the_directory_is_read_as_sha256sum_reads_it(millaudit, tmp_path):
    d = tmp_path / "db"
    (d / "sub").mkdir(parents=True)
    (d / "a.mdb").write_bytes(b"xyz" * 1000)
    line = subprocess.run(["sha256sum", "a.mdb"], cwd=d, capture_output=True, text=True, check=True).stdout
    (d / "M").write_text(line.replace("  a.mdb", "  sub/../a.mdb"))
    assert subprocess.run(["sha256sum", "-c", "M"], cwd=d, capture_output=True).returncode == 0
    proc = millaudit.run("manifest", "check", d / "M", check=0)
    assert "sub/../a.mdb: OK" in proc.stdout
    (d / "a.mdb").write_bytes(b"xyz" * 999)       # and a change is still found
    millaudit.run("manifest", "check", d / "M", check=1)
    (d / "M").write_text(line.replace("  a.mdb", "  sub/../../a.mdb"))
    proc = millaudit.run("manifest", "check", d / "M", check=3)
    assert "climbs out of the directory" in proc.stderr
