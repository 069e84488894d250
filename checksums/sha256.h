/*
 * SHA-256 of files: the whole-file digest and the digest of every fixed-size chunk, in one pass.
 *
 * Files are read with pread in chunks (16 MiB by default) by a pool of worker threads. Each chunk
 * goes through three tasks that any worker may take: read it, compute its chunk digest, and feed it
 * (in order) to the file's sequential whole-file SHA-256 stream. The chunk digest and the stream
 * feed of one buffer run at the same time on different workers, so with two threads one feeds the
 * stream while the other hashes chunks and both share the reads: a large file costs about one hash
 * pass plus half a read on two cores, a single-stream tool one pass plus a whole read. A file of
 * one chunk is hashed once (its whole-file digest is its chunk digest), by the worker that reads
 * it, in pieces hashed while they are in cache, so a directory of many sector files spreads over
 * the threads with no second pass and no round trip through memory. Several files are in flight at once:
 * workers claim unread chunks in list order.
 *
 * ma_sha256_buffers hashes buffers already in memory (mappings) the same way: one thread per buffer.
 *
 * Memory is bounded: at most threads + 2 chunk buffers exist at any time (each chunk_size bytes),
 * plus 32 bytes per chunk for the chunk digests. SHA-256 itself is OpenSSL libcrypto's EVP API.
 *
 * A file's size is taken when it is opened; a file that shrinks while read is an error (MA_EIO,
 * naming the file and offset). Errors are per file: one unreadable file does not stop the others.
 */
#ifndef MA_SHA256_H
#define MA_SHA256_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include "common/ma_error.h"

#define MA_SHA256_LEN 32
#define MA_SHA256_HEX_LEN 64
#define MA_SHA256_DEFAULT_CHUNK (16u * 1024u * 1024u)
#define MA_SHA256_MAX_CHUNK (1024u * 1024u * 1024u)

typedef struct ma_sha256_options {
    uint64_t chunk_size; /* bytes per chunk; 0 = MA_SHA256_DEFAULT_CHUNK; at most MA_SHA256_MAX_CHUNK */
    unsigned threads;    /* worker threads; 0 = number of online CPUs */
    int whole_only;      /* non-zero: skip the chunk digests (chunks stays NULL), half the CPU work */
    /* Non-zero, with whole_only: each file is read and hashed by one worker, several files at
     * once. A whole-file digest is one sequential stream, so files streamed one after another
     * keep one core busy; spread over the workers, a set of files takes about as long as its
     * largest. Progress and cancel are then seen per 256 KiB piece, not per chunk. */
    int file_per_worker;
    /* Optional: called with the bytes hashed so far (all files) after each chunk; calls are
     * serialised (made under the pool's lock), so the callback must be quick and not re-enter. */
    void (*on_progress)(void *ctx, uint64_t bytes_done);
    void *progress_ctx;
    /* Optional: when *cancel becomes non-zero (a signal handler's flag), no further chunk is read:
     * files not finished fail with MA_ECANCELED ("interrupted"), the call returns soon. */
    const volatile sig_atomic_t *cancel;
} ma_sha256_options;

/* The digests of one file. Owned by the caller; release with ma_file_digest_free. */
typedef struct ma_file_digest {
    uint64_t size;                  /* bytes hashed (the size when the file was opened) */
    uint64_t chunk_size;            /* chunk size used */
    uint8_t digest[MA_SHA256_LEN];  /* SHA-256 of the whole file */
    size_t n_chunks;                /* ceil(size / chunk_size); 0 for an empty file */
    uint8_t (*chunks)[MA_SHA256_LEN]; /* NULL with whole_only; chunk k covers [k*chunk_size, min((k+1)*chunk_size, size)) */
} ma_file_digest;

/* SHA-256 of a memory buffer. */
void ma_sha256_buffer(uint8_t out[MA_SHA256_LEN], const void *data, size_t n);

/* The digests of a file's bytes already in memory, as ma_sha256_file would give them for a file of
 * those bytes: the whole digest and one per chunk (chunk_size 0: MA_SHA256_DEFAULT_CHUNK). For a
 * file read once and parsed from memory, so the digest recorded is of the bytes parsed. MA_OK or
 * MA_ENOMEM; release with ma_file_digest_free. */
int ma_sha256_buffer_digest(ma_file_digest *out, const void *data, size_t n, uint64_t chunk_size);

/* Lowercase hex of a digest, NUL-terminated (65 bytes). */
void ma_sha256_hex(char out[MA_SHA256_HEX_LEN + 1], const uint8_t digest[MA_SHA256_LEN]);

/* Parses 64 hex digits (either case) into a digest; returns 0 or MA_EFORMAT. */
int ma_sha256_parse_hex(uint8_t out[MA_SHA256_LEN], const char *hex);

/* Hashes n files. out[i], and if non-NULL rcs[i] (MA_OK or the file's error code) and errs[i]
 * (its message), describe file i; out[i] is zeroed for a failed file. Returns MA_OK when every file
 * was hashed, else the code of the first failed file with its message in err. Pool failures
 * (threads, memory) return MA_ENOMEM / MA_EINTERNAL for the whole call. Errors per file:
 * MA_EMISSING (no such file), MA_EIO (cannot open or read: message has path and offset),
 * MA_EFORMAT (not a regular file). */
int ma_sha256_files(ma_file_digest *out, int *rcs, ma_error *errs, const char *const *paths, size_t n,
                    const ma_sha256_options *opt, ma_error *err);

/* SHA-256 of n memory buffers, out[i] of data[i] (len[i] bytes), by up to `threads` threads at
 * once, one buffer per thread at a time, largest first (0 threads: the online CPUs). Returns MA_OK,
 * or MA_ENOMEM (then out is undefined). */
int ma_sha256_buffers(uint8_t (*out)[MA_SHA256_LEN], const void *const *data, const size_t *len,
                      size_t n, unsigned threads, ma_error *err);

/* One file: ma_sha256_files with n = 1. */
int ma_sha256_file(ma_file_digest *out, const char *path, const ma_sha256_options *opt, ma_error *err);

void ma_file_digest_free(ma_file_digest *d);

#endif
