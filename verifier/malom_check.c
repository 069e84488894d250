/* Malom sector verification (see malom_check.h for the contract). */
#include "verifier/malom_check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/progress.h"

#define CHUNK 4096

static const char *const class_names[MA_MCHECK_CLASSES + 1] = {
    "wrong-outcome", "wrong-depth", "wrong-draw-class", "wrong-terminal", "bad-encoding",
    "symmetry-inconsistency", "missing-child"};

const char *ma_mcheck_class_name(int cls)
{
    if (cls < 0 || cls > MA_MCHECK_CLASSES)
        return "unknown";
    return class_names[cls];
}

void ma_mcheck_format_value(const ma_malom_frame *f, int legacy, ma_malom_value v, char *buf,
                            size_t len)
{
    int32_t a = v.key1 + f->v;
    if (a == f->vw)
        snprintf(buf, len, "win %d", (int)v.key2);
    else if (a == f->vl)
        snprintf(buf, len, "loss %d", (int)v.key2);
    else if (legacy || v.key1 == 0)
        snprintf(buf, len, "draw A=%d", (int)a);
    else
        snprintf(buf, len, "draw A=%d k2=%d", (int)a, (int)v.key2);
}

int ma_mcheck_prepare_index(ma_malom_index *ix, ma_variant v, ma_sector s, ma_error *err)
{
    ma_vrules r;
    int rc = ma_vrules_init(&r, v, s, err);
    if (rc)
        return rc;
    rc = ma_malom_index_prepare(ix, s.w, err);
    for (int k = 0; !rc && k < MA_TURN_KINDS; k++)
        if (r.succ_exists[k])
            rc = ma_malom_index_prepare(ix, r.succ[k].w, err);
    return rc;
}

/* What the turns of one canonical position say. */
struct derivation {
    ma_malom_value best; /* maximum over the known turns (a lower bound when !full) */
    int full;            /* every turn's value known */
    int fixed;           /* the value is fixed by the rules alone */
    int missing;         /* some successor sector file is absent */
    int broken;          /* some successor's canonical entry is a marker */
    int missing_kind[MA_TURN_KINDS];
};

struct shared {
    const ma_mcheck_input *in;
    ma_vrules rules;
    ma_sector sector;
    ma_malom_frame frame;
    int legacy;
    const ma_malom_file *child[MA_TURN_KINDS];
    ma_malom_frame child_frame[MA_TURN_KINDS];
    uint64_t entries;
    atomic_uint_fast64_t next;
    atomic_uint_fast64_t done;
    atomic_int failed;
    atomic_int canceled;
};

static void derive(const struct shared *sh, ma_board pos, ma_vturns *turns, struct derivation *d)
{
    memset(d, 0, sizeof *d);
    d->best = ma_malom_no_turn(&sh->frame);
    d->full = 1;
    if (sh->in->full_board_draw && sh->sector.w == 12 && sh->sector.b == 12) {
        d->best.key1 = 0;
        d->best.key2 = 0;
        d->fixed = 1;
        return;
    }
    ma_vrules_generate(&sh->rules, pos, turns);
    if (turns->immediate_wins > 0) {
        /* A win in 1 is the largest value any turn can have, so no successor can change it. */
        d->best = ma_malom_win_in_one(&sh->frame);
        d->fixed = 1;
        return;
    }
    if (turns->n == 0) {
        d->fixed = 1;
        return;
    }
    ma_malom_mover mi = {0};
    int have_mi = 0;
    for (int i = 0; i < turns->n; i++) {
        int k = turns->kind[i];
        const ma_malom_file *cf = sh->child[k];
        if (!cf) {
            d->full = 0;
            d->missing = 1;
            d->missing_kind[k] = 1;
            continue;
        }
        /* Successors sharing a mover mask (all non-removal ones, removal ones per removed
         * stone) share the mover part of the index: compute it once per run of equal masks. */
        if (!have_mi || mi.mover_open != turns->succ[i].mover) {
            ma_malom_mover_info(sh->in->ix, turns->succ[i].mover, &mi);
            have_mi = 1;
        }
        uint64_t idx = ma_malom_index_rank_with(sh->in->ix, &mi, turns->succ[i].opp);
        ma_malom_entry e;
        ma_malom_file_entry(cf, idx, &e);
        if (e.kind == MA_MALOM_SYM) {
            d->full = 0;
            d->broken = 1;
            continue;
        }
        ma_malom_value cv = {e.key1, e.key2};
        ma_malom_value m = ma_malom_turn_value(cv, sh->child_frame[k].v, sh->frame.v);
        if (ma_malom_value_cmp(m, d->best) > 0)
            d->best = m;
    }
}

static int same_value(ma_malom_value a, ma_malom_value b)
{
    return a.key1 == b.key1 && (a.key1 == 0 || a.key2 == b.key2);
}

/* Class of a stored value that differs from (or lies below) the derived one. */
static int mismatch_class(const struct shared *sh, const ma_malom_entry *st, ma_malom_value der,
                          int fixed)
{
    if (fixed)
        return MA_MCHECK_WRONG_TERMINAL;
    ma_malom_result rs, rd;
    if (ma_malom_interpret(&sh->frame, st, &rs))
        return MA_MCHECK_BAD_ENCODING;
    ma_malom_entry de = {der.key1 ? MA_MALOM_VAL : MA_MALOM_COUNT, der.key1, der.key2, -1};
    if (ma_malom_interpret(&sh->frame, &de, &rd))
        return MA_MCHECK_WRONG_OUTCOME;
    if (rs.outcome != rd.outcome)
        return MA_MCHECK_WRONG_OUTCOME;
    if (rs.outcome != MA_MALOM_DRAW)
        return MA_MCHECK_WRONG_DEPTH;
    return MA_MCHECK_WRONG_DRAW_CLASS;
}

struct worker {
    struct shared *sh;
    int id;
    ma_mcheck_result part; /* counters and items of this thread */
    size_t cap;
    ma_error err;
    int rc;
};

static int add_item(struct worker *w, const ma_mcheck_item *it)
{
    if (w->part.n_items == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        ma_mcheck_item *p = realloc(w->part.items, cap * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        w->part.items = p;
        w->cap = cap;
    }
    w->part.items[w->part.n_items++] = *it;
    w->part.by_class[it->cls]++;
    w->part.discrepancies++;
    return MA_OK;
}

static int check_index(struct worker *w, uint64_t idx, ma_vturns *turns)
{
    struct shared *sh = w->sh;
    const ma_malom_index *ix = sh->in->ix;
    ma_sector s = sh->sector;
    ma_malom_entry st;
    ma_malom_file_entry(sh->in->file, idx, &st);
    int marker = ma_malom_index_marker(ix, s.w, s.b, idx);
    ma_board pos = ma_malom_index_unrank(ix, s.w, s.b, idx);
    ma_board canon;
    uint64_t back = ma_malom_index_rank(ix, pos, &canon);
    char sec[16];
    if ((marker < 0 && back != idx) || (marker >= 0 && back == idx)) {
        ma_sector_format(s, sec, sizeof sec);
        return ma_error_set(&w->err, MA_EINTERNAL,
                            "%s: sector %s: offset %llu: index %llu does not round-trip (rank gives "
                            "%llu): checker index bug",
                            sh->in->path ? sh->in->path : "(sector file)", sec,
                            (unsigned long long)ma_malom_file_entry_offset(sh->in->file, idx),
                            (unsigned long long)idx, (unsigned long long)back);
    }
    ma_mcheck_item it;
    memset(&it, 0, sizeof it);
    it.entry = idx;
    it.stored = st;
    it.expected_marker = marker;
    it.derived_full = 1;
    if (marker >= 0) {
        w->part.markers++;
        ma_board image = ma_malom_sym_apply(marker, pos);
        int ok = st.kind == MA_MALOM_SYM && st.sym_op == marker && image.mover == canon.mover &&
                 image.opp == canon.opp;
        if (ok) {
            w->part.verified++;
            return MA_OK;
        }
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    w->part.canonical++;
    if (st.kind == MA_MALOM_SYM) {
        it.cls = MA_MCHECK_SYMMETRY;
        it.root = 1;
        return add_item(w, &it);
    }
    struct derivation d;
    derive(sh, pos, turns, &d);
    it.derived = d.best;
    it.derived_full = (uint8_t)(d.full || d.fixed);
    ma_malom_value sv = {st.key1, st.key2};
    ma_malom_result rs;
    if (ma_malom_interpret(&sh->frame, &st, &rs)) {
        it.cls = MA_MCHECK_BAD_ENCODING;
        it.root = 1;
        return add_item(w, &it);
    }
    if (d.full || d.fixed) {
        if (same_value(sv, d.best)) {
            w->part.verified++;
            return MA_OK;
        }
        it.cls = (uint8_t)mismatch_class(sh, &st, d.best, d.fixed);
        return add_item(w, &it);
    }
    /* Bounds mode: d.best is a lower bound of the true maximum. */
    if (d.missing)
        w->part.missing_child++;
    if (d.broken)
        w->part.broken_child++;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        w->part.missing_kind[k] |= d.missing_kind[k];
    int c = ma_malom_value_cmp(sv, d.best);
    if (c < 0) {
        it.cls = (uint8_t)mismatch_class(sh, &st, d.best, 0);
        return add_item(w, &it);
    }
    if (c == 0 && rs.outcome == MA_MALOM_WIN) {
        w->part.verified++;
        w->part.bound_wins++;
    }
    else
        w->part.within_bounds++;
    return MA_OK;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    ma_vturns *turns = malloc(sizeof *turns);
    if (!turns) {
        w->rc = ma_error_set(&w->err, MA_ENOMEM, "malom check: out of memory");
        atomic_store(&sh->failed, 1);
        return NULL;
    }
    for (;;) {
        if (atomic_load(&sh->failed))
            break;
        if (sh->in->cancel && *sh->in->cancel) {
            atomic_store(&sh->canceled, 1);
            break;
        }
        uint64_t lo = atomic_fetch_add(&sh->next, CHUNK);
        if (lo >= sh->entries)
            break;
        uint64_t hi = lo + CHUNK < sh->entries ? lo + CHUNK : sh->entries;
        for (uint64_t i = lo; i < hi; i++) {
            int rc = check_index(w, i, turns);
            if (rc) {
                w->rc = rc;
                atomic_store(&sh->failed, 1);
                break;
            }
        }
        atomic_fetch_add(&sh->done, hi - lo);
        if (sh->in->progress)
            ma_progress_add(sh->in->progress, hi - lo);
    }
    free(turns);
    return NULL;
}

static int cmp_items(const void *a, const void *b)
{
    const ma_mcheck_item *x = a, *y = b;
    return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int setup(struct shared *sh, const ma_mcheck_input *in, ma_error *err)
{
    memset(sh, 0, sizeof *sh);
    sh->in = in;
    sh->sector = ma_malom_file_sector(in->file);
    sh->frame = ma_malom_file_frame(in->file);
    sh->legacy = ma_malom_file_format(in->file) == MA_MALOM_SEC;
    int rc = ma_vrules_init(&sh->rules, ma_malom_file_variant(in->file), sh->sector, err);
    if (rc)
        return rc;
    sh->rules.full_board_draw = 0; /* §6 step 4 is applied here, as a parameter */
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!sh->rules.succ_exists[k])
            continue;
        sh->child[k] = ma_sector_equal(sh->rules.succ[k], sh->sector) ? in->file : in->child[k];
        if (sh->child[k]) {
            if (!ma_sector_equal(ma_malom_file_sector(sh->child[k]), sh->rules.succ[k]))
                return ma_error_set(err, MA_EINVAL, "malom check: child of kind %d is the wrong sector", k);
            sh->child_frame[k] = ma_malom_file_frame(sh->child[k]);
        }
    }
    sh->entries = ma_malom_file_entry_count(in->file);
    return MA_OK;
}

int ma_mcheck_sector(ma_mcheck_result *out, const ma_mcheck_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "malom check: bad input");
    double t0 = ma_now();
    struct shared *sh = malloc(sizeof *sh);
    if (!sh)
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    int rc = setup(sh, in, err);
    if (rc) {
        free(sh);
        return rc;
    }
    int nt = in->threads;
    struct worker *ws = calloc((size_t)nt, sizeof *ws);
    pthread_t *tid = calloc((size_t)nt, sizeof *tid);
    if (!ws || !tid) {
        free(ws);
        free(tid);
        free(sh);
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    int started = 0;
    for (int t = 0; t < nt; t++) {
        ws[t].sh = sh;
        ws[t].id = t;
        if (t > 0 && pthread_create(&tid[t], NULL, work, &ws[t]) == 0)
            started++;
        else if (t > 0)
            break;
    }
    work(&ws[0]);
    for (int t = 1; t <= started; t++)
        pthread_join(tid[t], NULL);
    out->sector = sh->sector;
    out->frame = sh->frame;
    out->entries = sh->entries;
    rc = MA_OK;
    size_t n_items = 0;
    for (int t = 0; t <= started; t++) {
        if (ws[t].rc && !rc) {
            rc = ws[t].rc;
            *err = ws[t].err;
        }
        n_items += ws[t].part.n_items;
    }
    if (!rc && n_items) {
        out->items = malloc(n_items * sizeof *out->items);
        if (!out->items)
            rc = ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    for (int t = 0; t <= started; t++) {
        ma_mcheck_result *p = &ws[t].part;
        if (!rc) {
            out->markers += p->markers;
            out->canonical += p->canonical;
            out->verified += p->verified;
            out->within_bounds += p->within_bounds;
            out->bound_wins += p->bound_wins;
            out->missing_child += p->missing_child;
            out->broken_child += p->broken_child;
            out->discrepancies += p->discrepancies;
            for (int c = 0; c < MA_MCHECK_CLASSES; c++)
                out->by_class[c] += p->by_class[c];
            for (int k = 0; k < MA_TURN_KINDS; k++)
                out->missing_kind[k] |= p->missing_kind[k];
            if (p->n_items)
                memcpy(out->items + out->n_items, p->items, p->n_items * sizeof *p->items);
            out->n_items += p->n_items;
        }
        free(p->items);
    }
    free(ws);
    free(tid);
    if (!rc && out->n_items > 1)
        qsort(out->items, out->n_items, sizeof *out->items, cmp_items);
    if (!rc && atomic_load(&sh->canceled))
        rc = ma_error_set(err, MA_ECANCELED, "malom check: check of the sector canceled");
    free(sh);
    out->seconds = ma_now() - t0;
    if (rc) {
        ma_mcheck_result_free(out);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

static int is_discrepancy(const ma_mcheck_result *r, uint64_t entry)
{
    size_t lo = 0, hi = r->n_items;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->items[mid].entry < entry)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->n_items && r->items[lo].entry == entry;
}

int ma_mcheck_classify(ma_mcheck_result *r, const ma_mcheck_input *in,
                       const ma_mcheck_result *const child[MA_TURN_KINDS], ma_error *err)
{
    struct shared *sh = malloc(sizeof *sh);
    ma_vturns *turns = malloc(sizeof *turns);
    if (!sh || !turns) {
        free(sh);
        free(turns);
        return ma_error_set(err, MA_ENOMEM, "malom check: out of memory");
    }
    int rc = setup(sh, in, err);
    const ma_mcheck_result *cres[MA_TURN_KINDS];
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        cres[k] = NULL;
        if (!rc && sh->rules.succ_exists[k])
            cres[k] = ma_sector_equal(sh->rules.succ[k], sh->sector) ? r : (child ? child[k] : NULL);
    }
    r->roots = r->propagated = 0;
    for (size_t i = 0; !rc && i < r->n_items; i++) {
        ma_mcheck_item *it = &r->items[i];
        int prop = 0;
        if (it->cls != MA_MCHECK_SYMMETRY && it->cls != MA_MCHECK_WRONG_TERMINAL &&
            it->cls != MA_MCHECK_BAD_ENCODING) {
            ma_board pos = ma_malom_index_unrank(in->ix, sh->sector.w, sh->sector.b, it->entry);
            ma_vrules_generate(&sh->rules, pos, turns);
            for (int t = 0; t < turns->n && !prop; t++) {
                const ma_mcheck_result *c = cres[turns->kind[t]];
                if (c && c->n_items &&
                    is_discrepancy(c, ma_malom_index_rank(in->ix, turns->succ[t], NULL)))
                    prop = 1;
            }
        }
        it->root = (uint8_t)!prop;
        if (prop)
            r->propagated++;
        else
            r->roots++;
    }
    free(sh);
    free(turns);
    return rc;
}

void ma_mcheck_result_free(ma_mcheck_result *r)
{
    if (!r)
        return;
    free(r->items);
    r->items = NULL;
    r->n_items = 0;
}
