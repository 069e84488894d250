/*
 * The order in which worker threads take the chunks of one sector's walk.
 *
 * Taken in walk order, the chunks two threads hold at the same time are neighbours, and the
 * indices of neighbouring chunks share the words (and cache lines) of the checker's visited bitmap
 * for every representative: each thread's writes then evict the other's lines. Handing out the
 * chunk at (k * stride) mod n for the k-th request, with stride coprime to n and near n / phi,
 * keeps the chunks in use at one time far apart while every chunk is still taken exactly once.
 *
 * Contract: for n >= 1, ma_chunk_stride(n) is in 1..max(n - 1, 1) and coprime to n, so
 * k -> ma_chunk_at(k, n, stride) is a bijection of 0..n-1. Header-only, no state.
 */
#ifndef MA_COMMON_CHUNK_ORDER_H
#define MA_COMMON_CHUNK_ORDER_H

#include <stdint.h>

static inline uint64_t ma_chunk_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* A stride coprime to n near 0.618 n (1 for n <= 2). */
static inline uint64_t ma_chunk_stride(uint64_t n)
{
    if (n <= 2)
        return 1;
    uint64_t s = n / 2 + n / 8 - n / 128; /* ~0.617 n, no floating point */
    while (ma_chunk_gcd(s, n) != 1)
        s++;
    return s % n ? s % n : 1;
}

/* The chunk handed out for the k-th request, k < n. k * stride < n^2 must fit in 64 bits
 * (n < 2^32: a sector of 2^32 chunks of thousands of entries is far beyond any database). */
static inline uint64_t ma_chunk_at(uint64_t k, uint64_t n, uint64_t stride)
{
    return k * stride % n;
}

#endif
