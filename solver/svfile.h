/*
 * svfile: the producer's reading and writing of open-format sector files (docs/format.md §5).
 *
 * Writing goes to "<final>.tmp.<pid>" in the same directory, is fsync'ed and then renamed, so a
 * file with the final name is always complete. A file already under the final name is trusted
 * only if its header equals the one this producer would write (same producer name; the version
 * may differ) and its size is exact; anything else is MA_EEXIST and is never overwritten.
 */
#ifndef MA_SVFILE_H
#define MA_SVFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "solver/svrules.h"

#define MA_SVFILE_HEADER_SIZE 128

/* "<dir>/<variant>_<W>_<B>_<WF>_<BF>.mdb"; MA_EINVAL if it does not fit. */
int ma_svfile_path(char *buf, size_t n, const char *dir, int variant, ma_sv_sector s, ma_error *err);
/* The header this producer writes. */
void ma_svfile_header(uint8_t h[MA_SVFILE_HEADER_SIZE], const ma_svrules *r, ma_sv_sector s,
                      uint64_t entries, const char *producer, const char *version);
/* *exists = 0 when path is absent; 1 when it is present and valid for `expect`; otherwise
 * MA_EEXIST ("exists but is incomplete or corrupt; remove it") or MA_EIO. */
int ma_svfile_probe(int *exists, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                    ma_error *err);
/* Reads the body of a valid file into vals[0..entries-1]; MA_EMISSING when absent. */
int ma_svfile_read(uint16_t *vals, const char *path, const uint8_t expect[MA_SVFILE_HEADER_SIZE],
                   ma_error *err);
/* Writes header + vals atomically (temporary name, fsync, rename). */
int ma_svfile_write(const char *path, const uint8_t header[MA_SVFILE_HEADER_SIZE],
                    const uint16_t *vals, ma_error *err);
/* Entry count recorded in a header. */
uint64_t ma_svfile_header_entries(const uint8_t h[MA_SVFILE_HEADER_SIZE]);

#endif
