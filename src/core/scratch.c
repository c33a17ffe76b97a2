/* scratch.c: per-thread workspaces. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/internal.h"
#include "core/scratch.h"

enum { ARENA_BLOCK = 8 << 20, CACHE_LINE = 64 };
/* A region's ranges: the machine's memory, at most 64 GiB (address space
 * only: pages come as rows touch them). */
#define REGION_MAX ((size_t)64 << 30)

struct hsp_arena_block {
    hsp_arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

hsp_status hsp_scratch_need(void **p, size_t *have, size_t bytes)
{
    if (bytes <= *have) return HSP_OK;
    size_t want = bytes + bytes / 2;
    void *q;
    if (posix_memalign(&q, CACHE_LINE, want))
        return hsp_fail(HSP_ERR_NOMEM, "no memory for a workspace of %zu bytes", want);
    hsp_advise_huge(q, want);
    free(*p);
    *p = q;
    *have = want;
    return HSP_OK;
}

hsp_status hsp_scratch_dense(hsp_scratch *s, int64_t n)
{
    if (n <= s->acc_len) return HSP_OK;
    free(s->acc);
    free(s->bits);
    free(s->top);
    s->acc = malloc((size_t)n * sizeof(double)); /* either precision: a context serves both */
    s->bits = calloc((size_t)(n + 63) / 64, sizeof *s->bits);
    s->top = calloc((size_t)(n + 4095) / 4096, sizeof *s->top);
    s->acc_len = (s->acc && s->bits && s->top) ? n : 0;
    return s->acc_len ? HSP_OK
                      : hsp_fail(HSP_ERR_NOMEM, "no memory for a dense accumulator of %lld columns",
                                 (long long)n);
}

hsp_status hsp_scratch_marks(hsp_scratch *s, int64_t n)
{
    if (n <= s->mark_len) return HSP_OK;
    free(s->mark);
    s->mark = calloc((size_t)n, sizeof *s->mark);
    s->mark_len = s->mark ? n : 0;
    s->tag = 0;
    return s->mark ? HSP_OK
                   : hsp_fail(HSP_ERR_NOMEM, "no memory for the marks of %lld columns", (long long)n);
}

hsp_status hsp_scratch_hash(hsp_scratch *s, int64_t n)
{
    int64_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap <= s->hcap) return HSP_OK;
    free(s->hkey);
    free(s->hval);
    s->hkey = malloc((size_t)cap * sizeof *s->hkey);
    s->hval = malloc((size_t)cap * sizeof(double));
    if (!s->hkey || !s->hval) {
        free(s->hkey), free(s->hval);
        s->hkey = NULL, s->hval = NULL;
        s->hcap = 0;
        return hsp_fail(HSP_ERR_NOMEM, "no memory for a hash table of %lld entries", (long long)cap);
    }
    memset(s->hkey, 0xff, (size_t)cap * sizeof *s->hkey);
    s->hcap = cap;
    return HSP_OK;
}

void *hsp_arena_alloc(hsp_scratch *s, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    hsp_arena_block **at = s->arena_at ? s->arena_at : &s->arena;
    while (*at && (*at)->size - (*at)->used < bytes) at = &(*at)->next; /* kept blocks */
    if (!*at) {
        size_t size = bytes > ARENA_BLOCK ? bytes : ARENA_BLOCK;
        hsp_arena_block *b = hsp_alloc(sizeof *b + size);
        if (!b) return NULL;
        b->next = NULL, b->size = size, b->used = 0;
        *at = b;
    }
    s->arena_at = at; /* blocks before it are full: the next call starts here */
    void *p = (*at)->data + (*at)->used;
    (*at)->used += bytes;
    return p;
}

/* Bytes of each range of a region: the machine's memory, at most REGION_MAX. */
static size_t region_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    size_t memory = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : REGION_MAX;
    return memory < REGION_MAX ? memory : REGION_MAX;
}

hsp_region *hsp_region_get(hsp_scratch *s)
{
    hsp_region *r = &s->region;
    if (r->base[0] || r->refused) return r->base[0] ? r : NULL;
    size_t bytes = region_bytes();
    for (int k = 0; k < 2; k++) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        r->base[k] = p == MAP_FAILED ? NULL : p;
    }
    if (r->base[0] && r->base[1]) {
        r->reserved = bytes, r->top[0] = r->top[1] = 0;
        for (int k = 0; k < 2; k++) hsp_advise_huge(r->base[k], bytes);
        return r;
    }
    for (int k = 0; k < 2; k++)
        if (r->base[k]) munmap(r->base[k], bytes);
    memset(r, 0, sizeof *r);
    r->refused = 1;
    return NULL;
}

hsp_status hsp_region_full(const hsp_region *r)
{
    return hsp_fail(HSP_ERR_NOMEM, "a thread's rows outgrow its %zu bytes of address space", r->reserved);
}

void hsp_arena_reset(hsp_scratch *s)
{
    for (hsp_arena_block *b = s->arena; b; b = b->next) b->used = 0;
    s->arena_at = NULL;
    hsp_region *r = &s->region;
    hsp_region_empty(r);
    for (int k = 0; k < 2; k++) { /* keep the pages this job used, give back those beyond */
        if (r->kept[k] > r->peak[k]) madvise(r->base[k] + r->peak[k], r->kept[k] - r->peak[k], MADV_DONTNEED);
        r->kept[k] = r->peak[k], r->peak[k] = 0;
    }
}

int64_t hsp_scratch_bytes(const hsp_scratch *s)
{
    return s->acc_len * (int64_t)sizeof(double) + (s->acc_len + 63) / 64 * 8 + s->mark_len * 4 +
           s->hcap * (int64_t)(sizeof(int32_t) + sizeof(double)) + (int64_t)(s->buf_bytes[0] + s->buf_bytes[1]) +
           (int64_t)(s->stage_bytes[0] + s->stage_bytes[1]);
}

void hsp_scratch_free(hsp_scratch *s)
{
    free(s->acc), free(s->bits), free(s->top), free(s->mark), free(s->hkey), free(s->hval);
    free(s->buf[0]), free(s->buf[1]), free(s->stage[0]), free(s->stage[1]);
    free(s->spare_col), free(s->spare_val);
    while (s->arena) {
        hsp_arena_block *next = s->arena->next;
        free(s->arena);
        s->arena = next;
    }
    for (int k = 0; k < 2; k++)
        if (s->region.base[k]) munmap(s->region.base[k], s->region.reserved);
    memset(s, 0, sizeof *s);
}
