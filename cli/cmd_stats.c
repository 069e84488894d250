/*
 * millaudit stats DIR: options, then one engine call (ma_stats_run, include/millaudit/inspect.h)
 * whose report the stats renderers print.
 */
#include <getopt.h>
#include <stdio.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/options.h"
#include "common/progress.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit stats DIR [--json] [--sector S ...] [--threads N] [--no-digest-check]\n"
            "\n"
            "For every sector file in DIR (open .mdb, Malom .sec2 or .sec; sorted by sector):\n"
            "entries, canonical entries, markers, wins/draws/losses and depth histograms counted\n"
            "per stored entry and per position (each canonical entry weighted by its orbit size),\n"
            "the longest win and loss, bad encodings, for .sec2 the distribution of A = key1 + v(S)\n"
            "(Malom's .analyze / .analyze2 figures), and the start value when DIR holds a start\n"
            "sector (W=B=0). --sector S (W_B_WF_BF or <variant>_W_B_WF_BF; repeatable or\n"
            "comma-separated) restricts to those sectors. --json prints one JSON document.\n"
            "-j/--threads N (default: online CPUs) splits each sector's entries among N workers.\n"
            "--no-digest-check reads an open-format file whose body fails its header's SHA-256\n"
            "(docs/format.md 5.1; refused by default, exit 3 naming offset 80).\n"
            "\n"
            "exit: 0 ok, 1 bad encodings found, 2 usage, 3 unusable input (files named on stderr)\n");
}

/* Options into *opt and *json; MA_OK (*help set after --help), or MA_EUSAGE. */
static int parse(int argc, char **argv, ma_stats_run_options *opt, const char **sectors, int *json,
                 int *help)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"sector", required_argument, NULL, 's'},
        {"threads", required_argument, NULL, 't'},
        {"no-digest-check", no_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    size_t n_picks = 0;
    long v;
    int c;
    ma_error err;
    optind = 1;
    while ((c = ma_opt_next("stats", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'j': *json = 1; break;
        case 'D': opt->no_digest_check = 1; break;
        case 's':
            if (ma_sector_arg_check(optarg, &n_picks, &err)) {
                char words[sizeof err.msg + 64];
                ma_opt_error("stats", "%s", ma_render_option_words(err.msg, words, sizeof words));
                return MA_EUSAGE;
            }
            sectors[opt->n_sectors++] = optarg;
            break;
        case 't':
            if (ma_opt_long("stats", "--threads", optarg, 1, 64, &v))
                return MA_EUSAGE;
            opt->threads = (int)v;
            break;
        case 'h': usage(stdout); *help = 1; return MA_OK;
        default:
            return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1) {
        ma_opt_error("stats", "need exactly one DIR");
        return MA_EUSAGE;
    }
    opt->root = argv[optind];
    return MA_OK;
}

int ma_cmd_stats(int argc, char **argv)
{
    const char *sectors[MA_SECTOR_PICKS_MAX];
    ma_stats_run_options opt = {0};
    opt.sectors = sectors;
    int json = 0, help = 0, result = parse(argc, argv, &opt, sectors, &json, &help);
    ma_stats_report *r = NULL;
    ma_error err;
    if (result == MA_OK && !help) {
        ma_progress progress;
        ma_progress_start(&progress, stderr, json, "stats", 0);
        opt.progress = &progress;
        result = ma_stats_run(&r, &opt, &err);
        ma_progress_finish(&progress, progress.done);
    }
    if (r) {
        int rendered = ma_stats_render_end(stdout, stderr, r, json);
        result = ma_stats_report_result(r);
        if (rendered == MA_ENOMEM) {
            fprintf(stderr, "millaudit stats: out of memory\n");
            result = MA_ENOMEM;
        }
        ma_stats_report_free(r);
        if (ma_result_exit_code(result) != MA_EXIT_INTERNAL && ma_cli_stdout_flush("stats") != MA_OK)
            result = MA_EIO;
    } else if (result == MA_ENOMEM || result == MA_EINVAL) { /* not even a report */
        char words[sizeof err.msg + 64];
        fprintf(stderr, "millaudit stats: %s\n", ma_render_option_words(err.msg, words, sizeof words));
    }
    return result; /* cli/main.c maps it to the exit status */
}
