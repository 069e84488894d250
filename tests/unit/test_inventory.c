/* Unit tests for verifier/run/inventory and reports/store/audit_inventory: the digests of an inventory and
 * a plan do not depend on the order rows were added in and change with any row; the first
 * difference of two inventories is named; a plan whose rows, digests or partition were changed is
 * refused naming the sector or field; the rows
 * round-trip through an audit store. Rows are built by hand: no database is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/formats/open_file.h"
#include "reports/store/audit.h"
#include "reports/store/audit_inventory.h"
#include "verifier/run/inventory.h"
#include "verifier/run/shard.h"

static const char *const sectors[] = {"std_3_3_0_0", "std_2_3_1_0", "std_2_2_1_1", "std_1_2_2_1",
                                      "std_1_1_2_2", "std_0_1_3_2", "std_0_0_3_3"};
static const uint64_t entries[] = {210140, 46200, 6930, 1012, 92, 24, 1};
#define N_SECTORS 7

/* The 3-stone game's inventory and plan in n_shards, rows added in the given order (reversed or
 * not), partitioned by ma_shard_partition as the run engine does. */
static void build(ma_inventory *inv, unsigned n_shards, int reversed)
{
    memset(inv, 0, sizeof *inv);
    ma_error err;
    ma_shard_item items[N_SECTORS];
    for (int i = 0; i < N_SECTORS; i++) {
        ma_variant v;
        int named;
        ma_sector s;
        assert_int_equal(ma_sector_arg_parse(sectors[i], &v, &named, &s, &err), MA_OK);
        items[i] = (ma_shard_item){v, s, sectors[i], entries[i], 0, 0};
    }
    if (n_shards > 1)
        assert_int_equal(ma_shard_partition(items, N_SECTORS, n_shards, &err), MA_OK);
    inv->shard_count = n_shards;
    inv->whole = 1;
    for (int k = 0; k < N_SECTORS; k++) {
        int i = reversed ? N_SECTORS - 1 - k : k;
        ma_inventory_file f;
        memset(&f, 0, sizeof f);
        snprintf(f.name, sizeof f.name, "%s.mdb", sectors[i]);
        snprintf(f.sector, sizeof f.sector, "%s", sectors[i]);
        f.size = 128 + 2 * entries[i];
        snprintf(f.digest, sizeof f.digest, "sha256:%064d", i);
        assert_int_equal(ma_inventory_add_file(inv, &f, &err), MA_OK);
        ma_plan_sector p;
        memset(&p, 0, sizeof p);
        snprintf(p.sector, sizeof p.sector, "%s", sectors[i]);
        p.entries = entries[i];
        p.shard = items[i].shard;
        assert_int_equal(ma_inventory_add_plan(inv, &p, &err), MA_OK);
    }
    ma_inventory_file u;
    memset(&u, 0, sizeof u);
    snprintf(u.name, sizeof u.name, "std_9_9_9_9.mdb");
    snprintf(u.digest, sizeof u.digest, "unusable");
    assert_int_equal(ma_inventory_add_file(inv, &u, &err), MA_OK);
    assert_int_equal(ma_inventory_seal(inv), 0);
}

static void test_digests_do_not_depend_on_order_and_change_with_any_row(void **state)
{
    (void)state;
    ma_inventory a, b, c;
    build(&a, 2, 0);
    build(&b, 2, 1);
    assert_string_equal(a.inventory_digest, b.inventory_digest);
    assert_string_equal(a.plan_digest, b.plan_digest);
    assert_int_equal(strlen(a.inventory_digest), 64);
    ma_error err;
    assert_int_equal(ma_inventory_verify(&a, "a", &err), MA_OK);
    char diff[600];
    assert_int_equal(ma_inventory_diff(&a, "A", &b, "B", diff, sizeof diff), 0);
    /* another partition of the same files: same inventory, other plan */
    build(&c, 3, 0);
    assert_string_equal(a.inventory_digest, c.inventory_digest);
    assert_string_not_equal(a.plan_digest, c.plan_digest);
    ma_inventory_free(&c);
    /* one byte of one digest: another inventory, named */
    b.files[3].digest[10] ^= 1;
    assert_int_equal(ma_inventory_seal(&b), 0);
    assert_string_not_equal(a.inventory_digest, b.inventory_digest);
    assert_int_equal(ma_inventory_diff(&a, "A", &b, "B", diff, sizeof diff), 1);
    assert_non_null(strstr(diff, b.files[3].name));
    assert_non_null(strstr(diff, "differs"));
    ma_inventory_free(&b);
    /* a file missing from one of them, named with the side that has it */
    build(&b, 2, 0);
    memmove(&b.files[1], &b.files[2], (b.n_files - 2) * sizeof *b.files);
    b.n_files--;
    assert_int_equal(ma_inventory_seal(&b), 0);
    assert_int_equal(ma_inventory_diff(&b, "s0", &a, "s1", diff, sizeof diff), 1);
    assert_non_null(strstr(diff, a.files[1].name));
    assert_non_null(strstr(diff, "in s1's inventory"));
    assert_non_null(strstr(diff, "not in s0's"));
    ma_inventory_free(&a);
    ma_inventory_free(&b);
}

static void test_a_changed_plan_is_refused_naming_the_field(void **state)
{
    (void)state;
    ma_inventory a;
    ma_error err;
    /* a row changed after sealing: the digests no longer hold */
    build(&a, 2, 0);
    a.plan[2].entries++;
    assert_int_equal(ma_inventory_verify(&a, "s0.sqlite: run 1", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "plan_digest"));
    assert_non_null(strstr(err.msg, "s0.sqlite: run 1"));
    ma_inventory_free(&a);
    build(&a, 2, 0);
    a.files[0].size++;
    assert_int_equal(ma_inventory_verify(&a, "x", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "inventory_digest"));
    ma_inventory_free(&a);
    /* resealed, but a sector given to a shard the partition does not give it */
    build(&a, 2, 0);
    a.plan[4].shard = 1 - a.plan[4].shard;
    assert_int_equal(ma_inventory_seal(&a), 0);
    assert_int_equal(ma_inventory_verify(&a, "x", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, a.plan[4].sector));
    assert_non_null(strstr(err.msg, "shard"));
    ma_inventory_free(&a);
    /* resealed, a whole plan without one of the inventory's sector files */
    build(&a, 2, 0);
    char gone[40];
    snprintf(gone, sizeof gone, "%s", a.plan[0].sector);
    memmove(&a.plan[0], &a.plan[1], (a.n_plan - 1) * sizeof *a.plan);
    a.n_plan--;
    assert_int_equal(ma_inventory_seal(&a), 0);
    assert_int_equal(ma_inventory_verify(&a, "x", &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, gone));
    assert_non_null(strstr(err.msg, "not in the plan"));
    ma_inventory_free(&a);
    /* lookups */
    build(&a, 1, 1);
    assert_non_null(ma_inventory_planned(&a, "std_2_2_1_1"));
    assert_null(ma_inventory_planned(&a, "std_9_9_0_0"));
    assert_string_equal(ma_inventory_file_of(&a, "std_0_0_3_3")->name, "std_0_0_3_3.mdb");
    assert_null(ma_inventory_file_of(&a, "std_9_9_0_0"));
    ma_inventory_free(&a);
}

static void test_rows_round_trip_through_the_store(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_inventory_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[200];
    snprintf(path, sizeof path, "%s/a.sqlite", dir);
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, path, &err), MA_OK);
    ma_run_info info = {"verify", "test", "test", "unit", "test_inventory", "/db", "std", "open"};
    int64_t id = 0, other = 0;
    assert_int_equal(ma_audit_run_begin(a, &info, &id, &err), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &info, &other, &err), MA_OK);
    ma_inventory inv, back;
    build(&inv, 3, 1);
    assert_int_equal(ma_audit_inventory_write(a, id, &inv, 0, &err), MA_OK);
    int recorded = 0;
    assert_int_equal(ma_audit_inventory_read(a, id, &back, &recorded, &err), MA_OK);
    assert_true(recorded);
    assert_int_equal(back.n_files, inv.n_files);
    assert_int_equal(back.n_plan, inv.n_plan);
    assert_int_equal(back.shard_count, 3);
    assert_true(back.whole);
    assert_string_equal(back.inventory_digest, inv.inventory_digest);
    assert_string_equal(back.plan_digest, inv.plan_digest);
    for (size_t i = 0; i < inv.n_files; i++) {
        assert_string_equal(back.files[i].name, inv.files[i].name);
        assert_string_equal(back.files[i].digest, inv.files[i].digest);
        assert_string_equal(back.files[i].sector, inv.files[i].sector);
        assert_int_equal(back.files[i].size, inv.files[i].size);
    }
    for (size_t i = 0; i < inv.n_plan; i++) {
        assert_string_equal(back.plan[i].sector, inv.plan[i].sector);
        assert_int_equal(back.plan[i].shard, inv.plan[i].shard);
        assert_int_equal(back.plan[i].entries, inv.plan[i].entries);
    }
    assert_int_equal(ma_inventory_verify(&back, path, &err), MA_OK);
    ma_inventory_free(&back);
    /* a run that recorded none reads as not recorded, not as an empty inventory */
    assert_int_equal(ma_audit_inventory_read(a, other, &back, &recorded, &err), MA_OK);
    assert_false(recorded);
    assert_int_equal(back.n_files, 0);
    ma_inventory_free(&inv);
    ma_audit_close(a);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digests_do_not_depend_on_order_and_change_with_any_row),
        cmocka_unit_test(test_a_changed_plan_is_refused_naming_the_field),
        cmocka_unit_test(test_rows_round_trip_through_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
