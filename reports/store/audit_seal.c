/* reports/store/audit_seal: a run's scope and a shard run's seal (schema v10, reports/store/audit_seal.h). */
#include "reports/store/audit_seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* v10: a claim says what it covers and who vouches for it (docs/runs.md "Scope", docs/distributed.md
 * "Sealing"): every run records its scope, a shard run its seal, and a merged run by which key
 * each shard it believed was sealed (NULL: unsealed, trusted as written). */
const char ma_audit_seal_migration_v10[] =
    "ALTER TABLE runs ADD COLUMN scope TEXT;"
    "ALTER TABLE run_shards ADD COLUMN sealed_by TEXT;"
    "CREATE TABLE IF NOT EXISTS run_seals ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    "  algorithm TEXT NOT NULL,"
    "  keyid TEXT NOT NULL,"
    "  content_sha256 TEXT NOT NULL,"
    "  seal TEXT NOT NULL,"
    "  sealed_at TEXT NOT NULL"
    ");";

/* What the canonical content reads: per table the columns (in this order), the key of the run and
 * the order of the rows. The runs row is keyed by id, every other table by run_id. */
typedef struct canon_table {
    const char *table;
    const char *columns; /* comma-separated, as written in the SELECT */
    const char *order;
} canon_table;

static const canon_table canon[] = {
    {"runs",
     "kind,tool_version,git_revision,host,command_line,database_root,variant,format,started_at,ended_at,status,"
     "mode,resumed_from,options,shard_index,shard_count,planned_sectors,unusable_files,selection,planned_entries,"
     "inventory_digest,plan_digest,plan_shards,plan_whole,scope",
     "id"},
    {"run_inventory", "path,size,digest,sector", "path"},
    {"run_partition", "sector,entries,shard", "sector"},
    {"run_plan", "sector,file,entries", "sector"},
    {"sector_results",
     "sector,file,entries,checked,verified,within_bounds,discrepancies,seconds,status,message,carried_from,format,"
     "canonical,markers,roots,propagated,missing_child,unverifiable,bound_wins,body_digest",
     "sector"},
    {"sector_class_counts", "sector,class,count", "sector,class"},
    {"discrepancies",
     "sector,entry,board,stored,derived,class,root,offset,move,successor,stored_outcome,stored_depth,"
     "derived_outcome,derived_depth,derived_bound",
     "sector,entry,id"},
    {"sector_inputs", "sector,path,sha256", "sector,path"},
    {"sector_discrepancy_sets", "sector,count,entries,fixed_count,fixed_entries", "sector"},
    {"sector_digests", "sector,derived_sha256,derived_positions", "sector"},
    {"sector_histograms", "sector,outcome,depth,count", "sector,outcome,depth"},
    {"manifests", "manifest_path,chunk_size", "run_id"},
    {"manifest_files",
     "path,size,sha256,chunk_size,variant,format,sector,producer,producer_version,entries,ruleset_fingerprint",
     "path"},
    {"manifest_chunks", "path,chunk,offset,length,sha256", "path,chunk"},
    /* v11: what the run judged its files against and every file it found damaged */
    {"run_integrity", "source,reference,signer,keyid,files,intact,body_checked", "run_id"},
    {"run_damage", "seq,path,kind,sector,refetch,size,published_size,chunk_size,ranges,detail", "seq"},
};

int ma_audit_seal_covers(const char *table)
{
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++)
        if (!strcmp(canon[i].table, table))
            return 1;
    return 0;
}

/* The columns of t the store has, as a SELECT list (a column the store lacks reads as NULL, so a
 * store of an older schema gives the content it can). */
static int select_list(sqlite3 *db, const canon_table *t, char *out, size_t len)
{
    out[0] = 0;
    char cols[512];
    snprintf(cols, sizeof cols, "%s", t->columns);
    size_t used = 0;
    for (char *save = NULL, *c = strtok_r(cols, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        int w = snprintf(out + used, len - used, "%s%s", used ? "," : "", ma_sqlite_has_column(db, t->table, c) ? c : "NULL");
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

/* One value, unambiguously: N | I<int>; | R<%.17g>; | T<len>:<bytes> | B<len>:<bytes>. */
static void put_value(FILE *f, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: fputc('N', f); break;
    case SQLITE_INTEGER: fprintf(f, "I%lld;", (long long)sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: fprintf(f, "R%.17g;", sqlite3_column_double(st, i)); break;
    case SQLITE_BLOB: {
        int n = sqlite3_column_bytes(st, i);
        const void *p = sqlite3_column_blob(st, i);
        fprintf(f, "B%d:", n);
        if (n > 0)
            fwrite(p, 1, (size_t)n, f);
        break;
    }
    default: {
        const unsigned char *p = sqlite3_column_text(st, i);
        int n = sqlite3_column_bytes(st, i);
        fprintf(f, "T%d:", n);
        if (n > 0)
            fwrite(p, 1, (size_t)n, f);
    }
    }
}

static int canon_table_rows(ma_audit *a, const canon_table *t, int64_t run_id, FILE *f, size_t *rows, ma_error *err)
{
    sqlite3 *db = ma_audit_db(a);
    *rows = 0;
    if (!ma_sqlite_has_column(db, t->table, strcmp(t->table, "runs") ? "run_id" : "id"))
        return MA_OK; /* a table this store's schema does not have: no rows */
    char list[1024], sql[1400];
    if (select_list(db, t, list, sizeof list))
        return ma_error_set(err, MA_EINTERNAL, "canonical content: column list of %s too long", t->table);
    snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE %s = ? ORDER BY %s", list, t->table,
             strcmp(t->table, "runs") ? "run_id" : "id", t->order);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read the run's content", err);
    sqlite3_bind_int64(st, 1, run_id);
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        fprintf(f, "%s", t->table);
        for (int i = 0; i < sqlite3_column_count(st); i++) {
            fputc('|', f);
            put_value(f, st, i);
        }
        fputc('\n', f);
        (*rows)++;
    }
    sqlite3_finalize(st);
    if (s != SQLITE_DONE) {
        s &= 0xff;
        return ma_audit_sqlite_error(a, s == SQLITE_CORRUPT || s == SQLITE_NOTADB ? MA_EFORMAT : MA_EIO,
                                     "read the run's content", err);
    }
    return MA_OK;
}

int ma_audit_run_canonical(ma_audit *a, int64_t run_id, char **out, size_t *len, ma_error *err)
{
    *out = NULL;
    *len = 0;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    fprintf(f, "millaudit-run-content 1\n");
    int rc = MA_OK;
    for (size_t i = 0; rc == MA_OK && i < sizeof canon / sizeof *canon; i++) {
        size_t rows;
        rc = canon_table_rows(a, &canon[i], run_id, f, &rows, err);
        if (rc == MA_OK && i == 0 && rows != 1)
            rc = ma_error_set(err, MA_EMISSING, "%s: run %lld does not exist", ma_audit_path(a), (long long)run_id);
    }
    if (fclose(f) != 0 && rc == MA_OK)
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return MA_OK;
}

int ma_audit_seal_write(ma_audit *a, int64_t run_id, const ma_seal_row *s, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    return ma_audit_exec_bound(a,
                               "INSERT OR REPLACE INTO run_seals (run_id, algorithm, keyid, content_sha256, seal,"
                               " sealed_at) VALUES (?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
                               "record the run's seal", err, "itttt", run_id, s->algorithm, s->keyid,
                               s->content_sha256, s->seal);
}

int ma_audit_seal_read(ma_audit *a, int64_t run_id, ma_seal_row *out, int *found, ma_error *err)
{
    memset(out, 0, sizeof *out);
    *found = 0;
    sqlite3 *db = ma_audit_db(a);
    if (!ma_sqlite_has_column(db, "run_seals", "seal"))
        return MA_OK;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT algorithm, keyid, content_sha256, seal, sealed_at FROM run_seals WHERE run_id = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read the run's seal", err);
    sqlite3_bind_int64(st, 1, run_id);
    int s = sqlite3_step(st), rc = MA_OK;
    if (s == SQLITE_ROW) {
        char *dst[] = {out->algorithm, out->keyid, out->content_sha256, out->seal, out->sealed_at};
        size_t cap[] = {sizeof out->algorithm, sizeof out->keyid, sizeof out->content_sha256, sizeof out->seal,
                        sizeof out->sealed_at};
        for (int i = 0; i < 5; i++) {
            const char *t = (const char *)sqlite3_column_text(st, i);
            snprintf(dst[i], cap[i], "%s", t ? t : "");
        }
        *found = 1;
    } else if (s != SQLITE_DONE) {
        rc = ma_audit_sqlite_error(a, MA_EIO, "read the run's seal", err);
    }
    sqlite3_finalize(st);
    return rc;
}
