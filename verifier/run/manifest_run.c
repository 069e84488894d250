/* The manifest create and merge engines, and what they share with check (contracts in
 * include/millaudit/manifest.h and verifier/run/manifest_run.h). */
#include "verifier/run/manifest_run.h"

#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checksums/manifest.h"
#include "common/output.h"
#include "checksums/sha256.h"
#include "common/counts.h"
#include "verifier/formats/source.h"
#include "ma_version.h"
#include "verifier/run/manifest_record.h"
#include "verifier/run/shard.h"
#include "reports/store/audit.h"
#include "reports/store/audit_manifest.h"

/* the public header spells the chunk sizes out (it may not include checksums/) */
_Static_assert(MA_MANIFEST_DEFAULT_CHUNK == MA_SHA256_DEFAULT_CHUNK, "default chunk size");
_Static_assert(MA_MANIFEST_MAX_CHUNK == MA_SHA256_MAX_CHUNK, "largest chunk size");

/* ---- shared ---- */

char *ma_manifest_join(const char *dir, const char *rel)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", dir, rel);
    return s;
}

int ma_manifest_as_input(int rc, ma_error *err)
{
    if (rc == MA_EIO)
        rc = err->code = MA_EFORMAT;
    return rc;
}

int ma_manifest_excludes(char *ex[MA_MANIFEST_N_EXCLUDES], const char *dir, const char *manifest,
                         const char *audit, ma_error *err)
{
    memset(ex, 0, MA_MANIFEST_N_EXCLUDES * sizeof ex[0]);
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

void ma_manifest_excludes_free(char *ex[MA_MANIFEST_N_EXCLUDES])
{
    for (int i = 0; i < MA_MANIFEST_N_EXCLUDES; i++)
        free(ex[i]);
}

int ma_manifest_keep_shard(const char *dir, char **rel, size_t *n, unsigned index, unsigned count,
                           ma_error *err)
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

void ma_manifest_on_bytes(void *watch, uint64_t done)
{
    ma_manifest_hash_watch *w = watch;
    if (w->on_hashed)
        w->on_hashed(w->ctx);
    ma_progress_update(w->progress, done);
}

void ma_manifest_progress_total(ma_progress *p, char *const *paths, size_t n)
{
    if (!p)
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
    }
    ma_progress_set_total(p, total);
}

/* The directory a manifest describes: it must exist and be a directory. */
int ma_manifest_dir_check(const char *dir, ma_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return ma_error_set(err, errno == ENOENT || errno == ENOTDIR ? MA_EMISSING : MA_EFORMAT, "%s: %s", dir,
                            strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ma_error_set(err, MA_EFORMAT, "%s: not a directory", dir);
    return MA_OK;
}

/* The audit store's run facts of a manifest run over root. */
static ma_run_info run_info(const ma_manifest_identity *id, const char *root)
{
    return (ma_run_info){.kind = "manifest", .tool_version = MA_VERSION, .git_revision = MA_GIT_REVISION,
                         .host = id->host, .command_line = id->command_line, .database_root = root};
}

/* ---- create ---- */

char *ma_manifest_default_path(const char *dir, unsigned shard_index, unsigned shard_count)
{
    char name[64];
    if (shard_count)
        snprintf(name, sizeof name, "MANIFEST.shard-%u-of-%u.sha256", shard_index, shard_count);
    else
        snprintf(name, sizeof name, "MANIFEST.sha256");
    return ma_manifest_join(dir, name);
}

int ma_manifest_is_manifest_file(const char *path)
{
    return ma_manifest_looks_like(path);
}

/* What one create holds while it works. */
typedef struct create_job {
    const ma_manifest_create_options *opt;
    const ma_manifest_test_hooks *hooks; /* or NULL */
    char *ex[MA_MANIFEST_N_EXCLUDES];
    char **rel, **full;
    size_t n;
    ma_file_digest *dig;
    ma_audit *audit;
    int64_t run_id;
    int in_run;
} create_job;

/* The sorted files of the directory (of the shard), and their paths to open. */
static int create_list(create_job *j, ma_manifest_created *out, ma_error *err)
{
    const ma_manifest_create_options *opt = j->opt;
    int rc = ma_manifest_excludes(j->ex, opt->dir, opt->out, opt->audit_path, err);
    if (rc != MA_OK)
        return rc; /* the output's directory is unusable */
    /* A killed earlier create left its temporary file: ours to remove, as no one else will. */
    if (!ma_output_is_stdout(opt->out) && (rc = ma_manifest_remove_stale_temps(opt->out, &out->stale_removed, err)) != MA_OK)
        return rc;
    if (opt->audit_path && (rc = ma_audit_open(&j->audit, opt->audit_path, err)) != MA_OK)
        return rc;
    rc = ma_manifest_list(&j->rel, &j->n, opt->dir, (const char *const *)j->ex, MA_MANIFEST_N_EXCLUDES, err);
    if (rc != MA_OK)
        return ma_manifest_as_input(rc, err);
    if (opt->shard_count &&
        (rc = ma_manifest_keep_shard(opt->dir, j->rel, &j->n, opt->shard_index, opt->shard_count, err)) != MA_OK)
        return rc;
    j->full = calloc(j->n ? j->n : 1, sizeof *j->full);
    j->dig = calloc(j->n ? j->n : 1, sizeof *j->dig);
    if (!j->full || !j->dig)
        return ma_error_set(err, MA_ENOMEM, "out of memory for %s", MA_COUNT(j->n, "file", "files"));
    for (size_t i = 0; i < j->n; i++)
        if (!(j->full[i] = ma_manifest_join(opt->dir, j->rel[i])))
            return ma_error_set(err, MA_ENOMEM, "out of memory");
    return MA_OK;
}

/* Begins the store's run: its variant and format are those the files state, when they all agree. */
static int create_begin_run(create_job *j, ma_error *err)
{
    char variant[8], format[16], root[PATH_MAX];
    int rc = ma_manifest_run_provenance(variant, format, j->opt->dir, (const char *const *)j->rel, j->n, err);
    if (rc != MA_OK)
        return rc;
    /* the absolute root, as verify records it, so runs list --root finds manifest runs too */
    if (!realpath(j->opt->dir, root))
        snprintf(root, sizeof root, "%s", j->opt->dir);
    ma_run_info info = run_info(&j->opt->identity, root);
    info.variant = variant[0] ? variant : NULL;
    info.format = format[0] ? format : NULL;
    rc = ma_audit_run_begin(j->audit, &info, &j->run_id, err);
    j->in_run = rc == MA_OK;
    return rc;
}

static int create_hash(create_job *j, ma_manifest_created *out, ma_error *err)
{
    const ma_manifest_create_options *opt = j->opt;
    ma_manifest_hash_watch watch = {opt->progress, j->hooks ? j->hooks->on_hashed : NULL,
                                    j->hooks ? j->hooks->ctx : NULL};
    ma_sha256_options sha = {.chunk_size = opt->chunk_size ? opt->chunk_size : MA_SHA256_DEFAULT_CHUNK,
                             .threads = opt->threads, .cancel = opt->cancel,
                             .on_progress = ma_manifest_on_bytes, .progress_ctx = &watch};
    ma_manifest_progress_total(opt->progress, j->full, j->n);
    int rc = ma_sha256_files(j->dig, NULL, NULL, (const char *const *)j->full, j->n, &sha, err);
    if (opt->cancel && *opt->cancel) {
        /* SIGINT/SIGTERM: no manifest is written, the run is recorded as interrupted */
        out->signal = (int)*opt->cancel;
        return ma_error_set(err, MA_ECANCELED, "interrupted by signal %d: no manifest written", out->signal);
    }
    /* A file that cannot be read is unusable input; nothing is written. */
    if (rc != MA_OK && rc != MA_ENOMEM && rc != MA_EINTERNAL)
        rc = err->code = MA_EFORMAT;
    return rc;
}

static int create_write(create_job *j, ma_manifest_created *out, ma_error *err)
{
    const ma_manifest_create_options *opt = j->opt;
    char header[64] = "";
    if (opt->shard_count)
        ma_manifest_shard_header(header, sizeof header, opt->shard_index, opt->shard_count);
    int to_stdout = !strcmp(opt->out, "-");
    int rc = ma_manifest_write_chunked(to_stdout ? NULL : opt->out, opt->out_stream,
                                       to_stdout ? "standard output" : opt->out, header[0] ? header : NULL,
                                       opt->chunk_lines, (const char *const *)j->rel, j->dig, j->n, err);
    if (rc == MA_OK && j->audit) {
        rc = ma_audit_manifest_begin(j->audit, j->run_id, opt->out,
                                     opt->chunk_size ? opt->chunk_size : MA_SHA256_DEFAULT_CHUNK, err);
        for (size_t i = 0; rc == MA_OK && i < j->n; i++)
            rc = ma_manifest_record_digests(j->audit, j->run_id, opt->dir, j->rel[i], &j->dig[i], err);
    }
    if (rc != MA_OK)
        return rc;
    out->files = j->n;
    for (size_t i = 0; i < j->n; i++)
        out->bytes += j->dig[i].size;
    out->run_id = j->run_id;
    return MA_OK;
}

int ma_manifest_create(ma_manifest_created *out, const ma_manifest_create_options *opt, ma_error *err)
{
    return ma_manifest_create_hooked(out, opt, NULL, err);
}

int ma_manifest_create_hooked(ma_manifest_created *out, const ma_manifest_create_options *opt,
                              const ma_manifest_test_hooks *h, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opt->dir || !opt->out || (!strcmp(opt->out, "-") && !opt->out_stream))
        return ma_error_set(err, MA_EINVAL, "manifest create: no directory, output or output stream given");
    create_job j = {.opt = opt, .hooks = h};
    int rc = ma_manifest_dir_check(opt->dir, err);
    if (rc == MA_OK)
        rc = create_list(&j, out, err);
    if (rc == MA_OK && j.audit)
        rc = create_begin_run(&j, err);
    if (rc == MA_OK)
        rc = create_hash(&j, out, err);
    if (rc == MA_OK)
        rc = create_write(&j, out, err);
    if (j.in_run) {
        ma_error e2;
        const char *how = rc == MA_OK ? "ok" : out->signal ? "interrupted" : "unusable";
        if (ma_audit_run_end(j.audit, j.run_id, how, &e2) != MA_OK && rc == MA_OK)
            rc = ma_error_set(err, MA_EIO, "%s", e2.msg);
    }
    ma_audit_close(j.audit);
    for (size_t i = 0; j.dig && i < j.n; i++)
        ma_file_digest_free(&j.dig[i]);
    free(j.dig);
    if (j.full)
        ma_manifest_paths_free(j.full, j.n);
    ma_manifest_paths_free(j.rel, j.n);
    ma_manifest_excludes_free(j.ex);
    return rc;
}

/* ---- merge ---- */

/* manifest merge --audit, before OUT is written: the directory the merged paths are relative to
 * (opt->dir, else OUT's directory, . for standard output) made absolute into root, as create and
 * verify record it so runs list --root finds the run, and every listed file's size. */
static int merge_facts(char root[PATH_MAX], uint64_t **sizes, const ma_manifest_merge_options *opt,
                       const ma_manifest_merged *mm, ma_error *err)
{
    char *copy = strdup(opt->out);
    if (!copy)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    const char *dir = opt->dir ? opt->dir : ma_output_is_stdout(opt->out) ? "." : dirname(copy);
    int rc = ma_manifest_dir_check(dir, err);
    if (rc == MA_OK && !realpath(dir, root))
        rc = ma_error_set(err, MA_EFORMAT, "%s: %s", dir, strerror(errno));
    free(copy);
    if (rc != MA_OK)
        return rc;
    *sizes = calloc(mm->n ? mm->n : 1, sizeof **sizes);
    return *sizes ? ma_manifest_merged_sizes(*sizes, root, mm, err)
                  : ma_error_set(err, MA_ENOMEM, "out of memory for %s", MA_COUNT(mm->n, "file", "files"));
}

/* Reads and merges the inputs; the merged manifest into *mm. */
static int merge_inputs(ma_manifest_merged *mm, const ma_manifest_merge_options *opt, ma_error *err)
{
    size_t n = opt->n_inputs;
    ma_manifest *ms = calloc(n ? n : 1, sizeof *ms);
    const ma_manifest **in = calloc(n ? n : 1, sizeof *in);
    int rc = ms && in ? MA_OK : ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t k = 0; rc == MA_OK && k < n; k++) {
        rc = ma_manifest_read(&ms[k], opt->inputs[k], err);
        in[k] = &ms[k];
    }
    if (rc == MA_OK)
        rc = ma_manifest_merge(mm, in, opt->inputs, n, opt->allow_partial, err);
    for (size_t k = 0; ms && k < n; k++)
        ma_manifest_free(&ms[k]);
    free(ms);
    free(in);
    return ma_manifest_as_input(rc, err);
}

int ma_manifest_merge_run(ma_manifest_merged_info *out, const ma_manifest_merge_options *opt, ma_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opt->out || (!strcmp(opt->out, "-") && !opt->out_stream))
        return ma_error_set(err, MA_EINVAL, "manifest merge: no output or output stream given");
    ma_manifest_merged mm;
    memset(&mm, 0, sizeof mm);
    char root[PATH_MAX];
    uint64_t *sizes = NULL;
    ma_audit *audit = NULL;
    int rc = merge_inputs(&mm, opt, err);
    /* with a store, every fact the run needs is gathered and the store opened before OUT is
     * written, so a refused merge writes neither */
    if (rc == MA_OK && opt->audit_path) {
        rc = merge_facts(root, &sizes, opt, &mm, err);
        if (rc == MA_OK)
            rc = ma_audit_open(&audit, opt->audit_path, err);
    }
    const int to_stdout = !strcmp(opt->out, "-");
    if (rc == MA_OK)
        rc = to_stdout ? ma_manifest_write_stream(opt->out_stream, "standard output", (const char *const *)mm.paths,
                                                  mm.digests, mm.n, err)
                       : ma_manifest_write(opt->out, (const char *const *)mm.paths, mm.digests, mm.n, err);
    if (rc == MA_OK && audit) {
        const ma_run_info info = run_info(&opt->identity, root);
        rc = ma_manifest_record_merged(audit, &info, to_stdout ? NULL : opt->out, root, &mm, sizes, &out->run_id,
                                       err);
    }
    if (rc == MA_OK) {
        out->files = mm.n;
        out->shard_count = mm.shard_count;
        out->n_missing = mm.n_missing;
        out->missing = mm.missing;
        mm.missing = NULL;
    }
    ma_audit_close(audit);
    free(sizes);
    ma_manifest_merged_free(&mm);
    return rc;
}

void ma_manifest_merged_info_free(ma_manifest_merged_info *m)
{
    if (!m)
        return;
    free(m->missing);
    memset(m, 0, sizeof *m);
}
