/*
 * verifier/run/run_sector: the format-neutral half of checking one sector, for the run engine.
 *
 * ma_rs_check runs the checker of the source's reader (open: verifier/check/check.h, Malom:
 * verifier/check/malom_check.h) on a source and turns its result into the engine's one shape:
 * counts, every discrepancy as an item (entry, class, derived value), the sector's status. It asks
 * the source (verifier/formats/source.h) what differs between formats, never the format itself.
 * ma_rs_classify splits the items into roots and propagated from the successor sectors'
 * discrepancy sets, by forward move generation on the boards of the source's index scheme (the
 * same rule for every format). ma_rs_rows builds the reported rows (roots
 * first), each with the turn that refutes the stored value; ma_rs_digest computes the
 * derived-value digest and histogram over the values the run established (docs/reproducibility.md).
 *
 * Internal to verifier/check/ and verifier/run/: the CLI sees only verifier/run/run.h.
 */
#ifndef MA_VERIFIER_RUN_SECTOR_H
#define MA_VERIFIER_RUN_SECTOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/source.h"
#include "verifier/check/rules.h"
#include "millaudit/verify.h" /* ma_vrun_sector, ma_vrun_row (the engine itself is not needed) */

/* One discrepancy as the engine keeps it until the rows are built. */
typedef struct ma_rs_item {
    uint64_t entry;
    uint8_t cls;             /* ma_disc_class */
    uint8_t root;            /* set by ma_rs_classify */
    uint8_t derived_kind;    /* as ma_vrun_row.derived_kind */
    uint8_t derived_exact;
    uint8_t has_draw_class;
    int8_t expected_marker;
    ma_value derived;
    int32_t derived_draw_class;
    char derived_text[64];
} ma_rs_item;

/* A sorted set of discrepancy entries of one sector. */
typedef struct ma_entry_set {
    const uint64_t *entries;
    size_t n;
} ma_entry_set;

int ma_entry_set_has(const ma_entry_set *s, uint64_t entry);

typedef struct ma_rs_input {
    ma_database *db;
    const ma_source *src;                       /* the sector checked */
    const ma_source *child[MA_TURN_KINDS];      /* successor sector per turn kind (NULL: absent,
                                                 * unusable, or no stored sector) */
    const char *child_path[MA_TURN_KINDS];      /* for messages: where the successor would be */
    int child_present[MA_TURN_KINDS];           /* the file exists (but may be unusable) */
    int threads;
    int full_board_draw;
    ma_progress *progress;
    const volatile sig_atomic_t *cancel;
    uint64_t resident_budget;                   /* the checkers' copy budget (ma_check_input),
                                                 * 0 for MA_WALK_RESIDENT_BUDGET */
} ma_rs_input;

typedef struct ma_rs_result {
    ma_vrun_sector *out;      /* counts, status and message are filled in here */
    ma_rs_item *items;       /* every discrepancy, sorted by entry */
    size_t n_items;
    uint64_t *entries;       /* the same entries, for the discrepancy set */
} ma_rs_result;

/* Checks in->src, filling res->out's counts, status and message (out->name etc. must be set).
 * Errors: those of the checkers (MA_ECANCELED, MA_ENOMEM, MA_EINTERNAL). */
int ma_rs_check(ma_rs_result *res, const ma_rs_input *in, ma_error *err);

/* Marks items root / propagated; child[k] is the discrepancy set of successor kind k's sector
 * (NULL: unknown, counts as none); own is res's set, used for successors in the sector itself. */
int ma_rs_classify(ma_rs_result *res, const ma_rs_input *in,
                   const ma_entry_set *const child[MA_TURN_KINDS], ma_error *err);

/* Non-zero for the classes that are roots by rule whatever the successors hold: a value fixed by
 * the rules (wrong-terminal), bytes that are no value (bad-encoding) and a misplaced marker or
 * value (symmetry-inconsistency). */
int ma_rs_class_fixed(int cls);

/* The indexes a classification unranks the sector's entries and ranks successor positions with:
 * the index scheme of the database's format (verifier/formats/source.h: {format, oix, mix}; no
 * file is read). oix must be prepared for the sector's W and every successor sector's W
 * (ma_open_index_prepare), mix likewise for Malom's formats. */
typedef ma_scheme ma_rs_ranker;

/* The rule of ma_rs_classify from the discrepancy sets alone (what verifier/run/merge.h reclassifies
 * with): entries[0..n) are sector s's discrepancy entries, fixed[i] non-zero when entry i is a root
 * by rule (ma_rs_class_fixed); sets[k] the discrepancy set the successor of turn kind k is looked up
 * in (the sector's own set for a self-loop; NULL or empty: none). Writes root[i] (1 root, 0
 * propagated) and the two counts. Errors: MA_EINVAL (an invalid sector), MA_ENOMEM, MA_EINTERNAL. */
int ma_rs_classify_sets(ma_variant v, ma_sector s, const ma_rs_ranker *rk, const uint64_t *entries,
                        const uint8_t *fixed, size_t n, const ma_entry_set *const sets[MA_TURN_KINDS],
                        uint8_t *root, uint64_t *roots, uint64_t *propagated, ma_error *err);

/* Fills res->out->rows with the first max_roots roots and the first max_propagated propagated
 * items (each by entry), roots first, at most max_rows in all. ma_rs_rows(m) is (m, m, m); a shard
 * run whose classification the merge may change keeps (2m, m, m) (docs/distributed.md). */
int ma_rs_rows_split(ma_rs_result *res, const ma_rs_input *in, size_t max_rows, size_t max_roots,
                     size_t max_propagated, ma_error *err);

/* Fills res->out->rows with the first max_rows items, roots first then by entry. */
int ma_rs_rows(ma_rs_result *res, const ma_rs_input *in, size_t max_rows, ma_error *err);

/* The derived-value digest and outcome/depth histogram (into res->out) of a sector whose every
 * entry was re-derived. Multi-threaded over entry blocks; the digest stream is fed in order. */
int ma_rs_digest(ma_rs_result *res, const ma_rs_input *in, ma_error *err);

void ma_rs_result_free(ma_rs_result *res);

/* "d6-d5xa1" style text of the turn from board `pos` to successor `succ` (colour-swapped). */
void ma_rs_move_text(ma_board pos, ma_board succ, char *buf, size_t len);

#endif
