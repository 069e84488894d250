/*
 * svmalom: the producer's Malom-format output (`millaudit solve --format malom-sec|malom-sec2`).
 *
 * The producer solves in its own open format (solver/solver.h) into an "open directory"; this
 * module runs that solve and, as each component is solved and still in memory (the solver's sink),
 * writes its sectors as Malom files (../shared/docs/malom-format.md §5) into the output directory,
 * children first. A component whose open files are already there is solved again in memory
 * (the files must then equal the fresh solution) when one of its Malom files is missing:
 *  - `.sec` (legacy strong, §5.7): every index of Malom's hash (solver/svmalom_index.h) is mapped
 *    to its board; a non-canonical index gets the symmetry marker §4.6 prescribes, a canonical one
 *    the producer's value of that board (looked up through the producer's own open index): a win or
 *    loss in n plies is the byte n (overflow table above 178), a draw is a Count.
 *  - `.sec2` (ultra-strong, §5.1-5.6), STONE_DIFF (no .secval needed) or with sector values from a
 *    `.secval` file (copied into the output directory): wins and losses as (VW - v, n) and
 *    (VL - v, n), draws ranked by solver/svmalom_ultra.h from the children's `.sec2` files, which
 *    must therefore be in the output directory (written earlier in the same run, or before).
 *
 * Files are written atomically. A Malom file already there is skipped when its header and length
 * are exactly what this writer produces, and refused (MA_EEXIST, never overwritten) otherwise.
 *
 * Speed: the analysis leaves each draw's best turn into a child and its count of internal draw
 * successor classes (solver/retro.h), so the export adds one retrograde step per ranked draw
 * (solver/svmalom_ultra.h) and one walk over the file's indices, which maps each Malom index to
 * the producer's open entry by tables per representative; the children's .sec2 are read once per
 * component into keys by open entry. Every pass runs on the component's threads.
 */
#ifndef MA_SVMALOM_H
#define MA_SVMALOM_H

#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "solver/solver.h"
#include "solver/svrules.h"

typedef struct ma_svmalom_opts {
    int variant;           /* MA_SV_* */
    int bug;               /* MA_SVBUG_* of the open files read (.sec only; NONE otherwise) */
    int kind;              /* MA_SVM_SEC or MA_SVM_SEC2 (solver/svmalom_file.h) */
    const char *secval;    /* .sec2: a .secval file for the sector values; NULL: STONE_DIFF */
    const char *open_dir;  /* the producer's open-format files */
    const char *out_dir;   /* where the Malom files go */
    int quiet;
    FILE *progress_out;    /* NULL: stderr */
    /* the solve this export runs (out_dir = open_dir, sink, variant and bug are set here);
     * NULL: defaults, with quiet and progress_out from above */
    const ma_solver_opts *solver;
    ma_solver_report_fn solver_report; /* NULL, or the solver's line per sector */
    void *solver_ctx;
} ma_svmalom_opts;

typedef struct ma_svmalom_report {
    ma_sv_sector sector;
    char file[64];         /* base name, e.g. "std_4_4_0_0.sec" */
    uint64_t entries;      /* hash_count */
    uint64_t markers, wins, losses, draws, counts; /* counts: draws stored as Count */
    uint64_t overflow;     /* overflow-table records */
    double seconds;        /* the export's share of the component (docs/solver.md) */
    double rank_seconds;   /* of which ranking the draws (shared by twin members); -1 for a .sec,
                              whose draws are not ranked */
    int skipped;           /* a valid file was already there */
} ma_svmalom_report;

typedef void (*ma_svmalom_report_fn)(void *ctx, const ma_svmalom_report *report);

/* Checks, before anything is written, that the output directory is usable (a missing leaf is
 * created), that every Malom file the run would write is absent or valid, that the .secval (if
 * any) lists every sector needed, and (without with_deps) that every child .sec2 is there.
 * targets/with_deps as in ma_solver_solve. */
int ma_svmalom_check(const ma_svmalom_opts *o, const ma_sv_sector *targets, int ntargets,
                     int with_deps, ma_error *err);

/* Solves the planned sectors into o->open_dir (reusing open files there; a component whose Malom
 * files are missing is solved again in memory) and writes their Malom files; fn gets one report
 * per Malom file, in plan order, after the solve. */
int ma_svmalom_export(const ma_svmalom_opts *o, const ma_sv_sector *targets, int ntargets,
                      int with_deps, ma_svmalom_report_fn fn, void *ctx, ma_error *err);

#endif
