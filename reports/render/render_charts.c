/* Inline SVG charts and boards of the HTML report (reports/render/render_internal.h). Every chart is a
 * <figure data-chart="..."> holding one <svg class="chart">, 600 px wide so two sit side by side in a
 * 1280 px window. No scripts, no external references, no ids (a page holds many of them). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "reports/render/render_internal.h"

#define W 570          /* chart width: two figures side by side in a 1280 px window */
#define LABEL_W 130    /* sector labels */
#define BAR_X 140      /* bars start */
#define BAR_W 330      /* bars span */
#define ROW 20         /* row pitch */
#define MAX_ROWS 30    /* sectors shown per chart */
#define FAULT_MARK_W 6 /* the mark of a sector with discrepancies, left of its bar */

#define C_VERIFIED "#2e7d32"
#define C_BOUNDS "#f9a825"
#define C_DISC "#c62828"
#define C_REST "#bdbdbd"
#define C_WIN "#1565c0"
#define C_DRAW "#9e9e9e"
#define C_LOSS "#ef6c00"
#define C_ENC "#78909c"

static void fig_open(ma_out *o, const char *kind, const char *title, int h)
{
    ma_out_printf(o, "<figure data-chart=\"%s\"><figcaption>%s</figcaption>\n"
                     "<svg class=\"chart\" width=\"%d\" height=\"%d\" "
                     "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans,Arial,sans-serif\" font-size=\"11\">",
                  kind, title, W, h, W, h);
}

static void fig_close(ma_out *o, const char *note)
{
    ma_out_printf(o, "</svg>");
    if (note)
        ma_out_printf(o, "<div class=\"note\">%s</div>", note);
    ma_out_printf(o, "</figure>\n");
}

static void fig_empty(ma_out *o, const char *kind, const char *title, const char *why)
{
    ma_out_printf(o, "<figure data-chart=\"%s\" class=\"empty\"><figcaption>%s</figcaption><p class=\"note\">%s</p>"
                     "</figure>\n", kind, title, why);
}

static void legend(ma_out *o, int x, int y, const char *const *names, const char *const *colors, int n)
{
    for (int i = 0; i < n; i++) {
        ma_out_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                         "<text x=\"%d\" y=\"%d\">%s</text>", x, y - 9, colors[i], x + 14, y, names[i]);
        x += 24 + 7 * (int)strlen(names[i]);
    }
}

/* A sector label at the left of row y, cut to fit. */
static void row_label(ma_out *o, int y, const char *name)
{
    ma_out_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_W, y + 12);
    ma_out_strn(o, name, 19);
    ma_out_printf(o, "</text>");
}

/* One 100 % stacked bar: segments of values v[0..n) in colours c; a non-zero segment is at least
 * 2 px wide so a single discrepancy among millions still shows. */
static void stacked(ma_out *o, int y, const int64_t *v, const char *const *c, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        total += v[i] > 0 ? (double)v[i] : 0;
    ma_out_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"#f0f0f0\"/>", BAR_X, y + 2, BAR_W);
    if (total <= 0)
        return;
    double x = BAR_X;
    for (int i = 0; i < n; i++) {
        if (v[i] <= 0)
            continue;
        double w = (double)v[i] / total * BAR_W;
        if (w < 2)
            w = 2;
        if (x + w > BAR_X + BAR_W)
            x = BAR_X + BAR_W - w;
        ma_out_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"%s\"/>", x, y + 2, w, c[i]);
        x += w;
    }
}

/* Picks up to MAX_ROWS sectors with the largest key, kept in name order. Returns how many. */
static size_t pick(const ma_report *r, const int64_t *key, size_t *idx)
{
    size_t n = r->run.n_sectors, m = 0;
    for (size_t i = 0; i < n; i++)
        if (key[i] >= 0 && ma_render_sector_shown(r, i)) /* report --sector: that sector's bars only */
            idx[m++] = i;
    if (m <= MAX_ROWS)
        return m;
    /* keep the MAX_ROWS largest: a selection by repeated max is fine for a few thousand sectors */
    char *keep = calloc(n, 1);
    if (!keep)
        return 0;
    for (int k = 0; k < MAX_ROWS; k++) {
        size_t best = n;
        for (size_t j = 0; j < m; j++)
            if (!keep[idx[j]] && (best == n || key[idx[j]] > key[best]))
                best = idx[j];
        keep[best] = 1;
    }
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (keep[i])
            idx[out++] = i;
    free(keep);
    return out;
}

/* Rank of a sector in the per-sector chart: as in the sector table (render_internal.h). */
static int fault_rank(const ma_report *r, size_t i)
{
    return ma_render_sector_rank(r, i);
}

struct proof_order {
    const ma_report *r;
};

/* Insertion sort by (fault rank, name order): at most MAX_ROWS rows, and stable. */
static void proof_sort(size_t *idx, size_t m, const struct proof_order *po)
{
    for (size_t a = 1; a < m; a++) {
        size_t v = idx[a], b = a;
        int rv = fault_rank(po->r, v);
        while (b > 0 && (fault_rank(po->r, idx[b - 1]) > rv ||
                         (fault_rank(po->r, idx[b - 1]) == rv && idx[b - 1] > v))) {
            idx[b] = idx[b - 1];
            b--;
        }
        idx[b] = v;
    }
}

void ma_chart_proof(ma_out *o, const ma_report *r)
{
    size_t n = r->run.n_sectors;
    int diff = ma_report_is_diff(r);
    const char *title = diff ? "Per sector: positions that agree, differ in encoding only, differ in value"
                             : "Per sector: entries verified, within bounds only, discrepant";
    if (!n) {
        fig_empty(o, "proof", title, "No sector results recorded.");
        return;
    }
    int64_t *key = malloc(n * sizeof *key);
    size_t *idx = malloc(n * sizeof *idx);
    if (!key || !idx) {
        free(key), free(idx), o->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) /* the sectors with something to see first, then the largest */
        key[i] = r->run.sectors[i].entries + (r->run.sectors[i].entries - r->run.sectors[i].verified) * 1000;
    size_t m = pick(r, key, idx);
    /* the problem first: sectors with roots, then other discrepant ones, then the rest by name */
    struct proof_order po = {r};
    proof_sort(idx, m, &po);
    fig_open(o, "proof", title, 30 + (int)m * ROW);
    static const char *const vc[] = {C_VERIFIED, C_BOUNDS, C_DISC, C_REST};
    static const char *const vn[] = {"verified", "within bounds only", "discrepancies", "not checked"};
    static const char *const dc[] = {C_VERIFIED, C_ENC, C_DISC, "#a5d6a7"};
    static const char *const dn[] = {"agree", "encoding only", "values differ", "identical bytes"};
    legend(o, BAR_X, 12, diff ? dn : vn, diff ? dc : vc, 4);
    char c[32];
    for (size_t k = 0; k < m; k++) {
        const ma_run_sector *s = &r->run.sectors[idx[k]];
        int y = 22 + (int)k * ROW;
        int64_t v[4];
        if (diff) {
            int64_t enc = 0;
            for (size_t j = 0; j < s->n_classes; j++)
                if (s->classes[j].cls && !strcmp(s->classes[j].cls, "encoding"))
                    enc = s->classes[j].count;
            if (enc > s->verified)
                enc = s->verified;
            v[0] = s->verified - enc, v[1] = enc, v[2] = s->entries - s->verified;
            v[3] = s->message && !strncmp(s->message, "identical", 9) && !s->entries; /* not read: same digest */
        } else {
            v[0] = s->verified, v[1] = s->within_bounds, v[2] = s->discrepancies;
            v[3] = s->entries - s->verified - s->within_bounds - s->discrepancies;
        }
        row_label(o, y, s->sector);
        stacked(o, y, v, diff ? dc : vc, 4);
        if (v[2] > 0) {
            /* 13 bad entries of 7.5 M are a sliver however wide the bar: a fixed mark in the
             * gutter between the name and the bar shows the sector has a fault at any scale */
            ma_out_printf(o, "<rect class=\"fault\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"%s\">"
                             "<title>%s %s</title></rect>",
                          BAR_X - FAULT_MARK_W - 2, y + 2, FAULT_MARK_W, C_DISC, ma_fmt_count(c, sizeof c, v[2]),
                          diff ? "positions differ in value" : "discrepant entries");
        }
        if (diff && v[3])
            ma_out_printf(o, "<text x=\"%d\" y=\"%d\">same SHA-256</text>", BAR_X + BAR_W + 6, y + 13);
        else
            ma_out_printf(o, "<text x=\"%d\" y=\"%d\">%s</text>", BAR_X + BAR_W + 6, y + 13,
                          ma_fmt_count(c, sizeof c, s->entries));
    }
    char note[200];
    int faults = m && fault_rank(r, idx[0]) < 2; /* roots or other discrepancies */
    snprintf(note, sizeof note, "%s",
             !faults ? "" : diff ? "Sectors that differ in value first, marked red at the left. "
                                 : "Sectors with discrepancies first, marked red at the left. ");
    if (m < n)
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%s of %s shown (those with most unproven entries, then the largest).", MA_NUM(m),
                 MA_COUNT(n, "sector", "sectors"));
    fig_close(o, note[0] ? note : NULL);
    free(key), free(idx);
}

void ma_chart_wdl(ma_out *o, const ma_report *r)
{
    size_t n = r->run.n_sectors;
    const char *title = "Per sector: wins, draws, losses (canonical entries)";
    int64_t *key = malloc((n + 1) * sizeof *key);
    size_t *idx = malloc((n + 1) * sizeof *idx);
    if (!key || !idx) {
        free(key), free(idx), o->oom = 1;
        return;
    }
    size_t have = 0;
    for (size_t i = 0; i < n; i++) {
        key[i] = r->sx[i].wins >= 0 ? r->sx[i].wins + r->sx[i].draws + r->sx[i].losses : -1;
        have += key[i] >= 0;
    }
    if (ma_report_is_diff(r)) { /* a diff records no outcome histogram: no empty panel */
        free(key), free(idx);
        return;
    }
    if (!have) {
        fig_empty(o, "wdl", title,
                  ma_report_is_diff(r) ? "A diff records no outcome histogram."
                                       : "No outcome/depth histogram recorded in this run (the build that made it "
                                         "records none for this format).");
        free(key), free(idx);
        return;
    }
    size_t m = pick(r, key, idx);
    fig_open(o, "wdl", title, 30 + (int)m * ROW);
    static const char *const cc[] = {C_WIN, C_DRAW, C_LOSS};
    static const char *const cn[] = {"wins", "draws", "losses"};
    legend(o, BAR_X, 12, cn, cc, 3);
    for (size_t k = 0; k < m; k++) {
        const ma_report_sector *x = &r->sx[idx[k]];
        int y = 22 + (int)k * ROW;
        int64_t v[3] = {x->wins, x->draws, x->losses};
        row_label(o, y, r->run.sectors[idx[k]].sector);
        stacked(o, y, v, cc, 3);
        double t = (double)(v[0] + v[1] + v[2]);
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\">%.0f%% / %.0f%% / %.0f%%</text>", BAR_X + BAR_W + 6, y + 13,
                      t > 0 ? 100.0 * (double)v[0] / t : 0, t > 0 ? 100.0 * (double)v[1] / t : 0,
                      t > 0 ? 100.0 * (double)v[2] / t : 0);
    }
    char note[320];
    note[0] = 0;
    if (m < have)
        snprintf(note, sizeof note, "%s of %s with a histogram shown (the largest). ", MA_NUM(m),
                 MA_COUNT(have, "sector", "sectors"));
    if (have < n) /* never drop sectors silently: within-bounds sectors have no exact values to count */
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "%s of %s not shown: no outcome histogram recorded (only within bounds, incomplete or "
                 "unusable).", MA_NUM(n - have), MA_COUNT(n, "sector", "sectors"));
    fig_close(o, note[0] ? note : NULL);
    free(key), free(idx);
}

static void depths_chart(ma_out *o, const ma_report *r, const char *variant);

/* One histogram per variant: depths of std, lask and mora games mean different things, so a run
 * over several variants is never pooled into one chart. */
void ma_chart_depths(ma_out *o, const ma_report *r)
{
    char seen[3][8];
    int n = 0, many = 0;
    for (size_t i = 0; i < r->run.n_sectors && !many; i++) {
        const char *name = r->run.sectors[i].sector;
        const char *us = name ? strchr(name, '_') : NULL;
        if (!us || us - name >= 8 || !r->run.sectors[i].n_bins)
            continue;
        int k = 0;
        while (k < n && (strlen(seen[k]) != (size_t)(us - name) || strncmp(seen[k], name, (size_t)(us - name))))
            k++;
        if (k == n) {
            if (n == 3) {
                many = 1; /* not one of the three variants: pool rather than guess */
                break;
            }
            snprintf(seen[n++], sizeof seen[0], "%.*s", (int)(us - name), name);
        }
    }
    if (n <= 1 || many) {
        depths_chart(o, r, NULL);
        return;
    }
    for (int k = 0; k < n; k++)
        depths_chart(o, r, seen[k]);
}

static void depths_chart(ma_out *o, const ma_report *r, const char *variant)
{
    enum { MAXD = 512 };
    char title[160];
    snprintf(title, sizeof title, "Outcomes by depth (plies)%s%s, log scale: wins above the axis, losses below",
             variant ? " of " : "", variant ? variant : "");
    int64_t *wins = calloc(MAXD, sizeof *wins), *losses = calloc(MAXD, sizeof *losses);
    if (!wins || !losses) {
        free(wins), free(losses), o->oom = 1;
        return;
    }
    ma_render_depths dp;
    int any = ma_render_depth_bins(r, variant, wins, losses, MAXD, &dp);
    int64_t draws = dp.draws, max = dp.max;
    int maxd = dp.maxd;
    if (!any) {
        fig_empty(o, "depths", title, "No outcome/depth histogram recorded in this run.");
        free(wins), free(losses);
        return;
    }
    const int x0 = 56, x1 = W - 10, axis = 150, half = 110, h = 300;
    int cols = maxd + 1 > 0 ? maxd + 1 : 1;
    double bw = (double)(x1 - x0) / cols;
    double top = max > 0 ? log10((double)max) + 1 : 1; /* 1 -> one decade high, so a count of 1 shows */
    fig_open(o, "depths", title, h);
    static const char *const cc[] = {C_WIN, C_LOSS};
    static const char *const cn[] = {"wins (above)", "losses (below)"};
    legend(o, x0, 12, cn, cc, 2);
    char c[32];
    ma_out_printf(o, "<text x=\"%d\" y=\"12\" text-anchor=\"end\">draws: %s</text>", x1, ma_fmt_count(c, sizeof c, draws));
    /* decades as grid lines, both ways */
    static const char *const dec[] = {"1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G", "10G"};
    for (int k = 0; k <= (int)top && k < 11; k++) {
        double dy = (k + 1) / top * half; /* log10(10^k) + 1 */
        if (dy > half + 0.5)
            break;
        for (int side = -1; side <= 1; side += 2) {
            double y = axis - side * dy;
            ma_out_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\"/>"
                             "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#666\">%s</text>",
                          x0, y, x1, y, x0 - 4, y + 4, dec[k]);
        }
    }
    for (int d = 0; d <= maxd; d++) {
        double x = x0 + d * bw + (bw > 3 ? 0.5 : 0);
        double w = bw > 3 ? bw - 1 : bw;
        if (wins[d] > 0) {
            double bh = (log10((double)wins[d]) + 1) / top * half;
            ma_out_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>depth %d: "
                             "%s</title></rect>", x, axis - bh, w, bh, C_WIN, d, MA_COUNT(wins[d], "win", "wins"));
        }
        if (losses[d] > 0) {
            double bh = (log10((double)losses[d]) + 1) / top * half;
            ma_out_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>depth %d: "
                             "%s</title></rect>", x, axis, w, bh, C_LOSS, d, MA_COUNT(losses[d], "loss", "losses"));
        }
    }
    ma_out_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", x0, axis, x1, axis);
    int step = cols <= 30 ? 2 : cols <= 60 ? 5 : cols <= 150 ? 10 : 50;
    for (int d = 0; d <= maxd; d += step)
        ma_out_printf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%d</text>", x0 + (d + 0.5) * bw,
                      axis + half + 18, d);
    ma_out_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#444\">depth (plies)</text>", x1, h - 4);
    fig_close(o, NULL);
    free(wins), free(losses);
}

void ma_chart_time(ma_out *o, const ma_report *r)
{
    size_t n = r->run.n_sectors;
    const char *title = "Per sector: seconds and entries per second";
    int64_t *key = malloc((n + 1) * sizeof *key);
    size_t *idx = malloc((n + 1) * sizeof *idx);
    if (!key || !idx) {
        free(key), free(idx), o->oom = 1;
        return;
    }
    double max = 0;
    size_t carried = 0, timed = 0;
    for (size_t i = 0; i < n; i++) {
        double s = r->run.sectors[i].seconds;
        carried += r->sx[i].carried_from != 0;
        key[i] = r->sx[i].carried_from ? -1 : (int64_t)(s * 1e6);
        timed += key[i] >= 0;
        if (!r->sx[i].carried_from && s > max)
            max = s;
    }
    if (!timed) {
        fig_empty(o, "time", title, carried ? "Every sector was carried over from an earlier run." : "No sector timed.");
        free(key), free(idx);
        return;
    }
    size_t m = pick(r, key, idx);
    fig_open(o, "time", title, 30 + (int)m * ROW);
    ma_out_printf(o, "<text x=\"%d\" y=\"12\" fill=\"#444\">wall seconds (bar) &middot; entries/s (text)</text>", BAR_X);
    char rate[32];
    for (size_t k = 0; k < m; k++) {
        const ma_run_sector *s = &r->run.sectors[idx[k]];
        int y = 22 + (int)k * ROW;
        double w = max > 0 ? s->seconds / max * (BAR_W - 40) : 0;
        row_label(o, y, s->sector);
        ma_out_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"14\" fill=\"#5c6bc0\"/>"
                         "<text x=\"%.1f\" y=\"%d\">%.2f s &middot; %s</text>",
                      BAR_X, y + 2, w < 1 ? 1 : w, BAR_X + (w < 1 ? 1 : w) + 4, y + 13, s->seconds,
                      ma_fmt_rate(rate, sizeof rate, s->checked, s->seconds));
    }
    char note[200];
    snprintf(note, sizeof note, "%s%zu of %zu timed sectors shown (the slowest).%s", "", m, timed,
             carried ? " Carried-over sectors were not timed in this run." : "");
    fig_close(o, m < timed || carried ? note : NULL);
    free(key), free(idx);
}

#define MAP_ROW 46      /* a track, the line of its counts and that of its recorded span below it */
#define MAP_DOTS 100    /* recorded rows drawn per sector (evenly among the recorded ones) */

void ma_chart_map(ma_out *o, const ma_report *r)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    const char *title = diff ? "Where differences sit: sector x entry range (recorded examples)"
                             : "Where discrepancies sit: sector x entry range, roots and propagated";
    /* one track per sector with discrepancies, by its totals: a sector whose rows were not
     * recorded still shows, and the counts are never the capped rows' */
    size_t *order = ma_render_sector_order(o, r), tracks = 0;
    for (size_t k = 0; order && k < x->n_sectors; k++)
        tracks += x->sectors[order[k]].discrepancies > 0 && ma_render_sector_shown(r, order[k]);
    ma_render_rows rows;
    if (!tracks || ma_render_rows_of(o, r, &rows)) {
        free(order);
        fig_empty(o, "map", title, diff ? "No difference recorded." : "No discrepancy recorded.");
        return;
    }
    size_t m = tracks < MAX_ROWS ? tracks : MAX_ROWS, shown = 0, capped = 0;
    fig_open(o, "map", title, 48 + (int)m * MAP_ROW);
    if (diff) {
        ma_out_printf(o, "<circle cx=\"%d\" cy=\"8\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"12\">a recorded difference</text>",
                      BAR_X + 4, C_DISC, BAR_X + 12);
    } else {
        ma_out_printf(o, "<circle cx=\"%d\" cy=\"8\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"12\">root</text>"
                         "<circle cx=\"%d\" cy=\"8\" r=\"3.5\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\"/>"
                         "<text x=\"%d\" y=\"12\">propagated</text>"
                         "<rect x=\"%d\" y=\"4\" width=\"7\" height=\"7\" fill=\"#757575\"/>"
                         "<text x=\"%d\" y=\"12\">not classified by the build that ran it</text>",
                      BAR_X + 4, C_DISC, BAR_X + 12, BAR_X + 64, C_LOSS, BAR_X + 72, BAR_X + 154, BAR_X + 166);
    }
    for (size_t k = 0; k < x->n_sectors && shown < m; k++) {
        size_t i = order[k];
        const ma_run_sector *s = &x->sectors[i];
        if (s->discrepancies <= 0 || !ma_render_sector_shown(r, i))
            continue;
        int y = 22 + (int)shown++ * MAP_ROW;
        int64_t entries = s->entries > 1 ? s->entries : 1;
        size_t n = rows.count[i], step = n > MAP_DOTS ? (n + MAP_DOTS - 1) / MAP_DOTS : 1;
        capped += (uint64_t)s->discrepancies > n;
        row_label(o, y, s->sector);
        ma_out_printf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#bbb\" stroke-width=\"6\"/>", BAR_X,
                      y + 9, BAR_X + BAR_W, y + 9);
        /* a capped sector's rows are its first ones, so their marks bunch at one end: the span they
         * cover is drawn darker and named, and the rest of the track is what the store did not keep */
        int64_t lo = INT64_MAX, hi = -1;
        for (size_t j = 0; j < n; j++) {
            int64_t e = x->disc[rows.idx[rows.start[i] + j]].entry;
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
        }
        int part = n && (uint64_t)s->discrepancies > n;
        if (part) {
            double a = BAR_X + (entries > 1 ? (double)(lo < entries ? lo : entries - 1) / (double)(entries - 1) : 0) * BAR_W;
            double b = BAR_X + (entries > 1 ? (double)(hi < entries ? hi : entries - 1) / (double)(entries - 1) : 1) * BAR_W;
            ma_out_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\" stroke-width=\"6\">"
                             "<title>entries of the recorded rows</title></line>", a - 1, y + 9, b + 1 > a + 2 ? b + 1 : a + 2,
                          y + 9);
        }
        for (size_t j = 0; j < n; j += step) {
            size_t d = rows.idx[rows.start[i] + j];
            int64_t e = x->disc[d].entry < entries ? x->disc[d].entry : entries - 1;
            double cx = BAR_X + (entries > 1 ? (double)e / (double)(entries - 1) : 0.5) * BAR_W;
            int root = r->dx[d].root;
            if (diff || root == 1)
                ma_out_printf(o, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"><title>entry %lld</title></circle>",
                              cx, y + 9, C_DISC, (long long)x->disc[d].entry);
            else if (root == 0)
                ma_out_printf(o, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3.5\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"2\">"
                                 "<title>entry %lld</title></circle>", cx, y + 9, C_LOSS, (long long)x->disc[d].entry);
            else
                ma_out_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"7\" height=\"7\" fill=\"#757575\"><title>entry %lld"
                                 "</title></rect>", cx - 3.5, y + 6, (long long)x->disc[d].entry);
        }
        /* the sector's totals under its track (never the rows, which the store caps) */
        const ma_report_sector *sx = &r->sx[i];
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\" fill=\"#444\" font-size=\"10\">", BAR_X, y + 26);
        if (!diff && sx->roots >= 0)
            ma_out_printf(o, "%s, %s propagated", MA_COUNT((uint64_t)sx->roots, "root", "roots"),
                          MA_NUM((uint64_t)sx->propagated));
        else
            ma_out_printf(o, "%s", MA_COUNT((uint64_t)s->discrepancies, diff ? "difference" : "discrepancy",
                                           diff ? "differences" : "discrepancies"));
        ma_out_printf(o, "; %s recorded", MA_COUNT(n, "row", "rows"));
        if (n > MAP_DOTS)
            ma_out_printf(o, ", %s drawn", MA_NUM((n + step - 1) / step));
        ma_out_printf(o, "</text>");
        if (part) /* a line of its own: on the counts' line it ran past the figure's edge */
            ma_out_printf(o, "<text x=\"%d\" y=\"%d\" fill=\"#444\" font-size=\"10\">recorded rows: entries %s to %s "
                             "only</text>", BAR_X, y + 38, MA_NUM((uint64_t)lo), MA_NUM((uint64_t)hi));
    }
    int yb = 22 + (int)m * MAP_ROW + 12;
    ma_out_printf(o, "<text x=\"%d\" y=\"%d\" fill=\"#444\">entry 0</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                     "fill=\"#444\">last entry of the sector</text>", BAR_X, yb, BAR_X + BAR_W, yb);
    char note[400] = "";
    if (capped)
        snprintf(note, sizeof note, "Counts are each sector's totals. The store keeps at most its first rows per "
                                    "sector (roots first, then by entry): the marks show those rows only, on the dark span of "
                                    "entries they cover; the rest of a capped track was not recorded. ");
    if (m < tracks)
        snprintf(note + strlen(note), sizeof note - strlen(note), "%s of %s shown.", MA_NUM(m),
                 MA_COUNT(tracks, "sector", "sectors"));
    fig_close(o, note[0] ? note : NULL);
    ma_render_rows_free(&rows);
    free(order);
}

void ma_chart_history(ma_out *o, const ma_report *r)
{
    const char *title = ma_report_is_diff(r) ? "Diff runs of this A: share of positions that agree"
                                             : "Runs of this database root: share of entries verified, within bounds, discrepant";
    if (r->n_history < 2) {
        fig_empty(o, "history", title, "This is the only run of this database root in this store.");
        return;
    }
    int n = (int)r->n_history;
    const int x0 = 72, h = 262, top = 24, bh = 130; /* x0 leaves room for the first slanted date */
    double cw = (double)(W - x0 - 10) / n;
    if (cw > 44)
        cw = 44;
    fig_open(o, "history", title, h);
    int diff = ma_report_is_diff(r);
    static const char *const vc[] = {C_VERIFIED, C_BOUNDS, C_DISC, C_REST};
    static const char *const vn[] = {"verified", "within bounds", "discrepancies", "other"};
    static const char *const dn[] = {"agree", "", "values differ", "other"};
    legend(o, x0, 12, diff ? dn : vn, vc, diff ? 1 : 4);
    if (diff)
        legend(o, x0 + 80, 12, dn + 2, vc + 2, 2);
    for (int i = 0; i < n; i++) {
        const ma_report_history *hh = &r->history[i];
        double x = x0 + i * cw;
        int64_t v[4] = {hh->verified, diff ? 0 : hh->within_bounds, diff ? hh->entries - hh->verified : hh->discrepancies, 0};
        v[3] = hh->entries - v[0] - v[1] - v[2];
        double total = (double)(hh->entries > 0 ? hh->entries : 1), y = top + bh;
        if (hh->entries <= 0)
            ma_out_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#eee\"/>", x + 2, top, cw - 4, bh);
        for (int k = 0; k < 4 && hh->entries > 0; k++) {
            if (v[k] <= 0)
                continue;
            double sh = (double)v[k] / total * bh;
            if (sh < 2)
                sh = 2;
            ma_out_printf(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", x + 2, y - sh,
                          cw - 4, sh, vc[k]);
            y -= sh;
        }
        if (hh->id == r->run.id)
            ma_out_printf(o, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"none\" stroke=\"#000\" "
                             "stroke-width=\"2\"/>", x + 1, top - 1, cw - 2, bh + 2);
        ma_out_printf(o, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%lld</text>", x + cw / 2, top + bh + 14,
                      (long long)hh->id);
        /* the whole date and the minute (UTC), slanted so that 30 columns keep them apart */
        char when[64];
        size_t wl = strlen(ma_report_when(when, 25, hh->started_at ? hh->started_at : ""));
        if (wl > 4 && !strcmp(when + wl - 4, " UTC"))
            when[wl - 4] = '\0'; /* the caption says UTC once */
        double lx = x + cw / 2 + 3;
        int ly = top + bh + 26;
        ma_out_printf(o, "<text x=\"%.1f\" y=\"%d\" transform=\"rotate(-40 %.1f %d)\" text-anchor=\"end\" "
                         "font-size=\"10\" fill=\"#555\">", lx, ly, lx, ly);
        ma_out_str(o, when);
        ma_out_printf(o, "</text><title>run %lld: %s</title>", (long long)hh->id, ma_state_words(hh->state));
    }
    ma_out_printf(o, "<text x=\"%d\" y=\"%d\" fill=\"#444\">run id and start (UTC); the framed column is this run</text>",
                  x0 + 150, h - 6);
    fig_close(o, NULL);
}

/* ---------------------------------------------------------------- boards */

#define B_X0 34
#define B_Y0 16
#define B_STEP 28

static void point_xy(const char *p, double *x, double *y)
{
    *x = B_X0 + (p[0] - 'a') * B_STEP;
    *y = B_Y0 + (7 - (p[1] - '0')) * B_STEP;
}

static void hand_stones(ma_out *o, int x, int y, int count, int mover)
{
    ma_out_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"6\" fill=\"%s\" stroke=\"#111\" stroke-width=\"1.5\"/>", x, y,
                  mover ? "#111" : "#fff");
    if (count >= 0)
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\">&#215;%d</text>", x + 9, y + 4, count);
    else
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\">&#215;?</text>", x + 9, y + 4);
}

void ma_svg_board(ma_out *o, const char *board, int mover_in_hand, int opponent_in_hand, const char *move)
{
    char grid[13][13];
    ma_error e;
    if (ma_render_board_grid(board, grid, &e)) {
        ma_out_printf(o, "<p class=\"note\">board not drawable: ");
        ma_out_str(o, e.msg);
        ma_out_printf(o, "</p>");
        return;
    }
    const int size = 6 * B_STEP;
    ma_out_printf(o, "<svg class=\"board\" width=\"240\" height=\"250\" "
                     "viewBox=\"0 0 240 250\" font-family=\"DejaVu Sans,Arial,sans-serif\" font-size=\"11\">"
                     "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f3e2bd\" rx=\"4\"/>"
                     "<g stroke=\"#5b4636\" stroke-width=\"2\" fill=\"none\">",
                  B_X0 - 14, B_Y0 - 12, size + 28, size + 24);
    for (int ring = 0; ring < 3; ring++)
        ma_out_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", B_X0 + ring * B_STEP,
                      B_Y0 + ring * B_STEP, size - 2 * ring * B_STEP, size - 2 * ring * B_STEP);
    int mid = 3 * B_STEP;
    ma_out_printf(o, "<path d=\"M%d %dV%dM%d %dV%dM%d %dH%dM%d %dH%d\"/></g>", B_X0 + mid, B_Y0, B_Y0 + 2 * B_STEP,
                  B_X0 + mid, B_Y0 + 4 * B_STEP, B_Y0 + size, B_X0, B_Y0 + mid, B_X0 + 2 * B_STEP, B_X0 + 4 * B_STEP,
                  B_Y0 + mid, B_X0 + size);
    /* coordinates: ranks on the left, files below */
    for (int k = 0; k < 7; k++) {
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%d</text>", B_X0 - 24,
                      B_Y0 + k * B_STEP + 4, 7 - k);
        ma_out_printf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%c</text>", B_X0 + k * B_STEP,
                      B_Y0 + size + 26, 'a' + k);
    }
    for (int row = 0; row < 13; row += 2)
        for (int col = 0; col < 13; col += 2) {
            if (ma_render_board_template[row][col] != '*')
                continue;
            int x = B_X0 + col / 2 * B_STEP, y = B_Y0 + row / 2 * B_STEP;
            char g = grid[row][col];
            if (g == 'X')
                ma_out_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"10\" fill=\"#111\"/>", x, y);
            else if (g == 'O')
                ma_out_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"10\" fill=\"#fff\" stroke=\"#111\" stroke-width=\"2\"/>",
                              x, y);
            else
                ma_out_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"3\" fill=\"#5b4636\"/>", x, y);
        }
    ma_move mv;
    if (move && ma_render_move_parse(move, &mv) == 0) {
        double x1, y1, x2, y2;
        point_xy(mv.to, &x2, &y2);
        if (mv.kind == 2) {
            point_xy(mv.from, &x1, &y1);
            double dx = x2 - x1, dy = y2 - y1, len = sqrt(dx * dx + dy * dy);
            double ux = dx / len, uy = dy / len;
            double sx = x1 + ux * 11, sy = y1 + uy * 11, ex = x2 - ux * 4, ey = y2 - uy * 4;
            double bx = ex - ux * 12, by = ey - uy * 12;
            ma_out_printf(o, "<g class=\"move\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"12\" fill=\"none\" stroke=\"#1e88e5\" "
                             "stroke-width=\"2\" stroke-dasharray=\"3 2\"/>"
                             "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1e88e5\" stroke-width=\"4\"/>"
                             "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"#1e88e5\"/></g>",
                          x2, y2, sx, sy, bx, by, ex, ey, bx - uy * 7, by + ux * 7, bx + uy * 7, by - ux * 7);
        } else {
            ma_out_printf(o, "<g class=\"move\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"10\" fill=\"#111\" fill-opacity=\"0.35\" "
                             "stroke=\"#1e88e5\" stroke-width=\"3\"/><path d=\"M%.1f %.1fh10M%.1f %.1fv10\" stroke=\"#fff\" "
                             "stroke-width=\"2.5\"/></g>",
                          x2, y2, x2 - 5, y2, x2, y2 - 5);
        }
        if (mv.capture[0]) {
            point_xy(mv.capture, &x1, &y1);
            ma_out_printf(o, "<path class=\"capture\" d=\"M%.1f %.1fl16 16M%.1f %.1fl-16 16\" stroke=\"#d32f2f\" "
                             "stroke-width=\"4\"/>", x1 - 8, y1 - 8, x1 + 8, y1 - 8);
        }
    }
    /* side to move and stones in hand */
    int yb = B_Y0 + size + 46;
    ma_out_printf(o, "<text x=\"%d\" y=\"%d\">X to move; in hand:</text>", B_X0 - 24, yb + 4);
    hand_stones(o, B_X0 + 112, yb, mover_in_hand, 1);
    hand_stones(o, B_X0 + 152, yb, opponent_in_hand, 0);
    ma_out_printf(o, "</svg>");
}
