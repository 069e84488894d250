"""The committed fuzz corpora, replayed without clang.

fuzz/replay.c drives a libFuzzer harness (fuzz/fuzz_<reader>.c) from a plain main(). Each harness
is compiled with the system C compiler against the code of the normal ASan/UBSan build (the static
libraries beside MILLAUDIT_ASAN_BIN) and fed every file of fuzz/corpus/<reader>/: a crash, an
out-of-bounds read, undefined behaviour, a leak or a broken invariant in the harness fails the test.
Readers: the Malom .sec2/.sec/.secval readers, the open-format reader, the manifest parser, the
run import and the attestation envelope parser (docs/robustness.md).
"""
import os
import pathlib
import shutil
import subprocess

import pytest

from conftest import FIXTURES, ROOT, need_fixture, skip_unless

READERS = ("sec2", "sec", "secval", "open", "manifest", "run_import", "attest")
# static libraries of the ASan build each harness needs (dependents first; the folder of each under
# the build tree) and system libraries
LIB_DIRS = {"formats": "verifier/formats", "store": "reports/store"}
LIBS = {
    "sec2": ["formats", "indexer", "checksums", "common"], "sec": ["formats", "indexer", "checksums", "common"],
    "secval": ["formats", "indexer", "checksums", "common"], "open": ["formats", "indexer", "checksums", "common"],
    "manifest": ["checksums", "common"], "run_import": ["store", "common"],
    "attest": ["store", "checksums", "store", "formats", "indexer", "checksums", "common"],
}
# where each library's folder lies in the tree (and the build), by the design card's top level
FOLDERS = {"formats": "verifier/formats", "store": "reports/store"}
SYSLIBS = ["-lsqlite3", "-ljansson", "-lcrypto", "-lpthread", "-lm"]
CORPUS = ROOT / "fuzz" / "corpus"
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]


def _cc():
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return name
    skip_unless(False, "no C compiler found to build the corpus replay")


def _libs(asan_bin, reader="sec2"):
    build = pathlib.Path(asan_bin.path).parent
    libs = [build / LIB_DIRS.get(name, name) / f"libma_{name}.a" for name in LIBS[reader]]
    for lib in libs:
        assert lib.exists(), f"{lib} missing: build the ASan tree first"
    return [str(lib) for lib in libs] + SYSLIBS


def _build(tmp_path, harness, libs):
    exe = tmp_path / f"replay_{harness.stem}"
    # the build tree: the nearest folder above a library that holds the generated headers
    build = next((d for x in libs if x.endswith(".a") for d in pathlib.Path(x).parents
                  if (d / "generated").is_dir()), ROOT / "build-asan")
    cmd = [_cc(), "-std=c11", "-g", *SANITIZE, "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
           "-I", str(ROOT), "-I", str(ROOT / "include"), "-I", str(build / "generated"), "-o", str(exe),
           str(ROOT / "fuzz" / "replay.c"),
           str(harness), *libs]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"building {exe.name} failed:\n{proc.stderr[-4000:]}"
    return exe


def _replay(exe, files):
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    # the .sec2 seeds decode through the .secval files: without them that decoding would be
    # silently left out, so their absence is a skip (a failure in CI) like any fixture's
    env["MA_MALOM_SECVAL_DIR"] = str(need_fixture(FIXTURES / "malom" / "original-excerpt", "Malom .secval files"))
    return subprocess.run([str(exe), *map(str, files)], capture_output=True, text=True, env=env,
                          timeout=600)


def test_corpus_is_small_and_has_every_kind_of_seed():
    total = sum(p.stat().st_size for p in CORPUS.rglob("*") if p.is_file())
    assert total < 1 << 20, f"fuzz corpus is {total} bytes; keep it under 1 MB"
    for reader in READERS:
        names = {p.name for p in (CORPUS / reader).iterdir()}
        if reader != "manifest":
            assert any(n.startswith("valid_") for n in names), reader
            assert any("truncated" in n for n in names), reader
    assert {"bad_" + f for f in ("magic", "format_version", "header_size", "variant", "rule_flags", "sector",
                                 "entry_width", "value_encoding", "index_scheme", "index_scheme_version",
                                 "entry_count", "reserved")} <= {p.name for p in (CORPUS / "open").iterdir()}
    assert {"paths_dot_slash", "bsd_tags", "escaped", "crlf_comments", "malformed", "absolute",
            "climbing"} <= {p.name for p in (CORPUS / "manifest").iterdir()}
    assert any(n.startswith("overflow_") for n in os.listdir(CORPUS / "sec2"))
    assert any(n.startswith("bad_") for n in os.listdir(CORPUS / "sec2"))
    assert any(n.startswith("overflow_") for n in os.listdir(CORPUS / "sec"))


@pytest.mark.parametrize("reader", READERS)
def test_corpus_replays_cleanly_under_asan(reader, tmp_path, millaudit_asan):
    exe = _build(tmp_path, ROOT / "fuzz" / f"fuzz_{reader}.c", _libs(millaudit_asan, reader))
    files = sorted(p for p in (CORPUS / reader).iterdir() if p.is_file())
    assert files, f"no corpus for {reader}"
    proc = _replay(exe, files)
    assert proc.returncode == 0, f"{reader} replay failed:\n{proc.stderr[-6000:]}"
    assert f"replayed {len(files)} files" in proc.stdout
    assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr


def test_replay_fails_on_a_harness_that_reads_out_of_bounds(tmp_path, millaudit_asan):
    """The replay must be able to fail: a harness that reads one byte past its input."""
    bad = tmp_path / "fuzz_bad.c"
    bad.write_text(
        "#include <stdint.h>\n#include <stddef.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) {\n"
        "  uint8_t *c = malloc(n); memcpy(c, d, n); volatile uint8_t x = c[n]; (void)x;\n"
        "  free(c); return 0; }\n")
    exe = _build(tmp_path, bad, _libs(millaudit_asan))
    proc = _replay(exe, [CORPUS / "sec" / "valid_std_0_0_9_9"])
    assert proc.returncode != 0
    assert "AddressSanitizer" in proc.stderr


def test_every_libfuzzer_harness_still_links(tmp_path):
    """fuzz/build.sh names each harness's sources by hand, and those lists rotted twice as code
    moved (a harness stopped linking and nobody saw, because fuzzing is not part of a run of the
    suite): build every harness with clang's libFuzzer, link-only flags, and run each once on an
    empty input (libFuzzer's -runs=0 replays nothing and exits 0 only when the harness starts)."""
    skip_unless(shutil.which("clang"), "clang (libFuzzer) not found to build the fuzz harnesses")
    out = tmp_path / "fuzz"
    proc = subprocess.run([str(ROOT / "fuzz" / "build.sh"), str(out)], capture_output=True, text=True,
                          env=dict(os.environ, FUZZ_LINK_ONLY="1", CC="clang"), timeout=900)
    assert proc.returncode == 0, f"fuzz/build.sh failed:\n{proc.stderr[-4000:]}"
    for reader in READERS:
        exe = out / f"fuzz_{reader}"
        assert exe.exists(), f"{exe} not built"
        run = subprocess.run([str(exe), "-runs=0"], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, f"{exe.name} -runs=0 failed:\n{run.stderr[-2000:]}"
