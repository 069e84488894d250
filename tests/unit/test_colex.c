/* indexer/colex: the two-table rank is the colex rank. Every k-subset of the 24 points, k = 0..12,
 * taken in increasing numeric order (Gosper's successor) gets the ranks 0, 1, 2, ... in turn, and
 * random sets of any size get the sum of C(p_i, i) computed from its definition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "indexer/colex.h"
#include "support.h"

static uint64_t binomial(int n, int k)
{
    if (k < 0 || k > n)
        return 0;
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

static ma_colex *built(void)
{
    ma_colex *t = malloc(sizeof *t);
    assert_non_null(t);
    ma_colex_build(t);
    return t;
}

static void test_subsets_in_numeric_order_rank_0_1_2(void **state)
{
    (void)state;
    ma_colex *t = built();
    for (int k = 0; k <= 12; k++) {
        uint64_t n = 0;
        uint32_t m = k ? (1u << k) - 1u : 0u;
        for (;;) {
            if (ma_colex_rank(t, m) != n)
                fail_msg("k = %d: subset %06x ranks %u, its place is %llu", k, m,
                         ma_colex_rank(t, m), (unsigned long long)n);
            n++;
            if (m == 0)
                break;
            uint32_t c = m & (0u - m), r = m + c;
            m = (((r ^ m) >> 2) / c) | r;
            if (m >= 1u << 24)
                break;
        }
        assert_int_equal(n, binomial(24, k));
    }
    free(t);
}

static void test_random_sets_rank_by_the_definition(void **state)
{
    (void)state;
    ma_colex *t = built();
    uint64_t x = 0x853C49E6748FEA9Bull;
    for (int k = 0; k <= 24; k++)
        for (int i = 0; i < 2000; i++) {
            uint32_t c = ma_test_random_points(&x, k, 0);
            uint64_t want = 0;
            int place = 0;
            for (int p = 0; p < 24; p++)
                if (c >> p & 1u)
                    want += binomial(p, ++place);
            assert_int_equal(ma_colex_rank(t, c), want);
        }
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subsets_in_numeric_order_rank_0_1_2),
        cmocka_unit_test(test_random_sets_rank_by_the_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
