/* svmalom_ultra: ultra-strong (.sec2) values of a component from the producer's solution. */
#include "solver/svmalom_ultra.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "solver/svsector.h"

#define V_LOSS 0x4000u
#define V_DRAW 0x8000u
#define V_WIN 0xC000u
#define OUTCOME(v) ((v) & 0xC000u)
#define DEPTH(v) ((int)((v) & 0x3FFFu))
#define MAX_CLASSES 512
#define NO_EXIT INT16_MIN
#define NEVER 0xFFFFu

enum { F_GOOD = 1, F_BAD = 2, F_FINAL = 4 };

int ma_svm_less(int a1, int a2, int b1, int b2)
{
    if (a1 != b1)
        return a1 < b1;
    if (a1 < 0)
        return a2 < b2;
    if (a1 > 0)
        return a2 > b2;
    return 0;
}

void ma_svm_turn_value(int k1, int k2, int cor, int *m1, int *m2)
{
    int k1c = k1 + cor;
    if (k1c == 0) {
        *m1 = 0;
        *m2 = 0;
        return;
    }
    long long prod = (long long)k1c * k1;
    int sign = prod > 0 ? 1 : prod < 0 ? -1 : 0;
    *m1 = -k1c;
    *m2 = sign * k2 + 1;
}

struct heap {
    int32_t *key;
    uint32_t *item;
    size_t n, cap;
};

struct ctx {
    ma_svm_ultra_job *job;
    ma_error *err;
    int rc;
    /* per member, only for cyclic components */
    ma_svm_key *exitv[2];
    uint16_t *cnt[2], *rem[2];
    uint8_t *flag[2];
    uint32_t *draws;         /* member << 31 | entry, every draw entry */
    uint64_t ndraws;
    uint32_t *queue;
    uint64_t full_draws;     /* draws stored as a Count outright (full board, counts_only) */
    uint64_t pr_done;        /* progress of the threshold and layer passes */
    struct heap heap;
    /* turn evaluation of one position */
    int member, value;
    int has_exit, ex1, ex2;
    int layer;               /* when > 0: count only internal successors with key1 == layer */
    int nclass;
    uint64_t classes[MAX_CLASSES];
    uint64_t round;
    uint64_t hstamp[2 * MAX_CLASSES], hkey[2 * MAX_CLASSES];
};

static void fail(struct ctx *c, int code, ma_sv_sector s, uint64_t e, const char *what)
{
    if (c->rc != MA_OK)
        return;
    char name[32];
    ma_svsector_format(name, sizeof name, s);
    c->rc = ma_error_set(c->err, code, "malom export: %s_%s: entry %llu: %s",
                         ma_svrules_variant_name(c->job->rules->variant), name,
                         (unsigned long long)e, what);
}

static int find_member(const ma_svm_ultra_job *job, ma_sv_sector s)
{
    for (int i = 0; i < job->nmembers; i++)
        if (ma_svrules_sector_eq(job->members[i].sector, s))
            return i;
    return -1;
}

static const ma_svm_child *find_child(const ma_svm_ultra_job *job, ma_sv_sector s)
{
    for (int i = 0; i < job->nchildren; i++)
        if (ma_svrules_sector_eq(job->children[i].sector, s))
            return &job->children[i];
    return NULL;
}

static void new_round(struct ctx *c)
{
    c->nclass = 0;
    c->round++;
}

static void add_class(struct ctx *c, int member, uint64_t e)
{
    uint64_t key = (uint64_t)member << 40 | e;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 54);
    while (c->hstamp[h] == c->round) {
        if (c->hkey[h] == key)
            return;
        h = (h + 1) & (2 * MAX_CLASSES - 1);
    }
    if (c->nclass == MAX_CLASSES) {
        fail(c, MA_EINTERNAL, c->job->members[member].sector, e, "too many successor classes");
        return;
    }
    c->hstamp[h] = c->round;
    c->hkey[h] = key;
    c->classes[c->nclass++] = key;
}

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct ctx *c = ctx;
    const ma_svm_ultra_job *job = c->job;
    ma_sv_sector here = job->members[c->member].sector;
    if (c->rc != MA_OK)
        return;
    if (t->kind == MA_SVTURN_WIN) {
        fail(c, MA_EINTERNAL, here, 0, "a draw of the producer's solution has a winning turn");
        return;
    }
    int m = find_member(job, t->sector);
    if (m >= 0) {
        uint64_t e = ma_svindex_entry(job->ix, t->w, t->b);
        if (c->layer > 0) {
            if (job->members[m].keys[e].k1 == c->layer &&
                OUTCOME(job->members[m].open[e]) == V_DRAW)
                add_class(c, m, e);
            return;
        }
        uint16_t v = job->members[m].open[e];
        if (OUTCOME(v) == V_DRAW)
            add_class(c, m, e);
        else if (OUTCOME(v) != V_WIN)
            fail(c, MA_EINTERNAL, here, 0,
                 "a draw of the producer's solution has a turn into a loss");
        return;
    }
    if (c->layer > 0 || job->counts_only)
        return;
    const ma_svm_child *child = find_child(job, t->sector);
    if (!child) {
        fail(c, MA_EINTERNAL, t->sector, 0, "a turn leads to a sector that is not loaded");
        return;
    }
    uint32_t mw = ma_svmidx_from_open(job->mix, t->w), mb = ma_svmidx_from_open(job->mix, t->b);
    uint64_t h = ma_svmidx_index(job->mix, mw, mb);
    int k1, k2;
    if (h >= child->file->count || ma_svm_reader_get(child->file, h, &k1, &k2) != MA_OK ||
        (k1 == 0 && k2 < 0)) {
        fail(c, MA_EFORMAT, t->sector, h, "no value at a canonical index of the child's file");
        return;
    }
    int a = k1 + child->value;
    if (k1 != 0 && a == job->vw)
        return; /* a win for the opponent: a loss for us, below every draw */
    if (k1 != 0 && a == job->vl) {
        fail(c, MA_EINTERNAL, here, 0, "a draw of the producer's solution has a turn into a loss");
        return;
    }
    int m1, m2;
    ma_svm_turn_value(k1, k2, child->value + c->value, &m1, &m2);
    if (!c->has_exit || ma_svm_less(c->ex1, c->ex2, m1, m2)) {
        c->has_exit = 1;
        c->ex1 = m1;
        c->ex2 = m2;
    }
}

static int evaluate(struct ctx *c, int m, uint32_t w, uint32_t b, int layer)
{
    c->member = m;
    c->value = c->job->members[m].value;
    c->has_exit = 0;
    c->layer = layer;
    new_round(c);
    return ma_svrules_turns(c->job->rules, c->job->members[m].sector, w, b, on_turn, c);
}

static int fits16(struct ctx *c, int m, uint64_t e, int v)
{
    if (v < INT16_MIN + 1 || v > INT16_MAX) {
        fail(c, MA_EINTERNAL, c->job->members[m].sector, e, "value does not fit 16 bits");
        return 0;
    }
    return 1;
}

/* First pass: wins and losses from the open values, exits and internal counts of the draws. */
static void init_member(struct ctx *c, int m, ma_progress *pr, uint64_t *done)
{
    ma_svm_ultra_job *job = c->job;
    ma_svm_member *mb = &job->members[m];
    const ma_svindex *ix = job->ix;
    ma_sv_sector s = mb->sector;
    uint64_t per_rep = ma_svindex_binom(ix, 24 - s.w, s.b);
    int full_draw = ma_svrules_full_board_draw(job->rules, s);
    memset(mb->keys, 0, mb->entries * sizeof *mb->keys);
    for (uint32_t f = 0; f < ix->rep_count[s.w] && c->rc == MA_OK; f++) {
        uint32_t w = ix->reps[s.w][f];
        uint16_t stab = ix->stab[s.w][f];
        uint32_t pts[24];
        int k = 0;
        for (uint32_t fr = ~w & MA_SV_FULL; fr; fr &= fr - 1)
            pts[k++] = fr & -fr;
        uint32_t cm = s.b ? (1u << s.b) - 1 : 0;
        for (uint64_t g = 0; g < per_rep && c->rc == MA_OK; g++) {
            uint64_t e = (uint64_t)f * per_rep + g;
            uint32_t b = ma_svindex_spread(pts, cm);
            if (s.b)
                cm = ma_svindex_colex_next(cm);
            uint16_t v = mb->open[e];
            if (!ma_svindex_stab_canonical(ix, stab, b))
                continue;
            if (OUTCOME(v) == V_WIN || OUTCOME(v) == V_LOSS) {
                int k1 = (OUTCOME(v) == V_WIN ? job->vw : job->vl) - mb->value;
                if (fits16(c, m, e, DEPTH(v))) {
                    mb->keys[e].k1 = (int16_t)k1;
                    mb->keys[e].k2 = (int16_t)DEPTH(v);
                }
                continue;
            }
            if (OUTCOME(v) != V_DRAW) {
                fail(c, MA_EINTERNAL, s, e,
                     "the producer's file holds no value at a canonical entry");
                return;
            }
            if (full_draw || (job->counts_only && !job->cyclic)) {
                c->full_draws++;
                continue; /* (0, 0): a Count */
            }
            int nturns = evaluate(c, m, w, b, 0);
            if (c->rc != MA_OK)
                return;
            if (nturns == 0) {
                fail(c, MA_EINTERNAL, s, e, "a draw of the producer's solution has no turn");
                return;
            }
            if (!job->cyclic) {
                if (c->nclass) {
                    fail(c, MA_EINTERNAL, s, e, "a turn stays inside an acyclic sector");
                    return;
                }
                if (!c->has_exit) {
                    fail(c, MA_EINTERNAL, s, e,
                         "a draw of the producer's solution has no draw turn");
                    return;
                }
                if (c->ex1 != 0 && fits16(c, m, e, c->ex1) && fits16(c, m, e, c->ex2)) {
                    mb->keys[e].k1 = (int16_t)c->ex1;
                    mb->keys[e].k2 = (int16_t)c->ex2;
                }
                c->draws[c->ndraws++] = (uint32_t)e | (uint32_t)m << 31;
                continue;
            }
            if (job->counts_only) {
                mb->keys[e].k2 = (int16_t)c->nclass;
                c->full_draws++;
                continue;
            }
            if (!c->has_exit && c->nclass == 0) {
                fail(c, MA_EINTERNAL, s, e, "a draw of the producer's solution has no draw turn");
                return;
            }
            if (c->has_exit && fits16(c, m, e, c->ex1) && fits16(c, m, e, c->ex2)) {
                c->exitv[m][e].k1 = (int16_t)c->ex1;
                c->exitv[m][e].k2 = (int16_t)c->ex2;
            } else {
                c->exitv[m][e].k1 = NO_EXIT;
            }
            c->cnt[m][e] = (uint16_t)c->nclass;
            c->draws[c->ndraws++] = (uint32_t)e | (uint32_t)m << 31;
        }
        *done += per_rep;
        ma_progress_update(pr, *done);
    }
}

static void on_unmove(void *ctx, uint32_t w, uint32_t b)
{
    struct ctx *c = ctx;
    add_class(c, c->member, ma_svindex_entry(c->job->ix, w, b));
}

/* Distinct predecessor classes (non-mill un-moves) of entry e of member m, in c->classes;
 * returns their member, -1 when none can exist. */
static int preds(struct ctx *c, int m, uint64_t e)
{
    ma_svm_ultra_job *job = c->job;
    ma_sv_sector s = job->members[m].sector;
    int pm = find_member(job, ma_svrules_negate(s));
    new_round(c);
    if (pm < 0)
        return -1;
    uint32_t w, b;
    int rc = ma_svindex_board(job->ix, s.w, s.b, e, &w, &b, c->err);
    if (rc != MA_OK) {
        c->rc = rc;
        return -1;
    }
    c->member = pm;
    ma_svrules_unmoves(job->rules, s, w, b, on_unmove, c);
    return pm;
}

/* Who can force key1 >= t, and who is forced to key1 <= -t; fixes key1 of draws not yet fixed. */
static void attractor(struct ctx *c, int t)
{
    ma_svm_ultra_job *job = c->job;
    uint64_t qn = 0;
    for (uint64_t i = 0; i < c->ndraws; i++) {
        int m = (int)(c->draws[i] >> 31);
        uint64_t e = c->draws[i] & 0x7FFFFFFFu;
        ma_svm_key ex = c->exitv[m][e];
        c->flag[m][e] = 0;
        c->rem[m][e] = NEVER;
        if (ex.k1 != NO_EXIT && ex.k1 >= t) {
            c->flag[m][e] = F_GOOD;
            c->queue[qn++] = c->draws[i];
        } else if (ex.k1 == NO_EXIT || ex.k1 <= -t) {
            if (c->cnt[m][e] == 0) {
                c->flag[m][e] = F_BAD;
                c->queue[qn++] = c->draws[i];
            } else {
                c->rem[m][e] = c->cnt[m][e];
            }
        }
    }
    for (uint64_t qi = 0; qi < qn && c->rc == MA_OK; qi++) {
        int m = (int)(c->queue[qi] >> 31);
        uint64_t e = c->queue[qi] & 0x7FFFFFFFu;
        int good = c->flag[m][e] == F_GOOD;
        int pm = preds(c, m, e);
        if (pm < 0)
            continue;
        for (int i = 0; i < c->nclass; i++) {
            uint64_t pe = c->classes[i] & 0xFFFFFFFFFFull;
            if (OUTCOME(job->members[pm].open[pe]) != V_DRAW || c->flag[pm][pe])
                continue;
            if (good) {
                if (c->rem[pm][pe] == NEVER || --c->rem[pm][pe] != 0)
                    continue;
                c->flag[pm][pe] = F_BAD;
            } else {
                c->flag[pm][pe] = F_GOOD;
            }
            c->queue[qn++] = (uint32_t)pe | (uint32_t)pm << 31;
        }
    }
    for (uint64_t i = 0; i < c->ndraws; i++) {
        int m = (int)(c->draws[i] >> 31);
        uint64_t e = c->draws[i] & 0x7FFFFFFFu;
        ma_svm_key *k = &job->members[m].keys[e];
        if (k->k1 == 0 && c->flag[m][e])
            k->k1 = (int16_t)(c->flag[m][e] == F_GOOD ? t : -t);
    }
}

static int heap_push(struct ctx *c, int32_t key, uint32_t item)
{
    struct heap *hp = &c->heap;
    if (hp->n == hp->cap) {
        size_t cap = hp->cap ? 2 * hp->cap : 4096;
        int32_t *nk = realloc(hp->key, cap * sizeof *nk);
        if (nk)
            hp->key = nk;
        uint32_t *ni = nk ? realloc(hp->item, cap * sizeof *ni) : NULL;
        if (!nk || !ni) {
            c->rc = ma_error_set(c->err, MA_ENOMEM, "malom export: out of memory for the queue");
            return 0;
        }
        hp->item = ni;
        hp->cap = cap;
    }
    size_t i = hp->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (hp->key[p] <= key)
            break;
        hp->key[i] = hp->key[p];
        hp->item[i] = hp->item[p];
        i = p;
    }
    hp->key[i] = key;
    hp->item[i] = item;
    return 1;
}

static void heap_pop(struct heap *hp, int32_t *key, uint32_t *item)
{
    *key = hp->key[0];
    *item = hp->item[0];
    int32_t lk = hp->key[--hp->n];
    uint32_t li = hp->item[hp->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, s = i;
        int32_t sk = lk;
        if (l < hp->n && hp->key[l] < sk) {
            s = l;
            sk = hp->key[l];
        }
        if (r < hp->n && hp->key[r] < sk)
            s = r;
        if (s == i)
            break;
        hp->key[i] = hp->key[s];
        hp->item[i] = hp->item[s];
        i = s;
    }
    if (hp->n) {
        hp->key[i] = lk;
        hp->item[i] = li;
    }
}

/* key2 of the layer {+t, -t}: +t takes the smallest, -t the largest over its turns of that
 * value, processed in increasing key2 so each is final when taken. */
static void layer(struct ctx *c, int t)
{
    ma_svm_ultra_job *job = c->job;
    c->heap.n = 0;
    uint64_t members = 0;
    for (uint64_t i = 0; i < c->ndraws && c->rc == MA_OK; i++) {
        int m = (int)(c->draws[i] >> 31);
        uint64_t e = c->draws[i] & 0x7FFFFFFFu;
        ma_svm_key *k = &job->members[m].keys[e];
        ma_svm_key ex = c->exitv[m][e];
        c->flag[m][e] = 0;
        if (k->k1 == t) {
            members++;
            if (ex.k1 == t)
                heap_push(c, ex.k2, c->draws[i]);
        } else if (k->k1 == -t) {
            members++;
            uint32_t w, b;
            ma_sv_sector s = job->members[m].sector;
            int rc = ma_svindex_board(job->ix, s.w, s.b, e, &w, &b, c->err);
            if (rc != MA_OK) {
                c->rc = rc;
                return;
            }
            evaluate(c, m, w, b, t);
            c->rem[m][e] = (uint16_t)c->nclass;
            k->k2 = ex.k1 == -t ? ex.k2 : INT16_MIN;
            if (c->nclass == 0) {
                if (ex.k1 != -t) {
                    fail(c, MA_EINTERNAL, s, e, "draw layer without a base value");
                    return;
                }
                c->flag[m][e] = F_FINAL;
                heap_push(c, k->k2, c->draws[i]);
            }
        }
    }
    uint64_t final = 0;
    while (c->heap.n && c->rc == MA_OK) {
        int32_t key;
        uint32_t item;
        heap_pop(&c->heap, &key, &item);
        int m = (int)(item >> 31);
        uint64_t e = item & 0x7FFFFFFFu;
        ma_svm_key *k = &job->members[m].keys[e];
        int plus = k->k1 == t;
        if (plus) {
            if (c->flag[m][e] & F_FINAL)
                continue;
            c->flag[m][e] = F_FINAL;
            if (!fits16(c, m, e, key))
                return;
            k->k2 = (int16_t)key;
        }
        final++;
        int pm = preds(c, m, e);
        if (pm < 0)
            continue;
        if (!fits16(c, m, e, key + 1))
            return;
        for (int i = 0; i < c->nclass; i++) {
            uint64_t pe = c->classes[i] & 0xFFFFFFFFFFull;
            ma_svm_key *pk = &job->members[pm].keys[pe];
            if (OUTCOME(job->members[pm].open[pe]) != V_DRAW || (c->flag[pm][pe] & F_FINAL))
                continue;
            uint32_t pitem = (uint32_t)pe | (uint32_t)pm << 31;
            if (plus) {
                if (pk->k1 != -t)
                    continue;
                if (key + 1 > pk->k2)
                    pk->k2 = (int16_t)(key + 1);
                if (--c->rem[pm][pe] == 0) {
                    c->flag[pm][pe] = F_FINAL;
                    heap_push(c, pk->k2, pitem);
                }
            } else if (pk->k1 == t) {
                heap_push(c, key + 1, pitem);
            }
        }
    }
    if (c->rc == MA_OK && final != members)
        c->rc = ma_error_set(c->err, MA_EINTERNAL,
                             "malom export: draw layer %d: %s of %s positions resolved", t,
                             MA_NUM(final), MA_NUM(members));
}

int ma_svm_ultra_solve(ma_svm_ultra_job *job, ma_svm_ultra_stats *stats, ma_error *err)
{
    struct ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    c->job = job;
    c->err = err;
    memset(stats, 0, sizeof *stats);
    uint64_t total = 0;
    for (int m = 0; m < job->nmembers; m++)
        total += job->members[m].entries;
    if (total >= ((uint64_t)1 << 31)) {
        free(c);
        return ma_error_set(err, MA_EINTERNAL, "malom export: component too large");
    }
    c->draws = malloc((total ? total : 1) * sizeof *c->draws);
    if (!c->draws)
        c->rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    for (int m = 0; m < job->nmembers && job->cyclic && !job->counts_only && c->rc == MA_OK; m++) {
        uint64_t n = job->members[m].entries ? job->members[m].entries : 1;
        c->exitv[m] = malloc(n * sizeof *c->exitv[m]);
        c->cnt[m] = calloc(n, sizeof *c->cnt[m]);
        c->rem[m] = malloc(n * sizeof *c->rem[m]);
        c->flag[m] = calloc(n, 1);
        if (!c->exitv[m] || !c->cnt[m] || !c->rem[m] || !c->flag[m])
            c->rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    }
    char label[96], name[32];
    ma_svsector_format(name, sizeof name, job->members[0].sector);
    snprintf(label, sizeof label, "rank draws %s_%s%s", ma_svrules_variant_name(job->rules->variant),
             name, job->nmembers == 2 ? " (+twin)" : "");
    FILE *out = job->progress_out ? job->progress_out : stderr;
    ma_progress pr;
    uint64_t done = 0;
    ma_progress_start(&pr, out, job->quiet, label, total);
    for (int m = 0; m < job->nmembers && c->rc == MA_OK; m++)
        init_member(c, m, &pr, &done);
    ma_progress_finish(&pr, done);
    if (c->rc == MA_OK && job->cyclic && !job->counts_only) {
        c->queue = malloc((c->ndraws ? c->ndraws : 1) * sizeof *c->queue);
        if (!c->queue)
            c->rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
        /* thresholds: every |key1| > 0 an exit offers, largest first */
        uint8_t *seen = calloc(32768, 1);
        if (!seen && c->rc == MA_OK)
            c->rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
        for (uint64_t i = 0; i < c->ndraws && c->rc == MA_OK; i++) {
            ma_svm_key ex = c->exitv[c->draws[i] >> 31][c->draws[i] & 0x7FFFFFFFu];
            if (ex.k1 != NO_EXIT && ex.k1 != 0)
                seen[ex.k1 < 0 ? -ex.k1 : ex.k1] = 1;
        }
        /* progress of the passes: draws visited, one round per threshold and one per layer */
        uint64_t rounds = 0;
        for (int t = 1; t < 32768 && seen; t++)
            rounds += seen[t];
        snprintf(label + strlen(label), sizeof label - strlen(label), " passes");
        ma_progress_start(&pr, out, job->quiet, label, 2 * rounds * c->ndraws);
        for (int t = 32767; t > 0 && c->rc == MA_OK; t--)
            if (seen && seen[t]) {
                stats->thresholds++;
                attractor(c, t);
                c->pr_done += c->ndraws;
                ma_progress_update(&pr, c->pr_done);
            }
        for (int t = 32767; t > 0 && c->rc == MA_OK; t--)
            if (seen && seen[t]) {
                layer(c, t);
                c->pr_done += c->ndraws;
                ma_progress_update(&pr, c->pr_done);
            }
        ma_progress_finish(&pr, c->pr_done);
        free(seen);
        /* What no threshold fixed is a Count; its counter: the internal draw classes. */
        for (uint64_t i = 0; i < c->ndraws && c->rc == MA_OK; i++) {
            int m = (int)(c->draws[i] >> 31);
            uint64_t e = c->draws[i] & 0x7FFFFFFFu;
            ma_svm_key *k = &job->members[m].keys[e];
            if (k->k1 == 0)
                k->k2 = (int16_t)c->cnt[m][e];
        }
    }
    if (c->rc == MA_OK) {
        stats->draws = c->ndraws + c->full_draws;
        stats->counts = c->full_draws;
        for (uint64_t i = 0; i < c->ndraws; i++) {
            const ma_svm_member *mb = &job->members[c->draws[i] >> 31];
            stats->counts += mb->keys[c->draws[i] & 0x7FFFFFFFu].k1 == 0;
        }
    }
    int rc = c->rc;
    for (int m = 0; m < 2; m++) {
        free(c->exitv[m]);
        free(c->cnt[m]);
        free(c->rem[m]);
        free(c->flag[m]);
    }
    free(c->draws);
    free(c->queue);
    free(c->heap.key);
    free(c->heap.item);
    free(c);
    return rc;
}
