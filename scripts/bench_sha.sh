#!/bin/sh
# Throughput of `millaudit manifest create` against sha256sum and openssl on the same data.
#
#   scripts/bench_sha.sh [SIZE_MIB] [THREADS] [FILES]   (defaults: 1024 MiB, all CPUs, 1 file)
#
# FILES > 1 splits SIZE_MIB over that many files (a directory of many sectors); openssl and
# sha256sum then get all of them in one invocation. MILLAUDIT_BIN selects the binary (default
# build/millaudit); BASELINE_BIN, when set, is timed the same way, interleaved. The data is created
# in /tmp, read once so every tool sees a warm page cache, timed three times per tool in turn
# (A B A B ...; the best run of each is reported) and deleted on exit. millaudit computes the
# whole-file digests and the 16 MiB chunk digests.
set -eu
size_mib=${1:-1024}
threads=${2:-}
files=${3:-1}
bin=${MILLAUDIT_BIN:-$(dirname "$0")/../build/millaudit}
base=${BASELINE_BIN:-}
[ -x "$bin" ] || { echo "bench_sha: $bin not built" >&2; exit 2; }

work=$(mktemp -d /tmp/ma_bench_sha.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/db"
per=$((size_mib * 1024 * 1024 / files))
i=0
while [ "$i" -lt "$files" ]; do
    head -c "$per" /dev/urandom > "$work/db/data$i.bin"
    i=$((i + 1))
done
cat "$work"/db/* > /dev/null

now() { date +%s.%N; }
targs=""
[ -n "$threads" ] && targs="--threads $threads"
# one timed run of tool number $1
run() {
    case $1 in
    # shellcheck disable=SC2086
    0) "$bin" manifest create "$work/db" --quiet --out "$work/M.sha256" $targs ;;
    # shellcheck disable=SC2086
    1) "$base" manifest create "$work/db" --quiet --out "$work/B.sha256" $targs ;;
    2) sha256sum "$work"/db/* ;;
    3) openssl dgst -sha256 "$work"/db/* ;;
    esac > /dev/null
}
tools="0 2 3"
[ -n "$base" ] && tools="0 1 2 3"
best0="" best1="" best2="" best3=""
for _ in 1 2 3; do
    for t in $tools; do
        t0=$(now); run "$t"; t1=$(now)
        d=$(echo "$t1 - $t0" | bc -l)
        eval "b=\${best$t}"
        if [ -z "$b" ] || [ "$(echo "$d < $b" | bc -l)" = 1 ]; then eval "best$t=$d"; fi
    done
done
report() { printf '%-48s %7.2f s  %8.1f MiB/s\n' "$1" "$2" "$(echo "$size_mib / $2" | bc -l)"; }

echo "data: $size_mib MiB in $files file(s), $(nproc) CPUs, load $(cut -d" " -f1-3 /proc/loadavg), $(openssl version | cut -d" " -f1-2)"
report "millaudit manifest create ${targs:-(all threads)}" "$best0"
[ -n "$base" ] && report "baseline manifest create ${targs:-(all threads)}" "$best1"
report "sha256sum" "$best2"
report "openssl dgst -sha256" "$best3"
printf 'openssl / millaudit: %.2f\n' "$(echo "$best3 / $best0" | bc -l)"
# The tools must agree, or the figures mean nothing.
a=$(cut -c1-64 "$work/M.sha256" | sort | tr -d '\n'); b=$(sha256sum "$work"/db/* | cut -c1-64 | sort | tr -d '\n')
[ "$a" = "$b" ] || { echo "bench_sha: digests differ" >&2; exit 1; }
echo "digests agree"
