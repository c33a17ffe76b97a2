/* peer_graphblas.c: the SuiteSparse:GraphBLAS peer of `hspgemm bench`: times
 * C = A*B, or the Galerkin product C = R*A*P as two products, with GrB_mxm
 * (PLUS_TIMES, matrices held by row) followed by GrB_Matrix_wait, so that C is
 * complete, and prints one JSON line. */
#include <GraphBLAS.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hspgemm.h"
#include "peer.h"

static const char usage[] =
    "usage: peer_graphblas [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]\n"
    "       peer_graphblas [same options] --rap=r-ap|ra-p R.mtx A.mtx P.mtx\n"
    "Times C = A*B (B = A when absent), or C = R*A*P as R*(A*P) (r-ap) or (R*A)*P (ra-p), with\n"
    "GrB_mxm + GrB_Matrix_wait after untimed runs for 50 ms (at least one) and prints\n"
    "{\"peer\":\"graphblas\",...,\"ms_median\":...,\"ms_min\":...,\"nnz_c\":...} (and \"order\" with --rap).\n";

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

/* A new empty matrix of type with the rows of X and the columns of Y, to hold X*Y. */
static GrB_Info new_product(GrB_Matrix *Z, GrB_Matrix X, GrB_Matrix Y, GrB_Type type)
{
    GrB_Index m, n;
    GrB_Matrix_nrows(&m, X);
    GrB_Matrix_ncols(&n, Y);
    return GrB_Matrix_new(Z, type, m, n);
}

/* One timed run of C = A*B over G = {A, B}, or of C = R*A*P over G = {R, A, P} as two products in
 * a->order; its time in *ms and nnz(C) in *nvals.  C is made before the clock starts; the
 * intermediate is made and freed inside it, as a call returning R*A*P must. */
static GrB_Info time_product(GrB_Matrix *G, const peer_args *a, GrB_Type type, double *ms, GrB_Index *nvals)
{
    GrB_Matrix C, T = NULL, X = G[0], Y = G[1]; /* the last product is C = X*Y */
    GrB_Info info = new_product(&C, G[0], G[a->nfactors - 1], type);
    if (info != GrB_SUCCESS) return info;
    GrB_Semiring semiring = type == GrB_FP64 ? GrB_PLUS_TIMES_SEMIRING_FP64 : GrB_PLUS_TIMES_SEMIRING_FP32;
    double t0 = peer_now_ms();
    if (a->order != PEER_AB) { /* the first product: T = A*P (r-ap) or R*A (ra-p) */
        int r_ap = a->order == PEER_R_AP;
        info = new_product(&T, G[r_ap], G[r_ap + 1], type);
        if (info == GrB_SUCCESS) info = GrB_mxm(T, NULL, NULL, semiring, G[r_ap], G[r_ap + 1], NULL);
        X = r_ap ? G[0] : T, Y = r_ap ? T : G[2];
    }
    if (info == GrB_SUCCESS) info = GrB_mxm(C, NULL, NULL, semiring, X, Y, NULL);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(C, GrB_MATERIALIZE);
    GrB_Matrix_free(&T);
    *ms = peer_now_ms() - t0;
    if (info == GrB_SUCCESS) info = GrB_Matrix_nvals(nvals, C);
    GrB_Matrix_free(&C);
    return info;
}

/* --version: the GraphBLAS this peer is built with. */
static int print_version(void)
{
    printf("{\"peer\":\"graphblas\",\"version\":\"%d.%d.%d\"}\n", GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR,
           GxB_IMPLEMENTATION_SUB);
    return 0;
}

int main(int argc, char **argv)
{
    peer_args args = {.name = "peer_graphblas", .usage = usage, .spmm_cols = -1, .threads = (int)sysconf(_SC_NPROCESSORS_ONLN),
                      .repeat = 3, .precision = HSP_DOUBLE};
    int rc;
    if ((rc = peer_parse(argc, argv, &args)) == PEER_VERSION) return print_version();
    if (rc) return rc == -1 ? 0 : 2;
    int threads = args.threads, repeat = args.repeat, n = args.nfactors;
    hsp_precision prec = args.precision;
    hsp_csr *M[3];
    if (peer_read(&args, M)) return 1;
    GrB_Matrix G[3];
    GrB_Type type = prec == HSP_DOUBLE ? GrB_FP64 : GrB_FP32;
    GrB_Info info = GrB_init(GrB_NONBLOCKING);
    if (info == GrB_SUCCESS) info = GxB_Global_Option_set(GxB_FORMAT, GxB_BY_ROW);
    if (info == GrB_SUCCESS) info = GxB_Global_Option_set(GxB_NTHREADS, threads);
    for (int k = 0; info == GrB_SUCCESS && k < n; k++)
        info = peer_shared(M, k) ? (G[k] = G[k - 1], GrB_SUCCESS) : to_graphblas(M[k], &G[k]);
    double *ms = malloc((size_t)repeat * sizeof *ms), untimed, start = peer_now_ms();
    GrB_Index nvals = 0;
    for (int k = 0; info == GrB_SUCCESS && ms && peer_warming(start, k); k++)
        info = time_product(G, &args, type, &untimed, &nvals);
    for (int k = 0; info == GrB_SUCCESS && ms && k < repeat; k++) info = time_product(G, &args, type, &ms[k], &nvals);
    if (info != GrB_SUCCESS || !ms) return peer_fail("GraphBLAS error", NULL);
    printf("{\"peer\":\"graphblas\",\"version\":\"%d.%d.%d\",\"threads\":%d,\"precision\":\"%s\"%s,\"runs\":%d",
           GxB_IMPLEMENTATION_MAJOR, GxB_IMPLEMENTATION_MINOR, GxB_IMPLEMENTATION_SUB, threads,
           prec == HSP_DOUBLE ? "double" : "float", peer_order_json(&args), repeat);
    peer_print_times("ms", ms, repeat);
    printf(",\"nnz_c\":%llu}\n", (unsigned long long)nvals);
    free(ms);
    for (int k = 0; k < n; k++)
        if (!peer_shared(M, k)) GrB_Matrix_free(&G[k]);
    GrB_finalize();
    peer_free(&args, M);
    return 0;
}
