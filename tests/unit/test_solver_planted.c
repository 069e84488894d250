/* Unit tests for the planted-bug hooks of solver/svrules. This executable links the test-only
 * library ma_solver_planted (compiled with MA_PLANT_BUGS, tests/unit/CMakeLists.txt); the
 * production library refuses every planted bug (test_solver_rules.c). Each bug must change the
 * rule it names and nothing else visible in the positions below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "solver/svrules.h"
#include "solver/svsector.h"

enum { A1, D1, G1, B2, D2, F2, C3, D3, E3, A4, B4, C4, E4, F4, G4, C5, D5, E5, B6, D6, F6, A7, D7, G7 };
#define P(x) (1u << (x))

struct collect {
    int n;
    ma_sv_turn t[1024];
};

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct collect *c = ctx;
    if (c->n < 1024)
        c->t[c->n++] = *t;
}

static ma_svrules rules(int bug)
{
    ma_svrules r;
    assert_int_equal(ma_svrules_init(&r, MA_SV_STD, bug, NULL), MA_OK);
    return r;
}

static int turns(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b, struct collect *c)
{
    memset(c, 0, sizeof *c);
    return ma_svrules_turns(r, s, w, b, on_turn, c);
}

static void test_hooks_are_compiled(void **state)
{
    (void)state;
    assert_int_equal(ma_svrules_bugs_compiled(), 1);
    for (int bug = 0; bug < MA_SVBUG_COUNT; bug++)
        assert_int_equal(ma_svrules_bug_parse(ma_svrules_bug_name(bug)), bug == 0 ? -1 : bug);
}

static void test_removal_from_mill(void **state)
{
    (void)state;
    uint32_t mill = P(A1) | P(D1) | P(G1);
    ma_svrules good = rules(MA_SVBUG_NONE), bug = rules(MA_SVBUG_REMOVAL_FROM_MILL);
    assert_int_equal(ma_svrules_removable(&good, mill | P(B4)), P(B4));
    assert_int_equal(ma_svrules_removable(&bug, mill | P(B4)), mill | P(B4));
    assert_int_equal(ma_svrules_removable(&bug, mill), mill);
}

static void test_fly_early(void **state)
{
    (void)state;
    ma_svrules good = rules(MA_SVBUG_NONE), bug = rules(MA_SVBUG_FLY_EARLY);
    struct collect c;
    ma_sv_sector s4 = {4, 3, 0, 0}, s5 = {5, 3, 0, 0};
    uint32_t w = P(A1) | P(D2) | P(E5) | P(G7), b = P(G1) | P(C4) | P(B6);
    assert_int_equal(turns(&good, s4, w, b, &c), 2 + 4 + 2 + 2);
    assert_int_equal(turns(&bug, s4, w, b, &c), 4 * 17);
    /* five stones still slide */
    assert_int_equal(turns(&bug, s5, w | P(D7), b, &c), turns(&good, s5, w | P(D7), b, &c));
    assert_int_equal(bug.fly_limit, 4);
    assert_int_equal(good.fly_limit, 3);
}

static void test_double_removal(void **state)
{
    (void)state;
    ma_svrules good = rules(MA_SVBUG_NONE), bug = rules(MA_SVBUG_DOUBLE_REMOVAL);
    struct collect c;
    ma_sv_sector s = {4, 4, 1, 1};
    uint32_t w = P(D1) | P(G1) | P(A4) | P(A7), b = P(B2) | P(D2) | P(F2) | P(E5);
    turns(&good, s, w, b, &c);
    for (int i = 0; i < c.n; i++)
        if (c.t[i].b == (w | P(A1)))
            assert_int_equal(__builtin_popcount(c.t[i].w), 3);
    turns(&bug, s, w, b, &c);
    int at_a1 = 0;
    for (int i = 0; i < c.n; i++)
        if (c.t[i].b == (w | P(A1))) {
            assert_int_equal(__builtin_popcount(c.t[i].w), 2);
            at_a1++;
        }
    assert_true(at_a1 > 0);
    /* the sectors two removals reach become children */
    ma_sv_sector kids[8], s55 = {5, 5, 0, 0};
    int ng = ma_svsector_children(&good, s55, kids, NULL);
    int nb = ma_svsector_children(&bug, s55, kids, NULL);
    assert_int_equal(nb, ng + 1);
}

static void test_blocked_not_lost_is_carried(void **state)
{
    (void)state;
    /* the rules only record it; retro scores a blocked side (tests/integration/test_solve.py) */
    ma_svrules bug = rules(MA_SVBUG_BLOCKED_NOT_LOST);
    assert_int_equal(bug.bug, MA_SVBUG_BLOCKED_NOT_LOST);
    assert_int_equal(bug.fly_limit, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_are_compiled),
        cmocka_unit_test(test_removal_from_mill),
        cmocka_unit_test(test_fly_early),
        cmocka_unit_test(test_double_removal),
        cmocka_unit_test(test_blocked_not_lost_is_carried),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
