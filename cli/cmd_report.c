/*
 * millaudit report --audit FILE.sqlite [--run N] [--format text|md|json|html] [--out FILE]
 *
 * Renders one run of an audit store (default: the latest) for people (docs/report.md): the verdict
 * first, run facts, per-sector results with totals, discrepancies with their boards, charts,
 * history, and in an appendix the manifest of the bytes checked.
 * Output on stdout, or written atomically to --out. Exit: 0 rendered, 2 usage, 3 store missing,
 * unusable or without that run, 4 output not writable, 5 internal; with --check, once rendered,
 * the run's verdict as verify would exit (ma_verdict_exit_code).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/ma_error.h"
#include "common/output.h"
#include "common/options.h"
#include "store/audit.h"
#include "render/render.h"
#include "store/report.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit report --audit FILE.sqlite [--run N] [--format text|md|json|html] [--out FILE]\n"
            "                        [--check]\n"
            "Renders one run of the audit store, verdict first: fully verified, verified within\n"
            "bounds only, discrepancies found, incomplete or interrupted (diff runs: values agree or\n"
            "differ); then sectors with totals, discrepancies with their boards, charts, history and\n"
            "the manifest of the bytes checked. Default: the latest run, text, stdout.\n"
            "  --run N      the run to render (ids: millaudit runs, or sqlite3 FILE 'SELECT id FROM runs')\n"
            "  --format F   text (terminal), md (GitHub Markdown), json (docs/json/report.schema.json),\n"
            "               html (one self-contained page with SVG charts)\n"
            "  --out FILE   write FILE atomically instead of stdout (HTML is one self-contained file)\n"
            "  --check      exit by the run's verdict, as verify and diff do: 0 verified (values\n"
            "               agree), 1 discrepancies (values differ), 3 within bounds only,\n"
            "               incomplete or interrupted\n"
            "exit: 0 rendered, 2 usage, 3 store or run unusable, 4 output not writable; with --check\n"
            "      the verdict's status once rendered\n");
}

int ma_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"format", required_argument, NULL, 'f'}, {"out", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'}, {"check", no_argument, NULL, 'c'},
                                         {NULL, 0, NULL, 0}};
    const char *audit_path = NULL, *out_path = NULL, *format = "text";
    int64_t run_id = 0;
    int check = 0;
    optind = 1;
    int c;
    while ((c = ma_opt_next("report", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'f': format = optarg; break;
        case 'c': check = 1; break;
        case 'r':
            if (ma_cli_parse_run_id(optarg, &run_id)) {
                return ma_opt_error("report", "--run %s: not a run id (a positive integer)", optarg);
            }
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    ma_error err;
    ma_error_clear(&err);
    ma_render_format fmt;
    if (optind != argc)
        return ma_opt_error("report", "unexpected argument '%s'", argv[optind]);
    if (!audit_path)
        return ma_opt_error("report", "no --audit FILE given");
    if (ma_render_format_parse(format, &fmt, &err)) {
        return ma_opt_error("report", "--format: %s", err.msg);
    }
    const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE}};
    int refused = ma_cli_check_output("report", out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 1);
    if (refused)
        return refused;
    ma_audit *a = NULL;
    ma_report report;
    memset(&report, 0, sizeof report);
    char *text = NULL;
    size_t len = 0;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_report_load(a, run_id, &report, &err);
    if (!rc)
        rc = ma_render_report(&text, &len, &report, fmt, &err);
    int exit_code = MA_EXIT_OK;
    if (rc) {
        exit_code = rc == MA_EIO ? MA_EXIT_BAD_INPUT : ma_exit_code_for(rc);
    } else if (out_path) {
        if (ma_render_write_atomic(out_path, text, len, &err))
            exit_code = MA_EXIT_IO;
    } else if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
        ma_error_set(&err, MA_EIO, "stdout: write failed");
        exit_code = MA_EXIT_IO;
    }
    if (exit_code)
        fprintf(stderr, "millaudit report: %s\n", err.msg);
    else if (check) /* for scripts: the rendered run's verdict as the exit status */
        exit_code = ma_verdict_exit_code(report.verdict.state, 0);
    free(text);
    ma_report_free(&report);
    ma_audit_close(a);
    return exit_code;
}
