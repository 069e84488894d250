/* The HTML report: one self-contained page, verdict first, inline CSS and SVG, no scripts
 * (reports/render/render.h). Laid out for a 1280 px window: the sector table has ten narrow columns and
 * puts long messages on a row of their own. */
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "reports/render/render_internal.h"

static const char CSS[] =
    "*{box-sizing:border-box}\n"
    "body{font-family:'DejaVu Sans',Arial,sans-serif;font-size:14px;margin:0 auto;padding:16px 20px;"
    "max-width:1240px;color:#222;background:#fff}\n"
    "h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:22px 0 8px;border-bottom:1px solid #ccc}\n"
    ".sub{color:#555;margin:0 0 10px;word-break:break-all}\n"
    ".verdict{border-radius:6px;padding:12px 16px;margin:10px 0;border-left:10px solid}\n"
    ".verdict .vh{font-size:20px;font-weight:bold}\n"
    ".verdict ul{margin:6px 0 0 0;padding-left:20px}\n"
    ".good{background:#e8f5e9;border-color:#2e7d32}.good .vh{color:#1b5e20}\n"
    ".warn{background:#fff8e1;border-color:#f9a825}.warn .vh{color:#8d6e00}\n"
    ".bad{background:#ffebee;border-color:#c62828}.bad .vh{color:#b71c1c}\n"
    ".grey{background:#eceff1;border-color:#607d8b}.grey .vh{color:#37474f}\n"
    ".integrity{border-radius:6px;padding:2px 16px 8px;margin:10px 0;border-left:10px solid}\n"
    ".kpis{display:flex;flex-wrap:wrap;gap:8px;margin-top:10px}\n"
    ".kpi{background:#fff;border:1px solid #ccc;border-radius:4px;padding:4px 10px;min-width:120px}\n"
    ".kpi b{display:block;font-size:17px}.kpi span{font-size:12px;color:#555}\n"
    "nav a{margin-right:14px;color:#1565c0}\n"
    "table{border-collapse:collapse;margin:6px 0;font-size:13px}\n"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}\n"
    "th{background:#eef2f7}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.sectors{width:100%}table.sectors tfoot td{font-weight:bold;background:#f5f5f5}\n"
    "tr.msg td{font-size:12px;color:#555;border-top:none;overflow-wrap:anywhere}\n"
    "span.st{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;white-space:nowrap}\n"
    "span.st.good{background:#c8e6c9}span.st.warn{background:#ffe082}span.st.bad{background:#ffcdd2}"
    "span.st.grey{background:#cfd8dc}\n"
    ".carried{font-size:11px;color:#6a1b9a;white-space:nowrap}\n"
    "table.facts th{width:170px}table.facts td{word-break:break-all}\n"
    "code,.mono{font-family:'DejaVu Sans Mono',monospace;font-size:12px}\n"
    "table.files td{word-break:break-all}\n"
    ".banner{background:#c62828;color:#fff;padding:10px;font-weight:bold}\n"
    ".note{color:#555;font-size:13px}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}\n"
    "figure{margin:0;border:1px solid #ddd;border-radius:4px;padding:8px;background:#fcfcfc}\n"
    "figcaption{font-weight:bold;font-size:13px;margin-bottom:4px}\n"
    ".discs{display:flex;flex-wrap:wrap;gap:10px}\n"
    ".disc{border:1px solid #ccc;border-radius:4px;padding:8px;width:390px;font-size:13px}\n"
    ".disc .t{font-weight:bold;overflow-wrap:anywhere}.disc .says{margin:4px 0}\n"
    ".root{color:#b71c1c;font-weight:bold}.prop{color:#e65100}\n"
    ".box{display:grid;grid-template-columns:160px 1fr;gap:3px 12px;margin:8px 0 0}\n"
    ".box dt{font-weight:bold}.box dd{margin:0;overflow-wrap:anywhere}\n"
    ".more{margin:4px 0 14px;color:#444}\n";

static void state_badge(ma_out *o, ma_verdict_state s, const char *words)
{
    ma_out_printf(o, "<span class=\"st %s\">%s</span>", ma_state_class(s), words ? words : ma_state_words(s));
}

static void kpi(ma_out *o, int64_t v, const char *what)
{
    char c[32];
    ma_out_printf(o, "<div class=\"kpi\"><b>%s</b><span>%s</span></div>", ma_fmt_count(c, sizeof c, v), what);
}

/* The box's next step, one step a line, each command set as code: "millaudit probe ... shows ...;
 * millaudit report ... lists ..." (reports/store/report_box.c words every step so). */
static void next_steps(ma_out *o, const char *text)
{
    static const char *const verbs[] = {" shows ", " lists ", " continues "};
    char *copy = strdup(text);
    if (!copy) {
        o->oom = 1;
        return;
    }
    for (char *part = copy, *end; part; part = end) {
        end = strstr(part, "; ");
        if (end)
            *end = '\0', end += 2;
        char *cut = NULL;
        for (size_t k = 0; k < sizeof verbs / sizeof *verbs && !strncmp(part, "millaudit ", 10); k++) {
            char *at = strstr(part, verbs[k]);
            if (at && (!cut || at < cut))
                cut = at;
        }
        ma_out_printf(o, "<div>");
        if (cut) {
            *cut = '\0';
            ma_out_printf(o, "<code>");
            ma_out_str(o, part);
            ma_out_printf(o, "</code> ");
            ma_out_str(o, cut + 1);
        } else {
            ma_out_str(o, part);
        }
        ma_out_printf(o, "</div>");
    }
    free(copy);
}

static void html_verdict(ma_out *o, const ma_report *r)
{
    const ma_verdict *v = &r->verdict;
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, "<section id=\"verdict\" class=\"verdict %s\" data-state=\"%s\">\n<div class=\"vh\">",
                  ma_state_class(v->state), ma_verdict_state_name(v->state));
    ma_out_str(o, v->headline);
    ma_out_printf(o, "</div>\n");
    /* the box: where the faults are, where to start, what changed, what to do next */
    const ma_report_box *b = &r->box;
    const char *labels[] = {diff ? "root pairs" : "faulty sectors", "as a consequence", "first root",
                            "what changed", "next step"};
    const char *lines[] = {b->faulty, b->consequences, b->first_root, b->since, b->next};
    int any = 0;
    for (int i = 0; i < 5; i++) {
        if (!lines[i][0])
            continue;
        ma_out_printf(o, "%s<dt>%s</dt><dd>", any++ ? "" : "<dl class=\"box\">", labels[i]);
        if (i == 4)
            next_steps(o, lines[i]);
        else
            ma_out_str(o, lines[i]);
        ma_out_printf(o, "</dd>\n");
    }
    if (any)
        ma_out_printf(o, "</dl>\n");
    if (v->n_details) {
        ma_out_printf(o, "<ul>");
        for (int i = 0; i < v->n_details; i++) {
            ma_out_printf(o, "<li>");
            ma_out_str(o, v->details[i]);
            ma_out_printf(o, "</li>");
        }
        ma_out_printf(o, "</ul>\n");
    }
    ma_out_printf(o, "<div class=\"kpis\">");
    const ma_verdict_counts *t = &r->totals;
    kpi(o, t->sectors, "sectors");
    if (diff) {
        kpi(o, t->entries, "positions compared");
        kpi(o, t->value_differences, "values differ");
        kpi(o, t->encoding, "encoding differences");
        kpi(o, t->only_a + t->only_b, "sectors on one side only");
    } else {
        kpi(o, t->entries, "entries");
        kpi(o, t->verified, "fully verified");
        kpi(o, t->within_bounds, "only within bounds");
        kpi(o, v->not_verified, "not verified");
        kpi(o, t->discrepancies, t->discrepancies == 1 ? "discrepancy" : "discrepancies");
        if (t->roots >= 0 && t->discrepancies > 0) {
            kpi(o, t->roots, t->roots == 1 ? "root" : "roots");
            kpi(o, t->propagated, "propagated");
        }
    }
    char rate[32];
    ma_out_printf(o, "<div class=\"kpi\"><b>%.2f s</b><span>%s</span></div>", r->total_seconds,
                  ma_fmt_rate(rate, sizeof rate, t->checked, r->total_seconds));
    ma_out_printf(o, "</div>\n</section>\n");
}

static void html_sides(ma_out *o, const ma_report *r)
{
    if (!ma_report_is_diff(r))
        return;
    ma_out_printf(o, "<table class=\"facts\"><tr><th>A</th><td>");
    ma_out_str(o, r->run.database_root);
    ma_out_printf(o, "</td></tr><tr><th>B</th><td>");
    ma_out_str(o, r->side_b ? r->side_b : "not recorded by the build that ran it");
    ma_out_printf(o, "</td></tr></table>\n");
}

static void html_sectors(ma_out *o, const ma_report *r)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    char c[8][32];
    ma_out_printf(o, "<h2 id=\"sectors\">Sectors (%s)</h2>\n", MA_NUM(x->n_sectors));
    if (!x->n_sectors) {
        ma_out_printf(o, "<p>No sector results recorded.</p>\n");
        return;
    }
    if (diff)
        ma_out_printf(o, "<table class=\"sectors\"><thead><tr><th>sector</th><th class=\"n\">positions</th>"
                         "<th class=\"n\">agree</th><th class=\"n\">outcome</th><th class=\"n\">depth</th>"
                         "<th class=\"n\">draw class</th><th class=\"n\">encoding</th><th class=\"n\">seconds</th>"
                         "<th>state</th></tr></thead>\n<tbody>\n");
    else
        ma_out_printf(o, "<table class=\"sectors\"><thead><tr><th>sector</th><th class=\"n\">entries</th>"
                         "<th class=\"n\">verified</th><th class=\"n\">within bounds</th><th class=\"n\">discrepancies</th>"
                         "<th class=\"n\">roots</th><th class=\"n\">propagated</th><th class=\"n\">seconds</th>"
                         "<th class=\"n\">entries/s</th><th>state</th></tr></thead>\n<tbody>\n");
    int cols = diff ? 9 : 10;
    size_t *order = ma_render_sector_order(o, r); /* the faulty sectors first */
    for (size_t k = 0; order && k <= x->n_sectors; k++) {
        size_t i = k == x->n_sectors ? k : order[k];
        int total = i == x->n_sectors;
        if (!total && !ma_render_sector_shown(r, i))
            continue;
        if (total && r->only)
            break; /* one sector: its row is the table */
        if (total)
            ma_out_printf(o, "</tbody>\n<tfoot>");
        const ma_run_sector *s = total ? NULL : &x->sectors[i];
        const ma_report_sector *sx = total ? NULL : &r->sx[i];
        ma_out_printf(o, "<tr><td>");
        if (total)
            ma_out_printf(o, "total");
        else
            ma_out_str(o, s->sector);
        ma_out_printf(o, "</td>");
        int64_t entries = total ? r->totals.entries : s->entries, verified = total ? r->totals.verified : s->verified;
        double secs = total ? r->total_seconds : s->seconds;
        if (diff) {
            int64_t v[4] = {0, 0, 0, 0};
            static const char *const names[4] = {"outcome", "depth", "draw-class", "encoding"};
            for (size_t j = total ? 0 : i; j < (total ? x->n_sectors : i + 1); j++)
                for (size_t k = 0; k < x->sectors[j].n_classes; k++)
                    for (int m = 0; m < 4; m++)
                        if (x->sectors[j].classes[k].cls && !strcmp(x->sectors[j].classes[k].cls, names[m]))
                            v[m] += x->sectors[j].classes[k].count;
            ma_out_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                             "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.2f</td><td>",
                          ma_fmt_count(c[0], 32, entries), ma_fmt_count(c[1], 32, verified), ma_fmt_count(c[2], 32, v[0]),
                          ma_fmt_count(c[3], 32, v[1]), ma_fmt_count(c[4], 32, v[2]), ma_fmt_count(c[5], 32, v[3]), secs);
        } else {
            int64_t bounds = total ? r->totals.within_bounds : s->within_bounds;
            int64_t disc = total ? r->totals.discrepancies : s->discrepancies;
            int64_t roots = total ? r->totals.roots : sx->roots, prop = total ? r->totals.propagated : sx->propagated;
            if (!disc && roots < 0)
                roots = prop = -1;
            else if (!disc)
                roots = prop = 0;
            ma_out_printf(o, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                             "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%.2f</td><td class=\"n\">%s</td><td>",
                          ma_fmt_count(c[0], 32, entries), ma_fmt_count(c[1], 32, verified),
                          ma_fmt_count(c[2], 32, bounds), ma_fmt_count(c[3], 32, disc), ma_fmt_count(c[4], 32, roots),
                          ma_fmt_count(c[5], 32, prop), secs,
                          ma_fmt_rate(c[6], 32, total ? r->totals.checked : s->checked, secs));
        }
        if (total) {
            state_badge(o, r->verdict.state, NULL);
        } else {
            const char *words = NULL;
            if (diff && s->message)
                words = !strncmp(s->message, "only-in-A", 9)   ? "only in A"
                        : !strncmp(s->message, "only-in-B", 9) ? "only in B"
                        : !strncmp(s->message, "identical", 9) ? "identical"
                                                               : NULL;
            if (s->status && !strcmp(s->status, "not-checked"))
                words = "not checked"; /* an interrupted run never reached it */
            if (s->status && !strcmp(s->status, "input-damaged"))
                words = "input damaged"; /* not checked: it reads a damaged file */
            state_badge(o, (ma_verdict_state)sx->state, words);
            if (sx->carried_from)
                ma_out_printf(o, " <span class=\"carried\">carried over from run %lld</span>",
                              (long long)sx->carried_from);
        }
        ma_out_printf(o, "</td></tr>\n");
        int show_msg = s && s->message && !(diff && !strncmp(s->message, "identical", 9));
        int because = s && sx->because && !diff; /* a diff's message names its causes already */
        if (!total && (show_msg || s->n_classes || because)) {
            ma_out_printf(o, "<tr class=\"msg\"><td colspan=\"%d\">", cols);
            for (size_t k = 0; k < s->n_classes; k++) {
                ma_out_printf(o, k ? ", " : "");
                ma_out_str(o, s->classes[k].cls);
                ma_out_printf(o, "=%s", MA_NUM((uint64_t)s->classes[k].count));
            }
            if (show_msg) {
                ma_out_printf(o, s->n_classes ? "; " : "");
                ma_out_str(o, s->message);
            }
            if (because) {
                ma_out_printf(o, "; a consequence of ");
                ma_out_str(o, sx->because);
            }
            ma_out_printf(o, "</td></tr>\n");
        }
    }
    free(order);
    ma_out_printf(o, r->only ? "</tbody></table>\n" : "</tfoot></table>\n");
}

/* One recorded row as a card: sector, entry, class, both values, the board with the move. */
static void html_disc(ma_out *o, const ma_report *r, size_t i, int draw)
{
    const ma_run_discrepancy *d = &r->run.disc[i];
    const ma_report_disc *dx = &r->dx[i];
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, "<div class=\"disc\"><div class=\"t\">");
    ma_out_str(o, d->sector);
    ma_out_printf(o, " entry %lld", (long long)d->entry);
    if (dx->offset >= 0)
        ma_out_printf(o, " (offset %lld)", (long long)dx->offset);
    ma_out_printf(o, ": ");
    ma_out_str(o, d->cls);
    if (dx->root == 1)
        ma_out_printf(o, " <span class=\"root\">root</span>");
    else if (dx->root == 0)
        ma_out_printf(o, " <span class=\"prop\">propagated</span>");
    ma_out_printf(o, "</div><div class=\"says\">%s <b>", diff ? "A says" : "stored");
    ma_out_str(o, d->stored);
    ma_out_printf(o, "</b>, %s <b>", diff ? "B says" : "derived");
    ma_out_str(o, d->derived);
    ma_out_printf(o, "</b></div>\n");
    if (draw) {
        int mover = -1, opp = -1;
        ma_report_in_hand(d->sector, &mover, &opp);
        ma_svg_board(o, d->board, mover, opp, dx->move);
    }
    ma_out_printf(o, "<div><code>");
    ma_out_str(o, d->board);
    ma_out_printf(o, "</code></div>");
    if (dx->move) {
        ma_out_printf(o, "<div>%s <code>", diff ? "proved by" : "refuted by");
        ma_out_str(o, dx->move);
        ma_out_printf(o, "</code>");
        if (dx->successor) {
            ma_out_printf(o, ", successor <code>");
            ma_out_str(o, dx->successor);
            ma_out_printf(o, "</code>");
        }
        ma_out_printf(o, "</div>");
    } else if (!diff) {
        ma_out_printf(o, "<div class=\"note\">refuting move not recorded by the build that ran it</div>");
    }
    ma_out_printf(o, "</div>\n");
}

/* The recorded rows sector by sector, root sectors first, at most MA_RENDER_ROWS_PER_SECTOR each
 * (every row of the one sector a report of a sector shows), each capped list saying how many more
 * there are and which command lists them. */
static void html_discrepancies(ma_out *o, const ma_report *r)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    size_t cap = r->only ? (size_t)-1 : MA_RENDER_ROWS_PER_SECTOR;
    size_t boards = r->only ? MA_RENDER_MAX_BOARDS : MA_RENDER_BOARDS_PER_SECTOR;
    ma_out_printf(o, "<h2 id=\"discrepancies\">%s, root sectors first (%s recorded%s)</h2>\n",
                  diff ? "Differences" : "Discrepancies", MA_COUNT(x->n_disc, "row", "rows"),
                  r->only ? "" : "; at most 10 per sector shown");
    ma_render_rows rows;
    size_t *order = ma_render_sector_order(o, r);
    if (!x->n_disc || !order || ma_render_rows_of(o, r, &rows)) {
        free(order);
        ma_out_printf(o, "<p>None.</p>\n");
        return;
    }
    ma_out_printf(o, "<p class=\"note\">Boards: X (black) is the side to move, O (white) the opponent; files a&ndash;g, "
                     "ranks 1&ndash;7.%s</p>\n",
                  diff ? " The arrow is the turn that proves which side is right."
                       : " The arrow is the refuting move: the successor whose value proves the derived one.");
    size_t drawn = 0;
    for (size_t k = 0; k < x->n_sectors; k++) {
        size_t i = order[k], n = rows.count[i];
        const ma_run_sector *s = &x->sectors[i];
        if (!ma_render_sector_shown(r, i) || !n)
            continue;
        ma_out_printf(o, "<h3>");
        ma_out_str(o, s->sector);
        ma_out_printf(o, ": %s, %s recorded%s</h3>\n<div class=\"discs\">\n",
                      MA_COUNT((uint64_t)s->discrepancies, diff ? "difference" : "discrepancy",
                               diff ? "differences" : "discrepancies"),
                      MA_COUNT(n, "row", "rows"), r->sx[i].cause == MA_REPORT_CONSEQUENCE ? " (a consequence)" : "");
        size_t shown = n < cap ? n : cap;
        for (size_t j = 0; j < shown; j++) {
            int draw = j < boards && drawn < MA_RENDER_MAX_BOARDS;
            html_disc(o, r, rows.idx[rows.start[i] + j], draw);
            drawn += draw;
        }
        ma_out_printf(o, "</div>\n");
        if (shown < n || (uint64_t)s->discrepancies > n) {
            char cmd[1300];
            ma_render_sector_command(cmd, sizeof cmd, r, s->sector);
            ma_out_printf(o, "<p class=\"more\">%s more (%s of them in the store): <code>",
                          MA_NUM((uint64_t)s->discrepancies - shown), MA_NUM(n - shown));
            ma_out_str(o, cmd);
            ma_out_printf(o, "</code></p>\n");
        }
    }
    ma_render_rows_free(&rows);
    free(order);
}

static void html_facts(ma_out *o, const ma_report *r)
{
    const ma_run *x = &r->run;
    char variants[64];
    ma_out_printf(o, "<h2 id=\"run\">Run</h2>\n<table class=\"facts\">\n");
    ma_render_fact f[MA_RENDER_RUN_FACTS];
    ma_render_run_facts(r, variants, sizeof variants, f);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!f[i].name)
            continue;
        ma_out_printf(o, "<tr><th>%s</th><td>", f[i].name);
        ma_out_str(o, f[i].value);
        ma_out_printf(o, "</td></tr>\n");
    }
    if (r->resumed_from)
        ma_out_printf(o, "<tr><th>resumed from</th><td>run %lld</td></tr>\n", (long long)r->resumed_from);
    if (r->continued_by)
        ma_out_printf(o, "<tr><th>continued by</th><td>run %lld</td></tr>\n", (long long)r->continued_by);
    if (x->imported) {
        ma_out_printf(o, "<tr><th>imported from</th><td>");
        ma_out_str(o, x->import_source);
        ma_out_printf(o, " (run %lld there, imported ", (long long)x->import_source_run_id);
        ma_out_str(o, x->imported_at);
        ma_out_printf(o, ")</td></tr>\n");
    }
    if (x->attested) {
        ma_out_printf(o, "<tr><th>attested by</th><td>");
        ma_out_str(o, x->attest_identity ? x->attest_identity : "(no identity given)");
        ma_out_printf(o, ", key <code>");
        ma_out_str(o, x->attest_keyid);
        ma_out_printf(o, "</code> (signed attestation, signature checked on import)</td></tr>\n");
    }
    ma_out_printf(o, "</table>\n");
}

static void html_history(ma_out *o, const ma_report *r)
{
    ma_out_printf(o, "<h2 id=\"history\">History of this database root</h2>\n");
    ma_chart_history(o, r);
    if (r->n_history < 2)
        return;
    char c[4][32];
    if (ma_report_is_diff(r))
        ma_out_printf(o, "<table><tr><th class=\"n\">run</th><th>started</th><th>mode</th><th class=\"n\">positions</th>"
                         "<th class=\"n\">agree</th><th class=\"n\">-</th><th class=\"n\">differences</th>"
                         "<th>state</th></tr>\n");
    else
        ma_out_printf(o, "<table><tr><th class=\"n\">run</th><th>started</th><th>mode</th><th class=\"n\">entries</th>"
                         "<th class=\"n\">verified</th><th class=\"n\">within bounds</th><th class=\"n\">discrepancies</th>"
                         "<th>state</th></tr>\n");
    for (size_t i = 0; i < r->n_history; i++) {
        const ma_report_history *h = &r->history[i];
        ma_out_printf(o, "<tr><td class=\"n\">%s%lld%s</td><td>", h->id == r->run.id ? "<b>" : "", (long long)h->id,
                      h->id == r->run.id ? "</b>" : "");
        char when[64];
        ma_out_str(o, ma_report_when(when, sizeof when, h->started_at));
        ma_out_printf(o, "</td><td>");
        ma_out_str(o, h->mode);
        ma_out_printf(o, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                      ma_fmt_count(c[0], 32, h->entries), ma_fmt_count(c[1], 32, h->verified),
                      ma_fmt_count(c[2], 32, h->within_bounds), ma_fmt_count(c[3], 32, h->discrepancies));
        state_badge(o, h->state, NULL);
        if (h->carried)
            ma_out_printf(o, " <span class=\"carried\">%s carried over</span>",
                          MA_COUNT((uint64_t)h->carried, "sector", "sectors"));
        ma_out_printf(o, "</td></tr>\n");
    }
    ma_out_printf(o, "</table>\n");
}

static void html_appendix(ma_out *o, const ma_report *r)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, "<h2 id=\"appendix\">Appendix A: manifest of the bytes %s</h2>\n", diff ? "compared" : "checked");
    if (!x->n_files) {
        if (diff)
            ma_out_printf(o, "<p class=\"note\">The digests diff computed of A and B were not recorded in this store.</p>\n");
        else
            ma_out_printf(o, "<p class=\"banner\">NO MANIFEST RECORDED: this run does not name the bytes it checked; "
                             "its result cannot be tied to files</p>\n");
    } else {
        ma_out_printf(o, "<table class=\"files\"><tr><th>sha256</th><th class=\"n\">size</th><th>path</th><th>sector</th>"
                         "</tr>\n");
        for (size_t i = 0; i < x->n_files; i++) {
            ma_out_printf(o, "<tr><td class=\"mono\">");
            ma_out_str(o, x->files[i].sha256);
            ma_out_printf(o, "</td><td class=\"n\">%lld</td><td>", (long long)x->files[i].size);
            ma_out_str(o, x->files[i].path);
            ma_out_printf(o, "</td><td>");
            ma_out_str(o, x->files[i].sector);
            ma_out_printf(o, "</td></tr>\n");
        }
        ma_out_printf(o, "</table>\n<p class=\"note\">%s, chunk size %s</p>\n", MA_COUNT(x->n_files, "file", "files"),
                      MA_COUNT((uint64_t)x->manifest_chunk_size, "byte", "bytes"));
    }
    size_t n = 0;
    for (size_t i = 0; i < x->n_sectors; i++)
        n += x->sectors[i].derived_sha256 && ma_render_sector_shown(r, i);
    if (!n)
        return;
    ma_out_printf(o, "<h2 id=\"digests\">Appendix B: derived-value digests</h2>\n<table class=\"files\"><tr>"
                     "<th>sector</th><th>derived sha256</th><th class=\"n\">positions</th></tr>\n");
    for (size_t i = 0; i < x->n_sectors; i++) {
        const ma_run_sector *s = &x->sectors[i];
        if (!s->derived_sha256 || !ma_render_sector_shown(r, i))
            continue;
        ma_out_printf(o, "<tr><td>");
        ma_out_str(o, s->sector);
        ma_out_printf(o, "</td><td class=\"mono\">");
        ma_out_str(o, s->derived_sha256);
        if (s->has_derived_positions)
            ma_out_printf(o, "</td><td class=\"n\">%lld</td></tr>\n", (long long)s->derived_positions);
        else
            ma_out_printf(o, "</td><td class=\"n\">&ndash;</td></tr>\n");
    }
    ma_out_printf(o, "</table>\n");
}

void ma_render_html(ma_out *o, const ma_report *r)
{
    ma_out_printf(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>millaudit report: run %lld: ", (long long)r->run.id);
    ma_out_str(o, r->verdict.headline);
    ma_out_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>millaudit report: run %lld (", CSS,
                  (long long)r->run.id);
    ma_out_str(o, r->run.kind);
    ma_out_printf(o, ")</h1>\n<p class=\"sub\">");
    ma_out_str(o, r->run.database_root);
    ma_out_printf(o, " &middot; ");
    char when[64];
    ma_out_str(o, ma_report_when(when, sizeof when, r->run.started_at));
    ma_out_printf(o, "</p>\n");
    html_verdict(o, r);
    ma_render_report_integrity(o, r); /* damage first: what to fetch again */
    html_sides(o, r);
    ma_out_printf(o, "<nav><a href=\"#charts\">charts</a><a href=\"#sectors\">sectors</a>"
                     "<a href=\"#discrepancies\">%s</a><a href=\"#history\">history</a><a href=\"#run\">run</a>"
                     "<a href=\"#appendix\">manifest</a></nav>\n",
                  ma_report_is_diff(r) ? "differences" : "discrepancies");
    ma_out_printf(o, "<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n");
    ma_chart_proof(o, r);
    ma_chart_wdl(o, r);
    ma_chart_depths(o, r);
    ma_chart_time(o, r);
    ma_chart_map(o, r);
    ma_out_printf(o, "</div>\n");
    html_sectors(o, r);
    html_discrepancies(o, r);
    html_history(o, r);
    html_facts(o, r);
    ma_render_shards(o, r);
    html_appendix(o, r);
    ma_out_printf(o, "</body>\n</html>\n");
}
