/*
 * millaudit diff A B: options and rendering. Pairing, comparison and recording are
 * run/diff.h; both databases are read through formats/source.h.
 */
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/fileio.h"
#include "common/output.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/progress.h"
#include "ma_version.h"
#include "store/audit.h"
#include "run/diff.h"
#include "render/diff_junit.h"

#define MAX_SECTOR_ARGS 256
#define DIFF_SCHEMA_VERSION 1

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit diff A B [--sector S ...] [--limit N] [--json] [--audit FILE.sqlite]\n"
            "                      [--threads N] [--quiet] [--full] [--junit FILE] [--shard I/N]\n"
            "                      [--no-digest-check]\n"
            "\n"
            "Compares two databases position by position. A and B are directories or single\n"
            "sector files, open .mdb or Malom .sec / .sec2 (with <variant>.secval beside it, or a\n"
            "STONE_DIFF build), in any combination. Sectors are paired by variant and sector id.\n"
            "Files of one format with equal SHA-256 are identical and skipped (unless --full).\n"
            "Differences: outcome, depth, draw-class (.sec2 vs .sec2), encoding (same values,\n"
            "other bytes or another format), only-in-A / only-in-B.\n"
            "\n"
            "  --sector S     only this sector (W_B_WF_BF or <variant>_W_B_WF_BF); repeatable\n"
            "  --limit N      example boards per sector (default 5)\n"
            "  --json         one JSON document on stdout (docs/json/diff.schema.json)\n"
            "  --audit FILE   record the run (kind \"diff\") in a SQLite audit store\n"
            "  --threads N    worker threads (default: online CPUs)\n"
            "  --quiet        text output: only sectors with value differences and the total\n"
            "  --full         compare positions even when the digests agree\n"
            "  --junit FILE   also write a JUnit XML report: one test case per sector, failing\n"
            "                 where values differ or a sector is on one side only\n"
            "  --shard I/N    only shard I of N (0 <= I < N) of the sector pairs, partitioned by\n"
            "                 cost as verify A --shard I/N (docs/distributed.md)\n"
            "  --no-digest-check  read open-format files whose body fails the SHA-256 in their\n"
            "                 header (refused by default: exit 3 naming offset 80)\n"
            "\n"
            "exit: 0 values agree (encoding differences allowed), 1 values differ or a sector is\n"
            "on one side only, 2 usage, 3 input unusable (a file named on stderr), 4 audit store\n"
            "not writable\n");
}

/* ---- text ---- */

/* The board as a 7x7 grid, row 7 on top; X mover, O opponent, '.' empty point. */
static void print_diagram(FILE *out, ma_board b, const char *indent)
{
    char grid[7][7];
    memset(grid, ' ', sizeof grid);
    for (int p = 0; p < MA_POINTS; p++) {
        const char *nm = ma_point_name(p);
        grid[nm[1] - '1'][nm[0] - 'a'] = (b.mover >> p & 1) ? 'X' : (b.opp >> p & 1) ? 'O' : '.';
    }
    for (int row = 6; row >= 0; row--) {
        fprintf(out, "%s%d ", indent, row + 1);
        for (int col = 0; col < 7; col++)
            fprintf(out, "%c%s", grid[row][col], col < 6 ? " " : "\n");
    }
    fprintf(out, "%s  a b c d e f g\n", indent);
}

static void print_text_sector(FILE *out, const ma_diff_sector *s, int quiet)
{
    const ma_diff_result *r = &s->r;
    char shown[1100];
    switch (s->status) {
    case MA_DIFF_ONLY_A:
    case MA_DIFF_ONLY_B:
        ma_escape_name(s->a ? s->path_a : s->path_b, shown, sizeof shown);
        fprintf(out, "%s: %s (%s)\n", s->name, ma_diff_status_name(s->status), shown);
        return;
    case MA_DIFF_UNUSABLE:
        fprintf(out, "%s: unusable: %s\n", s->name, s->message);
        return;
    case MA_DIFF_IDENTICAL:
        if (!quiet)
            fprintf(out, "%s: identical (%s, same SHA-256)\n", s->name, ma_format_name(s->format_a));
        return;
    default:
        break;
    }
    if (quiet && s->status != MA_DIFF_DIFFERS)
        return;
    fprintf(out,
            "%s: %s: A %s vs B %s: %" PRIu64 " positions, outcome %" PRIu64 ", depth %" PRIu64
            ", draw-class %s%" PRIu64 ", encoding %" PRIu64 "%s (%.2f s)\n",
            s->name, ma_diff_status_name(s->status), ma_format_name(s->format_a),
            ma_format_name(s->format_b), r->positions, r->counts[MA_DIFF_OUTCOME],
            r->counts[MA_DIFF_DEPTH], r->draw_class_compared ? "" : "n/a ",
            r->counts[MA_DIFF_DRAW_CLASS], r->counts[MA_DIFF_ENCODING],
            r->outside_entries_only ? " (header bytes only: every entry alike)" : "", r->seconds);
    for (size_t i = 0; i < r->n_examples; i++) {
        const ma_diff_example *x = &r->examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        fprintf(out, "  %s: %s  entry A %" PRIu64 ": %s  entry B %" PRIu64 ": %s\n",
                ma_diff_class_name(x->cls), board, x->entry_a, x->text_a, x->entry_b, x->text_b);
        if (!quiet)
            print_diagram(out, x->board, "      ");
    }
}

/* ---- JSON (docs/json/diff.schema.json) ---- */

static json_t *count(uint64_t n)
{
    return json_integer((json_int_t)n);
}

static json_t *value_json(const ma_stored *v, const char *text)
{
    json_t *o = json_object();
    const char *outcome = v->kind == MA_STORED_BAD    ? "bad"
                          : v->kind == MA_STORED_NONE ? (v->marker >= 0 ? "marker" : "none")
                                                      : ma_outcome_name(v->value.outcome);
    json_object_set_new(o, "outcome", json_string(outcome));
    if (v->kind == MA_STORED_VALUE && v->value.outcome != MA_OUTCOME_DRAW)
        json_object_set_new(o, "depth", json_integer(v->value.depth));
    if (v->kind == MA_STORED_VALUE && v->value.outcome == MA_OUTCOME_DRAW && v->has_draw_class)
        json_object_set_new(o, "draw_class", json_integer(v->draw_class));
    if (v->marker >= 0)
        json_object_set_new(o, "marker", json_integer(v->marker));
    json_object_set_new(o, "text", ma_cli_json_text(text));
    return o;
}

static json_t *classes_json(const uint64_t counts[MA_DIFF_CLASSES])
{
    json_t *o = json_object();
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        json_object_set_new(o, ma_diff_class_name(k), count(counts[k]));
    return o;
}

static json_t *format_json(ma_format f)
{
    return f ? json_string(ma_format_name(f)) : json_null();
}

static json_t *sector_json(const ma_diff_sector *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "sector", json_string(s->name));
    json_object_set_new(o, "variant", json_string(ma_variant_name(s->variant)));
    json_object_set_new(o, "status", json_string(ma_diff_status_name(s->status)));
    json_object_set_new(o, "file_a", s->path_a[0] ? ma_cli_json_text(s->path_a) : json_null());
    json_object_set_new(o, "file_b", s->path_b[0] ? ma_cli_json_text(s->path_b) : json_null());
    json_object_set_new(o, "format_a", format_json(s->format_a));
    json_object_set_new(o, "format_b", format_json(s->format_b));
    json_object_set_new(o, "message", s->message[0] ? ma_cli_json_text(s->message) : json_null());
    if (s->status != MA_DIFF_IDENTICAL && s->status != MA_DIFF_EQUAL && s->status != MA_DIFF_DIFFERS)
        return o;
    const ma_diff_result *r = &s->r;
    json_object_set_new(o, "draw_class_compared", json_boolean(r->draw_class_compared));
    json_object_set_new(o, "positions", count(r->positions));
    json_object_set_new(o, "differences", classes_json(r->counts));
    json_t *ex = json_array();
    for (size_t i = 0; i < r->n_examples; i++) {
        const ma_diff_example *x = &r->examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        json_t *e = json_object();
        json_object_set_new(e, "class", json_string(ma_diff_class_name(x->cls)));
        json_object_set_new(e, "board", json_string(board));
        json_object_set_new(e, "entry_a", count(x->entry_a));
        json_object_set_new(e, "entry_b", count(x->entry_b));
        json_object_set_new(e, "offset_a", count(x->offset_a));
        json_object_set_new(e, "offset_b", count(x->offset_b));
        json_object_set_new(e, "a", value_json(&x->a, x->text_a));
        json_object_set_new(e, "b", value_json(&x->b, x->text_b));
        json_array_append_new(ex, e);
    }
    json_object_set_new(o, "examples", ex);
    json_object_set_new(o, "seconds", json_real(r->seconds));
    return o;
}

static json_t *database_json(const char *given, const ma_database *db)
{
    json_t *o = json_object();
    json_object_set_new(o, "root", ma_cli_json_text(given));
    json_object_set_new(o, "format", db ? format_json(ma_database_format(db)) : json_null());
    json_t *vars = json_array();
    for (int v = MA_VARIANT_STD; db && v <= MA_VARIANT_MORA; v++)
        if (ma_database_variants(db) & (1u << v))
            json_array_append_new(vars, json_string(ma_variant_name((ma_variant)v)));
    json_object_set_new(o, "variants", vars);
    return o;
}

typedef struct totals {
    uint64_t by_status[MA_DIFF_STATUSES];
    uint64_t positions;
    uint64_t counts[MA_DIFF_CLASSES];
} totals;

static void print_json(const char *path_a, const char *path_b, const ma_database *a,
                       const ma_database *b, const ma_diff_options *opt, unsigned shard_index,
                       unsigned shard_count, const ma_diff_sector *ss,
                       size_t n, const totals *t, const char *const *errors, size_t n_errors,
                       int exit_code)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(DIFF_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("diff"));
    json_object_set_new(doc, "a", database_json(path_a, a));
    json_object_set_new(doc, "b", database_json(path_b, b));
    json_t *o = json_object();
    json_object_set_new(o, "threads", json_integer(opt->threads));
    json_object_set_new(o, "limit", count(opt->limit));
    json_object_set_new(o, "full", json_boolean(opt->full));
    if (shard_count) {
        json_t *sh = json_object();
        json_object_set_new(sh, "index", json_integer(shard_index));
        json_object_set_new(sh, "count", json_integer(shard_count));
        json_object_set_new(o, "shard", sh);
    }
    json_object_set_new(doc, "options", o);
    json_t *secs = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(secs, sector_json(&ss[i]));
    json_object_set_new(doc, "sectors", secs);
    json_t *tot = json_object();
    json_object_set_new(tot, "sectors", count(n));
    for (int k = MA_DIFF_IDENTICAL; k < MA_DIFF_STATUSES; k++)
        json_object_set_new(tot, ma_diff_status_name((ma_diff_status)k), count(t->by_status[k]));
    json_object_set_new(tot, "positions", count(t->positions));
    json_object_set_new(tot, "differences", classes_json(t->counts));
    json_object_set_new(tot, "values_agree",
                        json_boolean(!t->by_status[MA_DIFF_DIFFERS] && !t->by_status[MA_DIFF_ONLY_A] &&
                                     !t->by_status[MA_DIFF_ONLY_B] && !t->by_status[MA_DIFF_UNUSABLE]));
    json_object_set_new(doc, "totals", tot);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        json_array_append_new(errs, ma_cli_json_text(errors[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "exit", json_integer(exit_code));
    json_dumpf(doc, stdout, JSON_COMPACT);
    fputc('\n', stdout);
    json_decref(doc);
}

/* ---- the command ---- */

/* The JUnit report (render/diff_junit.h); pairs still pending were not compared. */
static int write_junit(const char *path, const char *a, const char *b, const ma_diff_sector *ss,
                       size_t n, const char *stopped_by, ma_error *err)
{
    ma_diff_junit_pair *jp = calloc(n ? n : 1, sizeof *jp);
    if (!jp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++) {
        const ma_diff_sector *s = &ss[i];
        int compared = s->status == MA_DIFF_IDENTICAL || s->status == MA_DIFF_EQUAL ||
                       s->status == MA_DIFF_DIFFERS;
        jp[i] = (ma_diff_junit_pair){s->name, ma_variant_name(s->variant),
                                     s->status == MA_DIFF_PENDING ? NULL : ma_diff_status_name(s->status),
                                     s->path_a[0] ? s->path_a : NULL, s->path_b[0] ? s->path_b : NULL,
                                     s->status == MA_DIFF_UNUSABLE ? s->message : NULL,
                                     compared ? &s->r : NULL};
    }
    int rc = ma_diff_junit_write(path, a, b, jp, n, stopped_by, err);
    free(jp);
    return rc;
}

/* Every file either database could not use, in A then B, discovery order. */
static size_t collect_errors(const ma_database *a, const ma_database *b, const char **out)
{
    size_t n = 0;
    const ma_database *dbs[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; dbs[k] && i < ma_database_unusable_count(dbs[k]); i++)
            out[n++] = ma_database_unusable(dbs[k], i)->message;
    return n;
}

int ma_cmd_diff(int argc, char **argv, const ma_cli_invocation *typed)
{
    static const struct option opts[] = {
        {"sector", required_argument, NULL, 's'}, {"limit", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},         {"audit", required_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 't'}, {"quiet", no_argument, NULL, 'q'},
        {"full", no_argument, NULL, 'f'},         {"help", no_argument, NULL, 'h'},
        {"junit", required_argument, NULL, 'J'},  {"shard", required_argument, NULL, 'S'},
        {"no-digest-check", no_argument, NULL, 'D'},
        {NULL, 0, NULL, 0},
    };
    ma_sector_pick picks[MAX_SECTOR_ARGS];
    size_t n_picks = 0;
    int json = 0, quiet = 0, c;
    unsigned shard_index = 0, shard_count = 0;
    const char *audit_path = NULL, *junit_path = NULL;
    ma_diff_options opt = {0, 5, 0};
    ma_database_options dbo = {0};
    long v;
    ma_error err;
    optind = 1;
    while ((c = ma_opt_next("diff", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 's':
            if (ma_sector_picks_parse(optarg, picks, MAX_SECTOR_ARGS, &n_picks, &err)) {
                return ma_opt_error("diff", "--sector %s", err.msg);
            }
            break;
        case 'l':
            if (ma_opt_long("diff", "--limit", optarg, 0, 100000, &v))
                return MA_EXIT_USAGE;
            opt.limit = (size_t)v;
            break;
        case 't':
            if (ma_opt_long("diff", "--threads", optarg, 1, 64, &v))
                return MA_EXIT_USAGE;
            opt.threads = (unsigned)v;
            break;
        case 'j': json = 1; break;
        case 'a': audit_path = optarg; break;
        case 'J': junit_path = optarg; break;
        case 'q': quiet = 1; break;
        case 'f': opt.full = 1; break;
        case 'D': dbo.no_digest_check = 1; break;
        case 'S':
            if (ma_cli_parse_shard(optarg, &shard_index, &shard_count)) {
                return ma_opt_error("diff", "--shard %s: expected I/N with 0 <= I < N, e.g. 0/4", optarg);
            }
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 2) {
        return ma_opt_error("diff", "need exactly two databases A and B");
    }
    const char *path_a = argv[optind], *path_b = argv[optind + 1];
    {
        /* the JUnit file must not replace a database, the store or its side files */
        const ma_output_input inputs[] = {{path_a, "database A", MA_INPUT_FILE},
                                          {path_b, "database B", MA_INPUT_FILE},
                                          {audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("diff", junit_path, "--junit", MA_OUTPUT_DOCUMENT, inputs, 3);
        if (refused)
            return refused;
    }
    ma_database *a = NULL, *b = NULL;
    ma_diff_sector *ss = NULL;
    size_t n = 0;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    int exit_code = MA_EXIT_OK, fatal = 0, record_failed = 0;
    totals t;
    memset(&t, 0, sizeof t);
    const char **errors = NULL;
    size_t n_errors = 0;

    int rc = ma_database_open(&a, path_a, &dbo, &err);
    if (rc == MA_OK)
        rc = ma_database_open(&b, path_b, &dbo, &err);
    if (rc == MA_OK)
        rc = ma_diff_plan(&ss, &n, a, b, picks, n_picks, &err);
    size_t n_planned = n;
    if (rc == MA_OK && shard_count)
        rc = ma_diff_plan_shard(ss, &n, shard_index, shard_count, &err);
    if (rc) {
        exit_code = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
        fatal = 1;
        goto report;
    }
    if (audit_path) {
        if ((rc = ma_audit_open(&audit, audit_path, &err)) == MA_OK) {
            char host[256], cmdline[8192], root[PATH_MAX];
            ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
            if (!realpath(path_a, root))
                snprintf(root, sizeof root, "%s", path_a);
            unsigned vars = ma_database_variants(a);
            const char *variant = NULL;
            for (int k = MA_VARIANT_STD; k <= MA_VARIANT_MORA; k++)
                if (vars == 1u << k)
                    variant = ma_variant_name((ma_variant)k);
            ma_run_info info = {"diff", MA_VERSION, MA_GIT_REVISION, host, cmdline, root, variant,
                                ma_format_name(ma_database_format(a))};
            rc = ma_audit_run_begin(audit, &info, &run_id, &err);
        }
        if (rc) {
            exit_code = rc == MA_EFORMAT ? MA_EXIT_BAD_INPUT : MA_EXIT_IO;
            fatal = 1;
            goto report;
        }
    }
    if (shard_count && !json)
        printf("shard %u/%u: %zu of %zu sector pairs\n", shard_index, shard_count, n, n_planned);
    for (size_t i = 0; i < n; i++) {
        ma_diff_sector *s = &ss[i];
        if ((rc = ma_diff_sector_compare(s, a, b, &opt, &err)) != MA_OK) {
            exit_code = ma_exit_code_for(rc);
            fatal = 1;
            goto report;
        }
        t.by_status[s->status]++;
        t.positions += s->r.positions;
        for (int k = 0; k < MA_DIFF_CLASSES; k++)
            t.counts[k] += s->r.counts[k];
        if (!json)
            print_text_sector(stdout, s, quiet);
        if (audit && !record_failed && ma_diff_record(audit, run_id, s, &err)) {
            record_failed = 1;
            fprintf(stderr, "millaudit diff: %s\n", err.msg);
        }
        fflush(stdout);
    }
    /* 1 over 3 (a difference found outweighs an input that could not be compared), as verify */
    if (t.by_status[MA_DIFF_DIFFERS] || t.by_status[MA_DIFF_ONLY_A] || t.by_status[MA_DIFF_ONLY_B])
        exit_code = MA_EXIT_MISMATCH;
    else if (t.by_status[MA_DIFF_UNUSABLE] || ma_database_unusable_count(a) ||
             ma_database_unusable_count(b))
        exit_code = MA_EXIT_BAD_INPUT;

report:
    if (audit && run_id) {
        const char *status = exit_code == MA_EXIT_OK         ? "ok"
                             : exit_code == MA_EXIT_MISMATCH ? "discrepancies"
                                                             : "unusable";
        ma_error e2;
        if (ma_audit_run_end(audit, run_id, status, &e2) && !record_failed) {
            record_failed = 1;
            fprintf(stderr, "millaudit diff: %s\n", e2.msg);
        }
    }
    if (junit_path) {
        ma_error jerr;
        if (write_junit(junit_path, path_a, path_b, ss, n, fatal ? err.msg : NULL, &jerr)) {
            fprintf(stderr, "millaudit diff: %s\n", jerr.msg);
            record_failed = 1; /* a report asked for and not written: as an incomplete record */
        }
    }
    if (record_failed)
        exit_code = MA_EXIT_IO; /* the record asked for is incomplete: wins over 1 and 3 */
    errors = calloc((a ? ma_database_unusable_count(a) : 0) + (b ? ma_database_unusable_count(b) : 0) + 1,
                    sizeof *errors);
    if (errors) {
        n_errors = collect_errors(a, b, errors);
        if (fatal)
            errors[n_errors++] = err.msg;
    }
    for (size_t i = 0; i < n_errors; i++)
        fprintf(stderr, "millaudit diff: %s\n", errors[i]);
    if (json)
        print_json(path_a, path_b, a, b, &opt, shard_index, shard_count, ss, n, &t, errors, n_errors, exit_code);
    else if (!json && !fatal) {
        /* sectors whose only difference is in header bytes: say so, an encoding count alone alarms */
        uint64_t outside = 0;
        char header_only[96] = "";
        for (size_t i = 0; i < n; i++)
            outside += ss[i].r.outside_entries_only;
        if (outside)
            snprintf(header_only, sizeof header_only, " (%" PRIu64 " sector%s differ%s only in header bytes)",
                     outside, outside == 1 ? "" : "s", outside == 1 ? "s" : "");
        /* counts with thousands separators, as the reports and verify print them */
        char g[5][32];
        printf("total: %zu sectors (%" PRIu64 " identical), %s positions, outcome %s"
               ", depth %s, draw-class %s, encoding %s%s"
               ", only-in-A %" PRIu64 ", only-in-B %" PRIu64 ", unusable %" PRIu64 ": %s\n",
               n, t.by_status[MA_DIFF_IDENTICAL], ma_progress_group(g[0], 32, t.positions),
               ma_progress_group(g[1], 32, t.counts[MA_DIFF_OUTCOME]), ma_progress_group(g[2], 32, t.counts[MA_DIFF_DEPTH]),
               ma_progress_group(g[3], 32, t.counts[MA_DIFF_DRAW_CLASS]),
               ma_progress_group(g[4], 32, t.counts[MA_DIFF_ENCODING]), header_only,
               t.by_status[MA_DIFF_ONLY_A], t.by_status[MA_DIFF_ONLY_B],
               t.by_status[MA_DIFF_UNUSABLE],
               t.by_status[MA_DIFF_DIFFERS] || t.by_status[MA_DIFF_ONLY_A] ||
                       t.by_status[MA_DIFF_ONLY_B]
                   ? "values differ"
               : t.by_status[MA_DIFF_UNUSABLE] || n_errors ? "incomplete (unusable files)"
                                                           : "values agree");
    }
    if (fflush(stdout) != 0 && exit_code < MA_EXIT_IO)
        exit_code = MA_EXIT_IO;
    free(errors);
    ma_audit_close(audit);
    ma_diff_plan_free(ss, n);
    ma_database_close(a);
    ma_database_close(b);
    return exit_code;
}
