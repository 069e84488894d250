/*
 * millaudit diff A B: options, then one engine call (ma_diff_run, include/millaudit/diff.h) whose
 * pairs and end are printed by the diff renderers as they come.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/output.h"
#include "common/options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit diff A B [--sector S ...] [--limit N] [--json] [--audit FILE.sqlite]\n"
            "                      [--threads N] [--quiet] [--all] [--full] [--junit FILE] [--shard I/N]\n"
            "                      [--no-digest-check]\n"
            "\n"
            "Compares two databases position by position. A and B are directories or single\n"
            "sector files, open .mdb or Malom .sec / .sec2 (with <variant>.secval beside it, or a\n"
            "STONE_DIFF build), in any combination. Sectors are paired by variant and sector id.\n"
            "Files of one format with equal SHA-256 are identical and skipped (unless --full).\n"
            "Differences: outcome, depth, draw-class (.sec2 vs .sec2), encoding (same values,\n"
            "other bytes or another format), only-in-A / only-in-B. A position that differs while\n"
            "all its successors agree is a root difference: one side is wrong there; the output\n"
            "shows its turns on both sides and which side is right. A sector that differs only\n"
            "through its successors is a consequence, named once under the sectors causing it.\n"
            "\n"
            "  --sector S     only this sector (W_B_WF_BF or <variant>_W_B_WF_BF); repeatable\n"
            "  --limit N      example positions per sector (default 3), root differences first\n"
            "  --json         one JSON document on stdout (docs/json/diff.schema.json)\n"
            "  --audit FILE   record the run (kind \"diff\") in a SQLite audit store\n"
            "  -j, --threads N  worker threads (default: online CPUs)\n"
            "  --quiet        text output: no board diagrams, no line for the equal sectors\n"
            "  --all          text output: one line for every sector pair, equal ones too\n"
            "  --full         compare positions even when the digests agree\n"
            "  --junit FILE   also write a JUnit XML report: one test case per sector, failing\n"
            "                 where values differ at the root or a sector is on one side only\n"
            "  --shard I/N    only shard I of N (0 <= I < N) of the sector pairs, partitioned by\n"
            "                 cost as verify A --shard I/N (docs/distributed.md)\n"
            "  --no-digest-check  read open-format files whose body fails the SHA-256 in their\n"
            "                 header (refused by default: exit 3 naming offset 80)\n"
            "\n"
            "exit: 0 values agree (encoding differences allowed), 1 values differ or a sector is\n"
            "on one side only, 2 usage, 3 input unusable (a file named on stderr), 4 audit store\n"
            "not writable\n");
}

typedef struct shown {
    int json, quiet, all;
} shown;



/* Options into *opt and *sh; MA_OK (*help set after --help), or MA_EUSAGE. */
static int parse(int argc, char **argv, ma_diff_run_options *opt, const char **sectors, shown *sh,
                 int *help)
{
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"limit", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},         {"audit", required_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 't'}, {"quiet", no_argument, NULL, 'q'},
        {"full", no_argument, NULL, 'f'},         {"help", no_argument, NULL, 'h'},
        {"junit", required_argument, NULL, 'J'},  {"shard", required_argument, NULL, 'S'},
        {"no-digest-check", no_argument, NULL, 'D'}, {"all", no_argument, NULL, 'A'},
        {NULL, 0, NULL, 0},
    };
    size_t n_picks = 0;
    long v;
    int c;
    ma_error err;
    optind = 1;
    while ((c = ma_opt_next("diff", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 's':
            if (ma_sector_arg_check(optarg, &n_picks, &err)) {
                char words[sizeof err.msg + 64];
                ma_opt_error("diff", "%s", ma_render_option_words(err.msg, words, sizeof words));
                return MA_EUSAGE;
            }
            sectors[opt->n_sectors++] = optarg;
            break;
        case 'l':
            if (ma_opt_long("diff", "--limit", optarg, 0, 100000, &v))
                return MA_EUSAGE;
            opt->compare.limit = v ? (size_t)v : MA_KEEP_NONE;
            break;
        case 't':
            if (ma_opt_long("diff", "--threads", optarg, 1, 64, &v))
                return MA_EUSAGE;
            opt->compare.threads = (unsigned)v;
            break;
        case 'j': sh->json = 1; break;
        case 'a': opt->audit_path = optarg; break;
        case 'J': opt->junit_path = optarg; break;
        case 'q': sh->quiet = 1; break;
        case 'A': sh->all = 1; break;
        case 'f': opt->compare.full = 1; break;
        case 'D': opt->no_digest_check = 1; break;
        case 'S':
            if (ma_cli_parse_shard(optarg, &opt->shard_index, &opt->shard_count)) {
                ma_opt_error("diff", "--shard %s: expected I/N with 0 <= I < N, e.g. 0/4", optarg);
                return MA_EUSAGE;
            }
            break;
        case 'h': usage(stdout); *help = 1; return MA_OK;
        default:
            return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 2) {
        ma_opt_error("diff", "need exactly two databases A and B");
        return MA_EUSAGE;
    }
    opt->path_a = argv[optind];
    opt->path_b = argv[optind + 1];
    return MA_OK;
}

int ma_cmd_diff(int argc, char **argv, const ma_cli_invocation *typed)
{
    const char *sectors[MA_SECTOR_PICKS_MAX];
    char host[256], cmdline[8192];
    shown sh = {0, 0, 0};
    ma_diff_run_options opt = {0};
    opt.compare.limit = 3;
    opt.sectors = sectors;
    opt.junit_writer = ma_diff_render_junit;

    int help = 0, result = parse(argc, argv, &opt, sectors, &sh, &help);
    if (result == MA_OK && !help) {
        /* the JUnit file must not replace a database, the store or its side files */
        const ma_output_input inputs[] = {{opt.path_a, "database A", MA_INPUT_FILE},
                                          {opt.path_b, "database B", MA_INPUT_FILE},
                                          {opt.audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_output_result("diff", opt.junit_path, "--junit", MA_OUTPUT_DOCUMENT, inputs, 3);
        result = refused == MA_OK || refused == MA_EUSAGE ? refused : MA_EIO;
    }
    ma_diff_report *r = NULL;
    ma_error err;
    if (result == MA_OK && !help) {
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
        opt.host = host;
        opt.cmdline = cmdline;
        result = ma_diff_run(&r, &opt, &err);
    }
    if (r) {
        int rendered = ma_diff_render_end(stdout, stderr, r, (sh.json ? MA_DIFF_TEXT_JSON : 0) |
                                                                 (sh.quiet ? MA_DIFF_TEXT_QUIET : 0) |
                                                                 (sh.all ? MA_DIFF_TEXT_ALL : 0));
        result = ma_diff_report_result(r);
        if (rendered == MA_ENOMEM) { /* nothing was written: the verdict is not shown, so not given */
            fprintf(stderr, "millaudit diff: out of memory\n");
            result = MA_ENOMEM;
        }
        ma_diff_report_free(r);
        if (ma_result_exit_code(result) < MA_EXIT_IO && ma_cli_stdout_flush("diff") != MA_OK)
            result = MA_EIO;
    } else if (result == MA_ENOMEM || result == MA_EINVAL) { /* not even a report */
        char words[sizeof err.msg + 64];
        fprintf(stderr, "millaudit diff: %s\n", ma_render_option_words(err.msg, words, sizeof words));
    }
    return result; /* cli/main.c maps it to the exit status */
}
