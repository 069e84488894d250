/* Local verification of one sector; see check.h for the contract. */
#include "verifier/check/check.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/check/fused_turns.h"
#include "verifier/check/walk.h"

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

/* Shared, read-only state of one sector check. The walk (verifier/check/walk.h) holds the chunk
 * plan, the representatives, the copies and the visited bitmap: walking by opponent mask, all
 * successors of a position's non-removal turns, whose mover mask is the position's opponent mask,
 * lie in one block of the child file, which stays in cache while the mask's entries are checked. */
struct job {
    const ma_check_input *in;
    ma_vrules rules;
    ma_walk walk;
    /* the generator's view of this sector (by_opp); its body[k] and entries[k], child[k]'s words
     * and entry count (NULL, 0 when absent), are also what best_turn reads */
    ma_fused_sector fused;
    const ma_open_file *child[MA_TURN_KINDS];
    ma_open_file resident[MA_TURN_KINDS]; /* child[k] read from its huge-page copy */
    int any_absent;    /* some successor sector the rules name has no file */
    const uint8_t *self_body;  /* the sector's words (a huge-page copy when one exists) */
    uint64_t entries;
    int w, b;
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

/* Per-thread counters; the discrepancies are the walk's (th.items). */
struct worker {
    ma_walk_thread th; /* first: the walk's view of this thread */
    struct job *job;
    ma_check_result part;
    struct pending *slot; /* two */
    struct pending *prev; /* prepared, not yet finished */
    int turn;
    ma_open_rank_cache *cache;
    /* Workers sit side by side in one array and write their counters for every entry: keep the
     * written fields of neighbours at least two cache lines apart. */
    char pad[128];
};

_Static_assert(offsetof(ma_check_item, entry) == 0, "ma_walk_push: an item begins with its entry");

static int push_item(struct worker *w, const ma_check_item *it)
{
    if (ma_walk_push(&w->th, it, sizeof *it))
        return MA_ENOMEM;
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
    p->pos.mover = j->walk.reps[r];
    p->pos.opp = opp;
    p->missing = 0;
    __builtin_prefetch(j->self_body + 2 * e);
    if (w->th.visited)
        __builtin_prefetch((const void *)&w->th.visited[e >> 6], 1);
    /* canonical iff no op fixing the representative lowers the opponent mask (§4.2) */
    for (uint32_t st = j->walk.stab[r]; st; st &= st - 1)
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
    if (w->th.group_ok ? ma_fused_turns(&j->fused, w->th.grp, p->pos.mover, opp,
                                        ma_turn_masks_of(&j->walk.turn_rows, r), t, p->succ_entry)
                       : ma_vrules_generate(r_, p->pos, t)) {
        w->th.rc = MA_EINTERNAL;
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
    if (w->th.group_ok) {
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
        w->th.rc = MA_EINTERNAL; /* an index bug: ranks past the end */
        return;
    }
    if (w->th.visited && ma_visited_mark(w->th.visited, p->entry, j->walk.team.shared)) {
        w->th.rc = MA_EINTERNAL; /* reached twice: an index bug, reported by ma_check_sector */
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
                w->th.rc = MA_ENOMEM;
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
        w->th.rc = MA_ENOMEM;
}

static void step(struct worker *w, uint64_t r, uint32_t opp, uint64_t e)
{
    struct pending *cur = &w->slot[w->turn];
    w->turn ^= 1;
    prepare(w, cur, r, opp, e);
    if (w->prev && !w->th.rc)
        finish(w, w->prev);
    w->prev = w->th.rc ? NULL : cur;
}

/* One entry of the walk (verifier/check/walk.h). No prefetch ahead: prepare prefetches what
 * finish reads, one entry later. */
static inline void visit(ma_walk_thread *th, const void *ctx, uint64_t r, uint32_t opp,
                         uint64_t e, int first)
{
    (void)ctx;
    (void)first;
    step((struct worker *)th, r, opp, e);
}

static uint64_t g_rank(const void *ix, uint32_t rep, uint32_t opp)
{
    return ma_open_index_g_rank(ix, rep, opp);
}

static uint32_t unrank_opp(const void *ix, int w, int b, uint64_t e)
{
    return ma_open_index_unrank(ix, w, b, e).opp;
}

/* One chunk of the walk: opponent masks (by_opp) or entries lo..hi-1. */
static uint64_t chunk(ma_walk_thread *th, uint64_t lo, uint64_t hi)
{
    struct worker *w = (struct worker *)th;
    const void *ix = w->job->in->ix;
    uint64_t done = th->walk->by_opp ? ma_walk_by_opp(th, lo, hi, g_rank, ix, NULL, NULL, visit)
                                     : ma_walk_by_entry(th, lo, hi, unrank_opp, ix, NULL, visit);
    if (w->prev && !th->rc)
        finish(w, w->prev);
    w->prev = NULL;
    return done;
}

static const ma_walk_ops walk_ops = {.chunk = chunk};

/* Where the walk reads the successor files and the sector itself: huge-page copies when they fit
 * the budget (ma_walk_copies), else the mapped files. The sector's own words are read once each
 * but, walking by mask, a representative block apart: on 4 KiB pages nearly every read would miss
 * the TLB too. When the sector is its own successor the child's copy serves both. A body copied
 * from its file's mapping leaves the mapping as it is copied, so no byte is held twice; a body
 * read privately (verify's units within the budget) is in private memory already (on huge pages
 * from 2 MiB up) and read in place. */
static void make_resident(struct job *j)
{
    const void *src[MA_TURN_KINDS], *at[MA_TURN_KINDS];
    size_t bytes[MA_TURN_KINDS];
    uint64_t file[MA_TURN_KINDS];
    int mapped[MA_TURN_KINDS];
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        const ma_open_file *c = j->child[k];
        src[k] = c ? c->body : NULL;
        bytes[k] = c ? (size_t)(2 * c->header.entry_count) : 0;
        file[k] = c ? (uint64_t)c->map_size : 0;
        mapped[k] = c ? ma_walk_body_kind(c->body, bytes[k], c->map, c->map_size, c->priv.read) : 0;
    }
    ma_walk_copies(&j->walk, src, bytes, file, mapped, MA_TURN_KINDS, at);
    const void *self = j->in->file->body, *self_at = self;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!src[k] || at[k] == src[k])
            continue;
        j->resident[k] = *j->child[k];
        j->resident[k].body = at[k];
        j->child[k] = &j->resident[k];
        if (src[k] == self)
            self_at = at[k];
    }
    if (self_at == self) {
        const ma_open_file *f = j->in->file;
        size_t n = (size_t)(2 * j->entries);
        uint64_t whole = (uint64_t)f->map_size;
        int in_map = ma_walk_body_kind(self, n, f->map, f->map_size, f->priv.read);
        ma_walk_copies(&j->walk, &self, &n, &whole, &in_map, 1, &self_at);
    }
    j->self_body = self_at;
}

static void free_job(struct job *j)
{
    ma_walk_free(&j->walk);
    free(j);
}

/* Representative r of W stones and the ops other than the identity that fix it. */
static void open_rep(const void *ix, int w, uint64_t r, uint32_t *rep, uint16_t *stab)
{
    uint32_t m = ma_open_index_rep(ix, w, r);
    uint16_t bits = 0;
    for (int k = 0; k < MA_SYM_OPS; k++)
        if (k != MA_SYM_IDENTITY && ma_open_index_apply(ix, k, (ma_board){m, 0}).mover == m)
            bits |= (uint16_t)(1u << k);
    *rep = m;
    *stab = bits;
}

/* The walk's plan (verifier/check/walk.h). 0, MA_ENOMEM, or MA_EINTERNAL (an index bug). */
static int plan_walk(struct job *j)
{
    const ma_open_index *ix = j->in->ix;
    ma_walk_sector s = {.entries = j->entries, .w = j->w, .b = j->b,
                        .per_rep = ma_open_binomial(MA_POINTS - j->w, j->b),
                        .n_reps = ma_open_index_rep_count(ix, j->w), .rep = open_rep, .ix = ix,
                        .rules = &j->rules, .opp_chunk = MA_WALK_CHUNK};
    return ma_walk_plan(&j->walk, &s);
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
    j->walk.fused = &j->fused;
}

static void free_workers(struct worker *ws, int n)
{
    for (int i = 0; ws && i < n; i++) {
        free(ws[i].slot);
        free(ws[i].cache);
        free(ws[i].th.grp);
    }
    free(ws);
}

/* The threads' counters summed into out. */
static void add_parts(ma_check_result *out, const struct worker *ws, int n)
{
    for (int i = 0; i < n; i++) {
        const ma_check_result *p = &ws[i].part;
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
    }
}

/* The job of in: its rules, children, score tables and copies. 0, or an error set in err. */
static int make_job(struct job **out, const ma_check_input *in, ma_error *err)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_walk_init(&j->walk, in->resident_budget);
    const ma_open_header *h = &in->file->header;
    int rc = ma_vrules_init(&j->rules, h->variant, h->sector, err);
    if (rc) {
        free_job(j);
        return rc;
    }
    j->in = in;
    j->entries = h->entry_count;
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        if (!j->rules.succ_exists[k])
            continue;
        j->child[k] = ma_sector_equal(j->rules.succ[k], h->sector) ? in->file : in->child[k];
    }
    j->w = h->sector.w;
    j->b = h->sector.b;
    fill_turn_scores(j->turn_score, j->stored_score);
    /* the walk by opponent mask may rank through mover maps (ma_fused_turns) when every mover
     * count the maps need is prepared */
    j->walk.group_maps = j->b > 0 && ma_open_index_prepared(in->ix, j->b) &&
                         ma_open_index_prepared(in->ix, j->b - 1);
    for (int k = 0; k < MA_TURN_KINDS; k++)
        j->any_absent |= j->rules.succ_exists[k] && !j->child[k];
    make_resident(j);
    read_children(j);
    *out = j;
    return MA_OK;
}

int ma_check_sector(ma_check_result *out, const ma_check_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "bad check input");
    double t0 = ma_now();
    struct job *j = NULL;
    int rc = make_job(&j, in, err);
    if (rc)
        return rc;
    const ma_open_header *h = &in->file->header;
    int n = in->threads;
    if ((uint64_t)n > j->entries / MA_WALK_CHUNK + 1)
        n = (int)(j->entries / MA_WALK_CHUNK + 1);
    struct worker *ws = calloc((size_t)n, sizeof *ws);
    int planned = !ws ? MA_ENOMEM : plan_walk(j);
    int nomem = planned != 0;
    for (int i = 0; ws && !nomem && i < n; i++) {
        ws[i].job = j;
        ws[i].slot = malloc(2 * sizeof *ws[i].slot);
        ws[i].cache = calloc(1, sizeof *ws[i].cache);
        ws[i].th.grp = calloc(1, sizeof *ws[i].th.grp);
        nomem = !ws[i].slot || !ws[i].cache || !ws[i].th.grp;
    }
    if (nomem) {
        free_workers(ws, n);
        free_job(j);
        if (planned == MA_EINTERNAL)
            return ma_error_set(err, MA_EINTERNAL,
                                "index bug: a representative of sector %d_%d_%d_%d has another "
                                "stone count",
                                h->sector.w, h->sector.b, h->sector.wf, h->sector.bf);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    int ran = ma_walk_run(&j->walk, ws, sizeof *ws, n, &walk_ops, in->cancel, in->progress);
    uint64_t gap = 0;
    /* The walk by opponent mask marks every entry it reaches: every entry once, none past the end
     * (checked == entries counts the same from the other side). */
    int coverage = ma_walk_cover(&j->walk, ran, &gap);

    out->sector = h->sector;
    out->entries = j->entries;
    for (int i = 0; i < n; i++)
        if (ws[i].th.rc && !rc)
            rc = ws[i].th.rc;
    void *items = NULL;
    size_t n_items = 0;
    if (ma_walk_join(ws, sizeof *ws, n, sizeof *out->items, !rc, &items, &n_items) && !rc)
        rc = MA_ENOMEM;
    out->items = items;
    out->n_items = n_items;
    if (!rc)
        add_parts(out, ws, n);
    free_workers(ws, n);
    int canceled = atomic_load(&j->walk.canceled);
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
    out->seconds = ma_now() - t0;
    return MA_OK;
}

void ma_check_result_free(ma_check_result *r)
{
    free(r->items);
    r->items = NULL;
    r->n_items = 0;
}
