/* smooth.c: the smoothers of a level's A x = b on the CPU threads: symmetric
 * Gauss-Seidel (hybrid between the parts of rows, as hypre's: each part sweeps
 * its own rows in order and reads the other parts' values from before the
 * sweep, so that one part is exactly Gauss-Seidel), damped Jacobi, l1-Jacobi
 * and Chebyshev in D^-1 A.  Every smoother is symmetric in A's inner product
 * as a pre-smoother followed by the same as a post-smoother, so that the
 * cycle preconditions CG. */
#include "amg/solve.h"
#include "core/pool.h"
#include "device/context.h"

/* Row i of M times x (its columns sorted), the columns lo .. hi - 1 from x and the others
 * from old (a row of no other columns by the plain loop). */
static inline double row_split(const hsp_csr *M, int32_t i, const double *x, const double *old, int32_t lo,
                               int32_t hi)
{
    double sum = 0;
    int64_t first = M->rowptr[i], last = M->rowptr[i + 1];
    if (first < last && M->colidx[first] >= lo && M->colidx[last - 1] < hi) return hsp_row_times(M, i, x);
    if (M->precision == HSP_DOUBLE) {
        const double *v = M->values;
        for (int64_t k = first; k < last; k++) {
            int32_t j = M->colidx[k];
            sum += v[k] * (j >= lo && j < hi ? x[j] : old[j]);
        }
    } else {
        const float *v = M->values;
        for (int64_t k = first; k < last; k++) {
            int32_t j = M->colidx[k];
            sum += v[k] * (j >= lo && j < hi ? x[j] : old[j]);
        }
    }
    return sum;
}

/* A Gauss-Seidel sweep over each part's rows. */
typedef struct {
    const hsp_rows *r;
    double *x;
    const double *b, *old, *dinv;
    int backward;
} gs_job;

static void gs_part(void *arg, int tid, int64_t p)
{
    const gs_job *j = arg;
    int32_t lo = (int32_t)j->r->cut[p], hi = (int32_t)j->r->cut[p + 1];
    (void)tid;
    for (int32_t k = 0; k < hi - lo; k++) {
        int32_t i = j->backward ? hi - 1 - k : lo + k;
        j->x[i] += (j->b[i] - row_split(j->r->M, i, j->x, j->old, lo, hi)) * j->dinv[i];
    }
}

/* One sweep, forward or backward, the other parts' values from before it (the ghost rows' in v->t). */
static void gauss_seidel(hsp_context *ctx, hsp_solve_level *v, double *x, const double *b, int backward)
{
    gs_job j = {&v->A, x, b, v->t, v->dinv, backward};
    for (int64_t k = 0; k < v->nghost; k++) v->t[v->ghost[k]] = x[v->ghost[k]];
    hsp_pool_chunks(ctx->pool, v->A.nparts, gs_part, &j);
}

/* x += c dinv (b - A x) (from x = 0 where zero: no product). */
static void jacobi(hsp_context *ctx, hsp_solve_level *v, double *x, const double *b, const double *dinv, double c,
                   int zero)
{
    if (!zero) hsp_rows_spmv(ctx, &v->A, x, b, -1, v->t, NULL);
    hsp_vec_step(ctx, v->A.M->nrows, x, NULL, zero ? b : v->t, dinv, 0, c);
}

/* x += p(D^-1 A) D^-1 (b - A x), p of the degree that makes the error's polynomial
 * the Chebyshev one over [rho / 30, 1.1 rho] (the iteration of Saad's Algorithm 12.1). */
static void chebyshev(hsp_context *ctx, hsp_solve_level *v, int degree, double *x, const double *b, int zero)
{
    double lo = v->rho / 30, hi = 1.1 * v->rho, theta = (hi + lo) / 2, delta = (hi - lo) / 2;
    double sigma = theta / delta, rho = 1 / sigma;
    int32_t n = v->A.M->nrows;
    if (!zero) hsp_rows_spmv(ctx, &v->A, x, b, -1, v->t, NULL);
    hsp_vec_step(ctx, n, x, v->d, zero ? b : v->t, v->dinv, 0, 1 / theta);
    for (int k = 1; k < degree; k++) {
        double next = 1 / (2 * sigma - rho);
        hsp_rows_spmv(ctx, &v->A, x, b, -1, v->t, NULL);
        hsp_vec_step(ctx, n, x, v->d, v->t, v->dinv, next * rho, 2 * next / delta);
        rho = next;
    }
}

void hsp_smooth(hsp_context *ctx, const hsp_amg_solve_options *o, hsp_solve_level *v, double *x, const double *b,
                int sweeps, int zero)
{
    for (int s = 0; s < sweeps; s++, zero = 0) switch (o->smoother) {
        case HSP_SMOOTHER_GAUSS_SEIDEL:
            gauss_seidel(ctx, v, x, b, 0), gauss_seidel(ctx, v, x, b, 1);
            break;
        case HSP_SMOOTHER_JACOBI: jacobi(ctx, v, x, b, v->dinv, o->jacobi_omega / v->rho, zero); break;
        case HSP_SMOOTHER_L1_JACOBI: jacobi(ctx, v, x, b, v->l1inv, 1, zero); break;
        case HSP_SMOOTHER_CHEBYSHEV: chebyshev(ctx, v, o->chebyshev_degree, x, b, zero); break;
        }
}
