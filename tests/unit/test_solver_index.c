/* Unit tests for solver/svindex: the check values of docs/format.md §4 and index invariants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "solver/svindex.h"

static int setup(void **state)
{
    ma_svindex *ix = malloc(sizeof *ix);
    if (!ix || ma_svindex_init(ix, NULL) != MA_OK)
        return -1;
    *state = ix;
    return 0;
}

static int teardown(void **state)
{
    ma_svindex_free(*state);
    free(*state);
    return 0;
}

/* The permutation table must be the geometric operation of §4.1 on (u, v). */
static void test_permutations_match_geometry(void **state)
{
    (void)state;
    static const char *names[24] = {"a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3", "a4", "b4", "c4",
                                    "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"};
    int u[24], v[24];
    for (int p = 0; p < 24; p++) {
        u[p] = names[p][0] - 'd';
        v[p] = names[p][1] - '4';
    }
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++) {
            int x = u[p], y = v[p], nx, ny;
            switch (k & 7) {
            case 0: nx = x; ny = y; break;
            case 1: nx = y; ny = -x; break;
            case 2: nx = -x; ny = -y; break;
            case 3: nx = -y; ny = x; break;
            case 4: nx = -x; ny = y; break;
            case 5: nx = x; ny = -y; break;
            case 6: nx = -y; ny = -x; break;
            default: nx = y; ny = x; break;
            }
            if (k >= 8) {
                int r = abs(nx) > abs(ny) ? abs(nx) : abs(ny);
                nx = nx * (4 - r) / r;
                ny = ny * (4 - r) / r;
            }
            int img = ma_svindex_perm[k][p];
            assert_int_equal(u[img], nx);
            assert_int_equal(v[img], ny);
        }
}

static void test_rep_counts(void **state)
{
    ma_svindex *ix = *state;
    static const uint32_t want[13] = {1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880,
                                      124124, 157668, 170854};
    for (int w = 0; w <= 12; w++) {
        assert_int_equal(ma_svindex_prepare(ix, w, NULL), MA_OK);
        assert_int_equal(ix->rep_count[w], want[w]);
    }
    static const uint32_t w1[4] = {1, 2, 8, 16};
    static const uint32_t w2[12] = {3, 5, 9, 10, 12, 17, 18, 24, 40, 65, 66, 68};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ix->reps[1][i], w1[i]);
    for (int i = 0; i < 12; i++)
        assert_int_equal(ix->reps[2][i], w2[i]);
}

static void test_entry_counts(void **state)
{
    ma_svindex *ix = *state;
    for (int w = 0; w <= 5; w++)
        assert_int_equal(ma_svindex_prepare(ix, w, NULL), MA_OK);
    assert_int_equal(ma_svindex_entry_count(ix, 3, 3), 210140);
    assert_int_equal(ma_svindex_entry_count(ix, 0, 1), 24);
    assert_int_equal(ma_svindex_entry_count(ix, 5, 5), 32907240);
}

static void test_sector_0_1_canonical_entries(void **state)
{
    ma_svindex *ix = *state;
    assert_int_equal(ma_svindex_prepare(ix, 0, NULL), MA_OK);
    int canonical[24] = {0};
    for (int p = 0; p < 24; p++) {
        uint64_t e = ma_svindex_entry(ix, 0, 1u << p);
        assert_true(e < 24);
        canonical[e] = 1;
    }
    for (int e = 0; e < 24; e++) {
        uint32_t w, b;
        assert_int_equal(ma_svindex_board(ix, 0, 1, (uint64_t)e, &w, &b, NULL), MA_OK);
        assert_int_equal(ma_svindex_is_canonical(ix, w, b), canonical[e]);
    }
    assert_true(canonical[0] && canonical[1] && canonical[3] && canonical[4]);
    assert_int_equal(canonical[0] + canonical[1] + canonical[2] + canonical[3] + canonical[4] +
                         canonical[5] + canonical[10],
                     4);
    assert_int_equal(ma_svindex_entry(ix, 0, 1u << 0), 0);  /* a1 */
    assert_int_equal(ma_svindex_entry(ix, 0, 1u << 1), 1);  /* d1 */
    assert_int_equal(ma_svindex_entry(ix, 0, 1u << 3), 3);  /* b2 */
    assert_int_equal(ma_svindex_entry(ix, 0, 1u << 4), 4);  /* d2 */
    assert_int_equal(ma_svindex_entry(ix, 0, 1u << 23), 0); /* g7 ~ a1 */
}

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static uint32_t random_mask(uint64_t *s, int n, uint32_t avoid)
{
    uint32_t m = 0;
    while (__builtin_popcount(m) < n) {
        uint32_t p = 1u << (rnd(s) % 24);
        if (!(avoid & p))
            m |= p;
    }
    return m;
}

/* entry() is symmetric-invariant, decodes to the canonical form, and lands in range. */
static void test_round_trip_and_invariance(void **state)
{
    ma_svindex *ix = *state;
    uint64_t seed = 42;
    for (int w = 0; w <= 9; w++)
        assert_int_equal(ma_svindex_prepare(ix, w, NULL), MA_OK);
    for (int i = 0; i < 20000; i++) {
        int wn = (int)(rnd(&seed) % 10), bn = (int)(rnd(&seed) % 10);
        uint32_t w = random_mask(&seed, wn, 0), b = random_mask(&seed, bn, w);
        uint64_t e = ma_svindex_entry(ix, w, b);
        assert_true(e < ma_svindex_entry_count(ix, wn, bn));
        uint32_t wc, bc, dw, db;
        ma_svindex_canon(ix, w, b, &wc, &bc);
        assert_int_equal(ma_svindex_board(ix, wn, bn, e, &dw, &db, NULL), MA_OK);
        assert_int_equal(dw, wc);
        assert_int_equal(db, bc);
        assert_true(ma_svindex_is_canonical(ix, wc, bc));
        for (int k = 0; k < 16; k++)
            assert_int_equal(ma_svindex_entry(ix, ma_svindex_apply(ix, k, w), ma_svindex_apply(ix, k, b)), e);
    }
    uint32_t w, b;
    assert_int_equal(ma_svindex_board(ix, 3, 3, 210140, &w, &b, NULL), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutations_match_geometry),
        cmocka_unit_test(test_rep_counts),
        cmocka_unit_test(test_entry_counts),
        cmocka_unit_test(test_sector_0_1_canonical_entries),
        cmocka_unit_test(test_round_trip_and_invariance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
