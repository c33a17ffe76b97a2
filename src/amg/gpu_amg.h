/* gpu_amg.h: the AMG steps on a GPU device (private). */
#ifndef HSP_GPU_AMG_H
#define HSP_GPU_AMG_H

#include "device/gpu.h"

#include "amg/amg_device.h"

/* The steps of a resident AMG hierarchy (gpu_amg.c, kernels/amg.cl). */
extern const hsp_amg_device gpu_amg_device;

/* The solve's steps (gpu_solve.c, kernels/solve.cl): amg_device.h's spmv. */
hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *A, void *held_a, double alpha, void *held_x, double beta,
                    void *held_y);

#endif
