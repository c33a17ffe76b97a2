/* gpu_spmm.c: C = alpha A B + beta C (hsp_spmm) on a GPU device, by
 * kernels/spmm.cl: A's arrays, and the spans of B's and C's entries, go to
 * the device (or are used in place where it reads host arrays), one launch
 * makes C, and C's span comes back. */
#include "ellr.h"
#include "gpu.h"
#include "internal.h"

/* A's arrays on the device in a[0..3] (hsp_ellr_arrays' order): those held
 * where A was prepared on this device, else copies of the host's in the
 * job's arrays (or the host's themselves where the device reads host
 * arrays). */
static hsp_status place_rows(gpu *g, const struct hsp_ellr *A, void *held, const gpu_array *a[4])
{
    const void *host[4];
    size_t bytes[4];
    hsp_status s = HSP_OK;
    hsp_ellr_arrays(A, host, bytes);
    for (int k = 0; k < 4 && s == HSP_OK; k++) {
        s = held ? HSP_OK : gpu_upload(g, GA_SPMM_ROWS + k, bytes[k] ? host[k] : NULL, bytes[k]);
        a[k] = held ? &((gpu_held *)held)->a[k] : &g->a[GA_SPMM_ROWS + k];
    }
    return s;
}

/* Dense operand M's array on the device: held, else the job's array which
 * (the host's M copied there when send) where the device reads host arrays
 * is M's own. */
static hsp_status place_dense(gpu *g, int which, const hsp_dense *M, void *held, int send, const gpu_array **a)
{
    *a = held ? &((gpu_held *)held)->a[0] : &g->a[which];
    return held ? HSP_OK : gpu_upload(g, which, send || g->host_arrays ? M->values : NULL, hsp_dense_bytes(M));
}

/* A's entries that one work-item sums at most before a second shares each
 * entry of C (see lanes_for). */
enum { LANE_ENTRIES = 64, MAX_LANES = 32 };

/* The work-items an entry of C: one, doubled while A's longest row (known
 * where A was prepared) passes LANE_ENTRIES a work-item, at most MAX_LANES
 * and the work-group's size: a hub of thousands of entries (rmat) held up
 * its work-items and every other row's behind them. */
static int32_t lanes_for(const struct hsp_ellr *A, size_t size, int32_t ncols)
{
    int32_t lanes = 1;
    while (lanes < MAX_LANES && (size_t)lanes < size && (int64_t)lanes * LANE_ENTRIES < A->width) lanes *= 2;
    while (ncols == 1 && A->rowptr && lanes < MAX_LANES && (int64_t)lanes * 8 * A->nrows < A->nnz) lanes *= 2;
    return lanes;
}

/* The work-groups of the launch, and their size: entries of C in order,
 * or, with lanes along rows, whole rows of lanes x ncols items (lanes
 * halved till a row fits the work-group). */
static size_t groups_of(int32_t nrows, int32_t ncols, int along_rows, int32_t *lanes, size_t *size)
{
    while (along_rows && *lanes > 1 && (size_t)*lanes * (size_t)ncols > *size) *lanes /= 2;
    if (*lanes > 1 && along_rows) {
        size_t per = (size_t)*lanes * (size_t)ncols, rows = *size / per;
        *size = rows * per;
        return ((size_t)nrows + rows - 1) / rows;
    }
    int64_t items = (int64_t)nrows * ncols * *lanes;
    return (size_t)((items + (int64_t)*size - 1) / (int64_t)*size);
}

/* An argument of array x. */
static gpu_arg arg_of(const gpu_array *x)
{
    return (gpu_arg){GPU_ARG_ARRAY, x, NULL, 0};
}

/* One launch over C's entries, along its rows where B is row-major; a: A's
 * four arrays, B's and C's. */
static hsp_status launch(gpu *g, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                         const hsp_dense *C, const gpu_array *const a[6])
{
    int dbl = A->precision == HSP_DOUBLE;
    size_t vs = dbl ? sizeof(double) : sizeof(float), size = gpu_group_size(g, dbl, GK_SPMM_LANES, 256);
    int32_t nrows = C->nrows, ncols = C->ncols, along_rows = B->order == HSP_ROW_MAJOR, lanes = lanes_for(A, size, C->ncols);
    int64_t step = hsp_ellr_step(A), bs[2], cs[2];
    size_t groups = groups_of(nrows, ncols, along_rows, &lanes, &size);
    float alpha_f = (float)alpha, beta_f = (float)beta;
    hsp_dense_steps(B, bs), hsp_dense_steps(C, cs);
    gpu_arg args[] = {gpu_val(&nrows, sizeof nrows), gpu_val(&ncols, sizeof ncols), gpu_val(&along_rows, sizeof along_rows),
                   gpu_val(&step, sizeof step), arg_of(a[0]), arg_of(a[1]), arg_of(a[2]), arg_of(a[3]), arg_of(a[4]),
                   gpu_val(&bs[0], sizeof bs[0]), gpu_val(&bs[1], sizeof bs[1]), arg_of(a[5]),
                   gpu_val(&cs[0], sizeof cs[0]), gpu_val(&cs[1], sizeof cs[1]),
                   gpu_val(dbl ? (const void *)&alpha : &alpha_f, vs), gpu_val(dbl ? (const void *)&beta : &beta_f, vs),
                   gpu_val(&lanes, sizeof lanes), gpu_local(size * vs)};
    if (!nrows || !ncols) return HSP_OK;
    return lanes > 1 ? g->ops->launch(g, dbl, GK_SPMM_LANES, args, 18, groups, size)
                     : g->ops->launch(g, dbl, GK_SPMM, args, 16, groups, size);
}

hsp_status gpu_spmm(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                    hsp_dense *C, void *const held[3])
{
    gpu *g = dev->state;
    const gpu_array *a[6];
    if (A->precision == HSP_DOUBLE && !g->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (%s): use float or another device",
                        dev->description, g->no_fp64);
    hsp_status s = g->ops->finish(g);
    if (g->ops->unmap_host) g->ops->unmap_host(g, NULL); /* the last call's arrays may be gone */
    if (s == HSP_OK) s = place_rows(g, A, held[0], a);
    if (s == HSP_OK) s = place_dense(g, GA_SPMM_B, B, held[1], 1, &a[4]);
    if (s == HSP_OK) s = place_dense(g, GA_SPMM_C, C, held[2], beta != 0, &a[5]);
    if (s == HSP_OK) s = launch(g, A, B, alpha, beta, C, a);
    if (s == HSP_OK && !held[2]) s = gpu_download(g, GA_SPMM_C, C->values, hsp_dense_bytes(C));
    if (s == HSP_OK && held[2]) s = g->ops->finish(g); /* C is done when the call returns */
    return gpu_noted(dev, s);
}
