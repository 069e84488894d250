/* verifier/run/run_peak: the most memory a verify task holds, from the run's own plan
 * (ma_shard_peaks, verifier/run/shard.h; docs/distributed.md "Memory per task"). The files mapped
 * at once follow from the order the run checks its units in and from when it releases a file
 * (after the last unit that reads it, run.c), so the peak is computed by planning the shard
 * exactly as `verify --shard I/N` does (ma_vr_plan) and walking its units: no second copy of the
 * order to drift from the first. */
#include "verifier/run/run_internal.h"

#include <stdlib.h>
#include <string.h>

#include "checksums/private_read.h"
#include "verifier/check/memory.h"
#include "verifier/run/shard.h"

/* The private memory of node m's check (verifier/check/memory.h), from the files' sizes. */
static uint64_t private_of(const ma_vrun *r, const uint64_t *size, int m, int files_private)
{
    const node *nd = &r->nodes[m];
    ma_check_memory_in in;
    memset(&in, 0, sizeof in);
    in.files_private = files_private;
    in.format = ma_database_format(r->db);
    in.entries = ma_vr_entries_estimate(nd, in.format);
    in.self_file = size[m];
    for (int k = 0; k < MA_TURN_KINDS; k++) {
        int c = nd->succ[k], dup = c < 0;
        for (int j = 0; j < k && !dup; j++)
            dup = nd->succ[j] == c;
        if (c == m)
            in.self_is_child = 1;
        else if (!dup)
            in.child_file[k] = size[c];
    }
    return ma_check_private_bytes(&in);
}

/* Fills peak[i] for every database sector i the plan of shard `shard` checks. */
static int shard_peaks(ma_database *db, unsigned n_shards, unsigned shard, uint64_t *peak, ma_error *err)
{
    ma_vrun *r = calloc(1, sizeof *r);
    if (!r)
        return ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    r->db = db;
    r->resident_budget = MA_WALK_RESIDENT_BUDGET; /* a host with room for it, wherever planned */
    r->opt.shard_count = n_shards;
    r->opt.shard_index = shard;
    int rc = ma_vr_plan(r, err);
    uint64_t *size = rc ? NULL : calloc(r->n_nodes ? r->n_nodes : 1, sizeof *size);
    char *live = rc ? NULL : calloc(r->n_nodes ? r->n_nodes : 1, 1); /* 1 mapped, 2 read privately */
    int *which = rc ? NULL : malloc((r->n_nodes ? r->n_nodes : 1) * (1 + MA_TURN_KINDS) * sizeof *which);
    if (!rc && (!size || !live || !which))
        rc = ma_error_set(err, MA_ENOMEM, "shards: out of memory");
    for (size_t i = 0; !rc && i < r->n_nodes; i++)
        size[i] = ma_shard_file_bytes(r->nodes[i].dbs);
    for (size_t first = 0; !rc && first < r->n_order;) {
        size_t last = first;
        while (last < r->n_order && r->unit_of_pos[last] == r->unit_of_pos[first])
            last++;
        /* the unit reads its sectors' files and their successors' privately when they total at
         * most the budget (ma_vr_unit_private, the run's own rule; a file mapped before is
         * released then): each holds what ma_private_held says (whole 2 MiB pages from one huge
         * page up, ordinary pages below), and no check copies them. Else it maps them, beside
         * every file an earlier unit mapped that a later one still reads (run_unit.c) */
        size_t m;
        int priv = ma_vr_unit_private(r, first, last, 0, which, &m);
        for (size_t k = 0; k < m; k++)
            live[which[k]] = priv ? 2 : 1;
        uint64_t held = 0;
        for (size_t i = 0; i < r->n_nodes; i++)
            held += live[i] == 2 ? ma_private_held(size[i]) : live[i] ? size[i] : 0;
        /* the unit's sectors are checked one at a time: one check's private memory at once */
        for (size_t p = first; p < last; p++) {
            const node *nd = &r->nodes[r->order[p]];
            if (nd->dbs) /* a node of the plan is a sector of the database: its index, not a search */
                peak[nd->dbs - ma_database_sector(db, 0)] =
                    held + private_of(r, size, r->order[p], priv) + MA_CHECK_FIXED_BYTES;
        }
        int unit = r->unit_of_pos[first];
        for (size_t i = 0; i < r->n_nodes; i++)
            if (r->nodes[i].last_use == unit || live[i] == 2)
                live[i] = 0; /* unmapped, or freed (ma_vr_unit_release) */
        first = last;
    }
    free(size);
    free(live);
    free(which);
    r->db = NULL; /* the caller's */
    ma_vrun_free(r);
    return rc;
}

int ma_shard_peaks(ma_database *db, unsigned n_shards, uint64_t *peak, ma_error *err)
{
    int rc = MA_OK;
    for (unsigned s = 0; rc == MA_OK && s < n_shards; s++)
        rc = shard_peaks(db, n_shards, s, peak, err);
    return rc;
}
