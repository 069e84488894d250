/*
 * ma_error: how library code reports failure.
 *
 * Library functions never print and never exit. They return 0 on success or one of the negative
 * MA_E* codes below, and fill a caller-owned ma_error with a one-line message that already names
 * the file, sector and byte offset where that applies. Only the CLI (cli/) turns a code into an
 * exit status (ma_exit_code_for) and prints the message.
 */
#ifndef MA_ERROR_H
#define MA_ERROR_H

#include <stddef.h>

/* Marks a function of the public API (include/millaudit.h): the shared library libmillaudit exports
 * these and nothing else (the tree is compiled with -fvisibility=hidden), so a program cannot come
 * to depend on an internal function that may change. */
#if defined(__GNUC__)
#define MA_API __attribute__((visibility("default")))
#else
#define MA_API
#endif

enum {
    MA_OK = 0,
    MA_EINVAL = -1,   /* bad argument from the caller: unknown variant, impossible sector, bad flag */
    MA_EFORMAT = -2,  /* input exists but is malformed: bad magic, truncated, size mismatch */
    MA_EMISSING = -3, /* a needed input is absent: child sector, file, manifest entry */
    MA_EIO = -4,      /* the operating system refused: cannot read, write, rename, mmap */
    MA_ENOMEM = -5,   /* allocation failed */
    MA_EEXIST = -6,   /* refusing to overwrite or trust something already there (partial file) */
    MA_EINTERNAL = -7, /* an invariant of our own code broke; always a bug */
    MA_ECANCELED = -8, /* the caller asked the work to stop (SIGINT / SIGTERM); nothing is wrong */
    MA_EUSAGE = -9     /* the command line was not understood (cli/ only; exit status 2) */
};

/* CLI exit statuses. Distinct so scripts can tell "the data is wrong" from "could not check". */
enum {
    MA_EXIT_OK = 0,          /* everything checked and matched */
    MA_EXIT_MISMATCH = 1,    /* discrepancies found (in intact files), digests differ (manifest check,
                              * attest verify), values differ */
    MA_EXIT_USAGE = 2,       /* command line not understood */
    MA_EXIT_BAD_INPUT = 3,   /* input unusable: malformed, missing, impossible sector, other variant;
                              * a damaged download (verify's verdict damaged: fetch it again) */
    MA_EXIT_IO = 4,          /* output could not be written */
    MA_EXIT_INTERNAL = 5     /* bug or out of memory */
};

typedef struct ma_error {
    int code;        /* the MA_E* code of the last failure, MA_OK if none */
    char msg[512];   /* one line, no trailing newline */
} ma_error;

/* Records code and a printf-style message in err (if non-NULL) and returns code, so callers can
 * write `return ma_error_set(err, MA_EFORMAT, "%s: ...", path);`. */
MA_API int ma_error_set(ma_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one escaping function of every message: copies text into buf (size len), control characters
 * and DEL as \n, \r, \t, \xNN, and backslash as \\ when escape_backslash (a name shown alone, so
 * the escape is unambiguous); without it, text already escaped passes unchanged (ma_error_set
 * runs every message through it so). Always NUL-terminates; cuts at len - 1 bytes. Returns buf. */
MA_API char *ma_escape_text(const char *text, char *buf, size_t len, int escape_backslash);

/* Resets err to "no error". */
MA_API void ma_error_clear(ma_error *err);

/* Maps an MA_E* code to the CLI exit status that reports it. */
MA_API int ma_exit_code_for(int code);

/* A short stable name for an MA_E* code ("format", "missing", ...), used in JSON and SQLite. */
MA_API const char *ma_error_name(int code);

#endif
