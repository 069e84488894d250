/* verifier/check/resident.h: the planned copies and zeroings are complete, byte for byte, in every thread
 * that returns from ma_resident_fill, whether one thread or several fill them, and the memory is
 * aligned to a huge page. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verifier/check/resident.h"
#include "common/ma_error.h"

struct filler {
    ma_resident *r;
    uint8_t *const *dst;
    const size_t *bytes;
    int n;
    int ok; /* every part was complete when this thread's fill returned */
};

static void *fill_then_look(void *arg)
{
    struct filler *f = arg;
    ma_resident_fill(f->r);
    f->ok = 1;
    for (int i = 0; i < f->n; i++)
        for (size_t b = 0; b < f->bytes[i]; b++)
            if (f->dst[i][b] != (i == f->n - 1 ? 0 : (uint8_t)(b * 7 + (size_t)i)))
                f->ok = 0;
    return NULL;
}

static void run(int threads)
{
    /* part sizes around the 2 MiB slice: below, equal, one past, several, and a zeroing */
    const size_t bytes[] = {1, MA_RESIDENT_PAGE, MA_RESIDENT_PAGE + 1, 5 * MA_RESIDENT_PAGE - 3,
                            3 * MA_RESIDENT_PAGE + 17};
    enum { N = sizeof bytes / sizeof *bytes };
    uint8_t *src[N], *dst[N];
    ma_resident r;
    ma_resident_init(&r);
    for (int i = 0; i < N; i++) {
        src[i] = malloc(bytes[i]);
        dst[i] = ma_resident_alloc(bytes[i]);
        assert_non_null(src[i]);
        assert_non_null(dst[i]);
        assert_int_equal((uintptr_t)dst[i] % MA_RESIDENT_PAGE, 0);
        for (size_t b = 0; b < bytes[i]; b++)
            src[i][b] = (uint8_t)(b * 7 + (size_t)i);
        memset(dst[i], 0xA5, bytes[i]); /* not what any part leaves behind */
        assert_int_equal(ma_resident_add(&r, dst[i], i == N - 1 ? NULL : src[i], bytes[i]), MA_OK);
    }
    struct filler f[8];
    pthread_t tid[8];
    for (int t = 0; t < threads; t++) {
        f[t] = (struct filler){&r, dst, bytes, N, 0};
        if (t > 0)
            assert_int_equal(pthread_create(&tid[t], NULL, fill_then_look, &f[t]), 0);
    }
    fill_then_look(&f[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < threads; t++)
        assert_true(f[t].ok);
    ma_resident_destroy(&r);
    for (int i = 0; i < N; i++) {
        free(src[i]);
        free(dst[i]);
    }
}

static void test_one_thread(void **state)
{
    (void)state;
    run(1);
}

static void test_several_threads(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++)
        run(2 + rep % 7);
}

static void test_part_limit(void **state)
{
    (void)state;
    ma_resident r;
    ma_resident_init(&r);
    uint8_t a[4] = {1, 2, 3, 4}, b[4];
    for (int i = 0; i < MA_RESIDENT_PARTS; i++)
        assert_int_equal(ma_resident_add(&r, b, a, sizeof a), MA_OK);
    assert_int_equal(ma_resident_add(&r, b, a, sizeof a), MA_EINVAL);
    ma_resident_fill(&r);
    assert_memory_equal(a, b, sizeof a);
    ma_resident_destroy(&r);
}

static void test_nothing_planned(void **state)
{
    (void)state;
    ma_resident r;
    ma_resident_init(&r);
    ma_resident_fill(&r); /* returns at once: no slice, nothing to wait for */
    ma_resident_destroy(&r);
    void *m = ma_resident_alloc(0);
    assert_non_null(m);
    assert_int_equal((uintptr_t)m % MA_RESIDENT_PAGE, 0);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_several_threads),
        cmocka_unit_test(test_part_limit),
        cmocka_unit_test(test_nothing_planned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
