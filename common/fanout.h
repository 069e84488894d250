/*
 * Short parallel steps outside a check's walk: the same function run as parts 0..parts-1 at once.
 *
 * Opening the files a check reads (verifier/formats/source.h, ma_database_open_sources) takes milliseconds
 * in which, run on one thread, every other core of the check waits. ma_fanout runs
 * fn(ctx, part, parts) for every part, part 0 on the calling thread and the others on threads of
 * their own, and returns when all have returned. A thread takes 60 to 180 us from pthread_create
 * to running on the 2-core machines of docs/performance.md, so a part must be worth several times
 * that: the Malom setup's decodes split in parts of about 0.4 ms came out slower than on one thread
 * (issue 25, ninth round). A step not worth splitting asks for 1 part, which starts no thread.
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
