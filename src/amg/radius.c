/* radius.c: the spectral radius of D^-1 A that scales the smoothing of P.
 *
 * D^-1 A is similar to S = |D|^-1/2 A |D|^-1/2, symmetric where A is, and a
 * few Lanczos steps on S find its largest eigenvalue from below (PyAMG's
 * approximate_spectral_radius takes up to 15 such steps; here they stop
 * once the estimate moves by less than 1%, as PyAMG's tolerance).  Gershgorin's bound,
 * max_i sum_j |a_ij| / |a_ii|, is exact on a Poisson matrix but overshoots
 * on the coarse levels (poisson2d5:256, level 1: 2.03 against 1.41), which
 * weakens P's smoothing: CG preconditioned by the hierarchy then took 11
 * iterations where PyAMG's took 8.  The estimate is kept below the bound. */
#include <math.h>
#include <stdlib.h>
#include "amg.h"
#include "context.h"
#include "internal.h"

enum { LANCZOS_STEPS = 15, CHUNK_ROWS = 16384 };
#define RITZ_TOL 1e-2

/* The vectors of the Lanczos steps and the partial sums of a pass. */
typedef struct {
    const hsp_csr *A;
    double *scale;        /* |a_ii|^-1/2 */
    double *prev, *v, *w; /* v_{j-1}, v_j, and S v_j being made */
    double *u;            /* scale * v: what A multiplies */
    double alpha, beta;   /* this step's alpha_j and the last step's beta */
    double *partial;      /* one sum per chunk */
} lanczos;

/* The rows of chunk c: the first, and *last one past the end. */
static int32_t chunk_rows(const hsp_csr *A, int64_t c, int32_t *last)
{
    int64_t end = (c + 1) * CHUNK_ROWS;
    *last = end < A->nrows ? (int32_t)end : A->nrows;
    return (int32_t)(c * CHUNK_ROWS);
}

/* Row i of A times u, in A's precision's values. */
static inline double row_times(const hsp_csr *A, int32_t i, const double *u)
{
    double sum = 0;
    const double *dv = A->values;
    const float *fv = A->values;
    if (A->precision == HSP_DOUBLE)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += dv[k] * u[A->colidx[k]];
    else
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fv[k] * u[A->colidx[k]];
    return sum;
}

/* w = S v over the chunk's rows, and its part of alpha = w.v. */
static void multiply_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    int32_t last, first = chunk_rows(z->A, chunk, &last);
    double dot = 0;
    (void)tid;
    for (int32_t i = first; i < last; i++) {
        z->w[i] = row_times(z->A, i, z->u) * z->scale[i];
        dot += z->w[i] * z->v[i];
    }
    z->partial[chunk] = dot;
}

/* w -= alpha v + beta prev over the chunk's rows, and its part of |w|^2. */
static void orthogonalize_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    int32_t last, first = chunk_rows(z->A, chunk, &last);
    double norm2 = 0;
    (void)tid;
    for (int32_t i = first; i < last; i++) {
        z->w[i] -= z->alpha * z->v[i] + z->beta * z->prev[i];
        norm2 += z->w[i] * z->w[i];
    }
    z->partial[chunk] = norm2;
}

/* prev = v, v = w / beta (and u) over the chunk's rows. */
static void advance_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    int32_t last, first = chunk_rows(z->A, chunk, &last);
    (void)tid;
    for (int32_t i = first; i < last; i++)
        z->prev[i] = z->v[i], z->v[i] = z->w[i] / z->beta, z->u[i] = z->scale[i] * z->v[i];
}

/* The sum of a pass's n partial sums. */
static double total(const double *partial, int64_t n)
{
    double sum = 0;
    for (int64_t c = 0; c < n; c++) sum += partial[c];
    return sum;
}

/* The largest eigenvalue of the symmetric tridiagonal matrix of diagonal
 * a[0..n-1] and off-diagonal b[0..n-2], by bisection on Sturm counts. */
static double tridiagonal_max(const double *a, const double *b, int n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < n; i++) {
        double r = (i > 0 ? fabs(b[i - 1]) : 0) + (i < n - 1 ? fabs(b[i]) : 0);
        lo = fmin(lo, a[i] - r), hi = fmax(hi, a[i] + r);
    }
    for (int iter = 0; iter < 100 && hi - lo > 1e-12 * fmax(1, fabs(hi)); iter++) {
        double x = 0.5 * (lo + hi), d = 1;
        int above = 0; /* eigenvalues greater than x */
        for (int i = 0; i < n; i++) {
            d = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / d : 0);
            if (d == 0) d = -1e-300;
            above += d > 0;
        }
        if (above > 0) lo = x;
        else hi = x;
    }
    return hi;
}

/* A start vector with every frequency in it (a fixed pseudo-random
 * sequence), and u = scale * v. */
static void start_vector(lanczos *z)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    double norm2 = 0;
    int32_t n = z->A->nrows;
    for (int32_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        z->v[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
        norm2 += z->v[i] * z->v[i];
    }
    for (int32_t i = 0; i < n; i++) z->v[i] /= sqrt(norm2), z->u[i] = z->scale[i] * z->v[i];
}

/* Up to LANCZOS_STEPS steps on S from the start vector: the largest Ritz
 * value, once it moves by less than RITZ_TOL from one step to the next. */
static double lanczos_max(hsp_context *ctx, lanczos *z, int64_t nchunks)
{
    double a[LANCZOS_STEPS], b[LANCZOS_STEPS], ritz = 0, last = 0;
    start_vector(z);
    z->beta = 0;
    for (int steps = 0; steps < LANCZOS_STEPS && steps < z->A->nrows;) {
        hsp_pool_chunks(ctx->pool, nchunks, multiply_chunk, z);
        a[steps] = z->alpha = total(z->partial, nchunks);
        hsp_pool_chunks(ctx->pool, nchunks, orthogonalize_chunk, z);
        b[steps++] = z->beta = sqrt(total(z->partial, nchunks));
        last = ritz, ritz = tridiagonal_max(a, b, steps);
        if (!(z->beta > 1e-12 * fabs(a[0]))) break; /* an invariant subspace: exact */
        if (steps >= 4 && fabs(ritz - last) < RITZ_TOL * ritz) break;
        hsp_pool_chunks(ctx->pool, nchunks, advance_chunk, z);
    }
    return ritz;
}

/* Gershgorin's bound of rho(D^-1 A): max_i sum_j |a_ij| / |a_ii|. */
static double gershgorin(const hsp_csr *A, const int64_t *diag)
{
    const double *dv = A->values;
    const float *fv = A->values;
    double bound = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double sum = 0;
        if (A->precision == HSP_DOUBLE)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabs(dv[k]);
        else
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabsf(fv[k]);
        bound = fmax(bound, sum / fabs(hsp_csr_value(A, diag[i])));
    }
    return bound;
}

hsp_status hsp_radius_estimate(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double *rho)
{
    int32_t n = A->nrows;
    int64_t nchunks = ((int64_t)n + CHUNK_ROWS - 1) / CHUNK_ROWS;
    size_t bytes = (size_t)n * sizeof(double);
    lanczos z = {A, malloc(bytes), calloc((size_t)n, sizeof(double)), malloc(bytes), malloc(bytes), malloc(bytes), 0, 0,
                 malloc((size_t)nchunks * sizeof(double))};
    hsp_status s = HSP_OK;
    *rho = gershgorin(A, diag);
    if (n > 0 && (!z.scale || !z.prev || !z.v || !z.w || !z.u || !z.partial)) {
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for the spectral radius of a level of %d rows", n);
    } else if (n > 0) {
        for (int32_t i = 0; i < n; i++) z.scale[i] = 1 / sqrt(fabs(hsp_csr_value(A, diag[i])));
        double ritz = lanczos_max(ctx, &z, nchunks);
        if (ritz > 0 && ritz < *rho) *rho = ritz;
    }
    free(z.scale), free(z.prev), free(z.v), free(z.w), free(z.u), free(z.partial);
    return s;
}
