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

static void solve_game(int variant, int k, int threads, const char *dir)
{
    ma_solver_opts o = {0};
    o.variant = variant;
    o.bug = MA_SVBUG_NONE;
    o.out_dir = dir;
    o.quiet = 1;
    o.threads = threads;
    ma_sv_sector start = {0, 0, k, k};
    ma_error err;
    int rc = ma_solver_solve(&o, &start, 1, 1, NULL, NULL, &err);
    if (rc != MA_OK)
        fail_msg("%s", err.msg);
}

/* The whole file, or fails. */
static uint8_t *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)*len + 1);
    assert_int_equal(fread(buf, 1, (size_t)*len, f), (size_t)*len);
    fclose(f);
    return buf;
}

/* Solves the whole k-stone game with `threads` threads and again with `other` threads, requires
 * byte-identical files, and checks every entry; returns the start value. */
static uint16_t check_game(int variant, int k, int threads, int other)
{
    char dir[] = "/tmp/ma_solver_test_XXXXXX", dir2[] = "/tmp/ma_solver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(dir2));
    ma_sv_sector start = {0, 0, k, k};
    solve_game(variant, k, threads, dir);
    solve_game(variant, k, other, dir2);
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
            assert_int_equal(ma_svfile_read(g->vals[g->n], path, h, 1, NULL), MA_OK);
            g->s[g->n++] = s;
            char path2[512];
            assert_int_equal(ma_svfile_path(path2, sizeof path2, dir2, variant, s, NULL), MA_OK);
            long n1, n2;
            uint8_t *a = slurp(path, &n1), *b = slurp(path2, &n2);
            assert_int_equal(n1, n2);
            /* the producer version (64..79) is the same build; everything is compared */
            if (memcmp(a, b, (size_t)n1))
                fail_msg("%s differs between %d and %d threads", path, threads, other);
            free(a);
            free(b);
            unlink(path);
            unlink(path2);
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
    for (int i = 0; i < g->n; i++)
        free(g->vals[i]);
    ma_svindex_free(&g->ix);
    free(g);
    assert_int_equal(rmdir(dir), 0); /* no temporary files left behind */
    assert_int_equal(rmdir(dir2), 0);
    return sv;
}

static void test_std_3_locally_consistent(void **state)
{
    (void)state;
    /* the 3-stone standard game is a first-player win in 23 plies (known, docs/solver.md) */
    assert_int_equal(check_game(MA_SV_STD, 3, 1, 2), 0xC017);
}

static void test_lask_3_locally_consistent(void **state)
{
    (void)state;
    uint16_t v = check_game(MA_SV_LASK, 3, 3, 1);
    assert_true((v & 0xC000) == 0xC000 || (v & 0xC000) == 0x4000);
}

static void test_mora_3_locally_consistent(void **state)
{
    (void)state;
    uint16_t v = check_game(MA_SV_MORA, 3, 2, 1);
    assert_true((v & 0xC000) == 0xC000 || (v & 0xC000) == 0x4000);
}

static void test_missing_child_is_named(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_solver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    ma_solver_opts o = {0};
    o.variant = MA_SV_STD;
    o.out_dir = dir;
    o.quiet = 1;
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
