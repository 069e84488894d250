/* Unit tests for the producer's Malom index (solver/svmalom_index) and Malom-format writers
 * (solver/svmalom_file): every test vector of malom-format.md §7.3, the §4 check values, round
 * trips, the marker rule, and the entry encodings of §5.2 / §5.7 on small sectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solver/svmalom_file.h"
#include "solver/svmalom_index.h"
#include "support.h"

static int setup(void **state)
{
    ma_svmidx *ix = malloc(sizeof *ix);
    if (!ix || ma_svmidx_init(ix, NULL) != MA_OK)
        return -1;
    for (int w = 0; w <= 12; w++)
        if (ma_svmidx_prepare(ix, w, NULL) != MA_OK)
            return -1;
    *state = ix;
    return 0;
}

static int teardown(void **state)
{
    ma_svmidx_free(*state);
    free(*state);
    return 0;
}

static int fixtures_required(void)
{
    const char *ci = getenv("CI"), *req = getenv("MILLAUDIT_REQUIRE_FIXTURES");
    return (ci && *ci) || (req && *req && strcmp(req, "0"));
}

/* §4.1, typed in from the table (the implementation builds it from the formulas). */
static const uint8_t spec_perm[16][24] = {
    {2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 18, 19, 20, 21, 22, 23, 16, 17},
    {4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 20, 21, 22, 23, 16, 17, 18, 19},
    {6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, 22, 23, 16, 17, 18, 19, 20, 21},
    {4, 3, 2, 1, 0, 7, 6, 5, 12, 11, 10, 9, 8, 15, 14, 13, 20, 19, 18, 17, 16, 23, 22, 21},
    {0, 7, 6, 5, 4, 3, 2, 1, 8, 15, 14, 13, 12, 11, 10, 9, 16, 23, 22, 21, 20, 19, 18, 17},
    {2, 1, 0, 7, 6, 5, 4, 3, 10, 9, 8, 15, 14, 13, 12, 11, 18, 17, 16, 23, 22, 21, 20, 19},
    {6, 5, 4, 3, 2, 1, 0, 7, 14, 13, 12, 11, 10, 9, 8, 15, 22, 21, 20, 19, 18, 17, 16, 23},
    {16, 17, 18, 19, 20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7},
    {18, 19, 20, 21, 22, 23, 16, 17, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1},
    {20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3},
    {22, 23, 16, 17, 18, 19, 20, 21, 14, 15, 8, 9, 10, 11, 12, 13, 6, 7, 0, 1, 2, 3, 4, 5},
    {20, 19, 18, 17, 16, 23, 22, 21, 12, 11, 10, 9, 8, 15, 14, 13, 4, 3, 2, 1, 0, 7, 6, 5},
    {16, 23, 22, 21, 20, 19, 18, 17, 8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1},
    {18, 17, 16, 23, 22, 21, 20, 19, 10, 9, 8, 15, 14, 13, 12, 11, 2, 1, 0, 7, 6, 5, 4, 3},
    {22, 21, 20, 19, 18, 17, 16, 23, 14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
};

static void test_permutations_are_the_spec_table(void **state)
{
    const ma_svmidx *ix = *state;
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++) {
            assert_int_equal(ix->perm[k][p], spec_perm[k][p]);
            assert_int_equal(ma_svmidx_apply(ix, k, 1u << p), 1u << spec_perm[k][p]);
        }
    /* inverse(op) undoes op on every point */
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++)
            assert_int_equal(spec_perm[ma_svmidx_inverse_op(k)][spec_perm[k][p]], p);
}

static void test_numbering_conversion(void **state)
{
    const ma_svmidx *ix = *state;
    /* §1.1 a4 = Malom bit 0, docs/format.md §1 a4 = open bit 9; c3: 23 and 6; g7: 3 and 23. */
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 0), 1u << 9);
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 23), 1u << 6);
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 3), 1u << 23);
    /* mask 131 = the left outer mill a4 a7 a1 = open bits 9, 21, 0 */
    assert_int_equal(ma_svmidx_to_open(ix, 131), (1u << 9) | (1u << 21) | 1u);
    srand(7);
    for (int i = 0; i < 10000; i++) {
        uint32_t m = ((uint32_t)rand() ^ (uint32_t)rand() << 12) & 0xFFFFFFu;
        assert_int_equal(ma_svmidx_from_open(ix, ma_svmidx_to_open(ix, m)), m);
        assert_int_equal(__builtin_popcount(ma_svmidx_to_open(ix, m)), __builtin_popcount(m));
    }
}

static void test_f_count_and_first_representatives(void **state)
{
    const ma_svmidx *ix = *state;
    static const uint32_t f_count[13] = {1,     4,     30,     158,    757,    2830,  8774,
                                         22188, 46879, 82880, 124124, 157668, 170854};
    for (int w = 0; w <= 12; w++)
        assert_int_equal(ix->rep_count[w], f_count[w]);
    static const uint32_t w1[4] = {1, 2, 256, 512};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ix->reps[1][i], w1[i]);
    static const uint32_t w2[10] = {3, 5, 9, 10, 17, 34, 257, 258, 260, 264};
    for (int i = 0; i < 10; i++)
        assert_int_equal(ix->reps[2][i], w2[i]);
    assert_int_equal(ix->reps[2][27], 131074);
    assert_int_equal(ix->reps[2][28], 131080);
    assert_int_equal(ix->reps[2][29], 131104);
    static const uint32_t w3[11] = {7, 11, 13, 14, 19, 21, 35, 37, 41, 42, 259};
    for (int i = 0; i < 11; i++)
        assert_int_equal(ix->reps[3][i], w3[i]);
}

static void test_hash_counts(void **state)
{
    const ma_svmidx *ix = *state;
    /* §4.9 */
    assert_int_equal(ma_svmidx_count(ix, 0, 0), 1);
    assert_int_equal(ma_svmidx_count(ix, 0, 1), 24);
    assert_int_equal(ma_svmidx_count(ix, 1, 2), 1012);
    assert_int_equal(ma_svmidx_count(ix, 3, 3), 210140);
    assert_int_equal(ma_svmidx_count(ix, 4, 3), 862980);
    assert_int_equal(ma_svmidx_count(ix, 3, 4), 945630);
    assert_int_equal(ma_svmidx_count(ix, 4, 4), 3667665);
    assert_int_equal(ma_svmidx_count(ix, 5, 5), 32907240);
    assert_int_equal(ma_svmidx_count(ix, 8, 8), 603332730);
    assert_int_equal(ma_svmidx_count(ix, 12, 12), 170854);
}

/* Every row of ../shared/docs/malom-test-vectors.tsv: op1, h1, op2, the final index and the
 * canonical board. */
static void test_all_spec_test_vectors(void **state)
{
    const ma_svmidx *ix = *state;
    const char *src = getenv("MA_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/../shared/docs/malom-test-vectors.tsv", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f) {
        if (fixtures_required())
            fail_msg("%s absent but CI / MILLAUDIT_REQUIRE_FIXTURES is set", path);
        fprintf(stderr, "skipped: %s absent\n", path);
        skip();
    }
    char line[2048];
    int rows = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *fld[20];
        int n = 0;
        for (char *p = strtok(line, "\t\n"); p && n < 20; p = strtok(NULL, "\t\n"))
            fld[n++] = p;
        assert_true(n >= 12);
        uint32_t w = (uint32_t)strtoul(fld[4], NULL, 10), b = (uint32_t)strtoul(fld[5], NULL, 10);
        int op1 = atoi(fld[6]), op2 = atoi(fld[8]);
        uint64_t h1 = strtoull(fld[7], NULL, 10), index = strtoull(fld[9], NULL, 10);
        uint32_t cw = (uint32_t)strtoul(fld[10], NULL, 10), cb = (uint32_t)strtoul(fld[11], NULL, 10);
        int got_op1, got_op2;
        uint64_t got_h1;
        assert_int_equal(ma_svmidx_index(ix, w, b), index);
        assert_int_equal(ma_svmidx_path(ix, w, b, &got_op1, &got_h1, &got_op2), index);
        assert_int_equal(got_op1, op1);
        assert_int_equal(got_h1, h1);
        assert_int_equal(got_op2, op2);
        uint32_t bw, bb;
        assert_int_equal(ma_svmidx_board(ix, __builtin_popcount(w), __builtin_popcount(b), index,
                                         &bw, &bb, NULL),
                         MA_OK);
        assert_int_equal(bw, cw);
        assert_int_equal(bb, cb);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 96);
}

static int marker_at(const ma_svmidx *ix, int wn, int bn, uint64_t h)
{
    uint64_t m = ma_svmidx_binom(ix, 24 - wn, bn);
    uint32_t w, b;
    assert_int_equal(ma_svmidx_board(ix, wn, bn, h, &w, &b, NULL), MA_OK);
    return ma_svmidx_marker(ix, wn, (uint32_t)(h / m), b);
}

static void test_marker_rule_examples(void **state)
{
    const ma_svmidx *ix = *state;
    /* §4.6: W=0, B=1: canonical indices 0, 1, 8, 9; index 2 holds op 2, index 23 op 8; and the
     * 24 entries of std_0_1_9_8 listed in §7.2. */
    static const int ops01[24] = {-1, -1, 2, 2, 1, 1, 0, 0, -1, -1, 2, 2,
                                  1,  1,  0, 0, 7, 7, 10, 10, 9, 9, 8, 8};
    for (int h = 0; h < 24; h++)
        assert_int_equal(marker_at(ix, 0, 1, (uint64_t)h), ops01[h]);
    /* §4.6: W=3, B=3 has 40,514 markers. */
    uint64_t markers = 0, n = ma_svmidx_count(ix, 3, 3);
    for (uint64_t h = 0; h < n; h++)
        markers += marker_at(ix, 3, 3, h) >= 0;
    assert_int_equal(markers, 40514);
    /* §4.8: std 1_2_8_7, board f4 / g1,b4: entry 748 holds op 12, index 562. */
    assert_int_equal(marker_at(ix, 1, 2, 748), 12);
    assert_int_equal(marker_at(ix, 1, 2, 562), -1);
}

/* Round trips on every index of small (W, B) and on random boards of larger ones: a canonical
 * index decodes to a board that ranks to itself; a marker index's op takes its board to the
 * canonical board of the class, whose index ranks back; every symmetric image ranks alike. */
static void check_index(const ma_svmidx *ix, int wn, int bn, uint64_t h)
{
    uint32_t w, b;
    uint64_t m = ma_svmidx_binom(ix, 24 - wn, bn);
    assert_int_equal(ma_svmidx_board(ix, wn, bn, h, &w, &b, NULL), MA_OK);
    assert_int_equal(w & b, 0);
    assert_int_equal(__builtin_popcount(w), wn);
    assert_int_equal(__builtin_popcount(b), bn);
    int op = ma_svmidx_marker(ix, wn, (uint32_t)(h / m), b);
    uint64_t canon = ma_svmidx_index(ix, w, b);
    if (op < 0) {
        assert_int_equal(canon, h);
    } else {
        assert_true(op >= 0 && op <= 14);
        assert_int_not_equal(canon, h);
        uint32_t w2 = ma_svmidx_apply(ix, op, w), b2 = ma_svmidx_apply(ix, op, b);
        assert_int_equal(w2, w); /* marker ops fix the mover mask */
        uint32_t cw, cb;
        assert_int_equal(ma_svmidx_board(ix, wn, bn, canon, &cw, &cb, NULL), MA_OK);
        assert_int_equal(cw, w2);
        assert_int_equal(cb, b2);
        assert_int_equal(marker_at(ix, wn, bn, canon), -1);
    }
    for (int k = 0; k < 16; k++)
        assert_int_equal(ma_svmidx_index(ix, ma_svmidx_apply(ix, k, w), ma_svmidx_apply(ix, k, b)),
                         canon);
}

static void test_round_trips(void **state)
{
    const ma_svmidx *ix = *state;
    for (int wn = 0; wn <= 3; wn++)
        for (int bn = 0; bn <= 3; bn++) {
            uint64_t n = ma_svmidx_count(ix, wn, bn);
            for (uint64_t h = 0; h < n; h += (n > 50000 ? 7 : 1))
                check_index(ix, wn, bn, h);
        }
    srand(11);
    for (int i = 0; i < 20000; i++) {
        int wn = rand() % 13, bn = rand() % 13;
        if (wn + bn > 24)
            continue;
        uint64_t n = ma_svmidx_count(ix, wn, bn);
        uint64_t h = (((uint64_t)rand() << 31) ^ (uint64_t)rand()) % n;
        check_index(ix, wn, bn, h);
    }
    /* A board of the wrong size or an out-of-range index is refused, not decoded. */
    uint32_t w, b;
    ma_error err;
    assert_int_equal(ma_svmidx_board(ix, 3, 3, 210140, &w, &b, &err), MA_EINVAL);
    assert_int_equal(ma_svmidx_prepare((ma_svmidx *)ix, 13, &err), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutations_are_the_spec_table),
        cmocka_unit_test(test_numbering_conversion),
        cmocka_unit_test(test_f_count_and_first_representatives),
        cmocka_unit_test(test_hash_counts),
        cmocka_unit_test(test_all_spec_test_vectors),
        cmocka_unit_test(test_marker_rule_examples),
        cmocka_unit_test(test_round_trips),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
