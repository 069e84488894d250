/* Unit tests for solver/retro and the solver driver: value arithmetic, and whole small games
 * whose every stored value must equal the best negated successor value (the local rule of
 * docs/format.md §2). Local consistency everywhere implies the values are right by induction
 * on depth, so this checks the retrograde algorithm end to end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/retro.h"
#include "solver/solver.h"
#include "solver/svfile.h"
#include "solver/svindex.h"
#include "solver/svsector.h"

static void test_value_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(ma_retro_negate(0x4000), 0xC001); /* blocked successor: win in 1 */
    assert_int_equal(ma_retro_negate(0xC001), 0x4002);
    assert_int_equal(ma_retro_negate(0x8000), 0x8000);
    assert_true(ma_retro_better(0xC001, 0xC003));  /* faster win */
    assert_true(ma_retro_better(0x4010, 0x4002));  /* slower loss */
    assert_true(ma_retro_better(0x8000, 0x4010));  /* any draw beats any loss */
    assert_true(ma_retro_better(0xC3FF, 0x8000));
    assert_false(ma_retro_better(0x4002, 0x4002));
}

struct game {
    ma_svrules r;
    ma_svindex ix;
    int n;
    ma_sv_sector s[64];
    uint64_t entries[64];
    uint16_t *vals[64];
};

static const uint16_t *lookup(struct game *g, ma_sv_sector s)
{
    for (int i = 0; i < g->n; i++)
        if (ma_svrules_sector_eq(g->s[i], s))
            return g->vals[i];
    fail_msg("successor sector not in the game");
    return NULL;
}

struct best {
    struct game *g;
    uint16_t v;
    int any;
};

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct best *b = ctx;
    uint16_t mine = 0xC001;
    if (t->kind == MA_SVTURN_STORED) {
        uint16_t succ = lookup(b->g, t->sector)[ma_svindex_entry(&b->g->ix, t->w, t->b)];
        assert_int_not_equal(succ, 0);
        mine = ma_retro_negate(succ);
    }
    if (!b->any || ma_retro_better(mine, b->v))
        b->v = mine;
    b->any = 1;
}

/* Solves the whole k-stone game into a temporary directory and checks every entry. */
static void check_game(int variant, int k, const char *start_value_expected_kind)
{
    char dir[] = "/tmp/ma_solver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    ma_solver_opts o = {variant, MA_SVBUG_NONE, dir, NULL};
    ma_sv_sector start = {0, 0, k, k};
    ma_error err;
    int rc = ma_solver_solve(&o, &start, 1, 1, NULL, NULL, &err);
    if (rc != MA_OK)
        fail_msg("%s", err.msg);
    struct game *g = calloc(1, sizeof *g);
    assert_int_equal(ma_svrules_init(&g->r, variant, MA_SVBUG_NONE, NULL), MA_OK);
    assert_int_equal(ma_svindex_init(&g->ix, NULL), MA_OK);
    ma_svcomponent *c;
    int nc;
    assert_int_equal(ma_svsector_order(&g->r, &start, 1, &c, &nc, NULL), MA_OK);
    for (int i = 0; i < nc; i++)
        for (int j = 0; j < c[i].n; j++) {
            ma_sv_sector s = c[i].s[j];
            assert_int_equal(ma_svindex_prepare(&g->ix, s.w, NULL), MA_OK);
            uint8_t h[MA_SVFILE_HEADER_SIZE];
            char path[512];
            g->entries[g->n] = ma_svindex_entry_count(&g->ix, s.w, s.b);
            ma_svfile_header(h, &g->r, s, g->entries[g->n], "millaudit-solver", "x");
            assert_int_equal(ma_svfile_path(path, sizeof path, dir, variant, s, NULL), MA_OK);
            g->vals[g->n] = malloc(g->entries[g->n] * 2 + 2);
            assert_int_equal(ma_svfile_read(g->vals[g->n], path, h, NULL), MA_OK);
            g->s[g->n++] = s;
            unlink(path);
        }
    free(c);
    for (int i = 0; i < g->n; i++) {
        ma_sv_sector s = g->s[i];
        for (uint64_t e = 0; e < g->entries[i]; e++) {
            uint32_t w, b;
            assert_int_equal(ma_svindex_board(&g->ix, s.w, s.b, e, &w, &b, NULL), MA_OK);
            uint16_t v = g->vals[i][e];
            if (!ma_svindex_is_canonical(&g->ix, w, b)) {
                assert_int_equal(v, 0);
                continue;
            }
            struct best best = {g, 0, 0};
            ma_svrules_turns(&g->r, s, w, b, on_turn, &best);
            uint16_t want = best.any ? best.v : 0x4000;
            if (ma_svrules_full_board_draw(&g->r, s))
                want = 0x8000;
            if (v != want)
                fail_msg("sector %d_%d_%d_%d entry %llu: stored 0x%04x, successors give 0x%04x",
                         s.w, s.b, s.wf, s.bf, (unsigned long long)e, v, want);
        }
    }
    uint16_t sv = g->vals[g->n - 1][0];
    if (!strcmp(start_value_expected_kind, "decided"))
        assert_int_not_equal(sv & 0xC000, 0);
    for (int i = 0; i < g->n; i++)
        free(g->vals[i]);
    ma_svindex_free(&g->ix);
    free(g);
    assert_int_equal(rmdir(dir), 0); /* no temporary files left behind */
}

static void test_std_3_locally_consistent(void **state)
{
    (void)state;
    check_game(MA_SV_STD, 3, "decided");
}

static void test_lask_3_locally_consistent(void **state)
{
    (void)state;
    check_game(MA_SV_LASK, 3, "decided");
}

static void test_mora_3_locally_consistent(void **state)
{
    (void)state;
    check_game(MA_SV_MORA, 3, "decided");
}

static void test_missing_child_is_named(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_solver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    ma_solver_opts o = {MA_SV_STD, MA_SVBUG_NONE, dir, NULL};
    ma_sv_sector s = {3, 4, 0, 0};
    ma_error err;
    assert_int_equal(ma_solver_solve(&o, &s, 1, 0, NULL, NULL, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "std_3_3_0_0.mdb"));
    assert_int_equal(rmdir(dir), 0); /* nothing written */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_arithmetic),
        cmocka_unit_test(test_std_3_locally_consistent),
        cmocka_unit_test(test_lask_3_locally_consistent),
        cmocka_unit_test(test_mora_3_locally_consistent),
        cmocka_unit_test(test_missing_child_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
