/* Unit tests for reports/store/runs: load, export/import round trip between two stores, strict parsing,
 * compare (bytes / values / missing), and the schema v3 writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/store/audit.h"
#include "reports/store/audit_manifest.h"
#include "reports/store/runs.h"

typedef struct fixture {
    char dir[64];
    char a[128], b[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/ma_test_runs_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->a, sizeof f->a, "%s/a.sqlite", f->dir);
    snprintf(f->b, sizeof f->b, "%s/b.sqlite", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static const char D1[] = "1111111111111111111111111111111111111111111111111111111111111111";
static const char D2[] = "2222222222222222222222222222222222222222222222222222222222222222";

/* Records a verify run of two sectors with a manifest, digests, a histogram and a discrepancy. */
static int64_t record_run(ma_audit *a, const char *digest_33)
{
    ma_error err;
    ma_run_info info = {"verify", "0.1.0", "abcdef123456", "host", "millaudit verify db \"x<y>\"", "/db", "std", "open"};
    int64_t id;
    assert_int_equal(ma_audit_run_begin(a, &info, &id, &err), MA_OK);
    ma_class_count cc[] = {{"wrong-depth", 1}};
    ma_sector_result s1 = {"std_3_3_0_0", "/db/std_3_3_0_0.mdb", 210140, 210140, 210139, 0, 1, cc, 1, 1.5,
                           "discrepancies", NULL};
    ma_sector_result s2 = {"std_3_2_0_0", "/db/std_3_2_0_0.mdb", 100, 100, 100, 0, 0, NULL, 0, 0.25, "ok", NULL};
    assert_int_equal(ma_audit_sector_record(a, id, &s1, &err), MA_OK);
    assert_int_equal(ma_audit_sector_record(a, id, &s2, &err), MA_OK);
    ma_discrepancy d = {"std_3_3_0_0", 42, "a1,d1,g1/b2,d2,f2", "win 3 (0xC003)", "win 5", "wrong-depth"};
    assert_int_equal(ma_audit_discrepancies_add(a, id, &d, 1, &err), MA_OK);
    assert_int_equal(ma_audit_sector_digest_set(a, id, "std_3_3_0_0", digest_33, 169626, &err), MA_OK);
    assert_int_equal(ma_audit_sector_digest_set(a, id, "std_3_2_0_0", D2, 60, &err), MA_OK);
    ma_histogram_bin bins[] = {{"win", 1, 500}, {"loss", 0, 20}, {"draw", 0, 3}};
    assert_int_equal(ma_audit_sector_histogram_set(a, id, "std_3_2_0_0", bins, 3, &err), MA_OK);
    uint8_t sha[32], chunks[2][32];
    memset(sha, 0xab, sizeof sha);
    memset(chunks, 0xcd, sizeof chunks);
    assert_int_equal(ma_audit_manifest_begin(a, id, NULL, 1024, &err), MA_OK);
    ma_audit_manifest_file f = {"std_3_3_0_0.mdb", 1500, sha, 1024, 2, (const uint8_t(*)[32])chunks, "std", "open",
                                "std_3_3_0_0", "millaudit-solver", "0.1.0", 1, 210140, NULL};
    assert_int_equal(ma_audit_manifest_file_add(a, id, &f, &err), MA_OK);
    assert_int_equal(ma_audit_run_end(a, id, "discrepancies", &err), MA_OK);
    return id;
}

static char *export_run(const char *path, int64_t id)
{
    ma_audit *a;
    ma_error err;
    ma_run r;
    char *text = NULL;
    assert_int_equal(ma_audit_open_readonly(&a, path, &err), MA_OK);
    assert_int_equal(ma_run_load(a, id, &r, &err), MA_OK);
    assert_int_equal(ma_run_to_json(&r, &text, &err), MA_OK);
    ma_run_free(&r);
    ma_audit_close(a);
    return text;
}

static void test_load_sees_everything(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->a, &err), MA_OK);
    int64_t id = record_run(a, D1), latest;
    assert_int_equal(ma_runs_latest(a, &latest, &err), MA_OK);
    assert_int_equal(latest, id);
    ma_run r;
    assert_int_equal(ma_run_load(a, id, &r, &err), MA_OK);
    assert_string_equal(r.kind, "verify");
    assert_int_equal(r.n_sectors, 2);
    assert_string_equal(r.sectors[0].sector, "std_3_2_0_0"); /* sorted by name */
    assert_int_equal(r.sectors[0].n_bins, 3);
    assert_string_equal(r.sectors[1].derived_sha256, D1);
    assert_int_equal(r.sectors[1].derived_positions, 169626);
    assert_int_equal(r.sectors[1].n_classes, 1);
    assert_int_equal(r.n_disc, 1);
    assert_int_equal(r.n_files, 1);
    assert_int_equal(r.files[0].n_chunks, 2);
    assert_true(r.has_manifest);
    assert_false(r.imported);
    ma_run_free(&r);
    assert_int_equal(ma_run_load(a, id + 5, &r, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "does not exist"));
    ma_run_free(&r);
    /* writers refuse unknown sectors and bad digests */
    assert_int_equal(ma_audit_sector_digest_set(a, id, "std_9_9_0_0", D1, 1, &err), MA_EINVAL);
    assert_int_equal(ma_audit_sector_digest_set(a, id, "std_3_3_0_0", "ABC", 1, &err), MA_EINVAL);
    ma_histogram_bin bad = {"maybe", 0, 1};
    assert_int_equal(ma_audit_sector_histogram_set(a, id, "std_3_3_0_0", &bad, 1, &err), MA_EINVAL);
    ma_audit_close(a);
}

static void test_export_import_round_trip(void **state)
{
    fixture *f = *state;
    ma_audit *a, *b;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->a, &err), MA_OK);
    int64_t id = record_run(a, D1);
    ma_audit_close(a);
    char *first = export_run(f->a, id);

    ma_run r;
    assert_int_equal(ma_run_from_json(&r, first, strlen(first), "run.json", &err), MA_OK);
    assert_int_equal(ma_audit_open(&b, f->b, &err), MA_OK);
    /* a store that already has runs: the import gets a new id */
    ma_run_info info = {"manifest", NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    int64_t other, new_id;
    assert_int_equal(ma_audit_run_begin(b, &info, &other, &err), MA_OK);
    assert_int_equal(ma_run_import(b, &r, "run.json", &new_id, &err), MA_OK);
    assert_int_not_equal(new_id, other);
    ma_run_free(&r);
    ma_audit_close(b);

    char *second = export_run(f->b, new_id);
    /* identical except the id and the recorded origin */
    ma_run x, y;
    assert_int_equal(ma_run_from_json(&x, first, strlen(first), "first", &err), MA_OK);
    assert_int_equal(ma_run_from_json(&y, second, strlen(second), "second", &err), MA_OK);
    assert_true(y.imported);
    assert_string_equal(y.import_source, "run.json");
    assert_int_equal(y.import_source_run_id, id);
    assert_string_equal(y.started_at, x.started_at); /* original facts kept */
    assert_string_equal(y.command_line, "millaudit verify db \"x<y>\"");
    ma_run_cmp c;
    assert_int_equal(ma_run_compare(&c, &x, &y, &err), MA_OK);
    assert_int_equal(c.n_rows, 2);
    assert_int_equal(c.n_same, 2);
    assert_int_equal(c.n_differ, 0);
    ma_run_cmp_free(&c);
    const char *cut1 = strstr(first, "\"kind\""), *cut2 = strstr(second, "\"kind\"");
    const char *end1 = strstr(first, "\"imported_from\""), *end2 = strstr(second, "\"imported_from\"");
    assert_int_equal(end1 - cut1, end2 - cut2);
    assert_memory_equal(cut1, cut2, (size_t)(end1 - cut1));
    const char *man1 = strstr(first, "\"manifest\":"), *man2 = strstr(second, "\"manifest\":");
    assert_string_equal(man1, man2);
    ma_run_free(&x);
    ma_run_free(&y);
    free(first);
    free(second);
}

static void test_compare_bytes_values_missing(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->a, &err), MA_OK);
    int64_t one = record_run(a, D1), two = record_run(a, D2);
    ma_run x, y;
    assert_int_equal(ma_run_load(a, one, &x, &err), MA_OK);
    assert_int_equal(ma_run_load(a, two, &y, &err), MA_OK);
    ma_run_cmp c;
    assert_int_equal(ma_run_compare(&c, &x, &y, &err), MA_OK);
    assert_int_equal(c.n_differ, 1);
    assert_string_equal(c.rows[1].name, "std_3_3_0_0");
    assert_int_equal(c.rows[1].bytes, MA_CMP_SAME);
    assert_int_equal(c.rows[1].values, MA_CMP_DIFFER);
    assert_string_equal(c.rows[1].how, "values");
    assert_string_equal(c.rows[0].how, "same");
    ma_run_cmp_free(&c);
    /* bytes: change the file digest of one side */
    y.files[0].sha256[0] = 'f';
    free(y.sectors[1].derived_sha256);
    y.sectors[1].derived_sha256 = strdup(D1);
    assert_int_equal(ma_run_compare(&c, &x, &y, &err), MA_OK);
    assert_string_equal(c.rows[1].how, "bytes only");
    ma_run_cmp_free(&c);
    /* missing: one side lost a sector */
    y.n_sectors = 1; /* keeps std_3_2_0_0 only; the file row still names std_3_3_0_0 */
    y.n_files = 0;
    assert_int_equal(ma_run_compare(&c, &x, &y, &err), MA_OK);
    assert_string_equal(c.rows[1].how, "missing in B");
    ma_run_cmp_free(&c);
    y.n_sectors = 2;
    y.n_files = 1;
    ma_run_free(&x);
    ma_run_free(&y);
    ma_audit_close(a);
}

static void expect_refused(const char *text, const char *needle)
{
    ma_run r;
    ma_error err;
    assert_int_equal(ma_run_from_json(&r, text, strlen(text), "doc.json", &err), MA_EFORMAT);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    assert_non_null(strstr(err.msg, "doc.json"));
    assert_null(strchr(err.msg, '\n'));
    assert_null(r.kind);
}

static void test_strict_parse(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->a, &err), MA_OK);
    int64_t id = record_run(a, D1);
    ma_audit_close(a);
    char *good = export_run(f->a, id);

    expect_refused("{\"format\": \"millaudit-run\", \"version\": 1", "not valid JSON");
    expect_refused("[1, 2, 3]", "not an object");
    expect_refused("{\"name\": \"some-other-tool\", \"version\": 1}", "foreign document");
    expect_refused("", "not valid JSON");
    size_t n = strlen(good);
    char *bad = malloc(n + 64);
    /* another version */
    strcpy(bad, good);
    char *v = strstr(bad, "\"version\": 1");
    v[11] = '2';
    expect_refused(bad, "version");
    /* a digest that is not hex */
    strcpy(bad, good);
    char *d = strstr(bad, D1);
    d[5] = 'Z';
    expect_refused(bad, "derived_sha256");
    /* a negative count */
    strcpy(bad, good);
    char *e = strstr(bad, "\"verified\": 210139");
    memcpy(e + 12, "-1    ", 6);
    expect_refused(bad, "verified");
    /* an unknown key */
    strcpy(bad, good);
    char *k = strstr(bad, "\"tool_version\"");
    memcpy(k, "\"tool_versioX\"", 14);
    expect_refused(bad, "unknown key");
    /* a duplicate key */
    strcpy(bad, good);
    k = strstr(bad, "\"host\"");
    memcpy(k, "\"kind\"", 6);
    expect_refused(bad, "duplicate");
    /* the good one still parses */
    ma_run r;
    assert_int_equal(ma_run_from_json(&r, good, n, "doc.json", &err), MA_OK);
    ma_run_free(&r);
    free(bad);
    free(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_load_sees_everything, setup, teardown),
        cmocka_unit_test_setup_teardown(test_export_import_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compare_bytes_values_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strict_parse, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
