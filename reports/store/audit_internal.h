/*
 * Helpers shared by the files of reports/store/ that write to an audit store (audit.c owns the
 * connection and the schema; audit_manifest.c adds the manifest tables' writers and readers).
 * Not part of the public API: nothing outside reports/store/ includes this.
 */
#ifndef MA_AUDIT_INTERNAL_H
#define MA_AUDIT_INTERNAL_H

#include <stdint.h>

#include <sqlite3.h>

#include "reports/store/audit.h"

sqlite3 *ma_audit_db(ma_audit *a);
const char *ma_audit_path(const ma_audit *a);

/* MA_OK for a store opened for writing, else MA_EINVAL naming it. */
int ma_audit_writable(ma_audit *a, ma_error *err);

/* Fills err with "<path>: <what>: <sqlite message>" and returns code. */
int ma_audit_sqlite_error(ma_audit *a, int code, const char *what, ma_error *err);

/* One API call = one transaction: begin (write lock taken at once), commit, rollback if open. */
int ma_audit_tx_begin(ma_audit *a, ma_error *err);
int ma_audit_tx_commit(ma_audit *a, ma_error *err);
void ma_audit_tx_rollback(ma_audit *a);

/* Binds s, or NULL when s is NULL. */
int ma_audit_bind_text(sqlite3_stmt *st, int i, const char *s);
/* Binds v, refusing values above INT64_MAX (MA_EINVAL naming what). */
int ma_audit_bind_u64(ma_audit *a, sqlite3_stmt *st, int i, uint64_t v, const char *what, ma_error *err);
/* Steps st to SQLITE_DONE, then resets it and clears its bindings. Constraint failures are
 * MA_EINVAL (the caller passed a duplicate or dangling row), anything else MA_EIO. */
int ma_audit_step_done(ma_audit *a, sqlite3_stmt *st, const char *what, ma_error *err);

/* True when table has column: how readers, which never migrate, tell which schema version's
 * columns an older store has. A store that cannot answer counts as not having it (the next real
 * query reports why). */
int ma_sqlite_has_column(sqlite3 *db, const char *table, const char *column);

/* Column i of st's current row as a malloc'd string, NULL for SQL NULL. When the copy fails it
 * returns NULL too and sets *oom (oom may be NULL for a caller that treats both alike). The one
 * copy of the store's column reader (audit_internal.c). */
char *ma_audit_col_dup(sqlite3_stmt *st, int i, int *oom);

/* Prepares sql, binds arguments by fmt ('t' text or NULL, 'i' int64, 'd' double, 'n' null: takes
 * an int64 argument and ignores it, so nullable columns keep the argument list fixed), steps to
 * SQLITE_DONE (ma_audit_step_done's errors; what names the statement in messages). */
int ma_audit_exec_bound(ma_audit *a, const char *sql, const char *what, ma_error *err, const char *fmt, ...);

#endif
