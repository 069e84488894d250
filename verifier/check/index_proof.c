/* The index proof of one sector (contract in verifier/check/index_proof.h). */
#include "verifier/check/index_proof.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/counts.h"
#include "verifier/formats/value.h"

struct reporter {
    ma_index_proof_fail_fn fn;
    void *ctx;
    uint64_t *failures;
};

static void fail(const struct reporter *r, uint64_t entry, ma_board board, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(const struct reporter *r, uint64_t entry, ma_board board, const char *fmt, ...)
{
    ++*r->failures;
    if (!r->fn)
        return;
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->fn(r->ctx, entry, board, what);
}

/* Checks every entry of the sector; marks the canonical ones in canon_bits. */
static void check_entries(const ma_open_index *ix, int w, int b, const struct reporter *r,
                          uint8_t *orbit, uint8_t *canon_bits, ma_progress *progress,
                          ma_index_proof *out)
{
    uint64_t n = out->entries, m = ma_open_binomial(MA_POINTS - w, b);
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0) {
            ma_open_index_classify(ix, w, b, e / m, orbit);
            if (progress)
                ma_progress_update(progress, e);
        }
        ma_board board = ma_open_index_unrank(ix, w, b, e);
        if (__builtin_popcount(board.mover) != w || __builtin_popcount(board.opp) != b ||
            (board.mover & board.opp) || ((board.mover | board.opp) & ~MA_FULL_MASK)) {
            fail(r, e, board, "not a board of %d mover and %d opponent stones", w, b);
            continue;
        }
        int is_canon = ma_open_index_is_canonical(board);
        int size = ma_open_orbit_size(board);
        if ((orbit[e % m] != 0) != is_canon || (is_canon && orbit[e % m] != size))
            fail(r, e, board, "classify says orbit %d, definition says %s orbit %d", orbit[e % m],
                 is_canon ? "canonical" : "non-canonical", size);
        uint64_t rank = ma_open_index_rank(ix, board, NULL);
        if (is_canon) {
            canon_bits[e >> 3] |= (uint8_t)(1u << (e & 7));
            out->canonical++;
            out->orbit_sum += (uint64_t)size;
            if (rank != e)
                fail(r, e, board, "canonical entry ranks to %" PRIu64, rank);
            continue;
        }
        if (rank == e || rank >= n) {
            fail(r, e, board, "non-canonical entry ranks to %" PRIu64, rank);
            continue;
        }
        ma_board other = ma_open_index_unrank(ix, w, b, rank);
        ma_board canon = ma_open_canonical(board, NULL);
        if (!ma_open_index_is_canonical(other) || other.mover != canon.mover ||
            other.opp != canon.opp)
            fail(r, e, board, "non-canonical entry ranks to %" PRIu64
                 ", which is not its canonical image", rank);
    }
}

static inline uint32_t next_same_popcount(uint32_t m)
{
    uint32_t t = m | (m - 1);
    return (t + 1) | (((~t & (t + 1)) - 1) >> (__builtin_ctz(m) + 1));
}

/* Ranks every placement of w mover and b opponent stones; counts them in out->placements. */
static void check_placements(const ma_open_index *ix, int w, int b, const struct reporter *r,
                             const uint8_t *canon_bits, ma_progress *progress,
                             ma_index_proof *out)
{
    uint64_t n = out->entries;
    uint64_t movers = ma_open_binomial(MA_POINTS, w), opps = ma_open_binomial(MA_POINTS - w, b);
    uint32_t wm = w ? (1u << w) - 1 : 0;
    for (uint64_t i = 0; i < movers; i++) {
        uint32_t free_pts = ~wm & MA_FULL_MASK;
        uint32_t c = b ? (1u << b) - 1 : 0;
        for (uint64_t j = 0; j < opps; j++) {
            /* Spread c over the free points. */
            uint32_t om = 0, fp = free_pts;
            for (uint32_t cc = c; cc; fp &= fp - 1, cc >>= 1)
                if (cc & 1u)
                    om |= fp & -fp;
            ma_board board = {wm, om};
            int op;
            uint64_t rank = ma_open_index_rank(ix, board, &op);
            if (rank >= n) {
                fail(r, rank, board, "raw placement ranks out of range");
            } else {
                ma_board got = ma_open_index_unrank(ix, w, b, rank);
                ma_board img = ma_open_index_apply(ix, op, board);
                if (!(canon_bits[rank >> 3] >> (rank & 7) & 1u))
                    fail(r, rank, board, "raw placement ranks to a non-canonical entry");
                else if (got.mover != img.mover || got.opp != img.opp)
                    fail(r, rank, board,
                         "raw placement ranks to an entry that is not its image under op %d", op);
            }
            if (c && j + 1 < opps)
                c = next_same_popcount(c);
        }
        out->placements += opps;
        if (progress)
            ma_progress_update(progress, n + out->placements);
        if (wm && i + 1 < movers)
            wm = next_same_popcount(wm);
    }
}

int ma_index_proof_sector(const ma_open_index *ix, int w, int b, ma_progress *progress,
                          ma_index_proof_fail_fn on_failure, void *ctx, ma_index_proof *out,
                          ma_error *err)
{
    *out = (ma_index_proof){0};
    out->entries = ma_open_index_entry_count(ix, w, b);
    uint64_t want = ma_open_binomial(MA_POINTS, w) * ma_open_binomial(MA_POINTS - w, b);
    /* Canonical entries as found by the definition, so the placement pass need not recompute. */
    uint8_t *canon_bits = calloc((size_t)(out->entries / 8 + 1), 1);
    uint8_t *orbit = malloc((size_t)ma_open_binomial(MA_POINTS - w, b) + 1);
    if (!canon_bits || !orbit) {
        free(canon_bits);
        free(orbit);
        return ma_error_set(err, MA_ENOMEM, "index proof: out of memory for %s",
                            MA_COUNT(out->entries, "entry", "entries"));
    }
    if (progress)
        ma_progress_set_total(progress, out->entries + want);
    struct reporter r = {on_failure, ctx, &out->failures};
    check_entries(ix, w, b, &r, orbit, canon_bits, progress, out);
    check_placements(ix, w, b, &r, canon_bits, progress, out);
    free(canon_bits);
    free(orbit);
    out->expected_placements = want;
    if (out->placements != want || out->orbit_sum != out->placements)
        out->failures++;
    return MA_OK;
}

int ma_index_proof_file_words(const ma_open_index *ix, const ma_open_file *f, int w, int b,
                              ma_index_proof_fail_fn on_failure, void *ctx, uint64_t *bad,
                              ma_error *err)
{
    *bad = 0;
    uint64_t n = f->header.entry_count, m = ma_open_binomial(MA_POINTS - w, b);
    uint8_t *orbit = malloc((size_t)m + 1);
    if (!orbit)
        return ma_error_set(err, MA_ENOMEM, "index proof: out of memory");
    struct reporter r = {on_failure, ctx, bad};
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, w, b, e / m, orbit);
        uint16_t word = ma_open_file_word(f, e);
        ma_value val;
        int ok = ma_open_value_decode(word, &val) == 0 &&
                 (orbit[e % m] ? val.outcome != MA_OUTCOME_NONE : word == 0);
        if (!ok)
            fail(&r, e, ma_open_index_unrank(ix, w, b, e),
                 "offset %" PRIu64 ": bad encoding 0x%04x for a %s entry", ma_open_file_offset(e),
                 word, orbit[e % m] ? "canonical" : "non-canonical");
    }
    free(orbit);
    return MA_OK;
}
