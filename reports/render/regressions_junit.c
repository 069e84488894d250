/* reports/render/regressions_junit: the regressions of a run against its baseline (reports/store/history.h) as a
 * JUnit report, so a CI shows each regressed sector as a failing test case. */
#include "reports/render/regressions_junit.h"

#include <stdio.h>
#include <string.h>

#include "common/counts.h"

/* "wrong-terminal=6 wrong-depth=2", or "none". */
static void class_line(char *buf, size_t size, const ma_run_sector *s)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; s && i < s->n_classes && k < size; i++)
        if (s->classes[i].count)
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%s", k ? " " : "", s->classes[i].cls,
                                  MA_NUM((uint64_t)s->classes[i].count));
    if (!k)
        snprintf(buf, size, "none");
}

/* "new-discrepancies, values-changed" into buf. */
static void change_list(char *buf, size_t size, unsigned changes)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < MA_CHANGES && k < size; i++)
        if (changes >> i & 1)
            k += (size_t)snprintf(buf + k, size - k, "%s%s", k ? ", " : "", ma_change_name(i));
}

/* "ok, 0 discrepancies (none)" of one side of a row. */
static void side(char *buf, size_t size, const ma_run_sector *s)
{
    char classes[512];
    class_line(classes, sizeof classes, s);
    if (!s) {
        snprintf(buf, size, "absent");
        return;
    }
    int failing = s->status && !strcmp(s->status, "discrepancies"); /* the count says it */
    size_t k = (size_t)snprintf(buf, size, "%s%s%s", failing ? "" : s->status ? s->status : "-", failing ? "" : ", ",
                                MA_COUNT((uint64_t)s->discrepancies, "discrepancy", "discrepancies"));
    if (s->has_split && s->discrepancies && k < size)
        k += (size_t)snprintf(buf + k, size - k, " (%s)", MA_COUNT((uint64_t)s->roots, "root", "roots"));
    if (k < size)
        snprintf(buf + k, size - k, ": %s", classes);
}

int ma_regressions_junit(const ma_regressions *r, ma_junit *j, ma_error *err)
{
    int rc = ma_junit_init(j, "millaudit regressions", err);
    if (rc)
        return rc;
    ma_junit_suite *s = NULL;
    if ((rc = ma_junit_suite_add(j, "millaudit.regressions", r->run->started_at, r->run->host, &s, err)))
        return rc;
    char id[32], bid[32];
    snprintf(id, sizeof id, "%lld", (long long)r->run->id);
    snprintf(bid, sizeof bid, "%lld", r->base ? (long long)r->base->id : 0LL);
    const char *props[][2] = {{"database_root", r->run->database_root ? r->run->database_root : ""},
                              {"run_id", id},
                              {"baseline_run_id", r->base ? bid : ""}};
    for (size_t i = 0; !rc && i < sizeof props / sizeof props[0]; i++)
        rc = ma_junit_property_add(s, props[i][0], props[i][1], err);
    int failed = 0;
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const ma_regression_row *row = &r->rows[i];
        char changes[256], msg[2400], text[1600], cb[700], cr[700], because[700];
        change_list(changes, sizeof changes, row->changes);
        side(cb, sizeof cb, row->base);
        side(cr, sizeof cr, row->run);
        snprintf(text, sizeof text, "baseline run %s: %s\nrun %s: %s\n", r->base ? bid : "-", cb, id, cr);
        size_t k = 0;
        because[0] = 0;
        for (size_t c = 0; c < row->n_because && k < sizeof because; c++)
            k += (size_t)snprintf(because + k, sizeof because - k, "%s%s", c ? ", " : "", row->because[c]);
        if (row->regression && !row->consequence) {
            /* one line: the sector, why, its counts and classes now, where to start looking, before */
            char first[700] = "";
            const struct ma_run_first_root *f = row->run ? &row->run->first_root : NULL;
            if (f && f->board)
                snprintf(first, sizeof first, "; first root: entry %lld, position %.100s, stored %.60s, derived %.60s%s%.40s",
                         (long long)f->entry, f->board, f->stored ? f->stored : "-", f->derived ? f->derived : "-",
                         f->move ? ", refuted by " : "", f->move ? f->move : "");
            snprintf(msg, sizeof msg, "%s: %s: %s%s (baseline run %s: %s)", row->sector, row->why, cr, first,
                     r->base ? bid : "-", cb);
            rc = ma_junit_case_add(s, "millaudit.regressions", row->sector, -1, MA_JUNIT_FAILURE, "regression", msg,
                                   text, NULL, err);
            failed = 1;
        } else {
            /* a consequence is reported once, under its causes: it passes, saying why */
            char out[3200];
            if (row->consequence)
                snprintf(out, sizeof out, "%s: %s (%s); caused by %s, whose cases fail\n%s", row->sector, row->why,
                         changes, because, text);
            else
                snprintf(out, sizeof out, "%s%s%s%s%s", row->why ? row->why : "", row->why ? " (" : "",
                         row->why ? changes : "", row->why ? ")\n" : "", row->changes ? text : "");
            rc = ma_junit_case_add(s, "millaudit.regressions", row->sector, -1, MA_JUNIT_PASS, NULL, NULL, NULL,
                                   out[0] ? out : NULL, err);
        }
    }
    if (!rc && r->base) {
        /* a worse verdict is a failure of its own only when no sector case says why: one bug, one
         * red line per sector that holds it */
        char msg[256];
        const char *from = r->base->ended_at ? r->base->status : "never finished";
        const char *to = r->run->ended_at ? r->run->status : "never finished";
        snprintf(msg, sizeof msg, "verdict %s -> %s%s", from ? from : "none", to ? to : "none",
                 r->verdict_worse && failed ? " (the failing sector cases say why)" : "");
        int fail = r->verdict_worse && !failed;
        rc = ma_junit_case_add(s, "millaudit.regressions", "verdict", -1, fail ? MA_JUNIT_FAILURE : MA_JUNIT_PASS,
                               fail ? "regression" : NULL, fail ? msg : NULL, NULL, fail ? NULL : msg, err);
    }
    return rc;
}
