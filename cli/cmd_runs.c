/*
 * millaudit runs export --audit FILE [--run N] [--out FILE]
 * millaudit runs import --audit FILE RUN.json
 * millaudit runs compare [--audit FILE] A B        (A, B: run ids in --audit, or STORE:ID)
 * millaudit runs merge OUT.sqlite SHARD.sqlite... [--allow-partial] [--allow-bounds]
 *
 * Moves one run between stores as a JSON document (reports/runs.h, docs/reproducibility.md) and
 * compares two runs sector by sector: same bytes (manifest digests), same derived values (derived
 * digests), present on both sides. Exit: export/import 0 done, 3 input unusable (store untouched),
 * 4 output not writable; compare 0 equal, 1 they differ, 3 unusable or not comparable; 2 usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/audit_store.h"
#include "cli/commands.h"
#include "common/fileio.h"
#include "common/ma_error.h"
#include "reports/audit.h"
#include "reports/render.h"
#include "reports/runs.h"
#include "verifier/merge.h"

#define MAX_DOCUMENT (1024L * 1024L * 1024L) /* a run export beyond 1 GiB is not one we wrote */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit runs export --audit FILE.sqlite [--run N] [--out FILE]\n"
            "       millaudit runs import --audit FILE.sqlite RUN.json\n"
            "       millaudit runs compare [--audit FILE.sqlite] A B\n"
            "       millaudit runs merge OUT.sqlite SHARD.sqlite... [--allow-partial] [--allow-bounds]\n"
            "export: one run as a JSON document (facts, sectors, class counts, discrepancies, manifest\n"
            "        files and chunks, derived digests); default the latest run, stdout.\n"
            "import: validate RUN.json strictly and add it to FILE as a new run, keeping its facts.\n"
            "compare: A and B are run ids in --audit or STORE:ID; per sector: same bytes? same\n"
            "        derived values? present on both sides?\n"
            "merge: the shard runs of verify --shard I/N (one per store, or STORE:RUN) as one run in\n"
            "        OUT, reading like a single run: roots and propagated decided again across shards;\n"
            "        missing or interrupted shards make it incomplete unless --allow-partial\n"
            "        (docs/distributed.md). Exit as verify: 0, 1, 3; refused shards 3, OUT unwritable 4.\n"
            "exit: 0 done / equal, 1 runs differ, 2 usage, 3 input unusable or not comparable,\n"
            "      4 output not writable\n");
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

/* Reads the document at path ("-" = standard input; a pipe or FIFO is read as a stream and one
 * without a writer reads as empty, never blocks). */
static int read_document(const char *path, char **out, size_t *len, ma_error *err)
{
    int fd;
    int rc = ma_file_open_stream(path, &fd, err);
    if (rc)
        return rc;
    char shown[512];
    ma_escape_name(path, shown, sizeof shown);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= (size_t)MAX_DOCUMENT) {
                rc = ma_error_set(err, MA_EFORMAT, "%s: offset %zu: larger than 1 GiB, not a run export", shown, n);
                break;
            }
            cap = cap ? 2 * cap : 65536;
            char *p = realloc(buf, cap);
            if (!p) {
                rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", shown);
                break;
            }
            buf = p;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ma_error_set(err, MA_EIO, "%s: offset %zu: read failed: %s", shown, n, strerror(errno));
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return MA_OK;
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
    int rc = read_document(doc_path, &text, &len, &err);
    if (!rc)
        rc = ma_run_from_json(&r, text ? text : "", len, doc_path, &err);
    if (rc) {
        exit_code = bad_input_code(rc);
    } else if ((rc = ma_audit_open(&a, audit_path, &err)) != MA_OK) {
        exit_code = rc == MA_EIO ? MA_EXIT_IO : bad_input_code(rc);
    } else if ((rc = ma_run_import(a, &r, doc_path, &new_id, &err)) != MA_OK) {
        exit_code = rc == MA_EIO ? MA_EXIT_IO : bad_input_code(rc);
    } else {
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

static int cmd_compare(const char *audit_path, const char *sa, const char *sb)
{
    const char *store[2];
    int64_t id[2];
    const char *args[2] = {sa, sb};
    char paths[2][4096];
    for (int i = 0; i < 2; i++)
        if (parse_side(args[i], audit_path, paths[i], sizeof paths[i], &store[i], &id[i])) {
            fprintf(stderr, "millaudit runs compare: '%s': not a run id%s or STORE:ID\n", args[i],
                    audit_path ? "" : " (no --audit given)");
            return MA_EXIT_USAGE;
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

/* ---------------------------------------------------------------- merge */

static void print_merge(const ma_merge_result *m, const char *out_path)
{
    printf("merged %zu shard%s of %u of %s into %s: run %lld\n", m->n_shards, m->n_shards == 1 ? "" : "s",
           m->shard_count, m->database_root, out_path, (long long)m->run_id);
    for (size_t i = 0; i < m->n_shards; i++) {
        const ma_merge_shard *s = &m->shards[i];
        printf("shard %u/%u: %s run %lld, host %s, %zu", s->index, s->count, s->source, (long long)s->run_id,
               s->host[0] ? s->host : "?", s->sectors);
        if (s->planned_sectors >= 0)
            printf(" of %lld", (long long)s->planned_sectors);
        printf(" sectors, %s .. %s, %s%s\n", s->started_at, s->ended_at[0] ? s->ended_at : "never ended", s->status,
               s->interrupted ? " (INTERRUPTED)" : "");
    }
    for (size_t i = 0; i < m->n_missing; i++)
        printf("shard %u/%u: MISSING\n", m->missing[i], m->shard_count);
    const ma_vrun_totals *t = &m->totals;
    printf("total: %llu sectors (%llu unusable), %llu entries, %llu checked, %llu verified, %llu only within "
           "bounds, %llu discrepancies (%llu root, %llu propagated; %llu roots of a shard are propagated across "
           "shards), %llu missing-child, %llu unverifiable\n",
           (unsigned long long)t->sectors, (unsigned long long)t->sectors_unusable, (unsigned long long)t->entries,
           (unsigned long long)t->checked, (unsigned long long)t->verified, (unsigned long long)t->within_bounds,
           (unsigned long long)t->discrepancies, (unsigned long long)t->roots, (unsigned long long)t->propagated,
           (unsigned long long)m->reclassified, (unsigned long long)t->missing_child,
           (unsigned long long)t->unverifiable);
    if (t->discrepancies) {
        printf("total classes:");
        for (int k = 0; k < MA_DISC_CLASSES; k++)
            printf(" %s=%llu", ma_disc_class_name(k), (unsigned long long)t->by_class[k]);
        printf("\n");
    }
    for (size_t i = 0; i < m->n_notes; i++)
        printf("note: %s\n", m->notes[i]);
    switch (m->verdict) {
    case MA_VERDICT_VERIFIED:
        printf("verdict: verified: all %llu entries of %llu sectors re-derived and matching\n",
               (unsigned long long)t->entries, (unsigned long long)t->sectors);
        break;
    case MA_VERDICT_WITHIN_BOUNDS:
        printf("verdict: verified within bounds only: %llu entries unproven, no contradiction; NOT fully "
               "verified\n", (unsigned long long)t->within_bounds);
        break;
    case MA_VERDICT_DISCREPANCIES:
        printf("verdict: discrepancies found: %llu (%llu roots, %llu propagated)", (unsigned long long)t->discrepancies,
               (unsigned long long)t->roots, (unsigned long long)t->propagated);
        if (t->body_digest_mismatches)
            printf("; %llu sector files whose body is not what their producer wrote",
                   (unsigned long long)t->body_digest_mismatches);
        printf("\n");
        break;
    default:
        if (m->partial)
            printf("verdict: incomplete: %zu of %u shards missing, %zu interrupted\n", m->n_missing, m->shard_count,
                   m->n_interrupted);
        else
            printf("verdict: incomplete: %llu sectors unusable, %llu entries not verified (successor absent or "
                   "broken)\n", (unsigned long long)t->sectors_unusable,
                   (unsigned long long)(t->missing_child + t->unverifiable));
        break;
    }
}

static int cmd_merge(int argc, char **argv)
{
    /* argv[0] is "merge"; the identity is taken before getopt reorders anything */
    char host[256], cmdline[8192];
    char **typed = calloc((size_t)argc + 2, sizeof *typed);
    if (!typed)
        return MA_EXIT_INTERNAL;
    typed[0] = "runs";
    for (int i = 0; i < argc; i++)
        typed[i + 1] = argv[i];
    ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, argc + 1, typed);
    free(typed);
    static const struct option opts[] = {{"allow-partial", no_argument, NULL, 'p'},
                                         {"allow-bounds", no_argument, NULL, 'b'},
                                         {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    ma_merge_options o;
    memset(&o, 0, sizeof o);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': o.allow_partial = 1; break;
        case 'b': o.allow_bounds = 1; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit runs merge: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return MA_EXIT_USAGE;
        }
    }
    if (argc - optind < 2) {
        fprintf(stderr, "millaudit runs merge: %s\n", argc - optind < 1 ? "no output store given"
                                                                       : "no shard store given");
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    o.out_path = argv[optind];
    o.shards = (const char *const *)(argv + optind + 1);
    o.n_shards = (size_t)(argc - optind - 1);
    o.host = host;
    o.command_line = cmdline;
    ma_merge_result m;
    ma_error err;
    ma_error_clear(&err);
    int rc = ma_merge_runs(&o, &m, &err);
    int exit_code;
    if (rc) {
        fprintf(stderr, "millaudit runs merge: %s\n", err.msg);
        exit_code = m.output_failed ? MA_EXIT_IO : bad_input_code(rc);
    } else {
        print_merge(&m, o.out_path);
        if (m.partial && !o.allow_partial)
            fprintf(stderr, "millaudit runs merge: %zu of %u shards missing, %zu interrupted: the merged run is "
                            "marked incomplete (--allow-partial accepts it)\n",
                    m.n_missing, m.shard_count, m.n_interrupted);
        exit_code = m.exit_code;
    }
    ma_merge_result_free(&m);
    return exit_code;
}

int ma_cmd_runs(int argc, char **argv)
{
    static const struct option opts[] = {{"audit", required_argument, NULL, 'a'}, {"run", required_argument, NULL, 'r'},
                                         {"out", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    if (argc < 2) {
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return MA_EXIT_OK;
    }
    const char *sub = argv[1];
    if (!strcmp(sub, "merge"))
        return cmd_merge(argc - 1, argv + 1);
    if (strcmp(sub, "export") && strcmp(sub, "import") && strcmp(sub, "compare")) {
        fprintf(stderr, "millaudit runs: unknown subcommand '%s' (export, import, compare, merge)\n", sub);
        return MA_EXIT_USAGE;
    }
    const char *audit_path = NULL, *out_path = NULL;
    int64_t run_id = 0;
    int have_run = 0;
    optind = 1;
    opterr = 0;
    int c;
    argc--, argv++;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': audit_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'r':
            if (ma_cli_parse_run_id(optarg, &run_id)) {
                fprintf(stderr, "millaudit runs: --run %s: not a run id (a positive integer)\n", optarg);
                return MA_EXIT_USAGE;
            }
            have_run = 1;
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            fprintf(stderr, "millaudit runs: unknown or incomplete option '%s'\n", argv[optind - 1]);
            usage(stderr);
            return MA_EXIT_USAGE;
        }
    }
    int rest = argc - optind;
    if (!strcmp(sub, "export")) {
        if (rest || !audit_path) {
            usage(stderr);
            return MA_EXIT_USAGE;
        }
        return cmd_export(audit_path, run_id, out_path);
    }
    if (!strcmp(sub, "import")) {
        if (rest != 1 || !audit_path || have_run || out_path) {
            usage(stderr);
            return MA_EXIT_USAGE;
        }
        return cmd_import(audit_path, argv[optind]);
    }
    if (rest != 2 || have_run || out_path) {
        usage(stderr);
        return MA_EXIT_USAGE;
    }
    return cmd_compare(audit_path, argv[optind], argv[optind + 1]);
}
