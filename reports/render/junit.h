/*
 * JUnit XML: the test report format CI servers show (Jenkins' JUnit plugin, GitLab's
 * artifacts:reports:junit, GitHub test-report actions). The structure is the widely used Jenkins/Ant
 * one (tests/data/junit-10.xsd):
 *
 *   testsuites (name, tests, failures, errors, skipped, time)
 *     testsuite (name, tests, failures, errors, skipped, time, timestamp, hostname)
 *       properties > property (name, value)
 *       testcase (classname, name, time)
 *         skipped | error | failure (type, message; multi-line text)   at most one of them
 *         system-out
 *
 * The caller builds a neutral report (any command: verify, diff, runs regressions): suites of test
 * cases, each one passing, failing (the thing tested is wrong: a discrepancy, a difference, a
 * regression), in error (it could not be tested: an unusable file, an incomplete check) or skipped
 * (not proven either way: verified within bounds only). Totals are counted when the XML is written,
 * so they always agree with the cases.
 *
 * Writing goes through libxml2's xmlwriter, so every string is escaped. Strings may hold anything a
 * store or a file name holds: bytes that are not valid UTF-8 and characters XML 1.0 cannot carry
 * at all (control characters other than tab, newline, carriage return; U+FFFE, U+FFFF) are replaced
 * by '?' first, so the document is always well-formed.
 *
 * Memory: every string passed in is copied; free with ma_junit_free. Errors: MA_ENOMEM, MA_EINVAL
 * (a NULL name), MA_EIO (the file could not be written). ma_junit_write writes through
 * common/output.h: a regular file via a temporary file beside the target renamed over it (the
 * target is either the old file or the complete new one), an existing device or FIFO written
 * through, "-" to standard output.
 */
#ifndef MA_JUNIT_H
#define MA_JUNIT_H

#include <stddef.h>

#include "common/ma_error.h"

typedef enum ma_junit_outcome {
    MA_JUNIT_PASS = 0,
    MA_JUNIT_FAILURE = 1,
    MA_JUNIT_ERROR = 2,
    MA_JUNIT_SKIPPED = 3
} ma_junit_outcome;

typedef struct ma_junit_case {
    char *classname;
    char *name;
    double seconds;            /* < 0: not measured (no time attribute) */
    ma_junit_outcome outcome;
    char *type;                /* failure / error type, e.g. "discrepancies"; NULL: none */
    char *message;             /* one line; NULL: none */
    char *text;                /* the element's text (class counts, first discrepancies); NULL: none */
    char *out;                 /* system-out of the case; NULL: none */
} ma_junit_case;

typedef struct ma_junit_property {
    char *name, *value;
} ma_junit_property;

typedef struct ma_junit_suite {
    char *name;
    char *timestamp;           /* ISO 8601 without zone designator, as Jenkins expects; NULL: none */
    char *hostname;            /* NULL: none */
    double seconds;            /* < 0: the sum of the cases' times */
    ma_junit_property *props;
    size_t n_props, cap_props;
    ma_junit_case *cases;
    size_t n_cases, cap_cases;
    char *out;                 /* system-out of the suite; NULL: none */
} ma_junit_suite;

typedef struct ma_junit {
    char *name;
    ma_junit_suite **suites;
    size_t n_suites, cap_suites;
} ma_junit;

/* Starts an empty report named name (the testsuites element's name). */
int ma_junit_init(ma_junit *j, const char *name, ma_error *err);
void ma_junit_free(ma_junit *j);

/* Adds a suite; *out points to it (stable until ma_junit_free). timestamp and hostname may be NULL.
 * A timestamp given as "2026-11-22T09:30:00.123Z" (the audit store's form) is written as
 * "2026-11-22T09:30:00" because the Jenkins schema's timestamp has no zone and no fraction. */
int ma_junit_suite_add(ma_junit *j, const char *name, const char *timestamp, const char *hostname,
                       ma_junit_suite **out, ma_error *err);
int ma_junit_property_add(ma_junit_suite *s, const char *name, const char *value, ma_error *err);
/* Adds a case (strings copied; type, message, text, out may be NULL). */
int ma_junit_case_add(ma_junit_suite *s, const char *classname, const char *name, double seconds,
                      ma_junit_outcome outcome, const char *type, const char *message, const char *text,
                      const char *out, ma_error *err);
/* Sets the suite's system-out (replaces an earlier one). */
int ma_junit_suite_out(ma_junit_suite *s, const char *out, ma_error *err);

/* Counts of a suite or of the whole report. */
typedef struct ma_junit_totals {
    size_t tests, failures, errors, skipped;
    double seconds;
} ma_junit_totals;
ma_junit_totals ma_junit_suite_totals(const ma_junit_suite *s);
ma_junit_totals ma_junit_totals_of(const ma_junit *j);

/* The document (UTF-8, with an XML declaration, ending in a newline) into *out, malloc'd,
 * NUL-terminated, length in *len. */
int ma_junit_to_xml(const ma_junit *j, char **out, size_t *len, ma_error *err);
/* The document into path, atomically. */
int ma_junit_write(const ma_junit *j, const char *path, ma_error *err);

/* Copies s into a malloc'd string that XML 1.0 can carry: invalid UTF-8 bytes and characters
 * outside XML's Char production become '?'. NULL -> NULL. Exposed for the unit test. */
char *ma_junit_clean(const char *s);

#endif
