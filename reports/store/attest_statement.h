/*
 * attest_statement: the in-toto Statement (v1) of a verification attestation
 * (docs/attestations.md): what a run of the audit store established, as a value, its JSON, and
 * the run an imported attestation becomes.
 *
 * A statement says: these bytes (subjects: the files the run checked, named relative to the
 * database root, with the SHA-256 the run recorded for the bytes it checked, never re-hashed from
 * the disk) were checked by this tool (name, version, git revision) under these rules (fingerprint
 * and description) and index scheme, with this verdict, these totals, options, times, manifest
 * digest and derived-value digests; and its scope (docs/attestations.md "Scope"): "database" (the
 * run checked every sector of the database: every file it read is a subject) or "sectors" (a
 * --sector or --shard run: the subjects are the files of the sectors it checked, and the files it
 * read but did not check, successor sectors of other shards or outside the picks and a .secval, are
 * its inputs, with their digests: it proves its sectors *given* those inputs, never the inputs).
 *
 * ma_attest_statement_load fills the run's part from a store: subjects and inputs from
 * manifest_files (each sector_inputs digest of the run must agree with them, else MA_EFORMAT: the
 * store contradicts itself), the scope the run recorded (reports/store/runs.h), the verdict as `report`
 * decides it (reports/store/report.h), the sectors with their derived digests. The caller fills what the
 * store does not know (tool, rules, index scheme, manifest digest, signer identity, time of
 * attestation) before ma_attest_statement_to_json.
 *
 * ma_attest_statement_parse is strict: the statement type, the predicate type (v3, or an earlier
 * build's v2 or v1), every member's type,
 * subject and input names (relative, no "..", no duplicates, none both), 64-hex digests; MA_EFORMAT
 * with a one-line message that starts with name and names the member. Unknown members are ignored
 * (a newer predicate of the same type may add some). Predicate v1 (before scope existed) is read
 * too: its scope is derived ("sectors" for a shard run's options or when a subject names a sector
 * the statement does not list, whose files then become its inputs; else "database"). All strings
 * are malloc'd; NULL means JSON null / not recorded; -1 in an integer means null.
 *
 * ma_attest_statement_check refuses a statement that contradicts itself (MA_EFORMAT): totals that
 * are not the sums of its sectors, a sector whose status its counts deny, a scope its subjects and
 * inputs deny, or a verdict that claims more than its own totals and sector states give (an
 * interrupted run re-signed as "verified").
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
/* The predicate type (docs/attestations.md "Predicate type"): a UUID URN (RFC 9562, a registered URN
 * namespace) names it because the project owns no domain, and a URL under a domain it does not own
 * could come to mean something else; one UUID per major version. v3 = v2's members. */
#define MA_ATTEST_PREDICATE_TYPE "urn:uuid:825d8e1c-12eb-4401-bf9d-454d46ff51d2"
/* statements made by earlier builds (read, never written): v2 stated the scope, v1 did not */
#define MA_ATTEST_PREDICATE_TYPE_V2 "https://millaudit.dev/attestation/verification/v2"
#define MA_ATTEST_PREDICATE_TYPE_V1 "https://millaudit.dev/attestation/verification/v1"
/* SLSA's Verification Summary Attestation v1 (https://slsa.dev/spec/v1.0/verification_summary) */
#define MA_SLSA_VSA_TYPE "https://slsa.dev/verification_summary/v1"
/* the VSA's default verifier.id: millaudit as the verifier (the same kind of name as above) */
#define MA_ATTEST_VERIFIER_ID "urn:uuid:1785f6fb-60a6-448b-807e-80bb88b42cec"

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
    ma_attest_subject *subjects; /* sorted by name: the files the run checked */
    size_t n_subjects;
    /* predicate.scope and predicate.inputs: "database" or "sectors"; the files read but not
     * checked (sorted by name; none for "database") */
    char *scope;
    ma_attest_subject *inputs;
    size_t n_inputs;
    int predicate_version;       /* 1 or 2 (parsed); 2 when loaded from a store */
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
    /* a merged run: the key id every shard's seal verified with at the merge (docs/distributed.md
     * "Sealing"); NULL for other runs and for a merge that trusted its shard stores as written
     * (merge_unsealed then counts the shards it did not check) */
    char *sealed_by;
    int64_t merge_unsealed;
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

/* A SLSA Verification Summary Attestation (v1) of what statement st states, for policy engines that
 * read VSAs: the same subjects; verifier.id (NULL: MA_ATTEST_VERIFIER_ID) and version; timeVerified
 * (the run's end); resourceUri (required: where the database is published, the consumer's key to
 * it); policy = the rules (uri MA_ATTEST_PREDICATE_TYPE "#rules/VARIANT", digest the rules
 * fingerprint); the millaudit envelope as its input attestation (name and SHA-256 of its bytes,
 * omitted when statement_name is NULL); verificationResult PASSED only for a statement of the whole
 * database whose verdict is "verified" by its own counts too, with verifiedLevels
 * ["MILLAUDIT_DATABASE_VERIFIED"] (SLSA reserves SLSA_* for its tracks), else FAILED / ["FAILED"].
 * A statement of some sectors is refused (MA_EINVAL): a VSA has no scope, and its PASSED would read
 * as a proof of the database. So is one without a rules fingerprint (no policy). */
typedef struct ma_attest_vsa {
    const char *resource_uri;
    const char *verifier_id;
    const char *statement_name, *statement_sha256;
} ma_attest_vsa;
int ma_attest_vsa_to_json(const ma_attest_statement *st, const ma_attest_vsa *v, char **out, size_t *len,
                          ma_error *err);
/* "PASSED" or "FAILED", as above */
const char *ma_attest_vsa_result(const ma_attest_statement *st);

/* The verdict a statement's own totals and sector states give: "verified", "within-bounds",
 * "incomplete", "interrupted" or "discrepancies" (see above). */
const char *ma_attest_statement_verdict(const ma_attest_statement *st);
/* Refuses a statement that contradicts itself (see above); name starts the message. */
int ma_attest_statement_check(const ma_attest_statement *st, const char *name, ma_error *err);

#endif
