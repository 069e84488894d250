/*
 * millaudit attest create --audit A.sqlite [--run N] --key KEY.pem --out FILE [--identity TEXT]
 *                         [--allow-unverified] [--allow-partial] [--allow-unsealed] [--include-host]
 *                         [--vsa FILE --resource-uri URI [--verifier-id URI]]
 * millaudit attest verify FILE --pub PUB.pem [--db DIR] [--threads N] [--json]
 *
 * Options and output only; the work is the attestation API of millaudit/store.h
 * (docs/attestations.md).
 * Exit: create 0 written, 1 the run is not verified (without --allow-unverified) or a merge of
 * unsealed shard stores (without --allow-unsealed), 6 the run checked
 * some sectors (without --allow-partial), 3 store, run or key unusable, 4 --out not writable;
 * verify 0 a good signature on a statement of the whole database whose verdict is verified (and
 * with --db every file matches and every database file is attested), 6 the same for a statement of
 * some sectors (it proves them given its inputs), 1 bad signature, a file changed, missing or not
 * attested, or a verdict of discrepancies, 3 unusable envelope or key, a statement that contradicts
 * itself, or a verdict of incomplete, interrupted or within bounds; 2 usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "millaudit.h"
#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "common/fileio.h"
#include "common/options.h"
#include "common/output.h"
#include "ma_version.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit attest create --audit FILE.sqlite [--run N] --key KEY.pem --out FILE\n"
            "                               [--identity TEXT] [--allow-unverified] [--allow-partial]\n"
            "                               [--allow-unsealed] [--include-host]\n"
            "                               [--vsa FILE --resource-uri URI [--verifier-id URI]]\n"
            "       millaudit attest verify FILE --pub PUB.pem [--db DIR] [--threads N] [--json]\n"
            "create: sign run N (default the newest) of the store as an in-toto statement in a DSSE\n"
            "        envelope (Ed25519, KEY.pem from `openssl genpkey -algorithm ed25519`): the digests\n"
            "        the run recorded for the files it checked, tool, rules fingerprint, verdict,\n"
            "        totals, options, times, manifest and derived-value digests. Only a verified run,\n"
            "        unless --allow-unverified (the verdict is in the statement); only a run of the\n"
            "        whole database, unless --allow-partial (a run of some sectors or of a shard: the\n"
            "        statement's scope is its sectors, the files it read but did not check its\n"
            "        inputs); a merged run only when the merge checked its shard stores' seals (a seal\n"
            "        key), unless --allow-unsealed (the statement's run.sealed_by is then null).\n"
            "        --identity: who signs. Names are relative to the database; --include-host also\n"
            "        states its absolute path, the host and the command line of the run.\n"
            "        --vsa FILE: also a SLSA Verification Summary (v1) of a whole-database run, signed\n"
            "        with the same key: PASSED only when verified; --resource-uri: where the database\n"
            "        is published; --verifier-id: its verifier.id (default millaudit's).\n"
            "verify: check the signature with PUB.pem (`openssl pkey -in KEY.pem -pubout`), print the\n"
            "        scope (the whole database, or sectors given inputs), who attested what and when,\n"
            "        and the verdict; --db DIR: hash DIR's files and check every subject and input,\n"
            "        and for the whole database that no database file at DIR's top is left out.\n"
            "exit: 0 written / the whole database verified (files match), 1 run not verified or an\n"
            "      unsealed merge (create) / bad\n"
            "      signature / a file changed, missing or not attested / discrepancies, 2 usage,\n"
            "      3 store, key or envelope unusable, a statement contradicting itself, or not\n"
            "      verified (incomplete, interrupted, within bounds), 4 output not writable,\n"
            "      6 a partial run (create without --allow-partial) / a statement of some sectors\n"
            "      that holds: it proves those sectors given its inputs, not the database\n");
}

static int create(const char *audit_path, const char *key_path, const char *out_path, const char *vsa_path,
                  ma_attest_create_options *opt)
{
    opt->tool_version = MA_VERSION;
    opt->git_revision = MA_GIT_REVISION;
    opt->store_name = audit_path;
    opt->envelope_name = ma_path_base(out_path);
    ma_error err;
    ma_error_clear(&err);
    ma_ed25519_key *key = NULL;
    ma_audit *a = NULL;
    ma_attest_created made;
    memset(&made, 0, sizeof made);
    int rc = ma_ed25519_load_private(&key, key_path, &err);
    if (!rc)
        rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_store_attest_create(&made, a, key, opt, &err);
    int result = ma_store_attest_create_result(rc, &made);
    if (!rc && (ma_output_write(out_path, made.envelope, made.len, &err) ||
                (vsa_path && ma_output_write(vsa_path, made.vsa_envelope, made.vsa_len, &err))))
        result = MA_EIO;
    else if (!rc) {
        char inputs[64] = "";
        if (strcmp(made.scope, "database"))
            snprintf(inputs, sizeof inputs, " checked and %s read but not checked", MA_NUM(made.n_inputs));
        printf("attested run %lld (scope %s, verdict %s): %s%s, rules %s, signed by key %s into %s\n",
               (long long)made.run_id, made.scope, made.verdict, MA_COUNT(made.n_subjects, "file", "files"), inputs,
               made.rules_fingerprint[0] ? made.rules_fingerprint : "(unknown variant)", made.keyid, out_path);
        if (vsa_path)
            printf("verification summary (SLSA VSA v1): %s for %s into %s\n", made.vsa_result, opt->vsa_resource_uri,
                   vsa_path);
    }
    if (result)
        fprintf(stderr, "millaudit attest create: %s\n", err.msg);
    ma_attest_created_free(&made);
    ma_audit_free(a);
    ma_ed25519_key_free(key);
    return result;
}

static int cmd_create(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"key", required_argument, NULL, 'k'}, {"out", required_argument, NULL, 'o'},
                                         {"identity", required_argument, NULL, 'i'},
                                         {"allow-unverified", no_argument, NULL, 'u'},
                                         {"allow-partial", no_argument, NULL, 'p'},
                                         {"allow-unsealed", no_argument, NULL, 'U'},
                                         {"include-host", no_argument, NULL, 'H'},
                                         {"vsa", required_argument, NULL, 'v'},
                                         {"resource-uri", required_argument, NULL, 'R'},
                                         {"verifier-id", required_argument, NULL, 'V'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *audit_path = NULL, *key_path = NULL, *out_path = NULL, *vsa_path = NULL;
    ma_attest_create_options opt = {0};
    optind = 1;
    int c, result = MA_OK;
    while (!result && (c = ma_opt_next("attest create", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'k': key_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'i': opt.identity = optarg; break;
        case 'u': opt.allow_unverified = 1; break;
        case 'p': opt.allow_partial = 1; break;
        case 'U': opt.allow_unsealed = 1; break;
        case 'H': opt.include_host = 1; break;
        case 'v': vsa_path = optarg; break;
        case 'R': opt.vsa_resource_uri = optarg; break;
        case 'V': opt.vsa_verifier_id = optarg; break;
        case 'r': result = ma_cli_opt_run_id("attest create", "--run", optarg, &opt.run_id); break;
        case 'h': usage(stdout); return MA_OK;
        default: result = MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (result)
        return result;
    if (optind != argc || !audit_path || !key_path || !out_path)
        return ma_opt_error("attest create", "--audit, --key and --out are required");
    if (!vsa_path != !opt.vsa_resource_uri || (opt.vsa_verifier_id && !vsa_path))
        return ma_opt_error("attest create", "--vsa FILE and --resource-uri URI go together (--verifier-id with them)");
    /* the envelopes must never land on the store or the key they are made from, nor on each other */
    const ma_output_input inputs[] = {{audit_path, "the audit store", MA_INPUT_STORE},
                                      {key_path, "the signing key", MA_INPUT_FILE},
                                      {out_path, "the statement envelope (--out)", MA_INPUT_FILE}};
    result = ma_cli_output_result("attest create", out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 2);
    if (!result && vsa_path)
        result = ma_cli_output_result("attest create", vsa_path, "--vsa", MA_OUTPUT_DOCUMENT, inputs, 3);
    return result ? result : create(audit_path, key_path, out_path, vsa_path, &opt);
}

static int check(const char *path, const char *pub_path, const char *db_dir, unsigned threads, int json)
{
    ma_error err;
    ma_error_clear(&err);
    ma_ed25519_key *key = NULL;
    char *text = NULL, *doc = NULL, *problems = NULL;
    size_t len = 0;
    ma_attest_check *k = NULL;
    int rc = ma_ed25519_load_public(&key, pub_path, &err);
    if (!rc)
        rc = ma_file_read_document(path, MA_ATTEST_MAX_ENVELOPE, "not an attestation", &text, &len, &err);
    if (!rc)
        rc = ma_store_attest_verify(&k, text, len, path, key, db_dir, threads, &err);
    if (!rc)
        rc = ma_render_attest_check(&doc, k, path, db_dir, json, &err);
    if (!rc)
        rc = ma_render_attest_problems(&problems, k, path, db_dir, "millaudit attest verify: ", &err);
    int result = ma_store_input_result(rc);
    if (rc) {
        fprintf(stderr, "millaudit attest verify: %s\n", err.msg);
    } else {
        result = ma_result_of_verdict(ma_store_attest_verdict(k), 0);
        fputs(doc, stdout);
        if (ma_cli_stdout_flush("attest verify") != MA_OK)
            result = MA_EIO;
        fputs(problems, stderr);
    }
    ma_free(problems);
    ma_free(doc);
    ma_store_attest_check_free(k);
    free(text);
    ma_ed25519_key_free(key);
    return result;
}

static int cmd_verify(int argc, char **argv)
{
    static const struct option opts[] = {{"pub", required_argument, NULL, 'p'}, {"db", required_argument, NULL, 'd'},
                                         {"threads", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    const char *pub_path = NULL, *db_dir = NULL;
    int json = 0;
    long threads = 0;
    optind = 1;
    int c;
    while ((c = ma_opt_next("attest verify", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': pub_path = optarg; break;
        case 'd': db_dir = optarg; break;
        case 'j': json = 1; break;
        case 't':
            if (ma_opt_long("attest verify", "--threads", optarg, 1, 1024, &threads))
                return MA_EUSAGE;
            break;
        case 'h': usage(stdout); return MA_OK;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (optind != argc - 1 || !pub_path)
        return ma_opt_error("attest verify", "one FILE and --pub are required");
    return check(argv[optind], pub_path, db_dir, (unsigned)threads, json);
}

static int attest_result(int argc, char **argv)
{
    if (argc < 2)
        return ma_opt_error("attest", "no subcommand given (create, verify)");
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h"))
        return usage(stdout), MA_OK;
    if (!strcmp(sub, "create"))
        return cmd_create(argc - 1, argv + 1);
    if (!strcmp(sub, "verify"))
        return cmd_verify(argc - 1, argv + 1);
    static const char *const subs[] = {"create", "verify"};
    return ma_cli_unknown_action("attest", "subcommand", sub, subs, 2);
}

int ma_cmd_attest(int argc, char **argv)
{
    int result = attest_result(argc, argv);
    return result; /* cli/main.c maps it to the exit status */
}
