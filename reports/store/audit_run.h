/*
 * What the run engine (verifier/run/run.h) records in and reads back from an audit store, schema v4
 * (docs/audit-schema.md): one transaction per committed sector unit, carried-over results copied
 * from earlier runs, full discrepancy sets for classifying parents in later runs, and the lookups
 * that --resume and --incremental need.
 *
 * Every writer is one transaction: a process killed at any moment leaves each sector either fully
 * recorded (result, class counts, rows, digest, histogram, inputs, discrepancy set) or absent.
 */
#ifndef MA_AUDIT_RUN_H
#define MA_AUDIT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"
#include "reports/store/runs.h"

/* Run facts beyond ma_run_info that v4 records. */
typedef struct ma_run_meta {
    const char *mode;          /* "full", "resume", "incremental" */
    int64_t resumed_from;      /* 0: none */
    const char *options;       /* canonical JSON of the result-affecting options */
    /* v6 (docs/distributed.md): */
    unsigned shard_index, shard_count; /* shard_count 0: not a shard run (columns NULL) */
    int64_t planned_sectors;   /* sectors the run selected; -1: not recorded */
    int64_t unusable_files;    /* files discovery could not use, for a run of the whole database
                                * (or a shard of it); -1: not recorded (a run of named sectors) */
    /* v7 (docs/runs.md "Interruption and resume"): */
    const char *selection;     /* "all", or "sectors:" and the sorted names --sector selected; a
                                * resume must repeat it. NULL: not recorded */
    int64_t planned_entries;   /* entries of every selected sector; -1: not recorded */
    int64_t pid;               /* the process running the run (on info.host); 0: not recorded */
    /* v10 (docs/runs.md "Scope"): */
    const char *scope;         /* "database" or "sectors" (reports/store/audit_seal.h); NULL: not recorded */
} ma_run_meta;

/* Sets the v4 (v6, v7) facts of a run begun with ma_audit_run_begin; the v7 heartbeat starts now. */
int ma_audit_run_meta_set(ma_audit *a, int64_t run_id, const ma_run_meta *m, ma_error *err);

/* One sector of a run's plan (v7 run_plan): what the run set out to check, recorded when it
 * begins, so sectors it never reached are "not checked" in every report of it. */
typedef struct ma_planned_sector {
    const char *sector;        /* "std_3_3_0_0" */
    const char *file;          /* its path, NULL when the database has no file for it */
    uint64_t entries;          /* entries the file holds (from its size / the sector's hash count) */
} ma_planned_sector;

/* Records the plan of run_id (n sectors). Not a transaction of its own: the run engine records it
 * inside the transaction that begins the run. */
int ma_audit_run_plan_record(ma_audit *a, int64_t run_id, const ma_planned_sector *s, size_t n,
                             ma_error *err);

/* One discrepancy row with the v4 columns. */
typedef struct ma_disc_row {
    uint64_t entry, offset;
    const char *board, *stored, *derived, *cls;
    int root;                  /* 1 / 0 */
    const char *move;          /* refuting move or NULL */
    const char *successor;     /* its successor board or NULL */
    const char *stored_outcome;  /* "win" / "loss" / "draw" / "none" / "bad" */
    int64_t stored_depth;        /* -1: none */
    const char *derived_outcome; /* "win" / "loss" / "draw" / "none" / "unknown" / "marker" */
    int64_t derived_depth;       /* -1: none */
    const char *derived_bound;   /* "exact" / "lower" */
} ma_disc_row;

typedef struct ma_input_digest {
    const char *path;          /* name inside the database directory */
    const char *sha256;        /* 64 hex; "" or NULL when the file was absent */
} ma_input_digest;

/* Everything recorded for one sector of a run. */
typedef struct ma_sector_commit {
    ma_sector_result result;   /* the v1 row (status, counts, classes) */
    const char *format;
    uint64_t canonical, markers, roots, propagated, missing_child, unverifiable, bound_wins;
    const char *body_digest;   /* "match", "mismatch", NULL: none recorded / not the open format */
    const ma_disc_row *rows;
    size_t n_rows;
    const uint64_t *disc_entries; /* every discrepancy's entry, sorted ascending */
    size_t n_disc_entries;
    /* v6: the entries of disc_entries that are roots by rule whatever their successors hold
     * (wrong-terminal, bad-encoding, symmetry-inconsistency), sorted; with the full sets of the
     * successor sectors they decide root/propagated without the files (verifier/run/merge.h). */
    const uint64_t *fixed_entries;
    size_t n_fixed_entries;
    const char *digest;        /* derived-value digest hex or NULL */
    uint64_t digest_positions;
    const ma_histogram_bin *bins;
    size_t n_bins;
    const ma_input_digest *inputs;
    size_t n_inputs;
} ma_sector_commit;

/* What a diff run learns about a recorded pair once every pair is compared (issue 45): the split
 * of its value differences into root and propagated ones (the v4 columns roots, propagated), its
 * message (a consequence names its causes; NULL keeps the message), and per recorded row (by
 * entry) whether it is a root difference and the turn that proves it (v4 root, move). One
 * transaction. */
typedef struct ma_row_cause {
    uint64_t entry;
    int root;                  /* 1 / 0 */
    const char *move;          /* NULL: none */
} ma_row_cause;
int ma_audit_sector_causes_set(ma_audit *a, int64_t run_id, const char *sector, uint64_t roots, uint64_t propagated,
                               const char *message, const ma_row_cause *rows, size_t n, ma_error *err);

/* Records the sectors of one unit (n of them) in one transaction. */
int ma_audit_sectors_commit(ma_audit *a, int64_t run_id, const ma_sector_commit *s, size_t n,
                            ma_error *err);
/* The same rows, written inside a transaction the caller holds (reports/store/ only: the merge writes a
 * whole run in one transaction). */
int ma_audit_sectors_write(ma_audit *a, int64_t run_id, const ma_sector_commit *s, size_t n,
                           ma_error *err);

/* ---- resume and incremental ---- */

/* The newest verify run of database_root that never ended (ended_at NULL) or ended "interrupted"
 * and was not continued by another run, excluding exclude_run. MA_EMISSING (message says so) when there is none. */
int ma_audit_unfinished_run(ma_audit *a, const char *database_root, int64_t exclude_run,
                            int64_t *run_id, ma_error *err);

/* ---- claiming a run to resume (v7) ----
 *
 * A resume claims the run it continues in one write transaction (BEGIN IMMEDIATE, held by the
 * caller): ma_audit_resume_pick finds and vets the run, ma_audit_run_begin records the new run,
 * ma_audit_run_mark_continued claims the old one. Two resumes at once are serialised by the write
 * lock; the second finds the run claimed. The claimed run keeps its own verdict ("interrupted")
 * and names the run that continued it. */

/* What the resuming run is, to vet the run it would continue. */
typedef struct ma_resume_want {
    int64_t run_id;            /* 0: the newest unfinished, unclaimed verify run of database_root */
    const char *database_root, *tool_version, *options;
    const char *selection;     /* as ma_run_meta.selection */
    const char *host;          /* this process's host: a recorded pid is only checked there */
    int64_t stale_seconds;     /* a never-ended run whose heartbeat is younger than this is still in
                                * progress (the only sign of life of a run on another host) */
} ma_resume_want;

/* Picks the run to continue and checks that it may be: a verify run of the same root, tool
 * version and options (else MA_EFORMAT), of the same sector selection (else MA_EINVAL: the
 * command line must repeat it), not finished (MA_EFORMAT), not already continued (MA_EEXIST,
 * naming the run that did), and not in progress (MA_EEXIST): a run that never ended is in progress
 * while its process (pid recorded on this host) is alive, or, on another host or without a pid,
 * while its heartbeat is fresher than stale_seconds. MA_EMISSING when there is nothing to resume.
 * Messages are one line naming the store and the run. */
int ma_audit_resume_pick(ma_audit *a, const ma_resume_want *w, int64_t *run_id, ma_error *err);

/* Claims run_id for new_run: continued_by = new_run, status 'interrupted' and an end time when it
 * had none. MA_EEXIST when another run claimed it first (the claim is a conditional update, so it
 * is atomic even without the caller's transaction). */
int ma_audit_run_mark_continued(ma_audit *a, int64_t run_id, int64_t new_run, ma_error *err);

/* Runs fn(a, ctx, err) inside one write transaction (BEGIN IMMEDIATE: the write lock is taken
 * first, waiting out the busy timeout): committed when fn returns MA_OK, rolled back otherwise. */
int ma_audit_write_tx(ma_audit *a, int (*fn)(ma_audit *a, void *ctx, ma_error *err), void *ctx,
                      ma_error *err);

/* Refreshes the heartbeat of run_id (also done by every ma_audit_sectors_commit). */
int ma_audit_run_heartbeat(ma_audit *a, int64_t run_id, ma_error *err);

/* Facts of a run that decide whether its results may be carried over. Strings are malloc'd. */
typedef struct ma_run_identity {
    char *kind, *database_root, *tool_version, *options, *status, *ended_at;
} ma_run_identity;
int ma_audit_run_identity(ma_audit *a, int64_t run_id, ma_run_identity *out, ma_error *err);
void ma_run_identity_free(ma_run_identity *id);

/* A committed sector result that could be carried over: the run holding the row, the run whose
 * check produced it (carried_from or itself) and its inputs. */
typedef struct ma_carry_candidate {
    int64_t run_id;
    int64_t checked_in;
    char *sector;
    size_t n_inputs;           /* its inputs, sorted by path */
    char **input_path;
    char **input_sha256;       /* "" for an absent file */
} ma_carry_candidate;

/* The newest committed result per sector among the verify runs of database_root with exactly this
 * tool_version and options (only run only_run when non-zero), excluding exclude_run. Sorted by
 * sector. Free with ma_carry_candidates_free. */
int ma_audit_carry_candidates(ma_audit *a, const char *database_root, const char *tool_version,
                              const char *options, int64_t only_run, int64_t exclude_run,
                              ma_carry_candidate **out, size_t *n, ma_error *err);
void ma_carry_candidates_free(ma_carry_candidate *c, size_t n);

/* Copies every row recorded for `sector` in run from_run (result, classes, rows, digest,
 * histogram, inputs, discrepancy set) into run to_run, marking it carried over from checked_in.
 * One transaction. */
int ma_audit_sector_carry(ma_audit *a, int64_t to_run, int64_t from_run, int64_t checked_in,
                          const char *sector, ma_error *err);

/* The full discrepancy set of a recorded sector (sorted entries, malloc'd; NULL/0 when it has
 * none). MA_EMISSING when the run has no result for the sector. */
int ma_audit_sector_discrepancy_set(ma_audit *a, int64_t run_id, const char *sector,
                                    uint64_t **entries, size_t *n, ma_error *err);
/* The v6 set of rule-fixed roots of a recorded sector (as above); *recorded 0 when the run did not
 * record one (an older run, or a sector without a discrepancy set). */
int ma_audit_sector_fixed_set(ma_audit *a, int64_t run_id, const char *sector, uint64_t **entries,
                              size_t *n, int *recorded, ma_error *err);
/* The recorded inputs of a sector, sorted by path (malloc'd strings; free with
 * ma_audit_inputs_free). */
int ma_audit_sector_inputs(ma_audit *a, int64_t run_id, const char *sector, char ***paths,
                           char ***sha256, size_t *n, ma_error *err);
void ma_audit_inputs_free(char **paths, char **sha256, size_t n);

/* ---- reading one recorded sector back (for carried-over results) ---- */

typedef struct ma_readback_row {
    int64_t entry, offset;          /* offset -1 when not recorded */
    int root;                       /* 1 / 0, -1 when not recorded */
    char *board, *stored, *derived, *cls, *move, *successor;
    char *stored_outcome, *derived_outcome, *derived_bound;
    int64_t stored_depth, derived_depth; /* -1 when NULL */
} ma_readback_row;

typedef struct ma_sector_readback {
    char *file, *status, *message, *format, *digest, *body_digest;
    int64_t entries, checked, verified, within_bounds, discrepancies;
    int64_t canonical, markers, roots, propagated, missing_child, unverifiable, bound_wins;
    int64_t digest_positions, carried_from;  /* carried_from 0 when checked in that run */
    double seconds;
    size_t n_classes;
    char **class_name;
    int64_t *class_count;
    size_t n_bins;                  /* histogram, by outcome then depth */
    char **bin_outcome;
    int64_t *bin_depth, *bin_count;
    size_t n_rows;                  /* rows in recorded order (roots first), at most max_rows */
    ma_readback_row *rows;
} ma_sector_readback;

/* Reads everything recorded for `sector` in run_id (NULL v4 columns read as 0 / -1). MA_EMISSING
 * when there is no such result. */
int ma_audit_sector_read(ma_audit *a, int64_t run_id, const char *sector, size_t max_rows,
                         ma_sector_readback *out, ma_error *err);
void ma_sector_readback_free(ma_sector_readback *r);

#endif
