/* The index proof against an index with a planted bug (verifier/check/index_proof.h,
 * `millaudit index-check` through ma_index_check_run): the proof must say FAILED, and exit with
 * discrepancies, when the checker's own index is wrong in a way only its count check sees.
 *
 * The seam is the linker's, in this test executable only (tests/unit/CMakeLists.txt links it with
 * --wrap of the four index functions the proof calls): __wrap_X passes every call on to the real X
 * (__real_X) unless a bug is planted, so no binary that ships can run a weakened index, and the
 * proof is run as the product runs it.
 *
 * The planted bug: one class of positions (the orbit of a canonical entry E0) has no entry. E0
 * (and any non-canonical entry that decoded to that class) decodes to a non-canonical image of
 * another class's board B1, E0 is classified non-canonical, and every placement of the missing
 * class ranks to B1's entry E1 with an op the index's apply maps onto B1. Each entry and each
 * placement is then consistent with the index (the per-entry checks trust its apply), so only the
 * count check sees it: the canonical entries' orbit sizes sum to fewer than the raw placements. A
 * database written through such an index would store that class's values under another class's
 * entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/index_proof.h"
#include "millaudit/inspect.h"

/* The op no real index reports (ops are 0..15): the planted rank's, which the planted apply maps
 * onto B1. */
#define PLANTED_OP 16

static struct plant {
    int on, w, b;
    uint64_t e0, e1;   /* the entry lost to the missing class; the entry its placements rank to */
    ma_board b0, b1;   /* their canonical boards */
    ma_board x;        /* a non-canonical image of b1: what the missing class's entries decode to */
} plant;

ma_board __real_ma_open_index_unrank(const ma_open_index *ix, int w, int b, uint64_t entry);
int __real_ma_open_index_classify(const ma_open_index *ix, int w, int b, uint64_t rep, uint8_t *orbit);
uint64_t __real_ma_open_index_rank(const ma_open_index *ix, ma_board board, int *op_out);
ma_board __real_ma_open_index_apply(const ma_open_index *ix, int op, ma_board board);
ma_board __wrap_ma_open_index_unrank(const ma_open_index *ix, int w, int b, uint64_t entry);
int __wrap_ma_open_index_classify(const ma_open_index *ix, int w, int b, uint64_t rep, uint8_t *orbit);
uint64_t __wrap_ma_open_index_rank(const ma_open_index *ix, ma_board board, int *op_out);
ma_board __wrap_ma_open_index_apply(const ma_open_index *ix, int op, ma_board board);

static int in_sector(int w, int b)
{
    return plant.on && w == plant.w && b == plant.b;
}

static int in_missing_class(ma_board board)
{
    ma_board c = ma_open_canonical(board, NULL);
    return c.mover == plant.b0.mover && c.opp == plant.b0.opp;
}

/* Every entry that decoded to a board of the missing class (E0, and the non-canonical entries of
 * a symmetric representative) decodes to x. */
ma_board __wrap_ma_open_index_unrank(const ma_open_index *ix, int w, int b, uint64_t entry)
{
    ma_board board = __real_ma_open_index_unrank(ix, w, b, entry);
    return in_sector(w, b) && in_missing_class(board) ? plant.x : board;
}

int __wrap_ma_open_index_classify(const ma_open_index *ix, int w, int b, uint64_t rep, uint8_t *orbit)
{
    int rc = __real_ma_open_index_classify(ix, w, b, rep, orbit);
    uint64_t m = ma_open_binomial(MA_POINTS - w, b);
    if (in_sector(w, b) && plant.e0 / m == rep)
        orbit[plant.e0 % m] = 0;
    return rc;
}

uint64_t __wrap_ma_open_index_rank(const ma_open_index *ix, ma_board board, int *op_out)
{
    int w = __builtin_popcount(board.mover), b = __builtin_popcount(board.opp);
    if (in_sector(w, b) && in_missing_class(board)) {
        if (op_out)
            *op_out = PLANTED_OP;
        return plant.e1;
    }
    return __real_ma_open_index_rank(ix, board, op_out);
}

ma_board __wrap_ma_open_index_apply(const ma_open_index *ix, int op, ma_board board)
{
    if (plant.on && op == PLANTED_OP)
        return plant.b1;
    return __real_ma_open_index_apply(ix, op, board);
}

/* Plants the bug in sector (w, b): E0 the first canonical entry, E1 the next one whose orbit has
 * more than one board (so a non-canonical image exists). */
static void plant_missing_class(const ma_open_index *ix, int w, int b)
{
    plant = (struct plant){0};
    uint64_t n = ma_open_index_entry_count(ix, w, b), m = ma_open_binomial(MA_POINTS - w, b);
    uint8_t orbit[4096];
    assert_true(m <= sizeof orbit);
    int have0 = 0, have1 = 0;
    for (uint64_t e = 0; e < n && !have1; e++) {
        if (e % m == 0)
            __real_ma_open_index_classify(ix, w, b, e / m, orbit);
        if (!orbit[e % m])
            continue;
        ma_board board = __real_ma_open_index_unrank(ix, w, b, e);
        if (!have0) {
            plant.e0 = e;
            plant.b0 = board;
            have0 = 1;
        } else if (ma_open_orbit_size(board) > 1) {
            plant.e1 = e;
            plant.b1 = board;
            have1 = 1;
        }
    }
    assert_true(have1);
    for (int op = 1; op < MA_SYM_OPS; op++) {
        plant.x = ma_open_sym_apply(op, plant.b1);
        if (plant.x.mover != plant.b1.mover || plant.x.opp != plant.b1.opp)
            break;
    }
    assert_false(ma_open_index_is_canonical(plant.x));
    plant.w = w;
    plant.b = b;
    plant.on = 1;
}

struct shown {
    int failures;
};

static void count_failure(void *ctx, const ma_index_check_report *r, const ma_index_check_failure *f)
{
    (void)r;
    (void)f;
    ((struct shown *)ctx)->failures++;
}

/* What `millaudit index-check --sector S` renders at its end, into buf. */
static void render_end(const ma_index_check_report *r, char *buf, size_t size)
{
    FILE *f = fmemopen(buf, size, "w");
    assert_non_null(f);
    ma_index_check_render_end(f, r);
    fclose(f);
}

/* sectors of the std game (the run checks that), by their stones on the board the proof's only input */
static const struct { int w, b, wf, bf; } sectors[] = {{0, 1, 9, 8}, {1, 2, 8, 7}, {2, 2, 7, 7}};

/* The same proof without the plant passes (the seam changes nothing by itself), and with it says
 * FAILED with one failure, the count check's, and the discrepancies verdict: a proof that counted
 * the count check as nothing would say "result: ok" under its own FAIL line. */
static void test_missing_class_fails_the_proof(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof sectors / sizeof *sectors; i++) {
        ma_index_check_options opt = {.variant = MA_VARIANT_STD,
                                      .sector = {sectors[i].w, sectors[i].b, sectors[i].wf, sectors[i].bf},
                                      .on_failure = count_failure};
        struct shown shown = {0};
        opt.ctx = &shown;
        ma_index_check_report good, bad;
        ma_error err;
        plant.on = 0;
        assert_int_equal(ma_index_check_run(&good, &opt, &err), MA_OK);
        assert_int_equal(good.failures, 0);
        assert_int_equal(good.result, ma_result_of_verdict(MA_VERDICT_VERIFIED, 0));
        assert_true(good.counts_agree);

        ma_open_index *ix;
        assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
        assert_int_equal(ma_open_index_prepare(ix, sectors[i].w, &err), MA_OK);
        plant_missing_class(ix, sectors[i].w, sectors[i].b);
        ma_open_index_free(ix);
        assert_int_equal(ma_index_check_run(&bad, &opt, &err), MA_OK);
        plant.on = 0;
        assert_int_equal(shown.failures, 0); /* no entry and no placement is reported */
        assert_int_equal(bad.canonical, good.canonical - 1);
        assert_int_equal(bad.placements, good.placements);
        assert_int_equal(bad.orbit_sum, good.orbit_sum - (uint64_t)ma_open_orbit_size(plant.b0));
        assert_false(bad.counts_agree);
        assert_int_equal(bad.failures, 1);
        assert_int_equal(bad.result, ma_result_of_verdict(MA_VERDICT_DISCREPANCIES, 0));
        char text[2048], want[256];
        render_end(&bad, text, sizeof text);
        snprintf(want, sizeof want,
                 "FAIL std %d_%d_%d_%d: orbit sizes of canonical entries sum to %llu, raw placements %llu "
                 "(expected %llu)\n",
                 sectors[i].w, sectors[i].b, sectors[i].wf, sectors[i].bf, (unsigned long long)bad.orbit_sum,
                 (unsigned long long)bad.placements, (unsigned long long)bad.expected_placements);
        assert_non_null(strstr(text, want));
        assert_non_null(strstr(text, "\nresult: FAILED, 1 failure\n"));
        assert_null(strstr(text, "result: ok"));
    }
}

/* The module's own contract: the proof of the planted sector counts exactly one failed check and
 * reports none through its callback (the count check is counted only, index_proof.h). */
static void test_count_check_is_counted_as_a_failure(void **state)
{
    (void)state;
    ma_open_index *ix;
    ma_error err;
    assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
    assert_int_equal(ma_open_index_prepare(ix, 2, &err), MA_OK);
    plant_missing_class(ix, 2, 1);
    ma_index_proof p;
    assert_int_equal(ma_index_proof_sector(ix, 2, 1, NULL, NULL, NULL, &p, &err), MA_OK);
    plant.on = 0;
    ma_open_index_free(ix);
    assert_int_equal(p.placements, p.expected_placements);
    assert_true(p.orbit_sum < p.placements);
    assert_int_equal(p.failures, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_class_fails_the_proof),
        cmocka_unit_test(test_count_check_is_counted_as_a_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
