/* The game engines through the public API only (millaudit/game.h): the opening proof of the whole
 * 3-stone std game, whose start value must be the one the producer printed when it solved the
 * game (`millaudit solve`, an independent program: the checker shares nothing with it), grading a
 * player's moves with the run recorded and read back from the store, and the failures: an absent
 * movement sector leaves the value unproven and is named, an absent --sector is refused naming
 * it, a variant without a finite placement tree is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "millaudit.h"

typedef struct fixture {
    char dir[256];     /* scratch directory */
    char db[300];      /* dir/db: the solved 3-stone std game */
    char start[64];    /* what the producer printed for the start sector, e.g. "win in 23" */
} fixture;

static const char *binary(void)
{
    static char buf[1200];
    const char *bin = getenv("MILLAUDIT_BIN");
    if (bin)
        return bin;
    snprintf(buf, sizeof buf, "%s/millaudit", getenv("MA_BUILD_DIR") ? getenv("MA_BUILD_DIR") : ".");
    return buf;
}

/* Solves the 3-stone std game with the producer and keeps its line "start std_0_0_3_3: <value>". */
static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ma-api-game-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/db", f->dir);
    char cmd[1600], line[512];
    snprintf(cmd, sizeof cmd, "'%s' solve --variant std --stones 3 --out '%s'", binary(), f->db);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    while (fgets(line, sizeof line, p))
        if (sscanf(line, "start std_0_0_3_3: %63[^\n]", f->start) == 1)
            break;
    while (fgets(line, sizeof line, p))
        ;
    assert_int_equal(pclose(p), 0);
    assert_true(f->start[0]);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* A copy of the database without one sector file, in dir/name. */
static void copy_without(const fixture *f, const char *name, const char *sector, char *out, size_t len)
{
    char cmd[1200];
    snprintf(out, len, "%s/%s", f->dir, name);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s' && rm '%s/%s.mdb'", f->db, out, out, sector);
    assert_int_equal(system(cmd), 0);
}

static void test_opening_proves_the_start_value_the_producer_printed(void **state)
{
    fixture *f = *state;
    char store[300];
    snprintf(store, sizeof store, "%s/audit.sqlite", f->dir);
    ma_opening_run_options o = {.database = f->db, .variant = MA_VARIANT_STD, .stones = 3,
                                .audit_path = store};
    ma_opening_proof *p = NULL;
    ma_error err;
    assert_int_equal(ma_opening_run(&p, &o, &err), MA_OK);
    assert_non_null(p);
    assert_true(ma_opening_proof_searched(p));
    assert_int_equal(ma_opening_proof_status(p), MA_OPENING_PROVEN);
    ma_value v = ma_opening_proof_value(p), lo, hi;
    char proven[64];
    snprintf(proven, sizeof proven, "%s in %d", ma_outcome_name(v.outcome), (int)v.depth);
    assert_string_equal(proven, f->start); /* the producer's "win in 23" */
    ma_opening_proof_bounds(p, &lo, &hi);
    assert_int_equal(lo.outcome, v.outcome);
    assert_int_equal(hi.depth, v.depth);
    assert_int_equal(ma_opening_proof_discrepancies(p), 0);
    assert_non_null(ma_opening_proof_stored_start(p)); /* the placement sector is there to compare */
    assert_null(ma_opening_proof_warning(p));
    assert_null(ma_opening_proof_store_error(p));
    assert_true(ma_opening_proof_run_id(p) >= 1);
    assert_int_equal(ma_result_exit_code(ma_opening_proof_result(p)), MA_EXIT_OK);
    ma_opening_proof_free(p);
}

static void test_opening_without_its_movement_sector_is_unproven_and_says_which(void **state)
{
    fixture *f = *state;
    char db[400];
    copy_without(f, "no-leaves", "std_3_3_0_0", db, sizeof db);
    ma_opening_run_options o = {.database = db, .variant = MA_VARIANT_STD, .stones = 3};
    ma_opening_proof *p = NULL;
    ma_error err;
    assert_int_equal(ma_opening_run(&p, &o, &err), MA_OK);
    assert_int_equal(ma_opening_proof_status(p), MA_OPENING_UNPROVEN);
    const char *why = ma_opening_proof_warning(p);
    assert_non_null(why);
    assert_non_null(strstr(why, "std_3_3_0_0"));
    assert_int_equal(ma_opening_proof_result(p), ma_result_of_verdict(MA_VERDICT_INCOMPLETE, 0));
    assert_int_equal(ma_result_exit_code(ma_opening_proof_result(p)), MA_EXIT_BAD_INPUT);
    ma_opening_proof_free(p);
}

static void test_opening_refuses_what_the_rules_refute(void **state)
{
    fixture *f = *state;
    ma_opening_run_options o = {.database = f->db, .variant = MA_VARIANT_LASK, .stones = 3};
    ma_opening_proof *p = NULL;
    ma_error err;
    assert_int_equal(ma_opening_run(&p, &o, &err), MA_EUSAGE);
    assert_non_null(strstr(err.msg, "lask"));
    assert_false(ma_opening_proof_searched(p));
    assert_int_equal(ma_result_exit_code(ma_opening_proof_result(p)), MA_EXIT_USAGE);
    ma_opening_proof_free(p);
    o = (ma_opening_run_options){.database = f->db, .variant = MA_VARIANT_STD, .stones = 3,
                                 .only_sectors = "std_3_3_0_0,4_4_x"};
    assert_int_equal(ma_opening_run(&p, &o, &err), MA_EUSAGE);
    /* the library's words name the options field; ma_render_option_words gives the command's */
    assert_non_null(strstr(err.msg, "only_sectors: "));
    assert_null(strstr(err.msg, "--"));
    char words[600];
    ma_render_option_words(err.msg, words, sizeof words);
    assert_int_equal(strncmp(words, "--only-sectors: ", 16), 0);
    assert_string_equal(words + 16, err.msg + 14);
    ma_opening_proof_free(p);
}

static void test_grading_is_recorded_and_reads_back_alike(void **state)
{
    fixture *f = *state;
    char store[300];
    snprintf(store, sizeof store, "%s/grade.sqlite", f->dir);
    ma_grade_run_options o = {.database = f->db, .player = "ab:material:2", .count = 12, .seed = 5,
                              .audit_path = store};
    ma_grading *g = NULL;
    ma_error err;
    assert_int_equal(ma_grade_run(&g, &o, &err), MA_OK);
    assert_int_equal(ma_grading_result(g), MA_OK);
    assert_true(ma_grading_reportable(g));
    assert_int_equal(ma_grading_notes(g), 0);
    assert_int_equal(ma_grading_moves(g), 12);
    uint64_t opt, lost, blunders;
    ma_grading_classes(g, &opt, &lost, &blunders);
    assert_int_equal(opt + lost + blunders, 12);
    int64_t run = ma_grading_run_id(g);
    assert_true(run >= 1);

    /* the same seed gives the same positions and, for this deterministic player, the same moves */
    ma_grading *again = NULL;
    o.audit_path = NULL;
    assert_int_equal(ma_grade_run(&again, &o, &err), MA_OK);
    uint64_t opt2, lost2, blunders2;
    ma_grading_classes(again, &opt2, &lost2, &blunders2);
    assert_int_equal(opt2, opt);
    assert_int_equal(lost2, lost);
    assert_int_equal(blunders2, blunders);
    ma_grading_free(again);

    /* the stored run, tallied from its recorded moves */
    ma_grading *stored = NULL;
    assert_int_equal(ma_grading_load(&stored, store, run, &err), MA_OK);
    ma_grading_classes(stored, &opt2, &lost2, &blunders2);
    assert_int_equal(opt2, opt);
    assert_int_equal(lost2, lost);
    assert_int_equal(blunders2, blunders);
    ma_grading_free(stored);
    assert_int_not_equal(ma_grading_load(&stored, store, run + 100, &err), MA_OK);
    assert_int_equal(ma_result_exit_code(ma_grading_result(stored)), MA_EXIT_BAD_INPUT);
    ma_grading_free(stored);
    ma_grading_free(g);
}

static void test_grading_an_absent_sector_is_refused_naming_it(void **state)
{
    fixture *f = *state;
    ma_grade_sectors pick = {0};
    ma_error err;
    assert_int_equal(ma_grade_sectors_add(&pick, "std_5_5_0_0", &err), MA_OK);
    assert_int_equal(pick.n, 1);
    assert_int_equal(pick.variant, MA_VARIANT_STD);
    assert_int_equal(ma_grade_sectors_add(&pick, "mora_3_3_0_0", &err), MA_EUSAGE);
    ma_grade_run_options o = {.database = f->db, .player = "random", .count = 3, .sectors = &pick};
    ma_grading *g = NULL;
    assert_int_equal(ma_grade_run(&g, &o, &err), MA_EUSAGE);
    assert_non_null(strstr(err.msg, "std_5_5_0_0"));
    assert_false(ma_grading_reportable(g));
    assert_int_equal(ma_grading_moves(g), 0);
    assert_int_equal(ma_result_exit_code(ma_grading_result(g)), MA_EXIT_USAGE);
    ma_grading_free(g);

    /* no player is refused before anything is opened */
    o.player = NULL;
    assert_int_equal(ma_grade_run(&g, &o, &err), MA_EUSAGE);
    assert_int_equal(ma_result_exit_code(ma_grading_result(g)), MA_EXIT_USAGE);
    ma_grading_free(g);

    /* a sector whose successor is absent cannot be graded, and the message says which */
    char db[400];
    copy_without(f, "no-successor", "std_3_3_0_0", db, sizeof db);
    ma_grade_sectors placing = {0};
    assert_int_equal(ma_grade_sectors_add(&placing, "2_3_1_0", &err), MA_OK);
    o = (ma_grade_run_options){.database = db, .player = "random", .count = 3, .sectors = &placing};
    assert_int_equal(ma_grade_run(&g, &o, &err), MA_EUSAGE);
    assert_non_null(strstr(err.msg, "std_3_3_0_0"));
    ma_grading_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opening_proves_the_start_value_the_producer_printed),
        cmocka_unit_test(test_opening_without_its_movement_sector_is_unproven_and_says_which),
        cmocka_unit_test(test_opening_refuses_what_the_rules_refute),
        cmocka_unit_test(test_grading_is_recorded_and_reads_back_alike),
        cmocka_unit_test(test_grading_an_absent_sector_is_refused_naming_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
