/* A verify run as a JUnit report (reports/render/run_junit.h). */
#include "reports/render/run_junit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "indexer/position.h"
#include "reports/render/integrity_render.h"
#include "reports/render/render.h"

#define SUITE "millaudit.verify"

static const char *const MODES[] = {"full", "resume", "incremental"};

/* "wrong-outcome=3 wrong-depth=2" (classes with a count only) into buf. */
static void class_counts(char *buf, size_t size, const uint64_t by_class[MA_DISC_CLASSES])
{
    size_t k = 0;
    buf[0] = 0;
    for (int c = 0; c < MA_DISC_CLASSES && k < size; c++)
        if (by_class[c])
            k += (size_t)snprintf(buf + k, size - k, "%s%s=%llu", k ? " " : "", ma_disc_class_name(c),
                                  (unsigned long long)by_class[c]);
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

/* Message and text of a sector with discrepancies (text malloc'd into *text). */
static int failure_text(const ma_vrun_sector *s, char *msg, size_t msg_size, char **text)
{
    char classes[512];
    class_counts(classes, sizeof classes, s->by_class);
    const char *body = s->body_digest == 0 ? "the body does not match the SHA-256 in its header; " : "";
    snprintf(msg, msg_size, "%s%llu discrepanc%s (%llu root%s, %llu propagated)%s%s", body,
             (unsigned long long)s->discrepancies, s->discrepancies == 1 ? "y" : "ies",
             (unsigned long long)s->roots, s->roots == 1 ? "" : "s", (unsigned long long)s->propagated,
             classes[0] ? ": " : "", classes);
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    if (s->body_digest == 0)
        fprintf(f, "%s: body digest mismatch (docs/format.md 5.1)%s%s\n", s->name, s->message[0] ? ": " : "",
                s->message);
    fprintf(f, "%s: %llu of %llu entries %s (%llu root%s, %llu propagated)\n", s->name,
            (unsigned long long)s->discrepancies, (unsigned long long)s->entries,
            s->discrepancies == 1 ? "is a discrepancy" : "are discrepancies", (unsigned long long)s->roots,
            s->roots == 1 ? "" : "s", (unsigned long long)s->propagated);
    fprintf(f, "classes: %s\n", classes[0] ? classes : "none");
    size_t rows = s->n_rows < MA_VRUN_JUNIT_ROWS ? s->n_rows : MA_VRUN_JUNIT_ROWS;
    if (rows)
        fprintf(f, "first %zu of %llu (roots first; boards: mover X, opponent O):\n", rows,
                (unsigned long long)s->discrepancies);
    for (size_t i = 0; i < rows; i++)
        write_row(f, &s->rows[i], i < MA_VRUN_JUNIT_BOARDS);
    if (s->discrepancies > rows)
        fprintf(f, "... %llu more\n", (unsigned long long)(s->discrepancies - rows));
    return fclose(f) == 0 ? 0 : -1;
}

static int sector_case(ma_junit_suite *suite, const ma_vrun *r, const ma_vrun_sector *s, ma_error *err)
{
    char classname[64], msg[1200], out[128];
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
        if (failure_text(s, msg, sizeof msg, &text))
            return ma_error_set(err, MA_ENOMEM, "junit: out of memory");
        rc = ma_junit_case_add(suite, classname, s->name, s->seconds, MA_JUNIT_FAILURE, "discrepancies", msg, text,
                               o, err);
        free(text);
        return rc;
    case MA_SECTOR_DAMAGED:
    case MA_SECTOR_INPUT_DAMAGED: /* not checked: damage, never a failure of the solver */
    case MA_SECTOR_INCOMPLETE:
    case MA_SECTOR_UNUSABLE:
        return ma_junit_case_add(suite, classname, s->name,
                                 s->status == MA_SECTOR_UNUSABLE || s->status >= MA_SECTOR_DAMAGED ? -1 : s->seconds,
                                 MA_JUNIT_ERROR, ma_sector_status_name(s->status),
                                 s->message[0] ? s->message : ma_sector_status_name(s->status), NULL, o, err);
    case MA_SECTOR_WITHIN_BOUNDS:
        snprintf(msg, sizeof msg, "verified within bounds only: %llu entries unproven (successor sectors absent)",
                 (unsigned long long)s->within_bounds);
        if (ma_vrun_options_of(r)->allow_bounds) {
            char both[1400];
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
    if (!rc)
        rc = ma_render_integrity_junit(s, r, err);
    for (size_t i = 0; !rc && i < ma_vrun_sector_count(r); i++) {
        const ma_vrun_sector *x = ma_vrun_sector_at(r, i);
        sector_errors |= x->status == MA_SECTOR_INCOMPLETE || x->status == MA_SECTOR_UNUSABLE;
        rc = sector_case(s, r, x, err);
    }
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
