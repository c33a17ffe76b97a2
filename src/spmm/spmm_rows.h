/* spmm_rows.h: rows of C = alpha A B + beta C in one precision and one
 * width of vector: values of type VT, VL of them a vector, functions named
 * SF(name), the entry points built for SPMM_TARGET.  spmm_widths.h includes
 * it once per precision, spmm.c that once per width. */

/* VL values of a row of B or C as one vector (GCC's vector extension, as
 * wide as the target's registers), at any value's alignment. */
typedef VT SF(vec) __attribute__((vector_size(VL * sizeof(VT)), aligned(sizeof(VT))));

/* Entry q of row e into its chain's m vectors of sums: a times B's row
 * col[q step], read from b (its rows bs apart); the row of B that the
 * entry SPMM_AHEAD on will read is fetched into cache meanwhile, where that
 * entry is within e's reach (0 where A's columns are near: spmm.c's
 * scattered_columns). */
static inline __attribute__((always_inline)) void SF(spmm_entry)(const spmm_entries *e, int64_t q, int64_t step,
                                                               const VT *b, int64_t bs, int m, SF(vec) *sum)
{
    if (q + SPMM_AHEAD < e->reach) __builtin_prefetch(b + e->col[(q + SPMM_AHEAD) * step] * bs);
    const SF(vec) *bp = (const SF(vec) *)(b + e->col[q * step] * bs);
    VT a = ((const VT *)e->val)[q * step];
#pragma GCC unroll 16
    for (int v = 0; v < m; v++) sum[v] += a * bp[v];
}

/* Row e's sums for VL m columns of row-major B from b (its rows bs apart)
 * into acc, its entries step apart (m, a power of two up to SPMM_WIDE / VL,
 * and step constants once inlined).  SPMM_CHAINS / m chains (at least one)
 * of m vectors of sums, entry q adding into chain q % chains, so that the
 * adds of consecutive entries do not wait for each other (doc/library.md,
 * "Sparse times dense"). */
static inline __attribute__((always_inline)) void SF(spmm_vecs)(const spmm_entries *e, int64_t step, const VT *b,
                                                              int64_t bs, int m, SF(vec) *restrict acc)
{
    const int chains = m < SPMM_CHAINS ? SPMM_CHAINS / m : 1;
    SF(vec) sum[SPMM_WIDE / VL > SPMM_CHAINS ? SPMM_WIDE / VL : SPMM_CHAINS];
    int64_t q = 0;
#pragma GCC unroll 16
    for (int k = 0; k < chains * m; k++) sum[k] = (SF(vec)){0}; /* element by element: kept in registers */
    if (e->n < chains) { /* a short row (most of a power-law matrix's): one chain, nothing to add up */
        for (; q < e->n; q++) SF(spmm_entry)(e, q, step, b, bs, m, sum);
#pragma GCC unroll 16
        for (int v = 0; v < m; v++) acc[v] = sum[v];
        return;
    }
    for (; q + chains <= e->n; q += chains)
#pragma GCC unroll 4
        for (int c = 0; c < chains; c++) SF(spmm_entry)(e, q + c, step, b, bs, m, sum + c * m);
#pragma GCC unroll 4
    for (int c = 0; c + 1 < chains; c++) /* the last n % chains entries, a chain each */
        if (q + c < e->n) SF(spmm_entry)(e, q + c, step, b, bs, m, sum + c * m);
#pragma GCC unroll 16
    for (int v = 0; v < m; v++) {
        acc[v] = sum[v];
#pragma GCC unroll 4
        for (int c = 1; c < chains; c++) acc[v] += sum[c * m + v];
    }
}

/* Row i's sums for columns j0 .. j0 + w - 1 of row-major B into acc, w at
 * most 4 (a constant once inlined: the count is fixed, acc stays in
 * registers). */
static inline __attribute__((always_inline)) void SF(spmm_block)(const spmm_run *r, int32_t i, int32_t j0, int w,
                                                               VT *restrict acc)
{
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = (const VT *)r->B->values + j0;
    int64_t step = hsp_ellr_step(r->A), end = hsp_ellr_end(r->A, i);
    VT sum[4] = {0};
    for (int64_t p = hsp_ellr_first(r->A, i); p < end; p += step) {
        const VT *bp = b + col[p] * r->b_step[0], a = av[p];
#pragma GCC unroll 8
        for (int k = 0; k < w; k++) sum[k] += a * bp[k];
    }
#pragma GCC unroll 8
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

/* The n vectors v into C from c, one after another: past the caches where
 * stream is set and they fill whole cache lines from a line's start (no
 * line read before it is written), else as any stores. */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(store_c)(VT *c, const SF(vec) *v, int n, int stream)
{
#ifdef SPMM_STREAM
    if (stream && !((uintptr_t)c & 63) && n * sizeof *v % 64 == 0) {
#pragma GCC unroll 8
        for (int k = 0; k < n; k++) SPMM_STREAM(c + k * VL, v[k]);
        return;
    }
#else
    (void)stream;
#endif
#pragma GCC unroll 8
    for (int k = 0; k < n; k++) *(SF(vec) *)(c + k * VL) = v[k];
}

/* VL x VL values, m[k] the k-th row, transposed in place for the copy of
 * column-major B: one stage a bit of the index, each swapping that bit of
 * the row's index with the column's, in shuffles of two rows
 * (SPMM_SWAP_BIT, d a constant: the shuffles' lanes must be). */
#if VL == 8
#define SPMM_LANES(f, d) f(0, d), f(1, d), f(2, d), f(3, d), f(4, d), f(5, d), f(6, d), f(7, d)
#elif VL == 4
#define SPMM_LANES(f, d) f(0, d), f(1, d), f(2, d), f(3, d)
#else
#define SPMM_LANES(f, d) f(0, d), f(1, d)
#endif
#define SPMM_LOW(e, d) ((e) & (d) ? VL + ((e) ^ (d)) : (e))   /* row k's value e from rows k, k | d */
#define SPMM_HIGH(e, d) ((e) & (d) ? VL + (e) : (e) | (d))    /* row k | d's */
#define SPMM_SWAP_BIT(m, d)                                                                   \
    _Pragma("GCC unroll 8") for (int k = 0; k < VL; k++)                                      \
        if (!(k & (d))) {                                                                     \
            SF(vec) x = m[k], y = m[k | (d)];                                                 \
            m[k] = __builtin_shufflevector(x, y, SPMM_LANES(SPMM_LOW, d));                    \
            m[k | (d)] = __builtin_shufflevector(x, y, SPMM_LANES(SPMM_HIGH, d));             \
        }

static inline __attribute__((always_inline)) void SF(transpose)(SF(vec) *m)
{
#if VL >= 8
    SPMM_SWAP_BIT(m, 4)
#endif
#if VL >= 4
    SPMM_SWAP_BIT(m, 2)
#endif
    SPMM_SWAP_BIT(m, 1)
}
#undef SPMM_LANES
#undef SPMM_LOW
#undef SPMM_HIGH
#undef SPMM_SWAP_BIT

/* Rows first .. last - 1 of c's column-major B (rows 1 apart, columns
 * c->ld) into its row-major T of B's columns a row: SPMM_COPY_ROWS rows at
 * a time, each VL columns' runs of them read in order while the block's
 * rows of T stay in cache, VL x VL values transposed at once (the last rows
 * and columns a value at a time). */
SPMM_TARGET static void SF(spmm_copy_rows)(const row_copy *c, int32_t first, int32_t last)
{
    const VT *b = c->B->values;
    VT *restrict t = c->T->values;
    int64_t ld = c->ld, ncols = c->B->ncols;
    for (int32_t i0 = first; i0 < last; i0 += SPMM_COPY_ROWS) {
        int32_t i1 = last - i0 < SPMM_COPY_ROWS ? last : i0 + SPMM_COPY_ROWS, j = 0, i;
        for (; j + VL <= ncols; j += VL) {
            for (i = i0; i + VL <= i1; i += VL) {
                SF(vec) m[VL];
#pragma GCC unroll 8
                for (int k = 0; k < VL; k++) m[k] = *(const SF(vec) *)(b + (j + k) * ld + i);
                SF(transpose)(m);
#pragma GCC unroll 8
                for (int k = 0; k < VL; k++) *(SF(vec) *)(t + (i + k) * ncols + j) = m[k];
            }
            for (; i < i1; i++)
                for (int k = 0; k < VL; k++) t[i * ncols + j + k] = b[(j + k) * ld + i];
        }
        for (; j < ncols; j++)
            for (i = i0; i < i1; i++) t[i * ncols + j] = b[j * ld + i];
    }
}

/* A's rows first .. last - 1 where B has one column: a sum a row, row i
 * C's row order[i] (order NULL: row i; a constant once inlined, so that
 * A's own order costs nothing). */
static inline __attribute__((always_inline)) void SF(spmm_rows_1_of)(const spmm_run *r, int32_t first, int32_t last,
                                                                   const int32_t *order)
{
    const int32_t *col = r->A->col;
    const VT *av = r->A->val, *b = r->B->values;
    int64_t bs = r->b_step[0], step = hsp_ellr_step(r->A);
    for (int32_t i = first; i < last; i++) {
        VT sum = 0;
        for (int64_t p = hsp_ellr_first(r->A, i), end = hsp_ellr_end(r->A, i); p < end; p += step)
            sum += av[p] * b[col[p] * bs];
        SF(spmm_store)(r, order ? order[i] : i, 0, 1, &sum);
    }
}

static void SF(spmm_rows_1)(const spmm_run *r, int32_t first, int32_t last)
{
    if (r->A->order) SF(spmm_rows_1_of)(r, first, last, r->A->order);
    else SF(spmm_rows_1_of)(r, first, last, NULL);
}

/* A row's n entries of r's A from first, as the row kernels read them: B's
 * rows may be fetched ahead (where r does) up to A's end in CSR (the rows
 * after it too), to the row's end in ELLPACK-R. */
static inline __attribute__((always_inline)) spmm_entries SF(row_entries)(const spmm_run *r, int64_t first, int64_t n)
{
    int64_t reach = !r->ahead ? 0 : r->A->rowptr ? r->A->nnz - first : n;
    return (spmm_entries){r->A->col + first, (const VT *)r->A->val + first, n, reach};
}

/* Row i's sums for w columns from j0 of row-major B into acc, its entries
 * step apart (w and step constants once inlined: from VL columns up as
 * vectors, fewer one by one). */
static inline __attribute__((always_inline)) void SF(spmm_sums)(const spmm_run *r, int32_t i, int32_t j0, int w,
                                                              int64_t step, VT *restrict acc)
{
    spmm_entries e = SF(row_entries)(r, hsp_ellr_first(r->A, i), hsp_ellr_count(r->A, i));
    SF(vec) v[SPMM_WIDE / VL];
    if (w < VL) {
        SF(spmm_block)(r, i, j0, w, acc);
        return;
    }
    SF(spmm_vecs)(&e, step, (const VT *)r->B->values + j0, r->b_step[0], w / VL, v);
    memcpy(acc, v, (size_t)w * sizeof *acc);
}

/* A's rows first .. last - 1 where B has w columns (8, 16 or 32: one pass,
 * a constant once inlined), A in CSR, C row-major, row i C's row order[i]
 * (order NULL: row i; a constant too): the operands read from
 * r once for the run of rows, not a row at a time beside the passes of
 * other widths (15-20% faster at L = 8: doc/performance.md, "Figures
 * behind the code"). */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(spmm_rows_vecs)(const spmm_run *r, int32_t first,
                                                                               int32_t last, int w,
                                                                               const int32_t *order)
{
    const int64_t *rowptr = r->A->rowptr;
    const VT *b = r->B->values;
    VT *c = r->C->values, alpha = (VT)r->alpha, beta = (VT)r->beta;
    int64_t bs = r->b_step[0], cs = r->c_step[0];
    for (int32_t i = first; i < last; i++) {
        spmm_entries e = SF(row_entries)(r, rowptr[i], rowptr[i + 1] - rowptr[i]);
        SF(vec) sum[SPMM_WIDE / VL], *ci = (SF(vec) *)(c + (order ? order[i] : i) * cs);
        SF(spmm_vecs)(&e, 1, b, bs, w / VL, sum);
#pragma GCC unroll 16
        for (int v = 0; v < w / VL; v++) sum[v] = beta == 0 ? alpha * sum[v] : alpha * sum[v] + beta * ci[v];
        SF(store_c)((VT *)ci, sum, w / VL, r->stream && beta == 0);
    }
}

/* Columns k .. k + VL - 1 of column-major C's tile of HSP_ELLR_SLICE rows
 * at c (its columns ld apart) from the sums acc, beta 0: each VL x VL
 * block transposed in registers, then a column's values stored one vector
 * after another (8 doubles: a cache line). */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(store_columns)(const spmm_run *r, VT *c, int64_t ld,
                                                                              VT acc[][SPMM_WIDE], int k)
{
    enum { blocks = HSP_ELLR_SLICE / VL };
    SF(vec) m[blocks][VL], col[blocks];
#pragma GCC unroll 8
    for (int b = 0; b < blocks; b++) {
#pragma GCC unroll 8
        for (int q = 0; q < VL; q++) m[b][q] = *(const SF(vec) *)(acc[b * VL + q] + k);
        SF(transpose)(m[b]);
    }
#pragma GCC unroll 8
    for (int q = 0; q < VL; q++) {
#pragma GCC unroll 8
        for (int b = 0; b < blocks; b++) col[b] = (VT)r->alpha * m[b][q];
        SF(store_c)(c + q * ld, col, blocks, r->stream);
    }
}

/* Columns j0 .. j0 + w - 1 of C's rows i0 .. i0 + h - 1 from the sums acc
 * (column-major C: each column's h values written together, a cache line
 * where h is 8, where a row at a time wrote w lines a value each); where h
 * is 8 and beta 0, VL columns at a time by store_columns (on an AMD EPYC,
 * Zen 4, poisson3d7:60 at L = 32 17.3 -> 14.6 ms: doc/performance.md). */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(spmm_store_tile)(const spmm_run *r, int32_t i0,
                                                                                int h, int32_t j0, int w,
                                                                                VT acc[][SPMM_WIDE])
{
    int64_t ld = r->c_step[1];
    VT *c = (VT *)r->C->values + i0 + j0 * ld, alpha = (VT)r->alpha, beta = (VT)r->beta;
    int k = 0;
    if (h == HSP_ELLR_SLICE && beta == 0)
        for (; k + VL <= w; k += VL, c += VL * ld) SF(store_columns)(r, c, ld, acc, k);
    for (; k < w; k++, c += ld)
        if (beta == 0)
            for (int q = 0; q < h; q++) c[q] = alpha * acc[q][k];
        else
            for (int q = 0; q < h; q++) c[q] = alpha * acc[q][k] + beta * c[q];
}

/* Columns j0 .. j0 + w - 1 of the rows of C that A's rows i0 .. i0 + h - 1
 * make (h 1: C's row c0; or up to HSP_ELLR_SLICE of column-major C, rows
 * i0 on), their entries step apart (w and step constants once inlined). */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(spmm_pass)(const spmm_run *r, int32_t i0, int h,
                                                                          int32_t j0, int w, int64_t step, int32_t c0)
{
    if (h == 1) {
        VT sums[SPMM_WIDE];
        SF(spmm_sums)(r, i0, j0, w, step, sums);
        SF(spmm_store)(r, c0, j0, w, sums);
        return;
    }
    VT acc[HSP_ELLR_SLICE][SPMM_WIDE];
    for (int q = 0; q < h; q++) SF(spmm_sums)(r, i0 + q, j0, w, step, acc[q]);
    SF(spmm_store_tile)(r, i0, h, j0, w, acc);
}

/* The rows of C that A's rows i0 .. i0 + h - 1 make (spmm_pass: c0 where h
 * is 1; B row-major: spmm.c copies column-major B first), their entries
 * step apart (a constant once inlined): SPMM_WIDE
 * columns at a time, the last ones 16, 8, 4, 2, then 1 at a time (each a
 * constant, so that the sums stay in vector registers): each pass reads
 * A's row once for that many columns of B. */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(spmm_row)(const spmm_run *r, int32_t i0, int h,
                                                                         int64_t step, int32_t c0)
{
    int32_t j0 = 0, ncols = r->B->ncols;
    for (; j0 + SPMM_WIDE <= ncols; j0 += SPMM_WIDE) SF(spmm_pass)(r, i0, h, j0, SPMM_WIDE, step, c0);
    if (ncols - j0 >= 16) SF(spmm_pass)(r, i0, h, j0, 16, step, c0), j0 += 16;
    if (ncols - j0 >= 8) SF(spmm_pass)(r, i0, h, j0, 8, step, c0), j0 += 8;
    if (ncols - j0 >= 4) SF(spmm_pass)(r, i0, h, j0, 4, step, c0), j0 += 4;
    if (ncols - j0 >= 2) SF(spmm_pass)(r, i0, h, j0, 2, step, c0), j0 += 2;
    if (ncols - j0 == 1) SF(spmm_pass)(r, i0, h, j0, 1, step, c0);
}

/* Rows first .. last - 1 of column-major C of two columns or more,
 * HSP_ELLR_SLICE at a time (a function of its own: inlined beside the rows
 * of row-major C it made those slower). */
SPMM_TARGET static void SF(spmm_rows_tiled)(const spmm_run *r, int32_t first, int32_t last)
{
    const int h = HSP_ELLR_SLICE;
    int32_t lead = (r->phase - first % h + h) % h; /* rows before the first tile that begins C's lines */
    if (r->A->rowptr) /* one call of spmm_row: each is a large inlined body */
        for (int32_t i = first, next = first + (lead ? lead : h); i < last; i = next, next += h)
            SF(spmm_row)(r, i, (next < last ? next : last) - i, 1, i);
    else
        for (int32_t i = first; i < last; i += h) SF(spmm_row)(r, i, last - i < h ? last - i : h, HSP_ELLR_SLICE, i);
}

/* A's rows first .. last - 1 in CSR, C row-major, row i C's row order[i]
 * (order NULL: row i; a constant once inlined), a row at a time. */
SPMM_TARGET static inline __attribute__((always_inline)) void SF(spmm_rows_csr)(const spmm_run *r, int32_t first,
                                                                              int32_t last, const int32_t *order)
{
    if (r->B->ncols == 8) SF(spmm_rows_vecs)(r, first, last, 8, order);
    else if (r->B->ncols == 16) SF(spmm_rows_vecs)(r, first, last, 16, order);
    else if (r->B->ncols == SPMM_WIDE) SF(spmm_rows_vecs)(r, first, last, SPMM_WIDE, order);
    else
        for (int32_t i = first; i < last; i++) SF(spmm_row)(r, i, 1, 1, order ? order[i] : i);
}

/* Rows first .. last - 1 of C (one column: spmm_rows_1; column-major C:
 * spmm_rows_tiled), a row at a time, their entries one apart (CSR, its
 * rows maybe by length: spmm.c's cpu_form) or HSP_ELLR_SLICE (ELLPACK-R,
 * which the CPU threads read only beside a device that prepared it:
 * spmm.c's split). */
SPMM_TARGET static void SF(spmm_rows)(const spmm_run *r, int32_t first, int32_t last)
{
    if (r->B->ncols == 1) SF(spmm_rows_1)(r, first, last);
    else if (r->c_step[1] != 1) SF(spmm_rows_tiled)(r, first, last);
    else if (r->A->order) SF(spmm_rows_csr)(r, first, last, r->A->order);
    else if (r->A->rowptr) SF(spmm_rows_csr)(r, first, last, NULL);
    else
        for (int32_t i = first; i < last; i++) SF(spmm_row)(r, i, 1, HSP_ELLR_SLICE, i);
#ifdef SPMM_X86
    if (r->stream) _mm_sfence(); /* the lines stored past the caches are C's before the pool's wait ends */
#endif
}

/* This precision's and width's kernels (spmm.c: spmm_kernels). */
static const spmm_kernels SF(kernels) = {SF(spmm_rows), SF(spmm_copy_rows)};
