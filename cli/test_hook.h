/*
 * The test build's rendezvous for verify (linked only into millaudit-planted, never installed):
 * lets an integration test change a database file at a defined point of a run, so "a file replaced
 * or rewritten while verify reads it" is tested deterministically (docs/runs.md).
 *
 *   MILLAUDIT_TEST_STEP=hashed           after the hash phase
 *   MILLAUDIT_TEST_STEP=checked:<sector> after the check of <sector> (e.g. std_4_4_0_0), before the
 *                                        files it read are hashed again
 *   MILLAUDIT_TEST_STEP_DIR=<dir>        at the first matching step the run creates <dir>/paused and
 *                                        waits until <dir>/resume exists (then removes it)
 *   MILLAUDIT_TEST_STOP_AFTER_SECTORS=K  stop the run after K committed sectors as if SIGINT came,
 *                                        so tests interrupt at an exact point instead of racing a
 *                                        signal against the run's speed
 *
 * `solve` of the same build (cli/cmd_solve.c, compiled with MA_PLANT_BUGS) reads the stop too:
 * after the K-th finished sector it raises SIGINT, or SIGTERM with MILLAUDIT_TEST_STOP_SIGNAL=TERM,
 * through the command's real signal handler.
 *
 * In millaudit itself ma_cli_test_hook_install is not linked (a weak reference in cmd_verify.c), so
 * the production binary has no such hook and ignores these variables.
 */
#ifndef MA_CLI_TEST_HOOK_H
#define MA_CLI_TEST_HOOK_H

#include "verifier/run.h"

typedef struct ma_cli_test_hook {
    char step[128];
    char dir[4096];
    int fired;
} ma_cli_test_hook;

/* Reads the environment; when a step is asked for, points o->on_step at the rendezvous with h as
 * its context (h must outlive the run); sets o->stop_after_sectors when a stop is asked for. */
void ma_cli_test_hook_install(ma_cli_test_hook *h, ma_vrun_options *o) __attribute__((weak));

#endif
