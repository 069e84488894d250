/*
 * reports/render/run_junit: one verify run (verifier/run/run.h) as a JUnit report (reports/render/junit.h), so any CI
 * server can show it: `millaudit verify --junit FILE`.
 *
 * One test suite "millaudit.verify" with the run's facts as properties (database root, format,
 * mode, run id) and one test case per sector, classname "millaudit.verify.<variant>", name the
 * sector ("std_4_4_0_0"), time the seconds of its check:
 *
 *   ok                      passes
 *   discrepancies           <failure type="discrepancies"> for a ROOT sector
 *                           (reports/render/run_causes.h): the one-line message names the sector,
 *                           the count, roots, propagated, class counts, the first root position
 *                           with its stored and derived value and the refuting move; the text lists
 *                           the class counts and the first discrepancies (roots first: entry,
 *                           offset, class, stored and derived value, the refuting move) with the
 *                           first boards drawn; a body that does not match its header's digest
 *                           (docs/format.md §5.1) says so.
 *                           A CONSEQUENCE sector (propagated discrepancies only, explained by root
 *                           sectors among its successors) passes, system-out naming the root
 *                           sectors: one bug fails one case per sector that holds it
 *   incomplete / unusable   <error type="incomplete" | "unusable"> with the sector's one-line reason
 *   within bounds           <skipped> (not proven either way), or passes with --allow-bounds
 *   not reached             <skipped> when the run was interrupted before the sector
 *
 * A carried-over result is reported like a checked one (a discrepancy found last night is still
 * there), with "carried over from run N" in system-out. Problems of the run itself (an error that
 * stopped it, interrupted, audit record incomplete, files that belong to no sector) are one more
 * case, "run", in error.
 */
#ifndef MA_VERIFIER_RUN_JUNIT_H
#define MA_VERIFIER_RUN_JUNIT_H

#include "common/ma_error.h"
#include "reports/render/junit.h"
#include "millaudit/verify.h"
#include "verifier/run/run.h"

/* Discrepancy rows listed per failing sector, and of those the boards drawn. */
#define MA_VRUN_JUNIT_ROWS 20
#define MA_VRUN_JUNIT_BOARDS 5

/* Builds the report of r (after ma_vrun_execute, whatever it returned) into j (initialised here;
 * free with ma_junit_free, also after an error). stopped_by: the message of the error
 * ma_vrun_execute returned (the run could not be done: root missing, store refused), or NULL; it
 * makes the "run" case an error. Errors: MA_ENOMEM. */
int ma_vrun_junit(ma_junit *j, const ma_vrun *r, const char *stopped_by, ma_error *err);
/* ma_vrun_junit_write (public: millaudit/verify.h) builds it and writes it to path atomically. */

#endif
