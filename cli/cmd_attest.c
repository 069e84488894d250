/*
 * millaudit attest create --audit A.sqlite [--run N] --key KEY.pem --out FILE [--identity TEXT]
 *                         [--allow-unverified]
 * millaudit attest verify FILE --pub PUB.pem [--db DIR] [--threads N] [--json]
 *
 * Options and output only; the work is run/attest.h (docs/attestations.md).
 * Exit: create 0 written, 1 the run is not verified (without --allow-unverified), 3 store, run or
 * key unusable, 4 --out not writable; verify 0 signature good (and with --db every file matches),
 * 1 bad signature or a file changed, missing or not attested, 3 unusable envelope or key; 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "common/options.h"
#include "common/output.h"
#include "cli/commands.h"
#include "common/ma_error.h"
#include "ma_version.h"
#include "render/render.h"
#include "run/attest.h"

#define MAX_ENVELOPE ((size_t)MA_DSSE_MAX_ENVELOPE)

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit attest create --audit FILE.sqlite [--run N] --key KEY.pem --out FILE\n"
            "                               [--identity TEXT] [--allow-unverified]\n"
            "       millaudit attest verify FILE --pub PUB.pem [--db DIR] [--threads N] [--json]\n"
            "create: sign run N (default the newest) of the store as an in-toto statement in a DSSE\n"
            "        envelope (Ed25519, KEY.pem from `openssl genpkey -algorithm ed25519`): the digests\n"
            "        the run recorded for the files it checked, tool, rules fingerprint, verdict,\n"
            "        totals, options, times, manifest and derived-value digests. Only a verified run,\n"
            "        unless --allow-unverified (the verdict is in the statement). --identity: who signs.\n"
            "verify: check the signature with PUB.pem (`openssl pkey -in KEY.pem -pubout`), print who\n"
            "        attested what and when, and the verdict; --db DIR: hash DIR's files and check\n"
            "        every subject, and that no sector file of DIR is left out.\n"
            "exit: 0 written / signature good and files match, 1 run not verified / bad signature /\n"
            "      a file changed, missing or not attested, 2 usage, 3 store, key or envelope\n"
            "      unusable, 4 output not writable\n");
}

static int cmd_create(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"key", required_argument, NULL, 'k'}, {"out", required_argument, NULL, 'o'},
                                         {"identity", required_argument, NULL, 'i'},
                                         {"allow-unverified", no_argument, NULL, 'u'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *audit_path = NULL, *key_path = NULL, *out_path = NULL;
    ma_attest_create_options opt = {0};
    optind = 1;
    int c;
    while ((c = ma_opt_next("attest create", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'k': key_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'i': opt.identity = optarg; break;
        case 'u': opt.allow_unverified = 1; break;
        case 'r':
            if (ma_cli_parse_run_id(optarg, &opt.run_id))
                return ma_opt_error("attest create", "--run %s: not a run id (a positive integer)", optarg);
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (optind != argc || !audit_path || !key_path || !out_path)
        return ma_opt_error("attest create", "--audit, --key and --out are required");
    /* the envelope must never land on the store or the key it is made from */
    const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE},
                                      {key_path, "the signing key", MA_INPUT_FILE}};
    int refused = ma_cli_check_output("attest create", out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 2);
    if (refused)
        return refused;
    opt.tool_version = MA_VERSION;
    opt.git_revision = MA_GIT_REVISION;
    opt.store_name = audit_path;
    ma_error err;
    ma_error_clear(&err);
    ma_ed25519_key *key = NULL;
    ma_audit *a = NULL;
    ma_attest_created made;
    memset(&made, 0, sizeof made);
    int exit_code = MA_EXIT_OK;
    int rc = ma_ed25519_load_private(key_path, &key, &err);
    if (!rc)
        rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_attest_create(a, key, &opt, &made, &err);
    if (rc) {
        exit_code = made.unverified ? MA_EXIT_MISMATCH
                    : rc == MA_ENOMEM || rc == MA_EINTERNAL ? MA_EXIT_INTERNAL
                                                             : MA_EXIT_BAD_INPUT;
    } else if (ma_output_write(out_path, made.envelope, made.len, &err)) {
        exit_code = MA_EXIT_IO;
    } else {
        printf("attested run %lld (verdict %s): %zu files, rules %s, signed by key %s into %s\n",
               (long long)made.run_id, made.verdict, made.n_subjects,
               made.rules_fingerprint[0] ? made.rules_fingerprint : "(unknown variant)", made.keyid, out_path);
    }
    if (exit_code)
        fprintf(stderr, "millaudit attest create: %s\n", err.msg);
    ma_attest_created_free(&made);
    ma_audit_close(a);
    ma_ed25519_key_free(key);
    return exit_code;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static void print_text(const char *path, const ma_attest_check *k, const char *db_dir)
{
    printf("attestation: %s (envelope sha256 %s)\n", path, k->envelope_sha256);
    if (!k->signature_valid) {
        printf("signature:   BAD: none of its %zu signature(s) verifies with key %s\n", k->n_signatures, k->keyid);
        return;
    }
    const ma_attest_statement *s = &k->st;
    printf("signature:   good (Ed25519, key %s)\n", k->keyid);
    printf("signed by:   %s\n", s->identity ? s->identity : "(no identity given)");
    printf("attested at: %s\n", or_dash(s->attested_at));
    printf("tool:        %s %s (git %s)\n", or_dash(s->tool_name), or_dash(s->tool_version), or_dash(s->git_revision));
    printf("rules:       %s, fingerprint %s%s\n", or_dash(s->variant), or_dash(s->rules_fingerprint),
           k->rules_match == 1 ? " (equals this build's)" : k->rules_match == 0 ? " (DIFFERS from this build's)" : "");
    printf("database:    %s, %s, index %s", or_dash(s->database_root), or_dash(s->format), or_dash(s->index_scheme));
    if (s->index_scheme_version >= 0)
        printf(" v%lld", (long long)s->index_scheme_version);
    if (s->format_version >= 0)
        printf(", format v%lld", (long long)s->format_version);
    printf("\nrun:         %lld (%s, %s) on %s, %s to %s\n", (long long)s->run_id, or_dash(s->kind), or_dash(s->mode),
           or_dash(s->host), or_dash(s->started_at), or_dash(s->ended_at));
    printf("totals:      %lld sectors, %lld entries, %lld checked, %lld verified, %lld within bounds, "
           "%lld discrepancies\n",
           (long long)s->sectors, (long long)s->entries, (long long)s->checked, (long long)s->verified,
           (long long)s->within_bounds, (long long)s->discrepancies);
    printf("subjects:    %zu files, manifest sha256 %s\n", s->n_subjects, or_dash(s->manifest_sha256));
    printf("verdict:     %s%s%s\n", or_dash(s->verdict), s->verdict_text ? ": " : "",
           s->verdict_text ? s->verdict_text : "");
    if (!k->db_checked)
        return;
    for (size_t i = 0; i < k->n_issues; i++) {
        const ma_attest_issue *x = &k->issues[i];
        printf("%s: %s", x->path, x->what);
        if (x->actual)
            printf(" (attested %s, now %s)", x->expected, x->actual);
        else if (x->message)
            printf(" (%s)", x->message);
        printf("\n");
    }
    printf("files:       %zu of %zu attested files of %s match%s", k->files_ok, s->n_subjects, db_dir,
           k->n_issues ? "" : ", and every sector file is attested");
    printf("\n");
}

static json_t *text_or_null(const char *s)
{
    return s ? ma_cli_json_text(s) : json_null();
}

static json_t *int_or_null(int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

static int print_json(const char *path, const ma_attest_check *k, const char *db_dir, const char *result)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "schema_version", json_integer(1));
    json_object_set_new(doc, "envelope", ma_cli_json_text(path));
    json_object_set_new(doc, "envelope_sha256", json_string(k->envelope_sha256));
    json_object_set_new(doc, "result", json_string(result));
    json_t *sig = json_object();
    json_object_set_new(sig, "valid", json_boolean(k->signature_valid));
    json_object_set_new(sig, "keyid", json_string(k->keyid));
    json_object_set_new(sig, "index", k->signature_index >= 0 ? json_integer(k->signature_index) : json_null());
    json_object_set_new(sig, "signatures", json_integer((json_int_t)k->n_signatures));
    json_object_set_new(doc, "signature", sig);
    if (k->statement_ok) {
        const ma_attest_statement *s = &k->st;
        json_t *st = json_object();
        json_object_set_new(st, "identity", text_or_null(s->identity));
        json_object_set_new(st, "attested_at", text_or_null(s->attested_at));
        json_object_set_new(st, "tool", json_pack("{s:o, s:o, s:o}", "name", text_or_null(s->tool_name), "version",
                                                  text_or_null(s->tool_version), "git_revision",
                                                  text_or_null(s->git_revision)));
        json_object_set_new(st, "rules", json_pack("{s:o, s:o, s:o}", "variant", text_or_null(s->variant),
                                                   "fingerprint", text_or_null(s->rules_fingerprint),
                                                   "matches_this_build",
                                                   k->rules_match < 0 ? json_null() : json_boolean(k->rules_match)));
        json_object_set_new(st, "database", json_pack("{s:o, s:o, s:o, s:o, s:o}", "root",
                                                      text_or_null(s->database_root), "format", text_or_null(s->format),
                                                      "index_scheme", text_or_null(s->index_scheme),
                                                      "index_scheme_version", int_or_null(s->index_scheme_version),
                                                      "format_version", int_or_null(s->format_version)));
        json_object_set_new(st, "run", json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "id", (json_int_t)s->run_id, "kind",
                                                 text_or_null(s->kind), "mode", text_or_null(s->mode), "host",
                                                 text_or_null(s->host), "started_at", text_or_null(s->started_at),
                                                 "ended_at", text_or_null(s->ended_at)));
        json_object_set_new(st, "verdict", text_or_null(s->verdict));
        json_object_set_new(st, "verdict_text", text_or_null(s->verdict_text));
        json_object_set_new(st, "totals", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "sectors", (json_int_t)s->sectors,
                                                    "entries", (json_int_t)s->entries, "checked",
                                                    (json_int_t)s->checked, "verified", (json_int_t)s->verified,
                                                    "within_bounds", (json_int_t)s->within_bounds, "discrepancies",
                                                    (json_int_t)s->discrepancies));
        json_object_set_new(st, "manifest_sha256", text_or_null(s->manifest_sha256));
        json_t *subj = json_array();
        for (size_t i = 0; i < s->n_subjects; i++)
            json_array_append_new(subj, json_pack("{s:o, s:s, s:o}", "name", ma_cli_json_text(s->subjects[i].name),
                                                  "sha256", s->subjects[i].sha256, "size",
                                                  int_or_null(s->subjects[i].size)));
        json_object_set_new(st, "subjects", subj);
        json_object_set_new(doc, "statement", st);
    } else {
        json_object_set_new(doc, "statement", json_null());
    }
    if (k->db_checked) {
        json_t *db = json_object(), *issues = json_array();
        json_object_set_new(db, "dir", ma_cli_json_text(db_dir));
        json_object_set_new(db, "files_ok", json_integer((json_int_t)k->files_ok));
        for (size_t i = 0; i < k->n_issues; i++) {
            const ma_attest_issue *x = &k->issues[i];
            json_array_append_new(issues, json_pack("{s:o, s:s, s:o, s:o, s:o}", "path", ma_cli_json_text(x->path),
                                                    "problem", x->what, "expected", text_or_null(x->expected),
                                                    "actual", text_or_null(x->actual), "message",
                                                    text_or_null(x->message)));
        }
        json_object_set_new(db, "issues", issues);
        json_object_set_new(doc, "db", db);
    } else {
        json_object_set_new(doc, "db", json_null());
    }
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (!text)
        return -1;
    int bad = puts(text) == EOF || fflush(stdout) != 0;
    free(text);
    return bad ? -1 : 0;
}

static int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"pub", required_argument, NULL, 'p'}, {"db", required_argument, NULL, 'd'},
                                         {"threads", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *pub_path = NULL, *db_dir = NULL;
    int json = 0;
    unsigned threads = 0;
    optind = 1;
    int c;
    while ((c = ma_opt_next("attest verify", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': pub_path = optarg; break;
        case 'd': db_dir = optarg; break;
        case 'j': json = 1; break;
        case 't': {
            long n;
            if (ma_opt_long("attest verify", "--threads", optarg, 1, 1024, &n))
                return MA_EXIT_USAGE;
            threads = (unsigned)n;
            break;
        }
        case 'h': usage(stdout); return MA_EXIT_OK;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (optind != argc - 1 || !pub_path)
        return ma_opt_error("attest verify", "one FILE and --pub are required");
    const char *path = argv[optind];
    ma_error err;
    ma_error_clear(&err);
    ma_ed25519_key *key = NULL;
    char *text = NULL;
    size_t len = 0;
    ma_attest_check k;
    memset(&k, 0, sizeof k);
    int rc = ma_ed25519_load_public(pub_path, &key, &err);
    if (!rc)
        rc = ma_cli_read_document(path, MAX_ENVELOPE, "not an attestation", &text, &len, &err);
    if (!rc)
        rc = ma_attest_check_envelope(text, len, path, key, db_dir, threads, &k, &err);
    int exit_code = MA_EXIT_OK;
    if (rc) {
        exit_code = rc == MA_ENOMEM || rc == MA_EINTERNAL ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
        fprintf(stderr, "millaudit attest verify: %s\n", err.msg);
    } else {
        const char *result = !k.signature_valid ? "bad-signature" : k.n_issues ? "files-differ" : "ok";
        if (k.signature_valid && k.n_issues)
            exit_code = MA_EXIT_MISMATCH;
        if (!k.signature_valid)
            exit_code = MA_EXIT_MISMATCH;
        if (json ? print_json(path, &k, db_dir, result) : (print_text(path, &k, db_dir), fflush(stdout) != 0)) {
            fprintf(stderr, "millaudit attest verify: stdout: write failed\n");
            exit_code = MA_EXIT_IO;
        }
        if (!k.signature_valid)
            fprintf(stderr, "millaudit attest verify: %s: bad signature: no signature verifies with key %s\n", path,
                    k.keyid);
        for (size_t i = 0; i < k.n_issues; i++)
            fprintf(stderr, "millaudit attest verify: %s/%s: %s\n", db_dir, k.issues[i].path, k.issues[i].what);
    }
    ma_attest_check_free(&k);
    free(text);
    ma_ed25519_key_free(key);
    return exit_code;
}

int ma_cmd_attest(int argc, char **argv)
{
    if (argc < 2)
        return ma_opt_error("attest", "no subcommand given (create, verify)");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h")) {
        usage(stdout);
        return MA_EXIT_OK;
    }
    if (!strcmp(sub, "create"))
        return cmd_create(argc - 1, argv + 1);
    if (!strcmp(sub, "verify"))
        return cmd_verify(argc - 1, argv + 1);
    return ma_opt_error("attest", "unknown subcommand '%s' (create, verify)", sub);
}
