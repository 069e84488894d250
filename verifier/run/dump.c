/* A sector's entries in the dump notation (verifier/run/dump.h). */
#include "verifier/run/dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The raw form of an entry that holds no value where one belongs (or one where none belongs). */
static void raw_text(const ma_source *src, const ma_stored *v, char *buf, size_t len)
{
    if (ma_source_format(src) == MA_FORMAT_OPEN)
        snprintf(buf, len, "0x%04x", (unsigned)v->raw[0]);
    else
        ma_source_describe(src, v, buf, len);
}

void ma_dump_value(const ma_source *src, const ma_stored *v, char *buf, size_t len)
{
    if (v->kind != MA_STORED_VALUE) {
        char raw[48];
        raw_text(src, v, raw, sizeof raw);
        snprintf(buf, len, "bad %s", raw);
    } else if (v->value.outcome == MA_OUTCOME_DRAW) {
        if (len >= sizeof "draw -")
            memcpy(buf, "draw -", sizeof "draw -");
        else if (len)
            buf[0] = 0;
    } else {
        /* by hand: dump writes one of these per position, millions per sector */
        char text[16], *p = text + sizeof text;
        unsigned d = v->value.depth;
        *--p = 0;
        do
            *--p = (char)('0' + d % 10);
        while ((d /= 10) != 0);
        const char *word = v->value.outcome == MA_OUTCOME_WIN ? "win " : "loss ";
        size_t wl = strlen(word);
        p -= wl;
        memcpy(p, word, wl);
        size_t n = (size_t)(text + sizeof text - 1 - p);
        if (n >= len)
            n = len - 1;
        memcpy(buf, p, n);
        buf[n] = 0;
    }
}

int ma_dump_walk(const ma_source *src, ma_dump_fn fn, void *ctx, uint64_t *canonical,
                 uint64_t *bad, ma_error *err)
{
    enum { CHUNK = 1 << 16, BLOCK = 4096 }; /* canonical tests per chunk, values per block */
    uint64_t n = ma_source_entries(src), n_canon = 0, n_bad = 0;
    uint8_t *flags = malloc(CHUNK);
    ma_stored *vals = malloc(BLOCK * sizeof *vals);
    if (!flags || !vals) {
        free(flags);
        free(vals);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_source_path(src));
    }
    int open = ma_source_format(src) == MA_FORMAT_OPEN, rc = MA_OK;
    for (uint64_t lo = 0; rc == MA_OK && lo < n; lo += CHUNK) {
        uint64_t cnt = n - lo < CHUNK ? n - lo : CHUNK;
        if (ma_source_canonical_range(src, lo, cnt, 0, flags) != MA_OK) {
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", ma_source_path(src));
            break;
        }
        for (uint64_t i = 0; rc == MA_OK && i < cnt; i++) {
            if (i % BLOCK == 0)
                ma_source_read_range(src, lo + i, cnt - i < BLOCK ? cnt - i : BLOCK, vals);
            ma_dump_entry d;
            d.entry = lo + i;
            d.canonical = flags[i];
            d.stored = vals[i % BLOCK];
            /* the empty slot of a non-canonical entry: the open filler, a Malom marker */
            int empty = open ? d.stored.raw[0] == 0 : d.stored.kind == MA_STORED_NONE;
            if (!d.canonical && empty)
                continue;
            d.offset = ma_source_offset(src, d.entry);
            d.board = ma_source_board(src, d.entry);
            d.bad = !d.canonical || d.stored.kind != MA_STORED_VALUE;
            d.value[0] = d.problem[0] = 0;
            d.report = 0;
            if (d.canonical) {
                n_canon++;
                ma_dump_value(src, &d.stored, d.value, sizeof d.value);
            }
            if (d.bad) {
                char raw[48];
                raw_text(src, &d.stored, raw, sizeof raw);
                snprintf(d.problem, sizeof d.problem,
                         d.canonical ? "bad encoding %s" : "is non-canonical but holds %s", raw);
            }
            n_bad += (uint64_t)d.bad;
            rc = fn(ctx, &d);
        }
    }
    free(flags);
    free(vals);
    if (canonical)
        *canonical = n_canon;
    if (bad)
        *bad = n_bad;
    return rc;
}
