/*
 * reports/render/diff_junit: one `millaudit diff A B` as a JUnit report (reports/render/junit.h), so any CI can
 * show it: `millaudit diff A B --junit FILE`.
 *
 * One test suite "millaudit.diff" (properties: a, b) and one test case per pair of sectors,
 * classname "millaudit.diff.<variant>", name the sector:
 *
 *   identical, equal          passes (encoding differences alone do not fail: the values agree);
 *                             system-out says which
 *   differs at the root       <failure type="values-differ">: a one-line message names the sector,
 *                             the value differences by class, how many are at the root, the first
 *                             root position with both values, the side that is right and the turn
 *                             that proves it; the text the first examples (entry in A and in B,
 *                             both values, every turn on both sides) with their boards drawn
 *   differs as a consequence  passes (issue 45: one bug, one red line): system-out names the root
 *                             pairs that cause it
 *   only-in-A, only-in-B      <failure type="only-in-A" | "only-in-B"> naming the file
 *   unusable                  <error type="unusable"> with the reader's reason
 *   not compared              <skipped> when the diff stopped before the pair
 *
 * A diff that stopped on an error adds a case "run" in error with the message.
 */
#ifndef MA_VERIFIER_DIFF_JUNIT_H
#define MA_VERIFIER_DIFF_JUNIT_H

#include <stddef.h>

#include "common/ma_error.h"
#include "reports/render/junit.h"
#include "verifier/run/diff.h"

/* Example boards drawn per failing pair (the examples themselves are diff's --limit). */
#define MA_DIFF_JUNIT_BOARDS 5

/* One pair as the command saw it: what the report needs, independent of how diff pairs sectors. */
typedef struct ma_diff_junit_pair {
    const char *sector;        /* "std_3_3_0_0" */
    const char *variant;       /* "std" */
    const char *status;        /* "identical", "equal", "differs", "only-in-A", "only-in-B", "unusable",
                                * or NULL: not compared (the diff stopped before it) */
    const char *path_a, *path_b; /* the files; NULL on the side without the sector */
    const char *message;       /* unusable: the reason; else NULL */
    const ma_diff_result *r;   /* compared pairs: counts and examples; else NULL */
    const char *consequence_of; /* differs only as a consequence of these pairs ("std_4_3_0_0, ..."),
                                 * or NULL: a difference of its own */
} ma_diff_junit_pair;

/* Builds the report into j (initialised here; free with ma_junit_free, also after an error).
 * stopped_by: the error that ended the diff early, or NULL. Errors: MA_ENOMEM. */
int ma_diff_junit(ma_junit *j, const char *a, const char *b, const ma_diff_junit_pair *pairs, size_t n,
                  const char *stopped_by, ma_error *err);
/* Builds and writes it to path atomically. Errors: MA_ENOMEM, MA_EIO naming path. */
int ma_diff_junit_write(const char *path, const char *a, const char *b, const ma_diff_junit_pair *pairs, size_t n,
                        const char *stopped_by, ma_error *err);

#endif
