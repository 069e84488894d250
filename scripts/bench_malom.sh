#!/bin/sh
# Malom checker throughput, before vs after: entries/s of `millaudit verify --sector S` with 1 and
# 2 threads on the three std-strong sectors and original-excerpt std_3_3_0_0.sec2.
# usage: scripts/bench_malom.sh [BASE_REV (default eb35469, the tree before mover-part reuse)] [AFTER_BIN (default build-malomperf)]
# Builds BASE_REV in a temporary git worktree under /tmp, runs both side by side, removes it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
base_rev=${1:-eb35469}
after_bin=${2:-$here/build-malomperf/millaudit}
fx=/work/shared/fixtures/malom
wt=$(mktemp -d /tmp/malombench.XXXXXX)
cleanup() { git -C "$here" worktree remove --force "$wt/src" >/dev/null 2>&1 || true; rm -rf "$wt"; }
trap cleanup EXIT INT TERM
git -C "$here" worktree add --detach "$wt/src" "$base_rev" >/dev/null 2>&1
cmake -S "$wt/src" -B "$wt/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$wt/build" -j2 --target millaudit >/dev/null
before_bin=$wt/build/millaudit

# entries/s as verify reports it for the sector (its own timer: excludes process start-up).
rate() { # bin dir sector threads -> M entries/s
    "$1" verify "$2" --sector "$3" --threads "$4" --json 2>/dev/null |
        python3 -c 'import json,sys; s=json.load(sys.stdin)["sectors"][0]; assert s["status"]=="ok", s; print("%.3f" % (s["entries"]/s["seconds"]/1e6))'
}
printf '%-28s %7s %14s %14s %7s\n' sector threads before_Me/s after_Me/s speedup
for spec in std-strong:std_3_3_0_0 std-strong:std_4_3_0_0 std-strong:std_3_4_0_0 original-excerpt:std_3_3_0_0; do
    dir=$fx/${spec%%:*} sec=${spec#*:}
    for th in 1 2; do
        b=$(rate "$before_bin" "$dir" "$sec" "$th")
        a=$(rate "$after_bin" "$dir" "$sec" "$th")
        python3 -c "print('%-28s %7d %14.2f %14.2f %6.2fx' % ('${spec%%:*}/$sec', $th, $b, $a, $a/$b))"
    done
done
