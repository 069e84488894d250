/*
 * SHA-256 of files with a worker pool (contract in checksums/sha256.h).
 *
 * The pool hands out (file, chunk) units in list order. A worker takes a free buffer, preads the
 * chunk, hashes it on its own for the chunk digest, then offers it to the file's sequential stream:
 * if it is the next chunk in order and nobody is feeding that file, it feeds it and every chunk that
 * was parked waiting behind it; otherwise it parks the buffer and claims more work. Units are claimed
 * in order, so every parked chunk's predecessors are held by running workers and the pool cannot
 * deadlock on buffers.
 */
#include "checksums/sha256.h"

#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

typedef struct file_state {
    const char *path;    /* as given by the caller */
    int fd;              /* open while the file is in flight, else -1 */
    int opened;          /* the claim cursor has reached this file */
    int failed;          /* an error was recorded; remaining chunks are skipped */
    int finished;        /* digest final (or failed) and resources released */
    size_t n_chunks;     /* chunks in the file */
    size_t next_seq;     /* next chunk the whole-file stream needs */
    int feeding;         /* a worker is feeding the stream right now */
    unsigned char *ready;  /* per chunk: read and waiting (or skipped) */
    uint8_t **parked;    /* per chunk: its buffer while waiting to be fed (NULL if skipped) */
    EVP_MD_CTX *ctx;     /* the whole-file stream */
} file_state;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t buffer_freed;
    const EVP_MD *md;
    uint64_t chunk_size;
    int whole_only;             /* no chunk digests wanted */
    void (*on_progress)(void *ctx, uint64_t bytes_done);
    void *progress_ctx;
    uint64_t bytes_done;        /* fed into whole-file streams so far */
    file_state *files;
    size_t n_files;
    size_t cur_file, cur_chunk; /* claim cursor */
    uint8_t **free_bufs;        /* stack of free buffers */
    size_t n_free, n_alloc, max_bufs;
    ma_file_digest *out;
    int *rcs;
    ma_error *errs;
} pool;

void ma_sha256_buffer(uint8_t out[MA_SHA256_LEN], const void *data, size_t n)
{
    unsigned len = 0;
    EVP_Digest(data, n, out, &len, EVP_sha256(), NULL);
}

void ma_sha256_hex(char out[MA_SHA256_HEX_LEN + 1], const uint8_t digest[MA_SHA256_LEN])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < MA_SHA256_LEN; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    out[MA_SHA256_HEX_LEN] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int ma_sha256_parse_hex(uint8_t out[MA_SHA256_LEN], const char *hex)
{
    for (int i = 0; i < MA_SHA256_LEN; i++) {
        int hi = hexval(hex[2 * i]);
        int lo = hi < 0 ? -1 : hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return MA_EFORMAT;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return MA_OK;
}

void ma_file_digest_free(ma_file_digest *d)
{
    if (d) {
        free(d->chunks);
        memset(d, 0, sizeof *d);
    }
}

static uint64_t chunk_len(const pool *p, size_t f, size_t k)
{
    uint64_t off = (uint64_t)k * p->chunk_size;
    uint64_t left = p->out[f].size - off;
    return left < p->chunk_size ? left : p->chunk_size;
}

/* Called with the lock held. Records the first error of file f. */
static void file_fail(pool *p, size_t f, int code, const ma_error *e)
{
    file_state *fs = &p->files[f];
    if (fs->failed)
        return;
    fs->failed = 1;
    if (p->rcs)
        p->rcs[f] = code;
    if (p->errs)
        p->errs[f] = *e;
}

/* Called with the lock held, once every chunk has been fed or skipped. */
static void file_finish(pool *p, size_t f)
{
    file_state *fs = &p->files[f];
    if (fs->finished)
        return;
    fs->finished = 1;
    if (!fs->failed && fs->ctx) {
        unsigned len = 0;
        if (EVP_DigestFinal_ex(fs->ctx, p->out[f].digest, &len) != 1) {
            ma_error e;
            ma_error_set(&e, MA_EINTERNAL, "%s: SHA-256 finalisation failed", fs->path);
            file_fail(p, f, MA_EINTERNAL, &e);
        }
    }
    if (fs->failed) {
        free(p->out[f].chunks);
        memset(&p->out[f], 0, sizeof p->out[f]);
    }
    if (fs->fd >= 0)
        close(fs->fd);
    fs->fd = -1;
    EVP_MD_CTX_free(fs->ctx);
    fs->ctx = NULL;
    free(fs->ready);
    free(fs->parked);
    fs->ready = NULL;
    fs->parked = NULL;
}

/* Called with the lock held when the claim cursor reaches file f. */
static void file_open(pool *p, size_t f)
{
    file_state *fs = &p->files[f];
    ma_file_digest *d = &p->out[f];
    ma_error e;
    fs->opened = 1;
    d->chunk_size = p->chunk_size;
    struct stat st;
    int code = ma_file_open_regular(fs->path, &fs->fd, &st, &e);
    if (code) {
        file_fail(p, f, code, &e);
        file_finish(p, f);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        ma_error_set(&e, MA_EFORMAT, "%s: offset 0: not a regular file", fs->path);
        file_fail(p, f, MA_EFORMAT, &e);
        file_finish(p, f);
        return;
    }
    d->size = (uint64_t)st.st_size;
    fs->n_chunks = (size_t)((d->size + p->chunk_size - 1) / p->chunk_size);
    d->n_chunks = fs->n_chunks;
    fs->ctx = EVP_MD_CTX_new();
    if (fs->n_chunks) {
        if (!p->whole_only)
            d->chunks = calloc(fs->n_chunks, sizeof *d->chunks);
        fs->ready = calloc(fs->n_chunks, 1);
        fs->parked = calloc(fs->n_chunks, sizeof *fs->parked);
    }
    if (!fs->ctx || (fs->n_chunks && ((!p->whole_only && !d->chunks) || !fs->ready || !fs->parked))) {
        ma_error_set(&e, MA_ENOMEM, "%s: out of memory for %zu chunk digests", fs->path, fs->n_chunks);
        file_fail(p, f, MA_ENOMEM, &e);
        fs->n_chunks = 0; /* nothing to claim */
        file_finish(p, f);
        return;
    }
    if (EVP_DigestInit_ex(fs->ctx, p->md, NULL) != 1) {
        ma_error_set(&e, MA_EINTERNAL, "%s: SHA-256 initialisation failed", fs->path);
        file_fail(p, f, MA_EINTERNAL, &e);
    }
    posix_fadvise(fs->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (fs->n_chunks == 0)
        file_finish(p, f);
}

static void release_buffer(pool *p, uint8_t *buf)
{
    if (buf) {
        p->free_bufs[p->n_free++] = buf;
        pthread_cond_signal(&p->buffer_freed);
    }
}

/* Reads and hashes one chunk without the lock. Returns MA_OK or fills e. */
static int read_chunk(pool *p, size_t f, size_t k, uint8_t *buf, ma_error *e)
{
    const file_state *fs = &p->files[f];
    uint64_t len = chunk_len(p, f, k);
    uint64_t off = (uint64_t)k * p->chunk_size;
    uint64_t got = 0;
    while (got < len) {
        ssize_t r = pread(fs->fd, buf + got, (size_t)(len - got), (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return ma_error_set(e, MA_EIO, "%s: offset %llu: read error: %s", fs->path,
                                (unsigned long long)(off + got), strerror(errno));
        }
        if (r == 0)
            return ma_error_set(e, MA_EIO, "%s: offset %llu: file shrank while being read (size was %llu)",
                                fs->path, (unsigned long long)(off + got),
                                (unsigned long long)p->out[f].size);
        got += (uint64_t)r;
    }
    unsigned dlen = 0;
    if (!p->whole_only && EVP_Digest(buf, (size_t)len, p->out[f].chunks[k], &dlen, p->md, NULL) != 1)
        return ma_error_set(e, MA_EINTERNAL, "%s: offset %llu: SHA-256 failed", fs->path,
                            (unsigned long long)off);
    return MA_OK;
}

static void *worker(void *arg)
{
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->cur_file < p->n_files) {
            if (!p->files[p->cur_file].opened)
                file_open(p, p->cur_file);
            if (p->cur_chunk < p->files[p->cur_file].n_chunks)
                break;
            p->cur_file++;
            p->cur_chunk = 0;
        }
        if (p->cur_file == p->n_files)
            break;
        if (p->n_free == 0 && p->n_alloc == p->max_bufs) {
            pthread_cond_wait(&p->buffer_freed, &p->mu);
            continue;
        }
        size_t f = p->cur_file, k = p->cur_chunk++;
        file_state *fs = &p->files[f];
        uint8_t *buf = NULL;
        int skip = fs->failed;
        ma_error e;
        int rc = MA_OK;
        if (!skip) {
            if (p->n_free)
                buf = p->free_bufs[--p->n_free];
            else if ((buf = malloc((size_t)p->chunk_size)) != NULL)
                p->n_alloc++;
            if (!buf) {
                rc = ma_error_set(&e, MA_ENOMEM, "%s: offset %llu: out of memory for a chunk buffer",
                                  fs->path, (unsigned long long)((uint64_t)k * p->chunk_size));
                skip = 1;
            }
        }
        pthread_mutex_unlock(&p->mu);
        if (!skip)
            rc = read_chunk(p, f, k, buf, &e);
        pthread_mutex_lock(&p->mu);
        if (rc != MA_OK)
            file_fail(p, f, rc, &e);
        fs->ready[k] = 1;
        fs->parked[k] = buf;
        if (fs->feeding || fs->next_seq != k)
            continue; /* parked: the worker feeding this file, or the one holding next_seq, takes it */
        fs->feeding = 1;
        while (fs->next_seq < fs->n_chunks && fs->ready[fs->next_seq]) {
            size_t s = fs->next_seq;
            uint8_t *b = fs->parked[s];
            fs->parked[s] = NULL;
            int failed = fs->failed;
            pthread_mutex_unlock(&p->mu);
            int ok = failed || !b || EVP_DigestUpdate(fs->ctx, b, (size_t)chunk_len(p, f, s)) == 1;
            pthread_mutex_lock(&p->mu);
            if (!ok) {
                ma_error_set(&e, MA_EINTERNAL, "%s: offset %llu: SHA-256 update failed", fs->path,
                             (unsigned long long)((uint64_t)s * p->chunk_size));
                file_fail(p, f, MA_EINTERNAL, &e);
            }
            release_buffer(p, b);
            p->bytes_done += chunk_len(p, f, s);
            if (p->on_progress)
                p->on_progress(p->progress_ctx, p->bytes_done);
            fs->next_seq++;
        }
        fs->feeding = 0;
        if (fs->next_seq == fs->n_chunks)
            file_finish(p, f);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int ma_sha256_files(ma_file_digest *out, int *rcs, ma_error *errs, const char *const *paths, size_t n,
                    const ma_sha256_options *opt, ma_error *err)
{
    uint64_t chunk = opt && opt->chunk_size ? opt->chunk_size : MA_SHA256_DEFAULT_CHUNK;
    if (chunk > MA_SHA256_MAX_CHUNK)
        return ma_error_set(err, MA_EINVAL, "chunk size %llu exceeds the maximum %u",
                            (unsigned long long)chunk, MA_SHA256_MAX_CHUNK);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = opt && opt->threads ? opt->threads : (cpus > 0 ? (unsigned)cpus : 1);
    if (threads > 256)
        threads = 256;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (rcs)
            rcs[i] = MA_OK;
        if (errs)
            ma_error_clear(&errs[i]);
    }
    if (n == 0)
        return MA_OK;

    pool p;
    memset(&p, 0, sizeof p);
    p.chunk_size = chunk;
    p.whole_only = opt && opt->whole_only;
    p.on_progress = opt ? opt->on_progress : NULL;
    p.progress_ctx = opt ? opt->progress_ctx : NULL;
    p.n_files = n;
    p.out = out;
    p.rcs = rcs ? rcs : calloc(n, sizeof *rcs);
    p.errs = errs ? errs : calloc(n, sizeof *errs);
    p.max_bufs = threads + 2;
    p.files = calloc(n, sizeof *p.files);
    p.free_bufs = calloc(p.max_bufs, sizeof *p.free_bufs);
    EVP_MD *md = EVP_MD_fetch(NULL, "SHA256", NULL);
    p.md = md;
    pthread_t *tids = calloc(threads, sizeof *tids);
    int rc = MA_OK;
    if (!p.rcs || !p.errs || !p.files || !p.free_bufs || !tids)
        rc = ma_error_set(err, MA_ENOMEM, "out of memory hashing %zu files", n);
    else if (!md)
        rc = ma_error_set(err, MA_EINTERNAL, "OpenSSL has no SHA256 implementation");
    if (rc == MA_OK) {
        for (size_t i = 0; i < n; i++) {
            p.files[i].path = paths[i];
            p.files[i].fd = -1;
        }
        pthread_mutex_init(&p.mu, NULL);
        pthread_cond_init(&p.buffer_freed, NULL);
        unsigned started = 0;
        for (; started < threads; started++)
            if (pthread_create(&tids[started], NULL, worker, &p) != 0)
                break;
        if (started == 0)
            worker(&p); /* no thread could start: do the work here */
        for (unsigned t = 0; t < started; t++)
            pthread_join(tids[t], NULL);
        pthread_cond_destroy(&p.buffer_freed);
        pthread_mutex_destroy(&p.mu);
        for (size_t i = 0; i < n; i++) {
            if (!p.files[i].finished) { /* cannot happen; keeps an invariant break visible */
                ma_error e;
                ma_error_set(&e, MA_EINTERNAL, "%s: hashing did not complete", paths[i]);
                file_fail(&p, i, MA_EINTERNAL, &e);
                file_finish(&p, i);
            }
            if (rc == MA_OK && p.rcs[i] != MA_OK) {
                rc = p.rcs[i];
                if (err)
                    *err = p.errs[i];
            }
        }
    }
    for (size_t i = 0; i < p.n_free; i++)
        free(p.free_bufs[i]);
    EVP_MD_free(md);
    free(tids);
    free(p.free_bufs);
    free(p.files);
    if (!rcs)
        free(p.rcs);
    if (!errs)
        free(p.errs);
    return rc;
}

int ma_sha256_file(ma_file_digest *out, const char *path, const ma_sha256_options *opt, ma_error *err)
{
    return ma_sha256_files(out, NULL, NULL, &path, 1, opt, err);
}
