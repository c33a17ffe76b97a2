/* amg.c: the setup of an AMG hierarchy on the host.  Classical AMG's P is
 * classical.c's; smoothed aggregation's is made here.  Per level: the
 * CPU aggregates (aggregate.c) and builds the tentative T; the device
 * computes A*T, from which P = T - (omega / rho) D^-1 A T is made in place
 * (rho estimated by radius.c);
 * the next level's A = R*A*P by two products, R = P^T formed by hsp_rap (for
 * R*(A*P) on a CPU thread while the device computes A*P).  Every product
 * keeps a plan, so that a re-setup with new values computes values only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "amg/aggregate.h"
#include "amg/amg.h"
#include "amg/classical.h"
#include "amg/solve.h"
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"

void hsp_amg_options_init(hsp_amg_options *o)
{
    if (!o) return;
    o->strength = HSP_STRENGTH_CLASSICAL, o->theta = 0.25, o->omega = 4.0 / 3.0, o->max_levels = 10;
    o->coarse_size = 1000, o->order = HSP_RAP_R_AP;
    o->B = NULL, o->nullspace = 1, o->block = 1, o->aggregation = HSP_AGGREGATION_AUTO, o->float_levels = 0;
    o->coarsening = HSP_COARSEN_AGGREGATION;
}

void hsp_amg_free(hsp_amg *amg)
{
    if (!amg) return;
    for (int l = 0; l < amg->nlevels; l++) {
        hsp_amg_level *v = &amg->level[l];
        if (l > 0) hsp_resident_free((hsp_resident *)v->rA);
        hsp_resident_free((hsp_resident *)v->rP), hsp_resident_free((hsp_resident *)v->rR);
        if (!amg->state) continue;
        level_state *s = &amg->state->level[l];
        hsp_resident_free(s->rT), hsp_resident_free(s->rmid);
        if (amg->state->on_device) continue; /* its host matrices, if any, are the residents' */
        if (l > 0) hsp_csr_free((hsp_csr *)v->A);
        hsp_csr_free(v->P);
        free(s->diag), free(s->agg), free(s->t_entry);
        hsp_csr_free(s->T), hsp_plan_free(s->smooth), hsp_plan_free(s->rap);
    }
    if (amg->state) hsp_pattern_free(&amg->state->fine), hsp_solve_data_free(amg->state->solve);
    if (amg->state) free(amg->state->fine_values);
    free(amg->state);
    free(amg);
}

enum { SMOOTH_ROWS = 16384 }; /* rows of a chunk of P's smoothing */

/* P's smoothing over a chunk of rows: where T's entries are in P (find), then P's values. */
typedef struct {
    const hsp_csr *A, *T;
    const int64_t *diag;
    int64_t *t_entry; /* where each entry of T is in P */
    hsp_csr *P;
    double w; /* omega / rho */
    int find;
} smooth_job;

/* Where T's entry t of row i is in P, whose pattern is A*T's and so holds T's (a_ii is nonzero). */
static int64_t find_t_entry(const hsp_csr *P, const hsp_csr *T, int32_t i, int64_t t)
{
    int64_t lo = P->rowptr[i], hi = P->rowptr[i + 1] - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (P->colidx[mid] < T->colidx[t]) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* P's rows of the chunk = T's - (w / a_ii) (A*T)'s, in place over A*T's. */
static void smooth_rows(void *arg, int tid, int64_t chunk)
{
    const smooth_job *j = arg;
    const hsp_csr *P = j->P, *T = j->T;
    int dbl = P->precision == HSP_DOUBLE;
    double *pd = P->values;
    float *pf = P->values;
    int32_t last, first = hsp_chunk_rows(chunk, SMOOTH_ROWS, P->nrows, &last);
    (void)tid;
    for (int32_t i = first; i < last; i++) {
        double scale = -j->w / hsp_entry(j->A, j->diag[i], j->A->precision == HSP_DOUBLE);
        for (int64_t t = T->rowptr[i]; j->find && t < T->rowptr[i + 1]; t++) j->t_entry[t] = find_t_entry(P, T, i, t);
        for (int64_t k = P->rowptr[i]; k < P->rowptr[i + 1]; k++)
            if (dbl) pd[k] *= scale;
            else pf[k] = (float)(scale * pf[k]);
        for (int64_t t = T->rowptr[i]; t < T->rowptr[i + 1]; t++)
            if (dbl) pd[j->t_entry[t]] += hsp_entry(T, t, 1);
            else pf[j->t_entry[t]] = (float)(pf[j->t_entry[t]] + hsp_entry(T, t, 0));
    }
}

/* P = T - (omega / rho) D^-1 (A*T), in place over A*T's values, on the CPU threads (find: T's
 * entries in P found first, as s->t_entry). */
static hsp_status smooth_in_place(hsp_context *ctx, const hsp_csr *A, level_state *s, double omega, hsp_csr *P,
                                  int find)
{
    double rho;
    hsp_status e = hsp_radius_estimate(ctx, A, s->diag, &rho);
    if (e != HSP_OK) return e;
    s->rho = rho; /* for the solve's smoothers */
    smooth_job j = {A, s->T, s->diag, s->t_entry, P, omega / rho, find};
    hsp_pool_chunks(ctx->pool, hsp_row_chunks(P->nrows, SMOOTH_ROWS), smooth_rows, &j);
    return HSP_OK;
}

enum { CONVERT_ENTRIES = 1 << 20 }; /* entries of a chunk of float_source's conversion */

/* A chunk of float_source's conversion: double values in, floats out. */
typedef struct {
    const double *in;
    float *out;
    int64_t n;
} convert_job;

static void convert_chunk(void *arg, int tid, int64_t chunk)
{
    const convert_job *j = arg;
    int64_t end = (chunk + 1) * CONVERT_ENTRIES < j->n ? (chunk + 1) * CONVERT_ENTRIES : j->n;
    (void)tid;
    for (int64_t k = chunk * CONVERT_ENTRIES; k < end; k++) j->out[k] = (float)j->in[k];
}

/* The matrix the levels are made from: A, or with float_levels over a double A its float copy
 * (st's fine_float, over A's pattern; its values made once and refilled by a re-setup). */
static hsp_status float_source(hsp_context *ctx, const hsp_csr *A, hsp_amg_state *st, const hsp_csr **source)
{
    *source = A;
    if (!st->options.float_levels || A->precision != HSP_DOUBLE) return HSP_OK;
    if (!st->fine_values && !(st->fine_values = malloc(((size_t)A->nnz + 1) * sizeof *st->fine_values)))
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the float copy of A (%lld entries)", (long long)A->nnz);
    convert_job j = {A->values, st->fine_values, A->nnz};
    hsp_pool_chunks(ctx->pool, (A->nnz + CONVERT_ENTRIES - 1) / CONVERT_ENTRIES, convert_chunk, &j);
    st->fine_float = *A, st->fine_float.precision = HSP_FLOAT, st->fine_float.values = st->fine_values;
    *source = &st->fine_float;
    return HSP_OK;
}

hsp_status hsp_amg_aggregate_level(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, int l, int32_t block,
                                   const double *B, level_state *s, int32_t *naggs, double **Bc)
{
    hsp_graph S = {0, NULL, NULL};
    int32_t nodes = A->nrows / block;
    s->diag = malloc(((size_t)A->nrows + 1) * sizeof *s->diag);
    s->agg = malloc(((size_t)nodes + 1) * sizeof *s->agg);
    if (!s->diag || !s->agg) return hsp_fail(HSP_ERR_NOMEM, "no memory to aggregate %d rows", A->nrows);
    hsp_status st = hsp_diagonal(ctx, A, s->diag);
    if (st == HSP_OK) st = hsp_strength(ctx, A, s->diag, o, block, l == 0, &S); /* the caller's stored zeros count */
    if (st == HSP_OK) st = hsp_aggregate(&S, o->aggregation == HSP_AGGREGATION_PARALLEL, s->agg, naggs);
    hsp_graph_free(&S);
    if (st == HSP_OK && *naggs >= nodes) *naggs = 0; /* nothing to gain */
    if (st != HSP_OK || !*naggs) return st;
    return hsp_tentative(s->agg, nodes, block, *naggs, B, o->nullspace, A->precision, &s->T, Bc);
}

void hsp_amg_sides(hsp_amg_level *v, const hsp_stats *stats, int n)
{
    for (int k = 0; k < n; k++) v->ms_device += stats[k].ms_device, v->ms_host += stats[k].ms_host;
}

/* Level l's P by smoothing T: A*T, then P = T - (omega / rho) D^-1 A T in place. */
static hsp_status smoothed_p(hsp_context *ctx, hsp_amg *amg, int l)
{
    hsp_amg_level *v = &amg->level[l];
    level_state *s = &amg->state->level[l];
    hsp_stats st;
    double t = hsp_now_ms();
    hsp_status e = hsp_multiply_planned(ctx, v->A, s->T, &v->P, 0, &s->smooth, &st);
    if (e == HSP_OK && l == 0) memcpy(amg->device, st.device, sizeof amg->device); /* not a small level's */
    if (e == HSP_OK) hsp_amg_sides(v, &st, 1);
    s->t_entry = e == HSP_OK ? malloc(((size_t)s->T->nnz + 1) * sizeof *s->t_entry) : NULL;
    if (e == HSP_OK && !s->t_entry) e = hsp_fail(HSP_ERR_NOMEM, "no memory for level %d", l);
    if (e == HSP_OK) e = smooth_in_place(ctx, v->A, s, amg->state->options.omega, v->P, 1);
    v->ms_smooth = hsp_now_ms() - t;
    return e;
}

/* Level l's C/F splitting (s->agg) and P of classical AMG (amg/classical.c), on the host. */
static hsp_status classical_p(hsp_context *ctx, hsp_amg *amg, int l)
{
    hsp_amg_level *v = &amg->level[l];
    level_state *s = &amg->state->level[l];
    s->diag = malloc(((size_t)v->A->nrows + 1) * sizeof *s->diag);
    s->agg = malloc(((size_t)v->A->nrows + 1) * sizeof *s->agg);
    if (!s->diag || !s->agg) return hsp_fail(HSP_ERR_NOMEM, "no memory to split %d rows", v->A->nrows);
    hsp_status e = hsp_diagonal(ctx, v->A, s->diag);
    if (e == HSP_OK) e = hsp_classical_level(ctx, v->A, s->diag, amg->state->options.theta, s->agg, &v->naggregates,
                                             &v->P);
    return e;
}

/* The next level's A = R*A*P of level l's A and P, R = P^T kept as level l's. */
static hsp_status galerkin(hsp_context *ctx, hsp_amg *amg, int l)
{
    hsp_amg_level *v = &amg->level[l];
    level_state *s = &amg->state->level[l];
    hsp_stats st[2];
    hsp_csr *next = NULL;
    hsp_status e = hsp_rap_run(ctx, NULL, v->A, v->P, amg->state->options.order, &next, 0, &s->rap, st);
    if (e != HSP_OK) return e;
    if (!amg->device[0]) memcpy(amg->device, st[0].device, sizeof amg->device);
    v->R = hsp_rap_transpose(s->rap, &v->ms_transpose, &v->ms_wait);
    v->ms_rap[0] = st[0].ms_total, v->ms_rap[1] = st[1].ms_total;
    hsp_amg_sides(v, st, 2);
    amg->level[l + 1].A = next;
    amg->nlevels = l + 2;
    return HSP_OK;
}

hsp_status hsp_amg_check(const char *fn, int32_t nrows, int32_t ncols, const hsp_amg_options *o)
{
    if (nrows != ncols) return hsp_fail(HSP_ERR_SHAPE, "%s: A is %d x %d, not square", fn, nrows, ncols);
    if (o->strength != HSP_STRENGTH_SYMMETRIC && o->strength != HSP_STRENGTH_CLASSICAL)
        return hsp_fail(HSP_ERR_ARG, "%s: strength = %d: give HSP_STRENGTH_SYMMETRIC or HSP_STRENGTH_CLASSICAL", fn,
                        (int)o->strength);
    if (!(o->theta >= 0 && o->theta <= 1e300))
        return hsp_fail(HSP_ERR_ARG, "%s: theta = %g: give a number >= 0", fn, o->theta);
    if (!(o->omega > 0 && o->omega <= 1e300))
        return hsp_fail(HSP_ERR_ARG, "%s: omega = %g: give a number > 0", fn, o->omega);
    if (o->max_levels < 1 || o->max_levels > HSP_AMG_MAX_LEVELS)
        return hsp_fail(HSP_ERR_ARG, "%s: max_levels = %d: give 1 to %d", fn, o->max_levels, HSP_AMG_MAX_LEVELS);
    if (o->coarse_size < 1)
        return hsp_fail(HSP_ERR_ARG, "%s: coarse_size = %d: give 1 or more rows", fn, (int)o->coarse_size);
    if (o->order != HSP_RAP_R_AP && o->order != HSP_RAP_RA_P)
        return hsp_fail(HSP_ERR_ARG, "%s: order = %d: give HSP_RAP_R_AP or HSP_RAP_RA_P", fn, (int)o->order);
    if (o->aggregation < HSP_AGGREGATION_AUTO || o->aggregation > HSP_AGGREGATION_PARALLEL)
        return hsp_fail(HSP_ERR_ARG, "%s: aggregation = %d: give HSP_AGGREGATION_AUTO, _GREEDY or _PARALLEL", fn,
                        (int)o->aggregation);
    if (o->float_levels != 0 && o->float_levels != 1)
        return hsp_fail(HSP_ERR_ARG, "%s: float_levels = %d: give 0 or 1", fn, o->float_levels);
    if (o->nullspace < 1 || o->nullspace > HSP_AMG_MAX_NULLSPACE || (!o->B && o->nullspace != 1))
        return hsp_fail(HSP_ERR_ARG, "%s: nullspace = %d: give 1 to %d columns of B (1 where B is NULL)", fn,
                        (int)o->nullspace, HSP_AMG_MAX_NULLSPACE);
    if (o->block < 1 || nrows % o->block)
        return hsp_fail(HSP_ERR_ARG, "%s: block = %d: give a number of rows per node that divides the %d rows", fn,
                        (int)o->block, nrows);
    if (o->coarsening != HSP_COARSEN_AGGREGATION && o->coarsening != HSP_COARSEN_CLASSICAL)
        return hsp_fail(HSP_ERR_ARG, "%s: coarsening = %d: give HSP_COARSEN_AGGREGATION or HSP_COARSEN_CLASSICAL", fn,
                        (int)o->coarsening);
    if (o->coarsening == HSP_COARSEN_CLASSICAL && (o->B || o->block != 1))
        return hsp_fail(HSP_ERR_ARG, "%s: classical AMG is for scalar problems: give B NULL and block 1", fn);
    for (int64_t i = 0; o->B && i < (int64_t)nrows * o->nullspace; i++)
        if (!isfinite(o->B[i]))
            return hsp_fail(HSP_ERR_ARG, "%s: B[%lld][%lld] = %g: give finite candidates", fn,
                            (long long)(i / o->nullspace), (long long)(i % o->nullspace), o->B[i]);
    return HSP_OK;
}

/* hsp_amg_setup of arguments checked, on the locked context. */
static hsp_status setup(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_status e = HSP_OK;
    hsp_amg *amg = calloc(1, sizeof *amg);
    if (amg) amg->state = calloc(1, sizeof *amg->state);
    if (!amg || !amg->state) {
        hsp_amg_free(amg);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for an AMG hierarchy");
    }
    double start = hsp_now_ms();
    const double *B0 = o->B; /* the caller's B, read during the setup only */
    amg->state->options = *o, amg->state->options.B = NULL;
    amg->state->options.aggregation = hsp_aggregation_of(o, 0);
    o = &amg->state->options; /* the options kept, the aggregation resolved */
    amg->nlevels = 1;
    e = float_source(ctx, A, amg->state, &amg->level[0].A);
    double *B = NULL; /* the candidates of level l > 0 (level 0's: B0) */
    for (int l = 0; e == HSP_OK && l + 1 < o->max_levels; l++) {
        int32_t block = l ? o->nullspace : o->block;
        double *next = NULL, t = hsp_now_ms();
        if (amg->level[l].A->nrows / block <= o->coarse_size) break;
        if (o->coarsening == HSP_COARSEN_CLASSICAL) e = classical_p(ctx, amg, l);
        else e = hsp_amg_aggregate_level(ctx, amg->level[l].A, o, l, block, l ? B : B0, &amg->state->level[l],
                                         &amg->level[l].naggregates, &next);
        free(B), B = next;
        amg->level[l].ms_aggregate = hsp_now_ms() - t;
        if (e == HSP_OK && amg->level[l].naggregates && o->coarsening == HSP_COARSEN_AGGREGATION)
            e = smoothed_p(ctx, amg, l);
        if (e != HSP_OK || !amg->level[l].naggregates) break;
        e = galerkin(ctx, amg, l);
    }
    free(B);
    amg->level[0].A = A; /* the caller's, whatever the levels were made from */
    if (e == HSP_OK && amg->nlevels > 1) e = hsp_pattern_copy(A, &amg->state->fine);
    amg->ms_total = hsp_now_ms() - start;
    if (e != HSP_OK) {
        hsp_amg_free(amg);
        return e;
    }
    *out = amg;
    return HSP_OK;
}

hsp_status hsp_amg_setup(hsp_context *ctx, const hsp_csr *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_amg_options defaults;
    if (out) *out = NULL;
    if (!ctx || !A || !out) return hsp_fail(HSP_ERR_ARG, "hsp_amg_setup: ctx, A or out is NULL");
    if (!o) hsp_amg_options_init(&defaults), o = &defaults;
    hsp_status e = hsp_amg_check("hsp_amg_setup", A->nrows, A->ncols, o);
    if (e == HSP_OK) e = hsp_csr_check(A);
    if (e != HSP_OK) return e;
    hsp_context_lock(ctx);
    e = setup(ctx, A, o, out);
    hsp_context_unlock(ctx);
    return e;
}

hsp_status hsp_amg_resetup(hsp_context *ctx, hsp_amg *amg, const hsp_csr *A)
{
    if (!ctx || !amg || !A) return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup: an argument is NULL");
    if (amg->level[0].rA)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup: the hierarchy is resident: use hsp_amg_resetup_resident");
    hsp_context_lock(ctx);
    hsp_status e = hsp_amg_resetup_host(ctx, amg, A);
    hsp_context_unlock(ctx);
    return e;
}

hsp_status hsp_amg_resetup_host(hsp_context *ctx, hsp_amg *amg, const hsp_csr *A)
{
    if (A->precision != amg->level[0].A->precision)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup: A has another precision than the hierarchy");
    /* the one check of the caller's data: every other matrix is the hierarchy's own */
    hsp_status e = amg->nlevels > 1 ? hsp_pattern_check(&amg->state->fine, A, "A") : hsp_csr_check(A);
    double start = hsp_now_ms();
    if (e == HSP_OK) hsp_solve_data_free(amg->state->solve), amg->state->solve = NULL; /* new values */
    if (e == HSP_OK) e = float_source(ctx, A, amg->state, &amg->level[0].A);
    for (int l = 0; e == HSP_OK && l + 1 < amg->nlevels; l++) {
        hsp_amg_level *v = &amg->level[l];
        level_state *s = &amg->state->level[l];
        double t = hsp_now_ms();
        e = hsp_diagonal(ctx, v->A, s->diag);
        if (e == HSP_OK && !s->T) e = hsp_classical_values(ctx, v->A, s->diag, amg->state->options.theta, s->agg, v->P);
        if (e == HSP_OK && s->T) e = hsp_plan_numeric(ctx, s->smooth, v->A, s->T, v->P);
        if (e == HSP_OK && s->T) e = smooth_in_place(ctx, v->A, s, amg->state->options.omega, v->P, 0);
        v->ms_smooth = hsp_now_ms() - t, t = hsp_now_ms();
        if (e == HSP_OK) e = hsp_rap_numeric(ctx, s->rap, NULL, v->A, v->P, (hsp_csr *)amg->level[l + 1].A);
        v->ms_rap[0] = hsp_now_ms() - t, v->ms_rap[1] = 0, v->ms_aggregate = 0, v->ms_transpose = 0;
        v->ms_device = 0, v->ms_host = 0, v->ms_wait = 0; /* values by the plans, on the CPU threads */
    }
    if (amg->level[0].A == &amg->state->fine_float) amg->level[0].A = A; /* the caller's */
    amg->ms_total = hsp_now_ms() - start;
    return e;
}
