/* ma_progress: rate-limited progress lines, shared by the worker threads of one run. */
#include "common/progress.h"

#include <string.h>
#include <time.h>

double ma_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ma_progress_start(ma_progress *p, FILE *out, int quiet, const char *label, uint64_t total)
{
    memset(p, 0, sizeof *p);
    p->out = out;
    p->quiet = quiet || !out;
    p->total = total;
    p->interval = 1.0;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    snprintf(p->unit, sizeof p->unit, "entries");
    atomic_init(&p->done, 0);
    p->start = ma_now();
    atomic_init(&p->last_print, p->start);
    atomic_flag_clear(&p->printing);
    pthread_mutex_init(&p->label_lock, NULL);
}

void ma_progress_set_label(ma_progress *p, const char *label)
{
    pthread_mutex_lock(&p->label_lock);
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    pthread_mutex_unlock(&p->label_lock);
}

void ma_progress_set_total(ma_progress *p, uint64_t total)
{
    pthread_mutex_lock(&p->label_lock);
    p->total = total;
    pthread_mutex_unlock(&p->label_lock);
}

static void print_line(ma_progress *p, uint64_t done, double now, const char *end)
{
    double elapsed = now - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
    pthread_mutex_lock(&p->label_lock);
    if (p->total && rate > 0 && done <= p->total)
        fprintf(p->out, "%s: %llu/%llu %s, %.0f %s/s, ETA %.0f s%s", p->label,
                (unsigned long long)done, (unsigned long long)p->total, p->unit, rate, p->unit,
                (double)(p->total - done) / rate, end);
    else
        fprintf(p->out, "%s: %llu %s, %.0f %s/s, %.1f s%s", p->label, (unsigned long long)done,
                p->unit, rate, p->unit, elapsed, end);
    pthread_mutex_unlock(&p->label_lock);
    fflush(p->out);
    p->printed = 1;
    atomic_store(&p->last_print, now);
}

/* Prints a line when one is due; only one thread prints at a time, the others go on working. */
static void maybe_print(ma_progress *p, uint64_t done)
{
    double now = ma_now();
    if (now - p->start < 1.0 || now - atomic_load(&p->last_print) < p->interval)
        return;
    if (atomic_flag_test_and_set(&p->printing))
        return;
    if (now - atomic_load(&p->last_print) >= p->interval)
        print_line(p, done, now, "\n");
    atomic_flag_clear(&p->printing);
}

void ma_progress_add(ma_progress *p, uint64_t units)
{
    uint64_t done = atomic_fetch_add(&p->done, units) + units;
    if (!p->quiet)
        maybe_print(p, done);
}

void ma_progress_update(ma_progress *p, uint64_t done)
{
    atomic_store(&p->done, done);
    if (!p->quiet)
        maybe_print(p, done);
}

void ma_progress_finish(ma_progress *p, uint64_t done)
{
    if (!p->quiet && p->printed)
        print_line(p, done, ma_now(), " (done)\n");
    pthread_mutex_destroy(&p->label_lock);
}
