#!/usr/bin/env python3
"""Writes the seed corpus of the attestation envelope fuzzer into fuzz/corpus/attest/.

Seeds are signed with RFC 8032's first test key (public key pinned in fuzz/fuzz_attest.c), so the
fuzzer starts from envelopes whose signature verifies: one made by `millaudit attest create` (a
std 3-stone game solved and verified here), one made by python's `cryptography` in URL-safe
unpadded base64, and malformed variants of each (truncated, bad base64, bad JSON, foreign payload
and statement types, unsafe subject names, missing members). Needs a built millaudit
($MILLAUDIT_BIN or build/millaudit) and python3-cryptography. Run from anywhere:
    python3 fuzz/make_corpus_attest.py
"""
import base64
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives import serialization

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "corpus" / "attest"
BIN = os.environ.get("MILLAUDIT_BIN", str(HERE.parent / "build" / "millaudit"))
SK_PEM = ("-----BEGIN PRIVATE KEY-----\n"
          "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
          "-----END PRIVATE KEY-----\n")
TYPE = "application/vnd.in-toto+json"


def pae(t, body):
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body)


def sign(statement_bytes, payload_type=TYPE, urlsafe=False, keyid=""):
    key = serialization.load_pem_private_key(SK_PEM.encode(), password=None)
    sig = key.sign(pae(payload_type.encode(), statement_bytes))
    enc = (lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")) if urlsafe else \
        (lambda b: base64.b64encode(b).decode())
    return json.dumps({"payloadType": payload_type, "payload": enc(statement_bytes),
                       "signatures": [{"keyid": keyid, "sig": enc(sig)}]}).encode()


def out(name, data):
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_bytes(data)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        run = lambda *a: subprocess.run([BIN, *map(str, a)], check=True, capture_output=True)  # noqa: E731
        run("solve", "--variant", "std", "--stones", 3, "--out", tmp / "db", "--quiet")
        run("verify", tmp / "db", "--audit", tmp / "a.sqlite", "--quiet")
        (tmp / "k.pem").write_text(SK_PEM)
        run("attest", "create", "--audit", tmp / "a.sqlite", "--key", tmp / "k.pem", "--out", tmp / "att.json",
            "--identity", "fuzz seed")
        made = (tmp / "att.json").read_bytes()
    env = json.loads(made)
    st = json.loads(base64.b64decode(env["payload"]))
    # keep the seeds small: two subjects, two sectors, a short description
    st["subject"] = st["subject"][:2]
    st["predicate"]["sectors"] = st["predicate"]["sectors"][:2]
    st["predicate"]["rules"]["description"] = st["predicate"]["rules"]["description"][:80]
    st["predicate"]["database"]["root"] = "/db"
    small = json.dumps(st, separators=(",", ":")).encode()
    out("valid_millaudit", made)
    out("valid_small", sign(small))
    # a statement of predicate v1 (before scopes were stated): read, its scope derived
    v1 = json.loads(small)
    v1["predicateType"] = "https://millaudit.dev/attestation/verification/v1"
    del v1["predicate"]["scope"], v1["predicate"]["inputs"]
    out("valid_v1", sign(json.dumps(v1, separators=(",", ":")).encode()))
    # a statement of some sectors, with an input read but not checked
    part = json.loads(small)
    part["predicate"]["scope"] = "sectors"
    part["predicate"]["inputs"] = [part["subject"].pop()]
    part["predicate"]["sectors"] = [s for s in part["predicate"]["sectors"]
                                    if s["sector"] != part["predicate"]["inputs"][0]["annotations"]["sector"]]
    out("valid_partial", sign(json.dumps(part, separators=(",", ":")).encode()))
    out("valid_urlsafe_unpadded", sign(small, urlsafe=True))
    out("truncated_half", sign(small)[: len(sign(small)) // 2])
    out("truncated_payload", sign(small[:-40]))
    out("bad_payload_type", sign(small, payload_type="application/json"))
    for name, edit in [
        ("bad_statement_type", lambda s: s.__setitem__("_type", "https://in-toto.io/Statement/v0.1")),
        ("bad_predicate_type", lambda s: s.__setitem__("predicateType", "https://slsa.dev/provenance/v1")),
        ("bad_subject_absolute", lambda s: s["subject"][0].__setitem__("name", "/etc/passwd")),
        ("bad_subject_climbing", lambda s: s["subject"][0].__setitem__("name", "a/../../b")),
        ("bad_subject_twice", lambda s: s["subject"].__setitem__(1, s["subject"][0])),
        ("bad_digest", lambda s: s["subject"][0]["digest"].__setitem__("sha256", "ABC")),
        ("bad_totals", lambda s: s["predicate"]["totals"].__setitem__("entries", -5)),
        ("bad_no_predicate", lambda s: s.pop("predicate")),
        ("bad_options", lambda s: s["predicate"]["run"].__setitem__("options", [1, 2])),
        ("bad_derived", lambda s: s["predicate"]["sectors"][0].__setitem__("derived_positions", None)),
    ]:
        s = json.loads(small)
        edit(s)
        out(name, sign(json.dumps(s, separators=(",", ":")).encode()))
    good = json.loads(sign(small))
    out("bad_base64_payload", json.dumps({**good, "payload": good["payload"][:-2] + "*="}).encode())
    out("bad_base64_sig", json.dumps({**good, "signatures": [{"sig": "A"}]}).encode())
    out("bad_no_signatures", json.dumps({**good, "signatures": []}).encode())
    out("bad_not_json", b'{"payloadType": "application/vnd.in-toto+json", "payload": ')
    out("bad_duplicate_member", b'{"payloadType":"a","payloadType":"b","payload":"","signatures":[{"sig":""}]}')
    two = {**good, "signatures": [{"keyid": "00" * 32, "sig": good["signatures"][0]["sig"]},
                                  {"sig": good["signatures"][0]["sig"]}]}
    out("valid_two_signatures", json.dumps(two).encode())
    out("empty", b"")
    return 0


if __name__ == "__main__":
    sys.exit(main())
