/*
 * The inspection engines through the public API only (include/millaudit.h), on a solved std
 * 3-stone database: stats (counts add up), probe (a position's value and its successors'), dump
 * (one sector), index-check (one small sector) and each one's refusal of bad input, and the
 * bad entries a corrupted copy holds caught by stats and dump.
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

/* ---- dump ---- */

typedef struct lines {
    uint64_t canonical, reported_bad, first_noncanonical;
    uint64_t base;       /* byte offset of entry 0 */
    uint64_t last_entry; /* canonical entries arrive in entry order */
    int ordered;
} lines;

static int count_line(void *ctx, const ma_dump_summary *s, const ma_dump_entry *e)
{
    (void)s;
    lines *l = ctx;
    if (e->canonical) {
        if (l->canonical && e->entry <= l->last_entry)
            l->ordered = 0;
        l->last_entry = e->entry;
        l->canonical++;
        l->base = e->offset - 2 * e->entry;
    }
    l->reported_bad += (uint64_t)e->report;
    return MA_OK;
}

static ma_dump_summary dump(const char *path, lines *l, int expect)
{
    *l = (lines){0, 0, 0, 0, 0, 1};
    ma_dump_options opt = {path, 1, NULL, count_line, l};
    ma_dump_summary s;
    ma_error err;
    assert_int_equal(ma_dump_run(&s, &opt, &err), expect);
    return s;
}

static void test_dump_sector(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/std_2_2_1_1.mdb", db.good);
    lines l;
    ma_dump_summary s = dump(path, &l, MA_OK);
    assert_string_equal(s.sector_name, "2_2_1_1");
    assert_int_equal(s.variant, MA_VARIANT_STD);
    assert_int_equal(s.format, MA_FORMAT_OPEN);
    assert_int_equal(s.bad, 0);
    assert_int_equal(s.result, MA_OK);
    assert_true(s.canonical > 0 && s.canonical < s.entries);
    assert_int_equal(l.canonical, s.canonical); /* one line per canonical entry */
    assert_true(l.ordered);
    /* a directory is not a sector file; a missing file is missing */
    assert_int_equal(ma_dump_run(&s, &(ma_dump_options){db.good, 0, NULL, NULL, NULL}, &(ma_error){0}),
                     MA_EFORMAT);
    snprintf(path, sizeof path, "%s/std_9_9_0_0.mdb", db.good);
    ma_error err;
    assert_true(ma_dump_run(&s, &(ma_dump_options){path, 0, NULL, NULL, NULL}, &err) < 0);
}

/* ---- stats ---- */

static void test_stats_counts_add_up(void **state)
{
    (void)state;
    ma_stats_run_options opt = {0};
    opt.root = db.good;
    opt.threads = 2;
    ma_stats_report *r;
    ma_error err;
    assert_int_equal(ma_stats_run(&r, &opt, &err), MA_OK);
    assert_int_equal(ma_stats_report_result(r), MA_OK);
    const ma_stats *st = ma_stats_report_stats(r);
    assert_non_null(st);
    assert_int_equal(st->n, 7);
    uint64_t entries = 0;
    for (size_t i = 0; i < st->n; i++) {
        const ma_stats_tally *t = &st->sectors[i].t;
        assert_false(st->sectors[i].unusable);
        assert_int_equal(t->canonical + t->markers, t->entries);
        assert_int_equal(t->win_entries + t->draw_entries + t->loss_entries, t->canonical);
        assert_int_equal(t->bad, 0);
        entries += t->entries;
        if (!strcmp(st->sectors[i].name, "std_2_2_1_1")) { /* the dump engine agrees */
            char path[400];
            lines l;
            snprintf(path, sizeof path, "%s/std_2_2_1_1.mdb", db.good);
            ma_dump_summary s = dump(path, &l, MA_OK);
            assert_int_equal(s.canonical, t->canonical);
            assert_int_equal(s.entries, t->entries);
        }
    }
    assert_int_equal(st->total.entries, entries);
    ma_stats_report_free(r);
    /* a directory without sector files stops the run */
    opt.root = db.dir;
    assert_int_equal(ma_stats_run(&r, &opt, &err), MA_OK);
    assert_int_equal(ma_stats_report_result(r), MA_EMISSING);
    assert_null(ma_stats_report_stats(r));
    ma_stats_report_free(r);
    /* no root: the documented refusal, and no report to free (inspect.h) */
    opt.root = NULL;
    r = (ma_stats_report *)&opt;
    assert_int_equal(ma_stats_run(&r, &opt, &err), MA_EINVAL);
    assert_null(r);
    assert_int_equal(ma_stats_run(&r, NULL, &err), MA_EINVAL);
    assert_null(r);
}

/* A non-canonical entry of the corrupted copy made to hold a value: stats and dump both find it. */
typedef struct canon_map {
    uint8_t is_canonical[2048];
    uint64_t base;
} canon_map;

static int mark_canonical(void *ctx, const ma_dump_summary *s, const ma_dump_entry *e)
{
    (void)s;
    canon_map *m = ctx;
    if (e->canonical && e->entry < sizeof m->is_canonical) {
        m->is_canonical[e->entry] = 1;
        m->base = e->offset - 2 * e->entry;
    }
    return MA_OK;
}

static void test_corruption_caught(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/std_1_2_2_1.mdb", db.bad);
    static canon_map m;
    ma_dump_summary s;
    ma_error err;
    assert_int_equal(ma_dump_run(&s, &(ma_dump_options){path, 1, NULL, mark_canonical, &m}, &err), MA_OK);
    assert_true(s.entries <= sizeof m.is_canonical);
    uint64_t e = 0;
    while (e < s.entries && m.is_canonical[e])
        e++;
    assert_true(e < s.entries);
    assert_int_equal(api_db_poke(path, (unsigned long)(m.base + 2 * e), 0xC001), 0);

    lines l;
    s = dump(path, &l, MA_OK);
    assert_int_equal(s.bad, 1);
    assert_int_equal(l.reported_bad, 1);
    assert_int_equal(ma_result_exit_code(s.result), 1);

    const char *sectors[] = {"std_1_2_2_1"};
    ma_stats_run_options opt = {0};
    opt.root = db.bad;
    opt.sectors = sectors;
    opt.n_sectors = 1;
    opt.no_digest_check = 1;
    ma_stats_report *r;
    assert_int_equal(ma_stats_run(&r, &opt, &err), MA_OK);
    assert_int_equal(ma_stats_report_result(r), ma_result_of_verdict(MA_VERDICT_DISCREPANCIES, 0));
    assert_int_equal(ma_stats_report_stats(r)->n, 1);
    assert_int_equal(ma_stats_report_stats(r)->total.bad, 1);
    ma_stats_report_free(r);
    /* with the digest check on, the changed file is refused, not counted */
    opt.no_digest_check = 0;
    assert_int_equal(ma_stats_run(&r, &opt, &err), MA_OK);
    assert_int_equal(ma_result_exit_code(ma_stats_report_result(r)), 3);
    ma_stats_report_free(r);
}

/* ---- probe ---- */

static void test_probe_start_position(void **state)
{
    (void)state;
    const char *words[] = {"-/-", "wf=3", "bf=3"};
    ma_probe_run_options opt = {0};
    opt.root = db.good;
    opt.position = words;
    opt.n_position = 3;
    ma_probe_report *r;
    ma_error err;
    assert_int_equal(ma_probe_run(&r, &opt, &err), MA_OK);
    const ma_probe_result *p = ma_probe_report_position(r);
    assert_int_equal(ma_probe_report_result(r), MA_OK);
    assert_string_equal(p->name, "std_0_0_3_3");
    assert_true(p->value.known);
    assert_int_equal(p->n_rows, 24); /* a stone on any of the 24 points */
    assert_int_equal(p->n_unusable, 0);
    /* the best turn's value is the position's own (the database is consistent) */
    assert_true(p->rows[0].v.known);
    assert_int_equal(p->rows[0].v.value.outcome, p->value.value.outcome);
    assert_int_equal(p->rows[0].v.value.depth, p->value.value.depth);
    for (int i = 1; i < p->n_rows; i++) /* every successor sector is in the database */
        assert_true(p->rows[i].v.known);
    ma_probe_report_free(r);

    /* a position that does not parse, and one whose sector the database lacks */
    const char *bad[] = {"a1,a1/-"};
    opt.position = bad;
    opt.n_position = 1;
    assert_int_equal(ma_probe_run(&r, &opt, &err), MA_EUSAGE);
    const char *absent[] = {"a1,b2,c3,d1/a7,g7,g1,g4"};
    opt.position = absent;
    assert_int_equal(ma_probe_run(&r, &opt, &err), MA_EMISSING);
    assert_int_equal(ma_probe_failure_result(MA_EINVAL), MA_EUSAGE);
}

/* ---- index-check ---- */

static void count_failure(void *ctx, const ma_index_check_report *r, const ma_index_check_failure *f)
{
    (void)r;
    (void)f;
    ++*(int *)ctx;
}

static void test_index_check_small_sector(void **state)
{
    (void)state;
    char path[400];
    snprintf(path, sizeof path, "%s/std_1_1_2_2.mdb", db.good);
    int failures = 0;
    ma_index_check_options opt = {0};
    opt.variant = MA_VARIANT_STD;
    opt.sector = (ma_sector){1, 1, 2, 2};
    opt.file = path;
    opt.on_failure = count_failure;
    opt.ctx = &failures;
    ma_index_check_report r;
    ma_error err;
    assert_int_equal(ma_index_check_run(&r, &opt, &err), MA_OK);
    assert_int_equal(r.failures, 0);
    assert_int_equal(failures, 0);
    assert_true(r.counts_agree);
    assert_int_equal(r.orbit_sum, r.placements);
    assert_int_equal(r.placements, 24 * 23); /* one stone each on 24 points */
    assert_int_equal(r.entries, r.file_entries);
    assert_int_equal(ma_result_exit_code(r.result), 0);

    /* another sector's file is the wrong input; an impossible sector is refused */
    opt.sector = (ma_sector){0, 1, 3, 2};
    assert_int_equal(ma_index_check_run(&r, &opt, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "another sector's file"));
    opt.file = NULL;
    opt.sector = (ma_sector){2, 3, 0, 0};
    assert_int_equal(ma_index_check_run(&r, &opt, &err), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_sector),
        cmocka_unit_test(test_stats_counts_add_up),
        cmocka_unit_test(test_corruption_caught),
        cmocka_unit_test(test_probe_start_position),
        cmocka_unit_test(test_index_check_small_sector),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
