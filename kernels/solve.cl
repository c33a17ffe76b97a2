/* solve.cl: the AMG solve on a device with memory of its own, for a resident
 * hierarchy (src/amg/gpu_solve.c): products of a level's matrix with a
 * vector, a row a work-item. */

/* y = alpha A x + beta y over A's m rows (y is not read where beta is 0). */
__kernel void hsp_spmv(long m, __global const long *arp, __global const int *acol, __global const VT *aval,
                       __global const VT *x, VT alpha, VT beta, __global VT *y)
{
    long i = get_global_id(0);
    if (i >= m) return;
    VT s = 0;
    for (long k = arp[i]; k < arp[i + 1]; k++) s += aval[k] * x[acol[k]];
    y[i] = beta != 0 ? alpha * s + beta * y[i] : alpha * s;
}
