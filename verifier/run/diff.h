/*
 * Position-by-position comparison of two databases, in any of the formats verifier/formats/source.h reads
 * (open `.mdb`, Malom `.sec`, Malom `.sec2` with `.secval` or STONE_DIFF). docs/diff.md describes
 * the command built on it; cli/cmd_diff.c only parses options and renders.
 *
 * Contract:
 *   - Pairing (ma_diff_plan): the sectors of A and B (verifier/formats/source.h discovery) are paired by
 *     variant and sector; a sector on one side only is `only-in-A` / `only-in-B`. Picks
 *     (verifier/formats/sector_pick.h) restrict the pairs; a pick in neither database is an error.
 *   - A pair (one-sided or not) whose file discovery found unusable (a FIFO, a broken link: a
 *     sector of its database that fails with its reason) is `unusable` without being read.
 *   - Files of the same format whose SHA-256 digests agree are identical; nothing else is read
 *     (unless opt->full). A file that cannot be hashed or opened makes its pair `unusable`, with
 *     the reader's one-line message; the other pairs are still compared.
 *   - Otherwise every canonical entry of A (per A's index scheme: a value-holding slot) is a
 *     position; its board is mapped into B's index (canonical form up to the 16 symmetries, B's
 *     own numbering) and both stored values are read as normalised values (verifier/formats/value.h):
 *     outcome, depth and, for `.sec2` against `.sec2` in the same frame, the draw class A. The
 *     canonical entries of one index scheme cover every orbit of the sector exactly once, so this
 *     visits every position of either file once. Non-canonical slots hold no value in either
 *     scheme: they are compared only as bytes, and only when both files have the same format
 *     (then a different filler or marker is `encoding`).
 *   - Classes: outcome (win/draw/loss differ, or one side has no valid value), depth (same
 *     outcome, other depth), draw-class, encoding (same values, different bytes, including every
 *     position when the formats differ, and one for bytes outside the entries such as the header).
 *
 * Threads split A's entry range; results are merged in entry order, so examples are the first
 * `limit` differences in A's entry order whatever the thread count.
 */
#ifndef MA_DIFF_H
#define MA_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "millaudit/diff.h"
#include "verifier/formats/sector_pick.h"
#include "verifier/check/rules.h"
#include "verifier/formats/source.h"
#include "indexer/position.h"
#include "reports/store/audit.h"

/* The pair, example, result and option types are public: include/millaudit/diff.h. */

/* Pairs the sectors of a and b (contract above) into *out (n of them, sorted by variant and
 * sector; free with ma_diff_plan_free), all `pending` except one-sided ones. picks may be NULL
 * when n_picks is 0; matching marks them. Errors: MA_EMISSING "--sector X: in neither A nor B"
 * for a pick that matches no sector of either side; MA_EFORMAT when a side holds no usable
 * sector, when the sides hold different variants, or when both are single files of different
 * sectors; MA_ENOMEM. */
int ma_diff_plan(ma_diff_sector **out, size_t *n, const ma_database *a, const ma_database *b,
                 ma_sector_pick *picks, size_t n_picks, ma_error *err);
void ma_diff_plan_free(ma_diff_sector *s, size_t n);

/* `diff A B --shard I/N` (docs/distributed.md): keeps, in order, only the pairs of shard index of
 * n_shards and sets *n to their count. The partition is verifier/run/shard.h's over the planned pairs:
 * each pair named by its sector and costed by A's file (B's for a sector only B holds), so when A and
 * B hold the same sectors it is the partition of `verify A --shard I/N`. Call it on a fresh plan
 * (pairs still pending). Errors: MA_EINVAL (n_shards 0 or index >= n_shards), MA_ENOMEM. */
int ma_diff_plan_shard(ma_diff_sector *s, size_t *n, unsigned index, unsigned n_shards, ma_error *err);

/* Compares one pending pair: digest shortcut, then positions; sets s->status and s->r. A file
 * that cannot be hashed or opened is not an error of the call: s becomes `unusable` with its
 * message (and the database lists the file among its unusable ones). Sources are released
 * afterwards. Errors: MA_ENOMEM, MA_EINTERNAL (a thread could not be started). */
int ma_diff_sector_compare(ma_diff_sector *s, ma_database *a, ma_database *b,
                           const ma_diff_options *opt, ma_error *err);

/* Compares two opened sources of the same variant and sector (MA_EINVAL otherwise), without the
 * digest shortcut. Errors: MA_EINVAL, MA_ENOMEM, MA_EINTERNAL. */
int ma_diff_compare(ma_diff_result *out, const ma_source *a, const ma_source *b,
                    const ma_diff_options *opt, ma_error *err);
void ma_diff_result_free(ma_diff_result *r);

/* ---- where a difference comes from (verifier/run/diff_cause.c, issue 45) ----
 *
 * A position whose value differs between A and B is a ROOT difference when every successor holds
 * the same value on both sides (or it has none: blocked, a full board): then the two sides derive
 * the same value from their successors, and at least one stores another one. It is PROPAGATED when
 * some successor's value differs too: that difference can explain this one. A successor that
 * cannot be read on a side leaves the position UNKNOWN (counted with the roots: nothing explains
 * it). The same local rule the checker applies (docs/verifier.md "Root vs propagated"), between
 * two databases instead of within one. */
typedef struct ma_diff_succ {
    ma_variant variant;
    ma_sector sector;
    ma_vrules rules;
    const ma_source *a[MA_TURN_KINDS], *b[MA_TURN_KINDS]; /* NULL: absent or unusable there */
    int same_scheme[MA_TURN_KINDS];
    int draw_cmp;
} ma_diff_succ;

/* The rules and successor sources of sector s of both databases (sources that cannot be used are
 * left NULL: their turns are unknown). Errors: MA_ENOMEM, MA_EINVAL (not a sector of v). Close
 * with ma_diff_succ_close, which releases the successor sources other than s itself. */
int ma_diff_succ_open(ma_diff_succ *out, ma_database *a, ma_database *b, ma_variant v, ma_sector s, int draw_cmp,
                      ma_error *err);
void ma_diff_succ_close(ma_diff_succ *c, ma_database *a, ma_database *b);
/* MA_DIFF_CAUSE_* of a position of the sector whose value differs; *kind the successor kind
 * (MA_TURN_*) of the first successor found to differ. scratch: one ma_vturns per thread. */
int ma_diff_succ_cause(const ma_diff_succ *c, ma_board pos, ma_vturns *scratch, int *kind);

/* The proof of one value difference: probes the position in both databases (every turn and its
 * value on each side) and fills x->turns, rules_*, agrees_*, right, proof, no_turn (x->proved 1).
 * A side that cannot be probed leaves x->proved 0. Errors: MA_ENOMEM only. */
int ma_diff_prove(ma_diff_example *x, ma_database *a, ma_database *b, ma_variant v, ma_sector s, ma_error *err);
void ma_diff_example_free(ma_diff_example *x);

/* Compares s (pending) as ma_diff_sector_compare does, and also classifies every value difference
 * by its cause and proves the examples (ma_diff_run). */
int ma_diff_sector_compare_causes(ma_diff_sector *s, ma_database *a, ma_database *b, const ma_diff_options *opt,
                                  ma_error *err);

/* Records one pair into run run_id of an audit store (kind "diff", docs/diff.md): a sector row
 * (ok / discrepancies / skipped for a one-sided pair / unusable; the per-class counts) and one
 * discrepancy row per example (stored = A's value, derived = B's). Errors of the store. */
int ma_diff_record(ma_audit *a, int64_t run_id, const ma_diff_sector *s, ma_error *err);

/* What ma_diff_run (include/millaudit/diff.h, verifier/run/diff_run.c) leaves for the accessors and the
 * renderers (reports/render/diff_render.c). The databases stay open: the renderers name their formats,
 * variants and unusable files. */
#define MA_DIFF_NOTICES 3
struct ma_diff_report {
    char *path_a, *path_b;     /* as given */
    ma_database *a, *b;        /* NULL when it could not be opened */
    ma_diff_sector *pairs;     /* n of them (the shard's), n_planned before sharding */
    size_t n, n_planned;
    ma_diff_options compare;
    unsigned shard_index, shard_count;
    uint64_t by_status[MA_DIFF_STATUSES];
    uint64_t positions;
    uint64_t counts[MA_DIFF_CLASSES];
    int fatal;                 /* the run stopped early: failure says why */
    ma_error failure;
    char notices[MA_DIFF_NOTICES][512]; /* records asked for and not written, in order */
    int n_notices;
    int result;                /* common/verdict.h */
};

#endif
