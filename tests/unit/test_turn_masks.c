/* verifier/check/turn_masks: the turns rebuilt from a representative's rows, the way the checkers' fused
 * generator (verifier/check/fused_turns.h) reads them, are exactly ma_vrules_generate's, for every variant
 * and for sectors that place, move, fly, mix placing with moving (Lasker) and win by a mill; also
 * under relabelled rules (the Malom checker's numbering), here the board's points reversed. A
 * mask of another stone count is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/rules.h"
#include "verifier/check/turn_masks.h"
#include "indexer/position.h"
#include "support.h"
#include "turn_sectors.h"

static uint32_t reverse(uint32_t mask)
{
    uint32_t out = 0;
    for (int p = 0; p < MA_POINTS; p++)
        if (mask >> p & 1u)
            out |= 1u << (MA_POINTS - 1 - p);
    return out;
}

/* r with every point p renamed 23 - p, as rules_to_malom relabels. */
static void reverse_rules(ma_vrules *r)
{
    ma_vrules o = *r;
    for (int p = 0; p < MA_POINTS; p++) {
        int q = MA_POINTS - 1 - p;
        r->adj[q] = reverse(o.adj[p]);
        r->n_partners[q] = o.n_partners[p];
        for (int i = 0; i < 3; i++)
            r->partners[q][i] = i < o.n_partners[p] ? reverse(o.partners[p][i]) : UINT32_MAX;
    }
    for (int i = 0; i < o.n_lines; i++)
        r->lines[i] = reverse(o.lines[i]);
}

struct turn {
    uint8_t kind;
    uint32_t mover, opp;
};

static int cmp_turn(const void *a, const void *b)
{
    const struct turn *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->mover != y->mover)
        return x->mover < y->mover ? -1 : 1;
    return x->opp < y->opp ? -1 : x->opp > y->opp;
}

/* The turns of (m, o) from m's rows, read as ma_fused_turns reads them: *n successors into out,
 * or -1 for an immediate win. */
static int turns_from_rows(const ma_vrules *r, const ma_turn_dests *row, uint32_t m, uint32_t o,
                           struct turn *out)
{
    int n = 0;
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 0 ? !r->can_place : !r->can_move)
            continue;
        int kind = phase == 0 ? MA_TURN_PLACE : MA_TURN_MOVE;
        for (uint32_t froms = phase == 0 ? 1u : m; froms; froms &= froms - 1, row++) {
            uint32_t rest = phase == 0 ? m : m & ~(froms & (0u - froms));
            for (uint32_t d = row->plain & ~o; d; d &= d - 1)
                out[n++] = (struct turn){(uint8_t)kind, o, rest | (d & (0u - d))};
            uint32_t closing = row->closing & ~o;
            if (!closing || !o)
                continue;
            if (r->mill_wins)
                return -1;
            for (; closing; closing &= closing - 1)
                for (uint32_t x = ma_vrules_removable(r, o); x; x &= x - 1)
                    out[n++] = (struct turn){(uint8_t)(kind + 1), o & ~(x & (0u - x)),
                                             rest | (closing & (0u - closing))};
        }
    }
    return n;
}

static void check_sector(ma_variant v, ma_sector s, int reversed, uint64_t *x, int *compared)
{
    ma_vrules r;
    ma_error err;
    if (ma_vrules_init(&r, v, s, &err) != MA_OK)
        return; /* not a sector of this variant */
    if (reversed)
        reverse_rules(&r);
    enum { REPS = 24, OPPS = 12 };
    uint32_t reps[REPS];
    for (int i = 0; i < REPS; i++)
        reps[i] = ma_test_random_points(x, s.w, 0);
    ma_turn_masks tm;
    assert_int_equal(ma_turn_masks_build(&tm, &r, reps, REPS, s.w), 0);
    assert_int_equal(tm.rows, (r.can_place ? 1 : 0) + (r.can_move ? s.w : 0));
    static ma_vturns want;
    static struct turn got[MA_VRULES_MAX_TURNS], ref[MA_VRULES_MAX_TURNS];
    for (int i = 0; i < REPS; i++)
        for (int k = 0; k < OPPS; k++) {
            uint32_t o = ma_test_random_points(x, s.b, reps[i]);
            assert_int_equal(ma_vrules_generate(&r, (ma_board){reps[i], o}, &want), 0);
            int n = turns_from_rows(&r, ma_turn_masks_of(&tm, (uint64_t)i), reps[i], o, got);
            if (want.immediate_wins > 0) {
                assert_int_equal(n, -1);
                continue;
            }
            assert_int_equal(n, want.n);
            for (int t = 0; t < want.n; t++)
                ref[t] = (struct turn){want.kind[t], want.succ[t].mover, want.succ[t].opp};
            qsort(got, (size_t)n, sizeof *got, cmp_turn);
            qsort(ref, (size_t)n, sizeof *ref, cmp_turn);
            for (int t = 0; t < n; t++)
                if (cmp_turn(&got[t], &ref[t]))
                    fail_msg("variant %d sector %d_%d_%d_%d%s, board %06x/%06x: turn %d differs",
                             (int)v, s.w, s.b, s.wf, s.bf, reversed ? " reversed" : "", reps[i], o,
                             t);
            (*compared)++;
        }
    ma_turn_masks_free(&tm);
    assert_null(tm.dests);
}

static void test_rows_give_the_generators_turns(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int compared = 0;
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++)
        for (size_t i = 0; i < MA_TEST_TURN_SECTORS; i++)
            for (int reversed = 0; reversed < 2; reversed++)
                check_sector((ma_variant)v, ma_test_turn_sectors[i], reversed, &x, &compared);
    assert_true(compared > 1000);
}

static void test_a_mask_of_another_stone_count_is_refused(void **state)
{
    (void)state;
    ma_vrules r;
    ma_error err;
    assert_int_equal(ma_vrules_init(&r, MA_VARIANT_STD, (ma_sector){4, 4, 0, 0}, &err), MA_OK);
    const uint32_t reps[] = {0xF, 0xF0, 0x7, 0xF00};
    ma_turn_masks tm;
    assert_int_equal(ma_turn_masks_build(&tm, &r, reps, 4, 4), MA_EINVAL);
    assert_null(tm.dests);
    assert_int_equal(tm.rows, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_give_the_generators_turns),
        cmocka_unit_test(test_a_mask_of_another_stone_count_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
