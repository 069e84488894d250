/* Unit tests of integrity before semantics (docs/download.md): checksums/published (chunk lines,
 * the comparison with what was published), verifier/run/integrity (every file judged against a
 * manifest, unlisted database files, open files' own body digests), the run engine's damaged and
 * input-damaged sectors and its verdict, the store's record of the damage (reports/store/
 * audit_integrity) and the report's verdict from it. The database is the producer's whole 3-stone
 * standard game, changed on disk the way a broken transfer changes it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/manifest.h"
#include "checksums/published.h"
#include "reports/store/audit.h"
#include "reports/store/audit_integrity.h"
#include "reports/store/report.h"
#include "verifier/run/integrity.h"
#include "verifier/run/run.h"

typedef struct fixture {
    char dir[256];
    char clean[300]; /* the solved game with MANIFEST.sha256 (chunk lines, 4 KiB chunks) */
} fixture;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
    char cmd[2000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("%s failed", cmd);
}

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_integrity_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->clean, sizeof fx->clean, "%s/clean", fx->dir);
    if (ma_test_solve_std_game(fx->clean, 3) != 0)
        return -1;
    const char *bin = getenv("MA_BUILD_DIR");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s/millaudit' manifest create '%s' --chunks --chunk-size 4K >/dev/null",
             bin ? bin : ".", fx->clean);
    if (system(cmd) != 0)
        return -1;
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *fx = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    int rc = system(cmd);
    free(fx);
    return rc == 0 ? 0 : -1;
}

/* A fresh copy of the clean database named name. */
static void copy_db(const fixture *fx, const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", fx->dir, name);
    sh("rm -rf '%s' && cp -r '%s' '%s'", out, fx->clean, out);
}

static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, offset, SEEK_SET), 0);
    fputc(c ^ 0x01, f);
    fclose(f);
}

/* ---- checksums/published ---- */

static void test_chunk_lines_round_trip_and_bad_ones_are_comments(void **state)
{
    (void)state;
    uint8_t chunks[3][MA_SHA256_LEN];
    for (int k = 0; k < 3; k++)
        memset(chunks[k], 0x11 * (k + 1), MA_SHA256_LEN);
    ma_file_digest d = {0};
    d.size = 9000;
    d.chunk_size = 4096;
    d.n_chunks = 3;
    d.chunks = chunks;
    memset(d.digest, 0xAB, MA_SHA256_LEN);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(ma_chunk_line_write(f, &d), 0);
    fclose(f);
    ma_chunk_record rec;
    assert_int_equal(ma_chunk_line_parse(&rec, text, len - 1), 1);
    assert_int_equal(rec.size, 9000);
    assert_int_equal(rec.chunk_size, 4096);
    assert_int_equal(rec.n_chunks, 3);
    assert_memory_equal(rec.chunks, chunks, sizeof chunks);
    assert_memory_equal(rec.sha256, d.digest, MA_SHA256_LEN);
    ma_chunk_record_free(&rec);
    /* a chunk count that does not fit the size is ignored, never trusted */
    char *wrong = strdup(text);
    memcpy(strstr(wrong, " 9000 "), " 8000 ", 6); /* 2 chunks of 4 KiB, 3 given */
    assert_int_equal(ma_chunk_line_parse(&rec, wrong, strlen(wrong) - 1), 0);
    /* one chunk short of its size: ignored */
    strcpy(wrong, text);
    *strrchr(wrong, ',') = 0;
    assert_int_equal(ma_chunk_line_parse(&rec, wrong, strlen(wrong)), 0);
    assert_int_equal(ma_chunk_line_parse(&rec, "# a comment", 11), 0);
    free(wrong);
    /* a manifest carrying the line: sha256sum's grammar, the chunks kept by digest */
    char man[600];
    char hex[65];
    ma_sha256_hex(hex, d.digest);
    snprintf(man, sizeof man, "%s%s  a.mdb\n", text, hex);
    ma_manifest m;
    ma_error err;
    assert_int_equal(ma_manifest_parse(&m, man, strlen(man), "m", &err), MA_OK);
    assert_int_equal(m.n, 1);
    assert_int_equal(m.n_malformed, 0);
    assert_int_equal(m.n_chunk_records, 1);
    assert_non_null(ma_chunk_record_find(m.chunk_records, m.n_chunk_records, d.digest));
    ma_manifest_free(&m);
    free(text);
}

static void test_comparison_names_what_is_wrong(void **state)
{
    (void)state;
    uint8_t pubc[3][MA_SHA256_LEN], nowc[3][MA_SHA256_LEN];
    memset(pubc, 1, sizeof pubc);
    memcpy(nowc, pubc, sizeof nowc);
    ma_published_file pub = {{0}, 9000, 4096, 3, (const uint8_t(*)[MA_SHA256_LEN])pubc};
    memset(pub.sha256, 7, MA_SHA256_LEN);
    ma_file_digest now = {0};
    now.size = 9000;
    now.chunk_size = 4096;
    now.n_chunks = 3;
    now.chunks = nowc;
    memset(now.digest, 7, MA_SHA256_LEN);
    ma_published_diff d;
    char words[300];
    ma_published_compare(&pub, &now, MA_OK, &d);
    assert_int_equal(d.status, MA_PUBLISHED_INTACT);
    now.digest[0] = 8;
    nowc[1][5] ^= 1; /* bytes 4096..8191 */
    ma_published_compare(&pub, &now, MA_OK, &d);
    assert_int_equal(d.status, MA_PUBLISHED_CONTENT_DIFFERS);
    assert_int_equal(d.n_ranges, 1);
    assert_int_equal(d.first_byte[0], 4096);
    assert_int_equal(d.last_byte[0], 8191);
    ma_published_describe(&d, words, sizeof words);
    assert_string_equal(words, "content differs at bytes 4,096-8,191 (4 KiB chunks)");
    nowc[2][0] ^= 1; /* the last chunk too: adjacent chunks merge, clipped to the size */
    ma_published_compare(&pub, &now, MA_OK, &d);
    assert_int_equal(d.n_ranges, 1);
    assert_int_equal(d.last_byte[0], 8999);
    now.size = 8000; /* truncated */
    ma_published_compare(&pub, &now, MA_OK, &d);
    assert_int_equal(d.status, MA_PUBLISHED_SIZE_DIFFERS);
    ma_published_describe(&d, words, sizeof words);
    assert_string_equal(words, "size differs: 8,000 bytes, published 9,000 (truncated)");
    now.size = 9001;
    ma_published_compare(&pub, &now, MA_OK, &d);
    ma_published_describe(&d, words, sizeof words);
    assert_string_equal(words, "size differs: 9,001 bytes, published 9,000 (extended)");
    /* a plain sha256sum manifest: no size, no chunks */
    pub.size = -1, pub.chunk_size = 0, pub.n_chunks = 0, pub.chunks = NULL;
    ma_published_compare(&pub, &now, MA_OK, &d);
    assert_int_equal(d.status, MA_PUBLISHED_CONTENT_DIFFERS);
    ma_published_describe(&d, words, sizeof words);
    assert_string_equal(words, "content differs (no chunk digests published: where is not known)");
    ma_published_compare(&pub, &now, MA_EMISSING, &d);
    assert_int_equal(d.status, MA_PUBLISHED_MISSING);
    ma_published_compare(&pub, &now, MA_EIO, &d);
    assert_int_equal(d.status, MA_PUBLISHED_UNREADABLE);
}

/* ---- verifier/run/integrity ---- */

static int judge(const char *dir, int source, const char *manifest, ma_integrity *g)
{
    static const char *const open_files[] = {"std_3_3_0_0.mdb", "std_2_3_1_0.mdb", "std_2_2_1_1.mdb",
                                             "std_1_2_2_1.mdb", "std_1_1_2_2.mdb", "std_0_1_3_2.mdb",
                                             "std_0_0_3_3.mdb", "std_4_4_0_0.mdb"};
    ma_integrity_options o = {0};
    o.dir = dir;
    o.source = source;
    o.manifest = manifest;
    o.open_files = open_files;
    o.n_open_files = 8;
    o.threads = 2;
    ma_error err;
    int rc = ma_integrity_check(g, &o, &err);
    if (rc)
        print_message("%s\n", err.msg);
    return rc;
}

static void test_every_kind_of_damage_against_a_manifest(void **state)
{
    fixture *fx = *state;
    char db[400], p[600];
    copy_db(fx, "kinds", db, sizeof db);
    snprintf(p, sizeof p, "%s/std_0_1_3_2.mdb", db);
    assert_int_equal(unlink(p), 0);                               /* missing */
    sh("truncate -s 2000 '%s/std_1_2_2_1.mdb'", db);              /* truncated */
    sh("printf xx >> '%s/std_1_1_2_2.mdb'", db);                  /* extended */
    snprintf(p, sizeof p, "%s/std_2_2_1_1.mdb", db);
    flip_byte(p, 5000);                                           /* one byte changed */
    sh("cp '%s/std_0_0_3_3.mdb' '%s/std_2_3_1_0.mdb'", db, db);   /* replaced by another's file */
    sh("cp '%s/std_0_0_3_3.mdb' '%s/std_4_4_0_0.mdb'", db, db);   /* an extra database file */
    sh("echo notes > '%s/README.txt'", db);                       /* not a database file: not judged */
    ma_integrity g;
    assert_int_equal(judge(db, MA_INTEGRITY_AUTO, NULL, &g), MA_OK);
    assert_int_equal(g.pub.source, MA_INTEGRITY_MANIFEST);
    assert_int_equal(g.pub.n_damaged, 6);
    assert_int_equal(g.pub.files, 8);
    assert_int_equal(g.pub.intact, 2);
    assert_int_equal(g.pub.refetch, 5);
    struct {
        const char *path;
        int kind;
        const char *detail;
    } want[] = {
        {"std_0_1_3_2.mdb", MA_DAMAGE_MISSING, "missing"},
        {"std_1_1_2_2.mdb", MA_DAMAGE_SIZE, "size differs: 314 bytes, published 312 (extended)"},
        {"std_1_2_2_1.mdb", MA_DAMAGE_SIZE, "size differs: 2,000 bytes, published 2,152 (truncated)"},
        {"std_2_2_1_1.mdb", MA_DAMAGE_CONTENT, "content differs at bytes 4,096-8,191 (4 KiB chunks)"},
        {"std_2_3_1_0.mdb", MA_DAMAGE_SIZE, "size differs: 130 bytes, published 92,528 (truncated)"},
        {"std_4_4_0_0.mdb", MA_DAMAGE_NOT_LISTED, "not in the manifest"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const ma_damaged_file *d = ma_integrity_damage(&g, want[i].path);
        assert_non_null(d);
        assert_int_equal(d->kind, want[i].kind);
        assert_string_equal(d->detail, want[i].detail);
        assert_int_equal(d->refetch, want[i].kind != MA_DAMAGE_NOT_LISTED);
    }
    assert_null(ma_integrity_damage(&g, "README.txt"));
    /* the digests judged are kept for the read snapshot; a missing file has none */
    assert_non_null(ma_integrity_digest(&g, "std_3_3_0_0.mdb"));
    assert_null(ma_integrity_digest(&g, "std_0_1_3_2.mdb"));
    ma_integrity_free(&g);
    /* --no-manifest: only what the files state about themselves */
    assert_int_equal(judge(db, MA_INTEGRITY_NONE, NULL, &g), MA_OK);
    assert_int_equal(g.pub.source, MA_INTEGRITY_NONE);
    assert_string_equal(g.pub.why_none, "--no-manifest");
    const ma_damaged_file *d = ma_integrity_damage(&g, "std_1_2_2_1.mdb");
    assert_non_null(d);
    assert_string_equal(d->detail, "offset 24: size differs: 2,000 bytes, its header's entry count needs 2,152 (truncated)");
    d = ma_integrity_damage(&g, "std_2_2_1_1.mdb");
    assert_non_null(d);
    assert_int_equal(d->kind, MA_DAMAGE_BODY_DIGEST);
    /* another sector's file is intact by its own digest, but its header names its sector */
    d = ma_integrity_damage(&g, "std_2_3_1_0.mdb");
    assert_non_null(d);
    assert_string_equal(d->detail, "offset 14: content differs: another sector's file (its header names std_0_0_3_3)");
    assert_non_null(ma_integrity_damage(&g, "std_4_4_0_0.mdb"));
    assert_null(ma_integrity_damage(&g, "std_3_3_0_0.mdb"));
    ma_integrity_free(&g);
}

static void test_a_reference_not_understood_vouches_for_nothing(void **state)
{
    fixture *fx = *state;
    char db[400], man[500];
    copy_db(fx, "refused", db, sizeof db);
    snprintf(man, sizeof man, "%s/MANIFEST.sha256", db);
    sh("echo 'not a digest line' >> '%s'", man);
    ma_integrity g;
    ma_integrity_options o = {0};
    o.dir = db;
    o.source = MA_INTEGRITY_AUTO;
    ma_error err;
    assert_int_equal(ma_integrity_check(&g, &o, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "improperly formatted"));
    ma_integrity_free(&g);
    o.source = MA_INTEGRITY_MANIFEST;
    o.manifest = "/nonexistent/MANIFEST.sha256";
    assert_int_equal(ma_integrity_check(&g, &o, &err), MA_EMISSING);
    ma_integrity_free(&g);
    o.source = MA_INTEGRITY_ATTESTATION;
    o.attestation = man;
    o.pub = man; /* not a key */
    assert_int_equal(ma_integrity_check(&g, &o, &err), MA_EFORMAT);
    ma_integrity_free(&g);
}

/* ---- the run engine ---- */

static ma_vrun *run(const char *db, const char *store, ma_vrun_mode mode)
{
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = db;
    o.threads = 2;
    o.max_rows = 100;
    o.full_board_draw = 1;
    o.audit_path = store;
    o.mode = mode;
    o.tool_version = "test";
    o.git_revision = "test";
    o.host = "unit";
    o.command_line = "test_integrity";
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    if (ma_vrun_execute(r, &err))
        fail_msg("run failed: %s", err.msg);
    return r;
}

static const ma_vrun_sector *find(const ma_vrun *r, const char *name)
{
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++)
        if (!strcmp(ma_vrun_sector_at(r, i)->name, name))
            return ma_vrun_sector_at(r, i);
    return NULL;
}

static void test_damage_is_never_a_discrepancy(void **state)
{
    fixture *fx = *state;
    char db[400], p[600], store[500];
    copy_db(fx, "run", db, sizeof db);
    snprintf(store, sizeof store, "%s/run.sqlite", fx->dir);
    unlink(store);
    snprintf(p, sizeof p, "%s/std_2_2_1_1.mdb", db);
    flip_byte(p, 500); /* a value byte: read as a value it would be a wrong-terminal "root" */
    ma_vrun *r = run(db, store, MA_VRUN_FULL);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DAMAGED);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_int_equal(t->discrepancies, 0);
    assert_int_equal(t->files_damaged, 1);
    assert_int_equal(find(r, "std_2_2_1_1")->status, MA_SECTOR_DAMAGED);
    assert_int_equal(find(r, "std_2_2_1_1")->verified, 0);
    /* its one parent reads it: not checked either; every other sector is */
    assert_int_equal(find(r, "std_1_2_2_1")->status, MA_SECTOR_INPUT_DAMAGED);
    assert_string_equal(find(r, "std_1_2_2_1")->message,
                        "not checked: input damaged: it reads std_2_2_1_1.mdb (content-differs)");
    assert_int_equal(find(r, "std_3_3_0_0")->status, MA_SECTOR_OK);
    assert_int_equal(find(r, "std_2_3_1_0")->status, MA_SECTOR_OK); /* read by it, not reading it */
    assert_int_equal(t->sectors_damaged, 1);
    assert_int_equal(t->sectors_input_damaged, 1);
    assert_int_equal(ma_verdict_exit_code(ma_vrun_verdict_of(r), 0), 3);
    ma_vrun_free(r);
    /* the store holds the damage, and the report says what verify said */
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open_readonly(&a, store, &err), MA_OK);
    ma_report rep;
    assert_int_equal(ma_report_load(a, 0, &rep, &err), MA_OK);
    assert_int_equal(rep.verdict.state, MA_VERDICT_DAMAGED);
    assert_string_equal(rep.verdict.headline, "damaged: 1 file differs from what was published; the other 5 sectors "
                                              "verified; 1 sector not checked (it reads a damaged file)");
    assert_int_equal(rep.integrity.recorded, 1);
    assert_int_equal(rep.integrity.n_damaged, 1);
    assert_string_equal(rep.integrity.damaged[0].path, "std_2_2_1_1.mdb");
    assert_string_equal(rep.integrity.damaged[0].kind, "content-differs");
    assert_string_equal(rep.integrity.damaged[0].ranges, "0-4095");
    assert_int_equal(rep.integrity.damaged[0].chunk_size, 4096);
    ma_report_free(&rep);
    ma_audit_close(a);
    /* fetched again: the incremental run checks only it and its parent, and verifies */
    sh("cp '%s/std_2_2_1_1.mdb' '%s/'", fx->clean, db);
    r = run(db, store, MA_VRUN_INCREMENTAL);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_checked, 2);
    assert_int_equal(ma_vrun_totals_of(r)->sectors_carried, 5);
    assert_false(find(r, "std_2_2_1_1")->carried);
    assert_false(find(r, "std_1_2_2_1")->carried);
    ma_vrun_free(r);
}

static void test_a_damaged_body_without_a_manifest_is_damage(void **state)
{
    fixture *fx = *state;
    char db[400], p[600];
    copy_db(fx, "body", db, sizeof db);
    snprintf(p, sizeof p, "%s/MANIFEST.sha256", db);
    assert_int_equal(unlink(p), 0);
    snprintf(p, sizeof p, "%s/std_1_1_2_2.mdb", db);
    flip_byte(p, 128); /* entry 0, win 19: win 18 is no value */
    ma_vrun *r = run(db, NULL, MA_VRUN_FULL);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DAMAGED);
    const ma_vrun_integrity *g = ma_vrun_integrity_of(r);
    assert_int_equal(g->source, MA_INTEGRITY_NONE);
    assert_int_equal(g->n_damaged, 1);
    assert_int_equal(g->damaged[0].kind, MA_DAMAGE_BODY_DIGEST);
    assert_string_equal(g->damaged[0].sector, "std_1_1_2_2");
    assert_int_equal(ma_vrun_totals_of(r)->body_digest_mismatches, 1);
    assert_int_equal(ma_vrun_totals_of(r)->discrepancies, 0);
    ma_vrun_free(r);
    /* the producer's own digest of that byte: the values are wrong, the solver's fault */
    assert_int_equal(ma_test_reseal(p), 0);
    r = run(db, NULL, MA_VRUN_FULL);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    assert_int_equal(ma_vrun_integrity_of(r)->n_damaged, 0);
    ma_vrun_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunk_lines_round_trip_and_bad_ones_are_comments),
        cmocka_unit_test(test_comparison_names_what_is_wrong),
        cmocka_unit_test(test_every_kind_of_damage_against_a_manifest),
        cmocka_unit_test(test_a_reference_not_understood_vouches_for_nothing),
        cmocka_unit_test(test_damage_is_never_a_discrepancy),
        cmocka_unit_test(test_a_damaged_body_without_a_manifest_is_damage),
    };
    return ma_test_exit_status(cmocka_run_group_tests(tests, group_setup, group_teardown));
}
