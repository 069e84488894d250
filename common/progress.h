/*
 * ma_progress: progress of long work on stderr, one display per command run.
 *
 * One reporter covers a whole run (every sector a verify checks, every file a manifest hashes), so
 * the rate and the ETA are of the whole run, not of the current sector. Worker threads add the
 * units they finish with ma_progress_add (thread-safe, lock-free on the fast path); whichever
 * thread notices that a line is due prints it, under a try-lock, so workers never wait for the
 * terminal. Single-threaded callers may instead report an absolute count with ma_progress_update.
 *
 * Nothing is printed during the first second, so quick commands stay silent; after that at most one
 * line per `interval` seconds: "<label>: <done>/<total> <unit>, <rate> <unit>/s, ETA <s> s". A quiet
 * reporter never prints. The struct is caller-owned and holds no global state.
 */
#ifndef MA_PROGRESS_H
#define MA_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

typedef struct ma_progress {
    FILE *out;                /* where lines go; stderr normally */
    int quiet;                /* non-zero: print nothing */
    char label[96];           /* e.g. "verify std_4_3_0_0"; changed with ma_progress_set_label */
    char unit[16];            /* "entries" unless set otherwise */
    uint64_t total;           /* expected units, 0 if unknown */
    _Atomic uint64_t done;    /* units finished so far */
    double start;             /* monotonic seconds at ma_progress_start */
    double interval;          /* seconds between lines (1.0) */
    _Atomic double last_print;/* monotonic seconds of the last line printed */
    atomic_flag printing;     /* held by the thread printing a line */
    pthread_mutex_t label_lock; /* guards label against a concurrent print */
    int printed;              /* non-zero once any line was printed (then finish prints a final line) */
} ma_progress;

/* Monotonic clock in seconds. */
double ma_now(void);

void ma_progress_start(ma_progress *p, FILE *out, int quiet, const char *label, uint64_t total);
/* Replaces the label (e.g. the sector now being checked); safe while workers add. */
void ma_progress_set_label(ma_progress *p, const char *label);
/* Raises the expected total (e.g. when a run learns more work); safe while workers add. */
void ma_progress_set_total(ma_progress *p, uint64_t total);
/* Adds `units` finished units; thread-safe and cheap (one atomic add and a clock read at most
 * every few thousand calls is the caller's choice: call it per chunk, not per entry). */
void ma_progress_add(ma_progress *p, uint64_t units);
/* Reports an absolute count `done` (single-threaded callers). */
void ma_progress_update(ma_progress *p, uint64_t done);
/* Prints a closing line if anything was printed, so the last figure on screen is the true total,
 * and releases the reporter's lock. done is the final absolute count. */
void ma_progress_finish(ma_progress *p, uint64_t done);

#endif
