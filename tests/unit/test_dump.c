/*
 * Unit tests for verifier/run/dump: the dump notation of stored values and the walk over a sector
 * (canonical entries in entry order, bad entries where no value or stray bytes are), on a
 * hand-made open sector (docs/format.md §4.4: std 0_1_3_2, canonical entries 0, 1, 3, 4) and on
 * Malom's std-strong 3_3_0_0 (../shared/fixtures).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"
#include "verifier/run/dump.h"

/* win 1, a non-canonical stray word, bad 0xC002 where draw belongs, loss 16 */
static void write_sector(const char *dir)
{
    enum { N = 24 };
    static const uint16_t words[N] = {[0] = 0xC001, [1] = 0xC002, [2] = 0x8000, [3] = 0x8000,
                                      [4] = 0x4010};
    uint8_t buf[128 + 2 * N] = {0};
    memcpy(buf, "\x89MILL\r\n\x1a", 8);
    buf[8] = 1;
    buf[10] = 128;
    buf[12] = 1;
    buf[15] = 1;
    buf[16] = 3;
    buf[17] = 2;
    buf[18] = 2;
    buf[19] = 1;
    buf[20] = 1;
    buf[22] = 1;
    buf[24] = N;
    for (int e = 0; e < N; e++) {
        buf[128 + 2 * e] = (uint8_t)(words[e] & 0xFF);
        buf[128 + 2 * e + 1] = (uint8_t)(words[e] >> 8);
    }
    char p[512];
    snprintf(p, sizeof p, "%s/std_0_1_3_2.mdb", dir);
    ma_test_spit(p, buf, sizeof buf);
}

typedef struct seen {
    ma_dump_entry e[32];
    int n;
} seen;

static int keep(void *ctx, const ma_dump_entry *e)
{
    seen *s = ctx;
    if (s->n < 32)
        s->e[s->n++] = *e;
    return MA_OK;
}

static int stop_at_second(void *ctx, const ma_dump_entry *e)
{
    (void)e;
    return ++*(int *)ctx == 2 ? 42 : MA_OK;
}

static void test_open_walk(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_dump_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_sector(dir);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    const ma_source *src;
    ma_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    seen sn = {0};
    uint64_t canonical, bad;
    assert_int_equal(ma_dump_walk(src, keep, &sn, &canonical, &bad, &err), MA_OK);
    assert_int_equal(canonical, 4);
    assert_int_equal(bad, 2);
    assert_int_equal(sn.n, 5); /* 4 positions and the stray word at entry 2 */
    static const uint64_t entries[5] = {0, 1, 2, 3, 4};
    static const char *const values[5] = {"win 1", "bad 0xc002", "", "draw -", "loss 16"};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(sn.e[i].entry, entries[i]);
        assert_int_equal(sn.e[i].offset, 128 + 2 * entries[i]);
        assert_string_equal(sn.e[i].value, values[i]);
    }
    assert_true(sn.e[1].canonical && sn.e[1].bad);
    assert_string_equal(sn.e[1].problem, "bad encoding 0xc002");
    assert_false(sn.e[2].canonical);
    assert_string_equal(sn.e[2].problem, "is non-canonical but holds 0x8000");
    char board[64];
    ma_board_format(sn.e[0].board, board, sizeof board);
    assert_string_equal(board, "-/a1");
    int calls = 0;
    assert_int_equal(ma_dump_walk(src, stop_at_second, &calls, NULL, NULL, &err), 42);
    ma_database_close(db);
    ma_test_tmpdir_remove(dir);
}

static void test_malom_walk(void **state)
{
    (void)state;
    char fixtures[512], path[600];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    snprintf(path, sizeof path, "%s/std-strong/std_3_3_0_0.sec", fixtures);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, path, NULL, &err), MA_OK);
    const ma_source *src;
    ma_sector s = {3, 3, 0, 0};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    uint64_t canonical, bad, expect = 0;
    for (uint64_t e = 0; e < ma_source_entries(src); e++)
        expect += (uint64_t)ma_source_canonical(src, e);
    seen sn = {0};
    assert_int_equal(ma_dump_walk(src, keep, &sn, &canonical, &bad, &err), MA_OK);
    assert_int_equal(canonical, expect);
    assert_int_equal(bad, 0);
    /* malom-test-vectors.tsv: entry 4073 is a win in 3 */
    ma_stored v;
    ma_source_read(src, 4073, &v);
    char text[64];
    ma_dump_value(src, &v, text, sizeof text);
    assert_string_equal(text, "win 3");
    ma_database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_walk),
        cmocka_unit_test(test_malom_walk),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
