/* The sector walk both checkers stand on; see walk.h for the contract. */
#include "verifier/check/walk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/chunk_order.h"
#include "common/ma_error.h"
#include "indexer/open_index.h"

/* Each copy the checkers plan (every child, the sector itself) and the visited bitmap take one
 * planned part at most: a copy that could not be planned would leave its memory unwritten while
 * the walk reads it. */
_Static_assert(MA_RESIDENT_PARTS >= MA_TURN_KINDS + 2, "a resident part for every copy");

void ma_walk_init(ma_walk *wk, uint64_t budget)
{
    memset(wk, 0, sizeof *wk);
    wk->budget = budget ? budget : MA_WALK_RESIDENT_BUDGET;
    ma_resident_init(&wk->copies);
}

void ma_walk_free(ma_walk *wk)
{
    for (int i = 0; i < wk->n_mem; i++)
        free(wk->mem[i]);
    free(wk->reps);
    free(wk->stab);
    ma_turn_masks_free(&wk->turn_rows);
    free(wk->without);
    ma_visited_team_free(&wk->team);
    free((void *)wk->visited);
    ma_resident_destroy(&wk->copies);
    memset(wk, 0, sizeof *wk);
}

uint32_t ma_walk_colex_subset(uint64_t c, int k)
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
    return m;
}

static void plan_chunks(ma_walk *wk, uint64_t per, uint64_t end)
{
    wk->per = per;
    wk->end = end;
    wk->n_chunks = (end + per - 1) / per;
}

void ma_walk_plan_entries(ma_walk *wk, uint64_t entries)
{
    wk->entries = entries;
    wk->by_opp = 0;
    plan_chunks(wk, MA_WALK_CHUNK, entries);
}

int ma_walk_plan(ma_walk *wk, const ma_walk_sector *s)
{
    wk->entries = s->entries;
    wk->w = s->w;
    wk->b = s->b;
    wk->per_rep = s->per_rep;
    wk->n_reps = s->n_reps;
    wk->reps = malloc((s->n_reps ? s->n_reps : 1) * sizeof *wk->reps);
    wk->stab = malloc((s->n_reps ? s->n_reps : 1) * sizeof *wk->stab);
    if (!wk->reps || !wk->stab)
        return MA_ENOMEM;
    for (uint64_t r = 0; r < s->n_reps; r++)
        s->rep(s->ix, s->w, r, &wk->reps[r], &wk->stab[r]);
    wk->n_opp = ma_open_binomial(MA_POINTS, s->b);
    wk->n_tiles = (s->n_reps + 63) / 64;
    /* Finding the representatives beside a mask costs B word operations per tile of 64: worth it
     * while that stays below ~16 per entry (std: up to 8_8; not for sectors like 12_12 where few
     * masks have any representative). */
    wk->by_opp = wk->n_opp * wk->n_tiles * (uint64_t)(s->b ? s->b : 1) <= 16 * s->entries;
    /* the cancel flag is polled per chunk: at least every opp_chunk entries or so */
    uint64_t per_opp = s->entries / (wk->n_opp ? wk->n_opp : 1) + 1;
    if (wk->by_opp)
        plan_chunks(wk, s->opp_chunk / per_opp + 1, wk->n_opp);
    else
        plan_chunks(wk, MA_WALK_CHUNK, s->entries);
    if (wk->by_opp || s->mark_by_entry) {
        size_t bytes = (size_t)ma_visited_words(s->entries) * sizeof *wk->visited;
        wk->visited = ma_huge_alloc(bytes);
        if (!wk->visited)
            return MA_ENOMEM;
        ma_resident_add(&wk->copies, (void *)wk->visited, NULL, bytes, 0);
    }
    if (!wk->by_opp)
        return MA_OK;
    wk->without = calloc(wk->n_tiles * MA_POINTS, sizeof *wk->without);
    if (!wk->without)
        return MA_ENOMEM;
    /* MA_EINVAL there is a representative of another stone count: an index bug */
    int rc = ma_turn_masks_build(&wk->turn_rows, s->rules, wk->reps, wk->n_reps, wk->w);
    if (rc)
        return rc == MA_ENOMEM ? MA_ENOMEM : MA_EINTERNAL;
    for (uint64_t r = 0; r < wk->n_reps; r++)
        for (int p = 0; p < MA_POINTS; p++)
            if (!(wk->reps[r] >> p & 1u))
                wk->without[(r / 64) * MA_POINTS + (uint64_t)p] |= (uint64_t)1 << (r % 64);
    return MA_OK;
}

int ma_walk_copies(ma_walk *wk, const void *const src[], const size_t bytes[], const uint64_t file[],
                   const int kind[], int n, const void *out[])
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        out[i] = src[i];
        int dup = 0;
        for (int k = 0; k < i; k++)
            dup |= src[k] == src[i];
        if (src[i] && !dup)
            total += file[i];
    }
    if (!ma_walk_within_budget(total, wk->budget))
        return 0;
    for (int i = 0; i < n; i++) {
        /* absent, or private already: read where it lies, one copy of the file's bytes */
        if (!src[i] || (kind && kind[i] == MA_WALK_PRIVATE))
            continue;
        int same = -1;
        for (int k = 0; k < i && same < 0; k++)
            if (src[k] == src[i] && out[k] != src[k])
                same = k;
        if (same >= 0) {
            out[i] = out[same];
            continue;
        }
        void *mem = wk->n_mem < MA_RESIDENT_PARTS ? ma_huge_alloc(bytes[i]) : NULL;
        if (!mem)
            continue;
        if (ma_resident_add(&wk->copies, mem, src[i], bytes[i], kind && kind[i] == MA_WALK_MAPPED)) {
            free(mem);
            continue;
        }
        wk->mem[wk->n_mem++] = mem;
        out[i] = mem;
    }
    return 1;
}

static void *run_thread(void *arg)
{
    ma_walk_thread *th = arg;
    ma_walk *wk = th->walk;
    const ma_walk_ops *ops = wk->ops;
    ma_visited_team_zero(&wk->team, th->index);
    ma_resident_fill(&wk->copies);
    if (ops->start && (th->rc = ops->start(th)) != 0)
        atomic_store(&wk->failed, 1);
    uint64_t stride = ma_chunk_stride(wk->n_chunks);
    while (!th->rc) {
        if (atomic_load(&wk->failed))
            break;
        if (wk->cancel && *wk->cancel) {
            atomic_store(&wk->canceled, 1);
            break;
        }
        /* chunks in a spread order: the threads' chunks do not share visited words */
        uint64_t k = atomic_fetch_add(&wk->next_chunk, 1);
        if (k >= wk->n_chunks)
            break;
        uint64_t lo = ma_chunk_at(k, wk->n_chunks, stride) * wk->per;
        uint64_t hi = lo + wk->per < wk->end ? lo + wk->per : wk->end;
        uint64_t done = ops->chunk(th, lo, hi);
        if (th->rc) {
            atomic_store(&wk->failed, 1);
            break;
        }
        if (wk->progress)
            ma_progress_add(wk->progress, done);
    }
    if (ops->stop)
        ops->stop(th);
    return NULL;
}

static ma_walk_thread *thread_at(void *workers, size_t size, int i)
{
    return (ma_walk_thread *)((char *)workers + (size_t)i * size);
}

int ma_walk_run(ma_walk *wk, void *workers, size_t size, int threads, const ma_walk_ops *ops,
                const volatile sig_atomic_t *cancel, ma_progress *progress)
{
    wk->ops = ops;
    wk->cancel = cancel;
    wk->progress = progress;
    ma_visited_team_plan(&wk->team, wk->visited, wk->entries, threads);
    for (int i = 0; i < threads; i++) {
        ma_walk_thread *th = thread_at(workers, size, i);
        th->walk = wk;
        th->index = i;
        th->visited = ma_visited_team_bits(&wk->team, i);
    }
    /* without room for the thread ids the caller's thread walks alone, as when none starts */
    pthread_t *tids = threads > 1 ? calloc((size_t)threads, sizeof *tids) : NULL;
    int started = 0;
    for (int i = 1; tids && i < threads; i++) {
        if (pthread_create(&tids[i], NULL, run_thread, thread_at(workers, size, i)))
            break;
        started = i;
    }
    run_thread(thread_at(workers, size, 0));
    for (int i = 1; i <= started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    return started + 1;
}

int ma_walk_cover(const ma_walk *wk, int ran, uint64_t *entry)
{
    return wk->visited ? ma_visited_team_cover(&wk->team, ran, entry) : MA_VISITED_ALL;
}

int ma_walk_push(ma_walk_thread *th, const void *item, size_t size)
{
    if (th->n_items == th->cap) {
        size_t cap = th->cap ? 2 * th->cap : 64;
        void *p = realloc(th->items, cap * size);
        if (!p)
            return MA_ENOMEM;
        th->items = p;
        th->cap = cap;
    }
    memcpy((char *)th->items + th->n_items++ * size, item, size);
    return MA_OK;
}

static uint64_t entry_of(const void *item)
{
    uint64_t e;
    memcpy(&e, item, sizeof e);
    return e;
}

static int cmp_entry(const void *a, const void *b)
{
    uint64_t x = entry_of(a), y = entry_of(b);
    return x < y ? -1 : x > y;
}

int ma_walk_join(void *workers, size_t size, int n, size_t item_size, int keep, void **items,
                 size_t *n_items)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += thread_at(workers, size, i)->n_items;
    char *all = keep && total ? malloc(total * item_size) : NULL;
    int rc = keep && total && !all ? MA_ENOMEM : MA_OK;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        ma_walk_thread *th = thread_at(workers, size, i);
        if (all && th->n_items)
            memcpy(all + at * item_size, th->items, th->n_items * item_size);
        at += th->n_items;
        free(th->items);
        th->items = NULL;
        th->n_items = th->cap = 0;
    }
    if (all && total > 1)
        qsort(all, total, item_size, cmp_entry);
    *items = all;
    *n_items = all ? total : 0;
    return rc;
}

