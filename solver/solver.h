/*
 * solver: the reference producer's driver. Plans which sectors to solve (a whole game, chosen
 * sectors, optionally with everything they depend on), checks the output directory, every file
 * already there, the memory each component needs and the disk space of the whole plan before
 * writing anything, then solves the components children first, loading each component's children
 * from the files in the output directory and writing its members atomically (solver/svfile.h).
 *
 * Threads: a component of at least MA_SOLVER_WIDE_ENTRIES entries is solved alone, on every
 * thread (solver/retro.h); smaller components whose children are done are solved side by side,
 * one thread each, as long as their memory fits. Files and reports do not depend on the number
 * of threads; reports are delivered in plan order, from the calling thread.
 *
 * Sectors whose final file is already there and proven intact are skipped; anything else under a
 * final name stops the run (MA_EEXIST) and is left untouched.
 */
#ifndef MA_SOLVER_H
#define MA_SOLVER_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "solver/retro.h"
#include "solver/svrules.h"
#include "solver/svsector.h"

#define MA_SOLVER_MAX_THREADS 256
/* Components smaller than this are solved one thread each, side by side. */
#define MA_SOLVER_WIDE_ENTRIES ((uint64_t)1 << 16)
/* Memory the estimate adds to every run: index tables, code, stacks, per-run buffers. */
#define MA_SOLVER_BASE_BYTES ((uint64_t)64 << 20)
/* And per thread: scratch, stack in use, partly filled queue blocks. */
#define MA_SOLVER_THREAD_BYTES ((uint64_t)2 << 20)

typedef void (*ma_solver_note_fn)(void *ctx, const char *line);

/* A consumer of the solved components inside the solve (the Malom export, solver/svmalom.h): it
 * sees each component's values while they are in memory, and may ask the analysis for the extra
 * per-entry results of solver/retro.h (the `value`, `keys` and `state` fields of its tables).
 * Components run side by side on several threads, so the callbacks must be thread-safe. */
typedef struct ma_solver_sink {
    void *ctx;
    /* Planning, before anything is written: *solve = 1 makes the solver solve the component even
     * when its open files are already there (they are then compared with the fresh solution, not
     * rewritten); *bytes is the memory the sink holds while the component runs. */
    int (*plan)(void *ctx, const ma_svcomponent *comp, int *solve, uint64_t *bytes,
                ma_error *err);
    /* The children's values are loaded; the sink may fill the job's Malom fields. */
    int (*begin)(void *ctx, ma_retro_job *job, int threads, ma_error *err);
    /* After begin, always: solved = 1 when the members were solved and their open files written
     * (or found equal to the solution); 0 when the component failed, and the sink only frees. */
    int (*end)(void *ctx, ma_retro_job *job, int threads, int solved, ma_error *err);
} ma_solver_sink;

typedef struct ma_solver_opts {
    int variant;           /* MA_SV_* */
    int bug;               /* MA_SVBUG_*, MA_SVBUG_NONE for real databases */
    const char *out_dir;
    int quiet;             /* no progress lines */
    FILE *progress_out;    /* NULL: stderr */
    int threads;           /* 1..MA_SOLVER_MAX_THREADS; 0: online CPUs */
    uint64_t memory_limit; /* bytes the run may hold at once; 0: what the machine has available */
    const atomic_int *cancel; /* NULL, or set non-zero (e.g. by a signal) to stop: MA_ECANCELED */
    ma_solver_note_fn note;   /* NULL, or told about housekeeping (stale temporary files removed) */
    void *note_ctx;
    const ma_solver_sink *sink; /* NULL, or a consumer of every component solved */
} ma_solver_opts;

typedef struct ma_solver_report {
    ma_sv_sector sector;
    uint64_t entries;
    ma_retro_stats stats;  /* meaningless when skipped */
    double seconds;        /* of the component, shared by twin members */
    int skipped;           /* the final file already existed and was proven intact */
    int threads;           /* threads the component was solved with */
    uint64_t memory_bytes; /* the component's estimated memory (members, children, queues) */
    uint64_t queue_peak_bytes; /* measured peak of its depth queues */
} ma_solver_report;

typedef void (*ma_solver_report_fn)(void *ctx, const ma_solver_report *report);

/* Solves targets[0..n-1] (with their twins). with_deps: also every sector they depend on;
 * otherwise each child must already be in out_dir (MA_EMISSING naming the file). A component
 * needing more memory than available is refused before anything is written (MA_EIO naming the
 * sector and the bytes needed), as is a plan needing more disk space than the directory has. */
int ma_solver_solve(const ma_solver_opts *o, const ma_sv_sector *targets, int ntargets,
                    int with_deps, ma_solver_report_fn fn, void *ctx, ma_error *err);

/* Producer name written into headers: "millaudit-solver" or "millaudit-solver+bug:<NAME>". */
void ma_solver_producer_name(char *buf, size_t n, int bug);

/* Value word of the empty board in <out_dir>/<variant>_0_0_k_k.mdb. */
int ma_solver_start_value(const ma_solver_opts *o, int k, uint16_t *value, ma_error *err);

/* Estimated peak bytes for solving a component with member entries m0 + m1 (m1 = 0 for a single
 * sector), children entries c, cyclic or not, on `threads` threads (docs/solver.md "Memory"). */
uint64_t ma_solver_component_bytes(uint64_t member_entries, uint64_t child_entries, int cyclic,
                                   int threads);

/* Online CPUs, at least 1 and at most MA_SOLVER_MAX_THREADS. */
int ma_solver_default_threads(void);

#endif
