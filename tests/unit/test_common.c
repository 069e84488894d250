/* Unit tests for common/: error messages and exit-code mapping (progress: test_progress.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/memory_available.h"
#include "common/ma_error.h"
#include "common/verdict.h"
#include "support.h"

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

/* What a process may take is at most the machine's memory, and a data limit (ulimit -d, a batch
 * system's) lowers it to that limit: a verify run under one keeps its units' files mapped rather
 * than be refused memory for them. */
static void test_memory_available_follows_a_data_limit(void **state)
{
    (void)state;
    uint64_t all = ma_memory_available();
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    assert_true(all > 0);
    assert_true(pages > 0 && size > 0 && all <= (uint64_t)pages * (uint64_t)size);
    /* Under the sanitizers the shadow memory counts as data: a child with a data limit could not
     * run, so that build checks the bounds above only; the release build checks the limit. */
#if !defined(__SANITIZE_ADDRESS__)
    const uint64_t limit = (uint64_t)48 << 20;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_DATA, &rl) != 0)
            _exit(2);
        rl.rlim_cur = (rlim_t)limit;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
            _exit(3);
        if (setrlimit(RLIMIT_DATA, &rl) != 0)
            _exit(4);
        uint64_t v = ma_memory_available();
        _exit(v > 0 && v <= limit ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* A mapped file's stamp: taken once the file's change time is older than the settle time (a file
 * just written is waited for), unchanged while nothing touches the file, and moved by a write of
 * the very bytes it held (which no digest sees), by a file renamed over it and by its removal. */
static void test_stamp_sees_a_rewrite_of_the_same_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_stamp_XXXXXX", path[64], other[64], why[80];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(other, sizeof other, "%s/g", dir);
    ma_test_spit(path, "sector bytes", 12);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct timespec before, after;
    clock_gettime(CLOCK_REALTIME, &before);
    struct stat st;
    ma_file_stamp s;
    ma_error err;
    assert_int_equal(ma_file_stamp_take(fd, path, &st, &s, &err), MA_OK);
    clock_gettime(CLOCK_REALTIME, &after);
    close(fd);
    assert_int_equal(s.taken, 1);
    assert_int_equal(s.size, 12);
    /* just written: waited until its ctime was older than the settle time */
    assert_true((after.tv_sec - before.tv_sec) * 1000000000LL + (after.tv_nsec - before.tv_nsec) >=
                MA_FILE_STAMP_SETTLE_NS - 1000000000LL);
    assert_int_equal(ma_file_stamp_moved(path, &s, why, sizeof why), 0);
    ma_test_spit(path, "sector bytes", 12); /* the same bytes, written again */
    assert_int_equal(ma_file_stamp_moved(path, &s, why, sizeof why), 1);
    assert_string_equal(why, "written to (its change time moved)");
    ma_test_spit(other, "sector bytes", 12);
    assert_int_equal(rename(other, path), 0);
    assert_int_equal(ma_file_stamp_moved(path, &s, why, sizeof why), 1);
    assert_string_equal(why, "replaced by another file");
    assert_int_equal(unlink(path), 0);
    assert_int_equal(ma_file_stamp_moved(path, &s, why, sizeof why), 1);
    assert_string_equal(why, "removed");
    ma_file_stamp none;
    memset(&none, 0, sizeof none);
    assert_int_equal(ma_file_stamp_moved(path, &none, NULL, 0), 1);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_set_formats_and_returns_code),
        cmocka_unit_test(test_error_message_is_one_line),
        cmocka_unit_test(test_exit_codes_are_distinct_for_mismatch_and_bad_input),
        cmocka_unit_test(test_interrupted_words_count_carried_sectors_apart),
        cmocka_unit_test(test_printable_ascii_keeps_ascii_and_marks_the_rest),
        cmocka_unit_test(test_memory_available_follows_a_data_limit),
        cmocka_unit_test(test_stamp_sees_a_rewrite_of_the_same_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
