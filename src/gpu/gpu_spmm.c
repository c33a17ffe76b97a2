/* gpu_spmm.c: C = alpha A B + beta C (hsp_spmm) on a GPU device, by
 * kernels/spmm.cl: A's arrays, and the spans of B's and C's entries, go to
 * the device (or are used in place where it reads host arrays), one launch
 * makes C, and C's span comes back. */
#include "ellr.h"
#include "gpu.h"
#include "internal.h"

/* A's arrays on the device: its row pointers or slices, row lengths (ELLPACK-R
 * alone), columns and values. */
static hsp_status place_rows(gpu *g, const struct hsp_ellr *A, size_t vsize)
{
    int ellr = !A->rowptr;
    int64_t nslices = hsp_ellr_nslices(A);
    int64_t nstarts = ellr ? nslices + 1 : (int64_t)A->nrows + 1, nslots = ellr ? A->slice[nslices] : A->nnz;
    hsp_status s = gpu_upload(g, GA_SPMM_ROWS, ellr ? A->slice : A->rowptr, (size_t)nstarts * sizeof(int64_t));
    if (s == HSP_OK) s = gpu_upload(g, GA_SPMM_LEN, ellr ? A->len : NULL, ellr ? (size_t)A->nrows * sizeof(int32_t) : 0);
    if (s == HSP_OK) s = gpu_upload(g, GA_SPMM_COL, A->col, (size_t)nslots * sizeof(int32_t));
    return s == HSP_OK ? gpu_upload(g, GA_SPMM_VAL, A->val, (size_t)nslots * vsize) : s;
}

/* A's entries that one work-item sums at most before a second shares each
 * entry of C (see lanes_for). */
enum { LANE_ENTRIES = 64, MAX_LANES = 32 };

/* The work-items an entry of C: one, doubled while A's longest row (known
 * where A was prepared) passes LANE_ENTRIES a work-item, at most MAX_LANES
 * and the work-group's size: a hub of thousands of entries (rmat) held up
 * its work-items and every other row's behind them. */
static int32_t lanes_for(const struct hsp_ellr *A, size_t size)
{
    int32_t lanes = 1;
    while (lanes < MAX_LANES && (size_t)lanes < size && (int64_t)lanes * LANE_ENTRIES < A->width) lanes *= 2;
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

/* One launch over C's entries, along its rows where B is row-major. */
static hsp_status launch(gpu *g, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                         const hsp_dense *C)
{
    int dbl = A->precision == HSP_DOUBLE;
    size_t vs = dbl ? sizeof(double) : sizeof(float), size = gpu_group_size(g, dbl, GK_SPMM_LANES, 256);
    int32_t nrows = C->nrows, ncols = C->ncols, along_rows = B->order == HSP_ROW_MAJOR, lanes = lanes_for(A, size);
    int64_t step = hsp_ellr_step(A), bs[2], cs[2];
    size_t groups = groups_of(nrows, ncols, along_rows, &lanes, &size);
    float alpha_f = (float)alpha, beta_f = (float)beta;
    hsp_dense_steps(B, bs), hsp_dense_steps(C, cs);
    gpu_arg a[] = {gpu_val(&nrows, sizeof nrows), gpu_val(&ncols, sizeof ncols), gpu_val(&along_rows, sizeof along_rows),
                   gpu_val(&step, sizeof step), gpu_arr(g, GA_SPMM_ROWS), gpu_arr(g, GA_SPMM_LEN),
                   gpu_arr(g, GA_SPMM_COL), gpu_arr(g, GA_SPMM_VAL), gpu_arr(g, GA_SPMM_B),
                   gpu_val(&bs[0], sizeof bs[0]), gpu_val(&bs[1], sizeof bs[1]), gpu_arr(g, GA_SPMM_C),
                   gpu_val(&cs[0], sizeof cs[0]), gpu_val(&cs[1], sizeof cs[1]),
                   gpu_val(dbl ? (const void *)&alpha : &alpha_f, vs), gpu_val(dbl ? (const void *)&beta : &beta_f, vs),
                   gpu_val(&lanes, sizeof lanes), gpu_local(size * vs)};
    if (!nrows || !ncols) return HSP_OK;
    return lanes > 1 ? g->ops->launch(g, dbl, GK_SPMM_LANES, a, 18, groups, size)
                     : g->ops->launch(g, dbl, GK_SPMM, a, 16, groups, size);
}

hsp_status gpu_spmm(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                    hsp_dense *C)
{
    gpu *g = dev->state;
    size_t vs = hsp_value_size(A->precision), c_bytes = hsp_dense_bytes(C);
    if (A->precision == HSP_DOUBLE && !g->fp64)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "device %s has no double precision (%s): use float or another device",
                        dev->description, g->no_fp64);
    hsp_status s = g->ops->finish(g);
    if (g->ops->unmap_host) g->ops->unmap_host(g, NULL); /* the last call's arrays may be gone */
    if (s == HSP_OK) s = place_rows(g, A, vs);
    if (s == HSP_OK) s = gpu_upload(g, GA_SPMM_B, B->values, hsp_dense_bytes(B));
    if (s == HSP_OK) s = gpu_upload(g, GA_SPMM_C, beta != 0 || g->host_arrays ? C->values : NULL, c_bytes);
    if (s == HSP_OK) s = launch(g, A, B, alpha, beta, C);
    if (s == HSP_OK) s = gpu_download(g, GA_SPMM_C, C->values, c_bytes);
    return gpu_noted(dev, s);
}
