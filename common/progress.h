/*
 * ma_progress: progress lines on stderr for long work.
 *
 * Nothing is printed during the first second, so quick commands stay silent; after that at most one
 * line per second: "<label>: <done>/<total> entries, <rate> entries/s, ETA <s> s". A quiet reporter
 * (quiet != 0) never prints. Each worker thread may own its own reporter; the struct holds no
 * global state. Not thread-safe on one instance: callers aggregate counts before calling update.
 */
#ifndef MA_PROGRESS_H
#define MA_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct ma_progress {
    FILE *out;          /* where lines go; stderr normally */
    int quiet;          /* non-zero: print nothing */
    char label[96];     /* e.g. "solve std_4_3_0_0" */
    uint64_t total;     /* expected units, 0 if unknown */
    double start;       /* monotonic seconds at ma_progress_start */
    double last_print;  /* monotonic seconds of the last line printed */
    int printed;        /* non-zero once any line was printed (then finish prints a final line) */
} ma_progress;

/* Monotonic clock in seconds. */
double ma_now(void);

void ma_progress_start(ma_progress *p, FILE *out, int quiet, const char *label, uint64_t total);
/* Reports `done` units so far; cheap to call often (it checks the clock only). */
void ma_progress_update(ma_progress *p, uint64_t done);
/* Prints a closing line if anything was printed, so the last figure on screen is the true total. */
void ma_progress_finish(ma_progress *p, uint64_t done);

#endif
