/*
 * Move generation fused with the ranking of the successors, for both checkers' walks by opponent
 * mask (verifier/check/check.c over the open index, verifier/check/malom_check.c over Malom's): one generator,
 * whichever index fills the mover maps (indexer/mover_map.h).
 *
 * Contract. For the board (m, o) of a sector with rules r and w mover stones, whose mover mask m
 * has the destination rows `row` (verifier/check/turn_masks.h, built from r in the numbering of m and o),
 * and a group whose map is the map of o (ma_fused_group_start), ma_fused_turns gives the turns
 * ma_vrules_generate gives: the same multiset of kinds and successors, each successor as its
 * canonical index in its child sector, into t->kind, t->n, t->immediate_wins and succ. The order
 * differs (per lifted stone the turns closing no mill come first); the checkers take a maximum,
 * which no order changes. It stops at the first immediate win, which fixes the value whatever the
 * other turns are (t->n then counts the turns before it). Returns 0, or MA_EINTERNAL were the turn
 * bound MA_VRULES_MAX_TURNS exceeded (never for a valid position).
 *
 * A turn without a removal keeps o as the successor's mover mask: its index is the group's block
 * plus the colex rank of the least compressed mover image over the group's ops, each image
 * updated by two points per turn, so no board is written and no cache slot looked up. A removal
 * of stone x uses the map of o less x, which the group makes through the sector's fill_map when it
 * first needs it; each removal's successor word is prefetched (these lie anywhere in the child).
 *
 * Header-only: the generator is the checkers' innermost loop and is compiled into each, with the
 * group's op count a constant 1 on the common path.
 */
#ifndef MA_CHECK_FUSED_TURNS_H
#define MA_CHECK_FUSED_TURNS_H

#include <stdint.h>
#include <string.h>

#include "verifier/check/rules.h"
#include "verifier/check/turn_masks.h"
#include "common/ma_error.h"
#include "indexer/mover_map.h"

/* Fills mm for the mover mask `mover` in the index ix's numbering (a wrapper of
 * ma_open_index_mover_map or ma_malom_index_mover_map). */
typedef int (*ma_fused_fill_map)(const void *ix, uint32_t mover, ma_mover_map *mm);

/* A sector's constants for the generator; read-only, shared by the threads. */
typedef struct ma_fused_sector {
    const ma_vrules *rules;
    int w;                               /* the sector's mover stones */
    const void *ix;
    ma_fused_fill_map fill_map;
    /* per turn kind: the successor sector's entries (NULL when its file is absent), their size in
     * bytes and their number, for the prefetch of each removal's successor */
    const uint8_t *body[MA_TURN_KINDS];
    uint32_t entry_size[MA_TURN_KINDS];
    uint64_t entries[MA_TURN_KINDS];
} ma_fused_sector;

/* A thread's maps of the walk's current opponent mask: the mask is the mover mask of every
 * successor without a removal (map), and the mask less stone x that of every successor removing
 * x (removed[x], made when removed_made[x] is 0). About 45 KiB: allocate it. */
typedef struct ma_fused_group {
    ma_mover_map map;
    uint8_t removed_made[MA_POINTS];
    ma_mover_map removed[MA_POINTS];
} ma_fused_group;

/* Starts the group of opponent mask o: its map now, the removals' maps when first needed. */
static inline int ma_fused_group_start(ma_fused_group *g, const ma_fused_sector *fs, uint32_t o)
{
    memset(g->removed_made, 0, sizeof g->removed_made);
    return fs->fill_map(fs->ix, o, &g->map);
}

/* The generator of the contract above; nops is the group's op count, passed as the constant 1 on
 * the common path so that path compiles without the loops over ops. */
static inline __attribute__((always_inline)) int
ma_fused_turns_body(const ma_fused_sector *fs, ma_fused_group *g, uint32_t m, uint32_t o,
                    const ma_turn_dests *row, ma_vturns *t, uint64_t *succ, const int nops)
{
    const ma_vrules *r = fs->rules;
    const ma_mover_map *gm = &g->map;
    uint32_t cm[MA_MOVER_MAP_OPS]; /* per op: the compressed image of the mover's points */
    for (int s = 0; s < nops; s++) {
        cm[s] = 0;
        for (uint32_t x = m; x; x &= x - 1)
            cm[s] |= gm->point[s][__builtin_ctz(x)];
    }
    uint32_t removable = 0;
    int have_removable = 0, n = 0;
    t->immediate_wins = 0;
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 0 ? !r->can_place : !r->can_move)
            continue;
        int kind = phase == 0 ? MA_TURN_PLACE : MA_TURN_MOVE;
        int k = phase == 0 ? fs->w + 1 : fs->w; /* the successor's opponent stones */
        uint32_t froms = phase == 0 ? 1u : m;   /* placing: one pass with no stone lifted */
        /* the group's block: loaded once, as the stores to succ might alias it */
        const uint64_t block = gm->block[k];
        for (; froms; froms &= froms - 1, row++) {
            int from = phase == 0 ? -1 : __builtin_ctz(froms);
            uint32_t crest[MA_MOVER_MAP_OPS];
            for (int s = 0; s < nops; s++)
                crest[s] = phase == 0 ? cm[s] : cm[s] & ~gm->point[s][from];
            /* the row's destinations where the opponent leaves them free */
            for (uint32_t dest = row->plain & ~o; dest; dest &= dest - 1) {
                if (n >= MA_VRULES_MAX_TURNS)
                    return MA_EINTERNAL;
                unsigned d = (unsigned)__builtin_ctz(dest);
                uint32_t c = crest[0] | gm->point[0][d];
                for (int s = 1; s < nops; s++) {
                    uint32_t cs = crest[s] | gm->point[s][d];
                    c = cs < c ? cs : c;
                }
                /* no prefetch: these successors share one block of the child, the group's,
                 * which stays in cache while the group is walked (cachegrind: 1.4% of their
                 * reads miss L1 on 4_4 .sec2) */
                succ[n] = block + ma_mover_map_colex(gm, c);
                t->kind[n++] = (uint8_t)kind;
            }
            uint32_t closing = row->closing & ~o;
            if (!closing || !o)
                continue; /* nothing to remove: a closing turn does not exist */
            if (r->mill_wins) {
                t->immediate_wins = 1;
                t->n = n;
                return 0;
            }
            if (!have_removable) {
                removable = ma_vrules_removable(r, o);
                have_removable = 1;
            }
            const uint8_t *cbody = fs->body[kind + 1];
            uint64_t csize = fs->entry_size[kind + 1], centries = fs->entries[kind + 1];
            uint32_t rest = phase == 0 ? m : m & ~(1u << from);
            for (; closing; closing &= closing - 1) {
                uint32_t nm = rest | (closing & (0u - closing));
                for (uint32_t rm = removable; rm; rm &= rm - 1) {
                    if (n >= MA_VRULES_MAX_TURNS)
                        return MA_EINTERNAL;
                    int x = __builtin_ctz(rm);
                    if (!g->removed_made[x]) {
                        (void)fs->fill_map(fs->ix, o & ~(1u << x), &g->removed[x]);
                        g->removed_made[x] = 1;
                    }
                    uint64_t idx = ma_mover_map_rank(
                        &g->removed[x], ma_mover_map_least(&g->removed[x], nm), k);
                    if (cbody && idx < centries)
                        __builtin_prefetch(cbody + idx * csize);
                    succ[n] = idx;
                    t->kind[n++] = (uint8_t)(kind + 1);
                }
            }
        }
    }
    t->n = n;
    return 0;
}

/* The turns of (m, o) as the contract above says. */
static inline int ma_fused_turns(const ma_fused_sector *fs, ma_fused_group *g, uint32_t m,
                                 uint32_t o, const ma_turn_dests *row, ma_vturns *t,
                                 uint64_t *succ)
{
    if (g->map.nops == 1)
        return ma_fused_turns_body(fs, g, m, o, row, t, succ, 1);
    return ma_fused_turns_body(fs, g, m, o, row, t, succ, g->map.nops);
}

#endif
