/* verifier/check/score_sort.h: the natural merge sort orders any input by score and keeps every element,
 * on the shapes rank tables give it (monotone runs, ties) and on shapes they do not (random,
 * strictly and weakly decreasing, one element, none); a score's rank is the count of the scores
 * below it, doubled, plus one when it is one of them, for every table size and every place. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verifier/check/score_sort.h"

static int cmp_pair(const void *a, const void *b)
{
    const ma_scored *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Sorts a copy with ma_score_sort and checks it against qsort by (score, id): the scores must be
 * in order and the (score, id) pairs the same multiset. */
static void expect_sorted(const ma_scored *in, size_t n)
{
    ma_scored *a = malloc((n ? n : 1) * sizeof *a), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    ma_scored *want = malloc((n ? n : 1) * sizeof *want);
    assert_non_null(a);
    assert_non_null(tmp);
    assert_non_null(want);
    if (n) {
        memcpy(a, in, n * sizeof *a);
        memcpy(want, in, n * sizeof *want);
    }
    ma_score_sort(a, n, tmp);
    for (size_t i = 1; i < n; i++)
        assert_true(a[i - 1].score <= a[i].score);
    qsort(want, n, sizeof *want, cmp_pair);
    qsort(a, n, sizeof *a, cmp_pair); /* ties may come in any order: compare as multisets */
    for (size_t i = 0; i < n; i++) {
        assert_true(a[i].score == want[i].score);
        assert_int_equal(a[i].id, want[i].id);
    }
    free(a);
    free(tmp);
    free(want);
}

static void test_shapes(void **state)
{
    (void)state;
    enum { N = 5000 };
    ma_scored *in = malloc(N * sizeof *in);
    assert_non_null(in);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, N};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        for (int shape = 0; shape < 7; shape++) {
            for (size_t i = 0; i < n; i++) {
                int64_t v;
                switch (shape) {
                case 0: v = (int64_t)next_random(&seed); break;            /* random, full range */
                case 1: v = (int64_t)(next_random(&seed) % 5) - 2; break;  /* many ties */
                case 2: v = (int64_t)i; break;                              /* sorted */
                case 3: v = -(int64_t)i; break;                             /* strictly decreasing */
                case 4: v = -(int64_t)(i / 3); break;                       /* decreasing with ties */
                case 5: /* runs of 17, alternately rising and falling, interleaved in range */
                    v = (int64_t)((i / 17) % 2 ? 17 - i % 17 : i % 17) * 1000 + (int64_t)(i / 17);
                    break;
                default: /* rank-table shape: field 1 blocks, monotone in field 2, sign by field 1 */
                {
                    int64_t f1 = (int64_t)(i / 64) - 30, f2 = (int64_t)(i % 64);
                    v = f1 * ((int64_t)1 << 33) + (f1 > 0 ? -f2 : f2);
                    break;
                }
                }
                in[i].score = v;
                in[i].id = (uint32_t)(next_random(&seed) % 1000);
            }
            expect_sorted(in, n);
        }
    }
    free(in);
}

static void test_extreme_scores(void **state)
{
    (void)state;
    ma_scored in[] = {{INT64_MAX, 1}, {INT64_MIN, 2}, {0, 3}, {INT64_MIN, 4}, {-1, 5}, {INT64_MAX, 6}};
    expect_sorted(in, sizeof in / sizeof *in);
}

/* The rank by definition: 2 * (scores below sc) + (sc is one of them). */
static int32_t rank_by_count(const int64_t *s, size_t n, int64_t sc)
{
    size_t below = 0;
    int hit = 0;
    for (size_t i = 0; i < n; i++) {
        below += s[i] < sc;
        hit |= s[i] == sc;
    }
    return (int32_t)(2 * below + (size_t)hit);
}

/* Fills s[0..n) with ascending scores from -99 on, gaps of 1 to 3 drawn from *x; returns the last
 * (-100 for none). */
static int64_t distinct_scores(int64_t *s, size_t n, uint32_t *x)
{
    int64_t v = -100;
    for (size_t i = 0; i < n; i++) {
        *x = *x * 1103515245u + 12345u;
        v += 1 + (int64_t)(*x >> 16) % 3;
        s[i] = v;
    }
    return v;
}

/* Tables of 0 to 70 distinct scores with gaps of 1 to 3; every score, every gap, below the first
 * and above the last, and the extremes. */
static void test_rank_at_every_place(void **state)
{
    (void)state;
    int64_t s[70];
    uint32_t x = 12345;
    for (size_t n = 0; n <= 70; n++) {
        int64_t v = distinct_scores(s, n, &x);
        for (int64_t sc = -102; sc <= v + 2; sc++)
            assert_int_equal(ma_score_rank(s, n, sc), rank_by_count(s, n, sc));
        assert_int_equal(ma_score_rank(s, n, INT64_MIN), rank_by_count(s, n, INT64_MIN));
        assert_int_equal(ma_score_rank(s, n, INT64_MAX), rank_by_count(s, n, INT64_MAX));
    }
}

/* ma_score_rank_near agrees with the plain search from every hint, and leaves the count below. */
static void test_rank_near_from_every_hint(void **state)
{
    (void)state;
    int64_t s[70];
    uint32_t x = 54321;
    for (size_t n = 0; n <= 70; n++) {
        int64_t v = distinct_scores(s, n, &x);
        for (size_t h0 = 0; h0 <= n + 2; h0++) {
            for (int64_t sc = -102; sc <= v + 2; sc++) {
                size_t hint = h0;
                int32_t r = ma_score_rank_near(s, n, sc, &hint);
                assert_int_equal(r, rank_by_count(s, n, sc));
                assert_int_equal(hint, (size_t)rank_by_count(s, n, sc) / 2);
            }
            size_t hint = h0;
            assert_int_equal(ma_score_rank_near(s, n, INT64_MIN, &hint), 0);
            assert_int_equal(hint, 0);
            hint = h0;
            assert_int_equal(ma_score_rank_near(s, n, INT64_MAX, &hint), rank_by_count(s, n, INT64_MAX));
            assert_int_equal(hint, n);
        }
        /* a run up and a run down, each hint the last answer */
        size_t hint = 0;
        for (int64_t sc = -102; sc <= v + 2; sc++)
            assert_int_equal(ma_score_rank_near(s, n, sc, &hint), rank_by_count(s, n, sc));
        for (int64_t sc = v + 2; sc >= -102; sc--)
            assert_int_equal(ma_score_rank_near(s, n, sc, &hint), rank_by_count(s, n, sc));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_extreme_scores),
        cmocka_unit_test(test_rank_at_every_place),
        cmocka_unit_test(test_rank_near_from_every_hint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
