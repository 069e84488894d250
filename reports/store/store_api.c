/*
 * The public face of reports/store/ (millaudit/store.h): runs loaded, exported, imported and compared as
 * handles, the regressions of a run as one call, the report as a handle. The work is in runs.c,
 * history.c and report.c; here the handles are made and freed and the verdicts are decided.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "millaudit/store.h"
#include "reports/store/audit.h"
#include "reports/store/history.h"
#include "reports/store/report.h"
#include "reports/store/runs.h"

int ma_store_input_result(int rc)
{
    /* reading an input: any failure means the input is unusable, also one the OS refused */
    return rc == MA_EIO ? MA_EFORMAT : rc;
}

int ma_store_run_load(ma_run **out, ma_audit *a, int64_t id, ma_error *err)
{
    *out = NULL;
    ma_run *r = calloc(1, sizeof *r);
    if (!r)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = id ? MA_OK : ma_runs_latest(a, &id, err);
    if (!rc)
        rc = ma_run_load(a, id, r, err);
    if (rc) {
        ma_store_run_free(r);
        return rc;
    }
    *out = r;
    return MA_OK;
}

int ma_store_run_load_path(ma_run **out, const char *path, int64_t id, ma_error *err)
{
    ma_audit *a = NULL;
    *out = NULL;
    int rc = ma_audit_open_readonly(&a, path, err);
    if (!rc)
        rc = ma_store_run_load(out, a, id, err);
    ma_audit_close(a);
    return rc;
}

int ma_store_run_export(char **out, const ma_run *r, ma_error *err)
{
    return ma_run_to_json(r, out, err);
}

int ma_store_run_import(int64_t *new_id, ma_audit *a, const ma_run *r, const char *source, ma_error *err)
{
    return ma_run_import(a, r, source, new_id, err);
}

void ma_store_run_free(ma_run *r)
{
    if (!r)
        return;
    ma_run_free(r);
    free(r);
}

int64_t ma_store_run_id(const ma_run *r) { return r->id; }
const char *ma_store_run_kind(const ma_run *r) { return r->kind; }
const char *ma_store_run_status(const ma_run *r) { return r->status; }
const char *ma_store_run_root(const ma_run *r) { return r->database_root; }
size_t ma_store_run_sector_count(const ma_run *r) { return r->n_sectors; }
size_t ma_store_run_file_count(const ma_run *r) { return r->n_files; }

/* ---------------------------------------------------------------- compare */

int ma_store_compare(ma_run_cmp **out, const ma_run *a, const ma_run *b, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = ma_run_compare(*out, a, b, err);
    if (rc) {
        ma_store_compare_free(*out);
        *out = NULL;
    }
    return rc;
}

ma_verdict_state ma_store_compare_verdict(const ma_run_cmp *c)
{
    if (c->n_differ)
        return MA_VERDICT_DIFFER;
    return c->n_unknown || !c->n_rows ? MA_VERDICT_INCOMPLETE : MA_VERDICT_AGREE;
}

const char *ma_store_compare_problem(const ma_run_cmp *c)
{
    if (ma_store_compare_verdict(c) != MA_VERDICT_INCOMPLETE)
        return NULL;
    return c->n_rows ? "some sectors have no manifest or derived digests on both sides"
                     : "neither run recorded any sector or file";
}

void ma_store_compare_free(ma_run_cmp *c)
{
    if (!c)
        return;
    ma_run_cmp_free(c);
    free(c);
}

/* ---------------------------------------------------------------- regressions */

/* Loads run id into r, refusing a run that is not a verify run. */
static int load_verify_run(ma_audit *a, int64_t id, ma_run *r, const char *store, ma_error *err)
{
    int rc = ma_run_load(a, id, r, err);
    if (!rc && strcmp(r->kind, "verify"))
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld is a %s run; regressions compare verify runs", store,
                          (long long)id, r->kind);
    return rc;
}

int ma_store_regressions(ma_run_regressions **out, ma_audit *a, const ma_regressions_options *opt, ma_error *err)
{
    ma_run_regressions *g = calloc(1, sizeof *g);
    const char *store = opt->store_name ? opt->store_name : "audit store";
    *out = NULL;
    if (!g || !(g->store_name = strdup(store))) {
        free(g);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    g->basis = opt->since ? "since" : "previous";
    int64_t run_id = opt->run_id, base_id = opt->since;
    int rc = MA_OK;
    if (!run_id) {
        rc = ma_runs_newest(a, "verify", opt->root, &run_id, err);
        if (!rc && !run_id)
            rc = ma_error_set(err, MA_EMISSING, "%s: no verify run%s%s", store, opt->root ? " of " : "",
                              opt->root ? opt->root : "");
    }
    if (!rc && !opt->since)
        rc = ma_runs_previous(a, run_id, &base_id, err);
    if (!rc)
        rc = load_verify_run(a, run_id, &g->run, store, err);
    if (!rc && base_id)
        rc = load_verify_run(a, base_id, &g->base, store, err);
    if (!rc)
        rc = ma_regressions_compute(&g->g, base_id ? &g->base : NULL, &g->run, err);
    if (rc) {
        ma_store_regressions_free(g);
        return rc;
    }
    *out = g;
    return MA_OK;
}

ma_verdict_state ma_store_regressions_verdict(const ma_run_regressions *g)
{
    return g->g.regressed ? MA_VERDICT_DIFFER : MA_VERDICT_AGREE;
}

void ma_store_regressions_free(ma_run_regressions *g)
{
    if (!g)
        return;
    ma_regressions_free(&g->g);
    ma_run_free(&g->run);
    ma_run_free(&g->base);
    free(g->store_name);
    free(g);
}

/* ---------------------------------------------------------------- report */

int ma_store_report_load(ma_report **out, ma_audit *a, int64_t id, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = ma_report_load(a, id, *out, err);
    if (rc) {
        ma_store_report_free(*out);
        *out = NULL;
    }
    return rc;
}

int ma_store_report_select_sector(ma_report *r, const char *sector, ma_error *err)
{
    int w, b, wf, bf, used = 0;
    const char *digits = strchr(sector, '_') && !(sector[0] >= '0' && sector[0] <= '9') ? strchr(sector, '_') + 1
                                                                                          : sector;
    if (sscanf(digits, "%d_%d_%d_%d%n", &w, &b, &wf, &bf, &used) != 4 || digits[used])
        return ma_error_set(err, MA_EINVAL, "--sector %s: not a sector (W_B_WF_BF or <variant>_W_B_WF_BF)", sector);
    const char *hit = NULL;
    size_t hits = 0;
    for (size_t i = 0; i < r->run.n_sectors; i++) {
        const char *name = r->run.sectors[i].sector;
        const char *us = name ? strchr(name, '_') : NULL;
        /* the name as given, or its W_B_WF_BF part (one variant's sector) */
        if (name && (!strcmp(name, sector) || (digits == sector && us && !strcmp(us + 1, sector))))
            hit = name, hits++;
    }
    if (hits > 1)
        return ma_error_set(err, MA_EINVAL, "--sector %s: the run holds it in several variants; name one, e.g. std_%s",
                            sector, sector);
    if (!hit)
        return ma_error_set(err, MA_EMISSING, "run %lld has no sector %s", (long long)r->run.id, sector);
    r->only = hit;
    ma_report_first_root(r); /* the box's first root is the sector's own */
    ma_report_box_fill(r);
    return MA_OK;
}

ma_verdict_state ma_store_report_verdict(const ma_report *r)
{
    return r->verdict.state;
}

void ma_store_report_free(ma_report *r)
{
    if (!r)
        return;
    ma_report_free(r);
    free(r);
}
