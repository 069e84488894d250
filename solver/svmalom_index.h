/*
 * svmalom_index: the producer's own implementation of Malom's position index ("hash"),
 * written from ../shared/docs/malom-format.md §4 (and nothing else; the checker has its own).
 *
 * Masks here are in Malom's point numbering (§1.1: ring by ring, outer ring first, each ring
 * clockwise from its left midpoint); ma_svmidx_from_open / ma_svmidx_to_open convert from and to
 * the open numbering the rest of the producer uses. Operation numbers are Malom's (§4.1), because
 * they are stored in the files as symmetry markers.
 *
 * Same technique as the producer's open index (solver/svindex.h), on Malom's numbering: for every
 * prepared mover popcount W a table indexed by a mask's colex rank gives the rank of its
 * representative (f_rank, §4.3) and one op reaching it; per representative the set of ops fixing
 * it. The object is read-only after preparation and may be shared by threads.
 */
#ifndef MA_SVMALOM_INDEX_H
#define MA_SVMALOM_INDEX_H

#include <stdint.h>

#include "common/ma_error.h"

#define MA_SVMIDX_MAX_STONES 12

typedef struct ma_svmidx {
    uint8_t perm[16][24];        /* π_k(p), built from the §4.1 formulas */
    uint32_t lut[16][3][256];    /* op k applied to one byte of a mask */
    uint64_t binom[25][25];
    uint32_t colex_lut[3][256][17]; /* colex sum of one byte's bits given the bits below it */
    uint8_t pext8[256][256];     /* [mask][value]: the bits of value under mask, packed down */
    uint32_t to_open[3][256];    /* Malom numbering -> open numbering, per byte */
    uint32_t from_open[3][256];  /* open numbering -> Malom numbering, per byte */
    uint32_t *mover[MA_SVMIDX_MAX_STONES + 1]; /* [C(24, W)] by colex rank: f_rank << 4 | op */
    uint32_t *reps[MA_SVMIDX_MAX_STONES + 1];  /* f_rank -> representative mask */
    uint16_t *stab[MA_SVMIDX_MAX_STONES + 1];  /* f_rank -> ops fixing it (bit 15 = identity) */
    uint32_t rep_count[MA_SVMIDX_MAX_STONES + 1]; /* f_count(W) */
    int ready[MA_SVMIDX_MAX_STONES + 1];
} ma_svmidx;

/* The inverse of op k (§4.1: 0 <-> 2, 8 <-> 10, every other op its own inverse). */
int ma_svmidx_inverse_op(int op);

int ma_svmidx_init(ma_svmidx *ix, ma_error *err);
void ma_svmidx_free(ma_svmidx *ix);
/* Builds the tables for mover popcount w (0..12); cheap when already built. Not thread-safe. */
int ma_svmidx_prepare(ma_svmidx *ix, int w, ma_error *err);

static inline uint32_t ma_svmidx_apply(const ma_svmidx *ix, int op, uint32_t m)
{
    return ix->lut[op][0][m & 255] | ix->lut[op][1][(m >> 8) & 255] | ix->lut[op][2][m >> 16];
}

static inline uint32_t ma_svmidx_from_open(const ma_svmidx *ix, uint32_t m)
{
    return ix->from_open[0][m & 255] | ix->from_open[1][(m >> 8) & 255] |
           ix->from_open[2][m >> 16];
}

static inline uint32_t ma_svmidx_to_open(const ma_svmidx *ix, uint32_t m)
{
    return ix->to_open[0][m & 255] | ix->to_open[1][(m >> 8) & 255] | ix->to_open[2][m >> 16];
}

static inline uint64_t ma_svmidx_binom(const ma_svmidx *ix, int n, int k)
{
    return (n < 0 || k < 0 || k > n) ? 0 : ix->binom[n][k];
}

/* hash_count(W, B) = f_count(W) * C(24 - W, B) (§4.5); W must be prepared. */
uint64_t ma_svmidx_count(const ma_svmidx *ix, int w, int b);

/* Canonical index of (w, b) (§4.2-4.5); popcount(w) must be prepared and w, b disjoint. */
uint64_t ma_svmidx_index(const ma_svmidx *ix, uint32_t w, uint32_t b);

/* Board of index h of a (W, B) sector (§4.5 inverse); the mover mask is a representative.
 * MA_EINVAL if W is not prepared or h is out of range. */
int ma_svmidx_board(const ma_svmidx *ix, int w_count, int b_count, uint64_t h, uint32_t *w,
                    uint32_t *b, ma_error *err);

/* The marker rule of §4.6 for a board whose mover mask is the representative of rank f:
 * -1 when the board is canonical (its index holds a value), else the marker op (0..14). */
int ma_svmidx_marker(const ma_svmidx *ix, int w_count, uint32_t f, uint32_t b);

/* Malom's two-step lookup (§4.7), for bit-exact intermediate values: op1, h1, and op2 (-1 when
 * h1 holds no marker). Returns the final index, which always equals ma_svmidx_index. */
uint64_t ma_svmidx_path(const ma_svmidx *ix, uint32_t w, uint32_t b, int *op1, uint64_t *h1,
                        int *op2);

/* Spreads the bits of c onto the points not in w (j-th free point gets bit j of c). */
uint32_t ma_svmidx_expand(uint32_t c, uint32_t w);

#endif
