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
#include "amg/solve.h"
#include "core/internal.h"
#include "core/pool.h"
#include "device/context.h"

void hsp_solve_data_free(hsp_amg_solve_data *sd)
{
    if (!sd) return;
    for (int l = 0; l < sd->nlevels; l++) {
        hsp_solve_level *v = &sd->level[l];
        free(v->A.cut), free(v->R.cut), free(v->P.cut), free(v->ghost);
        free(v->dinv), free(v->l1inv), free(v->x), free(v->b), free(v->t), free(v->d);
    }
    hsp_dense_factor_free(&sd->coarse);
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

/* Level l's parts, diagonals, work vectors and the setup's rho (0 where it made none). */
static hsp_status make_level(hsp_context *ctx, const hsp_amg *amg, int l, hsp_solve_level *v)
{
    const hsp_amg_level *a = &amg->level[l];
    size_t bytes = ((size_t)a->A->nrows + 1) * sizeof(double);
    hsp_status s = hsp_rows_cut(ctx, a->A, &v->A);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = hsp_rows_cut(ctx, a->R, &v->R);
    if (s == HSP_OK && l + 1 < amg->nlevels) s = hsp_rows_cut(ctx, a->P, &v->P);
    if (s != HSP_OK) return s;
    v->dinv = malloc(bytes), v->l1inv = malloc(bytes), v->x = malloc(bytes), v->b = malloc(bytes);
    v->t = malloc(bytes), v->d = malloc(bytes);
    if (!v->dinv || !v->l1inv || !v->x || !v->b || !v->t || !v->d)
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the solve's vectors of level %d (%d rows)", l, a->A->nrows);
    v->rho = amg->state->level[l].rho;
    s = hsp_rows_diagonals(ctx, v);
    if (s != HSP_OK) return hsp_fail(s, "level %d: %s", l, hsp_errmsg());
    return ghosts(v);
}

/* The solve data of amg for ctx's threads, the coarsest level factored where it is small enough. */
static hsp_status make(hsp_context *ctx, const hsp_amg *amg, hsp_amg_solve_data *sd)
{
    hsp_status s = HSP_OK;
    sd->nthreads = hsp_pool_size(ctx->pool);
    for (int l = 0; s == HSP_OK && l < amg->nlevels; l++) s = make_level(ctx, amg, l, &sd->level[l]), sd->nlevels++;
    const hsp_csr *last = amg->level[amg->nlevels - 1].A;
    if (s == HSP_OK && last->nrows <= HSP_DENSE_MAX) s = hsp_dense_factorize(last, &sd->coarse);
    return s;
}

/* rho(D^-1 A) of level v, by the setup's Lanczos steps. */
static hsp_status estimate_rho(hsp_context *ctx, hsp_solve_level *v)
{
    const hsp_csr *A = v->A.M;
    int64_t *where = malloc(((size_t)A->nrows + 1) * sizeof *where);
    if (!where) return hsp_fail(HSP_ERR_NOMEM, "no memory for a level's diagonal (%d rows)", A->nrows);
    hsp_status s = hsp_diagonal(A, where);
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
    int needs_rho = o->smoother == HSP_SMOOTHER_JACOBI || o->smoother == HSP_SMOOTHER_CHEBYSHEV;
    for (int l = 0; needs_rho && s == HSP_OK && l < smoothed; l++)
        if (!(sd->level[l].rho > 0)) s = estimate_rho(ctx, &sd->level[l]);
    sd->ctx = ctx;
    *out = sd;
    return s;
}

/* The cycle at level l on its A x = b, x improved in place (zero: x is 0). */
static void level_cycle(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, int l, double *x, const double *b,
                        int zero)
{
    hsp_solve_level *v = &sd->level[l], *next = &sd->level[l + 1];
    hsp_context *ctx = sd->ctx;
    if (l == sd->nlevels - 1 && sd->coarse.n) {
        hsp_dense_solve(&sd->coarse, b, x);
        return;
    }
    if (l == sd->nlevels - 1) { /* too large to factor */
        hsp_smooth(ctx, o, v, x, b, o->pre + o->post > 0 ? o->pre + o->post : 1, zero);
        return;
    }
    hsp_smooth(ctx, o, v, x, b, o->pre, zero);
    const double *r = b;
    if (!zero || o->pre) hsp_rows_spmv(ctx, &v->A, x, b, -1, v->t, NULL), r = v->t;
    hsp_rows_spmv(ctx, &v->R, r, NULL, 1, next->b, NULL);
    memset(next->x, 0, (size_t)next->A.M->nrows * sizeof *next->x);
    int visits = o->cycle == HSP_CYCLE_W && l + 2 < sd->nlevels ? 2 : 1;
    for (int k = 0; k < visits; k++) level_cycle(sd, o, l + 1, next->x, next->b, k == 0);
    hsp_rows_spmv(ctx, &v->P, next->x, x, 1, x, NULL);
    hsp_smooth(ctx, o, v, x, b, o->post, 0);
}

void hsp_cycle_run(hsp_amg_solve_data *sd, const hsp_amg_solve_options *o, double *x, const double *b, int zero)
{
    level_cycle(sd, o, 0, x, b, zero);
}
