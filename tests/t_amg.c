/* t_amg.c: smoothed-aggregation hierarchies of Poisson problems: the
 * coarsening ratio, symmetric coarse operators, R = P^T, each coarse A equal
 * to the reference R*A*P, each P equal to T - omega/rho D^-1 A T worked out
 * here from the aggregates, a V-cycle that reduces the residual by a stated
 * factor (so the hierarchy is usable), re-setup with new values as a fresh
 * setup, the level sizes PyAMG gives for the same theta, and clear errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "amg/aggregate.h"
#include "amg/amg.h"
#include "amg/amg_device.h"
#include "core/internal.h"
#include "device/context.h"
#include "ref.h"
#include "tap.h"

static hsp_context *ctx;

/* y = A x. */
static void spmv(const hsp_csr *A, const double *x, double *y)
{
    for (int32_t i = 0; i < A->nrows; i++) {
        double s = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += hsp_csr_value(A, k) * x[A->colidx[k]];
        y[i] = s;
    }
}

static double diagonal(const hsp_csr *A, int32_t i)
{
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colidx[k] == i) return hsp_csr_value(A, k);
    return 0;
}

/* r = b - A x; returns ||r||. */
static double residual(const hsp_csr *A, const double *b, const double *x, double *r)
{
    double s = 0;
    spmv(A, x, r);
    for (int32_t i = 0; i < A->nrows; i++) r[i] = b[i] - r[i], s += r[i] * r[i];
    return sqrt(s);
}

/* sweeps of damped Jacobi (weight 2/3) on A x = b. */
static void jacobi(const hsp_csr *A, const double *b, double *x, double *r, int sweeps)
{
    for (int s = 0; s < sweeps; s++) {
        residual(A, b, x, r);
        for (int32_t i = 0; i < A->nrows; i++) x[i] += 2.0 / 3.0 * r[i] / diagonal(A, i);
    }
}

/* One V(2,2) cycle on level l for A_l x = b. */
static void vcycle(const hsp_amg *amg, int l, const double *b, double *x)
{
    const hsp_amg_level *v = &amg->level[l];
    if (l == amg->nlevels - 1) {
        ref_dense_solve(v->A, b, x);
        return;
    }
    int32_t n = v->A->nrows, nc = v->P->ncols;
    double *r = malloc((size_t)n * sizeof *r), *e = malloc((size_t)n * sizeof *e);
    double *bc = malloc((size_t)nc * sizeof *bc), *xc = calloc((size_t)nc, sizeof *xc);
    jacobi(v->A, b, x, r, 2);
    residual(v->A, b, x, r);
    spmv(v->R, r, bc);
    vcycle(amg, l + 1, bc, xc);
    spmv(v->P, xc, e);
    for (int32_t i = 0; i < n; i++) x[i] += e[i];
    jacobi(v->A, b, x, r, 2);
    free(r), free(e), free(bc), free(xc);
}

/* The mean residual reduction per V-cycle over cycles cycles, from x = 0. */
static double convergence(const hsp_amg *amg, int cycles)
{
    const hsp_csr *A = amg->level[0].A;
    double *b = malloc((size_t)A->nrows * sizeof *b), *x = calloc((size_t)A->nrows, sizeof *x);
    double *r = malloc((size_t)A->nrows * sizeof *r);
    srand(5);
    for (int32_t i = 0; i < A->nrows; i++) b[i] = rand() / (double)RAND_MAX - 0.5;
    double r0 = residual(A, b, x, r);
    for (int c = 0; c < cycles; c++) vcycle(amg, 0, b, x);
    double factor = pow(residual(A, b, x, r) / r0, 1.0 / cycles);
    free(b), free(x), free(r);
    return factor;
}

/* Is A symmetric, to rounding? */
static int symmetric(const hsp_csr *A)
{
    hsp_csr *T = NULL;
    double big = 0;
    int ok = hsp_transpose(A, &T) == HSP_OK && T->nnz == A->nnz;
    for (int64_t k = 0; k < A->nnz; k++) big = fmax(big, fabs(hsp_csr_value(A, k)));
    for (int64_t k = 0; ok && k < A->nnz; k++)
        ok = T->colidx[k] == A->colidx[k] && fabs(hsp_csr_value(T, k) - hsp_csr_value(A, k)) <= 1e-12 * big;
    hsp_csr_free(T);
    return ok;
}

/* Are X and Y the same matrix, values equal (a zero's sign aside)? */
static int equal(const hsp_csr *X, const hsp_csr *Y)
{
    int ok = X && Y && X->nrows == Y->nrows && X->ncols == Y->ncols && X->nnz == Y->nnz &&
             !memcmp(X->rowptr, Y->rowptr, ((size_t)X->nrows + 1) * sizeof *X->rowptr) &&
             !memcmp(X->colidx, Y->colidx, (size_t)X->nnz * sizeof *X->colidx);
    for (int64_t k = 0; ok && k < X->nnz; k++) ok = hsp_csr_value(X, k) == hsp_csr_value(Y, k);
    return ok;
}

/* Is each coarse A the reference R*A*P, pattern and values, and R = P^T
 * exactly (an explicit zero of P may be -0 in P and 0 in R)? */
static int coarse_ok(const hsp_amg *amg, char *why, size_t len)
{
    for (int l = 0; l + 1 < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        const hsp_csr *next = amg->level[l + 1].A;
        hsp_csr *PT = NULL, *AP = ref_multiply(v->A, v->P, NULL), *ref = ref_multiply(v->R, AP, NULL);
        int ok = hsp_transpose(v->P, &PT) == HSP_OK && equal(PT, v->R) && ref->nnz == next->nnz &&
                 ref->nrows == next->nrows && ref->ncols == next->ncols;
        for (int32_t i = 0; ok && i <= ref->nrows; i++) ok = ref->rowptr[i] == next->rowptr[i];
        for (int64_t k = 0; ok && k < ref->nnz; k++)
            ok = ref->colidx[k] == next->colidx[k] &&
                 fabs(hsp_csr_value(ref, k) - hsp_csr_value(next, k)) <= 1e-10 * (1 + fabs(hsp_csr_value(ref, k)));
        hsp_csr_free(PT), hsp_csr_free(AP), hsp_csr_free(ref);
        if (!ok) {
            snprintf(why, len, "level %d", l + 1);
            return 0;
        }
    }
    return 1;
}

/* The weight of each node of level l (n of them): the nodes of level 0 in
 * it (in aggregates of every level between), 1 at level 0.  With the
 * constant vector as level 0's candidate, level l's candidate (PyAMG's B
 * there, the norms of the candidates on the aggregates before) is the
 * square root of the weight. */
static int32_t *weights(const hsp_amg *amg, int l, int32_t n)
{
    int32_t *w = malloc(((size_t)n + 1) * sizeof *w);
    int32_t *below = l ? weights(amg, l - 1, amg->level[l - 1].A->nrows) : NULL;
    for (int32_t i = 0; w && i < n; i++) w[i] = l ? 0 : 1;
    for (int32_t i = 0; w && below && i < amg->level[l - 1].A->nrows; i++)
        if (amg->state->level[l - 1].agg[i] != HSP_AGG_NONE) w[amg->state->level[l - 1].agg[i]] += below[i];
    if (l && !below) free(w), w = NULL;
    free(below);
    return w;
}

/* T from the aggregates and the weights w of the level's nodes: row i is
 * sqrt(w_i / the weight of its aggregate) at column agg[i] (1/sqrt(|aggregate
 * of i|) at level 0), or empty where agg[i] is HSP_AGG_NONE; NULL when an
 * aggregate number is out of range or an aggregate is empty (but the one of
 * a level where no node has a strong connection). */
static hsp_csr *tentative_from(const int32_t *agg, const int32_t *w, int32_t n, int32_t naggs)
{
    int32_t *size = calloc((size_t)naggs + 1, sizeof *size), *rows = malloc(((size_t)n + 1) * sizeof *rows);
    int32_t *cols = malloc(((size_t)n + 1) * sizeof *cols), members = 0;
    double *v = malloc(((size_t)n + 1) * sizeof *v);
    int ok = size && rows && cols && v && w;
    for (int32_t i = 0; ok && i < n; i++)
        ok = agg[i] == HSP_AGG_NONE || (agg[i] >= 0 && agg[i] < naggs && (size[agg[i]] += w[i]));
    for (int32_t a = 0; ok && a < naggs; a++) ok = size[a] > 0 || naggs == 1;
    for (int32_t i = 0; ok && i < n; i++)
        if (agg[i] != HSP_AGG_NONE)
            rows[members] = i, cols[members] = agg[i], v[members++] = sqrt((double)w[i] / size[agg[i]]);
    hsp_csr *T = NULL;
    if (ok && hsp_csr_from_triplets(n, naggs, members, rows, cols, v, HSP_DOUBLE, &T) != HSP_OK) T = NULL;
    free(size), free(rows), free(cols), free(v);
    return T;
}

/* Gershgorin's bound of rho(D^-1 A): max_i sum_j |a_ij| / |a_ii|. */
static double gershgorin_bound(const hsp_csr *A)
{
    double bound = 0;
    for (int32_t i = 0; i < A->nrows; i++) {
        double sum = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabs(hsp_csr_value(A, k));
        bound = fmax(bound, sum / fabs(diagonal(A, i)));
    }
    return bound;
}

/* Is level l's P = T - omega/rho D^-1 (A T), pattern and values, with T
 * made here from the level's aggregates and weights, A T by the reference product and
 * rho the library's estimate, which must lie in [1, Gershgorin's bound]
 * (D^-1 A's eigenvalues average 1)? */
static int smoothed_ok(const hsp_amg *amg, int l, double omega, char *why, size_t len)
{
    const hsp_amg_level *v = &amg->level[l];
    const hsp_csr *A = v->A, *P = v->P;
    int64_t *diag = malloc(((size_t)A->nrows + 1) * sizeof *diag);
    double rho = 0, bound = gershgorin_bound(A);
    int32_t *w = weights(amg, l, A->nrows);
    hsp_csr *T = tentative_from(amg->state->level[l].agg, w, A->nrows, v->naggregates);
    hsp_csr *AT = T ? ref_multiply(A, T, NULL) : NULL;
    int ok = AT && diag && hsp_diagonal(ctx, A, diag) == HSP_OK && hsp_radius_estimate(ctx, A, diag, &rho) == HSP_OK;
    if (ok && !(rho >= 1 && rho <= bound * (1 + 1e-12)))
        snprintf(why, len, "level %d: rho %.6g outside [1, %.6g]", l, rho, bound), ok = 0;
    if (ok && !(P->nrows == AT->nrows && P->ncols == AT->ncols && P->nnz == AT->nnz &&
                !memcmp(P->rowptr, AT->rowptr, ((size_t)P->nrows + 1) * sizeof *P->rowptr) &&
                !memcmp(P->colidx, AT->colidx, (size_t)P->nnz * sizeof *P->colidx)))
        snprintf(why, len, "level %d: P's pattern is not A T's", l), ok = 0;
    for (int32_t i = 0; ok && i < P->nrows; i++)
        for (int64_t k = P->rowptr[i]; ok && k < P->rowptr[i + 1]; k++) {
            int64_t t_at = T->rowptr[i]; /* T's entry of row i, if any */
            double t = t_at < T->rowptr[i + 1] && P->colidx[k] == T->colidx[t_at] ? hsp_csr_value(T, t_at) : 0;
            double want = t - omega / rho * hsp_csr_value(AT, k) / diagonal(A, i);
            if (!(fabs(hsp_csr_value(P, k) - want) <= 1e-12 * (1 + fabs(want))))
                snprintf(why, len, "level %d row %d column %d: %.17g, expected %.17g", l, i, P->colidx[k],
                         hsp_csr_value(P, k), want), ok = 0;
        }
    if (!ok && !why[0]) snprintf(why, len, "level %d: no T, A T or rho", l);
    free(diag), free(w), hsp_csr_free(T), hsp_csr_free(AT);
    return ok;
}

/* The hierarchy of A, resident (placed, set up, brought home: *M holds the
 * placed A) or not. */
static hsp_status setup(const hsp_csr *A, const hsp_amg_options *o, int resident, hsp_resident **M, hsp_amg **amg)
{
    if (!resident) return hsp_amg_setup(ctx, A, o, amg);
    hsp_status s = hsp_place(ctx, A, M);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, *M, o, amg);
    return s == HSP_OK ? hsp_amg_home(*amg) : s;
}

/* Do the resident levels' shapes match their host matrices? */
static int resident_shapes(const hsp_amg *amg)
{
    int ok = 1;
    for (int l = 0; l < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        const hsp_resident *r[3] = {v->rA, v->rP, v->rR};
        const hsp_csr *h[3] = {v->A, v->P, v->R};
        for (int k = 0; k < 3; k++) {
            int32_t m, n;
            int64_t nnz;
            hsp_resident_shape(r[k], &m, &n, &nnz);
            ok &= !h[k] == !r[k] && (!h[k] || (m == h[k]->nrows && n == h[k]->ncols && nnz == h[k]->nnz));
        }
    }
    return ok;
}

static void test_poisson(const char *spec, hsp_rap_order order, int resident, double ratio_lo, double ratio_hi,
                         double bound)
{
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL;
    hsp_resident *M = NULL;
    hsp_amg_options o;
    char why[64] = "";
    hsp_amg_options_init(&o);
    o.coarse_size = 50, o.order = order;
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    hsp_status s = setup(A, &o, resident, &M, &amg);
    char name[64];
    snprintf(name, sizeof name, "%s%s", resident ? "resident " : "", spec);
    spec = name;
    if (!tap_ok(s == HSP_OK && amg->nlevels >= 3, "%s: %d levels %s", spec, amg ? amg->nlevels : 0,
                s == HSP_OK ? "" : hsp_errmsg())) {
        hsp_amg_free(amg), hsp_resident_free(M), hsp_csr_free(A);
        return;
    }
    if (resident) tap_ok(resident_shapes(amg), "%s: every level's resident matrices have its shapes", spec);
    int ratios = 1, sym = 1;
    for (int l = 0; l + 1 < amg->nlevels; l++) {
        double ratio = (double)amg->level[l + 1].A->nrows / amg->level[l].A->nrows;
        ratios &= ratio >= ratio_lo && ratio <= ratio_hi;
        sym &= symmetric(amg->level[l + 1].A);
        tap_diag("%s level %d: %d rows, %lld entries, ratio %.3f", spec, l + 1, amg->level[l + 1].A->nrows,
                 (long long)amg->level[l + 1].A->nnz, ratio);
    }
    tap_ok(ratios, "%s: every level has %.3f..%.3f of the rows before it", spec, ratio_lo, ratio_hi);
    tap_ok(sym, "%s: every coarse operator is symmetric", spec);
    tap_ok(coarse_ok(amg, why, sizeof why), "%s, %s: R = P^T and each coarse A is the reference R*A*P, pattern and "
           "values %s", spec, order ? "(R*A)*P" : "R*(A*P)", why);
    if (!amg->state->on_device) { /* the aggregates are the host's */
        char pwhy[160] = "";
        int smooth = 1;
        for (int l = 0; smooth && l + 1 < amg->nlevels; l++) smooth = smoothed_ok(amg, l, o.omega, pwhy, sizeof pwhy);
        tap_ok(smooth, "%s: each P is T - omega/rho D^-1 A T (T from the aggregates, A T by the reference, rho the "
               "library's, within [1, Gershgorin's bound]) %s", spec, pwhy);
    }
    int sides = 1;
    for (int l = 0; l + 1 < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        sides &= v->ms_device > 0 && v->ms_host >= 0 && v->ms_wait >= 0 && v->ms_wait <= amg->ms_total;
    }
    tap_ok(sides, "%s: every level says the device's time in its products (%.3f ms at level 0), the CPU threads' "
           "beside it (%.3f) and the wait for P^T (%.3f; P^T %.3f)", spec, amg->level[0].ms_device,
           amg->level[0].ms_host, amg->level[0].ms_wait, amg->level[0].ms_transpose);
    double factor = convergence(amg, 10);
    tap_ok(factor < bound, "%s: V(2,2) cycles reduce the residual by %.3f each (bound %.2f)", spec, factor, bound);
    if (resident)
        tap_ok(hsp_amg_resetup(ctx, amg, A) == HSP_ERR_ARG, "%s: hsp_amg_resetup refused: %s", spec, hsp_errmsg());
    hsp_amg_free(amg), hsp_resident_free(M), hsp_csr_free(A);
}

/* Do two hierarchies have the same levels, values within tol of each other's
 * (relative, 1 for small ones)? */
static int levels_within(const hsp_amg *x, const hsp_amg *y, double tol)
{
    int ok = x->nlevels == y->nlevels;
    for (int l = 1; ok && l < x->nlevels; l++) {
        const hsp_csr *a = x->level[l].A, *b = y->level[l].A;
        ok = a->nnz == b->nnz && !memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof *a->rowptr);
        for (int64_t k = 0; ok && k < a->nnz; k++)
            ok = a->colidx[k] == b->colidx[k] &&
                 fabs(hsp_csr_value(a, k) - hsp_csr_value(b, k)) <= tol * (1 + fabs(hsp_csr_value(b, k)));
    }
    return ok;
}

/* Do two hierarchies have the same levels, values to rounding? */
static int same_levels(const hsp_amg *x, const hsp_amg *y)
{
    return levels_within(x, y, 1e-10);
}

/* Do two hierarchies have the same levels' shapes and the same patterns of
 * P (the same aggregates, whatever the values)? */
static int same_aggregates(const hsp_amg *x, const hsp_amg *y, char *why, size_t len)
{
    if (x->nlevels != y->nlevels) return snprintf(why, len, "%d levels against %d", x->nlevels, y->nlevels), 0;
    for (int l = 0; l + 1 < x->nlevels; l++) {
        const hsp_csr *a = x->level[l].P, *b = y->level[l].P;
        int ok = a->nrows == b->nrows && a->ncols == b->ncols && a->nnz == b->nnz &&
                 !memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof *a->rowptr) &&
                 !memcmp(a->colidx, b->colidx, (size_t)a->nnz * sizeof *a->colidx);
        if (!ok) return snprintf(why, len, "level %d: P %d x %d, %lld entries against %d x %d, %lld", l, a->nrows,
                                 a->ncols, (long long)a->nnz, b->nrows, b->ncols, (long long)b->nnz), 0;
    }
    return 1;
}

/* A with its rows and columns numbered anew in a random order (seeded). */
static hsp_csr *shuffled(const hsp_csr *A, uint64_t seed)
{
    int32_t n = A->nrows, *p = malloc((size_t)n * sizeof *p), *rows = malloc((size_t)A->nnz * sizeof *rows);
    hsp_csr *B = NULL;
    for (int32_t i = 0; i < n; i++) p[i] = i;
    for (int32_t i = n - 1; i > 0; i--) { /* Fisher-Yates */
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        int32_t j = (int32_t)((seed >> 33) % (uint64_t)(i + 1)), t = p[i];
        p[i] = p[j], p[j] = t;
    }
    int32_t *cols = malloc((size_t)A->nnz * sizeof *cols);
    for (int32_t i = 0; i < n; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) rows[k] = p[i], cols[k] = p[A->colidx[k]];
    hsp_csr_from_triplets(n, n, A->nnz, rows, cols, A->values, A->precision, &B);
    free(p), free(rows), free(cols);
    return B;
}

/* Re-set up amg for A: with resident, A placed (into *M, whose matrix before
 * is freed once the hierarchy no longer needs it) and the levels brought home. */
static hsp_status resetup(hsp_amg *amg, const hsp_csr *A, int resident, hsp_resident **M)
{
    if (!resident) return hsp_amg_resetup(ctx, amg, A);
    hsp_resident *next = NULL;
    hsp_status s = hsp_place(ctx, A, &next);
    if (s == HSP_OK) s = hsp_amg_resetup_resident(ctx, amg, next);
    if (s != HSP_OK) {
        hsp_resident_free(next);
        return s;
    }
    hsp_resident_free(*M), *M = next;
    return hsp_amg_home(amg);
}

/* "rows/entries" of each level of amg into buf. */
static void level_sizes(const hsp_amg *amg, char *buf, size_t len)
{
    buf[0] = 0;
    for (int l = 0; l < amg->nlevels && strlen(buf) + 1 < len; l++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%d/%lld", l ? " " : "", amg->level[l].A->nrows,
                 (long long)amg->level[l].A->nnz);
}

/* The resident hierarchy of A and options o (levels of up to 2^21 rows,
 * where the device's root search takes the host's order whole) has the
 * host's levels (rows and entries) and aggregates at every level, also where
 * some or all nodes have no strong connection (in no aggregate; where none
 * has, one empty aggregate: a coarse level of one row) and, with rho
 * estimated by the same Lanczos steps, the host's levels to rounding (of A's
 * precision); two resident set-ups the same levels, and a resident re-setup
 * with A's values again too. */
static void resident_as_host(const char *what, const hsp_csr *A, const hsp_amg_options *o)
{
    hsp_amg *host = NULL, *res[2] = {NULL, NULL};
    hsp_resident *M[2] = {NULL, NULL};
    char why[128] = "", sizes[2][160] = {"", ""};
    double theta = o->theta, tol = A && A->precision == HSP_FLOAT ? 1e-4 : 1e-10;
    int ok = A && setup(A, o, 0, NULL, &host) == HSP_OK;
    for (int r = 0; r < 2 && ok; r++) ok = setup(A, o, 1, &M[r], &res[r]) == HSP_OK;
    if (tap_ok(ok, "%s, theta %g: host and two resident set-ups %s", what, theta, ok ? "" : hsp_errmsg())) {
        level_sizes(res[0], sizes[0], sizeof sizes[0]), level_sizes(host, sizes[1], sizeof sizes[1]);
        tap_ok(!strcmp(sizes[0], sizes[1]), "%s, theta %g: resident levels (rows/entries) %s, the host's %s", what,
               theta, sizes[0], sizes[1]);
        tap_ok(same_aggregates(res[0], host, why, sizeof why), "%s, theta %g: the resident hierarchy has the host's "
               "%d levels and aggregates (P's patterns) %s", what, theta, host->nlevels, why);
        tap_ok(levels_within(res[0], host, tol), "%s, theta %g: the resident levels are the host's, values to "
               "rounding", what, theta);
        tap_ok(levels_within(res[0], res[1], tol), "%s, theta %g: two resident set-ups give the same levels", what,
               theta);
        ok = resetup(res[1], A, 1, &M[1]) == HSP_OK;
        tap_ok(ok && levels_within(res[1], host, tol), "%s, theta %g: a resident re-setup gives the host's levels "
               "again %s", what, theta, ok ? "" : hsp_errmsg());
    }
    for (int r = 0; r < 2; r++) hsp_amg_free(res[r]), hsp_resident_free(M[r]);
    hsp_amg_free(host);
}

/* resident_as_host of A by strength at theta and aggregation agg, the coarsest level of at most 50
 * rows. */
static void host_and_resident(const char *what, const hsp_csr *A, hsp_strength_measure strength, double theta,
                              hsp_aggregation agg)
{
    hsp_amg_options o;
    char name[128];
    hsp_amg_options_init(&o);
    o.coarse_size = 50, o.strength = strength, o.theta = theta, o.aggregation = agg;
    snprintf(name, sizeof name, "%s, %s, %s", what, strength == HSP_STRENGTH_CLASSICAL ? "classical" : "symmetric",
             agg == HSP_AGGREGATION_PARALLEL ? "parallel" : "greedy");
    resident_as_host(name, A, &o);
}

/* host_and_resident on spec, its rows shuffled or not (shuffled, a decision
 * on the device waits for nodes of work-groups before and after its own). */
static void test_host_aggregates(const char *spec, hsp_strength_measure strength, double theta, int shuffle,
                                 hsp_aggregation agg)
{
    hsp_csr *A = NULL;
    char name[64];
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    if (shuffle && A) {
        hsp_csr *B = shuffled(A, 7);
        hsp_csr_free(A), A = B;
    }
    snprintf(name, sizeof name, "%s%s", spec, shuffle ? " shuffled" : "");
    host_and_resident(name, A, strength, theta, agg);
    hsp_csr_free(A);
}

/* Two resident set-ups of A to 2 levels: every node in an aggregate, the
 * products right, lo..hi rows at level 1, the same levels from both. */
static void test_two_levels(const char *what, const hsp_csr *A, int32_t lo, int32_t hi)
{
    hsp_amg *amg[2] = {NULL, NULL};
    hsp_resident *M[2] = {NULL, NULL};
    hsp_amg_options o;
    char why[64] = "";
    hsp_amg_options_init(&o);
    o.max_levels = 2;
    int ok = 1;
    for (int r = 0; r < 2 && ok; r++) ok = setup(A, &o, 1, &M[r], &amg[r]) == HSP_OK && amg[r]->nlevels == 2;
    if (tap_ok(ok, "%s: two resident set-ups of 2 levels %s", what, ok ? "" : hsp_errmsg())) {
        int32_t rows = amg[0]->level[1].A->nrows;
        tap_ok(rows >= lo && rows <= hi, "%s: %d rows at level 1 (%d..%d)", what, rows, lo, hi);
        tap_ok(coarse_ok(amg[0], why, sizeof why), "%s: R = P^T, coarse A = R*A*P %s", what, why);
        tap_ok(same_levels(amg[0], amg[1]), "%s: two resident set-ups give the same levels", what);
    }
    for (int r = 0; r < 2; r++) hsp_amg_free(amg[r]), hsp_resident_free(M[r]);
}

/* A chain of rows longer than the rounds the device's root search takes in
 * the host's order (a band of 15000 rows: 5000 rounds; the cap is 4096),
 * with a_01 = 0: a stored zero, strong at theta 0 (PyAMG's rule), so the
 * strong connections are symmetric and the rounds of a launch in each
 * work-group stop short at the cap (the search then starts again over every
 * node); and with that zero dropped, so that they are not symmetric and every
 * round takes every node.  The rest by hashed keys; a third to a fifth of
 * the rows at level 1, the same from two set-ups. */
static void test_long_chain(void)
{
    hsp_csr *A = NULL;
    hsp_generate("band:15000,1", 1, HSP_DOUBLE, &A);
    ((double *)A->values)[1] = 0; /* a_01 */
    test_two_levels("band:15000,1, a_01 stored 0", A, 15000 / 5, 15000 / 3);
    hsp_csr_drop_zeros(A, NULL);
    test_two_levels("band:15000,1 without a_01", A, 15000 / 5, 15000 / 3);
    hsp_csr_free(A);
}

/* Re-setup with new values (values only; on a device with memory of its own,
 * there, when resident): 2A doubles the coarsest operator; a perturbed A
 * gives what a fresh setup of it gives; another pattern is refused, naming
 * the first row that differs. */
static void test_resetup(int resident)
{
    const char *what = resident ? "resident re-setup" : "re-setup";
    hsp_csr *A = NULL, *B = NULL, *old = NULL, *D = NULL, *C = ref_random(1600, 1600, 1, 5, HSP_DOUBLE, 4);
    hsp_resident *M = NULL, *fresh_m = NULL;
    hsp_amg *amg = NULL, *fresh = NULL;
    hsp_amg_options o;
    hsp_amg_options_init(&o);
    o.coarse_size = 50, o.strength = HSP_STRENGTH_SYMMETRIC, o.theta = 0; /* every entry strong: the aggregates
                                                                              do not move with the values */
    hsp_generate("poisson2d9:40", 1, HSP_DOUBLE, &A);
    hsp_csr_convert(A, HSP_DOUBLE, &B);
    for (int64_t k = 0; k < B->nnz; k++) ((double *)B->values)[k] *= 2;
    int ok = setup(A, &o, resident, &M, &amg) == HSP_OK &&
             hsp_csr_convert(amg->level[amg->nlevels - 1].A, HSP_DOUBLE, &old) == HSP_OK &&
             resetup(amg, B, resident, &M) == HSP_OK;
    const hsp_csr *last = ok ? amg->level[amg->nlevels - 1].A : NULL;
    for (int64_t k = 0; ok && k < last->nnz; k++)
        ok = fabs(hsp_csr_value(last, k) - 2 * hsp_csr_value(old, k)) <= 1e-12 * (1 + fabs(hsp_csr_value(old, k)));
    tap_ok(ok, "%s with 2A: the coarsest operator doubles (P does not change)", what);
    double device = ok ? amg->level[0].ms_device : -1, host = ok ? amg->level[0].ms_host : -1;
    tap_ok(ok && (resident && amg->state->on_device ? device >= amg->level[0].ms_rap[0] : device == 0) && host == 0,
           "%s: level 0's device time %.3f ms (%s), CPU threads beside it %.3f", what, device,
           resident && amg->state->on_device ? "every step there" : "none: values by the plans on the CPU threads",
           host);
    hsp_csr_convert(B, HSP_DOUBLE, &D);
    srand(3);
    for (int32_t i = 0; i < D->nrows; i++)
        for (int64_t k = D->rowptr[i]; k < D->rowptr[i + 1]; k++)
            if (D->colidx[k] == i) ((double *)D->values)[k] *= 1 + 0.2 * rand() / RAND_MAX;
    ok = resetup(amg, D, resident, &M) == HSP_OK && setup(D, &o, resident, &fresh_m, &fresh) == HSP_OK &&
         same_levels(amg, fresh);
    tap_ok(ok, "%s with a perturbed diagonal: every level as a fresh setup", what);
    tap_ok(resetup(amg, C, resident, &M) == HSP_ERR_ARG, "%s with another pattern is refused: %s", what,
           hsp_errmsg());
    B->colidx[B->rowptr[2] - 1] += 1; /* row 1's last column, one on: as many entries, still sorted */
    tap_ok(resetup(amg, B, resident, &M) == HSP_ERR_ARG && strstr(hsp_errmsg(), "row 1"),
           "%s with a column moved in row 1 is refused: %s", what, hsp_errmsg());
    hsp_amg_free(amg), hsp_amg_free(fresh), hsp_resident_free(M), hsp_resident_free(fresh_m);
    hsp_csr_free(A), hsp_csr_free(B), hsp_csr_free(C), hsp_csr_free(D), hsp_csr_free(old);
}

/* Strong connections one way only (poisson2d5:40 with a_{i,i+1} = 0 for
 * every fifth row: a zero is no strong connection; the device's root search
 * then takes every node in every round): an eighth to a half of the rows at
 * level 1. */
static void test_one_way(void)
{
    hsp_csr *A = NULL;
    hsp_generate("poisson2d5:40", 1, HSP_DOUBLE, &A);
    for (int32_t i = 0; i < A->nrows; i += 5)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->colidx[k] == i + 1) ((double *)A->values)[k] = 0;
    test_two_levels("one-way strength", A, A->nrows / 8, A->nrows / 2);
    hsp_csr_free(A);
}

/* hsp_strength of A (block rows a node) at theta: node i's strong
 * neighbours, as a string "0:1,2 1:0 2:" */
static void strong_sets(const hsp_csr *A, hsp_strength_measure strength, double theta, int32_t block, char *out,
                        size_t len)
{
    hsp_amg_options o;
    hsp_graph S = {0, NULL, NULL};
    int64_t *diag = malloc((size_t)A->nrows * sizeof *diag);
    hsp_amg_options_init(&o);
    o.strength = strength, o.theta = theta;
    snprintf(out, len, "failed");
    if (hsp_diagonal(ctx, A, diag) != HSP_OK || hsp_strength(ctx, A, diag, &o, block, 1, &S) != HSP_OK) {
        free(diag);
        return;
    }
    out[0] = 0;
    for (int32_t i = 0; i < S.n; i++) {
        snprintf(out + strlen(out), len - strlen(out), "%s%d:", i ? " " : "", i);
        for (int64_t k = S.rowptr[i]; k < S.rowptr[i + 1]; k++)
            snprintf(out + strlen(out), len - strlen(out), "%s%d", k > S.rowptr[i] ? "," : "", S.col[k]);
    }
    hsp_graph_free(&S), free(diag);
}

/* The device's priority of node i in parallel aggregation (kernels/amg.cl, hsp_mis_rekey). */
static uint64_t mis_key(int32_t i)
{
    uint32_t h = (uint32_t)i * 0x9e3779b1u;
    h ^= h >> 15, h *= 0x85ebca77u, h ^= h >> 13;
    return (uint64_t)(h & 0x3fffffffu) << 32 | (uint32_t)i;
}

/* The largest of x over i and its neighbours in S. */
static uint64_t near_max(const hsp_graph *S, const uint64_t *x, int32_t i)
{
    uint64_t most = x[i];
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) most = x[S->col[k]] > most ? x[S->col[k]] : most;
    return most;
}

/* Parallel aggregation as the device makes it, written here plainly: rounds over every node at
 * once (a root where its key is the largest within distance 2 of the undecided and roots, out
 * where a root is there; the states in the keys' top bits: 2 root, 1 undecided, 0 out), roots
 * numbered in the nodes' order with their neighbours, then each node left joining the aggregate
 * of its neighbour of largest key that has one. */
static void rounds_aggregate(const hsp_graph *S, int32_t *agg)
{
    int32_t n = S->n, next = 0;
    uint64_t *key = malloc(((size_t)n + 1) * sizeof *key), *max1 = malloc(((size_t)n + 1) * sizeof *max1);
    const uint64_t number = ((uint64_t)1 << 62) - 1;
    for (int32_t i = 0; i < n; i++) key[i] = (S->rowptr[i + 1] > S->rowptr[i] ? (uint64_t)1 << 62 : 0) | mis_key(i);
    for (int undecided = 1; undecided;) {
        undecided = 0;
        for (int32_t i = 0; i < n; i++) max1[i] = near_max(S, key, i);
        for (int32_t i = 0; i < n; i++) {
            if (key[i] >> 62 != 1) continue;
            uint64_t most = near_max(S, max1, i);
            if (most == key[i]) key[i] = (uint64_t)2 << 62 | (key[i] & number);
            else if (most >> 62 == 2) key[i] &= number;
            else undecided = 1;
        }
    }
    int32_t *first = malloc(((size_t)n + 1) * sizeof *first);
    for (int32_t i = 0; i < n; i++) first[i] = -1;
    for (int32_t i = 0; i < n; i++)
        if (key[i] >> 62 == 2) {
            first[i] = next;
            for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) first[S->col[k]] = next;
            next++;
        }
    for (int32_t i = 0; i < n; i++) {
        int32_t best = -1;
        for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1] && first[i] < 0; k++)
            if (first[S->col[k]] >= 0 && (best < 0 || mis_key(S->col[k]) > mis_key(best))) best = S->col[k];
        agg[i] = first[i] >= 0 ? first[i] : best >= 0 ? first[best] : HSP_AGG_NONE;
    }
    free(key), free(max1), free(first);
}

/* hsp_aggregate's parallel aggregation (the roots by a sort of the hashed keys, then greedily) is
 * rounds_aggregate's, on spec (shuffled or not) by strength at theta, and not the greedy one's. */
static void test_parallel(const char *spec, hsp_strength_measure strength, double theta, int shuffle)
{
    hsp_csr *A = NULL;
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    if (shuffle) {
        hsp_csr *B = shuffled(A, 11);
        hsp_csr_free(A), A = B;
    }
    hsp_amg_options o;
    hsp_graph S = {0, NULL, NULL};
    int64_t *diag = malloc((size_t)A->nrows * sizeof *diag);
    int32_t *agg = malloc((size_t)A->nrows * sizeof *agg), *ref = malloc((size_t)A->nrows * sizeof *ref);
    int32_t *greedy = malloc((size_t)A->nrows * sizeof *greedy), naggs = 0, ngreedy = 0, differ = 0, first_bad = -1;
    hsp_amg_options_init(&o);
    o.strength = strength, o.theta = theta;
    hsp_status s = hsp_diagonal(ctx, A, diag);
    if (s == HSP_OK) s = hsp_strength(ctx, A, diag, &o, 1, 1, &S);
    if (s == HSP_OK) s = hsp_aggregate(&S, 1, agg, &naggs);
    if (s == HSP_OK) s = hsp_aggregate(&S, 0, greedy, &ngreedy);
    if (s == HSP_OK) rounds_aggregate(&S, ref);
    for (int32_t i = 0; s == HSP_OK && i < A->nrows; i++) {
        differ += agg[i] != greedy[i];
        if (agg[i] != ref[i] && first_bad < 0) first_bad = i;
    }
    tap_ok(s == HSP_OK && first_bad < 0 && naggs > 1 && differ > 0, "parallel aggregation of %s%s, %s %g: %d "
           "aggregates, each node's as rounds of the largest key within distance 2 make it (first apart: %d), "
           "%d nodes' aggregates apart from greedy's %d %s", spec, shuffle ? " shuffled" : "",
           strength == HSP_STRENGTH_CLASSICAL ? "classical" : "symmetric", theta, naggs, first_bad, differ, ngreedy,
           s ? hsp_errmsg() : "");
    hsp_graph_free(&S), free(diag), free(agg), free(ref), free(greedy), hsp_csr_free(A);
}

/* Classical strength by its definition on small matrices: |a_ij| >= theta
 * max_{k != i} |a_ik| both ways (for i and for j), a zero never strong; of
 * blocks, a block's largest |entry|; and the symmetric measure beside it. */
static void test_classical(void)
{
    /* row 0's largest is 10: a_02 = -1 is weak for 0 (1 < 2.5), strong for 2 alone (its largest),
     * so weak; a_13 = 0 stored: never strong; symmetric 0.25 keeps 0-1 (10 >= 0.25 sqrt(20 * 20)) */
    int32_t r[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3}, c[] = {0, 1, 2, 0, 1, 3, 0, 2, 1, 3};
    double v[] = {20, -10, -1, -10, 20, 0, -1, 2, 0, 1};
    hsp_csr *A = NULL, *E = NULL;
    char got[128];
    hsp_csr_from_triplets(4, 4, 10, r, c, v, HSP_DOUBLE, &A);
    strong_sets(A, HSP_STRENGTH_CLASSICAL, 0.25, 1, got, sizeof got);
    tap_ok(!strcmp(got, "0:1 1:0 2: 3:"), "classical 0.25: strong %s (want 0:1 1:0 2: 3:)", got);
    strong_sets(A, HSP_STRENGTH_CLASSICAL, 0, 1, got, sizeof got);
    tap_ok(!strcmp(got, "0:1,2 1:0 2:0 3:"), "classical 0: strong %s (want 0:1,2 1:0 2:0 3:, the zero not)", got);
    strong_sets(A, HSP_STRENGTH_SYMMETRIC, 0.25, 1, got, sizeof got);
    tap_ok(!strcmp(got, "0:1 1:0 2: 3:"), "symmetric 0.25: strong %s (want 0:1 1:0 2: 3:)", got);
    strong_sets(A, HSP_STRENGTH_SYMMETRIC, 0, 1, got, sizeof got);
    tap_ok(!strcmp(got, "0:1,2 1:0,3 2:0 3:1"), "symmetric 0: strong %s (want 0:1,2 1:0,3 2:0 3:1, the zero too)",
           got);
    /* 3 nodes of 2 rows: block (0,1) of largest |entry| 4, (0,2) of 1: strong at 0.25 (1 >= 0.25 * 4, on
     * the threshold), not at 0.5 */
    int32_t br[] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, bc[] = {0, 2, 4, 1, 3, 5, 0, 2, 1, 3, 0, 4, 1, 5};
    double bv[] = {8, -4, -1, 8, -1, -1, -4, 8, -1, 8, -1, 8, -1, 8};
    hsp_csr_from_triplets(6, 6, 14, br, bc, bv, HSP_DOUBLE, &E);
    strong_sets(E, HSP_STRENGTH_CLASSICAL, 0.5, 2, got, sizeof got);
    tap_ok(!strcmp(got, "0:1 1:0 2:"), "classical 0.5 of 2x2 blocks: strong %s (want 0:1 1:0 2:)", got);
    strong_sets(E, HSP_STRENGTH_CLASSICAL, 0.25, 2, got, sizeof got);
    tap_ok(!strcmp(got, "0:1,2 1:0 2:0"), "classical 0.25 of 2x2 blocks: strong %s (want 0:1,2 1:0 2:0)", got);
    hsp_csr_free(A), hsp_csr_free(E);
}

/* The hierarchy of spec by symmetric strength at theta has the level sizes
 * PyAMG 5.4.1 gives (pyamg.smoothed_aggregation_solver(A, strength=
 * ('symmetric', {'theta': theta}), max_coarse=1000) on the same matrix),
 * each coarse A the reference R*A*P and each P the smoothed T of its
 * aggregates. */
static void test_theta(const char *spec, double theta, int nlevels, const int32_t *rows)
{
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL;
    hsp_amg_options o;
    char sizes[128] = "", why[160] = "";
    hsp_amg_options_init(&o);
    o.strength = HSP_STRENGTH_SYMMETRIC, o.theta = theta;
    hsp_generate(spec, 1, HSP_DOUBLE, &A);
    int ok = hsp_amg_setup(ctx, A, &o, &amg) == HSP_OK && amg->nlevels == nlevels;
    for (int l = 0; amg && l < amg->nlevels; l++) {
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%d", l ? "/" : "", amg->level[l].A->nrows);
        ok = ok && amg->level[l].A->nrows == rows[l];
    }
    tap_ok(ok, "%s, theta %g: levels of %s rows, as PyAMG's %s", spec, theta, amg ? sizes : hsp_errmsg(), spec);
    int built = ok && coarse_ok(amg, why, sizeof why);
    for (int l = 0; built && l + 1 < amg->nlevels; l++) built = smoothed_ok(amg, l, o.omega, why, sizeof why);
    tap_ok(built, "%s, theta %g: each coarse A is R*A*P, each P the smoothed T of its aggregates %s", spec, theta, why);
    hsp_amg_free(amg), hsp_csr_free(A);
}

/* The aggregate of node i of A's hierarchy by strength at theta (coarse_size
 * 10), or -2 where the setup fails. */
static int32_t aggregate_of(const hsp_csr *A, hsp_strength_measure strength, double theta, int32_t i)
{
    hsp_amg *amg = NULL;
    hsp_amg_options o;
    hsp_amg_options_init(&o);
    o.coarse_size = 10, o.strength = strength, o.theta = theta;
    int32_t agg = hsp_amg_setup(ctx, A, &o, &amg) == HSP_OK && amg->nlevels >= 2 ? amg->state->level[0].agg[i] : -2;
    int zero_row = agg != -2;
    for (int64_t k = zero_row ? amg->level[0].P->rowptr[i] : 0; zero_row && k < amg->level[0].P->rowptr[i + 1]; k++)
        zero_row = agg != HSP_AGG_NONE || hsp_csr_value(amg->level[0].P, k) == 0; /* no aggregate: P's row is 0 */
    hsp_amg_free(amg);
    return zero_row ? agg : -2;
}

/* A Dirichlet row (its diagonal alone) has no strong connection: in no
 * aggregate, its row of T empty, as in PyAMG.  Its row and column cut to
 * explicit zeros instead, those are connections of symmetric strength as
 * PyAMG takes a matrix's stored entries: strong at theta 0 (it joins an
 * aggregate), not at 0.25; of classical strength never (as PyAMG's, which
 * drops them).  The resident hierarchies the same. */
static void test_isolated(void)
{
    hsp_csr *A = NULL, *D = NULL;
    hsp_generate("poisson2d5:30", 1, HSP_DOUBLE, &A);
    int32_t dirichlet = 77, *rows = malloc((size_t)A->nnz * sizeof *rows);
    int32_t *cols = malloc((size_t)A->nnz * sizeof *cols);
    double *vals = malloc((size_t)A->nnz * sizeof *vals);
    int64_t kept = 0;
    for (int32_t i = 0; i < A->nrows; i++) /* row and column 77 cut to the diagonal: explicit zeros in A, none in D */
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if ((i == dirichlet) != (A->colidx[k] == dirichlet)) {
                ((double *)A->values)[k] = 0;
                continue;
            }
            rows[kept] = i, cols[kept] = A->colidx[k], vals[kept++] = hsp_csr_value(A, k);
        }
    hsp_csr_from_triplets(A->nrows, A->ncols, kept, rows, cols, vals, HSP_DOUBLE, &D);
    int32_t alone = aggregate_of(D, HSP_STRENGTH_CLASSICAL, 0.25, dirichlet);
    int32_t zeros = aggregate_of(A, HSP_STRENGTH_SYMMETRIC, 0, dirichlet);
    int32_t weak = aggregate_of(A, HSP_STRENGTH_SYMMETRIC, 0.25, dirichlet);
    int32_t classical = aggregate_of(A, HSP_STRENGTH_CLASSICAL, 0, dirichlet);
    tap_ok(alone == HSP_AGG_NONE, "a row of its diagonal alone joins no aggregate; its row of P is 0 (aggregate %d)",
           alone);
    tap_ok(zeros >= 0 && weak == HSP_AGG_NONE, "a row of explicit zeros beside its diagonal joins an aggregate at "
           "theta 0 (%d), none at 0.25 (%d), as PyAMG takes A's stored entries", zeros, weak);
    tap_ok(classical == HSP_AGG_NONE, "... none of classical strength at theta 0 (%d): a zero is never strong",
           classical);
    host_and_resident("a row of its diagonal alone", D, HSP_STRENGTH_CLASSICAL, 0.25, HSP_AGGREGATION_GREEDY);
    host_and_resident("a row of explicit zeros", A, HSP_STRENGTH_SYMMETRIC, 0, HSP_AGGREGATION_GREEDY);
    host_and_resident("a row of explicit zeros", A, HSP_STRENGTH_SYMMETRIC, 0.25, HSP_AGGREGATION_GREEDY);
    host_and_resident("a row of explicit zeros", A, HSP_STRENGTH_CLASSICAL, 0, HSP_AGGREGATION_GREEDY);
    host_and_resident("a row of explicit zeros", A, HSP_STRENGTH_SYMMETRIC, 0, HSP_AGGREGATION_PARALLEL);
    free(rows), free(cols), free(vals), hsp_csr_free(A), hsp_csr_free(D);
}

/* Is T's fit of the candidates B (n x k) PyAMG's: T's columns orthonormal
 * (T^T T the identity but for a column dropped, 0) and B in T's range on
 * the rows of aggregated nodes (B = T R)? */
static int fitted(const hsp_csr *T, const double *B, int32_t k, char *why, size_t len)
{
    hsp_csr *TT = NULL, *G = NULL;
    int ok = hsp_transpose(T, &TT) == HSP_OK && (G = ref_multiply(TT, T, NULL)) != NULL;
    for (int32_t i = 0; ok && i < G->nrows; i++)
        for (int64_t e = G->rowptr[i]; ok && e < G->rowptr[i + 1]; e++) {
            double g = hsp_csr_value(G, e), want = G->colidx[e] == i && g > 0.5 ? 1 : 0;
            if (!(fabs(g - want) <= 1e-12)) snprintf(why, len, "T^T T (%d, %d) = %g", i, G->colidx[e], g), ok = 0;
        }
    double *c = calloc((size_t)T->ncols + 1, sizeof *c);
    for (int32_t j = 0; ok && c && j < k; j++) { /* c = T^T b_j, then T c = b_j on T's rows */
        for (int32_t r = 0; r < T->ncols; r++) c[r] = 0;
        for (int32_t i = 0; i < T->nrows; i++)
            for (int64_t e = T->rowptr[i]; e < T->rowptr[i + 1]; e++)
                c[T->colidx[e]] += hsp_csr_value(T, e) * B[i * k + j];
        for (int32_t i = 0; ok && i < T->nrows; i++) {
            double sum = 0;
            for (int64_t e = T->rowptr[i]; e < T->rowptr[i + 1]; e++) sum += hsp_csr_value(T, e) * c[T->colidx[e]];
            if (T->rowptr[i] < T->rowptr[i + 1] && !(fabs(sum - B[i * k + j]) <= 1e-10 * (1 + fabs(B[i * k + j]))))
                snprintf(why, len, "row %d: (T T^T B)_%d = %g, B's %g", i, j, sum, B[i * k + j]), ok = 0;
        }
    }
    free(c), hsp_csr_free(TT), hsp_csr_free(G);
    return ok;
}

/* Near-nullspace candidates (PyAMG's B): on poisson2d5:40 the constant and
 * x, two a node; T fits them (orthonormal on each aggregate, B in its
 * range), level 1's nodes have two rows (its aggregates make P's columns two
 * by two), the levels are Galerkin products; B = ones is the default. */
static void test_candidates(void)
{
    hsp_csr *A = NULL;
    hsp_amg *amg = NULL, *ones = NULL, *dflt = NULL;
    hsp_amg_options o;
    char why[128] = "";
    hsp_generate("poisson2d5:40", 1, HSP_DOUBLE, &A);
    double *B = malloc(2 * (size_t)A->nrows * sizeof *B), *one = malloc((size_t)A->nrows * sizeof *one);
    for (int32_t i = 0; i < A->nrows; i++) B[2 * i] = 1, B[2 * i + 1] = i % 40, one[i] = 1;
    hsp_amg_options_init(&o);
    o.coarse_size = 20, o.B = B, o.nullspace = 2;
    int ok = hsp_amg_setup(ctx, A, &o, &amg) == HSP_OK && amg->nlevels >= 3;
    if (tap_ok(ok, "two candidates: a hierarchy of %d levels %s", ok ? amg->nlevels : 0, ok ? "" : hsp_errmsg())) {
        int shapes = 1;
        for (int l = 0; l + 1 < amg->nlevels; l++)
            shapes &= amg->level[l].P->ncols == 2 * amg->level[l].naggregates &&
                      amg->level[l + 1].A->nrows == 2 * amg->level[l].naggregates;
        tap_ok(shapes, "two candidates: each P has two columns an aggregate (level 1: %d of %d aggregates)",
               amg->level[0].P->ncols, amg->level[0].naggregates);
        tap_ok(fitted(amg->state->level[0].T, B, 2, why, sizeof why), "two candidates: T is their QR on each "
               "aggregate %s", why);
        tap_ok(coarse_ok(amg, why, sizeof why), "two candidates: R = P^T, each coarse A = R*A*P %s", why);
    }
    o.B = one, o.nullspace = 1;
    ok = hsp_amg_setup(ctx, A, &o, &ones) == HSP_OK;
    o.B = NULL;
    ok = ok && hsp_amg_setup(ctx, A, &o, &dflt) == HSP_OK;
    tap_ok(ok && same_levels(ones, dflt), "B = ones gives the default hierarchy (the constant candidate)");
    hsp_amg_free(amg), hsp_amg_free(ones), hsp_amg_free(dflt), amg = NULL;
    o.nullspace = 2;
    tap_ok(hsp_amg_setup(ctx, A, &o, &amg) == HSP_ERR_ARG && !amg, "nullspace 2 without B: %s", hsp_errmsg());
    o.B = B, o.block = 3;
    tap_ok(hsp_amg_setup(ctx, A, &o, &amg) == HSP_ERR_ARG && strstr(hsp_errmsg(), "block"),
           "block 3 on 1600 rows: %s", hsp_errmsg());
    o.block = 1, B[7] = NAN;
    tap_ok(hsp_amg_setup(ctx, A, &o, &amg) == HSP_ERR_ARG && strstr(hsp_errmsg(), "B[3][1]"),
           "a NaN candidate: %s", hsp_errmsg());
    B[7] = 3;
    hsp_resident *M = NULL;
    hsp_status s = hsp_place(ctx, A, &M);
    if (s == HSP_OK) s = hsp_amg_setup_resident(ctx, M, &o, &amg);
    tap_ok(s == HSP_OK && amg->nlevels >= 3, "resident with B: %d levels (%s) %s", s == HSP_OK ? amg->nlevels : 0,
           s == HSP_OK && amg->state->on_device ? "T on the host, the products on the device"
                                               : "the host's setup over A's arrays", s == HSP_OK ? "" : hsp_errmsg());
    hsp_amg_free(amg), hsp_resident_free(M);
    free(B), free(one), hsp_csr_free(A);
}

static void test_errors(void)
{
    hsp_amg_options o;
    hsp_amg *amg = NULL;
    hsp_csr *A = ref_random(30, 20, 1, 4, HSP_DOUBLE, 1), *Z = NULL;
    hsp_amg_options_init(&o);
    tap_ok(hsp_amg_setup(ctx, A, &o, &amg) == HSP_ERR_SHAPE && !amg, "a 30x20 matrix: %s", hsp_errmsg());
    hsp_generate("poisson2d5:40", 1, HSP_DOUBLE, &Z);
    for (int64_t k = Z->rowptr[7]; k < Z->rowptr[8]; k++)
        if (Z->colidx[k] == 7) ((double *)Z->values)[k] = 0;
    o.coarse_size = 10;
    tap_ok(hsp_amg_setup(ctx, Z, &o, &amg) == HSP_ERR_ARG && strstr(hsp_errmsg(), "row 7"),
           "a zero on the diagonal: %s", hsp_errmsg());
    hsp_resident *M = NULL;
    tap_ok(hsp_place(ctx, Z, &M) == HSP_OK && hsp_amg_setup_resident(ctx, M, &o, &amg) == HSP_ERR_ARG && !amg &&
               strstr(hsp_errmsg(), "row 7"), "resident, a zero on the diagonal: %s", hsp_errmsg());
    hsp_resident_free(M);
    o.theta = -1;
    tap_ok(hsp_amg_setup(ctx, Z, &o, &amg) == HSP_ERR_ARG, "theta < 0: %s", hsp_errmsg());
    hsp_csr_free(A), hsp_csr_free(Z);
}

/* A host vector of n values of precision p, entry i f(i). */
static void *vector(int64_t n, hsp_precision p, double (*f)(int64_t))
{
    void *v = malloc((size_t)(n ? n : 1) * hsp_value_size(p));
    for (int64_t i = 0; i < n; i++)
        if (p == HSP_DOUBLE) ((double *)v)[i] = f(i);
        else ((float *)v)[i] = (float)f(i);
    return v;
}

static double wave(int64_t i) { return sin(0.37 * (double)i) + 0.25; }
static double ramp(int64_t i) { return (double)(i % 17) / 8 - 1; }
static double at(const void *v, hsp_precision p, int64_t i) { return p == HSP_DOUBLE ? ((double *)v)[i] : ((float *)v)[i]; }
/* f(i) as a vector of precision p holds it. */
static double held_value(double (*f)(int64_t), hsp_precision p, int64_t i) { return p == HSP_DOUBLE ? f(i) : (float)f(i); }

/* The device's vectors of the solve: n values of f held (h[k]), and read home. */
typedef struct {
    hsp_device *dev;
    hsp_precision p;
    int64_t n;
    void *held;
} dvec;

static dvec dvec_of(hsp_device *dev, int64_t n, hsp_precision p, double (*f)(int64_t))
{
    dvec v = {dev, p, n, NULL};
    void *host = vector(n, p, f);
    size_t bytes = (size_t)n * hsp_value_size(p);
    if (dev->hold(dev, 1, (const void *[]){host}, &bytes, &v.held) != HSP_OK) tap_diag("hold: %s", hsp_errmsg());
    free(host);
    return v;
}

/* v's values (malloc'd), or NULL where it could not be read. */
static void *dvec_home(const dvec *v)
{
    size_t bytes = (size_t)v->n * hsp_value_size(v->p);
    void *host = malloc(bytes ? bytes : 1);
    if (!v->held || v->dev->home(v->dev, v->held, 1, (void *[]){host}, &bytes) != HSP_OK) free(host), host = NULL;
    return host;
}

/* The largest |got - want| / scale[i] over n entries, or infinity where got is NULL. */
static double worst(const void *got, hsp_precision p, const double *want, const double *scale, int64_t n)
{
    double e = got ? 0 : INFINITY;
    for (int64_t i = 0; got && i < n; i++) e = fmax(e, fabs(at(got, p, i) - want[i]) / (scale[i] + 1e-300));
    return e;
}

/* Parts (room for n items' work-groups) and sums held on dev for a solve
 * step: {3 a, 3, 0}: its coefficient a as sums[0] / sums[1] (num 0, den 1;
 * num -1 where take_a is 0), its sum into sums[2]. */
static hsp_vec_sums sums_of(hsp_device *dev, int64_t n, hsp_precision p, double a, int take_a)
{
    hsp_vec_sums into = {NULL, NULL, 2, take_a ? 0 : -1, 1};
    double three[3] = {3 * a, 3, 0};
    float three_f[3] = {(float)(3 * a), 3, 0};
    size_t bytes = 3 * hsp_value_size(p), pbytes = (size_t)(n + 64) * hsp_value_size(p);
    void *zeros = calloc((size_t)n + 64, sizeof(double));
    if (dev->hold(dev, 1, (const void *[]){zeros}, &pbytes, &into.parts) != HSP_OK ||
        dev->hold(dev, 1, (const void *[]){p == HSP_DOUBLE ? (void *)three : (void *)three_f}, &bytes,
                  &into.sums) != HSP_OK)
        tap_diag("hold: %s", hsp_errmsg());
    free(zeros);
    return into;
}

/* The sum a step gave into `into` (NaN where it cannot be read); its arrays dropped. */
static double sums_read(hsp_device *dev, hsp_vec_sums *into, hsp_precision p)
{
    dvec s = {dev, p, 3, into->sums};
    void *got = dvec_home(&s);
    double v = got ? at(got, p, 2) : NAN;
    dev->drop(dev, into->parts), dev->drop(dev, into->sums);
    free(got);
    return v;
}

/* y = c + s A x (c: none, another vector, or y itself) and y.w on the
 * device (amg_device.h's spmv) against the host's, for a random A with
 * empty and long rows: the worst entry's error against the sum of its terms'
 * magnitudes, and the dot's against the sum of |y_i w_i|. */
static void device_spmv(hsp_device *dev, const hsp_csr *A, double s, int c_is)
{
    hsp_precision p = A->precision;
    hsp_resident *R = NULL;
    dvec x = dvec_of(dev, A->ncols, p, wave), c = dvec_of(dev, A->nrows, p, ramp), y = dvec_of(dev, A->nrows, p, ramp);
    dvec w = dvec_of(dev, A->nrows, p, wave);
    double *want = malloc((size_t)A->nrows * sizeof *want), *mag = malloc((size_t)A->nrows * sizeof *mag), yw = NAN;
    hsp_vec_sums into = sums_of(dev, 8 * (int64_t)A->nrows, p, 0, 0);
    double dot = 0, dmag = 0;
    hsp_status st = hsp_place(ctx, A, &R);
    if (st == HSP_OK)
        st = dev->amg->spmv(dev, hsp_resident_csr(R), hsp_resident_held(R), s, x.held,
                            c_is == 0 ? NULL : c_is == 1 ? c.held : y.held, y.held, w.held, &into);
    if (st != HSP_OK) tap_diag("spmv: %s", hsp_errmsg());
    if (st == HSP_OK) yw = sums_read(dev, &into, p);
    for (int32_t i = 0; i < A->nrows; i++) {
        double sum = 0, m = 0, ci = c_is ? ramp(i) : 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            double t = hsp_csr_value(A, k) * held_value(wave, p, A->colidx[k]);
            sum += t, m += fabs(t);
        }
        want[i] = ci + s * sum, mag[i] = fabs(ci) + fabs(s) * m;
        dot += want[i] * held_value(wave, p, i), dmag += fabs(want[i] * held_value(wave, p, i));
    }
    void *got = st == HSP_OK ? dvec_home(&y) : NULL;
    double e = worst(got, p, want, mag, A->nrows), de = fabs(yw - dot) / (dmag + 1e-300), tol = p == HSP_DOUBLE ? 1e-13 : 1e-5;
    tap_ok(e <= tol && de <= (p == HSP_DOUBLE ? 1e-12 : 1e-4), "device spmv, %s, y = %s%g A x and y.w: %d x %d, rows of 0-300: "
           "largest relative error %.2g, of the dot %.2g", p == HSP_DOUBLE ? "double" : "float",
           (const char *[]){"", "c + ", "y + "}[c_is], s, A->nrows, A->ncols, e, de);
    dvec *all[] = {&x, &c, &y, &w};
    for (int k = 0; k < 4; k++) dev->drop(dev, all[k]->held);
    hsp_resident_free(R);
    free(want), free(mag), free(got);
}
/* dinv = 1 / a_ii and l1inv = 1 / sum_j |a_ij| on the device against the host's. */
static void device_diagonals(hsp_device *dev, hsp_precision p)
{
    hsp_csr *A = NULL;
    hsp_resident *R = NULL;
    hsp_generate("poisson2d9:40", 1, p, &A);
    dvec d = dvec_of(dev, A->nrows, p, ramp), l = dvec_of(dev, A->nrows, p, ramp);
    double *dw = malloc((size_t)A->nrows * sizeof *dw), *lw = malloc((size_t)A->nrows * sizeof *lw);
    double *one = malloc((size_t)A->nrows * sizeof *one);
    for (int32_t i = 0; i < A->nrows; i++) {
        double sum = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) sum += fabs(hsp_csr_value(A, k));
        dw[i] = 1 / diagonal(A, i), lw[i] = 1 / sum, one[i] = fabs(dw[i]) + fabs(lw[i]);
    }
    hsp_status st = hsp_place(ctx, A, &R);
    if (st == HSP_OK) st = dev->amg->diagonals(dev, hsp_resident_csr(R), hsp_resident_held(R), d.held, l.held);
    void *gd = st == HSP_OK ? dvec_home(&d) : NULL, *gl = st == HSP_OK ? dvec_home(&l) : NULL;
    double e = fmax(worst(gd, p, dw, one, A->nrows), worst(gl, p, lw, one, A->nrows));
    tap_ok(e <= (p == HSP_DOUBLE ? 1e-15 : 1e-6), "device diagonals, %s, poisson2d9:40: 1 / a_ii and 1 / sum |a_ij|, "
           "largest relative error %.2g", p == HSP_DOUBLE ? "double" : "float", e);
    dev->drop(dev, d.held), dev->drop(dev, l.held);
    hsp_resident_free(R);
    hsp_csr_free(A);
    free(dw), free(lw), free(one), free(gd), free(gl);
}

static double bump(int64_t i) { return 1.5 + cos(0.11 * (double)i); }

/* Each vector step (amg_device.h's HSP_VEC_*) on n entries against the same
 * worked out here: the vectors after it, and the sum it gives. */
static void device_vector(hsp_device *dev, hsp_precision p, int op, int with_d)
{
    enum { N = 5000 };
    const double a = op == HSP_VEC_STEP && !with_d ? 0 : 0.75, c = -1.25;
    double (*f[4])(int64_t) = {wave, ramp, bump, wave};
    dvec v[4];
    double want[4][N], scale[N], out = NAN, sum = 0, smag = 0;
    int take_a = op == HSP_VEC_UPDATE || op == HSP_VEC_DIRECTION; /* as CG's alpha and beta: sums[0] / sums[1] */
    hsp_vec_sums into = sums_of(dev, N, p, a, take_a);
    for (int k = 0; k < 4; k++) v[k] = dvec_of(dev, N, p, f[k]);
    for (int64_t i = 0; i < N; i++) {
        double x[4];
        for (int k = 0; k < 4; k++) x[k] = want[k][i] = held_value(f[k], p, i);
        if (op == HSP_VEC_STEP) {
            double u = c * x[3] * x[2] + a * x[1];
            want[1][i] = with_d ? u : x[1], want[0][i] = x[0] + u;
        } else if (op == HSP_VEC_UPDATE) {
            want[0][i] = x[0] + a * x[2], want[1][i] = x[1] - a * x[3];
            sum += want[1][i] * want[1][i], smag += want[1][i] * want[1][i];
        } else if (op == HSP_VEC_DIRECTION) {
            want[0][i] = x[1] + a * x[0];
        } else if (op == HSP_VEC_DOT) {
            sum += x[0] * x[1], smag += fabs(x[0] * x[1]);
        } else {
            want[0][i] = op == HSP_VEC_COPY ? x[1] : 0;
        }
        scale[i] = 4; /* every value here is below 4 in magnitude */
    }
    if (op == HSP_VEC_STEP && !with_d) dev->drop(dev, v[1].held), v[1].held = NULL;
    void *held[4] = {v[0].held, v[1].held, v[2].held, v[3].held};
    hsp_status st = dev->amg->vector(dev, op, N, p, take_a ? 0 : a, c, held, &into);
    if (st == HSP_OK) out = sums_read(dev, &into, p);
    double e = st == HSP_OK ? 0 : INFINITY;
    for (int k = 0; k < 4 && st == HSP_OK; k++) {
        if (!v[k].held) continue;
        void *got = dvec_home(&v[k]);
        e = fmax(e, worst(got, p, want[k], scale, N));
        free(got);
    }
    if (op == HSP_VEC_UPDATE || op == HSP_VEC_DOT) e = fmax(e, fabs(out - sum) / (smag + 1e-300));
    static const char *const names[] = {"step", "update", "direction", "dot", "copy", "zero"};
    tap_ok(e <= (p == HSP_DOUBLE ? 1e-14 : 1e-5), "device vector %s%s, %s, %d entries: the vectors and the sum as "
           "worked out here (largest error %.2g)", names[op], op == HSP_VEC_STEP ? (with_d ? " with d" : " without d") : "",
           p == HSP_DOUBLE ? "double" : "float", N, e);
    for (int k = 0; k < 4; k++) dev->drop(dev, v[k].held);
}

/* The solve's steps on a device with memory of its own, both precisions. */
static void test_device_solve_steps(void)
{
    hsp_device *dev = ctx->device;
    if (!dev->amg) {
        tap_skip("the device uses host arrays in place (no resident solve steps)", "device solve steps");
        return;
    }
    for (int p = 0; p < 2; p++) {
        hsp_precision prec = p ? HSP_DOUBLE : HSP_FLOAT;
        hsp_csr *A = ref_random(3000, 2500, 0, 300, prec, 58);
        for (int c_is = 0; c_is < 3; c_is++) device_spmv(dev, A, c_is == 1 ? -1 : 0.5, c_is);
        hsp_csr_free(A);
        device_diagonals(dev, prec);
        for (int op = HSP_VEC_STEP; op <= HSP_VEC_ZERO; op++) device_vector(dev, prec, op, 1);
        device_vector(dev, prec, HSP_VEC_STEP, 0);
    }
}

/* Triplets of a matrix being built. */
typedef struct {
    int32_t *rows, *cols;
    double *vals;
    int64_t nnz;
} triplets;

/* A spring of stiffness 1 and direction (c, s) between nodes a and b, two
 * rows each: d d^T on their diagonal blocks, -d d^T off them. */
static void spring(triplets *t, int32_t a, int32_t b, double c, double s)
{
    const int32_t node[2] = {a, b};
    const double d[2] = {c, s};
    for (int u = 0; u < 2; u++)
        for (int v = 0; v < 2; v++)
            for (int r = 0; r < 2; r++)
                for (int q = 0; q < 2; q++) {
                    t->rows[t->nnz] = 2 * node[u] + r, t->cols[t->nnz] = 2 * node[v] + q;
                    t->vals[t->nnz++] = (u == v ? 1 : -1) * d[r] * d[q];
                }
}

/* 2D linear elasticity's kind of system on n x n nodes (two displacements a
 * node, block 2): springs along the grid's edges and both diagonals of each
 * cell (whose kernel is the rigid-body modes), the nodes of column 0 held to
 * the ground (A is then SPD); *B: the three rigid-body modes (the two
 * translations, the rotation), 2 n^2 rows of 3. */
static hsp_csr *elasticity(int32_t n, hsp_precision p, double **B)
{
    int32_t nodes = n * n;
    double h = sqrt(0.5);
    triplets t = {malloc(70 * (size_t)nodes * sizeof(int32_t)), malloc(70 * (size_t)nodes * sizeof(int32_t)),
                  malloc(70 * (size_t)nodes * sizeof(double)), 0};
    hsp_csr *A = NULL, *F = NULL;
    *B = malloc(6 * (size_t)nodes * sizeof **B);
    for (int32_t y = 0; y < n; y++)
        for (int32_t x = 0; x < n; x++) {
            int32_t i = y * n + x;
            if (x + 1 < n) spring(&t, i, i + 1, 1, 0);
            if (y + 1 < n) spring(&t, i, i + n, 0, 1);
            if (x + 1 < n && y + 1 < n) spring(&t, i, i + n + 1, h, h), spring(&t, i + 1, i + n, -h, h);
            for (int r = 0; x == 0 && r < 2; r++) /* column 0 held to the ground */
                t.rows[t.nnz] = t.cols[t.nnz] = 2 * i + r, t.vals[t.nnz++] = 1;
            const double modes[6] = {1, 0, -y, 0, 1, x};
            memcpy(*B + 6 * (size_t)i, modes, sizeof modes);
        }
    hsp_csr_from_triplets(2 * nodes, 2 * nodes, t.nnz, t.rows, t.cols, t.vals, HSP_DOUBLE, &A);
    free(t.rows), free(t.cols), free(t.vals);
    if (A && p == HSP_FLOAT) hsp_csr_convert(A, p, &F), hsp_csr_free(A), A = F;
    return A;
}

/* A with every diagonal entry 1.5 times its own (the same pattern). */
static hsp_csr *stiffer_diagonal(const hsp_csr *A)
{
    hsp_csr *C = NULL;
    hsp_csr_convert(A, A->precision, &C);
    for (int32_t i = 0; C && i < C->nrows; i++)
        for (int64_t k = C->rowptr[i]; k < C->rowptr[i + 1]; k++)
            if (C->colidx[k] == i) hsp_csr_set_value(C, k, 1.5 * hsp_csr_value(C, k));
    return C;
}

/* A resident re-setup of A's hierarchy (options o) with new values of A's
 * pattern gives the host's re-setup's levels (which differ from A's). */
static void resident_values_anew(const char *what, const hsp_csr *A, const hsp_amg_options *o)
{
    hsp_amg *host = NULL, *res = NULL, *before = NULL;
    hsp_resident *M = NULL;
    hsp_csr *C = stiffer_diagonal(A);
    double tol = A->precision == HSP_FLOAT ? 1e-4 : 1e-10;
    int ok = C && setup(A, o, 0, NULL, &host) == HSP_OK && setup(A, o, 0, NULL, &before) == HSP_OK &&
             setup(A, o, 1, &M, &res) == HSP_OK && host->nlevels > 2;
    ok = ok && hsp_amg_resetup(ctx, host, C) == HSP_OK && resetup(res, C, 1, &M) == HSP_OK;
    tap_ok(ok && levels_within(res, host, tol) && !levels_within(res, before, tol),
           "%s: a resident re-setup with a stiffer diagonal gives the host re-setup's %d levels %s", what,
           ok ? host->nlevels : 0, ok ? "" : hsp_errmsg());
    hsp_amg_free(host), hsp_amg_free(before), hsp_amg_free(res), hsp_resident_free(M), hsp_csr_free(C);
}

/* x of n values of precision p as doubles (a new array). */
static double *as_doubles(const void *x, hsp_precision p, int32_t n)
{
    double *d = malloc((size_t)n * sizeof *d);
    for (int32_t i = 0; i < n; i++) d[i] = at(x, p, i);
    return d;
}

/* |x|, of n values. */
static double norm(const double *x, int32_t n)
{
    double s = 0;
    for (int32_t i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

/* The solve of A x = b by A's resident hierarchy (options o; on a device of
 * its own, there, its smoother auto: Chebyshev) converges to tol by a
 * residual computed here, within 2 iterations of the host hierarchy's solve
 * with the same smoother. */
static void resident_solve(const char *what, const hsp_csr *A, const hsp_amg_options *o)
{
    hsp_amg *host = NULL, *res = NULL;
    hsp_resident *M = NULL;
    hsp_amg_solve_options so;
    hsp_amg_solve_info ri = {0}, hi = {0};
    hsp_precision p = A->precision;
    void *b = vector(A->nrows, p, wave), *x = vector(A->nrows, p, ramp);
    double *bd = as_doubles(b, p, A->nrows), *r = malloc((size_t)A->nrows * sizeof *r), *xd = NULL, rel = 1;
    hsp_amg_solve_options_init(&so);
    so.tol = p == HSP_DOUBLE ? 1e-8 : 1e-4; /* a float x's rounding times A's condition: 2e-5 for elasticity */
    int ok = setup(A, o, 0, NULL, &host) == HSP_OK && setup(A, o, 1, &M, &res) == HSP_OK;
    ok = ok && hsp_amg_solve(ctx, res, b, x, &so, &ri) == HSP_OK;
    if (ok) xd = as_doubles(x, p, A->nrows), rel = residual(A, bd, xd, r) / norm(bd, A->nrows);
    so.smoother = ri.smoother;
    ok = ok && hsp_amg_solve(ctx, host, b, x, &so, &hi) == HSP_OK;
    tap_ok(ok && ri.converged && rel <= so.tol * 1.01 && abs(ri.iterations - hi.iterations) <= 2 &&
               ri.on_device == res->state->on_device && (!ri.on_device || ri.smoother == HSP_SMOOTHER_CHEBYSHEV),
           "%s: the resident solve (%s, smoother %d) takes %d iterations, the host's %d; |b - Ax|/|b| = %.3g here "
           "(tol %g) %s", what, ri.on_device ? "on the device" : "on the CPU threads", (int)ri.smoother,
           ri.iterations, hi.iterations, rel, so.tol, ok ? "" : hsp_errmsg());
    hsp_amg_free(host), hsp_amg_free(res), hsp_resident_free(M);
    free(b), free(x), free(bd), free(xd), free(r);
}

/* The elasticity system (block 2, its 3 rigid-body modes) and a scalar
 * problem with two candidates (the constant and x): on a device of its own
 * their aggregates and T are the host's, the products there; the levels,
 * a re-setup and the solve as the host hierarchy's. */
static void test_systems(hsp_precision p)
{
    const char *pname = p == HSP_DOUBLE ? "double" : "float";
    double *modes = NULL;
    hsp_csr *E = elasticity(24, p, &modes), *A = NULL;
    hsp_amg_options o;
    char what[96];
    hsp_amg_options_init(&o);
    o.coarse_size = 20, o.B = modes, o.nullspace = 3, o.block = 2;
    o.aggregation = HSP_AGGREGATION_PARALLEL; /* a device's default: its aggregates made on the host */
    snprintf(what, sizeof what, "elasticity 24x24 nodes, 3 modes (%s)", pname);
    resident_as_host(what, E, &o);
    resident_values_anew(what, E, &o);
    resident_solve(what, E, &o);
    o.strength = HSP_STRENGTH_SYMMETRIC, o.theta = 1; /* no strong connection: one aggregate of no node, P = 0 */
    resident_as_host(what, E, &o);
    o.strength = HSP_STRENGTH_CLASSICAL, o.theta = 0.25;
    hsp_generate("poisson2d5:40", 1, p, &A);
    double *B = malloc(2 * (size_t)A->nrows * sizeof *B);
    for (int32_t i = 0; i < A->nrows; i++) B[2 * i] = 1, B[2 * i + 1] = i % 40;
    o.B = B, o.nullspace = 2, o.block = 1, o.aggregation = HSP_AGGREGATION_GREEDY;
    snprintf(what, sizeof what, "poisson2d5:40, constant and x (%s)", pname);
    resident_as_host(what, A, &o);
    resident_values_anew(what, A, &o);
    resident_solve(what, A, &o);
    free(modes), free(B), hsp_csr_free(E), hsp_csr_free(A);
}

/* The message of the last error without the name of the set-up that gave it. */
static const char *reason(void)
{
    const char *m = hsp_errmsg(), *colon = strstr(m, ": ");
    return !strncmp(m, "hsp_amg_setup", strlen("hsp_amg_setup")) && colon ? colon + 2 : m;
}

/* A resident set-up of E (options o) fails as the host's does, with its
 * message, the candidates untouched. */
static void fails_as_host(const char *what, const hsp_csr *E, const hsp_amg_options *o)
{
    hsp_amg *host = NULL, *res = NULL;
    hsp_resident *M = NULL;
    size_t bytes = (size_t)E->nrows * (size_t)o->nullspace * sizeof *o->B;
    double *copy = malloc(bytes);
    char want[256];
    memcpy(copy, o->B, bytes);
    hsp_status sh = hsp_amg_setup(ctx, E, o, &host);
    snprintf(want, sizeof want, "%s", reason());
    hsp_status sr = hsp_place(ctx, E, &M);
    if (sr == HSP_OK) sr = hsp_amg_setup_resident(ctx, M, o, &res);
    tap_ok(sh != HSP_OK && sr == sh && !host && !res && !strcmp(reason(), want) && !memcmp(copy, o->B, bytes),
           "resident elasticity, %s: %s (the host's: %s)", what, hsp_errmsg(), want);
    hsp_resident_free(M), free(copy);
}

/* Bad candidates, a block that does not divide the rows and a zero on the
 * diagonal: a resident set-up's errors are the host's. */
static void test_system_errors(void)
{
    double *modes = NULL;
    hsp_csr *E = elasticity(16, HSP_DOUBLE, &modes);
    hsp_amg_options o;
    hsp_amg_options_init(&o);
    o.coarse_size = 20, o.B = modes, o.nullspace = 3, o.block = 2;
    modes[3 * 41 + 2] = NAN;
    fails_as_host("a NaN candidate", E, &o);
    modes[3 * 41 + 2] = 1, o.block = 5;
    fails_as_host("block 5 on 512 rows", E, &o);
    o.block = 2;
    for (int64_t k = E->rowptr[7]; k < E->rowptr[8]; k++)
        if (E->colidx[k] == 7) ((double *)E->values)[k] = 0;
    fails_as_host("a zero on the diagonal", E, &o);
    free(modes), hsp_csr_free(E);
}

int main(void)
{
    if (!tap_ok((ctx = ref_context()) != NULL, "a context on %s", ref_device())) return tap_done();
    test_poisson("poisson2d5:64", HSP_RAP_R_AP, 0, 1.0 / 12, 1.0 / 3, 0.5);
    test_poisson("poisson2d5:64", HSP_RAP_RA_P, 0, 1.0 / 12, 1.0 / 3, 0.5);
    test_poisson("poisson3d7:16", HSP_RAP_R_AP, 0, 1.0 / 30, 1.0 / 3, 0.5);
    /* a device with memory of its own aggregates there, as the host does */
    test_poisson("poisson2d5:64", HSP_RAP_R_AP, 1, 1.0 / 12, 1.0 / 3, 0.5);
    test_poisson("poisson2d5:64", HSP_RAP_RA_P, 1, 1.0 / 12, 1.0 / 3, 0.5);
    test_poisson("poisson3d7:16", HSP_RAP_R_AP, 1, 1.0 / 30, 1.0 / 3, 0.5);
    test_host_aggregates("poisson2d5:100", HSP_STRENGTH_SYMMETRIC, 0, 0, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson2d9:60", HSP_STRENGTH_SYMMETRIC, 0, 0, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson3d7:20", HSP_STRENGTH_SYMMETRIC, 0, 0, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson3d27:20", HSP_STRENGTH_SYMMETRIC, 0, 0, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson2d5:100", HSP_STRENGTH_SYMMETRIC, 0, 1, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson3d7:20", HSP_STRENGTH_SYMMETRIC, 0, 1, HSP_AGGREGATION_GREEDY);
    /* every theta: at 0.25 level 1 has no strong connection (one row next), at
     * 0.5 level 0 has none */
    for (int k = 0; k < 4; k++)
        test_host_aggregates("poisson2d5:200", HSP_STRENGTH_SYMMETRIC, (const double[]){0, 0.08, 0.25, 0.5}[k], 0,
                             HSP_AGGREGATION_GREEDY);
    /* classical (the default): the coarse levels' entries differ in size, so some are weak */
    for (int k = 0; k < 3; k++)
        test_host_aggregates("poisson2d5:200", HSP_STRENGTH_CLASSICAL, (const double[]){0.08, 0.25, 0.5}[k], 0,
                             HSP_AGGREGATION_GREEDY);
    test_host_aggregates("aniso2d:100", HSP_STRENGTH_CLASSICAL, 0.25, 0, HSP_AGGREGATION_GREEDY);
    test_host_aggregates("poisson3d27:20", HSP_STRENGTH_CLASSICAL, 0.25, 1, HSP_AGGREGATION_GREEDY);
    /* parallel aggregation (a device's default): the same roots on the device and the host */
    test_host_aggregates("poisson2d5:100", HSP_STRENGTH_SYMMETRIC, 0, 0, HSP_AGGREGATION_PARALLEL);
    test_host_aggregates("poisson3d7:20", HSP_STRENGTH_SYMMETRIC, 0, 1, HSP_AGGREGATION_PARALLEL);
    test_host_aggregates("poisson2d5:200", HSP_STRENGTH_CLASSICAL, 0.25, 0, HSP_AGGREGATION_PARALLEL);
    test_host_aggregates("aniso2d:100", HSP_STRENGTH_CLASSICAL, 0.25, 0, HSP_AGGREGATION_PARALLEL);
    test_host_aggregates("poisson3d27:20", HSP_STRENGTH_CLASSICAL, 0.25, 1, HSP_AGGREGATION_PARALLEL);
    test_classical();
    test_parallel("poisson2d5:64", HSP_STRENGTH_CLASSICAL, 0.25, 0);
    test_parallel("poisson3d27:12", HSP_STRENGTH_SYMMETRIC, 0, 1);
    test_parallel("aniso2d:64", HSP_STRENGTH_CLASSICAL, 0.25, 0);
    test_long_chain();
    test_one_way();
    test_resetup(0);
    test_resetup(1);
    /* theta as PyAMG's: |a_ij| >= theta sqrt(|a_ii a_jj|), at 0.25 every
     * neighbour of a 5-point stencil (-1 against 4) exactly; where nothing is
     * strong the next level is one row, P = 0 */
    test_theta("poisson2d5:200", 0.25, 3, (const int32_t[]){40000, 6700, 1});
    test_theta("poisson2d5:200", 0.5, 2, (const int32_t[]){40000, 1});
    test_theta("poisson3d7:30", 0.25, 2, (const int32_t[]){27000, 1});
    test_theta("poisson2d5:200", 0, 3, (const int32_t[]){40000, 6700, 765});
    test_theta("poisson3d7:30", 0, 3, (const int32_t[]){27000, 3257, 88});
    test_isolated();
    test_candidates();
    test_errors();
    test_systems(HSP_DOUBLE);
    test_systems(HSP_FLOAT);
    test_system_errors();
    test_device_solve_steps();
    hsp_context_free(ctx);
    return tap_done();
}
