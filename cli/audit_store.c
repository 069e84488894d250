#include "cli/audit_store.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/options.h"

int ma_cli_audit_open_existing(ma_audit **a, const char *path, ma_error *err)
{
    /* Read-only, always: a reader never creates, migrates or writes a store (an older schema is
     * read through a migrated private copy, reports/store/audit.h). */
    return ma_audit_open_readonly(a, path, err);
}

int ma_cli_parse_run_id(const char *s, int64_t *id)
{
    long v;
    if (ma_opt_parse_long(s, 1, LONG_MAX, &v)) /* the one integer parser, common/options.h */
        return -1;
    *id = v;
    return 0;
}
