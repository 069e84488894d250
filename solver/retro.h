/*
 * retro: solves one component of the sector graph (one sector, or a twin pair {S, negate(S)})
 * from the stored values of its children, by retrograde analysis with Gasser's count/value union,
 * on one or more threads. The result does not depend on the number of threads (below).
 *
 * Every member entry has one u16 work word. While unresolved it holds the number of distinct
 * internal successor classes not yet known to be wins for the opponent (plus a bias of 0x1000
 * when some turn already guarantees a draw or win, so the count never reaches 0); once resolved
 * it holds the final value in the file encoding (docs/format.md §5.3): 0x4000|n loss, 0xC000|n
 * win, 0x8000 draw. Non-canonical entries hold 0x0000 throughout. Entries whose count reaches 0
 * wait in a depth queue with word 0 ("pending loss") until their depth is processed.
 *
 * Phases, each split among the threads and closed by a barrier:
 *  1. init: every canonical entry's turns are generated (entries are independent); wins through
 *     a child are queued as win candidates at their depth, entries without internal successors as
 *     losses.
 *  2. depth d = 0, 1, 2, ...: the queue of depth d is complete before the phase starts (every
 *     push goes to a deeper queue). Even d: the queued entries become losses in d; every
 *     predecessor still counting becomes a win in d + 1 at once (compare-and-swap: the thread
 *     that changes the word queues the entry, so each is queued once). Odd d: queued win
 *     candidates still counting become wins in d (compare-and-swap); every entry won at d
 *     decrements its counting predecessors (atomic), and the thread whose decrement reaches 0
 *     queues the predecessor as a loss in max(L, d + 1), L its longest loss through a child.
 *     Within a phase the threads only ever move a word from "counting" to one fixed value (win in
 *     d + 1, win in d, count - 1), so the words at the end of the phase, and hence the queues of
 *     later depths as sets, are the same in every interleaving.
 *  3. entries never resolved are draws; per-member counts are taken.
 * A component without cycles needs phase 1 only: every value follows from the children at once.
 *
 * For the Malom export a member may carry `state` (solver/svmalom_value.h): the init pass then
 * stores in state[e].key every canonical entry's exit, the best value (malom-format.md §5.8,
 * cor = v(C) + v(S)) over its turns into children that hold a draw, read from the children's
 * `keys` (MA_SVM_NO_EXIT when none, or when no child has keys), and phase 3 stores per draw the
 * count its word was left with, which is the number of its distinct internal successor classes
 * that are draws (every other class was a win for the opponent, and a loss would have made the
 * entry a win), in state[e].count and state[e].rem; every other entry is marked MA_SVM_SETTLED.
 * This costs one more read per turn into a child, where the child's value is read anyway.
 */
#ifndef MA_RETRO_H
#define MA_RETRO_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "solver/svindex.h"
#include "solver/svmalom_value.h"
#include "solver/svrules.h"

#define MA_RETRO_MAX_CHILDREN 16
/* Entries are numbered with 30 bits in the queues (the largest sector of any variant, 8_8, has
 * 603 million entries). */
#define MA_RETRO_MAX_ENTRIES ((uint64_t)1 << 30)
/* Queue bytes per member entry, at most: every canonical entry is queued at most twice (once by
 * the init pass, once when it is resolved), 4 bytes each. */
#define MA_RETRO_QUEUE_BYTES_PER_ENTRY 8

typedef struct ma_retro_table {
    ma_sv_sector sector;
    uint64_t entries;
    uint16_t *vals;        /* entries words: children's stored values, or members' results */
    /* Only for the Malom export (solver/svmalom.h), NULL / 0 otherwise: */
    int value;             /* v(S), malom-format.md §5.4-5.6 */
    const ma_svm_key *keys;   /* a child's stored (key1, key2) by open entry, read at its draws */
    ma_svm_state *state;   /* a member's, out: see above */
} ma_retro_table;

typedef struct ma_retro_stats {
    uint64_t canonical, wins, draws, losses;
    int max_depth;         /* largest win or loss depth, -1 if none */
} ma_retro_stats;

typedef struct ma_retro_job {
    const ma_svrules *rules;
    const ma_svindex *ix;  /* prepared for every W and B of members and children */
    int cyclic;            /* from the sector graph: turns can stay inside the component */
    int nmembers;
    ma_retro_table members[2];
    int nchildren;
    ma_retro_table children[MA_RETRO_MAX_CHILDREN];
    int threads;           /* >= 1 */
    ma_progress *progress; /* NULL: none; entries of the init pass are added to it */
    const atomic_int *cancel; /* NULL, or non-zero when the caller wants the work to stop */
    uint64_t peak_queue_bytes; /* out: largest number of bytes the depth queues held at once */
} ma_retro_job;

/* Fills members[i].vals (allocated by the caller, `entries` words each) and stats[i].
 * MA_ECANCELED when *cancel became non-zero. */
int ma_retro_solve(ma_retro_job *job, ma_retro_stats stats[2], ma_error *err);

/* Value arithmetic of docs/format.md §2 on encoded words. */
uint16_t ma_retro_negate(uint16_t successor_value);   /* successor's view -> mover's view */
int ma_retro_better(uint16_t a, uint16_t b);           /* a is strictly better for the mover */

#endif
