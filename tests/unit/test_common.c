/* Unit tests for common/: error messages and exit-code mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/ma_error.h"
#include "common/progress.h"

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
    ma_error_set(&e, MA_EIO, "a\nb\rc");
    assert_null(strchr(e.msg, '\n'));
    assert_null(strchr(e.msg, '\r'));
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

static void test_quiet_progress_prints_nothing(void **state)
{
    (void)state;
    char buf[256] = {0};
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ma_progress p;
    ma_progress_start(&p, f, 1, "x", 10);
    p.start -= 5.0; /* pretend it has run long enough to print */
    atomic_store(&p.last_print, p.start); /* and as if its last line was long ago */
    ma_progress_update(&p, 5);
    ma_progress_finish(&p, 10);
    fclose(f);
    assert_int_equal(buf[0], '\0');
}

static void test_progress_prints_rate_after_one_second(void **state)
{
    (void)state;
    char buf[256] = {0};
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ma_progress p;
    ma_progress_start(&p, f, 0, "solve std_3_3_0_0", 100);
    ma_progress_update(&p, 1); /* too early: silent */
    p.start -= 5.0;
    atomic_store(&p.last_print, p.start); /* and as if its last line was long ago */
    ma_progress_update(&p, 50);
    fclose(f);
    assert_non_null(strstr(buf, "solve std_3_3_0_0: 50/100 entries"));
    assert_non_null(strstr(buf, "ETA"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_set_formats_and_returns_code),
        cmocka_unit_test(test_error_message_is_one_line),
        cmocka_unit_test(test_exit_codes_are_distinct_for_mismatch_and_bad_input),
        cmocka_unit_test(test_quiet_progress_prints_nothing),
        cmocka_unit_test(test_progress_prints_rate_after_one_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
