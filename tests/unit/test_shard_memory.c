/* Unit tests of a task's planned peak memory: verifier/check/memory (the private memory of one
 * sector's check, per format) and ma_shard_peaks (verifier/run/run_peak.c: the files read privately
 * or mapped at once in the run's unit order, plus that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checksums/private_read.h"
#include "verifier/check/memory.h"
#include "verifier/check/resident.h"
#include "verifier/check/visited.h"
#include "verifier/check/walk.h"
#include "verifier/run/shard.h"

#include "tests/unit/support.h"

#define MIB ((uint64_t)1 << 20)

/* 10 Mi entries: a visited bitmap of 1.25 MiB, one 2 MiB page, beside the threads' own ones */
static const uint64_t BITMAPS = 2 * MIB + MA_VISITED_OWN_BUDGET;

static ma_check_memory_in sector(ma_format f, uint64_t self, uint64_t c0, uint64_t c1)
{
    ma_check_memory_in in;
    memset(&in, 0, sizeof in);
    in.format = f;
    in.entries = 10 * MIB;
    in.self_file = self;
    in.child_file[0] = c0;
    in.child_file[1] = c1;
    return in;
}

static void test_open_copies_children_and_itself_apart(void **state)
{
    (void)state;
    /* (the budget is 4 GiB) children 1,200 + 2,000 MiB within the budget, itself 2,800 MiB within
     * it alone: both batches */
    ma_check_memory_in in = sector(MA_FORMAT_OPEN, 2800 * MIB, 1200 * MIB, 2000 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), (1200 + 2000 + 2800) * MIB + BITMAPS);
    /* a file 1 byte over 1,200 MiB takes one more 2 MiB page */
    in.child_file[0] = 1200 * MIB + 1;
    assert_int_equal(ma_check_private_bytes(&in), (1202 + 2000 + 2800) * MIB + BITMAPS);
    /* children over the budget together (2,400 + 2,000 MiB): not copied; itself still is */
    in = sector(MA_FORMAT_OPEN, 2800 * MIB, 2400 * MIB, 2000 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 2800 * MIB + BITMAPS);
    /* exactly the budget is within it; one byte more is not */
    assert_int_equal(MA_WALK_RESIDENT_BUDGET, 4096 * MIB);
    in = sector(MA_FORMAT_OPEN, 0, 2048 * MIB, 2048 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 4096 * MIB + BITMAPS);
    in.child_file[1]++;
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
    /* under one 2 MiB page in all: not copied */
    in = sector(MA_FORMAT_OPEN, MIB, MIB, MIB - 1);
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
}

static void test_malom_copies_children_and_itself_together(void **state)
{
    (void)state;
    /* 1,200 + 2,000 + 800 MiB together within the budget: all three */
    ma_check_memory_in in = sector(MA_FORMAT_SEC2, 800 * MIB, 1200 * MIB, 2000 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 4000 * MIB + BITMAPS);
    /* 1,200 + 2,000 + 2,800 MiB: over it together, so none, though the open checker would copy */
    in = sector(MA_FORMAT_SEC2, 2800 * MIB, 1200 * MIB, 2000 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
    in.format = MA_FORMAT_SEC;
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
}

static void test_own_successor_is_copied_once(void **state)
{
    (void)state;
    ma_check_memory_in in = sector(MA_FORMAT_OPEN, 400 * MIB, 300 * MIB, 0);
    in.self_is_child = 1;
    assert_int_equal(ma_check_private_bytes(&in), 700 * MIB + BITMAPS);
    in.format = MA_FORMAT_SEC2;
    assert_int_equal(ma_check_private_bytes(&in), 700 * MIB + BITMAPS);
}

/* Files read privately (a verify unit within the budget) are not copied: the check holds its
 * bitmaps alone, whatever the format and sizes. */
static void test_private_files_are_not_copied(void **state)
{
    (void)state;
    ma_check_memory_in in = sector(MA_FORMAT_OPEN, 700 * MIB, 300 * MIB, 500 * MIB);
    in.files_private = 1;
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
    in = sector(MA_FORMAT_SEC2, 200 * MIB, 300 * MIB, 500 * MIB);
    in.files_private = 1;
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
}

/* A host with room for the whole budget beside the check's own memory keeps it; a smaller one
 * takes half of what is left beside MA_CHECK_FIXED_BYTES, and never 0 (the default's mark). */
static void test_budget_follows_the_memory_available(void **state)
{
    (void)state;
    const uint64_t fixed = MA_CHECK_FIXED_BYTES, whole = MA_WALK_RESIDENT_BUDGET;
    assert_int_equal(ma_check_resident_budget(0), whole); /* unknown */
    assert_int_equal(ma_check_resident_budget(64 * 1024 * MIB), whole);
    assert_int_equal(ma_check_resident_budget(fixed + 2 * whole), whole);
    assert_int_equal(ma_check_resident_budget(fixed + 2 * whole - 2), whole - 1);
    assert_int_equal(ma_check_resident_budget(fixed + 3072 * MIB), 1536 * MIB);
    assert_int_equal(ma_check_resident_budget(fixed + 2), 1);
    assert_int_equal(ma_check_resident_budget(fixed), 1);
    assert_int_equal(ma_check_resident_budget(1), 1);
}

static void make_file(const char *dir, const char *name, off_t size)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ma_test_spit(p, "", 0);
    assert_int_equal(truncate(p, size), 0); /* sparse: the plan reads no byte of it */
}

/* The plan of one shard of std 3_3, 3_4, 4_3, 4_4 (open format, files of these sizes, sparse),
 * against each sector's expected peak, its largest sector's the shard's. */
static void plan_of(const uint64_t size[4], uint64_t peak[4])
{
    char dir[] = "/tmp/test_shard_memory.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *names[4] = {"std_3_3_0_0.mdb", "std_3_4_0_0.mdb", "std_4_3_0_0.mdb", "std_4_4_0_0.mdb"};
    for (int i = 0; i < 4; i++)
        make_file(dir, names[i], (off_t)size[i]);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_count(db), 4);
    /* the database lists sectors by name: 3_3, 3_4, 4_3, 4_4 */
    assert_string_equal(ma_database_sector(db, 0)->name, "std_3_3_0_0");
    assert_string_equal(ma_database_sector(db, 3)->name, "std_4_4_0_0");
    assert_int_equal(ma_shard_peaks(db, 1, peak, &err), MA_OK);
    /* the plan states them; a shard's peak is its largest sector's */
    ma_shard_plan plan;
    assert_int_equal(ma_shard_plan_database(db, 1, &plan, &err), MA_OK);
    uint64_t most = peak[0];
    for (int i = 0; i < 4; i++) {
        assert_int_equal(plan.sectors[i].peak_bytes, peak[i]);
        most = peak[i] > most ? peak[i] : most;
    }
    assert_int_equal(plan.shards[0].peak_bytes, most);
    ma_shard_plan_free(&plan);
    ma_database_close(db);
    ma_test_tmpdir_remove(dir);
}

/* What the check of each of the four sectors holds privately (by the rules tested above), its files
 * read privately or mapped. The run checks 3_3 (its own successor) first, then the twins 3_4 and
 * 4_3 (each the other's successor; 3_4 reads 3_3 too) as one unit, then 4_4 (reads 4_4 and 3_4). */
static void check_bytes(const uint64_t size[4], const int priv[4], uint64_t p[4])
{
    ma_check_memory_in in;
    memset(&in, 0, sizeof in);
    in.format = MA_FORMAT_OPEN;
    in.files_private = priv[0];
    in.entries = (size[0] - 128) / 2, in.self_file = size[0], in.self_is_child = 1;
    p[0] = ma_check_private_bytes(&in);
    in.files_private = priv[1];
    in.entries = (size[1] - 128) / 2, in.self_file = size[1], in.self_is_child = 0;
    in.child_file[0] = size[2], in.child_file[1] = size[0];
    p[1] = ma_check_private_bytes(&in);
    in.files_private = priv[2];
    in.entries = (size[2] - 128) / 2, in.self_file = size[2], in.child_file[0] = size[1], in.child_file[1] = 0;
    p[2] = ma_check_private_bytes(&in);
    in.files_private = priv[3];
    in.entries = (size[3] - 128) / 2, in.self_file = size[3], in.self_is_child = 1, in.child_file[0] = size[1];
    p[3] = ma_check_private_bytes(&in);
}

/* Every unit within the budget, from 0 bytes up: its files are read privately, not copied, and
 * freed after the unit (3_3, read by the first unit, is read again by the twins'). 3_3 is under one
 * 2 MiB page and holds ordinary pages (ma_private_held: its size in whole 4 KiB pages), not a huge
 * page; the larger ones whole 2 MiB pages. */
static void test_peaks_of_units_read_privately(void **state)
{
    (void)state;
    const uint64_t size[4] = {128 + 2 * 1000000, 128 + 2 * 3000000, 128 + 2 * 5000000, 128 + 2 * 7000000};
    uint64_t peak[4], p[4], h[4];
    plan_of(size, peak);
    const int priv[4] = {1, 1, 1, 1};
    check_bytes(size, priv, p);
    for (int i = 0; i < 4; i++)
        h[i] = ma_private_held(size[i]);
    assert_true(size[0] < MA_RESIDENT_PAGE);
    assert_int_equal(h[0], 489 * 4096); /* 2,000,128 bytes in whole 4 KiB pages */
    assert_int_equal(h[3], 14 * MIB);
    assert_int_equal(p[1], BITMAPS); /* no copy: one bitmap page beside the threads' own */
    assert_int_equal(peak[0], h[0] + p[0] + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[1], h[0] + h[1] + h[2] + p[1] + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[2], h[0] + h[1] + h[2] + p[2] + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[3], h[1] + h[3] + p[3] + MA_CHECK_FIXED_BYTES);
}

/* Units over the budget are mapped, and a file mapped stays mapped until the last unit that reads
 * it. 3_3 of 4.8 GB puts the first unit (3_3) and the twins' (3_3, 3_4, 4_3) over 4 GiB: mapped,
 * the twins' own bodies copied by their checks (each within the copy budget alone). 3_4 stays mapped
 * after the twins' unit (4_4 reads it); 4_4's unit (4_4, 3_4) is within the budget, so 3_4 is
 * released and read privately with 4_4. */
static void test_peaks_of_units_over_the_budget(void **state)
{
    (void)state;
    const uint64_t size[4] = {128 + 2 * (uint64_t)2400000000, 128 + 2 * 3000000, 128 + 2 * 5000000,
                              128 + 2 * 7000000};
    uint64_t peak[4], p[4];
    plan_of(size, peak);
    const int priv[4] = {0, 0, 0, 1};
    check_bytes(size, priv, p);
    assert_true(size[0] > MA_WALK_RESIDENT_BUDGET);
    assert_int_equal(peak[0], size[0] + p[0] + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[1], size[0] + size[1] + size[2] + p[1] + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[2], size[0] + size[1] + size[2] + p[2] + MA_CHECK_FIXED_BYTES);
    /* the copies are counted: 3_4's own body (its successors, 3_3 with 4_3, are over the budget),
     * and 4_3's successor 3_4 and its own body, each in whole 2 MiB pages */
    assert_int_equal(p[1], 6 * MIB + BITMAPS);
    assert_int_equal(p[2], 6 * MIB + 10 * MIB + BITMAPS);
    assert_int_equal(peak[3], ma_private_held(size[1]) + ma_private_held(size[3]) + p[3] + MA_CHECK_FIXED_BYTES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_copies_children_and_itself_apart),
        cmocka_unit_test(test_malom_copies_children_and_itself_together),
        cmocka_unit_test(test_own_successor_is_copied_once),
        cmocka_unit_test(test_private_files_are_not_copied),
        cmocka_unit_test(test_budget_follows_the_memory_available),
        cmocka_unit_test(test_peaks_of_units_read_privately),
        cmocka_unit_test(test_peaks_of_units_over_the_budget),
    };
    return ma_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
