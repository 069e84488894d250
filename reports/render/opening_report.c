/* Rendering an opening proof (millaudit/game.h): the text for a terminal and the JSON document of
 * docs/json/opening.schema.json, both from the proof's data alone. */
#include <inttypes.h>
#include <stdio.h>

#include <jansson.h>

#include "common/counts.h"
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

static json_t *value_json(ma_value v, int with_depth)
{
    json_t *o = json_object();
    json_object_set_new(o, "outcome", json_string(ma_outcome_name(v.outcome)));
    json_object_set_new(o, "depth", with_depth && depth_or_null(v) >= 0 ? json_integer(v.depth)
                                                                         : json_null());
    return o;
}

static json_t *pass_json(const ma_opening_pass *p, const char *name)
{
    json_t *o = json_object();
    json_object_set_new(o, "assumption", json_string(name));
    json_object_set_new(o, "value", value_json(p->value, 1));
    json_object_set_new(o, "pv", json_string(p->pv));
    json_object_set_new(o, "pv_end", json_string(p->pv_end));
    json_object_set_new(o, "nodes", json_integer((json_int_t)p->nodes));
    json_object_set_new(o, "leaves", json_integer((json_int_t)p->leaves));
    json_object_set_new(o, "unknown_leaves", json_integer((json_int_t)p->unknown_leaves));
    json_object_set_new(o, "tt_probes", json_integer((json_int_t)p->tt_probes));
    json_object_set_new(o, "tt_hits", json_integer((json_int_t)p->tt_hits));
    json_object_set_new(o, "tt_replacements", json_integer((json_int_t)p->tt_replacements));
    json_object_set_new(o, "seconds", json_real(p->seconds));
    return o;
}

static json_t *comparisons_json(const ma_opening_result *r)
{
    json_t *cmp = json_object();
    json_object_set_new(cmp, "exact_checked", json_integer((json_int_t)r->exact_checked));
    json_object_set_new(cmp, "bound_checked", json_integer((json_int_t)r->bound_checked));
    json_object_set_new(cmp, "discrepancies", json_integer((json_int_t)r->discrepancies));
    json_t *secs = json_array();
    for (size_t i = 0; i < r->n_tallies; i++) {
        const ma_opening_tally *t = &r->tallies[i];
        json_t *s = json_object();
        json_object_set_new(s, "sector", json_string(t->name));
        json_object_set_new(s, "exact_checked", json_integer((json_int_t)t->exact_checked));
        json_object_set_new(s, "exact_agreed", json_integer((json_int_t)t->exact_agreed));
        json_object_set_new(s, "bound_checked", json_integer((json_int_t)t->bound_checked));
        json_object_set_new(s, "bound_agreed", json_integer((json_int_t)t->bound_agreed));
        json_object_set_new(s, "discrepancies", json_integer((json_int_t)t->discrepancies));
        json_array_append_new(secs, s);
    }
    json_object_set_new(cmp, "sectors", secs);
    json_t *rows = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        char board[80];
        ma_board_format(d->board, board, sizeof board);
        json_t *x = json_object();
        json_object_set_new(x, "sector", json_string(d->sector));
        json_object_set_new(x, "entry", json_integer((json_int_t)d->entry));
        json_object_set_new(x, "board", json_string(board));
        json_object_set_new(x, "stored", json_string(d->stored));
        json_object_set_new(x, "derived", json_string(d->derived));
        json_object_set_new(x, "class", json_string("opening"));
        json_array_append_new(rows, x);
    }
    json_object_set_new(cmp, "rows", rows);
    return cmp;
}

static int print_json(FILE *out, const ma_opening_facts *p)
{
    const ma_opening_result *r = p->result;
    json_t *o = json_object();
    json_object_set_new(o, "schema_version", json_integer(JSON_SCHEMA_VERSION));
    json_object_set_new(o, "database", json_string(p->database));
    json_object_set_new(o, "variant", json_string(ma_variant_name(p->variant)));
    json_object_set_new(o, "stones", json_integer(p->stones));
    json_object_set_new(o, "status", json_string(status_name(r->status)));
    json_object_set_new(o, "value", r->status == MA_OPENING_UNPROVEN
                                        ? json_null()
                                        : value_json(r->value, r->status == MA_OPENING_PROVEN));
    json_object_set_new(o, "lower", value_json(r->lower, 1));
    json_object_set_new(o, "upper", value_json(r->upper, 1));
    json_object_set_new(o, "stored_start",
                        p->stored_start ? json_string(p->stored_start) : json_null());
    json_t *passes = json_array();
    for (int i = 0; i < r->passes; i++)
        json_array_append_new(passes, pass_json(&r->pass[i], r->passes == 1 ? "exact"
                                                             : i == 0     ? "pessimistic"
                                                                          : "optimistic"));
    json_object_set_new(o, "passes", passes);
    json_object_set_new(o, "nodes", json_integer((json_int_t)r->nodes));
    json_object_set_new(o, "tt_probes", json_integer((json_int_t)r->tt_probes));
    json_object_set_new(o, "tt_hits", json_integer((json_int_t)r->tt_hits));
    json_object_set_new(o, "tt_entries", json_integer((json_int_t)r->tt_entries));
    json_object_set_new(o, "unknown_leaves", json_integer((json_int_t)r->unknown_leaves));
    json_object_set_new(o, "missing_sectors", json_string(p->missing));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "comparisons", comparisons_json(r));
    json_object_set_new(o, "exit", json_integer(ma_result_exit_code(p->search_result)));
    int rc = json_dumpf(o, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(o);
    return rc ? -1 : 0;
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
