/* gpu_spmm.h: SpMM on a GPU device (private). */
#ifndef HSP_GPU_SPMM_H
#define HSP_GPU_SPMM_H

#include "device/gpu.h"

/* C = alpha A B + beta C (the device's spmm, gpu_spmm.c); C's entries are
 * read only where beta is not 0 (as in BLAS: C may hold anything then). */
struct hsp_ellr;
hsp_status gpu_spmm(hsp_device *dev, const struct hsp_ellr *A, const hsp_dense *B, double alpha, double beta,
                    hsp_dense *C, void *const held[3], int *blocks);

#endif
