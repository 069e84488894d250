/*
 * The audit store's side of merging shard runs (schema v6, docs/audit-schema.md,
 * docs/distributed.md): finding and reading the shard run of a store, and writing the merged run
 * (result rows, manifest, provenance of every shard) into another store in ONE transaction, so a
 * merge stopped at any point leaves no half run.
 *
 * This module knows SQL only. What the merged rows are (root/propagated reclassified from the full
 * discrepancy sets of every shard, the rows a single run would keep) is decided by the run engine's
 * merge, verifier/run/merge.h.
 */
#ifndef MA_AUDIT_MERGE_H
#define MA_AUDIT_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"
#include "reports/store/audit_run.h"
#include "reports/store/runs.h"

/* The facts of a (shard) run. Strings are malloc'd; NULL means SQL NULL. */
typedef struct ma_shard_run {
    int64_t run_id;
    char *kind, *tool_version, *git_revision, *host, *command_line, *database_root, *variant, *format;
    char *started_at, *ended_at, *status, *mode, *options;
    int64_t shard_index, shard_count;  /* shard_count 0: the run recorded no shard */
    int64_t planned_sectors;           /* -1: not recorded */
    int64_t unusable_files;            /* -1: not recorded */
} ma_shard_run;

/* The newest verify run of the store that recorded a shard (verify --shard I/N) and was not
 * continued by a resume (status "resumed"): the one a merge takes from a store. MA_EMISSING when
 * there is none, naming the store. */
int ma_audit_shard_run_find(ma_audit *a, int64_t *run_id, ma_error *err);
/* Reads the facts of run_id. MA_EMISSING when there is no such run. */
int ma_audit_shard_run_read(ma_audit *a, int64_t run_id, ma_shard_run *out, ma_error *err);
void ma_shard_run_free(ma_shard_run *r);

/* The names of the sectors run_id recorded, sorted (malloc'd; free each and the array). */
int ma_audit_run_sector_names(ma_audit *a, int64_t run_id, char ***names, size_t *n, ma_error *err);

/* One shard's provenance in the merged run (table run_shards). */
typedef struct ma_run_shard_row {
    int64_t shard_index, shard_count;
    const char *source;                /* the shard store as given to the merge */
    int64_t source_run_id;
    const char *host, *command_line, *started_at, *ended_at, *status, *tool_version, *git_revision;
    int64_t sectors;                   /* sectors merged from it */
    int64_t planned_sectors;           /* -1: not recorded */
    const char *sealed_by;             /* v10: the key id its seal verified with; NULL: not checked */
} ma_run_shard_row;

/* The merged run as it is written. */
typedef struct ma_merged_run {
    const char *tool_version, *git_revision;   /* the shards' (whose checker produced the results) */
    const char *host, *command_line;           /* of the merge */
    const char *database_root, *variant, *format;
    const char *options;                       /* the shards' options without the shard */
    int64_t planned_sectors, unusable_files;   /* -1: not recorded */
    const ma_run *const *manifests;            /* each shard's run (its manifest files and chunks);
                                                * a path in several is written once */
    size_t n_manifests;
    const ma_run_shard_row *shards;
    size_t n_shards;
} ma_merged_run;

/* Writing a merged run is one transaction: begin (the runs row, mode "merge"), the sectors with
 * ma_audit_sectors_write (reports/store/audit_run.h) as they are built, then finish (manifest, shards,
 * the status, commit) or abort (rollback: nothing of the run stays). */
int ma_audit_merged_run_begin(ma_audit *a, const ma_merged_run *m, int64_t *run_id, ma_error *err);
int ma_audit_merged_run_finish(ma_audit *a, int64_t run_id, const ma_merged_run *m, const char *status,
                               ma_error *err);
void ma_audit_merged_run_abort(ma_audit *a);

#endif
