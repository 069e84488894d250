/* Signed verification attestations: create and check; see attest.h. */
#include "verifier/run/attest.h"
#include "common/counts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checksums/manifest.h"
#include "checksums/sha256.h"
#include "verifier/formats/open_file.h"
#include "verifier/formats/provenance.h"
#include "verifier/formats/source.h"
#include "indexer/position.h"
#include "verifier/check/rules_desc.h"

static int set_string(char **dst, const char *src, ma_error *err)
{
    free(*dst);
    *dst = src ? strdup(src) : NULL;
    if (src && !*dst)
        return ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    return MA_OK;
}

static void now_utc(char *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char head[24];
    strftime(head, sizeof head, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, len, "%s.%03dZ", head, (int)(ts.tv_nsec / 1000000L % 1000));
}

/* The SHA-256 of the manifest `manifest create` would write for the subjects: the same lines, by
 * the same writer, so `sha256sum MANIFEST.sha256` of such a manifest prints this digest. */
static int manifest_digest(const ma_attest_statement *st, char hex[65], ma_error *err)
{
    size_t n = st->n_subjects;
    const char **paths = calloc(n, sizeof *paths);
    ma_file_digest *d = calloc(n, sizeof *d);
    char *text = NULL;
    size_t len = 0;
    int rc = MA_OK;
    FILE *mem = (paths && d) ? open_memstream(&text, &len) : NULL;
    if (!mem) {
        rc = ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        paths[i] = st->subjects[i].name;
        d[i].size = st->subjects[i].size >= 0 ? (uint64_t)st->subjects[i].size : 0;
        if (ma_sha256_parse_hex(d[i].digest, st->subjects[i].sha256) != MA_OK)
            rc = ma_error_set(err, MA_EFORMAT, "attestation: %s: recorded digest is not SHA-256 hex",
                              st->subjects[i].name);
    }
    if (!rc)
        rc = ma_manifest_write_stream(mem, "manifest", paths, d, n, err);
    if (fclose(mem) != 0 && !rc)
        rc = ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    if (!rc) {
        uint8_t dg[MA_SHA256_LEN];
        ma_sha256_buffer(dg, text, len);
        ma_sha256_hex(hex, dg);
    }
done:
    free(text);
    free(paths);
    free(d);
    return rc;
}

/* What the checker reads the format with: index scheme and format versions (docs/format.md). */
static void index_facts(ma_attest_statement *st, const char **scheme)
{
    *scheme = NULL;
    st->index_scheme_version = st->format_version = -1;
    if (!st->format)
        return;
    if (!strcmp(st->format, "open")) {
        *scheme = "sym16-colex";
        st->index_scheme_version = 1;
        st->format_version = MA_OPEN_FORMAT_VERSION;
    } else if (!strncmp(st->format, "malom-", 6)) {
        *scheme = "malom";
    }
}

/* The VSA of the statement st, citing out->envelope (already signed) as its input attestation. */
static int make_vsa(const ma_attest_statement *st, const ma_ed25519_key *key, const ma_attest_create_options *opt,
                    ma_attest_created *out, ma_error *err)
{
    uint8_t dg[MA_SHA256_LEN];
    char hex[65];
    ma_sha256_buffer(dg, out->envelope, out->len);
    ma_sha256_hex(hex, dg);
    ma_attest_vsa v = {opt->vsa_resource_uri, opt->vsa_verifier_id, opt->envelope_name, hex};
    char *payload = NULL;
    size_t plen = 0;
    int rc = ma_attest_vsa_to_json(st, &v, &payload, &plen, err);
    if (!rc)
        rc = ma_dsse_sign(MA_INTOTO_PAYLOAD_TYPE, (const uint8_t *)payload, plen, key, &out->vsa_envelope, err);
    free(payload);
    if (rc)
        return rc;
    out->vsa_len = strlen(out->vsa_envelope);
    snprintf(out->vsa_result, sizeof out->vsa_result, "%s", ma_attest_vsa_result(st));
    return MA_OK;
}

int ma_attest_create(ma_audit *a, const ma_ed25519_key *key, const ma_attest_create_options *opt,
                     ma_attest_created *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_attest_statement st;
    int rc = ma_attest_statement_load(a, opt->run_id, &st, err);
    if (rc)
        goto done;
    out->run_id = st.run_id;
    snprintf(out->verdict, sizeof out->verdict, "%s", st.verdict ? st.verdict : "unknown");
    if (!st.kind || strcmp(st.kind, "verify") != 0) {
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld is a %s run; only verify runs are attested",
                          opt->store_name ? opt->store_name : "audit store", (long long)st.run_id, st.kind ? st.kind : "(unknown)");
        goto done;
    }
    snprintf(out->scope, sizeof out->scope, "%s", st.scope ? st.scope : "sectors");
    out->n_inputs = st.n_inputs;
    if (strcmp(out->scope, "database") != 0 && opt->vsa_resource_uri) {
        out->partial = 1;
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld checked some sectors of the database: a verification "
                          "summary (VSA) states no scope, and its PASSED would read as a proof of the database",
                          opt->store_name ? opt->store_name : "audit store", (long long)st.run_id);
        goto done;
    }
    if (strcmp(out->scope, "database") != 0 && !opt->allow_partial) {
        out->partial = 1;
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld checked some sectors of the database (--sector or --shard), "
                          "not all of them: it proves %s given %s it read but did not check; "
                          "--allow-partial attests it with that scope",
                          opt->store_name ? opt->store_name : "audit store", (long long)st.run_id,
                          MA_COUNT(st.n_sector_rows, "sector", "sectors"), MA_COUNT(st.n_inputs, "file", "files"));
        goto done;
    }
    if (st.merge_unsealed && !opt->allow_unsealed) {
        out->unsealed = 1;
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld is a merge that trusted %s as written (runs "
                          "merge without --seal-key): it proves what the stores said, not what a key vouches for; "
                          "merge sealed shards with --seal-key, or --allow-unsealed attests it as it is",
                          opt->store_name ? opt->store_name : "audit store", (long long)st.run_id,
                          MA_COUNT(st.merge_unsealed, "shard store", "shard stores"));
        goto done;
    }
    if (strcmp(out->verdict, "verified") != 0 && !opt->allow_unverified) {
        out->unverified = 1;
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld: verdict is '%s' (%s), not verified; "
                          "--allow-unverified attests it with that verdict",
                          opt->store_name ? opt->store_name : "audit store", (long long)st.run_id, out->verdict,
                          st.verdict_text ? st.verdict_text : "");
        goto done;
    }
    char when[40];
    if (!opt->attested_at)
        now_utc(when, sizeof when);
    const char *scheme = NULL;
    index_facts(&st, &scheme);
    char desc[MA_RULES_DESC_MAX], fp[65] = "";
    ma_variant v;
    int have_rules = st.variant && ma_variant_parse(st.variant, &v, NULL) == MA_OK;
    if (have_rules && ((rc = ma_rules_describe(v, desc, sizeof desc, err)) ||
                       (rc = ma_rules_fingerprint(v, fp, err))))
        goto done;
    char mdig[65];
    if ((rc = manifest_digest(&st, mdig, err)))
        goto done;
    if ((rc = set_string(&st.attester_version, opt->tool_version ? opt->tool_version : "unknown", err)) ||
        (rc = set_string(&st.attester_git_revision, opt->git_revision ? opt->git_revision : "unknown", err)) ||
        (rc = set_string(&st.identity, opt->identity, err)) ||
        (rc = set_string(&st.attested_at, opt->attested_at ? opt->attested_at : when, err)) ||
        (rc = set_string(&st.rules_fingerprint, have_rules ? fp : NULL, err)) ||
        (rc = set_string(&st.rules_description, have_rules ? desc : NULL, err)) ||
        (rc = set_string(&st.index_scheme, scheme, err)) || (rc = set_string(&st.manifest_sha256, mdig, err)))
        goto done;
    if (!opt->include_host && ((rc = set_string(&st.database_root, NULL, err)) ||
                               (rc = set_string(&st.host, NULL, err)) || (rc = set_string(&st.command_line, NULL, err))))
        goto done;
    char *payload = NULL;
    size_t plen = 0;
    if ((rc = ma_attest_statement_to_json(&st, &payload, &plen, err)))
        goto done;
    rc = ma_dsse_sign(MA_INTOTO_PAYLOAD_TYPE, (const uint8_t *)payload, plen, key, &out->envelope, err);
    free(payload);
    if (rc)
        goto done;
    out->len = strlen(out->envelope);
    if (opt->vsa_resource_uri && (rc = make_vsa(&st, key, opt, out, err)))
        goto done;
    out->n_subjects = st.n_subjects;
    ma_ed25519_keyid(key, out->keyid);
    memcpy(out->rules_fingerprint, fp, sizeof fp);
done:
    ma_attest_statement_free(&st);
    return rc;
}

void ma_attest_created_free(ma_attest_created *c)
{
    if (c) {
        free(c->envelope);
        free(c->vsa_envelope);
    }
}

/* ---- check ---- */

void ma_attest_check_free(ma_attest_check *c)
{
    if (!c)
        return;
    ma_attest_statement_free(&c->st);
    for (size_t i = 0; i < c->n_issues; i++) {
        free(c->issues[i].path);
        free(c->issues[i].expected);
        free(c->issues[i].actual);
        free(c->issues[i].message);
    }
    free(c->issues);
    memset(c, 0, sizeof *c);
}

static int add_issue(ma_attest_check *c, const char *path, const char *what, const char *expected,
                     const char *actual, const char *message, ma_error *err)
{
    ma_attest_issue *p = realloc(c->issues, (c->n_issues + 1) * sizeof *p);
    if (!p)
        return ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    c->issues = p;
    ma_attest_issue *x = &p[c->n_issues++];
    memset(x, 0, sizeof *x);
    x->what = what;
    int oom = 0;
    x->path = strdup(path);
    oom |= !x->path;
    if (expected)
        oom |= !(x->expected = strdup(expected));
    if (actual)
        oom |= !(x->actual = strdup(actual));
    if (message)
        oom |= !(x->message = strdup(message));
    return oom ? ma_error_set(err, MA_ENOMEM, "attestation: out of memory") : MA_OK;
}

static int subject_cmp(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const ma_attest_subject *)elem)->name);
}

/* Hashes files[0..n) under dir and records each one that does not match (input: they are the
 * statement's inputs, read but not checked). */
static int check_files(ma_attest_check *c, const char *dir, const ma_attest_subject *files, size_t n, int input,
                       unsigned threads, ma_error *err)
{
    char **full = calloc(n ? n : 1, sizeof *full);
    ma_file_digest *dg = calloc(n ? n : 1, sizeof *dg);
    int *rcs = calloc(n ? n : 1, sizeof *rcs);
    ma_error *errs = calloc(n ? n : 1, sizeof *errs);
    int rc = full && dg && rcs && errs ? MA_OK : ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        size_t len = strlen(dir) + strlen(files[i].name) + 2;
        if (!(full[i] = malloc(len)))
            rc = ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
        else
            snprintf(full[i], len, "%s/%s", dir, files[i].name);
    }
    if (!rc && n) {
        ma_sha256_options o = {0};
        o.threads = threads;
        o.whole_only = 1;
        ma_error all;
        int hrc = ma_sha256_files(dg, rcs, errs, (const char *const *)full, n, &o, &all);
        if (hrc == MA_ENOMEM || hrc == MA_EINTERNAL)
            rc = ma_error_set(err, hrc, "%s", all.msg);
    }
    for (size_t i = 0; i < n && !rc; i++) {
        const ma_attest_subject *s = &files[i];
        if (rcs[i] == MA_OK) {
            char hex[65];
            ma_sha256_hex(hex, dg[i].digest);
            if (!strcmp(hex, s->sha256))
                input ? c->inputs_ok++ : c->files_ok++;
            else
                rc = add_issue(c, s->name, "changed", s->sha256, hex, NULL, err);
        } else {
            rc = add_issue(c, s->name, rcs[i] == MA_EMISSING ? "missing" : "unreadable", s->sha256, NULL,
                           errs[i].msg, err);
        }
        if (!rc && c->n_issues && !strcmp(c->issues[c->n_issues - 1].path, s->name))
            c->issues[c->n_issues - 1].input = input;
    }
    for (size_t i = 0; full && i < n; i++) {
        free(full[i]);
        if (dg)
            ma_file_digest_free(&dg[i]);
    }
    free(full);
    free(dg);
    free(rcs);
    free(errs);
    return rc;
}

/* Hashes every subject (and input) under dir; for a statement of the whole database also lists
 * the database files of dir that no subject names. */
static int check_db(ma_attest_check *c, const char *dir, unsigned threads, ma_error *err)
{
    const ma_attest_statement *st = &c->st;
    size_t n = st->n_subjects;
    char **listed = NULL;
    size_t n_listed = 0;
    /* the listing first: a directory that cannot be read is the command's failure, not a file's.
     * The top only: a database is what verify discovers there (a subdirectory is no part of it, so
     * a root-only lost+found at a volume's root refuses nothing); a subject or input in a
     * subdirectory is still hashed by name below, and unreadable there is its problem. */
    int rc = ma_manifest_list_top(&listed, &n_listed, dir, NULL, 0, err);
    if (!rc)
        rc = check_files(c, dir, st->subjects, n, 0, threads, err);
    if (!rc)
        rc = check_files(c, dir, st->inputs, st->n_inputs, 1, threads, err);
    if (!rc)
        c->db_checked = 1;
    /* a statement of the whole database must name every database file of the directory: a
     * database is more than the files the attestation happens to name. A file counts when its
     * name looks like a database file (as discovery sorts names: a file whose header cannot be
     * read is one, an unusable one) or when its header states a format. A statement of some
     * sectors claims nothing about the other files. */
    int database = st->scope && !strcmp(st->scope, "database");
    for (size_t i = 0; database && i < n_listed && !rc; i++) {
        if (bsearch(listed[i], st->subjects, n, sizeof *st->subjects, subject_cmp))
            continue;
        size_t len = strlen(dir) + strlen(listed[i]) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
            break;
        }
        snprintf(p, len, "%s/%s", dir, listed[i]);
        ma_file_provenance prov;
        ma_file_provenance_read(&prov, p, listed[i]);
        free(p);
        if (prov.format[0] || ma_database_file_like(listed[i]))
            rc = add_issue(c, listed[i], "not attested", NULL, NULL, NULL, err);
    }
    ma_manifest_paths_free(listed, n_listed);
    return rc;
}

int ma_attest_check_envelope(const char *text, size_t len, const char *name, const ma_ed25519_key *key,
                             const char *db_dir, unsigned threads, ma_attest_check *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    out->signature_index = -1;
    out->rules_match = -1;
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, text, len);
    ma_sha256_hex(out->envelope_sha256, d);
    ma_ed25519_keyid(key, out->keyid);
    ma_dsse_envelope env;
    int rc = ma_dsse_parse(text, len, name, &env, err);
    if (!rc) {
        out->n_signatures = env.n_sigs;
        rc = ma_dsse_verify(&env, key, &out->signature_valid, &out->signature_index, err);
    }
    /* nothing of an unsigned payload is read: its statement could say anything */
    if (!rc && out->signature_valid && strcmp(env.payload_type, MA_INTOTO_PAYLOAD_TYPE) != 0)
        rc = ma_error_set(err, MA_EFORMAT, "%s: payloadType: '%.100s', not " MA_INTOTO_PAYLOAD_TYPE, name,
                          env.payload_type);
    if (!rc && out->signature_valid) {
        char what[300];
        snprintf(what, sizeof what, "%s: payload", name);
        rc = ma_attest_statement_parse((const char *)env.payload, env.payload_len, what, &out->st, err);
        if (!rc)
            rc = ma_attest_statement_check(&out->st, what, err);
        out->statement_ok = rc == MA_OK;
    }
    ma_dsse_envelope_free(&env);
    if (!rc && out->statement_ok && out->st.variant && out->st.rules_fingerprint) {
        ma_variant v;
        char fp[65];
        if (ma_variant_parse(out->st.variant, &v, NULL) == MA_OK && ma_rules_fingerprint(v, fp, NULL) == MA_OK)
            out->rules_match = !strcmp(fp, out->st.rules_fingerprint);
    }
    if (!rc && out->statement_ok && db_dir)
        rc = check_db(out, db_dir, threads, err);
    return rc;
}

int ma_attest_to_run(const ma_attest_check *c, ma_run *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!c->signature_valid || !c->statement_ok)
        return ma_error_set(err, MA_EINVAL, "attestation: the signature did not verify; nothing to import");
    int rc = ma_attest_statement_to_run(&c->st, out, err);
    if (rc)
        return rc;
    out->attested = 1;
    out->attest_keyid = strdup(c->keyid);
    out->attest_envelope_sha256 = strdup(c->envelope_sha256);
    out->attest_identity = c->st.identity ? strdup(c->st.identity) : NULL;
    if (!out->attest_keyid || !out->attest_envelope_sha256 || (c->st.identity && !out->attest_identity))
        return ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    return MA_OK;
}

/* ---------------------------------------------------------------- the public API (millaudit/store.h) */

_Static_assert(MA_ATTEST_MAX_ENVELOPE == MA_DSSE_MAX_ENVELOPE, "one limit for an envelope");

int ma_store_attest_create(ma_attest_created *out, ma_audit *a, const ma_ed25519_key *key,
                           const ma_attest_create_options *opt, ma_error *err)
{
    return ma_attest_create(a, key, opt, out, err);
}

int ma_store_attest_create_result(int rc, const ma_attest_created *c)
{
    if (rc && c && c->partial)
        return ma_result_of_verdict(MA_VERDICT_PARTIAL, 0);
    if (rc && c && (c->unverified || c->unsealed))
        return ma_result_of_verdict(MA_VERDICT_DIFFER, 0);
    return ma_store_input_result(rc);
}

int ma_store_attest_verify(ma_attest_check **out, const char *text, size_t len, const char *name,
                           const ma_ed25519_key *key, const char *db_dir, unsigned threads, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    int rc = ma_attest_check_envelope(text, len, name, key, db_dir, threads, *out, err);
    if (rc) {
        ma_store_attest_check_free(*out);
        *out = NULL;
    }
    return rc;
}

ma_verdict_state ma_store_attest_verdict(const ma_attest_check *k)
{
    if (!k->signature_valid || !k->statement_ok || k->n_issues)
        return MA_VERDICT_DIFFER;
    const char *v = k->st.verdict ? k->st.verdict : "";
    if (strcmp(v, "verified") != 0) {
        static const struct {
            const char *name;
            ma_verdict_state state;
        } map[] = {{"discrepancies", MA_VERDICT_DISCREPANCIES},
                   {"within-bounds", MA_VERDICT_WITHIN_BOUNDS},
                   {"interrupted", MA_VERDICT_INTERRUPTED}};
        for (size_t i = 0; i < sizeof map / sizeof *map; i++)
            if (!strcmp(v, map[i].name))
                return map[i].state;
        return MA_VERDICT_INCOMPLETE;
    }
    /* a proof of some sectors given its inputs is never a proof of the database */
    return k->st.scope && !strcmp(k->st.scope, "database") ? MA_VERDICT_VERIFIED : MA_VERDICT_PARTIAL;
}

int ma_store_attest_signature_valid(const ma_attest_check *k) { return k->signature_valid; }
const char *ma_store_attest_keyid(const ma_attest_check *k) { return k->keyid; }
const char *ma_store_attest_identity(const ma_attest_check *k) { return k->st.identity; }
const char *ma_store_attest_run_verdict(const ma_attest_check *k) { return k->st.verdict; }

int ma_store_attest_to_run(ma_run **out, const ma_attest_check *k, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "attestation: out of memory");
    int rc = ma_attest_to_run(k, *out, err);
    if (rc) {
        ma_store_run_free(*out);
        *out = NULL;
    }
    return rc;
}

void ma_store_attest_check_free(ma_attest_check *k)
{
    if (!k)
        return;
    ma_attest_check_free(k);
    free(k);
}

/* Whether a document that is no run export is a DSSE envelope (an attestation given without its
 * public key). */
static int is_envelope(const char *text, size_t len)
{
    ma_dsse_envelope e;
    ma_error ignored;
    int yes = text && ma_dsse_parse(text, len, "", &e, &ignored) == MA_OK;
    ma_dsse_envelope_free(&e);
    return yes;
}

int ma_store_run_parse(ma_run **out, const char *text, size_t len, const char *name, ma_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    int rc = ma_run_from_json(*out, text ? text : "", len, name, err);
    if (rc == MA_EFORMAT && is_envelope(text, len))
        ma_error_set(err, MA_EFORMAT, "%s: a signed attestation, not a run export: give --pub PUB.pem to check "
                     "its signature and import it", name);
    if (rc) {
        ma_store_run_free(*out);
        *out = NULL;
    }
    return rc;
}
