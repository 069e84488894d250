/*
 * verifier/run: the run engine. One verify run of a database, the same for every format, in named
 * phases (docs/runs.md):
 *
 *   scan      discover the database (formats/source.h): its sectors and every file it cannot use;
 *   plan      select the sectors to check (all, --sector, a shard), find each one's successor
 *             sectors, group twins (sectors that are each other's successors) into units and order
 *             the units children first;
 *   hash      when the run is recorded: SHA-256 of every file the run will read, recorded as the
 *             run's manifest; each sector's inputs are its own file, its successor sectors' files
 *             (or their absence) and, for .sec2, the <variant>.secval; and the coverage proof
 *             (verifier/inventory.h): the inventory of every file of the database (header body
 *             digest, or SHA-256 in the same batch for files without one) and the plan (every
 *             partitioned sector with its shard), with their digests;
 *   carry     --resume / --incremental: a sector whose inputs hash exactly as they did for a
 *             committed result of an earlier run (same database root, tool version and
 *             result-affecting options) is carried over from that run instead of checked;
 *   check     every remaining sector is re-derived from its successors (verifier/check.h for the
 *             open format, verifier/malom_check.h for Malom's), unit by unit; then every file the
 *             unit read (the sectors' own and their successors') is hashed again from the very
 *             mapping the check read (ma_source_bytes) and must equal the digest the hash phase
 *             recorded (without a store: the digest taken when the file was mapped). A file that
 *             differs was replaced before it was mapped or rewritten in place during the check:
 *             every sector that read it is "unusable" with "changed while being checked" (never
 *             carried over, exit 3). So the digests recorded as a sector's inputs are the digests
 *             of the bytes its check used (docs/runs.md, "The bytes hashed are the bytes checked");
 *   classify  each discrepancy is a root or propagated (one of its successors is itself a
 *             discrepancy; values fixed by the rules alone, bad encodings and symmetry
 *             inconsistencies are always roots), using the successor sectors' full discrepancy sets
 *             (loaded from the store for carried-over sectors);
 *   record    the unit's results, capped rows (roots first), full discrepancy sets, derived-value
 *             digests and histograms are committed to the audit store in one transaction, so a run
 *             stopped at any point keeps every finished unit.
 *
 * Cancellation: opt->cancel (set by a signal handler) stops the run at the next chunk; in-flight
 * sectors are abandoned, the run is recorded as "interrupted" and ma_vrun_execute returns
 * MA_ECANCELED. Its verdict stays "interrupted: K of N sectors checked" for good: the sectors it
 * never reached are "not checked" and its totals count the whole plan. A later `--resume` is a new
 * run that claims it (one write transaction: the claimed run names the run that continued it).
 *
 * The engine prints nothing; progress goes to opt->progress (one reporter for the whole run) and
 * everything else is in the result, which cli/ renders as text or JSON.
 */
#ifndef MA_VERIFIER_RUN_H
#define MA_VERIFIER_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "formats/source.h"
#include "formats/value.h"
#include "indexer/position.h"

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
const char *ma_disc_class_name(int cls);

/* Status of a sector in a run. */
typedef enum ma_sector_status {
    MA_SECTOR_OK = 0,            /* every entry verified */
    MA_SECTOR_WITHIN_BOUNDS = 1, /* no contradiction; some entries only within bounds (Malom) */
    MA_SECTOR_DISCREPANCIES = 2,
    MA_SECTOR_INCOMPLETE = 3,    /* checked, but some entries could not be verified (missing or
                                  * broken successor) */
    MA_SECTOR_UNUSABLE = 4,      /* the sector's file could not be used */
    MA_SECTOR_NOT_CHECKED = 5    /* selected, but the run stopped before it (interrupted): its
                                  * entries count in the plan's total, none as verified */
} ma_sector_status;

/* "ok", "within-bounds", "discrepancies", "incomplete", "unusable", "not-checked". */
const char *ma_sector_status_name(int status);

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
    uint64_t body_digest_mismatches; /* sectors whose body is not what the header's digest says */
} ma_vrun_totals;

typedef enum ma_vrun_mode {
    MA_VRUN_FULL = 0,
    MA_VRUN_RESUME = 1,
    MA_VRUN_INCREMENTAL = 2
} ma_vrun_mode;

/* Verdict of a run, in the order a report states it. */
typedef enum ma_vrun_verdict {
    MA_VRUN_VERIFIED = 0,      /* every entry of every sector verified */
    MA_VRUN_WITHIN_BOUNDS = 1, /* no contradiction, but some entries only within bounds */
    MA_VRUN_DISCREPANCIES = 2,
    MA_VRUN_INCOMPLETE = 3,    /* unusable or missing input: not everything could be checked */
    MA_VRUN_INTERRUPTED = 4
} ma_vrun_verdict;

/* "verified", "within-bounds", "discrepancies", "incomplete", "interrupted"; also the run status
 * recorded in the store ("ok" for verified). */
const char *ma_vrun_verdict_name(int verdict);

typedef struct ma_vrun_options {
    const char *root;             /* the database (directory or one sector file) */
    const char *const *sectors;   /* --sector arguments, n_sectors of them; none: every sector */
    size_t n_sectors;
    int threads;                  /* >= 1 */
    size_t max_rows;              /* discrepancy rows kept per sector (counts stay exact) */
    int full_board_draw;          /* Malom: a full 12/12 board is a draw (default 1) */
    int allow_bounds;             /* Malom: within-bounds entries do not make the exit status 3 */
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
    /* Called at two fixed points: step "hashed" once after the hash phase (sector NULL), and
     * "checked" after each sector's check, before its inputs are hashed again. Only the test build
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
} ma_vrun_options;

/* A run that never ended and whose heartbeat (refreshed at every commit) is younger than this
 * is taken to be in progress by a --resume from another host (docs/runs.md). On the run's own
 * host its recorded process id decides. */
#define MA_VRUN_HEARTBEAT_STALE_SECONDS 3600

typedef struct ma_vrun ma_vrun;

/* Creates a run (nothing is read yet). Errors: MA_EINVAL for options that contradict each other
 * (mode resume/incremental without audit_path, threads < 1, shard_index >= shard_count). */
int ma_vrun_create(ma_vrun **out, const ma_vrun_options *opt, ma_error *err);
/* Runs every phase. Returns MA_OK when the run completed (whatever it found: see the verdict and
 * ma_vrun_exit_code), MA_ECANCELED when opt->cancel stopped it, or the error that made the run
 * impossible (MA_EMISSING / MA_EFORMAT / MA_EIO for the database root or the store, MA_EINVAL for a
 * --sector that names no valid sector or a --resume with nothing to resume, MA_ENOMEM,
 * MA_EINTERNAL). Per-file problems are not errors of the run: they are listed (ma_run_errors) and
 * make the verdict incomplete. */
int ma_vrun_execute(ma_vrun *r, ma_error *err);
void ma_vrun_free(ma_vrun *r);

/* ---- the result (valid after ma_vrun_execute, whatever it returned) ---- */

/* The phase the run reached or failed in: "scan", "plan", "hash", "carry", "check", "classify",
 * "record", "done". */
const char *ma_vrun_phase(const ma_vrun *r);
const char *ma_vrun_root(const ma_vrun *r);
ma_format ma_vrun_format(const ma_vrun *r);
unsigned ma_vrun_variants(const ma_vrun *r);
int64_t ma_vrun_id(const ma_vrun *r);            /* 0 when not recorded */
int64_t ma_vrun_resumed_from(const ma_vrun *r);  /* 0 unless a resume */
const ma_vrun_options *ma_vrun_options_of(const ma_vrun *r);
/* The sectors the plan partitioned (the whole database or the --sector picks); a shard run checks
 * those of its shard, possibly none (an empty shard, verified). */
size_t ma_vrun_planned_sectors(const ma_vrun *r);
size_t ma_vrun_sector_count(const ma_vrun *r);
const ma_vrun_sector *ma_vrun_sector_at(const ma_vrun *r, size_t i); /* children-first order */
const ma_vrun_totals *ma_vrun_totals_of(const ma_vrun *r);
/* One-line messages of everything that could not be used or recorded, in the order met. */
size_t ma_vrun_error_count(const ma_vrun *r);
const char *ma_vrun_error(const ma_vrun *r, size_t i);
int ma_vrun_verdict_of(const ma_vrun *r);
/* Non-zero when the store could not record everything (then the exit code says 4). */
int ma_vrun_record_failed(const ma_vrun *r);
double ma_vrun_seconds(const ma_vrun *r);
/* The exit status (README): 130/143 are the CLI's (it knows the signal); here 0 verified (or
 * within bounds with allow_bounds), 1 discrepancies, 3 incomplete / within bounds, 4 the audit
 * record is incomplete (wins over 1 and 3: the user asked for a record and has none), 5 internal. */
int ma_vrun_exit_code(const ma_vrun *r);

#endif
