/*
 * Colex ranks of subsets of the 24 points, as both index schemes rank opponent placements and
 * mover masks (docs/format.md §4.3, ../shared/docs/malom-format.md §4.4): the rank of the set
 * {p_1 < p_2 < ... < p_k} is the sum of C(p_i, i), its place among the k-subsets in increasing
 * numeric order.
 *
 * Two tables split the points at 12, so a rank is two loads and one popcount (the checkers rank
 * every successor this way; three byte tables took two popcounts, three loads and the index
 * arithmetic of two 2-D rows):
 *   lo[x]:    the rank of the subset x of points 0..11;
 *   hi[j][y]: what the points 12 + (bits of y) add to a set with j members below point 12.
 *
 * Contract: after ma_colex_build, ma_colex_rank(t, c) is the colex rank of c for every c below
 * 2^24. 208 KiB; read-only after the build, so any number of threads may rank at once.
 */
#ifndef MA_COLEX_H
#define MA_COLEX_H

#include <stddef.h>
#include <stdint.h>

#define MA_COLEX_HI_ROWS 13 /* members below point 12: 0..12 */

typedef struct ma_colex {
    uint32_t lo[1u << 12];
    uint32_t hi[MA_COLEX_HI_ROWS][1u << 12];
} ma_colex;

void ma_colex_build(ma_colex *t);

static inline uint32_t ma_colex_rank(const ma_colex *t, uint32_t c)
{
    uint32_t lo = c & 0xFFFu;
    /* pointer-wide: no sign extension between the popcount and the load */
    size_t j = (size_t)__builtin_popcount(lo);
    return t->lo[lo] + t->hi[j][(c >> 12) & 0xFFFu];
}

#endif
