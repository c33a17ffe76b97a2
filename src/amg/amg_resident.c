/* amg_resident.c: the hierarchy of a resident matrix, its levels resident.
 * Where the device uses host arrays in place it is hsp_amg_setup's over the
 * matrix's own arrays, each level's matrices then wrapped as resident ones.
 * On a device with memory of its own every step runs there (dev->amg
 * and resident products): what crosses is sizes and a few numbers a step;
 * but with candidates or blocks each level's aggregates and T are the
 * host's (host_tentative), its A brought home and T placed there.  Each
 * level keeps T and the first product of R*A*P there, so that a re-setup
 * with new values computes values only, there too. */
#include <stdlib.h>
#include <string.h>
#include "amg/amg.h"
#include "amg/amg_device.h"
#include "amg/solve.h"
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"

static const hsp_csr *csr(const hsp_resident *M)
{
    return hsp_resident_csr(M);
}

static void *held(const hsp_resident *M)
{
    return hsp_resident_held(M);
}

/* *R = P^T on the device: scattered there, its rows then sorted by the
 * product with the identity (exact: one product per entry); a P of no
 * entries (a product's, which the device does not hold) gives an R of none. */
static hsp_status transpose(hsp_context *ctx, const hsp_resident *P, hsp_resident **R)
{
    hsp_device *dev = ctx->device;
    const hsp_csr *H = csr(P);
    hsp_resident *unsorted = NULL, *I = NULL;
    void *held_r = NULL, *held_i = NULL;
    if (!H->nnz) {
        hsp_csr *E = NULL;
        hsp_status s = hsp_csr_create(H->ncols, H->nrows, 0, H->precision, &E);
        return s == HSP_OK && !(*R = hsp_resident_new(ctx, E, 0, NULL)) ? HSP_ERR_NOMEM : s;
    }
    hsp_status s = dev->amg->transpose(dev, H, held(P), &held_r);
    if (s == HSP_OK && !(unsorted = hsp_resident_held_new(ctx, H->ncols, H->nrows, H->nnz, H->precision, held_r)))
        s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = dev->amg->identity(dev, H->nrows, H->precision, &held_i);
    if (s == HSP_OK && !(I = hsp_resident_held_new(ctx, H->nrows, H->nrows, H->nrows, H->precision, held_i)))
        s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, unsorted, I, R, NULL);
    hsp_resident_free(unsorted), hsp_resident_free(I);
    return s;
}

/* Level l's A*T, in P, into P = T - (omega / rho) D^-1 A*T (nothing to do
 * where P has no entries: no node of A is in an aggregate). */
static hsp_status smooth(hsp_device *dev, const hsp_amg *amg, int l, double rho)
{
    const hsp_amg_level *v = &amg->level[l];
    const hsp_resident *T = amg->state->level[l].rT;
    if (!csr(v->rP)->nnz) return HSP_OK;
    return dev->amg->smooth(dev, csr(v->rA), held(v->rA), held(T), amg->state->options.omega / rho, csr(v->rP),
                            held(v->rP));
}

/* Level l's P = (I - w D^-1 A) T and R = P^T on the device (rho:
 * Gershgorin's bound of rho(D^-1 A), lowered by Lanczos steps there). */
static hsp_status prolongator(hsp_context *ctx, hsp_amg *amg, int l, double rho)
{
    hsp_device *dev = ctx->device;
    hsp_amg_level *v = &amg->level[l];
    const hsp_resident *T = amg->state->level[l].rT;
    hsp_resident *P = NULL, *R = NULL;
    double t = hsp_now_ms();
    hsp_stats st;
    hsp_status s = hsp_radius_held(dev, csr(v->rA), held(v->rA), &rho);
    amg->state->level[l].rho = rho; /* for the solve's smoothers */
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, v->rA, T, &P, &st);
    if (s == HSP_OK) hsp_amg_sides(v, &st, 1);
    v->rP = P;
    if (s == HSP_OK) s = smooth(dev, amg, l, rho);
    v->ms_smooth = hsp_now_ms() - t, t = hsp_now_ms();
    if (s == HSP_OK) s = transpose(ctx, P, &R);
    v->rR = R;
    v->ms_transpose = hsp_now_ms() - t;
    return s;
}

/* The next level's A = R*A*P, its first product kept. */
static hsp_status galerkin(hsp_context *ctx, hsp_amg *amg, int l)
{
    hsp_amg_level *v = &amg->level[l];
    hsp_resident *next = NULL;
    hsp_stats st[2];
    hsp_status e = hsp_rap_resident_kept(ctx, v->rR, v->rA, v->rP, amg->state->options.order, &next,
                                         &amg->state->level[l].rmid, st);
    if (e != HSP_OK) return e;
    v->ms_rap[0] = st[0].ms_total, v->ms_rap[1] = st[1].ms_total;
    hsp_amg_sides(v, st, 2);
    if (l == 0) memcpy(amg->device, st[0].device, sizeof amg->device); /* not a small level's */
    amg->level[l + 1].rA = next;
    amg->nlevels = l + 2;
    return HSP_OK;
}

/* Do the options carry candidates or nodes of several rows?  Such levels
 * are aggregated on the host (host_tentative). */
static int systems(const hsp_amg_options *o)
{
    return o->B || o->nullspace != 1 || o->block != 1;
}

/* Level l's aggregates and T on the device, with *rho a bound of rho(D^-1 A). */
static hsp_status device_tentative(hsp_context *ctx, hsp_amg *amg, int l, double *rho)
{
    hsp_device *dev = ctx->device;
    hsp_amg_level *v = &amg->level[l];
    const hsp_csr *A = csr(v->rA);
    void *held_t = NULL;
    int64_t tnnz = 0;
    const void *prev = l ? held(amg->state->level[l - 1].rT) : NULL; /* the weights of A's nodes */
    hsp_status s = dev->amg->tentative(dev, A, held(v->rA), &amg->state->options, l == 0, prev, &held_t,
                                       &v->naggregates, &tnnz, rho);
    if (s != HSP_OK || !v->naggregates) return s;
    amg->state->level[l].rT = hsp_resident_held_new(ctx, A->nrows, v->naggregates, tnnz, A->precision, held_t);
    return amg->state->level[l].rT ? HSP_OK : HSP_ERR_NOMEM;
}

/* Level l's aggregates, T and the next level's candidates (*Bc) made on the
 * host as hsp_amg_setup makes them, from its A brought home and its
 * candidates B (the QRs need the whole aggregate in order); T then placed
 * on the device, and *rho Gershgorin's bound of rho(D^-1 A) there. */
static hsp_status host_tentative(hsp_context *ctx, hsp_amg *amg, int l, const double *B, double **Bc, double *rho)
{
    const hsp_amg_options *o = &amg->state->options;
    hsp_amg_level *v = &amg->level[l];
    level_state made = {0};
    const hsp_csr *A = NULL;
    hsp_status s = hsp_resident_host((hsp_resident *)v->rA, &A);
    if (s == HSP_OK)
        s = hsp_amg_aggregate_level(ctx, A, o, l, l ? o->nullspace : o->block, B, &made, &v->naggregates, Bc);
    if (s == HSP_OK && v->naggregates) s = hsp_place(ctx, made.T, &amg->state->level[l].rT);
    if (s == HSP_OK && v->naggregates) s = ctx->device->amg->radius(ctx->device, csr(v->rA), held(v->rA), rho);
    free(made.diag), free(made.agg), hsp_csr_free(made.T); /* a re-setup needs T's resident copy only */
    return s;
}

/* Level l's aggregates, T (B: its candidates, *Bc: the next level's), P, R
 * and the next level's A. */
static hsp_status device_level(hsp_context *ctx, hsp_amg *amg, int l, const double *B, double **Bc)
{
    hsp_amg_level *v = &amg->level[l];
    double rho = 0, t = hsp_now_ms();
    hsp_status s = systems(&amg->state->options) ? host_tentative(ctx, amg, l, B, Bc, &rho)
                                                 : device_tentative(ctx, amg, l, &rho);
    v->ms_aggregate = hsp_now_ms() - t;
    if (s != HSP_OK || !v->naggregates) return s;
    s = prolongator(ctx, amg, l, rho);
    return s == HSP_OK ? galerkin(ctx, amg, l) : s;
}

/* The hierarchy of hsp_amg_setup over A's host arrays, its matrices wrapped. */
static hsp_status host_levels(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_status s = hsp_amg_setup(ctx, csr(A), o, out);
    hsp_amg *amg = *out;
    for (int l = 0; s == HSP_OK && l < amg->nlevels; l++) {
        hsp_amg_level *v = &amg->level[l];
        v->rA = l ? hsp_resident_new(ctx, (hsp_csr *)v->A, 1, NULL) : A;
        v->rP = v->P ? hsp_resident_new(ctx, v->P, 1, NULL) : NULL;
        v->rR = v->R ? hsp_resident_new(ctx, (hsp_csr *)v->R, 1, NULL) : NULL;
        if (!v->rA || (v->P && (!v->rP || !v->rR))) s = HSP_ERR_NOMEM;
    }
    return s;
}

/* The levels made on the device (their aggregates on the host where the
 * options carry candidates or blocks: device_level). */
static hsp_status device_levels(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_amg *amg = calloc(1, sizeof *amg);
    if (amg) amg->state = calloc(1, sizeof *amg->state);
    *out = amg;
    if (!amg || !amg->state) return hsp_fail(HSP_ERR_NOMEM, "no memory for an AMG hierarchy");
    double start = hsp_now_ms();
    amg->state->options = *o, amg->state->on_device = 1;
    amg->state->options.aggregation = hsp_aggregation_of(o, 1);
    amg->level[0].rA = A, amg->nlevels = 1;
    hsp_status s = HSP_OK;
    double *B = NULL; /* the candidates of level l > 0 (level 0's: o->B) */
    for (int l = 0; s == HSP_OK && l + 1 < o->max_levels && l + 1 == amg->nlevels; l++) {
        double *next = NULL;
        if (csr(amg->level[l].rA)->nrows / (l ? o->nullspace : o->block) <= o->coarse_size) break;
        s = device_level(ctx, amg, l, l ? B : o->B, &next);
        free(B), B = next;
    }
    free(B);
    amg->state->options.B = NULL; /* the caller's B is read during the setup only */
    amg->ms_total = hsp_now_ms() - start;
    return s;
}

hsp_status hsp_amg_setup_resident(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_amg_options defaults;
    if (out) *out = NULL;
    if (!ctx || !A || !out) return hsp_fail(HSP_ERR_ARG, "hsp_amg_setup_resident: ctx, A or out is NULL");
    if (!o) hsp_amg_options_init(&defaults), o = &defaults;
    hsp_amg *amg = NULL;
    hsp_status s = hsp_amg_check("hsp_amg_setup_resident", csr(A)->nrows, csr(A)->ncols, o);
    if (s == HSP_OK && ctx->device->amg && o->float_levels && csr(A)->precision == HSP_DOUBLE)
        s = hsp_fail(HSP_ERR_UNSUPPORTED, "hsp_amg_setup_resident: float_levels is for hierarchies the CPU threads "
                     "solve, and device %s holds this one: set a float A resident instead, or set up with "
                     "hsp_amg_setup", ctx->device->description);
    if (s == HSP_OK && ctx->device->amg && o->coarsening == HSP_COARSEN_CLASSICAL)
        s = hsp_fail(HSP_ERR_UNSUPPORTED, "hsp_amg_setup_resident: classical AMG is set up on the host, and device %s "
                     "holds A: set up with hsp_amg_setup, or use smoothed aggregation", ctx->device->description);
    hsp_context_lock(ctx);
    if (s == HSP_OK) s = ctx->device->amg ? device_levels(ctx, A, o, &amg) : host_levels(ctx, A, o, &amg);
    hsp_context_unlock(ctx);
    if (s != HSP_OK) {
        hsp_amg_free(amg);
        return s;
    }
    *out = amg;
    return HSP_OK;
}

/* Level l's values anew on the device: P, R and the next level's A (where
 * P has no entries, R, A*P and the next A have none either). */
static hsp_status device_values(hsp_context *ctx, hsp_amg *amg, int l)
{
    hsp_device *dev = ctx->device;
    hsp_amg_level *v = &amg->level[l];
    level_state *ls = &amg->state->level[l];
    const hsp_resident *A = v->rA, *P = v->rP, *R = v->rR, *mid = ls->rmid, *next = amg->level[l + 1].rA;
    int r_ap = amg->state->options.order == HSP_RAP_R_AP;
    double rho, t = hsp_now_ms();
    hsp_status s = dev->amg->radius(dev, csr(A), held(A), &rho);
    if (s == HSP_OK) s = hsp_radius_held(dev, csr(A), held(A), &rho);
    ls->rho = rho;
    if (s == HSP_OK) s = hsp_resident_numeric(dev, P, A, ls->rT);
    if (s == HSP_OK) s = smooth(dev, amg, l, rho);
    if (s == HSP_OK && csr(P)->nnz) s = dev->amg->transpose_values(dev, csr(P), held(P), held(R));
    if (s == HSP_OK) s = dev->finish(dev); /* for the time of each step */
    v->ms_smooth = hsp_now_ms() - t, t = hsp_now_ms();
    if (s == HSP_OK) s = hsp_resident_numeric(dev, mid, r_ap ? A : R, r_ap ? P : A);
    if (s == HSP_OK) s = hsp_resident_numeric(dev, next, r_ap ? R : mid, r_ap ? mid : P);
    if (s == HSP_OK) s = dev->finish(dev);
    hsp_resident_touched((hsp_resident *)P), hsp_resident_touched((hsp_resident *)R);
    hsp_resident_touched((hsp_resident *)next);
    v->ms_rap[0] = hsp_now_ms() - t, v->ms_rap[1] = 0, v->ms_aggregate = 0, v->ms_transpose = 0;
    v->ms_device = v->ms_smooth + v->ms_rap[0], v->ms_host = 0, v->ms_wait = 0; /* all on the device */
    v->P = NULL, v->R = NULL, amg->level[l + 1].A = NULL; /* stale until brought home again */
    return s;
}

/* The device's re-setup: A of the same pattern as the hierarchy's. */
static hsp_status device_resetup(hsp_context *ctx, hsp_amg *amg, const hsp_resident *A)
{
    hsp_device *dev = ctx->device;
    const hsp_csr *old = csr(amg->level[0].rA), *H = csr(A);
    int32_t row = 0;
    if (H->nrows != old->nrows || H->ncols != old->ncols || H->nnz != old->nnz)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup_resident: A is %d x %d with %lld entries; the hierarchy's "
                        "is %d x %d with %lld", H->nrows, H->ncols, (long long)H->nnz, old->nrows, old->ncols,
                        (long long)old->nnz);
    hsp_status s = hsp_resident_same_pattern(dev, amg->level[0].rA, A, &row);
    if (s == HSP_OK && row < H->nrows)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup_resident: A's pattern differs from the hierarchy's in row %d: "
                        "a re-setup computes values only, for A of the same pattern", row);
    double start = hsp_now_ms();
    if (s == HSP_OK) amg->level[0].rA = A, amg->level[0].A = NULL;
    for (int l = 0; s == HSP_OK && l + 1 < amg->nlevels; l++) s = device_values(ctx, amg, l);
    hsp_solve_data_free(amg->state->solve), amg->state->solve = NULL; /* the levels' values are new */
    amg->ms_total = hsp_now_ms() - start;
    return s;
}

hsp_status hsp_amg_resetup_resident(hsp_context *ctx, hsp_amg *amg, const hsp_resident *A)
{
    if (!ctx || !amg || !A) return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup_resident: an argument is NULL");
    if (!amg->level[0].rA)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup_resident: the hierarchy is not resident: use hsp_amg_resetup");
    if (csr(A)->precision != csr(amg->level[0].rA)->precision)
        return hsp_fail(HSP_ERR_ARG, "hsp_amg_resetup_resident: A has another precision than the hierarchy");
    hsp_context_lock(ctx);
    hsp_status s = amg->state->on_device ? device_resetup(ctx, amg, A) : hsp_amg_resetup_host(ctx, amg, csr(A));
    if (s == HSP_OK && !amg->state->on_device) amg->level[0].rA = A;
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_amg_home(hsp_amg *amg)
{
    if (!amg) return hsp_fail(HSP_ERR_ARG, "hsp_amg_home: amg is NULL");
    hsp_status s = HSP_OK;
    for (int l = 0; s == HSP_OK && l < amg->nlevels; l++) {
        hsp_amg_level *v = &amg->level[l];
        const hsp_csr *R = NULL, *P = NULL;
        if (!v->rA) return hsp_fail(HSP_ERR_ARG, "hsp_amg_home: the hierarchy is not resident");
        if (!v->A) s = hsp_resident_host((hsp_resident *)v->rA, &v->A);
        if (s == HSP_OK && v->rP && !v->P) s = hsp_resident_host((hsp_resident *)v->rP, &P), v->P = (hsp_csr *)P;
        if (s == HSP_OK && v->rR && !v->R) s = hsp_resident_host((hsp_resident *)v->rR, &R), v->R = R;
    }
    return s;
}
