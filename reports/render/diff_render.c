/*
 * The renderers of `millaudit diff` (include/millaudit/diff.h): a pair as text, the shard line,
 * the end of the run (messages, then the JSON document of docs/json/diff.schema.json or the text
 * total), and the JUnit report (reports/render/diff_junit.h).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/json_text.h"
#include "millaudit.h"
#include "common/progress.h"
#include "indexer/position.h"
#include "reports/render/diff_junit.h"
#include "verifier/run/diff.h"

#define DIFF_SCHEMA_VERSION 1

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

void ma_diff_render_pair_text(FILE *out, const ma_diff_sector *s, int quiet)
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

void ma_diff_render_plan_text(FILE *out, const ma_diff_report *r)
{
    if (r->shard_count)
        fprintf(out, "shard %u/%u: %zu of %zu sector pairs\n", r->shard_index, r->shard_count, r->n,
                r->n_planned);
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
    json_object_set_new(o, "text", ma_json_store_text(text));
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
    json_object_set_new(o, "file_a", s->path_a ? ma_json_store_text(s->path_a) : json_null());
    json_object_set_new(o, "file_b", s->path_b ? ma_json_store_text(s->path_b) : json_null());
    json_object_set_new(o, "format_a", format_json(s->format_a));
    json_object_set_new(o, "format_b", format_json(s->format_b));
    json_object_set_new(o, "message", s->message[0] ? ma_json_store_text(s->message) : json_null());
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
    json_object_set_new(o, "root", ma_json_store_text(given));
    json_object_set_new(o, "format", db ? format_json(ma_database_format(db)) : json_null());
    json_t *vars = json_array();
    for (int v = MA_VARIANT_STD; db && v <= MA_VARIANT_MORA; v++)
        if (ma_database_variants(db) & (1u << v))
            json_array_append_new(vars, json_string(ma_variant_name((ma_variant)v)));
    json_object_set_new(o, "variants", vars);
    return o;
}

static json_t *options_json(const ma_diff_report *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "threads", json_integer(r->compare.threads));
    json_object_set_new(o, "limit", count(r->compare.limit));
    json_object_set_new(o, "full", json_boolean(r->compare.full));
    if (r->shard_count) {
        json_t *sh = json_object();
        json_object_set_new(sh, "index", json_integer(r->shard_index));
        json_object_set_new(sh, "count", json_integer(r->shard_count));
        json_object_set_new(o, "shard", sh);
    }
    return o;
}

static json_t *totals_json(const ma_diff_report *r)
{
    json_t *tot = json_object();
    json_object_set_new(tot, "sectors", count(r->n));
    for (int k = MA_DIFF_IDENTICAL; k < MA_DIFF_STATUSES; k++)
        json_object_set_new(tot, ma_diff_status_name((ma_diff_status)k), count(r->by_status[k]));
    json_object_set_new(tot, "positions", count(r->positions));
    json_object_set_new(tot, "differences", classes_json(r->counts));
    json_object_set_new(tot, "values_agree",
                        json_boolean(!r->by_status[MA_DIFF_DIFFERS] && !r->by_status[MA_DIFF_ONLY_A] &&
                                     !r->by_status[MA_DIFF_ONLY_B] && !r->by_status[MA_DIFF_UNUSABLE]));
    return tot;
}

static void print_json(FILE *out, const ma_diff_report *r, const char *const *errors, size_t n_errors)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(DIFF_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("diff"));
    json_object_set_new(doc, "a", database_json(r->path_a, r->a));
    json_object_set_new(doc, "b", database_json(r->path_b, r->b));
    json_object_set_new(doc, "options", options_json(r));
    json_t *secs = json_array();
    for (size_t i = 0; i < r->n; i++)
        json_array_append_new(secs, sector_json(&r->pairs[i]));
    json_object_set_new(doc, "sectors", secs);
    json_object_set_new(doc, "totals", totals_json(r));
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        json_array_append_new(errs, ma_json_store_text(errors[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "exit", json_integer(ma_result_exit_code(r->result)));
    json_dumpf(doc, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(doc);
}

/* ---- the end of the run ---- */

static void print_total(FILE *out, const ma_diff_report *r, size_t n_errors)
{
    const uint64_t *t = r->by_status, *c = r->counts;
    /* sectors whose only difference is in header bytes: say so, an encoding count alone alarms */
    uint64_t outside = 0;
    char header_only[96] = "";
    for (size_t i = 0; i < r->n; i++)
        outside += r->pairs[i].r.outside_entries_only;
    if (outside)
        snprintf(header_only, sizeof header_only, " (%" PRIu64 " sector%s differ%s only in header bytes)",
                 outside, outside == 1 ? "" : "s", outside == 1 ? "s" : "");
    /* counts with thousands separators, as the reports and verify print them */
    char g[5][32];
    fprintf(out, "total: %zu sectors (%" PRIu64 " identical), %s positions, outcome %s"
            ", depth %s, draw-class %s, encoding %s%s"
            ", only-in-A %" PRIu64 ", only-in-B %" PRIu64 ", unusable %" PRIu64 ": %s\n",
            r->n, t[MA_DIFF_IDENTICAL], ma_progress_group(g[0], 32, r->positions),
            ma_progress_group(g[1], 32, c[MA_DIFF_OUTCOME]), ma_progress_group(g[2], 32, c[MA_DIFF_DEPTH]),
            ma_progress_group(g[3], 32, c[MA_DIFF_DRAW_CLASS]),
            ma_progress_group(g[4], 32, c[MA_DIFF_ENCODING]), header_only,
            t[MA_DIFF_ONLY_A], t[MA_DIFF_ONLY_B], t[MA_DIFF_UNUSABLE],
            t[MA_DIFF_DIFFERS] || t[MA_DIFF_ONLY_A] || t[MA_DIFF_ONLY_B] ? "values differ"
            : t[MA_DIFF_UNUSABLE] || n_errors                           ? "incomplete (unusable files)"
                                                                        : "values agree");
}

int ma_diff_render_end(FILE *out, FILE *diag, const ma_diff_report *r, int json)
{
    for (int i = 0; i < r->n_notices; i++)
        fprintf(diag, "millaudit diff: %s\n", r->notices[i]);
    /* every file either database could not use, in A then B, discovery order; then the failure */
    size_t n_a = r->a ? ma_database_unusable_count(r->a) : 0;
    size_t n_b = r->b ? ma_database_unusable_count(r->b) : 0, n_errors = 0;
    const char **errors = calloc(n_a + n_b + 1, sizeof *errors);
    if (!errors)
        return MA_ENOMEM;
    for (size_t i = 0; i < n_a; i++)
        errors[n_errors++] = ma_database_unusable(r->a, i)->message;
    for (size_t i = 0; i < n_b; i++)
        errors[n_errors++] = ma_database_unusable(r->b, i)->message;
    if (r->fatal)
        errors[n_errors++] = r->failure.msg;
    for (size_t i = 0; i < n_errors; i++) {
        char words[1100];
        fprintf(diag, "millaudit diff: %s\n", ma_render_option_words(errors[i], words, sizeof words));
    }
    if (json)
        print_json(out, r, errors, n_errors);
    else if (!r->fatal)
        print_total(out, r, n_errors);
    free(errors);
    return MA_OK;
}

/* The JUnit report (reports/render/diff_junit.h); pairs still pending were not compared. */
int ma_diff_render_junit(const ma_diff_report *r, const char *path, ma_error *err)
{
    ma_diff_junit_pair *jp = calloc(r->n ? r->n : 1, sizeof *jp);
    if (!jp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < r->n; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        int compared = s->status == MA_DIFF_IDENTICAL || s->status == MA_DIFF_EQUAL ||
                       s->status == MA_DIFF_DIFFERS;
        jp[i] = (ma_diff_junit_pair){s->name, ma_variant_name(s->variant),
                                     s->status == MA_DIFF_PENDING ? NULL : ma_diff_status_name(s->status),
                                     s->path_a, s->path_b,
                                     s->status == MA_DIFF_UNUSABLE ? s->message : NULL,
                                     compared ? &s->r : NULL};
    }
    int rc = ma_diff_junit_write(path, r->path_a, r->path_b, jp, r->n,
                                 r->fatal ? r->failure.msg : NULL, err);
    free(jp);
    return rc;
}

