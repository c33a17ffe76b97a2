/* gpu_rows.c: launching a per-row kernel (heap, ESC, merge, hash, RMerge)
 * over rows of a bin: its work-group size, its arguments, its grid. */
#include "device/gpu.h"
#include "core/internal.h"
#include "spgemm/job.h"
#include "spgemm/gpu_stages.h"

/* The smallest power of two >= n. */
static int64_t pow2_at_least(int64_t n)
{
    int64_t p = 1;
    while (p < n) p <<= 1;
    return p;
}

void gpu_row_args(gpu *g, gpu_arg *a, int rows, const int64_t *first, const int64_t *nrows, int fill)
{
    static const int operands[] = {GA_ARP, GA_ACOL, GA_AVAL, GA_BRP, GA_BCOL, GA_BVAL};
    static const int outputs[2][4] = {{GA_SLOT, GA_TCOL, GA_TVAL, GA_CNT}, {GA_CRP, GA_CCOL, GA_CVAL, GA_CNT}};
    for (int j = 0; j < 6; j++) a[j] = gpu_arr(g, operands[j]);
    a[6] = gpu_arr(g, rows), a[7] = gpu_val(first, sizeof *first), a[8] = gpu_val(nrows, sizeof *nrows);
    for (int j = 0; j < 4; j++) a[9 + j] = gpu_arr(g, outputs[fill][j]);
}

/* The phases of a hash launch: the whole row into C~ (method hash), or
 * method hash2's count, then its fill of C in place. */
enum { PHASE_ONE, PHASE_COUNT, PHASE_FILL };

/* Launch hash.cl's count kernel (HSP_COUNT_ARGS) over rows [first, first +
 * nrows) of array rows in groups of size: tables of n2 keys, table_keys of
 * them a work-group, and counters counts a work-group. */
static hsp_status launch_count(gpu *g, int dbl, int kernel, int rows, int64_t first, int64_t nrows, int32_t n2,
                               size_t table_keys, size_t counters, size_t groups, size_t size)
{
    static const int patterns[] = {GA_ARP, GA_ACOL, GA_BRP, GA_BCOL};
    gpu_arg a[14];
    for (int j = 0; j < 4; j++) a[j] = gpu_arr(g, patterns[j]);
    a[4] = gpu_arr(g, rows), a[5] = gpu_val(&first, sizeof first), a[6] = gpu_val(&nrows, sizeof nrows);
    a[7] = gpu_arr(g, GA_SLOT), a[8] = gpu_arr(g, GA_CNT), a[9] = gpu_val(&n2, sizeof n2);
    a[10] = gpu_local(table_keys * sizeof(int32_t)), a[11] = gpu_local(counters * sizeof(int32_t));
    a[12] = gpu_local(size * sizeof(int64_t)), a[13] = gpu_local(size * sizeof(int32_t));
    return g->ops->launch(g, dbl, kernel, a, 14, groups, size);
}

/* The work-group size of a hash kernel and its count kernel alike (want,
 * or less where either allows less), so that both phases of hash2 group
 * the rows alike. */
static size_t hash_group_size(gpu *g, int dbl, int kernel, int count_kernel, size_t want)
{
    size_t size = gpu_group_size(g, dbl, kernel, want), most = gpu_group_size(g, dbl, count_kernel, want);
    return size < most ? size : most;
}

/* Do ESC's rows of n2 products key each product by its column and its place
 * in the row (esc.cl: column n2 + place in 31 bits, below INT_MAX, which
 * marks padding)?  Rows of up to 64 products without keys do not sort
 * within a warp: they go as rows of 128, in local memory. */
static int32_t esc_keyed(const hsp_job *job, int32_t n2)
{
    return (int64_t)job->B->ncols * n2 <= INT32_MAX;
}

/* The ESC kernel's own arguments (after the row arguments) for rows of up
 * to hi products (long ones when islong); *size is its work-group size, *n2,
 * *islong and *keyed hold the values the arguments point to. */
static hsp_status esc_args(gpu *g, hsp_job *job, gpu_arg *a, int64_t hi, int32_t *n2, int32_t *islong,
                           int32_t *keyed, size_t *size)
{
    *n2 = (int32_t)pow2_at_least(hi);
    *keyed = esc_keyed(job, *n2);
    *size = gpu_group_size(g, job->vsize == 8, GK_ESC, (size_t)(*n2 / 2 < 256 ? *n2 / 2 : 256));
    size_t need = (size_t)*n2 * (sizeof(int32_t) + job->vsize) + *size * sizeof(int32_t);
    if ((int64_t)need > g->local_mem)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "ESC rows of %lld products need %zu bytes of local memory; "
                        "the device has %lld", (long long)hi, need, (long long)g->local_mem);
    a[0] = gpu_val(n2, sizeof *n2);
    a[1] = gpu_local((size_t)*n2 * sizeof(int32_t));
    a[2] = gpu_local((size_t)*n2 * job->vsize);
    a[3] = gpu_local(*size * sizeof(int32_t));
    a[4] = gpu_val(islong, sizeof *islong);
    a[5] = gpu_arr(g, GA_PCOL), a[6] = gpu_arr(g, GA_PVAL), a[7] = gpu_arr(g, GA_LROWS);
    a[8] = gpu_val(keyed, sizeof *keyed);
    return HSP_OK;
}

/* The merge kernel's own arguments (long rows); *size is its work-group
 * size.  Its batch of *n2 products, a power of two of at most 4096 and 16 a
 * work-item, fits in local memory. */
static void merge_args(gpu *g, hsp_job *job, gpu_arg *a, int32_t *n2, size_t *size)
{
    int64_t entry = (int64_t)(sizeof(int32_t) + job->vsize);
    *size = gpu_group_size(g, job->vsize == 8, GK_MERGE, 256);
    size_t scan = *size * sizeof(int32_t);
    *n2 = 2;
    while (2 * *n2 <= 4096 && 2 * *n2 <= 16 * (int32_t)*size && 2 * *n2 * entry + (int64_t)scan + 256 <= g->local_mem)
        *n2 *= 2;
    a[0] = gpu_arr(g, GA_PCOL), a[1] = gpu_arr(g, GA_PVAL), a[2] = gpu_arr(g, GA_LROWS);
    a[3] = gpu_val(n2, sizeof *n2);
    a[4] = gpu_local((size_t)*n2 * sizeof(int32_t));
    a[5] = gpu_local((size_t)*n2 * job->vsize);
    a[6] = gpu_local(scan);
}

/* Hash for medium rows of up to hi products, one a work-group (hash.cl's
 * hsp_hash, or in phase PHASE_COUNT hsp_hash_count), where a work-group of
 * 256 or fewer holds the table, eight slots a work-item, in local memory;
 * *done is 0 when it does not. */
static hsp_status hash_rows(gpu *g, hsp_job *job, int phase, int64_t hi, int rows, int64_t first, int64_t nrows,
                            int *done)
{
    int dbl = job->vsize == 8;
    int32_t n2 = (int32_t)pow2_at_least(hi);
    size_t size = hash_group_size(g, dbl, GK_HASH, GK_HASH_COUNT, 256);
    size_t need = (size_t)n2 * (sizeof(int32_t) + job->vsize) + size * (2 * sizeof(int64_t) + job->vsize);
    *done = (size_t)n2 <= 8 * size && (size_t)n2 >= size && !(size & (size - 1)) && (int64_t)need <= g->local_mem;
    if (!*done) return HSP_OK;
    if (phase == PHASE_COUNT)
        return launch_count(g, dbl, GK_HASH_COUNT, rows, first, nrows, n2, (size_t)n2, 1, (size_t)nrows, size);
    gpu_arg a[GPU_ARGS_MAX];
    gpu_row_args(g, a, rows, &first, &nrows, phase == PHASE_FILL);
    a[ROW_ARGS] = gpu_val(&n2, sizeof n2), a[ROW_ARGS + 1] = gpu_local((size_t)n2 * sizeof(int32_t));
    a[ROW_ARGS + 2] = gpu_local((size_t)n2 * job->vsize), a[ROW_ARGS + 3] = gpu_local(sizeof(int32_t));
    a[ROW_ARGS + 4] = gpu_local(size * sizeof(int64_t)), a[ROW_ARGS + 5] = gpu_local(size * sizeof(int32_t));
    a[ROW_ARGS + 6] = gpu_local(size * job->vsize);
    return g->ops->launch(g, dbl, GK_HASH, a, ROW_ARGS + 7, (size_t)nrows, size);
}

/* ESC (kernel GK_ESC_ROWS) or hash (GK_HASH_ROWS; in phase PHASE_COUNT
 * GK_HASH_ROWS_COUNT) for rows of up to hi products (not long), several a
 * work-group where twice the work-group holds a row's n2 entries (esc.cl's
 * hsp_esc_rows, hash.cl's hsp_hash_rows, which takes the same arguments and
 * three more); *done is 0 when it does not. */
static hsp_status rows_in_groups(gpu *g, hsp_job *job, int kernel, int phase, int64_t hi, int rows, int64_t first,
                                 int64_t nrows, int *done)
{
    int dbl = job->vsize == 8;
    int32_t n2 = (int32_t)pow2_at_least(hi < 2 ? 2 : hi);
    if (kernel == GK_ESC_ROWS && n2 < 128 && !esc_keyed(job, 64)) n2 = 128; /* not within a warp */
    size_t size = kernel == GK_HASH_ROWS ? hash_group_size(g, dbl, kernel, GK_HASH_ROWS_COUNT, 128)
                                         : gpu_group_size(g, dbl, kernel, 128);
    *done = (size_t)n2 <= 2 * size && !(size & (size - 1));
    if (!*done) return HSP_OK;
    size_t per_group = 2 * size / (size_t)n2, groups = ((size_t)nrows + per_group - 1) / per_group;
    if (phase == PHASE_COUNT)
        return launch_count(g, dbl, GK_HASH_ROWS_COUNT, rows, first, nrows, n2, 2 * size, size, groups, size);
    gpu_arg a[GPU_ARGS_MAX];
    gpu_row_args(g, a, rows, &first, &nrows, phase == PHASE_FILL);
    a[ROW_ARGS] = gpu_val(&n2, sizeof n2), a[ROW_ARGS + 1] = gpu_local(2 * size * sizeof(int32_t));
    a[ROW_ARGS + 2] = gpu_local(2 * size * job->vsize), a[ROW_ARGS + 3] = gpu_local(size * sizeof(int32_t));
    a[ROW_ARGS + 4] = gpu_local(size * sizeof(int64_t)), a[ROW_ARGS + 5] = gpu_local(size * sizeof(int32_t));
    a[ROW_ARGS + 6] = gpu_local(size * job->vsize); /* hash: each row's A entries */
    int32_t keyed = esc_keyed(job, n2);
    if (kernel == GK_ESC_ROWS) a[ROW_ARGS + 4] = gpu_val(&keyed, sizeof keyed);
    int nargs = ROW_ARGS + (kernel == GK_HASH_ROWS ? 7 : 5);
    return g->ops->launch(g, dbl, kernel, a, nargs, groups, size);
}

/* Hash, or a phase of hash2, for rows of up to hi products: several a
 * work-group where they fit, else one; *done is 0 when neither holds them. */
static hsp_status hash_launch(gpu *g, hsp_job *job, int phase, int64_t hi, int rows, int64_t first, int64_t nrows,
                              int *done)
{
    hsp_status s = rows_in_groups(g, job, GK_HASH_ROWS, phase, hi, rows, first, nrows, done);
    return !*done && s == HSP_OK ? hash_rows(g, job, phase, hi, rows, first, nrows, done) : s;
}

/* The work-items of RMerge for rows of up to hi products of A: a power of
 * two above A's mean row, so that one round takes a typical row, and no
 * wider than rows of n entries over B rows of n each need (hi about n^2);
 * from 4 to 16.  Not 32: each step's trees cost more than the steps saved
 * (doc/performance.md, "Figures behind the code"). */
static int32_t rmerge_width(int64_t hi, const hsp_csr *A)
{
    int32_t w = 4;
    int64_t mean = A->nrows ? (A->nnz + A->nrows - 1) / A->nrows : 0;
    while (w < 16 && (int64_t)(w - 1) * (w - 1) < hi && w - 1 < mean) w *= 2;
    return w;
}

int64_t gpu_launch_class(const hsp_job *job, hsp_method m, int64_t hi)
{
    if (m == HSP_METHOD_RMERGE) return rmerge_width(hi, job->A);
    if (m == HSP_METHOD_HASH || m == HSP_METHOD_HASH2 || m == HSP_METHOD_ESC) return pow2_at_least(hi < 2 ? 2 : hi);
    return hi; /* heap: a kernel for each u */
}

/* RMerge (rmerge.cl) for rows of up to hi products: rmerge_width items a
 * row, several rows a work-group. */
static hsp_status rmerge_rows(gpu *g, hsp_job *job, int64_t hi, int rows, int64_t first, int64_t nrows)
{
    int dbl = job->vsize == 8;
    int32_t w = rmerge_width(hi, job->A);
    size_t size = gpu_group_size(g, dbl, GK_RMERGE, 128);
    if (size < (size_t)w || size % (size_t)w)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "RMerge needs work-groups of a multiple of %d items; the device runs %zu",
                        (int)w, size);
    gpu_arg a[GPU_ARGS_MAX];
    gpu_row_args(g, a, rows, &first, &nrows, 0);
    a[ROW_ARGS] = gpu_arr(g, GA_UB), a[ROW_ARGS + 1] = gpu_val(&w, sizeof w);
    a[ROW_ARGS + 2] = gpu_local(size * sizeof(int32_t)), a[ROW_ARGS + 3] = gpu_local(size * job->vsize);
    a[ROW_ARGS + 4] = gpu_local(3 * sizeof(int32_t));
    size_t per_group = size / (size_t)w;
    return g->ops->launch(g, dbl, GK_RMERGE, a, ROW_ARGS + 5, ((size_t)nrows + per_group - 1) / per_group, size);
}

/* Rows that hash2 counted, for their fill in stage 4. */
static hsp_status note_fill(gpu *g, int64_t hi, int rows, int64_t first, int64_t nrows)
{
    if (g->job->nfill == HSP_MAX_BINS) return hsp_fail(HSP_ERR_DEVICE, "more hash2 launches than bins");
    g->job->fill[g->job->nfill++] = (gpu_fill){hi, rows, first, nrows};
    g->job->filled += nrows;
    return HSP_OK;
}

hsp_status gpu_fill_rows(gpu *g, hsp_job *job)
{
    hsp_status s = HSP_OK;
    for (int k = 0; k < g->job->nfill && s == HSP_OK; k++) {
        const gpu_fill *f = &g->job->fill[k];
        int done;
        s = hash_launch(g, job, PHASE_FILL, f->hi, f->rows, f->first, f->nrows, &done);
    }
    return s;
}

hsp_status gpu_launch_rows(gpu *g, hsp_job *job, hsp_method m, int64_t hi, int islong, int rows,
                           int64_t first, int64_t nrows)
{
    int dbl = job->vsize == 8;
    gpu_arg a[GPU_ARGS_MAX];
    int32_t n2 = 0, islong32 = islong, keyed = 0;
    size_t size = 0, groups = (size_t)nrows;
    int nargs = ROW_ARGS;
    hsp_status s = HSP_OK;
    if (!nrows) return HSP_OK;
    if (m == HSP_METHOD_RMERGE && !islong) return rmerge_rows(g, job, hi, rows, first, nrows);
    if ((m == HSP_METHOD_HASH || m == HSP_METHOD_HASH2) && !g->local_add[dbl]) m = HSP_METHOD_ESC; /* needs local_add */
    if ((m == HSP_METHOD_ESC || m == HSP_METHOD_HASH || m == HSP_METHOD_HASH2) && !islong) {
        int done = 0; /* several rows a work-group, where they fit */
        if (m == HSP_METHOD_ESC) s = rows_in_groups(g, job, GK_ESC_ROWS, PHASE_ONE, hi, rows, first, nrows, &done);
        else s = hash_launch(g, job, m == HSP_METHOD_HASH2 ? PHASE_COUNT : PHASE_ONE, hi, rows, first, nrows, &done);
        if (done && s == HSP_OK && m == HSP_METHOD_HASH2) s = note_fill(g, hi, rows, first, nrows);
        if (done || s != HSP_OK) return s;
        m = HSP_METHOD_ESC; /* rows too large for the hash kernels: ESC, one a work-group */
    }
    int kernel = m == HSP_METHOD_HEAP ? GK_HEAP + (int)hi : m == HSP_METHOD_ESC ? GK_ESC : GK_MERGE;
    size = gpu_group_size(g, dbl, kernel, 64);
    gpu_row_args(g, a, rows, &first, &nrows, 0);
    if (m == HSP_METHOD_ESC) s = esc_args(g, job, a + ROW_ARGS, hi, &n2, &islong32, &keyed, &size), nargs += 9;
    if (m == HSP_METHOD_MERGE) merge_args(g, job, a + ROW_ARGS, &n2, &size), nargs += 7;
    if (m == HSP_METHOD_HEAP) groups = (size_t)(nrows + (int64_t)size - 1) / size;
    return s == HSP_OK ? g->ops->launch(g, dbl, kernel, a, nargs, groups, size) : s;
}
