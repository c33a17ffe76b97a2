/* peer_graphblas.c: the SuiteSparse:GraphBLAS peer of `hspgemm bench`: times
 * C = A*B with GrB_mxm (PLUS_TIMES, matrices held by row) followed by
 * GrB_Matrix_wait, so that C is complete, and prints one JSON line. */
#include <GraphBLAS.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hspgemm.h"
#include "peer.h"

static const char usage[] =
    "usage: peer_graphblas [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]\n"
    "Times C = A*B (B = A when absent) with GrB_mxm + GrB_Matrix_wait after one warm-up and\n"
    "prints {\"peer\":\"graphblas\",...,\"ms_median\":...,\"ms_min\":...,\"nnz_c\":...}.\n";



/* A GraphBLAS copy of a CSR matrix (built from its triplets). */
static GrB_Info to_graphblas(const hsp_csr *A, GrB_Matrix *G)
{
    GrB_Type type = A->precision == HSP_DOUBLE ? GrB_FP64 : GrB_FP32;
    GrB_Index *I = malloc((size_t)(A->nnz + 1) * sizeof *I), *J = malloc((size_t)(A->nnz + 1) * sizeof *J);
    GrB_Info info = I && J ? GrB_Matrix_new(G, type, (GrB_Index)A->nrows, (GrB_Index)A->ncols)
                           : GrB_OUT_OF_MEMORY;
    for (int32_t i = 0; info == GrB_SUCCESS && i < A->nrows; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            I[k] = (GrB_Index)i, J[k] = (GrB_Index)A->colidx[k];
    if (info == GrB_SUCCESS)
        info = A->precision == HSP_DOUBLE
                   ? GrB_Matrix_build_FP64(*G, I, J, A->values, (GrB_Index)A->nnz, GrB_PLUS_FP64)
                   : GrB_Matrix_build_FP32(*G, I, J, A->values, (GrB_Index)A->nnz, GrB_PLUS_FP32);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(*G, GrB_MATERIALIZE);
    free(I), free(J);
    return info;
}

/* One timed product; its time in *ms and nnz(C) in *nvals. */
static GrB_Info time_product(GrB_Matrix A, GrB_Matrix B, GrB_Type type, double *ms, GrB_Index *nvals)
{
    GrB_Matrix C;
    GrB_Index m, n;
    GrB_Matrix_nrows(&m, A);
    GrB_Matrix_ncols(&n, B);
    GrB_Info info = GrB_Matrix_new(&C, type, m, n);
    if (info != GrB_SUCCESS) return info;
    GrB_Semiring semiring = type == GrB_FP64 ? GrB_PLUS_TIMES_SEMIRING_FP64 : GrB_PLUS_TIMES_SEMIRING_FP32;
    double t0 = peer_now_ms();
    info = GrB_mxm(C, NULL, NULL, semiring, A, B, NULL);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(C, GrB_MATERIALIZE);
    *ms = peer_now_ms() - t0;
    if (info == GrB_SUCCESS) info = GrB_Matrix_nvals(nvals, C);
    GrB_Matrix_free(&C);
    return info;
}



int main(int argc, char **argv)
{
    peer_args args = {"peer_graphblas", usage, (int)sysconf(_SC_NPROCESSORS_ONLN), 3, HSP_DOUBLE, {NULL, NULL}};
    int rc;
    if ((rc = peer_parse(argc, argv, &args))) return rc == -1 ? 0 : 2;
    int threads = args.threads, repeat = args.repeat;
    hsp_precision prec = args.precision;
    hsp_csr *A, *B;
    if (peer_read(&args, &A, &B)) return 1;
    GrB_Matrix GA, GB;
    GrB_Type type = prec == HSP_DOUBLE ? GrB_FP64 : GrB_FP32;
    GrB_Info info = GrB_init(GrB_NONBLOCKING);
    if (info == GrB_SUCCESS) info = GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW);
    if (info == GrB_SUCCESS) info = GxB_Global_Option_set(GxB_NTHREADS, threads);
    if (info == GrB_SUCCESS) info = to_graphblas(A, &GA);
    if (info == GrB_SUCCESS) info = B == A ? (GB = GA, GrB_SUCCESS) : to_graphblas(B, &GB);
    double *ms = malloc((size_t)(repeat + 1) * sizeof *ms);
    GrB_Index nvals = 0;
    for (int k = 0; info == GrB_SUCCESS && ms && k <= repeat; k++) /* run 0 is the warm-up */
        info = time_product(GA, GB, type, &ms[k], &nvals);
    if (info != GrB_SUCCESS || !ms) return peer_fail("GraphBLAS error", NULL);
    double median = peer_median(ms + 1, repeat); /* ms[0] was the warm-up */
    printf("{\"peer\":\"graphblas\",\"version\":\"%d.%d.%d\",\"threads\":%d,\"precision\":\"%s\","
           "\"runs\":%d,\"ms_median\":%.4f,\"ms_min\":%.4f,\"nnz_c\":%llu}\n",
           GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, threads,
           prec == HSP_DOUBLE ? "double" : "float", repeat, median, ms[1], (unsigned long long)nvals);
    free(ms);
    if (GB != GA) GrB_Matrix_free(&GB);
    GrB_Matrix_free(&GA);
    GrB_finalize();
    if (B != A) hsp_csr_free(B);
    hsp_csr_free(A);
    return 0;
}
