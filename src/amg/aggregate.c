/* aggregate.c: the CPU side of smoothed aggregation: strength of
 * connection, greedy aggregation in three passes (Vanek, Mandel and Brezina)
 * with PyAMG's rules (its symmetric strength, its standard aggregation: the
 * same aggregates for the same matrix), and the tentative prolongator.
 * Serial and linear in nnz(A). */
#include <math.h>
#include <stdlib.h>
#include "aggregate.h"
#include "internal.h"

/* A node's state during aggregation, beside the aggregates 0, 1, ... */
enum { AGG_FREE = -1, AGG_ISOLATED = -2 };

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

/* Is entry k of row i, column j != i, a strong connection: a_ij != 0 and
 * |a_ij|^2 >= theta^2 |a_ii| |a_jj|?  PyAMG's symmetric strength of
 * connection, computed as it does (squares, no root), so that a_ij on the
 * threshold (|a_ij| = theta sqrt(|a_ii a_jj|), a 5-point stencil at 0.25) is
 * strong in both. */
static int strong(const hsp_csr *A, const int64_t *diag, double theta, int32_t i, int64_t k)
{
    int32_t j = A->colidx[k];
    double a = hsp_csr_value(A, k);
    if (j == i || a == 0) return 0;
    double bound = theta * theta * fabs(hsp_csr_value(A, diag[i]));
    return a * a >= bound * fabs(hsp_csr_value(A, diag[j]));
}

/* Pass 1: a free node with strong neighbours, none of them taken, becomes
 * an aggregate with them; a node with no strong neighbour is isolated. */
static void pass_roots(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *n)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        if (agg[i] != AGG_FREE) continue;
        int neighbours = 0, taken = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && !taken; k++)
            if (strong(A, diag, theta, i, k)) neighbours = 1, taken = agg[A->colidx[k]] != AGG_FREE;
        if (!neighbours) {
            agg[i] = AGG_ISOLATED;
        } else if (!taken) {
            agg[i] = *n;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (strong(A, diag, theta, i, k)) agg[A->colidx[k]] = *n;
            ++*n;
        }
    }
}

/* Pass 2: a free node joins the aggregate of pass 1 of its first strong
 * neighbour that has one (first[] holds the aggregates after pass 1). */
static void pass_join(const hsp_csr *A, const int64_t *diag, double theta, const int32_t *first, int32_t *agg)
{
    for (int32_t i = 0; i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && agg[i] == AGG_FREE; k++)
            if (strong(A, diag, theta, i, k) && first[A->colidx[k]] >= 0) agg[i] = first[A->colidx[k]];
}

/* Pass 3: a node still free starts an aggregate with its free strong
 * neighbours; isolated nodes are left out of every aggregate. */
static void pass_rest(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *n)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        if (agg[i] != AGG_FREE) continue;
        agg[i] = *n;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (strong(A, diag, theta, i, k) && agg[A->colidx[k]] == AGG_FREE) agg[A->colidx[k]] = *n;
        ++*n;
    }
    for (int32_t i = 0; i < A->nrows; i++)
        if (agg[i] == AGG_ISOLATED) agg[i] = HSP_AGG_NONE;
}

hsp_status hsp_aggregate(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *naggregates)
{
    int32_t *first = malloc(((size_t)A->nrows + 1) * sizeof *first);
    if (!first) return hsp_fail(HSP_ERR_NOMEM, "no memory to aggregate %d rows", A->nrows);
    *naggregates = 0;
    for (int32_t i = 0; i < A->nrows; i++) agg[i] = AGG_FREE;
    pass_roots(A, diag, theta, agg, naggregates);
    for (int32_t i = 0; i < A->nrows; i++) first[i] = agg[i];
    pass_join(A, diag, theta, first, agg);
    pass_rest(A, diag, theta, agg, naggregates);
    if (*naggregates == 0) *naggregates = 1; /* no strong connection at all: one empty aggregate, as PyAMG */
    free(first);
    return HSP_OK;
}

hsp_status hsp_tentative(const int32_t *agg, int32_t n, int32_t naggregates, hsp_precision precision, hsp_csr **T)
{
    int64_t members = 0;
    for (int32_t i = 0; i < n; i++) members += agg[i] != HSP_AGG_NONE;
    int32_t *size = calloc((size_t)naggregates + 1, sizeof *size);
    hsp_status s = size ? hsp_csr_create(n, naggregates, members, precision, T)
                        : hsp_fail(HSP_ERR_NOMEM, "no memory for %d aggregates", naggregates);
    if (s != HSP_OK) {
        free(size);
        return s;
    }
    for (int32_t i = 0; i < n; i++)
        if (agg[i] != HSP_AGG_NONE) size[agg[i]]++;
    int64_t k = 0;
    for (int32_t i = 0; i < n; i++) {
        if (agg[i] != HSP_AGG_NONE) { /* the constant vector, normalized per aggregate */
            (*T)->colidx[k] = agg[i];
            hsp_csr_set_value(*T, k++, 1 / sqrt((double)size[agg[i]]));
        }
        (*T)->rowptr[i + 1] = k;
    }
    free(size);
    return HSP_OK;
}
