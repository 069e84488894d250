/*
 * Checker-side positions: variants, sectors, boards and the a1..g7 notation.
 *
 * Boards use the open scheme's point numbering (docs/format.md §1: a1=0, d1=1, g1=2, b2=3, ...,
 * g7=23). This is the checker's own code: solver/ has its own and the two never share it.
 */
#ifndef MA_POSITION_H
#define MA_POSITION_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "millaudit/types.h"

#define MA_POINTS 24
#define MA_FULL_MASK 0xFFFFFFu




/* Stones per side of the full game: 9, 10, 12. */
int ma_variant_stones(ma_variant v);

/* docs/format.md §3: W+WF <= N, B+BF <= N, W+WF >= 3, B+BF >= 3, W+B <= 24. */
int ma_sector_valid(ma_variant v, ma_sector s);
/* The same sector seen by the other side: (B, W, BF, WF). */
ma_sector ma_sector_negate(ma_sector s);
int ma_sector_equal(ma_sector a, ma_sector b);

/* Point names "a1".."g7" <-> bit numbers; -1 / NULL when not a point. */
int ma_point_from_name(const char *name);
const char *ma_point_name(int point);

/* The colour swap applied after every ply: mover and opponent exchange roles. */
static inline ma_board ma_board_swap(ma_board b)
{
    ma_board r = {b.opp, b.mover};
    return r;
}


#endif
