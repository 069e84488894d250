/* The visited bitmap of a sector walk; see visited.h for the contract. */
#include "verifier/check/visited.h"

#include <stdlib.h>
#include <string.h>

#include "verifier/check/resident.h"

int ma_visited_check(const _Atomic uint64_t *bits, uint64_t n, uint64_t *entry)
{
    uint64_t words = ma_visited_words(n);
    for (uint64_t i = 0; i < words; i++) {
        /* the last word holds n % 64 entries; its higher bits belong to no entry */
        uint64_t want = i < n / 64 ? ~(uint64_t)0 : ((uint64_t)1 << (n % 64)) - 1;
        uint64_t got = atomic_load_explicit(&bits[i], memory_order_relaxed);
        if (~got & want) {
            *entry = 64 * i + (uint64_t)__builtin_ctzll(~got & want);
            return MA_VISITED_GAP;
        }
    }
    uint64_t last = atomic_load_explicit(&bits[words - 1], memory_order_relaxed);
    uint64_t past = last & ~(((uint64_t)1 << (n % 64)) - 1);
    if (past) {
        *entry = 64 * (words - 1) + (uint64_t)__builtin_ctzll(past);
        return MA_VISITED_PAST;
    }
    return MA_VISITED_ALL;
}

int ma_visited_merge(_Atomic uint64_t *into, const _Atomic uint64_t *from, uint64_t n,
                     uint64_t *entry)
{
    for (uint64_t i = 0, words = ma_visited_words(n); i != words; i++) {
        uint64_t a = atomic_load_explicit(&into[i], memory_order_relaxed);
        uint64_t b = atomic_load_explicit(&from[i], memory_order_relaxed);
        if (a & b) {
            *entry = 64 * i + (uint64_t)__builtin_ctzll(a & b);
            return 1;
        }
        atomic_store_explicit(&into[i], a | b, memory_order_relaxed);
    }
    return 0;
}

void ma_visited_team_plan(ma_visited_team *tm, _Atomic uint64_t *walk, uint64_t n, int threads)
{
    memset(tm, 0, sizeof *tm);
    tm->walk = walk;
    tm->n = n;
    tm->threads = threads;
    if (walk && ma_visited_own_fits(n, threads) &&
        (tm->own = calloc((size_t)threads - 1, sizeof *tm->own)) != NULL) {
        size_t bytes = (size_t)ma_visited_words(n) * sizeof **tm->own;
        for (int t = 0; t < threads - 1; t++)
            if (!(tm->own[t] = ma_huge_alloc(bytes))) { /* all or none */
                while (t-- > 0)
                    free((void *)tm->own[t]);
                free(tm->own);
                tm->own = NULL;
                break;
            }
    }
    tm->shared = walk && threads > 1 && !tm->own;
}

void ma_visited_team_zero(const ma_visited_team *tm, int t)
{
    if (tm->own && t > 0)
        memset((void *)tm->own[t - 1], 0, (size_t)ma_visited_words(tm->n) * sizeof **tm->own);
}

int ma_visited_team_cover(const ma_visited_team *tm, int ran, uint64_t *entry)
{
    for (int t = 1; tm->own && t < ran; t++)
        if (ma_visited_merge(tm->walk, tm->own[t - 1], tm->n, entry))
            return MA_VISITED_TWICE;
    return ma_visited_check(tm->walk, tm->n, entry);
}

void ma_visited_team_free(ma_visited_team *tm)
{
    for (int t = 0; tm->own && t < tm->threads - 1; t++)
        free((void *)tm->own[t]);
    free(tm->own);
    memset(tm, 0, sizeof *tm);
}
