/* Local verification of one sector; see check.h for the contract. */
#include "verifier/check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/progress.h"

#define CHUNK 4096
#define MOVER_CACHE 64
/* Successor files up to this total are copied into huge-page backed memory before the pass: the
 * lookups are random, and with 4 KiB pages nearly every one misses the TLB. */
#define RESIDENT_BUDGET ((uint64_t)1 << 30)
#define HUGE_PAGE ((size_t)2 << 20)

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

/* Shared, read-only state of one sector check plus the chunk dispenser. */
struct job {
    const ma_check_input *in;
    ma_vrules rules;
    const ma_open_file *child[MA_TURN_KINDS];
    ma_open_file resident[MA_TURN_KINDS]; /* huge-page copies of the successor bodies */
    void *resident_mem[MA_TURN_KINDS];
    uint64_t entries;
    uint64_t per_rep;  /* entries per representative: C(24 - W, B) */
    _Atomic uint64_t next_chunk;
    atomic_int canceled; /* set by the worker that saw in->cancel */
};

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
    struct pending slot[2];
    /* Entries are grouped by mover mask (entry = rep_rank * M + colex), so the mover's stabiliser
     * is computed once per group: a board is canonical iff no stabiliser op lowers its opponent
     * mask (docs/format.md §4.2; the mover mask is already a representative). */
    uint32_t stab_mover;
    int stab_valid;
    int n_stab;
    uint8_t stab[MA_SYM_OPS];
    /* Mover parts of successor ranks, direct-mapped by the successor's mover mask: without a
     * removal every successor of an entry has the entry's opponent mask as its mover mask, and
     * with one it is that mask less one stone, so a handful of mover parts serve ~30 successors. */
    ma_open_mover_info mover_cache[MOVER_CACHE];
    /* The last board prepared: consecutive entries of one representative are the next opponent
     * placement in colex order, cheaper to step to than to unrank. */
    uint64_t seq_entry;
    uint64_t seq_g;      /* seq_entry % per_rep */
    ma_board seq_pos;
    int seq_valid;
    /* Workers sit side by side in one array and write their counters and seq_* fields for every
     * entry: keep the written fields of neighbours at least two cache lines apart. */
    char pad[128];
};

static int is_canonical(struct worker *w, ma_board b)
{
    if (!w->stab_valid || w->stab_mover != b.mover) {
        ma_board m = {b.mover, 0};
        w->n_stab = 0;
        for (int k = 0; k < MA_SYM_OPS; k++)
            if (k != MA_SYM_IDENTITY && ma_open_index_apply(w->job->in->ix, k, m).mover == b.mover)
                w->stab[w->n_stab++] = (uint8_t)k;
        w->stab_mover = b.mover;
        w->stab_valid = 1;
    }
    for (int i = 0; i < w->n_stab; i++)
        if (ma_open_index_apply(w->job->in->ix, w->stab[i], b).opp < b.opp)
            return 0;
    return 1;
}

/* The next subset of free_pts of the same size in colex order; x must not be the last one. The
 * addition carries through the lowest run of x (non-free points are set so the carry skips them)
 * onto the next free point; the run's other stones return to the lowest free points. */
static inline uint32_t next_subset(uint32_t x, uint32_t free_pts)
{
    uint32_t sum = ((x | ~free_pts) + (x & -x)) & free_pts;
    int lost = __builtin_popcount(x) - __builtin_popcount(sum);
    uint32_t fill = 0;
    for (; lost > 0; lost--, free_pts &= free_pts - 1)
        fill |= free_pts & -free_pts;
    return sum | fill;
}

static ma_board entry_board(struct worker *w, uint64_t e)
{
    const ma_vrules *r = &w->job->rules;
    if (w->seq_valid && e == w->seq_entry + 1 && w->seq_g + 1 < w->job->per_rep) {
        w->seq_pos.opp = next_subset(w->seq_pos.opp, ~w->seq_pos.mover & MA_FULL_MASK);
        w->seq_g++;
    } else {
        w->seq_pos = ma_open_index_unrank(w->job->in->ix, r->sector.w, r->sector.b, e);
        w->seq_g = e % w->job->per_rep;
        w->seq_valid = 1;
    }
    w->seq_entry = e;
    return w->seq_pos;
}

static const ma_open_mover_info *mover_part(struct worker *w, uint32_t mover)
{
    ma_open_mover_info *mi = &w->mover_cache[(mover * 0x9E3779B1u) >> 26];
    if (mi->mover != mover || mi->n_ops == 0)
        ma_open_index_mover_info(w->job->in->ix, mi, mover);
    return mi;
}

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

static void prepare(struct worker *w, struct pending *p, uint64_t e)
{
    const struct job *j = w->job;
    const ma_vrules *r = &j->rules;
    p->entry = e;
    p->pos = entry_board(w, e);
    p->word = ma_open_file_word(j->in->file, e);
    p->missing = 0;
    if (!is_canonical(w, p->pos)) {
        p->state = 0;
        return;
    }
    p->state = 1;
    if (r->full_board_draw) {
        p->fixed.outcome = MA_OUTCOME_DRAW;
        p->fixed.depth = 0;
        return;
    }
    ma_vturns *t = &p->turns;
    if (ma_vrules_generate(r, p->pos, t)) {
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
    /* Rank every successor and prefetch its word now; the words are read in finish(). */
    for (int i = 0; i < t->n; i++) {
        const ma_open_file *f = j->child[t->kind[i]];
        if (!f) {
            p->missing = 1;
            w->part.missing_kind[t->kind[i]] = 1;
            p->succ_entry[i] = UINT64_MAX;
            continue;
        }
        uint64_t se = ma_open_index_rank_opp(j->in->ix, mover_part(w, t->succ[i].mover), t->succ[i].opp);
        p->succ_entry[i] = se;
        if (se < f->header.entry_count)
            __builtin_prefetch(f->body + 2 * se);
    }
}

static void finish(struct worker *w, const struct pending *p)
{
    const struct job *j = w->job;
    if (p->state < 0)
        return;
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
    int known = 1, bad_succ = 0;
    if (p->state == 2) {
        const ma_vturns *t = &p->turns;
        int32_t best = INT32_MIN;
        for (int i = 0; i < t->n; i++) {
            const ma_open_file *f = j->child[t->kind[i]];
            uint64_t se = p->succ_entry[i];
            if (!f)
                continue;
            ma_value sv;
            if (se >= f->header.entry_count || ma_open_value_decode(ma_open_file_word(f, se), &sv) ||
                sv.outcome == MA_OUTCOME_NONE) {
                bad_succ = 1;
                continue;
            }
            int32_t sc = ma_check_value_score(ma_check_value_negate(sv));
            if (sc > best)
                best = sc;
        }
        known = !p->missing && !bad_succ;
        derived = known ? value_from_score(best) : (ma_value){MA_OUTCOME_NONE, 0};
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

static void *run_worker(void *arg)
{
    struct worker *w = arg;
    struct job *j = w->job;
    const volatile sig_atomic_t *cancel = j->in->cancel;
    for (;;) {
        if (cancel && *cancel) {
            atomic_store(&j->canceled, 1);
            break;
        }
        uint64_t c = atomic_fetch_add(&j->next_chunk, 1);
        uint64_t lo = c * CHUNK;
        if (lo >= j->entries || w->rc)
            break;
        uint64_t hi = lo + CHUNK < j->entries ? lo + CHUNK : j->entries;
        const struct pending *prev = NULL;
        for (uint64_t e = lo; e < hi && !w->rc; e++) {
            struct pending *cur = &w->slot[e & 1];
            prepare(w, cur, e);
            if (prev)
                finish(w, prev);
            prev = cur;
        }
        if (prev && !w->rc)
            finish(w, prev);
        if (j->in->progress)
            ma_progress_add(j->in->progress, hi - lo);
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
    if (total > RESIDENT_BUDGET || total < HUGE_PAGE)
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
        size_t alloc = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void *mem = aligned_alloc(HUGE_PAGE, alloc);
        if (!mem)
            continue;
        madvise(mem, alloc, MADV_HUGEPAGE);
        memcpy(mem, f->body, bytes);
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
    free(j);
}

int ma_check_sector(ma_check_result *out, const ma_check_input *in, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!in || !in->ix || !in->file || in->threads < 1)
        return ma_error_set(err, MA_EINVAL, "verify: bad check input");
    double t0 = ma_now();
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    const ma_open_header *h = &in->file->header;
    int rc = ma_vrules_init(&j->rules, h->variant, h->sector, err);
    if (rc) {
        free(j);
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
    make_resident(j);
    int n = in->threads;
    if ((uint64_t)n > j->entries / CHUNK + 1)
        n = (int)(j->entries / CHUNK + 1);
    struct worker *ws = calloc((size_t)n, sizeof *ws);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    if (!ws || !tids) {
        free(ws);
        free(tids);
        free_job(j);
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    }
    int started = 0;
    for (int i = 0; i < n; i++) {
        ws[i].job = j;
        ws[i].index = i;
    }
    for (int i = 1; i < n; i++) {
        if (pthread_create(&tids[i], NULL, run_worker, &ws[i]))
            break;
        started = i;
    }
    run_worker(&ws[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(tids[i], NULL);

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
    }
    free(ws);
    free(tids);
    int canceled = atomic_load(&j->canceled);
    free_job(j);
    if (!rc && canceled) {
        ma_check_result_free(out);
        return ma_error_set(err, MA_ECANCELED, "verify: check of the sector canceled");
    }
    if (rc) {
        ma_check_result_free(out);
        if (rc == MA_ENOMEM)
            return ma_error_set(err, rc, "verify: out of memory");
        return ma_error_set(err, rc, "verify: internal error: turn bound exceeded");
    }
    if (out->checked != out->entries) {
        ma_check_result_free(out);
        return ma_error_set(err, MA_EINTERNAL, "verify: internal error: not every entry examined");
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
        return ma_error_set(err, MA_ENOMEM, "verify: out of memory");
    r->roots = r->propagated = 0;
    for (size_t i = 0; i < r->n_items; i++) {
        ma_check_item *it = &r->items[i];
        int propagated = 0;
        if (it->cls != MA_CHECK_SYMMETRY && !rules.full_board_draw) {
            ma_board pos = ma_open_index_unrank(ix, r->sector.w, r->sector.b, it->entry);
            if (ma_vrules_generate(&rules, pos, t)) {
                free(t);
                return ma_error_set(err, MA_EINTERNAL, "verify: internal error: turn bound exceeded");
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
