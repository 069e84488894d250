#include "cli/audit_store.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/manifest.h" /* ma_cli_record_read_files only: see the note there */
#include "common/options.h"

int ma_cli_audit_open_existing(ma_audit **a, const char *path, ma_error *err)
{
    /* Read-only, always: a reader never creates, migrates or writes a store (an older schema is
     * read through a migrated private copy, store/audit.h). */
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

/* Note: the one function of cli/ that still reaches a library header (checksums/manifest.h) rather
 * than millaudit.h: recording a manifest is the manifest engine's (helper "manifest" makes
 * ma_manifest_record public, then this becomes a call of it, or cmd_opening calls it itself). */
int ma_cli_record_read_files(ma_audit *a, int64_t run_id, const char *dir, const char *const *paths, size_t n,
                             ma_error *err)
{
    if (!n)
        return MA_OK;
    const char **rel = calloc(n, sizeof *rel);
    if (!rel)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", dir);
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/');
        rel[i] = slash ? slash + 1 : paths[i];
    }
    ma_sha256_options opt = {0};
    int rc = ma_manifest_record(a, run_id, dir, rel, n, &opt, err);
    free(rel);
    return rc;
}
