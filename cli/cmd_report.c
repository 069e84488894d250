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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "millaudit.h"
#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/output.h"
#include "common/options.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit report --audit FILE.sqlite [--run N] [--sector S] [--format text|md|json|html]\n"
            "                        [--out FILE] [--check]\n"
            "Renders one run of the audit store, verdict first: fully verified, verified within\n"
            "bounds only, discrepancies found, incomplete or interrupted (diff runs: values agree or\n"
            "differ), with the faulty sectors (roots first), the first root position and its refuting\n"
            "move, what changed since the previous run and the next step; then sectors with totals,\n"
            "discrepancies with their boards (at most 10 rows per sector), charts, history and the\n"
            "manifest of the bytes checked. Default: the latest run, text, stdout.\n"
            "  --run N      the run to render (its id, as 'millaudit runs list --audit FILE' shows)\n"
            "  --sector S   only sector S (W_B_WF_BF or <variant>_W_B_WF_BF): every row the store\n"
            "               kept of it; the verdict box stays the run's\n"
            "  --format F   text (terminal), md (GitHub Markdown, at most 65,536 characters),\n"
            "               json (docs/json/report.schema.json), html (one self-contained page\n"
            "               with SVG charts)\n"
            "  --out FILE   write FILE atomically instead of stdout (HTML is one self-contained file)\n"
            "  --check      exit by the run's verdict, as verify and diff do: 0 verified (values\n"
            "               agree), 1 discrepancies (values differ), 3 within bounds only,\n"
            "               incomplete or interrupted\n"
            "exit: 0 rendered, 2 usage, 3 store or run unusable, 4 output not writable; with --check\n"
            "      the verdict's status once rendered\n");
}

/* Loads and renders the run; the result of the command (common/verdict.h). */
static int render(const char *audit_path, int64_t run_id, const char *sector, ma_render_format fmt,
                  const char *out_path, int check)
{
    ma_error err;
    ma_error_clear(&err);
    ma_audit *a = NULL;
    ma_report *report = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_store_report_load(&report, a, run_id, &err);
    if (!rc && sector)
        rc = ma_store_report_select_sector(report, sector, &err);
    if (!rc)
        rc = ma_render_report(&text, &len, report, fmt, &err);
    int result = ma_store_input_result(rc);
    if (!rc)
        result = ma_cli_write_document(out_path, text, len, &err);
    if (rc == MA_EINVAL && sector) /* a --sector that names no sector: the command line's mistake */
        result = ma_opt_error("report", "%s", err.msg);
    else if (result)
        fprintf(stderr, "millaudit report: %s\n", err.msg);
    else if (check) /* for scripts: the rendered run's verdict as the exit status */
        result = ma_result_of_verdict(ma_store_report_verdict(report), 0);
    ma_free(text);
    ma_store_report_free(report);
    ma_audit_free(a);
    return result;
}

static int report_result(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"format", required_argument, NULL, 'f'}, {"out", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'}, {"check", no_argument, NULL, 'c'},
                                         {"sector", required_argument, NULL, 's'}, {NULL, 0, NULL, 0}};
    const char *audit_path = NULL, *out_path = NULL, *format = "text", *sector = NULL;
    int64_t run_id = 0;
    int check = 0, result = MA_OK;
    optind = 1;
    int c;
    while (!result && (c = ma_opt_next("report", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'f': format = optarg; break;
        case 'c': check = 1; break;
        case 's': sector = optarg; break;
        case 'r': result = ma_cli_opt_run_id("report", "--run", optarg, &run_id); break;
        case 'h': usage(stdout); return MA_OK;
        default: result = MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (result)
        return result;
    ma_error err;
    ma_error_clear(&err);
    ma_render_format fmt = MA_RENDER_TEXT;
    if (optind != argc)
        return ma_opt_error("report", "unexpected argument '%s'", argv[optind]);
    if (!audit_path)
        return ma_opt_error("report", "no --audit FILE given");
    if (ma_render_format_parse(format, &fmt, &err))
        return ma_opt_error("report", "--format: %s", err.msg);
    const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE}};
    result = ma_cli_output_result("report", out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 1);
    return result ? result : render(audit_path, run_id, sector, fmt, out_path, check);
}

int ma_cmd_report(int argc, char **argv)
{
    int result = report_result(argc, argv);
    return result; /* cli/main.c maps it to the exit status */
}
