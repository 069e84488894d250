/*
 * The SQLite audit store: what was checked, by which build, with what result.
 *
 * One file holds any number of runs. Opening creates the schema or migrates an older one
 * (schema version in PRAGMA user_version; docs/audit-schema.md); a file that is not SQLite, or a
 * SQLite database that is not a millaudit audit store, is refused with MA_EFORMAT and left
 * untouched. WAL journal mode; every call below is one transaction, so an interrupted run leaves
 * whole rows only (a run without end time reads as "interrupted").
 *
 * Not thread-safe on one handle: the verifier records from its main thread. Several processes may
 * share one store file (SQLite locking; a writer waits up to 10 s for another's transaction).
 *
 * Identity: PRAGMA application_id 0x4D416175 ('MAau'). Times are UTC ISO 8601 with milliseconds
 * ("2026-11-22T09:30:00.123Z"). Tables and columns: docs/audit-schema.md.
 */
#ifndef MA_AUDIT_H
#define MA_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "millaudit/store.h" /* ma_audit and its open/close: public */

/* Facts about one run, all strings NUL-terminated; NULL allowed where noted. */
typedef struct ma_run_info {
    const char *kind;          /* "verify", "diff", "manifest" */
    const char *tool_version;  /* MA_VERSION */
    const char *git_revision;  /* MA_GIT_REVISION */
    const char *host;          /* gethostname() */
    const char *command_line;  /* argv joined with spaces */
    const char *database_root; /* the directory (or file) checked; NULL if none */
    const char *variant;       /* "std" / "lask" / "mora", NULL if mixed or unknown */
    const char *format;        /* "open", "malom-sec", "malom-sec2", NULL if unknown */
} ma_run_info;

/* One discrepancy class and its exact count in a sector (counts stay exact even when the stored
 * rows are capped). */
typedef struct ma_class_count {
    const char *cls;  /* e.g. "wrong-outcome" */
    uint64_t count;
} ma_class_count;

/* The result of one sector in one run. */
typedef struct ma_sector_result {
    const char *sector;        /* "std_3_3_0_0" (variant and sector id) */
    const char *file;          /* path of the sector file checked */
    uint64_t entries;          /* entries in the file */
    uint64_t checked;          /* entries examined (canonical and non-canonical) */
    uint64_t verified;         /* entries fully re-derived and matching */
    uint64_t within_bounds;    /* entries only consistent within bounds (children missing) */
    uint64_t discrepancies;    /* total discrepancies (sum of the class counts) */
    const ma_class_count *classes; /* per-class counts, n_classes of them (only non-zero ones needed) */
    size_t n_classes;
    double seconds;            /* wall time spent on this sector */
    const char *status;        /* "ok", "discrepancies", "unusable", "skipped" */
    const char *message;       /* one-line explanation for unusable/skipped, else NULL */
} ma_sector_result;

/* One discrepancy row. */
typedef struct ma_discrepancy {
    const char *sector;  /* "std_3_3_0_0" */
    uint64_t entry;      /* entry number in the sector file */
    const char *board;   /* notation of docs/format.md §6 */
    const char *stored;  /* what the file holds, e.g. "win 13" or "0xC00C" */
    const char *derived; /* what the checker derived, e.g. "win 11" */
    const char *cls;     /* class name */
} ma_discrepancy;

/* ma_audit_open, ma_audit_open_readonly, ma_audit_free: millaudit/store.h (public). */

/* ma_audit_free under the name the library's modules call it by (not exported). */
void ma_audit_close(ma_audit *a);

/* The schema version this build creates and reads (PRAGMA user_version of a current store). */
int ma_audit_schema_version(void);

/* Records the start of a run (start time = now, UTC ISO 8601) and returns its id. */
int ma_audit_run_begin(ma_audit *a, const ma_run_info *info, int64_t *run_id, ma_error *err);
/* Records the end time and overall status ("ok", "discrepancies", "unusable", "interrupted"). */
int ma_audit_run_end(ma_audit *a, int64_t run_id, const char *status, ma_error *err);

int ma_audit_sector_record(ma_audit *a, int64_t run_id, const ma_sector_result *r, ma_error *err);
/* Adds n discrepancy rows in one transaction. */
int ma_audit_discrepancies_add(ma_audit *a, int64_t run_id, const ma_discrepancy *rows, size_t n,
                               ma_error *err);

#endif
