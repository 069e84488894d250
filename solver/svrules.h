/*
 * svrules: the game rules of std, lask and mora as the reference producer implements them
 * (docs/format.md §2, malom-format.md §2), in the open point numbering of docs/format.md §1.
 *
 * A position is seen from the mover: mover mask w, opponent mask b, sector (W, B, WF, BF).
 * ma_svrules_turns enumerates every turn (placing or moving, with its removal) and reports where
 * each one leads: an immediate win (the removal leaves the opponent with <= 2 stones) or a stored
 * position, already colour-swapped into the successor's sector (negate of the mover-frame
 * quadruple). ma_svrules_unmoves enumerates the predecessors that reach a position by a non-mill
 * move, which are the only turns that stay inside a cyclic component.
 *
 * A planted bug (test-only, MA_SVBUG_*) changes the rules in one named way so the checker's tests
 * can prove they notice; MA_SVBUG_NONE gives the true rules. The bug hooks exist only when the
 * library is compiled with MA_PLANT_BUGS (the test-only library ma_solver_planted behind the
 * `millaudit-planted` executable); in the production library they compile to nothing and
 * ma_svrules_init refuses every bug but MA_SVBUG_NONE, so no release binary can write a
 * deliberately wrong database.
 */
#ifndef MA_SVRULES_H
#define MA_SVRULES_H

#include <stdint.h>

#include "common/ma_error.h"

enum { MA_SV_STD = 1, MA_SV_LASK = 2, MA_SV_MORA = 3 };

enum {
    MA_SVBUG_NONE = 0,
    MA_SVBUG_REMOVAL_FROM_MILL, /* a stone in a mill may be removed although others are free */
    MA_SVBUG_FLY_EARLY,         /* flying already with 4 stones on board + in hand */
    MA_SVBUG_DOUBLE_REMOVAL,    /* closing two mills at once removes two stones */
    MA_SVBUG_BLOCKED_NOT_LOST,  /* a side without a legal turn is a draw, not a loss */
    MA_SVBUG_DEPTH_IN_MOVES,    /* depths written in own moves, (plies + 1) / 2 */
    MA_SVBUG_COUNT
};

#define MA_SV_FULL 0xFFFFFFu

/* Whether rules r carry planted bug b; constant 0 in the production library. Only for solver/
 * sources, which are compiled once per library. */
#ifdef MA_PLANT_BUGS
#define MA_SV_HAS_BUG(r, b) ((r)->bug == (b))
#else
#define MA_SV_HAS_BUG(r, b) ((void)(r), 0)
#endif

/* Bit count without a library call: the default target has no popcnt instruction and
 * __builtin_popcount becomes a slow out-of-line helper in the hot paths. */
static inline int ma_sv_popcount(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* A sector (W, B, WF, BF), mover's view. */
typedef struct ma_sv_sector {
    int w, b, wf, bf;
} ma_sv_sector;

typedef struct ma_svrules {
    int variant;           /* MA_SV_* */
    int stones;            /* N: 9, 10, 12 */
    int bug;               /* MA_SVBUG_* */
    int fly_limit;         /* a side flies when its board + hand stones <= fly_limit */
    int nlines;
    uint32_t lines[20];
    uint32_t adj[24];
    int nlines_at[24];
    uint32_t lines_at[24][3];
} ma_svrules;

/* Result of one turn. */
enum { MA_SVTURN_WIN = 1, MA_SVTURN_STORED = 2 };
typedef struct ma_sv_turn {
    int kind;              /* MA_SVTURN_WIN: win in 1 ply, nothing stored */
    int internal;          /* non-mill move: the only kind of turn that can stay in a component */
    ma_sv_sector sector;   /* successor's stored sector (already negated) */
    uint32_t w, b;         /* successor board from the successor's mover */
} ma_sv_turn;

typedef void (*ma_sv_turn_fn)(void *ctx, const ma_sv_turn *turn);
typedef void (*ma_sv_board_fn)(void *ctx, uint32_t w, uint32_t b);

/* Fills r for variant (MA_SV_*) and bug (MA_SVBUG_*). MA_EINVAL for a planted bug in a library
 * built without MA_PLANT_BUGS. */
int ma_svrules_init(ma_svrules *r, int variant, int bug, ma_error *err);
/* 1 in the test-only library that carries the planted-bug hooks, 0 in production. */
int ma_svrules_bugs_compiled(void);

/* "std" -> MA_SV_STD ...; 0 when unknown. */
int ma_svrules_variant_parse(const char *name);
const char *ma_svrules_variant_name(int variant);
/* "fly-early" -> MA_SVBUG_FLY_EARLY ...; -1 when unknown. */
int ma_svrules_bug_parse(const char *name);
const char *ma_svrules_bug_name(int bug);

/* Number of mill lines through point d fully occupied by mask m. */
int ma_svrules_mills_at(const ma_svrules *r, uint32_t m, int d);
/* Union of the complete mills of mask m. */
uint32_t ma_svrules_mill_points(const ma_svrules *r, uint32_t m);
/* Opponent stones a mill-closing turn may remove (honours the removal-from-mill bug). */
uint32_t ma_svrules_removable(const ma_svrules *r, uint32_t b);

/* Valid for the variant (docs/format.md §3). */
int ma_svrules_sector_valid(const ma_svrules *r, ma_sv_sector s);
ma_sv_sector ma_svrules_negate(ma_sv_sector s);
int ma_svrules_sector_eq(ma_sv_sector a, ma_sv_sector b);
/* Mora's full board: every position of 12_12_0_0 is a draw. */
int ma_svrules_full_board_draw(const ma_svrules *r, ma_sv_sector s);

/* Calls fn for every turn of (w, b) in s; returns the number of turns (0: the mover is blocked). */
int ma_svrules_turns(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b,
                     ma_sv_turn_fn fn, void *ctx);

/* Calls fn(pw, pb) for every board of sector negate(s) from which a non-mill move (slide or fly)
 * leads to (w, b) in s; returns how many (duplicates possible under symmetry). */
int ma_svrules_unmoves(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b,
                       ma_sv_board_fn fn, void *ctx);

#endif
