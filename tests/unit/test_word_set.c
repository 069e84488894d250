/* verifier/check/word_set: the words of every range are marked, whatever the split over threads, the
 * ranges' sizes and where the rare words lie (range edges, part edges). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/word_set.h"

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

static void put(uint8_t *e, uint32_t w)
{
    e[0] = (uint8_t)w;
    e[1] = (uint8_t)(w >> 8);
}

/* Ranges of 0, 1, 1.5 M, 0.7 M and 3 words (2.2 M in all: with 2 to 4 threads the scan splits in
 * parts, each boundary inside a range): common words from a set of 120, and a word of its own at
 * the first and last entry of every range and at each entry where a split of 2, 3 or 4 parts
 * begins or ends. */
static void test_every_word_marked(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {0, 1, 1500000, 700000, 3};
    enum { N = sizeof sizes / sizeof sizes[0] };
    uint8_t *buf[N];
    ma_word_range r[N];
    uint8_t want[MA_WORD_SET_WORDS];
    memset(want, 0, sizeof want);
    uint64_t x = 99, total = 0, rare = 40000;
    uint32_t common[120];
    for (int i = 0; i < 120; i++)
        common[i] = (uint32_t)(lcg(&x) % 30000); /* the rare words are 40000 and up */
    for (int i = 0; i < N; i++) {
        buf[i] = malloc(2 * sizes[i] + 1);
        assert_non_null(buf[i]);
        for (uint64_t e = 0; e < sizes[i]; e++)
            put(buf[i] + 2 * e, common[lcg(&x) % 120]);
        r[i] = (ma_word_range){buf[i], sizes[i]};
        total += sizes[i];
    }
    /* the rare words, at global entry positions */
    uint64_t at[64];
    int n_at = 0;
    for (int i = 0, start = 0; i < N; start += (int)sizes[i], i++)
        if (sizes[i]) {
            at[n_at++] = (uint64_t)start;
            at[n_at++] = (uint64_t)start + sizes[i] - 1;
        }
    for (uint64_t parts = 2; parts <= 4; parts++)
        for (uint64_t p = 1; p < parts; p++) {
            at[n_at++] = total * p / parts - 1;
            at[n_at++] = total * p / parts;
        }
    for (int k = 0; k < n_at; k++) {
        int again = 0; /* a split of 2 and one of 4 share a boundary */
        for (int j = 0; j < k; j++)
            again |= at[j] == at[k];
        if (again)
            continue;
        uint64_t g = at[k];
        int i = 0;
        while (g >= sizes[i]) {
            g -= sizes[i];
            i++;
        }
        put(buf[i] + 2 * g, (uint32_t)rare++);
    }
    for (int i = 0; i < N; i++)
        for (uint64_t e = 0; e < sizes[i]; e++)
            want[(uint32_t)buf[i][2 * e] | (uint32_t)buf[i][2 * e + 1] << 8] = 1;
    for (uint32_t w = 40000; w < rare; w++)
        assert_int_equal(want[w], 1);
    for (unsigned threads = 1; threads <= 4; threads++) {
        uint8_t seen[MA_WORD_SET_WORDS];
        memset(seen, 0, sizeof seen);
        seen[65535] = 1; /* marked before: stays marked */
        assert_int_equal(ma_word_set_scan(seen, r, N, threads), 0);
        assert_int_equal(seen[65535], 1);
        seen[65535] = want[65535];
        assert_memory_equal(seen, want, sizeof seen);
    }
    for (int i = 0; i < N; i++)
        free(buf[i]);
}

static void test_no_entries(void **state)
{
    (void)state;
    uint8_t seen[MA_WORD_SET_WORDS], zero[MA_WORD_SET_WORDS];
    memset(seen, 0, sizeof seen);
    memset(zero, 0, sizeof zero);
    assert_int_equal(ma_word_set_scan(seen, NULL, 0, 2), 0);
    assert_memory_equal(seen, zero, sizeof seen);
    ma_word_range empty = {NULL, 0};
    assert_int_equal(ma_word_set_scan(seen, &empty, 1, 4), 0);
    assert_memory_equal(seen, zero, sizeof seen);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_word_marked),
        cmocka_unit_test(test_no_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
