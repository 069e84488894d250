/*
 * millaudit index-check --variant V --sector S [FILE]: options, then one engine call
 * (ma_index_check_run, include/millaudit/inspect.h) whose lines the renderers print as they come.
 */
#include <getopt.h>
#include <stdio.h>

#include "millaudit.h"
#include "cli/commands.h"
#include "common/options.h"
#include "common/progress.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit index-check --variant std|lask|mora --sector W_B_WF_BF [FILE]\n"
            "\n"
            "Proves the sym16-colex index on one sector exhaustively: every entry unranks to a board\n"
            "with W and B stones; canonical entries round-trip; non-canonical entries rank to a\n"
            "canonical entry of the same orbit; every raw placement ranks to a canonical image of\n"
            "itself; orbit sizes sum to the number of raw placements. With FILE (the sector's .mdb),\n"
            "also checks its header and that every value word fits its entry (canonical entries hold\n"
            "a value, non-canonical ones 0x0000).\n"
            "\n"
            "exit: 0 all checks hold, 1 a check failed, 2 usage, 3 unusable input\n");
}

typedef struct display {
    ma_progress progress;
    int started;
} display;

static void on_start(void *ctx, const ma_index_check_report *r)
{
    display *d = ctx;
    ma_index_check_render_start(stdout, r);
    ma_progress_start(&d->progress, stderr, 0, r->label, 0);
    d->started = 1;
}

static void on_file(void *ctx, const ma_index_check_report *r)
{
    (void)ctx;
    ma_index_check_render_file(stdout, r);
}

static void on_failure(void *ctx, const ma_index_check_report *r, const ma_index_check_failure *f)
{
    (void)ctx;
    ma_index_check_render_failure(stdout, r, f);
}

/* Options into *opt; MA_OK (*help set after --help), or MA_EUSAGE. */
static int parse(int argc, char **argv, ma_index_check_options *opt, int *help)
{
    static const struct option opts[] = {
        {"variant", required_argument, NULL, 'v'},
        {"sector", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *variant_arg = NULL, *sector_arg = NULL;
    int c;
    optind = 1;
    while ((c = ma_opt_next("index-check", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'v': variant_arg = optarg; break;
        case 's': sector_arg = optarg; break;
        case 'h': usage(stdout); *help = 1; return MA_OK;
        default:
            return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (!variant_arg || !sector_arg || argc - optind > 1) {
        ma_opt_error("index-check", "need --variant and --sector and at most one FILE");
        return MA_EUSAGE;
    }
    ma_error err;
    if (ma_variant_parse(variant_arg, &opt->variant, &err) || ma_sector_parse(sector_arg, &opt->sector, &err)) {
        ma_opt_error("index-check", "%s", err.msg);
        return MA_EUSAGE;
    }
    opt->file = optind < argc ? argv[optind] : NULL;
    return MA_OK;
}

int ma_cmd_index_check(int argc, char **argv)
{
    display d = {.started = 0};
    ma_index_check_options opt = {0};
    opt.on_start = on_start;
    opt.on_file = on_file;
    opt.on_failure = on_failure;
    opt.ctx = &d;
    opt.progress = &d.progress;
    int help = 0, result = parse(argc, argv, &opt, &help);
    if (result == MA_OK && !help) {
        ma_index_check_report r;
        ma_error err;
        if ((result = ma_index_check_run(&r, &opt, &err)) != MA_OK) {
            fprintf(stderr, "millaudit index-check: %s\n", err.msg);
        } else {
            ma_index_check_render_end(stdout, &r);
            result = r.result;
        }
        if (d.started)
            ma_progress_finish(&d.progress, r.entries + r.placements);
    }
    return result; /* cli/main.c maps it to the exit status */
}
