/*
 * The store's public API (include/millaudit/store.h) as a program that includes only millaudit.h
 * sees it: a real database solved and verified with recording by the millaudit command (the
 * verify engine's public API is another helper's; the command makes the same store), then the
 * store opened, its runs listed and loaded, the report rendered, a run exported and imported into
 * another store and compared equal, regressions found after a sector file is damaged, an
 * attestation made and checked, and damaged stores and documents refused.
 *
 * The command is found through MILLAUDIT_BIN (as the integration tests do), else MA_TEST_MILLAUDIT
 * given at build time; without either the test fails, it never passes by skipping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "millaudit.h"

#ifndef MA_TEST_MILLAUDIT
#define MA_TEST_MILLAUDIT "millaudit"
#endif

static char dir[] = "/tmp/ma_api_store_XXXXXX";
static char store[512], db[512];

static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static const char *millaudit(void)
{
    const char *bin = getenv("MILLAUDIT_BIN");
    return bin && *bin ? bin : MA_TEST_MILLAUDIT;
}

/* Flips one byte of path at offset. */
static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    int c = fgetc(f);
    assert_true(c != EOF);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    fputc(c ^ 0x5A, f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(db, sizeof db, "%s/db", dir);
    snprintf(store, sizeof store, "%s/audit.sqlite", dir);
    /* std, 3 stones: 7 sectors, 264,399 entries, a few seconds */
    if (sh("'%s' solve --variant std --stones 3 --out '%s' --quiet >/dev/null 2>&1", millaudit(), db))
        return -1;
    return sh("'%s' verify '%s' --audit '%s' >/dev/null", millaudit(), db, store) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    sh("rm -rf '%s'", dir);
    return 0;
}

static void test_list_runs(void **state)
{
    (void)state;
    ma_error err;
    ma_audit *a = NULL;
    assert_int_equal(ma_audit_open_readonly(&a, store, &err), MA_OK);
    ma_run_list *runs = NULL;
    assert_int_equal(ma_runs_list(&runs, a, NULL, &err), MA_OK);
    const ma_run_row *rows = runs->rows;
    assert_int_equal(runs->n, 1);
    assert_int_equal(rows[0].id, 1);
    assert_string_equal(rows[0].kind, "verify");
    assert_string_equal(rows[0].status, "ok");
    assert_int_equal(rows[0].sectors, 7);
    assert_int_equal(rows[0].entries, 264399);
    assert_int_equal(rows[0].verified, 264399);
    assert_int_equal(rows[0].discrepancies, 0);
    ma_runs_filter only_diff = {"diff", NULL, 0};
    ma_run_list *none = NULL;
    assert_int_equal(ma_runs_list(&none, a, &only_diff, &err), MA_OK);
    assert_int_equal(none->n, 0);
    ma_run_list_free(none);
    char *text = NULL;
    assert_int_equal(ma_render_runs_list(&text, runs, store, 0, &err), MA_OK);
    assert_non_null(strstr(text, "\n1 run\n")); /* one way to write a count: no "1 runs" */
    ma_free(text);
    ma_run_list_free(runs);
    ma_audit_free(a);
}

static void test_load_run_and_report(void **state)
{
    (void)state;
    ma_error err;
    ma_audit *a = NULL;
    assert_int_equal(ma_audit_open_readonly(&a, store, &err), MA_OK);
    ma_run *r = NULL;
    assert_int_equal(ma_store_run_load(&r, a, 0, &err), MA_OK); /* 0: the newest */
    assert_int_equal(ma_store_run_id(r), 1);
    assert_string_equal(ma_store_run_kind(r), "verify");
    assert_string_equal(ma_store_run_status(r), "ok");
    assert_int_equal(ma_store_run_sector_count(r), 7);
    assert_int_equal(ma_store_run_file_count(r), 7);
    ma_store_run_free(r);
    assert_int_equal(ma_store_run_load(&r, a, 99, &err), MA_EMISSING);
    assert_null(r);

    ma_report *rep = NULL;
    assert_int_equal(ma_store_report_load(&rep, a, 1, &err), MA_OK);
    assert_int_equal(ma_store_report_verdict(rep), MA_VERDICT_VERIFIED);
    ma_render_format fmt;
    assert_int_equal(ma_render_format_parse("json", &fmt, &err), MA_OK);
    assert_int_equal(ma_render_format_parse("pdf", &fmt, &err), MA_EINVAL);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(ma_render_report(&text, &len, rep, MA_RENDER_JSON, &err), MA_OK);
    assert_int_equal(strlen(text), len);
    assert_non_null(strstr(text, "\"format\": \"millaudit-report\""));
    assert_non_null(strstr(text, "\"state\": \"verified\""));
    ma_free(text);
    assert_int_equal(ma_render_report(&text, &len, rep, MA_RENDER_TEXT, &err), MA_OK);
    assert_non_null(strstr(text, "verdict: fully verified: 264,399 entries in 7 sectors"));
    char out[600];
    snprintf(out, sizeof out, "%s/report.txt", dir);
    assert_int_equal(ma_render_write_atomic(out, text, len, &err), MA_OK);
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    char *back = calloc(1, len + 1);
    assert_int_equal(fread(back, 1, len + 1, f), len);
    fclose(f);
    assert_memory_equal(back, text, len);
    free(back);
    ma_free(text);
    ma_store_report_free(rep);
    ma_audit_free(a);
}

static void test_export_import_compare(void **state)
{
    (void)state;
    ma_error err;
    ma_run *r = NULL, *parsed = NULL, *copy = NULL;
    char *doc = NULL, *doc2 = NULL;
    assert_int_equal(ma_store_run_load_path(&r, store, 1, &err), MA_OK);
    assert_int_equal(ma_store_run_export(&doc, r, &err), MA_OK);
    assert_int_equal(ma_store_run_parse(&parsed, doc, strlen(doc), "run.json", &err), MA_OK);

    char other[600];
    snprintf(other, sizeof other, "%s/other.sqlite", dir);
    ma_audit *b = NULL;
    assert_int_equal(ma_audit_open(&b, other, &err), MA_OK);
    int64_t new_id = 0;
    assert_int_equal(ma_store_run_import(&new_id, b, parsed, "run.json", &err), MA_OK);
    assert_int_equal(new_id, 1);
    ma_audit_free(b);

    assert_int_equal(ma_store_run_load_path(&copy, other, new_id, &err), MA_OK);
    assert_int_equal(ma_store_run_sector_count(copy), 7);
    ma_run_cmp *cmp = NULL;
    assert_int_equal(ma_store_compare(&cmp, r, copy, &err), MA_OK);
    assert_int_equal(ma_store_compare_verdict(cmp), MA_VERDICT_AGREE);
    assert_null(ma_store_compare_problem(cmp));
    char *text = NULL;
    assert_int_equal(ma_render_runs_compare(&text, cmp, r, store, copy, other, 0, &err), MA_OK);
    assert_non_null(strstr(text, "equal: 7 sectors"));
    ma_free(text);
    ma_store_compare_free(cmp);
    /* the imported run keeps its facts and says where it came from */
    assert_int_equal(ma_store_run_export(&doc2, copy, &err), MA_OK);
    assert_non_null(strstr(doc, "\"imported_from\": null"));
    assert_non_null(strstr(doc2, "\"imported_from\": {\n    \"source\": \"run.json\",\n    \"source_run_id\": 1,"));
    char *facts = strstr(doc, "\"run\": {"), *facts2 = strstr(doc2, "\"run\": {");
    assert_memory_equal(facts, facts2, (size_t)(strstr(facts, "}") - facts));

    /* a damaged document is refused, naming the key at fault; a cut one as well */
    char *bad = strdup(doc);
    char *k = strstr(bad, "\"entries\"");
    assert_non_null(k);
    memcpy(k, "\"entriez\"", 9);
    ma_run *refused = NULL;
    assert_int_equal(ma_store_run_parse(&refused, bad, strlen(bad), "bad.json", &err), MA_EFORMAT);
    assert_null(refused);
    assert_non_null(strstr(err.msg, "bad.json"));
    assert_int_equal(ma_store_run_parse(&refused, doc, strlen(doc) / 2, "cut.json", &err), MA_EFORMAT);
    free(bad);
    ma_free(doc);
    ma_free(doc2);
    ma_store_run_free(r);
    ma_store_run_free(parsed);
    ma_store_run_free(copy);
}

static void test_regressions_after_damage(void **state)
{
    (void)state;
    char db2[600], reg[600], sector[700];
    snprintf(db2, sizeof db2, "%s/db2", dir);
    snprintf(reg, sizeof reg, "%s/reg.sqlite", dir);
    snprintf(sector, sizeof sector, "%s/std_2_2_1_1.mdb", db2);
    assert_int_equal(sh("cp -r '%s' '%s'", db, db2), 0);
    assert_int_equal(sh("'%s' verify '%s' --audit '%s' >/dev/null", millaudit(), db2, reg), 0);
    flip_byte(sector, 1000); /* a stored value in the body: the sector no longer verifies */
    assert_true(sh("'%s' verify '%s' --audit '%s' >/dev/null 2>&1", millaudit(), db2, reg) != 0);

    ma_error err;
    ma_audit *a = NULL;
    assert_int_equal(ma_audit_open_readonly(&a, reg, &err), MA_OK);
    ma_run_regressions *g = NULL;
    ma_regressions_options o = {0, 0, NULL, reg};
    assert_int_equal(ma_store_regressions(&g, a, &o, &err), MA_OK);
    assert_int_equal(ma_store_regressions_verdict(g), MA_VERDICT_DIFFER);
    char *text = NULL;
    assert_int_equal(ma_render_regressions(&text, g, 0, &err), MA_OK);
    assert_non_null(strstr(text, "REGRESSION  std_2_2_1_1"));
    ma_free(text);
    ma_store_regressions_free(g);
    /* run 1 against nothing before it: no baseline, nothing regressed */
    ma_regressions_options first = {1, 0, NULL, reg};
    assert_int_equal(ma_store_regressions(&g, a, &first, &err), MA_OK);
    assert_int_equal(ma_store_regressions_verdict(g), MA_VERDICT_AGREE);
    ma_store_regressions_free(g);
    ma_audit_free(a);
}

static void test_attestation(void **state)
{
    (void)state;
    char key[600], pub[600];
    snprintf(key, sizeof key, "%s/key.pem", dir);
    snprintf(pub, sizeof pub, "%s/pub.pem", dir);
    assert_int_equal(sh("openssl genpkey -algorithm ed25519 -out '%s' && openssl pkey -in '%s' -pubout -out '%s'", key,
                        key, pub),
                     0);
    ma_error err;
    ma_ed25519_key *sk = NULL, *pk = NULL;
    assert_int_equal(ma_ed25519_load_private(&sk, key, &err), MA_OK);
    assert_int_equal(ma_ed25519_load_public(&pk, pub, &err), MA_OK);
    ma_audit *a = NULL;
    assert_int_equal(ma_audit_open_readonly(&a, store, &err), MA_OK);
    ma_attest_created made;
    ma_attest_create_options opt = {.identity = "api test", .store_name = store};
    int rc = ma_store_attest_create(&made, a, sk, &opt, &err);
    assert_int_equal(rc, MA_OK);
    assert_int_equal(ma_store_attest_create_result(rc, &made), MA_OK);
    assert_string_equal(made.verdict, "verified");
    assert_int_equal(made.n_subjects, 7);

    ma_attest_check *k = NULL;
    assert_int_equal(ma_store_attest_verify(&k, made.envelope, made.len, "att.json", pk, db, 1, &err), MA_OK);
    assert_int_equal(ma_store_attest_verdict(k), MA_VERDICT_VERIFIED);
    assert_string_equal(ma_store_attest_identity(k), "api test");
    ma_run *r = NULL;
    assert_int_equal(ma_store_attest_to_run(&r, k, &err), MA_OK);
    assert_int_equal(ma_store_run_sector_count(r), 7);
    ma_store_run_free(r);
    ma_store_attest_check_free(k);

    /* a changed payload: the signature no longer verifies, and nothing of it is trusted */
    char *forged = strdup(made.envelope);
    char *p = strstr(forged, "\"payload\"");
    assert_non_null(p);
    p = strchr(p + 10, '"') + 5;
    *p = *p == 'A' ? 'B' : 'A';
    assert_int_equal(ma_store_attest_verify(&k, forged, strlen(forged), "forged.json", pk, NULL, 1, &err), MA_OK);
    assert_false(ma_store_attest_signature_valid(k));
    assert_int_equal(ma_store_attest_verdict(k), MA_VERDICT_DIFFER);
    assert_int_equal(ma_store_attest_to_run(&r, k, &err), MA_EINVAL);
    char *problems = NULL;
    assert_int_equal(ma_render_attest_problems(&problems, k, "forged.json", NULL, "", &err), MA_OK);
    assert_non_null(strstr(problems, "forged.json: bad signature"));
    ma_free(problems);
    ma_store_attest_check_free(k);
    free(forged);
    ma_attest_created_free(&made);
    ma_audit_free(a);
    ma_ed25519_key_free(sk);
    ma_ed25519_key_free(pk);
}

static void test_damaged_stores_refused(void **state)
{
    (void)state;
    ma_error err;
    ma_audit *a = NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/missing.sqlite", dir);
    assert_int_equal(ma_audit_open_readonly(&a, path, &err), MA_EMISSING);
    assert_null(a);
    /* a file that is no SQLite database at all */
    snprintf(path, sizeof path, "%s/db/std_3_3_0_0.mdb", dir);
    assert_int_equal(ma_audit_open_readonly(&a, path, &err), MA_EFORMAT);
    /* the store with its header damaged, and one with a damaged page: refused, never read as data */
    snprintf(path, sizeof path, "%s/damaged.sqlite", dir);
    assert_int_equal(sh("cp '%s' '%s'", store, path), 0);
    flip_byte(path, 3);
    assert_int_equal(ma_audit_open_readonly(&a, path, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "damaged.sqlite"));
    assert_int_equal(sh("cp '%s' '%s'", store, path), 0);
    for (long off = 4096; off < 4 * 4096; off += 97)
        flip_byte(path, off);
    ma_run *r = NULL;
    assert_int_not_equal(ma_store_run_load_path(&r, path, 1, &err), MA_OK);
    assert_null(r);
    assert_int_equal(ma_audit_open(&a, path, &err), MA_EFORMAT); /* the writer checks pages first */
    assert_null(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_runs),
        cmocka_unit_test(test_load_run_and_report),
        cmocka_unit_test(test_export_import_compare),
        cmocka_unit_test(test_regressions_after_damage),
        cmocka_unit_test(test_attestation),
        cmocka_unit_test(test_damaged_stores_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
