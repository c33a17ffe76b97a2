/* bound.cl: stage 1, the upper bound u_i = sum of nnz(B_k) over the entries
 * k of row i of A.  Work-group g of n takes rows g, g + n, g + 2n, ... (at
 * most BOUND_GROUP_MOST), one a work-item, so that rows lying together, as
 * R-MAT's longest do, fall to different groups; a row of more than
 * BOUND_SHORT entries, which would keep its work-item walking while the
 * group's others wait (R-MAT's longest hold thousands), is summed by the
 * whole group instead. */
#define BOUND_SHORT 32
#define BOUND_GROUP_MOST 256

__kernel void hsp_bound(long m, __global const long *arp, __global const int *acol,
                        __global const long *brp, __global long *ub)
{
    __local long lsum[BOUND_GROUP_MOST];
    __local int llong[BOUND_GROUP_MOST], nlong;
    int lid = get_local_id(0), lsz = get_local_size(0);
    long n = get_num_groups(0), i = lid * n + get_group_id(0);
    if (!lid) nlong = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < m && arp[i + 1] - arp[i] > BOUND_SHORT) llong[atomic_inc(&nlong)] = lid;
    else if (i < m) {
        long u = 0;
        for (long p = arp[i]; p < arp[i + 1]; p++) u += brp[acol[p] + 1] - brp[acol[p]];
        ub[i] = u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < nlong; k++) { /* the same count in every work-item */
        long r = llong[k] * n + get_group_id(0), u = 0, total;
        for (long p = arp[r] + lid; p < arp[r + 1]; p += lsz) u += brp[acol[p] + 1] - brp[acol[p]];
        group_scan_long(u, lsum, &total);
        if (!lid) ub[r] = total;
    }
}
