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
    int64_t sectors_carried;    /* sectors whose result was carried over from an earlier run */
    const char *scope;          /* runs.scope: "sectors" says so in a verified headline; NULL, "database" */
    /* v11 (docs/download.md): integrity before semantics. */
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
    /* Where the fault lies (issue 45): MA_REPORT_ROOT for a sector with a fault of its own (root
     * discrepancies, or a split not recorded, or a body that does not match its header; diff: a
     * difference of its own), MA_REPORT_CONSEQUENCE for one wrong only because root sectors among
     * its successors are (propagated discrepancies only; diff: every difference through a
     * successor), 0 for a sector without discrepancies. because: the root sectors ("std_4_3_0_0,
     * std_4_4_0_0") of a consequence, else NULL. */
    int cause;
    char *because;
} ma_report_sector;

enum { MA_REPORT_ROOT = 1, MA_REPORT_CONSEQUENCE = 2 };

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

/* What changed since the previous run of the same database (reports/store/history.h): the basis
 * of the verdict box's "since" line. run 0: no previous run (the first of its root, or not a
 * verify run). Names are ", "-separated, at most a few, "" when none. */
typedef struct ma_report_since {
    int64_t run;                 /* the previous run; 0: none */
    char started_at[40], status[32];
    int regressed, verdict_worse, verdict_better;
    size_t n_faults, n_consequences, n_fixed, n_improved, n_changed;
    size_t n_follows;            /* of n_improved: sectors that improved as a consequence of fixes below them */
    size_t n_fixed_consequences; /* of n_fixed and n_follows: fixed as a consequence */
    size_t n_unchecked;          /* regressions only because the run did not check them */
    char faults[320];            /* root regressions */
    char fixed[320];             /* the other fixed sectors: the ones with a fault of their own */
} ma_report_since;

/* The verdict box (docs/report.md §1): lines every format shows under the headline, "" when they
 * do not apply. */
typedef struct ma_report_box {
    char faulty[640];            /* "std_4_3_0_0 (651,831 roots), std_4_4_0_0 (200,820 roots)" */
    char consequences[640];      /* "20 sectors with propagated discrepancies only, a consequence of ..." */
    char first_root[640];        /* "std_4_3_0_0 entry 0: position ...: stored ..., derived ..., refuted by a1-a4" */
    char since[640];             /* what changed since the previous run */
    char next[2600];             /* the next step: commands naming the database and the store */
} ma_report_box;

typedef struct ma_report {
    ma_run run;
    char *store_path;            /* the store the report was loaded from (for the commands it names) */
    const char *only;            /* ma_store_report_select_sector: the one sector shown (in run) */
    size_t n_root_sectors, n_consequence_sectors;
    int64_t first_root;          /* index into run.disc of the first root row shown; -1 none */
    ma_report_since since;
    ma_report_box box;
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

/* The verdict box (reports/store/report_box.c): each sector's cause, the first root row and the
 * counts (from the loaded run); what changed since the previous run (reads the store); the box's
 * lines from all of it and the verdict. Errors: MA_ENOMEM, the store's. */
int ma_report_causes(ma_report *r, ma_error *err);
/* r->first_root: the first root row of a root sector (of r->only when set), -1 when none. */
void ma_report_first_root(ma_report *r);
int ma_report_since_load(ma_audit *a, ma_report *r, ma_error *err);
void ma_report_box_fill(ma_report *r);
/* A word of a shell command as a user types it (the commands the box names): as is when it is
 * plain, else in single quotes. */
void ma_report_shell_word(char *buf, size_t size, const char *w);
/* A store time ("2026-11-26T02:00:13.123Z") as people read it, "2026-11-26 02:00 UTC", into buf;
 * any other text as it is (truncated to size), NULL as "-". Returns buf. */
const char *ma_report_when(char *buf, size_t size, const char *iso);

/* Parses a recorded value text ("win 13", "loss 2 (0x4002)", ">= win 5 (3,4)", "draw (count 3)")
 * into v (strings malloc'd). Unknown text gives outcome NULL. Returns -1 on out of memory. */
int ma_report_parse_value(const char *text, ma_report_value *v);

/* Mover and opponent stones in hand from a sector name "<variant>_W_B_WF_BF" (or "W_B_WF_BF");
 * -1 when the name is not of that form. */
void ma_report_in_hand(const char *sector, int *mover, int *opponent);

#endif
