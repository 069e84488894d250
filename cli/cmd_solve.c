/* millaudit solve: the reference producer's command line. Built twice: `millaudit` without the
 * planted-bug option, and the test-only `millaudit-planted` (MA_PLANT_BUGS) with it. */
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/counts.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/verdict.h"
#include "solver/solver.h"
#include "solver/svmalom.h"
#include "solver/svmalom_file.h"
#include "solver/svsector.h"

#define MAX_SECTORS 64

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit solve [--variant std|lask|mora] (--stones K | --sector S [--sector S ...]"
            " [--with-deps]) --out DIR [--threads N] [--memory-limit BYTES] [--quiet]\n"
            "       [--format open|malom-sec|malom-sec2] [--open-dir DIR] [--secval FILE]\n"
            "\n"
            "Solves sectors with the reference producer and writes open-format files (docs/format.md).\n"
            "  --variant V          std (9 stones, the default), lask (10), mora (12)\n"
            "  --stones K           the whole game from sector 0_0_K_K (every sector of its closure)\n"
            "  --sector S           one sector W_B_WF_BF (with its twin); its children must be in DIR\n"
            "  --with-deps          with --sector: first solve everything the sector depends on\n"
            "  --out DIR            output directory (a missing last component is created); files\n"
            "                       already there are reused when proven intact\n"
            "  -j, --threads N      worker threads, 1..%d (default: online CPUs); the files are the\n"
            "                       same for every N\n"
            "  --memory-limit BYTES memory the run may use (suffix K, M, G, T: powers of 1024;\n"
            "                       default: what the machine has available); a sector needing more\n"
            "                       is refused before anything is written (exit 4)\n"
            "  --format F           what --out receives: open (default, docs/format.md), malom-sec\n"
            "                       (Malom's legacy .sec) or malom-sec2 (Malom's .sec2, STONE_DIFF\n"
            "                       unless --secval); the values are the producer's own (docs/solver.md)\n"
            "  --open-dir D         with a malom format: where the producer's open files are solved\n"
            "                       and kept (default OUT/open)\n"
            "  --secval FILE        with malom-sec2: sector values from FILE (copied to\n"
            "                       OUT/<variant>.secval)\n"
            "  --quiet              no progress on stderr, no line per sector: only the start value\n"
            "                       of a whole game (--stones) and errors\n"
#ifdef MA_PLANT_BUGS
            "  --plant-bug N        for tests only: write deliberately wrong databases (docs/solver.md)\n"
#endif
            , MA_SOLVER_MAX_THREADS);
}

struct print_ctx {
    const char *variant;
    int quiet;      /* --quiet: no line per sector (the start value still closes a whole game) */
    int stop_after; /* the test build: raise stop_signal after this many sector reports (0: never) */
    int stop_signal;
    int reports;
};

static void print_report(void *ctx, const ma_solver_report *r)
{
    struct print_ctx *p = ctx;
    /* millaudit-planted only (MILLAUDIT_TEST_STOP_AFTER_SECTORS=K, MILLAUDIT_TEST_STOP_SIGNAL=TERM):
     * the signal arrives after the K-th finished sector, through the real handler, so a test stops
     * a solve at a known point instead of racing a signal against the run's speed */
    if (p->stop_after && ++p->reports == p->stop_after)
        raise(p->stop_signal);
    if (p->quiet)
        return;
    char name[32];
    ma_svsector_format(name, sizeof name, r->sector);
    if (r->skipped) {
        printf("%s_%s: %s, skipped (valid file exists)\n", p->variant, name, MA_COUNT(r->entries, "entry", "entries"));
    } else {
        char depth[48] = "all draws"; /* a sector without a win or a loss has no depth to speak of */
        if (r->stats.max_depth >= 0)
            snprintf(depth, sizeof depth, "max depth %d", r->stats.max_depth);
        printf("%s_%s: %s, %s canonical, wins %s, draws %s, losses %s, %s, %.2f s\n", p->variant, name,
               MA_COUNT(r->entries, "entry", "entries"), MA_NUM(r->stats.canonical), MA_NUM(r->stats.wins),
               MA_NUM(r->stats.draws), MA_NUM(r->stats.losses), depth, r->seconds);
    }
    fflush(stdout);
}

static void print_malom_report(void *ctx, const ma_svmalom_report *r)
{
    if (*(const int *)ctx) /* --quiet */
        return;
    if (r->skipped)
        printf("%s: %s, skipped (valid file exists)\n", r->file, MA_COUNT(r->entries, "entry", "entries"));
    else {
        /* a .sec2 says apart the draw ranking: an analysis of its own, not the writing */
        char ranked[48] = "";
        if (r->rank_seconds >= 0)
            snprintf(ranked, sizeof ranked, " (draws ranked in %.2f s)", r->rank_seconds);
        printf("%s: %s, %s, wins %s, draws %s (%s), losses %s, %s, %.2f s%s\n", r->file,
               MA_COUNT(r->entries, "entry", "entries"), MA_COUNT(r->markers, "marker", "markers"), MA_NUM(r->wins),
               MA_NUM(r->draws), MA_COUNT(r->counts, "count", "counts"), MA_NUM(r->losses),
               MA_COUNT(r->overflow, "overflow record", "overflow records"), r->seconds, ranked);
    }
    fflush(stdout);
}

static void print_note(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "millaudit solve: %s\n", line);
}

static void describe(char *buf, size_t n, uint16_t v)
{
    switch (v & 0xC000u) {
    case 0xC000u: snprintf(buf, n, "win in %u", v & 0x3FFFu); break;
    case 0x4000u: snprintf(buf, n, "loss in %u", v & 0x3FFFu); break;
    case 0x8000u: snprintf(buf, n, "draw"); break;
    default: snprintf(buf, n, "no value (0x%04x)", v); break;
    }
}

/* "123", "64M", "2G" (powers of 1024) -> bytes; 0 when malformed or zero. */
static uint64_t parse_bytes(const char *text)
{
    if (!isdigit((unsigned char)*text))
        return 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: return 0;
    }
    if (*end && end[1] != '\0')
        return 0;
    if (v > (UINT64_MAX >> shift))
        return 0;
    return (uint64_t)v << shift;
}

/* The signal that asked us to stop, 0 if none; the solver polls it (as an atomic int). */
static atomic_int stop_signal;

static void on_signal(int sig)
{
    atomic_store(&stop_signal, sig);
}

/* A command-line mistake: ma_opt_error's two lines on stderr, and its result MA_EUSAGE. */
#define USAGE_ERROR(...) ma_opt_error("solve", __VA_ARGS__)

/* The command line of one solve, as parsed. */
struct solve_request {
    const char *variant_name, *stones_text, *out, *bug_name, *format, *open_dir, *secval;
    const char *sector_text[MAX_SECTORS];
    int nsectors, with_deps, quiet, threads;
    uint64_t memory_limit;
};

static int solve(const struct solve_request *q);

int ma_cmd_solve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"variant", required_argument, NULL, 'v'}, {"stones", required_argument, NULL, 'k'},
        {"sector", required_argument, NULL, 's'},  {"with-deps", no_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},     {"quiet", no_argument, NULL, 'q'},
        {"threads", required_argument, NULL, 't'}, {"memory-limit", required_argument, NULL, 'm'},
#ifdef MA_PLANT_BUGS
        {"plant-bug", required_argument, NULL, 'b'},
#endif
        {"format", required_argument, NULL, 'f'}, {"open-dir", required_argument, NULL, 'O'},
        {"secval", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
    struct solve_request q = {.format = "open"};
    int opt;
    optind = 1;
    while ((opt = ma_opt_next("solve", argc, argv, "h", longopts)) != -1) {
        switch (opt) {
        case 'v': q.variant_name = optarg; break;
        case 'k': q.stones_text = optarg; break;
        case 's':
            if (q.nsectors == MAX_SECTORS)
                return USAGE_ERROR("at most %d --sector options", MAX_SECTORS);
            q.sector_text[q.nsectors++] = optarg;
            break;
        case 'd': q.with_deps = 1; break;
        case 'o': q.out = optarg; break;
        case 'q': q.quiet = 1; break;
        case 't': {
            long n;
            if (ma_opt_long("solve", "--threads", optarg, 1, MA_SOLVER_MAX_THREADS, &n))
                return MA_EUSAGE;
            q.threads = (int)n;
            break;
        }
        case 'm':
            q.memory_limit = parse_bytes(optarg);
            if (!q.memory_limit)
                return USAGE_ERROR("--memory-limit %s: expected a positive number of "
                                             "bytes, optionally with K, M, G or T", optarg);
            break;
        case 'b': q.bug_name = optarg; break;
        case 'f': q.format = optarg; break;
        case 'O': q.open_dir = optarg; break;
        case 'S': q.secval = optarg; break;
        case 'h': usage(stdout); return MA_OK;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (optind < argc)
        return USAGE_ERROR("unexpected argument '%s'", argv[optind]);
    if (!q.variant_name)
        q.variant_name = "std"; /* Nine Men's Morris unless told otherwise */
    if (!q.out || (!q.stones_text == !q.nsectors) || (q.with_deps && !q.nsectors))
        return USAGE_ERROR("need --out and exactly one of --stones or --sector (--with-deps only with --sector)");
    return solve(&q);
}

/* Everything after the command line: the solve itself, its signals and what it prints. */
static int solve(const struct solve_request *q)
{
    const char *variant_name = q->variant_name, *stones_text = q->stones_text, *out = q->out;
    const char *bug_name = q->bug_name, *format = q->format, *open_dir = q->open_dir, *secval = q->secval;
    const char *const *sector_text = q->sector_text;
    int nsectors = q->nsectors, with_deps = q->with_deps, quiet = q->quiet, threads = q->threads;
    uint64_t memory_limit = q->memory_limit;
    int malom_kind = !strcmp(format, "malom-sec")    ? MA_SVM_SEC
                     : !strcmp(format, "malom-sec2") ? MA_SVM_SEC2
                     : !strcmp(format, "open")       ? 0
                                                     : -1;
    if (malom_kind < 0 || (!malom_kind && open_dir) || (secval && malom_kind != MA_SVM_SEC2))
        return USAGE_ERROR("--format is open, malom-sec or malom-sec2; --open-dir only "
                                     "with a malom format, --secval only with malom-sec2");
    ma_solver_opts o = {0};
    o.variant = ma_svrules_variant_parse(variant_name);
    if (!o.variant)
        return USAGE_ERROR("unknown variant '%s' (std, lask or mora)", variant_name);
    o.bug = MA_SVBUG_NONE;
    if (bug_name) {
        o.bug = ma_svrules_bug_parse(bug_name);
        if (o.bug < 0)
            return USAGE_ERROR("unknown planted bug '%s'", bug_name);
    }
    char open_default[4096];
    if (malom_kind && !open_dir) {
        snprintf(open_default, sizeof open_default, "%s/open", out);
        open_dir = open_default;
    }
    o.out_dir = malom_kind ? open_dir : out;
    o.quiet = quiet;
    o.progress_out = stderr;
    o.threads = threads;
    o.memory_limit = memory_limit;
    o.cancel = &stop_signal;
    o.note = print_note;
    ma_error err;
    ma_error_clear(&err);
    ma_sv_sector targets[MAX_SECTORS];
    int ntargets = 0, stones = 0;
    if (stones_text) {
        char *end;
        long k = strtol(stones_text, &end, 10);
        ma_svrules r;
        ma_svrules_init(&r, o.variant, MA_SVBUG_NONE, NULL);
        if (!isdigit((unsigned char)*stones_text) || *end != '\0' || k < 3 || k > r.stones)
            return USAGE_ERROR("--stones must be 3..%d for %s, not '%s'", r.stones,
                                variant_name, stones_text);
        stones = (int)k;
        ma_sv_sector s = {0, 0, stones, stones};
        targets[ntargets++] = s;
        with_deps = 1;
    } else {
        for (int i = 0; i < nsectors; i++) {
            int rc = ma_svsector_parse(&targets[ntargets++], sector_text[i], &err);
            if (rc != MA_OK)
                return USAGE_ERROR("%s", err.msg);
        }
    }
#ifdef MA_PLANT_BUGS
    if (malom_kind && o.bug != MA_SVBUG_NONE && malom_kind != MA_SVM_SEC)
        return USAGE_ERROR("--plant-bug writes malom-sec only");
#endif
    /* SIGINT / SIGTERM stop the run between chunks of work: no half-written file stays behind. */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    atomic_store(&stop_signal, 0);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    struct print_ctx pc = {variant_name, quiet, 0, SIGINT, 0};
    ma_svmalom_opts mo = {o.variant, o.bug,        malom_kind,   secval, open_dir, out,
                          quiet,     stderr,       &o,           print_report, &pc};
    /* Nothing is written when a Malom output would be refused: check it before solving. */
    int rc = malom_kind ? ma_svmalom_check(&mo, targets, ntargets, with_deps, &err) : MA_OK;
#ifdef MA_PLANT_BUGS
    const char *stop_after = getenv("MILLAUDIT_TEST_STOP_AFTER_SECTORS");
    const char *stop_sig = getenv("MILLAUDIT_TEST_STOP_SIGNAL");
    if (stop_after && *stop_after)
        pc.stop_after = atoi(stop_after);
    if (stop_sig && !strcmp(stop_sig, "TERM"))
        pc.stop_signal = SIGTERM;
#endif
    /* With a Malom format the export runs the solve itself: it writes each component's Malom
     * files while the solution is in memory. */
    if (rc == MA_OK && malom_kind)
        rc = ma_svmalom_export(&mo, targets, ntargets, with_deps, print_malom_report, &quiet, &err);
    else if (rc == MA_OK)
        rc = ma_solver_solve(&o, targets, ntargets, with_deps, print_report, &pc, &err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc == MA_ECANCELED) {
        int sig = atomic_load(&stop_signal);
        fprintf(stderr, "millaudit solve: interrupted by %s; finished sectors are kept, no "
                        "partial file was left\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
        return ma_result_of_signal(sig ? sig : SIGINT);
    }
    if (rc != MA_OK) {
        fprintf(stderr, "millaudit solve: %s\n", err.msg);
        return rc;
    }
    if (stones) {
        uint16_t v = 0;
        rc = ma_solver_start_value(&o, stones, &v, &err);
        if (rc != MA_OK) {
            fprintf(stderr, "millaudit solve: %s\n", err.msg);
            return rc;
        }
        char text[32];
        describe(text, sizeof text, v);
        printf("start %s_0_0_%d_%d: %s\n", variant_name, stones, stones, text);
    }
    return MA_OK;
}
