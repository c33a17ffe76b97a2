/* job.h: one multiplication in flight (a job): its operands, bins, C~,
 * long rows and C, and what the stages and devices do on it: accounting of
 * its memory, its first error, the buffers of long rows, C's arrays. */
#ifndef HSP_JOB_H
#define HSP_JOB_H

#include <stdatomic.h>
#include <stddef.h>
#include "spgemm/bins.h"
#include "spgemm/engine.h"
#include "spgemm/spgemm_device.h"

/* A long row's buffer: starts at grow_start entries and grows on overflow
 * (in place at the top of its thread's region, by realloc, or by allocate +
 * copy + free); cap 0 when the row is done and lies in an arena or a region
 * (see hsp_job_finish_long) or has no buffer. */
typedef struct {
    int32_t *col;
    void *val;
    int64_t cap;
    struct hsp_region *region; /* the region whose top it lies at, or NULL */
} hsp_growbuf;

typedef struct hsp_job {
    hsp_context *ctx;
    hsp_device *dev;        /* the context's device, or its cpu device for a small product */
    hsp_method method[HSP_NMETHODGROUPS]; /* the methods for dev, per group 3..5 */
    hsp_method bin_method[HSP_MAX_BINS]; /* a bin's own method (a profile's), or DEFAULT:
                                            its group's */
    const hsp_csr *A, *B;
    struct {                /* resident products: what the device holds */
        void *held[2];      /* A's and B's entries as the device holds them (dev->hold),
                               or NULL: on the host */
        int hold_c;         /* C stays on the device: held_c gets its arrays, and the
                               host's C only its row pointers */
        void *held_c;
        int all_device;     /* operands or C are the device's alone: it does every row (bin
                               1 too) and the row work of stages 2 and 4 (dev->spgemm->bin), C's row
                               pointers stay there, and the host gets u of long rows only */
    } resident;
    int unsorted;           /* C's rows may stay unsorted (hsp_options.unsorted) */
    size_t vsize;           /* bytes of one value */
    int64_t *ub;            /* upper bound u_i of each row of C */
    int32_t *bin_rows;      /* the rows, ordered by bin (on a dev->spgemm->direct, the long rows
                               alone, in their order) */
    int64_t bin_start[HSP_MAX_BINS + 1]; /* bin b is bin_rows[bin_start[b] ..] */
    int64_t short_max;      /* rows with u up to this are short */
    int64_t medium_max;     /* rows with u above this are long */
    int64_t *slot;          /* C~ offset of a row, or its long-buffer number */
    int64_t nslots;         /* entries of C~ */
    int64_t sample_u, sample_shared; /* a device's sample of how often products meet, or 0, 0:
                                        see hsp_sample_shared */
    struct {                /* a dev->spgemm->direct's own (direct*.c): no bins, C~ or slots */
        int64_t *weight;    /* per block of hsp_direct_block rows, the sum of u + 1 over
                               the rows before it (stage 1) */
        int64_t staged, most; /* the sum of u over the rows that are not long, and of
                               min(u, columns of B) over every row (stage 1) */
        struct direct_run *run; /* its chunks between stages 3 and 4 (direct.c) */
    } direct;
    int32_t *tmp_col;       /* C~ for single, short and medium rows */
    void *tmp_val;
    hsp_growbuf *longbuf;   /* one per long row, as in bin_rows; freed by stage 4 */
    int64_t nlong;
    hsp_csr *C;             /* rowptr[i + 1] holds the count of row i until stage 4 */
    atomic_int status;      /* the first error of any thread */
    char error[512];        /* its message (messages are per thread) */
    atomic_llong grow_events, grow_bytes_copied, grow_moves;
    atomic_llong temp_bytes, peak_temp_bytes;
    hsp_stats *stats;
} hsp_job;

/* u of row i: the products of row i of A*B, the sum of nnz(B_k) over the
 * entries k of row i of A (its callers check their sums over rows for
 * overflow). */
static inline int64_t hsp_row_bound(const hsp_csr *A, const hsp_csr *B, int64_t i)
{
    int64_t u = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) u += B->rowptr[A->colidx[p] + 1] - B->rowptr[A->colidx[p]];
    return u;
}

/* Bin b's method: its own (a profile's; never for long rows), else its
 * group's (bin 1's: the short rows'). */
static inline hsp_method hsp_job_bin_method(const hsp_job *job, int b)
{
    int group = job->ctx->engine->bins.group[b];
    if (group != HSP_GROUP_LONG && job->bin_method[b]) return job->bin_method[b];
    return job->method[group > HSP_GROUP_SHORT ? group - HSP_GROUP_SHORT : 0];
}

/* Bytes of n entries of C (a column index and a value each). */
static inline int64_t hsp_entry_bytes(const hsp_job *job, int64_t n)
{
    return n * (int64_t)(sizeof(int32_t) + job->vsize);
}

/* How often the products of the job's rows meet, on a sample: over the
 * rows of 1 to most products among rows 0-31, 2048-2079, 4096-... (the
 * rows kernels/bins.cl samples too), *u gets the sum of their u and *shared
 * the columns that the B rows of consecutive entries of each row have in
 * common (a merge of B's rows, which it takes to be sorted). */
void hsp_sample_shared(const hsp_job *job, int64_t most, int64_t *u, int64_t *shared);

/* Reserve bytes of temporary memory and take them from workspace array k
 * (WS_*) of the context, which grows when too small; NULL on failure. */
void *hsp_job_alloc(hsp_job *job, int k, int64_t bytes, const char *what);
/* Account for bytes of temporary memory; fails past the context's limit. */
hsp_status hsp_job_reserve(hsp_job *job, int64_t bytes);
void hsp_job_release(hsp_job *job, int64_t bytes);
/* Record the first error of a worker thread. */
void hsp_job_error(hsp_job *job, hsp_status s);
/* The first error of any thread (HSP_OK if none), its message made the
 * calling thread's. */
hsp_status hsp_job_status(hsp_job *job);
/* Give a long row its first buffer of grow_start entries: with grow=realloc at
 * the top of the thread's region (where the system reserves one), else the
 * thread's spare one when it has one, or a new one. */
hsp_status hsp_job_grow_start(hsp_job *job, struct hsp_scratch *s, hsp_growbuf *buf);
/* A long row of len entries is done.  One in a region stays there (the top
 * moves past it); one that never grew is copied into the thread's arena and
 * its buffer kept as the thread's spare, so that short long rows cost no
 * allocation; one that grew keeps its buffer. */
hsp_status hsp_job_finish_long(hsp_job *job, struct hsp_scratch *s, hsp_growbuf *buf,
                               int64_t len);
/* A long row of len entries is done, in stage 3 of a one-pass dev->spgemm->direct:
 * it goes at the top of the thread's region, after the rows before it.  One
 * there already stays; another is copied there and its buffer kept as the
 * thread's spare (it never grew) or freed. */
hsp_status hsp_job_stage_long(hsp_job *job, struct hsp_scratch *s, hsp_growbuf *buf, int64_t len);
/* Grow a long row's buffer, doubling until it holds need entries, keeping its
 * first used entries, by realloc (in place in a region; a row that outgrows
 * its region moves to a block of its own) or by allocate + copy + free (the
 * context's grow mode); one grow event per call. */
hsp_status hsp_job_grow(hsp_job *job, hsp_growbuf *buf, int64_t need, int64_t used);
/* Copy a finished long row of len entries into col and val, and free its
 * buffer. */
void hsp_job_take_long(hsp_job *job, hsp_growbuf *buf, int32_t *col, void *val, int64_t len);
/* Free a long row's buffer (if any). */
void hsp_job_drop_long(hsp_job *job, hsp_growbuf *buf);

/* Stage 1's flop count from the products of its nparts parts (-1: a part's
 * sum overflows), or HSP_ERR_OVERFLOW. */
hsp_status hsp_job_flops(hsp_job *job, const int64_t *products, int64_t nparts);
/* nlong long rows' buffers, empty (stage 2). */
hsp_status hsp_job_longbufs(hsp_job *job, int64_t nlong);

/* Stage 4's start: C's row pointers from the counts, and its arrays. */
hsp_status hsp_job_alloc_c(hsp_job *job);
/* C's arrays for C->nnz entries. */
hsp_status hsp_job_alloc_entries(hsp_job *job);

#endif
