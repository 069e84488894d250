#!/usr/bin/env python3
"""Writes the seed corpora of the open-format, manifest and run-import fuzzers into
fuzz/corpus/{open,manifest,run_import}/ (the Malom seeds are make_corpus.py's).

    python3 fuzz/make_corpus_inputs.py [MILLAUDIT_BINARY]

open: the small sectors of a solved 3-stone game (written by `millaudit solve`), and one file per
header field of docs/format.md §5.1 with that field wrong, truncated and extended bodies.
manifest: every line form sha256sum -c reads (two blanks, '*', one blank, a tab, BSD tags,
escaped names, CRLF, comments) and the refused ones (absolute, '..', malformed).
run_import: `runs export` documents of a verify run with discrepancies and of a manifest run, and
broken variants of them. Files named found_* are fuzzer finds merged later; left alone here.
"""
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "scripts"))
import mkopen  # noqa: E402

BIN = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "millaudit")


def out(name, fname, data):
    d = HERE / "corpus" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / fname).write_bytes(data if isinstance(data, bytes) else data.encode())


def run(*args, **kw):
    return subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, **kw)


def open_seeds(tmp):
    db = tmp / "s3"
    run("solve", "--variant", "std", "--stones", "3", "--out", db, "--quiet", check=True)
    for n in ("std_0_0_3_3", "std_0_1_3_2", "std_1_1_2_2", "std_1_2_2_1"):
        out("open", f"valid_{n}", (db / f"{n}.mdb").read_bytes())
    good = (db / "std_0_1_3_2.mdb").read_bytes()
    for field, at, val in (("magic", 1, 0x4E), ("format_version", 8, 2), ("header_size", 10, 64),
                           ("variant", 12, 4), ("rule_flags", 13, 1), ("sector", 14, 25),
                           ("entry_width", 18, 3), ("value_encoding", 19, 2), ("index_scheme", 20, 2),
                           ("index_scheme_version", 22, 2), ("entry_count", 24, 25), ("reserved", 100, 1)):
        b = bytearray(good)
        b[at] = val
        out("open", f"bad_{field}", bytes(b))
    out("open", "truncated_header", good[:100])
    out("open", "truncated_body", good[:150])
    out("open", "trailing_bytes", good + b"\0\0")
    out("open", "empty", b"")
    out("open", "bad_encoding", good[:128] + struct.pack("<H", 0xC002) + good[130:])
    out("open", "valid_lask_0_1_3_2", mkopen.build("lask", "0_1_3_2", {0: ("loss", 2)}))
    out("open", "valid_mora_1_1_2_2", mkopen.build("mora", "1_1_2_2", {0: "draw"}))


def manifest_seeds():
    h = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
    out("manifest", "sha256sum_default", f"{h}  a.mdb\n{h}  sub/b.mdb\n")
    out("manifest", "forms", f"{h} *bin.mdb\n{h} one-blank\n{h}\ttab\n  {h}  leading\n{h.upper()}  upper\n")
    out("manifest", "paths_dot_slash", f"{h}  ./x.mdb\n{h}  a//b.mdb\n{h}  a/./b/\n{h}  ./\n")
    out("manifest", "bsd_tags", f"SHA256 (x.mdb) = {h}\nSHA256 (a) = b) = {h}\n\\SHA256 (n\\\\l) = {h}\n")
    out("manifest", "escaped", f"\\{h}  back\\\\slash\n\\{h}  new\\nline\n\\{h}  bad\\qescape\n")
    out("manifest", "crlf_comments", f"# made by hand\r\n\r\n{h}  x\r\n#{h}  commented\n")
    out("manifest", "malformed", f"not a line\n{h[:-1]}  short\n{h}  \n{h}\n{h}x name\n")
    out("manifest", "absolute", f"{h}  ok\n{h}  /etc/passwd\n")
    out("manifest", "climbing", f"{h}  ok\n{h}  sub/../../x\n")
    out("manifest", "nul_byte", f"{h}  a\0b\n".encode())
    out("manifest", "empty", b"")


def run_import_seeds(tmp):
    db = tmp / "s3"
    small = tmp / "small"
    small.mkdir()
    for n in ("std_0_0_3_3", "std_0_1_3_2", "std_1_1_2_2"):
        shutil.copy(db / f"{n}.mdb", small)
    # a planted fault: entry 1 of 0_1_3_2 (the second word) made a win in 1
    p = small / "std_0_1_3_2.mdb"
    b = bytearray(p.read_bytes())
    words = [struct.unpack_from("<H", b, 128 + 2 * i)[0] for i in range(24)]
    i = next(i for i, w in enumerate(words) if w)
    struct.pack_into("<H", b, 128 + 2 * i, 0xC001)
    p.write_bytes(bytes(b))
    store = tmp / "runs.sqlite"
    run("verify", small, "--sector", "0_1_3_2", "--audit", store)
    run("manifest", "create", small, "--audit", store, "--chunk-size", "64", "--quiet", check=True)
    v = run("runs", "export", "--audit", store, "--run", "1", check=True).stdout
    m = run("runs", "export", "--audit", store, "--run", "2", check=True).stdout
    out("run_import", "valid_verify", v)
    out("run_import", "valid_manifest", m)
    doc = json.loads(v)
    for name, edit in (("bad_version", lambda d: d.update(version=2)),
                       ("bad_format", lambda d: d.update(format="other")),
                       ("unknown_key", lambda d: d.update(extra=1)),
                       ("negative_count", lambda d: d["run"]["sectors"][0].update(entries=-1)
                        if d.get("run", {}).get("sectors") else d.update(version=-1))):
        d = json.loads(json.dumps(doc))
        try:
            edit(d)
        except (KeyError, IndexError, TypeError):
            d["version"] = "x"
        out("run_import", name, json.dumps(d))
    out("run_import", "truncated", v[: len(v) // 2])
    out("run_import", "not_json", "millaudit-run\n")
    out("run_import", "empty", b"")


def main():
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        open_seeds(tmp)
        manifest_seeds()
        run_import_seeds(tmp)


if __name__ == "__main__":
    main()
