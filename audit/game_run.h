/*
 * The handles of the two game engines of millaudit/game.h (ma_opening_proof, ma_grading), shared
 * by the engines that fill them (audit/opening_run.c, audit/grade_run.c) and the renderers that
 * print them (render/opening_report.c, render/grade_report.c). Nothing else reads these fields:
 * programs use the accessors of the public header.
 */
#ifndef MA_AUDIT_GAME_RUN_H
#define MA_AUDIT_GAME_RUN_H

#include <stdint.h>

#include "millaudit/game.h"
#include "audit/grade.h"
#include "audit/opening.h"

struct ma_opening_proof {
    int result;                 /* the command result (common/verdict.h) */
    int search_result;          /* the verdict before recording: the JSON document's "exit" */
    int searched;               /* the search ran to its end */
    char *database;             /* as given */
    ma_variant variant;
    int stones;
    ma_format format;
    int compare;
    ma_opening_result res;
    int have_stored_start;
    char stored_start[128];
    char missing[2048];         /* absent or excluded leaf sectors, ", "-joined */
    uint64_t bad_leaves;        /* leaves whose entry held no value */
    char first_bad[600];
    char warning[3600];         /* why the value is not proven, "" when it is */
    int has_store_error;
    ma_error store_error;
    int64_t run_id;
};

/* The facts of a grade run a report shows besides its tally (render/grade_report.h). */
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

#define MA_GRADING_NOTES 4

struct ma_grading {
    int result;                 /* the command result (common/verdict.h) */
    int reportable;             /* there is a report: the run ended or graded moves first */
    ma_grade_report_info info;  /* its strings point into the fields below or static names */
    const ma_grade_tally *tally;
    ma_grade_result *res;       /* a live run's result (NULL for a stored one) */
    ma_grade_tally *stored_tally; /* a stored run's tally (NULL for a live one) */
    ma_audit_grade_stored stored; /* a stored run's facts */
    int has_stored;
    char *database;
    char player[600];           /* the player's canonical name */
    char status[16];            /* "ok", "unusable", "interrupted" */
    char message[600];          /* why the run stopped early, "" when it did not */
    int64_t run_id;
    size_t n_notes;
    ma_error notes[MA_GRADING_NOTES];
};

#endif
