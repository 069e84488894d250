/* audit_store: how the commands that read an audit store (report, runs, attest, grade) open it
 * and name a run, so all accept the same stores and the same run ids.
 *
 * Contract: ma_cli_audit_open_existing opens the store at path for reading only
 * (ma_audit_open_readonly, millaudit/store.h): it never creates, migrates or writes the file (a
 * missing path is MA_EMISSING, an empty file, a foreign or newer one MA_EFORMAT, all naming the
 * path; a store of an older schema is read through a migrated private copy). Returns 0 with *a
 * set, or a negative MA_E* code with err filled.
 * ma_cli_parse_run_id accepts a whole decimal number >= 1 (no sign, no trailing text); returns 0
 * with *id set, or -1 leaving *id alone. */
#ifndef MA_CLI_AUDIT_STORE_H
#define MA_CLI_AUDIT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit.h"

int ma_cli_audit_open_existing(ma_audit **a, const char *path, ma_error *err);

int ma_cli_parse_run_id(const char *s, int64_t *id);

#endif
