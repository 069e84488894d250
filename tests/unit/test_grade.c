/*
 * Unit tests for grading: evaluation terms on hand-counted positions, the alpha-beta player, the
 * external-engine protocol (a tiny shell engine and engines that break it), move classes, the
 * uniformity of position sampling and the plumbing of a grade run on the real Malom fixture (each
 * graded move checked against an independent look-up of its successor), the audit tables and the
 * report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "verifier/formats/source.h"
#include "indexer/open_index.h"
#include "reports/store/audit.h"
#include "reports/store/audit_game.h"
#include "reports/render/grade_report.h"
#include "verifier/check/check.h"
#include "verifier/audit/engine_proto.h"
#include "verifier/audit/eval.h"
#include "verifier/audit/grade.h"
#include "verifier/audit/player.h"
#include "verifier/run/probe.h"
#include "verifier/check/rulebook.h"

#include "support.h"

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

/* ---- evaluation ---- */

static void test_eval_specs_parse_and_refuse(void **state)
{
    (void)state;
    ma_eval e;
    ma_error err;
    assert_int_equal(ma_eval_parse("material", &e, &err), MA_OK);
    assert_string_equal(e.name, "material");
    assert_int_equal(e.weight[MA_EVAL_MATERIAL], 10);
    assert_int_equal(e.weight[MA_EVAL_MOBILITY], 0);
    assert_int_equal(ma_eval_parse("mills+mobility", &e, &err), MA_OK);
    assert_int_equal(e.weight[MA_EVAL_MILLS], 3);
    assert_int_equal(e.weight[MA_EVAL_MOBILITY], 1);
    assert_int_equal(ma_eval_parse("7*material+-2*blocked+twos", &e, &err), MA_OK);
    assert_string_equal(e.name, "7*material+-2*blocked+twos");
    assert_int_equal(e.weight[MA_EVAL_MATERIAL], 7);
    assert_int_equal(e.weight[MA_EVAL_BLOCKED], -2);
    const char *bad[] = {"", "speed", "material+material", "x*mills", "5000*mills", "+", "mills+"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = ma_eval_parse(bad[i], &e, &err);
        if (!strcmp(bad[i], "mills+")) /* a trailing '+' leaves one valid term */
            assert_int_equal(rc, MA_OK);
        else
            assert_int_equal(rc, MA_EINVAL);
    }
    assert_int_equal(ma_eval_parse("speed", &e, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "speed"));
    assert_non_null(strstr(err.msg, "mobility"));
}

static void test_eval_terms_on_a_hand_counted_position(void **state)
{
    (void)state;
    ma_rulebook *rb;
    ma_error err;
    assert_int_equal(ma_rulebook_create(&rb, MA_VARIANT_STD, &err), MA_OK);
    /* mover a1,d1,g1 (a mill), b4; opponent c3,d3,e4 (three stones: it flies) */
    ma_sector s = sec(4, 3, 0, 0);
    ma_board b = board("a1,d1,g1,b4/c3,d3,e4");
    const ma_vrules *r = ma_rulebook_get(rb, s, &err), *o = ma_rulebook_get(rb, ma_sector_negate(s), &err);
    assert_non_null(r);
    assert_non_null(o);
    assert_int_equal(ma_eval_term(MA_EVAL_MATERIAL, r, o, s, b), 1);
    assert_int_equal(ma_eval_term(MA_EVAL_MILLS, r, o, s, b), 1);
    /* the opponent's c3-d3 with e3 empty is a two; it can fly e4 to e3: an open mill */
    assert_int_equal(ma_eval_term(MA_EVAL_TWOS, r, o, s, b), -1);
    assert_int_equal(ma_eval_term(MA_EVAL_OPENMILLS, r, o, s, b), -1);
    assert_int_equal(ma_eval_term(MA_EVAL_BLOCKED, r, o, s, b), 0);
    /* mover slides: a1-a4, d1-d2, g1-g4, b4 to a4/c4/b2/b6 = 7; opponent flies 3 x 17 = 51 */
    assert_int_equal(ma_eval_term(MA_EVAL_MOBILITY, r, o, s, b), 7 - 51);
    ma_eval e;
    assert_int_equal(ma_eval_parse("material+mobility", &e, &err), MA_OK);
    assert_int_equal(ma_eval_score(&e, r, o, s, b), 10 * 1 + 1 * (7 - 51));

    /* blocked: mover d1 between own a1, g1 and own d2 is blocked; g1 too (g4 own) */
    s = sec(5, 3, 0, 0);
    b = board("a1,d1,g1,d2,g4/a4,b2,f2");
    r = ma_rulebook_get(rb, s, &err);
    o = ma_rulebook_get(rb, ma_sector_negate(s), &err);
    /* blocked mover stones: a1 (d1 own, a4 opp), d1 (a1, g1, d2 own), g1 (d1, g4 own) = 3;
     * blocked opponent stones: none (b2 has b4 free) */
    assert_int_equal(ma_eval_term(MA_EVAL_BLOCKED, r, o, s, b), 0 - 3);
    /* placing: mobility counts empty points for both */
    s = sec(1, 1, 2, 2);
    b = board("d2/b4");
    r = ma_rulebook_get(rb, s, &err);
    o = ma_rulebook_get(rb, ma_sector_negate(s), &err);
    assert_int_equal(ma_eval_term(MA_EVAL_MOBILITY, r, o, s, b), 0);
    assert_int_equal(ma_eval_term(MA_EVAL_MATERIAL, r, o, s, b), 0);
    ma_rulebook_free(rb);
}

/* ---- players ---- */

static int turns_of(ma_rulebook *rb, ma_sector s, ma_board b, ma_probe_turn *t)
{
    ma_error err;
    int n;
    const ma_vrules *r = ma_rulebook_get(rb, s, &err);
    assert_non_null(r);
    assert_int_equal(ma_probe_turns(r, b, t, MA_VRULES_MAX_TURNS, &n, &err), MA_OK);
    return n;
}

static void test_alpha_beta_player_takes_a_win_and_avoids_a_loss(void **state)
{
    (void)state;
    ma_rulebook *rb;
    ma_error err;
    assert_int_equal(ma_rulebook_create(&rb, MA_VARIANT_STD, &err), MA_OK);
    static ma_probe_turn t[MA_VRULES_MAX_TURNS];
    ma_rng rng;
    ma_rng_seed(&rng, 5);
    /* flying mover a1,d1,c5 closes a1-d1-g1: the opponent drops to 2 stones, an immediate win */
    ma_sector s = sec(3, 3, 0, 0);
    ma_board b = board("a1,d1,c5/b2,d2,f2");
    int n = turns_of(rb, s, b, t);
    for (int depth = 1; depth <= 3; depth++) {
        char spec[32];
        snprintf(spec, sizeof spec, "ab:mobility:%d", depth);
        ma_player *p;
        assert_int_equal(ma_player_create(&p, spec, MA_VARIANT_STD, 1.0, &err), MA_OK);
        assert_string_equal(ma_player_name(p), spec);
        int chosen = -1;
        assert_int_equal(ma_player_choose(p, s, b, t, n, &rng, &chosen, &err), MA_OK);
        assert_true(chosen >= 0 && chosen < n);
        assert_true(t[chosen].immediate_win);
        ma_player_free(p);
    }
    /* both sides fly; the opponent threatens to fly g7 to f2 closing b2-d2-f2, which wins (the mover
     * has 3 stones). The mover has no win of its own; at depth 2 the player sees the threat and
     * must block f2 (every turn to f2 is safe), for every seed */
    b = board("a1,g4,c5/b2,d2,g7");
    n = turns_of(rb, s, b, t);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        ma_rng_seed(&rng, seed);
        ma_player *p;
        assert_int_equal(ma_player_create(&p, "ab:material:2", MA_VARIANT_STD, 1.0, &err), MA_OK);
        int chosen = -1;
        assert_int_equal(ma_player_choose(p, s, b, t, n, &rng, &chosen, &err), MA_OK);
        assert_int_equal(t[chosen].to, ma_point_from_name("f2"));
        assert_true(ma_player_nodes(p) > 0);
        ma_player_free(p);
    }
    ma_rulebook_free(rb);
}

static void test_player_specs_are_checked_and_random_is_reproducible(void **state)
{
    (void)state;
    ma_player *p;
    ma_error err;
    const char *bad[] = {"ab:material", "ab:material:0", "ab:material:9", "ab:nothing:2", "abc",
                         "ab::3", "human"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(ma_player_create(&p, bad[i], MA_VARIANT_STD, 1.0, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "ab:EVAL:DEPTH"));
    ma_rulebook *rb;
    assert_int_equal(ma_rulebook_create(&rb, MA_VARIANT_STD, &err), MA_OK);
    static ma_probe_turn t[MA_VRULES_MAX_TURNS];
    int n = turns_of(rb, sec(0, 0, 9, 9), (ma_board){0, 0}, t);
    assert_int_equal(n, 24);
    assert_int_equal(ma_player_create(&p, "random", MA_VARIANT_STD, 1.0, &err), MA_OK);
    int seen[24] = {0}, a[50], b[50];
    ma_rng r1, r2;
    ma_rng_seed(&r1, 9);
    ma_rng_seed(&r2, 9);
    for (int i = 0; i < 50; i++) {
        assert_int_equal(ma_player_choose(p, sec(0, 0, 9, 9), (ma_board){0, 0}, t, n, &r1, &a[i], &err), MA_OK);
        assert_int_equal(ma_player_choose(p, sec(0, 0, 9, 9), (ma_board){0, 0}, t, n, &r2, &b[i], &err), MA_OK);
        assert_int_equal(a[i], b[i]);
        seen[a[i]] = 1;
    }
    int distinct = 0;
    for (int i = 0; i < 24; i++)
        distinct += seen[i];
    assert_true(distinct > 10);
    ma_player_free(p);
    ma_rulebook_free(rb);
}

/* ---- the external-engine protocol ---- */

static char scratch[64];

static const char *engine_script(const char *name, const char *body)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    chmod(path, 0755);
    return path;
}

/* Answers with the first listed turn; "ready" after the handshake line. */
#define FIRST_MOVE_ENGINE                                                                          \
    "read hello\necho \"ready first-move\"\n"                                                      \
    "while read w rest; do\n"                                                                      \
    "  case $w in\n"                                                                               \
    "    moves) set -- $rest; first=$1;;\n"                                                        \
    "    go) echo \"# thinking\"; echo \"info nothing\"; echo \"move $first\";;\n"                 \
    "    quit) exit 0;;\n"                                                                         \
    "  esac\n"                                                                                     \
    "done\n"

static int engine_setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/ma_test_grade_XXXXXX");
    assert_non_null(mkdtemp(scratch));
    return 0;
}

static int engine_teardown(void **state)
{
    (void)state;
    ma_test_tmpdir_remove(scratch);
    return 0;
}

static void test_engine_protocol_round_trip(void **state)
{
    (void)state;
    ma_rulebook *rb;
    ma_error err;
    assert_int_equal(ma_rulebook_create(&rb, MA_VARIANT_STD, &err), MA_OK);
    static ma_probe_turn t[MA_VRULES_MAX_TURNS];
    ma_sector s = sec(3, 3, 0, 0);
    ma_board b = board("a1,d1,c5/b2,d2,f2");
    int n = turns_of(rb, s, b, t);
    ma_engine *e;
    assert_int_equal(ma_engine_start(&e, engine_script("first.sh", FIRST_MOVE_ENGINE), 5.0, &err), MA_OK);
    assert_string_equal(ma_engine_name(e), "first-move");
    for (int i = 0; i < 3; i++) {
        int chosen = -1;
        assert_int_equal(ma_engine_choose(e, MA_VARIANT_STD, s, b, t, n, &chosen, &err), MA_OK);
        assert_int_equal(chosen, 0);
    }
    ma_engine_stop(e);
    /* through the player interface, with arguments passed through the shell */
    ma_player *p;
    char spec[256];
    snprintf(spec, sizeof spec, "cmd:sh %s/first.sh", scratch);
    assert_int_equal(ma_player_create(&p, spec, MA_VARIANT_STD, 5.0, &err), MA_OK);
    ma_rng rng;
    ma_rng_seed(&rng, 1);
    int chosen = -1;
    assert_int_equal(ma_player_choose(p, s, b, t, n, &rng, &chosen, &err), MA_OK);
    assert_int_equal(chosen, 0);
    ma_player_free(p);
    ma_rulebook_free(rb);
}

static void expect_failure(const char *name, const char *body, const char *expect, int at_start)
{
    ma_rulebook *rb;
    ma_error err;
    assert_int_equal(ma_rulebook_create(&rb, MA_VARIANT_STD, &err), MA_OK);
    static ma_probe_turn t[MA_VRULES_MAX_TURNS];
    ma_sector s = sec(3, 3, 0, 0);
    ma_board b = board("a1,d1,c5/b2,d2,f2");
    int n = turns_of(rb, s, b, t);
    ma_engine *e = NULL;
    double t0 = ma_now();
    int rc = ma_engine_start(&e, engine_script(name, body), 0.5, &err);
    if (at_start) {
        assert_int_equal(rc, MA_EFORMAT);
    } else {
        assert_int_equal(rc, MA_OK);
        int chosen = -1;
        rc = ma_engine_choose(e, MA_VARIANT_STD, s, b, t, n, &chosen, &err);
        assert_int_equal(rc, MA_EFORMAT);
        /* a failed engine stays failed */
        ma_error again;
        assert_int_equal(ma_engine_choose(e, MA_VARIANT_STD, s, b, t, n, &chosen, &again), MA_EFORMAT);
        assert_non_null(strstr(again.msg, "no longer running"));
        ma_engine_stop(e);
    }
    if (!strstr(err.msg, expect))
        fail_msg("%s: message '%s' lacks '%s'", name, err.msg, expect);
    assert_null(strchr(err.msg, '\n'));
    assert_non_null(strstr(err.msg, name));
    /* nothing waits for a sleeping engine beyond its timeout (0.5 s, plus slack) */
    assert_true(ma_now() - t0 < 5.0);
    /* no child left behind: every engine was reaped */
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    ma_rulebook_free(rb);
}

static void test_engines_that_break_the_protocol_fail_cleanly(void **state)
{
    (void)state;
    expect_failure("illegal.sh", "read h; echo ready; while read w r; do [ \"$w\" = go ] && echo \"move z9\"; done\n",
                   "illegal move 'z9'", 0);
    expect_failure("garbage.sh", "read h; echo ready; while read w r; do [ \"$w\" = go ] && echo \"banana\"; done\n",
                   "sent 'banana', expected 'move <turn>'", 0);
    expect_failure("timeout.sh", "read h; echo ready; while read w r; do [ \"$w\" = go ] && sleep 30; done\n",
                   "timeout", 0);
    expect_failure("crash.sh", "read h; echo ready; read w; exit 7\n", "exit status 7", 0);
    expect_failure("nohello.sh", "read h; echo hello\n", "expected 'ready [name]'", 1);
    expect_failure("silent.sh", "sleep 30\n", "timeout", 1);
    expect_failure("quits.sh", "exit 0\n", "closed its output", 1);
    /* a command that cannot run: sh reports it and exits 127 */
    ma_engine *e;
    ma_error err;
    assert_int_equal(ma_engine_start(&e, "/nonexistent/engine", 0.5, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "exit status 127"));
}

/* ---- classes and phases ---- */

static void test_classes_and_phases(void **state)
{
    (void)state;
    ma_value w3 = {MA_OUTCOME_WIN, 3}, w5 = {MA_OUTCOME_WIN, 5}, d = {MA_OUTCOME_DRAW, 0},
             l4 = {MA_OUTCOME_LOSS, 4}, l8 = {MA_OUTCOME_LOSS, 8};
    assert_int_equal(ma_grade_classify(w3, w3), MA_GRADE_OPTIMAL);
    assert_int_equal(ma_grade_classify(w3, w5), MA_GRADE_DEPTH_LOST);
    assert_int_equal(ma_grade_classify(w3, d), MA_GRADE_BLUNDER);
    assert_int_equal(ma_grade_classify(w3, l8), MA_GRADE_BLUNDER);
    assert_int_equal(ma_grade_classify(d, d), MA_GRADE_OPTIMAL);
    assert_int_equal(ma_grade_classify(d, l8), MA_GRADE_BLUNDER);
    assert_int_equal(ma_grade_classify(l8, l4), MA_GRADE_DEPTH_LOST);
    assert_int_equal(ma_grade_classify(l8, l8), MA_GRADE_OPTIMAL);
    assert_int_equal(ma_grade_phase(sec(2, 3, 5, 4)), MA_GRADE_PLACEMENT);
    assert_int_equal(ma_grade_phase(sec(4, 3, 0, 0)), MA_GRADE_MOVING);
    assert_int_equal(ma_grade_phase(sec(3, 5, 0, 0)), MA_GRADE_FLYING);
    double lo, hi;
    ma_wilson95(0, 0, &lo, &hi);
    assert_true(lo == 0.0 && hi == 1.0);
    ma_wilson95(5, 10, &lo, &hi); /* textbook: 0.2366 .. 0.7634 */
    assert_true(fabs(lo - 0.2366) < 1e-3 && fabs(hi - 0.7634) < 1e-3);
    ma_wilson95(0, 100, &lo, &hi);
    assert_true(fabs(lo) < 1e-12 && fabs(hi - 0.0370) < 1e-3);
}

/* ---- a grade run on the real fixture ---- */

typedef struct seen {
    ma_database *db;
    uint64_t n, hash, on_a1, on_d2, symmetric;
    ma_rulebook *rb;
} seen;

/* Every graded move is checked against a look-up of its own: the chosen turn's successor value
 * from the database, negated, is the move value; the class follows from the values. */
static int check_move(void *ctx, const ma_grade_move *m, ma_error *err)
{
    seen *s = ctx;
    static ma_probe_turn t[MA_VRULES_MAX_TURNS];
    int n = turns_of(s->rb, m->sector, m->board, t);
    assert_int_equal(n, m->turns);
    int found = -1;
    for (int i = 0; i < n; i++) {
        char text[24];
        ma_probe_turn_format(&t[i], text, sizeof text);
        if (!strcmp(text, m->move))
            found = i;
    }
    assert_true(found >= 0);
    ma_value v = {MA_OUTCOME_WIN, 1};
    if (!t[found].immediate_win) {
        const ma_source *src;
        ma_sector cs = ma_rulebook_get(s->rb, m->sector, err)->succ[t[found].kind];
        assert_int_equal(ma_database_source(s->db, MA_VARIANT_STD, cs, &src, err), MA_OK);
        ma_stored st;
        ma_source_read(src, ma_source_entry_of(src, t[found].succ), &st);
        assert_int_equal(st.kind, MA_STORED_VALUE);
        v = ma_check_value_negate(st.value);
    }
    assert_int_equal(v.outcome, m->move_value.outcome);
    assert_int_equal(v.depth, m->move_value.depth);
    assert_int_equal(m->cls, ma_grade_classify(m->value, m->move_value));
    assert_true(m->optimal_turns >= 1 && m->optimal_turns <= m->turns);
    assert_true(ma_check_value_score(m->value) >= ma_check_value_score(m->move_value));
    assert_int_equal(m->seq, s->n);
    s->n++;
    s->hash = s->hash * 1000003u ^ ((uint64_t)m->board.mover << 24 | m->board.opp);
    s->on_a1 += (m->board.mover & 1u) != 0;
    s->on_d2 += (m->board.mover & (1u << 4)) != 0;
    s->symmetric += ma_open_orbit_size(m->board) < 16;
    return MA_OK;
}

static void open_fixture(ma_database **db, const char *sub)
{
    char dir[4096], path[4200];
    ma_test_fixture_dir(dir, sizeof dir);
    MA_TEST_NEED_FIXTURES(dir);
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    ma_error err;
    assert_int_equal(ma_database_open(db, path, NULL, &err), MA_OK);
}

static void test_grade_run_on_the_malom_fixture(void **state)
{
    (void)state;
    ma_database *db;
    open_fixture(&db, "std-strong");
    ma_error err;
    ma_player *p;
    assert_int_equal(ma_player_create(&p, "ab:material+mobility:2", MA_VARIANT_STD, 1.0, &err), MA_OK);
    seen s = {db, 0, 0, 0, 0, 0, NULL};
    assert_int_equal(ma_rulebook_create(&s.rb, MA_VARIANT_STD, &err), MA_OK);
    ma_grade_options o = {.variant = MA_VARIANT_STD, .count = 300, .seed = 42, .on_move = check_move, .ctx = &s};
    ma_grade_result *r = calloc(1, sizeof *r);
    assert_int_equal(ma_grade_play(db, p, &o, r, &err), MA_OK);
    assert_int_equal(r->graded, 300);
    assert_int_equal(s.n, 300);
    assert_int_equal(r->n_sectors, 3); /* the closed set 3_3, 3_4, 4_3 */
    uint64_t sum = 0, by_phase = 0;
    for (int k = 0; k < MA_GRADE_CLASSES; k++)
        sum += r->tally.total.n[k];
    for (int ph = 0; ph < MA_GRADE_PHASES; ph++)
        for (int k = 0; k < MA_GRADE_CLASSES; k++)
            by_phase += r->tally.phase[ph].n[k];
    assert_int_equal(sum, 300);
    assert_int_equal(by_phase, 300);
    assert_int_equal(r->tally.phase[MA_GRADE_PLACEMENT].n[0], 0);
    /* the same seed gives the same positions; another seed others */
    uint64_t first = s.hash;
    seen again = {db, 0, 0, 0, 0, 0, s.rb};
    o.ctx = &again;
    ma_grade_result *r2 = calloc(1, sizeof *r2);
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_OK);
    assert_true(again.hash == first);
    assert_memory_equal(&r->tally, &r2->tally, sizeof r->tally);
    seen other = {db, 0, 0, 0, 0, 0, s.rb};
    o.ctx = &other;
    o.seed = 43;
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_OK);
    assert_true(other.hash != first);
    /* the test build's stop: exactly K moves graded and reported, then MA_ECANCELED as on a signal */
    other.n = 0;
    o.stop_after_moves = 7;
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_ECANCELED);
    assert_int_equal(r2->graded, 7);
    assert_int_equal(other.n, 7);
    assert_non_null(strstr(err.msg, "interrupted after 7 graded moves"));
    o.stop_after_moves = 0;
    /* a chosen sector must be gradable: 3_4_0_0's successors are all there, 5_5 is absent */
    ma_sector only = sec(3, 4, 0, 0);
    o.sectors = &only;
    o.n_sectors = 1;
    o.ctx = &other;
    other.n = 0;
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_OK);
    assert_string_equal(r2->sectors, "std_3_4_0_0");
    ma_sector absent = sec(5, 5, 0, 0);
    o.sectors = &absent;
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_EUSAGE);
    assert_non_null(strstr(err.msg, "std_5_5_0_0"));
    /* games need a start sector */
    o.sectors = NULL;
    o.n_sectors = 0;
    o.games = 1;
    o.count = 1;
    assert_int_equal(ma_grade_play(db, p, &o, r2, &err), MA_EMISSING);
    free(r);
    free(r2);
    ma_rulebook_free(s.rb);
    ma_player_free(p);
    ma_database_close(db);
}

/* Sampling is uniform over positions: a statistic of the sampled boards matches its exact value
 * over all positions of the sector, and not the value over canonical entries (what sampling
 * entries without the orbit weight would give). */
static void test_sampling_is_uniform_over_positions(void **state)
{
    (void)state;
    ma_database *db;
    open_fixture(&db, "std-strong");
    ma_error err;
    ma_sector s33 = sec(3, 3, 0, 0);
    const ma_source *src;
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s33, &src, &err), MA_OK);
    /* exact: the share of positions with a symmetry (orbit < 16), by positions and by entries */
    uint64_t positions = 0, sym_positions = 0, canonical = 0, sym_canonical = 0;
    for (uint64_t e = 0; e < ma_source_entries(src); e++) {
        int orbit = ma_source_orbit(src, e);
        if (!orbit)
            continue;
        canonical++;
        positions += (uint64_t)orbit;
        if (orbit < 16) {
            sym_canonical++;
            sym_positions += (uint64_t)orbit;
        }
    }
    assert_int_equal(positions, 2024ull * 1330ull); /* C(24,3) * C(21,3) */
    double p_pos = (double)sym_positions / (double)positions;
    double p_ent = (double)sym_canonical / (double)canonical;
    ma_player *p;
    assert_int_equal(ma_player_create(&p, "random", MA_VARIANT_STD, 1.0, &err), MA_OK);
    seen s = {db, 0, 0, 0, 0, 0, NULL};
    assert_int_equal(ma_rulebook_create(&s.rb, MA_VARIANT_STD, &err), MA_OK);
    const uint64_t N = 40000;
    ma_grade_options o = {.variant = MA_VARIANT_STD, .count = N, .seed = 7, .sectors = &s33,
                          .n_sectors = 1, .on_move = check_move, .ctx = &s};
    ma_grade_result *r = calloc(1, sizeof *r);
    assert_int_equal(ma_grade_play(db, p, &o, r, &err), MA_OK);
    /* every position of 3_3 has a turn (flying), so nothing was redrawn */
    assert_int_equal(r->skipped_no_turn, 0);
    double sd = sqrt(p_pos * (1 - p_pos) / (double)N);
    double got = (double)s.symmetric / (double)N;
    if (fabs(got - p_pos) > 5 * sd)
        fail_msg("symmetric share %.5f, expected %.5f +- %.5f (by entries it would be %.5f)", got,
                 p_pos, 5 * sd, p_ent);
    if (fabs(p_ent - p_pos) > 10 * sd)
        assert_true(fabs(got - p_ent) > 5 * sd);
    /* a point is held by the side to move in 3 of 24 positions on average, whatever the point */
    double sd_pt = sqrt(0.125 * 0.875 / (double)N);
    assert_true(fabs((double)s.on_a1 / (double)N - 0.125) < 5 * sd_pt);
    assert_true(fabs((double)s.on_d2 / (double)N - 0.125) < 5 * sd_pt);
    free(r);
    ma_rulebook_free(s.rb);
    ma_player_free(p);
    ma_database_close(db);
}

/* ---- audit tables and report ---- */

static void test_grade_moves_round_trip_through_the_store(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/grade.sqlite", scratch);
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, path, &err), MA_OK);
    assert_true(ma_audit_schema_version() >= 5); /* grade_runs and grade_moves came with v5 */
    ma_run_info info = {"grade", "0", "x", "h", "c", "/db", "std", "open"};
    int64_t run;
    assert_int_equal(ma_audit_run_begin(a, &info, &run, &err), MA_OK);
    ma_audit_grade_run g = {"ab:material:1", "positions", 7, 3, NULL, 0};
    assert_int_equal(ma_audit_grade_begin(a, run, &g, &err), MA_OK);
    ma_audit_grade_move m[3] = {
        {0, -1, -1, "std_3_3_0_0", "a1/d1", MA_GRADE_FLYING, 3, 3, 40, 2, 1, MA_OUTCOME_WIN, 5, "a1-b2", MA_OUTCOME_DRAW, 0, MA_GRADE_BLUNDER, 0.1},
        {1, -1, -1, "std_3_3_0_0", "a1/d2", MA_GRADE_FLYING, 3, 3, 40, 2, 1, MA_OUTCOME_WIN, 5, "a1-b4", MA_OUTCOME_WIN, 7, MA_GRADE_DEPTH_LOST, 0.1},
        {2, 4, 9, "std_4_3_1_1", "a1/d3", MA_GRADE_PLACEMENT, 5, 4, 20, 20, 0, MA_OUTCOME_DRAW, 0, "g7", MA_OUTCOME_DRAW, 0, MA_GRADE_OPTIMAL, 0.2},
    };
    assert_int_equal(ma_audit_grade_moves_add(a, run, m, 3, &err), MA_OK);
    /* a duplicate seq is refused and the batch rolled back: no half batch */
    assert_int_not_equal(ma_audit_grade_moves_add(a, run, m, 2, &err), MA_OK);
    ma_audit_grade_totals tot = {.graded = 3, .skipped_no_turn = 1, .sectors = "std_3_3_0_0",
                                 .n_sectors = 1, .seconds = 1.5, .message = NULL};
    assert_int_equal(ma_audit_grade_end(a, run, &tot, &err), MA_OK);
    ma_audit_grade_stored gs;
    assert_int_equal(ma_audit_grade_read(a, run, &gs, &err), MA_OK);
    assert_string_equal(gs.player, "ab:material:1");
    assert_string_equal(gs.mode, "positions");
    assert_string_equal(gs.sectors, "std_3_3_0_0");
    assert_string_equal(gs.database, "/db");
    assert_null(gs.message);
    assert_int_equal(gs.seed, 7);
    assert_int_equal(gs.totals.graded, 3);
    assert_int_equal(gs.totals.skipped_no_turn, 1);
    assert_int_equal(gs.totals.games_mode, 0);
    ma_audit_grade_stored_free(&gs);
    assert_int_equal(ma_audit_grade_read(a, run + 1, &gs, &err), MA_EMISSING);
    ma_grade_tally t;
    assert_int_equal(ma_audit_grade_load(a, run, &t, &err), MA_OK);
    assert_int_equal(t.total.n[MA_GRADE_BLUNDER], 1);
    assert_int_equal(t.total.n[MA_GRADE_DEPTH_LOST], 1);
    assert_int_equal(t.total.n[MA_GRADE_OPTIMAL], 1);
    assert_int_equal(t.total.chances, 2);
    assert_int_equal(t.phase[MA_GRADE_FLYING].n[MA_GRADE_BLUNDER], 1);
    assert_int_equal(t.stones[5][4].n[MA_GRADE_OPTIMAL], 1);
    assert_int_equal(t.value[2][5].n[MA_GRADE_DEPTH_LOST], 1);
    assert_int_equal(t.value[1][0].n[MA_GRADE_OPTIMAL], 1);
    assert_int_equal(ma_audit_grade_load(a, run + 1, &t, &err), MA_EMISSING);
    assert_int_equal(ma_audit_run_end(a, run, "ok", &err), MA_OK);

    /* the report renders what the tally says, as text, JSON and one self-contained HTML */
    assert_int_equal(ma_audit_grade_load(a, run, &t, &err), MA_OK);
    ma_grade_report_info ri = {.player = "ab:material:1", .database = "/db<x>", .variant = "std",
                               .format = "open", .mode = "positions", .seed = 7, .requested = 3,
                               .n_sectors = 1, .status = "ok", .run_id = run};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ma_grade_report_text(f, &ri, &t);
    fclose(f);
    assert_non_null(strstr(buf, "flying"));
    assert_non_null(strstr(buf, "33.3%"));
    free(buf);
    f = open_memstream(&buf, &len);
    assert_int_equal(ma_grade_report_html(f, &ri, &t), 0);
    fclose(f);
    assert_non_null(strstr(buf, "<svg"));
    assert_non_null(strstr(buf, "/db&lt;x&gt;"));
    assert_null(strstr(buf, "<script"));
    /* nothing fetched: no script, link, image, stylesheet import or url() */
    assert_null(strstr(buf, "src="));
    assert_null(strstr(buf, "href="));
    assert_null(strstr(buf, "url("));
    assert_null(strstr(buf, "@import"));
    assert_non_null(strstr(buf, "</html>"));
    free(buf);
    int bad = 0;
    json_t *j = ma_grade_report_json(&ri, &t, &bad);
    assert_int_equal(bad, 0);
    assert_int_equal(json_integer_value(json_object_get(j, "schema_version")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "total"), "blunder")), 1);
    assert_int_equal(json_array_size(json_object_get(j, "by_phase")), 2);
    json_decref(j);
    ma_audit_close(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_specs_parse_and_refuse),
        cmocka_unit_test(test_eval_terms_on_a_hand_counted_position),
        cmocka_unit_test(test_alpha_beta_player_takes_a_win_and_avoids_a_loss),
        cmocka_unit_test(test_player_specs_are_checked_and_random_is_reproducible),
        cmocka_unit_test(test_engine_protocol_round_trip),
        cmocka_unit_test(test_engines_that_break_the_protocol_fail_cleanly),
        cmocka_unit_test(test_classes_and_phases),
        cmocka_unit_test(test_grade_run_on_the_malom_fixture),
        cmocka_unit_test(test_sampling_is_uniform_over_positions),
        cmocka_unit_test(test_grade_moves_round_trip_through_the_store),
    };
    return ma_test_run_group(tests, engine_setup, engine_teardown);
}
