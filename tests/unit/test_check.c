/*
 * Unit tests for verifier/check/check: the local rule, the discrepancy classes, missing and badly encoded
 * successors, threads.
 *
 * The fixture is a pair of synthetic std sectors whose values follow from simple facts, so the
 * expected values are computed here without a solver:
 *  - child std_3_3_0_0 holds "draw" at every canonical entry (it is never itself checked here);
 *  - parent std_2_3_1_0 (mover places its last stone; a mill wins at once because the opponent has
 *    3 stones): the value is win 1 when the mover's two stones lie on a mill line whose third point
 *    is free, otherwise every successor is a draw, so draw.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/formats/open_file.h"
#include "indexer/open_index.h"
#include "verifier/check/check.h"

static const uint32_t std_lines[16] = {7, 56, 448, 3584, 28672, 229376, 1835008, 14680064,
                                       2097665, 263176, 34880, 146, 4784128, 135424, 1056800,
                                       8404996};

struct fixture {
    char dir[256];
    char parent_path[512], child_path[512];
    ma_open_index *ix;
    ma_open_file parent, child;
    uint16_t *parent_words, *child_words;
    uint64_t parent_n, child_n;
};

static const ma_sector PARENT = {2, 3, 1, 0};
static const ma_sector CHILD = {3, 3, 0, 0};

static void write_sector_of(const char *path, ma_variant v, ma_sector s, const uint16_t *words,
                            uint64_t n)
{
    uint8_t h[128] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1A};
    h[8] = 1;
    h[10] = 128;
    h[12] = (uint8_t)v;
    h[13] = v == MA_VARIANT_MORA; /* rule flag bit 0: full board is a draw */
    h[14] = s.w;
    h[15] = s.b;
    h[16] = s.wf;
    h[17] = s.bf;
    h[18] = 2;
    h[19] = 1;
    h[20] = 1;
    h[22] = 1;
    for (int i = 0; i < 8; i++)
        h[24 + i] = (uint8_t)(n >> (8 * i));
    memcpy(h + 32, "test_check", 10);
    memcpy(h + 64, "0", 1);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(h, 1, 128, f), 128);
    for (uint64_t e = 0; e < n; e++) {
        uint8_t w[2] = {(uint8_t)words[e], (uint8_t)(words[e] >> 8)};
        assert_int_equal(fwrite(w, 1, 2, f), 2);
    }
    assert_int_equal(fclose(f), 0);
}

static void write_sector(const char *path, ma_sector s, const uint16_t *words, uint64_t n)
{
    write_sector_of(path, MA_VARIANT_STD, s, words, n);
}

static uint16_t parent_value(ma_board b)
{
    uint32_t empty = 0xFFFFFFu & ~(b.mover | b.opp);
    for (int i = 0; i < 16; i++) {
        uint32_t l = std_lines[i];
        if (__builtin_popcount(b.mover & l) == 2 && (empty & l))
            return 0xC001; /* win in 1 */
    }
    return 0x8000; /* draw */
}

static void map_both(struct fixture *fx)
{
    ma_error err;
    write_sector(fx->parent_path, PARENT, fx->parent_words, fx->parent_n);
    write_sector(fx->child_path, CHILD, fx->child_words, fx->child_n);
    assert_int_equal(ma_open_file_map(&fx->parent, fx->parent_path, fx->ix, 1, &err), MA_OK);
    assert_int_equal(ma_open_file_map(&fx->child, fx->child_path, fx->ix, 1, &err), MA_OK);
}

static void unmap_both(struct fixture *fx)
{
    ma_open_file_close(&fx->parent);
    ma_open_file_close(&fx->child);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    ma_error err;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_check_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->parent_path, sizeof fx->parent_path, "%s/std_2_3_1_0.mdb", fx->dir);
    snprintf(fx->child_path, sizeof fx->child_path, "%s/std_3_3_0_0.mdb", fx->dir);
    if (ma_open_index_create(&fx->ix, &err) ||
        ma_check_prepare_index(fx->ix, MA_VARIANT_STD, PARENT, &err))
        return -1;
    fx->parent_n = ma_open_index_entry_count(fx->ix, 2, 3);
    fx->child_n = ma_open_index_entry_count(fx->ix, 3, 3);
    fx->parent_words = calloc(fx->parent_n, 2);
    fx->child_words = calloc(fx->child_n, 2);
    for (uint64_t e = 0; e < fx->child_n; e++)
        fx->child_words[e] = ma_open_index_is_canonical(ma_open_index_unrank(fx->ix, 3, 3, e)) ? 0x8000 : 0;
    for (uint64_t e = 0; e < fx->parent_n; e++) {
        ma_board b = ma_open_index_unrank(fx->ix, 2, 3, e);
        fx->parent_words[e] = ma_open_index_is_canonical(b) ? parent_value(b) : 0;
    }
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    unlink(fx->parent_path);
    unlink(fx->child_path);
    rmdir(fx->dir);
    ma_open_index_free(fx->ix);
    free(fx->parent_words);
    free(fx->child_words);
    free(fx);
    return 0;
}

static void run_check(struct fixture *fx, ma_check_result *res, int threads, int with_child)
{
    ma_check_input in;
    memset(&in, 0, sizeof in);
    in.ix = fx->ix;
    in.file = &fx->parent;
    in.threads = threads;
    in.child[MA_TURN_PLACE] = with_child ? &fx->child : NULL;
    ma_error err;
    assert_int_equal(ma_check_sector(res, &in, &err), MA_OK);
    assert_int_equal(res->checked, fx->parent_n);
}

/* First canonical entry holding `word` in the parent. */
static uint64_t find_entry(struct fixture *fx, uint16_t word)
{
    for (uint64_t e = 0; e < fx->parent_n; e++)
        if (fx->parent_words[e] == word)
            return e;
    fail_msg("no entry holds 0x%04x", word);
    return 0;
}

static uint64_t find_noncanonical(struct fixture *fx)
{
    for (uint64_t e = 0; e < fx->parent_n; e++)
        if (!ma_open_index_is_canonical(ma_open_index_unrank(fx->ix, 2, 3, e)))
            return e;
    fail_msg("no non-canonical entry");
    return 0;
}

static void test_value_order_and_negation(void **state)
{
    (void)state;
    ma_value w1 = {MA_OUTCOME_WIN, 1}, w3 = {MA_OUTCOME_WIN, 3}, d = {MA_OUTCOME_DRAW, 0};
    ma_value l0 = {MA_OUTCOME_LOSS, 0}, l4 = {MA_OUTCOME_LOSS, 4};
    assert_true(ma_check_value_score(w1) > ma_check_value_score(w3));
    assert_true(ma_check_value_score(w3) > ma_check_value_score(d));
    assert_true(ma_check_value_score(d) > ma_check_value_score(l4));
    assert_true(ma_check_value_score(l4) > ma_check_value_score(l0));
    ma_value n = ma_check_value_negate(l4);
    assert_int_equal(n.outcome, MA_OUTCOME_WIN);
    assert_int_equal(n.depth, 5);
    n = ma_check_value_negate(w3);
    assert_int_equal(n.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(n.depth, 4);
    n = ma_check_value_negate(d);
    assert_int_equal(n.outcome, MA_OUTCOME_DRAW);
    assert_string_equal(ma_check_class_name(MA_CHECK_SYMMETRY), "symmetry-inconsistency");
    assert_string_equal(ma_check_class_name(MA_CHECK_CLASSES), "missing-child");
}

static void test_correct_sector_verifies_completely(void **state)
{
    struct fixture *fx = *state;
    map_both(fx);
    for (int threads = 1; threads <= 3; threads += 2) {
        ma_check_result res;
        run_check(fx, &res, threads, 1);
        assert_int_equal(res.discrepancies, 0);
        assert_int_equal(res.verified, fx->parent_n);
        assert_int_equal(res.missing_child, 0);
        assert_true(res.canonical > 0 && res.canonical < fx->parent_n);
        ma_check_result_free(&res);
    }
    unmap_both(fx);
}

static void expect_single(struct fixture *fx, uint64_t entry, int cls, int threads)
{
    ma_check_result res;
    run_check(fx, &res, threads, 1);
    assert_int_equal(res.discrepancies, 1);
    assert_int_equal(res.n_items, 1);
    assert_int_equal(res.items[0].entry, entry);
    assert_int_equal(res.items[0].cls, cls);
    assert_int_equal(res.by_class[cls], 1);
    assert_int_equal(res.verified, fx->parent_n - 1);
    ma_check_result_free(&res);
}

static void test_each_fault_is_reported_at_its_entry_with_its_class(void **state)
{
    struct fixture *fx = *state;
    uint64_t draw = find_entry(fx, 0x8000), win = find_entry(fx, 0xC001), nc = find_noncanonical(fx);
    struct { uint64_t entry; uint16_t word; int cls; } faults[] = {
        {draw, 0x4002, MA_CHECK_WRONG_OUTCOME},  /* draw -> loss 2 */
        {win, 0xC003, MA_CHECK_WRONG_TERMINAL},  /* win 1 by reduction -> win 3 */
        {win, 0x8000, MA_CHECK_WRONG_TERMINAL},
        {draw, 0xC002, MA_CHECK_BAD_ENCODING},   /* win with even depth */
        {draw, 0x0000, MA_CHECK_BAD_ENCODING},   /* none at a canonical entry */
        {draw, 0x8004, MA_CHECK_BAD_ENCODING},   /* draw with a depth */
        {nc, 0x8000, MA_CHECK_SYMMETRY},
    };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        uint16_t keep = fx->parent_words[faults[i].entry];
        fx->parent_words[faults[i].entry] = faults[i].word;
        map_both(fx);
        expect_single(fx, faults[i].entry, faults[i].cls, 1 + (int)(i % 2));
        unmap_both(fx);
        fx->parent_words[faults[i].entry] = keep;
    }
}

static void test_wrong_depth_is_its_own_class(void **state)
{
    struct fixture *fx = *state;
    /* Make every child entry a loss in 4: the parent is then win 1 (reduction) or win 5. */
    for (uint64_t e = 0; e < fx->child_n; e++)
        if (fx->child_words[e])
            fx->child_words[e] = 0x4004;
    for (uint64_t e = 0; e < fx->parent_n; e++)
        if (fx->parent_words[e] == 0x8000)
            fx->parent_words[e] = 0xC005;
    map_both(fx);
    ma_check_result res;
    run_check(fx, &res, 2, 1);
    assert_int_equal(res.discrepancies, 0);
    ma_check_result_free(&res);
    unmap_both(fx);
    uint64_t e5 = find_entry(fx, 0xC005);
    fx->parent_words[e5] = 0xC007;
    map_both(fx);
    expect_single(fx, e5, MA_CHECK_WRONG_DEPTH, 2);
    unmap_both(fx);
    /* restore the draw fixture */
    for (uint64_t e = 0; e < fx->child_n; e++)
        if (fx->child_words[e])
            fx->child_words[e] = 0x8000;
    for (uint64_t e = 0; e < fx->parent_n; e++)
        if (fx->parent_words[e] == 0xC005 || fx->parent_words[e] == 0xC007)
            fx->parent_words[e] = 0x8000;
}

static void test_missing_child_is_never_verified(void **state)
{
    struct fixture *fx = *state;
    map_both(fx);
    ma_check_result res;
    run_check(fx, &res, 2, 0);
    assert_int_equal(res.discrepancies, 0);
    assert_true(res.missing_child > 0);
    assert_true(res.missing_kind[MA_TURN_PLACE]);
    /* only the entries fixed by reduction (win 1) and the non-canonical ones verify */
    uint64_t wins = 0;
    for (uint64_t e = 0; e < fx->parent_n; e++)
        wins += fx->parent_words[e] == 0xC001;
    assert_int_equal(res.verified, wins + (fx->parent_n - res.canonical));
    assert_int_equal(res.verified + res.missing_child, fx->parent_n);
    ma_check_result_free(&res);
    unmap_both(fx);
}

static void test_bad_successor_makes_entries_unverifiable_and_a_wrong_one_its_parents_wrong(void **state)
{
    struct fixture *fx = *state;
    /* One child entry badly encoded: parents reaching it are unverifiable, not guessed. */
    uint64_t ce = 0;
    for (;; ce++) {
        if (!fx->child_words[ce])
            continue;
        ma_board b = ma_open_index_unrank(fx->ix, 3, 3, ce);
        int mill = 0;
        for (int i = 0; i < 16; i++)
            mill |= (b.opp & std_lines[i]) == std_lines[i];
        if (!mill) /* reached from a parent by a placement that closes no mill */
            break;
    }
    /* Words no successor may hold (§5.3): a loss of odd depth, a win of even depth (the side to
     * move there cannot have moved last), a draw with a depth, outcome 00. */
    static const uint16_t bad_words[] = {0x4001, 0xC002, 0xC000, 0x8001, 0xBFFF, 0x0000, 0x0005};
    ma_check_result res;
    for (size_t i = 0; i < sizeof bad_words / sizeof *bad_words; i++) {
        fx->child_words[ce] = bad_words[i];
        map_both(fx);
        run_check(fx, &res, 1 + (int)(i & 1), 1);
        assert_int_equal(res.discrepancies, 0);
        assert_true(res.unverifiable > 0);
        assert_int_equal(res.verified + res.unverifiable, fx->parent_n);
        ma_check_result_free(&res);
        unmap_both(fx);
    }

    /* The same child entry as a loss in 0: its draw parents become wins in 1, discrepancies the
     * run then calls propagated from the child's own (verifier/run/run_sector.h; test_run.c). */
    fx->child_words[ce] = 0x4000;
    map_both(fx);
    run_check(fx, &res, 2, 1);
    assert_true(res.discrepancies > 0);
    assert_int_equal(res.by_class[MA_CHECK_WRONG_OUTCOME], res.discrepancies);
    ma_check_result_free(&res);
    unmap_both(fx);
    fx->child_words[ce] = 0x8000;
}

/* A successor index past the end of its child file can only come from an index bug; the entries
 * that reach one are unverifiable, never derived from some other word. The child here claims half
 * its entries, and its entry 0 holds a value, the word any clamped read would find. */
static void test_successor_past_the_child_end_is_unverifiable(void **state)
{
    struct fixture *fx = *state;
    uint16_t first = fx->child_words[0];
    fx->child_words[0] = 0x8000;
    map_both(fx);
    ma_open_file short_child = fx->child;
    short_child.header.entry_count = fx->child_n / 2;
    for (int threads = 1; threads <= 2; threads++) {
        ma_check_input in;
        memset(&in, 0, sizeof in);
        in.ix = fx->ix;
        in.file = &fx->parent;
        in.threads = threads;
        in.child[MA_TURN_PLACE] = &short_child;
        ma_check_result res;
        ma_error err;
        assert_int_equal(ma_check_sector(&res, &in, &err), MA_OK);
        assert_int_equal(res.checked, fx->parent_n);
        assert_int_equal(res.discrepancies, 0);
        assert_true(res.unverifiable > 0);
        assert_int_equal(res.verified + res.unverifiable, fx->parent_n);
        ma_check_result_free(&res);
    }
    unmap_both(fx);
    fx->child_words[0] = first;
}

static void test_full_mora_board_is_a_draw(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_full_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/mora_12_12_0_0.mdb", dir);
    ma_sector full = {12, 12, 0, 0};
    ma_open_index *ix;
    ma_error err;
    assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
    assert_int_equal(ma_check_prepare_index(ix, MA_VARIANT_MORA, full, &err), MA_OK);
    uint64_t n = ma_open_index_entry_count(ix, 12, 12);
    uint16_t *words = calloc(n, 2);
    uint64_t first = n;
    for (uint64_t e = 0; e < n; e++)
        if (ma_open_index_is_canonical(ma_open_index_unrank(ix, 12, 12, e))) {
            words[e] = 0x8000;
            if (first == n)
                first = e;
        }
    /* the blocked mover would have lost in 0 without the rule: that value is wrong here */
    words[first] = 0x4000;
    write_sector_of(path, MA_VARIANT_MORA, full, words, n);
    ma_open_file f;
    assert_int_equal(ma_open_file_map(&f, path, ix, 1, &err), MA_OK);
    ma_check_input in;
    memset(&in, 0, sizeof in);
    in.ix = ix;
    in.file = &f;
    in.threads = 2;
    ma_check_result res;
    assert_int_equal(ma_check_sector(&res, &in, &err), MA_OK);
    assert_int_equal(res.discrepancies, 1);
    assert_int_equal(res.items[0].entry, first);
    assert_int_equal(res.items[0].cls, MA_CHECK_WRONG_TERMINAL);
    assert_int_equal(res.items[0].derived_outcome, MA_OUTCOME_DRAW);
    assert_int_equal(res.verified, n - 1);
    ma_check_result_free(&res);
    ma_open_file_close(&f);
    unlink(path);
    rmdir(dir);
    free(words);
    ma_open_index_free(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_order_and_negation),
        cmocka_unit_test(test_full_mora_board_is_a_draw),
        cmocka_unit_test_setup_teardown(test_correct_sector_verifies_completely, setup, teardown),
        cmocka_unit_test_setup_teardown(test_each_fault_is_reported_at_its_entry_with_its_class,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_wrong_depth_is_its_own_class, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_child_is_never_verified, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_bad_successor_makes_entries_unverifiable_and_a_wrong_one_its_parents_wrong, setup, teardown),
        cmocka_unit_test_setup_teardown(test_successor_past_the_child_end_is_unverifiable, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
