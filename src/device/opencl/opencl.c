/* opencl.c: the OpenCL devices of the system (through the ICD loader) and
 * what each offers, and OpenCL errors in words. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "core/internal.h"
#include "device/opencl/opencl.h"

const char *ocl_error(cl_int err)
{
    switch (err) {
    case CL_DEVICE_NOT_FOUND: return "device not found";
    case CL_OUT_OF_RESOURCES: return "out of resources";
    case CL_OUT_OF_HOST_MEMORY: return "out of host memory";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "device memory allocation failed";
    case CL_BUILD_PROGRAM_FAILURE: return "kernel build failed";
    case CL_INVALID_VALUE: return "invalid value";
    case CL_INVALID_KERNEL_ARGS: return "kernel arguments not set";
    case CL_INVALID_WORK_GROUP_SIZE: return "invalid work-group size";
    case CL_INVALID_BUFFER_SIZE: return "invalid buffer size";
    case CL_INVALID_ARG_SIZE: return "invalid argument size";
    case CL_PLATFORM_NOT_FOUND_KHR: return "no OpenCL platform (is an ICD, e.g. pocl-opencl-icd, installed?)";
    default: return "OpenCL error";
    }
}

hsp_status ocl_status(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE ? HSP_ERR_NOMEM : HSP_ERR_DEVICE;
}

/* The lanes that run in lock step: NVIDIA's warp, AMD's wavefront, or the
 * preferred work-group multiple; at least 32 (CPU platforms report their
 * SIMD width) and at most 64, the widths the bin layouts are made for. */
static int wavefront(cl_device_id id)
{
    const cl_device_info what[] = {0x4003 /* CL_DEVICE_WARP_SIZE_NV */,
                                   0x4043 /* CL_DEVICE_WAVEFRONT_WIDTH_AMD */,
                                   CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE};
    for (int k = 0; k < 3; k++) {
        cl_uint w32 = 0;
        size_t w = 0;
        if (k < 2 && clGetDeviceInfo(id, what[k], sizeof w32, &w32, NULL) == CL_SUCCESS) w = w32;
        if (k == 2 && clGetDeviceInfo(id, what[k], sizeof w, &w, NULL) != CL_SUCCESS) w = 0;
        if (w) return w >= 64 ? 64 : 32;
    }
    return 32;
}

const char *ocl_svm_name(int svm)
{
    return svm == OCL_SVM_SYSTEM ? "system SVM" : svm == OCL_SVM_BUFFER ? "buffer SVM" : "buffers";
}

/* Device id's text what (where id is given) or platform p's into out (size
 * bytes), cut to fit: asked for with a buffer too small for it, the query
 * fails and fills nothing (PoCL 3.1's platform version is 100 characters
 * long). */
static void info_text(cl_platform_id p, cl_device_id id, cl_uint what, char *out, size_t size)
{
    char all[1024] = "";
    if (id) clGetDeviceInfo(id, what, sizeof all - 1, all, NULL);
    else clGetPlatformInfo(p, what, sizeof all - 1, all, NULL);
    snprintf(out, size, "%.*s", (int)size - 1, all);
}

/* Fill info from device id of platform p. */
static void describe(cl_platform_id p, cl_device_id id, ocl_info *info)
{
    cl_device_type type = 0;
    cl_ulong local = 0;
    cl_uint units = 0;
    cl_device_svm_capabilities svm = 0;
    cl_device_fp_config fp64 = 0;
    memset(info, 0, sizeof *info);
    info->platform = p, info->id = id;
    info_text(p, NULL, CL_PLATFORM_NAME, info->platform_name, sizeof info->platform_name);
    info_text(p, NULL, CL_PLATFORM_VERSION, info->platform_version, sizeof info->platform_version);
    info_text(p, id, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    info_text(p, id, CL_DEVICE_NAME, info->name, sizeof info->name);
    clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    clGetDeviceInfo(id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_group, &info->max_group, NULL);
    clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    if (clGetDeviceInfo(id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) != CL_SUCCESS) svm = 0;
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->local_mem = (int64_t)local;
    info->compute_units = (int)units;
    info->fp64 = fp64 != 0;
    info->wavefront = wavefront(id);
    info->svm = svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM   ? OCL_SVM_SYSTEM
                : svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER ? OCL_SVM_BUFFER
                                                        : OCL_SVM_NONE;
}

/* The system's devices, listed once per process: the first calls of some
 * platforms made at once from several threads fail or crash (PoCL's
 * clGetDeviceIDs: "no device", or a segfault, with four threads). */
enum { MAX_FOUND = 64 };
static struct {
    ocl_info list[MAX_FOUND];
    int count;      /* devices found, perhaps more than MAX_FOUND */
    cl_int err;     /* listing the platforms failed so */
} found;
static pthread_once_t found_once = PTHREAD_ONCE_INIT;

static void discover(void)
{
    cl_platform_id plat[16];
    cl_uint nplat = 0;
    cl_int err = clGetPlatformIDs(16, plat, &nplat);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || nplat == 0) return;
    if ((found.err = err) != CL_SUCCESS) return;
    for (cl_uint p = 0; p < nplat && p < 16; p++) {
        cl_device_id ids[64];
        cl_uint n = 0;
        if (clGetDeviceIDs(plat[p], CL_DEVICE_TYPE_ALL, 64, ids, &n) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < n && d < 64; d++) {
            if (found.count < MAX_FOUND) describe(plat[p], ids[d], &found.list[found.count]);
            found.count++;
        }
    }
}

hsp_status ocl_devices(ocl_info *list, int max, int *count)
{
    pthread_once(&found_once, discover);
    *count = 0;
    if (found.err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: listing platforms: %s (%d)", ocl_error(found.err), found.err);
    for (int d = 0; d < found.count && d < MAX_FOUND && d < max; d++) list[d] = found.list[d];
    *count = found.count < MAX_FOUND ? found.count : MAX_FOUND;
    return HSP_OK;
}

int ocl_first_gpu_of(const ocl_info *list, int count)
{
    for (int d = 0; d < count; d++)
        if (list[d].is_gpu) return d;
    return -1;
}

int ocl_first_gpu(void)
{
    ocl_info list[32];
    int n = 0;
    if (ocl_devices(list, 32, &n) != HSP_OK) return -1;
    return ocl_first_gpu_of(list, n < 32 ? n : 32);
}
