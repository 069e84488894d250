/*
 * A literal transcription of docs/format.md §4 (sym16-colex) for tests that must place values at
 * known entries WITHOUT the checker's index (indexer/open_index.c): if the tests took entries from
 * the indexer under test, an index bug would cancel out. It is deliberately the slowest, plainest
 * reading of the text: the permutation table of §4.1 copied as printed, canon() as the minimum of
 * the 16 images (§4.2), representatives found by trying every mask in increasing order, colex by
 * the sum of binomials (§4.3). test_local_rule.c pins it to every worked example of
 * docs/index-scheme.md and the check values of format.md §4.3/§4.4 before using it.
 *
 * Usable for W <= 6 (representatives are enumerated); larger W only through entries derived by
 * hand. Static functions in a header on purpose: each tests/unit/test_*.c is its own program.
 */
#ifndef MA_TEST_SPEC_INDEX_H
#define MA_TEST_SPEC_INDEX_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* docs/format.md §4.1, row k = image bit of source bits 0..23 (copied from the document). */
static const uint8_t spec_perm[16][24] = {
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

/* docs/format.md §4.3: rep_count(W) for W = 0..12, as printed. */
static const uint64_t spec_rep_count_table[13] = {1,     4,     30,     158,    757,    2830,  8774,
                                                  22188, 46879, 82880, 124124, 157668, 170854};

#define SPEC_MAX_W 6

static inline uint32_t spec_apply(int op, uint32_t m)
{
    uint32_t r = 0;
    for (int p = 0; p < 24; p++)
        if (m >> p & 1u)
            r |= 1u << spec_perm[op][p];
    return r;
}

/* C(n, k) by Pascal's rule; 0 when k > n (§4.3: C(n, k) = 0 when k > n). */
static inline uint64_t spec_binom(int n, int k)
{
    if (k < 0 || n < 0 || k > n)
        return 0;
    uint64_t row[25] = {1};
    for (int i = 1; i <= n; i++)
        for (int j = i; j > 0; j--)
            row[j] += row[j - 1];
    return row[k];
}

/* §4.2: the image smallest by mover mask, then by opponent mask. */
static inline void spec_canon(uint32_t w, uint32_t b, uint32_t *wc, uint32_t *bc)
{
    *wc = w;
    *bc = b;
    for (int k = 1; k < 16; k++) {
        uint32_t iw = spec_apply(k, w), ib = spec_apply(k, b);
        if (iw < *wc || (iw == *wc && ib < *bc)) {
            *wc = iw;
            *bc = ib;
        }
    }
}

static inline int spec_is_rep(uint32_t m)
{
    for (int k = 1; k < 16; k++)
        if (spec_apply(k, m) < m)
            return 0;
    return 1;
}

/* The representatives of W stones in increasing order (§4.3), found by trying every 24-bit mask
 * with W bits; cached per W. */
static inline const uint32_t *spec_reps(int w, uint64_t *count)
{
    static uint32_t *cache[SPEC_MAX_W + 1];
    static uint64_t counts[SPEC_MAX_W + 1];
    if (w < 0 || w > SPEC_MAX_W)
        abort();
    if (!cache[w]) {
        uint32_t *r = malloc((spec_binom(24, w) + 1) * sizeof *r);
        uint64_t n = 0;
        if (!r)
            abort();
        /* every mask of w bits in increasing order (Gosper's successor) */
        for (uint32_t m = w ? (1u << w) - 1 : 0; m < (1u << 24);) {
            if (spec_is_rep(m))
                r[n++] = m;
            if (!m)
                break;
            uint32_t t = m | (m - 1);
            m = (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(m) + 1));
        }
        cache[w] = r;
        counts[w] = n;
    }
    *count = counts[w];
    return cache[w];
}

/* §4.3: the opponent compressed under the free-of-mover points, then colex. */
static inline uint64_t spec_colex(uint32_t w, uint32_t b)
{
    uint64_t g = 0;
    int j = 0, i = 0;
    for (int p = 0; p < 24; p++) {
        if (w >> p & 1u)
            continue;
        if (b >> p & 1u)
            g += spec_binom(j, ++i);
        j++;
    }
    return g;
}

/* §4.3: entry(w, b) = rep_rank(w_c) * C(24 - W, B) + colex(compress(b_c, w_c)). */
static inline uint64_t spec_entry(uint32_t w, uint32_t b)
{
    uint32_t wc, bc;
    spec_canon(w, b, &wc, &bc);
    int nw = __builtin_popcount(wc), nb = __builtin_popcount(bc);
    uint64_t n, rank = 0;
    const uint32_t *reps = spec_reps(nw, &n);
    while (rank < n && reps[rank] != wc)
        rank++;
    if (rank == n)
        abort(); /* canon of a mover mask is always a representative */
    return rank * spec_binom(24 - nw, nb) + spec_colex(wc, bc);
}

static inline uint64_t spec_entry_count(int w, int b)
{
    return spec_rep_count_table[w] * spec_binom(24 - w, b);
}

/* Spreads the low bits of c over the points not in w, lowest first (§4.3 inverse). */
static inline uint32_t spec_expand(uint32_t c, uint32_t w)
{
    uint32_t r = 0;
    int j = 0;
    for (int p = 0; p < 24; p++) {
        if (w >> p & 1u)
            continue;
        if (c >> j & 1u)
            r |= 1u << p;
        j++;
    }
    return r;
}

/* Writes `word` at every canonical entry of sector (W, B) and 0x0000 at every non-canonical one
 * (§4.4), walking the entries in order: for each representative, the B-subsets of the free points
 * in colex order, which is increasing order of the compressed mask. */
static inline void spec_fill_canonical(uint16_t *words, int w, int b, uint16_t word)
{
    uint64_t n;
    const uint32_t *reps = spec_reps(w, &n);
    uint64_t per = spec_binom(24 - w, b), e = 0;
    for (uint64_t f = 0; f < n; f++) {
        uint32_t rep = reps[f];
        int stab[16], ns = 0;
        for (int k = 1; k < 16; k++)
            if (spec_apply(k, rep) == rep)
                stab[ns++] = k;
        uint32_t c = b ? (1u << b) - 1 : 0;
        for (uint64_t g = 0; g < per; g++, e++) {
            int canonical = 1;
            if (ns) {
                uint32_t opp = spec_expand(c, rep);
                for (int i = 0; i < ns && canonical; i++)
                    if (spec_apply(stab[i], opp) < opp)
                        canonical = 0;
            }
            words[e] = canonical ? word : 0;
            if (c) { /* next mask with the same popcount (Gosper) */
                uint32_t t = c | (c - 1);
                c = (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(c) + 1));
            }
        }
    }
}

#endif
