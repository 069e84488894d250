/* svmalom_ultra: ultra-strong (.sec2) values of a component from the producer's solution. */
#include "solver/svmalom_ultra.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "solver/svphases.h"
#include "common/counts.h"
#include "common/huge_alloc.h"
#include "solver/svsector.h"

#define V_DRAW 0x8000u
#define OUTCOME(v) ((v) & 0xC000u)
#define MAX_CLASSES 512
/* A queue item: member bit, "settled when queued" bit (at (t, d) in a bucket's good queue, at
 * (-t, d) in its bad queue), entry number (30 bits, as in solver/retro.h). An item without it is a
 * seed: a draw whose exit is (t, d), settled when taken unless something settled it before. */
#define ITEM_MEMBER 0x80000000u
#define ITEM_SETTLED 0x40000000u
#define ITEM_ENTRY 0x3FFFFFFFu
/* key2 is an int16: one bucket per value */
#define NBUCKETS 65536
#define BUCKET(k2) ((int)(k2) + 32768)
/* A push's bucket with this bit goes to the bucket's bad queue. */
#define PUSH_BAD 0x10000u
/* Items taken at once from a bucket by a thread. */
#define CHUNK 64
/* Buckets of at most this many items are taken by one thread, without the barriers of a phase. */
#define SERIAL_ITEMS 4096
/* An edge: a predecessor class (entry of its member) to update, and whether the entry that
 * reached it settled at (-t, d) (the predecessor can force key1 >= t) or at (t, d) (one successor
 * class of the predecessor counted off). Edges wait in lists per partition of the predecessors'
 * entries: a partition's states (PART_BITS entries, 512 KiB) stay in a core's cache while its
 * edges are applied, where reading them at random for each edge costs a miss to memory. */
#define EDGE_FORCE 0x80000000u
#define PART_BITS 16
#define BLOCK 1024            /* edges per block of a partition's list */
#define NONE 0xFFFFFFFFu
/* The states of edges this far ahead are fetched while an edge is applied. */
#define AHEAD 16

enum { PHASE_GEN, PHASE_APPLY, PHASE_STOP };

struct vec {
    uint32_t *v;
    size_t n, cap;
};

struct push {
    uint32_t where;          /* bucket, PUSH_BAD for the bad queue */
    uint32_t item;
};

/* A thread's edges of the chunk at work, as lists of blocks per partition. */
struct edges {
    uint32_t *pool;          /* nblocks * BLOCK edges */
    uint32_t *link;          /* per block: the next block of its partition, or NONE */
    uint32_t nblocks, used;  /* blocks in the pool, blocks handed out */
    uint32_t *head, *tail, *fill; /* per partition: first and last block, edges in the last */
};

struct shared {
    ma_svm_rank_job *job;
    int nthreads;            /* that work */
    struct worker *wks;      /* their scratch and pushes */
    pthread_mutex_t lock;    /* the first error */
    atomic_int rc;
    ma_error err;
    struct vec *buckets;     /* [NBUCKETS] of the level at work: seeds and entries settled at +t */
    struct vec *bad;         /* [NBUCKETS] of the level at work: entries settled at -t */
    struct vec *good_seeds, *bad_seeds; /* [32768] by level t: draws whose exit has key1 = t / -t */
    int levels[32768], nlevels, level_i;
    int t;                   /* level at work */
    int bucket;              /* bucket at work, -1 before the level's first */
    int phase;
    uint64_t units;          /* of the bucket at work, CHUNK items each */
    atomic_ullong next;      /* the bucket's next unit; kept from one chunk of edges to the next */
    atomic_ullong next_part; /* the next partition to apply */
    uint64_t queue_bytes, queue_peak;
    uint64_t settled;
    /* boards of entries without a search: per member the compressed opponent mask of each colex
     * rank (one table of C(24 - W, B) words), spread onto the representative's free points */
    uint32_t *unrank[2];
    uint32_t per_rep[2];
    uint8_t pdep8[256][256];  /* [mask][value]: the low bits of value spread onto mask's bits */
    uint8_t pop8[256];        /* bits set in a byte */
    uint8_t comp[16][16];     /* [s][t]: the op applying t, then s */
    int pred_member[2];       /* member holding the predecessors of member i's entries, or -1 */
    /* per member one bit per entry, set once the entry is settled (or is no draw): most
     * predecessors met are settled already, and this spares their state reads */
    uint64_t *done[2];
    uint32_t part0[2];        /* member m's partitions are part0[m] .. part0[m] + nparts[m] - 1 */
    uint32_t nparts[2], parts;
    uint32_t reserve;         /* free blocks a thread needs to take one more unit */
};

struct worker {
    struct shared *sh;
    ma_svm_rank_job *job;
    int rc;
    ma_error err;
    int member;              /* member holding the predecessors being collected */
    int dedup;               /* the predecessors' opponent mask has a symmetry: they may repeat */
    int shared;              /* other threads work on the same bitmap words */
    int nclass;
    uint64_t round;
    uint64_t hstamp[2 * MAX_CLASSES], hkey[2 * MAX_CLASSES];
    uint32_t classes[MAX_CLASSES];
    struct edges ed;
    struct push *pushes;
    size_t npush, push_cap;
    uint64_t settled;
};

static void fail(ma_error *err, int *rc, int code, const ma_svm_rank_job *job, int m, uint64_t e,
                 const char *what)
{
    if (*rc != MA_OK)
        return;
    char name[32];
    ma_svsector_format(name, sizeof name, job->members[m].sector);
    *rc = ma_error_set(err, code, "malom export: %s_%s: entry %llu: %s",
                       ma_svrules_variant_name(job->rules->variant), name, (unsigned long long)e,
                       what);
}

static int vec_push(struct vec *v, uint32_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        uint32_t *n = realloc(v->v, cap * sizeof *n);
        if (!n)
            return 0;
        v->v = n;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 1;
}

static void vec_free(struct vec *v)
{
    free(v->v);
    memset(v, 0, sizeof *v);
}

static inline void store_key(ma_svm_state *st, int k1, int k2)
{
    st->key.k1 = (int16_t)k1;
    st->key.k2 = (int16_t)k2;
}

static inline int is_settled(const ma_svm_state *st)
{
    return (st->count & MA_SVM_SETTLED) != 0;
}

/* Marks entry e settled in its member's bitmap (after its state: a set bit means settled); with
 * shared, other threads set bits of the same words. */
static inline void mark_done(uint64_t *done, uint64_t e, int shared)
{
    uint64_t bit = (uint64_t)1 << (e & 63);
    if (!shared)
        done[e >> 6] |= bit;
    else
        __atomic_fetch_or(&done[e >> 6], bit, __ATOMIC_RELAXED);
}

static inline int is_done(const uint64_t *done, uint64_t e)
{
    return (__atomic_load_n(&done[e >> 6], __ATOMIC_RELAXED) >> (e & 63)) & 1;
}

/* Settles entry e of member m (its state's flag, then its bit): each entry is settled by one
 * thread, in the phase that owns it, so no locked instruction is needed but for the bitmap words
 * that seeds of several threads share. */
static inline void settle_entry(const struct shared *sh, int m, uint64_t e, int shared)
{
    sh->job->members[m].state[e].count |= MA_SVM_SETTLED;
    mark_done(sh->done[m], e, shared);
}

static void add_class(struct worker *wk, uint64_t e)
{
    if (!wk->dedup) {
        /* the opponent mask has no symmetry: every un-move gives a class of its own */
        if (wk->nclass == MAX_CLASSES)
            fail(&wk->err, &wk->rc, MA_EINTERNAL, wk->job, wk->member, e,
                 "too many successor classes");
        else
            wk->classes[wk->nclass++] = (uint32_t)e;
        return;
    }
    uint64_t key = e;
    unsigned h = (unsigned)((key * 0x9E3779B97F4A7C15ull) >> 54);
    while (wk->hstamp[h] == wk->round) {
        if (wk->hkey[h] == key)
            return;
        h = (h + 1) & (2 * MAX_CLASSES - 1);
    }
    if (wk->nclass == MAX_CLASSES) {
        fail(&wk->err, &wk->rc, MA_EINTERNAL, wk->job, wk->member, e, "too many successor classes");
        return;
    }
    wk->hstamp[h] = wk->round;
    wk->hkey[h] = key;
    wk->classes[wk->nclass++] = (uint32_t)key;
}

/* The open entry of (w, b) (solver/svindex.h: ma_svindex_entry), with the popcounts it needs
 * taken from a byte table: a predecessor's entry is most of the ranking's work. With img (the
 * images of b under the 16 ops, NULL when not computed) the op and the stabiliser's ops are
 * applied to b by one lookup each: worth it when an entry has many predecessors (flying). */
static inline uint64_t entry_of(const struct shared *sh, uint64_t per_rep, uint32_t w, uint32_t b,
                                const uint32_t *img)
{
    const ma_svindex *ix = sh->job->ix;
    uint32_t w0 = w & 255, w1 = (w >> 8) & 255, w2 = w >> 16;
    int a1 = sh->pop8[w0], a2 = a1 + sh->pop8[w1], wn = a2 + sh->pop8[w2];
    uint32_t t = ix->mover[wn][ix->colex_lut[0][w0][0] + ix->colex_lut[1][w1][a1] +
                               ix->colex_lut[2][w2][a2]];
    uint32_t rank = t >> 4;
    int op = (int)(t & 15);
    uint16_t stab = ix->stab[wn][rank] & (uint16_t)~1u;
    uint32_t bc;
    if (img) {
        bc = img[op];
        for (; stab; stab &= (uint16_t)(stab - 1)) {
            uint32_t x = img[sh->comp[__builtin_ctz(stab)][op]];
            if (x < bc)
                bc = x;
        }
    } else {
        bc = ma_svindex_apply(ix, op, b);
        uint32_t b1 = bc;
        for (; stab; stab &= (uint16_t)(stab - 1)) {
            uint32_t x = ma_svindex_apply(ix, __builtin_ctz(stab), b1);
            if (x < bc)
                bc = x;
        }
    }
    uint32_t fr = ~ix->reps[wn][rank] & MA_SV_FULL;
    uint32_t f0 = fr & 255, f1 = (fr >> 8) & 255, f2 = fr >> 16;
    int n0 = sh->pop8[f0], n1 = n0 + sh->pop8[f1];
    uint32_t c = (uint32_t)ix->pext8[f0][bc & 255] | (uint32_t)ix->pext8[f1][(bc >> 8) & 255] << n0 |
                 (uint32_t)ix->pext8[f2][bc >> 16] << n1;
    uint32_t c0 = c & 255, c1 = (c >> 8) & 255, c2 = c >> 16;
    int k1 = sh->pop8[c0], k2 = k1 + sh->pop8[c1];
    return (uint64_t)rank * per_rep + ix->colex_lut[0][c0][0] + ix->colex_lut[1][c1][k1] +
           ix->colex_lut[2][c2][k2];
}

/* The distinct predecessor classes (non-mill un-moves) of entry e of member m, in wk->classes;
 * returns their member, -1 when there are none. */
static int preds(struct worker *wk, int m, uint64_t e)
{
    ma_svm_rank_job *job = wk->job;
    ma_sv_sector s = job->members[m].sector;
    int pm = wk->sh->pred_member[m];
    wk->nclass = 0;
    wk->round++;
    if (pm < 0)
        return -1;
    const struct shared *sh = wk->sh;
    uint32_t f = (uint32_t)e / sh->per_rep[m], c = sh->unrank[m][(uint32_t)e % sh->per_rep[m]];
    uint32_t w = job->ix->reps[s.w][f], fr = ~w & MA_SV_FULL;
    uint32_t f0 = fr & 255, f1 = (fr >> 8) & 255, f2 = fr >> 16;
    int n0 = ma_sv_popcount(f0), n1 = ma_sv_popcount(f1);
    uint32_t b = (uint32_t)sh->pdep8[f0][c & 255] |
                 (uint32_t)sh->pdep8[f1][(c >> n0) & 255] << 8 |
                 (uint32_t)sh->pdep8[f2][(c >> (n0 + n1)) & 255] << 16;
    wk->member = pm;
    /* Two un-moves give boards of one class only through an op fixing w, the opponent mask of
     * both; a representative without a symmetry has none. */
    wk->dedup = (job->ix->stab[s.w][f] & (uint16_t)~1u) != 0;
    /* The predecessors reaching (w, b) by a non-mill move of the side now in b: the rules of
     * ma_svrules_unmoves, unrolled here because this loop is most of the ranking's work. */
    const ma_svrules *r = job->rules;
    if (!(r->variant == MA_SV_LASK ? s.b > 0 : s.bf == 0))
        return pm;
    int fly = s.b + s.bf <= r->fly_limit;
    uint64_t per_rep = sh->per_rep[pm];
    uint32_t free_pts = ~(w | b) & MA_SV_FULL;
    uint32_t img[16];
    if (fly)
        for (int k = 0; k < 16; k++)
            img[k] = ma_svindex_apply(job->ix, k, w);
    for (uint32_t dst = b; dst; dst &= dst - 1) {
        int d = __builtin_ctz(dst);
        if (ma_svrules_mills_at(r, b, d))
            continue; /* arriving there closed a mill: that turn left the component */
        uint32_t base = b & ~(1u << d);
        for (uint32_t srcs = fly ? free_pts : r->adj[d] & free_pts; srcs; srcs &= srcs - 1) {
            add_class(wk, entry_of(sh, per_rep, base | (srcs & -srcs), w, fly ? img : NULL));
        }
    }
    return pm;
}

static void push(struct worker *wk, int k2, uint32_t item, int bad)
{
    if (wk->rc != MA_OK)
        return;
    if (k2 < INT16_MIN || k2 > INT16_MAX) {
        fail(&wk->err, &wk->rc, MA_EINTERNAL, wk->job, item & ITEM_MEMBER ? 1 : 0,
             item & ITEM_ENTRY, "key2 does not fit 16 bits");
        return;
    }
    if (wk->npush == wk->push_cap) {
        size_t cap = wk->push_cap ? 2 * wk->push_cap : 4096;
        struct push *n = realloc(wk->pushes, cap * sizeof *n);
        if (!n) {
            fail(&wk->err, &wk->rc, MA_ENOMEM, wk->job, 0, 0, "out of memory for the queues");
            return;
        }
        wk->pushes = n;
        wk->push_cap = cap;
    }
    wk->pushes[wk->npush].where = (uint32_t)BUCKET(k2) | (bad ? PUSH_BAD : 0);
    wk->pushes[wk->npush].item = item;
    wk->npush++;
}

static inline uint32_t item_of(int m, uint64_t e, int settled)
{
    return (m ? ITEM_MEMBER : 0) | (settled ? ITEM_SETTLED : 0) | (uint32_t)e;
}

/* Appends edge x (entry p of member m) to its partition's list; the caller has made sure the
 * pool has room. */
static inline void add_edge(struct worker *wk, int m, uint32_t p, uint32_t x)
{
    struct edges *ed = &wk->ed;
    uint32_t j = wk->sh->part0[m] + (p >> PART_BITS), tb = ed->tail[j];
    if (tb == NONE || ed->fill[j] == BLOCK) {
        uint32_t nb = ed->used++;
        ed->link[nb] = NONE;
        if (tb == NONE)
            ed->head[j] = nb;
        else
            ed->link[tb] = nb;
        ed->tail[j] = tb = nb;
        ed->fill[j] = 0;
    }
    ed->pool[(size_t)tb * BLOCK + ed->fill[j]++] = x;
}

/* An item of the bucket at work: a seed (m, e) can force key1 >= t with its exit's key2 = d, and
 * is settled unless it was already; an item settled when queued holds (t, d), or (-t, d) when bad.
 * Its predecessors become edges, applied once the chunk's edges are all collected. */
static void take_item(struct worker *wk, int m, uint64_t e, int settled, int bad, int t, int d)
{
    const struct shared *sh = wk->sh;
    if (!settled) {
        if (is_done(sh->done[m], e))
            return;
        /* no other thread touches this entry's state before the edges are applied */
        settle_entry(sh, m, e, wk->shared);
        store_key(&wk->job->members[m].state[e], t, d);
        wk->settled++;
    }
    int pm = preds(wk, m, e);
    uint32_t force = bad ? EDGE_FORCE : 0;
    for (int i = 0; i < wk->nclass; i++)
        add_edge(wk, pm, wk->classes[i], wk->classes[i] | force);
}

static int stopping(struct worker *wk)
{
    const atomic_int *cancel = wk->job->cancel;
    if (cancel && atomic_load(cancel) && wk->rc == MA_OK)
        wk->rc = ma_error_set(&wk->err, MA_ECANCELED, "malom export: interrupted");
    return wk->rc != MA_OK || atomic_load(&wk->sh->rc) != MA_OK;
}

/* A thread's first error becomes the run's, unless another was first. */
static void report(struct worker *wk)
{
    struct shared *sh = wk->sh;
    if (wk->rc == MA_OK)
        return;
    pthread_mutex_lock(&sh->lock);
    if (atomic_load(&sh->rc) == MA_OK) {
        sh->err = wk->err;
        atomic_store(&sh->rc, wk->rc);
    }
    pthread_mutex_unlock(&sh->lock);
    wk->rc = MA_OK;
}

/* Collecting edges: units of CHUNK items of the bucket at work (its good queue, then its bad
 * one), as long as the thread's pool has room for a unit's edges. */
static void run_gen(struct worker *wk)
{
    struct shared *sh = wk->sh;
    const struct vec *q = &sh->buckets[sh->bucket], *qb = &sh->bad[sh->bucket];
    size_t n = q->n + qb->n;
    int d = sh->bucket - 32768;
    while (!stopping(wk) && wk->ed.nblocks - wk->ed.used >= sh->reserve) {
        uint64_t u = atomic_fetch_add(&sh->next, 1);
        if (u >= sh->units)
            break;
        size_t i0 = (size_t)u * CHUNK, i1 = i0 + CHUNK < n ? i0 + CHUNK : n;
        for (size_t i = i0; i < i1 && wk->rc == MA_OK; i++) {
            int bad = i >= q->n;
            uint32_t item = bad ? qb->v[i - q->n] : q->v[i];
            if (!(item & ITEM_SETTLED) && i + 8 < q->n) {
                /* seeds come in entry order: their states are read in order, ahead */
                uint32_t ahead = q->v[i + 8];
                __builtin_prefetch(&wk->job->members[ahead & ITEM_MEMBER ? 1 : 0]
                                        .state[ahead & ITEM_ENTRY]);
            }
            take_item(wk, item & ITEM_MEMBER ? 1 : 0, item & ITEM_ENTRY,
                      (item & ITEM_SETTLED) != 0, bad, sh->t, d);
        }
    }
    report(wk);
}

/* One edge into open entry p of member pm, after its successor settled in bucket d of level t:
 * with EDGE_FORCE (the successor is at (-t, d)) p can force key1 >= t at key2 d + 1, and nothing
 * can give it a smaller key2 any more except its own exit (t, d), a seed of the bucket at work that
 * has settled it already: it is settled at once (so it is queued once, however many of its
 * successors settle at -t). Otherwise one successor class is counted off (an open draw whose exit
 * is >= 0 is never forced below 0 and keeps no count); one left with no open successor and an exit
 * <= -t (or none) is forced to key1 <= -t. The partition of p is this thread's alone. */
static inline void apply_edge(struct worker *wk, int pm, ma_svm_state *sp, uint32_t p, int force,
                              int t, int d)
{
    ma_svm_key k = sp->key;
    if (force) {
        if (k.k1 == t && k.k2 <= d)
            return; /* settled by its seed in this bucket */
        settle_entry(wk->sh, pm, p, 0);
        store_key(sp, t, d + 1);
        wk->settled++;
        push(wk, d + 1, item_of(pm, p, 1), 0);
        return;
    }
    if (k.k1 != MA_SVM_NO_EXIT && k.k1 >= 0)
        return;
    if (--sp->rem != 0 || (k.k1 != MA_SVM_NO_EXIT && k.k1 > -t))
        return; /* still open, or its exit is settled at a lower level */
    int k2 = k.k1 == -t && k.k2 > d + 1 ? k.k2 : d + 1;
    settle_entry(wk->sh, pm, p, 0);
    store_key(sp, -t, k2);
    wk->settled++;
    push(wk, k2, item_of(pm, p, 1), 1);
}

/* Applying the chunk's edges, a partition at a time: its states and bitmap words are this
 * thread's alone until the next barrier. Edges into entries settled already are dropped by the
 * bitmap; the states of the others are fetched AHEAD edges before they are needed. */
static void run_apply(struct worker *wk)
{
    struct shared *sh = wk->sh;
    int t = sh->t, d = sh->bucket - 32768;
    for (;;) {
        if (stopping(wk))
            break;
        uint64_t j = atomic_fetch_add(&sh->next_part, 1);
        if (j >= sh->parts)
            break;
        int pm = j >= sh->part0[1] && sh->nparts[1] ? 1 : 0;
        ma_svm_state *ps = wk->job->members[pm].state;
        const uint64_t *done = sh->done[pm];
        for (int w = 0; w < sh->nthreads; w++) {
            const struct edges *ed = &sh->wks[w].ed;
            for (uint32_t b = ed->head[j]; b != NONE; b = ed->link[b]) {
                const uint32_t *x = ed->pool + (size_t)b * BLOCK;
                int n = b == ed->tail[j] ? (int)ed->fill[j] : BLOCK;
                for (int i = 0; i < n && wk->rc == MA_OK; i++) {
                    if (i + AHEAD < n) {
                        uint32_t q = x[i + AHEAD] & ITEM_ENTRY;
                        if (!is_done(done, q))
                            __builtin_prefetch(&ps[q]);
                    }
                    uint32_t p = x[i] & ITEM_ENTRY;
                    if (is_done(done, p))
                        continue;
                    apply_edge(wk, pm, &ps[p], p, (x[i] & EDGE_FORCE) != 0, t, d);
                }
            }
        }
    }
    report(wk);
}

static void run_phase(void *worker)
{
    struct worker *wk = worker;
    if (wk->sh->phase == PHASE_GEN)
        run_gen(wk);
    else
        run_apply(wk);
}

static void account(struct shared *sh, int64_t bytes)
{
    sh->queue_bytes += (uint64_t)bytes;
    if (sh->queue_bytes > sh->queue_peak)
        sh->queue_peak = sh->queue_bytes;
}

static int queue_into(struct shared *sh, uint32_t where, uint32_t item)
{
    struct vec *v = where & PUSH_BAD ? &sh->bad[where & ~PUSH_BAD] : &sh->buckets[where];
    size_t cap = v->cap;
    if (!vec_push(v, item))
        return 0;
    account(sh, (int64_t)((v->cap - cap) * sizeof *v->v));
    return 1;
}

/* Level t begins: draws whose exit is (t, k2) can force key1 >= t at k2; open draws whose counter
 * reached 0 at a higher level and whose exit is (-t, k2) are forced to key1 <= -t at k2. */
static int seed_level(struct shared *sh, int t)
{
    ma_svm_rank_job *job = sh->job;
    const struct vec *g = &sh->good_seeds[t], *b = &sh->bad_seeds[t];
    for (size_t i = 0; i < g->n; i++) {
        uint32_t item = g->v[i];
        ma_svm_state *st = &job->members[item & ITEM_MEMBER ? 1 : 0].state[item & ITEM_ENTRY];
        if (!is_settled(st) && !queue_into(sh, (uint32_t)BUCKET(st->key.k2), item))
            return 0;
    }
    for (size_t i = 0; i < b->n; i++) {
        uint32_t item = b->v[i];
        ma_svm_state *st = &job->members[item & ITEM_MEMBER ? 1 : 0].state[item & ITEM_ENTRY];
        if (st->rem != 0 || is_settled(st))
            continue;
        settle_entry(sh, item & ITEM_MEMBER ? 1 : 0, item & ITEM_ENTRY, 0);
        sh->settled++;
        if (!queue_into(sh, (uint32_t)BUCKET(st->key.k2) | PUSH_BAD, item | ITEM_SETTLED))
            return 0;
    }
    return 1;
}

/* The pushes of the chunk just applied go to their buckets (thread 0, while the others wait),
 * and the threads' edge lists are emptied. */
static void merge_pushes(struct shared *sh)
{
    struct worker *wks = sh->wks;
    for (int i = 0; i < sh->nthreads; i++) {
        struct edges *ed = &wks[i].ed;
        if (ed->used) {
            memset(ed->head, 0xFF, sh->parts * sizeof *ed->head);
            memset(ed->tail, 0xFF, sh->parts * sizeof *ed->tail);
            ed->used = 0;
        }
    }
    for (int i = 0; i < sh->nthreads && atomic_load(&sh->rc) == MA_OK; i++) {
        struct worker *wk = &wks[i];
        for (size_t j = 0; j < wk->npush; j++) {
            if ((int)(wk->pushes[j].where & ~PUSH_BAD) <= sh->bucket) {
                atomic_store(&sh->rc, ma_error_set(&sh->err, MA_EINTERNAL,
                                                   "malom export: a draw was queued at a key2 "
                                                   "already done"));
                break;
            }
            if (!queue_into(sh, wk->pushes[j].where, wk->pushes[j].item)) {
                atomic_store(&sh->rc, ma_error_set(&sh->err, MA_ENOMEM,
                                                   "malom export: out of memory for the queues"));
                break;
            }
        }
        wk->npush = 0;
    }
}

/* The bucket at work is done: its queues are freed. */
static void free_bucket(struct shared *sh)
{
    if (sh->bucket < 0)
        return;
    struct vec *q = &sh->buckets[sh->bucket], *qb = &sh->bad[sh->bucket];
    account(sh, -(int64_t)((q->cap + qb->cap) * sizeof *q->v));
    vec_free(q);
    vec_free(qb);
}

/* The next non-empty bucket, starting the next level when this one has none left; 0 when every
 * level is done (or the run failed). */
static int choose_bucket(struct shared *sh)
{
    for (;;) {
        if (atomic_load(&sh->rc) != MA_OK)
            return 0;
        int b = sh->bucket + 1;
        while (b < NBUCKETS && sh->buckets[b].n == 0 && sh->bad[b].n == 0)
            b++;
        if (b < NBUCKETS) {
            sh->bucket = b;
            sh->units = (sh->buckets[b].n + sh->bad[b].n + CHUNK - 1) / CHUNK;
            atomic_store(&sh->next, 0);
            return 1;
        }
        if (sh->level_i == sh->nlevels)
            return 0;
        sh->t = sh->levels[sh->level_i++];
        sh->bucket = -1;
        ma_svm_rank_job *job = sh->job;
        if (job->progress) {
            char label[96], name[32];
            ma_svsector_format(name, sizeof name, job->members[0].sector);
            snprintf(label, sizeof label, "rank draws %s_%s%s: level %d of %d",
                     ma_svrules_variant_name(job->rules->variant), name,
                     job->nmembers == 2 ? " (+twin)" : "", sh->level_i, sh->nlevels);
            ma_progress_set_label(job->progress, label);
        }
        if (!seed_level(sh, sh->t))
            atomic_store(&sh->rc, ma_error_set(&sh->err, MA_ENOMEM,
                                               "malom export: out of memory for the queues"));
    }
}

/* Thread 0 between two barriers. After collecting edges: apply them. After applying them: their
 * pushes go to their buckets, and the bucket's next chunk is collected, or the next bucket (or
 * level) is chosen. A bucket too small to be worth the four barriers of its two phases is done
 * here, by thread 0 alone, while the others wait: what a bucket settles does not depend on which
 * threads take its items, nor on how they are split into chunks. */
static void next_phase(void *shared)
{
    struct shared *sh = shared;
    if (sh->phase == PHASE_GEN) {
        sh->phase = PHASE_APPLY;
        atomic_store(&sh->next_part, 0);
        return;
    }
    for (;;) {
        merge_pushes(sh);
        if (atomic_load(&sh->rc) != MA_OK) {
            sh->phase = PHASE_STOP;
            return;
        }
        if (atomic_load(&sh->next) >= sh->units) {
            free_bucket(sh);
            if (!choose_bucket(sh)) {
                sh->phase = PHASE_STOP;
                return;
            }
        }
        sh->phase = PHASE_GEN;
        if (sh->nthreads == 1 ||
            sh->buckets[sh->bucket].n + sh->bad[sh->bucket].n > SERIAL_ITEMS)
            return;
        struct worker *w0 = &sh->wks[0];
        w0->shared = 0; /* no other thread touches the bitmap until the next barrier */
        run_gen(w0);
        atomic_store(&sh->next_part, 0);
        run_apply(w0);
        w0->shared = 1;
    }
}

/* Before the threads start: how many work, and so whether the bitmap words are shared. */
static void begin(void *shared, int threads)
{
    struct shared *sh = shared;
    sh->nthreads = threads;
    for (int i = 0; i < threads; i++)
        sh->wks[i].shared = threads > 1;
}

static int stopped(const void *shared)
{
    return ((const struct shared *)shared)->phase == PHASE_STOP;
}

/* One pass over the entries: every exit's level, the seeds of each level, the draws that can
 * have no value (neither an exit nor an internal draw successor), and the bitmap of the entries
 * that are no draws. */
static int collect_seeds(struct shared *sh, ma_error *err)
{
    ma_svm_rank_job *job = sh->job;
    uint8_t *seen = calloc(32768, 1);
    if (!seen)
        return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    int rc = MA_OK;
    for (int m = 0; m < job->nmembers && rc == MA_OK; m++) {
        const ma_svm_rank_member *mb = &job->members[m];
        for (uint64_t e = 0; e < mb->entries && rc == MA_OK; e++) {
            const ma_svm_state *st = &mb->state[e];
            if (OUTCOME(mb->open[e]) != V_DRAW) {
                mark_done(sh->done[m], e, 0);
                continue;
            }
            int k1 = st->key.k1;
            if (k1 == MA_SVM_NO_EXIT) {
                if (MA_SVM_COUNT(st->count) == 0)
                    fail(err, &rc, MA_EINTERNAL, job, m, e,
                         "a draw of the producer's solution has no draw turn");
                continue;
            }
            if (k1 == 0)
                continue;
            int t = k1 < 0 ? -k1 : k1;
            seen[t] = 1;
            if (!vec_push(k1 > 0 ? &sh->good_seeds[t] : &sh->bad_seeds[t], item_of(m, e, 0)))
                rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
        }
    }
    for (int t = 32767; t > 0; t--)
        if (seen[t])
            sh->levels[sh->nlevels++] = t;
    free(seen);
    return rc;
}

/* The colex-rank -> compressed mask tables of the members, and the byte deposit table. */
static int unrank_tables(struct shared *sh, ma_error *err)
{
    ma_svm_rank_job *job = sh->job;
    for (int v = 0; v < 256; v++)
        sh->pop8[v] = (uint8_t)ma_sv_popcount((uint32_t)v);
    for (int a = 0; a < 16; a++)
        for (int b = 0; b < 16; b++) {
            int found = -1;
            for (int k = 0; k < 16 && found < 0; k++) {
                int same = 1;
                for (int p = 0; p < 24 && same; p++)
                    same = ma_svindex_apply(job->ix, a, ma_svindex_apply(job->ix, b, 1u << p)) ==
                           ma_svindex_apply(job->ix, k, 1u << p);
                if (same)
                    found = k;
            }
            if (found < 0)
                return ma_error_set(err, MA_EINTERNAL, "malom export: the ops are not a group");
            sh->comp[a][b] = (uint8_t)found;
        }
    for (int m = 0; m < job->nmembers; m++) {
        ma_sv_sector n = ma_svrules_negate(job->members[m].sector);
        sh->pred_member[m] = -1;
        for (int i = 0; i < job->nmembers; i++)
            if (ma_svrules_sector_eq(job->members[i].sector, n))
                sh->pred_member[m] = i;
    }
    for (int m = 0; m < 256; m++)
        for (int v = 0; v < 256; v++) {
            int out = 0, j = 0;
            for (int q = 0; q < 8; q++)
                if (m >> q & 1)
                    out |= (v >> j++ & 1) << q;
            sh->pdep8[m][v] = (uint8_t)out;
        }
    for (int m = 0; m < job->nmembers; m++) {
        ma_sv_sector s = job->members[m].sector;
        uint64_t n = ma_svindex_binom(job->ix, 24 - s.w, s.b);
        sh->per_rep[m] = (uint32_t)n;
        sh->unrank[m] = malloc((n ? n : 1) * sizeof *sh->unrank[m]);
        if (!sh->unrank[m])
            return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
        uint32_t c = s.b ? (1u << s.b) - 1 : 0;
        for (uint64_t g = 0; g < n; g++) {
            sh->unrank[m][g] = c;
            if (s.b)
                c = ma_svindex_colex_next(c);
        }
    }
    return MA_OK;
}

/* Predecessor classes one item can have at most: un-moves of the side not to move. */
static uint32_t max_preds(const ma_svm_rank_job *job, int m)
{
    const ma_svrules *r = job->rules;
    ma_sv_sector s = job->members[m].sector;
    int adj = 0;
    for (int d = 0; d < 24; d++)
        if (ma_sv_popcount(r->adj[d]) > adj)
            adj = ma_sv_popcount(r->adj[d]);
    int fly = s.b + s.bf <= r->fly_limit, free_pts = 24 - s.w - s.b;
    uint32_t n = (uint32_t)(s.b * (fly ? (free_pts > 0 ? free_pts : 0) : adj));
    return n < MAX_CLASSES ? n : MAX_CLASSES;
}

/* The partitions of the members' entries and each thread's pool of edge blocks: a chunk holds at
 * most half as many edges as the members have entries (2 bytes an entry, with the bucket queues'
 * 4 less than the 8 of the analysis's depth queues they follow, docs/solver.md "Memory"), and each
 * thread's pool has room for two units of items at least. */
static int edge_lists(struct shared *sh, struct worker *wks, int nthreads, ma_error *err)
{
    ma_svm_rank_job *job = sh->job;
    uint64_t entries = 0;
    uint32_t unit = 0;
    for (int m = 0; m < job->nmembers; m++) {
        sh->part0[m] = sh->parts;
        sh->nparts[m] = (uint32_t)((job->members[m].entries + ((uint64_t)1 << PART_BITS) - 1) >>
                                   PART_BITS);
        sh->parts += sh->nparts[m];
        entries += job->members[m].entries;
        uint32_t u = CHUNK * max_preds(job, m);
        unit = u > unit ? u : unit;
    }
    sh->reserve = (sh->parts < unit ? sh->parts : unit) + unit / BLOCK + 1;
    uint64_t blocks = entries / 2 / BLOCK / (uint64_t)nthreads;
    if (blocks < 2 * (uint64_t)sh->reserve)
        blocks = 2 * (uint64_t)sh->reserve;
    for (int i = 0; i < nthreads; i++) {
        struct edges *ed = &wks[i].ed;
        ed->nblocks = (uint32_t)blocks;
        /* read and written at random */
        ed->pool = ma_huge_alloc(blocks * BLOCK * sizeof *ed->pool);
        ed->link = malloc(blocks * sizeof *ed->link);
        ed->head = malloc((sh->parts ? sh->parts : 1) * sizeof *ed->head);
        ed->tail = malloc((sh->parts ? sh->parts : 1) * sizeof *ed->tail);
        ed->fill = malloc((sh->parts ? sh->parts : 1) * sizeof *ed->fill);
        if (!ed->pool || !ed->link || !ed->head || !ed->tail || !ed->fill)
            return ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
        memset(ed->head, 0xFF, sh->parts * sizeof *ed->head);
        memset(ed->tail, 0xFF, sh->parts * sizeof *ed->tail);
    }
    return MA_OK;
}

/* Acyclic components (and mora's full board): every draw's value is its exit, or a Count. */
static int rank_acyclic(ma_svm_rank_job *job, int full_board, ma_error *err)
{
    int rc = MA_OK;
    for (int m = 0; m < job->nmembers && rc == MA_OK; m++) {
        const ma_svm_rank_member *mb = &job->members[m];
        for (uint64_t e = 0; e < mb->entries && rc == MA_OK; e++) {
            ma_svm_state *st = &mb->state[e];
            if (OUTCOME(mb->open[e]) != V_DRAW)
                continue;
            if (full_board)
                continue;
            if (st->key.k1 == MA_SVM_NO_EXIT)
                fail(err, &rc, MA_EINTERNAL, job, m, e,
                     "a draw of the producer's solution has no draw turn");
            else if (st->key.k1 != 0)
                st->count |= MA_SVM_SETTLED;
        }
    }
    return rc;
}

int ma_svm_rank(ma_svm_rank_job *job, ma_svm_rank_stats *stats, ma_error *err)
{
    memset(stats, 0, sizeof *stats);
    int full_board = 0;
    for (int m = 0; m < job->nmembers; m++) {
        full_board |= ma_svrules_full_board_draw(job->rules, job->members[m].sector);
        if (job->members[m].entries > ITEM_ENTRY + (uint64_t)1)
            return ma_error_set(err, MA_EINTERNAL, "malom export: sector too large for the queues");
    }
    if (!job->cyclic || full_board)
        return rank_acyclic(job, full_board, err);
    struct shared *sh = calloc(1, sizeof *sh);
    int nthreads = job->threads < 1 ? 1 : job->threads;
    struct worker *wks = calloc((size_t)nthreads, sizeof *wks);
    int rc = MA_OK;
    if (sh) {
        sh->buckets = calloc(NBUCKETS, sizeof *sh->buckets);
        sh->bad = calloc(NBUCKETS, sizeof *sh->bad);
        sh->good_seeds = calloc(32768, sizeof *sh->good_seeds);
        sh->bad_seeds = calloc(32768, sizeof *sh->bad_seeds);
    }
    if (!sh || !wks || !sh->buckets || !sh->bad || !sh->good_seeds || !sh->bad_seeds)
        rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    if (rc == MA_OK) {
        sh->job = job;
        rc = unrank_tables(sh, err);
    }
    for (int m = 0; m < job->nmembers && rc == MA_OK; m++) {
        sh->done[m] = calloc((size_t)((job->members[m].entries + 63) / 64 + 1), sizeof *sh->done[m]);
        if (!sh->done[m])
            rc = ma_error_set(err, MA_ENOMEM, "malom export: out of memory");
    }
    if (rc == MA_OK)
        rc = edge_lists(sh, wks, nthreads, err);
    if (rc == MA_OK)
        rc = collect_seeds(sh, err);
    if (rc == MA_OK) {
        sh->nthreads = 1; /* thread 0 merges the pushes of those that work; none yet */
        sh->wks = wks;
        sh->bucket = -1;
        sh->phase = PHASE_APPLY; /* as after a chunk: next_phase chooses the first bucket */
        sh->units = 0;
        atomic_init(&sh->rc, MA_OK);
        atomic_init(&sh->next, 0);
        atomic_init(&sh->next_part, 0);
        pthread_mutex_init(&sh->lock, NULL);
        for (int i = 0; i < nthreads; i++) {
            wks[i].sh = sh;
            wks[i].job = job;
        }
        next_phase(sh); /* the first level's seeds and first bucket */
        static const ma_svphases_ops ops = {begin, run_phase, next_phase, stopped};
        ma_svphases_run(&ops, sh, wks, sizeof *wks, nthreads);
        pthread_mutex_destroy(&sh->lock);
        rc = atomic_load(&sh->rc);
        if (rc != MA_OK)
            *err = sh->err;
        stats->levels = (uint64_t)sh->nlevels;
        stats->queue_peak_bytes = sh->queue_peak;
        stats->settled = sh->settled;
        for (int i = 0; i < nthreads; i++)
            stats->settled += wks[i].settled;
    }
    if (sh) {
        for (int b = 0; sh->buckets && b < NBUCKETS; b++)
            vec_free(&sh->buckets[b]);
        for (int b = 0; sh->bad && b < NBUCKETS; b++)
            vec_free(&sh->bad[b]);
        for (int t = 0; t < 32768; t++) {
            if (sh->good_seeds)
                vec_free(&sh->good_seeds[t]);
            if (sh->bad_seeds)
                vec_free(&sh->bad_seeds[t]);
        }
        free(sh->unrank[0]);
        free(sh->unrank[1]);
        free(sh->done[0]);
        free(sh->done[1]);
        free(sh->buckets);
        free(sh->bad);
        free(sh->good_seeds);
        free(sh->bad_seeds);
    }
    for (int i = 0; wks && i < nthreads; i++) {
        free(wks[i].pushes);
        free(wks[i].ed.pool);
        free(wks[i].ed.link);
        free(wks[i].ed.head);
        free(wks[i].ed.tail);
        free(wks[i].ed.fill);
    }
    free(sh);
    free(wks);
    return rc;
}
