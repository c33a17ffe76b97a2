/* resident.h: resident matrices inside the library (private). */
#ifndef HSP_RESIDENT_H
#define HSP_RESIDENT_H
#include "hspgemm.h"

/* A resident matrix of ctx over host (its shape, and its entries where held
 * is NULL) and the device's arrays held; NULL when there is no memory for
 * it, held then dropped and host freed unless borrowed (the caller's). */
hsp_resident *hsp_resident_new(hsp_context *ctx, hsp_csr *host, int borrowed, void *held);
/* A resident matrix over arrays the device holds, the host knowing its
 * shape alone; NULL (held dropped) when there is no memory for it. */
hsp_resident *hsp_resident_held_new(hsp_context *ctx, int32_t nrows, int32_t ncols, int64_t nnz,
                                    hsp_precision precision, void *held);
/* M's host matrix: its shape, and its entries once home or where held is NULL. */
const hsp_csr *hsp_resident_csr(const hsp_resident *M);
/* The device's arrays of M, or NULL where its entries are host arrays. */
void *hsp_resident_held(const hsp_resident *M);
/* hsp_rap_resident, the first product (A*P or R*A) kept in *kept unless
 * kept is NULL (for a values-only re-setup). */
hsp_status hsp_rap_resident_kept(hsp_context *ctx, const hsp_resident *R, const hsp_resident *A,
                                 const hsp_resident *P, hsp_rap_order order, hsp_resident **C, hsp_resident **kept,
                                 hsp_stats *stats);
/* M brought home, its host matrix handed to *out (the caller's to free) and
 * M freed, its device arrays with it (M freed on failure too). */
hsp_status hsp_resident_take(hsp_resident *M, hsp_csr **out);
/* The device wrote M's values: what the host has of them is stale. */
void hsp_resident_touched(hsp_resident *M);

#endif
