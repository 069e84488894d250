/*
 * common/huge_alloc: memory on 2 MiB pages, for data read at random (a checker's copies of its
 * successors' entries, a file read privately for a check): with 4 KiB pages nearly every random
 * read of a large buffer also misses the TLB.
 *
 * Contract:
 *  - ma_huge_alloc(bytes) returns memory aligned to MA_HUGE_PAGE, ma_huge_size(bytes) long (at
 *    least bytes, a whole number of 2 MiB pages; one page for 0), advised for huge pages
 *    (MADV_HUGEPAGE) and not yet touched, or NULL. Release it with free(). Whoever changes its
 *    protection (mprotect) restores PROT_READ | PROT_WRITE over all ma_huge_size(bytes) bytes
 *    before free(): the allocator may write into memory it is given back.
 *  - ma_fit_alloc(bytes) is ma_huge_alloc(bytes) from MA_HUGE_PAGE bytes on; below one huge page
 *    it returns memory aligned to the system page, ma_fit_size(bytes) long (bytes rounded up to
 *    whole system pages; one page for 0), not advised for huge pages, or NULL: a 40 KB buffer then
 *    holds 40 KB, not a whole 2 MiB page (a page that small costs few TLB entries anyway).
 *    ma_fit_size(bytes) is ma_huge_size(bytes) from MA_HUGE_PAGE on. Released, and protected, as
 *    ma_huge_alloc's memory, over ma_fit_size(bytes) bytes.
 * Nothing here knows about files or formats.
 */
#ifndef MA_COMMON_HUGE_ALLOC_H
#define MA_COMMON_HUGE_ALLOC_H

#include <stddef.h>

#define MA_HUGE_PAGE ((size_t)2 << 20)

size_t ma_huge_size(size_t bytes);
void *ma_huge_alloc(size_t bytes);
size_t ma_fit_size(size_t bytes);
void *ma_fit_alloc(size_t bytes);

#endif
