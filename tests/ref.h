/* ref.h: the reference product the tests check every product against, and
 * helpers to make test matrices. */
#ifndef HSP_REF_H
#define HSP_REF_H

#include <stddef.h>
#include "hspgemm.h"

/* C = A*B by a plain dense-accumulator Gustavson product, in double.  A column
 * is present in a row of C when at least one product lands on it (so explicit
 * zeros are kept).  *mag gets, per entry of C, the sum of |a_ik * b_kj|, which
 * bounds the rounding error.  Returns NULL on allocation failure. */
hsp_csr *ref_multiply(const hsp_csr *A, const hsp_csr *B, double **mag);

/* Compare C with the reference: same shape and pattern, and each value within
 * a rounding bound of C's precision.  Returns 1 when equal; otherwise 0 with
 * the first difference written to why. */
int ref_compare(const hsp_csr *C, const hsp_csr *ref, const double *mag,
                char *why, size_t whylen);

/* A 3 x 4 matrix in double: row 0 {0, 2}, row 1 {}, row 2 {1, 3}, values
 * 1, 2, 3, 4. */
hsp_csr *ref_small(void);

/* A copy of A's arrays as they are, valid or not (to check that a call left
 * an invalid operand untouched; hsp_csr_convert refuses such a matrix). */
hsp_csr *ref_copy(const hsp_csr *A);

/* 1 when A and B are the same matrix bit for bit (shape, pattern, values). */
int ref_identical(const hsp_csr *A, const hsp_csr *B);

/* The device under test: $HSPGEMM_TEST_DEVICE, default cpu. */
const char *ref_device(void);
/* Does this run do part (1, 2, ...) of a test program split into parts?
 * $HSPGEMM_TEST_SHARD=k/n runs the parts p with p % n == k % n, so that n
 * runs at once (make -j) share a slow device's tests; without it, all. */
int ref_shard(int part);
/* A context on the device under test (default options), or NULL (the
 * reason in hsp_errmsg()). */
hsp_context *ref_context(void);

/* A random nrows x ncols matrix with, per row, a length drawn from
 * [minrow, maxrow] (capped at ncols), distinct sorted columns and values in
 * [-1, 1).  Deterministic for seed. */
hsp_csr *ref_random(int32_t nrows, int32_t ncols, int32_t minrow, int32_t maxrow,
                    hsp_precision precision, uint64_t seed);

/* A nrows x ncols of random rows of 0 to 12 entries (ref_random's, seed 7)
 * but row 3, full, and row 7, every fifth column: on a GPU, past 64
 * entries, rows of several pieces and of one (kernels/spmm.cl). */
hsp_csr *ref_long_rows(int32_t nrows, int32_t ncols, hsp_precision precision);

/* A symmetric matrix of precision p from the off-diagonal entries of B (square, double): each
 * b_ij gives -(|b_ij| + add) at (i, j) and (j, i) (with odd, every entry k % 5 == 3 gives
 * +(|b_ij| + add) / 4 instead, and rows i % 17 == 5 keep their diagonal alone), the diagonal
 * the sum of its row's |couplings| + shift: symmetric positive definite for shift > 0, an
 * M-matrix without odd.  B is freed. */
hsp_csr *ref_spd_of(hsp_csr *B, double add, double shift, int odd, hsp_precision p);

/* A x = b (A square, dense enough to store) by Gaussian elimination with
 * partial pivoting: the AMG tests' coarsest-level reference. */
void ref_dense_solve(const hsp_csr *A, const double *b, double *x);

#endif
