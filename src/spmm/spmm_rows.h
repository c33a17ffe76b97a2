/* spmm_rows.h: rows of C = alpha A B + beta C in one precision: values of
 * type VT, functions named SF(name).  spmm.c includes it once per
 * precision. */

/* Row i's sums for columns j0 .. j0 + w - 1 of row-major B into acc (w at
 * most SPMM_WIDE): called with a constant w, so that once inlined the count is
 * fixed, acc stays in registers and the adds vectorise. */
static inline __attribute__((always_inline)) void SF(spmm_block)(const spmm_run *r, int32_t i, int32_t j0, int w,
                                                               VT *restrict acc)
{
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = (const VT *)r->B->values + j0;
    int64_t step = hsp_ellr_step(r->A), end = hsp_ellr_end(r->A, i);
    VT sum[SPMM_WIDE] = {0};
    for (int64_t p = hsp_ellr_first(r->A, i); p < end; p += step) {
        const VT *bp = b + col[p] * r->b_step[0], a = av[p];
#pragma GCC unroll 32
        for (int k = 0; k < w; k++) sum[k] += a * bp[k];
    }
#pragma GCC unroll 32
    for (int k = 0; k < w; k++) acc[k] = sum[k];
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

/* Rows first .. last - 1 of column-major B (strides step) into row-major T
 * of ncols values a row: SPMM_COPY_ROWS rows at a time, each column's run
 * of them read in order while the block's rows of T stay in cache. */
static void SF(spmm_copy_rows)(const VT *b, const int64_t step[2], int32_t ncols, VT *restrict t, int32_t first,
                               int32_t last)
{
    for (int32_t i0 = first; i0 < last; i0 += SPMM_COPY_ROWS) {
        int32_t i1 = last - i0 < SPMM_COPY_ROWS ? last : i0 + SPMM_COPY_ROWS;
        for (int32_t j = 0; j < ncols; j++) {
            const VT *bj = b + j * step[1];
            for (int32_t i = i0; i < i1; i++) t[(int64_t)i * ncols + j] = bj[i * step[0]];
        }
    }
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

/* One slot t of a slice's rows (their entries at col, av) into their sums
 * acc, for w columns from b of row-major B: skipping rows that end before t
 * where check is set (w and check constants once inlined: no test in full
 * slots). */
static inline __attribute__((always_inline)) void SF(spmm_slot)(VT acc[][SPMM_LC], const int32_t *col, const VT *av,
                                                               const VT *b, int64_t bs, const int32_t *len,
                                                               int32_t t, int w, int check)
{
#pragma GCC unroll 8
    for (int q = 0; q < HSP_ELLR_SLICE; q++) {
        const VT *bp = b + col[q] * bs, x = av[q];
        if (check && t >= len[q]) continue;
#pragma GCC unroll 8
        for (int k = 0; k < w; k++) acc[q][k] += x * bp[k];
    }
}

/* Columns 0 .. w - 1 (w at most SPMM_LC) of C's rows i0 .. i0 +
 * HSP_ELLR_SLICE - 1, a whole slice of ELLPACK-R, from row-major B: the
 * slice's rows at once, a slot at a time, so that their sums are
 * independent chains and each slot's entries one read; slots past a row's
 * length (padding) are skipped. */
static inline __attribute__((always_inline)) void SF(spmm_slice)(const spmm_run *r, int32_t i0, int w)
{
    const struct hsp_ellr *a = r->A;
    const int32_t *len = a->len + i0;
    int64_t first = a->slice[i0 / HSP_ELLR_SLICE], bs = r->b_step[0];
    int32_t width = (int32_t)((a->slice[i0 / HSP_ELLR_SLICE + 1] - first) / HSP_ELLR_SLICE), least = width, t = 0;
    const int32_t *col = a->col + first;
    const VT *av = (const VT *)a->val + first, *b = r->B->values;
    VT acc[HSP_ELLR_SLICE][SPMM_LC] = {{0}};
    for (int q = 0; q < HSP_ELLR_SLICE; q++) least = len[q] < least ? len[q] : least;
    for (; t < least; t++, col += HSP_ELLR_SLICE, av += HSP_ELLR_SLICE) SF(spmm_slot)(acc, col, av, b, bs, len, t, w, 0);
    for (; t < width; t++, col += HSP_ELLR_SLICE, av += HSP_ELLR_SLICE) SF(spmm_slot)(acc, col, av, b, bs, len, t, w, 1);
    for (int q = 0; q < HSP_ELLR_SLICE; q++) SF(spmm_store)(r, i0 + q, 0, w, acc[q]);
}

/* A slice of 4 columns: a function of its own, so that the slices of 8
 * inlined in spmm_rows keep their sums in registers (both inlined there
 * made those of 8 slower). */
SPMM_CLONES static void SF(spmm_slice4)(const spmm_run *r, int32_t i0)
{
    SF(spmm_slice)(r, i0, 4);
}

/* Columns j0 .. of C's row i (B row-major: spmm.c copies column-major B
 * first): SPMM_WIDE at a time, the last ones 16, 8, 4, 2, then 1 at a time
 * (each a constant, so that the sums stay in vector registers): each pass
 * reads A's row once for that many columns of B. */
static inline __attribute__((always_inline)) void SF(spmm_row)(const spmm_run *r, int32_t i, int32_t j0)
{
    int32_t ncols = r->B->ncols;
    VT acc[SPMM_WIDE];
    for (; j0 + SPMM_WIDE <= ncols; j0 += SPMM_WIDE)
        SF(spmm_block)(r, i, j0, SPMM_WIDE, acc), SF(spmm_store)(r, i, j0, SPMM_WIDE, acc);
    if (ncols - j0 >= 16) SF(spmm_block)(r, i, j0, 16, acc), SF(spmm_store)(r, i, j0, 16, acc), j0 += 16;
    if (ncols - j0 >= 8) SF(spmm_block)(r, i, j0, 8, acc), SF(spmm_store)(r, i, j0, 8, acc), j0 += 8;
    if (ncols - j0 >= 4) SF(spmm_block)(r, i, j0, 4, acc), SF(spmm_store)(r, i, j0, 4, acc), j0 += 4;
    if (ncols - j0 >= 2) SF(spmm_block)(r, i, j0, 2, acc), SF(spmm_store)(r, i, j0, 2, acc), j0 += 2;
    if (ncols - j0 == 1) SF(spmm_block)(r, i, j0, 1, acc), SF(spmm_store)(r, i, j0, 1, acc);
}

/* Rows first .. last - 1 of C (one column: spmm_rows_1): a whole slice of
 * ELLPACK-R at once for the first 4 or SPMM_LC columns of B of 4
 * to 2 SPMM_LC - 1 columns, other rows and columns one row at a time.
 * Wider B by slices, a block at a time, was no faster overall (README:
 * "Sparse times dense"). */
SPMM_CLONES static void SF(spmm_rows)(const spmm_run *r, int32_t first, int32_t last)
{
    int32_t ncols = r->B->ncols;
    int w = ncols >= SPMM_LC ? SPMM_LC : 4; /* a slice's columns */
    int slices = !r->A->rowptr && ncols >= 4 && ncols < 2 * SPMM_LC;
    if (ncols == 1) {
        SF(spmm_rows_1)(r, first, last);
        return;
    }
    for (int32_t i = first; i < last;) {
        if (slices && i % HSP_ELLR_SLICE == 0 && last - i >= HSP_ELLR_SLICE) {
            if (w == SPMM_LC) SF(spmm_slice)(r, i, SPMM_LC);
            else SF(spmm_slice4)(r, i);
            for (int32_t q = 0; ncols > w && q < HSP_ELLR_SLICE; q++) SF(spmm_row)(r, i + q, w);
            i += HSP_ELLR_SLICE;
        } else {
            SF(spmm_row)(r, i++, 0);
        }
    }
}
