/*
 * millaudit/inspect.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 */
#ifndef MILLAUDIT_INSPECT_H
#define MILLAUDIT_INSPECT_H

#include <stdio.h>

#include "common/progress.h"
#include "common/verdict.h"
#include "millaudit/types.h"

/* The sectors a command is asked for (`--sector S`, repeatable, or `S1,S2`): checks one argument
 * as the engines will read it ("W_B_WF_BF" or "<variant>_W_B_WF_BF", comma-separated), adding its
 * picks to *n_picks. MA_EINVAL with a message naming the item, or "too many sectors" past
 * MA_SECTOR_PICKS_MAX picks in all. */
#define MA_SECTOR_PICKS_MAX 256
MA_API int ma_sector_arg_check(const char *text, size_t *n_picks, ma_error *err);


/*
 * `millaudit stats DIR`: the statistics of a database's sectors (run/stats.h has the contract of
 * the counts), counted per stored entry and per position.
 */
/* Wins and losses at one depth (only depths with a count are kept). */
typedef struct ma_stats_bin {
    uint32_t depth;
    uint64_t win_entries, loss_entries;     /* per stored entry */
    uint64_t win_positions, loss_positions; /* per position */
} ma_stats_bin;

/* Canonical values with one A = key1 + v(S) (Malom .sec2). */
typedef struct ma_stats_akey {
    int32_t a;
    uint64_t entries;
} ma_stats_akey;

typedef struct ma_stats_tally {
    uint64_t entries;        /* slots in the file(s) */
    uint64_t canonical;      /* canonical entries (by the index scheme) */
    uint64_t markers;        /* non-canonical entries */
    uint64_t positions;      /* boards: canonical entries weighted by orbit size */
    uint64_t bad;            /* see the top of the file */
    uint64_t win_entries, draw_entries, loss_entries;
    uint64_t win_positions, draw_positions, loss_positions;
    int longest_win, longest_loss; /* deepest win / loss in plies, -1 when none */
    ma_stats_bin *bins;      /* n_bins, by depth ascending */
    size_t n_bins;
    int has_akey;            /* every counted sector is .sec2 */
    ma_stats_akey *akey;     /* n_akey, by A ascending */
    size_t n_akey;
} ma_stats_tally;

typedef struct ma_stats_sector {
    char name[40];           /* "std_3_3_0_0" */
    char file[256];          /* the file name inside the database directory */
    char path[4352];
    ma_variant variant;
    ma_sector sector;
    ma_format format;
    int unusable;            /* 1: message says why; the tally is empty */
    char message[1024];
    ma_stats_tally t;
    int is_start;            /* W = B = 0 */
    ma_stored start;         /* its entry 0 */
    char start_text[48];     /* "win 23", "draw", "bad 0xC002" as the reader names it */
} ma_stats_sector;

typedef struct ma_stats {
    ma_stats_sector *sectors; /* n of them, sorted by variant, then W, B, WF, BF */
    size_t n;
    size_t n_unusable;       /* sectors that could not be counted */
    ma_stats_tally total;    /* over the counted sectors */
} ma_stats;

/* Statistics of every sector file of root (or the picked ones) as one call. The result
 * (common/verdict.h): ma_result_of_verdict(MA_VERDICT_DISCREPANCIES) when a bad encoding was
 * counted, which outweighs ma_result_of_verdict(MA_VERDICT_INCOMPLETE) (a file could not be
 * used), else MA_OK (every file counted); a negative MA_E* code when the run stopped
 * (MA_EMISSING for a directory without sector files or a pick in none of them, the database's
 * error when it cannot be opened). */
typedef struct ma_stats_report ma_stats_report;

typedef struct ma_stats_run_options {
    const char *root;             /* a directory or one sector file */
    const char *const *sectors;   /* n_sectors --sector arguments (ma_sector_arg_check), or NULL */
    size_t n_sectors;
    int threads;                  /* workers per sector, 1..64; 0: online CPUs */
    int no_digest_check;          /* read open files whose body fails their header's SHA-256 */
    ma_progress *progress;        /* entries counted; may be NULL */
} ma_stats_run_options;

/* MA_OK with *out set whenever a report can be made, also when the run failed (its result says
 * how); MA_ENOMEM or MA_EINVAL (no root) otherwise. Free with ma_stats_report_free. */
MA_API int ma_stats_run(ma_stats_report **out, const ma_stats_run_options *opt, ma_error *err);
MA_API void ma_stats_report_free(ma_stats_report *r);
MA_API int ma_stats_report_result(const ma_stats_report *r);
/* The counts, or NULL when the run stopped before counting. */
MA_API const ma_stats *ma_stats_report_stats(const ma_stats_report *r);
/* Every message (unusable files, the failure) on diag prefixed "millaudit stats: ", then the JSON
 * document (docs/json/stats.schema.json) or the text tables on out, then the bad-encoding line on
 * diag. */
MA_API int ma_stats_render_end(FILE *out, FILE *diag, const ma_stats_report *r, int json);

#endif
