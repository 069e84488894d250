/*
 * Position-by-position comparison of two sector files (verifier/diff.h).
 */
#include "verifier/diff.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/sha256.h"
#include "common/progress.h"
#include "formats/malom_file.h"
#include "formats/open_file.h"

#define MAX_THREADS 64

static const char *const class_names[MA_DIFF_CLASSES] = {"outcome", "depth", "draw-class",
                                                         "encoding"};

const char *ma_diff_class_name(int cls)
{
    return (cls >= 0 && cls < MA_DIFF_CLASSES) ? class_names[cls] : "?";
}

const char *ma_diff_format_name(ma_diff_format f)
{
    switch (f) {
    case MA_DIFF_OPEN: return "open";
    case MA_DIFF_SEC2: return "malom-sec2";
    case MA_DIFF_SEC: return "malom-sec";
    }
    return "?";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int ma_diff_source_parse(ma_diff_source *out, const char *path, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (strlen(path) >= sizeof out->path)
        return ma_error_set(err, MA_EINVAL, "%s: path too long", path);
    snprintf(out->path, sizeof out->path, "%s", path);
    const char *name = base_name(path);
    size_t len = strlen(name);
    if (len > 4 && strcmp(name + len - 4, ".mdb") == 0) {
        if (ma_open_file_name_parse(name, &out->variant, &out->sector) == MA_OK) {
            out->format = MA_DIFF_OPEN;
            return MA_OK;
        }
    } else if ((len > 4 && strcmp(name + len - 4, ".sec") == 0) ||
               (len > 5 && strcmp(name + len - 5, ".sec2") == 0)) {
        ma_malom_format mf;
        ma_error e2;
        if (ma_malom_file_name_parse(path, &out->variant, &out->sector, &mf, &e2) == MA_OK) {
            out->format = mf == MA_MALOM_SEC2 ? MA_DIFF_SEC2 : MA_DIFF_SEC;
            return MA_OK;
        }
    }
    return ma_error_set(err, MA_EINVAL,
                        "%s: sector ?: offset 0: not a sector file name "
                        "(<variant>_<W>_<B>_<WF>_<BF>.mdb, .sec or .sec2)",
                        path);
}

static int sector_key(const ma_diff_source *s)
{
    return ((((int)s->variant * 32 + s->sector.w) * 32 + s->sector.b) * 32 + s->sector.wf) * 32 +
           s->sector.bf;
}

static int format_rank(ma_diff_format f)
{
    return f == MA_DIFF_OPEN ? 0 : f == MA_DIFF_SEC2 ? 1 : 2;
}

static int source_cmp(const void *x, const void *y)
{
    const ma_diff_source *a = x, *b = y;
    int ka = sector_key(a), kb = sector_key(b);
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return format_rank(a->format) - format_rank(b->format);
}

int ma_diff_sources(ma_diff_source **out, size_t *n, const char *path, ma_error *err)
{
    *out = NULL;
    *n = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return ma_error_set(err, errno == ENOENT ? MA_EMISSING : MA_EIO, "%s: %s", path,
                            strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        ma_diff_source *s = malloc(sizeof *s);
        if (!s)
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
        int rc = ma_diff_source_parse(s, path, err);
        if (rc) {
            free(s);
            return rc;
        }
        *out = s;
        *n = 1;
        return MA_OK;
    }
    DIR *d = opendir(path);
    if (!d)
        return ma_error_set(err, MA_EIO, "%s: cannot read directory: %s", path, strerror(errno));
    size_t cap = 16, cnt = 0;
    ma_diff_source *list = malloc(cap * sizeof *list);
    int rc = list ? MA_OK : ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    struct dirent *de;
    while (rc == MA_OK && (de = readdir(d)) != NULL) {
        char full[4096];
        if (snprintf(full, sizeof full, "%s/%s", path, de->d_name) >= (int)sizeof full)
            continue;
        ma_diff_source s;
        ma_error ignored;
        if (ma_diff_source_parse(&s, full, &ignored) != MA_OK)
            continue; /* manifests, .secval, logs: not sector files */
        if (cnt == cap) {
            ma_diff_source *bigger = realloc(list, 2 * cap * sizeof *list);
            if (!bigger) {
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
                break;
            }
            list = bigger;
            cap *= 2;
        }
        list[cnt++] = s;
    }
    closedir(d);
    if (rc == MA_OK && cnt == 0)
        rc = ma_error_set(err, MA_EFORMAT, "%s: no sector files (.mdb, .sec, .sec2) in directory",
                          path);
    if (rc) {
        free(list);
        return rc;
    }
    qsort(list, cnt, sizeof *list, source_cmp);
    size_t k = 0; /* keep the preferred format of each sector (sorted first) */
    for (size_t i = 0; i < cnt; i++)
        if (k == 0 || sector_key(&list[k - 1]) != sector_key(&list[i]))
            list[k++] = list[i];
    *out = list;
    *n = k;
    return MA_OK;
}

/* ---- one side of the comparison ---- */

typedef struct side {
    ma_diff_format fmt;
    ma_open_file of;
    int of_mapped;
    ma_malom_file *mf;
    ma_malom_frame frame;
    int stone_diff;
    uint64_t count;
} side;

/* A decoded slot: kind 0 = no value, 1 = value, 2 = malformed value. raw identifies the bytes. */
typedef struct slot {
    int kind;
    int outcome; /* -1 loss, 0 draw, 1 win */
    int32_t depth;
    int32_t dclass;
    int32_t raw[3];
} slot;

static void read_slot(const side *s, uint64_t e, slot *v)
{
    memset(v, 0, sizeof *v);
    if (s->fmt == MA_DIFF_OPEN) {
        uint16_t w = ma_open_file_word(&s->of, e);
        ma_value val;
        v->raw[0] = w;
        if (ma_open_value_decode(w, &val) != 0) {
            v->kind = 2;
            return;
        }
        if (val.outcome == MA_OUTCOME_NONE)
            return;
        v->kind = 1;
        v->outcome = val.outcome == MA_OUTCOME_WIN ? 1 : val.outcome == MA_OUTCOME_LOSS ? -1 : 0;
        v->depth = v->outcome ? val.depth : 0;
        return;
    }
    ma_malom_entry me;
    ma_malom_file_entry(s->mf, e, &me);
    v->raw[0] = me.kind;
    v->raw[1] = me.key1;
    v->raw[2] = me.key2;
    if (me.kind == MA_MALOM_SYM)
        return;
    ma_malom_result r;
    if (ma_malom_interpret(&s->frame, &me, &r) != MA_OK) {
        v->kind = 2;
        return;
    }
    v->kind = 1;
    v->outcome = r.outcome;
    v->depth = r.outcome ? r.depth : 0;
    v->dclass = r.draw_class;
}

static void format_slot(const side *s, const slot *v, int raw, int with_class, char *buf,
                        size_t len)
{
    if (raw || v->kind == 2) {
        const char *pre = v->kind == 2 ? "bad " : "";
        if (s->fmt == MA_DIFF_OPEN)
            snprintf(buf, len, "%s0x%04X", pre, (unsigned)v->raw[0]);
        else if (v->raw[0] == MA_MALOM_SYM)
            snprintf(buf, len, "%ssym %d", pre, (int)(-v->raw[2] - 1));
        else if (v->raw[0] == MA_MALOM_COUNT)
            snprintf(buf, len, "%scount %d", pre, (int)v->raw[2]);
        else
            snprintf(buf, len, "%sval %d,%d", pre, (int)v->raw[1], (int)v->raw[2]);
        return;
    }
    if (v->kind == 0)
        snprintf(buf, len, "none");
    else if (v->outcome == 1)
        snprintf(buf, len, "win %d", (int)v->depth);
    else if (v->outcome == -1)
        snprintf(buf, len, "loss %d", (int)v->depth);
    else if (with_class)
        snprintf(buf, len, "draw A=%d", (int)v->dclass);
    else
        snprintf(buf, len, "draw");
}

/* -1 when the values agree, else the class. */
static int classify(const slot *a, const slot *b, int draw_cmp)
{
    if (a->kind != 1 || b->kind != 1) {
        if (a->kind == b->kind && (a->kind == 0 || memcmp(a->raw, b->raw, sizeof a->raw) == 0))
            return -1;
        return MA_DIFF_OUTCOME;
    }
    if (a->outcome != b->outcome)
        return MA_DIFF_OUTCOME;
    if (a->outcome != 0)
        return a->depth != b->depth ? MA_DIFF_DEPTH : -1;
    return draw_cmp && a->dclass != b->dclass ? MA_DIFF_DRAW_CLASS : -1;
}

/* ---- the threaded scan ---- */

typedef struct scan_ctx {
    const side *a, *b;
    const ma_open_index *oix;
    const ma_malom_index *mix;
    int w, bb;
    int same_scheme, same_format, draw_cmp;
    size_t limit;
    uint64_t per_rep; /* open: entries per representative, C(24-W, B) */
} scan_ctx;

typedef struct scan_job {
    const scan_ctx *c;
    uint64_t lo, hi;
    uint64_t positions;
    uint64_t counts[MA_DIFF_CLASSES];
    ma_diff_example *vex, *eex; /* value-class and encoding examples, limit each */
    size_t n_vex, n_eex;
    int failed;
} scan_job;

static ma_board unrank(const scan_ctx *c, const side *s, uint64_t e)
{
    return s->fmt == MA_DIFF_OPEN ? ma_open_index_unrank(c->oix, c->w, c->bb, e)
                                  : ma_malom_index_unrank(c->mix, c->w, c->bb, e);
}

static void keep(scan_job *j, int cls, uint64_t ea, uint64_t eb, const slot *va, const slot *vb,
                 int have_board, ma_board board)
{
    const scan_ctx *c = j->c;
    int enc = cls == MA_DIFF_ENCODING;
    size_t *n = enc ? &j->n_eex : &j->n_vex;
    if (*n >= c->limit)
        return;
    ma_diff_example *x = (enc ? j->eex : j->vex) + (*n)++;
    x->cls = cls;
    x->board = have_board ? board : unrank(c, c->a, ea);
    x->entry_a = ea;
    x->entry_b = eb;
    format_slot(c->a, va, enc, c->draw_cmp, x->value_a, sizeof x->value_a);
    format_slot(c->b, vb, enc, c->draw_cmp, x->value_b, sizeof x->value_b);
}

static void *scan_range(void *arg)
{
    scan_job *j = arg;
    const scan_ctx *c = j->c;
    const side *a = c->a, *b = c->b;
    uint8_t *orbit = NULL;
    uint64_t cached_rep = UINT64_MAX;
    if (a->fmt == MA_DIFF_OPEN) {
        orbit = malloc(c->per_rep ? c->per_rep : 1);
        if (!orbit) {
            j->failed = 1;
            return NULL;
        }
    }
    for (uint64_t e = j->lo; e < j->hi; e++) {
        int canon;
        if (a->fmt == MA_DIFF_OPEN) {
            uint64_t rep = e / c->per_rep;
            if (rep != cached_rep) {
                ma_open_index_classify(c->oix, c->w, c->bb, rep, orbit);
                cached_rep = rep;
            }
            canon = orbit[e - rep * c->per_rep] != 0;
        } else {
            canon = ma_malom_index_marker(c->mix, c->w, c->bb, e) < 0;
        }
        slot va, vb;
        if (!canon) {
            /* No value lives here in either scheme; only the filler/marker bytes can differ. */
            if (c->same_format) {
                read_slot(a, e, &va);
                read_slot(b, e, &vb);
                if (memcmp(va.raw, vb.raw, sizeof va.raw) != 0) {
                    j->counts[MA_DIFF_ENCODING]++;
                    keep(j, MA_DIFF_ENCODING, e, e, &va, &vb, 0, (ma_board){0, 0});
                }
            }
            continue;
        }
        uint64_t eb = e;
        ma_board board = {0, 0};
        int have_board = 0;
        if (!c->same_scheme) {
            board = unrank(c, a, e);
            have_board = 1;
            eb = b->fmt == MA_DIFF_OPEN ? ma_open_index_rank(c->oix, board, NULL)
                                        : ma_malom_index_rank(c->mix, board, NULL);
        }
        j->positions++;
        read_slot(a, e, &va);
        read_slot(b, eb, &vb);
        int cls = classify(&va, &vb, c->draw_cmp);
        if (cls < 0) {
            if (!c->same_format) {
                j->counts[MA_DIFF_ENCODING]++; /* another format: other bytes by definition */
                continue;
            }
            if (memcmp(va.raw, vb.raw, sizeof va.raw) == 0)
                continue;
            cls = MA_DIFF_ENCODING;
        }
        j->counts[cls]++;
        keep(j, cls, e, eb, &va, &vb, have_board, board);
    }
    free(orbit);
    return NULL;
}

static void side_close(side *s)
{
    if (s->of_mapped)
        ma_open_file_close(&s->of);
    s->of_mapped = 0;
    if (s->mf)
        ma_malom_file_close(s->mf);
    s->mf = NULL;
}

static int side_open(side *s, const ma_diff_source *src, ma_open_index *oix, ma_error *err)
{
    memset(s, 0, sizeof *s);
    s->fmt = src->format;
    if (src->format == MA_DIFF_OPEN) {
        int rc = ma_open_file_map(&s->of, src->path, oix, 1, err);
        if (rc)
            return rc;
        s->of_mapped = 1;
        s->count = s->of.header.entry_count;
        return MA_OK;
    }
    int rc = ma_malom_file_open(&s->mf, src->path, NULL, err);
    if (rc)
        return rc;
    s->count = ma_malom_file_entry_count(s->mf);
    s->frame = ma_malom_file_frame(s->mf);
    s->stone_diff = ma_malom_file_stone_diff(s->mf);
    return MA_OK;
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static int digests_equal(const ma_diff_source *a, const ma_diff_source *b, unsigned threads,
                         int *equal, ma_error *err)
{
    ma_sha256_options o = {0};
    o.threads = threads;
    o.whole_only = 1;
    ma_file_digest da, db;
    int rc = ma_sha256_file(&da, a->path, &o, err);
    if (rc)
        return rc;
    rc = ma_sha256_file(&db, b->path, &o, err);
    if (rc) {
        ma_file_digest_free(&da);
        return rc;
    }
    *equal = da.size == db.size && memcmp(da.digest, db.digest, MA_SHA256_LEN) == 0;
    ma_file_digest_free(&da);
    ma_file_digest_free(&db);
    return MA_OK;
}

int ma_diff_compare(ma_diff_result *out, const ma_diff_source *a, const ma_diff_source *b,
                    ma_open_index *oix, ma_malom_index *mix, const ma_diff_options *opt,
                    ma_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = ma_now();
    char sname[16];
    ma_sector_format(a->sector, sname, sizeof sname);
    if (a->variant != b->variant || !ma_sector_equal(a->sector, b->sector))
        return ma_error_set(err, MA_EINVAL, "%s and %s: not the same variant and sector", a->path,
                            b->path);
    if (!ma_sector_valid(a->variant, a->sector))
        return ma_error_set(err, MA_EINVAL, "%s: sector %s: offset 0: impossible sector for %s",
                            a->path, sname, ma_variant_name(a->variant));
    unsigned threads = opt->threads ? opt->threads : online_cpus();
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    int same_format = a->format == b->format;
    int rc, digest_equal = 0;
    if (same_format) {
        rc = digests_equal(a, b, threads, &digest_equal, err);
        if (rc)
            return rc;
        if (digest_equal && !opt->full) {
            out->identical = 1;
            out->seconds = ma_now() - t0;
            return MA_OK;
        }
    }
    int w = a->sector.w, bb = a->sector.b;
    if ((rc = ma_open_index_prepare(oix, w, err)) || (rc = ma_malom_index_prepare(mix, w, err)))
        return rc;
    side sa, sb;
    if ((rc = side_open(&sa, a, oix, err)))
        return rc;
    if ((rc = side_open(&sb, b, oix, err))) {
        side_close(&sa);
        return rc;
    }
    scan_ctx c = {0};
    c.a = &sa;
    c.b = &sb;
    c.oix = oix;
    c.mix = mix;
    c.w = w;
    c.bb = bb;
    c.same_format = same_format;
    c.same_scheme = (a->format == MA_DIFF_OPEN) == (b->format == MA_DIFF_OPEN);
    c.draw_cmp = a->format == MA_DIFF_SEC2 && b->format == MA_DIFF_SEC2 &&
                 sa.stone_diff == sb.stone_diff;
    c.limit = opt->limit;
    c.per_rep = ma_open_binomial(24 - w, bb);
    out->draw_class_compared = c.draw_cmp;

    uint64_t total = sa.count;
    if (threads > 1 && total < 65536)
        threads = 1;
    scan_job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    memset(jobs, 0, sizeof jobs);
    rc = MA_OK;
    for (unsigned t = 0; t < threads && rc == MA_OK; t++) {
        scan_job *j = &jobs[t];
        j->c = &c;
        /* Ranges on representative boundaries keep the open classify cache whole. */
        uint64_t unit = c.per_rep ? c.per_rep : 1;
        uint64_t units = (total + unit - 1) / unit;
        j->lo = units * t / threads * unit;
        j->hi = units * (t + 1) / threads * unit;
        if (j->lo > total)
            j->lo = total;
        if (j->hi > total)
            j->hi = total;
        size_t cap = opt->limit ? opt->limit : 1;
        j->vex = calloc(cap, sizeof *j->vex);
        j->eex = calloc(cap, sizeof *j->eex);
        if (!j->vex || !j->eex) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: sector %s: out of memory", a->path, sname);
            break;
        }
        if (threads == 1)
            continue;
        if (pthread_create(&tids[t], NULL, scan_range, j) != 0)
            rc = ma_error_set(err, MA_EINTERNAL, "cannot start a thread");
        else
            started[t] = 1;
    }
    if (rc == MA_OK && threads == 1)
        scan_range(&jobs[0]);
    for (unsigned t = 0; t < threads; t++)
        if (started[t])
            pthread_join(tids[t], NULL);
    for (unsigned t = 0; t < threads && rc == MA_OK; t++)
        if (jobs[t].failed)
            rc = ma_error_set(err, MA_ENOMEM, "%s: sector %s: out of memory", a->path, sname);
    if (rc == MA_OK) {
        size_t cap = opt->limit ? opt->limit : 1;
        out->examples = calloc(cap, sizeof *out->examples);
        if (!out->examples)
            rc = ma_error_set(err, MA_ENOMEM, "%s: sector %s: out of memory", a->path, sname);
    }
    if (rc == MA_OK) {
        for (unsigned t = 0; t < threads; t++) {
            out->positions += jobs[t].positions;
            for (int k = 0; k < MA_DIFF_CLASSES; k++)
                out->counts[k] += jobs[t].counts[k];
        }
        /* Value differences first (they are what a reader looks for), then encoding ones. */
        for (int pass = 0; pass < 2; pass++)
            for (unsigned t = 0; t < threads; t++) {
                size_t n = pass ? jobs[t].n_eex : jobs[t].n_vex;
                ma_diff_example *src = pass ? jobs[t].eex : jobs[t].vex;
                for (size_t i = 0; i < n && out->n_examples < opt->limit; i++)
                    out->examples[out->n_examples++] = src[i];
            }
        uint64_t values = out->counts[MA_DIFF_OUTCOME] + out->counts[MA_DIFF_DEPTH] +
                          out->counts[MA_DIFF_DRAW_CLASS];
        /* Same format, other digest, yet every entry alike: the bytes outside the entries (header
         * fields such as the producer, the overflow table layout) differ. */
        if (same_format && !digest_equal && values == 0 && out->counts[MA_DIFF_ENCODING] == 0)
            out->counts[MA_DIFF_ENCODING] = 1;
    }
    for (unsigned t = 0; t < threads; t++) {
        free(jobs[t].vex);
        free(jobs[t].eex);
    }
    side_close(&sa);
    side_close(&sb);
    if (rc) {
        ma_diff_result_free(out);
        return rc;
    }
    out->seconds = ma_now() - t0;
    return MA_OK;
}

void ma_diff_result_free(ma_diff_result *r)
{
    free(r->examples);
    r->examples = NULL;
    r->n_examples = 0;
}
