/* Unit tests for common/: error messages and exit-code mapping (progress: test_progress.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/fileio.h"
#include "common/ma_error.h"
#include "common/verdict.h"

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

/* An interrupted run counts the sectors it carried over apart from those it checked (issue 41). */
static void test_interrupted_words_count_carried_sectors_apart(void **state)
{
    (void)state;
    char buf[160];
    ma_verdict_interrupted_words(buf, sizeof buf, 26, 28, 25);
    assert_string_equal(buf, "interrupted: 26 of 28 sectors done (1 checked, 25 carried over)");
    ma_verdict_interrupted_words(buf, sizeof buf, 2, 28, 0);
    assert_string_equal(buf, "interrupted: 2 of 28 sectors checked");
    ma_verdict_interrupted_words(buf, sizeof buf, 0, 1, 0);
    assert_string_equal(buf, "interrupted: 0 of 1 sector checked");
    assert_int_equal(ma_verdict_exit_code(MA_VERDICT_PARTIAL, 0), MA_EXIT_PARTIAL);
}

/* A header's free text shown as printable ASCII: space and '~' kept, control bytes, DEL and bytes
 * past 0x7f as '?', cut to the buffer with its terminator. */
static void test_printable_ascii_keeps_ascii_and_marks_the_rest(void **state)
{
    (void)state;
    char out[16];
    assert_string_equal(ma_printable_ascii("a b~\x1f\x7f\x80\xff.", out, sizeof out), "a b~????.");
    assert_string_equal(ma_printable_ascii("abcdef", out, 4), "abc");
    assert_string_equal(ma_printable_ascii("", out, sizeof out), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_set_formats_and_returns_code),
        cmocka_unit_test(test_error_message_is_one_line),
        cmocka_unit_test(test_exit_codes_are_distinct_for_mismatch_and_bad_input),
        cmocka_unit_test(test_interrupted_words_count_carried_sectors_apart),
        cmocka_unit_test(test_printable_ascii_keeps_ascii_and_marks_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
