/* reports/render/verify_json: a verify run and a shard plan as JSON documents (reports/render/verify_render.h),
 * written with the one JSON writer (jansson); file names and messages through the one escaper
 * (common/json_text.h). */
#include "reports/render/verify_render.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "reports/render/integrity_render.h"
#include "verifier/run/run.h"

static json_t *value_json(int kind, int exact, ma_value v, int has_class, int32_t draw_class, int marker,
                          const char *text, int *bad)
{
    json_t *o = json_object();
    const char *outcome = kind == 0   ? ma_outcome_name(v.outcome)
                          : kind == 2 ? "marker"
                          : kind == 3 ? "none"
                                      : "unknown";
    ma_json_put(o, "outcome", json_string(outcome), bad);
    if (kind == 0 && v.outcome != MA_OUTCOME_DRAW)
        ma_json_put(o, "depth", json_integer(v.depth), bad);
    if (kind == 0 && has_class && v.outcome == MA_OUTCOME_DRAW)
        ma_json_put(o, "draw_class", json_integer(draw_class), bad);
    if (kind == 2)
        ma_json_put(o, "marker", json_integer(marker), bad);
    if (exact >= 0)
        ma_json_put(o, "bound", json_string(exact ? "exact" : "lower"), bad);
    ma_json_put(o, "text", ma_json_store_text(text), bad);
    return o;
}

static json_t *row_json(const ma_vrun_row *w, int *bad)
{
    json_t *o = json_object();
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    ma_json_put(o, "entry", json_integer((json_int_t)w->entry), bad);
    ma_json_put(o, "offset", json_integer((json_int_t)w->offset), bad);
    ma_json_put(o, "board", json_string(board), bad);
    int skind = w->stored.kind == MA_STORED_VALUE ? 0 : w->stored.kind == MA_STORED_BAD ? 1 : 3;
    if (w->stored.kind == MA_STORED_NONE && w->stored.marker >= 0)
        skind = 2;
    json_t *st = value_json(skind, -1, w->stored.value, w->stored.has_draw_class, w->stored.draw_class,
                            w->stored.marker, w->stored_text, bad);
    if (w->stored.kind == MA_STORED_BAD)
        ma_json_put(st, "outcome", json_string("bad"), bad);
    ma_json_put(o, "stored", st, bad);
    ma_json_put(o, "derived", value_json(w->derived_kind, w->derived_exact, w->derived, w->has_draw_class,
                                                 w->derived_draw_class, w->expected_marker, w->derived_text, bad), bad);
    ma_json_put(o, "class", json_string(ma_disc_class_name(w->cls)), bad);
    ma_json_put(o, "root", json_boolean(w->root), bad);
    if (w->has_refutation) {
        json_t *ref = json_object();
        ma_json_put(ref, "move", json_string(w->move), bad);
        if (w->successor.mover | w->successor.opp) {
            char succ[96];
            ma_board_format(w->successor, succ, sizeof succ);
            ma_json_put(ref, "successor", json_string(succ), bad);
        }
        ma_json_put(o, "refutation", ref, bad);
    }
    return o;
}

static void set_counts(json_t *o, const char *const names[], const uint64_t *values, size_t n, int *bad)
{
    for (size_t i = 0; i < n; i++)
        ma_json_put(o, names[i], json_integer((json_int_t)values[i]), bad);
}

static json_t *classes_json(const uint64_t by_class[MA_DISC_CLASSES], int *bad)
{
    json_t *c = json_object();
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        ma_json_put(c, ma_disc_class_name(k), json_integer((json_int_t)by_class[k]), bad);
    return c;
}

static json_t *sector_json(const ma_vrun_sector *s, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "sector", json_string(s->name), bad);
    ma_json_put(o, "variant", json_string(ma_variant_name(s->variant)), bad);
    ma_json_put(o, "file", ma_json_store_text(s->path), bad);
    ma_json_put(o, "status", json_string(ma_sector_status_name(s->status)), bad);
    ma_json_put(o, "carried_over", json_boolean(s->carried), bad);
    ma_json_put(o, "from_run", s->carried ? json_integer(s->from_run) : json_null(), bad);
    ma_json_put(o, "message", s->message[0] ? ma_json_store_text(s->message) : json_null(), bad);
    ma_json_put(o, "body_digest", json_string(s->body_digest == 1   ? "match"
                                                      : s->body_digest == 0 ? "mismatch"
                                                                            : "none"), bad);
    if (s->status != MA_SECTOR_UNUSABLE) {
        static const char *const names[] = {"entries",       "checked",       "canonical", "markers",
                                            "verified",      "within_bounds", "bound_wins", "missing_child",
                                            "unverifiable",  "discrepancies", "roots",     "propagated"};
        const uint64_t v[] = {s->entries,       s->checked,       s->canonical,  s->markers,
                              s->verified,      s->within_bounds, s->bound_wins, s->missing_child,
                              s->unverifiable,  s->discrepancies, s->roots,      s->propagated};
        set_counts(o, names, v, sizeof v / sizeof *v, bad);
        ma_json_put(o, "seconds", json_real(s->seconds), bad);
        ma_json_put(o, "classes", classes_json(s->by_class, bad), bad);
        ma_json_put(o, "derived_sha256", s->has_digest ? json_string(s->digest) : json_null(), bad);
        ma_json_put(o, "derived_positions",
                            s->has_digest ? json_integer((json_int_t)s->digest_positions) : json_null(), bad);
    }
    return o;
}

/* Writes o compactly and drops it; open: without its closing brace, more members follow. 1 when o
 * is incomplete (bad: a member could not be built) or has no text: the caller stops, leaving a
 * document cut short that no parser accepts, and says out of memory. */
static int print_json(FILE *out, json_t *o, int open, int bad)
{
    char *text = bad ? NULL : ma_json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return 1;
    fwrite(text, 1, strlen(text) - (open ? 1 : 0), out);
    free(text);
    return 0;
}

/* A sector with its rows. The rows are dumped one at a time: a sector may hold millions of them
 * (--max-rows), and a jansson tree of them all would cost some 3 KB per row. */
static int print_sector_json(FILE *out, const ma_vrun_sector *s)
{
    int bad = 0;
    json_t *o = sector_json(s, &bad);
    if (print_json(out, o, 1, bad))
        return 1;
    if (s->status != MA_SECTOR_UNUSABLE) {
        fputs(",\"rows\":[", out);
        for (size_t k = 0; k < s->n_rows; k++) {
            int row_bad = 0;
            json_t *row = row_json(&s->rows[k], &row_bad);
            if (k)
                fputc(',', out);
            if (print_json(out, row, 0, row_bad))
                return 1;
        }
        fputc(']', out);
    }
    fputc('}', out);
    return 0;
}

static json_t *database_json(const ma_vrun *run, const char *root, int *bad)
{
    json_t *db = json_object();
    ma_json_put(db, "root", ma_json_store_text(root), bad);
    ma_format f = ma_vrun_format(run);
    ma_json_put(db, "format", f ? json_string(ma_format_name(f)) : json_null(), bad);
    json_t *vars = json_array();
    for (int v = 1; v <= 3; v++)
        if (ma_vrun_variants(run) >> v & 1)
            ma_json_push(vars, json_string(ma_variant_name((ma_variant)v)), bad);
    ma_json_put(db, "variants", vars, bad);
    return db;
}

static json_t *options_json(const ma_vrun_options *opt, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "threads", json_integer(opt->threads), bad);
    ma_json_put(o, "max_rows", json_integer((json_int_t)opt->max_rows), bad);
    ma_json_put(o, "full_board_draw", json_boolean(opt->full_board_draw), bad);
    ma_json_put(o, "allow_bounds", json_boolean(opt->allow_bounds), bad);
    if (opt->shard_count > 1) {
        json_t *sh = json_object();
        ma_json_put(sh, "index", json_integer(opt->shard_index), bad);
        ma_json_put(sh, "count", json_integer(opt->shard_count), bad);
        ma_json_put(o, "shard", sh, bad);
    }
    return o;
}

static json_t *totals_json(const ma_vrun_totals *t, int *bad)
{
    json_t *tot = json_object();
    static const char *const names[] = {"sectors",  "sectors_checked", "sectors_carried_over", "sectors_unusable",
                                        "sectors_not_checked", "entries", "checked", "canonical",
                                        "markers",  "verified", "within_bounds", "bound_wins",
                                        "missing_child", "unverifiable", "discrepancies", "roots",
                                        "propagated"};
    const uint64_t v[] = {t->sectors,       t->sectors_checked, t->sectors_carried, t->sectors_unusable,
                          t->sectors_not_checked, t->entries, t->checked, t->canonical,
                          t->markers,       t->verified,      t->within_bounds, t->bound_wins,
                          t->missing_child, t->unverifiable,  t->discrepancies, t->roots,
                          t->propagated};
    set_counts(tot, names, v, sizeof v / sizeof *v, bad);
    ma_json_put(tot, "classes", classes_json(t->by_class, bad), bad);
    ma_json_put(tot, "body_digest_mismatches", json_integer((json_int_t)t->body_digest_mismatches), bad);
    ma_json_put(tot, "files_damaged", json_integer((json_int_t)t->files_damaged), bad);
    ma_json_put(tot, "sectors_damaged", json_integer((json_int_t)t->sectors_damaged), bad);
    ma_json_put(tot, "sectors_input_damaged", json_integer((json_int_t)t->sectors_input_damaged), bad);
    /* every entry is one of these four (docs/runs.md): the report counts the same way */
    ma_json_put(tot, "not_verified", json_integer((json_int_t)(t->entries - t->verified - t->within_bounds -
                                                                       t->discrepancies)), bad);
    return tot;
}

int ma_render_verify_json(FILE *out, const ma_vrun *run, const char *const *errors, size_t n_errors,
                          int exit_status)
{
    const ma_vrun_options *opt = ma_vrun_options_of(run);
    int ok = 0, *bad = &ok;
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(MA_VERIFY_SCHEMA_VERSION), bad);
    ma_json_put(doc, "command", json_string("verify"), bad);
    ma_json_put(doc, "database", database_json(run, opt->root, bad), bad);
    static const char *const modes[] = {"full", "resume", "incremental"};
    ma_json_put(doc, "mode", json_string(modes[opt->mode]), bad);
    ma_json_put(doc, "run_id", ma_vrun_id(run) ? json_integer(ma_vrun_id(run)) : json_null(), bad);
    ma_json_put(doc, "resumed_from",
                        ma_vrun_resumed_from(run) ? json_integer(ma_vrun_resumed_from(run)) : json_null(), bad);
    ma_json_put(doc, "options", options_json(opt, bad), bad);
    ma_json_put(doc, "verdict", json_string(ma_verdict_state_name(ma_vrun_verdict_of(run))), bad);
    /* damage first: what was checked against what was published, and what to fetch again */
    ma_json_put(doc, "integrity", ma_render_integrity_json(run, bad), bad);
    ma_json_put(doc, "next", ma_render_next_json(run, bad), bad);
    ma_json_put(doc, "totals", totals_json(ma_vrun_totals_of(run), bad), bad);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        ma_json_push(errs, ma_json_store_text(errors[i]), bad);
    ma_json_put(doc, "errors", errs, bad);
    ma_json_put(doc, "record_complete", json_boolean(!ma_vrun_record_failed(run)), bad);
    ma_json_put(doc, "scope", json_string(ma_vrun_covers_database(run) ? "database" : "sectors"), bad);
    ma_json_put(doc, "seconds", json_real(ma_vrun_seconds(run)), bad);
    ma_json_put(doc, "exit", json_integer(exit_status), bad);
    /* the document, then its sectors streamed into it (print_sector_json) */
    if (print_json(out, doc, 1, *bad))
        return MA_ENOMEM;
    fputs(",\"sectors\":[", out);
    for (size_t i = 0; i < ma_vrun_sector_count(run); i++) {
        if (i)
            fputc(',', out);
        if (print_sector_json(out, ma_vrun_sector_at(run, i)))
            return MA_ENOMEM;
    }
    fputs("]}\n", out);
    return MA_OK;
}

/* ---- the plan ---- */

static json_t *plan_shard_json(const ma_shard_plan *p, unsigned k, int *bad)
{
    const ma_shard_plan_shard *sh = &p->shards[k];
    json_t *o = json_object(), *names = json_array();
    ma_json_put(o, "shard", json_integer(k), bad);
    ma_json_put(o, "sectors", json_integer((json_int_t)sh->sectors), bad);
    ma_json_put(o, "entries", json_integer((json_int_t)sh->entries), bad);
    ma_json_put(o, "cost", json_real(sh->cost), bad);
    ma_json_put(o, "bytes", json_integer((json_int_t)sh->bytes), bad);
    ma_json_put(o, "peak_bytes", json_integer((json_int_t)sh->peak_bytes), bad);
    for (size_t i = 0; i < p->n_sectors; i++)
        if (p->sectors[i].shard == k)
            ma_json_push(names, json_string(p->sectors[i].name), bad);
    ma_json_put(o, "sector_names", names, bad);
    return o;
}

static json_t *plan_sector_json(const ma_shard_plan_sector *x, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "sector", json_string(x->name), bad);
    ma_json_put(o, "shard", json_integer(x->shard), bad);
    ma_json_put(o, "entries", json_integer((json_int_t)x->entries), bad);
    ma_json_put(o, "cost", json_real(x->cost), bad);
    ma_json_put(o, "bytes", json_integer((json_int_t)x->bytes), bad);
    ma_json_put(o, "peak_bytes", json_integer((json_int_t)x->peak_bytes), bad);
    return o;
}

int ma_render_shard_plan_json(FILE *out, const ma_shard_plan *p, const char *root)
{
    int ok = 0, *bad = &ok;
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(MA_PLAN_SCHEMA_VERSION), bad);
    ma_json_put(doc, "command", json_string("verify-plan"), bad);
    json_t *d = json_object();
    ma_json_put(d, "root", ma_json_store_text(root), bad);
    ma_json_put(d, "format", p->format ? json_string(ma_format_name(p->format)) : json_null(), bad);
    ma_json_put(doc, "database", d, bad);
    ma_json_put(doc, "shards", json_integer(p->n_shards), bad);
    ma_json_put(doc, "sectors", json_integer((json_int_t)p->n_sectors), bad);
    ma_json_put(doc, "total_entries", json_integer((json_int_t)p->total_entries), bad);
    ma_json_put(doc, "total_cost", json_real(p->total_cost), bad);
    ma_json_put(doc, "mean_cost", json_real(p->mean_cost), bad);
    ma_json_put(doc, "largest_sector_cost", json_real(p->largest_sector_cost), bad);
    ma_json_put(doc, "largest_shard_cost", json_real(p->largest_shard_cost), bad);
    ma_json_put(doc, "imbalance", json_real(p->imbalance), bad);
    json_t *shards = json_array();
    for (unsigned k = 0; k < p->n_shards; k++)
        ma_json_push(shards, plan_shard_json(p, k, bad), bad);
    ma_json_put(doc, "plan", shards, bad);
    json_t *secs = json_array();
    for (size_t i = 0; i < p->n_sectors; i++)
        ma_json_push(secs, plan_sector_json(&p->sectors[i], bad), bad);
    ma_json_put(doc, "sector_plan", secs, bad);
    json_t *errs = json_array();
    for (size_t i = 0; i < p->n_unusable; i++)
        ma_json_push(errs, ma_json_store_text(p->unusable[i]), bad);
    ma_json_put(doc, "errors", errs, bad);
    if (print_json(out, doc, 0, *bad))
        return MA_ENOMEM;
    fputc('\n', out);
    return MA_OK;
}

int ma_render_verify_json_buffer(char **out, size_t *len, const ma_vrun *r, const char *const *errors,
                                 size_t n_errors, int exit_status, ma_error *err)
{
    size_t n = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &n);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = ma_render_verify_json(f, r, errors, n_errors, exit_status);
    if (fclose(f) || !*out || rc) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    if (len)
        *len = n;
    return MA_OK;
}
