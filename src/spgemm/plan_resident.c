/* plan_resident.c: plans of resident products.  Where the device uses host
 * arrays in place it is a plan of the matrices' host arrays.  On a device
 * with memory of its own the plan holds copies of the three patterns there;
 * a reuse checks the operands' patterns against them by a kernel and
 * computes C's values there (dev->spgemm->numeric). */
#include <stdlib.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/plan.h"
#include "spgemm/spgemm.h"
#include "spgemm/spgemm_device.h"

static const char *const operand_name[3] = {"A", "B", "C"};

/* The patterns of A, B (unless B is A) and C held by the device, in p. */
static hsp_status hold_patterns(hsp_context *ctx, const hsp_resident *const M[3], hsp_plan *p)
{
    hsp_device *dev = ctx->device;
    hsp_status s = HSP_OK;
    for (int k = 0; k < 3 && s == HSP_OK; k++) {
        const hsp_csr *H = hsp_resident_csr(M[k]);
        void *held = NULL;
        if (k == 1 && p->b_is_a) continue;
        s = dev->spgemm->pattern(dev, H, hsp_resident_held(M[k]), &held);
        if (s == HSP_OK &&
            !(p->held_pattern[k] = hsp_resident_held_new(ctx, H->nrows, H->ncols, H->nnz, H->precision, held)))
            s = HSP_ERR_NOMEM;
    }
    return s;
}

/* hsp_multiply_plan_resident on the locked context. */
static hsp_status plan_resident(hsp_context *ctx, const hsp_resident *A, const hsp_resident *B, hsp_resident **C,
                                hsp_plan **plan, hsp_stats *stats)
{
    hsp_status s = hsp_multiply_resident(ctx, A, B, C, stats);
    if (s != HSP_OK) return s;
    if (!ctx->device->hold) {
        s = hsp_plan_of(hsp_resident_csr(A), hsp_resident_csr(B), hsp_resident_csr(*C), 1, plan);
    } else if (!(*plan = calloc(1, sizeof **plan))) {
        s = hsp_fail(HSP_ERR_NOMEM, "no memory for a plan");
    } else {
        const hsp_resident *M[3] = {A, B, *C};
        (*plan)->kind = HSP_PLAN_MULTIPLY, (*plan)->b_is_a = B == A;
        s = hold_patterns(ctx, M, *plan);
    }
    if (s == HSP_OK) return HSP_OK;
    hsp_plan_free(*plan), *plan = NULL;
    hsp_resident_free(*C), *C = NULL;
    return s;
}

hsp_status hsp_multiply_plan_resident(hsp_context *ctx, const hsp_resident *A, const hsp_resident *B,
                                      hsp_resident **C, hsp_plan **plan, hsp_stats *stats)
{
    if (!ctx || !plan || !C) return hsp_fail(HSP_ERR_ARG, "hsp_multiply_plan_resident: an argument is NULL");
    *plan = NULL;
    hsp_context_lock(ctx);
    hsp_status s = plan_resident(ctx, A, B, C, plan, stats);
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_resident_numeric(hsp_device *dev, const hsp_resident *C, const hsp_resident *A, const hsp_resident *B)
{
    const hsp_csr *H = hsp_resident_csr(C);
    if (!H->nnz) return HSP_OK; /* the device holds no such product */
    return dev->spgemm->numeric(dev, H, hsp_resident_csr(A), hsp_resident_csr(B), hsp_resident_held(A),
                                hsp_resident_held(B), hsp_resident_held(C));
}

hsp_status hsp_resident_same_pattern(hsp_device *dev, const hsp_resident *X, const hsp_resident *Y, int32_t *row)
{
    return dev->spgemm->same_pattern(dev, hsp_resident_csr(X), hsp_resident_held(X), hsp_resident_held(Y), row);
}

/* Is M's pattern the one the device holds as pattern?  HSP_ERR_ARG naming
 * the operand and the first row that differs when not. */
static hsp_status check_held(hsp_device *dev, const hsp_resident *pattern, const hsp_resident *M, const char *name)
{
    const hsp_csr *P = hsp_resident_csr(pattern), *H = hsp_resident_csr(M);
    int32_t row = 0;
    if (H->nrows != P->nrows || H->ncols != P->ncols || H->nnz != P->nnz)
        return hsp_fail(HSP_ERR_ARG, "%s is %d x %d with %lld entries; the plan's was %d x %d with %lld", name,
                        H->nrows, H->ncols, (long long)H->nnz, P->nrows, P->ncols, (long long)P->nnz);
    hsp_status s = hsp_resident_same_pattern(dev, pattern, M, &row);
    if (s == HSP_OK && row < P->nrows)
        return hsp_fail(HSP_ERR_ARG, "%s's pattern differs from the plan's in row %d: a plan computes values "
                        "only, for operands of the same pattern", name, row);
    return s;
}

hsp_status hsp_multiply_reuse_resident(hsp_context *ctx, hsp_plan *plan, const hsp_resident *A,
                                       const hsp_resident *B, hsp_resident *C)
{
    if (!ctx || !plan || !A || !B || !C)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse_resident: an argument is NULL");
    hsp_device *dev = ctx->device;
    if (plan->kind != HSP_PLAN_MULTIPLY)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse_resident: the plan is of a Galerkin product");
    if (dev->hold && !plan->held_pattern[0])
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse_resident: the plan is of host matrices; use "
                        "hsp_multiply_reuse");
    const hsp_csr *H[3] = {hsp_resident_csr(A), hsp_resident_csr(B), hsp_resident_csr(C)};
    if (!dev->hold) return hsp_multiply_reuse(ctx, plan, H[0], H[1], (hsp_csr *)H[2]); /* host arrays */
    if (H[0]->precision != H[2]->precision || H[1]->precision != H[2]->precision)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_reuse_resident: A, B and C must have one precision");
    const hsp_resident *const M[3] = {A, B, C};
    hsp_context_lock(ctx);
    hsp_status s = HSP_OK;
    for (int k = 0; k < 3 && s == HSP_OK; k++) /* B against A's pattern where the plan's B was A */
        s = check_held(dev, plan->held_pattern[k] ? plan->held_pattern[k] : plan->held_pattern[0], M[k],
                       operand_name[k]);
    if (s == HSP_OK) s = hsp_resident_numeric(dev, C, A, B);
    hsp_resident_touched(C);
    hsp_context_unlock(ctx);
    return s;
}
