/* Unit tests for reports/render/junit: the document validates against the Jenkins/Ant JUnit schema
 * (tests/data/junit-10.xsd, with libxml2's own schema validator), counts agree with the cases,
 * every string survives escaping (read back by libxml2's parser), characters XML cannot carry are
 * replaced instead of breaking the document, and the file is written atomically. */
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

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include "reports/render/junit.h"

static xmlSchemaPtr load_schema(void)
{
    const char *src = getenv("MA_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/junit-10.xsd", src ? src : ".");
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(path);
    assert_non_null(pc);
    xmlSchemaPtr schema = xmlSchemaParse(pc);
    xmlSchemaFreeParserCtxt(pc);
    assert_non_null(schema);
    return schema;
}

/* Parses xml, asserts it is valid against the schema, returns the document. */
static xmlDocPtr parse_valid(const char *xml, size_t len)
{
    xmlDocPtr doc = xmlReadMemory(xml, (int)len, "junit.xml", NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlSchemaPtr schema = load_schema();
    xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
    assert_non_null(vc);
    int rc = xmlSchemaValidateDoc(vc, doc);
    if (rc != 0)
        fprintf(stderr, "invalid document:\n%s\n", xml);
    assert_int_equal(rc, 0);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    return doc;
}

/* The string value of an XPath expression (count(), @attr, text). */
static char *xpath_string(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlChar *wrapped = NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "string(%s)", expr);
    xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST buf, ctx);
    assert_non_null(o);
    wrapped = xmlXPathCastToString(o);
    char *s = strdup((const char *)wrapped);
    xmlFree(wrapped);
    xmlXPathFreeObject(o);
    xmlXPathFreeContext(ctx);
    return s;
}

static void expect_xpath(xmlDocPtr doc, const char *expr, const char *want)
{
    char *got = xpath_string(doc, expr);
    if (strcmp(got, want))
        fprintf(stderr, "%s: got '%s', want '%s'\n", expr, got, want);
    assert_string_equal(got, want);
    free(got);
}

static void build(ma_junit *j)
{
    ma_error err;
    ma_junit_suite *s = NULL;
    assert_int_equal(ma_junit_init(j, "millaudit verify", &err), MA_OK);
    assert_int_equal(ma_junit_suite_add(j, "millaudit.verify", "2026-11-22T09:30:00.123Z", "host1", &s, &err), MA_OK);
    assert_int_equal(ma_junit_property_add(s, "database_root", "/data/db & <stuff>", &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "millaudit.verify.std", "std_3_3_0_0", 1.5, MA_JUNIT_PASS, NULL, NULL,
                                       NULL, "carried over from run 3", &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "millaudit.verify.std", "std_4_4_0_0", 2.25, MA_JUNIT_FAILURE,
                                       "discrepancies", "6 discrepancies: wrong-terminal=6",
                                       "entry 17 board a1,d1/c3 stored \"draw\" derived loss 0 <root> & more\n"
                                       "7 +-----+-----O\n", NULL, &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "millaudit.verify.std", "std_4_3_0_0", -1, MA_JUNIT_ERROR, "unusable",
                                       "not a regular file (FIFO)", NULL, NULL, &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "millaudit.verify.std", "std_2_2_0_0", 0, MA_JUNIT_SKIPPED, NULL,
                                       "verified within bounds only", "3 entries unproven", NULL, &err), MA_OK);
    ma_junit_suite *t = NULL;
    assert_int_equal(ma_junit_suite_add(j, "second", NULL, NULL, &t, &err), MA_OK);
    assert_int_equal(ma_junit_case_add(t, NULL, "only", 0.5, MA_JUNIT_FAILURE, NULL, NULL, NULL, NULL, &err), MA_OK);
    assert_int_equal(ma_junit_suite_out(t, "suite output", &err), MA_OK);
}

static void test_document_valid_and_counted(void **state)
{
    (void)state;
    ma_junit j;
    build(&j);
    ma_junit_totals t = ma_junit_totals_of(&j);
    assert_int_equal(t.tests, 5);
    assert_int_equal(t.failures, 2);
    assert_int_equal(t.errors, 1);
    assert_int_equal(t.skipped, 1);
    char *xml = NULL;
    size_t len = 0;
    ma_error err;
    assert_int_equal(ma_junit_to_xml(&j, &xml, &len, &err), MA_OK);
    assert_int_equal(strlen(xml), len);
    xmlDocPtr doc = parse_valid(xml, len);
    expect_xpath(doc, "/testsuites/@tests", "5");
    expect_xpath(doc, "/testsuites/@failures", "2");
    expect_xpath(doc, "/testsuites/@errors", "1");
    expect_xpath(doc, "/testsuites/@skipped", "1");
    expect_xpath(doc, "/testsuites/@time", "4.250");
    expect_xpath(doc, "count(/testsuites/testsuite)", "2");
    expect_xpath(doc, "/testsuites/testsuite[1]/@tests", "4");
    expect_xpath(doc, "/testsuites/testsuite[1]/@failures", "1");
    expect_xpath(doc, "/testsuites/testsuite[1]/@timestamp", "2026-11-22T09:30:00");
    expect_xpath(doc, "/testsuites/testsuite[1]/@hostname", "host1");
    expect_xpath(doc, "/testsuites/testsuite[1]/properties/property[@name='database_root']/@value",
                 "/data/db & <stuff>");
    /* one failure element, on the right case, with its text intact */
    expect_xpath(doc, "count(//testcase/failure)", "2");
    expect_xpath(doc, "//testcase[failure]/@name", "std_4_4_0_0");
    expect_xpath(doc, "//testcase[@name='std_4_4_0_0']/failure/@type", "discrepancies");
    expect_xpath(doc, "//testcase[@name='std_4_4_0_0']/failure/@message", "6 discrepancies: wrong-terminal=6");
    expect_xpath(doc, "//testcase[@name='std_4_4_0_0']/failure",
                 "entry 17 board a1,d1/c3 stored \"draw\" derived loss 0 <root> & more\n7 +-----+-----O\n");
    expect_xpath(doc, "//testcase[@name='std_4_3_0_0']/error/@type", "unusable");
    expect_xpath(doc, "count(//testcase[@name='std_4_3_0_0']/@time)", "0");
    expect_xpath(doc, "//testcase[@name='std_2_2_0_0']/skipped/@message", "verified within bounds only");
    expect_xpath(doc, "//testcase[@name='std_3_3_0_0']/system-out", "carried over from run 3");
    expect_xpath(doc, "count(//testcase[@name='std_3_3_0_0']/*[self::failure or self::error or self::skipped])",
                 "0");
    expect_xpath(doc, "/testsuites/testsuite[2]/system-out", "suite output");
    expect_xpath(doc, "count(/testsuites/testsuite[2]/properties)", "0");
    xmlFreeDoc(doc);
    free(xml);
    ma_junit_free(&j);
}

static void test_clean_replaces_what_xml_cannot_carry(void **state)
{
    (void)state;
    struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "plain"},
        {"tab\tnl\ncr\r", "tab\tnl\ncr\r"},
        {"bell\x07 esc\x1b", "bell? esc?"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},                /* é stays */
        {"bad \xff\xfe end", "bad ?? end"},            /* not UTF-8 */
        {"over \xc0\xaf", "over ??"},                  /* overlong '/' */
        {"surrogate \xed\xa0\x80", "surrogate ???"},   /* U+D800 */
        {"nonchar \xef\xbf\xbe", "nonchar ???"},       /* U+FFFE */
        {"emoji \xf0\x9f\x98\x80", "emoji \xf0\x9f\x98\x80"},
        {"cut \xe2\x82", "cut ??"},                    /* truncated sequence at the end */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = ma_junit_clean(cases[i].in);
        assert_non_null(t);
        assert_string_equal(t, cases[i].out);
        free(t);
    }
    assert_null(ma_junit_clean(NULL));
}

static void test_hostile_strings_still_valid(void **state)
{
    (void)state;
    ma_junit j;
    ma_error err;
    ma_junit_suite *s = NULL;
    assert_int_equal(ma_junit_init(&j, "n\x01", &err), MA_OK);
    assert_int_equal(ma_junit_suite_add(&j, "]]> <!-- \"'", NULL, NULL, &s, &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "c\x02", "std_\xff_x", 0.1, MA_JUNIT_FAILURE, "t\x1f", "msg\x0b",
                                       "<![CDATA[ ]]> &amp; \x0c", "out\x7f", &err), MA_OK);
    char *xml = NULL;
    size_t len = 0;
    assert_int_equal(ma_junit_to_xml(&j, &xml, &len, &err), MA_OK);
    xmlDocPtr doc = parse_valid(xml, len);
    expect_xpath(doc, "/testsuites/@name", "n?");
    expect_xpath(doc, "/testsuites/testsuite/@name", "]]> <!-- \"'");
    expect_xpath(doc, "//testcase/@name", "std_?_x");
    expect_xpath(doc, "//testcase/failure", "<![CDATA[ ]]> &amp; ?");
    expect_xpath(doc, "//testcase/system-out", "out\x7f"); /* DEL is an XML character */
    xmlFreeDoc(doc);
    free(xml);
    ma_junit_free(&j);
}

static void test_empty_report_valid(void **state)
{
    (void)state;
    ma_junit j;
    ma_error err;
    assert_int_equal(ma_junit_init(&j, "empty", &err), MA_OK);
    char *xml = NULL;
    size_t len = 0;
    assert_int_equal(ma_junit_to_xml(&j, &xml, &len, &err), MA_OK);
    xmlDocPtr doc = parse_valid(xml, len);
    expect_xpath(doc, "/testsuites/@tests", "0");
    xmlFreeDoc(doc);
    free(xml);
    ma_junit_free(&j);
}

static void test_refuses_missing_names(void **state)
{
    (void)state;
    ma_junit j;
    ma_error err;
    ma_junit_suite *s = NULL;
    assert_int_equal(ma_junit_init(&j, NULL, &err), MA_EINVAL);
    ma_junit_free(&j);
    assert_int_equal(ma_junit_init(&j, "x", &err), MA_OK);
    assert_int_equal(ma_junit_suite_add(&j, NULL, NULL, NULL, &s, &err), MA_EINVAL);
    assert_null(s);
    assert_int_equal(ma_junit_suite_add(&j, "s", NULL, NULL, &s, &err), MA_OK);
    assert_int_equal(ma_junit_case_add(s, "c", NULL, 0, MA_JUNIT_PASS, NULL, NULL, NULL, NULL, &err), MA_EINVAL);
    assert_int_equal(ma_junit_case_add(s, "c", "n", 0, (ma_junit_outcome)7, NULL, NULL, NULL, NULL, &err), MA_EINVAL);
    assert_int_equal(ma_junit_property_add(s, NULL, "v", &err), MA_EINVAL);
    assert_int_equal(s->n_cases, 0);
    ma_junit_free(&j);
}

/* The schema is not vacuous: documents a CI server would misread are refused. */
static void test_schema_refuses_broken_documents(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "<testsuites><testsuite tests=\"1\"><testcase name=\"x\"/></testsuite></testsuites>", /* no name */
        "<testsuites><testsuite name=\"s\" tests=\"-1\"/></testsuites>",                     /* count */
        "<testsuites><testsuite name=\"s\" tests=\"1\"><testcase/></testsuite></testsuites>",  /* case name */
        "<testsuites><testsuite name=\"s\" tests=\"1\"><testcase name=\"x\"><failure/><skipped/>"
        "</testcase></testsuite></testsuites>",                                                /* order */
        "<testsuites><testsuite name=\"s\" tests=\"1\" timestamp=\"2026-11-22T09:30:00.1Z\"/></testsuites>",
        "<testsuites><testcase name=\"x\"/></testsuites>",                                    /* nesting */
    };
    xmlSchemaPtr schema = load_schema();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        xmlDocPtr doc = xmlReadMemory(bad[i], (int)strlen(bad[i]), "bad.xml", NULL, XML_PARSE_NONET);
        assert_non_null(doc);
        xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
        xmlSchemaSetValidErrors(vc, NULL, NULL, NULL);
        assert_int_not_equal(xmlSchemaValidateDoc(vc, doc), 0);
        xmlSchemaFreeValidCtxt(vc);
        xmlFreeDoc(doc);
    }
    xmlSchemaFree(schema);
}

static void test_write_atomic_and_unwritable(void **state)
{
    (void)state;
    char dir[] = "/tmp/ma_test_junit_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], bad[160];
    snprintf(path, sizeof path, "%s/report.xml", dir);
    snprintf(bad, sizeof bad, "%s/missing/report.xml", dir);
    ma_junit j;
    build(&j);
    ma_error err;
    ma_error_clear(&err);
    assert_int_equal(ma_junit_write(&j, bad, &err), MA_EIO);
    assert_non_null(strstr(err.msg, "missing/report.xml"));
    assert_int_equal(ma_junit_write(&j, path, &err), MA_OK);
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    expect_xpath(doc, "/testsuites/@tests", "5");
    xmlFreeDoc(doc);
    ma_junit_free(&j);
    unlink(path);
    assert_int_equal(rmdir(dir), 0); /* nothing else (no temporary file) left behind */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_valid_and_counted),
        cmocka_unit_test(test_clean_replaces_what_xml_cannot_carry),
        cmocka_unit_test(test_hostile_strings_still_valid),
        cmocka_unit_test(test_empty_report_valid),
        cmocka_unit_test(test_refuses_missing_names),
        cmocka_unit_test(test_schema_refuses_broken_documents),
        cmocka_unit_test(test_write_atomic_and_unwritable),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return rc;
}
