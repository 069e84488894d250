/* verifier/check/visited.h: an entry marked twice is reported, with one thread and with several, and when two
 * threads' own bitmaps are merged; after the walk the least entry never marked is found wherever it
 * lies in a word, and a bit past the last entry is found too, for entry counts on and off a word
 * boundary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "verifier/check/visited.h"

static _Atomic uint64_t *bitmap(uint64_t n)
{
    _Atomic uint64_t *b = calloc(ma_visited_words(n), sizeof *b);
    assert_non_null(b);
    return b;
}

static void mark_all(_Atomic uint64_t *b, uint64_t n, int shared)
{
    for (uint64_t e = 0; e < n; e++)
        assert_int_equal(ma_visited_mark(b, e, shared), 0);
}

static void test_second_mark_is_reported(void **state)
{
    (void)state;
    static const uint64_t at[] = {0, 1, 63, 64, 127, 199};
    const size_t n_at = sizeof at / sizeof *at;
    for (int shared = 0; shared <= 1; shared++) {
        _Atomic uint64_t *b = bitmap(200);
        for (size_t i = 0; i < n_at; i++) {
            assert_int_equal(ma_visited_mark(b, at[i], shared), 0);
            assert_int_equal(ma_visited_mark(b, at[i], shared), 1);
        }
        /* exactly those entries were marked: a mark sets its own bit and no other */
        for (uint64_t e = 0; e < 200; e++) {
            int listed = 0;
            for (size_t i = 0; i < n_at; i++)
                listed |= at[i] == e;
            assert_int_equal(ma_visited_mark(b, e, shared), listed);
        }
        free((void *)b);
    }
}

static void test_complete_walk(void **state)
{
    (void)state;
    static const uint64_t counts[] = {0, 1, 63, 64, 65, 128, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        uint64_t n = counts[i], e = 12345;
        _Atomic uint64_t *b = bitmap(n);
        mark_all(b, n, 0);
        assert_int_equal(ma_visited_check(b, n, &e), MA_VISITED_ALL);
        free((void *)b);
    }
}

static void test_gap_is_the_least_unmarked_entry(void **state)
{
    (void)state;
    static const uint64_t counts[] = {1, 63, 64, 65, 128, 1000};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        uint64_t n = counts[i];
        uint64_t holes[] = {0, 1, 62, 63, 64, 65, n / 2, n - 2, n - 1};
        for (size_t h = 0; h < sizeof holes / sizeof *holes; h++) {
            if (holes[h] >= n)
                continue;
            _Atomic uint64_t *b = bitmap(n);
            for (uint64_t e = 0; e < n; e++)
                if (e != holes[h] && e != n - 1)
                    ma_visited_mark(b, e, 0);
            uint64_t got = 0;
            /* the hole, and the last entry unless it is the hole: the least is reported */
            assert_int_equal(ma_visited_check(b, n, &got), MA_VISITED_GAP);
            assert_int_equal(got, holes[h]);
            free((void *)b);
        }
    }
}

static void test_bit_past_the_end_is_found(void **state)
{
    (void)state;
    static const uint64_t counts[] = {0, 1, 63, 64, 65, 130};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        uint64_t n = counts[i];
        /* the bitmap has a word more than n / 64 entries fill: bits n .. of the last word */
        uint64_t last = 64 * (ma_visited_words(n) - 1) + 63;
        uint64_t past[] = {n, last};
        for (size_t k = 0; k < 2; k++) {
            _Atomic uint64_t *b = bitmap(n);
            mark_all(b, n, 0);
            ma_visited_mark(b, past[k], 0);
            uint64_t got = 0;
            assert_int_equal(ma_visited_check(b, n, &got), MA_VISITED_PAST);
            assert_int_equal(got, past[k]);
            free((void *)b);
        }
    }
}

struct marker {
    _Atomic uint64_t *b;
    uint64_t from, step, n;
    uint64_t twice; /* marks that found their bit set */
};

static void *mark_every_step(void *arg)
{
    struct marker *m = arg;
    for (uint64_t e = m->from; e < m->n; e += m->step)
        m->twice += (uint64_t)ma_visited_mark(m->b, e, 1);
    return NULL;
}

/* Threads marking interleaved entries of the same words lose no mark; when every thread marks
 * every entry, each entry is reported as new to exactly one of them. */
static void test_shared_marks(void **state)
{
    (void)state;
    enum { THREADS = 4, N = 100003 };
    pthread_t t[THREADS];
    struct marker m[THREADS];
    for (int all = 0; all <= 1; all++) {
        _Atomic uint64_t *b = bitmap(N);
        for (int i = 0; i < THREADS; i++) {
            m[i] = all ? (struct marker){b, 0, 1, N, 0}
                       : (struct marker){b, (uint64_t)i, THREADS, N, 0};
            assert_int_equal(pthread_create(&t[i], NULL, mark_every_step, &m[i]), 0);
        }
        uint64_t twice = 0, got = 0;
        for (int i = 0; i < THREADS; i++) {
            assert_int_equal(pthread_join(t[i], NULL), 0);
            twice += m[i].twice;
        }
        assert_int_equal(ma_visited_check(b, N, &got), MA_VISITED_ALL);
        assert_int_equal(twice, all ? (uint64_t)(THREADS - 1) * N : 0);
        free((void *)b);
    }
}

/* Own bitmaps merged: disjoint marks merge into one complete walk; an entry two threads marked is
 * found, the least such entry, wherever it lies in a word. */
static void test_merge_finds_an_entry_of_two_threads(void **state)
{
    (void)state;
    enum { N = 1000 };
    _Atomic uint64_t *a = bitmap(N), *b = bitmap(N);
    for (uint64_t e = 0; e < N; e++)
        assert_int_equal(ma_visited_mark(e % 3 ? a : b, e, 0), 0);
    uint64_t got = 7;
    assert_int_equal(ma_visited_merge(a, b, N, &got), 0);
    assert_int_equal(got, 7);
    assert_int_equal(ma_visited_check(a, N, &got), MA_VISITED_ALL);
    static const uint64_t both[] = {0, 63, 64, 500, 999};
    for (size_t k = 0; k < sizeof both / sizeof both[0]; k++) {
        _Atomic uint64_t *x = bitmap(N), *y = bitmap(N);
        for (uint64_t e = 0; e < N; e++)
            ma_visited_mark(e % 2 ? x : y, e, 0);
        ma_visited_mark(both[k] % 2 ? y : x, both[k], 0); /* and once more, by the other */
        if (k + 1 < sizeof both / sizeof both[0])
            ma_visited_mark(both[k + 1] % 2 ? y : x, both[k + 1], 0); /* a later one too */
        assert_int_equal(ma_visited_merge(x, y, N, &got), 1);
        assert_int_equal(got, both[k]);
        free((void *)x);
        free((void *)y);
    }
    free((void *)a);
    free((void *)b);
}

/* The team: who marks where (own bitmaps within the budget, one shared bitmap past it, none for a
 * walk without one), every own bitmap zeroed by its thread, and the cover merging exactly the
 * threads that ran: complete when they split the entries, TWICE at the least entry two of them
 * marked, and a thread that never ran (its bitmap never zeroed) left out. */
static void test_team(void **state)
{
    (void)state;
    enum { N = 1000 };
    ma_visited_team tm;
    ma_visited_team_plan(&tm, NULL, N, 4);
    for (int t = 0; t < 4; t++)
        assert_null(ma_visited_team_bits(&tm, t));
    ma_visited_team_free(&tm);

    _Atomic uint64_t *walk = calloc(ma_visited_words(N), sizeof *walk);
    assert_non_null(walk);
    ma_visited_team_plan(&tm, walk, N, 1);
    assert_ptr_equal(ma_visited_team_bits(&tm, 0), walk);
    assert_int_equal(tm.shared, 0);
    ma_visited_team_free(&tm);

    /* past the budget: one bitmap, marked by atomic OR */
    uint64_t big = (uint64_t)64 * 8 * (MA_VISITED_OWN_BUDGET / 8);
    ma_visited_team_plan(&tm, walk, big, 3);
    for (int t = 0; t < 3; t++)
        assert_ptr_equal(ma_visited_team_bits(&tm, t), walk);
    assert_int_equal(tm.shared, 1);
    ma_visited_team_free(&tm);

    for (int ran = 1; ran <= 4; ran++) {
        for (uint64_t w = 0; w < ma_visited_words(N); w++)
            walk[w] = 0;
        ma_visited_team_plan(&tm, walk, N, 4);
        assert_int_equal(tm.shared, 0);
        assert_ptr_equal(ma_visited_team_bits(&tm, 0), walk);
        for (int t = 1; t < 4; t++) {
            assert_ptr_not_equal(ma_visited_team_bits(&tm, t), walk);
            if (t < ran)
                ma_visited_team_zero(&tm, t);
            else /* never ran: its bitmap is whatever the memory held */
                for (uint64_t w = 0; w < ma_visited_words(N); w++)
                    ma_visited_team_bits(&tm, t)[w] = ~(uint64_t)0;
        }
        /* the threads that ran split the entries by e % ran */
        for (uint64_t e = 0; e < N; e++)
            assert_int_equal(ma_visited_mark(ma_visited_team_bits(&tm, (int)(e % (uint64_t)ran)), e, 0), 0);
        uint64_t entry = 0;
        assert_int_equal(ma_visited_team_cover(&tm, ran, &entry), MA_VISITED_ALL);
        ma_visited_team_free(&tm);
        if (ran < 2)
            continue;
        /* the last thread that ran also marks 700 and 300: reported at 300 */
        for (uint64_t w = 0; w < ma_visited_words(N); w++)
            walk[w] = 0;
        ma_visited_team_plan(&tm, walk, N, 4);
        for (int t = 1; t < 4; t++)
            ma_visited_team_zero(&tm, t);
        for (uint64_t e = 0; e < N; e++)
            ma_visited_mark(ma_visited_team_bits(&tm, (int)(e % (uint64_t)ran)), e, 0);
        _Atomic uint64_t *last = ma_visited_team_bits(&tm, ran - 1);
        if (700 % (uint64_t)ran != (uint64_t)ran - 1)
            ma_visited_mark(last, 700, 0);
        if (300 % (uint64_t)ran != (uint64_t)ran - 1)
            ma_visited_mark(last, 300, 0);
        else
            ma_visited_mark(ma_visited_team_bits(&tm, 0), 300, 0);
        assert_int_equal(ma_visited_team_cover(&tm, ran, &entry), MA_VISITED_TWICE);
        assert_int_equal(entry, 300);
        ma_visited_team_free(&tm);
    }
    free((void *)walk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_mark_is_reported),
        cmocka_unit_test(test_complete_walk),
        cmocka_unit_test(test_gap_is_the_least_unmarked_entry),
        cmocka_unit_test(test_bit_past_the_end_is_found),
        cmocka_unit_test(test_shared_marks),
        cmocka_unit_test(test_merge_finds_an_entry_of_two_threads),
        cmocka_unit_test(test_team),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
