/*
 * Manifest tables of the audit store (schema version 2, docs/audit-schema.md): which bytes a run
 * saw, as per-file and per-chunk SHA-256 digests with the provenance the file itself states.
 *
 * Writers follow reports/store/audit.h: one transaction per call, MA_EINVAL for a row the schema refuses
 * (unknown run, the same path twice in one run), MA_EIO when SQLite cannot write. This module knows
 * SQL only; hashing is checksums/sha256.h, and what provenance a file states is read by the manifest
 * engine (verifier/run/manifest_record.h) and handed in as the row's fields.
 */
#ifndef MA_AUDIT_MANIFEST_H
#define MA_AUDIT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"

/* One file of a manifest. Strings may be NULL where marked "or NULL". */
typedef struct ma_audit_manifest_file {
    const char *path;                 /* relative to the manifest's directory, as in its line */
    uint64_t size;                    /* bytes hashed */
    const uint8_t *sha256;            /* 32-byte whole-file digest */
    uint64_t chunk_size;              /* chunk size of chunks[] */
    size_t n_chunks;                  /* ceil(size / chunk_size) */
    const uint8_t (*chunks)[32];      /* per-chunk digests, in order */
    const char *variant;              /* "std"/"lask"/"mora" or NULL */
    const char *format;               /* "open", "malom-sec2", "malom-sec", "malom-secval" or NULL */
    const char *sector;               /* "std_3_3_0_0" or NULL */
    const char *producer;             /* open header producer name or NULL */
    const char *producer_version;     /* open header producer version or NULL */
    int has_entries;                  /* non-zero: entries is known */
    uint64_t entries;                 /* entry count from the file header */
    const char *ruleset_fingerprint;  /* 64 hex or NULL (docs/manifest.md) */
} ma_audit_manifest_file;

/* Records that run_id has a manifest (manifest_path may be NULL) hashed with chunk_size. Calling it
 * again for the same run keeps the first row, so a verifier may call it once per batch. */
int ma_audit_manifest_begin(ma_audit *a, int64_t run_id, const char *manifest_path, uint64_t chunk_size,
                            ma_error *err);

/* Records one file and all its chunk digests in one transaction (joining the caller's when one is
 * open, e.g. ma_audit_write_tx: the caller then commits or rolls back). */
int ma_audit_manifest_file_add(ma_audit *a, int64_t run_id, const ma_audit_manifest_file *f, ma_error *err);

/* Records a whole manifest run in one transaction (manifest merge --audit): a runs row from info
 * (status ok), a manifests row (manifest_path or NULL, chunk_size) and files[0..n) with their
 * chunk rows. A failure leaves the store as it was. *run_id is the new run. Errors as
 * ma_audit_manifest_file_add. */
int ma_audit_manifest_record_run(ma_audit *a, const ma_run_info *info, const char *manifest_path,
                                 uint64_t chunk_size, const ma_audit_manifest_file *files, size_t n,
                                 int64_t *run_id, ma_error *err);

/* Chunk digests found for a file (see ma_audit_manifest_chunks_find). Release with
 * ma_audit_chunks_free. */
typedef struct ma_audit_chunks {
    int64_t run_id;               /* the run they come from */
    uint64_t size;                /* file size then */
    uint64_t chunk_size;          /* chunk size then */
    size_t n_chunks;              /* rows found (equals ceil(size / chunk_size)) */
    uint8_t (*chunks)[32];        /* digests by chunk number */
} ma_audit_chunks;

/* Finds the most recent run that recorded `path` with whole-file digest `sha256` and its chunk
 * digests (runs that recorded the file without chunk rows, as manifest merge --audit does, are
 * passed over; an empty file needs none) and returns those chunk digests. MA_OK when found, MA_EMISSING when no run recorded that path with that digest,
 * MA_EFORMAT when the rows are inconsistent (missing chunks, bad hex), MA_EIO on SQLite errors.
 * Works on a read-only handle. */
int ma_audit_manifest_chunks_find(ma_audit *a, ma_audit_chunks *out, const char *path,
                                  const uint8_t sha256[32], ma_error *err);
void ma_audit_chunks_free(ma_audit_chunks *c);

#endif
