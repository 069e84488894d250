/*
 * millaudit.h: the public C API of millaudit, the one header a program includes to verify, diff,
 * hash, probe or read the audit of a Nine Men's Morris (Lasker Morris, Morabaraba) database.
 *
 * Build against the installed library with `pkg-config --cflags --libs millaudit` (libmillaudit,
 * shared; `millaudit-static` links it statically). C (C99 and later) and C++ include it alike: every
 * declaration has C linkage. The `millaudit` command is a client of exactly this header;
 * verify_one.c (C) and verify_probe.cpp (C++), installed with the headers, are complete programs.
 *
 * Conventions (the shape of every engine, after libgit2 and SQLite), held by every declaration:
 *   - names are ma_<module>_<verb>; one engine per job;
 *   - handles are opaque: create or run, read the results through accessors, free;
 *   - options structs are plain data (no locks, no atomics, no test hooks) and zero means the
 *     default in every field: `ma_vrun_options opt = {0}; opt.root = dir;` is a complete request
 *     (threads 0: every online CPU; max_rows 0: the default number of rows; tri-state switches
 *     such as full_board_draw: 0 the default, MA_YES, MA_NO);
 *   - outputs come first, then the inputs and options, the ma_error last:
 *     ma_X_run(&out, &opt, &err);
 *   - every function that can fail returns MA_OK or a negative MA_E* code (millaudit/error.h) and
 *     fills the caller's ma_error (which may be NULL) with one line naming the file, sector and
 *     offset where they apply, in the library's words: options fields, never the command's
 *     options; nothing prints (except the render functions, into the stream they are given),
 *     nothing exits;
 *   - one release function per kind of object, ma_<kind>_free (ma_audit_free, ma_vrun_free,
 *     ma_run_list_free, ...), each accepting NULL; text and buffers the library allocates for the
 *     caller (rendered documents, paths) are released with ma_free;
 *   - a handle does its work once: a second ma_vrun_execute on one run is MA_EINVAL, and changes
 *     nothing;
 *   - what a job proved is a ma_verdict_state (millaudit/verdict.h), worded by
 *     ma_verdict_state_name and mapped to an exit status only by ma_verdict_exit_code;
 *   - progress is reported through the optional ma_progress (millaudit/progress.h) an engine's
 *     options take, or a callback where the engine says so; results are data, never text.
 *
 * Threading: a handle is used by one thread at a time; engines start their own worker threads as
 * their options ask. The library holds no global mutable state.
 *
 * Versions: MILLAUDIT_VERSION* (millaudit/version.h) are those of the headers, ma_version() and
 * ma_version_number() those of the library loaded; the soname libmillaudit.so.N changes with every
 * incompatible change of the ABI (docs/architecture.md, "Versions and the soname").
 */
#ifndef MILLAUDIT_H
#define MILLAUDIT_H

/* The API's revision: raised with every change of a declaration (CHANGES.md). */
#define MILLAUDIT_API_VERSION 4

#include "millaudit/version.h"
#include "millaudit/error.h"
#include "millaudit/progress.h"
#include "millaudit/verdict.h"
#include "millaudit/types.h"
#include "millaudit/integrity.h"
#include "millaudit/verify.h"
#include "millaudit/manifest.h"
#include "millaudit/diff.h"
#include "millaudit/inspect.h"
#include "millaudit/game.h"
#include "millaudit/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MILLAUDIT_API_VERSION of the library actually loaded (a shared library may be newer than the
 * header a program was built with). */
MA_API int ma_api_version(void);
/* MILLAUDIT_VERSION and MILLAUDIT_VERSION_NUMBER of the library actually loaded. */
MA_API const char *ma_version(void);
MA_API int ma_version_number(void);

/* A message of the library in the words of the `millaudit` command, into buf (len bytes; returned).
 * The library's messages name the field of the options that is wrong ("sector '9_9_9': ...",
 * "stones 10: ...", "(no_digest_check reads them anyway)"); the command names the option that set
 * it ("--sector '9_9_9': ..."). Only the library's fixed phrases are rewritten, never a path or a
 * value; for a program with a command line of its own that mirrors millaudit's. */
MA_API const char *ma_render_option_words(const char *msg, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
