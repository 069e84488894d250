/* Unit tests for solver/svphases: threads in lockstep phases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <string.h>

#include "solver/svphases.h"

#define PHASES 50

struct shared {
    int threads;          /* from begin */
    int phase;            /* set by thread 0 between the barriers */
    atomic_int units;     /* this phase's units, taken by the threads */
    int done_units[PHASES];
    int mismatch;         /* a worker saw a phase other than the one set up */
};

struct worker {
    struct shared *sh;
    int phases_worked;
    int units;
};

static void begin(void *shared, int threads)
{
    ((struct shared *)shared)->threads = threads;
}

static void work(void *worker)
{
    struct worker *w = worker;
    struct shared *sh = w->sh;
    int phase = sh->phase;
    w->phases_worked++;
    /* 7 units per phase, shared by whoever takes them first */
    while (atomic_fetch_add(&sh->units, 1) < 7) {
        w->units++;
        if (sh->phase != phase)
            sh->mismatch = 1;
    }
}

static void next(void *shared)
{
    struct shared *sh = shared;
    /* every thread has finished the phase: its 7 units are all taken */
    sh->done_units[sh->phase] = atomic_load(&sh->units) >= 7;
    sh->phase++;
    atomic_store(&sh->units, 0);
}

static int done(const void *shared)
{
    return ((const struct shared *)shared)->phase == PHASES;
}

static void run(int n)
{
    struct shared sh;
    memset(&sh, 0, sizeof sh);
    atomic_init(&sh.units, 0);
    struct worker w[4];
    memset(w, 0, sizeof w);
    for (int i = 0; i < 4; i++)
        w[i].sh = &sh;
    static const ma_svphases_ops ops = {begin, work, next, done};
    int started = ma_svphases_run(&ops, &sh, w, sizeof w[0], n);
    assert_int_equal(started, n < 1 ? 1 : n);
    assert_int_equal(sh.threads, started);
    assert_int_equal(sh.phase, PHASES);
    assert_false(sh.mismatch);
    int units = 0;
    for (int i = 0; i < started; i++) {
        assert_int_equal(w[i].phases_worked, PHASES); /* every thread works every phase */
        units += w[i].units;
    }
    for (int i = started; i < 4; i++)
        assert_int_equal(w[i].phases_worked, 0);
    assert_int_equal(units, 7 * PHASES);
    for (int p = 0; p < PHASES; p++)
        assert_true(sh.done_units[p]);
}

static void test_one_to_four_threads(void **state)
{
    (void)state;
    for (int n = 0; n <= 4; n++)
        run(n);
}

/* A run whose first phase is already the end does no work at all. */
static void test_nothing_to_do(void **state)
{
    (void)state;
    struct shared sh;
    memset(&sh, 0, sizeof sh);
    sh.phase = PHASES;
    struct worker w[2] = {{&sh, 0, 0}, {&sh, 0, 0}};
    static const ma_svphases_ops ops = {NULL, work, next, done};
    assert_int_equal(ma_svphases_run(&ops, &sh, w, sizeof w[0], 2), 2);
    assert_int_equal(w[0].phases_worked + w[1].phases_worked, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_to_four_threads),
        cmocka_unit_test(test_nothing_to_do),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
