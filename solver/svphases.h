/*
 * svphases: a team of threads that works in phases, the shape of both of the producer's parallel
 * passes (the count/value analysis, solver/retro.h, and the ranking of draws, solver/svmalom_ultra.h):
 * every thread does its share of a phase, all meet at a barrier, thread 0 alone chooses the next
 * phase, all meet again, until no phase is left.
 *
 * Threads that cannot be created are left out before any work starts (the barrier counts only
 * those that run), so callers whose results do not depend on the number of threads get the same
 * result, only later.
 */
#ifndef MA_SVPHASES_H
#define MA_SVPHASES_H

#include <stddef.h>

typedef struct ma_svphases_ops {
    /* Once, in the calling thread, before any thread works: how many will. May be NULL. */
    void (*begin)(void *shared, int threads);
    /* A thread's share of the current phase; worker is that thread's element of the array. */
    void (*work)(void *worker);
    /* Thread 0 alone, between the two barriers: sets up the next phase. */
    void (*next)(void *shared);
    /* After the second barrier, read by every thread: no phase is left. */
    int (*done)(const void *shared);
} ma_svphases_ops;

/* Runs the phases on up to n threads (the caller is thread 0); workers is an array of n elements
 * of worker_size bytes, element i for thread i. The first phase must be set up already (or
 * done() true). Returns the number of threads that worked. */
int ma_svphases_run(const ma_svphases_ops *ops, void *shared, void *workers, size_t worker_size,
                    int n);

#endif
