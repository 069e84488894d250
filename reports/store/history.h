/*
 * reports/store/history: the runs of an audit store as a history (docs/nightly.md, docs/runs.md):
 * list them with their totals, find the run a night is compared with, and say what changed from
 * one run of a database to the next: new discrepancies, sectors whose derived values changed,
 * sectors that appeared or vanished, verdict changes. `millaudit runs list|regressions` and the
 * nightly pipeline (ci/nightly) are built on it; JSON documents are docs/json/runs-list,
 * runs-compare and runs-regressions.schema.json.
 *
 * The previous run. For a verify run R, previous(R) is the newest run P with
 *   P.kind = 'verify', P.database_root = R.database_root (the absolute path, byte for byte),
 *   P.id < R.id, P.ended_at set (the run finished), P.status not 'interrupted' and not 'resumed'
 *   (a run stopped part way holds only some sectors; its resume, which finished, is a candidate),
 *   and P not imported from another store (runs import keeps another machine's facts).
 * Mode (full, incremental, resume) does not matter: an incremental run's carried-over results
 * are results of that run. There is no previous run for the first run of a root.
 *
 * Regressions of run R against a baseline B (previous(R) unless the caller names one), per sector
 * present in either run (the flags of ma_change):
 *   appeared / vanished         the sector is in R only / in B only; vanishing is a regression,
 *                               "unchecked" (no fault, only unproven) when R did not go through
 *                               its plan (interrupted, never finished, record incomplete), as is
 *                               a sector R's report shows 'not-checked'
 *   new / more discrepancies    R has more discrepancies than B (B's count is 0 when absent): a
 *                               regression; so is a sector whose status became 'discrepancies'
 *                               with an equal count (a body digest that no longer matches, docs/
 *                               format.md §5.1); fewer, or fixed (status 'discrepancies' in B, ok or
 *                               within bounds in R), an improvement
 *   status                      the sector's status changed; a sector that became incomplete,
 *                               unusable or only within bounds is a regression, the reverse an
 *                               improvement (discrepancies are judged by their counts above)
 *   values                      both runs recorded a derived-value digest and they differ. A
 *                               regression unless R is fully verified (run status 'ok') and B is
 *                               not: by local consistency (../shared/docs/verification-theory.md)
 *                               a fully verified database holds the game's values, so values that
 *                               moved to a fully verified state were corrected. Two fully
 *                               verified runs with different values are a regression too: the
 *                               checker's rules or the database's rules changed.
 *   classes                     the discrepancy class counts changed (shown, judged by the counts)
 * and for the run: its verdict (runs.status) changed, worse when it moved away from 'ok' or to a
 * more severe state (ok < within-bounds < incomplete < interrupted < discrepancies).
 * R regressed when some sector regressed or its verdict got worse.
 *
 * Root causes (issue 45). One wrong entry moves the values of every sector above it: they are
 * computed from it, and they verify, because they agree with what they were computed from. So a
 * regressed sector is a CONSEQUENCE when
 *   - it holds no fault of its own in R: no discrepancy, or only propagated ones (the v4 split;
 *     not recorded counts as a fault of its own), and its body matches its header,
 *   - it changed only in values, classes or status towards discrepancies (not vanished, not
 *     appeared, not checked less completely), and
 *   - among the sectors its result was computed from, transitively (v4 sector_inputs), there is a
 *     changed sector with a fault of its own in R, or a regression that cannot be a consequence:
 *     its causes (`because`).
 * Every other regression is a root regression: it fails on its own (JUnit, the text lists it
 * first). A consequence is still a regression (the run regressed), reported once, grouped under
 * its causes. Without recorded inputs nothing can explain a regression, so none is a consequence.
 *
 * The same the other way (a night that fixes a fault): an improvement FOLLOWS when its sector held
 * no fault of its own in B and either B found only propagated discrepancies in it (the split
 * recorded) or, among the sectors it was computed from in R (transitively), there is one that held
 * a fault of its own in B and improved: its causes (`because`). The text names the fixed sectors
 * with a fault of their own and counts those that follow.
 */
#ifndef MA_HISTORY_H
#define MA_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"
#include "reports/store/runs.h"

#define MA_HISTORY_SCHEMA_VERSION 1     /* runs list, runs compare */
#define MA_REGRESSIONS_SCHEMA_VERSION 2 /* runs regressions: v2 adds the causes */

/* ---- list ---- */

/* ma_run_row, ma_runs_filter, ma_run_list, ma_runs_list, ma_run_list_free: millaudit/store.h
 * (public). */

/* The newest run of kind (NULL: any) and root (NULL: any) in *id, 0 when none. */
int ma_runs_newest(ma_audit *a, const char *kind, const char *root, int64_t *id, ma_error *err);

/* previous(run) as defined above into *prev, 0 when there is none. MA_EMISSING when run does not
 * exist, MA_EINVAL when it is not a verify run. */
int ma_runs_previous(ma_audit *a, int64_t run, int64_t *prev, ma_error *err);

/* The runs list document (docs/json/runs-list.schema.json), malloc'd, ending in a newline. */
int ma_runs_list_json(const ma_run_row *rows, size_t n, const char *store, char **out, ma_error *err);

/* The runs compare document (docs/json/runs-compare.schema.json) of c = compare(a, b). */
int ma_run_cmp_json(const ma_run_cmp *c, const ma_run *a, const char *store_a, const ma_run *b,
                    const char *store_b, char **out, ma_error *err);

/* ---- regressions ---- */

enum ma_change {
    MA_CHANGE_APPEARED = 1 << 0,
    MA_CHANGE_VANISHED = 1 << 1,
    MA_CHANGE_NEW_DISCREPANCIES = 1 << 2,   /* 0 -> n */
    MA_CHANGE_MORE_DISCREPANCIES = 1 << 3,  /* n -> m > n > 0 */
    MA_CHANGE_FEWER_DISCREPANCIES = 1 << 4, /* n -> m, 0 < m < n */
    MA_CHANGE_FIXED = 1 << 5,               /* status discrepancies -> ok / within-bounds */
    MA_CHANGE_VALUES = 1 << 6,              /* derived-value digests differ */
    MA_CHANGE_STATUS = 1 << 7,              /* sector status differs */
    MA_CHANGE_CLASSES = 1 << 8,             /* class counts differ */
    MA_CHANGES = 9
};

/* "appeared", "vanished", "new-discrepancies", "more-discrepancies", "fewer-discrepancies",
 * "fixed", "values-changed", "status-changed", "classes-changed" for bit i (0..MA_CHANGES-1). */
const char *ma_change_name(int bit);

typedef struct ma_regression_row {
    const char *sector;            /* points into the runs */
    const ma_run_sector *base;     /* NULL: not in the baseline */
    const ma_run_sector *run;      /* NULL: not in the run */
    unsigned changes;              /* ma_change flags; 0: unchanged */
    int regression;                /* this sector got worse */
    int unchecked;                 /* a regression only because run did not check it (status not-checked,
                                    * or no row in a run interrupted, never finished or recorded
                                    * 'incomplete'): unproven, no fault */
    int improvement;               /* this sector got better (and not worse) */
    const char *why;               /* one phrase: why it is a regression or an improvement, or NULL */
    int consequence;               /* a regression explained by root causes among its successors */
    int follows;                   /* an improvement explained by faults below it that improved */
    const char **because;          /* those causes (sector names in the run), n_because of them */
    size_t n_because;
} ma_regression_row;

typedef struct ma_regressions {
    const ma_run *base;            /* NULL: no baseline (the first run of its root) */
    const ma_run *run;
    ma_regression_row *rows;       /* every sector of either run, sorted by name */
    size_t n_rows;
    size_t n_regressions, n_improvements, n_changed, n_unchanged;
    size_t n_consequences;         /* regressions that are consequences (the rest are root regressions) */
    size_t n_follows;              /* improvements that follow improvements below them */
    int verdict_changed, verdict_worse, verdict_better;
    int regressed;                 /* some sector regressed or the verdict got worse */
} ma_regressions;

/* Compares run against base (NULL: no baseline: nothing changed). The runs must outlive out.
 * Errors: MA_ENOMEM. */
int ma_regressions_compute(ma_regressions *out, const ma_run *base, const ma_run *run, ma_error *err);
void ma_regressions_free(ma_regressions *r);

/* The runs regressions document (docs/json/runs-regressions.schema.json). basis: how the
 * baseline was chosen ("previous", "since"). Only changed sectors are listed; counts cover all. */
int ma_regressions_json(const ma_regressions *r, const char *store, const char *basis, char **out,
                        ma_error *err);

/* The regressions of one run as ma_store_regressions (millaudit/store.h) finds them: the run and
 * its baseline owned here, so the handle stands alone. */
struct ma_run_regressions {
    ma_run run, base;
    ma_regressions g;
    const char *basis;             /* "previous" or "since" */
    char *store_name;              /* for the documents */
};

#endif
