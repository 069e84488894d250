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
 * Nothing here knows about files or formats.
 */
#ifndef MA_COMMON_HUGE_ALLOC_H
#define MA_COMMON_HUGE_ALLOC_H

#include <stddef.h>

#define MA_HUGE_PAGE ((size_t)2 << 20)

size_t ma_huge_size(size_t bytes);
void *ma_huge_alloc(size_t bytes);

#endif
