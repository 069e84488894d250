/*
 * svfile: the producer's reading and writing of open-format sector files (docs/format.md §5).
 *
 * Writing goes to "<final>.tmp.<pid>" in the same directory, records the SHA-256 of the body in
 * the header (§5.1, bytes 80..111), is fsync'ed and then renamed, so a file with the final name
 * is always complete; on any failure (or cancellation) the temporary file is removed. A file
 * already under the final name is trusted only if its header equals the one this producer would
 * write (same producer name; the version may differ), its size is exact, every value word is a
 * valid encoding (§5.3) and the body's SHA-256 equals the recorded digest; anything else is
 * MA_EEXIST and the file is never overwritten.
 */
#ifndef MA_SVFILE_H
#define MA_SVFILE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "solver/svrules.h"

#define MA_SVFILE_HEADER_SIZE 128
#define MA_SVFILE_DIGEST_OFFSET 80
#define MA_SVFILE_DIGEST_SIZE 32

/* "<dir>/<variant>_<W>_<B>_<WF>_<BF>.mdb"; MA_EINVAL if it does not fit. */
int ma_svfile_path(char *buf, size_t n, const char *dir, int variant, ma_sv_sector s, ma_error *err);
/* The header this producer writes, with the body digest still zero (ma_svfile_write fills it). */
void ma_svfile_header(uint8_t h[MA_SVFILE_HEADER_SIZE], const ma_svrules *r, ma_sv_sector s,
                      uint64_t entries, const char *producer, const char *version);
/* *exists = 0 when path is absent; 1 when it is present and proven intact for `expect` (header,
 * size, value encodings unless check_encoding is 0, body digest); otherwise MA_EEXIST ("exists
 * but is incomplete or corrupt; remove it", naming the offset) or MA_EIO. */
int ma_svfile_probe(int *exists, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                    int check_encoding, ma_error *err);
/* Reads the body of a file into vals[0..entries-1] with the same checks; MA_EMISSING when absent. */
int ma_svfile_read(uint16_t *vals, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                   int check_encoding, ma_error *err);
/* Writes header + vals atomically (temporary name, digest, fsync, rename). MA_ECANCELED, with the
 * temporary file removed, when *cancel becomes non-zero (cancel may be NULL). */
int ma_svfile_write(const char *path, const uint8_t header[MA_SVFILE_HEADER_SIZE],
                    const uint16_t *vals, const atomic_int *cancel, ma_error *err);
/* SHA-256 of the body as stored (little-endian words). */
void ma_svfile_body_digest(const uint16_t *vals, uint64_t n, uint8_t out[MA_SVFILE_DIGEST_SIZE]);
/* Entry count recorded in a header. */
uint64_t ma_svfile_header_entries(const uint8_t h[MA_SVFILE_HEADER_SIZE]);
/* Whether w is a valid value word of encoding 1 (docs/format.md §5.3), canonicity aside. */
int ma_svfile_word_valid(uint16_t w);

/* Removes "<variant>_<W>_<B>_<WF>_<BF>.mdb.tmp.<pid>" files in dir whose process no longer
 * exists (kill(pid, 0) fails with ESRCH): litter of killed solves. Files of live processes (or of
 * processes we may not signal) are kept. *removed counts what went; first names the first. */
int ma_svfile_remove_stale(const char *dir, int *removed, char *first, size_t first_size,
                           ma_error *err);

#endif
