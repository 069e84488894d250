/*
 * The test build's rendezvous and stops (linked only into millaudit-planted, never installed):
 * let an integration test change a database file or send a signal at a defined point of a run, so
 * "a file replaced or rewritten while verify reads it" and "a signal during the run" are tested
 * deterministically instead of racing the run's speed (docs/runs.md).
 *
 *   MILLAUDIT_TEST_STEP=hashed           verify: after the hash phase (this pause, too, ends on a
 *                                        SIGINT or SIGTERM reaching verify's handler)
 *   MILLAUDIT_TEST_STEP=opened:<sector>  verify: right after the reader first opened <sector>'s file
 *                                        (its checks at open done), before any check read it
 *   MILLAUDIT_TEST_STEP=checked:<sector> verify: after the check of <sector> (e.g. std_4_4_0_0),
 *                                        before the files it read are hashed again; the pause
 *                                        also ends when a SIGINT or SIGTERM has reached verify's
 *                                        handler (the sector then is committed and the run stops:
 *                                        a sector slower than a scheduler's time limit, signalled
 *                                        at a known point, tests/integration/test_cluster.py)
 *   MILLAUDIT_TEST_STEP=hashing          manifest create/check: after the first chunk is hashed,
 *                                        with the hashing pool's lock held (no further chunk is
 *                                        claimed while paused); the pause also ends when a SIGINT
 *                                        or SIGTERM has reached the command's handler
 *   MILLAUDIT_TEST_STEP=<step>,<step>    verify: each step in turn (e.g. opened:X,checked:X: a file
 *                                        changed after its open and changed back after the check)
 *   MILLAUDIT_TEST_STEP_DIR=<dir>        at the first matching step the run creates <dir>/paused and
 *                                        waits until <dir>/resume exists (then removes it); with
 *                                        several steps the test removes paused before it resumes,
 *                                        and the next step creates it again
 *   MILLAUDIT_TEST_STOP_AFTER_SECTORS=K  verify: stop the run after K committed sectors as if SIGINT
 *                                        came (exit 130)
 *   MILLAUDIT_TEST_PRIVATE_BUDGET=B      verify: read a unit's files privately only when they total
 *                                        at most B bytes instead of 4 GiB (0: no unit that holds a
 *                                        byte), so the path of units over the budget (mapped, and
 *                                        hashed again after the check) is tested on small files
 *   MILLAUDIT_TEST_STOP_AFTER_MOVES=K    grade: stop the run after K graded moves as if SIGINT came
 *                                        (exit 130, the K moves recorded, the run "interrupted")
 *
 * `solve` of the same build (cli/cmd_solve.c, compiled with MA_PLANT_BUGS) reads
 * MILLAUDIT_TEST_STOP_AFTER_SECTORS too: after the K-th finished sector it raises SIGINT, or
 * SIGTERM with MILLAUDIT_TEST_STOP_SIGNAL=TERM, through the command's real signal handler.
 *
 * In millaudit itself these functions are not linked (weak references in cmd_verify.c,
 * cmd_manifest.c and cmd_grade.c are NULL), so the production binary has no such hook and ignores
 * these variables. The hooks are no part of the public options either: test_hook.c, the one cli
 * file that may, installs them through the engines' internal headers (verifier/run/run.h,
 * verifier/run/manifest_run.h, verifier/audit/grade.h).
 */
#ifndef MA_CLI_TEST_HOOK_H
#define MA_CLI_TEST_HOOK_H

#include <signal.h>
#include <stdint.h>

#include "millaudit.h"

typedef struct ma_cli_test_hook {
    char step[128];
    char dir[4096];
    int fired; /* steps of the list reached so far */
    const volatile sig_atomic_t *until; /* verify: its stop flag (o->cancel), which also ends a pause */
} ma_cli_test_hook;

/* Reads the environment and installs on run (created, not yet executed) the rendezvous, with h
 * as its context (h must outlive the run; cancel, the run's stop flag, also ends a pause), and
 * the stop after MILLAUDIT_TEST_STOP_AFTER_SECTORS sectors. */
void ma_cli_test_hook_install(ma_cli_test_hook *h, ma_vrun *run, const volatile sig_atomic_t *cancel)
    __attribute__((weak));

/* ma_manifest_create and ma_manifest_check_run with the rendezvous "hashing" when the environment
 * asks for it (create: opt->cancel also ends the pause). */
int ma_cli_test_manifest_create(ma_manifest_created *out, const ma_manifest_create_options *opt, ma_error *err)
    __attribute__((weak));
int ma_cli_test_manifest_check(ma_manifest_check **out, const ma_manifest_check_options *opt, ma_error *err)
    __attribute__((weak));

/* ma_grade_run with the stop after MILLAUDIT_TEST_STOP_AFTER_MOVES graded moves. */
int ma_cli_test_grade_run(ma_grading **out, const ma_grade_run_options *opt, ma_error *err) __attribute__((weak));

#endif
