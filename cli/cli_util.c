#include "cli/cli_util.h"

#include "millaudit.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/audit_store.h"
#include "common/fileio.h"
#include "common/json_text.h"
#include "common/output.h"

int ma_cli_shell_quote(char *buf, size_t len, const char *word)
{
    size_t at = strlen(buf), o = at;
    int plain = *word != '\0', control = 0;
    for (const unsigned char *p = (const unsigned char *)word; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              strchr("_@%+=:,./-", *p)))
            plain = 0;
        if (*p < 0x20 || *p == 0x7f)
            control = 1;
    }
/* Appends one byte, giving up (and restoring buf) when it does not fit with its NUL. */
#define PUT(c)                                                                                     \
    do {                                                                                           \
        if (o + 1 >= len) {                                                                        \
            buf[at] = '\0';                                                                        \
            return -1;                                                                             \
        }                                                                                          \
        buf[o++] = (char)(c);                                                                      \
    } while (0)
    if (plain) {
        for (const char *p = word; *p; p++)
            PUT(*p);
    } else if (control) {
        static const char hex[] = "0123456789abcdef";
        PUT('$');
        PUT('\'');
        for (const unsigned char *p = (const unsigned char *)word; *p; p++) {
            if (*p < 0x20 || *p == 0x7f) {
                PUT('\\');
                PUT('x');
                PUT(hex[*p >> 4]);
                PUT(hex[*p & 15]);
            } else {
                if (*p == '\'' || *p == '\\')
                    PUT('\\');
                PUT(*p);
            }
        }
        PUT('\'');
    } else {
        PUT('\'');
        for (const char *p = word; *p; p++) {
            if (*p == '\'') {
                PUT('\'');
                PUT('\\');
                PUT('\'');
                PUT('\'');
            } else {
                PUT(*p);
            }
        }
        PUT('\'');
    }
#undef PUT
    buf[o] = '\0';
    return 0;
}

void ma_cli_run_identity(char *host, size_t host_len, char *cmdline, size_t cmdline_len, int argc,
                         char *const *argv)
{
    snprintf(host, host_len, "unknown");
    /* gethostname may leave the name unterminated when it is cut, hence the explicit NUL. */
    gethostname(host, host_len);
    host[host_len - 1] = 0;
    snprintf(cmdline, cmdline_len, "millaudit");
    /* Room for " ..." is kept back so a cut line can say so. */
    size_t room = cmdline_len > 5 ? cmdline_len - 4 : cmdline_len;
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(cmdline);
        if (l + 2 >= room || (cmdline[l] = ' ', cmdline[l + 1] = '\0', ma_cli_shell_quote(cmdline, room, argv[i]))) {
            cmdline[l] = '\0';
            if (cmdline_len > 5)
                strcat(cmdline, " ...");
            return;
        }
    }
}

json_t *ma_cli_json_text(const char *s)
{
    return ma_json_text(s); /* the one escaper, common/json_text.h */
}

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

int ma_cli_read_document(const char *path, size_t max, const char *what, char **out, size_t *len, ma_error *err)
{
    int fd;
    *out = NULL;
    *len = 0;
    int rc = ma_file_open_stream(path, &fd, err);
    if (rc)
        return rc;
    char shown[512];
    ma_escape_name(path, shown, sizeof shown);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= max) {
                rc = ma_error_set(err, MA_EFORMAT, "%s: offset %zu: larger than %zu bytes, %s", shown, n, max, what);
                break;
            }
            cap = cap ? 2 * cap : 65536;
            if (cap > max)
                cap = max;
            char *p = realloc(buf, cap + 1);
            if (!p) {
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", shown);
                break;
            }
            buf = p;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %zu: read failed: %s", shown, n, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    if (!buf && !(buf = malloc(1))) /* an empty document is still a string */
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", shown);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return MA_OK;
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

int ma_cli_check_output(const char *cmd, const char *out_path, const char *role, int kind,
                        const struct ma_output_input *inputs, size_t n)
{
    int result = ma_cli_output_result(cmd, out_path, role, kind, inputs, n);
    return result ? ma_result_exit_code(result) : 0;
}

int ma_cli_opt_run_id(const char *cmd, const char *opt, const char *text, int64_t *id)
{
    if (ma_cli_parse_run_id(text, id))
        return MA_CLI_USAGE(cmd, "%s %s: not a run id (a positive integer)", opt, text);
    return MA_OK;
}

int ma_cli_write_document(const char *out_path, const char *text, size_t len, ma_error *err)
{
    if (out_path)
        return ma_render_write_atomic(out_path, text, len, err) ? MA_EIO : MA_OK;
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return ma_error_set(err, MA_EIO, "stdout: write failed");
    return MA_OK;
}
