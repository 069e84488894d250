/*
 * A small reproducible random number generator for sampling and tie-breaks: xoshiro256** seeded
 * through splitmix64 (Blackman and Vigna). The same seed gives the same sequence on every
 * platform, which is what makes `millaudit grade --seed S` reproducible. Not for cryptography.
 */
#ifndef MA_VERIFIER_RNG_H
#define MA_VERIFIER_RNG_H

#include <stdint.h>

typedef struct ma_rng {
    uint64_t s[4];
} ma_rng;

static inline uint64_t ma_rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void ma_rng_seed(ma_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = ma_rng_splitmix(&seed);
}

static inline uint64_t ma_rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t ma_rng_next(ma_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = ma_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = ma_rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, n) without modulo bias (Lemire's multiply-and-reject); n >= 1. */
static inline uint64_t ma_rng_below(ma_rng *r, uint64_t n)
{
    for (;;) {
        __uint128_t m = (__uint128_t)ma_rng_next(r) * n;
        uint64_t low = (uint64_t)m;
        if (low >= n || low >= (uint64_t)(-n) % n)
            return (uint64_t)(m >> 64);
    }
}

/* Uniform in [0, 1). */
static inline double ma_rng_unit(ma_rng *r)
{
    return (double)(ma_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
