/* multiply.c: hsp_multiply, checking its inputs and timing the four stages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "scratch.h"
#include "stages.h"

/* Check one operand, naming it in the message. */
static hsp_status check_operand(const hsp_csr *M, const char *name)
{
    char why[512];
    hsp_status s = hsp_csr_check(M);
    if (s == HSP_OK) return s;
    snprintf(why, sizeof why, "%s", hsp_errmsg());
    return hsp_fail(s, "%s: %s", name, why);
}

/* Check the operands: valid CSR, one precision, matching shapes. */
static hsp_status check_operands(const hsp_csr *A, const hsp_csr *B)
{
    hsp_status s = check_operand(A, "A");
    if (s != HSP_OK || (B != A && (s = check_operand(B, "B")) != HSP_OK)) return s;
    if (A->ncols != B->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "A is %d x %d but B is %d x %d: ncols(A) != nrows(B)",
                        A->nrows, A->ncols, B->nrows, B->ncols);
    if (A->precision != B->precision)
        return hsp_fail(HSP_ERR_ARG, "A is %s but B is %s: convert one with hsp_csr_convert",
                        A->precision == HSP_DOUBLE ? "double" : "float",
                        B->precision == HSP_DOUBLE ? "double" : "float");
    return HSP_OK;
}

/* The header and row pointers of C; the entries come in stage 4. */
static hsp_status start_result(hsp_job *job)
{
    hsp_csr *C = calloc(1, sizeof *C);
    if (C) C->rowptr = calloc((size_t)job->A->nrows + 1, sizeof *C->rowptr);
    if (!C || !C->rowptr) {
        free(C);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the row pointers of C");
    }
    C->nrows = job->A->nrows, C->ncols = job->B->ncols, C->precision = job->A->precision;
    job->C = C;
    return hsp_job_reserve(job, ((int64_t)C->nrows + 1) * (int64_t)sizeof *C->rowptr);
}

/* Group totals and the figures the job gathered. */
static void finish_stats(hsp_job *job, hsp_stats *st)
{
    const hsp_bins *bins = &job->ctx->bins;
    for (int b = 0; b < bins->nbins; b++) st->rows_group[bins->group[b]] += st->rows_bin[b];
    int64_t scratch = 0;
    for (int t = 0; t < hsp_pool_size(job->ctx->pool); t++)
        scratch += hsp_scratch_bytes(&job->ctx->scratch[t]);
    st->grow_events = atomic_load(&job->grow_events);
    st->grow_bytes_copied = atomic_load(&job->grow_bytes_copied);
    st->grow_moves = atomic_load(&job->grow_moves);
    st->peak_temp_bytes = atomic_load(&job->peak_temp_bytes) + scratch;
}

/* Run the four stages, timing each. */
static hsp_status run_stages(hsp_job *job, hsp_stats *st)
{
    hsp_status (*const stage[4])(hsp_job *) = {hsp_stage_bound, hsp_stage_bin,
                                               hsp_stage_compute, hsp_stage_arrange};
    hsp_status s = start_result(job);
    for (int k = 0; k < 4 && s == HSP_OK; k++) {
        double t0 = hsp_now_ms();
        s = stage[k](job);
        st->ms_stage[k] = hsp_now_ms() - t0;
    }
    return s;
}

hsp_status hsp_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                        hsp_stats *stats)
{
    hsp_stats local;
    if (!ctx || !C) return hsp_fail(HSP_ERR_ARG, "hsp_multiply: ctx or C is NULL");
    *C = NULL;
    hsp_status s = check_operands(A, B);
    if (s != HSP_OK) return s;
    hsp_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    hsp_job job = {.ctx = ctx, .A = A, .B = B, .vsize = hsp_value_size(A->precision),
                   .short_max = hsp_bins_group_max(&ctx->bins, HSP_GROUP_SHORT),
                   .medium_max = hsp_bins_group_max(&ctx->bins, HSP_GROUP_MEDIUM), .stats = st};
    double t0 = hsp_now_ms();
    s = run_stages(&job, st);
    st->ms_total = hsp_now_ms() - t0;
    if (s == HSP_OK) finish_stats(&job, st);
    hsp_job_cleanup(&job);
    st->threads = hsp_pool_size(ctx->pool);
    st->grow = ctx->options.grow;
    memcpy(st->method, ctx->method, sizeof st->method);
    memcpy(st->device, ctx->device->description, sizeof st->device);
    if (s != HSP_OK) {
        hsp_csr_free(job.C);
        return s;
    }
    *C = job.C;
    return HSP_OK;
}
