"""The open format's body digest (docs/format.md §5.1, bytes 80..111): the checker compares the
SHA-256 of each sector's body with the header's, independently of the producer that wrote it, and
reports a file whose body is not what its producer wrote even when every value in it verifies."""
import hashlib
import json
import shutil

import pytest


@pytest.fixture(scope="module")
def game3(millaudit, tmp_path_factory):
    out = tmp_path_factory.mktemp("g3") / "db"
    millaudit.run("solve", "--variant", "std", "--stones", "3", "--out", out, "--quiet", check=0)
    return out


def set_digest(path, digest):
    data = bytearray(path.read_bytes())
    data[80:112] = digest
    path.write_bytes(bytes(data))


def body_sha(path):
    return hashlib.sha256(path.read_bytes()[128:]).digest()


def sector(doc, name):
    return next(s for s in doc["sectors"] if s["sector"] == name)


def test_body_digest_match_mismatch_and_absent(millaudit, game3, tmp_path):
    db = shutil.copytree(game3, tmp_path / "db")
    for p in db.glob("*.mdb"):
        set_digest(p, body_sha(p))  # as a producer writing §5.1 digests would
    doc = json.loads(millaudit.run("verify", db, "--json", check=0).stdout)
    assert all(s["body_digest"] == "match" for s in doc["sectors"])
    assert doc["totals"]["body_digest_mismatches"] == 0

    # a digest that no longer fits the body: every value would still verify, but the file is not
    # what its producer wrote: damaged (docs/download.md), not checked, never a discrepancy
    set_digest(db / "std_2_3_1_0.mdb", hashlib.sha256(b"something else").digest())
    proc = millaudit.run("verify", db, "--json", check=3)
    doc = json.loads(proc.stdout)
    s = sector(doc, "std_2_3_1_0")
    assert s["status"] == "damaged" and s["discrepancies"] == 0 and s["verified"] == 0
    assert s["message"] == "damaged, not checked: body differs from the SHA-256 its header records (offset 80): " \
                           "not the bytes its producer wrote"
    assert doc["verdict"] == "damaged" and doc["totals"]["body_digest_mismatches"] == 1
    assert doc["totals"]["discrepancies"] == 0
    assert [d["kind"] for d in doc["integrity"]["damaged"]] == ["body-digest-mismatch"]
    assert doc["next"]["refetch"] == ["std_2_3_1_0.mdb"]
    assert any("std_2_3_1_0.mdb: damaged: body differs" in e for e in doc["errors"])

    # no digest recorded (all zero): nothing to compare
    set_digest(db / "std_2_3_1_0.mdb", bytes(32))
    doc = json.loads(millaudit.run("verify", db, "--json", check=0).stdout)
    assert sector(doc, "std_2_3_1_0")["body_digest"] == "none"


def test_reserved_bytes_after_the_digest_must_be_zero(millaudit, game3, tmp_path):
    db = shutil.copytree(game3, tmp_path / "db")
    data = bytearray((db / "std_3_3_0_0.mdb").read_bytes())
    data[112] = 1
    (db / "std_3_3_0_0.mdb").write_bytes(bytes(data))
    proc = millaudit.run("verify", db, check=3)
    assert "offset 112: reserved byte is 0x01, must be 0" in proc.stderr
