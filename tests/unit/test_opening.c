/*
 * Unit tests for verifier/audit/opening: the alpha-beta proof against a plain minimax written here (no
 * pruning, no table), on games whose leaf values come from a synthetic oracle, with every table
 * size, with unknown leaves (Gasser's bounds), with stored values to compare (planted errors
 * found, true values never flagged), and on the real Malom 3-stone fixture.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/formats/source.h"
#include "indexer/open_index.h"
#include "verifier/check/check.h"
#include "verifier/audit/opening.h"
#include "verifier/run/probe.h"
#include "verifier/check/rulebook.h"
#include "verifier/check/rules.h"

#include "support.h"

/* ---- a synthetic game: leaf values from a hash of the canonical board ---- */

typedef struct fake {
    unsigned salt;
    int unknown_w;          /* leaves of sectors with this W are unknown (-1: none) */
    int truth;              /* 1: answer unknown leaves with their true value anyway */
    /* stored placement values: the true value, except one planted position */
    int plant;
    ma_sector plant_sector;
    ma_board plant_board;   /* canonical */
    ma_value plant_value;
    ma_rulebook *rules;
    uint64_t stored_calls;
    uint64_t *memo_key;     /* memoised minimax values (key + 1, 0 empty) */
    ma_value *memo_val;
    ma_open_index *ix;      /* for its fast symmetry tables */
} fake;

/* canon(b) of docs/format.md §4.2 through the index's byte tables (ma_open_canonical is the
 * readable one; this test canonicalises millions of boards). */
static ma_board canon(const fake *f, ma_board b)
{
    ma_board best = b;
    for (int op = 1; op < MA_SYM_OPS; op++) {
        ma_board x = ma_open_index_apply(f->ix, op, b);
        if (x.mover < best.mover || (x.mover == best.mover && x.opp < best.opp))
            best = x;
    }
    return best;
}

#define MEMO_SLOTS (1u << 18)

static void fake_init(fake *f)
{
    ma_error err;
    assert_int_equal(ma_rulebook_create(&f->rules, MA_VARIANT_STD, &err), MA_OK);
    assert_int_equal(ma_open_index_create(&f->ix, &err), MA_OK);
    f->memo_key = calloc(MEMO_SLOTS, sizeof *f->memo_key);
    f->memo_val = calloc(MEMO_SLOTS, sizeof *f->memo_val);
    assert_non_null(f->memo_key);
    assert_non_null(f->memo_val);
}

static void fake_free(fake *f)
{
    ma_rulebook_free(f->rules);
    ma_open_index_free(f->ix);
    free(f->memo_key);
    free(f->memo_val);
}

/* The memo slot of a position under a mode (0 true values, 1 pessimistic, 2 optimistic). */
static size_t memo_slot(fake *f, ma_sector s, ma_board b, int mode, int *hit)
{
    ma_board c = canon(f, b);
    uint64_t key = (((uint64_t)c.mover << 24) | c.opp | ((uint64_t)s.wf << 48) |
                    ((uint64_t)s.bf << 52) | ((uint64_t)mode << 56)) + 1;
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 46) & (MEMO_SLOTS - 1);
    for (size_t probes = 0;; i = (i + 1) & (MEMO_SLOTS - 1), probes++) {
        assert_true(probes < MEMO_SLOTS);
        if (f->memo_key[i] == key) {
            *hit = 1;
            return i;
        }
        if (!f->memo_key[i]) {
            f->memo_key[i] = key;
            *hit = 0;
            return i;
        }
    }
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return x;
}

static ma_value synthetic(const fake *f, ma_sector s, ma_board b)
{
    ma_board c = canon(f, b);
    uint64_t h = mix(((uint64_t)c.mover << 24 | c.opp) ^ ((uint64_t)s.w << 50) ^ f->salt);
    ma_value v;
    switch (h % 3) {
    case 0: v.outcome = MA_OUTCOME_WIN, v.depth = (uint16_t)(1 + 2 * ((h >> 8) % 6)); break;
    case 1: v.outcome = MA_OUTCOME_LOSS, v.depth = (uint16_t)(2 * ((h >> 8) % 6)); break;
    default: v.outcome = MA_OUTCOME_DRAW, v.depth = 0; break;
    }
    return v;
}

static int fake_leaf(void *ctx, ma_sector s, ma_board b, ma_value *out, ma_error *err)
{
    (void)err;
    fake *f = ctx;
    assert_int_equal(s.wf, 0);
    assert_int_equal(s.bf, 0);
    if (f->unknown_w >= 0 && s.w == f->unknown_w && !f->truth)
        return MA_OPENING_UNKNOWN;
    *out = synthetic(f, s, b);
    return MA_OPENING_KNOWN;
}

/* Plain negamax over the whole tree with the checker's value order (verifier/check/check.h). */
static ma_value minimax(fake *f, ma_sector s, ma_board b)
{
    if (s.wf == 0 && s.bf == 0)
        return synthetic(f, s, b);
    int hit;
    size_t slot = memo_slot(f, s, b, 0, &hit);
    if (hit)
        return f->memo_val[slot];
    ma_error err;
    const ma_vrules *r = ma_rulebook_get(f->rules, s, &err);
    assert_non_null(r);
    ma_vturns *t = malloc(sizeof *t);
    assert_non_null(t);
    assert_int_equal(ma_vrules_generate(r, b, t), 0);
    ma_value best = {MA_OUTCOME_LOSS, 0};
    if (t->immediate_wins) {
        best = (ma_value){MA_OUTCOME_WIN, 1};
    } else {
        for (int i = 0; i < t->n; i++) {
            ma_value v = ma_check_value_negate(minimax(f, r->succ[t->kind[i]], t->succ[i]));
            if (i == 0 || ma_check_value_score(v) > ma_check_value_score(best))
                best = v;
        }
    }
    free(t);
    f->memo_val[slot] = best;
    return best;
}

static int fake_stored(void *ctx, ma_sector s, ma_board b, ma_opening_stored *out, ma_error *err)
{
    (void)err;
    fake *f = ctx;
    f->stored_calls++;
    ma_board c = canon(f, b);
    memset(out, 0, sizeof *out);
    out->usable = 1;
    out->entry = ((uint64_t)c.mover << 24) | c.opp;
    ma_sector_format(s, out->sector, sizeof out->sector);
    out->entries = 1ull << 48;
    if (f->plant && ma_sector_equal(s, f->plant_sector) && c.mover == f->plant_board.mover &&
        c.opp == f->plant_board.opp)
        out->value = f->plant_value;
    else
        out->value = minimax(f, s, b);
    ma_value_format(out->value, out->describe, sizeof out->describe);
    return 1;
}

static int eq(ma_value a, ma_value b)
{
    return a.outcome == b.outcome && (a.outcome == MA_OUTCOME_DRAW || a.depth == b.depth);
}

static ma_board board(const char *text)
{
    ma_board b;
    ma_error err;
    if (ma_board_parse(text, &b, &err) != MA_OK)
        fail_msg("bad board '%s': %s", text, err.msg);
    return b;
}

static ma_opening_options options(int stones, const char *start, int wf, int bf, size_t tt)
{
    ma_opening_options o;
    memset(&o, 0, sizeof o);
    o.variant = MA_VARIANT_STD;
    o.stones = stones;
    o.tt_bytes = tt;
    if (start) {
        o.has_start = 1;
        o.start = board(start);
        o.start_sector = (ma_sector){(uint8_t)__builtin_popcount(o.start.mover),
                                     (uint8_t)__builtin_popcount(o.start.opp), (uint8_t)wf,
                                     (uint8_t)bf};
    }
    return o;
}

/* Replays the PV's turns from the start with the checker's turn list: every token must be a legal
 * turn, and the value at its end, shifted back by the plies played, must be the root value. */
static void check_pv(fake *f, const ma_opening_options *o, const ma_opening_pass *p)
{
    ma_sector s = o->start_sector;
    ma_board b = o->start;
    char pv[sizeof p->pv];
    snprintf(pv, sizeof pv, "%s", p->pv);
    int plies = 0, ended_by_win = 0;
    for (char *save = NULL, *tok = strtok_r(pv, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        ma_error err;
        const ma_vrules *r = ma_rulebook_get(f->rules, s, &err);
        ma_probe_turn t[MA_VRULES_MAX_TURNS];
        int n = 0, found = -1;
        assert_int_equal(ma_probe_turns(r, b, t, MA_VRULES_MAX_TURNS, &n, &err), MA_OK);
        for (int i = 0; i < n && found < 0; i++) {
            char text[32];
            ma_probe_turn_format(&t[i], text, sizeof text);
            if (!strcmp(text, tok))
                found = i;
        }
        if (found < 0)
            fail_msg("PV turn %s is not legal", tok);
        plies++;
        if (t[found].immediate_win) {
            ended_by_win = 1;
            break;
        }
        s = r->succ[t[found].kind];
        b = t[found].succ;
    }
    assert_int_equal(plies, p->pv_plies);
    ma_value end = ended_by_win ? (ma_value){MA_OUTCOME_WIN, 1} : minimax(f, s, b);
    if (ended_by_win)
        plies--; /* the winning turn is counted in "win 1" */
    for (int i = 0; i < plies; i++)
        end = ma_check_value_negate(end);
    assert_true(eq(end, p->value));
}

static const char *const starts[][3] = {
    /* board, wf, bf (K = 3 or 4) */
    {"d2/b4", "2", "2"},    {"a1/g7", "2", "2"},    {"b4/d2,f4", "2", "1"},
    {"a1,d1/g1,b2", "2", "2"}, {"d2,d6/b4,f4", "2", "2"}, {"d1/a1,a4", "3", "2"},
};

static void test_alpha_beta_equals_plain_minimax_with_any_table_size(void **state)
{
    (void)state;
    const size_t tts[] = {64, 4096, 1 << 20};
    for (unsigned salt = 1; salt <= 2; salt++)
        for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
            fake f = {.salt = salt, .unknown_w = -1};
            ma_error err;
            fake_init(&f);
            int stones = k < 3 ? 3 : 4;
            ma_opening_options o = options(stones, starts[k][0], atoi(starts[k][1]), atoi(starts[k][2]), 0);
            ma_value truth = minimax(&f, o.start_sector, o.start);
            for (size_t t = 0; t < sizeof tts / sizeof tts[0]; t++) {
                o.tt_bytes = tts[t];
                ma_opening_oracle oracle = {&f, fake_leaf, NULL};
                ma_opening_result r;
                int rc = ma_opening_prove(&o, &oracle, &r, &err);
                if (rc)
                    fail_msg("prove: %s", err.msg);
                char a[32], b[32];
                ma_value_format(truth, a, sizeof a);
                ma_value_format(r.value, b, sizeof b);
                if (!eq(truth, r.value))
                    fail_msg("salt %u start %s tt %zu: minimax %s, alpha-beta %s", salt,
                             starts[k][0], tts[t], a, b);
                assert_int_equal(r.status, MA_OPENING_PROVEN);
                assert_int_equal(r.passes, 1);
                assert_true(r.nodes > 0 && r.leaves > 0);
                check_pv(&f, &o, &r.pass[0]);
                ma_opening_result_free(&r);
            }
            fake_free(&f);
        }
}

/* Unknown leaves: the bounds bracket the true value and equal plain minimax with every unknown
 * leaf set to the extreme values the contract names. */
static ma_value minimax_assumed(fake *f, ma_sector s, ma_board b, int ply, int root_ply, int optimistic)
{
    if (s.wf == 0 && s.bf == 0) {
        if (s.w != f->unknown_w)
            return synthetic(f, s, b);
        int root_to_move = ((ply - root_ply) & 1) == 0;
        int good_for_mover = optimistic == root_to_move;
        return good_for_mover ? (ma_value){MA_OUTCOME_WIN, 1} : (ma_value){MA_OUTCOME_LOSS, 0};
    }
    int hit;
    size_t slot = memo_slot(f, s, b, 1 + optimistic, &hit);
    if (hit)
        return f->memo_val[slot];
    ma_error err;
    const ma_vrules *r = ma_rulebook_get(f->rules, s, &err);
    ma_vturns *t = malloc(sizeof *t);
    assert_int_equal(ma_vrules_generate(r, b, t), 0);
    ma_value best = {MA_OUTCOME_LOSS, 0};
    if (t->immediate_wins)
        best = (ma_value){MA_OUTCOME_WIN, 1};
    else
        for (int i = 0; i < t->n; i++) {
            ma_value v = ma_check_value_negate(
                minimax_assumed(f, r->succ[t->kind[i]], t->succ[i], ply + 1, root_ply, optimistic));
            if (i == 0 || ma_check_value_score(v) > ma_check_value_score(best))
                best = v;
        }
    free(t);
    f->memo_val[slot] = best;
    return best;
}

static void test_unknown_leaves_give_gassers_bounds(void **state)
{
    (void)state;
    int proven = 0, unproven = 0;
    for (unsigned salt = 1; salt <= 3; salt++)
        for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
            int stones = k < 3 ? 3 : 4;
            for (int unknown_w = 3; unknown_w <= stones; unknown_w++) {
                fake f = {.salt = salt, .unknown_w = unknown_w};
                ma_error err;
                fake_init(&f);
                ma_opening_options o = options(stones, starts[k][0], atoi(starts[k][1]),
                                               atoi(starts[k][2]), 1 << 16);
                int root_ply = 2 * stones - o.start_sector.wf - o.start_sector.bf;
                ma_value truth = minimax(&f, o.start_sector, o.start);
                ma_value lo = minimax_assumed(&f, o.start_sector, o.start, root_ply, root_ply, 0);
                ma_value hi = minimax_assumed(&f, o.start_sector, o.start, root_ply, root_ply, 1);
                ma_opening_oracle oracle = {&f, fake_leaf, fake_stored};
                ma_opening_result r;
                assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
                assert_true(eq(r.lower, lo));
                assert_true(eq(r.upper, hi));
                assert_true(ma_check_value_score(r.lower) <= ma_check_value_score(truth));
                assert_true(ma_check_value_score(truth) <= ma_check_value_score(r.upper));
                if (r.unknown_leaves == 0) {
                    assert_int_equal(r.passes, 1);
                } else {
                    assert_int_equal(r.passes, 2);
                }
                if (r.status == MA_OPENING_PROVEN) {
                    assert_true(eq(r.value, truth));
                    proven++;
                } else if (r.status == MA_OPENING_OUTCOME_PROVEN) {
                    assert_int_equal(r.value.outcome, truth.outcome);
                } else {
                    assert_int_not_equal(r.lower.outcome, r.upper.outcome);
                    unproven++;
                }
                /* untainted results are exact: compared with true stored values, none disagrees */
                assert_int_equal(r.discrepancies, 0);
                ma_opening_result_free(&r);
                fake_free(&f);
            }
        }
    /* the cases exercise both outcomes of the bounds */
    assert_true(proven > 0);
    assert_true(unproven > 0);
}

static void test_true_stored_values_never_disagree_and_a_planted_one_is_found(void **state)
{
    (void)state;
    fake f = {.salt = 7, .unknown_w = -1};
    ma_error err;
    fake_init(&f);
    ma_opening_options o = options(4, "d2,d6/b4,f4", 2, 2, 1 << 16);
    ma_opening_oracle oracle = {&f, fake_leaf, fake_stored};
    ma_opening_result r;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
    assert_int_equal(r.discrepancies, 0);
    assert_true(r.exact_checked > 0);
    assert_true(r.bound_checked > 0);
    assert_true(r.n_tallies > 0);
    ma_value root = r.value;
    /* plant a wrong value at the root (always resolved exactly) and at the first PV successor */
    f.plant = 1;
    f.plant_sector = o.start_sector;
    f.plant_board = ma_open_canonical(o.start, NULL);
    f.plant_value = root.outcome == MA_OUTCOME_DRAW ? (ma_value){MA_OUTCOME_WIN, 5}
                                                    : (ma_value){MA_OUTCOME_DRAW, 0};
    ma_opening_result_free(&r);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
    assert_int_equal(r.discrepancies, 1);
    assert_int_equal(r.n_rows, 1);
    assert_int_equal(r.rows[0].bound, 0);
    assert_true(eq(r.rows[0].derived_value, root));
    char want[32];
    ma_value_format(root, want, sizeof want);
    assert_string_equal(r.rows[0].derived, want);
    ma_opening_result_free(&r);

    /* a wrong depth one ply into the principal variation */
    const char *first = NULL;
    assert_int_equal(ma_opening_prove(&o, &(ma_opening_oracle){&f, fake_leaf, NULL}, &r, &err), MA_OK);
    char pv[640];
    snprintf(pv, sizeof pv, "%s", r.pass[0].pv);
    first = strtok(pv, " ");
    assert_non_null(first);
    const ma_vrules *rr = ma_rulebook_get(f.rules, o.start_sector, &err);
    ma_probe_turn t[MA_VRULES_MAX_TURNS];
    int n;
    assert_int_equal(ma_probe_turns(rr, o.start, t, MA_VRULES_MAX_TURNS, &n, &err), MA_OK);
    int found = -1;
    for (int i = 0; i < n; i++) {
        char text[32];
        ma_probe_turn_format(&t[i], text, sizeof text);
        if (!strcmp(text, first))
            found = i;
    }
    assert_true(found >= 0);
    ma_opening_result_free(&r);
    f.plant_sector = rr->succ[t[found].kind];
    f.plant_board = ma_open_canonical(t[found].succ, NULL);
    ma_value child = minimax(&f, f.plant_sector, t[found].succ);
    f.plant_value = child;
    if (child.outcome == MA_OUTCOME_DRAW)
        f.plant_value = (ma_value){MA_OUTCOME_LOSS, 2};
    else
        f.plant_value.depth = (uint16_t)(child.depth + 2);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
    assert_int_equal(r.discrepancies, 1);
    char sec[16];
    ma_sector_format(f.plant_sector, sec, sizeof sec);
    assert_string_equal(r.rows[0].sector, sec);
    ma_opening_result_free(&r);
    fake_free(&f);
}

static void test_options_are_checked(void **state)
{
    (void)state;
    fake f = {.salt = 1, .unknown_w = -1};
    ma_opening_oracle oracle = {&f, fake_leaf, NULL};
    ma_opening_result r;
    ma_error err;
    ma_opening_options o = options(3, NULL, 0, 0, 1 << 16);
    o.variant = MA_VARIANT_LASK;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "lask"));
    o = options(2, NULL, 0, 0, 1 << 16);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
    o = options(10, NULL, 0, 0, 1 << 16);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
    o = options(3, NULL, 0, 0, 32);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
    /* the side to move cannot have fewer stones in hand than the other */
    o = options(3, "d2/b4,f4", 1, 1, 1 << 16);
    o.start_sector.wf = 1, o.start_sector.bf = 2;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
    /* board and sector disagree */
    o = options(3, "d2/b4", 2, 2, 1 << 16);
    o.start_sector.w = 2;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EINVAL);
}

static volatile sig_atomic_t cancel_now = 1;

static void test_cancel_stops_the_search(void **state)
{
    (void)state;
    fake f = {.salt = 1, .unknown_w = -1};
    ma_opening_oracle oracle = {&f, fake_leaf, NULL};
    ma_opening_result r;
    ma_error err;
    ma_opening_options o = options(3, NULL, 0, 0, 1 << 16);
    o.cancel = &cancel_now;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_ECANCELED);
    ma_opening_result_free(&r);
}

static int failing_leaf(void *ctx, ma_sector s, ma_board b, ma_value *out, ma_error *err)
{
    (void)ctx, (void)s, (void)b, (void)out;
    return ma_error_set(err, MA_EFORMAT, "x.mdb: sector std_3_3_0_0: offset 128: broken");
}

static void test_an_oracle_error_stops_the_search_with_its_message(void **state)
{
    (void)state;
    ma_opening_oracle oracle = {NULL, failing_leaf, NULL};
    ma_opening_result r;
    ma_error err;
    ma_opening_options o = options(3, "d2,f4/b4,d6", 1, 1, 1 << 16);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "offset 128"));
    ma_opening_result_free(&r);
}

static void test_scores_and_values_round_trip(void **state)
{
    (void)state;
    for (int ply = 0; ply <= 24; ply++) {
        ma_value vs[] = {{MA_OUTCOME_WIN, 1}, {MA_OUTCOME_WIN, 57}, {MA_OUTCOME_LOSS, 0},
                         {MA_OUTCOME_LOSS, 200}, {MA_OUTCOME_DRAW, 0}};
        for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
            int32_t s = ma_opening_value_score(vs[i], ply);
            assert_true(eq(ma_opening_score_value(s, ply), vs[i]));
            /* the order of scores is the format's order of values */
            for (size_t j = 0; j < sizeof vs / sizeof vs[0]; j++) {
                int32_t t = ma_opening_value_score(vs[j], ply);
                int a = ma_check_value_score(vs[i]), b = ma_check_value_score(vs[j]);
                assert_int_equal(s < t, a < b);
            }
        }
    }
}

/* The real thing: Malom's 3-stone movement sector alone proves the 3-stone game. */
static void test_malom_three_stone_game_is_a_first_player_win(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    ma_test_fixture_dir(dir, sizeof dir);
    MA_TEST_NEED_FIXTURES(dir);
    snprintf(path, sizeof path, "%s/std-strong", dir);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, path, NULL, &err), MA_OK);
    ma_opening_db *odb;
    assert_int_equal(ma_opening_db_create(&odb, db, MA_VARIANT_STD, NULL, 0, &err), MA_OK);
    ma_opening_oracle oracle;
    ma_opening_db_oracle(odb, 1, &oracle);
    ma_opening_options o = options(3, NULL, 0, 0, 1 << 20);
    ma_opening_result r;
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
    assert_int_equal(r.status, MA_OPENING_PROVEN);
    assert_int_equal(r.value.outcome, MA_OUTCOME_WIN);
    /* the producer's solve of the whole 3-stone game stores win 23 at 0_0_3_3 */
    assert_int_equal(r.value.depth, 23);
    assert_int_equal(r.unknown_leaves, 0);
    assert_int_equal(r.n_tallies, 0); /* no placement sector in that directory */
    assert_int_equal(ma_opening_db_bad_leaves(odb), 0);
    char missing[64];
    assert_int_equal(ma_opening_db_missing(odb, missing, sizeof missing), 0);
    const char *names[8];
    assert_int_equal(ma_opening_db_files(odb, names, 8), 1);
    assert_string_equal(names[0], "std_3_3_0_0.sec");
    ma_opening_result_free(&r);

    /* 4 stones: 4_4_0_0 is not in the fixture, so its leaves are unknown */
    o = options(4, NULL, 0, 0, 1 << 20);
    assert_int_equal(ma_opening_prove(&o, &oracle, &r, &err), MA_OK);
    assert_int_equal(r.passes, 2);
    assert_true(r.unknown_leaves > 0);
    assert_true(ma_opening_db_missing(odb, missing, sizeof missing) >= 1);
    assert_non_null(strstr(missing, "std_4_4_0_0"));
    ma_opening_result_free(&r);

    /* --only-sectors must name movement sectors */
    ma_opening_db *bad;
    ma_sector place = {1, 1, 2, 2};
    assert_int_equal(ma_opening_db_create(&bad, db, MA_VARIANT_STD, &place, 1, &err), MA_EINVAL);
    ma_opening_db_free(odb);
    ma_database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_and_values_round_trip),
        cmocka_unit_test(test_alpha_beta_equals_plain_minimax_with_any_table_size),
        cmocka_unit_test(test_unknown_leaves_give_gassers_bounds),
        cmocka_unit_test(test_true_stored_values_never_disagree_and_a_planted_one_is_found),
        cmocka_unit_test(test_options_are_checked),
        cmocka_unit_test(test_cancel_stops_the_search),
        cmocka_unit_test(test_an_oracle_error_stops_the_search_with_its_message),
        cmocka_unit_test(test_malom_three_stone_game_is_a_first_player_win),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
