/* Unit tests for solver/svfile: header bytes, atomic writing, and refusing bad existing files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/svfile.h"

static void make_header(uint8_t h[MA_SVFILE_HEADER_SIZE], int variant, const char *producer)
{
    ma_svrules r;
    assert_int_equal(ma_svrules_init(&r, variant, MA_SVBUG_NONE, NULL), MA_OK);
    ma_sv_sector s = {0, 1, 3, 2};
    ma_svfile_header(h, &r, s, 24, producer, "0.1.0");
}

static void test_header_layout(void **state)
{
    (void)state;
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    make_header(h, MA_SV_MORA, "millaudit-solver");
    static const uint8_t magic[8] = {0x89, 'M', 'I', 'L', 'L', '\r', '\n', 0x1a};
    assert_memory_equal(h, magic, 8);
    assert_int_equal(h[8] | h[9] << 8, 1);
    assert_int_equal(h[10] | h[11] << 8, 128);
    assert_int_equal(h[12], 3);
    assert_int_equal(h[13], 1); /* mora: full board is a draw */
    assert_int_equal(h[14], 0);
    assert_int_equal(h[15], 1);
    assert_int_equal(h[16], 3);
    assert_int_equal(h[17], 2);
    assert_int_equal(h[18], 2);
    assert_int_equal(h[19], 1);
    assert_int_equal(h[20] | h[21] << 8, 1);
    assert_int_equal(h[22] | h[23] << 8, 1);
    assert_int_equal(ma_svfile_header_entries(h), 24);
    assert_string_equal((const char *)h + 32, "millaudit-solver");
    assert_string_equal((const char *)h + 64, "0.1.0");
    for (int i = 80; i < 128; i++)
        assert_int_equal(h[i], 0);
    make_header(h, MA_SV_STD, "millaudit-solver");
    assert_int_equal(h[12], 1);
    assert_int_equal(h[13], 0);
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_write_read_and_refuse(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_svfile_test_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    ma_svrules r;
    ma_svrules_init(&r, MA_SV_STD, MA_SVBUG_NONE, NULL);
    ma_sv_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_svfile_path(path, sizeof path, dir, MA_SV_STD, s, NULL), MA_OK);
    assert_non_null(strstr(path, "/std_0_1_3_2.mdb"));
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    make_header(h, MA_SV_STD, "millaudit-solver");
    uint16_t vals[24] = {0x4004, 0x4002, 0, 0xC00B, 0x8000}, back[24];
    int exists = -1;
    ma_error err;
    assert_int_equal(ma_svfile_probe(&exists, path, h, NULL), MA_OK);
    assert_int_equal(exists, 0);
    assert_int_equal(ma_svfile_read(back, path, h, &err), MA_EMISSING);
    assert_int_equal(ma_svfile_write(path, h, vals, NULL), MA_OK);
    assert_int_equal(count_files(dir), 1); /* the temporary name is gone */
    assert_int_equal(ma_svfile_probe(&exists, path, h, NULL), MA_OK);
    assert_int_equal(exists, 1);
    assert_int_equal(ma_svfile_read(back, path, h, NULL), MA_OK);
    assert_memory_equal(back, vals, sizeof vals);
    /* little-endian on disk */
    FILE *f = fopen(path, "rb");
    uint8_t raw[4];
    fseek(f, 128, SEEK_SET);
    assert_int_equal(fread(raw, 1, 2, f), 2);
    fclose(f);
    assert_int_equal(raw[0], 0x04);
    assert_int_equal(raw[1], 0x40);
    /* written by someone else: refused */
    uint8_t other[MA_SVFILE_HEADER_SIZE];
    make_header(other, MA_SV_STD, "millaudit-solver+bug:fly-early");
    assert_int_equal(ma_svfile_probe(&exists, path, other, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "another producer"));
    /* truncated: refused, left alone */
    assert_int_equal(truncate(path, 100), 0);
    assert_int_equal(ma_svfile_probe(&exists, path, h, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "incomplete or corrupt; remove it"));
    assert_non_null(strstr(err.msg, "0_1_3_2"));
    assert_int_equal(ma_svfile_read(back, path, h, NULL), MA_EEXIST);
    /* right size, bad reserved byte: refused with the offset */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(ma_svfile_write(path, h, vals, NULL), MA_OK);
    f = fopen(path, "r+b");
    fseek(f, 100, SEEK_SET);
    fputc(1, f);
    fclose(f);
    assert_int_equal(ma_svfile_probe(&exists, path, h, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "offset 100"));
    assert_int_equal(unlink(path), 0);
    /* an unwritable place: error, nothing left */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/std_0_1_3_2.mdb", dir);
    assert_int_equal(ma_svfile_write(bad, h, vals, &err), MA_EIO);
    assert_int_equal(count_files(dir), 0);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_layout),
        cmocka_unit_test(test_write_read_and_refuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
