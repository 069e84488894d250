/*
 * reports/render/run_causes: which sectors of a verify run hold a fault of their own and which are
 * wrong only because a child is (issue 45: one bug, one red line).
 *
 * A sector is a ROOT sector when it holds root discrepancies (an entry inconsistent with successors
 * that are themselves right, or a value fixed by the rules alone), or its body does not match the
 * digest in its header. A sector whose discrepancies are all propagated (each has a successor that
 * is itself a discrepancy) is a CONSEQUENCE of the root sectors its successor sectors lead to,
 * transitively: fixing those fixes it. A sector with propagated discrepancies only but no root
 * sector among its successors (a run of a few sectors, a shard) stays a root sector: nothing in the
 * run explains it, so nothing may hide it.
 *
 * Successor sectors come from the checker's rules (verifier/check/rules.h): for every kind of turn
 * the sector a successor position lies in.
 */
#ifndef MA_RENDER_RUN_CAUSES_H
#define MA_RENDER_RUN_CAUSES_H

#include <stddef.h>

#include "common/ma_error.h"
#include "millaudit/verify.h"

enum { MA_CAUSE_NONE = 0, MA_CAUSE_ROOT = 1, MA_CAUSE_CONSEQUENCE = 2 };

typedef struct ma_run_cause {
    int kind;          /* MA_CAUSE_* */
    size_t *because;   /* CONSEQUENCE: the root sectors that explain it (indexes into the run's
                        * sectors, children first) */
    size_t n_because;
} ma_run_cause;

typedef struct ma_run_causes {
    ma_run_cause *c;   /* one per sector of the run, in ma_vrun_sector_at order */
    size_t n;
    size_t n_roots, n_consequences;
} ma_run_causes;

/* The causes of every sector of r. Errors: MA_ENOMEM. Free with ma_run_causes_free. */
int ma_run_causes_of(ma_run_causes *out, const ma_vrun *r, ma_error *err);
void ma_run_causes_free(ma_run_causes *c);

/* "std_4_3_0_0, std_4_4_0_0" of c->because (at most max names, then ", ... (N in all)"). */
void ma_run_causes_names(char *buf, size_t size, const ma_vrun *r, const ma_run_cause *c, size_t max);

#endif
