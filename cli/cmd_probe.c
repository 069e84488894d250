/*
 * millaudit probe DIR POSITION | DIR --stdin: options (by hand: a board may start with '-'), then
 * one engine call (ma_probe_run or ma_probe_batch_run, include/millaudit/inspect.h) whose report
 * the probe renderer prints.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "millaudit.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/options.h"

static void usage(FILE *o)
{
    fprintf(o, "usage: millaudit probe DIR POSITION [--variant std|lask|mora] [--json] [--no-digest-check]\n"
               "       millaudit probe DIR --stdin [--variant std|lask|mora]\n"
               "  POSITION  BOARD [wf=N] [bf=N]; BOARD = mover/opponent points, e.g.\n"
               "            \"a1,d1/c3,e4 wf=7 bf=7\" (the side to move first; '-' for none)\n"
               "Prints the stored value of the position and every legal turn with its value,\n"
               "best first. DIR may hold Malom files (*.sec2, *.sec) or open-format *.mdb.\n"
               "--stdin: one POSITION per line, one '<board> <outcome> <depth>' line each.\n"
               "--no-digest-check: read open-format files whose body fails the SHA-256 in their\n"
               "header (refused by default: exit 3 naming offset 80).\n"
               "exit: 0 printed, 1 the position's entry holds no value, 2 usage, 3 the sector\n"
               "file absent or unusable (or a successor's file unusable)\n");
}

static void on_line(void *ctx, const char *board, const char *value)
{
    (void)ctx;
    printf("%s %s\n", board, value);
}

/* Options into *opt, *json, *batch and pos_args (the positional words); MA_OK (*help set after
 * --help), or MA_EUSAGE. */
static int parse(int argc, char **argv, ma_probe_run_options *opt, int *json, int *batch,
                 const char **pos_args, int *npos, int *help)
{
    ma_error err;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--variant") && i + 1 == argc) {
            ma_opt_error("probe", "option '--variant' needs a value");
            return MA_EUSAGE;
        }
        if (!strcmp(a, "--variant") && i + 1 < argc)
            val = argv[++i];
        else if (!strncmp(a, "--variant=", 10))
            val = a + 10;
        if (val) {
            if (ma_variant_parse(val, &opt->variant, &err)) {
                ma_opt_error("probe", "%s", err.msg);
                return MA_EUSAGE;
            }
            opt->have_variant = 1;
        } else if (!strcmp(a, "--json")) {
            *json = 1;
        } else if (!strcmp(a, "--no-digest-check")) {
            opt->no_digest_check = 1;
        } else if (!strcmp(a, "--stdin")) {
            *batch = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            *help = 1;
            return MA_OK;
        } else if (a[0] == '-' && (a[1] == '-' || a[1] == 0 || a[1] != '/')) {
            static const struct option known[] = {{"variant", required_argument, NULL, 'v'},
                                                  {"json", no_argument, NULL, 'j'},
                                                  {"stdin", no_argument, NULL, 'i'},
                                                  {"help", no_argument, NULL, 'h'},
                                                  {NULL, 0, NULL, 0}};
            ma_opt_unknown("probe", a, known);
            return MA_EUSAGE;
        } else {
            pos_args[(*npos)++] = argv[i];
        }
    }
    if (*batch ? *npos != 1 : *npos < 2) {
        ma_opt_error("probe", *batch ? "--stdin takes one database DIR"
                                     : *npos ? "no POSITION given" : "no database DIR and POSITION given");
        return MA_EUSAGE;
    }
    return MA_OK;
}

int ma_cmd_probe(int argc, char **argv)
{
    int json = 0, batch = 0, help = 0, npos = 0;
    ma_probe_run_options opt = {0};
    ma_error err;
    ma_error_clear(&err); /* read below whether or not the run set it */
    const char **pos_args = calloc((size_t)argc + 1, sizeof *pos_args);
    int result = pos_args ? parse(argc, argv, &opt, &json, &batch, pos_args, &npos, &help) : MA_ENOMEM;
    if (!pos_args)
        fprintf(stderr, "millaudit probe: out of memory\n");
    if (result == MA_OK && !help) {
        ma_probe_report *r = NULL;
        opt.root = pos_args[0];
        opt.position = pos_args + 1;
        opt.n_position = npos - 1;
        opt.batch = stdin;
        opt.on_line = on_line;
        result = batch ? ma_probe_batch_run(&opt, &err) : ma_probe_run(&r, &opt, &err);
        char words[sizeof err.msg + 64];
        ma_render_option_words(err.msg, words, sizeof words);
        if (result == MA_EUSAGE) /* a position that does not parse: as a command-line error */
            ma_opt_error("probe", "%s", words);
        else if (result != MA_OK)
            fprintf(stderr, "millaudit probe: %s\n", words);
        result = ma_probe_failure_result(result);
        if (r) {
            int rendered = ma_probe_render(stdout, stderr, r, json);
            result = ma_probe_report_result(r);
            ma_probe_report_free(r);
            if (rendered == MA_ENOMEM) {
                fprintf(stderr, "millaudit probe: out of memory\n");
                result = MA_ENOMEM;
            }
        }
        if ((r || batch) && ma_cli_stdout_flush("probe") != MA_OK)
            result = MA_EIO;
    }
    free(pos_args);
    return result; /* cli/main.c maps it to the exit status */
}
