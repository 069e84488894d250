/*
 * The checker's own game rules (docs/format.md §1-§3, malom-format.md §2), by forward move
 * generation on open-numbered boards.
 *
 * Contract: for a position of a sector, ma_vrules_generate lists EVERY turn of the mover,
 * including each removal choice after a mill, as either an "immediate win" (the removal leaves the
 * opponent with board + hand <= 2) or a successor: the colour-swapped board, stored in the sector
 * rules->succ[kind]. Duplicated successors (two turns to the same board) are listed twice; that
 * never changes a maximum. No successor and no immediate win means the mover has no turn (loss in
 * 0), except on a full mora board (rules->full_board_draw), which is a draw.
 *
 * Rules encoded (from the mover's view, sector W_B_WF_BF):
 *  - std, mora: place while WF > 0, otherwise move; lask: place if WF > 0, move if W > 0.
 *  - moving slides to an adjacent free point, or flies to any free point when W + WF <= 3;
 *    mora adds the four diagonals as edges and mill lines.
 *  - a turn whose destination completes a mill line of mover stones removes exactly one opponent
 *    stone (one even for a double mill); stones in opponent mills are protected unless every
 *    opponent stone is in a mill; if the opponent has no stone on the board the turn does not exist.
 *
 * Written from the spec only; the producer (solver/) has its own, unshared implementation.
 * An initialised ma_vrules is read-only and may be shared by threads; generate allocates nothing.
 */
#ifndef MA_VERIFIER_RULES_H
#define MA_VERIFIER_RULES_H

#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/position.h"

/* Turn kinds: which successor sector a turn leads to (malom-format.md §2.2). */
enum {
    MA_TURN_PLACE = 0,      /* place, no mill: (W+1, B, WF-1, BF) */
    MA_TURN_PLACE_MILL = 1, /* place, mill:    (W+1, B-1, WF-1, BF) */
    MA_TURN_MOVE = 2,       /* move, no mill:  (W, B, WF, BF) */
    MA_TURN_MOVE_MILL = 3,  /* move, mill:     (W, B-1, WF, BF) */
    MA_TURN_KINDS = 4
};

/* A safe bound on the turns of any position of any variant (checked while generating). */
#define MA_VRULES_MAX_TURNS 1024

typedef struct ma_vrules {
    ma_variant variant;
    ma_sector sector;
    uint32_t adj[MA_POINTS];          /* neighbour masks of the variant's board */
    uint32_t lines[20];               /* mill lines of the variant */
    int n_lines;
    uint32_t partners[MA_POINTS][3];  /* for each point, the other two points of each line through it;
                                         unused slots UINT32_MAX (never inside a mover mask) */
    uint8_t n_partners[MA_POINTS];
    int can_place;                    /* WF > 0 */
    int can_move;                     /* std/mora: WF == 0; lask: W > 0 */
    int flying;                       /* W + WF <= 3 */
    int mill_wins;                    /* B + BF <= 3: every mill-closing turn wins at once */
    int full_board_draw;              /* mora 12_12_0_0 */
    int succ_exists[MA_TURN_KINDS];   /* a stored sector exists for this kind of turn */
    ma_sector succ[MA_TURN_KINDS];    /* stored sector (already negated) for each kind */
} ma_vrules;

/* The turns of one position. */
typedef struct ma_vturns {
    int n;                                 /* successors listed */
    int immediate_wins;                    /* turns that win at once by reduction */
    ma_board succ[MA_VRULES_MAX_TURNS];    /* colour-swapped successor boards */
    uint8_t kind[MA_VRULES_MAX_TURNS];     /* MA_TURN_* of each successor */
} ma_vturns;

/* Prepares the rules of variant v for positions of sector s. MA_EINVAL if v is unknown or s is
 * not a valid sector of v. */
int ma_vrules_init(ma_vrules *r, ma_variant v, ma_sector s, ma_error *err);

/* Lists every turn of the mover in pos (which must belong to r->sector). Returns 0, or
 * MA_EINTERNAL if the turn bound were exceeded (never for a valid position). */
int ma_vrules_generate(const ma_vrules *r, ma_board pos, ma_vturns *out);

/* Non-zero when placing/moving the mover to point d (mover mask after the turn = mover) closes a
 * mill. */
int ma_vrules_closes_mill(const ma_vrules *r, uint32_t mover, int d);

/* The opponent stones a mill-closing turn may remove (0 if the opponent has none on the board). */
uint32_t ma_vrules_removable(const ma_vrules *r, uint32_t opp);

#endif
