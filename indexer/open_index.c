/* The checker's sym16-colex index (docs/format.md §4): all-16-permutation canonical forms, sorted
 * representative lists searched by binary search, colex ranking with a binomial table. */
#include "indexer/open_index.h"

#include <stdlib.h>
#include <string.h>

#define MAX_W 12
/* Representatives are bucketed by their top 12 bits so a search touches only a short run. */
#define BUCKET_SHIFT 12
#define BUCKETS (1u << (MA_POINTS - BUCKET_SHIFT))
/* Representatives are searched in groups of 16 (one 64-byte cache line): a binary search over the
 * first element of each group (a small array that stays in cache) picks the group, then one line of
 * reps[] is scanned. A plain binary search over reps[] touched ~10 cold lines per rank. */
#define GROUP 16

/* docs/format.md §4.1: row k lists the image bit of source bits 0..23. */
static const uint8_t sym_perm[MA_SYM_OPS][MA_POINTS] = {
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

struct ma_open_index {
    /* perm[k]: π_k (k < 8) as a mask map, derived from sym_perm so that one op costs three loads
     * instead of a 24-step bit loop; ops 8..15 are ops 0..7 followed by the ring exchange (§4.1),
     * done with shifts, which halves the tables (24 KiB) so they stay in L1 beside the
     * representative arrays. */
    ma_mask_map perm[8];
    uint64_t binom[MA_POINTS + 1][MA_POINTS + 1];
    uint32_t *reps[MAX_W + 1];      /* sorted representatives, NULL until prepared; padded with
                                       UINT32_MAX to a whole number of groups, 64-byte aligned */
    uint32_t *samples[MAX_W + 1];   /* samples[g] = reps[GROUP * g] */
    uint32_t rep_count[MAX_W + 1];
    uint32_t *bucket[MAX_W + 1];    /* BUCKETS + 1 start offsets into reps[w] */
    /* movers[w][colex rank of a mask of w stones] = rep_rank << 16 | bit set of the ops that map
     * the mask to its representative; NULL until prepare_movers(w). */
    uint64_t *movers[MAX_W + 1];
    ma_colex colex; /* colex ranks of opponent placements (indexer/colex.h) */
    int use_pext; /* the CPU has a fast BMI2 bit extract (see compress_slow) */
};

static inline uint32_t perm_slow(int op, uint32_t m)
{
    uint32_t r = 0;
    for (int p = 0; p < MA_POINTS; p++)
        if (m >> p & 1u)
            r |= 1u << sym_perm[op][p];
    return r;
}

/* Exchange of the outer and inner rings (op 8): a1,d1,g1 <-> c3,d3,e3; a4 <-> c4; g4 <-> e4;
 * a7,d7,g7 <-> c5,d5,e5; the middle ring stays. */
static inline uint32_t ring_swap(uint32_t x)
{
    return (x & 0x1C2438u) | ((x & 0x38007u) << 6) | ((x >> 6) & 0x38007u) |
           ((x & 0x1200u) << 2) | ((x >> 2) & 0x1200u);
}

static inline uint32_t perm_d4(const ma_open_index *ix, int op, uint32_t m)
{
    return ma_mask_map_apply(&ix->perm[op], m);
}

static inline uint32_t perm_fast(const ma_open_index *ix, int op, uint32_t m)
{
    uint32_t r = perm_d4(ix, op & 7, m);
    return op < 8 ? r : ring_swap(r);
}

uint64_t ma_open_binomial(int n, int k)
{
    if (k < 0 || n < 0 || k > n)
        return 0;
    uint64_t r = 1;
    /* r stays an exact binomial C(n-k+i, i) after each step, so the division is exact. */
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

static int fast_pext(void);

int ma_open_index_create(ma_open_index **out, ma_error *err)
{
    ma_open_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return ma_error_set(err, MA_ENOMEM, "open index: out of memory");
    for (int k = 0; k < 8; k++) {
        uint32_t image[MA_POINTS];
        for (int p = 0; p < MA_POINTS; p++)
            image[p] = perm_slow(k, 1u << p);
        ma_mask_map_build(&ix->perm[k], image);
    }
    for (int n = 0; n <= MA_POINTS; n++)
        for (int k = 0; k <= MA_POINTS; k++)
            ix->binom[n][k] = ma_open_binomial(n, k);
    ma_colex_build(&ix->colex);
    ix->use_pext = fast_pext();
    *out = ix;
    return MA_OK;
}

void ma_open_index_free(ma_open_index *ix)
{
    if (!ix)
        return;
    for (int w = 0; w <= MAX_W; w++) {
        free(ix->reps[w]);
        free(ix->samples[w]);
        free(ix->bucket[w]);
        free(ix->movers[w]);
    }
    free(ix);
}

/* Next larger mask with the same popcount (Gosper); m must be non-zero. */
static inline uint32_t next_same_popcount(uint32_t m)
{
    uint32_t t = m | (m - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(m) + 1));
}

int ma_open_index_prepare(ma_open_index *ix, int w, ma_error *err)
{
    if (w < 0 || w > MAX_W)
        return ma_error_set(err, MA_EINVAL, "open index: %d mover stones (expected 0..%d)", w, MAX_W);
    if (ix->reps[w])
        return MA_OK;
    uint64_t total = ix->binom[MA_POINTS][w];
    uint32_t *reps = malloc((size_t)total * sizeof *reps);
    uint32_t *bucket = calloc(BUCKETS + 1, sizeof *bucket);
    if (!reps || !bucket) {
        free(reps);
        free(bucket);
        return ma_error_set(err, MA_ENOMEM, "open index: out of memory for W=%d", w);
    }
    uint32_t n = 0;
    uint32_t m = (w == 0) ? 0 : (1u << w) - 1;
    for (uint64_t i = 0; i < total; i++) {
        int rep = 1;
        for (int k = 1; k < MA_SYM_OPS && rep; k++)
            if (perm_fast(ix, k, m) < m)
                rep = 0;
        if (rep)
            reps[n++] = m;
        if (i + 1 < total)
            m = next_same_popcount(m);
    }
    /* Masks were enumerated in increasing order, so reps[] is already sorted (§4.3). */
    uint32_t groups = (n + GROUP - 1) / GROUP;
    uint32_t *aligned = aligned_alloc(64, (size_t)(groups ? groups : 1) * GROUP * sizeof *aligned);
    uint32_t *samples = malloc((size_t)(groups ? groups : 1) * sizeof *samples);
    if (!aligned || !samples) {
        free(reps);
        free(bucket);
        free(aligned);
        free(samples);
        return ma_error_set(err, MA_ENOMEM, "open index: out of memory for W=%d", w);
    }
    memcpy(aligned, reps, (size_t)n * sizeof *reps);
    free(reps);
    for (uint32_t i = n; i < groups * GROUP; i++)
        aligned[i] = UINT32_MAX;
    for (uint32_t g = 0; g < groups; g++)
        samples[g] = aligned[g * GROUP];
    uint32_t j = 0;
    for (uint32_t h = 0; h <= BUCKETS; h++) {
        while (j < n && (aligned[j] >> BUCKET_SHIFT) < h)
            j++;
        bucket[h] = j;
    }
    ix->reps[w] = aligned;
    ix->samples[w] = samples;
    ix->rep_count[w] = n;
    ix->bucket[w] = bucket;
    return MA_OK;
}

uint64_t ma_open_index_rep_count(const ma_open_index *ix, int w)
{
    if (w < 0 || w > MAX_W || !ix->reps[w])
        return 0;
    return ix->rep_count[w];
}

uint32_t ma_open_index_rep(const ma_open_index *ix, int w, uint64_t rank)
{
    return ix->reps[w][rank];
}

uint64_t ma_open_index_entry_count(const ma_open_index *ix, int w, int b)
{
    if (w < 0 || w > MAX_W || b < 0 || w + b > MA_POINTS || !ix->reps[w])
        return 0;
    return (uint64_t)ix->rep_count[w] * ix->binom[MA_POINTS - w][b];
}

/* Rank of representative m among reps[w]; m must be a representative of w stones. */
static inline uint64_t rep_rank(const ma_open_index *ix, int w, uint32_t m)
{
    const uint32_t *reps = ix->reps[w], *smp = ix->samples[w];
    uint32_t h = m >> BUCKET_SHIFT;
    uint32_t lo = ix->bucket[w][h], hi = ix->bucket[w][h + 1];
    /* Groups overlapping [lo, hi). smp[a] = reps[GROUP*a] <= reps[lo] <= m holds throughout. */
    uint32_t a = lo / GROUP, n = (hi + GROUP - 1) / GROUP - a;
    while (n > 1) {
        uint32_t half = n / 2;
        a = smp[a + half] <= m ? a + half : a;
        n -= half;
    }
    const uint32_t *line = reps + (size_t)a * GROUP;
    uint32_t r = a * GROUP;
    for (int i = 0; i < GROUP; i++)
        r += line[i] < m;
    return r;
}

/* Inline SWAR popcount: without -mpopcnt the builtin becomes a library call, too slow here. */
static inline int popcount24(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

uint64_t ma_open_index_rank(const ma_open_index *ix, ma_board board, int *op_out)
{
    /* §4.2 compares mover images first, so the opponent is permuted only by the ops that reach
     * the smallest mover image (usually one). Ties pick the smallest op. */
    uint32_t w0 = board.mover & MA_FULL_MASK, b0 = board.opp & MA_FULL_MASK;
    uint32_t wimg[MA_SYM_OPS];
    for (int k = 0; k < 8; k++) {
        wimg[k] = perm_d4(ix, k, w0);
        wimg[k + 8] = ring_swap(wimg[k]);
    }
    uint32_t wmin = wimg[0];
    for (int k = 1; k < MA_SYM_OPS; k++)
        wmin = wimg[k] < wmin ? wimg[k] : wmin;
    uint32_t ties = 0;
    for (int k = 0; k < MA_SYM_OPS; k++)
        ties |= (uint32_t)(wimg[k] == wmin) << k;
    uint32_t bmin = UINT32_MAX;
    int best = 0;
    for (; ties; ties &= ties - 1) {
        int k = __builtin_ctz(ties);
        uint32_t bk = perm_fast(ix, k, b0);
        if (bk < bmin) {
            bmin = bk;
            best = k;
        }
    }
    if (op_out)
        *op_out = best;
    int w = popcount24(wmin);
    int b = popcount24(bmin);
    uint32_t free_pts = ~wmin & MA_FULL_MASK;
    uint64_t g = 0;
    for (int i = 1; bmin; i++, bmin &= bmin - 1) {
        int p = __builtin_ctz(bmin);
        int q = popcount24(free_pts & ((1u << p) - 1));
        g += ix->binom[q][i];
    }
    return rep_rank(ix, w, wmin) * ix->binom[MA_POINTS - w][b] + g;
}

/* Colex rank of a mask among the masks of the same popcount on 24 points. */
static inline uint64_t mask_colex(const ma_open_index *ix, uint32_t m)
{
    uint64_t g = 0;
    for (int i = 1; m; i++, m &= m - 1)
        g += ix->binom[__builtin_ctz(m)][i];
    return g;
}

/* The representative of mover mask m and the bit set of ops reaching it. */
static inline uint32_t mover_rep(const ma_open_index *ix, uint32_t m, uint32_t *ops)
{
    uint32_t wimg[MA_SYM_OPS];
    for (int k = 0; k < 8; k++) {
        wimg[k] = perm_d4(ix, k, m);
        wimg[k + 8] = ring_swap(wimg[k]);
    }
    uint32_t wmin = wimg[0];
    for (int k = 1; k < MA_SYM_OPS; k++)
        wmin = wimg[k] < wmin ? wimg[k] : wmin;
    uint32_t set = 0;
    for (int k = 0; k < MA_SYM_OPS; k++)
        set |= (uint32_t)(wimg[k] == wmin) << k;
    *ops = set;
    return wmin;
}

int ma_open_index_prepare_movers(ma_open_index *ix, int w, ma_error *err)
{
    if (w < 0 || w > MAX_W || !ix->reps[w])
        return ma_error_set(err, MA_EINVAL, "open index: mover table for W=%d needs prepare first", w);
    if (ix->movers[w])
        return MA_OK;
    uint64_t total = ix->binom[MA_POINTS][w];
    uint64_t *tab = malloc((size_t)total * sizeof *tab);
    if (!tab)
        return ma_error_set(err, MA_ENOMEM, "open index: out of memory for the W=%d mover table", w);
    /* Gosper's order is colex order, so the i-th mask enumerated has colex rank i. */
    uint32_t m = (w == 0) ? 0 : (1u << w) - 1;
    for (uint64_t i = 0; i < total; i++) {
        uint32_t ops;
        uint32_t rep = mover_rep(ix, m, &ops);
        tab[i] = rep_rank(ix, w, rep) << 16 | ops;
        if (i + 1 < total)
            m = next_same_popcount(m);
    }
    ix->movers[w] = tab;
    return MA_OK;
}

void ma_open_index_mover_info(const ma_open_index *ix, ma_open_mover_info *out, uint32_t mover)
{
    uint32_t w0 = mover & MA_FULL_MASK;
    int w = popcount24(w0);
    uint32_t ops;
    if (ix->movers[w]) {
        uint64_t t = ix->movers[w][mask_colex(ix, w0)];
        ops = (uint32_t)(t & 0xFFFFu);
        out->rep_rank = t >> 16;
        out->rep = perm_fast(ix, __builtin_ctz(ops), w0);
    } else {
        out->rep = mover_rep(ix, w0, &ops);
        out->rep_rank = rep_rank(ix, w, out->rep);
    }
    out->mover = w0;
    out->w = w;
    out->n_ops = 0;
    for (; ops; ops &= ops - 1)
        out->ops[out->n_ops++] = (uint8_t)__builtin_ctz(ops);
    out->free_pts = ~out->rep & MA_FULL_MASK;
}

uint64_t ma_open_index_rank_opp(const ma_open_index *ix, const ma_open_mover_info *mi, uint32_t opp)
{
    uint32_t b0 = opp & MA_FULL_MASK;
    uint32_t bmin = perm_fast(ix, mi->ops[0], b0);
    for (int i = 1; i < mi->n_ops; i++) {
        uint32_t bk = perm_fast(ix, mi->ops[i], b0);
        bmin = bk < bmin ? bk : bmin;
    }
    int b = popcount24(bmin);
    uint64_t g = 0;
    for (int i = 1; bmin; i++, bmin &= bmin - 1)
        g += ix->binom[__builtin_popcount(mi->free_pts & ((1u << __builtin_ctz(bmin)) - 1))][i];
    return mi->rep_rank * ix->binom[MA_POINTS - mi->w][b] + g;
}

/* Spreads the low bits of c onto the set bits of free_pts, lowest first (the inverse of the
 * compression of §4.3). */
static inline uint32_t expand(uint32_t c, uint32_t free_pts)
{
    uint32_t r = 0;
    for (; c && free_pts; free_pts &= free_pts - 1, c >>= 1)
        if (c & 1u)
            r |= free_pts & -free_pts;
    return r;
}

ma_board ma_open_index_unrank(const ma_open_index *ix, int w, int b, uint64_t entry)
{
    uint64_t m = ix->binom[MA_POINTS - w][b];
    uint64_t f = entry / m, g = entry % m;
    uint32_t wm = ix->reps[w][f];
    uint32_t c = 0;
    int q = MA_POINTS - w - 1;
    for (int i = b; i >= 1; i--) {
        /* C(i-1, i) = 0 <= g stops the scan at q >= i-1. */
        while (ix->binom[q][i] > g)
            q--;
        g -= ix->binom[q][i];
        c |= 1u << q;
        q--;
    }
    ma_board r = {wm, expand(c, ~wm & MA_FULL_MASK)};
    return r;
}

int ma_open_index_classify(const ma_open_index *ix, int w, int b, uint64_t rep, uint8_t *orbit)
{
    uint32_t wm = ix->reps[w][rep];
    uint64_t m = ix->binom[MA_POINTS - w][b];
    uint16_t stab = 0;
    for (int k = 0; k < MA_SYM_OPS; k++)
        if (perm_fast(ix, k, wm) == wm)
            stab |= (uint16_t)(1u << k);
    if (stab == 1u) {
        /* Only the identity fixes the mover mask: every opponent placement is canonical. */
        memset(orbit, MA_SYM_OPS, (size_t)m);
        return 1;
    }
    uint32_t free_pts = ~wm & MA_FULL_MASK;
    uint32_t c = b ? (1u << b) - 1 : 0;
    for (uint64_t g = 0; g < m; g++) {
        uint32_t om = expand(c, free_pts);
        int fixed = 0, canonical = 1;
        for (int k = 0; k < MA_SYM_OPS && canonical; k++) {
            if (!(stab >> k & 1u))
                continue;
            uint32_t ok = perm_fast(ix, k, om);
            if (ok < om)
                canonical = 0;
            else if (ok == om)
                fixed++;
        }
        orbit[g] = canonical ? (uint8_t)(MA_SYM_OPS / fixed) : 0;
        if (c && g + 1 < m)
            c = next_same_popcount(c);
    }
    return __builtin_popcount(stab);
}

ma_board ma_open_index_apply(const ma_open_index *ix, int op, ma_board board)
{
    ma_board r = {perm_fast(ix, op, board.mover & MA_FULL_MASK),
                  perm_fast(ix, op, board.opp & MA_FULL_MASK)};
    return r;
}

ma_board ma_open_sym_apply(int op, ma_board board)
{
    ma_board r = {perm_slow(op, board.mover), perm_slow(op, board.opp)};
    return r;
}

int ma_open_sym_inverse(int op)
{
    /* §4.1: 1 <-> 3 and 9 <-> 11; all others are involutions. */
    switch (op) {
    case 1: return 3;
    case 3: return 1;
    case 9: return 11;
    case 11: return 9;
    default: return op;
    }
}

ma_board ma_open_canonical(ma_board board, int *op_out)
{
    ma_board best = {board.mover & MA_FULL_MASK, board.opp & MA_FULL_MASK};
    int best_op = 0;
    for (int k = 1; k < MA_SYM_OPS; k++) {
        ma_board img = ma_open_sym_apply(k, board);
        if (img.mover < best.mover || (img.mover == best.mover && img.opp < best.opp)) {
            best = img;
            best_op = k;
        }
    }
    if (op_out)
        *op_out = best_op;
    return best;
}

int ma_open_index_is_canonical(ma_board board)
{
    ma_board c = ma_open_canonical(board, NULL);
    return c.mover == (board.mover & MA_FULL_MASK) && c.opp == (board.opp & MA_FULL_MASK);
}

int ma_open_orbit_size(ma_board board)
{
    int fixed = 0;
    for (int k = 0; k < MA_SYM_OPS; k++) {
        ma_board img = ma_open_sym_apply(k, board);
        if (img.mover == (board.mover & MA_FULL_MASK) && img.opp == (board.opp & MA_FULL_MASK))
            fixed++;
    }
    return MA_SYM_OPS / fixed;
}

/* ---- Batched ranking (see the header) ------------------------------------------------------ */

/* __builtin_popcount here: the hot path is built with -mpopcnt on x86-64 (see CMakeLists.txt),
 * where it is one instruction. */
static inline uint32_t colex_of(const ma_open_index *ix, uint32_t c)
{
    return ma_colex_rank(&ix->colex, c);
}

static void fill_rank_slot(const ma_open_index *ix, ma_open_rank_slot *s, uint32_t m)
{
    ma_open_mover_info mi;
    ma_open_index_mover_info(ix, &mi, m);
    s->mover = m;
    s->rep = mi.rep;
    s->rep_rank = mi.rep_rank;
    s->w = (uint8_t)mi.w;
    s->n_ops = (uint8_t)mi.n_ops;
    memcpy(s->ops, mi.ops, sizeof s->ops);
    uint8_t n = 0;
    for (int p = 0; p < MA_POINTS; p++) {
        s->q[p] = n;
        n = (uint8_t)(n + !(mi.rep >> p & 1u));
    }
    s->tables = 0;
    s->uses = 0;
}

/* The compress map of a one-op slot: the op and the compress step both distribute over union. */
static void fill_tables(const ma_open_index *ix, ma_open_rank_slot *s)
{
    uint32_t image[MA_POINTS];
    for (int p = 0; p < MA_POINTS; p++) {
        uint32_t img = perm_fast(ix, s->ops[0], 1u << p);
        image[p] = img & s->rep ? 0u : 1u << s->q[__builtin_ctz(img)];
    }
    ma_mask_map_build(&s->compress, image);
    s->tables = 1;
}

/* The least image of o under the slot's ops; builds the tables when they start to pay. */
static inline uint32_t least_image(const ma_open_index *ix, ma_open_rank_slot *s, uint32_t o)
{
    uint32_t best = perm_fast(ix, s->ops[0], o);
    for (int k = 1; k < s->n_ops; k++) {
        uint32_t pb = perm_fast(ix, s->ops[k], o);
        best = pb < best ? pb : best;
    }
    if (s->n_ops == 1 && ++s->uses == MA_OPEN_RANK_TABLES_AFTER)
        fill_tables(ix, s);
    return best;
}

/* The slot of mover mask m, filled on a miss. */
static inline ma_open_rank_slot *slot_of(const ma_open_index *ix, ma_open_rank_cache *cache,
                                         uint32_t m)
{
    uint32_t set = (m * 0x9E3779B1u) >> (32 - 4);
    ma_open_rank_slot *ways = &cache->slot[set * MA_OPEN_RANK_WAYS];
    for (int k = 0; k < MA_OPEN_RANK_WAYS; k++)
        if (ways[k].mover == m && ways[k].n_ops)
            return &ways[k];
    ma_open_rank_slot *s = &ways[cache->victim[set]++ % MA_OPEN_RANK_WAYS];
    fill_rank_slot(ix, s, m);
    return s;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* BMI2's bit extract is fast on Intel since Haswell and AMD since Zen 3 (microcoded before). */
static int fast_pext(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") &&
           !(__builtin_cpu_is("amd") && (__builtin_cpu_is("znver1") || __builtin_cpu_is("znver2")));
}

__attribute__((target("bmi2"))) static uint32_t compress_pext(uint32_t img, uint32_t rep)
{
    return _pext_u32(img, ~rep & MA_FULL_MASK);
}
#else
static int fast_pext(void) { return 0; }
#endif

/* The compressed opponent image img (§4.3) for a slot without its compress map. */
static inline uint32_t compress_slow(const ma_open_index *ix, const ma_open_rank_slot *s,
                                     uint32_t img)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (ix->use_pext)
        return compress_pext(img, s->rep);
#endif
    (void)ix;
    uint32_t c = 0;
    for (; img; img &= img - 1)
        c |= 1u << s->q[__builtin_ctz(img)];
    return c;
}

/* The checker's walk ranks every entry's opponent part here: a bit extract where the CPU has a fast
 * one (about 20 instructions instead of about 85 for the loop: cachegrind, std 4_4_0_0). */
uint64_t ma_open_index_g_rank(const ma_open_index *ix, uint32_t rep, uint32_t opp)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (ix->use_pext)
        return colex_of(ix, compress_pext(opp & MA_FULL_MASK, rep));
#endif
    uint32_t c = 0, free_pts = ~rep & MA_FULL_MASK;
    for (; opp; opp &= opp - 1) {
        int p = __builtin_ctz(opp);
        c |= 1u << popcount24(free_pts & ((1u << p) - 1));
    }
    return colex_of(ix, c);
}

void ma_open_index_rank_many(const ma_open_index *ix, ma_open_rank_cache *cache,
                             const ma_board *boards, int n, uint64_t *out)
{
    ma_open_rank_slot *s = NULL;
    uint32_t last_m = 0;
    for (int i = 0; i < n; i++) {
        uint32_t m = boards[i].mover & MA_FULL_MASK, o = boards[i].opp & MA_FULL_MASK;
        if (m != last_m || !s) {
            s = slot_of(ix, cache, m);
            last_m = m;
        }
        uint32_t c = s->tables ? ma_mask_map_apply(&s->compress, o)
                               : compress_slow(ix, s, least_image(ix, s, o));
        out[i] = s->rep_rank * ix->binom[MA_POINTS - s->w][__builtin_popcount(o)] + colex_of(ix, c);
    }
}

void ma_open_index_use_bit_extract(ma_open_index *ix, int on)
{
    ix->use_pext = on && fast_pext();
}

int ma_open_index_prepared(const ma_open_index *ix, int w)
{
    return w >= 0 && w <= MAX_W && ix->reps[w] != NULL;
}

_Static_assert(MAX_W + 1 <= MA_COLEX_HI_ROWS, "the colex tables rank every opponent placement");
_Static_assert(MA_SYM_OPS <= MA_MOVER_MAP_OPS, "a mover map holds every op");

int ma_open_index_mover_map(const ma_open_index *ix, uint32_t mover, ma_mover_map *mm)
{
    ma_open_rank_slot slot, *s = &slot; /* about 3 KiB, its compress map unused here */
    fill_rank_slot(ix, s, mover & MA_FULL_MASK);
    mm->nops = s->n_ops;
    for (int k = 0; k < s->n_ops; k++)
        for (int p = 0; p < MA_POINTS; p++) {
            uint32_t img = perm_fast(ix, s->ops[k], 1u << p);
            mm->point[k][p] = img & s->rep ? 0u : 1u << s->q[__builtin_ctz(img)];
        }
    for (int k = 0; k <= MA_POINTS; k++)
        mm->block[k] = s->rep_rank * ix->binom[MA_POINTS - s->w][k];
    mm->colex = &ix->colex;
    return mm->nops;
}
