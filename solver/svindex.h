/*
 * svindex: the producer's implementation of the open index scheme `sym16-colex`
 * (docs/format.md §4), table-driven.
 *
 * For every mover mask of a prepared popcount W a table of C(24, W) words, indexed by the
 * mask's colex rank (three byte lookups), gives the rank of its representative and the symmetry
 * op that reaches it; per representative a 16-bit set of the ops
 * that fix it (its stabiliser) is kept, so canon(w, b) costs one table lookup plus one permutation
 * of b per stabiliser op. Tables are built per popcount on demand (ma_svindex_prepare) because
 * small games need only a few popcounts. The object is read-only after preparation and may be
 * shared by threads.
 */
#ifndef MA_SVINDEX_H
#define MA_SVINDEX_H

#include <stdint.h>

#include "common/ma_error.h"
#include "solver/svrules.h"

typedef struct ma_svindex {
    uint32_t lut[16][3][256];  /* op k applied to one byte of a mask */
    uint64_t binom[25][25];
    uint32_t colex_lut[3][256][17]; /* colex sum of one byte's bits, given the bits below it */
    uint8_t pext8[256][256];   /* [mask][value]: the bits of value under mask, packed down */
    uint32_t *mover[25];       /* [C(24, W)] by colex rank of the mask: rep_rank << 4 | op */
    int ready[25];
    uint32_t rep_count[25];
    uint32_t *reps[25];        /* rank -> representative mask */
    uint16_t *stab[25];        /* rank -> ops k with π_k(rep) = rep */
} ma_svindex;

/* The permutation table of docs/format.md §4.1. */
extern const uint8_t ma_svindex_perm[16][24];

int ma_svindex_init(ma_svindex *ix, ma_error *err);
void ma_svindex_free(ma_svindex *ix);
/* Builds the tables for mover popcount w (0..12); cheap when already built. Not thread-safe. */
int ma_svindex_prepare(ma_svindex *ix, int w, ma_error *err);

static inline uint32_t ma_svindex_apply(const ma_svindex *ix, int op, uint32_t m)
{
    return ix->lut[op][0][m & 255] | ix->lut[op][1][(m >> 8) & 255] | ix->lut[op][2][m >> 16];
}

static inline uint64_t ma_svindex_binom(const ma_svindex *ix, int n, int k)
{
    return (n < 0 || k < 0 || k > n) ? 0 : ix->binom[n][k];
}

/* Colex rank of a 24-bit mask among the masks of its popcount (= its rank in numeric order). */
static inline uint32_t ma_svindex_colex24(const ma_svindex *ix, uint32_t m)
{
    uint32_t b0 = m & 255, b1 = (m >> 8) & 255;
    int k1 = ma_sv_popcount(b0), k2 = k1 + ma_sv_popcount(b1);
    return ix->colex_lut[0][b0][0] + ix->colex_lut[1][b1][k1] + ix->colex_lut[2][m >> 16][k2];
}

/* rep_count(W) * C(24 - W, B). */
/* Walking a sector in entry order: the B-subsets of a representative's free points in colex
 * order are the increasing compressed masks c (bit i selects the i-th free point, pts[i]). */
static inline uint32_t ma_svindex_spread(const uint32_t pts[24], uint32_t c)
{
    uint32_t b = 0;
    for (; c; c &= c - 1)
        b |= pts[__builtin_ctz(c)];
    return b;
}

/* The next mask with as many bits in colex order (Gosper's hack); c != 0. */
static inline uint32_t ma_svindex_colex_next(uint32_t c)
{
    uint32_t lo = c & -c, r = c + lo;
    return (((r ^ c) >> 2) / lo) | r;
}

/* Canonical iff no op of the representative's stabiliser (bit 0, the identity, is ignored) lowers
 * the opponent mask b (docs/format.md §4.2). */
static inline int ma_svindex_stab_canonical(const ma_svindex *ix, uint16_t stab, uint32_t b)
{
    for (uint16_t fix = stab & (uint16_t)~1u; fix; fix &= (uint16_t)(fix - 1))
        if (ma_svindex_apply(ix, __builtin_ctz(fix), b) < b)
            return 0;
    return 1;
}

uint64_t ma_svindex_entry_count(const ma_svindex *ix, int w, int b);
/* Canonical form of (w, b); popcount(w) must be prepared. */
void ma_svindex_canon(const ma_svindex *ix, uint32_t w, uint32_t b, uint32_t *wc, uint32_t *bc);
/* entry(w, b) of §4.3; popcount(w) must be prepared. */
uint64_t ma_svindex_entry(const ma_svindex *ix, uint32_t w, uint32_t b);
/* Inverse: the board of entry e of a (W, B) sector. MA_EINVAL if e is out of range. */
int ma_svindex_board(const ma_svindex *ix, int w_count, int b_count, uint64_t e,
                     uint32_t *w, uint32_t *b, ma_error *err);
/* Whether (w, b) equals its own canonical form, i.e. its entry holds a value. */
int ma_svindex_is_canonical(const ma_svindex *ix, uint32_t w, uint32_t b);
/* Spreads the bits of c onto the points not in w (j-th free point gets bit j of c). */
uint32_t ma_svindex_expand(uint32_t c, uint32_t w);

#endif
