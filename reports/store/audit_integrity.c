/* reports/store/audit_integrity: a run's integrity phase, written and read (schema v11,
 * reports/store/audit_integrity.h). */
#include "reports/store/audit_integrity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* v11: integrity before semantics (docs/download.md). What a verify run judged the files against
 * and every file it found damaged, so a report lists the damage first, as verify did. New tables
 * only, so any v10 store migrates. */
const char ma_audit_integrity_migration_v11[] =
    "CREATE TABLE IF NOT EXISTS run_integrity ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  source TEXT NOT NULL,"
    "  reference TEXT,"
    "  signer TEXT,"
    "  keyid TEXT,"
    "  files INTEGER NOT NULL,"
    "  intact INTEGER NOT NULL,"
    "  body_checked INTEGER NOT NULL"
    ");"
    "CREATE TABLE IF NOT EXISTS run_damage ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL,"
    "  path TEXT NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  sector TEXT,"
    "  refetch INTEGER NOT NULL,"
    "  size INTEGER,"
    "  published_size INTEGER,"
    "  chunk_size INTEGER,"
    "  ranges TEXT,"
    "  detail TEXT NOT NULL,"
    "  PRIMARY KEY (run_id, seq)"
    ");";

int ma_audit_integrity_write(ma_audit *a, int64_t run_id, const ma_audit_integrity *g, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc || (rc = ma_audit_tx_begin(a, err)))
        return rc;
    const char *what = "record the integrity phase";
    rc = ma_audit_exec_bound(a, "DELETE FROM run_damage WHERE run_id = ?", what, err, "i", run_id);
    if (rc == MA_OK)
        rc = ma_audit_exec_bound(a, "DELETE FROM run_integrity WHERE run_id = ?", what, err, "i", run_id);
    if (rc == MA_OK)
        rc = ma_audit_exec_bound(a,
                                 "INSERT INTO run_integrity (run_id, source, reference, signer, keyid, files, intact,"
                                 " body_checked) VALUES (?,?,?,?,?,?,?,?)",
                                 what, err, "ittttiii", run_id, g->source, g->reference, g->signer, g->keyid, g->files,
                                 g->intact, g->body_checked);
    for (size_t i = 0; rc == MA_OK && i < g->n_damaged; i++) {
        const ma_audit_damage *d = &g->damaged[i];
        /* 'n' binds NULL for a count not known (-1) */
        char fmt[16];
        snprintf(fmt, sizeof fmt, "iittti%c%c%ctt", d->size >= 0 ? 'i' : 'n', d->published_size >= 0 ? 'i' : 'n',
                 d->chunk_size > 0 ? 'i' : 'n');
        rc = ma_audit_exec_bound(a,
                                 "INSERT INTO run_damage (run_id, seq, path, kind, sector, refetch, size,"
                                 " published_size, chunk_size, ranges, detail) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                                 what, err, fmt, run_id, (int64_t)i, d->path, d->kind, d->sector, (int64_t)d->refetch,
                                 d->size, d->published_size, d->chunk_size, d->ranges, d->detail);
    }
    if (rc == MA_OK)
        return ma_audit_tx_commit(a, err);
    ma_audit_tx_rollback(a);
    return rc;
}

static int64_t col_or(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

int ma_audit_integrity_read(ma_audit *a, int64_t run_id, ma_audit_integrity *g, ma_error *err)
{
    memset(g, 0, sizeof *g);
    sqlite3 *db = ma_audit_db(a);
    if (!ma_sqlite_has_column(db, "run_integrity", "source"))
        return MA_OK; /* before v11 */
    sqlite3_stmt *st = NULL;
    int oom = 0, s;
    if (sqlite3_prepare_v2(db, "SELECT source, reference, signer, keyid, files, intact, body_checked FROM"
                               " run_integrity WHERE run_id = ?", -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read the integrity phase", err);
    sqlite3_bind_int64(st, 1, run_id);
    if ((s = sqlite3_step(st)) == SQLITE_ROW) {
        g->recorded = 1;
        g->source = ma_audit_col_dup(st, 0, &oom);
        g->reference = ma_audit_col_dup(st, 1, &oom);
        g->signer = ma_audit_col_dup(st, 2, &oom);
        g->keyid = ma_audit_col_dup(st, 3, &oom);
        g->files = sqlite3_column_int64(st, 4);
        g->intact = sqlite3_column_int64(st, 5);
        g->body_checked = sqlite3_column_int64(st, 6);
    }
    sqlite3_finalize(st);
    if (s != SQLITE_ROW && s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read the integrity phase", err);
    if (!g->recorded)
        return oom ? ma_error_set(err, MA_ENOMEM, "out of memory") : MA_OK;
    if (sqlite3_prepare_v2(db, "SELECT path, kind, sector, refetch, size, published_size, chunk_size, ranges, detail"
                               " FROM run_damage WHERE run_id = ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read the damaged files", err);
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW && !oom) {
        if (g->n_damaged == cap) {
            size_t nc = cap ? 2 * cap : 8;
            ma_audit_damage *p = realloc(g->damaged, nc * sizeof *p);
            if (!p) {
                oom = 1;
                break;
            }
            g->damaged = p;
            cap = nc;
        }
        ma_audit_damage *d = &g->damaged[g->n_damaged++];
        memset(d, 0, sizeof *d);
        d->path = ma_audit_col_dup(st, 0, &oom);
        d->kind = ma_audit_col_dup(st, 1, &oom);
        d->sector = ma_audit_col_dup(st, 2, &oom);
        d->refetch = sqlite3_column_int(st, 3) != 0;
        d->size = col_or(st, 4);
        d->published_size = col_or(st, 5);
        d->chunk_size = col_or(st, 6);
        d->ranges = ma_audit_col_dup(st, 7, &oom);
        d->detail = ma_audit_col_dup(st, 8, &oom);
    }
    sqlite3_finalize(st);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read the damaged files", err);
    return MA_OK;
}

void ma_audit_integrity_free(ma_audit_integrity *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_damaged; i++) {
        ma_audit_damage *d = &g->damaged[i];
        free(d->path), free(d->kind), free(d->sector), free(d->ranges), free(d->detail);
    }
    free(g->damaged);
    free(g->source), free(g->reference), free(g->signer), free(g->keyid);
    memset(g, 0, sizeof *g);
}
