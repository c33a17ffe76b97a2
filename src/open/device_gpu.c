/* device_gpu.c: a GPU device (device/gpu_device.c, its back end open) given
 * the features' tables: the pipeline's stages and methods
 * (spgemm/gpu_stages.c), SpMM, bitmap products and, where the device has
 * memory of its own, the AMG steps. */
#include "device/gpu.h"
#include "open/devices.h"
#include "spgemm/gpu_stages.h"
#include "bitmap/gpu_bitmap.h"
#include "amg/gpu_amg.h"
#include "spmm/gpu_spmm.h"

hsp_status gpu_device_init(hsp_device *dev)
{
    gpu *g = dev->state;
    dev->spmm = &gpu_spmm_device;
    dev->bitmap = &gpu_bitmap_device;
    if (!g->host_arrays) dev->amg = &gpu_amg_device;
    dev->features_free = gpu_spgemm_free;
    return gpu_spgemm_open(dev);
}
