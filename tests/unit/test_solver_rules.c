/* Unit tests for solver/svrules: mills, removal, flying, blocking, double mills, full board,
 * lask's place-or-move, immediate wins, an opponent without stones, and un-moves. This is the
 * production library: planted bugs are refused here and tested in test_solver_planted.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "solver/svrules.h"

/* Open point numbering, docs/format.md §1. */
enum { A1, D1, G1, B2, D2, F2, C3, D3, E3, A4, B4, C4, E4, F4, G4, C5, D5, E5, B6, D6, F6, A7, D7, G7 };
#define P(x) (1u << (x))

struct collect {
    int n, wins, internal;
    ma_sv_turn t[1024];
};

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct collect *c = ctx;
    if (t->kind == MA_SVTURN_WIN)
        c->wins++;
    if (t->internal)
        c->internal++;
    if (c->n < 1024)
        c->t[c->n++] = *t;
}

static ma_svrules rules(int variant, int bug)
{
    ma_svrules r;
    assert_int_equal(ma_svrules_init(&r, variant, bug, NULL), MA_OK);
    return r;
}

static int turns(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b, struct collect *c)
{
    memset(c, 0, sizeof *c);
    return ma_svrules_turns(r, s, w, b, on_turn, c);
}

static void test_mill_detection(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    assert_int_equal(ma_svrules_mills_at(&r, P(A1) | P(D1) | P(G1), D1), 1);
    assert_int_equal(ma_svrules_mills_at(&r, P(A1) | P(D1) | P(G4), D1), 0);
    assert_int_equal(ma_svrules_mills_at(&r, P(A1) | P(D1) | P(G1) | P(A4) | P(A7), A1), 2);
    /* a1-b2-c3 is a line only in mora */
    assert_int_equal(ma_svrules_mills_at(&r, P(A1) | P(B2) | P(C3), B2), 0);
    ma_svrules m = rules(MA_SV_MORA, MA_SVBUG_NONE);
    assert_int_equal(ma_svrules_mills_at(&m, P(A1) | P(B2) | P(C3), B2), 1);
    assert_true(m.adj[A1] & P(B2));
    assert_false(r.adj[A1] & P(B2));
}

static void test_removal_restriction(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    uint32_t mill = P(A1) | P(D1) | P(G1);
    assert_int_equal(ma_svrules_removable(&r, mill | P(B4)), P(B4));
    /* every opponent stone in a mill: any may go */
    assert_int_equal(ma_svrules_removable(&r, mill), mill);
    /* through turns: closing a mill against {mill + b4} offers exactly one removal */
    struct collect c;
    ma_sv_sector s = {4, 4, 0, 0};
    uint32_t w = P(A7) | P(D7) | P(G4) | P(C5), b = mill | P(B4);
    turns(&r, s, w, b, &c);
    int removals = 0;
    for (int i = 0; i < c.n; i++)
        if (c.t[i].sector.w == 3) { /* opponent lost a stone: stored sector (B-1, W, ...) */
            assert_int_equal(c.t[i].w, mill);
            removals++;
        }
    assert_int_equal(removals, 1); /* g4 -> g7 closes a7-d7-g7 */
}

static void test_flying(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    /* 3 stones fly anywhere: 3 stones x 18 free points, none closes a mill */
    ma_sv_sector s3 = {3, 3, 0, 0};
    assert_int_equal(turns(&r, s3, P(A1) | P(D2) | P(E5), P(G1) | P(C4) | P(B6), &c), 54);
    assert_int_equal(c.internal, 54);
    /* 4 stones slide only */
    ma_sv_sector s4 = {4, 3, 0, 0};
    int n4 = turns(&r, s4, P(A1) | P(D2) | P(E5) | P(G7), P(G1) | P(C4) | P(B6), &c);
    assert_int_equal(n4, 2 + 4 + 2 + 2);
}

static void test_blocked_side(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    ma_sv_sector s = {4, 4, 0, 0};
    uint32_t w = P(A1) | P(G1) | P(A7) | P(G7), b = P(D1) | P(A4) | P(G4) | P(D7);
    assert_int_equal(turns(&r, s, w, b, &c), 0);
    /* the opponent, to move in the swapped position, is not blocked */
    assert_true(turns(&r, s, b, w, &c) > 0);
}

static void test_double_mill_removes_one(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    ma_sv_sector s = {4, 4, 1, 1};
    uint32_t w = P(D1) | P(G1) | P(A4) | P(A7), b = P(B2) | P(D2) | P(F2) | P(E5);
    turns(&r, s, w, b, &c);
    int at_a1 = 0;
    for (int i = 0; i < c.n; i++)
        if (c.t[i].b == (w | P(A1))) {
            at_a1++;
            assert_int_equal(c.t[i].kind, MA_SVTURN_STORED);
            assert_int_equal(__builtin_popcount(c.t[i].w), 3);
            assert_int_equal(c.t[i].sector.w, 3); /* negate(5, 3, 0, 1) */
            assert_int_equal(c.t[i].sector.b, 5);
        }
    assert_int_equal(at_a1, 1); /* b2-d2-f2 is a mill: only e5 is removable */
}

static void test_production_has_no_planted_bugs(void **state)
{
    (void)state;
    assert_int_equal(ma_svrules_bugs_compiled(), 0);
    for (int bug = MA_SVBUG_NONE + 1; bug < MA_SVBUG_COUNT; bug++) {
        ma_svrules r;
        ma_error err;
        assert_int_equal(ma_svrules_init(&r, MA_SV_STD, bug, &err), MA_EINVAL);
        assert_non_null(strstr(err.msg, ma_svrules_bug_name(bug)));
        assert_non_null(strstr(err.msg, "millaudit-planted"));
    }
}

static void test_full_board_mora(void **state)
{
    (void)state;
    ma_svrules m = rules(MA_SV_MORA, MA_SVBUG_NONE), r = rules(MA_SV_STD, MA_SVBUG_NONE);
    ma_sv_sector full = {12, 12, 0, 0}, other = {12, 11, 0, 0};
    assert_true(ma_svrules_full_board_draw(&m, full));
    assert_false(ma_svrules_full_board_draw(&m, other));
    assert_false(ma_svrules_full_board_draw(&r, full));
    assert_true(ma_svrules_sector_valid(&m, full));
    assert_false(ma_svrules_sector_valid(&r, full));
    struct collect c;
    assert_int_equal(turns(&m, full, 0x000FFFu, 0xFFF000u, &c), 0);
}

static void test_lask_place_or_move(void **state)
{
    (void)state;
    ma_svrules l = rules(MA_SV_LASK, MA_SVBUG_NONE), r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    ma_sv_sector s = {3, 3, 2, 2};
    uint32_t w = P(A1) | P(D2) | P(E5), b = P(G1) | P(C4) | P(B6);
    /* std must place: 18 placements */
    assert_int_equal(turns(&r, s, w, b, &c), 18);
    assert_int_equal(c.internal, 0);
    /* lask may also slide (W + WF = 5 > 3, no flying): a1 -> d1, a4; d2 -> d1, b2, f2, d3;
     * e5 -> d5, e4 */
    assert_int_equal(turns(&l, s, w, b, &c), 18 + 8);
    assert_int_equal(c.internal, 8);
    /* lask flies with board + hand <= 3 */
    ma_sv_sector s2 = {2, 3, 1, 2};
    assert_int_equal(turns(&l, s2, P(A1) | P(D2), b, &c), 19 + 2 * 19);
}

static void test_immediate_win_at_three(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    ma_sv_sector s = {3, 3, 0, 0};
    /* any stone flies to g1 (after a1 d1 already held) and closes a1-d1-g1 */
    turns(&r, s, P(A1) | P(D1) | P(E5), P(G4) | P(C4) | P(B6), &c);
    assert_int_equal(c.wins, 1);
    /* with 4 opponent stones the same mill removes one and play goes on */
    ma_sv_sector s4 = {3, 4, 0, 0};
    turns(&r, s4, P(A1) | P(D1) | P(E5), P(G4) | P(C4) | P(B6) | P(A7), &c);
    assert_int_equal(c.wins, 0);
}

static void test_opponent_without_stones(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE);
    struct collect c;
    ma_sv_sector s = {2, 0, 1, 3};
    /* placing on g1 would close a mill with nothing to remove: that turn does not exist */
    assert_int_equal(turns(&r, s, P(A1) | P(D1), 0, &c), 21);
    for (int i = 0; i < c.n; i++)
        assert_int_not_equal(c.t[i].b, P(A1) | P(D1) | P(G1));
}

struct back {
    int n;
    uint32_t w[1024], b[1024];
};

static void on_back(void *ctx, uint32_t w, uint32_t b)
{
    struct back *k = ctx;
    if (k->n < 1024) {
        k->w[k->n] = w;
        k->b[k->n++] = b;
    }
}

/* Every un-move must be undone by a forward internal turn, and every internal turn un-done. */
static void check_unmoves(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b)
{
    struct back k = {0};
    ma_svrules_unmoves(r, s, w, b, on_back, &k);
    ma_sv_sector p = ma_svrules_negate(s);
    struct collect c;
    for (int i = 0; i < k.n; i++) {
        turns(r, p, k.w[i], k.b[i], &c);
        int found = 0;
        for (int j = 0; j < c.n; j++)
            found |= c.t[j].internal && c.t[j].w == w && c.t[j].b == b &&
                     ma_svrules_sector_eq(c.t[j].sector, s);
        assert_true(found);
    }
    /* and conversely: from each predecessor board with an internal turn into (w, b) */
    assert_true(k.n > 0);
}

/* Conversely, every internal forward turn from random boards is found again as an un-move. */
static void check_forward_found_backward(const ma_svrules *r, ma_sv_sector p, uint64_t seed)
{
    for (int iter = 0; iter < 300; iter++) {
        uint32_t w = 0, b = 0;
        while (__builtin_popcount(w) < p.w || __builtin_popcount(b) < p.b) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t bit = 1u << ((seed >> 33) % 24);
            if ((w | b) & bit)
                continue;
            if (__builtin_popcount(w) < p.w)
                w |= bit;
            else
                b |= bit;
        }
        struct collect c;
        turns(r, p, w, b, &c);
        for (int i = 0; i < c.n; i++) {
            if (!c.t[i].internal)
                continue;
            struct back k = {0};
            ma_svrules_unmoves(r, c.t[i].sector, c.t[i].w, c.t[i].b, on_back, &k);
            int found = 0;
            for (int j = 0; j < k.n; j++)
                found |= k.w[j] == w && k.b[j] == b;
            assert_true(found);
        }
    }
}

static void test_every_move_can_be_unmoved(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE), l = rules(MA_SV_LASK, MA_SVBUG_NONE);
    ma_svrules m = rules(MA_SV_MORA, MA_SVBUG_NONE);
    ma_sv_sector s[] = {{3, 3, 0, 0}, {4, 3, 0, 0}, {6, 5, 0, 0}, {9, 9, 0, 0}};
    for (int i = 0; i < 4; i++) {
        check_forward_found_backward(&r, s[i], 1 + (uint64_t)i);
        check_forward_found_backward(&m, s[i], 11 + (uint64_t)i);
    }
    ma_sv_sector ls[] = {{2, 3, 1, 1}, {4, 5, 2, 1}, {7, 6, 1, 2}};
    for (int i = 0; i < 3; i++)
        check_forward_found_backward(&l, ls[i], 31 + (uint64_t)i);
}

static void test_unmoves_round_trip(void **state)
{
    (void)state;
    ma_svrules r = rules(MA_SV_STD, MA_SVBUG_NONE), l = rules(MA_SV_LASK, MA_SVBUG_NONE);
    ma_svrules m = rules(MA_SV_MORA, MA_SVBUG_NONE);
    ma_sv_sector s43 = {4, 3, 0, 0}, s33 = {3, 3, 0, 0}, ls = {3, 4, 1, 2};
    check_unmoves(&r, s43, P(A1) | P(D2) | P(E5) | P(G7), P(G1) | P(C4) | P(B6));
    check_unmoves(&r, s33, P(A1) | P(D2) | P(E5), P(G1) | P(C4) | P(B6));
    check_unmoves(&m, s43, P(A1) | P(D2) | P(E5) | P(G7), P(G1) | P(C4) | P(B6));
    check_unmoves(&l, ls, P(A1) | P(D2) | P(E5), P(G1) | P(C4) | P(B6) | P(D7));
    /* a stone standing in its own mill cannot just have arrived there without a removal */
    struct back k = {0};
    ma_svrules_unmoves(&r, s43, P(A4) | P(B4) | P(E5) | P(G7), P(A1) | P(D1) | P(G1), on_back, &k);
    assert_int_equal(k.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mill_detection),
        cmocka_unit_test(test_removal_restriction),
        cmocka_unit_test(test_flying),
        cmocka_unit_test(test_blocked_side),
        cmocka_unit_test(test_double_mill_removes_one),
        cmocka_unit_test(test_production_has_no_planted_bugs),
        cmocka_unit_test(test_full_board_mora),
        cmocka_unit_test(test_lask_place_or_move),
        cmocka_unit_test(test_immediate_win_at_three),
        cmocka_unit_test(test_opponent_without_stones),
        cmocka_unit_test(test_unmoves_round_trip),
        cmocka_unit_test(test_every_move_can_be_unmoved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
