/* verifier/check/fused_turns: the generator both checkers walk with gives, as canonical indices, exactly
 * the turns of ma_vrules_generate ranked by the index's reference rank (the same multiset of
 * kinds and indices, and the immediate win), over the open index and over Malom's (relabelled
 * rules, Malom-numbered masks, as the Malom checker runs it); for every variant, for sectors that
 * place, move, fly, mix placing with moving and win by a mill, and for opponent masks several
 * symmetry ops map onto their representative (a mover map of more than one op). As in the
 * checkers' walk, one group serves every mover beside its mask and is started afresh for the next
 * mask, so removal maps kept from an earlier mask would rank removals wrongly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/fused_turns.h"
#include "verifier/check/rules.h"
#include "verifier/check/turn_masks.h"
#include "indexer/malom_index.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "support.h"
#include "turn_sectors.h"

/* The two indexes under test, with what the generator needs of each. */
struct scheme {
    const char *name;
    int malom; /* masks and rules in Malom's numbering */
    const void *ix;
    ma_fused_fill_map fill_map;
    /* the reference: the canonical index of an open-numbered board */
    uint64_t (*rank)(const void *ix, ma_board open_board);
};

static int fill_open(const void *ix, uint32_t mover, ma_mover_map *mm)
{
    return ma_open_index_mover_map(ix, mover, mm);
}

static int fill_malom(const void *ix, uint32_t mover, ma_mover_map *mm)
{
    return ma_malom_index_mover_map(ix, mover, mm);
}

static uint64_t rank_open(const void *ix, ma_board b)
{
    return ma_open_index_rank(ix, b, NULL);
}

static uint64_t rank_malom(const void *ix, ma_board b)
{
    return ma_malom_index_rank(ix, b, NULL);
}

static uint32_t to_scheme(const struct scheme *sc, uint32_t open_mask)
{
    return sc->malom ? ma_malom_mask_from_open(open_mask) : open_mask;
}

/* r in the scheme's numbering (the Malom checker relabels its rules so). */
static void rules_to_scheme(const struct scheme *sc, const ma_vrules *open, ma_vrules *r)
{
    *r = *open;
    if (!sc->malom)
        return;
    for (int p = 0; p < MA_POINTS; p++) {
        int q = __builtin_ctz(ma_malom_mask_from_open(1u << p));
        r->adj[q] = ma_malom_mask_from_open(open->adj[p]);
        r->n_partners[q] = open->n_partners[p];
        for (int i = 0; i < 3; i++)
            r->partners[q][i] = i < open->n_partners[p]
                                    ? ma_malom_mask_from_open(open->partners[p][i])
                                    : UINT32_MAX;
    }
    for (int i = 0; i < open->n_lines; i++)
        r->lines[i] = ma_malom_mask_from_open(open->lines[i]);
}

struct turn {
    uint8_t kind;
    uint64_t index;
};

static int cmp_turn(const void *a, const void *b)
{
    const struct turn *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* An opponent mask of k points outside m whose mover map has more than one op, or 0 when none
 * turns up among a few thousand tries (sectors with few such masks). */
static uint32_t symmetric_mask(const struct scheme *sc, uint64_t *x, int k, uint32_t m,
                               ma_mover_map *mm)
{
    for (int i = 0; i < 4000; i++) {
        uint32_t o = ma_test_random_points(x, k, m);
        if (sc->fill_map(sc->ix, o, mm) > 1)
            return o;
    }
    return 0;
}

struct tally {
    int compared, symmetric, wins;
};

static void check_sector(const struct scheme *sc, ma_variant v, ma_sector s, uint64_t *x,
                         struct tally *tl)
{
    ma_vrules open_rules, r;
    ma_error err;
    if (ma_vrules_init(&open_rules, v, s, &err) != MA_OK)
        return; /* not a sector of this variant */
    rules_to_scheme(sc, &open_rules, &r);
    enum { MOVERS = 16, OPPS = 10 };
    uint32_t open_m[MOVERS], m[MOVERS];
    for (int i = 0; i < MOVERS; i++) {
        open_m[i] = ma_test_random_points(x, s.w, 0);
        m[i] = to_scheme(sc, open_m[i]);
    }
    ma_turn_masks tm;
    assert_int_equal(ma_turn_masks_build(&tm, &r, m, MOVERS, s.w), 0);
    ma_fused_sector fs = {.rules = &r, .w = s.w, .ix = sc->ix, .fill_map = sc->fill_map};
    ma_fused_group *g = calloc(1, sizeof *g);
    static ma_vturns want, got;
    static uint64_t succ[MA_VRULES_MAX_TURNS];
    static struct turn a[MA_VRULES_MAX_TURNS], b[MA_VRULES_MAX_TURNS];
    assert_non_null(g);
    for (int k = 0; k < OPPS; k++) {
        /* one opponent mask per group, walked with every mover that leaves it free, as the
         * checkers walk; every other group a symmetric one when the sector has any */
        uint32_t open_o = 0;
        if (k % 2) {
            ma_mover_map probe;
            uint32_t so = symmetric_mask(sc, x, s.b, 0, &probe);
            open_o = sc->malom ? ma_malom_mask_to_open(so) : so;
        }
        if (!open_o)
            open_o = ma_test_random_points(x, s.b, 0);
        uint32_t o = to_scheme(sc, open_o);
        assert_true(ma_fused_group_start(g, &fs, o) >= 1);
        tl->symmetric += g->map.nops > 1;
        for (int i = 0; i < MOVERS; i++) {
            if (open_m[i] & open_o)
                continue;
            ma_board pos = {open_m[i], open_o};
            assert_int_equal(ma_vrules_generate(&open_rules, pos, &want), 0);
            assert_int_equal(ma_fused_turns(&fs, g, m[i], o, ma_turn_masks_of(&tm, (uint64_t)i),
                                            &got, succ),
                             0);
            if (want.immediate_wins > 0) {
                assert_int_equal(got.immediate_wins, 1);
                tl->wins++;
                continue;
            }
            assert_int_equal(got.immediate_wins, 0);
            assert_int_equal(got.n, want.n);
            for (int t = 0; t < want.n; t++) {
                a[t] = (struct turn){want.kind[t], sc->rank(sc->ix, want.succ[t])};
                b[t] = (struct turn){got.kind[t], succ[t]};
            }
            qsort(a, (size_t)want.n, sizeof *a, cmp_turn);
            qsort(b, (size_t)want.n, sizeof *b, cmp_turn);
            for (int t = 0; t < want.n; t++)
                if (cmp_turn(&a[t], &b[t]))
                    fail_msg("%s, variant %d sector %d_%d_%d_%d, board %06x/%06x (open numbering): "
                             "turn %d: kind %d index %llu, reference kind %d index %llu",
                             sc->name, (int)v, s.w, s.b, s.wf, s.bf, open_m[i], open_o, t,
                             b[t].kind, (unsigned long long)b[t].index, a[t].kind,
                             (unsigned long long)a[t].index);
            tl->compared++;
        }
    }
    free(g);
    ma_turn_masks_free(&tm);
}

static void run_scheme(const struct scheme *sc)
{
    uint64_t x = 0x2545F4914F6CDD1Dull;
    struct tally tl = {0};
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++)
        for (size_t i = 0; i < MA_TEST_TURN_SECTORS; i++)
            check_sector(sc, (ma_variant)v, ma_test_turn_sectors[i], &x, &tl);
    print_message("%s: %d boards compared, %d symmetric groups, %d immediate wins\n", sc->name,
                  tl.compared, tl.symmetric, tl.wins);
    assert_true(tl.compared > 1000);
    assert_true(tl.symmetric > 20); /* mover maps of several ops were exercised */
    assert_true(tl.wins > 10);      /* and immediate wins */
}

static void test_open_index_turns_equal_the_reference(void **state)
{
    (void)state;
    ma_open_index *ix;
    ma_error err;
    assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
    for (int w = 0; w <= 12; w++)
        assert_int_equal(ma_open_index_prepare(ix, w, &err), MA_OK);
    struct scheme sc = {"open index", 0, ix, fill_open, rank_open};
    run_scheme(&sc);
    ma_open_index_free(ix);
}

static void test_malom_index_turns_equal_the_reference(void **state)
{
    (void)state;
    ma_malom_index *ix;
    ma_error err;
    assert_int_equal(ma_malom_index_create(&ix, &err), MA_OK);
    assert_int_equal(ma_malom_index_prepare_all(ix, &err), MA_OK);
    struct scheme sc = {"Malom index", 1, ix, fill_malom, rank_malom};
    run_scheme(&sc);
    ma_malom_index_free(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_index_turns_equal_the_reference),
        cmocka_unit_test(test_malom_index_turns_equal_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
