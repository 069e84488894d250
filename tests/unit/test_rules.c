/* Unit tests for verifier/check/rules: the checker's move generator, on hand-checked positions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "indexer/position.h"
#include "verifier/check/rules.h"

static ma_board board(const char *text)
{
    ma_board b;
    ma_error err;
    if (ma_board_parse(text, &b, &err) != MA_OK)
        fail_msg("bad board '%s': %s", text, err.msg);
    return b;
}

static ma_sector sec(int w, int b, int wf, int bf)
{
    ma_sector s = {(uint8_t)w, (uint8_t)b, (uint8_t)wf, (uint8_t)bf};
    return s;
}

static ma_vturns *turns_of(ma_variant v, ma_sector s, const char *pos, ma_vrules *r)
{
    ma_error err;
    assert_int_equal(ma_vrules_init(r, v, s, &err), MA_OK);
    ma_vturns *t = malloc(sizeof *t);
    assert_non_null(t);
    assert_int_equal(ma_vrules_generate(r, board(pos), t), 0);
    return t;
}

static int count_kind(const ma_vturns *t, int kind)
{
    int n = 0;
    for (int i = 0; i < t->n; i++)
        n += t->kind[i] == kind;
    return n;
}

/* Is the colour-swapped board `text` (mover/opponent of the successor) among the successors? */
static int has_successor(const ma_vturns *t, const char *text)
{
    ma_board b = board(text);
    for (int i = 0; i < t->n; i++)
        if (t->succ[i].mover == b.mover && t->succ[i].opp == b.opp)
            return 1;
    return 0;
}

static void test_boards_are_symmetric_graphs_with_the_right_edge_counts(void **state)
{
    (void)state;
    ma_vrules r;
    ma_error err;
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++) {
        assert_int_equal(ma_vrules_init(&r, (ma_variant)v, sec(3, 3, 0, 0), &err), MA_OK);
        int degree = 0;
        for (int p = 0; p < MA_POINTS; p++) {
            assert_false(r.adj[p] >> p & 1);
            for (int q = 0; q < MA_POINTS; q++)
                assert_int_equal(r.adj[p] >> q & 1, r.adj[q] >> p & 1);
            degree += __builtin_popcount(r.adj[p]);
        }
        /* 32 edges on the standard board, 8 more diagonal edges in mora. */
        assert_int_equal(degree, v == MA_VARIANT_MORA ? 80 : 64);
        assert_int_equal(r.n_lines, v == MA_VARIANT_MORA ? 20 : 16);
        for (int i = 0; i < r.n_lines; i++) {
            assert_int_equal(__builtin_popcount(r.lines[i]), 3);
            /* every mill line is a path along the board: its middle point touches both ends */
            int inner = 0;
            for (int p = 0; p < MA_POINTS; p++)
                if ((r.lines[i] >> p & 1) && __builtin_popcount(r.adj[p] & r.lines[i]) == 2)
                    inner++;
            assert_int_equal(inner, 1);
        }
    }
    /* a1's neighbours: d1, a4; in mora also b2. */
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(3, 3, 0, 0), &err), MA_OK);
    assert_int_equal(r.adj[ma_point_from_name("a1")],
                     (1u << ma_point_from_name("d1")) | (1u << ma_point_from_name("a4")));
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_MORA, sec(3, 3, 0, 0), &err), MA_OK);
    assert_true(r.adj[ma_point_from_name("a1")] >> ma_point_from_name("b2") & 1);
}

static void test_init_rejects_invalid_sectors(void **state)
{
    (void)state;
    ma_vrules r;
    ma_error err;
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(2, 3, 0, 0), &err), MA_EINVAL);
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(3, 3, 7, 0), &err), MA_EINVAL);
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(3, 3, 0, 0), &err), MA_OK);
    assert_int_equal(ma_vrules_init(&r, (ma_variant)9, sec(3, 3, 0, 0), &err), MA_EINVAL);
}

static void test_mill_detection(void **state)
{
    (void)state;
    ma_vrules r;
    ma_error err;
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(3, 3, 0, 0), &err), MA_OK);
    uint32_t m = board("a1,d1,g1/-").mover;
    assert_true(ma_vrules_closes_mill(&r, m, ma_point_from_name("g1")));
    assert_true(ma_vrules_closes_mill(&r, m, ma_point_from_name("a1")));
    assert_false(ma_vrules_closes_mill(&r, board("a1,d1,a4/-").mover, ma_point_from_name("a4")));
    /* the diagonal a1-b2-c3 is a mill only in mora */
    uint32_t diag = board("a1,b2,c3/-").mover;
    assert_false(ma_vrules_closes_mill(&r, diag, ma_point_from_name("b2")));
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_MORA, sec(3, 3, 0, 0), &err), MA_OK);
    assert_true(ma_vrules_closes_mill(&r, diag, ma_point_from_name("b2")));
}

static void test_stones_in_mills_are_protected_unless_all_are(void **state)
{
    (void)state;
    ma_vrules r;
    ma_error err;
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, sec(4, 4, 0, 0), &err), MA_OK);
    assert_int_equal(ma_vrules_removable(&r, board("-/a7,d7,g7,b4").opp), board("-/b4").opp);
    assert_int_equal(ma_vrules_removable(&r, board("-/a7,d7,g7").opp), board("-/a7,d7,g7").opp);
    /* two mills sharing a7, plus a free stone */
    assert_int_equal(ma_vrules_removable(&r, board("-/a7,d7,g7,a4,a1,c3").opp), board("-/c3").opp);
    assert_int_equal(ma_vrules_removable(&r, 0), 0);
}

static void test_placing_with_a_mill_lists_each_removal(void **state)
{
    (void)state;
    ma_vrules r;
    /* std 2_2_7_7: mover a1,d1; opponent b2 and a7,d7 (no mill). 20 free points; g1 closes the
     * mill a1-d1-g1 and removes one of three stones. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(2, 3, 7, 6), "a1,d1/b2,a7,d7", &r);
    assert_int_equal(t->immediate_wins, 0);
    assert_int_equal(count_kind(t, MA_TURN_PLACE), 18);
    assert_int_equal(count_kind(t, MA_TURN_PLACE_MILL), 3);
    assert_int_equal(t->n, 21);
    assert_true(has_successor(t, "a7,d7/a1,d1,g1"));   /* b2 removed, colours swapped */
    assert_true(has_successor(t, "b2,d7/a1,d1,g1"));   /* a7 removed */
    assert_true(has_successor(t, "b2,a7,d7/a1,d1,a4")); /* a plain placement */
    /* successor sectors, negated: (3,3,6,6) -> (3,3,6,6); (3,2,6,6) -> (2,3,6,6) */
    assert_true(ma_sector_equal(r.succ[MA_TURN_PLACE], sec(3, 3, 6, 6)));
    assert_true(ma_sector_equal(r.succ[MA_TURN_PLACE_MILL], sec(2, 3, 6, 6)));
    assert_false(r.succ_exists[MA_TURN_MOVE]);
    free(t);
}

static void test_double_mill_removes_one_stone(void **state)
{
    (void)state;
    ma_vrules r;
    /* Placing a1 closes a1-d1-g1 and a1-a4-a7 at once: still one removal, so 2 successors (one per
     * opponent stone), not 4. 18 free points, only a1 closes a mill. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(4, 2, 5, 7), "d1,g1,a4,a7/b2,d2", &r);
    assert_int_equal(count_kind(t, MA_TURN_PLACE_MILL), 2);
    assert_int_equal(count_kind(t, MA_TURN_PLACE), 17);
    assert_true(has_successor(t, "d2/a1,d1,g1,a4,a7"));
    assert_true(has_successor(t, "b2/a1,d1,g1,a4,a7"));
    free(t);
}

static void test_no_mill_turn_when_the_opponent_has_no_board_stone(void **state)
{
    (void)state;
    ma_vrules r;
    /* std 2_0_7_9: g1 would close a mill with nothing to remove: that turn does not exist. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(2, 0, 7, 9), "a1,d1/-", &r);
    assert_int_equal(t->n, 21);
    assert_int_equal(t->immediate_wins, 0);
    assert_int_equal(count_kind(t, MA_TURN_PLACE_MILL), 0);
    assert_false(has_successor(t, "-/a1,d1,g1"));
    free(t);
}

static void test_flying_with_three_stones_only(void **state)
{
    (void)state;
    ma_vrules r;
    /* Three mover stones sharing no line: no move can close a mill; each flies to 17 free points. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(3, 4, 0, 0), "a1,g7,d5/b2,f2,c4,e4", &r);
    assert_true(r.flying);
    assert_int_equal(t->n, 51);
    assert_int_equal(count_kind(t, MA_TURN_MOVE), 51);
    assert_true(has_successor(t, "b2,f2,c4,e4/g7,d5,c3"));
    free(t);
    /* With four stones the same side only slides: a1: d1,a4; g7: d7,g4; d5: c5,e5,d6; b6: a..
     * b6 neighbours b4, d6 -> d6 already counted for d5 but is a different move. */
    t = turns_of(MA_VARIANT_STD, sec(4, 4, 0, 0), "a1,g7,d5,b6/b2,f2,c4,e4", &r);
    assert_false(r.flying);
    assert_int_equal(t->n, 2 + 2 + 3 + 2);
    assert_false(has_successor(t, "b2,f2,c4,e4/g7,d5,b6,c3"));
    free(t);
}

static void test_blocked_side_has_no_turn(void **state)
{
    (void)state;
    ma_vrules r;
    /* Corners a1,g1,a7,g7 hemmed in by d1,a4,g4,d7. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(4, 4, 0, 0), "a1,g1,a7,g7/d1,a4,g4,d7", &r);
    assert_int_equal(t->n, 0);
    assert_int_equal(t->immediate_wins, 0);
    free(t);
    /* In mora the diagonals free them: each corner slides to its diagonal neighbour. */
    t = turns_of(MA_VARIANT_MORA, sec(4, 4, 0, 0), "a1,g1,a7,g7/d1,a4,g4,d7", &r);
    assert_int_equal(t->n, 4);
    assert_true(has_successor(t, "d1,a4,g4,d7/g1,a7,g7,b2"));
    free(t);
    /* Three stones are never blocked (they fly). */
    t = turns_of(MA_VARIANT_STD, sec(3, 4, 0, 0), "a1,g1,a7/d1,a4,g4,d7", &r);
    assert_int_equal(t->n, 3 * 17);
    free(t);
}

static void test_immediate_win_by_reduction(void **state)
{
    (void)state;
    ma_vrules r;
    /* std 3_3_0_0: b4 flies to g1 closing a1-d1-g1; the opponent drops to 2 stones: a win, not a
     * successor. 3 stones x 18 free points = 54 turns, one of them the win. */
    ma_vturns *t = turns_of(MA_VARIANT_STD, sec(3, 3, 0, 0), "a1,d1,b4/c3,e3,c5", &r);
    assert_true(r.mill_wins);
    assert_int_equal(t->immediate_wins, 1);
    assert_int_equal(t->n, 53);
    free(t);
    /* With four opponent stones the same turn removes one of them: 4 successors in 3_3_0_0. */
    t = turns_of(MA_VARIANT_STD, sec(3, 4, 0, 0), "a1,d1,b4/c3,e3,c5,e5", &r);
    assert_false(r.mill_wins);
    assert_int_equal(t->immediate_wins, 0);
    assert_int_equal(count_kind(t, MA_TURN_MOVE_MILL), 4);
    assert_true(ma_sector_equal(r.succ[MA_TURN_MOVE_MILL], sec(3, 3, 0, 0)));
    assert_true(has_successor(t, "e3,c5,e5/a1,d1,g1"));
    free(t);
    /* Opponent with stones in hand: 1 on board + 2 in hand = 3, a mill still wins at once. */
    t = turns_of(MA_VARIANT_STD, sec(2, 1, 7, 2), "a1,d1/b2", &r);
    assert_int_equal(t->immediate_wins, 1);
    assert_int_equal(t->n, 20);
    free(t);
}

static void test_lasker_mixes_placing_and_moving(void **state)
{
    (void)state;
    ma_vrules r;
    /* lask 3_3_2_7: place on 18 free points or slide (a1: d1,a4; g7: d7,g4; d5: c5,e5,d6). */
    ma_vturns *t = turns_of(MA_VARIANT_LASK, sec(3, 3, 2, 7), "a1,g7,d5/b2,f2,c4", &r);
    assert_int_equal(count_kind(t, MA_TURN_PLACE), 18);
    assert_int_equal(count_kind(t, MA_TURN_MOVE), 7);
    assert_true(ma_sector_equal(r.succ[MA_TURN_PLACE], sec(3, 4, 7, 1)));
    assert_true(ma_sector_equal(r.succ[MA_TURN_MOVE], sec(3, 3, 7, 2)));
    free(t);
    /* lask flies with board + hand <= 3: 2 on board + 1 in hand. */
    t = turns_of(MA_VARIANT_LASK, sec(2, 3, 1, 7), "a1,g7/b2,f2,c4", &r);
    assert_true(r.flying);
    assert_int_equal(count_kind(t, MA_TURN_PLACE), 19);
    assert_int_equal(count_kind(t, MA_TURN_MOVE), 2 * 19);
    free(t);
    /* the same position in std must place (stones in hand) and never moves */
    t = turns_of(MA_VARIANT_STD, sec(3, 3, 2, 6), "a1,g7,d5/b2,f2,c4", &r);
    assert_int_equal(t->n, 18);
    assert_int_equal(count_kind(t, MA_TURN_MOVE), 0);
    free(t);
}

static void test_mora_diagonal_mill_and_full_board(void **state)
{
    (void)state;
    ma_vrules r;
    /* d2 slides to b2 closing the diagonal a1-b2-c3 (mora only). Opponent 4 stones, none in a mill. */
    ma_vturns *t = turns_of(MA_VARIANT_MORA, sec(4, 4, 0, 0), "a1,c3,d2,g7/a7,d7,f4,e5", &r);
    assert_int_equal(t->immediate_wins, 0);
    assert_true(has_successor(t, "d7,f4,e5/a1,b2,c3,g7"));
    free(t);
    t = turns_of(MA_VARIANT_STD, sec(4, 4, 0, 0), "a1,c3,d2,g7/a7,d7,f4,e5", &r);
    assert_false(has_successor(t, "d7,f4,e5/a1,b2,c3,g7"));
    assert_true(has_successor(t, "a7,d7,f4,e5/a1,b2,c3,g7"));
    free(t);
    ma_error err;
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_MORA, sec(12, 12, 0, 0), &err), MA_OK);
    assert_true(r.full_board_draw);
    ma_board full = {0x555555u, 0xAAAAAAu};
    ma_vturns *tt = malloc(sizeof *tt);
    assert_int_equal(ma_vrules_generate(&r, full, tt), 0);
    assert_int_equal(tt->n, 0);
    assert_int_equal(tt->immediate_wins, 0);
    free(tt);
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_MORA, sec(11, 12, 0, 0), &err), MA_OK);
    assert_false(r.full_board_draw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boards_are_symmetric_graphs_with_the_right_edge_counts),
        cmocka_unit_test(test_init_rejects_invalid_sectors),
        cmocka_unit_test(test_mill_detection),
        cmocka_unit_test(test_stones_in_mills_are_protected_unless_all_are),
        cmocka_unit_test(test_placing_with_a_mill_lists_each_removal),
        cmocka_unit_test(test_double_mill_removes_one_stone),
        cmocka_unit_test(test_no_mill_turn_when_the_opponent_has_no_board_stone),
        cmocka_unit_test(test_flying_with_three_stones_only),
        cmocka_unit_test(test_blocked_side_has_no_turn),
        cmocka_unit_test(test_immediate_win_by_reduction),
        cmocka_unit_test(test_lasker_mixes_placing_and_moving),
        cmocka_unit_test(test_mora_diagonal_mill_and_full_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
