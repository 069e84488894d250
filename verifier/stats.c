/* Statistics of a database through formats/source (verifier/stats.h). */
#include "verifier/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"

#define DEPTHS 65536        /* ma_value.depth is 16 bits */
#define AKEY_WINDOW 32768   /* A values counted densely in [-window, window]; others in a list */

/* Dense counters of one sector while it is walked. */
typedef struct scratch {
    uint64_t *we, *le, *wp, *lp; /* [DEPTHS] */
    uint64_t *akey;              /* [2 * AKEY_WINDOW + 1] */
    ma_stats_akey *far;          /* A values outside the window (never seen in Malom's files) */
    size_t n_far;
} scratch;

static void scratch_free(scratch *s)
{
    free(s->we);
    free(s->akey);
    free(s->far);
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

int ma_stats_tally_source(ma_stats_tally *out, const ma_source *src, ma_progress *progress,
                          ma_error *err)
{
    tally_init(out);
    enum { CHUNK = 1 << 16 };
    scratch s;
    uint8_t *orbit = malloc(CHUNK);
    if (!orbit || scratch_init(&s) != MA_OK) {
        free(orbit);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_source_name(src));
    }
    int open = ma_source_format(src) == MA_FORMAT_OPEN, rc = MA_OK;
    out->has_akey = ma_source_format(src) == MA_FORMAT_SEC2;
    uint64_t n = ma_source_entries(src);
    out->entries = n;
    for (uint64_t lo = 0; rc == MA_OK && lo < n; lo += CHUNK) {
        uint64_t cnt = n - lo < CHUNK ? n - lo : CHUNK;
        if ((rc = ma_source_canonical_range(src, lo, cnt, 1, orbit)) != MA_OK)
            break;
        for (uint64_t i = 0; rc == MA_OK && i < cnt; i++) {
            ma_stored v;
            ma_source_read(src, lo + i, &v);
            uint64_t w = orbit[i];
            if (!w) {
                out->markers++;
                out->bad += open ? v.raw[0] != 0 : v.kind != MA_STORED_NONE;
                continue;
            }
            out->canonical++;
            out->positions += w;
            if (v.kind != MA_STORED_VALUE) {
                out->bad++;
                continue;
            }
            if (out->has_akey && v.has_draw_class)
                rc = count_akey(&s, v.draw_class);
            unsigned d = v.value.depth;
            switch (v.value.outcome) {
            case MA_OUTCOME_WIN:
                out->win_entries++;
                out->win_positions += w;
                s.we[d]++;
                s.wp[d] += w;
                if ((int)d > out->longest_win)
                    out->longest_win = (int)d;
                break;
            case MA_OUTCOME_LOSS:
                out->loss_entries++;
                out->loss_positions += w;
                s.le[d]++;
                s.lp[d] += w;
                if ((int)d > out->longest_loss)
                    out->longest_loss = (int)d;
                break;
            default:
                out->draw_entries++;
                out->draw_positions += w;
            }
        }
        if (progress)
            ma_progress_add(progress, cnt);
    }
    if (rc == MA_OK)
        rc = scratch_collect(&s, out);
    scratch_free(&s);
    free(orbit);
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
    snprintf(s->path, sizeof s->path, "%s", d->path);
    s->variant = d->variant;
    s->sector = d->sector;
    s->format = f;
    s->is_start = d->sector.w == 0 && d->sector.b == 0;
}

int ma_stats_database(ma_stats *out, ma_database *db, ma_sector_pick *picks, size_t n_picks,
                      ma_progress *progress, ma_error *err)
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
        return ma_error_set(err, MA_EMISSING, "%s: sector %s: offset 0: no file for this sector", root,
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
        rc = ma_stats_tally_source(&s->t, src, progress, err);
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
