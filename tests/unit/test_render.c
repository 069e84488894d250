/* Unit tests for reports/render: the text board of a known position, HTML escaping of hostile
 * strings, JSON output that parses, the loud "no manifest" line, atomic writing. */
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

#include "reports/render.h"

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

static void test_html_escapes_hostile_strings(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    char *out = NULL;
    size_t len;
    ma_error err;
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_HTML, &err), MA_OK);
    assert_int_equal(strlen(out), len);
    assert_null(strstr(out, "<script"));
    assert_null(strstr(out, "<img"));
    assert_null(strstr(out, "<marquee"));
    assert_non_null(strstr(out, "&lt;marquee&gt;moved"));
    assert_null(strstr(out, "http://"));
    assert_null(strstr(out, "https://"));
    assert_non_null(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(out, "&quot;&amp;x&quot;"));
    assert_non_null(strstr(out, "h&lt;o&gt;st"));
    assert_non_null(strstr(out, "NO MANIFEST RECORDED"));
    assert_non_null(strstr(out, "<svg class=\"board\""));
    assert_non_null(strstr(out, "</html>"));
    free(out);

    char *e = ma_render_html_escape("a<b>&'\"");
    assert_string_equal(e, "a&lt;b&gt;&amp;&#39;&quot;");
    free(e);
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
    char *out = NULL;
    size_t len;
    ma_error err;
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_TEXT, &err), MA_OK);
    assert_non_null(strstr(out, "!!! NO MANIFEST RECORDED"));
    assert_non_null(strstr(out, "1 X-----X-----X"));   /* the discrepancy's board: mover on a1 d1 g1 */
    assert_non_null(strstr(out, "2 | O---O---O |"));
    assert_null(strchr(out, '\x1b'));                  /* control characters neutralised */
    assert_null(strstr(out, "\nforged line"));
    assert_non_null(strstr(out, "wrong-outcome=1"));
    free(out);
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_MD, &err), MA_OK);
    assert_non_null(strstr(out, "# millaudit report: run 7"));
    assert_non_null(strstr(out, "| std\\_3\\_3\\_0\\_0 | 210140 |"));
    assert_non_null(strstr(out, "```\n7 +-----+-----+"));
    free(out);
}

static void test_json_is_valid_and_complete(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    r.host = "bad utf-8 \xff\xfe here";
    char *out = NULL;
    size_t len;
    ma_error err;
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_JSON, &err), MA_OK);
    json_error_t je;
    json_t *doc = json_loads(out, JSON_REJECT_DUPLICATES, &je);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "format")), "millaudit-run");
    json_t *run = json_object_get(doc, "run");
    assert_string_equal(json_string_value(json_object_get(run, "command_line")), r.command_line);
    assert_string_equal(json_string_value(json_object_get(run, "host")), "bad utf-8 \\xFF\\xFE here");
    assert_true(json_is_null(json_object_get(doc, "manifest")));
    json_t *sec = json_array_get(json_object_get(doc, "sectors"), 0);
    assert_int_equal(json_integer_value(json_object_get(sec, "verified")), 210139);
    assert_int_equal(json_array_size(json_object_get(doc, "discrepancies")), 1);
    json_decref(doc);
    free(out);
}

static void test_histogram_is_charted_when_recorded(void **state)
{
    (void)state;
    ma_run r;
    ma_run_sector s;
    ma_run_discrepancy d;
    ma_run_class c;
    hostile_run(&r, &s, &d, &c);
    ma_run_bin bins[] = {{"win", 1, 400}, {"loss", 2, 100}, {"draw", 0, 7}};
    s.bins = bins;
    s.n_bins = 3;
    char *out = NULL;
    size_t len;
    ma_error err;
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_TEXT, &err), MA_OK);
    assert_non_null(strstr(out, "Outcome and depth histogram"));
    assert_null(strstr(out, "Discrepancy classes"));
    /* the largest bin gets the full 40-character bar, the others in proportion */
    const char *win = strstr(out, "  win 1 ");
    assert_non_null(win);
    assert_non_null(strstr(win, " 400 ########################################\n"));
    assert_non_null(strstr(out, " 100 ##########\n"));
    assert_non_null(strstr(out, "  draw "));
    free(out);
    assert_int_equal(ma_render_run(&out, &len, &r, MA_RENDER_HTML, &err), MA_OK);
    assert_non_null(strstr(out, "<svg class=\"chart\""));
    assert_non_null(strstr(out, ">loss 2</text>"));
    free(out);
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
        cmocka_unit_test(test_json_is_valid_and_complete),
        cmocka_unit_test(test_histogram_is_charted_when_recorded),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_atomic_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
