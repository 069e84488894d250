/*
 * svmalom_ultra: the ranked draws a `.sec2` stores (malom-format.md §5.5, §5.8), derived from the
 * producer's own solution of one sector-graph component.
 *
 * The open format stores win/loss with a depth, and "draw". Malom's ultra-strong format also
 * ranks draws: a draw stores (key1, key2) relative to the sector value v(S), where A = key1 + v(S)
 * is the value of the sector in which the game settles under best play (the side to move
 * maximises A, the opponent minimises it; endless play in S itself is worth v(S), stored as a
 * "Count" with key1 = 0), and key2 is a distance-like tie-breaker. The local rule of §6 (the
 * stored entry equals the best turn value under the §5.8 order) defines what must be stored.
 *
 * Wins and losses are the producer's own. The retrograde analysis that solved the component
 * (solver/retro.h) leaves per entry an ma_svm_state: the draw's "exit" (its best draw-valued turn
 * into a child, already corrected and negated by §5.8) and the number of its distinct internal
 * successor classes that are draws. From these:
 *  - acyclic component: the exit is the value (a draw without one is an internal error);
 *  - cyclic component: non-mill moves stay inside with correction 0, so a turn maps (k1, k2) to
 *    (-k1, k2 + 1) and a Count to (0, 0). Let T be the |key1| > 0 of all exits. Levels t of T are
 *    settled from the largest down, each in increasing key2 (Dijkstra with buckets, key2 being an
 *    integer):
 *      - an open draw with an exit (t, k2), or one turn into an entry settled at (-t, d), can
 *        force key1 >= t; the smallest such key2 (the exit's k2, or d + 1) is taken first and
 *        settles it at (t, key2);
 *      - an open draw whose exit is <= -t (or which has none) and whose internal draw successors
 *        all settled at some level >= t is forced to key1 <= -t: it settles at (-t, k2) the
 *        moment its last successor settles at (t, d), with k2 = d + 1 or the exit's k2 if that
 *        exit is (-t, k2) and longer (a per-entry counter of the successor classes not yet
 *        settled with key1 > 0, decremented once per distinct class, tells when), or at the start
 *        of level t when the counter reached 0 at a higher level and the exit is (-t, k2);
 *      - draws never settled are Counts; their counter (malom-format.md §8.5) is the number of
 *        distinct internal draw successor classes.
 *    Because settled sets only grow as t decreases, one pass over the levels settles each entry
 *    exactly once and generates the predecessors of each settled entry once: the cost is one
 *    retrograde step per settled draw, and nothing for Counts.
 *    An entry is settled the moment its value is known, not when its bucket comes up: at (-t, k2)
 *    when its counter reaches 0, at (t, d + 1) when a successor settles at (-t, d) (nothing but
 *    its own exit (t, d), a seed of the bucket at work, can give it less any more). So every entry
 *    is queued once (those settled at -t in a queue of their own), and a bitmap of the settled
 *    entries (a bit per entry) drops most predecessors without reading their state.
 *    A bucket is done in chunks of two phases: its items' predecessors are collected as edges
 *    (4 bytes: the predecessor's entry, and whether the successor settled at -t) into lists per
 *    partition of the predecessors' entries (64 Ki entries, 512 KiB of states), then the edges are
 *    applied a partition at a time, so the states read at random stay in a core's cache. A chunk
 *    holds at most half as many edges as the members have entries.
 *
 * Threads: the items of a bucket are shared among the threads, then its partitions; each phase is
 * closed by a barrier; a bucket of at most a few thousand items is taken by one thread between two
 * phases (the barriers would cost more). While edges are collected a thread writes only the states
 * of its own seeds (an entry has one seed item a level), while they are applied only the states and
 * bitmap words of its own partitions, so no locked instruction is needed but for the bitmap words
 * seeds share. What an entry settles to depends only on the level and the bucket, never on the
 * order of its edges nor on how a bucket is split into chunks (an entry that can force key1 >= t
 * keeps a successor that never settles at +t, so its counter never reaches 0), and every push goes
 * to a later bucket. So the stored values are the same for every number of threads and every
 * interleaving.
 */
#ifndef MA_SVMALOM_ULTRA_H
#define MA_SVMALOM_ULTRA_H

#include <stdatomic.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "solver/svindex.h"
#include "solver/svmalom_value.h"
#include "solver/svrules.h"

typedef struct ma_svm_rank_member {
    ma_sv_sector sector;
    uint64_t entries;       /* open-index entries */
    const uint16_t *open;   /* the producer's values (docs/format.md §5.3) */
    ma_svm_state *state;    /* in: from solver/retro.h; out: a draw stores its key where it is
                               MA_SVM_SETTLED and key1 != 0, and is a Count everywhere else */
} ma_svm_rank_member;

typedef struct ma_svm_rank_job {
    const ma_svrules *rules;
    const ma_svindex *ix;   /* open index, prepared for every W and B of the members */
    int cyclic;             /* from the sector graph */
    int nmembers;
    ma_svm_rank_member members[2];
    int threads;            /* >= 1 */
    const atomic_int *cancel; /* NULL, or non-zero when the caller wants the work to stop */
    ma_progress *progress;  /* NULL, or a display whose label names the level at work */
} ma_svm_rank_job;

typedef struct ma_svm_rank_stats {
    uint64_t levels;         /* thresholds t */
    uint64_t settled;        /* draws settled at a level */
    uint64_t queue_peak_bytes; /* the most the bucket queues held at once */
} ma_svm_rank_stats;

/* Ranks the draws of the members. MA_EINTERNAL when the producer's solution and its rules disagree
 * (e.g. a draw without a draw-valued turn), MA_ECANCELED when *cancel became non-zero. */
int ma_svm_rank(ma_svm_rank_job *job, ma_svm_rank_stats *stats, ma_error *err);

#endif
