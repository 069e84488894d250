/*
 * millaudit/verdict.h: part of the public API (millaudit.h): ma_verdict_state, the one verdict of
 * the product. What a run proved (verify, a shard, a merge, a resumed or incremental run), what a
 * diff found, or that a manifest run recorded what it read.
 *
 * Every verdict the tool states, in any output, is one of these values: the run engine and the
 * merge decide one, the store keeps it as the run's status string (ma_verdict_status), reports
 * word it (ma_verdict_state_name) and only a program maps it to an exit status
 * (ma_verdict_exit_code). The numbering is the order of severity reports sort by; it is not stored
 * anywhere, so it may change without a schema migration.
 */
#ifndef MILLAUDIT_VERDICT_H
#define MILLAUDIT_VERDICT_H

#include "millaudit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ma_verdict_state {
    MA_VERDICT_VERIFIED = 0,   /* every entry of every sector re-derived and matching */
    MA_VERDICT_WITHIN_BOUNDS,  /* nothing contradicted, but some entries only within bounds */
    MA_VERDICT_INCOMPLETE,     /* inputs unusable or missing: part of the database was not checked */
    MA_VERDICT_INTERRUPTED,    /* the run never ended (killed, SIGINT, SIGTERM) */
    MA_VERDICT_DISCREPANCIES,  /* stored values the checker refutes */
    MA_VERDICT_AGREE,          /* diff: every value agrees (encodings may differ) */
    MA_VERDICT_DIFFER,         /* diff: values differ, or a sector is on one side only */
    MA_VERDICT_RECORDED,       /* manifest and other kinds: the run recorded what it read */
    MA_VERDICT_PARTIAL,        /* a claim about part of a database holds (attest verify of a
                                * statement of some sectors): it proves those sectors given the
                                * inputs it read, never the database (docs/attestations.md) */
    MA_VERDICT_DAMAGED         /* files differ from what was published (or from their own body
                                * digest): fetch them again; never a finding about the solver
                                * (docs/download.md) */
} ma_verdict_state;

#define MA_VERDICT_STATES 10

/* Flags of ma_verdict_exit_code. */
enum {
    MA_VERDICT_ALLOW_BOUNDS = 1 /* a verify run's allow_bounds: within bounds only exits 0 */
};

/* Stable names for JSON, CSS and messages: "verified", "within-bounds", "incomplete",
 * "interrupted", "discrepancies", "values-agree", "values-differ", "recorded", "partial", "damaged";
 * "unknown" for a value outside the enum. */
MA_API const char *ma_verdict_state_name(ma_verdict_state s);

/* The status string the audit store records for a finished run of this verdict: "ok" for
 * verified (the store's word since schema v1), otherwise the name. */
MA_API const char *ma_verdict_status(ma_verdict_state s);

/* The exit status a verdict stands for (millaudit(1), EXIT STATUS): 0 verified, values agree,
 * recorded (and within bounds with MA_VERDICT_ALLOW_BOUNDS); 1 discrepancies, values differ;
 * 3 within bounds, incomplete, interrupted (the run did not prove the database whole), damaged
 * (files differ from what was published: fetch them again); 6 partial. */
MA_API int ma_verdict_exit_code(ma_verdict_state s, unsigned flags);

/*
 * How a command ends: every engine that does a command's whole job returns one of these (its
 * "result"), and only the program turns it into the process's exit status with
 * ma_result_exit_code, so no library module decides an exit status:
 *   MA_OK                               the work was done and there is nothing to judge (exit 0)
 *   a negative MA_E* code                the error that stopped it (ma_exit_code_for; MA_EUSAGE 2)
 *   ma_result_of_verdict(v, flags)      the work was done and this is its verdict
 *   ma_result_of_signal(signo)          stopped by a signal, results so far committed (128 + signo)
 */
MA_API int ma_result_of_verdict(ma_verdict_state v, unsigned flags);
MA_API int ma_result_of_signal(int signo);
/* An error that made an input unusable, as a result that exits 3 whatever the code alone would
 * say: code itself when it already reads as bad input, else MA_EFORMAT. */
MA_API int ma_result_of_unusable(int code);
MA_API int ma_result_exit_code(int result);

#ifdef __cplusplus
}
#endif

#endif
