/* ma_error: one-line error messages carried up to the CLI. */
#include "common/ma_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ma_escape_text(const char *text, char *buf, size_t len, int escape_backslash)
{
    size_t o = 0;
    if (!len)
        return buf;
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        char tmp[8];
        const char *piece = tmp;
        if (*p == '\n')
            piece = "\\n";
        else if (*p == '\r')
            piece = "\\r";
        else if (*p == '\t')
            piece = "\\t";
        else if (*p == '\\' && escape_backslash)
            piece = "\\\\";
        else if (*p < 0x20 || *p == 0x7F)
            snprintf(tmp, sizeof tmp, "\\x%02x", *p);
        else {
            tmp[0] = (char)*p;
            tmp[1] = 0;
        }
        size_t n = strlen(piece);
        if (o + n >= len)
            break;
        memcpy(buf + o, piece, n);
        o += n;
    }
    buf[o] = 0;
    return buf;
}

int ma_error_set(ma_error *err, int code, const char *fmt, ...)
{
    if (err) {
        char raw[sizeof err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* A message is one line by contract and never carries a control character to a terminal
         * or log, whatever a path or a file's bytes hold: every message passes through here, so
         * a path formatted raw by any module is escaped ("\n", "\x1b"); text escaped already
         * (ma_escape_name) holds no control character and stays as it is. */
        ma_escape_text(raw, err->msg, sizeof err->msg, 0);
        err->code = code;
    }
    return code;
}

void ma_error_clear(ma_error *err)
{
    if (err) {
        err->code = MA_OK;
        err->msg[0] = '\0';
    }
}

int ma_exit_code_for(int code)
{
    switch (code) {
    case MA_OK: return MA_EXIT_OK;
    case MA_EINVAL: return MA_EXIT_BAD_INPUT;
    case MA_EFORMAT: return MA_EXIT_BAD_INPUT;
    case MA_EMISSING: return MA_EXIT_BAD_INPUT;
    case MA_EEXIST: return MA_EXIT_BAD_INPUT;
    case MA_EIO: return MA_EXIT_IO;
    case MA_EUSAGE: return MA_EXIT_USAGE;
    default: return MA_EXIT_INTERNAL;
    }
}

const char *ma_error_name(int code)
{
    switch (code) {
    case MA_OK: return "ok";
    case MA_EINVAL: return "invalid";
    case MA_EFORMAT: return "format";
    case MA_EMISSING: return "missing";
    case MA_EIO: return "io";
    case MA_ENOMEM: return "nomem";
    case MA_EEXIST: return "exists";
    case MA_EINTERNAL: return "internal";
    case MA_ECANCELED: return "canceled";
    case MA_EUSAGE: return "usage";
    default: return "unknown";
    }
}

void ma_free(void *p) { free(p); }
