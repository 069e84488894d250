/* ma_progress: one progress display per run, shared by the worker threads (common/progress.h). */
#include "common/progress.h"


#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/counts.h"

#define TTY_DELAY 1.0      /* quick commands stay silent on a terminal too */
#define MAX_LINE 512       /* longest line drawn; terminals wider than this get a shorter line */

double ma_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The plain interval: MILLAUDIT_PROGRESS_INTERVAL when it is a number >= 0, else the default. 0
 * draws at every update: tests count the displays of a run, never its seconds. */
static double plain_interval(void)
{
    const char *s = getenv("MILLAUDIT_PROGRESS_INTERVAL");
    if (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (*end == 0 && v >= 0 && v < 86400)
            return v;
    }
    return MA_PROGRESS_PLAIN_INTERVAL;
}

void ma_progress_set_mode(ma_progress *p, ma_progress_mode mode)
{
    if (!p)
        return;
    p->mode = p->out ? mode : MA_PROGRESS_NONE;
    double v = plain_interval();
    if (p->mode == MA_PROGRESS_TTY) {
        /* a shorter interval asked for in the environment shortens the terminal's timing too */
        p->delay = v < TTY_DELAY ? v : TTY_DELAY;
        p->interval = v < MA_PROGRESS_TTY_INTERVAL ? v : MA_PROGRESS_TTY_INTERVAL;
    } else {
        p->delay = p->interval = v;
    }
}

void ma_progress_start(ma_progress *p, FILE *out, int quiet, const char *label, uint64_t total)
{
    if (!p)
        return;
    memset(p, 0, sizeof *p);
    p->out = out;
    p->total = total;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    snprintf(p->unit, sizeof p->unit, "entries");
    atomic_init(&p->done, 0);
    pthread_mutex_init(&p->paint_lock, NULL);
    pthread_mutex_init(&p->label_lock, NULL);
    ma_progress_mode mode = MA_PROGRESS_NONE;
    if (out && !quiet) {
        int fd = fileno(out);
        mode = fd >= 0 && isatty(fd) ? MA_PROGRESS_TTY : MA_PROGRESS_PLAIN;
        const char *env = getenv("MILLAUDIT_PROGRESS");
        if (env && !strcmp(env, "tty"))
            mode = MA_PROGRESS_TTY;
        else if (env && !strcmp(env, "plain"))
            mode = MA_PROGRESS_PLAIN;
        else if (env && !strcmp(env, "none"))
            mode = MA_PROGRESS_NONE;
    }
    ma_progress_set_mode(p, mode);
    p->start = ma_now();
    atomic_init(&p->last_print, p->start);
}

void ma_progress_set_label(ma_progress *p, const char *label)
{
    if (!p || p->finished)
        return;
    pthread_mutex_lock(&p->label_lock);
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    pthread_mutex_unlock(&p->label_lock);
}

void ma_progress_set_unit(ma_progress *p, const char *unit)
{
    if (!p || p->finished)
        return;
    pthread_mutex_lock(&p->label_lock);
    snprintf(p->unit, sizeof p->unit, "%s", unit ? unit : "entries");
    pthread_mutex_unlock(&p->label_lock);
}

void ma_progress_set_total(ma_progress *p, uint64_t total)
{
    if (!p || p->finished)
        return;
    pthread_mutex_lock(&p->label_lock);
    p->total = total;
    pthread_mutex_unlock(&p->label_lock);
}

/* "1.23M" style amounts for rates, "1.50 GiB" for byte counts. */
static void human(char *buf, size_t n, double v, int bytes)
{
    static const char *const si[] = {"", "k", "M", "G", "T"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    double base = bytes ? 1024.0 : 1000.0;
    while (v >= base && k < 4)
        v /= base, k++;
    if (bytes)
        snprintf(buf, n, k ? "%.2f %s" : "%.0f %s", v, bin[k]);
    else
        snprintf(buf, n, k ? "%.2f%s" : "%.0f%s", v, si[k]);
}

static void clock_text(char *buf, size_t n, double s)
{
    if (s < 0 || s > 1e8)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    snprintf(buf, n, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
}

/* The terminal's width, for cutting the line; 80 when it cannot be asked. */
static int tty_width(FILE *out)
{
    struct winsize ws;
    int fd = fileno(out);
    if (fd >= 0 && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w > 0 ? w : 80;
}

/* Composes the display for `done` at `now` into line (no newline, no control characters). final:
 * the closing line (elapsed time instead of an ETA). Called with label_lock held. */
static void compose(const ma_progress *p, char *line, size_t size, uint64_t done, double now, int final)
{
    double elapsed = now - p->start;
    double rate = elapsed > 0 ? (double)done / elapsed : 0.0;
    int bytes = !strcmp(p->unit, "bytes");
    int known = p->total && done <= p->total;
    double eta = known && rate > 0 ? (double)(p->total - done) / rate : -1;
    if (p->mode == MA_PROGRESS_TTY) {
        char d[32], t[32], r[48], c[64], amount[160];
        if (bytes) {
            human(d, sizeof d, (double)done, 1);
            human(t, sizeof t, (double)p->total, 1);
            human(r, sizeof r, rate, 1);
            snprintf(r + strlen(r), sizeof r - strlen(r), "/s");
        } else {
            ma_num(d, sizeof d, done);
            ma_num(t, sizeof t, p->total);
            human(r, sizeof r, rate, 0);
            snprintf(r + strlen(r), sizeof r - strlen(r), " %s/s", p->unit);
        }
        if (known)
            snprintf(amount, sizeof amount, "%s/%s%s%s %3d%%", d, t, bytes ? "" : " ", bytes ? "" : p->unit,
                     (int)(p->total ? done * 100 / p->total : 100));
        else
            snprintf(amount, sizeof amount, "%s%s%s", d, bytes ? "" : " ", bytes ? "" : p->unit);
        clock_text(c, sizeof c, final || eta < 0 ? elapsed : eta);
        /* the label last: a narrow terminal cuts it, not the figures */
        snprintf(line, size, "%s  %s  %s %s  %s", amount, r, c, final ? "total" : eta < 0 ? "elapsed" : "ETA",
                 p->label);
    } else if (known) {
        snprintf(line, size, "%s: %s/%s %s (%d%%), %s %s/s, %s %.0f s%s", p->label, MA_NUM(done), MA_NUM(p->total),
                 p->unit, (int)(done * 100 / p->total), MA_NUM((uint64_t)(rate + 0.5)), p->unit,
                 final ? "took" : "ETA", final ? elapsed : eta, final ? " (done)" : "");
    } else {
        snprintf(line, size, "%s: %s %s, %s %s/s, %.1f s%s", p->label, MA_NUM(done), p->unit,
                 MA_NUM((uint64_t)(rate + 0.5)), p->unit, elapsed, final ? " (done)" : "");
    }
    /* a label may come from a file name: never let it move the cursor */
    for (char *q = line; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f)
            *q = '?';
}

/* Draws the display; the caller holds paint_lock. */
static void paint(ma_progress *p, uint64_t done, double now, int final)
{
    char line[MAX_LINE];
    pthread_mutex_lock(&p->label_lock);
    compose(p, line, sizeof line, done, now, final);
    pthread_mutex_unlock(&p->label_lock);
    if (p->mode == MA_PROGRESS_TTY) {
        int w = tty_width(p->out) - 1; /* the last column would make some terminals wrap */
        if (w < 10)
            w = 10;
        if ((size_t)w < strlen(line))
            line[w] = 0;
        fprintf(p->out, "\r%s\033[K%s", line, final ? "\n" : "");
        p->shown = !final;
    } else {
        fprintf(p->out, "%s\n", line);
    }
    fflush(p->out);
    p->printed = 1;
    atomic_store(&p->last_print, now);
}

/* Draws when a display is due; only one thread draws at a time, the others go on working. */
static void maybe_paint(ma_progress *p, uint64_t done)
{
    if (p->mode == MA_PROGRESS_NONE)
        return;
    double now = ma_now();
    if (now - p->start < p->delay || now - atomic_load(&p->last_print) < p->interval)
        return;
    if (pthread_mutex_trylock(&p->paint_lock) != 0)
        return;
    if (now - atomic_load(&p->last_print) >= p->interval)
        paint(p, done, now, 0);
    pthread_mutex_unlock(&p->paint_lock);
}

void ma_progress_add(ma_progress *p, uint64_t units)
{
    if (!p)
        return;
    uint64_t done = atomic_fetch_add(&p->done, units) + units;
    maybe_paint(p, done);
}

void ma_progress_update(ma_progress *p, uint64_t done)
{
    if (!p)
        return;
    atomic_store(&p->done, done);
    maybe_paint(p, done);
}

void ma_progress_update_cb(void *reporter, uint64_t done)
{
    ma_progress_update(reporter, done);
}

void ma_progress_clear(ma_progress *p)
{
    if (!p || p->mode != MA_PROGRESS_TTY)
        return;
    pthread_mutex_lock(&p->paint_lock);
    if (p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->shown = 0;
    }
    pthread_mutex_unlock(&p->paint_lock);
}

void ma_progress_hold(ma_progress *p)
{
    if (!p || p->mode == MA_PROGRESS_NONE)
        return;
    pthread_mutex_lock(&p->paint_lock);
    if (p->mode == MA_PROGRESS_TTY && p->shown) {
        fputs("\r\033[K", p->out);
        fflush(p->out);
        p->shown = 0;
    }
}

void ma_progress_release(ma_progress *p)
{
    if (!p || p->mode == MA_PROGRESS_NONE)
        return;
    pthread_mutex_unlock(&p->paint_lock);
}

void ma_progress_finish(ma_progress *p, uint64_t done)
{
    if (!p || p->finished)
        return;
    pthread_mutex_lock(&p->paint_lock);
    if (p->mode != MA_PROGRESS_NONE && p->printed)
        paint(p, done, ma_now(), 1);
    p->mode = MA_PROGRESS_NONE; /* nothing draws or takes the locks any more */
    p->finished = 1;
    pthread_mutex_unlock(&p->paint_lock);
    pthread_mutex_destroy(&p->paint_lock);
    pthread_mutex_destroy(&p->label_lock);
}

/* ---- the opaque handle of the public API (millaudit/progress.h) ---- */

int ma_progress_create(ma_progress **out, FILE *stream, const char *label, ma_error *err)
{
    *out = malloc(sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_progress_start(*out, stream, stream == NULL, label, 0);
    return MA_OK;
}

uint64_t ma_progress_count(const ma_progress *p)
{
    return p ? atomic_load(&((ma_progress *)p)->done) : 0;
}

void ma_progress_free(ma_progress *p)
{
    if (!p)
        return;
    ma_progress_finish(p, atomic_load(&p->done));
    free(p);
}
