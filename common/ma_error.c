/* ma_error: one-line error messages carried up to the CLI. */
#include "common/ma_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ma_error_set(ma_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        /* A message is one line by contract; embedded newlines would break log parsing. */
        for (char *p = err->msg; *p; p++)
            if (*p == '\n' || *p == '\r')
                *p = ' ';
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
    default: return "unknown";
    }
}
