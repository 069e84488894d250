/* verifier/run/run_finish: the end of a verify run (docs/runs.md "The coverage proof"). The
 * sectors the run never reached are "not checked", the totals are summed over the plan, one
 * ma_verdict_state is decided from them (common/verdict.h) and the store keeps it as the run's
 * status. */
#include "verifier/run/run_internal.h"

#include <string.h>

#include "reports/store/audit_run.h"
#include "verifier/run/seal.h"

static void totals(ma_vrun *r)
{
    ma_vrun_totals *t = &r->totals;
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < r->n_order; i++) {
        const ma_vrun_sector *p = &r->nodes[r->order[i]].pub;
        t->sectors++;
        if (p->status == MA_SECTOR_UNUSABLE) {
            t->sectors_unusable++;
            continue;
        }
        if (p->status == MA_SECTOR_NOT_CHECKED || ma_vr_status_damaged(p->status)) {
            t->sectors_not_checked += p->status == MA_SECTOR_NOT_CHECKED;
            t->sectors_damaged += p->status == MA_SECTOR_DAMAGED;
            t->sectors_input_damaged += p->status == MA_SECTOR_INPUT_DAMAGED;
            t->entries += p->entries; /* the plan's entries: none verified */
            continue;
        }
        if (p->carried)
            t->sectors_carried++;
        else if (r->nodes[r->order[i]].done)
            t->sectors_checked++;
        t->entries += p->entries;
        t->checked += p->checked;
        t->canonical += p->canonical;
        t->markers += p->markers;
        t->verified += p->verified;
        t->within_bounds += p->within_bounds;
        t->bound_wins += p->bound_wins;
        t->missing_child += p->missing_child;
        t->unverifiable += p->unverifiable;
        t->discrepancies += p->discrepancies;
        t->roots += p->roots;
        t->propagated += p->propagated;
        for (int k = 0; k < MA_DISC_CLASSES; k++)
            t->by_class[k] += p->by_class[k];
    }
    const ma_vrun_integrity *g = &r->integ.pub;
    t->files_damaged = g->n_damaged;
    for (size_t i = 0; i < g->n_damaged; i++)
        t->body_digest_mismatches += g->damaged[i].kind == MA_DAMAGE_BODY_DIGEST;
}

/* A shard run whose part of a non-empty plan is no sector: a valid shard of 0 sectors, verified
 * (its merge with the others covers the plan; issue 21 item 7). */
int ma_vr_empty_shard(const ma_vrun *r)
{
    return r->opt.shard_count > 1 && r->db && r->n_domain > 0 && r->n_order == 0;
}

static ma_verdict_state decide_verdict(const ma_vrun *r, int canceled)
{
    if (canceled)
        return MA_VERDICT_INTERRUPTED;
    const ma_vrun_totals *t = &r->totals;
    /* discrepancies of intact files read from intact files: a wrong solver, whatever else is
     * damaged (the damage is listed first all the same) */
    if (t->discrepancies)
        return MA_VERDICT_DISCREPANCIES;
    if (t->files_damaged)
        return MA_VERDICT_DAMAGED;
    int incomplete = t->sectors == 0 && !ma_vr_empty_shard(r), bounds = 0;
    for (size_t i = 0; i < r->n_order; i++) {
        const node *nd = &r->nodes[r->order[i]];
        /* a sector never reached (the run stopped early) is a hole as much as an unusable one */
        incomplete |= !nd->done || nd->pub.status == MA_SECTOR_UNUSABLE ||
                      nd->pub.status == MA_SECTOR_INCOMPLETE;
        /* "ok" is earned by the counts too: a status that forgot an unverified entry (a successor
         * absent or holding a bad encoding) must not make the run verified */
        incomplete |= nd->pub.status == MA_SECTOR_OK && nd->pub.verified != nd->pub.entries;
        bounds |= nd->pub.status == MA_SECTOR_WITHIN_BOUNDS;
    }
    /* in a whole-database run a file that looks like a sector but cannot be used is a hole */
    if (r->whole && r->db && ma_database_unusable_count(r->db))
        incomplete = 1;
    if (incomplete)
        return MA_VERDICT_INCOMPLETE;
    return bounds ? MA_VERDICT_WITHIN_BOUNDS : MA_VERDICT_VERIFIED;
}

int ma_vr_finish(ma_vrun *r, int rc)
{
    /* the sectors the run never reached are not checked: never "ok", their entries unverified */
    for (size_t i = 0; r->selection && i < r->n_order; i++) {
        node *nd = &r->nodes[r->order[i]];
        if (!nd->done && nd->pub.status != MA_SECTOR_UNUSABLE && !ma_vr_status_damaged(nd->pub.status)) {
            nd->pub.status = MA_SECTOR_NOT_CHECKED;
            nd->pub.entries = nd->planned_entries;
        }
    }
    ma_vr_integrity_count(r);
    totals(r);
    r->verdict = decide_verdict(r, rc == MA_ECANCELED);
    /* a run stopped by an error (out of memory) did not do all it set out to: a sector it marked
     * done may lack what its record needs (the derived digest), so it is never verified */
    if (rc && rc != MA_ECANCELED && (r->verdict == MA_VERDICT_VERIFIED || r->verdict == MA_VERDICT_WITHIN_BOUNDS))
        r->verdict = MA_VERDICT_INCOMPLETE;
    r->phase = rc && rc != MA_ECANCELED ? r->phase : "done";
    if (r->integ.pub.n_damaged > r->integ_recorded)
        ma_vr_integrity_record(r); /* damage the check found (a body rewritten under its digest) */
    if (r->audit && r->started) {
        ma_error e;
        /* a store that refused some of the run's rows does not hold what the verdict rests on: its
         * record of the run says incomplete, never "ok" over sectors it lacks */
        const char *status = ma_verdict_status(r->record_failed ? MA_VERDICT_INCOMPLETE : r->verdict);
        if (ma_audit_run_end(r->audit, r->run_id, status, &e))
            ma_vr_record_failure(r, &e);
        /* last: the seal covers every row the run wrote, its end included (verifier/run/seal.h) */
        else if (r->opt.seal_key && ma_run_seal(r->audit, r->run_id, r->opt.seal_key, &e))
            ma_vr_record_failure(r, &e);
    }
    r->seconds = ma_now() - r->t0;
    if (rc && rc != MA_ECANCELED && r->audit && rc != MA_ENOMEM && rc != MA_EINTERNAL) {
        /* the root was unusable: a completed run with verdict incomplete, not an error */
        return MA_OK;
    }
    return rc;
}
