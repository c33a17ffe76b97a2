/* triplets.c: building a valid CSR matrix from triplets in any order. */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"

static int compare_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Sort keys (column << 32 | position in row); insertion sort for short rows. */
static void sort_keys(uint64_t *key, int64_t n)
{
    if (n > 32) {
        qsort(key, (size_t)n, sizeof *key, compare_u64);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        uint64_t k = key[i];
        int64_t j = i;
        for (; j > 0 && key[j - 1] > k; j--) key[j] = key[j - 1];
        key[j] = k;
    }
}

static hsp_status check_triplets(int32_t nrows, int32_t ncols, int64_t nnz,
                                 const int32_t *rows, const int32_t *cols)
{
    if (nrows < 0 || ncols < 0 || nnz < 0)
        return hsp_fail(HSP_ERR_ARG, "triplets: negative size %d x %d, nnz %lld", nrows,
                        ncols, (long long)nnz);
    if (nnz > 0 && (!rows || !cols))
        return hsp_fail(HSP_ERR_ARG, "triplets: rows or cols is NULL");
    for (int64_t k = 0; k < nnz; k++)
        if (rows[k] < 0 || rows[k] >= nrows || cols[k] < 0 || cols[k] >= ncols)
            return hsp_fail(HSP_ERR_ARG, "triplet %lld: (%d, %d) outside %d x %d",
                            (long long)k, rows[k], cols[k], nrows, ncols);
    return HSP_OK;
}

/* Row counts into rowptr, then a stable bucket of triplet numbers by row;
 * rowptr itself is the cursor of each row's bucket, shifted back after. */
static int64_t *bucket_by_row(int32_t nrows, int64_t nnz, const int32_t *rows,
                              int64_t *rowptr)
{
    int64_t *order = malloc((size_t)(nnz ? nnz : 1) * sizeof *order);
    if (!order) return NULL;
    memset(rowptr, 0, ((size_t)nrows + 1) * sizeof *rowptr);
    for (int64_t k = 0; k < nnz; k++) rowptr[rows[k] + 1]++;
    for (int32_t i = 0; i < nrows; i++) rowptr[i + 1] += rowptr[i];
    for (int64_t k = 0; k < nnz; k++) order[rowptr[rows[k]]++] = k; /* rowptr[i]: the end of row i */
    for (int32_t i = nrows; i > 0; i--) rowptr[i] = rowptr[i - 1];
    rowptr[0] = 0;
    return order;
}

/* Value k of the triplets' values (typed by precision; NULL: all ones). */
static double triplet_value(const void *values, hsp_precision precision, int64_t k)
{
    return !values ? 1.0 : precision == HSP_DOUBLE ? ((const double *)values)[k] : ((const float *)values)[k];
}

/* The CSR of the triplets, their values in in_precision, the matrix in
 * out_precision; duplicates are summed in double and rounded once. */
static hsp_status from_triplets(int32_t nrows, int32_t ncols, int64_t nnz, const int32_t *rows, const int32_t *cols,
                                const void *values, hsp_precision in_precision, hsp_precision out_precision,
                                hsp_csr **out)
{
    if (!out) return hsp_fail(HSP_ERR_ARG, "triplets: out is NULL");
    *out = NULL;
    hsp_status s = check_triplets(nrows, ncols, nnz, rows, cols);
    if (s != HSP_OK) return s;
    hsp_csr *A;
    if ((s = hsp_csr_create(nrows, ncols, nnz, out_precision, &A)) != HSP_OK) return s;
    int64_t *order = bucket_by_row(nrows, nnz, rows, A->rowptr);
    uint64_t *key = NULL;
    int64_t longest = 0;
    for (int32_t i = 0; order && i < nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > longest) longest = A->rowptr[i + 1] - A->rowptr[i];
    if (longest > UINT32_MAX) {
        free(order), hsp_csr_free(A);
        return hsp_fail(HSP_ERR_OVERFLOW, "triplets: a row has over 2^32 entries");
    }
    if (order) key = malloc((size_t)(longest ? longest : 1) * sizeof *key);
    if (!order || !key) {
        free(order), free(key), hsp_csr_free(A);
        return hsp_fail(HSP_ERR_NOMEM, "triplets: no memory to sort %lld entries",
                        (long long)nnz);
    }
    int64_t out_nnz = 0;
    for (int32_t i = 0; i < nrows; i++) {
        int64_t begin = A->rowptr[i], len = A->rowptr[i + 1] - begin;
        for (int64_t t = 0; t < len; t++)
            key[t] = (uint64_t)cols[order[begin + t]] << 32 | (uint64_t)t;
        sort_keys(key, len);
        A->rowptr[i] = out_nnz;
        double sum = 0;
        for (int64_t t = 0; t < len; t++) {
            int32_t j = (int32_t)(key[t] >> 32);
            double v = triplet_value(values, in_precision, order[begin + (int64_t)(key[t] & 0xffffffffu)]);
            if (out_nnz > A->rowptr[i] && A->colidx[out_nnz - 1] == j) sum += v; /* a duplicate */
            else sum = v, A->colidx[out_nnz++] = j;
            if (t + 1 == len || (int32_t)(key[t + 1] >> 32) != j) hsp_csr_set_value(A, out_nnz - 1, sum);
        }
    }
    A->rowptr[nrows] = A->nnz = out_nnz;
    free(order), free(key);
    *out = A;
    return HSP_OK;
}

hsp_status hsp_csr_from_triplets(int32_t nrows, int32_t ncols, int64_t nnz,
                                 const int32_t *rows, const int32_t *cols,
                                 const void *values, hsp_precision precision,
                                 hsp_csr **out)
{
    return from_triplets(nrows, ncols, nnz, rows, cols, values, precision, precision, out);
}

hsp_status hsp_csr_from_double_triplets(int32_t nrows, int32_t ncols, int64_t nnz,
                                        const int32_t *rows, const int32_t *cols,
                                        const double *values, hsp_precision precision,
                                        hsp_csr **out)
{
    return from_triplets(nrows, ncols, nnz, rows, cols, values, HSP_DOUBLE, precision, out);
}
