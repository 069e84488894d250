/* Unit tests for common/progress: the three display modes, the clear call, thread-safe adds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/progress.h"

/* Pretends the reporter has run for `secs` and drew its last line long ago, so a draw is due. */
static void age(ma_progress *p, double secs)
{
    p->start -= secs;
    atomic_store(&p->last_print, p->start);
}

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    char *s = calloc(1, (size_t)n + 1);
    rewind(f);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fseek(f, 0, SEEK_END); /* later draws append */
    return s;
}

static void test_quiet_prints_nothing(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 1, "x", 10);
    assert_int_equal(p.mode, MA_PROGRESS_NONE);
    age(&p, 100);
    ma_progress_update(&p, 5);
    ma_progress_clear(&p);
    ma_progress_finish(&p, 10);
    assert_int_equal(ftell(f), 0);
    fclose(f);
}

static void test_a_file_gets_plain_lines_without_control_characters(void **state)
{
    (void)state;
    unsetenv("MILLAUDIT_PROGRESS");
    unsetenv("MILLAUDIT_PROGRESS_INTERVAL");
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "solve std_3_3_0_0", 100);
    assert_int_equal(p.mode, MA_PROGRESS_PLAIN); /* a file is not a terminal */
    assert_true(p.interval == MA_PROGRESS_PLAIN_INTERVAL && p.delay == MA_PROGRESS_PLAIN_INTERVAL);
    ma_progress_update(&p, 1); /* too early: silent */
    assert_int_equal(ftell(f), 0);
    age(&p, 20);
    ma_progress_update(&p, 50);
    ma_progress_update(&p, 60); /* the interval has not passed again: silent */
    ma_progress_finish(&p, 100);
    char *s = slurp(f);
    assert_non_null(strstr(s, "solve std_3_3_0_0: 50/100 entries (50%), "));
    assert_non_null(strstr(s, "ETA"));
    assert_non_null(strstr(s, "100/100 entries (100%)"));
    assert_non_null(strstr(s, "(done)\n"));
    assert_null(strstr(s, "60/100"));
    assert_null(strchr(s, '\r'));
    assert_null(strchr(s, '\033'));
    int lines = 0;
    for (char *q = s; *q; q++)
        lines += *q == '\n';
    assert_int_equal(lines, 2);
    free(s);
    fclose(f);
}

static void test_environment_sets_mode_and_interval(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    setenv("MILLAUDIT_PROGRESS_INTERVAL", "0.5", 1);
    setenv("MILLAUDIT_PROGRESS", "none", 1);
    ma_progress_start(&p, f, 0, "x", 0);
    assert_int_equal(p.mode, MA_PROGRESS_NONE);
    ma_progress_finish(&p, 0);
    setenv("MILLAUDIT_PROGRESS", "tty", 1);
    ma_progress_start(&p, f, 0, "x", 0);
    assert_int_equal(p.mode, MA_PROGRESS_TTY);
    ma_progress_finish(&p, 0);
    setenv("MILLAUDIT_PROGRESS", "plain", 1);
    ma_progress_start(&p, f, 0, "x", 0);
    assert_int_equal(p.mode, MA_PROGRESS_PLAIN);
    assert_true(p.interval == 0.5);
    ma_progress_finish(&p, 0);
    ma_progress_start(&p, f, 1, "x", 0); /* --quiet beats the environment */
    assert_int_equal(p.mode, MA_PROGRESS_NONE);
    ma_progress_finish(&p, 0);
    setenv("MILLAUDIT_PROGRESS_INTERVAL", "0", 1); /* every update draws, from the first */
    ma_progress_start(&p, f, 0, "x", 10);
    assert_true(p.interval == 0 && p.delay == 0);
    long before = ftell(f);
    ma_progress_add(&p, 1);
    ma_progress_add(&p, 1);
    ma_progress_add(&p, 1);
    fflush(f);
    char buf[512] = {0};
    fseek(f, before, SEEK_SET);
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    int lines = 0;
    for (size_t i = 0; i < got; i++)
        lines += buf[i] == '\n';
    assert_int_equal(lines, 3);
    ma_progress_finish(&p, 0);
    setenv("MILLAUDIT_PROGRESS_INTERVAL", "-3", 1); /* nonsense: the default */
    ma_progress_start(&p, f, 0, "x", 0);
    assert_true(p.interval == MA_PROGRESS_PLAIN_INTERVAL);
    ma_progress_finish(&p, 0);
    unsetenv("MILLAUDIT_PROGRESS");
    unsetenv("MILLAUDIT_PROGRESS_INTERVAL");
    fclose(f);
}

static void test_tty_line_redraws_in_place_and_is_cut_to_the_width(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "verify std_4_3_0_0", 5746675);
    ma_progress_set_mode(&p, MA_PROGRESS_TTY);
    setenv("COLUMNS", "60", 1); /* a tmpfile has no window size: COLUMNS is asked */
    age(&p, 10);
    ma_progress_update(&p, 1234567);
    char *s = slurp(f);
    const char *want = "\r1,234,567/5,746,675 entries  21%  ";
    assert_memory_equal(s, want, strlen(want));
    size_t len = strlen(s);
    assert_string_equal(s + len - 3, "\033[K");
    assert_int_equal(len, 1 + 59 + 3); /* cut to 59 visible columns */
    assert_null(strchr(s, '\n'));
    assert_int_equal(p.shown, 1);
    free(s);
    /* clearing erases it; finishing draws the final line with a newline */
    ma_progress_clear(&p);
    assert_int_equal(p.shown, 0);
    setenv("COLUMNS", "200", 1);
    ma_progress_finish(&p, 5746675);
    s = slurp(f);
    char *tail = strstr(s, "\r\033[K");
    assert_non_null(tail);
    assert_non_null(strstr(tail, "\r5,746,675/5,746,675 entries 100%  "));
    assert_non_null(strstr(tail, "entries/s  0:00:10 total  verify std_4_3_0_0\033[K\n"));
    free(s);
    unsetenv("COLUMNS");
    fclose(f);
}

/* A result printed between hold and release starts on a clean line, and no add in between draws
 * the display again (the garbled `...ETA solve std_5_3_0_0 (+twin)std_5_3_0_0: ...` of solve). */
static void test_hold_keeps_results_off_the_progress_line(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "solve std_5_3_0_0 (+twin)", 1000);
    ma_progress_set_mode(&p, MA_PROGRESS_TTY);
    age(&p, 10);
    ma_progress_update(&p, 100);
    assert_int_equal(p.shown, 1);
    ma_progress_hold(&p);
    assert_int_equal(p.shown, 0);
    age(&p, 10);
    ma_progress_add(&p, 100); /* due, but held: no paint */
    fputs("std_5_3_0_0: 2742270 entries\n", f);
    ma_progress_release(&p);
    char *s = slurp(f);
    const char *result = strstr(s, "std_5_3_0_0: 2742270 entries\n");
    assert_non_null(result);
    assert_true(result - s >= 4);
    assert_memory_equal(result - 4, "\r\033[K", 4); /* the line was erased just before */
    assert_string_equal(result + strlen("std_5_3_0_0: 2742270 entries\n"), ""); /* no paint after */
    free(s);
    age(&p, 10);
    ma_progress_add(&p, 1); /* after release the display comes back */
    s = slurp(f);
    assert_non_null(strstr(strstr(s, "entries\n"), "\r201/1,000"));
    free(s);
    ma_progress_finish(&p, 201);
    fclose(f);
}

static void test_tty_unknown_total_and_bytes(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "manifest create", 3ull << 30);
    ma_progress_set_mode(&p, MA_PROGRESS_TTY);
    ma_progress_set_unit(&p, "bytes");
    age(&p, 2);
    void (*cb)(void *, uint64_t) = ma_progress_update_cb; /* as checksums/sha256.h calls it */
    cb(&p, 1ull << 30);
    char *s = slurp(f);
    assert_non_null(strstr(s, "\r1.00 GiB/3.00 GiB  33%  51"));
    assert_non_null(strstr(s, " MiB/s  0:00:04 ETA  manifest create\033[K"));
    free(s);
    ma_progress_finish(&p, 3ull << 30);
    fclose(f);
    f = tmpfile();
    ma_progress_start(&p, f, 0, "solve", 0);
    ma_progress_set_mode(&p, MA_PROGRESS_TTY);
    age(&p, 2);
    ma_progress_update(&p, 4000);
    s = slurp(f);
    assert_non_null(strstr(s, "\r4,000 entries  2.00k entries/s  0:00:02 elapsed  solve\033[K"));
    free(s);
    ma_progress_finish(&p, 4000);
    fclose(f);
}

static void test_labels_cannot_inject_control_characters(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "x", 10);
    ma_progress_set_mode(&p, MA_PROGRESS_PLAIN);
    ma_progress_set_label(&p, "evil\033[2J\nname");
    age(&p, 100);
    ma_progress_update(&p, 5);
    ma_progress_finish(&p, 10);
    char *s = slurp(f);
    assert_null(strchr(s, '\033'));
    assert_non_null(strstr(s, "evil?[2J?name: 5/10"));
    free(s);
    fclose(f);
}

static void test_null_reporter_is_a_no_op(void **state)
{
    (void)state;
    ma_progress_set_label(NULL, "x");
    ma_progress_set_total(NULL, 3);
    ma_progress_set_unit(NULL, "bytes");
    ma_progress_add(NULL, 3);
    ma_progress_update(NULL, 3);
    ma_progress_update_cb(NULL, 3);
    ma_progress_clear(NULL);
    ma_progress_finish(NULL, 3);
}

struct adder {
    ma_progress *p;
};

static void *add_many(void *arg)
{
    struct adder *a = arg;
    for (int i = 0; i < 100000; i++)
        ma_progress_add(a->p, 3);
    return NULL;
}

static void test_concurrent_adds_are_all_counted(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    ma_progress p;
    ma_progress_start(&p, f, 0, "x", 4 * 300000);
    ma_progress_set_mode(&p, MA_PROGRESS_TTY);
    p.delay = p.interval = 0; /* draw whenever the lock is free: stress the try-lock */
    pthread_t t[4];
    struct adder a = {&p};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, add_many, &a), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&p.done), 4 * 300000);
    ma_progress_finish(&p, atomic_load(&p.done));
    char *s = slurp(f);
    assert_non_null(strstr(s, "1,200,000/1,200,000 entries 100%"));
    free(s);
    fclose(f);
}

static void test_grouping(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(ma_num(b, sizeof b, 0), "0");
    assert_string_equal(ma_num(b, sizeof b, 999), "999");
    assert_string_equal(ma_num(b, sizeof b, 1000), "1,000");
    assert_string_equal(ma_num(b, sizeof b, 18446744073709551615ull), "18,446,744,073,709,551,615");
    assert_string_equal(ma_num(b, 4, 123456), "123");
    assert_string_equal(ma_num(b, 6, 123456), "123,4");
    assert_string_equal(ma_num(b, 1, 5), "");
}

/* The one way a count and its noun are written (common/counts.h): "1 entry", "0 entries", "2,000
 * entries"; the MA_ macros give each use its own buffer, so two in one call do not clash. */
static void test_count_and_noun(void **state)
{
    (void)state;
    char b[MA_COUNT_SIZE];
    assert_string_equal(ma_count(b, sizeof b, 1, "entry", "entries"), "1 entry");
    assert_string_equal(ma_count(b, sizeof b, 0, "entry", "entries"), "0 entries");
    assert_string_equal(ma_count(b, sizeof b, 2000, "discrepancy", "discrepancies"), "2,000 discrepancies");
    assert_string_equal(ma_noun(1, "position differs", "positions differ"), "position differs");
    assert_string_equal(ma_noun(3, "position differs", "positions differ"), "positions differ");
    char line[128];
    snprintf(line, sizeof line, "%s and %s", MA_COUNT(1, "sector", "sectors"), MA_NUM(1234567));
    assert_string_equal(line, "1 sector and 1,234,567");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quiet_prints_nothing),
        cmocka_unit_test(test_a_file_gets_plain_lines_without_control_characters),
        cmocka_unit_test(test_environment_sets_mode_and_interval),
        cmocka_unit_test(test_tty_line_redraws_in_place_and_is_cut_to_the_width),
        cmocka_unit_test(test_tty_unknown_total_and_bytes),
        cmocka_unit_test(test_hold_keeps_results_off_the_progress_line),
        cmocka_unit_test(test_labels_cannot_inject_control_characters),
        cmocka_unit_test(test_null_reporter_is_a_no_op),
        cmocka_unit_test(test_concurrent_adds_are_all_counted),
        cmocka_unit_test(test_grouping),
        cmocka_unit_test(test_count_and_noun),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
