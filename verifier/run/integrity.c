/* verifier/run/integrity: every file of a database compared with what was published, and every
 * open file with its own body digest (verifier/run/integrity.h, docs/download.md). */
#include "verifier/run/integrity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/counts.h"
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checksums/dsse.h"
#include "checksums/manifest.h"
#include "checksums/published.h"
#include "common/fileio.h"
#include "verifier/formats/open_file.h"
#include "verifier/formats/source.h"
#include "verifier/run/attest.h"
#include "verifier/run/manifest_run.h"

const char *ma_integrity_source_name(int source)
{
    static const char *const names[] = {"auto", "none", "manifest", "attestation"};
    return source >= 0 && source <= MA_INTEGRITY_ATTESTATION ? names[source] : "none";
}

const char *ma_damage_kind_name(int kind)
{
    static const char *const names[] = {"missing",         "size-differs",         "content-differs",
                                        "not-in-manifest", "body-digest-mismatch", "unreadable"};
    return kind >= 0 && kind <= MA_DAMAGE_UNREADABLE ? names[kind] : "unknown";
}

/* What the reference lists: a path and what was published about it. */
typedef struct listed {
    char *path;                  /* normalised, relative to dir */
    ma_published_file pub;
} listed;

typedef struct reference {
    listed *items;
    size_t n;
    ma_manifest m;               /* a manifest's lines and chunk records (items point into it) */
    ma_attest_check att;         /* an attestation's statement */
    int have_m, have_att;
    int partial;                 /* a shard manifest: other files are another shard's, not extra */
    uint64_t chunk_size;         /* the chunk size the reference publishes digests of, 0 none */
} reference;

static void reference_free(reference *ref)
{
    free(ref->items);
    if (ref->have_m)
        ma_manifest_free(&ref->m);
    if (ref->have_att)
        ma_attest_check_free(&ref->att);
    memset(ref, 0, sizeof *ref);
}

static int read_manifest(reference *ref, const char *path, ma_error *err)
{
    char shown[1100];
    ma_escape_name(path, shown, sizeof shown);
    int rc = ma_manifest_read(&ref->m, path, err);
    if (rc)
        return rc == MA_ENOMEM || rc == MA_EMISSING ? rc : ma_manifest_as_input(rc, err);
    ref->have_m = 1;
    /* a line not understood may be a file whose digest we would not check: the manifest vouches
     * for nothing then (as manifest check --strict) */
    if (ref->m.n_malformed)
        return ma_error_set(err, MA_EFORMAT,
                            "%s: line %zu: improperly formatted SHA-256 checksum line: a manifest verify "
                            "trusts must be well-formed",
                            shown, ref->m.first_malformed);
    if (!ref->m.n)
        return ma_error_set(err, MA_EFORMAT, "%s: no properly formatted SHA-256 checksum lines found", shown);
    ref->partial = ref->m.shard_count > 0;
    if (!(ref->items = calloc(ref->m.n, sizeof *ref->items)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; i < ref->m.n; i++) {
        listed *it = &ref->items[ref->n++];
        it->path = ref->m.lines[i].path;
        memcpy(it->pub.sha256, ref->m.lines[i].sha256, MA_SHA256_LEN);
        it->pub.size = -1;
        const ma_chunk_record *cr =
            ma_chunk_record_find(ref->m.chunk_records, ref->m.n_chunk_records, ref->m.lines[i].sha256);
        if (cr) {
            it->pub.size = (int64_t)cr->size;
            it->pub.chunk_size = cr->chunk_size;
            it->pub.n_chunks = cr->n_chunks;
            it->pub.chunks = (const uint8_t(*)[MA_SHA256_LEN])cr->chunks;
            if (!ref->chunk_size)
                ref->chunk_size = cr->chunk_size;
        }
    }
    return MA_OK;
}

static int read_attestation(reference *ref, ma_vrun_integrity *pub, const char *path, const char *key_path,
                            unsigned threads, ma_error *err)
{
    char shown[1100];
    ma_escape_name(path, shown, sizeof shown);
    ma_ed25519_key *key = NULL;
    int rc = ma_ed25519_load_public(&key, key_path, err);
    if (rc)
        return rc == MA_ENOMEM ? rc : ma_manifest_as_input(rc, err);
    char *text = NULL;
    size_t len = 0;
    rc = ma_file_read_document(path, MA_DSSE_MAX_ENVELOPE, "not an attestation", &text, &len, err);
    if (rc == MA_OK) {
        rc = ma_attest_check_envelope(text, len, shown, key, NULL, threads, &ref->att, err);
        ref->have_att = 1;
    }
    free(text);
    if (rc == MA_OK)
        snprintf(pub->keyid, sizeof pub->keyid, "%s", ref->att.keyid);
    ma_ed25519_key_free(key);
    if (rc)
        return rc == MA_ENOMEM || rc == MA_EMISSING ? rc : ma_manifest_as_input(rc, err);
    if (!ref->att.signature_valid)
        return ma_error_set(err, MA_EFORMAT,
                            "%s: no signature verifies with the key %s: nothing it says is trusted, "
                            "nothing checked",
                            shown, ref->att.keyid);
    const ma_attest_statement *st = &ref->att.st;
    if (st->identity)
        snprintf(pub->signer, sizeof pub->signer, "%s", st->identity);
    if (!(ref->items = calloc(st->n_subjects + 1, sizeof *ref->items)))
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; i < st->n_subjects; i++) {
        listed *it = &ref->items[ref->n++];
        it->path = st->subjects[i].name;
        it->pub.size = st->subjects[i].size;
        if (ma_sha256_parse_hex(it->pub.sha256, st->subjects[i].sha256) != MA_OK)
            return ma_error_set(err, MA_EFORMAT, "%s: subject %s: not a SHA-256", shown, it->path);
    }
    return MA_OK;
}

/* ---- the damaged list ---- */

int ma_integrity_add(ma_integrity *g, const ma_damaged_file *d, ma_error *err)
{
    if (ma_integrity_damage(g, d->path))
        return MA_OK;
    if (g->pub.n_damaged == g->cap_damaged) {
        size_t cap = g->cap_damaged ? 2 * g->cap_damaged : 16;
        ma_damaged_file *p = realloc(g->damaged, cap * sizeof *p);
        if (!p)
            return ma_error_set(err, MA_ENOMEM, "out of memory");
        g->damaged = p;
        g->cap_damaged = cap;
    }
    g->damaged[g->pub.n_damaged++] = *d;
    g->pub.damaged = g->damaged;
    g->pub.refetch += d->refetch != 0;
    return MA_OK;
}

const ma_damaged_file *ma_integrity_damage(const ma_integrity *g, const char *rel)
{
    for (size_t i = 0; i < g->pub.n_damaged; i++)
        if (!strcmp(g->damaged[i].path, rel))
            return &g->damaged[i];
    return NULL;
}

const ma_file_digest *ma_integrity_digest(const ma_integrity *g, const char *rel)
{
    for (size_t i = 0; i < g->n_files; i++)
        if (g->files[i].rc == MA_OK && !strcmp(g->files[i].path, rel))
            return &g->files[i].digest;
    return NULL;
}

static void damage_init(ma_damaged_file *d, const char *path, int kind)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    d->kind = kind;
    d->refetch = kind != MA_DAMAGE_NOT_LISTED;
    d->size = d->published_size = -1;
}

static int from_diff(ma_integrity *g, const char *path, const ma_published_diff *diff, ma_error *err)
{
    static const int kinds[] = {-1, MA_DAMAGE_MISSING, MA_DAMAGE_SIZE, MA_DAMAGE_CONTENT, MA_DAMAGE_UNREADABLE};
    ma_damaged_file d;
    damage_init(&d, path, kinds[diff->status]);
    d.size = diff->size;
    d.published_size = diff->published_size;
    d.chunk_size = diff->chunk_size;
    d.n_ranges = diff->n_ranges;
    d.more_ranges = diff->more_ranges;
    memcpy(d.first_byte, diff->first_byte, sizeof d.first_byte);
    memcpy(d.last_byte, diff->last_byte, sizeof d.last_byte);
    ma_published_describe(diff, d.detail, sizeof d.detail);
    return ma_integrity_add(g, &d, err);
}

/* ---- judging the listed files ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_excluded(const char *rel, char *const *ex, size_t n_ex)
{
    for (size_t i = 0; i < n_ex; i++)
        if (ex[i] && !strcmp(ex[i], rel))
            return 1;
    return 0;
}

/* The relative paths of dir never judged: what manifest create never lists, and the caller's. */
static int excludes(char ***out, size_t *n_out, const ma_integrity_options *opt, const char *manifest,
                    ma_error *err)
{
    *out = NULL;
    *n_out = 0;
    char *std_ex[MA_MANIFEST_N_EXCLUDES];
    int rc = ma_manifest_excludes(std_ex, opt->dir, manifest ? manifest : "-", NULL, err);
    if (rc)
        return rc;
    size_t cap = MA_MANIFEST_N_EXCLUDES + 4 * opt->n_exclude + 1, n = 0;
    char **ex = calloc(cap, sizeof *ex);
    if (!ex) {
        ma_manifest_excludes_free(std_ex);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < MA_MANIFEST_N_EXCLUDES; i++) {
        ex[n++] = std_ex[i];
        std_ex[i] = NULL;
    }
    static const char *const side[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; rc == MA_OK && i < opt->n_exclude; i++) {
        if (!opt->exclude[i] || !strcmp(opt->exclude[i], "-"))
            continue;
        for (size_t k = 0; rc == MA_OK && k < 4; k++) {
            char buf[4200];
            snprintf(buf, sizeof buf, "%.4000s%s", opt->exclude[i], side[k]);
            char *rel = NULL;
            /* a path whose directory does not exist is not inside dir */
            if (ma_manifest_relative(&rel, opt->dir, buf, err) == MA_OK && rel)
                ex[n++] = rel;
        }
    }
    *out = ex;
    *n_out = n;
    return MA_OK;
}

/* Hashes the listed files and compares each with what was published. */
static int judge_listed(ma_integrity *g, const reference *ref, const ma_integrity_options *opt, char *const *ex,
                        size_t n_ex, ma_error *err)
{
    size_t n = 0;
    g->files = calloc(ref->n + 1, sizeof *g->files);
    char **full = calloc(ref->n + 1, sizeof *full);
    int *rcs = calloc(ref->n + 1, sizeof *rcs);
    ma_error *errs = calloc(ref->n + 1, sizeof *errs);
    ma_file_digest *dg = calloc(ref->n + 1, sizeof *dg);
    const listed **which = calloc(ref->n + 1, sizeof *which);
    int rc = g->files && full && rcs && errs && dg && which ? MA_OK : ma_error_set(err, MA_ENOMEM, "out of memory");
    for (size_t i = 0; rc == MA_OK && i < ref->n; i++) {
        const listed *it = &ref->items[i];
        if (is_excluded(it->path, ex, n_ex) || (opt->only && strcmp(it->path, opt->only)))
            continue;
        which[n] = it;
        if (!(full[n++] = ma_manifest_join(opt->dir, it->path)))
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    if (rc == MA_OK && n) {
        ma_sha256_options o = {0};
        o.threads = opt->threads;
        o.cancel = opt->cancel;
        /* chunk digests only where the reference publishes some to compare them with; without,
         * the chunk size only sizes the read buffers (threads + 2 of them): 1 MiB ones keep this
         * pass from adding 64 MiB to a verify's peak RSS, as the hash before the first open does */
        o.chunk_size = ref->chunk_size ? ref->chunk_size : 1u << 20;
        o.whole_only = ref->chunk_size == 0;
        o.file_per_worker = o.whole_only;
        if (opt->progress)
            ma_progress_set_label(opt->progress, "integrity: hashing the files");
        int hrc = ma_sha256_files(dg, rcs, errs, (const char *const *)full, n, &o, err);
        if (hrc == MA_ENOMEM || hrc == MA_EINTERNAL)
            rc = hrc;
        else if (opt->cancel && *opt->cancel)
            rc = ma_error_set(err, MA_ECANCELED, "interrupted");
    }
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        ma_integrity_file *f = &g->files[g->n_files++];
        if (!(f->path = strdup(which[i]->path))) {
            rc = ma_error_set(err, MA_ENOMEM, "out of memory");
            break;
        }
        f->rc = rcs[i];
        if (rcs[i] == MA_OK) {
            f->digest = dg[i];
            memset(&dg[i], 0, sizeof dg[i]);
        }
        ma_published_diff diff;
        ma_published_compare(&which[i]->pub, &f->digest, f->rc, &diff);
        g->pub.files++;
        if (diff.status == MA_PUBLISHED_INTACT)
            g->pub.intact++;
        else
            rc = from_diff(g, which[i]->path, &diff, err);
    }
    for (size_t i = 0; full && i < n; i++) {
        free(full[i]);
        if (dg)
            ma_file_digest_free(&dg[i]);
    }
    free(full);
    free(rcs);
    free(errs);
    free(dg);
    free(which);
    return rc;
}

/* Database files at the top of dir that the reference does not list. Only the top is listed:
 * verify reads nothing below it (verifier/formats/source.h), so a subdirectory is no part of the
 * database and is never opened here (a volume's root-only lost+found refuses no run); a file in
 * one is judged only when the reference lists it (judge_listed). */
static int judge_unlisted(ma_integrity *g, const reference *ref, const ma_integrity_options *opt, char *const *ex,
                          size_t n_ex, ma_error *err)
{
    char **paths = NULL;
    size_t n = 0;
    int rc = ma_manifest_list_top(&paths, &n, opt->dir, (const char *const *)ex, n_ex, err);
    if (rc)
        return rc == MA_ENOMEM ? rc : ma_manifest_as_input(rc, err);
    char **sorted = calloc(ref->n + 1, sizeof *sorted);
    if (!sorted) {
        ma_manifest_paths_free(paths, n);
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < ref->n; i++)
        sorted[i] = ref->items[i].path;
    qsort(sorted, ref->n, sizeof *sorted, cmp_str);
    const char *what = ref->have_att ? "not in the attestation" : "not in the manifest";
    for (size_t i = 0; rc == MA_OK && i < n; i++) {
        if (!ma_database_file_like(paths[i]) || (opt->only && strcmp(paths[i], opt->only)) ||
            bsearch(&paths[i], sorted, ref->n, sizeof *sorted, cmp_str))
            continue;
        ma_damaged_file d;
        damage_init(&d, paths[i], MA_DAMAGE_NOT_LISTED);
        snprintf(d.detail, sizeof d.detail, "%s", what);
        g->pub.files++;
        rc = ma_integrity_add(g, &d, err);
    }
    free(sorted);
    ma_manifest_paths_free(paths, n);
    return rc;
}

/* ---- what open files state about themselves ---- */

/* One open file mapped for its body check. */
typedef struct body_job {
    const char *name;
    void *map;
    size_t map_size;
    ma_open_header h;
} body_job;

/* Reads name's header; a file whose size is not what its header's entry count needs is damaged
 * (size), one recording a body digest is mapped into *job for the hash. Files that are no open
 * file of ours, or cannot be read, are left to the reader (it names what is wrong). */
static int body_prepare(ma_integrity *g, const ma_integrity_options *opt, const char *name, body_job *job,
                        ma_error *err)
{
    memset(job, 0, sizeof *job);
    char *path = ma_manifest_join(opt->dir, name);
    if (!path)
        return ma_error_set(err, MA_ENOMEM, "out of memory");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    free(path);
    struct stat st;
    uint8_t h[MA_OPEN_HEADER_SIZE];
    if (fd < 0)
        return MA_OK;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h ||
        ma_open_header_identify(h, &job->h) != MA_OK || job->h.entry_width != 2 ||
        job->h.entry_count > ((uint64_t)1 << 40)) {
        close(fd);
        return MA_OK;
    }
    ma_variant nv;
    ma_sector ns;
    /* a header naming no valid sector is malformed, not another sector's: the reader says so */
    if (ma_open_file_name_parse(name, &nv, &ns) == MA_OK && ma_sector_valid(job->h.variant, job->h.sector) &&
        (nv != job->h.variant || !ma_sector_equal(ns, job->h.sector))) {
        /* a whole file intact by its own digest, but another sector's: a transfer that put the
         * wrong file under this name */
        close(fd);
        ma_damaged_file d;
        damage_init(&d, name, MA_DAMAGE_CONTENT);
        d.size = (int64_t)st.st_size;
        char sec[16];
        ma_sector_format(job->h.sector, sec, sizeof sec);
        snprintf(d.detail, sizeof d.detail, "offset 14: content differs: another sector's file (its header names %s_%s)",
                 ma_variant_name(job->h.variant), sec);
        g->pub.body_checked++;
        return ma_integrity_add(g, &d, err);
    }
    uint64_t want = MA_OPEN_HEADER_SIZE + 2 * job->h.entry_count;
    if ((uint64_t)st.st_size != want) {
        close(fd);
        ma_damaged_file d;
        damage_init(&d, name, MA_DAMAGE_SIZE);
        d.size = (int64_t)st.st_size;
        char a[32], b[32];
        ma_num(a, sizeof a, (uint64_t)st.st_size);
        ma_num(b, sizeof b, want);
        snprintf(d.detail, sizeof d.detail, "offset 24: size differs: %s bytes, its header's entry count needs %s (%s)",
                 a, b, (uint64_t)st.st_size < want ? "truncated" : "extended");
        g->pub.body_checked++;
        return ma_integrity_add(g, &d, err);
    }
    if (!job->h.has_body_digest) {
        close(fd);
        g->pub.undigested++; /* nothing to tell its damage from a wrong value by */
        return MA_OK;
    }
    void *map = mmap(NULL, (size_t)want, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return MA_OK;
    job->name = name;
    job->map = map;
    job->map_size = (size_t)want;
    return MA_OK;
}

/* Hashes the bodies of jobs[0..n) at once and records the files whose body differs. */
static int body_finish(ma_integrity *g, const ma_integrity_options *opt, body_job *jobs, size_t n, ma_error *err)
{
    const void *data[64];
    size_t len[64];
    uint8_t dg[64][MA_SHA256_LEN];
    size_t m = 0;
    int rc = MA_OK;
    for (size_t i = 0; i < n; i++)
        if (jobs[i].map) {
            data[m] = (const uint8_t *)jobs[i].map + MA_OPEN_HEADER_SIZE;
            len[m++] = jobs[i].map_size - MA_OPEN_HEADER_SIZE;
        }
    if (m)
        rc = ma_sha256_buffers(dg, data, len, m, opt->threads, err);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!jobs[i].map)
            continue;
        if (rc == MA_OK) {
            g->pub.body_checked++;
            if (memcmp(dg[k], jobs[i].h.body_digest, MA_SHA256_LEN)) {
                ma_damaged_file d;
                damage_init(&d, jobs[i].name, MA_DAMAGE_BODY_DIGEST);
                d.size = (int64_t)jobs[i].map_size;
                snprintf(d.detail, sizeof d.detail,
                         "body differs from the SHA-256 its header records (offset 80): not the bytes its "
                         "producer wrote");
                rc = ma_integrity_add(g, &d, err);
            }
        }
        k++;
        munmap(jobs[i].map, jobs[i].map_size);
        jobs[i].map = NULL;
    }
    return rc;
}

static int judge_bodies(ma_integrity *g, const ma_integrity_options *opt, ma_error *err)
{
    body_job jobs[64];
    size_t n = 0;
    int rc = MA_OK;
    if (opt->progress && opt->n_open_files)
        ma_progress_set_label(opt->progress, "integrity: body digests");
    for (size_t i = 0; rc == MA_OK && i < opt->n_open_files; i++) {
        if (ma_integrity_damage(g, opt->open_files[i]))
            continue; /* the reference found it damaged already */
        if (opt->cancel && *opt->cancel)
            return ma_error_set(err, MA_ECANCELED, "interrupted");
        rc = body_prepare(g, opt, opt->open_files[i], &jobs[n], err);
        if (rc == MA_OK && jobs[n].map)
            n++;
        /* not after an error: the batch's result would overwrite it, and a file whose body was
         * never checked would pass for checked */
        if (rc == MA_OK && (n == 64 || (n && i + 1 == opt->n_open_files))) {
            rc = body_finish(g, opt, jobs, n, err);
            n = 0;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (jobs[i].map)
            munmap(jobs[i].map, jobs[i].map_size);
    return rc;
}

int ma_integrity_check(ma_integrity *out, const ma_integrity_options *opt, ma_error *err)
{
    memset(out, 0, sizeof *out);
    ma_vrun_integrity *pub = &out->pub;
    pub->reference = out->reference; /* "" until a reference is read */
    int source = opt->source;
    char auto_path[4200];
    const char *manifest = opt->manifest;
    if (source == MA_INTEGRITY_AUTO) {
        snprintf(auto_path, sizeof auto_path, "%.4000s/MANIFEST.sha256", opt->dir);
        struct stat st;
        if (!opt->only && stat(auto_path, &st) == 0) {
            source = MA_INTEGRITY_MANIFEST;
            manifest = auto_path;
        } else {
            source = MA_INTEGRITY_NONE;
            snprintf(pub->why_none, sizeof pub->why_none, "no MANIFEST.sha256 in the database directory");
        }
    } else if (source == MA_INTEGRITY_NONE) {
        snprintf(pub->why_none, sizeof pub->why_none, "--no-manifest");
    }
    pub->source = source;
    reference ref;
    memset(&ref, 0, sizeof ref);
    int rc = MA_OK;
    if (source == MA_INTEGRITY_MANIFEST) {
        snprintf(out->reference, sizeof out->reference, "%.4000s", manifest);
        rc = read_manifest(&ref, manifest, err);
    } else if (source == MA_INTEGRITY_ATTESTATION) {
        snprintf(out->reference, sizeof out->reference, "%s", opt->attestation);
        rc = read_attestation(&ref, pub, opt->attestation, opt->pub, opt->threads, err);
    }
    if (rc == MA_OK && source != MA_INTEGRITY_NONE) {
        char **ex = NULL;
        size_t n_ex = 0;
        rc = excludes(&ex, &n_ex, opt, source == MA_INTEGRITY_MANIFEST ? manifest : opt->attestation, err);
        if (rc == MA_OK)
            rc = judge_listed(out, &ref, opt, ex, n_ex, err);
        if (rc == MA_OK && !ref.partial)
            rc = judge_unlisted(out, &ref, opt, ex, n_ex, err);
        ma_manifest_paths_free(ex, n_ex);
    }
    if (rc == MA_OK)
        rc = judge_bodies(out, opt, err);
    reference_free(&ref);
    return rc;
}

void ma_integrity_free(ma_integrity *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n_files; i++) {
        free(g->files[i].path);
        ma_file_digest_free(&g->files[i].digest);
    }
    free(g->files);
    free(g->damaged);
    memset(g, 0, sizeof *g);
}
