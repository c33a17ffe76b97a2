/* dense_resident.c: dense matrices resident on a context's device, and
 * hsp_spmm_resident over them.  The host keeps the shape; the values are
 * the device's one array (dev->hold, the span of the array placed) where it
 * has memory of its own, else the caller's array, used in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "spmm/ellr.h"
#include "core/internal.h"
#include "spmm/spmm.h"

struct hsp_dense_resident {
    hsp_context *ctx;
    hsp_dense shape; /* values: the array placed (read only where nothing is held) */
    void *held;      /* the device's copy, or NULL */
};

hsp_status hsp_place_dense(hsp_context *ctx, const hsp_dense *X, hsp_dense_resident **M)
{
    if (!M) return hsp_fail(HSP_ERR_ARG, "hsp_place_dense: M is NULL");
    *M = NULL;
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_place_dense: ctx is NULL");
    hsp_status s = hsp_dense_check(X, "hsp_place_dense: X");
    hsp_dense_resident *R = s == HSP_OK ? calloc(1, sizeof *R) : NULL;
    if (s == HSP_OK && !R) s = hsp_fail(HSP_ERR_NOMEM, "hsp_place_dense: no memory");
    if (s != HSP_OK) return s;
    *R = (hsp_dense_resident){ctx, *X, NULL};
    hsp_device *dev = ctx->device;
    size_t bytes = hsp_dense_bytes(X);
    const void *host = X->values;
    hsp_context_lock(ctx);
    if (dev->hold) s = dev->hold(dev, 1, &host, &bytes, &R->held);
    hsp_context_unlock(ctx);
    if (s != HSP_OK) free(R), R = NULL;
    *M = R;
    return s;
}

/* M's layout in words: "R x C (ld L, row-major, double)". */
static const char *layout(const hsp_dense *M, char *buf, size_t len)
{
    snprintf(buf, len, "%d x %d (ld %lld, %s, %s)", M->nrows, M->ncols, (long long)M->ld,
             M->order == HSP_ROW_MAJOR ? "row-major" : "column-major", M->precision == HSP_DOUBLE ? "double" : "float");
    return buf;
}

hsp_status hsp_dense_resident_home(const hsp_dense_resident *M, hsp_dense *X)
{
    if (!M || !X) return hsp_fail(HSP_ERR_ARG, "hsp_dense_resident_home: %s is NULL", M ? "X" : "M");
    const hsp_dense *D = &M->shape;
    char x[96], d[96];
    hsp_status s = hsp_dense_check(X, "hsp_dense_resident_home: X");
    if (s == HSP_OK && (X->nrows != D->nrows || X->ncols != D->ncols || X->order != D->order ||
                        X->precision != D->precision || X->ld != D->ld))
        s = hsp_fail(HSP_ERR_SHAPE, "hsp_dense_resident_home: X is %s; M is %s", layout(X, x, sizeof x),
                     layout(D, d, sizeof d));
    if (s != HSP_OK) return s;
    size_t bytes = hsp_dense_bytes(X);
    void *host = X->values;
    if (!M->held) {
        if (X->values != D->values && bytes) memmove(X->values, D->values, bytes);
        return HSP_OK;
    }
    hsp_device *dev = M->ctx->device;
    hsp_context_lock(M->ctx);
    s = dev->home(dev, M->held, 1, &host, &bytes);
    hsp_context_unlock(M->ctx);
    return s;
}

void hsp_dense_resident_free(hsp_dense_resident *M)
{
    if (!M) return;
    hsp_context_drop(M->ctx, M->held);
    free(M);
}

hsp_status hsp_spmm_resident(hsp_context *ctx, double alpha, const hsp_ellr *A, const hsp_dense_resident *B,
                             double beta, hsp_dense_resident *C, hsp_spmm_stats *stats)
{
    const char *null = !ctx ? "ctx" : !A ? "A" : !B ? "B" : !C ? "C" : NULL;
    if (null) return hsp_fail(HSP_ERR_ARG, "hsp_spmm_resident: %s is NULL", null);
    if (B->ctx != ctx || C->ctx != ctx || (ctx->device->hold && A->ctx != ctx))
        return hsp_fail(HSP_ERR_ARG, "hsp_spmm_resident: %s belongs to another context: place or prepare it on this one",
                        B->ctx != ctx ? "B" : C->ctx != ctx ? "C" : "A");
    if (B == C) return hsp_fail(HSP_ERR_ARG, "hsp_spmm_resident: C is B: give C an array of its own");
    return hsp_spmm_run(ctx, alpha, A, NULL, &B->shape, beta, &C->shape, (void *[2]){B->held, C->held}, stats);
}
