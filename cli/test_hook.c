/* The test build's rendezvous and stops (cli/test_hook.h). */
#include "cli/test_hook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void ma_cli_test_hook_step(ma_cli_test_hook *h, const char *here, const volatile sig_atomic_t *until)
{
    if (h->fired || !h->step[0] || strcmp(h->step, here))
        return;
    h->fired = 1;
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
    ma_cli_test_hook_step(h, here, h->until);
}

void ma_cli_test_hook_env(ma_cli_test_hook *h)
{
    memset(h, 0, sizeof *h);
    const char *step = getenv("MILLAUDIT_TEST_STEP"), *dir = getenv("MILLAUDIT_TEST_STEP_DIR");
    if (!step || !dir || !*step || !*dir)
        return;
    snprintf(h->step, sizeof h->step, "%s", step);
    snprintf(h->dir, sizeof h->dir, "%s", dir);
}

void ma_cli_test_hook_install(ma_cli_test_hook *h, ma_vrun_options *o)
{
    ma_cli_test_hook_env(h);
    h->until = o->cancel;
    const char *stop_after = getenv("MILLAUDIT_TEST_STOP_AFTER_SECTORS");
    if (stop_after && *stop_after)
        o->stop_after_sectors = (size_t)strtoull(stop_after, NULL, 10);
    if (!h->step[0])
        return;
    o->on_step = rendezvous;
    o->step_ctx = h;
}

uint64_t ma_cli_test_stop_after_moves(void)
{
    const char *stop_after = getenv("MILLAUDIT_TEST_STOP_AFTER_MOVES");
    return stop_after && *stop_after ? (uint64_t)strtoull(stop_after, NULL, 10) : 0;
}
