/*
 * SHA-256 manifests of a database directory (docs/manifest.md).
 *
 * A manifest is a text file that plain `sha256sum -c` accepts: one line per file,
 * "<64 lowercase hex>  <path>", paths relative to the manifest's directory, sorted bytewise, the
 * manifest itself (and an audit store inside the directory) excluded. Names holding a backslash,
 * LF or CR are written as coreutils does: the line starts with '\' and the name is escaped.
 *
 * This module lists a directory, writes a manifest atomically, reads one back (refusing absolute
 * and climbing paths) and merges shard manifests. Hashing is checksums/sha256.h. It is a leaf
 * (common/ only): recording digests in the audit store, with the provenance the files state, is
 * the manifest engine's (verifier/run/manifest_record.h, reports/store/audit_manifest.h); nothing here knows a
 * format or SQL.
 */
#ifndef MA_MANIFEST_H
#define MA_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "checksums/published.h"
#include "checksums/sha256.h"
#include "common/ma_error.h"

/* ---- listing ---- */

/* Lists the regular files under dir (recursively; symlinks to regular files count, symlinked
 * directories are not followed) as paths relative to dir, sorted bytewise, leaving out the
 * relative paths in exclude[0..n_exclude) and every temporary file (ma_manifest_is_temp_name). *out is a malloc'd array of malloc'd strings; free with
 * ma_manifest_paths_free. Errors: MA_EMISSING (dir absent), MA_EIO (cannot read a directory). */
int ma_manifest_list(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                     ma_error *err);

/* ma_manifest_list of the top of dir only: its regular files (and symlinks to regular files),
 * no subdirectory opened, so one that cannot be read (a volume's root-only lost+found) is no
 * error. For who judges only what lies at the top (a database's files, verifier/formats/source.h);
 * who must know every file of the tree uses ma_manifest_list. Errors: MA_EMISSING, MA_EIO (dir
 * itself cannot be read). */
int ma_manifest_list_top(char ***out, size_t *n, const char *dir, const char *const *exclude, size_t n_exclude,
                         ma_error *err);
void ma_manifest_paths_free(char **paths, size_t n);

/* Non-zero when a file name (no directory) is a writer's temporary file, which no manifest lists:
 * "<name>.tmp.<digits>" (manifest create, solve: the digits are the writer's pid) and
 * "<name>.tmpXXXXXX" with six letters or digits (mkstemp, as report --out uses). */
int ma_manifest_is_temp_name(const char *base);

/* Non-zero when a file name (no directory) is a shard manifest's default name
 * "MANIFEST.shard-<I>-of-<N>.sha256" (0 <= I < N, decimal), which no listing of the top directory
 * includes; sets *index and *count when not NULL. */
int ma_manifest_is_shard_name(const char *base, unsigned *index, unsigned *count);

/* Removes the stale temporary files of a manifest written to out_path: the regular files
 * "<out_path>.tmp.<pid>" of processes that no longer exist (kill(pid, 0) fails with ESRCH), left by
 * a killed `manifest create`. Files of live processes, and every other temporary file, are left
 * alone. *removed counts the files removed. Errors: MA_ENOMEM only (an unreadable directory is
 * left for the write to report). */
int ma_manifest_remove_stale_temps(const char *out_path, size_t *removed, ma_error *err);

/* If path lies inside dir, sets *rel to its malloc'd path relative to dir, else to NULL. path need
 * not exist, but its parent directory must. Returns MA_OK, or MA_EIO / MA_ENOMEM. */
int ma_manifest_relative(char **rel, const char *dir, const char *path, ma_error *err);

/* ---- the manifest file ---- */

/* Writes the manifest for paths[i] with digests[i] to out_path: written to a temporary file
 * "<out_path>.tmp.<pid>" in the same directory, flushed, then renamed, so out_path is either the
 * old file or the complete new one. Errors: MA_EIO naming the path. */
int ma_manifest_write(const char *out_path, const char *const *paths, const ma_file_digest *digests, size_t n,
                      ma_error *err);
/* The same lines written to an open stream (standard output for `--out -`), flushed; name is for
 * messages. Errors: MA_EIO. */
int ma_manifest_write_stream(FILE *f, const char *name, const char *const *paths, const ma_file_digest *digests,
                             size_t n, ma_error *err);

/* The same, with a first line "# <header>" (a comment `sha256sum -c` skips): a shard manifest's
 * "millaudit manifest shard I/N of DIR" (manifest create --shard, docs/distributed.md). */
int ma_manifest_write_header(const char *out_path, const char *header, const char *const *paths,
                             const ma_file_digest *digests, size_t n, ma_error *err);
int ma_manifest_write_stream_header(FILE *f, const char *name, const char *header, const char *const *paths,
                                    const ma_file_digest *digests, size_t n, ma_error *err);

/* The same lines, each file's preceded by its chunk line (checksums/published.h) when chunk_lines
 * (digests[i] must then hold chunk digests): manifest create --chunks. Written to out_path
 * atomically, or to stream when out_path is NULL (name is for messages). */
int ma_manifest_write_chunked(const char *out_path, FILE *stream, const char *name, const char *header,
                              int chunk_lines, const char *const *paths, const ma_file_digest *digests, size_t n,
                              ma_error *err);

/* Non-zero when path is an existing regular file that reads like a manifest (empty, a comment, or
 * a digest line: 64 hex digits, optionally after a backslash, then a space): an earlier manifest
 * being replaced, as opposed to a database file named as manifest create's output. "-" is not. */
int ma_manifest_looks_like(const char *path);

/* The largest manifest read: 1 GiB holds about ten million lines. */
#define MA_MANIFEST_MAX_BYTES (1024L * 1024L * 1024L)

typedef struct ma_manifest_line {
    char *path;                      /* normalised relative path (ma_manifest_path_normalise): opened,
                                      * compared with the directory listing, looked up in a store */
    char *name;                      /* unescaped name as the line gives it, printed as sha256sum does */
    uint8_t sha256[MA_SHA256_LEN];   /* expected digest */
    size_t line;                     /* 1-based line number */
} ma_manifest_line;

struct ma_chunk_record;

typedef struct ma_manifest {
    ma_manifest_line *lines;   /* well-formed lines, in file order */
    size_t n;
    size_t n_malformed;        /* improperly formatted lines */
    size_t first_malformed;    /* line number of the first of them, 0 if none */
    size_t *malformed;         /* the line numbers of all of them, in order (for --warn) */
    /* a shard manifest's comment "# millaudit manifest shard I/N" (manifest create --shard): */
    int shard_line;            /* 1 when the manifest has one (the first counts) */
    unsigned shard_index, shard_count; /* count 0: not a shard manifest */
    /* the "# millaudit-chunks" comment lines (checksums/published.h): size and chunk digests of
     * files by whole-file digest (manifest create --chunks) */
    struct ma_chunk_record *chunk_records;
    size_t n_chunk_records;
} ma_manifest;

/* Parses manifest text as `sha256sum -c` does (coreutils 9.1): lines end in LF, one CR before it
 * is dropped; empty lines and lines starting with '#' are skipped; leading blanks are skipped; a
 * line is "<64 hex><blank>[ |*]<name>" or the BSD form "SHA256 (<name>) = <64 hex>", either one
 * optionally after '\' for an escaped name (\\, \n, \r). Anything else is counted as malformed,
 * not fatal (the caller decides, as --strict does). Any well-formed line whose name is absolute,
 * empty, or has a ".." component makes the whole manifest refused: MA_EFORMAT naming the manifest
 * (name), the line and the path. MA_ENOMEM when memory runs out. */
int ma_manifest_parse(ma_manifest *out, const char *text, size_t len, const char *name, ma_error *err);
/* Reads and parses the manifest at manifest_path; "-" is standard input. A FIFO or pipe is read as
 * a stream (one without a writer reads as empty, never blocks the open); a directory, socket or
 * block device is refused (MA_EFORMAT). Other errors: MA_EMISSING (no such manifest), MA_EIO
 * (with the OS reason), MA_EFORMAT (larger than MA_MANIFEST_MAX_BYTES), and those of parse. */
int ma_manifest_read(ma_manifest *out, const char *manifest_path, ma_error *err);
void ma_manifest_free(ma_manifest *m);

/* MA_OK if rel is a safe relative path (non-empty, not absolute, never above the directory: a ".."
 * only after a component it undoes, "sub/../a" yes, "../a" and "sub/../../a" no), else MA_EFORMAT
 * with a message naming rel. */
int ma_manifest_path_check(const char *rel, ma_error *err);
/* The canonical spelling of a safe relative path, malloc'd (NULL without memory): "." components
 * and repeated or trailing slashes removed and "x/.." components dropped by name, so "./x", "a//b",
 * "a/./b/" and "c/../a/b" name what the listing calls "x", "a/b", "a/b" and "a/b". A path of
 * nothing but "." and slashes (or that comes back to the top) becomes ".". */
char *ma_manifest_path_normalise(const char *rel);

/* ---- merging shard manifests (manifest merge, docs/distributed.md) ---- */

/* The header text of shard index of count, "millaudit manifest shard I/N", for
 * ma_manifest_write_header (which writes it after "# "). */
void ma_manifest_shard_header(char *buf, size_t len, unsigned index, unsigned count);

typedef struct ma_manifest_merged {
    char **paths;              /* normalised relative paths, sorted bytewise as ma_manifest_list does */
    ma_file_digest *digests;   /* digest only (no size, no chunks): what a manifest line states */
    size_t n;
    unsigned shard_count;      /* N of the shard manifests given, 0 when none was one */
    unsigned *missing;         /* shard indexes of that N no manifest given was */
    size_t n_missing;
} ma_manifest_merged;

/* Merges parsed manifests in[0..n_in) (names[k]: in[k]'s name for messages) into one: every path
 * any lists, once. Refused with MA_EFORMAT, one line, *out empty: a malformed line in any input
 * (merging would drop it), a path listed with two different digests (naming the path and both
 * manifests; also within one manifest), shard manifests of different N, one shard index given
 * twice, and, unless allow_partial, shard indexes of the N that no input is (listed in the
 * message). Manifests without a shard header are merged as they are. MA_EINVAL for n_in 0,
 * MA_ENOMEM. */
int ma_manifest_merge(ma_manifest_merged *out, const ma_manifest *const *in, const char *const *names, size_t n_in,
                      int allow_partial, ma_error *err);
void ma_manifest_merged_free(ma_manifest_merged *m);

/* The size of every file m lists, from root/path (root: the database directory the paths are
 * relative to), into sizes[0..m->n): the first step of manifest merge --audit, taken before anything
 * is written. A listed file that is absent (MA_EMISSING) or not a regular file (MA_EFORMAT) refuses
 * the merge with one line naming it; MA_EIO for another stat failure. */
int ma_manifest_merged_sizes(uint64_t *sizes, const char *root, const ma_manifest_merged *m, ma_error *err);

/* Pinning a mismatch to its chunks (ma_chunk_range, ma_chunk_ranges_differing) is
 * checksums/published.h's. */

#endif
