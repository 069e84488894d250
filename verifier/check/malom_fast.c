/*
 * The Malom checker's table-driven path, per index (malom_check_internal.h): the checker's inner
 * loop, run by the walk's threads over the tables malom_tables.c made.
 *
 * Each index goes through two steps, two indices in flight per thread so that the successors'
 * entries of one arrive from memory while the next is generated: fast_prepare (the marker rule on
 * the representative's stabiliser, the turns by the fused generator with their successors ranked,
 * prefetches), then fast_finish, which takes the common case first (the best successor's rank or
 * score equals the stored value's: verified without decoding either), else the general loop over
 * the successors (one table load each, the file's slow path for what no table holds), decodes the
 * best one only and hands the derivation to the verdict (ma_mc_conclude). The chunk functions at
 * the end give the walk (verifier/check/walk.h) its visit of one index, with the index
 * self-check: the reference round trip once per opponent mask or unranked board, the rank
 * arithmetic at every stepped one.
 */
#include <string.h>

#include "verifier/check/malom_check_internal.h"
#include "common/counts.h"

static int index_twice(struct mc_worker *w, uint64_t idx)
{
    return ma_mc_index_error(&w->err, w->sh, idx, "reached twice by the walk: checker index bug");
}

/* More turns than MA_VRULES_MAX_TURNS: impossible under the rules, so a bug of the checker. */
static __attribute__((cold)) int too_many_turns(struct mc_worker *w, uint64_t idx)
{
    return ma_mc_index_error(&w->err, w->sh, idx, "has more than %s: checker bug",
                             MA_COUNT(MA_VRULES_MAX_TURNS, "turn", "turns"));
}

/* Prepares index idx, the board (reps[r], opp): marker rule, stored entry, turns, successor
 * ranks, prefetches. */
static void fast_prepare(struct mc_worker *w, struct fpending *p, uint64_t r, uint32_t opp,
                         uint64_t idx)
{
    const struct mc_shared *sh = w->sh;
    const struct fast *f = sh->fast;
    struct fworker *fw = w->fw;
    uint32_t rep = f->reps[r];
    p->idx = idx;
    p->rep = rep;
    p->opp = opp;
    /* Both are read in fast_finish, one index later. */
    __builtin_prefetch(f->self.entries + idx * (uint64_t)f->self.entry_size);
    __builtin_prefetch((const void *)&w->th.visited[idx >> 6], 1);
    /* §4.6 on the representative's stabiliser: the smallest op reaching the least image. */
    int marker = -1;
    uint32_t least = opp;
    for (uint32_t st = f->stab[r]; st; st &= st - 1) {
        int op = __builtin_ctz(st);
        uint32_t img = ma_malom_apply_mask(op, opp);
        if (img < least) {
            least = img;
            marker = op;
        }
    }
    p->marker = marker;
    if (marker >= 0) {
        p->state = 0;
        return;
    }
    p->state = 2;
    if (sh->in->full_board_draw && f->w == 12 && f->b == 12) {
        p->fixed.key1 = 0;
        p->fixed.key2 = 0;
        return;
    }
    ma_vturns *t = &p->turns;
    /* the thread's group by its place in fw (th.grp points there): the compiler then sees that
     * the generator's stores to p do not touch the maps it reads (2% of the instructions on
     * std 4_4 .sec, by callgrind) */
    if (w->th.group_ok ? ma_fused_turns(&f->fused, &fw->group, rep, opp,
                                        ma_turn_masks_of(f->turn_rows, r), t, p->succ)
                       : ma_vrules_generate(&f->rules, (ma_board){rep, opp}, t)) {
        w->th.rc = too_many_turns(w, idx);
        p->state = -1; /* never finished: fast_step drops it */
        return;
    }
    if (t->immediate_wins > 0) {
        /* A win in 1 is the largest value any turn can have, so no successor can change it. */
        p->fixed = f->win1;
        return;
    }
    if (t->n == 0) {
        p->fixed = f->no_turn;
        return;
    }
    p->state = 3;
    if (w->th.group_ok)
        return; /* ma_fused_turns ranked and prefetched */
    ma_malom_index_rank_many(sh->in->ix, &fw->cache, t->succ, t->n, p->succ);
    for (int i = 0; i < t->n; i++) {
        const struct fchild *c = &f->ch[t->kind[i]];
        if (c->file)
            __builtin_prefetch(c->view.entries + p->succ[i] * (uint64_t)c->view.entry_size);
    }
}

/* The turn value of successor i (which lies in an existing child file): TS_OK with *m and *score,
 * or TS_BROKEN when the child's canonical entry is a marker. */
static inline int turn_of(const struct mc_shared *sh, const struct fchild *c, uint64_t idx,
                          ma_malom_value *m, int64_t *score)
{
    ma_malom_entry e;
    if (c->bytes) {
        const struct byte_turn *t = &c->bytes[c->view.entries[idx]];
        if (t->status == TS_OK) {
            *m = t->m;
            *score = t->score;
            return TS_OK;
        }
        if (t->status == TS_BROKEN)
            return TS_BROKEN;
        ma_malom_file_entry(c->file, idx, &e);
    } else if (!ma_malom_view_entry(&c->view, idx, &e)) {
        ma_malom_file_entry(c->file, idx, &e);
    } else if (e.kind != MA_MALOM_SYM) {
        const struct key1_turn *t = &c->key1s[e.key1 + c->key1_bias];
        m->key1 = t->key1;
        m->key2 = t->mul * e.key2 + t->add;
        *score = value_score(*m);
        return TS_OK;
    }
    if (e.kind == MA_MALOM_SYM)
        return TS_BROKEN;
    ma_malom_value cv = {e.key1, e.key2};
    *m = ma_malom_turn_value(cv, c->v, sh->frame.v);
    *score = value_score(*m);
    return TS_OK;
}

/* The stored word of a size-byte entry at e (little-endian), as the rank and key1 tables index it:
 * a legacy byte, or a .sec2 entry's key1 field in the low F1 bits and key2 above. */
static inline uint32_t raw_entry(const uint8_t *e, int size)
{
    uint32_t raw = e[0];
    if (size >= 2)
        raw |= (uint32_t)e[1] << 8;
    if (size == 3)
        raw |= (uint32_t)e[2] << 16;
    return raw;
}

/* A .sec2 raw word's key2 field, sign-extended (m2 = 2^(F2-1)). */
static inline int32_t raw_key2(uint32_t raw, int f1, uint32_t m2)
{
    return (int32_t)(((raw >> f1) ^ m2) - m2);
}

/* The score (value_score) of the turn value of successor idx in child c: greater score, greater
 * §5.8 value. When the sector is ranked, one table load for all but slow-path entries: an odd rank
 * 2i + 1 is the i-th of f->scores. A rank is not compared here: a value no stored word names (an
 * overflowed entry) has an even rank shared by every value between the same two scores, and two
 * such successors of one position would tie by rank with different values. 0 with *score set,
 * or 1 when the child's canonical entry is a marker. */
static inline int successor_score(const struct mc_shared *sh, const struct fast *f,
                                  const struct fchild *c, uint64_t idx, int64_t *score)
{
    if (f->ranked) {
        int32_t r = c->rank[raw_entry(c->view.entries + (uint64_t)f->ranked * idx, f->ranked)];
        if (r >= 0) {
            *score = f->scores[r >> 1];
            return 0;
        }
        if (r == RANK_BROKEN)
            return 1;
    }
    ma_malom_value m;
    return turn_of(sh, c, idx, &m, score) != TS_OK;
}

/* The best successor of p by rank (f->complete: every successor in a present child with a rank
 * table, one load each): its rank, at least no_turn_rank, with *bi its turn (-1: none beats no
 * turn); or RANK_SLOW when some successor's rank is negative (a marker, or a value only the
 * file's slow path decodes): fast_finish's general loop then takes the index from the start. */
static inline int32_t ranked_best(const struct fast *f, const struct fpending *p, int *bi)
{
    const ma_vturns *t = &p->turns;
    int32_t bk = f->no_turn_rank, slow = 0;
    *bi = -1;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        int32_t r = f->rank[k][raw_entry(f->ent[k] + (uint64_t)f->ranked * p->succ[i], f->ranked)];
        slow |= r; /* the sign bit: some rank is negative */
        if (r > bk) {
            bk = r;
            *bi = i;
        }
    }
    return slow < 0 ? RANK_SLOW : bk;
}

/* The best successor of p by score (f->complete_sec2: .sec2 children of one layout without rank
 * tables, each successor's score from its raw key1 and key2 fields through its child's key1
 * score table): 1 with its score in *best, at least no_turn_score, and *bi its turn (-1: none
 * beats no turn); or 0 when a successor is a marker (key1 0, key2 < 0) or has an overflowed key2:
 * fast_finish's general loop then takes the index from the start. size is f->sec2_size, a
 * constant in each of sec2_best's two calls. */
static inline __attribute__((always_inline)) int
sec2_best_size(const struct fast *f, const struct fpending *p, int64_t *best, int *bi,
               const int size)
{
    const ma_vturns *t = &p->turns;
    const int f1 = f->sec2_f1;
    const uint32_t mask1 = f->sec2_mask1, m1 = f->sec2_m1, m2 = f->sec2_m2;
    int64_t bk = f->no_turn_score;
    int32_t slow = 0;
    *bi = -1;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        uint32_t raw = raw_entry(f->ent[k] + (uint64_t)size * p->succ[i], size);
        uint32_t x = (raw & mask1) ^ m1; /* signed key1 + key1_bias */
        int32_t k2 = raw_key2(raw, f1, m2);
        const struct key1_score *ks = &f->k1s[k][x];
        slow |= k2 - ks->lim; /* the sign bit when k2 < lim (both below 2^23 in magnitude) */
        int64_t sc = ks->base + (int64_t)ks->a * k2;
        if (sc > bk) {
            bk = sc;
            *bi = i;
        }
    }
    *best = bk;
    return slow >= 0;
}

static inline int sec2_best(const struct fast *f, const struct fpending *p, int64_t *best, int *bi)
{
    return f->sec2_size == 3 ? sec2_best_size(f, p, best, bi, 3) : sec2_best_size(f, p, best, bi, 2);
}

/* The key of index idx's stored value in the order fast_finish compares successors by (ranked:
 * its rank, else its score), when it is a value ma_mc_conclude finds well-formed and the key
 * names it alone; else a key no successor has (RANK_NONE, INT64_MIN). */
static inline int64_t stored_key(const struct fast *f, uint64_t idx)
{
    const int size = f->self.entry_size;
    uint32_t raw = raw_entry(f->self.entries + (uint64_t)size * idx, size);
    if (f->self_rank)
        return f->self_rank[raw];
    uint32_t x = (raw & f->self_mask1) ^ f->self_m1;
    int32_t k2 = raw_key2(raw, f->self.f1, f->self_m2);
    const struct self_key1 *sk = &f->self_k1[x];
    if (k2 == f->self.spec || !(sk->ok >> key2_class(k2) & 1))
        return INT64_MIN;
    return sk->base + (int64_t)sk->a * k2;
}

static int fast_finish(struct mc_worker *w, struct fpending *p)
{
    const struct mc_shared *sh = w->sh;
    const struct fast *f = sh->fast;
    if (ma_visited_mark(w->th.visited, p->idx, sh->walk.team.shared))
        return index_twice(w, p->idx);
    /* The best successor's key, when every successor has one (ranked_best, sec2_best); fast_bi
     * its turn. */
    int64_t fast_bk = 0;
    int fast_bi = -1, fast_ok = 0;
    if (p->state == 3 && (f->complete || f->complete_sec2)) {
        if (f->complete) {
            int32_t r = ranked_best(f, p, &fast_bi);
            fast_ok = r >= 0;
            fast_bk = r;
        } else {
            fast_ok = sec2_best(f, p, &fast_bk, &fast_bi);
        }
        /* The common case: the stored value is the best turn value. Equal keys are one value
         * (an odd rank is one score, score_rank; a score one value, value_score), and
         * stored_key gives a key only to stored values ma_mc_conclude finds well-formed: this is
         * the verdict ma_mc_conclude would give, without decoding the stored entry or the best
         * successor's. */
        if (fast_ok && (f->self_rank || f->self_k1) && stored_key(f, p->idx) == fast_bk) {
            w->part.canonical++;
            w->part.verified++;
            return MA_OK;
        }
    }
    if (!ma_malom_view_entry(&f->self, p->idx, &p->st))
        ma_malom_file_entry(sh->in->file, p->idx, &p->st);
    if (p->state >= 2 && p->st.kind == MA_MALOM_SYM)
        p->state = 1; /* a marker stored at a canonical index: no value to compare */
    ma_mcheck_item it;
    memset(&it, 0, sizeof it);
    it.entry = p->idx;
    it.stored = p->st;
    it.expected_marker = p->marker;
    it.derived_full = 1;
    if (p->state == 0) {
        w->part.markers++;
        /* The marker index against the reference: rank gives the class's canonical board, which
         * the prescribed op must produce (both in Malom's numbering, as the walk's masks are). */
        uint32_t cw, cb;
        uint64_t back = ma_malom_index_rank_malom(sh->in->ix, p->rep, p->opp, &cw, &cb);
        if (back == p->idx)
            return ma_mc_index_bug(w, p->idx, back);
        if (p->st.kind == MA_MALOM_SYM && p->st.sym_op == p->marker &&
            ma_malom_apply_mask(p->marker, p->rep) == cw &&
            ma_malom_apply_mask(p->marker, p->opp) == cb) {
            w->part.verified++;
            return MA_OK;
        }
        return ma_mc_symmetry(w, &it);
    }
    w->part.canonical++;
    if (p->state == 1) {
        return ma_mc_symmetry(w, &it);
    }
    struct derivation d;
    memset(&d, 0, sizeof d);
    d.full = 1;
    if (p->state == 2) {
        d.best = p->fixed;
        d.fixed = 1;
        return ma_mc_conclude(w, &it, &p->st, &d);
    }
    const ma_vturns *t = &p->turns;
    ma_malom_value best = f->no_turn;
    int64_t best_key = f->no_turn_score; /* the general loop compares scores, never ranks */
    int best_i = -1;
    if (fast_ok) {
        /* ranked_best or sec2_best above; a successor without a key goes through the general
         * loop below */
        best_i = fast_bi;
        goto decode;
    }
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        const struct fchild *c = &f->ch[k];
        int64_t key;
        if (!c->file) {
            d.full = 0;
            d.missing = 1;
            d.missing_kind[k] = 1;
        } else if (successor_score(sh, f, c, p->succ[i], &key)) {
            d.full = 0;
            d.broken = 1;
        } else if (key > best_key) {
            best_key = key;
            best_i = i;
        }
    }
decode:
    /* Only the best successor is decoded into its turn value. */
    if (best_i >= 0) {
        int64_t sc;
        (void)turn_of(sh, &f->ch[t->kind[best_i]], p->succ[best_i], &best, &sc);
    }
    d.best = best;
    /* Fast path for the common case: fully derived and equal to a well-formed stored value. */
    return ma_mc_conclude(w, &it, &p->st, &d);
}

/* The reference round trip of the per-index path, for one index of every opponent mask: unrank
 * gives the board back, and rank gives the index back (or, at a marker, another index). */
static int reference_round_trip(struct mc_worker *w, uint64_t r, uint32_t opp, uint64_t idx)
{
    const struct mc_shared *sh = w->sh;
    const struct fast *f = sh->fast;
    uint32_t mw, mb;
    ma_malom_index_unrank_malom(sh->in->ix, f->w, f->b, idx, &mw, &mb);
    ma_board pos = {ma_malom_mask_to_open(mw), ma_malom_mask_to_open(mb)};
    uint64_t back = ma_malom_index_rank(sh->in->ix, pos, NULL);
    int marker = ma_malom_index_marker(sh->in->ix, f->w, f->b, idx);
    if (mw != sh->walk.reps[r] || mb != opp || (marker < 0) != (back == idx))
        return ma_mc_index_bug(w, idx, back);
    return MA_OK;
}

static void fast_step(struct mc_worker *w, uint64_t r, uint32_t opp, uint64_t idx)
{
    struct fworker *fw = w->fw;
    struct fpending *cur = &fw->slot[fw->turn];
    fw->turn ^= 1;
    fast_prepare(w, cur, r, opp, idx);
    if (fw->prev && !w->th.rc) {
        int rc = fast_finish(w, fw->prev);
        if (rc && !w->th.rc)
            w->th.rc = rc;
    }
    fw->prev = w->th.rc ? NULL : cur;
}

/* The walk by opponent mask computes each index one ahead: its stored entry and visited word are
 * prefetched then (the walk strides a representative block between indices, so each is a miss
 * to memory, and fast_step reads them one index later still). */
static inline void ahead(ma_walk_thread *th, const void *ctx, uint64_t idx)
{
    const struct fast *f = ctx;
    __builtin_prefetch(f->self.entries + idx * (uint64_t)f->self.entry_size);
    __builtin_prefetch((const void *)&th->visited[idx >> 6], 1);
}

/* One index of the walk by opponent mask; the first of each mask also goes through the reference
 * round trip. */
static inline void visit_by_opp(ma_walk_thread *th, const void *ctx, uint64_t r, uint32_t opp,
                                uint64_t idx, int first)
{
    (void)ctx;
    struct mc_worker *w = (struct mc_worker *)th;
    if (first && reference_round_trip(w, r, opp, idx)) {
        th->rc = MA_EINTERNAL;
        return;
    }
    fast_step(w, r, opp, idx);
}

/* One index of the walk in index order: an unranked board goes through the reference round trip,
 * and every board, stepped or not, must rank back to its index; the bitmap then proves
 * coverage. */
static inline void visit_by_rep(ma_walk_thread *th, const void *ctx, uint64_t r, uint32_t opp,
                                uint64_t idx, int first)
{
    (void)ctx;
    struct mc_worker *w = (struct mc_worker *)th;
    const ma_walk *wk = th->walk;
    if (first && reference_round_trip(w, r, opp, idx)) {
        th->rc = MA_EINTERNAL;
        return;
    }
    uint64_t back = r * wk->per_rep + ma_malom_index_g_rank(w->sh->in->ix, wk->reps[r], opp);
    if (back != idx) {
        th->rc = ma_mc_index_bug(w, idx, back);
        return;
    }
    fast_step(w, r, opp, idx);
}

static uint64_t g_rank(const void *ix, uint32_t rep, uint32_t opp)
{
    return ma_malom_index_g_rank(ix, rep, opp);
}

static uint32_t unrank_opp(const void *ix, int w, int b, uint64_t idx)
{
    uint32_t rep, opp;
    ma_malom_index_unrank_malom(ix, w, b, idx, &rep, &opp);
    return opp;
}

uint64_t ma_mc_fast_chunk(ma_walk_thread *th, uint64_t lo, uint64_t hi)
{
    struct mc_worker *w = (struct mc_worker *)th;
    const void *ix = w->sh->in->ix;
    const struct fast *f = w->sh->fast;
    uint64_t done = th->walk->by_opp
                        ? ma_walk_by_opp(th, lo, hi, g_rank, ix, f, ahead, visit_by_opp)
                        : ma_walk_by_entry(th, lo, hi, unrank_opp, ix, f, visit_by_rep);
    struct fworker *fw = w->fw;
    if (fw->prev && !th->rc) {
        int rc = fast_finish(w, fw->prev);
        if (rc)
            th->rc = rc;
    }
    fw->prev = NULL;
    if (th->rc == MA_ENOMEM && w->err.code != MA_ENOMEM)
        ma_error_set(&w->err, MA_ENOMEM, "malom check: out of memory");
    return done;
}
