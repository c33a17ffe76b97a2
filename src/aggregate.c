/* aggregate.c: the CPU side of smoothed aggregation: strength of
 * connection, greedy aggregation in three passes (Vanek, Mandel and Brezina),
 * and the tentative prolongator.  Serial and linear in nnz(A). */
#include <math.h>
#include <stdlib.h>
#include "aggregate.h"
#include "internal.h"

hsp_status hsp_fail_diagonal(int32_t row)
{
    return hsp_fail(HSP_ERR_ARG, "row %d of A has no nonzero diagonal entry: smoothed aggregation needs one in "
                    "every row", row);
}

hsp_status hsp_diagonal(const hsp_csr *A, int64_t *where)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        int64_t lo = A->rowptr[i], hi = A->rowptr[i + 1];
        while (lo < hi) { /* the first column >= i */
            int64_t mid = lo + (hi - lo) / 2;
            if (A->colidx[mid] < i) lo = mid + 1;
            else hi = mid;
        }
        if (lo == A->rowptr[i + 1] || A->colidx[lo] != i || hsp_csr_value(A, lo) == 0)
            return hsp_fail_diagonal(i);
        where[i] = lo;
    }
    return HSP_OK;
}

/* Is entry k of row i, column j, a strong connection? */
static int strong(const hsp_csr *A, const int64_t *diag, double theta, int32_t i, int64_t k)
{
    int32_t j = A->colidx[k];
    if (j == i) return 0;
    double d = fabs(hsp_csr_value(A, diag[i]) * hsp_csr_value(A, diag[j]));
    return fabs(hsp_csr_value(A, k)) > theta * sqrt(d);
}

/* Pass 1: a node whose strong neighbours are all free becomes an aggregate
 * with them (a node with none, alone). */
static void pass_roots(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *n)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        int free_all = agg[i] < 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && free_all; k++)
            free_all = !strong(A, diag, theta, i, k) || agg[A->colidx[k]] < 0;
        if (!free_all) continue;
        agg[i] = *n;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (strong(A, diag, theta, i, k)) agg[A->colidx[k]] = *n;
        ++*n;
    }
}

/* Pass 2: a free node joins the aggregate of pass 1 it is most strongly
 * connected to (first[] holds the aggregates after pass 1). */
static void pass_join(const hsp_csr *A, const int64_t *diag, double theta, const int32_t *first, int32_t *agg)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        double best = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && first[i] < 0; k++)
            if (strong(A, diag, theta, i, k) && first[A->colidx[k]] >= 0 && fabs(hsp_csr_value(A, k)) > best)
                best = fabs(hsp_csr_value(A, k)), agg[i] = first[A->colidx[k]];
    }
}

/* Pass 3: a node still free starts an aggregate with its free strong
 * neighbours. */
static void pass_rest(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *n)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        if (agg[i] >= 0) continue;
        agg[i] = *n;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (strong(A, diag, theta, i, k) && agg[A->colidx[k]] < 0) agg[A->colidx[k]] = *n;
        ++*n;
    }
}

hsp_status hsp_aggregate(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *naggregates)
{
    int32_t *first = malloc(((size_t)A->nrows + 1) * sizeof *first);
    if (!first) return hsp_fail(HSP_ERR_NOMEM, "no memory to aggregate %d rows", A->nrows);
    *naggregates = 0;
    for (int32_t i = 0; i < A->nrows; i++) agg[i] = -1;
    pass_roots(A, diag, theta, agg, naggregates);
    for (int32_t i = 0; i < A->nrows; i++) first[i] = agg[i];
    pass_join(A, diag, theta, first, agg);
    pass_rest(A, diag, theta, agg, naggregates);
    free(first);
    return HSP_OK;
}

hsp_status hsp_tentative(const int32_t *agg, int32_t n, int32_t naggregates, hsp_precision precision, hsp_csr **T)
{
    int32_t *size = calloc((size_t)naggregates + 1, sizeof *size);
    hsp_status s = size ? hsp_csr_create(n, naggregates, n, precision, T)
                        : hsp_fail(HSP_ERR_NOMEM, "no memory for %d aggregates", naggregates);
    if (s != HSP_OK) {
        free(size);
        return s;
    }
    for (int32_t i = 0; i < n; i++) size[agg[i]]++;
    for (int32_t i = 0; i < n; i++) {
        double v = 1 / sqrt((double)size[agg[i]]); /* the constant vector, normalized per aggregate */
        (*T)->rowptr[i + 1] = i + 1, (*T)->colidx[i] = agg[i];
        hsp_csr_set_value(*T, i, v);
    }
    free(size);
    return HSP_OK;
}
