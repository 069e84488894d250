"""`scripts/bench malom`: the Malom-format checker, a build against a baseline revision side by side.

  scripts/bench malom [--data DIR] [--sectors 4_4_0_0,5_4_0_0] [--threads 1,2] [--runs 3]
                      [--baseline REV | --baseline-binary B] [--binary B]

For every sector file of DIR (`std_<S>.sec` or `.sec2`; --sectors picks some, default all of them
in size order) and every thread count, runs `millaudit verify DIR --sector S --threads T --json`
with the current build and the baseline alternately (A B A B ...), `--runs` times each, and prints
per sector and thread count: entries, the median wall time of the whole process (start-up, file
validation and the check, as Malom's own figures are measured), M entries/s over that wall time,
the median check time the sector reports, the CPU seconds of the process (user + system; on a
loaded machine the steadier figure, single-threaded about the wall time of an idle machine), peak
RSS, and the ratios current/baseline of wall and CPU time.
DIR defaults to /work/bench-malom/sec (the benchmark set of `.sec` files up
to 5_5_0_0; `.sec2` STONE_DIFF ones are in /work/bench-malom/sec2) when it exists, else the
std-strong fixtures. The load average is printed with the table: on a shared machine only ratios of
interleaved runs mean something.

Malom itself, side by side (issue 25): with MALOM_BIN (its legacy `.sec` build, `malom-legacy` of
../shared/bench/malom), MALOM_SD_BIN (`malom-sd`, STONE_DIFF `.sec2`), MALOM_ULTRA_BIN
(`malom-ultra`, `.sec2` with a `std.secval` beside the files) and MALOM_AUX (the kit's aux
directory with `std.movegen`) set, Malom's own `W B WF BF -verify` runs in the same rotation
(baseline, current, Malom, ...) on the same files, one thread (Malom's verifier has no threads);
its CPU seconds, peak RSS and Malom CPU / current CPU are printed beside ours, and for 2 threads
the scaling (current wall with 1 thread / with 2). Malom CPU / current CPU is given twice: as the
ratio of the two medians, and as "paired", the median over rotations of the ratio within one
rotation, where Malom runs right after our 1-thread run (the same reasoning as for scaling below:
a phase of the machine slows both runs of a rotation alike).

Scaling is taken per rotation: every rotation runs each thread count once, so the 1-thread and the
T-thread run it compares are minutes, not a whole block of runs, apart (the speed of a shared
machine changes in phases longer than one run), and the printed figure is the median of the
rotations' ratios. Beside it, the machine's own ceiling: in the same rotation, T independent
1-thread processes of the current build on the same sector at once; "T procs" is T x (wall of one
alone) / (wall of the T together), which is T on a machine whose cores do not slow each other
down. Threads cannot scale past what independent processes get. After the table, "scaling against the
machine" sets the two side by side for each T > 1, against the target 0.95 T (1.9 for 2 threads,
issue 25): on how many sectors each median reaches it, and over every rotation of every sector,
how often ours reaches it in the rotations where the T processes did and where they did not, with
the median of ours minus theirs; without MALOM_* and a baseline only our runs are made, so more
rotations fit in the same time. A `.sec2` directory holding `std.secval` is run
with MALOM_ULTRA_BIN, any other with MALOM_SD_BIN. --data may name several directories
(comma-separated), so one run gives the whole table.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time



def _run_rss(binary, data, sector, threads):
    """One whole process: (wall s, check s, entries, peak RSS KiB, CPU s; rusage from wait4)."""
    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "verify", data, "--sector", sector, "--threads", str(threads),
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"bench malom: {binary} verify {data} --sector {sector} exited {proc.returncode}")
    doc = json.loads(out)
    s = [x for x in doc["sectors"] if x["sector"].endswith(sector)][0]
    if s["verified"] != s["entries"]:
        sys.exit(f"bench malom: {sector} does not verify completely with {binary}")
    return wall, s["seconds"], s["entries"], ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def _run_copies(binary, data, sector, copies):
    """`copies` independent 1-thread checks of one sector started together: the wall time until
    the last one ends."""
    t0 = time.monotonic()
    procs = [subprocess.Popen([binary, "verify", data, "--sector", sector, "--threads", "1", "--json"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(copies)]
    for proc in procs:
        if proc.wait() != 0:
            sys.exit(f"bench malom: {binary} verify {data} --sector {sector} exited {proc.returncode}")
    return time.monotonic() - t0


def _run_malom(binary, aux, data, sector):
    """Malom's own verifier on one sector: (wall s, CPU s, peak RSS KiB). It writes log files into
    the sector's directory, so that must be writable."""
    t0 = time.monotonic()
    env = dict(os.environ, MALOM_AUX_DIR=aux)
    proc = subprocess.Popen([binary, *sector.split("_"), "-verify"], cwd=data, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0 or b"Verification OK" not in out:
        sys.exit(f"bench malom: {binary} {sector} -verify in {data} failed")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def _malom_binary(data, fmt):
    """The Malom build for the files of data (environment, see the module doc), or None."""
    if fmt == "sec":
        name = "MALOM_BIN"
    elif os.path.exists(os.path.join(data, "std.secval")):
        name = "MALOM_ULTRA_BIN"
    else:
        name = "MALOM_SD_BIN"
    b = os.environ.get(name)
    return (b, name) if b and os.environ.get("MALOM_AUX") else (None, name)


def _sectors(data, wanted):
    found = []
    for name in os.listdir(data):
        for ext in (".sec2", ".sec"):
            if name.endswith(ext) and name.count("_") == 4:
                sector = name[name.index("_") + 1:-len(ext)]
                found.append((os.path.getsize(os.path.join(data, name)), sector, ext[1:]))
    found.sort()
    if wanted:
        keep = wanted.split(",")
        found = [f for f in found if f[1] in keep]
        missing = set(keep) - {f[1] for f in found}
        if missing:
            sys.exit(f"bench malom: no sector file for {', '.join(sorted(missing))} in {data}")
    return [(s, fmt) for _, s, fmt in found]


def scaling_summary(pairs):
    """Prints, per thread count T > 1, our scaling beside the T independent processes' (see the
    module doc). pairs[T]: [(sector label, [(ours, T procs) per rotation])]."""
    for threads, rows in sorted(pairs.items()):
        target = 0.95 * threads
        ours_med = [statistics.median(o for o, _ in rot) for _, rot in rows]
        procs_med = [statistics.median(p for _, p in rot) for _, rot in rows]
        every = [pair for _, rot in rows for pair in rot]
        could = [o for o, p in every if p >= target]
        could_not = [o for o, p in every if p < target]
        print(f"scaling against the machine, {threads} threads, target {target:.2f}: "
              f"medians reach it on {sum(m >= target for m in ours_med)} of {len(rows)} sectors "
              f"(ours), {sum(m >= target for m in procs_med)} of {len(rows)} ({threads} procs); "
              f"rotations where the {threads} procs reached it: ours too in "
              f"{sum(o >= target for o in could)} of {len(could)}; where they did not: ours in "
              f"{sum(o >= target for o in could_not)} of {len(could_not)}; median ours - procs "
              f"{statistics.median(o - p for o, p in every):+.3f} over {len(every)} rotations")
        for (label, _), o, p in zip(rows, ours_med, procs_med):
            if o < target:
                print(f"  below {target:.2f}: {label} ours {o:.2f}, {threads} procs {p:.2f}")


def cmd_malom(args, build, root):
    default = os.path.join(root, "..", "shared", "fixtures", "malom", "std-strong")
    for d in ("/work/bench-malom/sec", "/work/bench-malom"):
        if os.path.isdir(d) and any(n.endswith((".sec", ".sec2")) for n in os.listdir(d)):
            default = d
            break
    datas = [os.path.abspath(d) for d in (args.data or default).split(",")]
    current = args.binary or build(root, os.path.join(root, "build-bench"))
    wt = None
    baseline = args.baseline_binary
    try:
        if args.baseline and not baseline:
            wt = tempfile.mkdtemp(prefix="ma_bench_malom_")
            subprocess.run(["git", "-C", root, "worktree", "add", "--detach", wt, args.baseline],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            baseline = build(wt, os.path.join(wt, "build"))
        load = open("/proc/loadavg").read().split()[:3]
        print(f"data {','.join(datas)}; current {current}; baseline {baseline or '-'}; "
              f"{args.runs} interleaved runs each, medians; CPU s = user + system of the whole "
              f"process; load average {' '.join(load)}")
        head = (f"{'sector':>9} {'fmt':>4} {'entries':>11} {'thr':>3} | {'baseline s':>10} {'CPU s':>6} "
                f"{'RSS MiB':>7} | {'current s':>9} {'M/s':>6} {'CPU s':>6} {'RSS MiB':>7} "
                f"{'check s':>7} | {'cur/base':>8} {'CPU':>5} | {'Malom CPU':>9} {'RSS MiB':>7} "
                f"{'Malom/cur CPU':>13} {'paired':>6} | {'1thr/Tthr':>9} {'T procs':>7}")
        print(head)
        # per thread count > 1: (sector, [(ours, T procs) per rotation]) for scaling_summary
        pairs = {}
        for data in datas:
            for sector, fmt in _sectors(data, args.sectors):
                malom, _ = _malom_binary(data, fmt)
                counts = [int(t) for t in args.threads.split(",")]
                cur = {t: [] for t in counts}
                base = {t: [] for t in counts}
                copies = {t: [] for t in counts}
                mal = []
                for _ in range(args.runs):
                    for threads in counts:
                        if baseline:
                            base[threads].append(_run_rss(baseline, data, sector, threads))
                        cur[threads].append(_run_rss(current, data, sector, threads))
                        if malom and threads == 1:
                            mal.append(_run_malom(malom, os.environ["MALOM_AUX"], data, sector))
                        if threads > 1 and 1 in counts:
                            copies[threads].append(_run_copies(current, data, sector, threads))
                for threads in counts:
                    c, b = cur[threads], base[threads]
                    n = c[0][2]
                    cw = statistics.median(r[0] for r in c)
                    cc = statistics.median(r[1] for r in c)
                    ccpu = statistics.median(r[4] for r in c)
                    crss = max(r[3] for r in c) / 1024
                    kind = fmt if fmt == "sec" else ("sv2" if os.path.exists(
                        os.path.join(data, "std.secval")) else "sd2")
                    line = f"{sector:>9} {kind:>4} {n:>11,} {threads:>3} | "
                    if b:
                        bw = statistics.median(r[0] for r in b)
                        bcpu = statistics.median(r[4] for r in b)
                        brss = max(r[3] for r in b) / 1024
                        line += f"{bw:>10.2f} {bcpu:>6.2f} {brss:>7.0f} | "
                    else:
                        line += f"{'-':>10} {'-':>6} {'-':>7} | "
                    line += f"{cw:>9.2f} {n / cw / 1e6:>6.2f} {ccpu:>6.2f} {crss:>7.0f} {cc:>7.2f} | "
                    line += f"{cw / bw:>8.2f} {ccpu / bcpu:>5.2f} | " if b else f"{'-':>8} {'-':>5} | "
                    if mal and threads == 1:
                        mcpu = statistics.median(r[1] for r in mal)
                        mrss = max(r[2] for r in mal) / 1024
                        paired = statistics.median(m[1] / r[4] for m, r in zip(mal, c))
                        line += f"{mcpu:>9.2f} {mrss:>7.0f} {mcpu / ccpu:>13.2f} {paired:>6.2f} | "
                    else:
                        line += f"{'-':>9} {'-':>7} {'-':>13} {'-':>6} | "
                    if threads > 1 and copies[threads]:
                        one = [r[0] for r in cur[1]]
                        rot = [(w1 / r[0], threads * w1 / w) for w1, r, w in zip(one, c, copies[threads])]
                        scaling = statistics.median(o for o, _ in rot)
                        ceiling = statistics.median(p for _, p in rot)
                        line += f"{scaling:>9.2f} {ceiling:>7.2f}"
                        pairs.setdefault(threads, []).append((f"{sector} {kind}", rot))
                    else:
                        line += f"{'-':>9} {'-':>7}"
                    print(line, flush=True)
        scaling_summary(pairs)
    finally:
        if wt:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(wt, ignore_errors=True)


def register(sub, build, root):
    """Adds the `malom` subcommand to scripts/bench's parser."""
    m = sub.add_parser("malom", help="Malom-format checker against a baseline, per sector and thread count")
    m.add_argument("--data", metavar="DIR", help="directory of Malom sector files, or several comma-separated "
                   "(default /work/bench-malom or the std-strong fixtures)")
    m.add_argument("--sectors", help="comma-separated sectors (default every sector file of DIR)")
    m.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    m.add_argument("--runs", type=int, default=3, help="interleaved runs per build (median; default 3)")
    m.add_argument("--baseline", metavar="REV", help="git revision to build and run side by side")
    m.add_argument("--baseline-binary", metavar="PATH", help="a built baseline millaudit instead of REV")
    m.add_argument("--binary", metavar="PATH", help="millaudit to time instead of building build-bench/")
    m.set_defaults(run=lambda a: cmd_malom(a, build, root))
