/* The checker's move generator; see rules.h for the contract. */
#include "verifier/check/rules.h"

#include <string.h>

/* docs/format.md §1: neighbour masks of the standard board, by open point number. */
static const uint32_t std_adjacency[MA_POINTS] = {
    514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177, 264712, 33856,
    139520, 1069088, 8396804, 67584, 688128, 69632, 525312, 5570560, 532480, 4194816, 11010048,
    4210688};

/* Morabaraba's extra edges: the four diagonals a1-b2-c3, g1-f2-e3, a7-b6-c5, g7-f6-e5. */
static const uint8_t mora_diagonal_edges[8][2] = {
    {0, 3}, {3, 6}, {2, 5}, {5, 8}, {21, 18}, {18, 15}, {23, 20}, {20, 17}};

/* docs/format.md §1: lines 0-15 (every variant), 16-19 (mora only). */
static const uint32_t mill_lines[20] = {
    7, 56, 448, 3584, 28672, 229376, 1835008, 14680064, 2097665, 263176, 34880, 146, 4784128,
    135424, 1056800, 8404996, 73, 292, 2392064, 9568256};

int ma_vrules_init(ma_vrules *r, ma_variant v, ma_sector s, ma_error *err)
{
    if (v != MA_VARIANT_STD && v != MA_VARIANT_LASK && v != MA_VARIANT_MORA)
        return ma_error_set(err, MA_EINVAL, "rules: unknown variant %d", (int)v);
    int n = v == MA_VARIANT_STD ? 9 : v == MA_VARIANT_LASK ? 10 : 12;
    if (s.w + s.wf > n || s.b + s.bf > n || s.w + s.wf < 3 || s.b + s.bf < 3 || s.w + s.b > 24)
        return ma_error_set(err, MA_EINVAL, "rules: sector %d_%d_%d_%d is not valid for %s", s.w, s.b,
                            s.wf, s.bf, v == MA_VARIANT_STD ? "std" : v == MA_VARIANT_LASK ? "lask" : "mora");
    memset(r, 0, sizeof *r);
    r->variant = v;
    r->sector = s;
    memcpy(r->adj, std_adjacency, sizeof r->adj);
    r->n_lines = v == MA_VARIANT_MORA ? 20 : 16;
    if (v == MA_VARIANT_MORA) {
        for (int i = 0; i < 8; i++) {
            r->adj[mora_diagonal_edges[i][0]] |= 1u << mora_diagonal_edges[i][1];
            r->adj[mora_diagonal_edges[i][1]] |= 1u << mora_diagonal_edges[i][0];
        }
    }
    /* Unused partner slots hold a mask no 24-bit mover can contain, so the mill test reads all
     * three slots without a loop bound (it runs for every turn generated). */
    for (int p = 0; p < MA_POINTS; p++)
        for (int i = 0; i < 3; i++)
            r->partners[p][i] = UINT32_MAX;
    for (int i = 0; i < r->n_lines; i++) {
        r->lines[i] = mill_lines[i];
        for (int p = 0; p < MA_POINTS; p++)
            if (mill_lines[i] >> p & 1)
                r->partners[p][r->n_partners[p]++] = mill_lines[i] & ~(1u << p);
    }
    r->can_place = s.wf > 0;
    r->can_move = v == MA_VARIANT_LASK ? s.w > 0 : s.wf == 0;
    r->flying = s.w + s.wf <= 3;
    /* A removal leaves B - 1 + BF stones; <= 2 ends the game. */
    r->mill_wins = s.b + s.bf <= 3;
    r->full_board_draw = v == MA_VARIANT_MORA && s.w == 12 && s.b == 12 && s.wf == 0 && s.bf == 0;

    /* Mover-frame quadruples per kind, stored negated: (W', B', WF', BF') -> (B', W', BF', WF'). */
    int place_ok = r->can_place, move_ok = r->can_move;
    int mill_ok = s.b > 0 && !r->mill_wins;
    ma_sector q[MA_TURN_KINDS] = {
        {s.b, (uint8_t)(s.w + 1), s.bf, (uint8_t)(s.wf - 1)},
        {(uint8_t)(s.b - 1), (uint8_t)(s.w + 1), s.bf, (uint8_t)(s.wf - 1)},
        {s.b, s.w, s.bf, s.wf},
        {(uint8_t)(s.b - 1), s.w, s.bf, s.wf}};
    int ok[MA_TURN_KINDS] = {place_ok && s.w + s.b < 24, place_ok && mill_ok, move_ok,
                             move_ok && mill_ok};
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        r->succ_exists[k] = ok[k];
        if (ok[k])
            r->succ[k] = q[k];
    }
    return MA_OK;
}

int ma_vrules_closes_mill(const ma_vrules *r, uint32_t mover, int d)
{
    const uint32_t *pt = r->partners[d];
    return ((mover & pt[0]) == pt[0]) | ((mover & pt[1]) == pt[1]) | ((mover & pt[2]) == pt[2]);
}

uint32_t ma_vrules_removable(const ma_vrules *r, uint32_t opp)
{
    uint32_t in_mill = 0;
    for (int i = 0; i < r->n_lines; i++)
        if ((opp & r->lines[i]) == r->lines[i])
            in_mill |= r->lines[i];
    uint32_t free_stones = opp & ~in_mill;
    return free_stones ? free_stones : opp;
}

/* Records the outcome of one turn that leaves the mover on mask `mover` with destination d. */
static inline int emit(const ma_vrules *r, ma_vturns *t, uint32_t mover, uint32_t opp, int d,
                       uint32_t removable, int plain_kind)
{
    if (!ma_vrules_closes_mill(r, mover, d)) {
        if (t->n >= MA_VRULES_MAX_TURNS)
            return MA_EINTERNAL;
        t->succ[t->n].mover = opp;
        t->succ[t->n].opp = mover;
        t->kind[t->n++] = (uint8_t)plain_kind;
        return 0;
    }
    if (!opp)
        return 0; /* nothing to remove: the turn does not exist */
    if (r->mill_wins) {
        t->immediate_wins++;
        return 0;
    }
    for (uint32_t rm = removable; rm; rm &= rm - 1) {
        if (t->n >= MA_VRULES_MAX_TURNS)
            return MA_EINTERNAL;
        t->succ[t->n].mover = opp & ~(rm & -rm);
        t->succ[t->n].opp = mover;
        t->kind[t->n++] = (uint8_t)(plain_kind + 1);
    }
    return 0;
}

int ma_vrules_generate(const ma_vrules *r, ma_board pos, ma_vturns *out)
{
    out->n = 0;
    out->immediate_wins = 0;
    const uint32_t m = pos.mover, o = pos.opp;
    const uint32_t empty = MA_FULL_MASK & ~(m | o);
    const uint32_t removable = o ? ma_vrules_removable(r, o) : 0;
    if (r->can_place) {
        for (uint32_t e = empty; e; e &= e - 1) {
            int d = __builtin_ctz(e);
            if (emit(r, out, m | (1u << d), o, d, removable, MA_TURN_PLACE))
                return MA_EINTERNAL;
        }
    }
    if (r->can_move) {
        for (uint32_t s = m; s; s &= s - 1) {
            int from = __builtin_ctz(s);
            uint32_t rest = m & ~(1u << from);
            uint32_t dest = r->flying ? empty : (empty & r->adj[from]);
            for (; dest; dest &= dest - 1) {
                int d = __builtin_ctz(dest);
                if (emit(r, out, rest | (1u << d), o, d, removable, MA_TURN_MOVE))
                    return MA_EINTERNAL;
            }
        }
    }
    return 0;
}
