/* reports/store/audit_inventory: a run's inventory and plan, written and read (schema v7). */
#include "reports/store/audit_inventory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* v7: the coverage proof (docs/runs.md). Every recorded run lists the files of the database it
 * was planned from and the sectors it partitioned, with a digest of each list, so a merge can
 * prove that its shards were planned from one database and that their sectors cover it exactly. */
const char ma_audit_inventory_migration_v9[] =
    "ALTER TABLE runs ADD COLUMN inventory_digest TEXT;"
    "ALTER TABLE runs ADD COLUMN plan_digest TEXT;"
    "ALTER TABLE runs ADD COLUMN plan_shards INTEGER;"
    "ALTER TABLE runs ADD COLUMN plan_whole INTEGER;"
    "CREATE TABLE IF NOT EXISTS run_inventory ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  path TEXT NOT NULL,"
    "  size INTEGER NOT NULL,"
    "  digest TEXT NOT NULL,"
    "  sector TEXT,"
    "  PRIMARY KEY (run_id, path)"
    ");"
    "CREATE TABLE IF NOT EXISTS run_partition ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  sector TEXT NOT NULL,"
    "  entries INTEGER NOT NULL,"
    "  shard INTEGER NOT NULL,"
    "  PRIMARY KEY (run_id, sector)"
    ");";

int ma_inventory_add_file(ma_inventory *inv, const ma_inventory_file *f, ma_error *err)
{
    ma_inventory_file *p = realloc(inv->files, (inv->n_files + 1) * sizeof *p);
    if (!p)
        return ma_error_set(err, MA_ENOMEM, "inventory: out of memory");
    inv->files = p;
    inv->files[inv->n_files++] = *f;
    return MA_OK;
}

int ma_inventory_add_plan(ma_inventory *inv, const ma_plan_sector *s, ma_error *err)
{
    ma_plan_sector *p = realloc(inv->plan, (inv->n_plan + 1) * sizeof *p);
    if (!p)
        return ma_error_set(err, MA_ENOMEM, "inventory: out of memory");
    inv->plan = p;
    inv->plan[inv->n_plan++] = *s;
    return MA_OK;
}

void ma_inventory_free(ma_inventory *inv)
{
    if (!inv)
        return;
    free(inv->files);
    free(inv->plan);
    memset(inv, 0, sizeof *inv);
}

static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, const char *what, ma_error *err)
{
    *st = NULL;
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    return MA_OK;
}

static int read_failure(ma_audit *a, int s, const char *what, ma_error *err)
{
    s &= 0xff;
    return ma_audit_sqlite_error(a, s == SQLITE_CORRUPT || s == SQLITE_NOTADB ? MA_EFORMAT : MA_EIO, what, err);
}

int ma_audit_inventory_write(ma_audit *a, int64_t run_id, const ma_inventory *inv, int in_tx, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    if (!in_tx && (rc = ma_audit_tx_begin(a, err)))
        return rc;
    sqlite3_stmt *st = NULL;
    rc = prep(a, &st, "UPDATE runs SET inventory_digest = ?, plan_digest = ?, plan_shards = ?, plan_whole = ? WHERE id = ?",
              "record the inventory", err);
    if (rc == MA_OK) {
        ma_audit_bind_text(st, 1, inv->inventory_digest);
        ma_audit_bind_text(st, 2, inv->plan_digest);
        sqlite3_bind_int64(st, 3, inv->shard_count);
        sqlite3_bind_int(st, 4, inv->whole ? 1 : 0);
        sqlite3_bind_int64(st, 5, run_id);
        rc = ma_audit_step_done(a, st, "record the inventory", err);
        sqlite3_finalize(st);
    }
    if (rc == MA_OK)
        rc = prep(a, &st, "INSERT INTO run_inventory (run_id, path, size, digest, sector) VALUES (?,?,?,?,?)",
                  "record the inventory", err);
    for (size_t i = 0; rc == MA_OK && i < inv->n_files; i++) {
        const ma_inventory_file *f = &inv->files[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        ma_audit_bind_text(st, 2, f->name);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)f->size);
        ma_audit_bind_text(st, 4, f->digest);
        if (f->sector[0])
            ma_audit_bind_text(st, 5, f->sector);
        else
            sqlite3_bind_null(st, 5);
        rc = ma_audit_step_done(a, st, "record the inventory", err);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == MA_OK)
        rc = prep(a, &st, "INSERT INTO run_partition (run_id, sector, entries, shard) VALUES (?,?,?,?)",
                  "record the plan", err);
    for (size_t i = 0; rc == MA_OK && i < inv->n_plan; i++) {
        const ma_plan_sector *p = &inv->plan[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        ma_audit_bind_text(st, 2, p->sector);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)p->entries);
        sqlite3_bind_int64(st, 4, p->shard);
        rc = ma_audit_step_done(a, st, "record the plan", err);
    }
    sqlite3_finalize(st);
    if (!in_tx) {
        if (rc == MA_OK)
            rc = ma_audit_tx_commit(a, err);
        else
            ma_audit_tx_rollback(a);
    }
    return rc;
}


static void copy_col(char *dst, size_t len, sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

int ma_audit_inventory_read(ma_audit *a, int64_t run_id, ma_inventory *inv, int *recorded, ma_error *err)
{
    memset(inv, 0, sizeof *inv);
    *recorded = 0;
    sqlite3_stmt *st;
    /* a store of schema < 9 opened read-only (readers never migrate) has no such column: nothing
     * recorded, not an error */
    if (!ma_sqlite_has_column(ma_audit_db(a), "runs", "inventory_digest"))
        return MA_OK;
    int rc = prep(a, &st, "SELECT inventory_digest, plan_digest, plan_shards, plan_whole FROM runs WHERE id = ?",
              "read the inventory", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *recorded = 1;
        copy_col(inv->inventory_digest, sizeof inv->inventory_digest, st, 0);
        copy_col(inv->plan_digest, sizeof inv->plan_digest, st, 1);
        int64_t n = sqlite3_column_int64(st, 2);
        inv->shard_count = n > 0 && n < 1000000 ? (unsigned)n : 0;
        inv->whole = sqlite3_column_int(st, 3) != 0;
    } else if (s != SQLITE_ROW && s != SQLITE_DONE) {
        rc = read_failure(a, s, "read the inventory", err);
    }
    sqlite3_finalize(st);
    if (rc || !*recorded)
        return rc;
    /* BINARY collation orders like strcmp, the order verifier/run/inventory.c hashes in */
    if ((rc = prep(a, &st, "SELECT path, size, digest, sector FROM run_inventory WHERE run_id = ? ORDER BY path",
                   "read the inventory", err)))
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    while (rc == MA_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        copy_col(f.name, sizeof f.name, st, 0);
        f.size = (uint64_t)sqlite3_column_int64(st, 1);
        copy_col(f.digest, sizeof f.digest, st, 2);
        copy_col(f.sector, sizeof f.sector, st, 3);
        rc = ma_inventory_add_file(inv, &f, err);
    }
    if (rc == MA_OK && s != SQLITE_DONE)
        rc = read_failure(a, s, "read the inventory", err);
    sqlite3_finalize(st);
    if (rc == MA_OK &&
        (rc = prep(a, &st, "SELECT sector, entries, shard FROM run_partition WHERE run_id = ? ORDER BY sector",
                   "read the plan", err)) == MA_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        while (rc == MA_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
            ma_plan_sector p;
            memset(&p, 0, sizeof p);
            copy_col(p.sector, sizeof p.sector, st, 0);
            p.entries = (uint64_t)sqlite3_column_int64(st, 1);
            int64_t sh = sqlite3_column_int64(st, 2);
            p.shard = sh >= 0 && sh < 1000000 ? (unsigned)sh : 999999;
            rc = ma_inventory_add_plan(inv, &p, err);
        }
        if (rc == MA_OK && s != SQLITE_DONE)
            rc = read_failure(a, s, "read the plan", err);
        sqlite3_finalize(st);
    }
    if (rc)
        ma_inventory_free(inv);
    return rc;
}
