/* Memory on 2 MiB pages; contract in huge_alloc.h. */
#include "common/huge_alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

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
