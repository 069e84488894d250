/*
 * Helpers shared by the unit tests: fixtures of ../shared/fixtures/malom that skip (or fail when
 * required), scratch files, seeded random boards, and the exit status ctest reads (77 = skipped). Static inline in a
 * header on purpose: every tests/unit/test_*.c is its own executable and links no test library.
 * Include after <cmocka.h> (the helpers assert through cmocka).
 */
#ifndef MA_TEST_SUPPORT_H
#define MA_TEST_SUPPORT_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Non-zero when a test that needs ../shared/fixtures must FAIL rather than skip: in CI (the
 * variable CI set to anything but "", "0" or "false"; .ci/run sets it) or with
 * MILLAUDIT_REQUIRE_FIXTURES=1. A run can then never go green without touching third-party data.
 * tests/integration/conftest.py applies the same rule to pytest. */
static inline int ma_test_fixtures_required(void)
{
    const char *ci = getenv("CI"), *req = getenv("MILLAUDIT_REQUIRE_FIXTURES");
    int in_ci = ci && ci[0] && strcmp(ci, "0") != 0 && strcmp(ci, "false") != 0;
    return in_ci || (req && strcmp(req, "1") == 0);
}

/* How many tests of this executable skipped. A function-local static, so that an executable that
 * never skips gets no unused-variable warning; each test_*.c is its own program. */
static inline int *ma_test_skip_count(void)
{
    static int skipped;
    return &skipped;
}

/* The exit status of a test executable for ctest: the failure count when something failed, else 77
 * (SKIP_RETURN_CODE of tests/unit/CMakeLists.txt: ctest reports "Skipped", not "Passed") when any
 * test skipped, else 0. */
static inline int ma_test_exit_status(int failed)
{
    if (failed)
        return failed;
    return *ma_test_skip_count() ? 77 : 0;
}

/* cmocka_run_group_tests with the exit status above; use it as main's return value. */
#define ma_test_run_group(tests, setup, teardown)                                                  \
    ma_test_exit_status(cmocka_run_group_tests(tests, setup, teardown))

/* Skips the current test with `why` (counted, so main returns 77), or fails it when fixtures are
 * required (ma_test_fixtures_required). */
#define MA_TEST_SKIP_OR_FAIL(why)                                                                  \
    do {                                                                                           \
        if (ma_test_fixtures_required())                                                           \
            fail_msg("%s, and CI / MILLAUDIT_REQUIRE_FIXTURES=1 require it", (why));               \
        fprintf(stderr, "skipped: %s\n", (why));                                                   \
        ++*ma_test_skip_count();                                                                   \
        skip();                                                                                    \
    } while (0)

/* Writes "$MA_SOURCE_DIR/../shared/fixtures/malom" into buf, or "" when that directory is absent
 * (tests then skip, or fail when required, with MA_TEST_NEED_FIXTURES). */
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
        if (!(dir)[0])                                                                             \
            MA_TEST_SKIP_OR_FAIL("Malom fixtures absent (MA_SOURCE_DIR/../shared/fixtures/malom)"); \
    } while (0)

/* Solves the whole std game with `stones` stones into out with the real binary ($MA_BUILD_DIR, set
 * by ctest), as the suite's fixtures are made; 0 on success. */
static inline int ma_test_solve_std_game(const char *out, int stones)
{
    const char *bin = getenv("MA_BUILD_DIR");
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s/millaudit' solve --variant std --stones %d --out '%s' --quiet >/dev/null",
             bin ? bin : ".", stones, out);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes the SHA-256 of an open-format file's body into its header (bytes 80..111, when it records
 * one), as a producer that computed wrong values would: the file passes its body digest and only
 * its values are wrong, a fault of the solver. A fault planted without it leaves the old digest,
 * which verify reports as damage (docs/download.md), not as a discrepancy. 0 on success. */
static inline int ma_test_reseal(const char *path)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib,sys\np=sys.argv[1]\nb=bytearray(open(p,\"rb\").read())\n"
             "if any(b[80:112]): b[80:112]=hashlib.sha256(b[128:]).digest()\nopen(p,\"r+b\").write(b)' '%s'",
             path);
    return system(cmd) == 0 ? 0 : -1;
}

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

/* Seeded randomness (xorshift64, *x never 0): the same seed draws the same boards everywhere. */
static inline uint64_t ma_test_next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A random set of k of the 24 points outside taken (k at most the points taken leaves). */
static inline uint32_t ma_test_random_points(uint64_t *x, int k, uint32_t taken)
{
    uint32_t m = 0;
    while (__builtin_popcount(m) < k) {
        uint32_t p = 1u << (ma_test_next_random(x) % 24);
        if (!((m | taken) & p))
            m |= p;
    }
    return m;
}

/* dir/name in one of four rotating buffers, so a call may take up to four such paths at once. */
static inline const char *ma_test_path_in(const char *dir, const char *name)
{
    static char buf[4][160];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static inline void ma_test_spit(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    fclose(f);
}

/* Writes the file at path again, in place (same inode, same size), with the bytes it holds: to any
 * digest nothing happened; its change time moved (common/fileio.h, the stamp). */
static inline void ma_test_rewrite_same(const char *path)
{
    size_t len = 0;
    unsigned char *b = ma_test_slurp(path, &len);
    assert_non_null(b);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
    free(b);
}

#endif
