/* spmm.h: SpMM inside the library (private): the one entry of hsp_spmm,
 * hsp_spmm_ellr and hsp_spmm_resident. */
#ifndef HSP_SPMM_H
#define HSP_SPMM_H

#include "hspgemm.h"

/* C = alpha A B + beta C (hsp_spmm): B and C checked here, and A where csr
 * (A's CSR, of which A is a view) is given; A's arrays held by ctx's device
 * where A was prepared on ctx (A->held), B's and C's where held_bc[0] and
 * [1] are not NULL (then only their shapes are read, and a held C is apart
 * from the rest), else the host arrays are used. */
struct hsp_ellr;
hsp_status hsp_spmm_run(hsp_context *ctx, double alpha, const struct hsp_ellr *A, const hsp_csr *csr,
                        const hsp_dense *B, double beta, hsp_dense *C, void *const held_bc[2],
                        hsp_spmm_stats *stats);

/* What the environment variable name says: 1 for "always", 0 for "never",
 * else -1 (SpMM's choices then made by size: to test or compare them). */
int hsp_spmm_forced(const char *name);

#endif
