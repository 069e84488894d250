/*
 * verifier/run/shard: a deterministic partition of a database's sectors into N shards balanced by
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
#include "verifier/formats/source.h"
#include "indexer/position.h"
#include "millaudit/verify.h"

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

/* The plan of a whole database (ma_shard_plan, public: include/millaudit/verify.h) from an open
 * database. */
/* Plans the whole database db in n_shards shards. Errors: MA_EINVAL (n_shards 0), MA_ENOMEM. */
int ma_shard_plan_database(ma_database *db, unsigned n_shards, ma_shard_plan *out, ma_error *err);

/* The most memory each sector's task holds while it checks that sector, in bytes, into peak[i]
 * for sector i of db (docs/distributed.md "Memory per task"): the files mapped at that moment
 * (the sector's unit's files and their successors', and every file an earlier unit of the shard
 * mapped that a later one still reads, in the order `verify --shard I/N` checks them), plus the
 * check's private memory (verifier/check/memory.h) and MA_CHECK_FIXED_BYTES for the process.
 * Computed from the run's own plan (run_peak.c). Not counted: discrepancy sets (8 bytes per
 * discrepancy found). Errors: MA_ENOMEM. */
int ma_shard_peaks(ma_database *db, unsigned n_shards, uint64_t *peak, ma_error *err);

/* The shard of every file of a database directory, for `manifest create DIR --shard I/N`
 * (docs/distributed.md): rel[i] (a path relative to db's root, as checksums/manifest.h lists it)
 * that is a sector file of db (its file name, in the root) gets that sector's shard in
 * ma_shard_plan_database(db, n_shards): the shard `verify DIR --shard I/N` checks it in. Every
 * other path (the .secval beside Malom files, unusable files, anything in a subdirectory) gets shard
 * 0. Errors: MA_EINVAL (n_shards 0), MA_ENOMEM. */
int ma_shard_of_files(ma_database *db, unsigned n_shards, const char *const *rel, size_t n, unsigned *shard_of,
                      ma_error *err);

/* The size of sector s's file in bytes (0: no sector, or its file cannot be stat'ed now). */
uint64_t ma_shard_file_bytes(const ma_db_sector *s);

#endif
