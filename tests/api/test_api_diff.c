/*
 * The diff engine through the public API only (include/millaudit.h): a database against itself
 * agrees, against a copy with one entry changed it differs and names that sector and entry, and
 * a database that is not there is refused.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "millaudit.h"
#include "tests/api/api_db.h"

static api_db db;

static int setup(void **state)
{
    (void)state;
    return api_db_make(&db);
}

static int teardown(void **state)
{
    (void)state;
    api_db_remove(&db);
    return 0;
}

typedef struct seen {
    size_t pairs;
} seen;

static void count_pair(void *ctx, const ma_diff_sector *s)
{
    (void)s;
    ((seen *)ctx)->pairs++;
}

static ma_diff_report *run(const char *a, const char *b, int full)
{
    static seen sn;
    sn.pairs = 0;
    ma_diff_run_options opt = {0};
    opt.path_a = a;
    opt.path_b = b;
    opt.compare.limit = 5;
    opt.compare.threads = 2;
    opt.compare.full = full;
    opt.no_digest_check = 1; /* the changed copy's body no longer matches its header digest */
    opt.on_sector = count_pair;
    opt.ctx = &sn;
    ma_diff_report *r = NULL;
    ma_error err;
    assert_int_equal(ma_diff_run(&r, &opt, &err), MA_OK);
    assert_non_null(r);
    assert_int_equal(sn.pairs, ma_diff_report_pairs(r)); /* every pair reported as it came */
    return r;
}

static void test_itself_agrees(void **state)
{
    (void)state;
    ma_diff_report *r = run(db.good, db.good, 1);
    assert_int_equal(ma_diff_report_pairs(r), 7);
    assert_int_equal(ma_diff_report_result(r), ma_result_of_verdict(MA_VERDICT_AGREE, 0));
    assert_int_equal(ma_result_exit_code(ma_diff_report_result(r)), 0);
    assert_int_equal(ma_diff_report_status_count(r, MA_DIFF_EQUAL), 7);
    assert_true(ma_diff_report_positions(r) > 0);
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        assert_int_equal(ma_diff_report_class_count(r, k), 0);
    assert_null(ma_diff_report_failure(r));
    ma_diff_report_free(r);
    /* without --full, equal digests settle every pair without reading a position */
    r = run(db.good, db.good, 0);
    assert_int_equal(ma_diff_report_status_count(r, MA_DIFF_IDENTICAL), 7);
    assert_int_equal(ma_diff_report_positions(r), 0);
    ma_diff_report_free(r);
}

/* The first canonical entry of a sector file, found through the dump engine. */
typedef struct first {
    uint64_t entry, offset;
    ma_stored stored;
    int found;
} first;

static int keep_first(void *ctx, const ma_dump_summary *s, const ma_dump_entry *e)
{
    (void)s;
    first *f = ctx;
    if (!f->found && e->canonical) {
        f->entry = e->entry;
        f->offset = e->offset;
        f->stored = e->stored;
        f->found = 1;
    }
    return MA_OK;
}

static void test_changed_entry_differs(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/std_2_2_1_1.mdb", db.bad);
    first f = {0};
    ma_dump_options dopt = {path, 1, NULL, keep_first, &f};
    ma_dump_summary ds;
    ma_error err;
    assert_int_equal(ma_dump_run(&ds, &dopt, &err), MA_OK);
    assert_true(f.found);
    /* a win or loss becomes a draw; a draw becomes a win in 1 */
    unsigned word = f.stored.value.outcome == MA_OUTCOME_DRAW ? 0xC001 : 0x8000;
    assert_int_equal(api_db_poke(path, (unsigned long)f.offset, word), 0);

    ma_diff_report *r = run(db.good, db.bad, 0);
    assert_int_equal(ma_diff_report_result(r), ma_result_of_verdict(MA_VERDICT_DIFFER, 0));
    assert_int_equal(ma_result_exit_code(ma_diff_report_result(r)), 1);
    assert_int_equal(ma_diff_report_status_count(r, MA_DIFF_DIFFERS), 1);
    assert_int_equal(ma_diff_report_status_count(r, MA_DIFF_IDENTICAL), 6);
    assert_int_equal(ma_diff_report_class_count(r, MA_DIFF_OUTCOME), 1);
    const ma_diff_sector *hit = NULL;
    for (size_t i = 0; i < ma_diff_report_pairs(r); i++)
        if (ma_diff_report_pair(r, i)->status == MA_DIFF_DIFFERS)
            hit = ma_diff_report_pair(r, i);
    assert_non_null(hit);
    assert_string_equal(hit->name, "std_2_2_1_1");
    assert_int_equal(hit->r.n_examples, 1);
    assert_int_equal(hit->r.examples[0].cls, MA_DIFF_OUTCOME);
    assert_int_equal(hit->r.examples[0].entry_a, f.entry);
    assert_int_equal(hit->r.examples[0].entry_b, f.entry);
    assert_int_equal(hit->r.examples[0].offset_b, f.offset);
    ma_diff_report_free(r);
}

static void test_missing_database_is_refused(void **state)
{
    (void)state;
    char missing[400];
    snprintf(missing, sizeof missing, "%s/nowhere", db.dir);
    ma_diff_report *r = run(db.good, missing, 0);
    assert_int_equal(ma_result_exit_code(ma_diff_report_result(r)), 3);
    assert_non_null(ma_diff_report_failure(r));
    assert_non_null(strstr(ma_diff_report_failure(r), "nowhere"));
    assert_int_equal(ma_diff_report_pairs(r), 0);
    ma_diff_report_free(r);
    /* a --sector argument that does not parse is the caller's error */
    size_t n = 0;
    ma_error err;
    assert_int_equal(ma_sector_arg_check("3_3_0", &n, &err), MA_EINVAL);
    assert_int_equal(ma_sector_arg_check("std_3_3_0_0,2_2_1_1", &n, &err), MA_OK);
    assert_int_equal(n, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_itself_agrees),
        cmocka_unit_test(test_changed_entry_differs),
        cmocka_unit_test(test_missing_database_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
