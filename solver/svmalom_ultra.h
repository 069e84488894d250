/*
 * svmalom_ultra: the values a `.sec2` stores (malom-format.md §5.5, §5.8), derived from the
 * producer's own solution of one sector-graph component.
 *
 * The open format stores win/loss with a depth, and "draw". Malom's ultra-strong format also
 * ranks draws: a draw stores (key1, key2) relative to the sector value v(S), where A = key1 + v(S)
 * is the value of the sector in which the game settles under best play (the side to move
 * maximises A, the opponent minimises it; endless play in S itself is worth v(S), stored as a
 * "Count" with key1 = 0), and key2 is a distance-like tie-breaker. The local rule of §6 (the
 * stored entry equals the best turn value under the §5.8 order) defines what must be stored.
 *
 * Wins and losses are taken from the producer's open values: (VW - v, depth), (VL - v, depth).
 * Draws are derived here:
 *  - the best "exit" of each draw: its best turn into a child sector (read from the child's .sec2,
 *    corrected and negated by §5.8). Only draw-valued turns count: every draw value ranks above
 *    every loss, and a draw has no winning turn.
 *  - acyclic component: that exit is the value.
 *  - cyclic component: non-mill moves stay inside (correction 0, so a turn maps (k1, k2) to
 *    (-k1, k2 + 1), and (0, x) to (0, 0)). For each threshold t > 0 among the exits' |key1|, from
 *    the largest down, a retrograde pass over the draws finds who can force ">= t" (some exit >= t,
 *    or a move to a position forced "<= -t") and who is forced "<= -t" (every exit <= -t and every
 *    internal draw successor can force ">= t"); the first t that holds fixes key1 = +t or -t.
 *    Draws never fixed are Count entries (key1 = 0). key2 within one layer {+t, -t} is then the
 *    min/max distance to the exits, solved Dijkstra-style in increasing key2 (the side with +t
 *    takes its smallest, the side with -t its largest; exits supply the base values).
 * Successor classes are canonicalised and deduplicated, as in the producer's retrograde analysis,
 * so counts stay exact although only canonical entries are stored.
 *
 * Count entries get a solver counter (key2 >= 0) that Malom treats as bookkeeping (§8.5): here, the
 * number of distinct internal draw successor classes (0 in acyclic components), which is what a
 * count/value retrograde analysis is left with. (Malom's own counters agree with it on most
 * entries of the real files, not on all: docs/solver.md.) With counts_only (legacy .sec, which
 * stores every draw as a Count) only these counters are derived.
 */
#ifndef MA_SVMALOM_ULTRA_H
#define MA_SVMALOM_ULTRA_H

#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "solver/svindex.h"
#include "solver/svmalom_file.h"
#include "solver/svmalom_index.h"
#include "solver/svrules.h"

#define MA_SVM_MAX_CHILDREN 16

/* One stored value, relative to v(S): key1 = 0 with key2 >= 0 is a Count. */
typedef struct ma_svm_key {
    int16_t k1, k2;
} ma_svm_key;

typedef struct ma_svm_member {
    ma_sv_sector sector;
    int value;              /* v(S) */
    uint64_t entries;       /* open-index entries */
    const uint16_t *open;   /* the producer's values (docs/format.md §5.3) */
    ma_svm_key *keys;       /* out: by open entry; (0, 0) at non-canonical entries */
} ma_svm_member;

typedef struct ma_svm_child {
    ma_sv_sector sector;
    int value;              /* v(C) */
    const ma_svm_reader *file;
} ma_svm_child;

typedef struct ma_svm_ultra_job {
    const ma_svrules *rules;
    const ma_svindex *ix;   /* open index, prepared for every W and B of members and children */
    const ma_svmidx *mix;   /* Malom index, prepared likewise (children are looked up by it) */
    int vw, vl;             /* virtual win / loss values */
    int cyclic;             /* from the sector graph */
    int counts_only;        /* for .sec: wins and losses, and every draw a Count with its counter;
                               no children needed */
    int nmembers;
    ma_svm_member members[2];
    int nchildren;
    ma_svm_child children[MA_SVM_MAX_CHILDREN];
    int quiet;              /* no progress lines */
    FILE *progress_out;     /* NULL: stderr */
} ma_svm_ultra_job;

typedef struct ma_svm_ultra_stats {
    uint64_t draws, counts, thresholds;
} ma_svm_ultra_stats;

/* Fills members[i].keys (allocated by the caller, `entries` each). MA_EINTERNAL when the open
 * values and the rules disagree (e.g. a draw with a winning turn), MA_EFORMAT when a child file
 * holds a marker where a value must be. */
int ma_svm_ultra_solve(ma_svm_ultra_job *job, ma_svm_ultra_stats *stats, ma_error *err);

/* §5.8: a < b in the order of turn values (key1 first; among equal key1 < 0 longer is better,
 * among equal key1 > 0 shorter is better; all key1 = 0 are equal). */
int ma_svm_less(int a1, int a2, int b1, int b2);

/* §5.8: the value, for the side to move in P, of a turn into a successor stored as (k1, k2) in
 * sector C, with cor = v(C) + v(P). */
void ma_svm_turn_value(int k1, int k2, int cor, int *m1, int *m2);

#endif
