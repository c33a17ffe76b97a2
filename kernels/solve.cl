/* solve.cl: the AMG solve on a device with memory of its own, for a resident
 * hierarchy (src/amg/gpu_solve.c), a row or an entry a work-item: a level's
 * matrix times a vector, its diagonal's inverses, and the vector steps of
 * the smoothers and of CG; the sums a step gives are a part per work-group
 * (group_reduce, amg.cl), added into one value by hsp_lz_sum. */

/* y = c + s A x over A's m rows (c not read without has_c; c may be y),
 * a team of `team` work-items a row (a power of two dividing the
 * work-group: consecutive items read consecutive entries), its sum added in
 * l; with has_w, part: the work-group's part of y.w. */
__kernel void hsp_spmv(long m, __global const long *arp, __global const int *acol, __global const VT *aval,
                       __global const VT *x, VT s, __global const VT *c, int has_c, __global VT *y,
                       __global const VT *w, int has_w, int team, __global VT *part, __local VT *l)
{
    int t = get_local_id(0), lane = t & (team - 1);
    long i = get_global_id(0) / team;
    VT sum = 0, dot = 0;
    if (i < m)
        for (long k = arp[i] + lane; k < arp[i + 1]; k += team) sum += aval[k] * x[acol[k]];
    if (team > 1) { /* the same for every item of the work-group */
        l[t] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = team / 2; d > 0; d /= 2) {
            if (lane < d) l[t] += l[t + d];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        sum = l[t];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < m && lane == 0) {
        VT yi = (has_c ? c[i] : 0) + s * sum;
        y[i] = yi;
        if (has_w) dot = yi * w[i];
    }
    if (has_w) group_reduce(dot, 0, l, part);
}

/* dinv: 1 / a_ii; l1inv: 1 / sum_j |a_ij| (the setup checked the diagonal). */
__kernel void hsp_diagonals(long n, __global const long *arp, __global const int *acol, __global const VT *aval,
                            __global VT *dinv, __global VT *l1inv)
{
    long i = get_global_id(0);
    if (i >= n) return;
    VT d = 0, sum = 0;
    for (long k = arp[i]; k < arp[i + 1]; k++) {
        sum += fabs(aval[k]);
        if (acol[k] == i) d = aval[k];
    }
    dinv[i] = 1 / d;
    l1inv[i] = 1 / sum;
}

/* The vector steps (src/amg/amg_device.h's HSP_VEC_*), over n entries,
 * a being sums[num] / sums[den] where num >= 0 (CG's alpha and beta, kept
 * on the device): STEP: s = c z.w + a v (v read only where a != 0), v = s
 * where has_v, u += s; UPDATE: u += a w, v -= a z, part: v.v; DIRECTION:
 * u = w + a u; DOT: part: w.z; COPY: u = w; ZERO: u = 0. */
__kernel void hsp_vector(int op, long n, VT a, VT c, __global VT *u, __global VT *v, __global const VT *w,
                         __global const VT *z, int has_v, __global VT *part, __global const VT *sums, int num,
                         int den, __local VT *l)
{
    long i = get_global_id(0);
    VT sum = 0;
    if (num >= 0) a = sums[num] / sums[den];
    if (i < n) {
        if (op == 0) {
            VT s = c * z[i] * w[i] + (a != 0 ? a * v[i] : 0);
            if (has_v) v[i] = s;
            u[i] += s;
        } else if (op == 1) {
            u[i] += a * w[i];
            v[i] -= a * z[i];
            sum = v[i] * v[i];
        } else if (op == 2) {
            u[i] = w[i] + a * u[i];
        } else if (op == 3) {
            sum = w[i] * z[i];
        } else if (op == 4) {
            u[i] = w[i];
        } else {
            u[i] = 0;
        }
    }
    if (op == 1 || op == 3) group_reduce(sum, 0, l, part);
}
