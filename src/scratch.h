/* scratch.h: per-thread workspaces, kept by the context between multiplies. */
#ifndef HSP_SCRATCH_H
#define HSP_SCRATCH_H

#include <stddef.h>
#include <stdint.h>
#include "hspgemm.h"

typedef struct hsp_arena_block hsp_arena_block;

typedef struct hsp_scratch {
    void *acc;          /* dense accumulator: one value per column of B */
    uint64_t *bits;     /* bit j set while column j is in the row */
    uint64_t *top;      /* bit w set while word w of bits is not zero */
    int64_t acc_len;
    int32_t *hkey;      /* hash table: column or -1 */
    void *hval;         /* hash table: the column's sum (8 bytes an entry) */
    int64_t hcap;       /* a power of two */
    void *buf[2];       /* general buffers (heap, ESC, merge) */
    size_t buf_bytes[2];
    hsp_arena_block *arena;     /* blocks kept between jobs */
    hsp_arena_block **arena_at; /* the link to the block now being filled */
    int32_t *spare_col;     /* a long row's first buffer, free for the next row */
    void *spare_val;
} hsp_scratch;

/* Make *p hold at least bytes (contents are not kept). */
hsp_status hsp_scratch_need(void **p, size_t *have, size_t bytes);
/* Make the dense accumulator cover n columns of values of either precision. */
hsp_status hsp_scratch_dense(hsp_scratch *s, int64_t n);
/* Make the hash table hold at least n keys at load 1/2, all empty. */
hsp_status hsp_scratch_hash(hsp_scratch *s, int64_t n);
/* bytes from the thread's arena (16-byte aligned), which holds the long rows
 * that never grew; NULL when out of memory. */
void *hsp_arena_alloc(hsp_scratch *s, size_t bytes);
/* Empty the arena for the next job, keeping its blocks. */
void hsp_arena_reset(hsp_scratch *s);
/* Bytes the workspaces hold. */
int64_t hsp_scratch_bytes(const hsp_scratch *s);
void hsp_scratch_free(hsp_scratch *s);

#endif
