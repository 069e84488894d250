/*
 * millaudit/game.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * The two game-level audits, each one engine that opens the database, does the work and, when
 * asked, records the run in an audit store itself:
 *   opening  Gasser's opening proof (docs/opening.md): the value of the K-stone game by alpha-beta
 *            over the placement phase whose leaves are the database's movement sectors, every
 *            resolved placement position compared with the stored value;
 *   grade    a player's moves graded against the database (docs/grading.md): optimal, depth-lost
 *            or blunder, over sampled positions or whole games.
 * Each run returns a handle whatever happened (NULL only when it could not be allocated), so a
 * run stopped by an error or a signal still shows what it established; the handle's result is the
 * command result of millaudit/verdict.h (what the run proved, the error or the signal that
 * stopped it), which ma_result_exit_code maps to the exit status of millaudit(1).
 */
#ifndef MILLAUDIT_GAME_H
#define MILLAUDIT_GAME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "millaudit/error.h"
#include "millaudit/progress.h"
#include "millaudit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- opening ---------------------------------------------------------------------------------- */

/* What the opening proof established about the start value. */
enum {
    MA_OPENING_UNPROVEN = 0,        /* the bounds differ in outcome */
    MA_OPENING_OUTCOME_PROVEN = 1,  /* both bounds have the same outcome, depths differ */
    MA_OPENING_PROVEN = 2           /* outcome and depth */
};

/* One alpha-beta search under one assumption about unknown leaves. */
typedef struct ma_opening_pass {
    ma_value value;             /* the root's value under this pass's assumption */
    char pv[640];               /* principal variation: turns in a1..g7 notation, space separated */
    int pv_plies;
    char pv_end[160];           /* how the PV ends: "leaf std_3_3_0_0 <board>: loss 22", ... */
    uint64_t nodes;             /* placement positions searched (table hits included) */
    uint64_t leaves;            /* leaf look-ups */
    uint64_t unknown_leaves;    /* leaf look-ups the oracle could not value */
    uint64_t tt_probes, tt_hits, tt_cutoffs, tt_stores, tt_replacements;
    double seconds;
} ma_opening_pass;

/* Comparisons of one placement sector. */
typedef struct ma_opening_tally {
    ma_sector sector;
    char name[40];
    char path[512];
    uint64_t entries;           /* entries of the sector file */
    uint64_t exact_checked, exact_agreed;   /* exact results compared / equal to the stored value */
    uint64_t bound_checked, bound_agreed;   /* bounds compared / consistent with the stored value */
    uint64_t discrepancies;     /* distinct entries found wrong */
} ma_opening_tally;

typedef struct ma_opening_discrepancy {
    char sector[40];
    uint64_t entry;
    ma_board board;
    char stored[64];            /* the reader's description of the stored entry */
    char derived[48];           /* "win 13", ">= draw", "<= loss 8" */
    ma_value stored_value;      /* when usable */
    int stored_usable;
    ma_value derived_value;
    int bound;                  /* 0 exact, 1 lower bound (>=), -1 upper bound (<=) */
} ma_opening_discrepancy;

typedef struct ma_opening_result {
    ma_sector root_sector;
    ma_board root;
    int status;                 /* MA_OPENING_* */
    ma_value value;             /* proven value (depth meaningful only when status == PROVEN) */
    ma_value lower, upper;      /* bounds, side to move at the root's view (equal when proven) */
    int passes;                 /* 1 (no unknown leaf met) or 2 (pessimistic, optimistic) */
    ma_opening_pass pass[2];
    uint64_t nodes, leaves, unknown_leaves, tt_probes, tt_hits; /* totals over passes */
    size_t tt_entries;          /* table capacity in entries */
    ma_opening_tally *tallies;  /* placement sectors compared, in first-met order */
    size_t n_tallies;
    ma_opening_discrepancy *rows; /* first max_rows discrepancies */
    size_t n_rows;
    uint64_t discrepancies;     /* all discrepancies (distinct entries) */
    uint64_t exact_checked, bound_checked;
    double seconds;
} ma_opening_result;

typedef struct ma_opening_run_options {
    const char *database;       /* the database directory (open or Malom format) */
    int no_digest_check;        /* read open-format files whose body fails their header's SHA-256 */
    ma_variant variant;         /* std or mora (lask has no finite placement tree: MA_EUSAGE) */
    int stones;                 /* K: the game of sector 0_0_K_K, 3..the variant's stones */
    size_t tt_mb;               /* transposition table, MiB; 0: 64 */
    const char *only_sectors;   /* "W_B_0_0,..." leaves only from these movement sectors; NULL: all */
    int no_compare;             /* 1: do not compare resolved placement positions with stored ones */
    size_t max_rows;            /* discrepancy rows kept (counts stay exact); 0: 1000 */
    const char *audit_path;     /* record the run (kind "opening") in this store; NULL: none */
    const char *host, *cmdline; /* the run's identity for the store (NULL: "") */
    ma_progress *progress;      /* nodes searched; NULL for none */
    const volatile sig_atomic_t *cancel; /* set to a signal number: stop, record, result signal */
} ma_opening_run_options;

typedef struct ma_opening_proof ma_opening_proof;

/* Runs the proof. *out is set (free it with ma_opening_proof_free) unless it could not be
 * allocated (MA_ENOMEM). Returns MA_OK, or the code of the error that stopped the run with err
 * naming the file, sector or option: MA_EUSAGE for options the database or the rules refute
 * (variant lask, too many stones, an only_sectors item that is malformed or no movement sector),
 * the database's and the store's errors, MA_ECANCELED. An error while recording after the search
 * is not returned but kept (ma_opening_proof_store_error), as the search's results stand. */
MA_API int ma_opening_run(ma_opening_proof **out, const ma_opening_run_options *opt, ma_error *err);
MA_API void ma_opening_proof_free(ma_opening_proof *p);

/* The command result: verified (proven, no discrepancy), discrepancies, incomplete (the value is
 * not proven), a negative MA_E* code or a signal. NULL: MA_ENOMEM. */
MA_API int ma_opening_proof_result(const ma_opening_proof *p);
/* 1 when the search ran to its end (its value and comparisons are there to print). */
MA_API int ma_opening_proof_searched(const ma_opening_proof *p);
/* MA_OPENING_*; the value (depth meaningful only when PROVEN) and the bounds, side to move first. */
MA_API int ma_opening_proof_status(const ma_opening_proof *p);
MA_API ma_value ma_opening_proof_value(const ma_opening_proof *p);
MA_API void ma_opening_proof_bounds(const ma_opening_proof *p, ma_value *lower, ma_value *upper);
/* Placement entries whose stored value the proof refutes (distinct entries). */
MA_API uint64_t ma_opening_proof_discrepancies(const ma_opening_proof *p);
/* The stored start value as the reader names it ("win 13 (0xC00D) (std_0_0_3_3)"), NULL if absent. */
MA_API const char *ma_opening_proof_stored_start(const ma_opening_proof *p);
/* The audit run id, 0 when not recorded. */
MA_API int64_t ma_opening_proof_run_id(const ma_opening_proof *p);
/* Why the value is not proven (one line naming the absent sectors or unusable leaves), NULL when
 * it is proven or the search did not end. */
MA_API const char *ma_opening_proof_warning(const ma_opening_proof *p);
/* The error that kept the store from recording a finished or stopped search, NULL when none. */
MA_API const ma_error *ma_opening_proof_store_error(const ma_opening_proof *p);
/* Everything the proof's report shows (ma_opening_proof_print prints from this alone); the
 * pointers stay valid until the proof is freed. */
typedef struct ma_opening_facts {
    const char *database;       /* as given */
    ma_variant variant;
    int stones;
    ma_format format;           /* the database's */
    int compare;                /* placement values were compared */
    const ma_opening_result *result;
    const char *stored_start;   /* NULL when the database holds no start sector */
    const char *missing;        /* absent or excluded leaf sectors, ", "-joined ("" none) */
    uint64_t bad_leaves;        /* leaves whose entry held no value */
    const char *first_bad;      /* the first of those, one line naming file, sector, offset */
    int search_result;          /* the command result before recording (a document's "exit") */
} ma_opening_facts;

MA_API void ma_opening_proof_facts(const ma_opening_proof *p, ma_opening_facts *out);

/* Writes the proof: text for a terminal, or (json) the document of docs/json/opening.schema.json.
 * Returns 0, or -1 when writing failed or (json) the document could not be built whole (out of
 * memory: then nothing is written). */
MA_API int ma_opening_proof_print(FILE *out, const ma_opening_proof *p, int json);

/* ---- grade ------------------------------------------------------------------------------------ */

enum { MA_GRADE_OPTIMAL = 0, MA_GRADE_DEPTH_LOST = 1, MA_GRADE_BLUNDER = 2, MA_GRADE_CLASSES = 3 };
enum { MA_GRADE_PLACEMENT = 0, MA_GRADE_MOVING = 1, MA_GRADE_FLYING = 2, MA_GRADE_PHASES = 3 };
#define MA_GRADE_MAX_DEPTH 255 /* depths above are counted at 255 */
#define MA_GRADE_STONES 13

/* Graded moves of one group. */
typedef struct ma_grade_cell {
    uint64_t n[MA_GRADE_CLASSES]; /* moves per class */
    uint64_t chances;             /* moves where a blunder was possible (some turn is worse in outcome) */
} ma_grade_cell;

/* Counts of graded moves by group. Position value index: 0 loss, 1 draw, 2 win. */
typedef struct ma_grade_tally {
    ma_grade_cell total;
    ma_grade_cell phase[MA_GRADE_PHASES];
    ma_grade_cell stones[MA_GRADE_STONES][MA_GRADE_STONES]; /* [mover W+WF][opponent B+BF] */
    ma_grade_cell value[3][MA_GRADE_MAX_DEPTH + 1];          /* [outcome][depth]; draws at depth 0 */
} ma_grade_tally;

/* The facts of a grade run a report shows besides its tally. */
typedef struct ma_grade_report_info {
    const char *player;       /* "ab:material:3" */
    const char *database;     /* the database path */
    const char *variant;      /* "std" */
    const char *format;       /* "open" */
    const char *mode;         /* "positions" / "games" */
    uint64_t seed;
    uint64_t requested;
    const char *sectors;      /* positions: sampled sectors; NULL for games */
    uint64_t n_sectors;
    uint64_t skipped_no_turn, skipped_bad;
    int stones;               /* games: K */
    uint64_t games, player_wins, player_draws, player_losses, games_capped;
    double seconds, player_seconds;
    const char *status;       /* "ok", "unusable" (the player failed), "interrupted" */
    const char *message;      /* why, NULL when ok */
    int64_t run_id;           /* audit run id, 0 when not recorded */
} ma_grade_report_info;

#define MA_GRADE_MAX_SECTORS 256
#define MA_GRADE_DEFAULT_COUNT 1000 /* positions or games graded when the options say 0 */

/* The sectors to grade (`grade --sector`, repeatable, comma-separated): W_B_WF_BF or
 * <variant>_W_B_WF_BF. */
typedef struct ma_grade_sectors {
    ma_sector sector[MA_GRADE_MAX_SECTORS];
    size_t n;
    ma_variant variant;         /* the variant the names give, 0 when none names one */
} ma_grade_sectors;

/* Appends the sectors of text to l. MA_EUSAGE with the message to show: a malformed item, more
 * than MA_GRADE_MAX_SECTORS, sectors of two variants. */
MA_API int ma_grade_sectors_add(ma_grade_sectors *l, const char *text, ma_error *err);

typedef struct ma_grade_run_options {
    const char *database;       /* the database directory */
    int no_digest_check;
    const char *player;         /* ab:EVAL:DEPTH, random, cmd:COMMAND (docs/grading.md §2) */
    ma_variant variant;         /* 0: the one variant of the database (several: MA_EUSAGE) */
    int games;                  /* 0: positions mode; 1: games from 0_0_K_K */
    uint64_t count;             /* positions or games; 0: MA_GRADE_DEFAULT_COUNT */
    uint64_t seed;
    const ma_grade_sectors *sectors; /* positions: the sectors to sample; NULL or empty: every
                                      * gradable one */
    int stones;                 /* games: K; 0: the one start sector of the database */
    int max_plies;              /* games: ply cap; 0: 300 */
    double engine_timeout;      /* seconds per engine answer; 0: 10 */
    const char *audit_path;     /* record the run (kind "grade") and every move; NULL: none */
    const char *host, *cmdline; /* the run's identity for the store */
    ma_progress *progress;      /* graded positions or played games; NULL for none */
    const volatile sig_atomic_t *cancel; /* set to a signal number: stop, record, result signal */
} ma_grade_run_options;

typedef struct ma_grading ma_grading;

/* Grades the player. *out is set (free with ma_grading_free) unless it could not be allocated.
 * Returns MA_OK or the code of the error that stopped the run, err naming it: MA_EUSAGE for a
 * player spec that does not parse, a database of several variants without one chosen, a chosen
 * sector absent or not gradable, a database of several games without stones; the database's,
 * the engine's (MA_EFORMAT: protocol broken), the store's errors; MA_ECANCELED. Moves graded before
 * an error are kept (and recorded). Errors of the store after grading began are kept as notes. */
MA_API int ma_grade_run(ma_grading **out, const ma_grade_run_options *opt, ma_error *err);
MA_API void ma_grading_free(ma_grading *g);

/* The command result: MA_OK when graded, else the error's code or the signal. NULL: MA_ENOMEM. */
MA_API int ma_grading_result(const ma_grading *g);
/* Moves graded, and how many of them are optimal, depth-lost and blunders. */
MA_API uint64_t ma_grading_moves(const ma_grading *g);
MA_API void ma_grading_classes(const ma_grading *g, uint64_t *optimal, uint64_t *depth_lost,
                               uint64_t *blunders);
MA_API int64_t ma_grading_run_id(const ma_grading *g);
/* 1 when there is a report to print: the run ended, or moves were graded before it stopped. */
MA_API int ma_grading_reportable(const ma_grading *g);
/* The facts and the tally a report shows; valid until the grading is freed (NULL tally: nothing
 * graded). */
MA_API const ma_grade_report_info *ma_grading_info(const ma_grading *g);
MA_API const ma_grade_tally *ma_grading_tally(const ma_grading *g);
/* Errors after the first, in order (writing the store): n = ma_grading_notes, then each one. */
MA_API size_t ma_grading_notes(const ma_grading *g);
MA_API const ma_error *ma_grading_note(const ma_grading *g, size_t i);

/* The report of a grade run already in the store (read only), recomputed from its moves.
 * MA_EMISSING / MA_EFORMAT for a store or run that is not there or not a grade run. */
MA_API int ma_grading_load(ma_grading **out, const char *audit_path, int64_t run_id, ma_error *err);

/* Writes the report: text, or (json) the document of docs/json/grade.schema.json whose "exit"
 * field is exit_code. Returns 0, or -1 when writing failed or (json) the document could not be
 * built whole (out of memory: then nothing is written). */
MA_API int ma_grading_print(FILE *out, const ma_grading *g, int json, int exit_code);
/* Writes the self-contained HTML report to path (a regular file replaced atomically). */
MA_API int ma_grading_write_html(const char *path, const ma_grading *g, ma_error *err);

#ifdef __cplusplus
}
#endif

#endif
