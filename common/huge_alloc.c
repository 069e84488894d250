/* Memory on 2 MiB pages; contract in huge_alloc.h. */
#include "common/huge_alloc.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

size_t ma_huge_size(size_t bytes)
{
    size_t alloc = (bytes + MA_HUGE_PAGE - 1) / MA_HUGE_PAGE * MA_HUGE_PAGE;
    return alloc ? alloc : MA_HUGE_PAGE;
}

void *ma_huge_alloc(size_t bytes)
{
    if (bytes > (size_t)-1 - MA_HUGE_PAGE)
        return NULL;
    size_t alloc = ma_huge_size(bytes);
    void *mem = aligned_alloc(MA_HUGE_PAGE, alloc);
    if (mem)
        madvise(mem, alloc, MADV_HUGEPAGE);
    return mem;
}

/* The system's page: what mprotect works in. */
static size_t small_page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

size_t ma_fit_size(size_t bytes)
{
    if (bytes >= MA_HUGE_PAGE)
        return ma_huge_size(bytes);
    size_t page = small_page();
    size_t alloc = (bytes + page - 1) / page * page;
    return alloc ? alloc : page;
}

void *ma_fit_alloc(size_t bytes)
{
    if (bytes >= MA_HUGE_PAGE)
        return ma_huge_alloc(bytes);
    /* populated at once: the caller fills every page, and one call costs less than a fault each */
    void *mem = mmap(NULL, ma_fit_size(bytes), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return mem == MAP_FAILED ? NULL : mem;
}

void ma_fit_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes >= MA_HUGE_PAGE)
        free(p);
    else
        munmap(p, ma_fit_size(bytes));
}
