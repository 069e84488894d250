/*
 * The verify engines through the public API only (include/millaudit.h): a run of a small solved
 * database (verified), the same database with one planted fault (the discrepancy, its sector and
 * entry, as data), a shard plan of 2, the two shard runs each in its own store and their merge,
 * whose totals must be the single run's; and the refusals (bad options, a missing root, a store
 * given twice to the merge).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "millaudit.h"
#include "tests/unit/support.h"

/* The planted fault: one loss of depth >= 4 in this sector's file made two plies shorter. */
#define FAULT_SECTOR "std_2_3_1_0"

typedef struct fixture {
    char dir[256];
    char good[300], bad[300];
    uint64_t fault_entry, fault_offset;
    unsigned fault_depth; /* the depth the producer wrote */
} fixture;

/* Rewrites the first loss of depth >= 4 of bad/FAULT_SECTOR.mdb (open format: a 128-byte header,
 * then one 16-bit little-endian word per entry, outcome in the top two bits, 1 = loss). */
static int plant_fault(fixture *fx)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s.mdb", fx->bad, FAULT_SECTOR);
    size_t len;
    unsigned char *buf = ma_test_slurp(path, &len);
    int planted = -1;
    for (size_t off = 128; off + 1 < len; off += 2) {
        unsigned w = buf[off] | (unsigned)buf[off + 1] << 8;
        if (w >> 14 == 1 && (w & 0x3FFF) >= 4) {
            fx->fault_offset = off;
            fx->fault_entry = (off - 128) / 2;
            fx->fault_depth = w & 0x3FFF;
            w -= 2;
            buf[off] = (unsigned char)(w & 0xFF);
            buf[off + 1] = (unsigned char)(w >> 8);
            planted = 0;
            break;
        }
    }
    if (planted == 0)
        ma_test_spit(path, buf, len);
    free(buf);
    /* the producer's digest of the wrong value (docs/format.md §5.1): a fault of the solver; with
     * the old digest left the file would be damaged (docs/download.md), not wrong */
    char cmd[1400];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib,sys\np=sys.argv[1]\nb=bytearray(open(p,\"rb\").read())\n"
             "if any(b[80:112]): b[80:112]=hashlib.sha256(b[128:]).digest()\nopen(p,\"r+b\").write(b)' '%s'",
             path);
    if (planted == 0 && system(cmd) != 0)
        planted = -1;
    return planted;
}

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_api_verify_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->good, sizeof fx->good, "%s/good", fx->dir);
    snprintf(fx->bad, sizeof fx->bad, "%s/bad", fx->dir);
    if (ma_test_solve_std_game(fx->good, 3) != 0 || ma_test_solve_std_game(fx->bad, 3) != 0 || plant_fault(fx))
        return -1;
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *fx = *state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    int rc = system(cmd);
    free(fx);
    return rc == 0 ? 0 : -1;
}

static ma_vrun_options options(const char *root, const char *store, unsigned shard, unsigned shards)
{
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = root;
    o.threads = 2;
    o.max_rows = 100;
    o.audit_path = store;
    o.shard_index = shard;
    o.shard_count = shards;
    o.host = "api-test";
    o.command_line = "test_api_verify";
    o.tool_version = "test";
    o.git_revision = "test";
    return o;
}

/* A run that completes (whatever it finds); the caller frees it. */
static ma_vrun *run_ok(const ma_vrun_options *o)
{
    ma_vrun *r = NULL;
    ma_error err;
    ma_error_clear(&err);
    assert_int_equal(ma_vrun_create(&r, o, &err), MA_OK);
    if (ma_vrun_execute(r, &err) != MA_OK)
        fail_msg("run of %s failed: %s", o->root, err.msg);
    assert_string_equal(ma_vrun_phase(r), "done");
    assert_false(ma_vrun_record_failed(r));
    return r;
}

static const ma_vrun_sector *find_sector(const ma_vrun *r, const char *name)
{
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++)
        if (!strcmp(ma_vrun_sector_at(r, i)->name, name))
            return ma_vrun_sector_at(r, i);
    return NULL;
}

static void store_path(const fixture *fx, char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", fx->dir, name);
}

static void test_solved_database_is_verified(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx->good, NULL, 0, 0);
    ma_vrun *r = run_ok(&o);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    assert_int_equal(ma_vrun_format(r), MA_FORMAT_OPEN);
    assert_int_equal(ma_vrun_sector_count(r), 7);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_int_equal(t->sectors, 7);
    assert_int_equal(t->discrepancies, 0);
    assert_true(t->entries > 0);
    assert_int_equal(t->verified + t->within_bounds + t->missing_child + t->unverifiable, t->checked);
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(r, i);
        assert_int_equal(s->status, MA_SECTOR_OK);
        assert_int_equal(s->body_digest, 1);
    }
    assert_int_equal(ma_vrun_error_count(r), 0);
    ma_vrun_free(r);
}

static void test_planted_fault_is_a_root_discrepancy(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o = options(fx->bad, NULL, 0, 0);
    ma_vrun *r = run_ok(&o);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    const ma_vrun_totals *t = ma_vrun_totals_of(r);
    assert_true(t->roots >= 1);
    assert_int_equal(t->roots + t->propagated, t->discrepancies);
    /* the producer's own digest of its wrong value: nothing is damaged, the values are wrong */
    assert_int_equal(t->body_digest_mismatches, 0);
    assert_int_equal(t->files_damaged, 0);
    assert_int_equal(ma_vrun_integrity_of(r)->n_damaged, 0);
    const ma_vrun_sector *s = find_sector(r, FAULT_SECTOR);
    assert_non_null(s);
    assert_int_equal(s->status, MA_SECTOR_DISCREPANCIES);
    assert_int_equal(s->body_digest, 1);
    const ma_vrun_row *hit = NULL;
    for (size_t k = 0; k < s->n_rows; k++)
        if (s->rows[k].entry == fx->fault_entry)
            hit = &s->rows[k];
    assert_non_null(hit);
    assert_int_equal(hit->offset, fx->fault_offset);
    assert_true(hit->root);
    assert_int_equal(hit->cls, MA_DISC_WRONG_DEPTH);
    assert_string_equal(ma_disc_class_name(hit->cls), "wrong-depth");
    assert_int_equal(hit->stored.value.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(hit->stored.value.depth, fx->fault_depth - 2);
    assert_int_equal(hit->derived_kind, 0);
    assert_int_equal(hit->derived.outcome, MA_OUTCOME_LOSS);
    assert_int_equal(hit->derived.depth, fx->fault_depth);
    /* every other sector's discrepancies are propagated from it, never roots */
    for (size_t i = 0; i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *x = ma_vrun_sector_at(r, i);
        if (x != s)
            assert_int_equal(x->roots, 0);
    }
    /* the JSON document says the same (reports/render/, the one writer) */
    char *doc = NULL;
    size_t doc_len = 0;
    FILE *out = open_memstream(&doc, &doc_len);
    assert_non_null(out);
    ma_render_verify_json(out, r, NULL, 0, 1);
    fclose(out);
    assert_non_null(strstr(doc, "\"verdict\":\"discrepancies\""));
    assert_non_null(strstr(doc, "\"sector\":\"" FAULT_SECTOR "\""));
    free(doc);
    ma_vrun_free(r);
}

static void test_shard_plan_and_merge_equal_a_single_run(void **state)
{
    fixture *fx = *state;
    ma_error err;
    ma_error_clear(&err);
    ma_shard_plan p;
    const ma_shard_plan_options po = {fx->bad, 2};
    assert_int_equal(ma_shard_plan_run(&p, &po, &err), MA_OK);
    assert_int_equal(p.n_shards, 2);
    assert_int_equal(p.n_sectors, 7);
    assert_int_equal(p.format, MA_FORMAT_OPEN);
    assert_int_equal(p.n_unusable, 0);
    assert_int_equal(p.shards[0].sectors + p.shards[1].sectors, 7);
    assert_int_equal(p.shards[0].entries + p.shards[1].entries, p.total_entries);
    assert_true(p.shards[0].sectors > 0 && p.shards[1].sectors > 0);
    assert_true(p.imbalance >= 1.0);

    char single[400], shard0[400], shard1[400], merged[400];
    store_path(fx, single, sizeof single, "single.sqlite");
    store_path(fx, shard0, sizeof shard0, "shard0.sqlite");
    store_path(fx, shard1, sizeof shard1, "shard1.sqlite");
    store_path(fx, merged, sizeof merged, "merged.sqlite");
    ma_vrun_options o = options(fx->bad, single, 0, 0);
    ma_vrun *whole = run_ok(&o);
    const char *stores[2] = {shard0, shard1};
    for (unsigned k = 0; k < 2; k++) {
        o = options(fx->bad, stores[k], k, 2);
        ma_vrun *r = run_ok(&o);
        assert_int_equal(ma_vrun_planned_sectors(r), 7);
        assert_int_equal(ma_vrun_sector_count(r) >= p.shards[k].sectors, 1); /* its part, plus successors */
        assert_int_equal(ma_vrun_totals_of(r)->sectors, p.shards[k].sectors);
        assert_int_equal(ma_vrun_totals_of(r)->entries, p.shards[k].entries);
        ma_vrun_free(r);
    }
    ma_shard_plan_free(&p);

    ma_merge_options mo;
    memset(&mo, 0, sizeof mo);
    mo.out_path = merged;
    mo.shards = stores;
    mo.n_shards = 2;
    mo.host = "api-test";
    mo.command_line = "test_api_verify merge";
    ma_merge_result m;
    if (ma_merge_runs(&m, &mo, &err) != MA_OK)
        fail_msg("merge failed: %s", err.msg);
    assert_true(m.run_id > 0);
    assert_int_equal(m.shard_count, 2);
    assert_int_equal(m.n_shards, 2);
    assert_int_equal(m.n_missing, 0);
    assert_false(m.partial);
    assert_int_equal(m.planned, 7);
    assert_int_equal(m.uncovered, 0);
    assert_int_equal(m.verdict, ma_vrun_verdict_of(whole));
    const ma_vrun_totals *a = ma_vrun_totals_of(whole), *b = &m.totals;
    assert_int_equal(b->sectors, a->sectors);
    assert_int_equal(b->entries, a->entries);
    assert_int_equal(b->checked, a->checked);
    assert_int_equal(b->verified, a->verified);
    assert_int_equal(b->discrepancies, a->discrepancies);
    assert_int_equal(b->roots, a->roots);
    assert_int_equal(b->propagated, a->propagated);
    assert_int_equal(b->body_digest_mismatches, a->body_digest_mismatches);
    for (int k = 0; k < MA_DISC_CLASSES; k++)
        assert_int_equal(b->by_class[k], a->by_class[k]);
    ma_merge_result_free(&m);
    ma_vrun_free(whole);

    /* a store given twice is refused, nothing written */
    char again[400];
    store_path(fx, again, sizeof again, "again.sqlite");
    const char *twice[2] = {shard0, shard0};
    mo.out_path = again;
    mo.shards = twice;
    ma_error_clear(&err);
    assert_int_equal(ma_merge_runs(&m, &mo, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "shard0.sqlite"));
    assert_int_not_equal(access(again, F_OK), 0);
}

static void test_bad_input_is_refused(void **state)
{
    fixture *fx = *state;
    ma_error err;
    ma_error_clear(&err);
    ma_vrun *r = NULL;
    ma_vrun_options o = options(fx->good, NULL, 0, 0);
    o.threads = -1;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    assert_null(r);
    assert_string_equal(err.msg, "threads -1: expected 0 (every online CPU) or more");
    o = options(fx->good, NULL, 0, 0);
    o.full_board_draw = 2;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    assert_string_equal(err.msg, "full_board_draw 2: expected 0 (default), MA_YES or MA_NO");
    o = options(fx->good, NULL, 2, 2); /* shard index out of range */
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    o = options(fx->good, NULL, 0, 0);
    o.mode = MA_VRUN_RESUME; /* nothing to resume from without a store */
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_EINVAL);
    /* the library's words: its options fields, never the command's options */
    assert_string_equal(err.msg, "a resumed run needs an audit store (audit_path: the store holds what is "
                                 "carried over)");

    char missing[400];
    store_path(fx, missing, sizeof missing, "nowhere");
    o = options(missing, NULL, 0, 0);
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "nowhere"));
    assert_int_not_equal(ma_vrun_verdict_of(r), MA_VERDICT_VERIFIED);
    ma_vrun_free(r);

    ma_shard_plan p;
    const ma_shard_plan_options gone = {missing, 2};
    assert_int_equal(ma_shard_plan_run(&p, &gone, &err), MA_EMISSING);
    assert_int_equal(p.n_sectors, 0);
    ma_shard_plan_free(&p);
}

/* Zero means the default in every field: a run of options zeroed but for the root checks with
 * every online CPU, keeps 1000 rows, counts a full Morabaraba board a draw and records this
 * library's version; the words it gives are those of the options. A run runs once: a second
 * execute is refused with a message and leaves the first run's results as they were. */
static void test_zeroed_options_are_the_defaults_and_a_run_runs_once(void **state)
{
    fixture *fx = *state;
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = fx->bad;
    ma_vrun *r = NULL;
    ma_error err;
    ma_error_clear(&err);
    ma_progress *progress = NULL; /* a display that counts and never draws */
    assert_int_equal(ma_progress_create(&progress, NULL, "verify", &err), MA_OK);
    o.progress = progress;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    const ma_vrun_options *got = ma_vrun_options_of(r);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    assert_int_equal(got->threads, cpus < 1 ? 1 : cpus > 256 ? 256 : cpus);
    assert_int_equal(got->max_rows, 1000);
    assert_int_equal(got->full_board_draw, 1);
    assert_string_equal(got->tool_version, MILLAUDIT_VERSION);
    assert_string_equal(got->tool_version, ma_version());
    assert_int_equal(ma_vrun_execute(r, &err), MA_OK);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    assert_int_equal(ma_result_exit_code(ma_vrun_result(r, MA_OK)), MA_EXIT_MISMATCH);
    const ma_vrun_totals first = *ma_vrun_totals_of(r);
    assert_int_equal(first.sectors, 7);
    assert_true(first.discrepancies > 0);
    size_t rows = find_sector(r, FAULT_SECTOR)->n_rows;
    assert_true(rows > 0);
    assert_int_equal(ma_progress_count(progress), first.checked); /* the engine counted its entries */

    ma_error_clear(&err);
    assert_int_equal(ma_vrun_execute(r, &err), MA_EINVAL);
    assert_int_equal(err.code, MA_EINVAL);
    assert_string_equal(err.msg, "this run was already executed: a run checks once (create another run to "
                                 "check again)");
    assert_memory_equal(ma_vrun_totals_of(r), &first, sizeof first);
    assert_int_equal(ma_vrun_sector_count(r), 7);
    assert_int_equal(find_sector(r, FAULT_SECTOR)->n_rows, rows);
    assert_int_equal(ma_vrun_verdict_of(r), MA_VERDICT_DISCREPANCIES);
    assert_string_equal(ma_vrun_phase(r), "done");
    ma_vrun_free(r);
    ma_progress_free(progress);
    o.progress = NULL;

    /* MA_KEEP_NONE keeps no row; the counts stay exact */
    o.max_rows = MA_KEEP_NONE;
    o.threads = 1;
    r = run_ok(&o);
    assert_int_equal(ma_vrun_options_of(r)->max_rows, 0);
    assert_int_equal(find_sector(r, FAULT_SECTOR)->n_rows, 0);
    assert_int_equal(ma_vrun_totals_of(r)->discrepancies, first.discrepancies);
    ma_vrun_free(r);

    /* the shard plan: 0 shards is one shard */
    ma_shard_plan p;
    const ma_shard_plan_options one = {fx->good, 0};
    assert_int_equal(ma_shard_plan_run(&p, &one, &err), MA_OK);
    assert_int_equal(p.n_shards, 1);
    assert_int_equal(p.n_sectors, 7);
    assert_int_equal(p.shards[0].sectors, 7);
    ma_shard_plan_free(&p);
}

/* Every release function accepts NULL (a program frees whatever it got, also after a failure). */
static void test_release_functions_accept_null(void **state)
{
    (void)state;
    ma_vrun_free(NULL);
    ma_shard_plan_free(NULL);
    ma_merge_result_free(NULL);
    ma_manifest_check_free(NULL);
    ma_manifest_merged_info_free(NULL);
    ma_stats_report_free(NULL);
    ma_diff_report_free(NULL);
    ma_probe_report_free(NULL);
    ma_opening_proof_free(NULL);
    ma_grading_free(NULL);
    ma_audit_free(NULL);
    ma_run_list_free(NULL);
    ma_store_run_free(NULL);
    ma_store_compare_free(NULL);
    ma_store_regressions_free(NULL);
    ma_store_report_free(NULL);
    ma_ed25519_key_free(NULL);
    ma_attest_created_free(NULL);
    ma_store_attest_check_free(NULL);
    ma_progress_free(NULL);
    ma_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solved_database_is_verified),
        cmocka_unit_test(test_planted_fault_is_a_root_discrepancy),
        cmocka_unit_test(test_shard_plan_and_merge_equal_a_single_run),
        cmocka_unit_test(test_bad_input_is_refused),
        cmocka_unit_test(test_zeroed_options_are_the_defaults_and_a_run_runs_once),
        cmocka_unit_test(test_release_functions_accept_null),
    };
    return ma_test_run_group(tests, group_setup, group_teardown);
}
