/* cycle.c: the V- and W-cycles over a hierarchy's levels (pre-smooth, the
 * residual restricted by R, the next level's cycle from zero, its correction
 * prolonged by P, post-smooth; the coarsest level solved by its dense
 * factor), and what they use, made by a hierarchy's first solve and kept in
 * its state until a re-setup: the levels' inverted diagonals, rho(D^-1 A)
 * where a smoother needs it, parts of rows, work vectors and the factor. */
#include <stdlib.h>
#include <string.h>
#include "amg/aggregate.h"
#include "amg/amg.h"
#include "amg/amg_device.h"
#include "amg/solve.h"
#include "core/internal.h"
#include "core/pool.h"
#include "device/context.h"

/* A level's vectors, k = 0 to NVEC - 1: dinv, l1inv, x, b, t, d. */
enum { NVEC = 6 };
static void **vector_at(hsp_solve_level *v, int k)
{
    void **const at[NVEC] = {&v->dinv, &v->l1inv, &v->x, &v->b, &v->t, &v->d};
    return at[k];
}

void hsp_solve_data_free(hsp_amg_solve_data *sd)
{
    if (!sd) return;
    for (int l = 0; l < sd->nlevels; l++) {
        hsp_solve_level *v = &sd->level[l];
        free(v->A.cut), free(v->R.cut), free(v->P.cut), free(v->ghost);
        for (int k = 0; k < NVEC; k++)
            if (sd->dev) sd->dev->drop(sd->dev, *vector_at(v, k));
            else free(*vector_at(v, k));
    }
    if (sd->dev) sd->dev->drop(sd->dev, sd->parts), sd->dev->drop(sd->dev, sd->sums);
    hsp_dense_factor_free(&sd->coarse);
    free(sd->coarse_b), free(sd->coarse_io);
    free(sd);
}

/* v's ghost rows: those a part of A's rows reads from outside itself. */
static hsp_status ghosts(hsp_solve_level *v)
{
    const hsp_csr *A = v->A.M;
    uint8_t *read = calloc((size_t)A->nrows + 1, 1);
    if (!read) return hsp_fail(HSP_ERR_NOMEM, "no memory for the parts of a level of %d rows", A->nrows);
    for (int64_t p = 0; p < v->A.nparts; p++)
        for (int32_t i = (int32_t)v->A.cut[p]; i < v->A.cut[p + 1]; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                read[A->colidx[k]] |= A->colidx[k] < v->A.cut[p] || A->colidx[k] >= v->A.cut[p + 1];
    for (int32_t i = 0; i < A->nrows; i++) v->nghost += read[i];
    v->ghost = malloc((size_t)v->nghost * sizeof *v->ghost + 1);
    for (int32_t i = 0, k = 0; v->ghost && i < A->nrows; i++)
        if (read[i]) v->ghost[k++] = i;
    free(read);
    return v->ghost ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for the parts of a level of %d rows", A->nrows);
}

/* Level l's work vectors of n rows, zeros where the vectors are (sd's device or its threads). */
static hsp_status level_vectors(hsp_amg_solve_data *sd, int l, int32_t n, hsp_solve_level *v)
{
    hsp_status s = HSP_OK;
    for (int k = 0; k < NVEC && s == HSP_OK; k++) s = hsp_solve_vector(sd, n, NULL, vector_at(v, k));
    return s == HSP_OK ? s : hsp_fail(s, "the solve's vectors of level %d (%d rows): %s", l, n, hsp_errmsg());
}

/* Is level l of amg, of n rows, the coarsest and factored (so never smoothed)? */
static int factored(const hsp_amg *amg, int l, int32_t n)
{
    return l + 1 == amg->nlevels && n <= HSP_DENSE_MAX;
}

/* Level l's parts, diagonals, work vectors and the setup's rho (0 where it made none); level 0's
 * A the float copy the levels were made from, if any. */
static hsp_status make_level(hsp_context *ctx, hsp_amg_solve_data *sd, const hsp_amg *amg, int l,
                             hsp_solve_level *v)
{
    const hsp_amg_level *a = &amg->level[l];
    const hsp_csr *A = l == 0 && amg->state->fine_values ? &amg->state->fine_float : a->A;
    hsp_status s = hsp_rows_cut(ctx, A, &v->A);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = hsp_rows_cut(ctx, a->R, &v->R);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = hsp_rows_cut(ctx, a->P, &v->P);
    if (s == HSP_OK) s = level_vectors(sd, l, a->A->nrows, v);
    if (s != HSP_OK) return s;
    v->rho = amg->state->level[l].rho;
    s = factored(amg, l, a->A->nrows) ? HSP_OK : hsp_rows_diagonals(ctx, v);
    if (s != HSP_OK) return hsp_fail(s, "level %d: %s", l, hsp_errmsg());
    return ghosts(v);
}

/* A matrix the device holds, as the solve reads it (no parts); one whose
 * entries were the host's alone (an empty P where nothing was aggregated)
 * is held there first. */
static hsp_status held_rows(const hsp_resident *M, hsp_rows *r)
{
    hsp_status s = hsp_resident_hold((hsp_resident *)M);
    r->M = hsp_resident_csr(M), r->held = hsp_resident_held(M);
    return s;
}

/* Level l's matrices and vectors where sd's device holds the hierarchy: the
 * vectors zeros of its precision made there, the diagonals' made there. */
static hsp_status make_device_level(hsp_amg_solve_data *sd, const hsp_amg *amg, int l, hsp_solve_level *v)
{
    const hsp_amg_level *a = &amg->level[l];
    hsp_status s = held_rows(a->rA, &v->A);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = held_rows(a->rR, &v->R);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = held_rows(a->rP, &v->P);
    if (s == HSP_OK) s = level_vectors(sd, l, v->A.M->nrows, v);
    v->rho = amg->state->level[l].rho;
    if (s != HSP_OK || factored(amg, l, v->A.M->nrows)) return s;
    return sd->dev->amg->diagonals(sd->dev, v->A.M, v->A.held, v->dinv, v->l1inv);
}

/* The coarsest level's dense factor, and for a device solve its vectors' room on the host
 * (its A brought home for it alone). */
static hsp_status make_coarse(hsp_context *ctx, const hsp_amg *amg, hsp_amg_solve_data *sd)
{
    const hsp_amg_level *last = &amg->level[amg->nlevels - 1];
    const hsp_csr *A = sd->dev ? hsp_resident_csr(last->rA) : last->A, *home = NULL;
    if (!factored(amg, amg->nlevels - 1, A->nrows)) return HSP_OK;
    if (!sd->dev) return hsp_dense_factorize(ctx->pool, A, &sd->coarse);
    hsp_status s = hsp_resident_host((hsp_resident *)last->rA, &home);
    if (s == HSP_OK) s = hsp_dense_factorize(ctx->pool, home, &sd->coarse);
    sd->coarse_b = malloc(((size_t)A->nrows + 1) * sizeof *sd->coarse_b);
    sd->coarse_io = malloc(((size_t)A->nrows + 1) * hsp_value_size(A->precision));
    return s == HSP_OK && (!sd->coarse_b || !sd->coarse_io)
               ? hsp_fail(HSP_ERR_NOMEM, "no memory for the coarsest level's vectors") : s;
}

/* A device's parts and sums of the solve's steps (amg_device.h's
 * hsp_vec_sums), zeros: a part for every 64 items of a launch over level 0's
 * rows with a team of 8 items a row (the most; the devices' work-groups
 * have 64 items or more, and a launch of more groups than the parts hold
 * fails with an error). */
static hsp_status make_sums(hsp_amg_solve_data *sd)
{
    hsp_status s = hsp_solve_vector(sd, sd->level[0].A.M->nrows / 8 + 64, NULL, &sd->parts);
    return s == HSP_OK ? hsp_solve_vector(sd, HSP_NSCALARS, NULL, &sd->sums) : s;
}

/* The solve data of amg for ctx: on its device where that holds the levels,
 * else for its threads; the coarsest level factored where it is small enough. */
static hsp_status make(hsp_context *ctx, const hsp_amg *amg, hsp_amg_solve_data *sd)
{
    hsp_status s = HSP_OK;
    sd->nthreads = hsp_pool_size(ctx->pool);
    sd->dev = amg->state->on_device ? ctx->device : NULL;
    sd->precision = amg->level[0].rA ? hsp_resident_csr(amg->level[0].rA)->precision : amg->level[0].A->precision;
    for (int l = 0; s == HSP_OK && l < amg->nlevels; l++, sd->nlevels++)
        s = sd->dev ? make_device_level(sd, amg, l, &sd->level[l]) : make_level(ctx, sd, amg, l, &sd->level[l]);
    sd->op = sd->level[0].A;
    if (s == HSP_OK && !sd->dev) sd->op.M = amg->level[0].A;
    if (s == HSP_OK && sd->dev) s = make_sums(sd);
    return s == HSP_OK ? make_coarse(ctx, amg, sd) : s;
}

/* rho(D^-1 A) of level v, by the setup's Lanczos steps (on the device that holds it). */
static hsp_status estimate_rho(hsp_context *ctx, hsp_amg_solve_data *sd, hsp_solve_level *v)
{
    const hsp_csr *A = v->A.M;
    if (sd->dev) {
        hsp_status s = sd->dev->amg->radius(sd->dev, A, v->A.held, &v->rho);
        return s == HSP_OK ? hsp_radius_held(sd->dev, A, v->A.held, &v->rho) : s;
    }
    int64_t *where = malloc(((size_t)A->nrows + 1) * sizeof *where);
    if (!where) return hsp_fail(HSP_ERR_NOMEM, "no memory for a level's diagonal (%d rows)", A->nrows);
    hsp_status s = hsp_diagonal(ctx, A, where);
    if (s == HSP_OK) s = hsp_radius_estimate(ctx, A, where, &v->rho);
    free(where);
    return s;
}

hsp_status hsp_solve_data(hsp_context *ctx, hsp_amg *amg, const hsp_amg_solve_options *o, hsp_amg_solve_data **out)
{
    hsp_amg_solve_data *sd = amg->state->solve;
    hsp_status s = HSP_OK;
    /* made anew for other threads (a re-setup drops it: amg.c, amg_resident.c) */
    if (sd && sd->nthreads != hsp_pool_size(ctx->pool))
        hsp_solve_data_free(sd), sd = amg->state->solve = NULL;
    if (!sd) {
        sd = calloc(1, sizeof *sd);
        if (!sd) return hsp_fail(HSP_ERR_NOMEM, "no memory for the solve's data");
        if ((s = make(ctx, amg, sd)) != HSP_OK) {
            hsp_solve_data_free(sd);
            return s;
        }
        amg->state->solve = sd;
    }
    int smoothed = sd->coarse.n ? sd->nlevels - 1 : sd->nlevels; /* levels that smooth */
    sd->ctx = ctx, sd->status = HSP_OK;
    hsp_smoother smoother = hsp_smoother_of(o, sd);
    if (sd->dev && smoother == HSP_SMOOTHER_GAUSS_SEIDEL)
        return hsp_fail(HSP_ERR_UNSUPPORTED, "the smoother gauss-seidel runs on the CPU threads only, and this "
                        "hierarchy is on device %s: take jacobi, l1-jacobi, chebyshev or auto (chebyshev there), "
                        "or set the hierarchy up with hsp_amg_setup", sd->dev->description);
    int needs_rho = smoother == HSP_SMOOTHER_JACOBI || smoother == HSP_SMOOTHER_CHEBYSHEV;
    for (int l = 0; needs_rho && s == HSP_OK && l < smoothed; l++)
        if (!(sd->level[l].rho > 0)) s = estimate_rho(ctx, sd, &sd->level[l]);
    *out = sd;
    return s;
}

/* x = A^-1 b on the coarsest level by its dense factor; where a device
 * holds the vectors, b is read home and x written back (its few values cross,
 * nothing else of a cycle does). */
static void coarse_solve(hsp_amg_solve_data *sd, void *x, void *b)
{
    hsp_device *dev = sd->dev;
    int32_t n = sd->coarse.n;
    if (!dev) {
        hsp_dense_solve(&sd->coarse, b, x);
        return;
    }
    size_t bytes = (size_t)n * hsp_value_size(sd->precision);
    if (sd->status == HSP_OK) sd->status = dev->home(dev, b, 1, (void *[]){sd->coarse_io}, &bytes);
    if (sd->status != HSP_OK) return;
    hsp_vec_to_double(sd->coarse_io, sd->precision, n, sd->coarse_b);
    hsp_dense_solve(&sd->coarse, sd->coarse_b, sd->coarse_b);
    hsp_vec_from_double(sd->coarse_b, sd->precision, n, sd->coarse_io);
    sd->status = dev->put(dev, x, 1, (const void *[]){sd->coarse_io}, &bytes);
}

/* The cycle at level l on its A x = b, x improved in place (zero: x is 0). */
static void level_cycle(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, int l, void *x, void *b, int zero)
{
    hsp_solve_level *v = &sd->level[l], *next = &sd->level[l + 1];
    if (l == sd->nlevels - 1 && sd->coarse.n) {
        coarse_solve(sd, x, b);
        return;
    }
    if (l == sd->nlevels - 1) { /* too large to factor */
        hsp_smooth(sd, o, v, x, b, o->pre + o->post > 0 ? o->pre + o->post : 1, zero, HSP_SMOOTH_ALONE);
        return;
    }
    void *r = b;
    if (zero && o->pre == 1 && !sd->dev && hsp_smoother_of(o, sd) == HSP_SMOOTHER_GAUSS_SEIDEL &&
        o->sweep == HSP_SWEEP_FORWARD_BACKWARD) {
        hsp_smooth_from_zero(sd, v, x, b, v->t), r = v->t;
    } else {
        hsp_smooth(sd, o, v, x, b, o->pre, zero, HSP_SMOOTH_PRE);
        if (!zero || o->pre) hsp_solve_spmv(sd, &v->A, x, b, -1, v->t, NULL, 0), r = v->t;
    }
    hsp_solve_spmv(sd, &v->R, r, NULL, 1, next->b, NULL, 0);
    hsp_solve_zero(sd, next->A.M->nrows, next->x);
    int visits = o->cycle == HSP_CYCLE_W && l + 2 < sd->nlevels ? 2 : 1;
    for (int k = 0; k < visits; k++) level_cycle(sd, o, l + 1, next->x, next->b, k == 0);
    hsp_solve_spmv(sd, &v->P, next->x, x, 1, x, NULL, 0);
    hsp_smooth(sd, o, v, x, b, o->post, 0, HSP_SMOOTH_POST);
}

void hsp_cycle_run(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, void *x, void *b, int zero)
{
    level_cycle(sd, o, 0, x, b, zero);
}
