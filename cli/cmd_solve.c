/* millaudit solve: the reference producer's command line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/ma_error.h"
#include "solver/solver.h"
#include "solver/svsector.h"

#define MAX_SECTORS 64

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit solve --variant std|lask|mora (--stones K | --sector S [--sector S ...]"
            " [--with-deps]) --out DIR [--quiet]\n"
            "\n"
            "Solves sectors with the reference producer and writes open-format files (docs/format.md).\n"
            "  --variant V    std (9 stones), lask (10), mora (12)\n"
            "  --stones K     the whole game from sector 0_0_K_K (every sector of its closure)\n"
            "  --sector S     one sector W_B_WF_BF (with its twin); its children must be in DIR\n"
            "  --with-deps    with --sector: first solve everything the sector depends on\n"
            "  --out DIR      existing, writable output directory; valid files there are reused\n"
            "  --quiet        no progress display on stderr (a terminal gets one self-updating line;\n"
            "                 a pipe or file a plain line every 10 s)\n"
            "  --plant-bug N  for tests only: write deliberately wrong databases (docs/solver.md)\n");
}

struct print_ctx {
    const char *variant;
    ma_progress *progress; /* erased before each sector line, so a terminal shows both cleanly */
};

static void print_report(void *ctx, const ma_solver_report *r)
{
    const struct print_ctx *p = ctx;
    char name[32];
    ma_svsector_format(name, sizeof name, r->sector);
    ma_progress_clear(p->progress);
    if (r->skipped) {
        printf("%s_%s: %llu entries, skipped (valid file exists)\n", p->variant, name,
               (unsigned long long)r->entries);
    } else {
        printf("%s_%s: %llu entries, %llu canonical, wins %llu, draws %llu, losses %llu, "
               "max depth %d, %.2f s\n",
               p->variant, name, (unsigned long long)r->entries,
               (unsigned long long)r->stats.canonical, (unsigned long long)r->stats.wins,
               (unsigned long long)r->stats.draws, (unsigned long long)r->stats.losses,
               r->stats.max_depth, r->seconds);
    }
    fflush(stdout);
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

int ma_cmd_solve(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"variant", required_argument, NULL, 'v'}, {"stones", required_argument, NULL, 'k'},
        {"sector", required_argument, NULL, 's'},  {"with-deps", no_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},     {"quiet", no_argument, NULL, 'q'},
        {"plant-bug", required_argument, NULL, 'b'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *variant_name = NULL, *stones_text = NULL, *out = NULL, *bug_name = NULL;
    const char *sector_text[MAX_SECTORS];
    int nsectors = 0, with_deps = 0, quiet = 0, opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'v': variant_name = optarg; break;
        case 'k': stones_text = optarg; break;
        case 's':
            if (nsectors == MAX_SECTORS) {
                fprintf(stderr, "millaudit solve: at most %d --sector options\n", MAX_SECTORS);
                return MA_EXIT_USAGE;
            }
            sector_text[nsectors++] = optarg;
            break;
        case 'd': with_deps = 1; break;
        case 'o': out = optarg; break;
        case 'q': quiet = 1; break;
        case 'b': bug_name = optarg; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit solve: bad option '%s' (try --help)\n", argv[optind - 1]);
            return MA_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "millaudit solve: unexpected argument '%s' (try --help)\n", argv[optind]);
        return MA_EXIT_USAGE;
    }
    if (!variant_name || !out || (!stones_text == !nsectors) || (with_deps && !nsectors)) {
        fprintf(stderr, "millaudit solve: need --variant, --out and exactly one of --stones or "
                        "--sector (--with-deps only with --sector); try --help\n");
        return MA_EXIT_USAGE;
    }
    ma_solver_opts o = {0};
    o.variant = ma_svrules_variant_parse(variant_name);
    if (!o.variant) {
        fprintf(stderr, "millaudit solve: unknown variant '%s' (std, lask or mora)\n", variant_name);
        return MA_EXIT_USAGE;
    }
    o.bug = MA_SVBUG_NONE;
    if (bug_name) {
        o.bug = ma_svrules_bug_parse(bug_name);
        if (o.bug < 0) {
            fprintf(stderr, "millaudit solve: unknown planted bug '%s'\n", bug_name);
            return MA_EXIT_USAGE;
        }
    }
    o.out_dir = out;
    ma_error err;
    ma_error_clear(&err);
    ma_sv_sector targets[MAX_SECTORS];
    int ntargets = 0, stones = 0;
    if (stones_text) {
        char *end;
        long k = strtol(stones_text, &end, 10);
        ma_svrules r;
        ma_svrules_init(&r, o.variant, MA_SVBUG_NONE, NULL);
        if (*stones_text == '\0' || *end != '\0' || k < 3 || k > r.stones) {
            fprintf(stderr, "millaudit solve: --stones must be 3..%d for %s, not '%s'\n", r.stones,
                    variant_name, stones_text);
            return MA_EXIT_BAD_INPUT;
        }
        stones = (int)k;
        ma_sv_sector s = {0, 0, stones, stones};
        targets[ntargets++] = s;
        with_deps = 1;
    } else {
        for (int i = 0; i < nsectors; i++) {
            int rc = ma_svsector_parse(&targets[ntargets++], sector_text[i], &err);
            if (rc != MA_OK) {
                fprintf(stderr, "millaudit solve: %s\n", err.msg);
                return MA_EXIT_BAD_INPUT;
            }
        }
    }
    ma_progress progress;
    ma_progress_start(&progress, stderr, quiet, "solve", 0);
    o.progress = &progress;
    struct print_ctx pc = {variant_name, &progress};
    int rc = ma_solver_solve(&o, targets, ntargets, with_deps, print_report, &pc, &err);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    if (rc != MA_OK) {
        fprintf(stderr, "millaudit solve: %s\n", err.msg);
        return ma_exit_code_for(rc);
    }
    if (stones) {
        uint16_t v = 0;
        rc = ma_solver_start_value(&o, stones, &v, &err);
        if (rc != MA_OK) {
            fprintf(stderr, "millaudit solve: %s\n", err.msg);
            return ma_exit_code_for(rc);
        }
        char text[32];
        describe(text, sizeof text, v);
        printf("start %s_0_0_%d_%d: %s\n", variant_name, stones, stones, text);
    }
    return MA_EXIT_OK;
}
