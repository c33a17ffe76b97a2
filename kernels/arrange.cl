/* arrange.cl: stage 4, the copy of C~ into C: one work-item per entry of C,
 * which finds its row by binary search in C's row pointers: those of the
 * rows from its work-group's first entry's on, as many as the group has
 * items, in local memory (found once, by item 0), else in global memory (an
 * entry past them, after empty rows).  Rows of at most host_max products are
 * the host's and skipped (1: rows of one product or none; 0 when the device
 * computed those of one product too); long rows come from the pool, the
 * others from C~. */

/* The last row in [lo, hi] whose pointer in rp is at most e (rp[lo] <= e). */
#define LAST_ROW(NAME, SPACE)                                        \
    long NAME(SPACE const long *rp, long lo, long hi, long e)        \
    {                                                                \
        while (lo < hi) {                                            \
            long mid = (lo + hi + 1) / 2;                            \
            if (rp[mid] <= e) lo = mid;                              \
            else hi = mid - 1;                                       \
        }                                                            \
        return lo;                                                   \
    }
LAST_ROW(last_row, __global)
LAST_ROW(last_row_local, __local)

/* lrp: the row pointers of the group's window (a long an item, one more)
 * and its first row. */
__kernel void hsp_arrange(long nnz, long m, long host_max, __global const long *crp, __global const long *ub,
                          __global const long *slot, long medium_max, __global const int *tcol,
                          __global const VT *tval, __global const int *pcol,
                          __global const VT *pval, __global const hsp_longrow *lrows,
                          __global int *ccol, __global VT *cval, __local long *lrp)
{
    long e = get_global_id(0), e0 = e - get_local_id(0);
    int lid = get_local_id(0), lsz = get_local_size(0);
    __local long *first = lrp + lsz + 1;
    if (lid == 0) *first = last_row(crp, 0, m - 1, e0);
    barrier(CLK_LOCAL_MEM_FENCE);
    long r0 = *first, rows = min((long)lsz, m - r0); /* the window: rows r0 .. r0 + rows - 1 */
    for (long x = lid; x <= rows; x += lsz) lrp[x] = crp[r0 + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (e >= nnz) return;
    long lo = e < lrp[rows] ? r0 + last_row_local(lrp, 0, rows - 1, e) : last_row(crp, r0 + rows, m - 1, e);
    long u = ub[lo], at = e - crp[lo];
    if (u <= host_max) return;
    if (u <= medium_max) {
        ccol[e] = tcol[slot[lo] + at], cval[e] = tval[slot[lo] + at];
    } else if (lrows[slot[lo]].roff >= 0) { /* else dense: hsp_dense writes it */
        long src = lrows[slot[lo]].roff + at;
        ccol[e] = pcol[src], cval[e] = pval[src];
    }
}
