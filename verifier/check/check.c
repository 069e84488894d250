/* Local verification of one sector; see check.h for the contract. */
#include "verifier/check/check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/check/fused_turns.h"
#include "verifier/check/resident.h"
#include "verifier/check/turn_masks.h"
#include "verifier/check/visited.h"
#include "common/chunk_order.h"
#include "common/progress.h"

#define CHUNK 4096
/* Successor files up to this total are copied into huge-page backed memory before the pass: the
 * lookups are random, and with 4 KiB pages nearly every one misses the TLB. */
#define RESIDENT_BUDGET ((uint64_t)1 << 30)
/* Each child, the sector itself and the visited bitmap take one planned part at most: a copy that
 * could not be planned would leave its memory unwritten while the walk reads it. */
_Static_assert(MA_RESIDENT_PARTS >= MA_TURN_KINDS + 2, "a resident part for every copy");

static const char *const class_names[MA_CHECK_CLASSES + 1] = {
    "wrong-outcome", "wrong-depth", "bad-encoding", "wrong-terminal", "symmetry-inconsistency",
    "missing-child"};

const char *ma_check_class_name(int cls)
{
    if (cls < 0 || cls > MA_CHECK_CLASSES)
        return "unknown";
    return class_names[cls];
}

int32_t ma_check_value_score(ma_value v)
{
    switch (v.outcome) {
    case MA_OUTCOME_WIN: return 65536 - (int32_t)v.depth;
    case MA_OUTCOME_LOSS: return -65536 + (int32_t)v.depth;
    default: return 0;
    }
}

ma_value ma_check_value_negate(ma_value v)
{
    ma_value r = v;
    if (v.outcome == MA_OUTCOME_WIN) {
        r.outcome = MA_OUTCOME_LOSS;
        r.depth = (uint16_t)(v.depth + 1);
    } else if (v.outcome == MA_OUTCOME_LOSS) {
        r.outcome = MA_OUTCOME_WIN;
        r.depth = (uint16_t)(v.depth + 1);
    } else {
        r.depth = 0;
    }
    return r;
}

static ma_value value_from_score(int32_t s)
{
    ma_value v;
    if (s > 0) {
        v.outcome = MA_OUTCOME_WIN;
        v.depth = (uint16_t)(65536 - s);
    } else if (s < 0) {
        v.outcome = MA_OUTCOME_LOSS;
        v.depth = (uint16_t)(s + 65536);
    } else {
        v.outcome = MA_OUTCOME_DRAW;
        v.depth = 0;
    }
    return v;
}

int ma_check_prepare_index(ma_open_index *ix, ma_variant v, ma_sector s, ma_error *err)
{
    ma_vrules r;
    int rc = ma_vrules_init(&r, v, s, err);
    if (rc)
        return rc;
    if ((rc = ma_open_index_prepare(ix, s.w, err)))
        return rc;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (r.succ_exists[k] && ((rc = ma_open_index_prepare(ix, r.succ[k].w, err)) ||
                                 (rc = ma_open_index_prepare_movers(ix, r.succ[k].w, err))))
            return rc;
    return MA_OK;
}

/* Shared, read-only state of one sector check plus the chunk dispenser.
 *
 * Walk order. All successors of a position's non-removal turns have the position's opponent mask
 * as their mover mask, so they lie in one block (one representative) of the child file. Walking
 * the entries by opponent mask (every representative that leaves the mask free, found through
 * bitsets of 64 representatives per point) keeps that block in cache while the mask's entries are
 * checked: the child reads, random in entry order, become local. When finding the representatives
 * beside a mask costs more than it saves (few entries per mask) the walk is in entry order, where
 * the next entry of one representative is the next opponent placement in colex order. The walk
 * by mask marks each entry in a bitmap: every entry must be reached exactly once. */
struct job {
    const ma_check_input *in;
    ma_vrules rules;
    ma_turn_masks turn_rows; /* each representative's destinations, for ma_fused_turns (by_opp) */
    /* the generator's view of this sector (by_opp); its body[k] and entries[k], child[k]'s words
     * and entry count (NULL, 0 when absent), are also what best_turn reads */
    ma_fused_sector fused;
    const ma_open_file *child[MA_TURN_KINDS];
    ma_open_file resident[MA_TURN_KINDS]; /* huge-page copies of the successor bodies */
    void *resident_mem[MA_TURN_KINDS];
    int group_maps;    /* the walk by opponent mask may rank through mover maps (ma_fused_turns):
                          every mover count the maps need is prepared */
    int any_absent;    /* some successor sector the rules name has no file */
    const uint8_t *self_body;  /* the sector's words (a huge-page copy when one exists) */
    void *self_mem;
    uint64_t entries;
    uint64_t per_rep;  /* entries per representative: C(24 - W, B) */
    int w, b;
    uint64_t n_reps;
    uint32_t *reps;    /* representatives in rank order */
    uint16_t *stab;    /* per representative: ops other than the identity that fix it */
    int by_opp;        /* walk by opponent mask (else entry order) */
    uint64_t n_opp;    /* C(24, B) */
    uint64_t opp_per_chunk;
    uint64_t n_tiles;
    uint64_t *without; /* without[t * 24 + p]: bit j when representative 64t + j leaves p free */
    _Atomic uint64_t *visited;
    ma_visited_team team; /* where each thread marks: visited, or a bitmap of its own */
    /* The huge-page copies and the zeroing of visited, made by the threads before the walk. */
    ma_resident copies;
    _Atomic uint64_t next_chunk;
    atomic_int canceled; /* set by the worker that saw in->cancel */
    /* turn_score[word]: the value to the mover of a turn to a successor whose stored word is
     * word, as a score (value_from_score), or TURN_BAD for a word no successor can hold; one
     * load per successor instead of a decode with three data-dependent branches */
    int32_t turn_score[1u << 16];
    /* stored_score[word]: the score of a stored word that is a value (ma_open_value_decode, not
     * "no value"), else STORED_NONE, which no turn has: equal to the best turn's score exactly
     * when finish would find the stored and the derived value equal. */
    int32_t stored_score[1u << 16];
};

/* TURN_BAD lies above every score, so a maximum over turns is TURN_BAD when any turn is bad. */
enum { TURN_BAD = INT32_MAX - 1, STORED_NONE = INT32_MAX };

/* score[word]: a successor's word as the score of the turn to it: its value (§5.3,
 * ma_open_value_decode, which refuses a wrong depth parity and a draw with a depth) negated to the
 * mover's view; a word no successor may hold, including "no value" (a canonical successor always
 * has one), is TURN_BAD. stored[word]: a stored word's own value as a score, or STORED_NONE. */
static void fill_turn_scores(int32_t *score, int32_t *stored)
{
    for (uint32_t word = 0; word < (1u << 16); word++) {
        ma_value v;
        int none = ma_open_value_decode((uint16_t)word, &v) || v.outcome == MA_OUTCOME_NONE;
        score[word] = none ? TURN_BAD : ma_check_value_score(ma_check_value_negate(v));
        stored[word] = none ? STORED_NONE : ma_check_value_score(v);
    }
}

/* One entry between its preparation (board, turns, successor ranks, prefetches issued) and its
 * evaluation: two are in flight per thread so the words of one entry arrive from memory while the
 * next one is being ranked. */
struct pending {
    uint64_t entry;
    ma_board pos;
    uint16_t word;
    int state;      /* 0 non-canonical, 1 value fixed by the rules, 2 needs its successors */
    int missing;    /* some successor lies in an absent sector file */
    ma_value fixed; /* the value when state == 1 */
    ma_vturns turns;
    uint64_t succ_entry[MA_VRULES_MAX_TURNS];
};

/* Per-thread counters and discrepancy list. */
struct worker {
    struct job *job;
    int index;
    int rc;
    ma_check_result part;
    size_t cap;
    struct pending *slot; /* two */
    struct pending *prev; /* prepared, not yet finished */
    int turn;
    ma_open_rank_cache *cache;
    /* the maps of the walk's current opponent mask, for ma_fused_turns; group_ok: made (the walk
     * in entry order has none) */
    int group_ok;
    ma_fused_group *grp;
    _Atomic uint64_t *visited; /* where this thread marks (ma_visited_team_bits) */
    /* Workers sit side by side in one array and write their counters for every entry: keep the
     * written fields of neighbours at least two cache lines apart. */
    char pad[128];
};

static int push_item(struct worker *w, const ma_check_item *it)
{
    if (w->part.n_items == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        ma_check_item *p = realloc(w->part.items, cap * sizeof *p);
        if (!p)
            return MA_ENOMEM;
        w->part.items = p;
        w->cap = cap;
    }
    w->part.items[w->part.n_items++] = *it;
    w->part.by_class[it->cls]++;
    w->part.discrepancies++;
    return 0;
}

/* ma_fused_turns's maps come from the open index. */
static int fill_map(const void *ix, uint32_t mover, ma_mover_map *mm)
{
    return ma_open_index_mover_map(ix, mover, mm);
}

/* Prepares entry e, the board (reps[r], opp). */
static void prepare(struct worker *w, struct pending *p, uint64_t r, uint32_t opp, uint64_t e)
{
    const struct job *j = w->job;
    const ma_vrules *r_ = &j->rules;
    p->entry = e;
    p->pos.mover = j->reps[r];
    p->pos.opp = opp;
    p->missing = 0;
    __builtin_prefetch(j->self_body + 2 * e);
    if (w->visited)
        __builtin_prefetch((const void *)&w->visited[e >> 6], 1);
    /* canonical iff no op fixing the representative lowers the opponent mask (§4.2) */
    for (uint32_t st = j->stab[r]; st; st &= st - 1)
        if (ma_open_index_apply(j->in->ix, __builtin_ctz(st), p->pos).opp < opp) {
            p->state = 0;
            return;
        }
    p->state = 1;
    if (r_->full_board_draw) {
        p->fixed.outcome = MA_OUTCOME_DRAW;
        p->fixed.depth = 0;
        return;
    }
    ma_vturns *t = &p->turns;
    if (w->group_ok ? ma_fused_turns(&j->fused, w->grp, p->pos.mover, opp,
                                     ma_turn_masks_of(&j->turn_rows, r), t, p->succ_entry)
                    : ma_vrules_generate(r_, p->pos, t)) {
        w->rc = MA_EINTERNAL;
        p->state = -1;
        return;
    }
    if (t->immediate_wins) {
        p->fixed.outcome = MA_OUTCOME_WIN;
        p->fixed.depth = 1;
        return;
    }
    if (t->n == 0) {
        p->fixed.outcome = MA_OUTCOME_LOSS;
        p->fixed.depth = 0;
        return;
    }
    p->state = 2;
    if (w->group_ok) {
        /* ma_fused_turns ranked and prefetched; only the absent children remain to be noted */
        for (int i = 0; j->any_absent && i < t->n; i++)
            if (!j->child[t->kind[i]]) {
                p->missing = 1;
                w->part.missing_kind[t->kind[i]] = 1;
            }
        return;
    }
    /* Rank every successor and prefetch its word now; the words are read in finish(). */
    ma_open_index_rank_many(j->in->ix, w->cache, t->succ, t->n, p->succ_entry);
    for (int i = 0; i < t->n; i++) {
        const ma_open_file *f = j->child[t->kind[i]];
        if (!f) {
            p->missing = 1;
            w->part.missing_kind[t->kind[i]] = 1;
            continue;
        }
        if (p->succ_entry[i] < f->header.entry_count)
            __builtin_prefetch(f->body + 2 * p->succ_entry[i]);
    }
}

/* The little-endian word of entry e (§5): one 16-bit load on a little-endian host, where the
 * compiler does not merge the two byte loads of the portable form in the loops below. */
static inline uint32_t word_at(const uint8_t *body, uint64_t e)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint16_t v;
    memcpy(&v, body + 2 * e, sizeof v);
    return v;
#else
    return (uint32_t)body[2 * e] | (uint32_t)body[2 * e + 1] << 8;
#endif
}

/* The best turn score of p (state 2, no successor sector absent): 1 with it in *best, or 0
 * when a successor's entry lies past its file's end or holds no value a successor may hold (the
 * entry is then unverifiable). An index out of range is noted and entry 0 read in its place; that
 * branch is never taken on a sound index (as a flag and a select per successor it cost 3.5% of
 * the instructions on std 4_4). */
static inline int best_turn(const struct job *j, const struct pending *p, int32_t *best)
{
    const ma_vturns *t = &p->turns;
    int32_t b = INT32_MIN;
    int out_any = 0;
    for (int i = 0; i < t->n; i++) {
        int k = t->kind[i];
        uint64_t se = p->succ_entry[i];
        if (__builtin_expect(se >= j->fused.entries[k], 0)) {
            out_any = 1; /* an index bug: noted, and entry 0 read in its place */
            se = 0;
        }
        const uint8_t *body = j->fused.body[k];
        int32_t sc = j->turn_score[word_at(body, se)];
        b = sc > b ? sc : b; /* TURN_BAD wins the maximum */
    }
    *best = b;
    return !out_any && b != TURN_BAD;
}

static void finish(struct worker *w, struct pending *p)
{
    const struct job *j = w->job;
    if (p->state < 0)
        return;
    if (p->entry >= j->entries) {
        w->rc = MA_EINTERNAL; /* an index bug: ranks past the end */
        return;
    }
    if (w->visited && ma_visited_mark(w->visited, p->entry, j->team.shared)) {
        w->rc = MA_EINTERNAL; /* reached twice: an index bug, reported by ma_check_sector */
        return;
    }
    p->word = (uint16_t)word_at(j->self_body, p->entry);
    int32_t tight = 0;
    int tight_ok = p->state == 2 && !p->missing && best_turn(j, p, &tight);
    if (tight_ok && j->stored_score[p->word] == tight) {
        /* The common case: the stored value is the derived one. Equal scores are one value
         * (value_from_score inverts ma_check_value_score on every value a word decodes to), and
         * stored_score gives one only to words that decode to a value: the verdict the whole way
         * below gives, without decoding the stored word or the best score. */
        w->part.checked++;
        w->part.canonical++;
        w->part.verified++;
        return;
    }
    ma_check_item it;
    memset(&it, 0, sizeof it);
    it.entry = p->entry;
    it.stored = p->word;
    w->part.checked++;
    if (p->state == 0) {
        if (p->word == 0) {
            w->part.verified++;
        } else {
            it.cls = MA_CHECK_SYMMETRY;
            it.derived_known = 1;
            it.derived_outcome = MA_OUTCOME_NONE;
            if (push_item(w, &it))
                w->rc = MA_ENOMEM;
        }
        return;
    }
    w->part.canonical++;
    ma_value stored;
    int bad_word = ma_open_value_decode(p->word, &stored) != 0 || stored.outcome == MA_OUTCOME_NONE;
    ma_value derived = p->fixed;
    int known = 1;
    if (p->state == 2) {
        /* best_turn above decides it: derived only when every successor sector is present and
         * every successor word in range holds a value (else missing-child or unverifiable) */
        known = tight_ok;
        derived = known ? value_from_score(tight) : (ma_value){MA_OUTCOME_NONE, 0};
    }
    it.derived_known = (uint8_t)known;
    it.derived_outcome = (uint8_t)derived.outcome;
    it.derived_depth = derived.depth;
    if (bad_word) {
        it.cls = MA_CHECK_BAD_ENCODING;
    } else if (!known) {
        if (p->missing)
            w->part.missing_child++;
        else
            w->part.unverifiable++;
        return;
    } else if (stored.outcome == derived.outcome && stored.depth == derived.depth) {
        w->part.verified++;
        return;
    } else if (p->state == 1) {
        it.cls = MA_CHECK_WRONG_TERMINAL;
    } else if (stored.outcome != derived.outcome) {
        it.cls = MA_CHECK_WRONG_OUTCOME;
    } else {
        it.cls = MA_CHECK_WRONG_DEPTH;
    }
    if (push_item(w, &it))
        w->rc = MA_ENOMEM;
}

static void step(struct worker *w, uint64_t r, uint32_t opp, uint64_t e)
{
    struct pending *cur = &w->slot[w->turn];
    w->turn ^= 1;
    prepare(w, cur, r, opp, e);
    if (w->prev && !w->rc)
        finish(w, w->prev);
    w->prev = w->rc ? NULL : cur;
}

static void drain(struct worker *w)
{
    if (w->prev && !w->rc)
        finish(w, w->prev);
    w->prev = NULL;
}

/* The k-subset of the 24 points with colex rank c. */
static uint32_t colex_subset(const ma_open_index *ix, uint64_t c, int k)
{
    uint32_t m = 0;
    int q = MA_POINTS - 1;
    for (int i = k; i >= 1; i--) {
        while (ma_open_binomial(q, i) > c)
            q--;
        c -= ma_open_binomial(q, i);
        m |= 1u << q;
        q--;
    }
    (void)ix;
    return m;
}

/* The next subset of free_pts of the same size in colex order; x must not be the last one. The
 * addition carries through the lowest run of x (non-free points are set so the carry skips them)
 * onto the next free point; the run's other stones return to the lowest free points. */
static inline uint32_t next_subset(uint32_t x, uint32_t free_pts)
{
    uint32_t sum = ((x | ~free_pts) + (x & (0u - x))) & free_pts;
    int lost = __builtin_popcount(x) - __builtin_popcount(sum);
    uint32_t fill = 0;
    for (; lost > 0; lost--, free_pts &= free_pts - 1)
        fill |= free_pts & (0u - free_pts);
    return sum | fill;
}

/* Opponent masks c_lo..c_hi-1 (colex order), each with every representative beside it. */
static uint64_t chunk_by_opp(struct worker *w, uint64_t c_lo, uint64_t c_hi)
{
    const struct job *j = w->job;
    uint32_t opp = colex_subset(j->in->ix, c_lo, j->b);
    uint64_t done = 0;
    for (uint64_t c = c_lo; c < c_hi && !w->rc; c++) {
        /* the group's maps for ma_fused_turns (a pending entry was ranked when it was prepared) */
        w->group_ok = j->group_maps;
        if (w->group_ok)
            (void)ma_fused_group_start(w->grp, &j->fused, opp);
        for (uint64_t t = 0; t < j->n_tiles && !w->rc; t++) {
            const uint64_t *wo = j->without + t * MA_POINTS;
            uint64_t left = j->n_reps - 64 * t;
            uint64_t beside = left >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1;
            for (uint32_t o = opp; o; o &= o - 1)
                beside &= wo[__builtin_ctz(o)];
            for (; beside && !w->rc; beside &= beside - 1) {
                uint64_t r = 64 * t + (uint64_t)__builtin_ctzll(beside);
                step(w, r, opp, r * j->per_rep + ma_open_index_g_rank(j->in->ix, j->reps[r], opp));
                done++;
            }
        }
        if (opp && c + 1 < c_hi) {
            uint32_t low = opp & (0u - opp), ripple = opp + low;
            opp = (((ripple ^ opp) >> 2) / low) | ripple;
        }
    }
    w->group_ok = 0; /* the walk in entry order has no group */
    drain(w);
    return done;
}

/* Entries lo..hi-1 in entry order. */
static uint64_t chunk_by_entry(struct worker *w, uint64_t lo, uint64_t hi)
{
    const struct job *j = w->job;
    uint32_t opp = 0;
    uint64_t r = 0, g = 0;
    for (uint64_t e = lo; e < hi && !w->rc; e++) {
        if (e == lo || g + 1 == j->per_rep) {
            ma_board b = ma_open_index_unrank(j->in->ix, j->w, j->b, e);
            opp = b.opp;
            r = e / j->per_rep;
            g = e % j->per_rep;
        } else {
            opp = next_subset(opp, ~j->reps[r] & MA_FULL_MASK);
            g++;
        }
        step(w, r, opp, e);
    }
    drain(w);
    return hi - lo;
}

static void *run_worker(void *arg)
{
    struct worker *w = arg;
    struct job *j = w->job;
    ma_visited_team_zero(&j->team, w->index);
    ma_resident_fill(&j->copies);
    const volatile sig_atomic_t *cancel = j->in->cancel;
    uint64_t per = j->by_opp ? j->opp_per_chunk : CHUNK;
    uint64_t end = j->by_opp ? j->n_opp : j->entries;
    uint64_t n_chunks = (end + per - 1) / per, stride = ma_chunk_stride(n_chunks);
    for (;;) {
        if (cancel && *cancel) {
            atomic_store(&j->canceled, 1);
            break;
        }
        /* chunks in a spread order: the threads' chunks do not share visited words */
        uint64_t k = atomic_fetch_add(&j->next_chunk, 1);
        if (k >= n_chunks || w->rc)
            break;
        uint64_t lo = ma_chunk_at(k, n_chunks, stride) * per;
        uint64_t hi = lo + per < end ? lo + per : end;
        uint64_t done = j->by_opp ? chunk_by_opp(w, lo, hi) : chunk_by_entry(w, lo, hi);
        if (j->in->progress)
            ma_progress_add(j->in->progress, done);
    }
    return NULL;
}

static int cmp_item(const void *a, const void *b)
{
    uint64_t x = ((const ma_check_item *)a)->entry, y = ((const ma_check_item *)b)->entry;
    return x < y ? -1 : x > y;
}

/* Replaces j->child[k] by huge-page backed copies when they fit the budget; on any failure the
 * mapped files are simply used as they are. */
static void make_resident(struct job *j)
{
    const ma_open_file *orig[MA_TURN_KINDS];
    uint64_t total = 0;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        orig[k] = j->child[k];
        int dup = 0;
        for (int i = 0; i < k; i++)
            dup |= orig[i] == orig[k];
        if (orig[k] && !dup)
            total += 2 * orig[k]->header.entry_count;
    }
    if (total > RESIDENT_BUDGET || total < MA_RESIDENT_PAGE)
        return;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        const ma_open_file *f = orig[k];
        if (!f)
            continue;
        int same = -1;
        for (int i = 0; i < k && same < 0; i++)
            if (orig[i] == f && j->resident_mem[i])
                same = i;
        if (same >= 0) {
            j->child[k] = &j->resident[same];
            continue;
        }
        size_t bytes = (size_t)(2 * f->header.entry_count);
        void *mem = ma_resident_alloc(bytes);
        if (!mem)
            continue;
        ma_resident_add(&j->copies, mem, f->body, bytes);
        j->resident[k] = *f;
        j->resident[k].body = mem;
        j->resident_mem[k] = mem;
        j->child[k] = &j->resident[k];
    }
}

static void free_job(struct job *j)
{
    for (int k = 0; k < MA_TURN_KINDS; k++)
        free(j->resident_mem[k]);
    free(j->self_mem);
    free(j->reps);
    free(j->stab);
    ma_turn_masks_free(&j->turn_rows);
    free(j->without);
    ma_visited_team_free(&j->team);
    free((void *)j->visited);
    ma_resident_destroy(&j->copies);
    free(j);
}

/* The walk's tables (see struct job). 0, MA_ENOMEM, or MA_EINTERNAL (an index bug). */
static int plan_walk(struct job *j)
{
    const ma_open_index *ix = j->in->ix;
    j->n_reps = ma_open_index_rep_count(ix, j->w);
    j->reps = malloc((j->n_reps ? j->n_reps : 1) * sizeof *j->reps);
    j->stab = malloc((j->n_reps ? j->n_reps : 1) * sizeof *j->stab);
    if (!j->reps || !j->stab)
        return MA_ENOMEM;
    for (uint64_t r = 0; r < j->n_reps; r++) {
        uint32_t rep = ma_open_index_rep(ix, j->w, r);
        uint16_t bits = 0;
        for (int k = 0; k < MA_SYM_OPS; k++)
            if (k != MA_SYM_IDENTITY && ma_open_index_apply(ix, k, (ma_board){rep, 0}).mover == rep)
                bits |= (uint16_t)(1u << k);
        j->reps[r] = rep;
        j->stab[r] = bits;
    }
    /* The sector's own words are read once each but, walking by mask, a representative block
     * apart: on 4 KiB pages nearly every read would miss the TLB. */
    j->self_body = j->in->file->body;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (j->child[k] && j->child[k]->header.sector.w == j->w &&
            ma_sector_equal(j->child[k]->header.sector, j->in->file->header.sector) &&
            j->resident_mem[k])
            j->self_body = j->child[k]->body;
    if (j->self_body == j->in->file->body && 2 * j->entries >= MA_RESIDENT_PAGE &&
        2 * j->entries <= RESIDENT_BUDGET &&
        (j->self_mem = ma_resident_alloc((size_t)(2 * j->entries)))) {
        ma_resident_add(&j->copies, j->self_mem, j->in->file->body, (size_t)(2 * j->entries));
        j->self_body = j->self_mem;
    }
    j->n_opp = ma_open_binomial(MA_POINTS, j->b);
    j->n_tiles = (j->n_reps + 63) / 64;
    /* Finding the representatives beside a mask costs B word operations per tile of 64: worth it
     * while that stays below ~16 per entry. */
    j->by_opp = j->n_opp * j->n_tiles * (uint64_t)(j->b ? j->b : 1) <= 16 * j->entries;
    if (!j->by_opp)
        return MA_OK;
    j->without = calloc(j->n_tiles * MA_POINTS, sizeof *j->without);
    size_t words = (size_t)ma_visited_words(j->entries);
    j->visited = ma_resident_alloc(words * sizeof *j->visited);
    if (!j->without || !j->visited)
        return MA_ENOMEM;
    ma_resident_add(&j->copies, (void *)j->visited, NULL, words * sizeof *j->visited);
    /* MA_EINVAL there is a representative of another stone count: an index bug */
    int rc = ma_turn_masks_build(&j->turn_rows, &j->rules, j->reps, j->n_reps, j->w);
    if (rc)
        return rc == MA_ENOMEM ? MA_ENOMEM : MA_EINTERNAL;
    for (uint64_t r = 0; r < j->n_reps; r++)
        for (int p = 0; p < MA_POINTS; p++)
            if (!(j->reps[r] >> p & 1u))
                j->without[(r / 64) * MA_POINTS + (uint64_t)p] |= (uint64_t)1 << (r % 64);
    uint64_t per_opp = j->entries / (j->n_opp ? j->n_opp : 1) + 1;
    j->opp_per_chunk = CHUNK / per_opp + 1;
    return MA_OK;
}

/* Where the walk reads each successor sector's words (after make_resident: the copies when made):
 * for best_turn, and for the fused generator's prefetches. */
static void read_children(struct job *j)
{
    j->fused = (ma_fused_sector){.rules = &j->rules, .w = j->w, .ix = j->in->ix,
                                 .fill_map = fill_map};
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        j->fused.body[k] = j->child[k] ? j->child[k]->body : NULL;
        j->fused.entry_size[k] = 2;
        j->fused.entries[k] = j->child[k] ? j->child[k]->header.entry_count : 0;
    }
}

int ma_check_sector(ma_check_result *out, const ma_check_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "bad check input");
    double t0 = ma_now();
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_resident_init(&j->copies);
    const ma_open_header *h = &in->file->header;
    int rc = ma_vrules_init(&j->rules, h->variant, h->sector, err);
    if (rc) {
        free_job(j);
        return rc;
    }
    j->in = in;
    j->entries = h->entry_count;
    j->per_rep = ma_open_binomial(MA_POINTS - h->sector.w, h->sector.b);
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!j->rules.succ_exists[k])
            continue;
        j->child[k] = ma_sector_equal(j->rules.succ[k], h->sector) ? in->file : in->child[k];
    }
    j->w = h->sector.w;
    j->b = h->sector.b;
    fill_turn_scores(j->turn_score, j->stored_score);
    j->group_maps = j->b > 0 && ma_open_index_prepared(in->ix, j->b) &&
                    ma_open_index_prepared(in->ix, j->b - 1);
    for (int k = 0; k < MA_TURN_KINDS; k++)
        j->any_absent |= j->rules.succ_exists[k] && !j->child[k];
    make_resident(j);
    read_children(j);
    int n = in->threads;
    if ((uint64_t)n > j->entries / CHUNK + 1)
        n = (int)(j->entries / CHUNK + 1);
    struct worker *ws = calloc((size_t)n, sizeof *ws);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    int planned = !ws || !tids ? MA_ENOMEM : plan_walk(j);
    int nomem = planned != 0;
    for (int i = 0; ws && !nomem && i < n; i++) {
        ws[i].job = j;
        ws[i].index = i;
        ws[i].slot = malloc(2 * sizeof *ws[i].slot);
        ws[i].cache = calloc(1, sizeof *ws[i].cache);
        ws[i].grp = calloc(1, sizeof *ws[i].grp);
        nomem = !ws[i].slot || !ws[i].cache || !ws[i].grp;
    }
    if (nomem) {
        for (int i = 0; ws && i < n; i++) {
            free(ws[i].slot);
            free(ws[i].cache);
            free(ws[i].grp);
        }
        free(ws);
        free(tids);
        free_job(j);
        if (planned == MA_EINTERNAL)
            return ma_error_set(err, MA_EINTERNAL,
                                "index bug: a representative of sector %d_%d_%d_%d has another "
                                "stone count",
                                h->sector.w, h->sector.b, h->sector.wf, h->sector.bf);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    ma_visited_team_plan(&j->team, j->visited, j->entries, n);
    for (int i = 0; i < n; i++)
        ws[i].visited = ma_visited_team_bits(&j->team, i);
    int started = 0;
    for (int i = 1; i < n; i++) {
        if (pthread_create(&tids[i], NULL, run_worker, &ws[i]))
            break;
        started = i;
    }
    run_worker(&ws[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(tids[i], NULL);
    uint64_t gap = 0;
    /* The walk by opponent mask marks every entry it reaches: every entry once, none past the end
     * (checked == entries counts the same from the other side). */
    int coverage = j->visited ? ma_visited_team_cover(&j->team, started + 1, &gap) : MA_VISITED_ALL;

    out->sector = h->sector;
    out->entries = j->entries;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (ws[i].rc && !rc)
            rc = ws[i].rc;
        total += ws[i].part.n_items;
    }
    if (!rc && total) {
        out->items = malloc(total * sizeof *out->items);
        if (!out->items)
            rc = MA_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        const ma_check_result *p = &ws[i].part;
        if (!rc) {
            out->checked += p->checked;
            out->canonical += p->canonical;
            out->verified += p->verified;
            out->missing_child += p->missing_child;
            out->unverifiable += p->unverifiable;
            out->discrepancies += p->discrepancies;
            for (int c = 0; c < MA_CHECK_CLASSES; c++)
                out->by_class[c] += p->by_class[c];
            for (int k = 0; k < MA_TURN_KINDS; k++)
                out->missing_kind[k] |= p->missing_kind[k];
            if (p->n_items)
                memcpy(out->items + out->n_items, p->items, p->n_items * sizeof *p->items);
            out->n_items += p->n_items;
        }
        free(ws[i].part.items);
        free(ws[i].slot);
        free(ws[i].cache);
        free(ws[i].grp);
    }
    free(ws);
    free(tids);
    int canceled = atomic_load(&j->canceled);
    free_job(j);
    if (!rc && !canceled && coverage != MA_VISITED_ALL) { /* a stopped walk leaves gaps */
        char sec[16];
        ma_sector_format(out->sector, sec, sizeof sec);
        ma_check_result_free(out);
        return ma_error_set(err, MA_EINTERNAL, "%s: sector %s: offset %llu: entry %llu %s: checker "
                            "index bug", in->file->path, sec,
                            (unsigned long long)ma_open_file_offset(gap), (unsigned long long)gap,
                            coverage == MA_VISITED_TWICE ? "was reached twice (by two threads)"
                            : coverage == MA_VISITED_GAP ? "was never checked"
                                                         : "lies past the last entry and was reached");
    }
    if (!rc && canceled) {
        ma_check_result_free(out);
        return ma_error_set(err, MA_ECANCELED, "check of the sector canceled");
    }
    if (rc) {
        ma_check_result_free(out);
        if (rc == MA_ENOMEM)
            return ma_error_set(err, rc, "out of memory");
        return ma_error_set(err, rc, "internal error: turn bound exceeded, or an entry "
                            "reached twice by the walk (checker index bug)");
    }
    if (out->checked != out->entries) {
        ma_check_result_free(out);
        return ma_error_set(err, MA_EINTERNAL, "internal error: not every entry examined");
    }
    if (out->n_items)
        qsort(out->items, out->n_items, sizeof *out->items, cmp_item);
    out->seconds = ma_now() - t0;
    return MA_OK;
}

static int has_item(const ma_check_result *r, uint64_t entry)
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

int ma_check_classify(ma_check_result *r, const ma_open_index *ix, ma_variant v,
                      const ma_check_result *const child[MA_TURN_KINDS], ma_error *err)
{
    ma_vrules rules;
    int rc = ma_vrules_init(&rules, v, r->sector, err);
    if (rc)
        return rc;
    const ma_check_result *succ[MA_TURN_KINDS] = {0};
    for (int k = 0; k < MA_TURN_KINDS; k++)
        if (rules.succ_exists[k])
            succ[k] = ma_sector_equal(rules.succ[k], r->sector) ? r : child[k];
    ma_vturns *t = malloc(sizeof *t);
    if (!t)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    r->roots = r->propagated = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        ma_check_item *it = &r->items[i];
        int propagated = 0;
        if (it->cls != MA_CHECK_SYMMETRY && !rules.full_board_draw) {
            ma_board pos = ma_open_index_unrank(ix, r->sector.w, r->sector.b, it->entry);
            if (ma_vrules_generate(&rules, pos, t)) {
                free(t);
                return ma_error_set(err, MA_EINTERNAL, "internal error: turn bound exceeded");
            }
            if (!t->immediate_wins) {
                for (int s = 0; s < t->n && !propagated; s++) {
                    const ma_check_result *c = succ[t->kind[s]];
                    if (c && c->n_items && has_item(c, ma_open_index_rank(ix, t->succ[s], NULL)))
                        propagated = 1;
                }
            }
        }
        it->root = (uint8_t)!propagated;
        if (propagated)
            r->propagated++;
        else
            r->roots++;
    }
    free(t);
    return MA_OK;
}

void ma_check_result_free(ma_check_result *r)
{
    free(r->items);
    r->items = NULL;
    r->n_items = 0;
}
