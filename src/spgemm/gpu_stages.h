/* gpu_stages.h: the pipeline's stages on a GPU device (private). */
#ifndef HSP_GPU_STAGES_H
#define HSP_GPU_STAGES_H

#include "device/device.h"

/* Give dev, a GPU device (device/gpu.h) its back end made, the pipeline's
 * stages and its methods per group: which can run, which are exact, the
 * defaults. */
void gpu_spgemm_ops(hsp_device *dev);

#endif
