/*
 * The turns of one position in a form a person can read (for `millaudit probe`): every turn the
 * checker's move generator (verifier/rules.h) lists, with the point it leaves, the point it
 * reaches and the stone it removes, plus the turns that win at once by reduction (which the
 * generator only counts), one per removal choice.
 *
 * The from/to/removed points of a successor are recovered from the board difference, so the list
 * is exactly the generator's and cannot disagree with what the verifier checks.
 */
#ifndef MA_VERIFIER_PROBE_H
#define MA_VERIFIER_PROBE_H

#include <stddef.h>

#include "common/ma_error.h"
#include "indexer/position.h"
#include "verifier/rules.h"

typedef struct ma_probe_turn {
    int from;          /* point left, -1 for a placement */
    int to;            /* point reached */
    int removed;       /* opponent stone removed, -1 for none */
    int immediate_win; /* the removal leaves the opponent below 3 stones: no successor */
    int kind;          /* MA_TURN_* (successor sector kind), -1 for an immediate win */
    ma_board succ;     /* colour-swapped successor board (unset for an immediate win) */
} ma_probe_turn;

/* Lists the turns of pos into out (room for max). MA_EINTERNAL if more than max or the generator
 * fails; MA_OK otherwise with *n set. */
int ma_probe_turns(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n,
                   ma_error *err);

/* "d1", "d1-d2", "a4xg7", "d1-d2xg7". */
void ma_probe_turn_format(const ma_probe_turn *t, char *buf, size_t len);

#endif
