/* coarse.c: the coarsest level's direct solve: its A made dense and factored
 * once (per setup or re-setup), by Cholesky where A is symmetric (to its
 * precision's rounding: Cholesky reads its lower triangle) and its
 * pivots stay positive, else by LU with partial pivoting; a pivot below
 * 1e-13 of A's largest entry (Cholesky: of its own diagonal entry) fails
 * the factor, and LU's failing means A is singular.  Rows and columns of
 * zeros alone are left out (their unknowns solved as 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amg/solve.h"
#include "core/internal.h"
#include "core/pool.h"

#define PIVOT_TOL 1e-13

/* A into the dense n x n f, row by row; returns its largest |a_ij|. */
static double densify(const hsp_csr *A, double *f)
{
    double amax = 0;
    int32_t n = A->nrows;
    memset(f, 0, (size_t)n * n * sizeof *f);
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            f[(size_t)i * n + A->colidx[k]] = hsp_csr_value(A, k);
            amax = fmax(amax, fabs(f[(size_t)i * n + A->colidx[k]]));
        }
    return amax;
}

/* A's empty rows (row and column of zeros: no nonzero entry names them) into
 * f->empty, by one pass over A's entries. */
static hsp_status find_empty(const hsp_csr *A, hsp_dense_factor *f)
{
    int32_t n = A->nrows;
    char *used = calloc((size_t)n + 1, 1);
    f->nempty = 0;
    f->empty = malloc((size_t)n * sizeof *f->empty + 1);
    if (!used || !f->empty) {
        free(used);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the dense factor of the coarsest level (%d rows)", n);
    }
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (hsp_csr_value(A, k) != 0) used[i] = used[A->colidx[k]] = 1;
    for (int32_t i = 0; i < n; i++)
        if (!used[i]) f->empty[f->nempty++] = i;
    free(used);
    return HSP_OK;
}

/* f's empty rows given a 1 on the diagonal, so that the factor is of A's
 * other rows beside an identity. */
static void fill_empty(hsp_dense_factor *f, int32_t n)
{
    for (int32_t e = 0; e < f->nempty; e++) f->f[(size_t)f->empty[e] * n + f->empty[e]] = 1;
}

/* Is the dense f symmetric to the rounding of a Galerkin product in precision p (amax its largest
 * entry)?  A float level's a_ij and a_ji, sums in other orders, part by about 1e-7 of them. */
static int symmetric(const double *f, int32_t n, double amax, hsp_precision p)
{
    double tol = (p == HSP_DOUBLE ? 1e-12 : 1e-5) * amax;
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < i; j++)
            if (fabs(f[(size_t)i * n + j] - f[(size_t)j * n + i]) > tol) return 0;
    return 1;
}

/* u.v over n entries (four sums: the adds of one do not wait on each other). */
static double dot(const double *u, const double *v, int32_t n)
{
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int32_t k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += u[k] * v[k], s1 += u[k + 1] * v[k + 1];
        s2 += u[k + 2] * v[k + 2], s3 += u[k + 3] * v[k + 3];
    }
    for (; k < n; k++) s0 += u[k] * v[k];
    return (s0 + s1) + (s2 + s3);
}

enum { BLOCK_ROWS = 64 };

/* A block of rows lo .. hi - 1 of the factor f (n x n), as a parallel step of cholesky sees it. */
typedef struct {
    double *f;
    int32_t n, lo;
} block_job;

/* Row lo + r's entries left of the block: its solve against L's rows above, which are done. */
static void block_left(void *arg, int tid, int64_t r)
{
    const block_job *b = arg;
    double *row = b->f + (size_t)(b->lo + r) * b->n;
    (void)tid;
    for (int32_t j = 0; j < b->lo; j++) {
        const double *lj = b->f + (size_t)j * b->n;
        row[j] = (row[j] - dot(row, lj, j)) / lj[j];
    }
}

/* Row lo + r's entries in the block less their sums over the columns left of it (block_left's). */
static void block_inner(void *arg, int tid, int64_t r)
{
    const block_job *b = arg;
    int32_t i = b->lo + (int32_t)r;
    double *row = b->f + (size_t)i * b->n;
    (void)tid;
    for (int32_t j = b->lo; j <= i; j++) row[j] -= dot(row, b->f + (size_t)j * b->n, b->lo);
}

/* The block's own triangle, rows lo .. hi - 1 (a0: A's diagonal); 0 where a pivot is not positive
 * enough. */
static int block_triangle(double *f, int32_t n, int32_t lo, int32_t hi, const double *a0)
{
    for (int32_t i = lo; i < hi; i++) {
        double *row = f + (size_t)i * n;
        for (int32_t j = lo; j < i; j++) {
            const double *lj = f + (size_t)j * n;
            row[j] = (row[j] - dot(row + lo, lj + lo, j - lo)) / lj[j];
        }
        double s = row[i] - dot(row + lo, row + lo, i - lo);
        if (!(s > PIVOT_TOL * a0[i])) return 0;
        row[i] = sqrt(s);
    }
    return 1;
}

/* f = L (lower, row by row) of f = L L^T on the pool's threads: HSP_OK, else HSP_ERR_ARG where a
 * pivot is not positive enough (not an error: LU follows) or HSP_ERR_NOMEM.  Rows go in blocks:
 * the rows of a block take their entries left of it each by itself, in parallel, and the block's
 * triangle follows on one thread; each entry is the same sums in the same order on any number of
 * threads. */
static hsp_status cholesky(hsp_pool *pool, double *f, int32_t n)
{
    double *a0 = malloc(((size_t)n + 1) * sizeof *a0);
    int ok = 1;
    if (!a0) return hsp_fail(HSP_ERR_NOMEM, "no memory for the dense factor of the coarsest level (%d rows)", n);
    for (int32_t i = 0; i < n; i++) a0[i] = f[(size_t)i * n + i];
    for (int32_t lo = 0; lo < n && ok; lo += BLOCK_ROWS) {
        int32_t hi = lo + BLOCK_ROWS < n ? lo + BLOCK_ROWS : n;
        block_job b = {f, n, lo};
        hsp_pool_chunks(pool, hi - lo, block_left, &b);
        hsp_pool_chunks(pool, hi - lo, block_inner, &b);
        ok = block_triangle(f, n, lo, hi, a0);
    }
    free(a0);
    return ok ? HSP_OK : HSP_ERR_ARG;
}

/* f = L\U of P f = L U, perm[c] the row swapped with row c at step c; 0 where a pivot
 * is below PIVOT_TOL amax (singular). */
static int lu(double *f, int32_t n, int32_t *perm, double amax)
{
    for (int32_t c = 0; c < n; c++) {
        int32_t p = c;
        for (int32_t i = c + 1; i < n; i++)
            if (fabs(f[(size_t)i * n + c]) > fabs(f[(size_t)p * n + c])) p = i;
        if (!(fabs(f[(size_t)p * n + c]) > PIVOT_TOL * amax)) return 0;
        perm[c] = p;
        for (int32_t j = 0; p != c && j < n; j++) {
            double t = f[(size_t)c * n + j];
            f[(size_t)c * n + j] = f[(size_t)p * n + j], f[(size_t)p * n + j] = t;
        }
        const double *top = f + (size_t)c * n;
        for (int32_t i = c + 1; i < n; i++) {
            double *row = f + (size_t)i * n, m = row[c] /= top[c];
            for (int32_t j = c + 1; j < n; j++) row[j] -= m * top[j];
        }
    }
    return 1;
}

hsp_status hsp_dense_factorize(hsp_pool *pool, const hsp_csr *A, hsp_dense_factor *f)
{
    int32_t n = A->nrows;
    f->n = 0, f->perm = NULL, f->empty = NULL;
    f->f = malloc((size_t)n * n * sizeof *f->f + 1);
    if (!f->f) return hsp_fail(HSP_ERR_NOMEM, "no memory for the dense factor of the coarsest level (%d rows)", n);
    hsp_status s = find_empty(A, f);
    if (s != HSP_OK) return s;
    double amax = densify(A, f->f);
    fill_empty(f, n);
    s = symmetric(f->f, n, amax, A->precision) ? cholesky(pool, f->f, n) : HSP_ERR_ARG;
    if (s != HSP_ERR_ARG) return f->n = s == HSP_OK ? n : 0, s;
    f->perm = malloc((size_t)n * sizeof *f->perm + 1);
    if (!f->perm) return hsp_fail(HSP_ERR_NOMEM, "no memory for the dense factor of the coarsest level (%d rows)", n);
    densify(A, f->f);
    fill_empty(f, n);
    if (!lu(f->f, n, f->perm, amax))
        return hsp_fail(HSP_ERR_ARG, "the coarsest level's A (%d x %d) is singular: LU with partial pivoting found "
                        "a pivot below %g of its largest entry", n, n, PIVOT_TOL);
    f->n = n;
    return HSP_OK;
}

void hsp_dense_solve(const hsp_dense_factor *f, const double *b, double *x)
{
    int32_t n = f->n;
    if (x != b) memcpy(x, b, (size_t)n * sizeof *x);
    for (int32_t c = 0; f->perm && c < n; c++) {
        double t = x[c];
        x[c] = x[f->perm[c]], x[f->perm[c]] = t;
    }
    for (int32_t i = 0; i < n; i++) { /* L y = x: L's diagonal is ones in LU's */
        const double *row = f->f + (size_t)i * n;
        x[i] -= dot(row, x, i);
        if (!f->perm) x[i] /= row[i];
    }
    for (int32_t i = n - 1; i >= 0; i--) { /* U x = y, or L^T x = y by L's rows */
        const double *row = f->f + (size_t)i * n;
        if (f->perm) {
            x[i] = (x[i] - dot(row + i + 1, x + i + 1, n - i - 1)) / row[i];
        } else {
            x[i] /= row[i];
            for (int32_t k = 0; k < i; k++) x[k] -= row[k] * x[i];
        }
    }
    for (int32_t e = 0; e < f->nempty; e++) x[f->empty[e]] = 0;
}

void hsp_dense_factor_free(hsp_dense_factor *f)
{
    free(f->f), free(f->perm), free(f->empty);
    f->f = NULL, f->perm = NULL, f->empty = NULL, f->n = 0, f->nempty = 0;
}
