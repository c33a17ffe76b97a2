/* arrange.cl: stage 4, the copy of C~ into C: one work-item per entry of C,
 * which finds its row by binary search in C's row pointers.  Rows of at most
 * host_max products are the host's and skipped (1: rows of one product or
 * none; 0 when the device computed those of one product too), and so are the
 * rows filled in place (method hash2: slot -1); long rows come from the pool,
 * the others from C~. */
__kernel void hsp_arrange(long nnz, long m, long host_max, __global const long *crp, __global const long *ub,
                          __global const long *slot, long medium_max, __global const int *tcol,
                          __global const VT *tval, __global const int *pcol,
                          __global const VT *pval, __global const hsp_longrow *lrows,
                          __global int *ccol, __global VT *cval)
{
    long e = get_global_id(0), lo = 0, hi = m - 1;
    if (e >= nnz) return;
    while (lo < hi) { /* the last row starting at or before e */
        long mid = (lo + hi + 1) / 2;
        if (crp[mid] <= e) lo = mid;
        else hi = mid - 1;
    }
    long u = ub[lo], at = e - crp[lo];
    if (u <= host_max) return;
    if (u <= medium_max) {
        if (slot[lo] < 0) return;
        ccol[e] = tcol[slot[lo] + at], cval[e] = tval[slot[lo] + at];
    } else if (lrows[slot[lo]].roff >= 0) { /* else dense: hsp_dense writes it */
        long src = lrows[slot[lo]].roff + at;
        ccol[e] = pcol[src], cval[e] = pval[src];
    }
}
