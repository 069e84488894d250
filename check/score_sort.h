/*
 * Sorting the scores of a checker's rank tables.
 *
 * The Malom checker ranks the turn value of every stored word of its successor sectors (up to
 * 65,536 per child) among all of them once per sector, before its threads start. The words of one
 * child with one field 1 form a run whose scores are monotone in field 2, so the array holds a few
 * hundred sorted runs: merging the natural runs sorts it in a few passes, where a comparison sort
 * makes eighteen, each through a callback.
 *
 * Contract: ma_score_sort orders a[0..n) by score, ascending (ties in any order), using tmp[0..n)
 * as scratch. It is correct for any input (runs are found, not assumed: a strictly decreasing run
 * is reversed first) and takes O(n log r) for r runs. No allocation.
 */
#ifndef MA_CHECK_SCORE_SORT_H
#define MA_CHECK_SCORE_SORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t score;
    uint32_t id; /* the caller's: which stored word of which child */
} ma_scored;

void ma_score_sort(ma_scored *a, size_t n, ma_scored *tmp);

#endif
