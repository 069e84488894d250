/*
 * verifier/check/memory: the most private memory one sector's check holds, from what a plan knows
 * without opening a file (the sizes of the sector's file and of its successors' files, and the
 * sector's entries), so that `verify --plan` can state a task's peak (verifier/run/run_peak.c,
 * docs/distributed.md "Memory per task").
 *
 * What a check holds besides the mapped files, at most, all rounded up to 2 MiB pages (they come
 * from ma_huge_alloc, on huge pages):
 *  - the huge-page copies of ma_walk_copies: the open checker copies its distinct successor files'
 *    bodies in one batch and, when the sector is not its own successor, its own body in another;
 *    Malom's checker copies the successors' and its own entries in one batch. A batch is copied
 *    only when the sizes of its files total MA_RESIDENT_PAGE .. MA_WALK_RESIDENT_BUDGET (judged on
 *    whole files, verifier/check/walk.h), and a copy is never larger than its file; no copy at all
 *    when the files were read privately (files_private): the walk reads them where they are;
 *  - the visited bitmap (one bit per entry; the open checker has one only when it walks by mask,
 *    counted always here) and the threads' own bitmaps, together at most MA_VISITED_OWN_BUDGET
 *    (verifier/check/visited.h);
 *  - the discrepancy set: 8 bytes per discrepancy found, which no plan can know: not counted.
 * Per-thread buffers, the indexes' tables and Malom's tables per distinct stored word (a few
 * thousand words in real files) do not grow with entries: they are in MA_CHECK_FIXED_BYTES, the
 * allowance for the process itself.
 */
#ifndef MA_CHECK_MEMORY_H
#define MA_CHECK_MEMORY_H

#include <stdint.h>

#include "millaudit/types.h"
#include "verifier/check/rules.h"
#include "verifier/check/walk.h"

/* The process's own memory beside what grows with a sector (program, libraries, SQLite, index
 * tables, per-thread buffers and stacks of up to 16 threads): whole shards of the 4-stone game
 * peaked at 23-36 MiB with 2 threads, 53-68 MiB with 16 (files and copies included); stated with
 * room to spare. */
#define MA_CHECK_FIXED_BYTES ((uint64_t)96 << 20)

/* The budget of the walk's copies and of a verify unit's private read in a process that may take
 * `available` bytes (common/memory_available.h; 0 when unknown): MA_WALK_RESIDENT_BUDGET, or
 * half of what is left beside MA_CHECK_FIXED_BYTES when that is less (at least 1: 0 reads as
 * "the default" in ma_check_input). Both are anonymous memory the kernel cannot reclaim: on a host
 * that cannot hold them beside the rest of the check and the page cache, a private read or a copy
 * ends in a refused allocation (a stopped run) or the out-of-memory killer (overcommit lets the
 * allocation succeed), where the mapped files are merely slower. Half, because the visited
 * bitmaps, the mapped files' pages and other processes need the other half. So a plan
 * (ma_check_private_bytes, computed with MA_WALK_RESIDENT_BUDGET) is an upper bound on a smaller
 * host: there fewer files are copied or read privately, and a mapped file counts as much. */
static inline uint64_t ma_check_resident_budget(uint64_t available)
{
    if (!available)
        return MA_WALK_RESIDENT_BUDGET;
    uint64_t half = available > MA_CHECK_FIXED_BYTES ? (available - MA_CHECK_FIXED_BYTES) / 2 : 0;
    return half >= MA_WALK_RESIDENT_BUDGET ? MA_WALK_RESIDENT_BUDGET : half ? half : 1;
}

typedef struct ma_check_memory_in {
    ma_format format;
    uint64_t entries;                    /* the sector's entries */
    uint64_t self_file;                  /* bytes of the sector's file */
    int self_is_child;                   /* the sector is its own successor */
    uint64_t child_file[MA_TURN_KINDS];  /* bytes of each distinct successor file other than the
                                          * sector's own, 0 for none (absent ones too) */
    int files_private;                   /* the files were read into private memory (a
                                          * verify unit within the budget, verifier/run/run_unit.c):
                                          * the walk copies none of them, so no copy is counted
                                          * (the caller counts the private files themselves) */
} ma_check_memory_in;

/* The private bytes the check of that sector holds at most (see above). */
uint64_t ma_check_private_bytes(const ma_check_memory_in *in);

#endif
