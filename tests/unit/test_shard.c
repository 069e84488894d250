/* Unit tests for verifier/shard: the partition is a function of the sectors alone (input order
 * does not matter), covers every sector exactly once, weights flying sectors, and balances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/shard.h"

enum { N = 40 };

static void make(ma_shard_item *items, char names[][40], int reverse)
{
    for (int i = 0; i < N; i++) {
        int k = reverse ? N - 1 - i : i;
        ma_sector s = {(uint8_t)(3 + k % 6), (uint8_t)(3 + (k / 6) % 6), 0, 0};
        snprintf(names[i], 40, "std_%d_%d_0_0_%d", s.w, s.b, k);
        items[i] = (ma_shard_item){MA_VARIANT_STD, s, names[i], 1000u + (uint64_t)(k * 7919 % 5000), 0, 0};
    }
}

static void test_partition_is_independent_of_input_order(void **state)
{
    (void)state;
    ma_shard_item a[N], b[N];
    char na[N][40], nb[N][40];
    make(a, na, 0);
    make(b, nb, 1);
    ma_error err;
    assert_int_equal(ma_shard_partition(a, N, 4, &err), MA_OK);
    assert_int_equal(ma_shard_partition(b, N, 4, &err), MA_OK);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (!strcmp(a[i].name, b[j].name))
                assert_int_equal(a[i].shard, b[j].shard);
}

static void test_partition_balances_and_weights_flying_sectors(void **state)
{
    (void)state;
    ma_shard_item a[N];
    char na[N][40];
    make(a, na, 0);
    ma_error err;
    assert_int_equal(ma_shard_partition(a, N, 4, &err), MA_OK);
    double load[4] = {0}, total = 0, biggest = 0;
    for (int i = 0; i < N; i++) {
        assert_true(a[i].shard < 4);
        load[a[i].shard] += a[i].cost;
        total += a[i].cost;
        if (a[i].cost > biggest)
            biggest = a[i].cost;
        /* a 3-stone mover in the movement phase flies: three times the work per entry */
        assert_true(a[i].cost == (double)a[i].entries * (a[i].sector.w == 3 ? 3.0 : 1.0));
    }
    for (int s = 0; s < 4; s++)
        assert_true(load[s] <= total / 4 + biggest); /* greedy LPT bound */
    assert_int_equal(ma_shard_partition(a, N, 0, &err), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_is_independent_of_input_order),
        cmocka_unit_test(test_partition_balances_and_weights_flying_sectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
