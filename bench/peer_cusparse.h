/* peer_cusparse.h: what the cuSPARSE peer's products (peer_cusparse.c) and
 * its SpMM (peer_cusparse_spmm.c) share (peer_cuda.c): CUDA errors, device
 * memory, CSR with 32-bit offsets, the clock after a wait for the GPU. */
#ifndef HSP_PEER_CUSPARSE_H
#define HSP_PEER_CUSPARSE_H
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include "hspgemm.h"
#include "peer.h"

/* A CSR matrix with 32-bit row offsets, its arrays on the host or on the device. */
typedef struct {
    int32_t nrows, ncols;
    int64_t nnz;
    int32_t *rowptr, *colidx;
    void *values;
} csr32;

/* Exit with a message when a CUDA runtime call failed. */
void cuda_ok(cudaError_t e, const char *what);
/* Exit with a message when a cuSPARSE call failed. */
void sparse_ok(cusparseStatus_t s, const char *what);
/* cudaMalloc, or cudaMallocAsync from the pool when pooled (at least one byte, so a buffer is
 * never NULL), that counts the bytes held. */
void *dev_alloc(size_t bytes, const char *what);
/* cudaFree (cudaFreeAsync, back to the pool, when pooled) of a dev_alloc'd pointer; NULL is ignored. */
void dev_free(void *p);
/* dev_alloc takes from the device's memory pool from now on (on), or from cudaMalloc. */
void dev_pooled(int on);
/* The most bytes dev_alloc held at once. */
size_t dev_peak_bytes(void);
/* Copy bytes from the host to the device, or back, when there are any. */
void to_device(void *d, const void *h, size_t bytes, const char *what);
void to_host(void *h, const void *d, size_t bytes, const char *what);
/* A device copy of the host matrix h; free_device frees one. */
csr32 upload(const csr32 *h, size_t vsize);
void free_device(csr32 *d);
/* A cuSPARSE descriptor over the device matrix d (32-bit offsets and columns). */
cusparseSpMatDescr_t describe(const csr32 *d, cudaDataType type);
/* Wait for the GPU, then read the clock. */
double synced_ms(void);
/* M with its row offsets narrowed to 32 bits; colidx and values are M's own (only rowptr is owned). */
csr32 narrow(const hsp_csr *M, const char *name);
/* There is a CUDA device to run on, or exit with a message. */
void require_gpu(void);
/* The device's memory pool keeps what is freed to it (no release at synchronisation). */
void keep_pool(void);

/* --spmm=L: C = A X with cusparseSpMM (peer_cusparse_spmm.c); prints the JSON line; the exit status. */
int cusparse_spmm(const peer_args *a, const hsp_csr *A);

#endif
