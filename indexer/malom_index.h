/*
 * Malom's position index ("hash"), re-implemented from ../shared/docs/malom-format.md §4 alone.
 *
 * Used to find the entry of a board in a Malom `.sec2` / `.sec` file and to recompute which
 * entries must hold symmetry markers. The API speaks the checker's board type (ma_board, open
 * numbering a1=0, d1=1, ...); Malom's own point numbering (ring by ring, a4=0, a7=1, ...) is
 * converted internally, so the verifier can use the open index and this one through one board
 * type. Symmetry op numbers, however, are Malom's (§4.1 table), because they appear in the files.
 *
 * The index depends only on W and B (stones of the mover and of the opponent), never on the
 * variant or the stones in hand, so it serves std, lask and mora alike.
 *
 * Representatives (§4.3) are kept as one sorted list per W and ranked by binary search; the
 * 16 permutations are applied ring-byte-wise through small tables. Threading: create and
 * prepare single-threaded; afterwards every const function may be called from any number of
 * threads at once.
 */
#ifndef MA_MALOM_INDEX_H
#define MA_MALOM_INDEX_H

#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/mask_map.h"
#include "indexer/mover_map.h"
#include "indexer/position.h"

#define MA_MALOM_SYM_OPS 16
#define MA_MALOM_SYM_IDENTITY 15 /* Malom's identity op; never a marker op */
#define MA_MALOM_MAX_STONES 12   /* largest W handled (N = 12 in mora and the extended solution) */

typedef struct ma_malom_index ma_malom_index;

/* Malom's two-step lookup (§4.7) with its bit-exact intermediate values. */
typedef struct ma_malom_path {
    int op1;        /* op taking the mover mask onto its representative (15 if already one) */
    uint64_t h1;    /* index of op1(board), read first by Malom */
    int op2;        /* marker op stored at h1, or -1 when h1 is canonical */
    uint64_t index; /* final (canonical) index; always equals ma_malom_index_rank */
} ma_malom_path;

int ma_malom_index_create(ma_malom_index **out, ma_error *err);
void ma_malom_index_free(ma_malom_index *ix);

/* Builds the representative list for W mover stones (0..12) unless already built. Must be
 * called, single-threaded, for the W of every sector used later. MA_EINVAL for W out of range. */
int ma_malom_index_prepare(ma_malom_index *ix, int w, ma_error *err);
/* prepare() for W = 0..12 (about 1 s, 2 MiB). */
int ma_malom_index_prepare_all(ma_malom_index *ix, ma_error *err);
/* Non-zero once prepare(w) has succeeded. */
int ma_malom_index_prepared(const ma_malom_index *ix, int w);

/* f_count(W) of §4.3 from the spec's table, without any preparation (0 for W outside 0..12). */
uint64_t ma_malom_f_count(int w);
/* hash_count(W, B) = f_count(W) * C(24-W, B) (§4.5): entries of a sector file. 0 when impossible
 * (W outside 0..12, B < 0, W + B > 24). Needs no preparation; the readers use it. */
uint64_t ma_malom_hash_count(int w, int b);
/* The number of representatives actually found by prepare(w) (tests compare it with f_count). */
uint64_t ma_malom_index_rep_count(const ma_malom_index *ix, int w);

/* Board -> canonical index (§4.2-4.5). The board must have disjoint masks and W = popcount(mover)
 * prepared; B may be anything 0..24-W. If canon_out is non-NULL it receives the canonical board. */
uint64_t ma_malom_index_rank(const ma_malom_index *ix, ma_board board, ma_board *canon_out);
/* ma_malom_index_rank of the Malom-numbered board (w, b), with the canonical board, Malom-numbered,
 * in *cw and *cb (the same computation without the renumbering to and from the open points). */
uint64_t ma_malom_index_rank_malom(const ma_malom_index *ix, uint32_t w, uint32_t b, uint32_t *cw,
                                   uint32_t *cb);
/* The mover part of the index, shared by every board with the same mover mask (successors are
 * colour-swapped, so all non-removal successors of an entry share it). ops lists every op that maps
 * the mover mask onto its representative; the canonical form minimises the opponent image over
 * them (§4.2). Filled by ma_malom_mover_info; mover stones must be prepared. */
typedef struct {
    uint32_t mover_open; /* the mover mask it was computed for (open numbering) */
    uint32_t rep;        /* representative, Malom numbering */
    uint32_t f_rank;
    int w;
    int nops;
    uint8_t ops[MA_MALOM_SYM_OPS];
} ma_malom_mover;
void ma_malom_mover_info(const ma_malom_index *ix, uint32_t mover_open, ma_malom_mover *mi);
/* Equals ma_malom_index_rank(ix, {mi->mover_open, opp_open}, NULL); opp disjoint from the mover. */
uint64_t ma_malom_index_rank_with(const ma_malom_index *ix, const ma_malom_mover *mi,
                                  uint32_t opp_open);
/* Malom's two-step path (§4.7); path->index equals ma_malom_index_rank. */
void ma_malom_index_path(const ma_malom_index *ix, ma_board board, ma_malom_path *path);
/* Index -> board (§4.5 inverse); index must be < hash_count(w, b), w prepared. The mover mask is
 * a representative; the board may be non-canonical. */
ma_board ma_malom_index_unrank(const ma_malom_index *ix, int w, int b, uint64_t index);
/* Marker rule (§4.6) for an index: -1 if the index is canonical (holds a value), otherwise the op
 * (0..14) its marker must name. Same preconditions as unrank. */
int ma_malom_index_marker(const ma_malom_index *ix, int w, int b, uint64_t index);

/* canon(board) of §4.2 (open numbering in and out); needs no preparation. */
ma_board ma_malom_canonical(ma_board board);
/* Malom op (0..15) applied to an open-numbered board (both halves). */
ma_board ma_malom_sym_apply(int op, ma_board board);
/* inverse(op) of §4.1: 0<->2, 8<->10, every other op its own inverse. */
int ma_malom_sym_inverse(int op);

/* Point-numbering conversion for single masks (24 bits): open <-> Malom (§1.1). */
uint32_t ma_malom_mask_from_open(uint32_t open_mask);
uint32_t ma_malom_mask_to_open(uint32_t malom_mask);

/* Malom's packed position (§1.2): mover | opponent << 24, Malom numbering. */
uint64_t ma_malom_pack(ma_board board);
ma_board ma_malom_unpack(uint64_t packed);

/* ---- Malom-numbered masks, for hot loops ----------------------------------------------------
 * The functions below take and return 24-bit masks in Malom's own point numbering (§1.1, bit p =
 * ring p/8, in-ring position p%8), so a checker that generates moves on Malom-numbered boards pays
 * no numbering conversion per successor. They compute exactly what the open-numbered functions
 * above compute (test_malom_index compares them on random boards of every (W, B)). */

/* Op (0..15) applied to one Malom-numbered mask. */
uint32_t ma_malom_apply_mask(int op, uint32_t malom_mask);
/* The representative of rank f_rank among those of w stones (f_rank < f_count(w), w prepared). */
uint32_t ma_malom_index_rep(const ma_malom_index *ix, int w, uint64_t f_rank);
/* g_rank(compress(opp, rep)) of §4.4: the position of opp among the placements beside mover mask
 * rep. The raw index of a board (rep, opp) is f_rank(rep) * C(24 - W, B) + this. */
uint64_t ma_malom_g_rank(uint32_t rep, uint32_t opp);
/* ma_malom_g_rank through the index's fastest path (the bit extract when the CPU has a fast one). */
uint64_t ma_malom_index_g_rank(const ma_malom_index *ix, uint32_t rep, uint32_t opp);
/* ma_malom_index_unrank in Malom numbering. */
void ma_malom_index_unrank_malom(const ma_malom_index *ix, int w, int b, uint64_t index,
                                 uint32_t *mover, uint32_t *opp);

/* Tabulates the mover part (f_rank and the op reaching the representative) of every mask of w
 * stones, C(24, w) words (166 KiB for w = 5, 10.7 MiB for w = 12), so that ranking a board whose
 * mover mask has not been seen costs a table load instead of 15 permutations and a search.
 * Optional; requires prepare(w); single-threaded like prepare. */
int ma_malom_index_prepare_movers(ma_malom_index *ix, int w, ma_error *err);

/* A per-thread cache of mover parts keyed by the mover mask, 16 sets of 4 slots: the successors
 * of one position have a few mover masks (its opponent mask, and that mask less each stone a
 * removal can take), which must not evict each other as they did in a direct-mapped cache.
 * Zero-initialise before first use; never share between threads. About 3 KiB per slot: allocate
 * the cache, do not put it on a stack. */
#define MA_MALOM_RANK_SETS 16
#define MA_MALOM_RANK_WAYS 4
#define MA_MALOM_RANK_CACHE (MA_MALOM_RANK_SETS * MA_MALOM_RANK_WAYS)
#define MA_MALOM_RANK_TABLES_AFTER 16
typedef struct ma_malom_rank_slot {
    uint32_t mover;  /* Malom-numbered mover mask this slot holds */
    uint32_t rep;    /* its representative */
    uint32_t f_rank;
    uint8_t w;
    uint8_t nops;    /* 0: the slot is empty */
    uint8_t ops[MA_MALOM_SYM_OPS];
    uint8_t q[MA_POINTS]; /* q[p]: the number of points below p not in rep (§4.4 compress) */
    /* One op only (nops = 1): the op and the compress step (§4.4) both distribute over union, so
     * the compressed image of an opponent mask is a mask map: three loads and two ORs, no
     * permutation or bit extract. It costs 768 entries, so it is built at the slot's
     * MA_MALOM_RANK_TABLES_AFTER-th board (the mover masks of removals are mostly used once or
     * twice). */
    uint8_t tables;  /* compress is built */
    uint16_t uses;
    ma_mask_map compress;
} ma_malom_rank_slot;
typedef struct ma_malom_rank_cache {
    ma_malom_rank_slot slot[MA_MALOM_RANK_CACHE];
    uint8_t victim[MA_MALOM_RANK_SETS]; /* the way a miss in the set fills next (round robin) */
} ma_malom_rank_cache;

/* The compress step of §4.4 uses the CPU's bit-extract instruction (BMI2 pext) when it is a fast
 * one, detected at create; on = 0 forces the portable loop (tests run both; results are equal). */
void ma_malom_index_use_bit_extract(ma_malom_index *ix, int on);

/* out[i] = the canonical index (ma_malom_index_rank) of the Malom-numbered board malom_boards[i],
 * i < n. The mover count of every board must be prepared. */
void ma_malom_index_rank_many(const ma_malom_index *ix, ma_malom_rank_cache *cache,
                              const ma_board *malom_boards, int n, uint64_t *out);

/* Fills mm (indexer/mover_map.h) for mover mask m (Malom numbering, popcount(m) prepared), so
 * that its rank of (m, opp) equals ma_malom_index_rank_many on that board: block[k] is
 * f_rank(representative) * C(24 - w, k), the compress step is §4.4's. Returns mm->nops (>= 1). */
int ma_malom_index_mover_map(const ma_malom_index *ix, uint32_t malom_mover, ma_mover_map *mm);

#endif
