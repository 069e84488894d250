/*
 * verifier/run/seal: a run's store sealed with a key, and the seal checked (docs/distributed.md "Sealing").
 *
 * The seal of a run is a MAC or signature (checksums/seal.h) over the SHA-256 of the run's
 * canonical content (reports/store/audit_seal.h: its facts, inventory, partition, plan, every sector row
 * with its class counts, discrepancy rows, inputs, sets, digests and histograms, and its manifest).
 * `verify --shard I/N --seal-key K` seals its run when it ends (whatever its verdict, also when
 * interrupted); `runs merge --seal-key K` believes a shard store only when its seal verifies with K
 * over the content as the merge reads it: any row changed, added or removed after the run sealed
 * it, by sqlite3 or by a program that recomputed every digest, makes the seal fail.
 */
#ifndef MA_RUN_SEAL_H
#define MA_RUN_SEAL_H

#include <stdint.h>

#include "checksums/seal.h"
#include "common/ma_error.h"
#include "reports/store/audit.h"

/* SHA-256 of the canonical content of run_id. */
int ma_run_content_digest(ma_audit *a, int64_t run_id, uint8_t out[32], ma_error *err);

/* Seals run_id with k (which must be able to seal) and records the seal in the run's store.
 * Errors: MA_EINVAL for a key that cannot seal, the store's errors (MA_EIO: the record is
 * incomplete). */
int ma_run_seal(ma_audit *a, int64_t run_id, const ma_seal_key *k, ma_error *err);

/* Checks the seal of run_id with k: MA_OK, or MA_EFORMAT with a one-line message naming what
 * (store: the store's path, for messages) when the run carries no seal, a seal of another key or
 * algorithm, or a seal that does not verify over its content as it is now (the store was changed
 * after the run sealed it). sealed_by receives the key id (65 bytes). */
int ma_run_seal_check(ma_audit *a, int64_t run_id, const ma_seal_key *k, const char *store, char *sealed_by,
                      ma_error *err);

#endif
