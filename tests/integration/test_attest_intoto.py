"""Attestations as other in-toto tools read them (issue 46): the statement and the SLSA Verification
Summary (`attest create --vsa`) parsed with the in-toto attestation framework's own schemas (its
Protocol Buffers definitions, tests/data/in-toto-attestation, compiled here with Debian's protoc;
a strict parse refuses a member the schema does not define or a value of the wrong type), the
framework's validation rules for a Statement, and a VSA consumer written from SLSA's "how to verify"
(signature by python's `cryptography`, not millaudit: a second DSSE implementation; subjects against
`sha256sum` of the files; verifier, resource, result and level as the consumer's policy expects).
"""
import base64
import hashlib
import importlib
import json
import subprocess
import sys

import pytest

from conftest import ROOT, need_module, skip_unless
from test_attest_scope import PAYLOAD_TYPE, keypair, statement

need_module("cryptography", "python3-cryptography (scripts/install-deps --test)")
need_module("google.protobuf", "python3-protobuf (scripts/install-deps --test)")
from cryptography.exceptions import InvalidSignature  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from google.protobuf import json_format  # noqa: E402

PROTOS = ROOT / "tests" / "data" / "in-toto-attestation" / "protos"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_TYPE = "https://slsa.dev/verification_summary/v1"
PREDICATE_TYPE = "urn:uuid:825d8e1c-12eb-4401-bf9d-454d46ff51d2"
MILLAUDIT_VERIFIER = "urn:uuid:1785f6fb-60a6-448b-807e-80bb88b42cec"
RESOURCE = "https://example.org/morris/std-3/"


@pytest.fixture(scope="module")
def schemas(tmp_path_factory):
    """The framework's Statement and VerificationSummary messages, compiled from its .proto files."""
    protoc = subprocess.run(["which", "protoc"], capture_output=True, text=True).stdout.strip()
    skip_unless(bool(protoc), "protoc absent: protobuf-compiler and libprotobuf-dev (scripts/install-deps --test)")
    out = tmp_path_factory.mktemp("protos")
    files = [str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto")]
    subprocess.run([protoc, f"-I{PROTOS}", "-I/usr/include", f"--python_out={out}", *files], check=True,
                   capture_output=True)
    sys.path.insert(0, str(out))
    try:
        st = importlib.import_module("in_toto_attestation.v1.statement_pb2")
        vsa = importlib.import_module("in_toto_attestation.predicates.vsa.v1.vsa_pb2")
    finally:
        sys.path.remove(str(out))
    return {"Statement": st.Statement, "VerificationSummary": vsa.VerificationSummary}


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    """The std 3-stone game verified, its statement and VSA signed with one key."""
    w = tmp_path_factory.mktemp("intoto")
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", w / "db", "--quiet", check=0)
    millaudit.run("verify", w / "db", "--audit", w / "a.sqlite", "--quiet", check=0)
    sk, pk = keypair(w)
    proc = millaudit.run("attest", "create", "--audit", w / "a.sqlite", "--key", sk, "--out", w / "db.intoto.json",
                         "--vsa", w / "db.vsa.json", "--resource-uri", RESOURCE, check=0)
    assert f"verification summary (SLSA VSA v1): PASSED for {RESOURCE} into {w / 'db.vsa.json'}" in proc.stdout
    return {"w": w, "db": w / "db", "store": w / "a.sqlite", "sk": sk, "pk": pk, "att": w / "db.intoto.json",
            "vsa": w / "db.vsa.json"}


def valid_in_toto_statement(schemas, st):
    """The Statement parsed strictly by the framework's schema, then its validation rules (spec/v1:
    the type, at least one subject, each with a digest, a predicate type and a predicate)."""
    msg = json_format.Parse(json.dumps(st), schemas["Statement"]())
    assert msg.type == STATEMENT_TYPE
    assert len(msg.subject) >= 1
    for s in msg.subject:
        assert s.name and dict(s.digest) and all(len(v) == 64 for k, v in s.digest.items() if k == "sha256")
    assert msg.predicate_type and len(msg.predicate) > 0
    return msg


def dsse_payload(path, pub):
    """The payload of a DSSE envelope whose signature verifies with pub (cryptography, not millaudit);
    None when no signature does."""
    env = json.loads(path.read_text())
    body = base64.b64decode(env["payload"])
    t = env["payloadType"].encode()
    key = serialization.load_pem_public_key(pub.read_bytes())
    for sig in env["signatures"]:
        try:
            key.verify(base64.b64decode(sig["sig"]), b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))
            return json.loads(body) if env["payloadType"] == PAYLOAD_TYPE else None
        except InvalidSignature:
            continue
    return None


def vsa_refusal(path, pub, db, resource, verifier=MILLAUDIT_VERIFIER, level="MILLAUDIT_DATABASE_VERIFIED"):
    """What a VSA consumer (SLSA verification_summary v1, "How to verify") says of the VSA at path for
    the files of db: None when it accepts, else why not."""
    st = dsse_payload(path, pub)
    if st is None:
        return "signature"
    if st["predicateType"] != VSA_TYPE:
        return "predicateType"
    p = st["predicate"]
    digests = {s["name"]: s["digest"]["sha256"] for s in st["subject"]}
    files = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in db.iterdir() if f.is_file()}
    if digests != files:
        return "subject"
    if p["verifier"]["id"] != verifier:
        return "verifier"
    if p["resourceUri"] != resource:
        return "resourceUri"
    if p["verificationResult"] != "PASSED" or level not in p["verifiedLevels"]:
        return "result"
    return None


def test_the_statement_is_an_in_toto_statement(schemas, world):
    st = statement(world["att"])
    msg = valid_in_toto_statement(schemas, st)
    assert msg.predicate_type == PREDICATE_TYPE
    assert sorted(s.name for s in msg.subject) == sorted(f.name for f in world["db"].iterdir())
    # the schema is strict: a member it does not define is refused, so the parse above proves something
    bad = dict(st, subjects=st["subject"])
    with pytest.raises(json_format.ParseError):
        json_format.Parse(json.dumps(bad), schemas["Statement"]())


def test_the_vsa_is_a_slsa_verification_summary(schemas, world, millaudit):
    st = dsse_payload(world["vsa"], world["pk"])
    assert st is not None, "the VSA's signature does not verify with python's cryptography"
    msg = valid_in_toto_statement(schemas, st)
    assert msg.predicate_type == VSA_TYPE
    p = dict(st["predicate"])
    # SLSA's spec has verifier.version (a map of names to versions); the framework's proto lags it
    version = p["verifier"].pop("version")
    assert version == {"millaudit": millaudit.run("--version").stdout.split()[1]}
    vsa = json_format.Parse(json.dumps(p), schemas["VerificationSummary"]())
    assert vsa.verifier.id == MILLAUDIT_VERIFIER and vsa.resource_uri == RESOURCE
    assert vsa.verification_result == "PASSED" and list(vsa.verified_levels) == ["MILLAUDIT_DATABASE_VERIFIED"]
    # the policy is the rules: their fingerprint, as the statement states it
    full = statement(world["att"])
    assert vsa.policy.uri == PREDICATE_TYPE + "#rules/std"
    assert dict(vsa.policy.digest) == {"sha256": full["predicate"]["rules"]["fingerprint"]}
    assert vsa.time_verified.ToJsonString().startswith(full["predicate"]["run"]["ended_at"][:19])
    # the detailed statement is its input attestation, by name and by the digest of its bytes
    assert [(a.uri, dict(a.digest)) for a in vsa.input_attestations] == [
        ("db.intoto.json", {"sha256": hashlib.sha256(world["att"].read_bytes()).hexdigest()})]
    assert st["subject"] == full["subject"]


def test_a_vsa_consumer_accepts_it_and_refuses_what_it_must(world, tmp_path):
    assert vsa_refusal(world["vsa"], world["pk"], world["db"], RESOURCE) is None
    assert vsa_refusal(world["vsa"], world["pk"], world["db"], "https://example.org/other/") == "resourceUri"
    assert vsa_refusal(world["vsa"], world["pk"], world["db"], RESOURCE, verifier="urn:example:other") == "verifier"
    _, other = keypair(tmp_path)
    assert vsa_refusal(world["vsa"], other, world["db"], RESOURCE) == "signature"
    changed = tmp_path / "db"
    changed.mkdir()
    for f in world["db"].iterdir():
        (changed / f.name).write_bytes(f.read_bytes())
    name = sorted(f.name for f in changed.iterdir())[-1]
    data = bytearray((changed / name).read_bytes())
    data[-1] ^= 1
    (changed / name).write_bytes(bytes(data))
    assert vsa_refusal(world["vsa"], world["pk"], changed, RESOURCE) == "subject"


def test_a_run_that_did_not_verify_makes_a_failed_vsa(millaudit, world, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    for f in world["db"].iterdir():
        (bad / f.name).write_bytes(f.read_bytes())
    subprocess.run(["python3", str(ROOT / "scripts" / "inject_fault.py"), str(bad / "std_3_3_0_0.mdb"), "--entry",
                    "5000", "--depth-delta", "+1", "--reseal"], check=True, capture_output=True)
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", bad, "--audit", store, "--quiet", check=1)
    vsa = tmp_path / "vsa.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", tmp_path / "att.json",
                  "--vsa", vsa, "--resource-uri", RESOURCE, check=1)
    assert not vsa.exists()
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", tmp_path / "att.json",
                         "--vsa", vsa, "--resource-uri", RESOURCE, "--allow-unverified", check=0)
    assert "verification summary (SLSA VSA v1): FAILED for" in proc.stdout
    p = dsse_payload(vsa, world["pk"])["predicate"]
    assert (p["verificationResult"], p["verifiedLevels"]) == ("FAILED", ["FAILED"])
    assert vsa_refusal(vsa, world["pk"], bad, RESOURCE) == "result"


def test_a_run_of_some_sectors_makes_no_vsa(millaudit, world, tmp_path):
    """A VSA states no scope: its PASSED for a --sector run would read as a proof of the database."""
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["db"], "--sector", "std_2_3_1_0", "--audit", store, "--quiet", check=0)
    att, vsa = tmp_path / "att.json", tmp_path / "vsa.json"
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, "--allow-partial",
                         "--vsa", vsa, "--resource-uri", RESOURCE, check=6)
    assert "a verification summary (VSA) states no scope" in proc.stderr
    assert not att.exists() and not vsa.exists()


@pytest.mark.parametrize("args", [["--vsa", "v.json"], ["--resource-uri", RESOURCE],
                                  ["--verifier-id", "urn:example:x"]])
def test_vsa_options_go_together(millaudit, world, tmp_path, args):
    proc = millaudit.run("attest", "create", "--audit", world["store"], "--key", world["sk"], "--out",
                         tmp_path / "att.json", *args, check=2)
    assert "--vsa FILE and --resource-uri URI go together" in proc.stderr
    assert not (tmp_path / "att.json").exists()


def test_the_vsa_never_lands_on_the_statement(millaudit, world, tmp_path):
    att = tmp_path / "att.json"
    proc = millaudit.run("attest", "create", "--audit", world["store"], "--key", world["sk"], "--out", att,
                         "--vsa", att, "--resource-uri", RESOURCE, check=2)
    assert "the --vsa output is the statement envelope (--out)" in proc.stderr and not att.exists()
