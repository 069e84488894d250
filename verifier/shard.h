/*
 * verifier/shard: a deterministic partition of a database's sectors into N shards balanced by
 * cost, so N processes on N machines agree on who checks what without talking (docs/runs.md,
 * docs/distributed.md).
 *
 * Cost of a sector: its entries (the file's entry count for the open format, Malom's hash_count
 * for .sec2/.sec), times 3 for a flying sector of the movement phase (every empty point is a
 * destination, so its turns fan out about three times wider). The partition is greedy
 * longest-processing-time: sectors by cost descending (names break ties), each to the shard with the
 * least cost so far (the lowest index breaks ties). It depends only on the sector names and entry
 * counts: the same on every machine, whatever the directory order.
 */
#ifndef MA_VERIFIER_SHARD_H
#define MA_VERIFIER_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/position.h"

typedef struct ma_shard_item {
    ma_variant variant;
    ma_sector sector;
    const char *name;    /* "std_3_3_0_0": the tie-break */
    uint64_t entries;
    double cost;         /* filled by ma_shard_cost */
    unsigned shard;      /* filled by ma_shard_partition */
} ma_shard_item;

/* The cost of a sector of `entries` entries (see the top of this file). */
double ma_shard_cost(ma_variant v, ma_sector s, uint64_t entries);

/* Assigns items[i].shard for n_shards >= 1 (fills cost too). Errors: MA_EINVAL (n_shards 0),
 * MA_ENOMEM. */
int ma_shard_partition(ma_shard_item *items, size_t n, unsigned n_shards, ma_error *err);

#endif
