/* kernels.c: the solve's passes over rows on the context's threads: y = c +
 * s M x over parts of rows of about equal entries, and the vector updates of
 * the smoothers and of CG over equal parts.  Each part's sum is its own and
 * the parts' sums are added in order, so that a result depends on the number
 * of parts, never on which thread ran which. */
#include <math.h>
#include <stdlib.h>
#include "amg/solve.h"
#include "core/internal.h"
#include "core/pool.h"
#include "device/context.h"

enum { MAX_PARTS = 256, VEC_PART_ROWS = 8192 };

hsp_status hsp_rows_cut(hsp_context *ctx, const hsp_csr *M, hsp_rows *r)
{
    int64_t parts = M->nnz / HSP_PART_ENTRIES + 1, threads = hsp_pool_size(ctx->pool);
    if (parts > threads) parts = threads;
    if (parts > MAX_PARTS) parts = MAX_PARTS;
    r->M = M;
    r->cut = malloc(((size_t)parts + 1) * sizeof *r->cut);
    if (!r->cut) return hsp_fail(HSP_ERR_NOMEM, "no memory for the parts of a level of %d rows", M->nrows);
    r->nparts = hsp_split_weighted(M->rowptr, M->nrows, parts, r->cut);
    return HSP_OK;
}

/* y = c + s M x over parts, with each part's y.w. */
typedef struct {
    const hsp_rows *r;
    const double *x, *c, *w;
    double s, *y;
    double partial[MAX_PARTS];
} spmv_job;

/* spmv_job's rows of part p. */
static void spmv_part(void *arg, int tid, int64_t p)
{
    spmv_job *j = arg;
    double dot = 0;
    (void)tid;
    for (int32_t i = (int32_t)j->r->cut[p]; i < j->r->cut[p + 1]; i++) {
        j->y[i] = (j->c ? j->c[i] : 0) + j->s * hsp_row_times(j->r->M, i, j->x);
        if (j->w) dot += j->y[i] * j->w[i];
    }
    j->partial[p] = dot;
}

void hsp_vec_to_double(const void *v, hsp_precision p, int32_t n, double *out)
{
    for (int32_t i = 0; i < n; i++) out[i] = p == HSP_DOUBLE ? ((const double *)v)[i] : ((const float *)v)[i];
}

void hsp_vec_from_double(const double *in, hsp_precision p, int32_t n, void *v)
{
    for (int32_t i = 0; i < n; i++)
        if (p == HSP_DOUBLE) ((double *)v)[i] = in[i];
        else ((float *)v)[i] = (float)in[i];
}

/* The sum of n partial sums, in order. */
static double total(const double *partial, int64_t n)
{
    double sum = 0;
    for (int64_t p = 0; p < n; p++) sum += partial[p];
    return sum;
}

double hsp_rows_spmv(hsp_context *ctx, const hsp_rows *r, const double *x, const double *c, double s, double *y,
                     const double *w)
{
    spmv_job j = {.r = r, .x = x, .c = c, .w = w, .s = s, .y = y};
    hsp_pool_chunks_kept(ctx->pool, r->nparts, spmv_part, &j);
    return total(j.partial, r->nparts);
}

/* The diagonals of part p of v's A: first_bad[p], its first row without a nonzero
 * diagonal entry (-1: none). */
typedef struct {
    hsp_solve_level *v;
    int32_t first_bad[MAX_PARTS];
} diag_job;

static void diag_part(void *arg, int tid, int64_t p)
{
    diag_job *j = arg;
    const hsp_csr *A = j->v->A.M;
    int dbl = A->precision == HSP_DOUBLE;
    (void)tid;
    j->first_bad[p] = -1;
    for (int32_t i = (int32_t)j->v->A.cut[p]; i < j->v->A.cut[p + 1]; i++) {
        double d = 0, l1 = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            l1 += fabs(hsp_entry(A, k, dbl));
            if (A->colidx[k] == i) d = hsp_entry(A, k, dbl);
        }
        if (d == 0 && j->first_bad[p] < 0) j->first_bad[p] = i;
        ((double *)j->v->dinv)[i] = 1 / d, ((double *)j->v->l1inv)[i] = 1 / l1;
    }
}

hsp_status hsp_rows_diagonals(hsp_context *ctx, hsp_solve_level *v)
{
    diag_job j = {.v = v};
    hsp_pool_chunks(ctx->pool, v->A.nparts, diag_part, &j);
    for (int64_t p = 0; p < v->A.nparts; p++)
        if (j.first_bad[p] >= 0) return hsp_fail_diagonal(j.first_bad[p]);
    return HSP_OK;
}

/* A vector pass: which, its vectors and scalars, and the parts' sums. */
typedef enum { VEC_STEP, VEC_UPDATE, VEC_DIRECTION, VEC_DOT, VEC_COPY } vec_op;
typedef struct {
    vec_op op;
    int32_t n;
    int64_t nparts;
    double a, c;
    double *x, *d, *y;
    const double *r, *dinv, *p, *q;
    double partial[MAX_PARTS];
} vec_job;

/* Rows first .. last - 1 of the pass; returns the part's sum. */
static double vec_rows(vec_job *j, int32_t first, int32_t last)
{
    double sum = 0;
    for (int32_t i = first; i < last; i++) switch (j->op) {
        case VEC_STEP: {
            double u = j->c * j->dinv[i] * j->r[i] + (j->a != 0 ? j->a * j->d[i] : 0); /* d unread where a = 0 */
            if (j->d) j->d[i] = u;
            j->x[i] += u;
            break;
        }
        case VEC_UPDATE:
            j->x[i] += j->a * j->p[i], j->y[i] -= j->a * j->q[i], sum += j->y[i] * j->y[i];
            break;
        case VEC_DIRECTION: j->y[i] = j->p[i] + j->a * j->y[i]; break;
        case VEC_DOT: sum += j->p[i] * j->q[i]; break;
        case VEC_COPY: j->y[i] = j->p[i]; break;
        }
    return sum;
}

/* vec_job's rows of part p (of nparts equal ones). */
static void vec_part(void *arg, int tid, int64_t p)
{
    vec_job *j = arg;
    (void)tid;
    j->partial[p] = vec_rows(j, (int32_t)(j->n * p / j->nparts), (int32_t)(j->n * (p + 1) / j->nparts));
}

/* Run the pass j over equal parts of its rows; returns the sum of its parts'. */
static double vec_run(hsp_context *ctx, vec_job *j)
{
    int64_t parts = j->n / VEC_PART_ROWS + 1, threads = hsp_pool_size(ctx->pool);
    j->nparts = parts < threads ? parts : threads < MAX_PARTS ? threads : MAX_PARTS;
    hsp_pool_chunks_kept(ctx->pool, j->nparts, vec_part, j);
    return total(j->partial, j->nparts);
}

void hsp_vec_step(hsp_context *ctx, int32_t n, double *x, double *d, const double *r, const double *dinv, double a,
                  double c)
{
    vec_job j = {.op = VEC_STEP, .n = n, .a = a, .c = c, .x = x, .d = d, .r = r, .dinv = dinv};
    vec_run(ctx, &j);
}

double hsp_vec_update(hsp_context *ctx, int32_t n, double a, const double *p, const double *q, double *x, double *r)
{
    vec_job j = {.op = VEC_UPDATE, .n = n, .a = a, .p = p, .q = q, .x = x, .y = r};
    return vec_run(ctx, &j);
}

void hsp_vec_direction(hsp_context *ctx, int32_t n, const double *z, double beta, double *p)
{
    vec_job j = {.op = VEC_DIRECTION, .n = n, .a = beta, .p = z, .y = p};
    vec_run(ctx, &j);
}

double hsp_vec_dot(hsp_context *ctx, int32_t n, const double *u, const double *v)
{
    vec_job j = {.op = VEC_DOT, .n = n, .p = u, .q = v};
    return vec_run(ctx, &j);
}

void hsp_vec_copy(hsp_context *ctx, int32_t n, const double *x, double *y)
{
    vec_job j = {.op = VEC_COPY, .n = n, .p = x, .y = y};
    vec_run(ctx, &j);
}
