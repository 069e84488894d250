/* Rendering a report: text and Markdown, dispatch, atomic writing (reports/render/render.h); the helpers
 * every renderer shares are in render_internal.c. */
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

/* ---------------------------------------------------------------- text and Markdown */

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

static void text_verdict(ma_out *o, const ma_report *r, int md)
{
    const ma_verdict *v = &r->verdict;
    if (md) {
        ma_out_printf(o, "\n> **Verdict: ");
        ma_out_str(o, v->headline);
        ma_out_printf(o, "**\n");
        for (int i = 0; i < v->n_details; i++) {
            ma_out_printf(o, ">\n> - ");
            ma_out_str(o, v->details[i]);
            ma_out_printf(o, "\n");
        }
    } else {
        ma_out_printf(o, "verdict: ");
        ma_out_str(o, v->headline);
        ma_out_printf(o, "\n");
        for (int i = 0; i < v->n_details; i++) {
            ma_out_printf(o, "  - ");
            ma_out_str(o, v->details[i]);
            ma_out_printf(o, "\n");
        }
    }
}

static void class_list(ma_out *o, const ma_run_sector *x)
{
    for (size_t k = 0; k < x->n_classes; k++) {
        ma_out_printf(o, k ? ", " : "");
        ma_out_str(o, x->classes[k].cls);
        ma_out_printf(o, "=%lld", (long long)x->classes[k].count);
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

static void text_sectors(ma_out *o, const ma_report *r, int md)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    char c[10][32];
    ma_out_printf(o, md ? "\n## Sectors (%zu)\n\n" : "\nSectors (%zu)\n", x->n_sectors);
    if (!x->n_sectors) {
        ma_out_printf(o, md ? "No sector results recorded.\n" : "  no sector results recorded\n");
        return;
    }
    if (diff) {
        if (md)
            ma_out_printf(o, "| sector | positions | agree | outcome | depth | draw-class | encoding | seconds | state |\n"
                             "|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
        else
            ma_out_printf(o, "  %-20s %12s %12s %9s %9s %10s %10s %8s  %s\n", "sector", "positions", "agree", "outcome",
                          "depth", "draw-class", "encoding", "seconds", "state");
    } else if (md) {
        ma_out_printf(o, "| sector | entries | checked | verified | within bounds | discrepancies | roots | propagated |"
                         " seconds | entries/s | state |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    } else {
        ma_out_printf(o, "  %-20s %12s %12s %12s %10s %8s %6s %6s %8s %9s  %s\n", "sector", "entries", "checked",
                      "verified", "in-bounds", "discrep", "roots", "propag", "seconds", "entries/s", "state");
    }
    size_t *order = ma_render_sector_order(o, r); /* the faulty sectors first */
    for (size_t k = 0; order && k <= x->n_sectors; k++) {
        size_t i = k == x->n_sectors ? k : order[k];
        int total = i == x->n_sectors;
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
            ma_out_strn(o, name, 20);
            size_t len = strlen(name) > 20 ? 23 : strlen(name);
            for (size_t k = len; k < 20; k++)
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
            const char *fmt = md ? " | %s | %s | %s | %s | %s | %s | %s | %.2f | %s | "
                                 : " %12s %12s %12s %10s %8s %6s %6s %8.2f %9s  ";
            ma_out_printf(o, fmt, ma_fmt_count(c[0], 32, entries), ma_fmt_count(c[1], 32, checked),
                          ma_fmt_count(c[2], 32, verified), ma_fmt_count(c[3], 32, bounds),
                          ma_fmt_count(c[4], 32, disc), ma_fmt_count(c[5], 32, disc ? roots : (roots < 0 ? -1 : 0)),
                          ma_fmt_count(c[6], 32, disc ? prop : (prop < 0 ? -1 : 0)), secs,
                          ma_fmt_rate(c[7], 32, checked, secs));
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
            ma_out_str(o, s->message);
            ma_out_printf(o, "\n");
        }
        if (!md && !total && s->n_classes) {
            ma_out_printf(o, "      classes: ");
            class_list(o, s);
            ma_out_printf(o, "\n");
        }
    }
    free(order);
    if (md) {
        int any = 0;
        for (size_t i = 0; i < x->n_sectors; i++)
            if ((x->sectors[i].message && !(diff && !strncmp(x->sectors[i].message, "identical", 9))) ||
                x->sectors[i].n_classes) {
                if (!any++)
                    ma_out_printf(o, "\n| sector | classes | message |\n|---|---|---|\n");
                ma_out_printf(o, "| ");
                ma_out_str(o, x->sectors[i].sector);
                ma_out_printf(o, " | ");
                class_list(o, &x->sectors[i]);
                ma_out_printf(o, " | ");
                ma_out_str(o, x->sectors[i].message);
                ma_out_printf(o, " |\n");
            }
    }
}

/* Row i of the discrepancies, shown as the shown-th (boards only for the first ones shown). */
static void text_board(ma_out *o, const ma_report *r, size_t i, size_t shown, int md)
{
    const ma_run_discrepancy *d = &r->run.disc[i];
    const ma_report_disc *dx = &r->dx[i];
    int mover = -1, opp = -1;
    ma_report_in_hand(d->sector, &mover, &opp);
    ma_out_printf(o, md ? "- position: `" : "    position ");
    ma_out_str(o, d->board);
    ma_out_printf(o, md ? "`, X to move" : ", X to move");
    if (mover >= 0)
        ma_out_printf(o, "; stones in hand: X %d, O %d", mover, opp);
    ma_out_printf(o, "\n");
    if (dx->move) {
        ma_out_printf(o, md ? "- %s: `" : "    %s ", ma_report_is_diff(r) ? "move" : "refuted by");
        ma_out_str(o, dx->move);
        ma_out_printf(o, md ? "`" : "");
        if (dx->successor) {
            ma_out_printf(o, md ? " (successor `" : " (successor ");
            ma_out_str(o, dx->successor);
            ma_out_printf(o, md ? "`)" : ")");
        }
        ma_out_printf(o, "\n");
    } else if (!ma_report_is_diff(r)) {
        ma_out_printf(o, md ? "- refuting move: not recorded by the build that ran it\n" : "    refuting move not recorded by the build that ran it\n");
    }
    if (shown >= MA_RENDER_MAX_BOARDS) {
        if (shown == MA_RENDER_MAX_BOARDS)
            ma_out_printf(o, md ? "\n(boards drawn for the first %d rows only)\n"
                                : "    (boards drawn for the first %d rows only)\n", MA_RENDER_MAX_BOARDS);
        return;
    }
    char board[MA_RENDER_BOARD_SIZE];
    ma_error e;
    if (ma_render_board_text(board, sizeof board, d->board, &e) != MA_OK) {
        ma_out_printf(o, md ? "\n(board not drawable: " : "      (board not drawable: ");
        ma_out_str(o, e.msg);
        ma_out_printf(o, ")\n");
        return;
    }
    ma_out_printf(o, md ? "\n```\n" : "");
    for (char *line = board; *line;) {
        char *nl = strchr(line, '\n');
        ma_out_printf(o, md ? "%.*s\n" : "      %.*s\n", (int)(nl - line), line);
        line = nl + 1;
    }
    ma_out_printf(o, md ? "```\n\n" : "");
}

static void text_discrepancies(ma_out *o, const ma_report *r, int md)
{
    const ma_run *x = &r->run;
    int diff = ma_report_is_diff(r);
    ma_out_printf(o, md ? "\n## %s (%zu row%s recorded)\n\n" : "\n%s (%zu row%s recorded)\n",
                  diff ? "Differences" : "Discrepancies", x->n_disc, x->n_disc == 1 ? "" : "s");
    size_t *order = ma_render_disc_order(o, r);
    for (size_t k = 0; order && k < x->n_disc; k++) {
        size_t i = order[k];
        const ma_run_discrepancy *d = &x->disc[i];
        const ma_report_disc *dx = &r->dx[i];
        ma_out_printf(o, md ? "### " : "  ");
        ma_out_str(o, d->sector);
        ma_out_printf(o, " entry %lld", (long long)d->entry);
        if (dx->offset >= 0)
            ma_out_printf(o, " (offset %lld)", (long long)dx->offset);
        ma_out_printf(o, ": ");
        ma_out_str(o, d->cls);
        if (dx->root >= 0)
            ma_out_printf(o, dx->root ? " (root)" : " (propagated)");
        ma_out_printf(o, md ? "\n\n- " : "\n    ");
        says(o, r, i);
        ma_out_printf(o, "\n");
        text_board(o, r, i, k, md);
    }
    free(order);
    if (!x->n_disc)
        ma_out_printf(o, md ? "None.\n" : "  none\n");
}

/* Depth histogram in text: wins and losses apart, each sorted by depth, bars on a log scale. */
static void text_depths(ma_out *o, const ma_report *r, int md)
{
    int64_t wins[1024] = {0}, losses[1024] = {0}, draws = 0, max = 0;
    int maxd = -1, any = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++)
        for (size_t k = 0; k < r->run.sectors[i].n_bins; k++) {
            const ma_run_bin *b = &r->run.sectors[i].bins[k];
            const char *oc = b->outcome ? b->outcome : "";
            any = 1;
            if (!strcmp(oc, "draw")) {
                draws += b->count;
                continue;
            }
            if (b->depth < 0 || b->depth >= 1024)
                continue;
            int64_t *slot = !strcmp(oc, "win") ? &wins[b->depth] : !strcmp(oc, "loss") ? &losses[b->depth] : NULL;
            if (!slot)
                continue;
            *slot += b->count;
            if (*slot > max)
                max = *slot;
            if (b->depth > maxd)
                maxd = (int)b->depth;
        }
    ma_out_printf(o, md ? "\n## Outcomes by depth (positions, all sectors; bars on a log scale)\n\n"
                        : "\nOutcomes by depth (positions, all sectors; bars on a log scale)\n");
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

static void text_history(ma_out *o, const ma_report *r, int md)
{
    if (r->n_history < 2)
        return;
    ma_out_printf(o, md ? "\n## History of this database root (%s runs)\n\n" : "\nHistory of this database root (%s runs)\n",
                  ma_report_is_diff(r) ? "diff" : r->run.kind && !strcmp(r->run.kind, "manifest") ? "manifest" : "verify");
    int diff = ma_report_is_diff(r);
    if (md)
        ma_out_printf(o, "| run | started | mode | %s | %s | %s | %s | state |\n|---:|---|---|---:|---:|---:|---:|---|\n",
                      diff ? "positions" : "entries", diff ? "agree" : "verified", diff ? "-" : "within bounds",
                      diff ? "differences" : "discrepancies");
    else
        ma_out_printf(o, "  %6s  %-24s  %-11s %12s %12s %10s %8s  %s\n", "run", "started", "mode",
                      diff ? "positions" : "entries", diff ? "agree" : "verified", diff ? "-" : "in-bounds",
                      diff ? "differ" : "discrep", "state");
    char c[4][32];
    for (size_t i = 0; i < r->n_history; i++) {
        const ma_report_history *h = &r->history[i];
        ma_out_printf(o, md ? "| %lld | " : "  %6lld  ", (long long)h->id);
        ma_out_strn(o, h->started_at, 24);
        if (!md)
            for (size_t k = h->started_at ? strlen(h->started_at) : 1; k < 24; k++)
                ma_out_printf(o, " ");
        ma_out_printf(o, md ? " | " : "  ");
        ma_out_strn(o, h->mode ? h->mode : "-", 11);
        if (!md)
            for (size_t k = h->mode ? strlen(h->mode) : 1; k < 11; k++)
                ma_out_printf(o, " ");
        ma_out_printf(o, md ? " | %s | %s | %s | %s | %s%s |\n" : " %12s %12s %10s %8s  %s%s\n",
                      ma_fmt_count(c[0], 32, h->entries), ma_fmt_count(c[1], 32, h->verified),
                      ma_fmt_count(c[2], 32, h->within_bounds), ma_fmt_count(c[3], 32, h->discrepancies),
                      ma_state_words(h->state), h->id == r->run.id ? " (this run)" : "");
    }
}

static void text_manifest(ma_out *o, const ma_report *r, int md)
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
    if (md)
        ma_out_printf(o, "| sha256 | size | path | sector |\n|---|---:|---|---|\n");
    for (size_t i = 0; i < x->n_files; i++) {
        const ma_run_file *f = &x->files[i];
        ma_out_printf(o, md ? "| `" : "  ");
        ma_out_str(o, f->sha256);
        ma_out_printf(o, md ? "` | %lld | " : "  %12lld  ", (long long)f->size);
        ma_out_str(o, f->path);
        ma_out_printf(o, md ? " | " : "  ");
        ma_out_str(o, f->sector);
        ma_out_printf(o, md ? " |\n" : "\n");
    }
    ma_out_printf(o, md ? "\n%zu files, chunk size %lld bytes\n" : "  %zu files, chunk size %lld bytes\n", x->n_files,
                  (long long)x->manifest_chunk_size);
}

static void text_digests(ma_out *o, const ma_report *r, int md)
{
    size_t n = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++)
        n += r->run.sectors[i].derived_sha256 != NULL;
    if (!n)
        return;
    ma_out_printf(o, md ? "\n## Appendix B: derived-value digests (docs/reproducibility.md)\n\n| sector | derived sha256 |"
                          " positions |\n|---|---|---:|\n"
                        : "\nAppendix B: derived-value digests (docs/reproducibility.md)\n");
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const ma_run_sector *s = &r->run.sectors[i];
        if (!s->derived_sha256)
            continue;
        ma_out_printf(o, md ? "| " : "  ");
        ma_out_str(o, s->sector);
        ma_out_printf(o, md ? " | `" : "  derived values: ");
        ma_out_str(o, s->derived_sha256);
        if (s->has_derived_positions)
            ma_out_printf(o, md ? "` | %lld |\n" : " (%lld positions)\n", (long long)s->derived_positions);
        else
            ma_out_printf(o, md ? "` | - |\n" : "\n");
    }
}

static void render_text(ma_out *o, const ma_report *r, int md)
{
    ma_out_printf(o, md ? "# millaudit report: run %lld (" : "millaudit report: run %lld (", (long long)r->run.id);
    ma_out_str(o, r->run.kind);
    ma_out_printf(o, md ? ")\n" : ")\n");
    text_verdict(o, r, md);
    ma_render_report_integrity(o, r); /* damage first: what to fetch again */
    text_facts(o, r, md);
    ma_render_shards(o, r);
    text_sectors(o, r, md);
    text_discrepancies(o, r, md);
    text_depths(o, r, md);
    text_history(o, r, md);
    text_manifest(o, r, md);
    text_digests(o, r, md);
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
    ma_out o = {open_memstream(&buf, &n), 0, fmt};
    if (!o.f)
        return ma_error_set(err, MA_ENOMEM, "report: out of memory");
    if (fmt == MA_RENDER_HTML)
        ma_render_html(&o, r);
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
    /* common/output: "-", devices and FIFOs written through; regular files atomically */
    return ma_output_write(path, data, len, err);
}
