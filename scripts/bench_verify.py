"""`scripts/bench verify`: throughput of the independent checker.

  scripts/bench verify [--variant std] [--sector 5_5_0_0] [--data DIR] [--threads 1,2] [--binary B]

Builds the release binary (build-bench/), makes sure DIR holds the sector and everything it
depends on (solving them with `millaudit solve --with-deps` when absent; DIR defaults to
/tmp/ma_bench_verify_<variant>_<sector> and is kept for the next run), then verifies only that
sector once per thread count and prints entries/s from the sector's own timing (the check pass,
without process start-up), the wall time, and the CPU seconds the run used: on a shared machine
entries per CPU second is the figure that does not depend on the neighbours' load.
--binary times a given millaudit instead of building one (e.g. an older build, for before/after).
"""
import json
import os
import resource
import subprocess
import sys
import time


def _cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cmd_verify(args, build, root):
    binary = args.binary or build(root, os.path.join(root, "build-bench"))
    data = args.data or f"/tmp/ma_bench_verify_{args.variant}_{args.sector}"
    os.makedirs(data, exist_ok=True)
    target = os.path.join(data, f"{args.variant}_{args.sector}.mdb")
    if not os.path.exists(target):
        print(f"solving {args.variant} {args.sector} with dependencies into {data} ...", flush=True)
        subprocess.run([binary, "solve", "--variant", args.variant, "--sector", args.sector,
                        "--with-deps", "--out", data, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    print(f"job: verify {args.variant}_{args.sector} (children in {data}) with {binary}")
    for threads in [int(t) for t in args.threads.split(",")]:
        cpu0, t0 = _cpu_children(), time.monotonic()
        proc = subprocess.run([binary, "verify", data, "--sector", args.sector, "--threads", str(threads),
                               "--json"], capture_output=True, text=True)
        wall, cpu = time.monotonic() - t0, _cpu_children() - cpu0
        if proc.returncode != 0:
            sys.exit(f"bench: verify exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        sector = json.loads(proc.stdout)["sectors"][0]
        n, secs = sector["entries"], sector["seconds"]
        assert sector["verified"] == n, "bench data does not verify"
        print(f"threads {threads}: {n} entries in {secs:.1f} s: {n / secs / 1e6:.2f} M entries/s "
              f"(wall {wall:.1f} s, {cpu:.1f} CPU s = {n / cpu / 1e6:.2f} M entries per CPU s)")


def register(sub, build, root):
    """Adds the `verify` subcommand to scripts/bench's parser."""
    v = sub.add_parser("verify", help="time the checker on one sector (children solved on demand)")
    v.add_argument("--variant", default="std")
    v.add_argument("--sector", default="5_5_0_0")
    v.add_argument("--data", metavar="DIR", help="directory with the sector and its children")
    v.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    v.add_argument("--binary", metavar="PATH", help="millaudit to time instead of building build-bench/")
    v.set_defaults(run=lambda a: cmd_verify(a, build, root))
