"""Validating a download (issue 44, docs/download.md): integrity before semantics in one command.

`verify DIR` compares every file with what was published -- DIR/MANIFEST.sha256, a manifest kept
elsewhere (--manifest), a signed attestation (--attestation F --pub P) -- and every open file with
its own body digest, before it reads a value. A damaged file is a verdict of its own (exit 3),
never a discrepancy of the solver; it is listed first in every output, with what is wrong with it,
and the files to fetch again are printed (and written by --refetch-list); after the re-fetch,
`--incremental --audit A` checks only them and the sectors that read them. Without any reference
a wrong value of a file with no digest of its own may be either, and the verdict says so.

Every kind of damage (missing, truncated, extended, one byte changed, replaced by another sector's
file, an extra file, a damaged .secval) in both families (our open format; Malom's .sec2 as
`solve --format malom-sec2` writes it, and Malom's own files from ../shared/fixtures/malom), with a
manifest, with an attestation and with neither: the exit status and the first line of the output
exactly. The 3-stone game keeps it cheap (7 sectors, 0.5 MB).
"""
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import FIXTURES, need_fixture, skip_unless, validate_json
from robust_util import run_as_nobody, shared_tmpdir

KINDS = ["missing", "truncated", "extended", "flipped", "replaced", "extra"]
EXT = {"open": ".mdb", "malom": ".sec2"}
IDENTITY = "Team T <t@example.org>"


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def world(millaudit, tmp_path_factory):
    """The std 3-stone game in both families, each with a manifest (chunk lines of 4 KiB) and an
    attestation of a verified run signed with a fresh Ed25519 key."""
    base = tmp_path_factory.mktemp("download")
    open_dir = base / "open"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", open_dir, "--quiet", check=0)
    m2 = base / "m2"
    millaudit.run("solve", "--variant", "std", "--stones", 3, "--out", m2, "--open-dir", base / "m2open",
                  "--format", "malom-sec2", "--quiet", check=0)
    key, pub = base / "k.pem", base / "k.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", key, "-pubout", "-out", pub], check=True, capture_output=True)
    w = {"base": base, "pub": pub, "key": key}
    for family, src in (("open", open_dir), ("malom", m2)):
        store = base / f"{family}.sqlite"
        millaudit.run("verify", src, "--audit", store, "--quiet", check=0)
        att = base / f"{family}.intoto.json"
        millaudit.run("attest", "create", "--audit", store, "--key", key, "--out", att, "--identity", IDENTITY,
                      check=0)
        millaudit.run("manifest", "create", src, "--chunks", "--chunk-size", "4K", check=0)
        w[family] = src
        w[family + "-att"] = att
    return w


def damage(d, ext, kind):
    """What an interrupted or corrupted transfer leaves, to std_1_2_2_1 (or beside it)."""
    f = d / f"std_1_2_2_1{ext}"
    if kind == "missing":
        f.unlink()
    elif kind == "truncated":
        f.write_bytes(f.read_bytes()[:-100])
    elif kind == "extended":
        with open(f, "ab") as h:
            h.write(b"\0\0")
    elif kind == "flipped":
        b = bytearray(f.read_bytes())
        b[len(b) // 2] ^= 1
        f.write_bytes(bytes(b))
    elif kind == "replaced":
        shutil.copy(d / f"std_0_1_3_2{ext}", f)
    elif kind == "extra":
        f = d / f"std_4_4_0_0{ext}"
        shutil.copy(d / f"std_0_0_3_3{ext}", f)
    return f.name


def reference_args(w, family, ref):
    return ["--attestation", w[family + "-att"], "--pub", w["pub"]] if ref == "attestation" else []


NOT_CHECKED = "; 1 sector not checked (it reads a damaged file)"
PUBLISHED = "damaged: 1 file differs from what was published; the other 5 sectors verified" + NOT_CHECKED
PUBLISHED_EXTRA = "damaged: 1 file differs from what was published; the other 7 sectors verified"
PRODUCER = "damaged: 1 file differs from what its producer wrote; the other 5 sectors verified" + NOT_CHECKED
PRODUCER_EXTRA = "damaged: 1 file differs from what its producer wrote; the other 7 sectors verified"
FIRST_SECTOR = re.compile(r"std_3_3_0_0: ok, 210,140 entries, 210,140 verified, [0-9.]+ s$")
MALOM_UNUSABLE = ("incomplete: 1 sector unusable; 46 entries only within bounds (successor sectors absent); Malom "
                  "excerpts: --allow-bounds accepts entries checked within bounds")

# (family, reference, kind) -> (exit, first line of stdout, verdict after "verdict: ")
EXPECTED = {}
for fam in ("open", "malom"):
    for kind in KINDS:
        total = 8 if kind == "extra" else 7
        verdict = PUBLISHED_EXTRA if kind == "extra" else PUBLISHED
        EXPECTED[(fam, "manifest", kind)] = (
            3, f"integrity: {{db}}/MANIFEST.sha256: 1 of {total} files damaged, {total - 1} as published", verdict)
        EXPECTED[(fam, "attestation", kind)] = (
            3, f"integrity: {{att}} (signed by {IDENTITY}): 1 of {total} files damaged, {total - 1} as published",
            verdict)
# no reference: open files carry their own digest and name their sector in their header, so every
# kind but a missing file (which no file states) is still damage ...
for kind in KINDS[1:]:
    EXPECTED[("open", "neither", kind)] = (
        3, f"integrity: no manifest (no MANIFEST.sha256 in the database directory): {8 if kind == 'extra' else 7} "
           "open files checked against the body digest in their header",
        PRODUCER_EXTRA if kind == "extra" else PRODUCER)
EXPECTED[("open", "neither", "missing")] = (
    3, FIRST_SECTOR, "incomplete: 46 entries not verified (a successor absent, unusable or holding a bad value)")
# ... Malom files carry none: a missing child reads as an absent successor, a wrong length as an
# unusable file, and a changed byte as a wrong value that may be either
EXPECTED[("malom", "neither", "missing")] = (
    3, FIRST_SECTOR, "verified within bounds only: 46 entries unproven (successor sectors absent), no "
                     "contradiction; NOT fully verified")
for kind in ("truncated", "extended", "replaced"):
    EXPECTED[("malom", "neither", kind)] = (3, FIRST_SECTOR, MALOM_UNUSABLE)
EXPECTED[("malom", "neither", "flipped")] = (
    1, FIRST_SECTOR, "discrepancies found: 1 (1 root, 0 propagated); no manifest: damage in transit and a wrong "
                     "solver look alike; a wrong value here may be either; root sector: std_1_2_2_1")
EXPECTED[("malom", "neither", "extra")] = (3, FIRST_SECTOR, "incomplete: 1 sector unusable")


@pytest.mark.parametrize("family", ["open", "malom"])
@pytest.mark.parametrize("ref", ["manifest", "attestation", "neither"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_damage(millaudit, world, tmp_path, family, ref, kind):
    db = shutil.copytree(world[family], tmp_path / "db")
    if ref != "manifest":
        (db / "MANIFEST.sha256").unlink()
    name = damage(db, EXT[family], kind)
    before = {p.name: sha(p) for p in db.iterdir()}
    rl = tmp_path / "refetch.txt"
    proc = millaudit.run("verify", db, *reference_args(world, family, ref), "--refetch-list", rl)
    code, first, verdict = EXPECTED[(family, ref, kind)]
    lines = proc.stdout.splitlines()
    assert proc.returncode == code, proc.stdout + proc.stderr
    if isinstance(first, str):
        assert lines[0] == first.format(db=db, att=world[family + "-att"])
    else:
        assert first.match(lines[0]), lines[0]
    assert f"verdict: {verdict}" in lines
    damaged = code == 3 and verdict.startswith("damaged")
    if damaged:
        # what is wrong with it, second line; what to do, after the verdict
        assert lines[1].startswith(f"damaged: {name}: ")
        if kind == "extra" and ref != "neither":
            assert rl.read_text() == ""
            assert f"remove: {name} (not part of what was published)" in lines
        else:
            assert rl.read_text() == f"{name}\n"
            assert f"fetch again: {name} (1 file; --refetch-list FILE writes them one per line)" in lines
    else:
        assert rl.read_text() == ""
        assert not any(line.startswith("damaged:") for line in lines)
    if kind == "extra" and ref == "neither":
        # no reference to say it was never published: its header names another sector, so it is
        # the wrong file under its name, to fetch again (or remove)
        assert rl.read_text() == (f"{name}\n" if family == "open" else "")
    # a damaged file is never modified (nor anything else of the download)
    assert {p.name: sha(p) for p in db.iterdir()} == before


PINNED = {  # what is wrong, as every output says it (manifest with 4 KiB chunk lines)
    "missing": "missing",
    "truncated": "size differs: 2,052 bytes, published 2,152 (truncated)",
    "extended": "size differs: 2,154 bytes, published 2,152 (extended)",
    "flipped": "content differs at bytes 0-2,151 (4 KiB chunks)",
    "replaced": "size differs: 176 bytes, published 2,152 (truncated)",
    "extra": "not in the manifest",
}


@pytest.mark.parametrize("kind", KINDS)
def test_what_is_wrong_is_named(millaudit, world, tmp_path, kind):
    db = shutil.copytree(world["open"], tmp_path / "db")
    name = damage(db, ".mdb", kind)
    proc = millaudit.run("verify", db, "--json", check=3)
    doc = json.loads(proc.stdout)
    assert list(doc)[:10] == ["schema_version", "command", "database", "mode", "run_id", "resumed_from", "options",
                              "verdict", "integrity", "next"]
    assert doc["verdict"] == "damaged" and doc["totals"]["discrepancies"] == 0
    (d,) = doc["integrity"]["damaged"]
    assert (d["path"], d["detail"]) == (name, PINNED[kind])
    assert d["refetch"] is (kind != "extra")
    assert f"millaudit verify: {db}/{name}: damaged: {PINNED[kind]}" in proc.stderr.splitlines()


def test_a_damaged_secval(millaudit, tmp_path):
    """A .sec2 database's <variant>.secval gives every sector its values: damaged, every sector that
    reads it is not checked, and it is the file to fetch again."""
    secval = need_fixture(FIXTURES / "malom" / "original-excerpt" / "std.secval")
    db = tmp_path / "sv"
    millaudit.run("solve", "--variant", "std", "--sector", "3_3_0_0", "--with-deps", "--out", db,
                  "--open-dir", tmp_path / "o", "--format", "malom-sec2", "--secval", secval, "--quiet", check=0)
    millaudit.run("manifest", "create", db, check=0)
    f = db / "std.secval"
    text = f.read_bytes()
    f.write_bytes(text[:-10])
    proc = millaudit.run("verify", db, "--refetch-list", tmp_path / "rl", check=3)
    lines = proc.stdout.splitlines()
    assert lines[:2] == [f"integrity: {db}/MANIFEST.sha256: 1 of 2 files damaged, 1 as published",
                         "damaged: std.secval: content differs (no chunk digests published: where is not known)"]
    assert "std_3_3_0_0: not checked: input damaged: it reads std.secval (content-differs)" in lines
    assert ("verdict: damaged: 1 file differs from what was published; 1 sector not checked (it reads a damaged "
            "file)") in lines
    assert (tmp_path / "rl").read_text() == "std.secval\n"
    f.write_bytes(text)
    millaudit.run("verify", db, check=0)


def test_malom_published_files_with_the_digests_their_readme_publishes(millaudit, tmp_path):
    """Malom's own files (std-strong), judged against the SHA-256 the fixture's README publishes for
    them, as a downloader of Malom's sets would make a manifest from a published list."""
    src = need_fixture(FIXTURES / "malom" / "std-strong")
    readme = (FIXTURES / "malom" / "README.md").read_text()
    listed = re.findall(r"^\| `std-strong/(std_[0-9_]+\.sec)` \| `([0-9a-f]{64})` \|$", readme, re.M)
    assert len(listed) == 3
    db = tmp_path / "strong"
    db.mkdir()
    for name, _ in listed:
        shutil.copy(src / name, db / name)
    man = tmp_path / "published.sha256"  # kept outside the download
    man.write_text("".join(f"{digest}  {name}\n" for name, digest in listed))
    proc = millaudit.run("verify", db, "--manifest", man, "--threads", 2, check=0)
    assert proc.stdout.splitlines()[0] == f"integrity: {man}: all 3 files as published"
    b = bytearray((db / "std_3_4_0_0.sec").read_bytes())
    b[1000] ^= 0x10
    (db / "std_3_4_0_0.sec").write_bytes(bytes(b))
    proc = millaudit.run("verify", db, "--manifest", man, "--threads", 2, check=3)
    assert proc.stdout.splitlines()[:2] == [
        f"integrity: {man}: 1 of 3 files damaged, 2 as published",
        "damaged: std_3_4_0_0.sec: content differs (no chunk digests published: where is not known)"]
    # 3_4 and 4_3 read each other: the twin is not checked either; 3_3_0_0 is
    assert ("verdict: damaged: 1 file differs from what was published; the other sector verified; 1 sector not "
            "checked (it reads a damaged file)") in proc.stdout.splitlines()
    # the byte is part of a draw's count, which no local rule fixes: without the published digests
    # the change is invisible, and the copy verifies; only the manifest saw it
    proc = millaudit.run("verify", db, "--threads", 2, check=0)
    assert proc.stdout.splitlines()[-1] == "verdict: verified: all 2,018,750 entries of 3 sectors re-derived and matching"


def test_the_refetch_loop(millaudit, world, tmp_path):
    """Damage, verify (exit 3 and the list), fetch the listed files again, --incremental: exit 0,
    and only those files and the sectors that read them are checked."""
    db = shutil.copytree(world["open"], tmp_path / "dl")
    store, rl = tmp_path / "a.sqlite", tmp_path / "refetch.txt"
    damage(db, ".mdb", "truncated")
    damage(db, ".mdb", "extra")
    b = bytearray((db / "std_3_3_0_0.mdb").read_bytes())
    b[200000] ^= 4
    (db / "std_3_3_0_0.mdb").write_bytes(bytes(b))
    (db / "std_0_1_3_2.mdb").unlink()
    proc = millaudit.run("verify", db, "--audit", store, "--refetch-list", rl, check=3)
    out = proc.stdout.splitlines()
    assert out[0] == f"integrity: {db}/MANIFEST.sha256: 4 of 8 files damaged, 4 as published"
    assert rl.read_text().splitlines() == ["std_0_1_3_2.mdb", "std_1_2_2_1.mdb", "std_3_3_0_0.mdb"]
    then = f"then: millaudit verify {db} --incremental --audit {store} (checks only the files fetched again and " \
           "the sectors that read them)"
    assert then in out
    # the re-fetch: rsync --files-from, as the list is written for (cp here: no rsync needed)
    for name in rl.read_text().splitlines():
        shutil.copy(world["open"] / name, db / name)
    (db / "std_4_4_0_0.mdb").unlink()
    doc = json.loads(millaudit.run("verify", db, "--incremental", "--audit", store, "--json", check=0).stdout)
    assert doc["verdict"] == "verified" and doc["integrity"]["damaged"] == []
    checked = sorted(s["sector"] for s in doc["sectors"] if not s["carried_over"])
    # the three files fetched again and the sectors that read them (std_2_3_1_0 reads 3_3_0_0,
    # std_1_1_2_2 reads 1_2_2_1, std_0_0_3_3 reads 0_1_3_2); 2_2_1_1 read nothing damaged
    assert checked == ["std_0_0_3_3", "std_0_1_3_2", "std_1_1_2_2", "std_1_2_2_1", "std_2_3_1_0", "std_3_3_0_0"]
    assert [s["sector"] for s in doc["sectors"] if s["carried_over"]] == ["std_2_2_1_1"]
    assert doc["totals"]["verified"] == doc["totals"]["entries"] == 264399


def test_a_store_inside_the_directory_is_never_judged(millaudit, world, tmp_path):
    """A store kept inside the database directory and listed by a manifest made there (manifest
    create without --audit lists every file it finds): each verify writes the store, so what it
    finds there differs from what was published, and it must not call its own store damage."""
    db = shutil.copytree(world["open"], tmp_path / "db")
    (db / "MANIFEST.sha256").unlink()
    store = db / "a.sqlite"
    millaudit.run("verify", db, "--audit", store, "--quiet", check=0)
    millaudit.run("manifest", "create", db, check=0)
    assert "  a.sqlite\n" in (db / "MANIFEST.sha256").read_text()
    for run in (2, 3):  # run 2 writes the store after the manifest: run 3 finds it changed
        proc = millaudit.run("verify", db, "--audit", store, check=0)
        lines = proc.stdout.splitlines()
        assert lines[0] == f"integrity: {db}/MANIFEST.sha256: all 7 files as published"
        assert f"audit: run {run}" in lines
        assert lines[-1] == "verdict: verified: all 264,399 entries of 7 sectors re-derived and matching"


def test_a_subdirectory_that_cannot_be_listed_is_no_part_of_the_database(millaudit, world):
    """A database on a volume of its own, whose root holds the root-only lost+found, verified by
    another user: verify reads only the top of DIR, so the subdirectory it cannot list is no part of
    the database and refuses nothing -- the run judges what it reads and says nothing of the rest.
    The top is still judged whole (a database file the manifest does not list is damage), and a
    file in a subdirectory that the manifest lists is still compared: unreadable is damage, never
    skipped. (manifest check, which judges the whole tree, refuses it: test_manifest.py.)"""
    top = shared_tmpdir()
    try:
        d = shutil.copytree(world["open"], top / "db")
        for p in top.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
        (d / "lost+found").mkdir(mode=0o000)
        proc = run_as_nobody(millaudit.path, "verify", d)
        skip_unless(proc is not None, "running as root without setpriv: cannot make a directory unreadable")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stderr == ""
        lines = proc.stdout.splitlines()
        assert lines[0] == f"integrity: {d}/MANIFEST.sha256: all 7 files as published"
        assert lines[-1] == "verdict: verified: all 264,399 entries of 7 sectors re-derived and matching"
        # a database file at the top the manifest does not list: still found beside lost+found
        extra = d / "std_4_3_0_0.mdb"
        shutil.copy(d / "std_3_3_0_0.mdb", extra)
        extra.chmod(0o644)
        proc = run_as_nobody(millaudit.path, "verify", d)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[:2] == [f"integrity: {d}/MANIFEST.sha256: 1 of 8 files damaged, 7 as published",
                             "damaged: std_4_3_0_0.mdb: not in the manifest"]
        extra.unlink()
        # a listed file inside a subdirectory nobody may read: compared, so damage (unreadable)
        (d / "notes").mkdir()
        (d / "notes" / "README").write_text("the std 3-stone game\n")
        millaudit.run("manifest", "create", d, check=0)
        (d / "MANIFEST.sha256").chmod(0o644)
        (d / "notes").chmod(0o000)
        proc = run_as_nobody(millaudit.path, "verify", d)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        lines = proc.stdout.splitlines()
        assert lines[0] == f"integrity: {d}/MANIFEST.sha256: 1 of 8 files damaged, 7 as published"
        assert lines[1] == "damaged: notes/README: unreadable"
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", str(top)])
        shutil.rmtree(top, ignore_errors=True)


def test_damage_is_listed_first_in_every_output(millaudit, world, tmp_path):
    db = shutil.copytree(world["open"], tmp_path / "db")
    damage(db, ".mdb", "flipped")
    store, junit = tmp_path / "a.sqlite", tmp_path / "j.xml"
    millaudit.run("verify", db, "--audit", store, "--junit", junit, "--quiet", check=3)
    detail = "content differs at bytes 0-2,151 (4 KiB chunks)"
    headline = "damaged: 1 file differs from what was published; the other 5 sectors verified" + NOT_CHECKED
    # JUnit: the damaged file is the first case, an error (never a failure of the solver)
    cases = ET.parse(junit).getroot().find("testsuite").findall("testcase")
    assert (cases[0].get("classname"), cases[0].get("name")) == ("millaudit.verify.integrity", "std_1_2_2_1.mdb")
    err = cases[0].find("error")
    assert (err.get("type"), err.get("message")) == ("content-differs", f"damaged: {detail}; fetch it again")
    assert not any(c.find("failure") is not None for c in cases)
    # report text: the verdict, then the damage
    text = millaudit.run("report", "--audit", store, check=0).stdout.splitlines()
    assert text[1] == f"verdict: {headline}"
    i = text.index("Integrity")
    assert text[i + 1:i + 3] == [f"  {db}/MANIFEST.sha256: 1 of 7 files damaged, 6 as published",
                                 f"  damaged: std_1_2_2_1.mdb: {detail} (fetch again)"]
    assert i < text.index("Run") and i < text.index("Sectors (7)")
    # Markdown
    md = millaudit.run("report", "--audit", store, "--format", "md", check=0).stdout
    assert f"> **Verdict: {headline}**" in md
    assert md.index("## Integrity") < md.index("## Run")
    assert f"| std\\_1\\_2\\_2\\_1.mdb | {detail} | std\\_1\\_2\\_2\\_1 | fetch again |" in md
    # HTML: the banner says damaged, the damage comes before anything else
    html = millaudit.run("report", "--audit", store, "--format", "html", check=0).stdout
    assert 'class="verdict bad" data-state="damaged"' in html
    assert html.index('<section id="verdict"') < html.index('<section id="integrity"') < html.index("<nav>")
    assert 'data-kind="content-differs"><td>std_1_2_2_1.mdb</td>' in html
    # report JSON
    rep = json.loads(millaudit.run("report", "--audit", store, "--format", "json", check=0).stdout)
    validate_json("report", rep)
    assert list(rep)[:4] == ["schema_version", "format", "verdict", "integrity"]
    assert rep["verdict"]["state"] == "damaged" and rep["verdict"]["headline"] == headline
    assert rep["integrity"]["refetch"] == ["std_1_2_2_1.mdb"]
    assert rep["integrity"]["damaged"][0]["ranges"] == "0-2151"
    # --check exits as verify did
    assert millaudit.run("report", "--audit", store, "--check").returncode == 3


# ---- the three documents of one run agree on every count ----------------------------------------

def report_text_totals(text):
    """The total row of the text report's sector table (100 columns: entries, verified, in-bounds,
    discrep) and its verdict line."""
    lines = text.splitlines()
    row = next(line for line in lines if line.startswith("  total "))
    cols = row.split()
    num = [int(c.replace(",", "")) for c in cols[1:5]]
    keys = ["entries", "verified", "within_bounds", "discrepancies"]
    return dict(zip(keys, num)), lines[1][len("verdict: "):]


def verify_text_totals(text):
    """verify's two total lines: "total: N sectors (...), E entries, S s" and "[C checked, ]V verified,
    [B only within bounds, ]D discrepancies (R roots, P propagated)[, ...]" (a part absent is 0 or,
    for checked, every entry)."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("total: "))
    entries = re.search(r", ([\d,]+) entr(?:y|ies), ", lines[i]).group(1)
    second = lines[i + 1]

    def num(pattern, default):
        m = re.search(pattern, second)
        return int(m.group(1).replace(",", "")) if m else default

    n = int(entries.replace(",", ""))
    m = re.search(r"([\d,]+) discrepanc(?:y|ies) \(([\d,]+) roots?, ([\d,]+) propagated\)", second)
    return {"entries": n, "checked": num(r"([\d,]+) checked", n), "verified": num(r"([\d,]+) verified", 0),
            "within_bounds": num(r"([\d,]+) only within bounds", 0),
            "discrepancies": int(m.group(1).replace(",", "")), "roots": int(m.group(2).replace(",", "")),
            "propagated": int(m.group(3).replace(",", ""))}


@pytest.mark.parametrize("case", ["damaged", "within-bounds", "missing-child", "bad-encoding"])
def test_verify_and_report_agree_on_every_count(millaudit, world, tmp_path, case):
    """verify --json, verify's text, report --format json and the report's text of one run, field by
    field: within bounds and not verified are never mixed up (issue 44: the report said "within
    bounds only: 2 entries unproven" where verify counted "0 only within bounds, 2 unverifiable")."""
    family = "malom" if case == "within-bounds" else "open"
    db = shutil.copytree(world[family], tmp_path / "db")
    (db / "MANIFEST.sha256").unlink()
    if case == "damaged":
        damage(db, ".mdb", "flipped")
    elif case == "within-bounds":
        (db / "std_0_1_3_2.sec2").unlink()
    elif case == "missing-child":
        (db / "std_0_1_3_2.mdb").unlink()
    else:
        # a bad encoding the producer wrote (its own digest of it): a discrepancy of the child, and
        # the parent's entries that read it cannot be derived (not verified, not within bounds)
        f = db / "std_1_2_2_1.mdb"
        b = bytearray(f.read_bytes())
        for e in range(len(b[128:]) // 2):
            if b[128 + 2 * e:130 + 2 * e] != b"\0\0":
                b[128 + 2 * e:130 + 2 * e] = (0xC002).to_bytes(2, "little")  # "win 2": no win is even
        b[80:112] = hashlib.sha256(bytes(b[128:])).digest()
        f.write_bytes(bytes(b))
    store = tmp_path / "a.sqlite"
    vt = millaudit.run("verify", db, "--audit", store, "--quiet").stdout
    vj = json.loads(millaudit.run("verify", db, "--json").stdout)
    rj = json.loads(millaudit.run("report", "--audit", store, "--format", "json", check=0).stdout)
    rt, rverdict = report_text_totals(millaudit.run("report", "--audit", store, check=0).stdout)
    t, r = vj["totals"], rj["totals"]
    for k in ("sectors", "entries", "checked", "verified", "within_bounds", "discrepancies", "roots", "propagated",
              "missing_child", "unverifiable", "not_verified", "files_damaged", "sectors_damaged",
              "sectors_input_damaged", "body_digest_mismatches"):
        assert t[k] == r[k], k
    for k, v in verify_text_totals(vt).items():
        assert t[k] == v == rt.get(k, v), k
    assert set(rt) <= set(verify_text_totals(vt))
    assert r["not_verified"] == rj["verdict"]["not_verified"]
    assert rj["verdict"]["state"] == vj["verdict"]
    assert rj["verdict"]["within_bounds_only"] is (t["within_bounds"] > 0)
    assert rj["verdict"]["unproven"] == t["within_bounds"] + t["not_verified"]
    words = " ".join(rj["verdict"]["details"] + [rverdict])
    if case in ("missing-child", "bad-encoding"):
        assert t["within_bounds"] == 0 and t["not_verified"] > 0
        assert "within bounds" not in words
        assert f"{t['not_verified']:,} entr" in words and "not verified" in words
    if case == "within-bounds":
        assert t["within_bounds"] == 1 and t["not_verified"] == 0  # std_0_0_3_3's one entry
        assert "not verified" not in words
    if case == "damaged":
        assert rverdict == vj["integrity"]["headline"]


# ---- bad input -----------------------------------------------------------------------------------

def test_bad_references_are_one_line_and_documented_exits(millaudit, world, tmp_path):
    db = shutil.copytree(world["open"], tmp_path / "db")
    other = tmp_path / "other.pub"
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", tmp_path / "o.pem"], check=True,
                   capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", tmp_path / "o.pem", "-pubout", "-out", other], check=True,
                   capture_output=True)
    before = {p.name: sha(p) for p in db.iterdir()}
    cases = [
        (["--attestation", world["open-att"]], 2,
         "millaudit verify: --attestation needs --pub KEY.pem, the publisher's public key"),
        (["--manifest", tmp_path / "absent.sha256"], 3, None),
        (["--manifest", db / "MANIFEST.sha256", "--no-manifest"], 2,
         "millaudit verify: --manifest and --no-manifest exclude each other: one reference for the files"),
        (["--attestation", world["open-att"], "--pub", other], 3, None),
        (["--refetch-list", db / "MANIFEST.sha256"], 2, None),
    ]
    for extra, code, first in cases:
        proc = millaudit.run("verify", db, *extra)
        assert proc.returncode == code, (extra, proc.stderr)
        err = proc.stderr.splitlines()
        if first:
            assert err[0] == first
        assert len([e for e in err if not e.startswith("try ")]) == 1, err
        assert proc.stdout == ""
    assert "absent.sha256" in millaudit.run("verify", db, "--manifest", tmp_path / "absent.sha256").stderr
    assert "no signature verifies with the key" in millaudit.run(
        "verify", db, "--attestation", world["open-att"], "--pub", other).stderr
    (tmp_path / "bad.sha256").write_text("not a manifest line\n")
    proc = millaudit.run("verify", db, "--manifest", tmp_path / "bad.sha256", check=3)
    assert proc.stderr == (f"millaudit verify: {tmp_path}/bad.sha256: line 1: improperly formatted SHA-256 "
                           "checksum line: a manifest verify trusts must be well-formed\n")
    assert {p.name: sha(p) for p in db.iterdir()} == before
    # --no-manifest: the manifest present is not used, nothing is damaged
    millaudit.run("verify", db, "--no-manifest", check=0)
