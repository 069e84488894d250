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
                          const char *text)
{
    json_t *o = json_object();
    const char *outcome = kind == 0   ? ma_outcome_name(v.outcome)
                          : kind == 2 ? "marker"
                          : kind == 3 ? "none"
                                      : "unknown";
    json_object_set_new(o, "outcome", json_string(outcome));
    if (kind == 0 && v.outcome != MA_OUTCOME_DRAW)
        json_object_set_new(o, "depth", json_integer(v.depth));
    if (kind == 0 && has_class && v.outcome == MA_OUTCOME_DRAW)
        json_object_set_new(o, "draw_class", json_integer(draw_class));
    if (kind == 2)
        json_object_set_new(o, "marker", json_integer(marker));
    if (exact >= 0)
        json_object_set_new(o, "bound", json_string(exact ? "exact" : "lower"));
    json_object_set_new(o, "text", ma_json_store_text(text));
    return o;
}

static json_t *row_json(const ma_vrun_row *w)
{
    json_t *o = json_object();
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    json_object_set_new(o, "entry", json_integer((json_int_t)w->entry));
    json_object_set_new(o, "offset", json_integer((json_int_t)w->offset));
    json_object_set_new(o, "board", json_string(board));
    int skind = w->stored.kind == MA_STORED_VALUE ? 0 : w->stored.kind == MA_STORED_BAD ? 1 : 3;
    if (w->stored.kind == MA_STORED_NONE && w->stored.marker >= 0)
        skind = 2;
    json_t *st = value_json(skind, -1, w->stored.value, w->stored.has_draw_class, w->stored.draw_class,
                            w->stored.marker, w->stored_text);
    if (w->stored.kind == MA_STORED_BAD)
        json_object_set_new(st, "outcome", json_string("bad"));
    json_object_set_new(o, "stored", st);
    json_object_set_new(o, "derived", value_json(w->derived_kind, w->derived_exact, w->derived, w->has_draw_class,
                                                 w->derived_draw_class, w->expected_marker, w->derived_text));
    json_object_set_new(o, "class", json_string(ma_disc_class_name(w->cls)));
    json_object_set_new(o, "root", json_boolean(w->root));
    if (w->has_refutation) {
        json_t *ref = json_object();
        json_object_set_new(ref, "move", json_string(w->move));
        if (w->successor.mover | w->successor.opp) {
            char succ[96];
            ma_board_format(w->successor, succ, sizeof succ);
            json_object_set_new(ref, "successor", json_string(succ));
        }
        json_object_set_new(o, "refutation", ref);
    }
    return o;
}

static void set_counts(json_t *o, const char *const names[], const uint64_t *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, names[i], json_integer((json_int_t)values[i]));
}

static json_t *classes_json(const uint64_t by_class[MA_DISC_CLASSES])
{
    json_t *c = json_object();
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        json_object_set_new(c, ma_disc_class_name(k), json_integer((json_int_t)by_class[k]));
    return c;
}

static json_t *sector_json(const ma_vrun_sector *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "sector", json_string(s->name));
    json_object_set_new(o, "variant", json_string(ma_variant_name(s->variant)));
    json_object_set_new(o, "file", ma_json_store_text(s->path));
    json_object_set_new(o, "status", json_string(ma_sector_status_name(s->status)));
    json_object_set_new(o, "carried_over", json_boolean(s->carried));
    json_object_set_new(o, "from_run", s->carried ? json_integer(s->from_run) : json_null());
    json_object_set_new(o, "message", s->message[0] ? ma_json_store_text(s->message) : json_null());
    json_object_set_new(o, "body_digest", json_string(s->body_digest == 1   ? "match"
                                                      : s->body_digest == 0 ? "mismatch"
                                                                            : "none"));
    if (s->status != MA_SECTOR_UNUSABLE) {
        static const char *const names[] = {"entries",       "checked",       "canonical", "markers",
                                            "verified",      "within_bounds", "bound_wins", "missing_child",
                                            "unverifiable",  "discrepancies", "roots",     "propagated"};
        const uint64_t v[] = {s->entries,       s->checked,       s->canonical,  s->markers,
                              s->verified,      s->within_bounds, s->bound_wins, s->missing_child,
                              s->unverifiable,  s->discrepancies, s->roots,      s->propagated};
        set_counts(o, names, v, sizeof v / sizeof *v);
        json_object_set_new(o, "seconds", json_real(s->seconds));
        json_object_set_new(o, "classes", classes_json(s->by_class));
        json_object_set_new(o, "derived_sha256", s->has_digest ? json_string(s->digest) : json_null());
        json_object_set_new(o, "derived_positions",
                            s->has_digest ? json_integer((json_int_t)s->digest_positions) : json_null());
    }
    return o;
}

/* Prints the non-empty object o compactly without its closing brace: more members follow. */
static void print_json_open(FILE *out, const json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);
    if (!text)
        return; /* out of memory: the truncated document fails any parser, and exit says why */
    fwrite(text, 1, strlen(text) - 1, out);
    free(text);
}

/* A sector with its rows. The rows are dumped one at a time: a sector may hold millions of them
 * (--max-rows), and a jansson tree of them all would cost some 3 KB per row. */
static void print_sector_json(FILE *out, const ma_vrun_sector *s)
{
    json_t *o = sector_json(s);
    print_json_open(out, o);
    json_decref(o);
    if (s->status != MA_SECTOR_UNUSABLE) {
        fputs(",\"rows\":[", out);
        for (size_t k = 0; k < s->n_rows; k++) {
            json_t *row = row_json(&s->rows[k]);
            if (k)
                fputc(',', out);
            json_dumpf(row, out, JSON_COMPACT);
            json_decref(row);
        }
        fputc(']', out);
    }
    fputc('}', out);
}

static json_t *database_json(const ma_vrun *run, const char *root)
{
    json_t *db = json_object();
    json_object_set_new(db, "root", ma_json_store_text(root));
    ma_format f = ma_vrun_format(run);
    json_object_set_new(db, "format", f ? json_string(ma_format_name(f)) : json_null());
    json_t *vars = json_array();
    for (int v = 1; v <= 3; v++)
        if (ma_vrun_variants(run) >> v & 1)
            json_array_append_new(vars, json_string(ma_variant_name((ma_variant)v)));
    json_object_set_new(db, "variants", vars);
    return db;
}

static json_t *options_json(const ma_vrun_options *opt)
{
    json_t *o = json_object();
    json_object_set_new(o, "threads", json_integer(opt->threads));
    json_object_set_new(o, "max_rows", json_integer((json_int_t)opt->max_rows));
    json_object_set_new(o, "full_board_draw", json_boolean(opt->full_board_draw));
    json_object_set_new(o, "allow_bounds", json_boolean(opt->allow_bounds));
    if (opt->shard_count > 1) {
        json_t *sh = json_object();
        json_object_set_new(sh, "index", json_integer(opt->shard_index));
        json_object_set_new(sh, "count", json_integer(opt->shard_count));
        json_object_set_new(o, "shard", sh);
    }
    return o;
}

static json_t *totals_json(const ma_vrun_totals *t)
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
    set_counts(tot, names, v, sizeof v / sizeof *v);
    json_object_set_new(tot, "classes", classes_json(t->by_class));
    json_object_set_new(tot, "body_digest_mismatches", json_integer((json_int_t)t->body_digest_mismatches));
    json_object_set_new(tot, "files_damaged", json_integer((json_int_t)t->files_damaged));
    json_object_set_new(tot, "sectors_damaged", json_integer((json_int_t)t->sectors_damaged));
    json_object_set_new(tot, "sectors_input_damaged", json_integer((json_int_t)t->sectors_input_damaged));
    /* every entry is one of these four (docs/runs.md): the report counts the same way */
    json_object_set_new(tot, "not_verified", json_integer((json_int_t)(t->entries - t->verified - t->within_bounds -
                                                                       t->discrepancies)));
    return tot;
}

void ma_render_verify_json(FILE *out, const ma_vrun *run, const char *const *errors, size_t n_errors,
                           int exit_status)
{
    const ma_vrun_options *opt = ma_vrun_options_of(run);
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(MA_VERIFY_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("verify"));
    json_object_set_new(doc, "database", database_json(run, opt->root));
    static const char *const modes[] = {"full", "resume", "incremental"};
    json_object_set_new(doc, "mode", json_string(modes[opt->mode]));
    json_object_set_new(doc, "run_id", ma_vrun_id(run) ? json_integer(ma_vrun_id(run)) : json_null());
    json_object_set_new(doc, "resumed_from",
                        ma_vrun_resumed_from(run) ? json_integer(ma_vrun_resumed_from(run)) : json_null());
    json_object_set_new(doc, "options", options_json(opt));
    json_object_set_new(doc, "verdict", json_string(ma_verdict_state_name(ma_vrun_verdict_of(run))));
    /* damage first: what was checked against what was published, and what to fetch again */
    json_object_set_new(doc, "integrity", ma_render_integrity_json(run));
    json_object_set_new(doc, "next", ma_render_next_json(run));
    json_object_set_new(doc, "totals", totals_json(ma_vrun_totals_of(run)));
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        json_array_append_new(errs, ma_json_store_text(errors[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "record_complete", json_boolean(!ma_vrun_record_failed(run)));
    json_object_set_new(doc, "scope", json_string(ma_vrun_covers_database(run) ? "database" : "sectors"));
    json_object_set_new(doc, "seconds", json_real(ma_vrun_seconds(run)));
    json_object_set_new(doc, "exit", json_integer(exit_status));
    /* the document, then its sectors streamed into it (print_sector_json) */
    print_json_open(out, doc);
    json_decref(doc);
    fputs(",\"sectors\":[", out);
    for (size_t i = 0; i < ma_vrun_sector_count(run); i++) {
        if (i)
            fputc(',', out);
        print_sector_json(out, ma_vrun_sector_at(run, i));
    }
    fputs("]}\n", out);
}

/* ---- the plan ---- */

static json_t *plan_shard_json(const ma_shard_plan *p, unsigned k)
{
    const ma_shard_plan_shard *sh = &p->shards[k];
    json_t *o = json_object(), *names = json_array();
    json_object_set_new(o, "shard", json_integer(k));
    json_object_set_new(o, "sectors", json_integer((json_int_t)sh->sectors));
    json_object_set_new(o, "entries", json_integer((json_int_t)sh->entries));
    json_object_set_new(o, "cost", json_real(sh->cost));
    json_object_set_new(o, "bytes", json_integer((json_int_t)sh->bytes));
    json_object_set_new(o, "peak_bytes", json_integer((json_int_t)sh->peak_bytes));
    for (size_t i = 0; i < p->n_sectors; i++)
        if (p->sectors[i].shard == k)
            json_array_append_new(names, json_string(p->sectors[i].name));
    json_object_set_new(o, "sector_names", names);
    return o;
}

static json_t *plan_sector_json(const ma_shard_plan_sector *x)
{
    json_t *o = json_object();
    json_object_set_new(o, "sector", json_string(x->name));
    json_object_set_new(o, "shard", json_integer(x->shard));
    json_object_set_new(o, "entries", json_integer((json_int_t)x->entries));
    json_object_set_new(o, "cost", json_real(x->cost));
    json_object_set_new(o, "bytes", json_integer((json_int_t)x->bytes));
    json_object_set_new(o, "peak_bytes", json_integer((json_int_t)x->peak_bytes));
    return o;
}

void ma_render_shard_plan_json(FILE *out, const ma_shard_plan *p, const char *root)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(MA_PLAN_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("verify-plan"));
    json_t *d = json_object();
    json_object_set_new(d, "root", ma_json_store_text(root));
    json_object_set_new(d, "format", p->format ? json_string(ma_format_name(p->format)) : json_null());
    json_object_set_new(doc, "database", d);
    json_object_set_new(doc, "shards", json_integer(p->n_shards));
    json_object_set_new(doc, "sectors", json_integer((json_int_t)p->n_sectors));
    json_object_set_new(doc, "total_entries", json_integer((json_int_t)p->total_entries));
    json_object_set_new(doc, "total_cost", json_real(p->total_cost));
    json_object_set_new(doc, "mean_cost", json_real(p->mean_cost));
    json_object_set_new(doc, "largest_sector_cost", json_real(p->largest_sector_cost));
    json_object_set_new(doc, "largest_shard_cost", json_real(p->largest_shard_cost));
    json_object_set_new(doc, "imbalance", json_real(p->imbalance));
    json_t *shards = json_array();
    for (unsigned k = 0; k < p->n_shards; k++)
        json_array_append_new(shards, plan_shard_json(p, k));
    json_object_set_new(doc, "plan", shards);
    json_t *secs = json_array();
    for (size_t i = 0; i < p->n_sectors; i++)
        json_array_append_new(secs, plan_sector_json(&p->sectors[i]));
    json_object_set_new(doc, "sector_plan", secs);
    json_t *errs = json_array();
    for (size_t i = 0; i < p->n_unusable; i++)
        json_array_append_new(errs, ma_json_store_text(p->unusable[i]));
    json_object_set_new(doc, "errors", errs);
    json_dumpf(doc, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(doc);
}

int ma_render_verify_json_buffer(char **out, size_t *len, const ma_vrun *r, const char *const *errors,
                                 size_t n_errors, int exit_status, ma_error *err)
{
    size_t n = 0;
    *out = NULL;
    FILE *f = open_memstream(out, &n);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_render_verify_json(f, r, errors, n_errors, exit_status);
    if (fclose(f) || !*out) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    if (len)
        *len = n;
    return MA_OK;
}
