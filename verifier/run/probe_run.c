/*
 * ma_probe_run and ma_probe_batch_run (include/millaudit/inspect.h): `millaudit probe` but its
 * rendering. Parses the position, opens the database, settles the variant and probes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verifier/run/dump.h"
#include "verifier/run/probe.h"

/* "BOARD [wf=N] [bf=N]" from words (joined by spaces, then split on blanks). */
static int parse_position(const char *const *words, int n, ma_board *b, int *wf, int *bf,
                          ma_error *err)
{
    char buf[1024] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", i ? " " : "", words[i]);
    }
    *wf = *bf = 0;
    int have_board = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *end;
        if (!strncmp(tok, "wf=", 3) || !strncmp(tok, "bf=", 3)) {
            long v = strtol(tok + 3, &end, 10);
            if (*end || end == tok + 3 || v < 0 || v > 24)
                return ma_error_set(err, MA_EUSAGE, "%s: expected wf=N or bf=N, N in 0..24", tok);
            *(tok[0] == 'w' ? wf : bf) = (int)v;
            continue;
        }
        if (have_board)
            return ma_error_set(err, MA_EUSAGE, "%s: a second board", tok);
        if (ma_board_parse(tok, b, err)) {
            ma_error why = *err;
            return ma_error_set(err, MA_EUSAGE, "%s", why.msg);
        }
        have_board = 1;
    }
    if (!have_board)
        return ma_error_set(err, MA_EUSAGE, "no board given");
    return MA_OK;
}

/* Opens the database and settles the variant: the one asked for, else the database's only one. */
static int open_db(ma_database **db, ma_variant *v, const ma_probe_run_options *opt, ma_error *err)
{
    ma_database_options dbo = {0};
    dbo.no_digest_check = opt->no_digest_check;
    int rc = ma_database_open(db, opt->root, &dbo, err);
    if (rc)
        return rc;
    *v = opt->have_variant ? opt->variant : MA_VARIANT_STD;
    if (opt->have_variant)
        return MA_OK;
    unsigned vars = ma_database_variants(*db);
    if (vars & (vars - 1)) {
        rc = ma_error_set(err, MA_EINVAL, "%s holds several variants: name the variant",
                          ma_database_root(*db));
        ma_database_close(*db);
        *db = NULL;
        return rc;
    }
    for (int k = MA_VARIANT_STD; k <= MA_VARIANT_MORA; k++)
        if (vars == 1u << k)
            *v = (ma_variant)k;
    return MA_OK;
}

int ma_probe_failure_result(int code) { return code == MA_EINVAL ? MA_EUSAGE : code; }

int ma_probe_run(ma_probe_report **out, const ma_probe_run_options *opt, ma_error *err)
{
    *out = NULL;
    ma_board pos;
    int wf, bf;
    int rc = parse_position(opt->position, opt->n_position, &pos, &wf, &bf, err);
    if (rc)
        return rc;
    ma_database *db;
    ma_variant v;
    if ((rc = open_db(&db, &v, opt, err)) != MA_OK)
        return rc;
    ma_probe_report *r = calloc(1, sizeof *r);
    if (!r)
        rc = ma_error_set(err, MA_ENOMEM, "probe: out of memory");
    else
        rc = ma_probe_position(&r->r, db, v, pos, wf, bf, err);
    ma_database_close(db);
    if (rc) {
        free(r);
        return rc;
    }
    snprintf(r->root, sizeof r->root, "%s", opt->root && strlen(opt->root) < sizeof r->root ? opt->root : "");
    /* 1 over 3, as verify: a defect found outweighs a successor that could not be read */
    r->result = !r->r.value.known || r->r.agrees == 0 ? ma_result_of_verdict(MA_VERDICT_DISCREPANCIES, 0)
                : r->r.n_unusable ? ma_result_of_verdict(MA_VERDICT_INCOMPLETE, 0)
                                  : MA_OK;
    *out = r;
    return MA_OK;
}

int ma_probe_batch_run(const ma_probe_run_options *opt, ma_error *err)
{
    ma_database *db;
    ma_variant v;
    int rc = open_db(&db, &v, opt, err);
    char line[1024];
    while (rc == MA_OK && fgets(line, sizeof line, opt->batch)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#')
            continue;
        const char *words[1] = {line};
        ma_board pos;
        int wf, bf;
        const ma_source *src;
        uint64_t entry;
        ma_stored st;
        rc = parse_position(words, 1, &pos, &wf, &bf, err);
        if (rc == MA_OK)
            rc = ma_probe_lookup(db, v, pos, wf, bf, &src, &entry, &st, err);
        if (rc == MA_OK && opt->on_line) {
            char board[96], val[96];
            ma_board_format(pos, board, sizeof board);
            ma_dump_value(src, &st, val, sizeof val);
            opt->on_line(opt->ctx, board, val);
        }
    }
    ma_database_close(db);
    return rc;
}

const ma_probe_result *ma_probe_report_position(const ma_probe_report *r) { return &r->r; }
int ma_probe_report_result(const ma_probe_report *r) { return r->result; }

void ma_probe_report_free(ma_probe_report *r)
{
    if (!r)
        return;
    ma_probe_result_free(&r->r);
    free(r);
}
