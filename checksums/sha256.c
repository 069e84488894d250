/*
 * SHA-256 of files with a worker pool (contract in checksums/sha256.h).
 *
 * Every chunk goes through up to three tasks: read it (pread into a buffer), hash it on its own
 * (the chunk digest), and feed it to its file's sequential whole-file stream, in order. The chunk
 * digest and the stream feed of one buffer are independent and run on different threads at the
 * same time, so with two threads one thread can feed the stream while the other hashes chunks and
 * both share the reads: a large file costs about one hash pass plus half a read, where a single
 * stream (openssl dgst, sha256sum) pays a hash pass plus a whole read. A file of one chunk is
 * hashed once, by the worker that reads it, piece by piece while the piece is in cache: its
 * whole-file digest is its chunk digest. A free worker takes, in this order, a
 * stream feed that is ready (the next chunk in order is read and nobody feeds the file), a chunk
 * digest of a read buffer, or the next unread chunk in list order. Buffers are bounded (threads +
 * 2); every held buffer has been read or is being read, and the next chunk a stream needs is
 * always held or claimable, so the pool cannot deadlock.
 */
#include "checksums/sha256.h"

#include "common/counts.h"
#include "common/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

/* Per chunk task state (file_state.st). */
enum {
    CH_READ = 1,      /* read (or skipped after a failure): the buffer may be hashed and fed */
    CH_HASHING = 2,   /* its chunk digest is being computed */
    CH_HASHED = 4,    /* chunk digest done (or not wanted) */
    CH_FED = 8        /* fed to the stream (or no stream: a one-chunk file) */
};

typedef struct file_state {
    const char *path;    /* as given by the caller */
    int fd;              /* open while the file is in flight, else -1 */
    int opened;          /* the claim cursor has reached this file */
    int failed;          /* an error was recorded; remaining chunks are skipped */
    int finished;        /* digest final (or failed) and resources released */
    int single;          /* one chunk: the whole-file digest is the chunk digest, no stream */
    size_t n_chunks;     /* chunks in the file */
    size_t next_seq;     /* next chunk the whole-file stream needs */
    size_t n_done;       /* chunks whose every task is done */
    size_t hash_lo;      /* chunks before it have their hash claimed: where the hash scan starts */
    int feeding;         /* a worker is feeding the stream right now */
    unsigned char *st;   /* per chunk: CH_* bits */
    uint8_t **buf;       /* per chunk: its buffer while held (NULL if skipped or released) */
    EVP_MD_CTX *ctx;     /* the whole-file stream */
} file_state;

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t buffer_freed; /* any task finished: buffers or tasks may be available */
    const EVP_MD *md;
    uint64_t chunk_size;
    int whole_only;             /* no chunk digests wanted */
    int file_per_worker;        /* with whole_only: every file is one task (read_hash_single) */
    void (*on_progress)(void *ctx, uint64_t bytes_done);
    void *progress_ctx;
    const volatile sig_atomic_t *cancel; /* the caller's stop flag, or NULL */
    uint64_t bytes_done;        /* fed into whole-file streams so far */
    file_state *files;
    size_t n_files;
    size_t cur_file, cur_chunk; /* claim cursor */
    size_t first_open;          /* files before it are finished: where the task scan starts */
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

int ma_sha256_buffer_digest(ma_file_digest *out, const void *data, size_t n, uint64_t chunk_size)
{
    memset(out, 0, sizeof *out);
    out->chunk_size = chunk_size ? chunk_size : MA_SHA256_DEFAULT_CHUNK;
    out->size = n;
    out->n_chunks = (size_t)((n + out->chunk_size - 1) / out->chunk_size);
    if (out->n_chunks && !(out->chunks = malloc(out->n_chunks * sizeof *out->chunks)))
        return MA_ENOMEM;
    const uint8_t *p = data;
    for (size_t k = 0; k < out->n_chunks; k++) {
        uint64_t off = (uint64_t)k * out->chunk_size;
        uint64_t len = n - off < out->chunk_size ? n - off : out->chunk_size;
        ma_sha256_buffer(out->chunks[k], p + off, (size_t)len);
    }
    ma_sha256_buffer(out->digest, data, n);
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
    if (p->files[f].single)
        return p->out[f].size; /* one task covers the file (at most a chunk unless file_per_worker) */
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
    if (!fs->failed && fs->ctx && !fs->single) {
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
    free(fs->st);
    free(fs->buf);
    fs->st = NULL;
    fs->buf = NULL;
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
    int code = p->cancel && *p->cancel ? ma_error_set(&e, MA_ECANCELED, "%s: interrupted", fs->path)
                                       : ma_file_open_regular(fs->path, &fs->fd, &st, &e);
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
    fs->single = fs->n_chunks == 1;
    if (p->file_per_worker && fs->n_chunks > 1) {
        fs->single = 1; /* d->n_chunks keeps its contract value; the pool claims one task */
        fs->n_chunks = 1;
    }
    fs->ctx = EVP_MD_CTX_new();
    if (fs->n_chunks) {
        if (!p->whole_only)
            d->chunks = calloc(fs->n_chunks, sizeof *d->chunks);
        fs->st = calloc(fs->n_chunks, 1);
        fs->buf = calloc(fs->n_chunks, sizeof *fs->buf);
    }
    if (!fs->ctx || (fs->n_chunks && ((!p->whole_only && !d->chunks) || !fs->st || !fs->buf))) {
        ma_error_set(&e, MA_ENOMEM, "%s: out of memory for %s", fs->path,
                     MA_COUNT(fs->n_chunks, "chunk digest", "chunk digests"));
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

/* Reads bytes [off, off + len) of file f into buf, without the lock. Returns MA_OK or fills e. */
static int read_range(pool *p, size_t f, uint64_t off, uint64_t len, uint8_t *buf, ma_error *e)
{
    const file_state *fs = &p->files[f];
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
    return MA_OK;
}

/* Reads chunk k of file f into buf, without the lock. Returns MA_OK or fills e. */
static int read_chunk(pool *p, size_t f, size_t k, uint8_t *buf, ma_error *e)
{
    return read_range(p, f, (uint64_t)k * p->chunk_size, chunk_len(p, f, k), buf, e);
}

/* The chunk digest of chunk k of a file of several chunks (one-chunk files are hashed as they are
 * read, read_hash_single), without the lock. */
static int hash_chunk(pool *p, size_t f, size_t k, const uint8_t *buf, ma_error *e)
{
    const file_state *fs = &p->files[f];
    unsigned dlen = 0;
    if (EVP_Digest(buf, (size_t)chunk_len(p, f, k), p->out[f].chunks[k], &dlen, p->md, NULL) != 1)
        return ma_error_set(e, MA_EINTERNAL, "%s: offset %llu: SHA-256 failed", fs->path,
                            (unsigned long long)((uint64_t)k * p->chunk_size));
    return MA_OK;
}

/* With the lock held: n more bytes are in whole-file digests. */
static void count_done(pool *p, uint64_t n)
{
    p->bytes_done += n;
    if (p->on_progress)
        p->on_progress(p->progress_ctx, p->bytes_done);
}

/* A one-chunk file is read and hashed in one pass, in pieces that stay in the L2 cache (as a
 * single stream does): filling the whole buffer first and hashing it afterwards would write 16 MiB
 * to memory and read it back, which on two threads made a directory of sector files hash 1.74x
 * as fast as openssl instead of nearly 2x. Without the lock; fs->ctx is free (no stream). */
#define SINGLE_PIECE ((size_t)256 << 10)
static int read_hash_single(pool *p, size_t f, uint8_t *buf, ma_error *e)
{
    const file_state *fs = &p->files[f];
    uint64_t len = chunk_len(p, f, 0), got = 0;
    if (EVP_DigestInit_ex(fs->ctx, p->md, NULL) != 1)
        return ma_error_set(e, MA_EINTERNAL, "%s: SHA-256 initialisation failed", fs->path);
    /* the buffer holds a chunk; with file_per_worker the file may be longer than one */
    size_t most = p->chunk_size < SINGLE_PIECE ? (size_t)p->chunk_size : SINGLE_PIECE;
    for (; got < len; got += most) {
        if (p->cancel && *p->cancel)
            return ma_error_set(e, MA_ECANCELED, "%s: interrupted", fs->path);
        size_t piece = len - got < most ? (size_t)(len - got) : most;
        int rc = read_range(p, f, got, piece, buf, e);
        if (rc != MA_OK)
            return rc;
        if (EVP_DigestUpdate(fs->ctx, buf, piece) != 1)
            return ma_error_set(e, MA_EINTERNAL, "%s: offset %llu: SHA-256 update failed", fs->path,
                                (unsigned long long)got);
    }
    uint8_t *dst = p->whole_only ? p->out[f].digest : p->out[f].chunks[0];
    unsigned dlen = 0;
    if (EVP_DigestFinal_ex(fs->ctx, dst, &dlen) != 1)
        return ma_error_set(e, MA_EINTERNAL, "%s: SHA-256 finalisation failed", fs->path);
    if (!p->whole_only)
        memcpy(p->out[f].digest, dst, MA_SHA256_LEN);
    return MA_OK;
}

/* With the lock held: chunk k of file f has had a task finish; release its buffer once every
 * task is done, and finish the file after its last chunk. */
static void chunk_progress(pool *p, size_t f, size_t k)
{
    file_state *fs = &p->files[f];
    if ((fs->st[k] & (CH_HASHED | CH_FED)) != (CH_HASHED | CH_FED))
        return;
    release_buffer(p, fs->buf[k]);
    fs->buf[k] = NULL;
    if (++fs->n_done == fs->n_chunks)
        file_finish(p, f);
}

/* With the lock held: the next task for a free worker. Returns 1 (feed), 2 (hash) with *tf, *tk
 * set, or 0 when there is none (then a read may be claimed). */
static int find_task(pool *p, size_t *tf, size_t *tk)
{
    int hash = 0;
    for (size_t f = p->first_open; f < p->n_files && f <= p->cur_file; f++) {
        file_state *fs = &p->files[f];
        if (!fs->opened || fs->finished)
            continue;
        /* a one-chunk file has no stream (its chunks are marked fed when read) */
        if (!fs->single && !fs->feeding && fs->next_seq < fs->n_chunks &&
            (fs->st[fs->next_seq] & CH_READ)) {
            *tf = f;
            *tk = fs->next_seq;
            return 1;
        }
        /* Linear in chunks overall: hash_lo only moves forward past chunks whose hash is claimed,
         * and the scan stops at the claim cursor; between the two lie only chunks holding a
         * buffer (read or being read), so one scan costs at most the buffers in flight. */
        while (fs->hash_lo < fs->n_chunks && (fs->st[fs->hash_lo] & (CH_HASHING | CH_HASHED)))
            fs->hash_lo++;
        size_t end = f == p->cur_file ? p->cur_chunk : fs->n_chunks;
        for (size_t k = fs->hash_lo; !hash && k < end && k < fs->n_chunks; k++)
            if ((fs->st[k] & (CH_READ | CH_HASHING | CH_HASHED)) == CH_READ) {
                *tf = f;
                *tk = k;
                hash = 2;
            }
    }
    return hash;
}

static void *worker(void *arg)
{
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->first_open < p->n_files && p->files[p->first_open].finished)
            p->first_open++;
        size_t f, k;
        ma_error e;
        int task = find_task(p, &f, &k);
        if (task == 1) {
            /* feed the stream: this chunk and every read chunk after it */
            file_state *fs = &p->files[f];
            fs->feeding = 1;
            while (fs->next_seq < fs->n_chunks && (fs->st[fs->next_seq] & CH_READ)) {
                size_t s = fs->next_seq;
                uint8_t *b = fs->buf[s];
                int failed = fs->failed;
                pthread_mutex_unlock(&p->mu);
                int ok = failed || !b || EVP_DigestUpdate(fs->ctx, b, (size_t)chunk_len(p, f, s)) == 1;
                pthread_mutex_lock(&p->mu);
                if (!ok) {
                    ma_error_set(&e, MA_EINTERNAL, "%s: offset %llu: SHA-256 update failed", fs->path,
                                 (unsigned long long)((uint64_t)s * p->chunk_size));
                    file_fail(p, f, MA_EINTERNAL, &e);
                }
                count_done(p, chunk_len(p, f, s));
                fs->next_seq++;
                fs->st[s] |= CH_FED;
                chunk_progress(p, f, s);
                pthread_cond_broadcast(&p->buffer_freed);
                if (fs->finished)
                    break;
            }
            fs->feeding = 0;
            continue;
        }
        if (task == 2) {
            file_state *fs = &p->files[f];
            fs->st[k] |= CH_HASHING;
            const uint8_t *b = fs->buf[k];
            int failed = fs->failed;
            pthread_mutex_unlock(&p->mu);
            int rc = failed || !b ? MA_OK : hash_chunk(p, f, k, b, &e);
            pthread_mutex_lock(&p->mu);
            if (rc != MA_OK)
                file_fail(p, f, rc, &e);
            fs->st[k] |= CH_HASHED;
            chunk_progress(p, f, k);
            pthread_cond_broadcast(&p->buffer_freed);
            continue;
        }
        /* claim the next unread chunk */
        while (p->cur_file < p->n_files) {
            if (!p->files[p->cur_file].opened)
                file_open(p, p->cur_file);
            if (p->cur_chunk < p->files[p->cur_file].n_chunks)
                break;
            p->cur_file++;
            p->cur_chunk = 0;
        }
        if (p->cur_file == p->n_files) {
            /* nothing left to claim: wait for tasks of chunks others are reading, or stop */
            int busy = 0;
            for (size_t g = p->first_open; g < p->n_files && !busy; g++)
                busy = p->files[g].opened && !p->files[g].finished;
            if (!busy)
                break;
            pthread_cond_wait(&p->buffer_freed, &p->mu);
            continue;
        }
        if (p->n_free == 0 && p->n_alloc == p->max_bufs) {
            pthread_cond_wait(&p->buffer_freed, &p->mu);
            continue;
        }
        f = p->cur_file;
        k = p->cur_chunk++;
        file_state *fs = &p->files[f];
        if (!fs->failed && p->cancel && *p->cancel) {
            /* stopped: the rest of this file is claimed as skipped chunks, later files fail at open */
            ma_error_set(&e, MA_ECANCELED, "%s: interrupted", fs->path);
            file_fail(p, f, MA_ECANCELED, &e);
        }
        uint8_t *buf = NULL;
        int skip = fs->failed;
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
        int single = fs->single;
        pthread_mutex_unlock(&p->mu);
        if (!skip)
            rc = single ? read_hash_single(p, f, buf, &e) : read_chunk(p, f, k, buf, &e);
        pthread_mutex_lock(&p->mu);
        if (rc != MA_OK)
            file_fail(p, f, rc, &e);
        fs->buf[k] = buf;
        fs->st[k] |= CH_READ;
        if (single) {
            /* read and hashed in one task, or nothing to hash */
            fs->st[k] |= CH_HASHED | CH_FED;
            if (!skip && !fs->failed)
                count_done(p, chunk_len(p, f, k));
            chunk_progress(p, f, k);
        } else if (p->whole_only || skip || fs->failed) {
            /* no chunk digest wanted, or nothing to hash; the stream still passes over it */
            fs->st[k] |= CH_HASHED;
        }
        pthread_cond_broadcast(&p->buffer_freed);
    }
    pthread_cond_broadcast(&p->buffer_freed);
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
    p.file_per_worker = p.whole_only && opt->file_per_worker;
    p.on_progress = opt ? opt->on_progress : NULL;
    p.progress_ctx = opt ? opt->progress_ctx : NULL;
    p.cancel = opt ? opt->cancel : NULL;
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
        rc = ma_error_set(err, MA_ENOMEM, "out of memory hashing %s", MA_COUNT(n, "file", "files"));
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

/* ---- several buffers at once ---- */

typedef struct buffers_job {
    uint8_t (*out)[MA_SHA256_LEN];
    const void *const *data;
    const size_t *len;
    const size_t *order; /* buffer numbers, largest first */
    size_t n;
    atomic_size_t next;
} buffers_job;

static void *buffers_worker(void *arg)
{
    buffers_job *j = arg;
    for (size_t k; (k = atomic_fetch_add(&j->next, 1)) < j->n;) {
        size_t i = j->order[k];
        ma_sha256_buffer(j->out[i], j->len[i] ? j->data[i] : "", j->len[i]);
    }
    return NULL;
}

int ma_sha256_buffers(uint8_t (*out)[MA_SHA256_LEN], const void *const *data, const size_t *len,
                      size_t n, unsigned threads, ma_error *err)
{
    if (n == 0)
        return MA_OK;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (threads == 0)
        threads = cpus > 0 ? (unsigned)cpus : 1;
    if (threads > n)
        threads = (unsigned)n;
    size_t *order = malloc(n * sizeof *order);
    pthread_t *tids = calloc(threads, sizeof *tids);
    if (!order || !tids) {
        free(order);
        free(tids);
        return ma_error_set(err, MA_ENOMEM, "out of memory hashing %zu buffers", n);
    }
    /* largest first, so the last buffer started is a short one (an insertion sort: n is a unit's
     * files, a handful) */
    for (size_t i = 0; i < n; i++) {
        size_t k = i;
        for (; k > 0 && len[order[k - 1]] < len[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    buffers_job j = {out, data, len, order, n, 0};
    unsigned started = 0;
    for (; started + 1 < threads; started++)
        if (pthread_create(&tids[started], NULL, buffers_worker, &j) != 0)
            break;
    buffers_worker(&j); /* this thread works too; alone if no thread could start */
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    free(order);
    free(tids);
    return MA_OK;
}
