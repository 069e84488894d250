/*
 * solver: the reference producer's driver. Plans which sectors to solve (a whole game, chosen
 * sectors, optionally with everything they depend on), checks the output directory and every
 * file already there before writing anything, then solves component by component, children
 * first, loading each component's children from the files in the output directory and writing
 * its members atomically (solver/svfile.h). Sectors whose final file is already valid are
 * skipped; malformed ones stop the run (MA_EEXIST) and are left untouched.
 */
#ifndef MA_SOLVER_H
#define MA_SOLVER_H

#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "solver/retro.h"
#include "solver/svrules.h"

typedef struct ma_solver_opts {
    int variant;           /* MA_SV_* */
    int bug;               /* MA_SVBUG_*, MA_SVBUG_NONE for real databases */
    const char *out_dir;
    ma_progress *progress; /* the run's progress display (common/progress.h), NULL for none; the
                            * solver sets its total and label, counting entries solved */
} ma_solver_opts;

typedef struct ma_solver_report {
    ma_sv_sector sector;
    uint64_t entries;
    ma_retro_stats stats;  /* meaningless when skipped */
    double seconds;        /* of the component, shared by twin members */
    int skipped;           /* the final file already existed and was valid */
} ma_solver_report;

typedef void (*ma_solver_report_fn)(void *ctx, const ma_solver_report *report);

/* Solves targets[0..n-1] (with their twins). with_deps: also every sector they depend on;
 * otherwise each child must already be in out_dir (MA_EMISSING naming the file). */
int ma_solver_solve(const ma_solver_opts *o, const ma_sv_sector *targets, int ntargets,
                    int with_deps, ma_solver_report_fn fn, void *ctx, ma_error *err);

/* Producer name written into headers: "millaudit-solver" or "millaudit-solver+bug:<NAME>". */
void ma_solver_producer_name(char *buf, size_t n, int bug);

/* Value word of the empty board in <out_dir>/<variant>_0_0_k_k.mdb. */
int ma_solver_start_value(const ma_solver_opts *o, int k, uint16_t *value, ma_error *err);

#endif
