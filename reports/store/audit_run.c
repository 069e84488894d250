/* reports/store/audit_run: the run engine's records in an audit store (schema v4). */
#include "reports/store/audit_run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/counts.h"
#include "reports/store/audit_internal.h"

/* Prepares, binds nothing; MA_EINTERNAL naming what on failure (a statement of ours is wrong). */
static int prep(ma_audit *a, sqlite3_stmt **st, const char *sql, const char *what, ma_error *err)
{
    *st = NULL;
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    return MA_OK;
}

int ma_audit_run_meta_set(ma_audit *a, int64_t run_id, const ma_run_meta *m, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if ((rc = prep(a, &st,
                   "UPDATE runs SET mode = ?, resumed_from = ?, options = ?, shard_index = ?,"
                   " shard_count = ?, planned_sectors = ?, unusable_files = ?, selection = ?,"
                   " planned_entries = ?, pid = ?, scope = ?,"
                   " heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                   "record run mode", err)))
        return rc;
    ma_audit_bind_text(st, 1, m->mode);
    if (m->resumed_from)
        sqlite3_bind_int64(st, 2, m->resumed_from);
    ma_audit_bind_text(st, 3, m->options);
    if (m->shard_count) {
        sqlite3_bind_int64(st, 4, m->shard_index);
        sqlite3_bind_int64(st, 5, m->shard_count);
    }
    if (m->planned_sectors >= 0)
        sqlite3_bind_int64(st, 6, m->planned_sectors);
    if (m->unusable_files >= 0)
        sqlite3_bind_int64(st, 7, m->unusable_files);
    ma_audit_bind_text(st, 8, m->selection);
    if (m->planned_entries >= 0)
        sqlite3_bind_int64(st, 9, m->planned_entries);
    if (m->pid > 0)
        sqlite3_bind_int64(st, 10, m->pid);
    ma_audit_bind_text(st, 11, m->scope);
    sqlite3_bind_int64(st, 12, run_id);
    rc = ma_audit_step_done(a, st, "record run mode", err);
    if (rc == MA_OK && sqlite3_changes(ma_audit_db(a)) != 1)
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld does not exist", ma_audit_path(a),
                          (long long)run_id);
    sqlite3_finalize(st);
    return rc;
}

static int causes_write(ma_audit *a, void *ctx, ma_error *err);

struct causes {
    int64_t run_id;
    const char *sector, *message;
    uint64_t roots, propagated;
    const ma_row_cause *rows;
    size_t n;
};

int ma_audit_sector_causes_set(ma_audit *a, int64_t run_id, const char *sector, uint64_t roots, uint64_t propagated,
                               const char *message, const ma_row_cause *rows, size_t n, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    struct causes c = {run_id, sector, message, roots, propagated, rows, n};
    return ma_audit_write_tx(a, causes_write, &c, err);
}

static int causes_write(ma_audit *a, void *ctx, ma_error *err)
{
    const struct causes *c = ctx;
    sqlite3_stmt *st;
    int rc = prep(a, &st, "UPDATE sector_results SET roots = ?, propagated = ?, message = coalesce(?, message)"
                          " WHERE run_id = ? AND sector = ?", "record causes", err);
    if (rc)
        return rc;
    rc = ma_audit_bind_u64(a, st, 1, c->roots, "roots", err);
    if (rc == MA_OK)
        rc = ma_audit_bind_u64(a, st, 2, c->propagated, "propagated", err);
    ma_audit_bind_text(st, 3, c->message);
    sqlite3_bind_int64(st, 4, c->run_id);
    ma_audit_bind_text(st, 5, c->sector);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, st, "record causes", err);
    sqlite3_finalize(st);
    if (rc || (rc = prep(a, &st, "UPDATE discrepancies SET root = ?, move = ? WHERE run_id = ? AND sector = ?"
                                 " AND entry = ?", "record row causes", err)))
        return rc;
    for (size_t i = 0; rc == MA_OK && i < c->n; i++) {
        sqlite3_bind_int(st, 1, c->rows[i].root ? 1 : 0);
        ma_audit_bind_text(st, 2, c->rows[i].move);
        sqlite3_bind_int64(st, 3, c->run_id);
        ma_audit_bind_text(st, 4, c->sector);
        rc = ma_audit_bind_u64(a, st, 5, c->rows[i].entry, "entry", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st, "record row causes", err);
    }
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_run_plan_record(ma_audit *a, int64_t run_id, const ma_planned_sector *s, size_t n,
                             ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if ((rc = prep(a, &st, "INSERT INTO run_plan (run_id, sector, file, entries) VALUES (?,?,?,?)",
                   "record run plan", err)))
        return rc;
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        ma_audit_bind_text(st, 2, s[i].sector);
        ma_audit_bind_text(st, 3, s[i].file);
        rc = ma_audit_bind_u64(a, st, 4, s[i].entries, "planned entries", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st, "record run plan", err);
    }
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_write_tx(ma_audit *a, int (*fn)(ma_audit *a, void *ctx, ma_error *err), void *ctx,
                      ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc || (rc = ma_audit_tx_begin(a, err)))
        return rc;
    rc = fn(a, ctx, err);
    if (rc == MA_OK)
        rc = ma_audit_tx_commit(a, err);
    else
        ma_audit_tx_rollback(a);
    return rc;
}

int ma_audit_run_heartbeat(ma_audit *a, int64_t run_id, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if ((rc = prep(a, &st, "UPDATE runs SET heartbeat_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id = ?",
                   "record heartbeat", err)))
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    rc = ma_audit_step_done(a, st, "record heartbeat", err);
    sqlite3_finalize(st);
    return rc;
}

/* ---- discrepancy sets: sorted entries as LEB128 varints of the gaps (first from 0) ---- */

static unsigned char *encode_set(const uint64_t *e, size_t n, size_t *len)
{
    unsigned char *buf = malloc(n * 10 + 1);
    if (!buf)
        return NULL;
    size_t o = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t gap = e[i] - prev;
        prev = e[i];
        do {
            unsigned char b = gap & 0x7F;
            gap >>= 7;
            buf[o++] = (unsigned char)(b | (gap ? 0x80 : 0));
        } while (gap);
    }
    *len = o;
    return buf;
}

static int decode_set(const unsigned char *p, size_t len, size_t n, uint64_t *out)
{
    size_t o = 0;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t gap = 0;
        int shift = 0;
        for (;;) {
            if (o >= len || shift > 63)
                return -1;
            unsigned char b = p[o++];
            gap |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        prev += gap;
        out[i] = prev;
    }
    return o == len ? 0 : -1;
}

/* ---- one unit's commit ---- */

typedef struct stmts {
    sqlite3_stmt *result, *cls, *row, *digest, *bin, *input, *set;
} stmts;

static void stmts_free(stmts *s)
{
    sqlite3_finalize(s->result);
    sqlite3_finalize(s->cls);
    sqlite3_finalize(s->row);
    sqlite3_finalize(s->digest);
    sqlite3_finalize(s->bin);
    sqlite3_finalize(s->input);
    sqlite3_finalize(s->set);
}

static int stmts_prepare(ma_audit *a, stmts *s, ma_error *err)
{
    memset(s, 0, sizeof *s);
    int rc;
    if ((rc = prep(a, &s->result,
                   "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified,"
                   " within_bounds, discrepancies, seconds, status, message, format, canonical,"
                   " markers, roots, propagated, missing_child, unverifiable, bound_wins, body_digest)"
                   " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   "prepare sector result", err)) ||
        (rc = prep(a, &s->cls,
                   "INSERT INTO sector_class_counts (run_id, sector, class, count) VALUES (?,?,?,?)",
                   "prepare class count", err)) ||
        (rc = prep(a, &s->row,
                   "INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class,"
                   " root, offset, move, successor, stored_outcome, stored_depth, derived_outcome,"
                   " derived_depth, derived_bound) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   "prepare discrepancy", err)) ||
        (rc = prep(a, &s->digest,
                   "INSERT INTO sector_digests (run_id, sector, derived_sha256, derived_positions)"
                   " VALUES (?,?,?,?)",
                   "prepare digest", err)) ||
        (rc = prep(a, &s->bin,
                   "INSERT INTO sector_histograms (run_id, sector, outcome, depth, count)"
                   " VALUES (?,?,?,?,?)",
                   "prepare histogram", err)) ||
        (rc = prep(a, &s->input,
                   "INSERT INTO sector_inputs (run_id, sector, path, sha256) VALUES (?,?,?,?)",
                   "prepare inputs", err)) ||
        (rc = prep(a, &s->set,
                   "INSERT INTO sector_discrepancy_sets (run_id, sector, count, entries, fixed_count,"
                   " fixed_entries) VALUES (?,?,?,?,?,?)",
                   "prepare discrepancy set", err)))
        stmts_free(s);
    return rc;
}

static int commit_one(ma_audit *a, stmts *st, int64_t run_id, const ma_sector_commit *c,
                      ma_error *err)
{
    const ma_sector_result *r = &c->result;
    if (!r->sector || !r->status || (r->n_classes && !r->classes) || (c->n_rows && !c->rows))
        return ma_error_set(err, MA_EINVAL, "%s: run %lld: incomplete sector result",
                            ma_audit_path(a), (long long)run_id);
    char what[200];
    snprintf(what, sizeof what, "run %lld: sector %s: record result", (long long)run_id, r->sector);
    sqlite3_stmt *s = st->result;
    sqlite3_bind_int64(s, 1, run_id);
    ma_audit_bind_text(s, 2, r->sector);
    ma_audit_bind_text(s, 3, r->file);
    int rc = MA_OK;
    const uint64_t counts[] = {r->entries, r->checked, r->verified, r->within_bounds,
                               r->discrepancies};
    for (int i = 0; rc == MA_OK && i < 5; i++)
        rc = ma_audit_bind_u64(a, s, 4 + i, counts[i], "count", err);
    sqlite3_bind_double(s, 9, r->seconds);
    ma_audit_bind_text(s, 10, r->status);
    ma_audit_bind_text(s, 11, r->message);
    ma_audit_bind_text(s, 12, c->format);
    const uint64_t more[] = {c->canonical, c->markers, c->roots, c->propagated, c->missing_child,
                             c->unverifiable, c->bound_wins};
    for (int i = 0; rc == MA_OK && i < 7; i++)
        rc = ma_audit_bind_u64(a, s, 13 + i, more[i], "count", err);
    ma_audit_bind_text(s, 20, c->body_digest);
    if (rc == MA_OK)
        rc = ma_audit_step_done(a, s, what, err);
    else
        sqlite3_reset(s), sqlite3_clear_bindings(s);
    for (size_t i = 0; rc == MA_OK && i < r->n_classes; i++) {
        sqlite3_bind_int64(st->cls, 1, run_id);
        ma_audit_bind_text(st->cls, 2, r->sector);
        ma_audit_bind_text(st->cls, 3, r->classes[i].cls);
        rc = ma_audit_bind_u64(a, st->cls, 4, r->classes[i].count, "class count", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st->cls, what, err);
    }
    for (size_t i = 0; rc == MA_OK && i < c->n_rows; i++) {
        const ma_disc_row *d = &c->rows[i];
        s = st->row;
        sqlite3_bind_int64(s, 1, run_id);
        ma_audit_bind_text(s, 2, r->sector);
        rc = ma_audit_bind_u64(a, s, 3, d->entry, "entry", err);
        if (rc == MA_OK)
            rc = ma_audit_bind_u64(a, s, 9, d->offset, "offset", err);
        if (rc) {
            sqlite3_reset(s), sqlite3_clear_bindings(s);
            break;
        }
        ma_audit_bind_text(s, 4, d->board);
        ma_audit_bind_text(s, 5, d->stored);
        ma_audit_bind_text(s, 6, d->derived);
        ma_audit_bind_text(s, 7, d->cls);
        sqlite3_bind_int(s, 8, d->root ? 1 : 0);
        ma_audit_bind_text(s, 10, d->move);
        ma_audit_bind_text(s, 11, d->successor);
        ma_audit_bind_text(s, 12, d->stored_outcome);
        if (d->stored_depth >= 0)
            sqlite3_bind_int64(s, 13, d->stored_depth);
        ma_audit_bind_text(s, 14, d->derived_outcome);
        if (d->derived_depth >= 0)
            sqlite3_bind_int64(s, 15, d->derived_depth);
        ma_audit_bind_text(s, 16, d->derived_bound);
        rc = ma_audit_step_done(a, s, what, err);
    }
    if (rc == MA_OK && c->digest) {
        sqlite3_bind_int64(st->digest, 1, run_id);
        ma_audit_bind_text(st->digest, 2, r->sector);
        ma_audit_bind_text(st->digest, 3, c->digest);
        rc = ma_audit_bind_u64(a, st->digest, 4, c->digest_positions, "positions", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st->digest, what, err);
    }
    for (size_t i = 0; rc == MA_OK && i < c->n_bins; i++) {
        sqlite3_bind_int64(st->bin, 1, run_id);
        ma_audit_bind_text(st->bin, 2, r->sector);
        ma_audit_bind_text(st->bin, 3, c->bins[i].outcome);
        sqlite3_bind_int64(st->bin, 4, c->bins[i].depth);
        rc = ma_audit_bind_u64(a, st->bin, 5, c->bins[i].count, "histogram count", err);
        if (rc == MA_OK)
            rc = ma_audit_step_done(a, st->bin, what, err);
    }
    for (size_t i = 0; rc == MA_OK && i < c->n_inputs; i++) {
        sqlite3_bind_int64(st->input, 1, run_id);
        ma_audit_bind_text(st->input, 2, r->sector);
        ma_audit_bind_text(st->input, 3, c->inputs[i].path);
        ma_audit_bind_text(st->input, 4, c->inputs[i].sha256 ? c->inputs[i].sha256 : "");
        rc = ma_audit_step_done(a, st->input, what, err);
    }
    if (rc == MA_OK) {
        size_t len = 0, flen = 0;
        unsigned char *blob = encode_set(c->disc_entries, c->n_disc_entries, &len);
        unsigned char *fixed = encode_set(c->fixed_entries, c->n_fixed_entries, &flen);
        if (!blob || !fixed) {
            free(blob);
            free(fixed);
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
        }
        sqlite3_bind_int64(st->set, 1, run_id);
        ma_audit_bind_text(st->set, 2, r->sector);
        sqlite3_bind_int64(st->set, 3, (sqlite3_int64)c->n_disc_entries);
        sqlite3_bind_blob(st->set, 4, blob, (int)len, SQLITE_TRANSIENT);
        sqlite3_bind_int64(st->set, 5, (sqlite3_int64)c->n_fixed_entries);
        sqlite3_bind_blob(st->set, 6, fixed, (int)flen, SQLITE_TRANSIENT);
        rc = ma_audit_step_done(a, st->set, what, err);
        free(blob);
        free(fixed);
    }
    return rc;
}

static int sectors_write(ma_audit *a, int64_t run_id, const ma_sector_commit *s, size_t n, int own_tx,
                         ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc || n == 0)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (s[i].n_disc_entries > (size_t)1 << 31) /* the blob is bound with an int length */
            return ma_error_set(err, MA_EINVAL, "%s: sector %s: %s exceed one blob",
                                ma_audit_path(a), s[i].result.sector,
                                MA_COUNT(s[i].n_disc_entries, "discrepancy", "discrepancies"));
    stmts st;
    if ((rc = stmts_prepare(a, &st, err)))
        return rc;
    if (own_tx)
        rc = ma_audit_tx_begin(a, err);
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        rc = commit_one(a, &st, run_id, &s[i], err);
    /* a run that commits is alive: the heartbeat moves with its sectors (v7) */
    if (own_tx && rc == MA_OK)
        rc = ma_audit_run_heartbeat(a, run_id, err);
    if (own_tx) {
        if (rc == MA_OK)
            rc = ma_audit_tx_commit(a, err);
        else
            ma_audit_tx_rollback(a);
    }
    stmts_free(&st);
    return rc;
}

int ma_audit_sectors_commit(ma_audit *a, int64_t run_id, const ma_sector_commit *s, size_t n,
                            ma_error *err)
{
    return sectors_write(a, run_id, s, n, 1, err);
}

int ma_audit_sectors_write(ma_audit *a, int64_t run_id, const ma_sector_commit *s, size_t n,
                           ma_error *err)
{
    return sectors_write(a, run_id, s, n, 0, err);
}

/* ---- lookups ---- */

int ma_audit_unfinished_run(ma_audit *a, const char *database_root, int64_t exclude_run,
                            int64_t *run_id, ma_error *err)
{
    sqlite3_stmt *st;
    int rc = prep(a, &st,
                  "SELECT id FROM runs WHERE kind = 'verify' AND database_root = ? AND id <> ?"
                  " AND continued_by IS NULL"
                  " AND (ended_at IS NULL OR status = 'interrupted') ORDER BY id DESC LIMIT 1",
                  "find unfinished run", err);
    if (rc)
        return rc;
    ma_audit_bind_text(st, 1, database_root);
    sqlite3_bind_int64(st, 2, exclude_run);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        *run_id = sqlite3_column_int64(st, 0);
    } else if (s == SQLITE_DONE) {
        rc = ma_error_set(err, MA_EMISSING, "%s: no unfinished verify run of %s to resume",
                          ma_audit_path(a), database_root);
    } else {
        rc = ma_audit_sqlite_error(a, MA_EIO, "find unfinished run", err);
    }
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_run_mark_continued(ma_audit *a, int64_t run_id, int64_t new_run, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    /* conditional: of two claims only the first changes the row */
    if ((rc = prep(a, &st,
                   "UPDATE runs SET continued_by = ?, status = COALESCE(status, 'interrupted'),"
                   " ended_at = COALESCE(ended_at, strftime('%Y-%m-%dT%H:%M:%fZ','now'))"
                   " WHERE id = ? AND continued_by IS NULL",
                   "claim run", err)))
        return rc;
    sqlite3_bind_int64(st, 1, new_run);
    sqlite3_bind_int64(st, 2, run_id);
    rc = ma_audit_step_done(a, st, "claim run", err);
    if (rc == MA_OK && sqlite3_changes(ma_audit_db(a)) != 1)
        rc = ma_error_set(err, MA_EEXIST, "%s: run %lld was already continued by another run", ma_audit_path(a),
                          (long long)run_id);
    sqlite3_finalize(st);
    return rc;
}

/* A process of this host that still exists (EPERM: it exists, owned by someone else). */
static int process_alive(int64_t pid)
{
    if (pid <= 0 || pid != (int64_t)(pid_t)pid)
        return 0;
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* "all" -> "every sector"; "sectors:a,b" -> "the sectors " "a,b" (ma_run_meta.selection). */
static const char *selection_words(const char *sel)
{
    return strncmp(sel, "sectors:", 8) ? "every sector" : "the sectors ";
}

static const char *selection_names(const char *sel)
{
    return strncmp(sel, "sectors:", 8) ? "" : sel + 8;
}

int ma_audit_resume_pick(ma_audit *a, const ma_resume_want *w, int64_t *run_id, ma_error *err)
{
    int64_t id = w->run_id;
    int rc = id ? MA_OK : ma_audit_unfinished_run(a, w->database_root, 0, &id, err);
    if (rc)
        return rc;
    sqlite3_stmt *st;
    if ((rc = prep(a, &st,
                   "SELECT kind, database_root, tool_version, options, status, ended_at, continued_by, pid,"
                   " host, (julianday('now') - julianday(heartbeat_at)) * 86400.0, selection"
                   " FROM runs WHERE id = ?",
                   "read run", err)))
        return rc;
    sqlite3_bind_int64(st, 1, id);
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW) {
        rc = s == SQLITE_DONE ? ma_error_set(err, MA_EMISSING, "%s: no run %lld", ma_audit_path(a), (long long)id)
                              : ma_audit_sqlite_error(a, MA_EIO, "read run", err);
        sqlite3_finalize(st);
        return rc;
    }
#define TXT(i) ((const char *)sqlite3_column_text(st, (i)))
    const char *kind = TXT(0), *root = TXT(1), *tool = TXT(2), *options = TXT(3), *status = TXT(4);
    const char *host = TXT(8), *selection = TXT(10);
#undef TXT
    int ended = sqlite3_column_type(st, 5) != SQLITE_NULL;
    int64_t continued_by = sqlite3_column_int64(st, 6), pid = sqlite3_column_int64(st, 7);
    int has_beat = sqlite3_column_type(st, 9) != SQLITE_NULL;
    double age = sqlite3_column_double(st, 9);
    const char *path = ma_audit_path(a);
    long long n = (long long)id;
    if (!kind || strcmp(kind, "verify"))
        rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld is a %s run, not a verify run", path, n, kind ? kind : "?");
    else if (!root || strcmp(root, w->database_root))
        rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld verified %s, not %s", path, n, root ? root : "?",
                          w->database_root);
    else if (!tool || strcmp(tool, w->tool_version))
        rc = ma_error_set(err, MA_EFORMAT,
                          "%s: run %lld was made by millaudit %s, this is %s: results of another checker are "
                          "not carried over",
                          path, n, tool ? tool : "?", w->tool_version);
    else if (!options || strcmp(options, w->options))
        rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld used other options (%s, now %s)", path, n,
                          options ? options : "none", w->options);
    else if (continued_by)
        rc = ma_error_set(err, MA_EEXIST, "%s: run %lld was already continued by run %lld; nothing to resume", path,
                          n, (long long)continued_by);
    else if (ended && (!status || strcmp(status, "interrupted")))
        rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld finished (%s); nothing to resume", path, n,
                          status ? status : "?");
    else if (selection && w->selection && strcmp(selection, w->selection))
        /* a resume continues the same plan: another selection would leave the rest of the old
         * run's sectors unclaimable and mix two plans in one verdict */
        rc = ma_error_set(err, MA_EINVAL,
                          "resume: run %lld checked %s%.400s, this run selects %s%.400s; repeat the run's "
                          "selection (its sectors, or none for every sector)",
                          n, selection_words(selection), selection_names(selection), selection_words(w->selection),
                          selection_names(w->selection));
    else if (!ended) {
        int same_host = host && w->host && !strcmp(host, w->host);
        if (same_host && pid > 0 && process_alive(pid))
            rc = ma_error_set(err, MA_EEXIST, "%s: run %lld is still in progress (process %lld on %s); nothing to resume",
                              path, n, (long long)pid, host);
        else if (!(same_host && pid > 0) && has_beat && age < (double)w->stale_seconds)
            rc = ma_error_set(err, MA_EEXIST,
                              "%s: run %lld is still in progress (on %s, last heartbeat %.0f s ago; a run is "
                              "taken for dead after %lld s without one); nothing to resume",
                              path, n, host ? host : "an unknown host", age < 0 ? 0.0 : age,
                              (long long)w->stale_seconds);
    }
    sqlite3_finalize(st);
    if (rc == MA_OK)
        *run_id = id;
    return rc;
}

int ma_audit_run_identity(ma_audit *a, int64_t run_id, ma_run_identity *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = prep(a, &st,
                  "SELECT kind, database_root, tool_version, options, status, ended_at FROM runs"
                  " WHERE id = ?",
                  "read run", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    int s = sqlite3_step(st);
    if (s == SQLITE_ROW) {
        out->kind = ma_audit_col_dup(st, 0, NULL);
        out->database_root = ma_audit_col_dup(st, 1, NULL);
        out->tool_version = ma_audit_col_dup(st, 2, NULL);
        out->options = ma_audit_col_dup(st, 3, NULL);
        out->status = ma_audit_col_dup(st, 4, NULL);
        out->ended_at = ma_audit_col_dup(st, 5, NULL);
    } else if (s == SQLITE_DONE) {
        rc = ma_error_set(err, MA_EMISSING, "%s: no run %lld", ma_audit_path(a), (long long)run_id);
    } else {
        rc = ma_audit_sqlite_error(a, MA_EIO, "read run", err);
    }
    sqlite3_finalize(st);
    return rc;
}

void ma_run_identity_free(ma_run_identity *id)
{
    free(id->kind);
    free(id->database_root);
    free(id->tool_version);
    free(id->options);
    free(id->status);
    free(id->ended_at);
    memset(id, 0, sizeof *id);
}

void ma_carry_candidates_free(ma_carry_candidate *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++) {
        free(c[i].sector);
        for (size_t k = 0; k < c[i].n_inputs; k++) {
            free(c[i].input_path[k]);
            free(c[i].input_sha256[k]);
        }
        free(c[i].input_path);
        free(c[i].input_sha256);
    }
    free(c);
}

static int load_inputs(ma_audit *a, sqlite3_stmt *st, ma_carry_candidate *c, ma_error *err)
{
    sqlite3_bind_int64(st, 1, c->run_id);
    ma_audit_bind_text(st, 2, c->sector);
    size_t cap = 0;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        if (c->n_inputs == cap) {
            cap = cap ? 2 * cap : 8;
            char **p = realloc(c->input_path, cap * sizeof *p);
            char **q = p ? realloc(c->input_sha256, cap * sizeof *q) : NULL;
            if (p)
                c->input_path = p;
            if (!p || !q) {
                sqlite3_reset(st);
                return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
            }
            c->input_sha256 = q;
        }
        c->input_path[c->n_inputs] = ma_audit_col_dup(st, 0, NULL);
        c->input_sha256[c->n_inputs] = ma_audit_col_dup(st, 1, NULL);
        c->n_inputs++;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (s != SQLITE_DONE)
        return ma_audit_sqlite_error(a, MA_EIO, "read sector inputs", err);
    return MA_OK;
}

int ma_audit_carry_candidates(ma_audit *a, const char *database_root, const char *tool_version,
                              const char *options, int64_t only_run, int64_t exclude_run,
                              ma_carry_candidate **out, size_t *n, ma_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st, *in;
    /* newest row per sector: rows ordered by sector, then run descending; the first of each wins */
    int rc = prep(a, &st,
                  "SELECT s.run_id, COALESCE(s.carried_from, s.run_id), s.sector"
                  " FROM sector_results s JOIN runs r ON r.id = s.run_id"
                  " WHERE r.kind = 'verify' AND r.database_root = ? AND r.tool_version = ?"
                  " AND r.options = ? AND r.id <> ? AND (? = 0 OR r.id = ?)"
                  " AND s.status NOT IN ('unusable', 'damaged', 'input-damaged')"
                  " AND EXISTS (SELECT 1 FROM sector_discrepancy_sets d"
                  "             WHERE d.run_id = s.run_id AND d.sector = s.sector)"
                  " ORDER BY s.sector, s.run_id DESC",
                  "find carry-over candidates", err);
    if (rc)
        return rc;
    if ((rc = prep(a, &in, "SELECT path, sha256 FROM sector_inputs WHERE run_id = ? AND sector = ?"
                           " ORDER BY path",
                   "read sector inputs", err))) {
        sqlite3_finalize(st);
        return rc;
    }
    ma_audit_bind_text(st, 1, database_root);
    ma_audit_bind_text(st, 2, tool_version);
    ma_audit_bind_text(st, 3, options);
    sqlite3_bind_int64(st, 4, exclude_run);
    sqlite3_bind_int64(st, 5, only_run);
    sqlite3_bind_int64(st, 6, only_run);
    ma_carry_candidate *list = NULL;
    size_t cnt = 0, cap = 0;
    int s;
    while (rc == MA_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sector = (const char *)sqlite3_column_text(st, 2);
        if (cnt && sector && !strcmp(list[cnt - 1].sector, sector))
            continue; /* an older result of the same sector */
        if (cnt == cap) {
            cap = cap ? 2 * cap : 64;
            ma_carry_candidate *p = realloc(list, cap * sizeof *p);
            if (!p) {
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
                break;
            }
            list = p;
        }
        ma_carry_candidate *c = &list[cnt++];
        memset(c, 0, sizeof *c);
        c->run_id = sqlite3_column_int64(st, 0);
        c->checked_in = sqlite3_column_int64(st, 1);
        c->sector = ma_audit_col_dup(st, 2, NULL);
        if (!c->sector)
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
        else
            rc = load_inputs(a, in, c, err);
    }
    if (rc == MA_OK && s != SQLITE_DONE)
        rc = ma_audit_sqlite_error(a, MA_EIO, "find carry-over candidates", err);
    sqlite3_finalize(st);
    sqlite3_finalize(in);
    if (rc) {
        ma_carry_candidates_free(list, cnt);
        return rc;
    }
    *out = list;
    *n = cnt;
    return MA_OK;
}

int ma_audit_sector_carry(ma_audit *a, int64_t to_run, int64_t from_run, int64_t checked_in,
                          const char *sector, ma_error *err)
{
    int rc = ma_audit_writable(a, err);
    if (rc)
        return rc;
    /* Each statement copies one table's rows of the sector; ?1 = to, ?2 = from, ?3 = sector,
     * ?4 = the run that checked it. */
    static const char *const copies[] = {
        "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified, within_bounds,"
        " discrepancies, seconds, status, message, carried_from, format, canonical, markers, roots,"
        " propagated, missing_child, unverifiable, bound_wins, body_digest)"
        " SELECT ?1, sector, file, entries, checked, verified, within_bounds, discrepancies, seconds,"
        " status, message, ?4, format, canonical, markers, roots, propagated, missing_child,"
        " unverifiable, bound_wins, body_digest FROM sector_results WHERE run_id = ?2 AND sector = ?3",
        "INSERT INTO sector_class_counts (run_id, sector, class, count)"
        " SELECT ?1, sector, class, count FROM sector_class_counts WHERE run_id = ?2 AND sector = ?3",
        "INSERT INTO discrepancies (run_id, sector, entry, board, stored, derived, class, root,"
        " offset, move, successor, stored_outcome, stored_depth, derived_outcome, derived_depth,"
        " derived_bound)"
        " SELECT ?1, sector, entry, board, stored, derived, class, root, offset, move, successor,"
        " stored_outcome, stored_depth, derived_outcome, derived_depth, derived_bound"
        " FROM discrepancies WHERE run_id = ?2 AND sector = ?3 ORDER BY id",
        "INSERT INTO sector_digests (run_id, sector, derived_sha256, derived_positions)"
        " SELECT ?1, sector, derived_sha256, derived_positions FROM sector_digests"
        " WHERE run_id = ?2 AND sector = ?3",
        "INSERT INTO sector_histograms (run_id, sector, outcome, depth, count)"
        " SELECT ?1, sector, outcome, depth, count FROM sector_histograms"
        " WHERE run_id = ?2 AND sector = ?3",
        "INSERT INTO sector_inputs (run_id, sector, path, sha256)"
        " SELECT ?1, sector, path, sha256 FROM sector_inputs WHERE run_id = ?2 AND sector = ?3",
        "INSERT INTO sector_discrepancy_sets (run_id, sector, count, entries, fixed_count,"
        " fixed_entries)"
        " SELECT ?1, sector, count, entries, fixed_count, fixed_entries FROM sector_discrepancy_sets"
        " WHERE run_id = ?2 AND sector = ?3",
    };
    char what[200];
    snprintf(what, sizeof what, "run %lld: sector %s: carry over from run %lld", (long long)to_run,
             sector, (long long)from_run);
    rc = ma_audit_tx_begin(a, err);
    for (size_t i = 0; rc == MA_OK && i < sizeof copies / sizeof *copies; i++) {
        sqlite3_stmt *st;
        if ((rc = prep(a, &st, copies[i], what, err)))
            break;
        sqlite3_bind_int64(st, 1, to_run);
        sqlite3_bind_int64(st, 2, from_run);
        ma_audit_bind_text(st, 3, sector);
        sqlite3_bind_int64(st, 4, checked_in);
        rc = ma_audit_step_done(a, st, what, err);
        if (rc == MA_OK && i == 0 && sqlite3_changes(ma_audit_db(a)) != 1)
            rc = ma_error_set(err, MA_EMISSING, "%s: run %lld has no result for sector %s",
                              ma_audit_path(a), (long long)from_run, sector);
        sqlite3_finalize(st);
    }
    if (rc == MA_OK)
        return ma_audit_tx_commit(a, err);
    ma_audit_tx_rollback(a);
    return rc;
}

/* Reads one of a sector's sets: fixed 0 the discrepancy set, 1 the rule-fixed roots (v6). */
static int read_set(ma_audit *a, int64_t run_id, const char *sector, int fixed, uint64_t **entries,
                    size_t *n, int *recorded, ma_error *err)
{
    *entries = NULL;
    *n = 0;
    if (recorded)
        *recorded = 0;
    sqlite3_stmt *st;
    int rc = prep(a, &st,
                  fixed ? "SELECT d.fixed_count, d.fixed_entries FROM sector_results s LEFT JOIN"
                          " sector_discrepancy_sets d ON d.run_id = s.run_id AND d.sector = s.sector"
                          " WHERE s.run_id = ? AND s.sector = ?"
                        : "SELECT d.count, d.entries FROM sector_results s LEFT JOIN sector_discrepancy_sets d"
                          " ON d.run_id = s.run_id AND d.sector = s.sector WHERE s.run_id = ? AND s.sector = ?",
                  "read discrepancy set", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    int s = sqlite3_step(st);
    if (s == SQLITE_DONE) {
        rc = ma_error_set(err, MA_EMISSING, "%s: run %lld has no result for sector %s",
                          ma_audit_path(a), (long long)run_id, sector);
    } else if (s != SQLITE_ROW) {
        rc = ma_audit_sqlite_error(a, MA_EIO, "read discrepancy set", err);
    } else if (sqlite3_column_type(st, 0) != SQLITE_NULL) {
        if (recorded)
            *recorded = 1;
        int64_t count = sqlite3_column_int64(st, 0);
        const unsigned char *blob = sqlite3_column_blob(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        if (count < 0 || (uint64_t)count > len) {
            rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector %s: discrepancy set damaged",
                              ma_audit_path(a), (long long)run_id, sector);
        } else if (count > 0) {
            uint64_t *e = malloc((size_t)count * sizeof *e);
            if (!e)
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
            else if (decode_set(blob, len, (size_t)count, e)) {
                free(e);
                rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector %s: discrepancy set damaged",
                                  ma_audit_path(a), (long long)run_id, sector);
            } else {
                *entries = e;
                *n = (size_t)count;
            }
        }
    }
    sqlite3_finalize(st);
    return rc;
}

int ma_audit_sector_discrepancy_set(ma_audit *a, int64_t run_id, const char *sector,
                                    uint64_t **entries, size_t *n, ma_error *err)
{
    return read_set(a, run_id, sector, 0, entries, n, NULL, err);
}

int ma_audit_sector_fixed_set(ma_audit *a, int64_t run_id, const char *sector, uint64_t **entries,
                              size_t *n, int *recorded, ma_error *err)
{
    return read_set(a, run_id, sector, 1, entries, n, recorded, err);
}

void ma_audit_inputs_free(char **paths, char **sha256, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(paths ? paths[i] : NULL);
        free(sha256 ? sha256[i] : NULL);
    }
    free(paths);
    free(sha256);
}

int ma_audit_sector_inputs(ma_audit *a, int64_t run_id, const char *sector, char ***paths,
                           char ***sha256, size_t *n, ma_error *err)
{
    *paths = NULL;
    *sha256 = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = prep(a, &st, "SELECT path, sha256 FROM sector_inputs WHERE run_id = ? AND sector = ?"
                          " ORDER BY path",
                  "read sector inputs", err);
    if (rc)
        return rc;
    ma_carry_candidate c;
    memset(&c, 0, sizeof c);
    c.run_id = run_id;
    c.sector = (char *)sector;
    rc = load_inputs(a, st, &c, err);
    sqlite3_finalize(st);
    if (rc) {
        ma_audit_inputs_free(c.input_path, c.input_sha256, c.n_inputs);
        return rc;
    }
    *paths = c.input_path;
    *sha256 = c.input_sha256;
    *n = c.n_inputs;
    return MA_OK;
}

/* ---- reading one sector back ---- */

static int64_t col_i64(sqlite3_stmt *st, int i, int64_t null_value)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? null_value : sqlite3_column_int64(st, i);
}

void ma_sector_readback_free(ma_sector_readback *r)
{
    free(r->file);
    free(r->status);
    free(r->message);
    free(r->format);
    free(r->digest);
    free(r->body_digest);
    for (size_t i = 0; i < r->n_classes; i++)
        free(r->class_name[i]);
    free(r->class_name);
    free(r->class_count);
    for (size_t i = 0; i < r->n_bins; i++)
        free(r->bin_outcome[i]);
    free(r->bin_outcome);
    free(r->bin_depth);
    free(r->bin_count);
    for (size_t i = 0; i < r->n_rows; i++) {
        ma_readback_row *w = &r->rows[i];
        free(w->board);
        free(w->stored);
        free(w->derived);
        free(w->cls);
        free(w->move);
        free(w->successor);
        free(w->stored_outcome);
        free(w->derived_outcome);
        free(w->derived_bound);
    }
    free(r->rows);
    memset(r, 0, sizeof *r);
}

/* Runs st (bound) and calls each(row) for every row; counts rows into *n. */
static int count_rows(ma_audit *a, const char *sql, int64_t run_id, const char *sector, size_t *n,
                      ma_error *err)
{
    sqlite3_stmt *st;
    int rc = prep(a, &st, sql, "read sector", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    *n = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        *n = (size_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return MA_OK;
}

int ma_audit_sector_read(ma_audit *a, int64_t run_id, const char *sector, size_t max_rows,
                         ma_sector_readback *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = prep(a, &st,
                  "SELECT s.file, s.status, s.message, s.format, d.derived_sha256, s.entries, s.checked,"
                  " s.verified, s.within_bounds, s.discrepancies, s.canonical, s.markers, s.roots,"
                  " s.propagated, s.missing_child, s.unverifiable, s.bound_wins, d.derived_positions,"
                  " s.carried_from, s.seconds, s.body_digest FROM sector_results s LEFT JOIN sector_digests d"
                  " ON d.run_id = s.run_id AND d.sector = s.sector WHERE s.run_id = ? AND s.sector = ?",
                  "read sector", err);
    if (rc)
        return rc;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    int s = sqlite3_step(st);
    if (s != SQLITE_ROW) {
        rc = s == SQLITE_DONE ? ma_error_set(err, MA_EMISSING, "%s: run %lld has no result for sector %s",
                                             ma_audit_path(a), (long long)run_id, sector)
                              : ma_audit_sqlite_error(a, MA_EIO, "read sector", err);
        sqlite3_finalize(st);
        return rc;
    }
    out->file = ma_audit_col_dup(st, 0, NULL);
    out->status = ma_audit_col_dup(st, 1, NULL);
    out->message = ma_audit_col_dup(st, 2, NULL);
    out->format = ma_audit_col_dup(st, 3, NULL);
    out->digest = ma_audit_col_dup(st, 4, NULL);
    int64_t *dst[] = {&out->entries, &out->checked, &out->verified, &out->within_bounds,
                      &out->discrepancies, &out->canonical, &out->markers, &out->roots,
                      &out->propagated, &out->missing_child, &out->unverifiable, &out->bound_wins,
                      &out->digest_positions, &out->carried_from};
    for (int i = 0; i < 14; i++)
        *dst[i] = col_i64(st, 5 + i, 0);
    out->seconds = sqlite3_column_double(st, 19);
    out->body_digest = ma_audit_col_dup(st, 20, NULL);
    sqlite3_finalize(st);

    size_t n = 0;
    if ((rc = count_rows(a, "SELECT count(*) FROM sector_class_counts WHERE run_id = ? AND sector = ?",
                         run_id, sector, &n, err)))
        goto fail;
    out->class_name = calloc(n ? n : 1, sizeof *out->class_name);
    out->class_count = calloc(n ? n : 1, sizeof *out->class_count);
    if (!out->class_name || !out->class_count)
        goto nomem;
    if ((rc = prep(a, &st, "SELECT class, count FROM sector_class_counts WHERE run_id = ? AND sector = ?"
                           " ORDER BY class", "read sector classes", err)))
        goto fail;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    while (out->n_classes < n && sqlite3_step(st) == SQLITE_ROW) {
        out->class_name[out->n_classes] = ma_audit_col_dup(st, 0, NULL);
        out->class_count[out->n_classes++] = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);

    if ((rc = count_rows(a, "SELECT count(*) FROM sector_histograms WHERE run_id = ? AND sector = ?",
                         run_id, sector, &n, err)))
        goto fail;
    out->bin_outcome = calloc(n ? n : 1, sizeof *out->bin_outcome);
    out->bin_depth = calloc(n ? n : 1, sizeof *out->bin_depth);
    out->bin_count = calloc(n ? n : 1, sizeof *out->bin_count);
    if (!out->bin_outcome || !out->bin_depth || !out->bin_count)
        goto nomem;
    if ((rc = prep(a, &st, "SELECT outcome, depth, count FROM sector_histograms WHERE run_id = ?"
                           " AND sector = ? ORDER BY outcome, depth", "read sector histogram", err)))
        goto fail;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    while (out->n_bins < n && sqlite3_step(st) == SQLITE_ROW) {
        out->bin_outcome[out->n_bins] = ma_audit_col_dup(st, 0, NULL);
        out->bin_depth[out->n_bins] = sqlite3_column_int64(st, 1);
        out->bin_count[out->n_bins++] = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);

    if ((rc = count_rows(a, "SELECT count(*) FROM discrepancies WHERE run_id = ? AND sector = ?",
                         run_id, sector, &n, err)))
        goto fail;
    if (n > max_rows)
        n = max_rows;
    out->rows = calloc(n ? n : 1, sizeof *out->rows);
    if (!out->rows)
        goto nomem;
    if ((rc = prep(a, &st, "SELECT entry, offset, root, board, stored, derived, class, move, successor,"
                           " stored_outcome, stored_depth, derived_outcome, derived_depth, derived_bound"
                           " FROM discrepancies WHERE run_id = ? AND sector = ? ORDER BY id",
                   "read discrepancies", err)))
        goto fail;
    sqlite3_bind_int64(st, 1, run_id);
    ma_audit_bind_text(st, 2, sector);
    while (out->n_rows < n && sqlite3_step(st) == SQLITE_ROW) {
        ma_readback_row *w = &out->rows[out->n_rows++];
        w->entry = sqlite3_column_int64(st, 0);
        w->offset = col_i64(st, 1, -1);
        w->root = (int)col_i64(st, 2, -1);
        w->board = ma_audit_col_dup(st, 3, NULL);
        w->stored = ma_audit_col_dup(st, 4, NULL);
        w->derived = ma_audit_col_dup(st, 5, NULL);
        w->cls = ma_audit_col_dup(st, 6, NULL);
        w->move = ma_audit_col_dup(st, 7, NULL);
        w->successor = ma_audit_col_dup(st, 8, NULL);
        w->stored_outcome = ma_audit_col_dup(st, 9, NULL);
        w->stored_depth = col_i64(st, 10, -1);
        w->derived_outcome = ma_audit_col_dup(st, 11, NULL);
        w->derived_depth = col_i64(st, 12, -1);
        w->derived_bound = ma_audit_col_dup(st, 13, NULL);
    }
    sqlite3_finalize(st);
    return MA_OK;
nomem:
    rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_audit_path(a));
fail:
    ma_sector_readback_free(out);
    return rc;
}
