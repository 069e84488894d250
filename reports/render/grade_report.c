/* Rendering a grade run as text, JSON and self-contained HTML (see grade_report.h). */
#include "reports/render/grade_report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "common/output.h"

/* A named group of moves, in the order they are shown. */
typedef struct group {
    char label[32];
    ma_grade_cell cell;
} group;

typedef struct groups {
    group *g;
    size_t n, cap;
    int incomplete; /* a group could not be added (out of memory): the JSON document is refused */
} groups;

static void add(groups *gs, const char *label, const ma_grade_cell *c)
{
    uint64_t n = c->n[0] + c->n[1] + c->n[2];
    if (!n)
        return;
    if (gs->n == gs->cap) {
        size_t cap = gs->cap ? gs->cap * 2 : 32;
        group *g = realloc(gs->g, cap * sizeof *g);
        if (!g) {
            gs->incomplete = 1; /* a group less: the text says what it has, JSON refuses */
            return;
        }
        gs->g = g;
        gs->cap = cap;
    }
    snprintf(gs->g[gs->n].label, sizeof gs->g[gs->n].label, "%s", label);
    gs->g[gs->n++].cell = *c;
}

static void merge(ma_grade_cell *into, const ma_grade_cell *c)
{
    for (int k = 0; k < MA_GRADE_CLASSES; k++)
        into->n[k] += c->n[k];
    into->chances += c->chances;
}

static groups by_phase(const ma_grade_tally *t)
{
    groups gs = {0};
    for (int p = 0; p < MA_GRADE_PHASES; p++)
        add(&gs, ma_grade_phase_name(p), &t->phase[p]);
    return gs;
}

static groups by_stones(const ma_grade_tally *t)
{
    groups gs = {0};
    for (int a = MA_GRADE_STONES - 1; a >= 0; a--)
        for (int b = MA_GRADE_STONES - 1; b >= 0; b--) {
            char label[24]; /* two ints and a "v": GCC at -O1 cannot see that a, b < MA_GRADE_STONES */
            snprintf(label, sizeof label, "%dv%d", a, b);
            add(&gs, label, &t->stones[a][b]);
        }
    return gs;
}

/* Wins by depth (shortest first), draws, losses (longest first): best value first. */
static groups by_value(const ma_grade_tally *t)
{
    groups gs = {0};
    for (int lo = 0; lo <= MA_GRADE_MAX_DEPTH; lo += 10) {
        ma_grade_cell c = {0};
        for (int d = lo; d < lo + 10 && d <= MA_GRADE_MAX_DEPTH; d++)
            merge(&c, &t->value[2][d]);
        char label[32];
        snprintf(label, sizeof label, "win %d-%d", lo, lo + 9);
        add(&gs, label, &c);
    }
    add(&gs, "draw", &t->value[1][0]);
    for (int lo = (MA_GRADE_MAX_DEPTH / 10) * 10; lo >= 0; lo -= 10) {
        ma_grade_cell c = {0};
        for (int d = lo; d < lo + 10 && d <= MA_GRADE_MAX_DEPTH; d++)
            merge(&c, &t->value[0][d]);
        char label[32];
        snprintf(label, sizeof label, "loss %d-%d", lo, lo + 9);
        add(&gs, label, &c);
    }
    return gs;
}

static uint64_t total(const ma_grade_cell *c)
{
    return c->n[0] + c->n[1] + c->n[2];
}

static double pct(uint64_t x, uint64_t n)
{
    return n ? 100.0 * (double)x / (double)n : 0.0;
}

/* ---- text ---- */

static void text_row(FILE *out, const char *label, const ma_grade_cell *c)
{
    uint64_t n = total(c);
    double lo, hi, blo, bhi;
    ma_wilson95(c->n[MA_GRADE_BLUNDER], n, &lo, &hi);
    ma_wilson95(c->n[MA_GRADE_BLUNDER], c->chances, &blo, &bhi);
    fprintf(out, "  %-12s %8" PRIu64 "  %6.1f%%  %6.1f%%  %6.1f%% [%5.1f, %5.1f]  %8" PRIu64
                 "  %6.1f%% [%5.1f, %5.1f]\n",
            label, n, pct(c->n[0], n), pct(c->n[1], n), pct(c->n[2], n), 100 * lo, 100 * hi,
            c->chances, pct(c->n[2], c->chances), 100 * blo, 100 * bhi);
}

static void text_table(FILE *out, const char *title, groups gs)
{
    fprintf(out, "%s:\n  %-12s %8s  %7s  %7s  %7s %-14s  %8s  %s\n", title, "", "moves", "optimal",
            "depth", "blunder", " (95% CI)", "chances", "blunder|chance (95% CI)");
    for (size_t i = 0; i < gs.n; i++)
        text_row(out, gs.g[i].label, &gs.g[i].cell);
    free(gs.g);
}

void ma_grade_report_text(FILE *out, const ma_grade_report_info *in, const ma_grade_tally *t)
{
    fprintf(out, "grade %s on %s (%s, %s format): %s, seed %" PRIu64 "\n", in->player, in->database,
            in->variant, in->format, in->mode, in->seed);
    if (!strcmp(in->mode, "games"))
        fprintf(out, "games: %s of %s from %s_0_0_%d_%d against the perfect player: "
                     "player won %s, drew %s (%s at the ply cap), lost %s\n",
                MA_NUM(in->games), MA_NUM(in->requested), in->variant, in->stones, in->stones,
                MA_NUM(in->player_wins), MA_NUM(in->player_draws), MA_NUM(in->games_capped),
                MA_NUM(in->player_losses));
    else
        fprintf(out, "positions: %s of %s graded, uniform over the positions of %s (redrawn: %s without a turn, "
                     "%s with an unusable successor)\n",
                MA_NUM(total(&t->total)), MA_NUM(in->requested), MA_COUNT(in->n_sectors, "sector", "sectors"),
                MA_NUM(in->skipped_no_turn), MA_NUM(in->skipped_bad));
    fprintf(out, "time: %.2f s, %.2f s of it the player's\n", in->seconds, in->player_seconds);
    if (in->message)
        fprintf(out, "run %s: %s\n", in->status, in->message);
    text_table(out, "all moves", (groups){0});
    text_row(out, "total", &t->total);
    text_table(out, "by phase", by_phase(t));
    text_table(out, "by stones (side to move v opponent, on board + in hand)", by_stones(t));
    text_table(out, "by value of the position (plies)", by_value(t));
    fprintf(out, "shares are of the moves in the row; 'chances' are moves where some turn was worse in\n"
                 "outcome than the best (a blunder was possible); intervals are 95%% Wilson intervals\n");
}

/* ---- JSON ---- */

static json_t *cell_json(const char *label, const ma_grade_cell *c, int *bad)
{
    json_t *o = json_object();
    uint64_t n = total(c);
    double lo, hi;
    if (label)
        ma_json_put(o, "group", json_string(label), bad);
    ma_json_put(o, "moves", json_integer((json_int_t)n), bad);
    for (int k = 0; k < MA_GRADE_CLASSES; k++)
        ma_json_put(o, ma_grade_class_name(k), json_integer((json_int_t)c->n[k]), bad);
    ma_json_put(o, "chances", json_integer((json_int_t)c->chances), bad);
    ma_wilson95(c->n[MA_GRADE_BLUNDER], n, &lo, &hi);
    ma_json_put(o, "blunder_rate", json_real(n ? (double)c->n[2] / (double)n : 0.0), bad);
    json_t *ci = json_array();
    ma_json_push(ci, json_real(lo), bad);
    ma_json_push(ci, json_real(hi), bad);
    ma_json_put(o, "blunder_rate_ci95", ci, bad);
    ma_wilson95(c->n[MA_GRADE_BLUNDER], c->chances, &lo, &hi);
    ma_json_put(o, "blunder_given_chance",
                        json_real(c->chances ? (double)c->n[2] / (double)c->chances : 0.0), bad);
    ci = json_array();
    ma_json_push(ci, json_real(lo), bad);
    ma_json_push(ci, json_real(hi), bad);
    ma_json_put(o, "blunder_given_chance_ci95", ci, bad);
    return o;
}

static json_t *groups_json(groups gs, int *bad)
{
    json_t *a = json_array();
    for (size_t i = 0; i < gs.n; i++)
        ma_json_push(a, cell_json(gs.g[i].label, &gs.g[i].cell, bad), bad);
    if (gs.incomplete)
        *bad = 1;
    free(gs.g);
    return a;
}

json_t *ma_grade_report_json(const ma_grade_report_info *in, const ma_grade_tally *t, int *bad)
{
    json_t *o = json_object();
    ma_json_put(o, "schema_version", json_integer(MA_GRADE_JSON_SCHEMA_VERSION), bad);
    ma_json_put(o, "player", json_string(in->player), bad);
    ma_json_put(o, "database", json_string(in->database), bad);
    ma_json_put(o, "variant", json_string(in->variant), bad);
    ma_json_put(o, "format", json_string(in->format), bad);
    ma_json_put(o, "mode", json_string(in->mode), bad);
    /* a 64-bit seed may not fit a JSON integer reader's double: also as text */
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, in->seed);
    ma_json_put(o, "seed", json_string(seed), bad);
    ma_json_put(o, "requested", json_integer((json_int_t)in->requested), bad);
    ma_json_put(o, "status", json_string(in->status ? in->status : "ok"), bad);
    ma_json_put(o, "message", in->message ? json_string(in->message) : json_null(), bad);
    ma_json_put(o, "run_id", in->run_id ? json_integer(in->run_id) : json_null(), bad);
    if (!strcmp(in->mode, "games")) {
        json_t *g = json_object();
        ma_json_put(g, "stones", json_integer(in->stones), bad);
        ma_json_put(g, "played", json_integer((json_int_t)in->games), bad);
        ma_json_put(g, "player_wins", json_integer((json_int_t)in->player_wins), bad);
        ma_json_put(g, "player_draws", json_integer((json_int_t)in->player_draws), bad);
        ma_json_put(g, "player_losses", json_integer((json_int_t)in->player_losses), bad);
        ma_json_put(g, "capped", json_integer((json_int_t)in->games_capped), bad);
        ma_json_put(o, "games", g, bad);
    } else {
        json_t *p = json_object();
        ma_json_put(p, "sectors", json_integer((json_int_t)in->n_sectors), bad);
        ma_json_put(p, "sector_list", json_string(in->sectors ? in->sectors : ""), bad);
        ma_json_put(p, "redrawn_no_turn", json_integer((json_int_t)in->skipped_no_turn), bad);
        ma_json_put(p, "redrawn_unusable", json_integer((json_int_t)in->skipped_bad), bad);
        ma_json_put(o, "positions", p, bad);
    }
    ma_json_put(o, "seconds", json_real(in->seconds), bad);
    ma_json_put(o, "player_seconds", json_real(in->player_seconds), bad);
    ma_json_put(o, "total", cell_json(NULL, &t->total, bad), bad);
    ma_json_put(o, "by_phase", groups_json(by_phase(t), bad), bad);
    ma_json_put(o, "by_stones", groups_json(by_stones(t), bad), bad);
    ma_json_put(o, "by_value", groups_json(by_value(t), bad), bad);
    return o;
}

/* ---- HTML ---- */

static void esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default:
            if ((unsigned char)*s < 0x20)
                fputc('?', out);
            else
                fputc(*s, out);
        }
    }
}

static const char *const colours[MA_GRADE_CLASSES] = {"#2e7d32", "#f9a825", "#c62828"};

/* One horizontal stacked bar per group: shares of the three classes, and a whisker for the 95 %
 * interval of the blunder share. */
static void svg_chart(FILE *out, const char *title, groups gs)
{
    if (!gs.n) {
        free(gs.g);
        return;
    }
    const int left = 110, width = 520, bar = 18, gap = 8, top = 28;
    int height = top + (int)gs.n * (bar + gap) + 30;
    fprintf(out, "<h3>");
    esc(out, title);
    fprintf(out, "</h3>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "role=\"img\" aria-label=\"",
            left + width + 150, height);
    esc(out, title);
    fprintf(out, "\">\n");
    for (int k = 0; k < MA_GRADE_CLASSES; k++)
        fprintf(out, "<rect x=\"%d\" y=\"6\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                     "<text x=\"%d\" y=\"16\" font-size=\"12\">%s</text>\n",
                left + k * 130, colours[k], left + k * 130 + 16, ma_grade_class_name(k));
    for (size_t i = 0; i < gs.n; i++) {
        const ma_grade_cell *c = &gs.g[i].cell;
        uint64_t n = total(c);
        int y = top + (int)i * (bar + gap);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">", left - 6,
                y + bar - 5);
        esc(out, gs.g[i].label);
        fprintf(out, "</text>\n");
        double x = left;
        for (int k = 0; k < MA_GRADE_CLASSES; k++) {
            double w = n ? (double)width * (double)c->n[k] / (double)n : 0.0;
            if (w > 0)
                fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                             "<title>%s: %" PRIu64 " of %" PRIu64 " (%.1f%%)</title></rect>\n",
                        x, y, w, bar, colours[k], ma_grade_class_name(k), c->n[k], n, pct(c->n[k], n));
            x += w;
        }
        /* the blunder share's interval, measured from the right end of the bar */
        double lo, hi;
        ma_wilson95(c->n[MA_GRADE_BLUNDER], n, &lo, &hi);
        double x1 = left + width - width * hi, x2 = left + width - width * lo;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" "
                     "stroke-width=\"1.5\"/>\n",
                x1, y + bar / 2, x2, y + bar / 2);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\">n=%" PRIu64 ", blunder %.1f%%</text>\n",
                left + width + 6, y + bar - 5, n, pct(c->n[2], n));
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">bar: share of moves by class; "
                 "black line: 95%% interval of the blunder share (from the right end)</text>\n",
            left, height - 8);
    fprintf(out, "</svg>\n");
    free(gs.g);
}

static void html_table(FILE *out, const char *title, groups gs)
{
    fprintf(out, "<table><caption>");
    esc(out, title);
    fprintf(out, "</caption>\n<tr><th>group</th><th>moves</th><th>optimal</th><th>depth-lost</th>"
                 "<th>blunder</th><th>blunder 95%% CI</th><th>chances</th><th>blunder | chance</th>"
                 "<th>95%% CI</th></tr>\n");
    for (size_t i = 0; i < gs.n; i++) {
        const ma_grade_cell *c = &gs.g[i].cell;
        uint64_t n = total(c);
        double lo, hi, blo, bhi;
        ma_wilson95(c->n[2], n, &lo, &hi);
        ma_wilson95(c->n[2], c->chances, &blo, &bhi);
        fprintf(out, "<tr><td>");
        esc(out, gs.g[i].label);
        fprintf(out, "</td><td>%" PRIu64 "</td><td>%.1f%%</td><td>%.1f%%</td><td>%.1f%%</td>"
                     "<td>%.1f&ndash;%.1f%%</td><td>%" PRIu64 "</td><td>%.1f%%</td><td>%.1f&ndash;%.1f%%</td></tr>\n",
                n, pct(c->n[0], n), pct(c->n[1], n), pct(c->n[2], n), 100 * lo, 100 * hi, c->chances,
                pct(c->n[2], c->chances), 100 * blo, 100 * bhi);
    }
    fprintf(out, "</table>\n");
    free(gs.g);
}

int ma_grade_report_html(FILE *out, const ma_grade_report_info *in, const ma_grade_tally *t)
{
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>grade ");
    esc(out, in->player);
    fprintf(out, "</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:1000px}"
                 "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
                 "padding:2px 8px;text-align:right}td:first-child{text-align:left}"
                 "caption{font-weight:bold;text-align:left}.bad{color:#c62828}</style>\n"
                 "</head><body>\n<h1>Grade of ");
    esc(out, in->player);
    fprintf(out, "</h1>\n<p>Database <code>");
    esc(out, in->database);
    fprintf(out, "</code> (");
    esc(out, in->variant);
    fprintf(out, ", ");
    esc(out, in->format);
    fprintf(out, " format), %s mode, seed %" PRIu64 ".", !strcmp(in->mode, "games") ? "games" : "positions",
            in->seed);
    if (!strcmp(in->mode, "games"))
        fprintf(out, " %s of %s games from the %d-stone start against the perfect player: "
                     "the player won %s, drew %s (%s at the ply cap), lost %s.",
                MA_NUM(in->games), MA_NUM(in->requested), in->stones, MA_NUM(in->player_wins),
                MA_NUM(in->player_draws), MA_NUM(in->games_capped), MA_NUM(in->player_losses));
    else
        fprintf(out, " %s of %s positions graded, drawn uniformly from the positions of %s.",
                MA_NUM(total(&t->total)), MA_NUM(in->requested), MA_COUNT(in->n_sectors, "sector", "sectors"));
    fprintf(out, " %.2f s.</p>\n", in->seconds);
    if (in->message) {
        fprintf(out, "<p class=\"bad\">Run ");
        esc(out, in->status);
        fprintf(out, ": ");
        esc(out, in->message);
        fprintf(out, "</p>\n");
    }
    fprintf(out, "<p>A move is <b>optimal</b> when it keeps the position's value (outcome and depth), "
                 "<b>depth-lost</b> when it keeps the outcome but wins slower or loses faster, a "
                 "<b>blunder</b> when it turns a win into a draw or loss or a draw into a loss. "
                 "<i>Chances</i> are moves where a blunder was possible. Intervals are 95%% Wilson "
                 "score intervals.</p>\n");
    groups all = {0};
    add(&all, "total", &t->total);
    html_table(out, "all moves", all);
    svg_chart(out, "by phase", by_phase(t));
    html_table(out, "by phase", by_phase(t));
    svg_chart(out, "by stones (side to move v opponent)", by_stones(t));
    html_table(out, "by stones (side to move v opponent, on board + in hand)", by_stones(t));
    svg_chart(out, "by value of the position", by_value(t));
    html_table(out, "by value of the position (plies)", by_value(t));
    fprintf(out, "<p>millaudit grade; every figure is in the audit store when the run was recorded");
    if (in->run_id)
        fprintf(out, " (run %" PRId64 ")", in->run_id);
    fprintf(out, ".</p>\n</body></html>\n");
    return ferror(out) ? -1 : 0;
}

int ma_grading_print(FILE *out, const ma_grading *g, int json, int exit_code)
{
    if (!json) {
        ma_grade_report_text(out, ma_grading_info(g), ma_grading_tally(g));
        return ferror(out) ? -1 : 0;
    }
    int bad = 0;
    json_t *o = ma_grade_report_json(ma_grading_info(g), ma_grading_tally(g), &bad);
    ma_json_put(o, "exit", json_integer(exit_code), &bad);
    char *text = bad ? NULL : ma_json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text)
        return -1; /* nothing written: never a document with a member missing */
    fprintf(out, "%s\n", text);
    free(text);
    return 0;
}

/* Renders the HTML report in memory, then writes it through common/output.h: a regular file is
 * replaced atomically (never a half-written report), a device or FIFO written through. */
int ma_grading_write_html(const char *path, const ma_grading *g, ma_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    int bad = ma_grade_report_html(f, ma_grading_info(g), ma_grading_tally(g));
    if (fclose(f) != 0)
        bad = 1;
    int rc = bad || !buf ? ma_error_set(err, MA_ENOMEM, "%s: out of memory", path)
                         : ma_output_write(path, buf, len, err);
    free(buf);
    return rc;
}
