/* verifier/run/run: the run engine (phases in verifier/run/run.h, rules in docs/runs.md). This file
 * holds the handle: ma_vrun_create, ma_vrun_execute (the phases in their order: scan, plan, the
 * store's record of the start, hash, carry, the units, finish), ma_vrun_free and the accessors, the
 * run's error list and the names of discrepancy classes and sector statuses. Each phase lives in
 * its own file (verifier/run/run_internal.h lists them). */
#include "verifier/run/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/memory_available.h"
#include "ma_version.h"
#include "verifier/check/memory.h"
#include "verifier/run/seal.h"

static const char *const class_names[MA_DISC_CLASSES] = {
    "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
    "symmetry-inconsistency"};

const char *ma_disc_class_name(int cls)
{
    return cls >= 0 && cls < MA_DISC_CLASSES ? class_names[cls] : "unknown";
}

int ma_vr_disc_class_parse(const char *name)
{
    for (int c = 0; name && c < MA_DISC_CLASSES; c++)
        if (!strcmp(name, class_names[c]))
            return c;
    return -1;
}

const char *ma_sector_status_name(int status)
{
    static const char *const names[] = {"ok", "within-bounds", "discrepancies", "incomplete",
                                        "unusable", "not-checked", "damaged", "input-damaged"};
    return status >= 0 && status <= MA_SECTOR_INPUT_DAMAGED ? names[status] : "unusable";
}

int ma_vr_sector_status_parse(const char *s)
{
    for (int k = 0; s && k <= MA_SECTOR_INPUT_DAMAGED; k++)
        if (!strcmp(s, ma_sector_status_name(k)))
            return k;
    return MA_SECTOR_UNUSABLE;
}

void ma_vr_add_error(ma_vrun *r, const char *msg)
{
    for (size_t i = 0; i < r->n_errors; i++)
        if (!strcmp(r->errors[i], msg))
            return; /* one file, one line, however many parents met it */
    char **p = realloc(r->errors, (r->n_errors + 1) * sizeof *p);
    if (!p)
        return;
    r->errors = p;
    if ((r->errors[r->n_errors] = strdup(msg)))
        r->n_errors++;
}

/* Records a failure to write the store: the run goes on, the exit status will say 4. */
void ma_vr_record_failure(ma_vrun *r, const ma_error *e)
{
    r->record_failed = 1;
    ma_vr_add_error(r, e->msg);
}

/* The options with every zero (default) field given its value, as the run uses and reports them. */
static int resolve_options(ma_vrun_options *o, ma_error *err)
{
    if (o->threads < 0)
        return ma_error_set(err, MA_EINVAL, "threads %d: expected 0 (every online CPU) or more",
                            o->threads);
    if (o->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n < 1 ? 1 : n > 256 ? 256 : (int)n;
    }
    if (o->full_board_draw != MA_DEFAULT && o->full_board_draw != MA_YES && o->full_board_draw != MA_NO)
        return ma_error_set(err, MA_EINVAL, "full_board_draw %d: expected 0 (default), MA_YES or MA_NO",
                            o->full_board_draw);
    o->full_board_draw = o->full_board_draw != MA_NO;
    o->max_rows = o->max_rows == MA_KEEP_NONE ? 0 : o->max_rows ? o->max_rows : MA_VRUN_DEFAULT_ROWS;
    if (!o->tool_version)
        o->tool_version = MA_VERSION;
    if (!o->git_revision)
        o->git_revision = MA_GIT_REVISION;
    return MA_OK;
}

int ma_vrun_create(ma_vrun **out, const ma_vrun_options *opt, ma_error *err)
{
    *out = NULL;
    if (!opt || !opt->root)
        return ma_error_set(err, MA_EINVAL, "no database given (root)");
    if (opt->mode != MA_VRUN_FULL && !opt->audit_path)
        return ma_error_set(err, MA_EINVAL, "a %s run needs an audit store (audit_path: the store holds "
                                            "what is carried over)",
                            opt->mode == MA_VRUN_RESUME ? "resumed" : "incremental");
    if (opt->seal_key && !opt->audit_path)
        return ma_error_set(err, MA_EINVAL, "seal_key needs an audit store (audit_path: the seal is "
                                            "recorded in the store)");
    if (opt->seal_key && !ma_seal_key_can_seal(opt->seal_key))
        return ma_error_set(err, MA_EINVAL, "seal_key: a public key cannot seal; give the private key "
                                            "(a merge may check with the public one)");
    if (opt->shard_count > 1 && opt->shard_index >= opt->shard_count)
        return ma_error_set(err, MA_EINVAL, "shard %u of %u does not exist", opt->shard_index,
                            opt->shard_count);
    ma_vrun_options o = *opt;
    int rc = resolve_options(&o, err);
    if (rc)
        return rc;
    ma_vrun *r = calloc(1, sizeof *r);
    if (!r)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    r->opt = o;
    r->resident_budget = ma_check_resident_budget(ma_memory_available());
    r->phase = "scan";
    r->verdict = MA_VERDICT_INCOMPLETE;
    /* a shard's results are carried over only into runs of the same shard: its root/propagated
     * split saw only its own sectors' discrepancy sets (docs/distributed.md) */
    if (o.shard_count > 1)
        snprintf(r->options, sizeof r->options,
                 "{\"max_rows\":%zu,\"full_board_draw\":%s,\"shard\":\"%u/%u\"}", o.max_rows,
                 o.full_board_draw ? "true" : "false", o.shard_index, o.shard_count);
    else
        snprintf(r->options, sizeof r->options, "{\"max_rows\":%zu,\"full_board_draw\":%s}",
                 o.max_rows, o.full_board_draw ? "true" : "false");
    *out = r;
    return MA_OK;
}

void ma_vrun_set_test_hooks(ma_vrun *r, const ma_vrun_test_hooks *h)
{
    if (r && h)
        r->hooks = *h;
}

static void free_sector_pub(ma_vrun_sector *s)
{
    free((char *)s->path);
    s->path = NULL;
    free(s->rows);
    free(s->bins);
    free(s->inputs);
    s->rows = NULL;
    s->bins = NULL;
    s->inputs = NULL;
}

void ma_vrun_free(ma_vrun *r)
{
    if (!r)
        return;
    ma_inventory_free(&r->inv);
    ma_integrity_free(&r->integ);
    for (size_t i = 0; i < r->n_nodes; i++) {
        free_sector_pub(&r->nodes[i].pub);
        free(r->nodes[i].set);
        free(r->nodes[i].fixed);
    }
    free(r->nodes);
    free(r->order);
    free(r->unit_of_pos);
    free(r->t_stack);
    free(r->selection);
    for (size_t i = 0; i < r->n_errors; i++)
        free(r->errors[i]);
    free(r->errors);
    if (r->audit)
        ma_audit_close(r->audit);
    ma_database_close(r->db);
    free(r);
}

int ma_vrun_execute(ma_vrun *r, ma_error *err)
{
    if (!r)
        return ma_error_set(err, MA_EINVAL, "no run given");
    if (r->executed)
        return ma_error_set(err, MA_EINVAL, "this run was already executed: a run checks once "
                                            "(create another run to check again)");
    r->executed = 1;
    r->t0 = ma_now();
    if (!realpath(r->opt.root, r->root))
        snprintf(r->root, sizeof r->root, "%s", r->opt.root);
    /* verify reports a body that fails its header's digest as a finding of the sector
     * (verifier/run/run_sector.h), not as an unusable file */
    ma_database_options dbo = {0};
    dbo.no_digest_check = 1;
    dbo.cancel = r->opt.cancel; /* a signal stops a unit's private read between its pieces */
    dbo.stamp_mapped = 1;       /* the snapshot compares the stamps (run_snapshot.c) */
    int irc = MA_OK; /* the integrity phase: a stop there still plans and records the run */
    int rc = ma_database_open(&r->db, r->opt.root, &dbo, err);
    if (rc == MA_OK) {
        /* integrity before semantics: a reference that cannot be used (or a stop) ends the run
         * before anything is recorded (docs/download.md) */
        irc = ma_vr_integrity(r, err);
        if (irc && irc != MA_ECANCELED) {
            r->seconds = ma_now() - r->t0;
            return irc;
        }
        for (size_t i = 0; i < ma_database_unusable_count(r->db); i++)
            ma_vr_add_error(r, ma_database_unusable(r->db, i)->message);
        rc = ma_vr_plan(r, err);
        if (rc == MA_OK) {
            ma_vr_integrity_mark(r);
            if (r->opt.on_integrity)
                r->opt.on_integrity(r->opt.on_integrity_ctx, r);
        }
    }
    if (rc == MA_EINVAL) { /* the command line is wrong: nothing to record */
        r->seconds = ma_now() - r->t0;
        return rc;
    }
    if (rc == MA_OK && r->n_order == 0 && !ma_vr_empty_shard(r)) {
        char shown[1100];
        ma_escape_name(r->opt.root, shown, sizeof shown);
        ma_vr_add_error(r, r->whole || !r->opt.n_sectors
                         ? (snprintf(shown + strlen(shown), sizeof shown - strlen(shown),
                                     ": no usable sector files (.mdb, .sec2, .sec)"),
                            shown)
                         : shown);
    }
    if (rc == MA_EINVAL || (rc && r->opt.mode == MA_VRUN_RESUME)) {
        r->seconds = ma_now() - r->t0;
        return rc;
    }
    if (r->opt.audit_path) {
        ma_error e;
        int arc = ma_vr_begin_record(r, &e);
        if (arc) {
            /* a store that cannot be used stops the run before any work: the user asked for a
             * record; a foreign or corrupt store is bad input (3), an unwritable one output (4) */
            if (!rc) {
                *err = e;
                rc = arc;
            }
            r->seconds = ma_now() - r->t0;
            return rc;
        }
    }
    ma_vr_integrity_record(r);
    if (rc) { /* the database root itself is unusable: recorded as such */
        ma_vr_add_error(r, err->msg);
        goto finish;
    }
    if (irc == MA_ECANCELED) {
        rc = irc; /* stopped while the files were judged: nothing was checked */
        goto finish;
    }
    if (r->audit && (rc = ma_vr_hash_inputs(r, err)))
        goto finish;
    if (r->audit)
        ma_vr_integrity_bind(r);
    if (r->hooks.on_step)
        r->hooks.on_step(r->hooks.step_ctx, "hashed", NULL);
    if (r->audit && r->opt.mode != MA_VRUN_FULL && (rc = ma_vr_carry(r, err)))
        goto finish;
    if (r->opt.progress) {
        uint64_t total = 0;
        for (size_t i = 0; i < r->n_order; i++)
            if (!r->nodes[r->order[i]].done && !ma_vr_status_damaged(r->nodes[r->order[i]].pub.status))
                total += ma_vr_entries_estimate(&r->nodes[r->order[i]], ma_database_format(r->db));
        ma_progress_set_total(r->opt.progress, total);
    }
    for (size_t first = 0; rc == MA_OK && first < r->n_order;) {
        size_t last = first;
        while (last < r->n_order && r->unit_of_pos[last] == r->unit_of_pos[first])
            last++;
        rc = ma_vr_run_unit(r, first, last, err);
        if (rc == MA_OK && r->hooks.stop_after_sectors) {
            size_t committed = 0;
            for (size_t i = 0; i < last; i++)
                committed += r->nodes[r->order[i]].done && !r->nodes[r->order[i]].pub.carried;
            if (committed >= r->hooks.stop_after_sectors)
                rc = MA_ECANCELED; /* tests only: as if a signal arrived after this unit */
        }
        /* memory stays bounded by a unit's files: what no later unit reads is unmapped, what was
         * read privately is freed */
        ma_vr_unit_release(r, first);
        first = last;
    }
finish:
    return ma_vr_finish(r, rc);
}

const char *ma_vrun_phase(const ma_vrun *r) { return r->phase; }
const char *ma_vrun_root(const ma_vrun *r) { return r->root; }
ma_format ma_vrun_format(const ma_vrun *r) { return r->db ? ma_database_format(r->db) : 0; }
unsigned ma_vrun_variants(const ma_vrun *r) { return r->db ? ma_database_variants(r->db) : 0; }
int64_t ma_vrun_id(const ma_vrun *r) { return r->run_id; }
size_t ma_vrun_planned_sectors(const ma_vrun *r) { return r->n_domain; }
int ma_vrun_covers_database(const ma_vrun *r) { return !r->opt.n_sectors && r->opt.shard_count <= 1; }
int64_t ma_vrun_resumed_from(const ma_vrun *r) { return r->resumed_from; }
const ma_vrun_options *ma_vrun_options_of(const ma_vrun *r) { return &r->opt; }
size_t ma_vrun_sector_count(const ma_vrun *r) { return r->n_order; }
const ma_vrun_sector *ma_vrun_sector_at(const ma_vrun *r, size_t i) { return &r->nodes[r->order[i]].pub; }
const ma_vrun_totals *ma_vrun_totals_of(const ma_vrun *r) { return &r->totals; }
size_t ma_vrun_error_count(const ma_vrun *r) { return r->n_errors; }
const char *ma_vrun_error(const ma_vrun *r, size_t i) { return r->errors[i]; }
ma_verdict_state ma_vrun_verdict_of(const ma_vrun *r) { return r->verdict; }
int ma_vrun_record_failed(const ma_vrun *r) { return r->record_failed; }

int ma_vrun_result(const ma_vrun *r, int rc)
{
    const ma_vrun_options *o = &r->opt;
    if (rc == MA_ECANCELED) /* no signal number: a test build's stop */
        return ma_result_of_signal(o->cancel && *o->cancel ? (int)*o->cancel : SIGINT);
    if (rc)
        return rc;
    if (r->record_failed) /* the record asked for is incomplete: outweighs the verdict */
        return MA_EIO;
    return ma_result_of_verdict(r->verdict, o->allow_bounds ? MA_VERDICT_ALLOW_BOUNDS : 0);
}
double ma_vrun_seconds(const ma_vrun *r) { return r->seconds; }
