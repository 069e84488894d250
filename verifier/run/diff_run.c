/*
 * ma_diff_run (include/millaudit/diff.h): the whole of `millaudit diff A B` but its rendering.
 * Opens, plans, shards, compares pair by pair, totals, decides the verdict and records.
 */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "ma_version.h"
#include "reports/store/audit_run.h"
#include "verifier/run/diff.h"
#include "verifier/run/sector_args.h"

static void notice(ma_diff_report *r, const char *msg)
{
    if (r->n_notices < MA_DIFF_NOTICES)
        snprintf(r->notices[r->n_notices++], sizeof r->notices[0], "%s", msg);
}

/* The run's row in the store: A's root (resolved), its only variant, its format. */
static int begin_record(ma_audit **audit, int64_t *run_id, const ma_diff_run_options *opt,
                        const ma_database *a, ma_error *err)
{
    int rc = ma_audit_open(audit, opt->audit_path, err);
    if (rc)
        return rc;
    char root[PATH_MAX];
    if (!realpath(opt->path_a, root))
        snprintf(root, sizeof root, "%s", opt->path_a);
    unsigned vars = ma_database_variants(a);
    const char *variant = NULL;
    for (int k = MA_VARIANT_STD; k <= MA_VARIANT_MORA; k++)
        if (vars == 1u << k)
            variant = ma_variant_name((ma_variant)k);
    ma_run_info info = {"diff", MA_VERSION, MA_GIT_REVISION, opt->host ? opt->host : "unknown",
                        opt->cmdline ? opt->cmdline : "", root, variant,
                        ma_format_name(ma_database_format(a))};
    rc = ma_audit_run_begin(*audit, &info, run_id, err);
    if (rc)
        return rc;
    /* the second side and the options the results depend on, as the report names them
     * (docs/report.md "Diff runs": B from the run's options) */
    char b[PATH_MAX];
    if (!realpath(opt->path_b, b))
        snprintf(b, sizeof b, "%s", opt->path_b);
    json_t *o = json_object();
    int bad = 0;
    ma_json_put(o, "b", ma_json_text(b), &bad);
    ma_json_put(o, "limit", json_integer((json_int_t)opt->compare.limit), &bad);
    ma_json_put(o, "full", json_boolean(opt->compare.full), &bad);
    char *options = bad ? NULL : ma_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!options)
        return ma_error_set(err, MA_ENOMEM, "diff: out of memory");
    ma_run_meta meta = {NULL, 0, options, opt->shard_index, opt->shard_count, -1, -1, NULL, -1, 0, NULL}; /* no mode: a verify word */
    rc = ma_audit_run_meta_set(*audit, *run_id, &meta, err);
    free(options);
    return rc;
}

/* Opens both databases and plans the pairs (the shard's). A failure is the run's: r->fatal. */
static int plan(ma_diff_report *r, const ma_diff_run_options *opt)
{
    ma_database_options dbo = {0};
    dbo.no_digest_check = opt->no_digest_check;
    ma_sector_pick picks[MA_SECTOR_PICKS_MAX];
    size_t n_picks = 0;
    ma_error *err = &r->failure;
    int rc = ma_sector_args_parse(picks, &n_picks, opt->sectors, opt->n_sectors, err);
    if (rc == MA_OK)
        rc = ma_database_open(&r->a, opt->path_a, &dbo, err);
    if (rc == MA_OK)
        rc = ma_database_open(&r->b, opt->path_b, &dbo, err);
    if (rc == MA_OK)
        rc = ma_diff_plan(&r->pairs, &r->n, r->a, r->b, picks, n_picks, err);
    r->n_planned = r->n;
    if (rc == MA_OK && opt->shard_count)
        rc = ma_diff_plan_shard(r->pairs, &r->n, opt->shard_index, opt->shard_count, err);
    return rc;
}

/* 1 over 3 (a difference found outweighs an input that could not be compared), as verify. */
static ma_verdict_state verdict_of(const ma_diff_report *r)
{
    if (r->by_status[MA_DIFF_DIFFERS] || r->by_status[MA_DIFF_ONLY_A] || r->by_status[MA_DIFF_ONLY_B])
        return MA_VERDICT_DIFFER;
    if (r->by_status[MA_DIFF_UNUSABLE] || ma_database_unusable_count(r->a) ||
        ma_database_unusable_count(r->b))
        return MA_VERDICT_INCOMPLETE;
    return MA_VERDICT_AGREE;
}

/* The pair of sector x of variant v, or NULL. */
static ma_diff_sector *pair_of(ma_diff_report *r, ma_variant v, ma_sector x)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->pairs[i].variant == v && ma_sector_equal(r->pairs[i].sector, x))
            return &r->pairs[i];
    return NULL;
}

static int own_difference(const ma_diff_sector *s)
{
    return s->status == MA_DIFF_DIFFERS && (!s->r.classified || s->r.roots + s->r.unknown > 0);
}

/* Root and consequence pairs (include/millaudit/diff.h, ma_diff_sector.cause): a pair whose every
 * difference is propagated is a consequence of the pairs with differences of their own that its
 * differing successors lead to, transitively; without one it stays a root pair. */
static int attribute(ma_diff_report *r)
{
    size_t n = r->n;
    char *seen = malloc(n ? n : 1);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    if (!seen || !queue) {
        free(seen), free(queue);
        return MA_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        ma_diff_sector *s = &r->pairs[i];
        if (s->status != MA_DIFF_DIFFERS || own_difference(s))
            continue;
        size_t head = 0, tail = 0;
        memset(seen, 0, n);
        seen[i] = 1;
        queue[tail++] = i;
        while (head < tail) {
            const ma_diff_sector *x = &r->pairs[queue[head++]];
            for (int k = 0; k < x->r.n_via; k++) {
                ma_diff_sector *y = pair_of(r, x->variant, x->r.via[k]);
                size_t j = y ? (size_t)(y - r->pairs) : n;
                if (j < n && !seen[j])
                    seen[j] = 1, queue[tail++] = j;
            }
        }
        size_t used = 0;
        s->because[0] = 0;
        s->n_because = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i && seen[j] && own_difference(&r->pairs[j])) {
                if (used < sizeof s->because)
                    used += (size_t)snprintf(s->because + used, sizeof s->because - used, "%s%s",
                                             used ? ", " : "", r->pairs[j].name);
                s->n_because++;
            }
        s->cause = s->n_because ? MA_DIFF_CAUSE_PROPAGATED : MA_DIFF_CAUSE_ROOT;
    }
    free(seen), free(queue);
    return MA_OK;
}

/* The causes learnt once every pair is compared, into the recorded pairs: the split of each
 * differing pair's value differences, a consequence's causes as its message, each row's cause and
 * proving turn (reports/store/audit_run.h). */
static void record_causes(ma_diff_report *r, ma_audit *audit, int64_t run_id, int *record_failed)
{
    for (size_t i = 0; i < r->n && !*record_failed; i++) {
        const ma_diff_sector *s = &r->pairs[i];
        if (s->status != MA_DIFF_DIFFERS || !s->r.classified)
            continue;
        ma_row_cause rows[64];
        size_t n = 0;
        for (size_t k = 0; k < s->r.n_examples && n < 64; k++) {
            const ma_diff_example *x = &s->r.examples[k];
            rows[n++] = (ma_row_cause){x->entry_a, x->cause != MA_DIFF_CAUSE_PROPAGATED, x->proof[0] ? x->proof : NULL};
        }
        char msg[700];
        if (s->cause == MA_DIFF_CAUSE_PROPAGATED)
            snprintf(msg, sizeof msg, "values differ only as a consequence of %s", s->because);
        ma_error e;
        if (ma_audit_sector_causes_set(audit, run_id, s->name, s->r.roots + s->r.unknown, s->r.propagated,
                                       s->cause == MA_DIFF_CAUSE_PROPAGATED ? msg : NULL, rows, n, &e)) {
            *record_failed = 1;
            notice(r, e.msg);
        }
    }
}

/* Compares every planned pair in order, totals them and records each. */
static int compare_all(ma_diff_report *r, const ma_diff_run_options *opt, ma_audit *audit,
                       int64_t run_id, int *record_failed)
{
    for (size_t i = 0; i < r->n; i++) {
        ma_diff_sector *s = &r->pairs[i];
        int rc = ma_diff_sector_compare_causes(s, r->a, r->b, &r->compare, &r->failure);
        if (rc)
            return rc;
        r->by_status[s->status]++;
        r->positions += s->r.positions;
        for (int k = 0; k < MA_DIFF_CLASSES; k++)
            r->counts[k] += s->r.counts[k];
        if (opt->on_sector)
            opt->on_sector(opt->ctx, s);
        ma_error e;
        if (audit && !*record_failed && ma_diff_record(audit, run_id, s, &e)) {
            *record_failed = 1;
            notice(r, e.msg);
        }
    }
    return MA_OK;
}

/* The run's status in the store, from its verdict, in a diff run's words (docs/audit-schema.md):
 * "ok" when the values agree, "discrepancies" when they differ, and "unusable" when an input could
 * not be compared (readers take it as incomplete) or the diff stopped on an error (r->fatal)
 * before it had a verdict. ma_verdict_status names the states otherwise ("values-agree"), and the
 * store keeps the words diff runs have always recorded. */
static const char *run_status(const ma_diff_report *r)
{
    if (r->fatal)
        return "unusable";
    switch (verdict_of(r)) {
    case MA_VERDICT_AGREE: return "ok";
    case MA_VERDICT_DIFFER: return "discrepancies";
    default: return "unusable";
    }
}

/* The store's status of the run and the records asked for: a record not written wins (MA_EIO). */
static void finish_records(ma_diff_report *r, const ma_diff_run_options *opt, ma_audit *audit,
                           int64_t run_id, int record_failed)
{
    if (audit && run_id) {
        ma_error e;
        if (ma_audit_run_end(audit, run_id, run_status(r), &e) && !record_failed) {
            record_failed = 1;
            notice(r, e.msg);
        }
    }
    if (opt->junit_path) {
        ma_error e;
        if (!opt->junit_writer ? ma_error_set(&e, MA_EINVAL, "%s: no JUnit writer given", opt->junit_path)
                               : opt->junit_writer(r, opt->junit_path, &e)) {
            notice(r, e.msg);
            record_failed = 1; /* a report asked for and not written: as an incomplete record */
        }
    }
    if (record_failed)
        r->result = MA_EIO;
}

static int report_new(ma_diff_report **out, const ma_diff_run_options *opt, ma_error *err)
{
    *out = NULL;
    if (!opt || !opt->path_a || !opt->path_b)
        return ma_error_set(err, MA_EINVAL, "diff: need two databases A and B");
    ma_diff_report *r = calloc(1, sizeof *r);
    if (!r || !(r->path_a = strdup(opt->path_a)) || !(r->path_b = strdup(opt->path_b))) {
        ma_diff_report_free(r);
        return ma_error_set(err, MA_ENOMEM, "diff: out of memory");
    }
    r->compare = opt->compare;
    r->shard_index = opt->shard_index;
    r->shard_count = opt->shard_count;
    *out = r;
    return MA_OK;
}

int ma_diff_run(ma_diff_report **out, const ma_diff_run_options *opt, ma_error *err)
{
    ma_diff_report *r;
    int rc = report_new(&r, opt, err);
    if (rc)
        return rc;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    int record_failed = 0;
    if ((rc = plan(r, opt)) != MA_OK) {
        r->result = rc == MA_ENOMEM ? MA_ENOMEM : MA_EFORMAT;
    } else if (opt->audit_path && (rc = begin_record(&audit, &run_id, opt, r->a, &r->failure))) {
        r->result = rc == MA_EFORMAT ? MA_EFORMAT : MA_EIO;
    } else {
        if (opt->on_plan)
            opt->on_plan(opt->ctx, r);
        rc = compare_all(r, opt, audit, run_id, &record_failed);
        if (rc == MA_OK && (rc = attribute(r)) == MA_ENOMEM)
            ma_error_set(&r->failure, rc, "diff: out of memory");
        if (rc == MA_OK && audit && !record_failed)
            record_causes(r, audit, run_id, &record_failed);
        r->result = rc ? rc : ma_result_of_verdict(verdict_of(r), 0);
    }
    r->fatal = rc != MA_OK;
    finish_records(r, opt, audit, run_id, record_failed);
    ma_audit_close(audit);
    *out = r;
    return MA_OK;
}

void ma_diff_report_free(ma_diff_report *r)
{
    if (!r)
        return;
    ma_diff_plan_free(r->pairs, r->n);
    ma_database_close(r->a);
    ma_database_close(r->b);
    free(r->path_a);
    free(r->path_b);
    free(r);
}

int ma_diff_report_result(const ma_diff_report *r) { return r->result; }
const char *ma_diff_report_failure(const ma_diff_report *r) { return r->fatal ? r->failure.msg : NULL; }
size_t ma_diff_report_pairs(const ma_diff_report *r) { return r->n; }
size_t ma_diff_report_planned(const ma_diff_report *r) { return r->n_planned; }
const ma_diff_sector *ma_diff_report_pair(const ma_diff_report *r, size_t i)
{
    return i < r->n ? &r->pairs[i] : NULL;
}
uint64_t ma_diff_report_status_count(const ma_diff_report *r, ma_diff_status s)
{
    return (unsigned)s < MA_DIFF_STATUSES ? r->by_status[s] : 0;
}
uint64_t ma_diff_report_positions(const ma_diff_report *r) { return r->positions; }
uint64_t ma_diff_report_class_count(const ma_diff_report *r, int cls)
{
    return cls >= 0 && cls < MA_DIFF_CLASSES ? r->counts[cls] : 0;
}
