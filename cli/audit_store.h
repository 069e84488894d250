/* audit_store: how the commands that read an audit store (report, runs) open it and name a run,
 * so both accept the same stores and the same run ids.
 *
 * Contract: ma_cli_audit_open_existing opens the store at path for reading; it never creates a
 * store (a missing path is MA_EMISSING with a message naming it). A store of an older schema is
 * migrated once when the file is writable; a foreign or corrupt file is left untouched. Returns 0
 * with *a set, or a negative MA_E* code with err filled.
 * ma_cli_parse_run_id accepts a whole decimal number >= 1 (no sign, no trailing text); returns 0
 * with *id set, or -1 leaving *id alone. */
#ifndef MA_CLI_AUDIT_STORE_H
#define MA_CLI_AUDIT_STORE_H

#include <stdint.h>

#include "common/ma_error.h"
#include "reports/audit.h"

int ma_cli_audit_open_existing(ma_audit **a, const char *path, ma_error *err);

int ma_cli_parse_run_id(const char *s, int64_t *id);

#endif
