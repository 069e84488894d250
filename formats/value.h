/*
 * The checker's one value type: what a database says about a position, whatever file it came from.
 *
 * ma_value is the game-theoretic value from the side to move's view: win in n plies, loss in n
 * plies, or draw (verification-theory.md §1). ma_stored is one stored entry of a sector file,
 * normalised by its reader (formats/source.h): the open format's u16 word (docs/format.md §5.3) and
 * Malom's entries (malom-format.md §5.5) both become an ma_stored, so diff, probe, stats, digests,
 * the opening search and the run engine never look at a format's bytes.
 *
 * This header knows no format and no rules; the readers fill it, everyone else reads it.
 */
#ifndef MA_FORMATS_VALUE_H
#define MA_FORMATS_VALUE_H

#include <stddef.h>
#include <stdint.h>

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
void ma_value_format(ma_value v, char *buf, size_t len);
/* "win", "loss", "draw", "none". */
const char *ma_outcome_name(ma_outcome o);

#endif
