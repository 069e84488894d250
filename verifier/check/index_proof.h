/*
 * The exhaustive proof of the checker's open index (sym16-colex, docs/format.md §4) on one sector,
 * and the check of an open file's value words against it: what `millaudit index-check` runs.
 *
 * Why each check: unrank/rank round trips prove the two directions agree; ranking every raw
 * placement to an image of itself, together with orbit sizes summing to the number of raw
 * placements, proves that canonical entries and orbits are in one-to-one correspondence (each
 * canonical entry can receive at most its orbit's placements, so equality forces exactly that).
 *
 * Failed checks are counted and each is reported through a callback (entry, board, one line of
 * what failed); the caller decides how many to show. Nothing is printed here.
 */
#ifndef MA_INDEX_PROOF_H
#define MA_INDEX_PROOF_H

#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"

typedef void (*ma_index_proof_fail_fn)(void *ctx, uint64_t entry, ma_board board,
                                       const char *what);

typedef struct ma_index_proof {
    uint64_t entries;     /* entries of the sector */
    uint64_t canonical;   /* canonical entries by the definition (ma_open_index_is_canonical) */
    uint64_t orbit_sum;   /* sum of the orbit sizes of the canonical entries */
    uint64_t placements;  /* raw placements ranked */
    uint64_t expected_placements; /* C(24, W) * C(24 - W, B) */
    uint64_t failures;    /* failed checks: each reported, except the count check (orbit_sum,
                             placements and expected_placements not all equal), counted only */
} ma_index_proof;

/* Proves sector (w, b) of ix (prepare(w) done): every entry unranks to a board of w and b stones;
 * classify agrees with the definitions of canonical and orbit size; a canonical entry ranks to
 * itself, a non-canonical one to its canonical image; every raw placement ranks to a canonical
 * entry that is its image under the op rank reports; the orbit sizes sum to the number of raw
 * placements. progress (may be NULL) counts entries and then placements, total set here.
 * MA_OK with *out filled (a failed proof is out->failures > 0), or MA_ENOMEM. */
int ma_index_proof_sector(const ma_open_index *ix, int w, int b, ma_progress *progress,
                          ma_index_proof_fail_fn on_failure, void *ctx, ma_index_proof *out,
                          ma_error *err);

/* Checks every value word of the mapped open file f of sector (w, b) against its entry kind: a
 * canonical entry must hold a value, a non-canonical one the word 0. Each bad word is reported
 * (what names the file's byte offset). MA_OK with *bad set, or MA_ENOMEM. */
int ma_index_proof_file_words(const ma_open_index *ix, const ma_open_file *f, int w, int b,
                              ma_index_proof_fail_fn on_failure, void *ctx, uint64_t *bad,
                              ma_error *err);

#endif
