#include "verifier/check/word_set.h"

#include <stdlib.h>
#include <string.h>

#include "common/fanout.h"
#include "common/ma_error.h"

/* The entries are little-endian. */
static inline uint64_t le64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

typedef struct {
    const ma_word_range *ranges;
    int n_ranges;
    uint64_t total;
    uint8_t *part_seen; /* MA_WORD_SET_WORDS bytes per part */
} scan;

static void scan_part(void *ctx, unsigned part, unsigned parts)
{
    const scan *sc = ctx;
    uint8_t *seen = sc->part_seen + (size_t)part * MA_WORD_SET_WORDS;
    uint64_t lo = sc->total * part / parts, hi = sc->total * (part + 1) / parts, at = 0;
    for (int r = 0; r < sc->n_ranges && at < hi; at += sc->ranges[r].words, r++) {
        uint64_t n = sc->ranges[r].words;
        uint64_t a = lo > at ? lo - at : 0, b = hi - at < n ? hi - at : n;
        /* A store per word and no load of seen: with ~100 distinct words a bit set would be a
         * chain of read-modify-writes on a few cache lines. Four words per 8-byte load: 2.3x
         * as fast as a load per word on STONE_DIFF 4_4. */
        const uint8_t *e = sc->ranges[r].base + 2 * a;
        uint64_t i = a;
        for (; i + 4 <= b; i += 4, e += 8) {
            uint64_t v;
            memcpy(&v, e, sizeof v);
            v = le64(v);
            seen[v & 0xFFFFu] = 1;
            seen[v >> 16 & 0xFFFFu] = 1;
            seen[v >> 32 & 0xFFFFu] = 1;
            seen[v >> 48] = 1;
        }
        for (; i < b; i++, e += 2)
            seen[(uint32_t)e[0] | (uint32_t)e[1] << 8] = 1;
    }
}

int ma_word_set_scan(uint8_t seen[MA_WORD_SET_WORDS], const ma_word_range *ranges, int n_ranges,
                     unsigned threads)
{
    scan sc = {ranges, n_ranges, 0, NULL};
    for (int r = 0; r < n_ranges; r++)
        sc.total += ranges[r].words;
    uint64_t parts = sc.total / MA_WORD_SET_PART_WORDS;
    parts = parts < threads ? parts : threads;
    parts = parts < MA_WORD_SET_MAX_PARTS ? parts : MA_WORD_SET_MAX_PARTS;
    parts = parts ? parts : 1;
    sc.part_seen = calloc((size_t)parts, MA_WORD_SET_WORDS);
    if (!sc.part_seen)
        return MA_ENOMEM;
    ma_fanout((unsigned)parts, scan_part, &sc);
    for (uint64_t p = 0; p < parts; p++)
        for (uint32_t w = 0; w < MA_WORD_SET_WORDS; w++)
            seen[w] |= sc.part_seen[p * MA_WORD_SET_WORDS + w];
    free(sc.part_seen);
    return MA_OK;
}
