/* svindex: table-driven sym16-colex. */
#include "solver/svindex.h"

#include <stdlib.h>
#include <string.h>

const uint8_t ma_svindex_perm[16][24] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
    {21, 9, 0, 18, 10, 3, 15, 11, 6, 22, 19, 16, 7, 4, 1, 17, 12, 8, 20, 13, 5, 23, 14, 2},
    {23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
    {2, 14, 23, 5, 13, 20, 8, 12, 17, 1, 4, 7, 16, 19, 22, 6, 11, 15, 3, 10, 18, 0, 9, 21},
    {2, 1, 0, 5, 4, 3, 8, 7, 6, 14, 13, 12, 11, 10, 9, 17, 16, 15, 20, 19, 18, 23, 22, 21},
    {21, 22, 23, 18, 19, 20, 15, 16, 17, 9, 10, 11, 12, 13, 14, 6, 7, 8, 3, 4, 5, 0, 1, 2},
    {23, 14, 2, 20, 13, 5, 17, 12, 8, 22, 19, 16, 7, 4, 1, 15, 11, 6, 18, 10, 3, 21, 9, 0},
    {0, 9, 21, 3, 10, 18, 6, 11, 15, 1, 4, 7, 16, 19, 22, 8, 12, 17, 5, 13, 20, 2, 14, 23},
    {6, 7, 8, 3, 4, 5, 0, 1, 2, 11, 10, 9, 14, 13, 12, 21, 22, 23, 18, 19, 20, 15, 16, 17},
    {15, 11, 6, 18, 10, 3, 21, 9, 0, 16, 19, 22, 1, 4, 7, 23, 14, 2, 20, 13, 5, 17, 12, 8},
    {17, 16, 15, 20, 19, 18, 23, 22, 21, 12, 13, 14, 9, 10, 11, 2, 1, 0, 5, 4, 3, 8, 7, 6},
    {8, 12, 17, 5, 13, 20, 2, 14, 23, 7, 4, 1, 22, 19, 16, 0, 9, 21, 3, 10, 18, 6, 11, 15},
    {8, 7, 6, 5, 4, 3, 2, 1, 0, 12, 13, 14, 9, 10, 11, 23, 22, 21, 20, 19, 18, 17, 16, 15},
    {15, 16, 17, 18, 19, 20, 21, 22, 23, 11, 10, 9, 14, 13, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8},
    {17, 12, 8, 20, 13, 5, 23, 14, 2, 16, 19, 22, 1, 4, 7, 21, 9, 0, 18, 10, 3, 15, 11, 6},
    {6, 11, 15, 3, 10, 18, 0, 9, 21, 7, 4, 1, 22, 19, 16, 2, 14, 23, 5, 13, 20, 8, 12, 17},
};

int ma_svindex_init(ma_svindex *ix, ma_error *err)
{
    memset(ix, 0, sizeof *ix);
    for (int k = 0; k < 16; k++)
        for (int byte = 0; byte < 3; byte++)
            for (int v = 0; v < 256; v++) {
                uint32_t m = 0;
                for (int bit = 0; bit < 8; bit++)
                    if (v >> bit & 1)
                        m |= 1u << ma_svindex_perm[k][byte * 8 + bit];
                ix->lut[k][byte][v] = m;
            }
    for (int n = 0; n <= 24; n++) {
        ix->binom[n][0] = 1;
        for (int k = 1; k <= n; k++)
            ix->binom[n][k] = ix->binom[n - 1][k - 1] + (k <= n - 1 ? ix->binom[n - 1][k] : 0);
    }
    for (int j = 0; j < 3; j++)
        for (int v = 0; v < 256; v++)
            for (int k = 0; k <= 16; k++) {
                uint32_t sum = 0;
                int t = 0;
                for (int q = 0; q < 8; q++)
                    if (v >> q & 1)
                        sum += (uint32_t)ix->binom[8 * j + q][k + ++t];
                ix->colex_lut[j][v][k] = sum;
            }
    for (int m = 0; m < 256; m++)
        for (int v = 0; v < 256; v++) {
            int out = 0, j = 0;
            for (int q = 0; q < 8; q++)
                if (m >> q & 1)
                    out |= (v >> q & 1) << j++;
            ix->pext8[m][v] = (uint8_t)out;
        }
    (void)err;
    return MA_OK;
}

void ma_svindex_free(ma_svindex *ix)
{
    for (int w = 0; w <= 24; w++) {
        free(ix->mover[w]);
        free(ix->reps[w]);
        free(ix->stab[w]);
    }
    memset(ix, 0, sizeof *ix);
}

int ma_svindex_prepare(ma_svindex *ix, int w, ma_error *err)
{
    if (w < 0 || w > 24)
        return ma_error_set(err, MA_EINVAL, "index: popcount %d out of range", w);
    if (ix->ready[w])
        return MA_OK;
    uint64_t n = ix->binom[24][w];
    /* At most n representatives; shrink afterwards. */
    uint32_t *reps = malloc(n * sizeof *reps);
    uint16_t *stab = malloc(n * sizeof *stab);
    uint32_t *mover = malloc(n * sizeof *mover);
    if (!reps || !stab || !mover) {
        free(reps);
        free(stab);
        free(mover);
        return ma_error_set(err, MA_ENOMEM, "index: out of memory preparing popcount %d", w);
    }
    uint32_t count = 0;
    /* Masks of popcount w in increasing order (Gosper), i.e. in colex order, so i is the colex
     * rank. A representative is the minimum of its orbit, so it is met before every other member
     * and its rank is already known. */
    uint32_t m = w ? (1u << w) - 1 : 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t best = m;
        int best_op = 0;
        uint16_t fix = 1;
        for (int k = 1; k < 16; k++) {
            uint32_t img = ma_svindex_apply(ix, k, m);
            if (img < best) {
                best = img;
                best_op = k;
            }
            if (img == m)
                fix |= (uint16_t)(1u << k);
        }
        if (best == m) {
            reps[count] = m;
            stab[count] = fix;
            mover[i] = count << 4;
            count++;
        } else {
            mover[i] = (mover[ma_svindex_colex24(ix, best)] & ~15u) | (uint32_t)best_op;
        }
        if (w == 0)
            break;
        m = ma_svindex_colex_next(m);
    }
    uint32_t *reps2 = realloc(reps, (count ? count : 1) * sizeof *reps);
    uint16_t *stab2 = realloc(stab, (count ? count : 1) * sizeof *stab);
    ix->reps[w] = reps2 ? reps2 : reps; /* shrinking may fail; the old block is still good */
    ix->stab[w] = stab2 ? stab2 : stab;
    ix->mover[w] = mover;
    ix->rep_count[w] = count;
    ix->ready[w] = 1;
    return MA_OK;
}

uint64_t ma_svindex_entry_count(const ma_svindex *ix, int w, int b)
{
    return (uint64_t)ix->rep_count[w] * ma_svindex_binom(ix, 24 - w, b);
}

void ma_svindex_canon(const ma_svindex *ix, uint32_t w, uint32_t b, uint32_t *wc, uint32_t *bc)
{
    int wn = ma_sv_popcount(w);
    uint32_t t = ix->mover[wn][ma_svindex_colex24(ix, w)];
    uint32_t rank = t >> 4;
    uint32_t rep = ix->reps[wn][rank];
    uint32_t b1 = ma_svindex_apply(ix, (int)(t & 15), b);
    uint32_t best = b1;
    for (uint32_t fix = ix->stab[wn][rank] & ~1u; fix; fix &= fix - 1) {
        uint32_t img = ma_svindex_apply(ix, __builtin_ctz(fix), b1);
        if (img < best)
            best = img;
    }
    *wc = rep;
    *bc = best;
}

uint64_t ma_svindex_entry(const ma_svindex *ix, uint32_t w, uint32_t b)
{
    int wn = ma_sv_popcount(w), bn = ma_sv_popcount(b);
    uint32_t t = ix->mover[wn][ma_svindex_colex24(ix, w)];
    uint32_t rank = t >> 4;
    uint32_t wc = ix->reps[wn][rank];
    uint32_t bc = ma_svindex_apply(ix, (int)(t & 15), b);
    /* Most representatives have a trivial stabiliser: the loop is usually empty. */
    uint32_t b1 = bc;
    for (uint32_t fix = ix->stab[wn][rank] & ~1u; fix; fix &= fix - 1) {
        uint32_t img = ma_svindex_apply(ix, __builtin_ctz(fix), b1);
        if (img < bc)
            bc = img;
    }
    /* compress bc onto the points free of mover stones, byte by byte, then rank it */
    uint32_t fr = ~wc & MA_SV_FULL;
    uint32_t f0 = fr & 255, f1 = (fr >> 8) & 255, f2 = fr >> 16;
    int n0 = ma_sv_popcount(f0), n1 = n0 + ma_sv_popcount(f1);
    uint32_t c = (uint32_t)ix->pext8[f0][bc & 255] | (uint32_t)ix->pext8[f1][(bc >> 8) & 255] << n0 |
                 (uint32_t)ix->pext8[f2][bc >> 16] << n1;
    uint64_t colex = ma_svindex_colex24(ix, c);
    return (uint64_t)rank * ma_svindex_binom(ix, 24 - wn, bn) + colex;
}

uint32_t ma_svindex_expand(uint32_t c, uint32_t w)
{
    uint32_t out = 0, free_pts = ~w & 0xFFFFFFu;
    for (int j = 0; free_pts; free_pts &= free_pts - 1, j++)
        if (c >> j & 1)
            out |= free_pts & -free_pts;
    return out;
}

int ma_svindex_board(const ma_svindex *ix, int w_count, int b_count, uint64_t e,
                     uint32_t *w, uint32_t *b, ma_error *err)
{
    if (w_count < 0 || w_count > 24 || b_count < 0 || w_count + b_count > 24 || !ix->ready[w_count])
        return ma_error_set(err, MA_EINVAL, "index: sector %d_%d not prepared", w_count, b_count);
    uint64_t m = ma_svindex_binom(ix, 24 - w_count, b_count);
    if (e >= ma_svindex_entry_count(ix, w_count, b_count))
        return ma_error_set(err, MA_EINVAL, "index: entry %llu out of range for %d_%d",
                            (unsigned long long)e, w_count, b_count);
    uint64_t g = e % m;
    uint32_t c = 0;
    for (int i = b_count; i >= 1; i--) {
        int q = i - 1;
        while (ma_svindex_binom(ix, q + 1, i) <= g)
            q++;
        g -= ma_svindex_binom(ix, q, i);
        c |= 1u << q;
    }
    *w = ix->reps[w_count][e / m];
    *b = ma_svindex_expand(c, *w);
    return MA_OK;
}

int ma_svindex_is_canonical(const ma_svindex *ix, uint32_t w, uint32_t b)
{
    uint32_t wc, bc;
    ma_svindex_canon(ix, w, b, &wc, &bc);
    return wc == w && bc == b;
}
