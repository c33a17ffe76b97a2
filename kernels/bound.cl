/* bound.cl: stage 1, the upper bound u_i = sum of nnz(B_k) over the entries
 * k of row i of A.  A work-group takes as many rows as it has work-items (at
 * most BOUND_GROUP_MOST), one each; a row of more than BOUND_SHORT entries,
 * which would keep its work-item walking while the group's others wait
 * (R-MAT's longest rows hold thousands, and its long rows lie together), goes
 * to a team of BOUND_TEAM work-items, the group's teams taking such rows at
 * once.  Each work-item keeps four entries' loads in flight (b_lens), where
 * one at a time made a row's walk a chain of memory latencies (on an H200
 * rmat:15,4's bound took 0.08 ms, its first group's 94 long rows). */
#define BOUND_SHORT 32
#define BOUND_TEAM 32
#define BOUND_GROUP_MOST 256

/* The sum of the B row lengths of A entries p, p + step, ... before end. */
long b_lens(__global const int *acol, __global const long *brp, long p, long end, int step)
{
    long u = 0;
    for (; p + 3 * step < end; p += 4 * step) {
        int c0 = acol[p], c1 = acol[p + step], c2 = acol[p + 2 * step], c3 = acol[p + 3 * step];
        u += brp[c0 + 1] - brp[c0] + brp[c1 + 1] - brp[c1] + brp[c2 + 1] - brp[c2] + brp[c3 + 1] - brp[c3];
    }
    for (; p < end; p += step) u += brp[acol[p] + 1] - brp[acol[p]];
    return u;
}

__kernel void hsp_bound(long m, __global const long *arp, __global const int *acol,
                        __global const long *brp, __global long *ub)
{
    __local long lsum[BOUND_GROUP_MOST];
    __local int llong[BOUND_GROUP_MOST], nlong;
    int lid = get_local_id(0), lsz = get_local_size(0), team = min(lsz, BOUND_TEAM);
    int teams = lsz / team, me = lid / team, lane = lid % team;
    long i = get_global_id(0), first = i - lid;
    if (!lid) nlong = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < m && arp[i + 1] - arp[i] > BOUND_SHORT) llong[atomic_inc(&nlong)] = lid;
    else if (i < m) ub[i] = b_lens(acol, brp, arp[i], arp[i + 1], 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = me; k - me < nlong; k += teams) { /* the same rounds in every work-item */
        long r = me < teams && k < nlong ? first + llong[k] : -1;
        lsum[lid] = r < 0 ? 0 : b_lens(acol, brp, arp[r] + lane, arp[r + 1], team);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 1; d < team; d *= 2) {
            if (me < teams && lane % (2 * d) == 0 && lane + d < team) lsum[lid] += lsum[lid + d];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (r >= 0 && !lane) ub[r] = lsum[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
