/* stages.c: the four stages of a multiplication on the thread pool:
 * 1 upper bounds, 2 binning and C~, 3 compute (bins 0-1 here, the rest on the
 * device), 4 arrange C from C~. */
#include <stdlib.h>
#include <string.h>
#include "spgemm/direct.h"
#include "core/internal.h"
#include "spgemm/rows.h"
#include "core/scratch.h"
#include "spgemm/stages.h"

/* ---- stage 1: upper bounds -------------------------------------------------- */

typedef struct {
    hsp_job *job;
    int64_t *cut;
    int64_t *part_flops;
} part_run;

/* u_i = sum of nnz(B_k) over the entries k of row i of A. */
static void bound_part(void *arg, int tid, int64_t part)
{
    part_run *r = arg;
    const hsp_csr *A = r->job->A, *B = r->job->B;
    int64_t sum = 0;
    int over = 0;
    (void)tid;
    for (int64_t i = r->cut[part]; i < r->cut[part + 1]; i++) {
        int64_t u = hsp_row_bound(A, B, i);
        r->job->ub[i] = u;
        over |= hsp_add_overflows(sum, u, &sum);
    }
    r->part_flops[part] = over ? -1 : sum; /* -1: the part's sum overflows */
}

/* Parts for a parallel loop over rows: a few per thread. */
static int64_t part_count(const hsp_job *job)
{
    return 4 * (int64_t)hsp_pool_size(job->ctx->pool);
}

/* Sum the upper bounds of a part (computed by the device). */
static void sum_part(void *arg, int tid, int64_t part)
{
    part_run *r = arg;
    int64_t sum = 0;
    int over = 0;
    (void)tid;
    for (int64_t i = r->cut[part]; i < r->cut[part + 1]; i++) over |= hsp_add_overflows(sum, r->job->ub[i], &sum);
    r->part_flops[part] = over ? -1 : sum;
}

hsp_status hsp_stage_bound(hsp_job *job)
{
    int64_t m = job->A->nrows, nparts = part_count(job);
    int64_t cut[nparts + 1], part_flops[nparts];
    hsp_device *dev = job->dev;
    if (dev->spgemm->direct) return hsp_direct_bound(job);
    job->ub = hsp_job_alloc(job, WS_BOUND, (m + 1) * (int64_t)sizeof(int64_t), "upper bounds");
    if (!job->ub) return HSP_ERR_NOMEM;
    hsp_status s = dev->spgemm->bound ? dev->spgemm->bound(dev, job) : HSP_OK;
    if (s != HSP_OK || job->resident.all_device) return s; /* the device sums u in stage 2 */
    nparts = hsp_split_weighted(job->A->rowptr, m, nparts, cut);
    part_run r = {job, cut, part_flops};
    hsp_pool_chunks(job->ctx->pool, nparts, dev->spgemm->bound ? sum_part : bound_part, &r);
    return hsp_job_flops(job, part_flops, nparts);
}

/* ---- stage 2: binning and C~ -------------------------------------------------- */

typedef struct {
    hsp_job *job;
    int64_t *cut;
    int64_t (*count)[HSP_MAX_BINS]; /* rows of each bin in each part, then offsets */
    int64_t (*flops)[HSP_NGROUPS];  /* flops of each group in each part */
    int64_t *slots;                 /* C~ slots of each part, then offsets */
} bin_run;

/* Count the rows of each bin and the C~ slots of a part. */
static void bin_count_part(void *arg, int tid, int64_t part)
{
    bin_run *r = arg;
    hsp_job *job = r->job;
    int64_t slots = 0;
    (void)tid;
    memset(r->count[part], 0, sizeof r->count[part]);
    memset(r->flops[part], 0, sizeof r->flops[part]);
    for (int64_t i = r->cut[part]; i < r->cut[part + 1]; i++) {
        int64_t u = job->ub[i];
        int b = hsp_bins_find(&job->ctx->engine->bins, u);
        r->count[part][b]++;
        r->flops[part][job->ctx->engine->bins.group[b]] += 2 * u;
        if (u <= job->medium_max) slots += u;
    }
    r->slots[part] = slots;
}

/* Place the rows of a part in their bins and give them their C~ slots. */
static void bin_place_part(void *arg, int tid, int64_t part)
{
    bin_run *r = arg;
    hsp_job *job = r->job;
    int64_t *next = r->count[part], slot = r->slots[part];
    int longbin = job->ctx->engine->bins.nbins - 1;
    (void)tid;
    for (int64_t i = r->cut[part]; i < r->cut[part + 1]; i++) {
        int64_t u = job->ub[i];
        int b = hsp_bins_find(&job->ctx->engine->bins, u);
        int64_t pos = next[b]++;
        job->bin_rows[pos] = (int32_t)i;
        if (u <= job->medium_max) {
            job->slot[i] = slot;
            slot += u;
        } else {
            job->slot[i] = pos - job->bin_start[longbin];
        }
    }
}

/* Turn per-part counts into offsets: bin by bin, part by part. */
static void bin_offsets(hsp_job *job, bin_run *r, int64_t nparts, int64_t *total_slots)
{
    int nbins = job->ctx->engine->bins.nbins;
    int64_t pos = 0, slots = 0;
    for (int b = 0; b < nbins; b++) {
        job->bin_start[b] = pos;
        job->stats->rows_bin[b] = 0;
        for (int64_t p = 0; p < nparts; p++) {
            int64_t c = r->count[p][b];
            r->count[p][b] = pos;
            pos += c;
            job->stats->rows_bin[b] += c;
        }
    }
    job->bin_start[nbins] = pos;
    for (int64_t p = 0; p < nparts; p++) {
        int64_t c = r->slots[p];
        for (int g = 0; g < HSP_NGROUPS; g++) job->stats->flops_group[g] += r->flops[p][g];
        r->slots[p] = slots;
        slots += c;
    }
    *total_slots = slots;
}

/* Stage 2 on the device; here only the long rows' buffers (empty). */
static hsp_status bin_on_device(hsp_job *job)
{
    hsp_status s = job->dev->spgemm->bin(job->dev, job);
    return s != HSP_OK ? s : hsp_job_longbufs(job, job->nlong);
}

/* The bins' rows and C~ (the C~ offsets of rows in job->slot). */
static hsp_status place_rows(hsp_job *job, bin_run *r, int64_t nparts, int64_t total_slots)
{
    int64_t m = job->A->nrows;
    job->bin_rows = hsp_job_alloc(job, WS_BINS, (m + 1) * (int64_t)sizeof(int32_t), "bins");
    if (!job->bin_rows) return HSP_ERR_NOMEM;
    hsp_pool_chunks(job->ctx->pool, nparts, bin_place_part, r);
    job->tmp_col = hsp_job_alloc(job, WS_TMPCOL, total_slots * (int64_t)sizeof(int32_t), "C~ columns");
    job->tmp_val = job->tmp_col ? hsp_job_alloc(job, WS_TMPVAL, total_slots * (int64_t)job->vsize, "C~ values") : NULL;
    job->nslots = total_slots;
    return job->tmp_val ? HSP_OK : HSP_ERR_NOMEM;
}

hsp_status hsp_stage_bin(hsp_job *job)
{
    int64_t m = job->A->nrows, nparts = part_count(job), total_slots;
    int64_t cut[nparts + 1], slots[nparts], flops[nparts][HSP_NGROUPS];
    if (job->dev->spgemm->direct) return hsp_direct_bin(job);
    if (job->resident.all_device) {
        job->bin_rows = hsp_job_alloc(job, WS_BINS, (m + 1) * (int64_t)sizeof(int32_t), "bins");
        return job->bin_rows ? bin_on_device(job) : HSP_ERR_NOMEM;
    }
    int64_t (*count)[HSP_MAX_BINS] = malloc((size_t)nparts * sizeof *count);
    job->slot = hsp_job_alloc(job, WS_SLOT, (m + 1) * (int64_t)sizeof(int64_t), "C~ offsets");
    if (!count || !job->slot) {
        free(count);
        return count ? HSP_ERR_NOMEM : hsp_fail(HSP_ERR_NOMEM, "no memory for bin counts");
    }
    nparts = hsp_split_weighted(NULL, m, nparts, cut);
    bin_run r = {job, cut, count, flops, slots};
    hsp_pool_chunks(job->ctx->pool, nparts, bin_count_part, &r);
    bin_offsets(job, &r, nparts, &total_slots);
    int longbin = job->ctx->engine->bins.nbins - 1;
    int64_t nlong = job->bin_start[longbin + 1] - job->bin_start[longbin];
    hsp_status s = place_rows(job, &r, nparts, total_slots);
    free(count);
    return s != HSP_OK ? s : hsp_job_longbufs(job, nlong);
}

/* ---- stage 3: compute ------------------------------------------------------------ */

typedef struct {
    hsp_job *job;
    int64_t first, rows_per_chunk, nrows;
} single_run;

/* Rows of bin 1 (one product each) on CPU threads. */
static void single_chunk(void *arg, int tid, int64_t chunk)
{
    single_run *r = arg;
    int64_t first = r->first + chunk * r->rows_per_chunk;
    int64_t last = first + r->rows_per_chunk;
    if (last > r->first + r->nrows) last = r->first + r->nrows;
    (void)tid;
    hsp_rows_single(r->job, first, last);
}

hsp_status hsp_stage_compute(hsp_job *job)
{
    hsp_device *dev = job->dev;
    int nbins = job->ctx->engine->bins.nbins;
    if (dev->spgemm->direct) return hsp_direct_compute(job);
    double t0 = hsp_now_ms();
    for (int b = job->resident.all_device ? 1 : 2; b < nbins; b++) {
        if (job->bin_start[b + 1] == job->bin_start[b]) continue;
        int last = b;
        hsp_status s = dev->spgemm->launch_bin(dev, job, b, &last);
        if (s != HSP_OK) return s;
        b = last;
    }
    for (int64_t k = job->bin_start[0]; k < job->bin_start[1] && !job->resident.all_device; k++)
        job->C->rowptr[job->bin_rows[k] + 1] = 0;
    single_run r = {job, job->bin_start[1], 4096, job->resident.all_device ? 0 : job->bin_start[2] - job->bin_start[1]};
    hsp_pool_chunks(job->ctx->pool, (r.nrows + r.rows_per_chunk - 1) / r.rows_per_chunk,
                    single_chunk, &r);
    job->stats->ms_host = hsp_now_ms() - t0;
    hsp_status s = dev->spgemm->wait(dev, job);
    job->stats->ms_device = hsp_now_ms() - t0;
    job->stats->ms_overlap = dev->async ? job->stats->ms_host : 0; /* the device began first */
    return s != HSP_OK ? s : hsp_job_status(job);
}

/* ---- stage 4: arrange -------------------------------------------------------------- */

typedef struct {
    hsp_job *job;
    int64_t *cut;
    const int32_t *rows; /* the rows to arrange, or NULL for all */
} arrange_run;

/* Copy the rows of a part from C~ (or their long-row buffers, then freed)
 * into C. */
static void arrange_part(void *arg, int tid, int64_t part)
{
    arrange_run *r = arg;
    hsp_job *job = r->job;
    hsp_csr *C = job->C;
    size_t vs = job->vsize;
    (void)tid;
    for (int64_t k = r->cut[part]; k < r->cut[part + 1]; k++) {
        int64_t i = r->rows ? r->rows[k] : k;
        int64_t dst = C->rowptr[i], len = C->rowptr[i + 1] - dst;
        int32_t *col = C->colidx + dst;
        unsigned char *val = (unsigned char *)C->values + (size_t)dst * vs;
        if (job->ub[i] > job->medium_max) {
            hsp_job_take_long(job, &job->longbuf[job->slot[i]], col, val, len);
            continue;
        }
        memcpy(col, job->tmp_col + job->slot[i], (size_t)len * sizeof *col);
        memcpy(val, (const unsigned char *)job->tmp_val + (size_t)job->slot[i] * vs, (size_t)len * vs);
    }
}

hsp_status hsp_stage_arrange(hsp_job *job)
{
    hsp_device *dev = job->dev;
    if (dev->spgemm->direct) return hsp_direct_arrange(job);
    int64_t m = job->C->nrows, nparts = part_count(job);
    int64_t cut[nparts + 1];
    hsp_status s = hsp_job_alloc_c(job);
    if (s != HSP_OK) return s;
    arrange_run r = {job, cut, NULL};
    if (dev->spgemm->arrange) { /* the device's rows there, bin 1's here unless the device did them */
        if ((s = dev->spgemm->arrange(dev, job)) != HSP_OK) return s;
        r.rows = job->bin_rows + job->bin_start[1];
        int64_t singles = job->resident.all_device ? 0 : job->bin_start[2] - job->bin_start[1];
        nparts = hsp_split_weighted(NULL, singles, nparts, cut);
    } else {
        nparts = hsp_split_weighted(job->C->rowptr, m, nparts, cut);
    }
    hsp_pool_chunks(job->ctx->pool, nparts, arrange_part, &r);
    return HSP_OK;
}

void hsp_job_cleanup(hsp_job *job)
{
    hsp_direct_free(job);
    for (int64_t k = 0; k < job->nlong; k++) hsp_job_drop_long(job, &job->longbuf[k]);
    for (int t = 0; t < hsp_pool_size(job->ctx->pool); t++) {
        hsp_scratch *s = &job->ctx->scratch[t];
        free(s->spare_col), free(s->spare_val);
        s->spare_col = NULL, s->spare_val = NULL;
        hsp_arena_reset(s);
    }
}
