/* gpu_dense.c: long rows by the dense method on a GPU device
 * (kernels/dense.cl).  Stage 3 counts each row's entries per window of
 * columns, a work-group a row; stage 4, once C's row pointers and arrays
 * exist, sums each (row, span) in local memory straight into C, up to 16
 * work-groups a row taking its spans in turn (a span: one window, or a run of
 * windows whose entries fit one window's values).  The rows take no pool and
 * never grow: their counts are exact. */
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/job.h"
#include "spgemm/gpu_stages.h"

/* The most (row, window) pairs a job takes dense (their counts, 4 bytes
 * each, live on the device); a job with more merges its long rows.  The
 * work-groups a row gets for its sums, which take its windows in turn. */
enum { DENSE_MAX_PAIRS = 1 << 24, DENSE_GROUPS_A_ROW = 16 };

/* The fewest windows a row of C spans for the sums to take runs of windows
 * (hsp_dense_runs): on the H200 runs made the sums of rmat:17,4 (32 windows
 * a row) 4.49 -> 3.05 ms and of rmat:16,8 (16) 3.36 -> 2.88, but those of
 * rmat:15,4 (8), rmat:14,8 (4) and rmat:15,16 (8) 7-10% slower: with few
 * windows a row, its windows' work-groups fill the GPU (doc/devices.md).
 * Nor past DENSE_RUNS_TO windows: each of a row's work-groups walks all its
 * windows to find its spans, so that poisson3d27:101's R*A (B of 1030301
 * columns: 252 windows) took 32 ms in hsp_dense_runs, its Galerkin product
 * by (R*A)*P 11.7 -> 37 ms (doc/performance.md). */
enum { DENSE_RUNS_FROM = 16, DENSE_RUNS_TO = 64 };

/* The work-group size of the dense kernels: a power of two. */
static size_t dense_group(gpu *g, int dbl)
{
    size_t most = gpu_group_size(g, dbl, GK_DENSE_COUNT, 256), p = 1;
    int sums[] = {GK_DENSE, GK_DENSE_RUNS};
    for (int k = 0; k < 2; k++) {
        size_t other = gpu_group_size(g, dbl, sums[k], 256);
        if (other < most) most = other;
    }
    while (2 * p <= most) p *= 2;
    return p;
}

/* The window w (columns whose values and bitmap fit in local memory, at
 * least one a work-item), the count's bitmap of bw columns, and the span of
 * the sums' runs of windows (their bitmap and the marks before each word, up
 * to 16 windows), for work-groups of size items; 0 when not even the smallest
 * window fits. */
static void dense_windows(gpu *g, int64_t vsize, size_t size, int32_t *w, int32_t *bw, int32_t *span)
{
    int64_t budget = g->local_mem < (64 << 10) ? g->local_mem : 64 << 10, scan = (int64_t)size * (4 + 8);
    int64_t cols = size < 32 ? 32 : (int64_t)size;
    if (cols * vsize + cols / 4 + scan > budget) {
        *w = *bw = *span = 0;
        return;
    }
    while (2 * cols <= 16384 && 2 * cols * vsize + 2 * cols / 4 + scan <= budget) cols *= 2;
    *w = (int32_t)cols;
    while (2 * cols <= 16 * *w && *w * vsize + 2 * cols / 4 + scan <= budget) cols *= 2;
    *span = (int32_t)cols;
    cols = *w;
    while (2 * cols <= (1 << 22) && 2 * cols / 8 + 2 * cols / *w * 4 + scan <= budget) cols *= 2;
    *bw = (int32_t)cols;
}

/* Windows of a row of C. */
static int64_t window_count(const hsp_job *job, int32_t w)
{
    return ((int64_t)job->B->ncols + w - 1) / w;
}

int gpu_dense_fits(gpu *g, hsp_job *job, int64_t n)
{
    int dbl = job->vsize == 8;
    if (!g->local_add[dbl]) return 0;
    dense_windows(g, job->vsize, dense_group(g, dbl), &g->job->dense_w, &g->job->dense_bw, &g->job->dense_span);
    return g->job->dense_w > 0 && n * window_count(job, g->job->dense_w) <= DENSE_MAX_PAIRS;
}

hsp_status gpu_dense_count(gpu *g, hsp_job *job, int64_t first, int64_t n)
{
    int dbl = job->vsize == 8;
    int32_t ncols = job->B->ncols, words = g->job->dense_bw / 32, wins = g->job->dense_bw / g->job->dense_w;
    size_t size = dense_group(g, dbl);
    g->job->dense_first = first, g->job->dense_rows = n;
    if (!n) return HSP_OK;
    hsp_status s = gpu_reserve(g, GA_WEND, (size_t)(n * window_count(job, g->job->dense_w)) * sizeof(int32_t));
    gpu_arg a[GPU_ARGS_MAX];
    gpu_row_args(g, a, GA_LONGROWS, &first, &n, 0);
    a[ROW_ARGS] = gpu_arr(g, GA_LROWS), a[ROW_ARGS + 1] = gpu_val(&ncols, sizeof ncols);
    a[ROW_ARGS + 2] = gpu_val(&g->job->dense_w, sizeof g->job->dense_w);
    a[ROW_ARGS + 3] = gpu_val(&g->job->dense_bw, sizeof g->job->dense_bw);
    a[ROW_ARGS + 4] = gpu_arr(g, GA_WEND), a[ROW_ARGS + 5] = gpu_local((size_t)words * sizeof(uint32_t));
    a[ROW_ARGS + 6] = gpu_local((size_t)wins * sizeof(int32_t)), a[ROW_ARGS + 7] = gpu_local(size * sizeof(int32_t));
    a[ROW_ARGS + 8] = gpu_local(size * sizeof(int64_t));
    return s == HSP_OK ? g->ops->launch(g, dbl, GK_DENSE_COUNT, a, ROW_ARGS + 9, (size_t)n, size) : s;
}

/* The arguments both sums kernels take after the rows' (with runs,
 * hsp_dense_runs': also span, after w), from a[ROW_ARGS]; returns their count. */
static int dense_sum_args(gpu *g, hsp_job *job, gpu_arg *a, int32_t *ncols, int runs, int32_t *span, size_t size)
{
    int k = ROW_ARGS;
    a[k++] = gpu_val(ncols, sizeof *ncols), a[k++] = gpu_val(&g->job->dense_w, sizeof g->job->dense_w);
    if (runs) a[k++] = gpu_val(span, sizeof *span);
    a[k++] = gpu_arr(g, GA_WEND), a[k++] = gpu_arr(g, GA_CRP), a[k++] = gpu_arr(g, GA_CCOL);
    a[k++] = gpu_arr(g, GA_CVAL), a[k++] = gpu_local((size_t)g->job->dense_w * job->vsize);
    a[k++] = gpu_local((size_t)*span / 32 * sizeof(uint32_t));
    if (runs) a[k++] = gpu_local((size_t)*span / 32 * sizeof(int32_t));
    a[k++] = gpu_local(size * sizeof(int32_t)), a[k++] = gpu_local(size * sizeof(int64_t));
    return k;
}

hsp_status gpu_dense_sums(gpu *g, hsp_job *job)
{
    int dbl = job->vsize == 8;
    int32_t ncols = job->B->ncols;
    int64_t first = g->job->dense_first, n = g->job->dense_rows;
    if (!n) return HSP_OK;
    int64_t nwin = window_count(job, g->job->dense_w);
    int32_t span = nwin < DENSE_RUNS_FROM || nwin > DENSE_RUNS_TO ? g->job->dense_w : g->job->dense_span;
    int runs = span > g->job->dense_w; /* a span that can hold two windows */
    size_t size = dense_group(g, dbl);
    gpu_arg a[GPU_ARGS_MAX];
    gpu_row_args(g, a, GA_LONGROWS, &first, &n, 0);
    int na = dense_sum_args(g, job, a, &ncols, runs, &span, size);
    size_t groups = (size_t)(n * (nwin < DENSE_GROUPS_A_ROW ? nwin : DENSE_GROUPS_A_ROW));
    return g->ops->launch(g, dbl, runs ? GK_DENSE_RUNS : GK_DENSE, a, na, groups, size);
}
