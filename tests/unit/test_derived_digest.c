/* Unit tests for checksums/derived_digest: known digests of tiny value streams, order sensitivity,
 * the open value-word path, refusals. Expected values are SHA-256 of the record bytes written out by
 * hand (docs/reproducibility.md), e.g. sha256(b"W\x01\x00L\x00\x00D\x00\x00"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "checksums/derived_digest.h"

static void digest_of(const char *spec, char hex[65], uint64_t *n)
{
    /* spec: letters W/L/D/? each followed by a depth in decimal, separated by spaces */
    ma_derived_digest d;
    ma_error err;
    assert_int_equal(ma_derived_digest_init(&d, &err), MA_OK);
    for (const char *p = spec; *p;) {
        char o = *p++;
        unsigned depth = 0;
        while (*p >= '0' && *p <= '9')
            depth = depth * 10 + (unsigned)(*p++ - '0');
        assert_int_equal(ma_derived_digest_add(&d, (ma_derived_outcome)o, depth, &err), MA_OK);
        while (*p == ' ')
            p++;
    }
    assert_int_equal(ma_derived_digest_final(&d, hex, n, &err), MA_OK);
}

static void test_empty_stream_is_sha256_of_nothing(void **state)
{
    (void)state;
    char hex[65];
    uint64_t n = 99;
    digest_of("", hex, &n);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_int_equal(n, 0);
}

static void test_known_values(void **state)
{
    (void)state;
    char hex[65];
    uint64_t n;
    digest_of("W1 L0 D0", hex, &n);
    assert_string_equal(hex, "b0bb65bce2fde6021b51f35b48b689e2cccc7972c175821c248f0deb6d34d331");
    assert_int_equal(n, 3);
    /* depth 269 = 0x010D little-endian, then an unknown value */
    digest_of("W269 ?0", hex, &n);
    assert_string_equal(hex, "0c4d17f14cafa145fcb0f5df85769294009b298b3606d68c63f36633cc8ab8a5");
}

static void test_order_matters(void **state)
{
    (void)state;
    char a[65], b[65];
    digest_of("W1 L0 D0", a, NULL);
    digest_of("L0 W1 D0", b, NULL);
    assert_string_equal(b, "3ab73b27d71750fed34ae00eb97cecc3971281e26e4959e5e30d7e8cd8d79d30");
    assert_string_not_equal(a, b);
}

static void test_one_depth_changes_the_digest(void **state)
{
    (void)state;
    char a[65], b[65];
    digest_of("W1 W3 L2", a, NULL);
    digest_of("W1 W5 L2", b, NULL);
    assert_string_not_equal(a, b);
}

static void test_words_give_the_same_stream(void **state)
{
    (void)state;
    ma_derived_digest d;
    ma_error err;
    char hex[65];
    assert_int_equal(ma_derived_digest_init(&d, &err), MA_OK);
    assert_int_equal(ma_derived_digest_add_word(&d, 0xC001, &err), MA_OK); /* win 1 */
    assert_int_equal(ma_derived_digest_add_word(&d, 0x4000, &err), MA_OK); /* loss 0 */
    assert_int_equal(ma_derived_digest_add_word(&d, 0x8000, &err), MA_OK); /* draw */
    /* bad encodings add nothing */
    assert_int_equal(ma_derived_digest_add_word(&d, 0x0000, &err), MA_EFORMAT);
    assert_int_equal(ma_derived_digest_add_word(&d, 0xC002, &err), MA_EFORMAT);
    assert_int_equal(ma_derived_digest_add_word(&d, 0x8001, &err), MA_EFORMAT);
    assert_int_equal(ma_derived_digest_final(&d, hex, NULL, &err), MA_OK);
    assert_string_equal(hex, "b0bb65bce2fde6021b51f35b48b689e2cccc7972c175821c248f0deb6d34d331");
}

static void test_large_stream_crosses_the_batch(void **state)
{
    (void)state;
    /* 5000 records: more than one internal batch; the same as one draw-by-draw stream */
    ma_derived_digest d, e;
    ma_error err;
    char a[65], b[65];
    assert_int_equal(ma_derived_digest_init(&d, &err), MA_OK);
    assert_int_equal(ma_derived_digest_init(&e, &err), MA_OK);
    for (unsigned i = 0; i < 5000; i++) {
        assert_int_equal(ma_derived_digest_add(&d, MA_DERIVED_WIN, 2 * (i % 100) + 1, &err), MA_OK);
        assert_int_equal(ma_derived_digest_add_word(&e, (uint16_t)(0xC000 | (2 * (i % 100) + 1)), &err), MA_OK);
    }
    uint64_t n;
    assert_int_equal(ma_derived_digest_final(&d, a, &n, &err), MA_OK);
    assert_int_equal(ma_derived_digest_final(&e, b, NULL, &err), MA_OK);
    assert_int_equal(n, 5000);
    assert_string_equal(a, b);
    assert_true(ma_derived_digest_hex_valid(a));
}

static void test_refusals(void **state)
{
    (void)state;
    ma_derived_digest d;
    ma_error err;
    assert_int_equal(ma_derived_digest_init(&d, &err), MA_OK);
    assert_int_equal(ma_derived_digest_add(&d, MA_DERIVED_DRAW, 3, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "draw"));
    assert_int_equal(ma_derived_digest_add(&d, MA_DERIVED_UNKNOWN, 1, &err), MA_EINVAL);
    assert_int_equal(ma_derived_digest_add(&d, (ma_derived_outcome)'X', 1, &err), MA_EINVAL);
    assert_int_equal(ma_derived_digest_add(&d, MA_DERIVED_WIN, 70000, &err), MA_EINVAL);
    char hex[65];
    uint64_t n;
    assert_int_equal(ma_derived_digest_final(&d, hex, &n, &err), MA_OK);
    assert_int_equal(n, 0); /* nothing refused was added */
    /* a finished stream refuses more values */
    assert_int_equal(ma_derived_digest_add(&d, MA_DERIVED_WIN, 1, &err), MA_EINVAL);
    ma_derived_digest_abort(&d);
    assert_false(ma_derived_digest_hex_valid("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855"));
    assert_false(ma_derived_digest_hex_valid("e3b0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_stream_is_sha256_of_nothing),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_order_matters),
        cmocka_unit_test(test_one_depth_changes_the_digest),
        cmocka_unit_test(test_words_give_the_same_stream),
        cmocka_unit_test(test_large_stream_crosses_the_batch),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
