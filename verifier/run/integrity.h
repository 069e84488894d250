/*
 * verifier/run/integrity: the integrity check of a database directory (millaudit/integrity.h,
 * docs/download.md): every file compared with what was published, before a verify run reads a
 * value.
 *
 *  - The reference: a manifest (DIR/MANIFEST.sha256 when source is AUTO and it is there, or the one
 *    given), read strictly (a malformed line or a path outside DIR refuses it: a reference that is
 *    not understood vouches for nothing), with the sizes and chunk digests of its chunk lines
 *    (checksums/published.h); or a DSSE attestation whose signature must verify with the given
 *    public key (its subjects: name, SHA-256, size); or none.
 *  - With a reference, every listed file is hashed (whole-file digest, and chunk digests of the
 *    reference's chunk size when it publishes any) and compared (checksums/published.h): missing,
 *    size differs, content differs (pinned to chunks when possible), unreadable. Every file at the
 *    top of DIR that looks like a database file (.mdb, .sec2, .sec, .secval) and is not listed is
 *    "not in the manifest". Other unlisted files (a README, the store, logs) are not database
 *    files: verify never reads them, so they are not judged. Nor is anything below the top of DIR
 *    that the reference does not list: a subdirectory is no part of the database (discovery reads
 *    only the top) and is never opened, so one that cannot be read is no error.
 *  - Whatever the reference, every open-format sector file whose header records a body digest is
 *    checked against it (and its size against the size its header's entry count needs); a file
 *    the reference already found damaged is not looked at again.
 *
 * The digests of the files hashed stay available (ma_integrity_digest), so the run's read
 * snapshot compares the bytes it checks with the bytes judged intact (docs/runs.md). Nothing is
 * ever written or modified. Errors (one line naming the file): the reference missing
 * (MA_EMISSING), unusable (MA_EFORMAT: malformed, refused path, an envelope that is not one, a
 * signature that does not verify with the key, an unusable key), MA_ECANCELED, MA_ENOMEM.
 */
#ifndef MA_VERIFIER_RUN_INTEGRITY_H
#define MA_VERIFIER_RUN_INTEGRITY_H

#include <signal.h>
#include <stddef.h>

#include "checksums/sha256.h"
#include "common/ma_error.h"
#include "common/progress.h"
#include "millaudit/integrity.h"

typedef struct ma_integrity_options {
    const char *dir;             /* the database directory */
    const char *only;            /* non-NULL: a one-file database; only this name is judged */
    int source;                  /* ma_integrity_source */
    const char *manifest;        /* MANIFEST: its path */
    const char *attestation, *pub; /* ATTESTATION: the envelope and the publisher's public key */
    const char *const *exclude;  /* paths (as given on the command line) never judged: the store and
                                  * its side files, the documents the command writes */
    size_t n_exclude;
    const char *const *open_files; /* the open-format sector files (names inside dir) to check
                                    * against their body digests */
    size_t n_open_files;
    unsigned threads;            /* 0: online CPUs */
    ma_progress *progress;
    const volatile sig_atomic_t *cancel;
} ma_integrity_options;

/* One file judged: its path relative to dir and what hashing it gave. */
typedef struct ma_integrity_file {
    char *path;
    int rc;                      /* MA_OK: digest is set */
    ma_file_digest digest;
} ma_integrity_file;

typedef struct ma_integrity {
    ma_vrun_integrity pub;       /* pub.damaged points into damaged, pub.reference at reference */
    char reference[4096];
    ma_damaged_file *damaged;
    size_t cap_damaged;
    ma_integrity_file *files;
    size_t n_files;
} ma_integrity;

/* Judges the files (above). out is zeroed first; free with ma_integrity_free, also after errors. */
int ma_integrity_check(ma_integrity *out, const ma_integrity_options *opt, ma_error *err);

/* The whole-file digest of rel (a path relative to dir) as judged, or NULL (not hashed, or its
 * hashing failed). */
const ma_file_digest *ma_integrity_digest(const ma_integrity *g, const char *rel);

/* The damage found for rel, or NULL. */
const ma_damaged_file *ma_integrity_damage(const ma_integrity *g, const char *rel);

/* Adds a damaged file found later (an open file whose body fails its digest when a check opens
 * it), unless rel is damaged already. MA_ENOMEM. */
int ma_integrity_add(ma_integrity *g, const ma_damaged_file *d, ma_error *err);

void ma_integrity_free(ma_integrity *g);

#endif
