/* Unit tests for solver/svfile: header bytes, body digest, atomic writing, refusing bad existing
 * files (header, size, value words, digest), and removing stale temporary files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
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
        assert_int_equal(h[i], 0); /* the digest is filled in by ma_svfile_write */
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
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, NULL), MA_OK);
    assert_int_equal(exists, 0);
    assert_int_equal(ma_svfile_read(back, path, h, 1, &err), MA_EMISSING);
    assert_int_equal(ma_svfile_write(path, h, vals, NULL, NULL), MA_OK);
    assert_int_equal(count_files(dir), 1); /* the temporary name is gone */
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, NULL), MA_OK);
    assert_int_equal(exists, 1);
    assert_int_equal(ma_svfile_read(back, path, h, 1, NULL), MA_OK);
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
    assert_int_equal(ma_svfile_probe(&exists, path, other, 1, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "another producer"));
    /* truncated: refused, left alone */
    assert_int_equal(truncate(path, 100), 0);
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "incomplete or corrupt; remove it"));
    assert_non_null(strstr(err.msg, "0_1_3_2"));
    assert_int_equal(ma_svfile_read(back, path, h, 1, NULL), MA_EEXIST);
    /* right size, bad reserved byte: refused with the offset */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(ma_svfile_write(path, h, vals, NULL, NULL), MA_OK);
    f = fopen(path, "r+b");
    fseek(f, 120, SEEK_SET);
    fputc(1, f);
    fclose(f);
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "offset 120"));
    assert_int_equal(unlink(path), 0);
    /* an unwritable place: error, nothing left */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/missing/std_0_1_3_2.mdb", dir);
    assert_int_equal(ma_svfile_write(bad, h, vals, NULL, &err), MA_EIO);
    assert_int_equal(count_files(dir), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* Overwrites `len` bytes at `off` of path. */
static void poke(const char *path, long off, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, off, SEEK_SET);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

static void test_body_digest(void **state)
{
    (void)state;
    /* docs/format.md §5.1 worked example: the 3-stone start sector's single word, win in 23 */
    static const uint8_t want[32] = {
        0x2f, 0x59, 0x9e, 0xab, 0x2e, 0xde, 0x77, 0x9f, 0x20, 0x6f, 0x81, 0x39, 0xf2, 0x04, 0xd4, 0x22,
        0x04, 0x1e, 0xca, 0xef, 0x45, 0x39, 0x79, 0x53, 0x99, 0x88, 0xff, 0x99, 0x03, 0xac, 0x08, 0x64};
    uint16_t start = 0xC017;
    uint8_t d[32];
    ma_svfile_body_digest(&start, 1, d);
    assert_memory_equal(d, want, 32);

    char dir[] = "/tmp/ma_svfile_test_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    ma_svrules r;
    ma_svrules_init(&r, MA_SV_STD, MA_SVBUG_NONE, NULL);
    ma_sv_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_svfile_path(path, sizeof path, dir, MA_SV_STD, s, NULL), MA_OK);
    uint8_t h[MA_SVFILE_HEADER_SIZE], disk[MA_SVFILE_HEADER_SIZE];
    make_header(h, MA_SV_STD, "millaudit-solver");
    uint16_t vals[24] = {0x4004, 0x4002, 0, 0xC00B, 0x8000}, back[24];
    assert_int_equal(ma_svfile_write(path, h, vals, NULL, NULL), MA_OK);
    /* the digest is the SHA-256 of the 48 body bytes, at header offset 80; 112..127 stay zero */
    FILE *f = fopen(path, "rb");
    assert_int_equal(fread(disk, 1, sizeof disk, f), sizeof disk);
    fclose(f);
    ma_svfile_body_digest(vals, 24, d);
    assert_memory_equal(disk + MA_SVFILE_DIGEST_OFFSET, d, 32);
    assert_memory_equal(disk, h, 80);
    for (int i = 112; i < 128; i++)
        assert_int_equal(disk[i], 0);
    static const uint8_t python_sha256[4] = {0xb1, 0x8c, 0x8d, 0x39}; /* hashlib, first bytes */
    assert_memory_equal(d, python_sha256, 4);

    int exists = -1;
    ma_error err;
    /* a different but well-encoded value (win in 11 -> win in 13): only the digest shows it */
    uint8_t w13[2] = {0x0D, 0xC0};
    poke(path, 128 + 2 * 3, w13, 2);
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, &err), MA_EEXIST);
    assert_int_equal(exists, 0);
    assert_non_null(strstr(err.msg, "SHA-256"));
    assert_non_null(strstr(err.msg, "offset 80"));
    assert_non_null(strstr(err.msg, "remove it"));
    assert_int_equal(ma_svfile_read(back, path, h, 1, &err), MA_EEXIST);
    /* a forbidden word (win with an even depth) is named at its own offset */
    uint8_t c002[2] = {0x02, 0xC0};
    poke(path, 128 + 2 * 3, c002, 2);
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "offset 134"));
    assert_non_null(strstr(err.msg, "0xc002"));
    /* the planted depth-in-moves files break the encoding on purpose: the digest still holds */
    assert_int_equal(ma_svfile_probe(&exists, path, h, 0, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "SHA-256"));
    /* no digest recorded: cannot be proven intact */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(ma_svfile_write(path, h, vals, NULL, NULL), MA_OK);
    uint8_t zero[32] = {0};
    poke(path, MA_SVFILE_DIGEST_OFFSET, zero, 32);
    assert_int_equal(ma_svfile_probe(&exists, path, h, 1, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, "no body digest"));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void test_canceled_write_leaves_nothing(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_svfile_test_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    ma_svrules r;
    ma_svrules_init(&r, MA_SV_STD, MA_SVBUG_NONE, NULL);
    ma_sv_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_svfile_path(path, sizeof path, dir, MA_SV_STD, s, NULL), MA_OK);
    uint8_t h[MA_SVFILE_HEADER_SIZE];
    make_header(h, MA_SV_STD, "millaudit-solver");
    uint16_t vals[24] = {0};
    atomic_int cancel = 1;
    ma_error err;
    assert_int_equal(ma_svfile_write(path, h, vals, &cancel, &err), MA_ECANCELED);
    assert_int_equal(count_files(dir), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void touch(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    close(fd);
}

static int present(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void test_stale_temporaries(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_svfile_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    /* a process that certainly ended: our own child, reaped */
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    assert_int_equal(waitpid(child, NULL, 0), child);
    char dead[128], alive[128], mine[128];
    snprintf(dead, sizeof dead, "std_3_3_0_0.mdb.tmp.%ld", (long)child);
    snprintf(alive, sizeof alive, "lask_2_3_1_1.mdb.tmp.%ld", (long)getppid());
    snprintf(mine, sizeof mine, "mora_3_3_0_0.mdb.tmp.%ld", (long)getpid());
    touch(dir, dead);
    touch(dir, alive);
    touch(dir, mine);
    touch(dir, "std_3_3_0_0.mdb.tmp.x1");    /* not a pid */
    touch(dir, "MANIFEST.sha256.tmp.1");     /* not ours to judge */
    touch(dir, "notes_3_3_0_0.mdb.tmp.999999999");
    int removed = -1;
    char first[128];
    assert_int_equal(ma_svfile_remove_stale(dir, &removed, first, sizeof first, NULL), MA_OK);
    assert_int_equal(removed, 1);
    assert_string_equal(first, dead);
    assert_false(present(dir, dead));
    assert_true(present(dir, alive));
    assert_true(present(dir, mine));
    assert_true(present(dir, "std_3_3_0_0.mdb.tmp.x1"));
    assert_true(present(dir, "MANIFEST.sha256.tmp.1"));
    assert_true(present(dir, "notes_3_3_0_0.mdb.tmp.999999999"));
    const char *left[] = {alive, mine, "std_3_3_0_0.mdb.tmp.x1", "MANIFEST.sha256.tmp.1",
                          "notes_3_3_0_0.mdb.tmp.999999999"};
    for (int i = 0; i < 5; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, left[i]);
        assert_int_equal(unlink(path), 0);
    }
    ma_error err;
    assert_int_equal(ma_svfile_remove_stale("/nonexistent/dir", &removed, first, sizeof first, &err),
                     MA_EIO);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_layout),
        cmocka_unit_test(test_write_read_and_refuse),
        cmocka_unit_test(test_body_digest),
        cmocka_unit_test(test_canceled_write_leaves_nothing),
        cmocka_unit_test(test_stale_temporaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
