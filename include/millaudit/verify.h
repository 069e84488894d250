/*
 * millaudit/verify.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * Three engines (docs/runs.md, docs/distributed.md):
 *   - the verify run (ma_vrun_*): one run of a database, every format, in named phases (scan,
 *     plan, hash, carry, check, classify, record; docs/runs.md walks through them), recorded in an
 *     audit store when asked; its verdict is a ma_verdict_state;
 *   - the shard plan (ma_shard_plan_run): the deterministic partition of a database's sectors into
 *     N shards that a run with shard_count N checks (`verify --shard I/N`), for sizing a job;
 *     nothing is checked;
 *   - the merge (ma_merge_runs): shard runs, each in its own store, merged into one run that reads
 *     like a single process's run of the whole database.
 * And their documents: the text and JSON of a run, of a plan and of a merge, and a run's JUnit
 * report, each written to a caller's FILE, path or buffer.
 *
 * The engines print nothing and decide no exit status: a run's verdict (ma_vrun_verdict_of, with
 * MA_VERDICT_ALLOW_BOUNDS when its options allow bounds) and ma_vrun_record_failed say what it
 * proved; ma_vrun_result folds them into the command result (millaudit/verdict.h).
 */
#ifndef MILLAUDIT_VERIFY_H
#define MILLAUDIT_VERIFY_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "millaudit/error.h"
#include "millaudit/integrity.h"
#include "millaudit/progress.h"
#include "millaudit/types.h"
#include "millaudit/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ seal keys */

/* The key a shard seals its store with and a merge checks it with (docs/distributed.md "Sealing"):
 * an Ed25519 private key in PEM (seals and checks), an Ed25519 public key in PEM (checks only), or
 * any other file of 16 to 4096 bytes, a secret for HMAC-SHA256 (`openssl rand -hex 32`). Errors:
 * MA_EMISSING / MA_EIO reading it, MA_EFORMAT for a file that is no key. */
typedef struct ma_seal_key ma_seal_key;
MA_API int ma_seal_key_load(ma_seal_key **out, const char *path, ma_error *err);
MA_API void ma_seal_key_free(ma_seal_key *k);

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
    /* The turn that proves the derived value, or its lower bound (the best known successor), when
     * one exists. */
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
    const char *path;         /* its file (where it would be when the database has none) */
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
    const char *const *sectors;   /* the sectors to check, n_sectors of them ("W_B_WF_BF" or
                                   * "<variant>_W_B_WF_BF", comma-separated lists allowed); none:
                                   * every sector */
    size_t n_sectors;
    int threads;                  /* worker threads; 0: every online CPU */
    size_t max_rows;              /* discrepancy rows kept per sector (counts stay exact); 0: 1000;
                                   * MA_KEEP_NONE: none */
    int full_board_draw;          /* Malom: a full 12/12 board is a draw; 0 (default) and MA_YES:
                                   * yes, MA_NO: no */
    int allow_bounds;             /* Malom: within-bounds entries are accepted: their messages are
                                   * not errors, and the verdict maps with MA_VERDICT_ALLOW_BOUNDS
                                   * (so it exits 0, not 3) */
    const char *audit_path;       /* the store to record into; NULL: not recorded */
    ma_vrun_mode mode;
    int64_t resume_run;           /* MA_VRUN_RESUME: the run to continue; 0 = the last unfinished
                                   * run of this database root */
    /* MA_VRUN_RESUME: a run that never ended, recorded by another host, counts as dead once its
     * heartbeat is older than this many seconds (stale_seconds_given; else an hour). A scheduler
     * that declared that host dead (Slurm requeueing a task after a node failure) passes 0: it
     * knows more than the heartbeat. */
    int stale_seconds_given;
    int64_t stale_seconds;
    unsigned shard_index, shard_count; /* shard_count 0 or 1: no sharding */
    const char *host;             /* recorded provenance */
    const char *command_line;
    const char *tool_version;     /* NULL: this library's version */
    const char *git_revision;     /* NULL: the revision this library was built from */
    ma_progress *progress;        /* NULL: none */
    const volatile sig_atomic_t *cancel; /* NULL, or a flag a signal handler sets to the signal's
                                   * number: the run stops between sectors (MA_ECANCELED) */
    /* NULL, or told each sector's final result as soon as its unit is finished (and committed
     * when the run is recorded): in the order of completion, from the thread that called
     * ma_vrun_execute, carried-over and unusable sectors included; never for a sector an
     * interruption abandoned. A CI log then shows results during an hour-long run, and a killed
     * job leaves every finished sector's line behind. */
    void (*on_sector)(void *ctx, const struct ma_vrun_sector *s);
    void *on_sector_ctx;
    /* NULL, or the key (able to seal) the run seals its store with when it ends, whatever its
     * verdict (docs/distributed.md "Sealing"): a merge given the key believes the
     * store only if no row changed since. Needs audit_path. A seal that cannot be recorded makes
     * the record incomplete (ma_vrun_record_failed). */
    const ma_seal_key *seal_key;
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

/* Creates a run (nothing is read yet); the options are copied (the strings they point to must
 * outlive the run), with their defaults filled in (ma_vrun_options_of). Errors: MA_EINVAL for
 * options that contradict each other or are out of range (mode resume/incremental without
 * audit_path, negative threads, shard_index >= shard_count, a full_board_draw other than 0,
 * MA_YES, MA_NO). */
MA_API int ma_vrun_create(ma_vrun **out, const ma_vrun_options *opt, ma_error *err);
/* Runs every phase, once: a second call on the same run is MA_EINVAL and leaves the results of the
 * first as they are (create another run to check again). Returns MA_OK when the run completed
 * (whatever it found: see ma_vrun_verdict_of and ma_vrun_record_failed), MA_ECANCELED when
 * opt->cancel stopped it, or the error that made the run impossible (MA_EMISSING / MA_EFORMAT /
 * MA_EIO for the database root or the store, MA_EINVAL for a sector that names no valid sector or
 * a resume with nothing to resume, MA_ENOMEM, MA_EINTERNAL). Per-file problems are not errors of
 * the run: they are listed (ma_vrun_error) and make the verdict incomplete. */
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
/* The sectors the plan partitioned (the whole database or the sectors picked); a shard run checks
 * those of its shard, possibly none (an empty shard, verified). */
MA_API size_t ma_vrun_planned_sectors(const ma_vrun *r);
/* 1 when the run checks every sector of its database (no sectors named, no shard of several): its
 * verdict is about the database. 0 for a run of some sectors (--sector picks, one shard): its
 * verdict proves those sectors given the files it read and did not check, never the database
 * (the scope its record, verify's text and JSON and an attestation of it state). */
MA_API int ma_vrun_covers_database(const ma_vrun *r);
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
 * incomplete, which outweighs the verdict (the command reports it as MA_EIO, exit 4). */
MA_API int ma_vrun_record_failed(const ma_vrun *r);
/* The command result of the run (millaudit/verdict.h) given rc, what ma_vrun_execute returned:
 * the signal that stopped it (MA_ECANCELED), the error, MA_EIO when the record is incomplete, or
 * its verdict (allowing bounds when its options do). ma_result_exit_code(ma_vrun_result(r, rc)) is
 * the exit status `millaudit verify` gives. */
MA_API int ma_vrun_result(const ma_vrun *r, int rc);
MA_API double ma_vrun_seconds(const ma_vrun *r);

/* ================================================================ the shard plan */

/* The partition of a whole database as a run with shard_count N computes it, for sizing a job
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
    uint64_t peak_bytes;  /* the most its task holds while checking it: files mapped then, the check's private memory and the process (ma_shard_peaks, docs/distributed.md) */
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
 * one-line message of every file of the root that belongs to no sector). Errors: MA_EMISSING /
 * MA_EFORMAT / MA_EIO for the root, MA_ENOMEM; out is empty then. Free out with
 * ma_shard_plan_free (also after an error). */
typedef struct ma_shard_plan_options {
    const char *root;
    unsigned n_shards;    /* 0: 1 */
} ma_shard_plan_options;

MA_API int ma_shard_plan_run(ma_shard_plan *out, const ma_shard_plan_options *opt, ma_error *err);
MA_API void ma_shard_plan_free(ma_shard_plan *p);

/* ================================================================ the merge */

/* Shard runs (runs with shard_count N, each recorded in its own audit store) merged into one run
 * in out_path that reads like a single process's run of the whole database: every discrepancy is
 * classified root or propagated again across shards, and the coverage proof (every planned sector
 * checked, on the bytes whose digests are recorded) is checked; docs/distributed.md gives the
 * rules and what is refused. */

typedef struct ma_merge_options {
    const char *out_path;         /* the store the merged run is written into */
    const char *const *shards;    /* shard stores: "STORE" (its newest shard run) or "STORE:RUN" */
    size_t n_shards;
    int allow_partial;            /* missing or interrupted shards do not make the run incomplete */
    const volatile sig_atomic_t *cancel; /* optional stop flag (SIGINT/SIGTERM): checked between sectors;
                                          * when set the merged run is rolled back, MA_ECANCELED */
    const char *host;             /* of the merge (recorded) */
    const char *command_line;
    /* NULL: the shard stores are trusted as written (their digests are checked, but a program
     * that rewrote rows and recomputed every digest is not caught). Else every shard run must be
     * sealed by this key and its seal must verify over its rows as read; anything else is refused
     * (docs/distributed.md "Sealing"). */
    const ma_seal_key *seal_key;
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
    int sealed;                   /* its seal verified with the merge's key */
} ma_merge_shard;

typedef struct ma_merge_result {
    int64_t run_id;               /* the merged run in out_path */
    char *database_root;          /* as the shards recorded it; NULL when not known */
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
    ma_verdict_state verdict;
    uint64_t reclassified;        /* discrepancies a shard called roots that are propagated */
    size_t rows_inexact;          /* sectors whose rows may differ from a single run's */
    char **notes;                 /* one-line messages: partial shards, inexact rows */
    size_t n_notes;
    int output_failed;            /* set with an error: the output store could not be opened or
                                   * written (exit 4), not the shards read (exit 3) */
    char sealed_by[65];           /* the key id every shard's seal verified with; "" unsealed */
} ma_merge_result;

/* Merges. MA_OK when the merged run was written (whatever its verdict: see verdict), else the
 * refusal (MA_EFORMAT / MA_EMISSING: unusable input, MA_EIO: the output store cannot be written,
 * MA_EINVAL: no shard given, MA_ENOMEM, MA_EINTERNAL) with err set and nothing written. */
MA_API int ma_merge_runs(ma_merge_result *out, const ma_merge_options *opt, ma_error *err);
MA_API void ma_merge_result_free(ma_merge_result *r);

/* A shard argument "STORE" or "STORE:RUN" as the merge reads it: the store's path into path (len
 * bytes) and the run into *run (0: the store's newest verify run; -1 for "STORE:0", which names no
 * run and is refused, never read as the newest). A name that exists as given is a store even with
 * a colon. */
MA_API void ma_merge_shard_source(const char *text, char *path, size_t len, int64_t *run);

/* ================================================================ documents */

/* The text of a finished run (after ma_vrun_execute returned MA_OK or MA_ECANCELED). Unless
 * MA_VERIFY_TEXT_QUIET: with MA_VERIFY_TEXT_TABLE the children-first table of its sectors in 100
 * columns (MA_VERIFY_TEXT_WIDE: every column, wider), then what is wrong, root sectors first (each
 * with its class counts and first discrepancy rows; the sectors wrong only as a consequence of
 * them in one line; unusable, incomplete and within-bounds sectors with
 * their reasons); then, always, the totals, the audit run and the verdict line, which names the
 * root sectors. A clean run ends with its verdict, not a table. */
enum { MA_VERIFY_TEXT_QUIET = 1, MA_VERIFY_TEXT_TABLE = 2, MA_VERIFY_TEXT_WIDE = 4 };
MA_API void ma_render_verify_text(FILE *out, const ma_vrun *r, unsigned flags);

/* What the integrity phase found, before any sector's line (ma_vrun_options.on_integrity):
 * "integrity: dl/MANIFEST.sha256: 3 of 28 files damaged, 25 as published" and one line per
 * damaged file, "damaged: <path>: <what is wrong>". Nothing when there was no reference and
 * nothing is damaged. */
MA_API void ma_render_integrity_text(FILE *out, const ma_vrun *r);

/* The files to fetch again, one path per line (relative to the database directory, as rsync
 * --files-from reads them), written atomically to path (a temporary file beside it, then
 * renamed). Errors: MA_EIO, MA_ENOMEM. */
MA_API int ma_vrun_refetch_list_write(const ma_vrun *r, const char *path, ma_error *err);

/* The one line of a sector printed as soon as it is finished (ma_vrun_options.on_sector):
 * "std_3_3_0_0: ok, 1,234 entries, 1,234 verified, 0.02 s". */
MA_API void ma_render_verify_sector_line(FILE *out, const ma_vrun_sector *s);

/* The JSON document of a run (docs/json/verify.schema.json), one line: errors are the messages the
 * caller printed (the run's and its own), exit_status the status the caller exits with. The rows
 * are streamed, so a sector with millions of them costs no tree. MA_OK, or MA_ENOMEM when a part
 * of the document could not be built: what was written is then cut short (no parser accepts it),
 * never a whole document with a member missing. */
MA_API int ma_render_verify_json(FILE *out, const ma_vrun *r, const char *const *errors, size_t n_errors,
                                 int exit_status);
/* The same document into *out (NUL-terminated, *len bytes without the NUL; len may be NULL), to
 * release with ma_free. Errors: MA_ENOMEM. */
MA_API int ma_render_verify_json_buffer(char **out, size_t *len, const ma_vrun *r, const char *const *errors,
                                        size_t n_errors, int exit_status, ma_error *err);

/* The JUnit XML report of a run, written atomically to path. stopped_by: the
 * message of the error ma_vrun_execute returned, or NULL. Errors: MA_ENOMEM, MA_EIO naming path. */
MA_API int ma_vrun_junit_write(const ma_vrun *r, const char *stopped_by, const char *path, ma_error *err);

/* `verify DIR --plan N`: the plan as a table and each shard's sectors, or as one JSON document
 * (MA_OK, or MA_ENOMEM with nothing written when it could not be built whole). */
MA_API void ma_render_shard_plan_text(FILE *out, const ma_shard_plan *p, const char *root);
MA_API int ma_render_shard_plan_json(FILE *out, const ma_shard_plan *p, const char *root);

/* `runs merge`: the shards merged, the totals, the notes and the verdict line. */
MA_API void ma_render_merge_text(FILE *out, const ma_merge_result *m, const char *out_path);

#ifdef __cplusplus
}
#endif

#endif
