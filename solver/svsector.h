/*
 * svsector: sector names, the coarse sector graph (docs/format.md §3) and the order in which the
 * producer solves a set of sectors.
 *
 * The solving order comes from the graph itself: the closure of the start sectors is split into
 * strongly connected components (Tarjan), which are emitted children first. A component is one
 * sector or a twin pair {S, negate(S)}; it is cyclic when turns can stay inside it (a self-loop,
 * which the graph of §3 drops but which is recorded here, or a pair). Anything larger would break
 * the solver's assumptions and is reported as MA_EINTERNAL.
 */
#ifndef MA_SVSECTOR_H
#define MA_SVSECTOR_H

#include <stddef.h>

#include "common/ma_error.h"
#include "solver/svrules.h"

typedef struct ma_svcomponent {
    int n;                 /* 1 or 2 */
    ma_sv_sector s[2];
    int cyclic;            /* turns can stay inside the component */
} ma_svcomponent;

/* Parses "W_B_WF_BF" (plain decimal); MA_EINVAL with a message when malformed. */
int ma_svsector_parse(ma_sv_sector *s, const char *text, ma_error *err);
/* "W_B_WF_BF". */
void ma_svsector_format(char *buf, size_t n, ma_sv_sector s);

/* Children of s in the sector graph (negated, without s itself, duplicates removed), in out[0..7];
 * returns the count. *self_loop tells whether a turn of s may land in s again. With the
 * double-removal planted bug, the sectors two removals reach are children too. */
int ma_svsector_children(const ma_svrules *r, ma_sv_sector s, ma_sv_sector out[8], int *self_loop);

/* Components of the closure of starts[0..n-1], children first, in a malloc'ed array. */
int ma_svsector_order(const ma_svrules *r, const ma_sv_sector *starts, int nstarts,
                      ma_svcomponent **out, int *ncomp, ma_error *err);

#endif
