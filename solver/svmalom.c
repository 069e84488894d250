/* svmalom: plan, pre-flight checks and writing of the producer's Malom-format files. */
#include "solver/svmalom.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/progress.h"
#include "ma_version.h"
#include "solver/solver.h"
#include "solver/svfile.h"
#include "solver/svindex.h"
#include "solver/svmalom_file.h"
#include "solver/svmalom_index.h"
#include "solver/svmalom_ultra.h"
#include "solver/svsector.h"

struct ctx {
    const ma_svmalom_opts *o;
    ma_svrules rules;
    ma_svindex ix;
    ma_svmidx mix;
    ma_svm_secval secval;
    int have_secval;
    ma_svm_layout layout;
    int vw, vl;
    char producer[64];
    ma_error *err;
};

static void sector_name(char *buf, size_t n, const struct ctx *c, ma_sv_sector s)
{
    char id[32];
    ma_svsector_format(id, sizeof id, s);
    snprintf(buf, n, "%s_%s", ma_svrules_variant_name(c->rules.variant), id);
}

/* v(S): the stone difference in STONE_DIFF builds (§5.6), else the .secval value (§5.4). */
static int sector_value(struct ctx *c, ma_sv_sector s, int *v)
{
    if (!c->have_secval) {
        *v = (s.w + s.wf) - (s.b + s.bf);
        return MA_OK;
    }
    char name[48];
    sector_name(name, sizeof name, c, s);
    int rc = ma_svm_secval_get(&c->secval, s, v, NULL);
    if (rc != MA_OK)
        return ma_error_set(c->err, MA_EMISSING,
                            "%s: sector %s: offset 0: not listed in the .secval", c->o->secval,
                            name);
    if (*v <= c->vl || *v >= c->vw)
        return ma_error_set(c->err, MA_EFORMAT,
                            "%s: sector %s: offset 0: value %d is not between virt_loss_val and "
                            "virt_win_val",
                            c->o->secval, name, *v);
    return MA_OK;
}

static int prepare(struct ctx *c, ma_sv_sector s)
{
    int rc = ma_svindex_prepare(&c->ix, s.w, c->err);
    if (rc == MA_OK)
        rc = ma_svindex_prepare(&c->ix, s.b, c->err);
    if (rc == MA_OK)
        rc = ma_svmidx_prepare(&c->mix, s.w, c->err);
    if (rc == MA_OK)
        rc = ma_svmidx_prepare(&c->mix, s.b, c->err);
    return rc;
}

static int malom_path(struct ctx *c, char *buf, size_t n, ma_sv_sector s)
{
    return ma_svm_path(buf, n, c->o->out_dir, c->rules.variant, s, c->layout.kind, c->err);
}

static void file_name(struct ctx *c, char *buf, size_t n, ma_sv_sector s)
{
    char name[48];
    sector_name(name, sizeof name, c, s);
    snprintf(buf, n, "%s.%s", name, c->layout.kind == MA_SVM_SEC ? "sec" : "sec2");
}

static uint64_t hash_count(struct ctx *c, ma_sv_sector s)
{
    return ma_svmidx_count(&c->mix, s.w, s.b);
}

static int check_out_dir(const char *dir, ma_error *err)
{
    struct stat st;
    if (!dir || !*dir)
        return ma_error_set(err, MA_EINVAL, "no output directory given");
    if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0777) != 0 || stat(dir, &st) != 0))
        return ma_error_set(err, MA_EIO, "%s: output directory not usable: %s", dir,
                            strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ma_error_set(err, MA_EIO, "%s: output directory is not a directory", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ma_error_set(err, MA_EIO, "%s: output directory not writable: %s", dir,
                            strerror(errno));
    return MA_OK;
}

static int ctx_init(struct ctx *c, const ma_svmalom_opts *o, ma_error *err)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    c->err = err;
    int rc = ma_svrules_init(&c->rules, o->variant, o->bug, err);
    if (rc != MA_OK)
        return rc;
    if (o->kind != MA_SVM_SEC && o->kind != MA_SVM_SEC2)
        return ma_error_set(err, MA_EINVAL, "malom export: unknown file kind %d", o->kind);
    if (o->kind == MA_SVM_SEC2 && o->bug != MA_SVBUG_NONE)
        return ma_error_set(err, MA_EINVAL,
                            "malom export: planted bugs are only written as .sec (a .sec2 ranks "
                            "draws by the true rules)");
    if (o->kind == MA_SVM_SEC && o->secval)
        return ma_error_set(err, MA_EINVAL, "malom export: a .secval applies to .sec2 only");
    ma_solver_producer_name(c->producer, sizeof c->producer, o->bug);
    c->layout = ma_svm_layout_for(o->kind, o->secval == NULL, o->variant);
    c->vw = c->rules.stones + 1; /* STONE_DIFF: N + 1 (§5.6) */
    c->vl = -c->vw;
    if (o->kind == MA_SVM_SEC2 && o->secval) {
        rc = ma_svm_secval_read(&c->secval, o->secval, err);
        if (rc != MA_OK)
            return rc;
        c->have_secval = 1;
        c->vw = c->secval.virt_win;
        c->vl = c->secval.virt_loss;
    }
    rc = ma_svindex_init(&c->ix, err);
    if (rc == MA_OK)
        rc = ma_svmidx_init(&c->mix, err);
    return rc;
}

static void ctx_free(struct ctx *c)
{
    ma_svindex_free(&c->ix);
    ma_svmidx_free(&c->mix);
    ma_svm_secval_free(&c->secval);
}

/* The components to write, children first (the same plan as ma_solver_solve). */
static int plan(struct ctx *c, const ma_sv_sector *targets, int ntargets, int with_deps,
                ma_svcomponent **out, int *nout)
{
    for (int i = 0; i < ntargets; i++)
        if (!ma_svrules_sector_valid(&c->rules, targets[i])) {
            char name[32];
            ma_svsector_format(name, sizeof name, targets[i]);
            return ma_error_set(c->err, MA_EINVAL, "sector %s is not valid for %s", name,
                                ma_svrules_variant_name(c->rules.variant));
        }
    ma_svcomponent *all = NULL;
    int nall = 0;
    int rc = ma_svsector_order(&c->rules, targets, ntargets, &all, &nall, c->err);
    if (rc != MA_OK)
        return rc;
    int n = 0;
    for (int i = 0; i < nall; i++) {
        int keep = with_deps;
        for (int t = 0; t < ntargets && !keep; t++)
            for (int j = 0; j < all[i].n; j++)
                keep |= ma_svrules_sector_eq(all[i].s[j], targets[t]);
        if (keep)
            all[n++] = all[i];
    }
    *out = all;
    *nout = n;
    return MA_OK;
}

static int in_plan(const ma_svcomponent *p, int n, ma_sv_sector s)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < p[i].n; j++)
            if (ma_svrules_sector_eq(p[i].s[j], s))
                return 1;
    return 0;
}

/* Copies the .secval into the output directory as <variant>.secval (the published layout, where
 * readers look for it), unless an identical one is there already. */
static int place_secval(struct ctx *c, int write)
{
    char dst[4200];
    snprintf(dst, sizeof dst, "%s/%s.secval", c->o->out_dir,
             ma_svrules_variant_name(c->rules.variant));
    FILE *f = fopen(c->o->secval, "rb");
    if (!f)
        return ma_error_set(c->err, MA_EMISSING, "%s: cannot open: %s", c->o->secval,
                            strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 > cap) {
            cap = cap ? 2 * cap : 1 << 17;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return ma_error_set(c->err, MA_ENOMEM, "%s: out of memory", c->o->secval);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 65536, f);
        n += got;
        if (!got)
            break;
    }
    fclose(f);
    int rc = MA_OK;
    FILE *g = fopen(dst, "rb");
    if (g) {
        int same = 1;
        size_t i = 0;
        int ch;
        while ((ch = fgetc(g)) != EOF && same) {
            if (i >= n || (unsigned char)buf[i] != ch)
                same = 0;
            i++;
        }
        same = same && i == n;
        fclose(g);
        if (!same)
            rc = ma_error_set(c->err, MA_EEXIST,
                              "%s: offset %zu: exists and differs from %s; remove it", dst,
                              i ? i - 1 : 0, c->o->secval);
    } else if (write) {
        rc = ma_svm_write_atomic(dst, buf, n, NULL, 0, c->err);
    }
    free(buf);
    return rc;
}

static int check_plan(struct ctx *c, const ma_svcomponent *p, int n)
{
    int rc = MA_OK;
    char path[4200];
    for (int i = 0; i < n && rc == MA_OK; i++)
        for (int j = 0; j < p[i].n && rc == MA_OK; j++) {
            ma_sv_sector s = p[i].s[j];
            int exists, v;
            rc = prepare(c, s);
            if (rc == MA_OK)
                rc = malom_path(c, path, sizeof path, s);
            if (rc == MA_OK)
                rc = ma_svm_probe(&exists, path, s, c->layout, hash_count(c, s), c->err);
            if (rc == MA_OK && c->layout.kind == MA_SVM_SEC2)
                rc = sector_value(c, s, &v);
            if (rc != MA_OK || c->layout.kind != MA_SVM_SEC2)
                continue;
            ma_sv_sector kids[8];
            int nk = ma_svsector_children(&c->rules, s, kids, NULL);
            for (int k = 0; k < nk && rc == MA_OK; k++) {
                rc = sector_value(c, kids[k], &v);
                if (rc != MA_OK || in_plan(p, n, kids[k]))
                    continue;
                rc = prepare(c, kids[k]);
                if (rc == MA_OK)
                    rc = malom_path(c, path, sizeof path, kids[k]);
                if (rc == MA_OK)
                    rc = ma_svm_probe(&exists, path, kids[k], c->layout, hash_count(c, kids[k]),
                                      c->err);
                if (rc == MA_OK && !exists) {
                    char name[48];
                    sector_name(name, sizeof name, c, kids[k]);
                    rc = ma_error_set(c->err, MA_EMISSING,
                                      "%s: missing child sector %s (write it first, or use "
                                      "--with-deps)",
                                      path, name);
                }
            }
        }
    if (rc == MA_OK && c->have_secval)
        rc = place_secval(c, 0);
    return rc;
}

int ma_svmalom_check(const ma_svmalom_opts *o, const ma_sv_sector *targets, int ntargets,
                     int with_deps, ma_error *err)
{
    struct ctx *c = malloc(sizeof *c);
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    int rc = ctx_init(c, o, err);
    if (rc == MA_OK)
        rc = check_out_dir(o->out_dir, err);
    struct stat so, sm;
    /* A directory holding .mdb files is read as an open database by every command: the Malom
     * files need a directory of their own. */
    if (rc == MA_OK && o->open_dir && stat(o->open_dir, &so) == 0 && stat(o->out_dir, &sm) == 0 &&
        so.st_dev == sm.st_dev && so.st_ino == sm.st_ino)
        rc = ma_error_set(err, MA_EINVAL,
                          "%s: the open files (--open-dir) and the Malom files need separate "
                          "directories",
                          o->out_dir);
    ma_svcomponent *p = NULL;
    int n = 0;
    if (rc == MA_OK)
        rc = plan(c, targets, ntargets, with_deps, &p, &n);
    if (rc == MA_OK)
        rc = check_plan(c, p, n);
    free(p);
    ctx_free(c);
    free(c);
    return rc;
}

static int load_open(struct ctx *c, ma_sv_sector s, uint16_t **vals, uint64_t *entries)
{
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    char path[4200];
    *entries = ma_svindex_entry_count(&c->ix, s.w, s.b);
    ma_svfile_header(h, &c->rules, s, *entries, c->producer, MA_VERSION);
    int rc = ma_svfile_path(path, sizeof path, c->o->open_dir, c->rules.variant, s, c->err);
    if (rc != MA_OK)
        return rc;
    *vals = malloc((*entries ? *entries : 1) * sizeof **vals);
    if (!*vals)
        return ma_error_set(c->err, MA_ENOMEM, "%s: out of memory", path);
    return ma_svfile_read(*vals, path, h, c->o->bug != MA_SVBUG_DEPTH_IN_MOVES, c->err);
}

/* The value a canonical Malom index holds, from the producer's open value (and, for .sec2, the
 * ranked draw keys). */
static int put_value(struct ctx *c, ma_svm_image *img, uint64_t h, uint16_t v, const ma_svm_key *k,
                     ma_svmalom_report *rep)
{
    unsigned outcome = v & 0xC000u;
    int depth = v & 0x3FFF;
    if (outcome == 0xC000u)
        rep->wins++;
    else if (outcome == 0x4000u)
        rep->losses++;
    else if (outcome == 0x8000u)
        rep->draws++;
    else
        return ma_error_set(c->err, MA_EINTERNAL, "%s: index %llu: the producer's value 0x%04x is "
                            "not a value", img->name, (unsigned long long)h, v);
    if (img->layout.kind == MA_SVM_SEC) {
        if (outcome == 0x8000u) {
            rep->counts++;
            return ma_svm_put_count(img, h, k->k2, c->err);
        }
        return ma_svm_put_sec_depth(img, h, depth, c->err);
    }
    if (k->k1 == 0) {
        rep->counts++;
        return ma_svm_put_count(img, h, k->k2, c->err);
    }
    return ma_svm_put_sec2(img, h, k->k1, k->k2, c->err);
}

/* Walks every Malom index of sector s in order: markers where §4.6 puts them, values elsewhere. */
static int write_sector(struct ctx *c, ma_sv_sector s, const uint16_t *open, const ma_svm_key *keys,
                        ma_svmalom_report *rep)
{
    char path[4200], name[48];
    int rc = malom_path(c, path, sizeof path, s);
    if (rc != MA_OK)
        return rc;
    file_name(c, rep->file, sizeof rep->file, s);
    sector_name(name, sizeof name, c, s);
    ma_svm_image img;
    uint64_t count = hash_count(c, s);
    rc = ma_svm_image_init(&img, c->layout, count, rep->file, c->err);
    if (rc != MA_OK)
        return rc;
    rep->entries = count;
    const ma_svmidx *mix = &c->mix;
    uint64_t per_rep = ma_svmidx_binom(mix, 24 - s.w, s.b);
    ma_progress pr;
    char label[96];
    snprintf(label, sizeof label, "write %s", rep->file);
    ma_progress_start(&pr, c->o->progress_out ? c->o->progress_out : stderr, c->o->quiet, label,
                      count);
    for (uint32_t f = 0; f < mix->rep_count[s.w] && rc == MA_OK; f++) {
        uint32_t w = mix->reps[s.w][f];
        uint32_t wo = ma_svmidx_to_open(mix, w);
        uint32_t pts[24];
        int k = 0;
        for (uint32_t fr = ~w & 0xFFFFFFu; fr; fr &= fr - 1)
            pts[k++] = fr & -fr;
        uint32_t cm = s.b ? (1u << s.b) - 1 : 0;
        /* B-subsets of the free points in colex order = increasing compressed mask = index order */
        for (uint64_t g = 0; g < per_rep && rc == MA_OK; g++) {
            uint64_t h = (uint64_t)f * per_rep + g;
            uint32_t b = ma_svindex_spread(pts, cm);
            if (s.b)
                cm = ma_svindex_colex_next(cm);
            int op = ma_svmidx_marker(mix, s.w, f, b);
            if (op >= 0) {
                rep->markers++;
                rc = ma_svm_put_marker(&img, h, op, c->err);
                continue;
            }
            uint64_t e = ma_svindex_entry(&c->ix, wo, ma_svmidx_to_open(mix, b));
            rc = put_value(c, &img, h, open[e], &keys[e], rep);
        }
        ma_progress_update(&pr, (uint64_t)(f + 1) * per_rep);
    }
    ma_progress_finish(&pr, img.next);
    rep->overflow = img.novf;
    if (rc == MA_OK)
        rc = ma_svm_image_write(&img, path, c->err);
    ma_svm_image_free(&img);
    return rc;
}

static int export_component(struct ctx *c, const ma_svcomponent *comp, ma_svmalom_report_fn fn,
                            void *fnctx)
{
    double t0 = ma_now();
    int exists[2] = {0, 0}, rc = MA_OK;
    char path[4200];
    for (int j = 0; j < comp->n && rc == MA_OK; j++) {
        rc = prepare(c, comp->s[j]);
        if (rc == MA_OK)
            rc = malom_path(c, path, sizeof path, comp->s[j]);
        if (rc == MA_OK)
            rc = ma_svm_probe(&exists[j], path, comp->s[j], c->layout, hash_count(c, comp->s[j]),
                              c->err);
    }
    if (rc != MA_OK)
        return rc;
    if (exists[0] && (comp->n == 1 || exists[1])) {
        for (int j = 0; j < comp->n && fn; j++) {
            ma_svmalom_report rep;
            memset(&rep, 0, sizeof rep);
            rep.sector = comp->s[j];
            rep.entries = hash_count(c, comp->s[j]);
            rep.skipped = 1;
            file_name(c, rep.file, sizeof rep.file, comp->s[j]);
            fn(fnctx, &rep);
        }
        return MA_OK;
    }
    ma_svm_ultra_job job;
    memset(&job, 0, sizeof job);
    ma_svm_reader readers[MA_SVM_MAX_CHILDREN];
    memset(readers, 0, sizeof readers);
    uint16_t *open[2] = {NULL, NULL};
    ma_svm_key *keys[2] = {NULL, NULL};
    ma_svm_ultra_stats ust;
    memset(&ust, 0, sizeof ust);
    for (int j = 0; j < comp->n && rc == MA_OK; j++) {
        uint64_t entries;
        rc = load_open(c, comp->s[j], &open[j], &entries);
        if (rc != MA_OK)
            continue;
        ma_svm_member *m = &job.members[job.nmembers++];
        m->sector = comp->s[j];
        m->entries = entries;
        m->open = open[j];
        rc = sector_value(c, comp->s[j], &m->value);
        keys[j] = malloc((entries ? entries : 1) * sizeof *keys[j]);
        m->keys = keys[j];
        if (rc == MA_OK && !keys[j])
            rc = ma_error_set(c->err, MA_ENOMEM, "malom export: out of memory");
    }
    if (rc == MA_OK) {
        job.rules = &c->rules;
        job.ix = &c->ix;
        job.mix = &c->mix;
        job.vw = c->vw;
        job.vl = c->vl;
        job.cyclic = comp->cyclic;
        job.counts_only = c->layout.kind == MA_SVM_SEC;
        job.quiet = c->o->quiet;
        job.progress_out = c->o->progress_out;
        for (int j = 0; j < comp->n && rc == MA_OK && !job.counts_only; j++) {
            ma_sv_sector kids[8];
            int nk = ma_svsector_children(&c->rules, comp->s[j], kids, NULL);
            for (int k = 0; k < nk && rc == MA_OK; k++) {
                int dup = 0;
                for (int i = 0; i < comp->n; i++)
                    dup |= ma_svrules_sector_eq(kids[k], comp->s[i]);
                for (int i = 0; i < job.nchildren; i++)
                    dup |= ma_svrules_sector_eq(kids[k], job.children[i].sector);
                if (dup)
                    continue;
                if (job.nchildren == MA_SVM_MAX_CHILDREN) {
                    rc = ma_error_set(c->err, MA_EINTERNAL, "malom export: too many child sectors");
                    break;
                }
                ma_svm_child *ch = &job.children[job.nchildren];
                ch->sector = kids[k];
                rc = prepare(c, kids[k]);
                if (rc == MA_OK)
                    rc = sector_value(c, kids[k], &ch->value);
                if (rc == MA_OK)
                    rc = malom_path(c, path, sizeof path, kids[k]);
                if (rc == MA_OK)
                    rc = ma_svm_reader_open(&readers[job.nchildren], path, kids[k], c->layout,
                                            hash_count(c, kids[k]), c->err);
                if (rc == MA_OK)
                    ch->file = &readers[job.nchildren++];
            }
        }
        if (rc == MA_OK)
            rc = ma_svm_ultra_solve(&job, &ust, c->err);
    }
    double prep = ma_now() - t0;
    for (int j = 0; j < comp->n && rc == MA_OK; j++) {
        ma_svmalom_report rep;
        memset(&rep, 0, sizeof rep);
        rep.sector = comp->s[j];
        double t1 = ma_now();
        if (exists[j]) {
            rep.entries = hash_count(c, comp->s[j]);
            rep.skipped = 1;
            file_name(c, rep.file, sizeof rep.file, comp->s[j]);
        } else {
            rc = write_sector(c, comp->s[j], open[j], keys[j], &rep);
        }
        rep.seconds = ma_now() - t1 + prep / comp->n;
        if (rc == MA_OK && fn)
            fn(fnctx, &rep);
    }
    for (int j = 0; j < 2; j++) {
        free(open[j]);
        free(keys[j]);
    }
    for (int i = 0; i < job.nchildren; i++)
        ma_svm_reader_close(&readers[i]);
    return rc;
}

int ma_svmalom_export(const ma_svmalom_opts *o, const ma_sv_sector *targets, int ntargets,
                      int with_deps, ma_svmalom_report_fn fn, void *fnctx, ma_error *err)
{
    struct ctx *c = malloc(sizeof *c);
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    int rc = ctx_init(c, o, err);
    if (rc == MA_OK)
        rc = check_out_dir(o->out_dir, err);
    ma_svcomponent *p = NULL;
    int n = 0;
    if (rc == MA_OK)
        rc = plan(c, targets, ntargets, with_deps, &p, &n);
    if (rc == MA_OK)
        rc = check_plan(c, p, n);
    if (rc == MA_OK && c->have_secval)
        rc = place_secval(c, 1);
    for (int i = 0; i < n && rc == MA_OK; i++)
        rc = export_component(c, &p[i], fn, fnctx);
    free(p);
    ctx_free(c);
    free(c);
    return rc;
}
