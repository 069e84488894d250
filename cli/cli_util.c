#include "cli/cli_util.h"

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
