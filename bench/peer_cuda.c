/* peer_cuda.c: what the cuSPARSE peer's products (peer_cusparse.c) and its
 * SpMM (peer_cusparse_spmm.c) share, declared in peer_cusparse.h: CUDA and
 * cuSPARSE errors, device memory counted (from the pool or cudaMalloc),
 * transfers, CSR with 32-bit offsets on the host and the device, the clock
 * after a wait for the GPU. */
#define DISABLE_CUSPARSE_DEPRECATED /* else gcc warns about the header's own deprecated types */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "peer_cusparse.h"

#define MAX_LIVE 32 /* R*A*P from the host holds 17 at most: 3 factors, T, C, C's work buffers */
static struct {
    void *p;
    size_t bytes;
} live[MAX_LIVE];                     /* the device allocations held now */
static size_t live_bytes, peak_bytes; /* their sum, and its largest value */
static int pooled;                    /* allocations come from the device's memory pool */

void dev_pooled(int on)
{
    pooled = on;
}

size_t dev_peak_bytes(void)
{
    return peak_bytes;
}

void cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) exit(peer_fail(what, cudaGetErrorString(e)));
}

void sparse_ok(cusparseStatus_t s, const char *what)
{
    if (s != CUSPARSE_STATUS_SUCCESS) exit(peer_fail(what, cusparseGetErrorString(s)));
}

void *dev_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    int k = 0;
    while (k < MAX_LIVE && live[k].p) k++;
    if (k == MAX_LIVE) exit(peer_fail(what, "too many device allocations"));
    bytes = bytes ? bytes : 1;
    cuda_ok(pooled ? cudaMallocAsync(&p, bytes, 0) : cudaMalloc(&p, bytes), what);
    live[k].p = p, live[k].bytes = bytes;
    live_bytes += bytes;
    if (live_bytes > peak_bytes) peak_bytes = live_bytes;
    return p;
}

void dev_free(void *p)
{
    if (!p) return;
    for (int k = 0; k < MAX_LIVE; k++)
        if (live[k].p == p) {
            live_bytes -= live[k].bytes, live[k].p = NULL;
            break;
        }
    cuda_ok(pooled ? cudaFreeAsync(p, 0) : cudaFree(p), "cudaFree");
}

void to_device(void *d, const void *h, size_t bytes, const char *what)
{
    if (bytes) cuda_ok(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), what);
}

void to_host(void *h, const void *d, size_t bytes, const char *what)
{
    if (bytes) cuda_ok(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), what);
}

csr32 upload(const csr32 *h, size_t vsize)
{
    csr32 d = *h;
    size_t nr = ((size_t)h->nrows + 1) * sizeof(int32_t), nz = (size_t)h->nnz;
    d.rowptr = dev_alloc(nr, "cudaMalloc(rowptr)");
    d.colidx = dev_alloc(nz * sizeof(int32_t), "cudaMalloc(colidx)");
    d.values = dev_alloc(nz * vsize, "cudaMalloc(values)");
    to_device(d.rowptr, h->rowptr, nr, "cudaMemcpy(rowptr) to the device");
    to_device(d.colidx, h->colidx, nz * sizeof(int32_t), "cudaMemcpy(colidx) to the device");
    to_device(d.values, h->values, nz * vsize, "cudaMemcpy(values) to the device");
    return d;
}

void free_device(csr32 *d)
{
    dev_free(d->rowptr), dev_free(d->colidx), dev_free(d->values);
    d->rowptr = d->colidx = NULL, d->values = NULL;
}

cusparseSpMatDescr_t describe(const csr32 *d, cudaDataType type)
{
    cusparseSpMatDescr_t m;
    sparse_ok(cusparseCreateCsr(&m, d->nrows, d->ncols, d->nnz, d->rowptr, d->colidx, d->values,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, type),
              "cusparseCreateCsr");
    return m;
}

double synced_ms(void)
{
    cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return peer_now_ms();
}

void keep_pool(void)
{
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    cuda_ok(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
    cuda_ok(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), "cudaMemPoolSetAttribute");
}

csr32 narrow(const hsp_csr *M, const char *name)
{
    if (M->nnz > INT32_MAX) exit(peer_fail(name, "more than 2^31-1 entries, beyond 32-bit cuSPARSE SpGEMM"));
    csr32 h = {M->nrows, M->ncols, M->nnz, malloc(((size_t)M->nrows + 1) * sizeof(int32_t)), M->colidx,
               M->values};
    if (!h.rowptr) exit(peer_fail("out of memory", NULL));
    for (int64_t i = 0; i <= M->nrows; i++) h.rowptr[i] = (int32_t)M->rowptr[i];
    return h;
}

void require_gpu(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) exit(peer_fail("no usable CUDA GPU", cudaGetErrorString(e)));
    if (n < 1) exit(peer_fail("no CUDA GPU found", NULL));
}
