/*
 * report: one audit run as a report sees it (docs/report.md) — the run (reports/store/runs.h), the facts
 * of audit schema v4 where the store has them, the history of the same database root, totals of
 * every column, and the verdict.
 *
 * Older stores degrade gracefully: a column the store lacks (schema v3 and older) or a NULL in a
 * row written before v4 reads as "not recorded" (-1 counts, NULL strings), never as zero. Outcome
 * and depth of a discrepancy come from the v4 columns, else from the recorded text ("win 13",
 * "loss 2 (0x4002)", ">= win 5 (3,4)", "draw").
 *
 * The verdict is derived from the counts, not copied from runs.status: a store written before the
 * run engine calls a bounds-only Malom run "ok", and a report must never show such a run as
 * fully verified. Words follow restic check / zfs scrub: "fully verified", "verified within bounds
 * only (N entries unproven)", "discrepancies found (R roots, P propagated)", "damaged: N files differ
 * from what was published; ..." (common/verdict.h, the words verify uses), "incomplete (...)",
 * "interrupted"; for diff runs "values agree" / "values differ"; manifest runs "manifest recorded".
 * When several apply the most severe leads (discrepancies, interrupted, damaged, incomplete, within
 * bounds, verified) and the others follow as details. "Fully verified" needs every entry verified:
 * entries neither verified, within bounds nor a discrepancy make the run incomplete whatever its
 * recorded status says.
 *
 * A verdict belongs to its run and says what that run did: an interrupted run stays
 * "interrupted: K of N sectors checked" after a resume continued it ("continued by run M"); the
 * sectors of its plan (v7 run_plan) it never reached are listed with status "not-checked" (their
 * entries counted, none verified), so its totals count the whole plan.
 *
 * The loader reads in one read transaction, so a run being written by another process is seen as
 * one snapshot.
 */
#ifndef MA_REPORT_H
#define MA_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/verdict.h"
#include "reports/store/audit.h"
#include "reports/store/audit_integrity.h"
#include "reports/store/runs.h"

/* Sums over a run's sectors, the verdict's input (also used for each run of the history). -1 in
 * roots/propagated/unverifiable: not recorded. */
typedef struct ma_verdict_counts {
    const char *kind;           /* runs.kind */
    const char *status;         /* runs.status as recorded, NULL while running */
    int ended;                  /* runs.ended_at is set */
    int64_t sectors, entries, checked, verified, within_bounds, discrepancies;
    int64_t unverifiable, roots, propagated;
    int64_t sectors_unusable;   /* sectors recorded unusable, skipped or missing */
    int64_t value_differences;  /* diff: outcome + depth + draw-class */
    int64_t encoding;           /* diff: encoding differences */
    int64_t only_a, only_b;     /* diff: sectors on one side only */
    int64_t identical;          /* diff: sectors whose files have the same SHA-256 (not read further) */
    int64_t files, bytes;       /* manifest files recorded and their total size */
    int64_t body_mismatches;    /* open files whose body does not hash to their header's digest */
    int64_t inputs_absent;      /* distinct successor files the sector messages name as absent */
    const char *absent_names;   /* the first three of them, ", "-separated; NULL if none */
    /* v7 (docs/runs.md): a verdict belongs to its run. */
    int64_t sectors_not_checked; /* planned sectors the run never reached (in `sectors`, entries
                                  * in `entries`, none verified) */
    int64_t planned_sectors;    /* sectors the run set out to check; <= 0: not recorded */
    int64_t continued_by;       /* the run that resumed this one; 0: none */
    /* v10 (docs/download.md): integrity before semantics. */
    int64_t files_damaged;      /* damaged files the run recorded */
    int64_t sectors_damaged;    /* sectors not checked: their file is damaged */
    int64_t sectors_input_damaged; /* sectors not checked: they read a damaged file */
    int64_t unchecked_entries;  /* the entries of sectors not checked for a reason of their own
                                 * (damaged, input damaged, not reached): none verified */
    int64_t sectors_ok;         /* sectors recorded "ok" */
    int damage_published;       /* the damage is against a manifest or attestation (else: against
                                 * the files' own body digests) */
} ma_verdict_counts;

#define MA_VERDICT_MAX_DETAILS 8

typedef struct ma_verdict {
    ma_verdict_state state;
    int good;                   /* the only verdicts a report may show in green: verified, values agree */
    int64_t unproven;           /* within bounds + not verified: every entry not proven */
    int64_t not_verified;       /* entries neither verified, within bounds nor a discrepancy (a
                                 * successor absent or broken, a sector damaged or not checked):
                                 * entries - verified - within bounds - discrepancies, as verify
                                 * counts them */
    int interrupted, incomplete, within_bounds, discrepancies; /* every condition that holds */
    int damaged;                /* files differ from what was published */
    char headline[320];         /* one line, e.g. "verified within bounds only (2,413,677 entries unproven)" */
    char details[MA_VERDICT_MAX_DETAILS][320]; /* further lines, no newline */
    int n_details;
} ma_verdict;

/* Decides the verdict from counts (pure; unit-tested). */
void ma_verdict_decide(const ma_verdict_counts *c, ma_verdict *v);


/* v4 facts of one sector, parallel to ma_run.sectors. -1 / NULL: not recorded. */
typedef struct ma_report_sector {
    int64_t carried_from;       /* 0: checked in this run; N: result carried over from run N */
    char *format;
    int64_t canonical, markers, roots, propagated, missing_child, unverifiable, bound_wins;
    int64_t wins, draws, losses; /* from the histogram; -1 when none recorded */
    char *body_digest;          /* "match", "mismatch", ... (open format header digest), NULL if not recorded */
    int state;                  /* ma_verdict_state of the sector alone */
    int mover_in_hand, opponent_in_hand; /* from the sector name W_B_WF_BF; -1 if not parsable */
} ma_report_sector;

/* A value as data: outcome "win" / "loss" / "draw" / other recorded words, or NULL when unknown. */
typedef struct ma_report_value {
    char *outcome;
    int64_t depth;              /* -1: none */
    char *bound;                /* "exact" / "lower", NULL when not known */
} ma_report_value;

/* v4 facts of one discrepancy row, parallel to ma_run.disc. */
typedef struct ma_report_disc {
    int root;                   /* 1 root, 0 propagated, -1 not recorded */
    int64_t offset;             /* byte offset in the file, -1 not recorded */
    char *move;                 /* the refuting move ("d2-d3xa1", "place g7"), NULL if not recorded */
    char *successor;            /* the successor it leads to, board notation */
    ma_report_value stored, derived;
} ma_report_disc;

/* One run of the same kind and database root (history). */
typedef struct ma_report_history {
    int64_t id;
    char *started_at, *ended_at, *status, *mode;
    int64_t sectors, entries, verified, within_bounds, discrepancies, carried;
    double seconds;
    ma_verdict_state state;
} ma_report_history;

typedef struct ma_report {
    ma_run run;
    int v4;                      /* the store has the schema v4 columns */
    char *mode;                  /* "full", "resume", "incremental"; NULL before v4 */
    int64_t resumed_from;        /* 0: none */
    int64_t continued_by;        /* v7: the run that resumed this one; 0: none */
    int64_t planned_sectors;     /* v6: sectors the run selected; -1: not recorded */
    char *options;               /* JSON text of the result-affecting options, NULL if none */
    char *side_b;                /* diff: B's path (options "b", else from an "identical" message) */
    ma_report_sector *sx;        /* run.n_sectors of them */
    ma_report_disc *dx;          /* run.n_disc of them */
    ma_report_history *history;  /* runs of this kind and root up to this one, oldest first (last 30) */
    size_t n_history;
    ma_verdict_counts totals;    /* sums over the sectors (the total row of every table) */
    char absent_names[160];      /* storage of totals.absent_names */
    int64_t total_canonical, total_markers, total_missing_child, total_bound_wins; /* -1: not recorded */
    int64_t total_wins, total_draws, total_losses; /* -1: no histogram */
    double total_seconds;
    ma_verdict verdict;
    ma_audit_integrity integrity; /* v10: the run's integrity phase (integrity.recorded 0: none) */
} ma_report;

/* Loads run id (0: the newest) of a store. Errors as ma_run_load; out is zeroed first and must be
 * freed with ma_report_free, also after an error. */
int ma_report_load(ma_audit *a, int64_t id, ma_report *out, ma_error *err);
/* Derives the report of a run held in memory (no store: no v4 facts, no history), for tests and
 * callers that built r->run themselves; everything but r->run must be zero. */
int ma_report_derive(ma_report *r, ma_error *err);
void ma_report_free(ma_report *r);
/* Frees everything but r->run (for a run the caller owns, as with ma_report_derive). */
void ma_report_release(ma_report *r);

/* Parses a recorded value text ("win 13", "loss 2 (0x4002)", ">= win 5 (3,4)", "draw (count 3)")
 * into v (strings malloc'd). Unknown text gives outcome NULL. Returns -1 on out of memory. */
int ma_report_parse_value(const char *text, ma_report_value *v);

/* Mover and opponent stones in hand from a sector name "<variant>_W_B_WF_BF" (or "W_B_WF_BF");
 * -1 when the name is not of that form. */
void ma_report_in_hand(const char *sector, int *mover, int *opponent);

#endif
