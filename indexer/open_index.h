/*
 * The checker's implementation of the open index scheme `sym16-colex` v1 (docs/format.md §4).
 *
 * Deliberately a different algorithm from the producer's: canonical forms are computed by applying
 * all 16 permutations, and representatives are ranked by binary search in a sorted list per W
 * (no 2^24 lookup table).
 *
 * Threading: an ma_open_index is built and prepared single-threaded; afterwards every const
 * function may be called from any number of threads at once.
 */
#ifndef MA_OPEN_INDEX_H
#define MA_OPEN_INDEX_H

#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/mask_map.h"
#include "indexer/mover_map.h"
#include "indexer/position.h"

#define MA_SYM_OPS 16
#define MA_SYM_IDENTITY 0

typedef struct ma_open_index ma_open_index;

int ma_open_index_create(ma_open_index **out, ma_error *err);
void ma_open_index_free(ma_open_index *ix);

/* Builds the representative list for W stones (0..12) if not built yet. Must be called, single-
 * threaded, for every W used by later calls (the mover count of every sector looked up). */
int ma_open_index_prepare(ma_open_index *ix, int w, ma_error *err);

/* rep_count(W) (requires prepare(w)). */
uint64_t ma_open_index_rep_count(const ma_open_index *ix, int w);
/* Entry count of a sector with W mover and B opponent stones: rep_count(W) * C(24-W, B). */
uint64_t ma_open_index_entry_count(const ma_open_index *ix, int w, int b);

/* The representative of rank `rank` for W stones (rank < rep_count(w); requires prepare(w)). */
uint32_t ma_open_index_rep(const ma_open_index *ix, int w, uint64_t rank);

/* Sorts out the C(24-W, B) entries of representative `rep` (entries rep*M .. rep*M+M-1, M =
 * C(24-W, B)) in entry order: orbit[g] = 0 for a non-canonical entry, else the orbit size (1..16)
 * of its board, i.e. how many distinct positions the entry stands for. Cheaper than unranking every
 * entry: a representative fixed only by the identity makes all its entries canonical with orbit 16.
 * Returns the size of the mover mask's stabiliser. Requires prepare(w). */
int ma_open_index_classify(const ma_open_index *ix, int w, int b, uint64_t rep, uint8_t *orbit);

/* ma_open_sym_apply through the index's byte tables: the same result, several times faster. */
ma_board ma_open_index_apply(const ma_open_index *ix, int op, ma_board board);

/* C(n, k), 0 when k > n or either is negative. */
uint64_t ma_open_binomial(int n, int k);

/* Board -> entry of its canonical form. If op_out is non-NULL it receives the op k (0..15) with
 * canon(board) = π_k(board) (the smallest such k). Requires prepare(popcount(mover)). */
uint64_t ma_open_index_rank(const ma_open_index *ix, ma_board board, int *op_out);

/* The mover part of ranking, shared by every board with the same mover mask (most successors of
 * one entry: without a removal their mover mask is the entry's opponent mask). ops lists every op
 * that maps the mover mask to its representative, smallest first (several when the representative
 * has a non-trivial stabiliser). */
typedef struct {
    uint32_t mover;     /* the mover mask this was computed for */
    uint32_t rep;       /* canonical mover image (a representative) */
    int w;              /* popcount(mover) */
    int n_ops;
    uint64_t rep_rank;  /* rank of rep among the representatives of w stones */
    uint32_t free_pts;  /* points not in rep */
    uint8_t ops[MA_SYM_OPS];
} ma_open_mover_info;

/* Tabulates the mover part of every mask of W stones (C(24, W) words, e.g. 340 KiB for W = 5) so
 * that ma_open_index_mover_info becomes a lookup; optional (without it the part is computed).
 * Requires prepare(w); single-threaded like prepare. */
int ma_open_index_prepare_movers(ma_open_index *ix, int w, ma_error *err);

/* Fills *out for mover mask `mover`. Requires prepare(popcount(mover)). */
void ma_open_index_mover_info(const ma_open_index *ix, ma_open_mover_info *out, uint32_t mover);

/* ma_open_index_rank({mi->mover, opp}, NULL) using the precomputed mover part: the same entry. */
uint64_t ma_open_index_rank_opp(const ma_open_index *ix, const ma_open_mover_info *mi, uint32_t opp);

/* Entry -> the board it decodes to (mover mask is a representative; may be non-canonical).
 * entry must be < entry_count(w, b). */
ma_board ma_open_index_unrank(const ma_open_index *ix, int w, int b, uint64_t entry);

/* Non-zero when the board equals its own canonical form (a stored, value-holding entry). */
int ma_open_index_is_canonical(ma_board board);

/* π_op applied to both masks; op in 0..15 numbered as docs/format.md §4.1. */
ma_board ma_open_sym_apply(int op, ma_board board);
/* The op k with π_k ∘ π_op = identity. */
int ma_open_sym_inverse(int op);
/* canon(board) of §4.2. */
ma_board ma_open_canonical(ma_board board, int *op_out);
/* Number of distinct boards among the 16 images (16 / stabiliser size): how many positions one
 * canonical entry stands for. */
int ma_open_orbit_size(ma_board board);

/* ---- Batched ranking for hot loops ----------------------------------------------------------
 * A per-thread cache of mover parts keyed by the mover mask, 16 sets of 4 slots: the successors
 * of one position have a few mover masks (its opponent mask, and that mask less each stone a
 * removal can take), which must not evict each other as they did in a direct-mapped cache. With
 * one op onto the representative the compressed opponent image (§4.3) is linear in the
 * opponent's points, so the slot keeps it as three tables, one per byte of the opponent mask:
 * three loads and two ORs rank the opponent part, with no permutation or bit extract per board.
 * Zero-initialise before first use; never share between threads. About 3 KiB per slot: allocate
 * the cache, do not put it on a stack. */
#define MA_OPEN_RANK_SETS 16
#define MA_OPEN_RANK_WAYS 4
#define MA_OPEN_RANK_CACHE (MA_OPEN_RANK_SETS * MA_OPEN_RANK_WAYS)
#define MA_OPEN_RANK_TABLES_AFTER 16
typedef struct ma_open_rank_slot {
    uint32_t mover;        /* mover mask this slot holds */
    uint32_t rep;          /* its representative */
    uint64_t rep_rank;
    uint8_t w;
    uint8_t n_ops;         /* 0: empty */
    uint8_t ops[MA_SYM_OPS];
    uint8_t q[MA_POINTS];  /* q[p]: points below p not in rep */
    /* n_ops = 1: the compressed image of the opponent mask, built at the slot's
     * MA_OPEN_RANK_TABLES_AFTER-th board (768 entries do not pay for the mover masks of removals,
     * mostly used once or twice) */
    uint8_t tables;        /* compress is built */
    uint16_t uses;
    ma_mask_map compress;
} ma_open_rank_slot;
typedef struct ma_open_rank_cache {
    ma_open_rank_slot slot[MA_OPEN_RANK_CACHE];
    uint8_t victim[MA_OPEN_RANK_SETS]; /* the way a miss in the set fills next (round robin) */
} ma_open_rank_cache;

/* rank_many uses the CPU's bit extract (BMI2 pext) when it is a fast one, detected at create;
 * on = 0 forces the portable path (tests run both; results are equal). */
void ma_open_index_use_bit_extract(ma_open_index *ix, int on);
/* out[i] = ma_open_index_rank(boards[i], NULL) for i < n. Requires prepare() of every mover
 * count (prepare_movers makes new mover masks cheaper). */
void ma_open_index_rank_many(const ma_open_index *ix, ma_open_rank_cache *cache,
                             const ma_board *boards, int n, uint64_t *out);
/* The colex rank of opp compressed onto the points not in rep (the opponent part of an entry
 * whose mover mask is the representative rep; opp disjoint from rep). */
uint64_t ma_open_index_g_rank(const ma_open_index *ix, uint32_t rep, uint32_t opp);

/* Non-zero once ma_open_index_prepare(w) has succeeded (0 for w out of range). */
int ma_open_index_prepared(const ma_open_index *ix, int w);

/* Fills mm (indexer/mover_map.h) for mover mask m (popcount(m) prepared), so that its rank of
 * (m, opp) equals ma_open_index_rank_many on that board: block[k] is rank(representative) *
 * C(24 - w, k), the compress step is §4.3's. Returns mm->nops (>= 1). */
int ma_open_index_mover_map(const ma_open_index *ix, uint32_t mover, ma_mover_map *mm);

#endif
