/*
 * reports/store/audit_integrity: what a verify run's integrity phase found (schema v11,
 * docs/audit-schema.md, docs/download.md): the reference the files were judged against and every
 * damaged file with what is wrong with it, written with the run and read back by reports.
 *
 * SQL and rows only: how files are judged is verifier/run/integrity.h. A run recorded before v11,
 * or of another kind, has no row: "not recorded".
 */
#ifndef MA_AUDIT_INTEGRITY_H
#define MA_AUDIT_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "reports/store/audit.h"

/* One damaged file as recorded; -1: not known. */
typedef struct ma_audit_damage {
    char *path;
    char *kind;          /* "missing", "size-differs", "content-differs", "not-in-manifest",
                          * "body-digest-mismatch", "unreadable" */
    char *sector;        /* NULL: no sector's file */
    int refetch;         /* 1 fetch again, 0 remove */
    int64_t size, published_size, chunk_size;
    char *ranges;        /* "0-16777215,33554432-50331647" (inclusive byte ranges), NULL none */
    char *detail;        /* the line every output prints */
} ma_audit_damage;

typedef struct ma_audit_integrity {
    int recorded;        /* 0: the run recorded no integrity phase */
    char *source;        /* "none", "manifest", "attestation" */
    char *reference;     /* the manifest's or attestation's path; NULL none */
    char *signer, *keyid;
    int64_t files, intact, body_checked;
    ma_audit_damage *damaged;
    size_t n_damaged;
} ma_audit_integrity;

/* Records g as run_id's integrity (replacing what an earlier call recorded for the run: a run
 * records its phase when it begins and again when it ends, with damage the check itself found), in
 * one transaction. MA_EIO when the store cannot be written. */
int ma_audit_integrity_write(ma_audit *a, int64_t run_id, const ma_audit_integrity *g, ma_error *err);

/* Reads run_id's integrity into g (zeroed first; free with ma_audit_integrity_free). A store
 * before v11 or a run without a row: g->recorded 0. MA_EIO / MA_EFORMAT, MA_ENOMEM. */
int ma_audit_integrity_read(ma_audit *a, int64_t run_id, ma_audit_integrity *g, ma_error *err);
void ma_audit_integrity_free(ma_audit_integrity *g);

#endif
