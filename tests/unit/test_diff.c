/*
 * Unit tests of verifier/run/diff: pairing of two databases (one-sided, unusable, picks, refusals),
 * position comparison on real Malom files (../shared/fixtures/malom) and edited copies of them,
 * and the audit record of a pair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "tests/unit/support.h"

#include "verifier/run/diff.h"
#include "verifier/run/shard.h"

#define SEC33_ENTRIES 210140 /* hash_count(3, 3) */

typedef struct ctx {
    char fixtures[512]; /* .../shared/fixtures/malom, "" when absent */
    char tmp[256];
} ctx;

static int setup(void **state)
{
    ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    ma_test_fixture_dir(c->fixtures, sizeof c->fixtures);
    snprintf(c->tmp, sizeof c->tmp, "/tmp/test_diff.XXXXXX");
    if (!mkdtemp(c->tmp))
        return -1;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    ctx *c = *state;
    ma_test_tmpdir_remove(c->tmp);
    free(c);
    return 0;
}

static ma_database *open_db(const char *path)
{
    ma_database *db;
    ma_error err;
    if (ma_database_open(&db, path, NULL, &err) != MA_OK)
        fail_msg("%s", err.msg);
    return db;
}

static void make_dir(const ctx *c, const char *sub, const char *const *names, size_t n, char *out,
                     size_t len)
{
    snprintf(out, len, "%s/%s", c->tmp, sub);
    assert_int_equal(mkdir(out, 0700), 0);
    for (size_t i = 0; i < n; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", out, names[i]);
        ma_test_spit(p, (const unsigned char *)"", 0);
    }
}

static void test_pairing(void **state)
{
    ctx *c = *state;
    /* Names are all pairing looks at: contents are read only when a pair is compared. */
    const char *in_a[] = {"std_4_3_0_0.sec", "std_3_3_0_0.sec", "std.secval", "notes.txt"};
    const char *in_b[] = {"std_3_3_0_0.sec", "std_3_4_0_0.sec"};
    char da[600], db_[600], fifo[700];
    make_dir(c, "a", in_a, 4, da, sizeof da);
    make_dir(c, "b", in_b, 2, db_, sizeof db_);
    snprintf(fifo, sizeof fifo, "%s/std_4_3_0_0.sec", db_);
    assert_int_equal(mkfifo(fifo, 0600), 0); /* found by discovery, not usable */
    ma_database *a = open_db(da), *b = open_db(db_);
    ma_diff_sector *ss;
    size_t n;
    ma_error err;
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_OK);
    assert_int_equal(n, 3); /* sector order, numerically */
    assert_string_equal(ss[0].name, "std_3_3_0_0");
    assert_int_equal(ss[0].status, MA_DIFF_PENDING);
    assert_non_null(ss[0].a);
    assert_non_null(ss[0].b);
    assert_int_equal(ss[0].format_a, MA_FORMAT_SEC);
    assert_string_equal(ss[1].name, "std_3_4_0_0");
    assert_int_equal(ss[1].status, MA_DIFF_ONLY_B);
    assert_null(ss[1].a);
    /* B's file is there but a FIFO: a sector of B that fails with discovery's reason, so the
     * pair is unusable when compared, without hashing or opening anything (no hang) */
    assert_string_equal(ss[2].name, "std_4_3_0_0");
    assert_int_equal(ss[2].status, MA_DIFF_PENDING);
    assert_string_equal(ss[2].path_b, fifo);
    ma_diff_options opt = {1, 4, 0};
    assert_int_equal(ma_diff_sector_compare(&ss[2], a, b, &opt, &err), MA_OK);
    assert_int_equal(ss[2].status, MA_DIFF_UNUSABLE);
    assert_non_null(strstr(ss[2].message, "not a regular file (FIFO)"));
    ma_diff_plan_free(ss, n);

    /* picks restrict; a pick in neither side is refused */
    ma_sector_pick picks[4];
    size_t np = 0;
    assert_int_equal(ma_sector_picks_parse("std_3_4_0_0", picks, 4, &np, &err), MA_OK);
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, picks, np, &err), MA_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ss[0].status, MA_DIFF_ONLY_B);
    ma_diff_plan_free(ss, n);
    assert_int_equal(ma_sector_picks_parse("5_5_0_0", picks, 4, &np, &err), MA_OK);
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, picks, np, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "sector 5_5_0_0: in neither"));
    assert_null(strstr(err.msg, "--")); /* the library names its options field, not the command's option */
    ma_database_close(b);

    /* another variant, and a side without usable sector files */
    const char *in_l[] = {"lask_3_3_0_0.sec"};
    char dl[600], de[600];
    make_dir(c, "l", in_l, 1, dl, sizeof dl);
    b = open_db(dl);
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "mismatched variants"));
    ma_database_close(b);
    make_dir(c, "e", in_a + 3, 1, de, sizeof de);
    b = open_db(de);
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "no usable sector files"));
    ma_database_close(b);
    ma_database_close(a);

    /* two single files of different sectors */
    char fa[700], fb[700];
    snprintf(fa, sizeof fa, "%s/std_3_3_0_0.sec", da);
    snprintf(fb, sizeof fb, "%s/std_4_3_0_0.sec", da);
    a = open_db(fa);
    b = open_db(fb);
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "different sectors"));
    ma_database_close(a);
    ma_database_close(b);
}

/* Compares two single-file databases; the pair must be comparable. */
static void compare(const char *pa, const char *pb, unsigned threads, int full, ma_diff_sector *out)
{
    ma_database *a = open_db(pa), *b = open_db(pb);
    ma_diff_sector *ss;
    size_t n;
    ma_error err;
    if (ma_diff_plan(&ss, &n, a, b, NULL, 0, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(n, 1);
    ma_diff_options opt = {threads, 4, full};
    if (ma_diff_sector_compare(&ss[0], a, b, &opt, &err))
        fail_msg("%s", err.msg);
    *out = ss[0];
    free(ss); /* the result's examples now belong to *out */
    /* the pair's paths are the databases' strings, gone with them: keep copies for the caller */
    static char path_a[600], path_b[600];
    snprintf(path_a, sizeof path_a, "%s", out->path_a);
    snprintf(path_b, sizeof path_b, "%s", out->path_b);
    out->path_a = path_a;
    out->path_b = path_b;
    ma_database_close(a);
    ma_database_close(b);
}

static void test_identical_and_full(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char a[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    ma_diff_sector s;
    compare(a, a, 2, 0, &s);
    assert_int_equal(s.status, MA_DIFF_IDENTICAL);
    assert_true(s.r.identical);
    assert_int_equal(s.r.positions, 0);
    ma_diff_result_free(&s.r);
    compare(a, a, 2, 1, &s);
    assert_int_equal(s.status, MA_DIFF_EQUAL);
    assert_false(s.r.identical);
    assert_true(s.r.positions > 0 && s.r.positions < SEC33_ENTRIES);
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        assert_int_equal(s.r.counts[k], 0);
    assert_int_equal(s.r.n_examples, 0);
    ma_diff_result_free(&s.r);
}

/* Edits one byte of a copy of std_3_3_0_0.sec and diffs it against the original. */
static void edited_sec(ctx *c, int (*pick)(int byte), int delta, unsigned threads,
                       ma_diff_sector *s, size_t *at)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    snprintf(b, sizeof b, "%s/std_3_3_0_0.sec", c->tmp);
    size_t len;
    unsigned char *data = ma_test_slurp(a, &len);
    size_t i = 1000;
    while (i < SEC33_ENTRIES && !pick(data[i]))
        i++;
    assert_true(i < SEC33_ENTRIES);
    data[i] = (unsigned char)(data[i] + delta);
    ma_test_spit(b, data, len);
    free(data);
    *at = i;
    compare(a, b, threads, 0, s);
}

static int odd_win(int byte) { return byte % 2 == 1 && byte < 170; }
static int counter(int byte) { return byte >= 196 && byte <= 254; }
static int even_loss(int byte) { return byte % 2 == 0 && byte < 170; }

static void test_depth_change_found(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    for (unsigned threads = 1; threads <= 3; threads++) {
        ma_diff_sector s;
        size_t at;
        edited_sec(c, odd_win, 2, threads, &s, &at);
        assert_int_equal(s.status, MA_DIFF_DIFFERS);
        assert_int_equal(s.r.counts[MA_DIFF_DEPTH], 1);
        assert_int_equal(s.r.counts[MA_DIFF_OUTCOME], 0);
        assert_int_equal(s.r.counts[MA_DIFF_ENCODING], 0);
        assert_int_equal(s.r.n_examples, 1);
        const ma_diff_example *x = &s.r.examples[0];
        assert_int_equal(x->cls, MA_DIFF_DEPTH);
        assert_int_equal(x->entry_a, at);
        assert_int_equal(x->entry_b, at);
        assert_int_equal(x->a.value.outcome, MA_OUTCOME_WIN);
        assert_int_equal(x->b.value.outcome, MA_OUTCOME_WIN);
        assert_int_equal(x->b.value.depth, x->a.value.depth + 2);
        assert_memory_equal(x->text_a, "win ", 4);
        ma_diff_result_free(&s.r);
    }
}

static void test_outcome_change_found(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_diff_sector s;
    size_t at;
    edited_sec(c, even_loss, 1, 2, &s, &at); /* loss in x -> win in x+1 */
    assert_int_equal(s.r.counts[MA_DIFF_OUTCOME], 1);
    assert_int_equal(s.r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(s.r.examples[0].entry_a, at);
    assert_int_equal(s.r.examples[0].a.value.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(s.r.examples[0].b.value.outcome, MA_OUTCOME_WIN);
    ma_diff_result_free(&s.r);
}

static void test_counter_change_is_encoding(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_diff_sector s;
    size_t at;
    edited_sec(c, counter, 1, 2, &s, &at);
    assert_int_equal(s.status, MA_DIFF_EQUAL);
    assert_int_equal(s.r.counts[MA_DIFF_OUTCOME] + s.r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(s.r.counts[MA_DIFF_ENCODING], 1);
    assert_int_equal(s.r.examples[0].cls, MA_DIFF_ENCODING);
    assert_int_equal(s.r.examples[0].entry_a, at);
    assert_memory_equal(s.r.examples[0].text_a, "draw (count ", 12);
    ma_diff_result_free(&s.r);
}

static void test_across_formats(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    snprintf(b, sizeof b, "%s/std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    ma_diff_sector s;
    compare(a, b, 2, 0, &s);
    assert_false(s.r.draw_class_compared);
    assert_int_equal(s.r.counts[MA_DIFF_OUTCOME] + s.r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(s.r.counts[MA_DIFF_ENCODING], s.r.positions); /* another format throughout */
    uint64_t positions = s.r.positions;
    ma_diff_result_free(&s.r);
    compare(b, a, 1, 0, &s);
    assert_int_equal(s.r.positions, positions);
    ma_diff_result_free(&s.r);
}

static void test_unusable_pair_and_other_sector(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    snprintf(b, sizeof b, "%s/std_3_3_0_0.sec", c->tmp);
    size_t len;
    unsigned char *data = ma_test_slurp(a, &len);
    ma_test_spit(b, data, 5000); /* truncated */
    free(data);
    ma_diff_sector s;
    compare(a, b, 1, 0, &s);
    assert_int_equal(s.status, MA_DIFF_UNUSABLE);
    assert_non_null(strstr(s.message, b));
    ma_diff_result_free(&s.r);

    /* ma_diff_compare refuses sources of different sectors */
    char dir[600];
    snprintf(dir, sizeof dir, "%s/std-strong", c->fixtures);
    ma_database *db = open_db(dir);
    const ma_source *s33, *s34;
    ma_error err;
    ma_sector k33 = {3, 3, 0, 0}, k34 = {3, 4, 0, 0};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, k33, &s33, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, k34, &s34, &err), MA_OK);
    ma_diff_options opt = {1, 4, 0};
    ma_diff_result r;
    assert_int_equal(ma_diff_compare(&r, s33, s34, &opt, &err), MA_EINVAL);
    ma_database_close(db);
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void test_record(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_diff_sector s;
    size_t at;
    edited_sec(c, odd_win, 2, 1, &s, &at);
    char store[600];
    snprintf(store, sizeof store, "%s/audit.sqlite", c->tmp);
    ma_audit *au;
    ma_error err;
    assert_int_equal(ma_audit_open(&au, store, &err), MA_OK);
    ma_run_info info = {"diff", "test", "test", "host", "cmd", "/x", "std", "malom-sec"};
    int64_t run;
    assert_int_equal(ma_audit_run_begin(au, &info, &run, &err), MA_OK);
    assert_int_equal(ma_diff_record(au, run, &s, &err), MA_OK);
    ma_diff_sector one = {0};
    snprintf(one.name, sizeof one.name, "std_4_3_0_0");
    one.path_a = "/x/std_4_3_0_0.sec";
    one.a = (const ma_db_sector *)&one; /* any non-NULL: the A side holds it */
    one.status = MA_DIFF_ONLY_A;
    assert_int_equal(ma_diff_record(au, run, &one, &err), MA_OK);
    assert_int_equal(ma_audit_run_end(au, run, "discrepancies", &err), MA_OK);
    ma_audit_close(au);
    ma_diff_result_free(&s.r);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(store, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(query_int(db, "SELECT count(*) FROM discrepancies"), 1);
    char sql[200];
    snprintf(sql, sizeof sql, "SELECT entry FROM discrepancies WHERE class = 'depth'");
    assert_int_equal(query_int(db, sql), (int64_t)at);
    assert_int_equal(query_int(db, "SELECT count(*) FROM sector_results WHERE status = 'discrepancies'"), 1);
    assert_int_equal(query_int(db, "SELECT count(*) FROM sector_results WHERE status = 'skipped' AND "
                                   "message LIKE 'only-in-A: %'"),
                     1);
    sqlite3_close(db);
}


/* diff --shard: the pairs of every shard together are the plan, each once, in plan order; with the
 * same sectors on both sides shard k is verify A --shard k/N (verifier/run/shard.h's plan of A). */
static void test_plan_shard_is_verify_partition(void **state)
{
    ctx *c = *state;
    const char *names[] = {"std_3_3_0_0.mdb", "std_3_4_0_0.mdb", "std_4_3_0_0.mdb", "std_4_4_0_0.mdb",
                           "std_2_3_1_1.mdb", "std_3_3_1_1.mdb"};
    const size_t sizes[] = {128 + 2 * 500, 128 + 2 * 900, 128 + 2 * 880, 128 + 2 * 3000, 128 + 2 * 40,
                            128 + 2 * 700};
    char da[600], db_[600];
    make_dir(c, "a", NULL, 0, da, sizeof da);
    make_dir(c, "b", NULL, 0, db_, sizeof db_);
    unsigned char *zero = calloc(1, 8192);
    assert_non_null(zero);
    for (size_t i = 0; i < 6; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", da, names[i]);
        ma_test_spit(p, zero, sizes[i]);
        snprintf(p, sizeof p, "%s/%s", db_, names[i]);
        ma_test_spit(p, zero, 128 + 2 * (i + 1)); /* B's sizes do not matter */
    }
    free(zero);
    ma_database *a = open_db(da), *b = open_db(db_);
    ma_shard_plan plan;
    ma_error err;
    assert_int_equal(ma_shard_plan_database(a, 3, &plan, &err), MA_OK);
    int seen[6] = {0};
    for (unsigned k = 0; k < 3; k++) {
        ma_diff_sector *ss;
        size_t n;
        assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_OK);
        assert_int_equal(n, 6);
        assert_int_equal(ma_diff_plan_shard(ss, &n, k, 3, &err), MA_OK);
        for (size_t i = 0; i < n; i++) {
            size_t j = 0;
            while (j < plan.n_sectors && strcmp(plan.sectors[j].name, ss[i].name))
                j++;
            assert_true(j < plan.n_sectors);
            assert_int_equal(plan.sectors[j].shard, k);
            seen[j]++;
        }
        ma_diff_plan_free(ss, n);
    }
    for (size_t j = 0; j < 6; j++)
        assert_int_equal(seen[j], 1);
    /* the largest sector (std_4_4_0_0: 3000 entries) is alone in its shard */
    ma_diff_sector *ss;
    size_t n;
    assert_int_equal(ma_diff_plan(&ss, &n, a, b, NULL, 0, &err), MA_OK);
    assert_int_equal(ma_diff_plan_shard(ss, &n, 3, 3, &err), MA_EINVAL);
    assert_int_equal(ma_diff_plan_shard(ss, &n, 0, 3, &err), MA_OK);
    assert_int_equal(n, 1);
    assert_string_equal(ss[0].name, "std_4_4_0_0");
    ma_diff_plan_free(ss, n);
    ma_shard_plan_free(&plan);
    ma_database_close(a);
    ma_database_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pairing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identical_and_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_depth_change_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outcome_change_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counter_change_is_encoding, setup, teardown),
        cmocka_unit_test_setup_teardown(test_across_formats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unusable_pair_and_other_sector, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_shard_is_verify_partition, setup, teardown),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
