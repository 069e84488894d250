/* Unit tests for solver/svsector: names, the coarse sector graph, closures, component order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "solver/svsector.h"

static ma_svrules rules(int variant)
{
    ma_svrules r;
    assert_int_equal(ma_svrules_init(&r, variant, MA_SVBUG_NONE, NULL), MA_OK);
    return r;
}

static ma_sv_sector sec(const char *text)
{
    ma_sv_sector s;
    assert_int_equal(ma_svsector_parse(&s, text, NULL), MA_OK);
    return s;
}

/* children of `from` as a sorted, space-separated string */
static void children_text(char *buf, size_t n, const ma_svrules *r, const char *from, int *loop)
{
    ma_sv_sector kids[8];
    int nk = ma_svsector_children(r, sec(from), kids, loop);
    char names[8][32];
    for (int i = 0; i < nk; i++)
        ma_svsector_format(names[i], sizeof names[i], kids[i]);
    qsort(names, (size_t)nk, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    buf[0] = '\0';
    for (int i = 0; i < nk; i++) {
        strncat(buf, names[i], n - strlen(buf) - 1);
        if (i + 1 < nk)
            strncat(buf, " ", n - strlen(buf) - 1);
    }
}

static void test_parse_and_format(void **state)
{
    (void)state;
    ma_sv_sector s;
    char buf[32];
    assert_int_equal(ma_svsector_parse(&s, "8_9_1_0", NULL), MA_OK);
    ma_svsector_format(buf, sizeof buf, s);
    assert_string_equal(buf, "8_9_1_0");
    ma_error e;
    assert_int_equal(ma_svsector_parse(&s, "3_3_0", &e), MA_EINVAL);
    assert_non_null(strstr(e.msg, "3_3_0"));
    assert_int_equal(ma_svsector_parse(&s, "3_3_0_0_", NULL), MA_EINVAL);
    assert_int_equal(ma_svsector_parse(&s, "a_3_0_0", NULL), MA_EINVAL);
    assert_int_equal(ma_svsector_parse(&s, "", NULL), MA_EINVAL);
    ma_svrules r = rules(MA_SV_STD);
    assert_false(ma_svrules_sector_valid(&r, sec("10_3_0_0")));
    assert_false(ma_svrules_sector_valid(&r, sec("2_3_0_0")));
    assert_true(ma_svrules_sector_valid(&r, sec("3_3_0_0")));
}

static void test_children_examples(void **state)
{
    (void)state;
    ma_svrules s = rules(MA_SV_STD), l = rules(MA_SV_LASK);
    char buf[256];
    int loop;
    children_text(buf, sizeof buf, &s, "0_0_9_9", &loop);
    assert_string_equal(buf, "0_1_9_8");
    children_text(buf, sizeof buf, &s, "2_2_7_7", &loop);
    assert_string_equal(buf, "1_3_7_6 2_3_7_6");
    children_text(buf, sizeof buf, &s, "3_3_0_0", &loop);
    assert_string_equal(buf, "");
    assert_true(loop);
    children_text(buf, sizeof buf, &s, "8_9_1_0", &loop);
    assert_string_equal(buf, "8_9_0_0 9_9_0_0");
    assert_false(loop);
    children_text(buf, sizeof buf, &l, "1_1_9_9", &loop);
    assert_string_equal(buf, "0_1_9_9 0_2_9_8 1_2_9_8");
}

static int count_sectors(const ma_svcomponent *c, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += c[i].n;
    return total;
}

static void test_whole_game_closures(void **state)
{
    (void)state;
    static const int want[4] = {0, 498, 3070, 1216};
    for (int v = MA_SV_STD; v <= MA_SV_MORA; v++) {
        ma_svrules r = rules(v);
        ma_sv_sector start = {0, 0, r.stones, r.stones};
        ma_svcomponent *c;
        int n;
        assert_int_equal(ma_svsector_order(&r, &start, 1, &c, &n, NULL), MA_OK);
        assert_int_equal(count_sectors(c, n), want[v]);
        free(c);
    }
}

static int position_of(const ma_svcomponent *c, int n, ma_sv_sector s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c[i].n; j++)
            if (ma_svrules_sector_eq(c[i].s[j], s))
                return i;
    return -1;
}

/* Children come first, twin pairs and self-loops are cyclic, placement sectors are not. */
static void check_order(int variant, int k)
{
    ma_svrules r = rules(variant);
    ma_sv_sector start = {0, 0, k, k};
    ma_svcomponent *c;
    int n;
    assert_int_equal(ma_svsector_order(&r, &start, 1, &c, &n, NULL), MA_OK);
    assert_true(ma_svrules_sector_eq(c[n - 1].s[0], start));
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < c[i].n; j++) {
            ma_sv_sector s = c[i].s[j], kids[8];
            int loop;
            int nk = ma_svsector_children(&r, s, kids, &loop);
            for (int q = 0; q < nk; q++) {
                int pos = position_of(c, n, kids[q]);
                assert_true(pos >= 0 && pos <= i);
            }
            int moving = variant == MA_SV_LASK ? s.w > 0 && s.b > 0 : s.wf == 0 && s.bf == 0;
            assert_int_equal(c[i].cyclic, moving);
        }
        if (c[i].n == 2)
            assert_true(ma_svrules_sector_eq(c[i].s[0], ma_svrules_negate(c[i].s[1])));
    }
    free(c);
}

static void test_component_order(void **state)
{
    (void)state;
    check_order(MA_SV_STD, 4);
    check_order(MA_SV_STD, 9);
    check_order(MA_SV_LASK, 10);
    check_order(MA_SV_MORA, 12);
    ma_svrules r = rules(MA_SV_STD);
    ma_sv_sector s = sec("3_4_0_0");
    ma_svcomponent *c;
    int n;
    assert_int_equal(ma_svsector_order(&r, &s, 1, &c, &n, NULL), MA_OK);
    assert_int_equal(n, 2); /* {3_3_0_0}, then {3_4_0_0, 4_3_0_0} */
    assert_int_equal(c[1].n, 2);
    assert_true(c[0].cyclic && c[1].cyclic);
    free(c);
    ma_sv_sector bad = sec("10_3_0_0");
    ma_error e;
    assert_int_equal(ma_svsector_order(&r, &bad, 1, &c, &n, &e), MA_EINVAL);
    assert_non_null(strstr(e.msg, "10_3_0_0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_format),
        cmocka_unit_test(test_children_examples),
        cmocka_unit_test(test_whole_game_closures),
        cmocka_unit_test(test_component_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
