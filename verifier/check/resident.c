/* Huge-page copies made by the check's threads; contract in resident.h. */
#include "verifier/check/resident.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/huge_alloc.h"
#include "common/ma_error.h"

void ma_resident_init(ma_resident *r)
{
    memset(r, 0, sizeof *r);
    atomic_init(&r->next, 0);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->all_done, NULL);
    long page = sysconf(_SC_PAGESIZE);
    r->os_page = page > 0 ? (size_t)page : 4096;
}

static uint64_t slices_of(size_t bytes)
{
    return (bytes + MA_RESIDENT_PAGE - 1) / MA_RESIDENT_PAGE;
}

int ma_resident_add(ma_resident *r, void *dst, const void *src, size_t bytes, int drop_src)
{
    if (r->n_parts == MA_RESIDENT_PARTS)
        return MA_EINVAL;
    r->part[r->n_parts++] = (ma_resident_part){dst, src, bytes, drop_src && src};
    r->n_slices += slices_of(bytes);
    return MA_OK;
}

/* Drops the pages wholly inside [p, p + len) of a file mapping (ma_resident_add's drop_src): only
 * whole pages inside the slice, so no page another slice still copies from is dropped under it
 * (one page per slice boundary stays). A refusal leaves the pages mapped: memory, not bytes. */
static void drop_pages(const ma_resident *r, const void *p, size_t len)
{
    uintptr_t lo = ((uintptr_t)p + r->os_page - 1) / r->os_page * r->os_page;
    uintptr_t hi = ((uintptr_t)p + len) / r->os_page * r->os_page;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* Slice s of the parts in order: one 2 MiB page of one part's destination, so no two threads ever
 * write one huge page. */
static void do_slice(const ma_resident *r, uint64_t s)
{
    for (int i = 0; i < r->n_parts; i++) {
        const ma_resident_part *p = &r->part[i];
        uint64_t n = slices_of(p->bytes);
        if (s >= n) {
            s -= n;
            continue;
        }
        size_t off = (size_t)s * MA_RESIDENT_PAGE;
        size_t len = p->bytes - off < MA_RESIDENT_PAGE ? p->bytes - off : MA_RESIDENT_PAGE;
        if (p->src) {
            memcpy((char *)p->dst + off, (const char *)p->src + off, len);
            if (p->drop_src)
                drop_pages(r, (const char *)p->src + off, len);
        } else
            memset((char *)p->dst + off, 0, len);
        return;
    }
}

void ma_resident_fill(ma_resident *r)
{
    uint64_t mine = 0;
    for (;;) {
        uint64_t s = atomic_fetch_add(&r->next, 1);
        if (s >= r->n_slices)
            break;
        do_slice(r, s);
        mine++;
    }
    pthread_mutex_lock(&r->mu);
    r->done += mine;
    if (r->done == r->n_slices)
        pthread_cond_broadcast(&r->all_done);
    while (r->done < r->n_slices)
        pthread_cond_wait(&r->all_done, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

void ma_resident_destroy(ma_resident *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->all_done);
}
