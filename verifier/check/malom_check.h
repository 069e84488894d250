/*
 * Verification of one Malom sector file (`.sec2` or legacy `.sec`) with Malom's value semantics
 * (../shared/docs/malom-format.md §4.6, §5.5, §5.8, §6; verification-theory.md).
 *
 * Contract of ma_mcheck_sector: every index of the file is examined.
 *  - Marker rule (§4.6): an index holds a symmetry marker exactly when the rule puts one there, and
 *    the marker names exactly the prescribed op; the op applied to the decoded board must give the
 *    canonical board of its class. Any violation is `symmetry-inconsistency`.
 *  - Every index's board must round-trip through the index (unrank, then rank gives the index, or
 *    the class's canonical index for a marker). A failure is a bug of the checker's index, not of
 *    the file: the call returns MA_EINTERNAL.
 *  - Every canonical entry is re-derived by §6: start at (VL - v(S), 0); each turn of the mover
 *    (verifier/check/rules.h) that wins by reduction gives (VW - v(S), 1), every other turn the §5.8
 *    value of its successor's stored entry; the maximum under the §5.8 order; on a full 12/12
 *    board with `full_board_draw` the value is (0, 0). Stored and derived must agree on key1, and
 *    on key2 unless key1 = 0.
 *    Classes of a mismatch: `wrong-terminal` (value fixed by the rules alone: no turn, a win by
 *    reduction, the full board), `bad-encoding` (a stored win with an even / loss with an odd or
 *    negative depth), `wrong-outcome` (win/draw/loss differs), `wrong-depth` (same win/loss,
 *    other depth), `wrong-draw-class` (both draws, A or the draw's tie-breaking key2 differs; only
 *    a `.sec2` has draw classes).
 *  - Bounds: when some successor sector file is absent (child[k] NULL) or a successor's canonical
 *    entry is itself a marker (a broken child), the known turns give a lower bound L. A stored value
 *    below L contradicts (a discrepancy, classed as above against L). A stored win equal to L is
 *    verified (a known successor gives exactly it and none a shorter win, verification-theory.md);
 *    a value reached by the rules alone is verified; anything else is `within_bounds` only, never
 *    verified.
 *
 * Roots and propagated discrepancies are told apart by the run from every sector's discrepancy
 * set (verifier/run/run_sector.h, ma_rs_classify), the same rule for every format.
 *
 * Threads split the indices into chunks; files are only read. Progress lines go to `progress`.
 */
#ifndef MA_VERIFIER_MALOM_CHECK_H
#define MA_VERIFIER_MALOM_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/malom_file.h"
#include "indexer/malom_index.h"
#include "verifier/check/rules.h"

enum {
    MA_MCHECK_WRONG_OUTCOME = 0,
    MA_MCHECK_WRONG_DEPTH = 1,
    MA_MCHECK_WRONG_DRAW_CLASS = 2,
    MA_MCHECK_WRONG_TERMINAL = 3,
    MA_MCHECK_BAD_ENCODING = 4,
    MA_MCHECK_SYMMETRY = 5,
    MA_MCHECK_CLASSES = 6
};

/* "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
 * "symmetry-inconsistency"; "missing-child" for MA_MCHECK_CLASSES. */
const char *ma_mcheck_class_name(int cls);

typedef struct ma_mcheck_item {
    uint64_t entry;
    ma_malom_entry stored;  /* decoded stored entry */
    ma_malom_value derived; /* derived value (or lower bound when !derived_full), parent frame */
    int expected_marker;    /* op the marker rule prescribes, -1 for a canonical index */
    uint8_t derived_full;   /* 1: fully derived; 0: only a lower bound (children missing) */
    uint8_t cls;            /* MA_MCHECK_* */
} ma_mcheck_item;

typedef struct ma_mcheck_result {
    ma_sector sector;
    ma_malom_frame frame;
    uint64_t entries;       /* indices in the file (hash_count) */
    uint64_t markers;       /* indices the marker rule assigns a marker */
    uint64_t canonical;     /* the others */
    uint64_t verified;      /* markers that are right + canonical entries fully re-derived */
    uint64_t bound_wins;    /* among verified: wins established by a known successor while
                               other successor sectors were absent (verification-theory.md) */
    uint64_t within_bounds; /* canonical entries consistent with the known successors only */
    uint64_t missing_child; /* canonical entries that needed an absent successor sector */
    uint64_t broken_child;  /* canonical entries whose successor's entry was a marker */
    uint64_t by_class[MA_MCHECK_CLASSES];
    uint64_t discrepancies;
    int missing_kind[MA_TURN_KINDS];
    ma_mcheck_item *items;  /* every discrepancy, sorted by entry */
    size_t n_items;
    double seconds;
} ma_mcheck_result;

typedef struct ma_mcheck_input {
    const ma_malom_index *ix;   /* prepared for the W of the sector and of its successors */
    const ma_malom_file *file;  /* the sector checked */
    const char *path;           /* its path, for messages (may be NULL) */
    /* File of each turn kind's successor sector (rules.succ[k]); NULL when absent. A successor
     * sector equal to the file's own sector is taken from `file` automatically. */
    const ma_malom_file *child[MA_TURN_KINDS];
    int full_board_draw;        /* §6 step 4 (Malom's default: 1) */
    int threads;              /* >= 1 */
    /* The run's progress reporter (entries are added as they are checked), NULL for none. */
    ma_progress *progress;
    /* When non-NULL and set non-zero (by a signal handler), the check stops at the next chunk
     * and returns MA_ECANCELED; its partial result is discarded. */
    const volatile sig_atomic_t *cancel;
    /* 1: check every index with the straightforward reference path (unrank, rank, derive one
     * successor at a time) instead of the table-driven one; both give identical results (the
     * unit tests compare them). 0 (default) picks the fast path whenever it applies. */
    int reference;
    /* The budget of the walk's huge-page copies (ma_walk_init, verifier/check/walk.h): 0 for
     * MA_WALK_RESIDENT_BUDGET, else ma_check_resident_budget (verifier/check/memory.h). */
    uint64_t resident_budget;
} ma_mcheck_input;

/* Prepares ix for the W of s and of each successor sector of s. */
int ma_mcheck_prepare_index(ma_malom_index *ix, ma_variant v, ma_sector s, ma_error *err);

/* Checks in->file (contract above). out is overwritten; free with ma_mcheck_result_free.
 * Errors: MA_EINVAL, MA_ENOMEM, MA_EINTERNAL (index round-trip failure: names file, sector, offset). */
int ma_mcheck_sector(ma_mcheck_result *out, const ma_mcheck_input *in, ma_error *err);

void ma_mcheck_result_free(ma_mcheck_result *r);

/* "win 13", "loss 8", "draw A=42 k2=-3" (draw classes for .sec2), "draw" (legacy), for a value in
 * the given frame. */
void ma_mcheck_format_value(const ma_malom_frame *f, int legacy, ma_malom_value v, char *buf,
                            size_t len);

#endif
