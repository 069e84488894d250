/* Unit tests for common/output: outputs naming an input are refused (by name, inode, side file),
 * writable checks, FIFOs and regular files written without destroying anything. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/output.h"
#include "support.h"

static char dir[64];

static const char *at(const char *name) { return ma_test_path_in(dir, name); }

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_output_XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(mkdir(at("db"), 0755), 0);
    put(at("db/std_0_0_3_3.mdb"), "sector");
    put(at("a.sqlite"), "store");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static int check(const char *out, int kind)
{
    const ma_output_input in[] = {{at("db"), "the database", MA_INPUT_FILE},
                                  {at("a.sqlite"), "the audit store", MA_INPUT_STORE},
                                  {NULL, "an absent option", MA_INPUT_FILE}};
    ma_error e;
    ma_error_clear(&e);
    return ma_output_check(out, "--junit", kind, in, 3, &e);
}

static void test_inputs_are_refused_by_name_inode_and_side_file(void **state)
{
    (void)state;
    assert_int_equal(check(at("a.sqlite"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    assert_int_equal(check(at("a.sqlite-wal"), MA_OUTPUT_DOCUMENT), MA_EINVAL); /* absent: by name */
    assert_int_equal(check(at("a.sqlite-shm"), MA_OUTPUT_STORE), MA_EINVAL);
    assert_int_equal(check(at("db/../a.sqlite-journal"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    assert_int_equal(check(at("db/std_0_0_3_3.mdb"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    assert_int_equal(link(at("db/std_0_0_3_3.mdb"), at("hard")), 0);
    assert_int_equal(check(at("hard"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    assert_int_equal(symlink("a.sqlite", at("soft")), 0);
    assert_int_equal(check(at("soft"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    assert_int_equal(check(at("db"), MA_OUTPUT_DOCUMENT), MA_EINVAL); /* the database itself */
    /* the message names both roles */
    const ma_output_input in[] = {{at("a.sqlite"), "the audit store", MA_INPUT_STORE}};
    ma_error e;
    assert_int_equal(ma_output_check(at("a.sqlite-wal"), "--out", MA_OUTPUT_DOCUMENT, in, 1, &e), MA_EINVAL);
    assert_non_null(strstr(e.msg, "--out"));
    assert_non_null(strstr(e.msg, "-wal side file of the audit store"));
    /* anything else is fine: a new file, a file beside the inputs, a new file in the database dir */
    assert_int_equal(check(at("new.xml"), MA_OUTPUT_DOCUMENT), MA_OK);
    assert_int_equal(check(at("db/report.xml"), MA_OUTPUT_DOCUMENT), MA_OK);
    assert_int_equal(check("-", MA_OUTPUT_DOCUMENT), MA_OK);
    assert_int_equal(check("-", MA_OUTPUT_STORE), MA_EINVAL);
}

static void test_a_file_the_database_reaches_through_a_link_is_refused(void **state)
{
    (void)state;
    /* a sector outside the database directory, linked into it (and into a subdirectory): writing
     * the output over it would replace a file the run reads */
    put(at("elsewhere.mdb"), "sector");
    assert_int_equal(symlink("../elsewhere.mdb", at("db/std_0_0_3_4.mdb")), 0);
    assert_int_equal(check(at("elsewhere.mdb"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    put(at("deep.mdb"), "sector");
    assert_int_equal(mkdir(at("db/sub"), 0755), 0);
    assert_int_equal(symlink("../../deep.mdb", at("db/sub/std_0_0_4_3.mdb")), 0);
    assert_int_equal(check(at("deep.mdb"), MA_OUTPUT_DOCUMENT), MA_EINVAL);
    /* a dangling link in the directory refuses nothing */
    assert_int_equal(symlink("../gone.mdb", at("db/std_0_0_2_3.mdb")), 0);
    put(at("other.mdb"), "sector");
    assert_int_equal(check(at("other.mdb"), MA_OUTPUT_DOCUMENT), MA_OK);
    assert_int_equal(unlink(at("db/std_0_0_2_3.mdb")), 0);
}

static void test_store_outputs_must_be_writable_files(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(at("fifo"), 0644), 0);
    assert_int_equal(check(at("fifo"), MA_OUTPUT_DOCUMENT), MA_OK); /* written through later */
    assert_int_equal(check(at("fifo"), MA_OUTPUT_STORE), MA_EIO);
    assert_int_equal(check("/dev/null", MA_OUTPUT_STORE), MA_EIO);
    assert_int_equal(check(at("no/such.sqlite"), MA_OUTPUT_STORE), MA_EIO);
    assert_int_equal(check(at("db"), MA_OUTPUT_STORE), MA_EINVAL); /* an input first */
    put(at("ro.sqlite"), "x");
    assert_int_equal(chmod(at("ro.sqlite"), 0444), 0);
    assert_int_equal(check(at("ro.sqlite"), MA_OUTPUT_STORE), MA_EIO);
}

static void test_write_regular_device_and_refusals(void **state)
{
    (void)state;
    ma_error e;
    assert_int_equal(ma_output_write(at("out.txt"), "one\n", 4, &e), MA_OK);
    assert_string_equal(slurp(at("out.txt")), "one\n");
    assert_int_equal(ma_output_write(at("out.txt"), "two\n", 4, &e), MA_OK);
    assert_string_equal(slurp(at("out.txt")), "two\n");
    struct stat st;
    assert_int_equal(stat(at("out.txt"), &st), 0);
    assert_true(S_ISREG(st.st_mode));
    /* a device (made here, as root: the null device's numbers) is written through and stays one */
    if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        assert_int_equal(ma_output_write(at("null"), "x", 1, &e), MA_OK);
        assert_int_equal(stat(at("null"), &st), 0);
        assert_true(S_ISCHR(st.st_mode));
    }
    /* a read-only file keeps its bytes; a directory and a missing directory are refused */
    put(at("keep"), "keep me");
    assert_int_equal(chmod(at("keep"), 0444), 0);
    assert_int_equal(ma_output_write(at("keep"), "gone", 4, &e), MA_EIO);
    assert_string_equal(slurp(at("keep")), "keep me");
    assert_int_equal(ma_output_write(at("db"), "x", 1, &e), MA_EIO);
    assert_int_equal(ma_output_write(at("none/x"), "x", 1, &e), MA_EIO);
    assert_non_null(strstr(e.msg, "none/x"));
    assert_null(strstr(e.msg, ".tmp"));
    /* a FIFO nobody reads is an error, not a hang; with a reader it gets the bytes */
    assert_int_equal(mkfifo(at("pipe"), 0644), 0);
    assert_int_equal(ma_output_write(at("pipe"), "x", 1, &e), MA_EIO);
    int rd = open(at("pipe"), O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    assert_int_equal(ma_output_write(at("pipe"), "hello", 5, &e), MA_OK);
    char got[8] = {0};
    assert_int_equal(read(rd, got, sizeof got), 5);
    assert_string_equal(got, "hello");
    close(rd);
    assert_int_equal(stat(at("pipe"), &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

/* Standard output is an output like any other: descriptor 1 open on an input is refused, and the
 * names of standard output are "-", /dev/stdout, /dev/fd/1 and /proc/self/fd/1. */
static void test_standard_output_is_checked_against_the_inputs(void **state)
{
    (void)state;
    assert_true(ma_output_is_stdout("-") && ma_output_is_stdout("/dev/stdout"));
    assert_true(ma_output_is_stdout("/dev/fd/1") && ma_output_is_stdout("/proc/self/fd/1"));
    assert_false(ma_output_is_stdout("/dev/null") || ma_output_is_stdout("./-") || ma_output_is_stdout(NULL));
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    int fd = open(at("db/std_0_0_3_3.mdb"), O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    close(fd);
    const ma_output_input in[] = {{at("db"), "the database", MA_INPUT_FILE}};
    ma_error e;
    int rc = ma_output_check("-", "--junit", MA_OUTPUT_DOCUMENT, in, 1, &e);
    int rc_dev = ma_output_check("/dev/stdout", "--junit", MA_OUTPUT_DOCUMENT, in, 1, &e);
    fd = open(at("elsewhere.xml"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
    close(fd);
    int rc_other = ma_output_check("-", "--junit", MA_OUTPUT_DOCUMENT, in, 1, NULL);
    assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, MA_EINVAL);
    assert_int_equal(rc_dev, MA_EINVAL);
    assert_non_null(strstr(e.msg, "/dev/stdout (standard output)"));
    assert_non_null(strstr(e.msg, "std_0_0_3_3.mdb"));
    assert_int_equal(rc_other, MA_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inputs_are_refused_by_name_inode_and_side_file),
        cmocka_unit_test(test_a_file_the_database_reaches_through_a_link_is_refused),
        cmocka_unit_test(test_store_outputs_must_be_writable_files),
        cmocka_unit_test(test_write_regular_device_and_refusals),
        cmocka_unit_test(test_standard_output_is_checked_against_the_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
