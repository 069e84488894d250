#include "cli/cli_util.h"

#include <jansson.h>
#include "formats/source.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ma_cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void ma_cli_run_identity(char *host, size_t host_len, char *cmdline, size_t cmdline_len, int argc,
                         char **argv)
{
    snprintf(host, host_len, "unknown");
    /* gethostname may leave the name unterminated when it is cut, hence the explicit NUL. */
    gethostname(host, host_len);
    host[host_len - 1] = 0;
    snprintf(cmdline, cmdline_len, "millaudit");
    for (int i = 0; i < argc; i++) {
        size_t l = strlen(cmdline);
        snprintf(cmdline + l, cmdline_len - l, " %s", argv[i]);
    }
}

/* Length of the valid UTF-8 sequence at p (1..4), 0 when p does not start one. */
static size_t utf8_len(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 && p[0] < 0xE0 ? 2 : 0;
    if (!n || (n == 4 && p[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0)))
        return 0; /* overlong or a surrogate */
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

json_t *ma_cli_json_text(const char *s)
{
    if (!s)
        return json_string("");
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t n = strlen(s);
    char *buf = malloc(4 * n + 1);
    if (!buf)
        return json_string("");
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t l = utf8_len(p);
        if (l) {
            memcpy(buf + o, p, l);
            o += l;
            p += l;
        } else {
            o += (size_t)snprintf(buf + o, 5, "\\x%02x", *p);
            p++;
        }
    }
    buf[o] = 0;
    j = json_string(buf);
    free(buf);
    return j ? j : json_string("");
}

int ma_cli_malom_database(const char *path)
{
    ma_database *db;
    if (ma_database_open(&db, path, NULL, NULL) != MA_OK)
        return 0;
    ma_format f = ma_database_format(db);
    ma_database_close(db);
    return f == MA_FORMAT_SEC || f == MA_FORMAT_SEC2;
}
