/* direct.c: stages 3 and 4 on a device that computes rows on the host
 * threads (the cpu device).  The rows are taken in their own order, in
 * chunks of about equal work, so that neighbouring rows share the rows of B
 * they read; a long row goes into a buffer that grows as on any device.
 *
 * One pass (the default): stage 3 computes each chunk's rows one after
 * another into the chunk's part of a workspace the context keeps (C~), so
 * that a chunk's entries are contiguous; stage 4 allocates C, now that its
 * size is known, and copies each chunk to its place in two block copies.
 *
 * Two passes, where C~ cannot be had, or C~ and the largest C the rows allow
 * would pass the memory limit: stage 3 counts each row's entries by marks,
 * stage 4 allocates C and computes the rows straight into it. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "rows.h"
#include "stages.h"

enum { CHUNKS_PER_THREAD = 16, CHUNK_MIN_WORK = 2048, CHUNK_MAX_WORK = 32768 };

typedef struct direct_run {
    hsp_job *job;
    int64_t nchunks;
    int64_t *cut;   /* chunk c is rows cut[c] .. cut[c + 1] - 1 */
    int64_t *at;    /* one pass: chunk c's entries start at[c] in C~, then in C */
    int64_t *nnz;   /* one pass: chunk c's entries */
    hsp_rows_mode mode;
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

/* Copy n entries of C~ from position from to position dst of C. */
static void copy_staged(hsp_job *job, int64_t from, int64_t n, int64_t dst)
{
    size_t vs = job->vsize;
    memcpy(job->C->colidx + dst, job->tmp_col + from, (size_t)n * sizeof *job->tmp_col);
    memcpy((unsigned char *)job->C->values + (size_t)dst * vs,
           (const unsigned char *)job->tmp_val + (size_t)from * vs, (size_t)n * vs);
}

/* Copy chunk c's rows (counts in C->rowptr) from C~ to C, a run of rows at
 * a time and each long row from its buffer, and turn the counts into row
 * pointers. */
static void place_chunk(direct_run *r, int64_t c, int64_t staged_at)
{
    hsp_job *job = r->job;
    hsp_csr *C = job->C;
    hsp_growbuf *buf = first_long(job, r->cut[c]);
    int64_t at = r->at[c], run = staged_at, run_at = at; /* the run not yet copied */
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) {
        int64_t len = C->rowptr[i + 1];
        if (job->ub[i] > job->medium_max) {
            copy_staged(job, run, at - run_at, run_at);
            hsp_job_take_long(job, buf++, C->colidx + at, (unsigned char *)C->values + (size_t)at * job->vsize, len);
            run += at - run_at, run_at = at + len;
        }
        at += len;
        C->rowptr[i + 1] = at;
    }
    copy_staged(job, run, at - run_at, run_at);
}

/* Chunk c in the run's mode; with place, its copy to C. */
static void chunk_task(direct_run *r, int tid, int64_t c, int place)
{
    hsp_job *job = r->job;
    if (atomic_load(&job->status) != HSP_OK) return;
    if (place) {
        place_chunk(r, c, r->at[c + r->nchunks + 1]);
        return;
    }
    int32_t first = (int32_t)r->cut[c], last = (int32_t)r->cut[c + 1];
    hsp_status st;
    if (r->mode == HSP_ROWS_STAGE)
        st = hsp_rows_run(job, &job->ctx->scratch[tid], r->mode, first, last, first_long(job, first),
                          job->tmp_col + r->at[c], (unsigned char *)job->tmp_val + (size_t)r->at[c] * job->vsize);
    else
        st = hsp_rows_run(job, &job->ctx->scratch[tid], r->mode, first, last, first_long(job, first),
                          job->C->colidx, job->C->values);
    int64_t nnz = 0;
    for (int32_t i = first; i < last && r->nnz; i++) nnz += job->C->rowptr[i + 1];
    if (r->nnz) r->nnz[c] = nnz;
    if (st != HSP_OK) hsp_job_error(job, st);
}

static void compute_chunk(void *arg, int tid, int64_t c)
{
    chunk_task(arg, tid, c, 0);
}

static void place_task(void *arg, int tid, int64_t c)
{
    chunk_task(arg, tid, c, 1);
}

/* Entries of C~ that chunk c's rows (not long) may take, and the most
 * entries of C its rows may have. */
static void stage_need(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    const hsp_job *job = r->job;
    int64_t n = 0, most = 0, ncols = job->B->ncols;
    (void)tid;
    for (int64_t i = r->cut[c]; i < r->cut[c + 1]; i++) {
        n += job->ub[i] <= job->medium_max ? job->ub[i] : 0;
        most += job->ub[i] < ncols ? job->ub[i] : ncols;
    }
    r->at[c] = n, r->nnz[c] = most;
}

/* Would C~ of slots entries and the largest C pass the memory limit? */
static int passes_limit(hsp_job *job, const direct_run *r, int64_t slots)
{
    int64_t limit = job->ctx->options.mem_limit, most = 0;
    for (int64_t c = 0; c < r->nchunks; c++) most += r->nnz[c];
    return limit > 0 && atomic_load(&job->temp_bytes) + hsp_entry_bytes(job, slots) + hsp_entry_bytes(job, most) > limit;
}

/* Turn counts[0 .. n) into offsets; returns their sum. */
static int64_t offsets(int64_t *count, int64_t n)
{
    int64_t sum = 0;
    for (int64_t c = 0; c < n; c++) {
        int64_t k = count[c];
        count[c] = sum;
        sum += k;
    }
    return sum;
}

/* The chunks, cut by the rows' weights (job->slot); for one pass, C~ and
 * each chunk's part of it.  A run left in two-pass mode had no C~. */
static hsp_status start_run(hsp_job *job, direct_run *r)
{
    int64_t m = job->A->nrows, work = job->slot[m];
    int64_t chunks = CHUNKS_PER_THREAD * (int64_t)hsp_pool_size(job->ctx->pool);
    if (chunks < work / CHUNK_MAX_WORK) chunks = work / CHUNK_MAX_WORK;
    if (chunks > work / CHUNK_MIN_WORK) chunks = work / CHUNK_MIN_WORK > 0 ? work / CHUNK_MIN_WORK : 1;
    memset(r, 0, sizeof *r);
    r->job = job;
    r->cut = malloc((size_t)(chunks + 1) * sizeof *r->cut);
    r->at = malloc((size_t)(2 * chunks + 2) * sizeof *r->at); /* C~ offsets, then C offsets */
    r->nnz = malloc((size_t)(chunks + 1) * sizeof *r->nnz);
    if (!r->cut || !r->at || !r->nnz) return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    r->nchunks = hsp_split_weighted(job->slot, m, chunks, r->cut);
    hsp_pool_chunks(job->ctx->pool, r->nchunks, stage_need, r);
    int64_t slots = offsets(r->at, r->nchunks);
    memcpy(r->at + r->nchunks + 1, r->at, (size_t)r->nchunks * sizeof *r->at);
    int fits = (uint64_t)slots <= SIZE_MAX / 16 && !passes_limit(job, r, slots);
    job->tmp_col = fits ? hsp_job_alloc(job, WS_TMPCOL, slots * 4, "C~ columns") : NULL;
    job->tmp_val = job->tmp_col ? hsp_job_alloc(job, WS_TMPVAL, slots * (int64_t)job->vsize, "C~ values") : NULL;
    job->nslots = job->tmp_val ? slots : 0;
    if (!job->tmp_val) { /* two passes; a C~ column workspace obtained is released */
        if (job->tmp_col) hsp_job_release(job, slots * 4);
        job->tmp_col = NULL;
    }
    r->mode = job->tmp_val ? HSP_ROWS_STAGE : HSP_ROWS_COUNT;
    if (r->mode == HSP_ROWS_COUNT) free(r->nnz), r->nnz = NULL;
    return HSP_OK;
}

static void end_run(direct_run *r)
{
    free(r->cut), free(r->at), free(r->nnz);
}

hsp_status hsp_direct_compute(hsp_job *job)
{
    double t0 = hsp_now_ms();
    direct_run *r = malloc(sizeof *r);
    if (!r) return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    hsp_status s = start_run(job, r);
    if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    job->run = r;
    job->stats->ms_device = hsp_now_ms() - t0;
    return s != HSP_OK ? s : (hsp_status)atomic_load(&job->status);
}

hsp_status hsp_direct_arrange(hsp_job *job)
{
    direct_run *r = job->run;
    hsp_status s = HSP_OK;
    if (r->mode == HSP_ROWS_STAGE) { /* the counts' sum, per chunk and in all, gives C's size */
        job->C->nnz = offsets(r->nnz, r->nchunks);
        memcpy(r->at, r->nnz, (size_t)r->nchunks * sizeof *r->at);
        s = hsp_stage_alloc_entries(job);
        if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, place_task, r);
    } else {
        r->mode = HSP_ROWS_FILL;
        s = hsp_stage_alloc_c(job);
        if (s == HSP_OK) hsp_pool_chunks(job->ctx->pool, r->nchunks, compute_chunk, r);
    }
    return s != HSP_OK ? s : (hsp_status)atomic_load(&job->status);
}

void hsp_direct_free(hsp_job *job)
{
    if (job->run) end_run(job->run);
    free(job->run);
    job->run = NULL;
}
