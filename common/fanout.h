/*
 * Short parallel steps outside a check's walk: the same function run as parts 0..parts-1 at once.
 *
 * A check's setup (rank tables of a Malom sector) and the opening of a sector's files are each a
 * few milliseconds in which, run on one thread, every other core of the check waits. ma_fanout
 * runs fn(ctx, part, parts) for every part, part 0 on the calling thread and the others on threads
 * of their own, and returns when all have returned. Threads cost tens of microseconds to start, so
 * this is for steps of a millisecond or more; a step that is not worth splitting asks for 1 part.
 *
 * Contract:
 *  - parts >= 1 (0 is taken as 1). Every part 0..parts-1 runs exactly once, and all of them have
 *    returned (their writes visible to the caller) when ma_fanout returns.
 *  - When a thread cannot be started, the calling thread runs that part and the later ones itself:
 *    the step still completes, only on fewer cores. ma_fanout has no failure of its own.
 *  - fn must not call exit or longjmp out; parts share ctx, and must not write the same memory
 *    unless they synchronise themselves (an atomic job counter, say).
 */
#ifndef MA_COMMON_FANOUT_H
#define MA_COMMON_FANOUT_H

typedef void (*ma_fanout_fn)(void *ctx, unsigned part, unsigned parts);

/* Returns the number of parts that ran on threads of their own (0..parts-1), for tests. */
unsigned ma_fanout(unsigned parts, ma_fanout_fn fn, void *ctx);

#endif
