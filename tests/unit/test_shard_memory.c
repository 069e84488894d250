/* Unit tests of a task's planned peak memory: verifier/check/memory (the private memory of one
 * sector's check, per format) and ma_shard_peaks (verifier/run/run_peak.c: the files mapped at once
 * in the run's unit order, plus that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/check/memory.h"
#include "verifier/check/resident.h"
#include "verifier/check/visited.h"
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
    /* children 300 + 500 MiB within the budget, itself 700 MiB within it alone: both batches */
    ma_check_memory_in in = sector(MA_FORMAT_OPEN, 700 * MIB, 300 * MIB, 500 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), (300 + 500 + 700) * MIB + BITMAPS);
    /* a file 1 byte over 300 MiB takes one more 2 MiB page */
    in.child_file[0] = 300 * MIB + 1;
    assert_int_equal(ma_check_private_bytes(&in), (302 + 500 + 700) * MIB + BITMAPS);
    /* children over the budget together (600 + 500 MiB): not copied; itself still is */
    in = sector(MA_FORMAT_OPEN, 700 * MIB, 600 * MIB, 500 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 700 * MIB + BITMAPS);
    /* exactly the budget is within it; one byte more is not */
    in = sector(MA_FORMAT_OPEN, 0, 512 * MIB, 512 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 1024 * MIB + BITMAPS);
    in.child_file[1]++;
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
    /* under one 2 MiB page in all: not copied */
    in = sector(MA_FORMAT_OPEN, MIB, MIB, MIB - 1);
    assert_int_equal(ma_check_private_bytes(&in), BITMAPS);
}

static void test_malom_copies_children_and_itself_together(void **state)
{
    (void)state;
    /* 300 + 500 + 200 MiB together within the budget: all three */
    ma_check_memory_in in = sector(MA_FORMAT_SEC2, 200 * MIB, 300 * MIB, 500 * MIB);
    assert_int_equal(ma_check_private_bytes(&in), 1000 * MIB + BITMAPS);
    /* 300 + 500 + 700 MiB: over it together, so none, though the open checker would copy */
    in = sector(MA_FORMAT_SEC2, 700 * MIB, 300 * MIB, 500 * MIB);
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

static void make_file(const char *dir, const char *name, off_t size)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ma_test_spit(p, "", 0);
    assert_int_equal(truncate(p, size), 0); /* sparse: the plan reads no byte of it */
}

/* One shard of std 3_3, 3_4, 4_3, 4_4 (open format, sizes only). The run checks 3_3 (its own
 * successor) first, then the twins 3_4 and 4_3 (each the other's successor; 3_4 reads 3_3 too) as
 * one unit, then 4_4 (reads 4_4 and 3_4). 3_3 alone is under one 2 MiB page: mapped, and a file
 * mapped stays mapped until the last unit that reads it. The twins' unit (3_3, 3_4, 4_3) and 4_4's
 * (4_4, 3_4) total the copy budget: their files are read privately, each on whole 2 MiB pages
 * (3_3, mapped before, is released and read again), not copied, and freed after the unit. */
static void test_peaks_follow_the_files_mapped_at_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_shard_memory.XXXXXX";
    assert_non_null(mkdtemp(dir));
    const uint64_t s33 = 128 + 2 * 1000000, s34 = 128 + 2 * 3000000, s43 = 128 + 2 * 5000000,
                   s44 = 128 + 2 * 7000000;
    make_file(dir, "std_3_3_0_0.mdb", (off_t)s33);
    make_file(dir, "std_3_4_0_0.mdb", (off_t)s34);
    make_file(dir, "std_4_3_0_0.mdb", (off_t)s43);
    make_file(dir, "std_4_4_0_0.mdb", (off_t)s44);
    ma_database *db;
    ma_error err;
    assert_int_equal(ma_database_open(&db, dir, NULL, &err), MA_OK);
    assert_int_equal(ma_database_count(db), 4);
    uint64_t peak[4];
    assert_int_equal(ma_shard_peaks(db, 1, peak, &err), MA_OK);
    /* what each check holds privately, by the rule tested above */
    ma_check_memory_in in;
    memset(&in, 0, sizeof in);
    in.format = MA_FORMAT_OPEN;
    in.entries = 1000000, in.self_file = s33, in.self_is_child = 1;
    uint64_t p33 = ma_check_private_bytes(&in);
    in.files_private = 1;
    in.entries = 3000000, in.self_file = s34, in.self_is_child = 0, in.child_file[0] = s43, in.child_file[1] = s33;
    uint64_t p34 = ma_check_private_bytes(&in);
    in.entries = 5000000, in.self_file = s43, in.child_file[0] = s34, in.child_file[1] = 0;
    uint64_t p43 = ma_check_private_bytes(&in);
    in.entries = 7000000, in.self_file = s44, in.self_is_child = 1, in.child_file[0] = s34;
    uint64_t p44 = ma_check_private_bytes(&in);
    /* the database lists sectors by name: 3_3, 3_4, 4_3, 4_4 */
    assert_string_equal(ma_database_sector(db, 0)->name, "std_3_3_0_0");
    assert_string_equal(ma_database_sector(db, 3)->name, "std_4_4_0_0");
    assert_int_equal(peak[0], s33 + p33 + MA_CHECK_FIXED_BYTES);
    assert_true(s33 < MA_RESIDENT_PAGE); /* the first unit is mapped */
    uint64_t h33 = ma_huge_size(s33), h34 = ma_huge_size(s34), h43 = ma_huge_size(s43), h44 = ma_huge_size(s44);
    assert_int_equal(h33, 2 * MIB);
    assert_int_equal(h44, 14 * MIB);
    assert_int_equal(p34, BITMAPS); /* no copy: one bitmap page beside the threads' own */
    assert_int_equal(peak[1], h33 + h34 + h43 + p34 + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[2], h33 + h34 + h43 + p43 + MA_CHECK_FIXED_BYTES);
    assert_int_equal(peak[3], h34 + h44 + p44 + MA_CHECK_FIXED_BYTES);
    /* the plan states them; a shard's peak is its largest sector's */
    ma_shard_plan plan;
    assert_int_equal(ma_shard_plan_database(db, 1, &plan, &err), MA_OK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(plan.sectors[i].peak_bytes, peak[i]);
    uint64_t most = peak[0];
    for (int i = 1; i < 4; i++)
        most = peak[i] > most ? peak[i] : most;
    assert_int_equal(plan.shards[0].peak_bytes, most);
    ma_shard_plan_free(&plan);
    ma_database_close(db);
    ma_test_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_copies_children_and_itself_apart),
        cmocka_unit_test(test_malom_copies_children_and_itself_together),
        cmocka_unit_test(test_own_successor_is_copied_once),
        cmocka_unit_test(test_private_files_are_not_copied),
        cmocka_unit_test(test_peaks_follow_the_files_mapped_at_once),
    };
    return ma_test_exit_status(cmocka_run_group_tests(tests, NULL, NULL));
}
