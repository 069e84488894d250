/* Rendering an opening proof (millaudit/game.h): the text for a terminal and the JSON document of
 * docs/json/opening.schema.json, both from the proof's data alone. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "millaudit/game.h"
#include "common/verdict.h"

#define JSON_SCHEMA_VERSION 1

static const char *status_name(int s)
{
    return s == MA_OPENING_PROVEN ? "proven" : s == MA_OPENING_OUTCOME_PROVEN ? "outcome-proven"
                                                                                : "unproven";
}

static int depth_or_null(ma_value v)
{
    return v.outcome == MA_OUTCOME_WIN || v.outcome == MA_OUTCOME_LOSS ? v.depth : -1;
}

static json_t *value_json(ma_value v, int with_depth, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "outcome", json_string(ma_outcome_name(v.outcome)), bad);
    ma_json_put(o, "depth", with_depth && depth_or_null(v) >= 0 ? json_integer(v.depth)
                                                                         : json_null(), bad);
    return o;
}

static json_t *pass_json(const ma_opening_pass *p, const char *name, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "assumption", json_string(name), bad);
    ma_json_put(o, "value", value_json(p->value, 1, bad), bad);
    ma_json_put(o, "pv", json_string(p->pv), bad);
    ma_json_put(o, "pv_end", json_string(p->pv_end), bad);
    ma_json_put(o, "nodes", json_integer((json_int_t)p->nodes), bad);
    ma_json_put(o, "leaves", json_integer((json_int_t)p->leaves), bad);
    ma_json_put(o, "unknown_leaves", json_integer((json_int_t)p->unknown_leaves), bad);
    ma_json_put(o, "tt_probes", json_integer((json_int_t)p->tt_probes), bad);
    ma_json_put(o, "tt_hits", json_integer((json_int_t)p->tt_hits), bad);
    ma_json_put(o, "tt_replacements", json_integer((json_int_t)p->tt_replacements), bad);
    ma_json_put(o, "seconds", json_real(p->seconds), bad);
    return o;
}

static json_t *comparisons_json(const ma_opening_result *r, int *bad)
{
    json_t *cmp = json_object();
    ma_json_put(cmp, "exact_checked", json_integer((json_int_t)r->exact_checked), bad);
    ma_json_put(cmp, "bound_checked", json_integer((json_int_t)r->bound_checked), bad);
    ma_json_put(cmp, "discrepancies", json_integer((json_int_t)r->discrepancies), bad);
    json_t *secs = json_array();
    for (size_t i = 0; i < r->n_tallies; i++) {
        const ma_opening_tally *t = &r->tallies[i];
        json_t *s = json_object();
        ma_json_put(s, "sector", json_string(t->name), bad);
        ma_json_put(s, "exact_checked", json_integer((json_int_t)t->exact_checked), bad);
        ma_json_put(s, "exact_agreed", json_integer((json_int_t)t->exact_agreed), bad);
        ma_json_put(s, "bound_checked", json_integer((json_int_t)t->bound_checked), bad);
        ma_json_put(s, "bound_agreed", json_integer((json_int_t)t->bound_agreed), bad);
        ma_json_put(s, "discrepancies", json_integer((json_int_t)t->discrepancies), bad);
        ma_json_push(secs, s, bad);
    }
    ma_json_put(cmp, "sectors", secs, bad);
    json_t *rows = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        char board[80];
        ma_board_format(d->board, board, sizeof board);
        json_t *x = json_object();
        ma_json_put(x, "sector", json_string(d->sector), bad);
        ma_json_put(x, "entry", json_integer((json_int_t)d->entry), bad);
        ma_json_put(x, "board", json_string(board), bad);
        ma_json_put(x, "stored", json_string(d->stored), bad);
        ma_json_put(x, "derived", json_string(d->derived), bad);
        ma_json_put(x, "class", json_string("opening"), bad);
        ma_json_push(rows, x, bad);
    }
    ma_json_put(cmp, "rows", rows, bad);
    return cmp;
}

/* -1 with nothing written when the document could not be built whole (out of memory). */
static int print_json(FILE *out, const ma_opening_facts *p)
{
    int ok = 0, *bad = &ok;
    const ma_opening_result *r = p->result;
    json_t *o = json_object();
    ma_json_put(o, "schema_version", json_integer(JSON_SCHEMA_VERSION), bad);
    ma_json_put(o, "database", json_string(p->database), bad);
    ma_json_put(o, "variant", json_string(ma_variant_name(p->variant)), bad);
    ma_json_put(o, "stones", json_integer(p->stones), bad);
    ma_json_put(o, "status", json_string(status_name(r->status)), bad);
    ma_json_put(o, "value", r->status == MA_OPENING_UNPROVEN
                                        ? json_null()
                                        : value_json(r->value, r->status == MA_OPENING_PROVEN, bad), bad);
    ma_json_put(o, "lower", value_json(r->lower, 1, bad), bad);
    ma_json_put(o, "upper", value_json(r->upper, 1, bad), bad);
    ma_json_put(o, "stored_start",
                        p->stored_start ? json_string(p->stored_start) : json_null(), bad);
    json_t *passes = json_array();
    for (int i = 0; i < r->passes; i++)
        ma_json_push(passes, pass_json(&r->pass[i], r->passes == 1 ? "exact"
                                                             : i == 0     ? "pessimistic"
                                                                          : "optimistic", bad), bad);
    ma_json_put(o, "passes", passes, bad);
    ma_json_put(o, "nodes", json_integer((json_int_t)r->nodes), bad);
    ma_json_put(o, "tt_probes", json_integer((json_int_t)r->tt_probes), bad);
    ma_json_put(o, "tt_hits", json_integer((json_int_t)r->tt_hits), bad);
    ma_json_put(o, "tt_entries", json_integer((json_int_t)r->tt_entries), bad);
    ma_json_put(o, "unknown_leaves", json_integer((json_int_t)r->unknown_leaves), bad);
    ma_json_put(o, "missing_sectors", json_string(p->missing), bad);
    ma_json_put(o, "seconds", json_real(r->seconds), bad);
    ma_json_put(o, "comparisons", comparisons_json(r, bad), bad);
    ma_json_put(o, "exit", json_integer(ma_result_exit_code(p->search_result)), bad);
    char *text = *bad ? NULL : ma_json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text)
        return -1;
    fprintf(out, "%s\n", text);
    free(text);
    return 0;
}

static void print_pass(FILE *out, const char *title, const ma_opening_pass *p)
{
    char val[32];
    ma_value_format(p->value, val, sizeof val);
    double hit = p->tt_probes ? 100.0 * (double)p->tt_hits / (double)p->tt_probes : 0.0;
    fprintf(out, "%s: %s\n", title, val);
    fprintf(out, "  principal variation: %s%s%s\n", p->pv[0] ? p->pv : "(none)",
            p->pv_end[0] ? " -> " : "", p->pv_end);
    fprintf(out, "  nodes %" PRIu64 ", leaves %" PRIu64 " (%" PRIu64 " unknown), TT hits %" PRIu64
                 " of %" PRIu64 " probes (%.1f%%), %" PRIu64 " replacements, %.2f s\n",
            p->nodes, p->leaves, p->unknown_leaves, p->tt_hits, p->tt_probes, hit,
            p->tt_replacements, p->seconds);
}

static void print_value(FILE *out, const ma_opening_facts *p)
{
    const ma_opening_result *r = p->result;
    char lo[32], hi[32], val[32];
    ma_value_format(r->lower, lo, sizeof lo);
    ma_value_format(r->upper, hi, sizeof hi);
    ma_value_format(r->value, val, sizeof val);
    fprintf(out, "opening %s_0_0_%d_%d from %s (%s format, movement sectors only)\n",
            ma_variant_name(p->variant), p->stones, p->stones, p->database, ma_format_name(p->format));
    if (r->status == MA_OPENING_PROVEN)
        fprintf(out, "value: %s (proven: outcome and depth, side to move first)\n", val);
    else if (r->status == MA_OPENING_OUTCOME_PROVEN)
        fprintf(out, "value: %s (outcome proven; depth only bounded: between %s and %s)\n", val, lo, hi);
    else
        fprintf(out, "value: not proven: between %s and %s\n", lo, hi);
    if (r->passes == 1) {
        print_pass(out, "search", &r->pass[0]);
    } else {
        fprintf(out, "unknown leaves: %" PRIu64 " look-ups (%s%s%s%s), taken as [loss 0, win 1]\n",
                r->unknown_leaves, p->missing[0] ? "absent movement sectors " : "", p->missing,
                p->missing[0] && p->bad_leaves ? "; " : "",
                p->bad_leaves ? "entries without a value, below" : "");
        print_pass(out, "pessimistic pass (lower bound)", &r->pass[0]);
        print_pass(out, "optimistic pass (upper bound)", &r->pass[1]);
    }
    if (p->bad_leaves)
        fprintf(out, "leaves without a value (taken as unknown): %s; first: %s\n",
                MA_NUM(p->bad_leaves), p->first_bad);
    fprintf(out, "transposition table: %s (%zu MiB), total nodes %s, %.2f s\n",
            MA_COUNT(r->tt_entries, "entry", "entries"), r->tt_entries * 16 >> 20, MA_NUM(r->nodes), r->seconds);
    if (p->stored_start)
        fprintf(out, "stored start value: %s\n", p->stored_start);
}

static void print_comparisons(FILE *out, const ma_opening_result *r)
{
    if (!r->n_tallies) {
        fprintf(out, "comparisons: DIR holds no placement sector the search resolved\n");
        return;
    }
    fprintf(out, "comparisons with stored placement values: %s, %s in %s: %s\n",
            MA_COUNT(r->exact_checked, "exact result", "exact results"), MA_COUNT(r->bound_checked, "bound", "bounds"),
            MA_COUNT(r->n_tallies, "sector", "sectors"), MA_COUNT(r->discrepancies, "discrepancy", "discrepancies"));
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        char board[80];
        ma_board_format(d->board, board, sizeof board);
        fprintf(out, "  opening %s entry %" PRIu64 " %s: stored %s, derived %s\n", d->sector,
                d->entry, board, d->stored, d->derived);
    }
    if (r->n_rows < r->discrepancies)
        fprintf(out, "  ... %" PRIu64 " more\n", r->discrepancies - r->n_rows);
}

int ma_opening_proof_print(FILE *out, const ma_opening_proof *proof, int json)
{
    ma_opening_facts facts, *p = &facts;
    ma_opening_proof_facts(proof, &facts);
    if (json)
        return print_json(out, p);
    print_value(out, p);
    if (p->compare)
        print_comparisons(out, p->result);
    return ferror(out) ? -1 : 0;
}
