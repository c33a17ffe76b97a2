/* arrange.cl: stage 4, the copy of the device's rows into C.  hsp_arrange
 * takes rows [first, first + nrows) of the bin order rows, lanes work-items a
 * row, each from its slot in C~, or (islong) from its place in the pool (roff
 * -1: dense, which wrote it in C already).  Rows with slot -1 (method hash2)
 * were filled in place and are skipped.  A row's lanes copy it in coalesced
 * strides, and no work-item searches for its row. */
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

/* The same copy for every row of up to medium_max products (not long) of a
 * product whose rows are all the device's, in C's order: work-group g takes
 * C's entries of rows [g per, (g + 1) per) (per at most its size, fewer
 * where C's rows are too few to fill the device otherwise), a work-item an
 * entry in turn, so that C is written in whole strides; each entry finds
 * its row by bisection over the group's row pointers (lcrp, per + 1 of
 * them) and reads C~ from the row's slot (lslot, -1: no copy).  The rows'
 * slots are in row order, so that the reads too are near each other. */
__kernel void hsp_arrange_rows(long m, long medium_max, int per, __global const long *ub, __global const long *crp,
                               __global const long *slot, __global const int *tcol, __global const VT *tval,
                               __global int *ccol, __global VT *cval, __local long *lcrp, __local long *lslot)
{
    int t = get_local_id(0), n = get_local_size(0);
    long r0 = get_group_id(0) * (long)per, i = r0 + t;
    if (t < per) lcrp[t] = crp[min(i, m)], lslot[t] = i < m && ub[i] <= medium_max ? slot[i] : -1;
    if (t == 0) lcrp[per] = crp[min(r0 + per, m)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long e = lcrp[0] + t; e < lcrp[per]; e += n) {
        int lo = 0, hi = per - 1; /* the last row k with lcrp[k] <= e */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (lcrp[mid] <= e) lo = mid;
            else hi = mid - 1;
        }
        long from = lslot[lo];
        if (from >= 0) ccol[e] = tcol[from + e - lcrp[lo]], cval[e] = tval[from + e - lcrp[lo]];
    }
}
