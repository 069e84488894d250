/* Rendering a report: dispatch, the Markdown budget, atomic writing (reports/render/render.h); text and
 * Markdown are render_text.c's, the helpers every renderer shares render_internal.c's. */
#include "reports/render/render.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/counts.h"
#include "common/output.h"
#include "reports/render/render_internal.h"

int ma_render_format_parse(const char *name, ma_render_format *out, ma_error *err)
{
    static const char *const names[] = {"text", "md", "json", "html"};
    for (int i = 0; i < 4; i++)
        if (name && !strcmp(name, names[i])) {
            *out = (ma_render_format)i;
            return MA_OK;
        }
    return ma_error_set(err, MA_EINVAL, "unknown format '%s' (text, md, json, html)", name ? name : "");
}

/* One rendering of a text, Markdown or HTML report at a level of detail into *buf. */
static int render_once(char **buf, size_t *n, const ma_report *r, ma_render_format fmt, int level)
{
    *buf = NULL;
    *n = 0;
    ma_out o = {open_memstream(buf, n), 0, fmt};
    if (!o.f)
        return MA_ENOMEM;
    if (fmt == MA_RENDER_HTML)
        ma_render_html(&o, r);
    else
        ma_render_text(&o, r, fmt == MA_RENDER_MD, level);
    if (fclose(o.f) != 0 || o.oom || !*buf) {
        free(*buf);
        *buf = NULL;
        return MA_ENOMEM;
    }
    return MA_OK;
}

/* The last resort of the Markdown budget: the document cut at a line end so that a note saying
 * so fits, an open code fence closed first; a single line longer than half the budget (a hostile or
 * huge store string) is cut inside, at a UTF-8 character's start, rather than losing all before it. */
static void cut_to_fit(char *buf, size_t *n, const ma_report *r)
{
    char store[1100], note[1400];
    ma_report_shell_word(store, sizeof store, r->store_path ? r->store_path : "STORE");
    int len = snprintf(note, sizeof note, "\n> **This report was cut to fit %s characters; `millaudit report --audit "
                                          "%.1100s --run %lld --format text` has all of it.**\n",
                       MA_NUM(MA_RENDER_MD_MAX), store, (long long)r->run.id);
    size_t keep = MA_RENDER_MD_MAX - (size_t)len - 8; /* room for a closing fence and a newline */
    size_t line = keep;
    while (line > 0 && buf[line - 1] != '\n')
        line--;
    if (line >= keep / 2) {
        keep = line;
    } else {
        while (keep > 0 && ((unsigned char)buf[keep] & 0xC0) == 0x80)
            keep--;
        buf[keep++] = '\n';
    }
    size_t fences = 0;
    for (size_t i = 0; i + 3 <= keep; i++)
        if ((i == 0 || buf[i - 1] == '\n') && !strncmp(buf + i, "```", 3))
            fences++;
    size_t k = keep;
    if (fences % 2)
        k += (size_t)sprintf(buf + k, "```\n");
    memcpy(buf + k, note, (size_t)len + 1);
    *n = k + (size_t)len;
}

int ma_render_report(char **outp, size_t *len, const ma_report *r, ma_render_format fmt, ma_error *err)
{
    *outp = NULL;
    *len = 0;
    if (fmt == MA_RENDER_JSON) {
        int rc = ma_render_json(outp, r, err);
        if (rc == MA_OK)
            *len = strlen(*outp);
        return rc;
    }
    char *buf = NULL;
    size_t n = 0;
    /* Markdown goes where GitHub shows it (a job summary, a comment): at most MA_RENDER_MD_MAX
     * characters, however large the run. Each level lists less; the last is cut to fit. */
    int last = fmt == MA_RENDER_MD ? MA_RENDER_LEVELS - 1 : 0;
    for (int level = 0; level <= last; level++) {
        free(buf);
        if (render_once(&buf, &n, r, fmt, level) != MA_OK)
            return ma_error_set(err, MA_ENOMEM, "report: out of memory");
        if (fmt != MA_RENDER_MD || n <= MA_RENDER_MD_MAX)
            break;
    }
    if (fmt == MA_RENDER_MD && n > MA_RENDER_MD_MAX)
        cut_to_fit(buf, &n, r);
    *outp = buf;
    *len = n;
    return MA_OK;
}

int ma_render_write_atomic(const char *path, const char *data, size_t len, ma_error *err)
{
    /* common/output: "-", devices and FIFOs written through; regular files atomically */
    return ma_output_write(path, data, len, err);
}
