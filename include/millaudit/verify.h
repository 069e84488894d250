/*
 * millaudit/verify.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * Three engines (docs/runs.md, docs/distributed.md):
 *   - the verify run (ma_vrun_*): one run of a database, every format, in named phases (scan,
 *     plan, hash, carry, check, classify, record; verifier/run/run.h walks through them), recorded in an
 *     audit store when asked; its verdict is a ma_verdict_state;
 *   - the shard plan (ma_shard_plan_run): the deterministic partition of a database's sectors into
 *     N shards that `verify --shard I/N` checks, for sizing a job; nothing is checked;
 *   - the merge (ma_merge_runs): shard runs, each in its own store, merged into one run that reads
 *     like a single process's run of the whole database.
 * And their documents (reports/render/): the text and JSON of a run, of a plan and of a merge, and a run's
 * JUnit report, each written to a caller's FILE or path.
 *
 * The engines print nothing and decide no exit status: a run's verdict (ma_vrun_verdict_of, with
 * MA_VERDICT_ALLOW_BOUNDS when its options allow bounds) and ma_vrun_record_failed say what it
 * proved; the caller maps them (common/verdict.h).
 */
#ifndef MILLAUDIT_VERIFY_H
#define MILLAUDIT_VERIFY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "common/verdict.h"
#include "millaudit/integrity.h"
#include "millaudit/types.h"

/* ================================================================ the verify run */

/* Discrepancy classes of both formats, one list (docs/verifier.md). */
typedef enum ma_disc_class {
    MA_DISC_WRONG_OUTCOME = 0,
    MA_DISC_WRONG_DEPTH = 1,
    MA_DISC_WRONG_DRAW_CLASS = 2, /* Malom .sec2 only */
    MA_DISC_WRONG_TERMINAL = 3,
    MA_DISC_BAD_ENCODING = 4,
    MA_DISC_SYMMETRY = 5,         /* symmetry-inconsistency */
    MA_DISC_CLASSES = 6
} ma_disc_class;

/* "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
 * "symmetry-inconsistency". */
MA_API const char *ma_disc_class_name(int cls);

/* Status of a sector in a run. */
typedef enum ma_sector_status {
    MA_SECTOR_OK = 0,            /* every entry verified */
    MA_SECTOR_WITHIN_BOUNDS = 1, /* no contradiction; some entries only within bounds (Malom) */
    MA_SECTOR_DISCREPANCIES = 2,
    MA_SECTOR_INCOMPLETE = 3,    /* checked, but some entries could not be verified (missing or
                                  * broken successor) */
    MA_SECTOR_UNUSABLE = 4,      /* the sector's file could not be used */
    MA_SECTOR_NOT_CHECKED = 5,   /* selected, but the run stopped before it (interrupted): its
                                  * entries count in the plan's total, none as verified */
    MA_SECTOR_DAMAGED = 6,       /* its file is damaged (millaudit/integrity.h): not checked, its
                                  * entries as planned, none verified */
    MA_SECTOR_INPUT_DAMAGED = 7  /* not checked: it reads a damaged file (a successor sector's
                                  * file or the .secval); its own file may be intact */
} ma_sector_status;

/* "ok", "within-bounds", "discrepancies", "incomplete", "unusable", "not-checked", "damaged",
 * "input-damaged". */
MA_API const char *ma_sector_status_name(int status);

/* One discrepancy row as it is reported (the first max_rows of a sector, roots first). */
typedef struct ma_vrun_row {
    uint64_t entry;
    uint64_t offset;          /* byte offset of the entry in the file */
    uint8_t cls;              /* ma_disc_class */
    uint8_t root;             /* 1 root, 0 propagated */
    ma_board board;           /* the entry's board (open numbering) */
    ma_stored stored;         /* what the file holds, normalised */
    char stored_text[64];     /* as its reader names it ("win 13 (0xC00D)", "marker op 3") */
    /* What the checker derived. derived_kind: 0 a value, 1 not derivable (successor absent or
     * broken), 2 a symmetry marker with op expected_marker, 3 no value (a non-canonical slot). */
    uint8_t derived_kind;
    uint8_t derived_exact;    /* 0: a lower bound only (Malom bounds mode) */
    uint8_t has_draw_class;
    ma_value derived;
    int32_t derived_draw_class;
    int expected_marker;
    char derived_text[64];
    /* The turn that proves the derived value (the best successor), when one exists. */
    uint8_t has_refutation;
    char move[32];            /* a1..g7 notation: "d7", "d6-d5", "d6-d5xa1", "g7xa1" */
    ma_board successor;       /* the position after it, from the successor's side to move */
} ma_vrun_row;

/* A file a sector's result depends on, as hashed for the run. */
typedef struct ma_vrun_input {
    char path[256];           /* name inside the database directory */
    char sha256[65];          /* lowercase hex; "" when the file is absent */
} ma_vrun_input;

/* One bar of a sector's outcome/depth histogram (canonical entries per established value). */
typedef struct ma_vrun_bin {
    ma_outcome outcome;
    uint32_t depth;           /* 0 for a draw */
    uint64_t count;
} ma_vrun_bin;

typedef struct ma_vrun_sector {
    ma_variant variant;
    ma_sector sector;
    char name[40];            /* "std_3_3_0_0" */
    char path[4352];
    int status;               /* ma_sector_status */
    int carried;              /* 1: result carried over, not checked in this run */
    int body_digest;          /* open format, docs/format.md §5.1: 1 the body matches the header's
                               * SHA-256, 0 it does not (a finding: status discrepancies),
                               * -1 no digest recorded (or another format) */
    int64_t from_run;         /* the run whose check produced a carried-over result */
    uint64_t entries, checked, canonical, markers, verified, within_bounds, bound_wins;
    uint64_t missing_child, unverifiable;
    uint64_t discrepancies, roots, propagated;
    uint64_t by_class[MA_DISC_CLASSES];
    double seconds;           /* wall time of the check (of the original check when carried) */
    char message[1024];       /* one line for unusable / incomplete / within-bounds, else "" */
    ma_vrun_row *rows;         /* n_rows <= max_rows, roots first, then by entry */
    size_t n_rows;
    int has_digest;           /* derived-value digest (docs/reproducibility.md) was computed */
    char digest[65];
    uint64_t digest_positions;
    ma_vrun_bin *bins;         /* histogram, by outcome then depth (with the digest) */
    size_t n_bins;
    ma_vrun_input *inputs;     /* what the result was computed from (recorded runs only) */
    size_t n_inputs;
} ma_vrun_sector;

typedef struct ma_vrun_totals {
    uint64_t sectors, sectors_checked, sectors_carried, sectors_unusable;
    uint64_t sectors_not_checked; /* selected but never reached (an interrupted run); their
                                   * planned entries are in `entries` */
    uint64_t entries, checked, canonical, markers, verified, within_bounds, bound_wins;
    uint64_t missing_child, unverifiable, discrepancies, roots, propagated;
    uint64_t by_class[MA_DISC_CLASSES];
    uint64_t body_digest_mismatches; /* files whose body is not what the header's digest says
                                      * (damaged, millaudit/integrity.h) */
    uint64_t sectors_damaged;     /* not checked: their file is damaged */
    uint64_t sectors_input_damaged; /* not checked: they read a damaged file */
    uint64_t files_damaged;       /* damaged files (ma_vrun_integrity_of) */
} ma_vrun_totals;

struct ma_vrun;

typedef enum ma_vrun_mode {
    MA_VRUN_FULL = 0,
    MA_VRUN_RESUME = 1,
    MA_VRUN_INCREMENTAL = 2
} ma_vrun_mode;

typedef struct ma_vrun_options {
    const char *root;             /* the database (directory or one sector file) */
    const char *const *sectors;   /* --sector arguments, n_sectors of them; none: every sector */
    size_t n_sectors;
    int threads;                  /* >= 1 */
    size_t max_rows;              /* discrepancy rows kept per sector (counts stay exact) */
    int full_board_draw;          /* Malom: a full 12/12 board is a draw (default 1) */
    int allow_bounds;             /* Malom: within-bounds entries are accepted: their messages are
                                   * not errors, and the caller maps the verdict with
                                   * MA_VERDICT_ALLOW_BOUNDS (so it exits 0, not 3) */
    const char *audit_path;       /* the store to record into; NULL: not recorded */
    ma_vrun_mode mode;
    int64_t resume_run;           /* MA_VRUN_RESUME: the run to continue; 0 = the last unfinished
                                   * run of this database root */
    /* MA_VRUN_RESUME: a run that never ended, recorded by another host, counts as dead once its
     * heartbeat is older than this many seconds (stale_seconds_given; else
     * MA_VRUN_HEARTBEAT_STALE_SECONDS). A scheduler that declared that host dead (Slurm requeueing
     * a task after a node failure) passes 0: it knows more than the heartbeat. */
    int stale_seconds_given;
    int64_t stale_seconds;
    unsigned shard_index, shard_count; /* shard_count 0 or 1: no sharding */
    const char *host;             /* recorded provenance */
    const char *command_line;
    const char *tool_version;
    const char *git_revision;
    ma_progress *progress;        /* NULL: none */
    const volatile sig_atomic_t *cancel;
    /* Tests only: stop as if cancel were set once this many sectors were checked and committed in
     * this run (0: never). Only the test build of the CLI sets it (MILLAUDIT_TEST_STOP_AFTER_SECTORS
     * in millaudit-planted), so tests interrupt a run at an exact point instead of racing a signal
     * against the run's speed. */
    size_t stop_after_sectors;
    /* Called at fixed points: step "hashed" once after the hash phase (sector NULL), "opened"
     * each time a sector's file is got from the reader for a check (the first time right after
     * the reader opened it), and "checked" after each sector's check, before its inputs are
     * hashed again. Only the test build
     * sets it (cli/test_hook.c), so a test can change a file at a defined moment. NULL: none. */
    void (*on_step)(void *ctx, const char *step, const char *sector);
    void *step_ctx;
    /* NULL, or told each sector's final result as soon as its unit is finished (and committed
     * when the run is recorded): in the order of completion, from the thread that called
     * ma_vrun_execute, carried-over and unusable sectors included; never for a sector an
     * interruption abandoned. A CI log then shows results during an hour-long run, and a killed
     * job leaves every finished sector's line behind. */
    void (*on_sector)(void *ctx, const struct ma_vrun_sector *s);
    void *on_sector_ctx;
    /* Integrity before semantics (millaudit/integrity.h): what the files are judged against.
     * MA_INTEGRITY_AUTO (0): root/MANIFEST.sha256 when it is there; MANIFEST: manifest_path;
     * ATTESTATION: attestation_path checked with pub_path; NONE: no reference (--no-manifest). */
    int integrity;
    const char *manifest_path;
    const char *attestation_path, *pub_path;
    /* Paths the command writes (--junit, --refetch-list): never judged as files of the database. */
    const char *const *integrity_exclude;
    size_t n_integrity_exclude;
    /* NULL, or told once the integrity phase judged every file, before any sector is checked, so
     * the damage is the first thing a log shows. */
    void (*on_integrity)(void *ctx, const struct ma_vrun *r);
    void *on_integrity_ctx;
} ma_vrun_options;

typedef struct ma_vrun ma_vrun;

/* Creates a run (nothing is read yet). Errors: MA_EINVAL for options that contradict each other
 * (mode resume/incremental without audit_path, threads < 1, shard_index >= shard_count). */
MA_API int ma_vrun_create(ma_vrun **out, const ma_vrun_options *opt, ma_error *err);
/* Runs every phase. Returns MA_OK when the run completed (whatever it found: see
 * ma_vrun_verdict_of and ma_vrun_record_failed), MA_ECANCELED when opt->cancel stopped it, or the error that made the run
 * impossible (MA_EMISSING / MA_EFORMAT / MA_EIO for the database root or the store, MA_EINVAL for a
 * --sector that names no valid sector or a --resume with nothing to resume, MA_ENOMEM,
 * MA_EINTERNAL). Per-file problems are not errors of the run: they are listed (ma_run_errors) and
 * make the verdict incomplete. */
MA_API int ma_vrun_execute(ma_vrun *r, ma_error *err);
MA_API void ma_vrun_free(ma_vrun *r);

/* ---- the result (valid after ma_vrun_execute, whatever it returned) ---- */

/* The phase the run reached or failed in: "scan", "plan", "hash", "carry", "check", "classify",
 * "record", "done". */
MA_API const char *ma_vrun_phase(const ma_vrun *r);
MA_API const char *ma_vrun_root(const ma_vrun *r);
MA_API ma_format ma_vrun_format(const ma_vrun *r);
MA_API unsigned ma_vrun_variants(const ma_vrun *r);
MA_API int64_t ma_vrun_id(const ma_vrun *r);            /* 0 when not recorded */
MA_API int64_t ma_vrun_resumed_from(const ma_vrun *r);  /* 0 unless a resume */
MA_API const ma_vrun_options *ma_vrun_options_of(const ma_vrun *r);
/* The sectors the plan partitioned (the whole database or the --sector picks); a shard run checks
 * those of its shard, possibly none (an empty shard, verified). */
MA_API size_t ma_vrun_planned_sectors(const ma_vrun *r);
MA_API size_t ma_vrun_sector_count(const ma_vrun *r);
MA_API const ma_vrun_sector *ma_vrun_sector_at(const ma_vrun *r, size_t i); /* children-first order */
MA_API const ma_vrun_totals *ma_vrun_totals_of(const ma_vrun *r);
/* One-line messages of everything that could not be used or recorded, in the order met. */
MA_API size_t ma_vrun_error_count(const ma_vrun *r);
MA_API const char *ma_vrun_error(const ma_vrun *r, size_t i);
MA_API ma_verdict_state ma_vrun_verdict_of(const ma_vrun *r);
/* What the integrity phase found (millaudit/integrity.h); zero before it ran. */
MA_API const ma_vrun_integrity *ma_vrun_integrity_of(const ma_vrun *r);
/* Non-zero when the store could not record everything: the audit record the caller asked for is
 * incomplete, which outweighs the verdict (the CLI reports it as MA_EIO, exit 4). */
MA_API int ma_vrun_record_failed(const ma_vrun *r);
MA_API double ma_vrun_seconds(const ma_vrun *r);

/* ================================================================ the shard plan */

/* The partition of a whole database as `verify DIR --shard I/N` computes it, for sizing a job
 * (`verify DIR --plan N`): which shard checks each sector, each shard's entries and cost, and the
 * memory a task maps at most (the largest sector file of the shard plus its successor sectors'
 * files, which the run engine keeps mapped while it checks the sector). Nothing is checked. */
typedef struct ma_shard_plan_sector {
    ma_variant variant;
    ma_sector sector;
    char name[40];
    uint64_t entries;
    double cost;
    unsigned shard;
    uint64_t bytes;       /* its file's size */
    uint64_t peak_bytes;  /* its file plus its successor sectors' files (each once) */
} ma_shard_plan_sector;

typedef struct ma_shard_plan_shard {
    size_t sectors;
    uint64_t entries;
    double cost;
    uint64_t bytes;       /* the files of its sectors */
    uint64_t peak_bytes;  /* the largest peak_bytes of its sectors */
} ma_shard_plan_shard;

typedef struct ma_shard_plan {
    unsigned n_shards;
    ma_shard_plan_sector *sectors;  /* the database's sectors, in its order (variant, name) */
    size_t n_sectors;
    ma_shard_plan_shard *shards;    /* n_shards of them */
    uint64_t total_entries;
    double total_cost, mean_cost;   /* mean: total_cost / n_shards */
    double largest_sector_cost;     /* no shard can cost less than its largest sector */
    double largest_shard_cost;
    /* largest_shard_cost / max(mean_cost, largest_sector_cost): 1.0 is a perfect balance */
    double imbalance;
    ma_format format;               /* ma_shard_plan_run: the database's format (0: none found) */
    char **unusable;                /* ma_shard_plan_run: files that belong to no sector */
    size_t n_unusable;
} ma_shard_plan;

/* Plans the database at opt->root (a directory or one sector file) in opt->n_shards shards (the
 * partition a run with shard_count n_shards checks), and fills out->format and out->unusable (the
 * one-line message of every file of the root that belongs to no sector). Errors: MA_EINVAL
 * (n_shards 0), MA_EMISSING / MA_EFORMAT / MA_EIO for the root, MA_ENOMEM; out is empty then. */
typedef struct ma_shard_plan_options {
    const char *root;
    unsigned n_shards;    /* >= 1 */
} ma_shard_plan_options;

MA_API int ma_shard_plan_run(ma_shard_plan *out, const ma_shard_plan_options *opt, ma_error *err);
MA_API void ma_shard_plan_free(ma_shard_plan *p);

/* ================================================================ the merge */

/* Shard runs (verify --shard I/N, each into its own audit store) merged into one run in out_path
 * that reads like a single process's run of the whole database: every discrepancy is classified
 * root or propagated again across shards, and the coverage proof (every planned sector checked,
 * on the bytes whose digests are recorded) is checked; verifier/run/merge.h and docs/distributed.md give
 * the rules and what is refused. */

typedef struct ma_merge_options {
    const char *out_path;         /* the store the merged run is written into */
    const char *const *shards;    /* shard stores: "STORE" (its newest shard run) or "STORE:RUN" */
    size_t n_shards;
    int allow_partial;            /* missing or interrupted shards do not make the run incomplete */
    const volatile sig_atomic_t *cancel; /* optional stop flag (SIGINT/SIGTERM): checked between sectors;
                                          * when set the merged run is rolled back, MA_ECANCELED */
    const char *host;             /* of the merge (recorded) */
    const char *command_line;
} ma_merge_options;

/* One shard as it was merged. */
typedef struct ma_merge_shard {
    char source[1024];
    int64_t run_id;
    unsigned index, count;
    char host[256], started_at[40], ended_at[40], status[32];
    size_t sectors;               /* recorded (and merged) */
    int64_t planned_sectors;      /* -1: not recorded */
    int interrupted;              /* never ended, ended interrupted, or fewer sectors than planned */
} ma_merge_shard;

typedef struct ma_merge_result {
    int64_t run_id;               /* the merged run in out_path */
    char database_root[4096];
    char format[24];
    unsigned shard_count;
    ma_merge_shard *shards;       /* in shard order */
    size_t n_shards;
    unsigned *missing;            /* shard indexes no store held */
    size_t n_missing;
    size_t n_interrupted;
    int partial;                  /* missing or interrupted shards */
    size_t planned;               /* sectors of the plan the shards share (the inventory's) */
    size_t uncovered;             /* of those, sectors no shard recorded */
    ma_vrun_totals totals;
    ma_verdict_state verdict;     /* common/verdict.h */
    uint64_t reclassified;        /* discrepancies a shard called roots that are propagated */
    size_t rows_inexact;          /* sectors whose rows may differ from a single run's */
    char **notes;                 /* one-line messages: partial shards, inexact rows */
    size_t n_notes;
    int output_failed;            /* set with an error: the output store could not be opened or
                                   * written (exit 4), not the shards read (exit 3) */
} ma_merge_result;

/* Merges. MA_OK when the merged run was written (whatever its verdict: see verdict), else the
 * refusal (MA_EFORMAT / MA_EMISSING: unusable input, MA_EIO: the output store cannot be written,
 * MA_EINVAL: no shard given, MA_ENOMEM, MA_EINTERNAL) with err set and nothing written. */
MA_API int ma_merge_runs(const ma_merge_options *opt, ma_merge_result *out, ma_error *err);
MA_API void ma_merge_result_free(ma_merge_result *r);

/* A shard argument "STORE" or "STORE:RUN" as the merge reads it: the store's path into path (len
 * bytes) and the run into *run (0: the store's newest verify run). A name that exists as given is
 * a store even with a colon. */
MA_API void ma_merge_shard_source(const char *text, char *path, size_t len, int64_t *run);

/* ================================================================ documents (reports/render/) */

/* The text of a finished run (after ma_vrun_execute returned MA_OK or MA_ECANCELED): unless quiet,
 * the children-first table of its sectors with each failing sector's class counts and first
 * discrepancy rows; then the totals, the audit run and the verdict line. */
MA_API void ma_render_verify_text(FILE *out, const ma_vrun *r, int quiet);

/* What the integrity phase found, before any sector's line (ma_vrun_options.on_integrity):
 * "integrity: dl/MANIFEST.sha256: 3 of 28 files damaged, 25 as published" and one line per
 * damaged file, "damaged: <path>: <what is wrong>". Nothing when there was no reference and
 * nothing is damaged. */
MA_API void ma_render_integrity_text(FILE *out, const ma_vrun *r);

/* The files to fetch again, one path per line (relative to the database directory, as rsync
 * --files-from reads them), written atomically to path (common/output.h). Errors: MA_EIO, MA_ENOMEM. */
MA_API int ma_vrun_refetch_list_write(const ma_vrun *r, const char *path, ma_error *err);

/* The one line of a sector printed as soon as it is finished (ma_vrun_options.on_sector):
 * "std_3_3_0_0: ok, 1,234 entries, 1,234 verified, 0.02 s". */
MA_API void ma_render_verify_sector_line(FILE *out, const ma_vrun_sector *s);

/* The JSON document of a run (docs/json/verify.schema.json), one line: errors are the messages the
 * caller printed (the run's and its own), exit_status the status the caller exits with. The rows
 * are streamed, so a sector with millions of them costs no tree. */
MA_API void ma_render_verify_json(FILE *out, const ma_vrun *r, const char *const *errors, size_t n_errors,
                                  int exit_status);

/* The JUnit XML report of a run (reports/render/run_junit.h), written atomically to path. stopped_by: the
 * message of the error ma_vrun_execute returned, or NULL. Errors: MA_ENOMEM, MA_EIO naming path. */
MA_API int ma_vrun_junit_write(const ma_vrun *r, const char *stopped_by, const char *path, ma_error *err);

/* `verify DIR --plan N`: the plan as a table and each shard's sectors, or as one JSON document. */
MA_API void ma_render_shard_plan_text(FILE *out, const ma_shard_plan *p, const char *root);
MA_API void ma_render_shard_plan_json(FILE *out, const ma_shard_plan *p, const char *root);

/* `runs merge`: the shards merged, the totals, the notes and the verdict line. */
MA_API void ma_render_merge_text(FILE *out, const ma_merge_result *m, const char *out_path);

#endif
