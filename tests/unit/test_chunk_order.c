/* common/chunk_order.h: every chunk is handed out exactly once, and consecutive requests are far
 * apart. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/chunk_order.h"

static void test_every_chunk_once(void **state)
{
    (void)state;
    for (uint64_t n = 1; n <= 3000; n++) {
        uint64_t s = ma_chunk_stride(n);
        assert_true(s >= 1);
        assert_true(n <= 2 || s < n);
        assert_int_equal(ma_chunk_gcd(s, n), 1);
        uint8_t *seen = calloc(n, 1);
        assert_non_null(seen);
        for (uint64_t k = 0; k < n; k++) {
            uint64_t c = ma_chunk_at(k, n, s);
            assert_true(c < n);
            assert_int_equal(seen[c], 0);
            seen[c] = 1;
        }
        free(seen);
    }
}

static void test_consecutive_requests_far_apart(void **state)
{
    (void)state;
    /* n with many small factors, where the first guess is not coprime */
    uint64_t sizes[] = {64, 360, 1000, 4096, 5040, 42504};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        uint64_t n = sizes[i], s = ma_chunk_stride(n);
        for (uint64_t k = 0; k + 1 < n; k++) {
            uint64_t a = ma_chunk_at(k, n, s), b = ma_chunk_at(k + 1, n, s);
            uint64_t d = a > b ? a - b : b - a;
            assert_true(d >= n / 4); /* two threads' chunks at least a quarter of the walk apart */
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_chunk_once),
        cmocka_unit_test(test_consecutive_requests_far_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
