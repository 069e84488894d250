/*
 * The rank of boards that share one mover mask m, in either index scheme the checker implements
 * (the open scheme, docs/format.md §4.3, and Malom's, ../shared/docs/malom-format.md §4.4; each
 * index module fills the map in its own numbering: ma_open_index_mover_map,
 * ma_malom_index_mover_map).
 *
 * Both schemes rank a board by its mover mask's representative block plus the colex rank of the
 * compressed opponent image under an op that maps m onto its representative. Each such op and the
 * compress step distribute over union, so the compressed opponent image is the OR of one word per
 * opponent point, and a turn that moves one opponent point changes two of them. Both take the
 * least image over those ops; compress keeps the order of masks disjoint from the representative
 * (it only deletes bits both lack), so the least compressed image is the compressed least image.
 * The checkers rank the successors of one position that keep its opponent mask as their mover
 * mask (every turn without a removal) this way, with no board written and no cache slot looked up
 * per successor (verifier/check/fused_turns.h).
 *
 * Contract, as filled by an index module for mover mask m of w stones:
 *   nops:        the ops reaching the representative (1 for most masks, at most 16);
 *   point[s][p]: the compressed image of point p under the s-th of them (0 for a point of m);
 *   block[k]:    the first index of the representative's block for opponents of k stones
 *                (the representative's rank times C(24 - w, k));
 *   colex:       the index's colex tables (indexer/colex.h).
 * ma_mover_map_rank(mm, ma_mover_map_least(mm, opp), popcount(opp)) is then the index of (m, opp)
 * in that scheme, for every opp disjoint from m. Header-only: used in the checkers' innermost
 * loops. A map is about 1.8 KiB.
 */
#ifndef MA_MOVER_MAP_H
#define MA_MOVER_MAP_H

#include <stdint.h>

#include "indexer/colex.h"
#include "indexer/position.h"

#define MA_MOVER_MAP_OPS 16

typedef struct ma_mover_map {
    int nops;
    uint32_t point[MA_MOVER_MAP_OPS][MA_POINTS];
    uint64_t block[MA_POINTS + 1];
    const ma_colex *colex;
} ma_mover_map;

/* The least compressed image of opp under mm's ops: the c ma_mover_map_rank takes. */
static inline uint32_t ma_mover_map_least(const ma_mover_map *mm, uint32_t opp)
{
    uint32_t best = UINT32_MAX;
    for (int s = 0; s < mm->nops; s++) {
        uint32_t c = 0;
        for (uint32_t y = opp; y; y &= y - 1)
            c |= mm->point[s][__builtin_ctz(y)];
        best = c < best ? c : best;
    }
    return best;
}

/* The colex rank of a compressed opponent image c (§4.3, §4.4), its place in the
 * representative's block: two table loads. */
static inline uint64_t ma_mover_map_colex(const ma_mover_map *mm, uint32_t c)
{
    return ma_colex_rank(mm->colex, c);
}

/* The index of the board (m, opp) of k opponent stones, given c = the least compressed image of
 * opp (ma_mover_map_least). */
static inline uint64_t ma_mover_map_rank(const ma_mover_map *mm, uint32_t c, int k)
{
    return mm->block[k] + ma_mover_map_colex(mm, c);
}

#endif
