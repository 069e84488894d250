/* Runs as values: load, JSON export/import, compare, and the schema v3 writers (reports/store/runs.h). */
#include "reports/store/runs.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "common/json_text.h"

/* ---------------------------------------------------------------- loading */

static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, ma_error *err)
{
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read run", err);
    return MA_OK;
}

/* Finalizes a read statement and reports the failure of its last step, if any: a loop that stops
 * at the first non-row must not take a damaged page or a read error for the end of the rows (a run
 * would load silently incomplete). A damaged file is MA_EFORMAT, anything else MA_EIO. */
static int finish_read(ma_audit *a, sqlite3_stmt *st, ma_error *err)
{
    int s = sqlite3_finalize(st) & 0xff;
    if (s == SQLITE_OK)
        return MA_OK;
    if (s == SQLITE_CORRUPT || s == SQLITE_NOTADB)
        return ma_audit_sqlite_error(a, MA_EFORMAT, "not a usable SQLite database: read run", err);
    return ma_audit_sqlite_error(a, MA_EIO, "cannot read the store: read run", err);
}

/* Grows *arr (elements of size sz) to hold n+1 elements. */
static int grow(void *arr, size_t n, size_t *cap, size_t sz)
{
    void **p = arr;
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 8;
    void *q = realloc(*p, nc * sz);
    if (!q)
        return -1;
    memset((char *)q + *cap * sz, 0, (nc - *cap) * sz);
    *p = q;
    *cap = nc;
    return 0;
}

int ma_runs_latest(ma_audit *a, int64_t *id, ma_error *err)
{
    sqlite3_stmt *st = NULL;
    int rc = prep(a, &st, "SELECT max(id) FROM runs", err);
    if (rc)
        return rc;
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW)
        rc = ma_audit_sqlite_error(a, MA_EIO, "find latest run", err);
    else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        rc = ma_error_set(err, MA_EMISSING, "%s: the audit store holds no run", ma_audit_path(a));
    else
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc;
}

static ma_run_sector *find_sector(ma_run *r, const char *name)
{
    for (size_t i = 0; i < r->n_sectors; i++)
        if (!strcmp(r->sectors[i].sector, name))
            return &r->sectors[i];
    return NULL;
}

static ma_run_file *find_file(ma_run *r, const char *path)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (!strcmp(r->files[i].path, path))
            return &r->files[i];
    return NULL;
}

/* The runs row of run id: its facts, into r (part of ma_run_load). */
static int load_facts(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    rc = prep(a, &st, "SELECT id, kind, tool_version, git_revision, host, command_line, database_root, variant,"
                      " format, started_at, ended_at, status FROM runs WHERE id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    s = sqlite3_step(st);
    if (s == SQLITE_DONE) {
        sqlite3_finalize(st);
        return ma_error_set(err, MA_EMISSING, "%s: run %lld does not exist", path, (long long)id);
    }
    if (s != SQLITE_ROW) {
        sqlite3_finalize(st);
        return ma_audit_sqlite_error(a, MA_EIO, "read run", err);
    }
    r->id = sqlite3_column_int64(st, 0);
    char **facts[] = {&r->kind, &r->tool_version, &r->git_revision, &r->host, &r->command_line,
                      &r->database_root, &r->variant, &r->format, &r->started_at, &r->ended_at, &r->status};
    for (int i = 0; i < 11; i++)
        *facts[i] = ma_audit_col_dup(st, i + 1, &oom);
    sqlite3_finalize(st);
    return oom ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", path) : MA_OK;
}

/* Run id's sector results with their derived digests into r (part of ma_run_load). */
static int load_sectors(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    size_t cap;
    rc = prep(a, &st, "SELECT s.sector, file, entries, checked, verified, within_bounds, discrepancies, seconds,"
                      " status, message, d.derived_sha256, d.derived_positions FROM sector_results s"
                      " LEFT JOIN sector_digests d ON d.run_id = s.run_id AND d.sector = s.sector"
                      " WHERE s.run_id = ? ORDER BY s.sector", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    cap = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow(&r->sectors, r->n_sectors, &cap, sizeof *r->sectors)) {
            oom = 1;
            break;
        }
        ma_run_sector *x = &r->sectors[r->n_sectors++];
        x->sector = ma_audit_col_dup(st, 0, &oom);
        x->file = ma_audit_col_dup(st, 1, &oom);
        x->entries = sqlite3_column_int64(st, 2);
        x->checked = sqlite3_column_int64(st, 3);
        x->verified = sqlite3_column_int64(st, 4);
        x->within_bounds = sqlite3_column_int64(st, 5);
        x->discrepancies = sqlite3_column_int64(st, 6);
        x->seconds = sqlite3_column_double(st, 7);
        x->status = ma_audit_col_dup(st, 8, &oom);
        x->message = ma_audit_col_dup(st, 9, &oom);
        x->derived_sha256 = ma_audit_col_dup(st, 10, &oom);
        x->has_derived_positions = sqlite3_column_type(st, 11) != SQLITE_NULL;
        x->derived_positions = sqlite3_column_int64(st, 11);
        if (!x->sector && !oom) {
            sqlite3_finalize(st);
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector row without a name", path, (long long)id);
        }
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    if (s != SQLITE_ROW && s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read sectors", err);
    return MA_OK;
}

/* Run id's class counts and outcome/depth histograms of its sectors into r (part of ma_run_load). */
static int load_classes(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    for (int pass = 0; pass < 2; pass++) {
        rc = prep(a, &st, pass == 0 ? "SELECT sector, class, count, 0 FROM sector_class_counts WHERE run_id = ?"
                                      " ORDER BY sector, class"
                                    : "SELECT sector, outcome, count, depth FROM sector_histograms WHERE run_id = ?"
                                      " ORDER BY sector, outcome, depth", err);
        if (rc)
            return rc;
        sqlite3_bind_int64(st, 1, id);
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
            const char *sec = (const char *)sqlite3_column_text(st, 0);
            ma_run_sector *x = sec ? find_sector(r, sec) : NULL;
            if (!x)
                continue; /* the foreign keys make this impossible; ignore rather than guess */
            if (pass == 0) {
                void *p = realloc(x->classes, (x->n_classes + 1) * sizeof *x->classes);
                if (!p) {
                    oom = 1;
                    break;
                }
                x->classes = p;
                x->classes[x->n_classes].cls = ma_audit_col_dup(st, 1, &oom);
                x->classes[x->n_classes++].count = sqlite3_column_int64(st, 2);
            } else {
                void *p = realloc(x->bins, (x->n_bins + 1) * sizeof *x->bins);
                if (!p) {
                    oom = 1;
                    break;
                }
                x->bins = p;
                x->bins[x->n_bins].outcome = ma_audit_col_dup(st, 1, &oom);
                x->bins[x->n_bins].count = sqlite3_column_int64(st, 2);
                x->bins[x->n_bins++].depth = sqlite3_column_int64(st, 3);
            }
        }
        if ((rc = finish_read(a, st, err)) != MA_OK)
            return rc;
        if (oom)
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
        if (s != SQLITE_ROW && s != SQLITE_DONE)
            return ma_audit_sqlite_error(a, MA_EIO, "read class counts", err);
    }
    return MA_OK;
}

/* Run id's discrepancy rows into r (part of ma_run_load). */
static int load_discrepancies(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    size_t cap;
    rc = prep(a, &st, "SELECT sector, entry, board, stored, derived, class FROM discrepancies WHERE run_id = ?"
                      " ORDER BY sector, entry, id", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    cap = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow(&r->disc, r->n_disc, &cap, sizeof *r->disc)) {
            oom = 1;
            break;
        }
        ma_run_discrepancy *d = &r->disc[r->n_disc++];
        d->sector = ma_audit_col_dup(st, 0, &oom);
        d->entry = sqlite3_column_int64(st, 1);
        d->board = ma_audit_col_dup(st, 2, &oom);
        d->stored = ma_audit_col_dup(st, 3, &oom);
        d->derived = ma_audit_col_dup(st, 4, &oom);
        d->cls = ma_audit_col_dup(st, 5, &oom);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    if (s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read discrepancies", err);
    return MA_OK;
}

/* Run id's manifest: the files and their chunks into r (part of ma_run_load). */
static int load_manifest(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    size_t cap;
    rc = prep(a, &st, "SELECT manifest_path, chunk_size FROM manifests WHERE run_id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        r->has_manifest = 1;
        r->manifest_path = ma_audit_col_dup(st, 0, &oom);
        r->manifest_chunk_size = sqlite3_column_int64(st, 1);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    rc = prep(a, &st, "SELECT path, size, sha256, chunk_size, variant, format, sector, producer, producer_version,"
                      " entries, ruleset_fingerprint FROM manifest_files WHERE run_id = ? ORDER BY path", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    cap = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (grow(&r->files, r->n_files, &cap, sizeof *r->files)) {
            oom = 1;
            break;
        }
        ma_run_file *f = &r->files[r->n_files++];
        f->path = ma_audit_col_dup(st, 0, &oom);
        f->size = sqlite3_column_int64(st, 1);
        f->sha256 = ma_audit_col_dup(st, 2, &oom);
        f->chunk_size = sqlite3_column_int64(st, 3);
        f->variant = ma_audit_col_dup(st, 4, &oom);
        f->format = ma_audit_col_dup(st, 5, &oom);
        f->sector = ma_audit_col_dup(st, 6, &oom);
        f->producer = ma_audit_col_dup(st, 7, &oom);
        f->producer_version = ma_audit_col_dup(st, 8, &oom);
        f->has_entries = sqlite3_column_type(st, 9) != SQLITE_NULL;
        f->entries = sqlite3_column_int64(st, 9);
        f->ruleset_fingerprint = ma_audit_col_dup(st, 10, &oom);
        if (!oom && (!f->path || !f->sha256)) {
            sqlite3_finalize(st);
            return ma_error_set(err, MA_EFORMAT, "%s: run %lld: manifest file row without path or digest", path,
                                (long long)id);
        }
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    rc = prep(a, &st, "SELECT path, chunk, offset, length, sha256 FROM manifest_chunks WHERE run_id = ?"
                      " ORDER BY path, chunk", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(st, 0);
        ma_run_file *f = p ? find_file(r, p) : NULL;
        if (!f)
            continue;
        void *q = realloc(f->chunks, (f->n_chunks + 1) * sizeof *f->chunks);
        if (!q) {
            oom = 1;
            break;
        }
        f->chunks = q;
        ma_run_chunk *c = &f->chunks[f->n_chunks++];
        c->chunk = sqlite3_column_int64(st, 1);
        c->offset = sqlite3_column_int64(st, 2);
        c->length = sqlite3_column_int64(st, 3);
        c->sha256 = ma_audit_col_dup(st, 4, &oom);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    return MA_OK;
}

/* Where run id came from when it was imported, into r (part of ma_run_load). */
static int load_import(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc;
    rc = prep(a, &st, "SELECT source, source_run_id, export_version, imported_at FROM run_imports WHERE run_id = ?",
              err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        r->imported = 1;
        r->import_source = ma_audit_col_dup(st, 0, &oom);
        r->import_source_run_id = sqlite3_column_int64(st, 1);
        r->import_export_version = sqlite3_column_int64(st, 2);
        r->imported_at = ma_audit_col_dup(st, 3, &oom);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    return MA_OK;
}

/* The signer of run id when it was imported from a signed attestation (schema v8), into r (part
 * of ma_run_load). */
static int load_attestation(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc;
    rc = prep(a, &st, "SELECT keyid, identity, envelope_sha256 FROM run_attestations WHERE run_id = ?", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        r->attested = 1;
        r->attest_keyid = ma_audit_col_dup(st, 0, &oom);
        r->attest_identity = ma_audit_col_dup(st, 1, &oom);
        r->attest_envelope_sha256 = ma_audit_col_dup(st, 2, &oom);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    return MA_OK;
}

/* The shards run id was merged from (schema v6, docs/distributed.md), into r (part of ma_run_load). */
static int load_shards(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    const char *path = ma_audit_path(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc;
    rc = prep(a, &st, ma_sqlite_has_column(ma_audit_db(a), "run_shards", "sealed_by")
                          ? "SELECT shard_index, shard_count, source_run_id, sectors, planned_sectors, source, host,"
                            " command_line, started_at, ended_at, status, git_revision, sealed_by FROM run_shards"
                            " WHERE run_id = ? ORDER BY shard_index"
                          : "SELECT shard_index, shard_count, source_run_id, sectors, planned_sectors, source, host,"
                            " command_line, started_at, ended_at, status, git_revision, NULL FROM run_shards"
                            " WHERE run_id = ? ORDER BY shard_index",
              err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    size_t cap_shards = 0;
    while (!oom && sqlite3_step(st) == SQLITE_ROW) {
        if (grow(&r->shards, r->n_shards, &cap_shards, sizeof *r->shards)) {
            oom = 1;
            break;
        }
        ma_run_shard *x = &r->shards[r->n_shards++];
        x->shard_index = sqlite3_column_int64(st, 0);
        x->shard_count = sqlite3_column_int64(st, 1);
        x->source_run_id = sqlite3_column_int64(st, 2);
        x->sectors = sqlite3_column_int64(st, 3);
        x->planned_sectors = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
        x->source = ma_audit_col_dup(st, 5, &oom);
        x->host = ma_audit_col_dup(st, 6, &oom);
        x->command_line = ma_audit_col_dup(st, 7, &oom);
        x->started_at = ma_audit_col_dup(st, 8, &oom);
        x->ended_at = ma_audit_col_dup(st, 9, &oom);
        x->status = ma_audit_col_dup(st, 10, &oom);
        x->git_revision = ma_audit_col_dup(st, 11, &oom);
        x->sealed_by = ma_audit_col_dup(st, 12, &oom);
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    return MA_OK;
}

/* The sector an input path names: its file name without the directory and the last extension
 * ("std_4_3_0_0.mdb" -> "std_4_3_0_0"), malloc'd; NULL when out of memory. */
static char *input_sector(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return strndup(base, dot ? (size_t)(dot - base) : strlen(base));
}

/* v4 facts of the sectors that say where a fault lies (part of ma_run_load): the roots/propagated
 * split and the successor sectors each result was computed from. Stores before v4 lack them: not
 * recorded. */
static int load_causes(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    sqlite3 *db = ma_audit_db(a);
    sqlite3_stmt *st = NULL;
    int oom = 0, rc, s;
    if (ma_sqlite_has_column(db, "sector_results", "roots")) {
        if ((rc = prep(a, &st, "SELECT sector, roots, propagated FROM sector_results WHERE run_id = ?"
                               " AND roots IS NOT NULL AND propagated IS NOT NULL", err)))
            return rc;
        sqlite3_bind_int64(st, 1, id);
        while ((s = sqlite3_step(st)) == SQLITE_ROW) {
            const char *sec = (const char *)sqlite3_column_text(st, 0);
            ma_run_sector *x = sec ? find_sector(r, sec) : NULL;
            if (x)
                x->has_split = 1, x->roots = sqlite3_column_int64(st, 1), x->propagated = sqlite3_column_int64(st, 2);
        }
        if ((rc = finish_read(a, st, err)) != MA_OK)
            return rc;
    }
    if (ma_sqlite_has_column(db, "discrepancies", "root") && ma_sqlite_has_column(db, "discrepancies", "move")) {
        /* the first root row of each sector: rows are inserted roots first, then by entry */
        if ((rc = prep(a, &st, "SELECT d.sector, d.entry, d.board, d.stored, d.derived, d.move FROM discrepancies d"
                               " JOIN (SELECT sector, min(id) AS id FROM discrepancies WHERE run_id = ?1 AND root = 1"
                               " GROUP BY sector) f ON f.id = d.id", err)))
            return rc;
        sqlite3_bind_int64(st, 1, id);
        while (!oom && (s = sqlite3_step(st)) == SQLITE_ROW) {
            const char *sec = (const char *)sqlite3_column_text(st, 0);
            ma_run_sector *x = sec ? find_sector(r, sec) : NULL;
            if (!x || x->first_root.board || sqlite3_column_type(st, 2) == SQLITE_NULL)
                continue;
            x->first_root.entry = sqlite3_column_int64(st, 1);
            x->first_root.board = ma_audit_col_dup(st, 2, &oom);
            x->first_root.stored = ma_audit_col_dup(st, 3, &oom);
            x->first_root.derived = ma_audit_col_dup(st, 4, &oom);
            x->first_root.move = ma_audit_col_dup(st, 5, &oom);
        }
        if ((rc = finish_read(a, st, err)) != MA_OK)
            return rc;
        if (oom)
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
    }
    if (!ma_sqlite_has_column(db, "sector_inputs", "path"))
        return MA_OK;
    if ((rc = prep(a, &st, "SELECT sector, path FROM sector_inputs WHERE run_id = ? ORDER BY sector, path", err)))
        return rc;
    sqlite3_bind_int64(st, 1, id);
    while (!oom && (s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sec = (const char *)sqlite3_column_text(st, 0), *path = (const char *)sqlite3_column_text(st, 1);
        ma_run_sector *x = sec ? find_sector(r, sec) : NULL;
        if (!x || !path)
            continue;
        x->has_successors = 1;
        char *name = input_sector(path);
        if (!name) {
            oom = 1;
            break;
        }
        if (!strcmp(name, x->sector)) { /* its own file is not a successor */
            free(name);
            continue;
        }
        char **p = realloc(x->successors, (x->n_successors + 1) * sizeof *p);
        if (!p) {
            free(name);
            oom = 1;
            break;
        }
        x->successors = p;
        x->successors[x->n_successors++] = name;
    }
    if ((rc = finish_read(a, st, err)) != MA_OK)
        return rc;
    return oom ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a)) : MA_OK;
}

/* Whether every file the run read that names a sector was checked by it: the scope of a run that
 * recorded neither its selection nor its scope (before v7, an imported export). */
static int every_read_sector_checked(const ma_run *r)
{
    if (!r->n_sectors)
        return 0;
    for (size_t i = 0; i < r->n_files; i++) {
        const char *s = r->files[i].sector;
        int checked = !s;
        for (size_t k = 0; !checked && k < r->n_sectors; k++)
            checked = r->sectors[k].sector && !strcmp(r->sectors[k].sector, s);
        if (!checked)
            return 0;
    }
    return 1;
}

/* The run's scope (ma_run.scope): recorded (v10), else derived from what the run recorded. */
static int load_scope(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    if (!r->kind || strcmp(r->kind, "verify"))
        return MA_OK;
    sqlite3 *db = ma_audit_db(a);
    static const char *const cols[] = {"scope", "mode", "shard_count", "selection", "plan_whole", "unusable_files",
                                       "options"};
    char sql[400] = "SELECT ";
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        strcat(sql, i ? "," : "");
        strcat(sql, ma_sqlite_has_column(db, "runs", cols[i]) ? cols[i] : "NULL");
    }
    strcat(sql, " FROM runs WHERE id = ?");
    sqlite3_stmt *st = NULL;
    int rc = prep(a, &st, sql, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, id);
    const char *scope = NULL;
    int oom = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *recorded = (const char *)sqlite3_column_text(st, 0);
        const char *mode = (const char *)sqlite3_column_text(st, 1);
        const char *selection = (const char *)sqlite3_column_text(st, 3);
        const char *options = (const char *)sqlite3_column_text(st, 6);
        int shard = sqlite3_column_type(st, 2) != SQLITE_NULL || (options && strstr(options, "\"shard\""));
        if (recorded && (!strcmp(recorded, "database") || !strcmp(recorded, "sectors")))
            scope = recorded;
        else if (mode && !strcmp(mode, "merge"))
            scope = sqlite3_column_int64(st, 4) == 1 || sqlite3_column_type(st, 5) != SQLITE_NULL ? "database"
                                                                                                 : "sectors";
        else if (shard || (selection && strcmp(selection, "all")))
            scope = "sectors";
        else if (selection)
            scope = "database";
        else
            scope = every_read_sector_checked(r) ? "database" : "sectors";
        oom = !(r->scope = strdup(scope));
    }
    sqlite3_finalize(st);
    return oom ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a)) : MA_OK;
}

int ma_run_load(ma_audit *a, int64_t id, ma_run *r, ma_error *err)
{
    static int (*const parts[])(ma_audit *, int64_t, ma_run *, ma_error *) = {
        load_facts, load_sectors, load_classes, load_causes, load_discrepancies, load_manifest, load_import,
        load_attestation, load_shards, load_scope};
    memset(r, 0, sizeof *r);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        int rc = parts[i](a, id, r, err);
        if (rc)
            return rc;
    }
    if (!r->kind || !r->started_at)
        return ma_error_set(err, MA_EFORMAT, "%s: run %lld: no kind or start time", ma_audit_path(a), (long long)id);
    return MA_OK;
}

void ma_run_free(ma_run *r)
{
    if (!r)
        return;
    char *facts[] = {r->kind, r->tool_version, r->git_revision, r->host, r->command_line, r->database_root,
                     r->variant, r->format, r->started_at, r->ended_at, r->status, r->scope, r->manifest_path,
                     r->import_source, r->imported_at, r->attest_keyid, r->attest_identity,
                     r->attest_envelope_sha256};
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
        free(facts[i]);
    for (size_t i = 0; i < r->n_sectors; i++) {
        ma_run_sector *x = &r->sectors[i];
        free(x->sector), free(x->file), free(x->status), free(x->message), free(x->derived_sha256);
        for (size_t k = 0; k < x->n_successors; k++)
            free(x->successors[k]);
        free(x->successors);
        free(x->first_root.board), free(x->first_root.stored), free(x->first_root.derived), free(x->first_root.move);
        for (size_t k = 0; k < x->n_classes; k++)
            free(x->classes[k].cls);
        for (size_t k = 0; k < x->n_bins; k++)
            free(x->bins[k].outcome);
        free(x->classes), free(x->bins);
    }
    free(r->sectors);
    for (size_t i = 0; i < r->n_disc; i++) {
        ma_run_discrepancy *d = &r->disc[i];
        free(d->sector), free(d->board), free(d->stored), free(d->derived), free(d->cls);
    }
    free(r->disc);
    for (size_t i = 0; i < r->n_files; i++) {
        ma_run_file *f = &r->files[i];
        free(f->path), free(f->sha256), free(f->variant), free(f->format), free(f->sector), free(f->producer);
        free(f->producer_version), free(f->ruleset_fingerprint);
        for (size_t k = 0; k < f->n_chunks; k++)
            free(f->chunks[k].sha256);
        free(f->chunks);
    }
    free(r->files);
    for (size_t i = 0; i < r->n_shards; i++) {
        ma_run_shard *x = &r->shards[i];
        free(x->source), free(x->host), free(x->command_line), free(x->started_at), free(x->ended_at);
        free(x->status), free(x->git_revision), free(x->sealed_by);
    }
    free(r->shards);
    memset(r, 0, sizeof *r);
}

/* ---------------------------------------------------------------- export */

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}


/* The export's "manifest": the files the run read with their chunks, or null. */
static void export_manifest(json_t *doc, const ma_run *r, int *bad)
{
    if (r->has_manifest || r->n_files) {
        json_t *m = json_object(), *files = json_array();
        ma_json_put(doc, "manifest", m, bad);
        if (m) {
            ma_json_put(m, "manifest_path", ma_json_store_text(r->manifest_path), bad);
            ma_json_put(m, "chunk_size", json_integer(r->manifest_chunk_size), bad);
            ma_json_put(m, "files", files, bad);
        }
        for (size_t i = 0; files && i < r->n_files; i++) {
            const ma_run_file *f = &r->files[i];
            json_t *jf = json_object(), *chunks = json_array();
            if (!jf || json_array_append_new(files, jf)) {
                *bad = 1;
                json_decref(chunks);
                break;
            }
            ma_json_put(jf, "path", ma_json_store_text(f->path), bad);
            ma_json_put(jf, "size", json_integer(f->size), bad);
            ma_json_put(jf, "sha256", ma_json_store_text(f->sha256), bad);
            ma_json_put(jf, "chunk_size", json_integer(f->chunk_size), bad);
            ma_json_put(jf, "variant", ma_json_store_text(f->variant), bad);
            ma_json_put(jf, "format", ma_json_store_text(f->format), bad);
            ma_json_put(jf, "sector", ma_json_store_text(f->sector), bad);
            ma_json_put(jf, "producer", ma_json_store_text(f->producer), bad);
            ma_json_put(jf, "producer_version", ma_json_store_text(f->producer_version), bad);
            ma_json_put(jf, "entries", f->has_entries ? json_integer(f->entries) : json_null(), bad);
            ma_json_put(jf, "ruleset_fingerprint", ma_json_store_text(f->ruleset_fingerprint), bad);
            ma_json_put(jf, "chunks", chunks, bad);
            for (size_t k = 0; chunks && k < f->n_chunks; k++) {
                json_t *c = json_object();
                if (!c || json_array_append_new(chunks, c)) {
                    *bad = 1;
                    break;
                }
                ma_json_put(c, "chunk", json_integer(f->chunks[k].chunk), bad);
                ma_json_put(c, "offset", json_integer(f->chunks[k].offset), bad);
                ma_json_put(c, "length", json_integer(f->chunks[k].length), bad);
                ma_json_put(c, "sha256", ma_json_store_text(f->chunks[k].sha256), bad);
            }
        }
    } else {
        ma_json_put(doc, "manifest", json_null(), bad);
    }
}

/* The export's "sectors" with their class counts and histograms. */
static void export_sectors(json_t *doc, const ma_run *r, int *bad)
{
    json_t *secs = json_array();
    ma_json_put(doc, "sectors", secs, bad);
    for (size_t i = 0; secs && i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        json_t *s = json_object(), *cls = json_array(), *bins = json_array();
        if (!s || json_array_append_new(secs, s)) {
            *bad = 1;
            json_decref(cls), json_decref(bins);
            break;
        }
        ma_json_put(s, "sector", ma_json_store_text(x->sector), bad);
        ma_json_put(s, "file", ma_json_store_text(x->file), bad);
        ma_json_put(s, "entries", json_integer(x->entries), bad);
        ma_json_put(s, "checked", json_integer(x->checked), bad);
        ma_json_put(s, "verified", json_integer(x->verified), bad);
        ma_json_put(s, "within_bounds", json_integer(x->within_bounds), bad);
        ma_json_put(s, "discrepancies", json_integer(x->discrepancies), bad);
        ma_json_put(s, "seconds", json_real(x->seconds), bad);
        ma_json_put(s, "status", ma_json_store_text(x->status), bad);
        ma_json_put(s, "message", ma_json_store_text(x->message), bad);
        ma_json_put(s, "derived_sha256", jstr(x->derived_sha256), bad);
        ma_json_put(s, "derived_positions", x->has_derived_positions ? json_integer(x->derived_positions) : json_null(),
            bad);
        ma_json_put(s, "classes", cls, bad);
        for (size_t k = 0; cls && k < x->n_classes; k++) {
            json_t *c = json_object();
            if (!c || json_array_append_new(cls, c)) {
                *bad = 1;
                break;
            }
            ma_json_put(c, "class", ma_json_store_text(x->classes[k].cls), bad);
            ma_json_put(c, "count", json_integer(x->classes[k].count), bad);
        }
        ma_json_put(s, "histogram", bins, bad);
        for (size_t k = 0; bins && k < x->n_bins; k++) {
            json_t *c = json_object();
            if (!c || json_array_append_new(bins, c)) {
                *bad = 1;
                break;
            }
            ma_json_put(c, "outcome", ma_json_store_text(x->bins[k].outcome), bad);
            ma_json_put(c, "depth", json_integer(x->bins[k].depth), bad);
            ma_json_put(c, "count", json_integer(x->bins[k].count), bad);
        }
    }
}

int ma_run_to_json(const ma_run *r, char **out, ma_error *err)
{
    *out = NULL;
    int bad = 0;
    json_t *doc = json_object();
    if (!doc)
        return ma_error_set(err, MA_ENOMEM, "export: out of memory");
    ma_json_put(doc, "format", json_string(MA_RUN_EXPORT_FORMAT), &bad);
    /* every JSON document millaudit prints names its schema version (docs/json/runs-export.schema.json) */
    ma_json_put(doc, "schema_version", json_integer(MA_RUN_EXPORT_VERSION), &bad);
    ma_json_put(doc, "version", json_integer(MA_RUN_EXPORT_VERSION), &bad);
    json_t *run = json_object();
    ma_json_put(doc, "run", run ? run : NULL, &bad);
    if (run) {
        ma_json_put(run, "id", json_integer(r->id), &bad);
        ma_json_put(run, "kind", ma_json_store_text(r->kind), &bad);
        ma_json_put(run, "tool_version", ma_json_store_text(r->tool_version), &bad);
        ma_json_put(run, "git_revision", ma_json_store_text(r->git_revision), &bad);
        ma_json_put(run, "host", ma_json_store_text(r->host), &bad);
        ma_json_put(run, "command_line", ma_json_store_text(r->command_line), &bad);
        ma_json_put(run, "database_root", ma_json_store_text(r->database_root), &bad);
        ma_json_put(run, "variant", ma_json_store_text(r->variant), &bad);
        ma_json_put(run, "format", ma_json_store_text(r->format), &bad);
        ma_json_put(run, "started_at", ma_json_store_text(r->started_at), &bad);
        ma_json_put(run, "ended_at", ma_json_store_text(r->ended_at), &bad);
        ma_json_put(run, "status", ma_json_store_text(r->status), &bad);
    }
    if (r->imported) {
        json_t *im = json_object();
        ma_json_put(doc, "imported_from", im, &bad);
        if (im) {
            ma_json_put(im, "source", ma_json_store_text(r->import_source), &bad);
            ma_json_put(im, "source_run_id", json_integer(r->import_source_run_id), &bad);
            ma_json_put(im, "export_version", json_integer(r->import_export_version), &bad);
            ma_json_put(im, "imported_at", ma_json_store_text(r->imported_at), &bad);
        }
    } else {
        ma_json_put(doc, "imported_from", json_null(), &bad);
    }
    export_manifest(doc, r, &bad);
    export_sectors(doc, r, &bad);
    json_t *ds = json_array();
    ma_json_put(doc, "discrepancies", ds, &bad);
    for (size_t i = 0; ds && i < r->n_disc; i++) {
        const ma_run_discrepancy *d = &r->disc[i];
        json_t *o = json_object();
        if (!o || json_array_append_new(ds, o)) {
            bad = 1;
            break;
        }
        ma_json_put(o, "sector", ma_json_store_text(d->sector), &bad);
        ma_json_put(o, "entry", json_integer(d->entry), &bad);
        ma_json_put(o, "board", ma_json_store_text(d->board), &bad);
        ma_json_put(o, "stored", ma_json_store_text(d->stored), &bad);
        ma_json_put(o, "derived", ma_json_store_text(d->derived), &bad);
        ma_json_put(o, "class", ma_json_store_text(d->cls), &bad);
    }
    char *text = bad ? NULL : ma_json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (!text)
        return ma_error_set(err, MA_ENOMEM, "export: out of memory");
    size_t n = strlen(text);
    char *t = realloc(text, n + 2);
    if (!t) {
        free(text);
        return ma_error_set(err, MA_ENOMEM, "export: out of memory");
    }
    t[n] = '\n';
    t[n + 1] = 0;
    *out = t;
    return MA_OK;
}

/* ---------------------------------------------------------------- import (strict parse) */

typedef struct field {
    const char *key;
    int type;      /* 's' string, 'S' string or null, 'i' integer >= 0, 'I' integer >= 0 or null, 'n' number,
                    * 'h' digest hex, 'H' digest hex or null, 'o' object, 'O' object or null, 'a' array */
} field;

struct ctx {
    const char *name;
    ma_error *err;
    int oom;
};

static int fail(struct ctx *c, const char *where, const char *what)
{
    return ma_error_set(c->err, MA_EFORMAT, "%s: not a valid millaudit run export: %s: %s", c->name, where, what);
}

/* Checks that obj has exactly the keys of fields with the right types. */
static int check_object(struct ctx *c, json_t *obj, const field *fields, size_t n, const char *where)
{
    if (!json_is_object(obj))
        return fail(c, where, "not an object");
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        size_t i;
        for (i = 0; i < n; i++)
            if (!strcmp(key, fields[i].key))
                break;
        if (i == n) {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown key '%.100s'", key);
            return fail(c, where, msg);
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_object_get(obj, fields[i].key);
        char w[200];
        snprintf(w, sizeof w, "%s.%s", where, fields[i].key);
        if (!x)
            return fail(c, w, "missing");
        int t = fields[i].type, ok;
        int nullable = t == 'S' || t == 'I' || t == 'H' || t == 'O';
        if (nullable && json_is_null(x))
            continue;
        switch (t) {
        case 's': case 'S': ok = json_is_string(x); break;
        case 'i': case 'I': ok = json_is_integer(x) && json_integer_value(x) >= 0; break;
        case 'n': ok = json_is_number(x) && json_number_value(x) >= 0; break;
        case 'h': case 'H':
            ok = json_is_string(x) && strlen(json_string_value(x)) == 64 &&
                 strspn(json_string_value(x), "0123456789abcdef") == 64;
            break;
        case 'o': case 'O': ok = json_is_object(x); break;
        default: ok = json_is_array(x); break;
        }
        if (!ok)
            return fail(c, w, t == 'h' || t == 'H'   ? "not 64 lowercase hex digits"
                              : t == 'i' || t == 'I' ? "not a non-negative integer"
                              : t == 'n'             ? "not a non-negative number"
                              : t == 'a'             ? "not an array"
                              : t == 'o' || t == 'O' ? "not an object"
                                                     : "not a string");
    }
    return MA_OK;
}

static char *gs(struct ctx *c, json_t *o, const char *key)
{
    json_t *x = json_object_get(o, key);
    if (!x || !json_is_string(x))
        return NULL;
    char *s = strdup(json_string_value(x));
    if (!s)
        c->oom = 1;
    return s;
}

static int64_t gi(json_t *o, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(o, key));
}

/* The keys and types of every object of the export document (check_object). */
static const field top[] = {{"format", 's'}, {"version", 'i'}, {"run", 'o'}, {"imported_from", 'O'},
                            {"manifest", 'O'}, {"sectors", 'a'}, {"discrepancies", 'a'}};
static const field runf[] = {{"id", 'i'}, {"kind", 's'}, {"tool_version", 's'}, {"git_revision", 's'},
                             {"host", 'S'}, {"command_line", 'S'}, {"database_root", 'S'}, {"variant", 'S'},
                             {"format", 'S'}, {"started_at", 's'}, {"ended_at", 'S'}, {"status", 'S'}};
static const field impf[] = {{"source", 's'}, {"source_run_id", 'i'}, {"export_version", 'i'},
                             {"imported_at", 's'}};
static const field manf[] = {{"manifest_path", 'S'}, {"chunk_size", 'i'}, {"files", 'a'}};
static const field filef[] = {{"path", 's'}, {"size", 'i'}, {"sha256", 'h'}, {"chunk_size", 'i'},
                              {"variant", 'S'}, {"format", 'S'}, {"sector", 'S'}, {"producer", 'S'},
                              {"producer_version", 'S'}, {"entries", 'I'}, {"ruleset_fingerprint", 'H'},
                              {"chunks", 'a'}};
static const field chunkf[] = {{"chunk", 'i'}, {"offset", 'i'}, {"length", 'i'}, {"sha256", 'h'}};
static const field secf[] = {{"sector", 's'}, {"file", 'S'}, {"entries", 'i'}, {"checked", 'i'},
                             {"verified", 'i'}, {"within_bounds", 'i'}, {"discrepancies", 'i'},
                             {"seconds", 'n'}, {"status", 's'}, {"message", 'S'}, {"derived_sha256", 'H'},
                             {"derived_positions", 'I'}, {"classes", 'a'}, {"histogram", 'a'}};
static const field clsf[] = {{"class", 's'}, {"count", 'i'}};
static const field binf[] = {{"outcome", 's'}, {"depth", 'i'}, {"count", 'i'}};
static const field discf[] = {{"sector", 's'}, {"entry", 'i'}, {"board", 'S'}, {"stored", 'S'},
                              {"derived", 'S'}, {"class", 's'}};
#define N(x) (sizeof x / sizeof x[0])

/* The "manifest" of the document into r (part of ma_run_from_json): MA_OK, the refusal's code, or
 * 1 when out of memory (c->oom set). */
static int parse_manifest(struct ctx *c, json_t *doc, ma_run *r)
{
    int rc = MA_OK;
    json_t *man = json_object_get(doc, "manifest");
    if (!json_is_null(man)) {
        if ((rc = check_object(c, man, manf, N(manf), "manifest")))
            return rc;
        r->has_manifest = 1;
        r->manifest_path = gs(c, man, "manifest_path");
        r->manifest_chunk_size = gi(man, "chunk_size");
        json_t *files = json_object_get(man, "files");
        size_t nf = json_array_size(files);
        r->files = calloc(nf ? nf : 1, sizeof *r->files);
        if (!r->files) {
            c->oom = 1;
            return 1;
        }
        for (size_t i = 0; i < nf; i++) {
            char w[64];
            snprintf(w, sizeof w, "manifest.files[%zu]", i);
            json_t *jf = json_array_get(files, i);
            if ((rc = check_object(c, jf, filef, N(filef), w)))
                return rc;
            ma_run_file *f = &r->files[r->n_files++];
            f->path = gs(c, jf, "path");
            f->size = gi(jf, "size");
            f->sha256 = gs(c, jf, "sha256");
            f->chunk_size = gi(jf, "chunk_size");
            f->variant = gs(c, jf, "variant");
            f->format = gs(c, jf, "format");
            f->sector = gs(c, jf, "sector");
            f->producer = gs(c, jf, "producer");
            f->producer_version = gs(c, jf, "producer_version");
            f->has_entries = !json_is_null(json_object_get(jf, "entries"));
            f->entries = gi(jf, "entries");
            f->ruleset_fingerprint = gs(c, jf, "ruleset_fingerprint");
            for (size_t k = 0; k < i; k++)
                if (f->path && r->files[k].path && !strcmp(f->path, r->files[k].path)) {
                    rc = fail(c, w, "path listed twice");
                    return rc;
                }
            json_t *chunks = json_object_get(jf, "chunks");
            size_t nc = json_array_size(chunks);
            f->chunks = calloc(nc ? nc : 1, sizeof *f->chunks);
            if (!f->chunks) {
                c->oom = 1;
                return 1;
            }
            for (size_t k = 0; k < nc; k++) {
                char wc[96];
                snprintf(wc, sizeof wc, "%s.chunks[%zu]", w, k);
                json_t *jc = json_array_get(chunks, k);
                if ((rc = check_object(c, jc, chunkf, N(chunkf), wc)))
                    return rc;
                ma_run_chunk *ch = &f->chunks[f->n_chunks++];
                ch->chunk = gi(jc, "chunk");
                ch->offset = gi(jc, "offset");
                ch->length = gi(jc, "length");
                ch->sha256 = gs(c, jc, "sha256");
                if (ch->chunk != (int64_t)k) {
                    rc = fail(c, wc, "chunks not numbered 0, 1, 2, ... in order");
                    return rc;
                }
            }
        }
    }
    return rc;
}

/* The "sectors" of the document into r (part of ma_run_from_json), returning as parse_manifest. */
static int parse_sectors(struct ctx *c, json_t *doc, ma_run *r)
{
    int rc = MA_OK;
    json_t *secs = json_object_get(doc, "sectors");
    size_t ns = json_array_size(secs);
    r->sectors = calloc(ns ? ns : 1, sizeof *r->sectors);
    if (!r->sectors) {
        c->oom = 1;
        return 1;
    }
    for (size_t i = 0; i < ns; i++) {
        char w[64];
        snprintf(w, sizeof w, "sectors[%zu]", i);
        json_t *js = json_array_get(secs, i);
        if ((rc = check_object(c, js, secf, N(secf), w)))
            return rc;
        ma_run_sector *x = &r->sectors[r->n_sectors++];
        x->sector = gs(c, js, "sector");
        x->file = gs(c, js, "file");
        x->entries = gi(js, "entries");
        x->checked = gi(js, "checked");
        x->verified = gi(js, "verified");
        x->within_bounds = gi(js, "within_bounds");
        x->discrepancies = gi(js, "discrepancies");
        x->seconds = json_number_value(json_object_get(js, "seconds"));
        x->status = gs(c, js, "status");
        x->message = gs(c, js, "message");
        x->derived_sha256 = gs(c, js, "derived_sha256");
        x->has_derived_positions = !json_is_null(json_object_get(js, "derived_positions"));
        x->derived_positions = gi(js, "derived_positions");
        if (!x->derived_sha256 != !x->has_derived_positions) {
            rc = fail(c, w, "derived_sha256 and derived_positions must both be given or both be null");
            return rc;
        }
        for (size_t k = 0; k < i; k++)
            if (x->sector && r->sectors[k].sector && !strcmp(x->sector, r->sectors[k].sector)) {
                rc = fail(c, w, "sector listed twice");
                return rc;
            }
        json_t *cls = json_object_get(js, "classes"), *bins = json_object_get(js, "histogram");
        size_t nc = json_array_size(cls), nb = json_array_size(bins);
        x->classes = calloc(nc ? nc : 1, sizeof *x->classes);
        x->bins = calloc(nb ? nb : 1, sizeof *x->bins);
        if (!x->classes || !x->bins) {
            c->oom = 1;
            return 1;
        }
        for (size_t k = 0; k < nc; k++) {
            char wc[96];
            snprintf(wc, sizeof wc, "%s.classes[%zu]", w, k);
            json_t *jc = json_array_get(cls, k);
            if ((rc = check_object(c, jc, clsf, N(clsf), wc)))
                return rc;
            x->classes[x->n_classes].cls = gs(c, jc, "class");
            x->classes[x->n_classes++].count = gi(jc, "count");
            for (size_t j = 0; j + 1 < x->n_classes; j++)
                if (!strcmp(x->classes[j].cls, x->classes[k].cls)) {
                    rc = fail(c, wc, "class listed twice");
                    return rc;
                }
        }
        for (size_t k = 0; k < nb; k++) {
            char wc[96];
            snprintf(wc, sizeof wc, "%s.histogram[%zu]", w, k);
            json_t *jb = json_array_get(bins, k);
            if ((rc = check_object(c, jb, binf, N(binf), wc)))
                return rc;
            const char *o = json_string_value(json_object_get(jb, "outcome"));
            if (strcmp(o, "win") && strcmp(o, "loss") && strcmp(o, "draw")) {
                rc = fail(c, wc, "outcome is not win, loss or draw");
                return rc;
            }
            x->bins[x->n_bins].outcome = gs(c, jb, "outcome");
            x->bins[x->n_bins].depth = gi(jb, "depth");
            x->bins[x->n_bins++].count = gi(jb, "count");
        }
    }
    return rc;
}

int ma_run_from_json(ma_run *r, const char *text, size_t len, const char *name, ma_error *err)
{
    memset(r, 0, sizeof *r);
    struct ctx c = {name, err, 0};
    json_error_t je;
    int oom;
    json_t *doc = ma_json_load_checked(text, len, &je, &oom);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name); /* not the document's fault */
    if (!doc)
        return ma_error_set(err, MA_EFORMAT, "%s: not valid JSON: line %d column %d: %s", name, je.line, je.column,
                            je.text);
    int rc;
    if (!json_is_object(doc)) {
        rc = fail(&c, "document", "not an object");
        goto out;
    }
    json_t *fmt = json_object_get(doc, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MA_RUN_EXPORT_FORMAT)) {
        rc = fail(&c, "format", "not \"" MA_RUN_EXPORT_FORMAT "\" (a foreign document)");
        goto out;
    }
    json_t *ver = json_object_get(doc, "version");
    if (!json_is_integer(ver) || json_integer_value(ver) != MA_RUN_EXPORT_VERSION) {
        rc = fail(&c, "version", "not 1 (this build reads export version 1)");
        goto out;
    }
    /* schema_version repeats version; documents exported before it was added lack it */
    json_t *sv = json_object_get(doc, "schema_version");
    if (sv && (!json_is_integer(sv) || json_integer_value(sv) != MA_RUN_EXPORT_VERSION)) {
        rc = fail(&c, "schema_version", "not 1 (this build reads export version 1)");
        goto out;
    }
    if (sv)
        json_object_del(doc, "schema_version");
    if ((rc = check_object(&c, doc, top, N(top), "document")))
        goto out;
    json_t *run = json_object_get(doc, "run");
    if ((rc = check_object(&c, run, runf, N(runf), "run")))
        goto out;
    r->id = gi(run, "id");
    char **facts[] = {&r->kind, &r->tool_version, &r->git_revision, &r->host, &r->command_line,
                      &r->database_root, &r->variant, &r->format, &r->started_at, &r->ended_at, &r->status};
    const char *fact_keys[] = {"kind", "tool_version", "git_revision", "host", "command_line", "database_root",
                               "variant", "format", "started_at", "ended_at", "status"};
    for (int i = 0; i < 11; i++)
        *facts[i] = gs(&c, run, fact_keys[i]);
    json_t *im = json_object_get(doc, "imported_from");
    if (!json_is_null(im)) {
        if ((rc = check_object(&c, im, impf, N(impf), "imported_from")))
            goto out;
        r->imported = 1;
        r->import_source = gs(&c, im, "source");
        r->import_source_run_id = gi(im, "source_run_id");
        r->import_export_version = gi(im, "export_version");
        r->imported_at = gs(&c, im, "imported_at");
    }
    /* 1 from a part: out of memory (c.oom) */
    if ((rc = parse_manifest(&c, doc, r)) == MA_OK)
        rc = parse_sectors(&c, doc, r);
    if (rc == 1)
        goto out_oom;
    if (rc)
        goto out;
    json_t *ds = json_object_get(doc, "discrepancies");
    size_t nd = json_array_size(ds);
    r->disc = calloc(nd ? nd : 1, sizeof *r->disc);
    if (!r->disc) {
        c.oom = 1;
        goto out_oom;
    }
    for (size_t i = 0; i < nd; i++) {
        char w[64];
        snprintf(w, sizeof w, "discrepancies[%zu]", i);
        json_t *jd = json_array_get(ds, i);
        if ((rc = check_object(&c, jd, discf, N(discf), w)))
            goto out;
        ma_run_discrepancy *d = &r->disc[r->n_disc++];
        d->sector = gs(&c, jd, "sector");
        d->entry = gi(jd, "entry");
        d->board = gs(&c, jd, "board");
        d->stored = gs(&c, jd, "stored");
        d->derived = gs(&c, jd, "derived");
        d->cls = gs(&c, jd, "class");
    }
out_oom:
    rc = c.oom ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", name) : MA_OK;
out:
    json_decref(doc);
    if (rc)
        ma_run_free(r);
    return rc;
}

#undef N

/* ---------------------------------------------------------------- import (write) */

int ma_run_import(ma_audit *a, const ma_run *r, const char *source, int64_t *new_id, ma_error *err)
{
    int rc = ma_audit_tx_begin(a, err);
    if (rc)
        return rc;
    sqlite3 *db = ma_audit_db(a);
    rc = ma_audit_exec_bound(a, "INSERT INTO runs (kind, tool_version, git_revision, host, command_line, database_root,"
                       " variant, format, started_at, ended_at, status, scope) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    "import run", err, "tttttttttttt", r->kind, r->tool_version ? r->tool_version : "unknown",
                    r->git_revision ? r->git_revision : "unknown", r->host, r->command_line, r->database_root,
                    r->variant, r->format, r->started_at, r->ended_at, r->status, r->scope);
    int64_t id = sqlite3_last_insert_rowid(db);
    if (!rc)
        rc = ma_audit_exec_bound(a, "INSERT INTO run_imports (run_id, source, source_run_id, export_version, imported_at)"
                           " VALUES (?,?,?,?, strftime('%Y-%m-%dT%H:%M:%fZ','now'))",
                        "record import origin", err, "itii", id, source, r->id, (int64_t)MA_RUN_EXPORT_VERSION);
    if (!rc && r->attested)
        rc = ma_audit_exec_bound(a, "INSERT INTO run_attestations (run_id, keyid, identity, envelope_sha256) VALUES (?,?,?,?)",
                        "record attestation", err, "ittt", id, r->attest_keyid, r->attest_identity,
                        r->attest_envelope_sha256);
    for (size_t i = 0; !rc && i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        rc = ma_audit_exec_bound(a, "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified,"
                           " within_bounds, discrepancies, seconds, status, message)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        "import sector", err, "ittiiiiidtt", id, x->sector, x->file, x->entries, x->checked,
                        x->verified, x->within_bounds, x->discrepancies, x->seconds, x->status, x->message);
        if (!rc && x->derived_sha256)
            rc = ma_audit_exec_bound(a, "INSERT INTO sector_digests (run_id, sector, derived_sha256, derived_positions)"
                               " VALUES (?,?,?,?)", "import derived digest", err, "itti", id, x->sector,
                            x->derived_sha256, x->has_derived_positions ? x->derived_positions : (int64_t)0);
        for (size_t k = 0; !rc && k < x->n_classes; k++)
            rc = ma_audit_exec_bound(a, "INSERT INTO sector_class_counts (run_id, sector, class, count) VALUES (?,?,?,?)",
                            "import class count", err, "itti", id, x->sector, x->classes[k].cls,
                            x->classes[k].count);
        for (size_t k = 0; !rc && k < x->n_bins; k++)
            rc = ma_audit_exec_bound(a, "INSERT INTO sector_histograms (run_id, sector, outcome, depth, count)"
                               " VALUES (?,?,?,?,?)",
                            "import histogram", err, "ittii", id, x->sector, x->bins[k].outcome, x->bins[k].depth,
                            x->bins[k].count);
    }
    for (size_t i = 0; !rc && i < r->n_disc; i++) {
        const ma_run_discrepancy *d = &r->disc[i];
        rc = ma_audit_exec_bound(a, "INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class)"
                           " VALUES (?,?,?,?,?,?,?)",
                        "import discrepancy", err, "ititttt", id, d->sector, d->entry, d->board, d->stored,
                        d->derived, d->cls);
    }
    if (!rc && r->has_manifest)
        rc = ma_audit_exec_bound(a, "INSERT INTO manifests (run_id, manifest_path, chunk_size) VALUES (?,?,?)",
                        "import manifest", err, "iti", id, r->manifest_path, r->manifest_chunk_size);
    for (size_t i = 0; !rc && i < r->n_files; i++) {
        const ma_run_file *f = &r->files[i];
        rc = ma_audit_exec_bound(a, "INSERT INTO manifest_files (run_id, path, size, sha256, chunk_size, variant, format,"
                           " sector, producer, producer_version, entries, ruleset_fingerprint)"
                           " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                        "import manifest file", err, f->has_entries ? "itititttttit" : "itititttttnt", id, f->path,
                        f->size, f->sha256, f->chunk_size, f->variant, f->format, f->sector, f->producer,
                        f->producer_version, f->entries, f->ruleset_fingerprint);
        for (size_t k = 0; !rc && k < f->n_chunks; k++)
            rc = ma_audit_exec_bound(a, "INSERT INTO manifest_chunks (run_id, path, chunk, offset, length, sha256)"
                               " VALUES (?,?,?,?,?,?)",
                            "import manifest chunk", err, "itiiit", id, f->path, f->chunks[k].chunk,
                            f->chunks[k].offset, f->chunks[k].length, f->chunks[k].sha256);
    }
    if (rc) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    rc = ma_audit_tx_commit(a, err);
    if (!rc)
        *new_id = id;
    return rc;
}

/* ---------------------------------------------------------------- compare */

static const ma_run_file *file_for_sector(const ma_run *r, const char *sector)
{
    for (size_t i = 0; i < r->n_files; i++)
        if (r->files[i].sector && !strcmp(r->files[i].sector, sector))
            return &r->files[i];
    return NULL;
}

static const ma_run_sector *sector_of(const ma_run *r, const char *name)
{
    for (size_t i = 0; i < r->n_sectors; i++)
        if (!strcmp(r->sectors[i].sector, name))
            return &r->sectors[i];
    return NULL;
}

static int add_name(ma_run_cmp *c, size_t *cap, const char *name, int is_file)
{
    for (size_t i = 0; i < c->n_rows; i++)
        if (c->rows[i].is_file == is_file && !strcmp(c->rows[i].name, name))
            return 0;
    if (grow(&c->rows, c->n_rows, cap, sizeof *c->rows))
        return -1;
    c->rows[c->n_rows].name = name;
    c->rows[c->n_rows++].is_file = is_file;
    return 0;
}

static int cmp_rows(const void *x, const void *y)
{
    const ma_run_cmp_row *a = x, *b = y;
    if (a->is_file != b->is_file)
        return a->is_file - b->is_file;
    return strcmp(a->name, b->name);
}

int ma_run_compare(ma_run_cmp *c, const ma_run *a, const ma_run *b, ma_error *err)
{
    memset(c, 0, sizeof *c);
    size_t cap = 0;
    const ma_run *side[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < side[s]->n_sectors; i++)
            if (add_name(c, &cap, side[s]->sectors[i].sector, 0))
                goto oom;
        for (size_t i = 0; i < side[s]->n_files; i++) {
            const ma_run_file *f = &side[s]->files[i];
            if (add_name(c, &cap, f->sector ? f->sector : f->path, !f->sector))
                goto oom;
        }
    }
    for (size_t i = 0; i < c->n_rows; i++) {
        ma_run_cmp_row *row = &c->rows[i];
        const ma_run_file *fa, *fb;
        const ma_run_sector *sa = NULL, *sb = NULL;
        if (row->is_file) {
            fa = find_file((ma_run *)a, row->name);
            fb = find_file((ma_run *)b, row->name);
            if (fa && fa->sector)
                fa = NULL;
            if (fb && fb->sector)
                fb = NULL;
        } else {
            fa = file_for_sector(a, row->name);
            fb = file_for_sector(b, row->name);
            sa = sector_of(a, row->name);
            sb = sector_of(b, row->name);
        }
        row->in_a = fa || sa;
        row->in_b = fb || sb;
        if (fa && fb)
            row->bytes = (fa->size == fb->size && !strcmp(fa->sha256, fb->sha256)) ? MA_CMP_SAME : MA_CMP_DIFFER;
        if (sa && sb && sa->derived_sha256 && sb->derived_sha256)
            row->values = !strcmp(sa->derived_sha256, sb->derived_sha256) ? MA_CMP_SAME : MA_CMP_DIFFER;
        if (!row->in_a)
            row->how = "missing in A";
        else if (!row->in_b)
            row->how = "missing in B";
        else if (row->values == MA_CMP_DIFFER)
            row->how = row->bytes == MA_CMP_DIFFER ? "bytes and values" : "values";
        else if (row->bytes == MA_CMP_DIFFER)
            row->how = "bytes only";
        else if (row->bytes == MA_CMP_SAME || row->values == MA_CMP_SAME)
            row->how = "same";
        else
            row->how = "not comparable";
        if (!strcmp(row->how, "same"))
            c->n_same++;
        else if (!strcmp(row->how, "not comparable"))
            c->n_unknown++;
        else
            c->n_differ++;
    }
    if (c->n_rows)
        qsort(c->rows, c->n_rows, sizeof *c->rows, cmp_rows);
    return MA_OK;
oom:
    ma_run_cmp_free(c);
    return ma_error_set(err, MA_ENOMEM, "compare: out of memory");
}

void ma_run_cmp_free(ma_run_cmp *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}

/* ---------------------------------------------------------------- schema v3 writers */

int ma_audit_sector_digest_set(ma_audit *a, int64_t run_id, const char *sector, const char *hex,
                               uint64_t positions, ma_error *err)
{
    if (!sector || !hex || strlen(hex) != 64 || strspn(hex, "0123456789abcdef") != 64)
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: sector %s: derived digest is not 64 lowercase hex",
                            ma_audit_path(a), (long long)run_id, sector ? sector : "?");
    if (positions > (uint64_t)INT64_MAX)
        return ma_error_set(err, MA_EINVAL, "%s: positions out of range", ma_audit_path(a));
    int rc = ma_audit_tx_begin(a, err);
    if (rc)
        return rc;
    /* the foreign key refuses a sector that was not recorded (MA_EINVAL); a second call replaces */
    rc = ma_audit_exec_bound(a, "INSERT OR REPLACE INTO sector_digests (run_id, sector, derived_sha256, derived_positions)"
                       " VALUES (?,?,?,?)", "record derived digest (is the sector recorded?)", err, "itti",
                    run_id, sector, hex, (int64_t)positions);
    if (rc) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}

int ma_audit_sector_histogram_set(ma_audit *a, int64_t run_id, const char *sector, const ma_histogram_bin *bins,
                                  size_t n, ma_error *err)
{
    if (!sector || (n && !bins))
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: incomplete histogram", ma_audit_path(a), (long long)run_id);
    int rc = ma_audit_tx_begin(a, err);
    if (rc)
        return rc;
    for (size_t i = 0; !rc && i < n; i++) {
        const char *o = bins[i].outcome;
        if (!o || (strcmp(o, "win") && strcmp(o, "loss") && strcmp(o, "draw")) || bins[i].count > (uint64_t)INT64_MAX)
            rc = ma_error_set(err, MA_EINVAL, "%s: run %lld: sector %s: histogram bin %zu is not win/loss/draw",
                              ma_audit_path(a), (long long)run_id, sector, i);
        else
            rc = ma_audit_exec_bound(a, "INSERT INTO sector_histograms (run_id, sector, outcome, depth, count)"
                               " VALUES (?,?,?,?,?)", "record histogram", err, "ittii", run_id, sector, o,
                            (int64_t)bins[i].depth, (int64_t)bins[i].count);
    }
    if (rc) {
        ma_audit_tx_rollback(a);
        return rc;
    }
    return ma_audit_tx_commit(a, err);
}
