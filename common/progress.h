/*
 * ma_progress: progress of long work on stderr, one display per command run.
 *
 * One reporter covers a whole run (every sector a verify checks, every file a manifest hashes), so
 * the rate and the ETA are of the whole run, not of the current sector. Worker threads add the
 * units they finish with ma_progress_add (thread-safe, lock-free on the fast path); whichever
 * thread notices that a display is due draws it, under a try-lock, so workers never wait for the
 * terminal. Single-threaded callers may instead report an absolute count with ma_progress_update.
 *
 * How it shows depends on where the output goes (the mode, chosen at ma_progress_start):
 *
 *  - MA_PROGRESS_TTY (the output is a terminal): one self-updating line, redrawn at most every
 *    0.25 s with a carriage return and an erase-to-end-of-line, cut to the terminal width so it
 *    never wraps, in the style of `rsync --info=progress2`:
 *        1,234,567/5,746,675 entries  21%  1.23M entries/s  0:00:45 ETA  verify std_4_3_0_0
 *    On finish the line is drawn once more with the final count and elapsed time and ended with a
 *    newline, so it stays on screen as the run's summary.
 *  - MA_PROGRESS_PLAIN (a pipe, a file, a CI log): a plain line every MA_PROGRESS_PLAIN_INTERVAL
 *    (10) seconds, never a carriage return or an escape sequence:
 *        verify std_4_3_0_0: 1234567/5746675 entries (21%), 1234567 entries/s, ETA 45 s
 *    and a closing "(done)" line if any line was printed.
 *  - MA_PROGRESS_NONE (--quiet, or no output stream): nothing at all.
 *
 * Nothing is drawn during the first second (TTY) or the first interval (plain), so quick commands
 * stay silent. The environment may override the choice: MILLAUDIT_PROGRESS=tty|plain|none, and
 * MILLAUDIT_PROGRESS_INTERVAL=<seconds> sets the plain interval and first delay (and, when shorter
 * than the terminal's 1 s delay or 0.25 s redraw interval, those too); 0 draws at every update, so
 * tests count displays instead of racing the clock; --quiet always wins.
 *
 * Anything else written to the same terminal while a TTY line is shown would be glued onto it:
 * call ma_progress_clear first (it erases the line; the next due paint puts it back).
 *
 * Every function accepts p == NULL and then does nothing, so library code can take an optional
 * reporter. The struct is caller-owned and holds no global state; its fields are read by tests.
 * A program using the library sees the opaque handle of millaudit/progress.h (ma_progress_create,
 * ma_progress_count, ma_progress_free); the rest is the library's and the command's.
 */
#ifndef MA_PROGRESS_H
#define MA_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "millaudit/progress.h"

#define MA_PROGRESS_PLAIN_INTERVAL 10.0 /* seconds between plain lines (documented in millaudit(1)) */
#define MA_PROGRESS_TTY_INTERVAL 0.25   /* seconds between redraws of the terminal line */

typedef enum ma_progress_mode {
    MA_PROGRESS_NONE = 0,  /* print nothing */
    MA_PROGRESS_PLAIN,     /* a line every interval, newline-terminated */
    MA_PROGRESS_TTY        /* one line redrawn in place */
} ma_progress_mode;

struct ma_progress {
    FILE *out;                /* where the display goes; stderr normally */
    ma_progress_mode mode;    /* how; see above */
    char label[96];           /* e.g. "verify std_4_3_0_0"; changed with ma_progress_set_label */
    char unit[16];            /* "entries" unless set otherwise; "bytes" prints KiB/MiB/GiB */
    uint64_t total;           /* expected units, 0 if unknown */
    _Atomic uint64_t done;    /* units finished so far */
    double start;             /* monotonic seconds at ma_progress_start */
    double delay;             /* nothing is drawn before start + delay */
    double interval;          /* seconds between draws */
    _Atomic double last_print;/* monotonic seconds of the last paint */
    pthread_mutex_t paint_lock;  /* held while drawing or clearing; workers only try it */
    pthread_mutex_t label_lock; /* guards label, unit and total against a concurrent paint */
    int printed;              /* non-zero once anything was drawn (then finish draws a final line) */
    int shown;                /* TTY: a line is on screen now (the cursor is at its end) */
    int finished;             /* ma_progress_finish ran (its locks are gone; later calls do nothing) */
};

/* Monotonic clock in seconds. */
double ma_now(void);

/* Starts a reporter for a run. quiet (or out == NULL) selects MA_PROGRESS_NONE; otherwise TTY when
 * out is a terminal, else PLAIN, unless MILLAUDIT_PROGRESS says otherwise. */
void ma_progress_start(ma_progress *p, FILE *out, int quiet, const char *label, uint64_t total);
/* Forces a mode (tests, or a command with its own option) and resets delay and interval to that
 * mode's defaults. */
void ma_progress_set_mode(ma_progress *p, ma_progress_mode mode);
/* Replaces the label (e.g. the sector now being checked); safe while workers add. */
void ma_progress_set_label(ma_progress *p, const char *label);
/* Replaces the unit name ("entries", "bytes", "positions"); call before work starts. */
void ma_progress_set_unit(ma_progress *p, const char *unit);
/* Sets the expected total (e.g. when a run learns more work); safe while workers add. */
void ma_progress_set_total(ma_progress *p, uint64_t total);
/* Adds `units` finished units; thread-safe and cheap (one atomic add and a clock read: call it per
 * chunk of work, not per entry). */
void ma_progress_add(ma_progress *p, uint64_t units);
/* Reports an absolute count `done` (single-threaded callers). */
void ma_progress_update(ma_progress *p, uint64_t done);
/* ma_progress_update in the shape of a progress callback (ctx is the ma_progress *), e.g. for
 * checksums/sha256.h: opts.on_progress = ma_progress_update_cb; opts.progress_ctx = &progress. */
void ma_progress_update_cb(void *reporter, uint64_t done);
/* TTY: erases the line now on screen (waits for a paint in progress), so the caller can print
 * something else; the next due paint shows the line again. Other modes: nothing. */
void ma_progress_clear(ma_progress *p);
/* Output of the caller between ma_progress_hold and ma_progress_release goes to a clean line of
 * the terminal: hold erases the line now on screen (TTY) and keeps every thread from drawing it
 * again until release, so a result printed on stdout of the same terminal is never glued to the
 * display however the threads interleave. Other modes: hold and release only lock out the paint
 * (a plain line stays whole). Not re-entrant; never call the reporter's other functions from the
 * same thread in between except ma_progress_add / ma_progress_update (they skip the paint). */
void ma_progress_hold(ma_progress *p);
void ma_progress_release(ma_progress *p);
/* Draws a closing line if anything was drawn, so the last figure on screen is the true total, and
 * releases the reporter's locks. done is the final absolute count. Only the first call counts (an
 * engine finishes the display its caller will free). */
void ma_progress_finish(ma_progress *p, uint64_t done);

#endif
