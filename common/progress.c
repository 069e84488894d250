/* ma_progress: rate-limited progress lines on stderr. */
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
    p->quiet = quiet;
    p->total = total;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->start = ma_now();
    p->last_print = p->start;
}

static void print_line(ma_progress *p, uint64_t done, double now, const char *end)
{
    double elapsed = now - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
    if (p->total && rate > 0 && done <= p->total)
        fprintf(p->out, "%s: %llu/%llu entries, %.0f entries/s, ETA %.0f s%s", p->label,
                (unsigned long long)done, (unsigned long long)p->total, rate,
                (double)(p->total - done) / rate, end);
    else
        fprintf(p->out, "%s: %llu entries, %.0f entries/s, %.1f s%s", p->label,
                (unsigned long long)done, rate, elapsed, end);
    fflush(p->out);
    p->printed = 1;
    p->last_print = now;
}

void ma_progress_update(ma_progress *p, uint64_t done)
{
    if (p->quiet || !p->out)
        return;
    double now = ma_now();
    if (now - p->start < 1.0 || now - p->last_print < 1.0)
        return;
    print_line(p, done, now, "\n");
}

void ma_progress_finish(ma_progress *p, uint64_t done)
{
    if (p->quiet || !p->out || !p->printed)
        return;
    print_line(p, done, ma_now(), " (done)\n");
}
