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

/* A Gauss-Seidel sweep over each part's rows (from x = 0 where zero: a forward sweep then
 * reads no column >= i, all 0), or the residual after such a sweep into res. */
typedef struct {
    const hsp_rows *r;
    double *x;
    const double *b, *old, *dinv;
    int backward, zero;
    double *res;
} gs_job;

/* x_j as a row of part lo .. hi - 1 reads it: from x in the part, else from before the sweep. */
static inline double value_of(const gs_job *g, int32_t j, int32_t lo, int32_t hi, int inside)
{
    return inside || (uint32_t)(j - lo) < (uint32_t)(hi - lo) ? g->x[j] : g->old[j];
}

/* Row i's update, sweeping backward or not, M's values double or not (constants where it is
 * called, so that each of gs_part's four loops is its own).  The entries of the columns the
 * sweep has just passed (j < i forward, j > i backward) are added last, toward i, so that the
 * wait for x of the row before is short: the other entries' sum does not depend on it. */
static inline __attribute__((always_inline)) void gs_cols(const gs_job *g, int32_t i, int32_t lo, int32_t hi,
                                                          int backward, int dbl, int inside)
{
    const hsp_csr *M = g->r->M;
    int64_t first = M->rowptr[i], last = M->rowptr[i + 1], mid = first, k;
    double early = 0, late = 0;
    while (mid < last && M->colidx[mid] < i) mid++; /* the first column >= i */
    if (!backward) {
        for (k = g->zero ? last : mid; k < last; k++)
            early += hsp_entry(M, k, dbl) * value_of(g, M->colidx[k], lo, hi, inside);
        for (k = first; k < mid; k++) late += hsp_entry(M, k, dbl) * value_of(g, M->colidx[k], lo, hi, inside);
    } else {
        if (mid < last && M->colidx[mid] == i) mid++; /* the first column > i */
        for (k = first; k < mid; k++) early += hsp_entry(M, k, dbl) * value_of(g, M->colidx[k], lo, hi, inside);
        for (k = last - 1; k >= mid; k--) late += hsp_entry(M, k, dbl) * value_of(g, M->colidx[k], lo, hi, inside);
    }
    g->x[i] += (g->b[i] - early - late) * g->dinv[i];
}

/* gs_cols of row i, which reads x alone where it has no column of another part. */
static inline __attribute__((always_inline)) void gs_row(const gs_job *g, int32_t i, int32_t lo, int32_t hi,
                                                         int backward, int dbl)
{
    const hsp_csr *M = g->r->M;
    int64_t first = M->rowptr[i], last = M->rowptr[i + 1];
    if (first < last && M->colidx[first] >= lo && M->colidx[last - 1] < hi) gs_cols(g, i, lo, hi, backward, dbl, 1);
    else gs_cols(g, i, lo, hi, backward, dbl, 0);
}

/* The sweep over part p's rows. */
static void gs_part(void *arg, int tid, int64_t p)
{
    const gs_job *g = arg;
    int32_t lo = (int32_t)g->r->cut[p], hi = (int32_t)g->r->cut[p + 1];
    (void)tid;
    if (g->r->M->precision == HSP_DOUBLE && g->backward)
        for (int32_t i = hi - 1; i >= lo; i--) gs_row(g, i, lo, hi, 1, 1);
    else if (g->r->M->precision == HSP_DOUBLE)
        for (int32_t i = lo; i < hi; i++) gs_row(g, i, lo, hi, 0, 1);
    else if (g->backward)
        for (int32_t i = hi - 1; i >= lo; i--) gs_row(g, i, lo, hi, 1, 0);
    else
        for (int32_t i = lo; i < hi; i++) gs_row(g, i, lo, hi, 0, 0);
}

/* One sweep, forward or backward (from x = 0 where zero), the other parts' values from before it
 * (the ghost rows' in v->t); on the CPU threads only. */
static void gauss_seidel(hsp_context *ctx, hsp_solve_level *v, double *x, const double *b, int backward, int zero)
{
    double *old = v->t;
    gs_job j = {&v->A, x, b, old, v->dinv, backward, zero && !backward, NULL};
    for (int64_t k = 0; k < v->nghost; k++) old[v->ghost[k]] = x[v->ghost[k]];
    hsp_pool_chunks_kept(ctx->pool, v->A.nparts, gs_part, &j);
}

/* Row i's residual after a forward sweep from x = 0 in its part lo .. hi - 1: the row's
 * equation held for the columns < i of the part and i itself, so b_i - (A x)_i is minus the
 * sum over the columns > i and those of other parts (< lo). */
static inline __attribute__((always_inline)) double upper_residual(const hsp_csr *M, const double *x, int32_t i,
                                                                   int32_t lo, int dbl)
{
    int64_t first = M->rowptr[i], last = M->rowptr[i + 1], k = first;
    double sum = 0;
    if (first < last && M->colidx[first] >= lo) {
        /* no column of a part before: the columns > i, from the end (the sweep read the rest) */
        for (k = last; k > first && M->colidx[k - 1] > i; k--) sum += hsp_entry(M, k - 1, dbl) * x[M->colidx[k - 1]];
    } else {
        for (; k < last; k++)
            if (M->colidx[k] > i || M->colidx[k] < lo) sum += hsp_entry(M, k, dbl) * x[M->colidx[k]];
    }
    return -sum;
}

/* The residual of part p's rows after gs_part's forward sweep from zero. */
static void upper_part(void *arg, int tid, int64_t p)
{
    const gs_job *g = arg;
    const hsp_csr *M = g->r->M;
    int32_t lo = (int32_t)g->r->cut[p], hi = (int32_t)g->r->cut[p + 1];
    (void)tid;
    if (M->precision == HSP_DOUBLE)
        for (int32_t i = lo; i < hi; i++) g->res[i] = upper_residual(M, g->x, i, lo, 1);
    else
        for (int32_t i = lo; i < hi; i++) g->res[i] = upper_residual(M, g->x, i, lo, 0);
}

void hsp_smooth_from_zero(hsp_amg_solve_data *sd, hsp_solve_level *v, double *x, const double *b, double *r)
{
    gauss_seidel(sd->ctx, v, x, b, 0, 1);
    gs_job j = {&v->A, x, b, NULL, NULL, 0, 0, r};
    hsp_pool_chunks_kept(sd->ctx->pool, v->A.nparts, upper_part, &j);
}

/* x += c dinv (b - A x) (from x = 0 where zero: no product). */
static void jacobi(hsp_amg_solve_data *sd, hsp_solve_level *v, void *x, void *b, void *dinv, double c, int zero)
{
    if (!zero) hsp_solve_spmv(sd, &v->A, x, b, -1, v->t, NULL, 0);
    hsp_solve_step(sd, v->A.M->nrows, x, NULL, zero ? b : v->t, dinv, 0, c);
}

/* x += p(D^-1 A) D^-1 (b - A x), p of o's degree that makes the error's polynomial
 * the Chebyshev one over [o's lower rho, 1.1 rho] (the iteration of Saad's Algorithm 12.1). */
static void chebyshev(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, hsp_solve_level *v, void *x, void *b,
                      int zero)
{
    int degree = o->chebyshev_degree;
    double lo = o->chebyshev_lower * v->rho, hi = 1.1 * v->rho, theta = (hi + lo) / 2, delta = (hi - lo) / 2;
    double sigma = theta / delta, rho = 1 / sigma;
    int32_t n = v->A.M->nrows;
    if (!zero) hsp_solve_spmv(sd, &v->A, x, b, -1, v->t, NULL, 0);
    hsp_solve_step(sd, n, x, v->d, zero ? b : v->t, v->dinv, 0, 1 / theta);
    for (int k = 1; k < degree; k++) {
        double next = 1 / (2 * sigma - rho);
        hsp_solve_spmv(sd, &v->A, x, b, -1, v->t, NULL, 0);
        hsp_solve_step(sd, n, x, v->d, v->t, v->dinv, next * rho, 2 * next / delta);
        rho = next;
    }
}

void hsp_smooth(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, hsp_solve_level *v, void *x, void *b,
                int sweeps, int zero, hsp_smooth_at at)
{
    int halves = o->sweep == HSP_SWEEP_FORWARD_BACKWARD && at != HSP_SMOOTH_ALONE;
    for (int s = 0; s < sweeps; s++, zero = 0) switch (hsp_smoother_of(o, sd)) {
        case HSP_SMOOTHER_GAUSS_SEIDEL:
            if (!halves || at == HSP_SMOOTH_PRE) gauss_seidel(sd->ctx, v, x, b, 0, zero);
            if (!halves || at == HSP_SMOOTH_POST) gauss_seidel(sd->ctx, v, x, b, 1, 0);
            break;
        case HSP_SMOOTHER_JACOBI: jacobi(sd, v, x, b, v->dinv, o->jacobi_omega / v->rho, zero); break;
        case HSP_SMOOTHER_L1_JACOBI: jacobi(sd, v, x, b, v->l1inv, 1, zero); break;
        default: chebyshev(sd, o, v, x, b, zero); break;
        }
}
