/*
 * millaudit manifest create | check | merge: SHA-256 manifests of a database directory that
 * `sha256sum -c` accepts (docs/manifest.md, docs/distributed.md; usage() below has the options).
 * This file parses the options, checks that an output replaces no input, and prints; the work is
 * the manifest engines' (include/millaudit/manifest.h: ma_manifest_create, ma_manifest_check_run,
 * ma_manifest_merge_run) and the words of a check or a merge are reports/render/manifest_text.c's. Exit: 0
 * all OK; 1 FAILED / MISSING / not in manifest; 2 usage; 3 manifest malformed (with --strict),
 * refused path, input or store unusable; 4 output not writable; 128+N stopped by signal N.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "cli/test_hook.h"
#include "common/counts.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/output.h"
#include "common/progress.h"
#include "millaudit.h"

/* One action's synopsis and description: `manifest create --help` prints its own, `manifest --help`
 * all three. */
static void usage_create(FILE *out, int alone)
{
    fprintf(out,
            "usage: millaudit manifest create DIR [--out FILE|-] [--audit FILE.sqlite] [--chunk-size BYTES]\n"
            "                                 [--chunks] [--threads N] [--quiet] [--shard I/N]\n");
    if (!alone)
        return;
    fprintf(out,
            "\n"
            "Writes DIR/MANIFEST.sha256 (or FILE; - for standard output), lines '<sha256>  <path>'\n"
            "that sha256sum -c accepts; with --audit also records digests, chunk digests and\n"
            "provenance in the SQLite store. Temporary files (*.tmp.<pid>) are never listed.\n"
            "  --out FILE        the manifest to write (- for standard output)\n"
            "  --audit FILE      also record it as a manifest run of the store\n"
            "  --chunk-size B    chunk digests per B bytes (K/M/G allowed; default 16M)\n"
            "  --chunks          before each line a comment with the file's size and the digest of\n"
            "                    each chunk, which sha256sum -c skips and verify and check use to say\n"
            "                    which bytes of a damaged download differ (docs/download.md)\n"
            "  -j, --threads N   worker threads (default: online CPUs)\n"
            "  --quiet           no progress, no summary line\n"
            "  --shard I/N       only shard I of N (0 <= I < N) of the sector files, partitioned as\n"
            "                    verify DIR --shard I/N; other files go to shard 0. Default output\n"
            "                    DIR/MANIFEST.shard-I-of-N.sha256, first line '# millaudit manifest shard I/N'\n"
            "exit: 0 written, 2 usage, 3 DIR unusable, 4 output not writable\n");
}

static void usage_check(FILE *out, int alone)
{
    fprintf(out,
            "%s millaudit manifest check MANIFEST|- [--dir DIR] [--audit FILE.sqlite] [--ignore-missing]\n"
            "                                 [--ignore-extra] [--strict] [--status|-w|--warn|--quiet]\n"
            "                                 [--threads N]\n",
            alone ? "usage:" : "      ");
    if (!alone)
        return;
    fprintf(out,
            "\n"
            "Verifies every listed file (paths relative to DIR, default the manifest's directory, or\n"
            ". for - = standard input); --audit pins a FAILED file to its changed byte ranges.\n"
            "MANIFEST is the file create wrote (DIR/MANIFEST.sha256), not the directory.\n"
            "As sha256sum -c: --status prints nothing (exit status only), -w/--warn warns about each\n"
            "improperly formatted line, --quiet prints failures only, --strict fails on improperly\n"
            "formatted lines, --ignore-missing skips missing files. --ignore-extra: no 'not in\n"
            "manifest' for unlisted files of DIR (of the manifest's shard, for a shard manifest:\n"
            "files of other shards are not extra). -j, --threads N: worker threads.\n"
            "exit: 0 all OK, 1 FAILED/MISSING/not in manifest, 2 usage, 3 malformed manifest\n"
            "      (--strict), refused path or unusable store\n");
}

static void usage_merge(FILE *out, int alone)
{
    fprintf(out,
            "%s millaudit manifest merge OUT|- SHARD_MANIFEST... [--allow-partial]\n"
            "                                 [--audit FILE.sqlite [--dir DIR]]\n",
            alone ? "usage:" : "      ");
    if (!alone)
        return;
    fprintf(out,
            "\n"
            "One manifest of shard manifests of one DIR (OUT; - for standard output), sorted as\n"
            "create writes it. Refused (exit 3, nothing written): a file with two different\n"
            "digests, a malformed line, shards of different N, a shard given twice, a missing shard\n"
            "(unless --allow-partial). docs/distributed.md.\n"
            "--audit: record it as a manifest run of the store: the shards' digests (never\n"
            "re-hashed), each file's size and provenance from DIR (default OUT's directory, . for -),\n"
            "no chunk digests. A listed file absent from DIR: exit 3, nothing written.\n");
}

static void usage(FILE *out)
{
    usage_create(out, 0);
    usage_check(out, 0);
    usage_merge(out, 0);
    fprintf(out,
            "\n"
            "create: write DIR/MANIFEST.sha256, lines that sha256sum -c accepts\n"
            "check:  verify every file a manifest lists\n"
            "merge:  one manifest of the shard manifests of one DIR\n"
            "'millaudit manifest ACTION --help' describes each action.\n");
}

static void fail(const char *msg)
{
    char words[1024];
    fprintf(stderr, "millaudit manifest: %s\n", ma_render_option_words(msg, words, sizeof words));
}

static void progress_start(ma_progress *p, int quiet, const char *label)
{
    ma_progress_start(p, stderr, quiet, label, 0);
    ma_progress_set_unit(p, "bytes");
}

/* ---- create ---- */

/* The options of manifest create into o; a result other than MA_OK ends the command (--help:
 * *done). */
static int create_options(ma_manifest_create_options *o, int *quiet, int *done, int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},   {"audit", required_argument, NULL, 'a'},
        {"chunk-size", required_argument, NULL, 'c'}, {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},       {"help", no_argument, NULL, 'h'},
        {"shard", required_argument, NULL, 'S'}, {"chunks", no_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    int c;
    long threads;
    optind = 1;
    while ((c = ma_opt_next("manifest create", argc, argv, "o:a:c:t:qh", opts)) != -1) {
        switch (c) {
        case 'o': o->out = optarg; break;
        case 'a': o->audit_path = optarg; break;
        case 'c':
            if (ma_opt_bytes(optarg, &o->chunk_size) != 0 || o->chunk_size > MA_MANIFEST_MAX_CHUNK)
                return ma_opt_error("manifest create",
                        "--chunk-size '%s': want 1 to %s (K/M/G allowed)", optarg,
                        MA_COUNT(MA_MANIFEST_MAX_CHUNK, "byte", "bytes"));
            break;
        case 't':
            if (ma_opt_long("manifest create", "--threads", optarg, 1, 256, &threads))
                return MA_EUSAGE;
            o->threads = (unsigned)threads;
            break;
        case 'q': *quiet = 1; break;
        case 'C': o->chunk_lines = 1; break;
        case 'S':
            if (ma_cli_parse_shard(optarg, &o->shard_index, &o->shard_count))
                return ma_opt_error("manifest create",
                        "--shard %s: expected I/N with 0 <= I < N, e.g. 0/4", optarg);
            break;
        case 'h': usage_create(stdout, 1); *done = 1; return MA_OK;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1)
        return ma_opt_error("manifest create", argc - optind ? "one database directory expected"
                                                                              : "no database directory given");
    o->dir = argv[optind];
    return MA_OK;
}

/* Before anything is written: the directory (a missing one is named as such, not as an
 * unwritable output), then OUT (default: ma_manifest_default_path into *owned), which must not
 * replace a file of DIR or the store; an earlier manifest at OUT is what is being replaced, not an
 * input (create never lists it). */
static int create_output(ma_manifest_create_options *o, char **owned)
{
    ma_error err;
    if (ma_manifest_dir_check(o->dir, &err) != MA_OK) {
        fail(err.msg);
        return err.code;
    }
    if (!o->out && !(o->out = *owned = ma_manifest_default_path(o->dir, o->shard_index, o->shard_count))) {
        fail("out of memory");
        return MA_ENOMEM;
    }
    const ma_output_input inputs[] = {{ma_manifest_is_manifest_file(o->out) ? NULL : o->dir, "the database",
                                       MA_INPUT_FILE},
                                      {o->audit_path, "the audit store", MA_INPUT_STORE}};
    return ma_cli_output_result("manifest create", o->out, "--out", MA_OUTPUT_DOCUMENT, inputs, 2);
}

static int cmd_create(int argc, char **argv, const ma_cli_invocation *typed)
{
    ma_manifest_create_options o = {.out_stream = stdout};
    int quiet = 0, done = 0;
    char *default_out = NULL;
    int result = create_options(&o, &quiet, &done, argc, argv);
    if (result == MA_OK && !done)
        result = create_output(&o, &default_out);
    if (result != MA_OK || done) {
        ma_free(default_out);
        return result;
    }
    char host[256], cmdline[8192];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
    o.identity = (ma_manifest_identity){host, cmdline};
    /* a first Ctrl-C or SIGTERM stops the hashing cleanly (also when SIGINT came in ignored) */
    o.cancel = ma_cli_stop_on_signals();
    ma_progress progress;
    progress_start(&progress, quiet, "manifest create");
    o.progress = &progress;
    ma_error err;
    ma_error_clear(&err);
    ma_manifest_created made;
    /* the test build's rendezvous after the first hashed chunk (cli/test_hook.h); a weak
     * reference, NULL in millaudit */
    result = (ma_cli_test_manifest_create ? ma_cli_test_manifest_create : ma_manifest_create)(&made, &o, &err);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    /* Messages that are not the manifest go to stderr when the manifest itself is on stdout. */
    FILE *info = ma_output_is_stdout(o.out) ? stderr : stdout;
    if (made.stale_removed && !quiet)
        fprintf(stderr, "millaudit manifest: removed %s %s.tmp.<pid> of dead processes\n",
                MA_COUNT(made.stale_removed, "stale temporary file", "stale temporary files"), o.out);
    if (result != MA_OK)
        fail(err.msg);
    if (result == MA_ECANCELED && made.signal)
        result = ma_result_of_signal(made.signal);
    if (result == MA_OK && !quiet) {
        fprintf(info, "%s: %s, %s\n", info == stdout ? o.out : "standard output",
                MA_COUNT(made.files, "file", "files"), MA_COUNT(made.bytes, "byte", "bytes"));
        if (o.audit_path)
            fprintf(info, "%s: run %lld recorded\n", o.audit_path, (long long)made.run_id);
    }
    ma_free(default_out);
    return result;
}

/* ---- check ---- */

static int check_options(ma_manifest_check_options *o, ma_manifest_verbosity *v, int *done, int argc, char **argv)
{
    enum { OPT_STATUS = 1000, OPT_IGNORE_EXTRA };
    static const struct option opts[] = {
        {"dir", required_argument, NULL, 'd'},       {"audit", required_argument, NULL, 'a'},
        {"ignore-missing", no_argument, NULL, 'i'},  {"ignore-extra", no_argument, NULL, OPT_IGNORE_EXTRA},
        {"strict", no_argument, NULL, 's'},          {"status", no_argument, NULL, OPT_STATUS},
        {"warn", no_argument, NULL, 'w'},            {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},           {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    long threads;
    optind = 1;
    /* as sha256sum -c: the last of --status, --warn, --quiet given wins */
    while ((c = ma_opt_next("manifest check", argc, argv, "d:a:ist:wqh", opts)) != -1) {
        switch (c) {
        case 'd': o->dir = optarg; break;
        case 'a': o->audit_path = optarg; break;
        case 'i': o->ignore_missing = 1; break;
        case OPT_IGNORE_EXTRA: o->ignore_extra = 1; break;
        case 's': o->strict = 1; break;
        case OPT_STATUS: *v = MA_MANIFEST_PRINT_NOTHING; break;
        case 'w': *v = MA_MANIFEST_PRINT_WARN; break;
        case 'q': *v = MA_MANIFEST_PRINT_FAILURES; break;
        case 't':
            if (ma_opt_long("manifest check", "--threads", optarg, 1, 256, &threads))
                return MA_EUSAGE;
            o->threads = (unsigned)threads;
            break;
        case 'h': usage_check(stdout, 1); *done = 1; return MA_OK;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1)
        return ma_opt_error("manifest check", argc - optind ? "one manifest expected" : "no manifest given");
    o->manifest = argv[optind];
    return MA_OK;
}

static int cmd_check(int argc, char **argv)
{
    ma_manifest_check_options o = {0};
    ma_manifest_verbosity v = MA_MANIFEST_PRINT_ALL;
    int done = 0;
    int result = check_options(&o, &v, &done, argc, argv);
    if (result != MA_OK || done)
        return result;
    struct stat st;
    if (strcmp(o.manifest, "-") && stat(o.manifest, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* the directory a manifest describes, not the manifest: name the file meant */
        char shown[1100], guess[4200];
        ma_escape_name(o.manifest, shown, sizeof shown);
        snprintf(guess, sizeof guess, "%s%sMANIFEST.sha256", o.manifest,
                 o.manifest[strlen(o.manifest) - 1] == '/' ? "" : "/");
        int there = stat(guess, &st) == 0 && S_ISREG(st.st_mode);
        char guess_shown[4200];
        ma_escape_name(guess, guess_shown, sizeof guess_shown);
        fprintf(stderr, "millaudit manifest check: %s is a directory, not a manifest; %s%s%s\n", shown,
                there ? "did you mean 'millaudit manifest check " : "its manifest would be ", guess_shown,
                there ? "'?" : " (none there: millaudit manifest create DIR writes it)");
        return MA_EFORMAT;
    }
    ma_progress progress;
    progress_start(&progress, v == MA_MANIFEST_PRINT_NOTHING, "manifest check");
    o.progress = &progress;
    ma_error err;
    ma_error_clear(&err);
    ma_manifest_check *c = NULL;
    result = (ma_cli_test_manifest_check ? ma_cli_test_manifest_check : ma_manifest_check_run)(&c, &o, &err);
    ma_progress_finish(&progress, atomic_load(&progress.done));
    if (c) {
        ma_manifest_check_print_malformed(stderr, c, v);
        ma_manifest_check_print_files(stdout, stderr, c, v);
    }
    if (result != MA_OK) {
        fail(err.msg);
    } else {
        ma_manifest_check_print_summary(stderr, c, v);
        result = ma_result_of_verdict(ma_manifest_check_summary_of(c)->verdict, 0);
    }
    ma_manifest_check_free(c);
    return result;
}

/* ---- merge ---- */

static int cmd_merge(int argc, char **argv, const ma_cli_invocation *typed)
{
    static const struct option opts[] = {
        {"allow-partial", no_argument, NULL, 'p'}, {"audit", required_argument, NULL, 'a'},
        {"dir", required_argument, NULL, 'd'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    ma_manifest_merge_options o = {.out_stream = stdout};
    int c;
    optind = 1;
    while ((c = ma_opt_next("manifest merge", argc, argv, "a:d:h", opts)) != -1) {
        switch (c) {
        case 'p': o.allow_partial = 1; break;
        case 'a': o.audit_path = optarg; break;
        case 'd': o.dir = optarg; break;
        case 'h': usage_merge(stdout, 1); return MA_OK;
        default: return MA_EUSAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind < 2)
        return ma_opt_error("manifest merge", "need OUT and at least one shard manifest");
    if (o.dir && !o.audit_path)
        return ma_opt_error("manifest merge", "--dir names where --audit takes the files' sizes; give --audit too");
    o.out = argv[optind];
    o.inputs = (const char *const *)argv + optind + 1;
    o.n_inputs = (size_t)(argc - optind - 1);
    /* OUT must be none of the shard manifests nor the store (or its side files), by name or by
     * inode; the store, written, must be none of the shard manifests */
    ma_output_input *inputs = calloc(o.n_inputs + 1, sizeof *inputs);
    if (!inputs) {
        fail("out of memory");
        return MA_ENOMEM;
    }
    for (size_t k = 0; k < o.n_inputs; k++)
        inputs[k] = (ma_output_input){o.inputs[k], "a shard manifest", MA_INPUT_FILE};
    inputs[o.n_inputs] = (ma_output_input){o.audit_path, "the audit store", MA_INPUT_STORE};
    int result = ma_cli_output_result("manifest merge", o.out, "OUT", MA_OUTPUT_DOCUMENT, inputs, o.n_inputs + 1);
    if (result == MA_OK && o.audit_path)
        result = ma_cli_output_result("manifest merge", o.audit_path, "--audit", MA_OUTPUT_STORE, inputs, o.n_inputs);
    free(inputs);
    if (result != MA_OK)
        return result;
    char host[256], cmdline[8192];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
    o.identity = (ma_manifest_identity){host, cmdline};
    ma_error err;
    ma_error_clear(&err);
    ma_manifest_merged_info merged;
    result = ma_manifest_merge_run(&merged, &o, &err);
    if (result != MA_OK)
        fail(err.msg);
    else if (!ma_output_is_stdout(o.out))
        ma_manifest_merge_print(stdout, stderr, o.out, o.n_inputs, o.audit_path, &merged);
    else
        ma_manifest_merge_print(stderr, stderr, "standard output", o.n_inputs, o.audit_path, &merged);
    ma_manifest_merged_info_free(&merged);
    return result;
}

static int manifest_result(int argc, char **argv, const ma_cli_invocation *typed)
{
    if (argc < 2)
        return ma_opt_error("manifest", "no action given (create, check or merge)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return MA_OK;
    }
    if (!strcmp(argv[1], "create"))
        return cmd_create(argc - 1, argv + 1, typed);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge"))
        return cmd_merge(argc - 1, argv + 1, typed);
    static const char *const actions[] = {"create", "check", "merge"};
    return ma_cli_unknown_action("manifest", "action", argv[1], actions, 3);
}

int ma_cmd_manifest(int argc, char **argv, const ma_cli_invocation *typed)
{
    int result = manifest_result(argc, argv, typed);
    return result; /* cli/main.c maps it to the exit status */
}
