/* checksums/private_read.h: the bytes placed in the buffer are the file's, their digest is the
 * SHA-256 of exactly those bytes, the buffer is read-only, and a file shorter or longer than the
 * size asked (truncated or grown while read), a read error or a cancel is an error naming the
 * offset, with nothing returned; a signal that arrives while a piece is read stops the read
 * before the next piece. A file under one 2 MiB page holds ordinary pages, not a huge one.
 *
 * This executable has a seam of the linker (tests/unit/CMakeLists.txt: --wrap=pread): every pread
 * of the code under test goes through __wrap_pread below, which passes it on and, when a test asks,
 * raises a signal right after the n-th one, so that a signal lands inside a read at a known piece
 * instead of racing the read's speed. No shipped binary has the seam. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksums/private_read.h"
#include "checksums/sha256.h"
#include "common/counts.h"
#include "common/huge_alloc.h"
#include "support.h"

/* The seam: the real pread, and after the raise_after-th call (0: never) SIGINT, raised in this
 * thread, so its handler has run when the call returns to the code under test. */
ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
static int raise_after, preads;

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
    ssize_t got = __real_pread(fd, buf, n, off);
    if (++preads == raise_after)
        raise(SIGINT);
    return got;
}

/* What verify's handler does (cli/signals.c): record the signal in the run's stop flag. */
static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) { stop_flag = sig; }

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_private_read_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->path, sizeof fx->path, "%s/f.bin", fx->dir);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    ma_test_tmpdir_remove(fx->dir);
    free(fx);
    return 0;
}

/* Writes n bytes of a pattern (seeded) to fx->path; returns them (malloc'd). */
static uint8_t *write_file(const fixture *fx, size_t n, unsigned seed)
{
    uint8_t *b = malloc(n ? n : 1);
    assert_non_null(b);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 16);
    }
    FILE *f = fopen(fx->path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    return b;
}

static int open_ro(const fixture *fx)
{
    int fd = open(fx->path, O_RDONLY);
    assert_true(fd >= 0);
    return fd;
}

static void assert_zeroed(const ma_private_bytes *p)
{
    assert_null(p->data);
    assert_int_equal(p->size, 0);
    assert_int_equal(p->read, 0);
    assert_string_equal(p->sha256, "");
}

/* More than one 2 MiB piece and not a whole number of them; and one byte, and exactly one piece. */
static void test_digest_is_of_the_bytes_read(void **state)
{
    fixture *fx = *state;
    const size_t sizes[] = {2 * MA_PRIVATE_READ_PIECE + 12345, 1, MA_PRIVATE_READ_PIECE};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t];
        uint8_t *want = write_file(fx, n, (unsigned)t + 1);
        int fd = open_ro(fx);
        ma_private_bytes p;
        ma_error err;
        assert_int_equal(ma_private_read(&p, fd, fx->path, n, NULL, &err), MA_OK);
        close(fd);
        assert_int_equal(p.read, 1);
        assert_int_equal(p.size, n);
        assert_non_null(p.data);
        if (n >= MA_HUGE_PAGE) /* on 2 MiB pages; smaller: test_small_files_take_ordinary_pages */
            assert_int_equal((uintptr_t)p.data % MA_HUGE_PAGE, 0);
        assert_memory_equal(p.data, want, n);
        uint8_t d[MA_SHA256_LEN];
        char hex[MA_SHA256_HEX_LEN + 1];
        ma_sha256_buffer(d, want, n);
        ma_sha256_hex(hex, d);
        assert_string_equal(p.sha256, hex);
        ma_private_free(&p);
        assert_zeroed(&p);
        free(want);
    }
    /* a known vector, so the digest is SHA-256 and not merely self-consistent */
    FILE *f = fopen(fx->path, "wb");
    assert_non_null(f);
    fputs("abc", f);
    fclose(f);
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, fx->path, 3, NULL, &err), MA_OK);
    close(fd);
    assert_string_equal(p.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ma_private_free(&p);
}

static void test_empty_file(void **state)
{
    fixture *fx = *state;
    free(write_file(fx, 0, 0));
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, fx->path, 0, NULL, &err), MA_OK);
    close(fd);
    assert_int_equal(p.read, 1);
    assert_int_equal(p.size, 0);
    assert_null(p.data);
    assert_string_equal(p.sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    ma_private_free(&p);
    assert_zeroed(&p);
}

/* The kernel refuses to write into a page the process may not write: read(2) into the buffer
 * fails with EFAULT instead of faulting the test. */
static void test_buffer_is_read_only(void **state)
{
    fixture *fx = *state;
    size_t n = MA_PRIVATE_READ_PIECE + 77;
    uint8_t *want = write_file(fx, n, 9);
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, fx->path, n, NULL, &err), MA_OK);
    const uint8_t *at[] = {p.data, p.data + n - 1};
    for (int i = 0; i < 2; i++) {
        errno = 0;
        assert_int_equal(pread(fd, (void *)at[i], 1, 0), -1);
        assert_int_equal(errno, EFAULT);
    }
    close(fd);
    assert_memory_equal(p.data, want, n);
    ma_private_free(&p);
    free(want);
}

/* Asked for more bytes than the file holds: what a file truncated after its size was taken
 * gives. The error names the offset where the file ended; nothing is returned. */
static void test_truncated_while_read(void **state)
{
    fixture *fx = *state;
    size_t n = 2 * MA_PRIVATE_READ_PIECE + 5;
    free(write_file(fx, n, 3));
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, "F: sector 4_4_0_0", n + 1000, NULL, &err), MA_EIO);
    close(fd);
    assert_zeroed(&p);
    char want[200];
    snprintf(want, sizeof want, "F: sector 4_4_0_0: offset %zu: the file ended here, %s expected: "
             "truncated while read", n, MA_COUNT(n + 1000, "byte", "bytes"));
    assert_non_null(strstr(want, "4,195,309 bytes expected")); /* n + 1000, as a count is written */
    assert_string_equal(err.msg, want);
}

static void test_grown_while_read(void **state)
{
    fixture *fx = *state;
    size_t n = MA_PRIVATE_READ_PIECE + 9;
    free(write_file(fx, n, 4));
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, "F", n - 9, NULL, &err), MA_EIO);
    close(fd);
    assert_zeroed(&p);
    char want[200];
    snprintf(want, sizeof want, "F: offset %zu: the file holds more than its %s: grown while read",
             n - 9, MA_COUNT(n - 9, "byte", "bytes"));
    assert_string_equal(err.msg, want);
}

static void test_read_error_and_cancel(void **state)
{
    fixture *fx = *state;
    size_t n = 3 * MA_PRIVATE_READ_PIECE;
    free(write_file(fx, n, 5));
    ma_private_bytes p;
    ma_error err;
    int fd = open(fx->path, O_WRONLY); /* pread fails: EBADF */
    assert_true(fd >= 0);
    assert_int_equal(ma_private_read(&p, fd, "F", n, NULL, &err), MA_EIO);
    close(fd);
    assert_zeroed(&p);
    assert_non_null(strstr(err.msg, "F: offset 0: read error: "));
    volatile sig_atomic_t stop = 1;
    fd = open_ro(fx);
    assert_int_equal(ma_private_read(&p, fd, "F", n, &stop, &err), MA_ECANCELED);
    close(fd);
    assert_zeroed(&p);
    assert_string_equal(err.msg, "F: offset 0: interrupted");
}

/* SIGINT raised while the first (then the second) 2 MiB piece is read, through a handler that
 * sets the stop flag as verify's does: the read stops before the next piece, with the offset
 * where it stopped, and nothing is returned or left allocated (ASan's leak check sees the rest). */
static void test_signal_stops_the_read_between_pieces(void **state)
{
    fixture *fx = *state;
    size_t n = 3 * MA_PRIVATE_READ_PIECE + 5;
    free(write_file(fx, n, 6));
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGINT, &sa, &old), 0);
    for (int after = 1; after <= 2; after++) {
        stop_flag = 0;
        preads = 0;
        raise_after = after;
        int fd = open_ro(fx);
        ma_private_bytes p;
        ma_error err;
        assert_int_equal(ma_private_read(&p, fd, "F: sector 4_4_0_0", n, &stop_flag, &err), MA_ECANCELED);
        close(fd);
        assert_int_equal(stop_flag, SIGINT);
        assert_int_equal(preads, after); /* no piece read after the signal */
        assert_zeroed(&p);
        char want[100];
        snprintf(want, sizeof want, "F: sector 4_4_0_0: offset %zu: interrupted", after * MA_PRIVATE_READ_PIECE);
        assert_string_equal(err.msg, want);
    }
    /* the seam passes reads on untouched: unarmed, the same file reads whole */
    raise_after = 0;
    stop_flag = 0;
    int fd = open_ro(fx);
    ma_private_bytes p;
    ma_error err;
    assert_int_equal(ma_private_read(&p, fd, "F", n, &stop_flag, &err), MA_OK);
    close(fd);
    assert_int_equal(p.size, n);
    ma_private_free(&p);
    assert_int_equal(sigaction(SIGINT, &old, NULL), 0);
}

/* Under one 2 MiB page the bytes go to ordinary pages (ma_fit_alloc): a 40 KB file holds 40 KB,
 * not a huge page, and still page-aligned and read-only; from one huge page up, 2 MiB pages. What
 * a read holds is what ma_private_held tells the memory plan. */
static void test_small_files_take_ordinary_pages(void **state)
{
    fixture *fx = *state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t sizes[] = {1, 40000, MA_HUGE_PAGE - 1, MA_HUGE_PAGE, MA_HUGE_PAGE + 1};
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++) {
        size_t n = sizes[t];
        uint8_t *want = write_file(fx, n, (unsigned)t + 11);
        int fd = open_ro(fx);
        ma_private_bytes p;
        ma_error err;
        assert_int_equal(ma_private_read(&p, fd, "F", n, NULL, &err), MA_OK);
        assert_memory_equal(p.data, want, n);
        size_t held = (size_t)ma_private_held(n);
        assert_int_equal(held, ma_fit_size(n));
        if (n < MA_HUGE_PAGE) {
            assert_int_equal(held, (n + page - 1) / page * page);
            assert_int_equal((uintptr_t)p.data % page, 0);
        } else {
            assert_int_equal(held, ma_huge_size(n));
            assert_int_equal((uintptr_t)p.data % MA_HUGE_PAGE, 0);
        }
        errno = 0; /* read-only over all it holds, the last byte too */
        assert_int_equal(pread(fd, (void *)(p.data + n - 1), 1, 0), -1);
        assert_int_equal(errno, EFAULT);
        close(fd);
        ma_private_free(&p);
        free(want);
    }
    assert_int_equal(ma_private_held(0), 0); /* an empty file holds nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_is_of_the_bytes_read),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_buffer_is_read_only),
        cmocka_unit_test(test_truncated_while_read),
        cmocka_unit_test(test_grown_while_read),
        cmocka_unit_test(test_read_error_and_cancel),
        cmocka_unit_test(test_signal_stops_the_read_between_pieces),
        cmocka_unit_test(test_small_files_take_ordinary_pages),
    };
    return ma_test_run_group(tests, setup, teardown);
}
