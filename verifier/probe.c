/* Readable turns of a position (see probe.h). */
#include "verifier/probe.h"

#include <stdio.h>
#include <stdlib.h>

static int push(ma_probe_turn *out, int max, int *n, ma_probe_turn t)
{
    if (*n >= max)
        return MA_EINTERNAL;
    out[(*n)++] = t;
    return MA_OK;
}

/* Turns that close a mill when every such turn wins at once (rules->mill_wins). */
static int add_immediate_wins(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n)
{
    const uint32_t m = pos.mover, o = pos.opp, empty = MA_FULL_MASK & ~(m | o);
    if (!o)
        return MA_OK;
    const uint32_t removable = ma_vrules_removable(r, o);
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0 && !r->can_place) || (pass == 1 && !r->can_move))
            continue;
        for (uint32_t s = pass ? m : 1; s; s = pass ? s & (s - 1) : 0) {
            int from = pass ? __builtin_ctz(s) : -1;
            uint32_t rest = pass ? m & ~(1u << from) : m;
            uint32_t dest = !pass ? empty : r->flying ? empty : (empty & r->adj[from]);
            for (; dest; dest &= dest - 1) {
                int d = __builtin_ctz(dest);
                if (!ma_vrules_closes_mill(r, rest | (1u << d), d))
                    continue;
                for (uint32_t rm = removable; rm; rm &= rm - 1) {
                    ma_probe_turn t = {from, d, __builtin_ctz(rm), 1, -1, {0, 0}};
                    if (push(out, max, n, t))
                        return MA_EINTERNAL;
                }
            }
        }
    }
    return MA_OK;
}

int ma_probe_turns(const ma_vrules *r, ma_board pos, ma_probe_turn *out, int max, int *n,
                   ma_error *err)
{
    *n = 0;
    ma_vturns *turns = malloc(sizeof *turns);
    if (!turns)
        return ma_error_set(err, MA_ENOMEM, "probe: out of memory");
    int rc = ma_vrules_generate(r, pos, turns);
    for (int i = 0; !rc && i < turns->n; i++) {
        ma_board s = turns->succ[i];
        /* s is colour-swapped: s.opp holds the mover's stones after the turn. */
        uint32_t left = pos.mover & ~s.opp, reached = s.opp & ~pos.mover;
        uint32_t gone = pos.opp & ~s.mover;
        ma_probe_turn t = {left ? __builtin_ctz(left) : -1, reached ? __builtin_ctz(reached) : -1,
                           gone ? __builtin_ctz(gone) : -1, 0, turns->kind[i], s};
        rc = push(out, max, n, t);
    }
    if (!rc && turns->immediate_wins)
        rc = add_immediate_wins(r, pos, out, max, n);
    free(turns);
    if (rc)
        return ma_error_set(err, MA_EINTERNAL, "probe: more than %d turns", max);
    return MA_OK;
}

void ma_probe_turn_format(const ma_probe_turn *t, char *buf, size_t len)
{
    int k = 0;
    if (t->from >= 0)
        k = snprintf(buf, len, "%s-", ma_point_name(t->from));
    if (k < 0 || (size_t)k >= len)
        return;
    int k2 = snprintf(buf + k, len - (size_t)k, "%s", t->to >= 0 ? ma_point_name(t->to) : "?");
    if (k2 < 0 || (size_t)(k + k2) >= len)
        return;
    if (t->removed >= 0)
        snprintf(buf + k + k2, len - (size_t)(k + k2), "x%s", ma_point_name(t->removed));
}
