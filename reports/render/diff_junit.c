/* A diff as a JUnit report (reports/render/diff_junit.h). */
#include "reports/render/diff_junit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "indexer/position.h"
#include "reports/render/render.h"

#define SUITE "millaudit.diff"

/* "outcome=3 depth=2" (value classes with a count) into buf. */
static void value_counts(char *buf, size_t size, const ma_diff_result *r)
{
    size_t k = 0;
    buf[0] = 0;
    for (int c = 0; c < MA_DIFF_ENCODING && k < size; c++)
        if (r->counts[c])
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%" PRIu64, k ? " " : "", ma_diff_class_name(c),
                                  r->counts[c]);
}

static void draw(FILE *f, const char *board)
{
    char pic[MA_RENDER_BOARD_SIZE];
    ma_error e;
    if (ma_render_board_text(pic, sizeof pic, board, &e) != MA_OK)
        return;
    for (const char *p = pic; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "    %.*s\n", (int)n, p);
        p += n + (nl != NULL);
    }
}

/* The failure text of a pair whose values differ (malloc'd into *text). */
static int differs_text(const ma_diff_junit_pair *p, char **text)
{
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    const ma_diff_result *r = p->r;
    fprintf(f, "%s: %" PRIu64 " of %" PRIu64 " positions differ in value; encoding differences %" PRIu64 "\n",
            p->sector, ma_diff_value_differences(r), r->positions, r->counts[MA_DIFF_ENCODING]);
    fprintf(f, "A: %s\nB: %s\n", p->path_a ? p->path_a : "-", p->path_b ? p->path_b : "-");
    size_t drawn = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const ma_diff_example *x = &r->examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        fprintf(f, "%s: board %s: A entry %" PRIu64 " says %s, B entry %" PRIu64 " says %s\n",
                ma_diff_class_name(x->cls), board, x->entry_a, x->text_a, x->entry_b, x->text_b);
        if (x->cls != MA_DIFF_ENCODING && drawn < MA_DIFF_JUNIT_BOARDS) {
            draw(f, board);
            drawn++;
        }
    }
    if (ma_diff_value_differences(r) + r->counts[MA_DIFF_ENCODING] > r->n_examples)
        fprintf(f, "... %" PRIu64 " more\n", ma_diff_value_differences(r) + r->counts[MA_DIFF_ENCODING] - r->n_examples);
    return fclose(f) == 0 ? 0 : -1;
}

static int pair_case(ma_junit_suite *s, const ma_diff_junit_pair *p, ma_error *err)
{
    char classname[64], msg[1024];
    snprintf(classname, sizeof classname, SUITE ".%s", p->variant ? p->variant : "unknown");
    double secs = p->r ? p->r->seconds : -1;
    if (!p->status)
        return ma_junit_case_add(s, classname, p->sector, -1, MA_JUNIT_SKIPPED, NULL,
                                 "not compared: the diff stopped before this sector", NULL, NULL, err);
    if (!strcmp(p->status, "unusable"))
        return ma_junit_case_add(s, classname, p->sector, -1, MA_JUNIT_ERROR, "unusable",
                                 p->message ? p->message : "unusable", NULL, NULL, err);
    if (!strcmp(p->status, "only-in-A") || !strcmp(p->status, "only-in-B")) {
        int in_a = !strcmp(p->status, "only-in-A");
        const char *path = in_a ? p->path_a : p->path_b;
        snprintf(msg, sizeof msg, "only in %s: %s", in_a ? "A" : "B", path ? path : "");
        return ma_junit_case_add(s, classname, p->sector, -1, MA_JUNIT_FAILURE, p->status, msg, NULL, NULL, err);
    }
    if (!p->r || !strcmp(p->status, "identical"))
        return ma_junit_case_add(s, classname, p->sector, secs, MA_JUNIT_PASS, NULL, NULL, NULL,
                                 "identical: same format, same SHA-256", err);
    if (!strcmp(p->status, "differs")) {
        char counts[256];
        value_counts(counts, sizeof counts, p->r);
        snprintf(msg, sizeof msg, "%" PRIu64 " value differences: %s", ma_diff_value_differences(p->r), counts);
        char *text = NULL;
        if (differs_text(p, &text))
            return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
        int rc = ma_junit_case_add(s, classname, p->sector, secs, MA_JUNIT_FAILURE, "values-differ", msg, text, NULL,
                                   err);
        free(text);
        return rc;
    }
    snprintf(msg, sizeof msg, "values agree: %" PRIu64 " positions; %" PRIu64 " encoding differences", p->r->positions,
             p->r->counts[MA_DIFF_ENCODING]);
    return ma_junit_case_add(s, classname, p->sector, secs, MA_JUNIT_PASS, NULL, NULL, NULL, msg, err);
}

int ma_diff_junit(ma_junit *j, const char *a, const char *b, const ma_diff_junit_pair *pairs, size_t n,
                  const char *stopped_by, ma_error *err)
{
    int rc = ma_junit_init(j, "millaudit diff", err);
    if (rc)
        return rc;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S", &tm);
    ma_junit_suite *s = NULL;
    if ((rc = ma_junit_suite_add(j, SUITE, now, NULL, &s, err)))
        return rc;
    if (!(rc = ma_junit_property_add(s, "a", a, err)))
        rc = ma_junit_property_add(s, "b", b, err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = pair_case(s, &pairs[i], err);
    if (!rc && stopped_by)
        rc = ma_junit_case_add(s, SUITE, "run", -1, MA_JUNIT_ERROR, "stopped", stopped_by, NULL, NULL, err);
    return rc;
}

int ma_diff_junit_write(const char *path, const char *a, const char *b, const ma_diff_junit_pair *pairs, size_t n,
                        const char *stopped_by, ma_error *err)
{
    ma_junit j;
    int rc = ma_diff_junit(&j, a, b, pairs, n, stopped_by, err);
    if (!rc)
        rc = ma_junit_write(&j, path, err);
    ma_junit_free(&j);
    return rc;
}
