/*
 * signals: how a long command learns that the user wants it to stop.
 *
 * ma_cli_stop_on_signals installs handlers for SIGINT and SIGTERM that store the signal number in
 * a flag and restore the default action, so a first Ctrl-C asks the run to stop cleanly (finished
 * sectors stay recorded, the run is marked interrupted) and a second one kills the process at once.
 * The flag is the one piece of process-wide mutable state a signal handler needs; it lives here, in
 * the CLI, and library code only ever sees a const pointer to it (verifier/run/run.h's `cancel`).
 * The exit status of a stopped command is 128 + the signal number (130 for SIGINT, 143 for
 * SIGTERM), as shells report a process killed by that signal.
 */
#ifndef MA_CLI_SIGNALS_H
#define MA_CLI_SIGNALS_H

#include <signal.h>

/* Installs the handlers (idempotent) and returns the flag: 0, or the number of the signal. */
const volatile sig_atomic_t *ma_cli_stop_on_signals(void);

#endif
