/*
 * millaudit/error.h: part of the public API (millaudit.h): how every function reports failure,
 * the exit statuses of the command, and MA_API.
 *
 * Library functions never print and never exit. They return MA_OK (0) or one of the negative MA_E*
 * codes below, and fill a caller-owned ma_error with a one-line message that already names the
 * file, sector and byte offset where that applies, in the library's words (the options fields, not
 * the command's options). Only a program (the millaudit command) turns a code into an exit status
 * (ma_exit_code_for) and prints the message.
 */
#ifndef MILLAUDIT_ERROR_H
#define MILLAUDIT_ERROR_H

#include <stddef.h>

/* Marks a function of the public API: the shared library libmillaudit exports these and nothing
 * else (it is compiled with -fvisibility=hidden), so a program cannot come to depend on an internal
 * function that may change. */
#if defined(__GNUC__)
#define MA_API __attribute__((visibility("default")))
#else
#define MA_API
#endif

#if defined(__GNUC__)
#define MA_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define MA_PRINTF_LIKE(f, a)
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MA_OK = 0,
    MA_EINVAL = -1,   /* bad argument from the caller: unknown variant, impossible sector, bad flag,
                       * a handle used twice */
    MA_EFORMAT = -2,  /* input exists but is malformed: bad magic, truncated, size mismatch */
    MA_EMISSING = -3, /* a needed input is absent: child sector, file, manifest entry */
    MA_EIO = -4,      /* the operating system refused: cannot read, write, rename, mmap */
    MA_ENOMEM = -5,   /* allocation failed */
    MA_EEXIST = -6,   /* refusing to overwrite or trust something already there (partial file) */
    MA_EINTERNAL = -7, /* an invariant of our own code broke; always a bug */
    MA_ECANCELED = -8, /* the caller asked the work to stop (SIGINT / SIGTERM); nothing is wrong */
    MA_EUSAGE = -9     /* the request cannot be understood as given (exit status 2) */
};

/* The command's exit statuses. Distinct so scripts can tell "the data is wrong" from "could not
 * check". */
enum {
    MA_EXIT_OK = 0,          /* everything checked and matched */
    MA_EXIT_MISMATCH = 1,    /* discrepancies found (in intact files), digests differ (manifest check,
                              * attest verify), values differ */
    MA_EXIT_USAGE = 2,       /* command line not understood */
    MA_EXIT_BAD_INPUT = 3,   /* input unusable: malformed, missing, impossible sector, other variant;
                              * a damaged download (verify's verdict damaged: fetch it again) */
    MA_EXIT_IO = 4,          /* output could not be written */
    MA_EXIT_INTERNAL = 5,    /* bug or out of memory */
    MA_EXIT_PARTIAL = 6      /* a claim about part of a database holds: it proves the sectors it
                              * names, given the inputs it read but did not check, not the
                              * database (a verified statement of some sectors; an attestation
                              * of such a run refused without allow_partial) */
};
/* 130, 143: interrupted by SIGINT / SIGTERM (128 + the signal). millaudit(1) EXIT STATUS and
 * README.md "Exit codes" are this table for users (tests/integration/test_cli.py keeps README's
 * equal to it). */

typedef struct ma_error {
    int code;        /* the MA_E* code of the last failure, MA_OK if none */
    char msg[512];   /* one line, no trailing newline */
} ma_error;

/* Records code and a printf-style message in err (if non-NULL) and returns code, so callers can
 * write `return ma_error_set(err, MA_EFORMAT, "%s: ...", path);`. */
MA_API int ma_error_set(ma_error *err, int code, const char *fmt, ...) MA_PRINTF_LIKE(3, 4);

/* The one escaping function of every message: copies text into buf (size len), control characters
 * and DEL as \n, \r, \t, \xNN, and backslash as \\ when escape_backslash (a name shown alone, so
 * the escape is unambiguous); without it, text already escaped passes unchanged (ma_error_set
 * runs every message through it so). Always NUL-terminates; cuts at len - 1 bytes. Returns buf. */
MA_API char *ma_escape_text(const char *text, char *buf, size_t len, int escape_backslash);

/* Resets err to "no error". */
MA_API void ma_error_clear(ma_error *err);

/* Maps an MA_E* code to the exit status that reports it. */
MA_API int ma_exit_code_for(int code);

/* A short stable name for an MA_E* code ("format", "missing", ...), used in JSON and SQLite. */
MA_API const char *ma_error_name(int code);

/* Frees a buffer the library allocated for the caller (rendered documents, paths); NULL is
 * accepted. Use it rather than free() so a program built with another C runtime or allocator
 * (a C++ program, Python's ctypes) returns memory to the allocator that gave it. */
MA_API void ma_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
