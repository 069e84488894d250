/* verifier/check/resident.h: the planned copies and zeroings are complete, byte for byte, in every thread
 * that returns from ma_resident_fill, whether one thread or several fill them, and the memory is
 * aligned to a huge page; a copy from a file mapping with drop_src leaves none of the mapping's
 * pages resident, and the mapping still shows the file's bytes, a rewrite in place included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verifier/check/resident.h"
#include "verifier/check/walk.h"
#include "common/ma_error.h"

struct filler {
    ma_resident *r;
    uint8_t *const *dst;
    const size_t *bytes;
    int n;
    int ok; /* every part was complete when this thread's fill returned */
};

static void *fill_then_look(void *arg)
{
    struct filler *f = arg;
    ma_resident_fill(f->r);
    f->ok = 1;
    for (int i = 0; i < f->n; i++)
        for (size_t b = 0; b < f->bytes[i]; b++)
            if (f->dst[i][b] != (i == f->n - 1 ? 0 : (uint8_t)(b * 7 + (size_t)i)))
                f->ok = 0;
    return NULL;
}

static void run(int threads)
{
    /* part sizes around the 2 MiB slice: below, equal, one past, several, and a zeroing */
    const size_t bytes[] = {1, MA_RESIDENT_PAGE, MA_RESIDENT_PAGE + 1, 5 * MA_RESIDENT_PAGE - 3,
                            3 * MA_RESIDENT_PAGE + 17};
    enum { N = sizeof bytes / sizeof *bytes };
    uint8_t *src[N], *dst[N];
    ma_resident r;
    ma_resident_init(&r);
    for (int i = 0; i < N; i++) {
        src[i] = malloc(bytes[i]);
        dst[i] = ma_huge_alloc(bytes[i]);
        assert_non_null(src[i]);
        assert_non_null(dst[i]);
        assert_int_equal((uintptr_t)dst[i] % MA_RESIDENT_PAGE, 0);
        for (size_t b = 0; b < bytes[i]; b++)
            src[i][b] = (uint8_t)(b * 7 + (size_t)i);
        memset(dst[i], 0xA5, bytes[i]); /* not what any part leaves behind */
        assert_int_equal(ma_resident_add(&r, dst[i], i == N - 1 ? NULL : src[i], bytes[i], 0), MA_OK);
    }
    struct filler f[8];
    pthread_t tid[8];
    for (int t = 0; t < threads; t++) {
        f[t] = (struct filler){&r, dst, bytes, N, 0};
        if (t > 0)
            assert_int_equal(pthread_create(&tid[t], NULL, fill_then_look, &f[t]), 0);
    }
    fill_then_look(&f[0]);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < threads; t++)
        assert_true(f[t].ok);
    ma_resident_destroy(&r);
    for (int i = 0; i < N; i++) {
        free(src[i]);
        free(dst[i]);
    }
}

static void test_one_thread(void **state)
{
    (void)state;
    run(1);
}

static void test_several_threads(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++)
        run(2 + rep % 7);
}

static void test_part_limit(void **state)
{
    (void)state;
    ma_resident r;
    ma_resident_init(&r);
    uint8_t a[4] = {1, 2, 3, 4}, b[4];
    for (int i = 0; i < MA_RESIDENT_PARTS; i++)
        assert_int_equal(ma_resident_add(&r, b, a, sizeof a, 0), MA_OK);
    assert_int_equal(ma_resident_add(&r, b, a, sizeof a, 0), MA_EINVAL);
    ma_resident_fill(&r);
    assert_memory_equal(a, b, sizeof a);
    ma_resident_destroy(&r);
}

static void test_nothing_planned(void **state)
{
    (void)state;
    ma_resident r;
    ma_resident_init(&r);
    ma_resident_fill(&r); /* returns at once: no slice, nothing to wait for */
    ma_resident_destroy(&r);
    void *m = ma_huge_alloc(0);
    assert_non_null(m);
    assert_int_equal((uintptr_t)m % MA_RESIDENT_PAGE, 0);
    free(m);
}

/* The resident kilobytes of the mapping that starts at addr (/proc/self/smaps), -1 when not found. */
static long mapping_rss_kib(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    assert_non_null(f);
    char line[512];
    int in = 0;
    long kib = -1;
    while (kib < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in = lo == (uintptr_t)addr;
        else if (in)
            sscanf(line, "Rss: %ld kB", &kib);
    }
    fclose(f);
    return kib;
}

/* A file of `bytes` bytes, the byte at b being b * 13 + salt, mapped read-only and private as
 * the format readers map theirs, every page touched (resident) as after a reader's open. */
static const uint8_t *map_pattern_file(const char *path, size_t bytes, int salt)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (size_t b = 0; b < bytes; b++)
        fputc((int)(uint8_t)(b * 13 + (size_t)salt), f);
    assert_int_equal(fclose(f), 0);
    FILE *r = fopen(path, "rb");
    assert_non_null(r);
    void *m = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fileno(r), 0);
    fclose(r);
    assert_true(m != MAP_FAILED);
    unsigned sum = 0;
    for (size_t b = 0; b < bytes; b += 4096)
        sum += ((const volatile uint8_t *)m)[b];
    (void)sum;
    return m;
}

/* Issue 47: with drop_src the copy is complete and the mapping holds no page of what was copied
 * (without it, every page stays: the same bytes held twice); the mapping still reads as the file,
 * and a rewrite in place after the copy shows there, which the run's re-hash relies on to withdraw
 * a sector whose file changed during its check (docs/runs.md). */
static void test_copy_from_a_mapping_drops_its_pages(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_resident_XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/body", dir);
    const size_t bytes = 3 * MA_RESIDENT_PAGE; /* whole pages: every one of them is dropped */
    for (int drop = 0; drop <= 1; drop++) {
        const uint8_t *map = map_pattern_file(path, bytes, 0);
        assert_int_equal(mapping_rss_kib(map), (long)(bytes / 1024));
        uint8_t *dst = ma_huge_alloc(bytes);
        assert_non_null(dst);
        ma_resident r;
        ma_resident_init(&r);
        assert_int_equal(ma_resident_add(&r, dst, map, bytes, drop), MA_OK);
        ma_resident_fill(&r);
        ma_resident_destroy(&r);
        for (size_t b = 0; b < bytes; b++)
            if (dst[b] != (uint8_t)(b * 13))
                fail_msg("copy differs at byte %zu", b);
        assert_int_equal(mapping_rss_kib(map), drop ? 0 : (long)(bytes / 1024));
        assert_int_equal(map[bytes - 1], (uint8_t)((bytes - 1) * 13));
        /* rewritten in place (same inode, same size) after the copy: the mapping shows it */
        FILE *f = fopen(path, "r+b");
        assert_non_null(f);
        assert_int_equal(fseek(f, (long)MA_RESIDENT_PAGE, SEEK_SET), 0);
        fputc(0x5A ^ (int)(uint8_t)(MA_RESIDENT_PAGE * 13), f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(map[MA_RESIDENT_PAGE], (uint8_t)(0x5A ^ (uint8_t)(MA_RESIDENT_PAGE * 13)));
        assert_int_equal(dst[MA_RESIDENT_PAGE], (uint8_t)(MA_RESIDENT_PAGE * 13)); /* the copy is the copy */
        munmap((void *)map, bytes);
        free(dst);
    }
    /* a part of a mapping that does not start or end on a page: the pages it shares with the rest
     * of the mapping stay, every page wholly inside it is dropped */
    const uint8_t *map = map_pattern_file(path, bytes, 1);
    uint8_t *dst = ma_huge_alloc(bytes);
    assert_non_null(dst);
    ma_resident r;
    ma_resident_init(&r);
    assert_int_equal(ma_resident_add(&r, dst, map + 100, bytes - 200, 1), MA_OK);
    ma_resident_fill(&r);
    ma_resident_destroy(&r);
    for (size_t b = 0; b < bytes - 200; b++)
        if (dst[b] != (uint8_t)((b + 100) * 13 + 1))
            fail_msg("copy differs at byte %zu", b);
    /* the first and last page, and the page across each of the source's two 2 MiB slice
     * boundaries */
    assert_int_equal(mapping_rss_kib(map), 4 * (sysconf(_SC_PAGESIZE) / 1024));
    munmap((void *)map, bytes);
    free(dst);
    unlink(path);
    rmdir(dir);
}

/* ma_walk_copies: a body already in private huge-page memory (a file read privately) is read
 * where it is, never copied (one copy of the file's bytes, not two), while a mapped body of the
 * same batch is copied; the budget is judged on all the batch's files, private ones included. */
static void test_private_bodies_are_not_copied(void **state)
{
    (void)state;
    const size_t n = 3 * MA_RESIDENT_PAGE + 5;
    uint8_t *a = ma_huge_alloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++) {
        a[i] = (uint8_t)(i * 3);
        b[i] = (uint8_t)(i * 5 + 1);
    }
    const void *src[2] = {a, b}, *out[2];
    size_t bytes[2] = {n, n};
    uint64_t file[2] = {n, n};
    int kind[2] = {MA_WALK_PRIVATE, 0};
    ma_walk wk;
    ma_walk_init(&wk, 0);
    assert_int_equal(ma_walk_copies(&wk, src, bytes, file, kind, 2, out), 1);
    assert_ptr_equal(out[0], a);
    assert_ptr_not_equal(out[1], b);
    assert_int_equal(wk.n_mem, 1);
    ma_resident_fill(&wk.copies);
    assert_memory_equal(out[1], b, n);
    ma_walk_free(&wk);
    /* the private file alone makes the batch over the budget: nothing is copied */
    file[0] = MA_WALK_RESIDENT_BUDGET;
    ma_walk_init(&wk, 0);
    assert_int_equal(ma_walk_copies(&wk, src, bytes, file, kind, 2, out), 0);
    assert_ptr_equal(out[0], a);
    assert_ptr_equal(out[1], b);
    assert_int_equal(wk.n_mem, 0);
    ma_walk_free(&wk);
    assert_int_equal(ma_walk_within_budget(MA_RESIDENT_PAGE - 1, MA_WALK_RESIDENT_BUDGET), 0);
    assert_int_equal(ma_walk_within_budget(MA_RESIDENT_PAGE, MA_WALK_RESIDENT_BUDGET), 1);
    assert_int_equal(ma_walk_within_budget(MA_WALK_RESIDENT_BUDGET, MA_WALK_RESIDENT_BUDGET), 1);
    assert_int_equal(ma_walk_within_budget(MA_WALK_RESIDENT_BUDGET + 1, MA_WALK_RESIDENT_BUDGET), 0);
    free(a);
    free(b);
}

static void test_walk_starts_with_the_whole_budget(void **state)
{
    (void)state;
    ma_walk wk;
    ma_walk_init(&wk, 0);
    assert_int_equal(wk.budget, MA_WALK_RESIDENT_BUDGET);
    ma_walk_free(&wk);
}

/* The walk judges a batch by its own budget: files of 3 pages are copied under a budget of 3
 * pages and left where they lie under one of 3 pages less a byte, whatever the constant says. */
static void test_copies_follow_the_walk_budget(void **state)
{
    (void)state;
    const size_t n = 3 * MA_RESIDENT_PAGE;
    uint8_t *b = malloc(n);
    assert_non_null(b);
    memset(b, 7, n);
    const void *src[1] = {b}, *out[1];
    size_t bytes[1] = {n};
    uint64_t file[1] = {n};
    ma_walk wk;
    ma_walk_init(&wk, n);
    assert_int_equal(ma_walk_copies(&wk, src, bytes, file, NULL, 1, out), 1);
    assert_ptr_not_equal(out[0], b);
    assert_int_equal(wk.n_mem, 1);
    ma_resident_fill(&wk.copies);
    assert_memory_equal(out[0], b, n);
    ma_walk_free(&wk);
    ma_walk_init(&wk, n - 1);
    assert_int_equal(ma_walk_copies(&wk, src, bytes, file, NULL, 1, out), 0);
    assert_ptr_equal(out[0], b);
    assert_int_equal(wk.n_mem, 0);
    ma_walk_free(&wk);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_several_threads),
        cmocka_unit_test(test_part_limit),
        cmocka_unit_test(test_nothing_planned),
        cmocka_unit_test(test_copy_from_a_mapping_drops_its_pages),
        cmocka_unit_test(test_private_bodies_are_not_copied),
        cmocka_unit_test(test_walk_starts_with_the_whole_budget),
        cmocka_unit_test(test_copies_follow_the_walk_budget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
