/*
 * millaudit runs export --audit FILE [--run N] [--out FILE]
 * millaudit runs import --audit FILE RUN.json | ATTESTATION --pub PUB.pem
 * millaudit runs compare [--audit FILE] A B [--json] (A, B: run ids in --audit, or STORE:ID)
 * millaudit runs list --audit FILE [--kind K] [--root DIR] [--last N] [--json]
 * millaudit runs regressions --audit FILE [--run N] [--since RUN] [--root DIR] [--json] [--junit F]
 * millaudit runs merge OUT.sqlite SHARD.sqlite... [--allow-partial] [--allow-bounds] [--seal-key K]
 *
 * Options and output only; the work is the store's public API (millaudit/store.h): moves one run
 * between stores as a JSON document (docs/reproducibility.md) and compares two runs sector by
 * sector: same bytes (manifest digests), same derived values (derived digests), present on both
 * sides. Exit: export/import 0 done, 3 input unusable (store untouched), 4 output not writable;
 * compare 0 equal, 1 they differ, 3 unusable or not comparable; 2 usage.
 * list and regressions read the history of a store (docs/nightly.md): list 0, regressions 0
 * nothing regressed (or no baseline), 1 regressed, 3 store or run unusable, 4 the JUnit file not
 * writable.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "millaudit.h"
#include "cli/audit_store.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "common/output.h"
#include "common/fileio.h"
#include "common/options.h"

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
            "                            [--seal-key K]\n"
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
            "        or whose rows do not add up, are refused (docs/distributed.md). Without\n"
            "        --seal-key the shard stores are trusted as written; with it, every shard run must\n"
            "        carry a seal by K (its verify given the same key) that verifies over its rows.\n"
            "        Exit as verify: 0, 1, 3; refused shards 3, OUT unwritable 4.\n"
            "exit: 0 done / equal / nothing regressed, 1 runs differ / regressed, 2 usage,\n"
            "      3 input unusable or not comparable, 4 output not writable\n");
}

/* Prints a failure of runs SUB and passes its result on. */
static int failed(const char *sub, int result, const ma_error *err)
{
    fprintf(stderr, "millaudit runs %s: %s\n", sub, err->msg);
    return result;
}

static int cmd_export(const char *audit_path, int64_t id, const char *out_path)
{
    ma_error err;
    ma_error_clear(&err);
    ma_run *r = NULL;
    char *text = NULL;
    int rc = ma_store_run_load_path(&r, audit_path, id, &err);
    if (!rc)
        rc = ma_store_run_export(&text, r, &err);
    int result = rc ? ma_store_input_result(rc) : ma_cli_write_document(out_path, text, strlen(text), &err);
    if (result)
        failed("export", result, &err);
    ma_free(text);
    ma_store_run_free(r);
    return result;
}

/* The one step both imports end with: the checked run written into the store (opened only now, so
 * a document refused earlier leaves it untouched). */
static int import_into(const char *audit_path, const ma_run *r, const char *doc_path, int64_t *new_id, ma_error *err)
{
    ma_audit *a = NULL;
    int rc = ma_audit_open(&a, audit_path, err);
    if (rc == MA_OK)
        rc = ma_store_run_import(new_id, a, r, doc_path, err);
    ma_audit_free(a);
    return rc == MA_EIO ? rc : ma_store_input_result(rc); /* a store that cannot be written: exit 4 */
}

static int cmd_import(const char *audit_path, const char *doc_path)
{
    ma_error err;
    ma_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    ma_run *r = NULL;
    int64_t new_id = 0;
    /* Everything is validated before the store is opened, so a bad document leaves it untouched. */
    int rc = ma_file_read_document(doc_path, MAX_DOCUMENT, "not a run export", &text, &len, &err);
    if (!rc)
        rc = ma_store_run_parse(&r, text, len, doc_path, &err);
    int result = rc ? ma_store_input_result(rc) : import_into(audit_path, r, doc_path, &new_id, &err);
    if (result)
        failed("import", result, &err);
    else
        printf("imported run %lld of %s as run %lld into %s\n", (long long)ma_store_run_id(r), doc_path,
               (long long)new_id, audit_path);
    ma_store_run_free(r);
    free(text);
    return result;
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
    ma_attest_check *k = NULL;
    ma_run *r = NULL;
    int64_t new_id = 0;
    int rc = ma_ed25519_load_public(&key, pub_path, &err);
    if (!rc)
        rc = ma_file_read_document(doc_path, MA_ATTEST_MAX_ENVELOPE, "not an attestation", &text, &len, &err);
    if (!rc)
        rc = ma_store_attest_verify(&k, text, len, doc_path, key, NULL, 0, &err);
    int result = ma_store_input_result(rc);
    if (!rc && !ma_store_attest_signature_valid(k)) {
        ma_error_set(&err, MA_EINVAL, "%s: bad signature: no signature verifies with key %s; nothing imported",
                     doc_path, ma_store_attest_keyid(k));
        result = ma_result_of_verdict(ma_store_attest_verdict(k), 0);
    } else if (!rc && (rc = ma_store_attest_to_run(&r, k, &err)) != MA_OK) {
        result = ma_store_input_result(rc);
    } else if (!rc && (result = import_into(audit_path, r, doc_path, &new_id, &err)) == MA_OK) {
        const char *who = ma_store_attest_identity(k);
        printf("imported attested run %lld of %s (signed by %s, key %s; verdict %s) as run %lld into %s\n",
               (long long)ma_store_run_id(r), doc_path, who ? who : "(no identity given)", ma_store_attest_keyid(k),
               ma_store_attest_run_verdict(k), (long long)new_id, audit_path);
    }
    if (result)
        failed("import", result, &err);
    ma_store_run_free(r);
    ma_store_attest_check_free(k);
    ma_ed25519_key_free(key);
    free(text);
    return result;
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

static int cmd_compare(const char *audit_path, const char *sa, const char *sb, int json)
{
    const char *store[2];
    int64_t id[2];
    char paths[2][4096];
    if (parse_side(sa, audit_path, paths[0], sizeof paths[0], &store[0], &id[0]))
        return ma_opt_error("runs compare", "'%s': not a run id%s or STORE:ID", sa, audit_path ? "" : " (no --audit given)");
    if (parse_side(sb, audit_path, paths[1], sizeof paths[1], &store[1], &id[1]))
        return ma_opt_error("runs compare", "'%s': not a run id%s or STORE:ID", sb, audit_path ? "" : " (no --audit given)");
    ma_error err;
    ma_error_clear(&err);
    ma_run *a = NULL, *b = NULL;
    ma_run_cmp *cmp = NULL;
    char *doc = NULL;
    int rc = ma_store_run_load_path(&a, store[0], id[0], &err);
    if (!rc)
        rc = ma_store_run_load_path(&b, store[1], id[1], &err);
    if (!rc)
        rc = ma_store_compare(&cmp, a, b, &err);
    int result = ma_store_input_result(rc);
    if (!rc && (result = ma_render_runs_compare(&doc, cmp, a, store[0], b, store[1], json, &err)) == MA_OK) {
        fputs(doc, stdout);
        result = ma_result_of_verdict(ma_store_compare_verdict(cmp), 0);
        if (ma_store_compare_problem(cmp))
            fprintf(stderr, "millaudit runs compare: cannot tell whether the runs agree: %s\n",
                    ma_store_compare_problem(cmp));
    } else {
        failed("compare", result, &err);
    }
    ma_free(doc);
    ma_store_compare_free(cmp);
    ma_store_run_free(a);
    ma_store_run_free(b);
    return result;
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

/* The document on stdout: MA_OK, or MA_EIO after saying so. */
static int print_document(const char *sub, const char *doc)
{
    char cmd[32];
    snprintf(cmd, sizeof cmd, "runs %s", sub);
    fputs(doc, stdout);
    return ma_cli_stdout_flush(cmd);
}

static int cmd_list(const char *audit_path, const ma_runs_filter *f, int json)
{
    ma_error err;
    ma_error_clear(&err);
    ma_audit *a = NULL;
    ma_run_list *runs = NULL;
    char *doc = NULL;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_runs_list(&runs, a, f, &err);
    ma_audit_free(a);
    int result = ma_store_input_result(rc);
    if (!rc)
        result = ma_render_runs_list(&doc, runs, audit_path, json, &err);
    result = result ? failed("list", result, &err) : print_document("list", doc);
    ma_free(doc);
    ma_run_list_free(runs);
    return result;
}

static int cmd_regressions(const char *audit_path, const ma_regressions_options *o, int json, const char *junit_path)
{
    ma_error err;
    ma_error_clear(&err);
    ma_audit *a = NULL;
    ma_run_regressions *g = NULL;
    char *doc = NULL;
    int rc = ma_cli_audit_open_existing(&a, audit_path, &err);
    if (!rc)
        rc = ma_store_regressions(&g, a, o, &err);
    ma_audit_free(a);
    int result = ma_store_input_result(rc);
    if (!rc && (result = ma_render_regressions(&doc, g, json, &err)) == MA_OK) {
        fputs(doc, stdout);
        result = ma_result_of_verdict(ma_store_regressions_verdict(g), 0);
        if (junit_path && (rc = ma_render_regressions_junit(g, junit_path, &err)) != MA_OK)
            result = failed("regressions", rc == MA_ENOMEM ? rc : MA_EIO, &err);
        if (result != MA_ENOMEM && ma_cli_stdout_flush("runs regressions") != MA_OK)
            result = MA_EIO;
    } else {
        failed("regressions", result, &err);
    }
    ma_free(doc);
    ma_store_regressions_free(g);
    return result;
}

/* ---------------------------------------------------------------- merge */

/* OUT must be none of the shard stores (STORE or STORE:RUN) nor their side files, nor the seal key
 * (a merge into it would replace the key): MA_OK, or the result of the refusal (printed). */
static int merge_output_refused(const ma_merge_options *o, const char *key_path)
{
    size_t ns = o->n_shards;
    ma_output_input *inputs = calloc(ns + 1, sizeof *inputs);
    char **names = calloc(ns ? ns : 1, sizeof *names);
    int result = !inputs || !names ? MA_ENOMEM : MA_OK;
    for (size_t i = 0; result == MA_OK && i < ns; i++) {
        size_t len = strlen(o->shards[i]) + 1;
        int64_t run;
        if (!(names[i] = malloc(len))) {
            result = MA_ENOMEM;
            break;
        }
        ma_merge_shard_source(o->shards[i], names[i], len, &run);
        if (run < 0) {
            result = ma_opt_error("runs merge", "%s: no such run: runs are numbered from 1 (STORE alone is its "
                                                "newest shard run)", o->shards[i]);
            break;
        }
        inputs[i] = (ma_output_input){names[i], "a shard store", MA_INPUT_STORE};
    }
    if (result == MA_OK && key_path)
        inputs[ns] = (ma_output_input){key_path, "the seal key", MA_INPUT_FILE};
    if (result == MA_OK)
        result = ma_cli_output_result("runs merge", o->out_path, "OUT", MA_OUTPUT_STORE, inputs, ns + !!key_path);
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
    int rc = ma_merge_runs(&m, o, &err);
    int result;
    if (rc) {
        char words[sizeof err.msg + 64];
        fprintf(stderr, "millaudit runs merge: %s\n", ma_render_option_words(err.msg, words, sizeof words));
        /* reading the shards' stores: any failure there means the input is unusable */
        /* the output first: a store refusing a row reports a constraint (MA_EINVAL), not misuse */
        result = rc == MA_ECANCELED                      ? ma_result_of_signal((int)*o->cancel)
                 : m.output_failed                       ? MA_EIO
                 : rc == MA_EINVAL                       ? MA_EUSAGE
                 : rc == MA_ENOMEM || rc == MA_EINTERNAL ? rc
                                                         : MA_EFORMAT;
    } else {
        ma_render_merge_text(stdout, &m, o->out_path);
        if (m.partial && !o->allow_partial)
            fprintf(stderr, "millaudit runs merge: %s of %s missing, %s interrupted: the merged run is "
                            "marked incomplete (--allow-partial accepts it)\n",
                    MA_NUM(m.n_missing), MA_COUNT(m.shard_count, "shard", "shards"), MA_NUM(m.n_interrupted));
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
                                         {"seal-key", required_argument, NULL, 'K'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    ma_merge_options o;
    memset(&o, 0, sizeof o);
    const char *key_path = NULL;
    optind = 1;
    int c;
    while (result == MA_OK && !help && (c = ma_opt_next("runs merge", argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'p': o.allow_partial = 1; break;
        case 'b': allow_bounds = 1; break;
        case 'K': key_path = optarg; break;
        case 'h': help = 1; break;
        default: result = MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (result == MA_OK && !help && argc - optind < 2)
        result = ma_opt_error(
            "runs merge", "%s", argc - optind < 1 ? "no output store given" : "no shard store given");
    if (result == MA_OK && !help) {
        o.out_path = argv[optind];
        o.shards = (const char *const *)(argv + optind + 1);
        o.n_shards = (size_t)(argc - optind - 1);
        o.host = host;
        o.command_line = cmdline;
        result = merge_output_refused(&o, key_path);
    }
    ma_seal_key *key = NULL;
    if (result == MA_OK && !help && key_path) {
        ma_error err;
        int krc = ma_seal_key_load(&key, key_path, &err);
        if (krc) {
            fprintf(stderr, "millaudit runs merge: %s\n", err.msg);
            result = ma_result_of_unusable(krc);
        }
        o.seal_key = key;
    }
    if (help)
        usage(stdout);
    else if (result == MA_OK)
        result = run_merge(&o, allow_bounds);
    ma_seal_key_free(key);
    return result; /* cli/main.c maps it to the exit status */
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

/* The options of export, import, compare, list and regressions. */
typedef struct runs_args {
    const char *sub, *audit_path, *out_path, *kind, *root, *junit_path, *pub_path;
    int64_t run_id, since;
    int have_run, json, history_opts, help;
    long last;
    int rest;              /* arguments after the options */
    char *const *args;
} runs_args;

static int parse_args(runs_args *o, const char *cmd, int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
                                         {"json", no_argument, NULL, 'j'}, {"kind", required_argument, NULL, 'k'},
                                         {"root", required_argument, NULL, 'R'}, {"last", required_argument, NULL, 'l'},
                                         {"since", required_argument, NULL, 's'},
                                         {"junit", required_argument, NULL, 'J'},
                                         {"pub", required_argument, NULL, 'p'},
                                         {NULL, 0, NULL, 0}};
    optind = 1;
    int c, result = MA_OK;
    while (!result && !o->help && (c = ma_opt_next(cmd, argc, argv, "h", opts)) != -1) {
        switch (c) {
        case 'a': o->audit_path = optarg; break;
        case 'o': o->out_path = optarg; break;
        case 'r': result = ma_cli_opt_run_id(cmd, "--run", optarg, &o->run_id), o->have_run = 1; break;
        case 'h': o->help = 1; break;
        case 'j': o->json = 1; break;
        case 'k': o->kind = optarg, o->history_opts |= 1; break;
        case 'R': o->root = optarg, o->history_opts |= 2; break;
        case 'J': o->junit_path = optarg, o->history_opts |= 4; break;
        case 'p': o->pub_path = optarg; break;
        case 'l':
            if (ma_opt_parse_long(optarg, 1, LONG_MAX, &o->last))
                result = ma_opt_error(cmd, "--last %s: not a count (a positive integer)", optarg);
            o->history_opts |= 8;
            break;
        case 's': result = ma_cli_opt_run_id(cmd, "--since", optarg, &o->since), o->history_opts |= 16; break;
        default: result = MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    o->rest = argc - optind;
    o->args = argv + optind;
    return result;
}

/* list and regressions: the history of a store. */
static int run_history(const runs_args *o)
{
    char buf[PATH_MAX];
    if (!strcmp(o->sub, "list")) {
        if (o->rest || !o->audit_path || o->have_run || o->out_path || (o->history_opts & ~(1 | 2 | 8)))
            return misuse(o->sub);
        ma_runs_filter f = {o->kind, root_key(o->root, buf), (size_t)o->last};
        return cmd_list(o->audit_path, &f, o->json);
    }
    if (o->rest || !o->audit_path || o->out_path || (o->history_opts & ~(2 | 4 | 16)))
        return misuse(o->sub);
    const ma_output_input inputs[] = {{o->audit_path, "the audit store", MA_INPUT_STORE}};
    int result = ma_cli_output_result("runs regressions", o->junit_path, "--junit", MA_OUTPUT_DOCUMENT, inputs, 1);
    ma_regressions_options ro = {o->run_id, o->since, root_key(o->root, buf), o->audit_path};
    return result ? result : cmd_regressions(o->audit_path, &ro, o->json, o->junit_path);
}

/* export, import, compare: one run between stores. */
static int run_document(const runs_args *o, const char *cmd)
{
    if (o->history_opts || (o->json && strcmp(o->sub, "compare")))
        return ma_opt_error(cmd, "--json, --kind, --root, --last, --since and --junit belong to list, "
                                 "regressions (and --json to compare)");
    if (!strcmp(o->sub, "export")) {
        if (o->rest || !o->audit_path)
            return misuse(o->sub);
        const ma_output_input inputs[] = {{o->audit_path, "the audit store", MA_INPUT_STORE}};
        int result = ma_cli_output_result("runs export", o->out_path, "--out", MA_OUTPUT_DOCUMENT, inputs, 1);
        return result ? result : cmd_export(o->audit_path, o->run_id, o->out_path);
    }
    if (!strcmp(o->sub, "import")) {
        if (o->rest != 1 || !o->audit_path || o->have_run || o->out_path)
            return misuse(o->sub);
        return o->pub_path ? cmd_import_attestation(o->audit_path, o->args[0], o->pub_path)
                           : cmd_import(o->audit_path, o->args[0]);
    }
    if (o->rest != 2 || o->have_run || o->out_path)
        return misuse(o->sub);
    return cmd_compare(o->audit_path, o->args[0], o->args[1], o->json);
}

static int runs_result(int argc, char **argv)
{
    if (argc < 2)
        return ma_opt_error("runs", "no subcommand given (export, import, compare, list, regressions, merge)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return usage(stdout), MA_OK;
    const char *sub = argv[1];
    static const char *const subs[] = {"export", "import", "compare", "list", "regressions", "merge"};
    if (strcmp(sub, "export") && strcmp(sub, "import") && strcmp(sub, "compare") && strcmp(sub, "list") &&
        strcmp(sub, "regressions"))
        return ma_cli_unknown_action("runs", "subcommand", sub, subs, 6);
    char cmd[32];
    snprintf(cmd, sizeof cmd, "runs %s", sub);
    runs_args o = {.sub = sub};
    int result = parse_args(&o, cmd, argc - 1, argv + 1);
    if (result || o.help)
        return o.help ? (usage(stdout), MA_OK) : result;
    if (o.pub_path && strcmp(sub, "import")) {
        fprintf(stderr, "millaudit runs %s: --pub belongs to import (of an attestation)\n", sub);
        usage(stderr);
        return MA_EUSAGE;
    }
    if (!strcmp(sub, "list") || !strcmp(sub, "regressions"))
        return run_history(&o);
    return run_document(&o, cmd);
}

int ma_cmd_runs(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "merge")) /* still an exit code: helper "verify" converts it */
        return cmd_merge(argc - 1, argv + 1);
    int result = runs_result(argc, argv);
    return result; /* cli/main.c maps it to the exit status */
}
