/* spgemm.h: what the library uses of products beyond the public header
 * (private), the one header of src/spgemm that the features above it (spmm,
 * amg) and the top (src/open) include: the one entry of every product,
 * plans whose operands the caller changes in place, resident matrices, and
 * Galerkin products. */
#ifndef HSP_SPGEMM_H
#define HSP_SPGEMM_H

#include "hspgemm.h"
#include "device/device.h"

/* C = A*B on the context's device, or on its CPU threads when small.  With
 * placed, A and B are resident matrices (checked when placed; never small),
 * whose entries the device holds where held[k] is not NULL (the host's A or B
 * then has row pointers only); with hold_c, C's entries stay on the device
 * (*held_c) and the host's C gets row pointers only.  With unsorted, C's
 * rows may be left unsorted. */
hsp_status hsp_product(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, int placed, void *const held[2],
                       int hold_c, int unsorted, hsp_csr **C, void **held_c, hsp_stats *stats);
/* hsp_multiply with C's rows sorted whatever the options say: for the
 * library's own products (plans, hsp_rap, AMG), which later products read;
 * the operands' rows are not checked again (the caller checked them, or made
 * them). */
hsp_status hsp_multiply_sorted(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C,
                               hsp_stats *stats);
/* A caller's A and B checked whole (ctx locked): headers, shapes, and row
 * arrays within the memory limit (refused before a row pointer is read),
 * then their rows on ctx's threads.  The error names the operand. */
hsp_status hsp_check_caller(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B);
/* Is the caller's M valid CSR (its rows checked on ctx's threads; ctx
 * locked)?  The error names it. */
hsp_status hsp_csr_check_named(hsp_context *ctx, const hsp_csr *M, const char *name);

/* Plans (plan.c) of products whose operands the caller changes in place,
 * and a copy of a matrix's pattern to check operands against. */
typedef struct {
    int32_t nrows, ncols;
    int64_t nnz;
    int64_t *rowptr;
    int32_t *colidx;
} hsp_pattern;

/* hsp_multiply_plan, its plan keeping copies of the patterns or not. */
hsp_status hsp_multiply_planned(hsp_context *ctx, const hsp_csr *A, const hsp_csr *B, hsp_csr **C, int copies,
                                hsp_plan **plan, hsp_stats *stats);
/* p, a copy of M's pattern; and its arrays freed. */
hsp_status hsp_pattern_copy(const hsp_csr *M, hsp_pattern *p);
void hsp_pattern_free(hsp_pattern *p);
/* Is M's pattern p's?  HSP_ERR_ARG naming the operand and the first row
 * that differs when not. */
hsp_status hsp_pattern_check(const hsp_pattern *p, const hsp_csr *M, const char *name);
/* C's values from A and B of one precision, whose patterns (and C's) the
 * caller has found to be the plan's: on the pool, in parts of about equal
 * products. */
hsp_status hsp_plan_numeric(hsp_context *ctx, hsp_plan *plan, const hsp_csr *A, const hsp_csr *B, hsp_csr *C);

/* Resident matrices (resident.c, plan_resident.c). */
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
/* M's host entries held on its device where it holds none (a product the
 * device did not make: no entries), so that device kernels can read it; the
 * context locked. */
hsp_status hsp_resident_hold(hsp_resident *M);
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
/* C's values as A*B over C's pattern on dev, which holds all three (nothing
 * where C has no entries). */
hsp_status hsp_resident_numeric(hsp_device *dev, const hsp_resident *C, const hsp_resident *A, const hsp_resident *B);
/* *row: the first row where held Y's pattern differs from held X's (Y of
 * X's shape and entry count), or X's rows where none does. */
hsp_status hsp_resident_same_pattern(hsp_device *dev, const hsp_resident *X, const hsp_resident *Y, int32_t *row);

/* Galerkin products (rap.c). */
/* hsp_rap of operands known to be valid and to fit (the AMG setup's), on
 * the context its caller has locked; options.drop_zeros not applied.  A plan
 * keeps copies of the operands' patterns only when copies (hsp_rap_reuse
 * checks against them; the AMG changes its own operands' values only). */
hsp_status hsp_rap_run(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                       hsp_csr **C, int copies, hsp_plan **plan, hsp_stats *stats);
/* A Galerkin plan's R = P^T where it formed it (R was NULL), else NULL;
 * *ms: the time forming it took, *ms_wait: the wait for it after A*P. */
hsp_csr *hsp_rap_transpose(const hsp_plan *plan, double *ms, double *ms_wait);
/* The same for a Galerkin plan: R (NULL: the plan's P^T, refreshed from P),
 * A, P and C checked by the caller; the intermediate is the plan's. */
hsp_status hsp_rap_numeric(hsp_context *ctx, hsp_plan *plan, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                           hsp_csr *C);

#endif
