/* aggregate.h: strength, aggregation and the tentative prolongator of
 * smoothed aggregation (private). */
#ifndef HSP_AGGREGATE_H
#define HSP_AGGREGATE_H

#include "hspgemm.h"

/* where[i]: the entry of A's diagonal in row i; HSP_ERR_ARG naming a row
 * without a nonzero one. */
hsp_status hsp_diagonal(const hsp_csr *A, int64_t *where);
/* The aggregate of a node in no aggregate: one without strong connections. */
enum { HSP_AGG_NONE = -1 };
/* agg[i]: the aggregate of node i (0 .. *naggregates - 1, or HSP_AGG_NONE),
 * over the strong connections of A (a_ij != 0, |a_ij| >= theta sqrt(|a_ii
 * a_jj|)), by PyAMG's standard aggregation; where nothing is strong, one
 * aggregate of no node (PyAMG's coarse level of one row). */
hsp_status hsp_aggregate(const hsp_csr *A, const int64_t *diag, double theta, int32_t *agg, int32_t *naggregates);
/* T: n x naggregates, T(i, agg[i]) = 1 / sqrt(size of the aggregate); a row
 * of no aggregate is empty. */
hsp_status hsp_tentative(const int32_t *agg, int32_t n, int32_t naggregates, hsp_precision precision, hsp_csr **T);

#endif
