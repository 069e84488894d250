/*
 * millaudit.h: the public C API of millaudit, the one header a program includes to verify, diff,
 * hash, probe or read the audit of a Nine Men's Morris (Lasker Morris, Morabaraba) database.
 *
 * Build against the installed library with `pkg-config --cflags --libs millaudit` (libmillaudit,
 * static and shared). The `millaudit` command is a client of exactly this header and common/
 * (tests/integration/test_api_boundary.py holds it to that); examples/verify_one.c is the shortest
 * complete program.
 *
 * Conventions (the shape of every engine, after libgit2 and Fathom):
 *   - names are ma_<module>_<verb>; one engine per job;
 *   - handles are opaque (create, run, read results through accessors, free); option structs are
 *     zero-initialisable, zero meaning the default;
 *   - out-parameters come first, the options next, the error last: ma_X_run(&out, &opt, &err);
 *   - every function returns MA_OK or a negative MA_E* code (common/ma_error.h) and fills the
 *     caller's ma_error with one line naming the file, sector and offset where they apply; nothing
 *     prints, nothing exits;
 *   - what a job proved is a ma_verdict_state (common/verdict.h), worded by
 *     ma_verdict_state_name and mapped to an exit status only by ma_verdict_exit_code;
 *   - progress is reported through the optional ma_progress (common/progress.h) an engine's
 *     options take, or a callback where the engine says so; results are data, never text.
 *
 * Threading: a handle is used by one thread at a time; engines start their own worker threads as
 * their options ask. The library holds no global mutable state.
 */
#ifndef MILLAUDIT_H
#define MILLAUDIT_H

#define MILLAUDIT_API_VERSION 1

#include "common/ma_error.h"
#include "common/progress.h"
#include "common/verdict.h"
#include "millaudit/types.h"
#include "millaudit/verify.h"
#include "millaudit/manifest.h"
#include "millaudit/diff.h"
#include "millaudit/inspect.h"
#include "millaudit/game.h"
#include "millaudit/store.h"

/* MILLAUDIT_API_VERSION of the library actually loaded (a shared library may be newer than the
 * header a program was built with). */
MA_API int ma_api_version(void);

#endif
