/* Runs as a history: list, previous run, regressions (reports/store/history.h). */
#include "reports/store/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "common/json_text.h"

/* ---------------------------------------------------------------- SQL helpers */

static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, const char *what, ma_error *err)
{
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    return MA_OK;
}

/* After a loop of sqlite3_step: s is the last step's result. A damaged page must not read as the
 * end of the rows. */
static int finish(ma_audit *a, sqlite3_stmt *st, int s, const char *what, ma_error *err)
{
    int f = sqlite3_finalize(st) & 0xff;
    if (s == SQLITE_DONE && f == SQLITE_OK)
        return MA_OK;
    if (f == SQLITE_CORRUPT || f == SQLITE_NOTADB || s == SQLITE_CORRUPT || s == SQLITE_NOTADB)
        return ma_audit_sqlite_error(a, MA_EFORMAT, what, err);
    return ma_audit_sqlite_error(a, MA_EIO, what, err);
}

/* ---------------------------------------------------------------- list */

static void rows_free(ma_run_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        ma_run_row *r = &rows[i];
        free(r->kind), free(r->started_at), free(r->ended_at), free(r->status), free(r->mode);
        free(r->database_root), free(r->tool_version);
    }
    free(rows);
}

static int list_rows(ma_audit *a, const ma_runs_filter *f, ma_run_row **out, size_t *n, ma_error *err)
{
    *out = NULL;
    *n = 0;
    /* v6/v7 columns only where the store has them: readers never migrate a store */
    int v6 = ma_sqlite_has_column(ma_audit_db(a), "runs", "planned_sectors");
    int v7 = ma_sqlite_has_column(ma_audit_db(a), "runs", "continued_by");
    char sql[1400];
    snprintf(sql, sizeof sql,
        "SELECT r.id, r.kind, r.started_at, r.ended_at, r.status, r.mode, r.database_root, r.tool_version,"
        " r.resumed_from, EXISTS (SELECT 1 FROM run_imports i WHERE i.run_id = r.id),"
        " count(s.sector), coalesce(sum(s.carried_from IS NOT NULL), 0),"
        " coalesce(sum(s.status = 'discrepancies'), 0), coalesce(sum(s.status = 'unusable'), 0),"
        " coalesce(sum(s.entries), 0), coalesce(sum(s.checked), 0), coalesce(sum(s.verified), 0),"
        " coalesce(sum(s.within_bounds), 0), coalesce(sum(s.discrepancies), 0), %s, %s"
        " FROM runs r LEFT JOIN sector_results s ON s.run_id = r.id"
        " WHERE (?1 IS NULL OR r.kind = ?1) AND (?2 IS NULL OR r.database_root = ?2)"
        " GROUP BY r.id ORDER BY r.id DESC LIMIT ?3",
        v6 ? "r.planned_sectors" : "NULL", v7 ? "r.continued_by" : "NULL");
    sqlite3_stmt *st = NULL;
    int rc = prep(a, &st, sql, "list runs", err);
    if (rc)
        return rc;
    ma_audit_bind_text(st, 1, f ? f->kind : NULL);
    ma_audit_bind_text(st, 2, f ? f->root : NULL);
    sqlite3_bind_int64(st, 3, f && f->last ? (int64_t)f->last : -1);
    ma_run_row *rows = NULL;
    size_t cnt = 0, cap = 0;
    int oom = 0, s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            size_t nc = cap ? 2 * cap : 32;
            ma_run_row *p = realloc(rows, nc * sizeof *rows);
            if (!p) {
                oom = 1;
                break;
            }
            rows = p;
            cap = nc;
        }
        ma_run_row *r = &rows[cnt++];
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        r->kind = ma_audit_col_dup(st, 1, &oom);
        r->started_at = ma_audit_col_dup(st, 2, &oom);
        r->ended_at = ma_audit_col_dup(st, 3, &oom);
        r->status = ma_audit_col_dup(st, 4, &oom);
        r->mode = ma_audit_col_dup(st, 5, &oom);
        r->database_root = ma_audit_col_dup(st, 6, &oom);
        r->tool_version = ma_audit_col_dup(st, 7, &oom);
        r->resumed_from = sqlite3_column_int64(st, 8);
        r->imported = sqlite3_column_int(st, 9);
        int64_t *counts[] = {&r->sectors, &r->sectors_carried, &r->sectors_failing, &r->sectors_unusable,
                             &r->entries, &r->checked, &r->verified, &r->within_bounds, &r->discrepancies};
        for (int k = 0; k < 9; k++)
            *counts[k] = sqlite3_column_int64(st, 10 + k);
        r->planned_sectors = sqlite3_column_type(st, 19) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 19);
        r->continued_by = sqlite3_column_int64(st, 20);
    }
    if (oom) {
        sqlite3_finalize(st);
        rows_free(rows, cnt);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    }
    if ((rc = finish(a, st, s, "list runs", err))) {
        rows_free(rows, cnt);
        return rc;
    }
    /* newest first from SQL (for LIMIT); oldest first for people */
    for (size_t i = 0; i < cnt / 2; i++) {
        ma_run_row t = rows[i];
        rows[i] = rows[cnt - 1 - i];
        rows[cnt - 1 - i] = t;
    }
    *out = rows;
    *n = cnt;
    return MA_OK;
}

int ma_runs_list(ma_run_list **out, ma_audit *a, const ma_runs_filter *f, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = list_rows(a, f, &(*out)->rows, &(*out)->n, err);
    if (rc) {
        ma_run_list_free(*out);
        *out = NULL;
    }
    return rc;
}

void ma_run_list_free(ma_run_list *l)
{
    if (!l)
        return;
    rows_free(l->rows, l->n);
    free(l);
}

int ma_runs_newest(ma_audit *a, const char *kind, const char *root, int64_t *id, ma_error *err)
{
    *id = 0;
    sqlite3_stmt *st = NULL;
    int rc = prep(a, &st,
                  "SELECT max(id) FROM runs WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR database_root = ?2)",
                  "find the newest run", err);
    if (rc)
        return rc;
    ma_audit_bind_text(st, 1, kind);
    ma_audit_bind_text(st, 2, root);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        *id = sqlite3_column_int64(st, 0); /* NULL reads as 0: none */
        s = sqlite3_step(st);
    }
    return finish(a, st, s, "find the newest run", err);
}

int ma_runs_previous(ma_audit *a, int64_t run, int64_t *prev, ma_error *err)
{
    *prev = 0;
    sqlite3_stmt *st = NULL;
    int rc = prep(a, &st, "SELECT kind, database_root FROM runs WHERE id = ?", "find the previous run", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run);
    int s = sqlite3_step(st);
    if (s == SQLITE_DONE) {
        sqlite3_finalize(st);
        return ma_error_set(err, MA_EMISSING, "%s: run %lld does not exist", ma_audit_path(a), (long long)run);
    }
    if (s != SQLITE_ROW)
        return finish(a, st, s, "find the previous run", err);
    const char *kind = (const char *)sqlite3_column_text(st, 0);
    if (!kind || strcmp(kind, "verify")) {
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld is a %s run; regressions compare verify runs",
                          ma_audit_path(a), (long long)run, kind ? kind : "(unknown)");
        sqlite3_finalize(st);
        return rc;
    }
    int oom = 0;
    char *root = ma_audit_col_dup(st, 1, &oom);
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (!root)
        return MA_OK; /* a run without a root has no history */
    rc = prep(a, &st,
              "SELECT max(id) FROM runs r WHERE kind = 'verify' AND database_root = ?1 AND id < ?2"
              " AND ended_at IS NOT NULL AND status IS NOT NULL AND status NOT IN ('interrupted', 'resumed')"
              " AND NOT EXISTS (SELECT 1 FROM run_imports i WHERE i.run_id = r.id)",
              "find the previous run", err);
    if (!rc) {
        ma_audit_bind_text(st, 1, root);
        sqlite3_bind_int64(st, 2, run);
        s = sqlite3_step(st);
        if (s == SQLITE_ROW) {
            *prev = sqlite3_column_int64(st, 0);
            s = sqlite3_step(st);
        }
        rc = finish(a, st, s, "find the previous run", err);
    }
    free(root);
    return rc;
}

/* ---------------------------------------------------------------- JSON helpers */

typedef struct jb {
    int bad;
} jb;

static void put(jb *b, json_t *o, const char *key, json_t *v)
{
    if (!o || !v || json_object_set_new(o, key, v))
        b->bad = 1;
}

static void push(jb *b, json_t *arr, json_t *v)
{
    if (!arr || !v || json_array_append_new(arr, v))
        b->bad = 1;
}

static int dump(jb *b, json_t *doc, char **out, ma_error *err)
{
    *out = NULL;
    if (!b->bad) {
        char *s = ma_json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (s) {
            size_t n = strlen(s);
            char *t = realloc(s, n + 2);
            if (t) {
                t[n] = '\n';
                t[n + 1] = 0;
                *out = t;
            } else {
                free(s);
            }
        }
    }
    json_decref(doc);
    return *out ? MA_OK : ma_error_set(err, MA_ENOMEM, "json: out of memory");
}

int ma_runs_list_json(const ma_run_row *rows, size_t n, const char *store, char **out, ma_error *err)
{
    jb b = {0};
    json_t *doc = json_object();
    put(&b, doc, "schema_version", json_integer(MA_HISTORY_SCHEMA_VERSION));
    put(&b, doc, "command", json_string("runs list"));
    put(&b, doc, "store", ma_json_store_text(store));
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        const ma_run_row *r = &rows[i];
        json_t *o = json_object();
        put(&b, o, "id", json_integer(r->id));
        put(&b, o, "kind", ma_json_store_text(r->kind));
        put(&b, o, "started_at", ma_json_store_text(r->started_at));
        put(&b, o, "ended_at", ma_json_store_text(r->ended_at));
        put(&b, o, "status", ma_json_store_text(r->status));
        put(&b, o, "mode", ma_json_store_text(r->mode));
        put(&b, o, "database_root", ma_json_store_text(r->database_root));
        put(&b, o, "tool_version", ma_json_store_text(r->tool_version));
        put(&b, o, "resumed_from", r->resumed_from ? json_integer(r->resumed_from) : json_null());
        put(&b, o, "continued_by", r->continued_by ? json_integer(r->continued_by) : json_null());
        put(&b, o, "planned_sectors", r->planned_sectors >= 0 ? json_integer(r->planned_sectors) : json_null());
        put(&b, o, "imported", json_boolean(r->imported));
        json_t *t = json_object();
        put(&b, t, "sectors", json_integer(r->sectors));
        put(&b, t, "sectors_carried", json_integer(r->sectors_carried));
        put(&b, t, "sectors_with_discrepancies", json_integer(r->sectors_failing));
        put(&b, t, "sectors_unusable", json_integer(r->sectors_unusable));
        put(&b, t, "entries", json_integer(r->entries));
        put(&b, t, "checked", json_integer(r->checked));
        put(&b, t, "verified", json_integer(r->verified));
        put(&b, t, "within_bounds", json_integer(r->within_bounds));
        put(&b, t, "discrepancies", json_integer(r->discrepancies));
        put(&b, o, "totals", t);
        push(&b, arr, o);
    }
    put(&b, doc, "runs", arr);
    return dump(&b, doc, out, err);
}

static const char *cmp_word(int v)
{
    return v == MA_CMP_SAME ? "same" : v == MA_CMP_DIFFER ? "differ" : "not recorded";
}

static json_t *run_side(jb *b, const ma_run *r, const char *store)
{
    json_t *o = json_object();
    put(b, o, "store", ma_json_store_text(store));
    put(b, o, "id", json_integer(r->id));
    put(b, o, "kind", ma_json_store_text(r->kind));
    put(b, o, "started_at", ma_json_store_text(r->started_at));
    put(b, o, "ended_at", ma_json_store_text(r->ended_at));
    put(b, o, "status", ma_json_store_text(r->status));
    put(b, o, "database_root", ma_json_store_text(r->database_root));
    put(b, o, "sectors", json_integer((json_int_t)r->n_sectors));
    put(b, o, "manifest_files", json_integer((json_int_t)r->n_files));
    return o;
}

int ma_run_cmp_json(const ma_run_cmp *c, const ma_run *a, const char *store_a, const ma_run *bb,
                    const char *store_b, char **out, ma_error *err)
{
    jb b = {0};
    json_t *doc = json_object();
    put(&b, doc, "schema_version", json_integer(MA_HISTORY_SCHEMA_VERSION));
    put(&b, doc, "command", json_string("runs compare"));
    put(&b, doc, "a", run_side(&b, a, store_a));
    put(&b, doc, "b", run_side(&b, bb, store_b));
    json_t *arr = json_array();
    for (size_t i = 0; i < c->n_rows; i++) {
        const ma_run_cmp_row *row = &c->rows[i];
        json_t *o = json_object();
        put(&b, o, "name", ma_json_store_text(row->name));
        put(&b, o, "is_file", json_boolean(row->is_file));
        put(&b, o, "in_a", json_boolean(row->in_a));
        put(&b, o, "in_b", json_boolean(row->in_b));
        put(&b, o, "bytes", json_string(cmp_word(row->bytes)));
        put(&b, o, "values", json_string(cmp_word(row->values)));
        put(&b, o, "verdict", json_string(row->how));
        push(&b, arr, o);
    }
    put(&b, doc, "sectors", arr);
    json_t *cnt = json_object();
    put(&b, cnt, "sectors", json_integer((json_int_t)c->n_rows));
    put(&b, cnt, "same", json_integer((json_int_t)c->n_same));
    put(&b, cnt, "differ", json_integer((json_int_t)c->n_differ));
    put(&b, cnt, "not_comparable", json_integer((json_int_t)c->n_unknown));
    put(&b, doc, "counts", cnt);
    const char *result = c->n_differ ? "differ" : (c->n_unknown || !c->n_rows) ? "not comparable" : "equal";
    put(&b, doc, "result", json_string(result));
    return dump(&b, doc, out, err);
}

/* ---------------------------------------------------------------- regressions */

const char *ma_change_name(int bit)
{
    static const char *const names[MA_CHANGES] = {"appeared", "vanished", "new-discrepancies", "more-discrepancies",
                                                 "fewer-discrepancies", "fixed", "values-changed",
                                                 "status-changed", "classes-changed"};
    return bit >= 0 && bit < MA_CHANGES ? names[bit] : "?";
}

/* How completely a sector was checked: ok and discrepancies (fully re-derived) 0, within-bounds 1,
 * incomplete 2, unusable or anything unknown 3. */
static int check_rank(const char *status)
{
    if (!status)
        return 3;
    if (!strcmp(status, "ok") || !strcmp(status, "discrepancies"))
        return 0;
    if (!strcmp(status, "within-bounds"))
        return 1;
    if (!strcmp(status, "incomplete"))
        return 2;
    return 3;
}

/* Severity of a run's verdict (runs.status): ok < within-bounds < incomplete (and the older
 * 'unusable') < interrupted (and 'resumed', NULL: never finished) < discrepancies. */
static int verdict_rank(const char *status)
{
    if (!status)
        return 3;
    if (!strcmp(status, "ok"))
        return 0;
    if (!strcmp(status, "within-bounds"))
        return 1;
    if (!strcmp(status, "incomplete") || !strcmp(status, "unusable"))
        return 2;
    if (!strcmp(status, "discrepancies"))
        return 4;
    return 3;
}

static int failing(const ma_run_sector *s)
{
    return s && s->status && !strcmp(s->status, "discrepancies");
}

static int is_verified(const ma_run *r)
{
    return r && r->status && !strcmp(r->status, "ok") && r->ended_at;
}

/* Did r finish and record a row for every sector it read? Only then is a sector it has no row of
 * gone from the database. */
static int is_through(const ma_run *r)
{
    if (!r->status || !r->ended_at)
        return 0;
    return strcmp(r->status, "interrupted") && strcmp(r->status, "resumed") && strcmp(r->status, "incomplete");
}

static int cmp_sector_ptr(const void *x, const void *y)
{
    const ma_run_sector *a = *(const ma_run_sector *const *)x, *b = *(const ma_run_sector *const *)y;
    return strcmp(a->sector, b->sector);
}

/* The sectors of r (NULL: none) sorted by name, as a malloc'd array of pointers. */
static const ma_run_sector **sorted_sectors(const ma_run *r, size_t *n)
{
    *n = r ? r->n_sectors : 0;
    const ma_run_sector **v = calloc(*n ? *n : 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < *n; i++)
        v[i] = &r->sectors[i];
    if (*n)
        qsort(v, *n, sizeof *v, cmp_sector_ptr);
    return v;
}

static int classes_differ(const ma_run_sector *a, const ma_run_sector *b)
{
    /* compare as maps: every class with a non-zero count on either side */
    for (int side = 0; side < 2; side++) {
        const ma_run_sector *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < x->n_classes; i++) {
            if (!x->classes[i].count)
                continue;
            int64_t other = 0;
            for (size_t k = 0; k < y->n_classes; k++)
                if (!strcmp(y->classes[k].cls, x->classes[i].cls))
                    other = y->classes[k].count;
            if (other != x->classes[i].count)
                return 1;
        }
    }
    return 0;
}

static void judge(ma_regression_row *row, const ma_run *base, const ma_run *run)
{
    const ma_run_sector *b = row->base, *r = row->run;
    int64_t db = b ? b->discrepancies : 0, dr = r ? r->discrepancies : 0;
    unsigned ch = 0;
    if (!b)
        ch |= MA_CHANGE_APPEARED;
    if (!r)
        ch |= MA_CHANGE_VANISHED;
    if (r) {
        /* fixed: the sector failed and now passes (its count may have been 0: a body digest
         * mismatch fails a sector without a single wrong entry) */
        if (failing(b) && check_rank(r->status) <= 1 && !failing(r))
            ch |= MA_CHANGE_FIXED;
        if (dr > db)
            ch |= db ? MA_CHANGE_MORE_DISCREPANCIES : MA_CHANGE_NEW_DISCREPANCIES;
        else if (dr < db && !(ch & MA_CHANGE_FIXED))
            ch |= MA_CHANGE_FEWER_DISCREPANCIES;
    }
    if (b && r) {
        if (!b->status || !r->status ? b->status != r->status : strcmp(b->status, r->status))
            ch |= MA_CHANGE_STATUS;
        if (b->derived_sha256 && r->derived_sha256 && strcmp(b->derived_sha256, r->derived_sha256))
            ch |= MA_CHANGE_VALUES;
        if (classes_differ(b, r))
            ch |= MA_CHANGE_CLASSES;
    }
    row->changes = ch;
    row->regression = row->improvement = row->unchecked = 0;
    row->why = NULL;
    /* the first reason found names the row; the order is the order of importance */
    /* Not checked by this run: the report's row of a planned sector it never reached (status
     * not-checked), or no row at all in a run that did not go through its plan (interrupted, never
     * finished) or whose store refused rows (incomplete). Less is proven than before, which is a
     * regression, but nothing was found wrong, and the sector may well still be there: no fault. */
    int unchecked = b && ((r && r->status && !strcmp(r->status, "not-checked")) ||
                          (!r && (!run || !is_through(run))));
    if (unchecked && check_rank(b->status) < check_rank("not-checked")) {
        row->regression = row->unchecked = 1;
        row->why = "not checked by this run, which is interrupted or incomplete: unproven, not known to be gone "
                   "or wrong";
    } else if (ch & MA_CHANGE_VANISHED) {
        row->regression = 1, row->why = "the sector is no longer in the database";
    } else if (ch & (MA_CHANGE_NEW_DISCREPANCIES | MA_CHANGE_MORE_DISCREPANCIES)) {
        row->regression = 1, row->why = ch & MA_CHANGE_NEW_DISCREPANCIES ? "new discrepancies" : "more discrepancies";
    } else if (failing(r) && !failing(b)) {
        row->regression = 1;
        row->why = "the sector fails now (status discrepancies: e.g. its body digest does not match)";
    } else if (r && check_rank(r->status) > (b ? check_rank(b->status) : 0)) {
        row->regression = 1, row->why = "checked less completely than before";
    } else if ((ch & MA_CHANGE_VALUES) && (!is_verified(run) || is_verified(base))) {
        row->regression = 1;
        row->why = is_verified(run) ? "derived values changed although both runs are fully verified (did the "
                                      "checker or the rules change?)"
                                    : "derived values changed and the run is not fully verified";
    }
    if (row->regression)
        return;
    if (ch & MA_CHANGE_FIXED)
        row->improvement = 1, row->why = "fixed: no discrepancies any more";
    else if (ch & MA_CHANGE_FEWER_DISCREPANCIES)
        row->improvement = 1, row->why = "fewer discrepancies";
    else if (b && r && check_rank(r->status) < check_rank(b->status))
        row->improvement = 1, row->why = "checked more completely than before";
    else if (ch & MA_CHANGE_VALUES)
        row->improvement = 1, row->why = "derived values corrected: the run is fully verified";
}

/* A fault of the sector itself in its run: root discrepancies (or discrepancies whose split was
 * not recorded), or a failing status without discrepancies (a body that does not match its
 * header's digest). */
static int own_fault(const ma_run_sector *s)
{
    if (!failing(s))
        return 0;
    return !s->has_split || s->roots > 0 || s->discrepancies == 0;
}

/* Could this regression be explained by a sector below it? (history.h: root causes) */
static int may_be_consequence(const ma_regression_row *row)
{
    const ma_run_sector *r = row->run;
    if (!row->regression || !r || !row->base || !r->has_successors || own_fault(r))
        return 0;
    if (check_rank(r->status) > check_rank(row->base->status))
        return 0; /* checked less completely: its own inputs are missing, not wrong */
    return !(row->changes & (MA_CHANGE_APPEARED | MA_CHANGE_VANISHED));
}

/* The row of sector name (rows are sorted by name), or NULL. */
static ma_regression_row *row_of(const ma_regressions *g, const char *name)
{
    size_t lo = 0, hi = g->n_rows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(g->rows[mid].sector, name);
        if (!c)
            return &g->rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Row i's causes (history.h: root causes): the rows j with cause[j] reachable from it through the
 * run's recorded inputs, appended to its because. seen and queue: room for g->n_rows. */
static int causes_of(ma_regressions *g, size_t i, const char *cause, char *seen, size_t *queue)
{
    size_t n = g->n_rows;
    ma_regression_row *row = &g->rows[i];
    size_t head = 0, tail = 0;
    memset(seen, 0, n);
    seen[i] = 1;
    queue[tail++] = i;
    while (head < tail) {
        const ma_run_sector *s = g->rows[queue[head++]].run;
        for (size_t k = 0; s && k < s->n_successors; k++) {
            ma_regression_row *next = row_of(g, s->successors[k]);
            size_t j = next ? (size_t)(next - g->rows) : n;
            if (j < n && !seen[j] && next->run) {
                seen[j] = 1;
                queue[tail++] = j;
            }
        }
    }
    for (size_t j = 0; j < n; j++) {
        if (j == i || !seen[j] || !cause[j])
            continue;
        const char **p = realloc(row->because, (row->n_because + 1) * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        row->because = p;
        row->because[row->n_because++] = g->rows[j].sector;
    }
    return MA_OK;
}

/* Marks the consequences among the regressions and names their causes: the sectors reachable
 * through the run's recorded inputs that changed and hold a fault of their own, or regressed in a
 * way no successor explains. Then the improvements that follow: their causes are the improved
 * sectors below them that held a fault of their own in the baseline. */
static int attribute(ma_regressions *g)
{
    size_t n = g->n_rows;
    char *cause = calloc(n ? n : 1, 1), *seen = malloc(n ? n : 1);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    int rc = cause && seen && queue ? MA_OK : MA_ENOMEM;
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const ma_regression_row *row = &g->rows[i];
        cause[i] = row->run && row->changes &&
                   (own_fault(row->run) || (row->regression && !may_be_consequence(row)));
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        ma_regression_row *row = &g->rows[i];
        if (!may_be_consequence(row) || (rc = causes_of(g, i, cause, seen, queue)) != MA_OK)
            continue;
        if (row->n_because) {
            row->consequence = 1;
            row->why = "derived values changed as a consequence of a fault below it (it agrees with its successors)";
            g->n_consequences++;
        }
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const ma_regression_row *row = &g->rows[i];
        cause[i] = row->improvement && row->base && own_fault(row->base);
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        ma_regression_row *row = &g->rows[i];
        const ma_run_sector *b = row->base;
        if (!row->improvement || cause[i] || !b || (rc = causes_of(g, i, cause, seen, queue)) != MA_OK)
            continue;
        if (row->n_because || (b->has_split && b->roots == 0 && b->propagated > 0)) {
            row->follows = 1;
            row->why = row->changes & MA_CHANGE_FIXED ? "fixed: no discrepancies any more (they were a consequence)"
                                                      : "derived values corrected as a consequence of a fix below it";
            g->n_follows++;
        }
    }
    free(cause), free(seen), free(queue);
    return rc;
}

int ma_regressions_compute(ma_regressions *out, const ma_run *base, const ma_run *run, ma_error *err)
{
    memset(out, 0, sizeof *out);
    out->base = base;
    out->run = run;
    size_t nb = 0, nr = 0;
    const ma_run_sector **vb = sorted_sectors(base, &nb), **vr = sorted_sectors(run, &nr);
    out->rows = calloc(nb + nr ? nb + nr : 1, sizeof *out->rows);
    if (!vb || !vr || !out->rows) {
        free(vb), free(vr);
        ma_regressions_free(out);
        return ma_error_set(err, MA_ENOMEM, "regressions: out of memory");
    }
    /* merge the two sorted lists: one row per sector name */
    for (size_t i = 0, k = 0; i < nb || k < nr;) {
        int c = i == nb ? 1 : k == nr ? -1 : strcmp(vb[i]->sector, vr[k]->sector);
        ma_regression_row *row = &out->rows[out->n_rows++];
        row->base = c <= 0 ? vb[i++] : NULL;
        row->run = c >= 0 ? vr[k++] : NULL;
        row->sector = row->run ? row->run->sector : row->base->sector;
    }
    free(vb), free(vr);
    if (!base) { /* the first run of its root: nothing to compare with, nothing changed */
        out->n_unchanged = out->n_rows;
        return MA_OK;
    }
    for (size_t i = 0; i < out->n_rows; i++) {
        ma_regression_row *row = &out->rows[i];
        judge(row, base, run);
        out->n_regressions += row->regression;
        out->n_improvements += row->improvement;
        if (row->changes)
            out->n_changed++;
        else
            out->n_unchanged++;
    }
    const char *sb = base->ended_at ? base->status : NULL, *sr = run->ended_at ? run->status : NULL;
    out->verdict_changed = !sb || !sr ? sb != sr : strcmp(sb, sr) != 0;
    if (out->verdict_changed) {
        int rb = verdict_rank(sb), rr = verdict_rank(sr);
        out->verdict_worse = rr > rb;
        out->verdict_better = rr < rb;
    }
    out->regressed = out->n_regressions > 0 || out->verdict_worse;
    if (attribute(out) != MA_OK) {
        ma_regressions_free(out);
        return ma_error_set(err, MA_ENOMEM, "regressions: out of memory");
    }
    return MA_OK;
}

void ma_regressions_free(ma_regressions *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->rows && i < r->n_rows; i++)
        free(r->rows[i].because);
    free(r->rows);
    memset(r, 0, sizeof *r);
}

static json_t *classes_json(jb *b, const ma_run_sector *s)
{
    json_t *o = json_object();
    for (size_t i = 0; i < s->n_classes; i++)
        if (s->classes[i].count)
            put(b, o, s->classes[i].cls, json_integer(s->classes[i].count));
    return o;
}

static json_t *sector_side(jb *b, const ma_run_sector *s)
{
    if (!s)
        return json_null();
    json_t *o = json_object();
    put(b, o, "status", ma_json_store_text(s->status));
    put(b, o, "discrepancies", json_integer(s->discrepancies));
    put(b, o, "roots", s->has_split ? json_integer(s->roots) : json_null());
    put(b, o, "classes", classes_json(b, s));
    put(b, o, "derived_sha256", ma_json_store_text(s->derived_sha256));
    return o;
}

static json_t *run_brief(jb *b, const ma_run *r)
{
    if (!r)
        return json_null();
    json_t *o = json_object();
    put(b, o, "id", json_integer(r->id));
    put(b, o, "started_at", ma_json_store_text(r->started_at));
    put(b, o, "ended_at", ma_json_store_text(r->ended_at));
    put(b, o, "status", ma_json_store_text(r->status));
    put(b, o, "database_root", ma_json_store_text(r->database_root));
    put(b, o, "sectors", json_integer((json_int_t)r->n_sectors));
    return o;
}

int ma_regressions_json(const ma_regressions *r, const char *store, const char *basis, char **out, ma_error *err)
{
    jb b = {0};
    json_t *doc = json_object();
    put(&b, doc, "schema_version", json_integer(MA_REGRESSIONS_SCHEMA_VERSION));
    put(&b, doc, "command", json_string("runs regressions"));
    put(&b, doc, "store", ma_json_store_text(store));
    put(&b, doc, "run", run_brief(&b, r->run));
    put(&b, doc, "baseline", run_brief(&b, r->base));
    put(&b, doc, "basis", r->base ? ma_json_store_text(basis) : json_null());
    json_t *v = json_object();
    put(&b, v, "from", r->base ? ma_json_store_text(r->base->ended_at ? r->base->status : NULL) : json_null());
    put(&b, v, "to", ma_json_store_text(r->run->ended_at ? r->run->status : NULL));
    put(&b, v, "changed", json_boolean(r->verdict_changed));
    put(&b, v, "worse", json_boolean(r->verdict_worse));
    put(&b, v, "better", json_boolean(r->verdict_better));
    put(&b, doc, "verdict", v);
    put(&b, doc, "regressed", json_boolean(r->regressed));
    json_t *c = json_object();
    put(&b, c, "sectors", json_integer((json_int_t)r->n_rows));
    put(&b, c, "regressions", json_integer((json_int_t)r->n_regressions));
    put(&b, c, "consequences", json_integer((json_int_t)r->n_consequences));
    put(&b, c, "improvements", json_integer((json_int_t)r->n_improvements));
    put(&b, c, "follows", json_integer((json_int_t)r->n_follows));
    put(&b, c, "changed", json_integer((json_int_t)r->n_changed));
    put(&b, c, "unchanged", json_integer((json_int_t)r->n_unchanged));
    put(&b, doc, "counts", c);
    json_t *arr = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_regression_row *row = &r->rows[i];
        if (!row->changes)
            continue;
        json_t *o = json_object();
        put(&b, o, "sector", ma_json_store_text(row->sector));
        json_t *ch = json_array();
        for (int k = 0; k < MA_CHANGES; k++)
            if (row->changes >> k & 1)
                push(&b, ch, json_string(ma_change_name(k)));
        put(&b, o, "changes", ch);
        put(&b, o, "regression", json_boolean(row->regression));
        put(&b, o, "improvement", json_boolean(row->improvement));
        put(&b, o, "why", ma_json_store_text(row->why));
        json_t *because = json_array();
        for (size_t k = 0; k < row->n_because; k++)
            push(&b, because, ma_json_store_text(row->because[k]));
        put(&b, o, "consequence_of", because);
        put(&b, o, "baseline", sector_side(&b, row->base));
        put(&b, o, "run", sector_side(&b, row->run));
        push(&b, arr, o);
    }
    put(&b, doc, "sectors", arr);
    return dump(&b, doc, out, err);
}
