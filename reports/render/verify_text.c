/* reports/render/verify_text: a verify run, a shard plan and a merge as text (reports/render/verify_render.h). */
#include "reports/render/verify_render.h"

#include <stdio.h>

#include "common/progress.h"
#include "reports/render/integrity_render.h"
#include "verifier/run/run.h"

#define TEXT_ROWS 20 /* discrepancy rows printed per sector */

/* A count with thousands separators, as the reports print it; each use gets its own buffer. */
#define G(n) ma_progress_group((char[32]){0}, 32, (uint64_t)(n))

static void print_row(FILE *out, const ma_vrun_sector *s, const ma_vrun_row *w)
{
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    fprintf(out, "  discrepancy %s entry %llu (offset %llu) board %s stored %s derived %s class %s %s", s->name,
            (unsigned long long)w->entry, (unsigned long long)w->offset, board, w->stored_text, w->derived_text,
            ma_disc_class_name(w->cls), w->root ? "root" : "propagated");
    if (w->has_refutation)
        fprintf(out, "; proved by %s", w->move);
    fprintf(out, "\n");
}

static void print_verdict(FILE *out, const ma_vrun *run)
{
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    switch (ma_vrun_verdict_of(run)) {
    case MA_VERDICT_VERIFIED:
        if (t->sectors == 0 && ma_vrun_options_of(run)->shard_count > 1)
            fprintf(out, "verdict: verified: an empty shard: none of the %s planned sectors falls in shard %u/%u\n",
                    G(ma_vrun_planned_sectors(run)), ma_vrun_options_of(run)->shard_index,
                    ma_vrun_options_of(run)->shard_count);
        else
            fprintf(out, "verdict: verified: all %s entries of %s sector%s re-derived and matching\n",
                    G(t->entries), G(t->sectors), t->sectors == 1 ? "" : "s");
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        fprintf(out, "verdict: verified within bounds only: %s entries unproven (successor sectors "
                     "absent), no contradiction; NOT fully verified\n",
                G(t->within_bounds));
        break;
    case MA_VERDICT_DISCREPANCIES: {
        char caveat[400];
        ma_render_discrepancy_caveat(run, caveat, sizeof caveat);
        fprintf(out, "verdict: discrepancies found: %s (%s root%s, %s propagated)%s\n", G(t->discrepancies),
                G(t->roots), t->roots == 1 ? "" : "s", G(t->propagated), caveat);
        break;
    }
    case MA_VERDICT_DAMAGED: {
        char h[400];
        ma_render_damage_headline(run, h, sizeof h);
        fprintf(out, "verdict: %s\n", h);
        break;
    }
    case MA_VERDICT_INTERRUPTED:
        /* what this run did, whatever a later --resume does: it is never a proof */
        fprintf(out, "verdict: interrupted: %s of %s sectors checked (%s of %s entries verified); "
                     "NOT verified; continue with --resume\n",
                G(t->sectors - t->sectors_not_checked), G(t->sectors), G(t->verified), G(t->entries));
        break;
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
            snprintf(unusable, sizeof unusable, "%s sector%s unusable", G(t->sectors_unusable),
                     t->sectors_unusable == 1 ? "" : "s");
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
    fprintf(out, "%s: %s, %s entr%s, %s verified", s->name, ma_sector_status_name(s->status), G(s->entries),
            s->entries == 1 ? "y" : "ies", G(s->verified));
    if (s->discrepancies)
        fprintf(out, ", %s discrepanc%s (%s root%s, %s propagated)", G(s->discrepancies),
                s->discrepancies == 1 ? "y" : "ies", G(s->roots), s->roots == 1 ? "" : "s", G(s->propagated));
    if (s->within_bounds)
        fprintf(out, ", %s only within bounds", G(s->within_bounds));
    if (s->missing_child + s->unverifiable)
        fprintf(out, ", %s not verified", G(s->missing_child + s->unverifiable));
    if (s->carried)
        fprintf(out, ", carried over from run %lld\n", (long long)s->from_run);
    else
        fprintf(out, ", %.2f s\n", s->seconds);
}

/* One row of the children-first table, with a failing sector's classes and first rows. */
static void print_sector_row(FILE *out, const ma_vrun_sector *s)
{
    if (s->status == MA_SECTOR_UNUSABLE) {
        fprintf(out, "%-22s %12s %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", s->name, "-", "-", "-", "-", "-",
                "-", "-", "-", "-", "-", "unusable");
        return;
    }
    if (s->status == MA_SECTOR_NOT_CHECKED) {
        /* never reached: nothing was verified, nothing found; its planned entries */
        fprintf(out, "%-22s %12llu %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", s->name,
                (unsigned long long)s->entries, "-", "-", "-", "-", "-", "-", "-", "-", "-", "not checked");
        return;
    }
    fprintf(out, "%-22s %12llu %12llu %12llu %9llu %7llu %7llu %9llu %8llu %8llu %8.2f  %s", s->name,
            (unsigned long long)s->entries, (unsigned long long)s->checked, (unsigned long long)s->verified,
            (unsigned long long)s->discrepancies, (unsigned long long)s->roots, (unsigned long long)s->propagated,
            (unsigned long long)s->within_bounds, (unsigned long long)s->missing_child,
            (unsigned long long)s->unverifiable, s->seconds, ma_sector_status_name(s->status));
    if (s->carried)
        fprintf(out, " (carried over from run %lld)", (long long)s->from_run);
    fprintf(out, "\n");
    if (!s->discrepancies)
        return;
    fprintf(out, "  classes:");
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        if (s->by_class[k])
            fprintf(out, " %s=%llu", ma_disc_class_name(k), (unsigned long long)s->by_class[k]);
    fprintf(out, "\n");
    size_t rows = s->n_rows < TEXT_ROWS ? s->n_rows : TEXT_ROWS;
    for (size_t k = 0; k < rows; k++)
        print_row(out, s, &s->rows[k]);
    if (s->discrepancies > rows)
        fprintf(out, "  ... %llu more discrepancies\n", (unsigned long long)(s->discrepancies - rows));
}

static void print_classes(FILE *out, const uint64_t by_class[MA_DISC_CLASSES])
{
    fprintf(out, "total classes:");
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        fprintf(out, " %s=%llu", ma_disc_class_name(k), (unsigned long long)by_class[k]);
    fprintf(out, "\n");
}

void ma_render_verify_text(FILE *out, const ma_vrun *run, int quiet)
{
    size_t n = ma_vrun_sector_count(run);
    if (!quiet && n) {
        fprintf(out, "\nsectors, children first:\n");
        fprintf(out, "%-22s %12s %12s %12s %9s %7s %7s %9s %8s %8s %8s  %s\n", "sector", "entries", "checked",
                "verified", "discrep", "roots", "propag", "bounds", "missing", "unverif", "seconds", "status");
    }
    for (size_t i = 0; i < n && !quiet; i++)
        print_sector_row(out, ma_vrun_sector_at(run, i));
    const ma_vrun_totals *t = ma_vrun_totals_of(run);
    if (t->sectors_not_checked)
        fprintf(out, "not checked: %s of %s sectors (the run stopped before them)\n", G(t->sectors_not_checked),
                G(t->sectors));
    fprintf(out, "total: %s sector%s (%s checked, %s carried over, %s unusable), %s entries, "
                 "%s checked, %s verified, %s only within bounds, %s discrepancies (%s root, %s propagated), "
                 "%s missing-child, %s unverifiable, %.2f s\n",
            G(t->sectors), t->sectors == 1 ? "" : "s", G(t->sectors_checked), G(t->sectors_carried),
            G(t->sectors_unusable), G(t->entries), G(t->checked), G(t->verified), G(t->within_bounds),
            G(t->discrepancies), G(t->roots), G(t->propagated), G(t->missing_child), G(t->unverifiable),
            ma_vrun_seconds(run));
    if (t->discrepancies)
        print_classes(out, t->by_class);
    if (ma_vrun_id(run))
        fprintf(out, "audit: run %lld%s\n", (long long)ma_vrun_id(run),
                ma_vrun_record_failed(run) ? " (record INCOMPLETE: see the errors)" : "");
    print_verdict(out, run);
    ma_render_verify_next_text(out, run);
}

/* ---- the plan ---- */

void ma_render_shard_plan_text(FILE *out, const ma_shard_plan *p, const char *root)
{
    unsigned n = p->n_shards;
    fprintf(out, "plan: %s: %zu sectors, %llu entries, cost %.0f (entries; flying sectors x3) in %u shards\n", root,
            p->n_sectors, (unsigned long long)p->total_entries, p->total_cost, n);
    fprintf(out, "%6s %8s %14s %16s %12s %14s\n", "shard", "sectors", "entries", "cost", "MiB", "peak MiB");
    for (unsigned k = 0; k < n; k++) {
        const ma_shard_plan_shard *sh = &p->shards[k];
        fprintf(out, "%6u %8zu %14llu %16.0f %12.1f %14.1f\n", k, sh->sectors, (unsigned long long)sh->entries,
                sh->cost, (double)sh->bytes / 1048576.0, (double)sh->peak_bytes / 1048576.0);
    }
    fprintf(out, "balance: largest shard costs %.0f = %.3f x max(mean %.0f, largest sector %.0f)\n",
            p->largest_shard_cost, p->imbalance, p->mean_cost, p->largest_sector_cost);
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
        fprintf(out, "verdict: verified: all %llu entries of %llu sectors re-derived and matching\n",
                (unsigned long long)t->entries, (unsigned long long)t->sectors);
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        fprintf(out, "verdict: verified within bounds only: %llu entries unproven, no contradiction; NOT fully "
                     "verified\n",
                (unsigned long long)t->within_bounds);
        break;
    case MA_VERDICT_DISCREPANCIES:
        fprintf(out, "verdict: discrepancies found: %llu (%llu root%s, %llu propagated)",
                (unsigned long long)t->discrepancies, (unsigned long long)t->roots, t->roots == 1 ? "" : "s",
                (unsigned long long)t->propagated);
        if (t->body_digest_mismatches)
            fprintf(out, "; %llu sector file%s whose body is not what %s producer wrote",
                    (unsigned long long)t->body_digest_mismatches, t->body_digest_mismatches == 1 ? "" : "s",
                    t->body_digest_mismatches == 1 ? "its" : "their");
        fprintf(out, "\n");
        break;
    default:
        if (m->partial)
            fprintf(out, "verdict: incomplete: %zu of %u shards missing, %zu interrupted\n", m->n_missing,
                    m->shard_count, m->n_interrupted);
        else
            fprintf(out, "verdict: incomplete: %llu sectors unusable, %llu entries not verified (successor absent "
                         "or broken)\n",
                    (unsigned long long)t->sectors_unusable,
                    (unsigned long long)(t->missing_child + t->unverifiable));
        break;
    }
}

void ma_render_merge_text(FILE *out, const ma_merge_result *m, const char *out_path)
{
    fprintf(out, "merged %zu shard%s of %u of %s into %s: run %lld\n", m->n_shards, m->n_shards == 1 ? "" : "s",
            m->shard_count, m->database_root, out_path, (long long)m->run_id);
    for (size_t i = 0; i < m->n_shards; i++) {
        const ma_merge_shard *s = &m->shards[i];
        fprintf(out, "shard %u/%u: %s run %lld, host %s, %zu", s->index, s->count, s->source,
                (long long)s->run_id, s->host[0] ? s->host : "?", s->sectors);
        if (s->planned_sectors >= 0)
            fprintf(out, " of %lld", (long long)s->planned_sectors);
        fprintf(out, " sectors, %s .. %s, %s%s\n", s->started_at, s->ended_at[0] ? s->ended_at : "never ended",
                s->status, s->interrupted ? " (INTERRUPTED)" : "");
    }
    for (size_t i = 0; i < m->n_missing; i++)
        fprintf(out, "shard %u/%u: MISSING\n", m->missing[i], m->shard_count);
    const ma_vrun_totals *t = &m->totals;
    fprintf(out, "total: %llu sectors (%llu unusable), %llu entries, %llu checked, %llu verified, %llu only "
                 "within bounds, %llu discrepancies (%llu root, %llu propagated; %llu roots of a shard are "
                 "propagated across shards), %llu missing-child, %llu unverifiable\n",
            (unsigned long long)t->sectors, (unsigned long long)t->sectors_unusable, (unsigned long long)t->entries,
            (unsigned long long)t->checked, (unsigned long long)t->verified, (unsigned long long)t->within_bounds,
            (unsigned long long)t->discrepancies, (unsigned long long)t->roots, (unsigned long long)t->propagated,
            (unsigned long long)m->reclassified, (unsigned long long)t->missing_child,
            (unsigned long long)t->unverifiable);
    if (t->discrepancies)
        print_classes(out, t->by_class);
    for (size_t i = 0; i < m->n_notes; i++)
        fprintf(out, "note: %s\n", m->notes[i]);
    print_merge_verdict(out, m);
}
