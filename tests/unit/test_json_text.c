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
    /* a lone Latin-1 byte and a truncated sequence: every byte >= 0x80 of the string is escaped */
    expect_text("/data/M\xFChle", "/data/M\\xFChle");
    expect_text("a\xC3", "a\\xC3");
    expect_text("\xC3\xBC\xFF", "\\xC3\\xBC\\xFF");
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
