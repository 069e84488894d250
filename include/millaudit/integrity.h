/*
 * millaudit/integrity.h: part of the public API (include/millaudit.h). See millaudit.h for the
 * conventions every engine follows.
 *
 * Integrity before semantics (docs/download.md): before a verify run checks a single value, every
 * file of the database is compared with what was published: a manifest (DIR/MANIFEST.sha256 by
 * default, `sha256sum -c`'s format, with the sizes and chunk digests of `manifest create --chunks`
 * when it has them) or a signed attestation (docs/attestations.md), and every open-format file with
 * the body digest its own header records (docs/format.md §5.1). A file that is missing, has another
 * size, other bytes, is a database file the reference does not list, or fails its own body digest
 * is damaged: its sector is not checked (status "damaged"), neither is a sector that reads it as a
 * successor or as its .secval (status "input-damaged"), and the run's verdict is "damaged" (exit
 * 3), never a discrepancy of the solver. What was damaged, and what to fetch again, is data of the
 * run (ma_vrun_integrity_of).
 */
#ifndef MILLAUDIT_INTEGRITY_H
#define MILLAUDIT_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

#include "millaudit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a run judges the files against. */
typedef enum ma_integrity_source {
    MA_INTEGRITY_AUTO = 0,       /* options only: DIR/MANIFEST.sha256 when it is there, else none */
    MA_INTEGRITY_NONE,           /* no reference: only what the files state about themselves (the
                                  * body digest of open files) */
    MA_INTEGRITY_MANIFEST,       /* a manifest */
    MA_INTEGRITY_ATTESTATION     /* a signed attestation, checked with the publisher's key */
} ma_integrity_source;

/* "auto", "none", "manifest", "attestation". */
MA_API const char *ma_integrity_source_name(int source);

typedef enum ma_damage_kind {
    MA_DAMAGE_MISSING = 0,       /* listed, absent */
    MA_DAMAGE_SIZE = 1,          /* another size than published (or than its header needs): truncated
                                  * or extended */
    MA_DAMAGE_CONTENT = 2,       /* the size published (or not published), other bytes */
    MA_DAMAGE_NOT_LISTED = 3,    /* a database file the reference does not list: not part of what
                                  * was published (remove it; it is not read) */
    MA_DAMAGE_BODY_DIGEST = 4,   /* an open file whose body is not what its header's SHA-256 says */
    MA_DAMAGE_UNREADABLE = 5     /* listed, present, cannot be read */
} ma_damage_kind;

/* "missing", "size-differs", "content-differs", "not-in-manifest", "body-digest-mismatch",
 * "unreadable". */
MA_API const char *ma_damage_kind_name(int kind);

#define MA_DAMAGE_MAX_RANGES 8

/* One damaged file. */
typedef struct ma_damaged_file {
    char path[1024];             /* relative to the database directory, as the reference names it */
    int kind;                    /* ma_damage_kind */
    char sector[40];             /* the sector whose file it is ("std_3_3_0_0"), "" for another file */
    int secval_variant;          /* a "<variant>.secval": its ma_variant, else 0 */
    int refetch;                 /* 1: fetch it again; 0: remove it (MA_DAMAGE_NOT_LISTED) */
    int64_t size;                /* its size now, -1 unknown (missing, unreadable) */
    int64_t published_size;      /* -1 not published */
    uint64_t chunk_size;         /* granularity of the ranges; 0: where it differs is not known */
    size_t n_ranges, more_ranges;
    uint64_t first_byte[MA_DAMAGE_MAX_RANGES], last_byte[MA_DAMAGE_MAX_RANGES]; /* inclusive */
    char detail[512];            /* one line: "missing", "size differs: 2,000 bytes, published 2,152
                                  * (truncated)", "content differs at bytes 0-16,777,215 (16 MiB
                                  * chunks)", "not in the manifest", ... */
} ma_damaged_file;

/* The integrity phase of a run, as data. */
typedef struct ma_vrun_integrity {
    int source;                  /* ma_integrity_source: NONE, MANIFEST or ATTESTATION */
    const char *reference;       /* the manifest's or the attestation's path as given; "" or NULL: none
                                  * (owned by the run) */
    char why_none[160];          /* NONE: "--no-manifest", "no MANIFEST.sha256 in DIR", ... */
    char signer[256];            /* ATTESTATION: the identity the signer claims ("" none) */
    char keyid[65];              /* ATTESTATION: the key that verified the signature */
    size_t files;                /* files judged against the reference (listed, and unlisted
                                  * database files) */
    size_t intact;               /* of those, equal to what was published */
    size_t body_checked;         /* open files checked against their own body digest */
    const ma_damaged_file *damaged; /* every damaged file, reference order then the rest */
    size_t n_damaged;
    size_t refetch;              /* of those, to fetch again */
    size_t sectors_damaged;      /* sectors of the run not checked: their own file is damaged */
    size_t sectors_input_damaged; /* sectors of the run not checked: they read a damaged file */
    size_t undigested;           /* sector files the run read that carry no digest of their own
                                  * (Malom's, open ones with a zero digest field) */
} ma_vrun_integrity;

#ifdef __cplusplus
}
#endif

#endif
