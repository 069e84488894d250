/*
 * millaudit/types.h: part of the public API (millaudit.h): the vocabulary every engine speaks:
 * variants, sectors, boards in the open point numbering, database formats and values.
 *
 * The definitions live here, and only here: the library's own modules include this header, so the
 * library and a program using it see one type of each.
 */
#ifndef MILLAUDIT_TYPES_H
#define MILLAUDIT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A switch of an options struct whose default is not "off": 0 (a zeroed struct) is the default the
 * field documents, MA_YES and MA_NO override it. */
enum { MA_DEFAULT = 0, MA_YES = 1, MA_NO = -1 };

/* A count of rows or examples to keep (a verify run's max_rows, a diff's limit) that keeps none,
 * only the counts: 0 is the field's default number. */
#define MA_KEEP_NONE ((size_t)-1)

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
MA_API int ma_variant_parse(const char *name, ma_variant *out, ma_error *err);
MA_API const char *ma_variant_name(ma_variant v);

/* "W_B_WF_BF" <-> sector. parse checks only the syntax (four numbers 0..24). */
MA_API int ma_sector_parse(const char *text, ma_sector *out, ma_error *err);
/* Writes "W_B_WF_BF" into buf (at least 16 bytes). */
MA_API void ma_sector_format(ma_sector s, char *buf, size_t len);

/* Writes the notation "a1,d1/c3,e4" (mover / opponent, points in bit order, "-" for none) into buf;
 * 80 bytes always suffice. Returns the length written. */
MA_API size_t ma_board_format(ma_board b, char *buf, size_t len);
/* Parses the notation above; points may come in any order. Rejects unknown names, a point listed
 * twice or on both sides (MA_EINVAL with a message naming the token). */
MA_API int ma_board_parse(const char *text, ma_board *out, ma_error *err);

typedef enum ma_format {
    MA_FORMAT_OPEN = 1, /* .mdb, docs/format.md */
    MA_FORMAT_SEC2 = 2, /* Malom ultra-strong .sec2 */
    MA_FORMAT_SEC = 3   /* Malom legacy strong .sec */
} ma_format;

/* "open", "malom-sec2", "malom-sec" (the names the audit store and JSON use). */
MA_API const char *ma_format_name(ma_format f);
/* ".mdb", ".sec2", ".sec". */
MA_API const char *ma_format_suffix(ma_format f);

/* Outcome of an entry, from the side to move's view (numbering = the open encoding's outcome bits,
 * so the open reader converts with a cast). */
typedef enum ma_outcome {
    MA_OUTCOME_NONE = 0, /* no value: a non-canonical entry */
    MA_OUTCOME_LOSS = 1,
    MA_OUTCOME_DRAW = 2,
    MA_OUTCOME_WIN = 3
} ma_outcome;

typedef struct ma_value {
    ma_outcome outcome; /* win / draw / loss / none */
    uint16_t depth;     /* plies to the end for win and loss, 0 otherwise */
} ma_value;

/* What a stored entry holds. */
typedef enum ma_stored_kind {
    MA_STORED_NONE = 0,  /* a slot that holds no value by its index scheme: the open filler 0x0000 at
                          * a non-canonical entry, or a Malom symmetry marker */
    MA_STORED_VALUE = 1, /* a well-formed value */
    MA_STORED_BAD = 2    /* bytes that are no well-formed value (bad encoding) */
} ma_stored_kind;

/* One stored entry, normalised. */
typedef struct ma_stored {
    uint8_t kind;           /* ma_stored_kind */
    uint8_t has_draw_class; /* 1 for Malom .sec2 values: draw_class is meaningful */
    int8_t marker;          /* Malom symmetry-marker op (0..14) when the slot holds one, else -1 */
    ma_value value;         /* when kind == MA_STORED_VALUE; a draw has depth 0 */
    int32_t draw_class;     /* .sec2: A = key1 + v(S), the draw class of a draw (malom-format.md
                             * §5.5); 0 otherwise */
    int32_t raw[3];         /* the bytes' identity, for byte-level comparison and messages:
                             * open {word, 0, 0}; Malom {kind, key1, key2} */
} ma_stored;

/* "win 13", "loss 0", "draw", "none" into buf (>= 16 bytes). */
MA_API void ma_value_format(ma_value v, char *buf, size_t len);
/* "win", "loss", "draw", "none". */
MA_API const char *ma_outcome_name(ma_outcome o);

#ifdef __cplusplus
}
#endif

#endif
