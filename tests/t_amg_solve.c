/* t_amg_solve.c: hsp_amg_solve and hsp_amg_apply on the CPU threads: every
 * smoother, V and W, CG and none, float and double solve Poisson problems
 * and a random SPD matrix to tol, checked by a residual computed here; one
 * thread's cycle equals a plain V-cycle written here (exact symmetric
 * Gauss-Seidel, l1-Jacobi, a dense coarse solve); hsp_amg_apply is
 * symmetric, positive and one stationary cycle; the history, an initial
 * guess, maxiter reached, a one-level hierarchy solved exactly, a re-setup
 * (its coarse factor made anew), a coarsest level too large to factor; float
 * levels (the outer iteration on the caller's double A, a re-setup's copy anew); a level
 * not on the host, bad options, a non-finite b, an indefinite
 * A under CG and a singular coarsest level refused, x untouched. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amg/amg.h"
#include "amg/amg_device.h"
#include "amg/solve.h"
#include "core/internal.h"
#include "device/context.h"
#include "ref.h"
#include "tap.h"

static hsp_context *ctx, *ctx1; /* the device under test's; one thread's */
/* the smoothers by hsp_smoother's numbers, and 4: Gauss-Seidel forward before, backward after */
static const char *const smoother_name[] = {"gauss-seidel symmetric", "jacobi", "l1-jacobi", "chebyshev",
                                            "gauss-seidel forward-backward"};
enum { GS_FORWARD_BACKWARD = 4, SMOOTHERS = 5 };

/* Options of smoother sm of smoother_name, the rest the defaults. */
static hsp_amg_solve_options options_of(int sm)
{
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.smoother = sm == GS_FORWARD_BACKWARD ? HSP_SMOOTHER_GAUSS_SEIDEL : (hsp_smoother)sm;
    o.sweep = sm == GS_FORWARD_BACKWARD ? HSP_SWEEP_FORWARD_BACKWARD : HSP_SWEEP_SYMMETRIC;
    return o;
}

/* y = A x. */
static void spmv(const hsp_csr *A, const double *x, double *y)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        double s = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += hsp_csr_value(A, k) * x[A->colidx[k]];
        y[i] = s;
    }
}

/* |b - A x| / |b| of x and b in A's precision, computed here in double. */
static double relres(const hsp_csr *A, const void *b, const void *x)
{
    int32_t n = A->nrows;
    double *xd = calloc(n, sizeof *xd), *y = malloc(n * sizeof *y), rr = 0, bb = 0;
    for (int32_t i = 0; i < n; i++)
        xd[i] = A->precision == HSP_DOUBLE ? ((const double *)x)[i] : ((const float *)x)[i];
    spmv(A, xd, y);
    for (int32_t i = 0; i < n; i++) {
        double bi = A->precision == HSP_DOUBLE ? ((const double *)b)[i] : ((const float *)b)[i];
        rr += (bi - y[i]) * (bi - y[i]), bb += bi * bi;
    }
    free(xd), free(y);
    return sqrt(rr / bb);
}

/* n values in precision p: v[i] = f(i) (0: ones, 1: a smooth-free pattern). */
static void *vector(hsp_precision p, int32_t n, int kind, double scale)
{
    void *v = malloc(n * (p == HSP_DOUBLE ? sizeof(double) : sizeof(float)));
    for (int32_t i = 0; i < n; i++) {
        double x = scale * (kind ? sin(0.37 * i + 1) + 0.5 * cos(1.91 * i) : 1.0);
        if (p == HSP_DOUBLE) ((double *)v)[i] = x;
        else ((float *)v)[i] = (float)x;
    }
    return v;
}

/* A symmetric diagonally dominant matrix with a random pattern: SPD, an M-matrix. */
static hsp_csr *random_spd(int32_t n, hsp_precision p, uint64_t seed)
{
    return ref_spd_of(ref_random(n, n, 2, 6, HSP_DOUBLE, seed), 0, 0.01, 0, p);
}

/* The hierarchy of A on c with float_levels f (coarse_size rows at the coarsest). */
static hsp_amg *setup_levels(hsp_context *c, const hsp_csr *A, int32_t coarse_size, int f)
{
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_amg_options_init(&o);
    o.coarse_size = coarse_size, o.strength = HSP_STRENGTH_SYMMETRIC, o.theta = 0; /* PyAMG's default, as the
                                                                                      counts of it here */
    o.float_levels = f;
    if (hsp_amg_setup(c, A, &o, &amg) != HSP_OK) tap_diag("setup: %s", hsp_errmsg());
    return amg;
}

/* The hierarchy of A (coarse_size rows at the coarsest), of A's precision. */
static hsp_amg *setup(hsp_context *c, const hsp_csr *A, int32_t coarse_size)
{
    return setup_levels(c, A, coarse_size, 0);
}

/* Solve A x = b (b: kind 1 pattern) with o; checks convergence, the residual here and the
 * history, and that iterations <= most; returns the iterations (-1 on failure). */
static int check_solve(const char *what, hsp_amg *amg, const hsp_amg_solve_options *o, int most)
{
    const hsp_csr *A = amg->level[0].A;
    void *b = vector(A->precision, A->nrows, 1, 1), *x = vector(A->precision, A->nrows, 0, 0);
    double hist[256];
    hsp_amg_solve_info info = {.history = hist, .history_size = 256};
    hsp_status s = hsp_amg_solve(ctx, amg, b, x, o, &info);
    double rel = s == HSP_OK ? relres(A, b, x) : NAN;
    int ok = s == HSP_OK && info.converged && rel <= o->tol * 1.001 && info.iterations <= most &&
             info.history_len == info.iterations + 1 && fabs(hist[info.iterations] - info.residual) <= 1e-3 * rel &&
             fabs(info.residual - rel) <= 1e-3 * o->tol;
    tap_ok(ok, "%s: %d iterations (at most %d), |b - Ax|/|b| = %.3g here, %.3g by the solve (tol %g) %s", what,
           info.iterations, most, rel, info.residual, o->tol, s == HSP_OK ? "" : hsp_errmsg());
    free(b), free(x);
    return ok ? info.iterations : -1;
}

/* Every smoother, V and W, CG and none, on spec in precision p. */
static void test_matrix(const char *spec, hsp_precision p)
{
    hsp_csr *A = NULL;
    hsp_generate(spec, 1, p, &A);
    hsp_amg *amg = setup(ctx, A, 100);
    if (!tap_ok(amg && amg->nlevels >= 3, "%s %s: a hierarchy of %d levels", spec, p ? "double" : "float",
                amg ? amg->nlevels : 0)) {
        hsp_csr_free(A);
        return;
    }
    for (int sm = 0; sm < SMOOTHERS; sm++)
        for (int cyc = 0; cyc < 2; cyc++)
            for (int acc = 0; acc < 2; acc++) {
                hsp_amg_solve_options o = options_of(sm);
                char what[128];
                o.cycle = cyc, o.accel = acc, o.maxiter = 200;
                o.tol = p == HSP_DOUBLE ? 1e-8 : 1e-5; /* a float x's own rounding: about 1e-7 */
                snprintf(what, sizeof what, "%s %s, %s, %c-cycle, %s", spec, p ? "double" : "float",
                         smoother_name[sm], cyc ? 'W' : 'V', acc ? "stationary" : "CG");
                check_solve(what, amg, &o, acc ? 120 : 30);
            }
    hsp_amg_free(amg), hsp_csr_free(A);
}

/* CG with symmetric Gauss-Seidel V(1,1) (PyAMG's default smoother) on poisson2d5:64,
 * coarse_size 10 (PyAMG's max_coarse: the same level sizes, 4096 704 80 9), in about PyAMG's
 * iterations (PyAMG 5.4.1 to 1e-8 with b = ones: 9, and 9 here; this b: 7 by PyAMG's
 * defaults), on the device's threads (hybrid) and one (exact); at most 12 catches a broken
 * cycle.  The default's (forward-backward) count: test_sweep. */
static void test_pyamg_count(void)
{
    hsp_csr *A = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &A);
    hsp_amg *amg = setup(ctx, A, 10), *amg1 = setup(ctx1, A, 10);
    hsp_amg_solve_options o = options_of(HSP_SMOOTHER_GAUSS_SEIDEL);
    tap_ok(amg && amg->nlevels == 4 && amg->level[1].A->nrows == 704 && amg->level[3].A->nrows == 9,
           "poisson2d5:64, coarse 10: PyAMG's levels 4096 704 80 9");
    int it = amg ? check_solve("poisson2d5:64, CG, symmetric Gauss-Seidel V(1,1)", amg, &o, 12) : -1;
    hsp_context *keep = ctx;
    ctx = ctx1;
    int it1 = amg1 ? check_solve("poisson2d5:64, symmetric, one thread (exact Gauss-Seidel)", amg1, &o, 12) : -1;
    ctx = keep;
    tap_diag("poisson2d5:64 CG + SGS V(1,1) to 1e-8: %d iterations (threads of the device), %d (one thread)", it,
             it1);
    hsp_amg_free(amg), hsp_amg_free(amg1), hsp_csr_free(A);
}

/* poisson2d5:64 at symmetric theta 0.5, where no connection is strong (|a_ij| = 1 < 0.5 * 4):
 * no aggregates, so a coarsest level of one empty row, as PyAMG's; its dense
 * solve gives 0 there (PyAMG's pinv), the cycle is the smoother's alone, and
 * CG converges (`hspgemm amg-solve --gen=poisson2d5:64 --theta=0.5 --coarse=10
 * --threads=1 --sweep=symmetric`, b = ones: PyAMG 5.4.1's 43 iterations with its default
 * smoother; 41 with this b). */
static void test_no_aggregates(void)
{
    hsp_csr *A = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &A);
    hsp_amg_options ao;
    hsp_amg_options_init(&ao);
    ao.coarse_size = 10, ao.strength = HSP_STRENGTH_SYMMETRIC, ao.theta = 0.5;
    hsp_amg *amg = NULL, *amg1 = NULL;
    hsp_status s = hsp_amg_setup(ctx, A, &ao, &amg);
    if (s == HSP_OK) s = hsp_amg_setup(ctx1, A, &ao, &amg1);
    if (!tap_ok(s == HSP_OK && amg->nlevels == 2 && amg->level[1].A->nrows == 1 && amg->level[1].A->nnz == 0,
                "poisson2d5:64, theta 0.5: levels 4096 1, the coarsest empty (PyAMG's) %s", s ? hsp_errmsg() : ""))
        goto done;
    hsp_amg_solve_options o = options_of(HSP_SMOOTHER_GAUSS_SEIDEL);
    check_solve("poisson2d5:64, theta 0.5 (no aggregates), the threads of the device", amg, &o, 50);
    hsp_context *keep = ctx;
    ctx = ctx1;
    check_solve("poisson2d5:64, theta 0.5 (no aggregates), one thread", amg1, &o, 50);
    ctx = keep;
done:
    hsp_amg_free(amg), hsp_amg_free(amg1), hsp_csr_free(A);
}

/* Gauss-Seidel forward before the coarse correction and backward after: on poisson2d5:64,
 * coarse_size 10 (PyAMG's levels), b = ones, one thread: PyAMG 5.4.1's 12 iterations with
 * presmoother ('gauss_seidel', {'sweep': 'forward'}) and postsmoother 'backward' (and its 9
 * with 'symmetric' both, ours too); the threads of the device converge as well. */
static void test_sweep(void)
{
    hsp_csr *A = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &A);
    hsp_amg *amg1 = setup(ctx1, A, 10), *amg = setup(ctx, A, 10);
    double *b = vector(HSP_DOUBLE, A->nrows, 0, 1), *x = calloc(A->nrows, sizeof *x); /* b = ones */
    int its[2] = {-1, -1};
    for (int w = 0; w < 2 && amg1; w++) {
        hsp_amg_solve_options o;
        hsp_amg_solve_options_init(&o);
        o.sweep = w ? HSP_SWEEP_FORWARD_BACKWARD : HSP_SWEEP_SYMMETRIC;
        hsp_amg_solve_info info = {0};
        memset(x, 0, A->nrows * sizeof *x);
        if (hsp_amg_solve(ctx1, amg1, b, x, &o, &info) == HSP_OK && info.converged) its[w] = info.iterations;
    }
    tap_ok(its[0] == 9 && its[1] == 12, "poisson2d5:64, b = ones, one thread: %d iterations symmetric, %d "
           "forward-backward (PyAMG's 9 and 12)", its[0], its[1]);
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.sweep = HSP_SWEEP_FORWARD_BACKWARD;
    if (amg) check_solve("poisson2d5:64, gauss-seidel forward-backward, the threads of the device", amg, &o, 16);
    free(b), free(x), hsp_amg_free(amg), hsp_amg_free(amg1), hsp_csr_free(A);
}

/* The parts of level 0's rows amg's solves use (0 before the first). */
static int parts(const hsp_amg *amg)
{
    return amg->state->solve ? (int)amg->state->solve->level[0].A.nparts : 0;
}

/* ---- a plain V-cycle, one thread's reference ---- */

/* Row i of A times x, and a_ii into *d, sum_j |a_ij| into *l1. */
static double row(const hsp_csr *A, int32_t i, const double *x, double *d, double *l1)
{
    double s = 0;
    *d = 0, *l1 = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        double a = hsp_csr_value(A, k);
        s += a * x[A->colidx[k]], *l1 += fabs(a);
        if (A->colidx[k] == i) *d = a;
    }
    return s;
}

/* x += w r / scale, r = b - A x (scale: a_ii, or sum_j |a_ij| where l1). */
static void plain_jacobi(const hsp_csr *A, double *x, const double *b, double w, int l1)
{
    int32_t n = A->nrows;
    double *r = malloc(n * sizeof *r), d, s;
    for (int32_t i = 0; i < n; i++) r[i] = b[i] - row(A, i, x, &d, &s), r[i] *= w / (l1 ? s : d);
    for (int32_t i = 0; i < n; i++) x[i] += r[i];
    free(r);
}

/* A Gauss-Seidel sweep over each of the level's parts of rows (cut), forward or backward,
 * the other parts' values from before the sweep. */
static void plain_gauss_seidel(const hsp_csr *A, double *x, const double *b, const hsp_rows *parts, int backward)
{
    int32_t n = A->nrows;
    double *old = malloc(n * sizeof *old), d, l1;
    memcpy(old, x, n * sizeof *x);
    for (int64_t p = 0; p < parts->nparts; p++) {
        int32_t lo = (int32_t)parts->cut[p], hi = (int32_t)parts->cut[p + 1];
        for (int32_t k = 0; k < hi - lo; k++) {
            int32_t i = backward ? hi - 1 - k : lo + k;
            double sum = 0;
            for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; e++) {
                int32_t j = A->colidx[e];
                sum += hsp_csr_value(A, e) * (j >= lo && j < hi ? x[j] : old[j]);
            }
            row(A, i, x, &d, &l1);
            x[i] += (b[i] - sum) / d;
        }
    }
    free(old);
}

/* Chebyshev's polynomial in D^-1 A of the default options' degree over [their lower rho, 1.1 rho]
 * (Saad's Algorithm 12.1). */
static void plain_chebyshev(const hsp_csr *A, double *x, const double *b, double rho)
{
    int32_t n = A->nrows;
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    double lo = o.chebyshev_lower * rho, hi = 1.1 * rho, theta = (hi + lo) / 2, delta = (hi - lo) / 2, sigma = theta / delta;
    double rk = 1 / sigma, *dir = calloc(n, sizeof *dir), d, l1;
    for (int k = 0; k < o.chebyshev_degree; k++) {
        double next = 1 / (2 * sigma - rk);
        for (int32_t i = 0; i < n; i++) {
            double r = (b[i] - row(A, i, x, &d, &l1)) / d;
            dir[i] = k ? next * rk * dir[i] + 2 * next / delta * r : r / theta;
        }
        for (int32_t i = 0; i < n; i++) x[i] += dir[i];
        if (k) rk = next;
    }
    free(dir);
}

/* One sweep of smoother sm of smoother_name on level v's A x = b (the solve data's parts and
 * rho), after the coarse correction or before. */
static void plain_smooth(const hsp_csr *A, const hsp_solve_level *v, double *x, const double *b, int sm, int after)
{
    switch (sm) {
    case HSP_SMOOTHER_GAUSS_SEIDEL:
        plain_gauss_seidel(A, x, b, &v->A, 0), plain_gauss_seidel(A, x, b, &v->A, 1);
        break;
    case GS_FORWARD_BACKWARD: plain_gauss_seidel(A, x, b, &v->A, after); break;
    case HSP_SMOOTHER_JACOBI: plain_jacobi(A, x, b, 1 / v->rho, 0); break;
    case HSP_SMOOTHER_L1_JACOBI: plain_jacobi(A, x, b, 1, 1); break;
    default: plain_chebyshev(A, x, b, v->rho); break;
    }
}

/* The (1,1) cycle at level l from x, V or W (the coarsest level visited once), smoother sm. */
static void plain_cycle(const hsp_amg *amg, int l, double *x, const double *b, int sm, int w)
{
    const hsp_csr *A = amg->level[l].A;
    const hsp_solve_level *v = &amg->state->solve->level[l];
    int32_t n = A->nrows;
    if (l == amg->nlevels - 1) {
        ref_dense_solve(A, b, x);
        return;
    }
    int32_t nc = amg->level[l + 1].A->nrows;
    double *r = malloc(n * sizeof *r), *bc = malloc(nc * sizeof *bc), *xc = calloc(nc, sizeof *xc);
    double *e = malloc(n * sizeof *e);
    plain_smooth(A, v, x, b, sm, 0);
    spmv(A, x, r);
    for (int32_t i = 0; i < n; i++) r[i] = b[i] - r[i];
    spmv(amg->level[l].R, r, bc);
    for (int k = 0; k < (w && l + 2 < amg->nlevels ? 2 : 1); k++) plain_cycle(amg, l + 1, xc, bc, sm, w);
    spmv(amg->level[l].P, xc, e);
    for (int32_t i = 0; i < n; i++) x[i] += e[i];
    plain_smooth(A, v, x, b, sm, 1);
    free(r), free(bc), free(xc), free(e);
}

/* hsp_amg_apply on c and amg, every smoother, V and W, against the plain cycle of the
 * same parts of rows (one: exactly Gauss-Seidel) and rho. */
static void against_plain(const char *spec, hsp_context *c, hsp_amg *amg, const double *u, double *mu,
                          double *plain)
{
    int32_t n = amg->level[0].A->nrows;
    for (int sm = 0; sm < SMOOTHERS; sm++)
        for (int w = 0; w < 2; w++) {
            hsp_amg_solve_options o = options_of(sm);
            o.cycle = w;
            hsp_status s = hsp_amg_apply(c, amg, u, mu, &o);
            memset(plain, 0, n * sizeof *plain);
            if (s == HSP_OK) plain_cycle(amg, 0, plain, u, sm, w);
            double diff = 0, size = 0;
            for (int32_t i = 0; i < n; i++) diff = fmax(diff, fabs(mu[i] - plain[i])), size = fmax(size, fabs(plain[i]));
            tap_ok(s == HSP_OK && diff <= 1e-10 * size, "%s, %s, %c(1,1), %d part(s) of level 0's rows: "
                   "hsp_amg_apply is the plain cycle (%d levels; max difference %.3g of %.3g)", spec,
                   smoother_name[sm], w ? 'W' : 'V', parts(amg), amg->nlevels, diff, size);
        }
}

/* hsp_amg_apply, on one thread and on the device's, is the plain cycle of every smoother,
 * V and W; on the device's threads it is symmetric (<Mu, v> = <u, Mv>), positive (r.Mr > 0),
 * the same bits twice and one stationary iteration from zero. */
static void test_apply(const char *spec)
{
    hsp_csr *A = NULL;
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    hsp_amg *amg1 = setup(ctx1, A, 50), *amg = setup(ctx, A, 50);
    int32_t n = A->nrows;
    double *u = vector(HSP_DOUBLE, n, 1, 1), *v = malloc(n * sizeof *v), *mu = malloc(n * sizeof *mu);
    double *mv = malloc(n * sizeof *mv), *plain = malloc(n * sizeof *plain), *x = calloc(n, sizeof *x);
    for (int32_t i = 0; i < n; i++) v[i] = cos(0.013 * i * i);
    if (amg1) against_plain(spec, ctx1, amg1, u, mu, plain);
    if (amg) against_plain(spec, ctx, amg, u, mu, plain);
    if (amg && amg1) { /* the hierarchy of the device's threads, solved on one: its solve data made anew */
        hsp_amg_solve_options o;
        hsp_amg_solve_options_init(&o);
        hsp_status s = hsp_amg_apply(ctx, amg, u, mv, &o);
        int before = parts(amg);
        if (s == HSP_OK) s = hsp_amg_apply(ctx1, amg, u, mu, &o);
        memset(plain, 0, n * sizeof *plain);
        plain_cycle(amg, 0, plain, u, GS_FORWARD_BACKWARD, 0);
        double diff = 0, size = 0;
        for (int32_t i = 0; i < n; i++) diff = fmax(diff, fabs(mu[i] - plain[i])), size = fmax(size, fabs(plain[i]));
        tap_ok(s == HSP_OK && diff <= 1e-10 * size && parts(amg) == 1, "%s: a hierarchy applied on one thread after "
               "%d parts of its rows is the plain cycle (its solve data made anew)", spec, before);
    }
    for (int sm = 0; sm < SMOOTHERS && amg; sm++)
        for (int cyc = 0; cyc < 2; cyc++) {
            hsp_amg_solve_options o = options_of(sm);
            o.cycle = cyc, o.pre = 2, o.post = 2;
            hsp_status s = hsp_amg_apply(ctx, amg, u, mu, &o);
            if (s == HSP_OK) s = hsp_amg_apply(ctx, amg, v, mv, &o);
            double umv = 0, vmu = 0, umu = 0;
            for (int32_t i = 0; i < n; i++) umv += u[i] * mv[i], vmu += v[i] * mu[i], umu += u[i] * mu[i];
            tap_ok(s == HSP_OK && fabs(umv - vmu) <= 1e-10 * (fabs(umv) + fabs(vmu)) && umu > 0,
                   "%s, %s, %c(2,2): <u, Mv> = %.12g, <Mu, v> = %.12g; u.Mu = %.6g > 0", spec, smoother_name[sm],
                   cyc ? 'W' : 'V', umv, vmu, umu);
            if (s == HSP_OK) s = hsp_amg_apply(ctx, amg, v, x, &o);
            tap_ok(s == HSP_OK && !memcmp(x, mv, n * sizeof *x), "%s, %s, %c(2,2): the same bits twice (on %d parts "
                   "of level 0's rows)", spec, smoother_name[sm], cyc ? 'W' : 'V', parts(amg));
            o.accel = HSP_ACCEL_NONE, o.maxiter = 1, o.tol = 0;
            s = hsp_amg_solve(ctx, amg, u, x, &o, NULL);
            int same = s == HSP_OK && !memcmp(x, mu, n * sizeof *x);
            tap_ok(same, "%s, %s, %c(2,2): hsp_amg_apply is one stationary iteration from zero", spec,
                   smoother_name[sm], cyc ? 'W' : 'V');
        }
    free(u), free(v), free(mu), free(mv), free(plain), free(x);
    hsp_amg_free(amg), hsp_amg_free(amg1), hsp_csr_free(A);
}

/* An initial guess (the history's first entry its residual), maxiter reached
 * (no error: converged 0), the history cut at history_size, b = 0. */
static void test_iterations(void)
{
    hsp_csr *A = NULL;
    hsp_generate("poisson3d7:16", 1, HSP_DOUBLE, &A);
    hsp_amg *amg = setup(ctx, A, 100);
    int32_t n = A->nrows;
    double *b = vector(HSP_DOUBLE, n, 1, 1), *x = vector(HSP_DOUBLE, n, 1, 3), hist[4];
    double r0 = relres(A, b, x);
    hsp_amg_solve_options o;
    hsp_amg_solve_info info = {.history = hist, .history_size = 4};
    hsp_amg_solve_options_init(&o);
    o.x0 = 1, o.maxiter = 6, o.tol = 1e-14;
    hsp_status s = hsp_amg_solve(ctx, amg, b, x, &o, &info);
    tap_ok(s == HSP_OK && !info.converged && info.iterations == 6 && info.history_len == 4 &&
           fabs(hist[0] - r0) <= 1e-12 * r0 && hist[3] < hist[0] && info.residual > 1e-14,
           "maxiter 6 from a given x: HSP_OK, not converged, 6 iterations, 4 of history (its size), history[0] = "
           "%.6g (here %.6g), final %.3g", hist[0], r0, info.residual);
    o.tol = 1e-8, o.maxiter = 100;
    s = hsp_amg_solve(ctx, amg, b, x, &o, &info);
    tap_ok(s == HSP_OK && info.converged && info.iterations < 8 && relres(A, b, x) <= 1e-8,
           "continued from there: converged in %d iterations", info.iterations);
    s = hsp_amg_solve(ctx, amg, b, x, &o, &info);
    tap_ok(s == HSP_OK && info.converged && info.iterations == 0 && info.history_len == 1,
           "from the solution: 0 iterations, history of 1 (%d, %d)", info.iterations, info.history_len);
    memset(b, 0, n * sizeof *b);
    s = hsp_amg_solve(ctx, amg, b, x, &o, &info);
    int zero = 1;
    for (int32_t i = 0; i < n; i++) zero &= x[i] == 0;
    tap_ok(s == HSP_OK && info.converged && zero, "b = 0: x = 0, converged");
    free(b), free(x), hsp_amg_free(amg), hsp_csr_free(A);
}

/* A of fewer rows than coarse_size: one level, its dense factor solves exactly (CG:
 * 1 iteration; stationary: 1); after a re-setup with 2A, the solution is 2A's (the
 * factor made anew). */
static void test_one_level(void)
{
    hsp_csr *A = NULL, *B = NULL;
    hsp_generate("poisson2d9:20", 1, HSP_DOUBLE, &A);
    hsp_amg *amg = setup(ctx, A, 1000);
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    tap_ok(amg && amg->nlevels == 1, "poisson2d9:20 below coarse_size: one level");
    if (!amg) return;
    tap_ok(check_solve("one level, CG", amg, &o, 1) == 1, "one level, CG: exact in one iteration");
    o.accel = HSP_ACCEL_NONE;
    tap_ok(check_solve("one level, stationary", amg, &o, 1) == 1, "one level, stationary: exact in one");
    hsp_csr_convert(A, HSP_DOUBLE, &B);
    for (int64_t k = 0; k < B->nnz; k++) ((double *)B->values)[k] *= 2;
    hsp_status s = hsp_amg_resetup(ctx, amg, B);
    tap_ok(s == HSP_OK && check_solve("one level after a re-setup with 2A", amg, &o, 1) == 1,
           "after a re-setup with 2A: 2A's solution in one iteration (the factor made anew)");
    hsp_amg_free(amg), hsp_csr_free(A), hsp_csr_free(B);
}

/* Is x still all `value`? */
static int untouched(const double *x, int32_t n, double value)
{
    for (int32_t i = 0; i < n; i++)
        if (x[i] != value) return 0;
    return 1;
}

/* A coarsest level of more than 5000 rows (max_levels reached first) is smoothed, not
 * factored: CG still converges (with one level, CG preconditioned by symmetric
 * Gauss-Seidel alone); a level not on the host (as a resident hierarchy's before
 * hsp_amg_home) is refused, naming hsp_amg_home. */
static void test_large_coarse(void)
{
    for (int levels = 1; levels <= 2; levels++) {
        hsp_csr *A = NULL;
        hsp_amg_options ao;
        hsp_amg *amg = NULL;
        hsp_amg_solve_options o;
        char what[96];
        hsp_amg_options_init(&ao);
        ao.max_levels = levels;
        hsp_generate(levels == 1 ? "poisson2d5:80" : "poisson2d5:200", 1, HSP_DOUBLE, &A);
        hsp_amg_solve_options_init(&o);
        o.maxiter = 400;
        if (hsp_amg_setup(ctx, A, &ao, &amg) == HSP_OK) {
            snprintf(what, sizeof what, "%d level(s), the coarsest of %d rows smoothed", levels,
                     amg->level[amg->nlevels - 1].A->nrows);
            check_solve(what, amg, &o, levels == 1 ? 400 : 100);
        }
        if (amg && levels == 2) {
            double *b = vector(HSP_DOUBLE, A->nrows, 1, 1), *x = vector(HSP_DOUBLE, A->nrows, 0, 7);
            const hsp_csr *keep = amg->level[1].A;
            amg->level[1].A = NULL;
            hsp_status s = hsp_amg_solve(ctx, amg, b, x, NULL, NULL);
            tap_ok(s == HSP_ERR_ARG && strstr(hsp_errmsg(), "hsp_amg_home") && untouched(x, A->nrows, 7),
                   "a level not on the host refused, x untouched: %s", hsp_errmsg());
            amg->level[1].A = keep;
            free(b), free(x);
        }
        hsp_amg_free(amg), hsp_csr_free(A);
    }
}

/* A re-setup with a perturbed A: the solve converges to the new A's solution. */
static void test_resetup(void)
{
    hsp_csr *A = NULL, *B = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &A);
    hsp_amg *amg = setup(ctx, A, 100);
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    if (!amg) return;
    check_solve("poisson2d5:64 before the re-setup", amg, &o, 20);
    hsp_csr_convert(A, HSP_DOUBLE, &B);
    for (int32_t i = 0; i < B->nrows; i++)
        for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++)
            ((double *)B->values)[k] *= B->colidx[k] == i ? 1.5 + 0.5 * sin(i) : 1;
    hsp_status s = hsp_amg_resetup(ctx, amg, B);
    tap_ok(s == HSP_OK, "re-setup with a larger diagonal %s", s == HSP_OK ? "" : hsp_errmsg());
    check_solve("poisson2d5:64 after the re-setup (the new A's residual)", amg, &o, 20);
    hsp_amg_free(amg), hsp_csr_free(A), hsp_csr_free(B);
}

/* D A D of spec's A, D a diagonal of values in [0.5, 2]: SPD, its values none that a float holds. */
static hsp_csr *scaled_spd(const char *spec)
{
    hsp_csr *A = NULL;
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    for (int32_t i = 0; A && i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            ((double *)A->values)[k] *= (1.25 + 0.75 * sin(1.3 * i)) * (1.25 + 0.75 * sin(1.3 * A->colidx[k]));
    return A;
}

/* The largest |difference| of two matrices' values of one pattern, over the largest |value| of y. */
static double values_apart(const hsp_csr *x, const hsp_csr *y)
{
    double most = 0, diff = x->nnz == y->nnz ? 0 : INFINITY;
    for (int64_t k = 0; k < x->nnz && k < y->nnz; k++) {
        double d = fabs(hsp_csr_value(x, k) - hsp_csr_value(y, k));
        diff = d > diff ? d : diff, most = fabs(hsp_csr_value(y, k)) > most ? fabs(hsp_csr_value(y, k)) : most;
    }
    return most > 0 ? diff / most : diff;
}

/* float_levels on a double A (named spec; freed): level 0's A the caller's, P, R and the coarse levels float;
 * CG, W-cycles and the stationary cycles solve to tol by the residual here (the stationary
 * ones to 1e-11, past the float copy's own solution: they correct from b - A x in double) in
 * the double levels' iterations, one more or less; the coarsest level factored by Cholesky. */
static void test_float_levels(const char *spec, hsp_csr *A)
{
    hsp_amg *f = setup_levels(ctx, A, 100, 1), *d = setup_levels(ctx, A, 100, 0);
    int ok = f && d && f->nlevels == d->nlevels && f->nlevels >= 3 && f->level[0].A == A;
    for (int l = 0; ok && l < f->nlevels; l++)
        ok = (l == 0 || f->level[l].A->precision == HSP_FLOAT) &&
             (l + 1 == f->nlevels || (f->level[l].P->precision == HSP_FLOAT && f->level[l].R->precision == HSP_FLOAT));
    if (!tap_ok(ok, "float levels, %s: %d levels as the double ones' %d, level 0's A the caller's, the rest float",
                spec, f ? f->nlevels : 0, d ? d->nlevels : 0))
        goto done;
    for (int way = 0; way < 4; way++) {
        hsp_amg_solve_options o = options_of(way == 1 ? HSP_SMOOTHER_CHEBYSHEV : way == 2 ? HSP_SMOOTHER_JACOBI
                                                      : way == 3 ? HSP_SMOOTHER_L1_JACOBI : GS_FORWARD_BACKWARD);
        char what[160];
        o.cycle = way == 2 ? HSP_CYCLE_W : HSP_CYCLE_V, o.maxiter = 200;
        o.accel = way == 3 ? HSP_ACCEL_NONE : HSP_ACCEL_CG, o.tol = way == 3 ? 1e-11 : 1e-8;
        snprintf(what, sizeof what, "float levels, %s, %s %s %c, tol %g: the double levels' solve", spec,
                 smoother_name[way == 0 ? GS_FORWARD_BACKWARD : o.smoother], way == 3 ? "none" : "cg",
                 way == 2 ? 'W' : 'V', o.tol);
        int with_double = check_solve(what, d, &o, 200);
        snprintf(what, sizeof what, "float levels, %s, %s %s %c, tol %g", spec,
                 smoother_name[way == 0 ? GS_FORWARD_BACKWARD : o.smoother], way == 3 ? "none" : "cg",
                 way == 2 ? 'W' : 'V', o.tol);
        check_solve(what, f, &o, with_double + 1);
    }
    const hsp_amg_solve_data *sd = f->state->solve;
    tap_ok(sd && sd->coarse.n > 0 && !sd->coarse.perm, "float levels, %s: the coarsest level (%d rows) by Cholesky, "
           "symmetric to float's rounding", spec, sd ? sd->coarse.n : 0);
done:
    hsp_amg_free(f), hsp_amg_free(d), hsp_csr_free(A);
}

/* A re-setup of float levels makes the float copy anew: level 1's values those of the double
 * levels' re-setup (to float's rounding), level 0's A the new one; a float A makes no copy
 * (the levels as without the option); float_levels out of range refused. */
static void test_float_resetup(void)
{
    hsp_csr *A = NULL, *B = NULL, *F = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &A);
    hsp_csr_convert(A, HSP_DOUBLE, &B);
    for (int32_t i = 0; i < B->nrows; i++)
        for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++)
            ((double *)B->values)[k] *= B->colidx[k] == i ? 1.5 + 0.5 * sin(i) : 1;
    hsp_amg *f = setup_levels(ctx, A, 100, 1), *d = setup_levels(ctx, A, 100, 0);
    hsp_status s = f && d ? hsp_amg_resetup(ctx, f, B) : HSP_ERR_ARG;
    if (s == HSP_OK) s = hsp_amg_resetup(ctx, d, B);
    double apart = s == HSP_OK ? values_apart(f->level[1].A, d->level[1].A) : INFINITY;
    tap_ok(s == HSP_OK && f->level[0].A == B && apart <= 1e-5, "float levels re-set up for a new A: level 1 "
           "%.2g from the double levels' (at most 1e-5), level 0's A the new one %s", apart, s ? hsp_errmsg() : "");
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    if (s == HSP_OK) check_solve("float levels after the re-setup (the new A's residual)", f, &o, 20);
    hsp_amg_free(f), hsp_amg_free(d);
    hsp_csr_convert(A, HSP_FLOAT, &F);
    f = setup_levels(ctx, F, 100, 1), d = setup_levels(ctx, F, 100, 0);
    tap_ok(f && d && !f->state->fine_values && f->nlevels == d->nlevels && f->level[0].A == F &&
               ref_identical(f->level[1].A, d->level[1].A),
           "float levels of a float A: no copy, the levels as without the option");
    hsp_amg_free(f), hsp_amg_free(d);
    hsp_amg_options ao;
    hsp_amg_options_init(&ao);
    ao.float_levels = 2;
    hsp_amg *none = NULL;
    s = hsp_amg_setup(ctx, A, &ao, &none);
    tap_ok(s == HSP_ERR_ARG && !none && strstr(hsp_errmsg(), "float_levels = 2"), "float_levels = 2 refused: %s",
           hsp_errmsg());
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(F);
}

/* A random SPD matrix (an M-matrix) in both precisions. */
static void test_random(void)
{
    for (int p = 0; p < 2; p++) {
        hsp_csr *A = random_spd(20000, p, 5);
        hsp_amg *amg = setup(ctx, A, 200);
        hsp_amg_solve_options o;
        char what[64];
        hsp_amg_solve_options_init(&o);
        o.tol = p ? 1e-8 : 1e-5;
        snprintf(what, sizeof what, "random SPD 20000 rows, %s, %d levels", p ? "double" : "float",
                 amg ? amg->nlevels : 0);
        if (amg) check_solve(what, amg, &o, 40);
        hsp_amg_free(amg), hsp_csr_free(A);
    }
}

/* Bad options, NULL arguments, NaN and Inf in b or x0 refused (HSP_ERR_ARG,
 * the message naming the option), x untouched; an indefinite A under CG (its
 * breakdown reported), and a singular coarsest level. */
static void test_errors(void)
{
    hsp_csr *A = NULL, *N = NULL;
    hsp_generate("poisson2d5:40", 1, HSP_DOUBLE, &A);
    hsp_amg *amg = setup(ctx, A, 100);
    int32_t n = A->nrows;
    double *b = vector(HSP_DOUBLE, n, 1, 1), *x = vector(HSP_DOUBLE, n, 0, 7);
    static const char *const names[] = {"tol", "maxiter", "accel", "cycle", "smoother", "pre", "jacobi_omega",
                                        "chebyshev_degree", "x0", "post", "sweep", "chebyshev_lower",
                                        "chebyshev_lower", "chebyshev_lower"};
    for (int k = 0; k < 14 && amg; k++) {
        hsp_amg_solve_options o;
        hsp_amg_solve_options_init(&o);
        switch (k) {
        case 0: o.tol = NAN; break;
        case 1: o.maxiter = -1; break;
        case 2: o.accel = 7; break;
        case 3: o.cycle = 2; break;
        case 4: o.smoother = 5; break;
        case 5: o.pre = 101; break;
        case 6: o.jacobi_omega = 2; break;
        case 7: o.chebyshev_degree = 0; break;
        case 8: o.x0 = 2; break;
        case 9: o.post = -1; break;
        case 10: o.sweep = 2; break;
        case 11: o.chebyshev_lower = 0; break;
        case 12: o.chebyshev_lower = 1.1; break;
        case 13: o.chebyshev_lower = NAN; break;
        }
        hsp_status s = hsp_amg_solve(ctx, amg, b, x, &o, NULL);
        hsp_status s2 = hsp_amg_apply(ctx, amg, b, x, &o);
        int named = strstr(hsp_errmsg(), names[k]) != NULL;
        tap_ok((s == HSP_ERR_ARG && (k < 2 || s2 == HSP_ERR_ARG)) && named && untouched(x, n, 7),
               "bad %s refused, x untouched: %s", names[k], hsp_errmsg());
    }
    tap_ok(hsp_amg_solve(NULL, amg, b, x, NULL, NULL) == HSP_ERR_ARG &&
           hsp_amg_solve(ctx, NULL, b, x, NULL, NULL) == HSP_ERR_ARG &&
           hsp_amg_solve(ctx, amg, NULL, x, NULL, NULL) == HSP_ERR_ARG &&
           hsp_amg_apply(ctx, amg, b, NULL, NULL) == HSP_ERR_ARG, "NULL arguments refused");
    for (int k = 0; k < 2; k++) {
        b[17] = k ? INFINITY : NAN;
        tap_ok(hsp_amg_solve(ctx, amg, b, x, NULL, NULL) == HSP_ERR_ARG && untouched(x, n, 7) &&
               strstr(hsp_errmsg(), "b[17]"), "%s in b refused, x untouched: %s", k ? "Inf" : "NaN", hsp_errmsg());
    }
    b[17] = 1, x[3] = NAN;
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.x0 = 1;
    tap_ok(hsp_amg_solve(ctx, amg, b, x, &o, NULL) == HSP_ERR_ARG && strstr(hsp_errmsg(), "x (the initial guess)[3]"),
           "NaN in the initial x refused: %s", hsp_errmsg());
    x[3] = 7;
    hsp_csr_convert(A, HSP_DOUBLE, &N);
    for (int64_t k = 0; k < N->nnz; k++) ((double *)N->values)[k] *= -1;
    hsp_amg *neg = setup(ctx, N, 100);
    hsp_status s = neg ? hsp_amg_solve(ctx, neg, b, x, NULL, NULL) : HSP_ERR_ARG;
    tap_ok(s == HSP_ERR_ARG && strstr(hsp_errmsg(), "broke down") && untouched(x, n, 7),
           "-A (negative definite) under CG: breakdown reported, x untouched: %s", hsp_errmsg());
    hsp_amg_free(neg), hsp_csr_free(N);
    /* a path's Laplacian (Neumann: rows sum to 0) is singular */
    int32_t rows[28], cols[28];
    double vals[28];
    int k = 0;
    for (int32_t i = 0; i < 10; i++) {
        if (i > 0) rows[k] = i, cols[k] = i - 1, vals[k++] = -1;
        rows[k] = i, cols[k] = i, vals[k++] = i == 0 || i == 9 ? 1 : 2;
        if (i < 9) rows[k] = i, cols[k] = i + 1, vals[k++] = -1;
    }
    hsp_csr_from_triplets(10, 10, k, rows, cols, vals, HSP_DOUBLE, &N);
    hsp_amg *sing = setup(ctx, N, 100);
    s = sing ? hsp_amg_solve(ctx, sing, b, x, NULL, NULL) : HSP_ERR_ARG;
    tap_ok(s == HSP_ERR_ARG && strstr(hsp_errmsg(), "singular") && untouched(x, 10, 7),
           "a singular coarsest level refused, x untouched: %s", hsp_errmsg());
    hsp_amg_free(sing), hsp_csr_free(N);
    /* one level, not symmetric: its LU (rows swapped) solves it in one stationary iteration */
    hsp_csr_from_triplets(3, 3, 7, (const int32_t[]){0, 0, 1, 1, 1, 2, 2}, (const int32_t[]){0, 1, 0, 1, 2, 1, 2},
                          (const double[]){1, 4, 3, 1, 2, 2, 1}, HSP_DOUBLE, &N);
    sing = setup(ctx, N, 100);
    o.x0 = 0, o.accel = HSP_ACCEL_NONE;
    if (sing) check_solve("one level of [1 4 0; 3 1 2; 0 2 1] (LU, rows swapped), stationary", sing, &o, 1);
    hsp_amg_free(sing), hsp_csr_free(N);
    /* one level, factored: the zeros on its diagonal need no smoother */
    hsp_csr_from_triplets(2, 2, 2, (const int32_t[]){0, 1}, (const int32_t[]){1, 0}, (const double[]){1, 1},
                          HSP_DOUBLE, &N);
    sing = setup(ctx, N, 100);
    if (sing) check_solve("one level of [0 1; 1 0] (LU, rows swapped), stationary", sing, &o, 1);
    hsp_amg_free(sing), hsp_csr_free(N);
    /* one level too large to factor (no set-up check of its diagonal): a zero on it refused by the solve */
    int32_t big = HSP_DENSE_MAX + 1;
    hsp_generate("band:5001,1", 1, HSP_DOUBLE, &N);
    for (int64_t k = N->rowptr[0]; k < N->rowptr[1]; k++) ((double *)N->values)[k] = N->colidx[k] == 0 ? 0 : 1;
    sing = N && N->nrows == big ? setup(ctx, N, big) : NULL;
    double *bb = calloc(big, sizeof *bb), *xb = calloc(big, sizeof *xb);
    for (int32_t i = 0; i < big; i++) xb[i] = 7, bb[i] = 1;
    s = sing ? hsp_amg_solve(ctx, sing, bb, xb, NULL, NULL) : HSP_ERR_ARG;
    tap_ok(s == HSP_ERR_ARG && strstr(hsp_errmsg(), "row 0 of A has no nonzero diagonal") && untouched(xb, big, 7),
           "a zero on the diagonal of a one-level hierarchy of %d rows (smoothed) refused, x untouched: %s", big,
           hsp_errmsg());
    free(bb), free(xb), hsp_amg_free(sing), hsp_csr_free(N);
    free(b), free(x), hsp_amg_free(amg), hsp_csr_free(A);
}

/* Does the context's device hold hierarchies of its own (memory of its own)? */
static int ctx_device_holds(void)
{
    return ctx->device->amg != NULL;
}

/* One solve of A x = b (b: the kind 1 pattern) by amg with o: the status, x, info. */
static hsp_status solve_once(hsp_amg *amg, const hsp_csr *A, const hsp_amg_solve_options *o, void **x,
                             hsp_amg_solve_info *info)
{
    void *b = vector(A->precision, A->nrows, 1, 1);
    *x = vector(A->precision, A->nrows, 0, 0);
    hsp_status s = hsp_amg_solve(ctx, amg, b, *x, o, info);
    free(b);
    return s;
}

/* One cycle (hsp_amg_apply, Chebyshev) of the device's hierarchy against the
 * same on the CPU threads: the largest difference against the largest entry. */
static void device_apply(hsp_amg *dev_amg, hsp_amg *host_amg, const hsp_csr *A)
{
    hsp_precision p = A->precision;
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.smoother = HSP_SMOOTHER_CHEBYSHEV;
    void *r = vector(p, A->nrows, 1, 1), *zd = vector(p, A->nrows, 0, 0), *zh = vector(p, A->nrows, 0, 0);
    hsp_status sd = hsp_amg_apply(ctx, dev_amg, r, zd, &o), sh = hsp_amg_apply(ctx, host_amg, r, zh, &o);
    double diff = 0, most = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double d = p == HSP_DOUBLE ? ((double *)zd)[i] : ((float *)zd)[i];
        double h = p == HSP_DOUBLE ? ((double *)zh)[i] : ((float *)zh)[i];
        diff = fmax(diff, fabs(d - h)), most = fmax(most, fabs(h));
    }
    tap_ok(sd == HSP_OK && sh == HSP_OK && most > 0 && diff <= (p == HSP_DOUBLE ? 1e-10 : 1e-4) * most,
           "device apply, %d rows %s: one cycle as the CPU threads' (largest difference %.2g of %.2g)", A->nrows,
           p == HSP_DOUBLE ? "double" : "float", diff, most);
    free(r), free(zd), free(zh);
}

/* The device's hierarchy set up again for A with its diagonal raised by a
 * half (values only, on the device), then a solve of that A converging; *MB:
 * that A placed, level 0 of the hierarchy now (the caller frees it after). */
static void device_resetup(hsp_amg *dev_amg, const hsp_csr *A, hsp_resident **out)
{
    hsp_csr *B = NULL;
    hsp_resident *MB = NULL;
    hsp_csr_convert(A, A->precision, &B);
    for (int32_t i = 0; i < B->nrows; i++)
        for (int64_t k = B->rowptr[i]; k < B->rowptr[i + 1]; k++)
            if (B->colidx[k] == i) hsp_csr_set_value(B, k, hsp_csr_value(B, k) + 0.5);
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.tol = A->precision == HSP_DOUBLE ? 1e-8 : 1e-5;
    hsp_amg_solve_info info = {0};
    void *x = NULL, *b = vector(A->precision, A->nrows, 1, 1);
    hsp_status s = hsp_place(ctx, B, &MB);
    if (s == HSP_OK) s = hsp_amg_resetup_resident(ctx, dev_amg, MB);
    if (s == HSP_OK) s = solve_once(dev_amg, B, &o, &x, &info);
    double rel = s == HSP_OK ? relres(B, b, x) : NAN;
    tap_ok(s == HSP_OK && info.on_device && rel <= o.tol * 1.01, "device re-setup, then a solve of the new A: %d "
           "iterations, |b - Ax|/|b| = %.3g here %s", info.iterations, rel, s ? hsp_errmsg() : "");
    free(x), free(b);
    hsp_csr_free(B);
    *out = MB;
}

/* The solve where a device with memory of its own holds the hierarchy
 * (hsp_amg_setup_resident): every smoother it runs, V and W, CG and none,
 * against the same solve of hsp_amg_setup's hierarchy on the CPU threads:
 * converged by the residual worked out here, on the device, in as many
 * iterations (one more or less: the device's vectors are of A's precision,
 * the threads' double); Gauss-Seidel refused, x untouched. */
static void test_device(const char *spec, hsp_precision p)
{
    hsp_csr *A = NULL;
    hsp_resident *M = NULL, *MB = NULL;
    hsp_amg *dev_amg = NULL, *host_amg = NULL;
    hsp_amg_options ao;
    hsp_amg_options_init(&ao);
    ao.coarse_size = 60, ao.aggregation = HSP_AGGREGATION_PARALLEL; /* the device's default, the host's here */
    hsp_generate(spec, 1, p, &A);
    hsp_status s = hsp_place(ctx, A, &M);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, M, &ao, &dev_amg);
    if (s == HSP_OK) s = hsp_amg_setup(ctx, A, &ao, &host_amg);
    const char *pname = p == HSP_DOUBLE ? "double" : "float";
    if (!tap_ok(s == HSP_OK, "device solve, %s %s: hierarchies set up %s", spec, pname, s ? hsp_errmsg() : ""))
        goto done;
    for (int sm = HSP_SMOOTHER_JACOBI; sm <= HSP_SMOOTHER_AUTO; sm++)
        for (int way = 0; way < 3; way++) {
            hsp_amg_solve_options o;
            hsp_amg_solve_options_init(&o);
            o.smoother = (hsp_smoother)sm, o.tol = p == HSP_DOUBLE ? 1e-8 : 1e-5;
            o.accel = way == 2 ? HSP_ACCEL_NONE : HSP_ACCEL_CG, o.cycle = way == 1 ? HSP_CYCLE_W : HSP_CYCLE_V;
            hsp_amg_solve_info di = {0}, hi = {0};
            void *xd = NULL, *xh = NULL;
            hsp_amg_solve_options on_host = o; /* auto: chebyshev on the device, so here too */
            if (sm == HSP_SMOOTHER_AUTO) on_host.smoother = HSP_SMOOTHER_CHEBYSHEV;
            hsp_status sd = solve_once(dev_amg, A, &o, &xd, &di), sh = solve_once(host_amg, A, &on_host, &xh, &hi);
            void *b = vector(p, A->nrows, 1, 1);
            double rd = sd == HSP_OK ? relres(A, b, xd) : NAN;
            int close = abs(di.iterations - hi.iterations) <= 1;
            tap_ok(sd == HSP_OK && sh == HSP_OK && di.on_device && !hi.on_device && di.converged &&
                       rd <= o.tol * 1.01 && close && di.smoother == on_host.smoother,
                   "device solve, %s %s, %s %s %c: %d iterations on the device, %d on the CPU threads; "
                   "|b - Ax|/|b| = %.3g here (tol %g) %s", spec, pname, sm == HSP_SMOOTHER_AUTO ? "auto" :
                   smoother_name[sm], way == 2 ? "none" : "cg", way == 1 ? 'W' : 'V', di.iterations, hi.iterations,
                   rd, o.tol, sd ? hsp_errmsg() : "");
            free(b), free(xd), free(xh);
        }
    hsp_amg_solve_options gs;
    hsp_amg_solve_options_init(&gs);
    gs.smoother = HSP_SMOOTHER_GAUSS_SEIDEL;
    void *x = NULL;
    s = solve_once(dev_amg, A, &gs, &x, NULL);
    int zeros = 1;
    for (int32_t i = 0; x && i < A->nrows; i++) zeros &= (p == HSP_DOUBLE ? ((double *)x)[i] : ((float *)x)[i]) == 0;
    tap_ok(s == HSP_ERR_UNSUPPORTED && zeros && strstr(hsp_errmsg(), "gauss-seidel"),
           "device solve, %s %s: gauss-seidel refused, x untouched: %s", spec, pname, hsp_errmsg());
    free(x);
    device_apply(dev_amg, host_amg, A);
    device_resetup(dev_amg, A, &MB);
    hsp_amg_options fo = ao;
    hsp_amg *none = NULL;
    fo.float_levels = 1;
    s = hsp_amg_setup_resident(ctx, M, &fo, &none);
    if (p == HSP_DOUBLE)
        tap_ok(s == HSP_ERR_UNSUPPORTED && !none && strstr(hsp_errmsg(), "float_levels"),
               "device solve, %s: float levels refused where the device holds the hierarchy: %s", spec, hsp_errmsg());
    hsp_amg_free(none);
done:
    hsp_amg_free(dev_amg), hsp_amg_free(host_amg), hsp_resident_free(M), hsp_resident_free(MB), hsp_csr_free(A);
}

/* symmetric theta 0.5 on poisson2d5:64 where the device holds the hierarchy: the same two
 * levels as the host's, the coarsest empty, and the solve converges there. */
static void test_no_aggregates_device(hsp_precision p)
{
    hsp_csr *A = NULL;
    hsp_resident *M = NULL;
    hsp_amg *amg = NULL;
    hsp_amg_options ao;
    hsp_amg_options_init(&ao);
    ao.coarse_size = 10, ao.strength = HSP_STRENGTH_SYMMETRIC, ao.theta = 0.5;
    hsp_generate("poisson2d5:64", 1, p, &A);
    hsp_status s = hsp_place(ctx, A, &M);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, M, &ao, &amg);
    hsp_amg_solve_options o;
    hsp_amg_solve_options_init(&o);
    o.tol = p == HSP_DOUBLE ? 1e-8 : 1e-5;
    hsp_amg_solve_info info = {0};
    void *x = NULL;
    if (s == HSP_OK) s = solve_once(amg, A, &o, &x, &info);
    void *b = vector(p, A->nrows, 1, 1);
    double r = s == HSP_OK ? relres(A, b, x) : NAN;
    tap_ok(s == HSP_OK && amg->nlevels == 2 && info.on_device && info.converged && r <= o.tol * 1.01,
           "device solve, poisson2d5:64 %s, theta 0.5 (no aggregates): %d levels, %d iterations, |b - Ax|/|b| = "
           "%.3g %s", p == HSP_DOUBLE ? "double" : "float", amg ? amg->nlevels : 0, info.iterations, r,
           s ? hsp_errmsg() : "");
    free(b), free(x), hsp_amg_free(amg), hsp_resident_free(M), hsp_csr_free(A);
}

/* A dense n x n matrix as CSR: a_ij = (a smooth-free pattern, symmetric) + shift on the diagonal;
 * SPD for a shift above n, indefinite where the last diagonal entry is made -n instead. */
static hsp_csr *dense_matrix(int32_t n, double shift, int indefinite)
{
    hsp_csr *A = NULL;
    if (hsp_csr_create(n, n, (int64_t)n * n, HSP_DOUBLE, &A) != HSP_OK) return NULL;
    for (int32_t i = 0; i < n; i++) {
        A->rowptr[i + 1] = (int64_t)(i + 1) * n;
        for (int32_t j = 0; j < n; j++) {
            double v = sin(0.7 * (i + 1) * (j + 1)) + (i == j ? shift : 0);
            A->colidx[(size_t)i * n + j] = j;
            ((double *)A->values)[(size_t)i * n + j] = indefinite && i == j && i == n - 1 ? -n : v;
        }
    }
    return A;
}

/* hsp_dense_factorize on one thread and on pools of 2 and 3: Cholesky where A is SPD, the same
 * bits on any number of threads (each entry the same sums in one order), and x = A^-1 b to
 * 1e-12 by the residual here; LU where a block past the first meets a negative pivot.  Sizes
 * around the 64 rows of a parallel block. */
static void test_dense_factor(void)
{
    static const int32_t sizes[] = {1, 7, 63, 64, 65, 200, 700};
    hsp_pool *pool[2] = {NULL, NULL};
    int made = hsp_pool_create(2, 1, &pool[0]) == HSP_OK && hsp_pool_create(3, 1, &pool[1]) == HSP_OK;
    for (size_t k = 0; made && k < sizeof sizes / sizeof *sizes; k++) {
        for (int indefinite = 0; indefinite < 2 && (!indefinite || sizes[k] > 64); indefinite++) {
            int32_t n = sizes[k];
            hsp_csr *A = dense_matrix(n, 2.0 * n, indefinite);
            hsp_dense_factor f[3];
            hsp_status s = hsp_dense_factorize(ctx1->pool, A, &f[0]);
            for (int p = 0; p < 2; p++) s = s == HSP_OK ? hsp_dense_factorize(pool[p], A, &f[p + 1]) : s;
            double *b = vector(HSP_DOUBLE, n, 1, 1), *x = malloc(n * sizeof *x);
            int same = s == HSP_OK && !memcmp(f[0].f, f[1].f, (size_t)n * n * sizeof(double)) &&
                       !memcmp(f[0].f, f[2].f, (size_t)n * n * sizeof(double));
            if (s == HSP_OK) hsp_dense_solve(&f[2], b, x);
            double res = s == HSP_OK ? relres(A, b, x) : INFINITY;
            tap_ok(s == HSP_OK && !f[2].perm == !indefinite && same && res < 1e-12,
                   "dense factor of %d rows, %s: %s on 1, 2 and 3 threads, the same bits (%s), |b - Ax| / |b| = %.1e",
                   n, indefinite ? "indefinite" : "SPD", indefinite ? "LU" : "Cholesky", same ? "yes" : "no", res);
            for (int p = 0; s == HSP_OK && p < 3; p++) hsp_dense_factor_free(&f[p]);
            free(b), free(x), hsp_csr_free(A);
        }
    }
    tap_ok(made, "pools of 2 and 3 threads for the dense factors");
    hsp_pool_free(pool[0]), hsp_pool_free(pool[1]);
}

int main(void)
{
    hsp_options one;
    hsp_options_init(&one);
    one.device = "cpu", one.threads = 1;
    if (!tap_ok((ctx = ref_context()) != NULL && hsp_context_create(&one, &ctx1) == HSP_OK,
                "a context on %s, and one of one thread on cpu", ref_device()))
        return tap_done();
    test_pyamg_count();
    test_no_aggregates();
    test_sweep();
    test_matrix("poisson2d5:64", HSP_DOUBLE);
    test_matrix("poisson3d7:16", HSP_DOUBLE);
    test_matrix("poisson2d5:64", HSP_FLOAT);
    test_apply("poisson2d5:64");
    test_iterations();
    test_one_level();
    test_dense_factor();
    test_resetup();
    test_large_coarse();
    test_random();
    hsp_csr *P = NULL;
    hsp_generate("poisson2d5:64", 1, HSP_DOUBLE, &P);
    test_float_levels("poisson2d5:64", P);
    test_float_levels("poisson3d7:16 scaled", scaled_spd("poisson3d7:16")); /* values no float holds */
    test_float_resetup();
    test_errors();
    if (ctx_device_holds()) {
        test_device("poisson2d5:64", HSP_DOUBLE);
        test_device("poisson3d7:16", HSP_DOUBLE);
        test_device("poisson2d5:64", HSP_FLOAT);
        test_no_aggregates_device(HSP_DOUBLE);
        test_no_aggregates_device(HSP_FLOAT);
    } else {
        tap_skip("the device uses host arrays in place: its hierarchies solve on the CPU threads", "device solve");
    }
    hsp_context_free(ctx), hsp_context_free(ctx1);
    return tap_done();
}
