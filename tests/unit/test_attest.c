/* Unit tests for reports/store/attest_statement and verifier/run/attest: a run of a real store becomes a
 * signed statement whose subjects are the digests the store recorded; the check finds a good
 * signature, then a changed, a missing and an unattested sector file; a run that is not verified
 * is refused unless allowed; the statement parser is a fixed point of the writer and refuses
 * foreign types and unsafe names; an import keeps who signed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sqlite3.h>

#include "checksums/sha256.h"
#include "reports/store/attest_statement.h"
#include "reports/store/audit.h"
#include "reports/store/runs.h"
#include "support.h"
#include "verifier/run/attest.h"

typedef struct fixture {
    char dir[64];            /* scratch: the database and the store */
    char db[96];
    char store[96];
    ma_audit *a;
    ma_ed25519_key *sk, *pk, *other;
    int64_t good, bad;       /* a verified run, a run with a discrepancy */
} fixture;

static void keypair(ma_ed25519_key **sk, ma_ed25519_key **pk)
{
    EVP_PKEY *p = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    assert_non_null(p);
    BIO *a = BIO_new(BIO_s_mem()), *b = BIO_new(BIO_s_mem());
    assert_true(PEM_write_bio_PrivateKey(a, p, NULL, NULL, 0, NULL, NULL));
    assert_true(PEM_write_bio_PUBKEY(b, p));
    char *text;
    long n = BIO_get_mem_data(a, &text);
    ma_error err;
    assert_int_equal(ma_ed25519_parse_private(text, (size_t)n, "sk.pem", sk, &err), MA_OK);
    n = BIO_get_mem_data(b, &text);
    assert_int_equal(ma_ed25519_parse_public(text, (size_t)n, "pk.pem", pk, &err), MA_OK);
    BIO_free(a);
    BIO_free(b);
    EVP_PKEY_free(p);
}

static void file_digest(const char *path, char hex[65], int64_t *size)
{
    size_t n;
    unsigned char *buf = ma_test_slurp(path, &n);
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, buf, n);
    ma_sha256_hex(hex, d);
    *size = (int64_t)n;
    free(buf);
}

/* A verify run of the files in dir, as `runs import` would write it. */
static int64_t add_run(fixture *f, int64_t discrepancies)
{
    static char *names[] = {"std_3_3_0_0.mdb", "std_2_3_1_0.mdb"};
    ma_run r;
    memset(&r, 0, sizeof r);
    r.kind = "verify";
    r.status = discrepancies ? "discrepancies" : "ok";
    r.started_at = "2026-11-26T10:00:00.000Z";
    r.ended_at = "2026-11-26T10:00:01.000Z";
    r.variant = "std";
    r.format = "open";
    r.database_root = f->db;
    r.host = "testhost";
    r.tool_version = "0.1.0";
    r.git_revision = "abcdef123456";
    r.has_manifest = 1;
    r.manifest_chunk_size = 16777216;
    ma_run_file files[2];
    char hex[2][65];
    memset(files, 0, sizeof files);
    for (int i = 0; i < 2; i++) {
        char p[200];
        snprintf(p, sizeof p, "%s/%s", f->db, names[i]);
        file_digest(p, hex[i], &files[i].size);
        files[i].path = names[i];
        files[i].sha256 = hex[i];
        files[i].chunk_size = 16777216;
        files[i].format = "open";
    }
    r.files = files;
    r.n_files = 2;
    ma_run_sector sectors[2];
    memset(sectors, 0, sizeof sectors);
    static char *snames[] = {"std_2_3_1_0", "std_3_3_0_0"};
    for (int i = 0; i < 2; i++) {
        sectors[i].sector = snames[i];
        sectors[i].status = i == 1 && discrepancies ? "discrepancies" : "ok";
        sectors[i].entries = sectors[i].checked = 100;
        sectors[i].verified = 100 - (i == 1 ? discrepancies : 0);
        sectors[i].discrepancies = i == 1 ? discrepancies : 0;
        sectors[i].derived_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        sectors[i].has_derived_positions = 1;
        sectors[i].derived_positions = 80;
    }
    r.sectors = sectors;
    r.n_sectors = 2;
    int64_t id = 0;
    ma_error err;
    assert_int_equal(ma_run_import(f->a, &r, "test", &id, &err), MA_OK);
    return id;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ma_attest_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/db", f->dir);
    snprintf(f->store, sizeof f->store, "%s/audit.sqlite", f->dir);
    assert_int_equal(mkdir(f->db, 0755), 0);
    char p[200];
    snprintf(p, sizeof p, "%s/std_3_3_0_0.mdb", f->db);
    ma_test_spit(p, "three three", 11);
    snprintf(p, sizeof p, "%s/std_2_3_1_0.mdb", f->db);
    ma_test_spit(p, "two three one", 13);
    ma_error err;
    assert_int_equal(ma_audit_open(&f->a, f->store, &err), MA_OK);
    keypair(&f->sk, &f->pk);
    ma_ed25519_key *unused;
    keypair(&unused, &f->other);
    ma_ed25519_key_free(unused);
    f->good = add_run(f, 0);
    f->bad = add_run(f, 3);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ma_audit_close(f->a);
    ma_ed25519_key_free(f->sk);
    ma_ed25519_key_free(f->pk);
    ma_ed25519_key_free(f->other);
    ma_test_tmpdir_remove(f->db);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

static void create(fixture *f, int64_t run, int allow, ma_attest_created *out, int want)
{
    ma_attest_create_options o = {0};
    o.run_id = run;
    o.identity = "Team A";
    o.allow_unverified = allow;
    o.tool_version = "9.9";
    o.git_revision = "feedfacecafe";
    o.attested_at = "2026-11-26T12:00:00.000Z";
    ma_error err;
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, out, &err), want);
}

static void check(fixture *f, const ma_attest_created *c, const ma_ed25519_key *k, const char *db, ma_attest_check *out)
{
    ma_error err;
    int rc = ma_attest_check_envelope(c->envelope, c->len, "att.json", k, db, 1, out, &err);
    if (rc)
        fail_msg("%s", err.msg);
    (void)f;
}

static void test_create_and_check(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    create(f, f->good, 0, &c, MA_OK);
    assert_string_equal(c.verdict, "verified");
    assert_int_equal(c.n_subjects, 2);
    ma_attest_check k;
    check(f, &c, f->pk, f->db, &k);
    assert_true(k.signature_valid);
    assert_true(k.statement_ok);
    assert_int_equal(k.rules_match, 1);
    assert_string_equal(k.st.identity, "Team A");
    assert_string_equal(k.st.verdict, "verified");
    /* the verifier is the run's build; the attester this one */
    assert_string_equal(k.st.tool_version, "0.1.0");
    assert_string_equal(k.st.git_revision, "abcdef123456");
    assert_string_equal(k.st.attester_version, "9.9");
    assert_string_equal(k.st.index_scheme, "sym16-colex");
    assert_int_equal(k.st.n_subjects, 2);
    assert_string_equal(k.st.subjects[0].name, "std_2_3_1_0.mdb");
    assert_int_equal(k.st.subjects[0].size, 13);
    assert_int_equal(k.st.entries, 200);
    assert_int_equal(k.st.n_sector_rows, 2);
    assert_true(k.db_checked);
    assert_int_equal(k.files_ok, 2);
    assert_int_equal(k.n_issues, 0);
    ma_attest_check_free(&k);
    /* another key: the signature does not verify and nothing of the payload is read */
    check(f, &c, f->other, f->db, &k);
    assert_false(k.signature_valid);
    assert_false(k.statement_ok);
    assert_false(k.db_checked);
    ma_attest_check_free(&k);
    ma_attest_created_free(&c);
}

static void test_files_changed_missing_and_unattested(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    create(f, f->good, 0, &c, MA_OK);
    char p[200], q[200];
    snprintf(p, sizeof p, "%s/std_3_3_0_0.mdb", f->db);
    ma_test_spit(p, "three threE", 11);
    ma_attest_check k;
    check(f, &c, f->pk, f->db, &k);
    assert_int_equal(k.files_ok, 1);
    assert_int_equal(k.n_issues, 1);
    assert_string_equal(k.issues[0].path, "std_3_3_0_0.mdb");
    assert_string_equal(k.issues[0].what, "changed");
    assert_non_null(k.issues[0].actual);
    ma_attest_check_free(&k);
    unlink(p);
    check(f, &c, f->pk, f->db, &k);
    assert_int_equal(k.n_issues, 1);
    assert_string_equal(k.issues[0].what, "missing");
    ma_attest_check_free(&k);
    ma_test_spit(p, "three three", 11);
    /* a sector file the attestation does not name; a file that is no sector file is fine */
    snprintf(q, sizeof q, "%s/std_1_3_2_0.sec2", f->db);
    ma_test_spit(q, "x", 1);
    snprintf(p, sizeof p, "%s/NOTES.txt", f->db);
    ma_test_spit(p, "notes", 5);
    check(f, &c, f->pk, f->db, &k);
    assert_int_equal(k.files_ok, 2);
    assert_int_equal(k.n_issues, 1);
    assert_string_equal(k.issues[0].path, "std_1_3_2_0.sec2");
    assert_string_equal(k.issues[0].what, "not attested");
    ma_attest_check_free(&k);
    unlink(q);
    unlink(p);
    ma_attest_created_free(&c);
}

static void test_unverified_runs(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    create(f, f->bad, 0, &c, MA_EINVAL);
    assert_true(c.unverified);
    assert_null(c.envelope);
    assert_string_equal(c.verdict, "discrepancies");
    ma_attest_created_free(&c);
    create(f, f->bad, 1, &c, MA_OK);
    ma_attest_check k;
    check(f, &c, f->pk, NULL, &k);
    assert_true(k.signature_valid);
    assert_string_equal(k.st.verdict, "discrepancies");
    assert_int_equal(k.st.discrepancies, 3);
    assert_false(k.db_checked);
    ma_attest_check_free(&k);
    ma_attest_created_free(&c);
    /* a missing run */
    create(f, 999, 1, &c, MA_EMISSING);
    ma_attest_created_free(&c);
}

/* The statement of an attestation of the good run: made into c, its envelope e parsed, its
 * payload parsed into st (named "payload" in messages). */
static void good_statement(fixture *f, ma_attest_created *c, ma_dsse_envelope *e, ma_attest_statement *st)
{
    ma_error err;
    create(f, f->good, 0, c, MA_OK);
    assert_int_equal(ma_dsse_parse(c->envelope, c->len, "att.json", e, &err), MA_OK);
    assert_int_equal(ma_attest_statement_parse((char *)e->payload, e->payload_len, "payload", st, &err), MA_OK);
}

static void test_statement_fixed_point_and_refusals(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    ma_dsse_envelope e;
    ma_attest_statement st;
    ma_error err;
    good_statement(f, &c, &e, &st);
    char *again = NULL;
    size_t len = 0;
    assert_int_equal(ma_attest_statement_to_json(&st, &again, &len, &err), MA_OK);
    assert_int_equal(len, e.payload_len);
    assert_memory_equal(again, e.payload, len);
    free(again);
    ma_attest_statement_free(&st);
    /* each edit of the payload text makes it refused, naming the member */
    static const char *const edits[][3] = {
        {"https://in-toto.io/Statement/v1", "https://in-toto.io/Statement/v0.1", "_type"},
        {MA_ATTEST_PREDICATE_TYPE, "https://slsa.dev/provenance/v1", "predicateType"},
        {"\"name\":\"std_2_3_1_0.mdb\"", "\"name\":\"/etc/passwd\"", "subject[0].name"},
        {"\"name\":\"std_2_3_1_0.mdb\"", "\"name\":\"../std_2_3_1_0.mdb\"", "subject[0].name"},
        {"\"name\":\"std_2_3_1_0.mdb\"", "\"name\":\"std_3_3_0_0.mdb\"", "listed twice"},
        {"\"sha256\":\"", "\"sha256\":\"X", "digest.sha256"},
        {"\"entries\":200", "\"entries\":-1", "predicate.totals.entries"},
        {"\"verdict\":\"verified\"", "\"verdict\":7", "predicate.run.verdict"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        const char *text = (const char *)e.payload;
        const char *at = strstr(text, edits[i][0]);
        assert_non_null(at);
        size_t ol = strlen(edits[i][0]), nl = strlen(edits[i][1]);
        char *mod = malloc(e.payload_len + nl + 1);
        size_t head = (size_t)(at - text);
        memcpy(mod, text, head);
        memcpy(mod + head, edits[i][1], nl);
        strcpy(mod + head + nl, at + ol);
        assert_int_equal(ma_attest_statement_parse(mod, strlen(mod), "payload", &st, &err), MA_EFORMAT);
        if (!strstr(err.msg, edits[i][2]))
            fail_msg("edit %zu: '%s' does not name %s", i, err.msg, edits[i][2]);
        assert_int_equal(strncmp(err.msg, "payload: ", 9), 0);
        ma_attest_statement_free(&st);
        free(mod);
    }
    ma_dsse_envelope_free(&e);
    ma_attest_created_free(&c);
}

/* A statement must not claim more than its own counts give, nor say it covers the database when
 * its subjects or inputs say otherwise (issue 41). */
static void test_statements_that_contradict_themselves(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    ma_dsse_envelope e;
    ma_attest_statement st;
    ma_error err;
    good_statement(f, &c, &e, &st);
    assert_string_equal(st.scope, "database");
    assert_int_equal(st.n_inputs, 0);
    assert_string_equal(ma_attest_statement_verdict(&st), "verified");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_OK);
    /* a sector not reached: the counts give incomplete, "verified" is refused, "incomplete" is not */
    free(st.sector_rows[0].status);
    st.sector_rows[0].status = strdup("not-checked");
    st.sector_rows[0].verified = st.sector_rows[0].checked = 0;
    st.verified -= 100;
    st.checked -= 100;
    assert_string_equal(ma_attest_statement_verdict(&st), "incomplete");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "predicate.run.verdict: 'verified'"));
    free(st.verdict);
    st.verdict = strdup("incomplete");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_OK);
    /* claiming less than the counts give is allowed (an unusable non-sector file) */
    free(st.verdict);
    st.verdict = strdup("discrepancies");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_OK);
    /* totals that are not the sum of the sectors */
    st.verified += 1;
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "predicate.totals.verified"));
    st.verified -= 1;
    /* an interrupted run */
    free(st.ended_at);
    st.ended_at = NULL;
    assert_string_equal(ma_attest_statement_verdict(&st), "interrupted");
    /* a status its counts deny */
    free(st.sector_rows[0].status);
    st.sector_rows[0].status = strdup("ok");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "status 'ok'"));
    ma_attest_statement_free(&st);
    /* a statement of the database with a subject whose sector it does not list */
    assert_int_equal(ma_attest_statement_parse((char *)e.payload, e.payload_len, "p", &st, &err), MA_OK);
    free(st.subjects[0].sector);
    st.subjects[0].sector = strdup("std_9_9_0_0");
    assert_int_equal(ma_attest_statement_check(&st, "p", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "a file the run did not check is no subject"));
    ma_attest_statement_free(&st);
    ma_dsse_envelope_free(&e);
    ma_attest_created_free(&c);
}

/* A run of some sectors is attested only with allow_partial, as a statement of scope "sectors"
 * whose unchecked files are inputs; its check is MA_VERDICT_PARTIAL, never VERIFIED. */
static void test_partial_runs(void **state)
{
    fixture *f = *state;
    ma_run r;
    ma_error err;
    assert_int_equal(ma_run_load(f->a, f->good, &r, &err), MA_OK);
    free(r.scope);
    r.scope = strdup("sectors");
    /* the run checked std_2_3_1_0 only; std_3_3_0_0.mdb (sector stated) was read */
    free(r.files[0].sector);
    r.files[0].sector = strdup("std_2_3_1_0");
    free(r.files[1].sector);
    r.files[1].sector = strdup("std_3_3_0_0");
    ma_run_sector keep = r.sectors[0];
    r.sectors[0] = r.sectors[1];
    r.sectors[1] = keep;
    r.n_sectors = 1; /* std_2_3_1_0 sorts first: keep std_2_3_1_0 */
    if (strcmp(r.sectors[0].sector, "std_2_3_1_0")) {
        r.sectors[1] = r.sectors[0];
        r.sectors[0] = keep;
    }
    int64_t id = 0;
    assert_int_equal(ma_run_import(f->a, &r, "partial", &id, &err), MA_OK);
    r.n_sectors = 2;
    ma_run_free(&r);
    ma_attest_created c;
    create(f, id, 0, &c, MA_EINVAL);
    assert_true(c.partial);
    assert_null(c.envelope);
    assert_int_equal(ma_store_attest_create_result(MA_EINVAL, &c), ma_result_of_verdict(MA_VERDICT_PARTIAL, 0));
    ma_attest_created_free(&c);
    ma_attest_create_options o = {0};
    o.run_id = id;
    o.allow_partial = 1;
    o.attested_at = "2026-11-26T12:00:00.000Z";
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_OK);
    assert_string_equal(c.scope, "sectors");
    assert_int_equal(c.n_subjects, 1);
    assert_int_equal(c.n_inputs, 1);
    ma_attest_check k;
    check(f, &c, f->pk, f->db, &k);
    assert_string_equal(k.st.subjects[0].name, "std_2_3_1_0.mdb");
    assert_string_equal(k.st.inputs[0].name, "std_3_3_0_0.mdb");
    assert_int_equal(k.inputs_ok, 1);
    assert_int_equal(ma_store_attest_verdict(&k), MA_VERDICT_PARTIAL);
    ma_attest_check_free(&k);
    ma_attest_created_free(&c);
}

/* The payload of an envelope as text (the envelopes here are ours, their payload base64 of JSON). */
static char *payload_of(const char *envelope, size_t len)
{
    ma_dsse_envelope e;
    ma_error err;
    assert_int_equal(ma_dsse_parse(envelope, len, "env", &e, &err), MA_OK);
    char *text = strndup((const char *)e.payload, e.payload_len);
    ma_dsse_envelope_free(&e);
    return text;
}

static void test_host_facts_and_the_vsa(void **state)
{
    fixture *f = *state;
    ma_attest_create_options o = {0};
    o.run_id = f->good;
    o.attested_at = "2026-11-26T12:00:00.000Z";
    o.vsa_resource_uri = "https://example.org/db/";
    o.envelope_name = "db.intoto.json";
    ma_attest_created c;
    ma_error err;
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_OK);
    char *st = payload_of(c.envelope, c.len);
    /* no absolute path, host or command line unless asked */
    assert_non_null(strstr(st, "\"root\":null"));
    assert_non_null(strstr(st, "\"host\":null,\"command_line\":null"));
    assert_null(strstr(st, f->db));
    assert_non_null(strstr(st, "\"predicateType\":\"" MA_ATTEST_PREDICATE_TYPE "\""));
    free(st);
    /* the VSA: PASSED for this verified run of the whole database, citing the envelope's bytes */
    assert_string_equal(c.vsa_result, "PASSED");
    char *vsa = payload_of(c.vsa_envelope, c.vsa_len);
    uint8_t dg[MA_SHA256_LEN];
    char hex[65], cite[200];
    ma_sha256_buffer(dg, c.envelope, c.len);
    ma_sha256_hex(hex, dg);
    snprintf(cite, sizeof cite, "\"inputAttestations\":[{\"uri\":\"db.intoto.json\",\"digest\":{\"sha256\":\"%s\"}}]", hex);
    assert_non_null(strstr(vsa, cite));
    assert_non_null(strstr(vsa, "\"predicateType\":\"" MA_SLSA_VSA_TYPE "\""));
    assert_non_null(strstr(vsa, "\"resourceUri\":\"https://example.org/db/\""));
    assert_non_null(strstr(vsa, "\"verificationResult\":\"PASSED\",\"verifiedLevels\":[\"MILLAUDIT_DATABASE_VERIFIED\"]"));
    free(vsa);
    ma_attest_created_free(&c);
    /* with include_host the run's facts are stated */
    o.include_host = 1;
    o.vsa_resource_uri = NULL;
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_OK);
    assert_null(c.vsa_envelope);
    st = payload_of(c.envelope, c.len);
    assert_null(strstr(st, "\"root\":null"));
    free(st);
    ma_attest_created_free(&c);
    /* a run that did not verify: FAILED (with allow_unverified), refused without */
    o.include_host = 0;
    o.run_id = f->bad;
    o.vsa_resource_uri = "https://example.org/db/";
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_EINVAL);
    assert_true(c.unverified);
    ma_attest_created_free(&c);
    o.allow_unverified = 1;
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_OK);
    assert_string_equal(c.vsa_result, "FAILED");
    vsa = payload_of(c.vsa_envelope, c.vsa_len);
    assert_non_null(strstr(vsa, "\"verificationResult\":\"FAILED\",\"verifiedLevels\":[\"FAILED\"]"));
    free(vsa);
    ma_attest_created_free(&c);
}

static void test_import_keeps_the_signer(void **state)
{
    fixture *f = *state;
    ma_attest_created c;
    create(f, f->good, 0, &c, MA_OK);
    ma_attest_check k;
    check(f, &c, f->pk, NULL, &k);
    ma_run r;
    ma_error err;
    assert_int_equal(ma_attest_to_run(&k, &r, &err), MA_OK);
    int64_t id = 0;
    assert_int_equal(ma_run_import(f->a, &r, "att.json", &id, &err), MA_OK);
    ma_run back;
    assert_int_equal(ma_run_load(f->a, id, &back, &err), MA_OK);
    assert_true(back.attested);
    assert_string_equal(back.attest_keyid, k.keyid);
    assert_string_equal(back.attest_identity, "Team A");
    assert_string_equal(back.attest_envelope_sha256, k.envelope_sha256);
    assert_int_equal(back.n_files, 2);
    assert_int_equal(back.n_sectors, 2);
    assert_string_equal(back.sectors[0].derived_sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    ma_run_free(&back);
    ma_run_free(&r);
    ma_attest_check_free(&k);
    /* an attestation whose signature did not verify cannot become a run */
    check(f, &c, f->other, NULL, &k);
    assert_int_equal(ma_attest_to_run(&k, &r, &err), MA_EINVAL);
    ma_run_free(&r);
    ma_attest_check_free(&k);
    ma_attest_created_free(&c);
}

static void sql(const char *path, const char *text)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s", msg);
    sqlite3_close(db);
}

/* A store whose run read a file with another digest than its manifest records contradicts
 * itself: nothing is attested from it. */
static void test_inputs_that_contradict_the_manifest_are_refused(void **state)
{
    fixture *f = *state;
    int64_t id = add_run(f, 0);
    char text[600];
    snprintf(text, sizeof text,
             "INSERT INTO sector_inputs (run_id, sector, path, sha256) VALUES (%lld, 'std_2_3_1_0', 'std_2_3_1_0.mdb', '%s');"
             "INSERT INTO sector_inputs (run_id, sector, path, sha256) VALUES (%lld, 'std_2_3_1_0', 'std_3_3_0_0.mdb', '');",
             (long long)id, "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", (long long)id);
    sql(f->store, text);
    ma_attest_created c;
    ma_attest_create_options o = {0};
    o.run_id = id;
    ma_error err;
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "its manifest says"));
    ma_attest_created_free(&c);
    /* the same digest as the manifest (and an absent input, "") is consistent */
    char hex[65];
    int64_t size;
    char p[200];
    snprintf(p, sizeof p, "%s/std_2_3_1_0.mdb", f->db);
    file_digest(p, hex, &size);
    snprintf(text, sizeof text, "UPDATE sector_inputs SET sha256 = '%s' WHERE run_id = %lld AND path = 'std_2_3_1_0.mdb';",
             hex, (long long)id);
    sql(f->store, text);
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_OK);
    ma_attest_created_free(&c);
    /* an input the manifest does not list */
    snprintf(text, sizeof text,
             "INSERT INTO sector_inputs (run_id, sector, path, sha256) VALUES (%lld, 'std_3_3_0_0', 'elsewhere.mdb', '%s');",
             (long long)id, hex);
    sql(f->store, text);
    assert_int_equal(ma_attest_create(f->a, f->sk, &o, &c, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "which its manifest does not list"));
    ma_attest_created_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_and_check),
        cmocka_unit_test(test_files_changed_missing_and_unattested),
        cmocka_unit_test(test_unverified_runs),
        cmocka_unit_test(test_statement_fixed_point_and_refusals),
        cmocka_unit_test(test_statements_that_contradict_themselves),
        cmocka_unit_test(test_partial_runs),
        cmocka_unit_test(test_host_facts_and_the_vsa),
        cmocka_unit_test(test_import_keeps_the_signer),
        cmocka_unit_test(test_inputs_that_contradict_the_manifest_are_refused),
    };
    return ma_test_run_group(tests, setup, teardown);
}
