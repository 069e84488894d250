/* Unit tests for the v7 parts of reports/store/audit_run (issue 21): claiming a run to resume is one
 * conditional transition, so of two resumes that both picked a run exactly one continues it; a
 * run in progress (its process alive on this host, or a fresh heartbeat from another host) is
 * not claimed; a resume must repeat the run's selection; the claimed run keeps its verdict; stores
 * whose older builds marked such runs 'resumed' are migrated to what they were. */
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

#include <sqlite3.h>

#include "reports/store/audit.h"
#include "reports/store/audit_run.h"

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/ma_test_audit_run_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/audit.sqlite", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
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

static const char OPTIONS[] = "{\"max_rows\":1000,\"full_board_draw\":true}";

/* A verify run of /db as the run engine records it, ended with status (NULL: never ended). */
static int64_t add_run(ma_audit *a, const char *status, const char *selection, int64_t pid)
{
    ma_run_info info = {"verify", "1.0", "abc", "here", "millaudit verify /db", "/db", "std", "open"};
    int64_t id;
    ma_error err;
    assert_int_equal(ma_audit_run_begin(a, &info, &id, &err), MA_OK);
    ma_run_meta m = {"full", 0, OPTIONS, 0, 0, 2, 0, selection, 100, pid, "database"};
    assert_int_equal(ma_audit_run_meta_set(a, id, &m, &err), MA_OK);
    ma_planned_sector plan[] = {{"std_3_3_0_0", "/db/std_3_3_0_0.mdb", 60}, {"std_2_3_1_0", NULL, 40}};
    assert_int_equal(ma_audit_run_plan_record(a, id, plan, 2, &err), MA_OK);
    if (status)
        assert_int_equal(ma_audit_run_end(a, id, status, &err), MA_OK);
    return id;
}

static ma_resume_want want(int64_t run_id, const char *selection)
{
    ma_resume_want w = {run_id, "/db", "1.0", OPTIONS, selection, "here", 3600};
    return w;
}

static void test_two_claims_of_one_run_one_wins(void **state)
{
    fixture *f = *state;
    ma_audit *a, *b;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    assert_int_equal(ma_audit_open(&b, f->path, &err), MA_OK);
    int64_t old = add_run(a, "interrupted", "all", 0);
    /* both resumes pick the same run: what two `--resume` at once saw before the claim existed */
    ma_resume_want w = want(0, "all");
    int64_t pa = 0, pb = 0;
    assert_int_equal(ma_audit_resume_pick(a, &w, &pa, &err), MA_OK);
    assert_int_equal(ma_audit_resume_pick(b, &w, &pb, &err), MA_OK);
    assert_int_equal(pa, old);
    assert_int_equal(pb, old);
    int64_t na = add_run(a, NULL, "all", 0), nb = add_run(b, NULL, "all", 0);
    /* the claim is conditional: the first wins, the second is refused and changes nothing */
    assert_int_equal(ma_audit_run_mark_continued(a, old, na, &err), MA_OK);
    assert_int_equal(ma_audit_run_mark_continued(b, old, nb, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "already continued"));
    char q[160];
    snprintf(q, sizeof q, "SELECT continued_by FROM runs WHERE id = %lld", (long long)old);
    assert_int_equal(sql_int(f->path, q), na);
    snprintf(q, sizeof q, "SELECT status = 'interrupted' FROM runs WHERE id = %lld", (long long)old);
    assert_int_equal(sql_int(f->path, q), 1); /* its own verdict stays */
    /* and a later pick sees the claim: by default nothing is left (once the runs that resumed
     * ended; while they run they are runs in progress), by id it names the winner */
    assert_int_equal(ma_audit_resume_pick(b, &w, &pb, &err), MA_EEXIST);
    assert_int_equal(ma_audit_run_end(a, na, "ok", &err), MA_OK);
    assert_int_equal(ma_audit_run_end(b, nb, "ok", &err), MA_OK);
    assert_int_equal(ma_audit_resume_pick(b, &w, &pb, &err), MA_EMISSING);
    w.run_id = old;
    assert_int_equal(ma_audit_resume_pick(b, &w, &pb, &err), MA_EEXIST);
    snprintf(q, sizeof q, "continued by run %lld", (long long)na);
    assert_non_null(strstr(err.msg, q));
    ma_audit_close(a);
    ma_audit_close(b);
}

static int claim_in_tx(ma_audit *a, void *ctx, ma_error *err)
{
    int64_t *ids = ctx; /* [0] picked, [1] new run, [2] fail after the claim when non-zero */
    ma_resume_want w = want(0, "all");
    int rc = ma_audit_resume_pick(a, &w, &ids[0], err);
    if (rc)
        return rc;
    ids[1] = add_run(a, NULL, "all", 0);
    if ((rc = ma_audit_run_mark_continued(a, ids[0], ids[1], err)))
        return rc;
    return ids[2] ? ma_error_set(err, MA_EIO, "disk full") : MA_OK;
}

static void test_claim_is_one_transaction(void **state)
{
    fixture *f = *state;
    ma_audit *a, *b;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    assert_int_equal(ma_audit_open(&b, f->path, &err), MA_OK);
    int64_t old = add_run(a, "interrupted", "all", 0);
    /* a claim that fails halfway leaves nothing: no new run, the old one unclaimed */
    int64_t ids[3] = {0, 0, 1};
    assert_int_equal(ma_audit_write_tx(a, claim_in_tx, ids, &err), MA_EIO);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs"), 1);
    assert_int_equal(sql_int(f->path, "SELECT count(continued_by) FROM runs"), 0);
    /* a whole claim commits; the other connection's claim then finds nothing to resume */
    ids[2] = 0;
    assert_int_equal(ma_audit_write_tx(a, claim_in_tx, ids, &err), MA_OK);
    assert_int_equal(ids[0], old);
    assert_int_equal(ma_audit_run_end(a, ids[1], "ok", &err), MA_OK);
    int64_t other[3] = {0, 0, 0};
    assert_int_equal(ma_audit_write_tx(b, claim_in_tx, other, &err), MA_EMISSING);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs WHERE resumed_from IS NULL AND continued_by IS NULL"),
                     1); /* only the winner's run was added */
    ma_audit_close(a);
    ma_audit_close(b);
}

static void test_a_run_in_progress_is_not_claimed(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    /* never ended, its process (this one) alive on this host */
    int64_t id = add_run(a, NULL, "all", getpid()), got = 0;
    ma_resume_want w = want(0, "all");
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "still in progress"));
    assert_non_null(strstr(err.msg, "on here"));
    /* its process gone: claimable although its heartbeat is fresh */
    char q[200];
    snprintf(q, sizeof q, "UPDATE runs SET pid = %lld", (long long)dead_pid());
    sql(f->path, q);
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_OK);
    assert_int_equal(got, id);
    /* on another host the pid means nothing: a fresh heartbeat is a live run, a stale one is not */
    sql(f->path, "UPDATE runs SET host = 'there', pid = 1");
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "last heartbeat"));
    sql(f->path, "UPDATE runs SET heartbeat_at = '2000-01-01T00:00:00.000Z'");
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_OK);
    /* heartbeats move with commits */
    assert_int_equal(ma_audit_run_heartbeat(a, id, &err), MA_OK);
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_EEXIST);
    ma_audit_close(a);
}

static void test_a_resume_repeats_the_selection(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    add_run(a, "interrupted", "all", 0);
    int64_t got = 0;
    ma_resume_want w = want(0, "sectors:std_3_3_0_0");
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_EINVAL); /* exit 2 */
    assert_non_null(strstr(err.msg, "repeat the run's selection"));
    w.selection = "all";
    assert_int_equal(ma_audit_resume_pick(a, &w, &got, &err), MA_OK);
    /* a finished run is never resumed, whatever its selection */
    sql(f->path, "UPDATE runs SET status = 'ok'");
    assert_int_equal(ma_audit_resume_pick(a, &(ma_resume_want){1, "/db", "1.0", OPTIONS, "all", "here", 3600}, &got,
                                          &err),
                     MA_EFORMAT);
    ma_audit_close(a);
}

static void test_plan_is_recorded(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    add_run(a, "interrupted", "all", 0);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "SELECT sum(entries) FROM run_plan WHERE run_id = 1"), 100);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM run_plan WHERE file IS NULL"), 1);
    assert_int_equal(sql_int(f->path, "SELECT planned_entries FROM runs"), 100);
    assert_int_equal(sql_int(f->path, "SELECT heartbeat_at IS NOT NULL FROM runs"), 1);
}

/* A store where an older build marked run 1 'resumed' (run 2 resumed it): after the v7 migration
 * run 1 is what it was, interrupted, continued by run 2. */
static void test_migration_turns_resumed_into_interrupted(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    add_run(a, "interrupted", "all", 0);
    add_run(a, "ok", "all", 0);
    ma_audit_close(a);
    sql(f->path, "UPDATE runs SET status = 'resumed' WHERE id = 1; UPDATE runs SET resumed_from = 1 WHERE id = 2;"
                 "ALTER TABLE runs DROP COLUMN continued_by; ALTER TABLE runs DROP COLUMN pid;"
                 "ALTER TABLE runs DROP COLUMN heartbeat_at; ALTER TABLE runs DROP COLUMN selection;"
                 "ALTER TABLE runs DROP COLUMN planned_entries; DROP TABLE run_plan;"
                 /* what the migrations after v7 (v8 attestations, v9 inventory) add, so the store is a true v6 one */
                 "DROP TABLE run_attestations;"
                 "ALTER TABLE runs DROP COLUMN inventory_digest; ALTER TABLE runs DROP COLUMN plan_digest;"
                 "ALTER TABLE runs DROP COLUMN plan_shards; ALTER TABLE runs DROP COLUMN plan_whole;"
                 "DROP TABLE run_inventory; DROP TABLE run_partition;"
                 "PRAGMA user_version = 6;");
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "SELECT status = 'interrupted' AND continued_by = 2 FROM runs WHERE id = 1"), 1);
    assert_int_equal(sql_int(f->path, "SELECT status = 'ok' AND continued_by IS NULL FROM runs WHERE id = 2"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_two_claims_of_one_run_one_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_claim_is_one_transaction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_run_in_progress_is_not_claimed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_resume_repeats_the_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_is_recorded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration_turns_resumed_into_interrupted, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
