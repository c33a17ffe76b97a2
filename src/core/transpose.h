/* transpose.h: the transpose, keeping where each entry went (private). */
#ifndef HSP_TRANSPOSE_H
#define HSP_TRANSPOSE_H

#include "hspgemm.h"
#include "core/pool.h"

/* AT = A^T for a valid A, on pool's threads (NULL: this thread alone);
 * where (if not NULL) gets, per entry k of A, its place in AT (free it). */
hsp_status hsp_transpose_keep(const hsp_csr *A, hsp_pool *pool, hsp_csr **AT, int64_t **where);
/* AT's values anew from A's, by the places hsp_transpose_keep gave. */
void hsp_transpose_values(const hsp_csr *A, const int64_t *where, hsp_csr *AT);

#endif
