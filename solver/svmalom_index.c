/* svmalom_index: Malom's hash (malom-format.md §4), table-driven, in Malom's numbering. */
#include "solver/svmalom_index.h"

#include <stdlib.h>
#include <string.h>

/* §1.1 bit -> name, and docs/format.md §1 bit -> name: the only link between the numberings. */
static const char *const malom_names[24] = {"a4", "a7", "d7", "g7", "g4", "g1", "d1", "a1",
                                            "b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2",
                                            "c4", "c5", "d5", "e5", "e4", "e3", "d3", "c3"};
static const char *const open_names[24] = {"a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3",
                                           "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
                                           "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"};

int ma_svmidx_inverse_op(int op)
{
    switch (op) {
    case 0: return 2;
    case 2: return 0;
    case 8: return 10;
    case 10: return 8;
    default: return op;
    }
}

/* §4.1 in ring/in-ring coordinates: ops 0-6 act on x inside each ring, op 7 exchanges the outer
 * and inner ring, ops 8-14 do both, op 15 is the identity. */
static int image(int op, int p)
{
    int r = p / 8, x = p % 8;
    if (op == 15)
        return p;
    int base = op == 7 ? -1 : op >= 8 ? op - 8 : op;
    int nx = x;
    switch (base) {
    case 0: nx = x + 2; break;
    case 1: nx = x + 4; break;
    case 2: nx = x + 6; break;
    case 3: nx = 4 - x; break;
    case 4: nx = -x; break;
    case 5: nx = 2 - x; break;
    case 6: nx = 6 - x; break;
    default: break;
    }
    nx = ((nx % 8) + 8) % 8;
    int nr = op >= 7 ? 2 - r : r;
    return 8 * nr + nx;
}

int ma_svmidx_init(ma_svmidx *ix, ma_error *err)
{
    memset(ix, 0, sizeof *ix);
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++)
            ix->perm[k][p] = (uint8_t)image(k, p);
    int m2o[24];
    for (int p = 0; p < 24; p++) {
        m2o[p] = -1;
        for (int q = 0; q < 24; q++)
            if (!strcmp(malom_names[p], open_names[q]))
                m2o[p] = q;
        if (m2o[p] < 0)
            return ma_error_set(err, MA_EINTERNAL, "malom index: point %s has no open number",
                                malom_names[p]);
    }
    for (int byte = 0; byte < 3; byte++)
        for (int v = 0; v < 256; v++) {
            uint32_t to = 0, from = 0;
            for (int bit = 0; bit < 8; bit++) {
                if (!(v >> bit & 1))
                    continue;
                int p = byte * 8 + bit;
                to |= 1u << m2o[p];
                for (int q = 0; q < 24; q++)
                    if (m2o[q] == p)
                        from |= 1u << q;
            }
            ix->to_open[byte][v] = to;
            ix->from_open[byte][v] = from;
            for (int k = 0; k < 16; k++) {
                uint32_t m = 0;
                for (int bit = 0; bit < 8; bit++)
                    if (v >> bit & 1)
                        m |= 1u << ix->perm[k][byte * 8 + bit];
                ix->lut[k][byte][v] = m;
            }
        }
    for (int n = 0; n <= 24; n++) {
        ix->binom[n][0] = 1;
        for (int k = 1; k <= n; k++)
            ix->binom[n][k] = ix->binom[n - 1][k - 1] + (k <= n - 1 ? ix->binom[n - 1][k] : 0);
    }
    for (int j = 0; j < 3; j++)
        for (int v = 0; v < 256; v++)
            for (int below = 0; below <= 16; below++) {
                uint32_t sum = 0;
                int t = 0;
                for (int q = 0; q < 8; q++)
                    if (v >> q & 1)
                        sum += (uint32_t)ma_svmidx_binom(ix, 8 * j + q, below + ++t);
                ix->colex_lut[j][v][below] = sum;
            }
    for (int m = 0; m < 256; m++)
        for (int v = 0; v < 256; v++) {
            int out = 0, j = 0;
            for (int q = 0; q < 8; q++)
                if (m >> q & 1)
                    out |= (v >> q & 1) << j++;
            ix->pext8[m][v] = (uint8_t)out;
        }
    return MA_OK;
}

void ma_svmidx_free(ma_svmidx *ix)
{
    for (int w = 0; w <= MA_SVMIDX_MAX_STONES; w++) {
        free(ix->mover[w]);
        free(ix->reps[w]);
        free(ix->stab[w]);
    }
    memset(ix, 0, sizeof *ix);
}

static inline int popcount24(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* Colex rank of a mask among the masks of its popcount (= its position in numeric order). */
static inline uint32_t colex24(const ma_svmidx *ix, uint32_t m)
{
    uint32_t b0 = m & 255, b1 = (m >> 8) & 255;
    int k1 = popcount24(b0), k2 = k1 + popcount24(b1);
    return ix->colex_lut[0][b0][0] + ix->colex_lut[1][b1][k1] + ix->colex_lut[2][m >> 16][k2];
}

/* §4.4 step 1: b packed onto the points free of w. */
static inline uint32_t compress(const ma_svmidx *ix, uint32_t b, uint32_t w)
{
    uint32_t fr = ~w & 0xFFFFFFu;
    uint32_t f0 = fr & 255, f1 = (fr >> 8) & 255, f2 = fr >> 16;
    int n0 = popcount24(f0), n1 = n0 + popcount24(f1);
    return (uint32_t)ix->pext8[f0][b & 255] | (uint32_t)ix->pext8[f1][(b >> 8) & 255] << n0 |
           (uint32_t)ix->pext8[f2][b >> 16] << n1;
}

int ma_svmidx_prepare(ma_svmidx *ix, int w, ma_error *err)
{
    if (w < 0 || w > MA_SVMIDX_MAX_STONES)
        return ma_error_set(err, MA_EINVAL, "malom index: %d mover stones out of range 0..12", w);
    if (ix->ready[w])
        return MA_OK;
    uint64_t n = ix->binom[24][w];
    uint32_t *reps = malloc(n * sizeof *reps);
    uint16_t *stab = malloc(n * sizeof *stab);
    uint32_t *mover = malloc(n * sizeof *mover);
    if (!reps || !stab || !mover) {
        free(reps);
        free(stab);
        free(mover);
        return ma_error_set(err, MA_ENOMEM, "malom index: out of memory preparing W=%d", w);
    }
    uint32_t count = 0;
    /* Increasing numeric order is colex order, so i is the colex rank; a representative is the
     * numeric minimum of its orbit (§4.3) and is therefore met before the rest of its orbit. */
    uint32_t m = w ? (1u << w) - 1 : 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t best = m;
        int best_op = 15;
        uint16_t fix = 0;
        for (int k = 0; k < 16; k++) {
            uint32_t img = ma_svmidx_apply(ix, k, m);
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
            mover[i] = count << 4 | 15u;
            count++;
        } else {
            mover[i] = (mover[colex24(ix, best)] & ~15u) | (uint32_t)best_op;
        }
        if (w == 0)
            break;
        uint32_t c = m & -m, r = m + c;
        m = (((r ^ m) >> 2) / c) | r;
    }
    uint32_t *reps2 = realloc(reps, (count ? count : 1) * sizeof *reps);
    uint16_t *stab2 = realloc(stab, (count ? count : 1) * sizeof *stab);
    ix->reps[w] = reps2 ? reps2 : reps;
    ix->stab[w] = stab2 ? stab2 : stab;
    ix->mover[w] = mover;
    ix->rep_count[w] = count;
    ix->ready[w] = 1;
    return MA_OK;
}

uint64_t ma_svmidx_count(const ma_svmidx *ix, int w, int b)
{
    return (uint64_t)ix->rep_count[w] * ma_svmidx_binom(ix, 24 - w, b);
}

uint64_t ma_svmidx_index(const ma_svmidx *ix, uint32_t w, uint32_t b)
{
    int wn = popcount24(w), bn = popcount24(b);
    uint32_t t = ix->mover[wn][colex24(ix, w)];
    uint32_t rank = t >> 4;
    uint32_t rep = ix->reps[wn][rank];
    uint32_t b1 = ma_svmidx_apply(ix, (int)(t & 15), b);
    uint32_t best = b1;
    /* The ops taking w to rep are (stabiliser of rep) after op t&15; take the smallest image. */
    for (uint32_t fix = ix->stab[wn][rank] & 0x7FFFu; fix; fix &= fix - 1) {
        uint32_t img = ma_svmidx_apply(ix, __builtin_ctz(fix), b1);
        if (img < best)
            best = img;
    }
    return (uint64_t)rank * ma_svmidx_binom(ix, 24 - wn, bn) + colex24(ix, compress(ix, best, rep));
}

uint32_t ma_svmidx_expand(uint32_t c, uint32_t w)
{
    uint32_t out = 0, free_pts = ~w & 0xFFFFFFu;
    for (int j = 0; free_pts; free_pts &= free_pts - 1, j++)
        if (c >> j & 1)
            out |= free_pts & -free_pts;
    return out;
}

int ma_svmidx_board(const ma_svmidx *ix, int w_count, int b_count, uint64_t h, uint32_t *w,
                    uint32_t *b, ma_error *err)
{
    if (w_count < 0 || w_count > MA_SVMIDX_MAX_STONES || b_count < 0 || w_count + b_count > 24 ||
        !ix->ready[w_count])
        return ma_error_set(err, MA_EINVAL, "malom index: W=%d B=%d not prepared", w_count,
                            b_count);
    uint64_t m = ma_svmidx_binom(ix, 24 - w_count, b_count);
    if (h >= ma_svmidx_count(ix, w_count, b_count))
        return ma_error_set(err, MA_EINVAL, "malom index: index %llu out of range for W=%d B=%d",
                            (unsigned long long)h, w_count, b_count);
    uint64_t g = h % m;
    uint32_t c = 0;
    for (int i = b_count; i >= 1; i--) {
        int q = i - 1;
        while (ma_svmidx_binom(ix, q + 1, i) <= g)
            q++;
        g -= ma_svmidx_binom(ix, q, i);
        c |= 1u << q;
    }
    *w = ix->reps[w_count][h / m];
    *b = ma_svmidx_expand(c, *w);
    return MA_OK;
}

int ma_svmidx_marker(const ma_svmidx *ix, int w_count, uint32_t f, uint32_t b)
{
    uint16_t stab = ix->stab[w_count][f] & 0x7FFFu;
    uint32_t best = b;
    for (uint32_t fix = stab; fix; fix &= fix - 1) {
        uint32_t img = ma_svmidx_apply(ix, __builtin_ctz(fix), b);
        if (img < best)
            best = img;
    }
    if (best == b)
        return -1;
    for (uint32_t fix = stab; fix; fix &= fix - 1) {
        int op = __builtin_ctz(fix);
        if (ma_svmidx_apply(ix, op, b) == best)
            return op;
    }
    return -1; /* unreachable: best is the image of some op of the stabiliser */
}

uint64_t ma_svmidx_path(const ma_svmidx *ix, uint32_t w, uint32_t b, int *op1, uint64_t *h1,
                        int *op2)
{
    int wn = popcount24(w), bn = popcount24(b);
    uint32_t rank = ix->mover[wn][colex24(ix, w)] >> 4;
    uint32_t rep = ix->reps[wn][rank];
    uint64_t m = ma_svmidx_binom(ix, 24 - wn, bn);
    int largest = 15;
    for (int i = 15; i >= 0; i--)
        if (ma_svmidx_apply(ix, i, rep) == w) {
            largest = i;
            break;
        }
    *op1 = ma_svmidx_inverse_op(largest);
    uint32_t b1 = ma_svmidx_apply(ix, *op1, b);
    *h1 = rank * m + colex24(ix, compress(ix, b1, rep));
    *op2 = ma_svmidx_marker(ix, wn, rank, b1);
    if (*op2 < 0)
        return *h1;
    uint32_t b2 = ma_svmidx_apply(ix, *op2, b1);
    return rank * m + colex24(ix, compress(ix, b2, rep));
}
