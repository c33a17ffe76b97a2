/* gpu_kernels.c: the kernel table of kernels/kernels.def (names, argument
 * counts, features), by gpu.h's numbers: the back ends find the kernels by
 * these names and check each launch's argument count against it. */
#include <stdio.h>
#include <string.h>
#include "device/gpu.h"
#include "core/internal.h"

const gpu_kernel_info gpu_kernel_table[] = {
#define HSP_KERNEL(id, name, nargs, feature, atomics) {#name, nargs, GPU_FEATURE_##feature, atomics},
#include "../kernels/kernels.def"
#undef HSP_KERNEL
};
_Static_assert(sizeof gpu_kernel_table / sizeof gpu_kernel_table[0] == GK_TABLE,
               "the kernel table and gpu.h's numbers have one row each");

/* No kernel takes more arguments than a launch can pass. */
#define HSP_KERNEL(id, name, nargs, feature, atomics) \
    _Static_assert((int)(nargs) <= GPU_ARGS_MAX, #name " takes more than GPU_ARGS_MAX arguments");
#include "../kernels/kernels.def"
#undef HSP_KERNEL

const char *gpu_kernel_name(int kernel, char *buf)
{
    if (kernel < GK_HEAP) return gpu_kernel_table[kernel].name;
    snprintf(buf, 24, "%s%d", gpu_kernel_table[GK_HEAP].name, kernel - GK_HEAP);
    return buf;
}

int gpu_kernel_number(const char *name)
{
    char buf[24];
    for (int j = 0; j < GK_COUNT; j++)
        if (gpu_kernel_exists(j) && !strcmp(gpu_kernel_name(j, buf), name)) return j;
    return -1;
}

const char *gpu_feature_name(gpu_feature f)
{
    static const char *const names[] = {[GPU_FEATURE_SPGEMM] = "spgemm", [GPU_FEATURE_SPMM] = "spmm",
                                        [GPU_FEATURE_BITMAP] = "bitmap", [GPU_FEATURE_AMG] = "amg",
                                        [GPU_FEATURE_SHARED] = "shared"};
    return names[f];
}

hsp_status gpu_kernel_check(int kernel, int nargs)
{
    char buf[24];
    if (!gpu_kernel_exists(kernel))
        return hsp_fail(HSP_ERR_ARG, "launch of kernel number %d, which does not exist", kernel);
    int want = gpu_kernel_of(kernel)->nargs;
    if (nargs != want)
        return hsp_fail(HSP_ERR_ARG, "kernel %s takes %d arguments (kernels/kernels.def); a launch gave %d",
                        gpu_kernel_name(kernel, buf), want, nargs);
    return HSP_OK;
}
