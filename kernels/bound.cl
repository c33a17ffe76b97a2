/* bound.cl: stage 1, the upper bound u_i = sum of nnz(B_k) over the entries
 * k of row i of A; one work-item per row. */
__kernel void hsp_bound(long m, __global const long *arp, __global const int *acol,
                        __global const long *brp, __global long *ub)
{
    long i = get_global_id(0);
    if (i >= m) return;
    long u = 0;
    for (long p = arp[i]; p < arp[i + 1]; p++) u += brp[acol[p] + 1] - brp[acol[p]];
    ub[i] = u;
}
