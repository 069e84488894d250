/* verifier/run/run_record: phase record of a verify run (docs/runs.md "Phases"). The run's start
 * is recorded in one write transaction with its facts and plan (and, for --resume, the claim of
 * the run it continues); each unit's sectors are committed in one transaction: result and counts,
 * class counts, capped rows, the full discrepancy set and the entries that are roots by rule, the
 * derived-value digest and histogram, and the inputs. So a run stopped at any point keeps every
 * finished unit. */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/store/audit_run.h"

static void fill_commit(const ma_vrun *r, const node *nd, ma_sector_commit *c, ma_class_count *cc,
                        ma_disc_row *rows, char (*text)[2][96], ma_histogram_bin *bins)
{
    const ma_vrun_sector *p = &nd->pub;
    memset(c, 0, sizeof *c);
    size_t ncc = 0;
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        if (p->by_class[k]) {
            cc[ncc].cls = ma_disc_class_name(k);
            cc[ncc++].count = p->by_class[k];
        }
    c->result.sector = p->name;
    c->result.file = p->path;
    c->result.entries = p->entries;
    c->result.checked = p->checked;
    c->result.verified = p->verified;
    c->result.within_bounds = p->within_bounds;
    c->result.discrepancies = p->discrepancies;
    c->result.classes = cc;
    c->result.n_classes = ncc;
    c->result.seconds = p->seconds;
    c->result.status = ma_sector_status_name(p->status);
    c->result.message = p->message[0] ? p->message : NULL;
    c->format = ma_format_name(ma_database_format(r->db));
    c->canonical = p->canonical;
    c->markers = p->markers;
    c->roots = p->roots;
    c->propagated = p->propagated;
    c->missing_child = p->missing_child;
    c->unverifiable = p->unverifiable;
    c->bound_wins = p->bound_wins;
    c->body_digest = p->body_digest == 1 ? "match" : p->body_digest == 0 ? "mismatch" : NULL;
    size_t n_rows = nd->n_stored_rows > p->n_rows ? nd->n_stored_rows : p->n_rows;
    for (size_t i = 0; i < n_rows; i++) {
        const ma_vrun_row *w = &p->rows[i];
        ma_disc_row *d = &rows[i];
        memset(d, 0, sizeof *d);
        ma_board_format(w->board, text[i][0], sizeof text[i][0]);
        d->entry = w->entry;
        d->offset = w->offset;
        d->board = text[i][0];
        d->stored = w->stored_text;
        d->derived = w->derived_text;
        d->cls = ma_disc_class_name(w->cls);
        d->root = w->root;
        if (w->has_refutation) {
            d->move = w->move;
            if (w->successor.mover | w->successor.opp) {
                ma_board_format(w->successor, text[i][1], sizeof text[i][1]);
                d->successor = text[i][1];
            }
        }
        d->stored_outcome = w->stored.kind == MA_STORED_BAD ? "bad"
                                                            : ma_outcome_name(w->stored.value.outcome);
        d->stored_depth = w->stored.kind == MA_STORED_VALUE && w->stored.value.outcome != MA_OUTCOME_DRAW
                              ? w->stored.value.depth
                              : -1;
        d->derived_outcome = w->derived_kind == 0   ? ma_outcome_name(w->derived.outcome)
                             : w->derived_kind == 2 ? "marker"
                             : w->derived_kind == 3 ? "none"
                                                    : "unknown";
        d->derived_depth = w->derived_kind == 0 && w->derived.outcome != MA_OUTCOME_DRAW
                               ? w->derived.depth
                               : -1;
        d->derived_bound = w->derived_exact ? "exact" : "lower";
    }
    c->rows = rows;
    c->n_rows = nd->n_stored_rows > p->n_rows ? nd->n_stored_rows : p->n_rows;
    c->disc_entries = nd->set;
    c->n_disc_entries = nd->n_set;
    c->fixed_entries = nd->fixed;
    c->n_fixed_entries = nd->n_fixed;
    if (p->has_digest) {
        c->digest = p->digest;
        c->digest_positions = p->digest_positions;
        for (size_t i = 0; i < p->n_bins; i++)
            bins[i] = (ma_histogram_bin){ma_outcome_name(p->bins[i].outcome), p->bins[i].depth,
                                         p->bins[i].count};
        c->bins = bins;
        c->n_bins = p->n_bins;
    }
}

/* Keeps the entries that are roots by rule, for the record (docs/audit-schema.md v6). */
int ma_vr_record_fixed(node *nd, const ma_rs_result *res, ma_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < res->n_items; i++)
        n += ma_rs_class_fixed(res->items[i].cls) != 0;
    free(nd->fixed);
    nd->fixed = NULL;
    nd->n_fixed = 0;
    if (!n)
        return MA_OK;
    if (!(nd->fixed = malloc(n * sizeof *nd->fixed)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; i < res->n_items; i++)
        if (ma_rs_class_fixed(res->items[i].cls))
            nd->fixed[nd->n_fixed++] = res->items[i].entry; /* items are sorted by entry */
    return MA_OK;
}

/* Commits the sectors checked in one unit (members[0..n)) in one transaction. */
int ma_vr_commit_unit(ma_vrun *r, const int *members, size_t n, ma_error *err)
{
    ma_sector_commit *c = calloc(n, sizeof *c);
    ma_class_count (*cc)[MA_DISC_CLASSES] = calloc(n, sizeof *cc);
    ma_disc_row **rows = calloc(n, sizeof *rows);
    char (**text)[2][96] = calloc(n, sizeof *text);
    ma_histogram_bin **bins = calloc(n, sizeof *bins);
    ma_input_digest **inputs = calloc(n, sizeof *inputs);
    int rc = c && cc && rows && text && bins && inputs ? MA_OK
                                                       : ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        const node *nd = &r->nodes[members[i]];
        size_t n_rows = nd->n_stored_rows > nd->pub.n_rows ? nd->n_stored_rows : nd->pub.n_rows;
        rows[i] = calloc(n_rows + 1, sizeof **rows);
        text[i] = calloc(n_rows + 1, sizeof **text);
        bins[i] = calloc(nd->pub.n_bins + 1, sizeof **bins);
        inputs[i] = calloc(nd->pub.n_inputs + 1, sizeof **inputs);
        if (!rows[i] || !text[i] || !bins[i] || !inputs[i]) {
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
            break;
        }
        fill_commit(r, nd, &c[i], cc[i], rows[i], text[i], bins[i]);
        for (size_t k = 0; k < nd->pub.n_inputs; k++)
            inputs[i][k] = (ma_input_digest){nd->pub.inputs[k].path, nd->pub.inputs[k].sha256};
        c[i].inputs = inputs[i];
        c[i].n_inputs = nd->pub.n_inputs;
    }
    if (rc == MA_OK)
        rc = ma_audit_sectors_commit(r->audit, r->run_id, c, n, err);
    for (size_t i = 0; i < n; i++) {
        if (rows)
            free(rows[i]);
        if (text)
            free(text[i]);
        if (bins)
            free(bins[i]);
        if (inputs)
            free(inputs[i]);
    }
    free(c);
    free(cc);
    free(rows);
    free(text);
    free(bins);
    free(inputs);
    return rc;
}

/* Records the run's start, its facts and its plan, and for --resume claims the run it continues:
 * one write transaction (BEGIN IMMEDIATE), so of two resumes of one run exactly one claims it and
 * a refused resume leaves no trace in the store. */
static int begin_tx(ma_audit *a, void *ctx, ma_error *err)
{
    ma_vrun *r = ctx;
    (void)a;
    unsigned variants = r->db ? ma_database_variants(r->db) : 0;
    const char *variant = NULL;
    if (__builtin_popcount(variants) == 1)
        for (int v = 1; v <= 3; v++)
            if (variants >> v & 1)
                variant = ma_variant_name((ma_variant)v);
    ma_format f = r->db ? ma_database_format(r->db) : 0;
    int rc = MA_OK;
    if (r->opt.mode == MA_VRUN_RESUME) {
        ma_resume_want w = {r->opt.resume_run, r->root, r->opt.tool_version, r->options,
                            r->selection ? r->selection : "all", r->opt.host,
                            r->opt.stale_seconds_given ? r->opt.stale_seconds
                                                       : MA_VRUN_HEARTBEAT_STALE_SECONDS};
        if ((rc = ma_audit_resume_pick(r->audit, &w, &r->resumed_from, err)))
            return rc;
    }
    ma_run_info info = {"verify", r->opt.tool_version, r->opt.git_revision, r->opt.host,
                        r->opt.command_line, r->root, variant, f ? ma_format_name(f) : NULL};
    if ((rc = ma_audit_run_begin(r->audit, &info, &r->run_id, err)))
        return rc;
    static const char *const modes[] = {"full", "resume", "incremental"};
    ma_run_meta meta = {modes[r->opt.mode], r->resumed_from, r->options,
                        r->opt.shard_count > 1 ? r->opt.shard_index : 0,
                        r->opt.shard_count > 1 ? r->opt.shard_count : 0, (int64_t)r->n_order,
                        r->db && !r->opt.n_sectors ? (int64_t)ma_database_unusable_count(r->db) : -1,
                        r->selection, r->db ? (int64_t)r->planned_entries : -1, (int64_t)getpid(),
                        /* what a verdict of this run can be about (docs/runs.md "Scope") */
                        ma_vrun_covers_database(r) ? "database" : "sectors"};
    rc = ma_audit_run_meta_set(r->audit, r->run_id, &meta, err);
    if (rc == MA_OK && r->n_order) {
        ma_planned_sector *ps = calloc(r->n_order, sizeof *ps);
        if (!ps)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        for (size_t i = 0; i < r->n_order; i++) {
            const node *nd = &r->nodes[r->order[i]];
            ps[i] = (ma_planned_sector){nd->pub.name, nd->dbs ? nd->pub.path : NULL, nd->planned_entries};
        }
        rc = ma_audit_run_plan_record(r->audit, r->run_id, ps, r->n_order, err);
        free(ps);
    }
    if (rc == MA_OK && r->resumed_from)
        rc = ma_audit_run_mark_continued(r->audit, r->resumed_from, r->run_id, err);
    return rc;
}

/* Opens the store and records the start of the run (with what the plan knows). */
int ma_vr_begin_record(ma_vrun *r, ma_error *err)
{
    int rc = ma_audit_open(&r->audit, r->opt.audit_path, err);
    if (rc)
        return rc;
    rc = ma_audit_write_tx(r->audit, begin_tx, r, err);
    if (rc) {
        r->run_id = 0;
        r->resumed_from = 0;
    } else {
        r->started = 1;
    }
    return rc;
}
