/*
 * The text and Markdown reports (reports/render/render.h, docs/report.md), for a terminal and for
 * GitHub. A view decides how much of a large run is shown: ma_render_report renders Markdown
 * again with a smaller view until it fits a GitHub comment (MA_RENDER_MD_MAX characters), so the
 * verdict box always comes through whole and only lists are cut, each saying what it left out and
 * which command shows it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "reports/render/render_internal.h"

static const char NO_MANIFEST[] =
    "NO MANIFEST RECORDED: this run does not name the bytes it checked; its result cannot be tied to files";

/* A sector's state in words, with diff's "identical" and "only in A/B". */
static void sector_state_words(ma_out *o, const ma_report *r, size_t i)
{
    const ma_run_sector *x = &r->run.sectors[i];
    if (ma_report_is_diff(r)) {
        if (x->message && !strncmp(x->message, "only-in-A", 9))
            ma_out_printf(o, "only in A");
        else if (x->message && !strncmp(x->message, "only-in-B", 9))
            ma_out_printf(o, "only in B");
        else if (x->message && !strncmp(x->message, "identical", 9))
            ma_out_printf(o, "identical");
        else
            ma_out_printf(o, "%s", ma_state_words((ma_verdict_state)r->sx[i].state));
        return;
    }
    if (x->status && !strcmp(x->status, "not-checked")) {
        ma_out_printf(o, "not checked"); /* an interrupted run never reached it */
        return;
    }
    if (x->status && !strcmp(x->status, "input-damaged")) {
        ma_out_printf(o, "input damaged"); /* not checked: it reads a damaged file */
        return;
    }
    ma_out_printf(o, "%s", ma_state_words((ma_verdict_state)r->sx[i].state));
}

/* Prints "stored win 3, derived loss 2" or, for diff runs, "A says win 3, B says loss 2"; values
 * as recorded (the data form is in JSON). */
static void says(ma_out *o, const ma_report *r, size_t i)
{
    const ma_run_discrepancy *d = &r->run.disc[i];
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, "%s", diff ? "A says " : "stored ");
    ma_out_str(o, d->stored);
    ma_out_printf(o, "%s", diff ? ", B says " : ", derived ");
    ma_out_str(o, d->derived);
}

static void text_facts(ma_out *o, const ma_report *r, int md)
{
    const ma_run *x = &r->run;
    char variants[64];
    ma_render_fact f[MA_RENDER_RUN_FACTS];
    ma_render_run_facts(r, variants, sizeof variants, f);
    if (md)
        ma_out_printf(o, "\n## Run\n\n| fact | value |\n|---|---|\n");
    else
        ma_out_printf(o, "\nRun\n");
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!f[i].name)
            continue;
        ma_out_printf(o, md ? "| %s | " : "  %-18s ", f[i].name);
        ma_out_str(o, f[i].value);
        ma_out_printf(o, md ? " |\n" : "\n");
    }
    if (r->resumed_from && md)
        ma_out_printf(o, "| resumed from | run %lld |\n", (long long)r->resumed_from);
    else if (r->resumed_from)
        ma_out_printf(o, "  %-18s run %lld\n", "resumed from", (long long)r->resumed_from);
    if (r->continued_by && md)
        ma_out_printf(o, "| continued by | run %lld |\n", (long long)r->continued_by);
    else if (r->continued_by)
        ma_out_printf(o, "  %-18s run %lld\n", "continued by", (long long)r->continued_by);
    if (x->imported) {
        ma_out_printf(o, md ? "| imported from | " : "  %-18s ", "imported from");
        ma_out_str(o, x->import_source);
        ma_out_printf(o, " (run %lld there, imported ", (long long)x->import_source_run_id);
        ma_out_str(o, x->imported_at);
        ma_out_printf(o, md ? ") |\n" : ")\n");
    }
    if (x->attested) {
        /* the results are the signer's, not this store's: say whose */
        ma_out_printf(o, md ? "| attested by | " : "  %-18s ", "attested by");
        ma_out_str(o, x->attest_identity ? x->attest_identity : "(no identity given)");
        ma_out_printf(o, ", key ");
        ma_out_str(o, x->attest_keyid);
        ma_out_printf(o, md ? " (signed attestation, signature checked on import) |\n"
                            : " (signed attestation, signature checked on import)\n");
    }
}

/* The verdict box's lines (ma_report.box) under the headline: which sectors hold the faults, what
 * follows from them, where to start, what changed since the previous run, what to do next. */
static void box_line(ma_out *o, int md, const char *label, const char *text)
{
    if (!text[0])
        return;
    if (md) {
        ma_out_printf(o, ">\n> - **%s:** ", label);
        ma_out_str(o, text);
        ma_out_printf(o, "\n");
    } else {
        ma_out_printf(o, "  %-17s ", label);
        ma_out_str(o, text);
        ma_out_printf(o, "\n");
    }
}

static void text_verdict(ma_out *o, const ma_report *r, int md)
{
    const ma_verdict *v = &r->verdict;
    const ma_report_box *b = &r->box;
    int diff = ma_report_is_diff(r);
    if (md) {
        ma_out_printf(o, "\n> **Verdict: ");
        ma_out_str(o, v->headline);
        ma_out_printf(o, "**\n");
    } else {
        ma_out_printf(o, "verdict: ");
        ma_out_str(o, v->headline);
        ma_out_printf(o, "\n");
    }
    box_line(o, md, diff ? "root pairs" : "faulty sectors", b->faulty);
    box_line(o, md, "as a consequence", b->consequences);
    box_line(o, md, "first root", b->first_root);
    box_line(o, md, "what changed", b->since);
    box_line(o, md, "next step", b->next);
    for (int i = 0; i < v->n_details; i++) {
        ma_out_printf(o, md ? ">\n> - " : "  - ");
        ma_out_str(o, v->details[i]);
        ma_out_printf(o, "\n");
    }
}
static void class_list(ma_out *o, const ma_run_sector *x)
{
    for (size_t k = 0; k < x->n_classes; k++) {
        ma_out_printf(o, k ? ", " : "");
        ma_out_str(o, x->classes[k].cls);
        ma_out_printf(o, "=%s", ma_fmt_count((char[MA_NUM_SIZE]){0}, MA_NUM_SIZE, x->classes[k].count));
    }
    if (!x->n_classes)
        ma_out_printf(o, "-");
}

/* Count of a diff class in a sector, 0 when absent. */
static int64_t class_count(const ma_run_sector *x, const char *name)
{
    for (size_t k = 0; k < x->n_classes; k++)
        if (x->classes[k].cls && !strcmp(x->classes[k].cls, name))
            return x->classes[k].count;
    return 0;
}

/* How much of a large run a document shows (a smaller view for Markdown that must fit a comment). */
typedef struct view {
    int level;                  /* 0 everything listed; each level cuts lists further */
    size_t rows;                /* discrepancy rows per sector */
    size_t boards;              /* boards drawn per sector */
    size_t history;             /* runs of the history table */
    size_t sectors;             /* sectors with something to look at, listed in each table */
    size_t clip;                /* bytes of a sector's message */
} view;

static view view_of(const ma_report *r, int level)
{
    static const size_t rows[] = {MA_RENDER_ROWS_PER_SECTOR, 3, 1, 0};
    static const size_t boards[] = {MA_RENDER_BOARDS_PER_SECTOR, 1, 0, 0};
    static const size_t history[] = {30, 10, 3, 0};
    static const size_t sectors[] = {SIZE_MAX, SIZE_MAX, 40, 15};
    static const size_t clip[] = {SIZE_MAX, 400, 200, 100};
    view v = {level, rows[level], boards[level], history[level], sectors[level], clip[level]};
    if (r->only && level == 0) /* one sector asked for: every row the store kept of it */
        v.rows = (size_t)-1, v.boards = MA_RENDER_MAX_BOARDS;
    return v;
}

/* "N more sectors <why>: `millaudit report ...` lists <what>." under a table that left them out. */
static void not_listed(ma_out *o, const ma_report *r, int md, size_t n, const char *why, const char *what)
{
    char cmd[1300];
    ma_report_shell_word(cmd, sizeof cmd, r->store_path ? r->store_path : "STORE");
    ma_out_printf(o, md ? "\n%s %s: `millaudit report --audit %s --run %lld` lists %s.\n"
                        : "  (%s %s: millaudit report --audit %s --run %lld lists %s)\n",
                  MA_COUNT(n, "more sector", "more sectors"), why, cmd, (long long)r->run.id, what);
}

static void text_sectors(ma_out *o, const ma_report *r, const view *v, int md)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    char c[10][32];
    ma_out_printf(o, md ? "\n## Sectors (%s)\n\n" : "\nSectors (%s)\n", MA_NUM(x->n_sectors));
    if (!x->n_sectors) {
        ma_out_printf(o, md ? "No sector results recorded.\n" : "  no sector results recorded\n");
        return;
    }
    if (diff) {
        if (md)
            ma_out_printf(o, "| sector | positions | agree | outcome | depth | draw-class | encoding | seconds | state |\n"
                             "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        else
            ma_out_printf(o, "  %-15s %12s %12s %9s %9s %10s %10s %8s  %s\n", "sector", "positions", "agree", "outcome",
                          "depth", "draw-class", "encoding", "seconds", "state");
    } else if (md) {
        ma_out_printf(o, "| sector | entries | checked | verified | within bounds | discrepancies | roots | propagated |"
                         " seconds | entries/s | state |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    } else {
        ma_out_printf(o, "  %-15s %13s %13s %11s %11s %8s  %s\n", "sector", "entries", "verified", "in-bounds",
                      "discrep", "seconds", "state");
    }
    size_t *order = ma_render_sector_order(o, r), hidden = 0, listed = 0, over = 0; /* the faulty sectors first */
    for (size_t k = 0; order && k <= x->n_sectors; k++) {
        size_t i = k == x->n_sectors ? k : order[k];
        int total = i == x->n_sectors;
        if (total && r->only)
            break; /* one sector: its row is the whole table */
        if (!total && !ma_render_sector_shown(r, i))
            continue;
        if (!total && v->level >= 1 && ma_render_sector_rank(r, i) == 3) {
            hidden++; /* a smaller view lists the sectors to look at, and counts the rest */
            continue;
        }
        if (!total && listed++ >= v->sectors) {
            over++; /* the smallest views list the first of them, root sectors first */
            continue;
        }
        const ma_run_sector *s = total ? NULL : &x->sectors[i];
        const ma_report_sector *sx = total ? NULL : &r->sx[i];
        int64_t entries = total ? r->totals.entries : s->entries, checked = total ? r->totals.checked : s->checked;
        int64_t verified = total ? r->totals.verified : s->verified;
        int64_t bounds = total ? r->totals.within_bounds : s->within_bounds;
        int64_t disc = total ? r->totals.discrepancies : s->discrepancies;
        int64_t roots = total ? r->totals.roots : sx->roots, prop = total ? r->totals.propagated : sx->propagated;
        double secs = total ? r->total_seconds : s->seconds;
        if (md) {
            ma_out_printf(o, "| ");
            if (total)
                ma_out_printf(o, "**total**");
            else
                ma_out_str(o, s->sector);
        } else {
            ma_out_printf(o, "  ");
            /* pad by hand: the name is escaped, so printf cannot count its width */
            const char *name = total ? "total" : s->sector ? s->sector : "-";
            ma_out_strn(o, name, 15);
            size_t len = strlen(name) > 15 ? 18 : strlen(name);
            for (size_t k = len; k < 15; k++)
                ma_out_printf(o, " ");
        }
        if (diff) {
            const char *fmt = md ? " | %s | %s | %s | %s | %s | %s | %.2f | " : " %12s %12s %9s %9s %10s %10s %8.2f  ";
            int64_t oc = 0, dp = 0, dc = 0, en = 0;
            if (total) {
                for (size_t k = 0; k < x->n_sectors; k++) {
                    oc += class_count(&x->sectors[k], "outcome"), dp += class_count(&x->sectors[k], "depth");
                    dc += class_count(&x->sectors[k], "draw-class"), en += class_count(&x->sectors[k], "encoding");
                }
            } else {
                oc = class_count(s, "outcome"), dp = class_count(s, "depth");
                dc = class_count(s, "draw-class"), en = class_count(s, "encoding");
            }
            ma_out_printf(o, fmt, ma_fmt_count(c[0], 32, entries), ma_fmt_count(c[1], 32, verified),
                          ma_fmt_count(c[2], 32, oc), ma_fmt_count(c[3], 32, dp), ma_fmt_count(c[4], 32, dc),
                          ma_fmt_count(c[5], 32, en), secs);
        } else {
            int64_t shown_roots = disc ? roots : (roots < 0 ? -1 : 0), shown_prop = disc ? prop : (prop < 0 ? -1 : 0);
            if (md)
                ma_out_printf(o, " | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | ", ma_fmt_count(c[0], 32, entries),
                              ma_fmt_count(c[1], 32, checked), ma_fmt_count(c[2], 32, verified),
                              ma_fmt_count(c[3], 32, bounds), ma_fmt_count(c[4], 32, disc),
                              ma_fmt_count(c[5], 32, shown_roots), ma_fmt_count(c[6], 32, shown_prop), secs,
                              ma_fmt_rate(c[7], 32, checked, secs));
            else /* a terminal's 100 columns: checked and the rate are in the other formats, the
                  * roots and propagated under the row with the classes, the total's in the verdict */
                ma_out_printf(o, " %13s %13s %11s %11s %8.2f  ", ma_fmt_count(c[0], 32, entries),
                              ma_fmt_count(c[2], 32, verified), ma_fmt_count(c[3], 32, bounds),
                              ma_fmt_count(c[4], 32, disc), secs);
        }
        if (total)
            ma_out_printf(o, "%s", ma_state_words(r->verdict.state));
        else
            sector_state_words(o, r, i);
        if (!total && sx->carried_from)
            ma_out_printf(o, md ? " (carried over from run %lld)" : " (carried over from run %lld)",
                          (long long)sx->carried_from);
        ma_out_printf(o, md ? " |\n" : "\n");
        if (!md && !total && s->message && !(diff && !strncmp(s->message, "identical", 9))) {
            ma_out_printf(o, "      message: ");
            ma_out_strn(o, s->message, v->clip);
            ma_out_printf(o, "\n");
        }
        if (!md && !total && s->n_classes) {
            ma_out_printf(o, "      classes: ");
            class_list(o, s);
            if (!diff && disc > 0 && roots >= 0)
                ma_out_printf(o, "; %s, %s propagated", MA_COUNT((uint64_t)roots, "root", "roots"),
                              MA_NUM((uint64_t)prop));
            ma_out_printf(o, "\n");
        }
        if (!md && !total && sx->cause == MA_REPORT_CONSEQUENCE && !diff) {
            ma_out_printf(o, "      a consequence of: ");
            ma_out_strn(o, sx->because, v->clip);
            ma_out_printf(o, "\n");
        }
    }
    if (over)
        not_listed(o, r, md, over, "to look at not listed here", "them all");
    if (hidden)
        not_listed(o, r, md, hidden, "not listed (nothing to look at)", "every sector");
    if (md) {
        int any = 0;
        listed = 0;
        for (size_t k = 0; order && k < x->n_sectors; k++) {
            size_t i = order[k];
            if (ma_render_sector_shown(r, i) && !(v->level >= 1 && ma_render_sector_rank(r, i) == 3) &&
                listed++ < v->sectors &&
                ((x->sectors[i].message && !(diff && !strncmp(x->sectors[i].message, "identical", 9))) ||
                 x->sectors[i].n_classes || r->sx[i].because)) {
                if (!any++)
                    ma_out_printf(o, "\n| sector | classes | message |\n|---|---|---|\n");
                ma_out_printf(o, "| ");
                ma_out_str(o, x->sectors[i].sector);
                ma_out_printf(o, " | ");
                class_list(o, &x->sectors[i]);
                ma_out_printf(o, " | ");
                if (r->sx[i].because && !diff) {
                    ma_out_printf(o, "a consequence of ");
                    ma_out_strn(o, r->sx[i].because, v->clip);
                } else {
                    ma_out_strn(o, x->sectors[i].message, v->clip);
                }
                ma_out_printf(o, " |\n");
            }
        }
    }
    free(order);
}

/* Row i of the discrepancies: its position, the refuting move, and its board when draw is set. */
static void text_board(ma_out *o, const ma_report *r, size_t i, int draw, int md)
{
    const ma_run_discrepancy *d = &r->run.disc[i];
    const ma_report_disc *dx = &r->dx[i];
    int mover = -1, opp = -1;
    ma_report_in_hand(d->sector, &mover, &opp);
    ma_out_printf(o, md ? "- position: `" : "      position ");
    ma_out_str(o, d->board);
    ma_out_printf(o, md ? "`, X to move" : ", X to move");
    if (mover >= 0)
        ma_out_printf(o, "; stones in hand: X %d, O %d", mover, opp);
    ma_out_printf(o, "\n");
    if (dx->move) {
        ma_out_printf(o, md ? "- %s: `" : "      %s ", ma_report_is_diff(r) ? "proved by" : "refuted by");
        ma_out_str(o, dx->move);
        ma_out_printf(o, md ? "`" : "");
        if (dx->successor) {
            ma_out_printf(o, md ? " (successor `" : " (successor ");
            ma_out_str(o, dx->successor);
            ma_out_printf(o, md ? "`)" : ")");
        }
        ma_out_printf(o, "\n");
    } else if (!ma_report_is_diff(r)) {
        ma_out_printf(o, md ? "- refuting move: not recorded by the build that ran it\n"
                            : "      refuting move not recorded by the build that ran it\n");
    }
    if (!draw)
        return;
    char board[MA_RENDER_BOARD_SIZE];
    ma_error e;
    if (ma_render_board_text(board, sizeof board, d->board, &e) != MA_OK) {
        ma_out_printf(o, md ? "\n(board not drawable: " : "        (board not drawable: ");
        ma_out_str(o, e.msg);
        ma_out_printf(o, ")\n");
        return;
    }
    ma_out_printf(o, md ? "\n```\n" : "");
    for (char *line = board; *line;) {
        char *nl = strchr(line, '\n');
        ma_out_printf(o, md ? "%.*s\n" : "        %.*s\n", (int)(nl - line), line);
        line = nl + 1;
    }
    ma_out_printf(o, md ? "```\n\n" : "");
}

/* One sector's rows, roots first: at most v->rows, then what was left out and where it is. */
static void sector_rows(ma_out *o, const ma_report *r, const ma_render_rows *rows, size_t i, const view *v, int md,
                        size_t *drawn)
{
    const ma_run_sector *s = &r->run.sectors[i];
    size_t n = rows->count[i], shown = n < v->rows ? n : v->rows;
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, md ? "\n### " : "  ");
    ma_out_str(o, s->sector);
    ma_out_printf(o, ": %s, %s recorded%s\n", MA_COUNT((uint64_t)s->discrepancies, diff ? "difference" : "discrepancy",
                                                    diff ? "differences" : "discrepancies"),
                  MA_COUNT(n, "row", "rows"), r->sx[i].cause == MA_REPORT_CONSEQUENCE ? " (a consequence)" : "");
    for (size_t k = 0; k < shown; k++) {
        size_t d = rows->idx[rows->start[i] + k];
        const ma_run_discrepancy *x = &r->run.disc[d];
        const ma_report_disc *dx = &r->dx[d];
        ma_out_printf(o, md ? "\n#### " : "    ");
        ma_out_str(o, x->sector);
        ma_out_printf(o, " entry %lld", (long long)x->entry);
        if (dx->offset >= 0)
            ma_out_printf(o, " (offset %lld)", (long long)dx->offset);
        ma_out_printf(o, ": ");
        ma_out_str(o, x->cls);
        if (dx->root >= 0)
            ma_out_printf(o, dx->root ? " (root)" : " (propagated)");
        ma_out_printf(o, md ? "\n\n- " : "\n      ");
        says(o, r, d);
        ma_out_printf(o, "\n");
        int draw = k < v->boards && *drawn < MA_RENDER_MAX_BOARDS;
        text_board(o, r, d, draw, md);
        *drawn += draw;
    }
    if (n == shown && (uint64_t)s->discrepancies > n) { /* every recorded row shown: the rest were never kept */
        ma_out_printf(o, md ? "\n%s more not kept: the run kept %s of this sector (`verify --max-rows`).\n"
                            : "    ... %s more not kept: the run kept %s of this sector (verify --max-rows)\n",
                      MA_NUM((uint64_t)s->discrepancies - n), MA_COUNT(n, "row", "rows"));
    } else if (n > shown || (uint64_t)s->discrepancies > n) {
        char cmd[1300];
        ma_render_sector_command(cmd, sizeof cmd, r, s->sector);
        uint64_t more = (uint64_t)(s->discrepancies > (int64_t)shown ? s->discrepancies - (int64_t)shown : 0);
        ma_out_printf(o, md ? "\n%s more (%s of them in the store): `" : "    ... %s more (%s of them in the store):\n      ",
                      MA_NUM(more), MA_NUM(n - shown));
        ma_out_str(o, cmd);
        ma_out_printf(o, md ? "`\n" : "\n");
    }
}

static void text_discrepancies(ma_out *o, const ma_report *r, const view *v, int md)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    size_t shown_sectors = 0;
    for (size_t i = 0; i < x->n_sectors; i++)
        shown_sectors += ma_render_sector_shown(r, i) && (x->sectors[i].discrepancies > 0);
    ma_out_printf(o, md ? "\n## %s, root sectors first (%s recorded" : "\n%s, root sectors first (%s recorded",
                  diff ? "Differences" : "Discrepancies", MA_COUNT(x->n_disc, "row", "rows"));
    if (!r->only && v->rows != (size_t)-1)
        ma_out_printf(o, "; at most %s per sector shown", MA_NUM(v->rows));
    ma_out_printf(o, md ? ")\n" : ")\n");
    ma_render_rows rows;
    size_t *order = ma_render_sector_order(o, r);
    if (!order || ma_render_rows_of(o, r, &rows)) {
        free(order);
        if (!x->n_sectors || !x->n_disc)
            ma_out_printf(o, md ? "\nNone.\n" : "  none\n");
        return;
    }
    size_t drawn = 0, any = 0;
    for (size_t k = 0; k < x->n_sectors; k++) {
        size_t i = order[k];
        if (!ma_render_sector_shown(r, i) || (x->sectors[i].discrepancies <= 0 && !rows.count[i]))
            continue;
        if (any++ < v->sectors)
            sector_rows(o, r, &rows, i, v, md, &drawn);
    }
    if (!any)
        ma_out_printf(o, md ? "\nNone.\n" : "  none\n");
    if (any > v->sectors)
        not_listed(o, r, md, any - v->sectors, "with rows not shown here", "them all");
    ma_render_rows_free(&rows);
    free(order);
}
/* Depth histogram in text: wins and losses apart, each sorted by depth, bars on a log scale. */
static void text_depths(ma_out *o, const ma_report *r, int md)
{
    int64_t wins[1024] = {0}, losses[1024] = {0};
    ma_render_depths dp; /* the text report pools the variants: one histogram, as before */
    int any = ma_render_depth_bins(r, NULL, wins, losses, 1024, &dp);
    int64_t draws = dp.draws, max = dp.max;
    int maxd = dp.maxd;
    ma_out_printf(o, md ? "\n## Outcomes by depth (positions, %s" : "\nOutcomes by depth (positions, %s",
                  r->only ? "sector " : "all sectors");
    if (r->only)
        ma_out_str(o, r->only);
    ma_out_printf(o, md ? "; bars on a log scale)\n\n" : "; bars on a log scale)\n");
    if (!any) {
        ma_out_printf(o, md ? "No outcome/depth histogram recorded in this run.\n"
                            : "  no outcome/depth histogram recorded in this run\n");
        return;
    }
    if (md)
        ma_out_printf(o, "```\n");
    char c[32];
    double lmax = max > 0 ? log10((double)max + 1) : 1;
    for (int side = 0; side < 2; side++) {
        ma_out_printf(o, "  %s by depth (plies)\n", side ? "losses" : "wins");
        for (int dd = 0; dd <= maxd; dd++) {
            int64_t v = side ? losses[dd] : wins[dd];
            if (!v)
                continue;
            int w = (int)(log10((double)v + 1) / lmax * 40 + 0.5);
            if (w < 1)
                w = 1;
            ma_out_printf(o, "    %4d %14s ", dd, ma_fmt_count(c, sizeof c, v));
            for (int k = 0; k < w; k++)
                ma_out_printf(o, "#");
            ma_out_printf(o, "\n");
        }
    }
    ma_out_printf(o, "  draws %14s\n", ma_fmt_count(c, sizeof c, draws));
    if (md)
        ma_out_printf(o, "```\n");
}

static void text_history(ma_out *o, const ma_report *r, const view *v, int md)
{
    if (r->n_history < 2 || !v->history)
        return;
    ma_out_printf(o, md ? "\n## History of this database root (%s runs)\n\n" : "\nHistory of this database root (%s runs)\n",
                  ma_report_is_diff(r) ? "diff" : r->run.kind && !strcmp(r->run.kind, "manifest") ? "manifest" : "verify");
    int diff = ma_report_is_diff(r);
    if (md)
        ma_out_printf(o, "| run | started | mode | %s | %s | %s | %s | state |\n|---:|---|---|---:|---:|---:|---:|---|\n",
                      diff ? "positions" : "entries", diff ? "agree" : "verified", diff ? "-" : "within bounds",
                      diff ? "differences" : "discrepancies");
    else
        /* 100 columns: the mode is in the other formats, this run is starred */
        ma_out_printf(o, "  %4s  %-20s %13s %13s %11s %11s  %s\n", "run", "started (* this run)",
                      diff ? "positions" : "entries", diff ? "agree" : "verified", diff ? "-" : "in-bounds",
                      diff ? "differ" : "discrep", "state");
    char c[4][32];
    size_t first = r->n_history > v->history ? r->n_history - v->history : 0; /* the newest runs */
    if (first)
        ma_out_printf(o, md ? "| | %s earlier not listed | | | | | | |\n" : "  (%s earlier not listed)\n",
                      MA_COUNT(first, "run", "runs"));
    for (size_t i = first; i < r->n_history; i++) {
        const ma_report_history *h = &r->history[i];
        int self = h->id == r->run.id;
        ma_out_printf(o, md ? "| %lld | " : "  %4lld%c ", (long long)h->id, self ? '*' : ' ');
        char when[64];
        ma_out_strn(o, ma_report_when(when, sizeof when, h->started_at), 20);
        if (md) {
            ma_out_printf(o, " | ");
            ma_out_str(o, h->mode);
        } else {
            for (size_t k = strlen(when); k < 20; k++)
                ma_out_printf(o, " ");
        }
        ma_out_printf(o, md ? " | %s | %s | %s | %s | %s%s |\n" : " %13s %13s %11s %11s  %s%s\n",
                      ma_fmt_count(c[0], 32, h->entries), ma_fmt_count(c[1], 32, h->verified),
                      ma_fmt_count(c[2], 32, h->within_bounds), ma_fmt_count(c[3], 32, h->discrepancies),
                      ma_state_words(h->state), md && self ? " (this run)" : "");
    }
}

static void text_manifest(ma_out *o, const ma_report *r, const view *v, int md)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, md ? "\n## Appendix A: manifest of the bytes %s\n\n" : "\nAppendix A: manifest of the bytes %s\n",
                  diff ? "compared" : "checked");
    if (!x->n_files) {
        if (diff)
            ma_out_printf(o, md ? "The digests diff computed of A and B were not recorded in this store.\n"
                                : "  the digests diff computed of A and B were not recorded in this store\n");
        else
            ma_out_printf(o, md ? "> **%s**\n" : "  !!! %s !!!\n", NO_MANIFEST);
        return;
    }
    if (v->level >= 1) { /* a smaller view: the manifest's size, and where the list is */
        int64_t bytes = 0;
        for (size_t i = 0; i < x->n_files; i++)
            bytes += x->files[i].size;
        ma_out_printf(o, md ? "%s, %s recorded; the list: `millaudit report --format text` of this run.\n"
                            : "  %s, %s recorded\n",
                      MA_COUNT(x->n_files, "file", "files"), MA_COUNT((uint64_t)bytes, "byte", "bytes"));
        return;
    }
    if (md)
        ma_out_printf(o, "| sha256 | size | path | sector |\n|---|---:|---|---|\n");
    for (size_t i = 0; i < x->n_files; i++) {
        const ma_run_file *f = &x->files[i];
        ma_out_printf(o, md ? "| `" : "  ");
        ma_out_str(o, f->sha256);
        ma_out_printf(o, md ? "` | %s | " : "  %13s  ", MA_NUM((uint64_t)f->size));
        ma_out_str(o, f->path);
        ma_out_printf(o, md ? " | " : "  ");
        ma_out_str(o, f->sector);
        ma_out_printf(o, md ? " |\n" : "\n");
    }
    ma_out_printf(o, md ? "\n%s, chunk size %s\n" : "  %s, chunk size %s\n", MA_COUNT(x->n_files, "file", "files"),
                  MA_COUNT((uint64_t)x->manifest_chunk_size, "byte", "bytes"));
}

static void text_digests(ma_out *o, const ma_report *r, const view *v, int md)
{
    size_t n = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++)
        n += r->run.sectors[i].derived_sha256 && ma_render_sector_shown(r, i);
    if (!n)
        return;
    if (v->level >= 1) {
        ma_out_printf(o, md ? "\n## Appendix B: derived-value digests\n\n%s recorded: in the text and JSON reports.\n"
                            : "\nAppendix B: derived-value digests: %s recorded\n",
                      MA_COUNT(n, "sector", "sectors"));
        return;
    }
    ma_out_printf(o, md ? "\n## Appendix B: derived-value digests (docs/reproducibility.md)\n\n| sector | derived sha256 |"
                          " positions |\n|---|---|---:|\n"
                        : "\nAppendix B: derived-value digests (docs/reproducibility.md)\n");
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const ma_run_sector *s = &r->run.sectors[i];
        if (!s->derived_sha256 || !ma_render_sector_shown(r, i))
            continue;
        ma_out_printf(o, md ? "| " : "  ");
        ma_out_str(o, s->sector);
        ma_out_printf(o, md ? " | `" : "  derived values: ");
        ma_out_str(o, s->derived_sha256);
        if (s->has_derived_positions)
            ma_out_printf(o, md ? "` | %s |\n" : " (%s)\n",
                          md ? MA_NUM((uint64_t)s->derived_positions)
                             : MA_COUNT((uint64_t)s->derived_positions, "position", "positions"));
        else
            ma_out_printf(o, md ? "` | - |\n" : "\n");
    }
}

void ma_render_text(ma_out *o, const ma_report *r, int md, int level)
{
    view v = view_of(r, level);
    ma_out_printf(o, md ? "# millaudit report: run %lld (" : "millaudit report: run %lld (", (long long)r->run.id);
    ma_out_str(o, r->run.kind);
    ma_out_printf(o, ")");
    if (r->only) {
        ma_out_printf(o, ", sector ");
        ma_out_str(o, r->only);
    }
    ma_out_printf(o, "\n");
    text_verdict(o, r, md);
    ma_render_report_integrity(o, r); /* damage first: what to fetch again */
    text_facts(o, r, md);
    ma_render_shards(o, r);
    text_sectors(o, r, &v, md);
    text_discrepancies(o, r, &v, md);
    if (v.level < 2)
        text_depths(o, r, md);
    text_history(o, r, &v, md);
    text_manifest(o, r, &v, md);
    text_digests(o, r, &v, md);
}
