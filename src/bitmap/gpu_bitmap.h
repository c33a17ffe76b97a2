/* gpu_bitmap.h: bitmap-blocked products on a GPU device (private). */
#ifndef HSP_GPU_BITMAP_H
#define HSP_GPU_BITMAP_H

#include "device/gpu.h"

#include "bitmap/bitmap_device.h"

/* C = A B of bitmap-blocked operands (gpu_bitmap.c, kernels/bitmap.cl). */
extern const hsp_bitmap_device gpu_bitmap_device;

#endif
