/*
 * millaudit manifest create DIR [--out FILE|-] [--audit FILE.sqlite] [--chunk-size BYTES] [--threads N]
 *                               [--quiet]
 * millaudit manifest check MANIFEST|- [--dir DIR] [--audit FILE.sqlite] [--ignore-missing]
 *                               [--ignore-extra] [--strict] [--status|--warn|--quiet] [--threads N]
 * millaudit manifest merge OUT|- SHARD_MANIFEST... [--allow-partial] [--audit FILE.sqlite [--dir DIR]]
 *
 * create writes DIR/MANIFEST.sha256 (or --out, "-" for standard output) that `sha256sum -c`
 * accepts and, with --audit, records the run, every file's digest, size, chunk digests and
 * provenance in the audit store. check prints one line per listed file as `sha256sum -c` does
 * (and takes its options: --status, --warn, --quiet, --strict, --ignore-missing), pins a FAILED
 * file to the byte ranges of its changed chunks when --audit has its chunk digests, and reports
 * files of the directory that the manifest does not list (unless --ignore-extra). Exit: 0 all OK;
 * 1 FAILED / MISSING / not in manifest; 2 usage; 3 manifest malformed (with --strict), refused
 * path, input or store unusable; 4 output not writable. merge joins shard manifests and, with
 * --audit, records the result as a manifest run (sizes from DIR, no chunk digests). docs/manifest.md
 * has the details.
 */
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/manifest.h"
#include "checksums/sha256.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/signals.h"
#include "cli/test_hook.h"
#include "common/fileio.h"
#include "common/output.h"
#include "common/ma_error.h"
#include "common/options.h"
#include "common/progress.h"
#include "formats/provenance.h"
#include "ma_version.h"
#include "store/audit.h"
#include "store/audit_manifest.h"
#include "run/shard.h"

#define MAX_PINNED_RANGES 8 /* byte ranges printed per FAILED file */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: millaudit manifest create DIR [--out FILE|-] [--audit FILE.sqlite] [--chunk-size BYTES]\n"
            "                                 [--threads N] [--quiet] [--shard I/N]\n"
            "       millaudit manifest check MANIFEST|- [--dir DIR] [--audit FILE.sqlite] [--ignore-missing]\n"
            "                                 [--ignore-extra] [--strict] [--status|-w|--warn|--quiet]\n"
            "                                 [--threads N]\n"
            "       millaudit manifest merge OUT|- SHARD_MANIFEST... [--allow-partial]\n"
            "                                 [--audit FILE.sqlite [--dir DIR]]\n"
            "\n"
            "create: write DIR/MANIFEST.sha256 (or FILE; - for standard output), lines '<sha256>  <path>'\n"
            "        that sha256sum -c accepts; with --audit also record digests, chunk digests and\n"
            "        provenance in the SQLite store. Temporary files (*.tmp.<pid>) are never listed.\n"
            "        --shard I/N: only shard I of N (0 <= I < N) of the sector files, partitioned as\n"
            "        verify DIR --shard I/N; other files go to shard 0. Default output\n"
            "        DIR/MANIFEST.shard-I-of-N.sha256, first line '# millaudit manifest shard I/N'.\n"
            "check:  verify every listed file (paths relative to DIR, default the manifest's directory,\n"
            "        or . for - = standard input); --audit pins a FAILED file to its changed byte ranges.\n"
            "        As sha256sum -c: --status prints nothing (exit status only), -w/--warn warns about\n"
            "        each improperly formatted line, --quiet prints failures only, --strict fails on\n"
            "        improperly formatted lines, --ignore-missing skips missing files. --ignore-extra:\n"
            "        no 'not in manifest' for unlisted files of DIR (of the manifest's shard, for a\n"
            "        shard manifest: files of other shards are not extra).\n"
            "        Exit 0 all OK, 1 FAILED/MISSING/not in manifest, 3 malformed manifest (--strict),\n"
            "        refused path or unusable store.\n"
            "merge:  one manifest of shard manifests of one DIR (OUT; - for standard output), sorted\n"
            "        as create writes it. Refused (exit 3, nothing written): a file with two different\n"
            "        digests, a malformed line, shards of different N, a shard given twice, a missing\n"
            "        shard (unless --allow-partial). docs/distributed.md.\n"
            "        --audit: record it as a manifest run of the store: the shards' digests (never\n"
            "        re-hashed), each file's size and provenance from DIR (default OUT's directory, . for\n"
            "        -), no chunk digests. A listed file absent from DIR: exit 3, nothing written.\n");
}

static void fail(const char *msg)
{
    fprintf(stderr, "millaudit manifest: %s\n", msg);
}

/* Parses "123", "64K", "16M", "1G" (binary units). */
static int parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    uint64_t mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1024 * 1024 * 1024, end++;
    if (*end || v == 0 || v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

/* Prints a path as sha256sum does: names with backslash, LF or CR get a leading '\' and escapes. */
static void print_name(FILE *out, const char *s)
{
    if (!strpbrk(s, "\\\n\r")) {
        fputs(s, out);
        return;
    }
    fputc('\\', out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", out);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\r')
            fputs("\\r", out);
        else
            fputc(*s, out);
    }
}

static char *join_path(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

#define N_EXCLUDES 6

/* Relative paths inside dir that must not be listed: the manifest (unless it is standard input or
 * output), the conventional MANIFEST.sha256 (a manifest never lists a manifest), and the store
 * with its side files. */
static int collect_excludes(char *ex[N_EXCLUDES], const char *dir, const char *manifest, const char *audit,
                            ma_error *err)
{
    memset(ex, 0, N_EXCLUDES * sizeof ex[0]);
    int rc = strcmp(manifest, "-") ? ma_manifest_relative(&ex[0], dir, manifest, err) : MA_OK;
    if (rc == MA_OK && audit)
        rc = ma_manifest_relative(&ex[1], dir, audit, err);
    if (rc == MA_OK && ex[1]) {
        static const char *const side[] = {"-wal", "-shm", "-journal"};
        for (int i = 0; i < 3; i++) {
            size_t n = strlen(ex[1]) + 10;
            if (!(ex[2 + i] = malloc(n)))
                return ma_error_set(err, MA_ENOMEM, "out of memory");
            snprintf(ex[2 + i], n, "%s%s", ex[1], side[i]);
        }
    }
    if (rc == MA_OK && !(ex[5] = strdup("MANIFEST.sha256")))
        rc = ma_error_set(err, MA_ENOMEM, "out of memory");
    return rc;
}

static void free_excludes(char *ex[N_EXCLUDES])
{
    for (int i = 0; i < N_EXCLUDES; i++)
        free(ex[i]);
}

/* Progress of hashing on stderr, in MiB: silent for the first second, then one line a second. */
struct byte_progress {
    ma_cli_test_hook hook;               /* the test build's rendezvous (cli/test_hook.h) */
    const volatile sig_atomic_t *stop;   /* ends that rendezvous when a signal arrived */
    int quiet;
    const char *label;
    uint64_t total;
    double start, last;
    int printed;
};

static void on_bytes(void *ctx, uint64_t done)
{
    struct byte_progress *bp = ctx;
    if (bp->hook.step[0])
        ma_cli_test_hook_step(&bp->hook, "hashing", bp->stop);
    double now = ma_now();
    if (bp->quiet || now - bp->start < 1.0 || now - bp->last < 1.0)
        return;
    bp->last = now;
    bp->printed = 1;
    double rate = (double)done / (now - bp->start);
    fprintf(stderr, "%s: %.0f/%.0f MiB, %.0f MiB/s, ETA %.0f s\n", bp->label, (double)done / 1048576.0,
            (double)bp->total / 1048576.0, rate / 1048576.0, rate > 0 ? (double)(bp->total - done) / rate : 0.0);
}

static void start_progress(struct byte_progress *bp, ma_sha256_options *sha, int quiet, const char *label,
                           char *const *paths, size_t n)
{
    memset(bp, 0, sizeof *bp);
    /* a weak reference, NULL in millaudit: the hook's step stays empty */
    if (ma_cli_test_hook_env)
        ma_cli_test_hook_env(&bp->hook);
    bp->quiet = quiet;
    bp->label = label;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
            bp->total += (uint64_t)st.st_size;
    }
    bp->start = bp->last = ma_now();
    sha->on_progress = on_bytes;
    sha->progress_ctx = bp;
}

/* ---- create ---- */

/* --shard I/N: keeps in rel (n paths, compacted) the files of shard index (run/shard.h: the
 * partition of verify DIR --shard I/N; files that are no sector's go to shard 0). */
static int keep_shard(const char *dir, char **rel, size_t *n, unsigned index, unsigned count, ma_error *err)
{
    ma_database *db = NULL;
    unsigned *shard_of = calloc(*n ? *n : 1, sizeof *shard_of);
    if (!shard_of)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int rc = ma_database_open(&db, dir, NULL, err);
    if (rc == MA_OK)
        rc = ma_shard_of_files(db, count, (const char *const *)rel, *n, shard_of, err);
    if (rc == MA_OK) {
        size_t k = 0;
        for (size_t i = 0; i < *n; i++) {
            if (shard_of[i] == index)
                rel[k++] = rel[i];
            else
                free(rel[i]);
        }
        *n = k;
    }
    ma_database_close(db);
    free(shard_of);
    return rc;
}

/* True when path is an existing regular file that reads like a manifest (empty, a comment, or a
 * digest line: 64 hex digits, optionally after a backslash, then a space): an earlier manifest
 * being replaced, as opposed to a database file named as the output. */
static int looks_like_manifest(const char *path)
{
    if (!strcmp(path, "-"))
        return 0;
    int fd = -1;
    ma_error err;
    struct stat st;
    if (ma_file_open_regular(path, &fd, &st, &err) != MA_OK)
        return 0;
    char head[68];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    if (n == 0)
        return 1;
    if (n < 1)
        return 0;
    if (head[0] == '#')
        return 1;
    size_t off = head[0] == '\\';
    if ((size_t)n < off + 65)
        return 0;
    for (size_t i = off; i < off + 64; i++)
        if (!strchr("0123456789abcdefABCDEF", head[i]))
            return 0;
    return head[off + 64] == ' ';
}

static int cmd_create(int argc, char **argv, const ma_cli_invocation *typed)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},   {"audit", required_argument, NULL, 'a'},
        {"chunk-size", required_argument, NULL, 'c'}, {"threads", required_argument, NULL, 't'},
        {"quiet", no_argument, NULL, 'q'},       {"help", no_argument, NULL, 'h'},
        {"shard", required_argument, NULL, 'S'}, {NULL, 0, NULL, 0},
    };
    const char *out = NULL, *audit_path = NULL;
    unsigned shard_index = 0, shard_count = 0;
    ma_sha256_options sha = {0};
    int quiet = 0, c;
    long threads;
    optind = 1;
    while ((c = ma_opt_next("manifest create", argc, argv, "o:a:c:t:qh", opts)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'a': audit_path = optarg; break;
        case 'c':
            if (parse_size(optarg, &sha.chunk_size) != 0 || sha.chunk_size > MA_SHA256_MAX_CHUNK) {
                return ma_opt_error("manifest create", "--chunk-size '%s': want 1 to %u bytes (K/M/G allowed)",
                        optarg, MA_SHA256_MAX_CHUNK);
            }
            break;
        case 't':
            if (ma_opt_long("manifest create", "--threads", optarg, 1, 256, &threads))
                return MA_EXIT_USAGE;
            sha.threads = (unsigned)threads;
            break;
        case 'q': quiet = 1; break;
        case 'S':
            if (ma_cli_parse_shard(optarg, &shard_index, &shard_count)) {
                return ma_opt_error("manifest create", "--shard %s: expected I/N with 0 <= I < N, e.g. 0/4",
                        optarg);
            }
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1)
        return ma_opt_error("manifest create", argc - optind ? "one database directory expected"
                                                             : "no database directory given");
    const char *dir = argv[optind];
    struct stat st;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "millaudit manifest: %s: %s\n", dir, strerror(errno));
        return MA_EXIT_BAD_INPUT;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "millaudit manifest: %s: not a directory\n", dir);
        return MA_EXIT_BAD_INPUT;
    }
    if (!sha.chunk_size)
        sha.chunk_size = MA_SHA256_DEFAULT_CHUNK;

    char shard_name[64], header[64] = "";
    snprintf(shard_name, sizeof shard_name, "MANIFEST.shard-%u-of-%u.sha256", shard_index, shard_count);
    if (shard_count)
        ma_manifest_shard_header(header, sizeof header, shard_index, shard_count);
    char *default_out = out ? NULL : join_path(dir, shard_count ? shard_name : "MANIFEST.sha256");
    if (!out)
        out = default_out;
    {
        /* The manifest must not replace a file of DIR or the store; an earlier manifest at OUT is
         * what is being replaced, not an input (manifest create skips it when listing). */
        const ma_output_input inputs[] = {{looks_like_manifest(out) ? NULL : dir, "the database", MA_INPUT_FILE},
                                          {audit_path, "the audit store", MA_INPUT_STORE}};
        int refused = ma_cli_check_output("manifest create", out, "--out", MA_OUTPUT_DOCUMENT, inputs, 2);
        if (refused) {
            free(default_out);
            return refused;
        }
    }
    ma_error err;
    ma_error_clear(&err);
    char *ex[N_EXCLUDES] = {0};
    char **rel = NULL, **full = NULL;
    size_t n = 0;
    ma_file_digest *dig = NULL;
    ma_audit *audit = NULL;
    int64_t run_id = 0;
    int status = MA_EXIT_OK, in_run = 0;
    const int to_stdout = out && !strcmp(out, "-");
    /* Messages that are not the manifest go to stderr when the manifest itself is on stdout. */
    FILE *info_out = to_stdout ? stderr : stdout;

    int rc = out ? collect_excludes(ex, dir, out, audit_path, &err) : ma_error_set(&err, MA_ENOMEM, "out of memory");
    if (rc != MA_OK) {
        status = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_IO; /* the output's directory is unusable */
        goto done;
    }
    if (!to_stdout) {
        /* A killed earlier create left its temporary file: ours to remove, as no one else will. */
        size_t removed = 0;
        rc = ma_manifest_remove_stale_temps(out, &removed, &err);
        if (rc != MA_OK) {
            status = MA_EXIT_INTERNAL;
            goto done;
        }
        if (removed && !quiet)
            fprintf(stderr, "millaudit manifest: removed %zu stale temporary file%s %s.tmp.<pid> of dead processes\n",
                    removed, removed == 1 ? "" : "s", out);
    }
    if (audit_path) {
        rc = ma_audit_open(&audit, audit_path, &err);
        if (rc != MA_OK) {
            status = ma_exit_code_for(rc);
            goto done;
        }
    }
    rc = ma_manifest_list(&rel, &n, dir, (const char *const *)ex, N_EXCLUDES, &err);
    if (rc != MA_OK) {
        status = MA_EXIT_BAD_INPUT;
        goto done;
    }
    if (shard_count && (rc = keep_shard(dir, rel, &n, shard_index, shard_count, &err)) != MA_OK) {
        status = ma_exit_code_for(rc);
        goto done;
    }
    full = calloc(n ? n : 1, sizeof *full);
    dig = calloc(n ? n : 1, sizeof *dig);
    if (!full || !dig) {
        rc = ma_error_set(&err, MA_ENOMEM, "out of memory for %zu files", n);
        status = MA_EXIT_INTERNAL;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (!(full[i] = join_path(dir, rel[i]))) {
            rc = ma_error_set(&err, MA_ENOMEM, "out of memory");
            status = MA_EXIT_INTERNAL;
            goto done;
        }
    if (audit) {
        /* The run's variant and format are those the files state, when they all agree. */
        char variant[8] = "", format[16] = "";
        int mixed_variant = 0, mixed_format = 0;
        for (size_t i = 0; i < n; i++) {
            ma_file_provenance pv;
            ma_file_provenance_read(&pv, full[i], rel[i]);
            if (pv.variant[0] && strcmp(pv.variant, variant) != 0)
                mixed_variant |= variant[0] != '\0';
            if (pv.variant[0] && !variant[0])
                memcpy(variant, pv.variant, sizeof variant);
            if (pv.format[0] && strcmp(pv.format, format) != 0)
                mixed_format |= format[0] != '\0';
            if (pv.format[0] && !format[0])
                memcpy(format, pv.format, sizeof format);
        }
        char host[256], cmdline[8192], root[PATH_MAX];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
        /* the absolute root, as verify records it, so runs list --root finds manifest runs too */
        if (!realpath(dir, root))
            snprintf(root, sizeof root, "%s", dir);
        const ma_run_info info = {.kind = "manifest", .tool_version = MA_VERSION, .git_revision = MA_GIT_REVISION,
                                  .host = host, .command_line = cmdline, .database_root = root,
                                  .variant = variant[0] && !mixed_variant ? variant : NULL,
                                  .format = format[0] && !mixed_format ? format : NULL};
        rc = ma_audit_run_begin(audit, &info, &run_id, &err);
        if (rc != MA_OK) {
            status = ma_exit_code_for(rc);
            goto done;
        }
        in_run = 1;
    }
    /* a first Ctrl-C or SIGTERM stops the hashing cleanly (also when SIGINT came in ignored) */
    const volatile sig_atomic_t *stop = ma_cli_stop_on_signals();
    sha.cancel = stop;
    struct byte_progress bp;
    start_progress(&bp, &sha, quiet, "manifest create", full, n);
    bp.stop = stop;
    rc = ma_sha256_files(dig, NULL, NULL, (const char *const *)full, n, &sha, &err);
    if (*stop) {
        /* SIGINT/SIGTERM: no manifest is written, the run is recorded as interrupted */
        status = 128 + (int)*stop;
        ma_error_set(&err, MA_ECANCELED, "interrupted by signal %d: no manifest written", (int)*stop);
        goto done;
    }
    if (rc != MA_OK) {
        /* A file that cannot be read is unusable input; nothing is written. */
        status = rc == MA_ENOMEM || rc == MA_EINTERNAL ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
        goto done;
    }
    rc = to_stdout ? ma_manifest_write_stream_header(stdout, "standard output", header[0] ? header : NULL,
                                                     (const char *const *)rel, dig, n, &err)
                   : ma_manifest_write_header(out, header[0] ? header : NULL, (const char *const *)rel, dig, n, &err);
    if (rc != MA_OK) {
        status = ma_exit_code_for(rc);
        goto done;
    }
    if (audit) {
        rc = ma_audit_manifest_begin(audit, run_id, out, sha.chunk_size, &err);
        for (size_t i = 0; rc == MA_OK && i < n; i++)
            rc = ma_manifest_record_digests(audit, run_id, dir, rel[i], &dig[i], &err);
        if (rc != MA_OK) {
            status = rc == MA_EIO ? MA_EXIT_IO : ma_exit_code_for(rc);
            goto done;
        }
    }
    if (!quiet) {
        uint64_t bytes = 0;
        for (size_t i = 0; i < n; i++)
            bytes += dig[i].size;
        fprintf(info_out, "%s: %zu files, %llu bytes\n", to_stdout ? "standard output" : out, n,
                (unsigned long long)bytes);
        if (audit)
            fprintf(info_out, "%s: run %lld recorded\n", audit_path, (long long)run_id);
    }
done:
    if (status != MA_EXIT_OK)
        fail(err.msg);
    if (audit && in_run) {
        ma_error e2;
        const char *how = status == MA_EXIT_OK ? "ok" : status > 128 ? "interrupted" : "unusable";
        if (ma_audit_run_end(audit, run_id, how, &e2) != MA_OK) {
            fail(e2.msg);
            if (status == MA_EXIT_OK)
                status = MA_EXIT_IO;
        }
    }
    ma_audit_close(audit);
    for (size_t i = 0; dig && i < n; i++)
        ma_file_digest_free(&dig[i]);
    free(dig);
    if (full)
        ma_manifest_paths_free(full, n);
    ma_manifest_paths_free(rel, n);
    free_excludes(ex);
    free(default_out);
    return status;
}

/* ---- check ---- */

/* Appends to line the byte ranges of chunks that differ between the file now (d) and the store. */
static void pin_chunks(char *line, size_t size, const ma_file_digest *d, const ma_audit_chunks *rec)
{
    size_t len = strlen(line);
    if (rec->chunk_size != d->chunk_size) {
        snprintf(line + len, size - len, " (recorded chunk size %llu differs; not pinned)",
                 (unsigned long long)rec->chunk_size);
        return;
    }
    uint64_t c = d->chunk_size;
    uint64_t end_all = d->size > rec->size ? d->size : rec->size;
    ma_chunk_range r[MAX_PINNED_RANGES];
    size_t found = ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])d->chunks, d->n_chunks,
                                             (const uint8_t(*)[MA_SHA256_LEN])rec->chunks, rec->n_chunks,
                                             r, MAX_PINNED_RANGES);
    size_t shown = found < MAX_PINNED_RANGES ? found : MAX_PINNED_RANGES;
    size_t more = found - shown;
    const char *sep = " at";
    for (size_t i = 0; i < shown; i++) {
        uint64_t lo = (uint64_t)r[i].first * c, hi = (uint64_t)r[i].end * c;
        if (hi > end_all)
            hi = end_all;
        len = strlen(line);
        if (r[i].end - r[i].first == 1)
            snprintf(line + len, size - len, "%s bytes %llu-%llu (chunk %zu)", sep, (unsigned long long)lo,
                     (unsigned long long)(hi - 1), r[i].first);
        else
            snprintf(line + len, size - len, "%s bytes %llu-%llu (chunks %zu-%zu)", sep, (unsigned long long)lo,
                     (unsigned long long)(hi - 1), r[i].first, r[i].end - 1);
        sep = ",";
    }
    len = strlen(line);
    if (more)
        snprintf(line + len, size - len, ", and %zu more ranges", more);
    len = strlen(line);
    if (d->size != rec->size)
        snprintf(line + len, size - len, " (size %llu, recorded %llu)", (unsigned long long)d->size,
                 (unsigned long long)rec->size);
}

static int cmp_line_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What check prints, as sha256sum -c: the last of --status, --warn, --quiet given wins. */
enum verbosity { V_NORMAL, V_STATUS, V_WARN, V_QUIET };

static int cmd_check(int argc, char **argv)
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
    const char *dir = NULL, *audit_path = NULL;
    int ignore_missing = 0, ignore_extra = 0, strict = 0, c;
    long threads;
    enum verbosity verb = V_NORMAL;
    ma_sha256_options sha = {0};
    optind = 1;
    while ((c = ma_opt_next("manifest check", argc, argv, "d:a:ist:wqh", opts)) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'a': audit_path = optarg; break;
        case 'i': ignore_missing = 1; break;
        case OPT_IGNORE_EXTRA: ignore_extra = 1; break;
        case 's': strict = 1; break;
        case OPT_STATUS: verb = V_STATUS; break;
        case 'w': verb = V_WARN; break;
        case 'q': verb = V_QUIET; break;
        case 't':
            if (ma_opt_long("manifest check", "--threads", optarg, 1, 256, &threads))
                return MA_EXIT_USAGE;
            sha.threads = (unsigned)threads;
            break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default: return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind != 1)
        return ma_opt_error("manifest check", argc - optind ? "one manifest expected" : "no manifest given");
    const int silent = verb == V_STATUS, quiet = verb == V_QUIET || verb == V_STATUS;
    const char *manifest_path = argv[optind];
    const int from_stdin = !strcmp(manifest_path, "-");
    char shown[512];
    ma_escape_name(manifest_path, shown, sizeof shown);
    char *dir_owned = NULL;
    if (!dir) {
        /* Paths are relative to the manifest's directory; for standard input, as for sha256sum,
         * to the current directory. */
        dir_owned = strdup(from_stdin ? "." : manifest_path);
        if (!dir_owned) {
            fail("out of memory");
            return MA_EXIT_INTERNAL;
        }
        char *slash = strrchr(dir_owned, '/');
        if (from_stdin)
            ;
        else if (!slash)
            strcpy(dir_owned, ".");
        else if (slash == dir_owned)
            slash[1] = '\0';
        else
            *slash = '\0';
        dir = dir_owned;
    }

    ma_error err;
    ma_error_clear(&err);
    ma_manifest m = {0};
    ma_audit *audit = NULL;
    ma_audit_chunks *rec = NULL;
    int *have_rec = NULL, *rcs = NULL;
    ma_error *errs = NULL;
    ma_file_digest *dig = NULL;
    char **full = NULL, **listed = NULL, **sorted = NULL;
    size_t n_listed = 0;
    char *ex[N_EXCLUDES] = {0};
    int status = MA_EXIT_OK;
    size_t n_failed = 0, n_unreadable = 0, n_missing = 0, n_ok = 0, n_extra = 0;

    int rc = ma_manifest_read(&m, manifest_path, &err);
    if (rc != MA_OK) {
        fail(err.msg);
        status = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
        goto done;
    }
    const char *mname = from_stdin ? "(standard input)" : shown;
    if (verb == V_WARN)
        for (size_t i = 0; i < m.n_malformed; i++)
            fprintf(stderr, "millaudit manifest: %s: line %zu: improperly formatted SHA-256 checksum line\n", mname,
                    m.malformed[i]);
    if (m.n == 0) {
        fprintf(stderr, "millaudit manifest: %s: no properly formatted SHA-256 checksum lines found\n", mname);
        status = MA_EXIT_BAD_INPUT;
        goto done;
    }
    rec = calloc(m.n, sizeof *rec);
    have_rec = calloc(m.n, sizeof *have_rec);
    rcs = calloc(m.n, sizeof *rcs);
    errs = calloc(m.n, sizeof *errs);
    dig = calloc(m.n, sizeof *dig);
    full = calloc(m.n, sizeof *full);
    if (!rec || !have_rec || !rcs || !errs || !dig || !full) {
        fail("out of memory");
        status = MA_EXIT_INTERNAL;
        goto done;
    }
    if (audit_path) {
        rc = ma_audit_open_readonly(&audit, audit_path, &err);
        if (rc != MA_OK) {
            fail(err.msg);
            status = rc == MA_ENOMEM ? MA_EXIT_INTERNAL : MA_EXIT_BAD_INPUT;
            goto done;
        }
        for (size_t i = 0; i < m.n; i++) {
            rc = ma_audit_manifest_chunks_find(audit, &rec[i], m.lines[i].path, m.lines[i].sha256, &err);
            if (rc == MA_OK) {
                have_rec[i] = 1;
                if (!sha.chunk_size)
                    sha.chunk_size = rec[i].chunk_size; /* hash as the store did, so chunks compare */
            } else if (rc != MA_EMISSING) {
                fail(err.msg);
                status = MA_EXIT_BAD_INPUT;
                goto done;
            }
        }
    }
    /* Chunk digests only matter for files the store can pin; without any, hash at full speed. */
    sha.whole_only = 1;
    for (size_t i = 0; i < m.n; i++)
        if (have_rec[i])
            sha.whole_only = 0;
    for (size_t i = 0; i < m.n; i++)
        if (!(full[i] = join_path(dir, m.lines[i].path))) {
            fail("out of memory");
            status = MA_EXIT_INTERNAL;
            goto done;
        }
    struct byte_progress bp;
    start_progress(&bp, &sha, silent, "manifest check", full, m.n);
    rc = ma_sha256_files(dig, rcs, errs, (const char *const *)full, m.n, &sha, &err);
    if (rc == MA_ENOMEM || rc == MA_EINTERNAL || rc == MA_EINVAL) {
        fail(err.msg);
        status = ma_exit_code_for(rc);
        goto done;
    }
    for (size_t i = 0; i < m.n; i++) {
        const ma_manifest_line *ln = &m.lines[i];
        char line[2048];
        line[0] = '\0';
        int is_failure = 1;
        if (rcs[i] == MA_EMISSING) {
            if (ignore_missing)
                continue;
            n_missing++;
            snprintf(line, sizeof line, ": MISSING");
        } else if (rcs[i] != MA_OK) {
            if (!silent)
                fail(errs[i].msg);
            n_unreadable++;
            snprintf(line, sizeof line, ": FAILED open or read");
        } else if (memcmp(dig[i].digest, ln->sha256, MA_SHA256_LEN) != 0) {
            n_failed++;
            snprintf(line, sizeof line, ": FAILED");
            if (have_rec[i])
                pin_chunks(line, sizeof line, &dig[i], &rec[i]);
        } else {
            n_ok++;
            is_failure = 0;
            snprintf(line, sizeof line, ": OK");
        }
        if (!silent && (is_failure || !quiet)) {
            print_name(stdout, ln->name);
            puts(line);
        }
    }
    /* Files in the directory that the manifest does not list. */
    if (!ignore_extra) {
        rc = collect_excludes(ex, dir, manifest_path, audit_path, &err);
        if (rc == MA_OK)
            rc = ma_manifest_list(&listed, &n_listed, dir, (const char *const *)ex, N_EXCLUDES, &err);
        /* a shard manifest lists its shard: the other shards' files are not extra */
        if (rc == MA_OK && m.shard_count)
            rc = keep_shard(dir, listed, &n_listed, m.shard_index, m.shard_count, &err);
        if (rc != MA_OK) {
            fail(err.msg);
            status = MA_EXIT_BAD_INPUT;
            goto done;
        }
        sorted = calloc(m.n, sizeof *sorted);
        if (!sorted) {
            fail("out of memory");
            status = MA_EXIT_INTERNAL;
            goto done;
        }
        for (size_t i = 0; i < m.n; i++)
            sorted[i] = m.lines[i].path;
        qsort(sorted, m.n, sizeof *sorted, cmp_line_path);
        for (size_t i = 0; i < n_listed; i++) {
            if (bsearch(&listed[i], sorted, m.n, sizeof *sorted, cmp_line_path))
                continue;
            n_extra++;
            if (!silent) {
                print_name(stdout, listed[i]);
                puts(": not in manifest");
            }
        }
    }
    fflush(stdout);

    if (!silent) {
        if (m.n_malformed)
            fprintf(stderr, "millaudit manifest: WARNING: %zu line%s improperly formatted (first: line %zu)\n",
                    m.n_malformed, m.n_malformed == 1 ? " is" : "s are", m.first_malformed);
        if (n_missing)
            fprintf(stderr, "millaudit manifest: WARNING: %zu listed file%s missing\n", n_missing,
                    n_missing == 1 ? " is" : "s are");
        if (n_unreadable)
            fprintf(stderr, "millaudit manifest: WARNING: %zu listed file%s could not be read\n", n_unreadable,
                    n_unreadable == 1 ? "" : "s");
        if (n_failed)
            fprintf(stderr, "millaudit manifest: WARNING: %zu computed checksum%s did NOT match\n", n_failed,
                    n_failed == 1 ? "" : "s");
        if (n_extra)
            fprintf(stderr, "millaudit manifest: WARNING: %zu file%s in %s not in the manifest\n", n_extra,
                    n_extra == 1 ? "" : "s", dir);
    }
    if (m.n_malformed && strict) {
        /* As sha256sum --strict, every line is checked and printed first; the manifest is then
         * unusable input (exit 3 in our table, where sha256sum has only 1). */
        if (!silent)
            fprintf(stderr, "millaudit manifest: %s: line %zu: improperly formatted SHA-256 checksum line "
                            "(--strict)\n", mname, m.first_malformed);
        status = MA_EXIT_BAD_INPUT;
    } else if (n_missing || n_unreadable || n_failed || n_extra) {
        status = MA_EXIT_MISMATCH;
    } else if (ignore_missing && n_ok == 0) {
        if (!silent)
            fprintf(stderr, "millaudit manifest: %s: no file was verified\n", mname);
        status = MA_EXIT_MISMATCH;
    }
done:
    for (size_t i = 0; rec && i < m.n; i++)
        ma_audit_chunks_free(&rec[i]);
    for (size_t i = 0; dig && i < m.n; i++)
        ma_file_digest_free(&dig[i]);
    if (full)
        ma_manifest_paths_free(full, m.n);
    ma_manifest_paths_free(listed, n_listed);
    free(sorted);
    free(rec);
    free(have_rec);
    free(rcs);
    free(errs);
    free(dig);
    free_excludes(ex);
    ma_audit_close(audit);
    ma_manifest_free(&m);
    free(dir_owned);
    return status;
}

/* ---- merge ---- */

/* manifest merge --audit, before OUT is written: the directory the merged paths are relative to
 * (dir_arg, else OUT's directory, . for standard output) made absolute into root, as manifest
 * create and verify record it so runs list --root finds the run, and every listed file's size. An
 * exit code; a refusal has been printed. */
static int merge_facts(char root[PATH_MAX], uint64_t **sizes, const char *out, const char *dir_arg,
                       const ma_manifest_merged *mm)
{
    char *copy = strdup(out);
    if (!copy) {
        fail("out of memory");
        return MA_EXIT_INTERNAL;
    }
    const char *dir = dir_arg ? dir_arg : !strcmp(out, "-") ? "." : dirname(copy);
    struct stat st;
    int status = MA_EXIT_OK;
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "millaudit manifest: %s: %s\n", dir, strerror(errno));
        status = MA_EXIT_BAD_INPUT;
    } else if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "millaudit manifest: %s: not a directory\n", dir);
        status = MA_EXIT_BAD_INPUT;
    } else if (!realpath(dir, root)) {
        fprintf(stderr, "millaudit manifest: %s: %s\n", dir, strerror(errno));
        status = MA_EXIT_BAD_INPUT;
    }
    free(copy);
    if (status != MA_EXIT_OK)
        return status;
    ma_error err;
    ma_error_clear(&err);
    *sizes = calloc(mm->n ? mm->n : 1, sizeof **sizes);
    int rc = *sizes ? ma_manifest_merged_sizes(*sizes, root, mm, &err)
                    : ma_error_set(&err, MA_ENOMEM, "out of memory for %zu files", mm->n);
    if (rc != MA_OK) {
        fail(err.msg);
        return ma_exit_code_for(rc);
    }
    return MA_EXIT_OK;
}

static int cmd_merge(int argc, char **argv, const ma_cli_invocation *typed)
{
    static const struct option opts[] = {
        {"allow-partial", no_argument, NULL, 'p'}, {"audit", required_argument, NULL, 'a'},
        {"dir", required_argument, NULL, 'd'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int allow_partial = 0, c;
    const char *audit_path = NULL, *dir_arg = NULL;
    optind = 1;
    while ((c = ma_opt_next("manifest merge", argc, argv, "a:d:h", opts)) != -1) {
        switch (c) {
        case 'p': allow_partial = 1; break;
        case 'a': audit_path = optarg; break;
        case 'd': dir_arg = optarg; break;
        case 'h': usage(stdout); return MA_EXIT_OK;
        default:
            return MA_EXIT_USAGE; /* ma_opt_next said what is wrong */
        }
    }
    if (argc - optind < 2) {
        return ma_opt_error("manifest merge", "need OUT and at least one shard manifest");
    }
    if (dir_arg && !audit_path)
        return ma_opt_error("manifest merge", "--dir names where --audit takes the files' sizes; give --audit too");
    const char *out = argv[optind];
    const char *const *names = (const char *const *)argv + optind + 1;
    size_t n_in = (size_t)(argc - optind - 1);
    {
        /* OUT must be none of the shard manifests nor the store (or its side files), by name or
         * by inode; the store, written, must be none of the shard manifests */
        ma_output_input *inputs = calloc(n_in + 1, sizeof *inputs);
        if (!inputs)
            return MA_EXIT_INTERNAL;
        for (size_t k = 0; k < n_in; k++)
            inputs[k] = (ma_output_input){names[k], "a shard manifest", MA_INPUT_FILE};
        inputs[n_in] = (ma_output_input){audit_path, "the audit store", MA_INPUT_STORE};
        int refused = ma_cli_check_output("manifest merge", out, "OUT", MA_OUTPUT_DOCUMENT, inputs, n_in + 1);
        if (!refused && audit_path)
            refused = ma_cli_check_output("manifest merge", audit_path, "--audit", MA_OUTPUT_STORE, inputs, n_in);
        free(inputs);
        if (refused)
            return refused;
    }
    ma_manifest *ms = calloc(n_in, sizeof *ms);
    const ma_manifest **in = calloc(n_in, sizeof *in);
    ma_manifest_merged mm;
    memset(&mm, 0, sizeof mm);
    int64_t run_id = 0;
    ma_error err;
    ma_error_clear(&err);
    int status = MA_EXIT_OK, rc = ms && in ? MA_OK : ma_error_set(&err, MA_ENOMEM, "out of memory");
    for (size_t k = 0; rc == MA_OK && k < n_in; k++) {
        rc = ma_manifest_read(&ms[k], names[k], &err);
        in[k] = &ms[k];
    }
    if (rc == MA_OK)
        rc = ma_manifest_merge(&mm, in, names, n_in, allow_partial, &err);
    /* --audit: every fact the run needs is gathered and the store opened before OUT is written, so
     * a refused merge writes neither */
    char root[PATH_MAX];
    uint64_t *sizes = NULL;
    ma_audit *audit = NULL;
    if (rc == MA_OK && audit_path) {
        status = merge_facts(root, &sizes, out, dir_arg, &mm);
        if (status == MA_EXIT_OK && (rc = ma_audit_open(&audit, audit_path, &err)) != MA_OK) {
            status = ma_exit_code_for(rc);
            fail(err.msg);
        }
        if (status != MA_EXIT_OK)
            goto done;
    }
    int writing = rc == MA_OK;
    if (rc == MA_OK)
        rc = !strcmp(out, "-") ? ma_manifest_write_stream(stdout, "standard output", (const char *const *)mm.paths,
                                                          mm.digests, mm.n, &err)
                               : ma_manifest_write(out, (const char *const *)mm.paths, mm.digests, mm.n, &err);
    if (rc == MA_OK && audit) {
        char host[256], cmdline[8192];
        ma_cli_run_identity(host, sizeof host, cmdline, sizeof cmdline, typed->argc, typed->argv);
        const ma_run_info info = {.kind = "manifest", .tool_version = MA_VERSION, .git_revision = MA_GIT_REVISION,
                                  .host = host, .command_line = cmdline, .database_root = root};
        rc = ma_manifest_record_merged(audit, &info, strcmp(out, "-") ? out : NULL, root, &mm, sizes, &run_id, &err);
        if (rc != MA_OK) {
            status = rc == MA_EIO ? MA_EXIT_IO : ma_exit_code_for(rc);
            fail(err.msg);
            goto done;
        }
    }
    if (rc != MA_OK) {
        /* the inputs unusable: 3; the output not writable: 4 */
        status = rc == MA_EIO && !writing ? MA_EXIT_BAD_INPUT : ma_exit_code_for(rc);
        fail(err.msg);
    } else {
        FILE *info = strcmp(out, "-") ? stdout : stderr;
        fprintf(info, "%s: %zu files from %zu manifests", strcmp(out, "-") ? out : "standard output", mm.n, n_in);
        if (mm.shard_count)
            fprintf(info, " (%zu of %u shards)", (size_t)mm.shard_count - mm.n_missing, mm.shard_count);
        fputc('\n', info);
        for (size_t i = 0; i < mm.n_missing; i++)
            fprintf(stderr, "millaudit manifest: shard %u/%u missing (--allow-partial): its files are not listed\n",
                    mm.missing[i], mm.shard_count);
        if (audit_path)
            fprintf(info, "%s: run %lld recorded\n", audit_path, (long long)run_id);
    }
done:
    ma_audit_close(audit);
    free(sizes);
    ma_manifest_merged_free(&mm);
    for (size_t k = 0; ms && k < n_in; k++)
        ma_manifest_free(&ms[k]);
    free(ms);
    free(in);
    return status;
}

int ma_cmd_manifest(int argc, char **argv, const ma_cli_invocation *typed)
{
    if (argc < 2)
        return ma_opt_error("manifest", "no action given (create, check or merge)");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return MA_EXIT_OK;
    }
    if (!strcmp(argv[1], "create"))
        return cmd_create(argc - 1, argv + 1, typed);
    if (!strcmp(argv[1], "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge"))
        return cmd_merge(argc - 1, argv + 1, typed);
    return ma_opt_error("manifest", "unknown action '%s' (create, check or merge)", argv[1]);
}
