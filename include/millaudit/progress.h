/*
 * millaudit/progress.h: part of the public API (millaudit.h): the progress display an engine's
 * options may take (their `progress` field).
 *
 * One display covers a whole run (every sector a verify checks, every file a manifest hashes), so
 * the rate and the ETA are of the whole run. On a terminal it is one self-updating line, in a pipe
 * or a log a plain line every 10 seconds; the environment may override the choice
 * (MILLAUDIT_PROGRESS=tty|plain|none, MILLAUDIT_PROGRESS_INTERVAL=<seconds>; millaudit(1),
 * PROGRESS). Nothing is drawn during the first second (terminal) or interval (plain), so quick
 * work stays silent. The engines set the label, the unit and the total as they learn them.
 *
 * The handle is opaque: worker threads of the engines update it concurrently.
 */
#ifndef MILLAUDIT_PROGRESS_H
#define MILLAUDIT_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "millaudit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ma_progress ma_progress;

/* A display on stream (stderr normally; NULL: a display that counts and never draws), starting
 * with label ("verify"; NULL: none). Errors: MA_ENOMEM. */
MA_API int ma_progress_create(ma_progress **out, FILE *stream, const char *label, ma_error *err);
/* Units finished so far (entries, bytes, positions: what the engine counts). */
MA_API uint64_t ma_progress_count(const ma_progress *p);
/* Draws the closing line (when anything was drawn) and frees the display; NULL is accepted. */
MA_API void ma_progress_free(ma_progress *p);

#ifdef __cplusplus
}
#endif

#endif
