/*
 * One audit run as a value (docs/reproducibility.md): load it from a store, export it as a JSON
 * document, import such a document into another store as a new run, and compare two runs.
 *
 * A loaded ma_run owns every string; NULL strings mean SQL NULL ("not known"). The export document
 * ("format": "millaudit-run", "schema_version": 1, "version": 1; docs/json/runs-export.schema.json)
 * has a fixed key order, so two exports of equal runs are byte-identical; import also accepts
 * documents written before schema_version was added. Import validates the whole document before it writes anything and writes the run
 * in one transaction, keeping the run's original facts (times, host, tool version) and recording
 * where it came from in run_imports.
 *
 * Compare is per sector: same bytes (manifest_files digests, matched by sector, else by path)? same
 * derived values (sector_digests.derived_sha256)? present on both sides?
 *
 * Also the writers of the schema v3 columns the verifier fills: the derived-value digest
 * (checksums/derived_digest.h) and the outcome/depth histogram of a sector already recorded with
 * ma_audit_sector_record. One transaction per call, MA_EINVAL for an unknown verifier/run/sector.
 */
#ifndef MA_RUNS_H
#define MA_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"

#define MA_RUN_EXPORT_FORMAT "millaudit-run"
#define MA_RUN_EXPORT_VERSION 1

typedef struct ma_run_class {
    char *cls;
    int64_t count;
} ma_run_class;

typedef struct ma_run_bin {
    char *outcome;  /* "win", "loss", "draw" */
    int64_t depth;  /* plies (0 for a draw) */
    int64_t count;  /* positions */
} ma_run_bin;

typedef struct ma_run_sector {
    char *sector, *file, *status, *message;
    int64_t entries, checked, verified, within_bounds, discrepancies;
    double seconds;
    char *derived_sha256;       /* NULL when the run recorded no digest */
    int has_derived_positions;
    int64_t derived_positions;
    ma_run_class *classes;      /* sorted by class name */
    size_t n_classes;
    ma_run_bin *bins;           /* sorted by outcome, depth */
    size_t n_bins;
    /* v4 (not part of the export document): the split of the discrepancies, and the sectors the
     * result was computed from (sector_inputs: the successor sectors' file names without their
     * extension, the sector itself left out). has_split / has_successors 0: not recorded. */
    int has_split;
    int64_t roots, propagated;
    int has_successors;
    char **successors;
    size_t n_successors;
    /* v4: the sector's first root discrepancy as recorded (rows are kept roots first), the place a
     * reader starts from; first_root.board NULL: none recorded. */
    struct ma_run_first_root {
        int64_t entry;
        char *board, *stored, *derived, *move;
    } first_root;
} ma_run_sector;

typedef struct ma_run_discrepancy {
    char *sector, *board, *stored, *derived, *cls;
    int64_t entry;
} ma_run_discrepancy;

typedef struct ma_run_chunk {
    int64_t chunk, offset, length;
    char *sha256;
} ma_run_chunk;

typedef struct ma_run_file {
    char *path, *sha256, *variant, *format, *sector, *producer, *producer_version, *ruleset_fingerprint;
    int64_t size, chunk_size;
    int has_entries;
    int64_t entries;
    ma_run_chunk *chunks;
    size_t n_chunks;
} ma_run_file;

/* A shard a merged run was made of (table run_shards, docs/distributed.md). */
typedef struct ma_run_shard {
    int64_t shard_index, shard_count, source_run_id, sectors;
    int64_t planned_sectors;    /* -1: not recorded */
    char *source, *host, *command_line, *started_at, *ended_at, *status, *git_revision;
    char *sealed_by;            /* v10: the key id its seal verified with at the merge; NULL: unsealed */
} ma_run_shard;

typedef struct ma_run {
    int64_t id;
    char *kind, *tool_version, *git_revision, *host, *command_line, *database_root, *variant, *format;
    char *started_at, *ended_at, *status;
    /* What the run's verdict is about (docs/runs.md "Scope"): "database" (every sector of the
     * database: no --sector, no --shard; a merge of a whole-database plan) or "sectors" (some of
     * them); NULL for runs of other kinds. Recorded since schema v10; derived for older runs and
     * imported exports from what they recorded (a shard or named sectors are "sectors"; without
     * those facts: "database" only when every file the run read that names a sector was checked). */
    char *scope;
    int has_manifest;           /* a manifests row exists */
    char *manifest_path;
    int64_t manifest_chunk_size;
    ma_run_file *files;         /* sorted by path */
    size_t n_files;
    ma_run_sector *sectors;     /* sorted by sector */
    size_t n_sectors;
    ma_run_discrepancy *disc;   /* sorted by sector, entry */
    size_t n_disc;
    int imported;               /* a run_imports row exists */
    char *import_source, *imported_at;
    int64_t import_source_run_id, import_export_version;
    ma_run_shard *shards;       /* a merged run's shards, by index (none for other runs) */
    size_t n_shards;
    /* imported from a signed attestation (table run_attestations, schema v7, docs/attestations.md):
     * the signer's key, the identity it claims, the SHA-256 of the envelope file. Not part of the
     * export document: an attestation is re-exported by signing again. */
    int attested;
    char *attest_keyid, *attest_identity, *attest_envelope_sha256;
} ma_run;

/* The id of the newest run. MA_EMISSING when the store has no run. */
int ma_runs_latest(ma_audit *a, int64_t *id, ma_error *err);
/* Loads run id completely. MA_EMISSING when there is no such run, MA_EFORMAT for rows that break the
 * schema, MA_EIO on SQLite errors. out is zeroed first; free with ma_run_free (also after errors). */
int ma_run_load(ma_audit *a, int64_t id, ma_run *out, ma_error *err);
void ma_run_free(ma_run *r);

/* The export document, malloc'd, NUL-terminated, ending in a newline. */
int ma_run_to_json(const ma_run *r, char **out, ma_error *err);
/* Parses and validates an export document (name is used in messages). Every key is checked:
 * unknown keys, wrong types, bad digests, negative counts, a foreign "format" or another "version"
 * are MA_EFORMAT with a one-line message naming name and the offending key. */
int ma_run_from_json(ma_run *out, const char *text, size_t len, const char *name, ma_error *err);
/* Writes r into a as a new run (new id in *new_id) in one transaction; source names the document.
 * With r->attested, the run_attestations row is written in the same transaction. */
int ma_run_import(ma_audit *a, const ma_run *r, const char *source, int64_t *new_id, ma_error *err);

/* ---- compare ---- */

enum { MA_CMP_UNKNOWN = 0, MA_CMP_SAME = 1, MA_CMP_DIFFER = 2 };

typedef struct ma_run_cmp_row {
    const char *name;        /* sector name, or file path for files without a sector */
    int is_file;             /* a manifest file that names no sector */
    int in_a, in_b;          /* present on each side */
    int bytes;               /* MA_CMP_*: whole-file digests */
    int values;              /* MA_CMP_*: derived digests */
    const char *how;         /* "same", "bytes only", "values", "bytes and values", "missing in A",
                              * "missing in B", "not comparable" */
} ma_run_cmp_row;

typedef struct ma_run_cmp {
    ma_run_cmp_row *rows;    /* sorted by name; names point into the runs compared */
    size_t n_rows;
    size_t n_differ, n_same, n_unknown;
} ma_run_cmp;

/* Compares a and b (they must outlive out). Errors: MA_ENOMEM. */
int ma_run_compare(ma_run_cmp *out, const ma_run *a, const ma_run *b, ma_error *err);
void ma_run_cmp_free(ma_run_cmp *c);

/* ---- writers of schema v3 (for the verifier) ---- */

/* Sets (or replaces) the derived-value digest (64 lowercase hex) and the number of positions it
 * covers for a sector recorded before with ma_audit_sector_record (table sector_digests). */
int ma_audit_sector_digest_set(ma_audit *a, int64_t run_id, const char *sector, const char *hex,
                               uint64_t positions, ma_error *err);

typedef struct ma_histogram_bin {
    const char *outcome; /* "win", "loss", "draw" */
    uint32_t depth;      /* 0 for a draw */
    uint64_t count;
} ma_histogram_bin;

/* Records the outcome/depth histogram of a recorded sector (bins with count 0 may be left out). */
int ma_audit_sector_histogram_set(ma_audit *a, int64_t run_id, const char *sector, const ma_histogram_bin *bins,
                                  size_t n, ma_error *err);

#endif
