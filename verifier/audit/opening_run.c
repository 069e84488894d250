/* The opening engine of millaudit/game.h: opens the database and the oracle over it
 * (verifier/audit/opening_db.c), proves the start value (verifier/audit/opening.c), records the run in the audit
 * store (reports/store/audit_game.h) and decides the run's result. */
#include "verifier/audit/opening.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/manifest.h"
#include "common/counts.h"
#include "verifier/run/manifest_record.h"
#include "common/verdict.h"
#include "verifier/formats/source.h"
#include "ma_version.h"
#include "reports/store/audit.h"
#include "reports/store/audit_game.h"

/* The proof a run hands back (millaudit/game.h). */
struct ma_opening_proof {
    int result;                 /* the command result (common/verdict.h) */
    int search_result;          /* the verdict before recording: the JSON document's "exit" */
    int searched;               /* the search ran to its end */
    int has_verdict;            /* the search ended, or was interrupted: verdict holds how */
    ma_verdict_state verdict;
    char *database;             /* as given */
    ma_variant variant;
    int stones;
    ma_format format;
    int compare;
    ma_opening_result res;
    int have_stored_start;
    char stored_start[128];
    char missing[2048];         /* absent or excluded leaf sectors, ", "-joined */
    uint64_t bad_leaves;        /* leaves whose entry held no value */
    char first_bad[600];
    char warning[3600];         /* why the value is not proven, "" when it is */
    int has_store_error;
    ma_error store_error;
    int64_t run_id;
};

/* What the run holds while it works; only the proof outlives it. */
typedef struct job {
    ma_opening_proof *p;
    const ma_opening_run_options *opt;
    const char *only_text;
    ma_sector only[64];
    size_t n_only;
    ma_database *db;
    ma_opening_db *odb;
    ma_audit *audit;
} job;

static const char *status_name(int s)
{
    return s == MA_OPENING_PROVEN ? "proven" : s == MA_OPENING_OUTCOME_PROVEN ? "outcome-proven"
                                                                                : "unproven";
}

static int depth_or_null(ma_value v)
{
    return v.outcome == MA_OUTCOME_WIN || v.outcome == MA_OUTCOME_LOSS ? v.depth : -1;
}

/* --only-sectors: movement sectors of the chosen variant, comma- or space-separated. */
static int parse_only(job *J, ma_error *err)
{
    char buf[4096];
    ma_variant v = J->opt->variant;
    snprintf(buf, sizeof buf, "%s", J->only_text);
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        ma_variant tv = v;
        int named = 0;
        ma_error e;
        if (J->n_only >= sizeof J->only / sizeof J->only[0])
            return ma_error_set(err, MA_EUSAGE, "only_sectors: more than %s",
                                MA_COUNT(sizeof J->only / sizeof J->only[0], "sector", "sectors"));
        if (ma_sector_arg_parse(tok, &tv, &named, &J->only[J->n_only], &e))
            return ma_error_set(err, MA_EUSAGE, "only_sectors: %s", e.msg);
        if (named && tv != v)
            return ma_error_set(err, MA_EUSAGE, "only_sectors %s: not a %s sector", tok,
                                ma_variant_name(v));
        J->n_only++;
    }
    if (!J->n_only)
        return ma_error_set(err, MA_EUSAGE, "only_sectors: no sector given");
    return MA_OK;
}

/* What the rules refute before anything is opened (the command line's mistakes). */
static int check_options(job *J, ma_error *err)
{
    const ma_opening_run_options *o = J->opt;
    if (o->variant == MA_VARIANT_LASK)
        return ma_error_set(err, MA_EUSAGE, "variant lask: Lasker Morris mixes placing and "
                                            "moving, so its placement phase is no finite tree; use std or mora");
    if (o->variant != MA_VARIANT_STD && o->variant != MA_VARIANT_MORA)
        return ma_error_set(err, MA_EUSAGE, "variant is required");
    if (o->stones < 3 || o->stones > ma_variant_stones(o->variant))
        return ma_error_set(err, MA_EUSAGE, "stones %d: %s has %d stones per side", o->stones,
                            ma_variant_name(o->variant), ma_variant_stones(o->variant));
    return J->only_text ? parse_only(J, err) : MA_OK;
}

static int open_store(job *J, ma_error *err)
{
    const ma_opening_run_options *o = J->opt;
    int rc = ma_audit_open(&J->audit, o->audit_path, err);
    if (rc) /* a store that is not SQLite, foreign, newer or corrupt is unusable input (3); one that
             * cannot be created or written is an output failure (4) */
        return rc;
    char root[PATH_MAX];
    if (!realpath(o->database, root))
        snprintf(root, sizeof root, "%s", o->database);
    ma_run_info info = {"opening", MA_VERSION, MA_GIT_REVISION, o->host ? o->host : "",
                        o->cmdline ? o->cmdline : "", root, ma_variant_name(o->variant),
                        ma_format_name(ma_database_format(J->db))};
    if (ma_audit_run_begin(J->audit, &info, &J->p->run_id, err))
        return MA_EIO;
    return MA_OK;
}

/* The stored start value, shown beside the proof (the search compares it like any other). */
static int read_stored_start(job *J, ma_error *err)
{
    ma_opening_oracle o;
    ma_opening_db_oracle(J->odb, 1, &o);
    ma_opening_stored st;
    ma_sector root = {0, 0, (uint8_t)J->p->stones, (uint8_t)J->p->stones};
    int rc = o.stored(o.ctx, root, (ma_board){0, 0}, &st, err);
    if (rc < 0) /* out of memory is no fault of the file */
        return rc == MA_ENOMEM ? rc : ma_result_of_unusable(rc);
    if (rc == 1) {
        snprintf(J->p->stored_start, sizeof J->p->stored_start, "%s (%s)", st.describe, st.sector);
        J->p->have_stored_start = 1;
    }
    return MA_OK;
}

/* Opens what the search reads and the store it writes; the result when something is unusable. */
static int prepare(job *J, ma_error *err)
{
    const ma_opening_run_options *o = J->opt;
    ma_database_options dbo = {.no_digest_check = o->no_digest_check};
    int rc = ma_database_open(&J->db, o->database, &dbo, err);
    if (rc)
        return rc == MA_EUSAGE ? MA_EFORMAT : rc;
    J->p->format = ma_database_format(J->db);
    if (!(ma_database_variants(J->db) & (1u << o->variant)))
        return ma_error_set(err, MA_EMISSING, "%s: holds no %s sector file", o->database,
                            ma_variant_name(o->variant));
    rc = ma_opening_db_create(&J->odb, J->db, o->variant, J->only, J->n_only, err);
    if (rc) /* an --only-sectors the database refutes is a usage error */
        return rc == MA_EINVAL ? (err->code = MA_EUSAGE) : rc == MA_ENOMEM ? rc : MA_EINTERNAL;
    if (o->audit_path && (rc = open_store(J, err)))
        return rc;
    return J->p->compare ? read_stored_start(J, err) : MA_OK;
}

static void fill_sectors(const ma_opening_result *r, ma_audit_opening_sector *secs)
{
    for (size_t i = 0; i < r->n_tallies; i++) {
        const ma_opening_tally *t = &r->tallies[i];
        secs[i] = (ma_audit_opening_sector){t->name,          t->path,          t->entries,
                                            t->exact_checked, t->exact_agreed,  t->bound_checked,
                                            t->bound_agreed,  t->discrepancies};
    }
}

static void fill_rows(const ma_opening_result *r, ma_audit_opening_row *rows, char (*text)[80])
{
    for (size_t i = 0; i < r->n_rows; i++) {
        const ma_opening_discrepancy *d = &r->rows[i];
        ma_board_format(d->board, text[i], sizeof text[i]);
        rows[i] = (ma_audit_opening_row){
            .sector = d->sector,
            .entry = d->entry,
            .board = text[i],
            .stored = d->stored,
            .derived = d->derived,
            .stored_outcome = d->stored_usable ? ma_outcome_name(d->stored_value.outcome) : "bad",
            .stored_depth = d->stored_usable ? depth_or_null(d->stored_value) : -1,
            .derived_outcome = ma_outcome_name(d->derived_value.outcome),
            .derived_depth = depth_or_null(d->derived_value),
            .derived_bound = d->bound > 0 ? "lower" : d->bound < 0 ? "upper" : "exact",
        };
    }
}

/* Records the comparisons (also after an interruption: what was compared is a finding either way)
 * and, when the search finished, the opening result, in one transaction. */
static int record(job *J, ma_error *err)
{
    const ma_opening_proof *p = J->p;
    const ma_opening_result *r = &p->res;
    char root[48], board[80];
    snprintf(root, sizeof root, "%s_0_0_%d_%d", ma_variant_name(p->variant), p->stones, p->stones);
    ma_board_format(r->root, board, sizeof board);
    int proven = r->status != MA_OPENING_UNPROVEN;
    ma_audit_opening row = {
        .variant = ma_variant_name(p->variant), .stones = p->stones, .root = root,
        .root_board = board, .status = status_name(r->status),
        .value_outcome = proven ? ma_outcome_name(r->value.outcome) : NULL,
        .value_depth = r->status == MA_OPENING_PROVEN ? depth_or_null(r->value) : -1,
        .lower_outcome = ma_outcome_name(r->lower.outcome), .lower_depth = depth_or_null(r->lower),
        .upper_outcome = ma_outcome_name(r->upper.outcome), .upper_depth = depth_or_null(r->upper),
        .stored_start = p->have_stored_start ? p->stored_start : NULL,
        .pv = r->pass[0].pv, .pv_end = r->pass[0].pv_end, .passes = r->passes, .nodes = r->nodes,
        .leaves = r->leaves, .unknown_leaves = r->unknown_leaves, .tt_probes = r->tt_probes,
        .tt_hits = r->tt_hits, .tt_entries = r->tt_entries, .exact_checked = r->exact_checked,
        .bound_checked = r->bound_checked, .discrepancies = r->discrepancies,
        .missing_sectors = p->missing[0] ? p->missing : NULL, .only_sectors = J->only_text,
        .seconds = r->seconds,
    };
    ma_audit_opening_sector *secs = calloc(r->n_tallies + 1, sizeof *secs);
    ma_audit_opening_row *rows = calloc(r->n_rows + 1, sizeof *rows);
    char (*text)[80] = calloc(r->n_rows + 1, sizeof *text);
    int rc = !secs || !rows || !text ? ma_error_set(err, MA_ENOMEM, "opening: out of memory") : MA_OK;
    if (!rc) {
        fill_sectors(r, secs);
        fill_rows(r, rows, text);
        rc = ma_audit_opening_record(J->audit, p->run_id, p->searched ? &row : NULL, secs,
                                     r->n_tallies, rows, r->n_rows, err);
    }
    if (!rc && p->searched) {
        /* what the proof read: the leaves' and the compared sectors' files, by SHA-256 */
        const char *names[300], *rel[300];
        size_t n = ma_opening_db_files(J->odb, names, 300);
        for (size_t i = 0; i < n; i++) {
            const char *slash = strrchr(names[i], '/');
            rel[i] = slash ? slash + 1 : names[i];
        }
        ma_sha256_options so = {0};
        rc = n ? ma_manifest_record(J->audit, p->run_id, ma_database_dir(J->db), rel, n, &so, err)
               : MA_OK;
    }
    free(secs);
    free(rows);
    free(text);
    return rc;
}

/* The one line saying why the value is not proven. */
static void explain_unproven(ma_opening_proof *p)
{
    char why[2300];
    if (p->missing[0] && p->bad_leaves)
        snprintf(why, sizeof why, "leaves in absent movement sectors %s and %llu leaf entries "
                 "without a value", p->missing, (unsigned long long)p->bad_leaves);
    else if (p->bad_leaves)
        snprintf(why, sizeof why, "%llu leaf entries without a value (first: %.200s)",
                 (unsigned long long)p->bad_leaves, p->first_bad);
    else
        snprintf(why, sizeof why, "leaves in absent movement sectors %s", p->missing);
    snprintf(p->warning, sizeof p->warning, "%.1000s: value not proven (between %s and %s): %s",
             p->database, ma_outcome_name(p->res.lower.outcome),
             ma_outcome_name(p->res.upper.outcome), why);
}

static void store_failed(ma_opening_proof *p, const ma_error *e)
{
    p->store_error = *e;
    p->has_store_error = 1;
    p->result = MA_EIO;
}

/* The search, its result and its record; returns the search's error, if any. */
static int search(job *J, ma_error *err)
{
    ma_opening_proof *p = J->p;
    const ma_opening_run_options *o = J->opt;
    ma_opening_options so = {
        .variant = o->variant, .stones = o->stones, .tt_bytes = (o->tt_mb ? o->tt_mb : 64) << 20,
        .max_rows = o->max_rows, .progress = o->progress, .cancel = o->cancel,
    };
    ma_opening_oracle oracle;
    ma_opening_db_oracle(J->odb, p->compare, &oracle);
    int rc = ma_opening_prove(&so, &oracle, &p->res, err);
    ma_opening_db_missing(J->odb, p->missing, sizeof p->missing);
    p->bad_leaves = ma_opening_db_bad_leaves(J->odb);
    snprintf(p->first_bad, sizeof p->first_bad, "%s", ma_opening_db_first_bad(J->odb));
    if (rc == MA_ECANCELED) {
        p->has_verdict = 1;
        p->verdict = MA_VERDICT_INTERRUPTED;
        p->result = ma_result_of_signal(o->cancel && *o->cancel == SIGTERM ? SIGTERM : SIGINT);
    } else if (rc) { /* the search's own code, but never "usage" or "ok" (exit 3) */
        p->result = rc == MA_EUSAGE ? MA_EFORMAT : rc;
    } else {
        p->searched = 1;
        p->has_verdict = 1;
        p->verdict = p->res.discrepancies ? MA_VERDICT_DISCREPANCIES
                     : p->res.status == MA_OPENING_UNPROVEN ? MA_VERDICT_INCOMPLETE
                                                            : MA_VERDICT_VERIFIED;
        p->result = ma_result_of_verdict(p->verdict, 0);
        p->search_result = p->result;
        if (p->res.status == MA_OPENING_UNPROVEN && !p->res.discrepancies)
            explain_unproven(p);
    }
    ma_error e;
    if (J->audit && record(J, &e))
        store_failed(p, &e);
    return rc;
}

/* The run's status in the store, from its verdict, in an opening run's words
 * (docs/audit-schema.md): ma_verdict_status's "ok", "discrepancies" and "interrupted", and
 * "unproven" for a search that ended without proving the value (the verdict incomplete). A run
 * that stopped on an error before it had a verdict, or whose result was not recorded whole, is
 * "unusable". */
static const char *run_status(const ma_opening_proof *p)
{
    if (!p->has_verdict || p->has_store_error)
        return "unusable";
    return p->verdict == MA_VERDICT_INCOMPLETE ? "unproven" : ma_verdict_status(p->verdict);
}

int ma_opening_run(ma_opening_proof **out, const ma_opening_run_options *opt, ma_error *err)
{
    *out = NULL;
    ma_opening_proof *p = calloc(1, sizeof *p);
    if (!p || !(p->database = strdup(opt->database ? opt->database : ""))) {
        free(p);
        return ma_error_set(err, MA_ENOMEM, "opening: out of memory");
    }
    *out = p;
    p->variant = opt->variant;
    p->stones = opt->stones;
    p->compare = !opt->no_compare;
    job J = {.p = p, .opt = opt, .only_text = opt->only_sectors};
    int rc = check_options(&J, err);
    if (!rc)
        rc = prepare(&J, err);
    if (rc)
        p->result = rc;
    else
        rc = search(&J, err);
    ma_error e;
    if (J.audit && p->run_id && ma_audit_run_end(J.audit, p->run_id, run_status(p), &e) &&
        ma_result_exit_code(p->result) < MA_EXIT_IO)
        store_failed(p, &e);
    ma_audit_close(J.audit);
    ma_opening_db_free(J.odb);
    ma_database_close(J.db);
    return rc;
}

void ma_opening_proof_free(ma_opening_proof *p)
{
    if (!p)
        return;
    ma_opening_result_free(&p->res);
    free(p->database);
    free(p);
}

int ma_opening_proof_result(const ma_opening_proof *p) { return p ? p->result : MA_ENOMEM; }
int ma_opening_proof_searched(const ma_opening_proof *p) { return p && p->searched; }
int ma_opening_proof_status(const ma_opening_proof *p) { return p->res.status; }
ma_value ma_opening_proof_value(const ma_opening_proof *p) { return p->res.value; }
uint64_t ma_opening_proof_discrepancies(const ma_opening_proof *p) { return p->res.discrepancies; }
int64_t ma_opening_proof_run_id(const ma_opening_proof *p) { return p->run_id; }

void ma_opening_proof_bounds(const ma_opening_proof *p, ma_value *lower, ma_value *upper)
{
    *lower = p->res.lower;
    *upper = p->res.upper;
}

const char *ma_opening_proof_stored_start(const ma_opening_proof *p)
{
    return p->have_stored_start ? p->stored_start : NULL;
}

const char *ma_opening_proof_warning(const ma_opening_proof *p)
{
    return p && p->warning[0] ? p->warning : NULL;
}

const ma_error *ma_opening_proof_store_error(const ma_opening_proof *p)
{
    return p && p->has_store_error ? &p->store_error : NULL;
}

void ma_opening_proof_facts(const ma_opening_proof *p, ma_opening_facts *out)
{
    *out = (ma_opening_facts){
        .database = p->database, .variant = p->variant, .stones = p->stones, .format = p->format,
        .compare = p->compare, .result = &p->res,
        .stored_start = p->have_stored_start ? p->stored_start : NULL, .missing = p->missing,
        .bad_leaves = p->bad_leaves, .first_bad = p->first_bad, .search_result = p->search_result,
    };
}
