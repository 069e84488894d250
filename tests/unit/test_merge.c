/* Unit tests for verifier/run/merge: shard runs of the run engine merged into one run equal a single
 * process's run of the same database field by field (per-sector results with their root/propagated
 * split, every discrepancy row with its root flag and order, discrepancy sets, derived digests,
 * histograms, inputs, manifest, verdict), also when propagation crosses shards and rows are capped;
 * the refusals and partial merges of docs/distributed.md.
 *
 * The database is the reference producer's whole 3-stone standard game with planted faults: in each
 * sector holding losses of depth >= 4, three losses are made two plies shorter, so their parents
 * (often in another shard) derive other values and are propagated discrepancies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "support.h"
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verifier/run/merge.h"
#include "verifier/run/run.h"

typedef struct fixture {
    char dir[256];
    char db[300];
    char other[300]; /* a copy of the database under another root */
} fixture;

/* Three losses of depth >= 4 of each open-format file made two plies shorter. */
static int plant_faults(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    int planted = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 4 || strcmp(e->d_name + l - 4, ".mdb"))
            continue;
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r+b");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        unsigned char *buf = malloc((size_t)size);
        fseek(f, 0, SEEK_SET);
        if (buf && fread(buf, 1, (size_t)size, f) == (size_t)size) {
            int n = 0;
            for (long off = 128; off + 1 < size && n < 3; off += 2) {
                unsigned w = buf[off] | (unsigned)buf[off + 1] << 8;
                if (w >> 14 == 1 && (w & 0x3FFF) >= 4) {
                    w -= 2;
                    buf[off] = (unsigned char)(w & 0xFF);
                    buf[off + 1] = (unsigned char)(w >> 8);
                    n++;
                }
            }
            if (n) {
                fseek(f, 0, SEEK_SET);
                fwrite(buf, 1, (size_t)size, f);
                planted += n;
            }
        }
        free(buf);
        fclose(f);
        /* wrong values the producer wrote (its digest of them): a fault of the solver, not damage */
        if (ma_test_reseal(path))
            planted = -100;
    }
    closedir(d);
    return planted;
}

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ma_test_merge_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->db, sizeof fx->db, "%s/db", fx->dir);
    snprintf(fx->other, sizeof fx->other, "%s/other", fx->dir);
    char cmd[1200];
    if (ma_test_solve_std_game(fx->db, 3) != 0 || plant_faults(fx->db) < 6)
        return -1;
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", fx->db, fx->other);
    if (system(cmd) != 0)
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

static void store_path(const fixture *fx, char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", fx->dir, name);
    char p[1200];
    unlink(buf);
    snprintf(p, sizeof p, "%.1000s-wal", buf);
    unlink(p);
    snprintf(p, sizeof p, "%.1000s-shm", buf);
    unlink(p);
}

/* A run of db (whole, or shard i of n) into store; returns its verdict. */
static int run(const char *db, const char *store, unsigned i, unsigned n, size_t max_rows)
{
    ma_vrun_options o;
    memset(&o, 0, sizeof o);
    o.root = db;
    o.threads = 2;
    o.max_rows = max_rows;
    o.full_board_draw = 1;
    o.audit_path = store;
    o.shard_index = i;
    o.shard_count = n;
    o.tool_version = "test";
    o.git_revision = "test";
    o.host = "unit";
    o.command_line = "test_merge";
    ma_vrun *r = NULL;
    ma_error err;
    assert_int_equal(ma_vrun_create(&r, &o, &err), MA_OK);
    if (ma_vrun_execute(r, &err))
        fail_msg("run failed: %s", err.msg);
    int verdict = ma_vrun_verdict_of(r);
    ma_vrun_free(r);
    return verdict;
}

static int merge(const char *out, const char *const *shards, size_t n, int allow_partial, ma_merge_result *m,
                 ma_error *err)
{
    ma_merge_options o;
    memset(&o, 0, sizeof o);
    o.out_path = out;
    o.shards = shards;
    o.n_shards = n;
    o.allow_partial = allow_partial;
    o.host = "unit";
    o.command_line = "test_merge merge";
    return ma_merge_runs(m, &o, err);
}

/* Every row of a query as one text (columns separated by |, rows by newlines). */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static int collect(void *ctx, int ncol, char **val, char **name)
{
    (void)name;
    text *t = ctx;
    for (int i = 0; i < ncol; i++) {
        const char *v = val[i] ? val[i] : "NULL";
        size_t l = strlen(v) + 2;
        if (t->n + l + 1 > t->cap) {
            t->cap = 2 * (t->n + l + 1);
            t->s = realloc(t->s, t->cap);
            assert_non_null(t->s);
        }
        t->n += (size_t)sprintf(t->s + t->n, "%s%c", v, i + 1 < ncol ? '|' : '\n');
    }
    return 0;
}

static char *query(const char *store, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(store, &db), SQLITE_OK);
    text t = {calloc(1, 1), 0, 1};
    char *msg = NULL;
    if (sqlite3_exec(db, sql, collect, &t, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
    sqlite3_close(db);
    return t.s;
}

/* What a run established, field by field; the run is the store's newest. */
static const char *const compared[] = {
    "SELECT kind, database_root, variant, format, status, options, tool_version FROM runs"
    " WHERE id = (SELECT max(id) FROM runs)",
    "SELECT sector, file, entries, checked, verified, within_bounds, discrepancies, status, message, format,"
    " canonical, markers, roots, propagated, missing_child, unverifiable, bound_wins, body_digest"
    " FROM sector_results WHERE run_id = (SELECT max(id) FROM runs) ORDER BY sector",
    "SELECT sector, class, count FROM sector_class_counts WHERE run_id = (SELECT max(id) FROM runs)"
    " ORDER BY sector, class",
    /* rows in recorded order within each sector: roots first, then by entry */
    "SELECT sector, entry, board, stored, derived, class, root, offset, move, successor, stored_outcome,"
    " stored_depth, derived_outcome, derived_depth, derived_bound FROM discrepancies"
    " WHERE run_id = (SELECT max(id) FROM runs) ORDER BY sector, id",
    "SELECT sector, derived_sha256, derived_positions FROM sector_digests WHERE run_id = (SELECT max(id) FROM runs)"
    " ORDER BY sector",
    "SELECT sector, outcome, depth, count FROM sector_histograms WHERE run_id = (SELECT max(id) FROM runs)"
    " ORDER BY sector, outcome, depth",
    "SELECT sector, path, sha256 FROM sector_inputs WHERE run_id = (SELECT max(id) FROM runs) ORDER BY 1, 2",
    "SELECT sector, count, hex(entries), fixed_count, hex(fixed_entries) FROM sector_discrepancy_sets"
    " WHERE run_id = (SELECT max(id) FROM runs) ORDER BY sector",
    "SELECT path, size, sha256, chunk_size, variant, format, sector FROM manifest_files"
    " WHERE run_id = (SELECT max(id) FROM runs) ORDER BY path",
    "SELECT path, chunk, offset, length, sha256 FROM manifest_chunks WHERE run_id = (SELECT max(id) FROM runs)"
    " ORDER BY path, chunk",
};

static void assert_same_run(const char *single, const char *merged)
{
    for (size_t q = 0; q < sizeof compared / sizeof *compared; q++) {
        char *a = query(single, compared[q]), *b = query(merged, compared[q]);
        if (strcmp(a, b))
            fail_msg("single and merged runs differ in\n%s\nsingle:\n%.3000s\nmerged:\n%.3000s", compared[q], a, b);
        free(a);
        free(b);
    }
}

static long long count(const char *store, const char *sql)
{
    char *s = query(store, sql);
    long long v = atoll(s);
    free(s);
    return v;
}

/* N shards, each into its own store, merged: equal to the single run; some of a shard's roots
 * must have become propagated (the planted faults propagate across shards), or the test proves
 * nothing about reclassification. */
static size_t merged_equals_single(const fixture *fx, unsigned n, size_t max_rows, uint64_t *reclassified)
{
    char single[400], out[400], stores[8][400];
    const char *shards[8];
    store_path(fx, single, sizeof single, "single.sqlite");
    store_path(fx, out, sizeof out, "merged.sqlite");
    int verdict = run(fx->db, single, 0, 0, max_rows);
    assert_int_equal(verdict, MA_VERDICT_DISCREPANCIES);
    for (unsigned i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "shard%u.sqlite", i);
        store_path(fx, stores[i], sizeof stores[i], name);
        run(fx->db, stores[i], i, n, max_rows);
        shards[i] = stores[i];
    }
    ma_merge_result m;
    ma_error err;
    if (merge(out, shards, n, 0, &m, &err))
        fail_msg("merge failed: %s", err.msg);
    assert_int_equal(m.verdict, MA_VERDICT_DISCREPANCIES);
    assert_int_equal(m.n_shards, n);
    assert_false(m.partial);
    *reclassified += m.reclassified;
    /* Every table is compared, whatever the merge says about itself. The cases where a merge may
     * keep other rows than a single run (a shard with more than 2 * max_rows roots, some of them
     * propagated across shards: docs/distributed.md) are listed here explicitly: none. For every
     * max_rows and shard count these tests use, the planted faults leave each shard few enough
     * roots that the merge picks the single run's rows, and it must say so, in its count and in
     * the sectors' messages. */
    assert_int_equal(m.rows_inexact, 0);
    assert_int_equal(count(out, "SELECT count(*) FROM sector_results WHERE message LIKE "
                                "'%rows may differ from a single run%'"), 0);
    assert_same_run(single, out);
    /* the verdict and totals of the run row */
    assert_int_equal(count(out, "SELECT count(*) FROM run_shards"), n);
    assert_int_equal(count(out, "SELECT sum(roots) FROM sector_results"),
                     count(single, "SELECT sum(roots) FROM sector_results"));
    assert_int_equal(count(out, "SELECT count(*) FROM runs WHERE mode = 'merge' AND status = 'discrepancies'"), 1);
    size_t inexact = m.rows_inexact;
    ma_merge_result_free(&m);
    return inexact;
}

static void test_merged_runs_equal_a_single_run(void **state)
{
    fixture *fx = *state;
    uint64_t reclassified = 0;
    for (unsigned n = 2; n <= 4; n++)
        assert_int_equal(merged_equals_single(fx, n, 1000, &reclassified), 0);
    assert_true(reclassified > 0);
}

/* With max_rows 1 to 3 the merge selects, among the rows the shards kept, the ones a single run keeps
 * (no case of this fixture is one it cannot pick exactly: merged_equals_single). */
static void test_capped_rows_are_the_single_runs(void **state)
{
    fixture *fx = *state;
    uint64_t reclassified = 0;
    for (size_t rows = 1; rows <= 3; rows++)
        for (unsigned n = 2; n <= 3; n++) {
            merged_equals_single(fx, n, rows, &reclassified);
            char single[400], out[400];
            snprintf(single, sizeof single, "%s/single.sqlite", fx->dir);
            snprintf(out, sizeof out, "%s/merged.sqlite", fx->dir);
            /* merged_equals_single compared every table, rows included (no inexact case) */
            char *a = query(single, compared[7]), *b = query(out, compared[7]);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
    assert_true(reclassified > 0);
}

static void test_refusals(void **state)
{
    fixture *fx = *state;
    char s0[400], s1[400], o0[400], out[400];
    store_path(fx, s0, sizeof s0, "r0.sqlite");
    store_path(fx, s1, sizeof s1, "r1.sqlite");
    store_path(fx, o0, sizeof o0, "o0.sqlite");
    store_path(fx, out, sizeof out, "rout.sqlite");
    /* the planted faults lie in both shards of 2 (each shard finds some: its verdict says so) */
    assert_int_equal(run(fx->db, s0, 0, 2, 100), MA_VERDICT_DISCREPANCIES);
    assert_int_equal(run(fx->db, s1, 1, 2, 100), MA_VERDICT_DISCREPANCIES);
    run(fx->other, o0, 0, 2, 100);
    ma_merge_result m;
    ma_error err;
    /* a store merged with itself */
    const char *twice[] = {s0, s0};
    assert_int_equal(merge(out, twice, 2, 0, &m, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "same store"));
    ma_merge_result_free(&m);
    /* the output among the shards */
    const char *both[] = {s0, s1};
    assert_int_equal(merge(s1, both, 2, 0, &m, &err), MA_EFORMAT);
    ma_merge_result_free(&m);
    /* two databases */
    const char *mixed[] = {o0, s1};
    assert_int_equal(merge(out, mixed, 2, 0, &m, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "different databases"));
    ma_merge_result_free(&m);
    /* one shard index twice (a copy of a store) */
    char copy[400], cmd[1000];
    store_path(fx, copy, sizeof copy, "copy.sqlite");
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", s0, copy);
    assert_int_equal(system(cmd), 0);
    const char *dup[] = {s0, copy};
    assert_int_equal(merge(out, dup, 2, 0, &m, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "given twice"));
    ma_merge_result_free(&m);
    /* a shard store whose runs table is damaged (its root page overwritten): unusable input, as the
     * public contract says (MA_EFORMAT, exit 3), never MA_EIO, which says the output cannot be
     * written */
    char broken[400];
    store_path(fx, broken, sizeof broken, "broken.sqlite");
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", s0, broken);
    assert_int_equal(system(cmd), 0);
    long long root = count(broken, "SELECT rootpage FROM sqlite_master WHERE name = 'runs'");
    long long page = count(broken, "PRAGMA page_size");
    FILE *f = fopen(broken, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)((root - 1) * page), SEEK_SET), 0);
    for (long long k = 0; k < page; k++)
        fputc(0xff, f);
    assert_int_equal(fclose(f), 0);
    const char *damaged[] = {broken, s1};
    assert_int_equal(merge(out, damaged, 2, 0, &m, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "broken.sqlite"));
    assert_non_null(strstr(err.msg, "malformed"));
    ma_merge_result_free(&m);
    /* nothing was written by a refused merge */
    assert_int_equal(access(out, F_OK), -1);
    /* a missing shard: the run is written, incomplete; --allow-partial judges what is there */
    const char *one[] = {s0};
    assert_int_equal(merge(out, one, 1, 0, &m, &err), MA_OK);
    assert_true(m.partial);
    assert_int_equal(m.n_missing, 1);
    assert_int_equal(m.missing[0], 1);
    assert_int_equal(m.verdict, MA_VERDICT_INCOMPLETE);
    ma_merge_result_free(&m);
    /* --allow-partial: shard 0's sectors hold discrepancies (above), so the verdict is theirs */
    assert_int_equal(merge(out, one, 1, 1, &m, &err), MA_OK);
    assert_true(m.partial);
    assert_int_equal(m.verdict, MA_VERDICT_DISCREPANCIES);
    ma_merge_result_free(&m);
    /* an interrupted shard run: likewise */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(s1, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE runs SET status = 'interrupted'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(merge(out, both, 2, 0, &m, &err), MA_OK);
    assert_int_equal(m.n_interrupted, 1);
    assert_int_equal(m.verdict, MA_VERDICT_INCOMPLETE);
    ma_merge_result_free(&m);
    /* a store without a shard run */
    char full[400];
    store_path(fx, full, sizeof full, "full.sqlite");
    run(fx->db, full, 0, 0, 100);
    const char *nosh[] = {full, s1};
    assert_int_equal(merge(out, nosh, 2, 0, &m, &err), MA_EMISSING);
    ma_merge_result_free(&m);
}

/* A store that holds two runs of its shard yields the newest one that was not continued: an older
 * interrupted run left in the store by a fresh (not resumed) run of the shard is history, never the
 * shard's result (issue 43 (c): which shard run a store yields). */
static void test_a_store_yields_its_newest_shard_run(void **state)
{
    fixture *fx = *state;
    char s0[400], s1[400], out[400];
    store_path(fx, s0, sizeof s0, "n0.sqlite");
    store_path(fx, s1, sizeof s1, "n1.sqlite");
    store_path(fx, out, sizeof out, "nout.sqlite");
    run(fx->db, s0, 0, 2, 100);
    run(fx->db, s1, 1, 2, 100);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(s1, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "UPDATE runs SET status = 'interrupted'; DELETE FROM discrepancies;"
                                      " DELETE FROM sector_results WHERE sector = 'std_0_0_3_3'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(run(fx->db, s1, 1, 2, 100), MA_VERDICT_DISCREPANCIES); /* run 2 of the store */
    assert_int_equal(count(s1, "SELECT count(*) FROM runs"), 2);
    ma_merge_result m;
    ma_error err;
    const char *both[] = {s0, s1};
    if (merge(out, both, 2, 0, &m, &err))
        fail_msg("merge failed: %s", err.msg);
    assert_int_equal(m.n_interrupted, 0);
    assert_int_equal(m.verdict, MA_VERDICT_DISCREPANCIES);
    assert_int_equal(m.planned, 7);
    assert_int_equal(m.uncovered, 0);
    ma_merge_result_free(&m);
}

/* A copy of src with statements applied. */
static void tamper(const fixture *fx, const char *src, char *dst, size_t len, const char *name, const char *sql)
{
    store_path(fx, dst, len, name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
    assert_int_equal(system(cmd), 0);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(dst, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
    sqlite3_close(db);
}

/* The coverage proof (issue 21 items 1 and 3): shards planned over different files, and shard
 * stores whose rows do not add up, are refused naming the file, sector and field; nothing is
 * written. */
static void test_coverage_refusals(void **state)
{
    fixture *fx = *state;
    char s0[400], s1[400], h0[400], out[400], t[400];
    store_path(fx, s0, sizeof s0, "c0.sqlite");
    store_path(fx, s1, sizeof s1, "c1.sqlite");
    store_path(fx, h0, sizeof h0, "h0.sqlite");
    store_path(fx, out, sizeof out, "cout.sqlite");
    run(fx->db, s0, 0, 2, 100);
    run(fx->db, s1, 1, 2, 100);
    /* shard 0 planned while a file was away */
    char file[400], away[400];
    snprintf(file, sizeof file, "%s/std_1_1_2_2.mdb", fx->db);
    snprintf(away, sizeof away, "%s/away.mdb", fx->dir);
    assert_int_equal(rename(file, away), 0);
    run(fx->db, h0, 0, 2, 100);
    assert_int_equal(rename(away, file), 0);
    ma_merge_result m;
    ma_error err;
    const char *hidden[] = {h0, s1};
    assert_int_equal(merge(out, hidden, 2, 0, &m, &err), MA_EFORMAT);
    assert_non_null(strstr(err.msg, "different inventories"));
    assert_non_null(strstr(err.msg, "std_1_1_2_2.mdb"));
    ma_merge_result_free(&m);
    /* rows that do not add up: {statement, words the refusal names} */
    static const char *const cases[][4] = {
        {"UPDATE sector_results SET verified = verified - 3 WHERE sector = 'std_3_3_0_0'", "std_3_3_0_0",
         "verified"},
        {"UPDATE sector_results SET status = 'ok' WHERE sector = 'std_0_0_3_3'", "std_0_0_3_3",
         "status: 'ok', but its counts make it 'discrepancies'", "shard 1"},
        {"UPDATE sector_results SET roots = roots + 1 WHERE sector = (SELECT sector FROM sector_results WHERE"
         " discrepancies > 0 LIMIT 1)",
         "roots", "propagated"},
        {"UPDATE sector_class_counts SET count = count + 1 WHERE rowid = (SELECT min(rowid) FROM"
         " sector_class_counts)",
         "discrepancies", "classes"},
        {"UPDATE sector_results SET checked = checked - 1 WHERE sector = 'std_3_3_0_0'", "std_3_3_0_0", "checked"},
        {"UPDATE sector_results SET entries = entries - 5, checked = checked - 5, verified = verified - 5 WHERE"
         " sector = 'std_3_3_0_0'",
         "std_3_3_0_0", "entries: 210135, but the plan counts 210140"},
        {"INSERT INTO sector_results (run_id, sector, file, entries, checked, verified, within_bounds, discrepancies,"
         " status, seconds) VALUES (1, 'std_9_9_0_0', 'x/std_9_9_0_0.mdb', 5, 5, 5, 0, 0, 'ok', 0)",
         "std_9_9_0_0", "not in the plan"},
        {"DELETE FROM manifest_files WHERE path = 'std_3_3_0_0.mdb'", "std_3_3_0_0", "manifest"},
        {"UPDATE sector_inputs SET sha256 = 'ff' WHERE sector = 'std_3_3_0_0' AND path = 'std_3_3_0_0.mdb'",
         "std_3_3_0_0", "inputs"},
        {"UPDATE run_inventory SET size = size + 2 WHERE path = 'std_3_3_0_0.mdb'", "inventory_digest", "changed"},
        {"UPDATE runs SET plan_digest = NULL, inventory_digest = NULL", "recorded no inventory", "verify the shard"},
        /* issue 43 (a): each cross-check of a shard run and of a row against its file, one case each */
        {"UPDATE runs SET tool_version = '0.0.9'", "different millaudit versions", "0.0.9"},
        {"UPDATE runs SET format = 'malom-sec2'", "shards read different formats", "malom-sec2"},
        {"UPDATE runs SET options = replace(options, '\"max_rows\":100', '\"max_rows\":7')", "different options",
         "\"max_rows\":7"},
        {"UPDATE runs SET shard_count = 3", "the plan has 2 shards", "shard 0/3"},
        {"UPDATE runs SET unusable_files = NULL", "different selections", "--sector"},
        {"UPDATE sector_results SET status = 'fine' WHERE sector = 'std_3_3_0_0'", "std_3_3_0_0",
         "'fine' is no sector status"},
        {"UPDATE sector_results SET missing_child = -1 WHERE sector = 'std_3_3_0_0'", "missing_child",
         "-1 is negative"},
        {"UPDATE sector_results SET within_bounds = 1, verified = verified - 1 WHERE sector = 'std_3_3_0_0'",
         "within_bounds", "no bounds"},
        {"UPDATE sector_results SET file = 'x/std_2_3_1_0.mdb' WHERE sector = 'std_3_3_0_0'", "the result is of "
         "std_2_3_1_0.mdb", "std_3_3_0_0.mdb"},
        {"UPDATE manifest_files SET size = size + 1 WHERE path = 'std_3_3_0_0.mdb'", "std_3_3_0_0",
         "in the shard's manifest"},
        {"UPDATE manifest_files SET sha256 = '00' || substr(sha256, 3) WHERE path = 'std_3_3_0_0.mdb';"
         " UPDATE sector_inputs SET sha256 = '00' || substr(sha256, 3) WHERE path = 'std_3_3_0_0.mdb'",
         "manifests disagree on std_3_3_0_0.mdb", "the database changed between shards"},
        {"DELETE FROM sector_inputs WHERE sector = 'std_3_3_0_0' AND path = 'std_3_3_0_0.mdb'", "std_3_3_0_0",
         "does not list its own file"},
    };
    /* std_3_3_0_0 is in shard 0 of 2 (the largest sector goes first to shard 0), the other six,
     * some of them without a fault, in shard 1 */
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int second = cases[i][3] != NULL;
        tamper(fx, second ? s1 : s0, t, sizeof t, "tampered.sqlite", cases[i][0]);
        const char *both[] = {second ? s0 : t, second ? t : s1};
        int rc = merge(out, both, 2, 0, &m, &err);
        if (rc != MA_EFORMAT)
            fail_msg("case %zu (%s) not refused: rc %d verdict %d", i, cases[i][0], rc, m.verdict);
        for (int k = 1; k < 3; k++)
            if (!strstr(err.msg, cases[i][k]))
                fail_msg("case %zu: '%s' not in: %s", i, cases[i][k], err.msg);
        ma_merge_result_free(&m);
        assert_int_equal(access(out, F_OK), -1);
    }
    /* One sector, std_0_0_3_3 (1 entry, no fault; shard 1's by the plan), recorded where it does not
     * belong: each refusal of the coverage proof in turn (issue 28: each is a mutant's killer). */
    static const char *const add_0033 =
        "INSERT INTO sector_results (run_id, sector, file, entries, checked, verified, within_bounds,"
        " discrepancies, status, seconds) VALUES (1, 'std_0_0_3_3', 'std_0_0_3_3.mdb', 1, 1, 1, 0, 0, 'ok', 0)";
    static const char *const drop_0033 =
        "DELETE FROM sector_results WHERE sector = 'std_0_0_3_3'; UPDATE runs SET planned_sectors = planned_sectors - 1";
    char t1[400];
    tamper(fx, s0, t, sizeof t, "tampered.sqlite", add_0033);
    tamper(fx, s1, t1, sizeof t1, "tampered1.sqlite", drop_0033);
    /* recorded by both shards: refused as a sector counted twice */
    const char *twice0033[] = {t, s1};
    assert_int_equal(merge(out, twice0033, 2, 0, &m, &err), MA_EFORMAT);
    if (!strstr(err.msg, "sector std_0_0_3_3 recorded by two shards"))
        fail_msg("not refused as recorded twice: %s", err.msg);
    ma_merge_result_free(&m);
    /* recorded by shard 0 only: the plan gives it to shard 1 (the partition check) */
    const char *moved[] = {t, t1};
    assert_int_equal(merge(out, moved, 2, 0, &m, &err), MA_EFORMAT);
    if (!strstr(err.msg, "sector std_0_0_3_3:") || !strstr(err.msg, "the plan gives it to shard 1/2"))
        fail_msg("not refused by the partition check: %s", err.msg);
    ma_merge_result_free(&m);
    /* recorded by neither, shard 1 ended complete: refused, not a partial merge */
    const char *lost[] = {s0, t1};
    assert_int_equal(merge(out, lost, 2, 0, &m, &err), MA_EFORMAT);
    if (!strstr(err.msg, "sector std_0_0_3_3:") || !strstr(err.msg, "without a result for it"))
        fail_msg("not refused as a sector its shard lost: %s", err.msg);
    ma_merge_result_free(&m);
    assert_int_equal(access(out, F_OK), -1);
    /* both shards agree on bytes the inventory they planned from does not hold (each file's digest
     * recorded at planning): refused by the manifest-against-inventory check */
    static const char *const other_bytes =
        "UPDATE manifest_files SET sha256 = '00' || substr(sha256, 3) WHERE path = 'std_3_3_0_0.mdb';"
        " UPDATE sector_inputs SET sha256 = '00' || substr(sha256, 3) WHERE path = 'std_3_3_0_0.mdb'";
    tamper(fx, s0, t, sizeof t, "tampered.sqlite", other_bytes);
    tamper(fx, s1, t1, sizeof t1, "tampered1.sqlite", other_bytes);
    const char *rebytes[] = {t, t1};
    assert_int_equal(merge(out, rebytes, 2, 0, &m, &err), MA_EFORMAT);
    if (!strstr(err.msg, "std_3_3_0_0.mdb: the manifest's sha256 00") || !strstr(err.msg, "is not the inventory's"))
        fail_msg("not refused against the inventory: %s", err.msg);
    ma_merge_result_free(&m);
    assert_int_equal(access(out, F_OK), -1);
    /* the untouched shards merge */
    const char *both[] = {s0, s1};
    assert_int_equal(merge(out, both, 2, 0, &m, &err), MA_OK);
    assert_int_equal(m.planned, 7);
    assert_int_equal(m.uncovered, 0);
    ma_merge_result_free(&m);
}

/* Empty shards (issue 21 item 7) are verified shards of 0 sectors and merge like any other; a
 * merge of only some shards is never verified, --allow-partial or not. */
static void test_empty_shards_merge_like_any_other(void **state)
{
    fixture *fx = *state;
    char stores[10][400], out[400];
    const char *shards[10];
    store_path(fx, out, sizeof out, "eout.sqlite");
    for (unsigned i = 0; i < 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "e%u.sqlite", i);
        store_path(fx, stores[i], sizeof stores[i], name);
        int verdict = run(fx->db, stores[i], i, 10, 100);
        if (i >= 7)
            assert_int_equal(verdict, MA_VERDICT_VERIFIED);
        shards[i] = stores[i];
    }
    ma_merge_result m;
    ma_error err;
    assert_int_equal(merge(out, shards, 10, 0, &m, &err), MA_OK);
    assert_int_equal(m.totals.sectors, 7);
    assert_int_equal(m.uncovered, 0);
    assert_false(m.partial);
    assert_int_equal(m.verdict, MA_VERDICT_DISCREPANCIES);
    ma_merge_result_free(&m);
    /* only the empty shards: nothing wrong found, nothing of the plan covered */
    for (int allow = 0; allow <= 1; allow++) {
        assert_int_equal(merge(out, shards + 7, 3, allow, &m, &err), MA_OK);
        assert_true(m.partial);
        assert_int_equal(m.uncovered, 7);
        assert_int_equal(m.verdict, MA_VERDICT_INCOMPLETE);
        ma_merge_result_free(&m);
    }
}

/* A shard argument: STORE or STORE:RUN, and a name that exists as given stays whole. The CLI's
 * output check reads the same split (runs merge refuses OUT = a shard's store). */
static void test_shard_source_split(void **state)
{
    const fixture *fx = *state;
    char path[1100], named[1100];
    int64_t run = -1;
    ma_merge_shard_source("/x/s.sqlite:12", path, sizeof path, &run);
    assert_string_equal(path, "/x/s.sqlite");
    assert_int_equal(run, 12);
    ma_merge_shard_source("/x/s.sqlite", path, sizeof path, &run);
    assert_string_equal(path, "/x/s.sqlite");
    assert_int_equal(run, 0);
    ma_merge_shard_source("/x/s.sqlite:", path, sizeof path, &run); /* no run number: a name */
    assert_string_equal(path, "/x/s.sqlite:");
    assert_int_equal(run, 0);
    ma_merge_shard_source("/x/s.sqlite:1a", path, sizeof path, &run);
    assert_string_equal(path, "/x/s.sqlite:1a");
    assert_int_equal(run, 0);
    snprintf(named, sizeof named, "%s/store:7", fx->dir);
    FILE *f = fopen(named, "w");
    assert_non_null(f);
    fclose(f);
    ma_merge_shard_source(named, path, sizeof path, &run);
    assert_string_equal(path, named);
    assert_int_equal(run, 0);
    remove(named);
    ma_merge_shard_source(named, path, sizeof path, &run); /* gone: now it is store, run 7 */
    assert_int_equal(run, 7);
    assert_int_equal(strlen(path), strlen(named) - 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merged_runs_equal_a_single_run),
        cmocka_unit_test(test_capped_rows_are_the_single_runs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_coverage_refusals),
        cmocka_unit_test(test_a_store_yields_its_newest_shard_run),
        cmocka_unit_test(test_empty_shards_merge_like_any_other),
        cmocka_unit_test(test_shard_source_split),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
