/* opencl.h: the opencl device (private to the library), a back end of
 * gpu.h.  It finds devices through the system's ICD loader and builds the
 * kernels of kernels/ (embedded in the library) with an on-disk cache of
 * binaries.  Memory is fine-grained system SVM (the host's own arrays, long
 * rows grown by realloc), fine-grained buffer SVM (clSVMAlloc, grown by
 * copy) or plain buffers with explicit transfers (grown by copy). */
#ifndef HSP_OPENCL_H
#define HSP_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include "device/gpu.h"
#include "core/pool.h"

enum { OCL_SVM_NONE, OCL_SVM_BUFFER, OCL_SVM_SYSTEM };
/* Two pinned staging blocks, mapped once and kept, and the transfer each
 * is in (NULL when free). */
typedef struct {
    cl_mem mem[2];
    void *ptr[2];
    cl_event ev[2];
} ocl_stage;
/* The staging of the kernels' queue, and of the transfers beside it (put,
 * get: each on a queue of its own). */
enum { OCL_STAGE_MAIN, OCL_STAGE_PUT, OCL_STAGE_GET, OCL_STAGES };

/* The kernels of one precision, by gpu.h's numbers. */
typedef struct {
    cl_program program;
    cl_kernel kernel[GK_COUNT];
} ocl_kernels;

/* The back end's state (gpu.backend). */
typedef struct {
    cl_device_id id;
    cl_context context;
    cl_command_queue queue;
    int svm;                 /* OCL_SVM_* in use */
    size_t max_group;        /* largest work-group */
    ocl_kernels k[2];        /* float, double */
    /* buffers-only transfers go through two pinned staging blocks, copied
     * to and from by the CPU threads while the other block is in flight */
    hsp_pool *pool;
    ocl_stage stage[OCL_STAGES];
    /* the queues of ocl_put and ocl_get (made at their first use), and
     * the last put, which the next launch waits for */
    cl_command_queue side[2];
    cl_event put_done;
    /* smaller writes are copied into a pinned block and not waited for; the
     * block is filled from its start again once the queue has drained */
    cl_mem up_mem;
    unsigned char *up_ptr;
    size_t up_used;
    struct ocl_profile *profile; /* kernel times (HSPGEMM_PROFILE), or NULL */
    char name[64];               /* the device's, for the profile and the hook of a build */
} ocl_state;

/* What an OpenCL device offers, for the device list and for choosing. */
typedef struct {
    cl_platform_id platform;
    cl_device_id id;
    char name[128], platform_name[64], platform_version[64], driver_version[32];
    int is_gpu, fp64, svm, wavefront, compute_units;
    int64_t local_mem;
    size_t max_group;
} ocl_info;

/* All OpenCL devices of all platforms, in order (listed once per process,
 * the first call serving the threads that call at once); *count may be 0. */
hsp_status ocl_devices(ocl_info *list, int max, int *count);
/* An OpenCL status in words. */
const char *ocl_error(cl_int err);
/* The status of a failed call: HSP_ERR_NOMEM where the device could not
 * allocate memory (NVIDIA allocates a buffer at its first use: a launch or
 * copy then fails so), else HSP_ERR_DEVICE. */
hsp_status ocl_status(cl_int err);
/* Build (or load from the cache) the kernels of one precision. */
hsp_status ocl_build(ocl_state *st, int dbl, ocl_kernels *k);
void ocl_kernels_free(ocl_kernels *k);

/* The back end's arrays (opencl_mem.c): buffers with staged transfers, or
 * SVM blocks; staging blocks freed by ocl_stage_free.  ocl_drained: the
 * queue has run all it was given (a clFinish or a blocking read). */
hsp_status ocl_alloc(gpu *g, gpu_array *x, size_t bytes);
void ocl_free(gpu *g, gpu_array *x);
hsp_status ocl_write(gpu *g, gpu_array *x, const void *host, size_t bytes);
hsp_status ocl_read(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes);
hsp_status ocl_copy(gpu *g, gpu_array *dst, gpu_array *src, size_t bytes);
/* gpu_ops' put and get (buffers only): transfers on queues of their own
 * beside the kernels', through staging blocks of their own.  ocl_after_put
 * makes the kernels' queue wait for the last put. */
hsp_status ocl_put(gpu *g, gpu_array *x, size_t offset, const void *host, size_t bytes);
hsp_status ocl_get(gpu *g, gpu_array *x, size_t offset, void *host, size_t bytes);
cl_int ocl_after_put(ocl_state *st);
void ocl_stage_free(ocl_state *st);
void ocl_drained(ocl_state *st);

/* Kernel times (opencl_profile.c): a profile when HSPGEMM_PROFILE asks for
 * one, else NULL; a launch's event to add; the times printed to stderr and
 * the profile freed.  Collect waits for the pending launches. */
typedef struct ocl_profile ocl_profile;
ocl_profile *ocl_profile_new(void);
void ocl_profile_add(ocl_profile *p, int kernel, cl_event event);
void ocl_profile_collect(ocl_profile *p);
void ocl_profile_print(ocl_profile *p, const char *device);

/* Open "opencl[:N][,nosvm][,nofp64]"; pool copies to and from staging. */
hsp_status hsp_device_opencl_open(const char *spec, hsp_pool *pool, hsp_device **out);
/* The index of the first GPU of the system, or of list (count entries); -1
 * when there is none. */
int ocl_first_gpu(void);
int ocl_first_gpu_of(const ocl_info *list, int count);
/* The name of an OCL_SVM_* mode. */
const char *ocl_svm_name(int svm);

#endif
