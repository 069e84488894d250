/*
 * The documents of `millaudit runs list|compare|regressions` (millaudit/store.h): the tables and
 * reports people read, and the JSON documents (docs/json/runs-*.schema.json, written by
 * reports/store/history.c) for scripts. Every document goes to a malloc'd buffer; nothing prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "millaudit/store.h"
#include "reports/render/junit.h"
#include "reports/render/regressions_junit.h"
#include "reports/store/history.h"
#include "reports/store/runs.h"

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

/* Ends a memory stream: the text in *out, or MA_ENOMEM when the stream could not hold it. */
static int close_text(FILE *f, char **out, ma_error *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    return MA_OK;
}

static FILE *open_text(char **out, size_t *len, ma_error *err)
{
    *out = NULL;
    FILE *f = open_memstream(out, len);
    if (!f)
        ma_error_set(err, MA_ENOMEM, "out of memory");
    return f;
}

/* ---------------------------------------------------------------- list */

static void list_row(FILE *f, const ma_run_row *r)
{
    /* an interrupted run says what it did, also after a resume continued it ('resumed': how
     * builds before audit schema v7 recorded such a run) */
    int interrupted = r->status && (!strcmp(r->status, "interrupted") || !strcmp(r->status, "resumed"));
    char what[128] = "";
    if (interrupted && r->planned_sectors >= 0)
        snprintf(what, sizeof what, " (interrupted: %lld of %lld sectors checked%s", (long long)r->sectors,
                 (long long)(r->planned_sectors > r->sectors ? r->planned_sectors : r->sectors),
                 r->continued_by ? "; continued by run " : ")");
    else if (interrupted && r->continued_by)
        snprintf(what, sizeof what, " (interrupted; continued by run ");
    if (r->continued_by && what[0])
        snprintf(what + strlen(what), sizeof what - strlen(what), "%lld)", (long long)r->continued_by);
    fprintf(f, "%5lld %-8s %-24s %-24s %-13s %-11s %7lld %7lld %13lld %13lld  %s%s%s\n", (long long)r->id,
            or_dash(r->kind), or_dash(r->started_at), r->ended_at ? r->ended_at : "never",
            r->ended_at ? (interrupted ? "interrupted" : or_dash(r->status)) : "unfinished", or_dash(r->mode),
            (long long)r->sectors, (long long)r->sectors_carried, (long long)r->verified,
            (long long)r->discrepancies, or_dash(r->database_root), r->imported ? " (imported)" : "", what);
}

int ma_render_runs_list(char **out, const ma_run_list *l, const char *store, int json, ma_error *err)
{
    const ma_run_row *rows = l->rows;
    size_t n = l->n;
    if (json)
        return ma_runs_list_json(rows, n, store, out, err);
    size_t len;
    FILE *f = open_text(out, &len, err);
    if (!f)
        return MA_ENOMEM;
    fprintf(f, "%5s %-8s %-24s %-24s %-13s %-11s %7s %7s %13s %13s  %s\n", "id", "kind", "started", "ended",
            "status", "mode", "sectors", "carried", "verified", "discrepancies", "database root");
    for (size_t i = 0; i < n; i++)
        list_row(f, &rows[i]);
    fprintf(f, "%zu runs\n", n);
    return close_text(f, out, err);
}

/* ---------------------------------------------------------------- compare */

static const char *cmp_word(int v)
{
    return v == MA_CMP_SAME ? "same" : v == MA_CMP_DIFFER ? "differ" : "not recorded";
}

int ma_render_runs_compare(char **out, const ma_run_cmp *cmp, const ma_run *a, const char *store_a, const ma_run *b,
                           const char *store_b, int json, ma_error *err)
{
    if (json)
        return ma_run_cmp_json(cmp, a, store_a, b, store_b, out, err);
    size_t len;
    FILE *f = open_text(out, &len, err);
    if (!f)
        return MA_ENOMEM;
    const ma_run *r[2] = {a, b};
    const char *store[2] = {store_a, store_b};
    for (int i = 0; i < 2; i++)
        fprintf(f, "%s: %s run %lld (%s, started %s, %zu sectors, %zu manifest files)\n", i ? "B" : "A", store[i],
                (long long)r[i]->id, r[i]->kind, r[i]->started_at, r[i]->n_sectors, r[i]->n_files);
    fprintf(f, "%-24s %-14s %-14s %s\n", "sector", "bytes", "values", "verdict");
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const ma_run_cmp_row *row = &cmp->rows[i];
        char name[300];
        snprintf(name, sizeof name, "%s%s", row->is_file ? "file " : "", row->name);
        fprintf(f, "%-24s %-14s %-14s %s\n", name, cmp_word(row->bytes), cmp_word(row->values), row->how);
    }
    if (cmp->n_differ) {
        fprintf(f, "differ: %zu of %zu sectors differ:", cmp->n_differ, cmp->n_rows);
        for (size_t i = 0; i < cmp->n_rows; i++) {
            const char *how = cmp->rows[i].how;
            if (strcmp(how, "same") && strcmp(how, "not comparable"))
                fprintf(f, " %s (%s)", cmp->rows[i].name, how);
        }
        fprintf(f, "\n");
    } else if (cmp->n_unknown || !cmp->n_rows) {
        fprintf(f, "not comparable: %zu of %zu sectors have neither manifest digests nor derived digests on both "
                   "sides\n", cmp->n_unknown, cmp->n_rows);
    } else {
        fprintf(f, "equal: %zu sectors, same bytes and derived values where recorded\n", cmp->n_rows);
    }
    return close_text(f, out, err);
}

/* ---------------------------------------------------------------- regressions */

static void print_changes(FILE *f, unsigned changes)
{
    int first = 1;
    for (int k = 0; k < MA_CHANGES; k++)
        if (changes >> k & 1) {
            fprintf(f, "%s%s", first ? "" : ", ", ma_change_name(k));
            first = 0;
        }
}

static void print_classes(FILE *f, const ma_run_sector *s)
{
    int any = 0;
    for (size_t i = 0; s && i < s->n_classes; i++)
        if (s->classes[i].count) {
            fprintf(f, "%s%s=%lld", any ? " " : "", s->classes[i].cls, (long long)s->classes[i].count);
            any = 1;
        }
    if (!any)
        fprintf(f, "none");
}

static void print_row(FILE *f, const ma_regression_row *row)
{
    fprintf(f, "%-11s %s: %s\n", row->regression ? "REGRESSION" : row->improvement ? "improved" : "changed",
            row->sector, row->why ? row->why : "no regression");
    fprintf(f, "    changes: ");
    print_changes(f, row->changes);
    fprintf(f, "\n    discrepancies: %lld -> %lld; classes: ", row->base ? (long long)row->base->discrepancies : 0LL,
            row->run ? (long long)row->run->discrepancies : 0LL);
    print_classes(f, row->base);
    fprintf(f, " -> ");
    print_classes(f, row->run);
    fprintf(f, "; status: %s -> %s\n", row->base ? or_dash(row->base->status) : "absent",
            row->run ? or_dash(row->run->status) : "absent");
}

/* The sectors of g whose flag (regression or improvement) is set, after ": " and ", ". */
static void print_sectors(FILE *f, const ma_regressions *g, int improvement)
{
    const char *sep = ": ";
    for (size_t i = 0; i < g->n_rows; i++)
        if (improvement ? g->rows[i].improvement : g->rows[i].regression) {
            fprintf(f, "%s%s", sep, g->rows[i].sector);
            sep = ", ";
        }
}

static void print_regressions(FILE *f, const ma_regressions *g, const char *basis)
{
    const ma_run *r = g->run, *b = g->base;
    fprintf(f, "run %lld: verify of %s, started %s%s%s: %s\n", (long long)r->id, or_dash(r->database_root),
            or_dash(r->started_at), r->ended_at ? ", ended " : ", never ended", r->ended_at ? r->ended_at : "",
            r->ended_at ? or_dash(r->status) : "unfinished");
    if (!b) {
        fprintf(f, "no baseline: no earlier finished verify run of this database root; nothing to compare\n");
        return;
    }
    fprintf(f, "baseline: run %lld (%s), started %s: %s\n", (long long)b->id,
            !strcmp(basis, "since") ? "--since" : "the previous finished verify run of the same root",
            or_dash(b->started_at), or_dash(b->status));
    fprintf(f, "verdict: %s -> %s%s\n", or_dash(b->status), r->ended_at ? or_dash(r->status) : "unfinished",
            g->verdict_worse ? " (worse)" : g->verdict_better ? " (better)" : g->verdict_changed ? "" : " (unchanged)");
    for (size_t i = 0; i < g->n_rows; i++)
        if (g->rows[i].changes)
            print_row(f, &g->rows[i]);
    if (g->regressed) {
        fprintf(f, "regressed: %zu sectors", g->n_regressions);
        print_sectors(f, g, 0);
        if (g->verdict_worse)
            fprintf(f, "; verdict %s -> %s", or_dash(b->status), r->ended_at ? or_dash(r->status) : "unfinished");
        fprintf(f, "\n");
    } else {
        fprintf(f, "no regressions\n");
    }
    if (g->n_improvements) {
        fprintf(f, "improved: %zu sector%s", g->n_improvements, g->n_improvements == 1 ? "" : "s");
        print_sectors(f, g, 1);
        fprintf(f, "\n");
    }
    if (!g->regressed && g->verdict_better)
        fprintf(f, "fixed: the verdict went from %s back to %s\n", or_dash(b->status), or_dash(r->status));
    fprintf(f, "unchanged: %zu of %zu sectors\n", g->n_unchanged, g->n_rows);
}

int ma_render_regressions(char **out, const ma_run_regressions *g, int json, ma_error *err)
{
    if (json)
        return ma_regressions_json(&g->g, g->store_name, g->basis, out, err);
    size_t len;
    FILE *f = open_text(out, &len, err);
    if (!f)
        return MA_ENOMEM;
    print_regressions(f, &g->g, g->basis);
    return close_text(f, out, err);
}

int ma_render_regressions_junit(const ma_run_regressions *g, const char *path, ma_error *err)
{
    ma_junit j;
    int rc = ma_regressions_junit(&g->g, &j, err);
    if (!rc)
        rc = ma_junit_write(&j, path, err);
    ma_junit_free(&j);
    return rc;
}
