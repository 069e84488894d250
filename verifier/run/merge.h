/*
 * verifier/run/merge: shard runs (verify --shard I/N, each into its own audit store) merged into one
 * run that reads like a single process's run of the whole database (docs/distributed.md).
 *
 * What is copied: per sector the result, class counts, derived-value digest and histogram, inputs,
 * discrepancy set and the rows; the manifest of every file any shard read; the provenance of every
 * shard (store, run, host, start, end, command line) in run_shards.
 *
 * What is decided again: root or propagated. A shard classifies a discrepancy with only the
 * discrepancy sets of the sectors it checked itself, so a discrepancy whose successor is wrong in a
 * sector another shard checked is a root there and propagated in a single run. Every shard records
 * every sector's full discrepancy set and the entries that are roots by rule, so the merge
 * classifies every discrepancy again by the rule of the run engine (ma_rs_classify_sets: unrank the
 * entry with the checker's index of the database's format, generate its turns, rank each successor
 * in its sector and look it up in that sector's merged set); no database file is read. Roots come
 * first again and the rows a single run would keep (the first max_rows by root first, then entry)
 * are selected among the rows the shards kept (a shard keeps max_rows local roots and max_rows
 * local propagated where its classification may change). When those rows do not contain the
 * selection (more than max_rows local roots of which some became propagated), the counts, sets and
 * digests stay exact and the sector's message says that its rows may differ from a single run's.
 *
 * Refused (MA_EFORMAT, exit 3, one line, nothing written): a store given twice, the output among
 * the shards, a run that is no shard run, shards of different database roots, tool versions,
 * options or shard counts, one shard index twice, a sector recorded by two shards, manifests that
 * disagree on a file both read. Reported and, unless allow_partial, making the merged run
 * incomplete (exit 3): missing shards, interrupted shard runs.
 *
 * The coverage proof ("verified" = every sector of the database's inventory checked, on the bytes
 * whose digests are recorded; docs/distributed.md "What the merge checks"): also refused are a
 * shard without an inventory (verifier/run/inventory.h), an inventory or plan whose rows do not hash
 * to its digests or whose partition is not ma_shard_partition's, shards planned from different
 * inventories or plans (naming the first file or sector that differs), a recorded sector outside
 * the plan or in another shard's part, a finished shard without a result for a sector of its part,
 * and a sector row that does not add up (entries = verified + within bounds + discrepancies + not
 * verified; checked, classes, roots + propagated and the set agree; the status is the counts'; the
 * entries are the plan's) or is not backed by its file in the inventory and the shard's manifest.
 * A merge that leaves planned sectors without a result is never verified, allow_partial or not.
 */
#ifndef MA_VERIFIER_MERGE_H
#define MA_VERIFIER_MERGE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ma_error.h"
#include "millaudit/verify.h"
#include "verifier/run/run.h"

/* The options, the result and ma_merge_runs are public: include/millaudit/verify.h. */

#endif
