/*
 * Grading a player against a perfect database (docs/grading.md): every move the player makes is
 * compared with the values of all legal turns, read from the database through verifier/formats/source.h.
 *
 * The value of a turn is the negated stored value of its successor (win in 1 for a turn that wins
 * by reduction); the position's value is the best turn value (for a consistent database, its stored
 * value). A move is
 *   optimal     its value equals the position's value (outcome and depth),
 *   depth-lost  same outcome, worse depth (a slower win, a faster loss),
 *   blunder     worse outcome (win -> draw or loss, draw -> loss).
 * A blunder is "possible" at a position when some turn has a worse outcome than the best.
 *
 * Two ways to get positions:
 *   positions  N positions drawn uniformly from all positions of the chosen sectors (default: every
 *              sector of the variant in the database whose successor sectors are all present).
 *              A sector is drawn with probability proportional to its number of positions,
 *              C(24, W) * C(24 - W, B) (every placement of W and B stones is a position); then an
 *              entry uniformly; a non-canonical entry is redrawn; a canonical entry is kept with
 *              probability orbit / 16 (its number of symmetric positions), else redrawn; finally
 *              one of the 16 symmetry operations, uniformly, is applied to its board. Each position
 *              of the sector thus has probability 1/16 per draw before rejection: uniform. Positions
 *              whose side to move has no turn are redrawn (nothing to grade); so are positions with
 *              an unusable stored successor (counted and named).
 *   games      N games from 0_0_K_K against the perfect player (which picks uniformly among the
 *              optimal turns); the graded player moves first in even-numbered games. A game ends by
 *              a win, a side without a turn, or the ply cap (a draw by cap). Needs every sector of
 *              the K-stone game in the database.
 * Everything random comes from two generators seeded from opt->seed: one draws the positions and
 * makes the perfect player's choices, the other the graded player's (tie-breaks, random). The
 * same seed, database and player give the same results; the same seed gives every player the same
 * positions (a paired comparison), whatever randomness the player consumes. In games the positions
 * depend on the player's moves, so only the first position is shared.
 */
#ifndef MA_VERIFIER_GRADE_H
#define MA_VERIFIER_GRADE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/source.h"
#include "verifier/formats/value.h"
#include "reports/store/audit_game.h"
#include "verifier/audit/player.h"
#include "millaudit/game.h"

/* One graded move. */
typedef struct ma_grade_move {
    uint64_t seq;              /* 0, 1, ... within the run */
    int64_t game;              /* game number, -1 in positions mode */
    int ply;                   /* ply of the game, -1 in positions mode */
    ma_sector sector;
    char sector_name[40];      /* "std_5_4_0_0" */
    ma_board board;            /* as the player saw it */
    int phase;                 /* MA_GRADE_PLACEMENT / MOVING / FLYING */
    int mover_stones, opponent_stones; /* W + WF, B + BF */
    int turns, optimal_turns, blunder_possible;
    ma_value value;            /* the position's value */
    char move[24];             /* the player's turn, "d1-d2xg7" */
    ma_value move_value;       /* the value that turn keeps (side to move's view) */
    int cls;                   /* MA_GRADE_OPTIMAL / DEPTH_LOST / BLUNDER */
    double seconds;            /* the player's time */
} ma_grade_move;

typedef struct ma_grade_options {
    ma_variant variant;
    int games;                 /* 0: positions mode; 1: games mode */
    uint64_t count;            /* positions or games, >= 1 */
    uint64_t seed;
    const ma_sector *sectors;  /* positions: sectors to sample; n_sectors = 0: every gradable one */
    size_t n_sectors;
    int stones;                /* games: K; 0: the one 0_0_K_K sector the database holds */
    int max_plies;             /* games: ply cap; 0: 300 */
    ma_progress *progress;     /* graded positions or played games; NULL for none */
    const volatile sig_atomic_t *cancel; /* non-zero: stop with MA_ECANCELED */
    /* Stop with MA_ECANCELED, as if *cancel had become non-zero, once this many moves are graded
     * (0: never). Only the test build of the CLI sets it (MILLAUDIT_TEST_STOP_AFTER_MOVES,
     * cli/test_hook.h), so a test interrupts at a known point instead of racing a signal. */
    uint64_t stop_after_moves;
    /* Called with every graded move, in order, as soon as it is graded; a non-zero return stops
     * the run with that code. NULL for none. */
    int (*on_move)(void *ctx, const ma_grade_move *m, ma_error *err);
    void *ctx;
} ma_grade_options;

typedef struct ma_grade_result {
    ma_grade_tally tally;
    uint64_t graded;           /* moves graded */
    uint64_t skipped_no_turn;  /* drawn positions without a turn (redrawn) */
    uint64_t skipped_bad;      /* drawn positions with an unusable stored successor (redrawn) */
    char first_bad[600];       /* the first of those, one line with file, sector, offset */
    uint64_t games, player_wins, player_draws, player_losses, games_capped;
    int stones;                /* games: K */
    char sectors[4096];        /* positions: the sampled sectors, comma-separated */
    size_t n_sectors;
    size_t ungradable_sectors; /* positions, default choice: sectors left out for an absent successor */
    double seconds, player_seconds;
} ma_grade_result;

/* Grades player p (see above). The result keeps what was graded before an error too.
 * Errors: MA_EINVAL (count 0), MA_EUSAGE (what the options ask the database refutes: a chosen
 * sector not in the database or not gradable, its message naming the absent successor; several
 * games and no stones chosen), MA_EMISSING (no gradable sector; games: a sector of the game
 * absent), the database's errors (unusable files), the player's (engine protocol: MA_EFORMAT),
 * the callback's, MA_ECANCELED. */
int ma_grade_play(ma_database *db, ma_player *p, const ma_grade_options *opt, ma_grade_result *out,
                 ma_error *err);

/* Class of a move of value mv in a position of value best. */
int ma_grade_classify(ma_value best, ma_value mv);
/* Phase of a position of sector s: placement while the side to move has stones in hand, flying
 * with W + WF <= 3, moving otherwise. */
int ma_grade_phase(ma_sector s);

/* ma_grade_run (millaudit/game.h) with the test build's stop after stop_after_moves graded moves
 * (0: never; cli/test_hook.c, millaudit-planted only): not part of the public options. */
int ma_grade_run_hooked(ma_grading **out, const ma_grade_run_options *opt, uint64_t stop_after_moves,
                        ma_error *err);

#endif
