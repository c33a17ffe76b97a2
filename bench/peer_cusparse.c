/* peer_cusparse.c: the NVIDIA cuSPARSE peer of `hspgemm bench`: times C = A*B
 * (and, with --spmm, C = A X: peer_cusparse_spmm.c; the CUDA calls both
 * make: peer_cuda.c),
 * or the Galerkin product C = R*A*P as two products, with the generic SpGEMM API
 * (work estimation, compute, copy) on GPU 0, once from host CSR to host CSR
 * (transfers included) and with the factors already on the device, there with
 * C and the work buffers from a memory pool (as a user keeps one) and from
 * cudaMalloc, and prints one JSON line. */
#define DISABLE_CUSPARSE_DEPRECATED /* else gcc warns about the header's own deprecated types */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hspgemm.h"
#include "peer.h"
#include "peer_cusparse.h"

static const char usage[] =
    "usage: peer_cusparse [--threads=N] [--repeat=R] [--precision=float|double] A.mtx [B.mtx]\n"
    "       peer_cusparse [same options] --rap=r-ap|ra-p R.mtx A.mtx P.mtx\n"
    "       peer_cusparse [same options] --spmm=L [--layout=row|col] A.mtx\n"
    "Times C = A*B (B = A when absent), or C = R*A*P as R*(A*P) (r-ap) or (R*A)*P (ra-p), with\n"
    "cuSPARSE SpGEMM on GPU 0 after a warm-up: from host CSR to host CSR (uploads, products,\n"
    "download, frees) and with the factors already on the device (products only, after untimed\n"
    "ones for 50 ms, at most 100): ms_device with\n"
    "C and the work buffers from a memory pool that keeps freed memory (cudaMallocAsync), as a\n"
    "user who multiplies again keeps one; ms_device_nopool with each from cudaMalloc.  --threads\n"
    "is accepted and ignored (the work runs on the GPU).  Prints {\"peer\":\"cusparse\",...,\n"
    "\"ms_median\":...,\"ms_min\":...,\"ms_device_median\":...,\"ms_device_nopool_median\":...,\n"
    "\"nnz_c\":...,\"peak_device_bytes\":...} (and \"order\" with --rap).\n"
    "With --spmm=L: C = A X for a dense X of L columns (row-major, or column-major with\n"
    "--layout=col, C likewise) by cusparseSpMM, every CSR\n"
    "algorithm it has (default, csr_alg1, csr_alg2, csr_alg3; those it refuses for the shape left\n"
    "out), A, X and C on the device, each after its preprocessing (untimed); ms_device is the\n"
    "fastest algorithm's, and ms (host to host) that algorithm's with X uploaded and C\n"
    "downloaded each run (A on the device, as a prepared A is; the device arrays kept), from\n"
    "pageable host memory, and as ms_pinned from the same memory pinned (cudaHostRegister).\n";

/* What every product shares: the handle, the value type and alpha = 1, beta = 0 in it; the
 * number of factors of C and the order they are multiplied in. */
typedef struct {
    cusparseHandle_t handle;
    cudaDataType type;
    size_t vsize;
    const void *one, *zero;
    int nfactors;
    peer_order order;
} gemm;

/* The descriptors of one product. */
typedef struct {
    cusparseSpMatDescr_t a, b, c;
    cusparseSpGEMMDescr_t s;
} spgemm_descr;


/* Copy the device matrix d into the host arrays of h, which has room for it. */
static void download(const csr32 *d, csr32 *h, size_t vsize)
{
    size_t nz = (size_t)d->nnz;
    to_host(h->rowptr, d->rowptr, ((size_t)d->nrows + 1) * sizeof(int32_t), "cudaMemcpy(rowptr) to the host");
    to_host(h->colidx, d->colidx, nz * sizeof(int32_t), "cudaMemcpy(colidx) to the host");
    to_host(h->values, d->values, nz * vsize, "cudaMemcpy(values) to the host");
}

/* Whether factor k is the one before it, sharing its arrays (B = A when one file is given). */
static int shared(const csr32 *f, int k)
{
    return k && f[k].rowptr == f[k - 1].rowptr;
}

/* Device copies in d of the g->nfactors host factors h, a shared factor uploaded once. */
static void upload_factors(const gemm *g, const csr32 *h, csr32 *d)
{
    for (int k = 0; k < g->nfactors; k++) d[k] = shared(h, k) ? d[k - 1] : upload(&h[k], g->vsize);
}

/* Free the device factors d, each once (last first: d[k] is compared before d[k-1] is freed). */
static void free_factors(const gemm *g, csr32 *d)
{
    for (int k = g->nfactors - 1; k >= 0; k--)
        if (!shared(d, k)) free_device(&d[k]);
}

/* Work estimation (compute = 0) or compute (1): ask the buffer size, allocate it, run; the buffer. */
static void *phase(const gemm *g, const spgemm_descr *x, int compute, const char *what)
{
    const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t size = 0;
    void *buf = NULL;
    for (int pass = 0; pass < 2; pass++) { /* pass 0 asks the size: buf is NULL */
        cusparseStatus_t s =
            compute ? cusparseSpGEMM_compute(g->handle, n, n, g->one, x->a, x->b, g->zero, x->c, g->type,
                                             CUSPARSE_SPGEMM_DEFAULT, x->s, &size, buf)
                    : cusparseSpGEMM_workEstimation(g->handle, n, n, g->one, x->a, x->b, g->zero, x->c,
                                                    g->type, CUSPARSE_SPGEMM_DEFAULT, x->s, &size, buf);
        sparse_ok(s, what);
        if (!pass) buf = dev_alloc(size, what);
    }
    return buf;
}

/* C = A*B on the device, named in messages; C's arrays and the two work buffers (in buf) are left
 * to the caller. */
static csr32 multiply(const gemm *g, const csr32 *A, const csr32 *B, const char *name, void *buf[2])
{
    csr32 C = {A->nrows, B->ncols, 0, NULL, NULL, NULL};
    C.rowptr = dev_alloc(((size_t)C.nrows + 1) * sizeof(int32_t), "cudaMalloc(C rowptr)");
    spgemm_descr x = {describe(A, g->type), describe(B, g->type), describe(&C, g->type), NULL};
    sparse_ok(cusparseSpGEMM_createDescr(&x.s), "cusparseSpGEMM_createDescr");
    buf[0] = phase(g, &x, 0, "cusparseSpGEMM_workEstimation");
    buf[1] = phase(g, &x, 1, "cusparseSpGEMM_compute");
    int64_t rows, cols, nnz;
    sparse_ok(cusparseSpMatGetSize(x.c, &rows, &cols, &nnz), "cusparseSpMatGetSize");
    if (nnz > INT32_MAX) exit(peer_fail(name, "more than 2^31-1 entries, beyond 32-bit cuSPARSE SpGEMM"));
    C.nnz = nnz;
    C.colidx = dev_alloc((size_t)nnz * sizeof(int32_t), "cudaMalloc(C colidx)");
    C.values = dev_alloc((size_t)nnz * g->vsize, "cudaMalloc(C values)");
    sparse_ok(cusparseCsrSetPointers(x.c, C.rowptr, C.colidx, C.values), "cusparseCsrSetPointers");
    const cusparseOperation_t n = CUSPARSE_OPERATION_NON_TRANSPOSE;
    sparse_ok(cusparseSpGEMM_copy(g->handle, n, n, g->one, x.a, x.b, g->zero, x.c, g->type,
                                  CUSPARSE_SPGEMM_DEFAULT, x.s),
              "cusparseSpGEMM_copy");
    sparse_ok(cusparseSpGEMM_destroyDescr(x.s), "cusparseSpGEMM_destroyDescr");
    sparse_ok(cusparseDestroySpMat(x.a), "cusparseDestroySpMat");
    sparse_ok(cusparseDestroySpMat(x.b), "cusparseDestroySpMat");
    sparse_ok(cusparseDestroySpMat(x.c), "cusparseDestroySpMat");
    return C;
}

/* C = the product of the device factors f: A*B, or R*A*P as R*(A*P) or (R*A)*P after g->order.
 * The intermediate and its work buffers are freed once the second product is done with them;
 * C's arrays and work buffers (in buf) are left to the caller. */
static csr32 product(const gemm *g, const csr32 *f, void *buf[2])
{
    if (g->order == PEER_AB) return multiply(g, &f[0], &f[1], "C", buf);
    int r_ap = g->order == PEER_R_AP;
    csr32 T = multiply(g, &f[r_ap], &f[r_ap + 1], r_ap ? "A*P" : "R*A", buf);
    dev_free(buf[0]), dev_free(buf[1]);
    csr32 C = r_ap ? multiply(g, &f[0], &T, "C", buf) : multiply(g, &T, &f[2], "C", buf);
    free_device(&T);
    return C;
}

/* One product with the factors f already on the device, transfers excluded; its time, nnz(C) in *nnz. */
static double time_device(const gemm *g, const csr32 *f, int64_t *nnz)
{
    void *buf[2];
    double t0 = synced_ms();
    csr32 C = product(g, f, buf);
    double ms = synced_ms() - t0;
    *nnz = C.nnz;
    dev_free(buf[0]), dev_free(buf[1]);
    free_device(&C);
    return ms;
}

/* Host arrays with room for an nrows x ncols C of nnz entries. */
static csr32 host_result(int32_t nrows, int32_t ncols, int64_t nnz, size_t vsize)
{
    csr32 h = {nrows, ncols, nnz, malloc(((size_t)nrows + 1) * sizeof(int32_t)),
               malloc((size_t)nnz * sizeof(int32_t) + 1), malloc((size_t)nnz * vsize + 1)};
    if (!h.rowptr || !h.colidx || !h.values) exit(peer_fail("out of memory", NULL));
    return h;
}

/* One product from host CSR to host CSR: upload the factors h (A once when B is A), multiply,
 * allocate the host arrays of C and download into them (as a library returning a new C must),
 * free the device memory; its time.  C's host arrays are freed after the clock stops. */
static double time_host(const gemm *g, const csr32 *h, int64_t nnz_c)
{
    void *buf[2];
    csr32 f[3];
    double t0 = synced_ms();
    upload_factors(g, h, f);
    csr32 C = product(g, f, buf);
    if (C.nnz != nnz_c) exit(peer_fail("C", "nnz(C) differs between runs"));
    csr32 hC = host_result(C.nrows, C.ncols, C.nnz, g->vsize);
    if (!hC.rowptr || !hC.colidx || !hC.values) exit(peer_fail("out of memory", "host C"));
    download(&C, &hC, g->vsize);
    dev_free(buf[0]), dev_free(buf[1]);
    free_device(&C);
    free_factors(g, f);
    double ms = synced_ms() - t0;
    free(hC.rowptr), free(hC.colidx), free(hC.values);
    return ms;
}

/* The device-only runs into ms[0..repeat) after untimed ones (PEER_WARM_MS, at least one:
 * the GPU back at its clocks, as hspgemm's bench warms up), the host factors h uploaded
 * once, with the pool or without; nnz(C). */
static int64_t run_device(const gemm *g, const csr32 *h, int repeat, int pool, double *ms)
{
    csr32 f[3];
    upload_factors(g, h, f);
    dev_pooled(pool);
    int64_t nnz = 0;
    double warm = 0;
    for (int n = 0; n == 0 || (n < PEER_WARM_RUNS && warm < PEER_WARM_MS); n++) warm += time_device(g, f, &nnz);
    for (int k = 0; k < repeat; k++) ms[k] = time_device(g, f, &nnz);
    dev_pooled(0);
    free_factors(g, f);
    return nnz;
}

/* The host-to-host runs into ms[0..repeat) after a warm-up. */
static void run_host(const gemm *g, const csr32 *h, int64_t nnz_c, int repeat, double *ms)
{
    for (int k = 0; k <= repeat; k++) { /* run 0 is the warm-up */
        double t = time_host(g, h, nnz_c);
        if (k) ms[k - 1] = t;
    }
}

/* --version: the cuSPARSE this peer runs with, once a CUDA GPU is found. */
static int print_version(void)
{
    int major = 0, minor = 0, patch = 0;
    require_gpu();
    sparse_ok(cusparseGetProperty(MAJOR_VERSION, &major), "cusparseGetProperty");
    sparse_ok(cusparseGetProperty(MINOR_VERSION, &minor), "cusparseGetProperty");
    sparse_ok(cusparseGetProperty(PATCH_LEVEL, &patch), "cusparseGetProperty");
    printf("{\"peer\":\"cusparse\",\"version\":\"%d.%d.%d\"}\n", major, minor, patch);
    return 0;
}

int main(int argc, char **argv)
{
    peer_args args = {.name = "peer_cusparse", .usage = usage, .threads = 1, .repeat = 3, .precision = HSP_DOUBLE};
    int rc, version = 0;
    if ((rc = peer_parse(argc, argv, &args)) == PEER_VERSION) return print_version();
    if (rc) return rc == -1 ? 0 : 2;
    int repeat = args.repeat, n = args.nfactors;
    hsp_precision prec = args.precision;
    hsp_csr *M[3];
    if (peer_read(&args, M)) return 1;
    require_gpu();
    if (args.spmm_cols) {
        rc = cusparse_spmm(&args, M[0]);
        peer_free(&args, M);
        return rc;
    }
    static const double d1 = 1, d0 = 0;
    static const float f1 = 1, f0 = 0;
    int dbl = prec == HSP_DOUBLE;
    gemm g = {NULL, dbl ? CUDA_R_64F : CUDA_R_32F, dbl ? sizeof(double) : sizeof(float),
              dbl ? (const void *)&d1 : (const void *)&f1, dbl ? (const void *)&d0 : (const void *)&f0,
              n, args.order};
    sparse_ok(cusparseCreate(&g.handle), "cusparseCreate");
    sparse_ok(cusparseGetVersion(g.handle, &version), "cusparseGetVersion");
    csr32 h[3];
    for (int k = 0; k < n; k++) h[k] = peer_shared(M, k) ? h[k - 1] : narrow(M[k], peer_factor_name(&args, k));
    double *ms = malloc(3 * (size_t)repeat * sizeof *ms), *dev_ms = ms + repeat, *nopool_ms = ms + 2 * repeat;
    if (!ms) return peer_fail("out of memory", NULL);
    keep_pool();
    int64_t nnz_c = run_device(&g, h, repeat, 0, nopool_ms);
    if (run_device(&g, h, repeat, 1, dev_ms) != nnz_c) exit(peer_fail("C", "nnz(C) differs between runs"));
    run_host(&g, h, nnz_c, repeat, ms);
    printf("{\"peer\":\"cusparse\",\"version\":\"%d.%d.%d\",\"threads\":1,\"precision\":\"%s\"%s,\"runs\":%d",
           version / 1000, version % 1000 / 100, version % 100, dbl ? "double" : "float", peer_order_json(&args),
           repeat);
    peer_print_times("ms", ms, repeat);
    peer_print_times("ms_device", dev_ms, repeat);
    peer_print_times("ms_device_nopool", nopool_ms, repeat);
    printf(",\"nnz_c\":%lld,\"peak_device_bytes\":%zu}\n", (long long)nnz_c, dev_peak_bytes());
    free(ms);
    for (int k = 0; k < n; k++)
        if (!peer_shared(M, k)) free(h[k].rowptr);
    sparse_ok(cusparseDestroy(g.handle), "cusparseDestroy");
    peer_free(&args, M);
    return 0;
}
