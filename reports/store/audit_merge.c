/* reports/store/audit_merge: shard runs read, merged runs written (schema v6). */
#include "reports/store/audit_merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "reports/store/schema.h"

/* v6: sharded runs (docs/distributed.md). A shard run records which shard of how many it checked,
 * how many sectors it selected and how many files discovery could not use, so a merge can tell a
 * missing or interrupted shard and reproduce a whole run's verdict; each discrepancy set gains the
 * entries that are roots by rule, so root/propagated can be decided again from the sets alone; a
 * merged run lists where each of its shards came from. */
const char ma_audit_merge_migration_v6[] =
    "ALTER TABLE runs ADD COLUMN shard_index INTEGER;"
    "ALTER TABLE runs ADD COLUMN shard_count INTEGER;"
    "ALTER TABLE runs ADD COLUMN planned_sectors INTEGER;"
    "ALTER TABLE runs ADD COLUMN unusable_files INTEGER;"
    "ALTER TABLE sector_discrepancy_sets ADD COLUMN fixed_count INTEGER;"
    "ALTER TABLE sector_discrepancy_sets ADD COLUMN fixed_entries BLOB;"
    "CREATE TABLE IF NOT EXISTS run_shards ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  shard_index INTEGER NOT NULL,"
    "  shard_count INTEGER NOT NULL,"
    "  source TEXT NOT NULL,"
    "  source_run_id INTEGER NOT NULL,"
    "  host TEXT,"
    "  command_line TEXT,"
    "  started_at TEXT,"
    "  ended_at TEXT,"
    "  status TEXT,"
    "  tool_version TEXT,"
    "  git_revision TEXT,"
    "  sectors INTEGER NOT NULL,"
    "  planned_sectors INTEGER,"
    "  PRIMARY KEY (run_id, shard_index)"
    ");";

static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, const char *what, ma_error *err)
{
    *st = NULL;
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    return MA_OK;
}

static int64_t col_i64(sqlite3_stmt *st, int i, int64_t null_value)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? null_value : sqlite3_column_int64(st, i);
}

/* A step that is neither a row nor the end is a read error, never the end of the rows. */
static int read_failure(ma_audit *a, int s, const char *what, ma_error *err)
{
    s &= 0xff;
    return ma_audit_sqlite_error(a, s == SQLITE_CORRUPT || s == SQLITE_NOTADB ? MA_EFORMAT : MA_EIO, what,
                                 err);
}

int ma_audit_shard_run_find(ma_audit *a, int64_t *run_id, ma_error *err)
{
    sqlite3_stmt *st;
    /* a run continued by a resume: 'resumed' in stores before v7, continued_by from v7 on (a shard
     * store is read as it is, never migrated) */
    int v7 = ma_sqlite_has_column(ma_audit_db(a), "runs", "continued_by");
    int rc = prep(a, &st,
                  v7 ? "SELECT id FROM runs WHERE kind = 'verify' AND shard_count IS NOT NULL"
                       " AND (status IS NULL OR status <> 'resumed') AND continued_by IS NULL"
                       " ORDER BY id DESC LIMIT 1"
                     : "SELECT id FROM runs WHERE kind = 'verify' AND shard_count IS NOT NULL"
                       " AND (status IS NULL OR status <> 'resumed') ORDER BY id DESC LIMIT 1",
                  "find the shard run", err);
    if (rc)
        return rc;
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW)
        *run_id = sqlite3_column_int64(st, 0);
    else if (s == SQLITE_DONE)
        rc = ma_error_set(err, MA_EMISSING,
                          "%s: no shard run in this store (a verify run of one shard recorded into it makes one)",
                          ma_audit_path(a));
    else
        rc = read_failure(a, s, "find the shard run", err);
    sqlite3_finalize(st);
    return rc;
}

void ma_shard_run_free(ma_shard_run *r)
{
    char **s[] = {&r->kind, &r->tool_version, &r->git_revision, &r->host, &r->command_line, &r->database_root,
                  &r->variant, &r->format, &r->started_at, &r->ended_at, &r->status, &r->mode, &r->options};
    for (size_t i = 0; i < sizeof s / sizeof *s; i++)
        free(*s[i]);
    memset(r, 0, sizeof *r);
}

int ma_audit_shard_run_read(ma_audit *a, int64_t run_id, ma_shard_run *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = prep(a, &st,
                  "SELECT kind, tool_version, git_revision, host, command_line, database_root, variant, format,"
                  " started_at, ended_at, status, mode, options, shard_index, shard_count, planned_sectors,"
                  " unusable_files FROM runs WHERE id = ?",
                  "read run", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int s = sqlite3_step(st), oom = 0;
    if (s == SQLITE_ROW) {
        out->run_id = run_id;
        char **dst[] = {&out->kind, &out->tool_version, &out->git_revision, &out->host, &out->command_line,
                        &out->database_root, &out->variant, &out->format, &out->started_at, &out->ended_at,
                        &out->status, &out->mode, &out->options};
        for (int i = 0; i < 13; i++)
            *dst[i] = ma_audit_col_dup(st, i, &oom);
        out->shard_index = col_i64(st, 13, 0);
        out->shard_count = col_i64(st, 14, 0);
        out->planned_sectors = col_i64(st, 15, -1);
        out->unusable_files = col_i64(st, 16, -1);
        if (oom)
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    } else if (s == SQLITE_DONE) {
        rc = ma_error_set(err, MA_EMISSING, "%s: no run %lld", ma_audit_path(a), (long long)run_id);
    } else {
        rc = read_failure(a, s, "read run", err);
    }
    sqlite3_finalize(st);
    if (rc)
        ma_shard_run_free(out);
    return rc;
}

int ma_audit_run_sector_names(ma_audit *a, int64_t run_id, char ***names, size_t *n, ma_error *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prep(a, &st, "SELECT sector FROM sector_results WHERE run_id = ? ORDER BY sector",
                  "read the run's sectors", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    char **list = NULL;
    size_t cnt = 0, cap = 0;
    int s, oom = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (cnt == cap) {
            cap = cap ? 2 * cap : 64;
            char **p = realloc(list, cap * sizeof *p);
            if (!p) {
                oom = 1;
                break;
            }
            list = p;
        }
        list[cnt] = ma_audit_col_dup(st, 0, &oom);
        if (list[cnt])
            cnt++;
        if (oom)
            break;
    }
    if (oom)
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    else if (s != SQLITE_DONE)
        rc = read_failure(a, s, "read the run's sectors", err);
    sqlite3_finalize(st);
    if (rc) {
        for (size_t i = 0; i < cnt; i++)
            free(list[i]);
        free(list);
        return rc;
    }
    *names = list;
    *n = cnt;
    return MA_OK;
}

/* ---- writing the merged run ---- */

/* The manifest of the merged run: every file any shard read, once (the merge has checked before
 * that shards agree on the digest of a file they both read). */
static int write_manifest(ma_audit *a, int64_t id, const ma_merged_run *m, ma_error *err)
{
    int rc = MA_OK, begun = 0;
    for (size_t s = 0; rc == MA_OK && s < m->n_manifests; s++) {
        const ma_run *r = m->manifests[s];
        if (!r || !r->n_files)
            continue;
        if (!begun) {
            rc = ma_audit_exec_bound(a, "INSERT INTO manifests (run_id, manifest_path, chunk_size) VALUES (?,NULL,?)",
                            "record manifest", err, "ii", id, r->manifest_chunk_size);
            begun = 1;
        }
        for (size_t i = 0; rc == MA_OK && i < r->n_files; i++) {
            const ma_run_file *f = &r->files[i];
            int seen = 0;
            for (size_t t = 0; !seen && t < s; t++)
                for (size_t k = 0; m->manifests[t] && k < m->manifests[t]->n_files; k++)
                    if (!strcmp(m->manifests[t]->files[k].path, f->path)) {
                        seen = 1;
                        break;
                    }
            if (seen)
                continue;
            rc = ma_audit_exec_bound(a,
                            "INSERT INTO manifest_files (run_id, path, size, sha256, chunk_size, variant, format,"
                            " sector, producer, producer_version, entries, ruleset_fingerprint)"
                            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                            "record manifest file", err, f->has_entries ? "itititttttit" : "itititttttnt", id,
                            f->path, f->size, f->sha256, f->chunk_size, f->variant, f->format, f->sector,
                            f->producer, f->producer_version, f->entries, f->ruleset_fingerprint);
            for (size_t k = 0; rc == MA_OK && k < f->n_chunks; k++)
                rc = ma_audit_exec_bound(a,
                                "INSERT INTO manifest_chunks (run_id, path, chunk, offset, length, sha256)"
                                " VALUES (?,?,?,?,?,?)",
                                "record manifest chunk", err, "itiiit", id, f->path, f->chunks[k].chunk,
                                f->chunks[k].offset, f->chunks[k].length, f->chunks[k].sha256);
        }
    }
    return rc;
}

int ma_audit_merged_run_begin(ma_audit *a, const ma_merged_run *m, int64_t *run_id, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    if ((rc = ma_audit_tx_begin(a, err)))
        return rc;
    rc = ma_audit_exec_bound(a,
                    "INSERT INTO runs (kind, tool_version, git_revision, host, command_line, database_root,"
                    " variant, format, started_at, mode, options, planned_sectors, unusable_files, scope)"
                    " VALUES ('verify',?,?,?,?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'),'merge',?,?,?,"
                    " CASE WHEN ?10 >= 0 THEN 'database' ELSE 'sectors' END)",
                    "record the merged run", err,
                    m->planned_sectors >= 0 ? (m->unusable_files >= 0 ? "tttttttt" "ii" : "tttttttt" "in")
                                            : (m->unusable_files >= 0 ? "tttttttt" "ni" : "tttttttt" "nn"),
                    m->tool_version ? m->tool_version : "unknown", m->git_revision ? m->git_revision : "unknown",
                    m->host, m->command_line, m->database_root, m->variant, m->format, m->options,
                    m->planned_sectors, m->unusable_files);
    if (rc) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    *run_id = sqlite3_last_insert_rowid(ma_audit_db(a));
    return MA_OK;
}

void ma_audit_merged_run_abort(ma_audit *a)
{
    ma_audit_tx_rollback(a);
}

int ma_audit_merged_run_finish(ma_audit *a, int64_t id, const ma_merged_run *m, const char *status,
                               ma_error *err)
{
    int rc = write_manifest(a, id, m, err);
    for (size_t i = 0; rc == MA_OK && i < m->n_shards; i++) {
        const ma_run_shard_row *s = &m->shards[i];
        rc = ma_audit_exec_bound(a,
                        "INSERT INTO run_shards (run_id, shard_index, shard_count, source, source_run_id, host,"
                        " command_line, started_at, ended_at, status, tool_version, git_revision, sectors,"
                        " planned_sectors, sealed_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        "record a shard", err,
                        s->planned_sectors >= 0 ? "iiiti" "ttttttt" "ii" "t" : "iiiti" "ttttttt" "in" "t",
                        id, s->shard_index, s->shard_count, s->source, s->source_run_id, s->host, s->command_line,
                        s->started_at, s->ended_at, s->status, s->tool_version, s->git_revision, s->sectors,
                        s->planned_sectors, s->sealed_by);
    }
    if (rc == MA_OK)
        rc = ma_audit_exec_bound(a,
                        "UPDATE runs SET status = ?, ended_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                        "record the merged run's status", err, "ti", status, id);
    if (rc) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}
