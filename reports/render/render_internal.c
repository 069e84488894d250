/*
 * The helpers every renderer of a report shares (reports/render/render_internal.h): boards and moves,
 * escaping and number formatting, the words and order of states, sectors and discrepancies, the
 * shards of a merged run. The lowest file of the report renderers: it calls none of them, so
 * render.c (text, Markdown, dispatch), render_html.c, render_json.c and render_charts.c all stand
 * on it without a circle.
 */
#include "reports/render/render_internal.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/progress.h"

/* The board as drawn: '*' marks the 24 points (replaced by '+', 'X' or 'O'). Row 0 is rank 7. */
const char *const ma_render_board_template[13] = {
    "*-----*-----*", "|     |     |", "| *---*---* |", "| |   |   | |", "| | *-*-* | |",
    "| | |   | | |", "*-*-*   *-*-*", "| | |   | | |", "| | *-*-* | |", "| |   |   | |",
    "| *---*---* |", "|     |     |", "*-----*-----*"};


/* ---------------------------------------------------------------- boards and moves */

static int is_point(const char *p)
{
    if (p[0] < 'a' || p[0] > 'g' || p[1] < '1' || p[1] > '7')
        return 0;
    return ma_render_board_template[(7 - (p[1] - '0')) * 2][(p[0] - 'a') * 2] == '*';
}

int ma_render_board_grid(const char *board, char grid[13][13], ma_error *err)
{
    memset(grid, 0, 13 * 13);
    if (!board)
        return ma_error_set(err, MA_EINVAL, "board: none recorded");
    const char *slash = strchr(board, '/');
    if (!slash || strchr(slash + 1, '/'))
        return ma_error_set(err, MA_EINVAL, "board '%.60s': not '<mover>/<opponent>'", board);
    for (int side = 0; side < 2; side++) {
        const char *p = side ? slash + 1 : board, *end = side ? board + strlen(board) : slash;
        if (end - p == 1 && *p == '-')
            continue;
        while (p < end) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            const char *q = comma ? comma : end;
            if (q - p != 2 || p[0] < 'a' || p[0] > 'g' || p[1] < '1' || p[1] > '7')
                return ma_error_set(err, MA_EINVAL, "board '%.60s': not a point at '%.*s'", board,
                                    (int)(q - p > 8 ? 8 : q - p), p);
            int row = (7 - (p[1] - '0')) * 2, col = (p[0] - 'a') * 2;
            if (ma_render_board_template[row][col] != '*')
                return ma_error_set(err, MA_EINVAL, "board '%.60s': %.2s is not a point of the board", board, p);
            if (grid[row][col])
                return ma_error_set(err, MA_EINVAL, "board '%.60s': %.2s holds two stones", board, p);
            grid[row][col] = side ? 'O' : 'X';
            p = comma ? comma + 1 : end;
            if (comma && p == end)
                return ma_error_set(err, MA_EINVAL, "board '%.60s': trailing comma", board);
        }
    }
    return MA_OK;
}

int ma_render_board_text(char *buf, size_t size, const char *board, ma_error *err)
{
    if (size < MA_RENDER_BOARD_SIZE)
        return ma_error_set(err, MA_EINVAL, "board: buffer too small");
    char grid[13][13];
    int rc = ma_render_board_grid(board, grid, err);
    if (rc)
        return rc;
    size_t k = 0;
    for (int row = 0; row < 13; row++) {
        buf[k++] = row % 2 ? ' ' : (char)('7' - row / 2);
        buf[k++] = ' ';
        for (int col = 0; col < 13; col++) {
            char c = ma_render_board_template[row][col];
            buf[k++] = c == '*' ? (grid[row][col] ? grid[row][col] : '+') : c;
        }
        buf[k++] = '\n';
    }
    memcpy(buf + k, "  a b c d e f g\n", 17);
    return MA_OK;
}

int ma_render_move_parse(const char *text, ma_move *m)
{
    memset(m, 0, sizeof *m);
    if (!text)
        return -1;
    const char *p = text;
    int place = 0;
    if (!strncmp(p, "place ", 6))
        place = 1, p += 6;
    if (!is_point(p))
        return -1;
    char first[3] = {p[0], p[1], 0};
    p += 2;
    if (!place && *p == '-') {
        if (!is_point(p + 1))
            return -1;
        memcpy(m->from, first, 3);
        m->to[0] = p[1], m->to[1] = p[2];
        p += 3;
        m->kind = 2;
    } else {
        memcpy(m->to, first, 3);
        m->kind = 1;
    }
    if (*p == 'x') {
        if (!is_point(p + 1))
            return m->kind = 0, -1;
        m->capture[0] = p[1], m->capture[1] = p[2];
        p += 3;
    }
    if (*p)
        return m->kind = 0, -1;
    return 0;
}

/* ---------------------------------------------------------------- escaping and formatting */

char *ma_render_html_escape(const char *s)
{
    if (!s)
        s = "";
    size_t n = 0;
    for (const char *p = s; *p; p++)
        n += *p == '&' ? 5 : *p == '<' || *p == '>' ? 4 : *p == '"' || *p == '\'' ? 6 : 1;
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = s; *p; p++) {
        const char *rep = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                        : *p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
        if (rep) {
            memcpy(o, rep, strlen(rep));
            o += strlen(rep);
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return out;
}

static int is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

void ma_out_str(ma_out *o, const char *s)
{
    FILE *f = o->f;
    if (!s) {
        fputs(o->fmt == MA_RENDER_HTML ? "&ndash;" : "-", f);
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (is_control(c) && !(o->fmt == MA_RENDER_HTML && c == '\t')) {
            fputc('?', f); /* a hostile string cannot move the cursor, forge lines or break a document */
            continue;
        }
        if (o->fmt == MA_RENDER_HTML) {
            switch (c) {
            case '&': fputs("&amp;", f); continue;
            case '<': fputs("&lt;", f); continue;
            case '>': fputs("&gt;", f); continue;
            case '"': fputs("&quot;", f); continue;
            case '\'': fputs("&#39;", f); continue;
            }
        } else if (o->fmt == MA_RENDER_MD) {
            if (strchr("|`*_[]\\", c)) {
                fputc('\\', f);
            } else if (c == '<') {
                fputs("&lt;", f);
                continue;
            }
        }
        fputc(c, f);
    }
}

void ma_out_strn(ma_out *o, const char *s, size_t max)
{
    if (!s || strlen(s) <= max) {
        ma_out_str(o, s);
        return;
    }
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--; /* never half a UTF-8 character */
    char *t = strndup(s, max);
    if (!t) {
        o->oom = 1;
        return;
    }
    ma_out_str(o, t);
    fputs("...", o->f);
    free(t);
}

void ma_out_printf(ma_out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->f, fmt, ap);
    va_end(ap);
}

const char *ma_fmt_count(char *buf, size_t n, int64_t v)
{
    if (v < 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    return ma_num(buf, n, (uint64_t)v);
}

const char *ma_fmt_rate(char *buf, size_t n, int64_t entries, double seconds)
{
    if (seconds <= 0 || entries <= 0) {
        snprintf(buf, n, "-");
        return buf;
    }
    double v = (double)entries / seconds;
    static const char *const si[] = {"", "k", "M", "G"};
    int k = 0;
    while (v >= 1000 && k < 3)
        v /= 1000, k++;
    snprintf(buf, n, k ? "%.2f%s/s" : "%.0f/s", v, si[k]);
    return buf;
}

const char *ma_state_words(ma_verdict_state s)
{
    switch (s) {
    case MA_VERDICT_VERIFIED: return "verified";
    case MA_VERDICT_WITHIN_BOUNDS: return "within bounds only";
    case MA_VERDICT_INCOMPLETE: return "incomplete";
    case MA_VERDICT_INTERRUPTED: return "interrupted";
    case MA_VERDICT_DISCREPANCIES: return "discrepancies";
    case MA_VERDICT_AGREE: return "values agree";
    case MA_VERDICT_DIFFER: return "values differ";
    case MA_VERDICT_RECORDED: return "recorded";
    case MA_VERDICT_PARTIAL: return "proves part of the database";
    case MA_VERDICT_DAMAGED: return "damaged";
    }
    return "unknown";
}

const char *ma_state_class(ma_verdict_state s)
{
    switch (s) {
    case MA_VERDICT_VERIFIED:
    case MA_VERDICT_AGREE: return "good";
    case MA_VERDICT_WITHIN_BOUNDS: return "warn";
    case MA_VERDICT_DISCREPANCIES:
    case MA_VERDICT_DIFFER:
    case MA_VERDICT_INCOMPLETE:
    case MA_VERDICT_DAMAGED: return "bad";
    default: return "grey";
    }
}

int ma_report_is_diff(const ma_report *r)
{
    return r->run.kind && !strcmp(r->run.kind, "diff");
}

const char *ma_render_variants(const ma_report *r, char *buf, size_t n)
{
    const char *v = r->run.variant;
    if (v && *v && strcmp(v, "-")) {
        snprintf(buf, n, "%s", v);
        return buf;
    }
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const char *name = r->run.sectors[i].sector;
        const char *us = name ? strchr(name, '_') : NULL;
        if (!us || us == name)
            continue;
        int len = (int)(us - name), dup = 0;
        for (const char *p = buf; *p && !dup; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 2 : 0))
            dup = (int)strcspn(p, ",") == len && !strncmp(p, name, (size_t)len);
        if (!dup && used + (size_t)len + 3 < n)
            used += (size_t)snprintf(buf + used, n - used, "%s%.*s", used ? ", " : "", len, name);
    }
    if (!buf[0])
        snprintf(buf, n, "-");
    return buf;
}

int ma_render_sector_rank(const ma_report *r, size_t i)
{
    if (r->sx[i].roots > 0)
        return 0;
    switch ((ma_verdict_state)r->sx[i].state) {
    case MA_VERDICT_DISCREPANCIES:
    case MA_VERDICT_DIFFER: return 1;
    case MA_VERDICT_VERIFIED:
    case MA_VERDICT_AGREE:
    case MA_VERDICT_RECORDED: return 3;
    default: return 2;
    }
}

/* Indexes 0..n-1 by rank(r, i) in 0..ranks-1, ties in recorded order (a stable bucket order:
 * ranks are few, so one pass per rank). NULL (o->oom set) when out of memory or n is 0. */
static size_t *order_by_rank(ma_out *o, const ma_report *r, size_t n, int ranks,
                             int (*rank)(const ma_report *, size_t))
{
    if (!n)
        return NULL;
    size_t *order = malloc(n * sizeof *order), k = 0;
    if (!order) {
        o->oom = 1;
        return NULL;
    }
    for (int g = 0; g < ranks; g++)
        for (size_t i = 0; i < n; i++)
            if (rank(r, i) == g)
                order[k++] = i;
    return order;
}

size_t *ma_render_sector_order(ma_out *o, const ma_report *r)
{
    return order_by_rank(o, r, r->run.n_sectors, 4, ma_render_sector_rank);
}

/* Roots first, then rows whose kind was not recorded (any other value), then propagated. */
static int disc_rank(const ma_report *r, size_t i)
{
    return r->dx[i].root == 1 ? 0 : r->dx[i].root == 0 ? 2 : 1;
}

size_t *ma_render_disc_order(ma_out *o, const ma_report *r)
{
    return order_by_rank(o, r, r->run.n_disc, 3, disc_rank);
}

static int find_sector_index(const ma_report *r, const char *name, size_t *at)
{
    size_t lo = 0, hi = r->run.n_sectors;
    while (lo < hi) { /* run.sectors is sorted by name */
        size_t mid = (lo + hi) / 2;
        int c = strcmp(r->run.sectors[mid].sector ? r->run.sectors[mid].sector : "", name);
        if (!c) {
            *at = mid;
            return 1;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = 0; i < r->run.n_sectors; i++) /* a run built by hand need not be sorted */
        if (r->run.sectors[i].sector && !strcmp(r->run.sectors[i].sector, name))
            return *at = i, 1;
    return 0;
}

int ma_render_rows_of(ma_out *o, const ma_report *r, ma_render_rows *out)
{
    size_t n = r->run.n_sectors, m = r->run.n_disc;
    memset(out, 0, sizeof *out);
    size_t *of = malloc((m ? m : 1) * sizeof *of), *fill = calloc(n + 1, sizeof *fill);
    out->idx = malloc((m ? m : 1) * sizeof *out->idx);
    out->start = calloc(n + 1, sizeof *out->start);
    out->count = calloc(n + 1, sizeof *out->count);
    if (!of || !fill || !out->idx || !out->start || !out->count) {
        free(of), free(fill);
        ma_render_rows_free(out);
        o->oom = 1;
        return -1;
    }
    /* rows of a sector the run has no result for go to the extra slot n (never shown) */
    for (size_t k = 0; k < m; k++) {
        size_t i = n;
        if (!r->run.disc[k].sector || !find_sector_index(r, r->run.disc[k].sector, &i))
            i = n;
        of[k] = i;
        out->count[i]++;
    }
    for (size_t i = 1; i <= n; i++)
        out->start[i] = out->start[i - 1] + out->count[i - 1];
    for (int rank = 0; rank < 3; rank++) /* roots, not recorded, propagated: stable within each */
        for (size_t k = 0; k < m; k++) {
            int rk = r->dx[k].root == 1 ? 0 : r->dx[k].root == 0 ? 2 : 1;
            if (rk == rank)
                out->idx[out->start[of[k]] + fill[of[k]]++] = k;
        }
    free(of), free(fill);
    return 0;
}

void ma_render_rows_free(ma_render_rows *rows)
{
    free(rows->idx), free(rows->start), free(rows->count);
    memset(rows, 0, sizeof *rows);
}

int ma_render_sector_shown(const ma_report *r, size_t i)
{
    return !r->only || (r->run.sectors[i].sector && !strcmp(r->run.sectors[i].sector, r->only));
}

static int of_variant(const char *sector, const char *variant)
{
    if (!variant)
        return 1;
    size_t n = strlen(variant);
    return sector && !strncmp(sector, variant, n) && sector[n] == '_';
}

int ma_render_depth_bins(const ma_report *r, const char *variant, int64_t *wins, int64_t *losses, int cap,
                         ma_render_depths *out)
{
    int any = 0;
    *out = (ma_render_depths){.draws = 0, .max = 0, .maxd = -1};
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const ma_run_sector *s = &r->run.sectors[i];
        if (!of_variant(s->sector, variant) || !ma_render_sector_shown(r, i))
            continue;
        for (size_t k = 0; k < s->n_bins; k++) {
            const ma_run_bin *b = &s->bins[k];
            const char *oc = b->outcome ? b->outcome : "";
            any = 1;
            if (!strcmp(oc, "draw")) {
                out->draws += b->count;
                continue;
            }
            if (b->depth < 0 || b->depth >= cap)
                continue;
            int64_t *slot = !strcmp(oc, "win") ? &wins[b->depth] : !strcmp(oc, "loss") ? &losses[b->depth] : NULL;
            if (!slot)
                continue;
            *slot += b->count;
            out->max = *slot > out->max ? *slot : out->max;
            out->maxd = b->depth > out->maxd ? (int)b->depth : out->maxd;
        }
    }
    return any;
}

void ma_render_sector_command(char *buf, size_t size, const ma_report *r, const char *sector)
{
    char store[1100];
    ma_report_shell_word(store, sizeof store, r->store_path ? r->store_path : "STORE");
    snprintf(buf, size, "millaudit report --audit %.1100s --run %lld --sector %.60s", store, (long long)r->run.id,
             sector ? sector : "S");
}

/* The shards a merged run was made of (docs/distributed.md), in any of the three formats. */
void ma_render_shards(ma_out *o, const ma_report *r)
{
    const ma_run *run = &r->run;
    if (!run->n_shards)
        return;
    int html = o->fmt == MA_RENDER_HTML, md = o->fmt == MA_RENDER_MD;
    long long count = (long long)run->shards[0].shard_count;
    if (html)
        ma_out_printf(o, "<h2>Shards</h2>\n<p>merged from %s of %s</p>\n<table>\n"
                         "<tr><th>shard</th><th>store</th><th>run</th><th>host</th><th>started</th><th>ended</th>"
                         "<th>status</th><th>sectors</th><th>command line</th></tr>\n", MA_NUM(run->n_shards),
                      MA_COUNT((uint64_t)count, "shard", "shards"));
    else if (md)
        ma_out_printf(o, "\n## Shards\n\nmerged from %s of %s\n\n| shard | store | run | host | started "
                         "| ended | status | sectors | command line |\n|---|---|---:|---|---|---|---|---:|---|\n",
                      MA_NUM(run->n_shards), MA_COUNT((uint64_t)count, "shard", "shards"));
    else
        ma_out_printf(o, "\nShards (merged from %s of %s)\n", MA_NUM(run->n_shards),
                      MA_COUNT((uint64_t)count, "shard", "shards"));
    const char *open = html ? "<tr><td>" : "| ", *sep = html ? "</td><td>" : " | ";
    for (size_t i = 0; i < run->n_shards; i++) {
        const ma_run_shard *x = &run->shards[i];
        char sec[48];
        if (x->planned_sectors >= 0)
            snprintf(sec, sizeof sec, "%s of %s", MA_NUM((uint64_t)x->sectors), MA_NUM((uint64_t)x->planned_sectors));
        else
            snprintf(sec, sizeof sec, "%s", MA_NUM((uint64_t)x->sectors));
        const char *ended = x->ended_at ? x->ended_at : "never", *status = x->status ? x->status : "unfinished";
        if (html || md) {
            ma_out_printf(o, "%s%lld/%lld%s", open, (long long)x->shard_index, (long long)x->shard_count, sep);
            ma_out_str(o, x->source);
            ma_out_printf(o, "%s%lld%s", sep, (long long)x->source_run_id, sep);
            const char *cells[] = {x->host, x->started_at, ended, status};
            for (int k = 0; k < 4; k++) {
                ma_out_str(o, cells[k]);
                ma_out_printf(o, "%s", sep);
            }
            ma_out_printf(o, "%s%s", sec, sep);
            ma_out_str(o, x->command_line);
            ma_out_printf(o, html ? "</td></tr>\n" : " |\n");
        } else {
            ma_out_printf(o, "  shard %lld/%lld ", (long long)x->shard_index, (long long)x->shard_count);
            ma_out_str(o, x->source);
            ma_out_printf(o, " run %lld, host ", (long long)x->source_run_id);
            ma_out_str(o, x->host);
            ma_out_printf(o, ", ");
            ma_out_str(o, x->started_at);
            ma_out_printf(o, " .. ");
            ma_out_str(o, ended);
            ma_out_printf(o, ", ");
            ma_out_str(o, status);
            ma_out_printf(o, ", %s %s\n    ", sec,
                          ma_noun((uint64_t)(x->planned_sectors >= 0 ? x->planned_sectors : x->sectors), "sector",
                                  "sectors"));
            ma_out_str(o, x->command_line);
            ma_out_printf(o, "\n");
        }
    }
    if (html)
        ma_out_printf(o, "</table>\n");
}


void ma_render_run_facts(const ma_report *r, char *variants, size_t n, ma_render_fact f[MA_RENDER_RUN_FACTS])
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    const ma_render_fact facts[MA_RENDER_RUN_FACTS] = {
        {diff ? "A (database root)" : "database root", x->database_root},
        {diff ? "B" : NULL, r->side_b ? r->side_b : "not recorded by the build that ran it"},
        {"kind", x->kind},
        {r->mode ? "mode" : NULL, r->mode},
        {"variant", ma_render_variants(r, variants, n)},
        {"format", x->format},
        {"started", x->started_at},
        {"ended", x->ended_at ? x->ended_at : "never (interrupted or still running)"},
        {"recorded status", x->status},
        {"tool version", x->tool_version},
        {"git revision", x->git_revision},
        {"host", x->host},
        {"command line", x->command_line},
        {r->options ? "options" : NULL, r->options}};
    for (int i = 0; i < MA_RENDER_RUN_FACTS; i++)
        f[i] = facts[i];
}
