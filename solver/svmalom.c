/* svmalom: plan, pre-flight checks and writing of the producer's Malom-format files. */
#include "solver/svmalom.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/huge_alloc.h"
#include "common/progress.h"
#include "ma_version.h"
#include "solver/solver.h"
#include "solver/svfile.h"
#include "solver/svindex.h"
#include "solver/svmalom_file.h"
#include "solver/svmalom_index.h"
#include "solver/svmalom_ultra.h"
#include "solver/svmalom_value.h"
#include "solver/svsector.h"

struct comp_info;

/* Read-only once the solve starts (components run side by side on several threads), except each
 * component's own comp_info, which only the thread running it touches. */
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
    ma_error *err;           /* single-threaded planning only */
    /* comb[op][byte][v]: a byte of a Malom-numbered mask, in the open numbering, moved by open op */
    uint32_t comb[16][3][256];
    uint8_t pop8[256];       /* bits set in a byte */
    struct comp_info *comps;
    int ncomps;
    int threads;
    const atomic_int *cancel;
};

static void sector_name(char *buf, size_t n, const struct ctx *c, ma_sv_sector s)
{
    char id[32];
    ma_svsector_format(id, sizeof id, s);
    snprintf(buf, n, "%s_%s", ma_svrules_variant_name(c->rules.variant), id);
}

/* v(S): the stone difference in STONE_DIFF builds (§5.6), else the .secval value (§5.4). */
static int sector_value(const struct ctx *c, ma_sv_sector s, int *v, ma_error *err)
{
    if (!c->have_secval) {
        *v = (s.w + s.wf) - (s.b + s.bf);
        return MA_OK;
    }
    char name[48];
    sector_name(name, sizeof name, c, s);
    int rc = ma_svm_secval_get(&c->secval, s, v, NULL);
    if (rc != MA_OK)
        return ma_error_set(err, MA_EMISSING,
                            "%s: sector %s: offset 0: not listed in the .secval", c->o->secval,
                            name);
    if (*v <= c->vl || *v >= c->vw)
        return ma_error_set(err, MA_EFORMAT,
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

static int malom_path(const struct ctx *c, char *buf, size_t n, ma_sv_sector s, ma_error *err)
{
    return ma_svm_path(buf, n, c->o->out_dir, c->rules.variant, s, c->layout.kind, err);
}

static void file_name(const struct ctx *c, char *buf, size_t n, ma_sv_sector s)
{
    char name[48];
    sector_name(name, sizeof name, c, s);
    snprintf(buf, n, "%s.%s", name, c->layout.kind == MA_SVM_SEC ? "sec" : "sec2");
}

static uint64_t hash_count(const struct ctx *c, ma_sv_sector s)
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
    for (int v = 0; v < 256; v++)
        c->pop8[v] = (uint8_t)ma_sv_popcount((uint32_t)v);
    for (int op = 0; op < 16 && rc == MA_OK; op++)
        for (int byte = 0; byte < 3; byte++)
            for (uint32_t v = 0; v < 256; v++)
                c->comb[op][byte][v] =
                    ma_svindex_apply(&c->ix, op, ma_svmidx_to_open(&c->mix, v << (8 * byte)));
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
                rc = malom_path(c, path, sizeof path, s, c->err);
            if (rc == MA_OK)
                rc = ma_svm_probe(&exists, path, s, c->layout, hash_count(c, s), c->err);
            if (rc == MA_OK && c->layout.kind == MA_SVM_SEC2)
                rc = sector_value(c, s, &v, c->err);
            if (rc != MA_OK || c->layout.kind != MA_SVM_SEC2)
                continue;
            ma_sv_sector kids[8];
            int nk = ma_svsector_children(&c->rules, s, kids, NULL);
            for (int k = 0; k < nk && rc == MA_OK; k++) {
                rc = sector_value(c, kids[k], &v, c->err);
                if (rc != MA_OK || in_plan(p, n, kids[k]))
                    continue;
                rc = prepare(c, kids[k]);
                if (rc == MA_OK)
                    rc = malom_path(c, path, sizeof path, kids[k], c->err);
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

/* ---- the export inside the solve ----------------------------------------------------------- */

/* One component of the plan, as the export sees it. */
struct comp_info {
    ma_svcomponent comp;
    int exists[2];           /* its Malom file is already there (and valid) */
    int need;                /* some Malom file is missing: the solver must solve it for us */
    int value[2];            /* v(S) of the members */
    ma_svmalom_report rep[2];
    /* while the component runs */
    ma_svm_state *state[2];
    ma_svm_key *keys[MA_RETRO_MAX_CHILDREN];
    double begin_secs;       /* reading the children's files */
};

static struct comp_info *find_comp(struct ctx *c, ma_sv_sector s)
{
    for (int i = 0; i < c->ncomps; i++)
        for (int j = 0; j < c->comps[i].comp.n; j++)
            if (ma_svrules_sector_eq(c->comps[i].comp.s[j], s))
                return &c->comps[i];
    return NULL;
}

/* Work split into units taken from an atomic counter by `threads` threads (the calling thread
 * is one of them); each thread keeps its own scratch and its own first error. */
struct pass {
    struct ctx *c;
    int threads;
    uint64_t units;
    atomic_ullong next;
    atomic_int failed;
    int (*unit)(struct pass *p, int thread, uint64_t u, ma_error *err);
    void *arg;
    pthread_mutex_t lock;
    int rc;
    ma_error err;
};

struct pass_thread {
    struct pass *p;
    int id;
};

static void *pass_main(void *arg)
{
    struct pass_thread *pt = arg;
    struct pass *p = pt->p;
    const atomic_int *cancel = p->c->cancel;
    ma_error err;
    int rc = MA_OK;
    while (rc == MA_OK && !atomic_load(&p->failed)) {
        if (cancel && atomic_load(cancel)) {
            rc = ma_error_set(&err, MA_ECANCELED, "malom export: interrupted");
            break;
        }
        uint64_t u = atomic_fetch_add(&p->next, 1);
        if (u >= p->units)
            break;
        rc = p->unit(p, pt->id, u, &err);
    }
    if (rc != MA_OK) {
        pthread_mutex_lock(&p->lock);
        if (p->rc == MA_OK) {
            p->rc = rc;
            p->err = err;
        }
        pthread_mutex_unlock(&p->lock);
        atomic_store(&p->failed, 1);
    }
    return NULL;
}

static int run_pass(struct pass *p, ma_error *err)
{
    struct pass_thread pts[MA_SOLVER_MAX_THREADS];
    pthread_t tids[MA_SOLVER_MAX_THREADS];
    int n = p->threads < 1 ? 1 : p->threads > MA_SOLVER_MAX_THREADS ? MA_SOLVER_MAX_THREADS
                                                                     : p->threads;
    atomic_init(&p->next, 0);
    atomic_init(&p->failed, 0);
    pthread_mutex_init(&p->lock, NULL);
    p->rc = MA_OK;
    int started = 1;
    for (int i = 0; i < n; i++) {
        pts[i].p = p;
        pts[i].id = i;
    }
    for (int i = 1; i < n; i++) {
        if (pthread_create(&tids[i], NULL, pass_main, &pts[i]) != 0)
            break; /* the threads that did start share the work */
        started++;
    }
    pass_main(&pts[0]);
    for (int i = 1; i < started; i++)
        pthread_join(tids[i], NULL);
    pthread_mutex_destroy(&p->lock);
    if (p->rc != MA_OK && err)
        *err = p->err;
    return p->rc;
}

/* Walking a sector's Malom indices (§4.5 inverse, in index order) and finding for each canonical
 * one the producer's open entry of the same class. Per Malom representative w: its open
 * representative, the op reaching it and that one's stabiliser; the opponent masks come in colex
 * order over the free points of w, each mapped into the open numbering and onto the open
 * representative by one table (comb) before its open rank is taken. */
struct walk {
    const struct ctx *c;
    int w, b;
    uint64_t per_rep;
    /* per representative */
    uint32_t f;
    uint16_t mstab;          /* Malom stabiliser without the identity */
    uint32_t pts[24];
    const uint32_t (*comb)[256];
    uint16_t ostab;          /* open stabiliser without the identity */
    uint64_t obase;          /* open rank * per_rep */
    uint32_t f0, f1, f2;
    int n0, n1;
};

static void walk_rep(struct walk *k, uint32_t f)
{
    const struct ctx *c = k->c;
    const ma_svindex *ix = &c->ix;
    const ma_svmidx *mix = &c->mix;
    k->f = f;
    uint32_t w = mix->reps[k->w][f];
    k->mstab = mix->stab[k->w][f] & 0x7FFFu;
    int n = 0;
    for (uint32_t fr = ~w & 0xFFFFFFu; fr; fr &= fr - 1)
        k->pts[n++] = fr & -fr;
    uint32_t wo = ma_svmidx_to_open(mix, w);
    uint32_t t = ix->mover[k->w][ma_svindex_colex24(ix, wo)];
    uint32_t rank = t >> 4;
    k->comb = c->comb[t & 15];
    k->ostab = ix->stab[k->w][rank] & (uint16_t)~1u;
    k->obase = (uint64_t)rank * k->per_rep;
    uint32_t fr = ~ix->reps[k->w][rank] & MA_SV_FULL;
    k->f0 = fr & 255;
    k->f1 = (fr >> 8) & 255;
    k->f2 = fr >> 16;
    k->n0 = ma_sv_popcount(k->f0);
    k->n1 = k->n0 + ma_sv_popcount(k->f1);
}

/* The open entry of Malom board (w, b) of the current representative. */
static inline uint64_t walk_entry(const struct walk *k, uint32_t b)
{
    const ma_svindex *ix = &k->c->ix;
    uint32_t bo = k->comb[0][b & 255] | k->comb[1][(b >> 8) & 255] | k->comb[2][b >> 16];
    if (k->ostab) {
        uint32_t b1 = bo;
        for (uint32_t fix = k->ostab; fix; fix &= fix - 1) {
            uint32_t img = ma_svindex_apply(ix, __builtin_ctz(fix), b1);
            if (img < bo)
                bo = img;
        }
    }
    uint32_t cm = (uint32_t)ix->pext8[k->f0][bo & 255] |
                  (uint32_t)ix->pext8[k->f1][(bo >> 8) & 255] << k->n0 |
                  (uint32_t)ix->pext8[k->f2][bo >> 16] << k->n1;
    uint32_t c0 = cm & 255, c1 = (cm >> 8) & 255, c2 = cm >> 16;
    int a1 = k->c->pop8[c0], a2 = a1 + k->c->pop8[c1];
    return k->obase + ix->colex_lut[0][c0][0] + ix->colex_lut[1][c1][a1] + ix->colex_lut[2][c2][a2];
}

/* A run of up to WALK_BATCH consecutive indices of the current representative, from colex mask
 * *cm on: per index its open entry, or -(op + 1) for a symmetry marker. Computing a batch before
 * using it lets the entries' per-entry data be prefetched: they are scattered over the open
 * representative's block. */
#define WALK_BATCH 128

static int walk_batch(const struct walk *k, uint32_t *cm, int n, int64_t *out)
{
    const ma_svmidx *mix = &k->c->mix;
    for (int i = 0; i < n; i++) {
        uint32_t b = ma_svindex_spread(k->pts, *cm);
        if (k->b)
            *cm = ma_svindex_colex_next(*cm);
        int op = k->mstab ? ma_svmidx_marker(mix, k->w, k->f, b) : -1;
        out[i] = op >= 0 ? -(int64_t)op - 1 : (int64_t)walk_entry(k, b);
    }
    return n;
}

/* Units of whole representatives, about 64 Ki indices each. */
static uint32_t reps_per_unit(uint64_t per_rep)
{
    return per_rep >= 65536 ? 1 : (uint32_t)(65536 / (per_rep ? per_rep : 1));
}

/* ---- the children's stored values, by open entry (.sec2) ------------------------------------ */

struct child_load {
    ma_sv_sector s;
    int value;
    const uint16_t *vals;    /* the child's open values (loaded by the solver) */
    ma_svm_key *keys;        /* out */
    char path[4200];
    int fd;
    uint64_t count, novf;
    int32_t *ovf;            /* novf pairs */
    uint32_t per_unit;
    uint64_t entry_bytes;
    uint8_t *buf[MA_SOLVER_MAX_THREADS];
};

static void decode2(const ma_svm_layout *l, const uint8_t *p, int *k1, int *k2)
{
    int s = l->entry_bytes, f1 = l->field1_bits, f2 = 8 * s - f1;
    uint32_t raw = 0;
    for (int i = 0; i < s; i++)
        raw |= (uint32_t)p[i] << (8 * i);
    *k1 = (int)(raw & ((1u << f1) - 1));
    *k2 = (int)(raw >> f1);
    if (*k1 >= 1 << (f1 - 1))
        *k1 -= 1 << f1;
    if (*k2 >= 1 << (f2 - 1))
        *k2 -= 1 << f2;
}

static int child_mismatch(struct child_load *cl, uint64_t h, const char *what, ma_error *err)
{
    return ma_error_set(err, MA_EFORMAT,
                        "%s: sector %d_%d_%d_%d: offset %llu: %s; remove the file to have it "
                        "written again",
                        cl->path, cl->s.w, cl->s.b, cl->s.wf, cl->s.bf,
                        (unsigned long long)(MA_SVM_SEC2_HEADER + h * cl->entry_bytes), what);
}

static int load_unit(struct pass *p, int thread, uint64_t u, ma_error *err)
{
    struct child_load *cl = p->arg;
    const struct ctx *c = p->c;
    const ma_svm_layout *l = &c->layout;
    struct walk k = {.c = c, .w = cl->s.w, .b = cl->s.b,
                     .per_rep = ma_svmidx_binom(&c->mix, 24 - cl->s.w, cl->s.b)};
    uint32_t reps = c->mix.rep_count[cl->s.w];
    uint32_t fa = (uint32_t)u * cl->per_unit, fb = fa + cl->per_unit < reps ? fa + cl->per_unit
                                                                             : reps;
    uint64_t h0 = fa * k.per_rep, n = (fb - fa) * k.per_rep;
    size_t s = (size_t)l->entry_bytes;
    uint8_t *buf = cl->buf[thread];
    size_t want = (size_t)n * s, got = 0;
    while (got < want) {
        ssize_t r = pread(cl->fd, buf + got, want - got,
                          (off_t)(MA_SVM_SEC2_HEADER + h0 * s + got));
        if (r <= 0)
            return ma_error_set(err, MA_EIO, "%s: offset %llu: read failed", cl->path,
                                (unsigned long long)(MA_SVM_SEC2_HEADER + h0 * s + got));
        got += (size_t)r;
    }
    int spec = -(1 << (8 * l->entry_bytes - l->field1_bits - 1));
    int64_t at[WALK_BATCH];
    for (uint32_t f = fa; f < fb; f++) {
        walk_rep(&k, f);
        uint32_t cm = cl->s.b ? (1u << cl->s.b) - 1 : 0;
        for (uint64_t g = 0; g < k.per_rep; g += WALK_BATCH) {
            int n = walk_batch(&k, &cm, k.per_rep - g < WALK_BATCH ? (int)(k.per_rep - g)
                                                                    : WALK_BATCH, at);
            for (int i = 0; i < n; i++)
                if (at[i] >= 0) {
                    __builtin_prefetch(&cl->vals[at[i]]);
                    __builtin_prefetch(&cl->keys[at[i]], 1);
                }
            uint64_t h = (uint64_t)f * k.per_rep + g;
            for (int i = 0; i < n; i++, h++) {
                int k1, k2;
                decode2(l, buf + (h - h0) * s, &k1, &k2);
                if (at[i] < 0) {
                    if (k1 != 0 || k2 != at[i])
                        return child_mismatch(cl, h, "not the symmetry marker of this index", err);
                    continue;
                }
                if (k2 == spec) {
                    uint64_t lo = 0, hi = cl->novf;
                    while (lo < hi) {
                        uint64_t mid = (lo + hi) / 2;
                        if ((uint64_t)(uint32_t)cl->ovf[2 * mid] < h)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    if (lo == cl->novf || (uint64_t)(uint32_t)cl->ovf[2 * lo] != h)
                        return child_mismatch(cl, h, "no overflow record for this entry", err);
                    k2 = cl->ovf[2 * lo + 1];
                }
                uint64_t e = (uint64_t)at[i];
                uint16_t v = cl->vals[e];
                int a = k1 + cl->value;
                int win = k1 != 0 && a == c->vw, loss = k1 != 0 && a == c->vl;
                int ok;
                switch (v & 0xC000u) {
                case 0xC000u: ok = win && k2 == (int)(v & 0x3FFFu); break;
                case 0x4000u: ok = loss && k2 == (int)(v & 0x3FFFu); break;
                case 0x8000u: ok = !win && !loss && !(k1 == 0 && k2 < 0); break;
                default: ok = 0;
                }
                if (!ok)
                    return child_mismatch(cl, h,
                                          "holds another value than this producer's solution", err);
                if (k2 < INT16_MIN || k2 > INT16_MAX)
                    return child_mismatch(cl, h, "key2 beyond 16 bits", err);
                cl->keys[e].k1 = (int16_t)k1;
                cl->keys[e].k2 = (int16_t)k2;
            }
        }
    }
    return MA_OK;
}

/* Reads a child's .sec2 (written earlier in this run, or before) into keys by open entry, and
 * checks that it holds exactly this producer's solution of the child (marker, outcome and depth
 * at every index), so a stale or foreign file cannot feed the ranking. */
static int load_child_keys(struct ctx *c, const ma_retro_table *child, int value, int threads,
                           ma_svm_key *keys, ma_error *err)
{
    struct child_load cl;
    memset(&cl, 0, sizeof cl);
    cl.s = child->sector;
    cl.value = value;
    cl.vals = child->vals;
    cl.keys = keys;
    cl.count = hash_count(c, cl.s);
    cl.entry_bytes = (uint64_t)c->layout.entry_bytes;
    int rc = malom_path(c, cl.path, sizeof cl.path, cl.s, err);
    int exists = 0;
    if (rc == MA_OK)
        rc = ma_svm_probe(&exists, cl.path, cl.s, c->layout, cl.count, err);
    if (rc == MA_OK && !exists)
        rc = ma_error_set(err, MA_EMISSING, "%s: sector %d_%d_%d_%d: offset 0: missing child "
                          "sector file", cl.path, cl.s.w, cl.s.b, cl.s.wf, cl.s.bf);
    if (rc != MA_OK)
        return rc;
    cl.fd = open(cl.path, O_RDONLY);
    if (cl.fd < 0)
        return ma_error_set(err, MA_EIO, "%s: cannot open: %s", cl.path, strerror(errno));
    uint64_t body = MA_SVM_SEC2_HEADER + cl.count * (uint64_t)c->layout.entry_bytes;
    uint8_t nb[4];
    if (pread(cl.fd, nb, 4, (off_t)body) != 4)
        rc = ma_error_set(err, MA_EIO, "%s: offset %llu: read failed", cl.path,
                          (unsigned long long)body);
    if (rc == MA_OK) {
        cl.novf = (uint64_t)(uint32_t)(nb[0] | nb[1] << 8 | nb[2] << 16 | (uint32_t)nb[3] << 24);
        cl.ovf = malloc((cl.novf ? cl.novf : 1) * 8);
        if (!cl.ovf)
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", cl.path);
    }
    for (uint64_t i = 0; i < cl.novf && rc == MA_OK; i++) {
        uint8_t r[8];
        if (pread(cl.fd, r, 8, (off_t)(body + 4 + 8 * i)) != 8)
            rc = ma_error_set(err, MA_EIO, "%s: offset %llu: read failed", cl.path,
                              (unsigned long long)(body + 4 + 8 * i));
        else {
            cl.ovf[2 * i] = (int32_t)(r[0] | r[1] << 8 | r[2] << 16 | (uint32_t)r[3] << 24);
            cl.ovf[2 * i + 1] = (int32_t)(r[4] | r[5] << 8 | r[6] << 16 | (uint32_t)r[7] << 24);
            if (i && (uint32_t)cl.ovf[2 * i] <= (uint32_t)cl.ovf[2 * i - 2])
                rc = ma_error_set(err, MA_EFORMAT, "%s: sector %d_%d_%d_%d: offset %llu: "
                                  "overflow record out of order", cl.path, cl.s.w, cl.s.b,
                                  cl.s.wf, cl.s.bf, (unsigned long long)(body + 4 + 8 * i));
        }
    }
    uint64_t per_rep = ma_svmidx_binom(&c->mix, 24 - cl.s.w, cl.s.b);
    cl.per_unit = reps_per_unit(per_rep);
    int n = threads < 1 ? 1 : threads > MA_SOLVER_MAX_THREADS ? MA_SOLVER_MAX_THREADS : threads;
    for (int i = 0; i < n && rc == MA_OK; i++) {
        cl.buf[i] = malloc((size_t)(cl.per_unit * per_rep * (uint64_t)c->layout.entry_bytes) + 1);
        if (!cl.buf[i])
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", cl.path);
    }
    if (rc == MA_OK) {
        uint32_t reps = c->mix.rep_count[cl.s.w];
        struct pass p = {.c = c, .threads = n, .units = (reps + cl.per_unit - 1) / cl.per_unit,
                         .unit = load_unit, .arg = &cl};
        rc = run_pass(&p, err);
    }
    for (int i = 0; i < n; i++)
        free(cl.buf[i]);
    free(cl.ovf);
    close(cl.fd);
    return rc;
}

/* ---- writing a member's Malom file ---------------------------------------------------------- */

struct member_write {
    ma_sv_sector s;
    int value;
    const uint16_t *open;
    const ma_svm_state *state;
    ma_svm_out out;
    uint32_t per_unit;
    ma_svm_image win[MA_SOLVER_MAX_THREADS];
    ma_svmalom_report tally[MA_SOLVER_MAX_THREADS];
    int32_t **unit_ovf;      /* per unit: its overflow records, NULL when none */
    size_t *unit_novf;
};

/* The value a canonical Malom index holds, from the producer's value and (for draws) its state. */
static int put_value(const struct ctx *c, const struct member_write *mw, ma_svm_image *img,
                     uint64_t h, uint64_t e, ma_svmalom_report *rep, ma_error *err)
{
    uint16_t v = mw->open[e];
    int depth = v & 0x3FFF;
    switch (v & 0xC000u) {
    case 0xC000u:
        rep->wins++;
        return img->layout.kind == MA_SVM_SEC ? ma_svm_put_sec_depth(img, h, depth, err)
                                              : ma_svm_put_sec2(img, h, c->vw - mw->value, depth,
                                                                err);
    case 0x4000u:
        rep->losses++;
        return img->layout.kind == MA_SVM_SEC ? ma_svm_put_sec_depth(img, h, depth, err)
                                              : ma_svm_put_sec2(img, h, c->vl - mw->value, depth,
                                                                err);
    case 0x8000u: {
        rep->draws++;
        ma_svm_key k = mw->state[e].key;
        uint16_t count = mw->state[e].count;
        if (img->layout.kind == MA_SVM_SEC || k.k1 == 0 || !(count & MA_SVM_SETTLED)) {
            rep->counts++;
            return ma_svm_put_count(img, h, MA_SVM_COUNT(count), err);
        }
        return ma_svm_put_sec2(img, h, k.k1, k.k2, err);
    }
    default:
        return ma_error_set(err, MA_EINTERNAL, "%s: index %llu: the producer's value 0x%04x is "
                            "not a value", img->name, (unsigned long long)h, v);
    }
}

static int write_unit(struct pass *p, int thread, uint64_t u, ma_error *err)
{
    struct member_write *mw = p->arg;
    const struct ctx *c = p->c;
    struct walk k = {.c = c, .w = mw->s.w, .b = mw->s.b,
                     .per_rep = ma_svmidx_binom(&c->mix, 24 - mw->s.w, mw->s.b)};
    uint32_t reps = c->mix.rep_count[mw->s.w];
    uint32_t fa = (uint32_t)u * mw->per_unit, fb = fa + mw->per_unit < reps ? fa + mw->per_unit
                                                                             : reps;
    ma_svm_image *img = &mw->win[thread];
    ma_svmalom_report *rep = &mw->tally[thread];
    ma_svm_image_reset(img, fa * k.per_rep, (fb - fa) * k.per_rep);
    int rc = MA_OK;
    int64_t at[WALK_BATCH];
    for (uint32_t f = fa; f < fb && rc == MA_OK; f++) {
        walk_rep(&k, f);
        uint32_t cm = mw->s.b ? (1u << mw->s.b) - 1 : 0;
        for (uint64_t g = 0; g < k.per_rep && rc == MA_OK; g += WALK_BATCH) {
            int n = walk_batch(&k, &cm, k.per_rep - g < WALK_BATCH ? (int)(k.per_rep - g)
                                                                    : WALK_BATCH, at);
            for (int i = 0; i < n; i++)
                if (at[i] >= 0) {
                    __builtin_prefetch(&mw->state[at[i]]);
                    __builtin_prefetch(&mw->open[at[i]]);
                }
            uint64_t h = (uint64_t)f * k.per_rep + g;
            for (int i = 0; i < n && rc == MA_OK; i++, h++) {
                if (at[i] < 0) {
                    rep->markers++;
                    rc = ma_svm_put_marker(img, h, (int)(-at[i] - 1), err);
                } else {
                    rc = put_value(c, mw, img, h, (uint64_t)at[i], rep, err);
                }
            }
        }
    }
    if (rc == MA_OK)
        rc = ma_svm_out_put(&mw->out, img, err);
    if (rc == MA_OK && img->novf) {
        mw->unit_ovf[u] = malloc(img->novf * 2 * sizeof *img->ovf);
        if (!mw->unit_ovf[u])
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", img->name);
        memcpy(mw->unit_ovf[u], img->ovf, img->novf * 2 * sizeof *img->ovf);
        mw->unit_novf[u] = img->novf;
    }
    return rc;
}

static int write_member(struct ctx *c, struct comp_info *ci, int j, const ma_retro_table *m,
                        int threads, ma_progress *progress, ma_error *err)
{
    struct member_write *mw = calloc(1, sizeof *mw);
    if (!mw)
        return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    ma_svmalom_report *rep = &ci->rep[j];
    mw->s = m->sector;
    mw->value = ci->value[j];
    mw->open = m->vals;
    mw->state = ci->state[j];
    char path[4200], label[96];
    file_name(c, rep->file, sizeof rep->file, mw->s);
    snprintf(label, sizeof label, "write %s", rep->file);
    ma_progress_set_label(progress, label);
    uint64_t count = hash_count(c, mw->s), per_rep = ma_svmidx_binom(&c->mix, 24 - mw->s.w, mw->s.b);
    uint32_t reps = c->mix.rep_count[mw->s.w];
    mw->per_unit = reps_per_unit(per_rep);
    uint64_t units = (reps + mw->per_unit - 1) / mw->per_unit;
    int n = threads < 1 ? 1 : threads > MA_SOLVER_MAX_THREADS ? MA_SOLVER_MAX_THREADS : threads;
    int rc = malom_path(c, path, sizeof path, mw->s, err);
    mw->unit_ovf = calloc(units ? units : 1, sizeof *mw->unit_ovf);
    mw->unit_novf = calloc(units ? units : 1, sizeof *mw->unit_novf);
    if (rc == MA_OK && (!mw->unit_ovf || !mw->unit_novf))
        rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    int windows = 0;
    for (int i = 0; i < n && rc == MA_OK; i++, windows++)
        rc = ma_svm_image_window(&mw->win[i], c->layout, mw->per_unit * per_rep, rep->file, err);
    int opened = 0;
    if (rc == MA_OK) {
        rc = ma_svm_out_open(&mw->out, path, c->layout, count, err);
        opened = rc == MA_OK;
    }
    if (rc == MA_OK) {
        struct pass p = {.c = c, .threads = n, .units = units, .unit = write_unit, .arg = mw};
        rc = run_pass(&p, err);
    }
    size_t novf = 0;
    for (uint64_t u = 0; u < units && rc == MA_OK; u++)
        novf += mw->unit_novf[u];
    int32_t *ovf = rc == MA_OK ? malloc((novf ? novf : 1) * 2 * sizeof *ovf) : NULL;
    if (rc == MA_OK && !ovf)
        rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    size_t at = 0;
    for (uint64_t u = 0; u < units && rc == MA_OK; u++)
        if (mw->unit_novf[u]) {
            memcpy(ovf + 2 * at, mw->unit_ovf[u], mw->unit_novf[u] * 2 * sizeof *ovf);
            at += mw->unit_novf[u];
        }
    if (rc == MA_OK && c->cancel && atomic_load(c->cancel))
        rc = ma_error_set(err, MA_ECANCELED, "malom export: interrupted");
    if (rc == MA_OK)
        rc = ma_svm_out_close(&mw->out, ovf, novf, err);
    else if (opened)
        ma_svm_out_abort(&mw->out);
    free(ovf);
    if (rc == MA_OK) {
        rep->sector = mw->s;
        rep->entries = count;
        rep->overflow = novf;
        for (int i = 0; i < n; i++) {
            rep->markers += mw->tally[i].markers;
            rep->wins += mw->tally[i].wins;
            rep->losses += mw->tally[i].losses;
            rep->draws += mw->tally[i].draws;
            rep->counts += mw->tally[i].counts;
        }
    }
    for (int i = 0; i < windows; i++)
        ma_svm_image_free(&mw->win[i]);
    for (uint64_t u = 0; mw->unit_ovf && u < units; u++)
        free(mw->unit_ovf[u]);
    free(mw->unit_ovf);
    free(mw->unit_novf);
    free(mw);
    return rc;
}

/* ---- the sink ------------------------------------------------------------------------------- */

static void free_component(struct comp_info *ci)
{
    for (int j = 0; j < 2; j++) {
        free(ci->state[j]);
        ci->state[j] = NULL;
    }
    for (int i = 0; i < MA_RETRO_MAX_CHILDREN; i++) {
        free(ci->keys[i]);
        ci->keys[i] = NULL;
    }
}

/* Bytes the export holds beside the solver while a component runs (docs/solver.md "Memory"). */
static uint64_t export_bytes(const struct ctx *c, const ma_svcomponent *comp, int threads)
{
    uint64_t members = 0, children = 0, window = 0;
    for (int j = 0; j < comp->n; j++) {
        ma_sv_sector s = comp->s[j];
        members += ma_svindex_entry_count(&c->ix, s.w, s.b);
        uint64_t per_rep = ma_svmidx_binom(&c->mix, 24 - s.w, s.b);
        uint64_t w = reps_per_unit(per_rep) * per_rep * 3;
        window = w > window ? w : window;
        ma_sv_sector kids[8];
        int nk = ma_svsector_children(&c->rules, s, kids, NULL);
        for (int k = 0; k < nk && c->layout.kind == MA_SVM_SEC2; k++)
            children += ma_svindex_entry_count(&c->ix, kids[k].w, kids[k].b);
    }
    /* the states, the ranking's bitmap of settled entries (a bit each), the children's keys */
    return sizeof(ma_svm_state) * members + (members + 63) / 64 * 8 + 16 +
           sizeof(ma_svm_key) * children + (uint64_t)(threads < 1 ? 1 : threads) * window;
}

static int sink_plan(void *ctx, const ma_svcomponent *comp, int *solve, uint64_t *bytes,
                     ma_error *err)
{
    (void)err;
    struct ctx *c = ctx;
    struct comp_info *ci = find_comp(c, comp->s[0]);
    *solve = ci && ci->need;
    *bytes = ci && ci->need ? export_bytes(c, comp, c->threads) : 0;
    return MA_OK;
}

static int sink_begin(void *ctx, ma_retro_job *job, int threads, ma_error *err)
{
    struct ctx *c = ctx;
    struct comp_info *ci = find_comp(c, job->members[0].sector);
    if (!ci || !ci->need)
        return MA_OK;
    double t0 = ma_now();
    int rc = MA_OK;
    for (int j = 0; j < job->nmembers && rc == MA_OK; j++) {
        ma_retro_table *m = &job->members[j];
        m->value = ci->value[j];
        /* read at random, one entry per predecessor or successor: on 4 KiB pages nearly every
         * such read would also miss the TLB */
        ci->state[j] = ma_huge_alloc(m->entries * sizeof *ci->state[j]);
        m->state = ci->state[j];
        if (!m->state)
            rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    }
    for (int i = 0; i < job->nchildren && rc == MA_OK && c->layout.kind == MA_SVM_SEC2; i++) {
        ma_retro_table *ch = &job->children[i];
        rc = sector_value(c, ch->sector, &ch->value, err);
        if (rc != MA_OK)
            break;
        ci->keys[i] = ma_huge_alloc(ch->entries * sizeof *ci->keys[i]);
        if (!ci->keys[i]) {
            rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
            break;
        }
        char label[96], name[48];
        sector_name(name, sizeof name, c, ch->sector);
        snprintf(label, sizeof label, "read %s.sec2", name);
        ma_progress_set_label(job->progress, label);
        rc = load_child_keys(c, ch, ch->value, threads, ci->keys[i], err);
        ch->keys = ci->keys[i];
    }
    ci->begin_secs = ma_now() - t0;
    return rc;
}

static int sink_end(void *ctx, ma_retro_job *job, int threads, int solved, ma_error *err)
{
    struct ctx *c = ctx;
    struct comp_info *ci = find_comp(c, job->members[0].sector);
    if (!ci || !ci->need)
        return MA_OK;
    int rc = MA_OK;
    if (solved) {
        for (int i = 0; i < job->nchildren; i++) {
            job->children[i].keys = NULL;
            free(ci->keys[i]); /* the ranking needs only the members */
            ci->keys[i] = NULL;
        }
        ma_svm_rank_job rj;
        memset(&rj, 0, sizeof rj);
        rj.rules = &c->rules;
        rj.ix = &c->ix;
        rj.cyclic = ci->comp.cyclic;
        rj.nmembers = job->nmembers;
        rj.threads = threads;
        rj.cancel = c->cancel;
        rj.progress = job->progress;
        for (int j = 0; j < job->nmembers; j++) {
            rj.members[j].sector = job->members[j].sector;
            rj.members[j].entries = job->members[j].entries;
            rj.members[j].open = job->members[j].vals;
            rj.members[j].state = ci->state[j];
        }
        ma_svm_rank_stats st;
        double tr = ma_now();
        int sec2 = c->layout.kind == MA_SVM_SEC2; /* a .sec stores no draw ranks */
        if (sec2)
            rc = ma_svm_rank(&rj, &st, err);
        /* the export's part of the component, shared by its members: reading the children's
         * files and ranking the draws */
        double ranked = ma_now() - tr, prep = ci->begin_secs + ranked;
        for (int j = 0; j < job->nmembers && rc == MA_OK; j++) {
            if (ci->exists[j])
                continue;
            double t1 = ma_now();
            rc = write_member(c, ci, j, &job->members[j], threads, job->progress, err);
            ci->rep[j].seconds = ma_now() - t1 + prep / job->nmembers;
            ci->rep[j].rank_seconds = sec2 ? ranked / job->nmembers : -1;
        }
    }
    for (int j = 0; j < job->nmembers; j++)
        job->members[j].state = NULL;
    for (int i = 0; i < job->nchildren; i++)
        job->children[i].keys = NULL;
    free_component(ci);
    return rc;
}

int ma_svmalom_export(const ma_svmalom_opts *o, const ma_sv_sector *targets, int ntargets,
                      int with_deps, ma_svmalom_report_fn fn, void *fnctx, ma_error *err)
{
    struct ctx *c = calloc(1, sizeof *c);
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
    if (rc == MA_OK) {
        c->comps = calloc((size_t)(n ? n : 1), sizeof *c->comps);
        c->ncomps = n;
        if (!c->comps)
            rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    }
    char path[4200];
    for (int i = 0; i < n && rc == MA_OK; i++) {
        struct comp_info *ci = &c->comps[i];
        ci->comp = p[i];
        for (int j = 0; j < p[i].n && rc == MA_OK; j++) {
            ma_sv_sector s = p[i].s[j];
            ci->rep[j].sector = s;
            ci->rep[j].entries = hash_count(c, s);
            file_name(c, ci->rep[j].file, sizeof ci->rep[j].file, s);
            rc = malom_path(c, path, sizeof path, s, err);
            if (rc == MA_OK)
                rc = ma_svm_probe(&ci->exists[j], path, s, c->layout, hash_count(c, s), err);
            if (rc == MA_OK)
                rc = c->layout.kind == MA_SVM_SEC2 ? sector_value(c, s, &ci->value[j], err)
                                                   : MA_OK;
            ci->rep[j].skipped = ci->exists[j];
            ci->need |= !ci->exists[j];
        }
    }
    if (rc == MA_OK) {
        ma_solver_opts so;
        if (o->solver)
            so = *o->solver;
        else {
            memset(&so, 0, sizeof so);
            so.quiet = o->quiet;
            so.progress_out = o->progress_out;
        }
        so.variant = o->variant;
        so.bug = o->bug;
        so.out_dir = o->open_dir;
        c->threads = so.threads ? so.threads : ma_solver_default_threads();
        c->cancel = so.cancel;
        ma_solver_sink sink = {c, sink_plan, sink_begin, sink_end};
        so.sink = &sink;
        rc = ma_solver_solve(&so, targets, ntargets, with_deps, o->solver_report, o->solver_ctx,
                             err);
    }
    for (int i = 0; i < n && rc == MA_OK && fn; i++)
        for (int j = 0; j < c->comps[i].comp.n; j++)
            fn(fnctx, &c->comps[i].rep[j]);
    for (int i = 0; c->comps && i < n; i++)
        free_component(&c->comps[i]);
    free(c->comps);
    free(p);
    ctx_free(c);
    free(c);
    return rc;
}
