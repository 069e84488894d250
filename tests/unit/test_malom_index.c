/*
 * Unit tests for indexer/malom_index: Malom's index re-implemented from malom-format.md §4.
 *
 * Check values come from the spec (§4.1 permutation table, §4.3 representative lists, §4.6 and
 * §4.8 examples, §4.9 hash counts), from the 96 rows of malom-test-vectors.tsv (each row is one
 * cmocka test) and from the real Malom files in ../shared/fixtures/malom: the entries those rows
 * name, and the marker rule against every entry of every fixture file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/formats/malom_file.h"
#include "indexer/malom_index.h"
#include "tests/unit/support.h"

/* Point names in both numberings, copied from docs/format.md §1 and malom-format.md §1.1. */
static const char *const open_names[24] = {"a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3",
                                           "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
                                           "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"};
static const char *const malom_names[24] = {"a4", "a7", "d7", "g7", "g4", "g1", "d1", "a1",
                                            "b4", "b6", "d6", "f6", "f4", "f2", "d2", "b2",
                                            "c4", "c5", "d5", "e5", "e4", "e3", "d3", "c3"};

/* §4.1 explicit permutations, image of source bit 0..23 (Malom numbering). */
static const int spec_perm[16][24] = {
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
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}};
static const int spec_inverse[16] = {2, 1, 0, 3, 4, 5, 6, 7, 10, 9, 8, 11, 12, 13, 14, 15};

static ma_malom_index *g_ix; /* prepared once in main for all tests */

static ma_board from_malom(uint32_t w, uint32_t b)
{
    ma_board r = {ma_malom_mask_to_open(w), ma_malom_mask_to_open(b)};
    return r;
}

static int open_point(const char *name)
{
    for (int i = 0; i < 24; i++)
        if (strcmp(open_names[i], name) == 0)
            return i;
    return -1;
}

/* "a4,a7" or "-" -> open mask */
static uint32_t open_mask_of_names(const char *list)
{
    uint32_t m = 0;
    if (strcmp(list, "-") == 0)
        return 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int p = open_point(t);
        assert_true(p >= 0);
        m |= 1u << p;
    }
    return m;
}

/* The Malom fixture directory, or NULL when absent (tests then skip, or fail when required). */
static const char *fixture_dir(char *buf, size_t len)
{
    ma_test_fixture_dir(buf, len);
    return buf[0] ? buf : NULL;
}

#define NEED_FIXTURES(dir) MA_TEST_NEED_FIXTURES((dir) ? (dir) : "")

static void test_point_numbering_matches_both_tables(void **state)
{
    (void)state;
    for (int p = 0; p < 24; p++) {
        int o = open_point(malom_names[p]);
        assert_int_equal(ma_malom_mask_to_open(1u << p), 1u << o);
        assert_int_equal(ma_malom_mask_from_open(1u << o), 1u << p);
    }
    /* §1.1 sanity example: mask 131 = a4, a7, a1 */
    assert_int_equal(ma_malom_mask_to_open(131), (1u << 9) | (1u << 21) | (1u << 0));
    ma_board b = {0x123456u & MA_FULL_MASK, 0x800001u};
    assert_int_equal(ma_malom_pack(b), (uint64_t)ma_malom_mask_from_open(b.mover) |
                                           (uint64_t)ma_malom_mask_from_open(b.opp) << 24);
    ma_board u = ma_malom_unpack(ma_malom_pack(b));
    assert_int_equal(u.mover, b.mover);
    assert_int_equal(u.opp, b.opp);
}

static void test_symmetry_ops_match_spec_table(void **state)
{
    (void)state;
    for (int op = 0; op < 16; op++) {
        for (int p = 0; p < 24; p++) {
            ma_board b = from_malom(1u << p, 0);
            ma_board r = ma_malom_sym_apply(op, b);
            assert_int_equal(ma_malom_mask_from_open(r.mover), 1u << spec_perm[op][p]);
        }
        assert_int_equal(ma_malom_sym_inverse(op), spec_inverse[op]);
        ma_board b = {0x5A5A5Au, 0x210000u};
        ma_board r = ma_malom_sym_apply(ma_malom_sym_inverse(op), ma_malom_sym_apply(op, b));
        assert_int_equal(r.mover, b.mover);
        assert_int_equal(r.opp, b.opp);
    }
    assert_int_equal(ma_malom_sym_inverse(16), -1);
}

static void test_f_count_and_representatives(void **state)
{
    (void)state;
    static const uint64_t f_count[13] = {1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880,
                                         124124, 157668, 170854};
    for (int w = 0; w <= 12; w++) {
        assert_int_equal(ma_malom_f_count(w), f_count[w]);
        assert_int_equal(ma_malom_index_rep_count(g_ix, w), f_count[w]);
    }
    assert_int_equal(ma_malom_f_count(13), 0);
    static const uint32_t w1[] = {1, 2, 256, 512};
    static const uint32_t w2[] = {3, 5, 9, 10, 17, 34, 257, 258, 260, 264};
    static const uint32_t w2_last[] = {131074, 131080, 131104};
    static const uint32_t w3[] = {7, 11, 13, 14, 19, 21, 35, 37, 41, 42, 259};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ma_malom_mask_from_open(ma_malom_index_unrank(g_ix, 1, 0, i).mover), w1[i]);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ma_malom_mask_from_open(ma_malom_index_unrank(g_ix, 2, 0, i).mover), w2[i]);
    for (int i = 0; i < 3; i++)
        assert_int_equal(ma_malom_mask_from_open(ma_malom_index_unrank(g_ix, 2, 0, 27 + i).mover),
                         w2_last[i]);
    for (int i = 0; i < 11; i++)
        assert_int_equal(ma_malom_mask_from_open(ma_malom_index_unrank(g_ix, 3, 0, i).mover), w3[i]);
    ma_error err;
    assert_int_equal(ma_malom_index_prepare(g_ix, 13, &err), MA_EINVAL);
    assert_int_equal(ma_malom_index_prepare(g_ix, -1, &err), MA_EINVAL);
}

static void test_hash_count_examples_of_4_9(void **state)
{
    (void)state;
    static const struct {
        int w, b;
        uint64_t count, size;
    } ex[] = {{0, 0, 1, 71}, {0, 1, 24, 140}, {1, 1, 92, 344}, {1, 2, 1012, 3104},
              {2, 2, 6930, 20858}, {3, 3, 210140, 630488}, {4, 4, 3667665, 11003063},
              {4, 3, 862980, 2589008}, {3, 4, 945630, 2836958}, {5, 5, 32907240, 98721788},
              {6, 6, 162880536, 488641676}, {7, 7, 431512224, 1294536740},
              {8, 8, 603332730, 1809998258}, {9, 8, 533332800, 1599998468},
              {8, 9, 536295760, 1608887348}, {9, 9, 414814400, 1244443268},
              {10, 9, 248496248, 745488812}, {9, 10, 248888640, 746665988},
              {10, 10, 124248124, 372744440}, {11, 11, 12298104, 36894380},
              {11, 12, 2049684, 6149120}, {12, 11, 2050248, 6150812}, {12, 12, 170854, 512630}};
    for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
        uint64_t c = ma_malom_hash_count(ex[i].w, ex[i].b);
        assert_int_equal(c, ex[i].count);
        assert_int_equal(64 + 3 * c + 4, ex[i].size);
    }
    assert_int_equal(ma_malom_hash_count(13, 0), 0);
    assert_int_equal(ma_malom_hash_count(12, 13), 0);
    assert_int_equal(ma_malom_hash_count(3, -1), 0);
}

static void test_marker_examples_of_4_6(void **state)
{
    (void)state;
    for (uint64_t h = 0; h < 24; h++) {
        int op = ma_malom_index_marker(g_ix, 0, 1, h);
        int canonical = h == 0 || h == 1 || h == 8 || h == 9;
        assert_int_equal(op < 0, canonical);
    }
    assert_int_equal(ma_malom_index_marker(g_ix, 0, 1, 2), 2);
    assert_int_equal(ma_malom_index_marker(g_ix, 0, 1, 23), 8);
    /* §7.2: the 24 markers of std_0_1_9_8 */
    static const int ops[24] = {-1, -1, 2, 2, 1, 1, 0, 0, -1, -1, 2, 2, 1, 1, 0, 0,
                                7, 7, 10, 10, 9, 9, 8, 8};
    for (uint64_t h = 0; h < 24; h++)
        assert_int_equal(ma_malom_index_marker(g_ix, 0, 1, h), ops[h]);
    uint64_t markers = 0;
    for (uint64_t h = 0; h < ma_malom_hash_count(3, 3); h++)
        markers += ma_malom_index_marker(g_ix, 3, 3, h) >= 0;
    /* the count malom-format.md §4.6 states: 40,514 markers, 169,626 canonical of 210,140 */
    assert_int_equal(markers, 40514);
}

static void test_worked_example_of_4_8(void **state)
{
    (void)state;
    ma_board b = from_malom(1u << 12, (1u << 5) | (1u << 8));
    ma_malom_path p;
    ma_malom_index_path(g_ix, b, &p);
    assert_int_equal(p.op1, 11);
    assert_int_equal(p.h1, 748);
    assert_int_equal(p.op2, 12);
    assert_int_equal(p.index, 562);
    ma_board canon;
    assert_int_equal(ma_malom_index_rank(g_ix, b, &canon), 562);
    assert_int_equal(ma_malom_mask_from_open(canon.mover), 256);
    assert_int_equal(ma_malom_mask_from_open(canon.opp), 4098);
    ma_board c2 = ma_malom_canonical(b);
    assert_int_equal(c2.mover, canon.mover);
    assert_int_equal(c2.opp, canon.opp);
}

static void check_mover_part(ma_board board)
{
    ma_malom_mover mi;
    ma_malom_mover_info(g_ix, board.mover, &mi);
    assert_int_equal(ma_malom_index_rank_with(g_ix, &mi, board.opp),
                     ma_malom_index_rank(g_ix, board, NULL));
}

/* The shared mover part must give exactly ma_malom_index_rank for every (W, B), including mover
 * masks with a non-trivial stabiliser (several ops onto the representative). */
static void test_rank_with_mover_part_matches_rank(void **state)
{
    (void)state;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int symmetric_seen = 0;
    for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
        for (int b = 0; w + b <= MA_POINTS && b <= MA_MALOM_MAX_STONES; b++)
            for (int t = 0; t < 200; t++) {
                ma_board board;
                board.mover = ma_test_random_points(&x, w, 0);
                board.opp = ma_test_random_points(&x, b, board.mover);
                check_mover_part(board);
                /* a symmetric mover: the union of a set and one of its images */
                int op = (int)(ma_test_next_random(&x) % MA_MALOM_SYM_OPS);
                ma_board half = {ma_test_random_points(&x, w / 2, 0), 0};
                uint32_t sym = half.mover | ma_malom_sym_apply(op, half).mover;
                if (__builtin_popcount(sym) > MA_MALOM_MAX_STONES ||
                    MA_POINTS - __builtin_popcount(sym) < b)
                    continue;
                ma_board sb = {sym, ma_test_random_points(&x, b, sym)};
                ma_malom_mover mi;
                ma_malom_mover_info(g_ix, sym, &mi);
                if (mi.nops > 1)
                    symmetric_seen++;
                check_mover_part(sb);
            }
    assert_true(symmetric_seen > 100);
    /* every fixture-size position of 3/3 exhaustively through its unranked boards */
    for (uint64_t h = 0; h < ma_malom_hash_count(3, 3); h++)
        check_mover_part(ma_malom_index_unrank(g_ix, 3, 3, h));
}

/* Ranks `n` open-numbered boards through ma_malom_index_rank_many (Malom numbering, one call,
 * one cache) and compares each with ma_malom_index_rank. */
static void check_rank_many(ma_malom_index *ix, ma_malom_rank_cache *cache, const ma_board *open,
                            int n)
{
    ma_board mal[64];
    uint64_t got[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++) {
        mal[i].mover = ma_malom_mask_from_open(open[i].mover);
        mal[i].opp = ma_malom_mask_from_open(open[i].opp);
    }
    ma_malom_index_rank_many(ix, cache, mal, n, got);
    for (int i = 0; i < n; i++)
        assert_int_equal(got[i], ma_malom_index_rank(g_ix, open[i], NULL));
}

/* The batched Malom-numbered rank (the checker's hot path) equals ma_malom_index_rank on random
 * boards of every (W, B), symmetric mover masks included, with and without the mover tables and
 * with and without the bit-extract path; the boards of a batch share mover masks as successors
 * do, and every 3/3 board is ranked exhaustively. */
static void test_rank_many_matches_rank(void **state)
{
    (void)state;
    ma_error err;
    ma_malom_index *plain;
    assert_int_equal(ma_malom_index_create(&plain, &err), MA_OK);
    assert_int_equal(ma_malom_index_prepare_all(plain, &err), MA_OK);
    for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
        assert_int_equal(ma_malom_index_prepare_movers(g_ix, w, &err), MA_OK);
    for (int variant = 0; variant < 4; variant++) {
        ma_malom_index *ix = variant & 1 ? plain : g_ix;
        ma_malom_index_use_bit_extract(ix, variant >> 1);
        ma_malom_rank_cache *cache = calloc(1, sizeof *cache);
        assert_non_null(cache);
        uint64_t x = 0x243F6A8885A308D3ull + (uint64_t)variant;
        int symmetric_seen = 0;
        for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
            for (int b = 0; w + b <= MA_POINTS && b <= MA_MALOM_MAX_STONES; b++)
                for (int t = 0; t < 60; t++) {
                    ma_board batch[24];
                    int n = 0;
                    uint32_t mover = ma_test_random_points(&x, w, 0);
                    if (t & 1) {
                        /* a symmetric mover: the union of a set and one of its images */
                        int op = (int)(ma_test_next_random(&x) % MA_MALOM_SYM_OPS);
                        ma_board half = {ma_test_random_points(&x, w / 2, 0), 0};
                        uint32_t sym = half.mover | ma_malom_sym_apply(op, half).mover;
                        if (__builtin_popcount(sym) == w) {
                            mover = sym;
                            symmetric_seen++;
                        }
                    }
                    for (; n < 8; n++)
                        batch[n] = (ma_board){mover, ma_test_random_points(&x, b, mover)};
                    for (; n < 16; n++) {
                        uint32_t m2 = ma_test_random_points(&x, w, 0);
                        batch[n] = (ma_board){m2, ma_test_random_points(&x, b, m2)};
                    }
                    check_rank_many(ix, cache, batch, n);
                    /* the same mover with new opponents: from its
                     * MA_MALOM_RANK_TABLES_AFTER-th board on, the slot ranks through its byte
                     * tables */
                    for (int again = 0; again < 3; again++) {
                        for (n = 0; n < 8; n++)
                            batch[n] = (ma_board){mover, ma_test_random_points(&x, b, mover)};
                        check_rank_many(ix, cache, batch, n);
                    }
                }
        assert_true(symmetric_seen > 100);
        int tabled = 0;
        for (int k = 0; k < MA_MALOM_RANK_CACHE; k++)
            tabled += cache->slot[k].tables;
        assert_true(tabled > 0);
        for (uint64_t h = 0; h < ma_malom_hash_count(3, 3); h += 16) {
            ma_board batch[16];
            int n = 0;
            for (; n < 16 && h + (uint64_t)n < ma_malom_hash_count(3, 3); n++)
                batch[n] = ma_malom_sym_apply((int)((h / 16 + (uint64_t)n) % 16),
                                              ma_malom_index_unrank(g_ix, 3, 3, h + (uint64_t)n));
            check_rank_many(ix, cache, batch, n);
        }
        free(cache);
        ma_malom_index_use_bit_extract(ix, 1);
    }
    ma_malom_index_free(plain);
}

/* The checkers' per-group ranking (ma_mover_map): the least compressed image over the ops
 * reaching the mover's representative, ranked through the byte tables, equals
 * ma_malom_index_rank for random boards of every (W, B), symmetric mover masks (several ops) and
 * the empty mover (all 16) included, and after the mover's points moved one at a time as turns
 * move them. */
static void test_mover_map_matches_rank(void **state)
{
    (void)state;
    ma_error err;
    for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
        assert_int_equal(ma_malom_index_prepare_movers(g_ix, w, &err), MA_OK);
    ma_mover_map *mm = malloc(sizeof *mm);
    assert_non_null(mm);
    uint64_t x = 0xB7E151628AED2A6Bull;
    int several = 0;
    for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
        for (int b = 0; w + b <= MA_POINTS && b <= MA_MALOM_MAX_STONES; b++)
            for (int t = 0; t < 40; t++) {
                uint32_t mover = ma_test_random_points(&x, w, 0);
                if (t & 1) {
                    int op = (int)(ma_test_next_random(&x) % MA_MALOM_SYM_OPS);
                    ma_board half = {ma_test_random_points(&x, w / 2, 0), 0};
                    uint32_t sym = half.mover | ma_malom_sym_apply(op, half).mover;
                    if (__builtin_popcount(sym) == w)
                        mover = sym;
                }
                int nops = ma_malom_index_mover_map(g_ix, ma_malom_mask_from_open(mover), mm);
                assert_int_equal(nops, mm->nops);
                assert_true(nops >= 1 && nops <= MA_MALOM_SYM_OPS);
                if (w == 0)
                    assert_int_equal(nops, MA_MALOM_SYM_OPS);
                several += nops > 1;
                for (int i = 0; i < 8; i++) {
                    ma_board board = {mover, ma_test_random_points(&x, b, mover)};
                    uint32_t c = ma_mover_map_least(mm, ma_malom_mask_from_open(board.opp));
                    assert_int_equal(ma_mover_map_rank(mm, c, b),
                                     ma_malom_index_rank(g_ix, board, NULL));
                }
            }
    assert_true(several > 100);
    free(mm);
}

/* The Malom-numbered pieces the checker walks entries with: the raw index of an unranked board is
 * f_rank * C(24 - W, B) + g_rank, the representative list is the unranked mover mask, and
 * ma_malom_apply_mask is ma_malom_sym_apply on one mask. */
static void test_malom_numbered_helpers(void **state)
{
    (void)state;
    static const int wb[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 3}, {4, 3}, {3, 4}, {5, 4}};
    uint64_t x = 77;
    for (size_t k = 0; k < sizeof wb / sizeof wb[0]; k++) {
        int w = wb[k][0], b = wb[k][1];
        uint64_t n = ma_malom_hash_count(w, b), per = n / ma_malom_f_count(w);
        for (int t = 0; t < 2000; t++) {
            uint64_t h = ma_test_next_random(&x) % n;
            uint32_t mw, mb;
            ma_malom_index_unrank_malom(g_ix, w, b, h, &mw, &mb);
            ma_board open = ma_malom_index_unrank(g_ix, w, b, h);
            assert_int_equal(ma_malom_mask_to_open(mw), open.mover);
            assert_int_equal(ma_malom_mask_to_open(mb), open.opp);
            assert_int_equal(ma_malom_index_rep(g_ix, w, h / per), mw);
            assert_int_equal(ma_malom_g_rank(mw, mb), h % per);
            int op = (int)(ma_test_next_random(&x) % MA_MALOM_SYM_OPS);
            assert_int_equal(ma_malom_mask_to_open(ma_malom_apply_mask(op, mb)),
                             ma_malom_sym_apply(op, open).opp);
        }
    }
}

/* The Malom-numbered rank (the checker's marker test uses it) gives the index and canonical board
 * the open-numbered one gives, on random boards of every W and B. */
static void test_rank_malom_equals_rank(void **state)
{
    (void)state;
    uint64_t x = 0x5DEECE66Dull;
    int symmetric = 0;
    for (int w = 0; w <= MA_MALOM_MAX_STONES; w++)
        for (int b = 0; w + b <= MA_POINTS && b <= MA_MALOM_MAX_STONES; b++)
            for (int t = 0; t < 40; t++) {
                ma_board board = {ma_test_random_points(&x, w, 0), 0};
                board.opp = ma_test_random_points(&x, b, board.mover);
                ma_board canon;
                uint64_t want = ma_malom_index_rank(g_ix, board, &canon);
                uint32_t cw, cb;
                uint64_t got = ma_malom_index_rank_malom(g_ix, ma_malom_mask_from_open(board.mover),
                                                         ma_malom_mask_from_open(board.opp), &cw,
                                                         &cb);
                assert_int_equal(got, want);
                assert_int_equal(ma_malom_mask_to_open(cw), canon.mover);
                assert_int_equal(ma_malom_mask_to_open(cb), canon.opp);
                symmetric += canon.mover != board.mover || canon.opp != board.opp;
            }
    assert_true(symmetric > 1000); /* most boards are not their own canonical form */
}

/* Every canonical index decodes to a board that ranks back to it; every marker index decodes to
 * a board whose marker op leads to a canonical board of the same class. */
static void test_rank_unrank_round_trip(void **state)
{
    (void)state;
    static const int wb[][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}, {4, 3}};
    for (size_t k = 0; k < sizeof wb / sizeof wb[0]; k++) {
        int w = wb[k][0], b = wb[k][1];
        uint64_t n = ma_malom_hash_count(w, b);
        for (uint64_t h = 0; h < n; h++) {
            ma_board board = ma_malom_index_unrank(g_ix, w, b, h);
            assert_int_equal(__builtin_popcount(board.mover), w);
            assert_int_equal(__builtin_popcount(board.opp), b);
            assert_int_equal(board.mover & board.opp, 0);
            int op = ma_malom_index_marker(g_ix, w, b, h);
            uint64_t r = ma_malom_index_rank(g_ix, board, NULL);
            if (op < 0) {
                assert_int_equal(r, h);
            } else {
                assert_int_not_equal(r, h);
                ma_board moved = ma_malom_sym_apply(op, board);
                ma_board canon = ma_malom_canonical(board);
                assert_int_equal(moved.mover, canon.mover);
                assert_int_equal(moved.opp, canon.opp);
                assert_int_equal(ma_malom_index_marker(g_ix, w, b, r), -1);
            }
        }
    }
}

/* After prepare, const calls from several threads at once give the single-threaded answers. */
typedef struct worker {
    int w, b;
    uint64_t first, step;
    uint64_t mismatches;
} worker;

static void *rank_worker(void *arg)
{
    worker *k = arg;
    uint64_t n = ma_malom_hash_count(k->w, k->b);
    for (uint64_t h = k->first; h < n; h += k->step) {
        ma_board board = ma_malom_index_unrank(g_ix, k->w, k->b, h);
        int op = ma_malom_index_marker(g_ix, k->w, k->b, h);
        uint64_t r = ma_malom_index_rank(g_ix, board, NULL);
        k->mismatches += (op < 0) != (r == h);
    }
    return NULL;
}

static void test_concurrent_use_after_prepare(void **state)
{
    (void)state;
    enum { THREADS = 4 };
    pthread_t t[THREADS];
    worker k[THREADS];
    for (int i = 0; i < THREADS; i++) {
        k[i] = (worker){4, 3, (uint64_t)i, THREADS, 0};
        assert_int_equal(pthread_create(&t[i], NULL, rank_worker, &k[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(k[i].mismatches, 0);
    }
}

/* One row of malom-test-vectors.tsv. */
typedef struct vector_row {
    int line;
    char variant[8], sector[24], wpts[64], bpts[64];
    uint32_t wmask, bmask, cw, cb;
    int op1, op2;
    uint64_t h1, index;
    char cwpts[64], cbpts[64], key1[16], key2[16], wdl[8], value[16];
} vector_row;

static void test_vector_row(void **state)
{
    const vector_row *r = *state;
    char dirbuf[512];
    const char *dir = fixture_dir(dirbuf, sizeof dirbuf);
    ma_board b = from_malom(r->wmask, r->bmask);
    /* the algebraic columns agree with the masks through our numbering conversion */
    assert_int_equal(b.mover, open_mask_of_names(r->wpts));
    assert_int_equal(b.opp, open_mask_of_names(r->bpts));
    ma_malom_path p;
    ma_malom_index_path(g_ix, b, &p);
    assert_int_equal(p.op1, r->op1);
    assert_int_equal(p.h1, r->h1);
    assert_int_equal(p.op2, r->op2);
    assert_int_equal(p.index, r->index);
    ma_board canon;
    assert_int_equal(ma_malom_index_rank(g_ix, b, &canon), r->index);
    assert_int_equal(ma_malom_mask_from_open(canon.mover), r->cw);
    assert_int_equal(ma_malom_mask_from_open(canon.opp), r->cb);
    assert_int_equal(canon.mover, open_mask_of_names(r->cwpts));
    assert_int_equal(canon.opp, open_mask_of_names(r->cbpts));
    ma_board back = ma_malom_index_unrank(g_ix, __builtin_popcount(r->wmask),
                                          __builtin_popcount(r->bmask), r->index);
    assert_int_equal(back.mover, canon.mover);
    assert_int_equal(back.opp, canon.opp);
    if (strcmp(r->key1, "NA") == 0)
        return;
    NEED_FIXTURES(dir);
    char path[700];
    snprintf(path, sizeof path, "%s/original-excerpt/%s_%s.sec2", dir, r->variant, r->sector);
    ma_malom_file *f;
    ma_error err;
    int rc = ma_malom_file_open(&f, path, NULL, &err);
    if (rc)
        fail_msg("row %d: %s", r->line, err.msg);
    ma_malom_entry e;
    ma_malom_file_entry(f, r->index, &e);
    assert_int_equal(e.key1, atoi(r->key1));
    assert_int_equal(e.key2, atoi(r->key2));
    /* Malom's first read at h1 finds exactly the marker op2 (or a value when op2 = -1) */
    ma_malom_entry e1;
    ma_malom_file_entry(f, r->h1, &e1);
    assert_int_equal(e1.kind == MA_MALOM_SYM ? e1.sym_op : -1, r->op2);
    ma_malom_frame fr = ma_malom_file_frame(f);
    assert_int_equal(fr.v, atoi(r->value));
    ma_malom_result res;
    assert_int_equal(ma_malom_interpret(&fr, &e, &res), MA_OK);
    char wdl = res.outcome == MA_MALOM_WIN ? 'W' : res.outcome == MA_MALOM_LOSS ? 'L' : 'D';
    assert_int_equal(wdl, r->wdl[0]);
    ma_malom_file_close(f);
}

/* Every entry of every fixture file: markers exactly where and as §4.6 says, and every other
 * index canonical (its board ranks back to it). */
static void check_markers_of_file(const char *path)
{
    ma_malom_file *f;
    ma_error err;
    if (ma_malom_file_open(&f, path, NULL, &err))
        fail_msg("%s", err.msg);
    ma_sector s = ma_malom_file_sector(f);
    uint64_t n = ma_malom_file_entry_count(f), markers = 0;
    for (uint64_t h = 0; h < n; h++) {
        ma_malom_entry e;
        ma_malom_file_entry(f, h, &e);
        int want = ma_malom_index_marker(g_ix, s.w, s.b, h);
        int got = e.kind == MA_MALOM_SYM ? e.sym_op : -1;
        if (got != want)
            fail_msg("%s: entry %llu: marker op %d, rule of 4.6 says %d", path,
                     (unsigned long long)h, got, want);
        if (want < 0) {
            ma_board board = ma_malom_index_unrank(g_ix, s.w, s.b, h);
            if (ma_malom_index_rank(g_ix, board, NULL) != h)
                fail_msg("%s: entry %llu holds a value but is not canonical", path,
                         (unsigned long long)h);
        } else {
            markers++;
        }
    }
    if (s.w == 3 && s.b == 3) /* malom-format.md §4.6: 40,514 markers in W=3, B=3 */
        assert_int_equal(markers, 40514);
    ma_malom_file_close(f);
}

static int is_sector_file(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".sec2") == 0) || (n > 4 && strcmp(name + n - 4, ".sec") == 0);
}

static void test_markers_of_every_fixture_entry(void **state)
{
    (void)state;
    char dirbuf[512];
    const char *dir = fixture_dir(dirbuf, sizeof dirbuf);
    NEED_FIXTURES(dir);
    static const char *const subdirs[] = {"original-excerpt", "std-strong", "std-ultra-stonediff"};
    int files = 0;
    for (int i = 0; i < 3; i++) {
        char sub[700];
        snprintf(sub, sizeof sub, "%s/%s", dir, subdirs[i]);
        DIR *d = opendir(sub);
        assert_non_null(d);
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!is_sector_file(de->d_name))
                continue;
            char path[1000];
            snprintf(path, sizeof path, "%s/%s", sub, de->d_name);
            check_markers_of_file(path);
            files++;
        }
        closedir(d);
    }
    assert_int_equal(files, 32); /* 28 excerpt .sec2, 3 .sec, 1 STONE_DIFF .sec2 */
}

static int load_rows(vector_row **out, size_t *n)
{
    const char *src = getenv("MA_SOURCE_DIR");
    char path[600];
    snprintf(path, sizeof path, "%s/../shared/docs/malom-test-vectors.tsv", src ? src : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    vector_row *rows = calloc(128, sizeof *rows);
    char line[2048];
    size_t k = 0;
    int lineno = 0;
    while (fgets(line, sizeof line, f) && k < 128) {
        lineno++;
        if (lineno == 1)
            continue;
        vector_row *r = &rows[k];
        unsigned long long h1, index;
        int got = sscanf(line, "%7s %23s %63s %63s %u %u %d %llu %d %llu %u %u %63s %63s %15s %15s %7s %15s",
                         r->variant, r->sector, r->wpts, r->bpts, &r->wmask, &r->bmask, &r->op1, &h1,
                         &r->op2, &index, &r->cw, &r->cb, r->cwpts, r->cbpts, r->key1, r->key2,
                         r->wdl, r->value);
        if (got != 18)
            continue;
        r->h1 = h1;
        r->index = index;
        r->line = lineno;
        k++;
    }
    fclose(f);
    *out = rows;
    *n = k;
    return 0;
}

int main(void)
{
    ma_error err;
    if (ma_malom_index_create(&g_ix, &err) || ma_malom_index_prepare_all(g_ix, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_point_numbering_matches_both_tables),
        cmocka_unit_test(test_symmetry_ops_match_spec_table),
        cmocka_unit_test(test_f_count_and_representatives),
        cmocka_unit_test(test_hash_count_examples_of_4_9),
        cmocka_unit_test(test_marker_examples_of_4_6),
        cmocka_unit_test(test_worked_example_of_4_8),
        cmocka_unit_test(test_rank_malom_equals_rank),
        cmocka_unit_test(test_rank_unrank_round_trip),
        cmocka_unit_test(test_rank_with_mover_part_matches_rank),
        cmocka_unit_test(test_rank_many_matches_rank),
        cmocka_unit_test(test_mover_map_matches_rank),
        cmocka_unit_test(test_malom_numbered_helpers),
        cmocka_unit_test(test_concurrent_use_after_prepare),
        cmocka_unit_test(test_markers_of_every_fixture_entry),
    };
    size_t nfixed = sizeof fixed / sizeof fixed[0];
    vector_row *rows = NULL;
    size_t nrows = 0;
    if (load_rows(&rows, &nrows) != 0 || nrows != 96) {
        fprintf(stderr, "malom-test-vectors.tsv: expected 96 rows, found %zu\n", nrows);
        return 1;
    }
    struct CMUnitTest *tests = calloc(nfixed + nrows, sizeof *tests);
    char (*names)[80] = calloc(nrows, sizeof *names);
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < nrows; i++) {
        snprintf(names[i], sizeof names[i], "test_vector_%zu_%s_%s", i + 1, rows[i].variant,
                 rows[i].sector);
        struct CMUnitTest t = {names[i], test_vector_row, NULL, NULL, &rows[i]};
        tests[nfixed + i] = t;
    }
    int failed = _cmocka_run_group_tests("malom_index", tests, nfixed + nrows, NULL, NULL);
    free(tests);
    free(names);
    free(rows);
    ma_malom_index_free(g_ix);
    return ma_test_exit_status(failed);
}
