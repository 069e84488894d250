/* Unit tests for verifier/formats/source: directory discovery names every file it cannot use (and never
 * blocks on a FIFO), sources read open and Malom entries into one value type, map entries to
 * positions and back, and failures of a file are reported once. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/sha256.h"
#include "verifier/formats/source.h"
#include "support.h"

typedef struct fixture {
    char dir[256];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_source_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0)
        return -1;
    free(fx);
    return 0;
}

/* A well-formed std 0_1_3_2 file (docs/format.md §4.4: 24 entries, canonical entries 0, 1, 3, 4)
 * holding win 1, loss 0, draw, loss 16 there. */
enum { ENTRIES = 24, GOOD_SIZE = 128 + 2 * ENTRIES };

static void good_file(uint8_t *buf)
{
    memset(buf, 0, GOOD_SIZE);
    memcpy(buf, "\x89MILL\r\n\x1a", 8);
    buf[8] = 1;
    buf[10] = 128;
    buf[12] = 1;  /* std */
    buf[15] = 1;  /* W=0 B=1 WF=3 BF=2 */
    buf[16] = 3;
    buf[17] = 2;
    buf[18] = 2;  /* entry width */
    buf[19] = 1;  /* value encoding */
    buf[20] = 1;  /* index scheme */
    buf[22] = 1;
    buf[24] = ENTRIES;
    memcpy(buf + 32, "unit-test", 9);
    memcpy(buf + 64, "9.9.9", 5);
    static const uint16_t words[ENTRIES] = {[0] = 0xC001, [1] = 0x4000, [3] = 0x8000, [4] = 0x4010};
    for (int e = 0; e < ENTRIES; e++) {
        buf[128 + 2 * e] = (uint8_t)(words[e] & 0xFF);
        buf[128 + 2 * e + 1] = (uint8_t)(words[e] >> 8);
    }
}

static void put(const fixture *fx, const char *name, const void *buf, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", fx->dir, name);
    ma_test_spit(p, buf, len);
}

/* The unusable entry whose message contains both fragments, or NULL. */
static const ma_db_unusable *find_bad(const ma_database *db, const char *a, const char *b)
{
    for (size_t i = 0; i < ma_database_unusable_count(db); i++) {
        const ma_db_unusable *u = ma_database_unusable(db, i);
        if (strstr(u->message, a) && strstr(u->message, b))
            return u;
    }
    return NULL;
}

static void assert_same_stored(const ma_stored *a, const ma_stored *b)
{
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->has_draw_class, b->has_draw_class);
    assert_int_equal(a->marker, b->marker);
    assert_int_equal(a->value.outcome, b->value.outcome);
    assert_int_equal(a->value.depth, b->value.depth);
    assert_int_equal(a->draw_class, b->draw_class);
    assert_memory_equal(a->raw, b->raw, sizeof a->raw);
}

static void test_discovery_names_every_unusable_file(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    put(fx, "std_03_3_0_0.mdb", buf, sizeof buf);       /* parses, but not the canonical name */
    put(fx, "foo.mdb", buf, sizeof buf);                /* does not parse */
    put(fx, "std_9_9_9_9.mdb", buf, sizeof buf);        /* impossible sector */
    put(fx, "std_3_3_0_0.sec", "x", 1);                 /* the minority format */
    put(fx, "MANIFEST.sha256", "x", 1);                 /* not a database file: ignored */
    put(fx, "std_0_1_3_2.mdb.tmp.123", buf, sizeof buf); /* a writer's temporary: ignored */
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/std_3_3_0_0.mdb", fx->dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    snprintf(p, sizeof p, "%s/std_3_4_0_0.mdb", fx->dir);
    assert_int_equal(symlink("/nonexistent/target.mdb", p), 0);
    snprintf(p, sizeof p, "%s/std_4_3_0_0.mdb", fx->dir);
    assert_int_equal(symlink("std_4_3_0_0.mdb", p), 0);
    snprintf(p, sizeof p, "%s/std_4_4_0_0.mdb", fx->dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(q, sizeof q, "%s/", fx->dir); /* a trailing slash is not part of the root */

    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, q, NULL, &err), MA_OK);
    assert_string_equal(ma_database_root(db), fx->dir);
    assert_int_equal(ma_database_format(db), MA_FORMAT_OPEN);
    /* the sector files that are there but cannot be read are sectors of the database that fail
     * when opened, with discovery's reason; only std_0_1_3_2 opens */
    assert_int_equal(ma_database_count(db), 5);
    static const char *const broken[][2] = {{"std_3_3_0_0", "FIFO"}, {"std_3_4_0_0", "dangling"},
                                            {"std_4_3_0_0", "loop"}, {"std_4_4_0_0", "directory"}};
    for (size_t i = 0; i < 4; i++) {
        ma_sector s;
        ma_variant v;
        int named;
        assert_int_equal(ma_sector_arg_parse(broken[i][0], &v, &named, &s, &err), MA_OK);
        assert_non_null(ma_database_find(db, v, s));
        const ma_source *src;
        assert_int_equal(ma_database_source(db, v, s, &src, &err), MA_EFORMAT);
        assert_non_null(strstr(err.msg, broken[i][1]));
    }
    const ma_source *good;
    ma_sector s0132 = {0, 1, 3, 2};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s0132, &good, &err), MA_OK);
    assert_int_equal(ma_database_variants(db), 1u << MA_VARIANT_STD);
    assert_int_equal(ma_database_unusable_count(db), 8);
    assert_non_null(find_bad(db, "std_03_3_0_0.mdb", "not the canonical file name std_3_3_0_0.mdb"));
    assert_non_null(find_bad(db, "foo.mdb", "file name is not <variant>_W_B_WF_BF.mdb"));
    assert_non_null(find_bad(db, "std_9_9_9_9.mdb", "not a valid std sector"));
    assert_non_null(find_bad(db, "std_3_3_0_0.sec", "this database holds .mdb files"));
    assert_non_null(find_bad(db, "std_3_3_0_0.mdb", "not a regular file (FIFO)"));
    assert_non_null(find_bad(db, "std_3_4_0_0.mdb", "dangling symbolic link"));
    assert_non_null(find_bad(db, "std_4_3_0_0.mdb", "symbolic link loop"));
    assert_non_null(find_bad(db, "std_4_4_0_0.mdb", "not a regular file (directory)"));
    for (size_t i = 0; i < ma_database_unusable_count(db); i++) {
        assert_null(strchr(ma_database_unusable(db, i)->message, '\n'));
        assert_int_not_equal(ma_database_unusable(db, i)->code, MA_OK);
    }
    ma_database_close(db);
}

static void test_open_source_reads_values_and_positions(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    const ma_source *src;
    ma_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_int_equal(ma_source_entries(src), ENTRIES);
    assert_int_equal(ma_source_format(src), MA_FORMAT_OPEN);
    assert_string_equal(ma_source_name(src), "std_0_1_3_2");
    assert_int_equal(ma_source_offset(src, 3), 128 + 6);
    ma_stored v;
    ma_source_read(src, 0, &v);
    assert_int_equal(v.kind, MA_STORED_VALUE);
    assert_int_equal(v.value.outcome, MA_OUTCOME_WIN);
    assert_int_equal(v.value.depth, 1);
    assert_int_equal(v.marker, -1);
    ma_source_read(src, 4, &v);
    assert_int_equal(v.value.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(v.value.depth, 16);
    char text[64];
    ma_source_describe(src, &v, text, sizeof text);
    assert_string_equal(text, "loss 16 (0x4010)");
    ma_source_read(src, 2, &v);
    assert_int_equal(v.kind, MA_STORED_NONE);
    /* §4.4: exactly entries 0, 1, 3, 4 are canonical; each maps back to itself */
    int canonical = 0;
    for (uint64_t e = 0; e < ENTRIES; e++) {
        int c = ma_source_canonical(src, e);
        canonical += c;
        assert_int_equal(c, e == 0 || e == 1 || e == 3 || e == 4);
        assert_int_equal(ma_source_orbit(src, e) > 0, c);
        if (c)
            assert_int_equal(ma_source_entry_of(src, ma_source_board(src, e)), e);
    }
    assert_int_equal(canonical, 4);
    /* the range form gives the same answers, whether or not the range cuts a representative */
    for (uint64_t first = 0; first < ENTRIES; first += 5)
        for (uint64_t count = 0; first + count <= ENTRIES; count += 7) {
            uint8_t orb[ENTRIES], flag[ENTRIES];
            assert_int_equal(ma_source_canonical_range(src, first, count, 1, orb), MA_OK);
            assert_int_equal(ma_source_canonical_range(src, first, count, 0, flag), MA_OK);
            for (uint64_t i = 0; i < count; i++) {
                assert_int_equal(orb[i], ma_source_orbit(src, first + i));
                assert_int_equal(flag[i], ma_source_canonical(src, first + i));
            }
        }
    /* the range read gives what the per-entry read gives (bad words too: a copy with some) */
    uint8_t bad[GOOD_SIZE];
    good_file(bad);
    bad[128 + 2 * 5 + 1] = 0xC0;
    bad[128 + 2 * 5] = 0x02; /* an even win */
    bad[128 + 2 * 6] = 0x05; /* depth bits without an outcome */
    char bdir[300];
    snprintf(bdir, sizeof bdir, "%s/bad", fx->dir);
    assert_int_equal(mkdir(bdir, 0700), 0);
    put(fx, "bad/std_0_1_3_2.mdb", bad, sizeof bad);
    ma_database *bdb;
    const ma_source *bsrc;
    assert_int_equal(ma_database_open(&bdb, bdir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(bdb, MA_VARIANT_STD, s, &bsrc, &err), MA_OK);
    ma_stored ball[ENTRIES];
    ma_source_read_range(bsrc, 0, ENTRIES, ball);
    assert_int_equal(ball[5].kind, MA_STORED_BAD);
    assert_int_equal(ball[6].kind, MA_STORED_BAD);
    for (uint64_t e = 0; e < ENTRIES; e++) {
        ma_stored one;
        ma_source_read(bsrc, e, &one);
        assert_same_stored(&ball[e], &one);
    }
    ma_database_close(bdb);
    ma_stored all[ENTRIES];
    ma_source_read_range(src, 0, ENTRIES, all);
    for (uint64_t e = 0; e < ENTRIES; e++) {
        ma_stored one;
        ma_source_read(src, e, &one);
        assert_same_stored(&all[e], &one);
    }
    /* a second request is the cached handle */
    const ma_source *again;
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &again, &err), MA_OK);
    assert_ptr_equal(again, src);
    ma_database_release(db, MA_VARIANT_STD, s);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &again, &err), MA_OK);
    assert_int_equal(ma_source_entries(again), ENTRIES);
    ma_database_close(db);
}

static void test_missing_and_broken_sectors_fail_once(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf - 2); /* one entry short */
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_unusable_count(db), 0); /* contents are checked when opened */
    const ma_source *src;
    ma_sector missing = {3, 3, 0, 0}, broken = {0, 1, 3, 2};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, missing, &src, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "std_3_3_0_0.mdb: sector std_3_3_0_0: sector file absent"));
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, broken, &src, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "std_0_1_3_2.mdb"));
    char first[sizeof err.msg];
    memcpy(first, err.msg, sizeof first);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, broken, &src, &err), MA_EFORMAT);
    assert_string_equal(err.msg, first);
    assert_int_equal(ma_database_unusable_count(db), 1); /* listed once however often asked */
    ma_database_close(db);
}

static void test_single_file_and_bad_paths(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    put(fx, "notes.txt", "x", 1);
    char p[512];
    ma_database *db;
    ma_error err;
    snprintf(p, sizeof p, "%s/std_0_1_3_2.mdb", fx->dir);
    assert_int_equal(ma_database_open(&db, p, NULL, &err), MA_OK);
    assert_int_equal(ma_database_count(db), 1);
    assert_string_equal(ma_database_dir(db), fx->dir);
    ma_database_close(db);
    snprintf(p, sizeof p, "%s/notes.txt", fx->dir);
    assert_int_equal(ma_database_open(&db, p, NULL, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "not a sector file"));
    snprintf(p, sizeof p, "%s/nothing-here", fx->dir);
    assert_int_equal(ma_database_open(&db, p, NULL, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "No such file or directory"));
    assert_null(strstr(err.msg, "sector ?")); /* no template noise for a directory */
    snprintf(p, sizeof p, "%s/std_3_3_0_0.mdb", fx->dir);
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(ma_database_open(&db, p, NULL, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "FIFO"));
    /* an empty directory is a database of no sectors, not an error */
    snprintf(p, sizeof p, "%s/empty", fx->dir);
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(ma_database_open(&db, p, NULL, &err), MA_OK);
    assert_int_equal(ma_database_count(db), 0);
    assert_int_equal(ma_database_format(db), 0);
    ma_database_close(db);
}

static void test_control_characters_stay_escaped(void **state)
{
    fixture *fx = *state;
    put(fx, "std_3\n_3_0_0.mdb", "x", 1);
    put(fx, "\x1b[31mstd_3_3_0_0.mdb", "x", 1);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_unusable_count(db), 2);
    for (size_t i = 0; i < 2; i++) {
        const char *m = ma_database_unusable(db, i)->message;
        assert_null(strchr(m, '\n'));
        assert_null(strchr(m, '\x1b'));
    }
    assert_non_null(find_bad(db, "\\x1b[31m", "file name is not"));
    assert_non_null(find_bad(db, "std_3\\n_3_0_0.mdb", "file name is not"));
    ma_database_close(db);
}

static void test_sector_arguments(void **state)
{
    (void)state;
    ma_variant v = MA_VARIANT_LASK;
    int named;
    ma_sector s;
    ma_error err;
    assert_int_equal(ma_sector_arg_parse("5_4_0_0", &v, &named, &s, &err), MA_OK);
    assert_int_equal(named, 0);
    assert_int_equal(v, MA_VARIANT_LASK); /* unchanged when the text names none */
    assert_true(s.w == 5 && s.b == 4 && s.wf == 0 && s.bf == 0);
    assert_int_equal(ma_sector_arg_parse("mora_12_11_0_1.sec2", &v, &named, &s, &err), MA_OK);
    assert_int_equal(named, 1);
    assert_int_equal(v, MA_VARIANT_MORA);
    assert_true(s.w == 12 && s.b == 11 && s.wf == 0 && s.bf == 1);
    static const char *const bad[] = {"x", "", "std", "std_", "5-4-0-0", "5_4_0", "5_4_0_0_1",
                                      "+5_4_0_0", "5__4_0", "5_4_0_", "_5_4_0", "5_4_0_0x", "std_x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(ma_sector_arg_parse(bad[i], &v, &named, &s, &err), MA_EINVAL);
        assert_non_null(strstr(err.msg, "expected W_B_WF_BF or <variant>_W_B_WF_BF"));
        assert_non_null(strstr(err.msg, "e.g. 5_4_0_0"));
    }
}

static void test_malom_sources_read_like_open_ones(void **state)
{
    (void)state;
    char fixtures[512], dir[600];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    snprintf(dir, sizeof dir, "%s/std-strong", fixtures);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_format(db), MA_FORMAT_SEC);
    assert_int_equal(ma_database_count(db), 3);
    assert_int_equal(ma_database_unusable_count(db), 0);
    const ma_source *src;
    ma_sector s = {3, 3, 0, 0};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_int_equal(ma_source_entries(src), ma_malom_hash_count(3, 3));
    /* every index: a marker exactly where the index scheme says non-canonical, a well-formed
     * value elsewhere, and canonical boards map back to their own index */
    uint64_t markers = 0, values = 0;
    for (uint64_t e = 0; e < ma_source_entries(src); e++) {
        ma_stored v;
        ma_source_read(src, e, &v);
        int canon = ma_source_canonical(src, e);
        if (!canon) {
            assert_int_equal(v.kind, MA_STORED_NONE);
            assert_true(v.marker >= 0 && v.marker <= 14);
            markers++;
            continue;
        }
        assert_int_equal(v.kind, MA_STORED_VALUE);
        assert_int_not_equal(v.value.outcome, MA_OUTCOME_NONE);
        values++;
        if (e % 97 == 0)
            assert_int_equal(ma_source_entry_of(src, ma_source_board(src, e)), e);
    }
    assert_int_equal(markers + values, ma_source_entries(src));
    assert_true(markers > 0 && values > 0);
    /* the range form: same canonical entries and orbit sizes, which add up to every board */
    uint64_t n = ma_source_entries(src), boards = 0;
    uint8_t *orb = malloc(n);
    assert_non_null(orb);
    assert_int_equal(ma_source_canonical_range(src, 0, n, 1, orb), MA_OK);
    for (uint64_t e = 0; e < n; e++) {
        assert_int_equal(orb[e] != 0, ma_source_canonical(src, e));
        if (e % 101 == 0)
            assert_int_equal(orb[e], ma_source_orbit(src, e));
        boards += orb[e];
    }
    assert_int_equal(boards, 2024 * 1330); /* C(24,3) * C(21,3) */
    free(orb);
    ma_stored *all = malloc(1000 * sizeof *all);
    assert_non_null(all);
    ma_source_read_range(src, 5000, 1000, all);
    for (uint64_t i = 0; i < 1000; i++) {
        ma_stored one;
        ma_source_read(src, 5000 + i, &one);
        assert_same_stored(&all[i], &one);
    }
    free(all);
    ma_database_close(db);
}

/* The <variant>.secval is read once and hashed from the bytes parsed (issue 41): its digest is the
 * file's when it was read, the file replaced afterwards changes neither the digest nor the values
 * the sectors are read with, and a broken one is never replaced by a copy a reader reads itself. */
static void test_secval_digest_is_of_the_bytes_parsed(void **state)
{
    fixture *fx = *state;
    char fixtures[512], from[700];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    static const char *const names[] = {"std_3_3_0_0.sec2", "std.secval"};
    char *good = NULL;
    size_t good_len = 0;
    for (int i = 0; i < 2; i++) {
        snprintf(from, sizeof from, "%s/original-excerpt/%s", fixtures, names[i]);
        FILE *f = fopen(from, "rb");
        assert_non_null(f);
        char *buf = malloc(4 << 20);
        size_t n = fread(buf, 1, 4 << 20, f);
        fclose(f);
        put(fx, names[i], buf, n);
        if (i == 1) {
            good = buf;
            good_len = n;
        } else {
            free(buf);
        }
    }
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_format(db), MA_FORMAT_SEC2);
    const ma_file_digest *d = NULL;
    assert_int_equal(ma_database_secval_digest(db, MA_VARIANT_STD, &d, &err), MA_OK);
    assert_non_null(d);
    ma_file_digest want;
    assert_int_equal(ma_sha256_buffer_digest(&want, good, good_len, 0), MA_OK);
    assert_int_equal(d->size, good_len);
    assert_memory_equal(d->digest, want.digest, sizeof want.digest);
    assert_int_equal(d->n_chunks, 1);
    assert_memory_equal(d->chunks[0], want.digest, sizeof want.digest);
    ma_file_digest_free(&want);
    /* the file replaced now (a shorter, broken one): the digest and the values stay what was read */
    put(fx, "std.secval", good, good_len / 2);
    const ma_source *src;
    ma_sector s = {3, 3, 0, 0};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_int_equal(ma_database_secval_digest(db, MA_VARIANT_STD, &d, &err), MA_OK);
    assert_int_equal(d->size, good_len);
    ma_database_close(db);
    /* a broken one read first: the sector fails, even once a good one is back on disk */
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_secval_digest(db, MA_VARIANT_STD, &d, &err), MA_OK);
    assert_int_equal(d->size, good_len / 2);
    put(fx, "std.secval", good, good_len);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "std.secval is unusable"));
    ma_database_close(db);
    free(good);
}

/* Copies the std-strong fixture's three .sec files into dir, with byte 179 (overflow) planted at
 * entry 100 of std_4_3_0_0.sec, which has no overflow record: a fault the open's overflow scan
 * finds. Returns 0 when the fixtures are absent. */
static int copy_strong_with_fault(const char *dir)
{
    char fixtures[512];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    static const char *const names[] = {"std_3_3_0_0.sec", "std_3_4_0_0.sec", "std_4_3_0_0.sec"};
    for (int i = 0; i < 3; i++) {
        char from[700], to[700];
        snprintf(from, sizeof from, "%s/std-strong/%s", fixtures, names[i]);
        snprintf(to, sizeof to, "%s/%s", dir, names[i]);
        size_t len;
        unsigned char *b = ma_test_slurp(from, &len);
        if (!b)
            return 0;
        if (i == 2) {
            assert_int_not_equal(b[100], 179);
            b[100] = 179;
        }
        ma_test_spit(to, b, len);
        free(b);
    }
    return 1;
}

/* ma_database_open_sources opens in advance, several files at once, what ma_database_source would
 * open: the outcome is cached (a file deleted or repaired afterwards changes nothing), and a
 * failure is reported, with the serial open's message, only when ma_database_source asks. */
static void test_sources_opened_in_advance(void **state)
{
    fixture *fx = *state;
    char fixtures[512];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    if (!copy_strong_with_fault(fx->dir))
        MA_TEST_SKIP_OR_FAIL("std-strong fixture files absent");
    ma_sector s33 = {3, 3, 0, 0}, s34 = {3, 4, 0, 0}, s43 = {4, 3, 0, 0}, s35 = {3, 5, 0, 0};
    ma_database *db;
    ma_error err;
    const ma_source *src;
    /* the serial open's message */
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s43, &src, &err), MA_EFORMAT);
    char serial[sizeof err.msg];
    memcpy(serial, err.msg, sizeof serial);
    assert_non_null(strstr(serial, "std_4_3_0_0.sec: sector 4_3_0_0: offset 100: entry 100: byte 179"));
    ma_database_close(db);

    for (unsigned threads = 1; threads <= 3; threads++) {
        char p33[600], p43[600];
        snprintf(p33, sizeof p33, "%s/std_3_3_0_0.sec", fx->dir);
        snprintf(p43, sizeof p43, "%s/std_4_3_0_0.sec", fx->dir);
        assert_true(copy_strong_with_fault(fx->dir));
        assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
        /* a repeat and a sector the database does not hold are passed over */
        ma_variant v[5] = {MA_VARIANT_STD, MA_VARIANT_STD, MA_VARIANT_STD, MA_VARIANT_STD,
                           MA_VARIANT_STD};
        ma_sector s[5] = {s33, s43, s34, s33, s35};
        ma_database_open_sources(db, v, s, 5, threads);
        assert_int_equal(ma_database_unusable_count(db), 0); /* not reported yet */
        /* the files change: 3_3 deleted, 4_3 repaired */
        assert_int_equal(unlink(p33), 0);
        size_t len;
        char good43[600];
        snprintf(good43, sizeof good43, "%s/std-strong/std_4_3_0_0.sec", fixtures);
        unsigned char *b = ma_test_slurp(good43, &len);
        assert_non_null(b);
        ma_test_spit(p43, b, len);
        free(b);
        if (threads < 2) {
            /* nothing was opened in advance: the opens happen now, on the changed files */
            assert_int_not_equal(ma_database_source(db, MA_VARIANT_STD, s33, &src, &err), MA_OK);
            assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s43, &src, &err), MA_OK);
            ma_database_close(db);
            continue;
        }
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s33, &src, &err), MA_OK);
        assert_int_equal(ma_source_entries(src), ma_malom_hash_count(3, 3));
        const ma_source *again;
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s33, &again, &err), MA_OK);
        assert_ptr_equal(src, again);
        for (int twice = 0; twice < 2; twice++) {
            assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s43, &src, &err), MA_EFORMAT);
            assert_string_equal(err.msg, serial);
            assert_int_equal(ma_database_unusable_count(db), 1);
            assert_string_equal(ma_database_unusable(db, 0)->message, serial);
        }
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s34, &src, &err), MA_OK);
        assert_int_equal(ma_source_entries(src), ma_malom_hash_count(3, 4));
        ma_database_close(db);
    }
}

static void set_body_digest(uint8_t *buf)
{
    ma_sha256_buffer(buf + 80, buf + 128, GOOD_SIZE - 128);
}

/* §5.1: a body that fails its header's digest is refused when opened (offset 80), once, unless
 * the database is opened with no_digest_check; a matching or absent digest opens. */
static void test_body_digest_checked_when_opened(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    set_body_digest(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    ma_database *db;
    ma_error err;
    const ma_source *src;
    ma_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    ma_database_close(db);

    buf[128] ^= 2; /* win 1 -> win 3: well-formed, but not what the digest says */
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "std_0_1_3_2.mdb: sector std_0_1_3_2: offset 80: body digest mismatch"));
    assert_null(strchr(err.msg, '\n'));
    assert_non_null(find_bad(db, "std_0_1_3_2.mdb", "offset 80"));
    ma_database_close(db);

    ma_database_options opt = {0};
    opt.no_digest_check = 1;
    assert_int_equal(ma_database_open(&db, fx->dir, &opt, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    ma_stored v;
    ma_source_read(src, 0, &v);
    assert_int_equal(v.value.depth, 3); /* the damaged bytes, as asked */
    ma_database_close(db);

    memset(buf + 80, 0, 32); /* no digest recorded: nothing to check */
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    ma_database_close(db);
}

/* SHA-256 of ma_source_bytes, as verify's re-hash after a check takes it. */
static void bytes_digest(const ma_source *src, char hex[65])
{
    size_t n;
    const uint8_t *p = ma_source_bytes(src, &n);
    uint8_t d[32];
    ma_sha256_buffer(d, n ? p : (const uint8_t *)"", n);
    ma_sha256_hex(hex, d);
}

/* ma_source_bytes is the mapping the entries are read from: a file rewritten in place shows its
 * new bytes there (what verify's re-hash after a check relies on), a file renamed over keeps the
 * old inode mapped and so the old digest (the bytes that are read). Both hold as well after
 * ma_source_drop_pages: the pages faulted in again are the same inode's. */
/* A sector read privately (ma_database_read_privately, verify's units within the copy budget):
 * its bytes and their digest are the file's as read, and stay so whatever happens to the file, a
 * rewrite in place included, and ma_source_drop_pages leaves them as they are (dropped, anonymous
 * memory would read back as zeros); released and opened again without the flag, it is mapped and
 * shows the file's current bytes. */
static void test_private_read_keeps_the_bytes_read(void **state)
{
    fixture *fx = *state;
    uint8_t a[GOOD_SIZE], b[GOOD_SIZE], d[32];
    char hex_a[65], got[65], path[512];
    good_file(a);
    good_file(b);
    b[128] = 0x03; /* entry 0: win 3 instead of win 1 */
    ma_sha256_buffer(d, a, sizeof a);
    ma_sha256_hex(hex_a, d);
    put(fx, "std_0_1_3_2.mdb", a, sizeof a);
    snprintf(path, sizeof path, "%s/std_0_1_3_2.mdb", fx->dir);
    ma_sector s = {0, 1, 3, 2};
    ma_database *db;
    ma_error err;
    const ma_source *src;
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    ma_database_read_privately(db, MA_VARIANT_STD, s, 1);
    assert_int_equal(ma_database_is_open(db, MA_VARIANT_STD, s), 0);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_int_equal(ma_database_is_open(db, MA_VARIANT_STD, s), 1);
    assert_non_null(ma_source_private_sha256(src));
    assert_string_equal(ma_source_private_sha256(src), hex_a);
    FILE *f = fopen(path, "r+b"); /* same inode, same size */
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, sizeof b, f), sizeof b);
    fclose(f);
    for (int drop = 0; drop < 2; drop++) {
        if (drop)
            ma_source_drop_pages(src);
        bytes_digest(src, got);
        assert_string_equal(got, hex_a);
        ma_stored v;
        ma_source_read(src, 0, &v);
        assert_int_equal(v.kind, MA_STORED_VALUE);
        assert_int_equal(v.value.depth, 1);
    }
    ma_database_release(db, MA_VARIANT_STD, s);
    ma_database_read_privately(db, MA_VARIANT_STD, s, 0);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_null(ma_source_private_sha256(src));
    ma_stored v;
    ma_source_read(src, 0, &v);
    assert_int_equal(v.value.depth, 3);
    ma_database_close(db);
}

/* verify's databases stamp what they map (ma_database_options.stamp_mapped): a file of either
 * format written in place with the very bytes it held, which no digest of the mapping can see, is
 * "moved"; one nobody touched is not; a file read privately never is (its bytes cannot change),
 * nor one mapped by a database that asked for no stamp. */
static void test_stamped_sources_see_a_rewrite_of_the_same_bytes(void **state)
{
    fixture *fx = *state;
    uint8_t a[GOOD_SIZE];
    good_file(a);
    put(fx, "std_0_1_3_2.mdb", a, sizeof a);
    char fixtures[512], sub[700], mdb[700], sec[760], why[128];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    snprintf(sub, sizeof sub, "%s/malom", fx->dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    if (!copy_strong_with_fault(sub))
        MA_TEST_SKIP_OR_FAIL("std-strong fixture files absent");
    snprintf(mdb, sizeof mdb, "%s/std_0_1_3_2.mdb", fx->dir);
    snprintf(sec, sizeof sec, "%s/std_3_3_0_0.sec", sub);
    ma_sector s = {0, 1, 3, 2}, s33 = {3, 3, 0, 0};
    ma_database_options opt = {0};
    opt.stamp_mapped = 1;
    ma_database *db, *mdb_db, *plain;
    ma_error err;
    const ma_source *src, *msrc, *psrc;
    assert_int_equal(ma_database_open(&db, fx->dir, &opt, &err), MA_OK);
    assert_int_equal(ma_database_open(&mdb_db, sub, &opt, &err), MA_OK);
    assert_int_equal(ma_database_open(&plain, fx->dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_int_equal(ma_database_source(mdb_db, MA_VARIANT_STD, s33, &msrc, &err), MA_OK);
    assert_int_equal(ma_database_source(plain, MA_VARIANT_STD, s, &psrc, &err), MA_OK);
    assert_int_equal(ma_source_moved(src, why, sizeof why), 0);
    assert_int_equal(ma_source_moved(msrc, why, sizeof why), 0);
    ma_test_rewrite_same(mdb);
    ma_test_rewrite_same(sec);
    char before[65], after[65];
    bytes_digest(src, before);
    assert_int_equal(ma_source_moved(src, why, sizeof why), 1);
    assert_string_equal(why, "written to (its change time moved)");
    assert_int_equal(ma_source_moved(msrc, why, sizeof why), 1);
    assert_string_equal(why, "written to (its change time moved)");
    bytes_digest(src, after);
    assert_string_equal(before, after); /* what a digest of the mapping says: nothing changed */
    assert_int_equal(ma_source_moved(psrc, NULL, 0), 0); /* no stamp asked */
    ma_database_release(db, MA_VARIANT_STD, s);
    ma_database_read_privately(db, MA_VARIANT_STD, s, 1);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    ma_test_rewrite_same(mdb);
    assert_int_equal(ma_source_moved(src, NULL, 0), 0); /* private bytes */
    ma_database_close(plain);
    ma_database_close(mdb_db);
    ma_database_close(db);
}

/* A private read stopped by a signal (ma_database_options.cancel set, as verify sets it to its
 * signal flag): the open fails with MA_ECANCELED naming the file and the offset, and that is no
 * property of the file: it is not listed as unusable and not cached, so once the flag is clear the
 * same source opens. A mapped open has no read to stop and is not affected. */
static void test_private_read_stopped_by_cancel(void **state)
{
    fixture *fx = *state;
    uint8_t a[GOOD_SIZE];
    good_file(a);
    put(fx, "std_0_1_3_2.mdb", a, sizeof a);
    ma_sector s = {0, 1, 3, 2};
    volatile sig_atomic_t stop = SIGINT;
    ma_database_options opt = {0};
    opt.cancel = &stop;
    ma_database *db;
    ma_error err;
    const ma_source *src;
    assert_int_equal(ma_database_open(&db, fx->dir, &opt, &err), MA_OK);
    size_t bad = ma_database_unusable_count(db);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_null(ma_source_private_sha256(src)); /* mapped */
    ma_database_release(db, MA_VARIANT_STD, s);
    ma_database_read_privately(db, MA_VARIANT_STD, s, 1);
    for (int again = 0; again < 2; again++) {
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_ECANCELED);
        assert_null(src);
        assert_non_null(strstr(err.msg, "std_0_1_3_2.mdb: sector 0_1_3_2: offset 0: interrupted"));
        assert_int_equal(ma_database_is_open(db, MA_VARIANT_STD, s), 0);
        assert_int_equal(ma_database_unusable_count(db), bad);
    }
    stop = 0;
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    assert_non_null(ma_source_private_sha256(src));
    ma_stored v;
    ma_source_read(src, 0, &v);
    assert_int_equal(v.value.depth, 1);
    ma_database_close(db);
}

static void test_bytes_digest_follows_the_mapping(void **state)
{
    fixture *fx = *state;
    uint8_t a[GOOD_SIZE], b[GOOD_SIZE], d[32];
    char hex_a[65], hex_b[65], got[65], path[512], tmp[512];
    good_file(a);
    good_file(b);
    b[128] ^= 2;
    ma_sha256_buffer(d, a, sizeof a);
    ma_sha256_hex(hex_a, d);
    ma_sha256_buffer(d, b, sizeof b);
    ma_sha256_hex(hex_b, d);
    put(fx, "std_0_1_3_2.mdb", a, sizeof a);
    snprintf(path, sizeof path, "%s/std_0_1_3_2.mdb", fx->dir);
    snprintf(tmp, sizeof tmp, "%s/tmp.new", fx->dir);
    ma_sector s = {0, 1, 3, 2};
    for (int k = 0; k < 4; k++) {
        int rename_over = k & 1, drop = k >> 1;
        put(fx, "std_0_1_3_2.mdb", a, sizeof a);
        ma_database *db;
        ma_error err;
        const ma_source *src;
        assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
        size_t n;
        assert_non_null(ma_source_bytes(src, &n));
        assert_int_equal(n, GOOD_SIZE);
        bytes_digest(src, got);
        assert_string_equal(got, hex_a);
        if (drop) {
            ma_source_drop_pages(src);
            bytes_digest(src, got);
            assert_string_equal(got, hex_a);
            ma_source_drop_pages(src);
        }
        if (rename_over) {
            ma_test_spit(tmp, b, sizeof b);
            assert_int_equal(rename(tmp, path), 0);
        } else {
            FILE *f = fopen(path, "r+b"); /* same inode, same size */
            assert_non_null(f);
            assert_int_equal(fwrite(b, 1, sizeof b, f), sizeof b);
            fclose(f);
        }
        bytes_digest(src, got);
        assert_string_equal(got, rename_over ? hex_a : hex_b);
        ma_database_close(db);
    }
}

/* What differs between formats a source answers itself, so the run engine and the sector unit
 * ask it rather than the format (source.h): the reader, and so the checker it feeds; the index
 * scheme; draw classes; whether the full-board draw rule is the user's choice. The scheme without
 * a file (ma_scheme, what a merge reclassifies with) numbers entries exactly as the source does. */
static void expect_source_answers(const ma_source *src, ma_source_reader reader, int open_numbered,
                                  int draw_classes, int full_board_draw_asked)
{
    assert_int_equal(ma_source_reader_of(src), reader);
    assert_int_equal(ma_source_open_file(src) != NULL, reader == MA_READER_OPEN);
    assert_int_equal(ma_source_malom_file(src) != NULL, reader == MA_READER_MALOM);
    assert_int_equal(ma_source_open_numbered(src), open_numbered);
    assert_int_equal(ma_source_draw_classes(src), draw_classes);
    assert_int_equal(ma_source_draw_frame(src) != 0, draw_classes);
    assert_int_equal(ma_source_full_board_draw_asked(src), full_board_draw_asked);
    ma_scheme sc = ma_source_scheme(src);
    assert_int_equal(sc.format, ma_source_format(src));
    uint64_t n = ma_source_entries(src), checked = 0;
    for (uint64_t e = 0; e < n; e += 1 + n / 64) {
        ma_board b = ma_source_board(src, e), c = ma_scheme_board(&sc, ma_source_sector(src), e);
        assert_int_equal(b.mover, c.mover);
        assert_int_equal(b.opp, c.opp);
        assert_int_equal(ma_scheme_entry_of(&sc, b), ma_source_entry_of(src, b));
        checked++;
    }
    assert_true(checked > 0);
}

static void expect_file_names(const ma_database *db, const char *sector_file, const char *std_file)
{
    char name[40];
    ma_database_file_name(db, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, name, sizeof name);
    assert_string_equal(name, sector_file);
    strcpy(name, "untouched");
    assert_int_equal(ma_database_variant_file(db, MA_VARIANT_STD, name, sizeof name), std_file != NULL);
    assert_string_equal(name, std_file ? std_file : "untouched");
}

static void test_open_source_answers_for_its_format(void **state)
{
    fixture *fx = *state;
    ma_database *db;
    ma_error err;
    /* a database of no format names its absent sector files as open ones and reads no other file */
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    expect_file_names(db, "std_3_3_0_0.mdb", NULL);
    ma_database_close(db);
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    assert_int_equal(ma_database_open(&db, fx->dir, NULL, &err), MA_OK);
    expect_file_names(db, "std_3_3_0_0.mdb", NULL);
    const ma_source *src;
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, (ma_sector){0, 1, 3, 2}, &src, &err), MA_OK);
    expect_source_answers(src, MA_READER_OPEN, 1, 0, 0);
    assert_int_equal(ma_source_split_unit(src), 24); /* C(24 - W, B): one representative's entries */
    ma_database_close(db);
}

/* What a format says without a file (a shard plan, a merge): its name, the entries a sector's file
 * will hold, whether absent successors give bounds, and its numbering as an index of its own that
 * agrees with an open source's (entry <-> board). */
static void test_formats_answer_without_a_file(void **state)
{
    fixture *fx = *state;
    ma_format f = 0;
    assert_int_equal(ma_format_parse("open", &f), MA_OK);
    assert_int_equal(f, MA_FORMAT_OPEN);
    assert_int_equal(ma_format_parse("malom-sec2", &f), MA_OK);
    assert_int_equal(f, MA_FORMAT_SEC2);
    assert_int_equal(ma_format_parse("malom-sec", &f), MA_OK);
    assert_int_equal(f, MA_FORMAT_SEC);
    assert_int_equal(ma_format_parse("sec2", &f), MA_EINVAL);
    assert_int_equal(ma_format_parse(NULL, &f), MA_EINVAL);
    assert_false(ma_format_has_bounds(MA_FORMAT_OPEN));
    assert_true(ma_format_has_bounds(MA_FORMAT_SEC2));
    assert_true(ma_format_has_bounds(MA_FORMAT_SEC));
    assert_false(ma_format_has_bounds(0));
    /* open: from the file's size; nothing for an absent file or one shorter than its header */
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    char path[600];
    snprintf(path, sizeof path, "%s/std_0_1_3_2.mdb", fx->dir);
    ma_sector s0132 = {0, 1, 3, 2}, s3300 = {3, 3, 0, 0};
    assert_int_equal(ma_format_planned_entries(MA_FORMAT_OPEN, s0132, path), ENTRIES);
    assert_int_equal(ma_format_planned_entries(0, s0132, path), ENTRIES);
    put(fx, "std_0_1_3_2.mdb", buf, 100);
    assert_int_equal(ma_format_planned_entries(MA_FORMAT_OPEN, s0132, path), 0);
    assert_int_equal(ma_format_planned_entries(MA_FORMAT_OPEN, s0132, NULL), 0);
    /* Malom's: the sector's hash count, whatever the file (210,140 for 3_3: malom-format.md) */
    assert_int_equal(ma_format_planned_entries(MA_FORMAT_SEC2, s3300, NULL), 210140);
    assert_int_equal(ma_format_planned_entries(MA_FORMAT_SEC, s3300, path), 210140);
    /* the numbering as an index of its own, prepared once per W: the boards a source of the
     * format numbers its entries by (std_0_1_3_2.mdb here, std-strong's 3_3_0_0 with fixtures) */
    ma_error err;
    ma_scheme_index ix;
    put(fx, "std_0_1_3_2.mdb", buf, sizeof buf);
    char fixtures[512], strong[600];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    snprintf(strong, sizeof strong, "%s/std-strong", fixtures);
    const struct {
        ma_format f;
        const char *dir;
        ma_sector s;
        uint64_t n;
    } cases[] = {{MA_FORMAT_OPEN, fx->dir, s0132, ENTRIES}, {MA_FORMAT_SEC, strong, s3300, 210140}};
    for (size_t i = 0; i < 2; i++) {
        ma_database *db;
        if (ma_database_open(&db, cases[i].dir, NULL, &err) != MA_OK) {
            assert_true(i == 1 && !ma_test_fixtures_required()); /* no fixtures here: skip Malom's */
            continue;
        }
        const ma_source *src;
        assert_int_equal(ma_database_source(db, MA_VARIANT_STD, cases[i].s, &src, &err), MA_OK);
        ma_scheme theirs = ma_source_scheme(src);
        assert_int_equal(ma_scheme_index_create(&ix, cases[i].f, &err), MA_OK);
        assert_int_equal(ma_scheme_index_prepare(&ix, cases[i].s.w, &err), MA_OK);
        assert_int_equal(ix.prepared, 1u << cases[i].s.w);
        assert_int_equal(ma_scheme_index_prepare(&ix, cases[i].s.w, &err), MA_OK);
        ma_scheme ours = ma_scheme_of_index(&ix);
        assert_int_equal(ours.format, cases[i].f);
        for (uint64_t e = 0; e < cases[i].n; e += 1 + cases[i].n / 500) {
            ma_board a = ma_scheme_board(&ours, cases[i].s, e), b = ma_scheme_board(&theirs, cases[i].s, e);
            assert_memory_equal(&a, &b, sizeof a);
            assert_int_equal(ma_scheme_entry_of(&ours, a), ma_scheme_entry_of(&theirs, b));
        }
        ma_scheme_index_free(&ix);
        ma_scheme_index_free(&ix); /* zeroed: freeing again is harmless */
        ma_database_close(db);
    }
    assert_int_equal(ma_scheme_index_create(&ix, 0, &err), MA_EINVAL);
}

static void test_malom_sources_answer_for_their_formats(void **state)
{
    (void)state;
    char fixtures[512], dir[600];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    ma_database *db;
    ma_error err;
    const ma_source *src;
    snprintf(dir, sizeof dir, "%s/std-strong", fixtures);
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    expect_file_names(db, "std_3_3_0_0.sec", NULL);
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, &src, &err), MA_OK);
    expect_source_answers(src, MA_READER_MALOM, 0, 0, 1);
    assert_int_equal(ma_source_split_unit(src), 4096);
    ma_database_close(db);
    snprintf(dir, sizeof dir, "%s/original-excerpt", fixtures);
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    expect_file_names(db, "std_3_3_0_0.sec2", "std.secval");
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, (ma_sector){1, 1, 8, 8}, &src, &err), MA_OK);
    expect_source_answers(src, MA_READER_MALOM, 0, 1, 1);
    ma_database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_discovery_names_every_unusable_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_source_reads_values_and_positions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_broken_sectors_fail_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_file_and_bad_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_control_characters_stay_escaped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_digest_checked_when_opened, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bytes_digest_follows_the_mapping, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_read_keeps_the_bytes_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_read_stopped_by_cancel, setup, teardown),
        cmocka_unit_test(test_sector_arguments),
        cmocka_unit_test(test_malom_sources_read_like_open_ones),
        cmocka_unit_test_setup_teardown(test_open_source_answers_for_its_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_formats_answer_without_a_file, setup, teardown),
        cmocka_unit_test(test_malom_sources_answer_for_their_formats),
        cmocka_unit_test_setup_teardown(test_secval_digest_is_of_the_bytes_parsed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sources_opened_in_advance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stamped_sources_see_a_rewrite_of_the_same_bytes, setup, teardown),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
