/* rap.h: Galerkin products of an aggregating P in one pass (private,
 * rap_aggregate.c; rap.c takes them). */
#ifndef HSP_RAP_H
#define HSP_RAP_H

#include "hspgemm.h"

/* Is C = R*A*P one pass over A (hsp_rap_aggregate) on ctx: P of at most one
 * entry in each row, R NULL (P^T) or of at most one in each column, the
 * product on the CPU threads, their accumulators no larger than A*P? */
int hsp_rap_aggregate_fits(const hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P);
/* C = R*A*P (R NULL: P^T) for operands that fit, valid and of one
 * precision; stats (NULL or two) get the pass's figures in stats[0]. */
hsp_status hsp_rap_aggregate(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_csr **C,
                             hsp_stats stats[2]);

#endif
