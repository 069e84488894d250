/* Unit tests for common/: error messages and exit-code mapping (progress: test_progress.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/ma_error.h"

static void test_error_set_formats_and_returns_code(void **state)
{
    (void)state;
    ma_error e;
    ma_error_clear(&e);
    int rc = ma_error_set(&e, MA_EFORMAT, "%s: sector %s: offset %d: bad magic", "f.mdb", "3_3_0_0", 0);
    assert_int_equal(rc, MA_EFORMAT);
    assert_int_equal(e.code, MA_EFORMAT);
    assert_string_equal(e.msg, "f.mdb: sector 3_3_0_0: offset 0: bad magic");
}

static void test_error_message_is_one_line(void **state)
{
    (void)state;
    ma_error e;
    ma_error_set(&e, MA_EIO, "a\nb\rc\x1b[31m\\x");
    assert_null(strchr(e.msg, '\n'));
    assert_null(strchr(e.msg, '\r'));
    /* escaped, not blanked, and a backslash of text escaped before stays one backslash */
    assert_string_equal(e.msg, "a\\nb\\rc\\x1b[31m\\x");
}

static void test_exit_codes_are_distinct_for_mismatch_and_bad_input(void **state)
{
    (void)state;
    assert_int_equal(ma_exit_code_for(MA_OK), MA_EXIT_OK);
    assert_int_equal(ma_exit_code_for(MA_EFORMAT), MA_EXIT_BAD_INPUT);
    assert_int_equal(ma_exit_code_for(MA_EMISSING), MA_EXIT_BAD_INPUT);
    assert_int_equal(ma_exit_code_for(MA_EIO), MA_EXIT_IO);
    assert_int_equal(ma_exit_code_for(MA_EINTERNAL), MA_EXIT_INTERNAL);
    assert_int_not_equal(MA_EXIT_MISMATCH, MA_EXIT_BAD_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_set_formats_and_returns_code),
        cmocka_unit_test(test_error_message_is_one_line),
        cmocka_unit_test(test_exit_codes_are_distinct_for_mismatch_and_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
