/* gpu_amg.h: the AMG steps on a GPU device (private). */
#ifndef HSP_GPU_AMG_H
#define HSP_GPU_AMG_H

#include "device/gpu.h"

#include "amg/amg_device.h"

/* The steps of a resident AMG hierarchy (gpu_amg.c, kernels/amg.cl). */
extern const hsp_amg_device gpu_amg_device;

/* The solve's steps (gpu_solve.c, kernels/solve.cl): amg_device.h's spmv,
 * diagonals and vector. */
hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *M, void *held_m, double s, void *x, void *c, void *y, void *w,
                    double *yw);
hsp_status gpu_diagonals(hsp_device *dev, const hsp_csr *A, void *held_a, void *dinv, void *l1inv);
hsp_status gpu_vector(hsp_device *dev, int op, int64_t n, hsp_precision precision, double a, double c,
                      void *const v[4], double *out);

#endif
