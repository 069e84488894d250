/*
 * Heuristic evaluation functions of the kind hobbyist Morris programs use, for the graded alpha-beta
 * players (docs/grading.md gives every formula). An evaluation is a weighted sum of terms, each the
 * side to move's count minus the opponent's:
 *
 *   material   stones on the board plus in hand
 *   mills      complete mills (three own stones on a mill line)
 *   openmills  mills that can be closed on the next own turn: a line with two own stones whose
 *              third point is empty and reachable by an own stone next turn (placing: a stone in
 *              hand; flying: any own stone off the line; sliding: an own stone off the line adjacent
 *              to the empty point)
 *   twos       two-stone configurations: lines with exactly two own stones and an empty third point
 *   blocked    opponent stones with no empty neighbour, minus own such stones (with the sign
 *              flipped so that more blocked opponent stones is better for the side to move)
 *   mobility   turns available without counting removal choices: empty points while placing (lask:
 *              plus the moves), every (stone, empty point) pair while flying, slides otherwise
 *
 * A spec names terms joined by '+', each optionally weighted "N*term" (N an integer -1000..1000):
 * "material", "mills+mobility", "10*material+3*mills+mobility". Unweighted terms take their default
 * weight: material 10, mills 3, openmills 2, twos 1, blocked 1, mobility 1.
 */
#ifndef MA_VERIFIER_EVAL_H
#define MA_VERIFIER_EVAL_H

#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/position.h"
#include "verifier/check/rulebook.h"

enum {
    MA_EVAL_MATERIAL = 0,
    MA_EVAL_MILLS,
    MA_EVAL_OPENMILLS,
    MA_EVAL_TWOS,
    MA_EVAL_BLOCKED,
    MA_EVAL_MOBILITY,
    MA_EVAL_TERMS
};

typedef struct ma_eval {
    int weight[MA_EVAL_TERMS]; /* 0 for terms not used */
    char name[96];             /* the spec in canonical spelling, e.g. "material+mobility" */
} ma_eval;

/* "material", ... */
const char *ma_eval_term_name(int term);
int ma_eval_default_weight(int term);

/* Parses a spec (see above). MA_EINVAL with a message naming the bad token and the known terms. */
int ma_eval_parse(const char *spec, ma_eval *out, ma_error *err);

/* The value of term `term` for position b of sector s, side to move minus opponent. */
int32_t ma_eval_term(int term, const ma_vrules *r, const ma_vrules *opp_rules, ma_sector s,
                     ma_board b);
/* The weighted sum. r: rules of s; opp_rules: rules of the negated sector (the opponent's view). */
int32_t ma_eval_score(const ma_eval *e, const ma_vrules *r, const ma_vrules *opp_rules, ma_sector s,
                      ma_board b);

#endif
