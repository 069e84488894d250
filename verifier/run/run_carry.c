/* verifier/run/run_carry: phase carry of a verify run (--resume, --incremental; docs/runs.md
 * "Incremental runs"). A selected sector whose inputs (its file, its successors' files, a .secval)
 * hash exactly as they did for a committed result of an earlier run with the same root, tool
 * version and options is not checked: the store copies that result into this run, and the node's
 * public result and discrepancy set are read back from it, so the rest of the run sees a carried
 * sector as it sees a checked one. */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/store/audit_run.h"

static ma_outcome outcome_parse(const char *s)
{
    if (!s)
        return MA_OUTCOME_NONE;
    if (!strcmp(s, "win"))
        return MA_OUTCOME_WIN;
    if (!strcmp(s, "loss"))
        return MA_OUTCOME_LOSS;
    if (!strcmp(s, "draw"))
        return MA_OUTCOME_DRAW;
    return MA_OUTCOME_NONE;
}

/* Fills a node's public result from what the store holds for it. */
static int load_carried(ma_vrun *r, node *nd, int64_t from_run, int64_t checked_in, ma_error *err)
{
    ma_sector_readback b;
    int rc = ma_audit_sector_read(r->audit, r->run_id, nd->pub.name, r->opt.max_rows, &b, err);
    if (rc)
        return rc;
    ma_vrun_sector *p = &nd->pub;
    p->carried = 1;
    p->from_run = checked_in;
    p->status = ma_vr_sector_status_parse(b.status);
    p->entries = (uint64_t)b.entries;
    p->checked = (uint64_t)b.checked;
    p->canonical = (uint64_t)b.canonical;
    p->markers = (uint64_t)b.markers;
    p->verified = (uint64_t)b.verified;
    p->within_bounds = (uint64_t)b.within_bounds;
    p->bound_wins = (uint64_t)b.bound_wins;
    p->missing_child = (uint64_t)b.missing_child;
    p->unverifiable = (uint64_t)b.unverifiable;
    p->discrepancies = (uint64_t)b.discrepancies;
    p->roots = (uint64_t)b.roots;
    p->propagated = (uint64_t)b.propagated;
    p->seconds = b.seconds;
    p->body_digest = !b.body_digest ? -1 : !strcmp(b.body_digest, "match");
    snprintf(p->message, sizeof p->message, "%s", b.message ? b.message : "");
    for (size_t i = 0; i < b.n_classes; i++) {
        int c = ma_vr_disc_class_parse(b.class_name[i]);
        if (c >= 0)
            p->by_class[c] = (uint64_t)b.class_count[i];
    }
    if (b.digest) {
        p->has_digest = 1;
        snprintf(p->digest, sizeof p->digest, "%s", b.digest);
        p->digest_positions = (uint64_t)b.digest_positions;
    }
    p->bins = calloc(b.n_bins ? b.n_bins : 1, sizeof *p->bins);
    p->rows = calloc(b.n_rows ? b.n_rows : 1, sizeof *p->rows);
    if (!p->bins || !p->rows) {
        ma_sector_readback_free(&b);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < b.n_bins; i++)
        p->bins[i] = (ma_vrun_bin){outcome_parse(b.bin_outcome[i]), (uint32_t)b.bin_depth[i],
                                  (uint64_t)b.bin_count[i]};
    p->n_bins = b.n_bins;
    for (size_t i = 0; i < b.n_rows; i++) {
        const ma_readback_row *w = &b.rows[i];
        ma_vrun_row *row = &p->rows[i];
        row->entry = (uint64_t)w->entry;
        row->offset = w->offset < 0 ? 0 : (uint64_t)w->offset;
        int c = ma_vr_disc_class_parse(w->cls);
        row->cls = (uint8_t)(c < 0 ? 0 : c);
        row->root = w->root > 0;
        if (w->board)
            ma_board_parse(w->board, &row->board, NULL);
        snprintf(row->stored_text, sizeof row->stored_text, "%s", w->stored ? w->stored : "");
        snprintf(row->derived_text, sizeof row->derived_text, "%s", w->derived ? w->derived : "");
        row->stored.marker = -1;
        row->stored.kind = w->stored_outcome && !strcmp(w->stored_outcome, "bad") ? MA_STORED_BAD
                           : outcome_parse(w->stored_outcome) ? MA_STORED_VALUE
                                                              : MA_STORED_NONE;
        row->stored.value.outcome = outcome_parse(w->stored_outcome);
        row->stored.value.depth = w->stored_depth > 0 ? (uint16_t)w->stored_depth : 0;
        row->derived.outcome = outcome_parse(w->derived_outcome);
        row->derived.depth = w->derived_depth > 0 ? (uint16_t)w->derived_depth : 0;
        row->derived_kind = row->derived.outcome                                       ? 0
                            : w->derived_outcome && !strcmp(w->derived_outcome, "marker") ? 2
                            : w->derived_outcome && !strcmp(w->derived_outcome, "none")   ? 3
                                                                                          : 1;
        row->derived_exact = !w->derived_bound || strcmp(w->derived_bound, "lower") != 0;
        row->expected_marker = -1;
        if (w->move) {
            row->has_refutation = 1;
            snprintf(row->move, sizeof row->move, "%s", w->move);
            if (w->successor)
                ma_board_parse(w->successor, &row->successor, NULL);
        }
    }
    p->n_rows = b.n_rows;
    ma_sector_readback_free(&b);
    rc = ma_audit_sector_discrepancy_set(r->audit, from_run, nd->pub.name, &nd->set, &nd->n_set, err);
    if (rc == MA_OK)
        nd->done = 1;
    return rc;
}

static int same_inputs(const node *nd, const ma_carry_candidate *c)
{
    if (nd->pub.n_inputs != c->n_inputs)
        return 0;
    for (size_t i = 0; i < c->n_inputs; i++)
        if (strcmp(nd->pub.inputs[i].path, c->input_path[i] ? c->input_path[i] : "") ||
            strcmp(nd->pub.inputs[i].sha256, c->input_sha256[i] ? c->input_sha256[i] : ""))
            return 0;
    return 1;
}

static int cmp_candidate(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const ma_carry_candidate *)elem)->sector);
}

int ma_vr_carry(ma_vrun *r, ma_error *err)
{
    r->phase = "carry";
    ma_carry_candidate *cands = NULL;
    size_t nc = 0;
    int64_t only = r->opt.mode == MA_VRUN_RESUME ? r->resumed_from : 0;
    int rc = ma_audit_carry_candidates(r->audit, r->root, r->opt.tool_version, r->options, only,
                                       r->run_id, &cands, &nc, err);
    if (rc)
        return rc;
    for (size_t i = 0; rc == MA_OK && i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        if (!nd->dbs || ma_vr_status_damaged(nd->pub.status))
            continue; /* nothing to carry for a file that is not there, or not as published */
        const ma_carry_candidate *c =
            nc ? bsearch(nd->pub.name, cands, nc, sizeof *cands, cmp_candidate) : NULL;
        if (!c || !same_inputs(nd, c))
            continue;
        ma_error e;
        if (ma_audit_sector_carry(r->audit, r->run_id, c->run_id, c->checked_in, nd->pub.name, &e)) {
            ma_vr_record_failure(r, &e);
            continue; /* check it instead */
        }
        rc = load_carried(r, nd, c->run_id, c->checked_in, err);
    }
    ma_carry_candidates_free(cands, nc);
    return rc;
}
