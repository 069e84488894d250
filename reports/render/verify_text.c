/* reports/render/verify_text: a verify run, a shard plan and a merge as text (reports/render/verify_render.h). */
#include "reports/render/verify_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "common/progress.h"
#include "reports/render/integrity_render.h"
#include "reports/render/run_causes.h"
#include "common/verdict.h"
#include "verifier/run/run.h"

#define TEXT_ROWS 5      /* discrepancy rows printed per faulty sector */
#define NAMES_SHOWN 6    /* sectors named in one line before "... (N in all)" */

/* A count with thousands separators, as every output prints it (common/counts.h). */
#define G(n) MA_NUM(n)

static void print_row(FILE *out, const ma_vrun_sector *s, const ma_vrun_row *w)
{
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    (void)s;
    fprintf(out, "  entry %llu (offset %llu): %s, %s: stored %s, derived %s", (unsigned long long)w->entry,
            (unsigned long long)w->offset, ma_disc_class_name(w->cls), w->root ? "root" : "propagated",
            w->stored_text, w->derived_text);
    if (w->has_refutation)
        fprintf(out, "; refuted by %s", w->move);
    fprintf(out, "\n      position %s\n", board);
}

/* "std_4_3_0_0, std_4_4_0_0" of the root sectors (at most NAMES_SHOWN). */
static void root_names(char *buf, size_t size, const ma_vrun *run, const ma_run_causes *rc)
{
    size_t used = 0, k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < rc->n && used < size; i++) {
        if (rc->c[i].kind != MA_CAUSE_ROOT)
            continue;
        if (k++ == NAMES_SHOWN) {
            snprintf(buf + used, size - used, ", ... (%s in all)", G(rc->n_roots));
            return;
        }
        used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", ma_vrun_sector_at(run, i)->name);
    }
}

static void print_verdict(FILE *out, const ma_vrun *run, const ma_run_causes *rc)
{
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    char names[512];
    switch (ma_vrun_verdict_of(run)) {
    case MA_VERDICT_VERIFIED:
        if (t->sectors == 0 && ma_vrun_options_of(run)->shard_count > 1)
            fprintf(out, "verdict: verified: an empty shard: none of the %s planned sectors falls in shard %u/%u\n",
                    G(ma_vrun_planned_sectors(run)), ma_vrun_options_of(run)->shard_index,
                    ma_vrun_options_of(run)->shard_count);
        else
            fprintf(out, "verdict: verified: all %s of %s re-derived and matching%s\n",
                    MA_COUNT(t->entries, "entry", "entries"), MA_COUNT(t->sectors, "sector", "sectors"),
                    ma_vrun_covers_database(run) ? ""
                                                 : "; scope: these sectors, given the files they read and this "
                                                   "run did not check, not the database");
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        fprintf(out, "verdict: verified within bounds only: %s unproven (successor sectors absent), no "
                     "contradiction; NOT fully verified\n", MA_COUNT(t->within_bounds, "entry", "entries"));
        break;
    case MA_VERDICT_DISCREPANCIES: {
        char caveat[400];
        ma_render_discrepancy_caveat(run, caveat, sizeof caveat);
        fprintf(out, "verdict: discrepancies found: %s (%s, %s propagated)%s", G(t->discrepancies),
                MA_COUNT(t->roots, "root", "roots"), G(t->propagated), caveat);
        root_names(names, sizeof names, run, rc);
        if (names[0])
            fprintf(out, "; root %s: %s", ma_noun(rc->n_roots, "sector", "sectors"), names);
        fprintf(out, "\n");
        break;
    }
    case MA_VERDICT_DAMAGED: {
        char h[400];
        ma_render_damage_headline(run, h, sizeof h);
        fprintf(out, "verdict: %s\n", h);
        break;
    }
    case MA_VERDICT_INTERRUPTED: {
        /* what this run did, whatever a later --resume does: it is never a proof */
        char words[160];
        ma_verdict_interrupted_words(words, sizeof words, (long long)(t->sectors - t->sectors_not_checked),
                                     (long long)t->sectors, (long long)t->sectors_carried);
        fprintf(out, "verdict: %s (%s of %s entries verified); NOT verified; continue with --resume\n", words,
                G(t->verified), G(t->entries));
        break;
    }
    default:
        if (!t->sectors) {
            fprintf(out, "verdict: incomplete: nothing was checked: no usable sector file\n");
            break;
        }
    {
        /* the words every report uses for the entries not proven (common/verdict.h) */
        char unproven[128];
        ma_unproven_phrase(unproven, sizeof unproven, t->within_bounds,
                           t->entries - t->verified - t->within_bounds - t->discrepancies);
        char unusable[64] = "";
        if (t->sectors_unusable || !unproven[0])
            snprintf(unusable, sizeof unusable, "%s unusable", MA_COUNT(t->sectors_unusable, "sector", "sectors"));
        fprintf(out, "verdict: incomplete: %s%s%s%s\n", unusable, unusable[0] && unproven[0] ? "; " : "", unproven,
                t->within_bounds ? " (successor sectors absent); Malom excerpts: --allow-bounds accepts entries "
                                   "checked within bounds"
                                 : unproven[0] ? " (a successor absent, unusable or holding a bad value)" : "");
        break;
    }
    }
}

void ma_render_verify_sector_line(FILE *out, const ma_vrun_sector *s)
{
    if (s->status == MA_SECTOR_UNUSABLE) {
        fprintf(out, "%s: unusable\n", s->name);
        return;
    }
    if (s->status == MA_SECTOR_DAMAGED || s->status == MA_SECTOR_INPUT_DAMAGED) {
        fprintf(out, "%s: %s\n", s->name, s->message);
        return;
    }
    fprintf(out, "%s: %s, %s, %s verified", s->name, ma_sector_status_name(s->status),
            MA_COUNT(s->entries, "entry", "entries"), G(s->verified));
    if (s->discrepancies)
        fprintf(out, ", %s (%s, %s propagated)", MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"),
                MA_COUNT(s->roots, "root", "roots"), G(s->propagated));
    if (s->within_bounds)
        fprintf(out, ", %s only within bounds", G(s->within_bounds));
    if (s->missing_child + s->unverifiable)
        fprintf(out, ", %s not verified", G(s->missing_child + s->unverifiable));
    if (s->carried)
        fprintf(out, ", carried over from run %lld\n", (long long)s->from_run);
    else
        fprintf(out, ", %.2f s\n", s->seconds);
}

/* ---- the table (--table: up to 100 columns; --wide: every column) ---- */

static void table_head(FILE *out, int wide)
{
    if (wide)
        fprintf(out, "%-15s %13s %13s %13s %11s %11s %11s %11s %9s %9s %8s  %s\n", "sector", "entries", "checked",
                "verified", "discrep", "roots", "propag", "bounds", "missing", "unverif", "seconds", "status");
    else
        fprintf(out, "%-15s %13s %13s %13s %11s %8s  %s\n", "sector", "entries", "verified", "discrep", "roots",
                "seconds", "status");
}

static void table_row(FILE *out, const ma_vrun_sector *s, int wide)
{
    char status[48];
    snprintf(status, sizeof status, "%s", ma_sector_status_name(s->status));
    if (s->carried) /* kept short: the carried run fits the 100 columns */
        snprintf(status + strlen(status), sizeof status - strlen(status), ", from run %lld", (long long)s->from_run);
    if (s->status == MA_SECTOR_UNUSABLE || s->status == MA_SECTOR_NOT_CHECKED) {
        /* unusable: nothing read; not checked: never reached, its planned entries only */
        const char *e = s->status == MA_SECTOR_NOT_CHECKED ? G(s->entries) : "-";
        if (wide)
            fprintf(out, "%-15s %13s %13s %13s %11s %11s %11s %11s %9s %9s %8s  %s\n", s->name, e, "-", "-", "-",
                    "-", "-", "-", "-", "-", "-", s->status == MA_SECTOR_UNUSABLE ? "unusable" : "not checked");
        else
            fprintf(out, "%-15s %13s %13s %13s %11s %8s  %s\n", s->name, e, "-", "-", "-", "-",
                    s->status == MA_SECTOR_UNUSABLE ? "unusable" : "not checked");
        return;
    }
    if (wide)
        fprintf(out, "%-15s %13s %13s %13s %11s %11s %11s %11s %9s %9s %8.2f  %s\n", s->name, G(s->entries),
                G(s->checked), G(s->verified), G(s->discrepancies), G(s->roots), G(s->propagated),
                G(s->within_bounds), G(s->missing_child), G(s->unverifiable), s->seconds, status);
    else
        fprintf(out, "%-15s %13s %13s %13s %11s %8.2f  %s\n", s->name, G(s->entries), G(s->verified),
                G(s->discrepancies), G(s->roots), s->seconds, status);
}

/* ---- what is wrong, root sectors first ---- */

static void class_line(FILE *out, const uint64_t by_class[MA_DISC_CLASSES], const char *lead)
{
    fprintf(out, "%s", lead);
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        if (by_class[k])
            fprintf(out, " %s=%s", ma_disc_class_name(k), G(by_class[k]));
    fprintf(out, "\n");
}

static void root_sector(FILE *out, const ma_vrun *run, const ma_vrun_sector *s)
{
    fprintf(out, "%s: %s (%s, %s propagated)%s\n", s->name,
            MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"), MA_COUNT(s->roots, "root", "roots"),
            G(s->propagated), s->body_digest == 0 ? "; its body does not match the SHA-256 in its header" : "");
    if (s->discrepancies)
        class_line(out, s->by_class, "  classes:");
    size_t rows = s->n_rows < TEXT_ROWS ? s->n_rows : TEXT_ROWS;
    for (size_t k = 0; k < rows; k++)
        print_row(out, s, &s->rows[k]);
    if (s->discrepancies > rows) {
        fprintf(out, "  ... %s more", G(s->discrepancies - rows));
        if (ma_vrun_id(run))
            fprintf(out, "; the first %s in the store:\n      millaudit report --audit %s --run %lld --sector %s",
                    G(s->n_rows), ma_vrun_options_of(run)->audit_path, (long long)ma_vrun_id(run), s->name);
        fprintf(out, "\n");
    }
}

/* Every sector that is not fine: root sectors with their first rows, then the sectors that are
 * wrong only because a root sector is (one line), then the sectors that could not be proven. */
static void print_faults(FILE *out, const ma_vrun *run, const ma_run_causes *rc)
{
    size_t n = ma_vrun_sector_count(run), other = 0;
    for (size_t i = 0; i < n; i++) {
        int st = ma_vrun_sector_at(run, i)->status;
        other += st == MA_SECTOR_UNUSABLE || st == MA_SECTOR_INCOMPLETE || st == MA_SECTOR_WITHIN_BOUNDS;
    }
    if (!rc->n_roots && !rc->n_consequences && !other)
        return;
    fprintf(out, "\n");
    if (rc->n_roots)
        fprintf(out, "%s, root sectors first:\n", rc->n_roots + rc->n_consequences == 1 ? "the fault" : "faults");
    for (size_t i = 0; i < n; i++)
        if (rc->c[i].kind == MA_CAUSE_ROOT)
            root_sector(out, run, ma_vrun_sector_at(run, i));
    /* the consequences, grouped by the root sectors that explain them */
    char *done = calloc(n ? n : 1, 1);
    for (size_t i = 0; done && i < n; i++) {
        const ma_run_cause *c = &rc->c[i];
        if (c->kind != MA_CAUSE_CONSEQUENCE || done[i])
            continue;
        size_t group = 0;
        for (size_t j = i; j < n; j++)
            group += rc->c[j].kind == MA_CAUSE_CONSEQUENCE && !done[j] && rc->c[j].n_because == c->n_because &&
                     !memcmp(rc->c[j].because, c->because, c->n_because * sizeof *c->because);
        char because[512];
        ma_run_causes_names(because, sizeof because, run, c, NAMES_SHOWN);
        fprintf(out, "%s with propagated discrepancies only, as a consequence of %s:",
                MA_COUNT(group, "sector", "sectors"), because);
        for (size_t j = i, shown = 0; j < n; j++) {
            const ma_run_cause *d = &rc->c[j];
            if (d->kind != MA_CAUSE_CONSEQUENCE || done[j] || d->n_because != c->n_because ||
                memcmp(d->because, c->because, c->n_because * sizeof *c->because))
                continue;
            done[j] = 1;
            const ma_vrun_sector *s = ma_vrun_sector_at(run, j);
            if (shown++ < 2 * NAMES_SHOWN)
                fprintf(out, " %s (%s)", s->name, G(s->discrepancies));
            else if (shown == 2 * NAMES_SHOWN + 1)
                fprintf(out, " ...");
        }
        fprintf(out, "\n");
    }
    free(done);
    for (size_t i = 0; i < n; i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(run, i);
        if (s->status == MA_SECTOR_UNUSABLE || s->status == MA_SECTOR_INCOMPLETE || s->status == MA_SECTOR_WITHIN_BOUNDS)
            fprintf(out, "%s: %s%s%s\n", s->name, ma_sector_status_name(s->status), s->message[0] ? ": " : "",
                    s->message);
    }
}

void ma_render_verify_text(FILE *out, const ma_vrun *run, unsigned flags)
{
    size_t n = ma_vrun_sector_count(run);
    int quiet = flags & MA_VERIFY_TEXT_QUIET, wide = flags & MA_VERIFY_TEXT_WIDE;
    int table = (flags & (MA_VERIFY_TEXT_TABLE | MA_VERIFY_TEXT_WIDE)) && !quiet;
    ma_run_causes rc;
    ma_error err;
    if (ma_run_causes_of(&rc, run, &err) != MA_OK)
        memset(&rc, 0, sizeof rc); /* out of memory: the lines below still say what the counts say */
    if (table && n) {
        fprintf(out, "\nsectors, children first:\n");
        table_head(out, wide);
        for (size_t i = 0; i < n; i++)
            table_row(out, ma_vrun_sector_at(run, i), wide);
    }
    if (!quiet && rc.c)
        print_faults(out, run, &rc);
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    if (t->sectors_not_checked)
        fprintf(out, "not checked: %s of %s (the run stopped before them)\n", G(t->sectors_not_checked),
                MA_COUNT(t->sectors, "sector", "sectors"));
    fprintf(out, "total: %s (%s checked, %s carried over, %s unusable), %s, %.2f s\n",
            MA_COUNT(t->sectors, "sector", "sectors"), G(t->sectors_checked), G(t->sectors_carried),
            G(t->sectors_unusable), MA_COUNT(t->entries, "entry", "entries"), ma_vrun_seconds(run));
    fprintf(out, "       ");
    if (t->checked != t->entries) /* the entries of unusable or unreached sectors were not checked */
        fprintf(out, "%s checked, ", G(t->checked));
    fprintf(out, "%s verified, ", G(t->verified));
    if (t->within_bounds)
        fprintf(out, "%s only within bounds, ", G(t->within_bounds));
    fprintf(out, "%s (%s, %s propagated)", MA_COUNT(t->discrepancies, "discrepancy", "discrepancies"),
            MA_COUNT(t->roots, "root", "roots"), G(t->propagated));
    if (t->missing_child || t->unverifiable)
        fprintf(out, ", %s missing-child, %s unverifiable", G(t->missing_child), G(t->unverifiable));
    fprintf(out, "\n");
    if (t->discrepancies)
        class_line(out, t->by_class, "total classes:");
    if (ma_vrun_id(run))
        fprintf(out, "audit: run %lld%s\n", (long long)ma_vrun_id(run),
                ma_vrun_record_failed(run) ? " (record INCOMPLETE: see the errors)" : "");
    print_verdict(out, run, &rc);
    ma_render_verify_next_text(out, run);
    ma_run_causes_free(&rc);
}

/* ---- the plan ---- */

void ma_render_shard_plan_text(FILE *out, const ma_shard_plan *p, const char *root)
{
    unsigned n = p->n_shards;
    fprintf(out, "plan: %s: %s, %s, cost %s (entries; flying sectors x3) in %s\n", root,
            MA_COUNT(p->n_sectors, "sector", "sectors"), MA_COUNT(p->total_entries, "entry", "entries"),
            G((uint64_t)(p->total_cost + 0.5)), MA_COUNT(n, "shard", "shards"));
    fprintf(out, "%6s %8s %14s %16s %12s %14s\n", "shard", "sectors", "entries", "cost", "MiB", "peak MiB");
    for (unsigned k = 0; k < n; k++) {
        const ma_shard_plan_shard *sh = &p->shards[k];
        fprintf(out, "%6u %8s %14s %16s %12.1f %14.1f\n", k, G(sh->sectors), G(sh->entries),
                G((uint64_t)(sh->cost + 0.5)), (double)sh->bytes / 1048576.0, (double)sh->peak_bytes / 1048576.0);
    }
    fprintf(out, "balance: largest shard costs %s = %.3f x max(mean %s, largest sector %s)\n",
            G((uint64_t)(p->largest_shard_cost + 0.5)), p->imbalance, G((uint64_t)(p->mean_cost + 0.5)),
            G((uint64_t)(p->largest_sector_cost + 0.5)));
    for (unsigned k = 0; k < n; k++) {
        fprintf(out, "shard %u:", k);
        for (size_t i = 0; i < p->n_sectors; i++)
            if (p->sectors[i].shard == k)
                fprintf(out, " %s", p->sectors[i].name);
        fprintf(out, "\n");
    }
}

/* ---- the merge ---- */

static void print_merge_verdict(FILE *out, const ma_merge_result *m)
{
    const ma_vrun_totals *t = &m->totals;
    switch (m->verdict) {
    case MA_VERDICT_VERIFIED:
        fprintf(out, "verdict: verified: all %s of %s re-derived and matching\n",
                MA_COUNT(t->entries, "entry", "entries"), MA_COUNT(t->sectors, "sector", "sectors"));
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        fprintf(out, "verdict: verified within bounds only: %s unproven, no contradiction; NOT fully "
                     "verified\n",
                MA_COUNT(t->within_bounds, "entry", "entries"));
        break;
    case MA_VERDICT_DISCREPANCIES:
        fprintf(out, "verdict: discrepancies found: %s (%s, %s propagated)", G(t->discrepancies),
                MA_COUNT(t->roots, "root", "roots"), G(t->propagated));
        if (t->body_digest_mismatches)
            fprintf(out, "; %s whose body is not what %s producer wrote",
                    MA_COUNT(t->body_digest_mismatches, "sector file", "sector files"),
                    ma_noun(t->body_digest_mismatches, "its", "their"));
        fprintf(out, "\n");
        break;
    default:
        if (m->partial)
            fprintf(out, "verdict: incomplete: %s of %s missing, %s interrupted\n", G(m->n_missing),
                    MA_COUNT(m->shard_count, "shard", "shards"), G(m->n_interrupted));
        else
            fprintf(out, "verdict: incomplete: %s unusable, %s not verified (successor absent or broken)\n",
                    MA_COUNT(t->sectors_unusable, "sector", "sectors"),
                    MA_COUNT(t->missing_child + t->unverifiable, "entry", "entries"));
        break;
    }
}

void ma_render_merge_text(FILE *out, const ma_merge_result *m, const char *out_path)
{
    fprintf(out, "merged %s of %u of %s into %s: run %lld\n", MA_COUNT(m->n_shards, "shard", "shards"),
            m->shard_count, m->database_root ? m->database_root : "", out_path, (long long)m->run_id);
    for (size_t i = 0; i < m->n_shards; i++) {
        const ma_merge_shard *s = &m->shards[i];
        fprintf(out, "shard %u/%u: %s run %lld, host %s, %s", s->index, s->count, s->source,
                (long long)s->run_id, s->host[0] ? s->host : "?", G(s->sectors));
        if (s->planned_sectors >= 0)
            fprintf(out, " of %s", G((uint64_t)s->planned_sectors));
        fprintf(out, " %s, %s .. %s, %s%s%s\n",
                ma_noun(s->planned_sectors >= 0 ? (uint64_t)s->planned_sectors : s->sectors, "sector", "sectors"),
                s->started_at, s->ended_at[0] ? s->ended_at : "never ended",
                s->status, s->interrupted ? " (INTERRUPTED)" : "", s->sealed ? ", seal verified" : "");
    }
    if (m->sealed_by[0])
        fprintf(out, "sealed: every shard's rows are as its run sealed them, by key %s\n", m->sealed_by);
    for (size_t i = 0; i < m->n_missing; i++)
        fprintf(out, "shard %u/%u: MISSING\n", m->missing[i], m->shard_count);
    const ma_vrun_totals *t = &m->totals;
    fprintf(out, "total: %s (%s unusable), %s, %s checked, %s verified, %s only within bounds\n",
            MA_COUNT(t->sectors, "sector", "sectors"), G(t->sectors_unusable), MA_COUNT(t->entries, "entry", "entries"),
            G(t->checked), G(t->verified), G(t->within_bounds));
    fprintf(out, "       %s (%s, %s propagated; %s of a shard propagated across shards), %s missing-child, "
                 "%s unverifiable\n",
            MA_COUNT(t->discrepancies, "discrepancy", "discrepancies"), MA_COUNT(t->roots, "root", "roots"),
            G(t->propagated), MA_COUNT(m->reclassified, "root", "roots"), G(t->missing_child), G(t->unverifiable));
    if (t->discrepancies)
        class_line(out, t->by_class, "total classes:");
    for (size_t i = 0; i < m->n_notes; i++)
        fprintf(out, "note: %s\n", m->notes[i]);
    print_merge_verdict(out, m);
}
