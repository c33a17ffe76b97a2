/* rap.h: Galerkin products inside the library (private), for the AMG setup. */
#ifndef HSP_RAP_H
#define HSP_RAP_H

#include "hspgemm.h"

/* hsp_rap of operands known to be valid and to fit (the AMG setup's), on
 * the context its caller has locked; options.drop_zeros not applied.  A plan
 * keeps copies of the operands' patterns only when copies (hsp_rap_reuse
 * checks against them; the AMG changes its own operands' values only). */
hsp_status hsp_rap_run(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_rap_order order,
                       hsp_csr **C, int copies, hsp_plan **plan, hsp_stats *stats);
/* The same for a Galerkin plan: R (NULL: the plan's P^T, refreshed from P),
 * A, P and C checked by the caller; the intermediate is the plan's. */
hsp_status hsp_rap_numeric(hsp_context *ctx, hsp_plan *plan, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P,
                           hsp_csr *C);

/* Is C = R*A*P one pass over A (hsp_rap_aggregate) on ctx: P of at most one
 * entry in each row, R NULL (P^T) or of at most one in each column, the
 * product on the CPU threads, their accumulators no larger than A*P? */
int hsp_rap_aggregate_fits(const hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P);
/* C = R*A*P (R NULL: P^T) for operands that fit, valid and of one
 * precision; stats (NULL or two) get the pass's figures in stats[0]. */
hsp_status hsp_rap_aggregate(hsp_context *ctx, const hsp_csr *R, const hsp_csr *A, const hsp_csr *P, hsp_csr **C,
                             hsp_stats stats[2]);

#endif
