/*
 * Unit tests for verifier/run/probe: on the whole 3-stone std game (written by `millaudit solve`, read
 * only through files) the best turn's value equals the stored value of every probed position,
 * symmetric images give the same entry, absent and unusable successors make turns unknown, and
 * bad positions are refused; on Malom's std-strong files (../shared/fixtures) a test vector.
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

#include "verifier/formats/malom_file.h"
#include "indexer/open_index.h"
#include "support.h"
#include "verifier/check/check.h"
#include "verifier/run/probe.h"

typedef struct fixture {
    char dir[256];
    char db[300];
} fixture;

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_probe_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->db, sizeof fx->db, "%s/db", fx->dir);
    if (ma_test_solve_std_game(fx->db, 3) != 0)
        return -1;
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *fx = *state;
    ma_test_tmpdir_remove(fx->dir);
    free(fx);
    return 0;
}

static ma_database *open_db(const char *path)
{
    ma_database *db;
    ma_error err;
    if (ma_database_open(&db, path, NULL, &err) != MA_OK)
        fail_msg("%s", err.msg);
    return db;
}

static ma_board board(const char *text)
{
    ma_board b;
    ma_error err;
    if (ma_board_parse(text, &b, &err))
        fail_msg("%s", err.msg);
    return b;
}

/* verification-theory.md: a correct database stores the best turn's value at every position. */
static void test_best_turn_is_the_stored_value(void **state)
{
    fixture *fx = *state;
    ma_database *db = open_db(fx->db);
    size_t probed = 0;
    for (size_t i = 0; i < ma_database_count(db); i++) {
        const ma_db_sector *d = ma_database_sector(db, i);
        const ma_source *src;
        ma_error err;
        assert_int_equal(ma_database_source(db, d->variant, d->sector, &src, &err), MA_OK);
        uint64_t n = ma_source_entries(src), step = n / 40 + 1;
        for (uint64_t e = 0; e < n; e += step) {
            if (!ma_source_canonical(src, e))
                continue;
            ma_board pos = ma_source_board(src, e);
            ma_probe_result r;
            int rc = ma_probe_position(&r, db, d->variant, pos, d->sector.wf, d->sector.bf, &err);
            if (rc)
                fail_msg("%s", err.msg);
            assert_int_equal(r.entry, e);
            assert_int_equal(r.offset, 128 + 2 * e);
            assert_true(r.value.known);
            assert_int_equal(r.n_unusable, 0);
            if (r.n_rows == 0) { /* no turn: a loss in 0 */
                assert_int_equal(r.value.value.outcome, MA_OUTCOME_LOSS);
                assert_int_equal(r.value.value.depth, 0);
            } else {
                assert_true(r.rows[0].v.known);
                assert_int_equal(r.rows[0].v.value.outcome, r.value.value.outcome);
                assert_int_equal(r.rows[0].v.value.depth, r.value.value.depth);
                assert_string_equal(r.rows[0].v.text, r.value.text);
            }
            for (int k = 1; k < r.n_rows; k++) /* best first */
                assert_true(ma_check_value_score(r.rows[k - 1].v.value) >=
                            ma_check_value_score(r.rows[k].v.value));
            ma_probe_result_free(&r);
            probed++;
        }
        ma_database_release(db, d->variant, d->sector);
    }
    assert_true(probed > 100);
    ma_database_close(db);
}

static void test_symmetric_images_and_wins_by_reduction(void **state)
{
    fixture *fx = *state;
    ma_database *db = open_db(fx->db);
    /* a1-d1-g1 closes by a7 flying to d1 (or d1 flies to a4 for a1-a4-a7): the opponent keeps
     * 2 stones, so each removal is its own immediate win */
    ma_board b = board("a1,d1,a7/b2,b4,b6");
    ma_probe_result r, q;
    ma_error err;
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, b, 0, 0, &err), MA_OK);
    assert_int_equal(r.value.value.outcome, MA_OUTCOME_WIN);
    assert_int_equal(r.value.value.depth, 1);
    int immediate = 0;
    for (int k = 0; k < r.n_rows; k++)
        if (r.rows[k].turn.immediate_win) {
            immediate++;
            assert_int_equal(r.rows[k].v.value.outcome, MA_OUTCOME_WIN);
            assert_int_equal(r.rows[k].v.value.depth, 1);
            assert_true(k < 6); /* they come first */
        }
    assert_int_equal(immediate, 6);
    for (int op = 1; op < MA_SYM_OPS; op++) {
        assert_int_equal(ma_probe_position(&q, db, MA_VARIANT_STD, ma_open_sym_apply(op, b), 0, 0, &err),
                         MA_OK);
        assert_int_equal(q.entry, r.entry);
        assert_string_equal(q.stored_text, r.stored_text);
        assert_int_equal(q.n_rows, r.n_rows);
        ma_probe_result_free(&q);
    }
    ma_probe_result_free(&r);
    ma_database_close(db);
}

static void test_refusals_and_unknown_successors(void **state)
{
    fixture *fx = *state;
    ma_database *db = open_db(fx->db);
    ma_probe_result r;
    ma_error err;
    /* std has no sector with 9 stones in hand besides 3 on the board */
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, board("a1/b2"), 9, 9, &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "not a sector of std"));
    /* a sector this 3-stone game does not have: absent, named */
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, board("a1,d1,g1,b2/a7,b4,b6"), 0, 0, &err),
                     MA_EMISSING);
    assert_non_null(strstr(err.msg, "std_4_3_0_0.mdb: sector std_4_3_0_0: sector file absent"));
    ma_database_close(db);

    /* a copy without 3_3_0_0 (absent successor), then with it truncated (unusable successor) */
    char copy[400], cmd[1400], victim[500];
    snprintf(copy, sizeof copy, "%s/copy", fx->dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s' '%s'", copy, fx->db, copy);
    assert_int_equal(system(cmd), 0);
    snprintf(victim, sizeof victim, "%s/std_3_3_0_0.mdb", copy);
    size_t len;
    unsigned char *data = ma_test_slurp(victim, &len);
    assert_int_equal(unlink(victim), 0);
    /* 2 stones and one in hand against 3: placing d1 closes a1-d1-g1 and wins at once (the
     * opponent keeps 2); every other placement leads to 3_3_0_0 */
    ma_board pos = board("a1,g1/b2,b4,f6");
    db = open_db(copy);
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, pos, 1, 0, &err), MA_OK);
    int unknown = 0;
    for (int k = 0; k < r.n_rows; k++)
        if (!r.rows[k].v.known) {
            unknown++;
            assert_non_null(strstr(r.rows[k].v.why, "successor sector std_3_3_0_0 absent"));
            assert_string_equal(r.rows[k].v.text, "unknown");
        } else {
            assert_int_equal(unknown, 0); /* known turns first */
        }
    assert_true(unknown > 0);
    assert_int_equal(r.n_unusable, 0);
    ma_probe_result_free(&r);
    ma_database_close(db);
    ma_test_spit(victim, data, len - 2);
    free(data);
    db = open_db(copy);
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, pos, 1, 0, &err), MA_OK);
    assert_int_equal(r.n_unusable, 1);
    assert_non_null(strstr(r.unusable[0], "std_3_3_0_0.mdb"));
    assert_non_null(strstr(r.rows[r.n_rows - 1].v.why, "std_3_3_0_0 unusable"));
    ma_probe_result_free(&r);
    ma_database_close(db);
}

static void test_malom_vector(void **state)
{
    (void)state;
    char fixtures[512], dir[600];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    snprintf(dir, sizeof dir, "%s/std-strong", fixtures);
    ma_database *db = open_db(dir);
    ma_probe_result r;
    ma_error err;
    /* malom-test-vectors.tsv: std 3_3_0_0 index 4073 is a win in 3 */
    assert_int_equal(ma_probe_position(&r, db, MA_VARIANT_STD, board("a4,a7,a1/b4,b6,b2"), 0, 0, &err),
                     MA_OK);
    assert_int_equal(r.format, MA_FORMAT_SEC);
    assert_int_equal(r.entry, 4073);
    assert_int_equal(r.value.value.outcome, MA_OUTCOME_WIN);
    assert_int_equal(r.value.value.depth, 3);
    assert_true(r.value.has_keys);
    assert_memory_equal(r.stored_text, "win 3 (key1 ", 12);
    assert_string_equal(r.rows[0].v.text, "win 3");
    for (int k = 1; k < r.n_rows; k++) {
        ma_malom_value a = {r.rows[k - 1].v.key1, r.rows[k - 1].v.key2};
        ma_malom_value b = {r.rows[k].v.key1, r.rows[k].v.key2};
        assert_true(ma_malom_value_cmp(a, b) >= 0);
    }
    const ma_source *src;
    uint64_t entry;
    ma_stored st;
    assert_int_equal(ma_probe_lookup(db, MA_VARIANT_STD, board("a1,a4,a7/b2,b4,b6"), 0, 0, &src, &entry,
                                     &st, &err),
                     MA_OK);
    assert_int_equal(entry, 4073);
    assert_int_equal(st.value.depth, 3);
    ma_probe_result_free(&r);
    ma_database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_best_turn_is_the_stored_value),
        cmocka_unit_test(test_symmetric_images_and_wins_by_reduction),
        cmocka_unit_test(test_refusals_and_unknown_successors),
        cmocka_unit_test(test_malom_vector),
    };
    return ma_test_run_group(tests, group_setup, group_teardown);
}
