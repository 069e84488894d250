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

/* The process's own memory beside what grows with a sector (program, libraries, SQLite, index
 * tables, per-thread buffers and stacks of up to 16 threads): whole shards of the 4-stone game
 * peaked at 23-36 MiB with 2 threads, 53-68 MiB with 16 (files and copies included); stated with
 * room to spare. */
#define MA_CHECK_FIXED_BYTES ((uint64_t)96 << 20)

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
