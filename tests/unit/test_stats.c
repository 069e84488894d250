/*
 * Unit tests for verifier/run/stats: counts of hand-made open sectors whose values and orbit sizes are
 * known (docs/format.md §4.4: std 0_1_3_2 has 24 entries, canonical 0, 1, 3, 4 with orbits
 * 8, 8, 4, 4), bad entries, merging, sector picks and unusable files, and Malom's .analyze figures
 * on the std-strong fixture.
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

#include "support.h"
#include "verifier/run/stats.h"

typedef struct fixture {
    char dir[256];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_stats_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    ma_test_tmpdir_remove(fx->dir);
    free(fx);
    return 0;
}

/* Writes an open-format std file of sector (w, b, wf, bf) holding words[0..n). */
static void write_open(const fixture *fx, int w, int b, int wf, int bf, const uint16_t *words, size_t n)
{
    uint8_t *buf = calloc(1, 128 + 2 * n);
    assert_non_null(buf);
    memcpy(buf, "\x89MILL\r\n\x1a", 8);
    buf[8] = 1;
    buf[10] = 128;
    buf[12] = 1; /* std */
    buf[14] = (uint8_t)w;
    buf[15] = (uint8_t)b;
    buf[16] = (uint8_t)wf;
    buf[17] = (uint8_t)bf;
    buf[18] = 2;
    buf[19] = 1;
    buf[20] = 1;
    buf[22] = 1;
    buf[24] = (uint8_t)n;
    for (size_t e = 0; e < n; e++) {
        buf[128 + 2 * e] = (uint8_t)(words[e] & 0xFF);
        buf[128 + 2 * e + 1] = (uint8_t)(words[e] >> 8);
    }
    char p[512];
    snprintf(p, sizeof p, "%s/std_%d_%d_%d_%d.mdb", fx->dir, w, b, wf, bf);
    ma_test_spit(p, buf, 128 + 2 * n);
    free(buf);
}

/* win 1, loss 0, draw, loss 16 at the canonical entries 0, 1, 3, 4 */
static const uint16_t SECTOR_0132[24] = {[0] = 0xC001, [1] = 0x4000, [3] = 0x8000, [4] = 0x4010};

static ma_database *open_db(const char *path)
{
    ma_database *db;
    ma_error err;
    if (ma_database_open(&db, path, NULL, &err) != MA_OK)
        fail_msg("%s", err.msg);
    return db;
}

static const ma_stats_bin *bin_at(const ma_stats_tally *t, unsigned depth)
{
    for (size_t i = 0; i < t->n_bins; i++)
        if (t->bins[i].depth == depth)
            return &t->bins[i];
    return NULL;
}

static void test_counts_per_entry_and_per_position(void **state)
{
    fixture *fx = *state;
    write_open(fx, 0, 1, 3, 2, SECTOR_0132, 24);
    ma_database *db = open_db(fx->dir);
    const ma_source *src;
    ma_error err;
    ma_sector s = {0, 1, 3, 2};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s, &src, &err), MA_OK);
    ma_stats_tally t;
    assert_int_equal(ma_stats_tally_source(&t, src, 1, NULL, &err), MA_OK);
    assert_int_equal(t.entries, 24);
    assert_int_equal(t.canonical, 4);
    assert_int_equal(t.markers, 20);
    assert_int_equal(t.positions, 24); /* 8 + 8 + 4 + 4: every board of the sector once */
    assert_int_equal(t.bad, 0);
    assert_int_equal(t.win_entries, 1);
    assert_int_equal(t.draw_entries, 1);
    assert_int_equal(t.loss_entries, 2);
    assert_int_equal(t.win_positions, 8);
    assert_int_equal(t.draw_positions, 4);
    assert_int_equal(t.loss_positions, 12);
    assert_int_equal(t.longest_win, 1);
    assert_int_equal(t.longest_loss, 16);
    assert_int_equal(t.n_bins, 3);
    const ma_stats_bin *b0 = bin_at(&t, 0), *b1 = bin_at(&t, 1), *b16 = bin_at(&t, 16);
    assert_non_null(b0);
    assert_non_null(b1);
    assert_non_null(b16);
    assert_true(b0->loss_entries == 1 && b0->loss_positions == 8 && b0->win_entries == 0);
    assert_true(b1->win_entries == 1 && b1->win_positions == 8);
    assert_true(b16->loss_entries == 1 && b16->loss_positions == 4);
    assert_false(t.has_akey);

    /* merging into an empty total, twice: every count doubles, bins stay sorted and merged */
    ma_stats_tally total;
    memset(&total, 0, sizeof total);
    total.longest_win = total.longest_loss = -1;
    assert_int_equal(ma_stats_tally_add(&total, &t, &err), MA_OK);
    assert_int_equal(ma_stats_tally_add(&total, &t, &err), MA_OK);
    assert_int_equal(total.positions, 48);
    assert_int_equal(total.n_bins, 3);
    assert_int_equal(bin_at(&total, 16)->loss_positions, 8);
    assert_int_equal(total.longest_loss, 16);
    ma_stats_tally_free(&total);
    ma_stats_tally_free(&t);
    ma_database_close(db);
}

static void test_bad_entries(void **state)
{
    fixture *fx = *state;
    /* entry 0: win in 2 (an even win: no value); entry 2 is non-canonical but holds a word;
     * entry 4: 0x8001 (a draw with a depth) */
    uint16_t words[24] = {[0] = 0xC002, [1] = 0x4000, [2] = 0xC001, [3] = 0x8000, [4] = 0x8001};
    write_open(fx, 0, 1, 3, 2, words, 24);
    ma_database *db = open_db(fx->dir);
    ma_stats st;
    ma_error err;
    assert_int_equal(ma_stats_database(&st, db, NULL, 0, 1, NULL, &err), MA_OK);
    assert_int_equal(st.n, 1);
    assert_int_equal(st.total.bad, 3);
    assert_int_equal(st.total.canonical, 4);
    assert_int_equal(st.total.draw_entries + st.total.loss_entries + st.total.win_entries, 2);
    assert_int_equal(st.total.positions, 24); /* positions do not depend on the bytes */
    ma_stats_free(&st);
    ma_database_close(db);
}

static void test_database_picks_start_and_unusable_files(void **state)
{
    fixture *fx = *state;
    write_open(fx, 0, 1, 3, 2, SECTOR_0132, 24);
    static const uint16_t start[1] = {0xC017}; /* win 23 */
    write_open(fx, 0, 0, 9, 9, start, 1);
    static const uint16_t short_file[3] = {0};
    write_open(fx, 1, 0, 8, 3, short_file, 3); /* 4 entries belong here: unusable when opened */
    ma_database *db = open_db(fx->dir);
    ma_stats st;
    ma_error err;
    assert_int_equal(ma_stats_database(&st, db, NULL, 0, 1, NULL, &err), MA_OK);
    assert_int_equal(st.n, 3);
    assert_string_equal(st.sectors[0].name, "std_0_0_9_9"); /* W, B, WF, BF order */
    assert_string_equal(st.sectors[1].name, "std_0_1_3_2");
    assert_string_equal(st.sectors[2].name, "std_1_0_8_3");
    assert_true(st.sectors[0].is_start);
    assert_int_equal(st.sectors[0].start.value.outcome, MA_OUTCOME_WIN);
    assert_int_equal(st.sectors[0].start.value.depth, 23);
    assert_string_equal(st.sectors[0].start_text, "win 23");
    assert_true(st.sectors[2].unusable);
    assert_non_null(strstr(st.sectors[2].message, "std_1_0_8_3.mdb"));
    assert_int_equal(st.n_unusable, 1);
    assert_int_equal(ma_database_unusable_count(db), 1);
    assert_int_equal(st.total.entries, 25); /* the unusable file counts nothing */
    assert_int_equal(st.total.positions, 25);
    ma_stats_free(&st);

    ma_sector_pick picks[4];
    size_t n = 0;
    assert_int_equal(ma_sector_picks_parse("0_1_3_2", picks, 4, &n, &err), MA_OK);
    assert_int_equal(ma_stats_database(&st, db, picks, n, 2, NULL, &err), MA_OK);
    assert_int_equal(st.n, 1);
    assert_string_equal(st.sectors[0].name, "std_0_1_3_2");
    ma_stats_free(&st);
    assert_int_equal(ma_sector_picks_parse("lask_0_1_3_2", picks, 4, &n, &err), MA_OK);
    assert_int_equal(ma_stats_database(&st, db, picks, n, 2, NULL, &err), MA_EMISSING);
    assert_non_null(strstr(err.msg, "sector lask_0_1_3_2: no file for this sector"));
    ma_database_close(db);
}

static void test_malom_analyze_figures(void **state)
{
    (void)state;
    char fixtures[512], dir[600], analyze[700];
    ma_test_fixture_dir(fixtures, sizeof fixtures);
    MA_TEST_NEED_FIXTURES(fixtures);
    snprintf(dir, sizeof dir, "%s/std-strong", fixtures);
    snprintf(analyze, sizeof analyze, "%s/std_3_3_0_0.analyze", dir);
    /* .analyze: max depth, its board, the marker count, W D L, the histogram's length, ... */
    FILE *f = fopen(analyze, "r");
    assert_non_null(f);
    long max_depth, board, markers, wins, draws, losses;
    assert_int_equal(fscanf(f, "%ld %ld %ld %ld %ld %ld", &max_depth, &board, &markers, &wins, &draws,
                            &losses),
                     6);
    fclose(f);
    ma_database *db = open_db(dir);
    ma_sector_pick picks[1];
    size_t n = 0;
    ma_error err;
    assert_int_equal(ma_sector_picks_parse("3_3_0_0", picks, 1, &n, &err), MA_OK);
    ma_stats st;
    assert_int_equal(ma_stats_database(&st, db, picks, n, 2, NULL, &err), MA_OK);
    const ma_stats_tally *t = &st.sectors[0].t;
    assert_int_equal(st.sectors[0].format, MA_FORMAT_SEC);
    assert_int_equal(t->markers, markers);
    assert_int_equal(t->win_entries, wins);
    assert_int_equal(t->draw_entries, draws);
    assert_int_equal(t->loss_entries, losses);
    assert_int_equal(t->longest_win > t->longest_loss ? t->longest_win : t->longest_loss, max_depth);
    assert_int_equal(t->positions, 2024 * 1330); /* C(24,3) * C(21,3): every board once */
    assert_int_equal(t->bad, 0);
    ma_stats_free(&st);

    /* the counts do not depend on the number of threads */
    const ma_source *src;
    ma_sector s34 = {3, 4, 0, 0};
    assert_int_equal(ma_database_source(db, MA_VARIANT_STD, s34, &src, &err), MA_OK);
    ma_stats_tally one, three;
    assert_int_equal(ma_stats_tally_source(&one, src, 1, NULL, &err), MA_OK);
    assert_int_equal(ma_stats_tally_source(&three, src, 3, NULL, &err), MA_OK);
    assert_int_equal(one.entries, 945630);
    assert_int_equal(three.entries, one.entries);
    assert_int_equal(three.canonical, one.canonical);
    assert_int_equal(three.markers, one.markers);
    assert_int_equal(three.positions, one.positions);
    assert_int_equal(three.positions, 2024 * 5985); /* C(24,3) * C(21,4) */
    assert_int_equal(three.win_entries, one.win_entries);
    assert_int_equal(three.draw_positions, one.draw_positions);
    assert_int_equal(three.longest_win, one.longest_win);
    assert_int_equal(three.n_bins, one.n_bins);
    assert_memory_equal(three.bins, one.bins, one.n_bins * sizeof *one.bins);
    ma_stats_tally_free(&one);
    ma_stats_tally_free(&three);
    ma_database_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_counts_per_entry_and_per_position, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_database_picks_start_and_unusable_files, setup, teardown),
        cmocka_unit_test(test_malom_analyze_figures),
    };
    return ma_test_run_group(tests, NULL, NULL);
}
