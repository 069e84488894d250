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

static json_t *view_json(const ma_stats_tally *t, int per_position)
{
    json_t *o = json_object();
    json_object_set_new(o, "wins", count(per_position ? t->win_positions : t->win_entries));
    json_object_set_new(o, "draws", count(per_position ? t->draw_positions : t->draw_entries));
    json_object_set_new(o, "losses", count(per_position ? t->loss_positions : t->loss_entries));
    json_t *wins = json_object(), *losses = json_object();
    for (size_t i = 0; i < t->n_bins; i++) {
        const ma_stats_bin *b = &t->bins[i];
        char key[16];
        snprintf(key, sizeof key, "%u", b->depth);
        uint64_t w = per_position ? b->win_positions : b->win_entries;
        uint64_t l = per_position ? b->loss_positions : b->loss_entries;
        if (w)
            json_object_set_new(wins, key, count(w));
        if (l)
            json_object_set_new(losses, key, count(l));
    }
    json_object_set_new(o, "win_depths", wins);
    json_object_set_new(o, "loss_depths", losses);
    return o;
}

static void tally_json(json_t *o, const ma_stats_tally *t)
{
    json_object_set_new(o, "entries", count(t->entries));
    json_object_set_new(o, "canonical_entries", count(t->canonical));
    json_object_set_new(o, "markers", count(t->markers));
    json_object_set_new(o, "positions", count(t->positions));
    json_object_set_new(o, "per_entry", view_json(t, 0));
    json_object_set_new(o, "per_position", view_json(t, 1));
    json_object_set_new(o, "longest_win", depth_or_null(t->longest_win));
    json_object_set_new(o, "longest_loss", depth_or_null(t->longest_loss));
    int max = t->longest_win > t->longest_loss ? t->longest_win : t->longest_loss;
    json_object_set_new(o, "max_depth", depth_or_null(max));
    /* Malom's .analyze histogram: every depth 0..max (wins and losses together), -1 = draws */
    json_t *depths = json_object();
    json_object_set_new(depths, "-1", count(t->draw_entries));
    for (int d = 0, i = 0; d <= max; d++) {
        uint64_t c = 0;
        if ((size_t)i < t->n_bins && t->bins[i].depth == (uint32_t)d) {
            c = t->bins[i].win_entries + t->bins[i].loss_entries;
            i++;
        }
        char key[16];
        snprintf(key, sizeof key, "%d", d);
        json_object_set_new(depths, key, count(c));
    }
    json_object_set_new(o, "depths", depths);
    if (t->has_akey) {
        json_t *ak = json_object();
        for (size_t i = 0; i < t->n_akey; i++) {
            char key[16];
            snprintf(key, sizeof key, "%d", (int)t->akey[i].a);
            json_object_set_new(ak, key, count(t->akey[i].entries));
        }
        json_object_set_new(o, "akey1", ak);
    }
    json_object_set_new(o, "bad_encodings", count(t->bad));
}

static void print_json(FILE *out, const char *root, const ma_database *db, const ma_stats *st,
                       const char *const *errors, size_t n_errors, int exit_code)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(STATS_SCHEMA_VERSION));
    json_object_set_new(doc, "command", json_string("stats"));
    json_t *d = json_object();
    json_object_set_new(d, "root", ma_json_store_text(root));
    ma_format f = db ? ma_database_format(db) : 0;
    json_object_set_new(d, "format", f ? json_string(ma_format_name(f)) : json_null());
    json_t *vars = json_array();
    for (int v = MA_VARIANT_STD; db && v <= MA_VARIANT_MORA; v++)
        if (ma_database_variants(db) & (1u << v))
            json_array_append_new(vars, json_string(ma_variant_name((ma_variant)v)));
    json_object_set_new(d, "variants", vars);
    json_object_set_new(doc, "database", d);
    json_t *secs = json_array(), *starts = json_array();
    for (size_t i = 0; st && i < st->n; i++) {
        const ma_stats_sector *s = &st->sectors[i];
        char sec[16];
        ma_sector_format(s->sector, sec, sizeof sec);
        json_t *o = json_object();
        json_object_set_new(o, "file", ma_json_store_text(s->file));
        json_object_set_new(o, "name", json_string(s->name));
        json_object_set_new(o, "variant", json_string(ma_variant_name(s->variant)));
        json_object_set_new(o, "sector", json_string(sec));
        json_object_set_new(o, "format", s->format ? json_string(ma_format_name(s->format)) : json_null());
        json_object_set_new(o, "status", json_string(s->unusable ? "unusable" : "ok"));
        json_object_set_new(o, "message", s->unusable ? ma_json_store_text(s->message) : json_null());
        if (!s->unusable)
            tally_json(o, &s->t);
        json_array_append_new(secs, o);
        if (!s->is_start || s->unusable)
            continue;
        json_t *v = json_object();
        json_object_set_new(v, "variant", json_string(ma_variant_name(s->variant)));
        json_object_set_new(v, "sector", json_string(sec));
        json_object_set_new(v, "value", json_string(s->start_text));
        int known = s->start.kind == MA_STORED_VALUE;
        json_object_set_new(v, "outcome", known ? json_string(ma_outcome_name(s->start.value.outcome))
                                                : json_null());
        if (known && s->start.value.outcome != MA_OUTCOME_DRAW)
            json_object_set_new(v, "depth", json_integer(s->start.value.depth));
        json_array_append_new(starts, v);
    }
    json_object_set_new(doc, "sectors", secs);
    json_t *tot = json_object();
    json_object_set_new(tot, "sectors", count(st ? st->n : 0));
    json_object_set_new(tot, "sectors_unusable", count(st ? st->n_unusable : 0));
    if (st)
        tally_json(tot, &st->total);
    json_object_set_new(doc, "totals", tot);
    json_object_set_new(doc, "start", starts);
    json_t *errs = json_array();
    for (size_t i = 0; i < n_errors; i++)
        json_array_append_new(errs, ma_json_store_text(errors[i]));
    json_object_set_new(doc, "errors", errs);
    json_object_set_new(doc, "exit", json_integer(exit_code));
    json_dumpf(doc, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(doc);
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
    for (size_t i = 0; i < n_errors; i++) {
        char words[1100];
        fprintf(diag, "millaudit stats: %s\n", ma_render_option_words(errors[i], words, sizeof words));
    }
    if (json && r->db)
        print_json(out, r->root, r->db, r->have_stats ? &r->st : NULL, errors, n_errors,
                   ma_result_exit_code(r->result));
    else if (r->have_stats)
        print_text(out, r->root, r->db, &r->st);
    if (r->have_stats && r->st.total.bad)
        fprintf(diag, "millaudit stats: %s: %" PRIu64 " bad encodings\n", r->root, r->st.total.bad);
    free(errors);
    return MA_OK;
}
