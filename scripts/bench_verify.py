"""`scripts/bench verify`: throughput of the independent checker.

  scripts/bench verify [--variant std] [--sector 5_5_0_0] [--data DIR] [--threads 1,2] [--binary B]
                       [--baseline REV | --baseline-binary B] [--runs N]

Builds the release binary (build-bench/), makes sure DIR holds the sector and everything it
depends on (solving them with `millaudit solve --with-deps` when absent; DIR defaults to
/tmp/ma_bench_verify_<variant>_<sector> and is kept for the next run), then verifies only that
sector once per thread count and prints entries/s from the sector's own timing (the check pass,
without process start-up), the wall time, and the CPU seconds the run used: on a shared machine
entries per CPU second is the figure that does not depend on the neighbours' load.
--binary times a given millaudit instead of building one (e.g. an older build, for before/after).

With --baseline REV (built in a temporary git worktree) or --baseline-binary, the baseline and the
current build run alternately (baseline, current, per thread count, --runs rotations), and each
thread count ends with the medians of both and the ratios current/baseline: of the medians, and
"paired", the median over rotations of the ratio within one rotation (a phase of a shared machine
slows both runs of a rotation alike). Ratios below 1 mean the current build is faster.
"""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def _cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run_once(binary, data, sector, threads):
    """One verify of the sector: (check s, wall s, CPU s, entries)."""
    cpu0, t0 = _cpu_children(), time.monotonic()
    proc = subprocess.run([binary, "verify", data, "--sector", sector, "--threads", str(threads),
                           "--json"], capture_output=True, text=True)
    wall, cpu = time.monotonic() - t0, _cpu_children() - cpu0
    if proc.returncode != 0:
        sys.exit(f"bench: verify exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    doc = json.loads(proc.stdout)["sectors"][0]
    assert doc["verified"] == doc["entries"], "bench data does not verify"
    return doc["seconds"], wall, cpu, doc["entries"]


def _side_by_side(binary, baseline, data, sector, threads, runs):
    cur, base = [], []
    for _ in range(runs):
        base.append(_run_once(baseline, data, sector, threads))
        cur.append(_run_once(binary, data, sector, threads))
    n = cur[0][3]
    for name, rows in (("baseline", base), ("current", cur)):
        secs = statistics.median(r[0] for r in rows)
        print(f"threads {threads} {name:>8}: median check {secs:.2f} s = {n / secs / 1e6:.2f} M entries/s, "
              f"wall {statistics.median(r[1] for r in rows):.2f} s, "
              f"CPU {statistics.median(r[2] for r in rows):.2f} s (over {runs})")
    ratios = []
    for i, label in ((0, "check"), (1, "wall"), (2, "CPU")):
        of_medians = statistics.median(r[i] for r in cur) / statistics.median(r[i] for r in base)
        paired = statistics.median(c[i] / b[i] for c, b in zip(cur, base))
        ratios.append(f"{label} {of_medians:.3f} (paired {paired:.3f})")
    print(f"threads {threads} current/baseline: " + ", ".join(ratios), flush=True)


def cmd_verify(args, build, root):
    binary = args.binary or build(root, os.path.join(root, "build-bench"))
    data = args.data or f"/tmp/ma_bench_verify_{args.variant}_{args.sector}"
    os.makedirs(data, exist_ok=True)
    target = os.path.join(data, f"{args.variant}_{args.sector}.mdb")
    if not os.path.exists(target):
        print(f"solving {args.variant} {args.sector} with dependencies into {data} ...", flush=True)
        subprocess.run([binary, "solve", "--variant", args.variant, "--sector", args.sector,
                        "--with-deps", "--out", data, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    wt, baseline = None, args.baseline_binary
    try:
        if args.baseline and not baseline:
            wt = tempfile.mkdtemp(prefix="ma_bench_verify_")
            subprocess.run(["git", "-C", root, "worktree", "add", "--detach", wt, args.baseline],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            baseline = build(wt, os.path.join(wt, "build"))
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        print(f"job: verify {args.variant}_{args.sector} (children in {data}) with {binary}"
              + (f" against {baseline}, {args.runs} rotations" if baseline else "")
              + f"; load average {load}")
        for threads in [int(t) for t in args.threads.split(",")]:
            if baseline:
                _side_by_side(binary, baseline, data, args.sector, threads, args.runs)
                continue
            secs, wall, cpu, n = _run_once(binary, data, args.sector, threads)
            print(f"threads {threads}: {n} entries in {secs:.1f} s: {n / secs / 1e6:.2f} M entries/s "
                  f"(wall {wall:.1f} s, {cpu:.1f} CPU s = {n / cpu / 1e6:.2f} M entries per CPU s)")
    finally:
        if wt:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(wt, ignore_errors=True)


def register(sub, build, root):
    """Adds the `verify` subcommand to scripts/bench's parser."""
    v = sub.add_parser("verify", help="time the checker on one sector (children solved on demand)")
    v.add_argument("--variant", default="std")
    v.add_argument("--sector", default="5_5_0_0")
    v.add_argument("--data", metavar="DIR", help="directory with the sector and its children")
    v.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    v.add_argument("--binary", metavar="PATH", help="millaudit to time instead of building build-bench/")
    v.add_argument("--baseline", metavar="REV", help="git revision to build and run side by side")
    v.add_argument("--baseline-binary", metavar="PATH", help="a built baseline millaudit instead of REV")
    v.add_argument("--runs", type=int, default=3, help="rotations with a baseline (medians; default 3)")
    v.set_defaults(run=lambda a: cmd_verify(a, build, root))
