/* A diff as a JUnit report (reports/render/diff_junit.h). */
#include "reports/render/diff_junit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/counts.h"
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
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%s", k ? " " : "", ma_diff_class_name(c),
                                  MA_NUM(r->counts[c]));
}

/* The one-line message of a pair that differs at the root: the sector, the counts, the first root
 * position with both values, which side is right and the turn that proves it. */
static void differs_message(char *msg, size_t size, const ma_diff_junit_pair *p)
{
    const ma_diff_result *r = p->r;
    char counts[256];
    value_counts(counts, sizeof counts, r);
    size_t k = (size_t)snprintf(msg, size, "%s: %s of %s differ in value: %s", p->sector,
                                MA_NUM(ma_diff_value_differences(r)), MA_COUNT(r->positions, "position", "positions"),
                                counts);
    if (r->classified && k < size)
        k += (size_t)snprintf(msg + k, size - k, "; %s at the root", MA_NUM(r->roots + r->unknown));
    const ma_diff_example *x = r->n_examples && r->examples[0].cls != MA_DIFF_ENCODING ? &r->examples[0] : NULL;
    if (!x || k >= size)
        return;
    char board[96];
    ma_board_format(x->board, board, sizeof board);
    k += (size_t)snprintf(msg + k, size - k, "; first %s: position %s, A says %s, B says %s",
                          x->cause == MA_DIFF_CAUSE_ROOT ? "root" : "difference", board, x->text_a, x->text_b);
    if (k < size && x->proved && (x->right == 'A' || x->right == 'B'))
        k += (size_t)snprintf(msg + k, size - k, "; %c is right", x->right);
    if (k < size && x->proved && x->proof[0])
        snprintf(msg + k, size - k, ", proved by %s", x->proof);
    else if (k < size && x->proved && x->no_turn[0])
        snprintf(msg + k, size - k, " (no turn: %s)", x->no_turn);
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
    fprintf(f, "%s: %s of %s differ in value; encoding differences %s\n", p->sector,
            MA_NUM(ma_diff_value_differences(r)), MA_COUNT(r->positions, "position", "positions"),
            MA_NUM(r->counts[MA_DIFF_ENCODING]));
    fprintf(f, "A: %s\nB: %s\n", p->path_a ? p->path_a : "-", p->path_b ? p->path_b : "-");
    size_t drawn = 0;
    for (size_t i = 0; i < r->n_examples; i++) {
        const ma_diff_example *x = &r->examples[i];
        char board[96];
        ma_board_format(x->board, board, sizeof board);
        fprintf(f, "%s%s: board %s: A entry %" PRIu64 " says %s, B entry %" PRIu64 " says %s\n",
                x->cause == MA_DIFF_CAUSE_ROOT ? "root " : x->cause == MA_DIFF_CAUSE_PROPAGATED ? "propagated " : "",
                ma_diff_class_name(x->cls), board, x->entry_a, x->text_a, x->entry_b, x->text_b);
        if (x->proved) {
            if (x->right == 'A' || x->right == 'B')
                fprintf(f, "  %c is right%s%s\n", x->right, x->proof[0] ? ", proved by " : "", x->proof);
            if (x->no_turn[0])
                fprintf(f, "  no turn: %s\n", x->no_turn);
            for (int t = 0; t < x->n_turns; t++)
                fprintf(f, "  %-10s A %-16s B %s\n", x->turns[t].move, x->turns[t].a, x->turns[t].b);
        }
        if (x->cls != MA_DIFF_ENCODING && drawn < MA_DIFF_JUNIT_BOARDS) {
            draw(f, board);
            drawn++;
        }
    }
    if (ma_diff_value_differences(r) + r->counts[MA_DIFF_ENCODING] > r->n_examples)
        fprintf(f, "... %s more\n", MA_NUM(ma_diff_value_differences(r) + r->counts[MA_DIFF_ENCODING] - r->n_examples));
    return fclose(f) == 0 ? 0 : -1;
}

static int pair_case(ma_junit_suite *s, const ma_diff_junit_pair *p, ma_error *err)
{
    char classname[64], msg[1600];
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
    if (!strcmp(p->status, "differs") && p->consequence_of) {
        /* wrong only through its successors: its failure is its causes' (one bug, one red line) */
        char out[1400];
        snprintf(out, sizeof out, "%s: %s differ in value, every one through a successor: a consequence of %s, "
                                  "whose cases fail", p->sector, MA_COUNT(ma_diff_value_differences(p->r), "position", "positions"),
                 p->consequence_of);
        return ma_junit_case_add(s, classname, p->sector, secs, MA_JUNIT_PASS, NULL, NULL, NULL, out, err);
    }
    if (!strcmp(p->status, "differs")) {
        differs_message(msg, sizeof msg, p);
        char *text = NULL;
        if (differs_text(p, &text))
            return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
        int rc = ma_junit_case_add(s, classname, p->sector, secs, MA_JUNIT_FAILURE, "values-differ", msg, text, NULL,
                                   err);
        free(text);
        return rc;
    }
    if (p->r->outside_entries_only)
        snprintf(msg, sizeof msg, "values agree: %s; the files differ only in their headers: %s",
                 MA_COUNT(p->r->positions, "position", "positions"), p->r->header_words);
    else
        snprintf(msg, sizeof msg, "values agree: %s; %s", MA_COUNT(p->r->positions, "position", "positions"),
                 MA_COUNT(p->r->counts[MA_DIFF_ENCODING], "encoding difference", "encoding differences"));
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
