/*
 * The renderers of `millaudit stats` (include/millaudit/inspect.h): the text tables and the JSON
 * document of docs/json/stats.schema.json.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "millaudit.h"
#include "verifier/run/stats.h"

#define STATS_SCHEMA_VERSION 1

/* ---- text ---- */

static void print_depth(FILE *out, int d)
{
    if (d < 0)
        fprintf(out, " %8s", "-");
    else
        fprintf(out, " %8d", d);
}

static void print_row(FILE *out, const char *name, const ma_stats_tally *t)
{
    fprintf(out, "%-20s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64, name,
           t->entries, t->canonical, t->win_entries, t->draw_entries, t->loss_entries);
    print_depth(out, t->longest_win);
    print_depth(out, t->longest_loss);
    fprintf(out, " %6" PRIu64 "\n", t->bad);
}

static void print_position_row(FILE *out, const char *name, const ma_stats_tally *t)
{
    fprintf(out, "%-20s %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", name,
           t->positions, t->win_positions, t->draw_positions, t->loss_positions, t->markers);
}

static void print_hist(FILE *out, const char *title, const ma_stats_tally *t)
{
    if (t->n_bins) {
        fprintf(out, "\ndepth histogram %s\n", title);
        fprintf(out, "  %-7s %5s %14s %16s\n", "outcome", "depth", "entries", "positions");
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < t->n_bins; i++) {
                const ma_stats_bin *b = &t->bins[i];
                uint64_t e = pass ? b->loss_entries : b->win_entries;
                uint64_t p = pass ? b->loss_positions : b->win_positions;
                if (e || p)
                    fprintf(out, "  %-7s %5u %14" PRIu64 " %16" PRIu64 "\n", pass ? "loss" : "win",
                           b->depth, e, p);
            }
    }
    if (t->has_akey && t->n_akey) {
        fprintf(out, "\nA = key1 + v(S) distribution %s\n  %6s %14s\n", title, "A", "entries");
        for (size_t i = 0; i < t->n_akey; i++)
            fprintf(out, "  %6d %14" PRIu64 "\n", (int)t->akey[i].a, t->akey[i].entries);
    }
}

static void print_text(FILE *out, const char *root, const ma_database *db, const ma_stats *st)
{
    size_t n = st->n;
    ma_format f = ma_database_format(db);
    fprintf(out, "stats %s: %s (%s)\n\n", root, MA_COUNT(n, "sector file", "sector files"),
           f ? ma_format_name(f) : "none");
    fprintf(out, "per stored entry:\n");
    fprintf(out, "%-20s %12s %12s %12s %12s %12s %8s %8s %6s\n", "sector", "entries", "canonical", "wins",
           "draws", "losses", "max-win", "max-loss", "bad");
    for (size_t i = 0; i < n; i++)
        if (!st->sectors[i].unusable)
            print_row(out, st->sectors[i].file, &st->sectors[i].t);
    if (n > 1)
        print_row(out, "total", &st->total);
    fprintf(out, "\nper position (canonical entries weighted by orbit size; markers: non-canonical entries):\n");
    fprintf(out, "%-20s %14s %14s %14s %14s %14s\n", "sector", "positions", "wins", "draws", "losses",
           "markers");
    for (size_t i = 0; i < n; i++)
        if (!st->sectors[i].unusable)
            print_position_row(out, st->sectors[i].file, &st->sectors[i].t);
    if (n > 1)
        print_position_row(out, "total", &st->total);
    for (size_t i = 0; i < n; i++)
        if (!st->sectors[i].unusable)
            print_hist(out, st->sectors[i].file, &st->sectors[i].t);
    if (n > 1)
        print_hist(out, "total", &st->total);
    for (size_t i = 0; i < n; i++)
        if (st->sectors[i].is_start && !st->sectors[i].unusable)
            fprintf(out, "\nstart %s: %s\n", st->sectors[i].file, st->sectors[i].start_text);
    for (size_t i = 0; i < n; i++)
        if (st->sectors[i].unusable)
            fprintf(out, "\n%s: unusable: %s\n", st->sectors[i].name, st->sectors[i].message);
    if (st->total.bad)
        fprintf(out, "\n%" PRIu64 " bad encodings\n", st->total.bad);
}

/* ---- JSON (docs/json/stats.schema.json) ---- */

static json_t *count(uint64_t n)
{
    return json_integer((json_int_t)n);
}

static json_t *depth_or_null(int d)
{
    return d < 0 ? json_null() : json_integer(d);
}

static json_t *view_json(const ma_stats_tally *t, int per_position, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "wins", count(per_position ? t->win_positions : t->win_entries), bad);
    ma_json_put(o, "draws", count(per_position ? t->draw_positions : t->draw_entries), bad);
    ma_json_put(o, "losses", count(per_position ? t->loss_positions : t->loss_entries), bad);
    json_t *wins = json_object(), *losses = json_object();
    for (size_t i = 0; i < t->n_bins; i++) {
        const ma_stats_bin *b = &t->bins[i];
        char key[16];
        snprintf(key, sizeof key, "%u", b->depth);
        uint64_t w = per_position ? b->win_positions : b->win_entries;
        uint64_t l = per_position ? b->loss_positions : b->loss_entries;
        if (w)
            ma_json_put(wins, key, count(w), bad);
        if (l)
            ma_json_put(losses, key, count(l), bad);
    }
    ma_json_put(o, "win_depths", wins, bad);
    ma_json_put(o, "loss_depths", losses, bad);
    return o;
}

static void tally_json(json_t *o, const ma_stats_tally *t, int *bad)
{
    ma_json_put(o, "entries", count(t->entries), bad);
    ma_json_put(o, "canonical_entries", count(t->canonical), bad);
    ma_json_put(o, "markers", count(t->markers), bad);
    ma_json_put(o, "positions", count(t->positions), bad);
    ma_json_put(o, "per_entry", view_json(t, 0, bad), bad);
    ma_json_put(o, "per_position", view_json(t, 1, bad), bad);
    ma_json_put(o, "longest_win", depth_or_null(t->longest_win), bad);
    ma_json_put(o, "longest_loss", depth_or_null(t->longest_loss), bad);
    int max = t->longest_win > t->longest_loss ? t->longest_win : t->longest_loss;
    ma_json_put(o, "max_depth", depth_or_null(max), bad);
    /* Malom's .analyze histogram: every depth 0..max (wins and losses together), -1 = draws */
    json_t *depths = json_object();
    ma_json_put(depths, "-1", count(t->draw_entries), bad);
    for (int d = 0, i = 0; d <= max; d++) {
        uint64_t c = 0;
        if ((size_t)i < t->n_bins && t->bins[i].depth == (uint32_t)d) {
            c = t->bins[i].win_entries + t->bins[i].loss_entries;
            i++;
        }
        char key[16];
        snprintf(key, sizeof key, "%d", d);
        ma_json_put(depths, key, count(c), bad);
    }
    ma_json_put(o, "depths", depths, bad);
    if (t->has_akey) {
        json_t *ak = json_object();
        for (size_t i = 0; i < t->n_akey; i++) {
            char key[16];
            snprintf(key, sizeof key, "%d", (int)t->akey[i].a);
            ma_json_put(ak, key, count(t->akey[i].entries), bad);
        }
        ma_json_put(o, "akey1", ak, bad);
    }
    ma_json_put(o, "bad_encodings", count(t->bad), bad);
}

/* The document as text, NULL when a part of it could not be built (out of memory). */
static char *json_text(const char *root, const ma_database *db, const ma_stats *st, const char *const *errors,
                       size_t n_errors, int exit_code)
{
    int ok = 0, *bad = &ok;
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(STATS_SCHEMA_VERSION), bad);
    ma_json_put(doc, "command", json_string("stats"), bad);
    json_t *d = json_object();
    ma_json_put(d, "root", ma_json_store_text(root), bad);
    ma_format f = db ? ma_database_format(db) : 0;
    ma_json_put(d, "format", f ? json_string(ma_format_name(f)) : json_null(), bad);
    json_t *vars = json_array();
    for (int v = MA_VARIANT_STD; db && v <= MA_VARIANT_MORA; v++)
        if (ma_database_variants(db) & (1u << v))
            ma_json_push(vars, json_string(ma_variant_name((ma_variant)v)), bad);
    ma_json_put(d, "variants", vars, bad);
    ma_json_put(doc, "database", d, bad);
    json_t *secs = json_array(), *starts = json_array();
    for (size_t i = 0; st && i < st->n; i++) {
        const ma_stats_sector *s = &st->sectors[i];
        char sec[16];
        ma_sector_format(s->sector, sec, sizeof sec);
        json_t *o = json_object();
        ma_json_put(o, "file", ma_json_store_text(s->file), bad);
        ma_json_put(o, "name", json_string(s->name), bad);
        ma_json_put(o, "variant", json_string(ma_variant_name(s->variant)), bad);
        ma_json_put(o, "sector", json_string(sec), bad);
        ma_json_put(o, "format", s->format ? json_string(ma_format_name(s->format)) : json_null(), bad);
        ma_json_put(o, "status", json_string(s->unusable ? "unusable" : "ok"), bad);
        ma_json_put(o, "message", s->unusable ? ma_json_store_text(s->message) : json_null(), bad);
        if (!s->unusable)
            tally_json(o, &s->t, bad);
        ma_json_push(secs, o, bad);
        if (!s->is_start || s->unusable)
            continue;
        json_t *v = json_object();
        ma_json_put(v, "variant", json_string(ma_variant_name(s->variant)), bad);
        ma_json_put(v, "sector", json_string(sec), bad);
        ma_json_put(v, "value", json_string(s->start_text), bad);
        int known = s->start.kind == MA_STORED_VALUE;
        ma_json_put(v, "outcome", known ? json_string(ma_outcome_name(s->start.value.outcome))
                                                : json_null(), bad);
        if (known && s->start.value.outcome != MA_OUTCOME_DRAW)
            ma_json_put(v, "depth", json_integer(s->start.value.depth), bad);
        ma_json_push(starts, v, bad);
    }
    ma_json_put(doc, "sectors", secs, bad);
    json_t *tot = json_object();
    ma_json_put(tot, "sectors", count(st ? st->n : 0), bad);
    ma_json_put(tot, "sectors_unusable", count(st ? st->n_unusable : 0), bad);
    if (st)
        tally_json(tot, &st->total, bad);
    ma_json_put(doc, "totals", tot, bad);
    ma_json_put(doc, "start", starts, bad);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        ma_json_push(errs, ma_json_store_text(errors[i]), bad);
    ma_json_put(doc, "errors", errs, bad);
    ma_json_put(doc, "exit", json_integer(exit_code), bad);
    char *text = *bad ? NULL : ma_json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}


int ma_stats_render_end(FILE *out, FILE *diag, const ma_stats_report *r, int json)
{
    size_t n_bad = r->db ? ma_database_unusable_count(r->db) : 0, n_errors = 0;
    const char **errors = calloc(n_bad + 1, sizeof *errors);
    if (!errors)
        return MA_ENOMEM;
    for (size_t i = 0; i < n_bad; i++)
        errors[n_errors++] = ma_database_unusable(r->db, i)->message;
    if (r->fatal)
        errors[n_errors++] = r->failure.msg;
    /* the document before any line: out of memory writes nothing */
    char *doc = json && r->db ? json_text(r->root, r->db, r->have_stats ? &r->st : NULL, errors, n_errors,
                                          ma_result_exit_code(r->result))
                              : NULL;
    if (json && r->db && !doc) {
        free(errors);
        return MA_ENOMEM;
    }
    for (size_t i = 0; i < n_errors; i++) {
        char words[1100];
        fprintf(diag, "millaudit stats: %s\n", ma_render_option_words(errors[i], words, sizeof words));
    }
    if (doc)
        fprintf(out, "%s\n", doc);
    else if (r->have_stats)
        print_text(out, r->root, r->db, &r->st);
    if (r->have_stats && r->st.total.bad)
        fprintf(diag, "millaudit stats: %s: %" PRIu64 " bad encodings\n", r->root, r->st.total.bad);
    free(doc);
    free(errors);
    return MA_OK;
}
