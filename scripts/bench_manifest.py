"""`scripts/bench manifest`: manifest create on one large file at several chunk sizes, the current
build and a baseline side by side.

  scripts/bench manifest [--size-mib 256] [--chunks 64K,16K,4K] [--threads 2] [--runs 3]
                         [--baseline REV | --baseline-binary B] [--binary B] [--dir D]

One random file of --size-mib MiB is written once (in --dir, default a temporary directory, removed
afterwards); then for every chunk size the current build and the baseline run alternately (A B A
B ...) `--runs` times each, and the median wall time of each is printed with the ratio to the
64 KiB figure of the same build: the chunk scheduling is linear in chunks when the 4 KiB time stays
within a small factor of the 64 KiB one (issue 22: at most 2x). Not a test: nothing asserts on time.
"""
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def _run(binary, data, out, chunk, threads):
    t0 = time.monotonic()
    subprocess.run([binary, "manifest", "create", data, "--out", out, "--chunk-size", chunk,
                    "--threads", str(threads), "--quiet"], check=True)
    return time.monotonic() - t0


def _bench(args, build, root):
    current = args.binary or os.path.join(root, "build", "millaudit")
    tmp = tempfile.mkdtemp(prefix="bench-manifest-", dir=args.dir)
    wt = None
    try:
        baseline = args.baseline_binary
        if args.baseline and not baseline:
            wt = os.path.join(tmp, "baseline-src")
            subprocess.run(["git", "-C", root, "worktree", "add", "--detach", wt, args.baseline],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            baseline = build(wt, os.path.join(wt, "build"))
        data = os.path.join(tmp, "data")
        os.mkdir(data)
        with open(os.path.join(data, "big.mdb"), "wb") as f:
            for _ in range(args.size_mib):
                f.write(os.urandom(1 << 20))
        out = os.path.join(tmp, "MANIFEST.sha256")
        builds = [("current", current)] + ([("baseline", baseline)] if baseline else [])
        print(f"file {args.size_mib} MiB, {args.threads} threads, {args.runs} runs each, interleaved")
        print(f"{'chunk':>6} | " + " | ".join(f"{n:>8} s  x64K" for n, _ in builds))
        first = {}
        for chunk in args.chunks.split(","):
            times = {n: [] for n, _ in builds}
            for _ in range(args.runs):
                for n, b in builds:
                    times[n].append(_run(b, data, out, chunk, args.threads))
            cells = []
            for n, _ in builds:
                med = statistics.median(times[n])
                first.setdefault(n, med)
                cells.append(f"{med:>10.2f} {med / first[n]:>5.1f}")
            print(f"{chunk:>6} | " + " | ".join(cells), flush=True)
    finally:
        if wt:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def register(sub, build, root):
    m = sub.add_parser("manifest", help="manifest create at several chunk sizes, against a baseline")
    m.add_argument("--size-mib", type=int, default=256)
    m.add_argument("--chunks", default="64K,16K,4K")
    m.add_argument("--threads", type=int, default=2)
    m.add_argument("--runs", type=int, default=3)
    m.add_argument("--baseline", metavar="REV", help="git revision to build and run side by side")
    m.add_argument("--baseline-binary", metavar="PATH", help="a built baseline millaudit instead of REV")
    m.add_argument("--binary", metavar="PATH", help="the current millaudit (default build/millaudit)")
    m.add_argument("--dir", metavar="D", help="where the data file is written (default: a temporary directory)")
    m.set_defaults(run=lambda a: _bench(a, build, root))
