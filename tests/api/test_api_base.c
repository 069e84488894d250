/* The base of the public API through the shared library: the vocabulary (variants, sectors,
 * boards, values), the one verdict and the command result that only cli/main.c maps to an exit
 * status (README exit-status table). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "millaudit.h"

static void test_library_speaks_the_header_version(void **state)
{
    (void)state;
    assert_int_equal(ma_api_version(), MILLAUDIT_API_VERSION);
    assert_string_equal(ma_version(), MILLAUDIT_VERSION);
    assert_int_equal(ma_version_number(), MILLAUDIT_VERSION_NUMBER);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", MILLAUDIT_VERSION_MAJOR, MILLAUDIT_VERSION_MINOR,
             MILLAUDIT_VERSION_PATCH);
    assert_string_equal(ma_version(), want);
}

/* The command's words for the library's: a field that names a value is rewritten to its option,
 * a hint naming a field too; a sentence that merely starts with a word of a field, a path or a
 * value is left alone. */
static void test_option_words_rewrite_only_the_librarys_phrases(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"sector '9_9_9': expected W_B_WF_BF", "--sector '9_9_9': expected W_B_WF_BF"},
        {"sector std_9_9_0_0: 9_9_0_0 is not a valid std sector",
         "--sector std_9_9_0_0: 9_9_0_0 is not a valid std sector"},
        {"sector 2_1_0_0 is not a sector of std", "sector 2_1_0_0 is not a sector of std"},
        {"sectors: too many picked (at most 256)", "--sector: too many picked (at most 256)"},
        {"only_sectors 4_4_x: not a std sector", "--only-sectors 4_4_x: not a std sector"},
        {"stones 10: std has 9 stones per side", "--stones 10: std has 9 stones per side"},
        {"/db/sector x.mdb: offset 80: (no_digest_check reads them anyway)",
         "/db/sector x.mdb: offset 80: (--no-digest-check reads them anyway)"},
        {"/db holds several variants: name the variant", "/db holds several variants: give --variant"},
        {"/data/stones 3: no such file", "/data/stones 3: no such file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[200];
        assert_ptr_equal(ma_render_option_words(cases[i][0], buf, sizeof buf), buf);
        assert_string_equal(buf, cases[i][1]);
    }
}

/* The opaque progress display: counts without drawing when it has no stream; freed whole. */
static void test_progress_handle(void **state)
{
    (void)state;
    ma_progress *p = NULL;
    ma_error err;
    assert_int_equal(ma_progress_create(&p, NULL, "test", &err), MA_OK);
    assert_non_null(p);
    assert_int_equal(ma_progress_count(p), 0);
    ma_progress_free(p);
    ma_progress_free(NULL);
    assert_int_equal(ma_progress_count(NULL), 0);
    char *buf = NULL;
    ma_free(buf);
}

static void test_verdicts_map_to_the_readme_exit_statuses(void **state)
{
    (void)state;
    static const struct {
        ma_verdict_state v;
        const char *name, *status;
        int plain, allow_bounds;
    } table[] = {
        {MA_VERDICT_VERIFIED, "verified", "ok", 0, 0},
        {MA_VERDICT_WITHIN_BOUNDS, "within-bounds", "within-bounds", 3, 0},
        {MA_VERDICT_INCOMPLETE, "incomplete", "incomplete", 3, 3},
        {MA_VERDICT_INTERRUPTED, "interrupted", "interrupted", 3, 3},
        {MA_VERDICT_DISCREPANCIES, "discrepancies", "discrepancies", 1, 1},
        {MA_VERDICT_AGREE, "values-agree", "values-agree", 0, 0},
        {MA_VERDICT_DIFFER, "values-differ", "values-differ", 1, 1},
        {MA_VERDICT_RECORDED, "recorded", "recorded", 0, 0},
        {MA_VERDICT_PARTIAL, "partial", "partial", 6, 6},
        {MA_VERDICT_DAMAGED, "damaged", "damaged", 3, 3},
    };
    assert_int_equal(sizeof table / sizeof table[0], MA_VERDICT_STATES);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        assert_string_equal(ma_verdict_state_name(table[i].v), table[i].name);
        assert_string_equal(ma_verdict_status(table[i].v), table[i].status);
        assert_int_equal(ma_verdict_exit_code(table[i].v, 0), table[i].plain);
        assert_int_equal(ma_verdict_exit_code(table[i].v, MA_VERDICT_ALLOW_BOUNDS), table[i].allow_bounds);
        /* the same through a command's result */
        assert_int_equal(ma_result_exit_code(ma_result_of_verdict(table[i].v, 0)), table[i].plain);
        assert_int_equal(ma_result_exit_code(ma_result_of_verdict(table[i].v, MA_VERDICT_ALLOW_BOUNDS)),
                         table[i].allow_bounds);
    }
    assert_string_equal(ma_verdict_state_name((ma_verdict_state)99), "unknown");
}

static void test_results_of_errors_and_signals(void **state)
{
    (void)state;
    assert_int_equal(ma_result_exit_code(MA_OK), MA_EXIT_OK);
    assert_int_equal(ma_result_exit_code(MA_EUSAGE), MA_EXIT_USAGE);
    assert_int_equal(ma_result_exit_code(MA_EFORMAT), MA_EXIT_BAD_INPUT);
    assert_int_equal(ma_result_exit_code(MA_EMISSING), MA_EXIT_BAD_INPUT);
    assert_int_equal(ma_result_exit_code(MA_EIO), MA_EXIT_IO);
    assert_int_equal(ma_result_exit_code(MA_ENOMEM), MA_EXIT_INTERNAL);
    assert_int_equal(ma_result_exit_code(ma_result_of_signal(15)), 143);
    assert_int_equal(ma_result_exit_code(ma_result_of_signal(2)), 130);
    /* an unusable input exits 3 whatever the error behind it */
    assert_int_equal(ma_result_of_unusable(MA_EMISSING), MA_EMISSING);
    assert_int_equal(ma_result_exit_code(ma_result_of_unusable(MA_EIO)), MA_EXIT_BAD_INPUT);
    assert_int_equal(ma_result_exit_code(ma_result_of_unusable(MA_EUSAGE)), MA_EXIT_BAD_INPUT);
    /* a bare positive number is no result: a command that returns an exit status by mistake is
     * caught as internal, not passed through */
    assert_int_equal(ma_result_exit_code(1), MA_EXIT_INTERNAL);
    assert_string_equal(ma_error_name(MA_EUSAGE), "usage");
}

static void test_vocabulary_round_trips(void **state)
{
    (void)state;
    ma_error err;
    ma_variant v;
    assert_int_equal(ma_variant_parse("mora", &v, &err), MA_OK);
    assert_int_equal(v, MA_VARIANT_MORA);
    assert_string_equal(ma_variant_name(MA_VARIANT_LASK), "lask");
    assert_int_equal(ma_variant_parse("chess", &v, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "chess"));

    ma_sector s;
    char buf[80];
    assert_int_equal(ma_sector_parse("5_4_2_1", &s, &err), MA_OK);
    assert_int_equal(s.w, 5);
    assert_int_equal(s.bf, 1);
    ma_sector_format(s, buf, sizeof buf);
    assert_string_equal(buf, "5_4_2_1");

    ma_board b;
    assert_int_equal(ma_board_parse("d1,a1/e4,c3", &b, &err), MA_OK);
    assert_int_equal(b.mover, 0x3u); /* a1 = bit 0, d1 = bit 1 (docs/format.md §1) */
    ma_board_format(b, buf, sizeof buf);
    assert_string_equal(buf, "a1,d1/c3,e4");
    assert_int_equal(ma_board_parse("a1/a1", &b, &err), MA_EINVAL);

    ma_value val = {MA_OUTCOME_WIN, 13};
    ma_value_format(val, buf, sizeof buf);
    assert_string_equal(buf, "win 13");
    assert_string_equal(ma_outcome_name(MA_OUTCOME_DRAW), "draw");
    assert_string_equal(ma_format_name(MA_FORMAT_SEC2), "malom-sec2");
    assert_string_equal(ma_format_suffix(MA_FORMAT_OPEN), ".mdb");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_speaks_the_header_version),
        cmocka_unit_test(test_option_words_rewrite_only_the_librarys_phrases),
        cmocka_unit_test(test_progress_handle),
        cmocka_unit_test(test_verdicts_map_to_the_readme_exit_statuses),
        cmocka_unit_test(test_results_of_errors_and_signals),
        cmocka_unit_test(test_vocabulary_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
