/* svrules: turn generation and un-move generation for std, lask and mora. */
#include "solver/svrules.h"

#include <string.h>

/* docs/format.md §1: the standard board's neighbour masks and the 16 + 4 mill lines. */
static const uint32_t std_adj[24] = {
    514, 21, 16386, 1040, 170, 8208, 2176, 336, 4224, 2098177, 264712, 33856,
    139520, 1069088, 8396804, 67584, 688128, 69632, 525312, 5570560, 532480, 4194816,
    11010048, 4210688};
static const uint32_t all_lines[20] = {
    7, 56, 448, 3584, 28672, 229376, 1835008, 14680064, 2097665, 263176, 34880, 146,
    4784128, 135424, 1056800, 8404996, 73, 292, 2392064, 9568256};
/* Mora's diagonals as edges: a1-b2, b2-c3, g1-f2, f2-e3, a7-b6, b6-c5, g7-f6, f6-e5. */
static const int mora_edges[8][2] = {{0, 3}, {3, 6}, {2, 5}, {5, 8}, {21, 18}, {18, 15}, {23, 20}, {20, 17}};

static const char *const variant_names[] = {NULL, "std", "lask", "mora"};
static const char *const bug_names[MA_SVBUG_COUNT] = {
    "none", "removal-from-mill", "fly-early", "double-removal", "blocked-not-lost", "depth-in-moves"};

int ma_svrules_variant_parse(const char *name)
{
    for (int v = MA_SV_STD; v <= MA_SV_MORA; v++)
        if (name && !strcmp(name, variant_names[v]))
            return v;
    return 0;
}

int ma_svrules_bugs_compiled(void)
{
#ifdef MA_PLANT_BUGS
    return 1;
#else
    return 0;
#endif
}

const char *ma_svrules_variant_name(int variant)
{
    return variant >= MA_SV_STD && variant <= MA_SV_MORA ? variant_names[variant] : "?";
}

int ma_svrules_bug_parse(const char *name)
{
    for (int i = 1; i < MA_SVBUG_COUNT; i++)
        if (name && !strcmp(name, bug_names[i]))
            return i;
    return -1;
}

const char *ma_svrules_bug_name(int bug)
{
    return bug >= 0 && bug < MA_SVBUG_COUNT ? bug_names[bug] : "?";
}

int ma_svrules_init(ma_svrules *r, int variant, int bug, ma_error *err)
{
    memset(r, 0, sizeof *r);
    if (variant < MA_SV_STD || variant > MA_SV_MORA)
        return ma_error_set(err, MA_EINVAL, "unknown variant %d", variant);
    if (bug < 0 || bug >= MA_SVBUG_COUNT)
        return ma_error_set(err, MA_EINVAL, "unknown planted bug %d", bug);
    if (bug != MA_SVBUG_NONE && !ma_svrules_bugs_compiled())
        return ma_error_set(err, MA_EINVAL, "planted bug %s: this build has no planted bugs "
                            "(they live in the test-only millaudit-planted)", ma_svrules_bug_name(bug));
    r->variant = variant;
    r->bug = bug;
    r->stones = variant == MA_SV_STD ? 9 : variant == MA_SV_LASK ? 10 : 12;
    r->fly_limit = MA_SV_HAS_BUG(r, MA_SVBUG_FLY_EARLY) ? 4 : 3;
    r->nlines = variant == MA_SV_MORA ? 20 : 16;
    memcpy(r->adj, std_adj, sizeof r->adj);
    if (variant == MA_SV_MORA)
        for (int i = 0; i < 8; i++) {
            r->adj[mora_edges[i][0]] |= 1u << mora_edges[i][1];
            r->adj[mora_edges[i][1]] |= 1u << mora_edges[i][0];
        }
    for (int i = 0; i < r->nlines; i++) {
        r->lines[i] = all_lines[i];
        for (int p = 0; p < 24; p++)
            if (all_lines[i] >> p & 1)
                r->lines_at[p][r->nlines_at[p]++] = all_lines[i];
    }
    return MA_OK;
}

int ma_svrules_mills_at(const ma_svrules *r, uint32_t m, int d)
{
    int n = 0;
    for (int i = 0; i < r->nlines_at[d]; i++)
        n += (m & r->lines_at[d][i]) == r->lines_at[d][i];
    return n;
}

uint32_t ma_svrules_mill_points(const ma_svrules *r, uint32_t m)
{
    uint32_t in = 0;
    for (int i = 0; i < r->nlines; i++)
        if ((m & r->lines[i]) == r->lines[i])
            in |= r->lines[i];
    return in;
}

uint32_t ma_svrules_removable(const ma_svrules *r, uint32_t b)
{
    if (MA_SV_HAS_BUG(r, MA_SVBUG_REMOVAL_FROM_MILL))
        return b;
    uint32_t free_stones = b & ~ma_svrules_mill_points(r, b);
    return free_stones ? free_stones : b;
}

int ma_svrules_sector_valid(const ma_svrules *r, ma_sv_sector s)
{
    int n = r->stones;
    return s.w >= 0 && s.b >= 0 && s.wf >= 0 && s.bf >= 0 && s.w + s.wf <= n && s.b + s.bf <= n &&
           s.w + s.wf >= 3 && s.b + s.bf >= 3 && s.w + s.b <= 24;
}

ma_sv_sector ma_svrules_negate(ma_sv_sector s)
{
    ma_sv_sector t = {s.b, s.w, s.bf, s.wf};
    return t;
}

int ma_svrules_sector_eq(ma_sv_sector a, ma_sv_sector b)
{
    return a.w == b.w && a.b == b.b && a.wf == b.wf && a.bf == b.bf;
}

int ma_svrules_full_board_draw(const ma_svrules *r, ma_sv_sector s)
{
    return r->variant == MA_SV_MORA && s.w == 12 && s.b == 12 && s.wf == 0 && s.bf == 0;
}

struct gen {
    const ma_svrules *r;
    ma_sv_sector s;
    uint32_t b;
    ma_sv_turn_fn fn;
    void *ctx;
    int n;
};

/* One placement or move that put a mover stone on d, giving mover mask w2. */
static void emit(struct gen *g, uint32_t w2, int d, int placed)
{
    const ma_svrules *r = g->r;
    ma_sv_sector x = {g->s.w + placed, g->s.b, g->s.wf - placed, g->s.bf};
    ma_sv_turn t;
    int mills = ma_svrules_mills_at(r, w2, d);
    if (mills == 0) {
        t.kind = MA_SVTURN_STORED;
        t.internal = !placed;
        t.sector = ma_svrules_negate(x);
        t.w = g->b;
        t.b = w2;
        g->fn(g->ctx, &t);
        g->n++;
        return;
    }
    /* Nothing to remove: the turn does not exist (malom-format.md §2.4). */
    if (g->b == 0)
        return;
    int nrem = (MA_SV_HAS_BUG(r, MA_SVBUG_DOUBLE_REMOVAL) && mills >= 2) ? 2 : 1;
    if (nrem > x.b)
        nrem = x.b;
    t.internal = 0;
    if (x.b - nrem + x.bf <= 2) {
        t.kind = MA_SVTURN_WIN;
        t.sector = x;
        t.w = t.b = 0;
        g->fn(g->ctx, &t);
        g->n++;
        return;
    }
    x.b -= nrem;
    t.kind = MA_SVTURN_STORED;
    t.sector = ma_svrules_negate(x);
    t.b = w2;
    for (uint32_t rem = ma_svrules_removable(r, g->b); rem; rem &= rem - 1) {
        uint32_t b2 = g->b & ~(rem & -rem);
        if (nrem == 1) {
            t.w = b2;
            g->fn(g->ctx, &t);
            g->n++;
            continue;
        }
        for (uint32_t rem2 = ma_svrules_removable(r, b2); rem2; rem2 &= rem2 - 1) {
            t.w = b2 & ~(rem2 & -rem2);
            g->fn(g->ctx, &t);
            g->n++;
        }
    }
}

int ma_svrules_turns(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b,
                     ma_sv_turn_fn fn, void *ctx)
{
    struct gen g = {r, s, b, fn, ctx, 0};
    uint32_t free_pts = ~(w | b) & MA_SV_FULL;
    int can_place = s.wf > 0;
    int can_move = r->variant == MA_SV_LASK ? s.w > 0 : s.wf == 0;
    if (can_place)
        for (uint32_t f = free_pts; f; f &= f - 1) {
            int d = __builtin_ctz(f);
            emit(&g, w | 1u << d, d, 1);
        }
    if (can_move) {
        int fly = s.w + s.wf <= r->fly_limit;
        for (uint32_t src = w; src; src &= src - 1) {
            int from = __builtin_ctz(src);
            uint32_t dests = fly ? free_pts : r->adj[from] & free_pts;
            for (; dests; dests &= dests - 1) {
                int d = __builtin_ctz(dests);
                emit(&g, (w & ~(1u << from)) | 1u << d, d, 0);
            }
        }
    }
    return g.n;
}

int ma_svrules_unmoves(const ma_svrules *r, ma_sv_sector s, uint32_t w, uint32_t b,
                       ma_sv_board_fn fn, void *ctx)
{
    /* The predecessor's mover is the side now in b, with b stones on board and bf in hand. */
    int can_move = r->variant == MA_SV_LASK ? s.b > 0 : s.bf == 0;
    if (!can_move)
        return 0;
    int fly = s.b + s.bf <= r->fly_limit;
    uint32_t free_pts = ~(w | b) & MA_SV_FULL;
    int n = 0;
    for (uint32_t dst = b; dst; dst &= dst - 1) {
        int d = __builtin_ctz(dst);
        if (ma_svrules_mills_at(r, b, d))
            continue; /* arriving there closed a mill: that turn left the component */
        uint32_t srcs = fly ? free_pts : r->adj[d] & free_pts;
        for (; srcs; srcs &= srcs - 1) {
            fn(ctx, (b & ~(1u << d)) | (srcs & -srcs), w);
            n++;
        }
    }
    return n;
}
