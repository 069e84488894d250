/* retro: count/value retrograde analysis of one sector-graph component, on N threads. */
#include "solver/retro.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "solver/svphases.h"
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
#define MAX_PENDING 64

/* A queue item: member bit, "win candidate" bit (queued by the init pass from a turn into a
 * child; it may have been beaten by a shorter win since), entry number. Every other item was
 * queued by the thread that already wrote the entry's word, or holds a pending loss. */
#define ITEM_MEMBER 0x80000000u
#define ITEM_CANDIDATE 0x40000000u
#define ITEM_ENTRY 0x3FFFFFFFu
#define BLOCK_ITEMS 4096
/* Items handed to a thread at once while a depth is processed: a block is split into parts so
 * that a depth of a few thousand items still keeps every thread busy. */
#define PART_ITEMS 256
#define BLOCK_PARTS (BLOCK_ITEMS / PART_ITEMS)

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

/* Words are shared between threads only through these; between phases the barrier orders them. */
static inline uint16_t load_word(uint16_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline int cas_word(uint16_t *p, uint16_t *expected, uint16_t desired)
{
    return __atomic_compare_exchange_n(p, expected, desired, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

struct block {
    uint32_t n;
    atomic_uint parts_left;  /* while its depth is processed: parts not yet taken */
    uint32_t items[BLOCK_ITEMS];
};

/* The items queued for one depth: blocks published by the threads, in no particular order. */
struct depth_queue {
    struct block **blocks;
    size_t n, cap;
};

enum { PHASE_INIT, PHASE_DEPTH, PHASE_FINISH, PHASE_STOP };

/* Where a turn can lead: a member (internal) or a child, found by the packed sector. */
struct target {
    uint32_t key;
    int member;              /* member index, or -1 for a child */
    const uint16_t *vals;    /* the child's values */
    uint64_t entries;
    const ma_svm_key *keys;  /* the child's Malom keys, NULL when no exits are wanted */
    int value;               /* the child's v(C) */
};

static inline uint32_t sector_key(ma_sv_sector s)
{
    return (uint32_t)s.w | (uint32_t)s.b << 8 | (uint32_t)s.wf << 16 | (uint32_t)s.bf << 24;
}

struct shared {
    ma_retro_job *job;
    int ntargets;
    struct target targets[2 + MA_RETRO_MAX_CHILDREN];
    int pred_member[2];      /* member holding the predecessors of member i's entries, or -1 */
    pthread_mutex_t lock;    /* queues, queue accounting, first error */
    struct depth_queue *queues; /* one per depth 0..MAX_DEPTH, allocated once: never moves */
    int nqueues;
    int max_depth;           /* deepest queue with a published block, -1 if none */
    uint64_t queue_bytes, peak_queue_bytes;
    atomic_int rc;
    ma_error err;
    /* set by thread 0 between two barriers, read by all after the second */
    int phase, member, depth;
    uint64_t units;          /* work units of the phase */
    uint64_t per_unit;       /* representatives (init) or entries (finish) per unit */
    atomic_ullong next;      /* next unit to take */
    ma_retro_stats stats[2];
};

struct worker {
    struct shared *sh;
    ma_retro_job *job;
    const struct target *targets;
    int ntargets;
    int rc;
    ma_error err;
    /* per-position scratch filled by the turn callback */
    int member;
    int best_win;            /* smallest win depth over external turns, INT_MAX if none */
    int has_draw;
    int max_loss;            /* largest loss depth over external turns, -1 if none */
    int has_exit, ex1, ex2;  /* best Malom value over turns into a child draw (Malom export) */
    int nclass;
    uint64_t classes[MAX_CLASSES];
    uint32_t class_w[MAX_CLASSES], class_b[MAX_CLASSES];
    /* open-addressing set over classes[], valid where stamp equals the current round */
    uint64_t round;
    uint64_t hstamp[2 * MAX_CLASSES];
    uint64_t hkey[2 * MAX_CLASSES];
    /* turns into children whose values are being prefetched */
    int npending;
    struct {
        const struct target *tg;
        uint64_t e;
        ma_sv_sector sector;
    } pending[MAX_PENDING];
    /* the block this thread is filling for each depth */
    struct block **cur;
    int ncur;
    ma_retro_stats stats[2];
};

static int find_member(const ma_retro_job *job, ma_sv_sector s)
{
    for (int i = 0; i < job->nmembers; i++)
        if (ma_svrules_sector_eq(job->members[i].sector, s))
            return i;
    return -1;
}

static void fail(struct worker *wk, int code, const char *what, ma_sv_sector s, uint64_t e)
{
    if (wk->rc != MA_OK)
        return;
    char name[32];
    ma_svsector_format(name, sizeof name, s);
    wk->rc = ma_error_set(&wk->err, code, "solve: sector %s: entry %llu: %s", name,
                          (unsigned long long)e, what);
}

/* Makes a worker's error the run's error unless an earlier one is there. */
static void publish_error(struct shared *sh, int rc, const ma_error *err)
{
    pthread_mutex_lock(&sh->lock);
    if (atomic_load(&sh->rc) == MA_OK) {
        sh->err = *err;
        atomic_store(&sh->rc, rc);
    }
    pthread_mutex_unlock(&sh->lock);
}

static int stopping(struct worker *wk)
{
    const atomic_int *cancel = wk->sh->job->cancel;
    if (cancel && atomic_load(cancel) && wk->rc == MA_OK)
        wk->rc = ma_error_set(&wk->err, MA_ECANCELED, "solve: interrupted");
    return wk->rc != MA_OK || atomic_load(&wk->sh->rc) != MA_OK;
}

static void new_round(struct worker *wk)
{
    wk->nclass = 0;
    wk->round++;
}

static void add_class(struct worker *wk, int member, uint64_t e, uint32_t w, uint32_t b)
{
    uint64_t key = (uint64_t)member << 40 | e;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 54); /* 10 bits: 2 * MAX_CLASSES */
    while (wk->hstamp[h] == wk->round) {
        if (wk->hkey[h] == key)
            return;
        h = (h + 1) & (2 * MAX_CLASSES - 1);
    }
    if (wk->nclass == MAX_CLASSES) {
        fail(wk, MA_EINTERNAL, "too many successor classes", wk->sh->job->members[member].sector, e);
        return;
    }
    wk->hstamp[h] = wk->round;
    wk->hkey[h] = key;
    wk->class_w[wk->nclass] = w;
    wk->class_b[wk->nclass] = b;
    wk->classes[wk->nclass++] = key;
}

/* A turn into a child's draw, for the Malom export: its value by malom-format.md §5.8 from the
 * child's stored key, kept when it is the best so far. */
static void note_exit(struct worker *wk, const struct target *tg, uint64_t e, ma_sv_sector s)
{
    ma_svm_key k = tg->keys[e];
    if (k.k1 == 0 && k.k2 < 0) {
        fail(wk, MA_EFORMAT, "a draw of the child's Malom file holds a symmetry marker", s, e);
        return;
    }
    int m1, m2;
    ma_svm_turn_value(k.k1, k.k2, tg->value + wk->job->members[wk->member].value, &m1, &m2);
    if (m1 <= INT16_MIN || m1 > INT16_MAX || m2 < INT16_MIN || m2 > INT16_MAX) {
        fail(wk, MA_EINTERNAL, "a Malom value does not fit 16 bits", s, e);
        return;
    }
    if (!wk->has_exit || ma_svm_less(wk->ex1, wk->ex2, m1, m2)) {
        wk->has_exit = 1;
        wk->ex1 = m1;
        wk->ex2 = m2;
    }
}

/* Folds the child values of the turns seen so far into best_win / has_draw / max_loss. */
static void settle_children(struct worker *wk)
{
    for (int i = 0; i < wk->npending; i++) {
        uint16_t v = wk->pending[i].tg->vals[wk->pending[i].e];
        if (OUTCOME(v) == 0) {
            fail(wk, MA_EFORMAT, "a successor entry holds no value (0x0000 at a canonical entry)",
                 wk->pending[i].sector, wk->pending[i].e);
            break;
        }
        uint16_t mine = ma_retro_negate(v);
        if (OUTCOME(v) == V_DRAW && wk->pending[i].tg->keys)
            note_exit(wk, wk->pending[i].tg, wk->pending[i].e, wk->pending[i].sector);
        if (OUTCOME(mine) == V_WIN) {
            if ((int)DEPTH(mine) < wk->best_win)
                wk->best_win = (int)DEPTH(mine);
        } else if (OUTCOME(mine) == V_DRAW) {
            wk->has_draw = 1;
        } else if ((int)DEPTH(mine) > wk->max_loss) {
            wk->max_loss = (int)DEPTH(mine);
        }
    }
    wk->npending = 0;
}

static void on_turn(void *ctx, const ma_sv_turn *t)
{
    struct worker *wk = ctx;
    const ma_retro_job *job = wk->job;
    if (t->kind == MA_SVTURN_WIN) {
        if (wk->best_win > 1)
            wk->best_win = 1;
        return;
    }
    uint32_t key = sector_key(t->sector);
    const struct target *tg = wk->targets, *end = tg + wk->ntargets;
    while (tg < end && tg->key != key)
        tg++;
    if (tg == end) {
        fail(wk, MA_EINTERNAL, "a turn leads to a sector that is not loaded", t->sector, 0);
        return;
    }
    uint64_t e = ma_svindex_entry(job->ix, t->w, t->b);
    if (tg->member >= 0) {
        add_class(wk, tg->member, e, t->w, t->b);
        return;
    }
    if (e >= tg->entries) {
        fail(wk, MA_EINTERNAL, "a successor entry is out of range", t->sector, e);
        return;
    }
    /* The child value is most likely not in cache: ask for it now, read it after the turns. */
    __builtin_prefetch(&tg->vals[e]);
    if (tg->keys)
        __builtin_prefetch(&tg->keys[e]);
    if (wk->npending == MAX_PENDING)
        settle_children(wk);
    wk->pending[wk->npending].tg = tg;
    wk->pending[wk->npending].e = e;
    wk->pending[wk->npending].sector = t->sector;
    wk->npending++;
}

/* Evaluates the turns of (w, b) in member m; returns the number of turns. */
static int evaluate(struct worker *wk, int m, uint32_t w, uint32_t b)
{
    wk->member = m;
    wk->best_win = INT_MAX;
    wk->has_draw = 0;
    wk->max_loss = -1;
    wk->has_exit = 0;
    wk->npending = 0;
    new_round(wk);
    int n = ma_svrules_turns(wk->job->rules, wk->job->members[m].sector, w, b, on_turn, wk);
    settle_children(wk);
    return n;
}

static void account(struct shared *sh, int64_t bytes)
{
    sh->queue_bytes += (uint64_t)bytes;
    if (sh->queue_bytes > sh->peak_queue_bytes)
        sh->peak_queue_bytes = sh->queue_bytes;
}

/* Appends a full (or, at the end of a phase, partly filled) block to the queue of its depth. */
static void publish_block(struct worker *wk, int depth, struct block *b)
{
    struct shared *sh = wk->sh;
    pthread_mutex_lock(&sh->lock);
    struct depth_queue *q = &sh->queues[depth];
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 16;
        struct block **nb = realloc(q->blocks, cap * sizeof *nb);
        if (!nb) {
            pthread_mutex_unlock(&sh->lock);
            free(b);
            fail(wk, MA_ENOMEM, "out of memory for the depth queues", sh->job->members[0].sector, 0);
            return;
        }
        account(sh, (int64_t)((cap - q->cap) * sizeof *nb));
        q->blocks = nb;
        q->cap = cap;
    }
    q->blocks[q->n++] = b;
    if (depth > sh->max_depth)
        sh->max_depth = depth;
    pthread_mutex_unlock(&sh->lock);
}

static void push(struct worker *wk, int depth, uint32_t item)
{
    if (wk->rc != MA_OK)
        return;
    if (depth > MAX_DEPTH || (wk->sh->phase == PHASE_DEPTH && depth <= wk->sh->depth)) {
        fail(wk, MA_EINTERNAL, depth > MAX_DEPTH ? "depth exceeds 16383 plies"
                                                 : "queued at a depth already processed",
             wk->sh->job->members[item & ITEM_MEMBER ? 1 : 0].sector, item & ITEM_ENTRY);
        return;
    }
    if (depth >= wk->ncur) {
        int n = wk->ncur ? wk->ncur : 64;
        while (n <= depth)
            n *= 2;
        struct block **nc = realloc(wk->cur, (size_t)n * sizeof *nc);
        if (!nc) {
            fail(wk, MA_ENOMEM, "out of memory for the depth queues", wk->sh->job->members[0].sector, 0);
            return;
        }
        memset(nc + wk->ncur, 0, (size_t)(n - wk->ncur) * sizeof *nc);
        wk->cur = nc;
        wk->ncur = n;
    }
    struct block *b = wk->cur[depth];
    if (!b || b->n == BLOCK_ITEMS) {
        if (b)
            publish_block(wk, depth, b);
        wk->cur[depth] = NULL;
        b = malloc(sizeof *b);
        if (!b) {
            fail(wk, MA_ENOMEM, "out of memory for the depth queues", wk->sh->job->members[0].sector, 0);
            return;
        }
        pthread_mutex_lock(&wk->sh->lock);
        account(wk->sh, (int64_t)sizeof *b);
        pthread_mutex_unlock(&wk->sh->lock);
        b->n = 0;
        wk->cur[depth] = b;
    }
    b->items[b->n++] = item;
}

/* End of a phase: every partly filled block goes to its queue, so the next phase sees it. */
static void flush_blocks(struct worker *wk)
{
    for (int d = 0; d < wk->ncur; d++)
        if (wk->cur[d]) {
            if (wk->cur[d]->n)
                publish_block(wk, d, wk->cur[d]);
            else
                free(wk->cur[d]);
            wk->cur[d] = NULL;
        }
}

static uint32_t item_of(int member, uint64_t e, int candidate)
{
    return (member ? ITEM_MEMBER : 0) | (candidate ? ITEM_CANDIDATE : 0) | (uint32_t)e;
}

static uint16_t blocked_value(const ma_svrules *r)
{
    return MA_SV_HAS_BUG(r, MA_SVBUG_BLOCKED_NOT_LOST) ? V_DRAW : V_LOSS;
}

/* Init pass over representatives [f0, f1) of member m. */
static void init_reps(struct worker *wk, int m, uint32_t f0, uint32_t f1)
{
    ma_retro_job *job = wk->sh->job;
    const ma_svindex *ix = job->ix;
    ma_retro_table *t = &job->members[m];
    ma_sv_sector s = t->sector;
    int nfree = 24 - s.w;
    uint64_t per_rep = ma_svindex_binom(ix, nfree, s.b);
    int full_draw = ma_svrules_full_board_draw(job->rules, s);
    const ma_svm_state no_exit = {{MA_SVM_NO_EXIT, 0}, 0, MA_SVM_SETTLED};
    for (uint32_t f = f0; f < f1 && wk->rc == MA_OK; f++) {
        uint32_t w = ix->reps[s.w][f];
        uint16_t stab = ix->stab[s.w][f];
        uint32_t pts[24];
        int k = 0;
        for (uint32_t fr = ~w & MA_SV_FULL; fr; fr &= fr - 1)
            pts[k++] = fr & -fr;
        /* B-subsets of the free points in colex order = increasing compressed mask. */
        uint32_t c = s.b ? (1u << s.b) - 1 : 0;
        for (uint64_t g = 0; g < per_rep && wk->rc == MA_OK; g++) {
            uint64_t e = (uint64_t)f * per_rep + g;
            uint32_t b = ma_svindex_spread(pts, c);
            if (s.b)
                c = ma_svindex_colex_next(c);
            if (!ma_svindex_stab_canonical(ix, stab, b)) {
                t->vals[e] = 0;
                if (t->state)
                    t->state[e] = no_exit;
                continue;
            }
            if (full_draw) {
                t->vals[e] = V_DRAW;
                if (t->state)
                    t->state[e] = no_exit;
                continue;
            }
            int nturns = evaluate(wk, m, w, b);
            if (wk->rc != MA_OK)
                return;
            if (t->state) {
                t->state[e] = no_exit;
                if (wk->has_exit) {
                    t->state[e].key.k1 = (int16_t)wk->ex1;
                    t->state[e].key.k2 = (int16_t)wk->ex2;
                }
            }
            if (nturns == 0) {
                uint16_t v = blocked_value(job->rules);
                if (v == V_DRAW || !job->cyclic) {
                    t->vals[e] = v;
                } else {
                    t->vals[e] = 0;
                    push(wk, 0, item_of(m, e, 0));
                }
                continue;
            }
            if (!job->cyclic) {
                if (wk->nclass)
                    fail(wk, MA_EINTERNAL, "a turn stays inside an acyclic sector", s, e);
                t->vals[e] = wk->best_win != INT_MAX ? (uint16_t)(V_WIN | wk->best_win)
                             : wk->has_draw          ? (uint16_t)V_DRAW
                                                     : (uint16_t)(V_LOSS | wk->max_loss);
                continue;
            }
            unsigned bias = 0;
            if (wk->best_win != INT_MAX) {
                push(wk, wk->best_win, item_of(m, e, 1));
                bias = NEVER_LOSS;
            }
            if (wk->has_draw)
                bias = NEVER_LOSS;
            if (wk->nclass == 0 && !bias) {
                t->vals[e] = 0;
                push(wk, wk->max_loss, item_of(m, e, 0));
            } else {
                t->vals[e] = (uint16_t)(wk->nclass + bias);
            }
        }
    }
}

static void on_unmove(void *ctx, uint32_t w, uint32_t b)
{
    struct worker *wk = ctx;
    add_class(wk, wk->member, ma_svindex_entry(wk->sh->job->ix, w, b), w, b);
}

/* (m, e) was resolved at depth d: updates its predecessors. */
static void propagate(struct worker *wk, int d, int m, uint64_t e)
{
    ma_retro_job *job = wk->sh->job;
    ma_retro_table *t = &job->members[m];
    int pm = wk->sh->pred_member[m];
    if (pm < 0)
        return;
    uint32_t w, b;
    if (ma_svindex_board(job->ix, t->sector.w, t->sector.b, e, &w, &b, &wk->err) != MA_OK) {
        wk->rc = wk->err.code;
        return;
    }
    wk->member = pm;
    new_round(wk);
    ma_svrules_unmoves(job->rules, t->sector, w, b, on_unmove, wk);
    int n = wk->nclass;
    int is_loss = (d % 2) == 0;
    uint16_t *pvals = job->members[pm].vals;
    for (int i = 0; i < n && wk->rc == MA_OK; i++) {
        uint64_t pe = wk->classes[i] & (((uint64_t)1 << 40) - 1);
        uint16_t *pw = &pvals[pe];
        uint16_t old = load_word(pw);
        if (is_loss) {
            /* A predecessor still counting wins in d + 1 whatever else happens at this depth. */
            while (IS_COUNT(old))
                if (cas_word(pw, &old, (uint16_t)(V_WIN | (d + 1)))) {
                    push(wk, d + 1, item_of(pm, pe, 0));
                    break;
                }
            continue;
        }
        int zero = 0;
        while (IS_COUNT(old))
            if (cas_word(pw, &old, (uint16_t)(old - 1))) {
                zero = old == 1;
                break;
            }
        if (!zero)
            continue;
        /* Every internal successor is a win for the opponent: the longest loss wins out.
         * evaluate() reuses the class scratch; save what is still to be visited. */
        uint64_t rest[MAX_CLASSES];
        uint32_t rest_w[MAX_CLASSES], rest_b[MAX_CLASSES];
        memcpy(rest, wk->classes, (size_t)n * sizeof rest[0]);
        memcpy(rest_w, wk->class_w, (size_t)n * sizeof rest_w[0]);
        memcpy(rest_b, wk->class_b, (size_t)n * sizeof rest_b[0]);
        evaluate(wk, pm, rest_w[i], rest_b[i]);
        int depth = wk->max_loss > d + 1 ? wk->max_loss : d + 1;
        memcpy(wk->classes, rest, (size_t)n * sizeof rest[0]);
        memcpy(wk->class_w, rest_w, (size_t)n * sizeof rest_w[0]);
        memcpy(wk->class_b, rest_b, (size_t)n * sizeof rest_b[0]);
        wk->nclass = n;
        push(wk, depth, item_of(pm, pe, 0));
    }
}

/* Resolves and propagates items [i0, i1) of one queued block at depth d. */
static void process_items(struct worker *wk, int d, const struct block *bk, uint32_t i0, uint32_t i1)
{
    ma_retro_job *job = wk->sh->job;
    for (uint32_t i = i0; i < i1 && wk->rc == MA_OK; i++) {
        uint32_t item = bk->items[i];
        int m = item & ITEM_MEMBER ? 1 : 0;
        uint64_t e = item & ITEM_ENTRY;
        uint16_t *pw = &job->members[m].vals[e];
        /* With the depth-in-moves planted bug the children hold odd loss depths, so losses
         * can be queued at odd depths and win candidates at even ones; such items are skipped,
         * as the sequential solver always did. Otherwise they mean a bug in this file. */
        int skewed = MA_SV_HAS_BUG(job->rules, MA_SVBUG_DEPTH_IN_MOVES);
        if (d % 2 == 0) {
            /* Losses are queued once, by the init pass or by the decrement that reached 0. */
            if (load_word(pw) != 0) {
                if (skewed)
                    continue;
                fail(wk, MA_EINTERNAL, "a queued loss was already resolved", job->members[m].sector, e);
                return;
            }
            __atomic_store_n(pw, (uint16_t)(V_LOSS | d), __ATOMIC_RELAXED);
        } else if (item & ITEM_CANDIDATE) {
            uint16_t old = load_word(pw);
            int won = 0;
            while (IS_COUNT(old))
                if (cas_word(pw, &old, (uint16_t)(V_WIN | d))) {
                    won = 1;
                    break;
                }
            if (!won)
                continue; /* already resolved by a shorter win */
        } else if (load_word(pw) != (uint16_t)(V_WIN | d)) {
            if (skewed)
                continue;
            fail(wk, MA_EINTERNAL, "a queued win does not hold its value", job->members[m].sector, e);
            return;
        }
        propagate(wk, d, m, e);
    }
}

/* Phase 3 over entries [e0, e1) of member m: unresolved counts are draws; statistics. */
static void finish_range(struct worker *wk, int m, uint64_t e0, uint64_t e1)
{
    ma_retro_table *t = &wk->sh->job->members[m];
    ma_retro_stats *st = &wk->stats[m];
    for (uint64_t e = e0; e < e1; e++) {
        uint16_t v = t->vals[e];
        if (t->state) {
            /* a draw's word holds the classes of its draw successors, plus the bias */
            uint16_t count = IS_COUNT(v) ? (uint16_t)(v & (NEVER_LOSS - 1)) : 0;
            int draw = IS_COUNT(v) || v == V_DRAW;
            t->state[e].count = (uint16_t)(count | (draw ? 0 : MA_SVM_SETTLED));
            t->state[e].rem = count;
        }
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

static void run_phase(void *worker)
{
    struct worker *wk = worker;
    struct shared *sh = wk->sh;
    ma_retro_job *job = sh->job;
    for (;;) {
        if (stopping(wk))
            break;
        uint64_t u = atomic_fetch_add(&sh->next, 1);
        if (u >= sh->units)
            break;
        if (sh->phase == PHASE_INIT) {
            uint32_t reps = job->ix->rep_count[job->members[sh->member].sector.w];
            uint64_t f0 = u * sh->per_unit, f1 = f0 + sh->per_unit;
            if (f1 > reps)
                f1 = reps;
            init_reps(wk, sh->member, (uint32_t)f0, (uint32_t)f1);
            if (job->progress) {
                ma_sv_sector s = job->members[sh->member].sector;
                ma_progress_add(job->progress, (f1 - f0) * ma_svindex_binom(job->ix, 24 - s.w, s.b));
            }
        } else if (sh->phase == PHASE_DEPTH) {
            struct block *bk = sh->queues[sh->depth].blocks[u / BLOCK_PARTS];
            uint32_t i0 = (uint32_t)(u % BLOCK_PARTS) * PART_ITEMS;
            if (i0 < bk->n)
                process_items(wk, sh->depth, bk, i0, i0 + PART_ITEMS < bk->n ? i0 + PART_ITEMS : bk->n);
            /* The last of its parts (empty ones included) gives the block back now: the queue
             * may be large. */
            if (atomic_fetch_sub(&bk->parts_left, 1) == 1) {
                sh->queues[sh->depth].blocks[u / BLOCK_PARTS] = NULL;
                free(bk);
                pthread_mutex_lock(&sh->lock);
                account(sh, -(int64_t)sizeof *bk);
                pthread_mutex_unlock(&sh->lock);
            }
        } else {
            int m = sh->member;
            uint64_t e0 = u * sh->per_unit, e1 = e0 + sh->per_unit;
            if (e1 > job->members[m].entries)
                e1 = job->members[m].entries;
            finish_range(wk, m, e0, e1);
        }
    }
    flush_blocks(wk);
    if (wk->rc != MA_OK) {
        publish_error(sh, wk->rc, &wk->err);
        wk->rc = MA_OK; /* reported once; the run stops at the next barrier */
    }
}

static void start_init(struct shared *sh, int m)
{
    ma_retro_job *job = sh->job;
    ma_sv_sector s = job->members[m].sector;
    uint32_t reps = job->ix->rep_count[s.w];
    uint64_t per_rep = ma_svindex_binom(job->ix, 24 - s.w, s.b);
    sh->phase = PHASE_INIT;
    sh->member = m;
    /* Units of about 64 Ki entries: small enough to balance, large enough to be cheap. */
    sh->per_unit = per_rep >= 65536 ? 1 : 65536 / (per_rep ? per_rep : 1);
    sh->units = (reps + sh->per_unit - 1) / sh->per_unit;
}

static void start_finish(struct shared *sh, int m)
{
    sh->phase = PHASE_FINISH;
    sh->member = m;
    sh->per_unit = 1u << 20;
    sh->units = (sh->job->members[m].entries + sh->per_unit - 1) / sh->per_unit;
}

/* The next depth with a non-empty queue after sh->depth; 0 when there is none. */
static int start_depth(struct shared *sh)
{
    ma_retro_job *job = sh->job;
    int d = sh->depth + 1;
    while (d <= sh->max_depth && sh->queues[d].n == 0)
        d++;
    if (d > sh->max_depth)
        return 0;
    sh->phase = PHASE_DEPTH;
    sh->depth = d;
    sh->units = sh->queues[d].n * BLOCK_PARTS;
    for (size_t i = 0; i < sh->queues[d].n; i++)
        atomic_store(&sh->queues[d].blocks[i]->parts_left, BLOCK_PARTS);
    if (job->progress) {
        char label[96], name[32];
        ma_svsector_format(name, sizeof name, job->members[0].sector);
        snprintf(label, sizeof label, "solve %s_%s%s: retrograde depth %d",
                 ma_svrules_variant_name(job->rules->variant), name,
                 job->nmembers == 2 ? " (+twin)" : "", d);
        ma_progress_set_label(job->progress, label);
    }
    return 1;
}

/* Thread 0, between two barriers: chooses the next phase. */
static void next_phase(void *shared)
{
    struct shared *sh = shared;
    ma_retro_job *job = sh->job;
    atomic_store(&sh->next, 0);
    if (atomic_load(&sh->rc) != MA_OK) {
        sh->phase = PHASE_STOP;
        return;
    }
    switch (sh->phase) {
    case PHASE_INIT:
        if (sh->member + 1 < job->nmembers) {
            start_init(sh, sh->member + 1);
            return;
        }
        sh->depth = -1;
        if (job->cyclic && start_depth(sh))
            return;
        start_finish(sh, 0);
        return;
    case PHASE_DEPTH: {
        /* Every block of this depth was freed by the thread that processed it. */
        struct depth_queue *q = &sh->queues[sh->depth];
        account(sh, -(int64_t)(q->cap * sizeof *q->blocks));
        free(q->blocks);
        memset(q, 0, sizeof *q);
        if (!start_depth(sh))
            start_finish(sh, 0);
        return;
    }
    case PHASE_FINISH:
        if (sh->member + 1 < job->nmembers) {
            start_finish(sh, sh->member + 1);
            return;
        }
        sh->phase = PHASE_STOP;
        return;
    default:
        sh->phase = PHASE_STOP;
    }
}

static int stopped(const void *shared)
{
    return ((const struct shared *)shared)->phase == PHASE_STOP;
}

int ma_retro_solve(ma_retro_job *job, ma_retro_stats stats[2], ma_error *err)
{
    for (int m = 0; m < job->nmembers; m++)
        if (job->members[m].entries >= MA_RETRO_MAX_ENTRIES)
            return ma_error_set(err, MA_EINTERNAL, "solve: sector too large for the depth queues");
    int nthreads = job->threads < 1 ? 1 : job->threads;
    struct shared *sh = calloc(1, sizeof *sh);
    struct worker *wks = calloc((size_t)nthreads, sizeof *wks);
    if (!sh || !wks) {
        free(sh);
        free(wks);
        return ma_error_set(err, MA_ENOMEM, "solve: out of memory");
    }
    sh->job = job;
    sh->max_depth = -1;
    atomic_init(&sh->rc, MA_OK);
    atomic_init(&sh->next, 0);
    for (int m = 0; m < job->nmembers; m++) {
        sh->pred_member[m] = find_member(job, ma_svrules_negate(job->members[m].sector));
        struct target tg = {sector_key(job->members[m].sector), m, NULL, job->members[m].entries,
                            NULL, 0};
        sh->targets[sh->ntargets++] = tg;
    }
    for (int i = 0; i < job->nchildren && i < MA_RETRO_MAX_CHILDREN; i++) {
        struct target tg = {sector_key(job->children[i].sector), -1, job->children[i].vals,
                            job->children[i].entries, job->children[i].keys,
                            job->children[i].value};
        sh->targets[sh->ntargets++] = tg;
    }
    pthread_mutex_init(&sh->lock, NULL);
    sh->queues = calloc(MAX_DEPTH + 1, sizeof *sh->queues);
    if (!sh->queues) {
        pthread_mutex_destroy(&sh->lock);
        free(sh);
        free(wks);
        return ma_error_set(err, MA_ENOMEM, "solve: out of memory");
    }
    sh->nqueues = MAX_DEPTH + 1;
    /* The first phase is set up here; thread 0 chooses every later one. */
    sh->phase = PHASE_INIT;
    sh->member = -1;
    next_phase(sh);
    for (int i = 0; i < nthreads; i++) {
        wks[i].sh = sh;
        wks[i].job = job;
        wks[i].targets = sh->targets;
        wks[i].ntargets = sh->ntargets;
        wks[i].stats[0].max_depth = wks[i].stats[1].max_depth = -1;
    }
    static const ma_svphases_ops ops = {NULL, run_phase, next_phase, stopped};
    ma_svphases_run(&ops, sh, wks, sizeof *wks, nthreads);
    int rc = atomic_load(&sh->rc);
    if (rc != MA_OK && err)
        *err = sh->err;
    for (int d = 0; d < sh->nqueues; d++) {
        for (size_t i = 0; i < sh->queues[d].n; i++)
            free(sh->queues[d].blocks[i]);
        free(sh->queues[d].blocks);
    }
    free(sh->queues);
    for (int i = 0; i < nthreads; i++) {
        for (int d = 0; d < wks[i].ncur; d++)
            free(wks[i].cur[d]);
        free(wks[i].cur);
    }
    if (rc == MA_OK)
        for (int m = 0; m < job->nmembers; m++) {
            ma_retro_stats *st = &stats[m];
            memset(st, 0, sizeof *st);
            st->max_depth = -1;
            for (int i = 0; i < nthreads; i++) {
                const ma_retro_stats *ws = &wks[i].stats[m];
                st->canonical += ws->canonical;
                st->wins += ws->wins;
                st->draws += ws->draws;
                st->losses += ws->losses;
                if (ws->max_depth > st->max_depth)
                    st->max_depth = ws->max_depth;
            }
        }
    job->peak_queue_bytes = sh->peak_queue_bytes;
    pthread_mutex_destroy(&sh->lock);
    free(sh);
    free(wks);
    return rc;
}
