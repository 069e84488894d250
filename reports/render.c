/* Rendering an audit run as text, Markdown, JSON or self-contained HTML (reports/render.h). */
#include "reports/render.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_BOARDS 50 /* discrepancies drawn as boards; the rest are listed as rows */

/* The board as drawn: '*' marks the 24 points (replaced by '+', 'X' or 'O'). Row 0 is rank 7. */
static const char *const board_template[13] = {
    "*-----*-----*", "|     |     |", "| *---*---* |", "| |   |   | |", "| | *-*-* | |",
    "| | |   | | |", "*-*-*   *-*-*", "| | |   | | |", "| | *-*-* | |", "| |   |   | |",
    "| *---*---* |", "|     |     |", "*-----*-----*"};

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

/* Parses "a1,d1/c3" into grid marks: grid[row][col] = 'X' / 'O' at point (file, rank). */
static int parse_board(const char *board, char grid[13][13], ma_error *err)
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
            if (board_template[row][col] != '*')
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
    int rc = parse_board(board, grid, err);
    if (rc)
        return rc;
    size_t k = 0;
    for (int row = 0; row < 13; row++) {
        buf[k++] = row % 2 ? ' ' : (char)('7' - row / 2);
        buf[k++] = ' ';
        for (int col = 0; col < 13; col++) {
            char c = board_template[row][col];
            buf[k++] = c == '*' ? (grid[row][col] ? grid[row][col] : '+') : c;
        }
        buf[k++] = '\n';
    }
    memcpy(buf + k, "  a b c d e f g\n", 17);
    return MA_OK;
}

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

/* ---- helpers over a memstream ---- */

typedef struct out {
    FILE *f;
    int oom;
} out;

/* Prints s, NULL as "-". Text formats print control characters as '?', so a hostile string in the
 * store cannot move the cursor or forge lines. */
static void put_plain(out *o, const char *s)
{
    if (!s) {
        fputs("-", o->f);
        return;
    }
    for (; *s; s++)
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, o->f);
}

/* Markdown: as plain, and '|' '`' '<' escaped so a cell stays a cell. */
static void put_md(out *o, const char *s)
{
    if (!s) {
        fputs("-", o->f);
        return;
    }
    for (; *s; s++) {
        if (*s == '|' || *s == '`' || *s == '*' || *s == '_' || *s == '[' || *s == ']' || *s == '\\')
            fputc('\\', o->f), fputc(*s, o->f);
        else if (*s == '<')
            fputs("&lt;", o->f);
        else
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, o->f);
    }
}

static void put_html(out *o, const char *s)
{
    if (!s) {
        fputs("&ndash;", o->f);
        return;
    }
    char *e = ma_render_html_escape(s);
    if (!e) {
        o->oom = 1;
        return;
    }
    /* control characters would make the document ill-formed: drop to '?' */
    for (char *p = e; *p; p++)
        fputc((unsigned char)*p < 0x20 && *p != '\t' ? '?' : *p, o->f);
    free(e);
}

/* Bars for a chart: label and value. */
typedef struct bar {
    char label[64];
    int64_t value;
} bar;

/* Outcome/depth histogram totals of the whole run, or discrepancy class totals when no histogram
 * was recorded. *is_hist tells which. Caller frees. */
static bar *chart_bars(const ma_run *r, size_t *n, int *is_hist)
{
    *n = 0;
    *is_hist = 0;
    size_t total_bins = 0, total_cls = 0;
    for (size_t i = 0; i < r->n_sectors; i++)
        total_bins += r->sectors[i].n_bins, total_cls += r->sectors[i].n_classes;
    *is_hist = total_bins > 0;
    size_t cap = (*is_hist ? total_bins : total_cls) + 1;
    bar *b = calloc(cap, sizeof *b);
    if (!b)
        return NULL;
    for (size_t i = 0; i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        size_t m = *is_hist ? x->n_bins : x->n_classes;
        for (size_t k = 0; k < m; k++) {
            char label[64];
            int64_t v;
            if (*is_hist) {
                if (!strcmp(x->bins[k].outcome ? x->bins[k].outcome : "", "draw"))
                    snprintf(label, sizeof label, "draw");
                else
                    snprintf(label, sizeof label, "%.8s %lld", x->bins[k].outcome ? x->bins[k].outcome : "?",
                             (long long)x->bins[k].depth);
                v = x->bins[k].count;
            } else {
                snprintf(label, sizeof label, "%.60s", x->classes[k].cls ? x->classes[k].cls : "?");
                v = x->classes[k].count;
            }
            size_t j;
            for (j = 0; j < *n; j++)
                if (!strcmp(b[j].label, label))
                    break;
            if (j == *n) {
                memcpy(b[j].label, label, sizeof label);
                (*n)++;
            }
            b[j].value += v;
        }
    }
    return b;
}

static int64_t max_bar(const bar *b, size_t n)
{
    int64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].value > m)
            m = b[i].value;
    return m;
}

struct fact {
    const char *name;
    const char *value;
};

static void facts(const ma_run *r, struct fact f[11])
{
    struct fact v[11] = {{"kind", r->kind}, {"tool version", r->tool_version}, {"git revision", r->git_revision},
                         {"host", r->host}, {"command line", r->command_line}, {"database root", r->database_root},
                         {"variant", r->variant}, {"format", r->format}, {"started", r->started_at},
                         {"ended", r->ended_at ? r->ended_at : "never (interrupted or still running)"},
                         {"status", r->status}};
    memcpy(f, v, sizeof v);
}

static const char NO_MANIFEST[] =
    "NO MANIFEST RECORDED: this run does not name the bytes it checked; its result cannot be tied to files";

/* ---- the shards of a merged run (docs/distributed.md) ---- */

static void render_shards(out *o, const ma_run *r, ma_render_format fmt)
{
    if (!r->n_shards)
        return;
    FILE *f = o->f;
    void (*put)(out *, const char *) = fmt == MA_RENDER_HTML ? put_html : fmt == MA_RENDER_MD ? put_md : put_plain;
    int64_t count = r->shards[0].shard_count;
    if (fmt == MA_RENDER_HTML)
        fprintf(f, "<h2>Shards</h2>\n<p>merged from %zu of %lld shards</p>\n<table>\n<tr><th>shard</th><th>store"
                   "</th><th>run</th><th>host</th><th>started</th><th>ended</th><th>status</th><th>sectors</th>"
                   "<th>command line</th></tr>\n", r->n_shards, (long long)count);
    else if (fmt == MA_RENDER_MD)
        fprintf(f, "\n## Shards\n\nmerged from %zu of %lld shards\n\n| shard | store | run | host | started | ended "
                   "| status | sectors | command line |\n|---|---|---:|---|---|---|---|---:|---|\n",
                r->n_shards, (long long)count);
    else
        fprintf(f, "\nShards (merged from %zu of %lld)\n", r->n_shards, (long long)count);
    for (size_t i = 0; i < r->n_shards; i++) {
        const ma_run_shard *x = &r->shards[i];
        const char *cells[] = {x->source, x->host, x->started_at, x->ended_at ? x->ended_at : "never",
                               x->status ? x->status : "unfinished", x->command_line};
        char idx[48], run[24], sec[48];
        snprintf(idx, sizeof idx, "%lld/%lld", (long long)x->shard_index, (long long)x->shard_count);
        snprintf(run, sizeof run, "%lld", (long long)x->source_run_id);
        if (x->planned_sectors >= 0)
            snprintf(sec, sizeof sec, "%lld of %lld", (long long)x->sectors, (long long)x->planned_sectors);
        else
            snprintf(sec, sizeof sec, "%lld", (long long)x->sectors);
        if (fmt == MA_RENDER_HTML || fmt == MA_RENDER_MD) {
            const char *open = fmt == MA_RENDER_HTML ? "<tr><td>" : "| ";
            const char *sep = fmt == MA_RENDER_HTML ? "</td><td>" : " | ";
            fprintf(f, "%s%s%s", open, idx, sep);
            put(o, cells[0]);
            fprintf(f, "%s%s%s", sep, run, sep);
            for (int k = 1; k <= 4; k++) {
                put(o, cells[k]);
                fputs(sep, f);
            }
            fprintf(f, "%s%s", sec, sep);
            put(o, cells[5]);
            fputs(fmt == MA_RENDER_HTML ? "</td></tr>\n" : " |\n", f);
        } else {
            fprintf(f, "  shard %-7s ", idx);
            put(o, cells[0]);
            fprintf(f, " run %s, host ", run);
            put(o, cells[1]);
            fputs(", ", f);
            put(o, cells[2]);
            fputs(" .. ", f);
            put(o, cells[3]);
            fputs(", ", f);
            put(o, cells[4]);
            fprintf(f, ", %s sectors\n    ", sec);
            put(o, cells[5]);
            fputs("\n", f);
        }
    }
    if (fmt == MA_RENDER_HTML)
        fputs("</table>\n", f);
}

/* ---- text and Markdown ---- */

static void render_text(out *o, const ma_run *r, int md)
{
    FILE *f = o->f;
    void (*put)(out *, const char *) = md ? put_md : put_plain;
    struct fact fs[11];
    facts(r, fs);
    if (md)
        fprintf(f, "# millaudit report: run %lld\n\n| fact | value |\n|---|---|\n", (long long)r->id);
    else
        fprintf(f, "millaudit report: run %lld\n\n", (long long)r->id);
    for (int i = 0; i < 11; i++) {
        fprintf(f, md ? "| %s | " : "  %-14s ", fs[i].name);
        put(o, fs[i].value);
        fputs(md ? " |\n" : "\n", f);
    }
    if (r->imported) {
        fprintf(f, md ? "| imported from | " : "  %-14s ", "imported from");
        put(o, r->import_source);
        fprintf(f, " (run %lld there, imported %s)%s", (long long)r->import_source_run_id,
                r->imported_at ? r->imported_at : "?", md ? " |\n" : "\n");
    }

    render_shards(o, r, md ? MA_RENDER_MD : MA_RENDER_TEXT);
    fputs(md ? "\n## Manifest of the bytes checked\n\n" : "\nManifest of the bytes checked\n", f);
    if (!r->n_files) {
        fprintf(f, md ? "> **%s**\n" : "  !!! %s !!!\n", NO_MANIFEST);
    } else {
        if (md)
            fputs("| sha256 | size | path | sector |\n|---|---:|---|---|\n", f);
        for (size_t i = 0; i < r->n_files; i++) {
            const ma_run_file *x = &r->files[i];
            fputs(md ? "| `" : "  ", f);
            put(o, x->sha256);
            fprintf(f, md ? "` | %lld | " : "  %12lld  ", (long long)x->size);
            put(o, x->path);
            fputs(md ? " | " : "  ", f);
            put(o, x->sector);
            fputs(md ? " |\n" : "\n", f);
        }
        fprintf(f, md ? "\n%zu files, chunk size %lld bytes\n" : "  %zu files, chunk size %lld bytes\n",
                r->n_files, (long long)r->manifest_chunk_size);
    }

    fputs(md ? "\n## Sectors\n\n" : "\nSectors\n", f);
    if (!r->n_sectors)
        fputs(md ? "No sector results recorded.\n" : "  no sector results recorded\n", f);
    else if (md)
        fputs("| sector | entries | checked | verified | within bounds | discrepancies | classes | seconds | status |"
              " derived digest |\n|---|---:|---:|---:|---:|---:|---|---:|---|---|\n", f);
    else
        fprintf(f, "  %-22s %12s %12s %12s %10s %8s %8s  %-14s %s\n", "sector", "entries", "checked", "verified",
                "in-bounds", "discrep", "seconds", "status", "classes");
    for (size_t i = 0; i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        if (md) {
            fputs("| ", f);
            put(o, x->sector);
            fprintf(f, " | %lld | %lld | %lld | %lld | %lld | ", (long long)x->entries, (long long)x->checked,
                    (long long)x->verified, (long long)x->within_bounds, (long long)x->discrepancies);
        } else {
            char name[23];
            snprintf(name, sizeof name, "%s", x->sector);
            for (char *q = name; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    *q = '?';
            fprintf(f, "  %-22s", name);
            fprintf(f, " %12lld %12lld %12lld %10lld %8lld %8.2f  ", (long long)x->entries, (long long)x->checked,
                    (long long)x->verified, (long long)x->within_bounds, (long long)x->discrepancies, x->seconds);
            char st[15];
            snprintf(st, sizeof st, "%s", x->status ? x->status : "-");
            for (char *q = st; *q; q++)
                if ((unsigned char)*q < 0x20 || *q == 0x7f)
                    *q = '?';
            fprintf(f, "%-14s ", st);
        }
        for (size_t k = 0; k < x->n_classes; k++) {
            fputs(k ? ", " : "", f);
            put(o, x->classes[k].cls);
            fprintf(f, "=%lld", (long long)x->classes[k].count);
        }
        if (!x->n_classes)
            fputs("-", f);
        if (md) {
            fprintf(f, " | %.2f | ", x->seconds);
            put(o, x->status);
            fputs(x->derived_sha256 ? " | `" : " | ", f);
            put(o, x->derived_sha256);
            fputs(x->derived_sha256 ? "` |\n" : " |\n", f);
        } else {
            fputs("\n", f);
            if (x->message) {
                fputs("      message: ", f);
                put(o, x->message);
                fputs("\n", f);
            }
            if (x->derived_sha256) {
                fputs("      derived values: ", f);
                put(o, x->derived_sha256);
                fprintf(f, " (%lld positions)\n", (long long)x->derived_positions);
            }
        }
    }

    fprintf(f, md ? "\n## Discrepancies (%zu rows recorded)\n\n" : "\nDiscrepancies (%zu rows recorded)\n",
            r->n_disc);
    for (size_t i = 0; i < r->n_disc; i++) {
        const ma_run_discrepancy *d = &r->disc[i];
        fputs(md ? "### " : "  ", f);
        put(o, d->sector);
        fprintf(f, " entry %lld: ", (long long)d->entry);
        put(o, d->cls);
        fputs(md ? "\n\n- board: `" : "\n    board ", f);
        put(o, d->board);
        fputs(md ? "` (mover X, opponent O)\n- stored: " : " (mover X, opponent O)\n    stored ", f);
        put(o, d->stored);
        fputs(md ? "\n- derived: " : ", derived ", f);
        put(o, d->derived);
        fputs("\n", f);
        if (i < MAX_BOARDS) {
            char board[MA_RENDER_BOARD_SIZE];
            ma_error e;
            if (ma_render_board_text(board, sizeof board, d->board, &e) == MA_OK) {
                fputs(md ? "\n```\n" : "", f);
                if (md) {
                    fputs(board, f);
                } else {
                    for (char *line = board; *line;) {
                        char *nl = strchr(line, '\n');
                        fprintf(f, "      %.*s\n", (int)(nl - line), line);
                        line = nl + 1;
                    }
                }
                fputs(md ? "```\n\n" : "", f);
            } else {
                fputs(md ? "\n(board not drawable: " : "      (board not drawable: ", f);
                put(o, e.msg);
                fputs(")\n", f);
            }
        } else if (i == MAX_BOARDS) {
            fprintf(f, md ? "\n(boards drawn for the first %d rows only)\n\n" : "    (boards drawn for the first %d rows only)\n",
                    MAX_BOARDS);
        }
    }
    if (!r->n_disc)
        fputs(md ? "None.\n" : "  none\n", f);

    size_t nb;
    int is_hist;
    bar *b = chart_bars(r, &nb, &is_hist);
    if (!b) {
        o->oom = 1;
        return;
    }
    fputs(md ? "\n## " : "\n", f);
    fputs(is_hist ? "Outcome and depth histogram (positions, all sectors)\n"
                  : "Discrepancy classes (all sectors; no outcome/depth histogram recorded)\n", f);
    int64_t m = max_bar(b, nb);
    if (md && nb)
        fputs("\n```\n", f);
    for (size_t i = 0; i < nb; i++) {
        int w = m ? (int)((b[i].value * 40 + m - 1) / m) : 0;
        fprintf(f, "  %-24s %12lld ", b[i].label, (long long)b[i].value);
        for (int k = 0; k < w; k++)
            fputc('#', f);
        fputc('\n', f);
    }
    if (md && nb)
        fputs("```\n", f);
    if (!nb)
        fputs(md ? "\nNothing to chart.\n" : "  nothing to chart\n", f);
    free(b);
}

/* ---- HTML ---- */

static int point_xy(const char *p, int *x, int *y)
{
    if (p[0] < 'a' || p[0] > 'g' || p[1] < '1' || p[1] > '7')
        return -1;
    *x = 15 + (p[0] - 'a') * 25;
    *y = 15 + (7 - (p[1] - '0')) * 25;
    return 0;
}

static void svg_board(out *o, const char *board)
{
    FILE *f = o->f;
    char grid[13][13];
    ma_error e;
    if (parse_board(board, grid, &e)) {
        fputs("<p class=\"warn\">board not drawable: ", f);
        put_html(o, e.msg);
        fputs("</p>", f);
        return;
    }
    fputs("<svg class=\"board\" width=\"180\" height=\"180\" viewBox=\"0 0 180 180\">"
          "<rect x=\"0\" y=\"0\" width=\"180\" height=\"180\" fill=\"#f3e2bd\"/>"
          "<g stroke=\"#5b4636\" stroke-width=\"2\" fill=\"none\">"
          "<rect x=\"15\" y=\"15\" width=\"150\" height=\"150\"/><rect x=\"40\" y=\"40\" width=\"100\" height=\"100\"/>"
          "<rect x=\"65\" y=\"65\" width=\"50\" height=\"50\"/>"
          "<path d=\"M90 15V65M90 115V165M15 90H65M115 90H165\"/></g>", f);
    for (int row = 0; row < 13; row += 2)
        for (int col = 0; col < 13; col += 2) {
            if (board_template[row][col] != '*')
                continue;
            char p[3] = {(char)('a' + col / 2), (char)('7' - row / 2), 0};
            int x, y;
            point_xy(p, &x, &y);
            char g = grid[row][col];
            if (g == 'X')
                fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"9\" fill=\"#111\"/>", x, y);
            else if (g == 'O')
                fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"9\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"2\"/>", x, y);
            else
                fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#5b4636\"/>", x, y);
        }
    fputs("</svg>", f);
}

static void svg_chart(out *o, const bar *b, size_t n)
{
    FILE *f = o->f;
    int64_t m = max_bar(b, n);
    int h = 24 + (int)n * 22;
    fprintf(f, "<svg class=\"chart\" width=\"760\" height=\"%d\" "
               "viewBox=\"0 0 760 %d\">", h, h);
    for (size_t i = 0; i < n; i++) {
        int y = 12 + (int)i * 22;
        int w = m ? (int)(b[i].value * 480 / m) : 0;
        if (b[i].value && w < 2)
            w = 2;
        fprintf(f, "<text x=\"0\" y=\"%d\" font-size=\"13\" fill=\"#222\">", y + 13);
        put_html(o, b[i].label);
        fprintf(f, "</text><rect x=\"180\" y=\"%d\" width=\"%d\" height=\"16\" fill=\"#3b6ea5\"/>"
                   "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#222\">%lld</text>",
                y, w, 186 + w, y + 13, (long long)b[i].value);
    }
    fputs("</svg>", f);
}

static void render_html(out *o, const ma_run *r)
{
    FILE *f = o->f;
    struct fact fs[11];
    facts(r, fs);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>millaudit report: run %lld</title>\n<style>\n"
               "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}\n"
               "table{border-collapse:collapse;margin:8px 0}\n"
               "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left}\n"
               "td.n{text-align:right}\nth{background:#e8eef6}\n"
               "code{font-size:12px}\n.warn{background:#c0392b;color:#fff;padding:10px;font-weight:bold}\n"
               ".ok{color:#1e7b34;font-weight:bold}.bad{color:#c0392b;font-weight:bold}\n"
               ".disc{display:inline-block;vertical-align:top;margin:6px;padding:6px;border:1px solid #ccc}\n"
               "</style>\n</head>\n<body>\n<h1>millaudit report: run %lld</h1>\n<table>\n",
            (long long)r->id, (long long)r->id);
    for (int i = 0; i < 11; i++) {
        fprintf(f, "<tr><th>%s</th><td>", fs[i].name);
        if (i == 10)
            fprintf(f, "<span class=\"%s\">", r->status && !strcmp(r->status, "ok") ? "ok" : "bad");
        put_html(o, fs[i].value);
        fputs(i == 10 ? "</span></td></tr>\n" : "</td></tr>\n", f);
    }
    if (r->imported) {
        fputs("<tr><th>imported from</th><td>", f);
        put_html(o, r->import_source);
        fprintf(f, " (run %lld there, imported ", (long long)r->import_source_run_id);
        put_html(o, r->imported_at);
        fputs(")</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    render_shards(o, r, MA_RENDER_HTML);
    fputs("<h2>Manifest of the bytes checked</h2>\n", f);
    if (!r->n_files) {
        fprintf(f, "<p class=\"warn\">%s</p>\n", NO_MANIFEST);
    } else {
        fputs("<table>\n<tr><th>sha256</th><th>size</th><th>path</th><th>sector</th></tr>\n", f);
        for (size_t i = 0; i < r->n_files; i++) {
            fputs("<tr><td><code>", f);
            put_html(o, r->files[i].sha256);
            fprintf(f, "</code></td><td class=\"n\">%lld</td><td>", (long long)r->files[i].size);
            put_html(o, r->files[i].path);
            fputs("</td><td>", f);
            put_html(o, r->files[i].sector);
            fputs("</td></tr>\n", f);
        }
        fprintf(f, "</table>\n<p>%zu files, chunk size %lld bytes</p>\n", r->n_files,
                (long long)r->manifest_chunk_size);
    }
    fputs("<h2>Sectors</h2>\n", f);
    if (!r->n_sectors)
        fputs("<p>No sector results recorded.</p>\n", f);
    else
        fputs("<table>\n<tr><th>sector</th><th>entries</th><th>checked</th><th>verified</th><th>within bounds</th>"
              "<th>discrepancies</th><th>classes</th><th>seconds</th><th>status</th><th>derived digest</th></tr>\n", f);
    for (size_t i = 0; i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        fputs("<tr><td>", f);
        put_html(o, x->sector);
        fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                   "<td class=\"n\">%lld</td><td class=\"n\">%lld</td><td>",
                (long long)x->entries, (long long)x->checked, (long long)x->verified, (long long)x->within_bounds,
                (long long)x->discrepancies);
        for (size_t k = 0; k < x->n_classes; k++) {
            fputs(k ? ", " : "", f);
            put_html(o, x->classes[k].cls);
            fprintf(f, "=%lld", (long long)x->classes[k].count);
        }
        fprintf(f, "</td><td class=\"n\">%.2f</td><td class=\"%s\">", x->seconds,
                x->status && !strcmp(x->status, "ok") ? "ok" : "bad");
        put_html(o, x->status);
        if (x->message) {
            fputs("<br>", f);
            put_html(o, x->message);
        }
        fputs("</td><td><code>", f);
        put_html(o, x->derived_sha256);
        fputs("</code></td></tr>\n", f);
    }
    if (r->n_sectors)
        fputs("</table>\n", f);
    fprintf(f, "<h2>Discrepancies (%zu rows recorded)</h2>\n", r->n_disc);
    if (!r->n_disc)
        fputs("<p>None.</p>\n", f);
    for (size_t i = 0; i < r->n_disc; i++) {
        const ma_run_discrepancy *d = &r->disc[i];
        fputs("<div class=\"disc\"><b>", f);
        put_html(o, d->sector);
        fprintf(f, "</b> entry %lld: ", (long long)d->entry);
        put_html(o, d->cls);
        fputs("<br>", f);
        if (i < MAX_BOARDS)
            svg_board(o, d->board);
        fputs("<br><code>", f);
        put_html(o, d->board);
        fputs("</code> (mover black)<br>stored ", f);
        put_html(o, d->stored);
        fputs(", derived ", f);
        put_html(o, d->derived);
        fputs("</div>\n", f);
    }
    size_t nb;
    int is_hist;
    bar *b = chart_bars(r, &nb, &is_hist);
    if (!b) {
        o->oom = 1;
        return;
    }
    fputs(is_hist ? "<h2>Outcome and depth histogram (positions, all sectors)</h2>\n"
                  : "<h2>Discrepancy classes (all sectors; no outcome/depth histogram recorded)</h2>\n", f);
    if (nb)
        svg_chart(o, b, nb);
    else
        fputs("<p>Nothing to chart.</p>", f);
    free(b);
    fputs("\n</body>\n</html>\n", f);
}

int ma_render_run(char **outp, size_t *len, const ma_run *r, ma_render_format fmt, ma_error *err)
{
    *outp = NULL;
    *len = 0;
    if (fmt == MA_RENDER_JSON) {
        int rc = ma_run_to_json(r, outp, err);
        if (rc == MA_OK)
            *len = strlen(*outp);
        return rc;
    }
    char *buf = NULL;
    size_t n = 0;
    out o = {open_memstream(&buf, &n), 0};
    if (!o.f)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    if (fmt == MA_RENDER_HTML)
        render_html(&o, r);
    else
        render_text(&o, r, fmt == MA_RENDER_MD);
    if (fclose(o.f) != 0 || o.oom || !buf) {
        free(buf);
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    }
    *outp = buf;
    *len = n;
    return MA_OK;
}

int ma_render_write_atomic(const char *path, const char *data, size_t len, ma_error *err)
{
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 16);
    if (!tmp)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return ma_error_set(err, MA_EIO, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
    }
    size_t done = 0;
    int rc = MA_OK;
    /* mkstemp makes the file 0600; a report is meant to be read by others */
    if (fchmod(fd, 0644) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: cannot set permissions: %s", path, strerror(errno));
    while (rc == MA_OK && done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %zu: write failed: %s", path, done, strerror(errno));
            break;
        }
        done += (size_t)w;
    }
    if (rc == MA_OK && fsync(fd) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: fsync failed: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == MA_OK)
        rc = ma_error_set(err, MA_EIO, "%s: close failed: %s", path, strerror(errno));
    if (rc == MA_OK && rename(tmp, path) != 0)
        rc = ma_error_set(err, MA_EIO, "%s: cannot rename the temporary file into place: %s", path, strerror(errno));
    if (rc != MA_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}
