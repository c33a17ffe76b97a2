/* classical.h: the coarsening of classical (Ruge-Stueben) AMG (private). */
#ifndef HSP_CLASSICAL_H
#define HSP_CLASSICAL_H

#include "hspgemm.h"

/* At most this many entries in a row of P (hypre BoomerAMG's default P_max_elmts). */
enum { HSP_CLASSICAL_P_MAX = 4 };

/* The C/F splitting of A (diag: where its diagonal entries are) by the strong couplings of
 * threshold theta: cf[i] the coarse number of C point i (0 .. *nc - 1 in the points' order)
 * or -1 for an F point; and P (nrows x *nc, A's precision) by extended+i interpolation,
 * truncated.  *nc 0 and *P NULL where the splitting does not coarsen (all C, or none). */
hsp_status hsp_classical_level(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double theta, int32_t *cf,
                               int32_t *nc, hsp_csr **P);
/* P's values anew for A's new values (a re-setup): the splitting cf and P's pattern kept,
 * the strong couplings and the weights made again, each row scaled as at set-up. */
hsp_status hsp_classical_values(hsp_context *ctx, const hsp_csr *A, const int64_t *diag, double theta,
                                const int32_t *cf, hsp_csr *P);

#endif
