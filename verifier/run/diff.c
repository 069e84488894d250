/*
 * Position-by-position comparison of two databases (verifier/run/diff.h), read through
 * verifier/formats/source.h only.
 */
#include "verifier/run/diff.h"
#include "common/counts.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksums/sha256.h"
#include "common/fileio.h"
#include "common/progress.h"
#include "verifier/formats/provenance.h"
#include "verifier/run/shard.h"

#define MAX_THREADS 64

static const char *const class_names[MA_DIFF_CLASSES] = {"outcome", "depth", "draw-class",
                                                         "encoding"};
static const char *const status_names[MA_DIFF_STATUSES] = {
    "pending", "identical", "equal", "differs", "only-in-A", "only-in-B", "unusable"};

const char *ma_diff_class_name(int cls)
{
    return (cls >= 0 && cls < MA_DIFF_CLASSES) ? class_names[cls] : "?";
}

const char *ma_diff_status_name(ma_diff_status s)
{
    return (s >= 0 && s < MA_DIFF_STATUSES) ? status_names[s] : "?";
}

uint64_t ma_diff_value_differences(const ma_diff_result *r)
{
    return r->counts[MA_DIFF_OUTCOME] + r->counts[MA_DIFF_DEPTH] + r->counts[MA_DIFF_DRAW_CLASS];
}

/* ---- pairing ---- */

static int sector_cmp(const void *x, const void *y)
{
    const ma_diff_sector *a = x, *b = y;
    const int ka[5] = {a->variant, a->sector.w, a->sector.b, a->sector.wf, a->sector.bf};
    const int kb[5] = {b->variant, b->sector.w, b->sector.b, b->sector.wf, b->sector.bf};
    for (int i = 0; i < 5; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void variants_text(unsigned mask, char *buf, size_t len)
{
    buf[0] = 0;
    for (int v = MA_VARIANT_STD; v <= MA_VARIANT_MORA; v++)
        if (mask & (1u << v)) {
            size_t l = strlen(buf);
            snprintf(buf + l, len - l, "%s%s", l ? "," : "", ma_variant_name((ma_variant)v));
        }
    if (!buf[0])
        snprintf(buf, len, "no sector");
}

static int single_file(const ma_database *db)
{
    return strcmp(ma_database_root(db), ma_database_dir(db)) != 0;
}

static void set_side(ma_diff_sector *s, int side_b, const ma_database *db, const ma_db_sector *d)
{
    if (side_b) {
        s->b = d;
        s->format_b = ma_database_format(db);
        s->path_b = d->path; /* the database's own string: it lives as long as the report */
    } else {
        s->a = d;
        s->format_a = ma_database_format(db);
        s->path_a = d->path;
    }
    s->variant = d->variant;
    s->sector = d->sector;
    snprintf(s->name, sizeof s->name, "%s", d->name);
}

/* The reason discovery (or an earlier open) gave for a file of db, or NULL when it is usable as
 * far as anyone knows: a canonically named file that cannot be opened (a FIFO, a broken link) is
 * a sector of its database that fails with discovery's reason (verifier/formats/source.h). */
static const char *listed_unusable(const ma_database *db, const char *path)
{
    for (size_t i = 0; path && i < ma_database_unusable_count(db); i++)
        if (!strcmp(ma_database_unusable(db, i)->path, path))
            return ma_database_unusable(db, i)->message;
    return NULL;
}

int ma_diff_plan(ma_diff_sector **out, size_t *n, const ma_database *a, const ma_database *b,
                 ma_sector_pick *picks, size_t n_picks, ma_error *err)
{
    *out = NULL;
    *n = 0;
    const ma_database *dbs[2] = {a, b};
    for (int k = 0; k < 2; k++)
        if (ma_database_count(dbs[k]) == 0) {
            char shown[1100];
            ma_escape_name(ma_database_root(dbs[k]), shown, sizeof shown);
            return ma_error_set(err, MA_EFORMAT,
                                "%s: no usable sector files (<variant>_W_B_WF_BF.mdb, .sec2 or .sec)",
                                shown);
        }
    if (ma_database_variants(a) != ma_database_variants(b)) {
        char va[32], vb[32], ra[600], rb[600];
        variants_text(ma_database_variants(a), va, sizeof va);
        variants_text(ma_database_variants(b), vb, sizeof vb);
        ma_escape_name(ma_database_root(a), ra, sizeof ra);
        ma_escape_name(ma_database_root(b), rb, sizeof rb);
        return ma_error_set(err, MA_EFORMAT, "mismatched variants: %s holds %s, %s holds %s", ra, va,
                            rb, vb);
    }
    if (single_file(a) && single_file(b) &&
        (ma_database_sector(a, 0)->variant != ma_database_sector(b, 0)->variant ||
         !ma_sector_equal(ma_database_sector(a, 0)->sector, ma_database_sector(b, 0)->sector))) {
        char ra[600], rb[600];
        ma_escape_name(ma_database_root(a), ra, sizeof ra);
        ma_escape_name(ma_database_root(b), rb, sizeof rb);
        return ma_error_set(err, MA_EFORMAT, "different sectors: %s is %s, %s is %s", ra,
                            ma_database_sector(a, 0)->name, rb, ma_database_sector(b, 0)->name);
    }
    size_t cap = ma_database_count(a) + ma_database_count(b);
    ma_diff_sector *list = calloc(cap, sizeof *list);
    if (!list)
        return ma_error_set(err, MA_ENOMEM, "diff: out of memory");
    size_t k = 0;
    for (size_t i = 0; i < ma_database_count(a); i++) {
        const ma_db_sector *d = ma_database_sector(a, i);
        if (!ma_sector_picks_match(picks, n_picks, d->variant, d->sector))
            continue;
        ma_diff_sector *s = &list[k++];
        set_side(s, 0, a, d);
        const ma_db_sector *other = ma_database_find(b, d->variant, d->sector);
        if (other)
            set_side(s, 1, b, other);
    }
    for (size_t i = 0; i < ma_database_count(b); i++) {
        const ma_db_sector *d = ma_database_sector(b, i);
        if (ma_database_find(a, d->variant, d->sector) ||
            !ma_sector_picks_match(picks, n_picks, d->variant, d->sector))
            continue;
        set_side(&list[k++], 1, b, d);
    }
    const ma_sector_pick *lost = ma_sector_picks_unmatched(picks, n_picks);
    if (lost) {
        char ra[600], rb[600];
        ma_escape_name(ma_database_root(a), ra, sizeof ra);
        ma_escape_name(ma_database_root(b), rb, sizeof rb);
        free(list);
        return ma_error_set(err, MA_EMISSING, "sector %s: in neither %s nor %s", lost->text, ra, rb);
    }
    for (size_t i = 0; i < k; i++) {
        ma_diff_sector *s = &list[i];
        if (s->a && s->b)
            continue;
        /* a one-sided sector whose file cannot be read is not a known difference */
        const char *why = s->a ? listed_unusable(a, s->path_a) : listed_unusable(b, s->path_b);
        s->status = why ? MA_DIFF_UNUSABLE : s->a ? MA_DIFF_ONLY_A : MA_DIFF_ONLY_B;
        if (why)
            snprintf(s->message, sizeof s->message, "%s", why);
    }
    qsort(list, k, sizeof *list, sector_cmp);
    *out = list;
    *n = k;
    return MA_OK;
}

void ma_diff_plan_free(ma_diff_sector *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        ma_diff_result_free(&s[i].r);
    free(s);
}

int ma_diff_plan_shard(ma_diff_sector *s, size_t *n, unsigned index, unsigned n_shards, ma_error *err)
{
    if (n_shards < 1 || index >= n_shards)
        return ma_error_set(err, MA_EINVAL, "diff: shard %u of %u does not exist", index, n_shards);
    ma_shard_item *items = calloc(*n ? *n : 1, sizeof *items);
    if (!items)
        return ma_error_set(err, MA_ENOMEM, "diff: out of memory");
    for (size_t i = 0; i < *n; i++) {
        /* A's file costs the pair, as verify A --shard costs A's sectors */
        const ma_db_sector *d = s[i].a ? s[i].a : s[i].b;
        ma_format f = s[i].a ? s[i].format_a : s[i].format_b;
        items[i] = (ma_shard_item){s[i].variant, s[i].sector, s[i].name,
                                   ma_format_planned_entries(f, s[i].sector, d ? d->path : NULL), 0, 0};
    }
    int rc = ma_shard_partition(items, *n, n_shards, err);
    if (rc == MA_OK) {
        size_t k = 0;
        for (size_t i = 0; i < *n; i++)
            if (items[i].shard == index) {
                if (k != i)
                    s[k] = s[i];
                k++;
            }
        *n = k;
    }
    free(items);
    return rc;
}

/* ---- the threaded scan ---- */

typedef struct scan_ctx {
    const ma_source *a, *b;
    int same_scheme, same_format, draw_cmp;
    size_t limit;
    uint64_t chunk; /* entries classified at once (whole representatives of an open A) */
    const ma_diff_succ *succ; /* NULL: value differences are not classified by cause */
} scan_ctx;

typedef struct scan_job {
    const scan_ctx *c;
    uint64_t lo, hi;
    uint64_t positions;
    uint64_t counts[MA_DIFF_CLASSES];
    uint64_t by_cause[3];       /* unknown, propagated, root (MA_DIFF_CAUSE_* + 1) */
    unsigned via;               /* successor kinds a propagated difference was found through */
    ma_vturns *turns;           /* scratch of the cause classification */
    /* examples, limit each: value differences at the root (or of unknown cause), propagated ones,
     * encoding ones, each in entry order */
    ma_diff_example *rex, *pex, *eex;
    size_t n_rex, n_pex, n_eex;
    int failed;
} scan_job;

/* -1 when the values agree, else the class. */
static int classify(const ma_stored *a, const ma_stored *b, int draw_cmp)
{
    if (a->kind != MA_STORED_VALUE || b->kind != MA_STORED_VALUE) {
        if (a->kind == b->kind &&
            (a->kind == MA_STORED_NONE || memcmp(a->raw, b->raw, sizeof a->raw) == 0))
            return -1;
        return MA_DIFF_OUTCOME;
    }
    if (a->value.outcome != b->value.outcome)
        return MA_DIFF_OUTCOME;
    if (a->value.outcome != MA_OUTCOME_DRAW)
        return a->value.depth != b->value.depth ? MA_DIFF_DEPTH : -1;
    return draw_cmp && a->draw_class != b->draw_class ? MA_DIFF_DRAW_CLASS : -1;
}

static void keep(scan_job *j, int cls, int cause, uint64_t ea, uint64_t eb, const ma_stored *va,
                 const ma_stored *vb, int have_board, ma_board board)
{
    const scan_ctx *c = j->c;
    int enc = cls == MA_DIFF_ENCODING, prop = cause == MA_DIFF_CAUSE_PROPAGATED;
    size_t *n = enc ? &j->n_eex : prop ? &j->n_pex : &j->n_rex;
    if (*n >= c->limit)
        return;
    ma_diff_example *x = (enc ? j->eex : prop ? j->pex : j->rex) + (*n)++;
    memset(x, 0, sizeof *x);
    x->cls = cls;
    x->cause = cause;
    x->board = have_board ? board : ma_source_board(c->a, ea);
    x->entry_a = ea;
    x->entry_b = eb;
    x->offset_a = ma_source_offset(c->a, ea);
    x->offset_b = ma_source_offset(c->b, eb);
    x->a = *va;
    x->b = *vb;
    ma_source_describe(c->a, va, x->text_a, sizeof x->text_a);
    ma_source_describe(c->b, vb, x->text_b, sizeof x->text_b);
}

static void *scan_range(void *arg)
{
    enum { BLOCK = 4096 }; /* values are read a block at a time (ma_source_read_range) */
    scan_job *j = arg;
    const scan_ctx *c = j->c;
    uint8_t *canon = malloc(c->chunk);
    ma_stored *va_buf = malloc(BLOCK * sizeof *va_buf), *vb_buf = malloc(BLOCK * sizeof *vb_buf);
    if (!canon || !va_buf || !vb_buf) {
        free(canon);
        free(va_buf);
        free(vb_buf);
        j->failed = 1;
        return NULL;
    }
    for (uint64_t lo = j->lo; lo < j->hi; lo += c->chunk) {
        uint64_t n = j->hi - lo < c->chunk ? j->hi - lo : c->chunk;
        if (ma_source_canonical_range(c->a, lo, n, 0, canon) != MA_OK) {
            j->failed = 1;
            break;
        }
        for (uint64_t blo = 0; blo < n; blo += BLOCK) {
            uint64_t bn = n - blo < BLOCK ? n - blo : BLOCK;
            ma_source_read_range(c->a, lo + blo, bn, va_buf);
            if (c->same_scheme) /* the same entry numbers on both sides */
                ma_source_read_range(c->b, lo + blo, bn, vb_buf);
            for (uint64_t i = 0; i < bn; i++) {
                uint64_t e = lo + blo + i;
                const ma_stored *va = &va_buf[i];
                ma_stored *vb = &vb_buf[i];
                if (!canon[blo + i]) {
                    /* No value lives here in either scheme; only the filler/marker bytes can
                     * differ. */
                    if (c->same_format && memcmp(va->raw, vb->raw, sizeof va->raw) != 0) {
                        j->counts[MA_DIFF_ENCODING]++;
                        keep(j, MA_DIFF_ENCODING, MA_DIFF_CAUSE_UNKNOWN, e, e, va, vb, 0, (ma_board){0, 0});
                    }
                    continue;
                }
                uint64_t eb = e;
                ma_board board = {0, 0};
                int have_board = 0;
                if (!c->same_scheme) {
                    board = ma_source_board(c->a, e);
                    have_board = 1;
                    eb = ma_source_entry_of(c->b, board);
                    ma_source_read(c->b, eb, vb);
                }
                j->positions++;
                int cls = classify(va, vb, c->draw_cmp);
                if (cls < 0) {
                    if (!c->same_format) {
                        j->counts[MA_DIFF_ENCODING]++; /* another format: other bytes by definition */
                        continue;
                    }
                    if (memcmp(va->raw, vb->raw, sizeof va->raw) == 0)
                        continue;
                    cls = MA_DIFF_ENCODING;
                }
                j->counts[cls]++;
                int cause = MA_DIFF_CAUSE_UNKNOWN;
                if (cls != MA_DIFF_ENCODING && c->succ) {
                    if (!have_board)
                        board = ma_source_board(c->a, e), have_board = 1;
                    int kind;
                    cause = ma_diff_succ_cause(c->succ, board, j->turns, &kind);
                    j->by_cause[cause + 1]++;
                    if (cause == MA_DIFF_CAUSE_PROPAGATED)
                        j->via |= 1u << kind;
                }
                keep(j, cls, cause, e, eb, va, vb, have_board, board);
            }
        }
    }
    free(canon);
    free(va_buf);
    free(vb_buf);
    return NULL;
}

static unsigned online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* ma_diff_compare, classifying value differences by cause with succ (NULL: not at all). */
static int compare(ma_diff_result *out, const ma_source *a, const ma_source *b, const ma_diff_options *opt,
                   const ma_diff_succ *succ, ma_error *err)
{
    memset(out, 0, sizeof *out);
    double t0 = ma_now();
    const char *name = ma_source_name(a);
    if (ma_source_variant(a) != ma_source_variant(b) ||
        !ma_sector_equal(ma_source_sector(a), ma_source_sector(b)))
        return ma_error_set(err, MA_EINVAL, "%s and %s: not the same variant and sector", name,
                            ma_source_name(b));
    unsigned threads = opt->threads ? opt->threads : online_cpus();
    /* examples kept: 0 is the default, MA_KEEP_NONE none */
    size_t limit = opt->limit == MA_KEEP_NONE ? 0 : opt->limit ? opt->limit : MA_DIFF_DEFAULT_LIMIT;
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    ma_format fa = ma_source_format(a), fb = ma_source_format(b);
    scan_ctx c = {0};
    c.a = a;
    c.b = b;
    c.same_format = fa == fb;
    c.same_scheme = ma_source_same_scheme(a, b);
    c.draw_cmp = ma_source_draw_frame(a) && ma_source_draw_frame(a) == ma_source_draw_frame(b);
    c.limit = limit;
    c.succ = succ;
    /* Work is split on representative boundaries of an open A, so each representative is
     * classified once (ma_source_canonical_range). */
    uint64_t unit = ma_source_split_unit(a);
    c.chunk = unit * (unit < 65536 ? 65536 / unit : 1);
    out->draw_class_compared = c.draw_cmp;

    uint64_t total = ma_source_entries(a);
    if (threads > 1 && total < 65536)
        threads = 1;
    scan_job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    memset(jobs, 0, sizeof jobs);
    int rc = MA_OK;
    uint64_t units = (total + unit - 1) / unit;
    size_t cap = limit ? limit : 1;
    for (unsigned t = 0; t < threads && rc == MA_OK; t++) {
        scan_job *j = &jobs[t];
        j->c = &c;
        j->lo = units * t / threads * unit;
        j->hi = units * (t + 1) / threads * unit;
        if (j->lo > total)
            j->lo = total;
        if (j->hi > total)
            j->hi = total;
        j->rex = calloc(cap, sizeof *j->rex);
        j->pex = calloc(cap, sizeof *j->pex);
        j->eex = calloc(cap, sizeof *j->eex);
        j->turns = succ ? malloc(sizeof *j->turns) : NULL;
        if (!j->rex || !j->pex || !j->eex || (succ && !j->turns)) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
            break;
        }
        if (threads == 1)
            continue;
        if (pthread_create(&tids[t], NULL, scan_range, j) != 0)
            rc = ma_error_set(err, MA_EINTERNAL, "diff: cannot start a thread");
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
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    if (rc == MA_OK && !(out->examples = calloc(cap, sizeof *out->examples)))
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    if (rc == MA_OK) {
        for (unsigned t = 0; t < threads; t++) {
            out->positions += jobs[t].positions;
            for (int k = 0; k < MA_DIFF_CLASSES; k++)
                out->counts[k] += jobs[t].counts[k];
            out->unknown += jobs[t].by_cause[0];
            out->propagated += jobs[t].by_cause[1];
            out->roots += jobs[t].by_cause[2];
            for (int k = 0; k < MA_TURN_KINDS; k++) {
                if (!(jobs[t].via >> k & 1) || !succ)
                    continue;
                int seen = 0;
                for (int i = 0; i < out->n_via; i++)
                    seen |= ma_sector_equal(out->via[i], succ->rules.succ[k]);
                if (!seen)
                    out->via[out->n_via++] = succ->rules.succ[k];
            }
        }
        out->classified = succ != NULL;
        /* Value differences first (they are what a reader looks for): those at the root, where a
         * side is wrong, then the propagated ones; then encoding ones. */
        for (int pass = 0; pass < 3; pass++)
            for (unsigned t = 0; t < threads; t++) {
                size_t n = pass == 0 ? jobs[t].n_rex : pass == 1 ? jobs[t].n_pex : jobs[t].n_eex;
                const ma_diff_example *src = pass == 0 ? jobs[t].rex : pass == 1 ? jobs[t].pex : jobs[t].eex;
                for (size_t i = 0; i < n && out->n_examples < limit; i++)
                    out->examples[out->n_examples++] = src[i];
            }
    }
    for (unsigned t = 0; t < threads; t++) {
        free(jobs[t].rex);
        free(jobs[t].pex);
        free(jobs[t].eex);
        free(jobs[t].turns);
    }
    if (rc) {
        ma_diff_result_free(out);
        return rc;
    }
    out->seconds = ma_now() - t0;
    return MA_OK;
}

int ma_diff_compare(ma_diff_result *out, const ma_source *a, const ma_source *b,
                    const ma_diff_options *opt, ma_error *err)
{
    return compare(out, a, b, opt, NULL, err);
}

void ma_diff_result_free(ma_diff_result *r)
{
    for (size_t i = 0; r->examples && i < r->n_examples; i++)
        ma_diff_example_free(&r->examples[i]);
    free(r->examples);
    r->examples = NULL;
    r->n_examples = 0;
}

/* ---- one pair ---- */

static void unusable(ma_diff_sector *s, const ma_error *e)
{
    s->status = MA_DIFF_UNUSABLE;
    snprintf(s->message, sizeof s->message, "%s", e->msg);
}

/* A file discovery found usable that its hashing could not read (made unreadable, replaced by a
 * FIFO, cut short, an I/O error): the pair is unusable with the one line every reader error has,
 * "<path>: sector <name>: offset <byte>: <what>". The hash names the file and, past its start, the
 * offset (checksums/sha256.h: "<path>: offset <byte>: <what>"); an open that fails is offset 0. */
static void hash_failure(ma_diff_sector *s, const char *path, const ma_error *e)
{
    char shown[1100];
    ma_escape_name(path, shown, sizeof shown);
    const char *what = e->msg;
    size_t lr = strlen(path), ls = strlen(shown);
    if (!strncmp(what, shown, ls) && !strncmp(what + ls, ": ", 2))
        what += ls + 2;
    else if (!strncmp(what, path, lr) && !strncmp(what + lr, ": ", 2))
        what += lr + 2;
    unsigned long long offset = 0;
    int used = 0;
    if (sscanf(what, "offset %llu: %n", &offset, &used) == 1 && used > 0)
        what += used;
    s->status = MA_DIFF_UNUSABLE;
    snprintf(s->message, sizeof s->message, "%.600s: sector %s: offset %llu: %.300s", shown, s->name, offset, what);
}

/* Whole-file SHA-256 of both files; 1 equal, 0 different, < 0 an error in e, *failed the path. */
static int same_digest(const ma_diff_sector *s, unsigned threads, const char **failed, ma_error *e)
{
    ma_sha256_options o = {0};
    o.threads = threads;
    o.whole_only = 1;
    ma_file_digest da, db;
    *failed = s->a->path;
    int rc = ma_sha256_file(&da, s->a->path, &o, e);
    if (rc)
        return rc;
    *failed = s->b->path;
    rc = ma_sha256_file(&db, s->b->path, &o, e);
    if (rc) {
        ma_file_digest_free(&da);
        return rc;
    }
    int equal = da.size == db.size && memcmp(da.digest, db.digest, MA_SHA256_LEN) == 0;
    ma_file_digest_free(&da);
    ma_file_digest_free(&db);
    return equal;
}

/* The header fields two files of one format state differently, in words, into r->header_words:
 * what a reader needs to see that only the producer's name or version changed. */
static void header_words(ma_diff_sector *s)
{
    ma_file_provenance pa, pb;
    ma_file_provenance_read(&pa, s->path_a, s->path_a);
    ma_file_provenance_read(&pb, s->path_b, s->path_b);
    char *w = s->r.header_words;
    size_t n = sizeof s->r.header_words, k = 0;
    if (strcmp(pa.producer, pb.producer))
        k += (size_t)snprintf(w + k, n - k, "producer %s vs %s", pa.producer[0] ? pa.producer : "(none)",
                              pb.producer[0] ? pb.producer : "(none)");
    if (k < n && strcmp(pa.producer_version, pb.producer_version))
        k += (size_t)snprintf(w + k, n - k, "%sproducer version %s vs %s", k ? ", " : "",
                              pa.producer_version[0] ? pa.producer_version : "(none)",
                              pb.producer_version[0] ? pb.producer_version : "(none)");
    if (!k)
        snprintf(w, n, "bytes outside the entries (header or overflow table)");
}

static int sector_compare(ma_diff_sector *s, ma_database *a, ma_database *b, const ma_diff_options *opt,
                          int causes, ma_error *err)
{
    if (s->status != MA_DIFF_PENDING)
        return MA_OK;
    double t0 = ma_now();
    ma_error e;
    ma_error_clear(&e);
    const char *why = listed_unusable(a, s->path_a);
    if (!why)
        why = listed_unusable(b, s->path_b);
    if (why) { /* named already: neither hashed nor opened (a FIFO would block a reader) */
        s->status = MA_DIFF_UNUSABLE;
        snprintf(s->message, sizeof s->message, "%s", why);
        return MA_OK;
    }
    int digest_equal = 0;
    if (s->format_a == s->format_b) {
        const char *failed = NULL;
        int eq = same_digest(s, opt->threads ? opt->threads : online_cpus(), &failed, &e);
        if (eq == MA_ENOMEM || eq == MA_EINTERNAL) {
            *err = e;
            return eq;
        }
        if (eq < 0) {
            hash_failure(s, failed, &e);
            return MA_OK;
        }
        digest_equal = eq;
        if (digest_equal && !opt->full) {
            s->status = MA_DIFF_IDENTICAL;
            s->r.identical = 1;
            s->r.seconds = ma_now() - t0;
            return MA_OK;
        }
    }
    const ma_source *sa, *sb;
    int rc = ma_database_source(a, s->variant, s->sector, &sa, &e);
    if (rc == MA_OK && (rc = ma_database_source(b, s->variant, s->sector, &sb, &e)) != MA_OK)
        ma_database_release(a, s->variant, s->sector);
    if (rc == MA_ENOMEM) {
        *err = e;
        return rc;
    }
    if (rc) {
        unusable(s, &e);
        return MA_OK;
    }
    ma_diff_succ succ;
    int have_succ = 0;
    if (causes) {
        int draw_cmp = ma_source_draw_frame(sa) && ma_source_draw_frame(sa) == ma_source_draw_frame(sb);
        rc = ma_diff_succ_open(&succ, a, b, s->variant, s->sector, draw_cmp, err);
        have_succ = rc == MA_OK;
    }
    if (rc == MA_OK)
        rc = compare(&s->r, sa, sb, opt, have_succ ? &succ : NULL, err);
    /* every value example proved: its turns on both sides, the side that is right */
    for (size_t i = 0; rc == MA_OK && causes && i < s->r.n_examples; i++)
        if (s->r.examples[i].cls != MA_DIFF_ENCODING)
            rc = ma_diff_prove(&s->r.examples[i], a, b, s->variant, s->sector, err);
    if (have_succ)
        ma_diff_succ_close(&succ, a, b);
    ma_database_release(a, s->variant, s->sector);
    ma_database_release(b, s->variant, s->sector);
    if (rc)
        return rc;
    /* Same format, other digest, yet every entry alike: the bytes outside the entries (header
     * fields such as the producer, the overflow table layout) differ. */
    if (s->format_a == s->format_b && !digest_equal && ma_diff_value_differences(&s->r) == 0 &&
        s->r.counts[MA_DIFF_ENCODING] == 0) {
        s->r.counts[MA_DIFF_ENCODING] = 1;
        s->r.outside_entries_only = 1;
        header_words(s);
    }
    s->status = ma_diff_value_differences(&s->r) ? MA_DIFF_DIFFERS : MA_DIFF_EQUAL;
    s->cause = s->status == MA_DIFF_DIFFERS ? MA_DIFF_CAUSE_ROOT : MA_DIFF_CAUSE_UNKNOWN;
    s->r.seconds = ma_now() - t0;
    return MA_OK;
}

int ma_diff_sector_compare(ma_diff_sector *s, ma_database *a, ma_database *b, const ma_diff_options *opt,
                           ma_error *err)
{
    return sector_compare(s, a, b, opt, 0, err);
}

int ma_diff_sector_compare_causes(ma_diff_sector *s, ma_database *a, ma_database *b, const ma_diff_options *opt,
                                  ma_error *err)
{
    return sector_compare(s, a, b, opt, 1, err);
}

/* ---- audit ---- */

int ma_diff_record(ma_audit *a, int64_t run_id, const ma_diff_sector *s, ma_error *err)
{
    const char *file = s->a ? s->path_a : s->path_b;
    char msg[8300];
    ma_class_count classes[MA_DIFF_CLASSES];
    size_t nc = 0;
    uint64_t total = 0;
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        if (s->r.counts[k]) {
            classes[nc].cls = ma_diff_class_name(k);
            classes[nc++].count = s->r.counts[k];
            total += s->r.counts[k];
        }
    ma_sector_result sr = {0};
    sr.sector = s->name;
    sr.file = file;
    sr.entries = s->r.positions;
    sr.checked = s->r.positions;
    sr.verified = s->r.positions - ma_diff_value_differences(&s->r);
    sr.discrepancies = total;
    sr.classes = classes;
    sr.n_classes = nc;
    sr.seconds = s->r.seconds;
    switch (s->status) {
    case MA_DIFF_ONLY_A:
    case MA_DIFF_ONLY_B:
        snprintf(msg, sizeof msg, "%s: %s", ma_diff_status_name(s->status), file);
        sr.status = "skipped";
        sr.message = msg;
        break;
    case MA_DIFF_UNUSABLE:
        sr.status = "unusable";
        sr.message = s->message;
        break;
    case MA_DIFF_DIFFERS:
        sr.status = "discrepancies";
        break;
    case MA_DIFF_IDENTICAL:
        snprintf(msg, sizeof msg, "identical: same SHA-256 as %s", s->path_b);
        sr.message = msg;
        sr.status = "ok";
        break;
    default:
        sr.status = "ok";
    }
    int rc = ma_audit_sector_record(a, run_id, &sr, err);
    ma_discrepancy rows[64];
    char boards[64][96];
    size_t n = 0;
    for (size_t i = 0; rc == MA_OK && i < s->r.n_examples; i++) {
        const ma_diff_example *x = &s->r.examples[i];
        ma_board_format(x->board, boards[n], sizeof boards[n]);
        rows[n] = (ma_discrepancy){s->name, x->entry_a, boards[n], x->text_a, x->text_b,
                                   ma_diff_class_name(x->cls)};
        if (++n == 64 || i + 1 == s->r.n_examples) {
            rc = ma_audit_discrepancies_add(a, run_id, rows, n, err);
            n = 0;
        }
    }
    return rc;
}
