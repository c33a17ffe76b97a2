/* direct.c: stages 3 and 4 on a device that computes rows on the host
 * threads (the cpu device).  The rows are taken in their own order, in
 * chunks of about equal work, so that neighbouring rows share the rows of B
 * they read.  Stage 3 counts each row's entries; a long row is computed then,
 * into a buffer that grows as on any device.  Stage 4 allocates C and
 * computes the other rows straight into their places: each entry is written
 * once, and no C~ is needed. */
#include <stdlib.h>
#include "internal.h"
#include "rows.h"
#include "stages.h"

enum { CHUNKS_PER_THREAD = 16, CHUNK_MIN_WORK = 2048 };

typedef struct {
    hsp_job *job;
    const int64_t *cut; /* chunk c is rows cut[c] .. cut[c + 1] - 1 */
    int fill;           /* stage 4; else stage 3 */
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

static void direct_chunk(void *arg, int tid, int64_t c)
{
    direct_run *r = arg;
    hsp_job *job = r->job;
    if (atomic_load(&job->status) != HSP_OK) return;
    hsp_scratch *s = &job->ctx->scratch[tid];
    int32_t first = (int32_t)r->cut[c], last = (int32_t)r->cut[c + 1];
    hsp_growbuf *buf = first_long(job, first);
    hsp_status st = r->fill ? hsp_rows_fill(job, s, first, last, buf) : hsp_rows_count(job, s, first, last, buf);
    if (st != HSP_OK) hsp_job_error(job, st);
}

/* Run stage 3 (fill 0) or 4 (fill 1) over chunks cut by the rows' weights
 * (job->slot). */
static hsp_status run_chunks(hsp_job *job, int fill)
{
    int64_t m = job->A->nrows, work = job->slot[m];
    int64_t chunks = CHUNKS_PER_THREAD * (int64_t)hsp_pool_size(job->ctx->pool);
    if (chunks > work / CHUNK_MIN_WORK) chunks = work / CHUNK_MIN_WORK > 0 ? work / CHUNK_MIN_WORK : 1;
    int64_t *cut = malloc((size_t)(chunks + 1) * sizeof *cut);
    if (!cut) return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
    chunks = hsp_split_weighted(job->slot, m, chunks, cut);
    direct_run r = {job, cut, fill};
    hsp_pool_chunks(job->ctx->pool, chunks, direct_chunk, &r);
    free(cut);
    return (hsp_status)atomic_load(&job->status);
}

hsp_status hsp_direct_count(hsp_job *job)
{
    double t0 = hsp_now_ms();
    hsp_status s = run_chunks(job, 0);
    job->stats->ms_device = hsp_now_ms() - t0;
    return s;
}

hsp_status hsp_direct_fill(hsp_job *job)
{
    return run_chunks(job, 1);
}
