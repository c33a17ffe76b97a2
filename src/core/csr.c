/* csr.c: creating, freeing, checking and converting CSR matrices, dropping their zeros, and the error of a row without its diagonal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "core/pool.h"

hsp_status hsp_csr_create(int32_t nrows, int32_t ncols, int64_t nnz,
                          hsp_precision precision, hsp_csr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_csr_create: out is NULL");
    *out = NULL;
    if (nrows < 0 || ncols < 0 || nnz < 0)
        return hsp_fail(HSP_ERR_ARG, "hsp_csr_create: negative size %d x %d, nnz %lld",
                        nrows, ncols, (long long)nnz);
    if (precision != HSP_FLOAT && precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_ARG, "hsp_csr_create: unknown precision %d", (int)precision);
    if ((uint64_t)nnz > SIZE_MAX / sizeof(double))
        return hsp_fail(HSP_ERR_OVERFLOW, "hsp_csr_create: %lld entries do not fit in memory",
                        (long long)nnz);
    hsp_csr *A = calloc(1, sizeof *A);
    if (!A) return hsp_fail(HSP_ERR_NOMEM, "hsp_csr_create: no memory for the header");
    A->nrows = nrows, A->ncols = ncols, A->nnz = nnz, A->precision = precision;
    A->rowptr = calloc((size_t)nrows + 1, sizeof *A->rowptr);
    A->colidx = hsp_alloc((size_t)nnz * sizeof *A->colidx);
    A->values = hsp_alloc((size_t)nnz * hsp_value_size(precision));
    if (!A->rowptr || !A->colidx || !A->values) {
        hsp_csr_free(A);
        double gib = (((double)nrows + 1) * 8 + (double)nnz * (4.0 + (double)hsp_value_size(precision))) / (1 << 30);
        return hsp_fail(HSP_ERR_NOMEM, "hsp_csr_create: no memory for a %d x %d matrix of %lld entries (%.2f GiB)",
                        nrows, ncols, (long long)nnz, gib);
    }
    A->rowptr[nrows] = nnz;
    *out = A;
    return HSP_OK;
}

void hsp_csr_free(hsp_csr *A)
{
    if (!A) return;
    free(A->rowptr);
    hsp_free_large(A->colidx);
    hsp_free_large(A->values);
    free(A);
}

double hsp_csr_value(const hsp_csr *A, int64_t k)
{
    if (!A || !A->values || k < 0 || k >= A->nnz) {
        if (A) hsp_fail(HSP_ERR_ARG, "hsp_csr_value: entry %lld of %lld", (long long)k, (long long)A->nnz);
        else hsp_fail(HSP_ERR_ARG, "hsp_csr_value: A is NULL");
        return NAN;
    }
    return A->precision == HSP_DOUBLE ? ((const double *)A->values)[k]
                                      : (double)((const float *)A->values)[k];
}

void hsp_csr_set_value(hsp_csr *A, int64_t k, double v)
{
    if (A->precision == HSP_DOUBLE) ((double *)A->values)[k] = v;
    else ((float *)A->values)[k] = (float)v;
}

hsp_status hsp_csr_check_header(const hsp_csr *A)
{
    if (!A) return hsp_fail(HSP_ERR_ARG, "matrix is NULL");
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
        return hsp_fail(HSP_ERR_INVALID_CSR, "negative size %d x %d, nnz %lld", A->nrows,
                        A->ncols, (long long)A->nnz);
    if (A->precision != HSP_FLOAT && A->precision != HSP_DOUBLE)
        return hsp_fail(HSP_ERR_INVALID_CSR, "unknown precision %d", (int)A->precision);
    if (!A->rowptr || (A->nnz > 0 && (!A->colidx || !A->values)))
        return hsp_fail(HSP_ERR_INVALID_CSR, "missing rowptr, colidx or values array");
    if (A->rowptr[0] != 0)
        return hsp_fail(HSP_ERR_INVALID_CSR, "rowptr[0] is %lld, not 0",
                        (long long)A->rowptr[0]);
    if (A->rowptr[A->nrows] != A->nnz)
        return hsp_fail(HSP_ERR_INVALID_CSR, "rowptr[%d] is %lld, not nnz %lld", A->nrows,
                        (long long)A->rowptr[A->nrows], (long long)A->nnz);
    return HSP_OK;
}

/* Are the n columns at c not strictly increasing within [0, ncols)?  Only
 * the ends need a range check when the rest increase; the loop vectorizes. */
static int row_bad(const int32_t *c, int64_t n, int32_t ncols)
{
    int bad = n > 0 && (c[0] < 0 || c[n - 1] >= ncols);
    for (int64_t p = 1; p < n; p++) bad |= c[p] <= c[p - 1];
    return bad;
}

/* The first fault of row i, which row_bad found, as the error. */
static hsp_status row_error(const hsp_csr *A, int32_t i)
{
    int64_t begin = A->rowptr[i], end = A->rowptr[i + 1];
    for (int64_t p = begin; p < end; p++) {
        int32_t j = A->colidx[p];
        if (j < 0 || j >= A->ncols)
            return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: column %d out of range [0, %d)",
                            i, j, A->ncols);
        if (p > begin && j == A->colidx[p - 1])
            return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: duplicate column %d", i, j);
        if (p > begin && j < A->colidx[p - 1])
            return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: column %d after column %d (unsorted)",
                            i, j, A->colidx[p - 1]);
    }
    return HSP_OK;
}

/* Do row i's pointers lie in order within A's entries? */
static hsp_status check_span(const hsp_csr *A, int32_t i)
{
    int64_t begin = A->rowptr[i], end = A->rowptr[i + 1];
    if (begin < 0 || end < begin || end > A->nnz)
        return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: row pointers %lld..%lld are not monotone within nnz %lld",
                        i, (long long)begin, (long long)end, (long long)A->nnz);
    return HSP_OK;
}

enum { PASS_BLOCK = 1 << 16 }; /* entries counted in 32 bits at a time */

/* Over entries begin .. end - 1 of c: the columns out of [0, ncols) (bad) and the descents, a
 * column not above the one before it (counted from begin + 1); a loop the compiler vectorizes. */
__attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic"))) static int64_t
descents_of(const int32_t *c, int64_t begin, int64_t end, uint32_t ncols, int32_t *bad)
{
    int64_t descents = 0;
    int32_t out = (uint32_t)c[begin] >= ncols;
    for (int64_t b = begin + 1; b < end; b += PASS_BLOCK) {
        int32_t count = 0, stop = (int32_t)(end - b < PASS_BLOCK ? end - b : PASS_BLOCK);
        const int32_t *at = c + b;
        for (int32_t p = 0; p < stop; p++) out |= (uint32_t)at[p] >= ncols, count += at[p] <= at[p - 1];
        descents += count;
    }
    *bad |= out;
    return descents;
}

/* Do rows first .. last - 1 pass the checks, taken over their run of entries at once rather than
 * row by row: row pointers never decreasing within A's entries, every column in [0, ncols), and
 * every descent at the first entry of a row.  No branch an entry: the SpMM of a 5-entry stencil
 * spent a quarter of its time in the checks row by row (doc/performance.md).  Where it says no
 * (or the run has fewer than two entries), hsp_csr_check_rows reads the rows one by one. */
static int rows_pass(const hsp_csr *A, int32_t first, int32_t last)
{
    const int64_t *rp = A->rowptr;
    const int32_t *c = A->colidx;
    int64_t begin = rp[first], end = rp[last], starts = 0;
    if (begin < 0 || end > A->nnz || end - begin < 2) return 0; /* a descent needs two: row by row */
    int32_t bad = 0;
    int64_t descents = descents_of(c, begin, end, (uint32_t)A->ncols, &bad);
    for (int32_t i = first; i < last; i++) { /* k: row i's first entry, kept in the run where it is not */
        int64_t at = rp[i], k = at <= begin ? begin + 1 : at >= end ? end - 1 : at;
        bad |= rp[i + 1] < at;
        starts += (at > begin) & (at < rp[i + 1]) & (c[k] <= c[k - 1]);
    }
    return !bad && descents == starts;
}

/* Rows first .. last - 1 checked one by one: the first fault found is the error. */
static hsp_status rows_one_by_one(const hsp_csr *A, int32_t first, int32_t last)
{
    for (int32_t i = first; i < last; i++) {
        int64_t begin = A->rowptr[i], end = A->rowptr[i + 1];
        if (check_span(A, i) != HSP_OK) return HSP_ERR_INVALID_CSR;
        if (row_bad(A->colidx + begin, end - begin, A->ncols)) return row_error(A, i);
    }
    return HSP_OK;
}

hsp_status hsp_csr_check_rows(const hsp_csr *A, int32_t first, int32_t last)
{
    return rows_pass(A, first, last) ? HSP_OK : rows_one_by_one(A, first, last);
}

enum { CHECK_PARTS = 16, CHECK_MSG = 512 };

/* A's rows checked in parts on a pool: each part's status and message. */
typedef struct {
    const hsp_csr *A;
    hsp_status status[CHECK_PARTS];
    char msg[CHECK_PARTS][CHECK_MSG];
} check_run;

/* Part c of A's rows checked. */
static void check_part(void *arg, int tid, int64_t c)
{
    check_run *r = arg;
    int64_t n = r->A->nrows;
    (void)tid;
    r->status[c] = hsp_csr_check_rows(r->A, (int32_t)(n * c / CHECK_PARTS), (int32_t)(n * (c + 1) / CHECK_PARTS));
    if (r->status[c] != HSP_OK) snprintf(r->msg[c], CHECK_MSG, "%s", hsp_errmsg());
}

hsp_status hsp_csr_check_rows_pooled(struct hsp_pool *pool, const hsp_csr *A)
{
    check_run *r = malloc(sizeof *r);
    hsp_status s = HSP_OK;
    if (!r) return hsp_fail(HSP_ERR_NOMEM, "no memory to check a matrix");
    r->A = A;
    hsp_pool_chunks(pool, CHECK_PARTS, check_part, r);
    for (int c = 0; c < CHECK_PARTS && s == HSP_OK; c++)
        if ((s = r->status[c]) != HSP_OK) hsp_fail(s, "%s", r->msg[c]);
    free(r);
    return s;
}

/* Row i of A, not sorted, checked entry by entry: columns in range and,
 * unless duplicates_ok, each once (seen[j] == i + 1 marks column j seen in
 * row i). */
static hsp_status check_row_any_order(const hsp_csr *A, int32_t i, int duplicates_ok, int32_t *seen)
{
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
        int32_t j = A->colidx[p];
        if (j < 0 || j >= A->ncols)
            return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: column %d out of range [0, %d)", i, j, A->ncols);
        if (!duplicates_ok && seen[j] == i + 1)
            return hsp_fail(HSP_ERR_INVALID_CSR, "row %d: duplicate column %d", i, j);
        if (!duplicates_ok) seen[j] = i + 1;
    }
    return HSP_OK;
}

hsp_status hsp_csr_check_unordered(const hsp_csr *A, int duplicates_ok)
{
    hsp_status s = hsp_csr_check_header(A);
    int32_t *seen = NULL;
    for (int32_t i = 0; s == HSP_OK && i < A->nrows; i++) {
        int64_t begin = A->rowptr[i], end = A->rowptr[i + 1];
        if ((s = check_span(A, i)) != HSP_OK || !row_bad(A->colidx + begin, end - begin, A->ncols)) continue;
        if (!seen && !(seen = calloc((size_t)A->ncols + 1, sizeof *seen)))
            s = hsp_fail(HSP_ERR_NOMEM, "no memory to check a matrix of %d columns", A->ncols);
        else s = check_row_any_order(A, i, duplicates_ok, seen);
    }
    free(seen);
    return s;
}

hsp_status hsp_csr_check(const hsp_csr *A)
{
    hsp_status s = hsp_csr_check_header(A);
    return s != HSP_OK ? s : hsp_csr_check_rows(A, 0, A->nrows);
}

hsp_status hsp_csr_convert(const hsp_csr *A, hsp_precision precision, hsp_csr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "hsp_csr_convert: out is NULL");
    *out = NULL;
    hsp_status s = hsp_csr_check_unordered(A, 0);
    if (s != HSP_OK) return s;
    hsp_csr *B;
    s = hsp_csr_create(A->nrows, A->ncols, A->nnz, precision, &B);
    if (s != HSP_OK) return s;
    memcpy(B->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *A->rowptr);
    memcpy(B->colidx, A->colidx, (size_t)A->nnz * sizeof *A->colidx);
    if (precision == A->precision)
        memcpy(B->values, A->values, (size_t)A->nnz * hsp_value_size(precision));
    else if (precision == HSP_DOUBLE)
        for (int64_t k = 0; k < A->nnz; k++)
            ((double *)B->values)[k] = ((const float *)A->values)[k];
    else
        for (int64_t k = 0; k < A->nnz; k++)
            ((float *)B->values)[k] = (float)((const double *)A->values)[k];
    *out = B;
    return HSP_OK;
}

/* The entries of C whose value is not 0, moved to the front of its arrays;
 * returns how many, the row pointers following.  Nothing moves before the
 * first zero (most products have none: one read of the values).  One loop
 * per precision. */
#define KEEP_NONZEROS(VT, name)                                                              \
    static int64_t name(hsp_csr *C)                                                          \
    {                                                                                        \
        VT *v = C->values;                                                                   \
        int64_t kept = 0;                                                                    \
        while (kept < C->nnz && v[kept] != 0) kept++;                                        \
        int32_t i = 0;                                                                       \
        while (i < C->nrows && C->rowptr[i + 1] <= kept) i++;                                \
        for (int64_t begin = kept; i < C->nrows; i++) {                                      \
            int64_t end = C->rowptr[i + 1];                                                  \
            for (int64_t k = begin; k < end; k++)                                            \
                if (v[k] != 0) C->colidx[kept] = C->colidx[k], v[kept++] = v[k];             \
            begin = end, C->rowptr[i + 1] = kept;                                            \
        }                                                                                    \
        return kept;                                                                         \
    }
KEEP_NONZEROS(float, keep_nonzeros_f)
KEEP_NONZEROS(double, keep_nonzeros_d)

void hsp_csr_drop_zeros(hsp_csr *C, hsp_stats *stats)
{
    C->nnz = C->precision == HSP_DOUBLE ? keep_nonzeros_d(C) : keep_nonzeros_f(C);
    if (stats) stats->nnz_c = C->nnz;
}

void hsp_csr_set_ones(hsp_csr *C)
{
    for (int64_t k = 0; k < C->nnz; k++) hsp_csr_set_value(C, k, 1);
}

hsp_status hsp_fail_diagonal(int32_t row)
{
    return hsp_fail(HSP_ERR_ARG, "row %d of A has no nonzero diagonal entry: smoothed aggregation needs one in "
                    "every row", row);
}
