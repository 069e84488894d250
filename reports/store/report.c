/* One run as a report sees it: the run, v4 facts where recorded, history, totals, verdict
 * (reports/store/report.h). */
#include "reports/store/report.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "common/progress.h"
#include "common/verdict.h"
#include "reports/store/audit_internal.h"

#define HISTORY_RUNS 30

/* ---------------------------------------------------------------- verdict */

/* The verdict never shows a negative "not recorded" count. */
static uint64_t known(int64_t v) { return v < 0 ? 0 : (uint64_t)v; }
#define NUM(v) MA_NUM(known(v))
#define COUNT(v, one, many) MA_COUNT(known(v), one, many)

static void detail(ma_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(ma_verdict *v, const char *fmt, ...)
{
    if (v->n_details == MA_VERDICT_MAX_DETAILS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->details[v->n_details++], sizeof v->details[0], fmt, ap);
    va_end(ap);
}

static int status_is(const char *s, const char *a, const char *b)
{
    return s && (!strcmp(s, a) || (b && !strcmp(s, b)));
}

/* "(3 roots, 5 propagated)", or "" when the run did not record the split. */
static void roots_text(char *buf, size_t n, const ma_verdict_counts *c)
{
    if (c->roots >= 0 && c->propagated >= 0)
        snprintf(buf, n, " (%s, %s propagated)", COUNT(c->roots, "root", "roots"), NUM(c->propagated));
    else
        snprintf(buf, n, " (roots and propagated not recorded by the build that ran it)");
}

static void decide_diff(const ma_verdict_counts *c, ma_verdict *v)
{
    int differ = c->value_differences > 0 || c->only_a > 0 || c->only_b > 0 || status_is(c->status, "discrepancies", NULL);
    v->interrupted = !c->ended || status_is(c->status, "interrupted", NULL);
    v->incomplete = status_is(c->status, "unusable", "incomplete");
    if (differ) {
        v->state = MA_VERDICT_DIFFER;
        if (c->value_differences > 0 || !(c->only_a || c->only_b))
            snprintf(v->headline, sizeof v->headline, "values differ: %s in value",
                     COUNT(c->value_differences, "position differs", "positions differ"));
        else /* "values differ: 0 positions differ in value" contradicted itself */
            snprintf(v->headline, sizeof v->headline, "databases differ: %s on one side only, no position differs in value",
                     COUNT(c->only_a + c->only_b, "sector", "sectors"));
        if (c->only_a || c->only_b)
            detail(v, "%s only in A, %s only in B", COUNT(c->only_a, "sector", "sectors"), NUM(c->only_b));
    } else if (v->interrupted) {
        v->state = MA_VERDICT_INTERRUPTED;
        snprintf(v->headline, sizeof v->headline, "interrupted: the diff never finished (%s compared)",
                 COUNT(c->sectors, "sector", "sectors"));
    } else if (v->incomplete) {
        v->state = MA_VERDICT_INCOMPLETE;
        snprintf(v->headline, sizeof v->headline, "incomplete: an input was unusable (%s compared)",
                 COUNT(c->sectors, "sector", "sectors"));
    } else {
        v->state = MA_VERDICT_AGREE;
        v->good = 1;
        snprintf(v->headline, sizeof v->headline, "values agree: %s in %s", COUNT(c->entries, "position", "positions"),
                 COUNT(c->sectors, "sector", "sectors"));
    }
    if (c->identical > 0)
        detail(v, "%s of %s identical by SHA-256 (not read further)", NUM(c->identical),
               COUNT(c->sectors, "sector", "sectors"));
    if (c->encoding > 0)
        detail(v, "%s (same values, other bytes)", COUNT(c->encoding, "encoding difference", "encoding differences"));
    if (differ && v->interrupted)
        detail(v, "the diff was interrupted: only the sectors listed were compared");
}

/* The damaged verdict's words (common/verdict.h) from a run's counts. */
static void damage_words(const ma_verdict_counts *c, char *buf, size_t len)
{
    ma_damage_words w = {0};
    w.published = c->damage_published;
    w.files = (unsigned long long)(c->files_damaged > 0 ? c->files_damaged : c->sectors_damaged);
    w.input_damaged = (unsigned long long)(c->sectors_input_damaged > 0 ? c->sectors_input_damaged : 0);
    int64_t others = c->sectors - c->sectors_damaged - c->sectors_input_damaged;
    w.others = (unsigned long long)(others > 0 ? others : 0);
    w.others_verified = (unsigned long long)(c->sectors_ok > 0 ? c->sectors_ok : 0);
    ma_damage_headline(buf, len, &w);
}

void ma_verdict_decide(const ma_verdict_counts *c, ma_verdict *v)
{
    memset(v, 0, sizeof *v);
    char rt[96];
    if (c->kind && !strcmp(c->kind, "diff")) {
        decide_diff(c, v);
        return;
    }
    /* 'resumed': what builds before v7 made of an interrupted run once a resume continued it */
    v->interrupted = !c->ended || status_is(c->status, "interrupted", "resumed") || c->sectors_not_checked > 0;
    int verify = !c->kind || !strcmp(c->kind, "verify");
    /* "K of N sectors checked": N is the plan when the run recorded it */
    int64_t planned = c->planned_sectors > c->sectors ? c->planned_sectors : c->sectors;
    int64_t reached = c->sectors - (c->sectors_not_checked > 0 ? c->sectors_not_checked : 0);
    int plan_known = c->planned_sectors > 0 || c->sectors_not_checked > 0;
    char progress[160], continued[64] = "";
    if (c->continued_by > 0)
        snprintf(continued, sizeof continued, "; continued by run %lld", (long long)c->continued_by);
    if (plan_known)
        ma_verdict_interrupted_words(progress, sizeof progress, (long long)reached, (long long)planned,
                                     (long long)c->sectors_carried);
    else
        snprintf(progress, sizeof progress, "interrupted: the run never finished, so sectors may be missing from it");
    if (!verify && c->discrepancies <= 0) {
        v->incomplete = status_is(c->status, "unusable", "incomplete");
        v->state = v->interrupted ? MA_VERDICT_INTERRUPTED : v->incomplete ? MA_VERDICT_INCOMPLETE : MA_VERDICT_RECORDED;
        if (v->state == MA_VERDICT_RECORDED && !strcmp(c->kind, "manifest"))
            snprintf(v->headline, sizeof v->headline, "%s recorded: %s, %s", c->kind, COUNT(c->files, "file", "files"),
                     COUNT(c->bytes, "byte", "bytes"));
        else if (v->state == MA_VERDICT_RECORDED) /* opening, grade: their own commands report them */
            snprintf(v->headline, sizeof v->headline, "%s run recorded with status '%s' (millaudit %s describes it)",
                     c->kind, c->status ? c->status : "none", c->kind);
        else
            snprintf(v->headline, sizeof v->headline, "%s: the %s run %s", ma_verdict_state_name(v->state), c->kind,
                     v->interrupted ? "never finished" : "found an input unusable");
        return;
    }
    /* every entry is verified, within bounds, a discrepancy or not verified, as verify counts */
    int64_t wb = c->within_bounds > 0 ? c->within_bounds : 0;
    int64_t nv = c->entries - (c->verified > 0 ? c->verified : 0) - wb - (c->discrepancies > 0 ? c->discrepancies : 0);
    v->not_verified = nv > 0 ? nv : 0;
    v->unproven = wb + v->not_verified;
    /* of those, the entries of sectors not checked for a reason of their own (interrupted,
     * damaged): what is left makes the run incomplete, whatever its recorded status says */
    int64_t residual = v->not_verified - (c->unchecked_entries > 0 ? c->unchecked_entries : 0);
    v->discrepancies = c->discrepancies > 0 || c->body_mismatches > 0 || status_is(c->status, "discrepancies", NULL);
    v->damaged = c->files_damaged > 0 || c->sectors_damaged > 0 || c->sectors_input_damaged > 0 ||
                 status_is(c->status, "damaged", NULL);
    v->incomplete = c->sectors_unusable > 0 || status_is(c->status, "unusable", "incomplete") ||
                    (residual > 0 && !v->interrupted);
    v->within_bounds = wb > 0 || status_is(c->status, "within-bounds", NULL);
    roots_text(rt, sizeof rt, c);
    char unproven[128];
    ma_unproven_phrase(unproven, sizeof unproven, (unsigned long long)wb,
                       (unsigned long long)(residual > 0 && !v->interrupted ? residual : 0));
    if (v->discrepancies && c->discrepancies <= 0 && c->body_mismatches > 0) {
        v->state = MA_VERDICT_DISCREPANCIES;
        snprintf(v->headline, sizeof v->headline, "discrepancies found: %s whose body does not match the digest in its "
                 "header", COUNT(c->body_mismatches, "file", "files"));
    } else if (v->discrepancies) {
        v->state = MA_VERDICT_DISCREPANCIES;
        snprintf(v->headline, sizeof v->headline, "discrepancies found: %s%s", NUM(c->discrepancies), rt);
        if (c->body_mismatches > 0)
            detail(v, "%s whose body does not match the digest in its header",
                   COUNT(c->body_mismatches, "file", "files"));
    } else if (v->interrupted && c->sectors == 1 && c->sectors_not_checked == 1) {
        v->state = MA_VERDICT_INTERRUPTED; /* one sector of an interrupted run's plan */
        snprintf(v->headline, sizeof v->headline, "not checked: the run stopped before this sector");
    } else if (v->interrupted && plan_known) {
        v->state = MA_VERDICT_INTERRUPTED;
        snprintf(v->headline, sizeof v->headline, "%s, no discrepancy among them; NOT verified%s", progress, continued);
    } else if (v->interrupted) {
        v->state = MA_VERDICT_INTERRUPTED;
        snprintf(v->headline, sizeof v->headline,
                 "interrupted: the run never finished; %s recorded, no discrepancy among them%s",
                 COUNT(c->sectors, "sector", "sectors"), continued);
    } else if (v->damaged) {
        v->state = MA_VERDICT_DAMAGED;
        damage_words(c, v->headline, sizeof v->headline);
    } else if (v->incomplete) {
        v->state = MA_VERDICT_INCOMPLETE;
        if (c->sectors_unusable <= 0 && c->inputs_absent > 0)
            snprintf(v->headline, sizeof v->headline, "incomplete: %s absent (%s%s)%s%s",
                     COUNT(c->inputs_absent, "successor file", "successor files"), c->absent_names,
                     c->inputs_absent > 3 ? ", ..." : "", unproven[0] ? "; " : "", unproven);
        else if (c->sectors_unusable > 0)
            snprintf(v->headline, sizeof v->headline, "incomplete: %s could not be checked%s%s",
                     COUNT(c->sectors_unusable, "sector", "sectors"), unproven[0] ? "; " : "", unproven);
        else
            snprintf(v->headline, sizeof v->headline, "incomplete: inputs missing or unusable%s%s%s",
                     unproven[0] ? " (" : "", unproven, unproven[0] ? ")" : "");
    } else if (v->within_bounds) {
        v->state = MA_VERDICT_WITHIN_BOUNDS;
        snprintf(v->headline, sizeof v->headline, "verified within bounds only (%s unproven)",
                 COUNT(wb, "entry", "entries"));
    } else {
        v->state = MA_VERDICT_VERIFIED;
        v->good = 1;
        snprintf(v->headline, sizeof v->headline, "fully verified: %s in %s, every value and depth re-derived%s",
                 COUNT(c->entries, "entry", "entries"), COUNT(c->sectors, "sector", "sectors"),
                 c->scope && !strcmp(c->scope, "sectors")
                     ? "; scope: these sectors, given the files they read and the run did not check, not the database"
                     : "");
    }
    /* the conditions that did not lead */
    if (v->state != MA_VERDICT_INTERRUPTED && v->interrupted)
        detail(v, "%s%s", progress, continued);
    if (v->state != MA_VERDICT_DAMAGED && v->damaged) {
        char h[320];
        damage_words(c, h, sizeof h);
        detail(v, "%s", h);
    }
    if (v->state != MA_VERDICT_INCOMPLETE && v->incomplete && c->sectors_unusable > 0)
        detail(v, "incomplete: %s could not be checked", COUNT(c->sectors_unusable, "sector", "sectors"));
    if (v->state != MA_VERDICT_WITHIN_BOUNDS && v->state != MA_VERDICT_INCOMPLETE && wb > 0)
        detail(v, "within bounds only: %s (nothing contradicts them; a successor sector is absent)",
               COUNT(wb, "entry", "entries"));
    if (v->state != MA_VERDICT_INCOMPLETE && residual > 0 && !v->interrupted)
        detail(v, "not verified: %s (a successor absent, unusable or holding a bad value)",
               COUNT(residual, "entry", "entries"));
    if (c->inputs_absent > 0 && !(v->state == MA_VERDICT_INCOMPLETE && c->sectors_unusable <= 0))
        detail(v, "successor %s absent: %s%s (%s in all)", ma_noun(known(c->inputs_absent), "file", "files"),
               c->absent_names, c->inputs_absent > 3 ? ", ..." : "", NUM(c->inputs_absent));
    if (c->entries >= 0 && v->state != MA_VERDICT_VERIFIED)
        detail(v, "%s of %s fully verified", NUM(c->verified), COUNT(c->entries, "entry", "entries"));
    if (c->status && v->state != MA_VERDICT_VERIFIED && !strcmp(c->status, "ok"))
        detail(v, "the store records this run's status as 'ok' (an older build did not count entries checked "
                  "only within bounds); this verdict is derived from the counts");
}

/* ---------------------------------------------------------------- parsing recorded text */

int ma_report_parse_value(const char *text, ma_report_value *v)
{
    memset(v, 0, sizeof *v);
    v->depth = -1;
    if (!text)
        return 0;
    const char *p = text;
    const char *bound = "exact";
    if (!strncmp(p, ">= ", 3)) {
        bound = "lower";
        p += 3;
    }
    static const char *const words[] = {"win", "loss", "draw"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (strncmp(p, words[i], n) || (p[n] && p[n] != ' '))
            continue;
        const char *q = p + n;
        if (i < 2) {
            if (*q != ' ' || !isdigit((unsigned char)q[1]))
                return 0; /* "win" without a depth: not a value we can state as data */
            v->depth = strtoll(q + 1, NULL, 10);
        }
        v->outcome = strdup(words[i]);
        v->bound = strdup(bound);
        return v->outcome && v->bound ? 0 : -1;
    }
    return 0;
}

void ma_report_in_hand(const char *sector, int *mover, int *opponent)
{
    *mover = *opponent = -1;
    if (!sector)
        return;
    /* the last four '_'-separated fields are W, B, WF, BF */
    const char *end = sector + strlen(sector);
    const char *fields[4];
    int k = 4;
    for (const char *q = end; q > sector && k > 0;) {
        const char *s = q;
        while (s > sector && s[-1] != '_')
            s--;
        if (s == q)
            return;
        for (const char *t = s; t < q; t++)
            if (!isdigit((unsigned char)*t))
                return;
        fields[--k] = s;
        q = s > sector ? s - 1 : s;
        if (s == sector)
            break;
    }
    if (k)
        return;
    int wf = atoi(fields[2]), bf = atoi(fields[3]);
    if (wf > 24 || bf > 24)
        return;
    *mover = wf;
    *opponent = bf;
}

/* ---------------------------------------------------------------- loading */

static int64_t col_count(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, ma_error *err)
{
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read run for the report", err);
    return MA_OK;
}

static int find_sector(const ma_run *r, const char *name)
{
    size_t lo = 0, hi = r->n_sectors;
    while (lo < hi) { /* run.sectors is sorted by name (ORDER BY sector: byte order) */
        size_t mid = (lo + hi) / 2;
        int c = strcmp(r->sectors[mid].sector, name);
        if (!c)
            return (int)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int load_v4(ma_audit *a, ma_report *r, ma_error *err)
{
    sqlite3 *db = ma_audit_db(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    r->v4 = ma_sqlite_has_column(db, "sector_results", "carried_from") &&
            ma_sqlite_has_column(db, "discrepancies", "root") && ma_sqlite_has_column(db, "runs", "mode");
    int body = ma_sqlite_has_column(db, "sector_results", "body_digest");
    if (!r->v4)
        return MA_OK;
    rc = prep(a, &st, "SELECT mode, resumed_from, options FROM runs WHERE id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, r->run.id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        r->mode = ma_audit_col_dup(st, 0, &oom);
        r->resumed_from = col_count(st, 1) > 0 ? sqlite3_column_int64(st, 1) : 0;
        r->options = ma_audit_col_dup(st, 2, &oom);
    }
    sqlite3_finalize(st);

    rc = prep(a, &st, body ? "SELECT sector, carried_from, format, canonical, markers, roots, propagated, missing_child,"
                             " unverifiable, bound_wins, body_digest FROM sector_results WHERE run_id = ?"
                           : "SELECT sector, carried_from, format, canonical, markers, roots, propagated, missing_child,"
                             " unverifiable, bound_wins, NULL FROM sector_results WHERE run_id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, r->run.id);
    while ((s = sqlite3_step(st)) == SQLITE_ROW && !oom) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int i = name ? find_sector(&r->run, name) : -1;
        if (i < 0)
            continue;
        ma_report_sector *x = &r->sx[i];
        x->carried_from = col_count(st, 1) > 0 ? sqlite3_column_int64(st, 1) : 0;
        x->format = ma_audit_col_dup(st, 2, &oom);
        int64_t *f[] = {&x->canonical, &x->markers, &x->roots, &x->propagated, &x->missing_child, &x->unverifiable,
                        &x->bound_wins};
        for (int k = 0; k < 7; k++)
            *f[k] = col_count(st, 3 + k);
        x->body_digest = ma_audit_col_dup(st, 10, &oom);
    }
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read sector results", err);

    /* the same order as ma_run_load, so row i here is run.disc[i]; checked below */
    rc = prep(a, &st, "SELECT sector, entry, root, offset, move, successor, stored_outcome, stored_depth,"
                      " derived_outcome, derived_depth, derived_bound FROM discrepancies WHERE run_id = ?"
                      " ORDER BY sector, entry, id", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, r->run.id);
    size_t i = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW && !oom && i < r->run.n_disc) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        const ma_run_discrepancy *d = &r->run.disc[i];
        if (!name || !d->sector || strcmp(name, d->sector) || sqlite3_column_int64(st, 1) != d->entry) {
            sqlite3_finalize(st);
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld: discrepancy rows changed while being read",
                                ma_audit_path(a), (long long)r->run.id);
        }
        ma_report_disc *x = &r->dx[i++];
        x->root = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2) != 0;
        x->offset = col_count(st, 3);
        x->move = ma_audit_col_dup(st, 4, &oom);
        x->successor = ma_audit_col_dup(st, 5, &oom);
        if (sqlite3_column_type(st, 6) != SQLITE_NULL) {
            free(x->stored.outcome), free(x->stored.bound);
            x->stored.outcome = ma_audit_col_dup(st, 6, &oom);
            x->stored.depth = col_count(st, 7);
            x->stored.bound = strdup("exact");
            oom |= !x->stored.bound;
        }
        if (sqlite3_column_type(st, 8) != SQLITE_NULL) {
            free(x->derived.outcome), free(x->derived.bound);
            x->derived.outcome = ma_audit_col_dup(st, 8, &oom);
            x->derived.depth = col_count(st, 9);
            x->derived.bound = ma_audit_col_dup(st, 10, &oom);
        }
    }
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    return MA_OK;
}

static int load_history(ma_audit *a, ma_report *r, ma_error *err)
{
    sqlite3_stmt *st = NULL;
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT * FROM (SELECT r.id, r.started_at, r.ended_at, r.status, %s, count(s.sector),"
             " coalesce(sum(s.entries), 0), coalesce(sum(s.verified), 0), coalesce(sum(s.within_bounds), 0),"
             " coalesce(sum(s.discrepancies), 0), coalesce(sum(s.seconds), 0), %s,"
             " coalesce(sum(s.status IN ('unusable', 'skipped', 'missing')), 0), %s, %s,"
             " coalesce(sum(s.status = 'damaged'), 0), coalesce(sum(s.status = 'input-damaged'), 0),"
             " coalesce(sum(CASE WHEN s.status IN ('damaged', 'input-damaged', 'not-checked') THEN s.entries END), 0),"
             " coalesce(sum(s.status = 'ok'), 0)"
             " FROM runs r LEFT JOIN sector_results s ON s.run_id = r.id"
             " WHERE r.kind = ?1 AND r.database_root IS ?2 AND r.id <= ?3"
             " GROUP BY r.id ORDER BY r.id DESC LIMIT %d) ORDER BY 1",
             r->v4 ? "r.mode" : "NULL", r->v4 ? "coalesce(sum(s.carried_from IS NOT NULL), 0)" : "0",
             ma_sqlite_has_column(ma_audit_db(a), "runs", "planned_sectors") ? "r.planned_sectors" : "NULL",
             ma_sqlite_has_column(ma_audit_db(a), "runs", "continued_by") ? "coalesce(r.continued_by, 0)" : "0",
             HISTORY_RUNS);
    int rc = prep(a, &st, sql, err);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, r->run.kind, -1, SQLITE_STATIC);
    if (r->run.database_root)
        sqlite3_bind_text(st, 2, r->run.database_root, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, r->run.id);
    int s, oom = 0;
    size_t cap = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->n_history == cap) {
            size_t nc = cap ? 2 * cap : 8;
            ma_report_history *p = realloc(r->history, nc * sizeof *p);
            if (!p) {
                oom = 1;
                break;
            }
            r->history = p;
            cap = nc;
        }
        ma_report_history *h = &r->history[r->n_history++];
        memset(h, 0, sizeof *h);
        h->id = sqlite3_column_int64(st, 0);
        h->started_at = ma_audit_col_dup(st, 1, &oom);
        h->ended_at = ma_audit_col_dup(st, 2, &oom);
        h->status = ma_audit_col_dup(st, 3, &oom);
        h->mode = ma_audit_col_dup(st, 4, &oom);
        h->sectors = sqlite3_column_int64(st, 5);
        h->entries = sqlite3_column_int64(st, 6);
        h->verified = sqlite3_column_int64(st, 7);
        h->within_bounds = sqlite3_column_int64(st, 8);
        h->discrepancies = sqlite3_column_int64(st, 9);
        h->seconds = sqlite3_column_double(st, 10);
        h->carried = sqlite3_column_int64(st, 11);
        ma_verdict_counts c;
        memset(&c, 0, sizeof c);
        c.kind = r->run.kind;
        c.status = h->status;
        c.ended = h->ended_at != NULL;
        c.sectors = h->sectors;
        c.entries = h->entries;
        c.verified = h->verified;
        c.within_bounds = h->within_bounds;
        c.discrepancies = h->discrepancies;
        c.value_differences = h->entries - h->verified;
        c.unverifiable = c.roots = c.propagated = -1;
        c.sectors_unusable = sqlite3_column_int64(st, 12);
        c.planned_sectors = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 13);
        c.continued_by = sqlite3_column_int64(st, 14);
        c.sectors_carried = h->carried;
        c.sectors_damaged = sqlite3_column_int64(st, 15);
        c.sectors_input_damaged = sqlite3_column_int64(st, 16);
        c.unchecked_entries = sqlite3_column_int64(st, 17);
        c.sectors_ok = sqlite3_column_int64(st, 18);
        ma_verdict v;
        ma_verdict_decide(&c, &v);
        h->state = v.state;
    }
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read run history", err);
    return MA_OK;
}

/* B's path of a diff run: the options document's "b", else the directory of the B file an
 * "identical: same SHA-256 as <path>" message names. */
static int find_side_b(ma_report *r)
{
    if (r->options) {
        json_t *o = ma_json_load_own(r->options, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!o)
            o = json_loads(r->options, 0, NULL);
        json_t *b = o ? json_object_get(o, "b") : NULL;
        if (json_is_string(b))
            r->side_b = strdup(json_string_value(b));
        json_decref(o);
        if (r->side_b)
            return 0;
    }
    static const char prefix[] = "identical: same SHA-256 as ";
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const char *m = r->run.sectors[i].message;
        if (!m || strncmp(m, prefix, sizeof prefix - 1))
            continue;
        const char *path = m + sizeof prefix - 1;
        const char *slash = strrchr(path, '/');
        r->side_b = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        return r->side_b ? 0 : -1;
    }
    return 0;
}

static void sector_state(const ma_report *r, size_t i)
{
    const ma_run_sector *x = &r->run.sectors[i];
    ma_report_sector *sx = &r->sx[i];
    ma_verdict_counts c;
    memset(&c, 0, sizeof c);
    c.kind = r->run.kind;
    c.status = x->status;
    c.ended = 1;
    c.sectors = 1;
    c.entries = x->entries;
    c.checked = x->checked;
    c.verified = x->verified;
    c.within_bounds = x->within_bounds;
    c.discrepancies = x->discrepancies;
    c.unverifiable = sx->unverifiable;
    c.roots = sx->roots;
    c.propagated = sx->propagated;
    c.sectors_unusable = status_is(x->status, "unusable", "skipped") || status_is(x->status, "missing", NULL);
    c.sectors_not_checked = status_is(x->status, "not-checked", NULL);
    c.body_mismatches = sx->body_digest && !strcmp(sx->body_digest, "mismatch");
    c.sectors_damaged = status_is(x->status, "damaged", NULL);
    c.sectors_input_damaged = status_is(x->status, "input-damaged", NULL);
    c.damage_published = r->integrity.recorded && r->integrity.source && strcmp(r->integrity.source, "none");
    if (c.sectors_damaged || c.sectors_input_damaged || c.sectors_not_checked)
        c.unchecked_entries = x->entries;
    if (r->run.kind && !strcmp(r->run.kind, "diff")) {
        c.value_differences = x->entries - x->verified;
        if (status_is(x->status, "skipped", NULL) && x->message)
            c.only_a = !strncmp(x->message, "only-in-A", 9), c.only_b = !strncmp(x->message, "only-in-B", 9);
        c.sectors_unusable = 0;
    }
    /* a sector's "incomplete" status in older stores means: children absent, bounds only */
    if (status_is(x->status, "incomplete", NULL) && x->within_bounds > 0)
        c.status = "within-bounds";
    ma_verdict v;
    ma_verdict_decide(&c, &v);
    sx->state = (int)v.state;
}

/* Names "<variant>_W_B_WF_BF.<ext>" a message says are absent: "... file X.sec2 (absent), Y.sec2
 * (absent); ..." (the run engine) or "missing-child: X.sec2, Y.sec2 absent" (older builds). */
static int absent_name_at(const char *m, const char *p, const char **end)
{
    static const char *const variants[] = {"std_", "lask_", "mora_"};
    int ok = 0;
    for (int k = 0; k < 3 && !ok; k++)
        ok = !strncmp(p, variants[k], strlen(variants[k]));
    if (!ok || (p > m && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
        return 0;
    const char *q = strchr(p, '_') + 1;
    for (int f = 0; f < 4; f++) {
        if (!isdigit((unsigned char)*q))
            return 0;
        while (isdigit((unsigned char)*q))
            q++;
        if (f < 3 && *q++ != '_')
            return 0;
    }
    if (strncmp(q, ".sec2", 5) && strncmp(q, ".sec", 4) && strncmp(q, ".mdb", 4))
        return 0;
    q += q[4] == '2' ? 5 : 4;
    *end = q;
    return 1;
}

static void absent_inputs(ma_report *r)
{
    char seen[64][48];
    int64_t n = 0;
    size_t len = 0;
    r->absent_names[0] = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const char *m = r->run.sectors[i].message;
        if (!m || (!strstr(m, "absent") && !strstr(m, "missing")))
            continue;
        if (status_is(r->run.sectors[i].status, "damaged", "input-damaged"))
            continue; /* a damaged file is listed as such, not as a successor absent */
        for (const char *p = m; *p; p++) {
            const char *end;
            if (!absent_name_at(m, p, &end))
                continue;
            size_t l = (size_t)(end - p);
            const char *own = r->run.sectors[i].sector;
            if (own && !strncmp(p, own, strlen(own)) && p[strlen(own)] == '.') {
                p = end - 1; /* the sector's own file, named at the start of its message */
                continue;
            }
            int dup = 0;
            for (int64_t k = 0; k < n && k < 64 && !dup; k++)
                dup = strlen(seen[k]) == l && !strncmp(seen[k], p, l);
            if (!dup && l < 48) {
                if (n < 64)
                    memcpy(seen[n], p, l), seen[n][l] = 0;
                if (n < 3) {
                    len += (size_t)snprintf(r->absent_names + len, sizeof r->absent_names - len, "%s%.*s",
                                            n ? ", " : "", (int)l, p);
                    if (len >= sizeof r->absent_names)
                        len = sizeof r->absent_names - 1;
                }
                n++;
            }
            p = end - 1;
        }
    }
    r->totals.inputs_absent = n;
    r->totals.absent_names = n ? r->absent_names : NULL;
}

static void totals(ma_report *r)
{
    ma_verdict_counts *t = &r->totals;
    memset(t, 0, sizeof *t);
    t->kind = r->run.kind;
    t->status = r->run.status;
    t->scope = r->run.scope;
    t->ended = r->run.ended_at != NULL;
    t->planned_sectors = r->planned_sectors;
    t->continued_by = r->continued_by;
    int64_t roots = 0, prop = 0, unver = 0, canon = 0, markers = 0, missing = 0, bw = 0, w = 0, d = 0, l = 0;
    int roots_known = r->run.n_sectors > 0, unver_known = roots_known, canon_known = roots_known;
    int markers_known = roots_known, missing_known = roots_known, bw_known = roots_known, hist = 0;
    int diff = r->run.kind && !strcmp(r->run.kind, "diff");
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const ma_run_sector *x = &r->run.sectors[i];
        ma_report_sector *sx = &r->sx[i];
        t->sectors++;
        t->sectors_not_checked += status_is(x->status, "not-checked", NULL);
        t->sectors_carried += sx->carried_from > 0;
        t->entries += x->entries;
        t->checked += x->checked;
        t->verified += x->verified;
        t->within_bounds += x->within_bounds;
        t->discrepancies += x->discrepancies;
        t->body_mismatches += sx->body_digest && !strcmp(sx->body_digest, "mismatch");
        int damaged = status_is(x->status, "damaged", NULL), input = status_is(x->status, "input-damaged", NULL);
        t->sectors_damaged += damaged;
        t->sectors_input_damaged += input;
        t->sectors_ok += status_is(x->status, "ok", NULL);
        if (damaged || input || status_is(x->status, "not-checked", NULL))
            t->unchecked_entries += x->entries;
        r->total_seconds += x->seconds;
        if (sx->roots >= 0 && sx->propagated >= 0)
            roots += sx->roots, prop += sx->propagated;
        else if (x->discrepancies > 0)
            roots_known = 0; /* a sector with discrepancies but no split: the split is unknown */
        if (sx->unverifiable >= 0)
            unver += sx->unverifiable;
        else
            unver_known = 0;
        canon_known &= sx->canonical >= 0, canon += sx->canonical;
        markers_known &= sx->markers >= 0, markers += sx->markers;
        missing_known &= sx->missing_child >= 0, missing += sx->missing_child;
        bw_known &= sx->bound_wins >= 0, bw += sx->bound_wins;
        if (sx->wins >= 0)
            hist = 1, w += sx->wins, d += sx->draws, l += sx->losses;
        if (diff) {
            for (size_t k = 0; k < x->n_classes; k++) {
                const char *c = x->classes[k].cls ? x->classes[k].cls : "";
                if (!strcmp(c, "encoding"))
                    t->encoding += x->classes[k].count;
                else if (!strcmp(c, "outcome") || !strcmp(c, "depth") || !strcmp(c, "draw-class"))
                    t->value_differences += x->classes[k].count;
            }
            if (status_is(x->status, "skipped", NULL) && x->message) {
                t->only_a += !strncmp(x->message, "only-in-A", 9);
                t->only_b += !strncmp(x->message, "only-in-B", 9);
            }
            t->identical += x->message && !strncmp(x->message, "identical", 9);
        } else if (status_is(x->status, "unusable", "skipped") || status_is(x->status, "missing", NULL)) {
            t->sectors_unusable++;
        }
    }
    t->roots = roots_known ? roots : -1;
    t->propagated = roots_known ? prop : -1;
    t->unverifiable = unver_known ? unver : -1;
    r->total_canonical = canon_known ? canon : -1;
    r->total_markers = markers_known ? markers : -1;
    r->total_missing_child = missing_known ? missing : -1;
    r->total_bound_wins = bw_known ? bw : -1;
    r->total_wins = hist ? w : -1;
    r->total_draws = hist ? d : -1;
    r->total_losses = hist ? l : -1;
    t->files_damaged = (int64_t)r->integrity.n_damaged;
    t->damage_published = r->integrity.recorded && r->integrity.source && strcmp(r->integrity.source, "none");
    t->files = (int64_t)r->run.n_files;
    for (size_t i = 0; i < r->run.n_files; i++)
        t->bytes += r->run.files[i].size;
    if (!diff)
        absent_inputs(r);
}

static int cmp_run_sector(const void *x, const void *y)
{
    return strcmp(((const ma_run_sector *)x)->sector, ((const ma_run_sector *)y)->sector);
}

/* v7: what the run planned and who continued it. The planned sectors the run never recorded are
 * added to run.sectors with status "not-checked" (entries as planned, nothing verified), so every
 * table and total of the report covers the whole plan. Stores without the columns: not recorded. */
static int load_plan(ma_audit *a, ma_report *r, ma_error *err)
{
    sqlite3 *db = ma_audit_db(a);
    sqlite3_stmt *st = NULL;
    int rc, s, oom = 0;
    r->planned_sectors = -1;
    int v6 = ma_sqlite_has_column(db, "runs", "planned_sectors"), v7 = ma_sqlite_has_column(db, "runs", "continued_by");
    if (v6) {
        rc = prep(a, &st, v7 ? "SELECT planned_sectors, continued_by FROM runs WHERE id = ?"
                             : "SELECT planned_sectors, NULL FROM runs WHERE id = ?", err);
        if (rc)
            return rc;
        sqlite3_bind_int64(st, 1, r->run.id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            r->planned_sectors = col_count(st, 0);
            r->continued_by = col_count(st, 1) > 0 ? sqlite3_column_int64(st, 1) : 0;
        }
        sqlite3_finalize(st);
    }
    if (!v7 || !ma_sqlite_has_column(db, "run_plan", "sector"))
        return MA_OK;
    rc = prep(a, &st, "SELECT sector, file, entries FROM run_plan p WHERE run_id = ?1 AND NOT EXISTS"
                      " (SELECT 1 FROM sector_results s WHERE s.run_id = ?1 AND s.sector = p.sector) ORDER BY sector",
              err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, r->run.id);
    size_t added = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW && !oom) {
        ma_run_sector *p = realloc(r->run.sectors, (r->run.n_sectors + 1) * sizeof *p);
        if (!p) {
            oom = 1;
            break;
        }
        r->run.sectors = p;
        ma_run_sector *x = &p[r->run.n_sectors++];
        memset(x, 0, sizeof *x);
        x->sector = ma_audit_col_dup(st, 0, &oom);
        x->file = ma_audit_col_dup(st, 1, &oom);
        x->status = strdup("not-checked");
        oom |= !x->status || !x->sector;
        x->entries = sqlite3_column_int64(st, 2);
        added++;
    }
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (s != SQLITE_DONE && s != SQLITE_ROW)
        return ma_audit_sqlite_error(a, MA_EIO, "read run plan", err);
    if (added)
        qsort(r->run.sectors, r->run.n_sectors, sizeof *r->run.sectors, cmp_run_sector);
    return MA_OK;
}

/* Allocates and fills what follows from the run alone: in-hand counts, histogram sums, values
 * parsed from the recorded text, "not recorded" for every v4 fact. */
static int init_derived(ma_report *r, ma_error *err)
{
    int rc = MA_OK;
    r->sx = calloc(r->run.n_sectors + 1, sizeof *r->sx);
    r->dx = calloc(r->run.n_disc + 1, sizeof *r->dx);
    if (!r->sx || !r->dx)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    for (size_t i = 0; !rc && i < r->run.n_sectors; i++) {
        ma_report_sector *x = &r->sx[i];
        x->canonical = x->markers = x->roots = x->propagated = x->missing_child = x->unverifiable = -1;
        x->bound_wins = x->wins = x->draws = x->losses = -1;
        const ma_run_sector *s = &r->run.sectors[i];
        if (status_is(s->status, "not-checked", NULL)) /* never reached: nothing found in it */
            x->roots = x->propagated = x->missing_child = x->unverifiable = x->bound_wins = 0;
        ma_report_in_hand(s->sector, &x->mover_in_hand, &x->opponent_in_hand);
        if (s->n_bins)
            x->wins = x->draws = x->losses = 0;
        for (size_t k = 0; k < s->n_bins; k++) {
            const char *o = s->bins[k].outcome ? s->bins[k].outcome : "";
            int64_t *slot = !strcmp(o, "win") ? &x->wins : !strcmp(o, "loss") ? &x->losses : !strcmp(o, "draw") ? &x->draws : NULL;
            if (slot)
                *slot += s->bins[k].count;
        }
    }
    for (size_t i = 0; !rc && i < r->run.n_disc; i++)
        if (ma_report_parse_value(r->run.disc[i].stored, &r->dx[i].stored) ||
            ma_report_parse_value(r->run.disc[i].derived, &r->dx[i].derived))
            rc = ma_error_set(err, MA_ENOMEM, "report: out of memory");
        else
            r->dx[i].root = -1, r->dx[i].offset = -1;
    return rc;
}

/* What follows from everything loaded: B's path, sector states, totals, the verdict. */
static int finish(ma_report *r, ma_error *err)
{
    if (r->run.kind && !strcmp(r->run.kind, "diff") && !r->side_b && find_side_b(r))
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    for (size_t i = 0; i < r->run.n_sectors; i++)
        sector_state(r, i);
    totals(r);
    ma_verdict_decide(&r->totals, &r->verdict);
    int rc = ma_report_causes(r, err);
    if (rc == MA_OK)
        ma_report_box_fill(r);
    return rc;
}

int ma_report_derive(ma_report *r, ma_error *err)
{
    int rc = init_derived(r, err);
    return rc ? rc : finish(r, err);
}

int ma_report_load(ma_audit *a, int64_t id, ma_report *r, ma_error *err)
{
    memset(r, 0, sizeof *r);
    sqlite3 *db = ma_audit_db(a);
    /* one snapshot for every query below, even while another process writes a run */
    if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "begin read", err);
    int rc = id ? MA_OK : ma_runs_latest(a, &id, err);
    if (!rc)
        rc = ma_run_load(a, id, &r->run, err);
    if (!rc)
        rc = load_plan(a, r, err);
    if (!rc)
        rc = init_derived(r, err);
    if (!rc)
        rc = load_v4(a, r, err);
    if (!rc)
        rc = load_history(a, r, err);
    if (!rc)
        rc = ma_report_since_load(a, r, err);
    if (!rc && !(r->store_path = strdup(ma_audit_path(a))))
        rc = ma_error_set(err, MA_ENOMEM, "report: out of memory");
    if (!rc)
        rc = ma_audit_integrity_read(a, r->run.id, &r->integrity, err);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return rc ? rc : finish(r, err);
}

static void value_free(ma_report_value *v)
{
    free(v->outcome);
    free(v->bound);
}

void ma_report_free(ma_report *r)
{
    if (!r)
        return;
    ma_report_release(r);
    ma_run_free(&r->run);
    memset(r, 0, sizeof *r);
}

void ma_report_release(ma_report *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->sx && i < r->run.n_sectors; i++)
        free(r->sx[i].format), free(r->sx[i].body_digest), free(r->sx[i].because);
    free(r->store_path);
    for (size_t i = 0; r->dx && i < r->run.n_disc; i++) {
        free(r->dx[i].move), free(r->dx[i].successor);
        value_free(&r->dx[i].stored), value_free(&r->dx[i].derived);
    }
    for (size_t i = 0; i < r->n_history; i++)
        free(r->history[i].started_at), free(r->history[i].ended_at), free(r->history[i].status),
            free(r->history[i].mode);
    free(r->history), free(r->sx), free(r->dx), free(r->mode), free(r->options), free(r->side_b);
    ma_audit_integrity_free(&r->integrity);
    ma_run run = r->run;
    memset(r, 0, sizeof *r);
    r->run = run;
}
