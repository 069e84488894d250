/*
 * Verification of one sector file of the open format from its successors' stored values
 * (docs/format.md, verification-theory.md).
 *
 * Contract of ma_check_sector: every entry of the file is examined.
 *  - A non-canonical entry must hold 0x0000, otherwise `symmetry-inconsistency`.
 *  - A canonical entry is decoded (`bad-encoding` for any word §5.3 forbids, 0x0000 included), its
 *    value is re-derived with the checker's rules (verifier/check/rules.h): the value fixed by the rules
 *    alone when there is one (full mora board: draw; a turn that wins by reduction: win in 1; no
 *    turn: loss in 0), otherwise the best negated successor value looked up in the successor sector
 *    files (win in n+1 if some successor is a loss in n, the smallest n; draw if some successor is a
 *    draw or a win cannot be forced; loss in n+1 if every successor is a win, n the largest).
 *    A mismatch is `wrong-terminal` when the value is fixed by the rules alone, else
 *    `wrong-outcome` or `wrong-depth`.
 *  - A canonical entry that needs a successor from an absent sector file (`missing-child`) or
 *    whose successor word is itself a bad encoding (`unverifiable`) is counted as such and is never
 *    counted as verified: the checker does not guess.
 * "verified" counts the entries that were fully re-derived (or, non-canonical, hold 0x0000) and
 * matched. Every discrepancy is kept (entry, stored word, derived value, class) so the caller can
 * report rows (roots and propagated ones are told apart by the run, verifier/run/run_sector.h).
 *
 * Threads split the entries in chunks; each keeps its own counters and discrepancy list, merged at
 * the end. All inputs are read-only during the call.
 */
#ifndef MA_VERIFIER_CHECK_H
#define MA_VERIFIER_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/open_file.h"
#include "indexer/open_index.h"
#include "verifier/check/rules.h"

enum {
    MA_CHECK_WRONG_OUTCOME = 0,
    MA_CHECK_WRONG_DEPTH = 1,
    MA_CHECK_BAD_ENCODING = 2,
    MA_CHECK_WRONG_TERMINAL = 3,
    MA_CHECK_SYMMETRY = 4, /* symmetry-inconsistency: non-zero word at a non-canonical entry */
    MA_CHECK_CLASSES = 5
};

/* "wrong-outcome", "wrong-depth", "bad-encoding", "wrong-terminal", "symmetry-inconsistency";
 * "missing-child" for MA_CHECK_CLASSES (not a discrepancy: an input problem). */
const char *ma_check_class_name(int cls);

/* One discrepancy. */
typedef struct ma_check_item {
    uint64_t entry;
    uint32_t derived_depth;  /* derived value (when derived_known) */
    uint16_t stored;         /* the raw word in the file */
    uint8_t derived_outcome; /* ma_outcome; MA_OUTCOME_NONE for a non-canonical entry */
    uint8_t derived_known;   /* 0 when the value could not be derived (missing child / bad successor) */
    uint8_t cls;             /* MA_CHECK_* */
} ma_check_item;

typedef struct ma_check_result {
    ma_sector sector;
    uint64_t entries;        /* entries in the file */
    uint64_t checked;        /* entries examined (all of them) */
    uint64_t canonical;      /* canonical entries among them */
    uint64_t verified;       /* entries that matched: re-derived canonical, or 0x0000 non-canonical */
    uint64_t missing_child;  /* canonical entries not verified: a successor sector file is absent */
    uint64_t unverifiable;   /* canonical entries not verified: a successor word is a bad encoding */
    uint64_t by_class[MA_CHECK_CLASSES];
    uint64_t discrepancies;  /* sum of by_class */
    int missing_kind[MA_TURN_KINDS]; /* some entry needed this kind's absent sector file */
    ma_check_item *items;    /* every discrepancy, sorted by entry */
    size_t n_items;
    double seconds;          /* wall time of ma_check_sector */
} ma_check_result;

typedef struct ma_check_input {
    const ma_open_index *ix;  /* prepared with ma_check_prepare_index */
    const ma_open_file *file; /* the sector file checked */
    /* The mapped file of each turn kind's successor sector (rules.succ[k]), NULL when absent or
     * when the kind has no stored sector. A successor sector equal to the file's own sector is
     * taken from `file` automatically. */
    const ma_open_file *child[MA_TURN_KINDS];
    int threads;              /* >= 1 */
    /* The run's progress reporter (entries are added as they are checked), NULL for none. */
    ma_progress *progress;
    /* When non-NULL and set non-zero (by a signal handler), the check stops at the next chunk
     * and returns MA_ECANCELED; its partial result is discarded. */
    const volatile sig_atomic_t *cancel;
    /* The budget of the walk's huge-page copies (ma_walk_init, verifier/check/walk.h): 0 for
     * MA_WALK_RESIDENT_BUDGET, else ma_check_resident_budget (verifier/check/memory.h). */
    uint64_t resident_budget;
} ma_check_input;

/* Prepares ix for every W the check of (v, s) needs: s itself and its successor sectors. */
int ma_check_prepare_index(ma_open_index *ix, ma_variant v, ma_sector s, ma_error *err);

/* Checks in->file (see the contract above). out is overwritten; free with ma_check_result_free.
 * Errors: MA_EINVAL (bad input struct, sector invalid for its variant), MA_ENOMEM, MA_EINTERNAL. */
int ma_check_sector(ma_check_result *out, const ma_check_input *in, ma_error *err);

void ma_check_result_free(ma_check_result *r);

/* Value order of verification-theory.md as an integer: larger is better for the mover. */
int32_t ma_check_value_score(ma_value v);
/* The value of the move into a successor of value v (win n -> loss n+1, loss n -> win n+1). */
ma_value ma_check_value_negate(ma_value v);

#endif
