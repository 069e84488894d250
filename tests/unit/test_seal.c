/* Unit tests for checksums/seal (keys, HMAC-SHA256 and Ed25519 seals of a digest), the canonical
 * content of a run (reports/store/audit_seal.h) and verifier/run/seal (a run sealed, a seal checked): any row changed
 * after sealing breaks the seal; what changes after a run ended (continued_by, heartbeat) does not. */
#define _GNU_SOURCE
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

#include <sqlite3.h>

#include "checksums/seal.h"
#include "verifier/run/seal.h"
#include "reports/store/audit.h"
#include "reports/store/audit_seal.h"
#include "reports/store/runs.h"
#include "support.h"

static char dir[64];

static const char *at(const char *name) { return ma_test_path_in(dir, name); }

static void sh(const char *cmd)
{
    char full[600];
    snprintf(full, sizeof full, "cd '%s' && %s >/dev/null 2>&1", dir, cmd);
    assert_int_equal(system(full), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/ma_seal_XXXXXX");
    assert_non_null(mkdtemp(dir));
    ma_test_spit(at("secret.key"), "0123456789abcdef0123456789abcdef\n", 33);
    ma_test_spit(at("other.key"), "fedcba9876543210fedcba9876543210\n", 33);
    ma_test_spit(at("short.key"), "0123456789\n", 11);
    sh("openssl genpkey -algorithm ed25519 -out ed.pem && openssl pkey -in ed.pem -pubout -out ed.pub");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static ma_seal_key *load(const char *name, int want)
{
    ma_seal_key *k = NULL;
    ma_error err;
    assert_int_equal(ma_seal_key_load(&k, at(name), &err), want);
    return k;
}

static void test_keys_and_seals(void **state)
{
    (void)state;
    ma_seal_key *s = load("secret.key", MA_OK), *o = load("other.key", MA_OK);
    ma_seal_key *priv = load("ed.pem", MA_OK), *pub = load("ed.pub", MA_OK);
    assert_null(load("short.key", MA_EFORMAT));
    assert_null(load("none.key", MA_EMISSING));
    assert_string_equal(ma_seal_key_algorithm(s), "hmac-sha256");
    assert_string_equal(ma_seal_key_algorithm(pub), "ed25519");
    assert_int_equal(strlen(ma_seal_key_id(s)), 64);
    assert_string_not_equal(ma_seal_key_id(s), ma_seal_key_id(o));
    /* the private and the public key are one key */
    assert_string_equal(ma_seal_key_id(priv), ma_seal_key_id(pub));
    assert_true(ma_seal_key_can_seal(s) && ma_seal_key_can_seal(priv));
    assert_false(ma_seal_key_can_seal(pub));
    uint8_t d[32], e[32];
    memset(d, 7, sizeof d);
    memcpy(e, d, sizeof e);
    e[31] ^= 1;
    char mac[129], sig[129];
    ma_error err;
    assert_int_equal(ma_seal_make(s, d, mac, &err), MA_OK);
    assert_int_equal(strlen(mac), 64);
    assert_true(ma_seal_valid(s, "hmac-sha256", d, mac));
    assert_false(ma_seal_valid(s, "hmac-sha256", e, mac));  /* another digest */
    assert_false(ma_seal_valid(o, "hmac-sha256", d, mac));  /* another secret */
    assert_false(ma_seal_valid(s, "ed25519", d, mac));      /* another algorithm */
    mac[5] = mac[5] == '0' ? '1' : '0';
    assert_false(ma_seal_valid(s, "hmac-sha256", d, mac));
    assert_int_equal(ma_seal_make(pub, d, sig, &err), MA_EINVAL);
    assert_int_equal(ma_seal_make(priv, d, sig, &err), MA_OK);
    assert_int_equal(strlen(sig), 128);
    assert_true(ma_seal_valid(pub, "ed25519", d, sig) && ma_seal_valid(priv, "ed25519", d, sig));
    assert_false(ma_seal_valid(pub, "ed25519", e, sig));
    assert_false(ma_seal_valid(pub, "ed25519", d, "00"));
    ma_seal_key_free(s);
    ma_seal_key_free(o);
    ma_seal_key_free(priv);
    ma_seal_key_free(pub);
}

/* A verify run written with the store's writers, with one sector and its inputs. */
static int64_t a_run(ma_audit *a)
{
    ma_run r;
    memset(&r, 0, sizeof r);
    r.kind = "verify";
    r.status = "ok";
    r.started_at = "2026-11-26T10:00:00.000Z";
    r.ended_at = "2026-11-26T10:00:01.000Z";
    r.database_root = "/db";
    r.format = "open";
    ma_run_sector x;
    memset(&x, 0, sizeof x);
    x.sector = "std_3_3_0_0";
    x.status = "ok";
    x.entries = x.checked = x.verified = 10;
    r.sectors = &x;
    r.n_sectors = 1;
    ma_run_file f;
    memset(&f, 0, sizeof f);
    f.path = "std_3_3_0_0.mdb";
    f.sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    f.size = 10;
    r.files = &f;
    r.n_files = 1;
    r.has_manifest = 1;
    int64_t id = 0;
    ma_error err;
    assert_int_equal(ma_run_import(a, &r, "test", &id, &err), MA_OK);
    return id;
}

static void exec(const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(at("a.sqlite"), &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
    sqlite3_close(db);
}

static void test_a_sealed_run_and_its_rows(void **state)
{
    (void)state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, at("a.sqlite"), &err), MA_OK);
    int64_t id = a_run(a);
    ma_seal_key *s = load("secret.key", MA_OK), *o = load("other.key", MA_OK);
    char by[65];
    /* not sealed yet */
    assert_int_equal(ma_run_seal_check(a, id, s, "a.sqlite", by, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "is not sealed"));
    assert_int_equal(ma_run_seal(a, id, s, &err), MA_OK);
    assert_int_equal(ma_run_seal_check(a, id, s, "a.sqlite", by, &err), MA_OK);
    assert_string_equal(by, ma_seal_key_id(s));
    assert_int_equal(ma_run_seal_check(a, id, o, "a.sqlite", by, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "not by the hmac-sha256 key"));
    ma_audit_close(a);
    /* what changes after a run ended does not break its seal; any row it wrote does */
    static const struct {
        const char *sql;
        int breaks;
    } edits[] = {
        {"UPDATE runs SET continued_by = 9, heartbeat_at = 'now', pid = 1", 0},
        {"UPDATE sector_results SET verified = 9", 1},
        {"UPDATE sector_results SET seconds = seconds + 0.5", 1},
        {"UPDATE runs SET status = 'interrupted'", 1},
        {"UPDATE runs SET scope = 'database'", 1},
        {"INSERT INTO sector_class_counts (run_id, sector, class, count) VALUES (1, 'std_3_3_0_0', 'x', 1)", 1},
        {"UPDATE manifest_files SET sha256 = 'ff' || substr(sha256, 3)", 1},
        {"DELETE FROM sector_results", 1},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        sh("cp a.sqlite b.sqlite");
        exec(edits[i].sql);
        assert_int_equal(ma_audit_open_readonly(&a, at("a.sqlite"), &err), MA_OK);
        int rc = ma_run_seal_check(a, id, s, "a.sqlite", by, &err);
        ma_audit_close(a);
        if (rc != (edits[i].breaks ? MA_EFORMAT : MA_OK))
            fail_msg("%s: %d (%s)", edits[i].sql, rc, err.msg);
        if (edits[i].breaks)
            assert_non_null(strstr(err.msg, "the seal does not verify"));
        sh("mv b.sqlite a.sqlite");
    }
    ma_seal_key_free(s);
    ma_seal_key_free(o);
}

/* Values are encoded unambiguously: an empty text is not NULL. */
static void test_canonical_content_is_unambiguous(void **state)
{
    (void)state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, at("c.sqlite"), &err), MA_OK);
    int64_t id = a_run(a);
    char *one = NULL, *two = NULL;
    size_t n1, n2;
    assert_int_equal(ma_audit_run_canonical(a, id, &one, &n1, &err), MA_OK);
    assert_non_null(memmem(one, n1, "sector_results|T11:std_3_3_0_0|", 31));
    ma_audit_close(a);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(at("c.sqlite"), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE sector_results SET message = ''", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(ma_audit_open_readonly(&a, at("c.sqlite"), &err), MA_OK);
    assert_int_equal(ma_audit_run_canonical(a, id, &two, &n2, &err), MA_OK);
    assert_false(n1 == n2 && memcmp(one, two, n1) == 0);
    free(two);
    two = NULL;
    assert_int_equal(ma_audit_run_canonical(a, id + 1, &two, &n2, &err), MA_EMISSING);
    ma_audit_close(a);
    free(one);
    free(two);
}

/* The seal is only as wide as its table list: a table of a run's rows that the list forgets can be
 * edited under a good seal. Every table of the newest schema that holds rows of a run is either
 * sealed or named here with why a sealed merge never reads it; a new table fails this test until
 * someone decides. */
static void test_every_run_table_is_sealed_or_not_read_by_a_merge(void **state)
{
    (void)state;
    static const char *const not_merged[] = {
        "grade_runs", "grade_moves", "opening_results", /* rows of other commands' runs, not a shard run */
        "run_attestations",                            /* written after a run, about it; not its content */
        "run_imports",                                 /* an imported run, never a shard run to merge */
        "run_seals",                                   /* the seal itself */
        "run_shards",                                  /* a merge's provenance, written by the merge */
    };
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, at("schema.sqlite"), &err), MA_OK);
    ma_audit_close(a);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(at("schema.sqlite"), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND "
                                            "(m.name = 'runs' OR EXISTS (SELECT 1 FROM pragma_table_info(m.name) "
                                            "WHERE name = 'run_id')) ORDER BY m.name", -1, &st, NULL),
                     SQLITE_OK);
    int tables = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, 0);
        int exempt = 0;
        for (size_t i = 0; i < sizeof not_merged / sizeof not_merged[0]; i++)
            exempt |= !strcmp(not_merged[i], t);
        if (ma_audit_seal_covers(t) == exempt)
            fail_msg("table %s: %s", t, exempt ? "sealed but listed as not read by a merge"
                                                : "holds a run's rows, neither sealed nor listed as not merged");
        tables++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_true(tables > 10); /* the query found the schema, not an empty store */
    assert_true(ma_audit_seal_covers("sector_results") && ma_audit_seal_covers("runs"));
    assert_false(ma_audit_seal_covers("run_seals"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_and_seals),
        cmocka_unit_test(test_a_sealed_run_and_its_rows),
        cmocka_unit_test(test_canonical_content_is_unambiguous),
        cmocka_unit_test(test_every_run_table_is_sealed_or_not_read_by_a_merge),
    };
    return ma_test_run_group(tests, setup, teardown);
}
