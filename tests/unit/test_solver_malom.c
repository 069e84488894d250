/* Unit tests for the producer's Malom index (solver/svmalom_index) and Malom-format writers
 * (solver/svmalom_file): every test vector of malom-format.md §7.3, the §4 check values, round
 * trips, the marker rule, and the entry encodings of §5.2 / §5.7 on small sectors. */
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

#include "solver/svmalom_file.h"
#include "solver/svmalom_index.h"
#include "support.h"

static int setup(void **state)
{
    ma_svmidx *ix = malloc(sizeof *ix);
    if (!ix || ma_svmidx_init(ix, NULL) != MA_OK)
        return -1;
    for (int w = 0; w <= 12; w++)
        if (ma_svmidx_prepare(ix, w, NULL) != MA_OK)
            return -1;
    *state = ix;
    return 0;
}

static int teardown(void **state)
{
    ma_svmidx_free(*state);
    free(*state);
    return 0;
}

/* §4.1, typed in from the table (the implementation builds it from the formulas). */
static const uint8_t spec_perm[16][24] = {
    {2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 18, 19, 20, 21, 22, 23, 16, 17},
    {4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 20, 21, 22, 23, 16, 17, 18, 19},
    {6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13, 22, 23, 16, 17, 18, 19, 20, 21},
    {4, 3, 2, 1, 0, 7, 6, 5, 12, 11, 10, 9, 8, 15, 14, 13, 20, 19, 18, 17, 16, 23, 22, 21},
    {0, 7, 6, 5, 4, 3, 2, 1, 8, 15, 14, 13, 12, 11, 10, 9, 16, 23, 22, 21, 20, 19, 18, 17},
    {2, 1, 0, 7, 6, 5, 4, 3, 10, 9, 8, 15, 14, 13, 12, 11, 18, 17, 16, 23, 22, 21, 20, 19},
    {6, 5, 4, 3, 2, 1, 0, 7, 14, 13, 12, 11, 10, 9, 8, 15, 22, 21, 20, 19, 18, 17, 16, 23},
    {16, 17, 18, 19, 20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7},
    {18, 19, 20, 21, 22, 23, 16, 17, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1},
    {20, 21, 22, 23, 16, 17, 18, 19, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3},
    {22, 23, 16, 17, 18, 19, 20, 21, 14, 15, 8, 9, 10, 11, 12, 13, 6, 7, 0, 1, 2, 3, 4, 5},
    {20, 19, 18, 17, 16, 23, 22, 21, 12, 11, 10, 9, 8, 15, 14, 13, 4, 3, 2, 1, 0, 7, 6, 5},
    {16, 23, 22, 21, 20, 19, 18, 17, 8, 15, 14, 13, 12, 11, 10, 9, 0, 7, 6, 5, 4, 3, 2, 1},
    {18, 17, 16, 23, 22, 21, 20, 19, 10, 9, 8, 15, 14, 13, 12, 11, 2, 1, 0, 7, 6, 5, 4, 3},
    {22, 21, 20, 19, 18, 17, 16, 23, 14, 13, 12, 11, 10, 9, 8, 15, 6, 5, 4, 3, 2, 1, 0, 7},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
};

static void test_permutations_are_the_spec_table(void **state)
{
    const ma_svmidx *ix = *state;
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++) {
            assert_int_equal(ix->perm[k][p], spec_perm[k][p]);
            assert_int_equal(ma_svmidx_apply(ix, k, 1u << p), 1u << spec_perm[k][p]);
        }
    /* inverse(op) undoes op on every point */
    for (int k = 0; k < 16; k++)
        for (int p = 0; p < 24; p++)
            assert_int_equal(spec_perm[ma_svmidx_inverse_op(k)][spec_perm[k][p]], p);
}

static void test_numbering_conversion(void **state)
{
    const ma_svmidx *ix = *state;
    /* §1.1 a4 = Malom bit 0, docs/format.md §1 a4 = open bit 9; c3: 23 and 6; g7: 3 and 23. */
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 0), 1u << 9);
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 23), 1u << 6);
    assert_int_equal(ma_svmidx_to_open(ix, 1u << 3), 1u << 23);
    /* mask 131 = the left outer mill a4 a7 a1 = open bits 9, 21, 0 */
    assert_int_equal(ma_svmidx_to_open(ix, 131), (1u << 9) | (1u << 21) | 1u);
    srand(7);
    for (int i = 0; i < 10000; i++) {
        uint32_t m = ((uint32_t)rand() ^ (uint32_t)rand() << 12) & 0xFFFFFFu;
        assert_int_equal(ma_svmidx_from_open(ix, ma_svmidx_to_open(ix, m)), m);
        assert_int_equal(__builtin_popcount(ma_svmidx_to_open(ix, m)), __builtin_popcount(m));
    }
}

static void test_f_count_and_first_representatives(void **state)
{
    const ma_svmidx *ix = *state;
    static const uint32_t f_count[13] = {1,     4,     30,     158,    757,    2830,  8774,
                                         22188, 46879, 82880, 124124, 157668, 170854};
    for (int w = 0; w <= 12; w++)
        assert_int_equal(ix->rep_count[w], f_count[w]);
    static const uint32_t w1[4] = {1, 2, 256, 512};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ix->reps[1][i], w1[i]);
    static const uint32_t w2[10] = {3, 5, 9, 10, 17, 34, 257, 258, 260, 264};
    for (int i = 0; i < 10; i++)
        assert_int_equal(ix->reps[2][i], w2[i]);
    assert_int_equal(ix->reps[2][27], 131074);
    assert_int_equal(ix->reps[2][28], 131080);
    assert_int_equal(ix->reps[2][29], 131104);
    static const uint32_t w3[11] = {7, 11, 13, 14, 19, 21, 35, 37, 41, 42, 259};
    for (int i = 0; i < 11; i++)
        assert_int_equal(ix->reps[3][i], w3[i]);
}

static void test_hash_counts(void **state)
{
    const ma_svmidx *ix = *state;
    /* §4.9 */
    assert_int_equal(ma_svmidx_count(ix, 0, 0), 1);
    assert_int_equal(ma_svmidx_count(ix, 0, 1), 24);
    assert_int_equal(ma_svmidx_count(ix, 1, 2), 1012);
    assert_int_equal(ma_svmidx_count(ix, 3, 3), 210140);
    assert_int_equal(ma_svmidx_count(ix, 4, 3), 862980);
    assert_int_equal(ma_svmidx_count(ix, 3, 4), 945630);
    assert_int_equal(ma_svmidx_count(ix, 4, 4), 3667665);
    assert_int_equal(ma_svmidx_count(ix, 5, 5), 32907240);
    assert_int_equal(ma_svmidx_count(ix, 8, 8), 603332730);
    assert_int_equal(ma_svmidx_count(ix, 12, 12), 170854);
}

/* Every row of ../shared/docs/malom-test-vectors.tsv: op1, h1, op2, the final index and the
 * canonical board. */
static void test_all_spec_test_vectors(void **state)
{
    const ma_svmidx *ix = *state;
    const char *src = getenv("MA_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/../shared/docs/malom-test-vectors.tsv", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f) {
        char why[4200];
        snprintf(why, sizeof why, "%s absent", path);
        MA_TEST_SKIP_OR_FAIL(why);
    }
    char line[2048];
    int rows = 0;
    assert_non_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *fld[20];
        int n = 0;
        for (char *p = strtok(line, "\t\n"); p && n < 20; p = strtok(NULL, "\t\n"))
            fld[n++] = p;
        assert_true(n >= 12);
        uint32_t w = (uint32_t)strtoul(fld[4], NULL, 10), b = (uint32_t)strtoul(fld[5], NULL, 10);
        int op1 = atoi(fld[6]), op2 = atoi(fld[8]);
        uint64_t h1 = strtoull(fld[7], NULL, 10), index = strtoull(fld[9], NULL, 10);
        uint32_t cw = (uint32_t)strtoul(fld[10], NULL, 10);
        uint32_t cb = (uint32_t)strtoul(fld[11], NULL, 10);
        int got_op1, got_op2;
        uint64_t got_h1;
        assert_int_equal(ma_svmidx_index(ix, w, b), index);
        assert_int_equal(ma_svmidx_path(ix, w, b, &got_op1, &got_h1, &got_op2), index);
        assert_int_equal(got_op1, op1);
        assert_int_equal(got_h1, h1);
        assert_int_equal(got_op2, op2);
        uint32_t bw, bb;
        assert_int_equal(ma_svmidx_board(ix, __builtin_popcount(w), __builtin_popcount(b), index,
                                         &bw, &bb, NULL),
                         MA_OK);
        assert_int_equal(bw, cw);
        assert_int_equal(bb, cb);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 96);
}

static int marker_at(const ma_svmidx *ix, int wn, int bn, uint64_t h)
{
    uint64_t m = ma_svmidx_binom(ix, 24 - wn, bn);
    uint32_t w, b;
    assert_int_equal(ma_svmidx_board(ix, wn, bn, h, &w, &b, NULL), MA_OK);
    return ma_svmidx_marker(ix, wn, (uint32_t)(h / m), b);
}

static void test_marker_rule_examples(void **state)
{
    const ma_svmidx *ix = *state;
    /* §4.6: W=0, B=1: canonical indices 0, 1, 8, 9; index 2 holds op 2, index 23 op 8; and the
     * 24 entries of std_0_1_9_8 listed in §7.2. */
    static const int ops01[24] = {-1, -1, 2, 2, 1, 1, 0, 0, -1, -1, 2, 2,
                                  1,  1,  0, 0, 7, 7, 10, 10, 9, 9, 8, 8};
    for (int h = 0; h < 24; h++)
        assert_int_equal(marker_at(ix, 0, 1, (uint64_t)h), ops01[h]);
    /* §4.6: W=3, B=3 has 40,514 markers. */
    uint64_t markers = 0, n = ma_svmidx_count(ix, 3, 3);
    for (uint64_t h = 0; h < n; h++)
        markers += marker_at(ix, 3, 3, h) >= 0;
    assert_int_equal(markers, 40514);
    /* §4.8: std 1_2_8_7, board f4 / g1,b4: entry 748 holds op 12, index 562. */
    assert_int_equal(marker_at(ix, 1, 2, 748), 12);
    assert_int_equal(marker_at(ix, 1, 2, 562), -1);
}

/* Round trips on every index of small (W, B) and on random boards of larger ones: a canonical
 * index decodes to a board that ranks to itself; a marker index's op takes its board to the
 * canonical board of the class, whose index ranks back; every symmetric image ranks alike. */
static void check_index(const ma_svmidx *ix, int wn, int bn, uint64_t h)
{
    uint32_t w, b;
    uint64_t m = ma_svmidx_binom(ix, 24 - wn, bn);
    assert_int_equal(ma_svmidx_board(ix, wn, bn, h, &w, &b, NULL), MA_OK);
    assert_int_equal(w & b, 0);
    assert_int_equal(__builtin_popcount(w), wn);
    assert_int_equal(__builtin_popcount(b), bn);
    int op = ma_svmidx_marker(ix, wn, (uint32_t)(h / m), b);
    uint64_t canon = ma_svmidx_index(ix, w, b);
    if (op < 0) {
        assert_int_equal(canon, h);
    } else {
        assert_true(op >= 0 && op <= 14);
        assert_int_not_equal(canon, h);
        uint32_t w2 = ma_svmidx_apply(ix, op, w), b2 = ma_svmidx_apply(ix, op, b);
        assert_int_equal(w2, w); /* marker ops fix the mover mask */
        uint32_t cw, cb;
        assert_int_equal(ma_svmidx_board(ix, wn, bn, canon, &cw, &cb, NULL), MA_OK);
        assert_int_equal(cw, w2);
        assert_int_equal(cb, b2);
        assert_int_equal(marker_at(ix, wn, bn, canon), -1);
    }
    for (int k = 0; k < 16; k++)
        assert_int_equal(ma_svmidx_index(ix, ma_svmidx_apply(ix, k, w), ma_svmidx_apply(ix, k, b)),
                         canon);
}

static void test_round_trips(void **state)
{
    const ma_svmidx *ix = *state;
    for (int wn = 0; wn <= 3; wn++)
        for (int bn = 0; bn <= 3; bn++) {
            uint64_t n = ma_svmidx_count(ix, wn, bn);
            for (uint64_t h = 0; h < n; h += (n > 50000 ? 7 : 1))
                check_index(ix, wn, bn, h);
        }
    srand(11);
    for (int i = 0; i < 20000; i++) {
        int wn = rand() % 13, bn = rand() % 13;
        if (wn + bn > 24)
            continue;
        uint64_t n = ma_svmidx_count(ix, wn, bn);
        uint64_t h = (((uint64_t)rand() << 31) ^ (uint64_t)rand()) % n;
        check_index(ix, wn, bn, h);
    }
    /* A board of the wrong size or an out-of-range index is refused, not decoded. */
    uint32_t w, b;
    ma_error err;
    assert_int_equal(ma_svmidx_board(ix, 3, 3, 210140, &w, &b, &err), MA_EINVAL);
    assert_int_equal(ma_svmidx_prepare((ma_svmidx *)ix, 13, &err), MA_EINVAL);
}

/* ---- writers (§5.2, §5.7) ------------------------------------------------------------------ */

struct scratch {
    char dir[64];
    char path[128];
};

static void scratch_make(struct scratch *s, const char *name)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/ma_svmalom_XXXXXX");
    assert_non_null(mkdtemp(s->dir));
    snprintf(s->path, sizeof s->path, "%s/%s", s->dir, name);
}

static const ma_sv_sector s33 = {3, 3, 0, 0};

static void test_sec_byte_encoding(void **state)
{
    (void)state;
    ma_svm_image img;
    ma_error err;
    ma_svm_layout l = ma_svm_layout_for(MA_SVM_SEC, 0, MA_SV_STD);
    assert_int_equal(l.entry_bytes, 1);
    assert_int_equal(ma_svm_image_init(&img, l, 10, "t.sec", &err), MA_OK);
    assert_int_equal(ma_svm_put_sec_depth(&img, 0, 1, &err), MA_OK);     /* win in 1 */
    assert_int_equal(ma_svm_put_sec_depth(&img, 1, 178, &err), MA_OK);   /* largest inline */
    assert_int_equal(ma_svm_put_sec_depth(&img, 2, 181, &err), MA_OK);   /* overflow, value >= 0 */
    assert_int_equal(ma_svm_put_marker(&img, 3, 0, &err), MA_OK);
    assert_int_equal(ma_svm_put_marker(&img, 4, 14, &err), MA_OK);
    assert_int_equal(ma_svm_put_count(&img, 5, 0, &err), MA_OK);
    assert_int_equal(ma_svm_put_count(&img, 6, 60, &err), MA_OK);        /* byte 195: a counter */
    assert_int_equal(ma_svm_put_count(&img, 7, 61, &err), MA_OK);        /* overflow, -61 */
    /* entries go in index order only; op 15 is never a marker */
    assert_int_equal(ma_svm_put_count(&img, 9, 0, &err), MA_EINTERNAL);
    assert_int_equal(ma_svm_put_marker(&img, 8, 15, &err), MA_EINTERNAL);
    assert_int_equal(ma_svm_put_sec_depth(&img, 8, 0, &err), MA_OK);    /* loss in 0 */
    struct scratch sc;
    scratch_make(&sc, "std_3_3_0_0.sec");
    assert_int_equal(ma_svm_image_write(&img, sc.path, &err), MA_EINTERNAL); /* not all filled */
    ma_svm_image_free(&img);

    assert_int_equal(ma_svm_image_init(&img, l, 9, "t.sec", &err), MA_OK);
    static const int depth[9] = {1, 178, 181, -1, -2, -3, -4, -5, 0};
    for (int h = 0; h < 9; h++) {
        int rc = depth[h] >= 0   ? ma_svm_put_sec_depth(&img, (uint64_t)h, depth[h], &err)
                 : depth[h] == -1 ? ma_svm_put_marker(&img, (uint64_t)h, 0, &err)
                 : depth[h] == -2 ? ma_svm_put_marker(&img, (uint64_t)h, 14, &err)
                 : depth[h] == -3 ? ma_svm_put_count(&img, (uint64_t)h, 0, &err)
                 : depth[h] == -4 ? ma_svm_put_count(&img, (uint64_t)h, 60, &err)
                                  : ma_svm_put_count(&img, (uint64_t)h, 61, &err);
        assert_int_equal(rc, MA_OK);
    }
    assert_int_equal(ma_svm_image_write(&img, sc.path, &err), MA_OK);
    ma_svm_image_free(&img);
    size_t len;
    unsigned char *d = ma_test_slurp(sc.path, &len);
    static const unsigned char want[9 + 4 + 16] = {
        1, 178, 179, 180, 194, 255, 195, 179, 0, /* entries */
        2, 0, 0, 0,                              /* two overflow records, ascending */
        2, 0, 0, 0, 181, 0, 0, 0,                /* index 2: Val 181 */
        7, 0, 0, 0, 0xC3, 0xFF, 0xFF, 0xFF};     /* index 7: counter 61 as -61 */
    assert_int_equal(len, sizeof want);
    assert_memory_equal(d, want, sizeof want);
    int exists = -1;
    assert_int_equal(ma_svm_probe(&exists, sc.path, s33, l, 9, &err), MA_OK);
    assert_int_equal(exists, 1);
    /* a truncated file, or one of another size, is refused and named */
    ma_test_spit(sc.path, d, len - 1);
    assert_int_equal(ma_svm_probe(&exists, sc.path, s33, l, 9, &err), MA_EEXIST);
    assert_non_null(strstr(err.msg, sc.path));
    unlink(sc.path);
    assert_int_equal(ma_svm_probe(&exists, sc.path, s33, l, 9, &err), MA_OK);
    assert_int_equal(exists, 0);
    free(d);
    ma_test_tmpdir_remove(sc.dir);
}

static uint32_t raw_at(const unsigned char *d, int s, uint64_t h)
{
    uint32_t raw = 0;
    for (int i = 0; i < s; i++)
        raw |= (uint32_t)d[64 + h * (uint64_t)s + (uint64_t)i] << (8 * i);
    return raw;
}

static void test_sec2_packing_and_header(void **state)
{
    (void)state;
    ma_error err;
    /* §5.1: header fields of the three layouts */
    ma_svm_layout sd = ma_svm_layout_for(MA_SVM_SEC2, 1, MA_SV_STD);
    ma_svm_layout st = ma_svm_layout_for(MA_SVM_SEC2, 0, MA_SV_STD);
    ma_svm_layout la = ma_svm_layout_for(MA_SVM_SEC2, 0, MA_SV_LASK);
    assert_int_equal(sd.entry_bytes, 2);
    assert_int_equal(sd.field1_bits, 6);
    assert_int_equal(st.entry_bytes, 3);
    assert_int_equal(st.field1_bits, 12);
    assert_int_equal(la.field1_bits, 14);
    uint8_t h[64];
    ma_svm_sec2_header(h, sd);
    static const uint8_t hsd[16] = {2, 0, 0, 0, 2, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(h, hsd, 16);
    for (int i = 13; i < 64; i++)
        assert_int_equal(h[i], 0);
    ma_svm_sec2_header(h, la);
    static const uint8_t hla[13] = {2, 0, 0, 0, 3, 0, 0, 0, 14, 0, 0, 0, 0};
    assert_memory_equal(h, hla, 13);

    /* §7.1 / §7.2 byte examples: std (-21, 2) = eb 2f 00, std marker op 2 = 00 d0 ff,
     * lask (352, 1) = 60 41 00, mora (18, 49) = 12 40 0c */
    struct scratch sc;
    scratch_make(&sc, "x.sec2");
    ma_svm_image img;
    assert_int_equal(ma_svm_image_init(&img, st, 3, "x", &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 0, -21, 2, &err), MA_OK);
    assert_int_equal(ma_svm_put_marker(&img, 1, 2, &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 2, 0, 5, &err), MA_EINTERNAL); /* key1 0 is a Count */
    assert_int_equal(ma_svm_put_count(&img, 2, 2047, &err), MA_OK);        /* inline maximum */
    assert_int_equal(ma_svm_image_write(&img, sc.path, &err), MA_OK);
    ma_svm_image_free(&img);
    size_t len;
    unsigned char *d = ma_test_slurp(sc.path, &len);
    assert_int_equal(len, 64 + 9 + 4);
    assert_int_equal(raw_at(d, 3, 0), 0x002FEB);
    assert_int_equal(raw_at(d, 3, 1), 0xFFD000);
    assert_int_equal(raw_at(d, 3, 2), 0x7FF000);
    free(d);
    assert_int_equal(ma_svm_image_init(&img, la, 2, "x", &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 0, 352, 1, &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 1, 18, 49, &err), MA_OK);
    assert_int_equal(ma_svm_image_write(&img, sc.path, &err), MA_OK);
    ma_svm_image_free(&img);
    d = ma_test_slurp(sc.path, &len);
    assert_int_equal(raw_at(d, 3, 0), 0x004160);
    assert_int_equal(raw_at(d, 3, 1), 0x0C4012);
    free(d);

    /* STONE_DIFF: key1 in 6 bits, key2 inline up to 511; beyond, SPEC = -512 and a record */
    assert_int_equal(ma_svm_image_init(&img, sd, 5, "x", &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 0, 10, 511, &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 1, -10, 512, &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 2, 3, -600, &err), MA_OK);
    assert_int_equal(ma_svm_put_sec2(&img, 3, 32, 1, &err), MA_EINTERNAL); /* does not fit */
    assert_int_equal(ma_svm_put_sec2(&img, 3, -32, -511, &err), MA_OK);
    assert_int_equal(ma_svm_put_marker(&img, 4, 14, &err), MA_OK);
    assert_int_equal(ma_svm_image_write(&img, sc.path, &err), MA_OK);
    ma_svm_image_free(&img);
    d = ma_test_slurp(sc.path, &len);
    assert_int_equal(len, 64 + 10 + 4 + 16);
    assert_int_equal(raw_at(d, 2, 1), ((uint32_t)(-10 & 63)) | (512u << 6)); /* SPEC inline */
    free(d);
    ma_svm_reader r;
    assert_int_equal(ma_svm_reader_open(&r, sc.path, s33, sd, 5, &err), MA_OK);
    static const int k[5][2] = {{10, 511}, {-10, 512}, {3, -600}, {-32, -511}, {0, -15}};
    for (int i = 0; i < 5; i++) {
        int k1, k2;
        assert_int_equal(ma_svm_reader_get(&r, (uint64_t)i, &k1, &k2), MA_OK);
        assert_int_equal(k1, k[i][0]);
        assert_int_equal(k2, k[i][1]);
    }
    ma_svm_reader_close(&r);
    /* the reader insists on the header it expects and on the length */
    assert_int_equal(ma_svm_reader_open(&r, sc.path, s33, st, 5, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "offset"));
    assert_int_equal(ma_svm_reader_open(&r, sc.path, s33, sd, 6, &err), MA_EFORMAT);
    int exists;
    assert_int_equal(ma_svm_probe(&exists, sc.path, s33, st, 5, &err), MA_EEXIST);
    unlink(sc.path);
    assert_int_equal(ma_svm_reader_open(&r, sc.path, s33, sd, 5, &err), MA_EMISSING);
    ma_test_tmpdir_remove(sc.dir);
}

/* A file streamed from windows, filled out of order by index range, is the file the whole image
 * writes: the windows land at their place and the overflow records, gathered in index order, at
 * the end. A window not filled is refused; an abort leaves no file. */
static void put_entry(ma_svm_image *img, uint64_t h)
{
    ma_error err;
    if (h % 4 == 3)
        assert_int_equal(ma_svm_put_marker(img, h, (int)(h % 15), &err), MA_OK);
    else if (h % 5 == 1)
        assert_int_equal(ma_svm_put_count(img, h, (int)h, &err), MA_OK);
    else /* key2 beyond 511 every few entries: an overflow record */
        assert_int_equal(ma_svm_put_sec2(img, h, (int)(h % 7) - 3 ? (int)(h % 7) - 3 : 9,
                                         h % 3 == 0 ? 600 + (int)h : (int)h, &err),
                         MA_OK);
}

static void test_windows_make_the_whole_file(void **state)
{
    (void)state;
    ma_error err;
    ma_svm_layout sd = ma_svm_layout_for(MA_SVM_SEC2, 1, MA_SV_STD);
    struct scratch a, b;
    scratch_make(&a, "whole.sec2");
    scratch_make(&b, "win.sec2");
    ma_svm_image img;
    assert_int_equal(ma_svm_image_init(&img, sd, 23, "whole", &err), MA_OK);
    for (uint64_t h = 0; h < 23; h++)
        put_entry(&img, h);
    assert_true(img.novf > 2);
    assert_int_equal(ma_svm_image_write(&img, a.path, &err), MA_OK);
    ma_svm_image_free(&img);

    ma_svm_out out;
    assert_int_equal(ma_svm_out_open(&out, b.path, sd, 23, &err), MA_OK);
    ma_svm_image win;
    assert_int_equal(ma_svm_image_window(&win, sd, 10, "win", &err), MA_OK);
    static const uint64_t first[3] = {20, 0, 10}, count[3] = {3, 10, 10};
    int32_t ovf[2 * 23];
    size_t novf[3] = {0, 0, 0};
    int32_t part[3][2 * 10];
    for (int i = 0; i < 3; i++) {
        ma_svm_image_reset(&win, first[i], count[i]);
        if (i == 0) /* not filled: refused */
            assert_int_equal(ma_svm_out_put(&out, &win, &err), MA_EINTERNAL);
        for (uint64_t h = first[i]; h < first[i] + count[i]; h++)
            put_entry(&win, h);
        assert_int_equal(ma_svm_out_put(&out, &win, &err), MA_OK);
        novf[i] = win.novf;
        if (win.novf) /* a window without overflow records may hold no array (memcpy from NULL is UB) */
            memcpy(part[i], win.ovf, win.novf * 2 * sizeof *win.ovf);
    }
    size_t n = 0;
    for (int i = 1; i < 4; i++) { /* windows in index order: 0, 10, 20 */
        int w = i % 3;
        memcpy(ovf + 2 * n, part[w], novf[w] * 2 * sizeof *ovf);
        n += novf[w];
    }
    assert_int_equal(ma_svm_out_close(&out, ovf, n, &err), MA_OK);
    ma_svm_image_free(&win);
    size_t la, lb;
    unsigned char *da = ma_test_slurp(a.path, &la), *db = ma_test_slurp(b.path, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(da, db, la);
    free(da);
    free(db);

    /* an abort removes the temporary file and writes nothing under the final name */
    unlink(b.path);
    assert_int_equal(ma_svm_out_open(&out, b.path, sd, 23, &err), MA_OK);
    char tmp[sizeof out.tmp];
    memcpy(tmp, out.tmp, sizeof tmp);
    assert_int_equal(access(tmp, F_OK), 0);
    ma_svm_out_abort(&out);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(access(b.path, F_OK), -1);
    unlink(a.path);
    ma_test_tmpdir_remove(a.dir);
    ma_test_tmpdir_remove(b.dir);
}

static void test_secval_parsing(void **state)
{
    (void)state;
    ma_error err;
    struct scratch sc;
    scratch_make(&sc, "std.secval");
    static const char text[] = "virt_loss_val: -299\r\nvirt_win_val: 299\r\n2\r\n3 4 0 0  40\r\n"
                               "4 3 0 0  -40\r\n";
    ma_test_spit(sc.path, text, sizeof text - 1);
    ma_svm_secval sv;
    assert_int_equal(ma_svm_secval_read(&sv, sc.path, &err), MA_OK);
    assert_int_equal(sv.virt_win, 299);
    assert_int_equal(sv.virt_loss, -299);
    int v;
    ma_sv_sector s34 = {3, 4, 0, 0}, s43 = {4, 3, 0, 0}, s33 = {3, 3, 0, 0};
    assert_int_equal(ma_svm_secval_get(&sv, s34, &v, &err), MA_OK);
    assert_int_equal(v, 40);
    assert_int_equal(ma_svm_secval_get(&sv, s43, &v, &err), MA_OK);
    assert_int_equal(v, -40);
    assert_int_equal(ma_svm_secval_get(&sv, s33, &v, &err), MA_EMISSING);
    ma_svm_secval_free(&sv);
    static const char bad[] = "virt_loss_val: -299\nvirt_win_val: 299\n2\n3 4 0 0  40\n4 3 0\n";
    ma_test_spit(sc.path, bad, sizeof bad - 1);
    assert_int_equal(ma_svm_secval_read(&sv, sc.path, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "offset"));
    unlink(sc.path);
    assert_int_equal(ma_svm_secval_read(&sv, sc.path, &err), MA_EMISSING);
    ma_test_tmpdir_remove(sc.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permutations_are_the_spec_table),
        cmocka_unit_test(test_numbering_conversion),
        cmocka_unit_test(test_f_count_and_first_representatives),
        cmocka_unit_test(test_hash_counts),
        cmocka_unit_test(test_all_spec_test_vectors),
        cmocka_unit_test(test_marker_rule_examples),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_sec_byte_encoding),
        cmocka_unit_test(test_sec2_packing_and_header),
        cmocka_unit_test(test_windows_make_the_whole_file),
        cmocka_unit_test(test_secval_parsing),
    };
    return ma_test_run_group(tests, setup, teardown);
}
