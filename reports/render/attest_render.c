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

static int is_database(const ma_attest_statement *s)
{
    return s->scope && !strcmp(s->scope, "database");
}

/* "std_2_3_1_0, std_2_2_1_1" (the first few, then "and N more") */
static void print_names(FILE *f, size_t n, const char *(*name)(const ma_attest_statement *, size_t),
                        const ma_attest_statement *s)
{
    size_t shown = n > 6 ? 5 : n;
    for (size_t i = 0; i < shown; i++)
        fprintf(f, "%s%s", i ? ", " : "", name(s, i));
    if (shown < n)
        fprintf(f, " and %zu more", n - shown);
}

static const char *sector_name(const ma_attest_statement *s, size_t i) { return or_dash(s->sector_rows[i].sector); }
static const char *input_name(const ma_attest_statement *s, size_t i) { return s->inputs[i].name; }

/* What the claim covers, in words: the line every reader needs before any verdict. */
static void print_scope(FILE *f, const ma_attest_statement *s)
{
    if (is_database(s)) {
        fprintf(f, "scope:       the whole database: %s, every file the run read checked\n",
                MA_COUNT(s->n_sector_rows, "sector", "sectors"));
        return;
    }
    fprintf(f, "scope:       part of a database: %s checked (", MA_COUNT(s->n_sector_rows, "sector", "sectors"));
    if (s->n_sector_rows)
        print_names(f, s->n_sector_rows, sector_name, s);
    else
        fprintf(f, "none: an empty shard");
    fprintf(f, "), given %s read but not checked", MA_COUNT(s->n_inputs, "input", "inputs"));
    if (s->n_inputs) {
        fprintf(f, " (");
        print_names(f, s->n_inputs, input_name, s);
        fprintf(f, ")");
    }
    fprintf(f, "\n");
}

/* The verdict line: a statement of some sectors never reads "verified" (it proves those sectors
 * given its inputs, not a database). */
static void print_verdict(FILE *f, const ma_attest_statement *s)
{
    if (!is_database(s) && s->verdict && !strcmp(s->verdict, "verified")) {
        fprintf(f, "verdict:     proves sectors ");
        print_names(f, s->n_sector_rows, sector_name, s);
        if (!s->n_sector_rows)
            fprintf(f, "(none: an empty shard)");
        fprintf(f, " given inputs ");
        print_names(f, s->n_inputs, input_name, s);
        if (!s->n_inputs)
            fprintf(f, "(none)");
        fprintf(f, ": every entry of those sectors re-derived and matching; not a proof of the database\n");
        return;
    }
    fprintf(f, "verdict:     %s%s%s\n", or_dash(s->verdict), s->verdict_text ? ": " : "",
            s->verdict_text ? s->verdict_text : "");
}

static void print_statement(FILE *f, const ma_attest_check *k)
{
    const ma_attest_statement *s = &k->st;
    fprintf(f, "signature:   good (Ed25519, key %s)\n", k->keyid);
    print_scope(f, s);
    fprintf(f, "signed by:   %s\n", s->identity ? s->identity : "(no identity given)");
    fprintf(f, "attested at: %s\n", or_dash(s->attested_at));
    fprintf(f, "tool:        %s %s (git %s)\n", or_dash(s->tool_name), or_dash(s->tool_version),
            or_dash(s->git_revision));
    fprintf(f, "rules:       %s, fingerprint %s%s\n", or_dash(s->variant), or_dash(s->rules_fingerprint),
            k->rules_match == 1 ? " (equals this build's)" : k->rules_match == 0 ? " (DIFFERS from this build's)" : "");
    /* the path and the host are stated only when the signer chose to (attest create --include-host) */
    fprintf(f, "database:    %s%s%s, index %s", s->database_root ? s->database_root : "",
            s->database_root ? ", " : "", or_dash(s->format), or_dash(s->index_scheme));
    if (s->index_scheme_version >= 0)
        fprintf(f, " v%lld", (long long)s->index_scheme_version);
    if (s->format_version >= 0)
        fprintf(f, ", format v%lld", (long long)s->format_version);
    fprintf(f, "\nrun:         %lld (%s, %s)%s%s, %s to %s\n", (long long)s->run_id, or_dash(s->kind),
            or_dash(s->mode), s->host ? " on " : "", s->host ? s->host : "", or_dash(s->started_at),
            or_dash(s->ended_at));
    fprintf(f, "totals:      %s, %s, %s checked, %s verified, %s within bounds, %s\n",
            MA_COUNT(s->sectors, "sector", "sectors"), MA_COUNT(s->entries, "entry", "entries"), MA_NUM(s->checked),
            MA_NUM(s->verified), MA_NUM(s->within_bounds),
            MA_COUNT(s->discrepancies, "discrepancy", "discrepancies"));
    fprintf(f, "subjects:    %s, manifest sha256 %s\n", MA_COUNT(s->n_subjects, "file", "files"),
            or_dash(s->manifest_sha256));
    for (size_t i = 0; i < s->n_inputs; i++)
        fprintf(f, "input:       %s sha256 %s (read, not checked)\n", s->inputs[i].name, s->inputs[i].sha256);
    print_verdict(f, s);
}

static void print_text(FILE *f, const char *path, const ma_attest_check *k, const char *db_dir)
{
    fprintf(f, "attestation: %s (envelope sha256 %s)\n", path, k->envelope_sha256);
    if (!k->signature_valid) {
        fprintf(f, "signature:   BAD: none of its %s verifies with key %s (all tried, whatever their keyid)\n",
                MA_COUNT(k->n_signatures, "signature", "signatures"), k->keyid);
        return;
    }
    print_statement(f, k);
    if (!k->db_checked)
        return;
    for (size_t i = 0; i < k->n_issues; i++) {
        const ma_attest_issue *x = &k->issues[i];
        fprintf(f, "%s: %s%s", x->path, x->input ? "input " : "", x->what);
        if (x->actual)
            fprintf(f, " (attested %s, now %s)", x->expected, x->actual);
        else if (x->message)
            fprintf(f, " (%s)", x->message);
        fprintf(f, "\n");
    }
    if (is_database(&k->st))
        fprintf(f, "files:       %zu of %zu attested files of %s match%s\n", k->files_ok, k->st.n_subjects, db_dir,
                k->n_issues ? "" : ", and every sector file is attested");
    else
        fprintf(f, "files:       %s of %s and %s of %s of %s match (the other files of %s "
                   "are not part of this claim)\n",
                MA_NUM(k->files_ok), MA_COUNT(k->st.n_subjects, "attested file", "attested files"), MA_NUM(k->inputs_ok),
                MA_COUNT(k->st.n_inputs, "input", "inputs"), db_dir, db_dir);
}

static json_t *int_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static json_t *files_json(const ma_attest_subject *files, size_t n, int *bad)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        ma_json_push(a, json_pack("{s:o, s:s, s:o}", "name", ma_json_text(files[i].name), "sha256",
                                           files[i].sha256, "size", int_or_null(files[i].size)), bad);
    return a;
}

static json_t *statement_json(const ma_attest_check *k, int *bad)
{
    const ma_attest_statement *s = &k->st;
    json_t *st = json_object();
    ma_json_put(st, "identity", ma_json_store_text(s->identity), bad);
    ma_json_put(st, "attested_at", ma_json_store_text(s->attested_at), bad);
    ma_json_put(st, "tool", json_pack("{s:o, s:o, s:o}", "name", ma_json_store_text(s->tool_name), "version",
                                              ma_json_store_text(s->tool_version), "git_revision",
                                              ma_json_store_text(s->git_revision)), bad);
    ma_json_put(st, "rules", json_pack("{s:o, s:o, s:o}", "variant", ma_json_store_text(s->variant),
                                               "fingerprint", ma_json_store_text(s->rules_fingerprint),
                                               "matches_this_build",
                                               k->rules_match < 0 ? json_null() : json_boolean(k->rules_match)), bad);
    ma_json_put(st, "database", json_pack("{s:o, s:o, s:o, s:o, s:o}", "root",
                                                  ma_json_store_text(s->database_root), "format",
                                                  ma_json_store_text(s->format), "index_scheme",
                                                  ma_json_store_text(s->index_scheme), "index_scheme_version",
                                                  int_or_null(s->index_scheme_version), "format_version",
                                                  int_or_null(s->format_version)), bad);
    ma_json_put(st, "run", json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)s->run_id, "kind",
                                             ma_json_store_text(s->kind), "mode", ma_json_store_text(s->mode),
                                             "host", ma_json_store_text(s->host), "started_at",
                                             ma_json_store_text(s->started_at), "ended_at",
                                             ma_json_store_text(s->ended_at)), bad);
    ma_json_put(st, "verdict", ma_json_store_text(s->verdict), bad);
    ma_json_put(st, "verdict_text", ma_json_store_text(s->verdict_text), bad);
    ma_json_put(st, "totals", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "sectors", (json_int_t)s->sectors,
                                                "entries", (json_int_t)s->entries, "checked", (json_int_t)s->checked,
                                                "verified", (json_int_t)s->verified, "within_bounds",
                                                (json_int_t)s->within_bounds, "discrepancies",
                                                (json_int_t)s->discrepancies), bad);
    ma_json_put(st, "manifest_sha256", ma_json_store_text(s->manifest_sha256), bad);
    ma_json_put(st, "subjects", files_json(s->subjects, s->n_subjects, bad), bad);
    return st;
}

static json_t *db_json(const ma_attest_check *k, const char *db_dir, int *bad)
{
    json_t *db = json_object(), *issues = json_array();
    ma_json_put(db, "dir", ma_json_text(db_dir), bad);
    ma_json_put(db, "files_ok", json_integer((json_int_t)k->files_ok), bad);
    ma_json_put(db, "inputs_ok", json_integer((json_int_t)k->inputs_ok), bad);
    for (size_t i = 0; i < k->n_issues; i++) {
        const ma_attest_issue *x = &k->issues[i];
        ma_json_push(issues, json_pack("{s:o, s:s, s:b, s:o, s:o, s:o}", "path", ma_json_text(x->path),
                                                "problem", x->what, "input", x->input, "expected",
                                                ma_json_store_text(x->expected), "actual",
                                                ma_json_store_text(x->actual), "message",
                                                ma_json_store_text(x->message)), bad);
    }
    ma_json_put(db, "issues", issues, bad);
    return db;
}

/* What the check comes to, as ma_store_attest_verdict decides it: "verified" (exit 0) only for a
 * statement of the whole database whose verdict is verified. */
static const char *result_word(const ma_attest_check *k)
{
    switch (ma_store_attest_verdict(k)) {
    case MA_VERDICT_VERIFIED: return "verified";
    case MA_VERDICT_PARTIAL: return "partial";
    case MA_VERDICT_DIFFER: return !k->signature_valid ? "bad-signature" : "files-differ";
    default: return "not-verified";
    }
}

static json_t *scope_json(const ma_attest_check *k, int *bad)
{
    if (!k->statement_ok)
        return json_null();
    const ma_attest_statement *s = &k->st;
    json_t *sectors = json_array();
    for (size_t i = 0; i < s->n_sector_rows; i++)
        ma_json_push(sectors, ma_json_store_text(s->sector_rows[i].sector), bad);
    return json_pack("{s:o, s:o, s:o}", "kind", ma_json_store_text(s->scope), "sectors", sectors, "inputs",
                     files_json(s->inputs, s->n_inputs, bad));
}

static int render_json(char **out, const char *path, const ma_attest_check *k, const char *db_dir, ma_error *err)
{
    int ok = 0, *bad = &ok;
    json_t *doc = json_object();
    ma_json_put(doc, "schema_version", json_integer(2), bad);
    ma_json_put(doc, "envelope", ma_json_text(path), bad);
    ma_json_put(doc, "envelope_sha256", json_string(k->envelope_sha256), bad);
    ma_json_put(doc, "result", json_string(result_word(k)), bad);
    ma_json_put(doc, "scope", scope_json(k, bad), bad);
    json_t *sig = json_object();
    ma_json_put(sig, "valid", json_boolean(k->signature_valid), bad);
    ma_json_put(sig, "keyid", json_string(k->keyid), bad);
    ma_json_put(sig, "index", k->signature_index >= 0 ? json_integer(k->signature_index) : json_null(), bad);
    ma_json_put(sig, "signatures", json_integer((json_int_t)k->n_signatures), bad);
    ma_json_put(doc, "signature", sig, bad);
    ma_json_put(doc, "statement", k->statement_ok ? statement_json(k, bad) : json_null(), bad);
    ma_json_put(doc, "db", k->db_checked ? db_json(k, db_dir, bad) : json_null(), bad);
    char *text = *bad ? NULL : ma_json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
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
        fprintf(f, "%s%s/%s: %s%s\n", prefix, db_dir, k->issues[i].path, k->issues[i].input ? "input " : "",
                k->issues[i].what);
    if (fclose(f) != 0) {
        free(*out);
        *out = NULL;
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
    }
    return MA_OK;
}
