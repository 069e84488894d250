/* Unit tests for common/json_text: a store's string as JSON, odd bytes spelled \xNN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json_text.h"

static void expect_text(const char *in, const char *want)
{
    json_t *j = ma_json_store_text(in);
    assert_non_null(j);
    assert_true(json_is_string(j));
    assert_string_equal(json_string_value(j), want);
    json_decref(j);
}

static void test_null_is_json_null(void **state)
{
    (void)state;
    json_t *j = ma_json_store_text(NULL);
    assert_true(json_is_null(j));
    json_decref(j);
    j = ma_json_text(NULL); /* the variant for values that are never null */
    assert_string_equal(json_string_value(j), "");
    json_decref(j);
}

static void test_valid_utf8_unchanged(void **state)
{
    (void)state;
    expect_text("", "");
    expect_text("/data/std db", "/data/std db");
    expect_text("/data/M\xC3\xBChle", "/data/M\xC3\xBChle"); /* "Mühle" */
}

static void test_invalid_bytes_escaped(void **state)
{
    (void)state;
    /* a lone Latin-1 byte and a truncated sequence are escaped; a valid sequence beside them is
     * kept (one escaper for the whole tool: verify --json and the JSON report spell a name alike) */
    expect_text("/data/M\xFChle", "/data/M\\xfchle");
    expect_text("a\xC3", "a\\xc3");
    expect_text("\xC3\xBC\xFF", "\xC3\xBC\\xff");
    expect_text("\xE0\x80\x80", "\\xe0\\x80\\x80"); /* overlong */
    expect_text("\xED\xA0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
    expect_text("\xF5\x80\x80", "\\xf5\\x80\\x80"); /* no lead byte of any sequence */
    expect_text("\xF4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    expect_text("\xF0\x9F\x98\x80 \xE2\x82\xAC", "\xF0\x9F\x98\x80 \xE2\x82\xAC"); /* kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_is_json_null),
        cmocka_unit_test(test_valid_utf8_unchanged),
        cmocka_unit_test(test_invalid_bytes_escaped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
