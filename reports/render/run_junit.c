/* A verify run as a JUnit report (reports/render/run_junit.h). */
#include "reports/render/run_junit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/counts.h"
#include "indexer/position.h"
#include "reports/render/integrity_render.h"
#include "reports/render/render.h"
#include "reports/render/run_causes.h"

#define SUITE "millaudit.verify"

static const char *const MODES[] = {"full", "resume", "incremental"};

/* "wrong-outcome=3 wrong-depth=2" (classes with a count only) into buf. */
static void class_counts(char *buf, size_t size, const uint64_t by_class[MA_DISC_CLASSES])
{
    size_t k = 0;
    buf[0] = 0;
    for (int c = 0; c < MA_DISC_CLASSES && k < size; c++)
        if (by_class[c])
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%s", k ? " " : "", ma_disc_class_name(c),
                                  MA_NUM(by_class[c]));
}

static void write_row(FILE *f, const ma_vrun_row *w, int draw)
{
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    fprintf(f, "entry %llu (offset %llu): %s, %s\n", (unsigned long long)w->entry, (unsigned long long)w->offset,
            ma_disc_class_name(w->cls), w->root ? "root" : "propagated");
    fprintf(f, "  board %s: stored %s, derived %s", board, w->stored_text, w->derived_text);
    if (w->has_refutation) {
        fprintf(f, "; proved by %s", w->move);
        if (w->successor.mover | w->successor.opp) {
            char succ[96];
            ma_board_format(w->successor, succ, sizeof succ);
            fprintf(f, " -> %s", succ);
        }
    }
    fprintf(f, "\n");
    if (!draw)
        return;
    char pic[MA_RENDER_BOARD_SIZE];
    ma_error e;
    if (ma_render_board_text(pic, sizeof pic, board, &e) == MA_OK) {
        /* indent the drawing under its row */
        for (const char *p = pic; *p;) {
            const char *nl = strchr(p, '\n');
            size_t n = nl ? (size_t)(nl - p) : strlen(p);
            fprintf(f, "    %.*s\n", (int)n, p);
            p += n + (nl != NULL);
        }
    }
}

/* The first root row of a sector (rows are kept roots first), or NULL. */
static const ma_vrun_row *first_root(const ma_vrun_sector *s)
{
    return s->n_rows && s->rows[0].root ? &s->rows[0] : NULL;
}

/* The one-line message of a failing sector: what is wrong, where to look first. "std_4_3_0_0:
 * 651,831 discrepancies (651,831 roots, 0 propagated): wrong-outcome=6,840 wrong-depth=644,991;
 * first root: entry 0, position a1,d1,g1,b2/d2,f2,c3, stored win 3, derived win 5, refuted by a1-a4". */
static void failure_message(char *msg, size_t size, const ma_vrun_sector *s)
{
    char classes[512];
    class_counts(classes, sizeof classes, s->by_class);
    size_t k = (size_t)snprintf(msg, size, "%s: %s%s (%s, %s propagated)%s%s", s->name,
                                s->body_digest == 0 ? "the body does not match the SHA-256 in its header; " : "",
                                MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"),
                                MA_COUNT(s->roots, "root", "roots"), MA_NUM(s->propagated), classes[0] ? ": " : "",
                                classes);
    const ma_vrun_row *w = first_root(s);
    if (!w || k >= size)
        return;
    char board[96];
    ma_board_format(w->board, board, sizeof board);
    k += (size_t)snprintf(msg + k, size - k, "; first root: entry %llu, position %s, stored %s, derived %s",
                          (unsigned long long)w->entry, board, w->stored_text, w->derived_text);
    if (w->has_refutation && k < size)
        snprintf(msg + k, size - k, ", refuted by %s", w->move);
}

/* Message and text of a root sector (text malloc'd into *text). */
static int failure_text(const ma_vrun_sector *s, char *msg, size_t msg_size, char **text)
{
    char classes[512];
    class_counts(classes, sizeof classes, s->by_class);
    failure_message(msg, msg_size, s);
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    if (s->body_digest == 0)
        fprintf(f, "%s: body digest mismatch (docs/format.md 5.1)%s%s\n", s->name, s->message[0] ? ": " : "",
                s->message);
    fprintf(f, "%s: %s of %s %s (%s, %s propagated)\n", s->name, MA_NUM(s->discrepancies),
            MA_COUNT(s->entries, "entry", "entries"), ma_noun(s->discrepancies, "is a discrepancy", "are discrepancies"),
            MA_COUNT(s->roots, "root", "roots"), MA_NUM(s->propagated));
    fprintf(f, "classes: %s\n", classes[0] ? classes : "none");
    size_t rows = s->n_rows < MA_VRUN_JUNIT_ROWS ? s->n_rows : MA_VRUN_JUNIT_ROWS;
    if (rows)
        fprintf(f, "first %s of %s (roots first; boards: mover X, opponent O):\n", MA_NUM(rows),
                MA_NUM(s->discrepancies));
    for (size_t i = 0; i < rows; i++)
        write_row(f, &s->rows[i], i < MA_VRUN_JUNIT_BOARDS);
    if (s->discrepancies > rows)
        fprintf(f, "... %s more\n", MA_NUM(s->discrepancies - rows));
    return fclose(f) == 0 ? 0 : -1;
}

static int sector_case(ma_junit_suite *suite, const ma_vrun *r, const ma_vrun_sector *s, const ma_run_cause *cause,
                       ma_error *err)
{
    char classname[64], msg[1200], out[1400];
    snprintf(classname, sizeof classname, SUITE ".%s", ma_variant_name(s->variant));
    out[0] = 0;
    if (s->carried)
        snprintf(out, sizeof out, "result carried over from run %lld (inputs unchanged)", (long long)s->from_run);
    const char *o = out[0] ? out : NULL;
    char *text = NULL;
    int rc;
    switch (s->status) {
    case MA_SECTOR_NOT_CHECKED: /* the run stopped before it (verifier/run/run.h) */
        return ma_junit_case_add(suite, classname, s->name, -1, MA_JUNIT_SKIPPED, NULL,
                                 "not checked: the run was interrupted before this sector", NULL, NULL, err);
    case MA_SECTOR_DISCREPANCIES:
        if (cause && cause->kind == MA_CAUSE_CONSEQUENCE) {
            /* wrong only because a root sector is: its own failure is theirs (one bug, one red line) */
            char because[700];
            ma_run_causes_names(because, sizeof because, r, cause, 8);
            size_t k = strlen(out);
            snprintf(out + k, sizeof out - k, "%s%s (all propagated), a consequence of %s: fixing %s fixes this sector",
                     k ? "\n" : "", MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"), because,
                     ma_noun(cause->n_because, "it", "them"));
            return ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_PASS, NULL, NULL, NULL, out, err);
        }
        if (failure_text(s, msg, sizeof msg, &text))
            return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
        rc = ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_FAILURE, "discrepancies", msg, text,
                               o, err);
        free(text);
        return rc;
    case MA_SECTOR_DAMAGED:
    case MA_SECTOR_INPUT_DAMAGED:
        /* not checked: the damaged file is the suite's one error case (integrity), never a failure
         * of the solver, and not one red line more per sector it keeps from being checked */
        return ma_junit_case_add(suite, classname, s->name, -1, MA_JUNIT_SKIPPED, ma_sector_status_name(s->status),
                                 s->message[0] ? s->message : ma_sector_status_name(s->status), NULL, o, err);
    case MA_SECTOR_INCOMPLETE:
    case MA_SECTOR_UNUSABLE:
        return ma_junit_case_add(suite, classname, s->name, s->status == MA_SECTOR_UNUSABLE ? -1 : s->seconds,
                                 MA_JUNIT_ERROR, ma_sector_status_name(s->status),
                                 s->message[0] ? s->message : ma_sector_status_name(s->status), NULL, o, err);
    case MA_SECTOR_WITHIN_BOUNDS:
        snprintf(msg, sizeof msg, "verified within bounds only: %s unproven (successor sectors absent)",
                 MA_COUNT(s->within_bounds, "entry", "entries"));
        if (ma_vrun_options_of(r)->allow_bounds) {
            char both[2700];
            snprintf(both, sizeof both, "%s (accepted: --allow-bounds)%s%s", msg, o ? "\n" : "", o ? o : "");
            return ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_PASS, NULL, NULL, NULL, both,
                                     err);
        }
        return ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_SKIPPED, NULL, msg, NULL, o, err);
    default:
        return ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_PASS, NULL, NULL, NULL, o, err);
    }
}

/* The run's own problems: interrupted, record incomplete, or a hole no sector case explains. */
static int run_case(ma_junit_suite *suite, const ma_vrun *r, const char *stopped_by, int sector_errors,
                    ma_error *err)
{
    int verdict = ma_vrun_verdict_of(r);
    const char *type = NULL, *msg = NULL;
    if (stopped_by) {
        type = "stopped";
        msg = stopped_by;
    } else if (verdict == MA_VERDICT_INTERRUPTED) {
        type = "interrupted";
        msg = "the run was interrupted; finished sectors are recorded, --resume continues";
    } else if (ma_vrun_record_failed(r)) {
        type = "record-incomplete";
        msg = "the audit record is incomplete: the store could not be written";
    } else if (verdict == MA_VERDICT_INCOMPLETE && !sector_errors) {
        type = "incomplete";
        msg = ma_vrun_error_count(r) ? ma_vrun_error(r, 0) : "not every file of the database could be checked";
    }
    if (!type)
        return MA_OK;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    for (size_t i = 0; i < ma_vrun_error_count(r); i++)
        fprintf(f, "%s\n", ma_vrun_error(r, i));
    if (fclose(f)) {
        free(text);
        return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
    }
    int rc = ma_junit_case_add(suite, SUITE, "run", ma_vrun_seconds(r), MA_JUNIT_ERROR, type, msg,
                               len ? text : NULL, NULL, err);
    free(text);
    return rc;
}

int ma_vrun_junit(ma_junit *j, const ma_vrun *r, const char *stopped_by, ma_error *err)
{
    int rc = ma_junit_init(j, "millaudit verify", err);
    if (rc)
        return rc;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%S", &tm);
    const ma_vrun_options *opt = ma_vrun_options_of(r);
    ma_junit_suite *s = NULL;
    if ((rc = ma_junit_suite_add(j, SUITE, now, opt->host, &s, err)))
        return rc;
    s->seconds = ma_vrun_seconds(r);
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)ma_vrun_id(r));
    ma_format f = ma_vrun_format(r);
    const char *props[][2] = {
        {"database_root", ma_vrun_root(r)},
        {"format", f ? ma_format_name(f) : "unknown"},
        {"mode", MODES[opt->mode]},
        {"audit_store", opt->audit_path ? opt->audit_path : ""},
        {"run_id", ma_vrun_id(r) ? id : ""},
        {"verdict", ma_verdict_state_name(ma_vrun_verdict_of(r))},
        {"tool_version", opt->tool_version ? opt->tool_version : ""},
        {"git_revision", opt->git_revision ? opt->git_revision : ""},
    };
    for (size_t i = 0; !rc && i < sizeof props / sizeof props[0]; i++)
        rc = ma_junit_property_add(s, props[i][0], props[i][1], err);
    int sector_errors = 0;
    ma_run_causes causes = {0};
    if (!rc)
        rc = ma_render_integrity_junit(s, r, err);
    if (!rc)
        rc = ma_run_causes_of(&causes, r, err);
    for (size_t i = 0; !rc && i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *x = ma_vrun_sector_at(r, i);
        sector_errors |= x->status == MA_SECTOR_INCOMPLETE || x->status == MA_SECTOR_UNUSABLE;
        rc = sector_case(s, r, x, &causes.c[i], err);
    }
    ma_run_causes_free(&causes);
    if (!rc)
        rc = run_case(s, r, stopped_by, sector_errors, err);
    return rc;
}

int ma_vrun_junit_write(const ma_vrun *r, const char *stopped_by, const char *path, ma_error *err)
{
    ma_junit j;
    int rc = ma_vrun_junit(&j, r, stopped_by, err);
    if (!rc)
        rc = ma_junit_write(&j, path, err);
    ma_junit_free(&j);
    return rc;
}
