/* direct_bound.c: stages 1 and 2 on a device that computes rows on the host
 * threads (dev->spgemm->direct), which needs neither the rows placed in their bins
 * nor C~: one pass over the rows gives each row's upper bound u, the bins'
 * row counts and the groups' flops (for the stats), the number of long rows,
 * the sums direct.c sizes its memory by and the weight (the sum of u + 1) of each block of rows (hsp_direct_block);
 * stage 2 turns the blocks' weights into the prefix that direct.c cuts its
 * chunks by, and lists the long rows. */
#include <stdlib.h>
#include <string.h>
#include "spgemm/direct.h"
#include "core/internal.h"

/* Stage 1's parts: each its rows' bin counts, group flops and products. */
typedef struct {
    hsp_job *job;
    int64_t *cut;                   /* part p is rows cut[p] .. cut[p + 1] - 1, whole blocks */
    int64_t (*count)[HSP_MAX_BINS]; /* rows of each bin in each part */
    uint64_t (*flops)[HSP_MAX_BINS]; /* flops of each bin in each part (meaningful
                                        when the products do not overflow) */
    int64_t *products;              /* the sum of u over each part; -1: it overflows */
    int64_t (*sums)[2];             /* each part's sums of u over the rows that are not
                                       long and of min(u, columns of B) (job->direct.staged, most) */
} bound_run;

/* u of each row of a part, and what stage 2 and the stats need of it. */
static void bound_part(void *arg, int tid, int64_t part)
{
    bound_run *r = arg;
    hsp_job *job = r->job;
    const hsp_csr *A = job->A, *B = job->B;
    const hsp_bins *bins = &job->ctx->engine->bins;
    int64_t *count = r->count[part], sum = 0, last = r->cut[part + 1], block = hsp_direct_block(A->nrows);
    uint64_t staged = 0, most = 0; /* unsigned: meaningful where sum does not overflow */
    uint64_t *flops = r->flops[part];
    int over = 0;
    (void)tid;
    memset(count, 0, sizeof r->count[part]);
    memset(flops, 0, sizeof r->flops[part]);
    for (int64_t i = r->cut[part]; i < last; i += block) {
        uint64_t weight = 0;
        for (int64_t k = i; k < i + block && k < last; k++) {
            int64_t u = hsp_row_bound(A, B, k);
            job->ub[k] = u;
            over |= hsp_add_overflows(sum, u, &sum);
            int b = hsp_bins_find(bins, u);
            count[b]++, flops[b] += 2 * (uint64_t)u;
            weight += (uint64_t)u + 1;
            staged += (uint64_t)(u <= job->medium_max ? u : 0);
            most += (uint64_t)(u < B->ncols ? u : B->ncols);
        }
        job->direct.weight[i / block] = (int64_t)weight;
    }
    r->products[part] = over ? -1 : sum;
    r->sums[part][0] = (int64_t)staged, r->sums[part][1] = (int64_t)most;
}

/* The parts' sums: the flop count (or its overflow), the bins' row counts
 * and offsets, the groups' flops, and the staged and most entries. */
static hsp_status gather_parts(hsp_job *job, const bound_run *r, int64_t nparts)
{
    int64_t pos = 0;
    hsp_stats *st = job->stats;
    hsp_status s = hsp_job_flops(job, r->products, nparts);
    if (s != HSP_OK) return s;
    job->direct.staged = 0, job->direct.most = 0;
    for (int64_t p = 0; p < nparts; p++) job->direct.staged += r->sums[p][0], job->direct.most += r->sums[p][1];
    for (int b = 0; b < job->ctx->engine->bins.nbins; b++) {
        st->rows_bin[b] = 0;
        for (int64_t p = 0; p < nparts; p++) st->rows_bin[b] += r->count[p][b];
        job->bin_start[b] = pos;
        pos += st->rows_bin[b];
    }
    job->bin_start[job->ctx->engine->bins.nbins] = pos;
    for (int b = 0; b < job->ctx->engine->bins.nbins; b++)
        for (int64_t p = 0; p < nparts; p++) st->flops_group[job->ctx->engine->bins.group[b]] += (int64_t)r->flops[p][b];
    return HSP_OK;
}

hsp_status hsp_direct_bound(hsp_job *job)
{
    int64_t m = job->A->nrows, block = hsp_direct_block(m), nblocks = (m + block - 1) / block;
    int64_t nparts = 4 * (int64_t)hsp_pool_size(job->ctx->pool);
    int64_t cut[nparts + 1], products[nparts], sums[nparts][2];
    job->ub = hsp_job_alloc(job, WS_BOUND, (m + 1) * (int64_t)sizeof(int64_t), "upper bounds");
    int64_t bytes = (nblocks + 1) * (int64_t)sizeof(int64_t);
    job->direct.weight = job->ub ? hsp_job_alloc(job, WS_SLOT, bytes, "row weights") : NULL;
    bound_run r = {job, cut, malloc((size_t)nparts * sizeof *r.count), malloc((size_t)nparts * sizeof *r.flops),
                   products, sums};
    hsp_status s = !job->direct.weight ? HSP_ERR_NOMEM : r.count && r.flops ? HSP_OK
                 : hsp_fail(HSP_ERR_NOMEM, "no memory for bin counts");
    if (s == HSP_OK) {
        nparts = hsp_split_weighted(job->A->rowptr, m, nparts, cut);
        for (int64_t p = 1; p < nparts; p++) cut[p] -= cut[p] % block; /* whole blocks */
        hsp_pool_chunks(job->ctx->pool, nparts, bound_part, &r);
        s = gather_parts(job, &r, nparts);
    }
    free(r.count), free(r.flops);
    return s;
}

hsp_status hsp_direct_bin(hsp_job *job)
{
    int64_t m = job->A->nrows, block = hsp_direct_block(m), nblocks = (m + block - 1) / block, weight = 0, k = 0;
    int longbin = job->ctx->engine->bins.nbins - 1;
    int64_t nlong = job->bin_start[longbin + 1] - job->bin_start[longbin];
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t w = job->direct.weight[b];
        job->direct.weight[b] = weight;
        weight += w;
    }
    job->direct.weight[nblocks] = weight;
    job->bin_rows = hsp_job_alloc(job, WS_BINS, (nlong + 1) * (int64_t)sizeof(int32_t), "long rows");
    if (!job->bin_rows) return HSP_ERR_NOMEM;
    for (int32_t i = 0; k < nlong; i++)
        if (job->ub[i] > job->medium_max) job->bin_rows[k++] = i;
    return hsp_job_longbufs(job, nlong);
}
