/*
 * millaudit/inspect.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * The engines that look into a database without judging it against the rules: stats
 * (ma_stats_run), probe (ma_probe_run, ma_probe_batch_run), dump (ma_dump_run) and index-check
 * (ma_index_check_run). Each is one call that does the whole command but its printing and
 * returns data with a command result (millaudit/verdict.h); its ma_*_render* functions print that
 * data as the command does. Engines that stream (dump, index-check, a batch of probes) hand each
 * line's data to a callback as it comes.
 */
#ifndef MILLAUDIT_INSPECT_H
#define MILLAUDIT_INSPECT_H

#include <stdio.h>

#include "millaudit/progress.h"
#include "millaudit/verdict.h"
#include "millaudit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sectors a command is asked for (options' `sectors`, each one pick or `S1,S2`): checks one item
 * as the engines will read it ("W_B_WF_BF" or "<variant>_W_B_WF_BF", comma-separated), adding its
 * picks to *n_picks. MA_EINVAL with a message "sector ITEM: ..." naming the item, or "sectors: too
 * many picked" past MA_SECTOR_PICKS_MAX picks in all. */
#define MA_SECTOR_PICKS_MAX 256
MA_API int ma_sector_arg_check(const char *text, size_t *n_picks, ma_error *err);

/*
 * `millaudit stats DIR`: the statistics of a database's sectors, counted per stored entry and per
 * position.
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
    const char *path;        /* its path (valid while the report lives) */
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
 * (millaudit/verdict.h): ma_result_of_verdict(MA_VERDICT_DISCREPANCIES) when a bad encoding was
 * counted, which outweighs ma_result_of_verdict(MA_VERDICT_INCOMPLETE) (a file could not be
 * used), else MA_OK (every file counted); a negative MA_E* code when the run stopped
 * (MA_EMISSING for a directory without sector files or a pick in none of them, the database's
 * error when it cannot be opened). */
typedef struct ma_stats_report ma_stats_report;

typedef struct ma_stats_run_options {
    const char *root;             /* a directory or one sector file */
    const char *const *sectors;   /* n_sectors sector picks (ma_sector_arg_check), or NULL: all */
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
 * diag. MA_OK, or MA_ENOMEM with nothing written. */
MA_API int ma_stats_render_end(FILE *out, FILE *diag, const ma_stats_report *r, int json);

/*
 * `millaudit dump FILE`: every canonical entry of one sector file (open .mdb, Malom .sec2 or .sec)
 * in the dump notation of docs/format.md §6, in entry order. A
 * canonical entry without a well-formed value and a non-canonical entry holding something other
 * than its scheme's empty slot are bad.
 */
typedef struct ma_dump_entry {
    uint64_t entry;
    uint64_t offset;    /* byte offset of the entry in the file */
    int canonical;      /* 1: a position (has a line); 0: a non-canonical entry holding bytes */
    ma_board board;     /* as the entry decodes (canonical entries: the position) */
    ma_stored stored;
    char value[64];     /* ma_dump_value (canonical entries) */
    int bad;            /* no value where one belongs, or bytes where none belongs */
    char problem[96];   /* bad: "bad encoding 0xc002", "is non-canonical but holds 0xc001" */
    int report;         /* ma_dump_run: a bad entry among the first MA_DUMP_REPORTED, to be shown */
} ma_dump_entry;

#define MA_DUMP_REPORTED 20 /* bad entries shown one by one; the rest only counted */

/* The file dumped and, after the walk, its counts and result. */
typedef struct ma_dump_summary {
    char path[1100];          /* the sector file, escaped for a message */
    char sector_name[16];     /* "W_B_WF_BF" */
    ma_variant variant;
    ma_sector sector;
    ma_format format;
    uint64_t entries;         /* slots of the file */
    int has_producer;         /* open format: the header's producer fields (printable ASCII) */
    char producer[33], producer_version[17];
    uint64_t canonical, bad;  /* entries visited by the walk */
    int result;               /* the command result: ma_result_of_verdict(MA_VERDICT_DISCREPANCIES)
                               * when bad, else MA_OK */
} ma_dump_summary;

typedef struct ma_dump_options {
    const char *path;         /* one sector file (a directory is refused) */
    int no_digest_check;      /* read an open file whose body fails its header's SHA-256 */
    /* Called once the file is open (the summary without counts), then per reported entry
     * (canonical ones and bad ones) in entry order; a non-zero return stops the walk and is
     * returned. Either may be NULL. */
    int (*on_header)(void *ctx, const ma_dump_summary *s);
    int (*on_entry)(void *ctx, const ma_dump_summary *s, const ma_dump_entry *e);
    void *ctx;
} ma_dump_options;

/* Dumps opt->path (above) into *out. MA_OK with out->result set, or the file's error
 * (MA_EFORMAT for a directory or an unusable file, MA_EMISSING, MA_EIO), MA_ENOMEM, or a
 * callback's value. */
MA_API int ma_dump_run(ma_dump_summary *out, const ma_dump_options *opt, ma_error *err);

/* The dump's renderers: the '#' header lines, one entry's line on out (canonical entries) and
 * its report on diag (bad ones marked report), and the closing count of bad entries on diag. */
MA_API void ma_dump_render_header(FILE *out, const ma_dump_summary *s, int with_entry);
MA_API void ma_dump_render_entry(FILE *out, FILE *diag, const ma_dump_summary *s,
                                 const ma_dump_entry *e, int with_entry);
MA_API void ma_dump_render_end(FILE *diag, const ma_dump_summary *s);

/*
 * `millaudit index-check`: the exhaustive proof of the checker's open index (sym16-colex,
 * docs/format.md §4) on one sector (docs/index-scheme.md says why each check), and with a file,
 * the check of its header and of every value word against its entry kind.
 */
#define MA_INDEX_CHECK_SHOWN 10 /* failures shown one by one; the rest only counted */

/* One failed check: of the file's words (file set) or of the index (file NULL). */
typedef struct ma_index_check_failure {
    uint64_t entry;
    ma_board board;
    const char *file;   /* the file whose word failed, or NULL */
    const char *what;   /* one line */
} ma_index_check_failure;

typedef struct ma_index_check_report {
    ma_variant variant;
    ma_sector sector;
    char label[64];                /* "std 3_3_0_0" */
    const char *file;              /* the file checked, or NULL */
    uint64_t file_entries;         /* its header's entry count */
    uint64_t file_bad;             /* its words that do not fit their entry */
    uint64_t entries, representatives, canonical;
    uint64_t placements, orbit_sum, expected_placements;
    int counts_agree;              /* orbit sizes sum to the placements, as many as expected */
    uint64_t failures;             /* failed checks in all, the file's included */
    uint64_t shown;                /* failures reported through on_failure */
    int result;                    /* MA_VERDICT_DISCREPANCIES when a check failed, else VERIFIED */
} ma_index_check_report;

typedef struct ma_index_check_options {
    ma_variant variant;
    ma_sector sector;
    const char *file;              /* the sector's .mdb to check too, or NULL */
    ma_progress *progress;         /* entries, then placements; may be NULL */
    /* Called when the proof starts, after the file was checked (with file set), and per failure
     * among the first MA_INDEX_CHECK_SHOWN; any may be NULL. */
    void (*on_start)(void *ctx, const ma_index_check_report *r);
    void (*on_file)(void *ctx, const ma_index_check_report *r);
    void (*on_failure)(void *ctx, const ma_index_check_report *r, const ma_index_check_failure *f);
    void *ctx;
} ma_index_check_options;

/* Runs the checks into *out. MA_OK with out->result set; MA_EINVAL "sector S is impossible for
 * V"; MA_EFORMAT for a file that cannot be used or holds another variant's or sector's header
 * (the file is checked first: no long proof for an unusable input); MA_ENOMEM; MA_EINTERNAL. */
MA_API int ma_index_check_run(ma_index_check_report *out, const ma_index_check_options *opt,
                              ma_error *err);

/* Its renderers: the first line, the file's line, a failure's FAIL line, and the counts with
 * the result line. */
MA_API void ma_index_check_render_start(FILE *out, const ma_index_check_report *r);
MA_API void ma_index_check_render_file(FILE *out, const ma_index_check_report *r);
MA_API void ma_index_check_render_failure(FILE *out, const ma_index_check_report *r,
                                          const ma_index_check_failure *f);
MA_API void ma_index_check_render_end(FILE *out, const ma_index_check_report *r);

/*
 * `millaudit probe DIR POSITION`: the stored value of one position and every turn of the side to
 * move with the value of the position it leads to, best first; or, in a batch, the stored value of
 * many positions.
 */
typedef struct ma_probe_turn {
    int from;          /* point left, -1 for a placement */
    int to;            /* point reached */
    int removed;       /* opponent stone removed, -1 for none */
    int immediate_win; /* the removal leaves the opponent below 3 stones: no successor */
    int kind;          /* MA_TURN_* (successor sector kind), -1 for an immediate win */
    ma_board succ;     /* colour-swapped successor board (unset for an immediate win) */
} ma_probe_turn;

/* A value as probe shows it. */
typedef struct ma_probe_value {
    int known;               /* 0: see why */
    ma_value value;          /* win / draw / loss and depth, for the side to move */
    int has_draw_class;      /* Malom .sec2 draws: draw_class is A = key1 + v(S) */
    int32_t draw_class;
    int has_keys;            /* Malom: key1, key2 in the probed sector's frame */
    int32_t key1, key2;
    char text[96];           /* "win 3", "loss 14", "draw", "draw A=112 k2=-28" */
    char why[160];           /* unknown: "successor sector std_3_3_1_1 absent", ... */
} ma_probe_value;

typedef struct ma_probe_row {
    ma_probe_turn turn;
    char move[32];           /* ma_probe_turn_format */
    ma_probe_value v;
} ma_probe_row;

typedef struct ma_probe_result {
    ma_variant variant;
    ma_sector sector;
    char name[40];           /* "std_3_3_0_0" */
    ma_format format;
    ma_board board;          /* the position as given */
    uint64_t entry;          /* its canonical entry */
    uint64_t offset;         /* the entry's byte offset in the file */
    ma_stored stored;        /* what the file holds there */
    ma_probe_value value;    /* the stored value as probe shows it (known = holds a value) */
    char stored_text[160];   /* open "win 3"; Malom "win 3 (key1 5, key2 3)"; "not a value (...)" */
    ma_probe_row *rows;      /* n_rows turns, best first; unknown ones last */
    int n_rows;
    char (*unusable)[1024];  /* messages of successor files that could not be used */
    int n_unusable;
    /* What the rules make of the turns (the checker's local rule, docs/verifier.md): the value the
     * position must hold. No turn: no_turn says why ("blocked: ..." or a full mora board) and the
     * rules' value is loss 0 (a draw on the full board); otherwise the best turn's value, known
     * only when every turn's value is (rules.known 0: some successor is absent or holds no value).
     * agrees: -1 not decidable (stored or rules value unknown), 1 the stored value is the rules'
     * value, 0 it is not (a discrepancy at this position: probe exits 1). */
    char no_turn[160];       /* "" when the position has a turn */
    ma_probe_value rules;
    int agrees;
} ma_probe_result;

typedef struct ma_probe_report ma_probe_report;

typedef struct ma_probe_run_options {
    const char *root;               /* the database: a directory or one sector file */
    int no_digest_check;            /* read open files whose body fails their header's SHA-256 */
    int have_variant;               /* 0: the database's only variant */
    ma_variant variant;
    const char *const *position;    /* the words of "BOARD [wf=N] [bf=N]" (ma_probe_run) */
    int n_position;
    FILE *batch;                    /* ma_probe_batch_run: one position per line from here */
    /* ma_probe_batch_run: called per position with its board and value ("win 3", "bad 0xc002") */
    void (*on_line)(void *ctx, const char *board, const char *value);
    void *ctx;
} ma_probe_run_options;

/* Probes opt->position. MA_OK with *out set (free with ma_probe_report_free); its result is
 * ma_result_of_verdict(MA_VERDICT_DISCREPANCIES) when the position's entry holds no value, which
 * outweighs ma_result_of_verdict(MA_VERDICT_INCOMPLETE) (a successor's file unusable), else MA_OK.
 * Errors: MA_EUSAGE (the position's words do not parse: message names the word), MA_EINVAL (no
 * sector of the variant, an impossible board, a database of several variants without one asked
 * for), the position's sector file's error (MA_EMISSING absent, MA_EFORMAT / MA_EIO unusable),
 * MA_ENOMEM, MA_EINTERNAL. */
MA_API int ma_probe_run(ma_probe_report **out, const ma_probe_run_options *opt, ma_error *err);
/* The stored values of the positions read from opt->batch (blank lines and '#' comments skipped),
 * each handed to opt->on_line, until the first error (as ma_probe_run's, for that line). */
MA_API int ma_probe_batch_run(const ma_probe_run_options *opt, ma_error *err);
/* The command result of a failed probe: a position or a variant the database does not have is
 * the user's (MA_EUSAGE), any other error is itself. */
MA_API int ma_probe_failure_result(int code);
MA_API const ma_probe_result *ma_probe_report_position(const ma_probe_report *r);
MA_API int ma_probe_report_result(const ma_probe_report *r);
MA_API void ma_probe_report_free(ma_probe_report *r);
/* Every successor file that could not be used on diag ("millaudit probe: ..."), then the JSON
 * document (docs/json/probe.schema.json) or the text on out. MA_OK, or MA_ENOMEM with nothing
 * written when the document could not be built whole. */
MA_API int ma_probe_render(FILE *out, FILE *diag, const ma_probe_report *r, int json);
/* The JSON document alone (docs/json/probe.schema.json, as `probe --json` prints it) into *out
 * (NUL-terminated, *len bytes without the NUL; len may be NULL), to release with ma_free. Errors:
 * MA_ENOMEM. */
MA_API int ma_probe_render_json_buffer(char **out, size_t *len, const ma_probe_report *r, ma_error *err);

#ifdef __cplusplus
}
#endif

#endif
