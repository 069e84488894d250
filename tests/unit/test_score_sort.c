/* check/score_sort.h: the natural merge sort orders any input by score and keeps every element,
 * on the shapes rank tables give it (monotone runs, ties) and on shapes they do not (random,
 * strictly and weakly decreasing, one element, none). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check/score_sort.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_extreme_scores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
