/* Unit tests for reports/render/render and reports/store/report: the text board of a known position, the
 * verdicts (bounds-only never good), HTML escaping of hostile strings, the JSON document's data,
 * histograms sorted by depth on a log scale, boards with the refuting move, diff's words, atomic
 * writing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "reports/render/render.h"
#include "reports/render/render_internal.h"
#include "reports/store/audit.h"
#include "reports/store/audit_run.h"
#include "reports/store/report.h"

static void test_board_text_of_a_known_position(void **state)
{
    (void)state;
    char buf[MA_RENDER_BOARD_SIZE];
    ma_error err;
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "a1,d1,b4/c3,e4,e5,g7", &err), MA_OK);
    const char *want = "7 +-----+-----O\n"
                       "  |     |     |\n"
                       "6 | +---+---+ |\n"
                       "  | |   |   | |\n"
                       "5 | | +-+-O | |\n"
                       "  | | |   | | |\n"
                       "4 +-X-+   O-+-+\n"
                       "  | | |   | | |\n"
                       "3 | | O-+-+ | |\n"
                       "  | |   |   | |\n"
                       "2 | +---+---+ |\n"
                       "  |     |     |\n"
                       "1 X-----X-----+\n"
                       "  a b c d e f g\n";
    assert_string_equal(buf, want);
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "-/-", &err), MA_OK);
    assert_null(strchr(buf, 'X'));
}

static void test_board_text_refuses_non_boards(void **state)
{
    (void)state;
    char buf[MA_RENDER_BOARD_SIZE];
    ma_error err;
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "a2/-", &err), MA_EINVAL); /* not a point */
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "a1/a1", &err), MA_EINVAL);
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "a1,d1", &err), MA_EINVAL);
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "a1,/d1", &err), MA_EINVAL);
    assert_int_equal(ma_render_board_text(buf, sizeof buf, "h9/-", &err), MA_EINVAL);
    assert_int_equal(ma_render_board_text(buf, sizeof buf, NULL, &err), MA_EINVAL);
    assert_int_equal(ma_render_board_text(buf, 10, "a1/-", &err), MA_EINVAL);
}

/* A run with hostile strings everywhere a user's input lands. */
static void hostile_run(ma_run *r, ma_run_sector *s, ma_run_discrepancy *d, ma_run_class *c)
{
    memset(r, 0, sizeof *r);
    memset(s, 0, sizeof *s);
    memset(d, 0, sizeof *d);
    r->id = 7;
    r->kind = "verify";
    r->tool_version = "0.1.0";
    r->git_revision = "abc";
    r->host = "h<o>st";
    r->command_line = "millaudit verify '<script>alert(1)</script>' \"&x\" --audit a.sqlite";
    r->database_root = "/tmp/<img src=x onerror=y>";
    r->started_at = "2026-11-22T10:00:00.000Z";
    r->status = "discrepancies";
    c->cls = "wrong-outcome";
    c->count = 1;
    s->sector = "std_3_3_0_0";
    s->file = "/tmp/x.mdb";
    s->message = "<marquee>moved</marquee>";
    s->entries = 210140;
    s->checked = 210140;
    s->verified = 210139;
    s->discrepancies = 1;
    s->status = "discrepancies";
    s->classes = c;
    s->n_classes = 1;
    r->sectors = s;
    r->n_sectors = 1;
    d->sector = "std_3_3_0_0";
    d->entry = 42;
    d->board = "a1,d1,g1/b2,d2,f2";
    d->stored = "win 3 (0xC003)";
    d->derived = "loss 2";
    d->cls = "wrong-outcome";
    r->disc = d;
    r->n_disc = 1;
}

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The report of a hand-built run (no store); free with done(). */
static void derive(ma_report *rep, const ma_run *r)
{
    memset(rep, 0, sizeof *rep);
    rep->run = *r;
    ma_error err;
    assert_int_equal(ma_report_derive(rep, &err), MA_OK);
}

static void done(ma_report *rep)
{
    ma_report_release(rep); /* the run's strings are the test's */
}

__attribute__((noinline)) static char *render(const ma_report *rep, ma_render_format fmt)
{
    char *out = NULL;
    size_t len;
    ma_error err;
    assert_int_equal(ma_render_report(&out, &len, rep, fmt, &err), MA_OK);
    assert_int_equal(strlen(out), len);
    return out;
}

static void test_html_escapes_hostile_strings(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.imported = 1;
    r.import_source = "<b>doc</b>.json";
    r.imported_at = "<script>x</script>";
    ma_report rep;
    derive(&rep, &r);
    char *out = render(&rep, MA_RENDER_HTML);
    assert_null(strstr(out, "<script"));
    assert_null(strstr(out, "<img"));
    assert_null(strstr(out, "<marquee"));
    assert_null(strstr(out, "<b>doc"));
    assert_non_null(strstr(out, "&lt;marquee&gt;moved"));
    assert_null(strstr(out, "http://"));
    assert_null(strstr(out, "https://"));
    assert_non_null(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(out, "&lt;script&gt;x&lt;/script&gt;"));
    assert_non_null(strstr(out, "&quot;&amp;x&quot;"));
    assert_non_null(strstr(out, "h&lt;o&gt;st"));
    assert_non_null(strstr(out, "NO MANIFEST RECORDED"));
    assert_non_null(strstr(out, "<svg class=\"board\""));
    assert_non_null(strstr(out, "</html>"));
    /* the verdict comes before everything else in the body */
    char *verdict = strstr(out, "id=\"verdict\""), *sectors = strstr(out, "id=\"sectors\"");
    assert_non_null(verdict);
    assert_true(verdict < sectors && verdict < strstr(out, "NO MANIFEST"));
    assert_non_null(strstr(out, "class=\"verdict bad\" data-state=\"discrepancies\""));
    free(out);
    done(&rep);

    char *e = ma_render_html_escape("a<b>&'\"");
    assert_string_equal(e, "a&lt;b&gt;&amp;&#39;&quot;");
    free(e);
}

/* What a report exists to show comes first (issue 23): the root discrepancy before the
 * propagated ones that sort before it by sector name; in the per-sector chart the faulty sector
 * first, and its one bad entry of 7.5 million a red mark of fixed width at any scale. */
static void test_the_fault_comes_first_and_is_visible(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s[3];
    ma_run_discrepancy d[3];
    ma_run_class c;
    hostile_run(&r, &s[0], &d[0], &c);
    r.command_line = "millaudit verify db";
    r.database_root = "db";
    s[0].message = NULL;
    /* sectors in name order: two clean ones, then the faulty one */
    s[1] = s[0], s[2] = s[0];
    s[0].sector = "std_2_2_1_1", s[1].sector = "std_2_3_1_0", s[2].sector = "std_3_3_0_0";
    s[0].entries = s[0].checked = s[0].verified = 6930;
    s[0].discrepancies = 1; /* propagated */
    s[1].entries = s[1].checked = s[1].verified = 46200;
    s[1].discrepancies = 1; /* propagated */
    s[0].verified--, s[1].verified--;
    s[2].entries = s[2].checked = 7500000;
    s[2].verified = 7499999;
    s[2].discrepancies = 1; /* the root */
    r.sectors = s;
    r.n_sectors = 3;
    d[1] = d[0], d[2] = d[0];
    d[0].sector = "std_2_2_1_1", d[0].entry = 5;
    d[1].sector = "std_2_3_1_0", d[1].entry = 7;
    d[2].sector = "std_3_3_0_0", d[2].entry = 42;
    r.disc = d;
    r.n_disc = 3;
    ma_report rep;
    derive(&rep, &r);
    rep.dx[0].root = 0, rep.dx[1].root = 0, rep.dx[2].root = 1;
    rep.sx[0].roots = 0, rep.sx[1].roots = 0, rep.sx[2].roots = 1;
    for (int fmt = MA_RENDER_TEXT; fmt <= MA_RENDER_HTML; fmt++) {
        if (fmt == MA_RENDER_JSON)
            continue; /* data, in recorded order */
        char *out = render(&rep, (ma_render_format)fmt);
        const char *list = strstr(out, fmt == MA_RENDER_HTML ? "id=\"discrepancies\"" : "Discrepancies, root sectors first (3 rows");
        assert_non_null(list);
        int md = fmt == MA_RENDER_MD; /* Markdown escapes the underscores */
        const char *root = strstr(list, md ? "std\\_3\\_3\\_0\\_0" : "std_3_3_0_0");
        const char *prop = strstr(list, md ? "std\\_2\\_2\\_1\\_1" : "std_2_2_1_1");
        const char *prop2 = strstr(list, md ? "std\\_2\\_3\\_1\\_0" : "std_2_3_1_0");
        assert_non_null(root);
        assert_non_null(prop);
        assert_non_null(prop2);
        assert_true(root < prop && root < prop2);
        free(out);
    }
    char *out = render(&rep, MA_RENDER_HTML);
    const char *chart = strstr(out, "data-chart=\"proof\"");
    assert_non_null(chart);
    const char *end = strstr(chart, "</figure>");
    /* the faulty sector is the first row of the chart */
    const char *first = strstr(chart, "text-anchor=\"end\">");
    assert_non_null(first);
    assert_true(!strncmp(first + strlen("text-anchor=\"end\">"), "std_3_3_0_0", 11));
    /* every sector with a discrepancy has a fault mark at least 2 px wide, the others none */
    int marks = 0;
    for (const char *m = strstr(chart, "class=\"fault\""); m && m < end; m = strstr(m + 1, "class=\"fault\"")) {
        const char *w = strstr(m, "width=\"");
        assert_non_null(w);
        assert_true(atof(w + 7) >= 2.0);
        marks++;
    }
    assert_int_equal(marks, 3);
    free(out);
    done(&rep);
}

/* A run over several variants draws one depth histogram per variant and names the variants
 * instead of "-"; the W/D/L chart says which sectors it leaves out (issue 23). */
static void test_variants_are_never_pooled(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s[3];
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s[0], &d, &c);
    r.n_disc = 0;
    r.variant = "-";
    r.database_root = "db";
    r.command_line = "millaudit verify db";
    s[0].message = NULL;
    s[0].discrepancies = 0;
    s[0].verified = s[0].entries;
    s[0].n_classes = 0;
    s[0].status = "ok";
    s[1] = s[0], s[2] = s[0];
    s[0].sector = "lask_3_3_0_0", s[1].sector = "std_3_3_0_0", s[2].sector = "std_3_4_0_0";
    s[2].within_bounds = 10, s[2].verified -= 10, s[2].status = "within-bounds";
    static ma_run_bin lask_bins[] = {{"win", 7, 100}, {"loss", 6, 50}};
    static ma_run_bin std_bins[] = {{"win", 3, 1000}, {"draw", 0, 10}};
    s[0].bins = lask_bins, s[0].n_bins = 2;
    s[1].bins = std_bins, s[1].n_bins = 2;
    r.sectors = s;
    r.n_sectors = 3;
    ma_report rep;
    derive(&rep, &r);
    rep.sx[0].wins = 100, rep.sx[0].draws = 0, rep.sx[0].losses = 50;
    rep.sx[1].wins = 1000, rep.sx[1].draws = 10, rep.sx[1].losses = 0;
    rep.sx[2].wins = -1; /* within bounds: no histogram */
    char *out = render(&rep, MA_RENDER_HTML);
    assert_non_null(strstr(out, "Outcomes by depth (plies) of lask,"));
    assert_non_null(strstr(out, "Outcomes by depth (plies) of std,"));
    const char *wdl = strstr(out, "data-chart=\"wdl\"");
    assert_non_null(wdl);
    assert_non_null(strstr(wdl, "1 of 3 sectors not shown: no outcome histogram recorded"));
    assert_non_null(strstr(out, "lask, std"));
    free(out);
    out = render(&rep, MA_RENDER_TEXT);
    assert_non_null(strstr(out, "lask, std"));
    free(out);
    /* the one fold both renderers draw from: by variant, all pooled, capped, one sector only */
    int64_t wins[8] = {0}, losses[8] = {0};
    ma_render_depths dp;
    assert_int_equal(ma_render_depth_bins(&rep, "lask", wins, losses, 8, &dp), 1);
    assert_int_equal(wins[7], 100), assert_int_equal(losses[6], 50), assert_int_equal(wins[3], 0);
    assert_int_equal(dp.draws, 0), assert_int_equal(dp.max, 100), assert_int_equal(dp.maxd, 7);
    memset(wins, 0, sizeof wins), memset(losses, 0, sizeof losses);
    assert_int_equal(ma_render_depth_bins(&rep, NULL, wins, losses, 7, &dp), 1);
    assert_int_equal(wins[3], 1000), assert_int_equal(losses[6], 50), assert_int_equal(wins[7], 0); /* past the cap */
    assert_int_equal(dp.draws, 10), assert_int_equal(dp.max, 1000), assert_int_equal(dp.maxd, 6);
    memset(wins, 0, sizeof wins), memset(losses, 0, sizeof losses);
    assert_int_equal(ma_render_depth_bins(&rep, "mora", wins, losses, 8, &dp), 0);
    assert_int_equal(dp.maxd, -1), assert_int_equal(dp.max, 0);
    rep.only = "std_3_4_0_0"; /* shown alone, and it has no histogram */
    assert_int_equal(ma_render_depth_bins(&rep, NULL, wins, losses, 8, &dp), 0);
    rep.only = NULL;
    done(&rep);
}

static void test_text_and_markdown(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.command_line = "evil\x1b[2J\nforged line";
    r.imported = 1;
    r.import_source = "doc.json";
    r.imported_at = "2026\x1b[31m<script>|x|";
    ma_report rep;
    derive(&rep, &r);
    char *out = render(&rep, MA_RENDER_TEXT);
    assert_true(starts(out, "millaudit report: run 7 (verify)\nverdict: discrepancies found: 1"));
    assert_non_null(strstr(out, "!!! NO MANIFEST RECORDED"));
    assert_true(strstr(out, "Appendix A") < strstr(out, "!!! NO MANIFEST")); /* the manifest is an appendix */
    assert_non_null(strstr(out, "1 X-----X-----X"));   /* the discrepancy's board: mover on a1 d1 g1 */
    assert_non_null(strstr(out, "2 | O---O---O |"));
    assert_null(strchr(out, '\x1b'));                  /* control characters neutralised, imported_at too */
    assert_null(strstr(out, "\nforged line"));
    assert_non_null(strstr(out, "2026?[31m<script>|x|"));
    assert_non_null(strstr(out, "wrong-outcome=1"));
    assert_non_null(strstr(out, "stored win 3 (0xC003), derived loss 2"));
    assert_non_null(strstr(out, "X to move; stones in hand: X 0, O 0"));
    assert_non_null(strstr(out, "\n  total "));
    free(out);
    out = render(&rep, MA_RENDER_MD);
    assert_true(starts(out, "# millaudit report: run 7 (verify)\n\n> **Verdict: discrepancies found: 1"));
    assert_non_null(strstr(out, "| std\\_3\\_3\\_0\\_0 | 210,140 |"));
    assert_non_null(strstr(out, "| **total** | 210,140 |"));
    assert_non_null(strstr(out, "```\n7 +-----+-----+"));
    assert_null(strstr(out, "<script"));               /* Markdown would pass raw HTML through */
    assert_non_null(strstr(out, "2026?\\[31m&lt;script>\\|x\\|"));
    free(out);
    done(&rep);
}

static void test_json_is_valid_and_holds_data(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.host = "bad utf-8 \xff\xfe here";
    ma_report rep;
    derive(&rep, &r);
    char *out = render(&rep, MA_RENDER_JSON);
    json_error_t je;
    json_t *doc = json_loads(out, JSON_REJECT_DUPLICATES, &je);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "format")), "millaudit-report");
    assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), 3);
    assert_true(starts(out, "{\n \"schema_version\": 3,\n \"format\": \"millaudit-report\",\n \"verdict\""));
    json_t *v = json_object_get(doc, "verdict");
    assert_string_equal(json_string_value(json_object_get(v, "state")), "discrepancies");
    assert_true(json_is_false(json_object_get(v, "good")));
    json_t *run = json_object_get(doc, "run");
    assert_string_equal(json_string_value(json_object_get(run, "command_line")), r.command_line);
    assert_string_equal(json_string_value(json_object_get(run, "host")), "bad utf-8 \\xff\\xfe here");
    assert_true(json_is_null(json_object_get(doc, "manifest")));
    json_t *sec = json_array_get(json_object_get(doc, "sectors"), 0);
    assert_int_equal(json_integer_value(json_object_get(sec, "verified")), 210139);
    assert_true(json_is_null(json_object_get(sec, "carried_from")));
    json_t *row = json_array_get(json_object_get(doc, "discrepancies"), 0);
    json_t *stored = json_object_get(row, "stored"), *derived = json_object_get(row, "derived");
    assert_string_equal(json_string_value(json_object_get(stored, "outcome")), "win");
    assert_int_equal(json_integer_value(json_object_get(stored, "depth")), 3);
    assert_string_equal(json_string_value(json_object_get(stored, "text")), "win 3 (0xC003)");
    assert_string_equal(json_string_value(json_object_get(derived, "outcome")), "loss");
    assert_int_equal(json_integer_value(json_object_get(derived, "depth")), 2);
    assert_true(json_is_null(json_object_get(row, "root")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "totals"), "discrepancies")), 1);
    json_decref(doc);
    free(out);
    done(&rep);
}

static void test_histogram_is_sorted_by_depth_on_a_log_scale(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    /* as the store orders them: by outcome, then depth as text would put 22 before 4 */
    ma_run_bin bins[] = {{"draw", 0, 7}, {"loss", 22, 10}, {"loss", 4, 100000}, {"win", 1, 1000}, {"win", 13, 1}};
    s.bins = bins;
    s.n_bins = 5;
    ma_report rep;
    derive(&rep, &r);
    char *out = render(&rep, MA_RENDER_TEXT);
    char *wins = strstr(out, "  wins by depth"), *losses = strstr(out, "  losses by depth");
    assert_non_null(wins);
    assert_non_null(losses);
    assert_true(wins < losses);
    char *l4 = strstr(losses, "\n       4 "), *l22 = strstr(losses, "\n      22 ");
    assert_non_null(l4);
    assert_non_null(l22);
    assert_true(l4 < l22); /* sorted by depth */
    /* log scale: 100000 gets the full 40 characters, 10 about a fifth of it, 1 still one */
    assert_non_null(strstr(l4, " 100,000 ########################################\n"));
    char *bar10 = strstr(l22, " 10 ");
    assert_non_null(bar10);
    size_t n10 = strspn(bar10 + 4, "#");
    assert_true(n10 >= 6 && n10 <= 10);
    assert_non_null(strstr(out, "  draws              7\n"));
    free(out);
    out = render(&rep, MA_RENDER_HTML);
    assert_non_null(strstr(out, "data-chart=\"depths\""));
    assert_non_null(strstr(out, "<title>depth 22: 10 losses</title>"));
    assert_non_null(strstr(out, "data-chart=\"wdl\""));
    assert_null(strstr(out, "data-chart=\"wdl\" class=\"empty\""));
    free(out);
    done(&rep);
}

static void test_bounds_only_is_never_good_or_ok(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.status = "ok"; /* what a build before the run engine recorded for a bounds-only Malom run */
    r.ended_at = "2026-11-22T10:00:01.000Z";
    s.status = "incomplete";
    s.verified = 200000;
    s.within_bounds = 10140;
    s.discrepancies = 0;
    s.n_classes = 0;
    s.message = "std_3_3_0_0.sec2: sector 3_3_0_0: missing-child: std_3_4_5_4.sec2, mora_2_4_5_4.sec absent";
    r.n_disc = 0;
    ma_report rep;
    derive(&rep, &r);
    assert_int_equal(rep.verdict.state, MA_VERDICT_WITHIN_BOUNDS);
    assert_false(rep.verdict.good);
    assert_int_equal(rep.verdict.unproven, 10140);
    assert_string_equal(rep.verdict.headline, "verified within bounds only (10,140 entries unproven)");
    /* what was missing, named: the successors, not the sector's own file */
    assert_string_equal(rep.verdict.details[0], "successor files absent: std_3_4_5_4.sec2, mora_2_4_5_4.sec (2 in all)");
    r.status = "incomplete"; /* the same run without --allow-bounds */
    done(&rep);
    derive(&rep, &r);
    assert_int_equal(rep.verdict.state, MA_VERDICT_INCOMPLETE);
    assert_string_equal(rep.verdict.headline, "incomplete: 2 successor files absent (std_3_4_5_4.sec2, mora_2_4_5_4.sec); "
                                              "10,140 entries only within bounds");
    r.status = "ok";
    done(&rep);
    derive(&rep, &r);
    char *out = render(&rep, MA_RENDER_HTML);
    assert_non_null(strstr(out, "class=\"verdict warn\" data-state=\"within-bounds\""));
    assert_null(strstr(out, "class=\"verdict good\""));
    assert_null(strstr(out, "span class=\"st good\">within"));
    free(out);
    out = render(&rep, MA_RENDER_TEXT);
    assert_non_null(strstr(out, "verdict: verified within bounds only (10,140 entries unproven)\n"));
    assert_null(strstr(out, "fully verified:"));
    assert_non_null(strstr(out, "within bounds only\n")); /* the sector's state, not "ok" */
    free(out);
    done(&rep);
}

static void test_verdicts(void **state)
{
    (void)state;
    ma_verdict v;
    ma_verdict_counts c;
    memset(&c, 0, sizeof c);
    c.kind = "verify", c.status = "ok", c.ended = 1, c.sectors = 7, c.entries = c.checked = c.verified = 264399;
    c.unverifiable = c.roots = c.propagated = -1;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_VERIFIED);
    assert_true(v.good);
    assert_string_equal(v.headline, "fully verified: 264,399 entries in 7 sectors, every value and depth re-derived");

    c.unverifiable = 3; /* a successor word that is a bad encoding: not proven, and not within
                         * bounds either: verify calls such a run incomplete, so does the report */
    c.verified -= 3;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INCOMPLETE);
    assert_false(v.good);
    assert_false(v.within_bounds);
    assert_int_equal(v.not_verified, 3);
    assert_int_equal(v.unproven, 3);
    assert_string_equal(v.headline, "incomplete: inputs missing or unusable (3 entries not verified)");
    c.status = "discrepancies", c.discrepancies = 2, c.roots = 2, c.propagated = 0, c.verified -= 2;
    ma_verdict_decide(&c, &v); /* the disagreement of issue 44: never "within bounds only" for these */
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_false(v.within_bounds);
    assert_string_equal(v.details[0], "not verified: 3 entries (a successor absent, unusable or holding a bad value)");
    c.status = "ok", c.discrepancies = 0, c.roots = c.propagated = -1, c.verified += 2;
    c.verified += 3; /* a recorded status "ok" with entries left unaccounted is never verified */
    c.entries += 1;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INCOMPLETE);
    c.entries -= 1;
    c.verified -= 3;
    c.unverifiable = 0;
    c.verified += 3;

    /* damage (docs/download.md): its own verdict, in verify's words */
    c.files_damaged = 3, c.sectors_damaged = 2, c.sectors_input_damaged = 1, c.sectors_ok = 4;
    c.verified -= 30, c.unchecked_entries = 30, c.damage_published = 1, c.status = "damaged";
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DAMAGED);
    assert_false(v.good);
    assert_false(v.incomplete); /* the entries not verified are the damaged sectors' */
    assert_string_equal(v.headline, "damaged: 3 files differ from what was published; the other 4 sectors verified; "
                                    "1 sector not checked (it reads a damaged file)");
    c.damage_published = 0, c.files_damaged = 1, c.sectors_ok = 3;
    ma_verdict_decide(&c, &v);
    assert_string_equal(v.headline, "damaged: 1 file differs from what its producer wrote; of the other 4 sectors, "
                                    "3 verified; 1 sector not checked (it reads a damaged file)");
    c.discrepancies = 1, c.roots = 1, c.propagated = 0, c.verified -= 1; /* in intact files: the solver's */
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_true(v.damaged);
    assert_non_null(strstr(v.details[0], "damaged: 1 file differs"));
    c.discrepancies = 0, c.roots = c.propagated = -1, c.verified += 31, c.unchecked_entries = 0;
    c.files_damaged = c.sectors_damaged = c.sectors_input_damaged = c.sectors_ok = 0, c.status = "ok";

    c.discrepancies = 3, c.roots = 1, c.propagated = 2;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_string_equal(v.headline, "discrepancies found: 3 (1 root, 2 propagated)");
    c.ended = 0; /* found before the run was killed: still the headline, interruption a detail */
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_true(v.interrupted);
    assert_non_null(strstr(v.details[0], "interrupted"));
    c.discrepancies = 0;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INTERRUPTED);
    assert_false(v.good);
    c.ended = 1;

    c.body_mismatches = 1, c.status = "discrepancies"; /* every value verifies, the header's digest does not */
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_string_equal(v.headline, "discrepancies found: 1 file whose body does not match the digest in its header");
    c.body_mismatches = 0, c.status = "ok";

    c.status = "unusable", c.sectors_unusable = 2; /* older stores; v4 says "incomplete" */
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INCOMPLETE);
    assert_string_equal(v.headline, "incomplete: 2 sectors could not be checked");
    c.status = "incomplete", c.sectors_unusable = 0, c.within_bounds = 5;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INCOMPLETE);
    assert_non_null(strstr(v.headline, "5 entries only within bounds"));
    c.status = "within-bounds";
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_WITHIN_BOUNDS);

    memset(&c, 0, sizeof c);
    c.kind = "diff", c.status = "ok", c.ended = 1, c.sectors = 3, c.entries = 100, c.encoding = 100;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_AGREE);
    assert_true(v.good);
    assert_string_equal(v.headline, "values agree: 100 positions in 3 sectors");
    assert_string_equal(v.details[0], "100 encoding differences (same values, other bytes)");
    c.only_b = 1;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DIFFER);
    c.only_b = 0, c.value_differences = 1;
    ma_verdict_decide(&c, &v);
    assert_string_equal(v.headline, "values differ: 1 position differs in value");

    memset(&c, 0, sizeof c);
    c.kind = "manifest", c.status = "ok", c.ended = 1, c.files = 2, c.bytes = 1234;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_RECORDED);
    assert_string_equal(v.headline, "manifest recorded: 2 files, 1,234 bytes");
    assert_string_equal(ma_verdict_state_name(MA_VERDICT_WITHIN_BOUNDS), "within-bounds");
}

static void test_values_moves_and_hands(void **state)
{
    (void)state;
    ma_report_value v;
    assert_int_equal(ma_report_parse_value("loss 2 (0x4002)", &v), 0);
    assert_string_equal(v.outcome, "loss");
    assert_int_equal(v.depth, 2);
    assert_string_equal(v.bound, "exact");
    free(v.outcome), free(v.bound);
    assert_int_equal(ma_report_parse_value(">= win 5 (3,4)", &v), 0);
    assert_string_equal(v.outcome, "win");
    assert_int_equal(v.depth, 5);
    assert_string_equal(v.bound, "lower");
    free(v.outcome), free(v.bound);
    assert_int_equal(ma_report_parse_value("draw (count 3)", &v), 0);
    assert_string_equal(v.outcome, "draw");
    assert_int_equal(v.depth, -1);
    free(v.outcome), free(v.bound);
    const char *unknown[] = {"0xC00C", "marker op 3", "winner 3", "win", "", NULL};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        assert_int_equal(ma_report_parse_value(unknown[i], &v), 0);
        assert_null(v.outcome);
    }

    int m, o;
    ma_report_in_hand("std_2_2_1_1", &m, &o);
    assert_int_equal(m, 1);
    assert_int_equal(o, 1);
    ma_report_in_hand("mora_0_1_12_11", &m, &o);
    assert_int_equal(m, 12);
    assert_int_equal(o, 11);
    ma_report_in_hand("5_4_3_2", &m, &o);
    assert_int_equal(m, 3);
    ma_report_in_hand("std_x_2_1_1", &m, &o);
    assert_int_equal(m, -1);
    ma_report_in_hand("2_1_1", &m, &o);
    assert_int_equal(m, -1);
    ma_report_in_hand("std_2__1_1", &m, &o);
    assert_int_equal(m, -1);
}

static void test_board_svg_has_coordinates_hands_and_the_refuting_move(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    s.sector = d.sector = "std_3_3_2_1";
    ma_report rep;
    derive(&rep, &r);
    rep.dx[0].move = strdup("d2-d3xb2");
    rep.dx[0].successor = strdup("a1,d3,g1/d2,f2");
    rep.dx[0].root = 1;
    rep.dx[0].offset = 212;
    char *out = render(&rep, MA_RENDER_HTML);
    assert_non_null(strstr(out, "<g class=\"move\"><circle"));  /* the target point ringed, an arrow to it */
    assert_non_null(strstr(out, "<polygon points="));
    assert_non_null(strstr(out, "<path class=\"capture\""));
    assert_non_null(strstr(out, ">a</text>"));
    assert_non_null(strstr(out, ">g</text>"));
    assert_non_null(strstr(out, ">7</text>"));
    assert_non_null(strstr(out, "X to move; in hand:"));
    assert_non_null(strstr(out, "&#215;2</text>"));             /* mover's 2 stones in hand */
    assert_non_null(strstr(out, "refuted by <code>d2-d3xb2</code>"));
    assert_non_null(strstr(out, "<span class=\"root\">root</span>"));
    free(out);
    out = render(&rep, MA_RENDER_TEXT);
    assert_non_null(strstr(out, "std_3_3_2_1 entry 42 (offset 212): wrong-outcome (root)\n"));
    assert_non_null(strstr(out, "    refuted by d2-d3xb2 (successor a1,d3,g1/d2,f2)\n"));
    assert_non_null(strstr(out, "X to move; stones in hand: X 2, O 1"));
    free(out);
    done(&rep);

    ma_move m;
    assert_int_equal(ma_render_move_parse("place g7", &m), 0);
    assert_int_equal(m.kind, 1);
    assert_string_equal(m.to, "g7");
    assert_int_equal(ma_render_move_parse("d2-d3xa1", &m), 0);
    assert_string_equal(m.from, "d2");
    assert_string_equal(m.capture, "a1");
    assert_int_equal(ma_render_move_parse("place a1xg7", &m), 0);
    assert_string_equal(m.capture, "g7");
    assert_int_equal(ma_render_move_parse("a2-a3", &m), -1); /* not points of the board */
    assert_int_equal(ma_render_move_parse("d2-d3x", &m), -1);
    assert_int_equal(ma_render_move_parse("d2-d3 junk", &m), -1);
    assert_int_equal(ma_render_move_parse(NULL, &m), -1);
}

static void test_diff_runs_speak_of_a_and_b(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.kind = "diff";
    r.database_root = "/data/A";
    c.cls = "depth";
    s.message = NULL;
    ma_report rep;
    derive(&rep, &r);
    for (int f = 0; f < 4; f++) {
        char *out = render(&rep, (ma_render_format)f);
        if (f != MA_RENDER_JSON) {
            assert_non_null(strstr(out, "A says"));
            assert_non_null(strstr(out, "B says"));
            assert_null(strstr(out, "derived"));
            assert_null(strstr(out, "within bounds"));
            assert_null(strstr(out, "NO MANIFEST"));
            assert_non_null(strstr(out, "values differ"));
        } else {
            assert_non_null(strstr(out, "\"a\": {"));
            assert_null(strstr(out, "\"derived\""));
        }
        free(out);
    }
    done(&rep);
}

static void test_format_names(void **state)
{
    (void)state;
    ma_render_format f;
    ma_error err;
    assert_int_equal(ma_render_format_parse("html", &f, &err), MA_OK);
    assert_int_equal(f, MA_RENDER_HTML);
    assert_int_equal(ma_render_format_parse("md", &f, &err), MA_OK);
    assert_int_equal(f, MA_RENDER_MD);
    assert_int_equal(ma_render_format_parse("pdf", &f, &err), MA_EINVAL);
}

/* Issue 21, item 4: an interrupted run says "interrupted: K of N sectors checked" for good, also
 * after a resume continued it, and a store written before v7 ('resumed') reads the same way. */
static void test_interrupted_verdict_is_k_of_n(void **state)
{
    (void)state;
    ma_verdict v;
    ma_verdict_counts c;
    memset(&c, 0, sizeof c);
    c.kind = "verify", c.status = "interrupted", c.ended = 1, c.sectors = 68, c.sectors_not_checked = 26;
    c.planned_sectors = 68, c.entries = 91000000, c.checked = c.verified = 38237011, c.roots = c.propagated = 0;
    c.continued_by = 2;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INTERRUPTED);
    assert_false(v.good);
    assert_string_equal(v.headline,
                        "interrupted: 42 of 68 sectors checked, no discrepancy among them; NOT verified; continued by run 2");
    assert_string_equal(v.details[0], "38,237,011 of 91,000,000 entries fully verified");
    /* a status that says otherwise does not make it a proof: the unreached sectors do */
    c.status = "ok";
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INTERRUPTED);
    /* what builds before v7 recorded: 'resumed', no plan rows, the plan's size only */
    c.status = "resumed", c.sectors = 42, c.sectors_not_checked = 0, c.continued_by = 0;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INTERRUPTED);
    assert_non_null(strstr(v.headline, "interrupted: 42 of 68 sectors checked"));
    /* discrepancies lead; the interruption follows with its figures */
    c.discrepancies = 3, c.roots = 1, c.propagated = 2, c.continued_by = 5;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_DISCREPANCIES);
    assert_string_equal(v.details[0], "interrupted: 42 of 68 sectors checked; continued by run 5");
    /* one sector of the plan the run never reached */
    memset(&c, 0, sizeof c);
    c.kind = "verify", c.status = "not-checked", c.ended = 1, c.sectors = 1, c.sectors_not_checked = 1, c.entries = 9;
    ma_verdict_decide(&c, &v);
    assert_int_equal(v.state, MA_VERDICT_INTERRUPTED);
    assert_false(v.good);
}

/* The report of an interrupted run read from a store: the planned sectors it never reached are
 * listed "not checked" (entries counted, nothing verified) in text and JSON. */
static void test_report_of_an_interrupted_run_lists_unreached_sectors(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_render_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/a.sqlite", dir);
    ma_audit *a;
    ma_error err;
    assert_int_equal(ma_audit_open(&a, path, &err), MA_OK);
    ma_run_info info = {"verify", "1.0", "abc", "here", "millaudit verify /db", "/db", "std", "open"};
    int64_t id, next;
    assert_int_equal(ma_audit_run_begin(a, &info, &id, &err), MA_OK);
    ma_run_meta m = {"full", 0, "{}", 0, 0, 2, 0, "all", 1000, 0, "database"};
    assert_int_equal(ma_audit_run_meta_set(a, id, &m, &err), MA_OK);
    ma_planned_sector plan[] = {{"std_3_3_0_0", "/db/std_3_3_0_0.mdb", 600}, {"std_2_3_1_0", "/db/std_2_3_1_0.mdb", 400}};
    assert_int_equal(ma_audit_run_plan_record(a, id, plan, 2, &err), MA_OK);
    ma_sector_result s = {"std_2_3_1_0", "/db/std_2_3_1_0.mdb", 400, 400, 400, 0, 0, NULL, 0, 0.5, "ok", NULL};
    assert_int_equal(ma_audit_sector_record(a, id, &s, &err), MA_OK);
    assert_int_equal(ma_audit_run_end(a, id, "interrupted", &err), MA_OK);
    assert_int_equal(ma_audit_run_begin(a, &info, &next, &err), MA_OK);
    assert_int_equal(ma_audit_run_mark_continued(a, id, next, &err), MA_OK);
    ma_report rep;
    assert_int_equal(ma_report_load(a, id, &rep, &err), MA_OK);
    assert_int_equal(rep.run.n_sectors, 2);
    assert_string_equal(rep.run.sectors[1].sector, "std_3_3_0_0"); /* sorted with the recorded ones */
    assert_string_equal(rep.run.sectors[1].status, "not-checked");
    assert_int_equal(rep.totals.entries, 1000);
    assert_int_equal(rep.totals.verified, 400);
    assert_int_equal(rep.continued_by, next);
    assert_int_equal(rep.verdict.state, MA_VERDICT_INTERRUPTED);
    assert_non_null(strstr(rep.verdict.headline, "interrupted: 1 of 2 sectors checked"));
    char *out = render(&rep, MA_RENDER_TEXT);
    assert_non_null(strstr(out, "not checked"));
    assert_non_null(strstr(out, "continued by"));
    assert_null(strstr(out, "fully verified:"));
    free(out);
    out = render(&rep, MA_RENDER_JSON);
    json_t *doc = json_loads(out, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "totals"), "sectors_not_checked")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "run"), "continued_by")), next);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "verdict"), "state")), "interrupted");
    json_decref(doc);
    free(out);
    ma_report_free(&rep);
    ma_audit_close(a);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_atomic_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_render_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/report.txt", dir);
    ma_error err;
    assert_int_equal(ma_render_write_atomic(path, "hello\n", 6, &err), MA_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[16] = {0};
    assert_int_equal(fread(buf, 1, sizeof buf, f), 6);
    fclose(f);
    assert_string_equal(buf, "hello\n");
    char bad[160];
    snprintf(bad, sizeof bad, "%s/missing/report.txt", dir);
    assert_int_equal(ma_render_write_atomic(bad, "x", 1, &err), MA_EIO);
    assert_non_null(strstr(err.msg, bad));
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left behind */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_text_of_a_known_position),
        cmocka_unit_test(test_board_text_refuses_non_boards),
        cmocka_unit_test(test_html_escapes_hostile_strings),
        cmocka_unit_test(test_text_and_markdown),
        cmocka_unit_test(test_interrupted_verdict_is_k_of_n),
        cmocka_unit_test(test_report_of_an_interrupted_run_lists_unreached_sectors),
        cmocka_unit_test(test_the_fault_comes_first_and_is_visible),
        cmocka_unit_test(test_variants_are_never_pooled),
        cmocka_unit_test(test_json_is_valid_and_holds_data),
        cmocka_unit_test(test_histogram_is_sorted_by_depth_on_a_log_scale),
        cmocka_unit_test(test_bounds_only_is_never_good_or_ok),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_values_moves_and_hands),
        cmocka_unit_test(test_board_svg_has_coordinates_hands_and_the_refuting_move),
        cmocka_unit_test(test_diff_runs_speak_of_a_and_b),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_atomic_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
