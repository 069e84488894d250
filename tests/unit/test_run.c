/* Unit tests for verifier/run/run, the run engine, called directly (no CLI): phases and order,
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
#include <sys/wait.h>
#include <unistd.h>

#include "checksums/sha256.h"
#include "reports/store/audit.h"
#include "reports/store/audit_inventory.h"
#include "verifier/run/inventory.h"
#include "verifier/check/rules.h"
#include "indexer/open_index.h"
#include "indexer/position.h"
#include "verifier/run/run.h"
#include "verifier/run/run_sector.h"

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

/* ma_vrun_create with the test build's stop after `stop` committed sectors (verifier/run/run.h). */
static int create_stopping(ma_vrun **r, const ma_vrun_options *o, size_t stop, ma_error *err)
{
    int rc = ma_vrun_create(r, o, err);
    ma_vrun_test_hooks h = {.stop_after_sectors = stop};
    if (rc == MA_OK)
        ma_vrun_set_test_hooks(*r, &h);
    return rc;
}

static ma_vrun *run_ok_with(const ma_vrun_options *o, const ma_vrun_test_hooks *hooks)
{
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, o, &err), MA_OK);
    ma_vrun_set_test_hooks(r, hooks);
    int rc = ma_vrun_execute(r, &err);
    if (rc)
        fail_msg("run failed: %s", err.msg);
    return r;
}

static ma_vrun *run_ok(const ma_vrun_options *o)
{
    return run_ok_with(o, NULL);
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

static int64_t sql_int(const char *path, const char *q)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
    int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The id of a process that existed and is gone (a child reaped). */
static pid_t dead_pid(void)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0)
        _exit(0);
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    return p;
}

/* The stored successor sector of each sector of the standard 3-stone game, written out by hand from
 * the sector arithmetic (docs/verification-theory.md), not taken from verifier/check/rules, which the
 * engine itself plans with: a placement leads to (B, W+1, BF, WF-1) after the colours swap, a move
 * to (B, W, BF, WF). A mill in this game leaves the opponent fewer than three stones, a terminal
 * position with no stored sector, so each sector has exactly one stored successor: a chain, with
 * std_3_3_0_0 (nothing left in hand) its own successor. */
static const char *stored_successor(const char *sector)
{
    static const char *const table[][2] = {
        {"std_0_0_3_3", "std_0_1_3_2"}, {"std_0_1_3_2", "std_1_1_2_2"}, {"std_1_1_2_2", "std_1_2_2_1"},
        {"std_1_2_2_1", "std_2_2_1_1"}, {"std_2_2_1_1", "std_2_3_1_0"}, {"std_2_3_1_0", "std_3_3_0_0"},
        {"std_3_3_0_0", "std_3_3_0_0"},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (!strcmp(table[i][0], sector))
            return table[i][1];
    fail_msg("sector %s is not in the 3-stone game's table", sector);
    return NULL;
}

static void test_whole_run_checks_children_first(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, NULL, MA_VRUN_FULL);
    ma_vrun *r = run_ok(&o);
    assert_string_equal(ma_vrun_phase(r), "done");
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    assert_false(ma_vrun_record_failed(r));
    assert_int_equal(ma_vrun_format(r), MA_FORMAT_OPEN);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_int_equal(t->sectors, 7);
    assert_int_equal(t->sectors_checked, 7);
    assert_true(t->entries > 0 && t->verified == t->entries);
    /* every successor sector is checked before its parent, except itself (hand table above, not
     * the rules the engine plans with) */
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const char *succ = stored_successor(ma_vrun_sector_at(r, i)->name);
        assert_non_null(succ);
        if (!strcmp(succ, ma_vrun_sector_at(r, i)->name))
            continue;
        int before = 0;
        for (size_t j = 0; j < i; j++)
            before |= !strcmp(ma_vrun_sector_at(r, j)->name, succ);
        if (!before)
            fail_msg("%s checked before its successor %s", ma_vrun_sector_at(r, i)->name, succ);
    }
    /* so the one order is the chain itself, from the sector with every stone on the board */
    static const char *const order[] = {"std_3_3_0_0", "std_2_3_1_0", "std_2_2_1_1", "std_1_2_2_1",
                                        "std_1_1_2_2", "std_0_1_3_2", "std_0_0_3_3"};
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(ma_vrun_sector_at(r, i)->name, order[i]);
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
    assert_non_null(strstr(err.msg, "a resumed run needs an audit store (audit_path"));
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
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_INTERRUPTED);
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
             "PRAGMA foreign_keys=ON; UPDATE runs SET ended_at = NULL, status = NULL, pid = %lld WHERE id = %lld;"
             "DELETE FROM sector_results WHERE run_id = %lld AND sector IN ('std_0_0_3_3', "
             "'std_0_1_3_2', 'std_1_1_2_2');",
             (long long)dead_pid(), (long long)id, (long long)id); /* the killed process is gone */
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
    /* the interrupted run was claimed and the new one finished: nothing is left to resume */
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


/* Issue 21, item 4: a run stopped after K sectors says so for good. Its unreached sectors are
 * "not checked" (never "ok"), its totals count the whole plan, and a resume leaves its verdict
 * alone while naming the run that continued it. */
static void test_stopped_run_is_interrupted_k_of_n_and_stays_so(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun *full = run_ok(&o);
    const ma_vrun_totals whole = *ma_vrun_totals_of(full);
    ma_vrun_free(full);
    fresh_store(state);
    o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(create_stopping(&r, &o, 3, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_INTERRUPTED);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    uint64_t reached = t->sectors - t->sectors_not_checked;
    assert_true(reached >= 3 && reached < 7);
    assert_int_equal(t->sectors, 7);
    assert_int_equal(t->entries, whole.entries); /* the whole plan */
    assert_true(t->verified < whole.verified);
    size_t not_checked = 0;
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        if (s->status != MA_SECTOR_NOT_CHECKED)
            continue;
        not_checked++;
        assert_string_equal(ma_sector_status_name(s->status), "not-checked");
        assert_true(s->entries > 0);
        assert_int_equal(s->verified, 0);
        assert_int_equal(s->checked, 0);
    }
    assert_int_equal(not_checked, t->sectors_not_checked);
    int64_t id = ma_vrun_id(r);
    ma_vrun_free(r);
    char q[200];
    snprintf(q, sizeof q, "SELECT count(*) FROM sector_results WHERE run_id = %lld", (long long)id);
    assert_int_equal(sql_int(fx->store, q), (int64_t)reached);
    snprintf(q, sizeof q, "SELECT count(*) FROM run_plan WHERE run_id = %lld", (long long)id);
    assert_int_equal(sql_int(fx->store, q), 7);
    snprintf(q, sizeof q, "SELECT planned_entries FROM runs WHERE id = %lld", (long long)id);
    assert_int_equal(sql_int(fx->store, q), (int64_t)whole.entries);

    o = options(fx, fx->store, MA_VRUN_RESUME);
    r = run_ok(&o);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_carried, reached);
    int64_t next = ma_vrun_id(r);
    ma_vrun_free(r);
    /* the stopped run keeps its own verdict and names its continuation */
    snprintf(q, sizeof q, "SELECT status = 'interrupted' AND continued_by = %lld FROM runs WHERE id = %lld",
             (long long)next, (long long)id);
    assert_int_equal(sql_int(fx->store, q), 1);
}

/* Issue 21, item 5: a resume repeats the selection of the run it continues, or is refused as a
 * usage error before anything is recorded; the refused attempt does not claim the run. */
static void test_resume_with_another_selection_is_refused(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(create_stopping(&r, &o, 1, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    int64_t id = ma_vrun_id(r);
    ma_vrun_free(r);
    const char *one[] = {"3_3_0_0"};
    o = options(fx, fx->store, MA_VRUN_RESUME);
    o.sectors = one;
    o.n_sectors = 1;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "repeat the run's selection"));
    ma_vrun_free(r);
    assert_int_equal(sql_int(fx->store, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(sql_int(fx->store, "SELECT count(continued_by) FROM runs"), 0);
    /* a run of named sectors is resumed by the same names, in any order or spelling */
    fresh_store(state);
    const char *two[] = {"std_2_3_1_0", "3_3_0_0"}, *two_again[] = {"3_3_0_0", "2_3_1_0"};
    o = options(fx, fx->store, MA_VRUN_FULL);
    o.sectors = two;
    o.n_sectors = 2;
    assert_int_equal(create_stopping(&r, &o, 1, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    id = ma_vrun_id(r);
    ma_vrun_free(r);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK); /* every sector: refused */
    assert_int_equal(ma_vrun_execute(r, &err), MA_EINVAL);
    ma_vrun_free(r);
    o.sectors = two_again;
    o.n_sectors = 2;
    r = run_ok(&o);
    assert_int_equal(ma_vrun_resumed_from(r), id);
    ma_vrun_free(r);
}

/* Issue 21, item 5: a run still in progress (its process alive on this host) is not claimed. */
static void test_resume_refuses_a_run_in_progress(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(create_stopping(&r, &o, 1, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    ma_vrun_free(r);
    /* as the run looks while it works: no end, this (live) process recorded on this host */
    char q[200];
    snprintf(q, sizeof q, "UPDATE runs SET ended_at = NULL, status = NULL, pid = %lld", (long long)getpid());
    sql(fx->store, q);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "still in progress"));
    ma_vrun_free(r);
    assert_int_equal(sql_int(fx->store, "SELECT count(*) FROM runs"), 1);
    /* once its process is gone it is claimed */
    snprintf(q, sizeof q, "UPDATE runs SET pid = %lld", (long long)dead_pid());
    sql(fx->store, q);
    r = run_ok(&o);
    assert_int_equal(ma_vrun_resumed_from(r), 1);
    ma_vrun_free(r);
    assert_int_equal(sql_int(fx->store, "SELECT status = 'interrupted' AND ended_at IS NOT NULL AND continued_by = 2"
                                        " FROM runs WHERE id = 1"), 1);
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
            /* a value the producer wrote wrong (its digest of it): the solver's fault, not damage */
            assert_int_equal(ma_test_reseal(path), 0);
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
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    ma_vrun_free(r);
    /* change one entry of std_3_3_0_0: it and exactly the sectors that read it are checked */
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    uint64_t entry = corrupt_one_win(path);
    r = run_ok(&o);
    /* the sectors that read it: itself and its one parent (hand table above) */
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        int reads = !strcmp(s->name, "std_3_3_0_0") || !strcmp(stored_successor(s->name), "std_3_3_0_0");
        assert_int_equal(s->carried, !reads);
    }
    assert_int_equal(ma_vrun_totals_of(r)->sectors_checked, 2);
    const ma_vrun_sector *s = find(r, "std_3_3_0_0");
    assert_int_equal(s->discrepancies, 1);
    assert_int_equal(s->rows[0].entry, entry);
    assert_int_equal(s->rows[0].cls, MA_DISC_WRONG_DEPTH);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}


/* The coverage proof (docs/runs.md): a recorded run records every sector file of the database with
 * its header's body digest, and a plan of every sector with its shard, whose digests hold and whose
 * partition is ma_shard_partition's; shards of one database record one inventory and one plan. */
static void test_a_recorded_run_records_its_inventory_and_plan(void **state)
{
    fixture *fx = *state;
    char stores[3][400];
    ma_inventory inv[3];
    for (unsigned i = 0; i < 3; i++) {
        snprintf(stores[i], sizeof stores[i], "%s/inv%u.sqlite", fx->dir, i);
        unlink(stores[i]);
        ma_vrun_options o = options(fx, stores[i], MA_VRUN_FULL);
        if (i) {
            o.shard_index = i - 1;
            o.shard_count = 2;
        }
        ma_vrun *r = run_ok(&o);
        assert_int_equal(ma_vrun_planned_sectors(r), 7);
        int64_t id = ma_vrun_id(r);
        ma_vrun_free(r);
        ma_audit *a;
        ma_error err;
        int recorded = 0;
        assert_int_equal(ma_audit_open_readonly(&a, stores[i], &err), MA_OK);
        assert_int_equal(ma_audit_inventory_read(a, id, &inv[i], &recorded, &err), MA_OK);
        ma_audit_close(a);
        assert_true(recorded);
        assert_int_equal(inv[i].n_files, 7);
        assert_int_equal(inv[i].n_plan, 7);
        assert_true(inv[i].whole);
        assert_int_equal(inv[i].shard_count, i ? 2 : 1);
        for (size_t k = 0; k < inv[i].n_files; k++) {
            assert_non_null(strstr(inv[i].files[k].name, inv[i].files[k].sector));
            assert_int_equal(strncmp(inv[i].files[k].digest, "sha256:", 7), 0);
            assert_true(inv[i].files[k].size > 128);
        }
        if (ma_inventory_verify(&inv[i], stores[i], &err))
            fail_msg("%s", err.msg);
    }
    /* one inventory for all three runs; one plan for the two shards, another for the whole run */
    assert_string_equal(inv[0].inventory_digest, inv[1].inventory_digest);
    assert_string_equal(inv[1].inventory_digest, inv[2].inventory_digest);
    assert_string_equal(inv[1].plan_digest, inv[2].plan_digest);
    assert_string_not_equal(inv[0].plan_digest, inv[1].plan_digest);
    unsigned in_shard[2] = {0, 0};
    for (size_t k = 0; k < inv[1].n_plan; k++)
        in_shard[inv[1].plan[k].shard]++;
    assert_true(in_shard[0] > 0 && in_shard[1] > 0 && in_shard[0] + in_shard[1] == 7);
    /* a file discovery cannot use is in the inventory too, marked unusable: two shards planned
     * with and without it must not look alike */
    char junk[400], store[400];
    snprintf(junk, sizeof junk, "%s/std_junk.mdb", fx->db);
    snprintf(store, sizeof store, "%s/inv-junk.sqlite", fx->dir);
    unlink(store);
    FILE *f = fopen(junk, "w");
    assert_non_null(f);
    fputs("not a sector", f);
    fclose(f);
    ma_vrun_options o = options(fx, store, MA_VRUN_FULL);
    ma_vrun *r = run_ok(&o);
    int64_t id = ma_vrun_id(r);
    ma_vrun_free(r);
    assert_int_equal(unlink(junk), 0);
    ma_audit *a;
    ma_error err;
    int recorded = 0;
    ma_inventory with_junk;
    assert_int_equal(ma_audit_open_readonly(&a, store, &err), MA_OK);
    assert_int_equal(ma_audit_inventory_read(a, id, &with_junk, &recorded, &err), MA_OK);
    ma_audit_close(a);
    assert_int_equal(with_junk.n_files, 8);
    int unusable = 0;
    for (size_t k = 0; k < with_junk.n_files; k++)
        unusable += !strcmp(with_junk.files[k].name, "std_junk.mdb") && !strcmp(with_junk.files[k].digest, "unusable");
    assert_int_equal(unusable, 1);
    assert_string_not_equal(with_junk.inventory_digest, inv[0].inventory_digest);
    ma_inventory_free(&with_junk);
    for (int i = 0; i < 3; i++)
        ma_inventory_free(&inv[i]);
}

/* 7 sectors in 10 shards: shards 7..9 select nothing and are verified shards of 0 sectors (issue
 * 21 item 7), with the whole plan recorded. */
static void test_an_empty_shard_is_verified(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    o.shard_index = 9;
    o.shard_count = 10;
    ma_vrun *r = run_ok(&o);
    assert_int_equal(ma_vrun_sector_count(r), 0);
    assert_int_equal(ma_vrun_planned_sectors(r), 7);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    assert_false(ma_vrun_record_failed(r));
    assert_int_equal(ma_vrun_error_count(r), 0);
    ma_vrun_free(r);
}

/* on_step context: after the check of `after`, corrupt `victim` in place (same inode, same size),
 * or with `same` write it again with the bytes it holds (to a digest, rewritten and back). */
typedef struct rewrite_step {
    const char *after;
    char victim[400];
    int fired;
    int same;
} rewrite_step;

static void rewrite_on_step(void *ctx, const char *step, const char *sector)
{
    rewrite_step *w = ctx;
    if (w->fired || strcmp(step, "checked") || !sector || strcmp(sector, w->after))
        return;
    w->fired = 1;
    if (w->same)
        ma_test_rewrite_same(w->victim);
    else
        corrupt_one_win(w->victim);
}

/* One mapped run (the test hooks' lower budget of 0 maps every unit) with and without a store,
 * `path` (the successor std_3_3_0_0) rewritten after its parent's check (corrupted, or with `same`
 * written back with its own bytes) and restored from `backup` (if non-NULL) before each: the
 * parent is withdrawn, its message holding `why`, and the child's own result stands. */
static void assert_parent_withdrawn(fixture *fx, const char *path, const char *backup, int same,
                                    const char *why)
{
    char cmd[900];
    for (int with_store = 1; with_store >= 0; with_store--) {
        if (backup) {
            snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
            assert_int_equal(system(cmd), 0);
        }
        rewrite_step w = {"std_2_3_1_0", "", 0, same};
        snprintf(w.victim, sizeof w.victim, "%s", path);
        ma_vrun_options o = options(fx, with_store ? fx->store : NULL, MA_VRUN_FULL);
        ma_vrun_test_hooks hooks = {.on_step = rewrite_on_step, .step_ctx = &w,
                                    .lower_private_budget = 1, .private_budget = 0};
        ma_vrun *r = run_ok_with(&o, &hooks);
        assert_true(w.fired);
        const ma_vrun_sector *parent = find(r, "std_2_3_1_0");
        assert_int_equal(parent->status, MA_SECTOR_UNUSABLE);
        assert_int_equal(parent->verified, 0);
        assert_non_null(strstr(parent->message, why));
        /* the child's own check ended before the change: its result stands */
        assert_int_equal(find(r, "std_3_3_0_0")->status, MA_SECTOR_OK);
        assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_INCOMPLETE);
        ma_vrun_free(r);
    }
}

/* The bytes hashed are the bytes checked, on the path of units over the budget (mapped, hashed
 * again after the check): a successor file rewritten in place after its parent's check read it
 * withdraws the parent (never verified, never carried over), with and without a store; the next
 * incremental run checks what is on disk. */
static void test_successor_rewritten_during_the_check_is_withdrawn(void **state)
{
    fixture *fx = *state;
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    assert_parent_withdrawn(fx, path, backup, 0, "std_3_3_0_0.mdb: sector std_3_3_0_0: offset 0: "
                                                 "changed while being checked");
    /* next night: the changed child and its parent are checked, not carried; the fault is found */
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_INCREMENTAL);
    ma_vrun *r = run_ok(&o);
    assert_int_equal(find(r, "std_3_3_0_0")->carried, 0);
    assert_int_equal(find(r, "std_2_3_1_0")->carried, 0);
    assert_int_equal(find(r, "std_3_3_0_0")->discrepancies, 1);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}

/* Mapped, a successor file written during its parent's check and put back to the very bytes it
 * held: every digest matches, so only its stamp (common/fileio.h: its change time moved) tells the
 * run that the check may have read other bytes. The parent is withdrawn, with and without a store,
 * where a re-hash alone verified it (and a wrong file made right during its check was verified). */
static void test_successor_rewritten_and_back_during_the_check_is_withdrawn(void **state)
{
    fixture *fx = *state;
    char path[400];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    assert_parent_withdrawn(fx, path, NULL, 1, "std_3_3_0_0.mdb: sector std_3_3_0_0: offset 0: changed while "
                                               "being checked (written to (its change time moved) since it "
                                               "was mapped");
}

/* Read privately (every unit of this game is within the budget, under one 2 MiB page): the same
 * rewrite, after the parent's check read the child, changes nothing the run says; the check and
 * the digest recorded are of the bytes read, the good ones, and no later unit reads the child
 * again, so the run is verified. The next incremental run checks the bytes now on disk. */
static void test_successor_rewritten_after_its_private_read_keeps_the_bytes_read(void **state)
{
    fixture *fx = *state;
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    uint8_t good[32];
    char good_hex[65];
    size_t len = 0;
    unsigned char *bytes = ma_test_slurp(path, &len);
    assert_non_null(bytes);
    ma_sha256_buffer(good, bytes, len);
    free(bytes);
    ma_sha256_hex(good_hex, good);
    rewrite_step w = {"std_2_3_1_0", "", 0, 0};
    snprintf(w.victim, sizeof w.victim, "%s", path);
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    ma_vrun_test_hooks hooks = {.on_step = rewrite_on_step, .step_ctx = &w};
    ma_vrun *r = run_ok_with(&o, &hooks);
    assert_true(w.fired);
    assert_int_equal(find(r, "std_2_3_1_0")->status, MA_SECTOR_OK);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    int64_t id = ma_vrun_id(r);
    ma_vrun_free(r);
    char q[300];
    snprintf(q, sizeof q, "SELECT count(*) FROM sector_inputs WHERE run_id = %lld AND sector = 'std_2_3_1_0' "
             "AND path = 'std_3_3_0_0.mdb' AND sha256 = '%s'", (long long)id, good_hex);
    assert_int_equal(sql_int(fx->store, q), 1); /* the digest of the bytes read, not of those on disk */
    o = options(fx, fx->store, MA_VRUN_INCREMENTAL);
    r = run_ok(&o);
    assert_int_equal(find(r, "std_2_3_1_0")->carried, 0);
    assert_int_equal(find(r, "std_3_3_0_0")->discrepancies, 1);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}

/* on_step: right after the hash phase, the signal's flag is set, as SIGINT's handler would set it. */
static void stop_on_hashed(void *ctx, const char *step, const char *sector)
{
    (void)sector;
    if (!strcmp(step, "hashed"))
        *(volatile sig_atomic_t *)ctx = SIGINT;
}

/* A signal that arrives while a unit's files are read privately (here: before the first unit's
 * read) stops the read (checksums/private_read.h, between pieces), and the run stops as on any
 * signal: MA_ECANCELED, interrupted, nothing checked or recorded as a sector's result, no file
 * blamed (no error, no sector unusable); a resume then checks every sector. */
static void test_signal_during_a_private_read_stops_the_run(void **state)
{
    fixture *fx = *state;
    volatile sig_atomic_t stop = 0;
    ma_vrun_options o = options(fx, fx->store, MA_VRUN_FULL);
    o.cancel = &stop;
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    ma_vrun_test_hooks hooks = {.on_step = stop_on_hashed, .step_ctx = (void *)&stop};
    ma_vrun_set_test_hooks(r, &hooks);
    assert_int_equal(ma_vrun_execute(r, &err), MA_ECANCELED);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_INTERRUPTED);
    assert_int_equal(ma_vrun_error_count(r), 0);
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++)
        assert_int_not_equal(ma_vrun_sector_at(r, i)->status, MA_SECTOR_UNUSABLE);
    int64_t id = ma_vrun_id(r);
    ma_vrun_free(r);
    char q[200];
    snprintf(q, sizeof q, "SELECT count(*) FROM sector_results WHERE run_id = %lld", (long long)id);
    assert_int_equal(sql_int(fx->store, q), 0);
    o = options(fx, fx->store, MA_VRUN_RESUME);
    r = run_ok(&o);
    assert_int_equal(ma_vrun_resumed_from(r), id);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_checked, 7);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    ma_vrun_free(r);
}

/* Writes word at entry of the open-format sector file path and reseals its body digest, as a
 * producer that wrote a bad value would (docs/format.md 5.1: header 128 bytes, digest at 80). */
static void poke_resealed(const char *path, uint64_t entry, uint16_t word)
{
    size_t len = 0;
    unsigned char *buf = ma_test_slurp(path, &len);
    assert_non_null(buf);
    assert_true(128 + 2 * entry + 2 <= len);
    buf[128 + 2 * entry] = (unsigned char)(word & 0xff);
    buf[128 + 2 * entry + 1] = (unsigned char)(word >> 8);
    ma_sha256_buffer(buf + 80, buf + 128, len - 128);
    ma_test_spit(path, buf, len);
    free(buf);
}

/* A parent whose successor entry holds a bad encoding cannot be re-derived there: those entries are
 * unverifiable, the sector incomplete, and a run of that sector alone is not verified (it had passed
 * as "verified: all entries re-derived" when the status forgot the unverifiable ones). */
static void test_a_successor_with_a_bad_encoding_leaves_its_parent_incomplete(void **state)
{
    fixture *fx = *state;
    char path[400], backup[400], cmd[900];
    snprintf(path, sizeof path, "%s/std_3_3_0_0.mdb", fx->db);
    snprintf(backup, sizeof backup, "%s/std_3_3_0_0.keep", fx->dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", path, backup);
    assert_int_equal(system(cmd), 0);
    poke_resealed(path, 5000, 0x0000); /* "none" at a canonical entry: no value (docs/format.md) */
    const char *pick[] = {"std_2_3_1_0"};
    ma_vrun_options o = options(fx, NULL, MA_VRUN_FULL);
    o.sectors = pick;
    o.n_sectors = 1;
    ma_vrun *r = run_ok(&o);
    const ma_vrun_sector *parent = find(r, "std_2_3_1_0");
    assert_int_equal(parent->status, MA_SECTOR_INCOMPLETE);
    assert_int_equal(parent->unverifiable, 2);
    assert_int_equal(parent->verified + parent->unverifiable, parent->entries);
    assert_non_null(strstr(parent->message, "2 entries not verified: a successor holds a bad encoding"));
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_INCOMPLETE);
    assert_int_not_equal(ma_result_exit_code(ma_vrun_result(r, MA_OK)), 0);
    ma_vrun_free(r);
    /* the whole database: the child's bad encoding is a discrepancy, the parent still incomplete */
    o = options(fx, NULL, MA_VRUN_FULL);
    r = run_ok(&o);
    assert_int_equal(find(r, "std_2_3_1_0")->status, MA_SECTOR_INCOMPLETE);
    assert_int_equal(find(r, "std_3_3_0_0")->status, MA_SECTOR_DISCREPANCIES);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    ma_vrun_free(r);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", backup, path);
    assert_int_equal(system(cmd), 0);
}

/* The classes that are roots by rule, whatever the successors hold (docs/runs.md): a value fixed by
 * the rules, bytes that are no value, a misplaced marker or value (symmetry). The other classes
 * follow from the successors' values, so they may be propagated. */
static void test_roots_by_rule_are_the_entrys_own_faults(void **state)
{
    (void)state;
    static const struct {
        int cls, fixed;
    } want[] = {
        {MA_DISC_WRONG_OUTCOME, 0}, {MA_DISC_WRONG_DEPTH, 0}, {MA_DISC_WRONG_DRAW_CLASS, 0},
        {MA_DISC_WRONG_TERMINAL, 1}, {MA_DISC_BAD_ENCODING, 1}, {MA_DISC_SYMMETRY, 1},
    };
    assert_int_equal(sizeof want / sizeof *want, MA_DISC_CLASSES);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!ma_rs_class_fixed(want[i].cls) != !want[i].fixed)
            fail_msg("class %d: root by rule %d, expected %d", want[i].cls, ma_rs_class_fixed(want[i].cls),
                     want[i].fixed);
}

/* A discrepancy set is looked up by binary search: every member is found, the first and the last
 * included, and nothing else (a successor missed there would turn a propagated entry into a root). */
static void test_a_discrepancy_set_finds_every_member(void **state)
{
    (void)state;
    static const uint64_t members[] = {1, 5, 9, 200, 4096};
    ma_entry_set set = {members, 5};
    for (size_t i = 0; i < 5; i++)
        assert_true(ma_entry_set_has(&set, members[i]));
    static const uint64_t others[] = {0, 2, 4, 6, 10, 199, 201, 4095, 4097, UINT64_MAX};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        assert_false(ma_entry_set_has(&set, others[i]));
    for (size_t n = 1; n <= 5; n++) { /* every length, so each member is once the last */
        ma_entry_set prefix = {members, n};
        assert_true(ma_entry_set_has(&prefix, members[n - 1]));
        assert_true(ma_entry_set_has(&prefix, members[0]));
        if (n < 5)
            assert_false(ma_entry_set_has(&prefix, members[n]));
    }
    ma_entry_set empty = {NULL, 0};
    assert_false(ma_entry_set_has(&empty, 0));
}

/* Root or propagated (ma_rs_classify_sets): a discrepancy whose mover closes a mill that wins at
 * once does not depend on its successors, so it is a root even when every successor is itself a
 * discrepancy; the control, a position without such a mill, is propagated through the same set.
 * std_3_3_0_0: both sides have 3 stones and fly; every non-mill turn leads back into the sector. */
static void test_an_immediate_win_is_a_root_whatever_its_successors(void **state)
{
    (void)state;
    ma_error err;
    ma_open_index *ix = NULL;
    assert_int_equal(ma_open_index_create(&ix, &err), MA_OK);
    assert_int_equal(ma_open_index_prepare(ix, 3, &err), MA_OK);
    ma_board win, ctrl;
    /* a1,d1 and a flying b2 -> g1 close a1-d1-g1: the opponent is left 2 stones, a win at once */
    assert_int_equal(ma_board_parse("a1,d1,b2/g7,f6,e5", &win, &err), MA_OK);
    /* no two of a1, b2, c3 on one line: no mill in one turn */
    assert_int_equal(ma_board_parse("a1,b2,c3/g7,f6,e5", &ctrl, &err), MA_OK);
    uint64_t n = ma_open_index_entry_count(ix, 3, 3);
    uint64_t *all = malloc(n * sizeof *all);
    assert_non_null(all);
    for (uint64_t e = 0; e < n; e++)
        all[e] = e; /* every entry of the sector a discrepancy */
    ma_entry_set set = {all, n};
    const ma_entry_set *sets[MA_TURN_KINDS] = {&set, &set, &set, &set};
    uint64_t entries[2] = {ma_open_index_rank(ix, win, NULL), ma_open_index_rank(ix, ctrl, NULL)};
    uint8_t fixed[2] = {0, 0}, root[2] = {9, 9};
    uint64_t roots = 0, propagated = 0;
    ma_rs_ranker rk = {MA_FORMAT_OPEN, ix, NULL};
    assert_int_equal(ma_rs_classify_sets(MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, &rk, entries, fixed, 2, sets, root,
                                         &roots, &propagated, &err),
                     MA_OK);
    assert_int_equal(root[0], 1);
    assert_int_equal(root[1], 0);
    assert_int_equal(roots, 1);
    assert_int_equal(propagated, 1);
    free(all);
    ma_open_index_free(ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_run_checks_children_first),
        cmocka_unit_test(test_bad_root_fails_in_scan),
        cmocka_unit_test(test_options_that_contradict_are_refused),
        cmocka_unit_test_setup(test_cancel_records_an_interrupted_run, fresh_store),
        cmocka_unit_test_setup(test_signal_during_a_private_read_stops_the_run, fresh_store),
        cmocka_unit_test_setup(test_resume_checks_only_sectors_without_a_result, fresh_store),
        cmocka_unit_test_setup(test_resume_refuses_another_tool_version, fresh_store),
        cmocka_unit_test_setup(test_stopped_run_is_interrupted_k_of_n_and_stays_so, fresh_store),
        cmocka_unit_test_setup(test_resume_with_another_selection_is_refused, fresh_store),
        cmocka_unit_test_setup(test_resume_refuses_a_run_in_progress, fresh_store),
        cmocka_unit_test_setup(test_incremental_rechecks_a_changed_child_and_its_parents, fresh_store),
        cmocka_unit_test(test_a_recorded_run_records_its_inventory_and_plan),
        cmocka_unit_test_setup(test_an_empty_shard_is_verified, fresh_store),
        cmocka_unit_test_setup(test_successor_rewritten_during_the_check_is_withdrawn, fresh_store),
        cmocka_unit_test_setup(test_successor_rewritten_after_its_private_read_keeps_the_bytes_read, fresh_store),
        cmocka_unit_test_setup(test_successor_rewritten_and_back_during_the_check_is_withdrawn, fresh_store),
        cmocka_unit_test(test_a_successor_with_a_bad_encoding_leaves_its_parent_incomplete),
        cmocka_unit_test(test_an_immediate_win_is_a_root_whatever_its_successors),
        cmocka_unit_test(test_a_discrepancy_set_finds_every_member),
        cmocka_unit_test(test_roots_by_rule_are_the_entrys_own_faults),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
