/* opencl.h: the opencl device (private to the library).  It finds devices
 * through the system's ICD loader, builds the kernels of kernels/ (embedded in the
 * library) with an on-disk cache of binaries, and runs bins 2 and up of a job
 * on the device.  Memory is fine-grained system SVM (the host's own arrays,
 * long rows grown by realloc), fine-grained buffer SVM (clSVMAlloc, grown by
 * copy) or plain buffers with explicit transfers (grown by copy). */
#ifndef HSP_OPENCL_H
#define HSP_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include "device.h"
#include "pool.h"

enum { OCL_SVM_NONE, OCL_SVM_BUFFER, OCL_SVM_SYSTEM };
enum { OCL_HEAP_MAX = 64 }; /* heap kernels exist for u = 2 .. 64 */

/* A long row's state, laid out as kernels/common.h's hsp_longrow. */
typedef struct {
    int64_t off, hcap, roff, len, next, need;
} ocl_longrow;

/* An array the kernels use: a buffer, an SVM block, or (system SVM) a host
 * array used in place (owned = 0). */
typedef struct {
    cl_mem mem;
    void *ptr;
    size_t bytes;
    int owned;
} ocl_array;

/* The kernels of one precision. */
typedef struct {
    cl_program program;
    cl_kernel bound, esc, merge, arrange, heap[OCL_HEAP_MAX + 1];
} ocl_kernels;

/* The arrays of a job on the device. */
enum { OA_ARP, OA_ACOL, OA_AVAL, OA_BRP, OA_BCOL, OA_BVAL, OA_UB, OA_ROWS, OA_SLOT,
       OA_TCOL, OA_TVAL, OA_CNT, OA_PCOL, OA_PVAL, OA_LROWS, OA_RELAUNCH, OA_LONGROWS, OA_CRP,
       OA_CCOL, OA_CVAL, OA_COUNT };

typedef struct {
    cl_device_id id;
    cl_context context;
    cl_command_queue queue;
    int svm;                 /* OCL_SVM_* in use */
    int fp64;                /* double kernels built */
    size_t max_group;        /* largest work-group */
    int64_t local_mem;       /* the device's local memory, bytes */
    ocl_kernels k[2];        /* float, double */
    ocl_array a[OA_COUNT];
    int b_is_a;              /* B is A: the B arrays are A's */
    int64_t device_bytes, peak_device_bytes;
    /* buffers-only transfers go through two pinned staging blocks, copied
     * to and from by the CPU threads while the other block is in flight */
    hsp_pool *pool;
    cl_mem stage_mem[2];
    void *stage_ptr[2];
    cl_event stage_ev[2];
    /* the job in flight */
    int started;             /* its rows, slots and C~ are on the device */
    int64_t pool_used, pool_cap; /* entries of the long-row pool */
    ocl_longrow *lrows;      /* host copy of the long rows' state */
    int32_t *relaunch;       /* rows to launch again */
    int32_t *longrows;       /* long rows ordered by kernel (method auto) */
    int64_t *counts;         /* row counts read back (buffer and SVM buffer) */
} ocl_state;

/* What an OpenCL device offers, for the device list and for choosing. */
typedef struct {
    cl_platform_id platform;
    cl_device_id id;
    char name[128], platform_name[64];
    int is_gpu, fp64, svm, wavefront;
    int64_t local_mem;
    size_t max_group;
} ocl_info;

/* All OpenCL devices of all platforms, in order; *count may be 0. */
hsp_status ocl_devices(ocl_info *list, int max, int *count);
/* An OpenCL status in words. */
const char *ocl_error(cl_int err);
/* Build (or load from the cache) the kernels of one precision. */
hsp_status ocl_build(ocl_state *st, int dbl, ocl_kernels *k);
void ocl_kernels_free(ocl_kernels *k);

/* Device arrays: room for bytes (kept between jobs, grown when short);
 * host data in (a copy, or the host array itself with system SVM); data
 * back to the host; a kernel argument; free. */
hsp_status ocl_reserve(ocl_state *st, int which, size_t bytes);
hsp_status ocl_upload(ocl_state *st, int which, const void *host, size_t bytes);
hsp_status ocl_download(ocl_state *st, int which, void *host, size_t bytes);
hsp_status ocl_arg(ocl_state *st, cl_kernel k, cl_uint index, int which);
void ocl_release(ocl_state *st, int which);
/* Grow array which to bytes keeping its first keep bytes, by realloc (system
 * SVM and grow=realloc) or allocate + copy; counts the bytes copied. */
hsp_status ocl_grow(ocl_state *st, int which, size_t bytes, size_t keep, int use_realloc,
                    int64_t *copied, int *moved);

/* Set scalar or array arguments; launch a 1-D grid of groups x size. */
hsp_status ocl_launch(ocl_state *st, cl_kernel k, size_t groups, size_t size);

/* Long rows: give each its first buffer (room for all u products where u is
 * at most esc_max, for ESC); after the queue ran, grow and relaunch the rows
 * that stopped until all are done. */
hsp_status ocl_long_start(ocl_state *st, struct hsp_job *job, int64_t esc_max);
hsp_status ocl_long_finish(ocl_state *st, struct hsp_job *job);
/* Launch method m's kernel over rows [first, first + nrows) of the array
 * `rows` (OA_ROWS, OA_LONGROWS or OA_RELAUNCH), rows of up to hi products
 * (hi < 0: any), long rows (results in the pool) when islong. */
hsp_status ocl_launch_rows(ocl_state *st, struct hsp_job *job, hsp_method m, int64_t hi, int islong,
                           int rows, int64_t first, int64_t nrows);

/* Free the staging blocks. */
void ocl_stage_free(ocl_state *st);

/* Open "opencl[:N][,nosvm][,nofp64]"; pool copies to and from staging. */
hsp_status hsp_device_opencl_open(const char *spec, hsp_pool *pool, hsp_device **out);
/* The index of the first GPU of the system, or of list (count entries); -1
 * when there is none. */
int ocl_first_gpu(void);
int ocl_first_gpu_of(const ocl_info *list, int count);
/* The name of an OCL_SVM_* mode. */
const char *ocl_svm_name(int svm);

#endif
