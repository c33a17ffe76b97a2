/* scratch.h: per-thread workspaces, kept by the context between multiplies. */
#ifndef HSP_SCRATCH_H
#define HSP_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include "hspgemm.h"

typedef struct hsp_arena_block hsp_arena_block;

/* Address space a thread's long rows grow in with grow=realloc, one range for
 * columns and one for values: the row in progress lies at the top and grows
 * in place (nothing copied, nothing moved); a finished row stays where it is
 * and the top moves past it.  Reserved on first use, emptied for each job. */
typedef struct hsp_region {
    unsigned char *base[2]; /* columns, values; NULL until reserved */
    size_t reserved;        /* bytes of each range */
    size_t top[2];          /* bytes the finished rows hold */
    size_t peak[2];         /* the most bytes this job's rows held at once */
    size_t kept[2];         /* bytes the last job's rows held: pages kept for the next */
    int refused;            /* the system would not reserve it: not asked again */
} hsp_region;

/* A thread's own cache lines: threads write their workspaces' fields (tag,
 * the region's top) at every row, which must not share a line. */
typedef struct hsp_scratch {
    _Alignas(64) void *acc; /* dense accumulator: one value per column of B */
    uint64_t *bits;     /* bit j set while column j is in the row being ordered */
    uint64_t *top;      /* bit w set while word w of bits is not zero (wide rows) */
    int64_t acc_len;
    uint32_t *mark;     /* mark[j] == tag while column j is in the row being counted */
    uint32_t tag;       /* the row being counted's tag (0: no row) */
    int64_t mark_len;
    int32_t *hkey;      /* hash table: column or -1 */
    void *hval;         /* hash table: the column's sum (8 bytes an entry) */
    int64_t hcap;       /* a power of two */
    void *buf[2];       /* general buffers (heap, ESC, merge) */
    size_t buf_bytes[2];
    void *stage[2];     /* a chunk's rows before they go to C: columns, values */
    size_t stage_bytes[2];
    hsp_arena_block *arena;     /* blocks kept between jobs */
    hsp_arena_block **arena_at; /* the link to the block now being filled */
    int32_t *spare_col;     /* a long row's first buffer, free for the next row */
    void *spare_val;
    hsp_region region;      /* where its long rows grow in place (grow=realloc) */
} hsp_scratch;

/* Make *p hold at least bytes, from a cache line on (rows of 64 bytes in
 * the workspace then take one line each, not two) and on huge pages where
 * large (hsp_advise_huge); contents are not kept. */
hsp_status hsp_scratch_need(void **p, size_t *have, size_t bytes);
/* Make the dense accumulator cover n columns of values of either precision. */
hsp_status hsp_scratch_dense(hsp_scratch *s, int64_t n);
/* Make the marks cover n columns, none marked. */
hsp_status hsp_scratch_marks(hsp_scratch *s, int64_t n);
/* A tag for the next row to count, unlike every mark now set. */
static inline uint32_t hsp_scratch_tag(hsp_scratch *s)
{
    if (++s->tag == 0) { /* wrapped: every tag was used once */
        for (int64_t j = 0; j < s->mark_len; j++) s->mark[j] = 0;
        s->tag = 1;
    }
    return s->tag;
}
/* Make the hash table hold at least n keys at load 1/2, all empty. */
hsp_status hsp_scratch_hash(hsp_scratch *s, int64_t n);
/* bytes from the thread's arena (16-byte aligned), which holds the long rows
 * that never grew; NULL when out of memory. */
void *hsp_arena_alloc(hsp_scratch *s, size_t bytes);
/* Empty the arena for the next job, keeping its blocks, and the region,
 * keeping the pages its rows used (the next product is often alike) and
 * giving back those an earlier, larger job used. */
void hsp_arena_reset(hsp_scratch *s);
/* The thread's region, reserved now if it is not yet; NULL where the system
 * will not reserve the address space (then rows grow by realloc of blocks). */
hsp_region *hsp_region_get(hsp_scratch *s);
/* Do n entries of vsize-byte values fit from the top of region r? */
static inline int hsp_region_fits(const hsp_region *r, int64_t n, size_t vsize)
{
    return r->top[0] + (size_t)n * sizeof(int32_t) <= r->reserved && r->top[1] + (size_t)n * vsize <= r->reserved;
}
/* The failure of region r, which cannot hold the next row. */
hsp_status hsp_region_full(const hsp_region *r);
/* Where n entries go at the top of region r (*col, *val), or a failure when
 * they do not fit (inline: asked for every row). */
static inline hsp_status hsp_region_room(hsp_region *r, int64_t n, size_t vsize, int32_t **col, void **val)
{
    if (!hsp_region_fits(r, n, vsize)) return hsp_region_full(r);
    *col = (int32_t *)(void *)(r->base[0] + r->top[0]), *val = r->base[1] + r->top[1];
    return HSP_OK;
}
/* Move the top of region r past n entries. */
static inline void hsp_region_push(hsp_region *r, int64_t n, size_t vsize)
{
    r->top[0] += (size_t)n * sizeof(int32_t), r->top[1] += (size_t)n * vsize;
}
/* Region r holds no rows any more: they were copied out. */
static inline void hsp_region_empty(hsp_region *r)
{
    for (int k = 0; k < 2; k++) r->peak[k] = r->top[k] > r->peak[k] ? r->top[k] : r->peak[k], r->top[k] = 0;
}
/* Bytes the workspaces hold. */
int64_t hsp_scratch_bytes(const hsp_scratch *s);
void hsp_scratch_free(hsp_scratch *s);

#endif
