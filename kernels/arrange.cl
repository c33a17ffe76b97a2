/* arrange.cl: stage 4, the copy of the device's rows into C, lanes work-items
 * a row: rows [first, first + nrows) of the bin order rows, each from its
 * slot in C~, or (islong) from its place in the pool (roff -1: dense, which
 * wrote it in C already).  Rows with slot -1 (method hash2) were filled in
 * place and are skipped.  A row's lanes copy it in coalesced strides, and no
 * work-item searches for its row. */
__kernel void hsp_arrange(__global const int *rows, long first, long nrows, int lanes, int islong,
                          __global const long *crp, __global const long *slot, __global const int *tcol,
                          __global const VT *tval, __global const int *pcol, __global const VT *pval,
                          __global const hsp_longrow *lrows, __global int *ccol, __global VT *cval)
{
    int lid = get_local_id(0), lane = lid % lanes; /* 32-bit: a 64-bit division costs more than the copy */
    long k = get_group_id(0) * (long)(get_local_size(0) / lanes) + lid / lanes;
    if (k >= nrows) return;
    int i = rows[first + k];
    long from = slot[i];
    if (from < 0) return;
    __global const int *col = tcol;
    __global const VT *val = tval;
    if (islong) {
        from = lrows[from].roff, col = pcol, val = pval;
        if (from < 0) return;
    }
    long at = crp[i], n = crp[i + 1] - at;
    for (long t = lane; t < n; t += lanes) ccol[at + t] = col[from + t], cval[at + t] = val[from + t];
}
