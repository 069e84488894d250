/*
 * Unit tests of verifier/diff: source naming and pairing order, and position comparison on real
 * Malom files (../shared/fixtures/malom) and edited copies of them.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/unit/support.h"

#include "verifier/diff.h"

#define SEC33_ENTRIES 210140 /* hash_count(3, 3) */

typedef struct ctx {
    char fixtures[512]; /* .../shared/fixtures/malom, "" when absent */
    char tmp[256];
    ma_open_index *oix;
    ma_malom_index *mix;
} ctx;

static int setup(void **state)
{
    ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    ma_test_fixture_dir(c->fixtures, sizeof c->fixtures);
    snprintf(c->tmp, sizeof c->tmp, "/tmp/test_diff.XXXXXX");
    if (!mkdtemp(c->tmp))
        return -1;
    ma_error err;
    if (ma_open_index_create(&c->oix, &err) || ma_malom_index_create(&c->mix, &err))
        return -1;
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    ctx *c = *state;
    ma_test_tmpdir_remove(c->tmp);
    ma_open_index_free(c->oix);
    ma_malom_index_free(c->mix);
    free(c);
    return 0;
}

static void source(ma_diff_source *s, const char *path)
{
    ma_error err;
    assert_int_equal(ma_diff_source_parse(s, path, &err), MA_OK);
}

static void test_source_names(void **state)
{
    (void)state;
    ma_diff_source s;
    ma_error err;
    assert_int_equal(ma_diff_source_parse(&s, "/x/std_3_4_0_0.mdb", &err), MA_OK);
    assert_int_equal(s.format, MA_DIFF_OPEN);
    assert_int_equal(s.variant, MA_VARIANT_STD);
    assert_int_equal(s.sector.b, 4);
    assert_int_equal(ma_diff_source_parse(&s, "lask_1_2_9_8.sec2", &err), MA_OK);
    assert_int_equal(s.format, MA_DIFF_SEC2);
    assert_int_equal(s.sector.wf, 9);
    assert_int_equal(ma_diff_source_parse(&s, "mora_3_3_0_0.sec", &err), MA_OK);
    assert_int_equal(s.format, MA_DIFF_SEC);
    assert_int_equal(ma_diff_source_parse(&s, "std.secval", &err), MA_EINVAL);
    assert_non_null(strstr(err.msg, "std.secval"));
    assert_int_equal(ma_diff_source_parse(&s, "std_3_3_0_0.txt", &err), MA_EINVAL);
    assert_int_equal(ma_diff_source_parse(&s, "foo_3_3_0_0.mdb", &err), MA_EINVAL);
}

static void test_sources_of_directory(void **state)
{
    ctx *c = *state;
    const char *names[] = {"std_4_3_0_0.sec", "std_3_3_0_0.sec", "std_3_3_0_0.mdb",
                           "std.secval", "notes.txt", "std_3_4_0_0.sec2", "std_3_4_0_0.sec"};
    char p[600];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", c->tmp, names[i]);
        ma_test_spit(p, (const unsigned char *)"", 0);
    }
    ma_diff_source *list;
    size_t n;
    ma_error err;
    assert_int_equal(ma_diff_sources(&list, &n, c->tmp, &err), MA_OK);
    assert_int_equal(n, 3); /* one per sector, in sector order, preferred format kept */
    assert_int_equal(list[0].sector.w, 3);
    assert_int_equal(list[0].sector.b, 3);
    assert_int_equal(list[0].format, MA_DIFF_OPEN);
    assert_int_equal(list[1].sector.b, 4);
    assert_int_equal(list[1].format, MA_DIFF_SEC2);
    assert_int_equal(list[2].sector.w, 4);
    assert_int_equal(list[2].format, MA_DIFF_SEC);
    free(list);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", c->tmp, names[i]);
        unlink(p);
    }
    assert_int_equal(ma_diff_sources(&list, &n, c->tmp, &err), MA_EFORMAT);
    snprintf(p, sizeof p, "%s/absent", c->tmp);
    assert_int_equal(ma_diff_sources(&list, &n, p, &err), MA_EMISSING);
}

static void compare(ctx *c, const char *pa, const char *pb, unsigned threads, int full,
                    ma_diff_result *r)
{
    ma_diff_source a, b;
    source(&a, pa);
    source(&b, pb);
    ma_diff_options opt = {threads, 4, full};
    ma_error err;
    int rc = ma_diff_compare(r, &a, &b, c->oix, c->mix, &opt, &err);
    if (rc)
        fail_msg("%s", err.msg);
}

static void test_identical_and_full(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char a[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    ma_diff_result r;
    compare(c, a, a, 2, 0, &r);
    assert_true(r.identical);
    assert_int_equal(r.positions, 0);
    ma_diff_result_free(&r);
    compare(c, a, a, 2, 1, &r);
    assert_false(r.identical);
    assert_true(r.positions > 0 && r.positions < SEC33_ENTRIES);
    for (int k = 0; k < MA_DIFF_CLASSES; k++)
        assert_int_equal(r.counts[k], 0);
    assert_int_equal(r.n_examples, 0);
    ma_diff_result_free(&r);
}

/* Edits one byte of a copy of std_3_3_0_0.sec and diffs it against the original. */
static void edited_sec(ctx *c, int (*pick)(int byte), int delta, unsigned threads,
                       ma_diff_result *r, size_t *at)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    snprintf(b, sizeof b, "%s/std_3_3_0_0.sec", c->tmp);
    size_t len;
    unsigned char *data = ma_test_slurp(a, &len);
    size_t i = 1000;
    while (i < SEC33_ENTRIES && !pick(data[i]))
        i++;
    assert_true(i < SEC33_ENTRIES);
    data[i] = (unsigned char)(data[i] + delta);
    ma_test_spit(b, data, len);
    free(data);
    *at = i;
    compare(c, a, b, threads, 0, r);
}

static int odd_win(int byte) { return byte % 2 == 1 && byte < 170; }
static int counter(int byte) { return byte >= 196 && byte <= 254; }
static int even_loss(int byte) { return byte % 2 == 0 && byte < 170; }

static void test_depth_change_found(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    for (unsigned threads = 1; threads <= 3; threads++) {
        ma_diff_result r;
        size_t at;
        edited_sec(c, odd_win, 2, threads, &r, &at);
        assert_int_equal(r.counts[MA_DIFF_DEPTH], 1);
        assert_int_equal(r.counts[MA_DIFF_OUTCOME], 0);
        assert_int_equal(r.counts[MA_DIFF_ENCODING], 0);
        assert_int_equal(r.n_examples, 1);
        assert_int_equal(r.examples[0].cls, MA_DIFF_DEPTH);
        assert_int_equal(r.examples[0].entry_a, at);
        assert_int_equal(r.examples[0].entry_b, at);
        int da = -1, db = -1;
        assert_int_equal(sscanf(r.examples[0].value_a, "win %d", &da), 1);
        assert_int_equal(sscanf(r.examples[0].value_b, "win %d", &db), 1);
        assert_int_equal(db, da + 2);
        ma_diff_result_free(&r);
    }
}

static void test_outcome_change_found(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_diff_result r;
    size_t at;
    edited_sec(c, even_loss, 1, 2, &r, &at); /* loss in x -> win in x+1 */
    assert_int_equal(r.counts[MA_DIFF_OUTCOME], 1);
    assert_int_equal(r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(r.examples[0].entry_a, at);
    assert_memory_equal(r.examples[0].value_a, "loss ", 5);
    assert_memory_equal(r.examples[0].value_b, "win ", 4);
    ma_diff_result_free(&r);
}

static void test_counter_change_is_encoding(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    ma_diff_result r;
    size_t at;
    edited_sec(c, counter, 1, 2, &r, &at);
    assert_int_equal(r.counts[MA_DIFF_OUTCOME] + r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(r.counts[MA_DIFF_ENCODING], 1);
    assert_int_equal(r.examples[0].cls, MA_DIFF_ENCODING);
    assert_int_equal(r.examples[0].entry_a, at);
    assert_memory_equal(r.examples[0].value_a, "count ", 6);
    ma_diff_result_free(&r);
}

static void test_across_formats(void **state)
{
    ctx *c = *state;
    MA_TEST_NEED_FIXTURES(c->fixtures);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/std-strong/std_3_3_0_0.sec", c->fixtures);
    snprintf(b, sizeof b, "%s/std-ultra-stonediff/std_3_3_0_0.sec2", c->fixtures);
    ma_diff_result r;
    compare(c, a, b, 2, 0, &r);
    assert_false(r.draw_class_compared);
    assert_int_equal(r.counts[MA_DIFF_OUTCOME] + r.counts[MA_DIFF_DEPTH], 0);
    assert_int_equal(r.counts[MA_DIFF_ENCODING], r.positions); /* another format throughout */
    uint64_t positions = r.positions;
    ma_diff_result_free(&r);
    compare(c, b, a, 1, 0, &r);
    assert_int_equal(r.positions, positions);
    ma_diff_result_free(&r);
}

static void test_other_sector_refused(void **state)
{
    ctx *c = *state;
    ma_diff_source a, b;
    source(&a, "/x/std_3_3_0_0.sec");
    source(&b, "/x/std_3_4_0_0.sec");
    ma_diff_options opt = {1, 4, 0};
    ma_diff_result r;
    ma_error err;
    assert_int_equal(ma_diff_compare(&r, &a, &b, c->oix, c->mix, &opt, &err), MA_EINVAL);
    source(&b, "/x/lask_3_3_0_0.sec");
    assert_int_equal(ma_diff_compare(&r, &a, &b, c->oix, c->mix, &opt, &err), MA_EINVAL);
    source(&b, "/x/nonexistent/std_3_3_0_0.sec");
    assert_int_equal(ma_diff_compare(&r, &a, &b, c->oix, c->mix, &opt, &err), MA_EMISSING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_names),
        cmocka_unit_test(test_sources_of_directory),
        cmocka_unit_test(test_identical_and_full),
        cmocka_unit_test(test_depth_change_found),
        cmocka_unit_test(test_outcome_change_found),
        cmocka_unit_test(test_counter_change_is_encoding),
        cmocka_unit_test(test_across_formats),
        cmocka_unit_test(test_other_sector_refused),
    };
    return ma_test_run_group(tests, setup, teardown);
}
