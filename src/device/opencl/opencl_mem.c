/* opencl_mem.c: the opencl back end's memory: clSVMAlloc blocks
 * (fine-grained buffer SVM) or buffers with explicit transfers, large ones
 * through two pinned staging blocks.  (With fine-grained system SVM gpu_mem.c
 * uses host memory and none of this.) */
#include <stdlib.h>
#include <string.h>
#include "core/internal.h"
#include "device/opencl/opencl.h"

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

/* Stage g's two blocks (mapped once, kept). */
static cl_int stage_open(ocl_state *st, ocl_stage *g)
{
    cl_int err = CL_SUCCESS;
    for (int k = 0; k < 2 && err == CL_SUCCESS && !g->ptr[k]; k++)
        err = pinned_block(st, STAGE_BYTES, &g->mem[k], &g->ptr[k]);
    return err;
}

/* Wait until block k of stage g is free. */
static cl_int stage_wait(ocl_stage *g, int k)
{
    cl_int err = CL_SUCCESS;
    if (g->ev[k]) {
        err = clWaitForEvents(1, &g->ev[k]);
        clReleaseEvent(g->ev[k]);
        g->ev[k] = NULL;
    }
    return err;
}

void ocl_stage_free(ocl_state *st)
{
    if (st->up_ptr) clEnqueueUnmapMemObject(st->queue, st->up_mem, st->up_ptr, 0, NULL, NULL);
    if (st->up_mem) clReleaseMemObject(st->up_mem);
    st->up_mem = NULL, st->up_ptr = NULL;
    if (st->put_done) clReleaseEvent(st->put_done), st->put_done = NULL;
    for (int j = 0; j < OCL_STAGES; j++)
        for (int k = 0; k < 2; k++) {
            ocl_stage *g = &st->stage[j];
            stage_wait(g, k);
            if (g->ptr[k]) clEnqueueUnmapMemObject(st->queue, g->mem[k], g->ptr[k], 0, NULL, NULL);
            if (st->queue) clFinish(st->queue);
            if (g->mem[k]) clReleaseMemObject(g->mem[k]);
            g->mem[k] = NULL, g->ptr[k] = NULL;
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

/* host -> mem from offset on, on queue q through stage g: the CPU threads
 * fill one block while the other is copied to the device. */
static cl_int stage_write(ocl_state *st, cl_command_queue q, ocl_stage *g, cl_mem mem, size_t offset,
                          const void *host, size_t bytes)
{
    cl_int err = stage_open(st, g);
    for (size_t at = 0, c = 0; err == CL_SUCCESS && at < bytes; at += STAGE_BYTES, c++) {
        int k = (int)(c % 2);
        size_t n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(g, k)) != CL_SUCCESS) break;
        pool_copy(st, g->ptr[k], (const unsigned char *)host + at, n);
        err = clEnqueueWriteBuffer(q, mem, CL_FALSE, offset + at, n, g->ptr[k], 0, NULL, &g->ev[k]);
    }
    return err;
}

/* Chunk c (of STAGE_BYTES) of mem from offset on into block c % 2 of stage
 * g, on queue q after event after (or nothing). */
static cl_int stage_fetch(cl_command_queue q, ocl_stage *g, cl_mem mem, size_t offset, size_t bytes, size_t c,
                          cl_event after)
{
    int k = (int)(c % 2);
    size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
    cl_int err = stage_wait(g, k);
    return err != CL_SUCCESS ? err
                             : clEnqueueReadBuffer(q, mem, CL_FALSE, offset + at, n, g->ptr[k], after ? 1 : 0,
                                                   after ? &after : NULL, &g->ev[k]);
}

/* mem from offset on -> host, on queue q (after event after, or nothing)
 * through stage g: one block is copied out by the CPU threads while the
 * device fills the other. */
static cl_int stage_read(ocl_state *st, cl_command_queue q, ocl_stage *g, cl_mem mem, size_t offset, void *host,
                         size_t bytes, cl_event after)
{
    cl_int err = stage_open(st, g);
    size_t nchunks = (bytes + STAGE_BYTES - 1) / STAGE_BYTES;
    for (size_t c = 0; c < 2 && c < nchunks && err == CL_SUCCESS; c++)
        err = stage_fetch(q, g, mem, offset, bytes, c, after);
    for (size_t c = 0; c < nchunks && err == CL_SUCCESS; c++) {
        int k = (int)(c % 2);
        size_t at = c * STAGE_BYTES, n = bytes - at < STAGE_BYTES ? bytes - at : STAGE_BYTES;
        if ((err = stage_wait(g, k)) != CL_SUCCESS) break;
        pool_copy(st, (unsigned char *)host + at, g->ptr[k], n);
        if (c + 2 < nchunks) err = stage_fetch(q, g, mem, offset, bytes, c + 2, NULL);
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
    cl_int err = bytes >= STAGE_MIN ? stage_write(st, st->queue, &st->stage[OCL_STAGE_MAIN], x->mem, 0, host, bytes)
                                    : upload(st, x->mem, host, bytes);
    return copy_status(err, "copy to the device");
}

hsp_status ocl_read(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = bytes >= STAGE_MIN ? stage_read(st, st->queue, &st->stage[OCL_STAGE_MAIN], x->mem, offset, host, bytes, NULL)
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

/* ---- transfers beside the kernels --------------------------------------------- */

/* Queue k of the side (0: puts, 1: gets), made at its first use. */
static cl_int side_queue(ocl_state *st, int k)
{
    cl_int err = CL_SUCCESS;
    if (!st->side[k]) st->side[k] = clCreateCommandQueueWithProperties(st->context, st->id, NULL, &err);
    return err;
}

hsp_status ocl_put(gpu *g, gpu_array *x, size_t offset, const void *host, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_int err = side_queue(st, 0);
    if (err == CL_SUCCESS) err = stage_write(st, st->side[0], &st->stage[OCL_STAGE_PUT], x->mem, offset, host, bytes);
    if (st->put_done) clReleaseEvent(st->put_done), st->put_done = NULL;
    if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(st->side[0], 0, NULL, &st->put_done);
    return copy_status(err, "copy to the device beside the kernels");
}

cl_int ocl_after_put(ocl_state *st)
{
    if (!st->put_done) return CL_SUCCESS;
    cl_int err = clEnqueueBarrierWithWaitList(st->queue, 1, &st->put_done, NULL);
    clReleaseEvent(st->put_done);
    st->put_done = NULL;
    return err;
}

hsp_status ocl_get(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes)
{
    ocl_state *st = g->backend;
    cl_event ran = NULL;
    cl_int err = side_queue(st, 1);
    if (err == CL_SUCCESS) err = clEnqueueMarkerWithWaitList(st->queue, 0, NULL, &ran);
    if (err == CL_SUCCESS) err = stage_read(st, st->side[1], &st->stage[OCL_STAGE_GET], x->mem, offset, host, bytes, ran);
    if (ran) clReleaseEvent(ran);
    return copy_status(err, "copy from the device beside the kernels");
}
