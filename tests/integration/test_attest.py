"""Signed verification attestations (`attest create|verify`, `runs import --pub`, docs/attestations.md).

The envelope is checked independently of millaudit with python's `cryptography` (Debian
python3-cryptography): the DSSE pre-authentication encoding written out here from the spec, the
Ed25519 signature, the keyid, the in-toto statement type, and subjects equal to what `sha256sum`
prints for the database files. Then every refusal: a changed database file, a missing sector file,
an unattested sector file, a changed payload, a changed signature, another key (exit 1), and
malformed envelopes (exit 3); a statement signed by python, not millaudit, verifies (any DSSE tool
can make or check one). The rules fingerprints of std, lask and mora are pinned and equal across
runs and builds.
"""
import base64
import hashlib
import json
import shutil
import socket
import sqlite3
import subprocess

import pytest

from conftest import need_module, validate_json

cryptography = need_module("cryptography", "python3-cryptography (scripts/install-deps --test)")
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey  # noqa: E402
from cryptography.exceptions import InvalidSignature  # noqa: E402


PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:uuid:825d8e1c-12eb-4401-bf9d-454d46ff51d2"
# SHA-256 of the rules descriptions (verifier/check/rules_desc.h); also pinned in tests/unit/test_rules_desc.c
FINGERPRINTS = {
    "std": "39608b5a816f7f0e4617a6b39099dc3bff34540b250bb08b9b3671615196f691",
    "lask": "0c001c209059aaba902601f824ef307dab429fc4d2ce1b70d1f34910ade7793d",
    "mora": "ec021fd86a3df299f05b2317e4cf87bf50708da6db2ef6000d66963ef501cd8e",
}


def pae(payload_type: bytes, body: bytes) -> bytes:
    """DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths as ASCII decimal."""
    return b"DSSEv1 %d %s %d %s" % (len(payload_type), payload_type, len(body), body)


def keypair(where, name):
    """An Ed25519 key pair made as the docs tell users to: openssl genpkey, openssl pkey -pubout."""
    sk, pk = where / f"{name}.pem", where / f"{name}.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(sk)], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(sk), "-pubout", "-out", str(pk)], check=True, capture_output=True)
    return sk, pk


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    """A solved and verified std 3-stone game, a key pair, another public key, one attestation."""
    base = tmp_path_factory.mktemp("attest")
    db = base / "db"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", db, "--quiet", check=0)
    store = base / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    sk, pk = keypair(base, "team")
    _, other = keypair(base, "other")
    att = base / "att.json"
    proc = millaudit.run("attest", "create", "--audit", store, "--key", sk, "--out", att,
                         "--identity", "Team A <a@example.org>", check=0)
    assert "attested run 1 (scope database, verdict verified)" in proc.stdout
    return {"base": base, "db": db, "store": store, "sk": sk, "pk": pk, "other": other, "att": att}


def envelope(path):
    return json.loads(path.read_text())


def statement(env):
    return json.loads(base64.b64decode(env["payload"]))


def test_envelope_checked_independently(world):
    env = envelope(world["att"])
    assert set(env) == {"payloadType", "payload", "signatures"}
    assert env["payloadType"] == PAYLOAD_TYPE
    body = base64.b64decode(env["payload"], validate=True)
    [sig] = env["signatures"]
    public = serialization.load_pem_public_key(world["pk"].read_bytes())
    assert isinstance(public, Ed25519PublicKey)
    public.verify(base64.b64decode(sig["sig"], validate=True), pae(PAYLOAD_TYPE.encode(), body))
    spki = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert sig["keyid"] == hashlib.sha256(spki).hexdigest()
    # a signature over the body alone (no PAE) is not what was signed
    with pytest.raises(InvalidSignature):
        public.verify(base64.b64decode(sig["sig"]), body)
    st = json.loads(body)
    assert st["_type"] == STATEMENT_TYPE
    assert st["predicateType"] == PREDICATE_TYPE


def test_subjects_are_what_sha256sum_prints(world):
    st = statement(envelope(world["att"]))
    files = sorted(p.name for p in world["db"].iterdir())
    out = subprocess.run(["sha256sum", *files], cwd=world["db"], check=True, capture_output=True, text=True).stdout
    expected = {line.split()[1]: line.split()[0] for line in out.splitlines()}
    assert {s["name"]: s["digest"]["sha256"] for s in st["subject"]} == expected
    for s in st["subject"]:
        assert s["annotations"]["size"] == (world["db"] / s["name"]).stat().st_size
    # and they are the digests the run recorded, not a re-hash: the store says the same
    with sqlite3.connect(world["store"]) as c:
        rows = dict(c.execute("SELECT path, sha256 FROM manifest_files WHERE run_id = 1"))
    assert rows == expected


def test_predicate_says_what_the_run_established(millaudit, world, tmp_path):
    st = statement(envelope(world["att"]))
    p = st["predicate"]
    with sqlite3.connect(world["store"]) as c:
        started, ended, version, rev, options = c.execute(
            "SELECT started_at, ended_at, tool_version, git_revision, options FROM runs WHERE id = 1").fetchone()
        digests = dict(c.execute("SELECT sector, derived_sha256 FROM sector_digests WHERE run_id = 1"))
    assert p["verifier"] == {"name": "millaudit", "version": version, "git_revision": rev}
    assert p["signer"]["identity"] == "Team A <a@example.org>"
    assert p["rules"]["variant"] == "std" and p["rules"]["fingerprint"] == FINGERPRINTS["std"]
    assert hashlib.sha256(p["rules"]["description"].encode()).hexdigest() == FINGERPRINTS["std"]
    # names relative to the database only: where it lay and who ran it are not published by default
    assert p["database"] == {"root": None, "format": "open", "index_scheme": "sym16-colex",
                             "index_scheme_version": 1, "format_version": 1}
    assert p["run"]["host"] is None and p["run"]["command_line"] is None
    run = p["run"]
    assert (run["id"], run["kind"], run["verdict"]) == (1, "verify", "verified")
    assert (run["started_at"], run["ended_at"]) == (started, ended)
    assert run["options"] == json.loads(options)
    assert p["totals"]["entries"] == p["totals"]["verified"] == 264399 and p["totals"]["discrepancies"] == 0
    assert p["scope"] == "database" and p["inputs"] == []
    assert {s["sector"]: s["derived_sha256"] for s in p["sectors"]} == digests
    # the manifest digest is the SHA-256 of the manifest `manifest create` writes for these files
    man = tmp_path / "MANIFEST.sha256"
    millaudit.run("manifest", "create", world["db"], "--out", man, check=0)
    assert p["manifest"]["sha256"] == hashlib.sha256(man.read_bytes()).hexdigest()
    assert p["manifest"]["chunk_size"] == 16 * 1024 * 1024 and p["manifest"]["files"] == 7


def test_verify_prints_who_what_when_and_the_verdict(millaudit, world):
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", world["db"], check=0)
    out = proc.stdout
    assert "signature:   good" in out
    assert "Team A <a@example.org>" in out
    assert "verdict:     verified" in out
    assert FINGERPRINTS["std"] in out and "equals this build's" in out
    assert "7 of 7 attested files" in out
    doc = json.loads(millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", world["db"],
                                   "--json", check=0).stdout)
    validate_json("attest-verify", doc)
    assert doc["result"] == "verified" and doc["signature"]["valid"] and doc["db"]["files_ok"] == 7
    names = [s["sector"] for s in statement(envelope(world["att"]))["predicate"]["sectors"]]
    assert doc["scope"] == {"kind": "database", "sectors": names, "inputs": []} and len(names) == 7
    assert doc["statement"]["verdict"] == "verified"
    # without --db only the signature and the statement are checked
    doc = json.loads(millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--json", check=0).stdout)
    assert doc["db"] is None


def copy_db(world, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(world["db"], db)
    return db


def test_a_changed_database_file_is_refused(millaudit, world, tmp_path):
    db = copy_db(world, tmp_path)
    f = db / "std_2_2_1_1.mdb"
    data = bytearray(f.read_bytes())
    attested = hashlib.sha256(bytes(data)).hexdigest()
    data[-1] ^= 0x01
    f.write_bytes(bytes(data))
    now = hashlib.sha256(bytes(data)).hexdigest()
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", db, check=1)
    # both digests, so a user can tell which bytes were attested
    assert "std_2_2_1_1.mdb: changed" in proc.stderr
    assert f"\nstd_2_2_1_1.mdb: changed (attested {attested}, now {now})\n" in proc.stdout
    doc = json.loads(millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", db, "--json",
                                   check=1).stdout)
    validate_json("attest-verify", doc)
    [issue] = doc["db"]["issues"]
    assert issue["path"] == "std_2_2_1_1.mdb" and issue["problem"] == "changed"
    assert (issue["expected"], issue["actual"]) == (attested, now)


def test_a_missing_sector_file_is_refused(millaudit, world, tmp_path):
    db = copy_db(world, tmp_path)
    (db / "std_1_1_2_2.mdb").unlink()
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", db, check=1)
    assert "std_1_1_2_2.mdb: missing" in proc.stderr


def test_a_sector_file_left_out_of_the_attestation_is_refused(millaudit, world, tmp_path):
    db = copy_db(world, tmp_path)
    (db / "std_4_3_0_0.sec2").write_bytes(b"not attested")
    (db / "README").write_text("not a sector file: allowed\n")
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], "--db", db, check=1)
    assert "std_4_3_0_0.sec2: not attested" in proc.stderr
    assert "README" not in proc.stderr


def write_env(path, env):
    path.write_text(json.dumps(env))
    return path


def test_a_changed_payload_is_refused(millaudit, world, tmp_path):
    env = envelope(world["att"])
    st = statement(env)
    st["predicate"]["totals"]["entries"] += 1
    env["payload"] = base64.b64encode(json.dumps(st).encode()).decode()
    proc = millaudit.run("attest", "verify", write_env(tmp_path / "e.json", env), "--pub", world["pk"], check=1)
    assert "bad signature" in proc.stderr
    assert "signature:   BAD" in proc.stdout
    assert "verdict" not in proc.stdout  # nothing of an unsigned payload is shown


def test_a_changed_signature_is_refused(millaudit, world, tmp_path):
    env = envelope(world["att"])
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[7] ^= 0x40
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    millaudit.run("attest", "verify", write_env(tmp_path / "e.json", env), "--pub", world["pk"], check=1)


def test_another_key_is_refused(millaudit, world):
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["other"], "--json", check=1)
    doc = json.loads(proc.stdout)
    validate_json("attest-verify", doc)
    assert doc["result"] == "bad-signature" and doc["statement"] is None


def sign_with_python(world, statement_bytes, payload_type=PAYLOAD_TYPE):
    """An envelope made without millaudit: python's Ed25519 over the spec's PAE."""
    key = serialization.load_pem_private_key(world["sk"].read_bytes(), password=None)
    assert isinstance(key, Ed25519PrivateKey)
    sig = key.sign(pae(payload_type.encode(), statement_bytes))
    return {"payloadType": payload_type, "payload": base64.urlsafe_b64encode(statement_bytes).decode().rstrip("="),
            "signatures": [{"keyid": "", "sig": base64.b64encode(sig).decode()}]}


def test_an_envelope_made_by_another_dsse_tool_verifies(millaudit, world, tmp_path):
    st = statement(envelope(world["att"]))
    env = sign_with_python(world, json.dumps(st, indent=1).encode())
    proc = millaudit.run("attest", "verify", write_env(tmp_path / "py.json", env), "--pub", world["pk"], "--db",
                         world["db"], check=0)
    assert "signature:   good" in proc.stdout


def test_another_keyid_for_the_same_key_verifies_and_a_wrong_signature_under_it_fails(millaudit, world, tmp_path):
    """securesystemslib names an Ed25519 key by another keyid than ours; DSSE's keyid is an unsigned hint, so
    the signature is tried whatever it says."""
    env = envelope(world["att"])
    env["signatures"][0]["keyid"] = "f" * 64
    proc = millaudit.run("attest", "verify", write_env(tmp_path / "ssl.json", env), "--pub", world["pk"], "--db",
                         world["db"], check=0)
    assert "signature:   good" in proc.stdout
    sig = bytearray(base64.b64decode(env["signatures"][0]["sig"]))
    sig[10] ^= 0x80
    env["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    proc = millaudit.run("attest", "verify", write_env(tmp_path / "bad.json", env), "--pub", world["pk"], check=1)
    assert "signature:   BAD: none of its 1 signature verifies with key" in proc.stdout
    assert "(all tried, whatever their keyid)" in proc.stdout


def test_the_statement_publishes_no_absolute_path_or_host_unless_asked(millaudit, world, tmp_path):
    """A published attestation names files relative to the database; the absolute path (which may
    name a user), the host and the command line only with --include-host."""
    payload = base64.b64decode(envelope(world["att"])["payload"]).decode()
    assert str(world["base"]) not in payload and "/tmp" not in payload and '"/' not in payload
    assert socket.gethostname() not in payload
    att = tmp_path / "host.json"
    millaudit.run("attest", "create", "--audit", world["store"], "--key", world["sk"], "--out", att, "--include-host",
                  check=0)
    p = statement(envelope(att))["predicate"]
    assert p["database"]["root"] == str(world["db"])
    assert p["run"]["host"] == socket.gethostname()
    assert p["run"]["command_line"].startswith("millaudit verify ")
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], check=0)
    assert f"database:    {world['db']}, open" in proc.stdout and f" on {socket.gethostname()}, " in proc.stdout
    proc = millaudit.run("attest", "verify", world["att"], "--pub", world["pk"], check=0)
    assert "database:    open, index sym16-colex" in proc.stdout and " on " not in proc.stdout


MALFORMED = {
    "empty": b"",
    "not json": b"{payloadType",
    "array": b"[]",
    "no payload": b'{"payloadType": "application/vnd.in-toto+json", "signatures": [{"sig": "AA=="}]}',
    "payload not base64": b'{"payloadType": "application/vnd.in-toto+json", "payload": "e30*",'
                          b' "signatures": [{"sig": "AA=="}]}',
    "no signatures": b'{"payloadType": "application/vnd.in-toto+json", "payload": "e30=", "signatures": []}',
    "signature not a string": b'{"payloadType": "x", "payload": "e30=", "signatures": [{"sig": 5}]}',
    "binary": bytes(range(256)),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_envelopes_are_unusable(millaudit_asan, world, tmp_path, case):
    path = tmp_path / "bad.json"
    path.write_bytes(MALFORMED[case])
    proc = millaudit_asan.run("attest", "verify", path, "--pub", world["pk"], "--db", world["db"], check=3)
    [line] = proc.stderr.splitlines()
    assert line.startswith(f"millaudit attest verify: {path}")


@pytest.mark.parametrize("what", ["payloadType", "_type", "predicateType", "subject name", "subject digest"])
def test_validly_signed_but_unusable_statements_are_exit_3(millaudit_asan, world, tmp_path, what):
    st = statement(envelope(world["att"]))
    payload_type = PAYLOAD_TYPE
    if what == "payloadType":
        payload_type = "application/json"
    elif what == "_type":
        st["_type"] = "https://in-toto.io/Statement/v0.1"
    elif what == "predicateType":
        st["predicateType"] = "https://slsa.dev/provenance/v1"
    elif what == "subject name":
        st["subject"][0]["name"] = "../../etc/passwd"
    else:
        st["subject"][0]["digest"]["sha256"] = "00"
    env = sign_with_python(world, json.dumps(st).encode(), payload_type)
    proc = millaudit_asan.run("attest", "verify", write_env(tmp_path / "e.json", env), "--pub", world["pk"], check=3)
    assert len(proc.stderr.splitlines()) == 1


def test_create_refusals(millaudit, world, tmp_path):
    a = ("attest", "create", "--audit", world["store"])
    millaudit.run(*a, "--key", world["sk"], check=2)  # no --out
    millaudit.run("attest", "frobnicate", check=2)
    assert "bad.json" not in str(list(tmp_path.iterdir()))
    proc = millaudit.run(*a, "--key", world["pk"], "--out", tmp_path / "x.json", check=3)  # a public key
    assert "not a PEM private key" in proc.stderr
    millaudit.run(*a, "--key", tmp_path / "none.pem", "--out", tmp_path / "x.json", check=3)
    millaudit.run(*a, "--run", 9, "--key", world["sk"], "--out", tmp_path / "x.json", check=3)
    millaudit.run(*a, "--key", world["sk"], "--out", tmp_path / "no" / "x.json", check=4)
    millaudit.run("attest", "create", "--audit", tmp_path / "none.sqlite", "--key", world["sk"], "--out",
                  tmp_path / "x.json", check=3)
    assert not (tmp_path / "x.json").exists()
    # a manifest run is no verification
    store = tmp_path / "m.sqlite"
    millaudit.run("manifest", "create", world["db"], "--out", tmp_path / "M.sha256", "--audit", store, check=0)
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", tmp_path / "x.json",
                         check=3)
    assert "only verify runs are attested" in proc.stderr


def test_a_key_of_another_algorithm_is_refused(millaudit, world, tmp_path):
    """An EC P-256 key pair (a PEM key OpenSSL reads, but not Ed25519) neither signs nor checks an
    attestation: the signature scheme is part of what a verifier relies on."""
    sk, pk = tmp_path / "ec.pem", tmp_path / "ec.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(sk)],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(sk), "-pubout", "-out", str(pk)], check=True, capture_output=True)
    out = tmp_path / "x.json"
    proc = millaudit.run("attest", "create", "--audit", world["store"], "--key", sk, "--out", out, check=3)
    assert proc.stderr.splitlines() == [f"millaudit attest create: {sk}: not an Ed25519 key "
                                        "(make one with `openssl genpkey -algorithm ed25519`)"]
    assert not out.exists()
    proc = millaudit.run("attest", "verify", world["att"], "--pub", pk, check=3)
    assert f"{pk}: not an Ed25519 key" in proc.stderr


def test_an_unverified_run_needs_allow_unverified(millaudit, world, tmp_path):
    db = copy_db(world, tmp_path)
    from conftest import ROOT
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(db / "std_2_2_1_1.mdb"), "--entry", "5",
                    "--depth-delta", "+1", "--reseal"], check=True, capture_output=True,
                   env={"MILLAUDIT_BIN": str(millaudit.path), "PATH": "/usr/bin:/bin"})
    store = tmp_path / "b.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=1)
    out = tmp_path / "att.json"
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", out, check=1)
    assert "not verified" in proc.stderr and "--allow-unverified" in proc.stderr
    assert not out.exists()
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", out, "--allow-unverified",
                  check=0)
    assert statement(envelope(out))["predicate"]["run"]["verdict"] == "discrepancies"
    # the signature is good, the verdict is what it is, and the exit status says it (issue 41)
    proc = millaudit.run("attest", "verify", out, "--pub", world["pk"], check=1)
    assert "verdict:     discrepancies" in proc.stdout


def test_out_is_replaced_atomically(millaudit, world, tmp_path):
    out = tmp_path / "att.json"
    out.write_text("old")
    millaudit.run("attest", "create", "--audit", world["store"], "--key", world["sk"], "--out", out, check=0)
    assert envelope(out)["payloadType"] == PAYLOAD_TYPE
    assert [p.name for p in tmp_path.iterdir()] == ["att.json"]  # no temporary file left


def test_import_records_the_signers_run(millaudit, world, tmp_path):
    store = tmp_path / "b.sqlite"
    proc = millaudit.run("runs", "import", "--audit", store, world["att"], "--pub", world["pk"], check=0)
    assert "imported attested run 1" in proc.stdout
    text = millaudit.run("report", "--audit", store, check=0).stdout
    assert "attested by        Team A <a@example.org>" in text
    doc = json.loads(millaudit.run("report", "--audit", store, "--format", "json", check=0).stdout)
    validate_json("report", doc)
    at = doc["run"]["imported_from"]["attested_by"]
    assert at["identity"] == "Team A <a@example.org>"
    assert at["envelope_sha256"] == hashlib.sha256(world["att"].read_bytes()).hexdigest()
    # the imported run compares equal, bytes and values, with the original
    millaudit.run("runs", "compare", f"{world['store']}:1", f"{store}:1", check=0)
    # a bad signature imports nothing and creates no store
    other = tmp_path / "c.sqlite"
    proc = millaudit.run("runs", "import", "--audit", other, world["att"], "--pub", world["other"], check=1)
    assert "bad signature" in proc.stderr and not other.exists()
    millaudit.run("runs", "list", "--audit", store, "--pub", world["pk"], check=2)
    # an attestation given without --pub is not a run export; the message says what to do
    proc = millaudit.run("runs", "import", "--audit", other, world["att"], check=3)
    assert "give --pub" in proc.stderr and not other.exists()


def test_rules_fingerprints_differ_by_variant_and_are_stable(millaudit, millaudit_asan, world, tmp_path):
    """std, lask and mora each have their pinned fingerprint, the same from two runs and two builds."""
    sk = world["sk"]
    seen = {}
    for variant in ("std", "lask", "mora"):
        db = tmp_path / variant
        millaudit.run("solve", "--variant", variant, "--stones", 3, "--out", db, "--quiet", check=0)
        store = tmp_path / f"{variant}.sqlite"
        for build in (millaudit, millaudit_asan):
            build.run("verify", db, "--audit", store, "--quiet", check=0)
            out = tmp_path / f"{variant}.json"
            build.run("attest", "create", "--audit", store, "--key", sk, "--out", out, check=0)
            fp = statement(envelope(out))["predicate"]["rules"]["fingerprint"]
            seen.setdefault(variant, set()).add(fp)
    assert {v: s for v, s in seen.items()} == {v: {fp} for v, fp in FINGERPRINTS.items()}
    assert len(set(FINGERPRINTS.values())) == 3
