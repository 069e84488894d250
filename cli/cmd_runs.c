/*
 * millaudit runs export --audit FILE [--run N] [--out FILE]
 * millaudit runs import --audit FILE RUN.json | ATTESTATION --pub PUB.pem
 * millaudit runs compare [--audit FILE] A B [--json] (A, B: run ids in --audit, or STORE:ID)
 * millaudit runs list --audit FILE [--kind K] [--root DIR] [--last N] [--json]
 * millaudit runs regressions --audit FILE [--run N] [--since RUN] [--root DIR] [--json] [--junit F]
 * millaudit runs merge OUT.sqlite SHARD.sqlite... [--allow-partial] [--allow-bounds]
 *
 * Moves one run between stores as a JSON document (store/runs.h, docs/reproducibility.md) and
 * compares two runs sector by sector: same bytes (manifest digests), same derived values (derived
 * digests), present on both sides. Exit: export/import 0 done, 3 input unusable (store untouched),
 * 4 output not writable; compare 0 equal, 1 they differ, 3 unusable or not comparable; 2 usage.
 * list and regressions read the history of a store (store/history.h, docs/nightly.md): list 0,
 * regressions 0 nothing regressed (or no baseline), 1 regressed, 3 store or run unusable, 4 the
 * JUnit file not writable.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "common/output.h"
#include "common/options.h"
#include "store/audit.h"
#include "render/regressions_junit.h"
#include "store/history.h"
#include "render/junit.h"
#include "render/render.h"
#include "store/runs.h"
#include "run/attest.h"
#include "millaudit.h"

#define MAX_DOCUMENT (1024L * 1024L * 1024L) /* a run export beyond 1 GiB is not one we wrote */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit runs export --audit FILE.sqlite [--run N] [--out FILE]\n"
            "       millaudit runs import --audit FILE.sqlite RUN.json | ATTESTATION --pub PUB.pem\n"
            "       millaudit runs compare [--audit FILE.sqlite] A B [--json]\n"
            "       millaudit runs list --audit FILE.sqlite [--kind K] [--root DIR] [--last N] [--json]\n"
            "       millaudit runs regressions --audit FILE.sqlite [--run N] [--since RUN] [--root DIR]\n"
            "                                  [--json] [--junit FILE]\n"
            "       millaudit runs merge OUT.sqlite SHARD.sqlite... [--allow-partial] [--allow-bounds]\n"
            "export: one run as a JSON document (facts, sectors, class counts, discrepancies, manifest\n"
            "        files and chunks, derived digests); default the latest run, stdout.\n"
            "import: validate RUN.json strictly and add it to FILE as a new run, keeping its facts;\n"
            "        with --pub, an attestation (attest create) whose signature PUB.pem checks, recorded\n"
            "        as the signer's run (exit 1 and nothing written for a bad signature).\n"
            "compare: A and B are run ids in --audit or STORE:ID; per sector: same bytes? same\n"
            "        derived values? present on both sides?\n"
            "list: every run (oldest first) with its status, mode, database root and totals;\n"
            "        --kind verify, --root DIR (that database's runs), --last N (the newest N).\n"
            "regressions: what changed in run N (default: the newest verify run, of --root DIR if\n"
            "        given) since the previous finished verify run of the same root (or --since RUN):\n"
            "        new discrepancies, changed derived values, sectors appeared or vanished, verdict.\n"
            "        --junit FILE: one test case per sector, failing where it regressed.\n"
            "merge: the runs of the N shards of one verify (shard I/N; one per store, or STORE:RUN) as\n"
            "        one run in OUT, reading like a single run: roots and propagated decided again\n"
            "        across shards; missing or interrupted shards make it incomplete (--allow-partial\n"
            "        reports the discrepancies of the sectors present, but a merge missing sectors of the\n"
            "        plan is never verified). Shards planned from different inventories of the database,\n"
            "        or whose rows do not add up, are refused (docs/distributed.md).\n"
            "        Exit as verify: 0, 1, 3; refused shards 3, OUT unwritable 4.\n"
            "exit: 0 done / equal / nothing regressed, 1 runs differ / regressed, 2 usage,\n"
            "      3 input unusable or not comparable, 4 output not writable\n");
}

/* Loads run id (0 = latest) of the store at path. */
static int load_run(ma_run *r, const char *path, int64_t id, ma_error *err)
{
    ma_audit *a = NULL;
    int rc = ma_cli_audit_open_existing(&a, path, err);
    if (!rc && !id)
        rc = ma_runs_latest(a, &id, err);
    if (!rc)
        rc = ma_run_load(a, id, r, err);
    ma_audit_close(a);
    return rc;
}

static int bad_input_code(int rc)
{
    /* reading a store: any failure means the input is unusable */
    return rc == MA_ENOMEM || rc == MA_EINTERNAL ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
}

static int cmd_export(const char *audit_path, int64_t id, const char *out_path)
{
    ma_error err;
    ma_error_clear(&err);
    ma_run r;
    memset(&r, 0, sizeof r);
    char *text = NULL;
    int exit_code = MA_EXIT_OK;
    int rc = load_run(&r, audit_path, id, &err);
    if (!rc)
        rc = ma_run_to_json(&r, &text, &err);
    if (rc) {
        exit_code = bad_input_code(rc);
    } else if (out_path) {
        if (ma_render_write_atomic(out_path, text, strlen(text), &err))
            exit_code = MA_EXIT_IO;
    } else if (fputs(text, stdout) == EOF || fflush(stdout) != 0) {
        ma_error_set(&err, MA_EIO, "stdout: write failed");
        exit_code = MA_EXIT_IO;
    }
    if (exit_code)
        fprintf(stderr, "millaudit runs export: %s\n", err.msg);
    free(text);
    ma_run_free(&r);
    return exit_code;
}

/* Whether a document that is no run export is a DSSE envelope (an attestation without --pub). */
static int is_envelope(const char *text, size_t len)
{
    ma_dsse_envelope e;
    ma_error ignored;
    int yes = text && ma_dsse_parse(text, len, "", &e, &ignored) == MA_OK;
    ma_dsse_envelope_free(&e);
    return yes;
}

/* The one step both imports end with: the checked run written into the store (opened only now, so
 * a document refused earlier leaves it untouched). Returns the exit code. */
static int import_into(ma_audit **a, const char *audit_path, const ma_run *r, const char *doc_path, int64_t *new_id,
                       ma_error *err)
{
    int rc = ma_audit_open(a, audit_path, err);
    if (rc == MA_OK)
        rc = ma_run_import(*a, r, doc_path, new_id, err);
    return rc == MA_OK ? MA_EXIT_OK : rc == MA_EIO ? MA_EXIT_IO : bad_input_code(rc);
}

static int cmd_import(const char *audit_path, const char *doc_path)
{
    ma_error err;
    ma_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    ma_run r;
    memset(&r, 0, sizeof r);
    ma_audit *a = NULL;
    int64_t new_id = 0;
    int exit_code = MA_EXIT_OK;
    /* Everything is validated before the store is opened, so a bad document leaves it untouched. */
    int rc = ma_cli_read_document(doc_path, MAX_DOCUMENT, "not a run export", &text, &len, &err);
    if (!rc)
        rc = ma_run_from_json(&r, text ? text : "", len, doc_path, &err);
    if (rc == MA_EFORMAT && is_envelope(text, len)) {
        ma_error_set(&err, MA_EFORMAT, "%s: a signed attestation, not a run export: give --pub PUB.pem to check "
                     "its signature and import it", doc_path);
    }
    if (rc) {
        exit_code = bad_input_code(rc);
    } else if ((exit_code = import_into(&a, audit_path, &r, doc_path, &new_id, &err)) == MA_EXIT_OK) {
        printf("imported run %lld of %s as run %lld into %s\n", (long long)r.id, doc_path, (long long)new_id,
               audit_path);
    }
    if (exit_code)
        fprintf(stderr, "millaudit runs import: %s\n", err.msg);
    ma_audit_close(a);
    ma_run_free(&r);
    free(text);
    return exit_code;
}

/* An attestation (docs/attestations.md): its signature is checked with the public key before the
 * store is opened, and the run it states is recorded as the signer's (run_attestations). A bad
 * signature is exit 1 and writes nothing; an unusable envelope exit 3. */
static int cmd_import_attestation(const char *audit_path, const char *doc_path, const char *pub_path)
{
    ma_error err;
    ma_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    ma_ed25519_key *key = NULL;
    ma_attest_check k;
    memset(&k, 0, sizeof k);
    ma_run r;
    memset(&r, 0, sizeof r);
    ma_audit *a = NULL;
    int64_t new_id = 0;
    int exit_code = MA_EXIT_OK;
    int rc = ma_ed25519_load_public(pub_path, &key, &err);
    if (!rc)
        rc = ma_cli_read_document(doc_path, MA_DSSE_MAX_ENVELOPE, "not an attestation", &text, &len, &err);
    if (!rc)
        rc = ma_attest_check_envelope(text, len, doc_path, key, NULL, 0, &k, &err);
    if (rc) {
        exit_code = bad_input_code(rc);
    } else if (!k.signature_valid) {
        ma_error_set(&err, MA_EINVAL, "%s: bad signature: no signature verifies with key %s; nothing imported",
                     doc_path, k.keyid);
        exit_code = MA_EXIT_MISMATCH;
    } else if ((rc = ma_attest_to_run(&k, &r, &err)) != MA_OK) {
        exit_code = bad_input_code(rc);
    } else if ((exit_code = import_into(&a, audit_path, &r, doc_path, &new_id, &err)) == MA_EXIT_OK) {
        printf("imported attested run %lld of %s (signed by %s, key %s; verdict %s) as run %lld into %s\n",
               (long long)r.id, doc_path, k.st.identity ? k.st.identity : "(no identity given)", k.keyid,
               k.st.verdict, (long long)new_id, audit_path);
    }
    if (exit_code)
        fprintf(stderr, "millaudit runs import: %s\n", err.msg);
    ma_audit_close(a);
    ma_run_free(&r);
    ma_attest_check_free(&k);
    ma_ed25519_key_free(key);
    free(text);
    return exit_code;
}

/* "ID" (in the --audit store) or "STORE:ID"; buf receives the store path of the second form. */
static int parse_side(const char *arg, const char *audit_path, char *buf, size_t size, const char **store,
                      int64_t *id)
{
    const char *colon = strrchr(arg, ':');
    if (!colon) {
        *store = audit_path;
        return audit_path && !ma_cli_parse_run_id(arg, id) ? 0 : -1;
    }
    size_t n = (size_t)(colon - arg);
    if (n == 0 || n >= size || ma_cli_parse_run_id(colon + 1, id))
        return -1;
    memcpy(buf, arg, n);
    buf[n] = 0;
    *store = buf;
    return 0;
}

static const char *cmp_word(int v)
{
    return v == MA_CMP_SAME ? "same" : v == MA_CMP_DIFFER ? "differ" : "not recorded";
}

static int cmd_compare(const char *audit_path, const char *sa, const char *sb, int json)
{
    const char *store[2];
    int64_t id[2];
    const char *args[2] = {sa, sb};
    char paths[2][4096];
    for (int i = 0; i < 2; i++)
        if (parse_side(args[i], audit_path, paths[i], sizeof paths[i], &store[i], &id[i])) {
            return ma_opt_error("runs compare", "'%s': not a run id%s or STORE:ID", args[i],
                    audit_path ? "" : " (no --audit given)");
        }
    ma_error err;
    ma_error_clear(&err);
    ma_run r[2];
    memset(r, 0, sizeof r);
    ma_run_cmp cmp;
    memset(&cmp, 0, sizeof cmp);
    int exit_code = MA_EXIT_OK, rc = MA_OK;
    for (int i = 0; i < 2 && !rc; i++)
        rc = load_run(&r[i], store[i], id[i], &err);
    if (!rc)
        rc = ma_run_compare(&cmp, &r[0], &r[1], &err);
    if (rc) {
        fprintf(stderr, "millaudit runs compare: %s\n", err.msg);
        exit_code = bad_input_code(rc);
        goto out;
    }
    if (json) {
        char *doc = NULL;
        if ((rc = ma_run_cmp_json(&cmp, &r[0], store[0], &r[1], store[1], &doc, &err)) != MA_OK) {
            fprintf(stderr, "millaudit runs compare: %s\n", err.msg);
            exit_code = MA_EXIT_INTERNAL;
            goto out;
        }
        fputs(doc, stdout);
        free(doc);
        exit_code = cmp.n_differ ? MA_EXIT_MISMATCH : (cmp.n_unknown || !cmp.n_rows) ? MA_EXIT_BAD_INPUT : MA_EXIT_OK;
        if (exit_code == MA_EXIT_BAD_INPUT)
            fprintf(stderr, "millaudit runs compare: cannot tell whether the runs agree: %s\n",
                    cmp.n_rows ? "some sectors have no manifest or derived digests on both sides"
                               : "neither run recorded any sector or file");
        goto out;
    }
    for (int i = 0; i < 2; i++)
        printf("%s: %s run %lld (%s, started %s, %zu sectors, %zu manifest files)\n", i ? "B" : "A", store[i],
               (long long)r[i].id, r[i].kind, r[i].started_at, r[i].n_sectors, r[i].n_files);
    printf("%-24s %-14s %-14s %s\n", "sector", "bytes", "values", "verdict");
    for (size_t i = 0; i < cmp.n_rows; i++) {
        const ma_run_cmp_row *row = &cmp.rows[i];
        char name[300];
        snprintf(name, sizeof name, "%s%s", row->is_file ? "file " : "", row->name);
        printf("%-24s %-14s %-14s %s\n", name, cmp_word(row->bytes), cmp_word(row->values), row->how);
    }
    if (cmp.n_differ) {
        printf("differ: %zu of %zu sectors differ:", cmp.n_differ, cmp.n_rows);
        for (size_t i = 0; i < cmp.n_rows; i++) {
            const char *how = cmp.rows[i].how;
            if (strcmp(how, "same") && strcmp(how, "not comparable"))
                printf(" %s (%s)", cmp.rows[i].name, how);
        }
        printf("\n");
        exit_code = MA_EXIT_MISMATCH;
    } else if (cmp.n_unknown || !cmp.n_rows) {
        printf("not comparable: %zu of %zu sectors have neither manifest digests nor derived digests on both "
               "sides\n", cmp.n_unknown, cmp.n_rows);
        fprintf(stderr, "millaudit runs compare: cannot tell whether the runs agree: %s\n",
                cmp.n_rows ? "some sectors have no manifest or derived digests on both sides"
                           : "neither run recorded any sector or file");
        exit_code = MA_EXIT_BAD_INPUT;
    } else {
        printf("equal: %zu sectors, same bytes and derived values where recorded\n", cmp.n_rows);
    }
out:
    ma_run_cmp_free(&cmp);
    ma_run_free(&r[0]);
    ma_run_free(&r[1]);
    return exit_code;
}

/* ---------------------------------------------------------------- list, regressions */

/* --root DIR as the run engine records it (realpath); as given when it does not resolve (the
 * database may be gone while its history is not). */
static const char *root_key(const char *root, char *buf)
{
    if (!root)
        return NULL;
    return realpath(root, buf) ? buf : root;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static int cmd_list(const char *audit_path, const ma_runs_filter *f, int json)
{
    ma_error err;
    ma_error_clear(&err);
    ma_audit *a = NULL;
    ma_run_row *rows = NULL;
    size_t n = 0;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_runs_list(a, f, &rows, &n, &err);
    ma_audit_close(a);
    if (rc) {
        fprintf(stderr, "millaudit runs list: %s\n", err.msg);
        return bad_input_code(rc);
    }
    int exit_code = MA_EXIT_OK;
    if (json) {
        char *doc = NULL;
        if (ma_runs_list_json(rows, n, audit_path, &doc, &err)) {
            fprintf(stderr, "millaudit runs list: %s\n", err.msg);
            exit_code = MA_EXIT_INTERNAL;
        } else {
            fputs(doc, stdout);
        }
        free(doc);
    } else {
        printf("%5s %-8s %-24s %-24s %-13s %-11s %7s %7s %13s %13s  %s\n", "id", "kind", "started", "ended", "status",
               "mode", "sectors", "carried", "verified", "discrepancies", "database root");
        for (size_t i = 0; i < n; i++) {
            const ma_run_row *r = &rows[i];
            /* an interrupted run says what it did, also after a resume continued it ('resumed':
             * how builds before audit schema v7 recorded such a run) */
            int interrupted = r->status && (!strcmp(r->status, "interrupted") || !strcmp(r->status, "resumed"));
            char what[128] = "";
            if (interrupted && r->planned_sectors >= 0)
                snprintf(what, sizeof what, " (interrupted: %lld of %lld sectors checked%s", (long long)r->sectors,
                         (long long)(r->planned_sectors > r->sectors ? r->planned_sectors : r->sectors),
                         r->continued_by ? "; continued by run " : ")");
            else if (interrupted && r->continued_by)
                snprintf(what, sizeof what, " (interrupted; continued by run ");
            if (r->continued_by && what[0])
                snprintf(what + strlen(what), sizeof what - strlen(what), "%lld)", (long long)r->continued_by);
            printf("%5lld %-8s %-24s %-24s %-13s %-11s %7lld %7lld %13lld %13lld  %s%s%s\n", (long long)r->id,
                   or_dash(r->kind), or_dash(r->started_at), r->ended_at ? r->ended_at : "never",
                   r->ended_at ? (interrupted ? "interrupted" : or_dash(r->status)) : "unfinished", or_dash(r->mode),
                   (long long)r->sectors, (long long)r->sectors_carried, (long long)r->verified,
                   (long long)r->discrepancies, or_dash(r->database_root), r->imported ? " (imported)" : "", what);
        }
        printf("%zu runs\n", n);
    }
    if (fflush(stdout) != 0 && !exit_code) {
        fprintf(stderr, "millaudit runs list: stdout: write failed\n");
        exit_code = MA_EXIT_IO;
    }
    ma_runs_list_free(rows, n);
    return exit_code;
}

static void print_changes(unsigned changes)
{
    int first = 1;
    for (int k = 0; k < MA_CHANGES; k++)
        if (changes >> k & 1) {
            printf("%s%s", first ? "" : ", ", ma_change_name(k));
            first = 0;
        }
}

static void print_classes(const ma_run_sector *s)
{
    int any = 0;
    for (size_t i = 0; s && i < s->n_classes; i++)
        if (s->classes[i].count) {
            printf("%s%s=%lld", any ? " " : "", s->classes[i].cls, (long long)s->classes[i].count);
            any = 1;
        }
    if (!any)
        printf("none");
}

static void print_regressions(const ma_regressions *g, const char *basis)
{
    const ma_run *r = g->run, *b = g->base;
    printf("run %lld: verify of %s, started %s%s%s: %s\n", (long long)r->id, or_dash(r->database_root),
           or_dash(r->started_at), r->ended_at ? ", ended " : ", never ended", r->ended_at ? r->ended_at : "",
           r->ended_at ? or_dash(r->status) : "unfinished");
    if (!b) {
        printf("no baseline: no earlier finished verify run of this database root; nothing to compare\n");
        return;
    }
    printf("baseline: run %lld (%s), started %s: %s\n", (long long)b->id,
           !strcmp(basis, "since") ? "--since" : "the previous finished verify run of the same root",
           or_dash(b->started_at), or_dash(b->status));
    printf("verdict: %s -> %s%s\n", or_dash(b->status), r->ended_at ? or_dash(r->status) : "unfinished",
           g->verdict_worse ? " (worse)" : g->verdict_better ? " (better)" : g->verdict_changed ? "" : " (unchanged)");
    for (size_t i = 0; i < g->n_rows; i++) {
        const ma_regression_row *row = &g->rows[i];
        if (!row->changes)
            continue;
        printf("%-11s %s: %s\n", row->regression ? "REGRESSION" : row->improvement ? "improved" : "changed",
               row->sector, row->why ? row->why : "no regression");
        printf("    changes: ");
        print_changes(row->changes);
        printf("\n    discrepancies: %lld -> %lld; classes: ", row->base ? (long long)row->base->discrepancies : 0LL,
               row->run ? (long long)row->run->discrepancies : 0LL);
        print_classes(row->base);
        printf(" -> ");
        print_classes(row->run);
        printf("; status: %s -> %s\n", row->base ? or_dash(row->base->status) : "absent",
               row->run ? or_dash(row->run->status) : "absent");
    }
    if (g->regressed) {
        printf("regressed: %zu sectors", g->n_regressions);
        const char *sep = ": ";
        for (size_t i = 0; i < g->n_rows; i++)
            if (g->rows[i].regression) {
                printf("%s%s", sep, g->rows[i].sector);
                sep = ", ";
            }
        if (g->verdict_worse)
            printf("; verdict %s -> %s", or_dash(b->status), r->ended_at ? or_dash(r->status) : "unfinished");
        printf("\n");
    } else {
        printf("no regressions\n");
    }
    if (g->n_improvements) {
        printf("improved: %zu sector%s", g->n_improvements, g->n_improvements == 1 ? "" : "s");
        const char *sep = ": ";
        for (size_t i = 0; i < g->n_rows; i++)
            if (g->rows[i].improvement) {
                printf("%s%s", sep, g->rows[i].sector);
                sep = ", ";
            }
        printf("\n");
    }
    if (!g->regressed && g->verdict_better)
        printf("fixed: the verdict went from %s back to %s\n", or_dash(b->status), or_dash(r->status));
    printf("unchanged: %zu of %zu sectors\n", g->n_unchanged, g->n_rows);
}

static int cmd_regressions(const char *audit_path, int64_t run_id, int64_t since, const char *root, int json,
                           const char *junit_path)
{
    ma_error err;
    ma_error_clear(&err);
    ma_audit *a = NULL;
    ma_run run, base;
    memset(&run, 0, sizeof run);
    memset(&base, 0, sizeof base);
    ma_regressions g;
    memset(&g, 0, sizeof g);
    int64_t base_id = since;
    int exit_code = MA_EXIT_OK;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc && !run_id) {
        rc = ma_runs_newest(a, "verify", root, &run_id, &err);
        if (!rc && !run_id)
            rc = ma_error_set(&err, MA_EMISSING, "%s: no verify run%s%s", audit_path, root ? " of " : "",
                              root ? root : "");
    }
    if (!rc && !since)
        rc = ma_runs_previous(a, run_id, &base_id, &err);
    if (!rc)
        rc = ma_run_load(a, run_id, &run, &err);
    if (!rc && strcmp(run.kind, "verify"))
        rc = ma_error_set(&err, MA_EINVAL, "%s: run %lld is a %s run; regressions compare verify runs", audit_path,
                          (long long)run_id, run.kind);
    if (!rc && base_id)
        rc = ma_run_load(a, base_id, &base, &err);
    if (!rc && base_id && strcmp(base.kind, "verify"))
        rc = ma_error_set(&err, MA_EINVAL, "%s: run %lld is a %s run; regressions compare verify runs", audit_path,
                          (long long)base_id, base.kind);
    ma_audit_close(a);
    if (!rc)
        rc = ma_regressions_compute(&g, base_id ? &base : NULL, &run, &err);
    if (rc) {
        fprintf(stderr, "millaudit runs regressions: %s\n", err.msg);
        exit_code = bad_input_code(rc);
        goto out;
    }
    const char *basis = since ? "since" : "previous";
    if (json) {
        char *doc = NULL;
        if (ma_regressions_json(&g, audit_path, basis, &doc, &err)) {
            fprintf(stderr, "millaudit runs regressions: %s\n", err.msg);
            exit_code = MA_EXIT_INTERNAL;
            goto out;
        }
        fputs(doc, stdout);
        free(doc);
    } else {
        print_regressions(&g, basis);
    }
    exit_code = g.regressed ? MA_EXIT_MISMATCH : MA_EXIT_OK;
    if (junit_path) {
        ma_junit j;
        rc = ma_regressions_junit(&g, &j, &err);
        if (!rc)
            rc = ma_junit_write(&j, junit_path, &err);
        ma_junit_free(&j);
        if (rc) {
            fprintf(stderr, "millaudit runs regressions: %s\n", err.msg);
            exit_code = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_IO;
        }
    }
    if (fflush(stdout) != 0 && exit_code != MA_EXIT_INTERNAL) {
        fprintf(stderr, "millaudit runs regressions: stdout: write failed\n");
        exit_code = MA_EXIT_IO;
    }
out:
    ma_regressions_free(&g);
    ma_run_free(&run);
    ma_run_free(&base);
    return exit_code;
}

/* ---------------------------------------------------------------- merge */

/* OUT must be none of the shard stores (STORE or STORE:RUN) nor their side files: MA_OK, or the
 * result of the refusal (printed). */
static int merge_output_refused(const ma_merge_options *o)
{
    size_t ns = o->n_shards;
    ma_output_input *inputs = calloc(ns ? ns : 1, sizeof *inputs);
    char **names = calloc(ns ? ns : 1, sizeof *names);
    int result = !inputs || !names ? MA_ENOMEM : MA_OK;
    for (size_t i = 0; result == MA_OK && i < ns; i++) {
        names[i] = strdup(o->shards[i]);
        if (!names[i]) {
            result = MA_ENOMEM;
            break;
        }
        char *colon = strrchr(names[i], ':');
        struct stat st;
        if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) && stat(names[i], &st) != 0)
            *colon = 0;
        inputs[i] = (ma_output_input){names[i], "a shard store", MA_INPUT_STORE};
    }
    if (result == MA_OK)
        result = ma_cli_result_of_status(
            ma_cli_check_output("runs merge", o->out_path, "OUT", MA_OUTPUT_STORE, inputs, ns));
    for (size_t i = 0; names && i < ns; i++)
        free(names[i]);
    free(names);
    free(inputs);
    return result;
}

/* Merges and prints the merged run; returns the result (common/verdict.h). */
static int run_merge(ma_merge_options *o, int allow_bounds)
{
    /* a first Ctrl-C or SIGTERM rolls the merged run back (also when SIGINT came in ignored) */
    o->cancel = ma_cli_stop_on_signals();
    ma_merge_result m;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_merge_runs(o, &m, &err);
    int result;
    if (rc) {
        fprintf(stderr, "millaudit runs merge: %s\n", err.msg);
        /* reading the shards' stores: any failure there means the input is unusable */
        result = rc == MA_ECANCELED                      ? ma_result_of_signal((int)*o->cancel)
                 : m.output_failed                       ? MA_EIO
                 : rc == MA_ENOMEM || rc == MA_EINTERNAL ? rc
                                                         : MA_EFORMAT;
    } else {
        ma_render_merge_text(stdout, &m, o->out_path);
        if (m.partial && !o->allow_partial)
            fprintf(stderr, "millaudit runs merge: %zu of %u shards missing, %zu interrupted: the merged run is "
                            "marked incomplete (--allow-partial accepts it)\n",
                    m.n_missing, m.shard_count, m.n_interrupted);
        result = ma_result_of_verdict(m.verdict, allow_bounds ? MA_VERDICT_ALLOW_BOUNDS : 0);
    }
    ma_merge_result_free(&m);
    return result;
}

static int cmd_merge(int argc, char **argv)
{
    /* argv[0] is "merge"; the identity is taken before getopt reorders anything */
    char host[256] = "", cmdline[8192] = "";
    char **typed = calloc((size_t)argc + 2, sizeof *typed);
    int allow_bounds = 0, help = 0, result = typed ? MA_OK : MA_ENOMEM;
    for (int i = 0; typed && i < argc; i++)
        typed[i + 1] = argv[i];
    if (typed) {
        typed[0] = "runs";
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc + 1, typed);
    }
    free(typed);
    static const struct option opts[] = {{"allow-partial", no_argument, NULL, 'p'},
                                         {"allow-bounds", no_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    ma_merge_options o;
    memset(&o, 0, sizeof o);
    optind = 1;
    int c;
    while (result == MA_OK && !help && (c = ma_opt_next("runs merge", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': o.allow_partial = 1; break;
        case 'b': allow_bounds = 1; break;
        case 'h': help = 1; break;
        default: result = MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (result == MA_OK && !help && argc - optind < 2)
        result = ma_cli_result_of_status(ma_opt_error(
            "runs merge", "%s", argc - optind < 1 ? "no output store given" : "no shard store given"));
    if (result == MA_OK && !help) {
        o.out_path = argv[optind];
        o.shards = (const char *const *)(argv + optind + 1);
        o.n_shards = (size_t)(argc - optind - 1);
        o.host = host;
        o.command_line = cmdline;
        result = merge_output_refused(&o);
    }
    if (help)
        usage(stdout);
    else if (result == MA_OK)
        result = run_merge(&o, allow_bounds);
    return ma_result_exit_code(result);
}

/* The one line for arguments that do not fit the subcommand: its synopsis. */
static int misuse(const char *sub)
{
    static const char *const synopsis[][2] = {
        {"export", "--audit FILE [--run N] [--out FILE]"},
        {"import", "--audit FILE RUN.json"},
        {"compare", "[--audit FILE] A B [--json]"},
        {"list", "--audit FILE [--kind K] [--root DIR] [--last N] [--json]"},
        {"regressions", "--audit FILE [--run N] [--since RUN] [--root DIR] [--json] [--junit F]"},
    };
    char cmd[32];
    snprintf(cmd, sizeof cmd, "runs %s", sub);
    for (size_t i = 0; i < sizeof synopsis / sizeof *synopsis; i++)
        if (!strcmp(sub, synopsis[i][0]))
            return ma_opt_error(cmd, "usage: millaudit runs %s %s", sub, synopsis[i][1]);
    return ma_opt_error(cmd, "wrong arguments");
}

int ma_cmd_runs(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
                                         {"json", no_argument, NULL, 'j'}, {"kind", required_argument, NULL, 'k'},
                                         {"root", required_argument, NULL, 'R'}, {"last", required_argument, NULL, 'l'},
                                         {"since", required_argument, NULL, 's'},
                                         {"junit", required_argument, NULL, 'J'},
                                         {"pub", required_argument, NULL, 'p'},
                                         {NULL, 0, NULL, 0}};
    if (argc < 2)
        return ma_opt_error("runs", "no subcommand given (export, import, compare, list, regressions, merge)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return MA_EXIT_OK;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "merge"))
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(sub, "export") && strcmp(sub, "import") && strcmp(sub, "compare") && strcmp(sub, "list") &&
        strcmp(sub, "regressions")) {
        return ma_opt_error("runs", "unknown subcommand '%s' (export, import, compare, list, regressions, merge)", sub);
    }
    char cmd[32];
    snprintf(cmd, sizeof cmd, "runs %s", sub);
    const char *audit_path = NULL, *out_path = NULL;
    int64_t run_id = 0, since = 0;
    int have_run = 0, json = 0, history_opts = 0;
    const char *kind = NULL, *root = NULL, *junit_path = NULL, *pub_path = NULL;
    long last = 0;
    optind = 1;
    int c;
    argc--, argv++;
    while ((c = ma_opt_next(cmd, argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'r':
            if (ma_cli_parse_run_id(optarg, &run_id)) {
                return ma_opt_error(cmd, "--run %s: not a run id (a positive integer)", optarg);
            }
            have_run = 1;
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        case 'j': json = 1; break;
        case 'k': kind = optarg, history_opts |= 1; break;
        case 'R': root = optarg, history_opts |= 2; break;
        case 'J': junit_path = optarg, history_opts |= 4; break;
        case 'p': pub_path = optarg; break;
        case 'l': {
            char *end;
            errno = 0;
            last = strtol(optarg, &end, 10);
            if (errno || !*optarg || *end || last < 1) {
                return ma_opt_error(cmd, "--last %s: not a count (a positive integer)", optarg);
            }
            history_opts |= 8;
            break;
        }
        case 's':
            if (ma_cli_parse_run_id(optarg, &since)) {
                return ma_opt_error(cmd, "--since %s: not a run id (a positive integer)", optarg);
            }
            history_opts |= 16;
            break;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    int rest = argc - optind;
    if (pub_path && strcmp(sub, "import")) {
        fprintf(stderr, "millaudit runs %s: --pub belongs to import (of an attestation)\n", sub);
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    if (!strcmp(sub, "list")) {
        if (rest || !audit_path || have_run || out_path || (history_opts & ~(1 | 2 | 8)))
            return misuse(sub);
        char buf[PATH_MAX];
        ma_runs_filter f = {kind, root_key(root, buf), (size_t)last};
        return cmd_list(audit_path, &f, json);
    }
    if (!strcmp(sub, "regressions")) {
        if (rest || !audit_path || out_path || (history_opts & ~(2 | 4 | 16)))
            return misuse(sub);
        const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("runs regressions", junit_path, "--junit", MA_OUTPUT_DOCUMENT, inputs, 1);
        if (refused)
            return refused;
        char buf[PATH_MAX];
        return cmd_regressions(audit_path, run_id, since, root_key(root, buf), json, junit_path);
    }
    if (history_opts || (json && strcmp(sub, "compare")))
        return ma_opt_error(cmd, "--json, --kind, --root, --last, --since and --junit belong to list, "
                                 "regressions (and --json to compare)");
    if (!strcmp(sub, "export")) {
        if (rest || !audit_path)
            return misuse(sub);
        const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("runs export", out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 1);
        if (refused)
            return refused;
        return cmd_export(audit_path, run_id, out_path);
    }
    if (!strcmp(sub, "import")) {
        if (rest != 1 || !audit_path || have_run || out_path)
            return misuse(sub);
        return pub_path ? cmd_import_attestation(audit_path, argv[optind], pub_path)
                        : cmd_import(audit_path, argv[optind]);
    }
    if (rest != 2 || have_run || out_path)
        return misuse(sub);
    return cmd_compare(audit_path, argv[optind], argv[optind + 1], json);
}
