/*
 * The checker's one value type: what a database says about a position, whatever file it came from.
 *
 * ma_value is the game-theoretic value from the side to move's view: win in n plies, loss in n
 * plies, or draw (verification-theory.md §1). ma_stored is one stored entry of a sector file,
 * normalised by its reader (verifier/formats/source.h): the open format's u16 word (docs/format.md §5.3) and
 * Malom's entries (malom-format.md §5.5) both become an ma_stored, so diff, probe, stats, digests,
 * the opening search and the run engine never look at a format's bytes.
 *
 * This header knows no format and no rules; the readers fill it, everyone else reads it.
 */
#ifndef MA_FORMATS_VALUE_H
#define MA_FORMATS_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit/types.h"



#endif
