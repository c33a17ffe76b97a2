/* opencl_mem.c: the opencl back end's memory: clSVMAlloc blocks
 * (fine-grained buffer SVM) or buffers with explicit transfers, large ones
 * through two pinned staging blocks.  (With fine-grained system SVM gpu_mem.c
 * uses host memory and none of this.) */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "opencl.h"

/* Transfers from STAGE_MIN bytes go through staging blocks of STAGE_BYTES;
 * smaller writes through the upload block of STAGE_MIN bytes, in pieces
 * aligned to UP_ALIGN. */
enum { STAGE_MIN = 1 << 20, STAGE_BYTES = 16 << 20, UP_ALIGN = 256 };

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

/* memcpy on the CPU threads (which also fault in fresh pages of dst at once),
 * in four parts a thread, so that a thread the system holds back delays
 * little of it. */
static void pool_copy(ocl_state *st, void *dst, const void *src, size_t bytes)
{
    size_t parts = 4 * (size_t)hsp_pool_size(st->pool);
    copy_run r = {dst, src, bytes, (bytes + parts - 1) / parts};
    hsp_pool_chunks(st->pool, (int64_t)((bytes + r.part - 1) / r.part), copy_part, &r);
}

/* A pinned block of bytes, created and mapped into *mem and *ptr (nothing
 * is kept where either fails). */
static cl_int pinned_block(ocl_state *st, size_t bytes, cl_mem *mem, void **ptr)
{
    cl_int err = CL_SUCCESS;
    *mem = clCreateBuffer(st->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS)
        *ptr = clEnqueueMapBuffer(st->queue, *mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    if (err != CL_SUCCESS && *mem) clReleaseMemObject(*mem), *mem = NULL, *ptr = NULL;
    return err;
}

/* The two pinned staging blocks (mapped once, kept). */
static cl_int stage_open(ocl_state *st)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < 2 && err == CL_SUCCESS && !st->stage_ptr[k]; k++)
        err = pinned_block(st, STAGE_BYTES, &st->stage_mem[k], &st->stage_ptr[k]);
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
    if (st->up_ptr) clEnqueueUnmapMemObject(st->queue, st->up_mem, st->up_ptr, 0, NULL, NULL);
    if (st->up_mem) clReleaseMemObject(st->up_mem);
    st->up_mem = NULL, st->up_ptr = NULL;
    for (int k = 0; k < 2; k++) {
        stage_wait(st, k);
        if (st->stage_ptr[k]) clEnqueueUnmapMemObject(st->queue, st->stage_mem[k], st->stage_ptr[k], 0, NULL, NULL);
        if (st->queue) clFinish(st->queue);
        if (st->stage_mem[k]) clReleaseMemObject(st->stage_mem[k]);
        st->stage_mem[k] = NULL, st->stage_ptr[k] = NULL;
    }
}

void ocl_drained(ocl_state *st)
{
    st->up_used = 0;
}

/* The pinned upload block, mapped once and kept. */
static cl_int upload_open(ocl_state *st)
{
    void *ptr = NULL;
    if (st->up_ptr) return CL_SUCCESS;
    cl_int err = pinned_block(st, STAGE_MIN, &st->up_mem, &ptr);
    st->up_ptr = ptr;
    return err;
}

/* host -> mem (fewer than STAGE_MIN bytes) through the upload block, without
 * waiting: a product's few figures cost no round trip.  Where the block is
 * full the queue is drained first. */
static cl_int upload(ocl_state *st, cl_mem mem, const void *host, size_t bytes)
{
    cl_int err = upload_open(st);
    if (err == CL_SUCCESS && st->up_used + bytes > STAGE_MIN && (err = clFinish(st->queue)) == CL_SUCCESS)
        ocl_drained(st);
    if (err != CL_SUCCESS) return err;
    unsigned char *at = st->up_ptr + st->up_used;
    memcpy(at, host, bytes);
    st->up_used += (bytes + UP_ALIGN - 1) / UP_ALIGN * UP_ALIGN;
    return clEnqueueWriteBuffer(st->queue, mem, CL_FALSE, 0, bytes, at, 0, NULL, NULL);
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

/* mem from offset on -> host through the staging blocks: one block is copied out by the
 * CPU threads while the device fills the other. */
static cl_int stage_read(ocl_state *st, cl_mem mem, size_t offset, void *host, size_t bytes)
{
    cl_int err = stage_open(st);
    size_t nchunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    for (size_t c = 0; c < 2 && c < nchunks && err == CL_SUCCESS; c++) {
        size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(st, (int)c)) == CL_SUCCESS)
            err = clEnqueueReadBuffer(st->queue, mem, CL_FALSE, offset + at, n, st->stage_ptr[c], 0, NULL, &st->stage_ev[c]);
    }
    for (size_t c = 0; c < nchunks && err == CL_SUCCESS; c++) {
        int k = (int)(c % 2);
        size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(st, k)) != CL_SUCCESS) break;
        pool_copy(st, (unsigned char *)host + at, st->stage_ptr[k], n);
        at += 2 * STAGE_BYTES;
        if (c + 2 < nchunks)
            err = clEnqueueReadBuffer(st->queue, mem, CL_FALSE, offset + at,
                                      bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES,
                                      st->stage_ptr[k], 0, NULL, &st->stage_ev[k]);
    }
    return err;
}

hsp_status ocl_alloc(gpu *g, gpu_array *x, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = CL_SUCCESS;
    if (st->svm == OCL_SVM_BUFFER)
        x->ptr = clSVMAlloc(st->context, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, bytes, 0);
    else x->mem = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (!x->ptr && !x->mem)
        return hsp_fail(HSP_ERR_NOMEM, "OpenCL: no device memory for %zu bytes (%s)", bytes,
                        err != CL_SUCCESS ? ocl_error(err) : "allocation failed");
    return HSP_OK;
}

void ocl_free(gpu *g, gpu_array *x)
{
    ocl_state *st = g->backend;
    if (x->ptr) clSVMFree(st->context, x->ptr);
    if (x->mem) clReleaseMemObject(x->mem);
}

static hsp_status copy_status(cl_int err, const char *what)
{
    return err == CL_SUCCESS ? HSP_OK : hsp_fail(ocl_status(err), "OpenCL: %s: %s (%d)", what, ocl_error(err), err);
}

hsp_status ocl_write(gpu *g, gpu_array *x, const void *host, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = bytes >= STAGE_MIN ? stage_write(st, x->mem, host, bytes) : upload(st, x->mem, host, bytes);
    return copy_status(err, "copy to the device");
}

hsp_status ocl_read(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = bytes >= STAGE_MIN ? stage_read(st, x->mem, offset, host, bytes)
                                    : clEnqueueReadBuffer(st->queue, x->mem, CL_TRUE, offset, bytes, host, 0, NULL, NULL);
    if (err == CL_SUCCESS) ocl_drained(st); /* an in-order queue: all before the read has run */
    return copy_status(err, "copy from the device");
}

hsp_status ocl_copy(gpu *g, gpu_array *dst, gpu_array *src, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = clEnqueueCopyBuffer(st->queue, src->mem, dst->mem, 0, 0, bytes, 0, NULL, NULL);
    if (err == CL_SUCCESS) err = clFinish(st->queue);
    if (err == CL_SUCCESS) ocl_drained(st);
    return copy_status(err, "copying the long-row pool");
}
