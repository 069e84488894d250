/* Unit tests for reports/render/run_junit: a verify run of the reference producer's 3-stone game as a JUnit
 * report, called on the run engine directly (no CLI): every sector a case; a broken entry fails its
 * sector with class counts, the row and a board; an unusable file is an error and its parents'
 * incomplete results too; carried-over results say so; an interrupted run skips what it never reached
 * and adds a "run" error; an error that stopped the run is the "run" case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verifier/run/run.h"
#include "reports/render/run_junit.h"

typedef struct fixture {
    char dir[256];
    char db[300];
    char store[300];
} fixture;

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_run_junit_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->db, sizeof fx->db, "%s/db", fx->dir);
    snprintf(fx->store, sizeof fx->store, "%s/audit.sqlite", fx->dir);
    if (ma_test_solve_std_game(fx->db, 3) != 0)
        return -1;
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *fx = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    int rc = system(cmd);
    free(fx);
    return rc == 0 ? 0 : -1;
}

/* A scratch copy of the game in fx->dir/name. */
static void copy_db(const fixture *fx, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", fx->dir, name);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", out, fx->db, out);
    assert_int_equal(system(cmd), 0);
}

static ma_vrun_options options(const char *root, const char *store)
{
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = root;
    o.threads = 2;
    o.max_rows = 100;
    o.full_board_draw = 1;
    o.audit_path = store;
    o.tool_version = "test";
    o.git_revision = "test";
    o.host = "unit";
    o.command_line = "test_run_junit";
    return o;
}

static const ma_junit_case *case_of(const ma_junit *j, const char *name)
{
    for (size_t i = 0; i < j->suites[0]->n_cases; i++)
        if (!strcmp(j->suites[0]->cases[i].name, name))
            return &j->suites[0]->cases[i];
    return NULL;
}

static const char *prop(const ma_junit *j, const char *name)
{
    const ma_junit_suite *s = j->suites[0];
    for (size_t i = 0; i < s->n_props; i++)
        if (!strcmp(s->props[i].name, name))
            return s->props[i].value;
    return NULL;
}

/* Runs o, builds the report; returns the run (free it) and fills j. */
/* stop: the test build's stop after that many committed sectors (verifier/run/run.h), 0 none */
static ma_vrun *run_stopping(const ma_vrun_options *o, size_t stop, int want_rc, ma_junit *j)
{
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, o, &err), MA_OK);
    ma_vrun_test_hooks hooks = {.stop_after_sectors = stop};
    ma_vrun_set_test_hooks(r, &hooks);
    int rc = ma_vrun_execute(r, &err);
    assert_int_equal(rc, want_rc);
    assert_int_equal(ma_vrun_junit(j, r, rc && rc != MA_ECANCELED ? err.msg : NULL, &err), MA_OK);
    assert_int_equal(j->n_suites, 1);
    assert_string_equal(j->suites[0]->name, "millaudit.verify");
    return r;
}

static ma_vrun *run_report(const ma_vrun_options *o, int want_rc, ma_junit *j)
{
    return run_stopping(o, 0, want_rc, j);
}

static void test_verified_run_passes(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx->db, NULL);
    ma_junit j;
    ma_vrun *r = run_report(&o, MA_OK, &j);
    ma_junit_totals t = ma_junit_totals_of(&j);
    assert_int_equal(t.tests, 7);
    assert_int_equal(t.failures + t.errors + t.skipped, 0);
    assert_null(case_of(&j, "run"));
    const ma_junit_case *c = case_of(&j, "std_3_3_0_0");
    assert_non_null(c);
    assert_string_equal(c->classname, "millaudit.verify.std");
    assert_true(c->seconds >= 0);
    assert_null(c->out);
    assert_string_equal(prop(&j, "verdict"), "verified");
    assert_string_equal(prop(&j, "mode"), "full");
    assert_string_equal(prop(&j, "format"), "open");
    assert_string_equal(prop(&j, "run_id"), "");
    assert_string_equal(j.suites[0]->hostname, "unit");
    ma_junit_free(&j);
    ma_vrun_free(r);
}

static void test_broken_entry_fails_its_sector(void **state)
{
    fixture *fx = *state;
    char db[400], path[500];
    copy_db(fx, "broken", db, sizeof db);
    /* entry 0 of std_1_1_2_2 (win 19, docs/format.md: the body starts at byte 128) becomes loss 2 */
    snprintf(path, sizeof path, "%s/std_1_1_2_2.mdb", db);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 128, SEEK_SET), 0);
    const unsigned char word[2] = {0x02, 0x40};
    assert_int_equal(fwrite(word, 1, 2, f), 2);
    assert_int_equal(fclose(f), 0);
    ma_vrun_options o = options(db, NULL);
    ma_junit j;
    /* the body no longer matches the digest its producer recorded (docs/format.md §5.1): damage,
     * the first case, and the sector is not checked (never a failure of the solver) */
    ma_vrun *r = run_report(&o, MA_OK, &j);
    assert_string_equal(j.suites[0]->cases[0].classname, "millaudit.verify.integrity");
    assert_string_equal(j.suites[0]->cases[0].name, "std_1_1_2_2.mdb");
    assert_string_equal(j.suites[0]->cases[0].type, "body-digest-mismatch");
    assert_int_equal(j.suites[0]->cases[0].outcome, MA_JUNIT_ERROR);
    /* the damaged file is the one red line: its sector, not checked, is skipped, not a second error */
    const ma_junit_case *c = case_of(&j, "std_1_1_2_2");
    assert_int_equal(c->outcome, MA_JUNIT_SKIPPED);
    assert_string_equal(c->type, "damaged");
    assert_int_equal(ma_junit_totals_of(&j).failures, 0);
    assert_int_equal(ma_junit_totals_of(&j).errors, 1);
    assert_string_equal(prop(&j, "verdict"), "damaged");
    ma_junit_free(&j);
    ma_vrun_free(r);
    /* the producer's own digest of the wrong value: a fault of the solver, the sector fails */
    assert_int_equal(ma_test_reseal(path), 0);
    r = run_report(&o, MA_OK, &j);
    c = case_of(&j, "std_1_1_2_2");
    assert_int_equal(c->outcome, MA_JUNIT_FAILURE);
    assert_string_equal(c->type, "discrepancies");
    assert_null(strstr(c->message, "the body does not match"));
    assert_non_null(strstr(c->message, "1 discrepancy (1 root, 0 propagated): wrong-outcome=1"));
    assert_non_null(strstr(c->text, "classes: wrong-outcome=1"));
    assert_non_null(strstr(c->text, "entry 0 (offset 128): wrong-outcome, root"));
    assert_non_null(strstr(c->text, "stored loss 2"));
    assert_non_null(strstr(c->text, "a b c d e f g")); /* its board, drawn */
    /* the message is one line: the sector, the counts, the first root and its refuting move */
    assert_null(strchr(c->message, '\n'));
    assert_non_null(strstr(c->message, "std_1_1_2_2: "));
    assert_non_null(strstr(c->message, "; first root: entry 0, position "));
    assert_non_null(strstr(c->message, "stored loss 2"));
    /* every other failing case is a sector with root discrepancies, and only those: a sector whose
     * discrepancies are all propagated from the broken entry passes, naming it (one bug, one red
     * line) */
    int consequences = 0;
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        const ma_junit_case *x = case_of(&j, s->name);
        int own = s->status == MA_SECTOR_DISCREPANCIES && s->roots > 0;
        assert_int_equal(x->outcome == MA_JUNIT_FAILURE, own);
        if (s->status == MA_SECTOR_DISCREPANCIES && !own) {
            consequences++;
            assert_int_equal(x->outcome, MA_JUNIT_PASS);
            assert_non_null(strstr(x->out, "a consequence of std_1_1_2_2"));
        }
    }
    assert_true(consequences > 0); /* the broken entry's parents: the case this test is about */
    assert_string_equal(prop(&j, "verdict"), "discrepancies");
    ma_junit_free(&j);
    ma_vrun_free(r);
}

static void test_unusable_file_is_an_error(void **state)
{
    fixture *fx = *state;
    char db[400], path[500];
    copy_db(fx, "fifo", db, sizeof db);
    snprintf(path, sizeof path, "%s/std_1_1_2_2.mdb", db);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    ma_vrun_options o = options(db, NULL);
    ma_junit j;
    ma_vrun *r = run_report(&o, MA_OK, &j);
    const ma_junit_case *c = case_of(&j, "std_1_1_2_2");
    assert_int_equal(c->outcome, MA_JUNIT_ERROR);
    assert_string_equal(c->type, "unusable");
    assert_non_null(strstr(c->message, "FIFO"));
    assert_int_equal(c->seconds < 0, 1);
    size_t incomplete = 0;
    for (size_t i = 0; i < j.suites[0]->n_cases; i++) {
        const ma_junit_case *x = &j.suites[0]->cases[i];
        if (x->type && !strcmp(x->type, "incomplete")) {
            incomplete++;
            assert_int_equal(x->outcome, MA_JUNIT_ERROR);
        }
    }
    assert_true(incomplete >= 1); /* the parent that needed it */
    assert_null(case_of(&j, "run")); /* explained by the sectors' own cases */
    ma_junit_free(&j);
    ma_vrun_free(r);
}

static void test_carried_over_and_interrupted(void **state)
{
    fixture *fx = *state;
    char db[400], store[500];
    copy_db(fx, "carry", db, sizeof db);
    snprintf(store, sizeof store, "%s/carry.sqlite", fx->dir);
    ma_vrun_options o = options(db, store);
    ma_junit j;
    ma_vrun *r = run_report(&o, MA_OK, &j);
    ma_junit_free(&j);
    ma_vrun_free(r);
    o.mode = MA_VRUN_INCREMENTAL;
    r = run_report(&o, MA_OK, &j);
    for (size_t i = 0; i < j.suites[0]->n_cases; i++) {
        const ma_junit_case *x = &j.suites[0]->cases[i];
        assert_int_equal(x->outcome, MA_JUNIT_PASS);
        assert_string_equal(x->out, "result carried over from run 1 (inputs unchanged)");
    }
    assert_string_equal(prop(&j, "run_id"), "2");
    assert_string_equal(prop(&j, "mode"), "incremental");
    ma_junit_free(&j);
    ma_vrun_free(r);
    /* stopped before the first sector: everything skipped, the run an error */
    volatile sig_atomic_t stop = SIGINT;
    o = options(db, NULL);
    o.cancel = &stop;
    r = run_report(&o, MA_ECANCELED, &j);
    ma_junit_totals t = ma_junit_totals_of(&j);
    assert_int_equal(t.tests, 8);
    assert_int_equal(t.skipped, 7);
    const ma_junit_case *run = case_of(&j, "run");
    assert_non_null(run);
    assert_int_equal(run->outcome, MA_JUNIT_ERROR);
    assert_string_equal(run->type, "interrupted");
    assert_string_equal(case_of(&j, "std_3_3_0_0")->message, "not checked: the run was interrupted before this sector");
    ma_junit_free(&j);
    ma_vrun_free(r);
    /* stopped in the middle: what it checked passes, what it never reached is skipped, never passed */
    o = options(db, NULL);
    r = run_stopping(&o, 2, MA_ECANCELED, &j);
    t = ma_junit_totals_of(&j);
    uint64_t not_checked = ma_vrun_totals_of(r)->sectors_not_checked;
    assert_true(not_checked > 0 && not_checked <= 5);
    assert_int_equal(t.skipped, not_checked);
    size_t passed = 0;
    for (size_t i = 0; i < j.suites[0]->n_cases; i++)
        passed += j.suites[0]->cases[i].outcome == MA_JUNIT_PASS;
    assert_int_equal(passed, 7 - not_checked);
    ma_junit_free(&j);
    ma_vrun_free(r);
}

static void test_stopped_run(void **state)
{
    fixture *fx = *state;
    char root[400];
    snprintf(root, sizeof root, "%s/nowhere", fx->dir);
    ma_vrun_options o = options(root, NULL);
    ma_junit j;
    ma_vrun *r = run_report(&o, MA_EMISSING, &j);
    assert_int_equal(j.suites[0]->n_cases, 1);
    const ma_junit_case *c = case_of(&j, "run");
    assert_int_equal(c->outcome, MA_JUNIT_ERROR);
    assert_string_equal(c->type, "stopped");
    assert_non_null(strstr(c->message, "nowhere"));
    ma_junit_free(&j);
    ma_vrun_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verified_run_passes),
        cmocka_unit_test(test_broken_entry_fails_its_sector),
        cmocka_unit_test(test_unusable_file_is_an_error),
        cmocka_unit_test(test_carried_over_and_interrupted),
        cmocka_unit_test(test_stopped_run),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
