/* gpu_bitmap.h: bitmap-blocked products on a GPU device (private). */
#ifndef HSP_GPU_BITMAP_H
#define HSP_GPU_BITMAP_H

#include "device/gpu.h"

/* C = A B of bitmap-blocked operands (the device's bitmap_multiply,
 * gpu_bitmap.c, kernels/bitmap.cl). */
hsp_status gpu_bitmap_multiply(hsp_device *dev, const hsp_bitmap *A, const hsp_bitmap *B, int pattern,
                               hsp_bitmap **C, int64_t *flops);

#endif
