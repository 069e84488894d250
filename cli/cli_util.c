#include "cli/cli_util.h"

#include "millaudit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/audit_store.h"
#include "common/fileio.h"
#include "common/output.h"

int ma_cli_parse_shard(const char *text, unsigned *index, unsigned *count)
{
    const char *slash = strchr(text, '/');
    if (!slash || slash - text > 6 || strlen(slash + 1) > 6)
        return -1;
    char head[8];
    memcpy(head, text, (size_t)(slash - text));
    head[slash - text] = 0;
    long i, n; /* the one integer parser (common/options.h): digits only */
    if (ma_opt_parse_long(slash + 1, 1, 100000, &n) || ma_opt_parse_long(head, 0, n - 1, &i))
        return -1;
    *index = (unsigned)i;
    *count = (unsigned)n;
    return 0;
}

int ma_cli_output_result(const char *cmd, const char *out_path, const char *role, int kind,
                         const struct ma_output_input *inputs, size_t n)
{
    if (!out_path)
        return MA_OK;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_output_check(out_path, role, kind, inputs, n, &err);
    if (!rc)
        return MA_OK;
    fprintf(stderr, "millaudit %s: %s\n", cmd, err.msg);
    return rc == MA_EINVAL ? MA_EUSAGE : rc;
}

int ma_cli_unknown_action(const char *cmd, const char *what, const char *word, const char *const *actions,
                          size_t n)
{
    char near[256], list[256];
    size_t used = 0;
    list[0] = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", actions[i]);
    ma_opt_suggest(near, sizeof near, word, actions, n, "");
    char shown[128];
    ma_escape_name(word, shown, sizeof shown);
    if (near[0])
        return ma_opt_error(cmd, "unknown %s '%s'; did you mean %s?", what, shown, near);
    return ma_opt_error(cmd, "unknown %s '%s' (%s)", what, shown, list);
}

int ma_cli_opt_run_id(const char *cmd, const char *opt, const char *text, int64_t *id)
{
    if (ma_cli_parse_run_id(text, id))
        return ma_opt_error(cmd, "%s %s: not a run id (a positive integer)", opt, text);
    return MA_OK;
}

int ma_cli_write_document(const char *out_path, const char *text, size_t len, ma_error *err)
{
    if (out_path)
        return ma_render_write_atomic(out_path, text, len, err) ? MA_EIO : MA_OK;
    errno = 0;
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return ma_error_set(err, MA_EIO, "standard output: write failed: %s",
                            errno ? strerror(errno) : "an earlier write failed");
    return MA_OK;
}

int ma_cli_stdout_flush(const char *cmd)
{
    ma_error err;
    if (ma_output_stdout_check(&err) == MA_OK)
        return MA_OK;
    fprintf(stderr, "millaudit %s: %s\n", cmd, err.msg);
    return MA_EIO;
}
