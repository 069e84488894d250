/*
 * The visited bitmap of a sector walk: one bit per entry (bit e % 64 of word e / 64), set when the
 * walk checks entry e.
 *
 * Contract. The checkers walk a sector in an order of their own (by opponent mask, in chunks over
 * threads), not entry by entry, so nothing in the walk itself shows that every entry was checked.
 * The bitmap does: ma_visited_mark reports an entry reached a second time, and after the walk
 * ma_visited_check finds the first entry never reached, or a bit past the last entry. Both are
 * index bugs of the checker, never faults of the file: a sector is "verified" only when every
 * entry was reached exactly once (docs/verifier.md, docs/malom-verification.md).
 *
 * The bitmap holds entries / 64 + 1 words, zeroed before the walk (the checkers zero it through
 * verifier/check/resident.h). ma_visited_mark is inline: it runs once per entry.
 */
#ifndef MA_CHECK_VISITED_H
#define MA_CHECK_VISITED_H

#include <stdatomic.h>
#include <stdint.h>

/* Words of the bitmap of n entries. */
static inline uint64_t ma_visited_words(uint64_t n)
{
    return n / 64 + 1;
}

/* Marks entry e; returns 1 when it was marked already (reached twice), else 0. shared: other
 * threads mark the same bitmap, so the mark is an atomic OR; with one thread a plain read and
 * write (a locked OR costs about 20 cycles per entry) with the same test. */
static inline int ma_visited_mark(_Atomic uint64_t *bits, uint64_t e, int shared)
{
    uint64_t bit = (uint64_t)1 << (e & 63);
    _Atomic uint64_t *word = &bits[e >> 6];
    uint64_t old;
    if (shared) {
        old = atomic_fetch_or_explicit(word, bit, memory_order_relaxed);
    } else {
        old = atomic_load_explicit(word, memory_order_relaxed);
        atomic_store_explicit(word, old | bit, memory_order_relaxed);
    }
    return (old & bit) != 0;
}

enum {
    MA_VISITED_ALL = 0,  /* entries 0 .. n-1 marked, nothing past them */
    MA_VISITED_GAP = 1,  /* *entry: the least entry below n never marked */
    MA_VISITED_PAST = 2, /* *entry: the least marked bit at or past n (an index past the end) */
    MA_VISITED_TWICE = 3 /* *entry: marked by two threads in their own bitmaps (ma_visited_team) */
};

/* A thread's own bitmap: with one bitmap per thread no mark is an atomic OR and no thread
 * writes another's cache lines (on a small sector the threads' marks met in the same lines, and
 * the locked ORs and line transfers cost 10% of the 2-thread check). After the walk each one is
 * merged into the first: ma_visited_merge ORs `from` into `into` (n entries' words) and returns 0,
 * or returns 1 with *entry the least entry marked in both (reached twice, by two threads), leaving
 * `into` partly merged. */
int ma_visited_merge(_Atomic uint64_t *into, const _Atomic uint64_t *from, uint64_t n,
                     uint64_t *entry);

/* Own bitmaps are for walks whose threads past the first need at most this much for them
 * together (std 5_5: 4 MiB a thread); past it the threads share one bitmap, by atomic OR. */
#define MA_VISITED_OWN_BUDGET ((uint64_t)64 << 20)

/* 1 when `threads` threads walking n entries may mark bitmaps of their own (more than one
 * thread, within MA_VISITED_OWN_BUDGET), else 0. */
static inline int ma_visited_own_fits(uint64_t n, int threads)
{
    return threads > 1 &&
           (uint64_t)(threads - 1) * ma_visited_words(n) * sizeof(uint64_t) <= MA_VISITED_OWN_BUDGET;
}

/* After the walk (all threads joined): MA_VISITED_ALL, or MA_VISITED_GAP / MA_VISITED_PAST with
 * *entry as above (a gap is reported before a bit past the end). */
int ma_visited_check(const _Atomic uint64_t *bits, uint64_t n, uint64_t *entry);

/* Where the threads of one walk mark, for both checkers: thread 0 marks the walk's bitmap, and so
 * do the others unless each gets a bitmap of its own (ma_visited_own_fits, and the memory for all
 * of them; else none has one). An own bitmap comes from ma_huge_alloc untouched: its thread
 * zeroes it (ma_visited_team_zero) before marking, so no single thread writes them all.
 *
 *  - ma_visited_team_plan never fails: without memory for own bitmaps the threads share `walk`.
 *    walk NULL (a walk with no bitmap) gives NULL for every thread.
 *  - ma_visited_team_bits(tm, t): where thread t marks; tm->shared is ma_visited_mark's `shared`.
 *  - ma_visited_team_cover(tm, ran, entry), after the walk, when threads 0..ran-1 took part (a
 *    thread never started did not zero its bitmap and is not merged): merges their own bitmaps
 *    into walk, then ma_visited_check. MA_VISITED_TWICE when two threads marked *entry.
 *  - ma_visited_team_free frees the own bitmaps, not walk. */
typedef struct {
    _Atomic uint64_t *walk;
    _Atomic uint64_t **own; /* own[t - 1]: thread t's bitmap; NULL when the threads share walk */
    uint64_t n;
    int threads;
    int shared; /* more than one thread marks walk: by atomic OR */
} ma_visited_team;

void ma_visited_team_plan(ma_visited_team *tm, _Atomic uint64_t *walk, uint64_t n, int threads);
void ma_visited_team_zero(const ma_visited_team *tm, int t);
int ma_visited_team_cover(const ma_visited_team *tm, int ran, uint64_t *entry);
void ma_visited_team_free(ma_visited_team *tm);

static inline _Atomic uint64_t *ma_visited_team_bits(const ma_visited_team *tm, int t)
{
    return tm->own && t > 0 ? tm->own[t - 1] : tm->walk;
}

#endif
