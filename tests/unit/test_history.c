/* Unit tests for reports/store/history: which run is "previous" (same root, finished, not interrupted,
 * resumed or imported), the list and its totals, the regression rules sector by sector (values
 * changed while not verified vs. corrected into a verified run, new/fixed discrepancies,
 * appeared/vanished, checked less completely), and the JSON and JUnit documents built from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>

#include "reports/store/audit.h"
#include "reports/store/audit_run.h"
#include "reports/render/regressions_junit.h"
#include "reports/store/history.h"
#include "reports/store/runs.h"

static const char DA[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char DB[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* ---------------------------------------------------------------- in-memory runs */

typedef struct spec {
    const char *sector, *status;
    int64_t discrepancies;
    const char *digest;      /* NULL: none recorded */
    const char *cls;         /* the class of the discrepancies, NULL: none */
} spec;

/* What a v4 store records beside (reports/store/runs.h): the split and the inputs. */
typedef struct cause_spec {
    const char *sector;
    int split;               /* the roots/propagated split is recorded ... */
    int64_t roots;           /* ... with this many roots (the rest propagated) */
    const char *succ[4];     /* the successor sectors its result was computed from (recorded inputs) */
} cause_spec;

static ma_run_class CLASSES[64];
static size_t n_classes_used;

static void make_run(ma_run *r, int64_t id, const char *status, const spec *s, size_t n)
{
    memset(r, 0, sizeof *r);
    r->id = id;
    r->kind = (char *)"verify";
    r->status = (char *)status;
    r->started_at = (char *)"2026-11-22T02:00:00.000Z";
    r->ended_at = (char *)"2026-11-22T02:10:00.000Z";
    r->database_root = (char *)"/nightly/db";
    r->host = (char *)"ci";
    r->sectors = calloc(n ? n : 1, sizeof *r->sectors);
    assert_non_null(r->sectors);
    r->n_sectors = n;
    for (size_t i = 0; i < n; i++) {
        ma_run_sector *x = &r->sectors[i];
        x->sector = (char *)s[i].sector;
        x->status = (char *)s[i].status;
        x->discrepancies = s[i].discrepancies;
        x->derived_sha256 = (char *)s[i].digest;
        if (s[i].cls) {
            assert_true(n_classes_used < 64);
            CLASSES[n_classes_used].cls = (char *)s[i].cls;
            CLASSES[n_classes_used].count = s[i].discrepancies;
            x->classes = &CLASSES[n_classes_used++];
            x->n_classes = 1;
        }
    }
}

static void add_causes(ma_run *r, const cause_spec *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ma_run_sector *x = NULL;
        for (size_t k = 0; k < r->n_sectors; k++)
            if (!strcmp(r->sectors[k].sector, c[i].sector))
                x = &r->sectors[k];
        assert_non_null(x);
        x->has_split = c[i].split;
        x->roots = c[i].roots;
        x->propagated = c[i].split ? x->discrepancies - c[i].roots : 0;
        for (int k = 0; k < 4 && c[i].succ[k]; k++) {
            x->has_successors = 1;
            x->successors = realloc(x->successors, (x->n_successors + 1) * sizeof *x->successors);
            assert_non_null(x->successors);
            x->successors[x->n_successors++] = (char *)c[i].succ[k];
        }
    }
}

static void drop_run(ma_run *r)
{
    for (size_t i = 0; i < r->n_sectors; i++)
        free(r->sectors[i].successors);
    free(r->sectors);
}

static const ma_regression_row *row_of(const ma_regressions *g, const char *sector)
{
    for (size_t i = 0; i < g->n_rows; i++)
        if (!strcmp(g->rows[i].sector, sector))
            return &g->rows[i];
    fail_msg("no row for %s", sector);
    return NULL;
}

/* The three nights of docs/nightly.md: clean, planted bug, clean again. */
static const spec NIGHT1[] = {
    {"std_3_4_1_0", "ok", 0, DA, NULL},
    {"std_4_4_0_0", "ok", 0, DA, NULL},
    {"std_3_3_0_0", "ok", 0, DA, NULL},
};
static const spec NIGHT2[] = {
    {"std_3_4_1_0", "ok", 0, DB, NULL},                        /* values moved with the bad child */
    {"std_4_4_0_0", "discrepancies", 6, DB, "wrong-terminal"},
    {"std_3_3_0_0", "ok", 0, DA, NULL},
};

static void test_no_baseline_changes_nothing(void **state)
{
    (void)state;
    ma_run r;
    make_run(&r, 1, "ok", NIGHT1, 3);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, NULL, &r, &err), MA_OK);
    assert_int_equal(g.n_rows, 3);
    assert_int_equal(g.n_unchanged, 3);
    assert_int_equal(g.n_regressions + g.n_changed + g.n_improvements, 0);
    assert_false(g.regressed);
    /* sorted by name */
    assert_string_equal(g.rows[0].sector, "std_3_3_0_0");
    assert_string_equal(g.rows[2].sector, "std_4_4_0_0");
    ma_regressions_free(&g);
    drop_run(&r);
}

static void test_planted_bug_night_regresses(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 1, "ok", NIGHT1, 3);
    make_run(&b, 2, "discrepancies", NIGHT2, 3);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    const ma_regression_row *bad = row_of(&g, "std_4_4_0_0"), *moved = row_of(&g, "std_3_4_1_0"),
                            *same = row_of(&g, "std_3_3_0_0");
    assert_int_equal(bad->changes, MA_CHANGE_NEW_DISCREPANCIES | MA_CHANGE_VALUES | MA_CHANGE_STATUS |
                                       MA_CHANGE_CLASSES);
    assert_true(bad->regression);
    assert_string_equal(bad->why, "new discrepancies");
    assert_int_equal(moved->changes, MA_CHANGE_VALUES);
    assert_true(moved->regression); /* the run is not verified: changed values are not to be trusted */
    assert_int_equal(same->changes, 0);
    assert_false(same->regression || same->improvement);
    assert_int_equal(g.n_regressions, 2);
    assert_int_equal(g.n_changed, 2);
    assert_int_equal(g.n_unchanged, 1);
    assert_true(g.verdict_changed && g.verdict_worse && !g.verdict_better);
    assert_true(g.regressed);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

static void test_back_to_clean_is_a_fix(void **state)
{
    (void)state;
    ma_run b, c;
    make_run(&b, 2, "discrepancies", NIGHT2, 3);
    make_run(&c, 3, "ok", NIGHT1, 3);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &b, &c, &err), MA_OK);
    const ma_regression_row *fixed = row_of(&g, "std_4_4_0_0"), *moved = row_of(&g, "std_3_4_1_0");
    assert_true(fixed->changes & MA_CHANGE_FIXED);
    assert_true(fixed->improvement && !fixed->regression);
    assert_string_equal(fixed->why, "fixed: no discrepancies any more");
    assert_int_equal(moved->changes, MA_CHANGE_VALUES);
    assert_true(moved->improvement && !moved->regression); /* corrected into a fully verified run */
    assert_int_equal(g.n_regressions, 0);
    assert_int_equal(g.n_improvements, 2);
    assert_true(g.verdict_better && !g.verdict_worse);
    assert_false(g.regressed);
    ma_regressions_free(&g);
    drop_run(&b);
    drop_run(&c);
}

static void test_two_verified_runs_with_other_values_regress(void **state)
{
    (void)state;
    static const spec later[] = {{"std_3_4_1_0", "ok", 0, DB, NULL}, {"std_4_4_0_0", "ok", 0, DA, NULL},
                                 {"std_3_3_0_0", "ok", 0, DA, NULL}};
    ma_run a, b;
    make_run(&a, 1, "ok", NIGHT1, 3);
    make_run(&b, 2, "ok", later, 3);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    const ma_regression_row *x = row_of(&g, "std_3_4_1_0");
    assert_true(x->regression);
    assert_non_null(strstr(x->why, "both runs are fully verified"));
    assert_false(g.verdict_changed);
    assert_true(g.regressed);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

static void test_appeared_vanished_and_completeness(void **state)
{
    (void)state;
    static const spec before[] = {
        {"std_1_1_0_0", "ok", 0, DA, NULL},            /* vanishes */
        {"std_2_2_0_0", "discrepancies", 4, NULL, "wrong-depth"}, /* becomes unusable: not fixed */
        {"std_3_3_0_0", "discrepancies", 5, NULL, "wrong-depth"}, /* fewer */
        {"std_4_4_0_0", "incomplete", 0, NULL, NULL},  /* checked completely now */
        {"std_5_5_0_0", "discrepancies", 2, NULL, "wrong-depth"}, /* same count, other class */
    };
    static const spec after[] = {
        {"std_2_2_0_0", "unusable", 0, NULL, NULL},
        {"std_3_3_0_0", "discrepancies", 2, NULL, "wrong-depth"},
        {"std_4_4_0_0", "ok", 0, DA, NULL},
        {"std_5_5_0_0", "discrepancies", 2, NULL, "wrong-outcome"},
        {"std_6_6_0_0", "ok", 0, DA, NULL},            /* appears, fine */
        {"std_7_7_0_0", "incomplete", 0, NULL, NULL},  /* appears, not checked completely */
    };
    ma_run a, b;
    make_run(&a, 1, "discrepancies", before, 5);
    make_run(&b, 2, "discrepancies", after, 6);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    assert_int_equal(g.n_rows, 7);
    const ma_regression_row *r;
    r = row_of(&g, "std_1_1_0_0");
    assert_int_equal(r->changes, MA_CHANGE_VANISHED);
    assert_true(r->regression);
    assert_null(r->run);
    r = row_of(&g, "std_2_2_0_0");
    assert_true(r->changes & MA_CHANGE_FEWER_DISCREPANCIES);
    assert_false(r->changes & MA_CHANGE_FIXED);
    assert_true(r->regression);
    assert_string_equal(r->why, "checked less completely than before");
    r = row_of(&g, "std_3_3_0_0");
    assert_int_equal(r->changes, MA_CHANGE_FEWER_DISCREPANCIES | MA_CHANGE_CLASSES);
    assert_true(r->improvement && !r->regression);
    r = row_of(&g, "std_4_4_0_0");
    assert_int_equal(r->changes, MA_CHANGE_STATUS);
    assert_true(r->improvement);
    r = row_of(&g, "std_5_5_0_0");
    assert_int_equal(r->changes, MA_CHANGE_CLASSES);
    assert_false(r->regression || r->improvement);
    r = row_of(&g, "std_6_6_0_0");
    assert_int_equal(r->changes, MA_CHANGE_APPEARED);
    assert_false(r->regression || r->improvement);
    r = row_of(&g, "std_7_7_0_0");
    assert_int_equal(r->changes, MA_CHANGE_APPEARED);
    assert_true(r->regression);
    assert_int_equal(g.n_regressions, 3);
    assert_int_equal(g.n_improvements, 2);
    assert_int_equal(g.n_changed, 7);
    assert_false(g.verdict_changed);
    assert_true(g.regressed);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* A body digest mismatch fails a sector without a wrong entry: status alone decides. */
/* A sector a run did not check (not reached before it stopped, or its row refused by the store) is
 * a regression, since less is proven, but no fault: "vanished from the database" is said only of
 * a run that went through its plan. */
static void test_a_sector_not_checked_is_unproven_not_gone(void **state)
{
    (void)state;
    static const spec before[] = {{"std_1_1_0_0", "ok", 0, DA, NULL}, {"std_2_2_0_0", "ok", 0, DA, NULL},
                                  {"std_3_3_0_0", "discrepancies", 1, NULL, "wrong-depth"}};
    static const spec partly[] = {{"std_2_2_0_0", "not-checked", 0, NULL, NULL},
                                  {"std_3_3_0_0", "discrepancies", 1, NULL, "wrong-depth"}};
    const char *statuses[] = {"interrupted", "incomplete", "resumed", NULL, "ok", "discrepancies"};
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
        ma_run a, b;
        make_run(&a, 1, "discrepancies", before, 3);
        make_run(&b, 2, statuses[i], partly, 2);
        int through = i >= 4;
        ma_regressions g;
        ma_error err;
        assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
        const ma_regression_row *x = row_of(&g, "std_1_1_0_0");
        assert_int_equal(x->changes, MA_CHANGE_VANISHED);
        assert_true(x->regression);
        assert_int_equal(x->unchecked, !through);
        assert_string_equal(x->why, through ? "the sector is no longer in the database"
                                            : "not checked by this run, which is interrupted or incomplete: "
                                              "unproven, not known to be gone or wrong");
        x = row_of(&g, "std_2_2_0_0"); /* the report's row of a planned sector never reached */
        assert_true(x->regression && x->unchecked && !x->consequence);
        x = row_of(&g, "std_3_3_0_0"); /* checked, and still wrong: a fault, not unchecked */
        assert_false(x->unchecked);
        ma_regressions_free(&g);
        drop_run(&a);
        drop_run(&b);
    }
}

static void test_failing_status_without_count(void **state)
{
    (void)state;
    static const spec ok[] = {{"std_3_3_0_0", "ok", 0, DA, NULL}};
    static const spec body[] = {{"std_3_3_0_0", "discrepancies", 0, DA, NULL}};
    ma_run a, b, c;
    make_run(&a, 1, "ok", ok, 1);
    make_run(&b, 2, "discrepancies", body, 1);
    make_run(&c, 3, "ok", ok, 1);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    assert_int_equal(g.rows[0].changes, MA_CHANGE_STATUS);
    assert_true(g.rows[0].regression);
    assert_true(g.regressed && g.verdict_worse);
    ma_regressions_free(&g);
    assert_int_equal(ma_regressions_compute(&g, &b, &c, &err), MA_OK);
    assert_int_equal(g.rows[0].changes, MA_CHANGE_STATUS | MA_CHANGE_FIXED);
    assert_true(g.rows[0].improvement);
    assert_false(g.regressed);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
    drop_run(&c);
}

static void test_change_names(void **state)
{
    (void)state;
    assert_string_equal(ma_change_name(0), "appeared");
    assert_string_equal(ma_change_name(6), "values-changed");
    assert_string_equal(ma_change_name(MA_CHANGES - 1), "classes-changed");
    assert_string_equal(ma_change_name(MA_CHANGES), "?");
}

/* ---------------------------------------------------------------- documents */

static void test_regressions_json_and_junit(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 1, "ok", NIGHT1, 3);
    make_run(&b, 2, "discrepancies", NIGHT2, 3);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    char *text = NULL;
    assert_int_equal(ma_regressions_json(&g, "history.sqlite", "previous", &text, &err), MA_OK);
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), MA_REGRESSIONS_SCHEMA_VERSION);
    assert_true(json_is_true(json_object_get(doc, "regressed")));
    assert_string_equal(json_string_value(json_object_get(doc, "basis")), "previous");
    json_t *sectors = json_object_get(doc, "sectors");
    assert_int_equal(json_array_size(sectors), 2); /* only the changed ones */
    json_t *s0 = json_array_get(sectors, 0);
    assert_string_equal(json_string_value(json_object_get(s0, "sector")), "std_3_4_1_0");
    json_t *s1 = json_array_get(sectors, 1);
    json_t *cls = json_object_get(json_object_get(s1, "run"), "classes");
    assert_int_equal(json_integer_value(json_object_get(cls, "wrong-terminal")), 6);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "unchanged")), 1);
    json_decref(doc);
    free(text);

    ma_junit j;
    assert_int_equal(ma_regressions_junit(&g, &j, &err), MA_OK);
    ma_junit_totals t = ma_junit_totals_of(&j);
    assert_int_equal(t.tests, 4); /* three sectors and the verdict */
    /* two sectors regressed on their own (no recorded inputs explain one by the other); the worse
     * verdict does not fail a case of its own: the sector cases say why */
    assert_int_equal(t.failures, 2);
    char *xml = NULL;
    size_t len = 0;
    assert_int_equal(ma_junit_to_xml(&j, &xml, &len, &err), MA_OK);
    xmlDocPtr x = xmlReadMemory(xml, (int)len, "r.xml", NULL, XML_PARSE_NONET);
    assert_non_null(x);
    xmlXPathContextPtr ctx = xmlXPathNewContext(x);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST "//testcase[failure]/@name", ctx);
    assert_int_equal(o->nodesetval->nodeNr, 2);
    const char *want[] = {"std_3_4_1_0", "std_4_4_0_0"};
    for (int i = 0; i < 2; i++) {
        xmlChar *v = xmlNodeGetContent(o->nodesetval->nodeTab[i]);
        assert_string_equal((const char *)v, want[i]);
        xmlFree(v);
    }
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    xmlFreeDoc(x);
    free(xml);
    ma_junit_free(&j);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* ---------------------------------------------------------------- root causes (issue 45) */

/* The planted night with what a v4 store records: the split and the inputs. std_3_4_1_0's values
 * moved because its successor std_4_4_0_0 is wrong: a consequence; std_2_4_1_0 holds propagated
 * discrepancies only, through std_3_4_1_0 (a consequence too, reached transitively). */
static const spec CAUSED1[] = {
    {"std_2_4_1_0", "ok", 0, DA, NULL},
    {"std_3_3_0_0", "ok", 0, DA, NULL},
    {"std_3_4_1_0", "ok", 0, DA, NULL},
    {"std_4_4_0_0", "ok", 0, DA, NULL},
};
static const spec CAUSED2[] = {
    {"std_2_4_1_0", "discrepancies", 5, DB, "wrong-depth"},
    {"std_3_3_0_0", "ok", 0, DA, NULL},
    {"std_3_4_1_0", "ok", 0, DB, NULL},
    {"std_4_4_0_0", "discrepancies", 6, DB, "wrong-terminal"},
};
static const cause_spec INPUTS[] = {
    {"std_2_4_1_0", 1, 0, {"std_3_4_1_0", NULL, NULL, NULL}},
    {"std_3_3_0_0", 1, 0, {NULL, NULL, NULL, NULL}},
    {"std_3_4_1_0", 1, 0, {"std_4_4_0_0", "std_3_3_0_0", NULL, NULL}},
    {"std_4_4_0_0", 1, 6, {"std_3_3_0_0", NULL, NULL, NULL}},
};

static void test_consequences_are_named_under_their_cause(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 1, "ok", CAUSED1, 4);
    make_run(&b, 2, "discrepancies", CAUSED2, 4);
    add_causes(&b, INPUTS, 4);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    const ma_regression_row *bad = row_of(&g, "std_4_4_0_0"), *moved = row_of(&g, "std_3_4_1_0"),
                            *prop = row_of(&g, "std_2_4_1_0");
    assert_true(bad->regression && !bad->consequence);
    assert_int_equal(bad->n_because, 0);
    for (int k = 0; k < 2; k++) {
        const ma_regression_row *c = k ? prop : moved;
        assert_true(c->regression && c->consequence);
        assert_int_equal(c->n_because, 1);
        assert_string_equal(c->because[0], "std_4_4_0_0");
    }
    assert_int_equal(g.n_regressions, 3);
    assert_int_equal(g.n_consequences, 2);
    assert_true(g.regressed);
    char *text = NULL;
    assert_int_equal(ma_regressions_json(&g, "history.sqlite", "previous", &text, &err), MA_OK);
    json_t *doc = json_loads(text, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "consequences")), 2);
    json_t *sectors = json_object_get(doc, "sectors");
    json_t *moved_json = json_array_get(sectors, 1); /* std_3_4_1_0 (std_3_3_0_0 did not change) */
    assert_string_equal(json_string_value(json_object_get(moved_json, "sector")), "std_3_4_1_0");
    assert_string_equal(json_string_value(json_array_get(json_object_get(moved_json, "consequence_of"), 0)),
                        "std_4_4_0_0");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(sectors, 2), "run"), "roots")), 6);
    json_decref(doc);
    free(text);
    /* one bug, one red line: only the sector holding it fails */
    ma_junit j;
    assert_int_equal(ma_regressions_junit(&g, &j, &err), MA_OK);
    ma_junit_totals t = ma_junit_totals_of(&j);
    assert_int_equal(t.tests, 5);
    assert_int_equal(t.failures, 1);
    for (size_t i = 0; i < j.suites[0]->n_cases; i++) {
        const ma_junit_case *c = &j.suites[0]->cases[i];
        assert_int_equal(c->outcome == MA_JUNIT_FAILURE, !strcmp(c->name, "std_4_4_0_0"));
        if (!strcmp(c->name, "std_3_4_1_0"))
            assert_non_null(strstr(c->out, "caused by std_4_4_0_0"));
    }
    ma_junit_free(&j);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* Nothing explains a change without its inputs, or when the inputs lead to no fault: such a
 * sector stays a regression of its own. So does a sector whose discrepancies were not split. */
static void test_a_consequence_needs_a_recorded_cause(void **state)
{
    (void)state;
    cause_spec two[4];
    memcpy(two, INPUTS, sizeof two);
    two[2].succ[0] = "std_3_3_0_0"; /* std_3_4_1_0 no longer computed from the faulty sector */
    two[2].succ[1] = NULL;
    two[0].split = 0;               /* std_2_4_1_0's split not recorded: its own, as far as anyone knows */
    ma_run a, b;
    make_run(&a, 1, "ok", CAUSED1, 4);
    make_run(&b, 2, "discrepancies", CAUSED2, 4);
    add_causes(&b, two, 4);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    assert_false(row_of(&g, "std_3_4_1_0")->consequence);
    assert_false(row_of(&g, "std_2_4_1_0")->consequence);
    assert_int_equal(g.n_consequences, 0);
    ma_junit j;
    assert_int_equal(ma_regressions_junit(&g, &j, &err), MA_OK);
    assert_int_equal(ma_junit_totals_of(&j).failures, 3);
    ma_junit_free(&j);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* The night after: the faulty sector fixed, the sectors above it back to their values. The fix is
 * the sector that held a fault of its own; the others follow it, named under it. */
static void test_improvements_follow_the_fix_below_them(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 2, "discrepancies", CAUSED2, 4);
    add_causes(&a, INPUTS, 4);
    make_run(&b, 3, "ok", CAUSED1, 4);
    add_causes(&b, INPUTS, 4);
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    const ma_regression_row *fix = row_of(&g, "std_4_4_0_0"), *moved = row_of(&g, "std_3_4_1_0"),
                            *prop = row_of(&g, "std_2_4_1_0");
    assert_true(fix->improvement && !fix->follows && (fix->changes & MA_CHANGE_FIXED));
    assert_int_equal(fix->n_because, 0);
    for (int k = 0; k < 2; k++) {
        const ma_regression_row *c = k ? prop : moved;
        assert_true(c->improvement && c->follows);
        assert_int_equal(c->n_because, 1);
        assert_string_equal(c->because[0], "std_4_4_0_0");
    }
    assert_true(prop->changes & MA_CHANGE_FIXED);
    assert_string_equal(prop->why, "fixed: no discrepancies any more (they were a consequence)");
    assert_string_equal(moved->why, "derived values corrected as a consequence of a fix below it");
    assert_int_equal(g.n_improvements, 3);
    assert_int_equal(g.n_follows, 2);
    assert_false(g.regressed);
    char *text = NULL;
    assert_int_equal(ma_regressions_json(&g, "history.sqlite", "previous", &text, &err), MA_OK);
    json_t *doc = json_loads(text, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "follows")), 2);
    json_decref(doc);
    free(text);
    ma_regressions_free(&g);
    /* without recorded inputs, the split alone says a fixed sector followed: the one with only
     * propagated discrepancies; a sector whose values merely moved back is an improvement of its own */
    for (size_t i = 0; i < b.n_sectors; i++) {
        free(b.sectors[i].successors);
        b.sectors[i].successors = NULL, b.sectors[i].n_successors = 0, b.sectors[i].has_successors = 0;
    }
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    assert_true(row_of(&g, "std_2_4_1_0")->follows);
    assert_int_equal(row_of(&g, "std_2_4_1_0")->n_because, 0);
    assert_false(row_of(&g, "std_3_4_1_0")->follows);
    assert_int_equal(g.n_follows, 1);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* A worse verdict that no sector explains (the run never finished) fails the verdict case. */
static void test_verdict_case_fails_when_no_sector_does(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 1, "ok", CAUSED1, 4);
    make_run(&b, 2, "interrupted", CAUSED1, 4);
    add_causes(&b, INPUTS, 4);
    b.ended_at = NULL;
    ma_regressions g;
    ma_error err;
    assert_int_equal(ma_regressions_compute(&g, &a, &b, &err), MA_OK);
    assert_true(g.verdict_worse && g.regressed);
    ma_junit j;
    assert_int_equal(ma_regressions_junit(&g, &j, &err), MA_OK);
    assert_int_equal(ma_junit_totals_of(&j).failures, 1);
    ma_junit_free(&j);
    ma_regressions_free(&g);
    drop_run(&a);
    drop_run(&b);
}

/* ---------------------------------------------------------------- store: list and previous */

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/ma_test_history_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/history.sqlite", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

/* A run of kind on root with one sector; status NULL: never ended. */
static int64_t add_run(ma_audit *a, const char *kind, const char *root, const char *status, int64_t disc)
{
    ma_error err;
    ma_run_info info = {kind, "0.1.0", "abc", "host", "millaudit", root, "std", "open"};
    int64_t id;
    assert_int_equal(ma_audit_run_begin(a, &info, &id, &err), MA_OK);
    ma_class_count cc[] = {{"wrong-depth", (uint64_t)disc}};
    ma_sector_result s = {"std_3_3_0_0", "f.mdb", 10, 10, (uint64_t)(10 - disc), 0, (uint64_t)disc, cc, disc ? 1 : 0,
                          0.5, disc ? "discrepancies" : "ok", NULL};
    assert_int_equal(ma_audit_sector_record(a, id, &s, &err), MA_OK);
    if (status)
        assert_int_equal(ma_audit_run_end(a, id, status, &err), MA_OK);
    return id;
}

static void test_previous_run(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    int64_t r1 = add_run(a, "verify", "/db", "ok", 0);
    int64_t other = add_run(a, "verify", "/other", "ok", 0);   /* another root */
    int64_t r3 = add_run(a, "verify", "/db", "discrepancies", 3);
    int64_t diff = add_run(a, "diff", "/db", "ok", 0);         /* another kind */
    int64_t intr = add_run(a, "verify", "/db", "interrupted", 0);
    int64_t resumed = add_run(a, "verify", "/db", "resumed", 0);
    int64_t open_run = add_run(a, "verify", "/db", NULL, 0);   /* never ended */
    int64_t r8 = add_run(a, "verify", "/db", "ok", 0);
    /* an imported run of the same root is another machine's night */
    ma_run imp;
    assert_int_equal(ma_run_load(a, r3, &imp, &err), MA_OK);
    int64_t imported;
    assert_int_equal(ma_run_import(a, &imp, "night.json", &imported, &err), MA_OK);
    ma_run_free(&imp);
    int64_t r10 = add_run(a, "verify", "/db", "ok", 0);
    (void)other, (void)diff, (void)intr, (void)resumed, (void)open_run;

    int64_t p = -1;
    assert_int_equal(ma_runs_previous(a, r1, &p, &err), MA_OK);
    assert_int_equal(p, 0); /* the first run of its root */
    assert_int_equal(ma_runs_previous(a, r3, &p, &err), MA_OK);
    assert_int_equal(p, r1);
    assert_int_equal(ma_runs_previous(a, r8, &p, &err), MA_OK);
    assert_int_equal(p, r3); /* skips diff, interrupted, resumed, never ended */
    assert_int_equal(ma_runs_previous(a, r10, &p, &err), MA_OK);
    assert_int_equal(p, r8); /* skips the imported run */
    assert_int_equal(ma_runs_previous(a, diff, &p, &err), MA_EINVAL);
    assert_int_equal(ma_runs_previous(a, 999, &p, &err), MA_EMISSING);

    int64_t newest;
    assert_int_equal(ma_runs_newest(a, "verify", "/db", &newest, &err), MA_OK);
    assert_int_equal(newest, r10);
    assert_int_equal(ma_runs_newest(a, "verify", "/other", &newest, &err), MA_OK);
    assert_int_equal(newest, other);
    assert_int_equal(ma_runs_newest(a, "verify", "/nowhere", &newest, &err), MA_OK);
    assert_int_equal(newest, 0);
    ma_audit_close(a);
}

static void test_list_totals_and_filters(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    int64_t r1 = add_run(a, "verify", "/db", "ok", 0);
    int64_t r2 = add_run(a, "verify", "/db", "discrepancies", 3);
    add_run(a, "diff", "/db", "ok", 0);
    int64_t r4 = add_run(a, "verify", "/other", NULL, 0);
    ma_run_info info = {"manifest", "0.1.0", "abc", "host", "m", NULL, NULL, NULL};
    int64_t r5;
    assert_int_equal(ma_audit_run_begin(a, &info, &r5, &err), MA_OK); /* no sectors, no root */

    ma_run_list *l = NULL;
    assert_int_equal(ma_runs_list(&l, a, NULL, &err), MA_OK);
    ma_run_row *rows = l->rows;
    size_t n = l->n;
    assert_int_equal(n, 5);
    assert_int_equal(rows[0].id, r1); /* oldest first */
    assert_int_equal(rows[1].id, r2);
    assert_int_equal(rows[1].discrepancies, 3);
    assert_int_equal(rows[1].sectors, 1);
    assert_int_equal(rows[1].sectors_failing, 1);
    assert_int_equal(rows[1].entries, 10);
    assert_int_equal(rows[1].verified, 7);
    assert_string_equal(rows[1].status, "discrepancies");
    assert_non_null(rows[1].ended_at);
    assert_null(rows[3].ended_at);
    assert_int_equal(rows[3].id, r4);
    assert_int_equal(rows[4].sectors, 0);
    assert_null(rows[4].database_root);
    char *text = NULL;
    assert_int_equal(ma_runs_list_json(rows, n, f->path, &text, &err), MA_OK);
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    json_t *runs = json_object_get(doc, "runs");
    assert_int_equal(json_array_size(runs), 5);
    assert_true(json_is_null(json_object_get(json_array_get(runs, 3), "ended_at")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_array_get(runs, 1), "totals"),
                                                        "discrepancies")), 3);
    json_decref(doc);
    free(text);
    ma_run_list_free(l);

    ma_runs_filter flt = {"verify", "/db", 0};
    assert_int_equal(ma_runs_list(&l, a, &flt, &err), MA_OK);
    rows = l->rows;
    n = l->n;
    assert_int_equal(n, 2);
    ma_run_list_free(l);
    flt.last = 1;
    assert_int_equal(ma_runs_list(&l, a, &flt, &err), MA_OK);
    rows = l->rows;
    n = l->n;
    assert_int_equal(n, 1);
    assert_int_equal(rows[0].id, r2); /* the newest one */
    ma_run_list_free(l);
    flt.root = "/nowhere";
    assert_int_equal(ma_runs_list(&l, a, &flt, &err), MA_OK);
    rows = l->rows;
    n = l->n;
    assert_int_equal(n, 0);
    ma_run_list_free(l);
    ma_audit_close(a);
}

/* Issue 21, item 4: the history lists an interrupted run with its plan and the run that continued
 * it; its status stays "interrupted" (never "resumed", never a verified run). */
static void test_list_keeps_an_interrupted_run_interrupted(void **state)
{
    fixture *f = *state;
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, f->path, &err), MA_OK);
    int64_t r1 = add_run(a, "verify", "/db", "interrupted", 0);
    ma_run_meta m = {"full", 0, "{}", 0, 0, 68, 0, "all", 1000, 0, "database"};
    assert_int_equal(ma_audit_run_meta_set(a, r1, &m, &err), MA_OK);
    int64_t r2 = add_run(a, "verify", "/db", "ok", 0);
    assert_int_equal(ma_audit_run_mark_continued(a, r1, r2, &err), MA_OK);
    ma_run_list *l = NULL;
    assert_int_equal(ma_runs_list(&l, a, NULL, &err), MA_OK);
    ma_run_row *rows = l->rows;
    size_t n = l->n;
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].status, "interrupted");
    assert_int_equal(rows[0].continued_by, r2);
    assert_int_equal(rows[0].planned_sectors, 68);
    assert_int_equal(rows[0].sectors, 1);
    assert_int_equal(rows[1].continued_by, 0);
    char *text = NULL;
    assert_int_equal(ma_runs_list_json(rows, n, f->path, &text, &err), MA_OK);
    json_t *doc = json_loads(text, 0, NULL);
    json_t *first = json_array_get(json_object_get(doc, "runs"), 0);
    assert_int_equal(json_integer_value(json_object_get(first, "continued_by")), r2);
    assert_int_equal(json_integer_value(json_object_get(first, "planned_sectors")), 68);
    assert_string_equal(json_string_value(json_object_get(first, "status")), "interrupted");
    assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "runs"), 1), "continued_by")));
    json_decref(doc);
    free(text);
    ma_run_list_free(l);
    /* the night after is compared with the finished run, never with the interrupted one */
    int64_t r3 = add_run(a, "verify", "/db", "ok", 0), prev = -1;
    assert_int_equal(ma_runs_previous(a, r3, &prev, &err), MA_OK);
    assert_int_equal(prev, r2);
    assert_int_equal(ma_runs_previous(a, r2, &prev, &err), MA_OK);
    assert_int_equal(prev, 0);
    ma_audit_close(a);
}

static void test_compare_json(void **state)
{
    (void)state;
    ma_run a, b;
    make_run(&a, 1, "ok", NIGHT1, 3);
    make_run(&b, 2, "discrepancies", NIGHT2, 3);
    ma_run_cmp c;
    ma_error err;
    assert_int_equal(ma_run_compare(&c, &a, &b, &err), MA_OK);
    char *text = NULL;
    assert_int_equal(ma_run_cmp_json(&c, &a, "x.sqlite", &b, "y.sqlite", &text, &err), MA_OK);
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "result")), "differ");
    json_t *rows = json_object_get(doc, "sectors");
    assert_int_equal(json_array_size(rows), 3);
    json_t *r0 = json_array_get(rows, 0);
    assert_string_equal(json_string_value(json_object_get(r0, "name")), "std_3_3_0_0");
    assert_string_equal(json_string_value(json_object_get(r0, "values")), "same");
    assert_string_equal(json_string_value(json_object_get(r0, "bytes")), "not recorded");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "verdict")), "values");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "counts"), "differ")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "b"), "store")), "y.sqlite");
    json_decref(doc);
    free(text);
    ma_run_cmp_free(&c);
    drop_run(&a);
    drop_run(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_baseline_changes_nothing),
        cmocka_unit_test(test_planted_bug_night_regresses),
        cmocka_unit_test(test_back_to_clean_is_a_fix),
        cmocka_unit_test(test_two_verified_runs_with_other_values_regress),
        cmocka_unit_test(test_appeared_vanished_and_completeness),
        cmocka_unit_test(test_a_sector_not_checked_is_unproven_not_gone),
        cmocka_unit_test(test_failing_status_without_count),
        cmocka_unit_test(test_change_names),
        cmocka_unit_test(test_regressions_json_and_junit),
        cmocka_unit_test(test_consequences_are_named_under_their_cause),
        cmocka_unit_test(test_a_consequence_needs_a_recorded_cause),
        cmocka_unit_test(test_improvements_follow_the_fix_below_them),
        cmocka_unit_test(test_verdict_case_fails_when_no_sector_does),
        cmocka_unit_test_setup_teardown(test_previous_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_totals_and_filters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_keeps_an_interrupted_run_interrupted, setup, teardown),
        cmocka_unit_test(test_compare_json),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return rc;
}
