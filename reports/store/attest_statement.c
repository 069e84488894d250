/* The in-toto statement of a verification attestation; see attest_statement.h. */
#include "reports/store/attest_statement.h"
#include "common/fileio.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "reports/store/audit_internal.h"
#include "common/json_text.h"
#include "reports/store/report.h"

static char *dup_or_null(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static void subjects_free(ma_attest_subject *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(s[i].name);
        free(s[i].sha256);
        free(s[i].sector);
        free(s[i].format);
    }
    free(s);
}

void ma_attest_statement_free(ma_attest_statement *st)
{
    if (!st)
        return;
    subjects_free(st->subjects, st->n_subjects);
    subjects_free(st->inputs, st->n_inputs);
    free(st->scope);
    for (size_t i = 0; i < st->n_sector_rows; i++) {
        free(st->sector_rows[i].sector);
        free(st->sector_rows[i].status);
        free(st->sector_rows[i].derived_sha256);
    }
    free(st->sector_rows);
    char **strings[] = {&st->tool_name, &st->tool_version, &st->git_revision, &st->attester_version,
                        &st->attester_git_revision, &st->identity, &st->attested_at,
                        &st->variant, &st->rules_fingerprint, &st->rules_description, &st->database_root,
                        &st->format, &st->index_scheme, &st->kind, &st->mode, &st->status, &st->verdict,
                        &st->verdict_text, &st->host, &st->command_line, &st->options, &st->started_at,
                        &st->ended_at, &st->manifest_sha256, &st->sealed_by};
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        free(*strings[i]);
    memset(st, 0, sizeof *st);
}

/* Every sector_inputs digest the run recorded must be the manifest's digest of that path: the
 * subjects are "the bytes the run checked", and a store where the two disagree cannot say which. */
static int check_inputs(ma_audit *a, int64_t id, const ma_run *r, ma_error *err)
{
    sqlite3 *db = ma_audit_db(a);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT sector, path, sha256 FROM sector_inputs WHERE run_id = ? ORDER BY sector, path",
                           -1, &st, NULL) != SQLITE_OK)
        return ma_audit_sqlite_error(a, MA_EIO, "read sector inputs", err);
    sqlite3_bind_int64(st, 1, id);
    int rc = MA_OK, step;
    while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
        const char *sector = (const char *)sqlite3_column_text(st, 0);
        const char *path = (const char *)sqlite3_column_text(st, 1);
        const char *sha = (const char *)sqlite3_column_text(st, 2);
        if (!path || !sha || strlen(sha) != 64)
            continue; /* "" absent, "!" unreadable: the run checked no bytes of it */
        const ma_run_file *f = NULL;
        for (size_t i = 0; i < r->n_files && !f; i++)
            if (!strcmp(r->files[i].path, path))
                f = &r->files[i];
        if (!f)
            rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector %s read %s, which its manifest does not list",
                              ma_audit_path(a), (long long)id, sector ? sector : "?", path);
        else if (strcmp(f->sha256, sha) != 0)
            rc = ma_error_set(err, MA_EFORMAT, "%s: run %lld: sector %s read %s with SHA-256 %s, its manifest says %s",
                              ma_audit_path(a), (long long)id, sector ? sector : "?", path, sha, f->sha256);
    }
    if (!rc && step != SQLITE_DONE)
        rc = ma_audit_sqlite_error(a, MA_EFORMAT, "read sector inputs", err);
    sqlite3_finalize(st);
    return rc;
}

/* Whether file f is the file of a sector the run checked (a subject of a "sectors" statement):
 * a sector row names it as its file, or the file states a sector the run has a row for. */
static int checked_file(const ma_run *r, const ma_run_file *f)
{
    for (size_t k = 0; k < r->n_sectors; k++) {
        const ma_run_sector *x = &r->sectors[k];
        if ((x->file && !strcmp(ma_path_base(x->file), f->path)) || (f->sector && x->sector && !strcmp(f->sector, x->sector)))
            return 1;
    }
    return 0;
}

int ma_attest_statement_load(ma_audit *a, int64_t id, ma_attest_statement *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_report rep;
    int rc = ma_report_load(a, id, &rep, err);
    if (rc) {
        ma_report_free(&rep);
        return rc;
    }
    const ma_run *r = &rep.run;
    if (r->n_files == 0) {
        rc = ma_error_set(err, MA_EINVAL, "%s: run %lld recorded no file digests: nothing to attest",
                          ma_audit_path(a), (long long)r->id);
        goto done;
    }
    if ((rc = check_inputs(a, r->id, r, err)))
        goto done;
    int oom = 0;
    out->run_id = r->id;
    out->tool_name = dup_or_null("millaudit", &oom);
    out->tool_version = dup_or_null(r->tool_version, &oom);
    out->git_revision = dup_or_null(r->git_revision, &oom);
    out->kind = dup_or_null(r->kind, &oom);
    out->mode = dup_or_null(rep.mode, &oom);
    out->status = dup_or_null(r->status, &oom);
    out->verdict = dup_or_null(ma_verdict_state_name(rep.verdict.state), &oom);
    out->verdict_text = dup_or_null(rep.verdict.headline, &oom);
    out->host = dup_or_null(r->host, &oom);
    out->command_line = dup_or_null(r->command_line, &oom);
    out->options = dup_or_null(rep.options, &oom);
    out->started_at = dup_or_null(r->started_at, &oom);
    out->ended_at = dup_or_null(r->ended_at, &oom);
    for (size_t i = 0; i < r->n_shards; i++)
        out->merge_unsealed += !r->shards[i].sealed_by;
    if (r->n_shards && !out->merge_unsealed)
        out->sealed_by = dup_or_null(r->shards[0].sealed_by, &oom);
    out->database_root = dup_or_null(r->database_root, &oom);
    out->variant = dup_or_null(r->variant, &oom);
    out->format = dup_or_null(r->format, &oom);
    out->sectors = rep.totals.sectors;
    out->entries = rep.totals.entries;
    out->checked = rep.totals.checked;
    out->verified = rep.totals.verified;
    out->within_bounds = rep.totals.within_bounds;
    out->discrepancies = rep.totals.discrepancies;
    out->chunk_size = r->has_manifest ? r->manifest_chunk_size : (r->n_files ? r->files[0].chunk_size : -1);
    out->manifest_files = (int64_t)r->n_files;
    out->index_scheme_version = out->format_version = -1;
    /* a run that recorded no scope it can be derived from claims the least: some sectors */
    out->scope = dup_or_null(r->scope && !strcmp(r->scope, "database") ? "database" : "sectors", &oom);
    out->predicate_version = 2;
    out->subjects = calloc(r->n_files, sizeof *out->subjects);
    out->inputs = calloc(r->n_files ? r->n_files : 1, sizeof *out->inputs);
    out->sector_rows = r->n_sectors ? calloc(r->n_sectors, sizeof *out->sector_rows) : NULL;
    if (!out->subjects || !out->inputs || (r->n_sectors && !out->sector_rows))
        oom = 1;
    for (size_t i = 0; !oom && i < r->n_files; i++) {
        const ma_run_file *f = &r->files[i];
        int checked = out->scope && !strcmp(out->scope, "database") ? 1 : checked_file(r, f);
        ma_attest_subject *s = checked ? &out->subjects[out->n_subjects++] : &out->inputs[out->n_inputs++];
        s->name = dup_or_null(f->path, &oom);
        s->sha256 = dup_or_null(f->sha256, &oom);
        s->size = f->size;
        s->sector = dup_or_null(f->sector, &oom);
        s->format = dup_or_null(f->format, &oom);
    }
    for (size_t i = 0; !oom && i < r->n_sectors; i++) {
        const ma_run_sector *x = &r->sectors[i];
        ma_attest_sector *s = &out->sector_rows[out->n_sector_rows++];
        s->sector = dup_or_null(x->sector, &oom);
        s->status = dup_or_null(x->status, &oom);
        s->entries = x->entries;
        s->checked = x->checked;
        s->verified = x->verified;
        s->within_bounds = x->within_bounds;
        s->discrepancies = x->discrepancies;
        s->derived_sha256 = dup_or_null(x->derived_sha256, &oom);
        s->derived_positions = x->derived_sha256 ? (x->has_derived_positions ? x->derived_positions : 0) : -1;
    }
    if (oom)
        rc = ma_error_set(err, MA_ENOMEM, "statement: out of memory");
done:
    ma_report_free(&rep);
    return rc;
}

/* ---- JSON ---- */

static json_t *str_or_null(const char *s)
{
    return s ? ma_json_store_text(s) : json_null();
}

static json_t *int_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/* json_object_set_new that remembers a failure (out of memory) instead of returning it */
/* Files as in-toto subjects: name, digest, annotations (size, sector, format). */
static void put_files(json_t *arr, const ma_attest_subject *files, size_t n, int *bad)
{
    for (size_t i = 0; i < n; i++) {
        const ma_attest_subject *s = &files[i];
        json_t *o = json_object(), *d = json_object(), *an = json_object();
        if (!o || !d || !an || json_array_append_new(arr, o)) {
            *bad = 1;
            json_decref(d);
            json_decref(an);
            continue;
        }
        ma_json_put(o, "name", ma_json_store_text(s->name), bad);
        ma_json_put(d, "sha256", json_string(s->sha256), bad);
        ma_json_put(o, "digest", d, bad);
        ma_json_put(an, "size", int_or_null(s->size), bad);
        ma_json_put(an, "sector", str_or_null(s->sector), bad);
        ma_json_put(an, "format", str_or_null(s->format), bad);
        ma_json_put(o, "annotations", an, bad);
    }
}

int ma_attest_statement_to_json(const ma_attest_statement *st, char **out, size_t *len, ma_error *err)
{
    *out = NULL;
    *len = 0;
    int bad = 0;
    json_t *doc = json_object();
    json_t *subjects = json_array();
    if (!doc || !subjects) {
        json_decref(doc);
        json_decref(subjects);
        return ma_error_set(err, MA_ENOMEM, "statement: out of memory");
    }
    ma_json_put(doc, "_type", json_string(MA_INTOTO_STATEMENT_TYPE), &bad);
    ma_json_put(doc, "subject", subjects, &bad);
    put_files(subjects, st->subjects, st->n_subjects, &bad);
    ma_json_put(doc, "predicateType", json_string(MA_ATTEST_PREDICATE_TYPE), &bad);
    json_t *p = json_object();
    ma_json_put(doc, "predicate", p, &bad);
    if (p) {
        /* what the claim covers comes first: the whole database, or some sectors given inputs */
        ma_json_put(p, "scope", str_or_null(st->scope), &bad);
        json_t *inputs = json_array();
        ma_json_put(p, "inputs", inputs, &bad);
        if (inputs)
            put_files(inputs, st->inputs, st->n_inputs, &bad);
        json_t *v = json_object(), *sg = json_object(), *ru = json_object(), *db = json_object(),
               *run = json_object(), *tot = json_object(), *man = json_object(), *secs = json_array();
        ma_json_put(p, "verifier", v, &bad);
        if (v) {
            ma_json_put(v, "name", str_or_null(st->tool_name), &bad);
            ma_json_put(v, "version", str_or_null(st->tool_version), &bad);
            ma_json_put(v, "git_revision", str_or_null(st->git_revision), &bad);
        }
        json_t *at = json_object();
        ma_json_put(p, "attester", at, &bad);
        if (at) {
            ma_json_put(at, "name", json_string("millaudit"), &bad);
            ma_json_put(at, "version", str_or_null(st->attester_version), &bad);
            ma_json_put(at, "git_revision", str_or_null(st->attester_git_revision), &bad);
        }
        ma_json_put(p, "signer", sg, &bad);
        if (sg)
            ma_json_put(sg, "identity", str_or_null(st->identity), &bad);
        ma_json_put(p, "attested_at", str_or_null(st->attested_at), &bad);
        ma_json_put(p, "rules", ru, &bad);
        if (ru) {
            ma_json_put(ru, "variant", str_or_null(st->variant), &bad);
            ma_json_put(ru, "fingerprint", str_or_null(st->rules_fingerprint), &bad);
            ma_json_put(ru, "description", str_or_null(st->rules_description), &bad);
        }
        ma_json_put(p, "database", db, &bad);
        if (db) {
            ma_json_put(db, "root", str_or_null(st->database_root), &bad);
            ma_json_put(db, "format", str_or_null(st->format), &bad);
            ma_json_put(db, "index_scheme", str_or_null(st->index_scheme), &bad);
            ma_json_put(db, "index_scheme_version", int_or_null(st->index_scheme_version), &bad);
            ma_json_put(db, "format_version", int_or_null(st->format_version), &bad);
        }
        ma_json_put(p, "run", run, &bad);
        if (run) {
            ma_json_put(run, "id", json_integer(st->run_id), &bad);
            ma_json_put(run, "kind", str_or_null(st->kind), &bad);
            ma_json_put(run, "mode", str_or_null(st->mode), &bad);
            ma_json_put(run, "status", str_or_null(st->status), &bad);
            ma_json_put(run, "verdict", str_or_null(st->verdict), &bad);
            ma_json_put(run, "verdict_text", str_or_null(st->verdict_text), &bad);
            ma_json_put(run, "host", str_or_null(st->host), &bad);
            ma_json_put(run, "command_line", str_or_null(st->command_line), &bad);
            /* the options as recorded are canonical JSON text: embedded as the object they are, null
             * when the store holds none or anything else (ma_json_load_own: never a value a failed
             * allocation cut short, which would be signed) */
            json_t *opt = ma_json_load_own(st->options, JSON_COMPACT | JSON_PRESERVE_ORDER);
            ma_json_put(run, "options", json_is_object(opt) ? opt : (json_decref(opt), json_null()), &bad);
            ma_json_put(run, "started_at", str_or_null(st->started_at), &bad);
            ma_json_put(run, "ended_at", str_or_null(st->ended_at), &bad);
            ma_json_put(run, "sealed_by", str_or_null(st->sealed_by), &bad);
        }
        ma_json_put(p, "totals", tot, &bad);
        if (tot) {
            ma_json_put(tot, "sectors", json_integer(st->sectors), &bad);
            ma_json_put(tot, "entries", json_integer(st->entries), &bad);
            ma_json_put(tot, "checked", json_integer(st->checked), &bad);
            ma_json_put(tot, "verified", json_integer(st->verified), &bad);
            ma_json_put(tot, "within_bounds", json_integer(st->within_bounds), &bad);
            ma_json_put(tot, "discrepancies", json_integer(st->discrepancies), &bad);
        }
        ma_json_put(p, "manifest", man, &bad);
        if (man) {
            ma_json_put(man, "sha256", str_or_null(st->manifest_sha256), &bad);
            ma_json_put(man, "chunk_size", int_or_null(st->chunk_size), &bad);
            ma_json_put(man, "files", json_integer(st->manifest_files), &bad);
        }
        ma_json_put(p, "sectors", secs, &bad);
        for (size_t i = 0; secs && i < st->n_sector_rows; i++) {
            const ma_attest_sector *x = &st->sector_rows[i];
            json_t *o = json_object();
            if (!o || json_array_append_new(secs, o)) {
                bad = 1;
                continue;
            }
            ma_json_put(o, "sector", str_or_null(x->sector), &bad);
            ma_json_put(o, "status", str_or_null(x->status), &bad);
            ma_json_put(o, "entries", json_integer(x->entries), &bad);
            ma_json_put(o, "checked", json_integer(x->checked), &bad);
            ma_json_put(o, "verified", json_integer(x->verified), &bad);
            ma_json_put(o, "within_bounds", json_integer(x->within_bounds), &bad);
            ma_json_put(o, "discrepancies", json_integer(x->discrepancies), &bad);
            ma_json_put(o, "derived_sha256", str_or_null(x->derived_sha256), &bad);
            ma_json_put(o, "derived_positions", int_or_null(x->derived_positions), &bad);
        }
    }
    char *text = bad ? NULL : ma_json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text)
        return ma_error_set(err, MA_ENOMEM, "statement: out of memory");
    *out = text;
    *len = strlen(text);
    return MA_OK;
}

/* ---- the SLSA Verification Summary ---- */

const char *ma_attest_vsa_result(const ma_attest_statement *st)
{
    int whole = st->scope && !strcmp(st->scope, "database");
    int verified = st->verdict && !strcmp(st->verdict, "verified") &&
                   !strcmp(ma_attest_statement_verdict(st), "verified");
    return whole && verified ? "PASSED" : "FAILED";
}

static json_t *sha256_digest(const char *hex)
{
    json_t *d = json_object();
    if (d && json_object_set_new(d, "sha256", json_string(hex)) != 0) {
        json_decref(d);
        return NULL;
    }
    return d;
}

int ma_attest_vsa_to_json(const ma_attest_statement *st, const ma_attest_vsa *v, char **out, size_t *len,
                          ma_error *err)
{
    *out = NULL;
    *len = 0;
    if (!st->scope || strcmp(st->scope, "database"))
        return ma_error_set(err, MA_EINVAL, "a verification summary (VSA) states no scope, so only a statement of "
                            "the whole database makes one; this one covers some sectors");
    if (!st->rules_fingerprint || !st->variant)
        return ma_error_set(err, MA_EINVAL, "a verification summary (VSA) needs the rules fingerprint as its policy; "
                            "this run's variant is unknown");
    if (!v->resource_uri || !*v->resource_uri)
        return ma_error_set(err, MA_EINVAL, "a verification summary (VSA) needs the resource URI the database is "
                            "published at");
    const char *result = ma_attest_vsa_result(st);
    int bad = 0;
    json_t *doc = json_object(), *subjects = json_array(), *p = json_object();
    if (!doc || !subjects || !p) {
        json_decref(doc);
        json_decref(subjects);
        json_decref(p);
        return ma_error_set(err, MA_ENOMEM, "verification summary: out of memory");
    }
    ma_json_put(doc, "_type", json_string(MA_INTOTO_STATEMENT_TYPE), &bad);
    put_files(subjects, st->subjects, st->n_subjects, &bad);
    ma_json_put(doc, "subject", subjects, &bad);
    ma_json_put(doc, "predicateType", json_string(MA_SLSA_VSA_TYPE), &bad);
    ma_json_put(doc, "predicate", p, &bad);
    json_t *ver = json_object(), *vv = json_object(), *pol = json_object(), *levels = json_array();
    ma_json_put(p, "verifier", ver, &bad);
    ma_json_put(ver, "id", json_string(v->verifier_id ? v->verifier_id : MA_ATTEST_VERIFIER_ID), &bad);
    ma_json_put(ver, "version", vv, &bad);
    ma_json_put(vv, st->tool_name ? st->tool_name : "millaudit", str_or_null(st->tool_version), &bad);
    ma_json_put(p, "timeVerified", str_or_null(st->ended_at ? st->ended_at : st->attested_at), &bad);
    ma_json_put(p, "resourceUri", json_string(v->resource_uri), &bad);
    ma_json_put(p, "policy", pol, &bad);
    char policy[128];
    snprintf(policy, sizeof policy, "%s#rules/%s", MA_ATTEST_PREDICATE_TYPE, st->variant);
    ma_json_put(pol, "uri", json_string(policy), &bad);
    ma_json_put(pol, "digest", sha256_digest(st->rules_fingerprint), &bad);
    if (v->statement_name && v->statement_sha256) {
        json_t *ins = json_array(), *in = json_object();
        ma_json_put(p, "inputAttestations", ins, &bad);
        if (!in || !ins || json_array_append_new(ins, in))
            bad = 1;
        ma_json_put(in, "uri", ma_json_store_text(v->statement_name), &bad);
        ma_json_put(in, "digest", sha256_digest(v->statement_sha256), &bad);
    }
    ma_json_put(p, "verificationResult", json_string(result), &bad);
    ma_json_put(p, "verifiedLevels", levels, &bad);
    if (!levels || json_array_append_new(levels, json_string(!strcmp(result, "PASSED") ? "MILLAUDIT_DATABASE_VERIFIED"
                                                                                      : "FAILED")))
        bad = 1;
    char *text = bad ? NULL : ma_json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text)
        return ma_error_set(err, MA_ENOMEM, "verification summary: out of memory");
    *out = text;
    *len = strlen(text);
    return MA_OK;
}

/* ---- parsing ---- */

typedef struct parser {
    const char *name;
    ma_error *err;
    int rc;
} parser;

static int fail(parser *ps, const char *member, const char *what)
{
    if (!ps->rc)
        ps->rc = ma_error_set(ps->err, MA_EFORMAT, "%s: %s: %s", ps->name, member, what);
    return ps->rc;
}

static json_t *object_member(parser *ps, json_t *o, const char *key, const char *path)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_object(v)) {
        fail(ps, path, "missing or not an object");
        return NULL;
    }
    return v;
}

/* A string member; NULL allowed when nullable. Returns a malloc'd copy or NULL. */
static char *string_member(parser *ps, json_t *o, const char *key, const char *path, int nullable)
{
    if (ps->rc || !o)
        return NULL;
    json_t *v = json_object_get(o, key);
    if (nullable && json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        fail(ps, path, nullable ? "missing or not a string or null" : "missing or not a string");
        return NULL;
    }
    if (strlen(json_string_value(v)) != json_string_length(v)) {
        fail(ps, path, "holds a NUL character");
        return NULL;
    }
    char *d = strdup(json_string_value(v));
    if (!d && !ps->rc)
        ps->rc = ma_error_set(ps->err, MA_ENOMEM, "%s: out of memory", ps->name);
    return d;
}

/* A non-negative integer member (or null -> -1 when nullable). */
static int64_t int_member(parser *ps, json_t *o, const char *key, const char *path, int nullable)
{
    if (ps->rc || !o)
        return -1;
    json_t *v = json_object_get(o, key);
    if (nullable && json_is_null(v))
        return -1;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        fail(ps, path, nullable ? "missing or not a non-negative integer or null" : "missing or not a non-negative integer");
        return -1;
    }
    return json_integer_value(v);
}

static int is_hex64(const char *s)
{
    if (!s || strlen(s) != 64)
        return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    return 1;
}

/* A subject name must stay inside the database root: relative, no empty, "." or ".." component. */
static int safe_name(const char *s)
{
    if (!*s || *s == '/')
        return 0;
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
        else
            break;
        if (!*p)
            return 0; /* a trailing slash names a directory */
    }
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return 0;
    return 1;
}

static int cmp_subject(const void *a, const void *b)
{
    return strcmp(((const ma_attest_subject *)a)->name, ((const ma_attest_subject *)b)->name);
}

/* An array of files in the form of in-toto subjects (member `what`: "subject", "predicate.inputs")
 * into *files, sorted by name; names unique. */
static void parse_files(parser *ps, json_t *arr, const char *what, int may_be_empty, ma_attest_subject **files,
                        size_t *n_files)
{
    if (!json_is_array(arr) || (!may_be_empty && json_array_size(arr) == 0)) {
        fail(ps, what, may_be_empty ? "missing or not an array" : "missing, not an array, or empty");
        return;
    }
    size_t n = json_array_size(arr);
    *files = calloc(n ? n : 1, sizeof **files);
    if (!*files) {
        ps->rc = ma_error_set(ps->err, MA_ENOMEM, "%s: out of memory", ps->name);
        return;
    }
    char path[96];
    for (size_t i = 0; i < n && !ps->rc; i++) {
        json_t *o = json_array_get(arr, i);
        snprintf(path, sizeof path, "%s[%zu]", what, i);
        if (!json_is_object(o)) {
            fail(ps, path, "not an object");
            return;
        }
        ma_attest_subject *s = &(*files)[(*n_files)++];
        s->size = -1;
        snprintf(path, sizeof path, "%s[%zu].name", what, i);
        s->name = string_member(ps, o, "name", path, 0);
        if (s->name && !safe_name(s->name))
            fail(ps, path, "not a relative path inside the database (absolute, empty, '.' or '..' component, control character)");
        snprintf(path, sizeof path, "%s[%zu].digest", what, i);
        json_t *d = ps->rc ? NULL : object_member(ps, o, "digest", path);
        snprintf(path, sizeof path, "%s[%zu].digest.sha256", what, i);
        s->sha256 = string_member(ps, d, "sha256", path, 0);
        if (s->sha256 && !is_hex64(s->sha256))
            fail(ps, path, "not 64 lowercase hex digits");
        json_t *an = json_object_get(o, "annotations");
        if (!ps->rc && an && !json_is_object(an)) {
            snprintf(path, sizeof path, "%s[%zu].annotations", what, i);
            fail(ps, path, "not an object");
        }
        if (!ps->rc && json_is_object(an)) {
            snprintf(path, sizeof path, "%s[%zu].annotations.size", what, i);
            s->size = json_object_get(an, "size") ? int_member(ps, an, "size", path, 1) : -1;
            snprintf(path, sizeof path, "%s[%zu].annotations.sector", what, i);
            s->sector = json_object_get(an, "sector") ? string_member(ps, an, "sector", path, 1) : NULL;
            snprintf(path, sizeof path, "%s[%zu].annotations.format", what, i);
            s->format = json_object_get(an, "format") ? string_member(ps, an, "format", path, 1) : NULL;
        }
    }
    if (ps->rc)
        return;
    qsort(*files, *n_files, sizeof **files, cmp_subject);
    for (size_t i = 1; i < *n_files; i++)
        if (!strcmp((*files)[i - 1].name, (*files)[i].name)) {
            ps->rc = ma_error_set(ps->err, MA_EFORMAT, "%s: %s: %s listed twice", ps->name, what, (*files)[i].name);
            return;
        }
}

static int listed_sector(const ma_attest_statement *st, const char *sector)
{
    for (size_t k = 0; sector && k < st->n_sector_rows; k++)
        if (st->sector_rows[k].sector && !strcmp(st->sector_rows[k].sector, sector))
            return 1;
    return 0;
}

/* Predicate v1 stated no scope: a shard run's, or one whose subjects name a sector it does not list
 * (a successor it read but did not check), is a statement of some sectors, and those subjects are
 * its inputs. */
static void derive_v1_scope(parser *ps, ma_attest_statement *st)
{
    int shard = st->options && strstr(st->options, "\"shard\"");
    size_t n = 0;
    for (size_t i = 0; i < st->n_subjects; i++)
        n += st->subjects[i].sector && !listed_sector(st, st->subjects[i].sector);
    if (!(st->scope = strdup(shard || n || !st->n_sector_rows ? "sectors" : "database"))) {
        ps->rc = ma_error_set(ps->err, MA_ENOMEM, "%s: out of memory", ps->name);
        return;
    }
    if (!n)
        return;
    if (!(st->inputs = calloc(n, sizeof *st->inputs))) {
        ps->rc = ma_error_set(ps->err, MA_ENOMEM, "%s: out of memory", ps->name);
        return;
    }
    size_t kept = 0;
    for (size_t i = 0; i < st->n_subjects; i++) {
        if (st->subjects[i].sector && !listed_sector(st, st->subjects[i].sector))
            st->inputs[st->n_inputs++] = st->subjects[i];
        else
            st->subjects[kept++] = st->subjects[i];
    }
    st->n_subjects = kept;
    if (!kept)
        fail(ps, "subject", "every subject names a sector the statement does not list: no file it checked");
}

static void parse_sectors(parser *ps, json_t *arr, ma_attest_statement *st)
{
    if (!json_is_array(arr)) {
        fail(ps, "predicate.sectors", "missing or not an array");
        return;
    }
    size_t n = json_array_size(arr);
    st->sector_rows = n ? calloc(n, sizeof *st->sector_rows) : NULL;
    if (n && !st->sector_rows) {
        ps->rc = ma_error_set(ps->err, MA_ENOMEM, "%s: out of memory", ps->name);
        return;
    }
    char path[96];
    for (size_t i = 0; i < n && !ps->rc; i++) {
        json_t *o = json_array_get(arr, i);
        if (!json_is_object(o)) {
            snprintf(path, sizeof path, "predicate.sectors[%zu]", i);
            fail(ps, path, "not an object");
            return;
        }
        ma_attest_sector *x = &st->sector_rows[st->n_sector_rows++];
#define P(k) (snprintf(path, sizeof path, "predicate.sectors[%zu].%s", i, k), path)
        x->sector = string_member(ps, o, "sector", P("sector"), 0);
        x->status = string_member(ps, o, "status", P("status"), 0);
        x->entries = int_member(ps, o, "entries", P("entries"), 0);
        x->checked = int_member(ps, o, "checked", P("checked"), 0);
        x->verified = int_member(ps, o, "verified", P("verified"), 0);
        x->within_bounds = int_member(ps, o, "within_bounds", P("within_bounds"), 0);
        x->discrepancies = int_member(ps, o, "discrepancies", P("discrepancies"), 0);
        x->derived_sha256 = string_member(ps, o, "derived_sha256", P("derived_sha256"), 1);
        if (x->derived_sha256 && !is_hex64(x->derived_sha256))
            fail(ps, path, "not 64 lowercase hex digits");
        x->derived_positions = int_member(ps, o, "derived_positions", P("derived_positions"), 1);
        if (!ps->rc && (x->derived_sha256 != NULL) != (x->derived_positions >= 0))
            fail(ps, path, "given without derived_sha256 (or missing with it)");
#undef P
    }
    for (size_t i = 1; !ps->rc && i < st->n_sector_rows; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(st->sector_rows[i].sector, st->sector_rows[j].sector)) {
                ps->rc = ma_error_set(ps->err, MA_EFORMAT, "%s: predicate.sectors: %s listed twice", ps->name,
                                      st->sector_rows[i].sector);
                break;
            }
}

int ma_attest_statement_parse(const char *text, size_t len, const char *name, ma_attest_statement *out,
                              ma_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    int oom;
    json_t *doc = ma_json_load_checked(text, len, &je, &oom);
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", name); /* not the statement's fault */
    if (!doc)
        return ma_error_set(err, MA_EFORMAT, "%s: offset %d: statement is not JSON: %s", name, je.position, je.text);
    parser ps = {name, err, MA_OK};
    if (!json_is_object(doc)) {
        fail(&ps, "statement", "not a JSON object");
        goto done;
    }
    json_t *type = json_object_get(doc, "_type");
    if (!json_is_string(type) || strcmp(json_string_value(type), MA_INTOTO_STATEMENT_TYPE) != 0) {
        fail(&ps, "_type", "not " MA_INTOTO_STATEMENT_TYPE);
        goto done;
    }
    json_t *ptype = json_object_get(doc, "predicateType");
    out->predicate_version = !json_is_string(ptype)                                           ? 0
                             : !strcmp(json_string_value(ptype), MA_ATTEST_PREDICATE_TYPE)    ? 3
                             : !strcmp(json_string_value(ptype), MA_ATTEST_PREDICATE_TYPE_V2) ? 2
                             : !strcmp(json_string_value(ptype), MA_ATTEST_PREDICATE_TYPE_V1) ? 1
                                                                                              : 0;
    if (!out->predicate_version) {
        fail(&ps, "predicateType", "not " MA_ATTEST_PREDICATE_TYPE " (not a millaudit verification attestation)");
        goto done;
    }
    parse_files(&ps, json_object_get(doc, "subject"), "subject", 0, &out->subjects, &out->n_subjects);
    json_t *p = ps.rc ? NULL : object_member(&ps, doc, "predicate", "predicate");
    if (out->predicate_version >= 2) {
        out->scope = string_member(&ps, p, "scope", "predicate.scope", 0);
        if (out->scope && strcmp(out->scope, "database") && strcmp(out->scope, "sectors"))
            fail(&ps, "predicate.scope", "neither 'database' nor 'sectors'");
        if (!ps.rc)
            parse_files(&ps, json_object_get(p, "inputs"), "predicate.inputs", 1, &out->inputs, &out->n_inputs);
        for (size_t i = 0, k = 0; !ps.rc && i < out->n_inputs; i++) {
            while (k < out->n_subjects && strcmp(out->subjects[k].name, out->inputs[i].name) < 0)
                k++;
            if (k < out->n_subjects && !strcmp(out->subjects[k].name, out->inputs[i].name))
                ps.rc = ma_error_set(err, MA_EFORMAT, "%s: predicate.inputs: %s is a subject too", name,
                                     out->inputs[i].name);
        }
    }
    json_t *v = p ? object_member(&ps, p, "verifier", "predicate.verifier") : NULL;
    out->tool_name = string_member(&ps, v, "name", "predicate.verifier.name", 0);
    out->tool_version = string_member(&ps, v, "version", "predicate.verifier.version", 0);
    out->git_revision = string_member(&ps, v, "git_revision", "predicate.verifier.git_revision", 0);
    json_t *at = ps.rc ? NULL : object_member(&ps, p, "attester", "predicate.attester");
    out->attester_version = string_member(&ps, at, "version", "predicate.attester.version", 1);
    out->attester_git_revision = string_member(&ps, at, "git_revision", "predicate.attester.git_revision", 1);
    json_t *sg = ps.rc ? NULL : object_member(&ps, p, "signer", "predicate.signer");
    out->identity = string_member(&ps, sg, "identity", "predicate.signer.identity", 1);
    out->attested_at = string_member(&ps, p, "attested_at", "predicate.attested_at", 0);
    json_t *ru = ps.rc ? NULL : object_member(&ps, p, "rules", "predicate.rules");
    out->variant = string_member(&ps, ru, "variant", "predicate.rules.variant", 1);
    out->rules_fingerprint = string_member(&ps, ru, "fingerprint", "predicate.rules.fingerprint", 1);
    if (out->rules_fingerprint && !is_hex64(out->rules_fingerprint))
        fail(&ps, "predicate.rules.fingerprint", "not 64 lowercase hex digits");
    out->rules_description = string_member(&ps, ru, "description", "predicate.rules.description", 1);
    json_t *db = ps.rc ? NULL : object_member(&ps, p, "database", "predicate.database");
    out->database_root = string_member(&ps, db, "root", "predicate.database.root", 1);
    out->format = string_member(&ps, db, "format", "predicate.database.format", 1);
    out->index_scheme = string_member(&ps, db, "index_scheme", "predicate.database.index_scheme", 1);
    out->index_scheme_version = int_member(&ps, db, "index_scheme_version", "predicate.database.index_scheme_version", 1);
    out->format_version = int_member(&ps, db, "format_version", "predicate.database.format_version", 1);
    json_t *run = ps.rc ? NULL : object_member(&ps, p, "run", "predicate.run");
    out->run_id = int_member(&ps, run, "id", "predicate.run.id", 0);
    out->kind = string_member(&ps, run, "kind", "predicate.run.kind", 0);
    out->mode = string_member(&ps, run, "mode", "predicate.run.mode", 1);
    out->status = string_member(&ps, run, "status", "predicate.run.status", 1);
    out->verdict = string_member(&ps, run, "verdict", "predicate.run.verdict", 0);
    out->verdict_text = string_member(&ps, run, "verdict_text", "predicate.run.verdict_text", 1);
    out->host = string_member(&ps, run, "host", "predicate.run.host", 1);
    out->command_line = string_member(&ps, run, "command_line", "predicate.run.command_line", 1);
    out->started_at = string_member(&ps, run, "started_at", "predicate.run.started_at", 0);
    out->ended_at = string_member(&ps, run, "ended_at", "predicate.run.ended_at", 1);
    if (json_object_get(run, "sealed_by"))
        out->sealed_by = string_member(&ps, run, "sealed_by", "predicate.run.sealed_by", 1);
    if (!ps.rc) {
        json_t *opt = json_object_get(run, "options");
        if (json_is_object(opt)) {
            out->options = ma_json_dumps(opt, JSON_COMPACT | JSON_PRESERVE_ORDER);
            if (!out->options)
                ps.rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", name);
        } else if (!json_is_null(opt)) {
            fail(&ps, "predicate.run.options", "missing or not an object or null");
        }
    }
    json_t *tot = ps.rc ? NULL : object_member(&ps, p, "totals", "predicate.totals");
    out->sectors = int_member(&ps, tot, "sectors", "predicate.totals.sectors", 0);
    out->entries = int_member(&ps, tot, "entries", "predicate.totals.entries", 0);
    out->checked = int_member(&ps, tot, "checked", "predicate.totals.checked", 0);
    out->verified = int_member(&ps, tot, "verified", "predicate.totals.verified", 0);
    out->within_bounds = int_member(&ps, tot, "within_bounds", "predicate.totals.within_bounds", 0);
    out->discrepancies = int_member(&ps, tot, "discrepancies", "predicate.totals.discrepancies", 0);
    json_t *man = ps.rc ? NULL : object_member(&ps, p, "manifest", "predicate.manifest");
    out->manifest_sha256 = string_member(&ps, man, "sha256", "predicate.manifest.sha256", 1);
    if (out->manifest_sha256 && !is_hex64(out->manifest_sha256))
        fail(&ps, "predicate.manifest.sha256", "not 64 lowercase hex digits");
    out->chunk_size = int_member(&ps, man, "chunk_size", "predicate.manifest.chunk_size", 1);
    out->manifest_files = int_member(&ps, man, "files", "predicate.manifest.files", 0);
    if (!ps.rc)
        parse_sectors(&ps, json_object_get(p, "sectors"), out);
    if (!ps.rc && out->predicate_version == 1)
        derive_v1_scope(&ps, out);
done:
    json_decref(doc);
    return ps.rc;
}

/* ---- import ---- */

static int cmp_run_file(const void *a, const void *b)
{
    return strcmp(((const ma_run_file *)a)->path, ((const ma_run_file *)b)->path);
}

int ma_attest_statement_to_run(const ma_attest_statement *st, ma_run *out, ma_error *err)
{
    memset(out, 0, sizeof *out);
    int oom = 0;
    out->id = st->run_id;
    out->kind = dup_or_null(st->kind, &oom);
    out->tool_version = dup_or_null(st->tool_version, &oom);
    out->git_revision = dup_or_null(st->git_revision, &oom);
    out->host = dup_or_null(st->host, &oom);
    out->command_line = dup_or_null(st->command_line, &oom);
    out->database_root = dup_or_null(st->database_root, &oom);
    out->variant = dup_or_null(st->variant, &oom);
    out->format = dup_or_null(st->format, &oom);
    out->started_at = dup_or_null(st->started_at, &oom);
    out->ended_at = dup_or_null(st->ended_at, &oom);
    out->status = dup_or_null(st->status, &oom);
    out->scope = dup_or_null(st->scope, &oom);
    out->has_manifest = 1;
    out->manifest_chunk_size = st->chunk_size >= 0 ? st->chunk_size : 0;
    /* the run read its subjects and its inputs: both are its manifest */
    size_t n_read = st->n_subjects + st->n_inputs;
    out->files = calloc(n_read ? n_read : 1, sizeof *out->files);
    out->sectors = calloc(st->n_sector_rows ? st->n_sector_rows : 1, sizeof *out->sectors);
    if (!out->files || !out->sectors)
        oom = 1;
    for (size_t i = 0; !oom && i < n_read; i++) {
        const ma_attest_subject *s = i < st->n_subjects ? &st->subjects[i] : &st->inputs[i - st->n_subjects];
        ma_run_file *f = &out->files[out->n_files++];
        f->path = dup_or_null(s->name, &oom);
        f->sha256 = dup_or_null(s->sha256, &oom);
        f->size = s->size >= 0 ? s->size : 0;
        f->chunk_size = out->manifest_chunk_size;
        f->sector = dup_or_null(s->sector, &oom);
        f->format = dup_or_null(s->format, &oom);
    }
    for (size_t i = 0; !oom && i < st->n_sector_rows; i++) {
        const ma_attest_sector *x = &st->sector_rows[i];
        ma_run_sector *s = &out->sectors[out->n_sectors++];
        s->sector = dup_or_null(x->sector, &oom);
        s->status = dup_or_null(x->status, &oom);
        s->entries = x->entries;
        s->checked = x->checked;
        s->verified = x->verified;
        s->within_bounds = x->within_bounds;
        s->discrepancies = x->discrepancies;
        s->derived_sha256 = dup_or_null(x->derived_sha256, &oom);
        s->has_derived_positions = x->derived_positions >= 0;
        s->derived_positions = x->derived_positions >= 0 ? x->derived_positions : 0;
    }
    if (oom)
        return ma_error_set(err, MA_ENOMEM, "statement: out of memory");
    qsort(out->files, out->n_files, sizeof *out->files, cmp_run_file);
    return MA_OK;
}

/* ---- the statement against itself ---- */

static int status_is(const ma_attest_sector *x, const char *s)
{
    return x->status && !strcmp(x->status, s);
}

const char *ma_attest_statement_verdict(const ma_attest_statement *st)
{
    int disc = st->discrepancies > 0, holes = 0, bounds = st->within_bounds > 0;
    int64_t entries = 0, settled = 0;
    for (size_t i = 0; i < st->n_sector_rows; i++) {
        const ma_attest_sector *x = &st->sector_rows[i];
        disc |= x->discrepancies > 0 || status_is(x, "discrepancies");
        holes |= status_is(x, "incomplete") || status_is(x, "unusable") || status_is(x, "not-checked") ||
                 !x->status;
        bounds |= x->within_bounds > 0 || status_is(x, "within-bounds");
        entries += x->entries;
        settled += x->verified + x->within_bounds;
    }
    if (disc)
        return "discrepancies";
    if (!st->ended_at || (st->status && !strcmp(st->status, "interrupted")))
        return "interrupted";
    /* a database of no sector proves nothing; a part of none (an empty shard) is a part */
    if (holes || settled < entries || (!st->n_sector_rows && st->scope && !strcmp(st->scope, "database")))
        return "incomplete";
    return bounds ? "within-bounds" : "verified";
}

/* How much a verdict claims: a statement may claim less than its counts give (a whole-database run
 * is incomplete for an unusable non-sector file its rows do not show), never more. */
static int claim_rank(const char *v)
{
    static const char *const order[] = {"discrepancies", "interrupted", "incomplete", "within-bounds", "verified"};
    static const int rank[] = {0, 1, 1, 2, 3};
    for (size_t i = 0; v && i < sizeof order / sizeof *order; i++)
        if (!strcmp(v, order[i]))
            return rank[i];
    return -1;
}

int ma_attest_statement_check(const ma_attest_statement *st, const char *name, ma_error *err)
{
    int64_t sum[6] = {0};
    for (size_t i = 0; i < st->n_sector_rows; i++) {
        const ma_attest_sector *x = &st->sector_rows[i];
        const int64_t v[] = {1, x->entries, x->checked, x->verified, x->within_bounds, x->discrepancies};
        for (int k = 0; k < 6; k++)
            sum[k] += v[k];
        if (x->verified + x->within_bounds + x->discrepancies > x->entries || x->checked > x->entries)
            return ma_error_set(err, MA_EFORMAT, "%s: predicate.sectors: %s: more entries verified, within bounds "
                                "or wrong than it has: the statement contradicts itself", name, x->sector);
        if (status_is(x, "ok") && (x->verified != x->entries || x->within_bounds || x->discrepancies))
            return ma_error_set(err, MA_EFORMAT, "%s: predicate.sectors: %s: status 'ok' with verified %lld, entries %lld: "
                                "the statement contradicts itself", name, x->sector,
                                (long long)x->verified, (long long)x->entries);
        if (x->discrepancies && !status_is(x, "discrepancies"))
            return ma_error_set(err, MA_EFORMAT, "%s: predicate.sectors: %s: status '%s' with discrepancies %lld: the "
                                "statement contradicts itself", name, x->sector, x->status ? x->status : "null",
                                (long long)x->discrepancies);
    }
    static const char *const what[] = {"sectors", "entries", "checked", "verified", "within_bounds", "discrepancies"};
    const int64_t total[] = {st->sectors, st->entries, st->checked, st->verified, st->within_bounds, st->discrepancies};
    for (int k = 0; k < 6; k++)
        if (total[k] != sum[k])
            return ma_error_set(err, MA_EFORMAT, "%s: predicate.totals.%s: %lld, but its sectors sum to %lld: the "
                                "statement contradicts itself", name, what[k], (long long)total[k], (long long)sum[k]);
    int database = st->scope && !strcmp(st->scope, "database");
    if (database && st->n_inputs)
        return ma_error_set(err, MA_EFORMAT, "%s: predicate.inputs: a statement of the whole database has no "
                            "inputs left unchecked (%s)", name, st->inputs[0].name);
    for (size_t i = 0; i < st->n_subjects; i++)
        if (st->subjects[i].sector && !listed_sector(st, st->subjects[i].sector))
            return ma_error_set(err, MA_EFORMAT, "%s: subject: %s states sector %s, which predicate.sectors does not "
                                "list: a file the run did not check is no subject", name, st->subjects[i].name,
                                st->subjects[i].sector);
    for (size_t i = 0; i < st->n_inputs; i++)
        if (st->inputs[i].sector && listed_sector(st, st->inputs[i].sector))
            return ma_error_set(err, MA_EFORMAT, "%s: predicate.inputs: %s states sector %s, which the run checked",
                                name, st->inputs[i].name, st->inputs[i].sector);
    const char *computed = ma_attest_statement_verdict(st);
    int stated = claim_rank(st->verdict);
    if (stated < 0)
        return ma_error_set(err, MA_EFORMAT, "%s: predicate.run.verdict: '%.60s' is no verdict", name,
                            st->verdict ? st->verdict : "null");
    if (stated > claim_rank(computed))
        return ma_error_set(err, MA_EFORMAT, "%s: predicate.run.verdict: '%s', but its own totals and sector states "
                            "make it '%s': the statement contradicts itself", name, st->verdict, computed);
    return MA_OK;
}
