/*
 * verifier/run/inventory: what a recorded run was planned from, so that "verified" can be proven to
 * cover every sector of a database (docs/runs.md "The coverage proof", docs/distributed.md).
 *
 * The inventory is every file of the database a run saw when it planned: each sector file (its
 * name, size and "sha256:<hex>", the SHA-256 of the whole file as it was read when the run
 * hashed), each file discovery could not use ("unusable"), and the .secval files a .sec2 database
 * is read with. The digest is always of the bytes, never the body digest an open-format header
 * claims: a file rewritten with a stale header (a solver that crashed mid-write, a bit flip) keeps
 * its claim, and shards planned before and after such a change must not read as one database. The plan is the set of
 * sectors the run partitioned (the whole database, or the --sector picks) with each sector's
 * entry count as the partition counts it and the shard it falls in (0 without sharding).
 *
 * Both have a digest: SHA-256 of a canonical text of the rows (sorted by name, one line each), so
 * two runs planned from the same files and the same partition have equal digests, and a row that
 * was changed in a store after the run no longer hashes to the digest recorded with it. A shard
 * recomputes nothing it is given: the merge checks the rows against their digests, the partition
 * against ma_shard_partition of the plan's rows, and the shards' inventories against each other.
 */
#ifndef MA_VERIFIER_INVENTORY_H
#define MA_VERIFIER_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit_inventory.h"

/* Sorts the rows by name and computes both digests (the plan's covers the inventory's digest,
 * the shard count and whether the plan is whole, then every planned sector). Returns 0, or -1 out
 * of memory: the digests are then not the rows' and must not be recorded (the run stops). */
int ma_inventory_seal(ma_inventory *inv);

/* The first difference between two inventories, as one phrase naming the file ("std_0_1_4_3.mdb
 * is in A's inventory (size 6144, sha256:ab12...) but not in B's"), written into out with the labels
 * a and b; returns 0 when they are equal (same files, sizes, digests and sectors). */
int ma_inventory_diff(const ma_inventory *x, const char *a, const ma_inventory *y, const char *b, char *out,
                      size_t len);

/* Checks that the recorded digests are those of the rows (run after loading an inventory from a
 * store), that a whole plan is exactly the inventory's sector files, and that every planned sector
 * is in the shard ma_shard_partition gives it. MA_EFORMAT naming the sector or field otherwise
 * (prefixed by what, e.g. the store and run); MA_ENOMEM. */
int ma_inventory_verify(const ma_inventory *inv, const char *what, ma_error *err);

/* The planned sector of that name, or NULL (binary search: the inventory must be sealed or
 * loaded in name order). Likewise the inventory file of a sector. */
const ma_plan_sector *ma_inventory_planned(const ma_inventory *inv, const char *sector);
const ma_inventory_file *ma_inventory_file_of(const ma_inventory *inv, const char *sector);

#endif
