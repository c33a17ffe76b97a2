/* device_cpu.c: the cpu device.  It runs the device's bins on the context's
 * thread pool: launched bins are queued, and wait() cuts them into chunks of
 * about equal flops (so one heavy row does not stall a thread) that the
 * threads take dynamically. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "rows.h"
#include "stages.h"

typedef struct {
    hsp_pool *pool;
    int bins[HSP_MAX_BINS];
    int nqueued;
    int64_t (*chunk)[2]; /* [first, last) positions in bin_rows */
    int64_t nchunks, chunk_cap;
    hsp_job *job;
} cpu_state;

static hsp_status cpu_launch_bin(hsp_device *dev, hsp_job *job, int bin)
{
    cpu_state *st = dev->state;
    (void)job;
    st->bins[st->nqueued++] = bin;
    return HSP_OK;
}

/* Append chunk [first, last). */
static hsp_status add_chunk(cpu_state *st, int64_t first, int64_t last)
{
    if (st->nchunks == st->chunk_cap) {
        int64_t cap = st->chunk_cap ? 2 * st->chunk_cap : 256;
        void *p = realloc(st->chunk, (size_t)cap * sizeof *st->chunk);
        if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device's chunks");
        st->chunk = p, st->chunk_cap = cap;
    }
    st->chunk[st->nchunks][0] = first;
    st->chunk[st->nchunks++][1] = last;
    return HSP_OK;
}

/* Cut bin b into chunks of about target flops: fixed row counts where the
 * bin bounds u, a running sum of u in the open-ended last bin. */
static hsp_status cut_bin(cpu_state *st, hsp_job *job, int b, int64_t target)
{
    int64_t first = job->bin_start[b], end = job->bin_start[b + 1], hi = job->ctx->bins.hi[b];
    hsp_status s = HSP_OK;
    if (b < job->ctx->bins.nbins - 1) {
        int64_t rows = target / hi > 0 ? target / hi : 1;
        for (int64_t k = first; k < end && s == HSP_OK; k += rows)
            s = add_chunk(st, k, k + rows < end ? k + rows : end);
        return s;
    }
    int64_t sum = 0;
    for (int64_t k = first; k < end && s == HSP_OK; k++) {
        sum += job->ub[job->bin_rows[k]];
        if (sum >= target || k + 1 == end) {
            s = add_chunk(st, first, k + 1);
            first = k + 1, sum = 0;
        }
    }
    return s;
}

/* Compute the rows of one chunk on thread tid. */
static void run_chunk(void *arg, int tid, int64_t c)
{
    cpu_state *st = arg;
    hsp_job *job = st->job;
    if (atomic_load(&job->status) != HSP_OK) return;
    hsp_status s = hsp_rows_compute(job, &job->ctx->scratch[tid], st->chunk[c][0], st->chunk[c][1]);
    if (s != HSP_OK) hsp_job_error(job, s);
}

static hsp_status cpu_wait(hsp_device *dev, hsp_job *job)
{
    cpu_state *st = dev->state;
    int64_t work = 0;
    hsp_status s = HSP_OK;
    for (int q = 0; q < st->nqueued; q++) {
        int b = st->bins[q];
        work += job->stats->rows_bin[b] * (b < job->ctx->bins.nbins - 1 ? job->ctx->bins.hi[b] : 4096);
    }
    int64_t target = work / (16 * (int64_t)hsp_pool_size(st->pool));
    if (target < 2048) target = 2048;
    st->nchunks = 0;
    for (int q = 0; q < st->nqueued && s == HSP_OK; q++) s = cut_bin(st, job, st->bins[q], target);
    st->nqueued = 0;
    if (s != HSP_OK) return s;
    st->job = job;
    hsp_pool_chunks(st->pool, st->nchunks, run_chunk, st);
    return (hsp_status)atomic_load(&job->status);
}

static void cpu_destroy(hsp_device *dev)
{
    cpu_state *st = dev->state;
    free(st->chunk);
    free(st);
    free(dev);
}

hsp_status hsp_device_cpu_open(hsp_pool *pool, hsp_device **out)
{
    hsp_device *dev = calloc(1, sizeof *dev);
    cpu_state *st = calloc(1, sizeof *st);
    if (!dev || !st) {
        free(dev), free(st);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the cpu device");
    }
    st->pool = pool;
    dev->name = "cpu";
    snprintf(dev->description, sizeof dev->description, "cpu");
    dev->wavefront = 32;       /* the paper's layout: 38 bins */
    dev->local_mem = 48 << 10; /* a core's L1 data cache is of this order */
    dev->host_realloc = 1;
    dev->default_method[0] = HSP_METHOD_AUTO; /* the note on issue 2 gives the figures */
    dev->default_method[1] = HSP_METHOD_AUTO;
    dev->default_method[2] = HSP_METHOD_DENSE;
    for (int g = 0; g < HSP_NMETHODGROUPS; g++)
        dev->methods[g] = ((1u << (HSP_METHOD_AUTO + 1)) - 1) & ~1u; /* all */
    dev->launch_bin = cpu_launch_bin;
    dev->wait = cpu_wait;
    dev->destroy = cpu_destroy;
    dev->state = st;
    *out = dev;
    return HSP_OK;
}
