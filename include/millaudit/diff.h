/*
 * millaudit/diff.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * `millaudit diff A B`, position by position, in any of the formats the checker reads: the pair,
 * example and result types of a comparison (docs/diff.md has the contract of pairing and
 * classes), the one engine call ma_diff_run and the renderers of its report.
 */
#ifndef MILLAUDIT_DIFF_H
#define MILLAUDIT_DIFF_H

#include <stdio.h>

#include "millaudit/verdict.h"
#include "millaudit/types.h"
#include "millaudit/inspect.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MA_DIFF_OUTCOME = 0, MA_DIFF_DEPTH, MA_DIFF_DRAW_CLASS, MA_DIFF_ENCODING, MA_DIFF_CLASSES };

/* What became of one pair of sectors. */
typedef enum ma_diff_status {
    MA_DIFF_PENDING = 0, /* planned, not compared yet */
    MA_DIFF_IDENTICAL,   /* same format, same SHA-256 */
    MA_DIFF_EQUAL,       /* values agree (encoding differences allowed) */
    MA_DIFF_DIFFERS,     /* some outcome, depth or draw class differs */
    MA_DIFF_ONLY_A,
    MA_DIFF_ONLY_B,
    MA_DIFF_UNUSABLE,    /* a file of the pair cannot be used (message says which and why) */
    MA_DIFF_STATUSES
} ma_diff_status;

/* One turn of a differing position, with the value it gives the side to move on each side. */
typedef struct ma_diff_turn {
    char move[32];      /* "d1", "d1-d2", "a4xg7" */
    char a[96], b[96];  /* "win 5", "draw", "unknown" (Malom: with its keys) */
    int differs;        /* the two values differ: the difference comes (also) from this successor */
} ma_diff_turn;

/* Where a value difference comes from (issue 45). */
enum { MA_DIFF_CAUSE_UNKNOWN = -1, MA_DIFF_CAUSE_PROPAGATED = 0, MA_DIFF_CAUSE_ROOT = 1 };

typedef struct ma_diff_example {
    int cls;            /* MA_DIFF_* */
    ma_board board;     /* the position as stored in A (open numbering) */
    uint64_t entry_a;   /* entry in A */
    uint64_t entry_b;   /* entry in B the position maps to */
    uint64_t offset_a;  /* byte offsets of the entries, for people who open the files */
    uint64_t offset_b;
    ma_stored a, b;     /* both stored values, normalised */
    char text_a[48];    /* as each file's reader names them (ma_source_describe): "win 13 (0xC00D)", */
    char text_b[48];    /* "draw (count 5)", "marker op 3", "bad 0xC00C" */
    /* Value differences: MA_DIFF_CAUSE_ROOT when every successor holds the same value on both
     * sides (so one side's own value is wrong), PROPAGATED when some successor differs, UNKNOWN
     * when a successor could not be read on a side (or for encoding differences). */
    int cause;
    /* The proof (value differences of ma_diff_run, when both sides could be probed,
     * as the probe does): every turn with both values, what each side's turns give it (its
     * best turn's value; loss 0 or a draw without a turn, no_turn says why) and whether the side's
     * stored value is that (1, 0, -1 unknown), the side that is right ('A', 'B', '2' both agree
     * with their successors, '0' neither, 0 undecided) and the turn that proves it: the best turn
     * when the successors agree, else the first turn whose successors differ. */
    int proved;
    ma_diff_turn *turns;
    int n_turns;
    char rules_a[96], rules_b[96];
    int agrees_a, agrees_b;
    char right;
    char proof[32];
    char no_turn[160];
} ma_diff_example;

#define MA_DIFF_DEFAULT_LIMIT 5 /* examples kept per sector when the options say 0 */

typedef struct ma_diff_options {
    unsigned threads; /* 0: every online CPU */
    size_t limit;     /* examples kept per sector; 0: MA_DIFF_DEFAULT_LIMIT; MA_KEEP_NONE: none */
    int full;         /* compare positions even when digests agree */
} ma_diff_options;

typedef struct ma_diff_result {
    int identical;           /* same format and digest: nothing compared */
    int draw_class_compared; /* both .sec2 in one frame kind */
    uint64_t positions;      /* canonical positions compared */
    uint64_t counts[MA_DIFF_CLASSES];
    ma_diff_example *examples; /* n_examples of them: value classes first, each in A's entry order */
    size_t n_examples;
    double seconds;
    int outside_entries_only; /* same format, every entry alike, only bytes outside the entries
                               * (header fields such as the producer) differ: counted as one
                               * encoding difference */
    char header_words[200];   /* outside_entries_only: what differs, in words ("producer
                               * millaudit-solver+bug:fly-early vs millaudit-solver") */
    /* Value differences split by cause (classified: ma_diff_run compared successors too):
     * root + propagated + unknown = outcome + depth + draw-class. via: the successor sectors a
     * propagated difference was found in (their ids). */
    int classified;
    uint64_t roots, propagated, unknown;
    ma_sector via[4];
    int n_via;
} ma_diff_result;

/* One pair of sectors (either side may be absent). */
typedef struct ma_diff_sector {
    char name[40];             /* "std_3_3_0_0" */
    ma_variant variant;
    ma_sector sector;
    const struct ma_db_sector *a, *b; /* NULL on the side that does not hold the sector */
    ma_format format_a, format_b; /* 0 where absent */
    const char *path_a, *path_b;  /* the files (valid while the report lives), NULL on a side that
                                   * does not hold the sector */
    ma_diff_status status;
    char message[1024];        /* one line for `unusable` (the reader's error), else "" */
    ma_diff_result r;          /* for pairs compared */
    /* A pair whose values differ (ma_diff_run): MA_DIFF_CAUSE_ROOT when some difference is its
     * own (a root difference, or not classified), PROPAGATED when every difference comes from a
     * successor and root pairs among its successor sectors (transitively) explain them: those are
     * named in because ("std_4_3_0_0, std_4_4_0_0"). A consequence is reported once, under its
     * causes, and does not fail a JUnit case of its own. */
    int cause;
    char because[512];
    size_t n_because;
} ma_diff_sector;

/* "outcome", "depth", "draw-class", "encoding". */
MA_API const char *ma_diff_class_name(int cls);
/* "pending", "identical", "equal", "differs", "only-in-A", "only-in-B", "unusable". */
MA_API const char *ma_diff_status_name(ma_diff_status s);
/* Outcome, depth and draw-class differences (what makes values disagree). */
MA_API uint64_t ma_diff_value_differences(const ma_diff_result *r);


/*
 * `millaudit diff A B` as one call: opens both databases, pairs their sectors (only the picked
 * ones, only one shard's), compares every pair, totals the statuses and classes, decides the
 * verdict and records the run (kind "diff") into an audit store and a JUnit report when asked.
 *
 * The verdict: values differ (a pair differs or is on one side only) outweighs incomplete (a pair
 * or a file unusable), which outweighs values agree. The result (millaudit/verdict.h):
 *   ma_result_of_verdict(MA_VERDICT_DIFFER / MA_VERDICT_INCOMPLETE / MA_VERDICT_AGREE, 0), or
 *   MA_EFORMAT when a database or the pairing is unusable, the store cannot be opened as one,
 *   MA_EIO when the store cannot be written or the JUnit report asked for was not written
 *   (an incomplete record wins over the verdict), MA_ENOMEM, MA_EINTERNAL.
 */
typedef struct ma_diff_report ma_diff_report;

typedef struct ma_diff_run_options {
    const char *path_a, *path_b;  /* the two databases (directories or single sector files) */
    const char *const *sectors;   /* n_sectors sector picks (ma_sector_arg_check), or NULL: all */
    size_t n_sectors;
    ma_diff_options compare;      /* threads, example limit, full */
    unsigned shard_index, shard_count; /* shard_count 0: every pair */
    int no_digest_check;          /* read open files whose body fails their header's SHA-256 */
    const char *audit_path;       /* record the run here (NULL: no record) */
    const char *host, *cmdline;   /* the run's identity in the store */
    const char *junit_path;       /* also write a JUnit report (NULL: none) ... */
    /* ... with this writer (ma_diff_render_junit), handed in so the engine needs no renderer */
    int (*junit_writer)(const ma_diff_report *r, const char *path, ma_error *err);
    /* Called once the pairs are planned (before any is compared) and after each pair is
     * compared, in plan order; both may be NULL. */
    void (*on_plan)(void *ctx, const ma_diff_report *r);
    void (*on_sector)(void *ctx, const ma_diff_sector *s);
    void *ctx;
} ma_diff_run_options;

/* Runs the diff (above). MA_OK with *out set whenever a report can be made, also when the run
 * failed (its result says how); a negative code only when not even that (MA_ENOMEM, MA_EINVAL
 * for missing paths). Free with ma_diff_report_free. */
MA_API int ma_diff_run(ma_diff_report **out, const ma_diff_run_options *opt, ma_error *err);
MA_API void ma_diff_report_free(ma_diff_report *r);

/* The command result (millaudit/verdict.h) and, for a run that stopped early, its one-line reason
 * (NULL otherwise). */
MA_API int ma_diff_report_result(const ma_diff_report *r);
MA_API const char *ma_diff_report_failure(const ma_diff_report *r);
/* The pairs compared (the shard's, in plan order) and how many the plan held before sharding. */
MA_API size_t ma_diff_report_pairs(const ma_diff_report *r);
MA_API size_t ma_diff_report_planned(const ma_diff_report *r);
MA_API const ma_diff_sector *ma_diff_report_pair(const ma_diff_report *r, size_t i);
/* Totals over the pairs: how many have status s; positions; differences of class cls. */
MA_API uint64_t ma_diff_report_status_count(const ma_diff_report *r, ma_diff_status s);
MA_API uint64_t ma_diff_report_positions(const ma_diff_report *r);
MA_API uint64_t ma_diff_report_class_count(const ma_diff_report *r, int cls);

/* Rendering. One pair as the text output shows it (a pair that
 * differs at the root with its positions: both values, every turn with its value on each side,
 * the side that is right and the turn that proves it; quiet: no board diagrams); the shard line;
 * and the end of the run: every message (records not written, unusable files, the failure) on
 * diag prefixed "millaudit diff: ", then on out the JSON document (docs/json/diff.schema.json,
 * MA_DIFF_TEXT_JSON) or the text: A and B named, the pairs that differ at the root with their
 * positions, the pairs on one side only or unusable, one line per set of causes for the pairs
 * that differ only as a consequence, one line per kind of sameness for the equal pairs (headers
 * only, another format, identical; none with MA_DIFF_TEXT_QUIET), or every pair on a line of its
 * own (MA_DIFF_TEXT_ALL); then the total. ma_diff_render_end returns MA_OK, or MA_ENOMEM having
 * written nothing (the caller says out of memory: a verdict without its lines is not given). */
enum { MA_DIFF_TEXT_JSON = 1, MA_DIFF_TEXT_QUIET = 2, MA_DIFF_TEXT_ALL = 4 };
MA_API void ma_diff_render_pair_text(FILE *out, const ma_diff_sector *s, int quiet);
MA_API void ma_diff_render_plan_text(FILE *out, const ma_diff_report *r);
MA_API int ma_diff_render_end(FILE *out, FILE *diag, const ma_diff_report *r, unsigned flags);
/* The JUnit report of the run, written atomically to path; pairs the run
 * did not reach are skipped cases. Errors: MA_ENOMEM, MA_EIO naming path. */
MA_API int ma_diff_render_junit(const ma_diff_report *r, const char *path, ma_error *err);

#ifdef __cplusplus
}
#endif

#endif
