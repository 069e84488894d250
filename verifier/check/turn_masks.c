#include "verifier/check/turn_masks.h"

#include <stdlib.h>

#include "common/ma_error.h"

static ma_turn_dests split(const ma_vrules *r, uint32_t rest, uint32_t candidates)
{
    ma_turn_dests t = {0, 0};
    for (uint32_t c = candidates; c; c &= c - 1) {
        int d = __builtin_ctz(c);
        if (ma_vrules_closes_mill(r, rest | 1u << d, d))
            t.closing |= 1u << d;
        else
            t.plain |= 1u << d;
    }
    return t;
}

int ma_turn_masks_build(ma_turn_masks *tm, const ma_vrules *r, const uint32_t *reps, uint64_t n,
                        int stones)
{
    tm->rows = (r->can_place ? 1 : 0) + (r->can_move ? stones : 0);
    tm->dests = NULL;
    uint64_t cells = n * (uint64_t)tm->rows;
    if (cells == 0)
        return 0;
    tm->dests = malloc(cells * sizeof *tm->dests);
    if (!tm->dests) {
        tm->rows = 0;
        return MA_ENOMEM;
    }
    ma_turn_dests *row = tm->dests;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t m = reps[i], free_pts = MA_FULL_MASK & ~m;
        if (__builtin_popcount(m) != stones) {
            ma_turn_masks_free(tm);
            return MA_EINVAL; /* the rows of every later mask would be misplaced */
        }
        if (r->can_place)
            *row++ = split(r, m, free_pts);
        if (r->can_move)
            for (uint32_t s = m; s; s &= s - 1) {
                int x = __builtin_ctz(s);
                *row++ = split(r, m & ~(1u << x), r->flying ? free_pts : free_pts & r->adj[x]);
            }
    }
    return 0;
}

void ma_turn_masks_free(ma_turn_masks *tm)
{
    free(tm->dests);
    tm->dests = NULL;
    tm->rows = 0;
}
