/* Unit tests for verifier/check/rules_desc: the description read off the checker's rules says what the
 * rules are (std, lask, mora each in its own words), and the three fingerprints are pinned: a
 * change of the checker's rules, or of the description, must change this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "verifier/check/rules_desc.h"

/* SHA-256 of each description; also pinned in tests/integration/test_attest.py */
#define STD_FP "39608b5a816f7f0e4617a6b39099dc3bff34540b250bb08b9b3671615196f691"
#define LASK_FP "0c001c209059aaba902601f824ef307dab429fc4d2ce1b70d1f34910ade7793d"
#define MORA_FP "ec021fd86a3df299f05b2317e4cf87bf50708da6db2ef6000d66963ef501cd8e"

static const char *line(const char *desc, const char *key, char *buf, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = desc; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!strncmp(p, key, kl) && p[kl] == ' ') {
            size_t n = (size_t)(e - p - (ptrdiff_t)kl - 1);
            if (n >= len)
                n = len - 1;
            memcpy(buf, p + kl + 1, n);
            buf[n] = '\0';
            return buf;
        }
        p = e ? e + 1 : NULL;
    }
    return NULL;
}

static int count_words(const char *s)
{
    int n = 0;
    for (const char *p = s; *p; p++)
        n += (p == s || p[-1] == ' ') && *p != ' ';
    return n;
}

static void test_descriptions_say_the_rules(void **state)
{
    (void)state;
    char std[MA_RULES_DESC_MAX], lask[MA_RULES_DESC_MAX], mora[MA_RULES_DESC_MAX], v[1024];
    ma_error err;
    assert_int_equal(ma_rules_describe(MA_VARIANT_STD, std, sizeof std, &err), MA_OK);
    assert_int_equal(ma_rules_describe(MA_VARIANT_LASK, lask, sizeof lask, &err), MA_OK);
    assert_int_equal(ma_rules_describe(MA_VARIANT_MORA, mora, sizeof mora, &err), MA_OK);
    assert_int_equal(strncmp(std, "millaudit-rules 1\nvariant std\nstones 9\npoints 24\n", 48), 0);
    assert_string_equal(line(lask, "stones", v, sizeof v), "10");
    assert_string_equal(line(mora, "stones", v, sizeof v), "12");
    /* the board: 32 edges and 16 mills; Morabaraba's diagonals add 8 edges and 4 mills */
    assert_int_equal(count_words(line(std, "edges", v, sizeof v)), 32);
    assert_int_equal(count_words(line(mora, "edges", v, sizeof v)), 40);
    assert_int_equal(count_words(line(std, "mills", v, sizeof v)), 16);
    assert_int_equal(count_words(line(mora, "mills", v, sizeof v)), 20);
    assert_non_null(strstr(line(mora, "mills", v, sizeof v), "a1-b2-c3"));
    assert_string_equal(line(std, "placement", v, sizeof v), "before-movement");
    assert_string_equal(line(lask, "placement", v, sizeof v), "mixed-with-movement");
    assert_string_equal(line(mora, "placement", v, sizeof v), "before-movement");
    for (int i = 0; i < 3; i++) {
        const char *d = i == 0 ? std : i == 1 ? lask : mora;
        assert_string_equal(line(d, "flying", v, sizeof v), "3");
        assert_string_equal(line(d, "loss-below", v, sizeof v), "3");
        assert_string_equal(line(d, "removal", v, sizeof v), "1 protected-in-mills-unless-all");
        assert_string_equal(line(d, "removal-without-target", v, sizeof v), "turn-not-allowed");
        assert_string_equal(line(d, "no-turn", v, sizeof v), "loss");
    }
    assert_string_equal(line(std, "full-board", v, sizeof v), "none");
    assert_string_equal(line(lask, "full-board", v, sizeof v), "none");
    assert_string_equal(line(mora, "full-board", v, sizeof v), "draw");
    assert_int_equal(std[strlen(std) - 1], '\n');
}

static void test_fingerprints_are_pinned_and_differ(void **state)
{
    (void)state;
    char a[65], b[65], c[65], again[65];
    ma_error err;
    assert_int_equal(ma_rules_fingerprint(MA_VARIANT_STD, a, &err), MA_OK);
    assert_int_equal(ma_rules_fingerprint(MA_VARIANT_LASK, b, &err), MA_OK);
    assert_int_equal(ma_rules_fingerprint(MA_VARIANT_MORA, c, &err), MA_OK);
    assert_string_equal(a, STD_FP);
    assert_string_equal(b, LASK_FP);
    assert_string_equal(c, MORA_FP);
    assert_int_equal(ma_rules_fingerprint(MA_VARIANT_STD, again, &err), MA_OK);
    assert_string_equal(again, a); /* stable within a process: nothing depends on state */
}

static void test_refusals(void **state)
{
    (void)state;
    char buf[MA_RULES_DESC_MAX], hex[65];
    ma_error err;
    assert_int_equal(ma_rules_describe((ma_variant)7, buf, sizeof buf, &err), MA_EINVAL);
    assert_int_equal(ma_rules_fingerprint((ma_variant)0, hex, &err), MA_EINVAL);
    /* a buffer too small is refused, never cut silently */
    assert_int_equal(ma_rules_describe(MA_VARIANT_STD, buf, 100, &err), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptions_say_the_rules),
        cmocka_unit_test(test_fingerprints_are_pinned_and_differ),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
