/*
 * verifier/run/run: the run engine. One verify run of a database, the same for every format, in named
 * phases (docs/runs.md):
 *
 *   scan      discover the database (verifier/formats/source.h): its sectors and every file it cannot use;
 *   plan      select the sectors to check (all, --sector, a shard), find each one's successor
 *             sectors, group twins (sectors that are each other's successors) into units and order
 *             the units children first;
 *   hash      when the run is recorded: SHA-256 of every file the run will read, recorded as the
 *             run's manifest; each sector's inputs are its own file, its successor sectors' files
 *             (or their absence) and, for .sec2, the <variant>.secval; and the coverage proof
 *             (verifier/run/inventory.h): the inventory of every file of the database (header body
 *             digest, or SHA-256 in the same batch for files without one) and the plan (every
 *             partitioned sector with its shard), with their digests;
 *   carry     --resume / --incremental: a sector whose inputs hash exactly as they did for a
 *             committed result of an earlier run (same database root, tool version and
 *             result-affecting options) is carried over from that run instead of checked;
 *   check     every remaining sector is re-derived from its successors (verifier/check/check.h for the
 *             open format, verifier/check/malom_check.h for Malom's), unit by unit; then every file the
 *             unit read (the sectors' own and their successors') is hashed again from the very
 *             mapping the check read (ma_source_bytes) and must equal the digest the hash phase
 *             recorded (without a store: the digest taken when the file was mapped). A file that
 *             differs was replaced before it was mapped or rewritten in place during the check:
 *             every sector that read it is "unusable" with "changed while being checked" (never
 *             carried over, exit 3). So the digests recorded as a sector's inputs are the digests
 *             of the bytes its check used (docs/runs.md, "The bytes hashed are the bytes checked");
 *   classify  each discrepancy is a root or propagated (one of its successors is itself a
 *             discrepancy; values fixed by the rules alone, bad encodings and symmetry
 *             inconsistencies are always roots), using the successor sectors' full discrepancy sets
 *             (loaded from the store for carried-over sectors);
 *   record    the unit's results, capped rows (roots first), full discrepancy sets, derived-value
 *             digests and histograms are committed to the audit store in one transaction, so a run
 *             stopped at any point keeps every finished unit.
 *
 * Cancellation: opt->cancel (set by a signal handler) stops the run at the next chunk; in-flight
 * sectors are abandoned, the run is recorded as "interrupted" and ma_vrun_execute returns
 * MA_ECANCELED. Its verdict stays "interrupted: K of N sectors checked" for good: the sectors it
 * never reached are "not checked" and its totals count the whole plan. A later `--resume` is a new
 * run that claims it (one write transaction: the claimed run names the run that continued it).
 *
 * The engine prints nothing; progress goes to opt->progress (one reporter for the whole run) and
 * everything else is in the result, which reports/render/verify_text.c and reports/render/verify_json.c write as text
 * or JSON.
 *
 * The public declarations (options, result types, the handle and its accessors) are in
 * include/millaudit/verify.h; this header adds what only the library uses.
 */
#ifndef MA_VERIFIER_RUN_H
#define MA_VERIFIER_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "common/progress.h"
#include "common/verdict.h"
#include "verifier/formats/source.h"
#include "verifier/formats/value.h"
#include "indexer/position.h"
#include "millaudit/verify.h"

/* A run that never ended and whose heartbeat (refreshed at every commit) is younger than this
 * is taken to be in progress by a --resume from another host (docs/runs.md). On the run's own
 * host its recorded process id decides. */
#define MA_VRUN_HEARTBEAT_STALE_SECONDS 3600

/* Discrepancy rows kept per sector when the options say 0 (the default). */
#define MA_VRUN_DEFAULT_ROWS 1000

/* The test build's stops and rendezvous (cli/test_hook.c links into millaudit-planted only): not
 * part of the public options, so no program of the API can come to depend on them. */
typedef struct ma_vrun_test_hooks {
    /* stop as if cancel were set once this many sectors were checked and committed in this run
     * (0: never), so tests interrupt a run at an exact point instead of racing a signal against
     * the run's speed */
    size_t stop_after_sectors;
    /* called at fixed points: step "hashed" once after the hash phase (sector NULL), "opened"
     * each time a sector's file is got from the reader for a check (the first time right after
     * the reader opened it), and "checked" after each sector's check, before its inputs are
     * hashed again; so a test can change a file at a defined moment. NULL: none. */
    void (*on_step)(void *ctx, const char *step, const char *sector);
    void *step_ctx;
    /* non-zero: a unit is read privately only when its files total at most private_budget bytes
     * (0: only a unit of empty files), instead of 4 GiB (run_unit.c), so tests take the path of
     * units over the budget (mapped, hashed again after the check) on small files */
    int lower_private_budget;
    uint64_t private_budget;
} ma_vrun_test_hooks;

/* Installs h (copied) on r before ma_vrun_execute. */
void ma_vrun_set_test_hooks(ma_vrun *r, const ma_vrun_test_hooks *h);

#endif
