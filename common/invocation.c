/* The command line as typed, quoted for a shell, and the host it ran on (common/invocation.h). */
#include "common/invocation.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
