/* amg_resident.c: the hierarchy of a resident matrix, its levels resident.
 * Where the device uses host arrays in place it is hsp_amg_setup's over the
 * matrix's own arrays, each level's matrices then wrapped as resident ones.
 * On a device with memory of its own every step runs there (the device's
 * sa_tentative, sa_smooth and transpose, and resident products): what
 * crosses is sizes and a few numbers a step. */
#include <stdlib.h>
#include <string.h>
#include "amg.h"
#include "context.h"
#include "internal.h"
#include "resident.h"

/* A matrix's header: shape and precision, no arrays (they are the device's). */
static hsp_csr *header(int32_t nrows, int32_t ncols, int64_t nnz, hsp_precision precision)
{
    hsp_csr *H = calloc(1, sizeof *H);
    if (!H) hsp_fail(HSP_ERR_NOMEM, "no memory for a resident matrix");
    else H->nrows = nrows, H->ncols = ncols, H->nnz = nnz, H->precision = precision;
    return H;
}

/* A resident matrix over arrays the device holds, or NULL (held dropped). */
static hsp_resident *held_matrix(hsp_context *ctx, int32_t nrows, int32_t ncols, int64_t nnz, hsp_precision p,
                                 void *held)
{
    hsp_csr *H = header(nrows, ncols, nnz, p);
    if (H) return hsp_resident_new(ctx, H, 0, held);
    ctx->device->drop(ctx->device, held);
    return NULL;
}

/* *R = P^T on the device: scattered there, its rows then sorted by the
 * product with the identity (exact: one product per entry). */
static hsp_status transpose(hsp_context *ctx, const hsp_resident *P, hsp_resident **R)
{
    hsp_device *dev = ctx->device;
    const hsp_csr *H = hsp_resident_csr(P);
    hsp_resident *unsorted = NULL, *I = NULL;
    void *held_r = NULL, *held_i = NULL;
    hsp_status s = dev->transpose(dev, H, hsp_resident_held(P), &held_r);
    if (s == HSP_OK && !(unsorted = held_matrix(ctx, H->ncols, H->nrows, H->nnz, H->precision, held_r)))
        s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = dev->identity(dev, H->nrows, H->precision, &held_i);
    if (s == HSP_OK && !(I = held_matrix(ctx, H->nrows, H->nrows, H->nrows, H->precision, held_i)))
        s = HSP_ERR_NOMEM;
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, unsorted, I, R, NULL);
    hsp_resident_free(unsorted), hsp_resident_free(I);
    return s;
}

/* Level l's P = (I - w D^-1 A) T and R = P^T on the device, T freed. */
static hsp_status prolongator(hsp_context *ctx, hsp_amg *amg, int l, hsp_resident *T, double rho, double omega)
{
    hsp_device *dev = ctx->device;
    hsp_amg_level *v = &amg->level[l];
    const hsp_csr *A = hsp_resident_csr(v->rA);
    hsp_resident *P = NULL;
    double t = hsp_now_ms();
    hsp_status s = hsp_multiply_resident(ctx, v->rA, T, &P, NULL);
    if (s == HSP_OK)
        s = dev->sa_smooth(dev, A, hsp_resident_held(v->rA), hsp_resident_held(T), omega / rho, hsp_resident_csr(P),
                           hsp_resident_held(P));
    hsp_resident_free(T); /* waits for the device */
    v->ms_smooth = hsp_now_ms() - t, t = hsp_now_ms();
    v->rP = P;
    if (s != HSP_OK) return s;
    hsp_resident *R = NULL;
    s = transpose(ctx, P, &R);
    v->rR = R;
    v->ms_transpose = hsp_now_ms() - t;
    return s;
}

/* Level l's aggregates, P, R and the next level's A, on the device. */
static hsp_status device_level(hsp_context *ctx, hsp_amg *amg, int l, const hsp_amg_options *o)
{
    hsp_device *dev = ctx->device;
    hsp_amg_level *v = &amg->level[l];
    const hsp_csr *A = hsp_resident_csr(v->rA);
    void *held_t = NULL;
    double rho = 0, t = hsp_now_ms();
    hsp_status s = dev->sa_tentative(dev, A, hsp_resident_held(v->rA), o->theta, &held_t, &v->naggregates, &rho);
    v->ms_aggregate = hsp_now_ms() - t;
    if (s != HSP_OK || !v->naggregates) return s;
    hsp_resident *T = held_matrix(ctx, A->nrows, v->naggregates, A->nrows, A->precision, held_t);
    s = T ? prolongator(ctx, amg, l, T, rho, o->omega) : HSP_ERR_NOMEM;
    hsp_resident *next = NULL;
    hsp_stats st[2];
    if (s == HSP_OK) s = hsp_rap_resident(ctx, v->rR, v->rA, v->rP, o->order, &next, st);
    if (s != HSP_OK) return s;
    v->ms_rap[0] = st[0].ms_total, v->ms_rap[1] = st[1].ms_total;
    memcpy(amg->device, st[0].device, sizeof amg->device);
    amg->level[l + 1].rA = next;
    amg->nlevels = l + 2;
    return HSP_OK;
}

/* The hierarchy of hsp_amg_setup over A's host arrays, its matrices wrapped. */
static hsp_status host_levels(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out)
{
    hsp_status s = hsp_amg_setup(ctx, hsp_resident_csr(A), o, out);
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

hsp_status hsp_amg_setup_resident(hsp_context *ctx, const hsp_resident *A, const hsp_amg_options *o, hsp_amg **out)
{
    if (!ctx || !A || !o || !out) return hsp_fail(HSP_ERR_ARG, "hsp_amg_setup_resident: an argument is NULL");
    *out = NULL;
    const hsp_csr *H = hsp_resident_csr(A);
    hsp_status s = hsp_amg_check("hsp_amg_setup_resident", H->nrows, H->ncols, o);
    hsp_amg *amg = NULL;
    if (s == HSP_OK && !ctx->device->sa_tentative) s = host_levels(ctx, A, o, &amg);
    else if (s == HSP_OK && !(amg = calloc(1, sizeof *amg)))
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for an AMG hierarchy");
    if (s == HSP_OK && ctx->device->sa_tentative) {
        double start = hsp_now_ms();
        amg->level[0].rA = A, amg->nlevels = 1;
        for (int l = 0; s == HSP_OK && l + 1 < o->max_levels && l + 1 == amg->nlevels &&
                        hsp_resident_csr(amg->level[l].rA)->nrows > o->coarse_size; l++)
            s = device_level(ctx, amg, l, o);
        amg->ms_total = hsp_now_ms() - start;
    }
    if (s != HSP_OK) {
        hsp_amg_free(amg);
        return s;
    }
    *out = amg;
    return HSP_OK;
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
