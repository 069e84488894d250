/*
 * The manifest engines through the public API only (include/millaudit.h): create a manifest of a
 * small solved database, check it clean, then prove that a flipped byte (FAILED, pinned to its
 * chunk by the store's chunk digests), a removed file (MISSING) and an added one (EXTRA) are each
 * caught, that a climbing path and a missing directory are refused, and that shard manifests merge
 * back into the whole one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "millaudit.h"
#include "tests/unit/support.h"

typedef struct fixture {
    char tmp[64];        /* scratch directory */
    char db[128];        /* the solved database: tmp/db */
    char manifest[160];  /* tmp/MANIFEST.sha256 (outside db, so it is no file of it) */
    char store[160];     /* tmp/audit.sqlite */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->tmp, sizeof f->tmp, "/tmp/ma_api_manifest_XXXXXX");
    assert_non_null(mkdtemp(f->tmp));
    snprintf(f->db, sizeof f->db, "%s/db", f->tmp);
    snprintf(f->manifest, sizeof f->manifest, "%s/MANIFEST.sha256", f->tmp);
    snprintf(f->store, sizeof f->store, "%s/audit.sqlite", f->tmp);
    if (ma_test_solve_std_game(f->db, 3) != 0)
        fail_msg("millaudit solve into %s failed (MA_BUILD_DIR=%s)", f->db, getenv("MA_BUILD_DIR"));
    *state = f;
    return 0;
}

static void remove_tree(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_tree(f->tmp);
    free(f);
    return 0;
}

/* Creates f's manifest of f->db (recorded in f->store); returns the files listed. */
static size_t create(const fixture *f)
{
    ma_manifest_create_options o = {.dir = f->db, .out = f->manifest, .audit_path = f->store,
                                    .chunk_size = 4096};
    ma_manifest_created made;
    ma_error err;
    ma_error_clear(&err);
    assert_int_equal(ma_manifest_create(&made, &o, &err), MA_OK);
    assert_true(made.files > 0);
    assert_true(made.bytes > 0);
    assert_true(made.run_id > 0);
    return made.files;
}

static ma_manifest_check *check(const fixture *f, const char *audit_path)
{
    ma_manifest_check_options o = {.manifest = f->manifest, .dir = f->db, .audit_path = audit_path};
    ma_manifest_check *c = NULL;
    ma_error err;
    ma_error_clear(&err);
    assert_int_equal(ma_manifest_check_run(&c, &o, &err), MA_OK);
    assert_non_null(c);
    return c;
}

/* The only file of c that is not OK; fails when there is not exactly one. */
static const ma_manifest_file_result *only_failure(const ma_manifest_check *c)
{
    const ma_manifest_file_result *bad = NULL;
    for (size_t i = 0; i < ma_manifest_check_files(c); i++) {
        const ma_manifest_file_result *r = ma_manifest_check_file(c, i);
        if (r->status != MA_MANIFEST_FILE_OK) {
            assert_null(bad);
            bad = r;
        }
    }
    assert_non_null(bad);
    return bad;
}

/* The largest file of the database (the one a flipped byte lands in), by its manifest path. */
static const char *largest(const ma_manifest_check *c, const fixture *f, char *path, size_t len)
{
    off_t best = -1;
    const char *name = NULL;
    for (size_t i = 0; i < ma_manifest_check_files(c); i++) {
        const ma_manifest_file_result *r = ma_manifest_check_file(c, i);
        char p[512];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", f->db, r->path);
        assert_int_equal(stat(p, &st), 0);
        if (st.st_size > best) {
            best = st.st_size;
            name = r->path;
            snprintf(path, len, "%s", p);
        }
    }
    assert_true(best > 5000); /* past the first 4096-byte chunk */
    return name;
}

static void test_clean_then_flipped_missing_extra(void **state)
{
    const fixture *f = *state;
    size_t n = create(f);

    ma_manifest_check *c = check(f, NULL);
    const ma_manifest_check_summary *s = ma_manifest_check_summary_of(c);
    assert_int_equal(s->verdict, MA_VERDICT_VERIFIED);
    assert_int_equal(s->ok, n);
    assert_int_equal(s->failed + s->missing + s->extra + s->unreadable, 0);
    assert_int_equal(ma_manifest_check_files(c), n);

    /* one byte flipped in the second chunk of the largest file: FAILED, pinned to chunk 1 */
    char path[512], rel[256];
    snprintf(rel, sizeof rel, "%s", largest(c, f, path, sizeof path));
    ma_manifest_check_free(c);
    size_t len;
    unsigned char *bytes = ma_test_slurp(path, &len);
    bytes[5000] ^= 0x01;
    ma_test_spit(path, bytes, len);
    c = check(f, f->store);
    s = ma_manifest_check_summary_of(c);
    assert_int_equal(s->verdict, MA_VERDICT_DISCREPANCIES);
    assert_int_equal(s->failed, 1);
    assert_int_equal(s->ok, n - 1);
    const ma_manifest_file_result *bad = only_failure(c);
    assert_int_equal(bad->status, MA_MANIFEST_FILE_FAILED);
    assert_string_equal(bad->path, rel);
    assert_true(bad->pinned);
    assert_int_equal(bad->n_ranges, 1);
    assert_int_equal(bad->ranges[0].first_chunk, 1);
    assert_int_equal(bad->ranges[0].first_byte, 4096);
    assert_int_equal(bad->ranges[0].last_byte, 8191 < len - 1 ? 8191 : len - 1);
    ma_manifest_check_free(c);

    /* restored, then removed: MISSING */
    bytes[5000] ^= 0x01;
    ma_test_spit(path, bytes, len);
    free(bytes);
    assert_int_equal(unlink(path), 0);
    c = check(f, NULL);
    s = ma_manifest_check_summary_of(c);
    assert_int_equal(s->verdict, MA_VERDICT_DISCREPANCIES);
    assert_int_equal(s->missing, 1);
    bad = only_failure(c);
    assert_int_equal(bad->status, MA_MANIFEST_FILE_MISSING);
    assert_string_equal(bad->path, rel);
    ma_manifest_check_free(c);

    /* a manifest of the directory as it is now, then a file added: EXTRA */
    create(f);
    char added[512];
    snprintf(added, sizeof added, "%s/notes.txt", f->db);
    ma_test_spit(added, "unlisted\n", 9);
    c = check(f, NULL);
    s = ma_manifest_check_summary_of(c);
    assert_int_equal(s->verdict, MA_VERDICT_DISCREPANCIES);
    assert_int_equal(s->extra, 1);
    assert_int_equal(s->failed + s->missing, 0);
    bad = only_failure(c);
    assert_int_equal(bad->status, MA_MANIFEST_FILE_EXTRA);
    assert_string_equal(bad->path, "notes.txt");
    ma_manifest_check_free(c);
    assert_int_equal(unlink(added), 0);
}

static void test_bad_input_is_refused(void **state)
{
    const fixture *f = *state;
    ma_error err;
    ma_error_clear(&err);
    /* a path that climbs out of the directory: the whole manifest is refused, naming the line */
    char bad[256];
    snprintf(bad, sizeof bad, "%s/climbing.sha256", f->tmp);
    ma_test_spit(bad, "0000000000000000000000000000000000000000000000000000000000000000  ../x\n", 71);
    ma_manifest_check_options o = {.manifest = bad, .dir = f->db};
    ma_manifest_check *c = NULL;
    assert_int_equal(ma_manifest_check_run(&c, &o, &err), MA_EFORMAT);
    assert_null(c);
    assert_non_null(strstr(err.msg, "line 1"));
    /* no manifest named: refused, not a check of nothing that passes */
    ma_manifest_check_options unnamed = {.dir = f->db};
    assert_int_equal(ma_manifest_check_run(&c, &unnamed, &err), MA_EINVAL);
    assert_null(c);
    assert_non_null(strstr(err.msg, "no manifest given"));
    /* a directory that is not there */
    char none[256];
    snprintf(none, sizeof none, "%s/absent", f->tmp);
    ma_manifest_create_options co = {.dir = none, .out = f->manifest};
    ma_manifest_created made;
    assert_int_equal(ma_manifest_create(&made, &co, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "absent"));
}

static void test_shards_merge_into_the_whole(void **state)
{
    const fixture *f = *state;
    size_t whole = create(f);
    char shard[2][200], merged[200];
    size_t sum = 0;
    ma_error err;
    ma_error_clear(&err);
    for (unsigned i = 0; i < 2; i++) {
        snprintf(shard[i], sizeof shard[i], "%s/shard-%u.sha256", f->tmp, i);
        ma_manifest_create_options o = {.dir = f->db, .out = shard[i], .shard_index = i, .shard_count = 2};
        ma_manifest_created made;
        assert_int_equal(ma_manifest_create(&made, &o, &err), MA_OK);
        sum += made.files;
    }
    assert_int_equal(sum, whole);
    snprintf(merged, sizeof merged, "%s/merged.sha256", f->tmp);
    const char *inputs[] = {shard[0], shard[1]};
    ma_manifest_merge_options mo = {.out = merged, .inputs = inputs, .n_inputs = 2};
    ma_manifest_merged_info info;
    assert_int_equal(ma_manifest_merge_run(&info, &mo, &err), MA_OK);
    assert_int_equal(info.files, whole);
    assert_int_equal(info.shard_count, 2);
    assert_int_equal(info.n_missing, 0);
    ma_manifest_merged_info_free(&info);
    size_t la, lb;
    unsigned char *a = ma_test_slurp(merged, &la), *b = ma_test_slurp(f->manifest, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
    /* one shard alone: refused, naming the missing shard, unless partial merges are allowed */
    mo.n_inputs = 1;
    assert_int_equal(ma_manifest_merge_run(&info, &mo, &err), MA_EFORMAT);
    mo.allow_partial = 1;
    assert_int_equal(ma_manifest_merge_run(&info, &mo, &err), MA_OK);
    assert_int_equal(info.n_missing, 1);
    assert_int_equal(info.missing[0], 1);
    ma_manifest_merged_info_free(&info);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_clean_then_flipped_missing_extra, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shards_merge_into_the_whole, setup, teardown),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
