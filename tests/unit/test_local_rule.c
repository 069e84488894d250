/*
 * The checker's local rule (verifier/check/check.c through ma_check_sector, and verifier/check/rules.c) on
 * hand-built positions, table-driven. Every expected value below is derived BY HAND from the rules
 * of docs/format.md §2 (the comment of each row says how); nothing here computes a value with our
 * code. Losses take the longest successor (depth = max child depth + 1), wins the shortest, draws
 * beat losses; moving-phase self-successors, blocked movers, removal choices with protected
 * stones, flying, and every variant (std, lask, mora with its diagonals and the full board).
 *
 * How a row is checked: the row's sector file and its successor sector files are written by hand.
 * A successor file holds one "fill" word at every entry except the hand-picked "special"
 * successors of the rows, so every successor of a row's position holds the fill unless the row
 * names it. The position's own word is `stored`; after ma_check_sector the row's entry must be
 * verified (stored == derived) or reported with the hand-derived value and class. The turns
 * ma_vrules_generate lists for the position are compared with hand counts per kind.
 *
 * Entries: never from indexer/ (an index bug would cancel out). They come from tests/unit/
 * spec_index.h, a literal transcription of docs/format.md §4, which test_spec_index_matches_the_
 * worked_examples pins to every worked example of docs/index-scheme.md and the check values of
 * format.md §4.3/§4.4 first; the full mora board's entry 0 is derived by hand in its row.
 *
 * Board notation: "mover points/opponent points" in the §6 dump notation. In a special, the board
 * is the successor as stored: the opponent of the row's position is its mover (colours swapped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/formats/open_file.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "tests/unit/spec_index.h"
#include "tests/unit/support.h"
#include "verifier/check/check.h"
#include "verifier/check/rules.h"

/* docs/format.md §5.3 value words */
#define WIN(n) ((uint16_t)(0xC000u | (n)))
#define LOSS(n) ((uint16_t)(0x4000u | (n)))
#define DRAW ((uint16_t)0x8000u)
#define VERIFIED (-1)
#define NO_FILE 0 /* a child kind whose file is not written */

enum { PLACE = MA_TURN_PLACE, PLACE_MILL = MA_TURN_PLACE_MILL, MOVE = MA_TURN_MOVE,
       MOVE_MILL = MA_TURN_MOVE_MILL };

typedef struct special {
    int kind;          /* which successor file */
    const char *board; /* the successor as stored (colours swapped) */
    uint16_t word;
} special;

typedef struct row {
    const char *pos;      /* the position checked, mover/opponent */
    uint16_t stored;      /* the word written at its entry */
    uint16_t derived;     /* the value the rules give, derived by hand */
    int cls;              /* MA_CHECK_* reported when stored != derived, VERIFIED otherwise */
    int turns[4];         /* hand count of successors per kind (PLACE, PLACE_MILL, MOVE, MOVE_MILL) */
    int immediate;        /* hand count of turns that win at once */
    special special[4];
    int64_t entry_by_hand; /* >= 0: the entry, derived by hand in the comment (W too large for
                              spec_index.h); -1: from spec_entry */
} row;

typedef struct group {
    const char *name;
    ma_variant variant;
    ma_sector sector;
    int has_child[4];      /* succ_exists per kind, by hand from format.md §2-§3 */
    ma_sector child[4];    /* the successor sector of each kind (negated), by hand */
    uint16_t child_fill[4]; /* word at every entry of each child file; NO_FILE: not written */
    uint16_t own_fill;     /* word at the canonical entries of the group's own file */
    int own_every_entry;   /* 1: own_fill at every entry (no canonical split: W too large) */
    const row *rows;
    size_t n_rows;
} group;

#define S(w, b, wf, bf) {w, b, wf, bf}

/* --- std 3_3_0_0: both sides fly; every move stays in 3_3_0_0 (a self-successor file); a mill
 * wins at once (the opponent has 3 on board + 0 in hand). Fill: win 5 everywhere, so an
 * unnamed successor gives the mover "loss 6". The positions a1,c4,b6/X: no two mover stones share
 * a mill line (a1: a1-d1-g1, a1-a4-a7; c4: a4-b4-c4, c3-c4-c5; b6: b2-b4-b6, b6-d6-f6), so no turn
 * closes a mill; 3 stones x 18 empty points = 54 successors. The five opponent masks X lie in
 * different symmetry orbits with trivial stabilisers (checked by test_rows_are_well_formed), so
 * the successors of different rows never share an entry. */
static const row rows_std33[] = {
    /* Index-scheme.md §1's worked board, entry 39792: a4 flies to a1 and closes a1-d1-g1; the
     * opponent keeps 2 stones -> win in 1, fixed by the rules whatever is stored (it holds win 9
     * because it is the next row's special successor). 53 successors + 1 immediate win. */
    {"d1,g1,a4/c3,d5,g7", WIN(9), WIN(1), MA_CHECK_WRONG_TERMINAL, {0, 0, 53, 0}, 1, {{0}}, -1},
    /* Every successor is an opponent win: 53 x win 5 and, by b6->e5, the worked board (win 9).
     * A loss lasts as long as possible: max(5, 9) + 1 = loss 10. */
    {"a1,c4,b6/g1,g4,d7", LOSS(6), LOSS(10), MA_CHECK_WRONG_DEPTH, {0, 0, 54, 0}, 0,
     {{MOVE, "g1,g4,d7/a1,c4,e5", WIN(9)}}, -1},
    /* Two successors are opponent losses (b6->e5: loss 4, a1->g7: loss 8): a win takes the
     * fastest, min(4, 8) + 1 = win 5 (stored win 9 = the slower one). */
    {"a1,c4,b6/g1,f4,d7", WIN(9), WIN(5), MA_CHECK_WRONG_DEPTH, {0, 0, 54, 0}, 0,
     {{MOVE, "g1,f4,d7/a1,c4,e5", LOSS(4)}, {MOVE, "g1,f4,d7/c4,b6,g7", LOSS(8)}}, -1},
    /* One successor is a draw (b6->e5), 53 are opponent wins: any draw beats any loss -> draw. */
    {"a1,c4,b6/d2,g4,a7", LOSS(6), DRAW, MA_CHECK_WRONG_OUTCOME, {0, 0, 54, 0}, 0,
     {{MOVE, "d2,g4,a7/a1,c4,e5", DRAW}}, -1},
    /* Nothing named: all 54 successors win 5 -> loss 6, as stored. */
    {"a1,c4,b6/f2,e3,d7", LOSS(6), LOSS(6), VERIFIED, {0, 0, 54, 0}, 0, {{0}}, -1},
    /* A draw (b6->e5) and a slow opponent loss (a1->g7: loss 8): a win beats a draw whatever its
     * depth -> win 9. */
    {"a1,c4,b6/d1,g4,f6", DRAW, WIN(9), MA_CHECK_WRONG_OUTCOME, {0, 0, 54, 0}, 0,
     {{MOVE, "d1,g4,f6/a1,c4,e5", DRAW}, {MOVE, "d1,g4,f6/c4,b6,g7", LOSS(8)}}, -1},
};

/* --- std 4_3_0_0: the mover has 4 stones and slides; non-mill moves go to 3_4_0_0 (fill: win 3,
 * i.e. "loss 4" for an unnamed move); a mill wins at once (opponent 3 + 0). */
static const row rows_std43[] = {
    /* a1,c4,b6,e3 share no mill line (e3: c3-d3-e3, e3-e4-e5): no mill. Slides: a1 d1,a4; c4
     * c3,b4,c5; b6 b4,d6; e3 d3,e4 = 9. c4->c5 leads to an opponent win in 11, the others to wins
     * in 3: loss 12. a1->g7 would lead to an opponent loss in 2, but 4 stones do not fly. */
    {"a1,c4,b6,e3/g1,g4,d7", LOSS(4), LOSS(12), MA_CHECK_WRONG_DEPTH, {0, 0, 9, 0}, 0,
     {{MOVE, "g1,g4,d7/a1,c5,b6,e3", WIN(11)}, {MOVE, "g1,g4,d7/c4,b6,e3,g7", LOSS(2)}}, -1},
    /* g4 slides to g1 and closes a1-d1-g1: the opponent drops to 2 -> win in 1 by the rules.
     * Slides: a1 a4; d1 g1,d2; g4 g1,f4,g7; e3 d3,e4 = 8, one of them the win. */
    {"a1,d1,g4,e3/c4,b6,a7", WIN(3), WIN(1), MA_CHECK_WRONG_TERMINAL, {0, 0, 7, 0}, 1, {{0}}, -1},
};

/* --- std 4_4_0_0: blocked movers. Moves go to 4_4_0_0 itself (fill: draw), mills to 3_4_0_0
 * (fill: draw). */
static const row rows_std44[] = {
    /* The four outer corners, each hemmed in by the opponent's d1, a4, g4, d7: no turn -> loss 0. */
    {"a1,g1,a7,g7/d1,a4,g4,d7", LOSS(0), LOSS(0), VERIFIED, {0, 0, 0, 0}, 0, {{0}}, -1},
    /* d6->d7 blocks the corners: that successor is the row above (loss 0, no special needed);
     * the other 6 slides (d1 d2; a4 b4; g4 f4; d6 b6,d5,f6) lead to draws. A successor lost in 0
     * -> win in 1, derived from a successor, so a wrong depth is wrong-depth, not wrong-terminal. */
    {"d1,a4,g4,d6/a1,g1,a7,g7", WIN(3), WIN(1), MA_CHECK_WRONG_DEPTH, {0, 0, 7, 0}, 0, {{0}}, -1},
    /* The middle corners b2, f2, b6, f6 hemmed in by d2, b4, f4, d6: loss 0, stored as a draw
     * (what a producer that forgets blocked positions writes) -> wrong-terminal. */
    {"b2,f2,b6,f6/d2,b4,f4,d6", DRAW, LOSS(0), MA_CHECK_WRONG_TERMINAL, {0, 0, 0, 0}, 0, {{0}}, -1},
};

/* --- mora 4_3_0_0: the diagonals a1-b2-c3, g1-f2-e3, a7-b6-c5, g7-f6-e5 are edges and mill
 * lines. Moves go to mora 3_4_0_0 (fill: win 3); a mill wins at once. */
static const row rows_mora43[] = {
    /* No mill (a1, e3, b6 sit on diagonals whose other points are not the mover's). Slides: a1
     * d1,a4,b2; c4 c3,b4,c5; b6 b4,d6,a7,c5; e3 d3,e4,f2 = 13. Only the diagonal a1->b2 reaches
     * an opponent loss in 2 -> win 3 (in std that slide does not exist and it would be loss 4). */
    {"a1,c4,b6,e3/g1,g4,d7", LOSS(4), WIN(3), MA_CHECK_WRONG_OUTCOME, {0, 0, 13, 0}, 0,
     {{MOVE, "g1,g4,d7/b2,c4,b6,e3", LOSS(2)}}, -1},
    /* d2 slides to b2 and closes the diagonal a1-b2-c3 -> win in 1. Slides: a1 d1,a4,b2; c3
     * d3,c4,b2; d2 d1,b2,f2,d3; g7 g4,f6 = 12, one of them the win. */
    {"a1,c3,d2,g7/a7,d7,f4", WIN(3), WIN(1), MA_CHECK_WRONG_TERMINAL, {0, 0, 11, 0}, 1, {{0}}, -1},
};

/* --- lask 3_3_1_1: the mover may place (1 in hand) or slide (3 + 1 = 4 stones: no flying).
 * Placements go to 3_4_1_0 (fill: win 3), slides to 3_3_1_1 itself (fill: win 5). Mill turns
 * would go to 2_4_1_0 / 2_3_1_1, not written: these rows have none. */
static const row rows_lask3311[] = {
    /* 18 placements + 7 slides (a1 d1,a4; c4 c3,b4,c5; b6 b4,d6), no mill. Placing on e5 leads
     * to an opponent win in 13: every successor is an opponent win, the longest 13 -> loss 14. */
    {"a1,c4,b6/g1,g4,d7", LOSS(6), LOSS(14), MA_CHECK_WRONG_DEPTH, {18, 0, 7, 0}, 0,
     {{PLACE, "g1,g4,d7/a1,c4,b6,e5", WIN(13)}}, -1},
    /* The same with the long line behind a slide: c4->c5 leads to an opponent win in 9 -> loss 10
     * (a lask mover with stones in hand may still slide). a1->g7 would reach an opponent loss in
     * 2, but with 3 + 1 stones the mover does not fly. */
    {"a1,c4,b6/g1,f4,d7", LOSS(4), LOSS(10), MA_CHECK_WRONG_DEPTH, {18, 0, 7, 0}, 0,
     {{MOVE, "g1,f4,d7/a1,c5,b6", WIN(9)}, {MOVE, "g1,f4,d7/c4,b6,g7", LOSS(2)}}, -1},
};

/* --- std 2_4_1_0: removal choices. The mover places its last stone; plain placements go to
 * 4_3_0_0 (fill: win 3 -> loss 4), mill placements to 3_3_0_0 (fill: win 7). */
static const row rows_std2410[] = {
    /* Placing g1 closes a1-d1-g1. The opponent's a7, d7, g7 form a mill and are protected: only
     * c4 may go -> one mill successor, a7,d7,g7/a1,d1,g1, an opponent loss in 4 -> win 5. The
     * successors that removing a protected stone would give are opponent losses in 0 (win 1 if
     * the protection were ignored). 18 empty points: 17 plain placements + 1 mill placement. */
    {"a1,d1/a7,d7,g7,c4", WIN(1), WIN(5), MA_CHECK_WRONG_DEPTH, {17, 1, 0, 0}, 0,
     {{PLACE_MILL, "a7,d7,g7/a1,d1,g1", LOSS(4)},
      {PLACE_MILL, "d7,g7,c4/a1,d1,g1", LOSS(0)},
      {PLACE_MILL, "a7,g7,c4/a1,d1,g1", LOSS(0)},
      {PLACE_MILL, "a7,d7,c4/a1,d1,g1", LOSS(0)}}, -1},
};

/* --- std 2_3_1_1: every opponent stone is in a mill, so any may be removed. Plain placements go
 * to 3_3_1_0 (fill: win 3 -> loss 4), mill placements to 2_3_1_0 (fill: win 7 -> loss 8); the
 * opponent keeps 2 + 1 = 3 stones, so a mill does not win at once. */
static const row rows_std2311[] = {
    /* Placing f2 closes b2-d2-f2; g1, g4, g7 are all in the mill g1-g4-g7, so each may be
     * removed: 3 mill successors, 18 plain (19 empty points). Removing g4 leads to an opponent
     * loss in 2 -> win 3 (if stones in mills were never removable there would be no mill
     * successor and the value would be loss 4). */
    {"b2,d2/g1,g4,g7", LOSS(4), WIN(3), MA_CHECK_WRONG_OUTCOME, {18, 3, 0, 0}, 0,
     {{PLACE_MILL, "g1,g7/b2,d2,f2", LOSS(2)}}, -1},
};

/* --- std 2_0_1_3: the opponent has no stone on the board. */
static const row rows_std2013[] = {
    /* Placing g1 would close a1-d1-g1 with nothing to remove: that turn does not exist
     * (format.md §2), in particular it is no win by reduction although the opponent has only
     * 0 + 3 stones. The other 21 placements lead to 0_3_3_0 (fill: win 5) -> loss 6. */
    {"a1,d1/-", WIN(1), LOSS(6), MA_CHECK_WRONG_OUTCOME, {21, 0, 0, 0}, 0, {{0}}, -1},
};

/* --- std 2_1_1_2: the opponent has 1 on board + 2 in hand = 3, so a mill wins at once.
 * Placements go to 1_3_2_0 (fill: loss 2 -> win 3). */
static const row rows_std2112[] = {
    /* g1 closes a1-d1-g1, b2 is removed, the opponent is left with 0 + 2: win in 1. 21 empty
     * points: 20 plain placements + the win. */
    {"a1,d1/b2", WIN(3), WIN(1), MA_CHECK_WRONG_TERMINAL, {20, 0, 0, 0}, 1, {{0}}, -1},
    /* a1 and g7 share no line: 21 plain placements, all to opponent losses in 2 -> win 3. */
    {"a1,g7/b2", WIN(3), WIN(3), VERIFIED, {21, 0, 0, 0}, 0, {{0}}, -1},
};

/* --- mora 12_12_0_0: the full board is a draw (rule flag bit 0). */
static const row rows_mora1212[] = {
    /* Entry 0 by hand (§4.3): the mover mask 0xFFF (bits 0-11: a1..c4) is the smallest 12-bit
     * mask, hence a representative and the first, rank 0; M = C(24 - 12, 12) = 1 and the only
     * 12-subset of the 12 free points has colex rank 0: entry 0 * 1 + 0 = 0. No empty point: no
     * turn at all, which would be loss 0 without the rule; the rule makes it a draw. */
    {"a1,d1,g1,b2,d2,f2,c3,d3,e3,a4,b4,c4/e4,f4,g4,c5,d5,e5,b6,d6,f6,a7,d7,g7", LOSS(0), DRAW,
     MA_CHECK_WRONG_TERMINAL, {0, 0, 0, 0}, 0, {{0}}, 0},
};

#define ROWS(r) r, sizeof r / sizeof r[0]

static const group groups[] = {
    {"std 3_3_0_0: flying, self-successors, value order", MA_VARIANT_STD, S(3, 3, 0, 0),
     {0, 0, 1, 0}, {S(0, 0, 0, 0), S(0, 0, 0, 0), S(3, 3, 0, 0), S(0, 0, 0, 0)},
     {NO_FILE, NO_FILE, WIN(5), NO_FILE}, WIN(5), 0, ROWS(rows_std33)},
    {"std 4_3_0_0: sliding", MA_VARIANT_STD, S(4, 3, 0, 0),
     {0, 0, 1, 0}, {S(0, 0, 0, 0), S(0, 0, 0, 0), S(3, 4, 0, 0), S(0, 0, 0, 0)},
     {NO_FILE, NO_FILE, WIN(3), NO_FILE}, LOSS(4), 0, ROWS(rows_std43)},
    {"std 4_4_0_0: blocked movers", MA_VARIANT_STD, S(4, 4, 0, 0),
     {0, 0, 1, 1}, {S(0, 0, 0, 0), S(0, 0, 0, 0), S(4, 4, 0, 0), S(3, 4, 0, 0)},
     {NO_FILE, NO_FILE, DRAW, DRAW}, DRAW, 0, ROWS(rows_std44)},
    {"mora 4_3_0_0: diagonals", MA_VARIANT_MORA, S(4, 3, 0, 0),
     {0, 0, 1, 0}, {S(0, 0, 0, 0), S(0, 0, 0, 0), S(3, 4, 0, 0), S(0, 0, 0, 0)},
     {NO_FILE, NO_FILE, WIN(3), NO_FILE}, LOSS(4), 0, ROWS(rows_mora43)},
    {"lask 3_3_1_1: placing and sliding", MA_VARIANT_LASK, S(3, 3, 1, 1),
     {1, 1, 1, 1}, {S(3, 4, 1, 0), S(2, 4, 1, 0), S(3, 3, 1, 1), S(2, 3, 1, 1)},
     {WIN(3), NO_FILE, WIN(5), NO_FILE}, WIN(5), 0, ROWS(rows_lask3311)},
    {"std 2_4_1_0: protected stones", MA_VARIANT_STD, S(2, 4, 1, 0),
     {1, 1, 0, 0}, {S(4, 3, 0, 0), S(3, 3, 0, 0), S(0, 0, 0, 0), S(0, 0, 0, 0)},
     {WIN(3), WIN(7), NO_FILE, NO_FILE}, WIN(5), 0, ROWS(rows_std2410)},
    {"std 2_3_1_1: all stones in mills", MA_VARIANT_STD, S(2, 3, 1, 1),
     {1, 1, 0, 0}, {S(3, 3, 1, 0), S(2, 3, 1, 0), S(0, 0, 0, 0), S(0, 0, 0, 0)},
     {WIN(3), WIN(7), NO_FILE, NO_FILE}, LOSS(4), 0, ROWS(rows_std2311)},
    {"std 2_0_1_3: no opponent stone to remove", MA_VARIANT_STD, S(2, 0, 1, 3),
     {1, 0, 0, 0}, {S(0, 3, 3, 0), S(0, 0, 0, 0), S(0, 0, 0, 0), S(0, 0, 0, 0)},
     {WIN(5), NO_FILE, NO_FILE, NO_FILE}, LOSS(6), 0, ROWS(rows_std2013)},
    {"std 2_1_1_2: reduction with stones in hand", MA_VARIANT_STD, S(2, 1, 1, 2),
     {1, 0, 0, 0}, {S(1, 3, 2, 0), S(0, 0, 0, 0), S(0, 0, 0, 0), S(0, 0, 0, 0)},
     {LOSS(2), NO_FILE, NO_FILE, NO_FILE}, WIN(3), 0, ROWS(rows_std2112)},
    {"mora 12_12_0_0: the full board", MA_VARIANT_MORA, S(12, 12, 0, 0),
     {0, 0, 1, 1}, {S(0, 0, 0, 0), S(0, 0, 0, 0), S(12, 12, 0, 0), S(11, 12, 0, 0)},
     {NO_FILE, NO_FILE, DRAW, NO_FILE}, DRAW, 1, ROWS(rows_mora1212)},
};

/* --- helpers ---------------------------------------------------------------------------------- */

static ma_board board(const char *text)
{
    ma_board b;
    ma_error err;
    if (ma_board_parse(text, &b, &err) != MA_OK)
        fail_msg("bad board '%s': %s", text, err.msg);
    return b;
}

static uint64_t entry_of(const char *text)
{
    ma_board b = board(text);
    return spec_entry(b.mover, b.opp);
}

/* format.md §5.1, written field by field. */
static void write_sector(const char *path, ma_variant v, ma_sector s, const uint16_t *words, uint64_t n)
{
    uint8_t h[128] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1A};
    h[8] = 1;
    h[10] = 128;
    h[12] = (uint8_t)v;
    h[13] = v == MA_VARIANT_MORA;
    h[14] = s.w;
    h[15] = s.b;
    h[16] = s.wf;
    h[17] = s.bf;
    h[18] = 2;
    h[19] = 1;
    h[20] = 1;
    h[22] = 1;
    for (int i = 0; i < 8; i++)
        h[24 + i] = (uint8_t)(n >> (8 * i));
    memcpy(h + 32, "test_local_rule", 15);
    h[64] = '0';
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(h, 1, 128, f), 128);
    uint8_t *body = malloc(2 * n);
    assert_non_null(body);
    for (uint64_t e = 0; e < n; e++) {
        body[2 * e] = (uint8_t)words[e];
        body[2 * e + 1] = (uint8_t)(words[e] >> 8);
    }
    assert_int_equal(fwrite(body, 1, 2 * n, f), 2 * n);
    free(body);
    assert_int_equal(fclose(f), 0);
}

static const char *variant_name(ma_variant v)
{
    return v == MA_VARIANT_STD ? "std" : v == MA_VARIANT_LASK ? "lask" : "mora";
}

static void sector_path(char *buf, size_t len, const char *dir, ma_variant v, ma_sector s)
{
    snprintf(buf, len, "%s/%s_%d_%d_%d_%d.mdb", dir, variant_name(v), s.w, s.b, s.wf, s.bf);
}

static int kinds_of_row(const row *r)
{
    int n = 0;
    for (int k = 0; k < 4; k++)
        n += r->turns[k];
    return n;
}

/* --- tests ------------------------------------------------------------------------------------ */

/* spec_index.h against every worked example of docs/index-scheme.md and format.md §4.3/§4.4. */
static void test_spec_index_matches_the_worked_examples(void **state)
{
    (void)state;
    uint64_t n;
    for (int w = 0; w <= 4; w++) {
        spec_reps(w, &n);
        assert_int_equal(n, spec_rep_count_table[w]);
    }
    /* format.md §4.3: first representatives W=1: 1, 2, 8, 16; W=2: 3, 5, 9, 10, 12, 17, 18, 24,
     * 40, 65, 66, 68 */
    const uint32_t *r1 = spec_reps(1, &n), *r2 = spec_reps(2, &n);
    const uint32_t first1[] = {1, 2, 8, 16}, first2[] = {3, 5, 9, 10, 12, 17, 18, 24, 40, 65, 66, 68};
    for (int i = 0; i < 4; i++)
        assert_int_equal(r1[i], first1[i]);
    for (int i = 0; i < 12; i++)
        assert_int_equal(r2[i], first2[i]);
    /* format.md §4.4: 3_3 has 210,140 entries, 5_5 32,907,240 */
    assert_int_equal(spec_entry_count(3, 3), 210140);
    assert_int_equal(spec_entry_count(5, 5), 32907240);
    /* index-scheme.md §1: g1,g4,d7/a1,c4,e5 -> canonical d1,g1,a4/c3,d5,g7, rep 518 of rank 29,
     * colex 1222, entry 39792 */
    uint32_t wc, bc;
    ma_board b = board("g1,g4,d7/a1,c4,e5");
    spec_canon(b.mover, b.opp, &wc, &bc);
    assert_int_equal(wc, 518);
    assert_int_equal(bc, 8454208);
    assert_int_equal(spec_colex(wc, bc), 1222);
    assert_int_equal(spec_entry(b.mover, b.opp), 39792);
    assert_int_equal(entry_of("d1,g1,a4/c3,d5,g7"), 39792);
    /* index-scheme.md §2: sector 0_1, entries 0, 1, 3, 4 = a1, d1, b2, d2; g1 ranks to 0 */
    assert_int_equal(entry_of("-/a1"), 0);
    assert_int_equal(entry_of("-/d1"), 1);
    assert_int_equal(entry_of("-/b2"), 3);
    assert_int_equal(entry_of("-/d2"), 4);
    assert_int_equal(entry_of("-/g1"), 0);
    /* index-scheme.md §3: sector 1_1, a1/d1 = 0, a1/a4 ranks to 0 (entry 8 is non-canonical),
     * a1/g7 = 22 */
    assert_int_equal(entry_of("a1/d1"), 0);
    assert_int_equal(entry_of("a1/a4"), 0);
    assert_int_equal(entry_of("a1/g7"), 22);
    uint16_t w11[4 * 23];
    spec_fill_canonical(w11, 1, 1, 1);
    assert_int_equal(w11[0], 1);
    assert_int_equal(w11[8], 0);
    assert_int_equal(w11[22], 1);
    /* format.md §4.4: sector 0_1 has 4 canonical entries of 24 (0, 1, 3, 4) */
    uint16_t w01[24];
    spec_fill_canonical(w01, 0, 1, 1);
    int canonical = 0;
    for (int e = 0; e < 24; e++)
        canonical += w01[e];
    assert_int_equal(canonical, 4);
    assert_true(w01[0] && w01[1] && w01[3] && w01[4]);
}

/* The table's own assumptions (not the code under test): opponent masks in distinct orbits with
 * trivial stabilisers, so the successors of different rows never share an entry, and a special
 * never overwrites another row's position with a different word. */
static void test_rows_are_well_formed(void **state)
{
    (void)state;
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        const group *gr = &groups[g];
        for (size_t i = 0; i < gr->n_rows; i++) {
            const row *r = &gr->rows[i];
            ma_board p = board(r->pos);
            assert_int_equal(__builtin_popcount(p.mover), gr->sector.w);
            assert_int_equal(__builtin_popcount(p.opp), gr->sector.b);
            assert_int_equal(r->cls == VERIFIED, r->stored == r->derived);
            for (int s = 0; s < 4 && r->special[s].board; s++) {
                const special *sp = &r->special[s];
                ma_board c = board(sp->board);
                assert_true(gr->has_child[sp->kind] && gr->child_fill[sp->kind] != NO_FILE);
                assert_int_equal(__builtin_popcount(c.mover), gr->child[sp->kind].w);
                assert_int_equal(__builtin_popcount(c.opp), gr->child[sp->kind].b);
                /* the successor's mover is the position's opponent, less a removed stone */
                assert_int_equal(c.mover & ~p.opp, 0);
            }
        }
    }
    static const char *const opponents[] = {"g1,g4,d7/-", "g1,f4,d7/-", "d2,g4,a7/-", "f2,e3,d7/-",
                                            "d1,g4,f6/-"};
    uint32_t mins[5];
    for (int i = 0; i < 5; i++) {
        uint32_t m = board(opponents[i]).mover, lo = m;
        for (int k = 1; k < 16; k++) {
            assert_int_not_equal(spec_apply(k, m), m); /* trivial stabiliser */
            lo = spec_apply(k, m) < lo ? spec_apply(k, m) : lo;
        }
        mins[i] = lo;
        for (int j = 0; j < i; j++)
            assert_int_not_equal(mins[j], lo); /* distinct orbits */
        uint32_t mover = board("a1,c4,b6/-").mover, mlo = mover;
        for (int k = 1; k < 16; k++)
            mlo = spec_apply(k, mover) < mlo ? spec_apply(k, mover) : mlo;
        assert_int_not_equal(mlo, lo); /* no row position is another row's successor */
    }
}

/* rules.c's board against docs/format.md §1 as printed: the neighbour masks, the four mora
 * diagonals, and the mill lines 0-15 (std, lask) / 0-19 (mora) as sets. */
static void test_board_is_format_md_s(void **state)
{
    (void)state;
    static const uint32_t adj[24] = {514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177,
                                     264712, 33856, 139520, 1069088, 8396804, 67584, 688128, 69632,
                                     525312, 5570560, 532480, 4194816, 11010048, 4210688};
    static const uint32_t lines[20] = {7, 56, 448, 3584, 28672, 229376, 1835008, 14680064, 2097665,
                                       263176, 34880, 146, 4784128, 135424, 1056800, 8404996, 73,
                                       292, 2392064, 9568256};
    static const char *const diagonals[4][3] = {
        {"a1", "b2", "c3"}, {"g1", "f2", "e3"}, {"a7", "b6", "c5"}, {"g7", "f6", "e5"}};
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++) {
        ma_vrules r;
        ma_error err;
        assert_int_equal(ma_vrules_init(&r, (ma_variant)v, (ma_sector)S(3, 3, 0, 0), &err), MA_OK);
        uint32_t want[24];
        memcpy(want, adj, sizeof want);
        if (v == MA_VARIANT_MORA)
            for (int d = 0; d < 4; d++)
                for (int i = 0; i < 2; i++) {
                    int a = ma_point_from_name(diagonals[d][i]), b = ma_point_from_name(diagonals[d][i + 1]);
                    want[a] |= 1u << b;
                    want[b] |= 1u << a;
                }
        for (int p = 0; p < 24; p++)
            assert_int_equal(r.adj[p], want[p]);
        int n = v == MA_VARIANT_MORA ? 20 : 16;
        assert_int_equal(r.n_lines, n);
        for (int i = 0; i < n; i++) {
            int found = 0;
            for (int j = 0; j < r.n_lines; j++)
                found += r.lines[j] == lines[i];
            assert_int_equal(found, 1);
        }
    }
}

/* format.md §2: only a position of mora 12_12_0_0 is a draw by the full-board rule. Near-full
 * mora sectors (a point still empty, or a stone still in hand) and every std/lask sector follow
 * the ordinary rules (a mover without a turn loses). */
static void test_full_board_rule_only_on_the_full_board(void **state)
{
    (void)state;
    static const struct { ma_variant v; ma_sector s; int rule; } cases[] = {
        {MA_VARIANT_MORA, S(12, 12, 0, 0), 1}, {MA_VARIANT_MORA, S(12, 11, 0, 0), 0},
        {MA_VARIANT_MORA, S(11, 12, 0, 0), 0}, {MA_VARIANT_MORA, S(12, 11, 0, 1), 0},
        {MA_VARIANT_MORA, S(11, 12, 1, 0), 0}, {MA_VARIANT_MORA, S(11, 11, 1, 1), 0},
        {MA_VARIANT_LASK, S(10, 10, 0, 0), 0}, {MA_VARIANT_STD, S(9, 9, 0, 0), 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ma_vrules r;
        ma_error err;
        assert_int_equal(ma_vrules_init(&r, cases[i].v, cases[i].s, &err), MA_OK);
        if (r.full_board_draw != cases[i].rule)
            fail_msg("%s %d_%d_%d_%d: full-board rule %d, by hand %d", variant_name(cases[i].v),
                     cases[i].s.w, cases[i].s.b, cases[i].s.wf, cases[i].s.bf, r.full_board_draw,
                     cases[i].rule);
    }
}

/* Files of one group: index of a sector among the group's distinct sectors. */
typedef struct files {
    ma_sector sector[5];
    uint16_t *words[5];
    uint64_t count[5];
    int n;
} files;

static int file_of(files *f, ma_sector s)
{
    for (int i = 0; i < f->n; i++)
        if (ma_sector_equal(f->sector[i], s))
            return i;
    return -1;
}

static int add_file(files *f, ma_sector s, uint16_t fill, int canonical_only)
{
    int i = f->n++;
    f->sector[i] = s;
    f->count[i] = spec_entry_count(s.w, s.b);
    f->words[i] = malloc(f->count[i] * sizeof *f->words[i]);
    assert_non_null(f->words[i]);
    if (canonical_only) {
        spec_fill_canonical(f->words[i], s.w, s.b, fill);
    } else {
        for (uint64_t e = 0; e < f->count[i]; e++)
            f->words[i][e] = fill;
    }
    return i;
}

static void set_word(files *f, int i, uint64_t e, uint16_t word, const char *what)
{
    assert_true(e < f->count[i]);
    (void)what;
    f->words[i][e] = word;
}

static void run_group(const group *g)
{
    ma_error err;
    ma_vrules rules;
    /* rules.c: the successor sectors of format.md §2-§3, by hand */
    assert_int_equal(ma_vrules_init(&rules, g->variant, g->sector, &err), MA_OK);
    for (int k = 0; k < 4; k++) {
        if (rules.succ_exists[k] != g->has_child[k])
            fail_msg("%s: kind %d: rules say %s successor sector", g->name, k,
                     rules.succ_exists[k] ? "a" : "no");
        if (g->has_child[k] && !ma_sector_equal(rules.succ[k], g->child[k]))
            fail_msg("%s: kind %d goes to %d_%d_%d_%d, by hand %d_%d_%d_%d", g->name, k,
                     rules.succ[k].w, rules.succ[k].b, rules.succ[k].wf, rules.succ[k].bf,
                     g->child[k].w, g->child[k].b, g->child[k].wf, g->child[k].bf);
    }
    /* rules.c: the turns of each position, by hand */
    ma_vturns *t = malloc(sizeof *t);
    assert_non_null(t);
    for (size_t i = 0; i < g->n_rows; i++) {
        const row *r = &g->rows[i];
        assert_int_equal(ma_vrules_generate(&rules, board(r->pos), t), 0);
        int per[4] = {0};
        for (int s = 0; s < t->n; s++)
            per[t->kind[s]]++;
        for (int k = 0; k < 4; k++)
            if (per[k] != r->turns[k])
                fail_msg("%s: %s: %d turns of kind %d, by hand %d", g->name, r->pos, per[k], k,
                         r->turns[k]);
        assert_int_equal(t->n, kinds_of_row(r));
        if (t->immediate_wins != r->immediate)
            fail_msg("%s: %s: %d immediate wins, by hand %d", g->name, r->pos, t->immediate_wins,
                     r->immediate);
    }
    free(t);

    /* the files: own sector, then each child kind's sector */
    files f = {.n = 0};
    add_file(&f, g->sector, g->own_fill, !g->own_every_entry);
    for (int k = 0; k < 4; k++)
        if (g->has_child[k] && g->child_fill[k] != NO_FILE && file_of(&f, g->child[k]) < 0)
            add_file(&f, g->child[k], g->child_fill[k], 0);
    for (size_t i = 0; i < g->n_rows; i++)
        for (int s = 0; s < 4 && g->rows[i].special[s].board; s++) {
            const special *sp = &g->rows[i].special[s];
            set_word(&f, file_of(&f, g->child[sp->kind]), entry_of(sp->board), sp->word, sp->board);
        }
    uint64_t entry[8];
    for (size_t i = 0; i < g->n_rows; i++) {
        const row *r = &g->rows[i];
        entry[i] = r->entry_by_hand >= 0 ? (uint64_t)r->entry_by_hand : entry_of(r->pos);
        /* a row's position that is also a named successor must hold the same word */
        if (f.words[0][entry[i]] != g->own_fill && f.words[0][entry[i]] != r->stored)
            fail_msg("%s: %s is also a special successor with another word", g->name, r->pos);
        set_word(&f, 0, entry[i], r->stored, r->pos);
    }

    char dir[] = "/tmp/ma_test_local_rule_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char paths[5][256];
    ma_open_index *ix;
    assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
    assert_int_equal(ma_check_prepare_index(ix, g->variant, g->sector, &err), MA_OK);
    ma_open_file mapped[5];
    for (int i = 0; i < f.n; i++) {
        sector_path(paths[i], sizeof paths[i], dir, g->variant, f.sector[i]);
        write_sector(paths[i], g->variant, f.sector[i], f.words[i], f.count[i]);
        if (ma_open_file_map(&mapped[i], paths[i], ix, 1, &err) != MA_OK)
            fail_msg("%s", err.msg);
    }
    ma_check_input in;
    memset(&in, 0, sizeof in);
    in.ix = ix;
    in.file = &mapped[0];
    in.threads = 2;
    for (int k = 0; k < 4; k++) {
        int i = g->has_child[k] ? file_of(&f, g->child[k]) : -1;
        in.child[k] = i > 0 ? &mapped[i] : NULL;
    }
    ma_check_result res;
    if (ma_check_sector(&res, &in, &err) != MA_OK)
        fail_msg("%s: %s", g->name, err.msg);
    for (size_t i = 0; i < g->n_rows; i++) {
        const row *r = &g->rows[i];
        const ma_check_item *it = NULL;
        for (size_t j = 0; j < res.n_items && !it; j++)
            if (res.items[j].entry == entry[i])
                it = &res.items[j];
        if (r->cls == VERIFIED) {
            if (it)
                fail_msg("%s: %s (entry %llu): stored 0x%04x should verify, reported %s, derived "
                         "outcome %d depth %u", g->name, r->pos, (unsigned long long)entry[i],
                         r->stored, ma_check_class_name(it->cls), it->derived_outcome,
                         it->derived_depth);
            continue;
        }
        if (!it)
            fail_msg("%s: %s (entry %llu): stored 0x%04x not reported, derived 0x%04x expected",
                     g->name, r->pos, (unsigned long long)entry[i], r->stored, r->derived);
        if (it->cls != r->cls || !it->derived_known || it->derived_outcome != r->derived >> 14 ||
            it->derived_depth != (r->derived & 0x3FFFu))
            fail_msg("%s: %s (entry %llu): reported %s with derived outcome %d depth %u; by hand "
                     "%s with 0x%04x", g->name, r->pos, (unsigned long long)entry[i],
                     ma_check_class_name(it->cls), it->derived_outcome, it->derived_depth,
                     ma_check_class_name(r->cls), r->derived);
        assert_int_equal(it->stored, r->stored);
    }
    ma_check_result_free(&res);
    for (int i = 0; i < f.n; i++) {
        ma_open_file_close(&mapped[i]);
        unlink(paths[i]);
        free(f.words[i]);
    }
    rmdir(dir);
    ma_open_index_free(ix);
}

static void test_group(void **state)
{
    run_group(*state);
}

int main(void)
{
    enum { NG = sizeof groups / sizeof groups[0] };
    enum { NF = 4 };
    struct CMUnitTest tests[NF + NG] = {
        cmocka_unit_test(test_spec_index_matches_the_worked_examples),
        cmocka_unit_test(test_rows_are_well_formed),
        cmocka_unit_test(test_board_is_format_md_s),
        cmocka_unit_test(test_full_board_rule_only_on_the_full_board),
    };
    for (int g = 0; g < NG; g++) {
        struct CMUnitTest t = {groups[g].name, test_group, NULL, NULL, (void *)&groups[g]};
        tests[NF + g] = t;
    }
    return _cmocka_run_group_tests("local_rule", tests, NF + NG, NULL, NULL);
}
