/*
 * The audit store's side of what a run's claim covers and who vouches for it (schema v10,
 * docs/audit-schema.md, docs/distributed.md "Sealing", docs/attestations.md "Scope"):
 *
 *   - runs.scope: "database" for a run of every sector of a database (no --sector, no --shard; a
 *     merge of a whole-database plan), "sectors" for a run of some of them (--sector picks, one
 *     shard). Runs recorded before v10 get it derived from what they recorded (ma_run_load,
 *     reports/store/runs.h);
 *   - run_seals: a shard run's seal (verify --shard I/N --seal-key K): the SHA-256 of the run's
 *     canonical content (below) and a MAC or signature over it, which `runs merge --seal-key K`
 *     checks before it believes a row of the shard store.
 *
 * The canonical content of a run (ma_audit_run_canonical) is every row of every table a merge
 * reads of that run, in a fixed order and encoding: the run's facts (not its heartbeat, process or
 * continued_by, which change after the run ended), its inventory, partition and plan, every sector
 * result with its class counts, discrepancy rows, inputs, discrepancy sets, derived digests and
 * histograms, and its manifest with every file and chunk. Columns are named, never "SELECT *": a
 * store migrated later (new columns, NULL in old rows) keeps the same content. Values are written
 * as a type letter and the value, texts and blobs with their length first, so no two different
 * contents encode alike.
 *
 * This module knows SQL and the rows only; the digest and the keys are verifier/run/seal.h's.
 */
#ifndef MA_AUDIT_SEAL_H
#define MA_AUDIT_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"

/* The canonical content of run_id (see above), malloc'd in *out (*len bytes; not NUL-terminated).
 * Works on a store opened read-only and on stores of any schema from v9 on (a missing table or
 * column reads as absent). MA_EMISSING for no such run, MA_EIO / MA_EFORMAT on SQLite errors. */
int ma_audit_run_canonical(ma_audit *a, int64_t run_id, char **out, size_t *len, ma_error *err);

/* Whether the canonical content holds a run's rows of table (the runs row itself included): what a
 * sealed merge may believe of that table. */
int ma_audit_seal_covers(const char *table);

/* One seal as recorded. */
typedef struct ma_seal_row {
    char algorithm[16];       /* "hmac-sha256" or "ed25519" */
    char keyid[65];           /* lowercase hex: the key's id (verifier/run/seal.h) */
    char content_sha256[65];  /* SHA-256 of the canonical content when sealed */
    char seal[200];           /* hex of the MAC (64) or of the Ed25519 signature (128) */
    char sealed_at[40];
} ma_seal_row;

/* Records the seal of run_id (replacing one recorded before). One transaction. */
int ma_audit_seal_write(ma_audit *a, int64_t run_id, const ma_seal_row *s, ma_error *err);
/* Reads the seal of run_id: *found = 0 when the run has none (or the store predates v10). */
int ma_audit_seal_read(ma_audit *a, int64_t run_id, ma_seal_row *out, int *found, ma_error *err);

#endif
