/* gpu_stages.c: the pipeline's stages on a GPU device, over any back end
 * (device/gpu.h).  Stage 1 runs the bound kernel; stage 2, where the device
 * has memory of its own, bins the rows there (gpu_bins.c); stage 3 queues
 * one kernel launch per non-empty bin (heap, ESC or merge, as the context's
 * methods say, by gpu_rows.c) while the CPU threads do bins 0-1; stage 4
 * copies the device's rows into C with the arrange kernel. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "device/gpu.h"
#include "spgemm/gpu_stages.h"
#include "spgemm/job.h"
#include "spgemm/spgemm_device.h"

/* ---- the stages ------------------------------------------------------------------ */

/* Stage 1: A and B to the device, the bound kernel, u back to job->ub. */
static hsp_status gpu_bound(hsp_device *dev, hsp_job *job)
{
    gpu *g = dev->state;
    const hsp_csr *A = job->A, *B = job->B;
    int dbl = A->precision == HSP_DOUBLE;
    if (dbl && !g->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (%s): use float or another device",
                        dev->description, g->no_fp64);
    if (!g->job && !(g->job = calloc(1, sizeof *g->job)))
        return hsp_fail(HSP_ERR_NOMEM, "no memory for a product's state on %s", dev->description);
    g->timeout_s = job->ctx->options.device_timeout;
    hsp_status s = g->ops->finish(g);
    if (g->ops->unmap_host) g->ops->unmap_host(g, NULL); /* the last product's arrays may be gone */
    g->job->started = 0;
    g->peak_device_bytes = g->device_bytes;
    g->moved[0] = g->moved[1] = 0;
    size_t m = (size_t)A->nrows, vs = job->vsize;
    for (int k = 0; k < 2; k++) g->held[k] = job->resident.held[k] ? ((gpu_held *)job->resident.held[k])->a : NULL;
    int a_held = job->resident.held[0] != NULL, b_held = job->resident.held[1] != NULL;
    if (s == HSP_OK && !a_held) s = gpu_upload(g, GA_ARP, A->rowptr, (m + 1) * sizeof(int64_t));
    if (s == HSP_OK && !a_held) s = gpu_upload(g, GA_ACOL, A->colidx, (size_t)A->nnz * sizeof(int32_t));
    if (s == HSP_OK && !a_held) s = gpu_upload(g, GA_AVAL, A->values, (size_t)A->nnz * vs);
    g->b_is_a = B == A; /* A*A: one copy */
    int b_sent = g->b_is_a || b_held;
    if (s == HSP_OK && !b_sent) s = gpu_upload(g, GA_BRP, B->rowptr, ((size_t)B->nrows + 1) * sizeof(int64_t));
    if (s == HSP_OK && !b_sent) s = gpu_upload(g, GA_BCOL, B->colidx, (size_t)B->nnz * sizeof(int32_t));
    if (s == HSP_OK && !b_sent) s = gpu_upload(g, GA_BVAL, B->values, (size_t)B->nnz * vs);
    if (s == HSP_OK) s = gpu_upload(g, GA_UB, g->host_arrays ? job->ub : NULL, m * sizeof(int64_t)); /* kernel fills */
    int64_t m64 = (int64_t)m;
    gpu_arg a[] = {gpu_val(&m64, sizeof m64), gpu_arr(g, GA_ARP), gpu_arr(g, GA_ACOL), gpu_arr(g, GA_BRP),
                   gpu_arr(g, GA_UB)};
    size_t size = gpu_group_size(g, dbl, GK_BOUND, 256);
    if (s == HSP_OK) s = g->ops->launch(g, dbl, GK_BOUND, a, 5, (m + size - 1) / size, size);
    if (s == HSP_OK && !job->resident.all_device) s = gpu_download(g, GA_UB, job->ub, m * sizeof(int64_t));
    return gpu_noted(dev, s);
}

/* The long rows' method. */
static hsp_method long_method(const hsp_job *job)
{
    return job->method[HSP_GROUP_LONG - HSP_GROUP_SHORT];
}

/* The most products of a long row that ESC takes in local memory (method
 * auto), at most 4096; 0 when no long row goes by ESC. */
static int64_t esc_limit(gpu *g, hsp_job *job)
{
    int64_t n2 = 1;
    if (long_method(job) != HSP_METHOD_AUTO) return 0;
    while (n2 < 4096 && 2 * n2 * (int64_t)(sizeof(int32_t) + job->vsize) + 256 * 4 <= g->local_mem) n2 *= 2;
    return n2 > job->medium_max ? n2 : 0;
}

/* Do the long rows that ESC does not take go dense (methods auto and
 * dense, where the device and the windows allow, unless the sums must be
 * exact), not merge? */
static int long_dense(gpu *g, hsp_job *job)
{
    hsp_method m = long_method(job);
    int64_t limit = esc_limit(g, job), n = 0, first = job->bin_start[job->ctx->engine->bins.nbins - 1];
    if ((m != HSP_METHOD_AUTO && m != HSP_METHOD_DENSE) || job->dev->deterministic) return 0;
    for (int64_t k = 0; k < job->nlong; k++) n += job->ub[job->bin_rows[first + k]] > limit;
    return gpu_dense_fits(g, job, n);
}

/* Are the job's rows alike: does one bin of short and medium rows hold 75%
 * of them?  RMerge steps a warp's rows together, so rows of unlike lengths
 * leave its items idle; rows alike go faster by RMerge, unlike ones by
 * hash (doc/performance.md, "Figures behind the code"). */
static int rows_alike(const hsp_job *job)
{
    int64_t total = 0, most = 0;
    for (int b = 2; b < job->ctx->engine->bins.nbins - 1; b++) {
        int64_t n = job->stats->rows_bin[b];
        total += n, most = n > most ? n : most;
    }
    return most * 4 >= total * 3;
}

/* Is group k's method (0 short, 1 medium) the context's own, or the
 * device deterministic, so that the defaults below leave it as it is? */
static int method_chosen(const hsp_job *job, int k)
{
    return job->ctx->options.method[k] != HSP_METHOD_DEFAULT || job->dev->deterministic;
}

/* The medium rows' method: RMerge by default only where the rows are alike
 * (else hash); what the context was given, or deterministic, as it is. */
static hsp_method medium_method(gpu *g, const hsp_job *job)
{
    hsp_method m = job->method[1];
    if (m != HSP_METHOD_RMERGE || method_chosen(job, 1) || !g->local_add[job->vsize == 8] || rows_alike(job)) return m;
    return HSP_METHOD_HASH;
}

enum { RMERGE_SHORT_MEAN = 8 }; /* short_method */

/* The short rows' method: RMerge, as the medium rows' where alike, in
 * place of the device's default hash where the rows are alike and A's
 * rows hold RMERGE_SHORT_MEAN entries or more on average (RMerge's items a
 * row: rmerge_width), else as given.  On an H200, resident: the finest
 * level's A*P of poisson2d9:1024 (rows of 9 entries, 25 products) 1.08 ms
 * by hash, 0.83 by RMerge; poisson2d5:1024's (5 entries) 0.58 against 0.60
 * (doc/performance.md). */
static hsp_method short_method(gpu *g, const hsp_job *job)
{
    hsp_method m = job->method[0];
    int few = job->A->nnz < RMERGE_SHORT_MEAN * (int64_t)job->A->nrows; /* entries a row of A on average */
    if (m != HSP_METHOD_HASH || method_chosen(job, 0) || !g->warp_shuffles || few) return m;
    return rows_alike(job) ? HSP_METHOD_RMERGE : m;
}

enum { WARP_ESC_MAX = 64 }; /* ESC sorts rows of up to this many products within a warp (esc.cl) */

/* Up to how many products the rows are sampled for esc_for_sparse_rows (0:
 * none): where the device sorts rows within a warp and the short or medium
 * rows' method is the device's to choose. */
static int64_t sample_most(const gpu *g, const hsp_job *job)
{
    const hsp_method *chosen = job->ctx->options.method;
    int free = chosen[0] == HSP_METHOD_DEFAULT || chosen[1] == HSP_METHOD_DEFAULT;
    return g->warp_shuffles && free && !job->dev->deterministic ? WARP_ESC_MAX : 0;
}

/* Short and medium bins go ESC (where neither the context nor its profile
 * names their method) by how often the sampled products meet, shared / u
 * (the columns that the B rows of a row's consecutive entries share, over
 * its products): bins of up to WARP_ESC_MAX products, which ESC sorts within
 * a warp, below 2/5 (faster than hash and RMerge on stencils of 0.25 and
 * 0.32, slower on bands of 0.44 and up); larger bins that would go hash (rows
 * unlike), sorted in local memory, below 1/10 (R-MAT's rows).  The figures
 * are in doc/devices.md, "The opencl device". */
static void esc_for_sparse_rows(gpu *g, hsp_job *job)
{
    if (!sample_most(g, job)) return;
    if (!job->resident.all_device) hsp_sample_shared(job, WARP_ESC_MAX, &job->sample_u, &job->sample_shared);
    int64_t u = job->sample_u, shared = job->sample_shared;
    int warp = u && shared * 5 < u * 2, local = u && shared * 10 < u && job->method[1] == HSP_METHOD_HASH;
    const hsp_bins *bins = &job->ctx->engine->bins;
    for (int b = 0; b < bins->nbins; b++) {
        int k = bins->group[b] - HSP_GROUP_SHORT; /* 0 short, 1 medium */
        if ((k == 0 || k == 1) && job->ctx->options.method[k] == HSP_METHOD_DEFAULT && !job->bin_method[b] &&
            (bins->hi[b] <= WARP_ESC_MAX ? warp : local))
            job->bin_method[b] = HSP_METHOD_ESC;
    }
}

/* Before the first bin of a job: the medium rows' method, rows, slots, C~,
 * counts and long rows (or stand-ins for the pool arguments when there are
 * none). */
static hsp_status start_compute(gpu *g, hsp_job *job)
{
    job->method[0] = short_method(g, job);
    job->method[1] = medium_method(g, job);
    esc_for_sparse_rows(g, job);
    size_t m = (size_t)job->A->nrows;
    int64_t *counts = realloc(g->job->counts, (m ? m : 1) * sizeof *counts);
    if (!counts) return hsp_fail(HSP_ERR_NOMEM, "no memory for the row counts");
    g->job->counts = counts;
    hsp_status s = HSP_OK;
    if (!job->resident.all_device) s = gpu_upload(g, GA_ROWS, job->bin_rows, m * sizeof(int32_t)); /* else there */
    if (s == HSP_OK && !job->resident.all_device) s = gpu_upload(g, GA_SLOT, job->slot, m * sizeof(int64_t));
    if (s == HSP_OK)
        s = gpu_upload(g, GA_TCOL, g->host_arrays ? job->tmp_col : NULL, (size_t)job->nslots * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_upload(g, GA_TVAL, g->host_arrays ? job->tmp_val : NULL, (size_t)job->nslots * job->vsize);
    if (s == HSP_OK) s = gpu_upload(g, GA_CNT, g->host_arrays ? counts : NULL, m * sizeof(int64_t));
    g->job->long_dense = job->nlong && long_dense(g, job), g->job->dense_rows = 0;
    g->job->nfill = 0, g->job->filled = 0;
    if (s == HSP_OK && job->nlong) s = gpu_long_start(g, job, esc_limit(g, job), g->job->long_dense);
    for (int a = GA_PCOL; s == HSP_OK && !job->nlong && a <= GA_LROWS; a++) s = gpu_reserve(g, a, 1);
    g->job->started = 1;
    return s;
}

/* The long bin with methods auto and dense: rows whose products fit in
 * local memory by ESC (auto), one launch per power of two, the rest dense or
 * by merge (GA_LONGROWS holds them in that order). */
static hsp_status launch_long(gpu *g, hsp_job *job, int bin)
{
    int64_t first = job->bin_start[bin], n = job->bin_start[bin + 1] - first, limit = esc_limit(g, job);
    int64_t start[14] = {0}; /* rows of ESC class c (n2 = 2^c) start at start[c]; merge at [13] */
    int32_t *rows = realloc(g->job->longrows, (size_t)(n ? n : 1) * sizeof *rows);
    if (!rows) return hsp_fail(HSP_ERR_NOMEM, "no memory for %lld long rows", (long long)n);
    g->job->longrows = rows;
    for (int pass = 0; pass < 2; pass++) { /* count, then place */
        for (int64_t k = 0; k < n; k++) {
            int64_t u = job->ub[job->bin_rows[first + k]];
            int c = u <= limit ? 64 - __builtin_clzll((unsigned long long)u - 1) : 13;
            if (pass) rows[start[c]++] = job->bin_rows[first + k];
            else start[c]++;
        }
        for (int c = 0, at = 0; !pass && c < 14; c++) {
            int64_t count = start[c];
            start[c] = at, at += (int)count;
        }
    }
    hsp_status s = gpu_upload(g, GA_LONGROWS, rows, (size_t)n * sizeof *rows);
    for (int c = 0, at = 0; c < 14 && s == HSP_OK; c++) { /* start[c] is now the end of class c */
        if (c < 13) s = gpu_launch_rows(g, job, HSP_METHOD_ESC, (int64_t)1 << c, 1, GA_LONGROWS, at, start[c] - at);
        else if (g->job->long_dense) s = gpu_dense_count(g, job, at, start[c] - at);
        else s = gpu_launch_rows(g, job, HSP_METHOD_MERGE, -1, 1, GA_LONGROWS, at, start[c] - at);
        at = (int)start[c];
    }
    return s;
}

/* The last bin of the run from bin b (short or medium rows) that one launch
 * of method m takes: the bins after it of its group, method and class. */
static int run_end(const hsp_job *job, int b, hsp_method m)
{
    const hsp_bins *bins = &job->ctx->engine->bins;
    int64_t kind = gpu_launch_class(job, m, bins->hi[b]);
    while (b + 1 < bins->nbins && bins->group[b + 1] == bins->group[b] && hsp_job_bin_method(job, b + 1) == m &&
           gpu_launch_class(job, m, bins->hi[b + 1]) == kind)
        b++;
    return b;
}

/* Bin b's rows, with those of the bins after it that share its launch (a
 * launch each of the 31 bins of short rows cost a coarse AMG level's product
 * more than its work). */
static hsp_status gpu_launch_bin(hsp_device *dev, hsp_job *job, int bin, int *last)
{
    gpu *g = dev->state;
    hsp_status s = g->job->started ? HSP_OK : start_compute(g, job);
    int group = job->ctx->engine->bins.group[bin];
    hsp_method m = hsp_job_bin_method(job, bin);
    *last = group == HSP_GROUP_SHORT || group == HSP_GROUP_MEDIUM ? run_end(job, bin, m) : bin;
    int64_t first = job->bin_start[bin], nrows = job->bin_start[*last + 1] - first;
    int64_t hi = group == HSP_GROUP_SINGLE ? 2 : group == HSP_GROUP_LONG ? -1 : job->ctx->engine->bins.hi[*last];
    if (s != HSP_OK) return s;
    g->overlap = 1; /* bins hold distinct rows */
    if (group == HSP_GROUP_LONG && (m == HSP_METHOD_AUTO || m == HSP_METHOD_DENSE)) s = launch_long(g, job, bin);
    else s = gpu_launch_rows(g, job, m, hi, group == HSP_GROUP_LONG, GA_ROWS, first, nrows);
    g->overlap = 0;
    return gpu_noted(dev, s);
}

/* Finish long rows; the counts of the device's rows (whose reading waits
 * for the queue: without long rows, no wait of its own, a round trip
 * less). */
static hsp_status gpu_wait(hsp_device *dev, hsp_job *job)
{
    gpu *g = dev->state;
    if (!g->job->started) return HSP_OK;
    hsp_status s = job->nlong ? g->ops->finish(g) : HSP_OK;
    if (s == HSP_OK && job->nlong) s = gpu_long_finish(g, job);
    if (job->resident.all_device) return gpu_noted(dev, s == HSP_OK ? gpu_row_pointers(g, job) : s);
    if (s == HSP_OK) s = gpu_download(g, GA_CNT, g->job->counts, (size_t)job->A->nrows * sizeof(int64_t));
    for (int64_t k = job->bin_start[2]; s == HSP_OK && k < job->bin_start[job->ctx->engine->bins.nbins]; k++)
        job->C->rowptr[job->bin_rows[k] + 1] = g->job->counts[job->bin_rows[k]];
    return gpu_noted(dev, s);
}

/* C's arrays, as the arrange kernel left them, become a resident matrix's
 * (job->resident.held_c); the job's next C gets arrays of its own. */
static hsp_status hold_result(gpu *g, hsp_job *job)
{
    gpu_held *h = calloc(1, sizeof *h);
    if (!h) return hsp_fail(HSP_ERR_NOMEM, "no memory for a resident matrix");
    for (int k = 0; k < 3; k++) h->a[k] = g->a[GA_CRP + k], memset(&g->a[GA_CRP + k], 0, sizeof g->a[0]);
    job->resident.held_c = h;
    return HSP_OK;
}

/* The arrange kernel over rows [first, end) of the bin order, lanes
 * work-items a row (long rows: from the pool). */
static hsp_status arrange_launch(gpu *g, hsp_job *job, int64_t first, int64_t end, int32_t lanes, int32_t islong)
{
    int dbl = job->vsize == 8;
    int64_t nrows = end - first;
    size_t size = gpu_group_size(g, dbl, GK_ARRANGE, 256);
    if (islong || (size_t)lanes > size) lanes = (int32_t)size;
    size -= size % (size_t)lanes; /* the kernel wants lanes to divide it */
    gpu_arg a[] = {gpu_arr(g, GA_ROWS),  gpu_val(&first, sizeof first), gpu_val(&nrows, sizeof nrows),
                   gpu_val(&lanes, sizeof lanes), gpu_val(&islong, sizeof islong), gpu_arr(g, GA_CRP),
                   gpu_arr(g, GA_SLOT),  gpu_arr(g, GA_TCOL),  gpu_arr(g, GA_TVAL),  gpu_arr(g, GA_PCOL),
                   gpu_arr(g, GA_PVAL),  gpu_arr(g, GA_LROWS), gpu_arr(g, GA_CCOL),  gpu_arr(g, GA_CVAL)};
    size_t groups = ((size_t)nrows * (size_t)lanes + size - 1) / size;
    return nrows > 0 ? g->ops->launch(g, dbl, GK_ARRANGE, a, 14, groups, size) : HSP_OK;
}

/* The rows of C a work-group of size copies in arrange_in_order: size, but
 * fewer where m rows would leave the device's compute units fewer than
 * ARRANGE_GROUPS_A_UNIT work-groups each, so that few rows of many entries
 * (an AMG hierarchy's coarse levels) are copied by many work-groups: on an
 * H200 poisson3d27:12 (1728 rows) took 0.089 ms a launch with 7 work-groups
 * (doc/performance.md). */
enum { ARRANGE_GROUPS_A_UNIT = 4 };
static int32_t arrange_rows_a_group(const gpu *g, int64_t m, size_t size)
{
    int64_t groups = (int64_t)ARRANGE_GROUPS_A_UNIT * g->compute_units;
    if (!groups) return (int32_t)size; /* the units not known */
    int64_t per = (m + groups - 1) / groups;
    return (int32_t)(per < 1 ? 1 : per < (int64_t)size ? per : (int64_t)size);
}

/* The rows of up to medium_max products of a product whose rows are all the
 * device's, from C~ into C in C's order (kernel hsp_arrange_rows).  Its
 * work-groups walk every entry of their rows, the long rows' too, so it pays
 * where long rows are few, and loses badly where most products are in long
 * rows (doc/performance.md, "Figures behind the code"). */
static hsp_status arrange_in_order(gpu *g, hsp_job *job)
{
    int dbl = job->vsize == 8;
    int64_t m = job->C->nrows, medium = job->medium_max;
    size_t size = gpu_group_size(g, dbl, GK_ARRANGE_ROWS, 256);
    int32_t per = arrange_rows_a_group(g, m, size);
    gpu_arg a[] = {gpu_val(&m, sizeof m),  gpu_val(&medium, sizeof medium), gpu_val(&per, sizeof per),
                   gpu_arr(g, GA_UB),      gpu_arr(g, GA_CRP),             gpu_arr(g, GA_SLOT),
                   gpu_arr(g, GA_TCOL),    gpu_arr(g, GA_TVAL),            gpu_arr(g, GA_CCOL),
                   gpu_arr(g, GA_CVAL),    gpu_local((size + 1) * sizeof(int64_t)), gpu_local(size * sizeof(int64_t))};
    return g->ops->launch(g, dbl, GK_ARRANGE_ROWS, a, 12, ((size_t)m + (size_t)per - 1) / (size_t)per, size);
}

/* The rows of C~ and the pool into C: where the device has all rows and
 * long rows hold at most a quarter of the products, the short and medium
 * ones in C's order, else short rows 16 work-items a row, medium ones 32;
 * long ones a work-group; rows of at most host_max products are the host's
 * (bins 0-1, or 0 where the device computed bin 1). */
static hsp_status arrange_copy(gpu *g, hsp_job *job, int host_max)
{
    const hsp_bins *bins = &job->ctx->engine->bins;
    int medium = host_max + 1, last = bins->nbins - 1;
    hsp_status s;
    if (job->resident.all_device && job->stats->flops_group[HSP_GROUP_LONG] <= job->stats->flops / 4) {
        s = arrange_in_order(g, job);
    } else {
        while (medium < last && bins->group[medium] != HSP_GROUP_MEDIUM) medium++;
        s = arrange_launch(g, job, job->bin_start[host_max + 1], job->bin_start[medium], 16, 0);
        if (s == HSP_OK) s = arrange_launch(g, job, job->bin_start[medium], job->bin_start[last], 32, 0);
    }
    return s == HSP_OK ? arrange_launch(g, job, job->bin_start[last], job->bin_start[last + 1], 0, 1) : s;
}

/* The device's rows into C (the pool arguments exist: the job started):
 * hash2's rows filled in place, the others copied from C~ and the pool
 * (where there are any). */
static hsp_status arrange_rows(gpu *g, hsp_job *job)
{
    hsp_csr *C = job->C;
    int64_t nnz = C->nnz, m = C->nrows;
    int host_max = job->resident.all_device ? 0 : 1;
    size_t rowptr_bytes = ((size_t)m + 1) * sizeof(int64_t);
    hsp_status s = job->resident.all_device ? HSP_OK : gpu_upload(g, GA_CRP, C->rowptr, rowptr_bytes);
    if (s == HSP_OK) s = gpu_upload(g, GA_CCOL, g->host_arrays ? C->colidx : NULL, (size_t)nnz * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_upload(g, GA_CVAL, g->host_arrays ? C->values : NULL, (size_t)nnz * job->vsize);
    int64_t copied = job->bin_start[job->ctx->engine->bins.nbins] - job->bin_start[host_max + 1] - g->job->filled;
    if (s == HSP_OK) s = gpu_fill_rows(g, job);
    if (s == HSP_OK && copied) s = arrange_copy(g, job, host_max);
    if (s == HSP_OK) s = gpu_dense_sums(g, job);
    /* the device holds all of C but bin 1's rows, which the host writes; with
     * host arrays in place it holds nothing of its own */
    if (s == HSP_OK && job->resident.hold_c) s = hold_result(g, job);
    if (gpu_nnz_later(job)) return s == HSP_OK ? gpu_nnz_read(g, job) : s; /* which waits for C */
    if (job->resident.hold_c) return s == HSP_OK ? g->ops->finish(g) : s; /* C is done when the call returns */
    if (s == HSP_OK) s = gpu_download(g, GA_CCOL, C->colidx, (size_t)nnz * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_download(g, GA_CVAL, C->values, (size_t)nnz * job->vsize);
    return s;
}

/* Stage 4: the rows of bins 2 and up into C (the host does bins 0-1); the
 * job's memory and transfer figures. */
static hsp_status gpu_arrange(hsp_device *dev, hsp_job *job)
{
    gpu *g = dev->state;
    hsp_status s = g->job->started && job->C->nnz ? arrange_rows(g, job) : HSP_OK;
    job->stats->peak_device_bytes = g->peak_device_bytes;
    job->stats->bytes_to_device = g->moved[0], job->stats->bytes_to_host = g->moved[1];
    return gpu_noted(dev, s);
}

/* Stage 2 on the device (gpu_bins.c). */
static hsp_status gpu_bin(hsp_device *dev, hsp_job *job)
{
    return gpu_noted(dev, gpu_bin_rows(dev->state, job, sample_most(dev->state, job)));
}

void gpu_spgemm_free(hsp_device *dev)
{
    gpu *g = dev->state;
    free(dev->spgemm);
    dev->spgemm = NULL;
    if (!g->job || g->lost) return; /* a lost device's buffers are left to it */
    free(g->job->lrows), free(g->job->relaunch), free(g->job->counts), free(g->job->longrows);
    free(g->job);
    g->job = NULL;
}

/* The methods of each group on g: which can run, which are exact, the
 * defaults; and the largest medium row. */
static void gpu_methods(const gpu *g, int64_t local_mem, hsp_spgemm_device *d)
{
    /* medium rows up to what ESC sorts in local memory in double, at most
     * 4096 products (its largest batch) */
    for (d->medium_max = 4096; d->medium_max > 1; d->medium_max /= 2)
        if (d->medium_max * (int64_t)(sizeof(int32_t) + sizeof(double)) + 256 * 4 <= local_mem) break;
    /* several rows a work-group, by hash where the device adds in local
     * memory; medium rows by RMerge where it shuffles within warps: the
     * fastest measured (doc/devices.md, "The opencl device") */
    d->default_method[0] = d->default_method[1] = g->local_add[1] ? HSP_METHOD_HASH : HSP_METHOD_ESC;
    if (g->warp_shuffles) d->default_method[1] = HSP_METHOD_RMERGE;
    d->default_method[2] = HSP_METHOD_AUTO;
    unsigned hash = g->local_add[0] ? 1u << HSP_METHOD_HASH | 1u << HSP_METHOD_HASH2 : 0;
    unsigned rmerge = 1u << HSP_METHOD_RMERGE;
    d->methods[0] = 1u << HSP_METHOD_HEAP | 1u << HSP_METHOD_ESC | hash | rmerge;
    d->methods[1] = 1u << HSP_METHOD_ESC | hash | rmerge;
    d->methods[2] = 1u << HSP_METHOD_MERGE | 1u << HSP_METHOD_AUTO | (g->local_add[0] ? 1u << HSP_METHOD_DENSE : 0);
    /* hash and dense add by compare-and-swap in whatever order the work-items
     * come; auto's long rows take ESC or merge when the context is deterministic */
    d->exact[0] = 1u << HSP_METHOD_HEAP | 1u << HSP_METHOD_ESC | rmerge;
    d->exact[1] = 1u << HSP_METHOD_ESC | rmerge;
    d->exact[2] = 1u << HSP_METHOD_MERGE | 1u << HSP_METHOD_AUTO;
}

hsp_status gpu_spgemm_open(hsp_device *dev)
{
    gpu *g = dev->state;
    hsp_spgemm_device *d = calloc(1, sizeof *d);
    if (!d) return hsp_fail(HSP_ERR_NOMEM, "no memory for the %s device", dev->name);
    gpu_methods(g, dev->local_mem, d);
    d->bound = gpu_bound, d->launch_bin = gpu_launch_bin, d->wait = gpu_wait, d->arrange = gpu_arrange;
    if (!g->host_arrays)
        d->bin = gpu_bin, d->numeric = gpu_numeric, d->same_pattern = gpu_same_pattern, d->pattern = gpu_pattern;
    dev->spgemm = d;
    return HSP_OK;
}
