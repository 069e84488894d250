/*
 * The audit store's side of a run's coverage proof (schema v7, docs/audit-schema.md,
 * docs/runs.md): the inventory of the database a run was planned from, the plan (every planned
 * sector with its entry count and shard) and both digests, written with the run and read back by
 * a merge (verifier/run/merge.h) or a report.
 *
 * This module knows SQL and the rows only; what the digests are and how an inventory is checked
 * is verifier/run/inventory.h.
 */
#ifndef MA_AUDIT_INVENTORY_H
#define MA_AUDIT_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"

typedef struct ma_inventory_file {
    char name[256];      /* inside the database directory */
    uint64_t size;
    char digest[72];     /* "sha256:<hex>" of the bytes, "sha256:!" (unreadable) or "unusable" */
    char sector[40];     /* "std_3_3_0_0"; "" for a file that is no usable sector file */
} ma_inventory_file;

typedef struct ma_plan_sector {
    char sector[40];
    uint64_t entries;    /* as the partition counts them (verifier/run/shard.h) */
    unsigned shard;      /* 0 without sharding */
} ma_plan_sector;

typedef struct ma_inventory {
    ma_inventory_file *files;     /* by name once sealed or loaded */
    size_t n_files;
    ma_plan_sector *plan;         /* by sector once sealed or loaded */
    size_t n_plan;
    unsigned shard_count;         /* 1 without sharding */
    int whole;                    /* the plan is every sector file of the inventory (no --sector) */
    char inventory_digest[65];    /* filled by ma_inventory_seal (verifier/run/inventory.h) */
    char plan_digest[65];
} ma_inventory;

/* Appends a file / a planned sector (the arrays grow). MA_ENOMEM. */
int ma_inventory_add_file(ma_inventory *inv, const ma_inventory_file *f, ma_error *err);
int ma_inventory_add_plan(ma_inventory *inv, const ma_plan_sector *p, ma_error *err);
void ma_inventory_free(ma_inventory *inv);

/* Records inv as run_id's inventory and plan (rows and digests). Inside the caller's transaction
 * when in_tx, else in one of its own. MA_EIO when the store cannot be written. */
int ma_audit_inventory_write(ma_audit *a, int64_t run_id, const ma_inventory *inv, int in_tx, ma_error *err);

/* Reads run_id's inventory and plan in name order. *recorded 0 (and inv empty) when the run
 * recorded none (a run made before schema v7). MA_EFORMAT / MA_EIO when the store cannot be read,
 * MA_ENOMEM. */
int ma_audit_inventory_read(ma_audit *a, int64_t run_id, ma_inventory *inv, int *recorded, ma_error *err);

#endif
