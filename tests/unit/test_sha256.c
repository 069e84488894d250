/* Unit tests for checksums/sha256: NIST vectors, chunk digests at the chunk boundaries, threads. */
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

#include "checksums/sha256.h"

static char tmpdir[64];

static int group_setup(void **state)
{
    (void)state;
    strcpy(tmpdir, "/tmp/ma_test_sha256_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void hex_of(char out[65], const void *data, size_t n)
{
    uint8_t d[MA_SHA256_LEN];
    ma_sha256_buffer(d, data, n);
    ma_sha256_hex(out, d);
}

static void test_nist_vectors(void **state)
{
    (void)state;
    char hex[65];
    hex_of(hex, "", 0);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of(hex, "abc", 3);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(hex, m448, strlen(m448));
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    assert_non_null(million);
    memset(million, 'a', 1000000);
    hex_of(hex, million, 1000000);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    /* The same million 'a' through the file path, in small chunks and with several threads, so the
     * sequential stream across chunk boundaries is checked against the published digest. */
    char path[128];
    snprintf(path, sizeof path, "%s/million_a", tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(million, 1, 1000000, f), 1000000);
    fclose(f);
    free(million);
    ma_file_digest d;
    ma_error e;
    ma_sha256_options opt = {.chunk_size = 4096 + 3, .threads = 3};
    assert_int_equal(ma_sha256_file(&d, path, &opt, &e), MA_OK);
    ma_sha256_hex(hex, d.digest);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    assert_int_equal(d.size, 1000000);
    ma_file_digest_free(&d);
}

static void test_parse_hex_round_trip_and_rejects_non_hex(void **state)
{
    (void)state;
    uint8_t d[MA_SHA256_LEN], back[MA_SHA256_LEN];
    char hex[65];
    ma_sha256_buffer(d, "abc", 3);
    ma_sha256_hex(hex, d);
    assert_int_equal(ma_sha256_parse_hex(back, hex), MA_OK);
    assert_memory_equal(d, back, sizeof d);
    assert_int_equal(ma_sha256_parse_hex(back, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"), MA_OK);
    assert_memory_equal(d, back, sizeof d);
    hex[10] = 'g';
    assert_int_equal(ma_sha256_parse_hex(back, hex), MA_EFORMAT);
    assert_int_equal(ma_sha256_parse_hex(back, "abc"), MA_EFORMAT);
}

/* Deterministic, non-repeating content so a misplaced chunk changes its digest. */
static uint8_t *make_file(const char *path, size_t n)
{
    uint8_t *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    uint32_t x = 2463534242u + (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (uint8_t)x;
    }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
    return buf;
}

static void check_digest(const ma_file_digest *d, const uint8_t *data, size_t n, uint64_t chunk)
{
    uint8_t want[MA_SHA256_LEN];
    assert_int_equal(d->size, n);
    assert_int_equal(d->chunk_size, chunk);
    ma_sha256_buffer(want, data, n);
    assert_memory_equal(d->digest, want, MA_SHA256_LEN);
    assert_int_equal(d->n_chunks, (n + chunk - 1) / chunk);
    for (size_t k = 0; k < d->n_chunks; k++) {
        size_t off = k * chunk;
        size_t len = n - off < chunk ? n - off : chunk;
        ma_sha256_buffer(want, data + off, len);
        assert_memory_equal(d->chunks[k], want, MA_SHA256_LEN);
    }
}

static void test_chunk_digests_at_the_boundaries(void **state)
{
    (void)state;
    const uint64_t chunk = 64;
    const size_t sizes[] = {0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk + 7, 40 * chunk};
    const unsigned threads[] = {1, 2, 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/size_%zu", tmpdir, sizes[i]);
        uint8_t *data = make_file(path, sizes[i]);
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            ma_sha256_options opt = {.chunk_size = chunk, .threads = threads[t]};
            ma_file_digest d;
            ma_error e;
            assert_int_equal(ma_sha256_file(&d, path, &opt, &e), MA_OK);
            check_digest(&d, data, sizes[i], chunk);
            ma_file_digest_free(&d);
            opt.whole_only = 1;
            uint8_t want[MA_SHA256_LEN];
            ma_sha256_buffer(want, data, sizes[i]);
            assert_int_equal(ma_sha256_file(&d, path, &opt, &e), MA_OK);
            assert_memory_equal(d.digest, want, MA_SHA256_LEN);
            assert_null(d.chunks);
            ma_file_digest_free(&d);
        }
        free(data);
    }
}

/* One-byte and odd-sized chunks over several files at once: every chunk digest right whatever order
 * the workers read, hash and feed them in (the hash scan starts at each file's lowest unclaimed
 * chunk and stops at the claim cursor, issue 22). */
static void test_tiny_chunks_over_several_files(void **state)
{
    (void)state;
    enum { N = 3 };
    const size_t sizes[N] = {5000, 1, 3001};
    const uint64_t chunks[] = {1, 7, 4096};
    char names[N][128];
    const char *paths[N];
    uint8_t *data[N];
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s/tiny_%zu", tmpdir, i);
        paths[i] = names[i];
        data[i] = make_file(names[i], sizes[i]);
    }
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        for (unsigned threads = 1; threads <= 4; threads += 3) {
            ma_sha256_options opt = {.chunk_size = chunks[c], .threads = threads};
            ma_file_digest d[N];
            ma_error e;
            assert_int_equal(ma_sha256_files(d, NULL, NULL, paths, N, &opt, &e), MA_OK);
            for (size_t i = 0; i < N; i++) {
                check_digest(&d[i], data[i], sizes[i], chunks[c]);
                ma_file_digest_free(&d[i]);
            }
        }
    }
    for (size_t i = 0; i < N; i++)
        free(data[i]);
}

static void test_many_files_one_vs_n_threads_and_per_file_errors(void **state)
{
    (void)state;
    enum { N = 9 };
    char names[N][128];
    const char *paths[N];
    uint8_t *data[N] = {0};
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s/multi_%d", tmpdir, i);
        paths[i] = names[i];
        sizes[i] = (size_t)(i * 97 + (i % 3) * 100);
        if (i != 4)
            data[i] = make_file(names[i], sizes[i]);
    }
    /* File 4 does not exist; file 6 is a directory. */
    free(data[6]);
    data[6] = NULL;
    unlink(names[6]);
    assert_int_equal(mkdir(names[6], 0755), 0);

    ma_file_digest one[N], many[N];
    int rcs[N];
    ma_error errs[N], e;
    ma_sha256_options o1 = {.chunk_size = 50, .threads = 1}, on = {.chunk_size = 50, .threads = 4};
    assert_int_equal(ma_sha256_files(one, rcs, errs, paths, N, &o1, &e), MA_EMISSING);
    assert_non_null(strstr(e.msg, names[4]));
    assert_int_equal(ma_sha256_files(many, rcs, errs, paths, N, &on, &e), MA_EMISSING);
    for (int i = 0; i < N; i++) {
        if (i == 4) {
            assert_int_equal(rcs[i], MA_EMISSING);
            assert_non_null(strstr(errs[i].msg, names[i]));
        } else if (i == 6) {
            assert_int_equal(rcs[i], MA_EFORMAT);
            assert_non_null(strstr(errs[i].msg, names[i]));
        } else {
            assert_int_equal(rcs[i], MA_OK);
            check_digest(&many[i], data[i], sizes[i], 50);
            assert_memory_equal(one[i].digest, many[i].digest, MA_SHA256_LEN);
            assert_int_equal(one[i].n_chunks, many[i].n_chunks);
            if (one[i].n_chunks)
                assert_memory_equal(one[i].chunks, many[i].chunks, one[i].n_chunks * MA_SHA256_LEN);
        }
        ma_file_digest_free(&one[i]);
        ma_file_digest_free(&many[i]);
        free(data[i]);
    }
}

/* file_per_worker: each file read and hashed by one worker in pieces, files longer than a chunk
 * (and than a 256 KiB piece) among them, with a missing file and a directory: every digest the
 * chunked pool's, every error the same; the contract's n_chunks is kept. */
static void test_file_per_worker(void **state)
{
    (void)state;
    enum { N = 6 };
    const size_t sizes[N] = {0, 1, 700000, 50, 3 * 65536 + 5, 9};
    char names[N][128];
    const char *paths[N];
    uint8_t *data[N] = {0};
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s/per_worker_%d", tmpdir, i);
        paths[i] = names[i];
        if (i != 3)
            data[i] = make_file(names[i], sizes[i]);
    }
    free(data[5]);
    data[5] = NULL;
    unlink(names[5]);
    assert_int_equal(mkdir(names[5], 0755), 0); /* file 3 is missing, file 5 a directory */
    for (unsigned threads = 1; threads <= 4; threads++) {
        for (uint64_t chunk = 1000; chunk <= 1000000; chunk *= 1000) {
            ma_sha256_options o = {.chunk_size = chunk, .threads = threads, .whole_only = 1,
                                   .file_per_worker = 1};
            ma_file_digest d[N];
            int rcs[N];
            ma_error errs[N], e;
            assert_int_equal(ma_sha256_files(d, rcs, errs, paths, N, &o, &e), MA_EMISSING);
            for (int i = 0; i < N; i++) {
                if (i == 3 || i == 5) {
                    assert_int_equal(rcs[i], i == 3 ? MA_EMISSING : MA_EFORMAT);
                    assert_non_null(strstr(errs[i].msg, names[i]));
                    continue;
                }
                uint8_t want[MA_SHA256_LEN];
                ma_sha256_buffer(want, data[i], sizes[i]);
                assert_int_equal(rcs[i], MA_OK);
                assert_memory_equal(d[i].digest, want, MA_SHA256_LEN);
                assert_int_equal(d[i].size, sizes[i]);
                assert_int_equal(d[i].n_chunks, (sizes[i] + chunk - 1) / chunk);
                assert_null(d[i].chunks);
                ma_file_digest_free(&d[i]);
            }
        }
    }
    for (int i = 0; i < N; i++)
        free(data[i]);
}

/* ma_sha256_buffers: each buffer's digest, empty ones included, whatever the thread count. */
static void test_buffers(void **state)
{
    (void)state;
    enum { N = 7 };
    const size_t sizes[N] = {5, 0, 300000, 64, 65, 1, 123457};
    const void *data[N];
    uint8_t *bufs[N];
    for (int i = 0; i < N; i++) {
        bufs[i] = malloc(sizes[i] ? sizes[i] : 1);
        assert_non_null(bufs[i]);
        for (size_t k = 0; k < sizes[i]; k++)
            bufs[i][k] = (uint8_t)(k * 31 + (size_t)i);
        data[i] = sizes[i] ? bufs[i] : NULL;
    }
    for (unsigned threads = 0; threads <= 9; threads++) {
        uint8_t got[N][MA_SHA256_LEN];
        ma_error e;
        assert_int_equal(ma_sha256_buffers(got, data, sizes, N, threads, &e), MA_OK);
        for (int i = 0; i < N; i++) {
            uint8_t want[MA_SHA256_LEN];
            ma_sha256_buffer(want, sizes[i] ? bufs[i] : (const uint8_t *)"", sizes[i]);
            assert_memory_equal(got[i], want, MA_SHA256_LEN);
        }
    }
    for (int i = 0; i < N; i++)
        free(bufs[i]);
}

/* Many files of one chunk (whole-file digest = chunk digest, no stream) mixed with files of
 * several chunks, hashed by 2 and 4 threads many times over, with and without chunk digests: every
 * digest right (a one-chunk file once offered a stream feed that raced its own finish). */
static void test_one_chunk_files_under_threads(void **state)
{
    (void)state;
    enum { N = 40 };
    char names[N][128];
    const char *paths[N];
    uint8_t *data[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s/one_%d", tmpdir, i);
        paths[i] = names[i];
        sizes[i] = i % 5 == 4 ? 300 + (size_t)i : 1 + (size_t)(i * 7 % 64); /* chunk size 64 */
        data[i] = make_file(names[i], sizes[i]);
    }
    for (int round = 0; round < 40; round++) {
        ma_file_digest d[N];
        ma_error e;
        ma_sha256_options o = {.chunk_size = 64, .threads = round % 2 ? 4 : 2,
                               .whole_only = round % 4 >= 2};
        assert_int_equal(ma_sha256_files(d, NULL, NULL, paths, N, &o, &e), MA_OK);
        for (int i = 0; i < N; i++) {
            char want[65], got[65];
            hex_of(want, data[i], sizes[i]);
            ma_sha256_hex(got, d[i].digest);
            assert_string_equal(got, want);
            if (!o.whole_only)
                check_digest(&d[i], data[i], sizes[i], 64);
            ma_file_digest_free(&d[i]);
        }
    }
    for (int i = 0; i < N; i++)
        free(data[i]);
}

struct progress_seen {
    uint64_t last;   /* last value reported */
    int calls;
    int went_back;   /* a report smaller than the one before */
};

static void record_progress(void *ctx, uint64_t done)
{
    struct progress_seen *s = ctx;
    if (done < s->last)
        s->went_back = 1;
    s->last = done;
    s->calls++;
}

/* One-chunk files larger than the 256 KiB pieces they are read and hashed in (the default chunk
 * of 16 MiB), at the piece boundaries: whole-file and chunk digest right, progress complete. */
static void test_one_chunk_file_in_several_pieces(void **state)
{
    (void)state;
    static const size_t sizes[] = {(256u << 10) - 1, 256u << 10, (256u << 10) + 1,
                                   (3u << 18) + 12345};
    enum { N = sizeof sizes / sizeof sizes[0] };
    char names[N][128];
    const char *paths[N];
    uint8_t *data[N];
    uint64_t total = 0;
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "%s/pieces_%zu", tmpdir, i);
        paths[i] = names[i];
        data[i] = make_file(names[i], sizes[i]);
        total += sizes[i];
    }
    for (int round = 0; round < 4; round++) {
        ma_file_digest d[N];
        ma_error e;
        struct progress_seen seen = {0, 0, 0};
        ma_sha256_options o = {.threads = round % 2 ? 2 : 1, .whole_only = round >= 2,
                               .on_progress = record_progress, .progress_ctx = &seen};
        assert_int_equal(ma_sha256_files(d, NULL, NULL, paths, N, &o, &e), MA_OK);
        for (size_t i = 0; i < N; i++) {
            char want[65], got[65];
            hex_of(want, data[i], sizes[i]);
            ma_sha256_hex(got, d[i].digest);
            assert_string_equal(got, want);
            assert_int_equal(d[i].n_chunks, 1);
            if (!o.whole_only)
                check_digest(&d[i], data[i], sizes[i], MA_SHA256_DEFAULT_CHUNK);
            ma_file_digest_free(&d[i]);
        }
        assert_int_equal(seen.last, total);
        assert_false(seen.went_back);
    }
    for (size_t i = 0; i < N; i++)
        free(data[i]);
}

static void test_progress_reports_every_byte_once(void **state)
{
    (void)state;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/progress_a", tmpdir);
    snprintf(b, sizeof b, "%s/progress_b", tmpdir);
    free(make_file(a, 1000));
    free(make_file(b, 333));
    const char *paths[] = {a, b};
    ma_file_digest d[2];
    ma_error e;
    struct progress_seen seen = {0};
    ma_sha256_options opt = {.chunk_size = 100, .threads = 3, .on_progress = record_progress,
                             .progress_ctx = &seen};
    assert_int_equal(ma_sha256_files(d, NULL, NULL, paths, 2, &opt, &e), MA_OK);
    assert_int_equal(seen.last, 1333);
    assert_int_equal(seen.calls, 10 + 4);
    assert_false(seen.went_back);
    ma_file_digest_free(&d[0]);
    ma_file_digest_free(&d[1]);
}

static void test_default_chunk_and_too_large_chunk(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/small", tmpdir);
    uint8_t *data = make_file(path, 1000);
    ma_file_digest d;
    ma_error e;
    assert_int_equal(ma_sha256_file(&d, path, NULL, &e), MA_OK);
    check_digest(&d, data, 1000, MA_SHA256_DEFAULT_CHUNK);
    ma_file_digest_free(&d);
    ma_sha256_options big = {.chunk_size = (uint64_t)MA_SHA256_MAX_CHUNK + 1};
    assert_int_equal(ma_sha256_file(&d, path, &big, &e), MA_EINVAL);
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nist_vectors),
        cmocka_unit_test(test_parse_hex_round_trip_and_rejects_non_hex),
        cmocka_unit_test(test_chunk_digests_at_the_boundaries),
        cmocka_unit_test(test_tiny_chunks_over_several_files),
        cmocka_unit_test(test_many_files_one_vs_n_threads_and_per_file_errors),
        cmocka_unit_test(test_one_chunk_files_under_threads),
        cmocka_unit_test(test_one_chunk_file_in_several_pieces),
        cmocka_unit_test(test_progress_reports_every_byte_once),
        cmocka_unit_test(test_default_chunk_and_too_large_chunk),
        cmocka_unit_test(test_file_per_worker),
        cmocka_unit_test(test_buffers),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
