/* solver: plan, pre-flight checks, component scheduling, solving and writing. */
#include "solver/solver.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/counts.h"
#include "common/memory_available.h"
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

int ma_solver_default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > MA_SOLVER_MAX_THREADS ? MA_SOLVER_MAX_THREADS : (int)n;
}

uint64_t ma_solver_component_bytes(uint64_t member_entries, uint64_t child_entries, int cyclic,
                                   int threads)
{
    uint64_t bytes = 2 * member_entries + 2 * child_entries;
    if (cyclic)
        bytes += MA_RETRO_QUEUE_BYTES_PER_ENTRY * member_entries;
    return bytes + (uint64_t)(threads < 1 ? 1 : threads) * MA_SOLVER_THREAD_BYTES;
}

enum { TASK_WAITING, TASK_RUNNING, TASK_DONE };

struct ctx;

/* One component of the plan. */
struct task {
    struct ctx *c;
    ma_svcomponent comp;
    int exists[2];
    int skip;                /* every member's file is already there and intact */
    int forced;              /* the sink wants it solved although its files are there */
    uint64_t member_entries, child_entries;
    int nchildren;
    ma_sv_sector children[MA_RETRO_MAX_CHILDREN];
    int ndeps;
    int deps[MA_RETRO_MAX_CHILDREN]; /* tasks of the plan holding a child */
    int wide;                /* solved alone on every thread */
    uint64_t mem;            /* estimated peak bytes */
    int state;
    int rc;
    ma_error err;
    ma_solver_report rep[2];
    pthread_t tid;
    int has_thread;
};

struct ctx {
    const ma_solver_opts *o;
    ma_svrules rules;
    ma_svindex ix;
    char producer[64];
    ma_error *err;
    int threads;
    uint64_t limit;
    int check_encoding;      /* off only for the depth-in-moves planted bug, whose files break it */
    ma_progress progress;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int running;
    uint64_t mem_running;
};

/* A member whose file was already there and is solved again for the sink: the file must hold
 * exactly the fresh solution (its header's body digest, proven intact before the run started). */
static int same_as_file(const char *path, const uint16_t *vals, uint64_t entries, ma_error *err)
{
    uint8_t want[MA_SVFILE_DIGEST_SIZE], have[MA_SVFILE_DIGEST_SIZE];
    FILE *f = fopen(path, "rb");
    int ok = f && fseek(f, MA_SVFILE_DIGEST_OFFSET, SEEK_SET) == 0 &&
             fread(have, 1, sizeof have, f) == sizeof have;
    if (f)
        fclose(f);
    if (!ok)
        return ma_error_set(err, MA_EIO, "%s: offset %d: cannot read the body digest", path,
                            MA_SVFILE_DIGEST_OFFSET);
    ma_svfile_body_digest(vals, entries, want);
    if (memcmp(want, have, sizeof want))
        return ma_error_set(err, MA_EEXIST,
                            "%s: offset %d: exists but differs from this producer's solution, "
                            "solved again for the Malom files; remove it",
                            path, MA_SVFILE_DIGEST_OFFSET);
    return MA_OK;
}

static int canceled(const struct ctx *c)
{
    return c->o->cancel && atomic_load(c->o->cancel);
}

static int header_for(struct ctx *c, ma_sv_sector s, uint8_t h[MA_SVFILE_HEADER_SIZE],
                      char *path, size_t pathlen, ma_error *err)
{
    if (!c->ix.ready[s.w])
        return ma_error_set(err, MA_EINTERNAL, "solve: index for popcount %d not prepared", s.w);
    ma_svfile_header(h, &c->rules, s, ma_svindex_entry_count(&c->ix, s.w, s.b), c->producer,
                     MA_VERSION);
    return ma_svfile_path(path, pathlen, c->o->out_dir, c->rules.variant, s, err);
}

static int in_plan(const struct task *plan, int n, ma_sv_sector s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < plan[i].comp.n; j++)
            if (ma_svrules_sector_eq(plan[i].comp.s[j], s))
                return i;
    return -1;
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

static void component_name(char *buf, size_t n, const struct ctx *c, const ma_svcomponent *comp)
{
    char name[32];
    ma_svsector_format(name, sizeof name, comp->s[0]);
    snprintf(buf, n, "%s_%s%s", ma_svrules_variant_name(c->rules.variant), name,
             comp->n == 2 ? " (+twin)" : "");
}

/* Loads the children, solves, writes the members that are not there yet. */
static int solve_component(struct task *t, int threads)
{
    struct ctx *c = t->c;
    ma_error *err = &t->err;
    ma_retro_job job;
    memset(&job, 0, sizeof job);
    job.rules = &c->rules;
    job.ix = &c->ix;
    job.cyclic = t->comp.cyclic;
    job.threads = threads;
    job.progress = &c->progress;
    job.cancel = c->o->cancel;
    int rc = MA_OK;
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    char path[4096], label[96];
    double t0 = ma_now();
    component_name(label + 6, sizeof label - 6, c, &t->comp);
    memcpy(label, "solve ", 6);
    ma_progress_set_label(&c->progress, label);
    job.nmembers = t->comp.n;
    for (int i = 0; i < t->comp.n && rc == MA_OK; i++) {
        ma_retro_table *m = &job.members[i];
        m->sector = t->comp.s[i];
        m->entries = ma_svindex_entry_count(&c->ix, m->sector.w, m->sector.b);
        m->vals = malloc((m->entries ? m->entries : 1) * sizeof *m->vals);
        if (!m->vals)
            rc = ma_error_set(err, MA_ENOMEM, "solve: out of memory for %s",
                              MA_COUNT(m->entries, "entry", "entries"));
    }
    for (int k = 0; k < t->nchildren && rc == MA_OK; k++) {
        ma_retro_table *ch = &job.children[job.nchildren++];
        ch->sector = t->children[k];
        rc = header_for(c, ch->sector, h, path, sizeof path, err);
        if (rc != MA_OK)
            break;
        ch->entries = ma_svfile_header_entries(h);
        ch->vals = malloc((ch->entries ? ch->entries : 1) * sizeof *ch->vals);
        if (!ch->vals)
            rc = ma_error_set(err, MA_ENOMEM, "solve: out of memory loading %s", path);
        else
            rc = ma_svfile_read(ch->vals, path, h, c->check_encoding, err);
    }
    const ma_solver_sink *sink = c->o->sink;
    int began = 0;
    double sink_secs = 0;
    if (rc == MA_OK && sink && sink->begin) {
        double s0 = ma_now();
        rc = sink->begin(sink->ctx, &job, threads, err);
        sink_secs = ma_now() - s0; /* the sink's own work, not the solve's */
        began = 1;
        /* the sink names its own steps (reading a child's file); what follows is the solve */
        ma_progress_set_label(&c->progress, label);
    }
    ma_retro_stats stats[2];
    if (rc == MA_OK)
        rc = ma_retro_solve(&job, stats, err);
    double secs = ma_now() - t0 - sink_secs;
    for (int i = 0; i < t->comp.n && rc == MA_OK; i++) {
        ma_retro_table *m = &job.members[i];
        ma_solver_report rep = {m->sector, m->entries, stats[i], secs, t->exists[i], threads,
                                t->mem, job.peak_queue_bytes};
        if (MA_SV_HAS_BUG(&c->rules, MA_SVBUG_DEPTH_IN_MOVES))
            for (uint64_t e = 0; e < m->entries; e++)
                if (m->vals[e] & 0x4000u)
                    m->vals[e] = (uint16_t)((m->vals[e] & 0xC000u) |
                                            (((m->vals[e] & 0x3FFFu) + 1) / 2));
        rc = header_for(c, m->sector, h, path, sizeof path, err);
        if (rc == MA_OK && !t->exists[i])
            rc = ma_svfile_write(path, h, m->vals, c->o->cancel, err);
        else if (rc == MA_OK && t->forced)
            rc = same_as_file(path, m->vals, m->entries, err);
        t->rep[i] = rep;
    }
    if (began) {
        /* the sink's own error wins only when the solve itself went through */
        ma_error scratch;
        int src = sink->end(sink->ctx, &job, threads, rc == MA_OK, rc == MA_OK ? err : &scratch);
        if (rc == MA_OK)
            rc = src;
    }
    for (int i = 0; i < job.nmembers; i++)
        free(job.members[i].vals);
    for (int i = 0; i < job.nchildren; i++)
        free(job.children[i].vals);
    return rc;
}

static void *task_thread(void *arg)
{
    struct task *t = arg;
    struct ctx *c = t->c;
    int rc = solve_component(t, 1);
    pthread_mutex_lock(&c->lock);
    t->rc = rc;
    t->state = TASK_DONE;
    c->running--;
    c->mem_running -= t->mem;
    pthread_cond_broadcast(&c->changed);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

static int deps_done(const struct task *plan, const struct task *t)
{
    for (int i = 0; i < t->ndeps; i++)
        if (plan[t->deps[i]].state != TASK_DONE || plan[t->deps[i]].rc != MA_OK)
            return 0;
    return 1;
}

/* Runs the plan: wide tasks alone on every thread, narrow ones side by side. Reports go out in
 * plan order from this thread. Returns the error of the first failed task in plan order. */
static int dispatch(struct ctx *c, struct task *plan, int n, ma_solver_report_fn fn, void *fnctx)
{
    int emitted = 0, stop = 0, rc = MA_OK;
    ma_error stop_err;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (emitted < n && plan[emitted].state == TASK_DONE && plan[emitted].rc == MA_OK) {
            struct task *t = &plan[emitted++];
            /* a result printed on the terminal must not be glued to the progress line */
            ma_progress_hold(&c->progress);
            for (int j = 0; j < t->comp.n && fn; j++)
                fn(fnctx, &t->rep[j]);
            ma_progress_release(&c->progress);
        }
        if (emitted == n)
            break;
        for (int i = 0; i < n && !stop; i++)
            if (plan[i].state == TASK_DONE && plan[i].rc != MA_OK)
                stop = 1;
        if (!stop && canceled(c)) {
            stop = 1;
            rc = ma_error_set(&stop_err, MA_ECANCELED, "solve: interrupted");
        }
        struct task *pick = NULL;
        for (int i = 0; i < n && !stop && !pick; i++)
            if (plan[i].state == TASK_WAITING && deps_done(plan, &plan[i]))
                pick = &plan[i];
        if (pick && pick->skip) {
            pick->state = TASK_DONE;
            continue;
        }
        if (pick && pick->wide && c->running == 0) {
            pick->state = TASK_RUNNING;
            pthread_mutex_unlock(&c->lock);
            int trc = solve_component(pick, c->threads);
            pthread_mutex_lock(&c->lock);
            pick->rc = trc;
            pick->state = TASK_DONE;
            continue;
        }
        if (pick && !pick->wide && c->running < c->threads &&
            (c->running == 0 || c->mem_running + pick->mem + MA_SOLVER_BASE_BYTES <= c->limit)) {
            pick->state = TASK_RUNNING;
            c->running++;
            c->mem_running += pick->mem;
            if (pthread_create(&pick->tid, NULL, task_thread, pick) == 0) {
                pick->has_thread = 1;
                continue;
            }
            /* No thread to spare: solve it here instead. */
            c->running--;
            c->mem_running -= pick->mem;
            pthread_mutex_unlock(&c->lock);
            int trc = solve_component(pick, 1);
            pthread_mutex_lock(&c->lock);
            pick->rc = trc;
            pick->state = TASK_DONE;
            continue;
        }
        if (c->running == 0) {
            if (!stop)
                rc = ma_error_set(&stop_err, MA_EINTERNAL, "solve: no component can proceed");
            break;
        }
        pthread_cond_wait(&c->changed, &c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    for (int i = 0; i < n; i++)
        if (plan[i].has_thread)
            pthread_join(plan[i].tid, NULL);
    for (int i = 0; i < n; i++)
        if (plan[i].state == TASK_DONE && plan[i].rc != MA_OK) {
            *c->err = plan[i].err;
            return plan[i].rc;
        }
    if (rc != MA_OK)
        *c->err = stop_err;
    return rc;
}

static void add_child(struct task *t, ma_sv_sector s)
{
    for (int j = 0; j < t->comp.n; j++)
        if (ma_svrules_sector_eq(s, t->comp.s[j]))
            return;
    for (int j = 0; j < t->nchildren; j++)
        if (ma_svrules_sector_eq(s, t->children[j]))
            return;
    if (t->nchildren < MA_RETRO_MAX_CHILDREN)
        t->children[t->nchildren] = s;
    t->nchildren++; /* counted past the limit so the plan can refuse it */
}

static int prepare_sector(struct ctx *c, ma_sv_sector s)
{
    int rc = ma_svindex_prepare(&c->ix, s.w, c->err);
    return rc == MA_OK ? ma_svindex_prepare(&c->ix, s.b, c->err) : rc;
}

static void human_bytes(char *buf, size_t n, uint64_t b)
{
    if (b >= ((uint64_t)1 << 30))
        snprintf(buf, n, "%.1f GiB", (double)b / (double)((uint64_t)1 << 30));
    else
        snprintf(buf, n, "%.1f MiB", (double)b / (double)((uint64_t)1 << 20));
}

/* Builds the plan's tasks: members, children, dependencies, memory; prepares the index. */
static int make_plan(struct ctx *c, ma_svcomponent *comps, int ncomp, struct task **out)
{
    struct task *plan = calloc((size_t)(ncomp ? ncomp : 1), sizeof *plan);
    if (!plan)
        return ma_error_set(c->err, MA_ENOMEM, "solve: out of memory");
    int rc = MA_OK;
    for (int i = 0; i < ncomp && rc == MA_OK; i++) {
        struct task *t = &plan[i];
        t->c = c;
        t->comp = comps[i];
        for (int j = 0; j < t->comp.n && rc == MA_OK; j++) {
            rc = prepare_sector(c, t->comp.s[j]);
            if (rc != MA_OK)
                break;
            t->member_entries += ma_svindex_entry_count(&c->ix, t->comp.s[j].w, t->comp.s[j].b);
            ma_sv_sector kids[8];
            int nk = ma_svsector_children(&c->rules, t->comp.s[j], kids, NULL);
            for (int k = 0; k < nk; k++)
                add_child(t, kids[k]);
        }
        if (rc == MA_OK && t->nchildren > MA_RETRO_MAX_CHILDREN)
            rc = ma_error_set(c->err, MA_EINTERNAL, "solve: too many child sectors");
        for (int k = 0; k < t->nchildren && rc == MA_OK; k++) {
            rc = prepare_sector(c, t->children[k]);
            if (rc != MA_OK)
                break;
            t->child_entries += ma_svindex_entry_count(&c->ix, t->children[k].w, t->children[k].b);
            int dep = in_plan(plan, i, t->children[k]);
            if (dep >= 0) {
                int dup = 0;
                for (int d = 0; d < t->ndeps; d++)
                    dup |= t->deps[d] == dep;
                if (!dup)
                    t->deps[t->ndeps++] = dep;
            }
        }
        t->wide = c->threads == 1 || t->member_entries >= MA_SOLVER_WIDE_ENTRIES;
        t->mem = ma_solver_component_bytes(t->member_entries, t->child_entries, t->comp.cyclic,
                                           t->wide ? c->threads : 1);
        const ma_solver_sink *sink = c->o->sink;
        if (rc == MA_OK && sink && sink->plan) {
            uint64_t extra = 0;
            rc = sink->plan(sink->ctx, &t->comp, &t->forced, &extra, c->err);
            t->mem += extra;
        }
    }
    if (rc != MA_OK) {
        free(plan);
        return rc;
    }
    *out = plan;
    return MA_OK;
}

/* Every file the run would read or write, checked before the first is written. */
static int preflight_files(struct ctx *c, struct task *plan, int n)
{
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    char path[4096];
    int rc = MA_OK;
    for (int i = 0; i < n && rc == MA_OK; i++) {
        for (int j = 0; j < plan[i].comp.n && rc == MA_OK; j++) {
            rc = header_for(c, plan[i].comp.s[j], h, path, sizeof path, c->err);
            if (rc == MA_OK)
                rc = ma_svfile_probe(&plan[i].exists[j], path, h, c->check_encoding, c->err);
        }
        plan[i].skip = plan[i].exists[0] && (plan[i].comp.n == 1 || plan[i].exists[1]) &&
                       !plan[i].forced;
        if (plan[i].skip)
            for (int j = 0; j < plan[i].comp.n; j++) {
                ma_solver_report *r = &plan[i].rep[j];
                memset(r, 0, sizeof *r);
                r->sector = plan[i].comp.s[j];
                r->entries = ma_svindex_entry_count(&c->ix, r->sector.w, r->sector.b);
                r->skipped = 1;
                r->stats.max_depth = -1;
            }
    }
    for (int i = 0; i < n && rc == MA_OK; i++) {
        if (plan[i].skip)
            continue;
        for (int k = 0; k < plan[i].nchildren && rc == MA_OK; k++) {
            ma_sv_sector kid = plan[i].children[k];
            if (in_plan(plan, n, kid) >= 0)
                continue;
            int there = 0;
            rc = header_for(c, kid, h, path, sizeof path, c->err);
            if (rc == MA_OK)
                rc = ma_svfile_probe(&there, path, h, c->check_encoding, c->err);
            if (rc == MA_OK && !there) {
                char name[32];
                ma_svsector_format(name, sizeof name, kid);
                rc = ma_error_set(c->err, MA_EMISSING,
                                  "%s: missing child sector %s (solve it first, or use --with-deps)",
                                  path, name);
            }
        }
    }
    return rc;
}

/* Memory of every component and disk space of the whole plan, before anything is written. */
static int preflight_resources(struct ctx *c, struct task *plan, int n)
{
    uint64_t disk = 0;
    for (int i = 0; i < n; i++) {
        struct task *t = &plan[i];
        if (t->skip)
            continue;
        uint64_t need = t->mem + MA_SOLVER_BASE_BYTES;
        if (need > c->limit) {
            char name[64], hn[32], hl[32];
            component_name(name, sizeof name, c, &t->comp);
            human_bytes(hn, sizeof hn, need);
            human_bytes(hl, sizeof hl, c->limit);
            return ma_error_set(c->err, MA_EIO,
                                "sector %s needs %s (%s) of memory, more than the "
                                "%s (%s) available%s; nothing was written",
                                name, MA_COUNT(need, "byte", "bytes"), hn, MA_COUNT(c->limit, "byte", "bytes"), hl,
                                c->o->memory_limit ? " (--memory-limit)" : "");
        }
        for (int j = 0; j < t->comp.n; j++)
            if (!t->exists[j])
                disk += MA_SVFILE_HEADER_SIZE +
                        2 * ma_svindex_entry_count(&c->ix, t->comp.s[j].w, t->comp.s[j].b);
    }
    struct statvfs vfs;
    if (statvfs(c->o->out_dir, &vfs) == 0) {
        uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
        if (disk > avail)
            return ma_error_set(c->err, MA_EIO,
                                "%s: the files need %s on disk, only %s available; "
                                "nothing was written",
                                c->o->out_dir, MA_COUNT(disk, "byte", "bytes"), MA_NUM(avail));
    }
    return MA_OK;
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
    struct task *plan = NULL;
    rc = make_plan(c, all, nplan, &plan);
    free(all);
    if (rc != MA_OK)
        return rc;
    rc = preflight_files(c, plan, nplan);
    if (rc == MA_OK)
        rc = preflight_resources(c, plan, nplan);
    if (rc == MA_OK) {
        int removed = 0;
        char first[256];
        rc = ma_svfile_remove_stale(o->out_dir, &removed, first, sizeof first, c->err);
        if (rc == MA_OK && removed && o->note) {
            char line[512];
            snprintf(line, sizeof line,
                     "removed %s of finished processes (%s%s)",
                     MA_COUNT((uint64_t)removed, "stale temporary file", "stale temporary files"), first,
                     removed > 1 ? ", ..." : "");
            o->note(o->note_ctx, line);
        }
    }
    if (rc == MA_OK) {
        uint64_t total = 0;
        for (int i = 0; i < nplan; i++)
            if (!plan[i].skip)
                total += plan[i].member_entries;
        ma_progress_start(&c->progress, o->progress_out ? o->progress_out : stderr, o->quiet,
                          "solve", total);
        rc = dispatch(c, plan, nplan, fn, fnctx);
        ma_progress_finish(&c->progress, atomic_load(&c->progress.done));
    }
    free(plan);
    return rc;
}

int ma_solver_solve(const ma_solver_opts *o, const ma_sv_sector *targets, int ntargets,
                    int with_deps, ma_solver_report_fn fn, void *fnctx, ma_error *err)
{
    if (o->threads < 0 || o->threads > MA_SOLVER_MAX_THREADS)
        return ma_error_set(err, MA_EINVAL, "solve: --threads %d: expected 1..%d", o->threads,
                            MA_SOLVER_MAX_THREADS);
    struct ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "solve: out of memory");
    ma_error scratch;
    c->o = o;
    c->err = err ? err : &scratch;
    c->threads = o->threads ? o->threads : ma_solver_default_threads();
    c->limit = o->memory_limit ? o->memory_limit : ma_memory_available();
    if (!c->limit)
        c->limit = UINT64_MAX;
    c->check_encoding = !MA_SV_HAS_BUG(o, MA_SVBUG_DEPTH_IN_MOVES);
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    ma_solver_producer_name(c->producer, sizeof c->producer, o->bug);
    int rc = ma_svrules_init(&c->rules, o->variant, o->bug, c->err);
    if (rc == MA_OK)
        rc = ma_svindex_init(&c->ix, c->err);
    if (rc == MA_OK)
        rc = run(c, targets, ntargets, with_deps, fn, fnctx);
    ma_svindex_free(&c->ix);
    pthread_cond_destroy(&c->changed);
    pthread_mutex_destroy(&c->lock);
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
        rc = ma_svfile_read(value, path, h, !MA_SV_HAS_BUG(o, MA_SVBUG_DEPTH_IN_MOVES), err);
    return rc;
}
