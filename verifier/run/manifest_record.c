/* Recording manifests in the audit store (contract in manifest_record.h). */
#include "verifier/run/manifest_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/counts.h"
#include "verifier/formats/provenance.h"
#include "reports/store/audit_manifest.h"

/* A file's provenance and the strings its store row points into. */
typedef struct file_facts {
    ma_file_provenance p;
    char fingerprint[MA_SHA256_HEX_LEN + 1];
} file_facts;

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

static const char *or_null(const char *s)
{
    return *s ? s : NULL;
}

static int read_facts(file_facts *ff, const char *root, const char *rel, ma_error *err)
{
    char *path = join(root, rel);
    if (!path)
        return ma_error_set(err, MA_ENOMEM, "%s: out of memory", rel);
    ma_file_provenance_read(&ff->p, path, rel);
    free(path);
    ff->fingerprint[0] = '\0';
    if (ff->p.ruleset[0]) {
        uint8_t d[MA_SHA256_LEN];
        ma_sha256_buffer(d, ff->p.ruleset, strlen(ff->p.ruleset));
        ma_sha256_hex(ff->fingerprint, d);
    }
    return MA_OK;
}

/* The store row of rel with digests d and facts ff (which the row points into). */
static ma_audit_manifest_file file_row(const char *rel, const ma_file_digest *d, const file_facts *ff)
{
    const ma_file_provenance *p = &ff->p;
    return (ma_audit_manifest_file){
        .path = rel, .size = d->size, .sha256 = d->digest, .chunk_size = d->chunk_size,
        .n_chunks = d->n_chunks, .chunks = (const uint8_t (*)[32])d->chunks,
        .variant = or_null(p->variant), .format = or_null(p->format), .sector = or_null(p->sector),
        .producer = or_null(p->producer), .producer_version = or_null(p->producer_version),
        .has_entries = p->has_entries, .entries = p->entries, .ruleset_fingerprint = or_null(ff->fingerprint),
    };
}

int ma_manifest_record_digests(ma_audit *a, int64_t run_id, const char *root, const char *rel,
                               const ma_file_digest *d, ma_error *err)
{
    file_facts ff;
    int rc = read_facts(&ff, root, rel, err);
    if (rc == MA_OK)
        rc = ma_audit_manifest_begin(a, run_id, NULL, d->chunk_size, err);
    if (rc != MA_OK)
        return rc;
    const ma_audit_manifest_file f = file_row(rel, d, &ff);
    return ma_audit_manifest_file_add(a, run_id, &f, err);
}

int ma_manifest_record(ma_audit *a, int64_t run_id, const char *root, const char *const *rel, size_t n,
                       const ma_sha256_options *opt, ma_error *err)
{
    if (n == 0)
        return MA_OK;
    char **full = calloc(n, sizeof *full);
    ma_file_digest *d = calloc(n, sizeof *d);
    int rc = MA_OK;
    if (!full || !d)
        rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory for %s", root, MA_COUNT(n, "file", "files"));
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        if (!(full[i] = join(root, rel[i])))
            rc = ma_error_set(err, MA_ENOMEM, "%s: out of memory", rel[i]);
    if (rc == MA_OK)
        rc = ma_sha256_files(d, NULL, NULL, (const char *const *)full, n, opt, err);
    for (size_t i = 0; rc == MA_OK && i < n; i++)
        rc = ma_manifest_record_digests(a, run_id, root, rel[i], &d[i], err);
    for (size_t i = 0; d && i < n; i++)
        ma_file_digest_free(&d[i]);
    if (full)
        ma_manifest_paths_free(full, n);
    free(d);
    return rc;
}

/* Folds one file's stated variant and format into the run's: the first stated value, unless a
 * later file states another (mixed). */
static void fold(char variant[8], char format[16], int *mixed_variant, int *mixed_format,
                 const ma_file_provenance *pv)
{
    if (pv->variant[0] && strcmp(pv->variant, variant) != 0)
        *mixed_variant |= variant[0] != '\0';
    if (pv->variant[0] && !variant[0])
        memcpy(variant, pv->variant, sizeof pv->variant);
    if (pv->format[0] && strcmp(pv->format, format) != 0)
        *mixed_format |= format[0] != '\0';
    if (pv->format[0] && !format[0])
        memcpy(format, pv->format, sizeof pv->format);
}

int ma_manifest_run_provenance(char variant[8], char format[16], const char *root, const char *const *rel,
                               size_t n, ma_error *err)
{
    /* every byte defined, not only the first: the callers' arrays are uninitialized stack */
    memset(variant, 0, 8);
    memset(format, 0, 16);
    int mixed_variant = 0, mixed_format = 0;
    for (size_t i = 0; i < n; i++) {
        char *path = join(root, rel[i]);
        if (!path)
            return ma_error_set(err, MA_ENOMEM, "%s: out of memory", rel[i]);
        ma_file_provenance pv;
        ma_file_provenance_read(&pv, path, rel[i]);
        free(path);
        fold(variant, format, &mixed_variant, &mixed_format, &pv);
    }
    if (mixed_variant)
        variant[0] = '\0';
    if (mixed_format)
        format[0] = '\0';
    return MA_OK;
}

int ma_manifest_record_merged(ma_audit *a, const ma_run_info *info, const char *manifest_path, const char *root,
                              const ma_manifest_merged *m, const uint64_t *sizes, int64_t *run_id, ma_error *err)
{
    char variant[8], format[16];
    int rc = ma_manifest_run_provenance(variant, format, root, (const char *const *)m->paths, m->n, err);
    if (rc != MA_OK)
        return rc;
    ma_run_info run = *info;
    run.variant = variant[0] ? variant : NULL;
    run.format = format[0] ? format : NULL;
    file_facts *ff = calloc(m->n ? m->n : 1, sizeof *ff);
    ma_file_digest *d = calloc(m->n ? m->n : 1, sizeof *d);
    ma_audit_manifest_file *rows = calloc(m->n ? m->n : 1, sizeof *rows);
    if (!ff || !d || !rows)
        rc = ma_error_set(err, MA_ENOMEM, "out of memory for %s", MA_COUNT(m->n, "file", "files"));
    for (size_t i = 0; rc == MA_OK && i < m->n; i++) {
        /* size from the directory, digest from the shard, no chunks: nothing is hashed again */
        d[i] = (ma_file_digest){.size = sizes[i], .chunk_size = MA_SHA256_DEFAULT_CHUNK};
        memcpy(d[i].digest, m->digests[i].digest, sizeof d[i].digest);
        rc = read_facts(&ff[i], root, m->paths[i], err);
        rows[i] = file_row(m->paths[i], &d[i], &ff[i]);
    }
    if (rc == MA_OK)
        rc = ma_audit_manifest_record_run(a, &run, manifest_path, MA_SHA256_DEFAULT_CHUNK, rows, m->n, run_id, err);
    free(rows);
    free(d);
    free(ff);
    return rc;
}
