/* opencl_mem.c: the arrays the kernels use, by the memory the device offers:
 * host arrays in place (fine-grained system SVM), clSVMAlloc blocks
 * (fine-grained buffer SVM) or buffers with explicit transfers.  Arrays are
 * kept between jobs and grown when short; their bytes are counted for the
 * device memory figures. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "opencl.h"

/* Room for at least this many bytes, so that no array is empty; transfers
 * of buffers from STAGE_MIN bytes go through staging blocks of STAGE_BYTES. */
enum { MIN_BYTES = 64, STAGE_MIN = 1 << 20, STAGE_BYTES = 16 << 20 };

/* ---- staged transfers (buffers only) ------------------------------------------ */

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes, part;
} copy_run;

static void copy_part(void *arg, int tid, int64_t k)
{
    copy_run *r = arg;
    size_t at = (size_t)k * r->part, n = at + r->part < r->bytes ? r->part : r->bytes - at;
    (void)tid;
    memcpy(r->dst + at, r->src + at, n);
}

/* memcpy on the CPU threads (which also fault in fresh pages of dst at once). */
static void pool_copy(ocl_state *st, void *dst, const void *src, size_t bytes)
{
    size_t parts = (size_t)hsp_pool_size(st->pool);
    copy_run r = {dst, src, bytes, (bytes + parts - 1) / parts};
    hsp_pool_chunks(st->pool, (int64_t)((bytes + r.part - 1) / r.part), copy_part, &r);
}

/* The two pinned staging blocks (mapped once, kept). */
static cl_int stage_open(ocl_state *st)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < 2 && err == CL_SUCCESS && !st->stage_ptr[k]; k++) {
        st->stage_mem[k] = clCreateBuffer(st->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR,
                                          STAGE_BYTES, NULL, &err);
        if (err == CL_SUCCESS)
            st->stage_ptr[k] = clEnqueueMapBuffer(st->queue, st->stage_mem[k], CL_TRUE,
                                                  CL_MAP_READ | CL_MAP_WRITE, 0, STAGE_BYTES, 0,
                                                  NULL, NULL, &err);
    }
    return err;
}

/* Wait until staging block k is free. */
static cl_int stage_wait(ocl_state *st, int k)
{
    cl_int err = CL_SUCCESS;
    if (st->stage_ev[k]) {
        err = clWaitForEvents(1, &st->stage_ev[k]);
        clReleaseEvent(st->stage_ev[k]);
        st->stage_ev[k] = NULL;
    }
    return err;
}

void ocl_stage_free(ocl_state *st)
{
    for (int k = 0; k < 2; k++) {
        stage_wait(st, k);
        if (st->stage_ptr[k]) clEnqueueUnmapMemObject(st->queue, st->stage_mem[k], st->stage_ptr[k], 0, NULL, NULL);
        if (st->queue) clFinish(st->queue);
        if (st->stage_mem[k]) clReleaseMemObject(st->stage_mem[k]);
        st->stage_mem[k] = NULL, st->stage_ptr[k] = NULL;
    }
}

/* host -> mem through the staging blocks: the CPU threads fill one block
 * while the other is copied to the device. */
static cl_int stage_write(ocl_state *st, cl_mem mem, const void *host, size_t bytes)
{
    cl_int err = stage_open(st);
    for (size_t at = 0, c = 0; err == CL_SUCCESS && at < bytes; at += STAGE_BYTES, c++) {
        int k = (int)(c % 2);
        size_t n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(st, k)) != CL_SUCCESS) break;
        pool_copy(st, st->stage_ptr[k], (const unsigned char *)host + at, n);
        err = clEnqueueWriteBuffer(st->queue, mem, CL_FALSE, at, n, st->stage_ptr[k], 0, NULL, &st->stage_ev[k]);
    }
    return err;
}

/* mem -> host through the staging blocks: one block is copied out by the
 * CPU threads while the device fills the other. */
static cl_int stage_read(ocl_state *st, cl_mem mem, void *host, size_t bytes)
{
    cl_int err = stage_open(st);
    size_t nchunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    for (size_t c = 0; c < 2 && c < nchunks && err == CL_SUCCESS; c++) {
        size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(st, (int)c)) == CL_SUCCESS)
            err = clEnqueueReadBuffer(st->queue, mem, CL_FALSE, at, n, st->stage_ptr[c], 0, NULL, &st->stage_ev[c]);
    }
    for (size_t c = 0; c < nchunks && err == CL_SUCCESS; c++) {
        int k = (int)(c % 2);
        size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(st, k)) != CL_SUCCESS) break;
        pool_copy(st, (unsigned char *)host + at, st->stage_ptr[k], n);
        at += 2 * STAGE_BYTES;
        if (c + 2 < nchunks)
            err = clEnqueueReadBuffer(st->queue, mem, CL_FALSE, at,
                                      bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES,
                                      st->stage_ptr[k], 0, NULL, &st->stage_ev[k]);
    }
    return err;
}

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
    cl_int err = bytes >= STAGE_MIN ? stage_write(st, x->mem, host, bytes)
                                    : clEnqueueWriteBuffer(st->queue, x->mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
    return err == CL_SUCCESS ? HSP_OK
                             : hsp_fail(HSP_ERR_DEVICE, "OpenCL: copy to the device: %s (%d)", ocl_error(err), err);
}

hsp_status ocl_download(ocl_state *st, int which, void *host, size_t bytes)
{
    ocl_array *x = &st->a[which];
    if (!bytes) return HSP_OK;
    if (st->svm == OCL_SVM_NONE) {
        cl_int err = bytes >= STAGE_MIN ? stage_read(st, x->mem, host, bytes)
                                        : clEnqueueReadBuffer(st->queue, x->mem, CL_TRUE, 0, bytes, host, 0, NULL, NULL);
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
    if (st->b_is_a && which >= OA_BRP && which <= OA_BVAL) which -= OA_BRP - OA_ARP;
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
