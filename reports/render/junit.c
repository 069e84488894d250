/* JUnit XML reports through libxml2's xmlwriter (reports/render/junit.h). */
#include "reports/render/junit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "reports/render/render.h"

/* ---------------------------------------------------------------- strings */

/* Length of the valid UTF-8 sequence at s encoding a character XML 1.0 allows, or 0. */
static size_t xml_char_len(const unsigned char *s)
{
    uint32_t c;
    size_t n;
    if (s[0] < 0x80) {
        c = s[0];
        n = 1;
    } else if ((s[0] & 0xE0) == 0xC0) {
        c = s[0] & 0x1F;
        n = 2;
    } else if ((s[0] & 0xF0) == 0xE0) {
        c = s[0] & 0x0F;
        n = 3;
    } else if ((s[0] & 0xF8) == 0xF0) {
        c = s[0] & 0x07;
        n = 4;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min[n]) /* overlong */
        return 0;
    if (c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
        (c >= 0x10000 && c <= 0x10FFFF))
        return n;
    return 0;
}

char *ma_junit_clean(const char *s)
{
    if (!s)
        return NULL;
    size_t len = strlen(s);
    char *t = malloc(len + 1);
    if (!t)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    while (*p) {
        size_t n = xml_char_len(p);
        if (n) {
            memcpy(t + k, p, n);
            k += n;
            p += n;
        } else {
            t[k++] = '?';
            p++;
        }
    }
    t[k] = 0;
    return t;
}

/* A cleaned copy; sets *oom when s was given but could not be copied. */
static char *copy(const char *s, int *oom)
{
    char *t = ma_junit_clean(s);
    if (s && !t)
        *oom = 1;
    return t;
}

static int grow(void **arr, size_t n, size_t *cap, size_t sz)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *q = realloc(*arr, nc * sz);
    if (!q)
        return -1;
    *arr = q;
    *cap = nc;
    return 0;
}

/* ---------------------------------------------------------------- building */

int ma_junit_init(ma_junit *j, const char *name, ma_error *err)
{
    memset(j, 0, sizeof *j);
    if (!name)
        return ma_error_set(err, MA_EINVAL, "junit: a report needs a name");
    int oom = 0;
    j->name = copy(name, &oom);
    return oom ? ma_error_set(err, MA_ENOMEM, "junit: out of memory") : MA_OK;
}

static void case_free(ma_junit_case *c)
{
    free(c->classname), free(c->name), free(c->type), free(c->message), free(c->text), free(c->out);
}

static void suite_free(ma_junit_suite *s)
{
    if (!s)
        return;
    free(s->name), free(s->timestamp), free(s->hostname), free(s->out);
    for (size_t i = 0; i < s->n_props; i++)
        free(s->props[i].name), free(s->props[i].value);
    free(s->props);
    for (size_t i = 0; i < s->n_cases; i++)
        case_free(&s->cases[i]);
    free(s->cases);
    free(s);
}

void ma_junit_free(ma_junit *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n_suites; i++)
        suite_free(j->suites[i]);
    free(j->suites);
    free(j->name);
    memset(j, 0, sizeof *j);
}

/* "2026-11-22T09:30:00.123Z" -> "2026-11-22T09:30:00"; other forms are kept as given. */
static char *timestamp_copy(const char *ts, int *oom)
{
    if (!ts)
        return NULL;
    char *t = copy(ts, oom);
    if (t && strlen(t) >= 19 && t[10] == 'T' && (t[19] == '.' || t[19] == 'Z'))
        t[19] = 0;
    return t;
}

int ma_junit_suite_add(ma_junit *j, const char *name, const char *timestamp, const char *hostname,
                       ma_junit_suite **out, ma_error *err)
{
    *out = NULL;
    if (!name)
        return ma_error_set(err, MA_EINVAL, "junit: a test suite needs a name");
    if (grow((void **)&j->suites, j->n_suites, &j->cap_suites, sizeof *j->suites))
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    ma_junit_suite *s = calloc(1, sizeof *s);
    if (!s)
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    int oom = 0;
    s->name = copy(name, &oom);
    s->timestamp = timestamp_copy(timestamp, &oom);
    s->hostname = copy(hostname, &oom);
    s->seconds = -1;
    if (oom) {
        suite_free(s);
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    }
    j->suites[j->n_suites++] = s;
    *out = s;
    return MA_OK;
}

int ma_junit_property_add(ma_junit_suite *s, const char *name, const char *value, ma_error *err)
{
    if (!name)
        return ma_error_set(err, MA_EINVAL, "junit: a property needs a name");
    if (grow((void **)&s->props, s->n_props, &s->cap_props, sizeof *s->props))
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    int oom = 0;
    ma_junit_property p = {copy(name, &oom), copy(value ? value : "", &oom)};
    if (oom) {
        free(p.name), free(p.value);
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    }
    s->props[s->n_props++] = p;
    return MA_OK;
}

int ma_junit_case_add(ma_junit_suite *s, const char *classname, const char *name, double seconds,
                      ma_junit_outcome outcome, const char *type, const char *message, const char *text,
                      const char *out, ma_error *err)
{
    if (!name)
        return ma_error_set(err, MA_EINVAL, "junit: a test case needs a name");
    if (outcome < MA_JUNIT_PASS || outcome > MA_JUNIT_SKIPPED)
        return ma_error_set(err, MA_EINVAL, "junit: test case %s: unknown outcome %d", name, (int)outcome);
    if (grow((void **)&s->cases, s->n_cases, &s->cap_cases, sizeof *s->cases))
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    int oom = 0;
    ma_junit_case c = {copy(classname, &oom), copy(name, &oom), seconds, outcome, copy(type, &oom),
                       copy(message, &oom), copy(text, &oom), copy(out, &oom)};
    if (oom) {
        case_free(&c);
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    }
    s->cases[s->n_cases++] = c;
    return MA_OK;
}

int ma_junit_suite_out(ma_junit_suite *s, const char *out, ma_error *err)
{
    int oom = 0;
    char *t = copy(out, &oom);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    free(s->out);
    s->out = t;
    return MA_OK;
}

ma_junit_totals ma_junit_suite_totals(const ma_junit_suite *s)
{
    ma_junit_totals t = {0, 0, 0, 0, 0.0};
    double sum = 0;
    for (size_t i = 0; i < s->n_cases; i++) {
        const ma_junit_case *c = &s->cases[i];
        t.tests++;
        t.failures += c->outcome == MA_JUNIT_FAILURE;
        t.errors += c->outcome == MA_JUNIT_ERROR;
        t.skipped += c->outcome == MA_JUNIT_SKIPPED;
        if (c->seconds > 0)
            sum += c->seconds;
    }
    t.seconds = s->seconds >= 0 ? s->seconds : sum;
    return t;
}

ma_junit_totals ma_junit_totals_of(const ma_junit *j)
{
    ma_junit_totals t = {0, 0, 0, 0, 0.0};
    for (size_t i = 0; i < j->n_suites; i++) {
        ma_junit_totals s = ma_junit_suite_totals(j->suites[i]);
        t.tests += s.tests, t.failures += s.failures, t.errors += s.errors, t.skipped += s.skipped;
        t.seconds += s.seconds;
    }
    return t;
}

/* ---------------------------------------------------------------- writing */

/* Every xmlTextWriter call returns < 0 on failure; one flag collects them. */
typedef struct xw {
    xmlTextWriterPtr w;
    int bad;
} xw;

static void start(xw *x, const char *el)
{
    if (xmlTextWriterStartElement(x->w, BAD_CAST el) < 0)
        x->bad = 1;
}

static void end(xw *x)
{
    if (xmlTextWriterEndElement(x->w) < 0)
        x->bad = 1;
}

static void attr(xw *x, const char *name, const char *value)
{
    if (value && xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0)
        x->bad = 1;
}

static void attr_count(xw *x, const char *name, size_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%zu", v);
    attr(x, name, b);
}

static void attr_seconds(xw *x, const char *name, double s)
{
    char b[64];
    snprintf(b, sizeof b, "%.3f", s < 0 ? 0.0 : s);
    attr(x, name, b);
}

static void text(xw *x, const char *s)
{
    if (s && *s && xmlTextWriterWriteString(x->w, BAD_CAST s) < 0)
        x->bad = 1;
}

static void write_case(xw *x, const ma_junit_case *c)
{
    start(x, "testcase");
    attr(x, "name", c->name);
    attr(x, "classname", c->classname);
    if (c->seconds >= 0)
        attr_seconds(x, "time", c->seconds);
    static const char *const el[] = {NULL, "failure", "error", "skipped"};
    if (c->outcome != MA_JUNIT_PASS) {
        start(x, el[c->outcome]);
        if (c->outcome != MA_JUNIT_SKIPPED)
            attr(x, "type", c->type);
        attr(x, "message", c->message);
        text(x, c->text);
        end(x);
    }
    if (c->out) {
        start(x, "system-out");
        text(x, c->out);
        end(x);
    }
    end(x);
}

static void write_suite(xw *x, const ma_junit_suite *s, size_t id)
{
    ma_junit_totals t = ma_junit_suite_totals(s);
    start(x, "testsuite");
    attr(x, "name", s->name);
    attr_count(x, "tests", t.tests);
    attr_count(x, "failures", t.failures);
    attr_count(x, "errors", t.errors);
    attr_count(x, "skipped", t.skipped);
    attr_seconds(x, "time", t.seconds);
    attr(x, "timestamp", s->timestamp);
    attr(x, "hostname", s->hostname);
    attr_count(x, "id", id);
    if (s->n_props) {
        start(x, "properties");
        for (size_t i = 0; i < s->n_props; i++) {
            start(x, "property");
            attr(x, "name", s->props[i].name);
            attr(x, "value", s->props[i].value);
            end(x);
        }
        end(x);
    }
    for (size_t i = 0; i < s->n_cases; i++)
        write_case(x, &s->cases[i]);
    if (s->out) {
        start(x, "system-out");
        text(x, s->out);
        end(x);
    }
    end(x);
}

int ma_junit_to_xml(const ma_junit *j, char **out, size_t *len, ma_error *err)
{
    *out = NULL;
    *len = 0;
    xmlBufferPtr buf = xmlBufferCreate();
    if (!buf)
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    xw x = {xmlNewTextWriterMemory(buf, 0), 0};
    if (!x.w) {
        xmlBufferFree(buf);
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    }
    if (xmlTextWriterSetIndent(x.w, 1) < 0 || xmlTextWriterSetIndentString(x.w, BAD_CAST "  ") < 0 ||
        xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL) < 0)
        x.bad = 1;
    ma_junit_totals t = ma_junit_totals_of(j);
    start(&x, "testsuites");
    attr(&x, "name", j->name);
    attr_count(&x, "tests", t.tests);
    attr_count(&x, "failures", t.failures);
    attr_count(&x, "errors", t.errors);
    attr_count(&x, "skipped", t.skipped);
    attr_seconds(&x, "time", t.seconds);
    for (size_t i = 0; i < j->n_suites; i++)
        write_suite(&x, j->suites[i], i);
    end(&x);
    if (xmlTextWriterEndDocument(x.w) < 0)
        x.bad = 1;
    xmlFreeTextWriter(x.w); /* flushes into buf */
    int rc = MA_OK;
    if (x.bad) {
        rc = ma_error_set(err, MA_ENOMEM, "junit: the XML writer failed (out of memory)");
    } else {
        size_t n = (size_t)xmlBufferLength(buf);
        char *s = malloc(n + 1);
        if (!s) {
            rc = ma_error_set(err, MA_ENOMEM, "junit: out of memory");
        } else {
            memcpy(s, xmlBufferContent(buf), n);
            s[n] = 0;
            *out = s;
            *len = n;
        }
    }
    xmlBufferFree(buf);
    return rc;
}

int ma_junit_write(const ma_junit *j, const char *path, ma_error *err)
{
    char *xml = NULL;
    size_t len = 0;
    int rc = ma_junit_to_xml(j, &xml, &len, err);
    if (!rc)
        rc = ma_render_write_atomic(path, xml, len, err);
    free(xml);
    return rc;
}
