/*
 * The audit store's tables for game-level audits (schema version 5, docs/audit-schema.md):
 * `opening_results` (millaudit opening: one row per run) and `grade_runs` / `grade_moves`
 * (millaudit grade: the player, the sample, and one row per graded move), plus the tally of
 * graded moves by phase, stones and position value that reports render.
 *
 * Every writer is one transaction, so a run stopped at any point keeps whole rows: a grade run
 * adds its moves in batches and an interrupted one keeps every batch already added.
 */
#ifndef MA_AUDIT_GAME_H
#define MA_AUDIT_GAME_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "millaudit/game.h"
#include "reports/store/audit.h"

/* ---- opening ---- */

typedef struct ma_audit_opening {
    const char *variant;        /* "std" */
    int stones;                 /* K */
    const char *root;           /* "std_0_0_5_5" */
    const char *root_board;     /* "-/-" for the empty board */
    const char *status;         /* "proven", "outcome-proven", "unproven" */
    const char *value_outcome;  /* NULL when unproven */
    int value_depth;            /* -1: NULL (draw, or depth not proven) */
    const char *lower_outcome, *upper_outcome;
    int lower_depth, upper_depth; /* -1: NULL (draw) */
    const char *stored_start;   /* the stored start value as the reader names it; NULL if absent */
    const char *pv, *pv_end;
    int passes;
    uint64_t nodes, leaves, unknown_leaves, tt_probes, tt_hits, tt_entries;
    uint64_t exact_checked, bound_checked, discrepancies;
    const char *missing_sectors; /* leaves' sectors that were absent or excluded, NULL if none */
    const char *only_sectors;    /* --only-sectors as given, NULL if not */
    double seconds;
} ma_audit_opening;

/* The comparisons of one placement sector (a sector_results row, class "opening"). */
typedef struct ma_audit_opening_sector {
    const char *sector, *file;
    uint64_t entries, exact_checked, exact_agreed, bound_checked, bound_agreed, discrepancies;
} ma_audit_opening_sector;

/* One discrepancy (a discrepancies row of class "opening" with the structured v4 columns). */
typedef struct ma_audit_opening_row {
    const char *sector;
    uint64_t entry;
    const char *board, *stored, *derived;
    const char *stored_outcome;  /* "win" / "loss" / "draw" / "bad" */
    int stored_depth;            /* -1: NULL */
    const char *derived_outcome;
    int derived_depth;           /* -1: NULL */
    const char *derived_bound;   /* "exact", "lower" (true value >= derived), "upper" (<=) */
} ma_audit_opening_row;

/* Records an opening run's comparisons (sector_results, sector_class_counts, discrepancies) and,
 * when r is non-NULL, its opening_results row, all in one transaction. */
int ma_audit_opening_record(ma_audit *a, int64_t run_id, const ma_audit_opening *r,
                            const ma_audit_opening_sector *sectors, size_t n_sectors,
                            const ma_audit_opening_row *rows, size_t n_rows, ma_error *err);

/* ---- grade ---- */

/* MA_GRADE_OPTIMAL.., MA_GRADE_PLACEMENT.., ma_grade_cell, ma_grade_tally: millaudit/game.h */
/* "optimal", "depth-lost", "blunder" / "placement", "moving", "flying". */
const char *ma_grade_class_name(int cls);
const char *ma_grade_phase_name(int phase);


typedef struct ma_audit_grade_run {
    const char *player;       /* "ab:material:3", "cmd:/path/engine" */
    const char *mode;         /* "positions" or "games" */
    uint64_t seed;
    uint64_t requested;       /* positions or games asked for */
    const char *sectors;      /* the sampled sectors, comma-separated, if known at the start; NULL */
    int max_plies;            /* games: the ply cap; 0 for positions */
} ma_audit_grade_run;

/* One graded move. */
typedef struct ma_audit_grade_move {
    uint64_t seq;             /* 0, 1, ... within the run */
    int64_t game;             /* game number, -1 in positions mode */
    int ply;                  /* ply in the game, -1 in positions mode */
    const char *sector;       /* "std_5_4_0_0" */
    const char *board;        /* the position as the player saw it (docs/format.md §6) */
    int phase;                /* MA_GRADE_PLACEMENT.. */
    int mover_stones, opponent_stones; /* W+WF, B+BF */
    int turns, optimal_turns, blunder_possible;
    int value_outcome, value_depth;    /* the position's value (ma_outcome, plies) */
    const char *move;         /* "d1-d2xg7" */
    int move_outcome, move_depth;      /* the value the move keeps, side to move's view */
    int cls;                  /* MA_GRADE_* */
    double seconds;           /* the player's time for the move */
} ma_audit_grade_move;

int ma_audit_grade_begin(ma_audit *a, int64_t run_id, const ma_audit_grade_run *g, ma_error *err);
/* Adds n moves in one transaction. */
int ma_audit_grade_moves_add(ma_audit *a, int64_t run_id, const ma_audit_grade_move *m, size_t n,
                             ma_error *err);
/* What a grade run established besides its moves. */
typedef struct ma_audit_grade_totals {
    uint64_t graded;          /* moves recorded */
    uint64_t skipped_no_turn, skipped_bad; /* positions redrawn: no turn / unusable successor */
    const char *sectors;      /* positions: the sampled sectors, comma-separated; NULL keeps what
                               * grade_begin wrote */
    uint64_t n_sectors;
    int games_mode;           /* 1: the game columns below are meaningful (else stored NULL) */
    int stones;
    uint64_t games, player_wins, player_draws, player_losses, games_capped;
    double seconds, player_seconds;
    const char *message;      /* why the run stopped early, NULL when it did not */
} ma_audit_grade_totals;

int ma_audit_grade_end(ma_audit *a, int64_t run_id, const ma_audit_grade_totals *t, ma_error *err);

/* A stored grade run's facts (strings malloc'd; free with ma_audit_grade_stored_free). */
typedef struct ma_audit_grade_stored {
    char *player, *mode, *sectors, *message, *database, *variant, *format, *status;
    uint64_t seed, requested;
    int max_plies;
    ma_audit_grade_totals totals; /* its sectors and message point into the strings above */
} ma_audit_grade_stored;

/* Reads the grade_runs row of run_id with its runs facts. MA_EMISSING when it is no grade run. */
int ma_audit_grade_read(ma_audit *a, int64_t run_id, ma_audit_grade_stored *out, ma_error *err);
void ma_audit_grade_stored_free(ma_audit_grade_stored *g);
/* Tallies the stored moves of a grade run (for reports of a stored run). MA_EMISSING when the run
 * has no grade_runs row. */
int ma_audit_grade_load(ma_audit *a, int64_t run_id, ma_grade_tally *out, ma_error *err);

/* Adds count moves of one kind to a tally (value_outcome: ma_outcome numbering, 1 loss .. 3 win). */
void ma_grade_tally_add(ma_grade_tally *t, int phase, int mover_stones, int opponent_stones,
                        int value_outcome, int value_depth, int cls, int blunder_possible,
                        uint64_t count);

/* Wilson score interval of x successes in n trials at z = 1.96 (95 %); [0, 1] when n = 0. */
void ma_wilson95(uint64_t x, uint64_t n, double *lo, double *hi);

#endif
