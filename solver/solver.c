/* solver: plan, pre-flight checks, component-by-component solving and writing. */
#include "solver/solver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ma_version.h"
#include "solver/svfile.h"
#include "solver/svindex.h"
#include "solver/svsector.h"

void ma_solver_producer_name(char *buf, size_t n, int bug)
{
    if (bug == MA_SVBUG_NONE)
        snprintf(buf, n, "millaudit-solver");
    else
        snprintf(buf, n, "millaudit-solver+bug:%s", ma_svrules_bug_name(bug));
}

struct ctx {
    const ma_solver_opts *o;
    ma_svrules rules;
    ma_svindex ix;
    char producer[64];
    ma_error *err;
};

static int header_for(struct ctx *c, ma_sv_sector s, uint8_t h[MA_SVFILE_HEADER_SIZE],
                      char *path, size_t pathlen)
{
    int rc = ma_svindex_prepare(&c->ix, s.w, c->err);
    if (rc != MA_OK)
        return rc;
    ma_svfile_header(h, &c->rules, s, ma_svindex_entry_count(&c->ix, s.w, s.b), c->producer,
                     MA_VERSION);
    return ma_svfile_path(path, pathlen, c->o->out_dir, c->rules.variant, s, c->err);
}

static int in_plan(const ma_svcomponent *plan, int n, ma_sv_sector s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < plan[i].n; j++)
            if (ma_svrules_sector_eq(plan[i].s[j], s))
                return 1;
    return 0;
}

static int check_out_dir(const char *dir, ma_error *err)
{
    struct stat st;
    if (!dir || !*dir)
        return ma_error_set(err, MA_EINVAL, "no output directory given");
    /* A missing leaf directory is created (users expect --out NEW to work); a missing parent is
     * not, so a typo in a path does not silently build a tree somewhere unexpected. */
    if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0777) != 0 || stat(dir, &st) != 0))
        return ma_error_set(err, MA_EIO, "%s: output directory not usable: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ma_error_set(err, MA_EIO, "%s: output directory is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ma_error_set(err, MA_EIO, "%s: output directory not writable: %s", dir, strerror(errno));
    return MA_OK;
}

static int solve_component(struct ctx *c, const ma_svcomponent *comp, const int exists[2],
                           ma_solver_report_fn fn, void *fnctx)
{
    ma_retro_job job;
    memset(&job, 0, sizeof job);
    job.rules = &c->rules;
    job.ix = &c->ix;
    job.cyclic = comp->cyclic;
    job.progress = c->o->progress;
    int rc = MA_OK;
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    char path[4096];
    double t0 = ma_now();
    job.nmembers = comp->n;
    for (int i = 0; i < comp->n && rc == MA_OK; i++) {
        ma_retro_table *t = &job.members[i];
        t->sector = comp->s[i];
        rc = ma_svindex_prepare(&c->ix, t->sector.w, c->err);
        if (rc == MA_OK)
            rc = ma_svindex_prepare(&c->ix, t->sector.b, c->err);
        if (rc != MA_OK)
            break;
        t->entries = ma_svindex_entry_count(&c->ix, t->sector.w, t->sector.b);
        t->vals = malloc((t->entries ? t->entries : 1) * sizeof *t->vals);
        if (!t->vals)
            rc = ma_error_set(c->err, MA_ENOMEM, "solve: out of memory for %llu entries",
                              (unsigned long long)t->entries);
    }
    for (int i = 0; i < comp->n && rc == MA_OK; i++) {
        ma_sv_sector kids[8];
        int nk = ma_svsector_children(&c->rules, comp->s[i], kids, NULL);
        for (int k = 0; k < nk && rc == MA_OK; k++) {
            int dup = 0;
            for (int j = 0; j < comp->n; j++)
                dup |= ma_svrules_sector_eq(kids[k], comp->s[j]);
            for (int j = 0; j < job.nchildren; j++)
                dup |= ma_svrules_sector_eq(kids[k], job.children[j].sector);
            if (dup)
                continue;
            if (job.nchildren == MA_RETRO_MAX_CHILDREN) {
                rc = ma_error_set(c->err, MA_EINTERNAL, "solve: too many child sectors");
                break;
            }
            ma_retro_table *t = &job.children[job.nchildren++];
            t->sector = kids[k];
            rc = header_for(c, kids[k], h, path, sizeof path);
            if (rc != MA_OK)
                break;
            t->entries = ma_svfile_header_entries(h);
            t->vals = malloc((t->entries ? t->entries : 1) * sizeof *t->vals);
            if (!t->vals)
                rc = ma_error_set(c->err, MA_ENOMEM, "solve: out of memory loading %s", path);
            else
                rc = ma_svfile_read(t->vals, path, h, c->err);
        }
    }
    ma_retro_stats stats[2];
    if (rc == MA_OK)
        rc = ma_retro_solve(&job, stats, c->err);
    double secs = ma_now() - t0;
    for (int i = 0; i < comp->n && rc == MA_OK; i++) {
        ma_retro_table *t = &job.members[i];
        ma_solver_report rep = {t->sector, t->entries, stats[i], secs, exists[i]};
        if (!exists[i]) {
            if (c->rules.bug == MA_SVBUG_DEPTH_IN_MOVES)
                for (uint64_t e = 0; e < t->entries; e++)
                    if (t->vals[e] & 0x4000u)
                        t->vals[e] = (uint16_t)((t->vals[e] & 0xC000u) |
                                                (((t->vals[e] & 0x3FFFu) + 1) / 2));
            rc = header_for(c, t->sector, h, path, sizeof path);
            if (rc == MA_OK)
                rc = ma_svfile_write(path, h, t->vals, c->err);
        }
        if (rc == MA_OK && fn)
            fn(fnctx, &rep);
    }
    for (int i = 0; i < job.nmembers; i++)
        free(job.members[i].vals);
    for (int i = 0; i < job.nchildren; i++)
        free(job.children[i].vals);
    return rc;
}

static int run(struct ctx *c, const ma_sv_sector *targets, int ntargets, int with_deps,
               ma_solver_report_fn fn, void *fnctx)
{
    const ma_solver_opts *o = c->o;
    ma_svcomponent *all = NULL;
    int nall = 0;
    for (int i = 0; i < ntargets; i++)
        if (!ma_svrules_sector_valid(&c->rules, targets[i])) {
            char name[32];
            ma_svsector_format(name, sizeof name, targets[i]);
            return ma_error_set(c->err, MA_EINVAL, "sector %s is not valid for %s", name,
                                ma_svrules_variant_name(o->variant));
        }
    int rc = check_out_dir(o->out_dir, c->err);
    if (rc != MA_OK)
        return rc;
    rc = ma_svsector_order(&c->rules, targets, ntargets, &all, &nall, c->err);
    if (rc != MA_OK)
        return rc;
    /* Keep the components that hold a target, unless everything below them is wanted too. */
    int nplan = 0;
    for (int i = 0; i < nall; i++) {
        int keep = with_deps;
        for (int t = 0; t < ntargets && !keep; t++)
            for (int j = 0; j < all[i].n; j++)
                keep |= ma_svrules_sector_eq(all[i].s[j], targets[t]);
        if (keep)
            all[nplan++] = all[i];
    }
    int *exists = calloc((size_t)(nplan ? nplan : 1) * 2, sizeof *exists);
    if (!exists) {
        free(all);
        return ma_error_set(c->err, MA_ENOMEM, "solve: out of memory");
    }
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    char path[4096];
    /* Pre-flight: every file we would write or read is checked before anything is written. */
    for (int i = 0; i < nplan && rc == MA_OK; i++)
        for (int j = 0; j < all[i].n && rc == MA_OK; j++) {
            rc = header_for(c, all[i].s[j], h, path, sizeof path);
            if (rc == MA_OK)
                rc = ma_svfile_probe(&exists[2 * i + j], path, h, c->err);
        }
    for (int i = 0; i < nplan && rc == MA_OK; i++)
        for (int j = 0; j < all[i].n && rc == MA_OK; j++) {
            ma_sv_sector kids[8];
            int nk = ma_svsector_children(&c->rules, all[i].s[j], kids, NULL);
            for (int k = 0; k < nk && rc == MA_OK; k++) {
                if (in_plan(all, nplan, kids[k]))
                    continue;
                int there = 0;
                rc = header_for(c, kids[k], h, path, sizeof path);
                if (rc == MA_OK)
                    rc = ma_svfile_probe(&there, path, h, c->err);
                if (rc == MA_OK && !there) {
                    char name[32];
                    ma_svsector_format(name, sizeof name, kids[k]);
                    rc = ma_error_set(c->err, MA_EMISSING,
                                      "%s: missing child sector %s (solve it first, or use --with-deps)",
                                      path, name);
                }
            }
        }
    uint64_t to_solve = 0; /* the progress total: entries of the components solved below */
    for (int i = 0; i < nplan && rc == MA_OK; i++)
        if (!(exists[2 * i] && (all[i].n == 1 || exists[2 * i + 1])))
            for (int j = 0; j < all[i].n; j++)
                to_solve += ma_svindex_entry_count(&c->ix, all[i].s[j].w, all[i].s[j].b);
    ma_progress_set_total(o->progress, to_solve);
    for (int i = 0; i < nplan && rc == MA_OK; i++) {
        if (exists[2 * i] && (all[i].n == 1 || exists[2 * i + 1])) {
            for (int j = 0; j < all[i].n && fn; j++) {
                ma_solver_report rep;
                memset(&rep, 0, sizeof rep);
                rep.sector = all[i].s[j];
                rep.entries = ma_svindex_entry_count(&c->ix, rep.sector.w, rep.sector.b);
                rep.skipped = 1;
                fn(fnctx, &rep);
            }
            continue;
        }
        rc = solve_component(c, &all[i], &exists[2 * i], fn, fnctx);
    }
    free(exists);
    free(all);
    return rc;
}

int ma_solver_solve(const ma_solver_opts *o, const ma_sv_sector *targets, int ntargets,
                    int with_deps, ma_solver_report_fn fn, void *fnctx, ma_error *err)
{
    struct ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "solve: out of memory");
    c->o = o;
    c->err = err;
    ma_solver_producer_name(c->producer, sizeof c->producer, o->bug);
    int rc = ma_svrules_init(&c->rules, o->variant, o->bug, err);
    if (rc == MA_OK)
        rc = ma_svindex_init(&c->ix, err);
    if (rc == MA_OK)
        rc = run(c, targets, ntargets, with_deps, fn, fnctx);
    ma_svindex_free(&c->ix);
    free(c);
    return rc;
}

int ma_solver_start_value(const ma_solver_opts *o, int k, uint16_t *value, ma_error *err)
{
    ma_svrules r;
    int rc = ma_svrules_init(&r, o->variant, o->bug, err);
    if (rc != MA_OK)
        return rc;
    ma_sv_sector s = {0, 0, k, k};
    char producer[64], path[4096];
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    ma_solver_producer_name(producer, sizeof producer, o->bug);
    /* Sector 0_0 has a single entry: the empty board. */
    ma_svfile_header(h, &r, s, 1, producer, MA_VERSION);
    rc = ma_svfile_path(path, sizeof path, o->out_dir, o->variant, s, err);
    if (rc == MA_OK)
        rc = ma_svfile_read(value, path, h, err);
    return rc;
}
