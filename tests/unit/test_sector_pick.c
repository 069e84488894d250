/* Unit tests for verifier/formats/sector_pick: lists of --sector values, matching with and without a
 * variant, and that an empty value or item is refused instead of selecting everything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "verifier/formats/sector_pick.h"

static void test_lists_and_matching(void **state)
{
    (void)state;
    ma_sector_pick p[8];
    size_t n = 0;
    ma_error err;
    assert_int_equal(ma_sector_picks_parse("1_0_8_3,std_0_0_9_9", p, 8, &n, &err), MA_OK);
    assert_int_equal(ma_sector_picks_parse("lask_3_3_0_0.sec2", p, 8, &n, &err), MA_OK);
    assert_int_equal(n, 3);
    assert_string_equal(p[1].text, "std_0_0_9_9");
    ma_sector a = {1, 0, 8, 3}, b = {0, 0, 9, 9}, c = {3, 3, 0, 0};
    assert_true(ma_sector_picks_match(p, n, MA_VARIANT_MORA, a)); /* no variant named: any */
    assert_false(ma_sector_picks_match(p, n, MA_VARIANT_LASK, b)); /* std only */
    assert_non_null(ma_sector_picks_unmatched(p, n));
    assert_true(ma_sector_picks_match(p, n, MA_VARIANT_STD, b));
    assert_ptr_equal(ma_sector_picks_unmatched(p, n), &p[2]);
    assert_false(ma_sector_picks_match(p, n, MA_VARIANT_STD, c));
    assert_true(ma_sector_picks_match(p, n, MA_VARIANT_LASK, c));
    assert_null(ma_sector_picks_unmatched(p, n));
    /* no picks: everything is picked */
    assert_true(ma_sector_picks_match(p, 0, MA_VARIANT_STD, c));
}

static void test_refusals(void **state)
{
    (void)state;
    ma_sector_pick p[2];
    ma_error err;
    static const char *const bad[] = {"", ",", "5_4_0_0,", ",5_4_0_0", "5_4_0_0,,3_3_0_0", "x",
                                      "3_3", "std", "5-4-0-0",
                                      "1111111111111111111111111111111111111111111111111111111111111111"
                                      "1111111111111111111111111111111111111111111111111111111111111111"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        size_t n = 0;
        assert_int_equal(ma_sector_picks_parse(bad[i], p, 2, &n, &err), MA_EINVAL);
        assert_non_null(strstr(err.msg, "expected W_B_WF_BF or <variant>_W_B_WF_BF"));
    }
    /* an overlong pick is shown by its first 40 characters, so the one line stays short */
    size_t n = 0;
    assert_int_equal(ma_sector_picks_parse(bad[sizeof bad / sizeof *bad - 1], p, 2, &n, &err), MA_EINVAL);
    assert_int_equal(strncmp(err.msg, "'1111111111111111111111111111111111111111...': ", 47), 0);
    assert_int_equal(ma_sector_picks_parse("1_1_0_0,2_2_0_0,3_3_0_0", p, 2, &n, &err), MA_EINVAL);
    assert_int_equal(n, 2);
    assert_non_null(strstr(err.msg, "too many"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_and_matching),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
