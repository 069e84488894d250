/* Unit tests for verifier/check/index_proof: the proof holds on whole sectors of the checker's index
 * (counts as docs/format.md §4 gives them), and the file-word check reports every word that does
 * not fit its entry kind, with its byte offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/index_proof.h"

static ma_open_index *ix;

static int setup(void **state)
{
    (void)state;
    ma_error err;
    if (ma_open_index_create(&ix, &err))
        return -1;
    for (int w = 0; w <= 4; w++)
        if (ma_open_index_prepare(ix, w, &err))
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ma_open_index_free(ix);
    return 0;
}

struct seen {
    int calls;
    uint64_t last_entry;
    char last_what[256];
};

static void record(void *ctx, uint64_t entry, ma_board board, const char *what)
{
    (void)board;
    struct seen *s = ctx;
    s->calls++;
    s->last_entry = entry;
    snprintf(s->last_what, sizeof s->last_what, "%s", what);
}

/* Every sector up to 4 + 3 stones: no failure, the orbit sizes sum to the raw placements, and
 * 0_1 (one opponent stone) has the 4 canonical entries of docs/format.md §4.4. */
static void test_proof_holds_on_small_sectors(void **state)
{
    (void)state;
    for (int w = 0; w <= 4; w++)
        for (int b = 0; b <= 3; b++) {
            ma_index_proof p;
            struct seen s = {0, 0, ""};
            ma_error err;
            assert_int_equal(ma_index_proof_sector(ix, w, b, NULL, record, &s, &p, &err), MA_OK);
            assert_int_equal(p.failures, 0);
            assert_int_equal(s.calls, 0);
            assert_int_equal(p.entries, ma_open_index_entry_count(ix, w, b));
            assert_int_equal(p.placements, p.expected_placements);
            assert_int_equal(p.orbit_sum, p.placements);
            assert_true(p.canonical <= p.entries && p.canonical * 16 >= p.placements);
            if (w == 0 && b == 1)
                assert_int_equal(p.canonical, 4);
        }
}

/* A file image of sector (w, b) in memory: canonical entries hold "draw", the others 0. */
static uint8_t *good_body(int w, int b, uint64_t *n_out)
{
    uint64_t n = ma_open_index_entry_count(ix, w, b), m = ma_open_binomial(MA_POINTS - w, b);
    uint8_t *body = calloc(2 * n, 1), orbit[4096];
    assert_non_null(body);
    assert_true(m <= sizeof orbit);
    uint16_t draw = ma_open_value_encode((ma_value){.outcome = MA_OUTCOME_DRAW});
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, w, b, e / m, orbit);
        if (orbit[e % m]) {
            body[2 * e] = (uint8_t)draw;
            body[2 * e + 1] = (uint8_t)(draw >> 8);
        }
    }
    *n_out = n;
    return body;
}

/* A good body passes; a value at a non-canonical entry and a zero word at a canonical one are
 * each reported with the entry and the file offset, and counted. */
static void test_file_words_report_misplaced_values(void **state)
{
    (void)state;
    uint64_t n;
    uint8_t *body = good_body(2, 2, &n);
    ma_open_file f;
    memset(&f, 0, sizeof f);
    f.header.entry_count = n;
    f.body = body;
    struct seen s = {0, 0, ""};
    uint64_t bad = 99;
    ma_error err;
    assert_int_equal(ma_index_proof_file_words(ix, &f, 2, 2, record, &s, &bad, &err), MA_OK);
    assert_int_equal(bad, 0);
    assert_int_equal(s.calls, 0);

    /* the first canonical and the first non-canonical entry (a representative with a trivial
     * stabiliser has only canonical entries, so look across representatives) */
    uint64_t m = ma_open_binomial(MA_POINTS - 2, 2), canon = n, other = n;
    uint8_t orbit[4096];
    for (uint64_t e = 0; e < n && (canon == n || other == n); e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, 2, 2, e / m, orbit);
        if (orbit[e % m] && canon == n)
            canon = e;
        if (!orbit[e % m] && other == n)
            other = e;
    }
    assert_true(canon < n && other < n);
    body[2 * other] = body[2 * canon];
    body[2 * other + 1] = body[2 * canon + 1];
    body[2 * canon] = body[2 * canon + 1] = 0;
    assert_int_equal(ma_index_proof_file_words(ix, &f, 2, 2, record, &s, &bad, &err), MA_OK);
    assert_int_equal(bad, 2);
    assert_int_equal(s.calls, 2);
    uint64_t last = canon > other ? canon : other;
    char want[64];
    snprintf(want, sizeof want, "offset %llu: bad encoding",
             (unsigned long long)ma_open_file_offset(last));
    assert_int_equal(s.last_entry, last);
    assert_non_null(strstr(s.last_what, want));
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_proof_holds_on_small_sectors),
        cmocka_unit_test(test_file_words_report_misplaced_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
