/*
 * The documents of `millaudit runs list|compare|regressions` (millaudit/store.h): the tables and
 * reports people read, and the JSON documents (docs/json/runs-*.schema.json, written by
 * reports/store/history.c) for scripts. Every document goes to a malloc'd buffer; nothing prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/verdict.h"
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
    char what[192] = "";
    if (interrupted && r->planned_sectors >= 0) {
        char words[112];
        ma_verdict_interrupted_words(words, sizeof words, (long long)r->sectors,
                                     (long long)(r->planned_sectors > r->sectors ? r->planned_sectors : r->sectors),
                                     (long long)r->sectors_carried);
        snprintf(what, sizeof what, " (%s%s", words, r->continued_by ? "; continued by run " : ")");
    }
    else if (interrupted && r->continued_by)
        snprintf(what, sizeof what, " (interrupted; continued by run ");
    if (r->continued_by && what[0])
        snprintf(what + strlen(what), sizeof what - strlen(what), "%lld)", (long long)r->continued_by);
    fprintf(f, "%5lld %-8s %-24s %-24s %-13s %-11s %7s %7s %13s %13s  %s%s%s\n", (long long)r->id,
            or_dash(r->kind), or_dash(r->started_at), r->ended_at ? r->ended_at : "never",
            r->ended_at ? (interrupted ? "interrupted" : or_dash(r->status)) : "unfinished", or_dash(r->mode),
            MA_NUM((uint64_t)r->sectors), MA_NUM((uint64_t)r->sectors_carried), MA_NUM((uint64_t)r->verified),
            MA_NUM((uint64_t)r->discrepancies), or_dash(r->database_root), r->imported ? " (imported)" : "", what);
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
    fprintf(f, "%s\n", MA_COUNT(n, "run", "runs"));
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
        fprintf(f, "%s: %s run %lld (%s, started %s, %s, %s)\n", i ? "B" : "A", store[i], (long long)r[i]->id,
                r[i]->kind, r[i]->started_at, MA_COUNT(r[i]->n_sectors, "sector", "sectors"),
                MA_COUNT(r[i]->n_files, "manifest file", "manifest files"));
    fprintf(f, "%-24s %-14s %-14s %s\n", "sector", "bytes", "values", "verdict");
    for (size_t i = 0; i < cmp->n_rows; i++) {
        const ma_run_cmp_row *row = &cmp->rows[i];
        char name[300];
        snprintf(name, sizeof name, "%s%s", row->is_file ? "file " : "", row->name);
        fprintf(f, "%-24s %-14s %-14s %s\n", name, cmp_word(row->bytes), cmp_word(row->values), row->how);
    }
    if (cmp->n_differ) {
        fprintf(f, "differ: %s of %s %s:", MA_NUM(cmp->n_differ), MA_COUNT(cmp->n_rows, "sector", "sectors"),
                ma_noun(cmp->n_differ, "differs", "differ"));
        for (size_t i = 0; i < cmp->n_rows; i++) {
            const char *how = cmp->rows[i].how;
            if (strcmp(how, "same") && strcmp(how, "not comparable"))
                fprintf(f, " %s (%s)", cmp->rows[i].name, how);
        }
        fprintf(f, "\n");
    } else if (cmp->n_unknown || !cmp->n_rows) {
        fprintf(f, "not comparable: %s of %s %s neither manifest digests nor derived digests on both sides\n",
                MA_NUM(cmp->n_unknown), MA_COUNT(cmp->n_rows, "sector", "sectors"), ma_noun(cmp->n_unknown, "has", "have"));
    } else {
        fprintf(f, "equal: %s, same bytes and derived values where recorded\n", MA_COUNT(cmp->n_rows, "sector", "sectors"));
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
            fprintf(f, "%s%s=%s", any ? " " : "", s->classes[i].cls, MA_NUM((uint64_t)s->classes[i].count));
            any = 1;
        }
    if (!any)
        fprintf(f, "none");
}

/* "651,831" or "651,831 (6,840 roots)" when the split was recorded and some are roots. */
static void print_disc(FILE *f, const ma_run_sector *s)
{
    fprintf(f, "%s", MA_NUM(s ? (uint64_t)s->discrepancies : 0));
    if (s && s->has_split && s->discrepancies)
        fprintf(f, " (%s)", MA_COUNT((uint64_t)s->roots, "root", "roots"));
}

static void print_row(FILE *f, const ma_regression_row *row)
{
    fprintf(f, "%-11s %s: %s\n", row->regression ? "REGRESSION" : row->improvement ? "improved" : "changed",
            row->sector, row->why ? row->why : "no regression");
    fprintf(f, "    changes: ");
    print_changes(f, row->changes);
    fprintf(f, "\n    discrepancies: ");
    print_disc(f, row->base);
    fprintf(f, " -> ");
    print_disc(f, row->run);
    fprintf(f, "; classes: ");
    print_classes(f, row->base);
    fprintf(f, " -> ");
    print_classes(f, row->run);
    fprintf(f, "; status: %s -> %s\n", row->base ? or_dash(row->base->status) : "absent",
            row->run ? or_dash(row->run->status) : "absent");
}

static int same_causes(const ma_regression_row *a, const ma_regression_row *b)
{
    if (a->n_because != b->n_because)
        return 0;
    for (size_t k = 0; k < a->n_because; k++)
        if (strcmp(a->because[k], b->because[k]))
            return 0;
    return 1;
}

static int grouped(const ma_regression_row *w, int follows) { return follows ? w->follows : w->consequence; }

/* The consequences (follows: the improvements that follow fixes), once, grouped under the sectors
 * that explain them: one line per group. */
static void print_consequences(FILE *f, const ma_regressions *g, int follows)
{
    char *done = calloc(g->n_rows ? g->n_rows : 1, 1);
    for (size_t i = 0; done && i < g->n_rows; i++) {
        const ma_regression_row *row = &g->rows[i];
        if (!grouped(row, follows) || done[i])
            continue;
        size_t group = 0;
        for (size_t j = i; j < g->n_rows; j++)
            group += grouped(&g->rows[j], follows) && !done[j] && same_causes(&g->rows[j], row);
        if (!follows)
            fprintf(f, "consequence %s changed as a consequence of", MA_COUNT(group, "sector", "sectors"));
        else if (row->n_because)
            fprintf(f, "follows     %s improved as a consequence of the fix of", MA_COUNT(group, "sector", "sectors"));
        else
            fprintf(f, "follows     %s fixed: the baseline found only propagated discrepancies in %s",
                    MA_COUNT(group, "sector", "sectors"), ma_noun(group, "it", "them"));
        for (size_t k = 0; k < row->n_because; k++)
            fprintf(f, "%s %s", k ? "," : "", row->because[k]);
        if (!follows)
            fprintf(f, " (%s with its successors)", ma_noun(group, "it agrees", "each agrees"));
        fprintf(f, ":");
        for (size_t j = i; j < g->n_rows; j++)
            if (grouped(&g->rows[j], follows) && !done[j] && same_causes(&g->rows[j], row)) {
                fprintf(f, "%s %s", done[i] && j != i ? "," : "", g->rows[j].sector);
                done[j] = 1;
            }
        fprintf(f, "\n");
    }
    free(done);
}

#define NAMES_LISTED 12 /* sectors named in one summary line before ", ..." */

/* The sectors of g whose flag is set (root regression, improvement, fixed), after ": " and ", ",
 * at most NAMES_LISTED of them. */
enum { LIST_FAULTS, LIST_IMPROVED, LIST_FIXED };
static void print_sectors(FILE *f, const ma_regressions *g, int which)
{
    const char *sep = ": ";
    size_t listed = 0;
    for (size_t i = 0; i < g->n_rows; i++) {
        const ma_regression_row *w = &g->rows[i];
        int on = which == LIST_IMPROVED ? w->improvement && !w->follows
                 : which == LIST_FIXED  ? (w->changes & MA_CHANGE_FIXED) && !w->follows
                                        : w->regression && !w->consequence;
        if (!on)
            continue;
        if (listed++ == NAMES_LISTED) {
            fprintf(f, ", ...");
            return;
        }
        fprintf(f, "%s%s", sep, w->sector);
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
    /* root regressions first (the faults to fix), then the consequences in one line per cause,
     * then improvements and other changes, then what followed fixes in one line per cause */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < g->n_rows; i++) {
            const ma_regression_row *row = &g->rows[i];
            int root = row->regression && !row->consequence;
            if (row->changes && !row->consequence && !row->follows && root == !pass)
                print_row(f, row);
        }
        print_consequences(f, g, pass);
    }
    size_t roots = g->n_regressions - g->n_consequences;
    if (g->regressed) {
        fprintf(f, "regressed: %s", MA_COUNT(roots, "sector", "sectors"));
        print_sectors(f, g, LIST_FAULTS);
        if (g->n_consequences)
            fprintf(f, " (and %s as a consequence)", MA_NUM(g->n_consequences));
        if (g->verdict_worse)
            fprintf(f, "; verdict %s -> %s", or_dash(b->status), r->ended_at ? or_dash(r->status) : "unfinished");
        fprintf(f, "\n");
    } else {
        fprintf(f, "no regressions\n");
    }
    size_t fixed = 0, followed = 0; /* the sectors with a fault of their own, the rest counted */
    for (size_t i = 0; i < g->n_rows; i++) {
        fixed += (g->rows[i].changes & MA_CHANGE_FIXED) != 0;
        followed += (g->rows[i].changes & MA_CHANGE_FIXED) && g->rows[i].follows;
    }
    if (fixed) { /* a night that fixes a fault says so first */
        fprintf(f, "fixed: %s no discrepancies any more", MA_COUNT(fixed, "sector has", "sectors have"));
        print_sectors(f, g, LIST_FIXED);
        if (followed)
            fprintf(f, "%s%s wrong only as a consequence", fixed > followed ? " (and " : ": ",
                    MA_COUNT(followed, "sector", "sectors"));
        fprintf(f, "%s\n", followed && fixed > followed ? ")" : "");
    }
    if (g->n_improvements) {
        fprintf(f, "improved: %s", MA_COUNT(g->n_improvements, "sector", "sectors"));
        if (g->n_improvements > g->n_follows)
            print_sectors(f, g, LIST_IMPROVED);
        if (g->n_follows)
            fprintf(f, "%s%s as a consequence of the fixes below them%s", g->n_improvements > g->n_follows ? " (and " : ": ",
                    MA_NUM(g->n_follows), g->n_improvements > g->n_follows ? ")" : "");
        fprintf(f, "\n");
    }
    if (!g->regressed && g->verdict_better)
        fprintf(f, "fixed: the verdict went from %s back to %s\n", or_dash(b->status), or_dash(r->status));
    fprintf(f, "unchanged: %s of %s\n", MA_NUM(g->n_unchanged), MA_COUNT(g->n_rows, "sector", "sectors"));
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
