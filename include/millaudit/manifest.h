/*
 * millaudit/manifest.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * SHA-256 manifests of a database directory (docs/manifest.md): a text file `sha256sum -c`
 * accepts, one "<sha256>  <path>" line per file. Three engines:
 *   - create: hash every file of a directory (or of one shard of it), write the manifest and,
 *     with an audit store, record the run with every file's digest, chunk digests and provenance;
 *   - check: hash the files a manifest lists and classify each OK, FAILED, MISSING or unreadable,
 *     and every unlisted file of the directory EXTRA; with a store holding the files' chunk
 *     digests, pin a FAILED file to the byte ranges that changed;
 *   - merge: join shard manifests into one and, with a store, record it as a manifest run.
 * Results are data; the ma_manifest_*_print functions word them as the `millaudit manifest`
 * command does, in `sha256sum -c`'s words.
 */
#ifndef MILLAUDIT_MANIFEST_H
#define MILLAUDIT_MANIFEST_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "millaudit/error.h"
#include "millaudit/progress.h"
#include "millaudit/verdict.h"
#include "millaudit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chunk size of the chunk digests a manifest run records (16 MiB) and the largest allowed. */
#define MA_MANIFEST_DEFAULT_CHUNK (16u * 1024u * 1024u)
#define MA_MANIFEST_MAX_CHUNK (1024u * 1024u * 1024u)

/* The run identity recorded with a manifest run in an audit store. */
typedef struct ma_manifest_identity {
    const char *host;          /* host name, or NULL */
    const char *command_line;  /* the command line as typed, or NULL */
} ma_manifest_identity;

/* ---- create ---- */

typedef struct ma_manifest_create_options {
    const char *dir;             /* the database directory (required) */
    const char *out;             /* the manifest to write; "-": out_stream (required, see
                                  * ma_manifest_default_path) */
    FILE *out_stream;            /* where "-" writes (standard output) */
    const char *audit_path;      /* record the run in this store (created if absent), or NULL */
    uint64_t chunk_size;         /* bytes per chunk digest; 0: MA_MANIFEST_DEFAULT_CHUNK */
    unsigned threads;            /* hashing threads; 0: online CPUs */
    unsigned shard_index, shard_count; /* shard_count > 0: only that shard's files (as a verify
                                  * run's shard_count partitions them; files of no sector: shard 0) */
    ma_manifest_identity identity;
    ma_progress *progress;       /* bytes hashed (total set by the engine), or NULL */
    const volatile sig_atomic_t *cancel; /* non-zero (a signal number): stop hashing, write nothing */
    /* Non-zero: before each file's line a comment "# millaudit-chunks <sha256> <size> <chunk
     * size> <chunk digests>" that sha256sum -c skips, so a checker of a download can say which
     * bytes of a damaged file differ (docs/manifest.md "Chunk lines"). */
    int chunk_lines;
} ma_manifest_create_options;

typedef struct ma_manifest_created {
    size_t files;                /* files listed in the manifest */
    uint64_t bytes;              /* their bytes */
    int64_t run_id;              /* the store's new run, 0 without a store */
    size_t stale_removed;        /* temporary files of dead earlier creates removed (set even when
                                  * the create then failed) */
    int signal;                  /* the signal that stopped the hashing (then MA_ECANCELED), else 0 */
} ma_manifest_created;

/* The manifest create writes by default: DIR/MANIFEST.sha256, or for a shard
 * DIR/MANIFEST.shard-I-of-N.sha256; release it with ma_free. NULL without memory. */
MA_API char *ma_manifest_default_path(const char *dir, unsigned shard_index, unsigned shard_count);

/* MA_OK when dir exists and is a directory; else MA_EMISSING (absent) or MA_EFORMAT, one line
 * naming it. The first thing create (and merge with a store) checks. */
MA_API int ma_manifest_dir_check(const char *dir, ma_error *err);

/* Non-zero when path is an existing file that reads like a manifest (empty, a comment or a digest
 * line): an earlier manifest the create replaces rather than a file of the database. */
MA_API int ma_manifest_is_manifest_file(const char *path);

/* Creates the manifest of opt->dir at opt->out (written atomically; never lists itself, the store
 * and its side files, MANIFEST.sha256 or writers' temporary files). Errors: MA_EMISSING /
 * MA_EFORMAT (dir absent or not a directory, a file unreadable: nothing written), MA_EIO (the
 * manifest or the store cannot be written), MA_ECANCELED (opt->cancel: out->signal says which; a
 * store run is recorded "interrupted"), MA_ENOMEM. *out is filled as far as the work got. */
MA_API int ma_manifest_create(ma_manifest_created *out, const ma_manifest_create_options *opt, ma_error *err);

/* ---- check ---- */

typedef enum ma_manifest_file_status {
    MA_MANIFEST_FILE_OK = 0,     /* its digest matches the manifest's */
    MA_MANIFEST_FILE_FAILED,     /* read whole, digest differs */
    MA_MANIFEST_FILE_UNREADABLE, /* exists but could not be opened or read (error says why) */
    MA_MANIFEST_FILE_MISSING,    /* listed, absent */
    MA_MANIFEST_FILE_EXTRA       /* in the directory, not listed */
} ma_manifest_file_status;

#define MA_MANIFEST_MAX_PINNED 8 /* byte ranges kept per FAILED file */

/* A run of changed chunks of a FAILED file: bytes [first_byte, last_byte], chunks
 * [first_chunk, last_chunk]. */
typedef struct ma_manifest_byte_range {
    uint64_t first_byte, last_byte;
    size_t first_chunk, last_chunk;
} ma_manifest_byte_range;

typedef struct ma_manifest_file_result {
    const char *path;                /* normalised path relative to the directory */
    const char *name;                /* as the manifest line names it (EXTRA: as listed) */
    ma_manifest_file_status status;
    const char *error;               /* UNREADABLE: one line naming the file, else NULL */
    /* FAILED, with the store's chunk digests of the file (check's audit_path): */
    int pinned;                      /* non-zero: the fields below are set */
    int chunk_size_differs;          /* the store hashed with recorded_chunk_size: not pinned */
    uint64_t recorded_chunk_size;
    size_t n_ranges;                 /* ranges[0..n_ranges) */
    ma_manifest_byte_range ranges[MA_MANIFEST_MAX_PINNED];
    size_t more_ranges;              /* further ranges not kept */
    uint64_t size, recorded_size;    /* the file's size now and when recorded */
} ma_manifest_file_result;

typedef struct ma_manifest_check_options {
    const char *manifest;        /* the manifest's path; "-": standard input */
    const char *dir;             /* the directory its paths are relative to; NULL: the manifest's
                                  * directory (. for standard input) */
    const char *audit_path;      /* a store with the files' chunk digests (read only), or NULL */
    int ignore_missing;          /* a missing file is skipped, not MISSING */
    int ignore_extra;            /* do not look for EXTRA files */
    int strict;                  /* improperly formatted lines make the manifest unusable */
    unsigned threads;            /* hashing threads; 0: online CPUs */
    ma_progress *progress;       /* bytes hashed (total set by the engine), or NULL */
} ma_manifest_check_options;

typedef struct ma_manifest_check_summary {
    const char *manifest;        /* how messages name the manifest: "(standard input)" or its path */
    const char *dir;             /* the directory the paths are relative to */
    size_t ok, failed, unreadable, missing, extra; /* files of each status */
    size_t malformed;            /* improperly formatted lines */
    const size_t *malformed_lines; /* their line numbers, in order */
    int strict_refused;          /* strict and malformed lines: the manifest is unusable input */
    int nothing_verified;        /* ignore_missing and not one file was verified */
    ma_verdict_state verdict;    /* VERIFIED: every listed file OK, nothing extra; DISCREPANCIES:
                                  * any other status, or nothing verified; INCOMPLETE:
                                  * strict_refused */
} ma_manifest_check_summary;

typedef struct ma_manifest_check ma_manifest_check; /* opaque */

/* Checks the files opt->manifest lists. *out is set whenever the manifest was read (even when a
 * later step fails: it then holds what was classified, e.g. the malformed lines); free with
 * ma_manifest_check_free. Errors (one line): MA_EMISSING / MA_EFORMAT (manifest absent, refused
 * path, no well-formed line, unusable store, directory unreadable for the EXTRA search), MA_ENOMEM,
 * MA_EINTERNAL. Classified files are results, not errors. */
MA_API int ma_manifest_check_run(ma_manifest_check **out, const ma_manifest_check_options *opt, ma_error *err);
MA_API const ma_manifest_check_summary *ma_manifest_check_summary_of(const ma_manifest_check *c);
/* The classified files: the manifest's, in its order (a missing file skipped with ignore_missing
 * is not among them), then the EXTRA ones, sorted. */
MA_API size_t ma_manifest_check_files(const ma_manifest_check *c);
MA_API const ma_manifest_file_result *ma_manifest_check_file(const ma_manifest_check *c, size_t i);
MA_API void ma_manifest_check_free(ma_manifest_check *c);

/* ---- merge ---- */

typedef struct ma_manifest_merge_options {
    const char *out;             /* the merged manifest; "-": out_stream */
    FILE *out_stream;
    const char *const *inputs;   /* shard manifests inputs[0..n_inputs) */
    size_t n_inputs;
    int allow_partial;           /* shards of the N may be absent */
    const char *audit_path;      /* record the merged manifest as a run of this store, or NULL */
    const char *dir;             /* with audit_path: where the files are (sizes, provenance); NULL:
                                  * out's directory (. for "-") */
    ma_manifest_identity identity;
} ma_manifest_merge_options;

typedef struct ma_manifest_merged_info {
    size_t files;                /* paths in the merged manifest */
    unsigned shard_count;        /* N of the shard manifests, 0 when none was one */
    size_t n_missing;            /* shards of the N not given (allow_partial) */
    unsigned *missing;           /* their indexes, malloc'd */
    int64_t run_id;              /* the store's new run, 0 without a store */
} ma_manifest_merged_info;

/* Merges the shard manifests into opt->out. Refused (MA_EFORMAT, nothing written): a malformed
 * line, a path with two digests, shards of different N, a shard given twice, a missing shard
 * (unless allow_partial), with a store a listed file absent from the directory. MA_EMISSING (an
 * input absent), MA_EIO (out or the store cannot be written), MA_ENOMEM. Free *out with
 * ma_manifest_merged_info_free. */
MA_API int ma_manifest_merge_run(ma_manifest_merged_info *out, const ma_manifest_merge_options *opt,
                                 ma_error *err);
MA_API void ma_manifest_merged_info_free(ma_manifest_merged_info *m);

/* ---- words, as `millaudit manifest` prints them ---- */

/* How much check prints, as sha256sum -c's --status / --quiet. */
typedef enum ma_manifest_verbosity {
    MA_MANIFEST_PRINT_ALL = 0,   /* every file */
    MA_MANIFEST_PRINT_WARN,      /* every file, and each improperly formatted line */
    MA_MANIFEST_PRINT_FAILURES,  /* files that are not OK */
    MA_MANIFEST_PRINT_NOTHING    /* nothing (exit status only) */
} ma_manifest_verbosity;

/* A name as sha256sum prints it: with a backslash, LF or CR, a leading '\' and escapes. */
MA_API void ma_manifest_print_name(FILE *out, const char *name);
/* One line per improperly formatted line of the manifest, on err (MA_MANIFEST_PRINT_WARN). */
MA_API void ma_manifest_check_print_malformed(FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v);
/* One line per classified file on out ("<name>: OK", ": FAILED at bytes ...", ": MISSING",
 * ": not in manifest"), an unreadable file's reason on err before its line. */
MA_API void ma_manifest_check_print_files(FILE *out, FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v);
/* The closing warnings (counts of each failure) and refusals on err. */
MA_API void ma_manifest_check_print_summary(FILE *err, const ma_manifest_check *c, ma_manifest_verbosity v);
/* What merge did: "OUT: N files from K manifests (S of N shards)" and "STORE: run R recorded" on
 * info, each missing shard (allow_partial) on err. */
MA_API void ma_manifest_merge_print(FILE *info, FILE *err, const char *out_name, size_t n_inputs,
                                    const char *audit_path, const ma_manifest_merged_info *m);

#ifdef __cplusplus
}
#endif

#endif
