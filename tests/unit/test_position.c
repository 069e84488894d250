/* Unit tests for indexer/position: variants, sectors, point names and the board notation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "indexer/position.h"

static void test_variants(void **state)
{
    (void)state;
    ma_variant v;
    ma_error err;
    assert_int_equal(ma_variant_parse("std", &v, &err), MA_OK);
    assert_int_equal(v, MA_VARIANT_STD);
    assert_int_equal(ma_variant_parse("lask", &v, &err), MA_OK);
    assert_int_equal(v, MA_VARIANT_LASK);
    assert_int_equal(ma_variant_parse("mora", &v, &err), MA_OK);
    assert_int_equal(v, MA_VARIANT_MORA);
    assert_int_equal(ma_variant_parse("Std", &v, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "'Std'"));
    assert_string_equal(ma_variant_name(MA_VARIANT_LASK), "lask");
    assert_int_equal(ma_variant_stones(MA_VARIANT_STD), 9);
    assert_int_equal(ma_variant_stones(MA_VARIANT_LASK), 10);
    assert_int_equal(ma_variant_stones(MA_VARIANT_MORA), 12);
}

static void test_sector_parse_and_format(void **state)
{
    (void)state;
    ma_sector s;
    ma_error err;
    char buf[16];
    assert_int_equal(ma_sector_parse("12_11_0_1", &s, &err), MA_OK);
    assert_int_equal(s.w, 12);
    assert_int_equal(s.b, 11);
    assert_int_equal(s.wf, 0);
    assert_int_equal(s.bf, 1);
    ma_sector_format(s, buf, sizeof buf);
    assert_string_equal(buf, "12_11_0_1");
    static const char *bad[] = {"", "3_3_0", "3_3_0_0_0", "3_3_0_x", "25_0_0_0", "3__3_0",
                                "-1_3_0_0", "3_3_0_0 ", "003_3_0_0", "99999999999_0_0_0"};
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(ma_sector_parse(bad[i], &s, &err), MA_EINVAL);
        assert_non_null(strstr(err.msg, "bad sector"));
    }
}

static void test_sector_validity(void **state)
{
    (void)state;
    ma_sector s33 = {3, 3, 0, 0}, start = {0, 0, 9, 9}, two = {2, 3, 0, 0}, over = {9, 0, 1, 3},
              mora_full = {12, 12, 0, 0}, lask_start = {0, 0, 10, 10};
    assert_true(ma_sector_valid(MA_VARIANT_STD, s33));
    assert_true(ma_sector_valid(MA_VARIANT_STD, start));
    assert_false(ma_sector_valid(MA_VARIANT_STD, two));
    assert_false(ma_sector_valid(MA_VARIANT_STD, over));
    assert_true(ma_sector_valid(MA_VARIANT_MORA, mora_full));
    assert_false(ma_sector_valid(MA_VARIANT_STD, mora_full));
    assert_false(ma_sector_valid(MA_VARIANT_STD, lask_start));
    assert_true(ma_sector_valid(MA_VARIANT_LASK, lask_start));
    ma_sector n = ma_sector_negate((ma_sector){1, 2, 3, 4});
    assert_true(ma_sector_equal(n, (ma_sector){2, 1, 4, 3}));
    assert_false(ma_sector_equal(n, (ma_sector){2, 1, 3, 4}));
}

static void test_point_names(void **state)
{
    (void)state;
    assert_int_equal(ma_point_from_name("a1"), 0);
    assert_int_equal(ma_point_from_name("d1"), 1);
    assert_int_equal(ma_point_from_name("b2"), 3);
    assert_int_equal(ma_point_from_name("e4"), 12);
    assert_int_equal(ma_point_from_name("g7"), 23);
    for (int p = 0; p < MA_POINTS; p++)
        assert_int_equal(ma_point_from_name(ma_point_name(p)), p);
    assert_int_equal(ma_point_from_name("d4"), -1); /* the centre is no point */
    assert_int_equal(ma_point_from_name("h1"), -1);
    assert_int_equal(ma_point_from_name("a2"), -1);
    assert_int_equal(ma_point_from_name(""), -1);
    assert_null(ma_point_name(24));
    assert_null(ma_point_name(-1));
}

static void test_board_format(void **state)
{
    (void)state;
    char buf[80];
    ma_board b = {(1u << 0) | (1u << 1) | (1u << 10), (1u << 6) | (1u << 12) | (1u << 17)};
    assert_int_equal(ma_board_format(b, buf, sizeof buf), strlen("a1,d1,b4/c3,e4,e5"));
    assert_string_equal(buf, "a1,d1,b4/c3,e4,e5");
    ma_board empty = {0, 0};
    ma_board_format(empty, buf, sizeof buf);
    assert_string_equal(buf, "-/-");
    ma_board one = {0, 1u << 23};
    ma_board_format(one, buf, sizeof buf);
    assert_string_equal(buf, "-/g7");
    /* The longest board fits in 80 bytes. */
    ma_board full = {0xFFF, 0xFFF000};
    size_t n = ma_board_format(full, buf, sizeof buf);
    assert_int_equal(n, strlen(buf));
    assert_true(n < 80);
    /* A short buffer is truncated but terminated. */
    char small[6];
    assert_int_equal(ma_board_format(b, small, sizeof small), strlen("a1,d1,b4/c3,e4,e5"));
    assert_string_equal(small, "a1,d1");
}

static void test_board_parse_round_trip(void **state)
{
    (void)state;
    uint32_t x = 12345;
    for (int t = 0; t < 2000; t++) {
        ma_board b = {0, 0};
        for (int p = 0; p < MA_POINTS; p++) {
            x = x * 1103515245u + 12345u;
            int r = (x >> 16) % 3;
            if (r == 1)
                b.mover |= 1u << p;
            else if (r == 2)
                b.opp |= 1u << p;
        }
        char buf[80];
        ma_board_format(b, buf, sizeof buf);
        ma_board back;
        ma_error err;
        assert_int_equal(ma_board_parse(buf, &back, &err), MA_OK);
        assert_int_equal(back.mover, b.mover);
        assert_int_equal(back.opp, b.opp);
    }
    ma_board back;
    ma_error err;
    assert_int_equal(ma_board_parse("e5,a1/-", &back, &err), MA_OK); /* any order */
    assert_int_equal(back.mover, (1u << 17) | 1u);
    assert_int_equal(back.opp, 0);
}

static void test_board_parse_rejects(void **state)
{
    (void)state;
    struct {
        const char *text;
        const char *what;
    } bad[] = {
        {"h1/-", "bad point 'h1'"},
        {"a1,a1/-", "'a1' listed twice"},
        {"a1/a1", "'a1' on both sides"},
        {"a1,d1/c3,d1", "'d1' on both sides"},
        {"a1", "expected '<mover>/<opponent>'"},
        {"a1/b2/c3", "expected '<mover>/<opponent>'"},
        {"/a1", "empty side"},
        {"a1,/b2", "trailing ','"},
        {"a1,,d1/-", "bad point ''"},
        {"d4/-", "bad point 'd4'"},
        {"-,a1/-", "bad point '-'"},
        {"a1 /-", "bad point 'a1 '"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ma_board b;
        ma_error err;
        ma_error_clear(&err);
        assert_int_equal(ma_board_parse(bad[i].text, &b, &err), MA_EINVAL);
        if (!strstr(err.msg, bad[i].what))
            fail_msg("'%s': message '%s' lacks '%s'", bad[i].text, err.msg, bad[i].what);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variants),
        cmocka_unit_test(test_sector_parse_and_format),
        cmocka_unit_test(test_sector_validity),
        cmocka_unit_test(test_point_names),
        cmocka_unit_test(test_board_format),
        cmocka_unit_test(test_board_parse_round_trip),
        cmocka_unit_test(test_board_parse_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
