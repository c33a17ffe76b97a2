/* device_opencl.c: the opencl device: gpu.h's stages over OpenCL.  Kernel
 * arguments are set one by one and each bin is one NDRange launch on an
 * in-order queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "device/opencl/opencl.h"

static cl_kernel kernel_of(gpu *g, int dbl, int kernel)
{
    ocl_state *st = g->backend;
    return st->k[dbl].kernel[kernel];
}

static size_t ocl_group_limit(gpu *g, int dbl, int kernel)
{
    ocl_state *st = g->backend;
    size_t most = st->max_group;
    clGetKernelWorkGroupInfo(kernel_of(g, dbl, kernel), st->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL);
    return most;
}

/* Set argument j of k to a: an SVM pointer or a buffer, a value, or local
 * memory. */
static cl_int set_arg(ocl_state *st, cl_kernel k, cl_uint j, const gpu_arg *a)
{
    if (a->kind == GPU_ARG_VALUE) return clSetKernelArg(k, j, a->size, a->data);
    if (a->kind == GPU_ARG_LOCAL) return clSetKernelArg(k, j, a->size, NULL);
    if (st->svm != OCL_SVM_NONE) return clSetKernelArgSVMPointer(k, j, a->array->ptr);
    return clSetKernelArg(k, j, sizeof a->array->mem, &a->array->mem);
}

static hsp_status ocl_launch(gpu *g, int dbl, int kernel, const gpu_arg *args, int nargs, size_t groups,
                             size_t size)
{
    ocl_state *st = g->backend;
    cl_kernel k = kernel_of(g, dbl, kernel);
    size_t global = groups * size;
    char name[24];
    cl_event event = NULL;
    cl_int err = CL_SUCCESS;
    hsp_status s = gpu_kernel_check(kernel, nargs);
    if (s != HSP_OK || !groups) return s;
    for (int j = 0; j < nargs && err == CL_SUCCESS; j++) err = set_arg(st, k, (cl_uint)j, &args[j]);
    if (err == CL_SUCCESS) err = ocl_after_put(st);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(st->queue, k, 1, NULL, &global, &size, 0, NULL, st->profile ? &event : NULL);
    if (err == CL_SUCCESS && st->profile) ocl_profile_add(st->profile, kernel, event);
    if (err == CL_SUCCESS) return HSP_OK;
    clFinish(st->queue); /* the launches before it may use arrays the caller frees on this error */
    return hsp_fail(ocl_status(err), "OpenCL: launching %s (%zu x %zu): %s (%d)", gpu_kernel_name(kernel, name), groups,
                    size, ocl_error(err), err);
}

static hsp_status ocl_finish(gpu *g)
{
    ocl_state *st = g->backend;
    cl_int err = st->queue ? clFinish(st->queue) : CL_SUCCESS;
    for (int k = 0; k < 2; k++)
        if (st->side[k] && err == CL_SUCCESS) err = clFinish(st->side[k]);
    if (err == CL_SUCCESS) ocl_drained(st);
    ocl_profile_collect(st->profile);
    return err == CL_SUCCESS ? HSP_OK : hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernels failed: %s (%d)", ocl_error(err), err);
}

static void ocl_close(gpu *g)
{
    ocl_state *st = g->backend;
    ocl_profile_print(st->profile, st->name);
    ocl_stage_free(st);
    for (int k = 0; k < 2; k++)
        if (st->side[k]) clReleaseCommandQueue(st->side[k]);
    for (int d = 0; d < 2; d++) ocl_kernels_free(&st->k[d]);
    if (st->queue) clReleaseCommandQueue(st->queue);
    if (st->context) clReleaseContext(st->context);
    free(st);
}

static const gpu_ops ocl_ops = {ocl_alloc, ocl_free,   ocl_write,  ocl_read,  ocl_copy,
                                NULL,      NULL,       ocl_group_limit, ocl_launch, ocl_finish, ocl_close,
                                ocl_put,   ocl_get};

/* Context, queue and kernels for device info into g and st. */
static hsp_status open_state(gpu *g, ocl_state *st, const ocl_info *info, int nosvm, int nofp64)
{
    cl_int err;
    st->id = info->id;
    st->svm = nosvm ? OCL_SVM_NONE : info->svm;
    st->max_group = info->max_group;
    g->host_arrays = st->svm == OCL_SVM_SYSTEM;
    g->beside = st->svm == OCL_SVM_NONE;
    g->fp64 = info->fp64 && !nofp64;
    g->no_fp64 = "cl_khr_fp64";
    g->local_mem = info->local_mem;
    g->compute_units = info->compute_units;
    g->warp_shuffles = strstr(info->platform_name, "NVIDIA") != NULL; /* its compiler defines __NV_CL_C_VERSION */
    g->pieces_apart = !info->is_gpu && strstr(info->platform_name, "Intel") != NULL;
    st->context = clCreateContext(NULL, 1, &st->id, NULL, NULL, &err);
    st->profile = ocl_profile_new();
    snprintf(st->name, sizeof st->name, "%.*s", (int)sizeof st->name - 1, info->name); /* cut to fit */
    cl_queue_properties timed[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    if (err == CL_SUCCESS)
        st->queue = clCreateCommandQueueWithProperties(st->context, st->id, st->profile ? timed : NULL, &err);
    if (err != CL_SUCCESS)
        return hsp_fail(HSP_ERR_DEVICE, "OpenCL: opening %s: %s (%d)", info->name, ocl_error(err), err);
    hsp_status s = ocl_build(st, 0, &st->k[0]);
    if (s == HSP_OK && g->fp64) s = ocl_build(st, 1, &st->k[1]);
    for (int dbl = 0; dbl < 2; dbl++) {
        g->local_add[dbl] = 1;
        for (int j = 0; j < GK_COUNT; j++)
            if (gpu_kernel_adds_locally(j)) g->local_add[dbl] &= st->k[dbl].kernel[j] != NULL;
    }
    return s;
}

hsp_status hsp_device_opencl_open(const char *spec, hsp_pool *pool, hsp_device **out)
{
    ocl_info list[32];
    static const char *const flags[] = {"nosvm", "nofp64"};
    int index, count;
    unsigned set;
    hsp_status s = hsp_device_spec(spec, "opencl", flags, 2, &index, &set);
    if (s == HSP_OK) s = ocl_devices(list, 32, &count);
    if (s != HSP_OK) return s;
    if (index >= count || index >= 32)
        return hsp_fail(HSP_ERR_ARG, "no OpenCL device %d: there are %d (see `hspgemm devices`)", index, count);
    if (count == 0)
        return hsp_fail(HSP_ERR_DEVICE, "no OpenCL device found (install an ICD, e.g. pocl-opencl-icd)");
    int first_gpu = ocl_first_gpu_of(list, count < 32 ? count : 32);
    if (index < 0) index = first_gpu >= 0 ? first_gpu : 0;
    hsp_device *dev;
    if ((s = gpu_device_new(&ocl_ops, sizeof(ocl_state), "opencl", &dev)) != HSP_OK) return s;
    gpu *g = dev->state;
    ocl_state *st = g->backend;
    st->pool = pool;
    s = open_state(g, st, &list[index], set & 1, set >> 1 & 1);
    if (s != HSP_OK) {
        dev->destroy(dev);
        return s;
    }
    dev->name = "opencl";
    snprintf(dev->description, sizeof dev->description, "opencl:%d %.100s (%.20s)", index % 1000,
             list[index].name, ocl_svm_name(st->svm));
    dev->wavefront = list[index].wavefront;
    gpu_device_ready(dev);
    *out = dev;
    return HSP_OK;
}
