"""Issue 41, item 2 and its low items: an attestation never claims more than its run proved.

Each test guards against one way a signed statement read as more than it was:
- a `--sector` run's statement read as a proof of the database (its subjects held the successor
  files the run only read; `attest verify --db` on a folder of those files exited 0 while `verify`
  of that folder exits 1);
- a `--shard` run's statement read the same way (the merge of all shards is the proof);
- a statement of a run that was not verified exiting 0;
- a statement whose verdict contradicts its own totals and sector states (an interrupted run
  re-signed as "verified") accepted;
- a database file of the folder whose header cannot be read passed over by `--db` (verify calls the
  same folder incomplete);
- an envelope of very many signatures tried one by one (minutes and hundreds of MB);
- a statement made before scopes were stated (predicate v1) read as a proof of the database.
"""
import base64
import json
import shutil
import subprocess

import pytest

from conftest import ROOT, need_module, validate_json

need_module("cryptography", "python3-cryptography (scripts/install-deps --test)")
from cryptography.hazmat.primitives import serialization  # noqa: E402

PAYLOAD_TYPE = "application/vnd.in-toto+json"
INJECT = ROOT / "scripts" / "inject_fault.py"


def keypair(where):
    sk, pk = where / "k.pem", where / "k.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", str(sk)], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(sk), "-pubout", "-out", str(pk)], check=True, capture_output=True)
    return sk, pk


def statement(path):
    return json.loads(base64.b64decode(json.loads(path.read_text())["payload"]))


def sign(sk, st, path, extra_sigs=0):
    """An envelope of statement st signed with python's Ed25519 (any DSSE tool may make one)."""
    body = json.dumps(st).encode()
    key = serialization.load_pem_private_key(sk.read_bytes(), password=None)
    t = PAYLOAD_TYPE.encode()
    sig = base64.b64encode(key.sign(b"DSSEv1 %d %s %d %s" % (len(t), t, len(body), body))).decode()
    junk = base64.b64encode(bytes(64)).decode()
    env = {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(body).decode(),
           "signatures": [{"keyid": "", "sig": sig}] + [{"keyid": "", "sig": junk}] * extra_sigs}
    path.write_text(json.dumps(env))
    return path


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    """The 3-stone game with std_3_3_0_0 wrong under a producer-consistent body digest (a producer
    that computed a wrong value), a key pair, and the clean game beside it."""
    w = tmp_path_factory.mktemp("scope")
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", w / "clean", "--quiet", check=0)
    shutil.copytree(w / "clean", w / "db")
    subprocess.run(["python3", str(INJECT), str(w / "db" / "std_3_3_0_0.mdb"), "--entry", "5000", "--depth-delta",
                    "+1", "--reseal"], check=True, capture_output=True)
    millaudit.run("verify", w / "db", check=1)  # the database is wrong
    sk, pk = keypair(w)
    return {"w": w, "sk": sk, "pk": pk}


def test_a_sector_run_is_no_proof_of_the_database(millaudit, world, tmp_path):
    w = world["w"]
    store = tmp_path / "a.sqlite"
    # the sector checked is right; its successor std_3_3_0_0 is read, not checked
    millaudit.run("verify", w / "db", "--sector", "std_2_3_1_0", "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, check=6)
    assert "--allow-partial" in proc.stderr and not att.exists()
    proc = millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, "--allow-partial",
                         check=0)
    assert "scope sectors" in proc.stdout
    st = statement(att)
    assert st["predicateType"] == "urn:uuid:825d8e1c-12eb-4401-bf9d-454d46ff51d2"
    assert st["predicate"]["scope"] == "sectors"
    assert [s["name"] for s in st["subject"]] == ["std_2_3_1_0.mdb"]
    assert [i["name"] for i in st["predicate"]["inputs"]] == ["std_3_3_0_0.mdb"]
    assert [s["sector"] for s in st["predicate"]["sectors"]] == ["std_2_3_1_0"]
    # a folder holding exactly the two files the run read: verify says it is wrong ...
    two = tmp_path / "two"
    two.mkdir()
    for name in ("std_2_3_1_0.mdb", "std_3_3_0_0.mdb"):
        shutil.copy(w / "db" / name, two / name)
    assert millaudit.run("verify", two).returncode == 1
    # ... and the attestation proves its sector given its input, never the database (exit 6)
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", two, check=6)
    lines = proc.stdout.splitlines()
    assert lines[2].startswith("scope:       part of a database: 1 sector checked (std_2_3_1_0), given 1 input")
    verdict = next(line for line in lines if line.startswith("verdict:"))
    assert "proves sectors std_2_3_1_0 given inputs std_3_3_0_0.mdb" in verdict and "verified" not in verdict
    doc = json.loads(millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", two, "--json").stdout)
    validate_json("attest-verify", doc)
    assert doc["result"] == "partial"
    assert doc["scope"] == {"kind": "sectors", "sectors": ["std_2_3_1_0"],
                            "inputs": [{"name": "std_3_3_0_0.mdb", "sha256": st["predicate"]["inputs"][0]["digest"]
                                        ["sha256"], "size": (w / "db" / "std_3_3_0_0.mdb").stat().st_size}]}
    # an input that changed breaks the claim like a subject does
    shutil.copy(w / "clean" / "std_3_3_0_0.mdb", two / "std_3_3_0_0.mdb")
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", two, check=1)
    assert "std_3_3_0_0.mdb: input changed" in proc.stderr
    # imported, the run keeps its scope: attesting the import is refused as partial too
    b = tmp_path / "b.sqlite"
    millaudit.run("runs", "import", "--audit", b, att, "--pub", world["pk"], check=0)
    millaudit.run("attest", "create", "--audit", b, "--key", world["sk"], "--out", tmp_path / "re.json", check=6)


@pytest.mark.parametrize("pick", [["--sector", "std_2_3_1_0"], ["--shard", "1/2"]])
def test_verify_of_some_sectors_says_its_scope(millaudit, world, pick, tmp_path):
    """verify --sector std_2_3_1_0 exits 0 on a database whose successor std_3_3_0_0 is wrong: its
    verdict must say it is about those sectors given what they read, never the database."""
    w = world["w"]
    proc = millaudit.run("verify", w / "db", *pick, "--quiet", check=0)
    last = proc.stdout.splitlines()[-1]
    assert last.startswith("verdict: verified: all ") and last.endswith(
        "; scope: these sectors, given the files they read and this run did not check, not the database"), last
    doc = json.loads(millaudit.run("verify", w / "db", *pick, "--json", check=0).stdout)
    validate_json("verify", doc)
    assert (doc["verdict"], doc["scope"]) == ("verified", "sectors")
    # and so does the report of its recorded run
    millaudit.run("verify", w / "db", *pick, "--audit", tmp_path / "a.sqlite", "--quiet", check=0)
    report = millaudit.run("report", "--audit", tmp_path / "a.sqlite", check=0).stdout.splitlines()
    assert report[1].startswith("verdict: fully verified: ") and report[1].endswith(
        "; scope: these sectors, given the files they read and the run did not check, not the database"), report[1]
    # the whole clean database: no scope words, scope "database"
    whole = millaudit.run("verify", w / "clean", "--quiet", check=0).stdout.splitlines()[-1]
    assert whole.startswith("verdict: verified: all ") and "scope" not in whole
    doc = json.loads(millaudit.run("verify", w / "clean", "--json", check=0).stdout)
    assert (doc["verdict"], doc["scope"]) == ("verified", "database")


def test_a_shard_is_part_and_the_merge_of_all_shards_is_the_database(millaudit, world, tmp_path):
    db = world["w"] / "clean"
    seal = tmp_path / "seal.key"
    seal.write_text("0123456789abcdef0123456789abcdef\n")
    for i in range(2):
        millaudit.run("verify", db, "--shard", f"{i}/2", "--audit", tmp_path / f"s{i}.sqlite", "--quiet",
                      "--seal-key", seal, check=0)
    att0 = tmp_path / "s0.json"
    millaudit.run("attest", "create", "--audit", tmp_path / "s0.sqlite", "--key", world["sk"], "--out", att0, check=6)
    millaudit.run("attest", "create", "--audit", tmp_path / "s0.sqlite", "--key", world["sk"], "--out", att0,
                  "--allow-partial", check=0)
    assert statement(att0)["predicate"]["scope"] == "sectors"
    millaudit.run("attest", "verify", att0, "--pub", world["pk"], "--db", db, check=6)
    # a merge that trusted its shard stores as written is not attested as a proof unless asked
    unsealed = tmp_path / "u.sqlite"
    millaudit.run("runs", "merge", unsealed, tmp_path / "s0.sqlite", tmp_path / "s1.sqlite", check=0)
    proc = millaudit.run("attest", "create", "--audit", unsealed, "--key", world["sk"], "--out", tmp_path / "u.json",
                         check=1)
    assert "--allow-unsealed" in proc.stderr and not (tmp_path / "u.json").exists()
    merged = tmp_path / "m.sqlite"
    millaudit.run("runs", "merge", merged, tmp_path / "s0.sqlite", tmp_path / "s1.sqlite", "--seal-key", seal,
                  check=0)
    att = tmp_path / "m.json"
    millaudit.run("attest", "create", "--audit", merged, "--key", world["sk"], "--out", att, check=0)
    st = statement(att)
    assert st["predicate"]["scope"] == "database" and st["predicate"]["inputs"] == []
    assert len(st["predicate"]["run"]["sealed_by"]) == 64
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", db, check=0)
    assert proc.stdout.splitlines()[2].startswith("scope:       the whole database: 7 sectors")
    doc = json.loads(millaudit.run("attest", "verify", att, "--pub", world["pk"], "--json").stdout)
    assert doc["result"] == "verified" and doc["scope"]["kind"] == "database"


def test_only_a_verified_statement_of_the_database_exits_0(millaudit, world, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["w"] / "db", "--audit", store, "--quiet", check=1)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, "--allow-unverified",
                  check=0)
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", world["w"] / "db", check=1)
    assert "verdict:     discrepancies" in proc.stdout
    doc = json.loads(millaudit.run("attest", "verify", att, "--pub", world["pk"], "--json").stdout)
    assert doc["result"] == "not-verified" and doc["statement"]["verdict"] == "discrepancies"


@pytest.fixture()
def interrupted(millaudit_planted, world, tmp_path):
    """The statement of a run stopped after 2 of 7 sectors, honestly signed (--allow-unverified)."""
    store = tmp_path / "i.sqlite"
    env = {"MILLAUDIT_TEST_STOP_AFTER_SECTORS": "2"}
    proc = subprocess.run([str(millaudit_planted.path), "verify", str(world["w"] / "clean"), "--audit", str(store),
                           "--quiet"], capture_output=True, text=True, env={**__import__("os").environ, **env})
    assert proc.returncode == 130, proc.stderr
    att = tmp_path / "i.json"
    millaudit_planted.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att,
                          "--allow-unverified", check=0)
    return statement(att)


def test_an_honest_interrupted_statement_verifies_as_interrupted(millaudit, world, interrupted, tmp_path):
    assert interrupted["predicate"]["run"]["verdict"] == "interrupted"
    att = sign(world["sk"], interrupted, tmp_path / "ok.json")
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], check=3)
    assert "verdict:     interrupted" in proc.stdout


@pytest.mark.parametrize("lie", ["verdict", "verdict and status", "totals"])
def test_a_verdict_its_own_counts_deny_is_refused(millaudit, world, interrupted, tmp_path, lie):
    """An interrupted run re-signed as verified (by the key's holder: the signature is good)."""
    st = json.loads(json.dumps(interrupted))
    run = st["predicate"]["run"]
    run["verdict"] = "verified"
    if lie == "verdict and status":
        run["status"] = "ok"
    if lie == "totals":
        st["predicate"]["totals"]["verified"] = st["predicate"]["totals"]["entries"]
    att = sign(world["sk"], st, tmp_path / "lie.json")
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], check=3)
    [line] = proc.stderr.splitlines()
    assert "contradicts itself" in line
    assert ("predicate.totals.verified" if lie == "totals" else "predicate.run.verdict: 'verified'") in line


def test_a_database_file_whose_header_cannot_be_read_is_not_attested(millaudit, world, tmp_path):
    db = world["w"] / "clean"
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, check=0)
    copy = tmp_path / "copy"
    shutil.copytree(db, copy)
    (copy / "std_3_3_1_1.mdb").write_bytes(b"not a sector file")
    assert millaudit.run("verify", copy).returncode == 3  # verify calls the folder incomplete
    proc = millaudit.run("attest", "verify", att, "--pub", world["pk"], "--db", copy, check=1)
    assert "std_3_3_1_1.mdb: not attested" in proc.stderr


def test_an_envelope_of_many_signatures_is_refused_before_any_is_tried(millaudit, world, tmp_path):
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["w"] / "clean", "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, check=0)
    env = sign(world["sk"], statement(att), tmp_path / "many.json", extra_sigs=16)
    proc = millaudit.run("attest", "verify", env, "--pub", world["pk"], check=3)
    assert "signatures: 17 of them; an envelope carries at most 16" in proc.stderr
    sign(world["sk"], statement(att), tmp_path / "some.json", extra_sigs=15)
    millaudit.run("attest", "verify", tmp_path / "some.json", "--pub", world["pk"], check=0)


def test_a_v1_statement_of_a_sector_run_reads_as_partial(millaudit, world, tmp_path):
    """Statements made before scopes were stated listed every file read as a subject: the files of
    sectors they do not list are inputs, and such a statement proves its sectors only."""
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["w"] / "db", "--sector", "std_2_3_1_0", "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, "--allow-partial", check=0)
    st = statement(att)
    p = st["predicate"]
    st["predicateType"] = "https://millaudit.dev/attestation/verification/v1"
    st["subject"] = sorted(st["subject"] + p.pop("inputs"), key=lambda s: s["name"])
    del p["scope"]
    v1 = sign(world["sk"], st, tmp_path / "v1.json")
    proc = millaudit.run("attest", "verify", v1, "--pub", world["pk"], "--db", world["w"] / "db", check=6)
    assert "given 1 input read but not checked (std_3_3_0_0.mdb)" in proc.stdout
    # the whole-database v1 statement of a merge or a full run still verifies
    full = tmp_path / "full.sqlite"
    millaudit.run("verify", world["w"] / "clean", "--audit", full, "--quiet", check=0)
    millaudit.run("attest", "create", "--audit", full, "--key", world["sk"], "--out", att, check=0)
    st = statement(att)
    st["predicateType"] = "https://millaudit.dev/attestation/verification/v1"
    del st["predicate"]["scope"], st["predicate"]["inputs"]
    millaudit.run("attest", "verify", sign(world["sk"], st, tmp_path / "v1full.json"), "--pub", world["pk"],
                  "--db", world["w"] / "clean", check=0)


def test_a_v2_statement_of_an_earlier_build_is_read_with_its_scope(millaudit, world, tmp_path):
    """Builds before the predicate type became a URN wrote v2 (the same members under a millaudit.dev
    URL): a published attestation of theirs keeps its meaning, a partial one stays partial."""
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["w"] / "db", "--sector", "std_2_3_1_0", "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, "--allow-partial", check=0)
    st = statement(att)
    st["predicateType"] = "https://millaudit.dev/attestation/verification/v2"
    proc = millaudit.run("attest", "verify", sign(world["sk"], st, tmp_path / "v2.json"), "--pub", world["pk"],
                         "--db", world["w"] / "db", check=6)
    assert "given 1 input read but not checked (std_3_3_0_0.mdb)" in proc.stdout
    # a type nobody defined is no millaudit statement
    st["predicateType"] = "https://millaudit.dev/attestation/verification/v3"
    proc = millaudit.run("attest", "verify", sign(world["sk"], st, tmp_path / "v3.json"), "--pub", world["pk"],
                         check=3)
    assert "predicateType" in proc.stderr


def test_a_database_is_the_top_of_its_folder_for_attest_verify_too(millaudit, world, tmp_path):
    """The database an attestation of the whole database is checked against is the top of --db, as
    verify discovers it: a volume's root-only lost+found, which another user cannot list, refuses
    nothing (it refused the whole check, exit 3 "cannot read directory"), and a sector file in a
    subdirectory is no part of the database; a database file at the top that no subject names is
    still "not attested"."""
    from robust_util import run_as_nobody, shared_tmpdir
    from conftest import skip_unless
    store = tmp_path / "a.sqlite"
    millaudit.run("verify", world["w"] / "clean", "--audit", store, "--quiet", check=0)
    att = tmp_path / "att.json"
    millaudit.run("attest", "create", "--audit", store, "--key", world["sk"], "--out", att, check=0)
    top = shared_tmpdir()
    try:
        d = shutil.copytree(world["w"] / "clean", top / "db")
        shutil.copy(att, top / "att.json")
        shutil.copy(world["pk"], top / "team.pub")
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (d / "lost+found").mkdir(mode=0o000)
        (d / "old").mkdir(mode=0o755)
        shutil.copy(d / "std_3_3_0_0.mdb", d / "old" / "std_3_3_0_0.mdb")
        (d / "old" / "std_3_3_0_0.mdb").chmod(0o644)
        args = ["attest", "verify", top / "att.json", "--pub", top / "team.pub", "--db", d]
        proc = run_as_nobody(millaudit.path, *args)
        skip_unless(proc is not None, "running as root without setpriv: cannot make a directory unreadable")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "not attested" not in proc.stderr and "cannot read" not in proc.stderr
        extra = d / "std_4_3_0_0.mdb"
        shutil.copy(d / "std_3_3_0_0.mdb", extra)
        extra.chmod(0o644)
        proc = run_as_nobody(millaudit.path, *args)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "std_4_3_0_0.mdb: not attested" in proc.stderr
        assert "old/" not in proc.stderr
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)])
        shutil.rmtree(top, ignore_errors=True)
