/* direct.c: stages 3 and 4 on a device that computes rows on the host
 * threads (the cpu device).  The rows are taken in their own order, in
 * chunks of about equal work, so that neighbouring rows share the rows of B
 * they read.
 *
 * One pass (the default): in stage 3 a thread computes a chunk's rows one
 * after another at the top of its region (scratch.h), the address space
 * where its long rows grow in place, so that the chunk's entries, long rows
 * and all, lie together.  Stage 4 allocates C, whose size is then known, and
 * copies each chunk to its place in two block copies.
 *
 * Two passes, where a thread's region cannot be had, or the rows and the
 * largest C they allow would pass the memory limit: stage 3 counts each
 * row's entries by marks (long rows computed into their buffers), stage 4
 * allocates C and computes the rows straight into it. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "rows.h"
#include "stages.h"

enum { CHUNKS_PER_THREAD = 16, CHUNK_MIN_WORK = 2048, CHUNK_MAX_WORK = 32768 };

/* One stage-3 pass over chunks; in one-pass mode, where each chunk lies. */
typedef struct direct_run {
    hsp_job *job;
    hsp_rows_mode mode;
    int64_t nchunks;
    int64_t *cut;    /* chunk c is rows cut[c] .. cut[c + 1] - 1 */
    int64_t *nnz;    /* one pass: chunk c's entries, then their offset in C */
    int64_t *from;   /* one pass: where they start in the region of thread tid[c] */
    int *tid;
} direct_run;

/* The buffer of the first long row at or after row i. */
static hsp_growbuf *first_long(const hsp_job *job, int64_t i)
{
    int64_t lo = 0, hi = job->nlong;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (job->bin_rows[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return job->longbuf + lo;
}

/* Entries the rows of chunk c that are not long put on the region. */
static int64_t staged_entries(const hsp_job *job, const direct_run *r, int64_t c)
{
    int64_t n = 0;
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) n += job->ub[i] <= job->medium_max ? job->C->rowptr[i + 1] : 0;
    return n;
}

/* Stage 3 on chunk c, by thread tid (and stage 4 of two passes). */
static void compute_chunk(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    hsp_job *job = r->job;
    if (atomic_load(&job->status) != HSP_OK) return;
    hsp_scratch *s = &job->ctx->scratch[tid];
    int32_t first = (int32_t)r->cut[c], last = (int32_t)r->cut[c + 1];
    int64_t top = (int64_t)(s->region.top[0] / sizeof(int32_t));
    hsp_status st = hsp_rows_run(job, s, r->mode, first, last, first_long(job, first));
    if (st == HSP_OK && r->mode == HSP_ROWS_STAGE) { /* the long rows are reserved already */
        r->tid[c] = tid, r->from[c] = top;
        r->nnz[c] = (int64_t)(s->region.top[0] / sizeof(int32_t)) - top;
        st = hsp_job_reserve(job, hsp_entry_bytes(job, staged_entries(job, r, c)));
    }
    if (st != HSP_OK) hsp_job_error(job, st);
}

/* Stage 4 of one pass on chunk c: its entries from the region to C, and
 * its counts in C's row pointers turned into offsets. */
static void place_chunk(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    hsp_job *job = r->job;
    hsp_csr *C = job->C;
    const hsp_region *g = &job->ctx->scratch[r->tid[c]].region;
    int64_t at = r->nnz[c], n = r->nnz[c + 1] - at;
    size_t vs = job->vsize;
    (void)tid;
    memcpy(C->colidx + at, g->base[0] + (size_t)r->from[c] * sizeof(int32_t), (size_t)n * sizeof(int32_t));
    memcpy((unsigned char *)C->values + (size_t)at * vs, g->base[1] + (size_t)r->from[c] * vs, (size_t)n * vs);
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) at += C->rowptr[i + 1], C->rowptr[i + 1] = at;
}

/* Would the rows that are not long, on the regions, and the largest C the
 * rows allow pass the memory limit? */
static int passes_limit(const hsp_job *job)
{
    int64_t limit = hsp_memory_limit(&job->ctx->options), staged = 0, most = 0, ncols = job->B->ncols;
    for (int32_t i = 0; i < job->A->nrows; i++) {
        staged += job->ub[i] <= job->medium_max ? job->ub[i] : 0;
        most += job->ub[i] < ncols ? job->ub[i] : ncols;
    }
    return atomic_load(&job->temp_bytes) + hsp_entry_bytes(job, staged) + hsp_entry_bytes(job, most) > limit;
}

/* One pass where every thread has its region and the memory limit allows. */
static hsp_rows_mode choose_mode(hsp_job *job)
{
    for (int t = 0; t < hsp_pool_size(job->ctx->pool); t++)
        if (!hsp_region_get(&job->ctx->scratch[t])) return HSP_ROWS_COUNT;
    return passes_limit(job) ? HSP_ROWS_COUNT : HSP_ROWS_STAGE;
}

/* The chunks, cut by the rows' weights (job->slot). */
static hsp_status start_run(hsp_job *job, direct_run *r)
{
    int64_t m = job->A->nrows, work = job->slot[m];
    int64_t chunks = CHUNKS_PER_THREAD * (int64_t)hsp_pool_size(job->ctx->pool);
    if (chunks < work / CHUNK_MAX_WORK) chunks = work / CHUNK_MAX_WORK;
    if (chunks > work / CHUNK_MIN_WORK) chunks = work / CHUNK_MIN_WORK > 0 ? work / CHUNK_MIN_WORK : 1;
    r->job = job;
    r->mode = choose_mode(job);
    r->cut = malloc((size_t)(chunks + 1) * sizeof *r->cut);
    r->nnz = malloc((size_t)(chunks + 1) * sizeof *r->nnz);
    r->from = malloc((size_t)(chunks + 1) * sizeof *r->from);
    r->tid = malloc((size_t)(chunks + 1) * sizeof *r->tid);
    if (!r->cut || !r->nnz || !r->from || !r->tid) return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    r->nchunks = hsp_split_weighted(job->slot, m, chunks, r->cut);
    return HSP_OK;
}

hsp_status hsp_direct_compute(hsp_job *job)
{
    double t0 = hsp_now_ms();
    direct_run *r = job->run = calloc(1, sizeof *r);
    hsp_status s = r ? start_run(job, r) : hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    job->stats->ms_device = hsp_now_ms() - t0;
    return s != HSP_OK ? s : hsp_job_status(job);
}

hsp_status hsp_direct_arrange(hsp_job *job)
{
    direct_run *r = job->run;
    hsp_status s;
    if (r->mode == HSP_ROWS_STAGE) { /* the chunks' entries give C's size and their offsets */
        int64_t sum = 0;
        for (int64_t c = 0; c <= r->nchunks; c++) {
            int64_t n = c < r->nchunks ? r->nnz[c] : 0;
            r->nnz[c] = sum, sum += n;
        }
        job->C->nnz = sum;
        s = hsp_stage_alloc_entries(job);
        if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, place_chunk, r);
    } else {
        r->mode = HSP_ROWS_FILL;
        s = hsp_stage_alloc_c(job);
        if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    }
    return s != HSP_OK ? s : hsp_job_status(job);
}

void hsp_direct_free(hsp_job *job)
{
    direct_run *r = job->run;
    if (r) free(r->cut), free(r->nnz), free(r->from), free(r->tid);
    free(r);
    job->run = NULL;
}
