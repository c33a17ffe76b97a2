/* spmm_rows.h: rows of C = alpha A B + beta C in one precision: values of
 * type VT, functions named SF(name).  spmm.c includes it once per
 * precision. */

/* acc[k] += a * b[k * stride] for k < n: the B row's next n columns (a
 * fixed count with unit stride, row-major B, so that it vectorises). */
static inline void SF(spmm_add)(VT *acc, VT a, const VT *b, int32_t n, int64_t stride)
{
    if (n == SPMM_LC && stride == 1) {
        for (int k = 0; k < SPMM_LC; k++) acc[k] += a * b[k];
        return;
    }
    for (int32_t k = 0; k < n; k++) acc[k] += a * b[k * stride];
}

/* Rows first .. last - 1 of C, SPMM_LC columns at a time: each pass reads
 * A's row once for that many columns of B. */
static void SF(spmm_rows)(const spmm_run *r, int32_t first, int32_t last)
{
    const hsp_csr *A = r->A;
    const VT *av = A->values, *b = r->B->values;
    VT *c = r->C->values, alpha = (VT)r->alpha, beta = (VT)r->beta;
    int32_t ncols = r->B->ncols;
    for (int32_t i = first; i < last; i++)
        for (int32_t j0 = 0; j0 < ncols; j0 += SPMM_LC) {
            int32_t n = ncols - j0 < SPMM_LC ? ncols - j0 : SPMM_LC;
            VT acc[SPMM_LC] = {0};
            for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
                SF(spmm_add)(acc, av[p], b + A->colidx[p] * r->b_step[0] + j0 * r->b_step[1], n, r->b_step[1]);
            VT *ci = c + i * r->c_step[0] + j0 * r->c_step[1];
            for (int32_t k = 0; k < n; k++) {
                VT *x = ci + k * r->c_step[1];
                *x = beta == 0 ? alpha * acc[k] : alpha * acc[k] + beta * *x;
            }
        }
}
