/*
 * attest: the work of `millaudit attest create|verify` and of `runs import` of an attestation
 * (docs/attestations.md): a verification run of an audit store as a signed in-toto statement in a
 * DSSE envelope, and the check of such an envelope (signature, statement, and optionally the
 * database files it names).
 *
 * Create: the statement of a run (reports/store/attest_statement.h: subjects are the digests the run
 * recorded for the bytes it checked; the disk is not read), plus what only the checker knows: the
 * rules fingerprint and description of the run's variant (verifier/check/rules_desc.h), the index scheme
 * and format version, and the manifest digest (the SHA-256 of the manifest `manifest create` writes
 * for those subjects, checksums/manifest.h). Signed with Ed25519 (checksums/dsse.h). A run whose
 * verdict is not "verified" (as `report` decides it) is refused unless allow_unverified; its
 * verdict is then in the predicate.
 *
 * Check: the envelope is parsed (MA_EFORMAT: unusable), its signature verified against the public
 * key (a bad one is a result, not an error: signature_valid = 0, and nothing of the payload is
 * trusted or parsed), then the payload type and the statement (MA_EFORMAT, also for a statement
 * that contradicts itself: reports/store/attest_statement.h). With a database directory, every subject
 * and every input is hashed and compared; for a statement of the whole database every database
 * file of the directory (a name discovery sorts as one, verifier/formats/source.h, or a header that states
 * a format, verifier/formats/provenance.h) must be a subject. Each disagreement is a listed issue naming
 * the file.
 */
#ifndef MA_VERIFIER_ATTEST_H
#define MA_VERIFIER_ATTEST_H

#include <stddef.h>
#include <stdint.h>

#include "checksums/dsse.h"
#include "common/ma_error.h"
#include "reports/store/attest_statement.h"
#include "reports/store/audit.h"

/* ma_attest_create_options, ma_attest_created, ma_attest_created_free: millaudit/store.h (public). */

/* Errors: as ma_attest_statement_load; MA_EINVAL for a run that is not a verify run, or (with
 * out->unverified set) one whose verdict is not "verified" without allow_unverified. */
int ma_attest_create(ma_audit *a, const ma_ed25519_key *key, const ma_attest_create_options *opt,
                     ma_attest_created *out, ma_error *err);

/* One disagreement between an attestation and a database directory. */
typedef struct ma_attest_issue {
    char *path;                  /* relative to the directory */
    const char *what;            /* "changed", "missing", "unreadable", "not attested" */
    char *expected, *actual;     /* digests (hex) where they apply, else NULL */
    char *message;               /* the reader's message for "missing"/"unreadable", else NULL */
    int input;                   /* the file is an input of the statement (read, not checked) */
} ma_attest_issue;

typedef struct ma_attest_check {
    char envelope_sha256[65];    /* SHA-256 of the envelope bytes as given */
    char keyid[65];              /* the public key's keyid */
    int signature_valid;
    int signature_index;         /* the signature that verified, -1 if none */
    size_t n_signatures;
    int statement_ok;            /* st is filled (signature valid and statement parsed) */
    ma_attest_statement st;
    int rules_match;             /* 1: the fingerprint equals this build's for the variant, 0: differs,
                                    -1: not known (no variant) */
    int db_checked;
    size_t files_ok;             /* subjects whose bytes matched */
    size_t inputs_ok;            /* inputs whose bytes matched */
    ma_attest_issue *issues;
    size_t n_issues;
} ma_attest_check;

/* Checks an envelope (text[0..len), name for messages) against key, and with db_dir the files.
 * threads: hashing threads (0 = all CPUs). Returns MA_OK when the check ran (look at
 * signature_valid and n_issues), MA_EFORMAT for an unusable envelope or statement, MA_EMISSING /
 * MA_EIO when db_dir cannot be listed, MA_ENOMEM. out is zeroed first; free with
 * ma_attest_check_free also after errors. */
int ma_attest_check_envelope(const char *text, size_t len, const char *name, const ma_ed25519_key *key,
                             const char *db_dir, unsigned threads, ma_attest_check *out, ma_error *err);
void ma_attest_check_free(ma_attest_check *c);

/* The run an attestation that passed ma_attest_check_envelope becomes on import: the statement's
 * run, marked attested by the checked key and identity. out is zeroed first; free with
 * ma_run_free. MA_EINVAL when c's signature did not verify. */
int ma_attest_to_run(const ma_attest_check *c, ma_run *out, ma_error *err);

#endif
