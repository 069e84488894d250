/* retro: count/value retrograde analysis of one sector-graph component. */
#include "solver/retro.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "solver/svsector.h"

#define V_LOSS 0x4000u
#define V_DRAW 0x8000u
#define V_WIN 0xC000u
#define OUTCOME(v) ((v) & 0xC000u)
#define DEPTH(v) ((v) & 0x3FFFu)
#define MAX_DEPTH 0x3FFF
/* Added to a count when the entry can never be a loss (a draw or win is already available). */
#define NEVER_LOSS 0x1000u
#define IS_COUNT(v) ((v) != 0 && OUTCOME(v) == 0)
#define MAX_CLASSES 512

uint16_t ma_retro_negate(uint16_t v)
{
    switch (OUTCOME(v)) {
    case V_WIN: return (uint16_t)(V_LOSS | (DEPTH(v) + 1));
    case V_LOSS: return (uint16_t)(V_WIN | (DEPTH(v) + 1));
    default: return (uint16_t)v;
    }
}

static int score(uint16_t v)
{
    switch (OUTCOME(v)) {
    case V_WIN: return 3 * 0x4000 - (int)DEPTH(v);
    case V_DRAW: return 0x4000;
    case V_LOSS: return (int)DEPTH(v);
    default: return -1;
    }
}

int ma_retro_better(uint16_t a, uint16_t b)
{
    return score(a) > score(b);
}

struct bucket {
    uint32_t *items;
    size_t n, cap;
};

struct solver {
    ma_retro_job *job;
    ma_error *err;
    int rc;
    struct bucket *buckets;
    int nbuckets;
    /* per-position scratch filled by the turn callback */
    int member;            /* member being evaluated */
    int best_win;          /* smallest win depth over external turns, INT_MAX if none */
    int has_draw;
    int max_loss;          /* largest loss depth over external turns, -1 if none */
    int nclass;
    uint64_t classes[MAX_CLASSES];
    uint32_t class_w[MAX_CLASSES], class_b[MAX_CLASSES];
    /* open-addressing set over classes[], valid where stamp equals the current round */
    uint64_t round;
    uint64_t hstamp[2 * MAX_CLASSES];
    uint64_t hkey[2 * MAX_CLASSES];
};

static void new_round(struct solver *sv)
{
    sv->nclass = 0;
    sv->round++;
}

static int find_member(const ma_retro_job *job, ma_sv_sector s)
{
    for (int i = 0; i < job->nmembers; i++)
        if (ma_svrules_sector_eq(job->members[i].sector, s))
            return i;
    return -1;
}

static const ma_retro_table *find_child(const ma_retro_job *job, ma_sv_sector s)
{
    for (int i = 0; i < job->nchildren; i++)
        if (ma_svrules_sector_eq(job->children[i].sector, s))
            return &job->children[i];
    return NULL;
}

static void fail(struct solver *sv, int code, const char *what, ma_sv_sector s, uint64_t e)
{
    if (sv->rc != MA_OK)
        return;
    char name[32];
    ma_svsector_format(name, sizeof name, s);
    sv->rc = ma_error_set(sv->err, code, "solve: sector %s: entry %llu: %s", name,
                          (unsigned long long)e, what);
}

static void add_class(struct solver *sv, int member, uint64_t e, uint32_t w, uint32_t b)
{
    uint64_t key = (uint64_t)member << 40 | e;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 54); /* 10 bits: 2 * MAX_CLASSES */
    while (sv->hstamp[h] == sv->round) {
        if (sv->hkey[h] == key)
            return;
        h = (h + 1) & (2 * MAX_CLASSES - 1);
    }
    if (sv->nclass == MAX_CLASSES) {
        fail(sv, MA_EINTERNAL, "too many successor classes", sv->job->members[member].sector, e);
        return;
    }
    sv->hstamp[h] = sv->round;
    sv->hkey[h] = key;
    sv->class_w[sv->nclass] = w;
    sv->class_b[sv->nclass] = b;
    sv->classes[sv->nclass++] = key;
}

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct solver *sv = ctx;
    const ma_retro_job *job = sv->job;
    if (t->kind == MA_SVTURN_WIN) {
        if (sv->best_win > 1)
            sv->best_win = 1;
        return;
    }
    int m = find_member(job, t->sector);
    if (m >= 0) {
        add_class(sv, m, ma_svindex_entry(job->ix, t->w, t->b), t->w, t->b);
        return;
    }
    const ma_retro_table *child = find_child(job, t->sector);
    if (!child) {
        fail(sv, MA_EINTERNAL, "a turn leads to a sector that is not loaded", t->sector, 0);
        return;
    }
    uint64_t e = ma_svindex_entry(job->ix, t->w, t->b);
    uint16_t v = e < child->entries ? child->vals[e] : 0;
    if (OUTCOME(v) == 0) {
        fail(sv, MA_EFORMAT, "a successor entry holds no value (0x0000 at a canonical entry)",
             t->sector, e);
        return;
    }
    uint16_t mine = ma_retro_negate(v);
    if (OUTCOME(mine) == V_WIN) {
        if ((int)DEPTH(mine) < sv->best_win)
            sv->best_win = (int)DEPTH(mine);
    } else if (OUTCOME(mine) == V_DRAW) {
        sv->has_draw = 1;
    } else if ((int)DEPTH(mine) > sv->max_loss) {
        sv->max_loss = (int)DEPTH(mine);
    }
}

/* Evaluates the turns of (w, b) in member m; returns the number of turns. */
static int evaluate(struct solver *sv, int m, uint32_t w, uint32_t b)
{
    sv->member = m;
    sv->best_win = INT_MAX;
    sv->has_draw = 0;
    sv->max_loss = -1;
    new_round(sv);
    return ma_svrules_turns(sv->job->rules, sv->job->members[m].sector, w, b, on_turn, sv);
}

static void push(struct solver *sv, int depth, int member, uint64_t e)
{
    if (sv->rc != MA_OK)
        return;
    if (depth > MAX_DEPTH) {
        fail(sv, MA_EINTERNAL, "depth exceeds 16383 plies", sv->job->members[member].sector, e);
        return;
    }
    if (depth >= sv->nbuckets) {
        int n = sv->nbuckets ? sv->nbuckets : 64;
        while (n <= depth)
            n *= 2;
        struct bucket *nb = realloc(sv->buckets, (size_t)n * sizeof *nb);
        if (!nb) {
            sv->rc = ma_error_set(sv->err, MA_ENOMEM, "solve: out of memory for depth buckets");
            return;
        }
        memset(nb + sv->nbuckets, 0, (size_t)(n - sv->nbuckets) * sizeof *nb);
        sv->buckets = nb;
        sv->nbuckets = n;
    }
    struct bucket *bk = &sv->buckets[depth];
    if (bk->n == bk->cap) {
        size_t cap = bk->cap ? bk->cap * 2 : 1024;
        uint32_t *ni = realloc(bk->items, cap * sizeof *ni);
        if (!ni) {
            sv->rc = ma_error_set(sv->err, MA_ENOMEM, "solve: out of memory for depth buckets");
            return;
        }
        bk->items = ni;
        bk->cap = cap;
    }
    bk->items[bk->n++] = (uint32_t)e | (uint32_t)member << 31;
}

static uint16_t blocked_value(const ma_svrules *r)
{
    return r->bug == MA_SVBUG_BLOCKED_NOT_LOST ? V_DRAW : V_LOSS;
}

/* Initial pass over every entry of member m. */
static void init_member(struct solver *sv, int m, ma_progress *pr, uint64_t *done)
{
    ma_retro_job *job = sv->job;
    const ma_svindex *ix = job->ix;
    ma_retro_table *t = &job->members[m];
    ma_sv_sector s = t->sector;
    int nfree = 24 - s.w;
    uint64_t per_rep = ma_svindex_binom(ix, nfree, s.b);
    int full_draw = ma_svrules_full_board_draw(job->rules, s);
    for (uint32_t f = 0; f < ix->rep_count[s.w] && sv->rc == MA_OK; f++) {
        uint32_t w = ix->reps[s.w][f];
        uint16_t stab = ix->stab[s.w][f];
        uint32_t pts[24];
        int k = 0;
        for (uint32_t fr = ~w & MA_SV_FULL; fr; fr &= fr - 1)
            pts[k++] = fr & -fr;
        /* B-subsets of the free points in colex order = increasing compressed mask. */
        uint32_t c = s.b ? (1u << s.b) - 1 : 0;
        for (uint64_t g = 0; g < per_rep && sv->rc == MA_OK; g++) {
            uint64_t e = (uint64_t)f * per_rep + g;
            uint32_t b = 0;
            for (uint32_t cc = c; cc; cc &= cc - 1)
                b |= pts[__builtin_ctz(cc)];
            if (s.b) {
                uint32_t lo = c & -c, r = c + lo;
                c = (((r ^ c) >> 2) / lo) | r;
            }
            int canonical = 1;
            for (uint16_t fix = stab & (uint16_t)~1u; fix && canonical; fix &= (uint16_t)(fix - 1))
                if (ma_svindex_apply(ix, __builtin_ctz(fix), b) < b)
                    canonical = 0;
            if (!canonical) {
                t->vals[e] = 0;
                continue;
            }
            if (full_draw) {
                t->vals[e] = V_DRAW;
                continue;
            }
            int nturns = evaluate(sv, m, w, b);
            if (sv->rc != MA_OK)
                return;
            if (nturns == 0) {
                uint16_t v = blocked_value(job->rules);
                if (v == V_DRAW || !job->cyclic) {
                    t->vals[e] = v;
                } else {
                    t->vals[e] = 0;
                    push(sv, 0, m, e);
                }
                continue;
            }
            if (!job->cyclic) {
                if (sv->nclass)
                    fail(sv, MA_EINTERNAL, "a turn stays inside an acyclic sector", s, e);
                t->vals[e] = sv->best_win != INT_MAX ? (uint16_t)(V_WIN | sv->best_win)
                             : sv->has_draw          ? (uint16_t)V_DRAW
                                                     : (uint16_t)(V_LOSS | sv->max_loss);
                continue;
            }
            unsigned bias = 0;
            if (sv->best_win != INT_MAX) {
                push(sv, sv->best_win, m, e);
                bias = NEVER_LOSS;
            }
            if (sv->has_draw)
                bias = NEVER_LOSS;
            if (sv->nclass == 0 && !bias) {
                t->vals[e] = 0;
                push(sv, sv->max_loss, m, e);
            } else {
                t->vals[e] = (uint16_t)(sv->nclass + bias);
            }
        }
        /* the initial pass earns half of an entry's share of the run (retro.h) */
        uint64_t half = (*done + per_rep) / 2 - *done / 2;
        *done += per_rep;
        ma_progress_add(pr, half);
    }
}

static void on_unmove(void *ctx, uint32_t w, uint32_t b)
{
    struct solver *sv = ctx;
    add_class(sv, sv->member, ma_svindex_entry(sv->job->ix, w, b), w, b);
}

/* Resolves the popped entry (m, e) at depth d and updates its predecessors. */
static void propagate(struct solver *sv, int d, int m, uint64_t e)
{
    ma_retro_job *job = sv->job;
    ma_retro_table *t = &job->members[m];
    uint16_t word = t->vals[e];
    int is_loss = (d % 2) == 0;
    if (is_loss) {
        if (word != 0)
            return;
        t->vals[e] = (uint16_t)(V_LOSS | d);
    } else {
        if (!IS_COUNT(word))
            return; /* already resolved by a shallower win */
        t->vals[e] = (uint16_t)(V_WIN | d);
    }
    int pm = find_member(job, ma_svrules_negate(t->sector));
    if (pm < 0)
        return;
    uint32_t w, b;
    if (ma_svindex_board(job->ix, t->sector.w, t->sector.b, e, &w, &b, sv->err) != MA_OK) {
        sv->rc = sv->err ? sv->err->code : MA_EINTERNAL;
        return;
    }
    sv->member = pm;
    new_round(sv);
    ma_svrules_unmoves(job->rules, t->sector, w, b, on_unmove, sv);
    int n = sv->nclass;
    for (int i = 0; i < n && sv->rc == MA_OK; i++) {
        uint64_t pe = sv->classes[i] & (((uint64_t)1 << 40) - 1);
        uint16_t *pw = &job->members[pm].vals[pe];
        if (!IS_COUNT(*pw))
            continue;
        if (is_loss) {
            push(sv, d + 1, pm, pe);
            continue;
        }
        if (--*pw != 0)
            continue;
        /* Every internal successor is a win for the opponent: the longest loss wins out. */
        uint32_t bw = sv->class_w[i], bb = sv->class_b[i];
        uint64_t keep_classes = (uint64_t)n;
        /* evaluate() reuses the class scratch; save what is still to be visited. */
        uint64_t rest[MAX_CLASSES];
        uint32_t rest_w[MAX_CLASSES], rest_b[MAX_CLASSES];
        memcpy(rest, sv->classes, keep_classes * sizeof rest[0]);
        memcpy(rest_w, sv->class_w, keep_classes * sizeof rest_w[0]);
        memcpy(rest_b, sv->class_b, keep_classes * sizeof rest_b[0]);
        evaluate(sv, pm, bw, bb);
        int depth = sv->max_loss > d + 1 ? sv->max_loss : d + 1;
        memcpy(sv->classes, rest, keep_classes * sizeof rest[0]);
        memcpy(sv->class_w, rest_w, keep_classes * sizeof rest_w[0]);
        memcpy(sv->class_b, rest_b, keep_classes * sizeof rest_b[0]);
        sv->nclass = n;
        push(sv, depth, pm, pe);
    }
}

int ma_retro_solve(ma_retro_job *job, ma_retro_stats stats[2], ma_error *err)
{
    struct solver *sv = calloc(1, sizeof *sv);
    if (!sv)
        return ma_error_set(err, MA_ENOMEM, "solve: out of memory");
    sv->job = job;
    sv->err = err;
    for (int m = 0; m < job->nmembers; m++)
        if (job->members[m].entries >= ((uint64_t)1 << 31)) {
            free(sv);
            return ma_error_set(err, MA_EINTERNAL, "solve: sector too large for the bucket queue");
        }
    char label[96], name[32];
    ma_svsector_format(name, sizeof name, job->members[0].sector);
    snprintf(label, sizeof label, "solve %s_%s%s", ma_svrules_variant_name(job->rules->variant),
             name, job->nmembers == 2 ? " (+twin)" : "");
    uint64_t total = 0, done = 0;
    for (int m = 0; m < job->nmembers; m++)
        total += job->members[m].entries;
    ma_progress *pr = job->progress;
    ma_progress_set_label(pr, label);
    for (int m = 0; m < job->nmembers && sv->rc == MA_OK; m++)
        init_member(sv, m, pr, &done);
    uint64_t credited = 0, share = total - total / 2; /* what the retrograde phase earns */
    if (sv->rc == MA_OK && job->cyclic) {
        snprintf(label + strlen(label), sizeof label - strlen(label), " retrograde");
        ma_progress_set_label(pr, label);
        uint64_t popped = 0;
        for (int d = 0; d < sv->nbuckets && sv->rc == MA_OK; d++) {
            struct bucket *bk = &sv->buckets[d];
            for (size_t i = 0; i < bk->n && sv->rc == MA_OK; i++) {
                uint32_t item = bk->items[i];
                propagate(sv, d, (int)(item >> 31), item & 0x7FFFFFFFu);
                if ((++popped & 0xFFFF) == 0 && credited + 0x10000 < share) {
                    ma_progress_add(pr, 0x10000);
                    credited += 0x10000;
                }
            }
            free(bk->items);
            bk->items = NULL;
            bk->n = bk->cap = 0;
        }
    }
    if (sv->rc == MA_OK)
        ma_progress_add(pr, share - credited);
    for (int d = 0; d < sv->nbuckets; d++)
        free(sv->buckets[d].items);
    free(sv->buckets);
    int rc = sv->rc;
    free(sv);
    if (rc != MA_OK)
        return rc;
    for (int m = 0; m < job->nmembers; m++) {
        ma_retro_stats *st = &stats[m];
        memset(st, 0, sizeof *st);
        st->max_depth = -1;
        ma_retro_table *t = &job->members[m];
        for (uint64_t e = 0; e < t->entries; e++) {
            uint16_t v = t->vals[e];
            if (v == 0)
                continue;
            if (IS_COUNT(v))
                v = t->vals[e] = V_DRAW; /* never resolved: neither side can force a win */
            st->canonical++;
            if (OUTCOME(v) == V_WIN)
                st->wins++;
            else if (OUTCOME(v) == V_LOSS)
                st->losses++;
            else
                st->draws++;
            if (OUTCOME(v) != V_DRAW && (int)DEPTH(v) > st->max_depth)
                st->max_depth = (int)DEPTH(v);
        }
    }
    return MA_OK;
}
