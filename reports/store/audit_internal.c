/* The helpers every SQL statement of reports/store/ shares (reports/store/audit_internal.h), one copy each. */
#include "reports/store/audit_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

char *ma_audit_col_dup(sqlite3_stmt *st, int i, int *oom)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t)
        return NULL;
    char *s = strdup((const char *)t);
    if (!s && oom)
        *oom = 1;
    return s;
}

int ma_audit_exec_bound(ma_audit *a, const char *sql, const char *what, ma_error *err, const char *fmt, ...)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(ma_audit_db(a), sql, -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, what, err);
    va_list ap;
    va_start(ap, fmt);
    for (int i = 0; fmt[i]; i++) {
        switch (fmt[i]) {
        case 't': ma_audit_bind_text(st, i + 1, va_arg(ap, const char *)); break;
        case 'i': sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t)); break;
        case 'd': sqlite3_bind_double(st, i + 1, va_arg(ap, double)); break;
        default: (void)va_arg(ap, int64_t); sqlite3_bind_null(st, i + 1); break;
        }
    }
    va_end(ap);
    int rc = ma_audit_step_done(a, st, what, err);
    sqlite3_finalize(st);
    return rc;
}
