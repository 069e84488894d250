/* The visited bitmap of a sector walk; see visited.h for the contract. */
#include "check/visited.h"

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
