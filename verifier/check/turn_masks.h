/*
 * The destinations of every turn of a representative mover mask, split by whether the turn closes
 * a mill: made once per sector, so the checkers' fused generators test no mill per successor.
 *
 * Contract. For mover masks reps[0..n-1] under rules r (any numbering: relabelled rules give masks
 * in their numbering), ma_turn_masks_build makes `rows` rows per mask m, in the order the fused
 * generators visit turns:
 *  - when r->can_place, one row for placing: rest = m, candidates = every point not in m;
 *  - when r->can_move, one row per stone x of m in increasing point order: rest = m less x,
 *    candidates = every point not in m when r->flying, else the neighbours of x not in m.
 * A candidate d is in `closing` when ma_vrules_closes_mill(r, rest | d, d), else in `plain`. The
 * opponent's stones are not known here: a generator keeps a destination only where the opponent
 * mask o leaves it free (plain & ~o, closing & ~o), which with the candidates' exclusion of m is
 * exactly the free points of the board (m | o).
 *
 * A built table is read-only and may be shared by threads.
 */
#ifndef MA_CHECK_TURN_MASKS_H
#define MA_CHECK_TURN_MASKS_H

#include <stdint.h>

#include "verifier/check/rules.h"

typedef struct ma_turn_dests {
    uint32_t plain;   /* destinations whose turn closes no mill */
    uint32_t closing; /* destinations whose turn closes a mill */
} ma_turn_dests;

typedef struct ma_turn_masks {
    int rows;             /* rows per mask: r->can_place + (r->can_move ? stones : 0) */
    ma_turn_dests *dests; /* dests[i * rows + row] for reps[i] */
} ma_turn_masks;

/* Builds the rows of reps[0..n-1], each of `stones` stones. 0; MA_EINVAL when a mask has another
 * stone count, MA_ENOMEM (tm left empty either way). */
int ma_turn_masks_build(ma_turn_masks *tm, const ma_vrules *r, const uint32_t *reps, uint64_t n,
                        int stones);

void ma_turn_masks_free(ma_turn_masks *tm);

/* The first row of reps[i]. */
static inline const ma_turn_dests *ma_turn_masks_of(const ma_turn_masks *tm, uint64_t i)
{
    return tm->dests + i * (uint64_t)tm->rows;
}

#endif
