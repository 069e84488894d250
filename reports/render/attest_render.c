/*
 * The check of an attestation for people and for scripts (`millaudit attest verify`,
 * docs/attestations.md): who attested what and when, the verdict, and the files of a database
 * that disagree. Into malloc'd buffers; the JSON goes through the one JSON writer (jansson) and
 * the one text escaper (common/json_text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/counts.h"
#include "common/json_text.h"
#include "millaudit/store.h"
#include "verifier/run/attest.h"

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static void print_statement(FILE *f, const ma_attest_check *k)
{
    const ma_attest_statement *s = &k->st;
    fprintf(f, "signature:   good (Ed25519, key %s)\n", k->keyid);
    fprintf(f, "signed by:   %s\n", s->identity ? s->identity : "(no identity given)");
    fprintf(f, "attested at: %s\n", or_dash(s->attested_at));
    fprintf(f, "tool:        %s %s (git %s)\n", or_dash(s->tool_name), or_dash(s->tool_version),
            or_dash(s->git_revision));
    fprintf(f, "rules:       %s, fingerprint %s%s\n", or_dash(s->variant), or_dash(s->rules_fingerprint),
            k->rules_match == 1 ? " (equals this build's)" : k->rules_match == 0 ? " (DIFFERS from this build's)" : "");
    fprintf(f, "database:    %s, %s, index %s", or_dash(s->database_root), or_dash(s->format),
            or_dash(s->index_scheme));
    if (s->index_scheme_version >= 0)
        fprintf(f, " v%lld", (long long)s->index_scheme_version);
    if (s->format_version >= 0)
        fprintf(f, ", format v%lld", (long long)s->format_version);
    fprintf(f, "\nrun:         %lld (%s, %s) on %s, %s to %s\n", (long long)s->run_id, or_dash(s->kind),
            or_dash(s->mode), or_dash(s->host), or_dash(s->started_at), or_dash(s->ended_at));
    fprintf(f, "totals:      %s, %s, %s checked, %s verified, %s within bounds, %s\n",
            MA_COUNT(s->sectors, "sector", "sectors"), MA_COUNT(s->entries, "entry", "entries"), MA_NUM(s->checked),
            MA_NUM(s->verified), MA_NUM(s->within_bounds),
            MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"));
    fprintf(f, "subjects:    %s, manifest sha256 %s\n", MA_COUNT(s->n_subjects, "file", "files"),
            or_dash(s->manifest_sha256));
    fprintf(f, "verdict:     %s%s%s\n", or_dash(s->verdict), s->verdict_text ? ": " : "",
            s->verdict_text ? s->verdict_text : "");
}

static void print_text(FILE *f, const char *path, const ma_attest_check *k, const char *db_dir)
{
    fprintf(f, "attestation: %s (envelope sha256 %s)\n", path, k->envelope_sha256);
    if (!k->signature_valid) {
        fprintf(f, "signature:   BAD: none of its %zu signature(s) verifies with key %s\n", k->n_signatures,
                k->keyid);
        return;
    }
    print_statement(f, k);
    if (!k->db_checked)
        return;
    for (size_t i = 0; i < k->n_issues; i++) {
        const ma_attest_issue *x = &k->issues[i];
        fprintf(f, "%s: %s", x->path, x->what);
        if (x->actual)
            fprintf(f, " (attested %s, now %s)", x->expected, x->actual);
        else if (x->message)
            fprintf(f, " (%s)", x->message);
        fprintf(f, "\n");
    }
    fprintf(f, "files:       %zu of %zu attested files of %s match%s", k->files_ok, k->st.n_subjects, db_dir,
            k->n_issues ? "" : ", and every sector file is attested");
    fprintf(f, "\n");
}

static json_t *int_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static json_t *statement_json(const ma_attest_check *k)
{
    const ma_attest_statement *s = &k->st;
    json_t *st = json_object();
    json_object_set_new(st, "identity", ma_json_store_text(s->identity));
    json_object_set_new(st, "attested_at", ma_json_store_text(s->attested_at));
    json_object_set_new(st, "tool", json_pack("{s:o, s:o, s:o}", "name", ma_json_store_text(s->tool_name), "version",
                                              ma_json_store_text(s->tool_version), "git_revision",
                                              ma_json_store_text(s->git_revision)));
    json_object_set_new(st, "rules", json_pack("{s:o, s:o, s:o}", "variant", ma_json_store_text(s->variant),
                                               "fingerprint", ma_json_store_text(s->rules_fingerprint),
                                               "matches_this_build",
                                               k->rules_match < 0 ? json_null() : json_boolean(k->rules_match)));
    json_object_set_new(st, "database", json_pack("{s:o, s:o, s:o, s:o, s:o}", "root",
                                                  ma_json_store_text(s->database_root), "format",
                                                  ma_json_store_text(s->format), "index_scheme",
                                                  ma_json_store_text(s->index_scheme), "index_scheme_version",
                                                  int_or_null(s->index_scheme_version), "format_version",
                                                  int_or_null(s->format_version)));
    json_object_set_new(st, "run", json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)s->run_id, "kind",
                                             ma_json_store_text(s->kind), "mode", ma_json_store_text(s->mode),
                                             "host", ma_json_store_text(s->host), "started_at",
                                             ma_json_store_text(s->started_at), "ended_at",
                                             ma_json_store_text(s->ended_at)));
    json_object_set_new(st, "verdict", ma_json_store_text(s->verdict));
    json_object_set_new(st, "verdict_text", ma_json_store_text(s->verdict_text));
    json_object_set_new(st, "totals", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "sectors", (json_int_t)s->sectors,
                                                "entries", (json_int_t)s->entries, "checked", (json_int_t)s->checked,
                                                "verified", (json_int_t)s->verified, "within_bounds",
                                                (json_int_t)s->within_bounds, "discrepancies",
                                                (json_int_t)s->discrepancies));
    json_object_set_new(st, "manifest_sha256", ma_json_store_text(s->manifest_sha256));
    json_t *subj = json_array();
    for (size_t i = 0; i < s->n_subjects; i++)
        json_array_append_new(subj, json_pack("{s:o, s:s, s:o}", "name", ma_json_text(s->subjects[i].name), "sha256",
                                              s->subjects[i].sha256, "size", int_or_null(s->subjects[i].size)));
    json_object_set_new(st, "subjects", subj);
    return st;
}

static json_t *db_json(const ma_attest_check *k, const char *db_dir)
{
    json_t *db = json_object(), *issues = json_array();
    json_object_set_new(db, "dir", ma_json_text(db_dir));
    json_object_set_new(db, "files_ok", json_integer((json_int_t)k->files_ok));
    for (size_t i = 0; i < k->n_issues; i++) {
        const ma_attest_issue *x = &k->issues[i];
        json_array_append_new(issues, json_pack("{s:o, s:s, s:o, s:o, s:o}", "path", ma_json_text(x->path), "problem",
                                                x->what, "expected", ma_json_store_text(x->expected), "actual",
                                                ma_json_store_text(x->actual), "message",
                                                ma_json_store_text(x->message)));
    }
    json_object_set_new(db, "issues", issues);
    return db;
}

static int render_json(char **out, const char *path, const ma_attest_check *k, const char *db_dir, ma_error *err)
{
    const char *result = !k->signature_valid ? "bad-signature" : k->n_issues ? "files-differ" : "ok";
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(1));
    json_object_set_new(doc, "envelope", ma_json_text(path));
    json_object_set_new(doc, "envelope_sha256", json_string(k->envelope_sha256));
    json_object_set_new(doc, "result", json_string(result));
    json_t *sig = json_object();
    json_object_set_new(sig, "valid", json_boolean(k->signature_valid));
    json_object_set_new(sig, "keyid", json_string(k->keyid));
    json_object_set_new(sig, "index", k->signature_index >= 0 ? json_integer(k->signature_index) : json_null());
    json_object_set_new(sig, "signatures", json_integer((json_int_t)k->n_signatures));
    json_object_set_new(doc, "signature", sig);
    json_object_set_new(doc, "statement", k->statement_ok ? statement_json(k) : json_null());
    json_object_set_new(doc, "db", k->db_checked ? db_json(k, db_dir) : json_null());
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    size_t n = text ? strlen(text) : 0;
    char *t = text ? realloc(text, n + 2) : NULL;
    if (!t) {
        free(text);
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", path);
    }
    memcpy(t + n, "\n", 2); /* the document ends in a newline, as every JSON output of the tool */
    *out = t;
    return MA_OK;
}

int ma_render_attest_check(char **out, const ma_attest_check *k, const char *name, const char *db_dir, int json,
                           ma_error *err)
{
    *out = NULL;
    if (json)
        return render_json(out, name, k, db_dir, err);
    size_t len;
    FILE *f = open_memstream(out, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    print_text(f, name, k, db_dir);
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    }
    return MA_OK;
}

int ma_render_attest_problems(char **out, const ma_attest_check *k, const char *name, const char *db_dir,
                              const char *prefix, ma_error *err)
{
    size_t len;
    *out = NULL;
    FILE *f = open_memstream(out, &len);
    if (!f)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    if (!k->signature_valid)
        fprintf(f, "%s%s: bad signature: no signature verifies with key %s\n", prefix, name, k->keyid);
    for (size_t i = 0; i < k->n_issues; i++)
        fprintf(f, "%s%s/%s: %s\n", prefix, db_dir, k->issues[i].path, k->issues[i].what);
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    }
    return MA_OK;
}
