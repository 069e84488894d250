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
 *    it maps memory of its own (anonymous, private), aligned to the system page, ma_fit_size(bytes)
 *    long (bytes rounded up to whole system pages; one page for 0), not advised for huge pages, or
 *    NULL: a 40 KB buffer then holds 40 KB, not a whole 2 MiB page (at most 512 ordinary pages,
 *    which the TLB's second level holds). ma_fit_size(bytes) is ma_huge_size(bytes) from
 *    MA_HUGE_PAGE on. Release it with ma_fit_free(p, bytes) (NULL allowed), after restoring
 *    PROT_READ | PROT_WRITE over ma_fit_size(bytes) bytes if the protection was changed: below one
 *    huge page the memory goes back to the system at once, where the allocator, once it has had
 *    2 MiB buffers back, would serve smaller ones from its heap and keep them resident.
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
void ma_fit_free(void *p, size_t bytes);

#endif
