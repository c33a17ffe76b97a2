/* alloc.c: large allocations.  A block of 4 MiB or more is advised to use
 * transparent huge pages, which cuts the page faults of its first touch (the
 * largest cost of fresh C~ and C arrays) several hundred fold.  It stays a
 * plain malloc block, so that the allocator can recycle it (no faults at all)
 * when a block of that size was freed before, and free() releases it. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "internal.h"

enum { PAGE = 4096, LARGE = 4 << 20 };

void *hsp_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
#ifdef MADV_HUGEPAGE
    if (p && bytes >= LARGE) {
        uintptr_t start = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
        uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(PAGE - 1);
        madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#endif
    return p;
}
