/* spmm.cl: C = alpha A B + beta C (hsp_spmm) on a device.  A's rows as
 * src/pipeline/ellr.h lays them out: entry q of row i at first + q step, with
 * first = rows[i / step] + i % step; in CSR step is 1 and rows the row
 * pointers, in sliced ELLPACK-R step is the slice's rows, rows where each
 * slice begins and len each row's entries.  B and C are dense, entry (i, j)
 * at i s0 + j s1.  A work-item an entry of C, taken along C's rows where B
 * and C are row-major (the work-items of a row read B's row of each entry of
 * A together), down its columns where they are column-major (those of a
 * column read a slice's slots of consecutive rows together). */
__kernel void hsp_spmm(int nrows, int ncols, int along_rows, long step, __global const long *rows,
                       __global const int *len, __global const int *col, __global const VT *val,
                       __global const VT *b, long bs0, long bs1, __global VT *c, long cs0, long cs1, VT alpha,
                       VT beta)
{
    long g = get_global_id(0);
    if (g >= (long)nrows * ncols) return;
    long i = along_rows ? g / ncols : g % nrows, j = along_rows ? g % ncols : g / nrows;
    long first = rows[i / step] + i % step, count = step > 1 ? (long)len[i] : rows[i + 1] - rows[i];
    VT sum = 0;
    for (long p = first; p < first + count * step; p += step) sum += val[p] * b[col[p] * bs0 + j * bs1];
    __global VT *cij = c + i * cs0 + j * cs1;
    *cij = beta == 0 ? alpha * sum : alpha * sum + beta * *cij; /* C unread where beta is 0, as in BLAS */
}
