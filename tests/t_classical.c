/* t_classical.c: classical (Ruge-Stueben) AMG (hsp_amg_options.coarsening =
 * HSP_COARSEN_CLASSICAL): each level's splitting is one (every F point that
 * depends strongly on anything depends on a C point) and its P is extended+i
 * interpolation as written plainly here (strength by the formula, the
 * interpolatory set and the weights over dense rows), truncated to the largest
 * weights and scaled to the row's sum; a matrix and its negative split and
 * interpolate alike; the next level is P^T A P; the hierarchy solves
 * anisotropic, Poisson and random M-matrices to tol in float and double, as a
 * dense direct solve does; a re-setup makes the weights of new values over
 * the pattern kept (scaled values: the same P); nothing strong: one level;
 * bad options refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amg/amg.h"
#include "amg/classical.h"
#include "core/internal.h"
#include "device/context.h"
#include "ref.h"
#include "tap.h"

static hsp_context *ctx;

/* a_ij of row i (0 where A stores none). */
static double entry(const hsp_csr *A, int32_t i, int32_t j)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] == j) return hsp_csr_value(A, k);
    return 0;
}

/* Is j a strong coupling of i: j != i, a_ij nonzero and -s a_ij >= theta max_k -s a_ik, s the
 * sign of a_ii, the largest above 0. */
static int strong(const hsp_csr *A, int32_t i, int32_t j, double theta)
{
    double s = entry(A, i, i) > 0 ? 1 : -1, most = 0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] != i && -s * hsp_csr_value(A, k) > most) most = -s * hsp_csr_value(A, k);
    double a = entry(A, i, j);
    return j != i && a != 0 && most > 0 && -s * a >= theta * most;
}

/* Extended+i weights of F point i over dense rows: w[j] for j with in[j] set (the
 * interpolatory set), their sum returned. */
static double plain_weights(const hsp_csr *A, const int32_t *cf, double theta, int32_t i, double *w, char *in)
{
    int32_t n = A->nrows;
    memset(in, 0, n), memset(w, 0, n * sizeof *w);
    for (int32_t j = 0; j < n; j++) {
        if (!strong(A, i, j, theta)) continue;
        if (cf[j] >= 0) in[j] = 1;
        else
            for (int32_t l = 0; l < n; l++) in[l] |= cf[l] >= 0 && strong(A, j, l, theta);
    }
    double diagonal = entry(A, i, i), sum = 0;
    for (int32_t j = 0; j < n; j++) {
        double a = entry(A, i, j);
        if (j == i || a == 0) continue;
        if (in[j]) {
            w[j] += a;
            continue;
        }
        if (!(strong(A, i, j, theta) && cf[j] < 0)) {
            diagonal += a;
            continue;
        }
        double opposite = entry(A, j, j) > 0 ? -1 : 1, spread = 0; /* the sign a_jl must have */
        for (int32_t l = 0; l < n; l++)
            if ((l == i || in[l]) && opposite * entry(A, j, l) > 0) spread += entry(A, j, l);
        if (spread == 0) {
            diagonal += a;
            continue;
        }
        for (int32_t l = 0; l < n; l++)
            if (opposite * entry(A, j, l) > 0) {
                if (l == i) diagonal += a * entry(A, j, l) / spread;
                else if (in[l]) w[l] += a * entry(A, j, l) / spread;
            }
    }
    for (int32_t j = 0; j < n; j++)
        if (in[j]) w[j] = -w[j] / diagonal, sum += w[j];
    return sum;
}

/* Does row i of P hold plain_weights' largest (at most HSP_CLASSICAL_P_MAX, nonzero) scaled to
 * their sum, within tol; with pattern, the weights on P's columns, scaled alike? */
static int row_matches(const hsp_csr *A, const hsp_csr *P, const int32_t *cf, const int32_t *cpt, double theta,
                       int32_t i, int pattern, double tol, double *w, char *in)
{
    double all = plain_weights(A, cf, theta, i, w, in), kept = 0, least = INFINITY, dropped = 0;
    int32_t nonzero = 0, len = (int32_t)(P->rowptr[i + 1] - P->rowptr[i]);
    for (int32_t j = 0; j < A->nrows; j++) nonzero += in[j] && w[j] != 0;
    for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
        int32_t j = cpt[P->colidx[k]];
        kept += in[j] ? w[j] : 0, least = fmin(least, in[j] ? fabs(w[j]) : 0);
        if (!in[j] && !pattern) return 0;
        in[j] = 2; /* seen in P */
    }
    for (int32_t j = 0; j < A->nrows; j++)
        if (in[j] == 1) dropped = fmax(dropped, fabs(w[j]));
    if (!pattern && (len != (nonzero < HSP_CLASSICAL_P_MAX ? nonzero : HSP_CLASSICAL_P_MAX) || dropped > least))
        return 0;
    double scale = kept != 0 ? all / kept : 1;
    for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++) {
        int32_t j = cpt[P->colidx[k]];
        if (fabs(hsp_csr_value(P, k) - w[j] * scale) > tol * (1 + fabs(w[j] * scale))) return 0;
    }
    return 1;
}

/* Level l of amg: its splitting one, P as written here (pattern: the weights over P's
 * pattern, as a re-setup makes them), the next A P^T A P; returns the failures. */
static int check_level(const hsp_amg *amg, int l, int pattern)
{
    const hsp_csr *A = amg->level[l].A, *P = amg->level[l].P;
    const int32_t *cf = amg->state->level[l].agg;
    double theta = amg->state->options.theta, tol = A->precision == HSP_DOUBLE ? 1e-10 : 2e-5;
    int32_t n = A->nrows, nc = 0, *cpt = malloc((P->ncols + 1) * sizeof *cpt);
    double *w = malloc(n * sizeof *w);
    char *in = malloc(n);
    int bad_split = 0, bad_rows = 0, first = -1;
    for (int32_t i = 0; i < n; i++) {
        if (cf[i] >= 0) bad_split += cf[i] != nc, cpt[nc++] = i;
        int depends = 0, on_c = 0;
        for (int32_t j = 0; j < n && cf[i] < 0; j++)
            if (strong(A, i, j, theta)) depends = 1, on_c |= cf[j] >= 0;
        bad_split += depends && !on_c && !pattern; /* a re-setup keeps the splitting of other values */
    }
    bad_split += nc != P->ncols;
    for (int32_t i = 0; i < n && !bad_split; i++) {
        int ok = cf[i] >= 0 ? P->rowptr[i + 1] - P->rowptr[i] == 1 && P->colidx[P->rowptr[i]] == cf[i]
                                  && hsp_csr_value(P, P->rowptr[i]) == 1
                            : row_matches(A, P, cf, cpt, theta, i, pattern, tol, w, in);
        if (!ok && first < 0) first = i;
        bad_rows += !ok;
    }
    double *mag = NULL;
    hsp_csr *R = NULL, *AP = ref_multiply(A, P, NULL), *next = NULL;
    hsp_transpose(P, &R);
    next = ref_multiply(R, AP, &mag);
    char why[256] = "";
    int galerkin = ref_compare(amg->level[l + 1].A, next, mag, why, sizeof why);
    if (first >= 0 || bad_split || !galerkin)
        tap_diag("level %d: %d splitting faults, row %d first unlike the plain P; %s", l, bad_split, first, why);
    hsp_csr_free(R), hsp_csr_free(AP), hsp_csr_free(next), free(mag), free(cpt), free(w), free(in);
    return bad_split + bad_rows + !galerkin;
}

/* The classical hierarchy of A on ctx (coarse_size rows at the coarsest). */
static hsp_amg *classical(const hsp_csr *A, int32_t coarse_size)
{
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_amg_options_init(&o);
    o.coarsening = HSP_COARSEN_CLASSICAL, o.coarse_size = coarse_size;
    if (hsp_amg_setup(ctx, A, &o, &amg) != HSP_OK) tap_diag("setup: %s", hsp_errmsg());
    return amg;
}

/* A random symmetric A of n rows: couplings -|v|, a few +|v|/4 (so that the signs matter),
 * rows of their diagonal alone; the diagonal their absolute sum + shift. */
static hsp_csr *random_m(int32_t n, hsp_precision p, uint64_t seed, double shift)
{
    return ref_spd_of(ref_random(n, n, 0, 7, HSP_DOUBLE, seed), 0.05, shift, 1, p);
}

/* -A (a negative diagonal): the same strength, splitting and P. */
static hsp_csr *negated(const hsp_csr *A)
{
    hsp_csr *N = ref_copy(A);
    for (int64_t k = 0; k < N->nnz; k++) hsp_csr_set_value(N, k, -hsp_csr_value(A, k));
    return N;
}

/* Every level of spec's (or A's) hierarchy against the plain interpolation. */
static void test_levels(const char *what, hsp_csr *A)
{
    hsp_amg *amg = classical(A, 20);
    int bad = 0;
    for (int l = 0; amg && l + 1 < amg->nlevels; l++) bad += check_level(amg, l, 0);
    tap_ok(amg && amg->nlevels >= 2 && !bad, "%s %s: %d levels, rows %d -> %d, each split, its P extended+i "
           "truncated to %d, the next A P^T A P (%d failures)", what, A->precision ? "double" : "float",
           amg ? amg->nlevels : 0, A->nrows, amg ? amg->level[amg->nlevels - 1].A->nrows : 0, HSP_CLASSICAL_P_MAX, bad);
    hsp_csr *N = negated(A);
    hsp_amg *neg = classical(N, 20);
    int same = amg && neg && neg->nlevels == amg->nlevels && ref_identical(neg->level[0].P, amg->level[0].P);
    tap_ok(same, "%s: -A splits and interpolates as A", what);
    hsp_amg_free(neg), hsp_csr_free(N), hsp_amg_free(amg), hsp_csr_free(A);
}

static hsp_csr *generated(const char *spec, hsp_precision p)
{
    hsp_csr *A = NULL;
    if (hsp_generate(spec, 1, p, &A) != HSP_OK) tap_diag("%s: %s", spec, hsp_errmsg());
    return A;
}

/* b = ones, x = 0: CG to tol; |b - Ax| / |b| computed here; iterations <= most. */
static void test_solve(const char *what, hsp_csr *A, int most)
{
    int32_t n = A->nrows;
    int dbl = A->precision == HSP_DOUBLE;
    size_t size = dbl ? sizeof(double) : sizeof(float);
    void *b = malloc(n * size), *x = calloc(n, size);
    double *bd = malloc(n * sizeof *bd), *xd = malloc(n * sizeof *xd), *ref = malloc(n * sizeof *ref);
    for (int32_t i = 0; i < n; i++) {
        bd[i] = 1 + (i % 7) / 7.0;
        if (dbl) ((double *)b)[i] = bd[i];
        else ((float *)b)[i] = (float)bd[i];
    }
    hsp_amg *amg = classical(A, 50);
    hsp_amg_solve_options o;
    hsp_amg_solve_info info = {0};
    hsp_amg_solve_options_init(&o);
    o.tol = dbl ? 1e-8 : 1e-4, o.maxiter = 200; /* float: x's own rounding times aniso2d's condition */
    hsp_status s = amg ? hsp_amg_solve(ctx, amg, b, x, &o, &info) : HSP_ERR_ARG;
    double rr = 0, bb = 0, err = 0, norm = 0;
    for (int32_t i = 0; i < n; i++) xd[i] = dbl ? ((double *)x)[i] : ((float *)x)[i];
    for (int32_t i = 0; i < n; i++) {
        double r = bd[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) r -= hsp_csr_value(A, k) * xd[A->colidx[k]];
        rr += r * r, bb += bd[i] * bd[i];
    }
    if (n <= 1500) { /* against a dense direct solve */
        ref_dense_solve(A, bd, ref);
        for (int32_t i = 0; i < n; i++) err = fmax(err, fabs(xd[i] - ref[i])), norm = fmax(norm, fabs(ref[i]));
    }
    /* the solve's residual is of its own x, in double: a float x's rounding may add to it */
    int ok = s == HSP_OK && info.converged && sqrt(rr / bb) <= o.tol * (dbl ? 1.001 : 3) && info.iterations <= most
             && err <= (dbl ? 1e-5 : 1e-2) * norm;
    tap_ok(ok, "%s %s: CG by classical V-cycles, %d levels, %d iterations (at most %d), |b - Ax|/|b| = %.2g here%s",
           what, dbl ? "double" : "float", amg ? amg->nlevels : 0, info.iterations, most, sqrt(rr / bb),
           n <= 1500 ? ", x as a dense solve's" : "");
    hsp_amg_free(amg), hsp_csr_free(A);
    free(b), free(x), free(bd), free(xd), free(ref);
}

/* A re-setup's P: the weights of the new values over the pattern kept (scaled values: the
 * same P, the next A scaled); it solves. */
static void test_resetup(void)
{
    hsp_csr *A = generated("aniso2d:40", HSP_DOUBLE), *B = ref_copy(A), *C = ref_copy(A);
    hsp_amg *amg = classical(A, 20), *fresh = classical(A, 20);
    for (int64_t k = 0; k < B->nnz; k++) hsp_csr_set_value(B, k, 2.5 * hsp_csr_value(A, k));
    for (int64_t k = 0; k < C->nnz; k++) /* new values, the diagonal heavier in places */
        hsp_csr_set_value(C, k, hsp_csr_value(A, k) * (C->colidx[k] == (int32_t)(k % C->nrows) ? 1.5 : 1));
    for (int32_t i = 0; i < C->nrows; i += 3)
        for (int64_t k = C->rowptr[i]; k < C->rowptr[i + 1]; k++)
            if (C->colidx[k] == i) hsp_csr_set_value(C, k, 1.3 * hsp_csr_value(C, k));
    hsp_status s = amg ? hsp_amg_resetup(ctx, amg, B) : HSP_ERR_ARG;
    double apart = 0;
    for (int64_t k = 0; s == HSP_OK && k < amg->level[0].P->nnz; k++)
        apart = fmax(apart, fabs(hsp_csr_value(amg->level[0].P, k) - hsp_csr_value(fresh->level[0].P, k)));
    int scaled = s == HSP_OK && apart <= 1e-14 && amg->level[1].A->nnz == fresh->level[1].A->nnz;
    for (int64_t k = 0; scaled && k < amg->level[1].A->nnz; k++)
        scaled = fabs(hsp_csr_value(amg->level[1].A, k) - 2.5 * hsp_csr_value(fresh->level[1].A, k))
                 <= 1e-12 * (1 + fabs(hsp_csr_value(amg->level[1].A, k)));
    tap_ok(scaled, "re-setup of 2.5 A: P as A's (%.2g apart), the next A 2.5 times A's", apart);
    s = s == HSP_OK ? hsp_amg_resetup(ctx, amg, C) : s;
    int bad = 0;
    for (int l = 0; s == HSP_OK && l + 1 < amg->nlevels; l++) bad += check_level(amg, l, 1);
    tap_ok(s == HSP_OK && !bad, "re-setup of new values: each level's weights over P's pattern, the next A "
           "P^T A P (%d failures) %s", bad, s == HSP_OK ? "" : hsp_errmsg());
    hsp_amg_free(amg), hsp_amg_free(fresh), hsp_csr_free(A), hsp_csr_free(B);
    test_solve("aniso2d:40 re-set values", C, 25);
}

/* Nothing strong (a diagonal A): one level, solved exactly. */
static void test_nothing_strong(void)
{
    int32_t n = 300, *rows = malloc(n * sizeof *rows);
    double *vals = malloc(n * sizeof *vals);
    for (int32_t i = 0; i < n; i++) rows[i] = i, vals[i] = 1 + i % 5;
    hsp_csr *A = NULL;
    hsp_csr_from_triplets(n, n, n, rows, rows, vals, HSP_DOUBLE, &A);
    hsp_amg *amg = classical(A, 20);
    tap_ok(amg && amg->nlevels == 1, "a diagonal A: nothing strong, one level (%d)", amg ? amg->nlevels : 0);
    hsp_amg_free(amg), free(rows), free(vals);
    test_solve("a diagonal A", A, 1);
}

/* Bad options: an unknown coarsening, candidates or blocks with classical AMG; on a device
 * with memory of its own, a resident set-up (on one that uses host arrays in place: the
 * host's hierarchy). */
static void test_errors(void)
{
    hsp_csr *A = generated("poisson2d5:20", HSP_DOUBLE);
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_amg_options_init(&o);
    o.coarsening = (hsp_amg_coarsening)2;
    hsp_status s = hsp_amg_setup(ctx, A, &o, &amg);
    tap_ok(s == HSP_ERR_ARG && !amg && strstr(hsp_errmsg(), "coarsening"), "coarsening 2 refused: %s", hsp_errmsg());
    double *B = malloc(A->nrows * sizeof *B);
    for (int32_t i = 0; i < A->nrows; i++) B[i] = 1;
    hsp_amg_options_init(&o);
    o.coarsening = HSP_COARSEN_CLASSICAL, o.B = B;
    s = hsp_amg_setup(ctx, A, &o, &amg);
    tap_ok(s == HSP_ERR_ARG && !amg && strstr(hsp_errmsg(), "scalar"), "classical with B refused: %s", hsp_errmsg());
    o.B = NULL, o.block = 2;
    s = hsp_amg_setup(ctx, A, &o, &amg);
    tap_ok(s == HSP_ERR_ARG && !amg && strstr(hsp_errmsg(), "scalar"), "classical with block 2 refused: %s",
           hsp_errmsg());
    o.block = 1, o.coarse_size = 20;
    hsp_resident *R = NULL;
    s = hsp_place(ctx, A, &R);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, R, &o, &amg);
    if (ctx->device->amg)
        tap_ok(s == HSP_ERR_UNSUPPORTED && !amg && strstr(hsp_errmsg(), "classical"),
               "a resident set-up on %s refused: %s", ref_device(), hsp_errmsg());
    else {
        hsp_amg *host = classical(A, 20);
        tap_ok(s == HSP_OK && amg && host && amg->nlevels == host->nlevels && amg->level[1].rA
               && ref_identical(amg->level[0].P, host->level[0].P), "a resident set-up on %s: the host's levels, "
               "resident", ref_device());
        hsp_amg_free(host);
    }
    hsp_amg_free(amg), hsp_resident_free(R), free(B), hsp_csr_free(A);
}

int main(void)
{
    if (!tap_ok((ctx = ref_context()) != NULL, "a context on %s", ref_device())) return tap_done();
    test_levels("aniso2d:24", generated("aniso2d:24", HSP_DOUBLE));
    test_levels("poisson2d5:20", generated("poisson2d5:20", HSP_DOUBLE));
    test_levels("poisson3d27:8", generated("poisson3d27:8", HSP_DOUBLE));
    test_levels("aniso2d:20", generated("aniso2d:20", HSP_FLOAT));
    test_levels("random M-matrix 400", random_m(400, HSP_DOUBLE, 3, 0.01));
    test_levels("random M-matrix 300", random_m(300, HSP_FLOAT, 4, 0.5));
    test_solve("aniso2d:128", generated("aniso2d:128", HSP_DOUBLE), 20);
    test_solve("aniso2d:128", generated("aniso2d:128", HSP_FLOAT), 20);
    test_solve("aniso2d:36", generated("aniso2d:36", HSP_DOUBLE), 15);
    test_solve("poisson2d9:64", generated("poisson2d9:64", HSP_DOUBLE), 15);
    test_solve("poisson3d7:12", generated("poisson3d7:12", HSP_DOUBLE), 15);
    test_solve("random M-matrix 1200", random_m(1200, HSP_DOUBLE, 5, 0.01), 40);
    test_solve("random M-matrix 1000", random_m(1000, HSP_FLOAT, 6, 0.01), 40);
    test_resetup();
    test_nothing_strong();
    test_errors();
    hsp_context_free(ctx);
    return tap_done();
}
