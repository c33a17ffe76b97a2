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
    o->smoother = HSP_SMOOTHER_AUTO, o->pre = 1, o->post = 1, o->jacobi_omega = 1, o->chebyshev_degree = 2;
    o->chebyshev_lower = 0.2, o->x0 = 0, o->sweep = HSP_SWEEP_FORWARD_BACKWARD;
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
    if (o->smoother < HSP_SMOOTHER_GAUSS_SEIDEL || o->smoother > HSP_SMOOTHER_AUTO)
        return hsp_fail(HSP_ERR_ARG, "%s: smoother = %d: give an hsp_smoother", fn, (int)o->smoother);
    if (o->pre < 0 || o->pre > 100 || o->post < 0 || o->post > 100)
        return hsp_fail(HSP_ERR_ARG, "%s: pre = %d, post = %d: give 0 to 100 sweeps each", fn, o->pre, o->post);
    if (!(o->jacobi_omega > 0 && o->jacobi_omega < 2))
        return hsp_fail(HSP_ERR_ARG, "%s: jacobi_omega = %g: give a number in (0, 2)", fn, o->jacobi_omega);
    if (o->chebyshev_degree < 1 || o->chebyshev_degree > 16)
        return hsp_fail(HSP_ERR_ARG, "%s: chebyshev_degree = %d: give 1 to 16", fn, o->chebyshev_degree);
    if (!(o->chebyshev_lower > 0 && o->chebyshev_lower < 1.1))
        return hsp_fail(HSP_ERR_ARG, "%s: chebyshev_lower = %g: give a number in (0, 1.1)", fn, o->chebyshev_lower);
    if (o->x0 != 0 && o->x0 != 1) return hsp_fail(HSP_ERR_ARG, "%s: x0 = %d: give 0 or 1", fn, o->x0);
    if (o->sweep != HSP_SWEEP_SYMMETRIC && o->sweep != HSP_SWEEP_FORWARD_BACKWARD)
        return hsp_fail(HSP_ERR_ARG, "%s: sweep = %d: give HSP_SWEEP_SYMMETRIC or HSP_SWEEP_FORWARD_BACKWARD", fn,
                        (int)o->sweep);
    return HSP_OK;
}

/* Every level's matrices on the host, or on the device that made them,
 * else an error naming fn. */
static hsp_status check_hierarchy(const char *fn, const hsp_amg *amg)
{
    if (!amg->state || amg->nlevels < 1) return hsp_fail(HSP_ERR_ARG, "%s: amg is not a set-up hierarchy", fn);
    if (amg->state->on_device) return HSP_OK; /* the solve runs there */
    for (int l = 0; l < amg->nlevels; l++) {
        const hsp_amg_level *v = &amg->level[l];
        if (!v->A || (l + 1 < amg->nlevels && (!v->P || !v->R)))
            return hsp_fail(HSP_ERR_ARG, "%s: level %d of the resident hierarchy is not on the host: call "
                            "hsp_amg_home first", fn, l);
    }
    return HSP_OK;
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

/* Level 0's A: the host's, or the shape of the one a device holds. */
static const hsp_csr *level0(const hsp_amg *amg)
{
    return amg->state->on_device ? hsp_resident_csr(amg->level[0].rA) : amg->level[0].A;
}

/* A solve's vectors (level 0's rows: double arrays, or held by the device
 * that holds the hierarchy, of its precision) and figures. */
enum { X, B, R, Z, P, Q, NVEC };
typedef struct {
    hsp_amg_solve_data *sd;
    const hsp_amg_solve_options *o;
    int32_t n;
    void *v[NVEC];
    double normb;
    double scalar[HSP_NSCALARS]; /* as last read */
    hsp_amg_solve_info info;
} solver;

/* The solve's scalars (HSP_S_*), read from where they are. */
static const double *scalars(solver *s)
{
    hsp_solve_read(s->sd, s->scalar);
    return s->scalar;
}

/* r = b - A x; returns |r| / |b|. */
static double residual(solver *s)
{
    hsp_solve_spmv(s->sd, &s->sd->op, s->v[X], s->v[B], -1, s->v[R], s->v[R], HSP_S_RR);
    return sqrt(scalars(s)[HSP_S_RR]) / s->normb;
}

/* The relative residual after iteration it (0: the initial one) into the history. */
static void record(solver *s, int it, double rel)
{
    if (s->info.history && it < s->info.history_size) s->info.history[it] = rel, s->info.history_len = it + 1;
    s->info.iterations = it;
}

/* z = M r, one cycle from zero. */
static void cycle_from_zero(solver *s)
{
    hsp_solve_zero(s->sd, s->n, s->v[Z]);
    hsp_cycle_run(s->sd, s->o, s->v[Z], s->v[R], 1);
}

/* z = M r, and r.z into the scalar at. */
static void precondition(solver *s, int at)
{
    cycle_from_zero(s);
    hsp_solve_dot(s->sd, s->n, s->v[R], s->v[Z], at);
}

/* The cycles alone from x until the residual is at most tol or maxiter.  Where the cycles' level 0
 * is a float copy of A (on the CPU threads), each is a correction x += M (b - A x) from the
 * residual in double: a cycle from x itself would converge to the copy's solution. */
static hsp_status stationary(solver *s)
{
    double rel = residual(s);
    int corrections = s->sd->op.M != s->sd->level[0].A.M;
    record(s, 0, rel);
    for (int it = 1; rel > s->o->tol && it <= s->o->maxiter && !s->sd->status; it++) {
        if (corrections) /* z = M r; x = z + x */
            cycle_from_zero(s), hsp_vec_direction(s->sd->ctx, s->n, s->v[Z], 1, s->v[X]);
        else hsp_cycle_run(s->sd, s->o, s->v[X], s->v[B], it == 1 && !s->o->x0);
        record(s, it, rel = residual(s));
    }
    s->info.residual = rel;
    return s->sd->status;
}

/* An error where CG's scalars say it broke down at iteration it (rz: r.Mr, the one used). */
static hsp_status breakdown(solver *s, int it, int rz)
{
    const double *v = s->scalar;
    if (s->sd->status) return s->sd->status;
    if (!(v[rz] > 0))
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_solve: CG broke down at iteration %d: r.Mr = %g: the cycle is not "
                        "positive definite (A not SPD?)", it, v[rz]);
    if (!(v[HSP_S_PQ] > 0))
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_solve: CG broke down at iteration %d: p.Ap = %g: A is not positive "
                        "definite", it, v[HSP_S_PQ]);
    return HSP_OK;
}

/* Will the residual after this iteration still be above tol, by the last
 * iteration's reduction (before: the residual before rel; 0: none)?  Then
 * the next cycle runs before the scalars are read. */
static int goes_on(double tol, double rel, double before)
{
    return rel * (before > 0 ? rel / before : 1) > tol;
}

/* CG preconditioned by a cycle from x, its scalars (alpha = rz / pq, beta =
 * rz' / rz) used where the vectors are: an iteration reads them once, after
 * the next cycle where the residual is not expected below tol (else the cycle
 * waits for the read, so that the last iteration runs none in vain).  Where
 * its recurrence says converged, the residual is recomputed from x (and CG
 * goes on from it where it is not). */
static hsp_status pcg(solver *s)
{
    double rel = residual(s), before = 0;
    int exact = 1, rz = HSP_S_RZ0, next = HSP_S_RZ1;
    record(s, 0, rel);
    if (rel > s->o->tol && s->o->maxiter > 0) precondition(s, rz), hsp_solve_copy(s->sd, s->n, s->v[Z], s->v[P]);
    for (int it = 1; rel > s->o->tol && it <= s->o->maxiter; it++) {
        hsp_solve_spmv(s->sd, &s->sd->op, s->v[P], NULL, 1, s->v[Q], s->v[P], HSP_S_PQ);
        hsp_solve_update(s->sd, s->n, rz, HSP_S_PQ, s->v[P], s->v[Q], s->v[X], s->v[R], HSP_S_RR);
        int ahead = goes_on(s->o->tol, rel, before);
        if (ahead) precondition(s, next);
        hsp_status e = breakdown(s, it, (scalars(s), rz));
        if (e != HSP_OK) return e;
        before = rel, rel = sqrt(s->scalar[HSP_S_RR]) / s->normb, exact = 0;
        if (rel <= s->o->tol) rel = residual(s), exact = 1, ahead = 0; /* r anew: its z too */
        record(s, it, rel);
        if (rel <= s->o->tol || it == s->o->maxiter) break;
        if (!ahead) precondition(s, next);
        hsp_solve_direction(s->sd, s->n, s->v[Z], next, rz, s->v[P]);
        rz = next, next = HSP_S_RZ0 + HSP_S_RZ1 - rz;
    }
    s->info.residual = exact ? rel : residual(s);
    return s->sd->status;
}

/* The solve's vectors: b and x (x0 where given) from the caller's, the others
 * zero; on the CPU threads double arrays, else held by the device. */
static hsp_status vectors_new(solver *s, const void *b, const void *x)
{
    hsp_status e = HSP_OK;
    for (int k = 0; k < NVEC && e == HSP_OK; k++)
        e = hsp_solve_vector(s->sd, s->n, k == B ? b : k == X && s->o->x0 ? x : NULL, &s->v[k]);
    return e;
}

static void vectors_free(solver *s)
{
    for (int k = 0; k < NVEC; k++)
        if (s->sd->dev) s->sd->dev->drop(s->sd->dev, s->v[k]);
        else free(s->v[k]);
}

/* x from the solve's into the caller's. */
static hsp_status vector_out(solver *s, void *x)
{
    size_t bytes = (size_t)s->n * hsp_value_size(s->sd->precision);
    if (s->sd->dev) return s->sd->dev->home(s->sd->dev, s->v[X], 1, (void *[]){x}, &bytes);
    hsp_vec_from_double(s->v[X], s->sd->precision, s->n, x);
    return HSP_OK;
}

/* hsp_amg_solve on the locked context, its arguments checked. */
static hsp_status solve(hsp_context *ctx, hsp_amg *amg, const void *b, void *x, const hsp_amg_solve_options *o,
                        hsp_amg_solve_info *info)
{
    double start = hsp_now_ms();
    solver s = {.o = o, .n = level0(amg)->nrows};
    if (info) s.info.history = info->history, s.info.history_size = info->history_size;
    hsp_status e = hsp_solve_data(ctx, amg, o, &s.sd);
    if (e != HSP_OK) return hsp_fail(e, "hsp_amg_solve: %s", hsp_errmsg());
    e = vectors_new(&s, b, x);
    if (e == HSP_OK) hsp_solve_dot(s.sd, s.n, s.v[B], s.v[B], HSP_S_BB), s.normb = sqrt(scalars(&s)[HSP_S_BB]);
    if (e == HSP_OK && s.normb == 0) hsp_solve_zero(s.sd, s.n, s.v[X]), record(&s, 0, 0); /* x = 0 solves it */
    else if (e == HSP_OK) e = o->accel == HSP_ACCEL_CG ? pcg(&s) : stationary(&s);
    if (e == HSP_OK) e = s.sd->status;
    if (e == HSP_OK) e = vector_out(&s, x);
    vectors_free(&s);
    s.info.converged = s.info.residual <= o->tol, s.info.ms_solve = hsp_now_ms() - start;
    s.info.smoother = hsp_smoother_of(o, s.sd), s.info.on_device = s.sd->dev != NULL;
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
    const hsp_csr *A = e == HSP_OK ? level0(amg) : NULL;
    if (e == HSP_OK) e = check_finite("hsp_amg_solve", "b", b, A->precision, A->nrows);
    if (e == HSP_OK && o->x0) e = check_finite("hsp_amg_solve", "x (the initial guess)", x, A->precision, A->nrows);
    if (e != HSP_OK) return e;
    hsp_context_lock(ctx);
    e = solve(ctx, amg, b, x, o, info);
    hsp_context_unlock(ctx);
    return e;
}

/* z = M r by one cycle on sd's level 0 (its b and x), r and z the caller's. */
static hsp_status apply(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, const void *r, void *z)
{
    hsp_solve_level *v = &sd->level[0];
    int32_t n = v->A.M->nrows;
    size_t bytes = (size_t)n * hsp_value_size(sd->precision);
    hsp_device *dev = sd->dev;
    hsp_status e = dev ? dev->put(dev, v->b, 1, (const void *[]){r}, &bytes) : HSP_OK;
    if (!dev) hsp_vec_to_double(r, sd->precision, n, v->b);
    hsp_solve_zero(sd, n, v->x);
    if (e == HSP_OK) hsp_cycle_run(sd, o, v->x, v->b, 1);
    if (e == HSP_OK) e = sd->status;
    if (e == HSP_OK && dev) e = dev->home(dev, v->x, 1, (void *[]){z}, &bytes);
    else if (e == HSP_OK) hsp_vec_from_double(v->x, sd->precision, n, z);
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
    e = hsp_solve_data(ctx, amg, o, &sd);
    if (e != HSP_OK) e = hsp_fail(e, "hsp_amg_apply: %s", hsp_errmsg());
    else e = apply(sd, o, r, z);
    hsp_context_unlock(ctx);
    return e;
}
