/* check.c: the bench's check of a product C = A*B that does not trust the
 * product's code: C must be valid CSR, and C x must equal A (B x) for a
 * fixed pseudo-random x (Freivalds' check, in double, entry by entry
 * against the sum of the products' magnitudes), which a wrong value, a
 * lost entry or a misplaced column fails with high probability. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "cli.h"

/* y = M x, and ymag = |M| xmag. */
static void times(const hsp_csr *M, const double *x, const double *xmag, double *y, double *ymag)
{
    for (int32_t i = 0; i < M->nrows; i++) {
        double sum = 0, mag = 0;
        for (int64_t k = M->rowptr[i]; k < M->rowptr[i + 1]; k++) {
            double v = hsp_csr_value(M, k);
            sum += v * x[M->colidx[k]], mag += fabs(v) * xmag[M->colidx[k]];
        }
        y[i] = sum, ymag[i] = mag;
    }
}

int cli_check_product(const hsp_csr *A, const hsp_csr *B, const hsp_csr *C, char *why, size_t len)
{
    if (hsp_csr_check(C) != HSP_OK) return snprintf(why, len, "C is not valid CSR: %s", hsp_errmsg()), 0;
    if (C->nrows != A->nrows || C->ncols != B->ncols)
        return snprintf(why, len, "C is %d x %d, not %d x %d", C->nrows, C->ncols, A->nrows, B->ncols), 0;
    size_t n = (size_t)B->ncols + 1, m = (size_t)A->nrows + 1, k = (size_t)B->nrows + 1;
    double *x = malloc(n * sizeof *x), *xmag = malloc(n * sizeof *xmag), *bx = malloc(k * sizeof *bx);
    double *bmag = malloc(k * sizeof *bmag), *abx = malloc(m * sizeof *abx), *amag = malloc(m * sizeof *amag);
    double *cx = malloc(m * sizeof *cx), *cmag = malloc(m * sizeof *cmag);
    int ok = x && xmag && bx && bmag && abx && amag && cx && cmag;
    if (!ok) snprintf(why, len, "no memory to check C");
    uint64_t state = 0x2545f4914f6cdd1du;
    for (int32_t j = 0; ok && j < B->ncols; j++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        x[j] = (double)(state >> 11) / 9007199254740992.0 + 0.5, xmag[j] = x[j]; /* in [0.5, 1.5) */
    }
    double tol = C->precision == HSP_DOUBLE ? 1e-10 : 1e-3; /* sums of thousands of products, rounded */
    if (ok) times(B, x, xmag, bx, bmag), times(A, bx, bmag, abx, amag), times(C, x, xmag, cx, cmag);
    for (int32_t i = 0; ok && i < A->nrows; i++)
        if (fabs(cx[i] - abx[i]) > tol * amag[i]) {
            snprintf(why, len, "row %d of C x is %.17g, of A (B x) %.17g", i, cx[i], abx[i]);
            ok = 0;
        }
    free(x), free(xmag), free(bx), free(bmag), free(abx), free(amag), free(cx), free(cmag);
    return ok;
}
