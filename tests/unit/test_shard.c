/* Unit tests for verifier/run/shard: the partition is a function of the sectors alone (input order
 * does not matter), covers every sector exactly once, weights flying sectors, and balances. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/run/shard.h"

#include "tests/unit/support.h"

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


/* manifest create --shard: a sector file gets its sector's shard of the plan, every other file 0. */
static void test_files_follow_their_sectors(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_shard.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[] = {"std_3_3_0_0.mdb", "std_4_4_0_0.mdb", "std_4_3_0_0.mdb", "README"};
    const size_t sizes[] = {128 + 2 * 100, 128 + 2 * 5000, 128 + 2 * 90, 10};
    unsigned char *zero = calloc(1, 16384);
    assert_non_null(zero);
    for (int i = 0; i < 4; i++) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        ma_test_spit(p, zero, sizes[i]);
    }
    free(zero);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    const char *rel[] = {"README", "std_3_3_0_0.mdb", "std_4_3_0_0.mdb", "std_4_4_0_0.mdb", "sub/std_4_4_0_0.mdb"};
    unsigned of[5];
    assert_int_equal(ma_shard_of_files(db, 2, rel, 5, of, &err), MA_OK);
    assert_int_equal(of[3], 0); /* the largest sector first, to shard 0 */
    assert_int_equal(of[1], 1);
    assert_int_equal(of[2], 1);
    assert_int_equal(of[0], 0); /* not a sector file */
    assert_int_equal(of[4], 0); /* not in the root: not the sector's file */
    assert_int_equal(ma_shard_of_files(db, 0, rel, 5, of, &err), MA_EINVAL);
    ma_database_close(db);
    ma_test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_is_independent_of_input_order),
        cmocka_unit_test(test_partition_balances_and_weights_flying_sectors),
        cmocka_unit_test(test_files_follow_their_sectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
