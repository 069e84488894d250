/*
 * attest_statement: the in-toto Statement (v1) of a verification attestation
 * (docs/attestations.md): what a run of the audit store established, as a value, its JSON, and
 * the run an imported attestation becomes.
 *
 * A statement says: these bytes (subjects: every file the run recorded a digest for, named
 * relative to the database root, with the SHA-256 the run recorded for the bytes it checked, never
 * re-hashed from the disk) were checked by this tool (name, version, git revision) under these
 * rules (fingerprint and description) and index scheme, with this verdict, these totals, options,
 * times, manifest digest and derived-value digests.
 *
 * ma_attest_statement_load fills the run's part from a store: subjects from manifest_files (each
 * sector_inputs digest of the run must agree with them, else MA_EFORMAT: the store contradicts
 * itself), the verdict as `report` decides it (reports/store/report.h), the sectors with their derived
 * digests. The caller fills what the store does not know (tool, rules, index scheme, manifest
 * digest, signer identity, time of attestation) before ma_attest_statement_to_json.
 *
 * ma_attest_statement_parse is strict: the statement type, the predicate type, every member's type,
 * subject names (relative, no "..", no duplicates), 64-hex digests; MA_EFORMAT with a one-line
 * message that starts with name and names the member. Unknown members are ignored (a newer
 * predicate may add some). All strings are malloc'd; NULL means JSON null / not recorded; -1 in an
 * integer means null.
 */
#ifndef MA_ATTEST_STATEMENT_H
#define MA_ATTEST_STATEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"
#include "reports/store/runs.h"

#define MA_INTOTO_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define MA_INTOTO_PAYLOAD_TYPE "application/vnd.in-toto+json"
#define MA_ATTEST_PREDICATE_TYPE "https://millaudit.dev/attestation/verification/v1"

typedef struct ma_attest_subject {
    char *name;       /* relative to the database root */
    char *sha256;     /* 64 lowercase hex */
    int64_t size;     /* bytes; -1 when not stated */
    char *sector;     /* "std_3_3_0_0" when the file states one, else NULL */
    char *format;     /* "open", "malom-sec2", ... or NULL */
} ma_attest_subject;

typedef struct ma_attest_sector {
    char *sector, *status;
    int64_t entries, checked, verified, within_bounds, discrepancies;
    char *derived_sha256;       /* NULL: no derived digest recorded */
    int64_t derived_positions;  /* -1 with no digest */
} ma_attest_sector;

typedef struct ma_attest_statement {
    ma_attest_subject *subjects; /* sorted by name */
    size_t n_subjects;
    /* predicate.verifier: the build that ran the check (the run's own record) */
    char *tool_name, *tool_version, *git_revision;
    /* predicate.attester: the build that made the statement (may differ from the verifier) */
    char *attester_version, *attester_git_revision;
    /* predicate.signer and time of signing */
    char *identity, *attested_at;
    /* predicate.rules */
    char *variant, *rules_fingerprint, *rules_description;
    /* predicate.database */
    char *database_root, *format, *index_scheme;
    int64_t index_scheme_version, format_version;
    /* predicate.run */
    int64_t run_id;
    char *kind, *mode, *status, *verdict, *verdict_text, *host, *command_line, *options, *started_at, *ended_at;
    /* options: the run's options as JSON text (an object), NULL when not recorded */
    /* predicate.totals */
    int64_t sectors, entries, checked, verified, within_bounds, discrepancies;
    /* predicate.manifest */
    char *manifest_sha256;
    int64_t chunk_size, manifest_files;
    /* predicate.sectors */
    ma_attest_sector *sector_rows; /* sorted by sector */
    size_t n_sector_rows;
} ma_attest_statement;

/* The run's part of the statement of run id (0: the newest) in a. Errors as ma_run_load, and
 * MA_EINVAL for a run that recorded no file digests (nothing to attest). out is zeroed first; free
 * with ma_attest_statement_free also after errors. */
int ma_attest_statement_load(ma_audit *a, int64_t id, ma_attest_statement *out, ma_error *err);

/* The statement as JSON (compact, fixed member order, no trailing newline), malloc'd. */
int ma_attest_statement_to_json(const ma_attest_statement *st, char **out, size_t *len, ma_error *err);

/* Parses and validates a statement; see above. */
int ma_attest_statement_parse(const char *text, size_t len, const char *name, ma_attest_statement *out,
                              ma_error *err);

/* The run an imported attestation becomes (kind, facts, sectors with derived digests, manifest
 * files from the subjects); out is zeroed first, free with ma_run_free. The caller sets the
 * attestation fields (keyid, identity, envelope digest). */
int ma_attest_statement_to_run(const ma_attest_statement *st, ma_run *out, ma_error *err);

void ma_attest_statement_free(ma_attest_statement *st);

#endif
