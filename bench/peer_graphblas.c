/* peer_graphblas.c: the SuiteSparse:GraphBLAS peer of `hspgemm bench`: times
 * C = A*B with GrB_mxm (PLUS_TIMES, matrices held by row) followed by
 * GrB_Matrix_wait, so that C is complete, and prints one JSON line. */
#include <GraphBLAS.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hspgemm.h"

static const char usage[] =
    "usage: peer_graphblas [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]\n"
    "Times C = A*B (B = A when absent) with GrB_mxm + GrB_Matrix_wait after one warm-up and\n"
    "prints {\"peer\":\"graphblas\",...,\"ms_median\":...,\"ms_min\":...,\"nnz_c\":...}.\n";

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "peer_graphblas: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

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
    double t0 = now_ms();
    info = GrB_mxm(C, NULL, NULL, semiring, A, B, NULL);
    if (info == GrB_SUCCESS) info = GrB_Matrix_wait(C, GrB_MATERIALIZE);
    *ms = now_ms() - t0;
    if (info == GrB_SUCCESS) info = GrB_Matrix_nvals(nvals, C);
    GrB_Matrix_free(&C);
    return info;
}

static int compare_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Options: --threads=N --repeat=R --precision=P and one or two files. */
static int parse(int argc, char **argv, int *threads, int *repeat, hsp_precision *p, const char **file)
{
    int nfiles = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "--help")) return fputs(usage, stdout), -1;
        if (!strncmp(a, "--threads=", 10)) *threads = atoi(a + 10);
        else if (!strncmp(a, "--repeat=", 9)) *repeat = atoi(a + 9);
        else if (!strcmp(a, "--precision=float")) *p = HSP_FLOAT;
        else if (!strcmp(a, "--precision=double")) *p = HSP_DOUBLE;
        else if (a[0] != '-' && nfiles < 2) file[nfiles++] = a;
        else return fprintf(stderr, "peer_graphblas: bad argument '%s'\n%s", a, usage), -2;
    }
    if (!nfiles || *threads < 1 || *repeat < 1 || *repeat > 1000)
        return fprintf(stderr, "%s", usage), -2;
    if (nfiles == 1) file[1] = file[0];
    return 0;
}

int main(int argc, char **argv)
{
    int threads = (int)sysconf(_SC_NPROCESSORS_ONLN), repeat = 3, rc;
    hsp_precision prec = HSP_DOUBLE;
    const char *file[2];
    if ((rc = parse(argc, argv, &threads, &repeat, &prec, file))) return rc == -1 ? 0 : 2;
    hsp_csr *A = NULL, *B = NULL;
    hsp_status s = hsp_mm_read(file[0], prec, 0, &A);
    if (s == HSP_OK) s = file[1] == file[0] ? HSP_OK : hsp_mm_read(file[1], prec, 0, &B);
    if (s != HSP_OK) return fail(hsp_strerror(s), hsp_errmsg());
    if (!B) B = A;
    if (A->ncols != B->nrows) return fail("shape mismatch", NULL);
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
    if (info != GrB_SUCCESS || !ms) return fail("GraphBLAS error", NULL);
    qsort(ms + 1, (size_t)repeat, sizeof *ms, compare_double);
    double median = repeat % 2 ? ms[1 + repeat / 2] : (ms[repeat / 2] + ms[1 + repeat / 2]) / 2;
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
