"""`scripts/bench solve` and `scripts/bench scale`: the reference producer's speed and growth.

  scripts/bench solve [--variant std] [--sector 5_5_0_0] [--threads 1,2] [--baseline REV]
                      [--repeat 3] [--binary PATH] [--format malom-sec|malom-sec2 [--secval FILE]]

`solve` builds the release binary (build-bench/), solves the sector with everything it depends on
into a temporary directory once per thread count and repetition, and prints medians of wall time,
CPU time, entries/s and peak RSS, and the speed-up of every thread count over 1 thread. With
--baseline REV it also builds git revision REV in a temporary worktree and runs it side by side,
interleaved (base, current, base, current, ...), so that other load hits both alike; a baseline
without --threads runs single-threaded only. The files of every run are compared (SHA-256 of the
bodies): a thread count or a revision that changes a value is reported.

With --format malom-sec or malom-sec2 (and --secval FILE for Malom's published layout) every
round runs, per binary and thread count, the open solve and the Malom solve of the same sectors
from scratch, side by side, and prints what writing the Malom files adds: the Malom run's wall
and CPU time over the open run's, and per component (a sector, or a twin pair solved together) the
seconds its Malom lines report (reading the children's files, ranking the draws, writing) over the
seconds the open run took to solve it, against the target 0.5, with the Malom run's own solve
seconds beside them; for a .sec2, where the line says so, the draw ranking's seconds and the
same ratio without them. Every binary and thread count must write byte-identical Malom files.

  scripts/bench scale [--games std3,std4,std5,std6] [--threads 1,2] [--out-root DIR] [--keep]
                      [--no-verify] [--json FILE] [--binary PATH]
                      [--format malom-sec|malom-sec2 [--secval FILE]]

`scale` solves whole games (a game is <variant><stones>, e.g. std7, lask5) with each thread count
and verifies each with `millaudit verify --threads N`, then prints per game: sectors, entries,
bytes on disk, solve and verify wall time, entries/s, peak RSS (from /usr/bin/time -v, else
getrusage), start value, whether every thread count wrote identical files; then a least-squares
fit of time and memory against entries (log-log) and an estimate for larger games. Outputs go to
--out-root (default: a temporary directory, removed unless --keep); the 7-stone game needs ~7 GB
there and takes hours on 2 cores, so it runs only when asked for. A game may also be one sector
with everything it depends on, `<variant>@<sector>`: `std@7_7_0_0` is the standard game's movement
phase up to 7 stones a side. With --format the games are written in Malom's format (the open files
go to OUT/open) and verified as such; "on disk" is then the Malom files.

Load averages are printed with every figure: on a shared machine wall times depend on the
neighbours; ratios of interleaved runs and CPU seconds are the steadier figures.
"""
import hashlib
import json
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TIMER = "/usr/bin/time"
# the producer's lines write counts as every output does (common/counts.h): "1 entry", "1,234 entries"
LINE = re.compile(r"^(\S+): ([\d,]+) entr(?:y|ies), (?:([\d,]+) canonical|skipped)", re.M)
START = re.compile(r"^start \S+: (.+)$", re.M)


def load():
    return "load %.1f/%.1f/%.1f" % os.getloadavg()


def timed(cmd, **kw):
    """Runs cmd; returns (proc, wall seconds, CPU seconds, peak RSS in KiB)."""
    start = time.monotonic()
    if os.access(TIMER, os.X_OK):
        proc = subprocess.run([TIMER, "-v", *cmd], capture_output=True, text=True, **kw)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        rss = int(m.group(1)) if m else -1
        cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", proc.stderr))
    else:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = after.ru_maxrss  # the largest child so far: an upper bound
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return proc, time.monotonic() - start, cpu, rss


def body_digests(directory):
    """SHA-256 of every file's body (the header holds the producer version and the digest), and of
    every Malom file whole."""
    out = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith((".sec", ".sec2")):
            h = hashlib.sha256()
            with open(os.path.join(directory, name), "rb") as f:
                for chunk in iter(lambda: f.read(1 << 22), b""):
                    h.update(chunk)
            out[name] = h.hexdigest()
        if name.endswith(".mdb"):
            h = hashlib.sha256()
            with open(os.path.join(directory, name), "rb") as f:
                f.seek(128)
                for chunk in iter(lambda: f.read(1 << 22), b""):
                    h.update(chunk)
            out[name] = h.hexdigest()
    return out


def supports_threads(binary):
    return "--threads" in subprocess.run([binary, "solve", "--help"], capture_output=True,
                                         text=True).stdout


SOLVED = re.compile(r"^(\S+): [\d,]+ entr(?:y|ies), [\d,]+ canonical, .*, ([\d.]+) s$", re.M)
# builds from a9a7f94 on say apart how much of a .sec2's seconds ranked its draws
WRITTEN = re.compile(r"^(\S+)\.sec2?: [\d,]+ entr(?:y|ies), [\d,]+ markers?, .*, ([\d.]+) s"
                     r"(?: \(draws ranked in ([\d.]+) s\))?$", re.M)


def solve_once(binary, args, out, threads):
    # not --quiet: the per-sector lines (and a Malom run's per-file lines) are what the per-sector
    # figures are read from; --quiet prints none of them
    cmd = [binary, "solve", *args, "--out", out]
    if threads:
        cmd += ["--threads", str(threads)]
    proc, wall, cpu, rss = timed(cmd)
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    rows = LINE.findall(proc.stdout)
    entries = sum(int(r[1].replace(",", "")) for r in rows)
    start = START.search(proc.stdout)
    written = WRITTEN.findall(proc.stdout)
    return {"wall": wall, "cpu": cpu, "rss_kb": rss, "entries": entries, "sectors": len(rows),
            "start": start.group(1) if start else None,
            "solved": {m[0]: float(m[1]) for m in SOLVED.findall(proc.stdout)},
            "written": {m[0]: float(m[1]) for m in written},
            "ranked": {m[0]: float(m[2]) for m in written if m[2]}}


# ---- solve ----------------------------------------------------------------------------------

def rotations(args, binaries, threads):
    """(round, label, binary, threads) in the interleaved order: every binary and thread count once
    per round, so a slow phase of the machine hits all of them alike."""
    for rnd in range(args.repeat):
        for label, binary in binaries:
            for t in threads:
                if t == 1 or supports_threads(binary):
                    yield rnd, label, binary, t


def cmd_solve(args, build, root):
    current = args.binary or build(root, os.path.join(root, "build-bench"))
    binaries = [("current", current)]
    wt = None
    if args.baseline_binary:
        binaries.insert(0, (f"baseline {args.baseline_binary}", args.baseline_binary))
    elif args.baseline:
        wt = tempfile.mkdtemp(prefix="ma_bench_wt_")
        subprocess.run(["git", "-C", root, "worktree", "add", "--detach", wt, args.baseline], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        binaries.insert(0, (f"baseline {args.baseline}", build(wt, os.path.join(wt, "build"))))
    threads = [int(t) for t in args.threads.split(",")]
    job = ["--variant", args.variant, "--sector", args.sector, "--with-deps"]
    if args.format != "open":
        cmd_solve_malom(args, binaries, threads, job, wt, root)
        return
    print(f"job: solve {args.variant} {args.sector} with dependencies; threads {threads}; "
          f"{args.repeat} rounds, interleaved; {load()}", flush=True)
    results, digests = {}, {}
    try:
        for rnd, label, binary, t in rotations(args, binaries, threads):
            out = tempfile.mkdtemp(prefix="ma_bench_solve_")
            try:
                r = solve_once(binary, job, out, t if supports_threads(binary) else 0)
                d = body_digests(out)
            finally:
                shutil.rmtree(out, ignore_errors=True)
            results.setdefault((label, t), []).append(r)
            digests[(label, t)] = d
            print(f"  round {rnd + 1} {label} threads {t}: wall {r['wall']:.1f} s, CPU "
                  f"{r['cpu']:.1f} s, peak RSS {r['rss_kb'] / 1024:.0f} MiB ({load()})", flush=True)
    finally:
        if wt:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(wt, ignore_errors=True)
    med = {}
    for key, rs in results.items():
        m = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss_kb")}
        m["entries"], m["sectors"] = rs[0]["entries"], rs[0]["sectors"]
        med[key] = m
        print(f"{key[0]}, threads {key[1]}: {m['sectors']} sectors, {m['entries']} entries; median "
              f"wall {m['wall']:.1f} s ({m['entries'] / m['wall'] / 1e6:.2f} M entries/s), CPU "
              f"{m['cpu']:.1f} s ({m['entries'] / m['cpu'] / 1e6:.2f} M entries per CPU s), peak RSS "
              f"{m['rss_kb'] / 1024:.0f} MiB")
    ref = next(iter(digests.values()))
    same = all(d == ref for d in digests.values())
    print(f"files identical across every run: {'yes' if same else 'NO'}")
    cur1 = med.get(("current", 1))
    for t in threads:
        if t != 1 and ("current", t) in med and cur1:
            print(f"speed-up current threads {t} / threads 1: wall {cur1['wall'] / med[('current', t)]['wall']:.2f}x")
    if args.baseline and cur1 and (binaries[0][0], 1) in med:
        base = med[(binaries[0][0], 1)]
        print(f"current / baseline, 1 thread: wall {cur1['wall'] / base['wall']:.2f}, CPU "
              f"{cur1['cpu'] / base['cpu']:.2f}, entries/s {base['wall'] / cur1['wall']:.2f}x, peak RSS "
              f"{cur1['rss_kb'] / max(base['rss_kb'], 1):.2f}")
    print(f"({load()}; wall time is shared with whatever else runs: compare the interleaved ratios)")
    if not same:
        sys.exit(1)


def cmd_solve_malom(args, binaries, threads, job, wt, root):
    """The open solve and the Malom solve side by side: what writing the Malom files adds."""
    malom = ["--format", args.format] + (["--secval", os.path.abspath(args.secval)] if args.secval else [])
    print(f"job: solve {args.variant} {args.sector} with dependencies, open and {args.format}"
          f"{' with ' + args.secval if args.secval else ''}; threads {threads}; {args.repeat} rounds, "
          f"interleaved; {load()}", flush=True)
    runs, digests = {}, {}
    try:
        for rnd, label, binary, t in rotations(args, binaries, threads):
            for kind in ("open", "malom"):
                out = tempfile.mkdtemp(prefix="ma_bench_solve_")
                try:
                    r = solve_once(binary, job + (malom if kind == "malom" else []), out,
                                   t if supports_threads(binary) else 0)
                    if kind == "malom":
                        digests[(label, t)] = body_digests(out)
                finally:
                    shutil.rmtree(out, ignore_errors=True)
                runs.setdefault((label, t, kind), []).append(r)
                print(f"  round {rnd + 1} {label} threads {t} {kind}: wall {r['wall']:.1f} s, "
                      f"CPU {r['cpu']:.1f} s, peak RSS {r['rss_kb'] / 1024:.0f} MiB ({load()})",
                      flush=True)
    finally:
        if wt:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(wt, ignore_errors=True)
    med = statistics.median
    print()
    print("| binary | threads | open wall s | open CPU s | malom wall s | malom CPU s | malom RSS MiB | "
          "(malom - open) / open, wall | CPU |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, _ in binaries:
        for t in threads:
            o, m = runs.get((label, t, "open")), runs.get((label, t, "malom"))
            if not o or not m:
                continue
            ow, oc, mw, mc = (med(r[k] for r in rs) for rs, k in ((o, "wall"), (o, "cpu"), (m, "wall"), (m, "cpu")))
            # the ratios per round (open and malom ran back to back), then their median
            rw = med((mr["wall"] - orr["wall"]) / orr["wall"] for orr, mr in zip(o, m))
            rc = med((mr["cpu"] - orr["cpu"]) / orr["cpu"] for orr, mr in zip(o, m))
            print(f"| {label} | {t} | {ow:.1f} | {oc:.1f} | {mw:.1f} | {mc:.1f} | "
                  f"{med(r['rss_kb'] for r in m) / 1024:.0f} | {rw:.2f} | {rc:.2f} |")
    print()
    print("per component (a sector, or a twin pair solved together), from the runs' own lines, "
          "medians over rounds: the open run's solve seconds, the Malom run's solve seconds, the "
          "seconds of its Malom lines (the children's files read, draws ranked, files written), "
          "and those over the open solve (target 0.5):")
    for label, _ in binaries:
        for t in threads:
            m, o = runs.get((label, t, "malom")), runs.get((label, t, "open"))
            if not m or not o or not m[0]["written"]:
                continue
            cells, worst, worst_rest, seen = [], 0.0, None, set()
            for name in m[0]["written"]:
                if name in seen:
                    continue
                v, w, b, wf, bf = name.split("_")
                twin = f"{v}_{b}_{w}_{bf}_{wf}"
                members = [name] + ([twin] if twin != name and twin in m[0]["written"] else [])
                seen.update(members)
                try:
                    opened = [r["solved"][name] for r in o]
                    solved = [r["solved"][name] for r in m]
                    written = [sum(r["written"][x] for x in members) for r in m]
                except KeyError:
                    continue
                ratio = med(w / max(s, 1e-3) for s, w in zip(opened, written))
                worst = max(worst, ratio)
                cell = (f"{'+'.join(members)} {med(opened):.2f} / {med(solved):.2f} / "
                        f"{med(written):.2f} = {ratio:.2f}")
                if all(x in r["ranked"] for r in m for x in members):
                    # the same ratio without the draw ranking: what reading the children's files
                    # and writing cost, apart from the analysis that ranks the draws
                    ranked = [sum(r["ranked"][x] for x in members) for r in m]
                    rest = med((w - k) / max(s, 1e-3) for s, w, k in zip(opened, written, ranked))
                    worst_rest = rest if worst_rest is None else max(worst_rest, rest)
                    cell += f" (ranking {med(ranked):.2f}; without it {rest:.2f})"
                cells.append(cell)
            print(f"  {label}, threads {t}: worst {worst:.2f}" +
                  (f"; without the ranking {worst_rest:.2f}" if worst_rest is not None else ""))
            for cell in cells:
                print(f"    {cell}")
    ref = next(iter(digests.values()))
    same = all(d == ref for d in digests.values())
    print(f"Malom files identical across every binary and thread count: {'yes' if same else 'NO'}")
    print(f"({load()}; wall time is shared with whatever else runs: compare the ratios of the same round)")
    if not same:
        sys.exit(1)


# ---- scale ----------------------------------------------------------------------------------

GAME = re.compile(r"^(std|lask|mora)(?:(\d+)|@(\d+_\d+_\d+_\d+))$")


def verify_once(binary, directory, threads):
    cmd = [binary, "verify", directory, "--threads", str(threads), "--json", "--quiet"]
    proc, wall, cpu, rss = timed(cmd)
    try:
        doc = json.loads(proc.stdout)
        total = doc.get("totals") or doc.get("total") or {}
    except ValueError:
        doc, total = None, {}
    return {"wall": wall, "cpu": cpu, "rss_kb": rss, "exit": proc.returncode,
            "discrepancies": total.get("discrepancies"), "verified": total.get("verified"),
            "stderr": proc.stderr[-500:]}


def disk_bytes(directory):
    return sum(os.path.getsize(os.path.join(directory, n)) for n in os.listdir(directory)
               if n.endswith((".mdb", ".sec", ".sec2")))


def disk_files(directory):
    return sum(1 for n in os.listdir(directory) if n.endswith((".mdb", ".sec", ".sec2")))


def fit(xs, ys):
    """Least squares of log y = log a + b log x; returns (a, b)."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.mean(lx), statistics.mean(ly)
    sxx = sum((x - mx) ** 2 for x in lx)
    b = sum((x - mx) * (y - my) for x, y in zip(lx, ly)) / sxx if sxx else 1.0
    return math.exp(my - b * mx), b


def cmd_scale(args, build, root):
    threads = [int(t) for t in args.threads.split(",")]
    if args.from_json:
        rows = []
        for path in args.from_json.split(","):
            with open(path) as f:
                for r in json.load(f):
                    r["solve"] = {int(k): v for k, v in r["solve"].items()}
                    r["verify"] = {int(k): v for k, v in r["verify"].items()}
                    rows.append(r)
        report(rows, threads)
        return
    binary = args.binary or build(root, os.path.join(root, "build-bench"))
    out_root = args.out_root or tempfile.mkdtemp(prefix="ma_bench_scale_")
    os.makedirs(out_root, exist_ok=True)
    print(f"bench scale: {binary}; games {args.games}; threads {threads}; outputs in {out_root}; "
          f"{os.cpu_count()} CPUs; {load()}", flush=True)
    rows = []
    try:
        for game in args.games.split(","):
            m = GAME.match(game)
            if not m:
                sys.exit(f"bench: bad game '{game}' (e.g. std5, lask5, std@7_7_0_0)")
            variant = m.group(1)
            if m.group(2):
                stones = int(m.group(2))
                job = ["--variant", variant, "--stones", str(stones)]
            else:
                stones = max(int(x) for x in m.group(3).split("_")[:2])
                job = ["--variant", variant, "--sector", m.group(3), "--with-deps"]
            if args.format != "open":
                job += ["--format", args.format]
                if args.secval:
                    job += ["--secval", os.path.abspath(args.secval)]
            row = {"game": game, "variant": variant, "stones": stones, "solve": {}, "verify": {},
                   "format": args.format}
            digests = {}
            for t in threads:
                out = os.path.join(out_root, f"{game}_t{t}")
                shutil.rmtree(out, ignore_errors=True)
                print(f"{game}: solving with {t} thread(s) into {out} ({load()})", flush=True)
                r = solve_once(binary, job, out, t)
                r["load_after"] = os.getloadavg()
                row["solve"][t] = r
                row.update(entries=r["entries"], sectors=r["sectors"], start=r["start"],
                           bytes=disk_bytes(out), files=disk_files(out))
                digests[t] = body_digests(out)
                print(f"  solved: {r['sectors']} sectors, {r['entries']} entries, wall {r['wall']:.1f} s, "
                      f"CPU {r['cpu']:.1f} s, peak RSS {r['rss_kb'] / 1024:.0f} MiB, start {r['start']} "
                      f"({load()})", flush=True)
                if not args.no_verify:
                    v = verify_once(binary, out, t)
                    row["verify"][t] = v
                    print(f"  verified with {t} thread(s): exit {v['exit']}, {v['verified']} entries, "
                          f"{v['discrepancies']} discrepancies, wall {v['wall']:.1f} s, CPU "
                          f"{v['cpu']:.1f} s, peak RSS {v['rss_kb'] / 1024:.0f} MiB ({load()})", flush=True)
                if not args.keep and t != threads[-1]:
                    shutil.rmtree(out, ignore_errors=True)
            row["identical"] = all(d == digests[threads[0]] for d in digests.values())
            rows.append(row)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(rows, f, indent=1, default=str)
    finally:
        if not args.keep and not args.out_root:
            shutil.rmtree(out_root, ignore_errors=True)
    report(rows, threads)
    if any(not r["identical"] for r in rows):
        sys.exit(1)


def report(rows, threads):
    print()
    head = ["game", "format", "sectors", "entries", "files", "MB on disk"]
    for t in threads:
        head += [f"solve {t}t s", f"CPU {t}t s", f"M entries/s {t}t", f"solve RSS {t}t MiB"]
    for t in threads:
        head += [f"verify {t}t s", f"verify CPU {t}t s", f"M entries/s {t}t", f"verify RSS {t}t MiB",
                 f"discr. {t}t"]
    head += ["same files", "start value"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [r["game"], r.get("format", "open"), str(r["sectors"]), str(r["entries"]),
                 str(r.get("files", "-")), f"{r['bytes'] / 1e6:.1f}"]
        for t in threads:
            s = r["solve"].get(t)
            cells += [f"{s['wall']:.1f}", f"{s['cpu']:.1f}", f"{r['entries'] / s['wall'] / 1e6:.2f}",
                      f"{s['rss_kb'] / 1024:.0f}"] if s else ["-", "-", "-", "-"]
        for t in threads:
            v = r["verify"].get(t)
            cells += [f"{v['wall']:.1f}", f"{v['cpu']:.1f}", f"{r['entries'] / v['wall'] / 1e6:.2f}",
                      f"{v['rss_kb'] / 1024:.0f}", str(v["discrepancies"])] \
                if v else ["-", "-", "-", "-", "-"]
        cells += ["yes" if r["identical"] else "NO", str(r["start"])]
        print("| " + " | ".join(cells) + " |")
    std = [r for r in rows if r["variant"] == "std" and r["entries"] > 1_000_000 and "@" not in r["game"]
           and r.get("format", "open") == "open"]
    if len(std) < 2:
        return
    print()
    for t in threads:
        pts = [(r["entries"], r["solve"][t]["wall"], r["solve"][t]["cpu"], r["solve"][t]["rss_kb"] * 1024)
               for r in std if t in r["solve"]]
        if len(pts) < 2:
            continue
        xs = [p[0] for p in pts]
        a, b = fit(xs, [p[1] for p in pts])
        ca, cb = fit(xs, [p[2] for p in pts])
        ra, rb = fit(xs, [p[3] for p in pts])
        print(f"fit, {t} thread(s), std games: solve wall ~ {a:.3g} * entries^{b:.2f} s; CPU ~ "
              f"{ca:.3g} * entries^{cb:.2f} s; peak RSS ~ {ra:.3g} * entries^{rb:.2f} bytes")
        for name, entries in (("std8", 11696198156), ("std9", 27860688626)):
            print(f"  extrapolated {name} ({entries:.3g} entries): wall {a * entries ** b / 3600:.1f} h with "
                  f"{t} thread(s) at this load, {ca * entries ** cb / 3600:.1f} CPU hours, peak RSS "
                  f"{ra * entries ** rb / 2 ** 30:.1f} GiB")


def register(sub, build, root):
    """Adds the `solve` and `scale` subcommands to scripts/bench's parser."""
    s = sub.add_parser("solve", help="time the reference producer on one sector and its dependencies")
    s.add_argument("--variant", default="std")
    s.add_argument("--sector", default="5_5_0_0")
    s.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    s.add_argument("--repeat", type=int, default=3, help="interleaved rounds (default 3; medians)")
    s.add_argument("--baseline", metavar="REV", help="also run git revision REV, interleaved")
    s.add_argument("--binary", metavar="PATH", help="millaudit to time instead of building build-bench/")
    s.add_argument("--baseline-binary", metavar="PATH", help="a baseline millaudit already built (instead of --baseline REV)")
    s.add_argument("--format", default="open", choices=("open", "malom-sec", "malom-sec2"),
                   help="with a Malom format: the open and the Malom solve side by side")
    s.add_argument("--secval", metavar="FILE", help="with malom-sec2: Malom's sector values (published layout)")
    s.set_defaults(run=lambda a: cmd_solve(a, build, root))
    c = sub.add_parser("scale", help="solve and verify whole games; growth of time and memory")
    c.add_argument("--games", default="std3,std4,std5,std6",
                   help="comma-separated games <variant><stones> (default std3,std4,std5,std6; std7 takes hours)")
    c.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    c.add_argument("--out-root", metavar="DIR", help="where the games are written (default: temporary)")
    c.add_argument("--keep", action="store_true", help="keep every output directory")
    c.add_argument("--no-verify", action="store_true", help="solve only")
    c.add_argument("--json", metavar="FILE", help="also write the figures as JSON (after every game)")
    c.add_argument("--binary", metavar="PATH", help="millaudit to run instead of building build-bench/")
    c.add_argument("--format", default="open", choices=("open", "malom-sec", "malom-sec2"),
                   help="write the games in Malom's format (the open files go to OUT/open)")
    c.add_argument("--secval", metavar="FILE", help="with malom-sec2: Malom's sector values")
    c.add_argument("--from-json", metavar="FILE[,FILE]",
                   help="print the table and fits of earlier runs' --json files instead of running")
    c.set_defaults(run=lambda a: cmd_scale(a, build, root))
