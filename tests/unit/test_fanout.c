/* common/fanout: every part runs exactly once, part 0 on the calling thread and the others on
 * threads of their own, and all have finished when ma_fanout returns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/fanout.h"

enum { MAX_PARTS = 400 };

typedef struct record {
    atomic_int runs[MAX_PARTS];
    unsigned parts_seen[MAX_PARTS];
    pthread_t thread[MAX_PARTS];
    atomic_int wrong_parts;
} record;

static void note(void *ctx, unsigned part, unsigned parts)
{
    record *r = ctx;
    if (part >= MAX_PARTS) {
        atomic_fetch_add(&r->wrong_parts, 1);
        return;
    }
    atomic_fetch_add(&r->runs[part], 1);
    r->parts_seen[part] = parts;
    r->thread[part] = pthread_self();
}

static void test_every_part_once(void **state)
{
    (void)state;
    /* 300 parts: past the thread cap, so the calling thread runs the rest */
    static const unsigned counts[] = {0, 1, 2, 3, 4, 7, 16, 300};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        unsigned parts = counts[c], want = parts ? parts : 1;
        record *r = calloc(1, sizeof *r);
        assert_non_null(r);
        unsigned started = ma_fanout(parts, note, r);
        assert_true(started < want);
        assert_int_equal(atomic_load(&r->wrong_parts), 0);
        for (unsigned p = 0; p < MAX_PARTS; p++) {
            assert_int_equal(atomic_load(&r->runs[p]), p < want ? 1 : 0);
            if (p < want)
                assert_int_equal(r->parts_seen[p], want);
        }
        assert_true(pthread_equal(r->thread[0], pthread_self()));
        /* the parts on threads of their own ran elsewhere, each on its own thread */
        for (unsigned p = 1; p <= started; p++) {
            assert_false(pthread_equal(r->thread[p], pthread_self()));
            for (unsigned q = 1; q < p; q++)
                assert_false(pthread_equal(r->thread[p], r->thread[q]));
        }
        /* the rest ran on the calling thread */
        for (unsigned p = started + 1; p < want; p++)
            assert_true(pthread_equal(r->thread[p], pthread_self()));
        free(r);
    }
}

typedef struct sums {
    const uint32_t *v;
    size_t n;
    uint64_t part_sum[8];
} sums;

static void add_slice(void *ctx, unsigned part, unsigned parts)
{
    sums *s = ctx;
    size_t lo = s->n * part / parts, hi = s->n * (part + 1) / parts;
    uint64_t t = 0;
    for (size_t i = lo; i < hi; i++)
        t += s->v[i];
    s->part_sum[part] = t;
}

/* What the parts wrote is visible to the caller when ma_fanout returns. */
static void test_writes_visible_after_return(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    uint32_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    uint64_t want = 0;
    for (size_t i = 0; i < N; i++) {
        v[i] = (uint32_t)(i * 2654435761u);
        want += v[i];
    }
    for (unsigned parts = 1; parts <= 8; parts++) {
        sums s;
        memset(&s, 0, sizeof s);
        s.v = v;
        s.n = N;
        ma_fanout(parts, add_slice, &s);
        uint64_t got = 0;
        for (unsigned p = 0; p < parts; p++)
            got += s.part_sum[p];
        assert_int_equal(got, want);
    }
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_part_once),
        cmocka_unit_test(test_writes_visible_after_return),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
