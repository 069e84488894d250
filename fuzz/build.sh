#!/bin/sh
# Builds the libFuzzer harnesses with clang (Debian: clang, libclang-rt-14-dev) and, with
# `run SECONDS`, runs each on its committed corpus for that long.
#
#   fuzz/build.sh [OUT_DIR]                       build every harness into OUT_DIR
#   fuzz/build.sh OUT_DIR run SECONDS [NAME...]   ... then fuzz each (or the NAMEs) for SECONDS
#                                                 (new finds go to OUT_DIR/new/<name>/, crashes to
#                                                 OUT_DIR/crash-*)
#
# Harnesses: sec2, sec, secval (Malom readers), open (open-format reader), manifest (manifest
# parser), run_import (runs import), attest (attestation envelopes and statements; its seeds come
# from fuzz/make_corpus_attest.py). Crashers worth keeping are minimised and copied into
# fuzz/corpus/<name>/ by hand; every corpus is replayed without clang by
# tests/integration/test_fuzz_corpus.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-"$root/build-fuzz"}
mkdir -p "$out/gen"
CC=${CC:-clang}
# FUZZ_LINK_ONLY=1: no sanitizers, no optimisation, only what proves every harness still links
# (tests/integration/test_fuzz_corpus.py builds that way: the source lists below rot when code moves)
if [ -n "${FUZZ_LINK_ONLY:-}" ]; then san="-O0 -fsanitize=fuzzer"; else san="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"; fi
flags="-std=c11 $san
       -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I$root -I$root/include -I$out/gen"
# The version header the reports code includes, as CMake would generate it.
sed -e 's/@MA_VERSION@/fuzz/; s/@MA_GIT_REVISION@/fuzz/; s/@PROJECT_VERSION@/fuzz/' \
    "$root/common/version.h.in" > "$out/gen/ma_version.h"
common="$root/common/ma_error.c $root/common/fileio.c $root/common/counts.c"
# the readers can read a file privately, hashed as read (verify's units within the copy budget)
private="$root/checksums/private_read.c $root/common/huge_alloc.c"
malom="$common $private $root/indexer/colex.c $root/indexer/malom_index.c $root/verifier/formats/malom_file.c $root/verifier/formats/malom_secval.c"
open="$common $private $root/indexer/colex.c $root/indexer/open_index.c $root/indexer/position.c $root/verifier/formats/open_file.c $root/verifier/formats/value.c
      $root/checksums/sha256.c"
store="$common $root/common/json_text.c $root/common/verdict.c $root/reports/store/audit.c $root/reports/store/audit_internal.c
       $root/reports/store/audit_manifest.c $root/reports/store/runs.c $root/reports/store/audit_run.c $root/reports/store/audit_game.c
       $root/reports/store/audit_merge.c $root/reports/store/audit_inventory.c $root/reports/store/audit_seal.c
       $root/reports/store/audit_integrity.c"
# checksums/ is a leaf: the manifest parser needs common/ alone
manifest="$common $root/common/output.c $root/checksums/manifest.c $root/checksums/published.c $root/checksums/sha256.c"
# the statement parser lives beside the report loader it builds statements with
attest="$store $root/reports/store/attest_statement.c $root/reports/store/report.c $root/reports/store/report_box.c $root/reports/store/history.c
        $root/checksums/dsse.c $root/checksums/sha256.c"
all="sec2 sec secval open manifest run_import attest"
for name in $all; do
    case $name in
    sec2|sec|secval) srcs="$malom $root/checksums/sha256.c"; libs="-lcrypto -lpthread -lm" ;;
    open) srcs=$open; libs="-lcrypto -lpthread -lm" ;;
    manifest) srcs=$manifest; libs="-lcrypto -lpthread" ;;
    run_import) srcs=$store; libs="-lsqlite3 -ljansson -lm" ;;
    attest) srcs=$attest; libs="-lsqlite3 -ljansson -lcrypto -lpthread -lm" ;;
    esac
    # shellcheck disable=SC2086
    $CC $flags -o "$out/fuzz_$name" "$here/fuzz_$name.c" $srcs $libs
done
echo "built: $(for n in $all; do printf '%s ' "$out/fuzz_$n"; done)"

if [ "${2:-}" = run ]; then
    secs=${3:-60}
    shift 3 2>/dev/null || shift $#
    names=${*:-$all}
    export MA_MALOM_SECVAL_DIR="${MA_MALOM_SECVAL_DIR:-$root/../shared/fixtures/malom/original-excerpt}"
    for name in $names; do
        mkdir -p "$out/new/$name"
        max=4096
        case $name in secval) max=65536 ;; sec2) max=32768 ;; open) max=8192 ;; run_import|attest) max=16384 ;; esac
        (cd "$out" && "./fuzz_$name" -max_total_time="$secs" -max_len="$max" -print_final_stats=1 \
            "$out/new/$name" "$here/corpus/$name") 2>&1 | tail -n 25
    done
fi
