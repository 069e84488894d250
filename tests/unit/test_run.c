/* Unit tests for verifier/run, the run engine, called directly (no CLI): phases and order,
 * interruption, resume decisions (only sectors without a committed result are checked again) and
 * incremental decisions (a changed child makes its parents be checked again, even though their
 * own bytes did not change). The database is the reference producer's whole 3-stone standard game,
 * read only through its files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/rules.h"
#include "verifier/run.h"

typedef struct fixture {
    char dir[256];   /* scratch */
    char db[300];    /* the 3-stone game */
    char store[300];
} fixture;

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_run_XXXXXX");
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

static int fresh_store(void **state)
{
    fixture *fx = *state;
    char p[400];
    unlink(fx->store);
    snprintf(p, sizeof p, "%s-wal", fx->store);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", fx->store);
    unlink(p);
    return 0;
}

static ma_vrun_options options(const fixture *fx, const char *store, ma_vrun_mode mode)
{
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = fx->db;
    o.threads = 2;
    o.max_rows = 100;
    o.full_board_draw = 1;
    o.audit_path = store;
    o.mode = mode;
    o.tool_version = "test";
    o.git_revision = "test";
    o.host = "unit";
    o.command_line = "test_run";
    return o;
}

static ma_vrun *run_ok(const ma_vrun_options *o)
{
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, o, &err), MA_OK);
    int rc = ma_vrun_execute(r, &err);
    if (rc)
        fail_msg("run failed: %s", err.msg);
    return r;
}

static const ma_vrun_sector *find(const ma_vrun *r, const char *name)
{
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++)
        if (!strcmp(ma_vrun_sector_at(r, i)->name, name))
            return ma_vrun_sector_at(r, i);
    return NULL;
}

static void sql(const char *path, const char *q)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", q, msg ? msg : "?");
    sqlite3_close(db);
}

static void test_whole_run_checks_children_first(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, NULL, MA_VRUN_FULL);
    ma_vrun *r = run_ok(&o);
    assert_string_equal(ma_vrun_phase(r), "done");
    assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_VERIFIED);
    assert_int_equal(ma_vrun_exit_code(r), MA_EXIT_OK);
    assert_int_equal(ma_vrun_format(r), MA_FORMAT_OPEN);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_int_equal(t->sectors, 7);
    assert_int_equal(t->sectors_checked, 7);
    assert_true(t->entries > 0 && t->verified == t->entries);
    /* every successor sector is checked before its parent, except the parent's twin or itself */
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        ma_vrules rules;
        assert_int_equal(ma_vrules_init(&rules, s->variant, s->sector, NULL), MA_OK);
        for (int k = 0; k < MA_TURN_KINDS; k++) {
            if (!rules.succ_exists[k] || ma_sector_equal(rules.succ[k], s->sector))
                continue;
            for (size_t j = i + 1; j < ma_vrun_sector_count(r); j++) {
                const ma_vrun_sector *later = ma_vrun_sector_at(r, j);
                if (!ma_sector_equal(later->sector, rules.succ[k]))
                    continue;
                /* a later child is only allowed when it is a twin: it has s as a successor */
                ma_vrules back;
                int twin = 0;
                assert_int_equal(ma_vrules_init(&back, later->variant, later->sector, NULL), MA_OK);
                for (int m = 0; m < MA_TURN_KINDS; m++)
                    twin |= back.succ_exists[m] && ma_sector_equal(back.succ[m], s->sector);
                assert_true(twin);
            }
        }
    }
    ma_vrun_free(r);
}

static void test_bad_root_fails_in_scan(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, NULL, MA_VRUN_FULL);
    char missing[400];
    snprintf(missing, sizeof missing, "%s/nothing", fx->dir);
    o.root = missing;
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EMISSING);
    assert_string_equal(ma_vrun_phase(r), "scan");
    assert_non_null(strstr(err.msg, "No such file or directory"));
    ma_vrun_free(r);
}

static void test_options_that_contradict_are_refused(void **state)
{
    fixture *fx = *state;
    ma_vrun *r = NULL;
    ma_error err;
    ma_vrun_options o = options(fx, NULL, MA_VRUN_RESUME);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "--resume needs --audit"));
    o = options(fx, NULL, MA_VRUN_INCREMENTAL);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    o = options(fx, NULL, MA_VRUN_FULL);
    o.shard_count = 2;
    o.shard_index = 2;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    o = options(fx, NULL, MA_VRUN_FULL);
    static const char *const bad[] = {"9_9_9_9"};
    o.sectors = bad;
    o.n_sectors = 1;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EINVAL); /* a usage error: exit 2 */
    assert_non_null(strstr(err.msg, "not a valid std sector"));
    ma_vrun_free(r);
}

static void test_cancel_records_an_interrupted_run(void **state)
{
    fixture *fx = *state;
    volatile sig_atomic_t stop = SIGINT;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    o.cancel = &stop;
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_INTERRUPTED);
    int64_t id = ma_vrun_id(r);
    assert_true(id > 0);
    ma_vrun_free(r);
    /* a resume finds it and checks everything, since nothing was committed */
    o = options(fx, fx->store, MA_VRUN_RESUME);
    r = run_ok(&o);
    assert_int_equal(ma_vrun_resumed_from(r), id);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_checked, 7);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_carried, 0);
    ma_vrun_free(r);
}

static void test_resume_checks_only_sectors_without_a_result(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun *full = run_ok(&o);
    const ma_vrun_totals full_t = *ma_vrun_totals_of(full);
    int64_t id = ma_vrun_id(full);
    char digest[65];
    snprintf(digest, sizeof digest, "%s", find(full, "std_2_3_1_0")->digest);
    ma_vrun_free(full);
    /* what a kill -9 after the first sectors leaves: no end, results of some units only */
    char q[400];
    snprintf(q, sizeof q,
             "PRAGMA foreign_keys=ON; UPDATE runs SET ended_at = NULL, status = NULL WHERE id = %lld;"
             "DELETE FROM sector_results WHERE run_id = %lld AND sector IN ('std_0_0_3_3', "
             "'std_0_1_3_2', 'std_1_1_2_2');",
             (long long)id, (long long)id);
    sql(fx->store, q);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    ma_vrun *r = run_ok(&o);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_int_equal(ma_vrun_resumed_from(r), id);
    assert_int_equal(t->sectors_checked, 3);
    assert_int_equal(t->sectors_carried, 4);
    assert_int_equal(t->entries, full_t.entries);
    assert_int_equal(t->verified, full_t.verified);
    assert_int_equal(t->discrepancies, 0);
    const ma_vrun_sector *c = find(r, "std_2_3_1_0");
    assert_true(c->carried && c->from_run == id);
    assert_string_equal(c->digest, digest); /* the derived digest travels with the result */
    assert_false(find(r, "std_0_0_3_3")->carried);
    ma_vrun_free(r);
    /* the interrupted run is marked resumed and the new one finished: nothing is left to resume */
    ma_error err;
    o = options(fx, fx->store, MA_VRUN_RESUME);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "no unfinished verify run"));
    ma_vrun_free(r);
}

static void test_resume_refuses_another_tool_version(void **state)
{
    fixture *fx = *state;
    volatile sig_atomic_t stop = SIGTERM;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    o.cancel = &stop;
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    ma_vrun_free(r);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    o.tool_version = "other";
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "results of another checker are not carried over"));
    ma_vrun_free(r);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    o.max_rows = 7; /* other result-affecting options: another fingerprint */
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "used other options"));
    ma_vrun_free(r);
}

/* Flips the depth of the first win in depth >= 3 of a sector file; returns its entry. */
static uint64_t corrupt_one_win(const char *path)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    unsigned char w[2];
    uint64_t e = 0;
    assert_int_equal(fseek(f, 128, SEEK_SET), 0);
    while (fread(w, 1, 2, f) == 2) {
        unsigned word = w[0] | w[1] << 8;
        if ((word >> 14) == 3 && (word & 0x3FFF) >= 3) {
            word += 2; /* win in d+2: still a well-formed word */
            w[0] = (unsigned char)(word & 0xFF);
            w[1] = (unsigned char)(word >> 8);
            assert_int_equal(fseek(f, 128 + 2 * (long)e, SEEK_SET), 0);
            assert_int_equal(fwrite(w, 1, 2, f), 2);
            fclose(f);
            return e;
        }
        e++;
    }
    fail_msg("no win of depth >= 3 in %s", path);
    return 0;
}

static void test_incremental_rechecks_a_changed_child_and_its_parents(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun_free(run_ok(&o));
    /* unchanged: everything is carried over, nothing checked */
    o = options(fx, fx->store, MA_VRUN_INCREMENTAL);
    ma_vrun *r = run_ok(&o);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_checked, 0);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_carried, 7);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_VERIFIED);
    ma_vrun_free(r);
    /* change one entry of std_3_3_0_0: it and exactly the sectors that read it are checked */
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    uint64_t entry = corrupt_one_win(path);
    r = run_ok(&o);
    ma_sector changed = {3, 3, 0, 0};
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        ma_vrules rules;
        assert_int_equal(ma_vrules_init(&rules, s->variant, s->sector, NULL), MA_OK);
        int reads = ma_sector_equal(s->sector, changed);
        for (int k = 0; k < MA_TURN_KINDS; k++)
            reads |= rules.succ_exists[k] && ma_sector_equal(rules.succ[k], changed);
        assert_int_equal(s->carried, !reads);
    }
    const ma_vrun_sector *s = find(r, "std_3_3_0_0");
    assert_int_equal(s->discrepancies, 1);
    assert_int_equal(s->rows[0].entry, entry);
    assert_int_equal(s->rows[0].cls, MA_DISC_WRONG_DEPTH);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_DISCREPANCIES);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}

/* on_step context: after the check of `after`, corrupt `victim` in place (same inode, same size). */
typedef struct rewrite_step {
    const char *after;
    char victim[400];
    int fired;
} rewrite_step;

static void rewrite_on_step(void *ctx, const char *step, const char *sector)
{
    rewrite_step *w = ctx;
    if (w->fired || strcmp(step, "checked") || !sector || strcmp(sector, w->after))
        return;
    w->fired = 1;
    corrupt_one_win(w->victim);
}

/* The bytes hashed are the bytes checked: a successor file rewritten in place after its parent's
 * check read it withdraws the parent (never verified, never carried over), with and without a
 * store; the next incremental run checks what is on disk. */
static void test_successor_rewritten_during_the_check_is_withdrawn(void **state)
{
    fixture *fx = *state;
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    for (int with_store = 1; with_store >= 0; with_store--) {
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
        assert_int_equal(system(cmd), 0);
        rewrite_step w = {"std_2_3_1_0", "", 0};
        snprintf(w.victim, sizeof w.victim, "%s", path);
        ma_vrun_options o = options(fx, with_store ? fx->store : NULL, MA_VRUN_FULL);
        o.on_step = rewrite_on_step;
        o.step_ctx = &w;
        ma_vrun *r = run_ok(&o);
        assert_true(w.fired);
        const ma_vrun_sector *parent = find(r, "std_2_3_1_0");
        assert_int_equal(parent->status, MA_SECTOR_UNUSABLE);
        assert_int_equal(parent->verified, 0);
        assert_non_null(strstr(parent->message, "std_3_3_0_0.mdb: sector std_3_3_0_0: offset 0: "
                                                "changed while being checked"));
        /* the child's own check ended before the change: its result stands */
        assert_int_equal(find(r, "std_3_3_0_0")->status, MA_SECTOR_OK);
        assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_INCOMPLETE);
        assert_int_equal(ma_vrun_exit_code(r), 3);
        ma_vrun_free(r);
    }
    /* next night: the changed child and its parent are checked, not carried; the fault is found */
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_INCREMENTAL);
    ma_vrun *r = run_ok(&o);
    assert_int_equal(find(r, "std_3_3_0_0")->carried, 0);
    assert_int_equal(find(r, "std_2_3_1_0")->carried, 0);
    assert_int_equal(find(r, "std_3_3_0_0")->discrepancies, 1);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VRUN_DISCREPANCIES);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_run_checks_children_first),
        cmocka_unit_test(test_bad_root_fails_in_scan),
        cmocka_unit_test(test_options_that_contradict_are_refused),
        cmocka_unit_test_setup(test_cancel_records_an_interrupted_run, fresh_store),
        cmocka_unit_test_setup(test_resume_checks_only_sectors_without_a_result, fresh_store),
        cmocka_unit_test_setup(test_resume_refuses_another_tool_version, fresh_store),
        cmocka_unit_test_setup(test_incremental_rechecks_a_changed_child_and_its_parents, fresh_store),
        cmocka_unit_test_setup(test_successor_rewritten_during_the_check_is_withdrawn, fresh_store),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
