/* alloc.c: large allocations.  A block of 4 MiB or more is advised to use
 * transparent huge pages, which cuts the page faults of its first touch (the
 * largest cost of fresh C~ and C arrays) several hundred fold.  It stays a
 * plain malloc block, so that free() may release it.
 *
 * Memory fresh from the system is zeroed by the kernel at its first touch:
 * for a C of 65 MB that took a third of a product.  So the large arrays of
 * matrices given back by hsp_csr_free are kept for the next matrix of about
 * their size (at most CACHE_SLOTS blocks, at most CACHE_SHARE of the
 * machine's memory and CACHE_MAX_BYTES in all, the oldest given back first);
 * hsp_release_memory hands them to the system.  Under AddressSanitizer
 * nothing is kept, so that a use after hsp_csr_free is still caught. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "core/internal.h"

enum { PAGE = 4096, LARGE = 4 << 20, CACHE_SLOTS = 8, CACHE_SHARE = 16 };
#define CACHE_MAX_BYTES ((size_t)1 << 30)

static struct {
    pthread_mutex_t lock;
    int n;                    /* blocks kept, oldest first */
    void *block[CACHE_SLOTS];
    size_t size[CACHE_SLOTS]; /* their usable sizes */
    size_t bytes;             /* their sum */
} cache = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, {0}, 0};
static pthread_once_t cache_forks = PTHREAD_ONCE_INIT;

static void cache_unlock(void)
{
    pthread_mutex_unlock(&cache.lock);
}

static void cache_lock_now(void)
{
    pthread_mutex_lock(&cache.lock);
}

/* The cache's lock held across a fork() (taken before, given back after in
 * parent and child): a fork while another thread held it would leave it
 * held in the child for good. */
static void cache_guard_forks(void)
{
    pthread_atfork(cache_lock_now, cache_unlock, cache_unlock);
}

/* Take the cache's lock (its fork handlers set up at the first). */
static void cache_lock(void)
{
    pthread_once(&cache_forks, cache_guard_forks);
    cache_lock_now();
}

/* Most bytes the cache keeps: CACHE_MAX_BYTES, or less on a small machine. */
static size_t cache_limit(void)
{
#ifdef __SANITIZE_ADDRESS__
    return 0; /* every free reaches AddressSanitizer */
#endif
    size_t share = (size_t)hsp_physical_memory() / CACHE_SHARE;
    return share < CACHE_MAX_BYTES ? share : CACHE_MAX_BYTES;
}

int64_t hsp_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (int64_t)pages * page : 0;
}

/* MemAvailable of /proc/meminfo in bytes, or -1 where it cannot be read. */
static int64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long long kib = -1;
    while (f && kib < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) != 1) kib = -1;
    if (f) fclose(f);
    return kib < 0 ? -1 : (int64_t)kib * 1024;
}

/* The address space left under RLIMIT_AS (its limit less what is mapped,
 * /proc/self/statm's size), or INT64_MAX where there is no limit. */
static int64_t address_space_left(void)
{
    struct rlimit rl;
    long long pages = 0;
    if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY) return INT64_MAX;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%lld", &pages) != 1) pages = 0;
    if (f) fclose(f);
    int64_t mapped = (int64_t)pages * sysconf(_SC_PAGESIZE), limit = (int64_t)rl.rlim_cur;
    return limit > mapped ? limit - mapped : 0;
}

int64_t hsp_available_memory(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    int64_t have = mem_available(), left = address_space_left();
    if (have < 0) have = pages > 0 && page > 0 ? (int64_t)pages * page : 0;
    if (!have) return left == INT64_MAX ? 0 : left;
    return left < have ? left : have;
}

int64_t hsp_memory_limit(const hsp_options *o)
{
    int64_t machine = hsp_physical_memory();
    return o->mem_limit > 0 ? o->mem_limit : machine > 0 ? machine : INT64_MAX;
}

/* Drop kept block k from the cache (the lock held); returns it. */
static void *cache_take(int k)
{
    void *p = cache.block[k];
    cache.bytes -= cache.size[k];
    cache.n--;
    for (int j = k; j < cache.n; j++) cache.block[j] = cache.block[j + 1], cache.size[j] = cache.size[j + 1];
    return p;
}

/* The smallest kept block of bytes .. 1.5 bytes, or NULL. */
static void *cache_find(size_t bytes)
{
    void *p = NULL;
    cache_lock();
    int best = -1;
    for (int k = 0; k < cache.n; k++)
        if (cache.size[k] >= bytes && cache.size[k] - bytes <= bytes / 2
            && (best < 0 || cache.size[k] < cache.size[best]))
            best = k;
    if (best >= 0) p = cache_take(best);
    cache_unlock();
    return p;
}

void *hsp_alloc(size_t bytes)
{
    void *p = bytes >= LARGE ? cache_find(bytes) : NULL;
    if (p) return p;
    p = malloc(bytes ? bytes : 1);
    if (p) hsp_advise_huge(p, bytes);
    return p;
}

void hsp_advise_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= LARGE) {
        uintptr_t start = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
        uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)(PAGE - 1);
        madvise((void *)start, end - start, MADV_HUGEPAGE);
    }
#else
    (void)p, (void)bytes;
#endif
}

void hsp_free_large(void *p)
{
    size_t size = p ? malloc_usable_size(p) : 0, limit = size >= LARGE ? cache_limit() : 0;
    if (size < LARGE || size > limit) {
        free(p);
        return;
    }
    void *evicted[CACHE_SLOTS];
    int nevicted = 0;
    cache_lock();
    while (cache.n == CACHE_SLOTS || cache.bytes + size > limit) evicted[nevicted++] = cache_take(0);
    cache.block[cache.n] = p, cache.size[cache.n] = size;
    cache.n++, cache.bytes += size;
    cache_unlock();
    for (int k = 0; k < nevicted; k++) free(evicted[k]);
}

void hsp_release_memory(void)
{
    cache_lock();
    while (cache.n > 0) free(cache_take(cache.n - 1));
    cache_unlock();
}
