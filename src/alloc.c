/* alloc.c: large allocations.  Blocks of 4 MiB and more are aligned to 2 MiB
 * and advised to use transparent huge pages, which cuts the page faults of
 * first touch (the largest cost of fresh C~ and C arrays) several hundred
 * fold.  Every block is released with free(). */
#include <stdlib.h>
#include <sys/mman.h>
#include "internal.h"

enum { HUGE_PAGE = 2 << 20, LARGE = 4 << 20 };

void *hsp_alloc(size_t bytes)
{
    if (bytes < LARGE) return malloc(bytes ? bytes : 1);
    size_t rounded = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
    void *p = aligned_alloc(HUGE_PAGE, rounded);
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}
