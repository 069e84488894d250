#!/bin/sh
# Throughput of `millaudit manifest create` against sha256sum and openssl on the same file.
#
#   scripts/bench_sha.sh [SIZE_MIB] [THREADS]      (defaults: 1024 MiB, all CPUs)
#
# MILLAUDIT_BIN selects the binary (default build/millaudit). The file is created in /tmp, read
# once so every tool sees a warm page cache, timed three times per tool (best run reported), and
# deleted on exit. millaudit computes the whole-file digest and the 16 MiB chunk digests.
set -eu
size_mib=${1:-1024}
threads=${2:-}
bin=${MILLAUDIT_BIN:-$(dirname "$0")/../build/millaudit}
[ -x "$bin" ] || { echo "bench_sha: $bin not built" >&2; exit 2; }

work=$(mktemp -d /tmp/ma_bench_sha.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/db"
head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$work/db/data.bin"
cat "$work/db/data.bin" > /dev/null

now() { date +%s.%N; }
best() { # best of three wall times of "$@"
    b=""
    for _ in 1 2 3; do
        t0=$(now); "$@" > /dev/null; t1=$(now)
        t=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
    done
    echo "$b"
}
report() { printf '%-44s %7.2f s  %8.1f MiB/s\n' "$1" "$2" "$(echo "$size_mib / $2" | bc -l)"; }

echo "file: $size_mib MiB, $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg), $(openssl version | cut -d" " -f1-2)"
targs=""
[ -n "$threads" ] && targs="--threads $threads"
# shellcheck disable=SC2086
report "millaudit manifest create ${targs:-(all threads)}" \
    "$(best "$bin" manifest create "$work/db" --quiet --out "$work/M.sha256" $targs)"
report "millaudit manifest create --threads 1" \
    "$(best "$bin" manifest create "$work/db" --quiet --out "$work/M.sha256" --threads 1)"
report "sha256sum" "$(best sha256sum "$work/db/data.bin")"
report "openssl dgst -sha256" "$(best openssl dgst -sha256 "$work/db/data.bin")"
# The three must agree, or the figures mean nothing.
a=$(cut -c1-64 "$work/M.sha256"); b=$(sha256sum "$work/db/data.bin" | cut -c1-64)
[ "$a" = "$b" ] || { echo "bench_sha: digests differ: $a vs $b" >&2; exit 1; }
echo "digests agree: $a"
