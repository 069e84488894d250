/*
 * millaudit/store.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * The audit store (an SQLite file, docs/audit-schema.md) and the documents made from it:
 *   - open a store (ma_audit, opaque): for reading only, or for writing (created or migrated);
 *   - its runs: list them with their totals, load one (ma_run, opaque), export it as the run
 *     document (docs/reproducibility.md), parse such a document and import it into another store,
 *     compare two runs sector by sector, and say what regressed since a baseline run;
 *   - the report of a run (docs/report.md) rendered as text, Markdown, JSON or HTML into a buffer,
 *     and a buffer written to a file atomically;
 *   - attestations (docs/attestations.md): sign a run as an in-toto statement in a DSSE envelope,
 *     and check such an envelope (and optionally the database files it names).
 * Rendered documents are NUL-terminated text the caller releases with ma_free. Handles are
 * freed with their _free function, which accepts NULL. A verdict is a ma_verdict_state
 * (millaudit/verdict.h); ma_result_of_verdict turns it into a command's result.
 */
#ifndef MILLAUDIT_STORE_H
#define MILLAUDIT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit/error.h"
#include "millaudit/verdict.h"
#include "millaudit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- the store */

typedef struct ma_audit ma_audit;

/* Opens (creating or migrating) the store at path for writing. An existing store is identified and
 * checked for damaged pages before anything is written, so a refused file is left byte-identical.
 * Errors: MA_EIO (cannot create, open or write, with the OS's reason), MA_EFORMAT (not SQLite,
 * corrupt, not an audit store, or a newer schema than this build knows). */
MA_API int ma_audit_open(ma_audit **out, const char *path, ma_error *err);
/* Opens an existing store for reading only: never creates, migrates or writes the file. A store of
 * an older schema is copied into a private temporary database and migrated there, so it reads like
 * a current one. Errors: MA_EMISSING (no such file), MA_EFORMAT (an empty file, or as above),
 * MA_EIO (the OS refused). Writing through a read-only handle is refused with MA_EINVAL. */
MA_API int ma_audit_open_readonly(ma_audit **out, const char *path, ma_error *err);
MA_API void ma_audit_free(ma_audit *a);

/* The result (millaudit/verdict.h) of a failure to read an input (a store, a document, a key): every
 * code but out of memory and internal errors stands for an unusable input (exit 3), also MA_EIO,
 * which on the write side means an output that cannot be written (exit 4). */
MA_API int ma_store_input_result(int rc);

/* ---------------------------------------------------------------- runs */

/* One run of a store with the totals of its sector results (the runs list). NULL strings are SQL
 * NULL (not known; a NULL ended_at: the run never finished). */
typedef struct ma_run_row {
    int64_t id;
    char *kind, *started_at, *ended_at, *status, *mode, *database_root, *tool_version;
    int64_t resumed_from;       /* 0: none */
    int64_t continued_by;       /* the run that resumed this one; 0: none */
    int64_t planned_sectors;    /* sectors the run set out to check; -1: not recorded */
    int imported;               /* imported from another store (runs import) */
    int64_t sectors, sectors_carried, sectors_failing, sectors_unusable; /* failing: status discrepancies */
    int64_t entries, checked, verified, within_bounds, discrepancies;
} ma_run_row;

typedef struct ma_runs_filter {
    const char *kind;           /* NULL: every kind */
    const char *root;           /* NULL: every database root; else database_root equal to it */
    size_t last;                /* 0: all; else only the newest `last` (still listed oldest first) */
} ma_runs_filter;

/* Runs of a store, oldest first. */
typedef struct ma_run_list {
    ma_run_row *rows;
    size_t n;
} ma_run_list;

/* The runs of a matching f (NULL: all) into *out. Errors: MA_EIO, MA_EFORMAT (damaged store),
 * MA_ENOMEM (*out is NULL then). Free with ma_run_list_free. */
MA_API int ma_runs_list(ma_run_list **out, ma_audit *a, const ma_runs_filter *f, ma_error *err);
MA_API void ma_run_list_free(ma_run_list *l);
/* The list as the table of `runs list` (json 0) or docs/json/runs-list.schema.json (json 1);
 * store names the store in the document. */
MA_API int ma_render_runs_list(char **out, const ma_run_list *l, const char *store, int json, ma_error *err);

typedef struct ma_run ma_run;

/* Loads run id (0: the newest run) of a store. MA_EMISSING when there is no such run (or no run at
 * all), MA_EFORMAT for rows that break the schema, MA_EIO on SQLite errors. */
MA_API int ma_store_run_load(ma_run **out, ma_audit *a, int64_t id, ma_error *err);
/* The same for the store at path, opened for reading only for the load. */
MA_API int ma_store_run_load_path(ma_run **out, const char *path, int64_t id, ma_error *err);
/* Parses and validates a run export document (name for messages): MA_EFORMAT naming the key at
 * fault; a signed attestation given here is refused with a message that says so. */
MA_API int ma_store_run_parse(ma_run **out, const char *text, size_t len, const char *name, ma_error *err);
/* The export document (docs/json/runs-export.schema.json), ending in a newline. Two exports of
 * equal runs are byte-identical. */
MA_API int ma_store_run_export(char **out, const ma_run *r, ma_error *err);
/* Writes r into a (opened for writing) as a new run in one transaction; source names the document
 * it came from. */
MA_API int ma_store_run_import(int64_t *new_id, ma_audit *a, const ma_run *r, const char *source, ma_error *err);
MA_API void ma_store_run_free(ma_run *r);

MA_API int64_t ma_store_run_id(const ma_run *r);
MA_API const char *ma_store_run_kind(const ma_run *r);       /* "verify", "diff", "manifest", ... */
MA_API const char *ma_store_run_status(const ma_run *r);     /* runs.status; NULL while unfinished */
MA_API const char *ma_store_run_root(const ma_run *r);       /* the database root; NULL if none */
MA_API size_t ma_store_run_sector_count(const ma_run *r);
MA_API size_t ma_store_run_file_count(const ma_run *r);      /* manifest files recorded */

/* Two runs sector by sector: same bytes (manifest digests)? same derived values (derived
 * digests)? present on both sides? The runs must outlive the comparison. */
typedef struct ma_run_cmp ma_run_cmp;
MA_API int ma_store_compare(ma_run_cmp **out, const ma_run *a, const ma_run *b, ma_error *err);
/* MA_VERDICT_AGREE (equal where recorded), MA_VERDICT_DIFFER, or MA_VERDICT_INCOMPLETE when
 * nothing or not everything could be compared. */
MA_API ma_verdict_state ma_store_compare_verdict(const ma_run_cmp *c);
/* Why the runs could not be compared (one phrase), NULL when they could. */
MA_API const char *ma_store_compare_problem(const ma_run_cmp *c);
/* The comparison as the table of `runs compare` or docs/json/runs-compare.schema.json; store_a and
 * store_b name where the runs came from. */
MA_API int ma_render_runs_compare(char **out, const ma_run_cmp *c, const ma_run *a, const char *store_a,
                                  const ma_run *b, const char *store_b, int json, ma_error *err);
MA_API void ma_store_compare_free(ma_run_cmp *c);

/* What changed in a verify run since its baseline (docs/nightly.md): the previous finished verify
 * run of the same database root, or the run `since` names. */
typedef struct ma_regressions_options {
    int64_t run_id;             /* 0: the newest verify run (of root when given) */
    int64_t since;              /* 0: the previous finished verify run of the same root */
    const char *root;           /* database root as recorded (absolute), NULL: any */
    const char *store_name;     /* the store's path, for messages and documents */
} ma_regressions_options;

typedef struct ma_run_regressions ma_run_regressions;
/* Errors: MA_EMISSING (no such run, no verify run), MA_EINVAL (a run that is not a verify run),
 * as ma_store_run_load. */
MA_API int ma_store_regressions(ma_run_regressions **out, ma_audit *a, const ma_regressions_options *opt,
                                ma_error *err);
/* MA_VERDICT_DIFFER when some sector regressed or the verdict got worse, else MA_VERDICT_AGREE
 * (also without a baseline). */
MA_API ma_verdict_state ma_store_regressions_verdict(const ma_run_regressions *g);
/* The report of `runs regressions` as text, or docs/json/runs-regressions.schema.json. */
MA_API int ma_render_regressions(char **out, const ma_run_regressions *g, int json, ma_error *err);
/* The JUnit XML file of the regressions (one test case per sector) written to path. MA_EIO when it
 * cannot be written. */
MA_API int ma_render_regressions_junit(const ma_run_regressions *g, const char *path, ma_error *err);
MA_API void ma_store_regressions_free(ma_run_regressions *g);

/* ---------------------------------------------------------------- the report */

typedef enum ma_render_format { MA_RENDER_TEXT, MA_RENDER_MD, MA_RENDER_JSON, MA_RENDER_HTML } ma_render_format;

/* "text", "md", "json", "html" -> format; MA_EINVAL otherwise. */
MA_API int ma_render_format_parse(const char *name, ma_render_format *out, ma_error *err);

typedef struct ma_report ma_report;
/* Loads the report of run id (0: the newest) of a store: the run, its facts, totals, history and
 * verdict. Errors as ma_store_run_load. */
MA_API int ma_store_report_load(ma_report **out, ma_audit *a, int64_t id, ma_error *err);
/* Narrows the report to one sector of its run (`report --sector S`): every row the store kept of
 * it, its line of the sector table; the verdict box stays the run's. sector is "<variant>_W_B_WF_BF",
 * or "W_B_WF_BF" in a run of one variant. MA_EMISSING (message naming the run) when the run has no
 * such sector; MA_EINVAL when the name is not a sector's. */
MA_API int ma_store_report_select_sector(ma_report *r, const char *sector, ma_error *err);
/* The verdict the report states (derived from the counts, not copied from runs.status). */
MA_API ma_verdict_state ma_store_report_verdict(const ma_report *r);
MA_API void ma_store_report_free(ma_report *r);
/* Renders the report into *out (malloc'd, NUL-terminated, length in *len). Errors: MA_ENOMEM. */
MA_API int ma_render_report(char **out, size_t *len, const ma_report *r, ma_render_format fmt, ma_error *err);
/* Writes data to path: "-" is standard output, an existing device or FIFO is written through, a
 * regular file is replaced atomically (temporary file beside it, fsync, rename). MA_EIO naming the
 * path. */
MA_API int ma_render_write_atomic(const char *path, const char *data, size_t len, ma_error *err);

/* ---------------------------------------------------------------- attestations */

#define MA_ATTEST_MAX_ENVELOPE (64u * 1024u * 1024u) /* a larger document is no envelope of ours */

typedef struct ma_attest_create_options {
    int64_t run_id;              /* 0: the newest run */
    const char *identity;        /* the signer's words about itself, may be NULL */
    int allow_unverified;        /* attest a run whose verdict is not "verified" */
    int allow_partial;           /* attest a run of some sectors (picked, or one shard): its statement's
                                  * scope is "sectors", its unchecked files are inputs */
    int allow_unsealed;          /* attest a merged run whose shard stores the merge trusted as
                                  * written (no seal key): the statement's run.sealed_by is null */
    const char *tool_name, *tool_version, *git_revision;
    const char *attested_at;     /* UTC ISO 8601; NULL: now */
    const char *store_name;      /* the store's path, for messages */
    int include_host;            /* also state the database's absolute path, the host and the
                                  * command line (0, the default: null; names relative to the
                                  * database only, docs/attestations.md "What a statement tells") */
    /* a SLSA Verification Summary Attestation (v1) beside the statement, signed with the same key:
     * NULL (the default) makes none; else the URI the database is published at (its resourceUri) */
    const char *vsa_resource_uri;
    const char *vsa_verifier_id; /* its verifier.id; NULL: millaudit's own (docs/attestations.md) */
    const char *envelope_name;   /* the statement envelope's name as the VSA cites it; NULL: not cited */
} ma_attest_create_options;

typedef struct ma_attest_created {
    char *envelope;              /* the envelope JSON, ending in a newline */
    size_t len;
    int64_t run_id;
    char verdict[32];            /* the run's verdict ("verified", "discrepancies", ...) */
    size_t n_subjects;
    char keyid[65];
    char rules_fingerprint[65];
    int unverified;              /* set when refused because the verdict is not "verified" */
    int partial;                 /* set when refused because the run checked some sectors only */
    int unsealed;                /* set when refused because the merged run's shards were unsealed */
    char scope[16];              /* the statement's scope: "database" or "sectors" */
    size_t n_inputs;             /* files read but not checked (scope "sectors") */
    char *vsa_envelope;          /* the VSA envelope JSON ending in a newline (vsa_resource_uri), else NULL */
    size_t vsa_len;
    char vsa_result[8];          /* its verificationResult: "PASSED" or "FAILED" */
} ma_attest_created;

/* An Ed25519 key in PEM: a private key (PKCS#8, as `openssl genpkey -algorithm ed25519` writes
 * it) signs, a public key (`openssl pkey -pubout`) checks. Errors: MA_EMISSING (no file),
 * MA_EFORMAT (not PEM, or not an Ed25519 key of that kind), MA_EIO. */
typedef struct ma_ed25519_key ma_ed25519_key;
MA_API int ma_ed25519_load_private(ma_ed25519_key **out, const char *path, ma_error *err);
MA_API int ma_ed25519_load_public(ma_ed25519_key **out, const char *path, ma_error *err);
MA_API void ma_ed25519_key_free(ma_ed25519_key *k);

/* Signs run opt->run_id of a with key as an in-toto statement in a DSSE envelope. out is zeroed
 * first; free with ma_attest_created_free also after errors. Errors: the run unusable (as
 * ma_store_run_load; MA_EINVAL for a run that recorded no file digests or is not a verify run), or
 * MA_EINVAL with out->unverified set for a run whose verdict is not "verified" without
 * allow_unverified, with out->partial set for a run of some sectors without allow_partial (or with
 * vsa_resource_uri: a VSA states no scope), or with out->unsealed set for a merged run of unsealed
 * shard stores without allow_unsealed. */
MA_API int ma_store_attest_create(ma_attest_created *out, ma_audit *a, const ma_ed25519_key *key,
                                  const ma_attest_create_options *opt, ma_error *err);
/* The result (millaudit/verdict.h) of a create that returned rc: a refused unverified run is the
 * verdict MA_VERDICT_DIFFER (exit 1: the run is not what an attestation states), a refused partial
 * run MA_VERDICT_PARTIAL (exit 6), other failures as ma_store_input_result, MA_OK when made. */
MA_API int ma_store_attest_create_result(int rc, const ma_attest_created *c);
MA_API void ma_attest_created_free(ma_attest_created *c);

typedef struct ma_attest_check ma_attest_check;
/* Checks the envelope text[0..len) (name for messages) with the public key, and with db_dir (may
 * be NULL) the files it names, hashed with threads threads (0: all CPUs). Returns MA_OK when the
 * check ran (a bad signature or a file that differs is a result, see ma_store_attest_verdict),
 * MA_EFORMAT for an unusable envelope or statement, MA_EMISSING / MA_EIO when db_dir cannot be
 * listed. */
MA_API int ma_store_attest_verify(ma_attest_check **out, const char *text, size_t len, const char *name,
                                  const ma_ed25519_key *key, const char *db_dir, unsigned threads, ma_error *err);
/* What the attestation proves (docs/attestations.md): MA_VERDICT_VERIFIED only for a good signature
 * on a statement of the whole database whose verdict is verified (and with db_dir, whose subjects
 * are exactly the sector files of db_dir, each matching); MA_VERDICT_PARTIAL for such a statement of
 * some sectors (it proves them given its inputs; with db_dir, subjects and inputs match);
 * MA_VERDICT_DIFFER for a bad signature or a file changed, missing or not attested; else the
 * statement's own verdict (discrepancies, within-bounds, incomplete, interrupted). */
MA_API ma_verdict_state ma_store_attest_verdict(const ma_attest_check *k);
MA_API int ma_store_attest_signature_valid(const ma_attest_check *k);
MA_API const char *ma_store_attest_keyid(const ma_attest_check *k);
MA_API const char *ma_store_attest_identity(const ma_attest_check *k);  /* NULL: none given */
MA_API const char *ma_store_attest_run_verdict(const ma_attest_check *k); /* the statement's verdict */
/* The run a checked attestation becomes on import (MA_EINVAL when its signature did not verify). */
MA_API int ma_store_attest_to_run(ma_run **out, const ma_attest_check *k, ma_error *err);
/* The check as `attest verify` prints it (text) or its JSON document; name and db_dir as given. */
MA_API int ma_render_attest_check(char **out, const ma_attest_check *k, const char *name, const char *db_dir,
                                  int json, ma_error *err);
/* One line per problem found (bad signature, each file issue), each after prefix, for stderr; ""
 * when none. */
MA_API int ma_render_attest_problems(char **out, const ma_attest_check *k, const char *name, const char *db_dir,
                                     const char *prefix, ma_error *err);
MA_API void ma_store_attest_check_free(ma_attest_check *k);

#ifdef __cplusplus
}
#endif

#endif
