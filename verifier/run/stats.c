/* Statistics of a database through verifier/formats/source (verifier/run/stats.h). */
#include "verifier/run/stats.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "indexer/open_index.h"

#define DEPTHS 65536        /* ma_value.depth is 16 bits */
#define AKEY_WINDOW 32768   /* A values counted densely in [-window, window]; others in a list */

/* Dense counters of one sector while it is walked. */
typedef struct scratch {
    uint64_t *we, *le, *wp, *lp; /* [DEPTHS] */
    uint64_t *akey;              /* [2 * AKEY_WINDOW + 1] */
    ma_stats_akey *far;          /* A values outside the window (never seen in Malom's files) */
    size_t n_far;
} scratch;

/* Safe to call twice: a job whose scratch_init failed is freed again with the others. */
static void scratch_free(scratch *s)
{
    free(s->we);
    free(s->akey);
    free(s->far);
    s->we = s->le = s->wp = s->lp = NULL;
    s->akey = NULL;
    s->far = NULL;
    s->n_far = 0;
}

static int scratch_init(scratch *s)
{
    memset(s, 0, sizeof *s);
    s->we = calloc(4 * (size_t)DEPTHS, sizeof *s->we);
    s->akey = calloc(2 * AKEY_WINDOW + 1, sizeof *s->akey);
    if (!s->we || !s->akey) {
        scratch_free(s);
        return MA_ENOMEM;
    }
    s->le = s->we + DEPTHS;
    s->wp = s->le + DEPTHS;
    s->lp = s->wp + DEPTHS;
    return MA_OK;
}

static int count_akey(scratch *s, int32_t a)
{
    if (a >= -AKEY_WINDOW && a <= AKEY_WINDOW) {
        s->akey[a + AKEY_WINDOW]++;
        return MA_OK;
    }
    for (size_t i = 0; i < s->n_far; i++)
        if (s->far[i].a == a) {
            s->far[i].entries++;
            return MA_OK;
        }
    ma_stats_akey *p = realloc(s->far, (s->n_far + 1) * sizeof *p);
    if (!p)
        return MA_ENOMEM;
    s->far = p;
    s->far[s->n_far++] = (ma_stats_akey){a, 1};
    return MA_OK;
}

static int cmp_akey(const void *x, const void *y)
{
    const ma_stats_akey *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a;
}

/* Moves the dense counters into t's sparse lists. */
static int scratch_collect(scratch *s, ma_stats_tally *t)
{
    size_t nb = 0, na = s->n_far;
    for (size_t d = 0; d < DEPTHS; d++)
        nb += (s->we[d] | s->le[d] | s->wp[d] | s->lp[d]) != 0;
    for (size_t a = 0; t->has_akey && a < 2 * AKEY_WINDOW + 1; a++)
        na += s->akey[a] != 0;
    t->bins = calloc(nb ? nb : 1, sizeof *t->bins);
    t->akey = calloc(na ? na : 1, sizeof *t->akey);
    if (!t->bins || !t->akey)
        return MA_ENOMEM;
    for (size_t d = 0; d < DEPTHS; d++)
        if (s->we[d] | s->le[d] | s->wp[d] | s->lp[d])
            t->bins[t->n_bins++] = (ma_stats_bin){(uint32_t)d, s->we[d], s->le[d], s->wp[d], s->lp[d]};
    if (!t->has_akey)
        return MA_OK;
    for (size_t a = 0; a < 2 * AKEY_WINDOW + 1; a++)
        if (s->akey[a])
            t->akey[t->n_akey++] = (ma_stats_akey){(int32_t)a - AKEY_WINDOW, s->akey[a]};
    for (size_t i = 0; i < s->n_far; i++)
        t->akey[t->n_akey++] = s->far[i];
    qsort(t->akey, t->n_akey, sizeof *t->akey, cmp_akey);
    return MA_OK;
}

static void tally_init(ma_stats_tally *t)
{
    memset(t, 0, sizeof *t);
    t->longest_win = t->longest_loss = -1;
}

void ma_stats_tally_free(ma_stats_tally *t)
{
    free(t->bins);
    free(t->akey);
    t->bins = NULL;
    t->akey = NULL;
    t->n_bins = t->n_akey = 0;
}

/* One thread's share of a sector: entries [lo, hi), counted into t and its dense scratch. */
typedef struct job {
    const ma_source *src;
    uint64_t lo, hi, chunk;
    ma_progress *progress;
    ma_stats_tally t;
    scratch s;
    int rc;
} job;

static void *tally_range(void *arg)
{
    enum { BLOCK = 4096 }; /* values are read a cache-sized block at a time */
    job *j = arg;
    const ma_source *src = j->src;
    ma_stats_tally *out = &j->t;
    scratch *s = &j->s;
    uint8_t *orbit = malloc(j->chunk);
    ma_stored *vals = malloc(BLOCK * sizeof *vals);
    int open = ma_source_format(src) == MA_FORMAT_OPEN, rc = orbit && vals ? MA_OK : MA_ENOMEM;
    for (uint64_t lo = j->lo; rc == MA_OK && lo < j->hi; lo += j->chunk) {
        uint64_t cnt = j->hi - lo < j->chunk ? j->hi - lo : j->chunk;
        if ((rc = ma_source_canonical_range(src, lo, cnt, 1, orbit)) != MA_OK)
            break;
        for (uint64_t i = 0; rc == MA_OK && i < cnt; i++) {
            if (i % BLOCK == 0)
                ma_source_read_range(src, lo + i, cnt - i < BLOCK ? cnt - i : BLOCK, vals);
            const ma_stored *v = &vals[i % BLOCK];
            uint64_t w = orbit[i];
            if (!w) {
                out->markers++;
                out->bad += open ? v->raw[0] != 0 : v->kind != MA_STORED_NONE;
                continue;
            }
            out->canonical++;
            out->positions += w;
            if (v->kind != MA_STORED_VALUE) {
                out->bad++;
                continue;
            }
            if (out->has_akey && v->has_draw_class)
                rc = count_akey(s, v->draw_class);
            unsigned d = v->value.depth;
            switch (v->value.outcome) {
            case MA_OUTCOME_WIN:
                out->win_entries++;
                out->win_positions += w;
                s->we[d]++;
                s->wp[d] += w;
                if ((int)d > out->longest_win)
                    out->longest_win = (int)d;
                break;
            case MA_OUTCOME_LOSS:
                out->loss_entries++;
                out->loss_positions += w;
                s->le[d]++;
                s->lp[d] += w;
                if ((int)d > out->longest_loss)
                    out->longest_loss = (int)d;
                break;
            default:
                out->draw_entries++;
                out->draw_positions += w;
            }
        }
        if (j->progress)
            ma_progress_add(j->progress, cnt);
    }
    free(orbit);
    free(vals);
    j->rc = rc;
    return NULL;
}

/* Adds job b's counts and dense histograms into job a's. */
static int merge_job(job *a, const job *b)
{
    ma_stats_tally *x = &a->t;
    const ma_stats_tally *y = &b->t;
    x->canonical += y->canonical;
    x->markers += y->markers;
    x->positions += y->positions;
    x->bad += y->bad;
    x->win_entries += y->win_entries;
    x->draw_entries += y->draw_entries;
    x->loss_entries += y->loss_entries;
    x->win_positions += y->win_positions;
    x->draw_positions += y->draw_positions;
    x->loss_positions += y->loss_positions;
    if (y->longest_win > x->longest_win)
        x->longest_win = y->longest_win;
    if (y->longest_loss > x->longest_loss)
        x->longest_loss = y->longest_loss;
    for (size_t d = 0; d < 4 * (size_t)DEPTHS; d++)
        a->s.we[d] += b->s.we[d]; /* we, le, wp, lp are one allocation */
    for (size_t k = 0; k < 2 * AKEY_WINDOW + 1; k++)
        a->s.akey[k] += b->s.akey[k];
    for (size_t i = 0; i < b->s.n_far; i++)
        for (uint64_t c = 0; c < b->s.far[i].entries; c++)
            if (count_akey(&a->s, b->s.far[i].a) != MA_OK)
                return MA_ENOMEM;
    return MA_OK;
}

int ma_stats_tally_source(ma_stats_tally *out, const ma_source *src, int threads,
                          ma_progress *progress, ma_error *err)
{
    tally_init(out);
    if (threads < 1)
        threads = 1;
    if (threads > MA_STATS_MAX_THREADS)
        threads = MA_STATS_MAX_THREADS;
    uint64_t n = ma_source_entries(src);
    if (n < 65536)
        threads = 1;
    /* Ranges and chunks on representative boundaries of the open scheme, so that each
     * representative is classified once (ma_source_canonical_range). */
    ma_sector sec = ma_source_sector(src);
    uint64_t unit = ma_source_format(src) == MA_FORMAT_OPEN ? ma_open_binomial(MA_POINTS - sec.w, sec.b)
                                                             : 4096;
    if (!unit)
        unit = 1;
    uint64_t chunk = unit * (unit < 65536 ? 65536 / unit : 1), units = (n + unit - 1) / unit;
    job jobs[MA_STATS_MAX_THREADS];
    pthread_t tid[MA_STATS_MAX_THREADS];
    int started[MA_STATS_MAX_THREADS] = {0};
    memset(jobs, 0, sizeof jobs);
    int rc = MA_OK;
    for (int t = 0; t < threads && rc == MA_OK; t++) {
        job *j = &jobs[t];
        j->src = src;
        j->lo = units * (uint64_t)t / (uint64_t)threads * unit;
        j->hi = units * (uint64_t)(t + 1) / (uint64_t)threads * unit;
        j->lo = j->lo > n ? n : j->lo;
        j->hi = j->hi > n ? n : j->hi;
        j->chunk = chunk;
        j->progress = progress;
        tally_init(&j->t);
        j->t.has_akey = ma_source_format(src) == MA_FORMAT_SEC2;
        if ((rc = scratch_init(&j->s)) != MA_OK)
            break;
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, tally_range, j) == 0;
    }
    if (rc == MA_OK)
        tally_range(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else if (rc == MA_OK)
            tally_range(&jobs[t]); /* no thread for it: count it here */
    }
    for (int t = 0; rc == MA_OK && t < threads; t++)
        rc = jobs[t].rc;
    for (int t = 1; rc == MA_OK && t < threads; t++)
        rc = merge_job(&jobs[0], &jobs[t]);
    if (rc == MA_OK) {
        *out = jobs[0].t;
        out->entries = n;
        rc = scratch_collect(&jobs[0].s, out);
    }
    for (int t = 0; t < threads; t++)
        scratch_free(&jobs[t].s);
    if (rc) {
        ma_stats_tally_free(out);
        return ma_error_set(err, rc, "%s: out of memory", ma_source_name(src));
    }
    return MA_OK;
}

int ma_stats_tally_add(ma_stats_tally *a, const ma_stats_tally *b, ma_error *err)
{
    int first = a->entries == 0 && a->n_bins == 0 && a->n_akey == 0 && !a->has_akey;
    a->entries += b->entries;
    a->canonical += b->canonical;
    a->markers += b->markers;
    a->positions += b->positions;
    a->bad += b->bad;
    a->win_entries += b->win_entries;
    a->draw_entries += b->draw_entries;
    a->loss_entries += b->loss_entries;
    a->win_positions += b->win_positions;
    a->draw_positions += b->draw_positions;
    a->loss_positions += b->loss_positions;
    if (b->longest_win > a->longest_win)
        a->longest_win = b->longest_win;
    if (b->longest_loss > a->longest_loss)
        a->longest_loss = b->longest_loss;
    /* merge the sorted bin lists */
    ma_stats_bin *bins = calloc(a->n_bins + b->n_bins + 1, sizeof *bins);
    if (!bins)
        return ma_error_set(err, MA_ENOMEM, "stats: out of memory");
    size_t i = 0, j = 0, k = 0;
    while (i < a->n_bins || j < b->n_bins) {
        if (j == b->n_bins || (i < a->n_bins && a->bins[i].depth < b->bins[j].depth)) {
            bins[k++] = a->bins[i++];
        } else if (i == a->n_bins || b->bins[j].depth < a->bins[i].depth) {
            bins[k++] = b->bins[j++];
        } else {
            ma_stats_bin m = a->bins[i++];
            const ma_stats_bin *x = &b->bins[j++];
            m.win_entries += x->win_entries;
            m.loss_entries += x->loss_entries;
            m.win_positions += x->win_positions;
            m.loss_positions += x->loss_positions;
            bins[k++] = m;
        }
    }
    free(a->bins);
    a->bins = bins;
    a->n_bins = k;
    /* A distributions are kept while every counted sector has one */
    a->has_akey = (first || a->has_akey) && b->has_akey;
    if (!a->has_akey) {
        free(a->akey);
        a->akey = NULL;
        a->n_akey = 0;
        return MA_OK;
    }
    ma_stats_akey *ak = calloc(a->n_akey + b->n_akey + 1, sizeof *ak);
    if (!ak)
        return ma_error_set(err, MA_ENOMEM, "stats: out of memory");
    i = j = k = 0;
    while (i < a->n_akey || j < b->n_akey) {
        if (j == b->n_akey || (i < a->n_akey && a->akey[i].a < b->akey[j].a))
            ak[k++] = a->akey[i++];
        else if (i == a->n_akey || b->akey[j].a < a->akey[i].a)
            ak[k++] = b->akey[j++];
        else {
            ak[k] = a->akey[i++];
            ak[k++].entries += b->akey[j++].entries;
        }
    }
    free(a->akey);
    a->akey = ak;
    a->n_akey = k;
    return MA_OK;
}

static int cmp_sector(const void *x, const void *y)
{
    const ma_stats_sector *a = x, *b = y;
    const int ka[5] = {a->variant, a->sector.w, a->sector.b, a->sector.wf, a->sector.bf};
    const int kb[5] = {b->variant, b->sector.w, b->sector.b, b->sector.wf, b->sector.bf};
    for (int i = 0; i < 5; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void fill_from(ma_stats_sector *s, const ma_db_sector *d, ma_format f)
{
    snprintf(s->name, sizeof s->name, "%s", d->name);
    snprintf(s->file, sizeof s->file, "%s", d->file);
    s->path = d->path; /* the database's own string: it lives as long as the stats' database */
    s->variant = d->variant;
    s->sector = d->sector;
    s->format = f;
    s->is_start = d->sector.w == 0 && d->sector.b == 0;
}

int ma_stats_database(ma_stats *out, ma_database *db, ma_sector_pick *picks, size_t n_picks,
                      int threads, ma_progress *progress, ma_error *err)
{
    memset(out, 0, sizeof *out);
    tally_init(&out->total);
    size_t cap = ma_database_count(db) + 1;
    out->sectors = calloc(cap, sizeof *out->sectors);
    if (!out->sectors)
        return ma_error_set(err, MA_ENOMEM, "stats: out of memory");
    ma_format f = ma_database_format(db);
    for (size_t i = 0; i < ma_database_count(db); i++) {
        const ma_db_sector *d = ma_database_sector(db, i);
        if (ma_sector_picks_match(picks, n_picks, d->variant, d->sector))
            fill_from(&out->sectors[out->n++], d, f);
    }
    const ma_sector_pick *lost = ma_sector_picks_unmatched(picks, n_picks);
    if (lost) {
        char root[1100], sec[16];
        ma_escape_name(ma_database_root(db), root, sizeof root);
        ma_sector_format(lost->sector, sec, sizeof sec);
        ma_stats_free(out);
        return ma_error_set(err, MA_EMISSING, "%s: sector %s: no file for this sector", root,
                            lost->named_variant ? lost->text : sec);
    }
    qsort(out->sectors, out->n, sizeof *out->sectors, cmp_sector);
    for (size_t i = 0; i < out->n; i++) {
        ma_stats_sector *s = &out->sectors[i];
        tally_init(&s->t);
        if (s->unusable) {
            out->n_unusable++;
            continue;
        }
        const ma_source *src;
        ma_error e;
        int rc = ma_database_source(db, s->variant, s->sector, &src, &e);
        if (rc == MA_ENOMEM) {
            *err = e;
            ma_stats_free(out);
            return rc;
        }
        if (rc) {
            s->unusable = 1;
            snprintf(s->message, sizeof s->message, "%s", e.msg);
            out->n_unusable++;
            continue;
        }
        if (progress) {
            ma_progress_set_label(progress, s->name);
            ma_progress_set_total(progress, progress->total + ma_source_entries(src));
        }
        rc = ma_stats_tally_source(&s->t, src, threads, progress, err);
        if (rc == MA_OK && s->is_start) {
            ma_source_read(src, 0, &s->start);
            if (s->start.kind == MA_STORED_VALUE)
                ma_value_format(s->start.value, s->start_text, sizeof s->start_text);
            else
                ma_source_describe(src, &s->start, s->start_text, sizeof s->start_text);
        }
        ma_database_release(db, s->variant, s->sector);
        if (rc == MA_OK)
            rc = ma_stats_tally_add(&out->total, &s->t, err);
        if (rc) {
            ma_stats_free(out);
            return rc;
        }
    }
    return MA_OK;
}

void ma_stats_free(ma_stats *s)
{
    for (size_t i = 0; s->sectors && i < s->n; i++)
        ma_stats_tally_free(&s->sectors[i].t);
    free(s->sectors);
    ma_stats_tally_free(&s->total);
    s->sectors = NULL;
    s->n = 0;
}
