/*
 * Gasser's opening proof: the value of the start position of a placement game, by negamax
 * alpha-beta over the placement phase whose leaves are movement-phase positions (sectors
 * W_B_0_0) valued by a database (docs/opening.md).
 *
 * What is proven. The value of a placement position is the value of docs/format.md §2 (win in n /
 * loss in n plies, draw) of the same game the database encodes; a placement node's value is the
 * best negated value of its turns, a turn that wins by reduction is a win in 1, a leaf's value is
 * the database's. With every leaf known the search returns the exact value of the root, outcome
 * AND depth, because scores order values exactly as the format does (wins by shorter depth, losses
 * by longer depth, any draw between) and the tree is searched with a window that separates every
 * two values. Nothing is estimated: there is no depth cut-off (the placement tree is finite: each
 * ply puts a stone from a hand on the board).
 *
 * Missing leaves (Gasser's bounds). A leaf the oracle cannot value takes the interval
 * [loss in 0, win in 1], the whole value order. The search then runs twice: a pessimistic pass
 * (every unknown leaf as bad as possible for the side to move at the root) giving a lower bound of
 * the root value, and an optimistic pass giving an upper bound; the value is proven when both
 * agree (outcome and depth), the outcome alone is proven when both bounds have one outcome.
 * Results that depend on no unknown leaf ("untainted") are exact and are compared with the
 * database like those of a complete search.
 *
 * Scores are root-relative: a win ending at ply P from the root scores MA_OPENING_MATE - P for the
 * side that wins, the loser -(MA_OPENING_MATE - P), a draw 0. In a placement game the ply of a
 * position is a function of the stones in hand (2K - WF - BF), and the transposition table is
 * keyed on the board and both hands, so a stored score means the same wherever it is found.
 *
 * Transposition table: a fixed budget of bytes, 16-byte entries in 4-way buckets (one cache
 * line), keyed exactly (canonical board under the 16 symmetries of docs/format.md §4.1, both
 * hands) so no two positions ever share an entry. Replacement: a result replaces the entry of the
 * same position (unless that one is exact and the new one only a bound), else an empty slot, else
 * the slot whose subtree took the least search effort (log2 of the nodes searched below it).
 *
 * Move ordering: the table's best move, then turns that close a mill, then turns that occupy the
 * third point of an opponent's two-in-a-row, then a history score of each destination point
 * (raised by 2^plies-left whenever a turn there causes a cut-off), then points with more
 * neighbours. Before the full window the root is searched with the window (-1, 1) around the draw
 * (aspiration): a draw is then proven with the cheapest possible search.
 *
 * Comparisons. With an oracle that reads stored placement values, every result the search
 * establishes for a placement position (exact, or a bound after a cut-off) is compared with the
 * stored value of that position: an exact result must equal it (outcome and depth), a lower bound
 * must not exceed it, an upper bound must not be below it. A disagreement is a discrepancy of
 * class "opening" (reported once per sector entry). A position is compared each time the search
 * resolves it (after a table replacement it may be resolved again), so the counts are of results,
 * not of distinct positions.
 *
 * Threading: single-threaded; the oracle is only called from the calling thread.
 */
#ifndef MA_VERIFIER_OPENING_H
#define MA_VERIFIER_OPENING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "verifier/formats/source.h"
#include "verifier/formats/value.h"
#include "indexer/position.h"
#include "millaudit/game.h"

#define MA_OPENING_MATE (1 << 20)

/* Return values of an oracle's leaf function. */
enum { MA_OPENING_UNKNOWN = 0, MA_OPENING_KNOWN = 1 };

/* A stored placement value, as the oracle found it. */
typedef struct ma_opening_stored {
    int usable;          /* 1: value is a well-formed value; 0: the entry holds none (bad bytes) */
    ma_value value;
    uint64_t entry;      /* entry number in the sector file */
    char sector[40];     /* "std_2_2_2_2" */
    char path[512];      /* the sector file, for the audit store */
    char describe[64];   /* the reader's name of the entry, e.g. "win 13 (0xC00D)" */
    uint64_t entries;    /* entries in the sector file */
} ma_opening_stored;

/* Where the search gets values from. The search never reads files itself. */
typedef struct ma_opening_oracle {
    void *ctx;
    /* The value of a movement-phase position (sector s with WF = BF = 0, board b, side to move's
     * view): MA_OPENING_KNOWN with *out set, MA_OPENING_UNKNOWN when it cannot be given (sector
     * absent or excluded, entry unusable), or a negative MA_E* code with err set (stops the
     * search). */
    int (*leaf)(void *ctx, ma_sector s, ma_board b, ma_value *out, ma_error *err);
    /* Optional (NULL: no comparisons). The stored value of placement position b of sector s:
     * 1 with *out set, 0 when the database has no such sector, or a negative MA_E* code. */
    int (*stored)(void *ctx, ma_sector s, ma_board b, ma_opening_stored *out, ma_error *err);
} ma_opening_oracle;

typedef struct ma_opening_options {
    ma_variant variant;         /* std or mora (lask mixes placing and moving: no finite tree) */
    int stones;                 /* K: the game of sector 0_0_K_K */
    /* Optional start other than the empty board: a placement position (start_sector.wf >= 1,
     * wf - bf in {0, 1}, counts consistent with K). */
    int has_start;
    ma_sector start_sector;
    ma_board start;
    size_t tt_bytes;            /* transposition table budget; at least 64 (one bucket) */
    size_t max_rows;            /* discrepancy rows kept (counts stay exact); 0 = 1000 */
    ma_progress *progress;      /* nodes searched; NULL for none */
    const volatile sig_atomic_t *cancel; /* set non-zero: stop with MA_ECANCELED */
} ma_opening_options;

/* ma_opening_pass, ma_opening_tally, ma_opening_discrepancy, ma_opening_result: millaudit/game.h */

/* Proves the start value (see the contract above). *out is overwritten; free it with
 * ma_opening_result_free (also after an error: partial comparisons are kept in it, e.g. to record
 * the discrepancies found before an interruption).
 * Errors: MA_EINVAL (variant lask, K out of range, bad start, tt_bytes < 64), MA_ENOMEM,
 * MA_ECANCELED, or the oracle's error. */
int ma_opening_prove(const ma_opening_options *opt, const ma_opening_oracle *oracle,
                     ma_opening_result *out, ma_error *err);
void ma_opening_result_free(ma_opening_result *r);

/* Converts a root-relative score of a position at `ply` into its value (side to move's view). */
ma_value ma_opening_score_value(int32_t score, int ply);
/* The inverse: the root-relative score of value v of a position at `ply`. */
int32_t ma_opening_value_score(ma_value v, int ply);

/* ---- the oracle over a database (verifier/formats/source.h) ---- */

typedef struct ma_opening_db ma_opening_db;

/* An oracle reading leaves from the movement sectors of variant v in db, and stored placement
 * values from its placement sectors. only (n_only > 0) restricts the leaves to the listed
 * movement sectors, as if the others were absent. MA_EINVAL when a listed sector is no movement
 * sector of v; MA_ENOMEM. db stays owned by the caller and must outlive the oracle. */
int ma_opening_db_create(ma_opening_db **out, ma_database *db, ma_variant v, const ma_sector *only,
                         size_t n_only, ma_error *err);
void ma_opening_db_free(ma_opening_db *o);
/* Fills *out with the oracle's functions; compare = 0 leaves out the stored-value function. */
void ma_opening_db_oracle(ma_opening_db *o, int compare, ma_opening_oracle *out);
/* Leaves whose entry held no well-formed value (treated as unknown) and the first one's
 * one-line description (file, sector, offset), "" when none. */
uint64_t ma_opening_db_bad_leaves(const ma_opening_db *o);
const char *ma_opening_db_first_bad(const ma_opening_db *o);
/* Movement sectors a leaf was asked of that the oracle could not use (absent, excluded): a
 * sorted list of names "std_4_4_0_0" joined by ", " into buf. Returns how many. */
size_t ma_opening_db_missing(const ma_opening_db *o, char *buf, size_t len);
/* The files of db the oracle opened (sector files, then auxiliary files), names inside
 * ma_database_dir; for recording what a run read. */
size_t ma_opening_db_files(const ma_opening_db *o, const char **names, size_t max);

#endif
