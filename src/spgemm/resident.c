/* resident.c: matrices resident on a context's device.  The host keeps a
 * resident matrix's shape (and the row pointers of one it placed); its arrays
 * are the device's (dev->hold) where the device has memory of its own, else
 * host arrays: the caller's matrix, placed, or a product's C. */
#include <stdlib.h>
#include <string.h>
#include "device/context.h"
#include "core/internal.h"
#include "spgemm/spgemm.h"

struct hsp_resident {
    hsp_context *ctx;
    hsp_csr *host;   /* shape (row pointers: placed, or home); the entries too when home */
    int borrowed;    /* host is the caller's matrix (placed where host arrays are used in place) */
    void *held;      /* the device's arrays, or NULL: the entries are host's */
    int home;        /* host's colidx and values hold the entries */
};

hsp_resident *hsp_resident_new(hsp_context *ctx, hsp_csr *host, int borrowed, void *held)
{
    hsp_resident *M = calloc(1, sizeof *M);
    if (!M) {
        if (ctx->device->drop) ctx->device->drop(ctx->device, held);
        if (!borrowed) hsp_csr_free(host);
        hsp_fail(HSP_ERR_NOMEM, "no memory for a resident matrix");
        return NULL;
    }
    *M = (hsp_resident){ctx, host, borrowed, held, !held};
    return M;
}

/* A's header and row pointers, without its entries (those of a resident C
 * come home with them). */
static hsp_status host_header(const hsp_csr *A, hsp_csr **out)
{
    hsp_csr *H = calloc(1, sizeof *H);
    if (H) H->rowptr = malloc(((size_t)A->nrows + 1) * sizeof *H->rowptr);
    if (!H || !H->rowptr) {
        free(H);
        return hsp_fail(HSP_ERR_NOMEM, "no memory for the row pointers of a resident matrix");
    }
    H->nrows = A->nrows, H->ncols = A->ncols, H->nnz = A->nnz, H->precision = A->precision;
    memcpy(H->rowptr, A->rowptr, ((size_t)A->nrows + 1) * sizeof *H->rowptr);
    *out = H;
    return HSP_OK;
}

/* H, of no entries, on the host: zero row pointers and empty arrays. */
static hsp_status empty_entries(hsp_csr *H)
{
    free(H->rowptr), free(H->colidx), free(H->values);
    H->rowptr = calloc((size_t)H->nrows + 1, sizeof *H->rowptr);
    H->colidx = malloc(sizeof *H->colidx), H->values = malloc(sizeof(double));
    return H->rowptr && H->colidx && H->values ? HSP_OK : hsp_fail(HSP_ERR_NOMEM, "no memory for an empty C");
}

/* M's three arrays, as the device holds them, and their bytes. */
static void csr_arrays(const hsp_csr *M, void *host[3], size_t bytes[3])
{
    host[0] = M->rowptr, host[1] = M->colidx, host[2] = M->values;
    bytes[0] = ((size_t)M->nrows + 1) * sizeof(int64_t), bytes[1] = (size_t)M->nnz * sizeof(int32_t);
    bytes[2] = (size_t)M->nnz * hsp_value_size(M->precision);
}

/* A's three arrays copied to dev, into *held. */
static hsp_status hold_csr(hsp_device *dev, const hsp_csr *A, void **held)
{
    void *host[3];
    size_t bytes[3];
    csr_arrays(A, host, bytes);
    return dev->hold(dev, 3, (const void *const *)host, bytes, held);
}

/* hsp_place of a valid A on the locked context. */
static hsp_status place(hsp_context *ctx, const hsp_csr *A, hsp_resident **M)
{
    hsp_device *dev = ctx->device;
    if (!dev->hold) return (*M = hsp_resident_new(ctx, (hsp_csr *)A, 1, NULL)) ? HSP_OK : HSP_ERR_NOMEM;
    hsp_csr *H = NULL;
    void *held = NULL;
    hsp_status s = host_header(A, &H);
    if (s == HSP_OK) s = hold_csr(dev, A, &held);
    if (s != HSP_OK) {
        hsp_csr_free(H);
        return s;
    }
    ctx->auto_next = HSP_AUTO_NONE; /* the device holds a matrix: it stays */
    return (*M = hsp_resident_new(ctx, H, 0, held)) ? HSP_OK : HSP_ERR_NOMEM;
}

hsp_status hsp_place(hsp_context *ctx, const hsp_csr *A, hsp_resident **M)
{
    if (!ctx || !M) return hsp_fail(HSP_ERR_ARG, "hsp_place: ctx or M is NULL");
    *M = NULL;
    hsp_status s = hsp_csr_check(A);
    if (s != HSP_OK) return s;
    hsp_context_lock(ctx);
    s = place(ctx, A, M);
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_multiply_resident(hsp_context *ctx, const hsp_resident *A, const hsp_resident *B,
                                 hsp_resident **C, hsp_stats *stats)
{
    if (!ctx || !A || !B || !C) return hsp_fail(HSP_ERR_ARG, "hsp_multiply_resident: an argument is NULL");
    *C = NULL;
    if (A->ctx != ctx || B->ctx != ctx)
        return hsp_fail(HSP_ERR_ARG, "hsp_multiply_resident: %s was placed on another context",
                        A->ctx != ctx ? "A" : "B");
    void *const held[2] = {A->held, B->held};
    hsp_context_lock(ctx);
    int hold_c = ctx->device->hold != NULL;
    hsp_csr *H = NULL;
    void *held_c = NULL;
    hsp_status s = hsp_product(ctx, A->host, B->host, 1, held, hold_c, 0, &H, &held_c, stats);
    if (s == HSP_OK && hold_c && !held_c) s = empty_entries(H); /* no product: the device made no C */
    if (s != HSP_OK) hsp_csr_free(H);
    else if (!(*C = hsp_resident_new(ctx, H, 0, held_c))) s = HSP_ERR_NOMEM;
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_rap_resident_kept(hsp_context *ctx, const hsp_resident *R, const hsp_resident *A,
                                 const hsp_resident *P, hsp_rap_order order, hsp_resident **C, hsp_resident **kept,
                                 hsp_stats *stats)
{
    if (!C || !R || !A || !P) return hsp_fail(HSP_ERR_ARG, "hsp_rap_resident: an argument is NULL");
    *C = NULL;
    if (!ctx) return hsp_fail(HSP_ERR_ARG, "hsp_rap_resident: ctx is NULL");
    if (order != HSP_RAP_R_AP && order != HSP_RAP_RA_P)
        return hsp_fail(HSP_ERR_ARG, "hsp_rap_resident: unknown order %d", (int)order);
    const hsp_csr *r = R->host, *a = A->host, *p = P->host;
    if (r->ncols != a->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "R is %d x %d but A is %d x %d: ncols(R) != nrows(A)", r->nrows, r->ncols,
                        a->nrows, a->ncols);
    if (a->ncols != p->nrows)
        return hsp_fail(HSP_ERR_SHAPE, "A is %d x %d but P is %d x %d: ncols(A) != nrows(P)", a->nrows, a->ncols,
                        p->nrows, p->ncols);
    hsp_resident *mid = NULL;
    int r_ap = order == HSP_RAP_R_AP;
    hsp_context_lock(ctx);
    hsp_status s = hsp_multiply_resident(ctx, r_ap ? A : R, r_ap ? P : A, &mid, stats);
    if (s == HSP_OK) s = hsp_multiply_resident(ctx, r_ap ? R : mid, r_ap ? mid : P, C, stats ? stats + 1 : NULL);
    if (kept) *kept = mid;
    else hsp_resident_free(mid);
    hsp_context_unlock(ctx);
    return s;
}

hsp_status hsp_rap_resident(hsp_context *ctx, const hsp_resident *R, const hsp_resident *A, const hsp_resident *P,
                            hsp_rap_order order, hsp_resident **C, hsp_stats stats[2])
{
    return hsp_rap_resident_kept(ctx, R, A, P, order, C, NULL, stats);
}

hsp_resident *hsp_resident_held_new(hsp_context *ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                    hsp_precision precision, void *held)
{
    hsp_csr *H = calloc(1, sizeof *H);
    if (H) {
        H->nrows = nrows, H->ncols = ncols, H->nnz = nnz, H->precision = precision;
        return hsp_resident_new(ctx, H, 0, held);
    }
    ctx->device->drop(ctx->device, held);
    hsp_fail(HSP_ERR_NOMEM, "no memory for a resident matrix");
    return NULL;
}

const hsp_csr *hsp_resident_csr(const hsp_resident *M)
{
    return M->host;
}

void *hsp_resident_held(const hsp_resident *M)
{
    return M->held;
}

hsp_status hsp_resident_hold(hsp_resident *M)
{
    hsp_device *dev = M->ctx->device;
    return M->held || !dev->hold ? HSP_OK : hold_csr(dev, M->host, &M->held);
}

void hsp_resident_touched(hsp_resident *M)
{
    if (M->held) M->home = 0;
}

/* M's entries read back from its device into its host matrix. */
static hsp_status bring_home(hsp_resident *M)
{
    hsp_csr *H = M->host;
    hsp_device *dev = M->ctx->device;
    if (!H->rowptr) H->rowptr = malloc(((size_t)H->nrows + 1) * sizeof *H->rowptr);
    if (!H->colidx) H->colidx = hsp_alloc((size_t)H->nnz * sizeof *H->colidx);
    if (!H->values) H->values = hsp_alloc((size_t)H->nnz * hsp_value_size(H->precision));
    if (!H->rowptr || !H->colidx || !H->values)
        return hsp_fail(HSP_ERR_NOMEM, "no memory to bring a matrix of %lld entries home", (long long)H->nnz);
    void *host[3];
    size_t bytes[3];
    csr_arrays(H, host, bytes);
    hsp_status s = dev->home(dev, M->held, 3, host, bytes);
    if (s == HSP_OK) M->home = 1;
    return s;
}

hsp_status hsp_resident_host(hsp_resident *M, const hsp_csr **host)
{
    if (!M || !host) return hsp_fail(HSP_ERR_ARG, "hsp_resident_host: M or host is NULL");
    *host = NULL;
    hsp_context_lock(M->ctx);
    hsp_status s = M->home ? HSP_OK : bring_home(M);
    hsp_context_unlock(M->ctx);
    if (s == HSP_OK) *host = M->host;
    return s;
}

hsp_status hsp_resident_take(hsp_resident *M, hsp_csr **out)
{
    const hsp_csr *H = NULL;
    hsp_status s = hsp_resident_host(M, &H);
    *out = s == HSP_OK ? M->host : NULL;
    if (s == HSP_OK) M->borrowed = 1; /* the caller's now: not freed with M */
    hsp_resident_free(M);
    return s;
}

void hsp_resident_shape(const hsp_resident *M, int32_t *nrows, int32_t *ncols, int64_t *nnz)
{
    if (nrows) *nrows = M ? M->host->nrows : 0;
    if (ncols) *ncols = M ? M->host->ncols : 0;
    if (nnz) *nnz = M ? M->host->nnz : 0;
}

void hsp_resident_free(hsp_resident *M)
{
    if (!M) return;
    hsp_context_drop(M->ctx, M->held);
    if (!M->borrowed) hsp_csr_free(M->host);
    free(M);
}
