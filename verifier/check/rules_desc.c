/* The rules description read off the checker's rules; see rules_desc.h for the format. */
#include "verifier/check/rules_desc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/sha256.h"
#include "common/counts.h"
#include "verifier/check/rules.h"

typedef struct text {
    char *buf;
    size_t len, used;
    int overflow;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->len - t->used)
        t->overflow = 1;
    else
        t->used += (size_t)n;
}

static int rules_of(ma_vrules *r, ma_variant v, int w, int b, int wf, int bf, ma_error *err)
{
    ma_sector s = {(uint8_t)w, (uint8_t)b, (uint8_t)wf, (uint8_t)bf};
    return ma_vrules_init(r, v, s, err);
}

/* Stones removed by one turn that closes two mills at once, and how many successors that turn
 * has: the mover holds d1 g1 a4 a7 and places on a1 (closing a1-d1-g1 and a1-a4-a7) against four
 * opponent stones in no mill. */
static int probe_double_mill(const ma_vrules *r, int *removed, ma_error *err)
{
    const uint32_t a1 = 1u << 0, d1 = 1u << 1, g1 = 1u << 2, a4 = 1u << 9, a7 = 1u << 21;
    const uint32_t mover = d1 | g1 | a4 | a7;
    const uint32_t opp = (1u << 4) | (1u << 7) | (1u << 10) | (1u << 13);
    ma_vturns turns; /* about 9 KiB: fine on the stack */
    ma_board pos = {mover, opp};
    if (ma_vrules_generate(r, pos, &turns))
        return ma_error_set(err, MA_EINTERNAL, "rules description: move generation failed");
    *removed = -1;
    for (int i = 0; i < turns.n; i++)
        if (turns.kind[i] == MA_TURN_PLACE_MILL && turns.succ[i].opp == (mover | a1)) {
            int left = __builtin_popcount(turns.succ[i].mover);
            *removed = __builtin_popcount(opp) - left;
            break;
        }
    if (*removed < 0)
        return ma_error_set(err, MA_EINTERNAL, "rules description: the double-mill probe found no mill turn");
    return MA_OK;
}

/* Whether a mill-closing turn exists when the opponent has no stone on the board: the mover holds
 * d1 g1 and places on a1; the opponent's stones are all in hand. */
static int probe_no_target(const ma_vrules *r, int *allowed, ma_error *err)
{
    ma_vturns turns;
    ma_board pos = {(1u << 1) | (1u << 2), 0};
    if (ma_vrules_generate(r, pos, &turns))
        return ma_error_set(err, MA_EINTERNAL, "rules description: move generation failed");
    /* only the placement on a1 closes a mill (two stones cannot close one by moving) */
    *allowed = turns.immediate_wins > 0;
    for (int i = 0; i < turns.n; i++)
        if (turns.succ[i].opp == ((1u << 0) | (1u << 1) | (1u << 2)))
            *allowed = 1;
    return MA_OK;
}

int ma_rules_describe(ma_variant v, char *buf, size_t len, ma_error *err)
{
    if (v != MA_VARIANT_STD && v != MA_VARIANT_LASK && v != MA_VARIANT_MORA)
        return ma_error_set(err, MA_EINVAL, "rules description: unknown variant %d", (int)v);
    int n = ma_variant_stones(v);
    ma_vrules r;
    int rc = rules_of(&r, v, 3, 3, 0, 0, err);
    if (rc)
        return rc;
    text t = {buf, len, 0, 0};
    put(&t, "millaudit-rules 1\nvariant %s\nstones %d\npoints %d\nedges", ma_variant_name(v), n, MA_POINTS);
    for (int p = 0; p < MA_POINTS; p++)
        for (int q = p + 1; q < MA_POINTS; q++)
            if (r.adj[p] >> q & 1)
                put(&t, " %s-%s", ma_point_name(p), ma_point_name(q));
    put(&t, "\nmills");
    for (int i = 0; i < r.n_lines; i++) {
        const char *sep = " ";
        for (int p = 0; p < MA_POINTS; p++)
            if (r.lines[i] >> p & 1) {
                put(&t, "%s%s", sep, ma_point_name(p));
                sep = "-";
            }
    }
    /* placement: may a side with stones in hand and on the board also move? */
    ma_vrules mid;
    if ((rc = rules_of(&mid, v, 3, 3, 1, 1, err)))
        return rc;
    put(&t, "\nplacement %s", mid.can_place && mid.can_move ? "mixed-with-movement" : "before-movement");
    /* flying: the largest stone count (all on the board) that flies */
    int fly = 0, lost = 0;
    for (int k = 3; k <= n; k++) {
        ma_vrules q;
        if ((rc = rules_of(&q, v, k, 3, 0, 0, err)))
            return rc;
        if (q.flying)
            fly = k;
        if ((rc = rules_of(&q, v, 3, k, 0, 0, err)))
            return rc;
        /* mill_wins: a removal here ends the game, so the opponent's k stones minus one lose */
        if (q.mill_wins)
            lost = k;
    }
    put(&t, "\nflying %d\nloss-below %d", fly, lost);
    /* removal: what a mill may take, read off the checker's removable set */
    uint32_t line = r.lines[0], free_stone = 1u << 23;
    int protects = ma_vrules_removable(&r, line | free_stone) == free_stone;
    int all_when_all = ma_vrules_removable(&r, line) == line;
    int removed = 0, allowed = 0;
    ma_vrules dm, nt;
    if ((rc = rules_of(&dm, v, 4, 4, 1, 1, err)) || (rc = probe_double_mill(&dm, &removed, err)))
        return rc;
    if ((rc = rules_of(&nt, v, 2, 0, 1, 3, err)) || (rc = probe_no_target(&nt, &allowed, err)))
        return rc;
    put(&t, "\nremoval %d %s\nremoval-without-target %s\nno-turn loss", removed,
        protects && all_when_all ? "protected-in-mills-unless-all" : protects ? "protected-in-mills" : "any",
        allowed ? "turn-allowed" : "turn-not-allowed");
    /* full board: only a sector with every point taken can say */
    int full = 0;
    if (2 * n >= MA_POINTS) {
        ma_vrules fb;
        if ((rc = rules_of(&fb, v, MA_POINTS / 2, MA_POINTS / 2, 0, 0, err)))
            return rc;
        full = fb.full_board_draw;
    }
    put(&t, "\nfull-board %s\n", full ? "draw" : "none");
    if (t.overflow)
        return ma_error_set(err, MA_EINVAL, "rules description: buffer of %s too small", MA_COUNT(len, "byte", "bytes"));
    return MA_OK;
}

int ma_rules_fingerprint(ma_variant v, char hex[65], ma_error *err)
{
    char desc[MA_RULES_DESC_MAX];
    int rc = ma_rules_describe(v, desc, sizeof desc, err);
    if (rc)
        return rc;
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, desc, strlen(desc));
    ma_sha256_hex(hex, d);
    return MA_OK;
}
