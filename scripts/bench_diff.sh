#!/usr/bin/env bash
# Benchmark of `millaudit diff` against `millaudit verify` on std 5_5_0_0 (docs/diff.md).
#
#   scripts/bench_diff.sh [WORK_DIR]      (MILLAUDIT_BIN selects the binary, default build/millaudit)
#
# Solves std 5_5_0_0 with its dependencies into WORK_DIR/a (reused when present), copies it to
# WORK_DIR/b, changes one entry of the copy, then times:
#   diff            the two directories (digest check skips the identical sectors; 5_5_0_0 compared)
#   diff --full     the same, every sector compared position by position
#   diff open/sec   5_5_0_0 .mdb against itself with --full (the position path on the largest sector)
#   verify          `millaudit verify a --sector 5_5_0_0`
# Wall times are printed side by side. Nothing is asserted: this is a measurement.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${MILLAUDIT_BIN:-$ROOT/build/millaudit}
WORK=${1:-$(mktemp -d /tmp/bench_diff.XXXXXX)}
mkdir -p "$WORK/a"
"$BIN" solve --variant std --sector 5_5_0_0 --with-deps --out "$WORK/a" --quiet >/dev/null
rm -rf "$WORK/b"
cp -r "$WORK/a" "$WORK/b"
python3 "$ROOT/scripts/inject_fault.py" "$WORK/b/std_5_5_0_0.mdb" --entry 12345 --depth-delta +1 >/dev/null ||
python3 "$ROOT/scripts/inject_fault.py" "$WORK/b/std_5_5_0_0.mdb" --entry 12345 --outcome win --depth 1 >/dev/null

timed() { # label, then the command; prints label, seconds and exit status
    local label=$1; shift
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || rc=$?
    t1=$(date +%s.%N)
    printf '%-44s %8.2f s  (exit %d)\n' "$label" "$(echo "$t1 - $t0" | bc)" "$rc"
}
echo "binary: $BIN   work: $WORK   sectors: $(ls "$WORK/a" | grep -c '\.mdb$')   cpus: $(nproc)"
echo "std_5_5_0_0.mdb: $(stat -c %s "$WORK/a/std_5_5_0_0.mdb") bytes"
timed "diff a b (digests, 5_5_0_0 by position)" "$BIN" diff "$WORK/a" "$WORK/b" --quiet
timed "diff a b --sector 5_5_0_0" "$BIN" diff "$WORK/a" "$WORK/b" --sector 5_5_0_0 --quiet
timed "diff a b --sector 5_5_0_0 --full" "$BIN" diff "$WORK/a" "$WORK/b" --sector 5_5_0_0 --full --quiet
timed "diff a b --full (all sectors)" "$BIN" diff "$WORK/a" "$WORK/b" --full --quiet
timed "verify a --sector 5_5_0_0" "$BIN" verify "$WORK/a" --sector 5_5_0_0 --quiet
