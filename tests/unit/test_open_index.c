/* Unit tests for indexer/open_index: the checker's sym16-colex scheme against the spec's check
 * values and against its own slow definitions (docs/format.md §4). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/progress.h"
#include "indexer/open_index.h"

static ma_open_index *ix;

static int setup(void **state)
{
    (void)state;
    ma_error err;
    if (ma_open_index_create(&ix, &err))
        return -1;
    for (int w = 0; w <= 12; w++)
        if (ma_open_index_prepare(ix, w, &err))
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ma_open_index_free(ix);
    return 0;
}

/* Deterministic generator so failures reproduce. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static ma_board random_board(int w, int b)
{
    ma_board r = {0, 0};
    while (__builtin_popcount(r.mover) < w)
        r.mover |= 1u << (rnd() % 24);
    while (__builtin_popcount(r.opp) < b) {
        uint32_t bit = 1u << (rnd() % 24);
        if (!(r.mover & bit))
            r.opp |= bit;
    }
    return r;
}

/* b random points outside m. */
static uint32_t random_opp(uint32_t m, int b)
{
    uint32_t opp = 0;
    while (__builtin_popcount(opp) < b) {
        uint32_t bit = 1u << (rnd() % 24);
        if (!(m & bit))
            opp |= bit;
    }
    return opp;
}

/* A random mover of w stones; when symmetric, if it can be, the union of a set and its image under
 * an involution (so several ops reach its representative). */
static uint32_t random_mover(int w, int symmetric)
{
    static const int involutions[] = {2, 4, 5, 6, 7, 8, 10, 12, 13, 14, 15};
    uint32_t m = random_board(w, 0).mover;
    if (symmetric) {
        int k = involutions[rnd() % (sizeof involutions / sizeof *involutions)];
        ma_board half = random_board(w / 2, 0);
        uint32_t sym = half.mover | ma_open_index_apply(ix, k, half).mover;
        if (__builtin_popcount(sym) == w)
            m = sym;
    }
    return m;
}

static void test_rep_counts_match_spec(void **state)
{
    (void)state;
    static const uint64_t want[13] = {1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880,
                                      124124, 157668, 170854};
    for (int w = 0; w <= 12; w++)
        assert_int_equal(ma_open_index_rep_count(ix, w), want[w]);
}

static void test_first_representatives_match_spec(void **state)
{
    (void)state;
    static const uint32_t w1[] = {1, 2, 8, 16};
    static const uint32_t w2[] = {3, 5, 9, 10, 12, 17, 18, 24, 40, 65, 66, 68};
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(ma_open_index_rep(ix, 1, i), w1[i]);
    for (unsigned i = 0; i < 12; i++)
        assert_int_equal(ma_open_index_rep(ix, 2, i), w2[i]);
}

static void test_entry_counts_match_spec(void **state)
{
    (void)state;
    assert_int_equal(ma_open_index_entry_count(ix, 3, 3), 210140);
    assert_int_equal(ma_open_index_entry_count(ix, 5, 5), 32907240);
    assert_int_equal(ma_open_index_entry_count(ix, 0, 1), 24);
    assert_int_equal(ma_open_index_entry_count(ix, 0, 0), 1);
    /* Impossible W + B is no sector at all. */
    assert_int_equal(ma_open_index_entry_count(ix, 12, 13), 0);
}

static void test_prepare_rejects_more_than_twelve(void **state)
{
    (void)state;
    ma_error err;
    assert_int_equal(ma_open_index_prepare(ix, 13, &err), MA_EINVAL);
    assert_int_equal(ma_open_index_prepare(ix, -1, &err), MA_EINVAL);
}

static void test_canonical_entries_of_0_1(void **state)
{
    (void)state;
    int canonical[24] = {0};
    for (uint64_t e = 0; e < 24; e++)
        canonical[e] = ma_open_index_is_canonical(ma_open_index_unrank(ix, 0, 1, e));
    for (int e = 0; e < 24; e++)
        assert_int_equal(canonical[e], e == 0 || e == 1 || e == 3 || e == 4);
    /* a1, d1, b2, d2 as the spec names them. */
    assert_int_equal(ma_open_index_unrank(ix, 0, 1, 0).opp, 1u << 0);
    assert_int_equal(ma_open_index_unrank(ix, 0, 1, 1).opp, 1u << 1);
    assert_int_equal(ma_open_index_unrank(ix, 0, 1, 3).opp, 1u << 3);
    assert_int_equal(ma_open_index_unrank(ix, 0, 1, 4).opp, 1u << 4);
    uint8_t orbit[24];
    ma_open_index_classify(ix, 0, 1, 0, orbit);
    for (int e = 0; e < 24; e++)
        assert_int_equal(orbit[e] != 0, canonical[e]);
    assert_int_equal(orbit[0], 8);
    assert_int_equal(orbit[1], 8);
    assert_int_equal(orbit[3], 4);
    assert_int_equal(orbit[4], 4);
}

/* Every entry of a sector: canonical ones round-trip, non-canonical ones rank to another entry
 * that is canonical and in the same orbit; classify agrees with the slow definitions. */
static void check_whole_sector(int w, int b)
{
    uint64_t n = ma_open_index_entry_count(ix, w, b);
    uint64_t m = ma_open_binomial(24 - w, b);
    uint8_t *orbit = malloc(m);
    assert_non_null(orbit);
    uint64_t canonical = 0, orbit_sum = 0;
    for (uint64_t e = 0; e < n; e++) {
        if (e % m == 0)
            ma_open_index_classify(ix, w, b, e / m, orbit);
        ma_board board = ma_open_index_unrank(ix, w, b, e);
        assert_int_equal(__builtin_popcount(board.mover), w);
        assert_int_equal(__builtin_popcount(board.opp), b);
        assert_int_equal(board.mover & board.opp, 0);
        int op;
        uint64_t r = ma_open_index_rank(ix, board, &op);
        ma_board canon = ma_open_canonical(board, NULL);
        ma_board img = ma_open_sym_apply(op, board);
        assert_int_equal(img.mover, canon.mover);
        assert_int_equal(img.opp, canon.opp);
        if (ma_open_index_is_canonical(board)) {
            assert_int_equal(r, e);
            assert_int_equal(op, 0);
            assert_int_equal(orbit[e % m], ma_open_orbit_size(board));
            canonical++;
            orbit_sum += (uint64_t)ma_open_orbit_size(board);
        } else {
            assert_int_not_equal(r, e);
            assert_int_equal(orbit[e % m], 0);
            ma_board other = ma_open_index_unrank(ix, w, b, r);
            assert_true(ma_open_index_is_canonical(other));
            assert_int_equal(other.mover, canon.mover);
            assert_int_equal(other.opp, canon.opp);
        }
    }
    assert_true(canonical > 0);
    /* Every raw placement lies in exactly one orbit, represented by exactly one canonical entry. */
    assert_int_equal(orbit_sum, ma_open_binomial(24, w) * ma_open_binomial(24 - w, b));
    free(orbit);
}

static void test_every_entry_of_small_sectors(void **state)
{
    (void)state;
    static const int sectors[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 3}, {2, 2}, {3, 2},
                                     {2, 3}, {3, 3}, {4, 1}, {1, 4}, {6, 0}};
    for (unsigned i = 0; i < sizeof sectors / sizeof sectors[0]; i++)
        check_whole_sector(sectors[i][0], sectors[i][1]);
}

static void test_random_boards_of_large_sectors(void **state)
{
    (void)state;
    static const int sectors[][2] = {{9, 9}, {12, 12}, {12, 11}, {8, 7}, {5, 5}, {10, 3}, {3, 10},
                                     {11, 13}, {7, 0}, {0, 12}};
    for (unsigned i = 0; i < sizeof sectors / sizeof sectors[0]; i++) {
        int w = sectors[i][0], b = sectors[i][1];
        uint64_t n = ma_open_index_entry_count(ix, w, b);
        for (int t = 0; t < 3000; t++) {
            ma_board board = random_board(w, b);
            uint64_t e = ma_open_index_rank(ix, board, NULL);
            assert_true(e < n);
            ma_board back = ma_open_index_unrank(ix, w, b, e);
            ma_board canon = ma_open_canonical(board, NULL);
            assert_int_equal(back.mover, canon.mover);
            assert_int_equal(back.opp, canon.opp);
            assert_true(ma_open_index_is_canonical(back));
            /* All 16 images of a board share its entry. */
            for (int k = 0; k < MA_SYM_OPS; k++)
                assert_int_equal(ma_open_index_rank(ix, ma_open_sym_apply(k, board), NULL), e);
        }
    }
}

/* The permutation table of §4.1 against the geometric definitions in the same section. */
static void test_permutations_follow_the_geometry(void **state)
{
    (void)state;
    static const char *names[24] = {"a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3",
                                    "e3", "a4", "b4", "c4", "e4", "f4", "g4", "c5",
                                    "d5", "e5", "b6", "d6", "f6", "a7", "d7", "g7"};
    for (int op = 0; op < MA_SYM_OPS; op++) {
        for (int p = 0; p < 24; p++) {
            int u = names[p][0] - 'd', v = names[p][1] - '4', nu, nv;
            switch (op % 8) {
            case 0: nu = u; nv = v; break;
            case 1: nu = v; nv = -u; break;
            case 2: nu = -u; nv = -v; break;
            case 3: nu = -v; nv = u; break;
            case 4: nu = -u; nv = v; break;
            case 5: nu = u; nv = -v; break;
            case 6: nu = -v; nv = -u; break;
            default: nu = v; nv = u; break;
            }
            if (op >= 8) {
                int r = abs(nu) > abs(nv) ? abs(nu) : abs(nv);
                nu = nu * (4 - r) / r;
                nv = nv * (4 - r) / r;
            }
            char name[3] = {(char)('d' + nu), (char)('4' + nv), 0};
            int q = -1;
            for (int i = 0; i < 24; i++)
                if (!strcmp(names[i], name))
                    q = i;
            ma_board one = {1u << p, 0};
            assert_int_equal(ma_open_sym_apply(op, one).mover, 1u << q);
        }
    }
}

static void test_ops_preserve_mill_lines_and_adjacency(void **state)
{
    (void)state;
    static const uint32_t mills[20] = {7,       56,      448,     3584,    28672,   229376, 1835008,
                                       14680064, 2097665, 263176,  34880,   146,     4784128, 135424,
                                       1056800, 8404996, 73,      292,     2392064, 9568256};
    static const uint32_t adj[24] = {514,     21,      16386,   1040,    170,     8208,
                                     2176,    336,     4224,    2098177, 264712,  33856,
                                     139520,  1069088, 8396804, 67584,   688128,  69632,
                                     525312,  5570560, 532480,  4194816, 11010048, 4210688};
    for (int op = 0; op < MA_SYM_OPS; op++) {
        /* std/lask lines map among lines 0-15, the mora diagonals among 16-19. */
        for (int i = 0; i < 20; i++) {
            ma_board line = {mills[i], 0};
            uint32_t img = ma_open_sym_apply(op, line).mover;
            int found = 0;
            for (int j = (i < 16 ? 0 : 16); j < (i < 16 ? 16 : 20); j++)
                found |= img == mills[j];
            assert_true(found);
        }
        for (int p = 0; p < 24; p++) {
            ma_board pt = {1u << p, 0}, nb = {adj[p], 0};
            int q = __builtin_ctz(ma_open_sym_apply(op, pt).mover);
            assert_int_equal(ma_open_sym_apply(op, nb).mover, adj[q]);
        }
    }
}

static void test_inverse_ops_compose_to_identity(void **state)
{
    (void)state;
    for (int op = 0; op < MA_SYM_OPS; op++) {
        int inv = ma_open_sym_inverse(op);
        assert_in_range(inv, 0, 15);
        for (int t = 0; t < 50; t++) {
            ma_board b = random_board(5, 6);
            ma_board back = ma_open_sym_apply(inv, ma_open_sym_apply(op, b));
            assert_int_equal(back.mover, b.mover);
            assert_int_equal(back.opp, b.opp);
        }
        for (int p = 0; p < 24; p++) {
            ma_board pt = {1u << p, 0};
            assert_int_equal(ma_open_sym_apply(op, ma_open_sym_apply(inv, pt)).mover, 1u << p);
        }
    }
    /* The table-driven apply agrees with the definition. */
    for (int op = 0; op < MA_SYM_OPS; op++)
        for (int t = 0; t < 200; t++) {
            ma_board b = random_board((int)(rnd() % 13), (int)(rnd() % 12));
            ma_board x = ma_open_sym_apply(op, b), y = ma_open_index_apply(ix, op, b);
            assert_int_equal(x.mover, y.mover);
            assert_int_equal(x.opp, y.opp);
        }
    assert_int_equal(ma_open_sym_inverse(1), 3);
    assert_int_equal(ma_open_sym_inverse(9), 11);
    assert_int_equal(ma_open_sym_inverse(5), 5);
}

static void test_op_out_is_smallest_op(void **state)
{
    (void)state;
    /* The empty board is fixed by all 16 ops: the smallest is the identity. */
    ma_board empty = {0, 0};
    int op = -1;
    ma_open_index_rank(ix, empty, &op);
    assert_int_equal(op, 0);
    /* g1 alone: a1 is its canonical image; ops 4 (left-right) and 6 and others reach it. */
    ma_board g1 = {1u << 2, 0};
    ma_open_index_rank(ix, g1, &op);
    for (int k = 0; k < op; k++)
        assert_int_not_equal(ma_open_sym_apply(k, g1).mover, 1u);
    assert_int_equal(ma_open_sym_apply(op, g1).mover, 1u);
    int op2;
    ma_open_canonical(g1, &op2);
    assert_int_equal(op, op2);
}

static void test_orbit_sizes(void **state)
{
    (void)state;
    ma_board empty = {0, 0}, a1 = {1, 0}, b2 = {8, 0};
    assert_int_equal(ma_open_orbit_size(empty), 1);
    assert_int_equal(ma_open_orbit_size(a1), 8);
    assert_int_equal(ma_open_orbit_size(b2), 4);
}

static void test_binomial(void **state)
{
    (void)state;
    assert_int_equal(ma_open_binomial(24, 12), 2704156);
    assert_int_equal(ma_open_binomial(3, 4), 0);
    assert_int_equal(ma_open_binomial(0, 0), 1);
    assert_int_equal(ma_open_binomial(21, 3), 1330);
}

/* Prints the speed of rank (never asserted: tests do not depend on the machine's speed). */
static void test_rank_speed_report(void **state)
{
    (void)state;
    enum { N = 1 << 14, ROUNDS = 64 };
    ma_board *boards = malloc(N * sizeof *boards);
    assert_non_null(boards);
    for (int i = 0; i < N; i++)
        boards[i] = random_board(9, 9 - (i % 4));
    uint64_t sink = 0;
    double t0 = ma_now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++)
            sink += ma_open_index_rank(ix, boards[i], NULL);
    double t1 = ma_now();
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < N; i++)
            sink += ma_open_index_unrank(ix, 9, 9 - (i % 4), (uint64_t)i * 7919u).opp;
    double t2 = ma_now();
    print_message("rank: %.1f ns/call, unrank: %.1f ns/call (sink %llu)\n",
                  (t1 - t0) * 1e9 / (N * (double)ROUNDS), (t2 - t1) * 1e9 / (N * (double)ROUNDS),
                  (unsigned long long)(sink & 1));
    free(boards);
}

static void check_rank_opp(ma_board board, int *multi_op)
{
    ma_open_mover_info mi;
    ma_open_index_mover_info(ix, &mi, board.mover);
    assert_int_equal(mi.w, __builtin_popcount(board.mover));
    assert_true(mi.n_ops >= 1);
    for (int i = 0; i < mi.n_ops; i++)
        assert_int_equal(ma_open_index_apply(ix, mi.ops[i], board).mover, mi.rep);
    if (mi.n_ops > 1)
        (*multi_op)++;
    assert_int_equal(ma_open_index_rank_opp(ix, &mi, board.opp), ma_open_index_rank(ix, board, NULL));
}

/* The shared mover part must give the same entry as the whole-board rank, on every (W, B), also
 * for mover masks fixed by some op (several ops reach the representative; the opponent decides). */
static void test_rank_opp_equals_rank(void **state)
{
    (void)state;
    int multi_op = 0;
    for (int w = 0; w <= 12; w++)
        for (int b = 0; b <= 12 && w + b <= 24; b++)
            for (int i = 0; i < 300; i++)
                check_rank_opp(random_board(w, b), &multi_op);
    /* Symmetric mover masks: m | π_k(m) is fixed by the involution k. */
    static const int involutions[] = {2, 4, 5, 6, 7, 8, 10, 12, 13, 14, 15};
    for (int i = 0; i < 20000; i++) {
        int k = involutions[rnd() % (sizeof involutions / sizeof *involutions)];
        ma_board half = random_board((int)(rnd() % 7), 0);
        uint32_t m = half.mover | ma_open_index_apply(ix, k, half).mover;
        if (__builtin_popcount(m) > 12)
            continue;
        int room = 24 - __builtin_popcount(m);
        int b = (int)(rnd() % (unsigned)((room < 12 ? room : 12) + 1));
        ma_board board = {m, random_opp(m, b)};
        check_rank_opp(board, &multi_op);
    }
    assert_true(multi_op > 1000);
}

/* The batched rank of the checker's hot loop (one cache, boards sharing mover masks as the
 * successors of one opponent mask do; symmetric mover masks included) equals ma_open_index_rank,
 * on the bit-extract path and on the portable one; g_rank is the opponent part of an entry. */
static void test_rank_many_equals_rank(void **state)
{
    (void)state;
    for (int mode = 1; mode >= 0; mode--) {
        ma_open_index_use_bit_extract(ix, mode);
        ma_open_rank_cache *cache = calloc(1, sizeof *cache);
        assert_non_null(cache);
        for (int w = 0; w <= 12; w++)
            for (int b = 0; b <= 12 && w + b <= 24; b++)
                for (int round = 0; round < 40; round++) {
                    ma_board batch[24];
                    uint64_t got[24];
                    uint32_t m = random_mover(w, round & 1);
                    for (int i = 0; i < 24; i++) {
                        batch[i].mover = i < 12 ? m : random_board(w, 0).mover;
                        batch[i].opp = random_opp(batch[i].mover, b);
                    }
                    for (int again = 0; again < 3; again++) {
                        ma_open_index_rank_many(ix, cache, batch, 24, got);
                        for (int i = 0; i < 24; i++)
                            assert_int_equal(got[i], ma_open_index_rank(ix, batch[i], NULL));
                        /* the same mover with new opponents: from its
                         * MA_OPEN_RANK_TABLES_AFTER-th board on, the slot ranks through its
                         * byte tables */
                        for (int i = 0; i < 12; i++)
                            batch[i].opp = random_opp(batch[i].mover, b);
                    }
                }
        int tabled = 0;
        for (int k = 0; k < MA_OPEN_RANK_CACHE; k++)
            tabled += cache->slot[k].tables;
        assert_true(tabled > 0);
        free(cache);
    }
    /* g_rank by bit extract (where the CPU has a fast one) and by the portable loop */
    for (int mode = 1; mode >= 0; mode--) {
        ma_open_index_use_bit_extract(ix, mode);
        for (int w = 0; w <= 12; w++)
            for (int b = 0; b <= 12 && w + b <= 24; b++) {
                uint64_t n = ma_open_index_entry_count(ix, w, b), per = ma_open_binomial(24 - w, b);
                for (int i = 0; i < 50 && n; i++) {
                    uint64_t e = ((uint64_t)rnd() << 20 ^ rnd()) % n;
                    ma_board board = ma_open_index_unrank(ix, w, b, e);
                    assert_int_equal(ma_open_index_g_rank(ix, board.mover, board.opp), e % per);
                }
            }
    }
    ma_open_index_use_bit_extract(ix, 1);
}

/* The checker's per-group ranking (ma_mover_map): the least compressed image over the ops
 * reaching the mover's representative, ranked through the byte tables, equals ma_open_index_rank
 * for random boards of every (W, B), symmetric mover masks (several ops) and the empty mover
 * (all 16) included. */
static void test_mover_map_equals_rank(void **state)
{
    (void)state;
    ma_mover_map *mm = malloc(sizeof *mm);
    assert_non_null(mm);
    int several = 0;
    for (int w = 0; w <= 12; w++)
        for (int b = 0; b <= 12 && w + b <= 24; b++)
            for (int round = 0; round < 40; round++) {
                uint32_t m = random_mover(w, round & 1);
                int n_ops = ma_open_index_mover_map(ix, m, mm);
                assert_int_equal(n_ops, mm->nops);
                assert_true(n_ops >= 1 && n_ops <= MA_SYM_OPS);
                if (w == 0)
                    assert_int_equal(n_ops, MA_SYM_OPS);
                several += n_ops > 1;
                for (int i = 0; i < 8; i++) {
                    ma_board board = {m, random_opp(m, b)};
                    uint32_t c = ma_mover_map_least(mm, board.opp);
                    assert_int_equal(ma_mover_map_rank(mm, c, b),
                                     ma_open_index_rank(ix, board, NULL));
                }
            }
    assert_true(several > 100);
    free(mm);
}

/* With the mover table the mover part is looked up instead of computed: it must be the same. */
static void test_mover_table_equals_computed_mover_part(void **state)
{
    (void)state;
    ma_open_index *tx;
    ma_error err;
    assert_int_equal(ma_open_index_create(&tx, &err), MA_OK);
    assert_int_not_equal(ma_open_index_prepare_movers(tx, 5, &err), MA_OK); /* before prepare */
    for (int w = 0; w <= 7; w++) {
        assert_int_equal(ma_open_index_prepare(tx, w, &err), MA_OK);
        assert_int_equal(ma_open_index_prepare_movers(tx, w, &err), MA_OK);
    }
    int symmetric = 0;
    for (int i = 0; i < 50000; i++) {
        ma_board board = random_board((int)(rnd() % 8), 0);
        if (i & 1) /* half of them fixed by an involution */
            board.mover |= ma_open_index_apply(tx, 8, board).mover;
        if (__builtin_popcount(board.mover) > 7)
            continue;
        while (__builtin_popcount(board.opp) < (int)(rnd() % 8)) {
            uint32_t bit = 1u << (rnd() % 24);
            if (!(board.mover & bit))
                board.opp |= bit;
        }
        ma_open_mover_info a, b;
        ma_open_index_mover_info(tx, &a, board.mover);
        ma_open_index_mover_info(ix, &b, board.mover);
        assert_int_equal(a.rep, b.rep);
        assert_int_equal(a.rep_rank, b.rep_rank);
        assert_int_equal(a.n_ops, b.n_ops);
        assert_memory_equal(a.ops, b.ops, (size_t)a.n_ops);
        symmetric += a.n_ops > 1;
        assert_int_equal(ma_open_index_rank_opp(tx, &a, board.opp), ma_open_index_rank(ix, board, NULL));
    }
    assert_true(symmetric > 1000);
    ma_open_index_free(tx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rep_counts_match_spec),
        cmocka_unit_test(test_first_representatives_match_spec),
        cmocka_unit_test(test_entry_counts_match_spec),
        cmocka_unit_test(test_prepare_rejects_more_than_twelve),
        cmocka_unit_test(test_canonical_entries_of_0_1),
        cmocka_unit_test(test_every_entry_of_small_sectors),
        cmocka_unit_test(test_random_boards_of_large_sectors),
        cmocka_unit_test(test_permutations_follow_the_geometry),
        cmocka_unit_test(test_ops_preserve_mill_lines_and_adjacency),
        cmocka_unit_test(test_inverse_ops_compose_to_identity),
        cmocka_unit_test(test_op_out_is_smallest_op),
        cmocka_unit_test(test_orbit_sizes),
        cmocka_unit_test(test_binomial),
        cmocka_unit_test(test_rank_speed_report),
        cmocka_unit_test(test_rank_many_equals_rank),
        cmocka_unit_test(test_rank_opp_equals_rank),
        cmocka_unit_test(test_mover_table_equals_computed_mover_part),
        cmocka_unit_test(test_mover_map_equals_rank),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
