/*
 * Recording a manifest in the audit store: the digests of files (checksums/sha256.h) with the
 * provenance each file states about itself (verifier/formats/provenance.h), as rows of
 * reports/store/audit_manifest.h. This is where the three meet, so checksums/ stays a leaf (common/ only),
 * reports/store/ knows SQL only and verifier/formats/ knows no store.
 *
 * The ruleset fingerprint recorded per file is the SHA-256 of the ruleset string its provenance
 * states (docs/manifest.md "Provenance").
 */
#ifndef MA_RUN_MANIFEST_RECORD_H
#define MA_RUN_MANIFEST_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "checksums/manifest.h"
#include "checksums/sha256.h"
#include "common/ma_error.h"
#include "reports/store/audit.h"

/* Records into the open store a, for run run_id, the digests d of the file root/rel (rel as the
 * manifest names it) with the provenance the file states: one manifest_files row and its
 * manifest_chunks rows, in one transaction. Also creates the run's `manifests` row (manifest path
 * NULL, d->chunk_size) if it has none. For the verifier: pass the digests of the very bytes it
 * verified. Errors as ma_audit_manifest_file_add (MA_EINVAL for an unknown run or a path recorded
 * twice in the run, MA_EIO). */
int ma_manifest_record_digests(ma_audit *a, int64_t run_id, const char *root, const char *rel,
                               const ma_file_digest *d, ma_error *err);

/* Hashes root/rel[i] for i < n (options opt) and records each as ma_manifest_record_digests does.
 * Stops at the first file that cannot be hashed (its error: MA_EMISSING, MA_EIO with path and
 * offset) or recorded; files recorded before stay recorded. */
int ma_manifest_record(ma_audit *a, int64_t run_id, const char *root, const char *const *rel, size_t n,
                       const ma_sha256_options *opt, ma_error *err);

/* The variant and format of a manifest run: those the files root/rel[0..n) state, when they all
 * agree; "" otherwise (or when none states one). */
int ma_manifest_run_provenance(char variant[8], char format[16], const char *root, const char *const *rel,
                               size_t n, ma_error *err);

/* Records the merged manifest m, written at manifest_path (NULL for standard output), as one
 * manifest run in the open store a (manifest merge --audit, docs/manifest.md): a runs row from
 * info (kind "manifest", status ok; its variant and format replaced by those the files state when
 * they all agree, as manifest create does), a manifests row and one manifest_files row per path
 * with size sizes[i] (ma_manifest_merged_sizes) and the provenance root/path states. The digests
 * are the shards' (never re-hashed). No manifest_chunks rows: shard manifests carry no chunk
 * digests (the manifests and manifest_files rows keep chunk_size MA_SHA256_DEFAULT_CHUNK because
 * the columns are NOT NULL). All in one transaction: a failure leaves the store as it was.
 * *run_id is the new run. Errors MA_EIO (SQLite), MA_EINVAL (the store refuses a row), MA_ENOMEM. */
int ma_manifest_record_merged(ma_audit *a, const ma_run_info *info, const char *manifest_path, const char *root,
                              const ma_manifest_merged *m, const uint64_t *sizes, int64_t *run_id, ma_error *err);

#endif
