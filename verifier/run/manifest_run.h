/*
 * The manifest engines (create, check, merge): public contract in include/millaudit/manifest.h.
 * This header holds what verifier/run/manifest_run.c and verifier/run/manifest_check.c share.
 *
 * The work of `millaudit manifest` lives here: listing the directory (checksums/manifest.h),
 * hashing (checksums/sha256.h), classifying each file, finding unlisted ones, partitioning by
 * shard (verifier/run/shard.h), recording with provenance (verifier/run/manifest_record.h). Exit statuses are not
 * decided here: an input the command cannot use is returned as MA_EMISSING / MA_EFORMAT (exit 3),
 * whatever the OS said while reading it.
 */
#ifndef MA_RUN_MANIFEST_RUN_H
#define MA_RUN_MANIFEST_RUN_H

#include <stddef.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "millaudit/manifest.h"

/* The test build's rendezvous (cli/test_hook.c, millaudit-planted only): called after each chunk
 * hashed, with the hashing pool's lock held (no further chunk is claimed until it returns). Not
 * part of the public options. */
typedef void (*ma_manifest_hashed_fn)(void *ctx);
typedef struct ma_manifest_test_hooks {
    ma_manifest_hashed_fn on_hashed;
    void *ctx;
} ma_manifest_test_hooks;

/* ma_manifest_create and ma_manifest_check_run with the test build's hooks (h may be NULL). */
int ma_manifest_create_hooked(ma_manifest_created *out, const ma_manifest_create_options *opt,
                              const ma_manifest_test_hooks *h, ma_error *err);
int ma_manifest_check_run_hooked(ma_manifest_check **out, const ma_manifest_check_options *opt,
                                 const ma_manifest_test_hooks *h, ma_error *err);

/* Relative paths inside a directory that no listing includes (ma_manifest_excludes). */
#define MA_MANIFEST_N_EXCLUDES 6

/* The paths of dir that a manifest never lists: the manifest itself (unless "-"), the
 * conventional MANIFEST.sha256, the store and its -wal, -shm and -journal files (audit may be
 * NULL). Free with ma_manifest_excludes_free. Errors: MA_EIO (manifest's directory unusable),
 * MA_ENOMEM. */
int ma_manifest_excludes(char *ex[MA_MANIFEST_N_EXCLUDES], const char *dir, const char *manifest,
                         const char *audit, ma_error *err);
void ma_manifest_excludes_free(char *ex[MA_MANIFEST_N_EXCLUDES]);

/* Keeps in rel (n paths, compacted, the others freed) the files of shard index of count: the
 * partition of verify DIR --shard I/N (verifier/run/shard.h); files of no sector go to shard 0. */
int ma_manifest_keep_shard(const char *dir, char **rel, size_t *n, unsigned index, unsigned count,
                           ma_error *err);

/* dir/rel, malloc'd (NULL without memory). */
char *ma_manifest_join(const char *dir, const char *rel);

/* rc of reading an input the command cannot then use: MA_EIO becomes MA_EFORMAT (err->code too),
 * so it reads as unusable input (exit 3) rather than unwritable output. */
int ma_manifest_as_input(int rc, ma_error *err);

/* The progress callback of the hashing (checksums/sha256.h on_progress): the caller's hook, then
 * the reporter. */
typedef struct ma_manifest_hash_watch {
    ma_progress *progress;
    ma_manifest_hashed_fn on_hashed;
    void *ctx;
} ma_manifest_hash_watch;
void ma_manifest_on_bytes(void *watch, uint64_t done);

/* Sets the reporter's total to the bytes of the regular files paths[0..n). */
void ma_manifest_progress_total(ma_progress *p, char *const *paths, size_t n);

#endif
