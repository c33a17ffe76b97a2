/* peer_mkl.c: the Intel oneMKL peer of `hspgemm bench`: times C = A*B, or
 * the Galerkin product C = R*A*P as two products, with mkl_sparse_sp2m (the
 * whole product in one call, SPARSE_STAGE_FULL_MULT, on MKL's threads) and
 * prints one JSON line.  MKL leaves the columns of C's rows in any order:
 * ms_median holds no sorting; ms_sorted_median is the same runs with
 * mkl_sparse_order after the product, for C as hspgemm gives it.  With
 * --spmm=L it times C = A X for a dense X of L columns (row-major, or
 * column-major with --layout=col, C likewise) with mkl_sparse_?_mm, after
 * MKL's inspector (mm hint and optimize, untimed, as a user repeating the
 * product would). */
#include <mkl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "hspgemm.h"
#include "peer.h"

static const char usage[] =
    "usage: peer_mkl [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]\n"
    "       peer_mkl [same options] --rap=r-ap|ra-p R.mtx A.mtx P.mtx\n"
    "       peer_mkl [same options] --spmm=L [--layout=row|col] A.mtx\n"
    "Times C = A*B (B = A when absent), or C = R*A*P as R*(A*P) (r-ap) or (R*A)*P (ra-p), with\n"
    "mkl_sparse_sp2m, or C = A X for a dense X of L columns (row-major, or\n"
    "column-major with --layout=col; C the same) with mkl_sparse_?_mm,\n"
    "after untimed runs for 50 ms (at least one) and prints\n"
    "{\"peer\":\"mkl\",...,\"ms_median\":...,\"ms_min\":...,\"nnz_c\":...} (and \"order\" with --rap).\n";

/* An MKL handle over a CSR matrix, whose row pointers it copies into MKL_INT
 * (into *rows, freed by the caller after the handle). */
static sparse_status_t to_mkl(const hsp_csr *A, MKL_INT **rows, sparse_matrix_t *M)
{
    *rows = malloc(((size_t)A->nrows + 1) * sizeof **rows);
    if (!*rows) return SPARSE_STATUS_ALLOC_FAILED;
    for (int32_t i = 0; i <= A->nrows; i++) (*rows)[i] = (MKL_INT)A->rowptr[i];
    MKL_INT *cols = (MKL_INT *)A->colidx; /* MKL_INT is int in the LP64 interface */
    return A->precision == HSP_DOUBLE
               ? mkl_sparse_d_create_csr(M, SPARSE_INDEX_BASE_ZERO, A->nrows, A->ncols, *rows, *rows + 1, cols,
                                         A->values)
               : mkl_sparse_s_create_csr(M, SPARSE_INDEX_BASE_ZERO, A->nrows, A->ncols, *rows, *rows + 1, cols,
                                         A->values);
}

/* *C = X*Y, the whole product. */
static sparse_status_t product(sparse_matrix_t X, sparse_matrix_t Y, sparse_matrix_t *C)
{
    struct matrix_descr general = {.type = SPARSE_MATRIX_TYPE_GENERAL};
    return mkl_sparse_sp2m(SPARSE_OPERATION_NON_TRANSPOSE, general, X, SPARSE_OPERATION_NON_TRANSPOSE, general, Y,
                           SPARSE_STAGE_FULL_MULT, C);
}

/* The entries of C. */
static long long entries(sparse_matrix_t C, hsp_precision precision)
{
    sparse_index_base_t base;
    MKL_INT m, n, *start, *end, *cols;
    void *values;
    sparse_status_t s = precision == HSP_DOUBLE
                            ? mkl_sparse_d_export_csr(C, &base, &m, &n, &start, &end, &cols, (double **)&values)
                            : mkl_sparse_s_export_csr(C, &base, &m, &n, &start, &end, &cols, (float **)&values);
    if (s != SPARSE_STATUS_SUCCESS) return -1;
    return m ? (long long)end[m - 1] - base : 0;
}

/* One timed run of C = A*B over M = {A, B}, or of C = R*A*P over M = {R, A, P} in a->order; its time
 * in *ms, and with C's rows sorted after in *sorted_ms, and nnz(C) in *nnz.  The intermediate is made
 * and freed inside the clock, as C's memory. */
static sparse_status_t time_product(sparse_matrix_t *M, const peer_args *a, double *ms, double *sorted_ms,
                                    long long *nnz)
{
    sparse_matrix_t C = NULL, T = NULL, X = M[0], Y = M[1];
    sparse_status_t s = SPARSE_STATUS_SUCCESS;
    double t0 = peer_now_ms();
    if (a->order != PEER_AB) { /* the first product: T = A*P (r-ap) or R*A (ra-p) */
        int r_ap = a->order == PEER_R_AP;
        s = product(M[r_ap], M[r_ap + 1], &T);
        X = r_ap ? M[0] : T, Y = r_ap ? T : M[2];
    }
    if (s == SPARSE_STATUS_SUCCESS) s = product(X, Y, &C);
    if (T) mkl_sparse_destroy(T);
    *ms = peer_now_ms() - t0;
    if (s == SPARSE_STATUS_SUCCESS) s = mkl_sparse_order(C);
    *sorted_ms = peer_now_ms() - t0;
    if (s == SPARSE_STATUS_SUCCESS) *nnz = entries(C, a->precision);
    if (C) mkl_sparse_destroy(C);
    return s;
}

/* C = A X by mkl_sparse_?_mm, with A's hint and layout as time_spmm gives them. */
static sparse_status_t spmm_once(sparse_matrix_t A, int dbl, sparse_layout_t layout, const void *X, int L,
                                 MKL_INT ldx, void *C, MKL_INT ldc)
{
    struct matrix_descr general = {.type = SPARSE_MATRIX_TYPE_GENERAL};
    return dbl ? mkl_sparse_d_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1, A, general, layout, X, L, ldx, 0, C, ldc)
               : mkl_sparse_s_mm(SPARSE_OPERATION_NON_TRANSPOSE, 1, A, general, layout, X, L, ldx, 0, C, ldc);
}

/* C = A X, repeat times into ms after the warm-up (peer_warming), after
 * MKL's inspector for that product; X and C of L columns, row-major or
 * (col) column-major, packed. */
static sparse_status_t time_spmm(sparse_matrix_t A, const hsp_csr *F, int L, int col, int repeat, double *ms)
{
    struct matrix_descr general = {.type = SPARSE_MATRIX_TYPE_GENERAL};
    int dbl = F->precision == HSP_DOUBLE;
    sparse_layout_t layout = col ? SPARSE_LAYOUT_COLUMN_MAJOR : SPARSE_LAYOUT_ROW_MAJOR;
    MKL_INT ldx = col ? F->ncols : L, ldc = col ? F->nrows : L;
    void *X = peer_dense(F->ncols, L, F->precision), *C = peer_dense(F->nrows, L, F->precision);
    sparse_status_t s = X && C ? SPARSE_STATUS_SUCCESS : SPARSE_STATUS_ALLOC_FAILED;
    if (s == SPARSE_STATUS_SUCCESS)
        s = mkl_sparse_set_mm_hint(A, SPARSE_OPERATION_NON_TRANSPOSE, general, layout, L, repeat + 1);
    if (s == SPARSE_STATUS_SUCCESS || s == SPARSE_STATUS_NOT_SUPPORTED) s = mkl_sparse_optimize(A);
    double start = peer_now_ms();
    for (int n = 0; s == SPARSE_STATUS_SUCCESS && peer_warming(start, n); n++)
        s = spmm_once(A, dbl, layout, X, L, ldx, C, ldc);
    for (int k = 0; s == SPARSE_STATUS_SUCCESS && k < repeat; k++) {
        double t0 = peer_now_ms();
        s = spmm_once(A, dbl, layout, X, L, ldx, C, ldc);
        ms[k] = peer_now_ms() - t0;
    }
    free(X), free(C);
    return s;
}

/* --version: the oneMKL this peer runs with. */
static int print_version(void)
{
    MKLVersion v;
    mkl_get_version(&v);
    printf("{\"peer\":\"mkl\",\"version\":\"%d.%d.%d\"}\n", v.MajorVersion, v.MinorVersion, v.UpdateVersion);
    return 0;
}

int main(int argc, char **argv)
{
    peer_args args = {.name = "peer_mkl", .usage = usage, .threads = (int)sysconf(_SC_NPROCESSORS_ONLN), .repeat = 3,
                      .precision = HSP_DOUBLE};
    int rc;
    if ((rc = peer_parse(argc, argv, &args)) == PEER_VERSION) return print_version();
    if (rc) return rc == -1 ? 0 : 2;
    int repeat = args.repeat, n = args.nfactors;
    hsp_csr *F[3];
    if (peer_read(&args, F)) return 1;
    mkl_set_num_threads(args.threads);
    sparse_matrix_t M[3] = {NULL, NULL, NULL};
    MKL_INT *rows[3] = {NULL, NULL, NULL};
    sparse_status_t s = SPARSE_STATUS_SUCCESS;
    for (int k = 0; s == SPARSE_STATUS_SUCCESS && k < n; k++)
        s = peer_shared(F, k) ? (M[k] = M[k - 1], SPARSE_STATUS_SUCCESS) : to_mkl(F[k], &rows[k], &M[k]);
    double *ms = malloc((size_t)repeat * sizeof *ms), *sorted = malloc((size_t)repeat * sizeof *ms), untimed[2];
    long long nnz = args.spmm_cols ? (long long)F[0]->nrows * args.spmm_cols : 0; /* C's entries */
    if (s == SPARSE_STATUS_SUCCESS && ms && sorted && args.spmm_cols)
        s = time_spmm(M[0], F[0], args.spmm_cols, args.col_major, repeat, ms);
    double start = peer_now_ms();
    for (int k = 0; s == SPARSE_STATUS_SUCCESS && ms && sorted && !args.spmm_cols && peer_warming(start, k); k++)
        s = time_product(M, &args, &untimed[0], &untimed[1], &nnz);
    for (int k = 0; s == SPARSE_STATUS_SUCCESS && ms && sorted && !args.spmm_cols && k < repeat; k++)
        s = time_product(M, &args, &ms[k], &sorted[k], &nnz);
    if (s != SPARSE_STATUS_SUCCESS || !ms || !sorted || nnz < 0) return peer_fail("MKL error", NULL);
    MKLVersion v;
    mkl_get_version(&v);
    printf("{\"peer\":\"mkl\",\"version\":\"%d.%d.%d\",\"threads\":%d,\"precision\":\"%s\"%s,\"runs\":%d",
           v.MajorVersion, v.MinorVersion, v.UpdateVersion, args.threads,
           args.precision == HSP_DOUBLE ? "double" : "float", peer_order_json(&args), repeat);
    if (args.spmm_cols) printf(",\"spmm_cols\":%d,\"layout\":\"%s\"", args.spmm_cols, args.col_major ? "col" : "row");
    peer_print_times("ms", ms, repeat);
    if (!args.spmm_cols) peer_print_times("ms_sorted", sorted, repeat);
    printf(",\"nnz_c\":%lld}\n", nnz);
    free(ms), free(sorted);
    for (int k = 0; k < n; k++)
        if (!peer_shared(F, k)) mkl_sparse_destroy(M[k]), free(rows[k]);
    mkl_free_buffers(); /* MKL's own memory, so that a leak checker sees none */
    peer_free(&args, F);
    return 0;
}
