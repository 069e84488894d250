/*
 * Unit tests of verifier/check/malom_check: the real std-strong sectors verify completely, one changed
 * entry (depth, outcome, marker op) is found at exactly that entry as a root with its class, a
 * missing child turns the check into bounds mode without verifying what it cannot, and thread
 * count does not change the result. Files come from ../shared/fixtures/malom (MA_SOURCE_DIR).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/support.h"

#include "verifier/formats/malom_file.h"
#include "indexer/malom_index.h"
#include "verifier/check/malom_check.h"
#include "verifier/check/rules.h"

#define N33 210140u

typedef struct ctx {
    char fixtures[512];
    char tmpdir[64];
    ma_malom_index *ix;
    ma_malom_index *ix_tables; /* prepared by ma_mcheck_prepare_index (mover tables too) */
} ctx;

static int setup(void **state)
{
    ctx *c = calloc(1, sizeof *c);
    const char *src = getenv("MA_SOURCE_DIR");
    snprintf(c->fixtures, sizeof c->fixtures, "%s/../shared/fixtures/malom/std-strong",
             src ? src : ".");
    DIR *d = opendir(c->fixtures);
    if (d)
        closedir(d);
    else
        c->fixtures[0] = 0;
    snprintf(c->tmpdir, sizeof c->tmpdir, "/tmp/test_malom_check.XXXXXX");
    assert_non_null(mkdtemp(c->tmpdir));
    ma_error err;
    assert_int_equal(ma_malom_index_create(&c->ix, &err), MA_OK);
    assert_int_equal(ma_malom_index_prepare(c->ix, 3, &err), MA_OK);
    assert_int_equal(ma_malom_index_prepare(c->ix, 4, &err), MA_OK);
    assert_int_equal(ma_malom_index_create(&c->ix_tables, &err), MA_OK);
    static const ma_sector used[] = {{3, 3, 0, 0}, {3, 4, 0, 0}, {4, 3, 0, 0}};
    for (int i = 0; i < 3; i++)
        assert_int_equal(ma_mcheck_prepare_index(c->ix_tables, MA_VARIANT_STD, used[i], &err), MA_OK);
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    ctx *c = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", c->tmpdir);
    ma_malom_index_free(c->ix);
    ma_malom_index_free(c->ix_tables);
    free(c);
    return 0;
}

/* Copies a fixture to tmpdir, applying one byte edit when at >= 0. */
static void copy_fixture(ctx *c, const char *name, long at, unsigned char byte, char *out, size_t len)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/%s", c->fixtures, name);
    snprintf(out, len, "%s/%s", c->tmpdir, name);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    if (at >= 0)
        buf[at] = byte;
    f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    free(buf);
}

static unsigned char fixture_byte(ctx *c, const char *name, long at)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/%s", c->fixtures, name);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    fseek(f, at, SEEK_SET);
    int b = fgetc(f);
    fclose(f);
    return (unsigned char)b;
}

static long find_byte(ctx *c, const char *name, int lo, int hi, int odd)
{
    for (long i = 0; i < (long)N33; i++) {
        int b = fixture_byte(c, name, i);
        if (b >= lo && b <= hi && (odd < 0 || b % 2 == odd))
            return i;
    }
    fail();
    return -1;
}

static void check33(ctx *c, const char *path, int threads, ma_mcheck_result *r)
{
    ma_error err;
    ma_malom_file *f;
    assert_int_equal(ma_malom_file_open_sec(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, &err),
                     MA_OK);
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = f;
    in.path = path;
    in.full_board_draw = 1;
    in.threads = threads;
    assert_int_equal(ma_mcheck_sector(r, &in, &err), MA_OK);
    ma_malom_file_close(f);
}

static void test_clean_sector_verifies(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char path[1024];
    copy_fixture(c, "std_3_3_0_0.sec", -1, 0, path, sizeof path);
    ma_mcheck_result r1, r2;
    check33(c, path, 1, &r1);
    assert_int_equal(r1.entries, N33);
    /* malom-format.md §4.6: W=3, B=3 has 40,514 markers among its 210,140 indices. */
    assert_int_equal(r1.markers, 40514);
    assert_int_equal(r1.canonical, N33 - 40514);
    assert_int_equal(r1.verified, N33);
    assert_int_equal(r1.discrepancies, 0);
    assert_int_equal(r1.within_bounds, 0);
    check33(c, path, 2, &r2);
    assert_int_equal(r2.verified, r1.verified);
    ma_mcheck_result_free(&r1);
    ma_mcheck_result_free(&r2);
}

/* The planted fault is a discrepancy at its index, of its class (other discrepancies are the
 * parents it misleads within the sector: the run calls them propagated, test_malom_verify.py). */
static void expect_fault_at(ma_mcheck_result *r, uint64_t entry, int cls)
{
    assert_true(r->discrepancies >= 1);
    int found = 0;
    for (size_t i = 0; i < r->n_items; i++)
        found |= r->items[i].entry == entry && r->items[i].cls == cls;
    assert_true(found);
}

static void test_depth_fault(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    long i = find_byte(c, "std_3_3_0_0.sec", 5, 177, 1);
    char path[1024];
    copy_fixture(c, "std_3_3_0_0.sec", i, (unsigned char)(fixture_byte(c, "std_3_3_0_0.sec", i) + 2),
                 path, sizeof path);
    ma_mcheck_result r;
    check33(c, path, 2, &r);
    expect_fault_at(&r, (uint64_t)i, MA_MCHECK_WRONG_DEPTH);
    assert_int_equal(r.by_class[MA_MCHECK_WRONG_DEPTH] + r.by_class[MA_MCHECK_WRONG_OUTCOME],
                     r.discrepancies);
    ma_mcheck_result_free(&r);
}

static void test_outcome_fault(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    long i = find_byte(c, "std_3_3_0_0.sec", 5, 177, 1);
    char path[1024];
    copy_fixture(c, "std_3_3_0_0.sec", i, (unsigned char)(fixture_byte(c, "std_3_3_0_0.sec", i) + 1),
                 path, sizeof path);
    ma_mcheck_result r;
    check33(c, path, 1, &r);
    expect_fault_at(&r, (uint64_t)i, MA_MCHECK_WRONG_OUTCOME);
    ma_mcheck_result_free(&r);
}

static void test_marker_fault(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    long i = find_byte(c, "std_3_3_0_0.sec", 180, 194, -1);
    int op = fixture_byte(c, "std_3_3_0_0.sec", i) - 180;
    char path[1024];
    copy_fixture(c, "std_3_3_0_0.sec", i, (unsigned char)(180 + (op + 1) % 15), path, sizeof path);
    ma_mcheck_result r;
    check33(c, path, 2, &r);
    assert_int_equal(r.discrepancies, 1);
    expect_fault_at(&r, (uint64_t)i, MA_MCHECK_SYMMETRY);
    assert_int_equal(r.items[0].expected_marker, op);
    ma_mcheck_result_free(&r);
}

static void test_value_at_marker_index(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    long i = find_byte(c, "std_3_3_0_0.sec", 180, 194, -1);
    char path[1024];
    copy_fixture(c, "std_3_3_0_0.sec", i, 3, path, sizeof path); /* a "win 3" where a marker belongs */
    ma_mcheck_result r;
    check33(c, path, 1, &r);
    assert_int_equal(r.discrepancies, 1);
    expect_fault_at(&r, (uint64_t)i, MA_MCHECK_SYMMETRY);
    ma_mcheck_result_free(&r);
}

static void test_bounds_when_child_missing(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char p34[1024], p33[1024];
    copy_fixture(c, "std_3_4_0_0.sec", -1, 0, p34, sizeof p34);
    copy_fixture(c, "std_3_3_0_0.sec", -1, 0, p33, sizeof p33);
    ma_error err;
    ma_malom_file *f34, *f33;
    assert_int_equal(ma_malom_file_open_sec(&f34, p34, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0}, &err), MA_OK);
    assert_int_equal(ma_malom_file_open_sec(&f33, p33, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, &err), MA_OK);
    ma_vrules rules;
    assert_int_equal(ma_vrules_init(&rules, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0}, &err), MA_OK);
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = f34;
    in.full_board_draw = 1;
    in.threads = 2;
    /* Only the mill child (3_3_0_0) is given; the move child 4_3_0_0 is absent. */
    in.child[MA_TURN_MOVE_MILL] = f33;
    ma_mcheck_result r;
    assert_int_equal(ma_mcheck_sector(&r, &in, &err), MA_OK);
    assert_int_equal(r.discrepancies, 0);
    assert_true(r.within_bounds > 0);
    assert_int_equal(r.verified + r.within_bounds, r.entries);
    assert_true(r.missing_kind[MA_TURN_MOVE]);
    assert_false(r.missing_kind[MA_TURN_MOVE_MILL]);
    ma_mcheck_result_free(&r);
    ma_malom_file_close(f34);
    ma_malom_file_close(f33);
}

/* Bounds mode must still catch a stored value BELOW the lower bound the known successors give.
 * Position a1,d1,b6/c4,e4,c5,e5 of std 3_4_0_0 (the mover flies): b6->g1 closes a1-d1-g1 and
 * removes one of the four free opponent stones, a successor in 3_3_0_0, which is given; the
 * non-mill moves lead to the absent 4_3_0_0. Any successor value makes that turn better than
 * "loss in 0" (byte 0, §5.7), so a stored loss in 0 contradicts the bound. */
static void test_bounds_mode_reports_a_value_below_the_bound(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_board pos;
    ma_error err;
    assert_int_equal(ma_board_parse("a1,d1,b6/c4,e4,c5,e5", &pos, &err), MA_OK);
    uint64_t idx = ma_malom_index_rank(c->ix, pos, NULL);
    char p34[1024], p33[1024];
    copy_fixture(c, "std_3_4_0_0.sec", (long)idx, 0, p34, sizeof p34);
    copy_fixture(c, "std_3_3_0_0.sec", -1, 0, p33, sizeof p33);
    ma_malom_file *f34, *f33;
    assert_int_equal(ma_malom_file_open_sec(&f34, p34, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0}, &err), MA_OK);
    assert_int_equal(ma_malom_file_open_sec(&f33, p33, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, &err), MA_OK);
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = f34;
    in.full_board_draw = 1;
    in.threads = 2;
    in.child[MA_TURN_MOVE_MILL] = f33;
    ma_mcheck_result r;
    assert_int_equal(ma_mcheck_sector(&r, &in, &err), MA_OK);
    assert_int_equal(r.discrepancies, 1);
    assert_int_equal(r.items[0].entry, idx);
    assert_int_equal(r.items[0].derived_full, 0);
    /* the bound the mill turn gives is itself a loss (the successor it reaches in 3_3_0_0 is a
     * win for the opponent), only a longer one than "loss in 0": the stored value has the right
     * outcome and the wrong depth */
    assert_int_equal(r.items[0].cls, MA_MCHECK_WRONG_DEPTH);
    assert_true(ma_malom_value_cmp((ma_malom_value){r.items[0].stored.key1, r.items[0].stored.key2},
                                   r.items[0].derived) < 0);
    ma_mcheck_result_free(&r);
    ma_malom_file_close(f34);
    ma_malom_file_close(f33);
}

/* Writes mora_12_12_0_0.sec: markers where §4.6 puts them, every canonical entry = `value`. */
static void write_full_board(ctx *c, unsigned char value, char *path, size_t len)
{
    ma_error err;
    assert_int_equal(ma_malom_index_prepare(c->ix, 12, &err), MA_OK);
    uint64_t n = ma_malom_hash_count(12, 12);
    assert_true(n > 0);
    unsigned char *buf = calloc(n + 4, 1);
    assert_non_null(buf);
    for (uint64_t i = 0; i < n; i++) {
        int op = ma_malom_index_marker(c->ix, 12, 12, i);
        buf[i] = op >= 0 ? (unsigned char)(180 + op) : value;
    }
    snprintf(path, len, "%s/mora_12_12_0_0.sec", c->tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n + 4, f), n + 4);
    fclose(f);
    free(buf);
}

static void check_full_board(ctx *c, const char *path, int full_board_draw, ma_mcheck_result *r)
{
    ma_error err;
    ma_malom_file *f;
    assert_int_equal(ma_malom_file_open_sec(&f, path, MA_VARIANT_MORA, (ma_sector){12, 12, 0, 0}, &err),
                     MA_OK);
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = f;
    in.full_board_draw = full_board_draw;
    in.threads = 2;
    assert_int_equal(ma_mcheck_sector(r, &in, &err), MA_OK);
    ma_malom_file_close(f);
}

/* §6 step 4 is a parameter: on a full 12/12 board the mover has no turn, which is a draw with the
 * rule and a loss in 0 without it. */
static void test_full_board_rule(void **state)
{
    ctx *c = *state;
    char path[1024];
    ma_mcheck_result r;
    write_full_board(c, 255, path, sizeof path); /* Count: a draw */
    check_full_board(c, path, 1, &r);
    assert_int_equal(r.discrepancies, 0);
    assert_int_equal(r.verified, r.entries);
    ma_mcheck_result_free(&r);
    check_full_board(c, path, 0, &r);
    assert_int_equal(r.discrepancies, r.canonical);
    assert_int_equal(r.by_class[MA_MCHECK_WRONG_TERMINAL], r.canonical);
    ma_mcheck_result_free(&r);
    write_full_board(c, 0, path, sizeof path); /* Val 0: loss in 0 */
    check_full_board(c, path, 0, &r);
    assert_int_equal(r.discrepancies, 0);
    assert_int_equal(r.verified, r.entries);
    ma_mcheck_result_free(&r);
    check_full_board(c, path, 1, &r);
    assert_int_equal(r.by_class[MA_MCHECK_WRONG_TERMINAL], r.canonical);
    ma_mcheck_result_free(&r);
}

/* Checks `file` (children as given) on the reference path and on the fast path, with 1 and 2
 * threads, and requires identical results: every counter and every discrepancy row. */
static void expect_paths_agree(ctx *c, const ma_malom_file *file,
                               const ma_malom_file *const child[MA_TURN_KINDS])
{
    ma_error err;
    ma_mcheck_result ref, fast;
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = file;
    in.full_board_draw = 1;
    in.threads = 1;
    for (int k = 0; k < MA_TURN_KINDS; k++)
        in.child[k] = child[k];
    in.reference = 1;
    assert_int_equal(ma_mcheck_sector(&ref, &in, &err), MA_OK);
    for (int threads = 1; threads <= 2; threads++) {
        in.reference = 0;
        in.threads = threads;
        in.ix = threads == 1 ? c->ix : c->ix_tables; /* without and with the mover tables */
        assert_int_equal(ma_mcheck_sector(&fast, &in, &err), MA_OK);
        assert_int_equal(fast.entries, ref.entries);
        assert_int_equal(fast.markers, ref.markers);
        assert_int_equal(fast.canonical, ref.canonical);
        assert_int_equal(fast.verified, ref.verified);
        assert_int_equal(fast.bound_wins, ref.bound_wins);
        assert_int_equal(fast.within_bounds, ref.within_bounds);
        assert_int_equal(fast.missing_child, ref.missing_child);
        assert_int_equal(fast.broken_child, ref.broken_child);
        assert_int_equal(fast.discrepancies, ref.discrepancies);
        for (int k = 0; k < MA_MCHECK_CLASSES; k++)
            assert_int_equal(fast.by_class[k], ref.by_class[k]);
        for (int k = 0; k < MA_TURN_KINDS; k++)
            assert_int_equal(fast.missing_kind[k], ref.missing_kind[k]);
        assert_int_equal(fast.n_items, ref.n_items);
        for (size_t i = 0; i < ref.n_items; i++) {
            const ma_mcheck_item *a = &ref.items[i], *b = &fast.items[i];
            assert_int_equal(b->entry, a->entry);
            assert_int_equal(b->stored.kind, a->stored.kind);
            assert_int_equal(b->stored.key1, a->stored.key1);
            assert_int_equal(b->stored.key2, a->stored.key2);
            assert_int_equal(b->stored.sym_op, a->stored.sym_op);
            assert_int_equal(b->derived.key1, a->derived.key1);
            assert_int_equal(b->derived.key2, a->derived.key2);
            assert_int_equal(b->expected_marker, a->expected_marker);
            assert_int_equal(b->derived_full, a->derived_full);
            assert_int_equal(b->cls, a->cls);
        }
        ma_mcheck_result_free(&fast);
    }
    ma_mcheck_result_free(&ref);
}

/* expect_paths_agree for a sector with no child file to pass (std 3_3 is its own only child),
 * then closes it. */
static void expect_alone_agrees(ctx *c, ma_malom_file *f)
{
    const ma_malom_file *none[MA_TURN_KINDS] = {NULL, NULL, NULL, NULL};
    expect_paths_agree(c, f, none);
    ma_malom_file_close(f);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, got, out), got);
    fclose(in);
    fclose(out);
}

/* Writes size bytes of buf to path. */
static void write_file(const char *path, const uint8_t *buf, size_t size)
{
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    assert_int_equal(fwrite(buf, 1, size, out), size);
    fclose(out);
}

/* Writes `name` into tmpdir: the fixture at `src` with `n` single-byte edits and, when n_over > 0,
 * an overflow table of n_over (index, value) records replacing the empty one at the end. */
static void write_edited(ctx *c, const char *src, const char *name, const long *at,
                         const unsigned char *byte, int n, const int32_t *over, int n_over,
                         char *out, size_t len)
{
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)size + 8 * (size_t)n_over);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    for (int i = 0; i < n; i++)
        buf[at[i]] = byte[i];
    if (n_over > 0) {
        unsigned char *p = buf + size - 4;
        uint32_t cnt = (uint32_t)n_over;
        memcpy(p, &cnt, 4);
        memcpy(p + 4, over, 8 * (size_t)n_over);
        size += 8 * n_over;
    }
    snprintf(out, len, "%s/%s", c->tmpdir, name);
    f = fopen(out, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    free(buf);
}

static uint64_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return *x >> 33;
}

/* The table-driven path gives exactly the reference path's result on the real sectors and on
 * many corrupted copies: random legacy bytes (values, counters, markers, an overflowed depth read
 * through the overflow table), random .sec2 bytes (STONE_DIFF), a sector with an absent child
 * (bounds mode) and a child with a marker at a canonical index (a broken child). */
static void test_fast_path_equals_reference(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_error err;
    char src33[1024], src34[1024], src43[1024], srcsd[1024], path[1024], p43[1024];
    snprintf(src33, sizeof src33, "%s/std_3_3_0_0.sec", c->fixtures);
    snprintf(src34, sizeof src34, "%s/std_3_4_0_0.sec", c->fixtures);
    snprintf(src43, sizeof src43, "%s/std_4_3_0_0.sec", c->fixtures);
    snprintf(srcsd, sizeof srcsd, "%s/../std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    uint64_t x = 12345;
    int sec2_rounds = 0;
    for (int round = 0; round < 4; round++) {
        long at[40];
        unsigned char byte[40];
        int n = round == 0 ? 0 : 40;
        for (int i = 0; i < n; i++) {
            at[i] = (long)(lcg(&x) % N33);
            byte[i] = (unsigned char)(lcg(&x) % 256);
            if (byte[i] == 179)
                byte[i] = 178;
        }
        /* round 3: also two values through the overflow table, a win in 181 and a counter of 70 */
        int32_t over[4] = {1000, 181, 2000, -70};
        int n_over = round == 3 ? 2 : 0;
        if (n_over) {
            at[0] = 1000;
            byte[0] = 179;
            at[1] = 2000;
            byte[1] = 179;
            for (int i = 2; i < n; i++)
                if (at[i] == 1000 || at[i] == 2000)
                    at[i] = 3000;
        }
        ma_malom_file *f;
        write_edited(c, src33, "std_3_3_0_0.sec", at, byte, n, over, n_over, path, sizeof path);
        assert_int_equal(ma_malom_file_open_sec(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0},
                                                &err), MA_OK);
        expect_alone_agrees(c, f);
        /* STONE_DIFF .sec2: random bytes in the entries; edits that break the file are skipped */
        for (int i = 0; i < n; i++)
            at[i] = 64 + (long)(lcg(&x) % (2 * N33));
        write_edited(c, srcsd, "std_3_3_0_0.sec2", at, byte, n, NULL, 0, path, sizeof path);
        if (ma_malom_file_open_sec2(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL,
                                    &err) == MA_OK) {
            expect_alone_agrees(c, f);
            sec2_rounds++;
        }
    }
    assert_true(sec2_rounds >= 2);
    /* 3_4_0_0 with one child absent (bounds) and the other corrupted (markers at canonical
     * indices: broken children) */
    ma_malom_file *f34, *f43;
    assert_int_equal(ma_malom_file_open_sec(&f34, src34, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0},
                                            &err), MA_OK);
    long at[60];
    unsigned char byte[60];
    for (int i = 0; i < 60; i++) {
        at[i] = (long)(lcg(&x) % 862980);
        byte[i] = (unsigned char)(i % 3 == 0 ? 180 + lcg(&x) % 15 : lcg(&x) % 179);
    }
    write_edited(c, src43, "std_4_3_0_0.sec", at, byte, 60, NULL, 0, p43, sizeof p43);
    assert_int_equal(ma_malom_file_open_sec(&f43, p43, MA_VARIANT_STD, (ma_sector){4, 3, 0, 0},
                                            &err), MA_OK);
    const ma_malom_file *one[MA_TURN_KINDS] = {NULL, NULL, f43, NULL};
    expect_paths_agree(c, f34, one);
    /* the corrupted 4_3_0_0 itself (sliding turns, ranked while generated on the fast path)
     * against the clean 3_4_0_0 */
    const ma_malom_file *back[MA_TURN_KINDS] = {NULL, NULL, f34, NULL};
    expect_paths_agree(c, f43, back);
    ma_malom_file_close(f34);
    ma_malom_file_close(f43);
}

/* Many successors through the overflow table: 4000 entries of std 3_3_0_0 (its own child) hold
 * byte 179 with distinct overflow values, depths above 178 and counters above 60. Their turn
 * values lie beyond every value a stored byte can name, so in the rank order they share the even
 * ranks past the ends: two of them at one position tie by rank while their values differ. The
 * best of them must still be the best by value, as on the reference path. */
static void test_fast_path_equals_reference_many_overflows(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char src[1024], path[1024];
    snprintf(src, sizeof src, "%s/std_3_3_0_0.sec", c->fixtures);
    enum { N_OVER = 4000 };
    long *at = malloc(N_OVER * sizeof *at);
    unsigned char *byte = malloc(N_OVER);
    int32_t *over = malloc(2 * N_OVER * sizeof *over);
    assert_true(at && byte && over);
    /* evenly spread, sorted and distinct indices, as the overflow table requires */
    for (int j = 0; j < N_OVER; j++) {
        at[j] = (long)((uint64_t)j * N33 / N_OVER + (uint64_t)j % 7);
        byte[j] = 179;
        over[2 * j] = (int32_t)at[j];
        over[2 * j + 1] = j % 2 ? -(61 + j) : 179 + j;
    }
    write_edited(c, src, "std_3_3_0_0.sec", at, byte, N_OVER, over, N_OVER, path, sizeof path);
    free(at);
    free(byte);
    free(over);
    ma_malom_file *f;
    ma_error err;
    assert_int_equal(ma_malom_file_open_sec(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0},
                                            &err), MA_OK);
    expect_alone_agrees(c, f);
}

/* Writes name into tmpdir: the .sec2 file src (entries of size bytes, field 1 of f1 bits, an empty
 * overflow table) with about n of its value entries (key1 != 0) holding field 2 = SPEC and an
 * overflow record of a key2 just beyond the inline range, alternately positive and negative
 * (malom-format.md 5.1, 5.2). Returns the records written. */
static int32_t plant_sec2_overflows(ctx *c, const char *src, const char *name, int size, int f1, int n, char *out,
                                    size_t len)
{
    size_t bytes;
    unsigned char *buf = ma_test_slurp(src, &bytes);
    assert_non_null(buf);
    assert_int_equal(bytes, 64 + (size_t)size * N33 + 4); /* an empty overflow table */
    buf = realloc(buf, bytes + 8 * (size_t)n);
    assert_non_null(buf);
    const uint32_t mask1 = (1u << f1) - 1, spec = 1u << (8 * size - f1 - 1), inline_max = spec - 1;
    int32_t k = 0;
    for (int j = 0; j < n; j++) {
        uint64_t e = (uint64_t)j * N33 / (uint64_t)n + (uint64_t)j % 5; /* ascending, distinct */
        unsigned char *w = buf + 64 + (uint64_t)size * e;
        uint32_t raw = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (size == 3 ? (uint32_t)w[2] << 16 : 0);
        if ((raw & mask1) == 0)
            continue; /* key1 0: a marker or a count, no value to overflow */
        raw = (raw & mask1) | spec << f1;
        for (int b = 0; b < size; b++)
            w[b] = (unsigned char)(raw >> 8 * b);
        int32_t idx = (int32_t)e, val = (int32_t)(inline_max + 1 + (uint32_t)j % 97);
        if (j % 2)
            val = -val;
        memcpy(buf + bytes + 8 * (size_t)k, &idx, 4);
        memcpy(buf + bytes + 8 * (size_t)k + 4, &val, 4);
        k++;
    }
    memcpy(buf + bytes - 4, &k, 4); /* the count, then the records written after it */
    snprintf(out, len, "%s/%s", c->tmpdir, name);
    write_file(out, buf, bytes + 8 * (size_t)k);
    free(buf);
    return k;
}

/* The published layout's overflow (issue 43 (f)): value entries of std 3_3_0_0 (its own child), in
 * the ultra-strong layout (3-byte entries, std.secval beside it: scored from the word's fields on
 * the fast path) and in STONE_DIFF (2-byte entries: ranked), hold field 2 = SPEC with an overflow
 * record. Successors through those records must score as on the reference path: a fast path that
 * read SPEC as the value, or a rank shared by every overflowed value as the value, differs. */
static void test_fast_path_equals_reference_sec2_overflows(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char src[1024], path[1024], sv[1024], svcopy[1024];
    ma_malom_file *f;
    ma_error err;
    snprintf(sv, sizeof sv, "%s/../original-excerpt/std.secval", c->fixtures);
    snprintf(svcopy, sizeof svcopy, "%s/std.secval", c->tmpdir);
    copy_file(sv, svcopy);
    static const struct {
        const char *dir;
        int size, f1;
    } layouts[] = {{"original-excerpt", 3, 12}, {"std-ultra-stonediff", 2, 6}};
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        snprintf(src, sizeof src, "%s/../%s/std_3_3_0_0.sec2", c->fixtures, layouts[i].dir);
        int32_t n = plant_sec2_overflows(c, src, "std_3_3_0_0.sec2", layouts[i].size, layouts[i].f1, 3000, path,
                                         sizeof path);
        assert_true(n > 1500);
        if (ma_malom_file_open_sec2(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL, &err) != MA_OK)
            fail_msg("%s: %s", layouts[i].dir, err.msg);
        expect_alone_agrees(c, f);
    }
    unlink(svcopy);
}

/* STONE_DIFF words rotated by 1 to 15 bits (a word written with its fields shifted: field 1, the
 * low 6 bits, read from another place) at 300 entries each: the fast path, whose verdict compares
 * a stored word's rank with the best successor's, gives exactly the reference path's result. A
 * rank table that gave a word the rank of some other word's value would verify a rotated word
 * whose rotation back is the right one (rotation by 6 bits: the words listed field 1 by field 1). */
static void test_fast_path_equals_reference_rotated_words(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char src[1024], path[1024];
    snprintf(src, sizeof src, "%s/../std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    size_t size;
    unsigned char *orig = ma_test_slurp(src, &size);
    assert_non_null(orig);
    assert_true(size >= 64 + 2 * (size_t)N33);
    uint64_t x = 777;
    for (unsigned rot = 1; rot < 16; rot++) {
        unsigned char *buf = malloc(size);
        assert_non_null(buf);
        memcpy(buf, orig, size);
        int planted = 0;
        for (int tries = 0; planted < 300 && tries < 3000; tries++) {
            uint64_t e = lcg(&x) % N33;
            unsigned char *w = buf + 64 + 2 * e;
            uint32_t word = (uint32_t)w[0] | (uint32_t)w[1] << 8;
            uint32_t r = (word << rot | word >> (16 - rot)) & 0xFFFFu;
            /* field 2 = -512 says "overflow": without a record the file would not open */
            if (r == word || (r >> 6) == 0x200)
                continue;
            w[0] = (unsigned char)r;
            w[1] = (unsigned char)(r >> 8);
            planted++;
        }
        assert_int_equal(planted, 300);
        snprintf(path, sizeof path, "%s/std_3_3_0_0.sec2", c->tmpdir);
        write_file(path, buf, size);
        free(buf);
        ma_malom_file *f;
        ma_error err;
        assert_int_equal(ma_malom_file_open_sec2(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0},
                                                 NULL, &err), MA_OK);
        expect_alone_agrees(c, f);
    }
    free(orig);
}

/* A STONE_DIFF 3_3_0_0 (its own only child) whose every value lies beyond a win (key1 31, key2 1;
 * VW is 10): each turn into it is worth less than having no turn, so every canonical position
 * derives the no-turn loss on the reference path. The fast path's rank tables must rank the
 * no-turn value among those turns' values as the reference path compares them, not count every
 * turn as better than none. */
static void test_fast_path_equals_reference_values_beyond_a_win(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char src[1024], path[1024];
    snprintf(src, sizeof src, "%s/../std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    size_t size;
    unsigned char *buf = ma_test_slurp(src, &size);
    assert_non_null(buf);
    assert_true(size >= 64 + 2 * (size_t)N33);
    uint32_t planted = 0;
    for (uint32_t e = 0; e < N33; e++) {
        unsigned char *w = buf + 64 + 2 * e;
        uint32_t word = (uint32_t)w[0] | (uint32_t)w[1] << 8;
        int32_t key2 = (int32_t)(word >> 6) - (word >> 15 ? 1024 : 0);
        if ((word & 63u) == 0 && key2 < 0)
            continue; /* a marker stays: the index is not what is tested */
        w[0] = (unsigned char)(31u | 1u << 6);
        w[1] = 0;
        planted++;
    }
    assert_int_equal(planted, N33 - 40514u); /* every canonical index: 40,514 markers */
    snprintf(path, sizeof path, "%s/std_3_3_0_0.sec2", c->tmpdir);
    write_file(path, buf, size);
    free(buf);
    ma_malom_file *f;
    ma_error err;
    assert_int_equal(ma_malom_file_open_sec2(&f, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL, &err),
                     MA_OK);
    expect_alone_agrees(c, f);
}

/* The raw entry of (key1, key2) in a .sec2 view: field 1 in the low f1 bits, field 2 above. */
static uint32_t sec2_raw(const ma_malom_view *v, int32_t key1, int32_t key2)
{
    return ((uint32_t)key1 & ((1u << v->f1) - 1u)) |
           ((uint32_t)key2 & ((1u << v->f2) - 1u)) << v->f1;
}

static int sec2_fits(const ma_malom_view *v, int32_t key1, int32_t key2)
{
    int32_t h1 = 1 << (v->f1 - 1), h2 = 1 << (v->f2 - 1);
    return key1 >= -h1 && key1 < h1 && key2 >= -h2 && key2 < h2 && key2 != v->spec;
}

/* The fast path equals the reference on the published format (the original excerpt: .sec2 with
 * three-byte entries and std.secval, no rank tables): 3_3_0_0 (flying) clean and with random byte
 * edits (those that break the file are skipped), and 4_3_0_0 (sliding) against 3_4_0_0. */
static void test_fast_path_equals_reference_secval(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_error err;
    char ex[600], p33[1024], p34[1024], p43[1024], path[1024], sv[1024], svcopy[1024];
    snprintf(ex, sizeof ex, "%s/../original-excerpt", c->fixtures);
    snprintf(p33, sizeof p33, "%s/std_3_3_0_0.sec2", ex);
    snprintf(p34, sizeof p34, "%s/std_3_4_0_0.sec2", ex);
    snprintf(p43, sizeof p43, "%s/std_4_3_0_0.sec2", ex);
    const ma_malom_file *none[MA_TURN_KINDS] = {NULL, NULL, NULL, NULL};
    ma_malom_file *f33, *f34, *f43;
    assert_int_equal(ma_malom_file_open_sec2(&f33, p33, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL,
                                             &err), MA_OK);
    expect_paths_agree(c, f33, none);
    ma_malom_file_close(f33);
    /* a copy of std.secval beside the edited copies */
    snprintf(sv, sizeof sv, "%s/std.secval", ex);
    snprintf(svcopy, sizeof svcopy, "%s/std.secval", c->tmpdir);
    copy_file(sv, svcopy);
    uint64_t x = 777;
    int rounds = 0;
    for (int round = 0; round < 3; round++) {
        long at[40];
        unsigned char byte[40];
        for (int i = 0; i < 40; i++) {
            at[i] = 64 + (long)(lcg(&x) % (3 * N33));
            byte[i] = (unsigned char)(lcg(&x) % 256);
        }
        write_edited(c, p33, "std_3_3_0_0.sec2", at, byte, 40, NULL, 0, path, sizeof path);
        if (ma_malom_file_open_sec2(&f33, path, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL,
                                    &err) == MA_OK) {
            expect_paths_agree(c, f33, none);
            ma_malom_file_close(f33);
            rounds++;
        }
    }
    assert_true(rounds >= 1);
    assert_int_equal(ma_malom_file_open_sec2(&f34, p34, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0}, NULL,
                                             &err), MA_OK);
    assert_int_equal(ma_malom_file_open_sec2(&f43, p43, MA_VARIANT_STD, (ma_sector){4, 3, 0, 0}, NULL,
                                             &err), MA_OK);
    const ma_malom_file *back[MA_TURN_KINDS] = {NULL, NULL, f34, NULL};
    expect_paths_agree(c, f43, back);
    /* children of two entry widths, as a directory mixing Malom's builds has them: 4_3_0_0 (three
     * bytes) and the STONE_DIFF 3_3_0_0 (two bytes) as the capture child of 3_4_0_0 */
    char psd[1024];
    snprintf(psd, sizeof psd, "%s/../std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    ma_malom_file *sd33;
    assert_int_equal(ma_malom_file_open_sec2(&sd33, psd, MA_VARIANT_STD, (ma_sector){3, 3, 0, 0}, NULL,
                                             &err), MA_OK);
    ma_malom_view w43, wsd;
    ma_malom_file_view(f43, &w43);
    ma_malom_file_view(sd33, &wsd);
    assert_int_equal(w43.entry_size, 3);
    assert_int_equal(wsd.entry_size, 2);
    const ma_malom_file *mixed[MA_TURN_KINDS] = {NULL, NULL, f43, sd33};
    expect_paths_agree(c, f34, mixed);
    ma_malom_file_close(sd33);
    /* the child with markers at 60 random indices, canonical ones among them (broken children:
     * key1 0 and a negative key2 in three bytes) */
    ma_malom_view v;
    ma_malom_file_view(f34, &v);
    size_t size;
    const uint8_t *bytes = ma_malom_file_bytes(f34, &size);
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, bytes, size);
    for (int i = 0; i < 60; i++) {
        uint64_t at = ma_malom_file_entry_offset(f34, lcg(&x) % ma_malom_file_entry_count(f34));
        uint32_t raw = sec2_raw(&v, 0, -(int32_t)(1 + lcg(&x) % 15));
        for (int b = 0; b < v.entry_size; b++)
            copy[at + (uint64_t)b] = (uint8_t)(raw >> 8 * b);
    }
    snprintf(path, sizeof path, "%s/std_3_4_0_0.sec2", c->tmpdir);
    write_file(path, copy, size);
    free(copy);
    ma_malom_file *bad34;
    assert_int_equal(ma_malom_file_open_sec2(&bad34, path, MA_VARIANT_STD, (ma_sector){3, 4, 0, 0},
                                             NULL, &err), MA_OK);
    const ma_malom_file *broken[MA_TURN_KINDS] = {NULL, NULL, bad34, NULL};
    expect_paths_agree(c, f43, broken);
    ma_malom_file_close(bad34);
    ma_malom_file_close(f34);
    ma_malom_file_close(f43);
}

/* A .sec2 3_3_0_0 (its own child) where one canonical index P stores exactly the value its
 * successors derive, and that value is malformed (ma_malom_interpret refuses it): every successor
 * of P holds a value M whose turn value T is a win of even depth or a loss of odd depth, and P
 * holds T. The whole way reports P as bad-encoding; a verdict that compares the stored value with
 * the best turn value without interpreting it would call P verified. */
static void expect_malformed_best_is_bad_encoding(ctx *c, const char *src, const char *name)
{
    ma_error err;
    ma_malom_file *f0;
    const ma_sector s33 = {3, 3, 0, 0};
    assert_int_equal(ma_malom_file_open_sec2(&f0, src, MA_VARIANT_STD, s33, NULL, &err), MA_OK);
    ma_malom_frame fr = ma_malom_file_frame(f0);
    ma_malom_view v;
    ma_malom_file_view(f0, &v);
    ma_malom_value m = {0, 0}, t = {0, 0};
    int found = 0;
    int32_t h1 = 1 << (v.f1 - 1);
    for (int32_t k1 = -h1; k1 < h1 && !found; k1++) {
        for (int32_t k2 = -3; k2 <= 3 && !found; k2++) {
            if (k1 == 0 || !sec2_fits(&v, k1, k2))
                continue;
            ma_malom_value cand = ma_malom_turn_value((ma_malom_value){k1, k2}, fr.v, fr.v);
            ma_malom_entry e = {MA_MALOM_VAL, cand.key1, cand.key2, -1};
            ma_malom_result rs;
            if (cand.key1 != 0 && sec2_fits(&v, cand.key1, cand.key2) &&
                ma_malom_interpret(&fr, &e, &rs) != MA_OK &&
                ma_malom_value_cmp(cand, ma_malom_no_turn(&fr)) > 0) {
                m = (ma_malom_value){k1, k2};
                t = cand;
                found = 1;
            }
        }
    }
    assert_true(found);
    ma_vrules rules;
    assert_int_equal(ma_vrules_init(&rules, MA_VARIANT_STD, s33, &err), MA_OK);
    uint64_t p_idx = 0, succ[MA_VRULES_MAX_TURNS];
    int n = 0;
    for (uint64_t idx = 0; idx < N33 && n == 0; idx++) {
        if (ma_malom_index_marker(c->ix, 3, 3, idx) >= 0)
            continue;
        ma_vturns turns;
        assert_int_equal(ma_vrules_generate(&rules, ma_malom_index_unrank(c->ix, 3, 3, idx), &turns),
                         0);
        int ok = turns.n > 0 && !turns.immediate_wins;
        for (int i = 0; i < turns.n && ok; i++) {
            succ[i] = ma_malom_index_rank(c->ix, turns.succ[i], NULL);
            ok = turns.kind[i] == MA_TURN_MOVE && succ[i] != idx;
        }
        if (ok) {
            p_idx = idx;
            n = turns.n;
        }
    }
    assert_true(n > 0);
    size_t size;
    const uint8_t *bytes = ma_malom_file_bytes(f0, &size);
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    memcpy(buf, bytes, size);
    for (int i = 0; i <= n; i++) {
        uint64_t at = ma_malom_file_entry_offset(f0, i < n ? succ[i] : p_idx);
        uint32_t raw = i < n ? sec2_raw(&v, m.key1, m.key2) : sec2_raw(&v, t.key1, t.key2);
        for (int b = 0; b < v.entry_size; b++)
            buf[at + (uint64_t)b] = (uint8_t)(raw >> 8 * b);
    }
    ma_malom_file_close(f0);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", c->tmpdir, name);
    write_file(path, buf, size);
    free(buf);
    ma_malom_file *f;
    assert_int_equal(ma_malom_file_open_sec2(&f, path, MA_VARIANT_STD, s33, NULL, &err), MA_OK);
    ma_mcheck_input in;
    memset(&in, 0, sizeof in);
    in.ix = c->ix;
    in.file = f;
    in.full_board_draw = 1;
    in.threads = 1;
    in.reference = 1;
    ma_mcheck_result ref;
    assert_int_equal(ma_mcheck_sector(&ref, &in, &err), MA_OK);
    int at_p = 0;
    for (size_t i = 0; i < ref.n_items; i++)
        if (ref.items[i].entry == p_idx) {
            assert_int_equal(ref.items[i].cls, MA_MCHECK_BAD_ENCODING);
            at_p = 1;
        }
    assert_true(at_p);
    ma_mcheck_result_free(&ref);
    expect_alone_agrees(c, f);
}

/* The fast path's verdict "stored value = best turn value" only for stored values that are well
 * formed: STONE_DIFF (two-byte entries, rank tables) and the published format (three-byte entries
 * with std.secval, key1 score tables). */
static void test_malformed_best_value_is_bad_encoding(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char src[1024], sv[1024], svcopy[1024];
    snprintf(src, sizeof src, "%s/../std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    expect_malformed_best_is_bad_encoding(c, src, "std_3_3_0_0.sec2");
    /* the published format reads std.secval beside the file */
    snprintf(sv, sizeof sv, "%s/../original-excerpt/std.secval", c->fixtures);
    snprintf(svcopy, sizeof svcopy, "%s/std.secval", c->tmpdir);
    copy_file(sv, svcopy);
    snprintf(src, sizeof src, "%s/../original-excerpt/std_3_3_0_0.sec2", c->fixtures);
    expect_malformed_best_is_bad_encoding(c, src, "std_3_3_0_0.sec2");
    remove(svcopy);
}

static void test_format_value(void **state)
{
    (void)state;
    ma_malom_frame legacy = {0, 1, -1};
    char buf[64];
    ma_mcheck_format_value(&legacy, 1, (ma_malom_value){1, 7}, buf, sizeof buf);
    assert_string_equal(buf, "win 7");
    ma_mcheck_format_value(&legacy, 1, (ma_malom_value){-1, 4}, buf, sizeof buf);
    assert_string_equal(buf, "loss 4");
    ma_mcheck_format_value(&legacy, 1, (ma_malom_value){0, 9}, buf, sizeof buf);
    assert_string_equal(buf, "draw A=0");
    ma_malom_frame dd = {-63, 640, -640};
    ma_mcheck_format_value(&dd, 0, (ma_malom_value){49, -28}, buf, sizeof buf);
    assert_string_equal(buf, "draw A=-14 k2=-28");
    ma_mcheck_format_value(&dd, 0, (ma_malom_value){703, 5}, buf, sizeof buf);
    assert_string_equal(buf, "win 5");
    assert_string_equal(ma_mcheck_class_name(MA_MCHECK_WRONG_DRAW_CLASS), "wrong-draw-class");
    assert_string_equal(ma_mcheck_class_name(MA_MCHECK_CLASSES), "missing-child");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_value),
        cmocka_unit_test(test_clean_sector_verifies),
        cmocka_unit_test(test_depth_fault),
        cmocka_unit_test(test_outcome_fault),
        cmocka_unit_test(test_marker_fault),
        cmocka_unit_test(test_value_at_marker_index),
        cmocka_unit_test(test_bounds_when_child_missing),
        cmocka_unit_test(test_fast_path_equals_reference),
        cmocka_unit_test(test_fast_path_equals_reference_secval),
        cmocka_unit_test(test_fast_path_equals_reference_rotated_words),
        cmocka_unit_test(test_fast_path_equals_reference_many_overflows),
        cmocka_unit_test(test_fast_path_equals_reference_sec2_overflows),
        cmocka_unit_test(test_fast_path_equals_reference_values_beyond_a_win),
        cmocka_unit_test(test_malformed_best_value_is_bad_encoding),
        cmocka_unit_test(test_bounds_mode_reports_a_value_below_the_bound),
        cmocka_unit_test(test_full_board_rule),
    };
    return ma_test_run_group(tests, setup, teardown);
}
