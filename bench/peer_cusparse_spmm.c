/* peer_cusparse_spmm.c: the cuSPARSE peer's SpMM (peer_cusparse --spmm=L):
 * C = A X for a dense X of L columns (row-major, or column-major with
 * --layout=col, C likewise) by cusparseSpMM, with each
 * CSR algorithm cuSPARSE offers for the shape, device-only, then host to
 * host with the fastest: X uploaded and C downloaded each run, A kept on
 * the device as a prepared A is; from pageable host memory (ms), and from
 * the same memory pinned by cudaHostRegister, untimed (ms_pinned). */
#define DISABLE_CUSPARSE_DEPRECATED
#include <stdio.h>
#include <stdlib.h>
#include "peer_cusparse.h"

static const struct {
    cusparseSpMMAlg_t alg;
    const char *name;
} algs[] = {{CUSPARSE_SPMM_ALG_DEFAULT, "default"},
            {CUSPARSE_SPMM_CSR_ALG1, "csr_alg1"},
            {CUSPARSE_SPMM_CSR_ALG2, "csr_alg2"},
            {CUSPARSE_SPMM_CSR_ALG3, "csr_alg3"}};
enum { NALGS = sizeof algs / sizeof algs[0] };

/* The product's handle, descriptors and device arrays. */
typedef struct {
    cusparseHandle_t handle;
    cudaDataType type;
    const void *one, *zero;
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t x, c;
    void *dx, *dc, *buf;
    size_t x_bytes, c_bytes;
} spmm;

/* One product by alg, its work buffer in s->buf. */
static cusparseStatus_t multiply(const spmm *s, cusparseSpMMAlg_t alg)
{
    const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
    return cusparseSpMM(s->handle, n, n, s->one, s->a, s->x, s->zero, s->c, s->type, alg, s->buf);
}

/* The work buffer for alg and its preprocessing (untimed, as a user repeating the product
 * calls it); 0, or the status where cuSPARSE refuses alg for this shape. */
static cusparseStatus_t prepare(spmm *s, cusparseSpMMAlg_t alg)
{
    const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t size = 0;
    cusparseStatus_t st = cusparseSpMM_bufferSize(s->handle, n, n, s->one, s->a, s->x, s->zero, s->c, s->type, alg, &size);
    if (st != CUSPARSE_STATUS_SUCCESS) return st;
    dev_free(s->buf);
    s->buf = dev_alloc(size, "cudaMalloc(SpMM buffer)");
    cusparseSpMM_preprocess(s->handle, n, n, s->one, s->a, s->x, s->zero, s->c, s->type, alg, s->buf); /* where
                                                                     alg has it: else the product says */
    return multiply(s, alg);
}

/* Device-only runs of alg into ms after untimed ones (PEER_WARM_MS); 0 where cuSPARSE refused it. */
static int time_device(spmm *s, cusparseSpMMAlg_t alg, int repeat, double *ms)
{
    if (prepare(s, alg) != CUSPARSE_STATUS_SUCCESS) return 0;
    double warm = 0;
    for (int k = 0; k < PEER_WARM_RUNS && warm < PEER_WARM_MS; k++) {
        double t0 = synced_ms();
        sparse_ok(multiply(s, alg), "cusparseSpMM");
        warm += synced_ms() - t0;
    }
    for (int k = 0; k < repeat; k++) {
        double t0 = synced_ms();
        sparse_ok(multiply(s, alg), "cusparseSpMM");
        ms[k] = synced_ms() - t0;
    }
    return 1;
}

/* Host-to-host runs of alg into ms, after one untimed: X up, the product, C down. */
static void time_host(spmm *s, cusparseSpMMAlg_t alg, const void *x, void *c, int repeat, double *ms)
{
    sparse_ok(prepare(s, alg), "cusparseSpMM_preprocess");
    for (int k = 0; k <= repeat; k++) {
        double t0 = synced_ms();
        to_device(s->dx, x, s->x_bytes, "cudaMemcpy(X) to the device");
        sparse_ok(multiply(s, alg), "cusparseSpMM");
        to_host(c, s->dc, s->c_bytes, "cudaMemcpy(C) to the host");
        if (k) ms[k - 1] = synced_ms() - t0;
    }
}

int cusparse_spmm(const peer_args *a, const hsp_csr *A)
{
    int L = a->spmm_cols, repeat = a->repeat, dbl = A->precision == HSP_DOUBLE, best = -1, version = 0;
    static const double d1 = 1, d0 = 0;
    static const float f1 = 1, f0 = 0;
    size_t vs = dbl ? sizeof(double) : sizeof(float);
    spmm s = {.type = dbl ? CUDA_R_64F : CUDA_R_32F, .one = dbl ? (const void *)&d1 : &f1, .zero = dbl ? (const void *)&d0 : &f0};
    csr32 h = narrow(A, "A"), d;
    void *x = peer_dense(A->ncols, L, A->precision), *c = peer_dense(A->nrows, L, A->precision);
    double *ms = malloc((size_t)(NALGS + 2) * (size_t)repeat * sizeof *ms), median[NALGS];
    if (!x || !c || !ms) return peer_fail("out of memory", NULL);
    sparse_ok(cusparseCreate(&s.handle), "cusparseCreate");
    sparse_ok(cusparseGetVersion(s.handle, &version), "cusparseGetVersion");
    d = upload(&h, vs);
    s.x_bytes = (size_t)A->ncols * (size_t)L * vs, s.c_bytes = (size_t)A->nrows * (size_t)L * vs;
    s.dx = dev_alloc(s.x_bytes, "cudaMalloc(X)"), s.dc = dev_alloc(s.c_bytes, "cudaMalloc(C)");
    to_device(s.dx, x, s.x_bytes, "cudaMemcpy(X) to the device");
    s.a = describe(&d, s.type);
    cusparseOrder_t order = a->col_major ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
    int64_t ldx = a->col_major ? A->ncols : L, ldc = a->col_major ? A->nrows : L;
    sparse_ok(cusparseCreateDnMat(&s.x, A->ncols, L, ldx, s.dx, s.type, order), "cusparseCreateDnMat");
    sparse_ok(cusparseCreateDnMat(&s.c, A->nrows, L, ldc, s.dc, s.type, order), "cusparseCreateDnMat");
    for (int k = 0; k < NALGS; k++) {
        double *t = ms + (size_t)(k + 1) * (size_t)repeat;
        median[k] = time_device(&s, algs[k].alg, repeat, t) ? peer_median(t, repeat) : -1;
        if (median[k] >= 0 && (best < 0 || median[k] < median[best])) best = k;
    }
    if (best < 0) return peer_fail("cusparseSpMM", "no CSR algorithm takes this product");
    time_host(&s, algs[best].alg, x, c, repeat, ms);
    double *pinned = ms + (size_t)(NALGS + 1) * (size_t)repeat; /* host, each algorithm, then these */
    cuda_ok(cudaHostRegister(x, s.x_bytes, cudaHostRegisterDefault), "cudaHostRegister(X)");
    cuda_ok(cudaHostRegister(c, s.c_bytes, cudaHostRegisterDefault), "cudaHostRegister(C)");
    time_host(&s, algs[best].alg, x, c, repeat, pinned);
    cuda_ok(cudaHostUnregister(x), "cudaHostUnregister(X)"), cuda_ok(cudaHostUnregister(c), "cudaHostUnregister(C)");
    printf("{\"peer\":\"cusparse\",\"version\":\"%d.%d.%d\",\"threads\":1,\"precision\":\"%s\",\"runs\":%d,"
           "\"spmm_cols\":%d,\"layout\":\"%s\",\"alg\":\"%s\",\"alg_ms\":{",
           version / 1000, version % 1000 / 100, version % 100, dbl ? "double" : "float", repeat, L,
           a->col_major ? "col" : "row", algs[best].name);
    for (int k = 0, first = 1; k < NALGS; k++)
        if (median[k] >= 0) printf("%s\"%s\":%.4f", first ? "" : ",", algs[k].name, median[k]), first = 0;
    printf("}");
    peer_print_times("ms", ms, repeat);
    peer_print_times("ms_device", ms + (size_t)(best + 1) * (size_t)repeat, repeat);
    peer_print_times("ms_pinned", pinned, repeat);
    printf(",\"nnz_c\":%lld}\n", (long long)A->nrows * L);
    cusparseDestroySpMat(s.a), cusparseDestroyDnMat(s.x), cusparseDestroyDnMat(s.c);
    dev_free(s.buf), dev_free(s.dx), dev_free(s.dc), free_device(&d);
    sparse_ok(cusparseDestroy(s.handle), "cusparseDestroy");
    free(x), free(c), free(ms), free(h.rowptr);
    return 0;
}
