/* Unit tests for common/json_text: a store's string as JSON, odd bytes spelled \xNN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/json_text.h"

static void expect_text(const char *in, const char *want)
{
    json_t *j = ma_json_store_text(in);
    assert_non_null(j);
    assert_true(json_is_string(j));
    assert_string_equal(json_string_value(j), want);
    json_decref(j);
}

static void test_null_is_json_null(void **state)
{
    (void)state;
    json_t *j = ma_json_store_text(NULL);
    assert_true(json_is_null(j));
    json_decref(j);
    j = ma_json_text(NULL); /* the variant for values that are never null */
    assert_string_equal(json_string_value(j), "");
    json_decref(j);
}

static void test_valid_utf8_unchanged(void **state)
{
    (void)state;
    expect_text("", "");
    expect_text("/data/std db", "/data/std db");
    expect_text("/data/M\xC3\xBChle", "/data/M\xC3\xBChle"); /* "Mühle" */
}

static void test_invalid_bytes_escaped(void **state)
{
    (void)state;
    /* a lone Latin-1 byte and a truncated sequence are escaped; a valid sequence beside them is
     * kept (one escaper for the whole tool: verify --json and the JSON report spell a name alike) */
    expect_text("/data/M\xFChle", "/data/M\\xfchle");
    expect_text("a\xC3", "a\\xc3");
    expect_text("\xC3\xBC\xFF", "\xC3\xBC\\xff");
    expect_text("\xE0\x80\x80", "\\xe0\\x80\\x80"); /* overlong */
    expect_text("\xED\xA0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
    expect_text("\xF5\x80\x80", "\\xf5\\x80\\x80"); /* no lead byte of any sequence */
    expect_text("\xF4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* beyond U+10FFFF */
    expect_text("\xF0\x9F\x98\x80 \xE2\x82\xAC", "\xF0\x9F\x98\x80 \xE2\x82\xAC"); /* kept */
}

static void test_dumps_writes_the_whole_document(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:i, s:[s, b], s:n}", "a", 1, "b", "x\"y", 1, "c");
    char *text = ma_json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_string_equal(text, "{\"a\":1,\"b\":[\"x\\\"y\",true],\"c\":null}");
    free(text);
    json_decref(doc);
    assert_null(ma_json_dumps(NULL, JSON_COMPACT));
}

static void test_put_notes_every_member_it_could_not_set(void **state)
{
    (void)state;
    int bad = 0;
    json_t *o = json_object(), *a = json_array();
    ma_json_put(o, "k", json_integer(1), &bad);
    ma_json_push(a, json_string("v"), &bad);
    assert_int_equal(bad, 0);
    assert_int_equal(json_integer_value(json_object_get(o, "k")), 1);
    assert_int_equal(json_array_size(a), 1);
    ma_json_put(o, "missing", NULL, &bad); /* a constructor that ran out of memory */
    assert_int_equal(bad, 1);
    bad = 0;
    ma_json_push(a, NULL, &bad);
    assert_int_equal(bad, 1);
    bad = 0;
    ma_json_put(NULL, "k", json_integer(2), &bad); /* the parent itself missing: v is released */
    assert_int_equal(bad, 1);
    bad = 0;
    ma_json_push(o, json_integer(3), &bad); /* not an array */
    assert_int_equal(bad, 1);
    assert_int_equal(json_object_size(o), 1);
    json_decref(o);
    json_decref(a);
}

static void test_load_own_takes_only_text_that_reads_back_the_same(void **state)
{
    (void)state;
    size_t f = JSON_COMPACT | JSON_PRESERVE_ORDER;
    json_t *v = ma_json_load_own("{\"max_rows\":1000,\"full_board_draw\":true}", f);
    assert_non_null(v);
    assert_true(json_is_true(json_object_get(v, "full_board_draw")));
    json_decref(v);
    assert_null(ma_json_load_own("{\"max_rows\": 1000}", f)); /* not as written: not ours */
    assert_null(ma_json_load_own("{\"a\":", f));
    assert_null(ma_json_load_own(NULL, f));
}

static void test_load_checked_tells_no_json_from_a_document(void **state)
{
    (void)state;
    json_error_t e;
    int oom = -1;
    const char *good = "{\"a\": [1, 2]}";
    json_t *v = ma_json_load_checked(good, strlen(good), &e, &oom);
    assert_non_null(v);
    assert_int_equal(oom, 0);
    assert_int_equal(json_array_size(json_object_get(v, "a")), 2);
    json_decref(v);
    const char *bad = "{\"a\": [1, 2}";
    assert_null(ma_json_load_checked(bad, strlen(bad), &e, &oom));
    assert_int_equal(oom, 0); /* the file's fault, with jansson's position */
    assert_true(e.position > 0 && e.text[0]);
    const char *twice = "{\"a\": 1, \"a\": 2}";
    assert_null(ma_json_load_checked(twice, strlen(twice), &e, &oom));
    assert_int_equal(oom, 0); /* a duplicate key is refused, not taken for out of memory */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_is_json_null),
        cmocka_unit_test(test_valid_utf8_unchanged),
        cmocka_unit_test(test_invalid_bytes_escaped),
        cmocka_unit_test(test_dumps_writes_the_whole_document),
        cmocka_unit_test(test_put_notes_every_member_it_could_not_set),
        cmocka_unit_test(test_load_own_takes_only_text_that_reads_back_the_same),
        cmocka_unit_test(test_load_checked_tells_no_json_from_a_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
