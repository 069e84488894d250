/* Unit tests for reports/store/audit: schema creation, reopening, migration, recording, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "reports/store/audit.h"
#include "reports/store/runs.h"

typedef struct fixture {
    char dir[64];    /* a fresh temporary directory per test */
    char path[128];  /* dir/audit.sqlite */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/ma_test_audit_XXXXXX");
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

/* Plain SQL through a separate connection: what someone with the sqlite3 shell would see. */
static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static char *sql_text(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    const unsigned char *t = sqlite3_column_text(st, 0);
    char *copy = strdup(t ? (const char *)t : "(null)");
    sqlite3_finalize(st);
    sqlite3_close(db);
    return copy;
}

static void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
    sqlite3_close(db);
}

static size_t read_file(const char *path, char *buf, size_t cap)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    size_t n = fread(buf, 1, cap, fp);
    fclose(fp);
    return n;
}

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, n, fp), n);
    fclose(fp);
}

static const ma_run_info verify_run = {
    .kind = "verify", .tool_version = "0.1.0", .git_revision = "abc123", .host = "testhost",
    .command_line = "millaudit verify db", .database_root = "db", .variant = "std", .format = "open",
};

static void test_create_sets_identity_version_and_wal(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    ma_error_clear(&e);
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    ma_audit_close(a);
    assert_true(ma_audit_schema_version() >= 2);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), ma_audit_schema_version());
    assert_int_equal(sql_int(f->path, "PRAGMA application_id"), 0x4D416175);
    char *mode = sql_text(f->path, "PRAGMA journal_mode");
    assert_string_equal(mode, "wal");
    free(mode);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
                                      "('runs','sector_results','sector_class_counts','discrepancies',"
                                      "'manifests','manifest_files','manifest_chunks')"), 7);
}

static void test_empty_file_becomes_a_store(void **state)
{
    fixture *f = *state;
    write_file(f->path, "", 0);
    ma_audit *a = NULL;
    ma_error e;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), ma_audit_schema_version());
}

static void test_reopen_keeps_runs_and_ids_grow(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id1 = 0, id2 = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id1, &e), MA_OK);
    ma_audit_close(a);
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id2, &e), MA_OK);
    assert_int_equal(ma_audit_run_end(a, id2, "ok", &e), MA_OK);
    ma_audit_close(a);
    assert_true(id2 > id1);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs"), 2);
    /* The first run never ended: it reads as interrupted (no end time, no status). */
    char q[128];
    snprintf(q, sizeof q, "SELECT ended_at IS NULL AND status IS NULL FROM runs WHERE id=%lld", (long long)id1);
    assert_int_equal(sql_int(f->path, q), 1);
}

static void test_migrates_a_version_1_store_keeping_its_rows(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_OK);
    ma_audit_close(a);
    /* Turn it into what a version-1 build left behind: the v1 tables only. */
    sql_exec(f->path, "DROP TABLE manifest_chunks; DROP TABLE manifest_files; DROP TABLE manifests;"
                      "PRAGMA user_version=1;");
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'manifest%'"), 0);

    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), ma_audit_schema_version());
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
                                      "('manifests','manifest_files','manifest_chunks')"), 3);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs WHERE kind='verify'"), 1);
}

static void test_records_a_run_and_reads_it_back_with_sql(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_OK);
    const ma_class_count classes[] = {{"wrong-outcome", 2}, {"wrong-depth", 1}};
    const ma_sector_result s1 = {
        .sector = "std_3_3_0_0", .file = "db/std_3_3_0_0.mdb", .entries = 1000, .checked = 1000,
        .verified = 997, .within_bounds = 0, .discrepancies = 3, .classes = classes, .n_classes = 2,
        .seconds = 1.5, .status = "discrepancies", .message = NULL};
    const ma_sector_result s2 = {
        .sector = "std_4_3_0_0", .file = "db/std_4_3_0_0.mdb", .entries = 10, .checked = 0,
        .seconds = 0.0, .status = "unusable", .message = "db/std_4_3_0_0.mdb: offset 0: bad magic"};
    assert_int_equal(ma_audit_sector_record(a, id, &s1, &e), MA_OK);
    assert_int_equal(ma_audit_sector_record(a, id, &s2, &e), MA_OK);
    const ma_discrepancy rows[] = {
        {"std_3_3_0_0", 17, "board-a", "win 13", "win 11", "wrong-depth"},
        {"std_3_3_0_0", 18, "board-b", "loss 2", "win 1", "wrong-outcome"},
        {"std_3_3_0_0", 99, "board-c", "0x8000", "win 3", "wrong-outcome"},
    };
    assert_int_equal(ma_audit_discrepancies_add(a, id, rows, 3, &e), MA_OK);
    assert_int_equal(ma_audit_discrepancies_add(a, id, NULL, 0, &e), MA_OK);
    assert_int_equal(ma_audit_run_end(a, id, "discrepancies", &e), MA_OK);
    ma_audit_close(a);

    char *t = sql_text(f->path, "SELECT kind||'|'||tool_version||'|'||git_revision||'|'||host||'|'||"
                                "command_line||'|'||database_root||'|'||variant||'|'||format||'|'||status FROM runs");
    assert_string_equal(t, "verify|0.1.0|abc123|testhost|millaudit verify db|db|std|open|discrepancies");
    free(t);
    /* UTC ISO 8601: 2026-11-22T09:30:00.123Z */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs WHERE started_at GLOB "
                                      "'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]*Z'"
                                      " AND ended_at >= started_at"), 1);
    t = sql_text(f->path, "SELECT file||'|'||entries||'|'||checked||'|'||verified||'|'||within_bounds||'|'||"
                          "discrepancies||'|'||seconds||'|'||status||'|'||coalesce(message,'-') "
                          "FROM sector_results WHERE sector='std_3_3_0_0'");
    assert_string_equal(t, "db/std_3_3_0_0.mdb|1000|1000|997|0|3|1.5|discrepancies|-");
    free(t);
    t = sql_text(f->path, "SELECT message FROM sector_results WHERE sector='std_4_3_0_0'");
    assert_string_equal(t, "db/std_4_3_0_0.mdb: offset 0: bad magic");
    free(t);
    t = sql_text(f->path, "SELECT group_concat(class||'='||count, ',') FROM "
                          "(SELECT * FROM sector_class_counts WHERE sector='std_3_3_0_0' ORDER BY class)");
    assert_string_equal(t, "wrong-depth=1,wrong-outcome=2");
    free(t);
    t = sql_text(f->path, "SELECT group_concat(entry||':'||board||':'||stored||':'||derived||':'||class, ',') "
                          "FROM (SELECT * FROM discrepancies ORDER BY entry)");
    assert_string_equal(t, "17:board-a:win 13:win 11:wrong-depth,18:board-b:loss 2:win 1:wrong-outcome,"
                           "99:board-c:0x8000:win 3:wrong-outcome");
    free(t);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

static void test_failed_sector_record_leaves_no_partial_rows(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_OK);
    /* The same class twice breaks the primary key after the sector row was inserted. */
    const ma_class_count dup[] = {{"wrong-depth", 1}, {"wrong-depth", 2}};
    const ma_sector_result s = {.sector = "std_3_3_0_0", .entries = 5, .discrepancies = 3,
                                .classes = dup, .n_classes = 2, .status = "discrepancies"};
    assert_int_equal(ma_audit_sector_record(a, id, &s, &e), MA_EINVAL);
    assert_non_null(strstr(e.msg, "std_3_3_0_0"));
    /* A sector recorded twice in one run is refused too. */
    const ma_sector_result ok = {.sector = "std_3_3_0_0", .entries = 5, .status = "ok"};
    assert_int_equal(ma_audit_sector_record(a, id, &ok, &e), MA_OK);
    assert_int_equal(ma_audit_sector_record(a, id, &ok, &e), MA_EINVAL);
    /* Unknown run: foreign keys are on. */
    assert_int_equal(ma_audit_sector_record(a, id + 100, &ok, &e), MA_EINVAL);
    const ma_discrepancy rows[] = {{"std_3_3_0_0", 1, "b", "x", "y", "wrong-depth"},
                                   {"std_3_3_0_0", UINT64_MAX, "b", "x", "y", "wrong-depth"}};
    assert_int_equal(ma_audit_discrepancies_add(a, id, rows, 2, &e), MA_EINVAL);
    assert_int_equal(ma_audit_run_end(a, id + 100, "ok", &e), MA_EINVAL);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sector_results"), 1);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sector_class_counts"), 0);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM discrepancies"), 0);
}

static void assert_refused_untouched(const char *path, int expected)
{
    static char before[1 << 16], after[1 << 16];
    size_t nb = read_file(path, before, sizeof before);
    ma_audit *a = (ma_audit *)1;
    ma_error e;
    ma_error_clear(&e);
    assert_int_equal(ma_audit_open(&a, path, &e), expected);
    assert_null(a);
    assert_int_equal(e.code, expected);
    assert_non_null(strstr(e.msg, path));
    size_t na = read_file(path, after, sizeof after);
    assert_int_equal(na, nb);
    assert_memory_equal(before, after, nb);
}

static void test_refuses_a_text_file(void **state)
{
    fixture *f = *state;
    const char text[] = "this is not a database, just some notes\nline two\n";
    write_file(f->path, text, sizeof text - 1);
    assert_refused_untouched(f->path, MA_EFORMAT);
}

static void test_refuses_a_short_file(void **state)
{
    fixture *f = *state;
    write_file(f->path, "SQLite", 6);
    assert_refused_untouched(f->path, MA_EFORMAT);
}

static void test_refuses_a_foreign_sqlite_database(void **state)
{
    fixture *f = *state;
    sql_exec(f->path, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);"
                      "INSERT INTO customers (name) VALUES ('ada');");
    assert_refused_untouched(f->path, MA_EFORMAT);
    /* Also one that has our table names but not our identity. */
    char other[160];
    snprintf(other, sizeof other, "%s/other.sqlite", f->dir);
    sql_exec(other, "CREATE TABLE runs (id INTEGER PRIMARY KEY); PRAGMA user_version=1;");
    assert_refused_untouched(other, MA_EFORMAT);
}

static void test_refuses_a_corrupt_sqlite_file(void **state)
{
    fixture *f = *state;
    char buf[4096];
    memset(buf, 0xAB, sizeof buf);
    memcpy(buf, "SQLite format 3", 16);
    write_file(f->path, buf, sizeof buf);
    assert_refused_untouched(f->path, MA_EFORMAT);
}

static void test_refuses_a_newer_schema(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    ma_audit_close(a);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", ma_audit_schema_version() + 1);
    sql_exec(f->path, sql);
    assert_refused_untouched(f->path, MA_EFORMAT);
    ma_error_clear(&e);
    assert_int_equal(ma_audit_open_readonly(&a, f->path, &e), MA_EFORMAT);
    assert_non_null(strstr(e.msg, "newer"));
}

static void test_unwritable_locations_are_io_errors_naming_the_path(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    char path[192];
    snprintf(path, sizeof path, "%s/no/such/dir/audit.sqlite", f->dir);
    assert_int_equal(ma_audit_open(&a, path, &e), MA_EIO);
    assert_null(a);
    assert_non_null(strstr(e.msg, path));
    /* A regular file where a directory should be (works even for root, unlike chmod). */
    char file[160];
    snprintf(file, sizeof file, "%s/plain", f->dir);
    write_file(file, "x", 1);
    snprintf(path, sizeof path, "%s/plain/audit.sqlite", f->dir);
    assert_int_equal(ma_audit_open(&a, path, &e), MA_EIO);
    assert_non_null(strstr(e.msg, path));
    /* A directory where the store should be. */
    assert_int_equal(ma_audit_open(&a, f->dir, &e), MA_EFORMAT);
    assert_non_null(strstr(e.msg, f->dir));
}

static void test_readonly_open_never_creates_or_writes(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    assert_int_equal(ma_audit_open_readonly(&a, f->path, &e), MA_EMISSING);
    assert_int_equal(access(f->path, F_OK), -1);
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    ma_audit_close(a);
    assert_int_equal(ma_audit_open_readonly(&a, f->path, &e), MA_OK);
    int64_t id = 0;
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_EINVAL);
    ma_audit_close(a);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM runs"), 0);
}

/* The whole file, malloc'd, for byte-identity checks of stores of any size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc(len > 0 ? (size_t)len : 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return buf;
}

/* Issue 9 #5: a store whose interior b-tree page is garbage, in a table the writer would not touch,
 * is refused before the first write and left byte-identical. */
static void test_refuses_a_store_with_a_garbage_interior_page(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_OK);
    enum { ROWS = 3000 };
    ma_discrepancy *rows = calloc(ROWS, sizeof *rows);
    assert_non_null(rows);
    for (size_t i = 0; i < ROWS; i++)
        rows[i] = (ma_discrepancy){"std_3_3_0_0", i, "W:a1,b2,c3 B:d4,e5,f6 stones 6/6 to move white", "win 13",
                                   "win 11", "wrong-depth"};
    assert_int_equal(ma_audit_discrepancies_add(a, id, rows, ROWS, &e), MA_OK);
    free(rows);
    ma_audit_close(a); /* the last connection checkpoints: every row is in the main file now */
    int64_t root = sql_int(f->path, "SELECT rootpage FROM sqlite_schema WHERE name = 'discrepancies'");
    int64_t page = sql_int(f->path, "PRAGMA page_size");
    /* With thousands of rows the table's root page is an interior page. */
    assert_true(sql_int(f->path, "SELECT count(*) FROM discrepancies") == ROWS);
    FILE *fp = fopen(f->path, "r+b");
    assert_non_null(fp);
    char garbage[65536];
    memset(garbage, 0xAB, sizeof garbage);
    assert_int_equal(fseek(fp, (long)((root - 1) * page), SEEK_SET), 0);
    assert_int_equal(fwrite(garbage, 1, (size_t)page, fp), (size_t)page);
    fclose(fp);
    size_t nb, na;
    char *before = slurp(f->path, &nb);
    a = (ma_audit *)1;
    ma_error_clear(&e);
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_EFORMAT);
    assert_null(a);
    assert_non_null(strstr(e.msg, f->path));
    assert_non_null(strstr(e.msg, "corrupt"));
    char *after = slurp(f->path, &na);
    assert_int_equal(na, nb);
    assert_memory_equal(before, after, nb);
    free(before);
    free(after);
}

/* Issue 9 #6: a reader never turns an empty file into a store. */
static void test_readonly_refuses_an_empty_file_and_leaves_it_empty(void **state)
{
    fixture *f = *state;
    write_file(f->path, "", 0);
    ma_audit *a = (ma_audit *)1;
    ma_error e;
    ma_error_clear(&e);
    assert_int_equal(ma_audit_open_readonly(&a, f->path, &e), MA_EFORMAT);
    assert_null(a);
    assert_non_null(strstr(e.msg, f->path));
    assert_non_null(strstr(e.msg, "empty file"));
    char buf[16];
    assert_int_equal(read_file(f->path, buf, sizeof buf), 0);
}

/* A reader reads a store of an older schema through a migrated private copy: it sees the runs,
 * and the file keeps its version and bytes. */
static void test_readonly_reads_an_older_schema_without_writing(void **state)
{
    fixture *f = *state;
    ma_audit *a = NULL;
    ma_error e;
    int64_t id = 0;
    assert_int_equal(ma_audit_open(&a, f->path, &e), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &verify_run, &id, &e), MA_OK);
    assert_int_equal(ma_audit_run_end(a, id, "ok", &e), MA_OK);
    ma_audit_close(a);
    sql_exec(f->path, "DROP TABLE run_imports; DROP TABLE sector_histograms; DROP TABLE sector_digests;"
                      "DROP TABLE manifest_chunks; DROP TABLE manifest_files; DROP TABLE manifests;"
                      "PRAGMA user_version=1;");
    size_t nb, na;
    char *before = slurp(f->path, &nb);
    assert_int_equal(ma_audit_open_readonly(&a, f->path, &e), MA_OK);
    int64_t latest = 0;
    assert_int_equal(ma_runs_latest(a, &latest, &e), MA_OK);
    assert_int_equal(latest, id);
    ma_run r;
    memset(&r, 0, sizeof r);
    assert_int_equal(ma_run_load(a, latest, &r, &e), MA_OK);
    assert_string_equal(r.kind, "verify");
    ma_run_free(&r);
    ma_audit_close(a);
    char *after = slurp(f->path, &na);
    assert_int_equal(na, nb);
    assert_memory_equal(before, after, nb);
    free(before);
    free(after);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_sets_identity_version_and_wal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_file_becomes_a_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reopen_keeps_runs_and_ids_grow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrates_a_version_1_store_keeping_its_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_records_a_run_and_reads_it_back_with_sql, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_sector_record_leaves_no_partial_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_text_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_short_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_foreign_sqlite_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_corrupt_sqlite_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_newer_schema, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unwritable_locations_are_io_errors_naming_the_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_open_never_creates_or_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_a_store_with_a_garbage_interior_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_refuses_an_empty_file_and_leaves_it_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_reads_an_older_schema_without_writing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
