/*
 * The sector walk: the scaffolding both checkers stand on, written once. The open checker
 * (verifier/check/check.c) and Malom's (verifier/check/malom_check.c and its parts) keep only
 * what differs between them: how one entry is prepared and judged, and their own counters.
 *
 * What the walk holds for a check of one sector:
 *  - the chunk plan (ma_walk_plan): the sector's representatives and their stabilisers, and
 *    whether the walk goes by opponent mask (every representative that leaves the mask free, found
 *    through bitsets of 64 representatives per point, so that the successors of the mask's entries,
 *    whose mover mask is that mask, stay in one block of the child file) or in entry order (where
 *    the next entry of one representative is the next opponent placement in colex order); the
 *    destination rows of every representative for the fused generator; the chunks the threads take;
 *  - the huge-page copies of the bodies the walk reads (ma_walk_copies, verifier/check/resident.h);
 *  - the visited bitmap, one bit per entry, and where each thread marks it (visited.h);
 *  - the workers (ma_walk_run): `threads` threads, the caller's being the first, each zeroing its
 *    own bitmap and helping with the copies, then taking chunks in a spread order
 *    (common/chunk_order.h) until none is left, the walk is canceled or a thread failed;
 *  - after the walk, the bitmaps merged and checked (ma_walk_cover) and the threads'
 *    discrepancies joined in entry order (ma_walk_join).
 *
 * Contract.
 *  - ma_walk_init before anything else, ma_walk_free at the end (after ma_walk_join).
 *  - ma_walk_plan fills the plan from a ma_walk_sector; ma_walk_plan_entries makes the plan of a
 *    walk in entry order with no tables and no bitmap (Malom's reference path). Both before
 *    ma_walk_run; ma_walk_copies before ma_walk_run too (the threads make the copies).
 *  - A checker's worker struct begins with a ma_walk_thread; ma_walk_run takes an array of them.
 *    ops->chunk checks the chunk [lo, hi) (opponent masks when by_opp, else entries) and returns
 *    the entries it checked; a failure sets th->rc, which stops every thread at its next chunk.
 *    ops->start (optional) runs in the thread before its first chunk (a non-zero return is its rc);
 *    ops->stop (optional) after its last.
 *  - ma_walk_by_opp and ma_walk_by_entry are the two walks of one chunk, for ops->chunk; they
 *    call visit once per entry and stop when th->rc is set. They are header-only and always
 *    inlined, so that each checker's visit is compiled into its chunk: one call per chunk, none
 *    per entry.
 *  - Every discrepancy a thread finds goes through ma_walk_push; an item is a struct whose first
 *    member is its uint64_t entry.
 * The walk reads its inputs only; it allocates, and frees in ma_walk_free, everything it plans.
 */
#ifndef MA_CHECK_WALK_H
#define MA_CHECK_WALK_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "verifier/check/fused_turns.h"
#include "verifier/check/resident.h"
#include "verifier/check/rules.h"
#include "verifier/check/turn_masks.h"
#include "verifier/check/visited.h"

/* Entries per chunk of the walk in entry order. */
#define MA_WALK_CHUNK 4096
/* Bodies up to this total are copied into huge-page backed memory before the walk: the lookups
 * are random, and with 4 KiB pages nearly every one misses the TLB. Also the private read's budget
 * (verifier/run/run_unit.c); 4 GiB since the 7-stone set's largest units (2.1-2.2 GB) read through
 * 4 KiB mapped pages took up to 2.6x the CPU of a private read (docs/performance.md). */
#define MA_WALK_RESIDENT_BUDGET ((uint64_t)4 << 30)
typedef struct ma_walk ma_walk;

/* The first member of each checker's worker: what the walk knows of one thread. */
typedef struct ma_walk_thread {
    ma_walk *walk;
    int index;                 /* 0 is the caller's thread */
    int rc;                    /* non-zero: this thread failed; the walk stops */
    _Atomic uint64_t *visited; /* where this thread marks (NULL: the walk keeps no bitmap) */
    /* The maps of the walk's current opponent mask for ma_fused_turns: grp is the thread's own,
     * set by the checker; group_ok is set while a walk by opponent mask has made them. */
    int group_ok;
    ma_fused_group *grp;
    void *items;               /* the thread's discrepancies (ma_walk_push) */
    size_t n_items, cap;
} ma_walk_thread;

typedef struct ma_walk_ops {
    int (*start)(ma_walk_thread *th);
    uint64_t (*chunk)(ma_walk_thread *th, uint64_t lo, uint64_t hi);
    void (*stop)(ma_walk_thread *th);
} ma_walk_ops;

/* What ma_walk_plan needs to know of the sector. */
typedef struct ma_walk_sector {
    uint64_t entries;
    int w, b;                  /* mover and opponent stones */
    uint64_t per_rep;          /* entries per representative: C(24 - W, B) */
    uint64_t n_reps;
    /* representative r of the index ix (rank order) and the ops other than the identity that fix
     * it, as bits */
    void (*rep)(const void *ix, int w, uint64_t r, uint32_t *rep, uint16_t *stab);
    const void *ix;
    const ma_vrules *rules;    /* the rules in the representatives' numbering (turn rows) */
    uint64_t opp_chunk;        /* entries per chunk, about, of the walk by opponent mask */
    int mark_by_entry;         /* keep the visited bitmap in the walk in entry order too */
} ma_walk_sector;

struct ma_walk {
    uint64_t entries;
    int w, b;
    uint64_t per_rep;
    uint64_t n_reps;
    uint32_t *reps;            /* representatives in rank order */
    uint16_t *stab;            /* per representative: ops other than the identity that fix it */
    int by_opp;                /* walk by opponent mask (else entry order) */
    uint64_t n_opp;            /* C(24, B) */
    uint64_t n_tiles;          /* representatives in tiles of 64 */
    uint64_t *without;         /* without[t * 24 + p]: bit j when representative 64t + j exists and
                                  leaves p free */
    ma_turn_masks turn_rows;   /* each representative's destinations (by_opp) */
    /* set by the checker before ma_walk_run when it walks by opponent mask with ma_fused_turns:
     * the generator's sector, and whether its maps may be made (every mover count prepared) */
    const ma_fused_sector *fused;
    int group_maps;
    uint64_t per, end, n_chunks; /* chunks of `per` masks or entries below `end` */
    _Atomic uint64_t *visited; /* the walk's bitmap, NULL for none */
    ma_visited_team team;
    uint64_t budget;           /* of the copies (ma_walk_copies), from ma_walk_init: the
                                  checker's ma_check_resident_budget (verifier/check/memory.h) */
    ma_resident copies;        /* the huge-page copies and the zeroing of visited */
    void *mem[MA_RESIDENT_PARTS];
    int n_mem;
    const volatile sig_atomic_t *cancel;
    ma_progress *progress;
    const ma_walk_ops *ops;
    _Atomic uint64_t next_chunk;
    atomic_int failed;
    atomic_int canceled;       /* a thread saw *cancel set */
};

/* An empty walk whose copies are held to budget (ma_walk_copies; 0: MA_WALK_RESIDENT_BUDGET). */
void ma_walk_init(ma_walk *wk, uint64_t budget);
void ma_walk_free(ma_walk *wk);

/* The plan of the sector s. 0, MA_ENOMEM, or MA_EINTERNAL (a representative of another stone
 * count: an index bug). */
int ma_walk_plan(ma_walk *wk, const ma_walk_sector *s);

/* The plan of a walk over `entries` entries in entry order, without tables or bitmap. */
void ma_walk_plan_entries(ma_walk *wk, uint64_t entries);

/* Plans huge-page copies of the bodies src[0..n-1] of bytes[i] bytes (a body named twice is
 * copied once; NULL ones are skipped) when the total of their files' sizes file[i] (the whole
 * file body i is part of; >= bytes[i]) is within MA_RESIDENT_PAGE .. wk->budget:
 * out[i] is where the walk reads body i, its copy or src[i] itself (when out of budget, or its
 * memory could not be had). Returns 1 when the total was within the budget. The budget is judged
 * on whole files, which a plan knows without opening them, so that a task's memory can be
 * planned exactly (verifier/check/memory.h). The copies are made by the walk's threads. A body
 * with kind[i] == MA_WALK_MAPPED (ma_walk_body_kind) has its pages dropped from the mapping as
 * it is copied (ma_resident_add's drop_src): the walk reads the copy, and nothing is held twice. A
 * body with kind[i] == MA_WALK_PRIVATE is already in private memory (its file was read privately,
 * checksums/private_read.h; on huge pages from 2 MiB up): it is never copied (out[i] = src[i])
 * and never dropped (anonymous memory dropped would read back as zeros); its file still counts in
 * the total, so the budget is judged on the same whole files either way. kind may be NULL (none
 * is either). */
int ma_walk_copies(ma_walk *wk, const void *const src[], const size_t bytes[], const uint64_t file[],
                   const int kind[], int n, const void *out[]);

/* Non-zero when bodies whose files total `total` bytes are copied (ma_walk_copies) under budget:
 * MA_RESIDENT_PAGE .. budget. The rule of the copies alone, which the memory plan
 * (verifier/check/memory.h) follows too with MA_WALK_RESIDENT_BUDGET; whether a verify run reads a
 * unit's files privately is another rule (ma_vr_unit_private, verifier/run/run_internal.h: up to
 * the same budget, from 0 bytes), under which nothing is copied at all. */
static inline int ma_walk_within_budget(uint64_t total, uint64_t budget)
{
    return total >= MA_RESIDENT_PAGE && total <= budget;
}

/* Non-zero when [p, p + bytes) lies inside [map, map + size), a format reader's read-only
 * MAP_PRIVATE file mapping: the only memory whose pages ma_walk_copies may drop once copied. */
static inline int ma_walk_in_mapping(const void *p, size_t bytes, const void *map, size_t size)
{
    uintptr_t a = (uintptr_t)p, m = (uintptr_t)map;
    return map && p && a >= m && a - m <= size && bytes <= size - (a - m);
}

/* What ma_walk_copies may do with a body p of `bytes` bytes of a file whose reader holds it at
 * [map, map + size): MA_WALK_PRIVATE when the reader read the file privately (private_read
 * non-zero), MA_WALK_MAPPED when the body lies inside the reader's file mapping, else 0. */
#define MA_WALK_MAPPED 1
#define MA_WALK_PRIVATE 2
static inline int ma_walk_body_kind(const void *p, size_t bytes, const void *map, size_t size,
                                    int private_read)
{
    if (private_read)
        return MA_WALK_PRIVATE;
    return ma_walk_in_mapping(p, bytes, map, size) ? MA_WALK_MAPPED : 0;
}

/* Runs the walk on `threads` threads (fewer when a thread cannot be started) over workers, an
 * array of `threads` structs of `size` bytes each beginning with a ma_walk_thread. cancel and
 * progress may be NULL. Returns the number of threads that took part. */
int ma_walk_run(ma_walk *wk, void *workers, size_t size, int threads, const ma_walk_ops *ops,
                const volatile sig_atomic_t *cancel, ma_progress *progress);

/* After the walk, when `ran` threads took part: MA_VISITED_ALL when every entry was marked
 * exactly once (or the walk kept no bitmap), else as ma_visited_team_cover with *entry. */
int ma_walk_cover(const ma_walk *wk, int ran, uint64_t *entry);

/* Adds an item of `size` bytes to the thread's discrepancies: MA_OK or MA_ENOMEM. */
int ma_walk_push(ma_walk_thread *th, const void *item, size_t size);

/* The discrepancies of the n workers (as for ma_walk_run) in one array sorted by entry, in
 * *items (NULL when none) and *n_items, when keep; the threads' own lists are freed either way.
 * MA_OK or MA_ENOMEM. */
int ma_walk_join(void *workers, size_t size, int n, size_t item_size, int keep, void **items,
                 size_t *n_items);

/* The k-subset of the 24 points with colex rank c (the c-th in increasing numeric order). */
uint32_t ma_walk_colex_subset(uint64_t c, int k);

/* The next subset of free_pts of the same size in colex order; x must not be the last one. The
 * addition carries through the lowest run of x (non-free points are set so the carry skips them)
 * onto the next free point; the run's other stones return to the lowest free points. */
static inline uint32_t ma_walk_next_subset(uint32_t x, uint32_t free_pts)
{
    uint32_t sum = ((x | ~free_pts) + (x & (0u - x))) & free_pts;
    int lost = __builtin_popcount(x) - __builtin_popcount(sum);
    uint32_t fill = 0;
    for (; lost > 0; lost--, free_pts &= free_pts - 1)
        fill |= free_pts & (0u - free_pts);
    return sum | fill;
}

/* Walks opponent masks c_lo..c_hi-1 (colex order): for each, every representative beside it in
 * rank order, calling visit(th, ctx, r, opp, entry, first) with the entry of representative r
 * (r * per_rep + rank(ix, reps[r], opp)) and first = 1 at the mask's first entry. Each entry is
 * computed one ahead, and ahead(th, ctx, entry) called with it when a next one of the same tile
 * exists, so that a checker may prefetch what it reads for it (ahead NULL: each entry is computed
 * as it is visited). ctx is the
 * checker's, passed through (its sector's tables: loaded once per chunk, not per entry). Starts
 * the thread's group maps for every mask when wk->group_maps. Returns the entries visited. */
static inline __attribute__((always_inline)) uint64_t
ma_walk_by_opp(ma_walk_thread *th, uint64_t c_lo, uint64_t c_hi,
               uint64_t (*rank)(const void *ix, uint32_t rep, uint32_t opp), const void *ix,
               const void *ctx, void (*ahead)(ma_walk_thread *th, const void *ctx, uint64_t entry),
               void (*visit)(ma_walk_thread *th, const void *ctx, uint64_t r, uint32_t opp,
                             uint64_t entry, int first))
{
    const ma_walk *wk = th->walk;
    /* the plan in locals: visit writes through th, which the compiler cannot tell from the plan,
     * so fields read through wk would be loaded again for every entry */
    const uint64_t per_rep = wk->per_rep, n_tiles = wk->n_tiles, n_reps = wk->n_reps;
    const uint32_t *const reps = wk->reps;
    const uint64_t *const without = wk->without;
    uint32_t opp = ma_walk_colex_subset(c_lo, wk->b);
    uint64_t done = 0;
    for (uint64_t c = c_lo; c < c_hi && !th->rc; c++) {
        int first = 1;
        /* the group's maps (a pending entry was ranked when it was prepared, so changing the maps
         * here does not touch it) */
        th->group_ok = wk->group_maps;
        if (th->group_ok)
            (void)ma_fused_group_start(th->grp, wk->fused, opp);
        for (uint64_t t = 0; t < n_tiles && !th->rc; t++) {
            const uint64_t *wo = without + t * MA_POINTS;
            uint64_t left = n_reps - 64 * t; /* representatives in this tile */
            uint64_t beside = left >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1;
            for (uint32_t o = opp; o; o &= o - 1)
                beside &= wo[__builtin_ctz(o)];
            if (!ahead) {
                /* ahead is a constant: this loop or the next is compiled; without it each entry
                 * is computed when it is visited */
                for (; beside && !th->rc; beside &= beside - 1) {
                    uint64_t r = 64 * t + (uint64_t)__builtin_ctzll(beside);
                    visit(th, ctx, r, opp, r * per_rep + rank(ix, reps[r], opp), first);
                    first = 0;
                    done++;
                }
                continue;
            }
            uint64_t r = 0, e = 0;
            if (beside) {
                r = 64 * t + (uint64_t)__builtin_ctzll(beside);
                e = r * per_rep + rank(ix, reps[r], opp);
            }
            for (; beside && !th->rc; beside &= beside - 1) {
                uint64_t rest = beside & (beside - 1), r_next = 0, e_next = 0;
                if (rest) {
                    r_next = 64 * t + (uint64_t)__builtin_ctzll(rest);
                    e_next = r_next * per_rep + rank(ix, reps[r_next], opp);
                    ahead(th, ctx, e_next);
                }
                visit(th, ctx, r, opp, e, first);
                first = 0;
                done++;
                r = r_next;
                e = e_next;
            }
        }
        if (opp && c + 1 < c_hi) {
            /* the next mask of the same size in increasing order (Gosper) */
            uint32_t low = opp & (0u - opp), ripple = opp + low;
            opp = (((ripple ^ opp) >> 2) / low) | ripple;
        }
    }
    th->group_ok = 0; /* the walk in entry order has no group */
    return done;
}

/* Walks entries lo..hi-1 in entry order, calling visit(th, ctx, r, opp, entry, first) with
 * first = 1 where the board was unranked (unrank_opp(ix, W, B, entry): the opponent mask) and not
 * stepped from the previous entry's. Returns the entries visited. */
static inline __attribute__((always_inline)) uint64_t
ma_walk_by_entry(ma_walk_thread *th, uint64_t lo, uint64_t hi,
                 uint32_t (*unrank_opp)(const void *ix, int w, int b, uint64_t entry),
                 const void *ix, const void *ctx,
                 void (*visit)(ma_walk_thread *th, const void *ctx, uint64_t r, uint32_t opp,
                               uint64_t entry, int first))
{
    const ma_walk *wk = th->walk;
    const uint64_t per_rep = wk->per_rep; /* in a local, as in ma_walk_by_opp */
    uint32_t opp = 0, free_pts = 0;
    uint64_t r = 0, g = 0;
    for (uint64_t e = lo; e < hi && !th->rc; e++) {
        int fresh = e == lo || g + 1 == per_rep;
        if (fresh) {
            opp = unrank_opp(ix, wk->w, wk->b, e);
            r = e / per_rep;
            g = e % per_rep;
            free_pts = ~wk->reps[r] & MA_FULL_MASK;
        } else {
            opp = ma_walk_next_subset(opp, free_pts);
            g++;
        }
        visit(th, ctx, r, opp, e, fresh);
    }
    return hi - lo;
}

#endif
