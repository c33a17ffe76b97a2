/* hsa_gpu.h: the hsa device, a back end of gpu.h over the ROCm HSA runtime.
 * One GPU agent, one AQL queue, the embedded code object that matches the
 * agent's ISA loaded into an executable per precision, and memory that the
 * GPU and the CPU threads share: host arrays in place where the system's SVM
 * allows it (long rows grown by realloc), else a fine-grained system pool
 * (grown by allocate + copy). */
#ifndef HSP_HSA_GPU_H
#define HSP_HSA_GPU_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdatomic.h>
#include "code_objects.h"
#include "gpu.h"
#include "kernel_layout.h"

/* How host and GPU share memory. */
typedef enum {
    HSA_MEM_SVM,        /* host memory is GPU-accessible by default (XNACK on) */
    HSA_MEM_SVM_MAPPED, /* host memory is made accessible range by range */
    HSA_MEM_POOL        /* arrays come from a fine-grained system pool */
} hsa_mem_mode;

/* The memory mode for a system with SVM (supported), host memory
 * accessible by default, and the user's choice nosvm. */
hsa_mem_mode hsa_choose_memory(int svm, int by_default, int nosvm);
/* The name of a mode, for the device description and stats. */
const char *hsa_memory_name(hsa_mem_mode mode);

/* A loaded kernel: its descriptor address and layout. */
typedef struct {
    uint64_t object;
    const hsp_kernel_info *layout;
} hsa_kernel;

typedef struct {
    hsa_agent_t agent, cpu;
    hsa_mem_mode mode;
    hsa_amd_memory_pool_t fine, kernarg_pool;
    uint32_t max_group;             /* the agent's largest work-group */
    int64_t group_mem;              /* its group segment, bytes */
    hsa_executable_t exec[2];       /* float, double (handle 0: none) */
    hsa_code_object_reader_t reader[2];
    hsa_kernel kernel[2][GK_COUNT];
    hsa_queue_t *queue;
    hsa_signal_t done;              /* dispatches not yet complete */
    _Atomic int queue_error;        /* an hsa_status_t the queue reported */
    uint64_t ticks_per_s;           /* of the signal wait's timeout */
    unsigned char *kernargs;        /* nslots blocks of slot bytes */
    uint32_t slot, nslots, next_slot;
    int overlapped;                 /* the last dispatch may overlap the next */
} hsa_state;

/* An HSA status in words (the runtime's own string where it has one). */
const char *hsa_error(hsa_status_t status);

/* Pools of the CPU agent: fine-grained system memory and kernel arguments. */
hsp_status hsa_find_pools(hsa_state *st);
/* Load the code object of co for the agent into executable dbl, and look
 * up every kernel's descriptor. */
hsp_status hsa_load(hsa_state *st, const hsp_code_object *co, int dbl);
void hsa_unload(hsa_state *st);
/* The queue, its completion signal and the kernel-argument blocks. */
hsp_status hsa_queue_open(hsa_state *st);
void hsa_queue_close(hsa_state *st);

/* gpu_ops members. */
hsp_status hsa_alloc(gpu *g, gpu_array *x, size_t bytes);
void hsa_free(gpu *g, gpu_array *x);
hsp_status hsa_map_host(gpu *g, void *host, size_t bytes);
size_t hsa_group_limit(gpu *g, int dbl, int kernel);
hsp_status hsa_launch(gpu *g, int dbl, int kernel, const gpu_arg *args, int nargs, size_t groups, size_t size);
hsp_status hsa_finish(gpu *g);

#endif
