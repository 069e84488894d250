/* Natural merge sort of scored words; contract in score_sort.h. */
#include "verifier/check/score_sort.h"

#include <string.h>

/* The end of the non-decreasing run that starts at lo. */
static size_t run_end(const ma_scored *a, size_t lo, size_t n)
{
    size_t hi = lo + 1;
    while (hi < n && a[hi].score >= a[hi - 1].score)
        hi++;
    return hi;
}

/* Merges the sorted runs src[lo..mid) and src[mid..hi) into dst[lo..hi). */
static void merge(const ma_scored *src, ma_scored *dst, size_t lo, size_t mid, size_t hi)
{
    size_t i = lo, j = mid, o = lo;
    while (i < mid && j < hi)
        dst[o++] = src[j].score < src[i].score ? src[j++] : src[i++];
    while (i < mid)
        dst[o++] = src[i++];
    while (j < hi)
        dst[o++] = src[j++];
}

void ma_score_sort(ma_scored *a, size_t n, ma_scored *tmp)
{
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo + 1;
        while (hi < n && a[hi].score < a[hi - 1].score)
            hi++;
        for (size_t i = lo, j = hi - 1; i < j; i++, j--) {
            ma_scored t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        lo = hi == lo + 1 ? run_end(a, lo, n) : hi;
    }
    if (n < 2 || run_end(a, 0, n) == n)
        return;
    ma_scored *src = a, *dst = tmp;
    for (size_t runs = 2; runs > 1;) {
        runs = 0;
        for (size_t lo = 0; lo < n; runs++) {
            size_t mid = run_end(src, lo, n);
            size_t hi = mid < n ? run_end(src, mid, n) : n;
            merge(src, dst, lo, mid, hi);
            lo = hi;
        }
        ma_scored *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}
