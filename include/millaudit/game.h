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
 * command result of common/verdict.h (what the run proved, the error or the signal that stopped
 * it), which ma_result_exit_code maps to the exit status of the README table.
 */
#ifndef MILLAUDIT_GAME_H
#define MILLAUDIT_GAME_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "millaudit/types.h"

/* ---- opening ---------------------------------------------------------------------------------- */

/* What the opening proof established about the start value. */
enum {
    MA_OPENING_UNPROVEN = 0,        /* the bounds differ in outcome */
    MA_OPENING_OUTCOME_PROVEN = 1,  /* both bounds have the same outcome, depths differ */
    MA_OPENING_PROVEN = 2           /* outcome and depth */
};

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
 * (variant lask, too many stones, an --only-sectors item that is malformed or no movement sector),
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
/* Writes the proof: text for a terminal, or (json) the document of docs/json/opening.schema.json.
 * Returns 0, or -1 when writing failed. */
MA_API int ma_opening_proof_print(FILE *out, const ma_opening_proof *p, int json);

/* ---- grade ------------------------------------------------------------------------------------ */

#define MA_GRADE_MAX_SECTORS 256

/* The sectors --sector names (repeatable, comma-separated): W_B_WF_BF or <variant>_W_B_WF_BF. */
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
    uint64_t count;             /* positions or games, >= 1 */
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
    uint64_t stop_after_moves;  /* tests: stop as if interrupted after this many moves; 0 never */
} ma_grade_run_options;

typedef struct ma_grading ma_grading;

/* Grades the player. *out is set (free with ma_grading_free) unless it could not be allocated.
 * Returns MA_OK or the code of the error that stopped the run, err naming it: MA_EUSAGE for a
 * player spec that does not parse, a database of several variants without one chosen, a chosen
 * sector absent or not gradable, a database of several games without --stones; the database's,
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
/* Errors after the first, in order (writing the store): n = ma_grading_notes, then each one. */
MA_API size_t ma_grading_notes(const ma_grading *g);
MA_API const ma_error *ma_grading_note(const ma_grading *g, size_t i);

/* The report of a grade run already in the store (read only), recomputed from its moves.
 * MA_EMISSING / MA_EFORMAT for a store or run that is not there or not a grade run. */
MA_API int ma_grading_load(ma_grading **out, const char *audit_path, int64_t run_id, ma_error *err);

/* Writes the report: text, or (json) the document of docs/json/grade.schema.json whose "exit"
 * field is exit_code. Returns 0, or -1 when writing failed. */
MA_API int ma_grading_print(FILE *out, const ma_grading *g, int json, int exit_code);
/* Writes the self-contained HTML report to path (a regular file replaced atomically). */
MA_API int ma_grading_write_html(const char *path, const ma_grading *g, ma_error *err);

#endif
