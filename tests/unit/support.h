/*
 * Helpers shared by the unit tests that read the Malom fixtures (../shared/fixtures/malom) and
 * write edited copies into a scratch directory. Static inline in a header on purpose: every
 * tests/unit/test_*.c is its own executable and links no test library.
 * Include after <cmocka.h> (the helpers assert through cmocka).
 */
#ifndef MA_TEST_SUPPORT_H
#define MA_TEST_SUPPORT_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Writes "$MA_SOURCE_DIR/../shared/fixtures/malom" into buf, or "" when that directory is absent
 * (tests then skip with MA_TEST_NEED_FIXTURES instead of failing). */
static inline void ma_test_fixture_dir(char *buf, size_t len)
{
    const char *src = getenv("MA_SOURCE_DIR");
    snprintf(buf, len, "%s/../shared/fixtures/malom", src ? src : ".");
    DIR *d = opendir(buf);
    if (d)
        closedir(d);
    else
        buf[0] = '\0';
}

#define MA_TEST_NEED_FIXTURES(dir)                                                                 \
    do {                                                                                           \
        if (!(dir)[0]) {                                                                           \
            fprintf(stderr, "skipped: Malom fixtures absent (MA_SOURCE_DIR/../shared/fixtures)\n"); \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* Removes a flat scratch directory made with mkdtemp and everything in it. */
static inline void ma_test_tmpdir_remove(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[4200];
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The whole file (with 16 spare bytes so tests may grow a copy a little); *len = its size. */
static inline unsigned char *ma_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 16);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static inline void ma_test_spit(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
}

#endif
