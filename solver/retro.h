/*
 * retro: solves one component of the sector graph (one sector, or a twin pair {S, negate(S)})
 * from the stored values of its children, by retrograde analysis with Gasser's count/value union.
 *
 * Every member entry has one u16 work word. While unresolved it holds the number of distinct
 * internal successor classes not yet known to be wins for the opponent (plus a bias of 0x1000
 * when some turn already guarantees a draw or win, so the count never reaches 0); once resolved
 * it holds the final value in the file encoding (docs/format.md §5.3): 0x4000|n loss, 0xC000|n
 * win, 0x8000 draw. Non-canonical entries hold 0x0000 throughout. Entries whose count reaches 0
 * wait in a depth bucket with word 0 ("pending loss") until their depth is processed.
 *
 * Depth buckets are processed in increasing depth; a popped entry is resolved (win at odd depth,
 * loss at even depth) and its predecessors (non-mill un-moves, canonicalised, deduplicated) are
 * updated: a loss makes them wins one ply deeper, a win decrements their count. Entries never
 * resolved are draws. A component without cycles skips the buckets: every value follows from the
 * children at once.
 */
#ifndef MA_RETRO_H
#define MA_RETRO_H

#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "solver/svindex.h"
#include "solver/svrules.h"

#define MA_RETRO_MAX_CHILDREN 16

typedef struct ma_retro_table {
    ma_sv_sector sector;
    uint64_t entries;
    uint16_t *vals;        /* entries words: children's stored values, or members' results */
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
    /* The run's progress display (one per command, common/progress.h), NULL for none. A component
     * counts its members' entries: half when the initial pass is done, the rest as the retrograde
     * phase pops entries (capped) and when it ends. */
    ma_progress *progress;
} ma_retro_job;

/* Fills members[i].vals (allocated by the caller, `entries` words each) and stats[i]. */
int ma_retro_solve(ma_retro_job *job, ma_retro_stats stats[2], ma_error *err);

/* Value arithmetic of docs/format.md §2 on encoded words. */
uint16_t ma_retro_negate(uint16_t successor_value);   /* successor's view -> mover's view */
int ma_retro_better(uint16_t a, uint16_t b);           /* a is strictly better for the mover */

#endif
