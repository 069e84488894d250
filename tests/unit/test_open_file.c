/* Unit tests for verifier/formats/open_file: header validation (every malformed case of docs/format.md
 * §5.1/§5.2 gives MA_EFORMAT or MA_EIO naming file, sector and offset) and value encoding 1 (§5.3). */
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

#include "verifier/formats/open_file.h"

typedef struct fixture {
    ma_open_index *ix;
    char dir[256];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    ma_error err;
    if (!fx || ma_open_index_create(&fx->ix, &err))
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_open_file_XXXXXX");
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
    ma_open_index_free(fx->ix);
    free(fx);
    return 0;
}

/* A well-formed std 0_1_3_2 file: 24 entries, canonical entries 0, 1, 3, 4 (§4.4). */
enum { ENTRIES = 24, GOOD_SIZE = 128 + 2 * ENTRIES };

static void good_file(uint8_t *buf)
{
    memset(buf, 0, GOOD_SIZE);
    memcpy(buf, "\x89MILL\r\n\x1a", 8);
    buf[8] = 1;
    buf[10] = 128;
    buf[12] = 1;
    buf[13] = 0;
    buf[14] = 0;
    buf[15] = 1;
    buf[16] = 3;
    buf[17] = 2;
    buf[18] = 2;
    buf[19] = 1;
    buf[20] = 1;
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

static void write_file(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (len)
        assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void path_of(fixture *fx, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", fx->dir, name);
}

static void test_good_file_maps(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    char path[512];
    path_of(fx, "std_0_1_3_2.mdb", path, sizeof path);
    write_file(path, buf, sizeof buf);
    ma_open_file f;
    ma_error err;
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 1, &err), MA_OK);
    assert_int_equal(f.header.variant, MA_VARIANT_STD);
    assert_int_equal(f.header.sector.w, 0);
    assert_int_equal(f.header.sector.b, 1);
    assert_int_equal(f.header.sector.wf, 3);
    assert_int_equal(f.header.sector.bf, 2);
    assert_int_equal(f.header.entry_count, ENTRIES);
    assert_string_equal(f.header.producer, "unit-test");
    assert_string_equal(f.header.producer_version, "9.9.9");
    assert_int_equal(ma_open_file_word(&f, 0), 0xC001);
    assert_int_equal(ma_open_file_word(&f, 4), 0x4010);
    assert_int_equal(ma_open_file_word(&f, 23), 0);
    assert_int_equal(ma_open_file_offset(4), 136);
    ma_open_file_close(&f);
    assert_null(f.map);
}

/* Writes buf as `name`, maps it, and checks code and that the message names path, sector, offset. */
static void expect_bad(fixture *fx, const char *name, const uint8_t *buf, size_t len, int expect_name,
                       int code, const char *sector, long offset, const char *what)
{
    char path[512], want[700];
    path_of(fx, name, path, sizeof path);
    write_file(path, buf, len);
    ma_open_file f;
    ma_error err;
    ma_error_clear(&err);
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, expect_name, &err), code);
    assert_null(f.map);
    snprintf(want, sizeof want, "%s: sector %s: offset %ld: ", path, sector, offset);
    if (strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, what))
        fail_msg("message '%s', expected prefix '%s' and '%s'", err.msg, want, what);
    unlink(path);
}

static void test_each_bad_header_field_is_rejected(void **state)
{
    fixture *fx = *state;
    struct {
        int off;
        uint8_t val;
        const char *sector;
        const char *what;
    } cases[] = {
        {0, 0x88, "0_1_3_2", "bad magic"}, /* sector from the file name: magic is wrong */
        {7, 0x1B, "0_1_3_2", "bad magic"},
        {8, 2, "0_1_3_2", "format version 2"},
        {9, 1, "0_1_3_2", "format version 257"},
        {10, 64, "0_1_3_2", "header size 64"},
        {12, 0, "0_1_3_2", "unknown variant 0"},
        {12, 4, "0_1_3_2", "unknown variant 4"},
        {13, 1, "0_1_3_2", "rule flags 0x01"},
        {13, 2, "0_1_3_2", "rule flags 0x02"},
        {17, 1, "0_1_3_1", "sector impossible"},  /* B + BF = 2 < 3 */
        {16, 9, "0_1_9_2", "sector impossible"},  /* W + WF = 9 ok ... */
        {15, 25, "0_25_3_2", "sector impossible"},
        {18, 4, "0_1_3_2", "entry width 4"},
        {19, 2, "0_1_3_2", "value encoding 2"},
        {20, 2, "0_1_3_2", "index scheme 2"},
        {22, 0, "0_1_3_2", "index scheme version 0"},
        {24, 25, "0_1_3_2", "entry count 25, expected 24"},
        {31, 0x80, "0_1_3_2", "entry count 9223372036854775832"},
        {112, 1, "0_1_3_2", "reserved byte"},
        {127, 0xFF, "0_1_3_2", "reserved byte"},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[GOOD_SIZE];
        good_file(buf);
        buf[cases[i].off] = cases[i].val;
        if (cases[i].off == 16) {
            /* 0_1_9_2 is valid for std; make it impossible only through W + WF > 9. */
            buf[16] = 10;
            expect_bad(fx, "x.mdb", buf, sizeof buf, 0, MA_EFORMAT, "0_1_10_2", 16,
                       cases[i].what);
            continue;
        }
        long off = cases[i].off >= 80 ? cases[i].off
                   : cases[i].off >= 24 ? 24
                   : cases[i].off == 7 ? 0
                   : cases[i].off == 9 ? 8
                   : cases[i].off;
        expect_bad(fx, "std_0_1_3_2.mdb", buf, sizeof buf, 0, MA_EFORMAT, cases[i].sector, off,
                   cases[i].what);
    }
}

static void test_mora_needs_the_full_board_flag(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    buf[12] = 3; /* mora without rule flag bit 0 */
    expect_bad(fx, "mora_0_1_3_2.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 13,
               "rule flags 0x00, expected 0x01 for mora");
    buf[13] = 1;
    char path[512];
    path_of(fx, "mora_0_1_3_2.mdb", path, sizeof path);
    write_file(path, buf, sizeof buf);
    ma_open_file f;
    ma_error err;
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 1, &err), MA_OK);
    ma_open_file_close(&f);
}

static void test_name_must_match_header(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE];
    good_file(buf);
    /* The offset is the header field that disagrees (issue 9 item 10): variant 12, W 14, B 15,
     * WF 16, BF 17. */
    expect_bad(fx, "std_0_1_3_3.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 17,
               "header says std_0_1_3_2.mdb");
    expect_bad(fx, "lask_0_1_3_2.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 12,
               "file name disagrees");
    expect_bad(fx, "std_1_1_3_2.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 14,
               "file name disagrees");
    expect_bad(fx, "std_0_2_3_2.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 15,
               "file name disagrees");
    expect_bad(fx, "std_0_1_4_2.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 16,
               "file name disagrees");
    expect_bad(fx, "notasector.mdb", buf, sizeof buf, 1, MA_EFORMAT, "0_1_3_2", 12,
               "file name disagrees");
    /* Without expect_name the same file is fine. */
    char path[512];
    path_of(fx, "anything.bin", path, sizeof path);
    write_file(path, buf, sizeof buf);
    ma_open_file f;
    ma_error err;
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 0, &err), MA_OK);
    ma_open_file_close(&f);
}

static void test_lengths(void **state)
{
    fixture *fx = *state;
    uint8_t buf[GOOD_SIZE + 8];
    good_file(buf);
    expect_bad(fx, "std_0_1_3_2.mdb", buf, 0, 1, MA_EFORMAT, "0_1_3_2", 0, "empty file");
    expect_bad(fx, "std_0_1_3_2.mdb", buf, 50, 1, MA_EFORMAT, "0_1_3_2", 50, "truncated header");
    expect_bad(fx, "nonsense", buf, 127, 1, MA_EFORMAT, "?", 127, "truncated header");
    expect_bad(fx, "std_0_1_3_2.mdb", buf, 128, 1, MA_EFORMAT, "0_1_3_2", 128, "truncated body");
    expect_bad(fx, "std_0_1_3_2.mdb", buf, GOOD_SIZE - 1, 1, MA_EFORMAT, "0_1_3_2", GOOD_SIZE - 1,
               "truncated body");
    memset(buf + GOOD_SIZE, 0, 8);
    expect_bad(fx, "std_0_1_3_2.mdb", buf, GOOD_SIZE + 1, 1, MA_EFORMAT, "0_1_3_2", GOOD_SIZE,
               "1 trailing byte after");
}

static void test_directory_and_missing_file(void **state)
{
    fixture *fx = *state;
    char path[512], want[600];
    path_of(fx, "std_3_3_0_0.mdb", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    ma_open_file f;
    ma_error err;
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 1, &err), MA_EFORMAT);
    snprintf(want, sizeof want, "%s: sector 3_3_0_0: offset 0: not a regular file", path);
    assert_non_null(strstr(err.msg, want));
    rmdir(path);
    /* a FIFO is refused at once instead of blocking in open() until a writer appears */
    path_of(fx, "std_3_3_0_0.mdb", path, sizeof path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 1, &err), MA_EFORMAT);
    snprintf(want, sizeof want, "%s: sector 3_3_0_0: offset 0: not a regular file (FIFO)", path);
    assert_non_null(strstr(err.msg, want));
    unlink(path);
    path_of(fx, "missing.mdb", path, sizeof path);
    /* absent input: MA_EMISSING (exit 3, input unusable), not MA_EIO (exit 4 is for outputs) */
    assert_int_equal(ma_open_file_map(&f, path, fx->ix, 1, &err), MA_EMISSING);
    snprintf(want, sizeof want, "%s: sector ?: offset 0: No such file or directory", path);
    assert_non_null(strstr(err.msg, want));
}

static void test_value_decode(void **state)
{
    (void)state;
    ma_value v;
    assert_int_equal(ma_open_value_decode(0x4000, &v), 0);
    assert_int_equal(v.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(v.depth, 0);
    assert_int_equal(ma_open_value_decode(0xC001, &v), 0);
    assert_int_equal(v.outcome, MA_OUTCOME_WIN);
    assert_int_equal(v.depth, 1);
    assert_int_equal(ma_open_value_decode(0x4010, &v), 0);
    assert_int_equal(v.depth, 16);
    assert_int_equal(ma_open_value_decode(0x8000, &v), 0);
    assert_int_equal(v.outcome, MA_OUTCOME_DRAW);
    assert_int_equal(ma_open_value_decode(0x0000, &v), 0);
    assert_int_equal(v.outcome, MA_OUTCOME_NONE);
    assert_int_equal(ma_open_value_decode(0xFFFF, &v), 0); /* win in 16383 */
    assert_int_equal(v.depth, 16383);
    assert_int_equal(ma_open_value_decode(0x7FFE, &v), 0); /* loss in 16382 */
    /* Bad: win with even depth, loss with odd, draw or none with a depth. */
    assert_int_equal(ma_open_value_decode(0xC000, &v), -1);
    assert_int_equal(v.outcome, MA_OUTCOME_WIN);
    assert_int_equal(ma_open_value_decode(0xC002, &v), -1);
    assert_int_equal(ma_open_value_decode(0x4001, &v), -1);
    assert_int_equal(ma_open_value_decode(0x7FFF, &v), -1);
    assert_int_equal(ma_open_value_decode(0x8001, &v), -1);
    assert_int_equal(ma_open_value_decode(0x0001, &v), -1);
    assert_int_equal(v.outcome, MA_OUTCOME_NONE);
    assert_int_equal(v.depth, 1);
}

static void test_value_encode_round_trips(void **state)
{
    (void)state;
    for (uint32_t w = 0; w <= 0xFFFF; w++) {
        ma_value v;
        if (ma_open_value_decode((uint16_t)w, &v) == 0)
            assert_int_equal(ma_open_value_encode(v), w);
    }
    ma_value win = {MA_OUTCOME_WIN, 13};
    assert_int_equal(ma_open_value_encode(win), 0xC00D);
}

static void test_value_format(void **state)
{
    (void)state;
    char buf[16];
    ma_value v = {MA_OUTCOME_WIN, 13};
    ma_value_format(v, buf, sizeof buf);
    assert_string_equal(buf, "win 13");
    v.outcome = MA_OUTCOME_LOSS;
    v.depth = 0;
    ma_value_format(v, buf, sizeof buf);
    assert_string_equal(buf, "loss 0");
    v.outcome = MA_OUTCOME_DRAW;
    ma_value_format(v, buf, sizeof buf);
    assert_string_equal(buf, "draw");
    v.outcome = MA_OUTCOME_NONE;
    ma_value_format(v, buf, sizeof buf);
    assert_string_equal(buf, "none");
}

static void test_file_names(void **state)
{
    (void)state;
    char buf[64];
    ma_sector s = {3, 3, 0, 0};
    ma_open_file_name(MA_VARIANT_STD, s, buf, sizeof buf);
    assert_string_equal(buf, "std_3_3_0_0.mdb");
    ma_variant v;
    ma_sector t;
    assert_int_equal(ma_open_file_name_parse("mora_12_11_0_1.mdb", &v, &t), MA_OK);
    assert_int_equal(v, MA_VARIANT_MORA);
    assert_int_equal(t.w, 12);
    assert_int_equal(t.bf, 1);
    assert_int_equal(ma_open_file_name_parse("std_3_3_0_0.mdb.tmp", &v, &t), MA_EINVAL);
    assert_int_equal(ma_open_file_name_parse("foo_3_3_0_0.mdb", &v, &t), MA_EINVAL);
    assert_int_equal(ma_open_file_name_parse("std_3_3_0.mdb", &v, &t), MA_EINVAL);
    assert_int_equal(ma_open_file_name_parse(".mdb", &v, &t), MA_EINVAL);
    assert_int_equal(ma_open_file_name_parse("std_3_3_0_0", &v, &t), MA_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file_maps),
        cmocka_unit_test(test_each_bad_header_field_is_rejected),
        cmocka_unit_test(test_mora_needs_the_full_board_flag),
        cmocka_unit_test(test_name_must_match_header),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_directory_and_missing_file),
        cmocka_unit_test(test_value_decode),
        cmocka_unit_test(test_value_encode_round_trips),
        cmocka_unit_test(test_value_format),
        cmocka_unit_test(test_file_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
