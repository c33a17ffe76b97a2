/* solve.c: A x = b by an AMG hierarchy on the CPU threads: conjugate
 * gradients preconditioned by one cycle (PyAMG's accel='cg'), or the cycles
 * alone, to a relative residual |b - A x| / |b|; and one cycle as a
 * preconditioner (hsp_amg_apply).  The caller's vectors, float or double,
 * are read into double vectors and x is written back once at the end, so
 * that an error leaves it as it was. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amg/amg.h"
#include "amg/solve.h"
#include "core/internal.h"
#include "device/context.h"

void hsp_amg_solve_options_init(hsp_amg_solve_options *o)
{
    if (!o) return;
    o->tol = 1e-8, o->maxiter = 100, o->accel = HSP_ACCEL_CG, o->cycle = HSP_CYCLE_V;
    o->smoother = HSP_SMOOTHER_GAUSS_SEIDEL, o->pre = 1, o->post = 1, o->jacobi_omega = 1, o->chebyshev_degree = 3;
    o->x0 = 0;
}

/* o in range, else an error naming fn and the option. */
static hsp_status check_options(const char *fn, const hsp_amg_solve_options *o)
{
    if (!(o->tol >= 0 && o->tol < INFINITY))
        return hsp_fail(HSP_ERR_ARG, "%s: tol = %g: give a number >= 0", fn, o->tol);
    if (o->maxiter < 0) return hsp_fail(HSP_ERR_ARG, "%s: maxiter = %d: give 0 or more", fn, o->maxiter);
    if (o->accel != HSP_ACCEL_CG && o->accel != HSP_ACCEL_NONE)
        return hsp_fail(HSP_ERR_ARG, "%s: accel = %d: give HSP_ACCEL_CG or HSP_ACCEL_NONE", fn, (int)o->accel);
    if (o->cycle != HSP_CYCLE_V && o->cycle != HSP_CYCLE_W)
        return hsp_fail(HSP_ERR_ARG, "%s: cycle = %d: give HSP_CYCLE_V or HSP_CYCLE_W", fn, (int)o->cycle);
    if (o->smoother < HSP_SMOOTHER_GAUSS_SEIDEL || o->smoother > HSP_SMOOTHER_CHEBYSHEV)
        return hsp_fail(HSP_ERR_ARG, "%s: smoother = %d: give an hsp_smoother", fn, (int)o->smoother);
    if (o->pre < 0 || o->pre > 100 || o->post < 0 || o->post > 100)
        return hsp_fail(HSP_ERR_ARG, "%s: pre = %d, post = %d: give 0 to 100 sweeps each", fn, o->pre, o->post);
    if (!(o->jacobi_omega > 0 && o->jacobi_omega < 2))
        return hsp_fail(HSP_ERR_ARG, "%s: jacobi_omega = %g: give a number in (0, 2)", fn, o->jacobi_omega);
    if (o->chebyshev_degree < 1 || o->chebyshev_degree > 16)
        return hsp_fail(HSP_ERR_ARG, "%s: chebyshev_degree = %d: give 1 to 16", fn, o->chebyshev_degree);
    if (o->x0 != 0 && o->x0 != 1) return hsp_fail(HSP_ERR_ARG, "%s: x0 = %d: give 0 or 1", fn, o->x0);
    return HSP_OK;
}

/* Every level's matrices on the host, else an error naming fn. */
static hsp_status check_hierarchy(const char *fn, const hsp_amg *amg)
{
    if (!amg->state || amg->nlevels < 1) return hsp_fail(HSP_ERR_ARG, "%s: amg is not a set-up hierarchy", fn);
    for (int l = 0; l < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        if (!v->A || (l + 1 < amg->nlevels && (!v->P || !v->R)))
            return hsp_fail(HSP_ERR_ARG, "%s: level %d of the resident hierarchy is not on the host: call "
                            "hsp_amg_home first (the solve runs on the CPU threads)", fn, l);
    }
    return HSP_OK;
}

/* n values of precision p at v, as doubles into out. */
static void to_double(const void *v, hsp_precision p, int32_t n, double *out)
{
    for (int32_t i = 0; i < n; i++) out[i] = p == HSP_DOUBLE ? ((const double *)v)[i] : ((const float *)v)[i];
}

/* n doubles into v, of precision p. */
static void from_double(const double *in, hsp_precision p, int32_t n, void *v)
{
    for (int32_t i = 0; i < n; i++)
        if (p == HSP_DOUBLE) ((double *)v)[i] = in[i];
        else ((float *)v)[i] = (float)in[i];
}

/* Are the n values of v (precision p) finite?  Else an error naming fn, what and the entry. */
static hsp_status check_finite(const char *fn, const char *what, const void *v, hsp_precision p, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        double x = p == HSP_DOUBLE ? ((const double *)v)[i] : ((const float *)v)[i];
        if (!isfinite(x)) return hsp_fail(HSP_ERR_ARG, "%s: %s[%d] = %g: give finite values", fn, what, i, x);
    }
    return HSP_OK;
}

/* A solve's vectors (level 0's rows) and figures. */
typedef struct {
    hsp_context *ctx;
    hsp_amg_solve_data *sd;
    const hsp_amg_solve_options *o;
    int32_t n;
    double *x, *b, *r, *z, *p, *q;
    double normb;
    hsp_amg_solve_info info;
} solver;

/* r = b - A x; returns |r| / |b|. */
static double residual(solver *s)
{
    return sqrt(hsp_rows_spmv(s->ctx, &s->sd->level[0].A, s->x, s->b, -1, s->r, s->r)) / s->normb;
}

/* The relative residual after iteration it (0: the initial one) into the history. */
static void record(solver *s, int it, double rel)
{
    if (s->info.history && it < s->info.history_size) s->info.history[it] = rel, s->info.history_len = it + 1;
    s->info.iterations = it;
}

/* z = M r, one cycle from zero; returns r.z. */
static double precondition(solver *s)
{
    memset(s->z, 0, (size_t)s->n * sizeof *s->z);
    hsp_cycle_run(s->sd, s->o, s->z, s->r, 1);
    return hsp_vec_dot(s->ctx, s->n, s->r, s->z);
}

/* The cycles alone from x until the residual is at most tol or maxiter. */
static hsp_status stationary(solver *s)
{
    double rel = residual(s);
    record(s, 0, rel);
    for (int it = 1; rel > s->o->tol && it <= s->o->maxiter; it++) {
        hsp_cycle_run(s->sd, s->o, s->x, s->b, it == 1 && !s->o->x0);
        record(s, it, rel = residual(s));
    }
    s->info.residual = rel;
    return HSP_OK;
}

/* CG preconditioned by a cycle from x; where its recurrence says converged,
 * the residual is recomputed from x (and CG goes on from it where it is not). */
static hsp_status pcg(solver *s)
{
    double rel = residual(s), rz = 0;
    int exact = 1;
    record(s, 0, rel);
    if (rel > s->o->tol && s->o->maxiter > 0) rz = precondition(s), hsp_vec_copy(s->ctx, s->n, s->z, s->p);
    for (int it = 1; rel > s->o->tol && it <= s->o->maxiter; it++) {
        if (!(rz > 0))
            return hsp_fail(HSP_ERR_ARG, "hsp_amg_solve: CG broke down at iteration %d: r.Mr = %g: the cycle is not "
                            "positive definite (A not SPD?)", it, rz);
        double pq = hsp_rows_spmv(s->ctx, &s->sd->level[0].A, s->p, NULL, 1, s->q, s->p);
        if (!(pq > 0))
            return hsp_fail(HSP_ERR_ARG, "hsp_amg_solve: CG broke down at iteration %d: p.Ap = %g: A is not "
                            "positive definite", it, pq);
        rel = sqrt(hsp_vec_update(s->ctx, s->n, rz / pq, s->p, s->q, s->x, s->r)) / s->normb, exact = 0;
        if (rel <= s->o->tol) rel = residual(s), exact = 1;
        record(s, it, rel);
        if (rel <= s->o->tol || it == s->o->maxiter) break;
        double next = precondition(s);
        hsp_vec_direction(s->ctx, s->n, s->z, next / rz, s->p);
        rz = next;
    }
    s->info.residual = exact ? rel : residual(s);
    return HSP_OK;
}

/* hsp_amg_solve on the locked context, its arguments checked. */
static hsp_status solve(hsp_context *ctx, hsp_amg *amg, const void *b, void *x, const hsp_amg_solve_options *o,
                        hsp_amg_solve_info *info)
{
    double start = hsp_now_ms();
    const hsp_csr *A = amg->level[0].A;
    solver s = {.ctx = ctx, .o = o, .n = A->nrows};
    if (info) s.info.history = info->history, s.info.history_size = info->history_size;
    hsp_status e = hsp_solve_data(ctx, amg, o, &s.sd);
    if (e != HSP_OK) return hsp_fail(e, "hsp_amg_solve: %s", hsp_errmsg());
    double *v = malloc(((size_t)s.n * 6 + 1) * sizeof *v);
    if (!v) return hsp_fail(HSP_ERR_NOMEM, "hsp_amg_solve: no memory for the vectors of %d rows", s.n);
    s.x = v, s.b = v + s.n, s.r = v + 2 * (size_t)s.n, s.z = v + 3 * (size_t)s.n, s.p = v + 4 * (size_t)s.n;
    s.q = v + 5 * (size_t)s.n;
    to_double(b, A->precision, s.n, s.b);
    if (o->x0) to_double(x, A->precision, s.n, s.x);
    else memset(s.x, 0, (size_t)s.n * sizeof *s.x);
    s.normb = sqrt(hsp_vec_dot(ctx, s.n, s.b, s.b));
    if (s.normb == 0) memset(s.x, 0, (size_t)s.n * sizeof *s.x), record(&s, 0, 0); /* x = 0 solves it */
    else e = o->accel == HSP_ACCEL_CG ? pcg(&s) : stationary(&s);
    if (e == HSP_OK) from_double(s.x, A->precision, s.n, x);
    free(v);
    s.info.converged = s.info.residual <= o->tol, s.info.ms_solve = hsp_now_ms() - start;
    if (e == HSP_OK && info) *info = s.info;
    return e;
}

hsp_status hsp_amg_solve(hsp_context *ctx, hsp_amg *amg, const void *b, void *x, const hsp_amg_solve_options *o,
                         hsp_amg_solve_info *info)
{
    hsp_amg_solve_options defaults;
    if (!ctx || !amg || !b || !x) return hsp_fail(HSP_ERR_ARG, "hsp_amg_solve: ctx, amg, b or x is NULL");
    if (!o) hsp_amg_solve_options_init(&defaults), o = &defaults;
    hsp_status e = check_options("hsp_amg_solve", o);
    if (e == HSP_OK) e = check_hierarchy("hsp_amg_solve", amg);
    const hsp_csr *A = e == HSP_OK ? amg->level[0].A : NULL;
    if (e == HSP_OK) e = check_finite("hsp_amg_solve", "b", b, A->precision, A->nrows);
    if (e == HSP_OK && o->x0) e = check_finite("hsp_amg_solve", "x (the initial guess)", x, A->precision, A->nrows);
    if (e != HSP_OK) return e;
    hsp_context_lock(ctx);
    e = solve(ctx, amg, b, x, o, info);
    hsp_context_unlock(ctx);
    return e;
}

hsp_status hsp_amg_apply(hsp_context *ctx, hsp_amg *amg, const void *r, void *z, const hsp_amg_solve_options *o)
{
    hsp_amg_solve_options defaults;
    hsp_amg_solve_data *sd = NULL;
    if (!ctx || !amg || !r || !z) return hsp_fail(HSP_ERR_ARG, "hsp_amg_apply: ctx, amg, r or z is NULL");
    if (!o) hsp_amg_solve_options_init(&defaults), o = &defaults;
    hsp_status e = check_options("hsp_amg_apply", o);
    if (e == HSP_OK) e = check_hierarchy("hsp_amg_apply", amg);
    if (e != HSP_OK) return e;
    hsp_context_lock(ctx);
    const hsp_csr *A = amg->level[0].A;
    e = hsp_solve_data(ctx, amg, o, &sd);
    if (e != HSP_OK) e = hsp_fail(e, "hsp_amg_apply: %s", hsp_errmsg());
    else {
        hsp_solve_level *v = &sd->level[0];
        to_double(r, A->precision, A->nrows, v->b);
        memset(v->x, 0, (size_t)A->nrows * sizeof *v->x);
        hsp_cycle_run(sd, o, v->x, v->b, 1);
        from_double(v->x, A->precision, A->nrows, z);
    }
    hsp_context_unlock(ctx);
    return e;
}
