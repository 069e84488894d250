/* Manifest tables of the audit store (contract in reports/store/audit_manifest.h). */
#include "reports/store/audit_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/counts.h"
#include "reports/store/audit_internal.h"
#include "reports/store/audit_run.h"

static void to_hex(char out[65], const uint8_t d[32])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}

static int from_hex(uint8_t out[32], const unsigned char *s, int n)
{
    if (!s || n != 64)
        return -1;
    for (int i = 0; i < 64; i++) {
        int c = s[i], v;
        if (c >= '0' && c <= '9')
            v = c - '0';
        else if (c >= 'a' && c <= 'f')
            v = c - 'a' + 10;
        else
            return -1;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 0;
}

static int prepare(ma_audit *a, sqlite3_stmt **st, const char *sql, ma_error *err)
{
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "prepare statement", err);
    return MA_OK;
}

int ma_audit_manifest_begin(ma_audit *a, int64_t run_id, const char *manifest_path, uint64_t chunk_size,
                            ma_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prepare(a, &st, "INSERT INTO manifests (run_id, manifest_path, chunk_size) VALUES (?,?,?)"
                             " ON CONFLICT (run_id) DO NOTHING", err);
    if (rc == MA_OK) {
        sqlite3_bind_int64(st, 1, run_id);
        ma_audit_bind_text(st, 2, manifest_path);
        rc = ma_audit_bind_u64(a, st, 3, chunk_size, "chunk size", err);
    }
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, st, "record manifest", err);
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_manifest_file_add(ma_audit *a, int64_t run_id, const ma_audit_manifest_file *f, ma_error *err)
{
    if (!f || !f->path || !f->sha256 || (f->n_chunks && !f->chunks) || f->chunk_size == 0)
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: incomplete manifest file", ma_audit_path(a),
                            (long long)run_id);
    sqlite3_stmt *fs = NULL, *cs = NULL;
    int rc = prepare(a, &fs,
                     "INSERT INTO manifest_files (run_id, path, size, sha256, chunk_size, variant, format,"
                     " sector, producer, producer_version, entries, ruleset_fingerprint)"
                     " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", err);
    if (rc == MA_OK)
        rc = prepare(a, &cs, "INSERT INTO manifest_chunks (run_id, path, chunk, offset, length, sha256)"
                             " VALUES (?,?,?,?,?,?)", err);
    /* inside a caller's transaction (ma_audit_write_tx) the file joins it: all or nothing there */
    const int own_tx = sqlite3_get_autocommit(ma_audit_db(a));
    if (rc == MA_OK && own_tx)
        rc = ma_audit_tx_begin(a, err);
    if (rc != MA_OK) {
        sqlite3_finalize(fs);
        sqlite3_finalize(cs);
        return rc;
    }
    char hex[65], what[256];
    snprintf(what, sizeof what, "run %lld: %s: record manifest file", (long long)run_id, f->path);
    to_hex(hex, f->sha256);
    sqlite3_bind_int64(fs, 1, run_id);
    ma_audit_bind_text(fs, 2, f->path);
    rc = ma_audit_bind_u64(a, fs, 3, f->size, "size", err);
    ma_audit_bind_text(fs, 4, hex);
    if (rc == MA_OK)
        rc = ma_audit_bind_u64(a, fs, 5, f->chunk_size, "chunk size", err);
    ma_audit_bind_text(fs, 6, f->variant);
    ma_audit_bind_text(fs, 7, f->format);
    ma_audit_bind_text(fs, 8, f->sector);
    ma_audit_bind_text(fs, 9, f->producer);
    ma_audit_bind_text(fs, 10, f->producer_version);
    if (rc == MA_OK && f->has_entries)
        rc = ma_audit_bind_u64(a, fs, 11, f->entries, "entries", err);
    ma_audit_bind_text(fs, 12, f->ruleset_fingerprint);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, fs, what, err);
    for (size_t k = 0; rc == MA_OK && k < f->n_chunks; k++) {
        uint64_t off = (uint64_t)k * f->chunk_size;
        uint64_t len = f->size - off < f->chunk_size ? f->size - off : f->chunk_size;
        to_hex(hex, f->chunks[k]);
        sqlite3_bind_int64(cs, 1, run_id);
        ma_audit_bind_text(cs, 2, f->path);
        sqlite3_bind_int64(cs, 3, (sqlite3_int64)k);
        rc = ma_audit_bind_u64(a, cs, 4, off, "offset", err);
        if (rc == MA_OK)
            rc = ma_audit_bind_u64(a, cs, 5, len, "length", err);
        ma_audit_bind_text(cs, 6, hex);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, cs, what, err);
    }
    sqlite3_finalize(fs);
    sqlite3_finalize(cs);
    if (!own_tx)
        return rc; /* the caller commits or rolls back */
    if (rc != MA_OK) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}

void ma_audit_chunks_free(ma_audit_chunks *c)
{
    if (c) {
        free(c->chunks);
        memset(c, 0, sizeof *c);
    }
}

int ma_audit_manifest_chunks_find(ma_audit *a, ma_audit_chunks *out, const char *path,
                                  const uint8_t sha256[32], ma_error *err)
{
    memset(out, 0, sizeof *out);
    char hex[65];
    to_hex(hex, sha256);
    const char *store = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    /* A run that recorded the file without chunk digests (manifest merge --audit) cannot pin a
     * change: the most recent run that has them is taken. */
    int rc = prepare(a, &st, "SELECT run_id, size, chunk_size FROM manifest_files f WHERE path = ? AND sha256 = ?"
                             " AND (size = 0 OR EXISTS (SELECT 1 FROM manifest_chunks c"
                             " WHERE c.run_id = f.run_id AND c.path = f.path))"
                             " ORDER BY run_id DESC LIMIT 1", err);
    if (rc != MA_OK)
        return rc;
    ma_audit_bind_text(st, 1, path);
    ma_audit_bind_text(st, 2, hex);
    int s = sqlite3_step(st);
    if (s == SQLITE_DONE) {
        sqlite3_finalize(st);
        return ma_error_set(err, MA_EMISSING, "%s: no chunk digests recorded for %s", store, path);
    }
    if (s != SQLITE_ROW) {
        rc = ma_audit_sqlite_error(a, MA_EIO, "look up manifest file", err);
        sqlite3_finalize(st);
        return rc;
    }
    int64_t run_id = sqlite3_column_int64(st, 0);
    int64_t size = sqlite3_column_int64(st, 1), chunk = sqlite3_column_int64(st, 2);
    sqlite3_finalize(st);
    if (size < 0 || chunk <= 0)
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld: %s: impossible size %lld or chunk size %lld", store,
                            (long long)run_id, path, (long long)size, (long long)chunk);
    uint64_t n = ((uint64_t)size + (uint64_t)chunk - 1) / (uint64_t)chunk;
    if (n > SIZE_MAX / 32)
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld: %s: %s", store, (long long)run_id, path,
                            MA_COUNT(n, "chunk", "chunks"));
    out->chunks = n ? calloc((size_t)n, 32) : NULL;
    if (n && !out->chunks)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory for %s", store,
                            MA_COUNT(n, "chunk digest", "chunk digests"));
    rc = prepare(a, &st, "SELECT chunk, offset, length, sha256 FROM manifest_chunks WHERE run_id = ? AND path = ?"
                         " ORDER BY chunk", err);
    if (rc != MA_OK) {
        ma_audit_chunks_free(out);
        return rc;
    }
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, path);
    uint64_t k = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t c = sqlite3_column_int64(st, 0), off = sqlite3_column_int64(st, 1), len = sqlite3_column_int64(st, 2);
        uint64_t want_len = (uint64_t)size - k * (uint64_t)chunk < (uint64_t)chunk ? (uint64_t)size - k * (uint64_t)chunk
                                                                                      : (uint64_t)chunk;
        if (k >= n || c != (int64_t)k || off != (int64_t)(k * (uint64_t)chunk) || len != (int64_t)want_len ||
            from_hex(out->chunks[k], sqlite3_column_text(st, 3), sqlite3_column_bytes(st, 3)) != 0) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: %s: chunk row %llu is inconsistent", store,
                              (long long)run_id, path, (unsigned long long)k);
            break;
        }
        k++;
    }
    if (rc == MA_OK && s != SQLITE_DONE)
        rc = ma_audit_sqlite_error(a, MA_EIO, "read chunk digests", err);
    if (rc == MA_OK && k != n)
        rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: %s: %s, expected %s", store,
                          (long long)run_id, path, MA_COUNT(k, "chunk row", "chunk rows"), MA_NUM(n));
    sqlite3_finalize(st);
    if (rc != MA_OK) {
        ma_audit_chunks_free(out);
        return rc;
    }
    out->run_id = run_id;
    out->size = (uint64_t)size;
    out->chunk_size = (uint64_t)chunk;
    out->n_chunks = (size_t)n;
    return MA_OK;
}

/* What ma_audit_manifest_record_run records, for the transaction. */
typedef struct manifest_run_rows {
    const ma_run_info *info;
    const char *manifest_path;
    uint64_t chunk_size;
    const ma_audit_manifest_file *files;
    size_t n;
    int64_t run_id;
} manifest_run_rows;

static int record_run_tx(ma_audit *a, void *ctx, ma_error *err)
{
    manifest_run_rows *r = ctx;
    int rc = ma_audit_run_begin(a, r->info, &r->run_id, err);
    if (rc == MA_OK)
        rc = ma_audit_manifest_begin(a, r->run_id, r->manifest_path, r->chunk_size, err);
    for (size_t i = 0; rc == MA_OK && i < r->n; i++)
        rc = ma_audit_manifest_file_add(a, r->run_id, &r->files[i], err);
    if (rc == MA_OK)
        rc = ma_audit_run_end(a, r->run_id, "ok", err);
    return rc;
}

int ma_audit_manifest_record_run(ma_audit *a, const ma_run_info *info, const char *manifest_path,
                                 uint64_t chunk_size, const ma_audit_manifest_file *files, size_t n,
                                 int64_t *run_id, ma_error *err)
{
    manifest_run_rows r = {.info = info, .manifest_path = manifest_path, .chunk_size = chunk_size,
                           .files = files, .n = n};
    int rc = ma_audit_write_tx(a, record_run_tx, &r, err);
    if (rc == MA_OK)
        *run_id = r.run_id;
    return rc;
}
