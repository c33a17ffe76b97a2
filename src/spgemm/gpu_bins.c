/* gpu_bins.c: the row work of stages 2 and 4 on a GPU with memory of its
 * own (kernels/bins.cl), for products whose rows all go to the device: u
 * stays there, each work-group of 8 x 256 rows sums its figures (the rows
 * of each bin, sums of u, sums of the row counts), and one-work-group scans
 * over those turn them into offsets, so no kernel needs a global atomic or a
 * multi-level scan.  What crosses to the host is the totals (each bin's
 * rows, the products, nnz(C)) and the long rows. */
#include <stdlib.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/job.h"
#include "spgemm/gpu_stages.h"

enum { GROUP_SIZE = GPU_SPAN_GROUP, NGROUPS_U = 5, NSAMPLE = 2, NSUMS = 2 * NGROUPS_U + NSAMPLE };


/* Host memory for n items of bytes each (of a job, freed by the caller). */
static void *host_array(int64_t n, size_t bytes)
{
    void *p = malloc((size_t)(n ? n : 1) * bytes);
    if (!p) hsp_fail(HSP_ERR_NOMEM, "no memory for %lld long rows", (long long)n);
    return p;
}

/* The job's bins, figures and C~ size from stage 2's sums (hsp_bin_scan):
 * each bin's rows; the sum of u of each bin group, as the sums of its
 * figures' high and of their low 32 bits; the sample's two sums. */
static hsp_status totals(hsp_job *job, const int64_t *sums)
{
    int nb = job->ctx->engine->bins.nbins;
    int64_t pos = 0, slots = 0, flops = 0, u[NGROUPS_U];
    for (int b = 0; b < nb; b++) job->bin_start[b] = pos, job->stats->rows_bin[b] = sums[b], pos += sums[b];
    job->bin_start[nb] = pos;
    for (int c = 0; c < NGROUPS_U; c++) {
        const int64_t *half = sums + nb + 2 * c;
        if (hsp_mul_overflows(half[0], (int64_t)1 << 32, &u[c]) || hsp_add_overflows(u[c], half[1], &u[c]) ||
            hsp_add_overflows(flops, u[c], &flops) ||
            (c <= HSP_GROUP_MEDIUM && hsp_add_overflows(slots, u[c], &slots)))
            return hsp_fail(HSP_ERR_OVERFLOW, "the number of products overflows 64 bits");
    }
    if (hsp_mul_overflows(flops, 2, &job->stats->flops))
        return hsp_fail(HSP_ERR_OVERFLOW, "the flop count overflows 64 bits");
    for (int c = 0; c < NGROUPS_U; c++) job->stats->flops_group[c] += 2 * u[c];
    job->sample_u += sums[nb + 2 * NGROUPS_U], job->sample_shared += sums[nb + 2 * NGROUPS_U + 1];
    job->nslots = slots;
    job->nlong = job->bin_start[nb] - job->bin_start[nb - 1];
    return HSP_OK;
}

/* Count the rows of each bin and the u of each bin group, and sample rows
 * of up to most products (none if 0), per work-group. */
static hsp_status count_bins(gpu *g, hsp_job *job, int64_t m, int64_t most, int64_t ngroups, size_t size)
{
    const hsp_bins *bins = &job->ctx->engine->bins;
    int32_t nb = bins->nbins, group[HSP_MAX_BINS];
    for (int b = 0; b < nb; b++) group[b] = bins->group[b];
    hsp_status s = gpu_upload(g, GA_BIN_HI, bins->hi, (size_t)nb * sizeof(int64_t));
    if (s == HSP_OK) s = gpu_upload(g, GA_BIN_GROUP, group, (size_t)nb * sizeof(int32_t));
    if (s == HSP_OK)
        s = gpu_reserve(g, GA_PART_FIGURES, (size_t)(ngroups * (nb + NGROUPS_U + NSAMPLE)) * sizeof(int64_t));
    gpu_arg a[] = {gpu_val(&m, sizeof m), gpu_arr(g, GA_UB), gpu_val(&nb, sizeof nb), gpu_arr(g, GA_BIN_HI),
                   gpu_arr(g, GA_BIN_GROUP), gpu_arr(g, GA_PART_FIGURES), gpu_local(HSP_MAX_BINS * sizeof(int32_t)),
                   gpu_local(size * sizeof(int64_t)), gpu_val(&most, sizeof most), gpu_arr(g, GA_ARP),
                   gpu_arr(g, GA_ACOL), gpu_arr(g, GA_BRP), gpu_arr(g, GA_BCOL)};
    return s == HSP_OK ? g->ops->launch(g, job->vsize == 8, GK_BIN_COUNT, a, 13, (size_t)ngroups, size) : s;
}

/* Stage 2's offsets and totals on the device (hsp_bin_scan), the totals
 * read into sums (nbins + NSUMS). */
static hsp_status scan_bins(gpu *g, hsp_job *job, int64_t ngroups, int64_t *sums)
{
    int32_t nb = job->ctx->engine->bins.nbins, medium = HSP_GROUP_MEDIUM;
    size_t size = gpu_group_size(g, job->vsize == 8, GK_BIN_SCAN, GROUP_SIZE);
    hsp_status s = gpu_reserve(g, GA_PART_BASE, (size_t)(ngroups * nb) * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_PART_SUM, (size_t)ngroups * sizeof(int64_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_BIN_SUMS, (size_t)(nb + NSUMS) * sizeof(int64_t));
    gpu_arg a[] = {gpu_val(&ngroups, sizeof ngroups), gpu_val(&nb, sizeof nb), gpu_val(&medium, sizeof medium),
                   gpu_arr(g, GA_PART_FIGURES), gpu_arr(g, GA_PART_BASE), gpu_arr(g, GA_PART_SUM),
                   gpu_arr(g, GA_BIN_SUMS), gpu_local(size * sizeof(int64_t))};
    if (s == HSP_OK) s = g->ops->launch(g, job->vsize == 8, GK_BIN_SCAN, a, 8, (size_t)nb + 1, size);
    return s == HSP_OK ? gpu_download(g, GA_BIN_SUMS, sums, (size_t)(nb + NSUMS) * sizeof(int64_t)) : s;
}

/* Place the rows in their bins, from the offsets on the device. */
static hsp_status place_rows(gpu *g, hsp_job *job, int64_t m, int64_t ngroups, size_t size)
{
    int32_t nb = job->ctx->engine->bins.nbins;
    int64_t medium = job->medium_max, long_start = job->bin_start[nb - 1];
    hsp_status s = gpu_reserve(g, GA_ROWS, (size_t)m * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_SLOT, (size_t)m * sizeof(int64_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_CNT, (size_t)m * sizeof(int64_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_LONGROWS, (size_t)job->nlong * sizeof(int32_t));
    if (s == HSP_OK) s = gpu_reserve(g, GA_LONG_U, (size_t)job->nlong * sizeof(int64_t));
    gpu_arg a[] = {gpu_val(&m, sizeof m), gpu_arr(g, GA_UB), gpu_val(&nb, sizeof nb), gpu_arr(g, GA_BIN_HI),
                   gpu_val(&medium, sizeof medium), gpu_arr(g, GA_BIN_SUMS), gpu_arr(g, GA_PART_BASE),
                   gpu_arr(g, GA_PART_SUM), gpu_val(&long_start, sizeof long_start), gpu_arr(g, GA_ROWS),
                   gpu_arr(g, GA_SLOT), gpu_arr(g, GA_CNT), gpu_arr(g, GA_LONGROWS), gpu_arr(g, GA_LONG_U),
                   gpu_local(HSP_MAX_BINS * sizeof(int32_t)), gpu_local(size * sizeof(int64_t))};
    return s == HSP_OK ? g->ops->launch(g, job->vsize == 8, GK_BIN_PLACE, a, 16, (size_t)ngroups, size) : s;
}

/* The long rows and their u on the host (job->bin_rows, job->ub), for the
 * long-row pool; the long-row buffers the CPU would use stay empty. */
static hsp_status fetch_long_rows(gpu *g, hsp_job *job)
{
    int64_t first = job->bin_start[job->ctx->engine->bins.nbins - 1], n = job->nlong;
    int64_t *u = host_array(n, sizeof *u);
    if (!u) return HSP_ERR_NOMEM;
    hsp_status s = gpu_download(g, GA_LONG_U, u, (size_t)n * sizeof *u);
    if (s == HSP_OK) s = gpu_download(g, GA_LONGROWS, job->bin_rows + first, (size_t)n * sizeof(int32_t));
    for (int64_t k = 0; s == HSP_OK && k < n; k++) job->ub[job->bin_rows[first + k]] = u[k];
    free(u);
    return s;
}

hsp_status gpu_bin_rows(gpu *g, hsp_job *job, int64_t most)
{
    int64_t m = job->A->nrows, sums[HSP_MAX_BINS + NSUMS] = {0};
    size_t size;
    int64_t ngroups = gpu_span_groups(g, job->vsize == 8, GK_BIN_PLACE, m, &size);
    hsp_status s = m ? count_bins(g, job, m, most, ngroups, size) : HSP_OK;
    if (s == HSP_OK && m) s = scan_bins(g, job, ngroups, sums);
    if (s == HSP_OK) s = totals(job, sums);
    if (s == HSP_OK && m) s = place_rows(g, job, m, ngroups, size);
    return s == HSP_OK ? fetch_long_rows(g, job) : s;
}

hsp_status gpu_row_pointers(gpu *g, hsp_job *job)
{
    int64_t m = job->A->nrows;
    int later = gpu_nnz_later(job);
    hsp_status s = gpu_reserve(g, GA_CRP, ((size_t)m + 1) * sizeof(int64_t));
    if (s == HSP_OK)
        s = gpu_scan(g, job->vsize == 8, gpu_array_of(g, GA_CNT), &g->a[GA_CRP], m, later ? NULL : &job->C->nnz);
    if (later) job->C->nnz = job->stats->flops / 2; /* the products: a bound on nnz(C) */
    return s;
}

int gpu_nnz_later(const hsp_job *job)
{
    int64_t entry = (int64_t)(sizeof(int32_t) + job->vsize);
    return job->resident.hold_c && job->stats->flops / 2 <= GPU_NNZ_LATER_BYTES / entry;
}

hsp_status gpu_nnz_read(gpu *g, hsp_job *job)
{
    gpu_array *crp = job->resident.held_c ? &((gpu_held *)job->resident.held_c)->a[0] : &g->a[GA_CRP];
    hsp_status s = gpu_array_read_at(g, crp, (size_t)job->A->nrows * sizeof(int64_t), &job->C->nnz, sizeof(int64_t));
    job->stats->nnz_c = job->C->nnz;
    return s;
}
