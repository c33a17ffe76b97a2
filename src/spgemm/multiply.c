/* multiply.c: hsp_multiply, checking its inputs and timing the four stages;
 * a device "auto" chose that fails its first product hands it over. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"
#include "core/scratch.h"
#include "spgemm/stages.h"

/* Refuse a product whose arrays of a number per row of A alone (C's row
 * pointers, the bounds, the offsets, the bins: 28 bytes a row) would pass
 * the memory limit.  A's header says so: no need to read its rows first. */
static hsp_status check_row_arrays(const hsp_context *ctx, const hsp_csr *A)
{
    int64_t limit = hsp_memory_limit(&ctx->options);
    double need = ((double)A->nrows + 1) * (3 * sizeof(int64_t) + sizeof(int32_t));
    if (need > (double)limit)
        return hsp_fail(HSP_ERR_NOMEM, "%d rows need %.0f bytes (%.1f GiB) for their row arrays alone, more than "
                        "the memory limit of %lld bytes%s", A->nrows, need, need / (1 << 30), (long long)limit,
                        ctx->options.mem_limit > 0 ? "" : " (this machine's memory)");
    return HSP_OK;
}

hsp_status hsp_csr_check_named(hsp_context *ctx, const hsp_csr *M, const char *name)
{
    hsp_status s = hsp_csr_check_header(M);
    if (s == HSP_OK) s = hsp_csr_check_rows_pooled(ctx->pool, M);
    return s == HSP_OK ? s : hsp_fail(s, "%s: %s", name, hsp_errmsg());
}

/* Check the operands: headers (none when placed: resident matrices were
 * checked then), one precision, matching shapes, row arrays within the
 * memory limit (before the rows are read); their rows are checked by
 * hsp_csr_check_named where they come from the caller.  The message names
 * the operand. */
static hsp_status check_operands(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int placed)
{
    const char *name[2] = {"A", "B"};
    const hsp_csr *M[2] = {A, B};
    for (int k = 0; k < 2 && !placed; k++) {
        hsp_status s = hsp_csr_check_header(M[k]);
        if (s != HSP_OK) return hsp_fail(s, "%s: %s", name[k], hsp_errmsg());
    }
    if (A->ncols != B->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "A is %d x %d but B is %d x %d: ncols(A) != nrows(B)",
                        A->nrows, A->ncols, B->nrows, B->ncols);
    if (A->precision != B->precision)
        return hsp_fail(HSP_ERR_ARG, "A is %s but B is %s: convert one with hsp_csr_convert",
                        A->precision == HSP_DOUBLE ? "double" : "float",
                        B->precision == HSP_DOUBLE ? "double" : "float");
    return check_row_arrays(ctx, A);
}

hsp_status hsp_check_caller(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B)
{
    hsp_status s = check_operands(ctx, A, B, 0);
    if (s == HSP_OK) s = hsp_csr_check_named(ctx, A, "A");
    if (s == HSP_OK && B != A) s = hsp_csr_check_named(ctx, B, "B");
    return s;
}

/* The header and row pointers of C; the entries come in stage 4 (row
 * arrays over the limit were refused with the operands). */
static hsp_status start_result(hsp_job *job)
{
    hsp_csr *C = calloc(1, sizeof *C);
    if (C && !job->resident.all_device) C->rowptr = calloc((size_t)job->A->nrows + 1, sizeof *C->rowptr);
    if (!C || (!C->rowptr && !job->resident.all_device)) {
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
    const hsp_bins *bins = &job->ctx->engine->bins;
    for (int b = 0; b < bins->nbins; b++) st->rows_group[bins->group[b]] += st->rows_bin[b];
    int64_t scratch = 0;
    for (int t = 0; t < hsp_pool_size(job->ctx->pool); t++)
        scratch += hsp_scratch_bytes(&job->ctx->scratch[t]);
    st->grow_events = atomic_load(&job->grow_events);
    st->grow_bytes_copied = atomic_load(&job->grow_bytes_copied);
    st->grow_moves = atomic_load(&job->grow_moves);
    st->peak_temp_bytes = atomic_load(&job->peak_temp_bytes) + scratch;
    const hsp_profile *profile = &job->ctx->engine->profile;
    int took = !job->dev->spgemm->direct && st->rows_group[HSP_GROUP_LONG] && profile->long_rows[job->vsize == 8];
    for (int b = 0; b < bins->nbins; b++) {
        int group = bins->group[b];
        if (!st->rows_bin[b] || group < HSP_GROUP_SHORT) continue;
        st->bin_method[b] = hsp_job_bin_method(job, b);
        took |= profile->bin[job->vsize == 8][b] != HSP_METHOD_DEFAULT;
    }
    if (took) snprintf(st->profile, sizeof st->profile, "%s", profile->path);
}

/* The methods of a product on the device (not small): the context's, and
 * where its profile names them, each bin's and the long rows' for A's
 * precision. */
static void device_methods(hsp_job *job)
{
    const hsp_context *ctx = job->ctx;
    int dbl = job->vsize == 8;
    memcpy(job->method, ctx->engine->method, sizeof job->method);
    memcpy(job->bin_method, ctx->engine->profile.bin[dbl], sizeof job->bin_method);
    if (ctx->engine->profile.long_rows[dbl]) job->method[HSP_NMETHODGROUPS - 1] = ctx->engine->profile.long_rows[dbl];
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

/* The call's time since t_call, and the part of it outside the stages. */
static void call_times(hsp_stats *st, double t_call)
{
    st->ms_total = hsp_now_ms() - t_call;
    st->ms_other = st->ms_total;
    for (int k = 0; k < 4; k++) st->ms_other -= st->ms_stage[k];
}

hsp_status hsp_product(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int placed, void *const held[2],
                       int hold_c, int unsorted, hsp_csr **C, void **held_c, hsp_stats *stats)
{
    hsp_stats local;
    double t_call = hsp_now_ms();
    if (!ctx || !C) return hsp_fail(HSP_ERR_ARG, "hsp_multiply: ctx or C is NULL");
    *C = NULL;
    int on_device = held[0] || held[1] || hold_c; /* entries only the device has */
    int small = !placed && !on_device && ctx->engine->cpu && A && B && A->nnz + (B == A ? 0 : B->nnz) <= ctx->options.small_nnz;
    hsp_device *dev = ctx->device;
    hsp_status s = check_operands(ctx, A, B, placed);
    if (s != HSP_OK) return s;
    hsp_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    st->size = sizeof *st;
    hsp_job job = {.ctx = ctx, .dev = small ? ctx->engine->cpu : dev,
                   .A = A, .B = B,
                   .resident = {.held = {held[0], held[1]}, .hold_c = hold_c, .all_device = on_device},
                   .unsorted = unsorted,
                   .vsize = hsp_value_size(A->precision),
                   .short_max = hsp_bins_group_max(&ctx->engine->bins, HSP_GROUP_SHORT),
                   .medium_max = hsp_bins_group_max(&ctx->engine->bins, HSP_GROUP_MEDIUM), .stats = st};
    if (small) memcpy(job.method, ctx->engine->cpu_method, sizeof job.method);
    else device_methods(&job);
    s = run_stages(&job, st);
    if (s == HSP_OK) finish_stats(&job, st);
    else if (!job.dev->lost && job.dev->finish) /* work launched before the failure may still use the job's arrays */
        job.dev->finish(job.dev);
    hsp_job_cleanup(&job);
    st->threads = hsp_pool_size(ctx->pool);
    st->grow = job.dev->host_realloc ? ctx->options.grow : HSP_GROW_COPY;
    st->resident = placed;
    memcpy(st->method, job.method, sizeof st->method);
    snprintf(st->device, sizeof st->device, "%s", job.dev->description);
    memcpy(st->device_note, dev->note, sizeof st->device_note);
    if (s == HSP_OK && !small) ctx->auto_next = HSP_AUTO_NONE; /* the device works: no hand-over */
    call_times(st, t_call);
    if (s != HSP_OK) {
        if (!job.dev->lost) hsp_csr_free(job.C); /* else the GPU may still write it */
        if (job.resident.held_c && !job.dev->lost) dev->drop(dev, job.resident.held_c);
        return s;
    }
    *C = job.C;
    if (held_c) *held_c = job.resident.held_c;
    return HSP_OK;
}

/* C = A*B of host operands, its rows sorted unless unsorted; a device
 * "auto" chose that fails the first product hands it to the next. */
static hsp_status multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int unsorted, hsp_csr **C,
                           hsp_stats *stats)
{
    void *const on_host[2] = {NULL, NULL};
    hsp_status s = hsp_product(ctx, A, B, 0, on_host, 0, unsorted, C, NULL, stats);
    if (s == HSP_ERR_DEVICE && ctx->auto_next && (s = ctx->hand_over(ctx)) == HSP_OK)
        return multiply(ctx, A, B, unsorted, C, stats); /* on the next device "auto" opens */
    return s;
}

/* hsp_multiply by blocks (options.bitmap): A and B blocked, multiplied on
 * the CPU threads, C back in CSR. */
static hsp_status multiply_blocked(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                                   hsp_stats *stats)
{
    double start = hsp_now_ms();
    hsp_bitmap *a = NULL, *b = NULL, *c = NULL;
    hsp_status s = C ? hsp_check_caller(ctx, A, B) : hsp_fail(HSP_ERR_ARG, "hsp_multiply: C is NULL");
    if (C) *C = NULL;
    if (s == HSP_OK) s = hsp_bitmap_from_csr(A, &a);
    if (s == HSP_OK && B != A) s = hsp_bitmap_from_csr(B, &b);
    if (s == HSP_OK) s = hsp_bitmap_multiply(ctx, a, b ? b : a, &c, stats);
    if (s == HSP_OK) s = hsp_bitmap_to_csr(c, C);
    if (s == HSP_OK && stats) stats->ms_total = hsp_now_ms() - start;
    hsp_bitmap_free(a), hsp_bitmap_free(b), hsp_bitmap_free(c);
    return s;
}

hsp_status hsp_multiply(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                        hsp_stats *stats)
{
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_multiply: ctx is NULL");
    hsp_context_lock(ctx);
    hsp_status s = ctx->options.bitmap ? multiply_blocked(ctx, A, B, C, stats) : hsp_check_caller(ctx, A, B);
    if (s == HSP_OK && !ctx->options.bitmap) s = multiply(ctx, A, B, ctx->options.unsorted, C, stats);
    else if (C && !ctx->options.bitmap) *C = NULL;
    if (s == HSP_OK && ctx->options.pattern && !ctx->options.bitmap) hsp_csr_set_ones(*C); /* blocks give ones */
    else if (s == HSP_OK && !ctx->options.pattern && ctx->options.drop_zeros) hsp_csr_drop_zeros(*C, stats);
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_multiply_sorted(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                               hsp_stats *stats)
{
    return multiply(ctx, A, B, 0, C, stats);
}
