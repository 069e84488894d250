/*
 * Sorting the scores of a checker's rank tables, and ranking a score among them.
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
 *
 * ma_score_rank(scores, n, sc), for n distinct scores in ascending order: 2i + 1 when sc is the
 * i-th (from 0), 2i when i of them lie below sc and sc is none of them. Order and equality are
 * kept, so a greater rank is a greater score. Its steps are selects, not branches: the scores
 * looked up come in no order (the Malom checker looks up 65,536 before its threads start; with a
 * branchy search the setup of STONE_DIFF 5_3 took 7.1 ms, with this one 4.9).
 *
 * ma_score_rank_near(scores, n, sc, &hint) is ma_score_rank(scores, n, sc) for any hint in 0..n
 * (larger is taken as n), and sets hint to the number of scores below sc. It searches outward
 * from hint, in O(log d) for an answer d places away: scores looked up in a monotone run (a
 * sector's own stored words of one field 1) cost little more than one pass over the scores.
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

static inline int32_t ma_score_rank(const int64_t *scores, size_t n, int64_t sc)
{
    size_t lo = 0;
    if (n) {
        const int64_t *base = scores;
        for (size_t left = n; left > 1; left -= left / 2)
            base = base[left / 2] < sc ? base + left / 2 : base;
        lo = (size_t)(base - scores) + (*base < sc); /* the scores below sc */
    }
    return (int32_t)(2 * lo + (lo < n && scores[lo] == sc));
}

static inline int32_t ma_score_rank_near(const int64_t *scores, size_t n, int64_t sc, size_t *hint)
{
    size_t h = *hint < n ? *hint : n, lo, hi; /* the scores below sc: in lo..hi */
    if (h < n && scores[h] < sc) {
        size_t step = 1;
        for (lo = h + 1; lo + step - 1 < n && scores[lo + step - 1] < sc; step *= 2)
            lo += step;
        hi = lo + step - 1 < n ? lo + step - 1 : n;
    } else {
        size_t step = 1;
        for (hi = h; hi >= step && scores[hi - step] >= sc; step *= 2)
            hi -= step;
        lo = hi >= step ? hi - step + 1 : 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (scores[mid] < sc)
            lo = mid + 1;
        else
            hi = mid;
    }
    *hint = lo;
    return (int32_t)(2 * lo + (lo < n && scores[lo] == sc));
}

#endif
