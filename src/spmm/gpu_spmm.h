/* gpu_spmm.h: SpMM on a GPU device (private). */
#ifndef HSP_GPU_SPMM_H
#define HSP_GPU_SPMM_H

#include "device/gpu.h"

#include "spmm/spmm_device.h"

/* C = alpha A B + beta C (gpu_spmm.c); C's entries are read only where
 * beta is not 0 (as in BLAS: C may hold anything then). */
extern const hsp_spmm_device gpu_spmm_device;

#endif
