/*
 * Checker-side positions: variants, sectors, boards and the a1..g7 notation.
 *
 * Boards use the open scheme's point numbering (docs/format.md §1: a1=0, d1=1, g1=2, b2=3, ...,
 * g7=23). This is the checker's own code: solver/ has its own and the two never share it.
 */
#ifndef MA_POSITION_H
#define MA_POSITION_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"

#define MA_POINTS 24
#define MA_FULL_MASK 0xFFFFFFu

typedef enum ma_variant {
    MA_VARIANT_STD = 1,  /* Nine Men's Morris, 9 stones */
    MA_VARIANT_LASK = 2, /* Lasker Morris, 10 stones, placing and moving mix */
    MA_VARIANT_MORA = 3  /* Morabaraba, 12 stones, diagonals */
} ma_variant;

/* A sector from the side to move's view: W, B on the board, WF, BF in hand. */
typedef struct ma_sector {
    uint8_t w;  /* mover stones on the board */
    uint8_t b;  /* opponent stones on the board */
    uint8_t wf; /* mover stones in hand */
    uint8_t bf; /* opponent stones in hand */
} ma_sector;

/* A board: two disjoint 24-bit masks in open numbering. */
typedef struct ma_board {
    uint32_t mover; /* stones of the side to move */
    uint32_t opp;   /* stones of the other side */
} ma_board;

/* "std" / "lask" / "mora" <-> variant. parse returns MA_OK or MA_EINVAL (message names the word). */
int ma_variant_parse(const char *name, ma_variant *out, ma_error *err);
const char *ma_variant_name(ma_variant v);
/* Stones per side of the full game: 9, 10, 12. */
int ma_variant_stones(ma_variant v);

/* "W_B_WF_BF" <-> sector. parse checks only the syntax (four numbers 0..24). */
int ma_sector_parse(const char *text, ma_sector *out, ma_error *err);
/* Writes "W_B_WF_BF" into buf (at least 16 bytes). */
void ma_sector_format(ma_sector s, char *buf, size_t len);
/* docs/format.md §3: W+WF <= N, B+BF <= N, W+WF >= 3, B+BF >= 3, W+B <= 24. */
int ma_sector_valid(ma_variant v, ma_sector s);
/* The same sector seen by the other side: (B, W, BF, WF). */
ma_sector ma_sector_negate(ma_sector s);
int ma_sector_equal(ma_sector a, ma_sector b);

/* Point names "a1".."g7" <-> bit numbers; -1 / NULL when not a point. */
int ma_point_from_name(const char *name);
const char *ma_point_name(int point);

/* The colour swap applied after every ply: mover and opponent exchange roles. */
static inline ma_board ma_board_swap(ma_board b)
{
    ma_board r = {b.opp, b.mover};
    return r;
}

/* Writes the notation "a1,d1/c3,e4" (mover / opponent, points in bit order, "-" for none) into buf;
 * 80 bytes always suffice. Returns the length written. */
size_t ma_board_format(ma_board b, char *buf, size_t len);
/* Parses the notation above; points may come in any order. Rejects unknown names, a point listed
 * twice or on both sides (MA_EINVAL with a message naming the token). */
int ma_board_parse(const char *text, ma_board *out, ma_error *err);

#endif
