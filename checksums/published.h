/*
 * checksums/published: what a publisher states about one file (its SHA-256, and where the
 * reference says so its size and the digests of its fixed-size chunks), the comment lines of a
 * manifest that carry the size and chunks, and the comparison of a file as it is now with what
 * was published (docs/manifest.md "Chunk lines", docs/download.md).
 *
 * A manifest written by `manifest create --chunks` holds, before each file's digest line, a line
 *
 *   # millaudit-chunks <sha256> <size> <chunk size> <chunk0 sha256>,<chunk1 sha256>,...
 *
 * ("-" for the chunk list of an empty file). `sha256sum -c` skips it as a comment. It is bound to
 * the file by the whole-file digest, not by its position: equal digests mean equal bytes, so a
 * reordered or merged manifest still pairs each chunk line with the right file. A chunk line whose
 * chunks do not add up to its size (count, chunk size) is ignored, never trusted.
 *
 * The comparison tells a missing file, a size that differs (truncated or extended), content that
 * differs (pinned to the chunks that differ when chunk digests were published, at the chunk
 * granularity: 16 MiB by default) and an unreadable file. A leaf: common/ and checksums/ only.
 */
#ifndef MA_CHECKSUMS_PUBLISHED_H
#define MA_CHECKSUMS_PUBLISHED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "checksums/sha256.h"
#include "common/ma_error.h"

/* A run of chunks [first, end) whose digests differ between two digest lists of one chunk size,
 * or that only one of them has. */
typedef struct ma_chunk_range {
    size_t first, end;
} ma_chunk_range;

/* The runs of differing chunks between a[0..na) and b[0..nb), in order: the first max of them in
 * out, and the number of all of them returned (more than max when some did not fit). */
size_t ma_chunk_ranges_differing(const uint8_t (*a)[MA_SHA256_LEN], size_t na,
                                 const uint8_t (*b)[MA_SHA256_LEN], size_t nb, ma_chunk_range *out,
                                 size_t max);

/* What a reference (a manifest line with its chunk line, an attestation subject) states. */
typedef struct ma_published_file {
    uint8_t sha256[MA_SHA256_LEN];
    int64_t size;                     /* -1: not stated (a plain sha256sum manifest) */
    uint64_t chunk_size;              /* 0: no chunk digests */
    size_t n_chunks;
    const uint8_t (*chunks)[MA_SHA256_LEN];
} ma_published_file;

/* The chunk lines of a parsed manifest, by whole-file digest. */
typedef struct ma_chunk_record {
    uint8_t sha256[MA_SHA256_LEN];
    uint64_t size, chunk_size;
    size_t n_chunks;
    uint8_t (*chunks)[MA_SHA256_LEN];
} ma_chunk_record;

/* Parses one comment line (without its line end; a CR before it is dropped) into rec when it is a
 * well-formed chunk line whose chunk count fits its size and chunk size. Returns 1 (rec filled,
 * chunks malloc'd), 0 (not a chunk line, or a malformed one: ignored), -1 out of memory. */
int ma_chunk_line_parse(ma_chunk_record *rec, const char *line, size_t len);
void ma_chunk_record_free(ma_chunk_record *rec);

/* Writes the chunk line of d (whose chunk digests must be present) to f. Returns 0 or -1. */
int ma_chunk_line_write(FILE *f, const ma_file_digest *d);

/* The record among recs[0..n) for a whole-file digest, or NULL. */
const ma_chunk_record *ma_chunk_record_find(const ma_chunk_record *recs, size_t n,
                                            const uint8_t sha256[MA_SHA256_LEN]);

/* How a file compares with what was published. */
typedef enum ma_published_status {
    MA_PUBLISHED_INTACT = 0,
    MA_PUBLISHED_MISSING,           /* absent */
    MA_PUBLISHED_SIZE_DIFFERS,      /* another length than published: truncated or extended */
    MA_PUBLISHED_CONTENT_DIFFERS,   /* same length (or length not published), other bytes */
    MA_PUBLISHED_UNREADABLE         /* there, but could not be read (not a regular file, I/O) */
} ma_published_status;

#define MA_PUBLISHED_MAX_RANGES 8

typedef struct ma_published_diff {
    ma_published_status status;
    int64_t size;                   /* the file's size now, -1 unknown (missing, unreadable) */
    int64_t published_size;         /* -1 not published */
    uint64_t chunk_size;            /* the ranges' granularity; 0: not pinned */
    size_t n_ranges, more_ranges;   /* ranges[0..n_ranges), and how many more were not kept */
    uint64_t first_byte[MA_PUBLISHED_MAX_RANGES], last_byte[MA_PUBLISHED_MAX_RANGES]; /* inclusive */
} ma_published_diff;

/* Compares a file with what was published: now is its digest (with chunk digests of
 * pub->chunk_size when pub has chunks, else anything), now_rc MA_OK or the hashing error
 * (MA_EMISSING: the file is absent). Differing chunks become byte ranges, adjacent ones merged,
 * clipped to the larger of the two sizes. */
void ma_published_compare(const ma_published_file *pub, const ma_file_digest *now, int now_rc,
                          ma_published_diff *out);

/* One line for people: "missing", "size differs: 2,000 bytes, published 2,152 (truncated)",
 * "content differs at bytes 0-16,777,215 (16 MiB chunks)", "content differs (no chunk digests
 * published: where is not known)", "unreadable". */
void ma_published_describe(const ma_published_diff *d, char *buf, size_t len);

#endif
