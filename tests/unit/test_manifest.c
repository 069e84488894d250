/* Unit tests for checksums/manifest (and the manifest tables of reports/store/audit_manifest). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/manifest.h"
#include "verifier/run/manifest_record.h"
#include "checksums/sha256.h"
#include "reports/store/audit.h"
#include "reports/store/audit_manifest.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/ma_test_manifest_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *rel, const void *data, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void test_path_check_refuses_absolute_and_climbing(void **state)
{
    (void)state;
    ma_error e;
    assert_int_equal(ma_manifest_path_check("a/b.mdb", &e), MA_OK);
    assert_int_equal(ma_manifest_path_check("./a..b/..c", &e), MA_OK);
    assert_int_equal(ma_manifest_path_check("/etc/passwd", &e), MA_EFORMAT);
    assert_non_null(strstr(e.msg, "/etc/passwd"));
    assert_int_equal(ma_manifest_path_check("..", &e), MA_EFORMAT);
    assert_int_equal(ma_manifest_path_check("../x", &e), MA_EFORMAT);
    assert_int_equal(ma_manifest_path_check("a/../../x", &e), MA_EFORMAT);
    assert_int_equal(ma_manifest_path_check("a/./../../x", &e), MA_EFORMAT);
    assert_int_equal(ma_manifest_path_check("", &e), MA_EFORMAT);
    /* a ".." that undoes a component stays inside, as sha256sum -c reads it (issue 22) */
    assert_int_equal(ma_manifest_path_check("sub/../a.mdb", &e), MA_OK);
    assert_int_equal(ma_manifest_path_check("a/b/../../c", &e), MA_OK);
    assert_int_equal(ma_manifest_path_check("a//..", &e), MA_OK);
}

/* The top only: no subdirectory is opened, so one that cannot be read is no error (it is for the
 * whole tree's listing). */
static void test_list_top_opens_no_subdirectory(void **state)
{
    (void)state;
    put("b.mdb", "b", 1);
    put("a.bin", "a", 1);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/lost+found", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    put("lost+found/c.mdb", "c", 1);
    char **paths = NULL;
    size_t n = 0;
    ma_error e;
    assert_int_equal(ma_manifest_list_top(&paths, &n, dir, NULL, 0, &e), MA_OK);
    assert_int_equal(n, 2);
    assert_string_equal(paths[0], "a.bin");
    assert_string_equal(paths[1], "b.mdb");
    ma_manifest_paths_free(paths, n);
    assert_int_equal(ma_manifest_list(&paths, &n, dir, NULL, 0, &e), MA_OK);
    assert_int_equal(n, 3);
    assert_string_equal(paths[2], "lost+found/c.mdb");
    ma_manifest_paths_free(paths, n);
    assert_int_equal(chmod(sub, 0), 0);
    if (geteuid() != 0) { /* root reads a directory of mode 0 */
        assert_int_equal(ma_manifest_list(&paths, &n, dir, NULL, 0, &e), MA_EIO);
        assert_non_null(strstr(e.msg, "lost+found: cannot read directory"));
    }
    assert_int_equal(ma_manifest_list_top(&paths, &n, dir, NULL, 0, &e), MA_OK);
    assert_int_equal(n, 2);
    ma_manifest_paths_free(paths, n);
    assert_int_equal(chmod(sub, 0755), 0);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/none", dir);
    assert_int_equal(ma_manifest_list_top(&paths, &n, missing, NULL, 0, &e), MA_EMISSING);
}

static void test_list_write_read_round_trip_with_escaped_names(void **state)
{
    (void)state;
    put("b.bin", "bbb", 3);
    put("a.bin", "a", 1);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    put("sub/back\\slash\nnewline", "x", 1);
    put("MANIFEST.sha256", "old", 3);

    const char *exclude[] = {"MANIFEST.sha256"};
    char **paths = NULL;
    size_t n = 0;
    ma_error e;
    assert_int_equal(ma_manifest_list(&paths, &n, dir, exclude, 1, &e), MA_OK);
    assert_int_equal(n, 3);
    assert_string_equal(paths[0], "a.bin");
    assert_string_equal(paths[1], "b.bin");
    assert_string_equal(paths[2], "sub/back\\slash\nnewline");

    char *full[3];
    ma_file_digest d[3];
    for (size_t i = 0; i < n; i++) {
        full[i] = malloc(256);
        snprintf(full[i], 256, "%s/%s", dir, paths[i]);
    }
    assert_int_equal(ma_sha256_files(d, NULL, NULL, (const char *const *)full, n, NULL, &e), MA_OK);
    char out[128];
    snprintf(out, sizeof out, "%s/MANIFEST.sha256", dir);
    assert_int_equal(ma_manifest_write(out, (const char *const *)paths, d, n, &e), MA_OK);

    char text[1024] = {0};
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    assert_true(got > 0);
    /* sha256("a") and the escaped third line, as sha256sum writes them. */
    assert_non_null(strstr(text, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  a.bin\n"));
    assert_non_null(strstr(text, "\n\\2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881  "
                                 "sub/back\\\\slash\\nnewline\n"));

    ma_manifest m;
    assert_int_equal(ma_manifest_read(&m, out, &e), MA_OK);
    assert_int_equal(m.n, 3);
    assert_int_equal(m.n_malformed, 0);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(m.lines[i].path, paths[i]);
        assert_memory_equal(m.lines[i].sha256, d[i].digest, MA_SHA256_LEN);
        assert_int_equal(m.lines[i].line, i + 1);
        ma_file_digest_free(&d[i]);
        free(full[i]);
    }
    ma_manifest_free(&m);
    ma_manifest_paths_free(paths, n);
}

static void test_read_counts_malformed_lines_and_refuses_bad_paths(void **state)
{
    (void)state;
    const char text[] =
        "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb *a.bin\r\n"  /* binary mark, CRLF */
        "not a line\n"
        "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48b  short\n"
        "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  \n"       /* empty name */
        "\\ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  bad\\qescape\n";
    put("m1", text, sizeof text - 1);
    char path[128];
    snprintf(path, sizeof path, "%s/m1", dir);
    ma_manifest m;
    ma_error e;
    assert_int_equal(ma_manifest_read(&m, path, &e), MA_OK);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.lines[0].path, "a.bin");
    assert_int_equal(m.n_malformed, 4);
    assert_int_equal(m.first_malformed, 2);
    ma_manifest_free(&m);

    const char climbing[] = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  ok\n"
                            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb  sub/../../x\n";
    put("m2", climbing, sizeof climbing - 1);
    snprintf(path, sizeof path, "%s/m2", dir);
    assert_int_equal(ma_manifest_read(&m, path, &e), MA_EFORMAT);
    assert_non_null(strstr(e.msg, "line 2"));
    assert_non_null(strstr(e.msg, "sub/../../x"));
    assert_int_equal(m.n, 0);
    snprintf(path, sizeof path, "%s/absent", dir);
    assert_int_equal(ma_manifest_read(&m, path, &e), MA_EMISSING);
}

/* The provenance columns recorded beside a file's digests: what the file states about itself
 * (verifier/formats/provenance.h), with the ruleset fingerprint = SHA-256 of the ruleset string. */
static void test_record_states_provenance_and_fingerprint(void **state)
{
    (void)state;
    uint8_t h[128] = {0x89, 'M', 'I', 'L', 'L', 0x0D, 0x0A, 0x1A, 1, 0, 128, 0, 3, 1, 4, 3, 2, 1, 2, 1, 1, 0, 1, 0};
    h[24] = 0x10; h[25] = 0x27; /* 10000 entries */
    memcpy(h + 32, "some-producer", 13);
    memcpy(h + 64, "9.9", 3);
    put("mora_4_3_2_1.mdb", h, sizeof h);
    put("lask_1_2_9_8.sec2", "x", 1);
    put("notes.txt", "x", 1);
    char store[128];
    snprintf(store, sizeof store, "%s/audit.sqlite", dir);
    ma_audit *a = NULL;
    ma_error e;
    assert_int_equal(ma_audit_open(&a, store, &e), MA_OK);
    const ma_run_info info = {.kind = "manifest", .tool_version = "0.1.0", .git_revision = "x"};
    int64_t run = 0;
    assert_int_equal(ma_audit_run_begin(a, &info, &run, &e), MA_OK);
    const char *rel[] = {"mora_4_3_2_1.mdb", "lask_1_2_9_8.sec2", "notes.txt"};
    ma_sha256_options opt = {.chunk_size = 128, .threads = 1};
    assert_int_equal(ma_manifest_record(a, run, dir, rel, 3, &opt, &e), MA_OK);
    ma_audit_close(a);

    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(store, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT path, variant, format, sector, producer, producer_version, "
                                        "entries, ruleset_fingerprint FROM manifest_files ORDER BY path",
                                        -1, &st, NULL),
                     SQLITE_OK);
    static const char *const rulesets[] = {"millaudit-ruleset-1|lask|0|malom-index|malom-sec2",
                                           "millaudit-ruleset-1|mora|1|open-index-1.1|open-values-1"};
    for (int row = 0; row < 3; row++) {
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        const char *path = (const char *)sqlite3_column_text(st, 0);
        if (row == 2) { /* notes.txt states nothing */
            assert_string_equal(path, "notes.txt");
            for (int k = 1; k < 8; k++)
                assert_int_equal(sqlite3_column_type(st, k), SQLITE_NULL);
            continue;
        }
        char hex[65];
        uint8_t d[32];
        ma_sha256_buffer(d, rulesets[row], strlen(rulesets[row]));
        ma_sha256_hex(hex, d);
        assert_string_equal((const char *)sqlite3_column_text(st, 7), hex);
        if (row == 0) {
            assert_string_equal(path, "lask_1_2_9_8.sec2");
            assert_string_equal((const char *)sqlite3_column_text(st, 2), "malom-sec2");
            assert_string_equal((const char *)sqlite3_column_text(st, 3), "lask_1_2_9_8");
            assert_int_equal(sqlite3_column_type(st, 4), SQLITE_NULL);
            assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL);
        } else {
            assert_string_equal(path, "mora_4_3_2_1.mdb");
            assert_string_equal((const char *)sqlite3_column_text(st, 1), "mora");
            assert_string_equal((const char *)sqlite3_column_text(st, 2), "open");
            assert_string_equal((const char *)sqlite3_column_text(st, 3), "mora_4_3_2_1");
            assert_string_equal((const char *)sqlite3_column_text(st, 4), "some-producer");
            assert_string_equal((const char *)sqlite3_column_text(st, 5), "9.9");
            assert_int_equal(sqlite3_column_int64(st, 6), 10000);
        }
    }
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_record_for_a_verify_run_and_find_chunks(void **state)
{
    (void)state;
    uint8_t data[300];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 31);
    put("sector.bin", data, sizeof data);
    char store[128];
    snprintf(store, sizeof store, "%s/audit.sqlite", dir);
    ma_audit *a = NULL;
    ma_error e;
    assert_int_equal(ma_audit_open(&a, store, &e), MA_OK);
    const ma_run_info info = {.kind = "verify", .tool_version = "0.1.0", .git_revision = "x"};
    int64_t run = 0;
    assert_int_equal(ma_audit_run_begin(a, &info, &run, &e), MA_OK);
    const char *rel[] = {"sector.bin"};
    ma_sha256_options opt = {.chunk_size = 128, .threads = 2};
    assert_int_equal(ma_manifest_record(a, run, dir, rel, 1, &opt, &e), MA_OK);
    /* The same file twice in one run is refused and leaves the first rows. */
    assert_int_equal(ma_manifest_record(a, run, dir, rel, 1, &opt, &e), MA_EINVAL);
    /* An unknown run is refused (foreign keys). */
    assert_int_equal(ma_manifest_record(a, run + 9, dir, rel, 1, &opt, &e), MA_EINVAL);
    const char *missing[] = {"absent.bin"};
    assert_int_equal(ma_manifest_record(a, run, dir, missing, 1, &opt, &e), MA_EMISSING);
    assert_non_null(strstr(e.msg, "absent.bin"));
    ma_audit_close(a);

    assert_int_equal(ma_audit_open_readonly(&a, store, &e), MA_OK);
    uint8_t whole[32];
    ma_sha256_buffer(whole, data, sizeof data);
    ma_audit_chunks c;
    assert_int_equal(ma_audit_manifest_chunks_find(a, &c, "sector.bin", whole, &e), MA_OK);
    assert_int_equal(c.run_id, run);
    assert_int_equal(c.size, 300);
    assert_int_equal(c.chunk_size, 128);
    assert_int_equal(c.n_chunks, 3);
    uint8_t want[32];
    ma_sha256_buffer(want, data + 256, 44);
    assert_memory_equal(c.chunks[2], want, 32);
    ma_audit_chunks_free(&c);
    whole[0] ^= 1;
    assert_int_equal(ma_audit_manifest_chunks_find(a, &c, "sector.bin", whole, &e), MA_EMISSING);
    ma_audit_close(a);
}

static int64_t count(const char *store, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_open_v2(store, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* manifest merge --audit: sizes from the directory, the shards' digests, no chunk rows, one
 * transaction; check --audit passes over such a run for the chunks of an earlier one. */
static void test_record_merged_manifest(void **state)
{
    (void)state;
    uint8_t data[300];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 7);
    put("a.bin", data, sizeof data);
    put("b.bin", "hello", 5);
    char *paths[] = {"a.bin", "b.bin", "c.bin"};
    ma_file_digest dig[3] = {{0}};
    ma_sha256_buffer(dig[0].digest, data, sizeof data);
    ma_sha256_buffer(dig[1].digest, "hello", 5);
    ma_manifest_merged m = {.paths = paths, .digests = dig, .n = 3};
    uint64_t sizes[3] = {0};
    ma_error e;
    /* c.bin is listed but absent: refused, naming it */
    assert_int_equal(ma_manifest_merged_sizes(sizes, dir, &m, &e), MA_EMISSING);
    assert_non_null(strstr(e.msg, "c.bin"));
    m.n = 2;
    assert_int_equal(ma_manifest_merged_sizes(sizes, dir, &m, &e), MA_OK);
    assert_int_equal(sizes[0], 300);
    assert_int_equal(sizes[1], 5);

    char store[128];
    snprintf(store, sizeof store, "%s/audit.sqlite", dir);
    ma_audit *a = NULL;
    assert_int_equal(ma_audit_open(&a, store, &e), MA_OK);
    const ma_run_info info = {.kind = "manifest", .tool_version = "0.1.0", .git_revision = "x", .database_root = dir};
    int64_t created = 0, merged = 0;
    assert_int_equal(ma_audit_run_begin(a, &info, &created, &e), MA_OK);
    const char *rel[] = {"a.bin"};
    ma_sha256_options opt = {.chunk_size = 128, .threads = 1};
    assert_int_equal(ma_manifest_record(a, created, dir, rel, 1, &opt, &e), MA_OK);
    assert_int_equal(ma_manifest_record_merged(a, &info, "OUT.sha256", dir, &m, sizes, &merged, &e), MA_OK);
    assert_true(merged > created);
    /* a path twice fails at its second row: the whole run is rolled back */
    char *twice[] = {"a.bin", "a.bin"};
    ma_file_digest dig2[2] = {dig[0], dig[0]};
    uint64_t sizes2[2] = {300, 300};
    ma_manifest_merged bad = {.paths = twice, .digests = dig2, .n = 2};
    int64_t none = 0;
    assert_int_equal(ma_manifest_record_merged(a, &info, NULL, dir, &bad, sizes2, &none, &e), MA_EINVAL);
    ma_audit_close(a);

    assert_int_equal(count(store, "SELECT count(*) FROM runs"), 2);
    assert_int_equal(count(store, "SELECT count(*) FROM manifests"), 2);
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM manifest_files WHERE run_id = %lld", (long long)merged);
    assert_int_equal(count(store, sql), 2);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM manifest_chunks WHERE run_id = %lld", (long long)merged);
    assert_int_equal(count(store, sql), 0);
    snprintf(sql, sizeof sql, "SELECT size FROM manifest_files WHERE run_id = %lld AND path = 'b.bin'",
             (long long)merged);
    assert_int_equal(count(store, sql), 5);
    snprintf(sql, sizeof sql, "SELECT status = 'ok' FROM runs WHERE id = %lld", (long long)merged);
    assert_int_equal(count(store, sql), 1);

    assert_int_equal(ma_audit_open_readonly(&a, store, &e), MA_OK);
    ma_audit_chunks c;
    assert_int_equal(ma_audit_manifest_chunks_find(a, &c, "a.bin", dig[0].digest, &e), MA_OK);
    assert_int_equal(c.run_id, created); /* the newer merge run has no chunks to give */
    assert_int_equal(c.n_chunks, 3);
    ma_audit_chunks_free(&c);
    /* b.bin only in the merge run: no chunk digests anywhere */
    assert_int_equal(ma_audit_manifest_chunks_find(a, &c, "b.bin", dig[1].digest, &e), MA_EMISSING);
    ma_audit_close(a);
}

#define HEX "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"

/* Issue 9 #7: the forms sha256sum -c reads (coreutils 9.1), names kept as written and paths in
 * normal form. */
static void test_parse_reads_what_sha256sum_reads(void **state)
{
    (void)state;
    const char text[] =
        "# a comment\n"                          /* 1: skipped */
        "\n"                                     /* 2: skipped */
        HEX "  ./a.mdb\n"                        /* 3 */
        HEX "  sub//b.mdb\r\n"                   /* 4: CRLF */
        HEX " *bin\n"                            /* 5: binary mark */
        HEX " one\n"                             /* 6: one blank */
        HEX "\ttab\n"                            /* 7: a tab */
        "  " HEX "  lead\n"                      /* 8: leading blanks */
        "SHA256 (x) = y) = " HEX "\n"            /* 9: BSD tag, name to the last ") = " */
        "\\" HEX "  n\\\\l\\nx\n"                 /* 10: escaped */
        HEX "   sp\n"                            /* 11: the name keeps its leading space */
        HEX "\n"                                 /* 12: no name: malformed */
        "MD5 (x) = " HEX "\n"                    /* 13: another algorithm: malformed */
        "   \n"                                  /* 14: blanks only: malformed */
        HEX "  a/./c/\n";                        /* 15 */
    ma_manifest m;
    ma_error e;
    assert_int_equal(ma_manifest_parse(&m, text, sizeof text - 1, "m", &e), MA_OK);
    static const struct { const char *name, *path; size_t line; } want[] = {
        {"./a.mdb", "a.mdb", 3}, {"sub//b.mdb", "sub/b.mdb", 4}, {"bin", "bin", 5}, {"one", "one", 6},
        {"tab", "tab", 7}, {"lead", "lead", 8}, {"x) = y", "x) = y", 9}, {"n\\l\nx", "n\\l\nx", 10},
        {" sp", " sp", 11}, {"a/./c/", "a/c", 15},
    };
    assert_int_equal(m.n, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < m.n; i++) {
        assert_string_equal(m.lines[i].name, want[i].name);
        assert_string_equal(m.lines[i].path, want[i].path);
        assert_int_equal(m.lines[i].line, want[i].line);
    }
    assert_int_equal(m.n_malformed, 3);
    assert_int_equal(m.malformed[0], 12);
    assert_int_equal(m.malformed[1], 13);
    assert_int_equal(m.malformed[2], 14);
    assert_int_equal(m.first_malformed, 12);
    ma_manifest_free(&m);
}

static void test_normalise_and_temp_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"x", "x"}, {"./x", "x"}, {"././x", "x"}, {"a//b", "a/b"}, {"a/./b/", "a/b"}, {"./", "."}, {".", "."},
        {"a/.b", "a/.b"}, {"..a/b..", "..a/b.."}, {"sub/../a.mdb", "a.mdb"}, {"a/b/../../c", "c"},
        {"a/b/../c/", "a/c"}, {"a//..", "."}, {"x/./../y", "y"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *n = ma_manifest_path_normalise(cases[i][0]);
        assert_non_null(n);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
    assert_true(ma_manifest_is_temp_name("std_3_3_0_0.mdb.tmp.23832"));
    assert_true(ma_manifest_is_temp_name("MANIFEST.sha256.tmp.24770"));
    assert_true(ma_manifest_is_temp_name("report.html.tmpAb12Cd"));
    assert_false(ma_manifest_is_temp_name("std_3_3_0_0.mdb"));
    assert_false(ma_manifest_is_temp_name("notes.tmp"));
    assert_false(ma_manifest_is_temp_name("a.tmp.12x"));
    assert_false(ma_manifest_is_temp_name(".tmp.123"));
    assert_false(ma_manifest_is_temp_name("data.tmpfile"));
}

/* Issue 9 #12: only this command's own temporary files of dead processes go. */
static void test_stale_temps_of_dead_processes_are_removed(void **state)
{
    (void)state;
    char out[128], name[160];
    snprintf(out, sizeof out, "%s/MANIFEST.sha256", dir);
    /* pid 1 exists; a pid above the kernel's pid_max cannot */
    put("MANIFEST.sha256.tmp.1", "x", 1);
    put("MANIFEST.sha256.tmp.99999999", "x", 1);
    put("std_3_3_0_0.mdb.tmp.99999999", "x", 1);
    put("MANIFEST.sha256.tmp.99999999x", "x", 1);
    size_t removed = 0;
    ma_error e;
    assert_int_equal(ma_manifest_remove_stale_temps(out, &removed, &e), MA_OK);
    assert_int_equal(removed, 1);
    snprintf(name, sizeof name, "%s/MANIFEST.sha256.tmp.99999999", dir);
    assert_int_equal(access(name, F_OK), -1);
    snprintf(name, sizeof name, "%s/MANIFEST.sha256.tmp.1", dir);
    assert_int_equal(access(name, F_OK), 0);
    snprintf(name, sizeof name, "%s/std_3_3_0_0.mdb.tmp.99999999", dir);
    assert_int_equal(access(name, F_OK), 0);
    /* and the listing never shows a temporary file */
    char **paths = NULL;
    size_t n = 0;
    assert_int_equal(ma_manifest_list(&paths, &n, dir, NULL, 0, &e), MA_OK);
    assert_int_equal(n, 1);
    assert_string_equal(paths[0], "MANIFEST.sha256.tmp.99999999x");
    ma_manifest_paths_free(paths, n);
}


/* ---- merging shard manifests ---- */

static const char *const H0 = "0000000000000000000000000000000000000000000000000000000000000000";
static const char *const H1 = "1111111111111111111111111111111111111111111111111111111111111111";

static void parse_text(ma_manifest *m, const char *text)
{
    ma_error err;
    assert_int_equal(ma_manifest_parse(m, text, strlen(text), "m", &err), MA_OK);
}

static void test_shard_header_and_names(void **state)
{
    (void)state;
    ma_manifest m;
    char text[512];
    snprintf(text, sizeof text, "# millaudit manifest shard 2/5\n%s  b\n", H0);
    parse_text(&m, text);
    assert_int_equal(m.shard_count, 5);
    assert_int_equal(m.shard_index, 2);
    assert_int_equal(m.n, 1);
    ma_manifest_free(&m);
    /* another comment, or an impossible shard, is no header */
    snprintf(text, sizeof text, "# millaudit manifest shard 5/5\n# hello\n%s  b\n", H0);
    parse_text(&m, text);
    assert_int_equal(m.shard_count, 0);
    ma_manifest_free(&m);
    unsigned i = 9, n = 9;
    assert_true(ma_manifest_is_shard_name("MANIFEST.shard-3-of-16.sha256", &i, &n));
    assert_int_equal(i, 3);
    assert_int_equal(n, 16);
    assert_false(ma_manifest_is_shard_name("MANIFEST.shard-16-of-16.sha256", NULL, NULL));
    assert_false(ma_manifest_is_shard_name("MANIFEST.shard-x-of-16.sha256", NULL, NULL));
    assert_false(ma_manifest_is_shard_name("MANIFEST.sha256", NULL, NULL));
    char buf[64];
    ma_manifest_shard_header(buf, sizeof buf, 1, 4);
    assert_string_equal(buf, "millaudit manifest shard 1/4");
}

static void test_merge_unions_sorted_and_refuses(void **state)
{
    (void)state;
    ma_manifest a, b, c;
    char ta[512], tb[512], tc[512];
    snprintf(ta, sizeof ta, "# millaudit manifest shard 0/2\n%s  z.mdb\n%s  a.mdb\n", H0, H1);
    snprintf(tb, sizeof tb, "# millaudit manifest shard 1/2\n%s  m.mdb\n%s  ./a.mdb\n", H0, H1);
    parse_text(&a, ta);
    parse_text(&b, tb);
    const ma_manifest *in[3] = {&a, &b, NULL};
    const char *names[3] = {"A", "B", "C"};
    ma_manifest_merged mm;
    ma_error err;
    assert_int_equal(ma_manifest_merge(&mm, in, names, 2, 0, &err), MA_OK);
    assert_int_equal(mm.n, 3); /* a.mdb once: both say H1 */
    assert_string_equal(mm.paths[0], "a.mdb");
    assert_string_equal(mm.paths[1], "m.mdb");
    assert_string_equal(mm.paths[2], "z.mdb");
    assert_int_equal(mm.digests[0].digest[0], 0x11);
    assert_int_equal(mm.shard_count, 2);
    assert_int_equal(mm.n_missing, 0);
    ma_manifest_merged_free(&mm);

    /* a missing shard: refused, unless allow_partial */
    assert_int_equal(ma_manifest_merge(&mm, in, names, 1, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "1 of 2 shards missing"));
    assert_int_equal(mm.n, 0);
    assert_int_equal(ma_manifest_merge(&mm, in, names, 1, 1, &err), MA_OK);
    assert_int_equal(mm.n_missing, 1);
    assert_int_equal(mm.missing[0], 1);
    assert_int_equal(mm.n, 2);
    ma_manifest_merged_free(&mm);

    /* one file, two digests: refused naming the file and both manifests */
    snprintf(tc, sizeof tc, "%s  a.mdb\n", H0);
    parse_text(&c, tc);
    in[2] = &c;
    assert_int_equal(ma_manifest_merge(&mm, in, names, 3, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "a.mdb: different digests"));
    assert_non_null(strstr(err.msg, "C says"));
    assert_null(strchr(err.msg, '\n'));
    /* a conflict is reported before a missing shard */
    const ma_manifest *ac[2] = {&a, &c};
    const char *acn[2] = {"A", "C"};
    assert_int_equal(ma_manifest_merge(&mm, ac, acn, 2, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "a.mdb: different digests"));
    ma_manifest_free(&c);

    /* the same shard twice; shards of different N */
    in[1] = &a;
    assert_int_equal(ma_manifest_merge(&mm, in, names, 2, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "given twice"));
    snprintf(tc, sizeof tc, "# millaudit manifest shard 1/3\n%s  q\n", H0);
    parse_text(&c, tc);
    in[1] = &c;
    assert_int_equal(ma_manifest_merge(&mm, in, names, 2, 0, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "different partitions"));
    ma_manifest_free(&c);

    /* a malformed line would be lost: refused */
    snprintf(tc, sizeof tc, "%s  q\nnot a line\n", H0);
    parse_text(&c, tc);
    in[1] = &c;
    assert_int_equal(ma_manifest_merge(&mm, in, names, 2, 1, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "line 2"));
    ma_manifest_free(&c);
    ma_manifest_free(&a);
    ma_manifest_free(&b);
}

static void test_listing_leaves_out_shard_manifests(void **state)
{
    (void)state;
    put("x.mdb", "x", 1);
    put("MANIFEST.shard-0-of-2.sha256", "y", 1);
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    assert_int_equal(mkdir(sub, 0755), 0);
    put("sub/MANIFEST.shard-0-of-2.sha256", "z", 1);
    char **paths;
    size_t n;
    ma_error err;
    assert_int_equal(ma_manifest_list(&paths, &n, dir, NULL, 0, &err), MA_OK);
    assert_int_equal(n, 2); /* only the top directory's shard manifests are manifests */
    assert_string_equal(paths[0], "sub/MANIFEST.shard-0-of-2.sha256");
    assert_string_equal(paths[1], "x.mdb");
    ma_manifest_paths_free(paths, n);
}

/* Runs of differing chunks: equal lists give none; changed chunks give their runs in order; a
 * list longer than the other differs in its extra chunks; only max runs are stored but all are
 * counted. */
static void test_chunk_ranges_differing(void **state)
{
    (void)state;
    uint8_t a[10][MA_SHA256_LEN], b[12][MA_SHA256_LEN];
    for (int k = 0; k < 12; k++) {
        memset(b[k], k + 1, MA_SHA256_LEN);
        if (k < 10)
            memset(a[k], k + 1, MA_SHA256_LEN);
    }
    ma_chunk_range r[3];
    assert_int_equal(ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])a, 10,
                                               (const uint8_t(*)[MA_SHA256_LEN])b, 10, r, 3), 0);
    b[0][31] ^= 1;
    b[3][0] ^= 1;
    b[4][5] ^= 1;
    b[8][9] ^= 1;
    size_t n = ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])a, 10,
                                         (const uint8_t(*)[MA_SHA256_LEN])b, 12, r, 3);
    assert_int_equal(n, 4); /* {0}, {3, 4}, {8}, {10, 11}: the last not stored */
    assert_int_equal(r[0].first, 0);
    assert_int_equal(r[0].end, 1);
    assert_int_equal(r[1].first, 3);
    assert_int_equal(r[1].end, 5);
    assert_int_equal(r[2].first, 8);
    assert_int_equal(r[2].end, 9);
    ma_chunk_range all[8];
    assert_int_equal(ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])a, 10,
                                               (const uint8_t(*)[MA_SHA256_LEN])b, 12, all, 8), 4);
    assert_int_equal(all[3].first, 10);
    assert_int_equal(all[3].end, 12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_ranges_differing),
        cmocka_unit_test(test_path_check_refuses_absolute_and_climbing),
        cmocka_unit_test_setup_teardown(test_list_write_read_round_trip_with_escaped_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_top_opens_no_subdirectory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_counts_malformed_lines_and_refuses_bad_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_states_provenance_and_fingerprint, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_for_a_verify_run_and_find_chunks, setup, teardown),
        cmocka_unit_test(test_parse_reads_what_sha256sum_reads),
        cmocka_unit_test(test_normalise_and_temp_names),
        cmocka_unit_test_setup_teardown(test_stale_temps_of_dead_processes_are_removed, setup, teardown),
        cmocka_unit_test(test_shard_header_and_names),
        cmocka_unit_test(test_merge_unions_sorted_and_refuses),
        cmocka_unit_test_setup_teardown(test_record_merged_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listing_leaves_out_shard_manifests, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
