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
 *   MILLAUDIT_TEST_STEP_DIR=<dir>        at the first matching step the run creates <dir>/paused and
 *                                        waits until <dir>/resume exists (then removes it)
 *   MILLAUDIT_TEST_STOP_AFTER_SECTORS=K  verify: stop the run after K committed sectors as if SIGINT
 *                                        came (exit 130)
 *   MILLAUDIT_TEST_STOP_AFTER_MOVES=K    grade: stop the run after K graded moves as if SIGINT came
 *                                        (exit 130, the K moves recorded, the run "interrupted")
 *
 * `solve` of the same build (cli/cmd_solve.c, compiled with MA_PLANT_BUGS) reads
 * MILLAUDIT_TEST_STOP_AFTER_SECTORS too: after the K-th finished sector it raises SIGINT, or
 * SIGTERM with MILLAUDIT_TEST_STOP_SIGNAL=TERM, through the command's real signal handler.
 *
 * In millaudit itself these functions are not linked (weak references in cmd_verify.c,
 * cmd_manifest.c and cmd_grade.c are NULL), so the production binary has no such hook and ignores
 * these variables.
 */
#ifndef MA_CLI_TEST_HOOK_H
#define MA_CLI_TEST_HOOK_H

#include <signal.h>
#include <stdint.h>

#include "millaudit.h"

typedef struct ma_cli_test_hook {
    char step[128];
    char dir[4096];
    int fired;
    const volatile sig_atomic_t *until; /* verify: its stop flag (o->cancel), which also ends a pause */
} ma_cli_test_hook;

/* Reads the environment; when a step is asked for, points o->on_step at the rendezvous with h as
 * its context (h must outlive the run); sets o->stop_after_sectors when a stop is asked for. */
void ma_cli_test_hook_install(ma_cli_test_hook *h, ma_vrun_options *o) __attribute__((weak));

/* Fills h from MILLAUDIT_TEST_STEP / MILLAUDIT_TEST_STEP_DIR (no step asked for: h->step empty). */
void ma_cli_test_hook_env(ma_cli_test_hook *h) __attribute__((weak));

/* The rendezvous at step `here`: at the first call whose `here` is the step asked for, creates
 * <dir>/paused and waits until <dir>/resume exists or *until is non-zero (a signal handler's flag;
 * NULL: resume only). Any other call returns at once. */
void ma_cli_test_hook_step(ma_cli_test_hook *h, const char *here, const volatile sig_atomic_t *until)
    __attribute__((weak));

/* grade's stop: MILLAUDIT_TEST_STOP_AFTER_MOVES, 0 when not asked for (ma_grade_options). */
uint64_t ma_cli_test_stop_after_moves(void) __attribute__((weak));

#endif
