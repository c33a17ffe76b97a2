/* radius.c: the spectral radius of D^-1 A that scales the smoothing of P.
 *
 * D^-1 A is similar to S = |D|^-1/2 A |D|^-1/2, symmetric where A is, and a
 * few Lanczos steps on S find its largest eigenvalue from below (PyAMG's
 * approximate_spectral_radius takes up to 15 such steps; here they stop
 * once the estimate moves by less than 1%, as PyAMG's tolerance).  Gershgorin's bound,
 * max_i sum_j |a_ij| / |a_ii|, is exact on a Poisson matrix but overshoots
 * on the coarse levels (poisson2d5:256, level 1: 2.03 against 1.41), which
 * weakens P's smoothing: CG preconditioned by the hierarchy then took 11
 * iterations where PyAMG's took 8.  The estimate is kept below the bound.
 * The steps run on the CPU threads (hsp_radius_estimate) or, over a matrix a
 * device holds, as the device's passes (hsp_radius_held), from the same
 * start vector. */
#include <math.h>
#include <stdlib.h>
#include "amg/amg.h"
#include "device/context.h"
#include "device/device.h"
#include "amg/amg_device.h"
#include "core/internal.h"

enum { CHUNK_ROWS = 16384, DEVICE_READS = 4 };
#define RITZ_TOL 1e-2

/* Pass `pass` (device.h's HSP_LZ_*) of step `step` over arg. */
typedef hsp_status (*lanczos_pass)(void *arg, int pass, int step, double *scalars);

/* The vectors of the Lanczos steps on the CPU threads and the partial sums of a pass. */
typedef struct {
    hsp_context *ctx;
    const hsp_csr *A;
    const int64_t *diag;  /* where each row's diagonal entry is */
    int64_t nchunks;
    double *scale;        /* |a_ii|^-1/2 */
    double *prev, *v, *w; /* v_{j-1}, v_j, and S v_j being made */
    double *u;            /* scale * v: what A multiplies */
    double alpha, beta;   /* the pass's */
    double *partial;      /* one sum per chunk */
} lanczos;

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

/* w = the start vector and v = 0 over the chunk's rows, and its part of |w|^2. */
static void start_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    int32_t last, first = hsp_chunk_rows(chunk, CHUNK_ROWS, z->A->nrows, &last);
    double norm2 = 0;
    (void)tid;
    for (int32_t i = first; i < last; i++) {
        z->w[i] = hsp_lanczos_start(i), z->v[i] = 0;
        norm2 += z->w[i] * z->w[i];
    }
    z->partial[chunk] = norm2;
}

/* w = S v over the chunk's rows, and its part of alpha = w.v. */
static void multiply_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    int32_t last, first = hsp_chunk_rows(chunk, CHUNK_ROWS, z->A->nrows, &last);
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
    int32_t last, first = hsp_chunk_rows(chunk, CHUNK_ROWS, z->A->nrows, &last);
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
    int32_t last, first = hsp_chunk_rows(chunk, CHUNK_ROWS, z->A->nrows, &last);
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

/* A pass over the CPU threads, its scalars straight into the caller's. */
static hsp_status host_pass(void *arg, int pass, int step, double *scalars)
{
    static const hsp_chunk_fn fns[] = {[HSP_LZ_START] = start_chunk, [HSP_LZ_MULTIPLY] = multiply_chunk,
                                       [HSP_LZ_ORTHOGONALIZE] = orthogonalize_chunk,
                                       [HSP_LZ_ADVANCE] = advance_chunk};
    lanczos *z = arg;
    int at = hsp_lanczos_sum_at(pass, step);
    if (pass == HSP_LZ_READ) return HSP_OK;
    z->alpha = scalars[HSP_LZ_ALPHA + step], z->beta = sqrt(scalars[HSP_LZ_NORM2 + step]);
    hsp_pool_chunks(z->ctx->pool, z->nchunks, fns[pass], z);
    if (at >= 0) scalars[at] = total(z->partial, z->nchunks);
    return HSP_OK;
}

/* Has the estimate settled by step `steps` (scalars of that many steps)?
 * *ritz: the largest Ritz value where it stopped moving by RITZ_TOL from
 * one step to the next, or the steps' subspace was invariant (exact), else
 * after the last step. */
static int settled(const double *scalars, int steps, double *ritz)
{
    const double *a = scalars + HSP_LZ_ALPHA;
    double b[HSP_LZ_STEPS], last = 0;
    for (int k = 1; k <= steps; k++) {
        b[k - 1] = sqrt(scalars[HSP_LZ_NORM2 + k]);
        last = *ritz, *ritz = tridiagonal_max(a, b, k);
        if (!(b[k - 1] > 1e-12 * fabs(a[0]))) return 1;
        if (k >= 4 && fabs(*ritz - last) < RITZ_TOL * *ritz) return 1;
    }
    return 0;
}

/* Up to HSP_LZ_STEPS steps on S of n rows from the start vector, by pass,
 * the scalars read and checked every `reads` steps: *ritz, the largest
 * Ritz value once it moves by less than RITZ_TOL from one step to the next
 * (steps past that, made between reads, are not used). */
static hsp_status lanczos_max(lanczos_pass pass, void *arg, int32_t n, int reads, double *ritz)
{
    double scalars[HSP_LZ_SCALARS] = {0};
    int most = n < HSP_LZ_STEPS ? n : HSP_LZ_STEPS;
    hsp_status s = pass(arg, HSP_LZ_START, 0, scalars);
    *ritz = 0;
    for (int j = 0; s == HSP_OK && j < most; j++) {
        s = pass(arg, HSP_LZ_ADVANCE, j, scalars);
        if (s == HSP_OK) s = pass(arg, HSP_LZ_MULTIPLY, j, scalars);
        if (s == HSP_OK) s = pass(arg, HSP_LZ_ORTHOGONALIZE, j, scalars);
        if (s != HSP_OK || ((j + 1) % reads && j + 1 < most)) continue;
        s = pass(arg, HSP_LZ_READ, j + 1, scalars);
        if (s == HSP_OK && settled(scalars, j + 1, ritz)) break;
    }
    return s;
}

/* scale over the chunk's rows, and its part of Gershgorin's bound of rho(D^-1 A):
 * max_i sum_j |a_ij| / |a_ii|. */
static void bound_chunk(void *arg, int tid, int64_t chunk)
{
    lanczos *z = arg;
    const hsp_csr *A = z->A;
    const double *dv = A->values;
    const float *fv = A->values;
    int32_t last, first = hsp_chunk_rows(chunk, CHUNK_ROWS, A->nrows, &last);
    double bound = 0;
    (void)tid;
    for (int32_t i = first; i < last; i++) {
        double sum = 0, d = fabs(A->precision == HSP_DOUBLE ? dv[z->diag[i]] : fv[z->diag[i]]);
        if (A->precision == HSP_DOUBLE)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabs(dv[k]);
        else
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabsf(fv[k]);
        z->scale[i] = 1 / sqrt(d), bound = fmax(bound, sum / d);
    }
    z->partial[chunk] = bound;
}

hsp_status hsp_radius_estimate(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double *rho)
{
    int32_t n = A->nrows;
    int64_t nchunks = hsp_row_chunks(n, CHUNK_ROWS);
    size_t bytes = (size_t)n * sizeof(double);
    lanczos z = {ctx, A, diag, nchunks, malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes), malloc(bytes), 0, 0,
                 malloc((size_t)nchunks * sizeof(double))};
    hsp_status s = HSP_OK;
    double ritz = 0;
    *rho = 0;
    if (n > 0 && (!z.scale || !z.prev || !z.v || !z.w || !z.u || !z.partial)) {
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for the spectral radius of a level of %d rows", n);
    } else if (n > 0) {
        hsp_pool_chunks(ctx->pool, nchunks, bound_chunk, &z);
        for (int64_t c = 0; c < nchunks; c++) *rho = fmax(*rho, z.partial[c]);
        s = lanczos_max(host_pass, &z, n, 1, &ritz);
    }
    if (ritz > 0 && ritz < *rho) *rho = ritz;
    free(z.scale), free(z.prev), free(z.v), free(z.w), free(z.u), free(z.partial);
    return s;
}

/* A device's pass over a matrix it holds. */
typedef struct {
    hsp_device *dev;
    const hsp_csr *A;
    void *held, *work;
} device_lanczos;

static hsp_status device_pass(void *arg, int pass, int step, double *scalars)
{
    device_lanczos *d = arg;
    return d->dev->amg->lanczos(d->dev, d->A, d->held, &d->work, pass, step, scalars);
}

hsp_status hsp_radius_held(hsp_device *dev, const hsp_csr *A, void *held, double *rho)
{
    device_lanczos d = {dev, A, held, NULL};
    double ritz = 0;
    hsp_status s = A->nrows > 0 ? lanczos_max(device_pass, &d, A->nrows, DEVICE_READS, &ritz) : HSP_OK;
    hsp_status end = device_pass(&d, HSP_LZ_END, 0, NULL);
    if (s == HSP_OK && ritz > 0 && ritz < *rho) *rho = ritz;
    return s == HSP_OK ? end : s;
}
