/* The manifest check engine (contract in include/millaudit/manifest.h): hash what a manifest
 * lists, classify every file, find the unlisted ones, pin FAILED files to their changed bytes. */
#include "verifier/run/manifest_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksums/manifest.h"
#include "checksums/published.h"
#include "checksums/sha256.h"
#include "common/fileio.h"
#include "reports/store/audit.h"
#include "reports/store/audit_manifest.h"

struct ma_manifest_check {
    ma_manifest m;                   /* the manifest as read */
    char shown[512];                 /* its path as messages name it */
    char *dir;                       /* the directory its paths are relative to */
    ma_manifest_check_summary summary;
    ma_manifest_file_result *files;  /* the manifest's files, then the extra ones */
    size_t n_files;
    ma_error *errs;                  /* per manifest line: why an unreadable file was */
    char **listed;                   /* the directory's files (the extra ones point in here) */
    size_t n_listed;
};

/* What one check holds while it hashes. */
typedef struct check_job {
    const ma_manifest_test_hooks *hooks; /* or NULL */
    ma_audit *audit;
    ma_audit_chunks *rec;            /* per line: the store's chunk digests, when have_rec */
    int *have_rec, *rcs;
    ma_file_digest *dig;
    char **full;
} check_job;

/* The directory a manifest's paths are relative to by default: its own (. for standard input,
 * as for sha256sum). */
static char *default_dir(const char *manifest_path)
{
    if (!strcmp(manifest_path, "-"))
        return strdup(".");
    char *d = strdup(manifest_path);
    if (!d)
        return NULL;
    char *slash = strrchr(d, '/');
    if (!slash)
        strcpy(d, ".");
    else if (slash == d)
        slash[1] = '\0';
    else
        *slash = '\0';
    return d;
}

/* Reads the store's chunk digests of every listed file it recorded with the listed digest. */
static int find_recorded(ma_manifest_check *c, check_job *j, const char *audit_path, ma_sha256_options *sha,
                         ma_error *err)
{
    int rc = ma_audit_open_readonly(&j->audit, audit_path, err);
    if (rc != MA_OK)
        return ma_manifest_as_input(rc, err);
    for (size_t i = 0; i < c->m.n; i++) {
        rc = ma_audit_manifest_chunks_find(j->audit, &j->rec[i], c->m.lines[i].path, c->m.lines[i].sha256, err);
        if (rc == MA_OK) {
            j->have_rec[i] = 1;
            if (!sha->chunk_size)
                sha->chunk_size = j->rec[i].chunk_size; /* hash as the store did, so chunks compare */
        } else if (rc != MA_EMISSING) {
            return err->code = MA_EFORMAT;
        }
    }
    return MA_OK;
}

/* Where a FAILED file changed: the runs of chunks whose digests differ from the store's. */
static void pin(ma_manifest_file_result *f, const ma_file_digest *d, const ma_audit_chunks *rec)
{
    f->pinned = 1;
    f->size = d->size;
    f->recorded_size = rec->size;
    f->recorded_chunk_size = rec->chunk_size;
    if (rec->chunk_size != d->chunk_size) {
        f->chunk_size_differs = 1;
        return;
    }
    uint64_t c = d->chunk_size, end_all = d->size > rec->size ? d->size : rec->size;
    ma_chunk_range r[MA_MANIFEST_MAX_PINNED];
    size_t found = ma_chunk_ranges_differing((const uint8_t(*)[MA_SHA256_LEN])d->chunks, d->n_chunks,
                                             (const uint8_t(*)[MA_SHA256_LEN])rec->chunks, rec->n_chunks, r,
                                             MA_MANIFEST_MAX_PINNED);
    f->n_ranges = found < MA_MANIFEST_MAX_PINNED ? found : MA_MANIFEST_MAX_PINNED;
    f->more_ranges = found - f->n_ranges;
    for (size_t i = 0; i < f->n_ranges; i++) {
        uint64_t lo = (uint64_t)r[i].first * c, hi = (uint64_t)r[i].end * c;
        if (hi > end_all)
            hi = end_all;
        f->ranges[i] = (ma_manifest_byte_range){lo, hi - 1, r[i].first, r[i].end - 1};
    }
}

/* Classifies line i from its hashing result. Returns 0 when the line is skipped (ignore_missing). */
static int classify(ma_manifest_check *c, const check_job *j, size_t i, int ignore_missing)
{
    const ma_manifest_line *ln = &c->m.lines[i];
    ma_manifest_file_result *f = &c->files[c->n_files];
    ma_manifest_check_summary *s = &c->summary;
    memset(f, 0, sizeof *f);
    f->path = ln->path;
    f->name = ln->name;
    if (j->rcs[i] == MA_EMISSING) {
        if (ignore_missing)
            return 0;
        f->status = MA_MANIFEST_FILE_MISSING;
        s->missing++;
    } else if (j->rcs[i] != MA_OK) {
        f->status = MA_MANIFEST_FILE_UNREADABLE;
        f->error = c->errs[i].msg;
        s->unreadable++;
    } else if (memcmp(j->dig[i].digest, ln->sha256, MA_SHA256_LEN) != 0) {
        f->status = MA_MANIFEST_FILE_FAILED;
        s->failed++;
        const ma_chunk_record *cr = ma_chunk_record_find(c->m.chunk_records, c->m.n_chunk_records, ln->sha256);
        if (j->have_rec[i]) {
            pin(f, &j->dig[i], &j->rec[i]);
        } else if (cr) { /* the manifest's own chunk line (manifest create --chunks) */
            ma_audit_chunks rec = {0, cr->size, cr->chunk_size, cr->n_chunks, cr->chunks};
            pin(f, &j->dig[i], &rec);
        }
    } else {
        f->status = MA_MANIFEST_FILE_OK;
        s->ok++;
    }
    c->n_files++;
    return 1;
}

/* Hashes every listed file and classifies it. */
static int check_listed(ma_manifest_check *c, check_job *j, const ma_manifest_check_options *opt, ma_error *err)
{
    size_t n = c->m.n;
    j->rec = calloc(n, sizeof *j->rec);
    j->have_rec = calloc(n, sizeof *j->have_rec);
    j->rcs = calloc(n, sizeof *j->rcs);
    j->dig = calloc(n, sizeof *j->dig);
    j->full = calloc(n, sizeof *j->full);
    c->errs = calloc(n, sizeof *c->errs);
    c->files = calloc(n, sizeof *c->files);
    if (!j->rec || !j->have_rec || !j->rcs || !j->dig || !j->full || !c->errs || !c->files)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_manifest_hash_watch watch = {opt->progress, j->hooks ? j->hooks->on_hashed : NULL,
                                    j->hooks ? j->hooks->ctx : NULL};
    ma_sha256_options sha = {.threads = opt->threads, .on_progress = ma_manifest_on_bytes, .progress_ctx = &watch};
    int rc = opt->audit_path ? find_recorded(c, j, opt->audit_path, &sha, err) : MA_OK;
    if (rc != MA_OK)
        return rc;
    /* Chunk digests only matter for files the store or the manifest's chunk lines can pin;
     * without any, hash at full speed. */
    sha.whole_only = 1;
    for (size_t i = 0; i < n; i++)
        if (j->have_rec[i])
            sha.whole_only = 0;
    if (sha.whole_only && c->m.n_chunk_records) {
        sha.whole_only = 0;
        sha.chunk_size = c->m.chunk_records[0].chunk_size;
    }
    for (size_t i = 0; i < n; i++)
        if (!(j->full[i] = ma_manifest_join(c->dir, c->m.lines[i].path)))
            return ma_error_set(err, MA_ENOMEM, "out of memory");
    ma_manifest_progress_total(opt->progress, j->full, n);
    rc = ma_sha256_files(j->dig, j->rcs, c->errs, (const char *const *)j->full, n, &sha, err);
    if (rc == MA_ENOMEM || rc == MA_EINTERNAL || rc == MA_EINVAL)
        return rc;
    for (size_t i = 0; i < n; i++)
        classify(c, j, i, opt->ignore_missing);
    return MA_OK;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in the directory that the manifest does not list (of its shard, for a shard manifest: the
 * other shards' files are not extra). */
static int find_extra(ma_manifest_check *c, const ma_manifest_check_options *opt, ma_error *err)
{
    char *ex[MA_MANIFEST_N_EXCLUDES];
    int rc = ma_manifest_excludes(ex, c->dir, opt->manifest, opt->audit_path, err);
    if (rc == MA_OK)
        rc = ma_manifest_list(&c->listed, &c->n_listed, c->dir, (const char *const *)ex, MA_MANIFEST_N_EXCLUDES,
                              err);
    ma_manifest_excludes_free(ex);
    if (rc == MA_OK && c->m.shard_count)
        rc = ma_manifest_keep_shard(c->dir, c->listed, &c->n_listed, c->m.shard_index, c->m.shard_count, err);
    if (rc != MA_OK)
        return rc == MA_ENOMEM ? rc : (err->code = MA_EFORMAT);
    const char **sorted = calloc(c->m.n, sizeof *sorted);
    ma_manifest_file_result *files = realloc(c->files, (c->n_files + c->n_listed + 1) * sizeof *files);
    if (files)
        c->files = files;
    if (!sorted || !files) {
        free(sorted);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < c->m.n; i++)
        sorted[i] = c->m.lines[i].path;
    qsort(sorted, c->m.n, sizeof *sorted, cmp_path);
    for (size_t i = 0; i < c->n_listed; i++) {
        if (bsearch(&c->listed[i], sorted, c->m.n, sizeof *sorted, cmp_path))
            continue;
        c->files[c->n_files++] = (ma_manifest_file_result){
            .path = c->listed[i], .name = c->listed[i], .status = MA_MANIFEST_FILE_EXTRA};
        c->summary.extra++;
    }
    free(sorted);
    return MA_OK;
}

/* The verdict of a check whose files are all classified. */
static void decide(ma_manifest_check *c, int strict, int ignore_missing)
{
    ma_manifest_check_summary *s = &c->summary;
    if (s->malformed && strict) {
        /* As sha256sum --strict, every line is checked first; the manifest is then unusable
         * input (where sha256sum has only a failure). */
        s->strict_refused = 1;
        s->verdict = MA_VERDICT_INCOMPLETE;
    } else if (s->missing || s->unreadable || s->failed || s->extra) {
        s->verdict = MA_VERDICT_DISCREPANCIES;
    } else if (ignore_missing && s->ok == 0) {
        s->nothing_verified = 1;
        s->verdict = MA_VERDICT_DISCREPANCIES;
    } else {
        s->verdict = MA_VERDICT_VERIFIED;
    }
}

static void free_job(check_job *j, size_t n)
{
    for (size_t i = 0; j->rec && i < n; i++)
        ma_audit_chunks_free(&j->rec[i]);
    for (size_t i = 0; j->dig && i < n; i++)
        ma_file_digest_free(&j->dig[i]);
    if (j->full)
        ma_manifest_paths_free(j->full, n);
    free(j->rec);
    free(j->have_rec);
    free(j->rcs);
    free(j->dig);
    ma_audit_close(j->audit);
}

int ma_manifest_check_run(ma_manifest_check **out, const ma_manifest_check_options *opt, ma_error *err)
{
    return ma_manifest_check_run_hooked(out, opt, NULL, err);
}

int ma_manifest_check_run_hooked(ma_manifest_check **out, const ma_manifest_check_options *opt,
                                 const ma_manifest_test_hooks *h, ma_error *err)
{
    *out = NULL;
    if (!opt->manifest)
        return ma_error_set(err, MA_EINVAL, "manifest check: no manifest given");
    ma_manifest_check *c = calloc(1, sizeof *c);
    if (!c || !(c->dir = opt->dir ? strdup(opt->dir) : default_dir(opt->manifest))) {
        free(c);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    const int from_stdin = !strcmp(opt->manifest, "-");
    ma_escape_name(opt->manifest, c->shown, sizeof c->shown);
    ma_manifest_check_summary *s = &c->summary;
    s->manifest = from_stdin ? "(standard input)" : c->shown;
    s->dir = c->dir;
    s->verdict = MA_VERDICT_INCOMPLETE;
    int rc = ma_manifest_read(&c->m, opt->manifest, err);
    if (rc != MA_OK) {
        ma_manifest_check_free(c);
        return rc == MA_ENOMEM ? rc : ma_manifest_as_input(rc, err);
    }
    *out = c; /* from here on the caller sees what was read, e.g. the malformed lines */
    s->malformed = c->m.n_malformed;
    s->malformed_lines = c->m.malformed;
    if (c->m.n == 0)
        return ma_error_set(err, MA_EFORMAT, "%s: no properly formatted SHA-256 checksum lines found", s->manifest);
    check_job j = {.hooks = h};
    rc = check_listed(c, &j, opt, err);
    free_job(&j, c->m.n);
    if (rc == MA_OK && !opt->ignore_extra)
        rc = find_extra(c, opt, err);
    if (rc == MA_OK)
        decide(c, opt->strict, opt->ignore_missing);
    return rc;
}

const ma_manifest_check_summary *ma_manifest_check_summary_of(const ma_manifest_check *c)
{
    return &c->summary;
}

size_t ma_manifest_check_files(const ma_manifest_check *c)
{
    return c->n_files;
}

const ma_manifest_file_result *ma_manifest_check_file(const ma_manifest_check *c, size_t i)
{
    return i < c->n_files ? &c->files[i] : NULL;
}

void ma_manifest_check_free(ma_manifest_check *c)
{
    if (!c)
        return;
    ma_manifest_paths_free(c->listed, c->n_listed);
    free(c->files);
    free(c->errs);
    free(c->dir);
    ma_manifest_free(&c->m);
    free(c);
}
