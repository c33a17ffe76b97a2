/* job.c: the memory of a multiplication in flight: workspace arrays and
 * accounting against the context's limit, the first error of any thread, the
 * flop count, the buffers of long rows (start, growth in place in a region,
 * by realloc or by copy, keeping, freeing) and C's arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "spgemm/job.h"
#include "core/scratch.h"

hsp_status hsp_job_reserve(hsp_job *job, int64_t bytes)
{
    int64_t limit = hsp_memory_limit(&job->ctx->options);
    int64_t now = atomic_fetch_add(&job->temp_bytes, bytes) + bytes;
    if (now > limit) {
        atomic_fetch_sub(&job->temp_bytes, bytes);
        return hsp_fail(HSP_ERR_NOMEM, "memory limit of %lld bytes reached (%lld needed)",
                        (long long)limit, (long long)now);
    }
    long long peak = atomic_load(&job->peak_temp_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&job->peak_temp_bytes, &peak, now)) {
    }
    return HSP_OK;
}

void hsp_job_release(hsp_job *job, int64_t bytes)
{
    atomic_fetch_sub(&job->temp_bytes, bytes);
}

void hsp_job_error(hsp_job *job, hsp_status s)
{
    int ok = HSP_OK;
    if (atomic_compare_exchange_strong(&job->status, &ok, (int)s))
        snprintf(job->error, sizeof job->error, "%s", hsp_errmsg());
}

hsp_status hsp_job_status(hsp_job *job)
{
    hsp_status s = (hsp_status)atomic_load(&job->status);
    return s == HSP_OK ? s : hsp_fail(s, "%s", job->error);
}


/* bytes rounded up to a multiple of 16 (the alignment of kept rows). */
static size_t align16(size_t bytes)
{
    return (bytes + 15) & ~(size_t)15;
}

hsp_status hsp_job_grow_start(hsp_job *job, hsp_scratch *s, hsp_growbuf *buf)
{
    int64_t n = job->ctx->options.grow_start;
    hsp_region *r = job->ctx->options.grow == HSP_GROW_REALLOC ? hsp_region_get(s) : NULL;
    buf->cap = n, buf->region = NULL;
    if (r && hsp_region_fits(r, n, job->vsize)) { /* at the region's top, to grow in place */
        hsp_status st = hsp_job_reserve(job, hsp_entry_bytes(job, n));
        if (st != HSP_OK) return buf->cap = 0, st;
        buf->col = (int32_t *)(void *)(r->base[0] + r->top[0]), buf->val = r->base[1] + r->top[1];
        buf->region = r;
        return HSP_OK;
    }
    if (s->spare_col) { /* the buffer of the thread's last row that did not grow */
        buf->col = s->spare_col, buf->val = s->spare_val;
        s->spare_col = NULL, s->spare_val = NULL;
        return HSP_OK;
    }
    hsp_status st = hsp_job_reserve(job, hsp_entry_bytes(job, n));
    if (st != HSP_OK) return buf->cap = 0, st;
    buf->col = malloc((size_t)n * sizeof(int32_t));
    buf->val = malloc((size_t)n * job->vsize);
    if (buf->col && buf->val) return HSP_OK;
    hsp_job_drop_long(job, buf);
    return hsp_fail(HSP_ERR_NOMEM, "no memory for a long row buffer");
}

hsp_status hsp_job_finish_long(hsp_job *job, hsp_scratch *s, hsp_growbuf *buf, int64_t len)
{
    if (buf->region) { /* it stays; the region's top moves past it */
        hsp_region_push(buf->region, len, job->vsize);
        hsp_job_release(job, hsp_entry_bytes(job, buf->cap - len));
        buf->cap = 0, buf->region = NULL;
        return HSP_OK;
    }
    if (buf->cap != job->ctx->options.grow_start) return HSP_OK; /* grown: keep it */
    size_t colbytes = align16((size_t)len * sizeof(int32_t));
    unsigned char *p = hsp_arena_alloc(s, colbytes + (size_t)len * job->vsize);
    if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory to keep a long row");
    hsp_status st = hsp_job_reserve(job, hsp_entry_bytes(job, len));
    if (st != HSP_OK) return st;
    memcpy(p, buf->col, (size_t)len * sizeof(int32_t));
    memcpy(p + colbytes, buf->val, (size_t)len * job->vsize);
    s->spare_col = buf->col, s->spare_val = buf->val;
    buf->col = (int32_t *)(void *)p, buf->val = p + colbytes, buf->cap = 0;
    return HSP_OK;
}

hsp_status hsp_job_stage_long(hsp_job *job, hsp_scratch *s, hsp_growbuf *buf, int64_t len)
{
    if (buf->region) return hsp_job_finish_long(job, s, buf, len);
    int32_t *col = NULL;
    void *val = NULL;
    hsp_status st = hsp_region_room(&s->region, len, job->vsize, &col, &val);
    if (st == HSP_OK) st = hsp_job_reserve(job, hsp_entry_bytes(job, len));
    if (st != HSP_OK) return st;
    memcpy(col, buf->col, (size_t)len * sizeof(int32_t));
    memcpy(val, buf->val, (size_t)len * job->vsize);
    hsp_region_push(&s->region, len, job->vsize);
    if (buf->cap != job->ctx->options.grow_start || s->spare_col) {
        hsp_job_drop_long(job, buf);
        return HSP_OK;
    }
    s->spare_col = buf->col, s->spare_val = buf->val; /* its reservation goes with it */
    buf->col = NULL, buf->val = NULL, buf->cap = 0;
    return HSP_OK;
}

/* Move n elements of size bytes from *p into a new block of cap elements. */
static int copy_grow(void **p, int64_t n, int64_t cap, size_t size, atomic_llong *copied)
{
    void *q = malloc((size_t)cap * size);
    if (!q) return 0;
    memcpy(q, *p, (size_t)n * size);
    free(*p);
    *p = q;
    atomic_fetch_add(copied, n * (int64_t)size);
    return 1;
}

/* Grow *p to cap elements with realloc; count a move when the address changes. */
static int realloc_grow(void **p, int64_t cap, size_t size, atomic_llong *moves)
{
    void *q = realloc(*p, (size_t)cap * size);
    if (!q) return 0;
    if (q != *p) atomic_fetch_add(moves, 1);
    *p = q;
    return 1;
}

/* Move a row that outgrew its region to blocks of its own of cap entries,
 * with its first used entries (a realloc that moved). */
static int leave_region(hsp_job *job, hsp_growbuf *buf, int64_t cap, int64_t used)
{
    int32_t *col = malloc((size_t)cap * sizeof(int32_t));
    void *val = malloc((size_t)cap * job->vsize);
    if (!col || !val) return free(col), free(val), 0;
    memcpy(col, buf->col, (size_t)used * sizeof(int32_t));
    memcpy(val, buf->val, (size_t)used * job->vsize);
    buf->col = col, buf->val = val, buf->region = NULL;
    atomic_fetch_add(&job->grow_moves, 2);
    return 1;
}

hsp_status hsp_job_grow(hsp_job *job, hsp_growbuf *buf, int64_t need, int64_t used)
{
    int64_t cap = buf->cap;
    while (cap < need) cap *= 2;
    hsp_status s = hsp_job_reserve(job, hsp_entry_bytes(job, cap - buf->cap));
    if (s != HSP_OK) return s;
    void *col = buf->col;
    int ok;
    if (buf->region) {
        ok = hsp_region_fits(buf->region, cap, job->vsize) || leave_region(job, buf, cap, used);
        col = buf->col;
    } else if (job->ctx->options.grow == HSP_GROW_COPY)
        ok = copy_grow(&col, used, cap, sizeof(int32_t), &job->grow_bytes_copied) &&
             copy_grow(&buf->val, used, cap, job->vsize, &job->grow_bytes_copied);
    else
        ok = realloc_grow(&col, cap, sizeof(int32_t), &job->grow_moves) &&
             realloc_grow(&buf->val, cap, job->vsize, &job->grow_moves);
    buf->col = col;
    if (!ok) {
        hsp_job_release(job, hsp_entry_bytes(job, cap - buf->cap));
        return hsp_fail(HSP_ERR_NOMEM, "no memory to grow a long row to %lld entries",
                        (long long)cap);
    }
    atomic_fetch_add(&job->grow_events, 1);
    buf->cap = cap;
    return HSP_OK;
}

void hsp_job_take_long(hsp_job *job, hsp_growbuf *buf, int32_t *col, void *val, int64_t len)
{
    memcpy(col, buf->col, (size_t)len * sizeof *col);
    memcpy(val, buf->val, (size_t)len * job->vsize);
    hsp_job_drop_long(job, buf);
}

void hsp_job_drop_long(hsp_job *job, hsp_growbuf *buf)
{
    if (buf->cap == 0) return; /* none, or in an arena or a region */
    if (!buf->region) free(buf->col), free(buf->val); /* one unfinished at a region's top has no block */
    hsp_job_release(job, hsp_entry_bytes(job, buf->cap));
    buf->col = NULL, buf->val = NULL, buf->cap = 0, buf->region = NULL;
}

void *hsp_job_alloc(hsp_job *job, int k, int64_t bytes, const char *what)
{
    hsp_workspace *ws = &job->ctx->engine->ws;
    if (hsp_job_reserve(job, bytes) != HSP_OK) return NULL;
    if ((size_t)bytes <= ws->bytes[k] && ws->block[k]) return ws->block[k];
    free(ws->block[k]);
    ws->bytes[k] = 0;
    if (!(ws->block[k] = hsp_alloc((size_t)bytes))) {
        hsp_job_release(job, bytes);
        hsp_fail(HSP_ERR_NOMEM, "no memory for %s (%lld bytes)", what, (long long)bytes);
        return NULL;
    }
    ws->bytes[k] = (size_t)bytes;
    return ws->block[k];
}

hsp_status hsp_job_flops(hsp_job *job, const int64_t *products, int64_t nparts)
{
    int64_t total = 0;
    for (int64_t p = 0; p < nparts; p++)
        if (products[p] < 0 || hsp_add_overflows(total, products[p], &total))
            return hsp_fail(HSP_ERR_OVERFLOW, "the number of products overflows 64 bits");
    if (hsp_mul_overflows(total, 2, &job->stats->flops))
        return hsp_fail(HSP_ERR_OVERFLOW, "the flop count overflows 64 bits");
    return HSP_OK;
}

hsp_status hsp_job_longbufs(hsp_job *job, int64_t nlong)
{
    job->longbuf = hsp_job_alloc(job, WS_LONG, nlong * (int64_t)sizeof(hsp_growbuf), "long rows");
    if (!job->longbuf) return HSP_ERR_NOMEM;
    memset(job->longbuf, 0, (size_t)nlong * sizeof(hsp_growbuf));
    job->nlong = nlong;
    return HSP_OK;
}

hsp_status hsp_job_alloc_entries(hsp_job *job)
{
    hsp_csr *C = job->C;
    job->stats->nnz_c = C->nnz;
    if (C->nnz > INT64_MAX / 16 || (uint64_t)C->nnz > SIZE_MAX / 16) /* its bytes, in int64_t and size_t */
        return hsp_fail(HSP_ERR_OVERFLOW, "nnz(C) = %lld does not fit in memory",
                        (long long)C->nnz);
    hsp_status s = job->resident.hold_c ? HSP_OK : hsp_job_reserve(job, hsp_entry_bytes(job, C->nnz));
    if (s != HSP_OK || job->resident.hold_c) return s; /* a C the device holds has its entries there alone */
    C->colidx = hsp_alloc((size_t)C->nnz * sizeof *C->colidx);
    C->values = hsp_alloc((size_t)C->nnz * job->vsize);
    if (!C->colidx || !C->values)
        return hsp_fail(HSP_ERR_NOMEM, "no memory for C (%lld entries)", (long long)C->nnz);
    return HSP_OK;
}

hsp_status hsp_job_alloc_c(hsp_job *job)
{
    hsp_csr *C = job->C;
    int64_t m = C->nrows;
    for (int64_t i = 0; i < m && !job->resident.all_device; i++) C->rowptr[i + 1] += C->rowptr[i];
    if (!job->resident.all_device) C->nnz = C->rowptr[m]; /* else the device's row pointers gave it */
    return hsp_job_alloc_entries(job);
}
