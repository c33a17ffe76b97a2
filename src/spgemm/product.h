/* product.h: products inside the library (private): the one entry of every
 * product, and the context's hand-over to the next device of "auto". */
#ifndef HSP_PRODUCT_H
#define HSP_PRODUCT_H

#include "hspgemm.h"

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

/* C = alpha A B + beta C (hsp_spmm): B and C checked here, and A where csr
 * (A's CSR, of which A is a view) is given; A's arrays held by ctx's device
 * where A was prepared on ctx (A->held), B's and C's where held_bc[0] and
 * [1] are not NULL (then only their shapes are read, and a held C is apart
 * from the rest), else the host arrays are used. */
struct hsp_ellr;
hsp_status hsp_spmm_run(hsp_context *ctx, double alpha, const struct hsp_ellr *A, const hsp_csr *csr,
                        const hsp_dense *B, double beta, hsp_dense *C, void *const held_bc[2],
                        hsp_spmm_stats *stats);

#endif
