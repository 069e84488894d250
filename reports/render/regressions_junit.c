/* reports/render/regressions_junit: the regressions of a run against its baseline (reports/store/history.h) as a
 * JUnit report, so a CI shows each regressed sector as a failing test case. */
#include "reports/render/regressions_junit.h"

#include <stdio.h>

/* "wrong-terminal=6 wrong-depth=2", or "none". */
static void class_line(char *buf, size_t size, const ma_run_sector *s)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; s && i < s->n_classes && k < size; i++)
        if (s->classes[i].count)
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%lld", k ? " " : "", s->classes[i].cls,
                                  (long long)s->classes[i].count);
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
    for (size_t i = 0; !rc && i < r->n_rows; i++) {
        const ma_regression_row *row = &r->rows[i];
        char changes[256], msg[768], text[1400], cb[512], cr[512];
        change_list(changes, sizeof changes, row->changes);
        class_line(cb, sizeof cb, row->base);
        class_line(cr, sizeof cr, row->run);
        snprintf(text, sizeof text,
                 "baseline run %s: %s, %lld discrepancies (%s)\nrun %s: %s, %lld discrepancies (%s)\n",
                 r->base ? bid : "-", row->base ? row->base->status : "absent",
                 row->base ? (long long)row->base->discrepancies : 0LL, cb, id,
                 row->run ? row->run->status : "absent", row->run ? (long long)row->run->discrepancies : 0LL, cr);
        if (row->regression) {
            snprintf(msg, sizeof msg, "%s (%s)", row->why, changes);
            rc = ma_junit_case_add(s, "millaudit.regressions", row->sector, -1, MA_JUNIT_FAILURE, "regression", msg,
                                   text, NULL, err);
        } else {
            char out[2400];
            snprintf(out, sizeof out, "%s%s%s%s%s", row->why ? row->why : "", row->why ? " (" : "",
                     row->why ? changes : "", row->why ? ")\n" : "", row->changes ? text : "");
            rc = ma_junit_case_add(s, "millaudit.regressions", row->sector, -1, MA_JUNIT_PASS, NULL, NULL, NULL,
                                   out[0] ? out : NULL, err);
        }
    }
    if (!rc && r->base) {
        char msg[256];
        const char *from = r->base->ended_at ? r->base->status : "never finished";
        const char *to = r->run->ended_at ? r->run->status : "never finished";
        snprintf(msg, sizeof msg, "verdict %s -> %s", from ? from : "none", to ? to : "none");
        rc = ma_junit_case_add(s, "millaudit.regressions", "verdict", -1,
                               r->verdict_worse ? MA_JUNIT_FAILURE : MA_JUNIT_PASS,
                               r->verdict_worse ? "regression" : NULL,
                               r->verdict_worse ? msg : NULL, NULL, r->verdict_worse ? NULL : msg, err);
    }
    return rc;
}
