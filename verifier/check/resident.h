/*
 * Huge-page backed copies of sector entries, made by the check's own threads.
 *
 * A checker reads its successor sectors' entries at random; from the file mappings on 4 KiB pages
 * nearly every read also misses the TLB, so it copies them into memory on 2 MiB pages first. On a
 * sector of tens of millions of entries the copy (and the first touch of every fresh page, which
 * the kernel must zero) takes a tenth of a second: made by one thread before the others start, it
 * would be time in which only one core works. So the copies are only planned before the threads
 * start (ma_resident_add), and every thread of the check calls ma_resident_fill first: it takes
 * slices of 2 MiB until none is left, then waits until every slice is done.
 *
 * Contract:
 *  - destinations come from ma_huge_alloc (common/huge_alloc.h): 2 MiB-aligned memory advised
 *    for huge pages, so that no two slices share a huge page.
 *  - ma_resident_add plans one copy of `bytes` bytes from src to dst, or zeroes of dst when src is
 *    NULL; at most MA_RESIDENT_PARTS parts (MA_EINVAL past that, nothing planned). With
 *    drop_src, src must lie inside a read-only MAP_PRIVATE file mapping (a format reader's): once
 *    a slice is copied, the pages of src wholly inside it are dropped from the process
 *    (MADV_DONTNEED), so the copy does not hold the unit's bytes twice (issue 47). That changes no
 *    byte any reader of the mapping sees: a page the process never wrote is the file's page-cache
 *    page, so it shows the file's current bytes whether it stays mapped or is faulted in again
 *    (a file rewritten in place shows its new bytes either way, which the run's re-hash relies
 *    on, docs/runs.md). On any other memory drop_src would zero it: never set it there.
 *  - ma_resident_fill may be called by any number of threads, each once, after every
 *    ma_resident_add and before any of them reads a dst. When it returns, every planned part is
 *    complete in every caller's view (the last slice's completion is published under a mutex).
 *    No thread that calls it may be left out: the slices are taken by whichever threads arrive,
 *    so one thread alone completes all of them.
 *  - ma_resident_init before the first add; ma_resident_destroy when no thread is inside fill.
 */
#ifndef MA_CHECK_RESIDENT_H
#define MA_CHECK_RESIDENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/huge_alloc.h"

#define MA_RESIDENT_PARTS 8
#define MA_RESIDENT_PAGE MA_HUGE_PAGE

typedef struct {
    void *dst;
    const void *src; /* NULL: zero dst */
    size_t bytes;
    int drop_src;     /* src's pages are dropped once copied (ma_resident_add) */
} ma_resident_part;

typedef struct {
    ma_resident_part part[MA_RESIDENT_PARTS];
    int n_parts;
    uint64_t n_slices;
    atomic_uint_fast64_t next; /* the next slice to take */
    pthread_mutex_t mu;
    pthread_cond_t all_done;
    uint64_t done; /* slices completed, under mu */
    size_t os_page; /* the system's page size: the unit pages are dropped in */
} ma_resident;

void ma_resident_init(ma_resident *r);
int ma_resident_add(ma_resident *r, void *dst, const void *src, size_t bytes, int drop_src);
void ma_resident_fill(ma_resident *r);
void ma_resident_destroy(ma_resident *r);

#endif
