#!/bin/sh
# Builds the libFuzzer harnesses of the Malom readers with clang (libFuzzer ships with it) and,
# with `run SECONDS`, runs each on its committed corpus for that long.
#
#   fuzz/build.sh [OUT_DIR]                 build fuzz_sec2, fuzz_sec, fuzz_secval into OUT_DIR
#   fuzz/build.sh OUT_DIR run SECONDS       ... then fuzz each for SECONDS (new finds go to
#                                           OUT_DIR/new/<reader>/, crashes to OUT_DIR/crash-*)
#
# Crashers worth keeping are minimised and copied into fuzz/corpus/<reader>/ by hand; the corpus
# is replayed without clang by tests/integration/test_malom_fuzz_corpus.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-"$root/build-fuzz"}
mkdir -p "$out"
CC=${CC:-clang}
flags="-std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
       -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I$root"
lib="$root/common/ma_error.c $root/indexer/malom_index.c $root/formats/malom_file.c
     $root/formats/malom_secval.c"
for reader in sec2 sec secval; do
    # shellcheck disable=SC2086
    $CC $flags -o "$out/fuzz_$reader" "$here/fuzz_$reader.c" $lib
done
echo "built $out/fuzz_sec2 $out/fuzz_sec $out/fuzz_secval"

if [ "${2:-}" = run ]; then
    secs=${3:-60}
    export MA_MALOM_SECVAL_DIR="${MA_MALOM_SECVAL_DIR:-$root/../shared/fixtures/malom/original-excerpt}"
    for reader in sec2 sec secval; do
        mkdir -p "$out/new/$reader"
        max=4096
        [ "$reader" = secval ] && max=65536
        [ "$reader" = sec2 ] && max=32768
        (cd "$out" && "./fuzz_$reader" -max_total_time="$secs" -max_len="$max" -print_final_stats=1 \
            "$out/new/$reader" "$here/corpus/$reader") 2>&1 | tail -n 25
    done
fi
