/* The test build's rendezvous and stops (cli/test_hook.h). */
#include "cli/test_hook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "verifier/audit/grade.h"
#include "verifier/run/manifest_run.h"
#include "verifier/run/run.h"

/* Non-zero when the n-th of the comma-separated steps of list is `here`. */
static int nth_step_is(const char *list, int n, const char *here)
{
    for (; n > 0 && list; n--) {
        list = strchr(list, ',');
        list = list ? list + 1 : NULL;
    }
    if (!list)
        return 0;
    size_t len = strcspn(list, ",");
    return strlen(here) == len && !strncmp(list, here, len);
}

/* The rendezvous at step `here`: at the first call whose `here` is the next step asked for (the
 * steps of a list "a,b" in that order), creates <dir>/paused and waits until <dir>/resume exists
 * or *until is non-zero (a signal handler's flag; NULL: resume only). Any other call returns at
 * once. */
static void hook_step(ma_cli_test_hook *h, const char *here, const volatile sig_atomic_t *until)
{
    if (!h->step[0] || !nth_step_is(h->step, h->fired, here))
        return;
    h->fired++;
    char paused[4200], resume[4200];
    snprintf(paused, sizeof paused, "%s/paused", h->dir);
    snprintf(resume, sizeof resume, "%s/resume", h->dir);
    FILE *f = fopen(paused, "w");
    if (f)
        fclose(f);
    /* the test changes files or sends a signal, then creates resume (or the signal's flag is
     * enough); poll, a test build needs nothing finer */
    struct timespec pause = {0, 10 * 1000 * 1000};
    while (access(resume, F_OK) != 0 && !(until && *until))
        nanosleep(&pause, NULL);
    unlink(resume);
}

static void rendezvous(void *ctx, const char *step, const char *sector)
{
    char here[128];
    snprintf(here, sizeof here, "%s%s%s", step, sector ? ":" : "", sector ? sector : "");
    ma_cli_test_hook *h = ctx;
    hook_step(h, here, h->until);
}

/* Fills h from MILLAUDIT_TEST_STEP / MILLAUDIT_TEST_STEP_DIR (no step asked for: h->step empty). */
static void hook_env(ma_cli_test_hook *h)
{
    memset(h, 0, sizeof *h);
    const char *step = getenv("MILLAUDIT_TEST_STEP"), *dir = getenv("MILLAUDIT_TEST_STEP_DIR");
    if (!step || !dir || !*step || !*dir)
        return;
    snprintf(h->step, sizeof h->step, "%s", step);
    snprintf(h->dir, sizeof h->dir, "%s", dir);
}

void ma_cli_test_hook_install(ma_cli_test_hook *h, ma_vrun *run, const volatile sig_atomic_t *cancel)
{
    hook_env(h);
    h->until = cancel;
    ma_vrun_test_hooks hooks = {0};
    const char *stop_after = getenv("MILLAUDIT_TEST_STOP_AFTER_SECTORS");
    if (stop_after && *stop_after)
        hooks.stop_after_sectors = (size_t)strtoull(stop_after, NULL, 10);
    const char *budget = getenv("MILLAUDIT_TEST_PRIVATE_BUDGET");
    if (budget && *budget) {
        hooks.lower_private_budget = 1;
        hooks.private_budget = (uint64_t)strtoull(budget, NULL, 10);
    }
    if (h->step[0]) {
        hooks.on_step = rendezvous;
        hooks.step_ctx = h;
    }
    ma_vrun_set_test_hooks(run, &hooks);
}

/* manifest create / check: the rendezvous after the first hashed chunk */
static void on_hashed(void *ctx)
{
    ma_cli_test_hook *h = ctx;
    hook_step(h, "hashing", h->until);
}

int ma_cli_test_manifest_create(ma_manifest_created *out, const ma_manifest_create_options *opt, ma_error *err)
{
    ma_cli_test_hook h;
    hook_env(&h);
    h.until = opt->cancel;
    ma_manifest_test_hooks hooks = {h.step[0] ? on_hashed : NULL, &h};
    return ma_manifest_create_hooked(out, opt, &hooks, err);
}

int ma_cli_test_manifest_check(ma_manifest_check **out, const ma_manifest_check_options *opt, ma_error *err)
{
    ma_cli_test_hook h;
    hook_env(&h);
    ma_manifest_test_hooks hooks = {h.step[0] ? on_hashed : NULL, &h};
    return ma_manifest_check_run_hooked(out, opt, &hooks, err);
}

int ma_cli_test_grade_run(ma_grading **out, const ma_grade_run_options *opt, ma_error *err)
{
    const char *stop_after = getenv("MILLAUDIT_TEST_STOP_AFTER_MOVES");
    uint64_t n = stop_after && *stop_after ? (uint64_t)strtoull(stop_after, NULL, 10) : 0;
    return ma_grade_run_hooked(out, opt, n, err);
}
