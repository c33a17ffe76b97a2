/* gpu_amg.h: the AMG steps on a GPU device (private). */
#ifndef HSP_GPU_AMG_H
#define HSP_GPU_AMG_H

#include "device/gpu.h"

#include "amg/amg_device.h"

/* The steps of a resident AMG hierarchy (gpu_amg.c, kernels/amg.cl). */
extern const hsp_amg_device gpu_amg_device;

/* into[at] = the sum of the first nparts values of part (the work-groups'
 * sums of a step: the Lanczos passes', the solve's), by one work-group
 * (kernels/amg.cl's hsp_lz_sum; gpu_solve.c). */
hsp_status gpu_parts_add(gpu *g, int dbl, gpu_array *part, int64_t nparts, gpu_array *into, int64_t at);

/* The solve's steps (gpu_solve.c, kernels/solve.cl): amg_device.h's spmv,
 * diagonals and vector. */
hsp_status gpu_spmv(hsp_device *dev, const hsp_csr *M, void *held_m, double s, void *x, void *c, void *y, void *w,
                    const hsp_vec_sums *into);
hsp_status gpu_diagonals(hsp_device *dev, const hsp_csr *A, void *held_a, void *dinv, void *l1inv);
hsp_status gpu_vector(hsp_device *dev, int op, int64_t n, hsp_precision precision, double a, double c,
                      void *const v[4], const hsp_vec_sums *into);

#endif
