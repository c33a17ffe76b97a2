/* spmm_rows.h: rows of C = alpha A B + beta C in one precision: values of
 * type VT, functions named SF(name).  spmm.c includes it once per
 * precision. */

/* Row i's sums for columns j0 .. j0 + w - 1 of row-major B into acc (w at
 * most SPMM_LC): called with a constant w, so that once inlined the count is
 * fixed, acc stays in registers and the adds vectorise. */
static inline __attribute__((always_inline)) void SF(spmm_block)(const spmm_run *r, int32_t i, int32_t j0, int w,
                                                               VT *restrict acc)
{
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = (const VT *)r->B->values + j0;
    int64_t step = hsp_ellr_step(r->A), end = hsp_ellr_end(r->A, i);
    VT sum[SPMM_LC] = {0};
    for (int64_t p = hsp_ellr_first(r->A, i); p < end; p += step) {
        const VT *bp = b + col[p] * r->b_step[0], a = av[p];
#pragma GCC unroll 8
        for (int k = 0; k < w; k++) sum[k] += a * bp[k];
    }
#pragma GCC unroll 8
    for (int k = 0; k < w; k++) acc[k] = sum[k];
}

/* The same for n columns from j0 of B in either order. */
static inline void SF(spmm_cols)(const spmm_run *r, int32_t i, int32_t j0, int32_t n, VT *restrict acc)
{
    const int64_t stride = r->b_step[1], step = hsp_ellr_step(r->A), end = hsp_ellr_end(r->A, i);
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = (const VT *)r->B->values + j0 * stride;
    for (int32_t k = 0; k < n; k++) acc[k] = 0;
    for (int64_t p = hsp_ellr_first(r->A, i); p < end; p += step) {
        const VT *bp = b + col[p] * r->b_step[0], a = av[p];
        for (int32_t k = 0; k < n; k++) acc[k] += a * bp[k * stride];
    }
}

/* Columns j0 .. j0 + n - 1 of C's row i from the sums acc (inlined with a
 * constant n, the row-major case without beta is a few vector stores). */
static inline __attribute__((always_inline)) void SF(spmm_store)(const spmm_run *r, int32_t i, int32_t j0, int32_t n,
                                                                const VT *acc)
{
    int64_t step = r->c_step[1];
    VT *ci = (VT *)r->C->values + i * r->c_step[0] + j0 * step, alpha = (VT)r->alpha, beta = (VT)r->beta;
    if (beta == 0 && step == 1)
        for (int32_t k = 0; k < n; k++) ci[k] = alpha * acc[k];
    else if (beta == 0)
        for (int32_t k = 0; k < n; k++) ci[k * step] = alpha * acc[k];
    else
        for (int32_t k = 0; k < n; k++) ci[k * step] = alpha * acc[k] + beta * ci[k * step];
}

/* Rows first .. last - 1 of C where B has one column: a sum a row. */
static void SF(spmm_rows_1)(const spmm_run *r, int32_t first, int32_t last)
{
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = r->B->values;
    int64_t bs = r->b_step[0], step = hsp_ellr_step(r->A);
    for (int32_t i = first; i < last; i++) {
        VT sum = 0;
        for (int64_t p = hsp_ellr_first(r->A, i), end = hsp_ellr_end(r->A, i); p < end; p += step)
            sum += av[p] * b[col[p] * bs];
        SF(spmm_store)(r, i, 0, 1, &sum);
    }
}

/* Rows first .. last - 1 of C, SPMM_LC columns at a time (of row-major B
 * the last ones 4, then 2 at a time): each pass reads A's row once for that
 * many columns of B (one column: spmm_rows_1). */
SPMM_CLONES static void SF(spmm_rows)(const spmm_run *r, int32_t first, int32_t last)
{
    int32_t ncols = r->B->ncols;
    VT acc[SPMM_LC];
    if (ncols == 1) {
        SF(spmm_rows_1)(r, first, last);
        return;
    }
    for (int32_t i = first; i < last; i++) {
        int32_t j0 = 0;
        if (r->b_step[1] == 1) {
            for (; j0 + SPMM_LC <= ncols; j0 += SPMM_LC)
                SF(spmm_block)(r, i, j0, SPMM_LC, acc), SF(spmm_store)(r, i, j0, SPMM_LC, acc);
            if (ncols - j0 >= 4) SF(spmm_block)(r, i, j0, 4, acc), SF(spmm_store)(r, i, j0, 4, acc), j0 += 4;
            if (ncols - j0 >= 2) SF(spmm_block)(r, i, j0, 2, acc), SF(spmm_store)(r, i, j0, 2, acc), j0 += 2;
        }
        for (int32_t n; j0 < ncols; j0 += n) { /* column-major B, or row-major's last column */
            n = ncols - j0 < SPMM_LC ? ncols - j0 : SPMM_LC;
            SF(spmm_cols)(r, i, j0, n, acc), SF(spmm_store)(r, i, j0, n, acc);
        }
    }
}
