/* audit_store: how the commands that read an audit store (report, runs, attest, grade) open it
 * and name a run, so all accept the same stores and the same run ids.
 *
 * Contract: ma_cli_audit_open_existing opens the store at path for reading only
 * (ma_audit_open_readonly, millaudit/store.h): it never creates, migrates or writes the file (a
 * missing path is MA_EMISSING, an empty file, a foreign or newer one MA_EFORMAT, all naming the
 * path; a store of an older schema is read through a migrated private copy). Returns 0 with *a
 * set, or a negative MA_E* code with err filled.
 * ma_cli_parse_run_id accepts a whole decimal number >= 1 (no sign, no trailing text); returns 0
 * with *id set, or -1 leaving *id alone.
 * ma_cli_record_read_files records into run run_id the manifest (SHA-256 per file and per chunk,
 * checksums/manifest.h) of the files a command read: paths[i] are files inside dir, recorded by
 * their name relative to dir. Returns 0 or the recording's MA_E* code with err filled. */
#ifndef MA_CLI_AUDIT_STORE_H
#define MA_CLI_AUDIT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit.h"

int ma_cli_audit_open_existing(ma_audit **a, const char *path, ma_error *err);

int ma_cli_parse_run_id(const char *s, int64_t *id);

int ma_cli_record_read_files(ma_audit *a, int64_t run_id, const char *dir, const char *const *paths, size_t n,
                             ma_error *err);

#endif
