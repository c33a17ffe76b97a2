/* hsa_gpu.h: the hsa device, a back end of gpu.h over the ROCm HSA runtime.
 * One GPU agent, one AQL queue, the embedded code object that matches the
 * agent's ISA loaded into an executable per precision, and memory that the
 * GPU and the CPU threads share: host arrays in place where host memory is
 * GPU-accessible by default (XNACK on; long rows grown by realloc), else a
 * coarse-grained pool where the host reaches it (grown by allocate + copy). */
#ifndef HSP_HSA_GPU_H
#define HSP_HSA_GPU_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdatomic.h>
#include "device/hsa/code_objects.h"
#include "device/gpu.h"
#include "device/hsa/kernel_layout.h"

/* How host and GPU share memory. */
typedef enum {
    HSA_MEM_SVM,        /* host memory is GPU-accessible by default (XNACK on) */
    HSA_MEM_SVM_MAPPED, /* host memory is made accessible range by range (asked for) */
    HSA_MEM_POOL        /* arrays come from a pool both sides reach */
} hsa_mem_mode;

/* What the user asked of the memory: the default, a pool (nosvm), or host
 * memory registered range by range even without XNACK (svm). */
typedef enum { HSA_WANT_DEFAULT, HSA_WANT_POOL, HSA_WANT_SVM } hsa_mem_want;

/* The memory mode for a system with SVM (supported), host memory
 * accessible by default, and what the user asked. */
hsa_mem_mode hsa_choose_memory(int svm, int by_default, hsa_mem_want want);
/* The name of a mode, for the device description and stats. */
const char *hsa_memory_name(hsa_mem_mode mode);
/* How host arrays come to be used in place (mode svm) on a GPU of this
 * processor ("gfx90c"): XNACK, where it has it, and what it takes. */
const char *hsa_xnack_hint(const char *processor);

/* A host range registered with the runtime (hsa_amd_svm_attributes_set). */
typedef struct {
    uintptr_t start, end;
    int owned; /* an array of the device's own, kept between products */
} hsa_range;

/* A loaded kernel: its descriptor address and layout. */
typedef struct {
    uint64_t object;
    const hsp_kernel_info *layout;
} hsa_kernel;

typedef struct {
    hsa_agent_t agent, cpu;
    hsa_mem_mode mode;
    int shared;                     /* the host reaches the agent's own memory */
    const char *xnack_hint;         /* hsa_xnack_hint of its processor */
    hsa_amd_memory_pool_t arrays, kernarg_pool; /* job arrays (pool mode); kernel arguments */
    int arrays_coarse;              /* the arrays' pool is coarse-grained */
    int arrays_local;               /* it is the agent's own (the CPU is allowed in too) */
    hsa_range *ranges;              /* registered host ranges (svm modes) */
    int nranges, cap_ranges;
    uint32_t max_group;             /* the agent's largest work-group */
    int64_t group_mem;              /* its group segment, bytes */
    hsa_executable_t exec[2];       /* float, double (handle 0: none) */
    hsa_code_object_reader_t reader[2];
    hsa_kernel kernel[2][GK_COUNT];
    hsa_queue_t *queue;
    hsa_signal_t done;              /* dispatches not yet complete */
    _Atomic int queue_error;        /* an hsa_status_t the queue reported */
    _Atomic int faulted;            /* a GPU memory fault on the agent (hsa_runtime.c) */
    _Atomic uint64_t fault_address;
    _Atomic uint32_t fault_reason;  /* hsa_amd_memory_fault_reason_t bits */
    uint64_t ticks_per_s;           /* of the signal wait's timeout */
    unsigned char *kernargs;        /* nslots blocks of slot bytes */
    uint32_t slot, nslots, next_slot;
    int overlapped;                 /* the last dispatch may overlap the next */
    int unreleased;                 /* dispatches since the last release to the host */
    int held, watched;              /* it holds the runtime; faults reach it */
} hsa_state;

/* An HSA status in words (the runtime's own string where it has one). */
const char *hsa_error(hsa_status_t status);

/* The runtime (hsa_runtime.c): hold it (hsa_init, and on the first hold the
 * handler of GPU memory faults) and release it (hsa_shut_down), thread-safe;
 * watch a device's agent for memory faults (st->faulted) until unwatched. */
hsa_status_t hsa_runtime_hold(void);
void hsa_runtime_release(void);
hsp_status hsa_runtime_watch(hsa_state *st);
void hsa_runtime_unwatch(hsa_state *st);

/* The pools: kernel arguments (the CPU agent's, fine-grained); and in pool
 * mode the job arrays' (st->shared: the agent's own coarse-grained pool, else
 * the CPU agent's coarse-grained one, else its fine-grained one). */
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
hsp_status hsa_map_host(gpu *g, void *host, size_t bytes, int owned);
/* Forget the registered range that starts at host, or (host NULL) every
 * range but those of the device's own arrays. */
void hsa_unmap_host(gpu *g, void *host);
size_t hsa_group_limit(gpu *g, int dbl, int kernel);
hsp_status hsa_launch(gpu *g, int dbl, int kernel, const gpu_arg *args, int nargs, size_t groups, size_t size);
hsp_status hsa_finish(gpu *g);
/* Close: the queue first (then its signal and kernel arguments), the
 * executables, the runtime hold.  A lost device keeps all of it, since the
 * GPU may still run; it only stops being told of faults. */
void hsa_close(gpu *g);

#endif
