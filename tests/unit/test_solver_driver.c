/* Unit tests for solver/solver (the driver): the memory estimate and limit, thread counts, the
 * scheduling of components side by side, cancellation, and the reports' order. Whole-game values
 * are checked in test_solver_retro.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/counts.h"
#include "solver/solver.h"
#include "solver/svsector.h"

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void remove_all(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[512];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

static void test_memory_estimate(void **state)
{
    (void)state;
    /* docs/solver.md "Memory": 2 per member entry, 2 per child entry, 8 per member entry of a
     * cyclic component for the queues, 2 MiB per thread */
    assert_int_equal(ma_solver_component_bytes(1000, 500, 0, 1), 3000 + (2u << 20));
    assert_int_equal(ma_solver_component_bytes(1000, 500, 1, 1), 11000 + (2u << 20));
    assert_int_equal(ma_solver_component_bytes(1000, 500, 1, 4), 11000 + 4 * (2u << 20));
    int t = ma_solver_default_threads();
    assert_true(t >= 1 && t <= MA_SOLVER_MAX_THREADS);
}

struct order {
    int n;
    char names[64][32];
};

static void on_report(void *ctx, const ma_solver_report *r)
{
    struct order *o = ctx;
    if (o->n < 64)
        ma_svsector_format(o->names[o->n++], 32, r->sector);
}

static int solve(int threads, uint64_t limit, const atomic_int *cancel, const char *dir,
                 struct order *order, ma_error *err)
{
    ma_solver_opts o = {0};
    o.variant = MA_SV_STD;
    o.out_dir = dir;
    o.quiet = 1;
    o.threads = threads;
    o.memory_limit = limit;
    o.cancel = cancel;
    ma_sv_sector start = {0, 0, 3, 3};
    return ma_solver_solve(&o, &start, 1, 1, order ? on_report : NULL, order, err);
}

static void test_reports_in_plan_order_whatever_the_threads(void **state)
{
    (void)state;
    char d1[] = "/tmp/ma_driver_test_XXXXXX", d4[] = "/tmp/ma_driver_test_XXXXXX";
    assert_non_null(mkdtemp(d1));
    assert_non_null(mkdtemp(d4));
    struct order o1 = {0}, o4 = {0};
    ma_error err;
    assert_int_equal(solve(1, 0, NULL, d1, &o1, &err), MA_OK);
    /* 4 threads on the small placement sectors: several run side by side */
    assert_int_equal(solve(4, 0, NULL, d4, &o4, &err), MA_OK);
    assert_int_equal(o1.n, 7);
    assert_int_equal(o4.n, o1.n);
    for (int i = 0; i < o1.n; i++)
        assert_string_equal(o1.names[i], o4.names[i]);
    assert_string_equal(o1.names[o1.n - 1], "0_0_3_3"); /* children first */
    remove_all(d1);
    remove_all(d4);
}

static void test_memory_limit_refused_before_writing(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_driver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    ma_error err;
    /* 3_3_0_0 alone needs 10 * 210140 bytes + 2 MiB + 64 MiB */
    uint64_t need = 10 * 210140ull + (2u << 20) + MA_SOLVER_BASE_BYTES;
    assert_int_equal(solve(1, need - 1, NULL, dir, NULL, &err), MA_EIO);
    assert_non_null(strstr(err.msg, "sector std_3_3_0_0 needs"));
    char want[64];
    snprintf(want, sizeof want, "needs %s", MA_COUNT(need, "byte", "bytes")); /* thousands separators */
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(count_files(dir), 0);
    /* exactly enough for 3_3_0_0 on two threads (2 MiB more): every component fits, and the
     * small ones run side by side only as far as the limit allows */
    struct order o = {0};
    assert_int_equal(solve(2, need + (2u << 20), NULL, dir, &o, &err), MA_OK);
    assert_int_equal(o.n, 7);
    remove_all(dir);
}

static void test_canceled_before_start(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_driver_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    atomic_int cancel = 1;
    ma_error err;
    assert_int_equal(solve(2, 0, &cancel, dir, NULL, &err), MA_ECANCELED);
    assert_int_equal(count_files(dir), 0);
    remove_all(dir);
}

static void test_bad_thread_count(void **state)
{
    (void)state;
    ma_error err;
    assert_int_equal(solve(-1, 0, NULL, "/tmp", NULL, &err), MA_EINVAL);
    assert_int_equal(solve(MA_SOLVER_MAX_THREADS + 1, 0, NULL, "/tmp", NULL, &err), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_estimate),
        cmocka_unit_test(test_reports_in_plan_order_whatever_the_threads),
        cmocka_unit_test(test_memory_limit_refused_before_writing),
        cmocka_unit_test(test_canceled_before_start),
        cmocka_unit_test(test_bad_thread_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
