/* opencl_mem.c: the arrays the kernels use, by the memory the device offers:
 * host arrays in place (fine-grained system SVM), clSVMAlloc blocks
 * (fine-grained buffer SVM) or buffers with explicit transfers.  Arrays are
 * kept between jobs and grown when short; their bytes are counted for the
 * device memory figures. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "opencl.h"

/* Room for at least this many bytes, so that no array is empty. */
enum { MIN_BYTES = 64 };

static void count_bytes(ocl_state *st, int64_t delta)
{
    st->device_bytes += delta;
    if (st->device_bytes > st->peak_device_bytes) st->peak_device_bytes = st->device_bytes;
}

/* A new owned array of bytes in x. */
static hsp_status alloc_array(ocl_state *st, ocl_array *x, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    memset(x, 0, sizeof *x);
    if (bytes < MIN_BYTES) bytes = MIN_BYTES;
    if (st->svm == OCL_SVM_SYSTEM) x->ptr = hsp_alloc(bytes);
    else if (st->svm == OCL_SVM_BUFFER)
        x->ptr = clSVMAlloc(st->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
    else x->mem = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!x->ptr && !x->mem)
        return hsp_fail(HSP_ERR_NOMEM, "OpenCL: no device memory for %zu bytes (%s)", bytes,
                        err != CL_SUCCESS ? ocl_error(err) : "allocation failed");
    x->bytes = bytes, x->owned = 1;
    count_bytes(st, (int64_t)bytes);
    return HSP_OK;
}

static void free_array(ocl_state *st, ocl_array *x)
{
    if (x->owned) {
        if (st->svm == OCL_SVM_SYSTEM) free(x->ptr);
        else if (st->svm == OCL_SVM_BUFFER) clSVMFree(st->context, x->ptr);
        else clReleaseMemObject(x->mem);
        count_bytes(st, -(int64_t)x->bytes);
    }
    memset(x, 0, sizeof *x);
}

void ocl_release(ocl_state *st, int which)
{
    free_array(st, &st->a[which]);
}

hsp_status ocl_reserve(ocl_state *st, int which, size_t bytes)
{
    ocl_array *x = &st->a[which];
    if (x->owned && bytes <= x->bytes) return HSP_OK;
    free_array(st, x);
    return alloc_array(st, x, bytes);
}

hsp_status ocl_upload(ocl_state *st, int which, const void *host, size_t bytes)
{
    ocl_array *x = &st->a[which];
    if (st->svm == OCL_SVM_SYSTEM && host && bytes) { /* the host array itself */
        free_array(st, x);
        x->ptr = (void *)host, x->bytes = bytes;
        return HSP_OK;
    }
    hsp_status s = ocl_reserve(st, which, bytes);
    if (s != HSP_OK || !bytes || !host) return s;
    if (st->svm != OCL_SVM_NONE) {
        memcpy(x->ptr, host, bytes);
        return HSP_OK;
    }
    cl_int err = clEnqueueWriteBuffer(st->queue, x->mem, CL_FALSE, 0, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? HSP_OK
                             : hsp_fail(HSP_ERR_DEVICE, "OpenCL: copy to the device: %s (%d)", ocl_error(err), err);
}

hsp_status ocl_download(ocl_state *st, int which, void *host, size_t bytes)
{
    ocl_array *x = &st->a[which];
    if (!bytes) return HSP_OK;
    if (st->svm == OCL_SVM_NONE) {
        cl_int err = clEnqueueReadBuffer(st->queue, x->mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
        return err == CL_SUCCESS ? HSP_OK
                                 : hsp_fail(HSP_ERR_DEVICE, "OpenCL: copy from the device: %s (%d)", ocl_error(err), err);
    }
    cl_int err = clFinish(st->queue);
    if (err != CL_SUCCESS) return hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernels failed: %s (%d)", ocl_error(err), err);
    if (x->ptr != host) memcpy(host, x->ptr, bytes);
    return HSP_OK;
}

hsp_status ocl_arg(ocl_state *st, cl_kernel k, cl_uint index, int which)
{
    ocl_array *x = &st->a[which];
    cl_int err = st->svm != OCL_SVM_NONE ? clSetKernelArgSVMPointer(k, index, x->ptr)
                                         : clSetKernelArg(k, index, sizeof x->mem, &x->mem);
    return err == CL_SUCCESS ? HSP_OK
                             : hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernel argument %u: %s (%d)", index, ocl_error(err), err);
}

hsp_status ocl_grow(ocl_state *st, int which, size_t bytes, size_t keep, int use_realloc,
                    int64_t *copied, int *moved)
{
    ocl_array *x = &st->a[which], old = *x;
    *moved = 0;
    if (use_realloc && st->svm == OCL_SVM_SYSTEM && x->owned) {
        void *p = realloc(x->ptr, bytes);
        if (!p) return hsp_fail(HSP_ERR_NOMEM, "no memory to grow the long-row pool to %zu bytes", bytes);
        *moved = p != x->ptr;
        count_bytes(st, (int64_t)(bytes - x->bytes));
        x->ptr = p, x->bytes = bytes;
        return HSP_OK;
    }
    hsp_status s = alloc_array(st, x, bytes);
    if (s != HSP_OK) {
        *x = old;
        return s;
    }
    cl_int err = CL_SUCCESS;
    if (keep && st->svm != OCL_SVM_NONE) memcpy(x->ptr, old.ptr, keep);
    else if (keep) err = clEnqueueCopyBuffer(st->queue, old.mem, x->mem, 0, 0, keep, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(st->queue);
    free_array(st, &old);
    *copied += (int64_t)keep;
    return err == CL_SUCCESS ? HSP_OK
                             : hsp_fail(HSP_ERR_DEVICE, "OpenCL: copying the long-row pool: %s (%d)", ocl_error(err), err);
}

hsp_status ocl_launch(ocl_state *st, cl_kernel k, size_t groups, size_t size)
{
    size_t global = groups * size;
    if (!groups) return HSP_OK;
    cl_int err = clEnqueueNDRangeKernel(st->queue, k, 1, NULL, &global, &size, 0, NULL, NULL);
    return err == CL_SUCCESS ? HSP_OK
                             : hsp_fail(HSP_ERR_DEVICE, "OpenCL: kernel launch (%zu x %zu): %s (%d)", groups,
                                        size, ocl_error(err), err);
}
