#!/bin/sh
# Writes the benchmark set for the Malom checker with the reference producer:
#   DIR/sec    std movement sectors 3_3_0_0 .. 5_5_0_0 as legacy .sec (5_5_0_0 with its 8
#              dependencies: 3_3, 3_4, 4_3, 3_5, 5_3, 4_4, 4_5, 5_4), 67.3 M entries
#   DIR/sec2   std 4_4_0_0 and 3_5_0_0 with their dependencies as .sec2 STONE_DIFF (6 sectors)
#   DIR/open   the producer's own solution (open format) both are written from
# Every file is checked by `millaudit verify` afterwards (unless --no-verify).
# usage: scripts/mkbench_malom.sh [DIR (default /work/bench-malom)] [--no-verify]
# Environment: MILLAUDIT (default build/millaudit of this tree).
# Re-running reuses valid files (solve and export skip them), so an interrupted run resumes.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${MILLAUDIT:-$here/build/millaudit}
dir=/work/bench-malom
verify=1
for a in "$@"; do
    case $a in
    --no-verify) verify=0 ;;
    -*) echo "usage: $0 [DIR] [--no-verify]" >&2; exit 2 ;;
    *) dir=$a ;;
    esac
done
[ -x "$bin" ] || { echo "$bin: not built (cmake --build build)" >&2; exit 2; }
mkdir -p "$dir"
nice -n 5 "$bin" solve --variant std --sector 5_5_0_0 --with-deps --format malom-sec \
    --out "$dir/sec" --open-dir "$dir/open" --quiet
nice -n 5 "$bin" solve --variant std --sector 4_4_0_0 --sector 3_5_0_0 --with-deps \
    --format malom-sec2 --out "$dir/sec2" --open-dir "$dir/open" --quiet
if [ "$verify" = 1 ]; then
    nice -n 5 "$bin" verify "$dir/sec" --quiet
    nice -n 5 "$bin" verify "$dir/sec2" --quiet
fi
ls -l "$dir/sec" "$dir/sec2"
